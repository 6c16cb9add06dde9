/* text.h - line splitting and file errors shared by the measured-data
 * readers (private to validate/). */
#ifndef DDIOSIM_VALIDATE_TEXT_H
#define DDIOSIM_VALIDATE_TEXT_H

#include <stddef.h>

/* s without leading and trailing blanks (cut in place). */
char *vd_trim(char *s);

/* Split s at commas, in place, into trimmed fields; stores at most `max`
 * of them in f and returns how many there are. */
size_t vd_split_fields(char *s, char **f, size_t max);

#endif
