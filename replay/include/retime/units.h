/* SPDX-License-Identifier: MIT */
/** @file units.h  Parsing and printing of numbers with units (2.122us, 0.76ns/B, 64KiB, 10GB/s). */
#ifndef RETIME_UNITS_H
#define RETIME_UNITS_H

#include <stddef.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Parses a duration with a unit (ns, us, ms, s) into nanoseconds. A bare number is an error. */
int rt_parse_time_ns(const char *s, double *ns, rt_error *err);
/** Parses a size (B, KB=1000, MB, GB, KiB=1024, MiB, GiB; a bare integer means bytes). */
int rt_parse_bytes(const char *s, rt_bytes *bytes, rt_error *err);
/**
 * Parses an inverse bandwidth into ns per byte: TIME/SIZE such as 0.7595ns/B or 0.76us/KB, or a
 * bandwidth SIZE/s such as 10GB/s or 1.25GiB/s (converted to its inverse).
 */
int rt_parse_ns_per_byte(const char *s, double *ns_per_byte, rt_error *err);
/** Parses a rate, a number per time unit (0.2/us, 5/ms, 1e4/s), into events per ns. */
int rt_parse_rate_per_ns(const char *s, double *per_ns, rt_error *err);
/** Parses a plain finite number (no unit). */
int rt_parse_number(const char *s, double *x, rt_error *err);
/** Writes a duration given in ns with a fitting unit ("2.122us", "11.526us", "3.2ms"). */
char *rt_format_time(char *buf, size_t len, double ns);

#ifdef __cplusplus
}
#endif
#endif
