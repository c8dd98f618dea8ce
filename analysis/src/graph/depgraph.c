/* SPDX-License-Identifier: MIT */
/* The dependency graph of one timing: per-event records from the replay, the critical path,
 * wait states, and the absorbed/accumulated split of the deviations between two timings. With
 * a part (rt_depgraph_create_part) each process holds its own ranks and the steps that need
 * other ranks' records go through depgraph_part.c's collective steps. */
#define _DEFAULT_SOURCE /* sysconf, madvise, MADV_POPULATE_WRITE */
#include "depgraph_internal.h"
#include "threads_env.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WALK_CAP 65536 /* steps of one wait's blame walk (see blame_walk) */

/* Building the measured graph reads each remote source's time at a random place in the trace,
 * a cache miss that dominated that pass: it asks for the source of the event PREFETCH_AHEAD
 * further on while it works on this one. Only a hint: no result depends on it. */
#define PREFETCH_AHEAD 16

/* ------------------------------------------------------------------ threads */

/* The passes over every event (the measured graph, the walk over the events) run on threads
 * over contiguous ranges of ranks of about equal events, each into its own sums and rows, added
 * up after in range order. Every sum is of integers and the rows are sorted when finished, so
 * the results do not depend on the number of threads. One thread under a split into processes
 * (a walk may hop to another process), for fewer than PAR_MIN_EVENTS events, or as
 * RETIME_ANALYZE_THREADS says. */
#define PAR_MAX_THREADS 8
#define PAR_MIN_EVENTS (1u << 17)

static uint32_t par_threads(const rt_depgraph *g)
{
    return g->part ? 1 : rt__threads_for("RETIME_ANALYZE_THREADS", g->total, PAR_MIN_EVENTS, PAR_MAX_THREADS, g->hi - g->lo);
}

/* Ranks [bounds[i], bounds[i + 1]) for thread i < n: about total / n events each, one rank at least. */
static void par_split(const rt_depgraph *g, uint32_t n, uint32_t *bounds)
{
    uint64_t per = g->total / n + 1, acc = 0;
    uint32_t r = g->lo;
    for (uint32_t i = 0; i < n; i++) {
        bounds[i] = r;
        while (r < g->hi && (i == n - 1 || r == bounds[i] || acc + g->n[r] <= per * (i + 1)))
            acc += g->n[r++];
    }
    bounds[n] = g->hi;
}

/* Runs @p fn on each of the @p n elements of @p size bytes at @p args, on n threads (this one the
 * first; an element whose thread could not start runs here after). */
static void par_run(void *(*fn)(void *), void *args, size_t size, uint32_t n)
{
    pthread_t th[PAR_MAX_THREADS];
    uint32_t started = 1;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, fn, (char *)args + started * size) != 0)
            break;
    fn(args);
    for (uint32_t i = 1; i < started; i++)
        pthread_join(th[i], NULL);
    for (uint32_t i = started; i < n; i++)
        fn((char *)args + i * size);
}

/* A growable set of breakdown rows keyed by (group, wait, id, region, instance). Consecutive
 * edges mostly fall in the same few rows of a group (one rank at a time, the call sites of one
 * loop iteration in turn, the same region instance for a run of events), so the last rows found
 * in each group are tried first. */
#define SMAP_RECENT 4
struct smap {
    struct rt_dep_share *v;
    uint64_t n, cap; /* cap: 0 or a power of two */
    struct rt_dep_share *last[RT_GROUP_COUNT][SMAP_RECENT]; /* the last rows found; NULL: none (reset when v moves) */
    uint8_t older[RT_GROUP_COUNT];                          /* the next one to replace */
    int oom;
};

/* ------------------------------------------------------------------ records */

/* Whether a record's remote source (if any) is an event of the graph: held here, or fetched
 * from the process that holds it. */
static inline int src_ok(const rt_depgraph *g, const struct rt__dep_rec *x)
{
    if (src_kind(x) == RT_DEP_NONE)
        return 1;
    uint32_t r = src_rank(x);
    if (r >= g->nranks)
        return 0;
    return held(g, r) ? src_index(x) < g->n[r] : rt__dg_ghost(g, r, src_index(x)) != NO_TIME;
}

/* The records are written once, in the replay's order, each page first touched by the replay's
 * own thread: a page fault (zeroed, charged) per 4 KiB, a quarter of `retime analyze` at 10^7
 * events. A thread of its own maps them beforehand on another core (MADV_POPULATE_WRITE maps
 * a page writable without writing it, so the replay's stores are never overwritten), 8 MiB at a
 * time so that rt_depgraph_destroy can stop it. Where the kernel does not have it, nothing
 * changes. */
#define PREFAULT_STEP ((size_t)8 << 20)

static void *prefault_main(void *arg)
{
#ifdef MADV_POPULATE_WRITE
    rt_depgraph *g = arg;
    const uintptr_t page = 4096;
    uintptr_t lo = ((uintptr_t)g->rec + page - 1) & ~(page - 1), hi = (uintptr_t)(g->rec + g->total) & ~(page - 1);
    for (uintptr_t p = lo; p < hi && !g->prefault_stop; p += PREFAULT_STEP) {
        size_t len = hi - p < PREFAULT_STEP ? hi - p : PREFAULT_STEP;
        if (madvise((void *)p, len, MADV_POPULATE_WRITE))
            break;
    }
#else
    (void)arg;
#endif
    return NULL;
}

/* A graph of @p trace's ranks held here, with room for a record per event when @p records (the
 * collector's), or without (a measured graph). */
static int create(const rt_trace *trace, const struct rt_replay_part *part, int records, rt_depgraph **out,
                  rt_error *err)
{
    rt_depgraph *g = calloc(1, sizeof *g);
    if (!g)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    g->t = trace;
    g->part = part;
    g->end.rank = RT_NONE;
    g->nranks = rt_trace_ranks(trace);
    g->hi = g->nranks;
    int rc = RT_OK;
    if (part) {
        int ok = part->nprocs > 0 && part->me < part->nprocs && part->first_rank &&
                 part->first_rank[0] == 0 && part->first_rank[part->nprocs] == g->nranks;
        for (uint32_t p = 0; ok && p < part->nprocs; p++)
            ok = part->first_rank[p] <= part->first_rank[p + 1];
        if (!ok)
            rc = rt_error_set(err, RT_EINVAL, "%s: the parts of a distributed analysis do not split the %u ranks",
                              rt_trace_path(trace), g->nranks);
        else
            g->lo = part->first_rank[part->me], g->hi = part->first_rank[part->me + 1];
    }
    size_t nr = g->nranks ? g->nranks : 1;
    g->base = calloc(nr, sizeof *g->base);
    g->n = calloc(nr, sizeof *g->n);
    g->seen = calloc(nr, sizeof *g->seen);
    if (!rc && (!g->base || !g->n || !g->seen))
        goto oom;
    for (uint32_t r = g->lo; r < g->hi && !rc; r++) {
        rt_trace_events(trace, r, &g->n[r]);
        g->base[r] = g->total;
        if (g->n[r] > IDX_MASK || g->total > UINT64_MAX - g->n[r])
            rc = rt_error_set(err, RT_ERANGE, "%s: rank %u has %llu events, more than a dependency graph holds",
                              rt_trace_path(trace), r, (unsigned long long)g->n[r]);
        g->total += g->n[r];
    }
    if (!rc && g->nranks > NO_RANK)
        rc = rt_error_set(err, RT_ERANGE, "%s: %u ranks, more than a dependency graph holds (%llu)",
                          rt_trace_path(trace), g->nranks, (unsigned long long)NO_RANK);
    if (rc) {
        rt_depgraph_destroy(g);
        return rc;
    }
    if (!records) {
        *out = g;
        return RT_OK;
    }
    if (g->total > SIZE_MAX / sizeof *g->rec)
        goto oom;
    g->rec = calloc(g->total ? g->total : 1, sizeof *g->rec);
    if (!g->rec)
        goto oom;
    if (g->total >= PAR_MIN_EVENTS && sysconf(_SC_NPROCESSORS_ONLN) > 1 && !getenv("RETIME_NO_PREFAULT"))
        g->prefaulting = pthread_create(&g->prefault, NULL, prefault_main, g) == 0;
    *out = g;
    return RT_OK;
oom:
    rt_depgraph_destroy(g);
    return rt_error_set(err, RT_ENOMEM, "out of memory for the dependency graph (%zu bytes per event)",
                        sizeof(struct rt__dep_rec));
}

int rt_depgraph_create_part(const rt_trace *trace, const struct rt_replay_part *part, rt_depgraph **out,
                            rt_error *err)
{
    return create(trace, part, 1, out, err);
}

int rt_depgraph_create(const rt_trace *trace, rt_depgraph **out, rt_error *err)
{
    return create(trace, NULL, 1, out, err);
}

void rt_depgraph_destroy(rt_depgraph *g)
{
    if (!g)
        return;
    if (g->prefaulting) {
        g->prefault_stop = 1;
        pthread_join(g->prefault, NULL);
    }
    free(g->base);
    free(g->n);
    free(g->seen);
    free(g->rec);
    free(g->tu);
    free(g->evs);
    free(g->onpath);
    free(g->seg);
    free(g->cp_share);
    free(g->ws_share);
    free(g->gh);
    free(g);
}

void rt_depgraph_on_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted,
                        const struct rt_dep *dep)
{
    rt_depgraph *g = ud;
    (void)ev;
    g->complete_ok = 0;
    if (!g->rec || !held(g, rank) || index != g->seen[rank] || index >= g->n[rank]) { /* !rec: measured */
        if (!g->disorder) {
            g->disorder = 1;
            g->disorder_rank = rank;
            g->disorder_index = index;
        }
        return;
    }
    uint64_t kind = dep->kind, sr = dep->src_rank, si = dep->src_index;
    if (kind == RT_DEP_NONE || sr == RT_NONE) {
        sr = NO_RANK;
        si = 0;
    } else if (sr >= NO_RANK || si > IDX_MASK) {
        sr = NO_RANK; /* out of range: rt_depgraph_check reports it */
        si = 0;
    }
    struct rt__dep_rec *x = R(g, rank, index);
    *x = (struct rt__dep_rec){NO_TIME, dep->local_ready, dep->remote_ready, kind << 62 | sr << IDX_BITS | si};
    if (kind != RT_DEP_NONE) { /* the source's time, while its record is fresh; else fill_sources */
        if (held(g, (uint32_t)sr) && si < g->seen[sr])
            x->src_t = rec_t(R(g, (uint32_t)sr, si));
        else
            g->unfilled++;
    }
    if (predicted != rec_t(x) && (!g->bad_t || rank < g->bad_rank || (rank == g->bad_rank && index < g->bad_index))) {
        g->bad_t = 1;
        g->bad_rank = rank;
        g->bad_index = index;
        g->bad_time = predicted;
    }
    note_end(&g->end, rank, index, rec_t(x));
    g->seen[rank]++;
}

void rt_depgraph_observer(rt_depgraph *g, struct rt_replay_observer *obs)
{
    memset(obs, 0, sizeof *obs);
    obs->ud = g;
    obs->on_dep = rt_depgraph_on_dep;
}

/* The times of the remote sources that were not recorded yet when their dependents were (the
 * replay reports ranks in time order only loosely) or are held by another process (fetched by
 * rt__dg_fetch, which must have run). A source that does not exist stays unfilled: the checks
 * name it. */
static void fill_sources(rt_depgraph *g)
{
    for (uint32_t r = g->lo; r < g->hi && g->unfilled; r++)
        for (uint64_t j = 0; j < g->seen[r] && g->unfilled; j++) {
            struct rt__dep_rec *x = R(g, r, j);
            if (src_kind(x) == RT_DEP_NONE || x->src_t != NO_TIME || src_rank(x) >= g->nranks)
                continue;
            uint32_t sr = src_rank(x);
            uint64_t si = src_index(x);
            rt_time_ps t = held(g, sr) ? (si < g->seen[sr] ? rec_t(R(g, sr, si)) : NO_TIME) : rt__dg_ghost(g, sr, si);
            if (t != NO_TIME) {
                x->src_t = t;
                g->unfilled--;
            }
        }
}

/* The contract on the ranks held here, once the remote sources' times are fetched. */
static int check_held(const rt_depgraph *g, rt_error *err)
{
    const char *path = rt_trace_path(g->t);
    if (g->disorder)
        return rt_error_set(err, RT_EINVAL, "%s: dependency record for rank %u event %llu out of program order or range",
                            path, g->disorder_rank, (unsigned long long)g->disorder_index);
    for (uint32_t r = g->lo; r < g->hi; r++) {
        if (g->seen[r] != g->n[r])
            return rt_error_set(err, RT_EINVAL, "%s: rank %u: %llu dependency records for %llu events", path, r,
                                (unsigned long long)g->seen[r], (unsigned long long)g->n[r]);
        for (uint64_t j = 0; j < g->n[r]; j++) {
            const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
            rt_time_ps tp = t_prev(g, r, j);
            int rem = src_kind(x) != RT_DEP_NONE;
            if (x->local_ready < tp)
                return rt_error_set(err, RT_EINVAL,
                                    "%s: rank %u event %llu: local_ready %lld ps before the previous event's time %lld ps",
                                    path, r, (unsigned long long)j, (long long)x->local_ready, (long long)tp);
            if (rem && !src_ok(g, x))
                return rt_error_set(err, RT_EINVAL, "%s: rank %u event %llu: remote source (rank %u, event %llu) does not exist",
                                    path, r, (unsigned long long)j, src_rank(x), (unsigned long long)src_index(x));
            if (g->bad_t && r == g->bad_rank && j == g->bad_index)
                return rt_error_set(err, RT_EINVAL,
                                    "%s: rank %u event %llu: t %lld ps != max(local_ready %lld, remote_ready %lld) ps", path,
                                    r, (unsigned long long)j, (long long)g->bad_time, (long long)x->local_ready,
                                    (long long)(rem ? x->remote_ready : INT64_MIN));
            if (rem && x->src_t > x->remote_ready)
                return rt_error_set(err, RT_EINVAL,
                                    "%s: rank %u event %llu: remote source (rank %u, event %llu) at %lld ps after remote_ready %lld ps",
                                    path, r, (unsigned long long)j, src_rank(x), (unsigned long long)src_index(x),
                                    (long long)x->src_t, (long long)x->remote_ready);
        }
    }
    return RT_OK;
}

/* The graphs' const functions fill the cache of remote sources' times (g->gh) in a distributed
 * analysis: the graph was allocated by rt_depgraph_create_part, never defined const. */
int rt_depgraph_check(const rt_depgraph *g, rt_error *err)
{
    int rc = rt__dg_fetch((rt_depgraph *)g, NULL, err);
    if (!rc)
        fill_sources((rt_depgraph *)g);
    if (!rc && !(rc = rt__dg_agree(g, check_held(g, err), err)))
        ((rt_depgraph *)g)->complete_ok = 1; /* check_held is the stricter test */
    return rc;
}

/* What every result needs: all records there, every remote source an event (the finer
 * points of the contract are check_held's). Collective; once it passed (on every process, as
 * rt__dg_agree makes it) the records and fetched times stand until a new record comes, so the
 * later results skip it. */
static int complete(rt_depgraph *g, rt_error *err)
{
    if (g->complete_ok)
        return RT_OK;
    int rc = rt__dg_fetch(g, NULL, err);
    if (rc)
        return rc;
    fill_sources(g);
    int bad = g->disorder;
    for (uint32_t r = g->lo; r < g->hi && !bad; r++)
        bad = g->seen[r] != g->n[r];
    for (uint64_t i = 0; i < g->total && !bad; i++)
        bad = !src_ok(g, &edges_of(g)[i]);
    if (!(rc = rt__dg_agree(g, bad ? check_held(g, err) : RT_OK, err)))
        g->complete_ok = 1;
    return rc;
}

int rt_depgraph_event(const rt_depgraph *g, uint32_t rank, uint64_t index, struct rt_dep_event *out, rt_error *err)
{
    if (!held(g, rank) || index >= g->n[rank])
        return rt_error_set(err, RT_ERANGE, "dependency graph: no event %" PRIu64 " on rank %u", index, rank);
    const struct rt__dep_rec xv = rec_at(g, rank, index), *x = &xv;
    int none = src_kind(x) == RT_DEP_NONE;
    *out = (struct rt_dep_event){
        .t = rec_t(x),
        .local_ready = x->local_ready,
        .remote_ready = none ? INT64_MIN : x->remote_ready,
        .src_index = none ? 0 : src_index(x),
        .src_rank = none ? RT_NONE : src_rank(x),
        .kind = (uint8_t)src_kind(x),
        .remote_binds = (uint8_t)remote_binds(x),
        .on_path = (uint8_t)(g->have_cp && g->onpath && marked(g->onpath, g->base[rank] + index)),
    };
    return RT_OK;
}

rt_time_ps rt_depgraph_end(const rt_depgraph *g)
{
    rt_time_ps end = g->end.rank != RT_NONE && g->end.t > 0 ? g->end.t : 0; /* records not there count 0 */
    int64_t v = -end; /* the largest over the processes */
    rt_error err;
    return rt__dg_reduce(g, &v, 1, 0, RT_OK, &err) ? 0 : -v;
}

/* One range of ranks of the measured graph (rt_depgraph_measured). */
struct measured_range {
    rt_depgraph *g;
    uint32_t lo, hi;
    struct rt_measured_info inf; /* the range's violations */
    struct rt__end end;          /* and end */
};

/* The remote sources' times of a range of ranks (g->tu), its causality violations and its end. */
static void *measured_range(void *arg)
{
    struct measured_range *p = arg;
    rt_depgraph *g = p->g;
    const rt_depgraph *s = g->shape;
    const struct rt_event **evs = g->evs;
    for (uint32_t r = p->lo; r < p->hi; r++) {
        rt_time_ps *tu = &g->tu[g->base[r]];
        const struct rt__dep_rec *sr_rec = R(s, r, 0);
        for (uint64_t j = 0; j < g->n[r]; j++) {
            const struct rt__dep_rec *x = &sr_rec[j];
#if defined(__GNUC__)
            /* the source's event, at a random place: asked for PREFETCH_AHEAD events ahead */
            if (j + PREFETCH_AHEAD < g->n[r]) {
                const struct rt__dep_rec *y = &sr_rec[j + PREFETCH_AHEAD];
                if (src_kind(y) != RT_DEP_NONE && held(g, src_rank(y)) && src_index(y) < g->n[src_rank(y)])
                    __builtin_prefetch(&evs[src_rank(y)][src_index(y)]);
            }
#endif
            rt_time_ps t = ev_ps(g, r, j);
            note_end(&p->end, r, j, t);
            if (src_kind(x) == RT_DEP_NONE) {
                tu[j] = NO_TIME;
                continue;
            }
            uint32_t sr = src_rank(x);
            uint64_t sj = src_index(x);
            tu[j] = held(g, sr) ? ev_ps(g, sr, sj) : rt__dg_ghost(g, sr, sj);
            if (t < tu[j]) { /* effect before cause: the clocks disagree */
                if (!p->inf.violations || tu[j] - t > p->inf.worst_ps) {
                    p->inf.worst_ps = tu[j] - t;
                    p->inf.worst_rank = r;
                    p->inf.worst_index = j;
                }
                p->inf.violations++;
            }
        }
    }
    return NULL;
}

int rt_depgraph_measured(const rt_trace *trace, const rt_depgraph *s, rt_depgraph **out, struct rt_measured_info *info,
                         rt_error *err)
{
    struct rt_measured_info inf = {0};
    rt_depgraph *g = NULL;
    int rc = complete((rt_depgraph *)s, err);
    if (rc)
        return rc;
    if (!s->rec) /* a measured graph's sources are another graph's: no measured graph of it */
        return rt_error_set(err, RT_EINVAL, "%s: the structure graph must be a replay's", rt_trace_path(trace));
    rc = create(trace, s->part, 0, &g, err);
    if (!rc && (g->total != s->total || g->nranks != s->nranks || g->lo != s->lo || g->hi != s->hi))
        rc = rt_error_set(err, RT_EINVAL, "%s: the structure graph belongs to another trace", rt_trace_path(trace));
    if ((rc = rt__dg_agree(s, rc, err))) {
        rt_depgraph_destroy(g);
        return rc;
    }
    int64_t first = INT64_MAX; /* the earliest event of all ranks */
    for (uint32_t r = g->lo; r < g->hi; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(trace, r, &n);
        if (n)
            first = ev[0].time < first ? ev[0].time : first;
    }
    if ((rc = rt__dg_reduce(g, &first, 1, 0, RT_OK, err)))
        goto fail;
    /* The measured times are the trace's (ev_ps; under a split, rt__dg_fetch answers other
     * processes' questions from them). */
    g->shape = s;
    g->first = first;
    g->evs = calloc(g->nranks ? g->nranks : 1, sizeof *g->evs);
    g->tu = g->total <= SIZE_MAX / sizeof *g->tu ? malloc((g->total ? g->total : 1) * sizeof *g->tu) : NULL;
    if ((rc = rt__dg_agree(g, g->evs && g->tu ? RT_OK : rt_error_set(err, RT_ENOMEM, "out of memory"), err)))
        goto fail;
    for (uint32_t r = g->lo; r < g->hi; r++) {
        uint64_t n;
        g->evs[r] = rt_trace_events(trace, r, &n);
        g->seen[r] = n;
    }
    if ((rc = rt__dg_fetch(g, NULL, err)))
        goto fail;
    uint32_t nt = par_threads(g), bounds[PAR_MAX_THREADS + 1];
    struct measured_range mr[PAR_MAX_THREADS];
    par_split(g, nt, bounds);
    for (uint32_t i = 0; i < nt; i++)
        mr[i] = (struct measured_range){g, bounds[i], bounds[i + 1], {0}, {RT_NONE, 0, 0}};
    par_run(measured_range, mr, sizeof *mr, nt);
    for (uint32_t i = 0; i < nt; i++) { /* in rank order: of equal worst violations the first stays */
        const struct rt_measured_info *p = &mr[i].inf;
        if (p->violations && (!inf.violations || p->worst_ps > inf.worst_ps)) {
            inf.worst_ps = p->worst_ps;
            inf.worst_rank = p->worst_rank;
            inf.worst_index = p->worst_index;
        }
        inf.violations += p->violations;
        if (mr[i].end.rank != RT_NONE)
            note_end(&g->end, mr[i].end.rank, mr[i].end.index, mr[i].end.t);
    }
    /* The worst violation of all: the largest, and of equal ones the first in rank order. */
    int64_t v[2] = {(int64_t)inf.violations, inf.violations ? -inf.worst_ps : INT64_MAX};
    if ((rc = rt__dg_reduce(g, v, 1, 1, RT_OK, err)) || (rc = rt__dg_reduce(g, v + 1, 1, 0, RT_OK, err)))
        goto fail;
    int64_t at = inf.violations && -inf.worst_ps == v[1] ? (int64_t)((uint64_t)inf.worst_rank << IDX_BITS | inf.worst_index)
                                                          : INT64_MAX;
    if ((rc = rt__dg_reduce(g, &at, 1, 0, RT_OK, err)))
        goto fail;
    inf.violations = (uint64_t)v[0];
    if (inf.violations) {
        inf.worst_ps = -v[1];
        inf.worst_rank = (uint32_t)((uint64_t)at >> IDX_BITS);
        inf.worst_index = (uint64_t)at & IDX_MASK;
    }
    if (info)
        *info = inf;
    /* every record is there, with the sources of s, which passed complete(), and their times
     * fetched: complete() would pass */
    g->complete_ok = 1;
    *out = g;
    return RT_OK;
fail:
    rt_depgraph_destroy(g);
    return rc;
}

/* ------------------------------------------------------------------ breakdown rows */

static uint64_t skey_hash(uint8_t group, uint8_t wait, uint32_t id, uint32_t region, uint64_t inst)
{
    uint64_t h = (uint64_t)group << 56 ^ (uint64_t)wait << 48 ^ (uint64_t)id * 0x9E3779B97F4A7C15ull ^
                 ((uint64_t)region << 17 | region >> 15) ^ inst * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ h >> 29;
}

static inline int skey_is(const struct rt_dep_share *e, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                          uint64_t inst)
{
    return e->group == group && e->wait == wait && e->id == id && e->region == region && e->instance == inst;
}

/* The row for a key, created with zero values; NULL (and m->oom set) when out of memory. */
static struct rt_dep_share *smap_find(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                                      uint64_t inst)
{
    if (m->n * 2 >= m->cap) {
        uint64_t ncap = m->cap ? m->cap * 2 : 64;
        struct rt_dep_share *nv = malloc(ncap * sizeof *nv);
        if (!nv) {
            m->oom = 1;
            return NULL;
        }
        for (uint64_t i = 0; i < ncap; i++)
            nv[i].group = 0xff; /* empty slot */
        for (uint64_t i = 0; i < m->cap; i++) {
            struct rt_dep_share *o = &m->v[i];
            if (o->group == 0xff)
                continue;
            uint64_t h = skey_hash(o->group, o->wait, o->id, o->region, o->instance) & (ncap - 1);
            while (nv[h].group != 0xff)
                h = (h + 1) & (ncap - 1);
            nv[h] = *o;
        }
        free(m->v);
        m->v = nv;
        m->cap = ncap;
        memset(m->last, 0, sizeof m->last);
    }
    uint64_t h = skey_hash(group, wait, id, region, inst) & (m->cap - 1);
    struct rt_dep_share *e = &m->v[h];
    while (e->group != 0xff && !skey_is(e, group, wait, id, region, inst)) {
        h = (h + 1) & (m->cap - 1);
        e = &m->v[h];
    }
    if (e->group == 0xff) {
        *e = (struct rt_dep_share){group, wait, id, region, inst, 0, 0};
        m->n++;
    }
    if (group < RT_GROUP_COUNT) {
        m->last[group][m->older[group]] = e;
        m->older[group] = (uint8_t)((m->older[group] + 1) % SMAP_RECENT);
    }
    return e;
}

/* smap_find after a look at the group's last rows, inline: most adds end there. */
static inline struct rt_dep_share *smap_get(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region,
                                            uint64_t inst)
{
    if (group < RT_GROUP_COUNT)
        for (int k = 0; k < SMAP_RECENT; k++) {
            struct rt_dep_share *hit = m->last[group][k];
            if (hit && skey_is(hit, group, wait, id, region, inst))
                return hit;
        }
    return smap_find(m, group, wait, id, region, inst);
}

static inline void smap_add(struct smap *m, uint8_t group, uint8_t wait, uint32_t id, uint32_t region, uint64_t inst,
                     rt_time_ps v1, rt_time_ps v2)
{
    struct rt_dep_share *e = smap_get(m, group, wait, id, region, inst);
    if (e) {
        e->value += v1;
        e->value2 += v2;
    }
}

static rt_time_ps absv(rt_time_ps x) { return x < 0 ? -x : x; }

static int share_cmp_by(const struct rt_dep_share *a, const struct rt_dep_share *b, int abs_sum)
{
    if (a->wait != b->wait)
        return a->wait < b->wait ? -1 : 1;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    rt_time_ps ka = abs_sum ? absv(a->value) + absv(a->value2) : a->value;
    rt_time_ps kb = abs_sum ? absv(b->value) + absv(b->value2) : b->value;
    if (ka != kb)
        return ka > kb ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    return a->instance < b->instance ? -1 : a->instance > b->instance;
}

static int share_cmp(const void *a, const void *b) { return share_cmp_by(a, b, 0); }
static int share_cmp_abs(const void *a, const void *b) { return share_cmp_by(a, b, 1); }

/* Packs the rows into a sorted array (owned by the caller); the map is freed. */
static struct rt_dep_share *smap_finish(struct smap *m, uint64_t *n, int abs_sum)
{
    struct rt_dep_share *out = malloc((m->n ? m->n : 1) * sizeof *out);
    if (!out || m->oom) {
        free(out);
        free(m->v);
        return NULL;
    }
    uint64_t k = 0;
    for (uint64_t i = 0; i < m->cap; i++)
        if (m->v[i].group != 0xff)
            out[k++] = m->v[i];
    free(m->v);
    qsort(out, k, sizeof *out, abs_sum ? share_cmp_abs : share_cmp);
    *n = k;
    return out;
}

/* The rows of every process summed and sorted: at process 0 (elsewhere *n = 0), or here when
 * one process holds every rank. Frees the map. Collective; @p rc: this process already failed. */
static int shares_finish(const rt_depgraph *g, struct smap *m, int abs_sum, struct rt_dep_share **out, uint64_t *n,
                         int rc, rt_error *err)
{
    struct smap all = {0};
    void *got = NULL;
    size_t len = 0;
    *out = NULL;
    *n = 0;
    if (g->part) { /* field by field into zeroed rows, so that no padding byte travels */
        struct rt_dep_share *rows = calloc(m->n ? m->n : 1, sizeof *rows);
        uint64_t k = 0;
        if (!rc && (!rows || m->oom))
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        for (uint64_t i = 0; !rc && i < m->cap; i++) {
            const struct rt_dep_share *e = &m->v[i];
            if (e->group == 0xff)
                continue;
            rows[k].group = e->group;
            rows[k].wait = e->wait;
            rows[k].id = e->id;
            rows[k].region = e->region;
            rows[k].instance = e->instance;
            rows[k].value = e->value;
            rows[k++].value2 = e->value2;
        }
        free(m->v);
        *m = (struct smap){0};
        rc = rt__dg_gather(g, rows, k * sizeof *rows, &got, &len, rc, err);
        free(rows);
        if (rc)
            return rc;
        for (size_t i = 0; i < len / sizeof(struct rt_dep_share); i++) {
            const struct rt_dep_share *e = (const struct rt_dep_share *)got + i;
            smap_add(&all, e->group, e->wait, e->id, e->region, e->instance, e->value, e->value2);
        }
        free(got);
        m = &all;
    }
    if (!rc) {
        *out = smap_finish(m, n, abs_sum); /* frees the map's rows */
        m->v = NULL;
        if (!*out)
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    free(m->v);
    m->v = NULL;
    return rt__dg_agree(g, rc, err);
}

/* ------------------------------------------------------------------ event context */

/* Where an edge into an event lies: the state of its rank just before the event. */
struct ctx {
    uint32_t callsite, call_region; /* of the outermost MPI call (RT_NONE: outside calls) */
    int comm_call;                  /* that call moves data or synchronises */
    rt_bytes call_bytes;            /* bytes of the last send started in that call */
    uint32_t region;                /* innermost non-MPI region (RT_NONE: none) */
    uint64_t instance;              /* its outermost instance number on this rank */
};

struct frame {
    uint32_t region;
    uint64_t instance;
};

struct walker {
    const rt_trace *t;
    uint32_t r;                     /* the rank walked */
    uint32_t nregions;
    uint64_t *next_inst, *cur_inst; /* per region */
    uint32_t *depth;                /* per region: open instances */
    struct frame *stack;
    uint64_t nstack, capstack;
    int mpi_depth;
    struct ctx c;
};

static int walker_init(struct walker *w, const rt_trace *t)
{
    memset(w, 0, sizeof *w);
    w->t = t;
    w->nregions = rt_trace_regions(t);
    size_t n = w->nregions ? w->nregions : 1;
    w->next_inst = calloc(n, sizeof *w->next_inst);
    w->cur_inst = calloc(n, sizeof *w->cur_inst);
    w->depth = calloc(n, sizeof *w->depth);
    return w->next_inst && w->cur_inst && w->depth ? RT_OK : RT_ENOMEM;
}

static void walker_free(struct walker *w)
{
    free(w->next_inst);
    free(w->cur_inst);
    free(w->depth);
    free(w->stack);
}

static void walker_rank(struct walker *w, uint32_t r)
{
    w->r = r;
    memset(w->next_inst, 0, (w->nregions ? w->nregions : 1) * sizeof *w->next_inst);
    memset(w->depth, 0, (w->nregions ? w->nregions : 1) * sizeof *w->depth);
    w->nstack = 0;
    w->mpi_depth = 0;
    w->c = (struct ctx){RT_NONE, RT_NONE, 0, 0, RT_NONE, 0};
}

/* Whether the MPI call entered at @p j moves data or synchronises (as the engine decides). */
static int call_communicates(const struct rt_event *ev, uint64_t n, uint64_t j)
{
    int depth = 1;
    for (uint64_t k = j + 1; k < n; k++) {
        const struct rt_event *e = &ev[k];
        if (e->flags & RT_EVF_MPI) {
            depth += e->kind == RT_EV_ENTER ? 1 : e->kind == RT_EV_LEAVE ? -1 : 0;
            if (depth == 0)
                return 0;
        }
        switch (e->kind) {
        case RT_EV_SEND: case RT_EV_ISEND: case RT_EV_RECV: case RT_EV_IRECV_REQUEST: case RT_EV_COLL_BEGIN:
            if (!(e->flags & RT_EVF_CANCELLED))
                return 1;
            break;
        case RT_EV_ISEND_COMPLETE: case RT_EV_IRECV: case RT_EV_COLL_END:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

/* Applies event @p j to the context (after the event has been visited). */
static int walker_apply(struct walker *w, const struct rt_event *ev, uint64_t n, uint64_t j)
{
    const struct rt_event *e = &ev[j];
    if (e->kind == RT_EV_ENTER && (e->flags & RT_EVF_MPI)) {
        if (w->mpi_depth++ == 0) {
            w->c.callsite = e->aux;
            w->c.call_region = e->ref;
            w->c.comm_call = call_communicates(ev, n, j);
            w->c.call_bytes = 0;
        }
    } else if (e->kind == RT_EV_LEAVE && (e->flags & RT_EVF_MPI)) {
        if (w->mpi_depth > 0 && --w->mpi_depth == 0) {
            w->c.callsite = w->c.call_region = RT_NONE;
            w->c.comm_call = 0;
        }
    } else if (e->kind == RT_EV_ENTER && e->ref < w->nregions) {
        if (w->nstack == w->capstack) {
            uint64_t ncap = w->capstack ? w->capstack * 2 : 16;
            struct frame *ns = realloc(w->stack, ncap * sizeof *ns);
            if (!ns)
                return RT_ENOMEM;
            w->stack = ns;
            w->capstack = ncap;
        }
        if (w->depth[e->ref]++ == 0)
            w->cur_inst[e->ref] = w->next_inst[e->ref]++;
        w->stack[w->nstack++] = (struct frame){e->ref, w->cur_inst[e->ref]};
    } else if (e->kind == RT_EV_LEAVE && e->ref < w->nregions) {
        uint64_t k = w->nstack;
        while (k > 0 && w->stack[k - 1].region != e->ref)
            k--;
        if (k > 0) { /* pops the region and anything left open inside it */
            for (uint64_t i = k - 1; i < w->nstack; i++)
                if (w->depth[w->stack[i].region])
                    w->depth[w->stack[i].region]--;
            w->nstack = k - 1;
        }
    } else if ((e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) && w->mpi_depth > 0) {
        w->c.call_bytes = rt_trace_payload(w->t, w->r, j).bytes;
    }
    w->c.region = w->nstack ? w->stack[w->nstack - 1].region : RT_NONE;
    w->c.instance = w->nstack ? w->stack[w->nstack - 1].instance : 0;
    return RT_OK;
}

/* Bytes carried by the remote edge into event @p j of the walker's rank. */
static rt_bytes edge_bytes(const struct walker *w, const struct rt_event *ev, uint64_t n, uint64_t j)
{
    const struct rt_event *e = &ev[j];
    const struct ctx *c = &w->c;
    switch (e->kind) {
    case RT_EV_RECV:
        return rt_trace_payload(w->t, w->r, j).bytes;
    case RT_EV_IRECV:
    case RT_EV_ISEND_COMPLETE:
        return rt_trace_payload(w->t, w->r, e->ref < n ? e->ref : j).bytes;
    case RT_EV_COLL_END: {
        rt_bytes s = e->ref < n ? rt_trace_payload(w->t, w->r, e->ref).bytes : 0, got = rt_trace_payload(w->t, w->r, j).bytes;
        return s > got ? s : got;
    }
    default:
        return c->call_bytes;
    }
}

static uint32_t size_bucket(rt_bytes b)
{
    uint32_t k = 0;
    while (b) {
        k++;
        b >>= 1;
    }
    return k;
}

/* The size rows a walk sums before it adds them: one per bucket (0..64), the last for RT_NONE. */
#define SIZE_ROWS 66
static inline uint32_t size_row(uint32_t bucket) { return bucket == RT_NONE ? SIZE_ROWS - 1 : bucket; }

/* Adds @p v1, @p v2 to the rows of every group the edge into event (r, j) belongs to. */
static void add_groups(struct smap *m, uint32_t r, const struct ctx *c, int remote, uint32_t size, rt_time_ps v1,
                       rt_time_ps v2)
{
    (void)remote;
    smap_add(m, RT_GROUP_RANK, 0, r, RT_NONE, 0, v1, v2);
    smap_add(m, RT_GROUP_CALLSITE, 0, c->callsite, c->call_region, 0, v1, v2);
    smap_add(m, RT_GROUP_REGION, 0, RT_NONE, c->region, c->region == RT_NONE ? 0 : c->instance, v1, v2);
    smap_add(m, RT_GROUP_SIZE, 0, size, RT_NONE, 0, v1, v2);
}

static int activity_of(const struct rt__dep_rec *x, int remote, const struct ctx *c)
{
    if (remote)
        return src_kind(x) == RT_DEP_COLLECTIVE ? RT_ACT_COLLECTIVE : RT_ACT_TRANSFER;
    return c->comm_call ? RT_ACT_OVERHEAD : RT_ACT_COMPUTE;
}

/* ------------------------------------------------------------------ critical path */

/* A segment of the path with its place in the walk (0: the last segment in time). */
struct seg_rec {
    uint64_t seq;
    struct rt_cp_segment s;
};

struct cp_walk {
    struct seg_rec *v;
    uint64_t n, cap;
    uint64_t limit; /* more steps than events: a cycle */
};

/* Walks the path back from (tok->rank, tok->index), the last event of a segment, while it stays
 * on ranks held here: marks the events, sums the length, records the segments it ends. */
static int cp_step(rt_depgraph *g, void *ctx, struct rt__dg_tok *tok, rt_error *err)
{
    struct cp_walk *w = ctx;
    struct rt_critical_path *cp = &g->cp;
    uint32_t r = tok->rank, seg_rank = r;
    uint64_t j = tok->index, seg_last = j;
    for (;; tok->steps++) {
        if (tok->steps > w->limit)
            return rt_error_set(err, RT_EINVAL, "%s: the dependency graph has a cycle through rank %u event %llu",
                                rt_trace_path(g->t), r, (unsigned long long)j);
        const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
        uint64_t gi = g->base[r] + j;
        g->onpath[gi >> 3] |= (uint8_t)(1u << (gi & 7));
        cp->events++;
        uint32_t nr = r;
        uint64_t nj = j;
        rt_time_ps from;
        int stop = 0;
        if (remote_binds(x)) {
            if (!src_ok(g, x))
                return check_held(g, err);
            nr = src_rank(x);
            nj = src_index(x);
            from = x->src_t;
            cp->length_ps += x->remote_ready - from;
        } else {
            from = t_prev(g, r, j);
            cp->length_ps += x->local_ready - from;
            stop = j == 0;
            nj = j - 1;
        }
        if (stop || nr != seg_rank) { /* the segment on seg_rank begins at event j */
            struct seg_rec s;
            memset(&s, 0, sizeof s); /* it may travel: no stray padding */
            s.seq = tok->seq++;
            s.s.rank = seg_rank;
            s.s.first = j;
            s.s.last = seg_last;
            s.s.begin_ps = stop ? 0 : from;
            s.s.end_ps = time_at(g, seg_rank, seg_last);
            if (rt__dg_grow((void **)&w->v, &w->cap, sizeof *w->v, w->n + 1))
                return rt_error_set(err, RT_ENOMEM, "out of memory");
            w->v[w->n++] = s;
            seg_rank = nr;
            seg_last = nj;
        }
        if (stop)
            return WALK_DONE;
        r = nr;
        j = nj;
        if (!held(g, r)) {
            tok->rank = r;
            tok->index = j;
            tok->steps++;
            return WALK_HOP;
        }
    }
}

/* Puts the segments in time order (the walk numbered them last first); at process 0 those of
 * every process. */
static int cp_segments(rt_depgraph *g, struct cp_walk *w, rt_error *err)
{
    struct rt_critical_path *cp = &g->cp;
    void *all = NULL;
    size_t len = w->n * sizeof *w->v;
    int rc = rt__dg_gather(g, w->v, len, &all, &len, RT_OK, err);
    if (rc)
        return rc;
    const struct seg_rec *v = g->part ? all : w->v;
    uint64_t n = g->part ? len / sizeof *v : w->n;
    free(g->seg);
    g->seg = malloc((n ? n : 1) * sizeof *g->seg);
    if (!g->seg)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    for (uint64_t i = 0; !rc && i < n; i++) {
        if (v[i].seq >= n) {
            rc = rt_error_set(err, RT_EINVAL, "%s: critical path segment %llu of %llu", rt_trace_path(g->t),
                              (unsigned long long)v[i].seq, (unsigned long long)n);
            break;
        }
        g->seg[n - 1 - v[i].seq] = v[i].s;
    }
    free(all);
    cp->seg = g->seg;
    cp->nseg = rc ? 0 : n;
    return rt__dg_agree(g, rc, err);
}

/* The critical path itself: its end, the walk back from it (marking g->onpath) and its segments.
 * *breakdown = 1 when the path's breakdown is still to add (cp_visit over the events, then
 * cp_finish); 0 when the graph has no events, and the path is complete as it is. Collective. */
static int cp_path(rt_depgraph *g, int *breakdown, rt_error *err)
{
    struct rt_critical_path *cp = &g->cp;
    struct cp_walk cw = {0};
    struct rt__dg_toks out = {0};
    *breakdown = 0;
    int rc = complete(g, err);
    if (rc)
        return rc;
    memset(cp, 0, sizeof *cp);
    free(g->onpath);
    g->onpath = calloc(g->total / 8 + 1, 1);
    if (!g->onpath)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    /* the end on the ranks held here, kept as the records came (complete: every one is there) */
    uint32_t r = g->end.rank;
    uint64_t j = r == RT_NONE ? 0 : g->end.index;
    cp->end_ps = r == RT_NONE ? 0 : g->end.t;
    int64_t v[2] = {r == RT_NONE ? INT64_MAX : -cp->end_ps, (int64_t)g->total};
    if ((rc = rt__dg_reduce(g, v, 1, 0, rc, err)) || (rc = rt__dg_reduce(g, v + 1, 1, 1, rc, err)))
        goto out;
    int64_t at = r != RT_NONE && -cp->end_ps == v[0] ? (int64_t)((uint64_t)r << IDX_BITS | j) : INT64_MAX;
    if ((rc = rt__dg_reduce(g, &at, 1, 0, rc, err)))
        goto out;
    if (at == INT64_MAX) { /* no events */
        cp->end_ps = 0;
        cp->end_rank = RT_NONE;
        g->have_cp = 1;
        goto out;
    }
    cp->end_ps = -v[0];
    cp->end_rank = (uint32_t)((uint64_t)at >> IDX_BITS);
    cp->end_index = (uint64_t)at & IDX_MASK;
    cw.limit = (uint64_t)v[1];
    /* Walks back along binding edges from the end, hopping to the process of each rank it reaches. */
    if (held(g, cp->end_rank)) {
        struct rt__dg_tok tok = {.rank = cp->end_rank, .index = cp->end_index};
        rc = cp_step(g, &cw, &tok, err);
        if (rc == WALK_HOP)
            rc = rt__dg_toks_push(&out, &tok) ? rt_error_set(err, RT_ENOMEM, "out of memory") : RT_OK;
    }
    if ((rc = rt__dg_walks(g, &out, cp_step, &cw, rc, err)) || (rc = cp_segments(g, &cw, err)))
        goto out;
    *breakdown = 1;
out:
    free(cw.v);
    return rc;
}

/* The breakdown of the path: the edge into event (r, j), if it is on the path, with the event's
 * context. */
static inline void cp_visit(const rt_depgraph *g, struct smap *m, rt_time_ps *act, const struct walker *w,
                            const struct rt_event *ev, uint64_t n, uint32_t r, uint64_t j)
{
    if (!marked(g->onpath, g->base[r] + j))
        return;
    const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
    int rem = remote_binds(x);
    rt_time_ps wgt = rem ? x->remote_ready - x->src_t : x->local_ready - t_prev(g, r, j);
    act[activity_of(x, rem, &w->c)] += wgt;
    add_groups(m, r, &w->c, rem, rem ? size_bucket(edge_bytes(w, ev, n, j)) : RT_NONE, wgt, 0);
}

/* The path's sums (@p act: the walk's activities) and rows over every process. Collective;
 * @p rc: this process already failed. */
static int cp_finish(rt_depgraph *g, struct smap *m, const rt_time_ps *act, int rc, rt_error *err)
{
    struct rt_critical_path *cp = &g->cp;
    for (int a = 0; a < RT_ACT_COUNT; a++)
        cp->activity_ps[a] += act[a];
    int64_t v[RT_ACT_COUNT + 2];
    v[0] = cp->length_ps;
    v[1] = (int64_t)cp->events;
    memcpy(v + 2, cp->activity_ps, sizeof cp->activity_ps);
    if ((rc = rt__dg_reduce(g, v, RT_ACT_COUNT + 2, 1, rc, err)))
        return rc;
    cp->length_ps = v[0];
    cp->events = (uint64_t)v[1];
    memcpy(cp->activity_ps, v + 2, sizeof cp->activity_ps);
    free(g->cp_share);
    if ((rc = shares_finish(g, m, 0, &g->cp_share, &cp->nshare, RT_OK, err)))
        return rc;
    cp->share = g->cp_share;
    g->have_cp = 1;
    return RT_OK;
}

/* ------------------------------------------------------------------ wait states */

static rt_time_ps overlap(rt_time_ps lo, rt_time_ps hi, rt_time_ps a, rt_time_ps b)
{
    lo = lo > a ? lo : a;
    hi = hi < b ? hi : b;
    return hi > lo ? hi - lo : 0;
}

/* Blames the wait [a, b] of an event on the ranks of the critical path that ends at its remote
 * source: each rank gets the part of [a, b] its binding edges cover (a transfer counts for its
 * sender). The walk (tok: where it is, kind, a, b, covered so far) stops at time a, or after
 * WALK_CAP steps, when the rest goes to the rank it stopped on. */
static int blame_step(rt_depgraph *g, void *ctx, struct rt__dg_tok *tok, rt_error *err)
{
    struct smap *m = ctx;
    uint8_t kind = (uint8_t)tok->kind;
    uint32_t r = tok->rank;
    uint64_t j = tok->index;
    rt_time_ps a = tok->a, b = tok->b;
    (void)err;
    for (; tok->steps < WALK_CAP; tok->steps++) {
        const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
        rt_time_ps t = rec_t(x);
        if (t <= a)
            return WALK_DONE;
        if (remote_binds(x)) {
            uint32_t sr = src_rank(x);
            uint64_t sj = src_index(x);
            rt_time_ps o = overlap(x->src_t, t, a, b);
            smap_add(m, RT_GROUP_BLAME, kind, sr, RT_NONE, 0, o, 0);
            tok->covered += o;
            r = sr;
            j = sj;
            if (!held(g, r)) {
                tok->rank = r;
                tok->index = j;
                tok->steps++;
                return WALK_HOP;
            }
        } else {
            rt_time_ps o = overlap(t_prev(g, r, j), t, a, b);
            smap_add(m, RT_GROUP_BLAME, kind, r, RT_NONE, 0, o, 0);
            tok->covered += o;
            if (j == 0)
                return WALK_DONE;
            j--;
        }
    }
    smap_add(m, RT_GROUP_BLAME, kind, r, RT_NONE, 0, b - a - tok->covered, 0);
    return WALK_DONE;
}

static uint8_t wait_kind(const rt_trace *t, const struct rt__dep_rec *x, const struct rt_event *ev, uint64_t n,
                         uint64_t j, const struct ctx *c)
{
    const struct rt_event *e = &ev[j];
    if (src_kind(x) == RT_DEP_COLLECTIVE) {
        if (e->kind == RT_EV_COLL_END && e->ref < n && ev[e->ref].aux == RT_COLL_BARRIER)
            return RT_WAIT_BARRIER;
        return RT_WAIT_COLLECTIVE;
    }
    if (c->call_region != RT_NONE && c->call_region < rt_trace_regions(t)) {
        const char *name = rt_trace_region(t, c->call_region)->name;
        if (name && strncmp(name, "MPI_Wait", 8) == 0)
            return RT_WAIT_WAITALL;
    }
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV)
        return RT_WAIT_LATE_SENDER;
    return RT_WAIT_LATE_RECEIVER;
}

/* What one walk over the events adds up, per result due (NULL: not this time): the breakdowns of
 * up to two critical paths, the wait states of one graph, the comparison of two. Each result has
 * its own rows; rt_depgraph_analyze asks for all of them in one walk, the other functions for
 * theirs alone, so both give the same results. */
struct walk {
    rt_depgraph *cp[2];
    struct smap cpm[2];
    rt_time_ps cp_act[2][RT_ACT_COUNT];
    rt_depgraph *ws;
    struct smap wsm;
    rt_time_ps ws_total[RT_WAIT_COUNT];
    uint64_t ws_count[RT_WAIT_COUNT];
    struct rt__dg_toks wsout;    /* blame walks that went on to ranks held elsewhere */
    rt_depgraph *ca, *cb;        /* the comparison of ca and cb */
    struct rt_depgraph_diff *d;
    struct smap cm;
    rt_time_ps len_a_cpb;        /* len_A(B's critical path) */
    /* The comparison's rows are summed here first (integers: the order of the additions does
     * not matter) and added to its map once per run of events in the same call site, once per
     * run in the same region instance, once per rank and once per walk (the size rows), instead
     * of a map look-up per edge. */
    rt_time_ps rank_on, rank_off;  /* the rank's row, added after its events */
    struct cmp_run {
        int open;                  /* an event added to it: its row exists */
        uint32_t id, region;
        uint64_t instance;
        rt_time_ps on, off;
    } run[2];                      /* the call-site row, the region row */
    rt_time_ps size_v[SIZE_ROWS][2]; /* per size row (size_row): on, off */
    uint8_t size_used[SIZE_ROWS];
};

/* Adds run @p i's values to its row and closes it. */
static void cmp_run_flush(struct walk *k, int i)
{
    static const uint8_t group[2] = {RT_GROUP_CALLSITE, RT_GROUP_REGION};
    struct cmp_run *u = &k->run[i];
    if (!u->open)
        return;
    smap_add(&k->cm, group[i], 0, u->id, u->region, u->instance, u->on, u->off);
    u->open = 0;
}

/* Adds an event's values to run @p i, for row (id, region, instance). */
static inline void cmp_run_add(struct walk *k, int i, uint32_t id, uint32_t region, uint64_t inst, rt_time_ps on,
                               rt_time_ps off)
{
    struct cmp_run *u = &k->run[i];
    if (u->open && (u->id != id || u->region != region || u->instance != inst))
        cmp_run_flush(k, i);
    if (!u->open)
        *u = (struct cmp_run){1, id, region, inst, 0, 0};
    u->on += on;
    u->off += off;
}

/* Adds the size rows' values to the map (once per walk). */
static void cmp_sizes_flush(struct walk *k)
{
    for (uint32_t i = 0; i < SIZE_ROWS; i++)
        if (k->size_used[i])
            smap_add(&k->cm, RT_GROUP_SIZE, 0, i == SIZE_ROWS - 1 ? RT_NONE : i, RT_NONE, 0, k->size_v[i][0],
                     k->size_v[i][1]);
}

/* The wait, if any, at event (r, j) of k->ws, and the walk that blames it. */
static int ws_visit(struct walk *k, const struct walker *w, const struct rt_event *ev, uint64_t n, uint32_t r,
                    uint64_t j, rt_error *err)
{
    rt_depgraph *g = k->ws;
    const struct rt__dep_rec xv = rec_at(g, r, j), *x = &xv;
    /* A remote source on the rank itself (a rendezvous side that posted last) is its own
     * transfer, not a wait for another rank. */
    if (!remote_binds(x) || src_rank(x) == r || !src_ok(g, x))
        return RT_OK;
    uint32_t sr = src_rank(x);
    uint64_t sj = src_index(x);
    rt_time_ps wt = x->remote_ready - x->local_ready;
    uint8_t kind = wait_kind(g->t, x, ev, n, j, &w->c);
    k->ws_total[kind] += wt;
    k->ws_count[kind]++;
    smap_add(&k->wsm, RT_GROUP_RANK, kind, r, RT_NONE, 0, wt, 1);
    smap_add(&k->wsm, RT_GROUP_CALLSITE, kind, w->c.callsite, w->c.call_region, 0, wt, 1);
    smap_add(&k->wsm, RT_GROUP_CAUSE, kind, sr, RT_NONE, 0, wt, 1);
    /* the remote edge into the waiting event is the walk's first step */
    rt_time_ps covered = overlap(x->src_t, x->remote_ready, x->local_ready, x->remote_ready);
    smap_add(&k->wsm, RT_GROUP_BLAME, kind, sr, RT_NONE, 0, covered, 0);
    struct rt__dg_tok tok = {.rank = sr, .kind = kind, .index = sj, .a = x->local_ready, .b = x->remote_ready,
                             .covered = covered};
    int s = held(g, sr) ? blame_step(g, &k->wsm, &tok, err) : WALK_HOP;
    if (s == WALK_HOP && rt__dg_toks_push(&k->wsout, &tok))
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    return RT_OK;
}

/* The walks that went on elsewhere, then the sums and rows over every process. Collective. */
static int ws_finish(struct walk *k, int rc, rt_error *err)
{
    rt_depgraph *g = k->ws;
    struct smap *m = &k->wsm;
    struct rt_wait_states *ws = &g->ws;
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        ws->total_ps[i] += k->ws_total[i];
        ws->count[i] += k->ws_count[i];
    }
    if ((rc = rt__dg_walks(g, &k->wsout, blame_step, m, rc, err)))
        return rc;
    int64_t v[2 * RT_WAIT_COUNT];
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        v[i] = ws->total_ps[i];
        v[RT_WAIT_COUNT + i] = (int64_t)ws->count[i];
    }
    if ((rc = rt__dg_reduce(g, v, 2 * RT_WAIT_COUNT, 1, rc, err)))
        return rc;
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        ws->total_ps[i] = v[i];
        ws->count[i] = (uint64_t)v[RT_WAIT_COUNT + i];
    }
    free(g->ws_share);
    if ((rc = shares_finish(g, m, 0, &g->ws_share, &ws->nshare, RT_OK, err)))
        return rc;
    ws->share = g->ws_share;
    g->have_ws = 1;
    return RT_OK;
}

/* ------------------------------------------------------------------ two timings */

/* The edges into event (r, j) in both timings: δ = w_B - w_A per edge, on or off B's path. */
static inline void cmp_visit(struct walk *k, const struct walker *w, const struct rt_event *ev, uint64_t n,
                             uint32_t r, uint64_t j)
{
    const rt_depgraph *A = k->ca, *B = k->cb;
    struct rt_depgraph_diff *d = k->d;
    const struct rt__dep_rec av = rec_at(A, r, j), bv = rec_at(B, r, j), *a = &av, *b = &bv;
    int on = marked(B->onpath, B->base[r] + j), brem = remote_binds(b);
    int arem = src_kind(a) != RT_DEP_NONE, hasb = src_kind(b) != RT_DEP_NONE;
    uint32_t size = RT_NONE;
    /* The edges into the event share its rank, call site and region rows: their values are
     * summed first and added once (integers: the order does not matter); the size rows differ
     * (none for the local edge). on[0..1]/off[0..1]: local, remote. */
    rt_time_ps on_v[2] = {0, 0}, off_v[2] = {0, 0};
    int any_remote = 0;
    /* local edge */
    rt_time_ps wa = a->local_ready - t_prev(A, r, j), wb = b->local_ready - t_prev(B, r, j);
    rt_time_ps dl = wb - wa;
    d->edges++;
    if (on && !brem) {
        k->len_a_cpb += wa;
        on_v[0] = dl;
    } else {
        off_v[0] = dl;
    }
    d->injected += dl;
    d->injected_negative += dl < 0 ? dl : 0;
    if (hasb || arem)
        size = size_bucket(edge_bytes(w, ev, n, j));
    /* B's remote edge */
    if (hasb) {
        uint32_t sr = src_rank(b);
        uint64_t sj = src_index(b);
        rt_time_ps wbr = b->remote_ready - b->src_t, war;
        if (arem && src_rank(a) == sr && src_index(a) == sj)
            war = a->remote_ready - a->src_t;
        else
            war = rec_t(a) - t_of(A, sr, sj); /* tight in A */
        rt_time_ps dr = wbr - war;
        d->edges++;
        d->injected += dr;
        d->injected_negative += dr < 0 ? dr : 0;
        any_remote = 1;
        if (on && brem) {
            k->len_a_cpb += war;
            on_v[1] += dr;
        } else {
            off_v[1] += dr;
        }
    }
    /* A's remote edge where B has another source (or none): off B's path */
    if (arem && !(hasb && src_rank(a) == src_rank(b) && src_index(a) == src_index(b))) {
        uint32_t sr = src_rank(a);
        uint64_t sj = src_index(a);
        rt_time_ps da = (rec_t(b) - t_of(B, sr, sj)) - (a->remote_ready - a->src_t);
        d->source_changed++;
        d->edges++;
        d->injected += da;
        d->injected_negative += da < 0 ? da : 0;
        any_remote = 1;
        off_v[1] += da;
    } else if (hasb && !arem) {
        d->source_changed++;
    }
    rt_time_ps on_all = on_v[0] + on_v[1], off_all = off_v[0] + off_v[1];
    k->rank_on += on_all;
    k->rank_off += off_all;
    cmp_run_add(k, 0, w->c.callsite, w->c.call_region, 0, on_all, off_all);
    cmp_run_add(k, 1, RT_NONE, w->c.region, w->c.region == RT_NONE ? 0 : w->c.instance, on_all, off_all);
    uint32_t local = size_row(RT_NONE);
    k->size_v[local][0] += on_v[0];
    k->size_v[local][1] += off_v[0];
    k->size_used[local] = 1;
    if (any_remote) {
        uint32_t i = size_row(size);
        k->size_v[i][0] += on_v[1];
        k->size_v[i][1] += off_v[1];
        k->size_used[i] = 1;
    }
}

/* The comparison's sums and rows over every process; both critical paths are complete. Collective. */
static int cmp_finish(struct walk *k, int rc, rt_error *err)
{
    const rt_depgraph *A = k->ca, *B = k->cb;
    struct rt_depgraph_diff *d = k->d;
    /* len_A(B's critical path), edges, injected, source_changed, injected_negative */
    int64_t v[5] = {0};
    if (d) {
        v[0] = k->len_a_cpb;
        v[1] = (int64_t)d->edges;
        v[2] = d->injected;
        v[3] = (int64_t)d->source_changed;
        v[4] = d->injected_negative;
    }
    if ((rc = rt__dg_reduce(A, v, 5, 1, rc, err)))
        return rc;
    d->injected_negative = v[4];
    d->edges = (uint64_t)v[1];
    d->injected = v[2];
    d->source_changed = (uint64_t)v[3];
    d->accumulated = B->cp.length_ps - v[0];
    d->slack = A->cp.length_ps - v[0];
    d->absorbed = d->injected - d->accumulated;
    d->residual = (d->end_b - d->end_a) - (d->accumulated - d->slack);
    return shares_finish(A, &k->cm, 1, &d->share, &d->nshare, RT_OK, err);
}

/* ------------------------------------------------------------------ the walk over the events */

/* One pass over the events of ranks [lo, hi), with their context, for every result due. */
static int walk_range(struct walk *k, const rt_trace *t, uint32_t lo, uint32_t hi, rt_error *err)
{
    struct walker w;
    int rc = walker_init(&w, t) ? rt_error_set(err, RT_ENOMEM, "out of memory") : RT_OK;
    for (uint32_t r = lo; r < hi && !rc; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        walker_rank(&w, r);
        k->rank_on = k->rank_off = 0;
        for (uint64_t j = 0; j < n && !rc; j++) {
            for (int i = 0; i < 2; i++)
                if (k->cp[i])
                    cp_visit(k->cp[i], &k->cpm[i], k->cp_act[i], &w, ev, n, r, j);
            if (k->ws)
                rc = ws_visit(k, &w, ev, n, r, j, err);
            if (k->ca)
                cmp_visit(k, &w, ev, n, r, j);
            if (walker_apply(&w, ev, n, j))
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        }
        if (k->ca && n) {
            cmp_run_flush(k, 0);
            cmp_run_flush(k, 1);
            smap_add(&k->cm, RT_GROUP_RANK, 0, r, RT_NONE, 0, k->rank_on, k->rank_off);
        }
    }
    if (k->ca)
        cmp_sizes_flush(k);
    walker_free(&w);
    return rc;
}

/* One range of ranks of the walk on several threads (see "threads" above). */
struct walk_thread {
    struct walk k;
    struct rt_depgraph_diff d; /* the comparison's sums */
    const rt_trace *t;
    uint32_t lo, hi;
    int rc;
    rt_error err;
};

static void *walk_thread_main(void *arg)
{
    struct walk_thread *w = arg;
    w->rc = walk_range(&w->k, w->t, w->lo, w->hi, &w->err);
    return NULL;
}

/* Adds every row of @p src to @p dst. */
static void smap_merge(struct smap *dst, const struct smap *src)
{
    for (uint64_t i = 0; i < src->cap; i++) {
        const struct rt_dep_share *e = &src->v[i];
        if (e->group != 0xff)
            smap_add(dst, e->group, e->wait, e->id, e->region, e->instance, e->value, e->value2);
    }
    dst->oom |= src->oom;
}

/* Adds what a thread's walk found to @p k's. */
static int walk_merge(struct walk *k, const struct walk_thread *w)
{
    for (int i = 0; i < 2; i++) {
        smap_merge(&k->cpm[i], &w->k.cpm[i]);
        for (int a = 0; a < RT_ACT_COUNT; a++)
            k->cp_act[i][a] += w->k.cp_act[i][a];
    }
    smap_merge(&k->wsm, &w->k.wsm);
    for (int i = 0; i < RT_WAIT_COUNT; i++) {
        k->ws_total[i] += w->k.ws_total[i];
        k->ws_count[i] += w->k.ws_count[i];
    }
    for (uint64_t i = 0; i < w->k.wsout.n; i++)
        if (rt__dg_toks_push(&k->wsout, &w->k.wsout.v[i]))
            return RT_ENOMEM;
    smap_merge(&k->cm, &w->k.cm);
    k->len_a_cpb += w->k.len_a_cpb;
    if (k->d) {
        k->d->edges += w->d.edges;
        k->d->source_changed += w->d.source_changed;
        k->d->injected += w->d.injected;
        k->d->injected_negative += w->d.injected_negative;
    }
    return RT_OK;
}

/* One pass over the events of the ranks held here (of graph @p g's split), for every result due. */
static int walk_events(struct walk *k, const rt_trace *t, const rt_depgraph *g, rt_error *err)
{
    uint32_t nt = par_threads(g), bounds[PAR_MAX_THREADS + 1];
    if (nt <= 1)
        return walk_range(k, t, g->lo, g->hi, err);
    struct walk_thread *w = calloc(nt, sizeof *w);
    if (!w)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    par_split(g, nt, bounds);
    for (uint32_t i = 0; i < nt; i++) {
        w[i].k = (struct walk){.cp = {k->cp[0], k->cp[1]}, .ws = k->ws, .ca = k->ca, .cb = k->cb,
                               .d = k->d ? &w[i].d : NULL};
        w[i].t = t;
        w[i].lo = bounds[i];
        w[i].hi = bounds[i + 1];
    }
    par_run(walk_thread_main, w, sizeof *w, nt);
    int rc = RT_OK;
    for (uint32_t i = 0; i < nt; i++) {
        if (!rc && w[i].rc) { /* the first range's error: what one thread would have met first */
            rc = w[i].rc;
            if (err)
                *err = w[i].err;
        }
        if (!rc && walk_merge(k, &w[i]))
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        for (int c = 0; c < 2; c++)
            free(w[i].k.cpm[c].v);
        free(w[i].k.wsm.v);
        free(w[i].k.wsout.v);
        free(w[i].k.cm.v);
    }
    free(w);
    return rc;
}

/* Completes every result the walk added to, in the same order on every process. Collective;
 * @p rc: this process already failed. */
static int walk_finish(struct walk *k, int rc, rt_error *err)
{
    for (int i = 0; i < 2; i++)
        if (k->cp[i])
            rc = cp_finish(k->cp[i], &k->cpm[i], k->cp_act[i], rc, err);
    if (k->ws)
        rc = ws_finish(k, rc, err);
    if (k->ca)
        rc = cmp_finish(k, rc, err);
    for (int i = 0; i < 2; i++)
        free(k->cpm[i].v);
    free(k->wsm.v);
    free(k->wsout.v);
    free(k->cm.v);
    return rc;
}

/* The results due of @p a and @p b (NULL: none), in one walk over the events: with @p paths, the
 * critical paths of both; the wait states of @p ws (NULL, a or b); with @p out, the comparison of
 * a and b. Results already there are not computed again. Collective. */
static int analyze(rt_depgraph *a, rt_depgraph *b, int paths, rt_depgraph *ws, struct rt_depgraph_diff **out,
                   rt_error *err)
{
    struct walk k = {0};
    int rc = RT_OK, need;
    if (out) {
        *out = NULL;
        if (a->nranks != b->nranks || a->lo != b->lo || a->hi != b->hi || (a->t != b->t && a->total != b->total))
            rc = rt_error_set(err, RT_EINVAL, "the two timings are not of the same trace");
        for (uint32_t r = a->lo; r < a->hi && !rc; r++)
            if (a->n[r] != b->n[r])
                rc = rt_error_set(err, RT_EINVAL, "the two timings are not of the same trace (rank %u)", r);
        if ((rc = rt__dg_agree(a, rc, err)))
            return rc;
    }
    /* one walk goes over one trace's events: a's path over its own when b has another */
    if (b && a->t != b->t && paths && !a->have_cp && (rc = analyze(a, NULL, 1, NULL, NULL, err)))
        return rc;
    rt_depgraph *g[2] = {a, b != a ? b : NULL};
    for (int i = 0; i < 2 && paths; i++) {
        if (!g[i] || g[i]->have_cp)
            continue;
        if ((rc = cp_path(g[i], &need, err)))
            return rc;
        k.cp[i] = need ? g[i] : NULL;
    }
    if (ws && !ws->have_ws) {
        if ((rc = complete(ws, err)))
            return rc;
        memset(&ws->ws, 0, sizeof ws->ws);
        k.ws = ws;
    }
    if (out) {
        if ((rc = rt__dg_fetch(a, b, err)) || (rc = rt__dg_fetch(b, a, err)))
            return rc;
        k.ca = a;
        k.cb = b;
        k.d = calloc(1, sizeof *k.d);
        if (!k.d)
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        else
            k.d->end_a = a->cp.end_ps, k.d->end_b = b->cp.end_ps;
    }
    if (!rc && (k.cp[0] || k.cp[1] || k.ws || k.ca))
        rc = walk_events(&k, (b ? b : a)->t, a, err);
    if ((rc = walk_finish(&k, rc, err)) == RT_OK && out) {
        *out = k.d;
        k.d = NULL;
    }
    rt_depgraph_diff_destroy(k.d);
    return rc;
}

int rt_depgraph_critical_path(rt_depgraph *g, const struct rt_critical_path **cp, rt_error *err)
{
    int rc = g->have_cp ? RT_OK : analyze(g, NULL, 1, NULL, NULL, err);
    if (rc == RT_OK)
        *cp = &g->cp;
    return rc;
}

int rt_depgraph_wait_states(rt_depgraph *g, const struct rt_wait_states **ws, rt_error *err)
{
    int rc = g->have_ws ? RT_OK : analyze(g, NULL, 0, g, NULL, err);
    if (rc == RT_OK)
        *ws = &g->ws;
    return rc;
}

int rt_depgraph_compare(rt_depgraph *A, rt_depgraph *B, struct rt_depgraph_diff **out, rt_error *err)
{
    return analyze(A, B, 1, NULL, out, err);
}

int rt_depgraph_analyze(rt_depgraph *a, rt_depgraph *b, struct rt_depgraph_diff **diff, rt_error *err)
{
    if (diff && !b)
        return rt_error_set(err, RT_EINVAL, "dependency graph: a comparison needs two timings");
    return analyze(a, b, 1, b ? b : a, diff, err);
}

void rt_depgraph_diff_destroy(struct rt_depgraph_diff *d)
{
    if (!d)
        return;
    free(d->share);
    free(d);
}

/* ------------------------------------------------------------------ names */

const char *rt_activity_name(int a)
{
    static const char *const names[] = {"compute", "cpu_overhead", "transfer", "collective", "waiting"};
    return a >= 0 && a < RT_ACT_COUNT ? names[a] : "?";
}

const char *rt_wait_kind_name(int k)
{
    static const char *const names[] = {"late_sender", "late_receiver", "collective", "barrier", "waitall"};
    return k >= 0 && k < RT_WAIT_COUNT ? names[k] : "?";
}

const char *rt_group_name(int g)
{
    static const char *const names[] = {"rank", "callsite", "region", "activity", "size", "cause", "blame"};
    return g >= 0 && g < RT_GROUP_COUNT ? names[g] : "?";
}
