/* SPDX-License-Identifier: MIT */
/*
 * The measured window (retime/window.h): a spec resolved to a begin and an end event per rank.
 * One pass over each rank's events, O(events), 16 bytes per rank.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/units.h"
#include "retime/window.h"

#define NONE UINT64_MAX

struct rt_window {
    enum rt_window_kind kind, asked;
    char spec[160], text[200];
    char name[128];         /* region: its name */
    uint64_t from, to;      /* region: instances (1-based inside; to = 0: the last). The spec and the
                               text count from 0, as the region tables number their instances (of
                               a region that does not nest in itself: each entry counts here) */
    double t1_ns, t2_ns;    /* time */
    uint32_t nranks;
    uint64_t *begin, *end;  /* per rank */
    /* a streamed trace (mpi): resolved per rank as its events are read (rt_window_stream_scan) */
    int stream, any;
    uint8_t *init, *fini;   /* per region: MPI_Init's, MPI_Finalize */
    uint8_t *ended;         /* per rank: read to its end */
    uint32_t nregions;
    uint32_t left;          /* ranks not read to their end */
};

/* Parses @p spec into @p w's kind and fields (no trace needed). */
static int parse(const char *spec, struct rt_window *w, rt_error *err)
{
    static const char forms[] = "all, mpi, region:NAME[#FROM-TO] or time:T1-T2";
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "empty window (%s)", forms);
    if (strlen(spec) >= sizeof w->spec)
        return rt_error_set(err, RT_EINVAL, "window '%.40s...' is too long", spec);
    snprintf(w->spec, sizeof w->spec, "%s", spec);
    if (!strcmp(spec, "all")) {
        w->asked = RT_WINDOW_ALL;
        return RT_OK;
    }
    if (!strcmp(spec, "mpi")) {
        w->asked = RT_WINDOW_MPI;
        return RT_OK;
    }
    if (!strncmp(spec, "region:", 7)) {
        w->asked = RT_WINDOW_REGION;
        const char *name = spec + 7, *hash = strrchr(name, '#');
        size_t len = hash ? (size_t)(hash - name) : strlen(name);
        if (len == 0 || len >= sizeof w->name)
            return rt_error_set(err, RT_EINVAL, "window '%s': needs a region name (region:NAME[#FROM-TO])", spec);
        memcpy(w->name, name, len);
        w->name[len] = '\0';
        w->from = 1;
        w->to = 0;
        if (hash) {
            char *end;
            errno = 0;
            unsigned long long a = strtoull(hash + 1, &end, 10), b = 0;
            int to_last = 0;
            if (errno || end == hash + 1 || hash[1] == '-' || a >= UINT64_MAX - 1)
                return rt_error_set(err, RT_EINVAL,
                                    "window '%s': bad instance after '#' (FROM or FROM-TO, counted from 0)", spec);
            if (*end == '-' && end[1]) {
                const char *q = end + 1;
                b = strtoull(q, &end, 10);
                if (errno || end == q || *q == '-' || b < a || b >= UINT64_MAX - 1)
                    return rt_error_set(err, RT_EINVAL, "window '%s': bad instance range (FROM-TO, FROM <= TO)", spec);
            } else if (*end == '-') {
                end++; /* FROM-: to the last */
                to_last = 1;
            } else {
                b = a; /* #K: that instance alone */
            }
            if (*end)
                return rt_error_set(err, RT_EINVAL,
                                    "window '%s': bad instance after '#' (FROM or FROM-TO, counted from 0)", spec);
            w->from = a + 1;
            w->to = to_last ? 0 : b + 1;
        }
        return RT_OK;
    }
    if (!strncmp(spec, "time:", 5)) {
        w->asked = RT_WINDOW_TIME;
        char buf[160];
        snprintf(buf, sizeof buf, "%s", spec + 5);
        char *dash = strchr(buf, '-');
        rt_error e = {0};
        if (!dash)
            return rt_error_set(err, RT_EINVAL, "window '%s': expected time:T1-T2 (e.g. time:10ms-20ms)", spec);
        *dash = '\0';
        if (rt_parse_time_ns(buf, &w->t1_ns, &e) || rt_parse_time_ns(dash + 1, &w->t2_ns, &e))
            return rt_error_set(err, RT_EINVAL, "window '%s': %s", spec, e.msg);
        if (w->t2_ns < w->t1_ns)
            return rt_error_set(err, RT_EINVAL, "window '%s': ends before it begins", spec);
        return RT_OK;
    }
    return rt_error_set(err, RT_EINVAL, "unknown window '%s' (%s)", spec, forms);
}

int rt_window_check(const char *spec, rt_error *err)
{
    struct rt_window w;
    memset(&w, 0, sizeof w);
    return parse(spec, &w, err);
}

/* Whether region @p r is one of MPI_Init's (MPI_Init, MPI_Init_thread) or MPI_Finalize. */
static int is_named(const rt_trace *t, uint32_t r, const char *a, const char *b)
{
    const struct rt_region *reg = rt_trace_region(t, r);
    return reg && reg->name && (!strcmp(reg->name, a) || (b && !strcmp(reg->name, b)));
}

/* Per rank: the end of the first MPI_Init, the start of the first MPI_Finalize (the rank's first
 * and last events where it has no such call). *any: some rank has one. */
static void resolve_mpi(const rt_trace *t, struct rt_window *w, uint8_t *init, uint8_t *fini, int *any)
{
    for (uint32_t r = 0; r < w->nranks; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        if (!n)
            continue;
        w->begin[r] = 0;
        w->end[r] = n - 1;
        int seen_init = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (ev[i].kind == RT_EV_LEAVE && !seen_init && ev[i].ref < rt_trace_regions(t) && init[ev[i].ref]) {
                w->begin[r] = i;
                seen_init = *any = 1;
            } else if (ev[i].kind == RT_EV_ENTER && ev[i].ref < rt_trace_regions(t) && fini[ev[i].ref]) {
                w->end[r] = i;
                *any = 1;
                break;
            }
        }
        if (w->end[r] < w->begin[r])
            w->end[r] = w->begin[r];
    }
}

/* Per rank: the FROM-th entry into the region and its TO-th exit (the last where TO is 0). */
static int resolve_region(const rt_trace *t, struct rt_window *w, const uint8_t *match, int *any)
{
    for (uint32_t r = 0; r < w->nranks; r++) {
        uint64_t n, enters = 0, leaves = 0, b = NONE, e = NONE;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++) {
            if (ev[i].ref >= rt_trace_regions(t) || !match[ev[i].ref])
                continue;
            if (ev[i].kind == RT_EV_ENTER && ++enters == w->from)
                b = i;
            else if (ev[i].kind == RT_EV_LEAVE && b != NONE) {
                ++leaves;
                if (w->to ? leaves + w->from - 1 == w->to : 1)
                    e = i;
                if (w->to && leaves + w->from - 1 == w->to)
                    break;
            }
        }
        if (b != NONE && e != NONE) {
            w->begin[r] = b;
            w->end[r] = e;
            *any = 1;
        }
    }
    return RT_OK;
}

static void resolve_time(const rt_trace *t, struct rt_window *w, int *any)
{
    for (uint32_t r = 0; r < w->nranks; r++) {
        uint64_t n, b = NONE, e = NONE;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++) {
            double tm = (double)ev[i].time;
            if (tm >= w->t1_ns && tm <= w->t2_ns) {
                if (b == NONE)
                    b = i;
                e = i;
            }
        }
        if (b != NONE) {
            w->begin[r] = b;
            w->end[r] = e;
            *any = 1;
        }
    }
}

/* Which regions some rank enters (one pass over the events held): a region is defined by a
 * producer for many reasons (Score-P's call-site functions, an unused user region), but only
 * entered ones have instances. NULL when out of memory. */
static uint8_t *regions_entered(const rt_trace *t)
{
    uint32_t nr = rt_trace_regions(t);
    uint8_t *in = calloc(nr ? nr : 1, 1);
    for (uint32_t r = 0; in && r < rt_trace_ranks(t); r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++)
            if (ev[i].kind == RT_EV_ENTER && ev[i].ref < nr)
                in[ev[i].ref] = 1;
    }
    return in;
}

int rt_trace_region_entered(const rt_trace *t, uint32_t region)
{
    uint8_t *in = region < rt_trace_regions(t) ? regions_entered(t) : NULL;
    int yes = in ? in[region] : 0;
    free(in);
    return yes;
}

void rt_trace_region_list(const rt_trace *t, char *buf, size_t n)
{
    size_t len = 0;
    uint32_t nr = rt_trace_regions(t), shown = 0, entered = 0;
    uint8_t *in = regions_entered(t);
    buf[0] = '\0';
    for (uint32_t r = 0; r < nr && in; r++) {
        const struct rt_region *reg = rt_trace_region(t, r);
        if (!reg || !reg->name || reg->is_mpi || !in[r])
            continue;
        entered++;
        if (len + 40 < n && shown < 12)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", shown++ ? ", " : "", reg->name);
    }
    free(in);
    if (shown == 0)
        snprintf(buf, n, "none entered but MPI calls (%u regions defined)", nr);
    else if (len + 60 < n)
        snprintf(buf + len, n - len, "%s (%u entered besides MPI calls; %u regions defined)",
                 entered > shown ? ", ..." : "", entered, nr);
}

int rt_window_open(const rt_trace *t, const char *spec, rt_window **out, rt_error *err)
{
    return rt_window_open_part(t, spec, NULL, NULL, out, err);
}

int rt_window_open_part(const rt_trace *t, const char *spec, int (*any_of_all)(void *ud, int any), void *ud,
                        rt_window **out, rt_error *err)
{
    *out = NULL;
    struct rt_window *w = calloc(1, sizeof *w);
    uint32_t nreg = rt_trace_regions(t);
    uint8_t *a = calloc(nreg ? nreg : 1, 1), *b = calloc(nreg ? nreg : 1, 1);
    int rc = RT_OK, any = 0;
    if (!w || !a || !b) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = parse(spec, w, err)) != RT_OK)
        goto done;
    w->kind = w->asked;
    w->nranks = rt_trace_ranks(t);
    w->begin = malloc((w->nranks ? w->nranks : 1) * sizeof *w->begin);
    w->end = malloc((w->nranks ? w->nranks : 1) * sizeof *w->end);
    if (!w->begin || !w->end) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    for (uint32_t r = 0; r < w->nranks; r++)
        w->begin[r] = w->end[r] = NONE;
    switch (w->asked) {
    case RT_WINDOW_ALL:
        snprintf(w->text, sizeof w->text, "whole run");
        break;
    case RT_WINDOW_MPI:
        for (uint32_t r = 0; r < nreg; r++) {
            a[r] = (uint8_t)is_named(t, r, "MPI_Init", "MPI_Init_thread");
            b[r] = (uint8_t)is_named(t, r, "MPI_Finalize", NULL);
        }
        if (rt_trace_streamed(t)) { /* no event read yet: found as they are */
            if (!(w->ended = calloc(w->nranks ? w->nranks : 1, 1))) {
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                goto done;
            }
            w->stream = 1;
            w->nregions = nreg;
            w->init = a;
            w->fini = b;
            a = b = NULL;
            w->left = w->nranks;
            snprintf(w->text, sizeof w->text, "MPI_Init's end to MPI_Finalize's start");
            break;
        }
        resolve_mpi(t, w, a, b, &any);
        if (any_of_all)
            any = any_of_all(ud, any);
        if (!any) {
            w->kind = RT_WINDOW_ALL;
            snprintf(w->text, sizeof w->text, "whole run (no MPI_Init or MPI_Finalize in the trace)");
        } else {
            snprintf(w->text, sizeof w->text, "MPI_Init's end to MPI_Finalize's start");
        }
        break;
    case RT_WINDOW_REGION: {
        int found = 0;
        if (rt_trace_streamed(t)) {
            rc = rt_error_set(err, RT_EINVAL, "%s: window '%s': a streamed trace has its window found as it is read: "
                                              "mpi or all (a region's instances need every event read first)",
                              rt_trace_path(t), spec);
            goto done;
        }
        for (uint32_t r = 0; r < nreg; r++)
            found |= a[r] = (uint8_t)is_named(t, r, w->name, NULL);
        char list[600];
        if (!found) {
            rt_trace_region_list(t, list, sizeof list);
            rc = rt_error_set(err, RT_EINVAL, "%s: window '%s': no region '%s' (regions: %s)", rt_trace_path(t), spec,
                              w->name, list);
            goto done;
        }
        resolve_region(t, w, a, &any);
        if (any_of_all)
            any = any_of_all(ud, any);
        if (!any) {
            rc = rt_error_set(err, RT_EINVAL, "%s: window '%s': no rank has instance %llu of region '%s' (counted from 0)",
                              rt_trace_path(t), spec, (unsigned long long)(w->to ? w->to : w->from) - 1, w->name);
            goto done;
        }
        if (w->to)
            snprintf(w->text, sizeof w->text, "region %s #%llu-%llu", w->name, (unsigned long long)w->from - 1,
                     (unsigned long long)w->to - 1);
        else
            snprintf(w->text, sizeof w->text, "region %s #%llu-last", w->name, (unsigned long long)w->from - 1);
        break;
    }
    case RT_WINDOW_TIME:
        if (rt_trace_streamed(t)) {
            rc = rt_error_set(err, RT_EINVAL, "%s: window '%s': a streamed trace has its window found as it is read: "
                                              "mpi or all", rt_trace_path(t), spec);
            goto done;
        }
        resolve_time(t, w, &any);
        if (any_of_all)
            any = any_of_all(ud, any);
        if (!any) {
            rc = rt_error_set(err, RT_EINVAL, "%s: window '%s': no event in it", rt_trace_path(t), spec);
            goto done;
        }
        snprintf(w->text, sizeof w->text, "time %s", spec + 5);
        break;
    }
done:
    free(a);
    free(b);
    if (rc) {
        rt_window_free(w);
        return rc;
    }
    *out = w;
    return RT_OK;
}

void rt_window_free(rt_window *w)
{
    if (!w)
        return;
    free(w->begin);
    free(w->end);
    free(w->init);
    free(w->fini);
    free(w->ended);
    free(w);
}

void rt_window_stream_scan(const rt_window *cw, uint32_t rank, const struct rt_event *ev, uint64_t from, uint64_t to,
                           int ended)
{
    struct rt_window *w = (struct rt_window *)cw; /* resolved in place: see window.h */
    if (!w || !w->stream || rank >= w->nranks || w->ended[rank])
        return;
    uint32_t nreg = w->nregions;
    /* as resolve_mpi: the first MPI_Init's Leave before the first MPI_Finalize's Enter */
    for (uint64_t i = from; i < to && w->end[rank] == NONE; i++) {
        if (ev[i].kind == RT_EV_LEAVE && w->begin[rank] == NONE && ev[i].ref < nreg && w->init[ev[i].ref]) {
            w->begin[rank] = i;
            w->any = 1;
        } else if (ev[i].kind == RT_EV_ENTER && ev[i].ref < nreg && w->fini[ev[i].ref]) {
            w->end[rank] = i;
            w->any = 1;
        }
    }
    if (!ended)
        return;
    w->ended[rank] = 1;
    if (to) { /* the rank's first and last events where it has no such call */
        if (w->begin[rank] == NONE)
            w->begin[rank] = 0;
        if (w->end[rank] == NONE)
            w->end[rank] = to - 1;
        if (w->end[rank] < w->begin[rank])
            w->end[rank] = w->begin[rank];
    }
    if (--w->left == 0 && !w->any) {
        w->kind = RT_WINDOW_ALL;
        snprintf(w->text, sizeof w->text, "whole run (no MPI_Init or MPI_Finalize in the trace)");
    }
}

enum rt_window_kind rt_window_kind(const rt_window *w)
{
    return w ? w->kind : RT_WINDOW_ALL;
}

const char *rt_window_spec(const rt_window *w)
{
    return w ? w->spec : "all";
}

const char *rt_window_text(const rt_window *w)
{
    return w ? w->text : "whole run";
}

int rt_window_begins_latest(const rt_window *w)
{
    return w && w->kind == RT_WINDOW_MPI;
}

uint64_t rt_window_begin(const rt_window *w, uint32_t rank)
{
    return w && w->kind != RT_WINDOW_ALL && rank < w->nranks ? w->begin[rank] : NONE;
}

uint64_t rt_window_end(const rt_window *w, uint32_t rank)
{
    return w && w->kind != RT_WINDOW_ALL && rank < w->nranks ? w->end[rank] : NONE;
}
