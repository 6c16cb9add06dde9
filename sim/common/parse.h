/* parse.h - strict number parsing shared by the CLI, config and trace readers.
 *
 * Each returns 0 on success, -1 (with `e` filled, naming `what`) when the
 * text is empty, has trailing garbage, or is out of [lo, hi]. */
#ifndef DDIOSIM_COMMON_PARSE_H
#define DDIOSIM_COMMON_PARSE_H

#include <stdint.h>
#include "sim/common/err.h"

int ddio_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                   const char *what, ddio_err *e);
/* Hexadecimal with or without 0x prefix. */
int ddio_parse_hex(const char *s, uint64_t *out, const char *what, ddio_err *e);
int ddio_parse_double(const char *s, double lo, double hi, double *out,
                      const char *what, ddio_err *e);

static inline int ddio_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static inline int ddio_popcount64(uint64_t x) { return __builtin_popcountll(x); }

#endif
