/* SPDX-License-Identifier: MIT */
/* Numbers with units: every CLI value passes through here so that units are never guessed. */
#include "retime/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sidefile.h"

/* The value as an error message shows it: at most 60 characters, control bytes escaped (a value
 * may come from a side file). Q(s) needs `char q[RT__QUOTE_SIZE]` in scope. */
#define Q(s) rt__quote(q, sizeof q, (s), strlen(s))

struct unit {
    const char *name;
    double factor;
};

static const struct unit time_units[] = {
    {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {NULL, 0}};
static const struct unit size_units[] = {
    {"B", 1.0},           {"KB", 1e3},          {"MB", 1e6},
    {"GB", 1e9},          {"KiB", 1024.0},      {"MiB", 1048576.0},
    {"GiB", 1073741824.0}, {NULL, 0}};

/* Splits "12.5us" into 12.5 and "us"; the number must be finite and non-negative. */
static int split_number(const char *s, double *x, const char **rest, const char *what, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    char *end = NULL;
    if (!s || !*s)
        return rt_error_set(err, RT_EUNIT, "empty %s", what);
    errno = 0;
    *x = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(*x))
        return rt_error_set(err, RT_EUNIT, "bad %s '%s': not a number", what, Q(s));
    if (*x < 0)
        return rt_error_set(err, RT_EUNIT, "bad %s '%s': must not be negative", what, Q(s));
    *rest = end;
    return RT_OK;
}

static const struct unit *find_unit(const struct unit *tab, const char *name, size_t len)
{
    for (; tab->name; tab++)
        if (strlen(tab->name) == len && strncmp(tab->name, name, len) == 0)
            return tab;
    return NULL;
}

int rt_parse_time_ns(const char *s, double *ns, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    double x;
    const char *u;
    int rc = split_number(s, &x, &u, "duration", err);
    if (rc)
        return rc;
    const struct unit *unit = find_unit(time_units, u, strlen(u));
    if (!unit && !*u && x == 0) { /* zero is zero in any unit */
        *ns = 0;
        return RT_OK;
    }
    if (!unit)
        return rt_error_set(err, RT_EUNIT, "bad duration '%s': needs a unit ns, us, ms or s", Q(s));
    *ns = x * unit->factor;
    return RT_OK;
}

int rt_parse_bytes(const char *s, rt_bytes *bytes, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    double x;
    const char *u;
    int rc = split_number(s, &x, &u, "size", err);
    if (rc)
        return rc;
    double factor = 1.0;
    if (*u) {
        const struct unit *unit = find_unit(size_units, u, strlen(u));
        if (!unit)
            return rt_error_set(err, RT_EUNIT,
                                "bad size '%s': unit must be B, KB, MB, GB, KiB, MiB or GiB", Q(s));
        factor = unit->factor;
    }
    double v = x * factor;
    if (v != floor(v))
        return rt_error_set(err, RT_EUNIT, "bad size '%s': not a whole number of bytes", Q(s));
    if (v > 9.0e18)
        return rt_error_set(err, RT_ERANGE, "bad size '%s': too large", Q(s));
    *bytes = (rt_bytes)v;
    return RT_OK;
}

int rt_parse_ns_per_byte(const char *s, double *ns_per_byte, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    double x;
    const char *u;
    int rc = split_number(s, &x, &u, "inverse bandwidth", err);
    if (rc)
        return rc;
    const char *slash = strchr(u, '/');
    if (!slash)
        return rt_error_set(err, RT_EUNIT,
                            "bad inverse bandwidth '%s': needs a unit such as ns/B, us/KB or GB/s", Q(s));
    const struct unit *num_t = find_unit(time_units, u, (size_t)(slash - u));
    const struct unit *den_s = find_unit(size_units, slash + 1, strlen(slash + 1));
    if (num_t && den_s) {
        *ns_per_byte = x * num_t->factor / den_s->factor;
        return RT_OK;
    }
    const struct unit *num_s = find_unit(size_units, u, (size_t)(slash - u));
    const struct unit *den_t = find_unit(time_units, slash + 1, strlen(slash + 1));
    if (num_s && den_t) {
        if (x == 0)
            return rt_error_set(err, RT_EUNIT, "bad bandwidth '%s': must be positive", Q(s));
        *ns_per_byte = den_t->factor / (x * num_s->factor);
        return RT_OK;
    }
    return rt_error_set(err, RT_EUNIT,
                        "bad inverse bandwidth '%s': unit must be TIME/SIZE (ns/B, us/KB) or SIZE/s (GB/s)", Q(s));
}

int rt_parse_rate_per_ns(const char *s, double *per_ns, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    double x;
    const char *u;
    int rc = split_number(s, &x, &u, "rate", err);
    if (rc)
        return rc;
    const struct unit *unit = *u == '/' ? find_unit(time_units, u + 1, strlen(u + 1)) : NULL;
    if (!unit)
        return rt_error_set(err, RT_EUNIT, "bad rate '%s': needs a unit /ns, /us, /ms or /s (e.g. 0.2/us)", Q(s));
    *per_ns = x / unit->factor;
    return RT_OK;
}

int rt_parse_number(const char *s, double *x, rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    char *end = NULL;
    if (!s || !*s)
        return rt_error_set(err, RT_EUNIT, "empty number");
    errno = 0;
    *x = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(*x))
        return rt_error_set(err, RT_EUNIT, "bad number '%s'", Q(s));
    return RT_OK;
}

char *rt_format_time(char *buf, size_t len, double ns)
{
    double a = fabs(ns);
    if (a < 1e3)
        snprintf(buf, len, "%.3gns", ns);
    else if (a < 1e6)
        snprintf(buf, len, "%.4gus", ns / 1e3);
    else if (a < 1e9)
        snprintf(buf, len, "%.4gms", ns / 1e6);
    else
        snprintf(buf, len, "%.4gs", ns / 1e9);
    return buf;
}
