/* parse.h - strict number parsing shared by the CLI, config and trace readers.
 *
 * Numbers are decimal, the whole text and nothing else: no hexadecimal
 * ("0x10"), octal, "inf" / "nan", and no blank before or after ("' 5'"),
 * although strtod and strtoull take all of these.  Every reader of a number
 * in text (options, --set, NPF / perf files, spec expressions) applies this
 * one rule, through ddio_decimal_len.  Hexadecimal is for masks only
 * (ddio_parse_hex).
 *
 * The ddio_parse_* functions return 0 on success, -1 (with `e` filled,
 * naming `what`) when the text is empty, is not such a number, or is out
 * of [lo, hi]. */
#ifndef DDIOSIM_COMMON_PARSE_H
#define DDIOSIM_COMMON_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "sim/common/err.h"

/* The length of the decimal number that starts s: [sign] digits [. digits]
 * [e|E [sign] digits], with digits on at least one side of the point and
 * the sign only when `sign_ok`; 0 when s does not start with one. */
size_t ddio_decimal_len(const char *s, int sign_ok);
/* s is all one decimal number (ddio_decimal_len, sign allowed) that is a
 * finite double: 0 with *out set, else -1 (for readers that word their own
 * message). */
int ddio_decimal_double(const char *s, double *out);

int ddio_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                   const char *what, ddio_err *e);
/* Hexadecimal with or without 0x prefix. */
int ddio_parse_hex(const char *s, uint64_t *out, const char *what, ddio_err *e);
int ddio_parse_double(const char *s, double lo, double hi, double *out,
                      const char *what, ddio_err *e);

static inline int ddio_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static inline int ddio_popcount64(uint64_t x) { return __builtin_popcountll(x); }

#endif
