/* provenance.h - what made an output: the ddiosim version and the command
 * line, carried by every JSON document and by a CSV's sidecar
 * (docs/conventions.md, "Inputs and outputs"). */
#ifndef DDIOSIM_COMMON_PROVENANCE_H
#define DDIOSIM_COMMON_PROVENANCE_H

struct cJSON;

/* "ddiosim ARGV..." with each word shell-quoted where it needs it
 * ('a b', 'it'\''s'), so that it can be pasted back into a shell.
 * argv[0] is the subcommand (as main passes it).  malloc'ed; NULL: out of
 * memory. */
char *ddio_command_line(int argc, char *const *argv);

/* Put {"version": DDIOSIM_VERSION, "command": command} under "ddiosim" as
 * root's first member, so a reader meets it first.  0, or -1 when out of
 * memory (root is then unchanged). */
int ddio_provenance_add(struct cJSON *root, const char *command);

/* OUT.meta.json: the sidecar that says what made the CSV file OUT, which
 * holds nothing but its table (malloc'ed; NULL: out of memory). */
char *ddio_sidecar_path(const char *out);

/* The JSON object text `text` (malloc'ed, as cJSON_Print gives it) with
 * the same "ddiosim" member inserted first, its other bytes as they were
 * (numbers written raw, such as 64-bit timestamps, are not re-read).  text
 * is consumed; NULL when out of memory or text is not an object. */
char *ddio_provenance_insert(char *text, const char *command);

#endif
