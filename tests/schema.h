/* schema.h - a JSON Schema (draft 2020-12) checker for the subset
 * docs/schemas/ uses: type (a name or a list), properties, required,
 * additionalProperties (false or a schema), items, enum (of strings,
 * numbers, booleans), minimum, maximum, $defs and "$ref": "#/$defs/NAME".
 * Any other keyword in a schema is an error, so that a schema never says
 * more than is checked. */
#ifndef DDIOSIM_TESTS_SCHEMA_H
#define DDIOSIM_TESTS_SCHEMA_H

#include <stddef.h>

struct cJSON;

/* Whether doc meets schema (root: the whole schema document, for $ref):
 * 0; else -1 and why holds the first failure, "$.a.b[2]: what". */
int schema_check(const struct cJSON *root, const struct cJSON *doc, char *why, size_t cap);

#endif
