/* SPDX-License-Identifier: MIT */
/* Distributions of random delays and the counter-based random streams they draw from. */
#include "retime/noise.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise_internal.h"
#include "retime/units.h"
#include "sidefile.h"

/* An empirical histogram is pingpong's CSV: a few hundred bins per message size, one short line
 * each. 64 MiB (about two million bins) is far beyond that and bounds the memory a bad file takes. */
#define HISTOGRAM_MAX_BYTES (64u << 20)

#define PI 3.14159265358979323846

enum kind { D_EXP, D_LOGNORMAL, D_PARETO, D_UNIFORM, D_NORMAL, D_EMPIRICAL };

struct rt_dist {
    enum kind kind;
    double a, b;       /* exp: mean; lognormal: median, sigma; pareto: scale, shape;
                        * uniform: min, max; normal: mean, sd */
    size_t nbins;      /* empirical: bins with their cumulative counts */
    double *lo, *hi;   /* bin edges [ns], already shifted so that the smallest lo is 0 */
    double *cum;       /* cum[i] = counts of bins 0..i */
};

/* ------------------------------------------------------------------ random streams */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t rt_rng_stream(uint64_t seed, uint64_t run, uint64_t key)
{
    uint64_t s = seed;
    uint64_t h = splitmix64(&s);
    s = h ^ run;
    h = splitmix64(&s);
    s = h ^ key;
    return splitmix64(&s);
}

double rt_rng_uniform(uint64_t *state)
{
    return ((double)(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53; /* never 0 or 1 */
}

/* ------------------------------------------------------------------ parsing */

/* Looks up KEY=VALUE in a comma-separated list; returns a pointer to the value (up to ',' or
 * the end) and its length, or NULL. */
const char *rt__noise_param(const char *args, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    for (const char *p = args; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            *len = n - klen - 1;
            return p + klen + 1;
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

const char *rt__noise_quote(char *buf, size_t n, const char *s, size_t len)
{
    /* (a spec or a key of thousands of characters was quoted whole, or cut without a word) */
    if (len > 60)
        snprintf(buf, n, "%.57s...", s);
    else
        snprintf(buf, n, "%.*s", (int)len, s);
    return buf;
}

int rt__noise_get(const char *what, const char *spec, const char *args, const char *key, int is_time, double *out,
                  rt_error *err)
{
    size_t n;
    const char *v = rt__noise_param(args, key, &n);
    char buf[64], q[64];
    rt__noise_quote(q, sizeof q, spec, strlen(spec));
    if (!v)
        return rt_error_set(err, RT_EINVAL, "%s '%s': needs %s=", what, q, key);
    if (n >= sizeof buf)
        return rt_error_set(err, RT_EINVAL, "%s '%s': value of %s too long", what, q, key);
    memcpy(buf, v, n);
    buf[n] = '\0';
    rt_error e = {0};
    int rc = is_time ? rt_parse_time_ns(buf, out, &e) : rt_parse_number(buf, out, &e);
    if (rc)
        return rt_error_set(err, rc, "%s '%s': %s: %s", what, q, key, e.msg);
    return RT_OK;
}

/* Checks that @p args names only the keys in @p keys (NULL-terminated). */
int rt__noise_only(const char *what, const char *spec, const char *args, const char *const *keys, rt_error *err)
{
    for (const char *p = args; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        size_t k = strcspn(p, "=,");
        int ok = 0;
        for (const char *const *q = keys; *q && !ok; q++)
            ok = strlen(*q) == k && strncmp(p, *q, k) == 0 && k < n;
        if (!ok) {
            char qs[64], qk[64];
            return rt_error_set(err, RT_EINVAL, "%s '%s': unexpected '%s'", what,
                                rt__noise_quote(qs, sizeof qs, spec, strlen(spec)), rt__noise_quote(qk, sizeof qk, p, n));
        }
        p = end ? end + 1 : NULL;
    }
    return RT_OK;
}

/* Grows a bin array to @p n entries; 0 or -1. */
static int grow_bins(double **p, size_t n)
{
    double *q = realloc(*p, n * sizeof *q);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

static int load_empirical(const char *spec, const char *args, struct rt_dist *d, rt_error *err)
{
    char path[1024];
    size_t plen = strcspn(args, ",");
    if (plen == 0 || plen >= sizeof path)
        return rt_error_set(err, RT_EINVAL, "noise '%s': empirical needs a file name", spec);
    memcpy(path, args, plen);
    path[plen] = '\0';
    const char *rest = args[plen] ? args + plen + 1 : "";
    static const char *const keys[] = {"size", NULL};
    int rc = rt__noise_only("noise", spec, rest, keys, err);
    if (rc)
        return rc;
    rt_bytes want = UINT64_MAX;
    size_t n;
    const char *sv = rt__noise_param(rest, "size", &n);
    if (sv) {
        char buf[64];
        rt_error e = {0};
        if (n >= sizeof buf)
            return rt_error_set(err, RT_EINVAL, "noise '%s': bad size", spec);
        memcpy(buf, sv, n);
        buf[n] = '\0';
        if (rt_parse_bytes(buf, &want, &e))
            return rt_error_set(err, RT_EUNIT, "noise '%s': size: %s", spec, e.msg);
    }
    struct rt__sidefile *f;
    if ((rc = rt__sidefile_open(path, "histogram", HISTOGRAM_MAX_BYTES, &f, err)))
        return rc;
    size_t cap = 0;
    unsigned lineno = 0;
    rt_bytes chosen = want;
    const char *line;
    while ((rc = rt__sidefile_line(f, &line, NULL, err)) > 0) {
        lineno = rt__sidefile_lineno(f);
        if (lineno == 1) {
            if (strncmp(line, "size_bytes,bin_lo_ns,bin_hi_ns,count", 36) != 0) {
                rc = rt_error_set(err, RT_ECORRUPT, "%s:1: not a histogram (header size_bytes,bin_lo_ns,bin_hi_ns,count)",
                                  path);
                goto out;
            }
            continue;
        }
        unsigned long long size;
        double lo, hi, count;
        char extra;
        /* The count as a number, not %llu, which takes "-1" as 2^64 - 1 (it then had all the weight). */
        if (sscanf(line, "%llu,%lf,%lf,%lf %c", &size, &lo, &hi, &count, &extra) != 4 || !(lo >= 0) ||
            !(hi >= lo) || !isfinite(hi)) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: expected size_bytes,bin_lo_ns,bin_hi_ns,count", path, lineno);
            goto out;
        }
        if (!(count >= 0) || count != floor(count) || count >= 0x1p53) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: count %g is not a whole number from 0 to 2^53", path, lineno,
                              count);
            goto out;
        }
        if (chosen == UINT64_MAX)
            chosen = size;
        if (size != chosen) {
            if (want == UINT64_MAX && size < chosen) { /* a smaller size than the one taken so far */
                d->nbins = 0;
                chosen = size;
            } else {
                continue;
            }
        }
        if (d->nbins == cap) {
            cap = cap ? cap * 2 : 64;
            if (grow_bins(&d->lo, cap) || grow_bins(&d->hi, cap) || grow_bins(&d->cum, cap)) {
                rc = rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
                goto out;
            }
        }
        d->lo[d->nbins] = lo;
        d->hi[d->nbins] = hi;
        d->cum[d->nbins] = (d->nbins ? d->cum[d->nbins - 1] : 0) + count;
        d->nbins++;
        if (d->cum[d->nbins - 1] >= 0x1p53) { /* beyond, sums of counts are no longer exact */
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: the counts add up to 2^53 or more", path, lineno);
            goto out;
        }
    }
    if (rc < 0)
        goto out;
    rc = RT_OK;
    if (d->nbins == 0 || d->cum[d->nbins - 1] <= 0) {
        rc = want == UINT64_MAX ? rt_error_set(err, RT_ECORRUPT, "%s: no counts in the histogram", path)
                                : rt_error_set(err, RT_EINVAL, "%s: no counts for size %llu B", path,
                                               (unsigned long long)want);
        goto out;
    }
    double base = d->lo[0];
    for (size_t i = 1; i < d->nbins; i++)
        base = d->lo[i] < base ? d->lo[i] : base;
    for (size_t i = 0; i < d->nbins; i++) {
        d->lo[i] -= base;
        d->hi[i] -= base;
        if (d->hi[i] > RT_MAX_DELAY_NS) {
            char a[32];
            rc = rt_error_set(err, RT_ERANGE, "%s: a bin reaches %s above the smallest edge, beyond %s, the most one "
                              "delay may be", path, rt_format_time(a, sizeof a, d->hi[i]), "1000s");
            goto out;
        }
    }
out:
    rt__sidefile_close(f);
    return rc;
}

int rt_dist_parse(const char *spec, rt_dist **out, rt_error *err)
{
    static const struct {
        const char *name;
        enum kind kind;
        const char *keys[3];
        int time[2];
    } tab[] = {
        {"exp", D_EXP, {"mean", NULL, NULL}, {1, 0}},
        {"lognormal", D_LOGNORMAL, {"median", "sigma", NULL}, {1, 0}},
        {"pareto", D_PARETO, {"scale", "shape", NULL}, {1, 0}},
        {"uniform", D_UNIFORM, {"min", "max", NULL}, {1, 1}},
        {"normal", D_NORMAL, {"mean", "sd", NULL}, {1, 1}},
        {"empirical", D_EMPIRICAL, {NULL, NULL, NULL}, {0, 0}},
    };
    *out = NULL;
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "empty noise distribution");
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *args = colon ? colon + 1 : "";
    struct rt_dist *d = calloc(1, sizeof *d);
    if (!d)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    int rc = RT_EINVAL;
    size_t i = 0;
    for (; i < sizeof tab / sizeof tab[0]; i++)
        if (strlen(tab[i].name) == nlen && strncmp(spec, tab[i].name, nlen) == 0)
            break;
    if (i == sizeof tab / sizeof tab[0]) {
        rc = rt_error_set(err, RT_EINVAL,
                          "unknown noise distribution '%.*s' (known: exp, lognormal, pareto, uniform, normal, empirical)",
                          (int)nlen, spec);
        goto fail;
    }
    d->kind = tab[i].kind;
    if (d->kind == D_EMPIRICAL) {
        if ((rc = load_empirical(spec, args, d, err)))
            goto fail;
        *out = d;
        return RT_OK;
    }
    if ((rc = rt__noise_only("noise", spec, args, tab[i].keys, err)) ||
        (rc = rt__noise_get("noise", spec, args, tab[i].keys[0], tab[i].time[0], &d->a, err)))
        goto fail;
    if (tab[i].keys[1] && (rc = rt__noise_get("noise", spec, args, tab[i].keys[1], tab[i].time[1], &d->b, err)))
        goto fail;
    rc = RT_ERANGE;
    switch (d->kind) {
    case D_EXP:
        break;
    case D_LOGNORMAL:
        if (!(d->a > 0) || !(d->b >= 0 && d->b <= 10)) { /* a negative sigma acted as its absolute value */
            rt_error_set(err, rc, "noise '%s': median must be above 0 and sigma from 0 to 10", spec);
            goto fail;
        }
        break;
    case D_PARETO:
        if (!(d->a > 0) || !(d->b > 0)) {
            rt_error_set(err, rc, "noise '%s': scale and shape must be above 0", spec);
            goto fail;
        }
        if (!(d->b > 1)) {
            rt_error_set(err, rc, "noise '%s': a shape of at most 1 has no finite mean (shape > 1)", spec);
            goto fail;
        }
        break;
    case D_UNIFORM:
        if (d->b < d->a) {
            rt_error_set(err, rc, "noise '%s': max must not be below min", spec);
            goto fail;
        }
        break;
    case D_NORMAL:
        break; /* mean >= 0 (units parser), so P(X > 0) >= 1/2: rejection ends quickly */
    default:
        break;
    }
    /* Every parameter (all are delays but lognormal's sigma and pareto's shape) and the mean
     * within the bound: a mean of 1e308 s saturated the clock and was printed as a prediction. */
    const char *key = d->a > RT_MAX_DELAY_NS ? tab[i].keys[0]
                      : tab[i].time[1] && d->b > RT_MAX_DELAY_NS ? tab[i].keys[1]
                      : !(rt_dist_mean_ns(d) <= RT_MAX_DELAY_NS) ? "the mean" : NULL;
    if (key) {
        char a[32];
        size_t n = 0;
        const char *v = strcmp(key, "the mean") ? rt__noise_param(args, key, &n) : NULL;
        if (!v) { /* the mean, computed */
            v = isfinite(rt_dist_mean_ns(d)) ? rt_format_time(a, sizeof a, rt_dist_mean_ns(d)) : "infinite";
            n = strlen(v);
        }
        rt_error_set(err, rc, "noise '%s': %s is %.*s, beyond 1000s, the most one delay may be", spec, key, (int)n, v);
        goto fail;
    }
    *out = d;
    return RT_OK;
fail:
    rt_dist_free(d);
    return rc;
}

void rt_dist_free(rt_dist *d)
{
    if (!d)
        return;
    free(d->lo);
    free(d->hi);
    free(d->cum);
    free(d);
}

/* ------------------------------------------------------------------ sampling */

static double std_normal(uint64_t *st)
{
    /* Box-Muller, one of the pair: two uniforms per draw keeps the stream position simple. */
    double u1 = rt_rng_uniform(st), u2 = rt_rng_uniform(st);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

/* One draw of distribution @p d, before the cut to RT_MAX_DELAY_NS. */
static double draw(const rt_dist *d, uint64_t *st)
{
    switch (d->kind) {
    case D_EXP:
        return -d->a * log(rt_rng_uniform(st));
    case D_LOGNORMAL:
        return d->a * exp(d->b * std_normal(st));
    case D_PARETO:
        return d->a * pow(rt_rng_uniform(st), -1.0 / d->b);
    case D_UNIFORM:
        return d->a + (d->b - d->a) * rt_rng_uniform(st);
    case D_NORMAL:
        for (;;) { /* truncation at 0 by rejection; the mean is >= 0, so half the draws pass */
            double x = d->a + d->b * std_normal(st);
            if (x >= 0)
                return x;
        }
    case D_EMPIRICAL: {
        double u = rt_rng_uniform(st) * d->cum[d->nbins - 1];
        size_t lo = 0, hi = d->nbins - 1;
        while (lo < hi) { /* first bin whose cumulative count exceeds u */
            size_t mid = (lo + hi) / 2;
            if (d->cum[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        return d->lo[lo] + (d->hi[lo] - d->lo[lo]) * rt_rng_uniform(st);
    }
    }
    return 0;
}

double rt_dist_sample_ns(const rt_dist *d, uint64_t *st)
{
    double x = draw(d, st);
    return x < RT_MAX_DELAY_NS ? x : RT_MAX_DELAY_NS; /* a tail's far end: at most the bound */
}

double rt_dist_mean_ns(const rt_dist *d)
{
    switch (d->kind) {
    case D_EXP:
        return d->a;
    case D_LOGNORMAL:
        return d->a * exp(d->b * d->b / 2.0);
    case D_PARETO:
        return d->b > 1 ? d->a * d->b / (d->b - 1.0) : INFINITY;
    case D_UNIFORM:
        return (d->a + d->b) / 2.0;
    case D_NORMAL: {
        if (d->b == 0)
            return d->a;
        double alpha = -d->a / d->b; /* mean of N(mu, sd) truncated to [0, inf) */
        double pdf = exp(-alpha * alpha / 2.0) / sqrt(2.0 * PI);
        double tail = 0.5 * erfc(alpha / sqrt(2.0));
        return d->a + d->b * pdf / tail;
    }
    case D_EMPIRICAL: {
        double s = 0, prev = 0;
        for (size_t i = 0; i < d->nbins; i++) {
            s += (d->cum[i] - prev) * (d->lo[i] + d->hi[i]) / 2.0;
            prev = d->cum[i];
        }
        return s / d->cum[d->nbins - 1];
    }
    }
    return 0;
}
