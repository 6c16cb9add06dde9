/* u63.h - conversions between doubles and unsigned integers known to be
 * below 2^63 (simulated times in ns or ps, byte counts).
 *
 * x86-64 converts signed 64-bit integers in one instruction; the unsigned
 * conversions add a test and a branch (and a fix-up path) each way.  For
 * values below 2^63 the signed conversion gives the same value, so these
 * are drop-in replacements on hot paths where the bound holds (2^63 ps is
 * 106 days of simulated time). */
#ifndef DDIOSIM_QUEUE_U63_H
#define DDIOSIM_QUEUE_U63_H

#include <stdint.h>

/* v < 2^63: (double)v. */
static inline double u63_to_double(uint64_t v)
{
    return (double)(int64_t)v;
}

/* 0 <= d < 2^63: (uint64_t)d (truncation). */
static inline uint64_t u63_from_double(double d)
{
    return (uint64_t)(int64_t)d;
}

#endif
