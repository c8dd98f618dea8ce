/* SPDX-License-Identifier: MIT */
/* The dependency graph of one timing: its records, collected from the replay or measured from
 * the trace, their checks, and the one walk over the events that adds up every result asked for.
 * The results' own parts are in depgraph_path.c (the critical path), depgraph_wait.c (wait
 * states) and depgraph_compare.c (the absorbed/accumulated split of the deviations between two
 * timings), the grouping of edges into breakdown rows in depgraph_group.c. With a part
 * (rt_depgraph_create_part) each process holds its own ranks and the steps that need other
 * ranks' records go through the collective steps of depgraph_part.h. */
#define _DEFAULT_SOURCE /* sysconf, madvise, MADV_POPULATE_WRITE */
#include "depgraph_compare.h"
#include "depgraph_internal.h"
#include "depgraph_path.h"
#include "depgraph_wait.h"
#include "sort.h"
#include "threads_env.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
    return g->dp.p ? 1
                   : rt__threads_for("RETIME_ANALYZE_THREADS", g->total, PAR_MIN_EVENTS, PAR_MAX_THREADS, g->dp.hi - g->dp.lo);
}

/* Ranks [bounds[i], bounds[i + 1]) for thread i < n: about total / n events each, one rank at least. */
static void par_split(const rt_depgraph *g, uint32_t n, uint32_t *bounds)
{
    uint64_t per = g->total / n + 1, acc = 0;
    uint32_t r = g->dp.lo;
    for (uint32_t i = 0; i < n; i++) {
        bounds[i] = r;
        while (r < g->dp.hi && (i == n - 1 || r == bounds[i] || acc + g->n[r] <= per * (i + 1)))
            acc += g->n[r++];
    }
    bounds[n] = g->dp.hi;
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

/* ------------------------------------------------------------------ records */

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
    g->end.rank = RT_NONE;
    g->win_begin = INT64_MIN;
    uint32_t nranks = rt_trace_ranks(trace);
    size_t nr = nranks ? nranks : 1;
    g->base = calloc(nr, sizeof *g->base);
    g->n = calloc(nr, sizeof *g->n);
    g->seen = calloc(nr, sizeof *g->seen);
    int rc = rt__dg_part_init(&g->dp, trace, part, g->n, err); /* the ranks held here */
    if (!rc && (!g->base || !g->n || !g->seen))
        goto oom;
    for (uint32_t r = g->dp.lo; r < g->dp.hi && !rc; r++) {
        rt_trace_events(trace, r, &g->n[r]);
        g->base[r] = g->total;
        if (g->n[r] > IDX_MASK || g->total > UINT64_MAX - g->n[r])
            rc = rt_error_set(err, RT_ERANGE, "%s: rank %u has %llu events, more than a dependency graph holds",
                              rt_trace_path(trace), r, (unsigned long long)g->n[r]);
        g->total += g->n[r];
    }
    if (!rc && nranks > NO_RANK)
        rc = rt_error_set(err, RT_ERANGE, "%s: %u ranks, more than a dependency graph holds (%llu)",
                          rt_trace_path(trace), nranks, (unsigned long long)NO_RANK);
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
    free(g->mbind);
    free(g->mbind_rec);
    free(g->seg);
    free(g->cp_share);
    free(g->ws_share);
    rt__dg_part_free(&g->dp);
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
    /* a collective leave whose measured binder is another member: kept for rt_depgraph_measured */
    if (kind == RT_DEP_COLLECTIVE && dep->msrc_rank < NO_RANK && dep->msrc_index <= IDX_MASK &&
        (dep->msrc_rank != sr || dep->msrc_index != si)) {
        if (g->nmbind == g->capmbind) {
            size_t cap = g->capmbind ? 2 * g->capmbind : 1024;
            struct rt__mbind *v = realloc(g->mbind, cap * sizeof *v);
            if (!v) {
                g->mbind_nomem = 1;
                return;
            }
            g->mbind = v;
            g->capmbind = cap;
        }
        g->mbind[g->nmbind++] = (struct rt__mbind){(uint64_t)rank << IDX_BITS | index,
                                                   kind << 62 | (uint64_t)dep->msrc_rank << IDX_BITS | dep->msrc_index};
        g->mbind_sorted = 0;
    }
}

void rt_depgraph_observer(rt_depgraph *g, struct rt_replay_observer *obs)
{
    memset(obs, 0, sizeof *obs);
    obs->ud = g;
    obs->on_dep = rt_depgraph_on_dep;
}

/* The time of event (r, j) held here, as the distributed steps answer other processes. */
static rt_time_ps time_of(const void *g, uint32_t r, uint64_t j) { return time_at(g, r, j); }

/* Fetches the times of the remote sources of @p g's records, and of @p h's (NULL: none; a
 * graph of the same split), that other processes hold (rt__dg_fetch). */
static int fetch(rt_depgraph *g, const rt_depgraph *h, rt_error *err)
{
    /* a measured graph's collective leaves have their measured binders as sources besides */
    const rt_depgraph *m = !g->rec ? g->shape : h && !h->rec ? h->shape : NULL;
    return rt__dg_fetch(&g->dp, edges_of(g), g->total, h ? edges_of(h) : NULL, h ? h->total : 0,
                        m ? m->mbind_rec : NULL, m ? m->nmbind : 0, time_of, g, err);
}

/* The times of the remote sources that were not recorded yet when their dependents were (the
 * replay reports ranks in time order only loosely) or are held by another process (fetched by
 * fetch, which must have run). A source that does not exist stays unfilled: the checks name it. */
static void fill_sources(rt_depgraph *g)
{
    for (uint32_t r = g->dp.lo; r < g->dp.hi && g->unfilled; r++)
        for (uint64_t j = 0; j < g->seen[r] && g->unfilled; j++) {
            struct rt__dep_rec *x = R(g, r, j);
            if (src_kind(x) == RT_DEP_NONE || x->src_t != NO_TIME || src_rank(x) >= g->dp.nranks)
                continue;
            uint32_t sr = src_rank(x);
            uint64_t si = src_index(x);
            rt_time_ps t = held(g, sr) ? (si < g->seen[sr] ? rec_t(R(g, sr, si)) : NO_TIME) : rt__dg_ghost(&g->dp, sr, si);
            if (t != NO_TIME) {
                x->src_t = t;
                g->unfilled--;
            }
        }
}

/* The contract on the ranks held here, once the remote sources' times are fetched. */
int rt__dg_check_held(const rt_depgraph *g, rt_error *err)
{
    const char *path = rt_trace_path(g->t);
    if (g->disorder)
        return rt_error_set(err, RT_EINVAL, "%s: dependency record for rank %u event %llu out of program order or range",
                            path, g->disorder_rank, (unsigned long long)g->disorder_index);
    for (uint32_t r = g->dp.lo; r < g->dp.hi; r++) {
        if (g->seen[r] != g->n[r])
            return rt_error_set(err, RT_EINVAL, "%s: rank %u: %llu dependency records for %llu events", path, r,
                                (unsigned long long)g->seen[r], (unsigned long long)g->n[r]);
        struct rank_recs v;
        rank_recs_of(&v, g, r);
        rt_time_ps tp = 0; /* t_prev(g, r, j) */
        for (uint64_t j = 0, n = g->n[r]; j < n; j++) {
            const struct rt__dep_rec xv = rank_rec(&v, j, tp), *x = &xv;
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
            tp = rec_t(x); /* (an event's time is its record's: time_at) */
        }
    }
    return RT_OK;
}

/* The graphs' const functions fill the cache of remote sources' times (the ghosts of g->dp) in
 * a distributed analysis: the graph was allocated by rt_depgraph_create_part, never defined
 * const. */
void rt_depgraph_cut(rt_depgraph *g, const uint64_t *cut_event)
{
    for (uint32_t r = g->dp.lo; cut_event && r < g->dp.hi; r++)
        if (cut_event[r] < g->n[r]) /* the rank's records (base[r] on) stop there; the rest is unused */
            g->n[r] = cut_event[r];
}

int rt_depgraph_check(const rt_depgraph *g, rt_error *err)
{
    int rc = fetch((rt_depgraph *)g, NULL, err);
    if (!rc)
        fill_sources((rt_depgraph *)g);
    if (!rc && !(rc = rt__dg_agree(&g->dp, rt__dg_check_held(g, err), err)))
        ((rt_depgraph *)g)->complete_ok = 1; /* rt__dg_check_held is the stricter test */
    return rc;
}

/* The finer points of the contract are rt__dg_check_held's. Once it passed (on every process,
 * as rt__dg_agree makes it) the records and fetched times stand until a new record comes, so the
 * later results skip it. */
int rt__dg_complete(rt_depgraph *g, rt_error *err)
{
    if (g->complete_ok)
        return RT_OK;
    int rc = fetch(g, NULL, err);
    if (rc)
        return rc;
    fill_sources(g);
    int bad = g->disorder;
    for (uint32_t r = g->dp.lo; r < g->dp.hi && !bad; r++)
        bad = g->seen[r] != g->n[r];
    for (uint64_t i = 0; i < g->total && !bad; i++)
        bad = !src_ok(g, &edges_of(g)[i]);
    if (!(rc = rt__dg_agree(&g->dp, bad ? rt__dg_check_held(g, err) : RT_OK, err)))
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

int rt_depgraph_gather(const rt_depgraph *g, const void *rows, size_t len, void **all, size_t *alllen, int rc,
                       rt_error *err)
{
    if (g->dp.p)
        return rt__dg_gather(&g->dp, rows, len, all, alllen, rc, err);
    *all = NULL;
    *alllen = 0;
    if (rc)
        return rc;
    if (!(*all = malloc(len ? len : 1)))
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    if (len)
        memcpy(*all, rows, len);
    *alllen = len;
    return RT_OK;
}

rt_time_ps rt_depgraph_end(const rt_depgraph *g)
{
    rt_time_ps end = g->end.rank != RT_NONE && g->end.t > 0 ? g->end.t : 0; /* records not there count 0 */
    int64_t v = -end; /* the largest over the processes */
    rt_error err;
    return rt__dg_reduce(&g->dp, &v, 1, 0, RT_OK, &err) ? 0 : -v;
}

static int mbind_less(const struct rt__mbind *a, const struct rt__mbind *b) { return a->key < b->key; }
RT_SORT_DEFINE(mbind_sort, struct rt__mbind, mbind_less) /* (keys are distinct events) */

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
            struct rt__dep_rec xm = {0, 0, 0, mbind_src(s, r, j)}; /* a collective's: its measured binder */
            uint32_t sr = src_rank(&xm);
            uint64_t sj = src_index(&xm);
            tu[j] = held(g, sr) ? ev_ps(g, sr, sj) : rt__dg_ghost(&g->dp, sr, sj);
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
    int rc = rt__dg_complete((rt_depgraph *)s, err);
    if (rc)
        return rc;
    if (!s->rec) /* a measured graph's sources are another graph's: no measured graph of it */
        return rt_error_set(err, RT_EINVAL, "%s: the structure graph must be a replay's", rt_trace_path(trace));
    if (s->mbind_nomem)
        return rt_error_set(err, RT_ENOMEM, "%s: out of memory", rt_trace_path(trace));
    if (!s->mbind_sorted) { /* the records came in the replay's order: by event from now on */
        rt_depgraph *w = (rt_depgraph *)s;
        free(w->mbind_rec);
        w->mbind_rec = malloc((w->nmbind ? w->nmbind : 1) * sizeof *w->mbind_rec);
        rc = rt__dg_agree(&s->dp, w->mbind_rec ? RT_OK : rt_error_set(err, RT_ENOMEM, "out of memory"), err);
        if (rc)
            return rc;
        /* (the sort's room: half the entries, 16 bytes each, in the records' 32 written after it) */
        mbind_sort(w->mbind, (struct rt__mbind *)w->mbind_rec, w->nmbind);
        for (size_t i = 0; i < w->nmbind; i++)
            w->mbind_rec[i] = (struct rt__dep_rec){NO_TIME, 0, 0, w->mbind[i].src};
        w->mbind_sorted = 1;
    }
    rc = create(trace, s->dp.p, 0, &g, err);
    if (!rc && (g->total != s->total || g->dp.nranks != s->dp.nranks || g->dp.lo != s->dp.lo || g->dp.hi != s->dp.hi))
        rc = rt_error_set(err, RT_EINVAL, "%s: the structure graph belongs to another trace", rt_trace_path(trace));
    if ((rc = rt__dg_agree(&s->dp, rc, err))) {
        rt_depgraph_destroy(g);
        return rc;
    }
    int64_t first = INT64_MAX; /* the earliest event of all ranks */
    for (uint32_t r = g->dp.lo; r < g->dp.hi; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(trace, r, &n);
        if (n)
            first = ev[0].time < first ? ev[0].time : first;
    }
    if ((rc = rt__dg_reduce(&g->dp, &first, 1, 0, RT_OK, err)))
        goto fail;
    /* The measured times are the trace's (ev_ps; under a split, fetch answers other processes'
     * questions from them). */
    g->shape = s;
    g->first = first;
    g->evs = calloc(g->dp.nranks ? g->dp.nranks : 1, sizeof *g->evs);
    g->tu = g->total <= SIZE_MAX / sizeof *g->tu ? malloc((g->total ? g->total : 1) * sizeof *g->tu) : NULL;
    if ((rc = rt__dg_agree(&g->dp, g->evs && g->tu ? RT_OK : rt_error_set(err, RT_ENOMEM, "out of memory"), err)))
        goto fail;
    for (uint32_t r = g->dp.lo; r < g->dp.hi; r++) {
        uint64_t n;
        g->evs[r] = rt_trace_events(trace, r, &n);
        g->n[r] = s->n[r] < n ? s->n[r] : n; /* the structure's events: fewer after rt_depgraph_cut */
        g->seen[r] = g->n[r];
    }
    /* the sources' times held by other processes: the structure's, and the measured binders' */
    if ((rc = fetch(g, NULL, err)))
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
    if ((rc = rt__dg_reduce(&g->dp, v, 1, 1, RT_OK, err)) || (rc = rt__dg_reduce(&g->dp, v + 1, 1, 0, RT_OK, err)))
        goto fail;
    int64_t at = inf.violations && -inf.worst_ps == v[1] ? (int64_t)((uint64_t)inf.worst_rank << IDX_BITS | inf.worst_index)
                                                          : INT64_MAX;
    if ((rc = rt__dg_reduce(&g->dp, &at, 1, 0, RT_OK, err)))
        goto fail;
    inf.violations = (uint64_t)v[0];
    if (inf.violations) {
        inf.worst_ps = -v[1];
        inf.worst_rank = (uint32_t)((uint64_t)at >> IDX_BITS);
        inf.worst_index = (uint64_t)at & IDX_MASK;
    }
    if (info)
        *info = inf;
    /* every record is there, with the sources of s, which passed rt__dg_complete, and their
     * times fetched: rt__dg_complete would pass */
    g->complete_ok = 1;
    *out = g;
    return RT_OK;
fail:
    rt_depgraph_destroy(g);
    return rc;
}

/* ------------------------------------------------------------------ the walk over the events */

/* What one walk over the events adds up, per result due (its graph NULL: not this time): the
 * breakdowns of up to two critical paths, the wait states of one graph, the comparison of two.
 * Each result has its own sums and rows; rt_depgraph_analyze asks for all of them in one walk,
 * the other functions for theirs alone, so both give the same results. */
struct walk {
    struct cp_sums cp[2];
    struct ws_sums ws;
    struct cmp_sums cmp;
};

/* One pass over the events of ranks [lo, hi), with their context, for every result due. Each
 * result's visit is inline (depgraph_path.h, depgraph_wait.h, depgraph_compare.h): this loop is
 * the analysis's hot path. */
static int walk_range(struct walk *k, const rt_trace *t, uint32_t lo, uint32_t hi, rt_error *err)
{
    struct walker w;
    int rc = rt__dg_walker_init(&w, t) ? rt_error_set(err, RT_ENOMEM, "out of memory") : RT_OK;
    for (int i = 0; i < 2 && !w.scale; i++) /* (the replay's sizes: its graph is the first one with a scale) */
        w.scale = k->cp[i].g ? k->cp[i].g->scale : NULL;
    if (!w.scale)
        w.scale = k->ws.g ? k->ws.g->scale : k->cmp.a ? k->cmp.a->scale : NULL;
    /* The records the wait states and the comparison read, once per graph and event: the wait
     * states' graph and the comparison's two, each distinct one (ug[0..nu)) read once; ix: the
     * place of each of the three in ug. */
    const rt_depgraph *sg[3] = {k->ws.g, k->cmp.a, k->cmp.b}, *ug[3];
    struct walk_rec e[3];
    struct rank_recs v[3];
    int nu = 0, ix[3] = {0, 0, 0};
    for (int s = 0; s < 3; s++) {
        if (!sg[s])
            continue;
        for (ix[s] = 0; ix[s] < nu && ug[ix[s]] != sg[s]; ix[s]++)
            ;
        if (ix[s] == nu)
            ug[nu++] = sg[s];
    }
    for (uint32_t r = lo; r < hi && !rc; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        rt__dg_walker_rank(&w, r);
        cmp_rank_begin(&k->cmp);
        for (int u = 0; u < nu; u++) {
            e[u].tp = 0;
            rank_recs_of(&v[u], ug[u], r);
        }
        for (uint64_t j = 0; j < n && !rc; j++) {
            for (int u = 0; u < nu; u++)
                e[u].x = rank_rec(&v[u], j, e[u].tp);
            for (int i = 0; i < 2; i++)
                if (k->cp[i].g)
                    cp_visit(&k->cp[i], &w, ev, n, r, j);
            if (k->ws.g)
                rc = ws_visit(&k->ws, &w, ev, n, r, j, &e[ix[0]], err);
            if (k->cmp.a)
                cmp_visit(&k->cmp, &w, ev, n, r, j, &e[ix[1]], &e[ix[2]]);
            for (int u = 0; u < nu; u++)
                e[u].tp = rec_t(&e[u].x);
            if (walker_apply(&w, ev, n, j))
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        }
        if (k->cmp.a && n)
            cmp_rank_end(&k->cmp, r);
    }
    if (k->cmp.a)
        rt__dg_cmp_sizes_flush(&k->cmp);
    rt__dg_walker_free(&w);
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

/* Adds what a thread's walk found to @p k's. */
static int walk_merge(struct walk *k, const struct walk_thread *w)
{
    for (int i = 0; i < 2; i++)
        rt__dg_cp_merge(&k->cp[i], &w->k.cp[i]);
    if (rt__dg_ws_merge(&k->ws, &w->k.ws))
        return RT_ENOMEM;
    rt__dg_cmp_merge(&k->cmp, &w->k.cmp);
    return RT_OK;
}

/* Frees a walk's sums. */
static void walk_free(struct walk *k)
{
    for (int i = 0; i < 2; i++)
        cp_sums_free(&k->cp[i]);
    ws_sums_free(&k->ws);
    cmp_sums_free(&k->cmp);
}

/* One pass over the events of the ranks held here (of graph @p g's split), for every result due. */
static int walk_events(struct walk *k, const rt_trace *t, const rt_depgraph *g, rt_error *err)
{
    uint32_t nt = par_threads(g), bounds[PAR_MAX_THREADS + 1];
    if (nt <= 1)
        return walk_range(k, t, g->dp.lo, g->dp.hi, err);
    struct walk_thread *w = calloc(nt, sizeof *w);
    if (!w)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    par_split(g, nt, bounds);
    for (uint32_t i = 0; i < nt; i++) { /* the same results due, into the thread's own sums */
        w[i].k = (struct walk){.cp = {{.g = k->cp[0].g}, {.g = k->cp[1].g}}, .ws = {.g = k->ws.g},
                               .cmp = {.a = k->cmp.a, .b = k->cmp.b, .d = k->cmp.d ? &w[i].d : NULL}};
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
        walk_free(&w[i].k);
    }
    free(w);
    return rc;
}

/* Completes every result the walk added to, in the same order on every process. Collective;
 * @p rc: this process already failed. */
static int walk_finish(struct walk *k, int rc, rt_error *err)
{
    for (int i = 0; i < 2; i++)
        if (k->cp[i].g)
            rc = rt__dg_cp_finish(&k->cp[i], rc, err);
    if (k->ws.g)
        rc = rt__dg_ws_finish(&k->ws, rc, err);
    if (k->cmp.a)
        rc = rt__dg_cmp_finish(&k->cmp, rc, err);
    walk_free(k);
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
        if (a->dp.nranks != b->dp.nranks || a->dp.lo != b->dp.lo || a->dp.hi != b->dp.hi ||
            (a->t != b->t && a->total != b->total))
            rc = rt_error_set(err, RT_EINVAL, "the two timings are not of the same trace");
        for (uint32_t r = a->dp.lo; r < a->dp.hi && !rc; r++)
            if (a->n[r] != b->n[r])
                rc = rt_error_set(err, RT_EINVAL, "the two timings are not of the same trace (rank %u)", r);
        if ((rc = rt__dg_agree(&a->dp, rc, err)))
            return rc;
    }
    /* one walk goes over one trace's events: a's path over its own when b has another */
    if (b && a->t != b->t && paths && !a->have_cp && (rc = analyze(a, NULL, 1, NULL, NULL, err)))
        return rc;
    rt_depgraph *g[2] = {a, b != a ? b : NULL};
    for (int i = 0; i < 2 && paths; i++) {
        if (!g[i] || g[i]->have_cp)
            continue;
        if ((rc = rt__dg_cp_path(g[i], &need, err)))
            return rc;
        k.cp[i].g = need ? g[i] : NULL;
    }
    if (ws && !ws->have_ws) {
        if ((rc = rt__dg_complete(ws, err)))
            return rc;
        memset(&ws->ws, 0, sizeof ws->ws);
        k.ws.g = ws;
    }
    if (out) { /* each graph's ghosts hold the sources of both: cmp_visit reads t_of(A, B's source) */
        if ((rc = fetch(a, b, err)) || (rc = fetch(b, a, err)))
            return rc;
        k.cmp.a = a;
        k.cmp.b = b;
        k.cmp.d = calloc(1, sizeof *k.cmp.d);
        if (!k.cmp.d)
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        else
            k.cmp.d->end_a = a->cp.end_ps, k.cmp.d->end_b = b->cp.end_ps;
    }
    if (!rc && (k.cp[0].g || k.cp[1].g || k.ws.g || k.cmp.a))
        rc = walk_events(&k, (b ? b : a)->t, a, err);
    if ((rc = walk_finish(&k, rc, err)) == RT_OK && out) {
        *out = k.cmp.d;
        k.cmp.d = NULL;
    }
    rt_depgraph_diff_destroy(k.cmp.d);
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

void rt_depgraph_set_scale(rt_depgraph *g, const rt_scale *s)
{
    g->scale = s;
}

void rt_depgraph_set_window(rt_depgraph *g, const rt_window *w)
{
    g->win = w && rt_window_kind(w) != RT_WINDOW_ALL ? w : NULL;
    g->win_begin = INT64_MIN; /* set by the critical path's walk (window_ends) */
    g->have_cp = 0;
}
