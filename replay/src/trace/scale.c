/* SPDX-License-Identifier: MIT */
/*
 * The byte-count factors of retime/scale.h: rules parsed once, resolved against a trace's
 * definitions into a factor per communicator and per call site, so that a call's factor is two
 * array reads. Memory: 8 bytes per communicator and per call site of the trace.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/scale.h"
#include "retime/units.h"

#define RT_SCALE_MAX_RULES 64
#define UNSET (-1.0) /* no rule: a factor is never negative */

enum { R_ALL, R_COMM, R_FUNC, R_FILE, R_LINE };

struct rule {
    double f;
    int kind;
    uint32_t line;
    char what[128]; /* the communicator's name, the function, the file (R_FILE, R_LINE) */
};

struct rt_scale {
    char spec[512];
    struct rule rule[RT_SCALE_MAX_RULES];
    int n, by_site;
    double all;      /* the last plain factor, or 1 */
    double *comm;    /* per communicator: its rule's factor, UNSET */
    double *site;    /* per call site */
    uint32_t ncomm, nsite;
};

/* One rule "F[@TARGET]" of @p spec (for errors) into @p r. */
static int parse_rule(const char *spec, const char *it, struct rule *r, rt_error *err)
{
    static const char forms[] = "F, F@comm:NAME, F@FUNCTION, F@FILE:LINE or F@FILE";
    char num[64];
    const char *at = strchr(it, '@');
    size_t len = at ? (size_t)(at - it) : strlen(it);
    if (len == 0 || len >= sizeof num)
        return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': '%s' needs a factor (%s)", spec, it, forms);
    memcpy(num, it, len);
    num[len] = '\0';
    if (rt_parse_number(num, &r->f, err) || !(r->f >= 0 && r->f <= RT_SCALE_MAX))
        return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': factor '%s' is not a number from 0 to 1e6", spec,
                            num);
    r->kind = R_ALL;
    if (!at)
        return RT_OK;
    const char *t = at + 1;
    if (!*t || strlen(t) >= sizeof r->what)
        return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': '%s' needs what it applies to after '@' (%s)", spec,
                            it, forms);
    if (!strncmp(t, "comm:", 5)) {
        if (!t[5])
            return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': '%s' needs a communicator's name", spec, it);
        r->kind = R_COMM;
        snprintf(r->what, sizeof r->what, "%s", t + 5);
        return RT_OK;
    }
    const char *colon = strrchr(t, ':');
    if (colon) {
        char *end;
        unsigned long line = strtoul(colon + 1, &end, 10);
        if (colon == t || !colon[1] || *end || colon[1] == '-' || colon[1] == '+' || line == 0 || line > UINT32_MAX)
            return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': '%s': FILE:LINE needs a line number from 1", spec,
                                it);
        r->kind = R_LINE;
        r->line = (uint32_t)line;
        snprintf(r->what, sizeof r->what, "%.*s", (int)(colon - t), t);
        return RT_OK;
    }
    r->kind = strpbrk(t, "./") ? R_FILE : R_FUNC;
    snprintf(r->what, sizeof r->what, "%s", t);
    return RT_OK;
}

static int parse(const char *spec, struct rt_scale *s, rt_error *err)
{
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "--scale-bytes needs a factor (e.g. 4, or 4@halo_exchange,2@comm:rows)");
    if (strlen(spec) >= sizeof s->spec)
        return rt_error_set(err, RT_EINVAL, "--scale-bytes '%.40s...' is too long", spec);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    char buf[sizeof s->spec], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    if (spec[0] == ',' || spec[strlen(spec) - 1] == ',' || strstr(spec, ",,"))
        return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': an empty rule", spec);
    s->all = 1;
    for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        if (s->n == RT_SCALE_MAX_RULES)
            return rt_error_set(err, RT_EINVAL, "--scale-bytes '%.40s...': more than %d rules", spec,
                                RT_SCALE_MAX_RULES);
        struct rule *r = &s->rule[s->n++];
        if (parse_rule(spec, it, r, err))
            return err ? err->code : RT_EINVAL;
        if (r->kind == R_ALL)
            s->all = r->f;
        s->by_site |= r->kind >= R_FUNC;
    }
    return RT_OK;
}

int rt_scale_check(const char *spec, rt_error *err)
{
    struct rt_scale *s = calloc(1, sizeof *s);
    if (!s)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    int rc = parse(spec, s, err);
    free(s);
    return rc;
}

/* Whether path @p file is @p tail or ends with "/" + @p tail. */
static int file_is(const char *file, const char *tail)
{
    size_t a = strlen(file), b = strlen(tail);
    return a >= b && !strcmp(file + a - b, tail) && (a == b || file[a - b - 1] == '/' || tail[0] == '/');
}

static int site_matches(const struct rule *r, const struct rt_callsite *cs)
{
    switch (r->kind) {
    case R_FUNC:
        return cs->function && !strcmp(cs->function, r->what);
    case R_FILE:
        return cs->file && file_is(cs->file, r->what);
    case R_LINE:
        return cs->file && cs->line == r->line && file_is(cs->file, r->what);
    }
    return 0;
}

/* A rule that names nothing: one line with what the trace has of its kind. */
static int names_nothing(const rt_trace *t, const struct rt_scale *s, const struct rule *r, rt_error *err)
{
    char have[240] = "";
    size_t len = 0;
    uint32_t n = r->kind == R_COMM ? rt_trace_comms(t) : rt_trace_callsites(t);
    for (uint32_t i = 0; i < n && len + 1 < sizeof have; i++) {
        char one[160];
        if (r->kind == R_COMM) {
            const struct rt_comm *c = rt_trace_comm(t, i);
            if (c->origin != i || !c->name || !c->name[0])
                continue; /* (a self communicator's per-process instances: their origin names them) */
            snprintf(one, sizeof one, "%s", c->name);
        } else {
            const struct rt_callsite *c = rt_trace_callsite(t, i);
            snprintf(one, sizeof one, "%s %s:%u", c->function, c->file, c->line);
        }
        len += (size_t)snprintf(have + len, sizeof have - len, "%s%s", len ? ", " : "", one);
    }
    if (len >= sizeof have)
        snprintf(have + sizeof have - 5, 5, "...");
    static const char *const kind[] = {"", "communicator", "function", "file", "call site"};
    return rt_error_set(err, RT_EINVAL, "--scale-bytes '%s': %s '%s%s%.0u' is not in %s (it has %s)", s->spec,
                        kind[r->kind], r->what, r->kind == R_LINE ? ":" : "", r->kind == R_LINE ? r->line : 0,
                        rt_trace_path(t), len ? have : r->kind == R_COMM ? "no named communicators" : "no call sites");
}

int rt_scale_open(const rt_trace *t, const char *spec, rt_scale **out, rt_error *err)
{
    int rc;
    *out = NULL;
    struct rt_scale *s = calloc(1, sizeof *s);
    if (!s)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    if ((rc = parse(spec, s, err)))
        goto fail;
    s->ncomm = rt_trace_comms(t);
    s->nsite = rt_trace_callsites(t);
    s->comm = malloc(((size_t)s->ncomm + 1) * sizeof *s->comm);
    s->site = malloc(((size_t)s->nsite + 1) * sizeof *s->site);
    if (!s->comm || !s->site) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < s->ncomm; i++)
        s->comm[i] = UNSET;
    for (uint32_t i = 0; i < s->nsite; i++)
        s->site[i] = UNSET;
    for (int k = 0; k < s->n; k++) { /* in order: a later rule overrides an earlier one */
        const struct rule *r = &s->rule[k];
        int hits = 0;
        if (r->kind == R_ALL)
            continue;
        if (r->kind == R_COMM) {
            for (uint32_t i = 0; i < s->ncomm; i++) {
                const struct rt_comm *c = rt_trace_comm(t, i);
                const struct rt_comm *o = c->origin < s->ncomm ? rt_trace_comm(t, c->origin) : c;
                if ((c->name && !strcmp(c->name, r->what)) || (o->name && !strcmp(o->name, r->what))) {
                    s->comm[i] = r->f;
                    hits++;
                }
            }
        } else {
            for (uint32_t i = 0; i < s->nsite; i++)
                if (site_matches(r, rt_trace_callsite(t, i))) {
                    s->site[i] = r->f;
                    hits++;
                }
        }
        if (!hits) {
            rc = names_nothing(t, s, r, err);
            goto fail;
        }
    }
    *out = s;
    return RT_OK;
fail:
    rt_scale_free(s);
    return rc;
}

void rt_scale_free(rt_scale *s)
{
    if (!s)
        return;
    free(s->comm);
    free(s->site);
    free(s);
}

const char *rt_scale_spec(const rt_scale *s)
{
    return s ? s->spec : "1";
}

int rt_scale_by_site(const rt_scale *s)
{
    return s && s->by_site;
}

double rt_scale_factor(const rt_scale *s, uint32_t comm, uint32_t callsite)
{
    if (!s)
        return 1;
    if (callsite < s->nsite && s->site[callsite] != UNSET)
        return s->site[callsite];
    if (comm < s->ncomm && s->comm[comm] != UNSET)
        return s->comm[comm];
    return s->all;
}

rt_bytes rt_scale_apply(double factor, rt_bytes m)
{
    if (factor == 1)
        return m;
    /* half a byte up; exact for whole factors (an accepted product, below 2^42, fits 53 bits) */
    double x = floor((double)m * factor + 0.5);
    return x > (double)RT_MAX_BYTES ? UINT64_MAX : (rt_bytes)x;
}
