/* SPDX-License-Identifier: MIT */
/*
 * OTF2 archive -> in-memory trace. Reads the global definitions, then each location's local
 * definitions (mapping tables) and events, keeping only what a replay needs in
 * 16-byte records, with the fields of message, collective and join events in a side array
 * (struct rt__row). Request ids are resolved here: completions point at the event that started
 * them and receive requests get the message fields of their completion, so the replay never
 * looks anything up by request id. Large traces are read by several threads, each with its own
 * OTF2 reader over a range of locations (read_events).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "compiler.h"
#include "map.h"
#include "threads_env.h"
#include "trace_internal.h"

/* Raw definitions kept until the tables can be resolved (they may arrive in any order). */
struct group_def {
    uint8_t type;          /* OTF2_GroupType */
    uint8_t paradigm;
    uint32_t n;
    uint64_t *members;
};

/* OTF2 references are usually small dense integers: index them by array, fall back to a hash
 * for the rare producer that uses huge ids. The per-event lookups (region of every Enter and
 * Leave, communicator of every message) are hot in the reader. */
#define DENSE_LIMIT (1u << 22)
struct ref_index {
    uint32_t *v;
    uint32_t n;
    struct rt__map sparse;
};

static int ref_put(struct ref_index *x, uint64_t ref, uint32_t val)
{
    if (ref >= DENSE_LIMIT)
        return rt__map_put(&x->sparse, ref, 0, val);
    if (ref >= x->n) {
        uint32_t nn = x->n ? x->n : 64;
        while (nn <= ref)
            nn *= 2;
        uint32_t *nv = realloc(x->v, (size_t)nn * sizeof *nv);
        if (!nv)
            return -1;
        for (uint32_t i = x->n; i < nn; i++)
            nv[i] = RT_NONE;
        x->v = nv;
        x->n = nn;
    }
    x->v[ref] = val;
    return 0;
}

static inline uint32_t ref_get(const struct ref_index *x, uint64_t ref)
{
    if (ref < x->n)
        return x->v[ref];
    if (ref < DENSE_LIMIT)
        return RT_NONE;
    uint64_t *v = rt__map_get(&x->sparse, ref, 0);
    return v ? (uint32_t)*v : RT_NONE;
}

static void ref_free(struct ref_index *x)
{
    free(x->v);
    rt__map_free(&x->sparse);
}

/* Open requests of the location being read: request id -> index of the event that started it.
 * Every nonblocking call puts one and its completion takes it out again, so this is a small,
 * busy table: open addressing with 16-byte slots, Fibonacci hashing, linear probing and
 * deletion by shifting back (no tombstones). A slot is free when its value is 0; values are
 * event index + 1, so any request id may be a key. */
struct req_slot {
    uint64_t key, val;
};
struct req_table {
    struct req_slot *slot;
    uint32_t cap, count; /* cap: 0 or a power of two */
    unsigned shift;      /* 64 - log2(cap) */
};

static inline size_t req_home(const struct req_table *q, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> q->shift);
}

static int req_grow(struct req_table *q)
{
    uint32_t ncap = q->cap ? q->cap * 2 : 64;
    if (ncap < q->cap)
        return -1;
    struct req_slot *ns = calloc(ncap, sizeof *ns), *old = q->slot;
    if (!ns)
        return -1;
    uint32_t ocap = q->cap;
    q->slot = ns;
    q->cap = ncap;
    q->shift = q->shift ? q->shift - 1 : 58;
    for (uint32_t i = 0; i < ocap; i++) {
        if (!old[i].val)
            continue;
        size_t j = req_home(q, old[i].key);
        while (ns[j].val)
            j = (j + 1) & (ncap - 1);
        ns[j] = old[i];
    }
    free(old);
    return 0;
}

/* Inserts or overwrites request @p key -> event @p idx; 0 or -1 when out of memory. */
static int req_put(struct req_table *q, uint64_t key, uint64_t idx)
{
    if ((q->count + 1) * 4ull > q->cap * 3ull && req_grow(q))
        return -1;
    size_t mask = q->cap - 1, i = req_home(q, key);
    for (; q->slot[i].val; i = (i + 1) & mask) {
        if (q->slot[i].key == key) {
            q->slot[i].val = idx + 1;
            return 0;
        }
    }
    q->slot[i] = (struct req_slot){key, idx + 1};
    q->count++;
    return 0;
}

/* Removes request @p key; returns its event index, or UINT64_MAX when it is not there. */
static uint64_t req_take(struct req_table *q, uint64_t key)
{
    if (!q->count)
        return UINT64_MAX;
    size_t mask = q->cap - 1, i = req_home(q, key);
    for (; q->slot[i].key != key || !q->slot[i].val; i = (i + 1) & mask)
        if (!q->slot[i].val)
            return UINT64_MAX;
    uint64_t idx = q->slot[i].val - 1;
    /* Shift later entries of the probe run back into the hole unless their home lies
     * cyclically in (hole, entry]. */
    for (size_t j = (i + 1) & mask; q->slot[j].val; j = (j + 1) & mask) {
        size_t h = req_home(q, q->slot[j].key);
        if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
            q->slot[i] = q->slot[j];
            i = j;
        }
    }
    q->slot[i].val = 0;
    q->count--;
    return idx;
}

static void req_clear(struct req_table *q)
{
    if (q->count)
        memset(q->slot, 0, (size_t)q->cap * sizeof *q->slot);
    q->count = 0;
}

static void req_free(struct req_table *q)
{
    free(q->slot);
    *q = (struct req_table){0};
}

struct ctx_def {
    uint64_t self, region, scl;
};

/* A location as defined, kept until ranks, threads and other locations can be told apart. */
struct loc_def {
    uint64_t id, nevents, group;
    const char *name;
    uint8_t type; /* OTF2_LocationType */
};

/* A thread team as one of a rank's other threads saw it: when it began, and when its work was
 * done (its arrival at the team's last barrier, or the team's end). */
struct team_span {
    rt_time_ns begin, arrive;
};

/* A CPU thread of a rank besides the rank's own: read only for its team spans. */
struct thread_loc {
    uint64_t location, nevents;
    uint32_t row;             /* its rank */
    struct team_span *spans;  /* in time order */
    uint64_t nspans, capspans;
    uint64_t rank_location;   /* its rank's location id (until the rows are indexed) */
};

struct reader {
    rt_trace *t;
    rt_error *err;
    const char *path;
    int failed;                 /* set by callbacks that stored an error */
    struct rt__map strings;     /* string ref -> index into t->strings */
    struct ref_index regions;   /* region ref -> region index */
    uint8_t *region_flags;      /* region index -> RT_EVF_MPI if an MPI region, | RT_EVF_SYNC /
                                 * RT_EVF_BUFFERED of its sends */
    struct rt__map rows;        /* location ref -> row */
    struct rt__map groups;      /* group ref -> index into groupv */
    struct group_def *groupv;
    uint32_t ngroups, capgroups;
    struct ref_index comms;     /* comm ref -> comm index */
    uint64_t *comm_group;       /* comm index -> group ref, resolved after the definitions */
    uint32_t capcomms;
    struct rt__map scls;        /* source code location ref -> (string ref << 32 | line) */
    uint64_t *sclv;             /* source code location refs in definition order */
    uint32_t nscl, capscl;
    struct rt__map ctxs;        /* calling context ref -> index into ctxv */
    struct ctx_def *ctxv;
    uint32_t nctx, capctx;
    struct rt__map callsite_of; /* (kind, ref) -> call-site index; kind 1 = context, 2 = scl */
    uint64_t timer_resolution, global_offset;
    int have_clock;
    uint64_t fast_hi;           /* push's fast path takes ts in [fast_lo, fast_hi]; 0 unless a 1 ns clock */
    int have_callsites;         /* call sites defined: Enter attributes are worth looking at */
    struct loc_def *locv;       /* every location defined */
    uint32_t nloc, caploc;
    struct thread_loc *thr;     /* the ranks' other CPU threads, by rank, then location id */
    uint32_t nthr;
    uint32_t *thr_at;           /* rank r's threads are thr[thr_at[r] .. thr_at[r + 1]) */

    /* state of the location being read */
    uint32_t row;
    struct rt__row *cur;
    uint64_t cap;
    int mpi_depth;
    uint8_t call_flags;         /* RT_EVF_SYNC / RT_EVF_BUFFERED of the MPI call being read */
    rt_time_ns last_time;
    uint64_t fast_lo;           /* the last event's ts (see push) */
    struct req_table requests;  /* request id -> event index */
    uint64_t coll_begin;        /* index of the open collective begin, or UINT64_MAX */
    int tail_final;             /* the row's last payload holds its final fields: the next may share it */
    /* thread teams (of the rank's own thread, or of one of its other threads, thr_cur) */
    struct thread_loc *thr_cur; /* the other thread being read, or NULL: the rank's own */
    int team_depth;             /* open team begins and parallel regions */
    int in_barrier;             /* inside a barrier region of the team */
    int work_after_barrier;     /* something was entered since the team's last barrier */
    rt_time_ns team_begin, barrier_enter;
    uint64_t fork_ev;           /* the rank's RT_EV_FORK of the open team */
    uint64_t barrier_leave;     /* the rank's Leave of its last barrier in the team, or UINT64_MAX */
    /* what this reader's locations add to the trace's counters (several readers may run at
     * once, see read_events; their counts are summed when all are done) */
    struct rt_trace_stats stats;
    uint64_t memory;
};

static OTF2_ErrorCode otf2_quiet(void *ud, const char *file, uint64_t line, const char *function,
                                 OTF2_ErrorCode code, const char *fmt, va_list va)
{
    /* Library code never prints: OTF2's own messages are dropped, its codes are reported. */
    (void)ud; (void)file; (void)line; (void)function; (void)fmt; (void)va;
    return code;
}

static int fail(struct reader *r, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(struct reader *r, int code, const char *fmt, ...)
{
    if (!r->failed) {
        char buf[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        rt_error_set(r->err, code, "%s: %s", r->path, buf);
        r->failed = code;
    }
    return r->failed;
}

static char *keep_string(struct reader *r, const char *s)
{
    rt_trace *t = r->t;
    if (t->nstrings == t->capstrings) {
        uint32_t ncap = t->capstrings ? t->capstrings * 2 : 64;
        char **ns = realloc(t->strings, ncap * sizeof *ns);
        if (!ns)
            return NULL;
        t->strings = ns;
        t->capstrings = ncap;
    }
    char *copy = strdup(s ? s : "");
    if (!copy)
        return NULL;
    t->strings[t->nstrings++] = copy;
    t->memory += strlen(copy) + 1 + sizeof(char *);
    return copy;
}

static const char *string_ref(struct reader *r, uint64_t ref)
{
    uint64_t *i = rt__map_get(&r->strings, ref, 0);
    return i ? r->t->strings[*i] : NULL;
}

/* Region flags besides the event flags they carry (RT_EVF_MPI, RT_EVF_SYNC, RT_EVF_BUFFERED):
 * the thread-team regions, which only the reader looks at. */
#define RF_PARALLEL (1u << 6) /* a parallel region (OpenMP): a thread team */
#define RF_BARRIER (1u << 7)  /* a thread team's barrier (implicit or explicit; not MPI_Barrier) */

/* ---------------------------------------------------------------- global definitions */

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t len, uint64_t rt)
{
    struct reader *r = ud;
    (void)len; (void)rt;
    if (res == 0) {
        fail(r, RT_ECORRUPT, "clock properties: timer resolution is 0");
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->timer_resolution = res;
    r->global_offset = offset;
    r->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct reader *r = ud;
    if (!keep_string(r, s) || rt__map_put(&r->strings, self, 0, r->t->nstrings - 1)) {
        fail(r, RT_ENOMEM, "out of memory reading string definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canon, OTF2_StringRef descr, OTF2_RegionRole role,
                                    OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                    OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    struct reader *r = ud;
    rt_trace *t = r->t;
    (void)canon; (void)descr; (void)flags; (void)file; (void)begin; (void)end;
    struct rt_region *nr = realloc(t->regions, (t->nregions + 1) * sizeof *nr);
    if (!nr) {
        fail(r, RT_ENOMEM, "out of memory reading region definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    t->regions = nr;
    const char *s = string_ref(r, name);
    nr[t->nregions].name = s ? s : "??";
    nr[t->nregions].is_mpi = paradigm == OTF2_PARADIGM_MPI ||
                             (s && strncmp(s, "MPI_", 4) == 0 && paradigm == OTF2_PARADIGM_UNKNOWN);
    nr[t->nregions].role = (uint8_t)role;
    uint8_t *nf = realloc(r->region_flags, t->nregions + 1);
    if (nf)
        r->region_flags = nf;
    if (!nf || ref_put(&r->regions, self, t->nregions)) {
        fail(r, RT_ENOMEM, "out of memory reading region definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    /* Whether a send is synchronous or buffered is only said by the name of its call. The MPI
     * bit is kept beside it so that Enter and Leave read one byte per event. */
    nf[t->nregions] = (uint8_t)((nr[t->nregions].is_mpi ? RT_EVF_MPI : 0) |
                                (paradigm == OTF2_PARADIGM_MPI ? 0
                                 : role == OTF2_REGION_ROLE_PARALLEL ? RF_PARALLEL
                                 : role == OTF2_REGION_ROLE_IMPLICIT_BARRIER || role == OTF2_REGION_ROLE_BARRIER
                                     ? RF_BARRIER : 0) |
                                (!s                                                    ? 0
                                 : !strcmp(s, "MPI_Ssend") || !strcmp(s, "MPI_Issend") ? RT_EVF_SYNC
                                 : !strcmp(s, "MPI_Bsend") || !strcmp(s, "MPI_Ibsend") ? RT_EVF_BUFFERED
                                                                                      : 0));
    t->nregions++;
    t->memory += sizeof *nr;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    struct reader *r = ud;
    if (r->nloc == r->caploc) {
        uint32_t ncap = r->caploc ? r->caploc * 2 : 64;
        struct loc_def *nl = ncap > r->caploc ? realloc(r->locv, ncap * sizeof *nl) : NULL;
        if (!nl) {
            fail(r, RT_ENOMEM, "out of memory reading location definitions");
            return OTF2_CALLBACK_INTERRUPT;
        }
        r->locv = nl;
        r->caploc = ncap;
    }
    const char *s = string_ref(r, name);
    r->locv[r->nloc++] = (struct loc_def){self, nevents, group, s ? s : "", (uint8_t)type};
    return OTF2_CALLBACK_SUCCESS;
}

static int cmp_loc(const void *a, const void *b)
{
    const struct loc_def *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_thr(const void *a, const void *b)
{
    const struct thread_loc *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return x->location < y->location ? -1 : x->location > y->location;
}

/* Whether location @p id is one of the MPI COMM_LOCATIONS group's @p n members (sorted). */
static int is_mpi_location(const uint64_t *sorted, uint32_t n, uint64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo] == id;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Tells ranks, threads and other locations apart (see rt_trace_open). A rank is an MPI process:
 * a CPU thread the MPI COMM_LOCATIONS group lists, or, in a location group (a process) that holds
 * none of those, its first CPU thread; a CPU thread without a location group is a rank of its
 * own. Every other CPU thread is a thread of its group's first rank. Accelerator streams and
 * metric locations are counted with their declared records: they are not replayed.
 * Builds t->rows (sorted by location id, as before threads were told apart) and r->thr.
 */
static int classify_locations(struct reader *r)
{
    rt_trace *t = r->t;
    const struct group_def *mpi = NULL;
    uint64_t *sorted = NULL;
    int rc = RT_OK;
    for (uint32_t i = 0; i < r->ngroups; i++)
        if (r->groupv[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groupv[i].paradigm == OTF2_PARADIGM_MPI)
            mpi = &r->groupv[i];
    if (mpi && mpi->n) {
        sorted = malloc((size_t)mpi->n * sizeof *sorted);
        if (!sorted)
            return fail(r, RT_ENOMEM, "out of memory sorting locations");
        memcpy(sorted, mpi->members, (size_t)mpi->n * sizeof *sorted);
        qsort(sorted, mpi->n, sizeof *sorted, cmp_u64);
    }
    uint32_t nmpi = mpi ? mpi->n : 0;
    if (r->nloc) /* qsort's array must not be NULL, even when empty */
        qsort(r->locv, r->nloc, sizeof *r->locv, cmp_loc); /* by group, then id */
    t->rows = calloc(r->nloc ? r->nloc : 1, sizeof *t->rows);
    r->thr = calloc(r->nloc ? r->nloc : 1, sizeof *r->thr);
    if (!t->rows || !r->thr) {
        rc = fail(r, RT_ENOMEM, "out of memory reading location definitions");
        goto done;
    }
    /* Per location group [g0, g1): its ranks become rows, its other CPU threads threads of the
     * first of them; thr[k].row holds the rank's location id until the rows are sorted. */
    for (uint32_t g0 = 0, g1; g0 < r->nloc; g0 = g1) {
        g1 = g0 + 1;
        if (r->locv[g0].group != OTF2_UNDEFINED_LOCATION_GROUP)
            while (g1 < r->nloc && r->locv[g1].group == r->locv[g0].group)
                g1++;
        int has_mpi = 0;
        for (uint32_t i = g0; i < g1 && nmpi; i++)
            has_mpi |= r->locv[i].type == OTF2_LOCATION_TYPE_CPU_THREAD && is_mpi_location(sorted, nmpi, r->locv[i].id);
        uint64_t first_rank = UINT64_MAX;
        uint32_t thr0 = r->nthr;
        for (uint32_t i = g0; i < g1; i++) {
            const struct loc_def *l = &r->locv[i];
            if (l->type == OTF2_LOCATION_TYPE_METRIC) {
                t->stats.metric_locations++;
                t->stats.metric_records += l->nevents;
                continue;
            }
            if (l->type != OTF2_LOCATION_TYPE_CPU_THREAD) { /* accelerator streams (and unknown kinds) */
                t->stats.accel_locations++;
                t->stats.accel_records += l->nevents;
                continue;
            }
            int rank = has_mpi ? is_mpi_location(sorted, nmpi, l->id) : first_rank == UINT64_MAX;
            if (rank) {
                t->rows[t->nrows++] = (struct rt__row){.location = l->id, .name = (char *)l->name, .nevents = l->nevents};
                if (first_rank == UINT64_MAX)
                    first_rank = l->id;
            } else {
                r->thr[r->nthr++] = (struct thread_loc){.location = l->id, .nevents = l->nevents};
            }
        }
        for (uint32_t k = thr0; k < r->nthr; k++)
            r->thr[k].rank_location = first_rank;
    }
    t->stats.threads = r->nthr;
    t->memory += (uint64_t)t->nrows * sizeof *t->rows;
done:
    free(sorted);
    return rc;
}

/* After the rows are sorted: each thread's rank row, and the threads grouped by rank. */
static int index_threads(struct reader *r)
{
    rt_trace *t = r->t;
    for (uint32_t k = 0; k < r->nthr; k++) {
        uint64_t *row = rt__map_get(&r->rows, r->thr[k].rank_location, 0);
        if (!row)
            return fail(r, RT_ECORRUPT, "thread location %llu: its process has no rank", /* cannot happen */
                        (unsigned long long)r->thr[k].location);
        r->thr[k].row = (uint32_t)*row;
    }
    qsort(r->thr, r->nthr, sizeof *r->thr, cmp_thr);
    r->thr_at = calloc((size_t)t->nrows + 1, sizeof *r->thr_at);
    if (!r->thr_at)
        return fail(r, RT_ENOMEM, "out of memory indexing threads");
    for (uint32_t k = 0; k < r->nthr; k++)
        r->thr_at[r->thr[k].row + 1]++;
    for (uint32_t i = 0; i < t->nrows; i++)
        r->thr_at[i + 1] += r->thr_at[i];
    return RT_OK;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                   uint32_t n, const uint64_t *members)
{
    struct reader *r = ud;
    (void)name; (void)flags;
    if (r->ngroups == r->capgroups) {
        uint32_t ncap = r->capgroups ? r->capgroups * 2 : 16;
        struct group_def *ng = realloc(r->groupv, ncap * sizeof *ng);
        if (!ng)
            goto oom;
        r->groupv = ng;
        r->capgroups = ncap;
    }
    uint64_t *m = NULL;
    if (n) {
        m = malloc((size_t)n * sizeof *m);
        if (!m)
            goto oom;
        memcpy(m, members, (size_t)n * sizeof *m);
    }
    r->groupv[r->ngroups] = (struct group_def){(uint8_t)type, (uint8_t)paradigm, n, m};
    if (rt__map_put(&r->groups, self, 0, r->ngroups))
        goto oom;
    r->ngroups++;
    return OTF2_CALLBACK_SUCCESS;
oom:
    fail(r, RT_ENOMEM, "out of memory reading group definitions");
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct reader *r = ud;
    rt_trace *t = r->t;
    (void)parent; (void)flags;
    if (t->ncomms == r->capcomms) {
        uint32_t ncap = r->capcomms ? r->capcomms * 2 : 8;
        struct rt__comm *nc = realloc(t->comms, ncap * sizeof *nc);
        if (!nc)
            goto oom;
        t->comms = nc;
        uint64_t *ng = realloc(r->comm_group, ncap * sizeof *ng);
        if (!ng)
            goto oom;
        r->comm_group = ng;
        r->capcomms = ncap;
    }
    const char *s = string_ref(r, name);
    t->comms[t->ncomms] = (struct rt__comm){.pub = {.name = s ? s : "", .size = 0, .members = NULL, .origin = t->ncomms}};
    r->comm_group[t->ncomms] = group;
    if (ref_put(&r->comms, self, t->ncomms))
        goto oom;
    t->ncomms++;
    return OTF2_CALLBACK_SUCCESS;
oom:
    fail(r, RT_ENOMEM, "out of memory reading communicator definitions");
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_scl(void *ud, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
                                 uint32_t line)
{
    struct reader *r = ud;
    if (r->nscl == r->capscl) {
        uint32_t ncap = r->capscl ? r->capscl * 2 : 16;
        uint64_t *nv = realloc(r->sclv, ncap * sizeof *nv);
        if (!nv)
            goto oom;
        r->sclv = nv;
        r->capscl = ncap;
    }
    if (rt__map_put(&r->scls, self, 0, ((uint64_t)file << 32) | line))
        goto oom;
    r->sclv[r->nscl++] = self;
    return OTF2_CALLBACK_SUCCESS;
oom:
    fail(r, RT_ENOMEM, "out of memory reading source code locations");
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_ctx(void *ud, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                 OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    struct reader *r = ud;
    (void)parent;
    if (r->nctx == r->capctx) {
        uint32_t ncap = r->capctx ? r->capctx * 2 : 16;
        struct ctx_def *nc = realloc(r->ctxv, ncap * sizeof *nc);
        if (!nc)
            goto oom;
        r->ctxv = nc;
        r->capctx = ncap;
    }
    r->ctxv[r->nctx] = (struct ctx_def){self, region, scl};
    if (rt__map_put(&r->ctxs, self, 0, r->nctx))
        goto oom;
    r->nctx++;
    return OTF2_CALLBACK_SUCCESS;
oom:
    fail(r, RT_ENOMEM, "out of memory reading calling contexts");
    return OTF2_CALLBACK_INTERRUPT;
}

static int add_callsite(struct reader *r, const char *function, uint64_t scl, uint32_t *idx)
{
    rt_trace *t = r->t;
    struct rt_callsite cs = {function ? function : "??", "??", 0};
    uint64_t *v = scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION ? NULL : rt__map_get(&r->scls, scl, 0);
    if (v) {
        const char *f = string_ref(r, *v >> 32);
        cs.file = f ? f : "??";
        cs.line = (uint32_t)(*v & 0xffffffffu);
    }
    struct rt_callsite *n = realloc(t->callsites, (t->ncallsites + 1) * sizeof *n);
    if (!n)
        return RT_ENOMEM;
    t->callsites = n;
    n[t->ncallsites] = cs;
    *idx = t->ncallsites++;
    t->memory += sizeof *n;
    return RT_OK;
}

/* Builds communicator member tables and the call-site table once all definitions are known. */
static int resolve_definitions(struct reader *r)
{
    rt_trace *t = r->t;
    for (uint32_t c = 0; c < t->ncomms; c++) {
        struct rt__comm *comm = &t->comms[c];
        uint64_t *gi = rt__map_get(&r->groups, r->comm_group[c], 0);
        if (!gi)
            return fail(r, RT_ECORRUPT, "communicator '%s' refers to undefined group %llu",
                        comm->pub.name, (unsigned long long)r->comm_group[c]);
        struct group_def *g = &r->groupv[*gi];
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            comm->is_self = 1;
            comm->pub.size = 1;
            continue;
        }
        if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
            return fail(r, RT_ECORRUPT, "communicator '%s': group %llu is not a communicator group",
                        comm->pub.name, (unsigned long long)r->comm_group[c]);
        /* COMM_GROUP members index into the COMM_LOCATIONS group of the same paradigm. */
        struct group_def *locs = NULL;
        for (uint32_t i = 0; i < r->ngroups; i++)
            if (r->groupv[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groupv[i].paradigm == g->paradigm)
                locs = &r->groupv[i];
        if (!locs)
            return fail(r, RT_ECORRUPT, "communicator '%s': no COMM_LOCATIONS group for its paradigm",
                        comm->pub.name);
        comm->members = malloc((size_t)(g->n ? g->n : 1) * sizeof *comm->members);
        if (!comm->members)
            return fail(r, RT_ENOMEM, "out of memory resolving communicators");
        for (uint32_t i = 0; i < g->n; i++) {
            if (g->members[i] >= locs->n)
                return fail(r, RT_ECORRUPT, "communicator '%s': member %u refers to rank %llu of %u",
                            comm->pub.name, i, (unsigned long long)g->members[i], locs->n);
            uint64_t *row = rt__map_get(&r->rows, locs->members[g->members[i]], 0);
            comm->members[i] = row ? (uint32_t)*row : RT_NONE;
        }
        comm->pub.size = g->n;
        comm->pub.members = comm->members;
        t->memory += (uint64_t)g->n * sizeof(uint32_t);
    }
    /* A self communicator (MPI_COMM_SELF, or any communicator of one process: Score-P gives them
     * all a COMM_SELF group) is one definition for what are separate communicators, one per
     * process: collectives that ranks call on it at the same time are not one collective. Each
     * row gets its own instance, a communicator of one member appended after the defined ones,
     * and events name the instance, so the replay never joins them. */
    uint32_t ndefined = t->ncomms, nself = 0;
    for (uint32_t c = 0; c < ndefined; c++)
        nself += t->comms[c].is_self != 0;
    if (nself && t->nrows) {
        uint64_t total = ndefined + (uint64_t)nself * t->nrows;
        if (total > RT_MAX_COMMS)
            return fail(r, RT_EUNSUPPORTED, "%u self communicators on %u ranks make %llu communicator instances, "
                        "more than the %u the replay supports", nself, t->nrows, (unsigned long long)total,
                        (unsigned)RT_MAX_COMMS);
        struct rt__comm *nc = realloc(t->comms, total * sizeof *nc);
        if (nc)
            t->comms = nc;
        t->self_rows = malloc(t->nrows * sizeof *t->self_rows);
        if (!nc || !t->self_rows)
            return fail(r, RT_ENOMEM, "out of memory resolving self communicators");
        for (uint32_t i = 0; i < t->nrows; i++)
            t->self_rows[i] = i;
        for (uint32_t c = 0; c < ndefined; c++) {
            if (!t->comms[c].is_self)
                continue;
            t->comms[c].self_base = t->ncomms;
            for (uint32_t i = 0; i < t->nrows; i++)
                t->comms[t->ncomms++] = (struct rt__comm){
                    .pub = {.name = t->comms[c].pub.name, .size = 1, .members = &t->self_rows[i], .origin = c}};
        }
        t->memory += (uint64_t)t->nrows * sizeof(uint32_t) + (total - ndefined) * sizeof *t->comms;
        t->stats.self_comms = nself;
    }
    /* Call sites are numbered in definition order (calling contexts, then source locations no
     * context names), not in hash-table order: the numbers then do not depend on the map's
     * layout, and an archive written back with its definitions in table order (otf2_writer.c)
     * reads back with the same numbers. A context defined twice counts once, at its last
     * definition (the one the event mapping uses). */
    for (uint32_t i = 0; i < r->nctx; i++) {
        struct ctx_def *d = &r->ctxv[i];
        uint64_t *last = rt__map_get(&r->ctxs, d->self, 0);
        if (!last || *last != i)
            continue;
        uint32_t reg = ref_get(&r->regions, d->region);
        uint32_t idx;
        if (add_callsite(r, reg != RT_NONE ? t->regions[reg].name : "??", d->scl, &idx) ||
            rt__map_put(&r->callsite_of, 1, d->self, idx))
            return fail(r, RT_ENOMEM, "out of memory building call sites");
    }
    /* A source location that a calling context already names shares that context's call site;
     * the others (Score-P's SOURCE_CODE_LOCATION attributes) get their own, without a function. */
    for (uint32_t i = 0; i < r->nctx; i++) {
        struct ctx_def *d = &r->ctxv[i];
        if (d->scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION)
            continue;
        uint64_t *cs = rt__map_get(&r->callsite_of, 1, d->self);
        if (cs && !rt__map_get(&r->callsite_of, 2, d->scl) && rt__map_put(&r->callsite_of, 2, d->scl, *cs))
            return fail(r, RT_ENOMEM, "out of memory building call sites");
    }
    for (uint32_t i = 0; i < r->nscl; i++) {
        uint32_t idx;
        if (rt__map_get(&r->callsite_of, 2, r->sclv[i]))
            continue;
        if (add_callsite(r, "??", r->sclv[i], &idx) || rt__map_put(&r->callsite_of, 2, r->sclv[i], idx))
            return fail(r, RT_ENOMEM, "out of memory building call sites");
    }
    return RT_OK;
}

/* ---------------------------------------------------------------- events */

/* Event timestamps are taken as already on the global timebase: Score-P writes them so (its
 * ClockOffset records describe the correction it applied) and retime's tracer does the same.
 * The offsets are therefore not applied a second time. */
static int to_ns(struct reader *r, OTF2_TimeStamp ts, rt_time_ns *out)
{
    __int128 t = (__int128)ts - (__int128)r->global_offset;
    if (r->timer_resolution != 1000000000u) {
        /* Rounded to the nearest ns (halves up), not truncated: a clock finer than 1 ns (e.g.
         * retime's own predicted archives, in ps) would otherwise lose up to a whole ns.
         * |t| < 2^64 and 10^9 < 2^30, so the product fits in 128 bits. */
        __int128 res = (__int128)r->timer_resolution, num = t * 1000000000;
        __int128 q = num / res, rem = num % res;
        if (rem < 0) { /* floor division */
            rem += res;
            q--;
        }
        t = q + (2 * rem >= res);
    }
    /* A stray 64-bit tick count must not wrap into a plausible time; an event holds 53 bits. */
    if (t >= RT_MAX_TIME_NS || t <= -RT_MAX_TIME_NS)
        return -1;
    *out = (rt_time_ns)t;
    return 0;
}


/* Grows a row's three arrays (events, payloads, payload blocks) together to ncap events: a row
 * never has more payloads than events, so one capacity covers all three (the untouched tail of
 * the payload array costs address space, not memory). */
static int grow_row(struct rt__row *row, uint64_t ncap)
{
    if (ncap > (uint64_t)SIZE_MAX / sizeof(struct rt_event))
        return RT_ENOMEM;
    struct rt_event *ne = realloc(row->events, ncap * sizeof *ne);
    if (!ne)
        return RT_ENOMEM;
    row->events = ne;
    struct rt_event_payload *np = realloc(row->pay, ncap * sizeof *np);
    if (!np)
        return RT_ENOMEM;
    row->pay = np;
    struct rt__pblock *nb = realloc(row->pblocks, (ncap + 63) / 64 * sizeof *nb);
    if (!nb)
        return RT_ENOMEM;
    row->pblocks = nb;
    return RT_OK;
}

/* Stores event number row->nevents (room reserved), with a payload when its kind has one. */
static inline struct rt_event *append(struct rt__row *row, rt_time_ns t, uint8_t kind)
{
    uint64_t n = row->nevents++;
    struct rt_event *e = &row->events[n];
    *e = (struct rt_event){.time = t, .kind = kind, .ref = RT_NONE, .aux = RT_NONE};
    if ((n & 63) == 0)
        row->pblocks[n >> 6] = (struct rt__pblock){.has = 0, .base = row->npay};
    if (RT__PAYLOAD_KINDS >> kind & 1) {
        row->pblocks[n >> 6].has |= 1ull << (n & 63);
        row->pay[row->npay++] = (struct rt_event_payload){.bytes = 0, .comm = RT_EV_NO_COMM};
    }
    return e;
}

/* The payload of the event just appended (its kind has one). */
static inline struct rt_event_payload *last_payload(struct reader *r)
{
    return &r->cur->pay[r->cur->npay - 1];
}

/* The event just appended has its payload's final fields: when they equal those of the payload
 * before it (@p prev_final: which were final when the event came), the event shares that one and
 * its own is given back (rt__payload_index finds the row's last payload at or before an event).
 * A run of messages of one size on one communicator so keeps one payload. */
static inline void share_payload(struct reader *r, int prev_final)
{
    struct rt__row *row = r->cur;
    const struct rt_event_payload *p = &row->pay[row->npay - 1];
    /* work_ns is the union's whole 64 bits: equal bytes and comm (static assert: nothing else) */
    if (prev_final && p->work_ns == p[-1].work_ns) {
        uint64_t n = row->nevents - 1;
        row->pblocks[n >> 6].has &= ~(1ull << (n & 63));
        row->npay--;
    }
    r->tail_final = 1;
}

/* Appends an event, all cases: the array full, any clock, a time out of range or going
 * backwards; returns NULL (with the error set) when out of memory or on a bad time. */
static RT_COLD struct rt_event *push_slow(struct reader *r, OTF2_TimeStamp ts, uint8_t kind)
{
    struct rt__row *row = r->cur;
    if (row->nevents == r->cap) {
        uint64_t ncap = r->cap ? r->cap * 2 : 1024;
        if (grow_row(row, ncap)) {
            fail(r, RT_ENOMEM, "location %llu: out of memory after %llu events",
                 (unsigned long long)row->location, (unsigned long long)row->nevents);
            return NULL;
        }
        r->cap = ncap;
    }
    rt_time_ns t = 0;
    if (to_ns(r, ts, &t)) {
        fail(r, RT_ECORRUPT,
             "location %llu (rank %u) event %llu: timestamp %llu is out of range (more than 2^52 ns, 52 days, "
             "from the trace's start)",
             (unsigned long long)row->location, r->row, (unsigned long long)row->nevents, (unsigned long long)ts);
        return NULL;
    }
    if (t < r->last_time) { /* INT64_MIN before the first event */
        fail(r, RT_ECORRUPT, "location %llu (rank %u) event %llu: timestamp goes backwards (%lld ns < %lld ns)",
             (unsigned long long)row->location, r->row, (unsigned long long)row->nevents,
             (long long)t, (long long)r->last_time);
        return NULL;
    }
    r->last_time = t;
    if (r->fast_hi && t >= 0) /* a 1 ns clock: t = ts - global_offset */
        r->fast_lo = ts;
    return append(row, t, kind);
}

/* Appends an event; returns NULL (with the error set) when out of memory or time runs backwards.
 * Every OTF2 event passes here, so the common case is kept to a few instructions inline: room
 * reserved from the declared count, and ts in [fast_lo, fast_hi], which holds only with a 1 ns
 * clock (fast_hi is 0 otherwise) and then means that t = ts - global_offset is in [0, RT_MAX_TIME_NS)
 * and not before the previous event (fast_lo is the previous ts, or global_offset at the start).
 * Anything else takes push_slow, which checks and reports as before. */
static inline struct rt_event *push(struct reader *r, OTF2_TimeStamp ts, uint8_t kind)
{
    struct rt__row *row = r->cur;
    if (RT_LIKELY(ts >= r->fast_lo && ts <= r->fast_hi && row->nevents < r->cap)) {
        rt_time_ns t = (rt_time_ns)(ts - r->global_offset);
        r->last_time = t;
        r->fast_lo = ts;
        return append(row, t, kind);
    }
    return push_slow(r, ts, kind);
}

#define EVT_ARGS OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *ud, OTF2_AttributeList *attrs

static RT_COLD OTF2_CallbackCode undefined_region(struct reader *r, OTF2_RegionRef region, const char *what)
{
    fail(r, RT_ECORRUPT, "rank %u event %llu: %s of undefined region %u", r->row,
         (unsigned long long)r->cur->nevents, what, (unsigned)region);
    return OTF2_CALLBACK_INTERRUPT;
}

/* The call site named by an Enter's attributes (a calling context or a source code location),
 * or RT_NONE. */
static uint32_t enter_callsite(struct reader *r, OTF2_AttributeList *attrs)
{
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(attrs);
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef aref;
        OTF2_Type type;
        OTF2_AttributeValue val;
        if (OTF2_AttributeList_GetAttributeByIndex(attrs, i, &aref, &type, &val) != OTF2_SUCCESS)
            continue;
        uint64_t *cs = NULL;
        if (type == OTF2_TYPE_CALLING_CONTEXT)
            cs = rt__map_get(&r->callsite_of, 1, val.callingContextRef);
        else if (type == OTF2_TYPE_SOURCE_CODE_LOCATION)
            cs = rt__map_get(&r->callsite_of, 2, val.sourceCodeLocationRef);
        if (cs)
            return (uint32_t)*cs;
    }
    return RT_NONE;
}

/* ---------------------------------------------------------------- thread teams
 *
 * A rank's thread forks a team (ThreadFork, ThreadTeamBegin, or the Enter of a parallel region,
 * whichever comes first) and joins it (the matching ThreadJoin, ThreadTeamEnd or Leave, whichever
 * closes the outermost). The rank's events get an RT_EV_FORK and an RT_EV_JOIN there; its Leave
 * of its last barrier in the team is marked RT_EVF_NOWORK (it waited there for the others). Each
 * of its other threads records a team span: when it began, and when its work was done (the Enter
 * of its last barrier in the team, or the team's end when it did more after that barrier).
 * match_teams then gives each JOIN the slowest thread's work from the fork. Nested teams count
 * as part of the outermost. */

static RT_COLD int team_open(struct reader *r, OTF2_TimeStamp ts)
{
    if (r->team_depth++ > 0)
        return RT_OK;
    r->in_barrier = r->work_after_barrier = 0;
    r->barrier_enter = INT64_MIN;
    r->barrier_leave = UINT64_MAX;
    if (r->thr_cur)
        return to_ns(r, ts, &r->team_begin) ? fail(r, RT_ECORRUPT, "thread location %llu: timestamp %llu is out of range",
                                                   (unsigned long long)r->thr_cur->location, (unsigned long long)ts)
                                            : RT_OK;
    if (!push(r, ts, RT_EV_FORK))
        return r->failed;
    r->fork_ev = r->cur->nevents - 1;
    return RT_OK;
}

static RT_COLD int team_close(struct reader *r, OTF2_TimeStamp ts)
{
    if (r->team_depth == 0 || --r->team_depth > 0)
        return RT_OK;
    int waited = r->barrier_enter != INT64_MIN && !r->work_after_barrier;
    struct thread_loc *th = r->thr_cur;
    if (th) {
        rt_time_ns end;
        if (to_ns(r, ts, &end))
            return fail(r, RT_ECORRUPT, "thread location %llu: timestamp %llu is out of range",
                        (unsigned long long)th->location, (unsigned long long)ts);
        if (th->nspans == th->capspans) {
            uint64_t ncap = th->capspans ? th->capspans * 2 : 16;
            struct team_span *ns = realloc(th->spans, ncap * sizeof *ns);
            if (!ns)
                return fail(r, RT_ENOMEM, "out of memory reading thread location %llu", (unsigned long long)th->location);
            th->spans = ns;
            th->capspans = ncap;
        }
        th->spans[th->nspans++] = (struct team_span){r->team_begin, waited ? r->barrier_enter : end};
        return RT_OK;
    }
    if (waited && r->barrier_leave < r->cur->nevents) /* not when the barrier was never left */
        r->cur->events[r->barrier_leave].flags |= RT_EVF_NOWORK;
    struct rt_event *e = push(r, ts, RT_EV_JOIN);
    if (!e)
        return r->failed;
    e->ref = (uint32_t)r->fork_ev;
    last_payload(r)->work_ns = 0; /* match_teams fills in the other threads' work */
    r->tail_final = 0;
    r->stats.forks++;
    return RT_OK;
}

/* Before an Enter of region flags @p rf at @p ts, on any thread: a parallel region opens a team;
 * in a team, a barrier or some other work begins. */
static RT_COLD int team_enter(struct reader *r, uint8_t rf, OTF2_TimeStamp ts)
{
    if (rf & RF_PARALLEL)
        return team_open(r, ts);
    if (!r->team_depth || r->in_barrier)
        return RT_OK;
    if (!(rf & RF_BARRIER)) {
        r->work_after_barrier = 1;
        return RT_OK;
    }
    r->in_barrier = 1;
    r->work_after_barrier = 0;
    if (to_ns(r, ts, &r->barrier_enter))
        return fail(r, RT_ECORRUPT, "rank %u: timestamp %llu is out of range", r->row, (unsigned long long)ts);
    return RT_OK;
}

/* After a Leave of region flags @p rf at @p ts (on the rank's thread: pushed as its last event). */
static RT_COLD int team_leave(struct reader *r, uint8_t rf, OTF2_TimeStamp ts)
{
    if ((rf & RF_BARRIER) && r->team_depth && r->in_barrier) {
        r->in_barrier = 0;
        if (!r->thr_cur)
            r->barrier_leave = r->cur->nevents - 1;
    }
    return (rf & RF_PARALLEL) ? team_close(r, ts) : RT_OK;
}

static OTF2_CallbackCode ev_enter(EVT_ARGS, OTF2_RegionRef region)
{
    struct reader *r = ud;
    (void)loc; (void)pos;
    uint32_t reg = ref_get(&r->regions, region);
    if (reg == RT_NONE)
        return undefined_region(r, region, "enter");
    uint8_t rf = r->region_flags[reg];
    if (RT_UNLIKELY((rf & (RF_PARALLEL | RF_BARRIER)) || r->team_depth) && team_enter(r, rf, ts))
        return OTF2_CALLBACK_INTERRUPT;
    struct rt_event *e = push(r, ts, RT_EV_ENTER);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    e->ref = reg;
    if (rf & RT_EVF_MPI) {
        e->flags = RT_EVF_MPI;
        if (r->mpi_depth++ == 0)
            r->call_flags = rf & (RT_EVF_SYNC | RT_EVF_BUFFERED);
    }
    /* Without call-site definitions no attribute can name one: the list is not looked at. */
    if (attrs && r->have_callsites)
        e->aux = enter_callsite(r, attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(EVT_ARGS, OTF2_RegionRef region)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    uint32_t reg = ref_get(&r->regions, region);
    if (reg == RT_NONE)
        return undefined_region(r, region, "leave");
    struct rt_event *e = push(r, ts, RT_EV_LEAVE);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    e->ref = reg;
    uint8_t rf = r->region_flags[reg];
    if (rf & RT_EVF_MPI) {
        e->flags = RT_EVF_MPI;
        if (r->mpi_depth > 0)
            r->mpi_depth--;
    }
    if (RT_UNLIKELY(rf & (RF_PARALLEL | RF_BARRIER)) && team_leave(r, rf, ts))
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

/* Translates (communicator, rank in it) into a trace row. */
static int peer_row(struct reader *r, OTF2_CommRef comm, uint32_t rank, const char *what,
                    uint32_t *ci, uint32_t *row)
{
    rt_trace *t = r->t;
    unsigned long long ev = (unsigned long long)r->cur->nevents;
    uint32_t c = ref_get(&r->comms, comm);
    if (c == RT_NONE)
        return fail(r, RT_ECORRUPT, "rank %u event %llu: %s on undefined communicator %u", r->row, ev,
                    what, (unsigned)comm);
    struct rt__comm *cm = &t->comms[c];
    *ci = cm->is_self ? cm->self_base + r->row : c; /* a self communicator: this process's own instance */
    if (rank == OTF2_UNDEFINED_UINT32) {
        *row = RT_NONE;
        return RT_OK;
    }
    if (cm->is_self) {
        if (rank != 0)
            return fail(r, RT_ECORRUPT, "rank %u event %llu: %s to rank %u of a self communicator",
                        r->row, ev, what, rank);
        *row = r->row;
        return RT_OK;
    }
    if (rank >= cm->pub.size)
        return fail(r, RT_ECORRUPT, "rank %u event %llu: %s with rank %u outside communicator '%s' of size %u",
                    r->row, ev, what, rank, cm->pub.name, cm->pub.size);
    *row = cm->members[rank];
    if (*row == RT_NONE)
        return fail(r, RT_ECORRUPT, "rank %u event %llu: %s with rank %u of communicator '%s' whose location is not in the trace",
                    r->row, ev, what, rank, cm->pub.name);
    return RT_OK;
}

/* Translates a message's peer and checks its size, every case (self communicators, peers
 * outside, missing locations): RT_OK with *ci and *row set, or the error reported. */
static RT_COLD int message_peer(struct reader *r, uint32_t peer, OTF2_CommRef comm, uint64_t len, const char *what,
                                uint32_t *ci, uint32_t *row)
{
    int rc = peer_row(r, comm, peer, what, ci, row);
    if (rc)
        return rc;
    if (*row == RT_NONE)
        return fail(r, RT_ECORRUPT, "rank %u event %llu: %s without a peer rank", r->row,
                    (unsigned long long)r->cur->nevents, what);
    if (len > RT_MAX_BYTES)
        return fail(r, RT_ECORRUPT, "rank %u event %llu: %s of %llu bytes, more than %llu (corrupt size?)", r->row,
                    (unsigned long long)r->cur->nevents, what, (unsigned long long)len,
                    (unsigned long long)RT_MAX_BYTES);
    return RT_OK;
}

/* Appends a message event; its communicator and size go to the payload of event @p fields_of
 * (UINT64_MAX: its own). The common case (a known communicator that is not a self one, a peer
 * inside it whose location is in the trace, a plausible size) is checked inline; message_peer
 * handles and reports everything else. Inlined always: at each caller but one, fields_of is
 * UINT64_MAX and the request's branch folds away (not inlined, it cost 2 % more instructions). */
RT_HOT_INLINE OTF2_CallbackCode message(struct reader *r, OTF2_TimeStamp ts, uint8_t kind, uint32_t peer,
                                        OTF2_CommRef comm, uint32_t tag, uint64_t len, const char *what,
                                        uint64_t fields_of, struct rt_event **out)
{
    uint32_t ci = ref_get(&r->comms, comm), row;
    const struct rt__comm *cm = ci != RT_NONE ? &r->t->comms[ci] : NULL;
    if (RT_LIKELY(cm && len <= RT_MAX_BYTES && !cm->is_self && peer < cm->pub.size && cm->members[peer] != RT_NONE))
        row = cm->members[peer];
    else if (message_peer(r, peer, comm, len, what, &ci, &row))
        return OTF2_CALLBACK_INTERRUPT;
    int prev_final = r->tail_final;
    struct rt_event *e = push(r, ts, kind);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    e->ref = row;
    e->aux = tag;
    struct rt_event_payload *p = fields_of == UINT64_MAX ? last_payload(r) : rt__row_payload_of(r->cur, fields_of);
    p->comm = ci;
    p->bytes = len;
    if (fields_of == UINT64_MAX)
        share_payload(r, prev_final);
    else if (p == last_payload(r)) /* the request's payload was the row's last: final now */
        r->tail_final = 1;
    *out = e;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_send(EVT_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    struct reader *r = ud;
    struct rt_event *e;
    (void)loc; (void)pos; (void)attrs;
    if (message(r, ts, RT_EV_SEND, receiver, comm, tag, len, "send", UINT64_MAX, &e))
        return OTF2_CALLBACK_INTERRUPT;
    e->flags |= r->call_flags;
    r->stats.sends++;
    r->stats.bytes_sent += len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode remember_request(struct reader *r, uint64_t req)
{
    if (req_put(&r->requests, req, r->cur->nevents - 1)) {
        fail(r, RT_ENOMEM, "out of memory tracking requests");
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(EVT_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    struct reader *r = ud;
    struct rt_event *e;
    (void)loc; (void)pos; (void)attrs;
    if (message(r, ts, RT_EV_ISEND, receiver, comm, tag, len, "isend", UINT64_MAX, &e))
        return OTF2_CALLBACK_INTERRUPT;
    e->flags |= r->call_flags;
    r->stats.isends++;
    r->stats.bytes_sent += len;
    return remember_request(r, req);
}

/* Finds and forgets the event that started request @p req; UINT64_MAX when it is unknown. */
static uint64_t take_request(struct reader *r, uint64_t req)
{
    return req_take(&r->requests, req);
}

static OTF2_CallbackCode ev_isend_complete(EVT_ARGS, uint64_t req)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    uint64_t start = take_request(r, req);
    if (start == UINT64_MAX || r->cur->events[start].kind != RT_EV_ISEND) {
        /* Started while recording was off: nothing to replay, but say so in the stats. */
        r->stats.orphan_completions++;
        return OTF2_CALLBACK_SUCCESS;
    }
    struct rt_event *e = push(r, ts, RT_EV_ISEND_COMPLETE);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    e->ref = (uint32_t)start;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv_request(EVT_ARGS, uint64_t req)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    if (!push(r, ts, RT_EV_IRECV_REQUEST))
        return OTF2_CALLBACK_INTERRUPT;
    r->tail_final = 0; /* its fields come with its completion */
    return remember_request(r, req);
}

static OTF2_CallbackCode ev_recv(EVT_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    struct reader *r = ud;
    struct rt_event *e;
    (void)loc; (void)pos; (void)attrs;
    if (message(r, ts, RT_EV_RECV, sender, comm, tag, len, "receive", UINT64_MAX, &e))
        return OTF2_CALLBACK_INTERRUPT;
    r->stats.recvs++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(EVT_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    struct reader *r = ud;
    struct rt_event *e;
    (void)loc; (void)pos; (void)attrs;
    uint64_t start = take_request(r, req);
    if (start == UINT64_MAX || r->cur->events[start].kind != RT_EV_IRECV_REQUEST) {
        /* No recorded post: replay it as a receive posted when the completing call began. */
        if (message(r, ts, RT_EV_RECV, sender, comm, tag, len, "receive", UINT64_MAX, &e))
            return OTF2_CALLBACK_INTERRUPT;
        e->flags |= RT_EVF_ORPHAN;
        r->stats.orphan_completions++;
        r->stats.recvs++;
        return OTF2_CALLBACK_SUCCESS;
    }
    /* the message's fields go to the request, which has a payload (the completion has none) */
    if (message(r, ts, RT_EV_IRECV, sender, comm, tag, len, "receive", start, &e))
        return OTF2_CALLBACK_INTERRUPT;
    struct rt_event *post = &r->cur->events[start];
    post->ref = e->ref;
    post->aux = e->aux;
    e->ref = (uint32_t)start;
    e->aux = RT_NONE;
    r->stats.irecvs++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cancelled(EVT_ARGS, uint64_t req)
{
    struct reader *r = ud;
    (void)loc; (void)ts; (void)pos; (void)attrs;
    uint64_t start = take_request(r, req);
    if (start != UINT64_MAX)
        r->cur->events[start].flags |= RT_EVF_CANCELLED;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_begin(EVT_ARGS)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    if (r->coll_begin != UINT64_MAX) {
        fail(r, RT_ECORRUPT, "rank %u event %llu: collective begins inside another collective",
             r->row, (unsigned long long)r->cur->nevents);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (!push(r, ts, RT_EV_COLL_BEGIN))
        return OTF2_CALLBACK_INTERRUPT;
    r->tail_final = 0; /* its fields come with its end */
    r->coll_begin = r->cur->nevents - 1;
    return OTF2_CALLBACK_SUCCESS;
}

static uint32_t coll_op(OTF2_CollectiveOp op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return RT_COLL_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST: return RT_COLL_BCAST;
    case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV: return RT_COLL_GATHER;
    case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV: return RT_COLL_SCATTER;
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV: return RT_COLL_ALLGATHER;
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: return RT_COLL_ALLTOALL;
    case OTF2_COLLECTIVE_OP_REDUCE: return RT_COLL_REDUCE;
    case OTF2_COLLECTIVE_OP_ALLREDUCE: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return RT_COLL_ALLREDUCE;
    case OTF2_COLLECTIVE_OP_SCAN: case OTF2_COLLECTIVE_OP_EXSCAN: return RT_COLL_SCAN;
    default: return RT_COLL_OTHER;
    }
}

/* Vector variants, whose ranks may pass different counts (the replay then skips its size check). */
static int coll_vector(OTF2_CollectiveOp op)
{
    return op == OTF2_COLLECTIVE_OP_GATHERV || op == OTF2_COLLECTIVE_OP_SCATTERV ||
           op == OTF2_COLLECTIVE_OP_ALLGATHERV || op == OTF2_COLLECTIVE_OP_ALLTOALLV ||
           op == OTF2_COLLECTIVE_OP_ALLTOALLW || op == OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
}

static OTF2_CallbackCode ev_coll_end(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    if (r->coll_begin == UINT64_MAX) {
        fail(r, RT_ECORRUPT, "rank %u event %llu: collective end without begin", r->row,
             (unsigned long long)r->cur->nevents);
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint32_t ci = RT_NONE, root_row = RT_NONE; /* set by peer_row on success */
    if (peer_row(r, comm, root, "collective", &ci, &root_row))
        return OTF2_CALLBACK_INTERRUPT;
    if (sent > RT_MAX_BYTES || received > RT_MAX_BYTES) {
        fail(r, RT_ECORRUPT, "rank %u event %llu: collective of %llu bytes sent, %llu received, more than %llu "
             "(corrupt size?)", r->row, (unsigned long long)r->cur->nevents, (unsigned long long)sent,
             (unsigned long long)received, (unsigned long long)RT_MAX_BYTES);
        return OTF2_CALLBACK_INTERRUPT;
    }
    struct rt_event *e = push(r, ts, RT_EV_COLL_END);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    struct rt_event *b = &r->cur->events[r->coll_begin];
    b->ref = root_row;
    b->aux = coll_op(op);
    if (coll_vector(op))
        b->flags |= RT_EVF_VECTOR;
    struct rt_event_payload *bp = rt__row_payload_of(r->cur, r->coll_begin), *ep = last_payload(r);
    bp->comm = ci; /* a COLL_BEGIN has one */
    bp->bytes = sent;
    e->ref = (uint32_t)r->coll_begin;
    ep->comm = ci;
    ep->bytes = received;
    share_payload(r, bp == ep - 1); /* the begin's fields are final now */
    r->coll_begin = UINT64_MAX;
    r->stats.collectives++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Thread team records, on the rank's thread and on its other threads alike. */
static OTF2_CallbackCode ev_fork(EVT_ARGS, OTF2_Paradigm model, uint32_t nthreads)
{
    (void)loc; (void)pos; (void)attrs; (void)model; (void)nthreads;
    return team_open(ud, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_join(EVT_ARGS, OTF2_Paradigm model)
{
    (void)loc; (void)pos; (void)attrs; (void)model;
    return team_close(ud, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* OmpFork and OmpJoin: what Score-P wrote before ThreadFork and ThreadJoin superseded them. */
static OTF2_CallbackCode ev_omp_fork(EVT_ARGS, uint32_t nthreads)
{
    (void)loc; (void)pos; (void)attrs; (void)nthreads;
    return team_open(ud, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_omp_join(EVT_ARGS)
{
    (void)loc; (void)pos; (void)attrs;
    return team_close(ud, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_team_begin(EVT_ARGS, OTF2_CommRef team)
{
    (void)loc; (void)pos; (void)attrs; (void)team;
    return team_open(ud, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_team_end(EVT_ARGS, OTF2_CommRef team)
{
    (void)loc; (void)pos; (void)attrs; (void)team;
    return team_close(ud, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* One-sided (RMA) records are not replayed: each is counted, so that the reader can say how many
 * it dropped. One callback per record type, each with its own signature. */
#define RMA_COUNTER(name, ...)                                                                                    \
    static OTF2_CallbackCode rma_##name(EVT_ARGS, __VA_ARGS__)                                                    \
    {                                                                                                             \
        ((struct reader *)ud)->stats.rma_records++;                                                               \
        return OTF2_CALLBACK_SUCCESS;                                                                             \
    }
RMA_COUNTER(WinCreate, OTF2_RmaWinRef w)
RMA_COUNTER(WinDestroy, OTF2_RmaWinRef w)
RMA_COUNTER(CollectiveEnd, OTF2_CollectiveOp op, OTF2_RmaSyncLevel l, OTF2_RmaWinRef w, uint32_t root, uint64_t s,
            uint64_t rv)
RMA_COUNTER(GroupSync, OTF2_RmaSyncLevel l, OTF2_RmaWinRef w, OTF2_GroupRef g)
RMA_COUNTER(RequestLock, OTF2_RmaWinRef w, uint32_t rem, uint64_t id, OTF2_LockType lt)
RMA_COUNTER(AcquireLock, OTF2_RmaWinRef w, uint32_t rem, uint64_t id, OTF2_LockType lt)
RMA_COUNTER(TryLock, OTF2_RmaWinRef w, uint32_t rem, uint64_t id, OTF2_LockType lt)
RMA_COUNTER(ReleaseLock, OTF2_RmaWinRef w, uint32_t rem, uint64_t id)
RMA_COUNTER(Sync, OTF2_RmaWinRef w, uint32_t rem, OTF2_RmaSyncType st)
RMA_COUNTER(WaitChange, OTF2_RmaWinRef w)
RMA_COUNTER(Put, OTF2_RmaWinRef w, uint32_t rem, uint64_t b, uint64_t id)
RMA_COUNTER(Get, OTF2_RmaWinRef w, uint32_t rem, uint64_t b, uint64_t id)
RMA_COUNTER(Atomic, OTF2_RmaWinRef w, uint32_t rem, OTF2_RmaAtomicType at, uint64_t s, uint64_t rv, uint64_t id)
RMA_COUNTER(OpCompleteBlocking, OTF2_RmaWinRef w, uint64_t id)
RMA_COUNTER(OpCompleteNonBlocking, OTF2_RmaWinRef w, uint64_t id)
RMA_COUNTER(OpTest, OTF2_RmaWinRef w, uint64_t id)
RMA_COUNTER(OpCompleteRemote, OTF2_RmaWinRef w, uint64_t id)

static OTF2_CallbackCode rma_CollectiveBegin(EVT_ARGS)
{
    ((struct reader *)ud)->stats.rma_records++;
    return OTF2_CALLBACK_SUCCESS;
}

/* The callbacks every CPU thread shares: thread teams and the RMA counters. */
static void set_common_callbacks(OTF2_EvtReaderCallbacks *cb)
{
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, ev_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, ev_join);
    OTF2_EvtReaderCallbacks_SetOmpForkCallback(cb, ev_omp_fork);
    OTF2_EvtReaderCallbacks_SetOmpJoinCallback(cb, ev_omp_join);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, ev_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, ev_team_end);
#define RMA_SET(name) OTF2_EvtReaderCallbacks_SetRma##name##Callback(cb, rma_##name)
    RMA_SET(WinCreate); RMA_SET(WinDestroy); RMA_SET(CollectiveBegin); RMA_SET(CollectiveEnd);
    RMA_SET(GroupSync); RMA_SET(RequestLock); RMA_SET(AcquireLock); RMA_SET(TryLock); RMA_SET(ReleaseLock);
    RMA_SET(Sync); RMA_SET(WaitChange); RMA_SET(Put); RMA_SET(Get); RMA_SET(Atomic);
    RMA_SET(OpCompleteBlocking); RMA_SET(OpCompleteNonBlocking); RMA_SET(OpTest); RMA_SET(OpCompleteRemote);
#undef RMA_SET
}

/* ---------------------------------------------------------------- a rank's other threads */

static OTF2_CallbackCode thr_enter(EVT_ARGS, OTF2_RegionRef region)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    uint32_t reg = ref_get(&r->regions, region);
    if (reg == RT_NONE)
        return undefined_region(r, region, "enter");
    uint8_t rf = r->region_flags[reg];
    if (((rf & (RF_PARALLEL | RF_BARRIER)) || r->team_depth) && team_enter(r, rf, ts))
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode thr_leave(EVT_ARGS, OTF2_RegionRef region)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    uint32_t reg = ref_get(&r->regions, region);
    if (reg == RT_NONE)
        return undefined_region(r, region, "leave");
    uint8_t rf = r->region_flags[reg];
    if ((rf & (RF_PARALLEL | RF_BARRIER)) && team_leave(r, rf, ts))
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

/* MPI communication on a thread that is not its process's rank: the replay has one MPI thread
 * per process (MPI_THREAD_FUNNELED or SERIALIZED from the first thread), so it is refused. */
static OTF2_CallbackCode thr_mpi(struct reader *r, const char *what)
{
    fail(r, RT_EUNSUPPORTED, "thread location %llu of rank %u: %s on a thread other than the process's MPI "
         "thread: replaying MPI from several threads of a process is not supported",
         (unsigned long long)r->thr_cur->location, r->thr_cur->row, what);
    return OTF2_CALLBACK_INTERRUPT;
}
static OTF2_CallbackCode thr_send(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    return thr_mpi(ud, "an MPI send");
}
static OTF2_CallbackCode thr_isend(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t q)
{
    return thr_mpi(ud, "an MPI send");
}
static OTF2_CallbackCode thr_irecv_request(EVT_ARGS, uint64_t q)
{
    return thr_mpi(ud, "an MPI receive");
}
static OTF2_CallbackCode thr_recv(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    return thr_mpi(ud, "an MPI receive");
}
static OTF2_CallbackCode thr_coll_begin(EVT_ARGS)
{
    return thr_mpi(ud, "an MPI collective");
}

static const char *file_problem(const char *anchor, const char *tail, char *buf, size_t n);

/* Reads one of a rank's other threads: its team spans, nothing kept as events. */
static int read_thread(struct reader *r, OTF2_Reader *rd, struct thread_loc *th)
{
    r->thr_cur = th;
    r->team_depth = 0;
    r->row = th->row;
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, th->location);
    if (dr) {
        uint64_t n = 0;
        OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
        if (ec != OTF2_SUCCESS && !r->failed)
            fail(r, RT_ECORRUPT, "thread location %llu of rank %u: local definitions unreadable: %s",
                 (unsigned long long)th->location, th->row, OTF2_Error_GetDescription(ec));
        if (r->failed)
            goto done;
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, th->location);
    if (!er) {
        char tail[64], why[4200];
        snprintf(tail, sizeof tail, "/%llu.evt", (unsigned long long)th->location);
        fail(r, RT_ECORRUPT, "thread location %llu of rank %u: no event reader: %s", (unsigned long long)th->location,
             th->row, file_problem(r->path, tail, why, sizeof why));
        goto done;
    }
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb) {
        OTF2_Reader_CloseEvtReader(rd, er);
        fail(r, RT_ENOMEM, "out of memory");
        goto done;
    }
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, thr_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, thr_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, thr_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, thr_isend);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, thr_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, thr_recv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, thr_coll_begin);
    set_common_callbacks(cb);
    OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, r);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t nread = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalEvents(rd, er, &nread);
    OTF2_Reader_CloseEvtReader(rd, er);
    r->stats.otf2_events += nread;
    r->stats.thread_records += nread;
    if (!r->failed && ec != OTF2_SUCCESS)
        fail(r, RT_ECORRUPT, "thread location %llu of rank %u: event data truncated or corrupt after %llu events: %s",
             (unsigned long long)th->location, th->row, (unsigned long long)nread, OTF2_Error_GetDescription(ec));
    r->memory += th->capspans * sizeof *th->spans;
done:
    r->thr_cur = NULL;
    return r->failed;
}

/* Gives each of rank @p row's joins the work of its slowest other thread in that team: the
 * latest arrival, from the fork, of a team span that began between the fork and the join. Then
 * the spans are freed. */
static int match_teams(struct reader *r, uint32_t row)
{
    struct rt__row *R = &r->t->rows[row];
    uint32_t k0 = r->thr_at[row], k1 = r->thr_at[row + 1];
    if (k1 == k0)
        return RT_OK;
    uint64_t *cursor = calloc(k1 - k0, sizeof *cursor); /* per thread: its first span not yet past */
    if (!cursor)
        return fail(r, RT_ENOMEM, "out of memory matching thread teams of rank %u", row);
    for (uint64_t j = 0; j < R->nevents; j++) {
        struct rt_event *e = &R->events[j];
        if (e->kind != RT_EV_JOIN || e->ref >= R->nevents)
            continue;
        rt_time_ns f = R->events[e->ref].time, w = 0;
        for (uint32_t k = k0; k < k1; k++) {
            const struct thread_loc *th = &r->thr[k];
            uint64_t c = cursor[k - k0];
            while (c < th->nspans && th->spans[c].begin < f)
                c++;
            for (; c < th->nspans && th->spans[c].begin <= e->time; c++)
                if (th->spans[c].arrive - f > w)
                    w = th->spans[c].arrive - f;
            cursor[k - k0] = c;
        }
        rt__row_payload(R, j)->work_ns = (uint64_t)w; /* a JOIN has one */
    }
    free(cursor);
    for (uint32_t k = k0; k < k1; k++) {
        free(r->thr[k].spans);
        r->thr[k].spans = NULL;
        r->thr[k].nspans = r->thr[k].capspans = 0;
    }
    return RT_OK;
}

/* ---------------------------------------------------------------- driver */

static int resolve_path(const char *path, char **anchor, rt_error *err)
{
    struct stat st;
    if (!path || !*path)
        return rt_error_set(err, RT_EINVAL, "no trace path given");
    if (stat(path, &st) != 0)
        return rt_error_set(err, RT_ENOTFOUND, "%s: %s", path, strerror(errno));
    size_t n = strlen(path);
    if (S_ISDIR(st.st_mode)) {
        *anchor = malloc(n + 16);
        if (!*anchor)
            return rt_error_set(err, RT_ENOMEM, "out of memory");
        snprintf(*anchor, n + 16, "%s%straces.otf2", path, path[n - 1] == '/' ? "" : "/");
        if (stat(*anchor, &st) != 0)
            return rt_error_set(err, RT_ENOTFOUND, "%s: no OTF2 anchor file traces.otf2 in this directory", path);
    } else {
        *anchor = strdup(path);
        if (!*anchor)
            return rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    if (!S_ISREG(st.st_mode))
        return rt_error_set(err, RT_ENOTOTF2, "%s: not a regular file", *anchor);
    /* Check the anchor's magic before OTF2 sees it: a clear message for a file of another kind. */
    FILE *f = fopen(*anchor, "rb");
    unsigned char magic[6] = {0};
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f)
        fclose(f);
    if (!f)
        return rt_error_set(err, RT_EIO, "%s: %s", *anchor, strerror(errno));
    if (got < sizeof magic || memcmp(magic + 2, "OTF2", 4) != 0)
        return rt_error_set(err, RT_ENOTOTF2, "%s: not an OTF2 anchor file (no OTF2 signature)", *anchor);
    return RT_OK;
}

/* A row's event array is written once from start to end, one 4 KiB page fault after another
 * (each charged and zeroed by the kernel: about a sixth of the read at 10^7 events). Asking for
 * transparent huge pages on the 2 MiB-aligned part of a large array makes that one fault per
 * 2 MiB. Only advice: without THP (or with it off) nothing changes. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes < 2 * huge)
        return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* What is wrong with the archive file DIR/<stem><tail> (the anchor is DIR/<stem>.otf2) that OTF2
 * would not open: missing, empty, or there but unreadable, which points at the anchor too. */
static const char *file_problem(const char *anchor, const char *tail, char *buf, size_t n)
{
    size_t len = strlen(anchor);
    if (len > 5 && !strcmp(anchor + len - 5, ".otf2"))
        len -= 5;
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%.*s%s", (int)len, anchor, tail) >= (int)sizeof path)
        return "path too long";
    if (stat(path, &st) != 0)
        snprintf(buf, n, "%s is missing", path);
    else if (st.st_size == 0)
        snprintf(buf, n, "%s is empty", path);
    else
        snprintf(buf, n, "%s exists (%lld bytes) but OTF2 cannot read it (corrupt file or anchor?)", path,
                 (long long)st.st_size);
    return buf;
}

static int read_location(struct reader *r, OTF2_Reader *rd, uint32_t row)
{
    rt_trace *t = r->t;
    struct rt__row *cur = &t->rows[row];
    r->row = row;
    r->cur = cur;
    r->mpi_depth = 0;
    r->call_flags = 0;
    r->last_time = INT64_MIN;
    r->fast_lo = r->fast_hi ? r->global_offset : UINT64_MAX;
    r->coll_begin = UINT64_MAX;
    r->tail_final = 0;
    r->thr_cur = NULL;
    r->team_depth = 0;
    req_clear(&r->requests);
    uint64_t declared = cur->nevents;
    cur->nevents = 0;
    cur->npay = 0;
    r->cap = 0;
    if (declared && declared < (1ull << 40) && grow_row(cur, declared) == RT_OK) {
        r->cap = declared;
        advise_huge(cur->events, declared * sizeof *cur->events);
    }

    /* Local definitions hold the mapping tables OTF2 applies to this location's events. */
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, cur->location);
    if (dr) {
        uint64_t n = 0;
        OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
        if (ec != OTF2_SUCCESS && !r->failed)
            return fail(r, RT_ECORRUPT, "location %llu (rank %u): local definitions unreadable: %s",
                        (unsigned long long)cur->location, row, OTF2_Error_GetDescription(ec));
        if (r->failed)
            return r->failed;
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, cur->location);
    if (!er) {
        char tail[64], why[4200];
        snprintf(tail, sizeof tail, "/%llu.evt", (unsigned long long)cur->location);
        return fail(r, RT_ECORRUPT, "location %llu (rank %u): no event reader: %s", (unsigned long long)cur->location,
                    row, file_problem(r->path, tail, why, sizeof why));
    }
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return fail(r, RT_ENOMEM, "out of memory");
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    set_common_callbacks(cb);
    OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, r);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t nread = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalEvents(rd, er, &nread);
    OTF2_Reader_CloseEvtReader(rd, er);
    r->stats.otf2_events += nread;
    if (r->failed)
        return r->failed;
    if (ec != OTF2_SUCCESS)
        return fail(r, RT_ECORRUPT, "location %llu (rank %u): event data truncated or corrupt after %llu events: %s",
                    (unsigned long long)cur->location, row, (unsigned long long)nread,
                    OTF2_Error_GetDescription(ec));
    /* Receive requests never completed carry no message: the replay skips them. */
    for (size_t i = 0; r->requests.count && i < r->requests.cap; i++) {
        const struct req_slot *s = &r->requests.slot[i];
        if (s->val && cur->events[s->val - 1].kind == RT_EV_IRECV_REQUEST) {
            cur->events[s->val - 1].flags |= RT_EVF_CANCELLED;
            r->stats.dropped_requests++;
        }
    }
    if (r->coll_begin != UINT64_MAX)
        cur->events[r->coll_begin].flags |= RT_EVF_CANCELLED;
    if (cur->nevents < r->cap) { /* give back what the declared count over-reserved */
        struct rt_event *shrunk = realloc(cur->events, (cur->nevents ? cur->nevents : 1) * sizeof *shrunk);
        if (shrunk)
            cur->events = shrunk;
    }
    if (cur->npay < r->cap) { /* and the payloads' room beyond those there are */
        struct rt_event_payload *shrunk = realloc(cur->pay, (cur->npay ? cur->npay : 1) * sizeof *shrunk);
        if (shrunk)
            cur->pay = shrunk;
    }
    uint64_t nblocks = (cur->nevents + 63) / 64;
    r->stats.events += cur->nevents;
    r->memory += cur->nevents * sizeof(struct rt_event) + cur->npay * sizeof(struct rt_event_payload) +
                 nblocks * sizeof(struct rt__pblock);
    return RT_OK;
}

/*
 * Reading the locations' events in parallel. Each worker has its own OTF2 reader over a
 * contiguous range of rows (OTF2 readers of one archive share nothing, so no locking is needed)
 * and its own copy of the reader state: the definition tables are shared read-only, the
 * per-location state, error record and counters are its own. Every row is read by exactly one
 * worker with the same callbacks, so the trace does not depend on the number of workers; on
 * failure the error of the lowest failing row is kept, which is the one a serial read reports.
 * The same split by location is what a distributed replay would give each process.
 */
#define READ_MAX_THREADS 8
#define READ_MIN_EVENTS (1u << 17) /* below this (declared events), one thread: not worth a reader */

struct read_worker {
    struct reader r;
    rt_error err;
    const char *anchor;
    OTF2_Reader *rd;      /* the worker's own reader, NULL until opened */
    int own;              /* rd was opened here (worker 0 uses the caller's) */
    uint32_t first, end;  /* rows [first, end) */
    uint32_t failed_row;  /* UINT32_MAX: none */
    int rc;
    pthread_t th;
};

/* Selects rows [first, end) and their threads for reading. */
static void select_rows(const struct reader *r, OTF2_Reader *rd, uint32_t first, uint32_t end)
{
    for (uint32_t i = first; i < end; i++) {
        OTF2_Reader_SelectLocation(rd, r->t->rows[i].location);
        for (uint32_t k = r->thr_at[i]; k < r->thr_at[i + 1]; k++)
            OTF2_Reader_SelectLocation(rd, r->thr[k].location);
    }
}

static int worker_open(struct read_worker *w)
{
    w->rd = OTF2_Reader_Open(w->anchor);
    w->own = 1;
    if (!w->rd)
        return fail(&w->r, RT_ENOTOTF2, "OTF2 cannot open this anchor file (wrong version or corrupt)");
    if (OTF2_Reader_SetSerialCollectiveCallbacks(w->rd) != OTF2_SUCCESS)
        return fail(&w->r, RT_ECORRUPT, "OTF2 cannot set up its reader");
    select_rows(&w->r, w->rd, w->first, w->end);
    OTF2_Reader_OpenDefFiles(w->rd); /* optional, as in rt_trace_open */
    if (OTF2_Reader_OpenEvtFiles(w->rd) != OTF2_SUCCESS)
        return fail(&w->r, RT_ECORRUPT, "cannot open the event files");
    return RT_OK;
}

static void *worker_main(void *arg)
{
    struct read_worker *w = arg;
    w->failed_row = UINT32_MAX;
    w->rc = w->rd ? RT_OK : worker_open(w);
    if (w->rc) {
        w->failed_row = w->first;
        return NULL;
    }
    for (uint32_t i = w->first; i < w->end; i++) {
        w->rc = read_location(&w->r, w->rd, i);
        for (uint32_t k = w->r.thr_at[i]; !w->rc && k < w->r.thr_at[i + 1]; k++)
            w->rc = read_thread(&w->r, w->rd, &w->r.thr[k]);
        if (w->rc) {
            w->failed_row = i;
            break;
        }
        w->rc = match_teams(&w->r, i);
        if (w->rc) {
            w->failed_row = i;
            break;
        }
    }
    return NULL;
}

/* How many readers: RETIME_READ_THREADS if set (1 = serial), else the online CPUs, at most
 * READ_MAX_THREADS and one per row, and one for small traces. */
static uint32_t read_threads(const rt_trace *t)
{
    uint64_t declared = 0;
    for (uint32_t i = 0; i < t->nrows; i++)
        declared += t->rows[i].nevents;
    return rt__threads_for("RETIME_READ_THREADS", declared, READ_MIN_EVENTS, READ_MAX_THREADS, t->nrows);
}

/* Reads every row's events: rows are split into contiguous ranges of about equal declared event
 * counts; worker 0 runs on this thread with the caller's reader @p rd, which has the rows of
 * range 0 selected and its files open (see select_rows). */
static int read_events(struct reader *r, OTF2_Reader *rd, uint32_t nw, const uint32_t *bounds)
{
    struct read_worker w[READ_MAX_THREADS];
    int rc = RT_OK;
    uint32_t started = 0;
    memset(w, 0, sizeof w);
    for (uint32_t k = 0; k < nw; k++) {
        w[k].r = *r; /* the definition tables, shared read-only */
        w[k].r.err = &w[k].err;
        w[k].r.failed = 0;
        w[k].r.requests = (struct req_table){0};
        memset(&w[k].r.stats, 0, sizeof w[k].r.stats);
        w[k].r.memory = 0;
        w[k].anchor = r->path;
        w[k].first = bounds[k];
        w[k].end = bounds[k + 1];
        w[k].rd = k == 0 ? rd : NULL;
    }
    for (uint32_t k = 1; k < nw; k++, started++) {
        if (pthread_create(&w[k].th, NULL, worker_main, &w[k]) != 0)
            break;
    }
    worker_main(&w[0]);
    for (uint32_t k = 1; k <= started; k++)
        pthread_join(w[k].th, NULL);
    for (uint32_t k = started + 1; k < nw; k++) /* threads that could not start: read here */
        worker_main(&w[k]);
    struct read_worker *bad = NULL;
    for (uint32_t k = 0; k < nw; k++) {
        struct read_worker *x = &w[k];
        if (x->rc && (!bad || x->failed_row < bad->failed_row))
            bad = x;
        struct rt_trace_stats *a = &r->t->stats, *b = &x->r.stats;
        a->events += b->events;
        a->otf2_events += b->otf2_events;
        a->sends += b->sends;
        a->isends += b->isends;
        a->recvs += b->recvs;
        a->irecvs += b->irecvs;
        a->collectives += b->collectives;
        a->bytes_sent += b->bytes_sent;
        a->orphan_completions += b->orphan_completions;
        a->dropped_requests += b->dropped_requests;
        a->thread_records += b->thread_records;
        a->forks += b->forks;
        a->rma_records += b->rma_records;
        r->t->memory += x->r.memory;
        req_free(&x->r.requests);
        if (x->own && x->rd) {
            OTF2_Reader_CloseEvtFiles(x->rd);
            OTF2_Reader_CloseDefFiles(x->rd);
            OTF2_Reader_Close(x->rd);
        }
    }
    if (bad) {
        if (r->err)
            *r->err = bad->err;
        rc = r->failed = bad->rc;
    }
    return rc;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct rt__row *x = a, *y = b;
    return x->location < y->location ? -1 : x->location > y->location;
}

/* Splits rows [first, end) into @p n contiguous ranges of about equal declared event counts,
 * each with at least one row while there are rows to give: bounds[0..n]. */
static void split_rows(const rt_trace *t, uint32_t first, uint32_t end, uint32_t n, uint32_t *bounds)
{
    uint64_t total = 0, acc = 0;
    uint32_t rows = end - first, k = 1;
    for (uint32_t i = first; i < end; i++)
        total += t->rows[i].nevents;
    bounds[0] = first;
    for (uint32_t i = first; i < end && k < n; i++) {
        acc += t->rows[i].nevents;
        uint32_t left = end - (i + 1); /* rows after i */
        /* close range k-1 after row i once it holds its share, leaving a row for each later range */
        if ((acc * n >= total * k && left >= n - k) || left == n - k || (rows < n && i + 1 - first == k))
            bounds[k++] = i + 1;
    }
    for (; k <= n; k++)
        bounds[k] = end;
}

static int open_trace(const char *path, uint32_t nparts, uint32_t part, rt_trace **out, rt_error *err)
{
    struct reader r;
    OTF2_Reader *rd = NULL;
    char *anchor = NULL;
    int rc;
    memset(&r, 0, sizeof r);
    *out = NULL;
    rc = resolve_path(path, &anchor, err);
    if (rc)
        goto done;
    r.path = anchor;
    r.err = err;
    r.t = calloc(1, sizeof *r.t);
    if (!r.t) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    r.t->path = anchor;
    OTF2_Error_RegisterCallback(otf2_quiet, NULL);
    rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        rc = fail(&r, RT_ENOTOTF2, "OTF2 cannot open this anchor file (wrong version or corrupt)");
        goto done;
    }
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
        rc = fail(&r, RT_ECORRUPT, "OTF2 cannot set up its reader");
        goto done;
    }
    uint64_t nloc = 0;
    OTF2_ErrorCode ec = OTF2_Reader_GetNumberOfLocations(rd, &nloc);
    if (ec != OTF2_SUCCESS) {
        rc = fail(&r, RT_ECORRUPT, "anchor file unreadable: %s", OTF2_Error_GetDescription(ec));
        goto done;
    }
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gdr) {
        char why[4200];
        rc = fail(&r, RT_ECORRUPT, "no global definitions: %s", file_problem(r.path, ".def", why, sizeof why));
        goto done;
    }
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gcb) {
        rc = fail(&r, RT_ENOMEM, "out of memory");
        goto done;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(gcb, def_scl);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(gcb, def_ctx);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &r);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs = 0;
    ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (r.failed) {
        rc = r.failed;
        goto done;
    }
    if (ec != OTF2_SUCCESS) {
        rc = fail(&r, RT_ECORRUPT, "global definitions truncated or corrupt after %llu records: %s",
                  (unsigned long long)ndefs, OTF2_Error_GetDescription(ec));
        goto done;
    }
    if (!r.have_clock) {
        rc = fail(&r, RT_ECORRUPT, "no clock properties definition");
        goto done;
    }
    rc = classify_locations(&r);
    if (rc)
        goto done;
    if (r.t->nrows == 0) {
        rc = fail(&r, RT_ECORRUPT, "no CPU locations defined: nothing to replay");
        goto done;
    }
    qsort(r.t->rows, r.t->nrows, sizeof *r.t->rows, cmp_rows);
    for (uint32_t i = 0; i < r.t->nrows; i++) {
        if (rt__map_put(&r.rows, r.t->rows[i].location, 0, i)) {
            rc = fail(&r, RT_ENOMEM, "out of memory");
            goto done;
        }
    }
    rc = index_threads(&r);
    if (rc)
        goto done;
    rc = resolve_definitions(&r);
    if (rc)
        goto done;
    /* push's fast range for a 1 ns clock: ts - global_offset in [0, RT_MAX_TIME_NS); 0 (none)
     * otherwise, or when global_offset + RT_MAX_TIME_NS - 1 would not fit (then push_slow checks). */
    r.fast_hi = r.timer_resolution == 1000000000u && r.global_offset <= UINT64_MAX - (RT_MAX_TIME_NS - 1)
                    ? r.global_offset + (RT_MAX_TIME_NS - 1) : 0;
    r.have_callsites = r.callsite_of.count != 0;
    /* This process's rows (a distributed replay's part), then split among the readers, both by
     * the rows' declared event counts (Location definitions). */
    uint32_t first = 0, end = r.t->nrows;
    if (nparts > 1) {
        uint32_t *pb = malloc(((size_t)nparts + 1) * sizeof *pb);
        if (!pb) {
            rc = fail(&r, RT_ENOMEM, "out of memory");
            goto done;
        }
        split_rows(r.t, 0, r.t->nrows, nparts, pb);
        first = pb[part];
        end = pb[part + 1];
        free(pb);
    }
    r.t->part_first = first;
    r.t->part_end = end;
    for (uint32_t i = 0; i < r.t->nrows; i++) /* the others' events are not read: none here */
        if (i < first || i >= end)
            r.t->rows[i].nevents = 0;
    uint32_t nw = read_threads(r.t), bounds[READ_MAX_THREADS + 1];
    if (nw > end - first)
        nw = end - first ? end - first : 1;
    split_rows(r.t, first, end, nw, bounds);
    if (end > first) { /* a part may hold no rows when there are more parts than ranks */
        select_rows(&r, rd, bounds[0], bounds[1]);
        /* Local definition files are optional in OTF2: without them there is simply nothing to map. */
        OTF2_Reader_OpenDefFiles(rd);
        if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
            rc = fail(&r, RT_ECORRUPT, "cannot open the event files");
            goto done;
        }
        rc = read_events(&r, rd, nw, bounds);
        if (rc)
            goto done;
    }
    rt_time_ns lo, hi;
    uint32_t lo_row, hi_row;
    rt_trace_time_range(r.t, &lo, &lo_row, &hi, &hi_row);
    if (r.t->stats.events == 0 && nparts <= 1) {
        rc = fail(&r, RT_ECORRUPT, "the trace holds no events");
        goto done;
    }
    if (nparts <= 1 && (rc = rt_trace_check_span(r.t, lo, lo_row, hi, hi_row, err))) {
        r.failed = rc;
        goto done;
    }
    r.t->stats.span_ns = hi >= lo ? hi - lo : 0; /* 0: a part without events */
    rc = RT_OK;
done:
    if (rd) {
        OTF2_Reader_CloseEvtFiles(rd);
        OTF2_Reader_CloseDefFiles(rd);
        OTF2_Reader_Close(rd);
    }
    rt__map_free(&r.strings);
    ref_free(&r.regions);
    free(r.region_flags);
    rt__map_free(&r.rows);
    rt__map_free(&r.groups);
    ref_free(&r.comms);
    rt__map_free(&r.scls);
    rt__map_free(&r.ctxs);
    rt__map_free(&r.callsite_of);
    req_free(&r.requests);
    for (uint32_t i = 0; i < r.ngroups; i++)
        free(r.groupv[i].members);
    free(r.groupv);
    free(r.ctxv);
    free(r.sclv);
    free(r.comm_group);
    for (uint32_t k = 0; k < r.nthr; k++)
        free(r.thr[k].spans);
    free(r.thr);
    free(r.thr_at);
    free(r.locv);
    if (rc == RT_OK) {
        *out = r.t;
    } else {
        if (r.t)
            rt_trace_close(r.t);
        else
            free(anchor);
    }
    return rc;
}

int rt_trace_open(const char *path, rt_trace **out, rt_error *err)
{
    return open_trace(path, 1, 0, out, err);
}

int rt_trace_open_part(const char *path, uint32_t nparts, uint32_t part, rt_trace **out, rt_error *err)
{
    *out = NULL;
    if (nparts == 0 || part >= nparts)
        return rt_error_set(err, RT_EINVAL, "part %u of %u does not exist", part, nparts);
    return open_trace(path, nparts, part, out, err);
}

void rt_trace_time_range(const rt_trace *t, rt_time_ns *lo, uint32_t *lo_row, rt_time_ns *hi, uint32_t *hi_row)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    *lo_row = *hi_row = RT_NONE;
    for (uint32_t i = 0; i < t->nrows; i++) {
        const struct rt__row *row = &t->rows[i];
        if (!row->nevents)
            continue;
        if (row->events[0].time < *lo)
            *lo = row->events[0].time, *lo_row = i;
        if (row->events[row->nevents - 1].time > *hi)
            *hi = row->events[row->nevents - 1].time, *hi_row = i;
    }
}

int rt_trace_check_span(const rt_trace *t, rt_time_ns lo, uint32_t lo_row, rt_time_ns hi, uint32_t hi_row,
                        rt_error *err)
{
    /* The replay counts in ps in 64 bits: a span beyond that is a corrupt clock, not a run. */
    if (lo_row == RT_NONE || (__int128)hi - lo <= RT_MAX_SPAN_NS)
        return RT_OK;
    return rt_error_set(err, RT_ECORRUPT,
                        "%s: events span from %lld ns (rank %u) to %lld ns (rank %u), more than the %lld ns (26 days) "
                        "a trace may span: corrupt timestamps?",
                        t->path, (long long)lo, lo_row, (long long)hi, hi_row, (long long)RT_MAX_SPAN_NS);
}

void rt_trace_part_rows(const rt_trace *t, uint32_t *first, uint32_t *end)
{
    *first = t->part_first;
    *end = t->part_end;
}

/* ---------------------------------------------------------------- accessors */

void rt_trace_close(rt_trace *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nrows; i++) {
        free(t->rows[i].events);
        free(t->rows[i].pay);
        free(t->rows[i].pblocks);
    }
    free(t->rows);
    for (uint32_t i = 0; i < t->ncomms; i++)
        free(t->comms[i].members);
    free(t->comms);
    free(t->self_rows);
    free(t->regions);
    free(t->callsites);
    for (uint32_t i = 0; i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->path);
    free(t);
}

const char *rt_trace_path(const rt_trace *t) { return t->path; }
uint32_t rt_trace_ranks(const rt_trace *t) { return t->nrows; }

const struct rt_event *rt_trace_events(const rt_trace *t, uint32_t rank, uint64_t *n)
{
    if (rank >= t->nrows) {
        *n = 0;
        return NULL;
    }
    *n = t->rows[rank].nevents;
    return t->rows[rank].events;
}

struct rt_event_payload rt_trace_payload(const rt_trace *t, uint32_t rank, uint64_t i)
{
    const struct rt__row *R = rank < t->nrows ? &t->rows[rank] : NULL;
    if (R && i < R->nevents && R->events[i].kind == RT_EV_IRECV && R->events[i].ref < R->nevents)
        i = R->events[i].ref; /* an IRECV's fields are its request's */
    const struct rt_event_payload *p = R && i < R->nevents ? rt__row_payload(R, i) : NULL;
    return p ? *p : (struct rt_event_payload){.bytes = 0, .comm = RT_EV_NO_COMM};
}

uint64_t rt_trace_location_id(const rt_trace *t, uint32_t rank)
{
    return rank < t->nrows ? t->rows[rank].location : UINT64_MAX;
}

const char *rt_trace_rank_name(const rt_trace *t, uint32_t rank)
{
    return rank < t->nrows ? t->rows[rank].name : "";
}

uint32_t rt_trace_regions(const rt_trace *t) { return t->nregions; }

const struct rt_region *rt_trace_region(const rt_trace *t, uint32_t region)
{
    return region < t->nregions ? &t->regions[region] : NULL;
}

uint32_t rt_trace_find_region(const rt_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->nregions; i++)
        if (!strcmp(t->regions[i].name, name))
            return i;
    return RT_NONE;
}

uint32_t rt_trace_callsites(const rt_trace *t) { return t->ncallsites; }

const struct rt_callsite *rt_trace_callsite(const rt_trace *t, uint32_t cs)
{
    return cs < t->ncallsites ? &t->callsites[cs] : NULL;
}

uint32_t rt_trace_comms(const rt_trace *t) { return t->ncomms; }

const struct rt_comm *rt_trace_comm(const rt_trace *t, uint32_t comm)
{
    return comm < t->ncomms ? &t->comms[comm].pub : NULL;
}

const struct rt_trace_stats *rt_trace_stats(const rt_trace *t) { return &t->stats; }
uint64_t rt_trace_memory(const rt_trace *t) { return t->memory; }

size_t rt_trace_dropped(const rt_trace *t, char *buf, size_t n)
{
    const struct rt_trace_stats *st = &t->stats;
    size_t k = 0;
    if (n)
        buf[0] = 0;
    if (st->accel_locations && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%llu records on %u accelerator location%s",
                              (unsigned long long)st->accel_records, st->accel_locations,
                              st->accel_locations == 1 ? "" : "s");
    if (st->rma_records && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%s%llu RMA record%s", k ? ", " : "",
                              (unsigned long long)st->rma_records, st->rma_records == 1 ? "" : "s");
    return k < n ? k : (n ? n - 1 : 0);
}

const char *rt_coll_op_name(int op)
{
    static const char *const names[] = {"barrier", "bcast", "gather", "scatter", "allgather",
                                        "alltoall", "reduce", "allreduce", "scan", "other"};
    return op >= 0 && op <= RT_COLL_OTHER ? names[op] : "other";
}
