/* SPDX-License-Identifier: MIT */
/*
 * OS noise: sequences of CPU detours per rank and the CPU that runs them before the program.
 *
 * Each source gives every rank a sequence of detours [s, e) in start order that do not overlap.
 * A periodic source and a file can be entered at any time directly; a Poisson source is walked
 * from time 0 in its random stream, so it is cheap only while a rank's queries move forward
 * (they do: a rank's clock never goes back). With several sources, rt__os_advance takes at each
 * step the detour that starts first among the sources, which is the union of their detours.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise_internal.h"
#include "retime/model.h"
#include "retime/units.h"
#include "sidefile.h"

#define MAX_SOURCES 8
/* A noise file lists detours, about 20 bytes a line; 64 MiB is some three million detours (a
 * 1 kHz timer tick for most of an hour; the file's pattern repeats beyond its span) and bounds
 * the memory a wrong file can take. */
#define NOISE_FILE_MAX_BYTES (64u << 20)
#define DOMAIN_OS 0x4f534e4f495345ull /* "OSNOISE": keeps these draws apart from the messages' */

enum kind { S_PERIODIC, S_POISSON, S_FILE };

struct source {
    enum kind kind;
    char *spec;                  /* as given, for messages */
    uint32_t rank_lo, rank_hi;  /* the ranks it applies to, inclusive */
    rt_time_ps period, duration; /* periodic; poisson: the fixed duration when dist is NULL */
    int aligned;                 /* periodic: every rank at phase 0 */
    double interval_ns;          /* poisson: mean time between arrivals */
    rt_dist *dist;               /* poisson: the duration distribution, or NULL */
    rt_time_ps *fs, *fe;         /* file: merged detours, sorted */
    size_t n;
    rt_time_ps span;             /* file: the pattern repeats after this */
    int cosched;                 /* file: all ranks at one offset */
    double load;                 /* long-run share of the CPU */
};

struct rt_os_noise {
    unsigned n;
    struct source src[MAX_SOURCES];
};

/* ------------------------------------------------------------------ parsing */

static void source_free(struct source *s)
{
    free(s->spec);
    rt_dist_free(s->dist);
    free(s->fs);
    free(s->fe);
}

static int parse_ranks(const char *spec, const char *args, struct source *s, rt_error *err)
{
    size_t n;
    const char *v = rt__noise_param(args, "ranks", &n);
    s->rank_lo = 0;
    s->rank_hi = UINT32_MAX;
    if (!v)
        return RT_OK;
    char buf[48], *end;
    if (n == 0 || n >= sizeof buf)
        return rt_error_set(err, RT_EINVAL, "noise '%s': ranks= needs A or A-B", spec);
    memcpy(buf, v, n);
    buf[n] = '\0';
    errno = 0;
    unsigned long lo = strtoul(buf, &end, 10), hi = lo;
    if (*end == '-' && end[1] >= '0' && end[1] <= '9')
        hi = strtoul(end + 1, &end, 10);
    if (errno || *end || buf[0] < '0' || buf[0] > '9' || lo > hi || hi >= UINT32_MAX)
        return rt_error_set(err, RT_EINVAL, "noise '%s': bad ranks '%s' (A or A-B with A <= B)", spec, buf);
    s->rank_lo = (uint32_t)lo;
    s->rank_hi = (uint32_t)hi;
    return RT_OK;
}

static int time_ps(const char *spec, const char *args, const char *key, rt_time_ps *out, rt_error *err)
{
    double ns;
    int rc = rt__noise_get("noise", spec, args, key, 1, &ns, err);
    if (rc)
        return rc;
    if (ns > 1e15)
        return rt_error_set(err, RT_ERANGE, "noise '%s': %s is too long", spec, key);
    *out = rt_ns_to_ps(ns);
    return RT_OK;
}

/* A detour longer than RT_MAX_DELAY_NS (the bound on every delay; docs/noise.md, "Bounds"). */
static int too_long(const char *spec, const char *what, rt_error *err)
{
    return rt_error_set(err, RT_ERANGE, "noise '%s': %s is beyond 1000s, the most one detour may last", spec, what);
}

static int parse_periodic(const char *spec, const char *args, struct source *s, rt_error *err)
{
    static const char *const keys[] = {"period", "duration", "phase", "ranks", NULL};
    int rc;
    if ((rc = rt__noise_only("noise", spec, args, keys, err)) || (rc = time_ps(spec, args, "period", &s->period, err)) ||
        (rc = time_ps(spec, args, "duration", &s->duration, err)))
        return rc;
    if (s->period <= 0 || s->duration >= s->period)
        return rt_error_set(err, RT_ERANGE, "noise '%s': needs 0 < duration < period", spec);
    if ((double)s->duration > RT_MAX_DELAY_NS * 1e3)
        return too_long(spec, "duration", err);
    size_t n;
    const char *ph = rt__noise_param(args, "phase", &n);
    if (ph && n == 7 && !strncmp(ph, "aligned", 7))
        s->aligned = 1;
    else if (ph && !(n == 6 && !strncmp(ph, "random", 6)))
        return rt_error_set(err, RT_EINVAL, "noise '%s': phase must be random or aligned", spec);
    s->load = (double)s->duration / (double)s->period;
    return RT_OK;
}

static int parse_poisson(const char *spec, const char *args, struct source *s, rt_error *err)
{
    static const char *const keys[] = {"interval", "ranks", NULL};
    /* duration= comes last and takes the rest: a distribution spec has commas of its own. */
    const char *d = !strncmp(args, "duration=", 9) ? args : strstr(args, ",duration=");
    if (!d)
        return rt_error_set(err, RT_EINVAL, "noise '%s': needs duration= (a time or a distribution), last", spec);
    const char *dv = d + (*d == ',' ? 10 : 9);
    char head[256];
    size_t hn = (size_t)(d - args);
    if (hn >= sizeof head)
        return rt_error_set(err, RT_EINVAL, "noise '%s': too long", spec);
    memcpy(head, args, hn);
    head[hn] = '\0';
    int rc;
    if ((rc = rt__noise_only("noise", spec, head, keys, err)) || (rc = parse_ranks(spec, head, s, err)) ||
        (rc = rt__noise_get("noise", spec, head, "interval", 1, &s->interval_ns, err)))
        return rc;
    if (!(s->interval_ns > 0))
        return rt_error_set(err, RT_ERANGE, "noise '%s': interval must be above 0", spec);
    double mean;
    rt_error e = {0};
    if (strchr(dv, ':')) {
        if ((rc = rt_dist_parse(dv, &s->dist, &e)))
            return rt_error_set(err, rc, "noise '%s': duration: %s", spec, e.msg);
        mean = rt_dist_mean_ns(s->dist);
    } else {
        if ((rc = rt_parse_time_ns(dv, &mean, &e)))
            return rt_error_set(err, rc, "noise '%s': duration: %s", spec, e.msg);
        if (mean > RT_MAX_DELAY_NS)
            return too_long(spec, "duration", err);
        s->duration = rt_ns_to_ps(mean);
    }
    s->load = mean / s->interval_ns;
    if (!(s->load < 1)) /* the detours alone would keep the CPU busy for ever */
        return rt_error_set(err, RT_ERANGE, "noise '%s': the mean duration must be below the interval", spec);
    return RT_OK;
}

static int by_start(const void *a, const void *b)
{
    const rt_time_ps *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static int parse_file(const char *spec, const char *args, struct source *s, rt_error *err)
{
    static const char *const keys[] = {"ranks", NULL};
    char path[1024], rest[256] = "";
    size_t plen = strcspn(args, ",");
    if (plen == 0 || plen >= sizeof path)
        return rt_error_set(err, RT_EINVAL, "noise '%s': file needs a file name", spec);
    memcpy(path, args, plen);
    path[plen] = '\0';
    for (const char *p = args[plen] ? args + plen + 1 : NULL; p && *p;) { /* the flag has no '=' */
        size_t n = strcspn(p, ",");
        if (n == 11 && !strncmp(p, "coscheduled", 11))
            s->cosched = 1;
        else if (strlen(rest) + n + 2 < sizeof rest)
            snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%.*s", rest[0] ? "," : "", (int)n, p);
        p = p[n] ? p + n + 1 : NULL;
    }
    int rc;
    if ((rc = rt__noise_only("noise", spec, rest, keys, err)) || (rc = parse_ranks(spec, rest, s, err)))
        return rc;
    struct rt__sidefile *f;
    if ((rc = rt__sidefile_open(path, "noise file", NOISE_FILE_MAX_BYTES, &f, err)))
        return rc;
    rt_time_ps *pairs = NULL; /* start, end */
    size_t n = 0, cap = 0;
    unsigned lineno = 0;
    const char *text;
    size_t len;
    char line[RT__SIDEFILE_MAX_LINE + 1];
    while ((rc = rt__sidefile_line(f, &text, &len, err)) > 0) {
        lineno = rt__sidefile_lineno(f);
        memcpy(line, text, len + 1); /* a copy: the comment is cut off */
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        double start, dur;
        char extra;
        int got = sscanf(line, "%lf %lf %c", &start, &dur, &extra);
        if (got <= 0 && strspn(line, " \t\r\n") == strlen(line))
            continue;
        if (got != 2 || !(start >= 0) || !(dur >= 0) || start + dur > 1e15) {
            rc = rt_error_set(err, RT_ECORRUPT, "%s:%u: expected 'start duration' in ns (0 <= start, 0 <= duration)",
                              path, lineno);
            goto out;
        }
        if (dur > RT_MAX_DELAY_NS) {
            rc = rt_error_set(err, RT_ERANGE, "%s:%u: a detour of %.17g ns, beyond 1000s, the most one detour may last",
                              path, lineno, dur);
            goto out;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            rt_time_ps *q = realloc(pairs, cap * 2 * sizeof *q);
            if (!q) {
                rc = rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
                goto out;
            }
            pairs = q;
        }
        pairs[2 * n] = rt_ns_to_ps(start);
        pairs[2 * n + 1] = rt_ns_to_ps(start + dur);
        n++;
    }
    if (rc < 0)
        goto out;
    rc = RT_OK;
    if (n) /* (qsort of NULL is undefined even for 0 elements: an empty or comment-only file) */
        qsort(pairs, n, 2 * sizeof *pairs, by_start);
    size_t m = 0; /* merge overlapping detours: the CPU runs them one after another anyway */
    for (size_t i = 0; i < n; i++) {
        if (pairs[2 * i + 1] == pairs[2 * i])
            continue;
        if (m && pairs[2 * i] <= pairs[2 * (m - 1) + 1]) {
            if (pairs[2 * i + 1] > pairs[2 * (m - 1) + 1])
                pairs[2 * (m - 1) + 1] = pairs[2 * i + 1];
            continue;
        }
        pairs[2 * m] = pairs[2 * i];
        pairs[2 * m + 1] = pairs[2 * i + 1];
        m++;
    }
    if (m == 0) {
        rc = rt_error_set(err, RT_ECORRUPT, "%s: no detours (lines 'start duration' in ns)", path);
        goto out;
    }
    s->fs = malloc(m * sizeof *s->fs);
    s->fe = malloc(m * sizeof *s->fe);
    if (!s->fs || !s->fe) {
        rc = rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    double covered = 0;
    for (size_t i = 0; i < m; i++) {
        s->fs[i] = pairs[2 * i];
        s->fe[i] = pairs[2 * i + 1];
        covered += (double)(s->fe[i] - s->fs[i]);
    }
    s->n = m;
    s->span = s->fe[m - 1];
    s->load = covered / (double)s->span;
    if (!(s->load < 1)) /* e.g. one detour from 0: the CPU would never run the program */
        rc = rt_error_set(err, RT_ERANGE, "%s: the detours cover the whole file's time; the program could never run",
                          path);
out:
    free(pairs);
    rt__sidefile_close(f);
    return rc;
}

int rt_os_noise_add(rt_os_noise **np, const char *spec, rt_error *err)
{
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "empty OS noise source");
    rt_os_noise *n = *np;
    if (n && n->n == MAX_SOURCES)
        return rt_error_set(err, RT_EINVAL, "at most %d OS noise sources", MAX_SOURCES);
    struct source s;
    memset(&s, 0, sizeof s);
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *args = colon ? colon + 1 : "";
    int rc;
    if (nlen == 8 && !strncmp(spec, "periodic", 8)) {
        s.kind = S_PERIODIC;
        rc = parse_periodic(spec, args, &s, err);
        if (!rc)
            rc = parse_ranks(spec, args, &s, err);
    } else if (nlen == 7 && !strncmp(spec, "poisson", 7)) {
        s.kind = S_POISSON;
        rc = parse_poisson(spec, args, &s, err);
    } else if (nlen == 4 && !strncmp(spec, "file", 4)) {
        s.kind = S_FILE;
        rc = parse_file(spec, args, &s, err);
    } else {
        rc = rt_error_set(err, RT_EINVAL, "unknown OS noise '%.*s' (known: periodic, poisson, file)", (int)nlen, spec);
    }
    if (!rc && !(s.spec = strdup(spec)))
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    if (!rc && !n && !(n = calloc(1, sizeof *n)))
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    if (rc) {
        source_free(&s);
        return rc;
    }
    n->src[n->n++] = s;
    *np = n;
    return RT_OK;
}

int rt_os_noise_check_ranks(const rt_os_noise *n, uint32_t nranks, rt_error *err)
{
    for (unsigned i = 0; n && i < n->n; i++) {
        const struct source *s = &n->src[i];
        if (s->rank_hi == UINT32_MAX || s->rank_hi < nranks) /* all ranks, or ranks of the trace */
            continue;
        char r[32];
        snprintf(r, sizeof r, s->rank_lo == s->rank_hi ? "rank %u is" : "ranks %u-%u are", s->rank_lo, s->rank_hi);
        return rt_error_set(err, RT_EINVAL, "OS noise '%s': %s outside the trace, whose ranks are 0-%u", s->spec, r,
                            nranks ? nranks - 1 : 0);
    }
    return RT_OK;
}

void rt_os_noise_free(rt_os_noise *n)
{
    if (!n)
        return;
    for (unsigned i = 0; i < n->n; i++)
        source_free(&n->src[i]);
    free(n);
}

unsigned rt_os_noise_sources(const rt_os_noise *n)
{
    return n ? n->n : 0;
}

double rt_os_noise_load(const rt_os_noise *n, uint32_t rank)
{
    double load = 0;
    for (unsigned i = 0; n && i < n->n; i++)
        if (rank >= n->src[i].rank_lo && rank <= n->src[i].rank_hi)
            load += n->src[i].load;
    return load < 1 ? load : 1;
}

/* ------------------------------------------------------------------ detour sequences */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static rt_time_ps draw_duration(const struct source *s, uint64_t *rng)
{
    return s->dist ? rt_ns_to_ps(rt_dist_sample_ns(s->dist, rng)) : s->duration;
}

static void file_detour(const struct source *s, struct rt__detour_cursor *c)
{
    int64_t lap = floor_div(c->i, (int64_t)s->n);
    size_t j = (size_t)(c->i - lap * (int64_t)s->n);
    c->s = lap * s->span + s->fs[j] - c->offset;
    c->e = lap * s->span + s->fe[j] - c->offset;
}

static void ring_put(struct rt__detour_cursor *c)
{
    if (!c->ring)
        return;
    size_t slot = (size_t)(c->head % RT__DETOUR_RING);
    c->ring[2 * slot] = c->s;
    c->ring[2 * slot + 1] = c->e;
}

static void ring_get(const struct rt__detour_cursor *c, int64_t i, rt_time_ps *s, rt_time_ps *e)
{
    size_t slot = (size_t)(i % RT__DETOUR_RING);
    *s = c->ring[2 * slot];
    *e = c->ring[2 * slot + 1];
}

/* Moves a Poisson cursor back to the first detour that ends after @p pos, if the ring still
 * holds it; 0 when it does not (then the sequence is drawn again from time 0). */
static int poisson_back(struct rt__detour_cursor *c, rt_time_ps pos)
{
    int64_t oldest = c->head - RT__DETOUR_RING + 1;
    oldest = oldest > 0 ? oldest : 0;
    for (int64_t j = oldest; j <= c->head; j++) {
        rt_time_ps s, e;
        ring_get(c, j, &s, &e);
        if (e <= pos)
            continue;
        /* detours are disjoint and in order: an older one ends by s; if s > pos it may not */
        if (j > oldest || oldest == 0 || s <= pos) {
            c->i = j;
            c->s = s;
            c->e = e;
            if (j > oldest)
                ring_get(c, j - 1, &s, &c->prev_e);
            else
                c->prev_e = j == 0 ? INT64_MIN : c->s;
            return 1;
        }
        return 0;
    }
    return 0;
}

void rt__os_cursors_free(struct rt__detour_cursor *cur, size_t n)
{
    for (size_t i = 0; cur && i < n; i++)
        free(cur[i].ring);
}

/* Moves @p c to the first detour of @p s that ends after @p pos (or earlier, for Poisson). */
static void seek(const struct rt__os_ctx *ctx, const struct source *s, unsigned k, uint32_t rank,
                 struct rt__detour_cursor *c, rt_time_ps pos)
{
    if (c->state == 0) {
        uint64_t rng = rt_rng_stream(ctx->seed, ctx->run, rt_rng_stream(DOMAIN_OS, k, rank));
        c->offset = 0;
        if (s->kind == S_PERIODIC && !s->aligned)
            c->offset = (rt_time_ps)(rt_rng_uniform(&rng) * (double)s->period);
        if (s->kind == S_FILE) {
            uint64_t r2 = s->cosched ? rt_rng_stream(ctx->seed, ctx->run, rt_rng_stream(DOMAIN_OS, k, UINT64_MAX)) : rng;
            c->offset = (rt_time_ps)(rt_rng_uniform(&r2) * (double)s->span);
        }
        c->rng = rng;
        c->state = 1;
    }
    c->prev_e = INT64_MIN;
    switch (s->kind) {
    case S_PERIODIC: /* detour i is [offset + i·period, + duration) */
        c->i = floor_div(pos - c->offset - s->duration, s->period) + 1;
        c->s = c->offset + c->i * s->period;
        c->e = c->s + s->duration;
        break;
    case S_FILE: {
        rt_time_ps x = pos + c->offset;
        int64_t lap = floor_div(x, s->span);
        rt_time_ps in = x - lap * s->span;
        size_t lo = 0, hi = s->n; /* first detour of the lap that ends after `in` */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s->fe[mid] > in)
                hi = mid;
            else
                lo = mid + 1;
        }
        c->i = lap * (int64_t)s->n + (int64_t)lo;
        file_detour(s, c);
        break;
    }
    case S_POISSON:
        if (c->ring && poisson_back(c, pos))
            break;
        /* from the start of the stream: arrivals after time 0 */
        c->rng = rt_rng_stream(ctx->seed, ctx->run, rt_rng_stream(DOMAIN_OS, k, rank));
        c->i = c->head = 0;
        c->arrival = rt_ns_to_ps(-s->interval_ns * log(rt_rng_uniform(&c->rng)));
        c->s = c->arrival;
        c->e = c->s + draw_duration(s, &c->rng);
        if (!c->ring)
            c->ring = malloc(2 * RT__DETOUR_RING * sizeof *c->ring); /* without it: draw again */
        ring_put(c);
        break;
    }
}

static void next(const struct source *s, struct rt__detour_cursor *c)
{
    c->prev_e = c->e;
    c->i++;
    if (s->kind == S_POISSON && c->i <= c->head) { /* drawn before: in the ring */
        ring_get(c, c->i, &c->s, &c->e);
        return;
    }
    switch (s->kind) {
    case S_PERIODIC:
        c->s += s->period;
        c->e = c->s + s->duration;
        break;
    case S_FILE:
        file_detour(s, c);
        break;
    case S_POISSON: /* an arrival during a detour waits for it */
        c->arrival += rt_ns_to_ps(-s->interval_ns * log(rt_rng_uniform(&c->rng)));
        c->s = c->arrival > c->prev_e ? c->arrival : c->prev_e;
        c->e = c->s + draw_duration(s, &c->rng);
        c->head = c->i;
        ring_put(c);
        break;
    }
}

rt_time_ps rt__os_advance(const struct rt__os_ctx *ctx, uint32_t rank, struct rt__detour_cursor *cur, rt_time_ps t,
                          rt_time_ps work, rt_time_ps *lost)
{
    const rt_os_noise *n = ctx->noise;
    rt_time_ps now = t, rem = work;
    for (;;) {
        struct rt__detour_cursor *best = NULL;
        for (unsigned k = 0; k < n->n; k++) {
            const struct source *s = &n->src[k];
            struct rt__detour_cursor *c = &cur[k];
            if (c->state == 2)
                continue;
            if (c->state == 0 && (rank < s->rank_lo || rank > s->rank_hi)) {
                c->state = 2;
                continue;
            }
            /* backwards, or (periodic, file) far forward: enter directly instead of walking
             * detour by detour through a long wait. Just past its detour (the common case: the
             * work resumed at its end) a few steps find the next one: a seek for each of many
             * short detours cost several times a step (issue #47 item 1: 1 ns every 3 ns) */
            if (c->state == 0 || now < c->prev_e)
                seek(ctx, s, k, rank, c, now);
            for (int step = 0; s->kind != S_POISSON && c->e <= now; step++) {
                if (step == 4) {
                    seek(ctx, s, k, rank, c, now);
                    break;
                }
                next(s, c);
            }
            while (c->e <= now)
                next(s, c);
            if (!best || c->s < best->s)
                best = c;
        }
        if (!best)
            break;
        if (best->s <= now) { /* the CPU is in a detour: the program waits for its end */
            *lost += best->e - now;
            now = best->e;
        } else if (rem > 0 && best->s < now + rem) { /* the work is interrupted */
            rem -= best->s - now;
            *lost += best->e - best->s;
            now = best->e;
        } else {
            break;
        }
    }
    return now + rem;
}

double rt_os_noise_detour_rate(const rt_os_noise *n, uint32_t nranks)
{
    double rate = 0; /* detours per ns, summed over the ranks */
    for (unsigned i = 0; n && i < n->n && nranks; i++) {
        const struct source *s = &n->src[i];
        uint32_t hi = s->rank_hi < nranks - 1 ? s->rank_hi : nranks - 1;
        double ranks = s->rank_lo <= hi ? (double)(hi - s->rank_lo) + 1 : 0, per_ns;
        if (s->kind == S_PERIODIC)
            per_ns = s->period > 0 ? 1e3 / (double)s->period : 0;
        else if (s->kind == S_POISSON)
            per_ns = s->interval_ns > 0 ? 1 / s->interval_ns : 0;
        else
            per_ns = s->span > 0 ? (double)s->n * 1e3 / (double)s->span : 0;
        rate += ranks * per_ns;
    }
    return rate;
}
