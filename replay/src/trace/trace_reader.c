/* SPDX-License-Identifier: MIT */
/*
 * OTF2 events -> a row of the in-memory trace: the event callbacks, which keep only what a
 * replay needs in 16-byte records, with the fields of message, collective and join events in a
 * side array (struct rt__row). Request ids are resolved here: completions point at the event that
 * started them and receive requests get the message fields of their completion, so the replay
 * never looks anything up by request id. Thread teams are read here too: the rank's forks and
 * joins, and the team spans of its other threads. Every OTF2 event of a rank passes through
 * these callbacks: their common paths are kept inline (push, message). The definitions come from
 * trace_defs.c; trace_open.c opens the archive and has the locations read (rt__rd_location).
 */
#define _GNU_SOURCE /* madvise, MADV_HUGEPAGE; mremap for a streamed row's arrays */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <otf2/otf2.h>

#include "compiler.h"
#include "grow.h"
#include "reader_internal.h"

/* ---------------------------------------------------------------- open requests (struct req_table) */

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

/* ---------------------------------------------------------------- events */

/* Event timestamps come corrected by OTF2: its event reader adds the location's ClockOffset
 * records (local definitions, read before the events) to each time, interpolated linearly between
 * them; Score-P and retime's tracer both write local times with such offsets. What the offsets
 * amounted to is kept in rt_trace_stats.clock (clock_offsets_done). */
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


/* A streamed row's arrays (r->vm) are address space reserved with mmap: only the pages written
 * cost memory, and trace_stream.c gives back those the replay has passed (madvise), so a row's
 * memory is its window, not its length. Growing moves the mapping (mremap), pages and all. */
static size_t vm_bytes(uint64_t n, size_t elem)
{
    size_t page = 4096, b = (size_t)n * elem;
    return (b + page - 1) / page * page;
}

static void *vm_resize(void *p, uint64_t oldn, uint64_t n, size_t elem)
{
    void *q = p ? mremap(p, vm_bytes(oldn, elem), vm_bytes(n, elem), MREMAP_MAYMOVE)
                : mmap(NULL, vm_bytes(n, elem), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    return q == MAP_FAILED ? NULL : q;
}

void rt__rd_row_free(struct rt__row *row)
{
    if (row->vmcap) {
        if (row->events)
            munmap(row->events, vm_bytes(row->vmcap, sizeof *row->events));
        if (row->pay)
            munmap(row->pay, vm_bytes(row->vmcap, sizeof *row->pay));
        if (row->pblocks)
            munmap(row->pblocks, vm_bytes((row->vmcap + 63) / 64, sizeof *row->pblocks));
        if (row->cpu)
            munmap(row->cpu, vm_bytes(row->capcpu, sizeof *row->cpu));
    } else {
        free(row->events);
        free(row->pay);
        free(row->pblocks);
        free(row->cpu);
    }
    row->events = NULL;
    row->pay = NULL;
    row->pblocks = NULL;
    row->cpu = NULL;
    row->vmcap = 0;
}

/* grow_row for a streamed row: its arrays moved with their pages (mremap). */
static int grow_vm(struct rt__row *row, uint64_t oldcap, uint64_t ncap)
{
    struct rt_event *ne = vm_resize(row->events, oldcap, ncap, sizeof *ne);
    if (!ne)
        return RT_ENOMEM;
    row->events = ne;
    struct rt_event_payload *np = vm_resize(row->pay, oldcap, ncap, sizeof *np);
    if (!np) /* (the arrays that did grow keep their pages until rt__rd_row_free, by vmcap) */
        return RT_ENOMEM;
    row->pay = np;
    struct rt__pblock *nb = vm_resize(row->pblocks, (oldcap + 63) / 64, (ncap + 63) / 64, sizeof *nb);
    if (!nb)
        return RT_ENOMEM;
    row->pblocks = nb;
    row->vmcap = ncap;
    return RT_OK;
}

/* Grows a row's three arrays (events, payloads, payload blocks) together from @p oldcap to
 * @p ncap events: a row never has more payloads than events, so one capacity covers all three
 * (the untouched tail of the payload array costs address space, not memory). A streamed row's
 * arrays move only while the replay does not look at them (rt__stream_hold). */
static int grow_row(struct reader *r, struct rt__row *row, uint64_t oldcap, uint64_t ncap)
{
    if (ncap > (uint64_t)SIZE_MAX / sizeof(struct rt_event))
        return RT_ENOMEM;
    if (r->vm) { /* (the first reservation moves nothing the replay could hold) */
        if (oldcap && rt__stream_hold(r, 1))
            return RT_EINVAL;
        int rc = grow_vm(row, oldcap, ncap);
        if (oldcap)
            rt__stream_hold(r, 0);
        return rc;
    }
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
        rt__pblock_set(&row->pblocks[n >> 6], rt__pblock_has(&row->pblocks[n >> 6]) | 1ull << (n & 63));
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
        rt__pblock_set(&row->pblocks[n >> 6], rt__pblock_has(&row->pblocks[n >> 6]) & ~(1ull << (n & 63)));
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
        int rc = grow_row(r, row, r->cap, ncap);
        if (rc == RT_EINVAL) {
            rt__rd_fail(r, RT_EINVAL, "location %llu (rank %u) holds more events than a streamed read reserved for it "
                                      "(%llu, 8x its definitions' count): on a network the reader thread cannot move "
                                      "them; replay it whole (--memory-budget) or with RETIME_READ_THREADS=1",
                        (unsigned long long)row->location, r->row, (unsigned long long)r->cap);
            return NULL;
        }
        if (rc) {
            rt__rd_fail(r, RT_ENOMEM, "location %llu: out of memory after %llu events",
                        (unsigned long long)row->location, (unsigned long long)row->nevents);
            return NULL;
        }
        r->cap = ncap;
    }
    rt_time_ns t = 0;
    if (to_ns(r, ts, &t)) {
        rt__rd_fail(r, RT_ECORRUPT,
                    "location %llu (rank %u) event %llu: timestamp %llu is out of range (more than 2^52 ns, 52 days, "
                    "from the trace's start)",
                    (unsigned long long)row->location, r->row, (unsigned long long)row->nevents, (unsigned long long)ts);
        return NULL;
    }
    if (t < r->last_time) { /* INT64_MIN before the first event */
        rt__rd_fail(r, RT_ECORRUPT, "location %llu (rank %u) event %llu: timestamp goes backwards (%lld ns < %lld ns)",
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
    rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: %s of undefined region %u", r->row,
                (unsigned long long)r->cur->nevents, what, (unsigned)region);
    return OTF2_CALLBACK_INTERRUPT;
}

/* The call site named by an Enter's attributes (a calling context or a source code location),
 * or RT_NONE in *out; returns whether any attribute could name one (one that names no defined
 * site, e.g. OTF2_UNDEFINED_CALLING_CONTEXT, says "none"). */
static int enter_callsite(struct reader *r, OTF2_AttributeList *attrs, uint32_t *out)
{
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(attrs);
    int named = 0;
    *out = RT_NONE;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef aref;
        OTF2_Type type;
        OTF2_AttributeValue val;
        if (OTF2_AttributeList_GetAttributeByIndex(attrs, i, &aref, &type, &val) != OTF2_SUCCESS)
            continue;
        uint64_t *cs = NULL;
        if (type == OTF2_TYPE_CALLING_CONTEXT) {
            named = 1;
            cs = rt__map_get(&r->callsite_of, 1, val.callingContextRef);
        } else if (type == OTF2_TYPE_SOURCE_CODE_LOCATION) {
            named = 1;
            cs = rt__map_get(&r->callsite_of, 2, val.sourceCodeLocationRef);
        }
        if (cs) {
            *out = (uint32_t)*cs;
            return 1;
        }
    }
    return named;
}

/* ---------------------------------------------------------------- thread teams
 *
 * A rank's thread forks a team (ThreadFork, ThreadTeamBegin, or the Enter of a parallel region,
 * whichever comes first) and joins it (the matching ThreadJoin, ThreadTeamEnd or Leave, whichever
 * closes the outermost). The rank's events get an RT_EV_FORK and an RT_EV_JOIN there; its Leave
 * of its last barrier in the team is marked RT_EVF_NOWORK (it waited there for the others). Each
 * of its other threads records a team span: when it began, and when its work was done (the Enter
 * of its last barrier in the team, or the team's end when it did more after that barrier).
 * match_teams (trace_open.c, once the rank and its threads are read) then gives each JOIN the
 * slowest thread's work from the fork. Nested teams count as part of the outermost. */

static RT_COLD int team_open(struct reader *r, OTF2_TimeStamp ts)
{
    if (r->team_depth++ > 0)
        return RT_OK;
    r->in_barrier = r->work_after_barrier = 0;
    r->barrier_enter = INT64_MIN;
    r->barrier_leave = UINT64_MAX;
    if (r->thr_cur)
        return to_ns(r, ts, &r->team_begin)
                   ? rt__rd_fail(r, RT_ECORRUPT, "thread location %llu: timestamp %llu is out of range",
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
            return rt__rd_fail(r, RT_ECORRUPT, "thread location %llu: timestamp %llu is out of range",
                               (unsigned long long)th->location, (unsigned long long)ts);
        if (th->nspans == th->capspans) {
            uint64_t ncap = th->capspans ? th->capspans * 2 : 16;
            struct team_span *ns = realloc(th->spans, ncap * sizeof *ns);
            if (!ns)
                return rt__rd_fail(r, RT_ENOMEM, "out of memory reading thread location %llu",
                                   (unsigned long long)th->location);
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
        return rt__rd_fail(r, RT_ECORRUPT, "rank %u: timestamp %llu is out of range", r->row, (unsigned long long)ts);
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

/* ---------------------------------------------------------------- regions entered and left
 *
 * A Leave closes an Enter of its region on its rank. One whose region has no Enter open there
 * (its Enter lost to a damaged record, or never written) cannot be placed: the replay's region
 * instances would be wrong, so it is an error. Nesting itself is not checked: real traces leave
 * an outer region while an inner one is still open (Score-P user regions, seen in
 * scorep-stencil4d-32). */

static RT_COLD OTF2_CallbackCode leave_unplaced(struct reader *r, uint32_t reg)
{
    rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: leave of region '%s' without its enter (%s)", r->row,
                (unsigned long long)r->cur->nevents, r->t->regions[reg].name,
                r->nopen ? "not open here, though others are" : "no region is open");
    return OTF2_CALLBACK_INTERRUPT;
}

/* ---------------------------------------------------------------- records not replayed
 *
 * Every record the replay does not replay is counted by its kind (enum rt_skip_kind), on a rank's
 * thread and on its other threads alike. On the rank's thread the time inside some kinds is
 * summed per rank (struct reader.skip_ns): the whole outermost call (a region of paradigm MPI, of
 * an accelerator API or of role FILE_IO) that holds a record of the kind, or is itself an
 * accelerator call; the time from a MeasurementOff to the next MeasurementOn; each BufferFlush's
 * span. That is time the replay keeps as measured, though it stands for what the replay does not
 * model. rt__rd_location gives each kind's worst rank (the largest share of its span). */

/* Kinds whose records weigh the call that holds them. */
#define SKIP_IN_CALL (1u << RT_SKIP_RMA | 1u << RT_SKIP_NBCOLL | 1u << RT_SKIP_COMM | 1u << RT_SKIP_IO)

/* The outermost call closed at @p t held records of the kinds r->call_kinds. */
static RT_COLD void call_done(struct reader *r, rt_time_ns t)
{
    for (int k = 0; k < RT_SKIP_KINDS; k++)
        if (r->call_kinds >> k & 1)
            r->skip_ns[k] += t - r->call_enter;
    r->call_kinds = 0;
}

static OTF2_CallbackCode skip(struct reader *r, int kind)
{
    r->stats.skipped[kind].records++;
    if (!r->thr_cur && r->call_depth && (SKIP_IN_CALL >> kind & 1))
        r->call_kinds |= 1u << kind;
    return OTF2_CALLBACK_SUCCESS;
}

#define SKIP_COUNTER(name, kind, ...)                                                                            \
    static OTF2_CallbackCode skip_##name(EVT_ARGS, __VA_ARGS__)                                                   \
    {                                                                                                             \
        (void)loc; (void)ts; (void)pos; (void)attrs;                                                              \
        return skip(ud, kind);                                                                                    \
    }
SKIP_COUNTER(OmpAcquireLock, RT_SKIP_THREAD, uint32_t lock, uint32_t order)
SKIP_COUNTER(OmpReleaseLock, RT_SKIP_THREAD, uint32_t lock, uint32_t order)
SKIP_COUNTER(OmpTaskCreate, RT_SKIP_THREAD, uint64_t task)
SKIP_COUNTER(OmpTaskSwitch, RT_SKIP_THREAD, uint64_t task)
SKIP_COUNTER(OmpTaskComplete, RT_SKIP_THREAD, uint64_t task)
SKIP_COUNTER(ThreadAcquireLock, RT_SKIP_THREAD, OTF2_Paradigm m, uint32_t lock, uint32_t order)
SKIP_COUNTER(ThreadReleaseLock, RT_SKIP_THREAD, OTF2_Paradigm m, uint32_t lock, uint32_t order)
SKIP_COUNTER(ThreadTaskCreate, RT_SKIP_THREAD, OTF2_CommRef team, uint32_t th, uint32_t gen)
SKIP_COUNTER(ThreadTaskSwitch, RT_SKIP_THREAD, OTF2_CommRef team, uint32_t th, uint32_t gen)
SKIP_COUNTER(ThreadTaskComplete, RT_SKIP_THREAD, OTF2_CommRef team, uint32_t th, uint32_t gen)
SKIP_COUNTER(ThreadCreate, RT_SKIP_THREAD, OTF2_CommRef c, uint64_t seq)
SKIP_COUNTER(ThreadBegin, RT_SKIP_THREAD, OTF2_CommRef c, uint64_t seq)
SKIP_COUNTER(ThreadWait, RT_SKIP_THREAD, OTF2_CommRef c, uint64_t seq)
SKIP_COUNTER(ThreadEnd, RT_SKIP_THREAD, OTF2_CommRef c, uint64_t seq)
SKIP_COUNTER(Metric, RT_SKIP_METRIC, OTF2_MetricRef m, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *v)
SKIP_COUNTER(ParameterString, RT_SKIP_PARAMETER, OTF2_ParameterRef p, OTF2_StringRef v)
SKIP_COUNTER(ParameterInt, RT_SKIP_PARAMETER, OTF2_ParameterRef p, int64_t v)
SKIP_COUNTER(ParameterUnsignedInt, RT_SKIP_PARAMETER, OTF2_ParameterRef p, uint64_t v)
SKIP_COUNTER(CallingContextEnter, RT_SKIP_CONTEXT, OTF2_CallingContextRef c, uint32_t d)
SKIP_COUNTER(CallingContextLeave, RT_SKIP_CONTEXT, OTF2_CallingContextRef c)
SKIP_COUNTER(CallingContextSample, RT_SKIP_CONTEXT, OTF2_CallingContextRef c, uint32_t d, OTF2_InterruptGeneratorRef g)
SKIP_COUNTER(IoCreateHandle, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_IoAccessMode m, OTF2_IoCreationFlag c,
             OTF2_IoStatusFlag f)
SKIP_COUNTER(IoDestroyHandle, RT_SKIP_IO, OTF2_IoHandleRef h)
SKIP_COUNTER(IoDuplicateHandle, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_IoHandleRef h2, OTF2_IoStatusFlag f)
SKIP_COUNTER(IoSeek, RT_SKIP_IO, OTF2_IoHandleRef h, int64_t off, OTF2_IoSeekOption w, uint64_t res)
SKIP_COUNTER(IoChangeStatusFlags, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_IoStatusFlag f)
SKIP_COUNTER(IoDeleteFile, RT_SKIP_IO, OTF2_IoParadigmRef p, OTF2_IoFileRef f)
SKIP_COUNTER(IoOperationBegin, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_IoOperationMode m, OTF2_IoOperationFlag f,
             uint64_t b, uint64_t id)
SKIP_COUNTER(IoOperationTest, RT_SKIP_IO, OTF2_IoHandleRef h, uint64_t id)
SKIP_COUNTER(IoOperationIssued, RT_SKIP_IO, OTF2_IoHandleRef h, uint64_t id)
SKIP_COUNTER(IoOperationComplete, RT_SKIP_IO, OTF2_IoHandleRef h, uint64_t b, uint64_t id)
SKIP_COUNTER(IoOperationCancelled, RT_SKIP_IO, OTF2_IoHandleRef h, uint64_t id)
SKIP_COUNTER(IoAcquireLock, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_LockType l)
SKIP_COUNTER(IoReleaseLock, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_LockType l)
SKIP_COUNTER(IoTryLock, RT_SKIP_IO, OTF2_IoHandleRef h, OTF2_LockType l)
SKIP_COUNTER(ProgramBegin, RT_SKIP_PROGRAM, OTF2_StringRef name, uint32_t n, const OTF2_StringRef *args)
SKIP_COUNTER(ProgramEnd, RT_SKIP_PROGRAM, int64_t status)
SKIP_COUNTER(NonBlockingCollectiveRequest, RT_SKIP_NBCOLL, uint64_t req)
SKIP_COUNTER(NonBlockingCollectiveComplete, RT_SKIP_NBCOLL, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
             uint64_t s, uint64_t rv, uint64_t req)
SKIP_COUNTER(CommCreate, RT_SKIP_COMM, OTF2_CommRef c)
SKIP_COUNTER(CommDestroy, RT_SKIP_COMM, OTF2_CommRef c)

/* Measurement switched off and on again: the rank's time in between is not recorded (its MPI
 * calls neither), and the replay keeps it as compute. */
static OTF2_CallbackCode skip_MeasurementOnOff(EVT_ARGS, OTF2_MeasurementMode mode)
{
    struct reader *r = ud;
    rt_time_ns t;
    (void)loc; (void)pos; (void)attrs;
    skip(r, RT_SKIP_MEASUREMENT);
    if (r->thr_cur || to_ns(r, ts, &t))
        return OTF2_CALLBACK_SUCCESS;
    if (mode == OTF2_MEASUREMENT_OFF && r->off_since == INT64_MIN)
        r->off_since = t;
    else if (mode == OTF2_MEASUREMENT_ON && r->off_since != INT64_MIN) {
        r->skip_ns[RT_SKIP_MEASUREMENT] += t > r->off_since ? t - r->off_since : 0;
        r->off_since = INT64_MIN;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static int tracer_step(struct reader *r, rt_time_ns t0, rt_time_ns t1);

/* The measurement system writing its buffer out: time the program did not spend on itself. One
 * outside MPI calls (retime-trace drains its event log there, instrument/README.md) is taken out
 * of compute (tracer_step); one inside a call is the call's, which the model times. */
static OTF2_CallbackCode skip_BufferFlush(EVT_ARGS, OTF2_TimeStamp stop)
{
    struct reader *r = ud;
    rt_time_ns t0, t1;
    (void)loc; (void)pos; (void)attrs;
    skip(r, RT_SKIP_FLUSH);
    if (!r->thr_cur && !to_ns(r, ts, &t0) && !to_ns(r, stop, &t1) && t1 > t0) {
        r->skip_ns[RT_SKIP_FLUSH] += t1 - t0;
        if (r->mpi_depth == 0 && tracer_step(r, t0, t1))
            return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A record of a type OTF2 does not know (a newer writer's, or a damaged type byte), on a rank or
 * one of its threads: skipped, counted, and the first one's place kept for the warning. */
static OTF2_CallbackCode ev_unknown(EVT_ARGS)
{
    struct reader *r = ud;
    (void)ts; (void)attrs;
    if (r->stats.unknown_records++ == 0) {
        r->unknown_location = loc;
        r->unknown_record = pos;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------------------------------------------------------------- CPU time
 *
 * retime-trace puts the rank's thread CPU time on an Enter or Leave at least every 20 us
 * (instrument/src/clock.c). Between two readings the rank is taken as running; the time it did
 * not run (wall minus CPU since the first reading, less what was placed before) is placed at the
 * second reading, in the gap just before it (never more than that gap; the rest at the next
 * reading), so that no interval is off by more than the tracer's reading interval. Only a gap
 * outside MPI calls is compute: the time lost there is kept, as steps of the lost time so far (only
 * its changes) that the replay's --compute cpu subtracts from the event times, and counted as the
 * rank's wait for a CPU. Time lost inside an MPI call is placed but not kept: the model times the
 * call, or it keeps its measured (wall) time, as MPI_Init's, whose ends the ranks share. */

/* A stretch of time outside MPI calls ends at an MPI Enter from outside and starts at the Leave
 * back to outside; @p t is the event's time, @p depth_before the MPI nesting before it. */
static inline void compute_edge(struct reader *r, rt_time_ns t, int mpi, int depth_before)
{
    if (r->cpu.compute_from == INT64_MIN)
        r->cpu.compute_from = t;
    if (!mpi)
        return;
    if (depth_before == 0 && r->cpu.in_compute) { /* Enter of an MPI call from outside */
        r->cur->compute_wall += t - r->cpu.compute_from;
        r->cpu.in_compute = 0;
    } else if (depth_before == 1 && r->mpi_depth == 0) { /* Leave back to outside */
        r->cpu.in_compute = 1;
        r->cpu.compute_from = t;
    }
}

/* Adds a step of the time not the program's, as it is now, at @p at. */
static int add_step(struct reader *r, rt_time_ns at)
{
    struct rt__row *row = r->cur;
    if (r->vm && row->ncpu == row->capcpu) { /* a streamed row: address space, moved while held */
        uint64_t ncap = row->capcpu ? 2 * row->capcpu : row->vmcap + 1024;
        int moves = row->capcpu != 0;
        if (moves && rt__stream_hold(r, 1))
            return rt__rd_fail(r, RT_EINVAL, "location %llu (rank %u): more CPU steps than a streamed read reserved "
                                             "for it: on a network the reader thread cannot move them; replay it whole "
                                             "(--memory-budget) or with RETIME_READ_THREADS=1",
                               (unsigned long long)row->location, r->row);
        struct rt__cpu_step *nc = vm_resize(row->cpu, row->capcpu, ncap, sizeof *nc);
        if (nc) {
            row->cpu = nc;
            row->capcpu = ncap;
        }
        if (moves)
            rt__stream_hold(r, 0);
        if (!nc)
            return rt__rd_fail(r, RT_ENOMEM, "out of memory keeping CPU times");
    } else if (rt__grow_one64((void **)&row->cpu, &row->capcpu, sizeof *row->cpu, row->ncpu))
        return rt__rd_fail(r, RT_ENOMEM, "out of memory keeping CPU times");
    row->cpu[row->ncpu++] = (struct rt__cpu_step){at, r->cpu.lost, r->cpu.tracer};
    return RT_OK;
}

/* The tracer took [t0, t1] outside MPI calls for itself (a flush): from t1 on, event times hold
 * that much more that is not compute. The flush lies in the gap after the last event; a CPU
 * reading that closes the gap places no more time in it than the rest (cpu_reading). */
static int tracer_step(struct reader *r, rt_time_ns t0, rt_time_ns t1)
{
    struct rt__row *row = r->cur;
    rt_time_ns after = row->nevents ? row->events[row->nevents - 1].time : t0;
    if (t0 < after) /* a flush that began before the last event: only its part after it */
        t0 = after;
    if (t1 <= t0)
        return RT_OK;
    if (r->cpu.gap_at != after || !row->nevents)
        r->cpu.gap_tracer = 0;
    r->cpu.gap_at = after;
    r->cpu.gap_tracer += t1 - t0;
    r->cpu.tracer += t1 - t0;
    row->compute_tracer += t1 - t0;
    return add_step(r, t1);
}

/* The event just pushed at @p t carries attributes: takes its CPU time, if it has one.
 * @p outside: the gap before it is outside MPI calls. */
static int cpu_reading(struct reader *r, OTF2_AttributeList *attrs, rt_time_ns t, int outside)
{
    uint64_t v;
    if (OTF2_AttributeList_GetUint64(attrs, r->cpu_attr, &v) != OTF2_SUCCESS)
        return RT_OK;
    struct rt__row *row = r->cur;
    /* The gap the lost time goes into ends at t and begins at the last earlier time: events at t
     * itself (a message record and the Leave of its call share a time stamp) all take the new
     * lost time, so the gap between them is not the one. */
    /* (a streamed read has given back the events before kept; the event before the run at the
     * last time it read is always kept, rt__rd_location_safe, so the time looked for is there) */
    rt_time_ns prev = INT64_MIN;
    for (uint64_t k = row->nevents - 1; k-- > row->kept;)
        if (row->events[k].time < t) {
            prev = row->events[k].time;
            break;
        }
    row->cpu_readings++;
    if (r->cpu.n++ == 0) {
        r->cpu.base_at = t;
        r->cpu.base_cpu = v;
        return RT_OK;
    }
    int64_t ran = v > r->cpu.base_cpu ? (int64_t)(v - r->cpu.base_cpu) : 0;
    rt_time_ns inc = (t - r->cpu.base_at) - ran - r->cpu.placed;
    if (inc <= 0) /* CPU time cannot run ahead of the wall time: the clocks' granularity */
        return RT_OK;
    /* the gap, less the tracer's own time in it (taken out already, tracer_step) */
    rt_time_ns room = prev == INT64_MIN ? inc : t - prev - (r->cpu.gap_at == prev ? r->cpu.gap_tracer : 0);
    if (inc > room)
        inc = room > 0 ? room : 0;
    r->cpu.placed += inc;
    if (!outside || !inc) /* inside an MPI call: its time is the model's, or as measured; not compute */
        return RT_OK;
    r->cpu.lost += inc;
    row->compute_wait += inc;
    return add_step(r, t);
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
    int depth = r->mpi_depth;
    struct rt_event *e = push(r, ts, RT_EV_ENTER);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    e->ref = reg;
    r->open[reg]++;
    r->nopen++;
    if (rf & RT_EVF_MPI) {
        e->flags = RT_EVF_MPI;
        if (r->mpi_depth++ == 0) {
            r->call_flags = rf & (RT_EVF_SYNC | RT_EVF_BUFFERED);
            r->mpi_enter = r->cur->nevents - 1;
        }
    }
    compute_edge(r, e->time, rf & RT_EVF_MPI, depth);
    if (attrs && r->have_cpu_attr && cpu_reading(r, attrs, e->time, depth == 0))
        return OTF2_CALLBACK_INTERRUPT;
    if (rf & RF_CALL) { /* the time inside records not replayed: see call_done */
        if (r->call_depth++ == 0) {
            r->call_enter = e->time;
            r->call_kinds = 0;
        }
        if (RT_UNLIKELY(rf & RF_ACCEL))
            r->call_kinds |= 1u << RT_SKIP_ACCEL;
    }
    /* Without call-site definitions no attribute can name one: the list is not looked at. With
     * callsite_repeats, an Enter that names none was made from its region's last site. */
    if (r->have_callsites) {
        uint32_t cs;
        if (attrs && enter_callsite(r, attrs, &cs)) {
            e->aux = cs;
            if (r->last_callsite)
                r->last_callsite[reg] = cs;
        } else if (r->last_callsite) {
            e->aux = r->last_callsite[reg];
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(EVT_ARGS, OTF2_RegionRef region)
{
    struct reader *r = ud;
    (void)loc; (void)pos;
    uint32_t reg = ref_get(&r->regions, region);
    if (reg == RT_NONE)
        return undefined_region(r, region, "leave");
    if (RT_UNLIKELY(r->open[reg] == 0))
        return leave_unplaced(r, reg);
    r->open[reg]--;
    r->nopen--;
    int depth = r->mpi_depth;
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
    compute_edge(r, e->time, rf & RT_EVF_MPI, depth);
    if (attrs && r->have_cpu_attr && cpu_reading(r, attrs, e->time, depth == 0))
        return OTF2_CALLBACK_INTERRUPT;
    if ((rf & RF_CALL) && r->call_depth > 0 && --r->call_depth == 0 && RT_UNLIKELY(r->call_kinds != 0))
        call_done(r, e->time);
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
        return rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: %s on undefined communicator %u", r->row, ev,
                           what, (unsigned)comm);
    struct rt__comm *cm = &t->comms[c];
    *ci = cm->is_self ? cm->self_base + r->row : c; /* a self communicator: this process's own instance */
    if (rank == OTF2_UNDEFINED_UINT32) {
        *row = RT_NONE;
        return RT_OK;
    }
    if (cm->is_self) {
        if (rank != 0)
            return rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: %s to rank %u of a self communicator",
                               r->row, ev, what, rank);
        *row = r->row;
        return RT_OK;
    }
    if (rank >= cm->nmembers)
        return rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: %s with rank %u outside communicator '%s' of size %u",
                           r->row, ev, what, rank, cm->pub.name, cm->nmembers);
    *row = cm->members[rank];
    if (*row == RT_NONE && (r->flags & RT_TRACE_ALLOW_MISSING_RANKS))
        *row = ROW_MISSING; /* the caller drops what involves it */
    else if (*row == RT_NONE)
        return rt__rd_fail(r, RT_ECORRUPT,
                           "rank %u event %llu: %s with rank %u of communicator '%s' whose location is not in the trace "
                           "(a rank that wrote nothing? --allow-missing-ranks replays without it)",
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
        return rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: %s without a peer rank", r->row,
                           (unsigned long long)r->cur->nevents, what);
    if (len > RT_MAX_BYTES)
        return rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: %s of %llu bytes, more than %llu (corrupt size?)", r->row,
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
    if (RT_LIKELY(cm && len <= RT_MAX_BYTES && !cm->is_self && peer < cm->nmembers && cm->members[peer] != RT_NONE))
        row = cm->members[peer];
    else if (message_peer(r, peer, comm, len, what, &ci, &row))
        return OTF2_CALLBACK_INTERRUPT;
    if (RT_UNLIKELY(row == ROW_MISSING)) { /* to or from a missing rank: dropped, the caller counts it */
        *out = NULL;
        return OTF2_CALLBACK_SUCCESS;
    }
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
    if (RT_UNLIKELY(!e)) {
        r->stats.missing_sends++;
        return OTF2_CALLBACK_SUCCESS;
    }
    e->flags |= r->call_flags;
    r->stats.sends++;
    r->stats.bytes_sent += len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode remember_request(struct reader *r, uint64_t req)
{
    if (req_put(&r->requests, req, r->cur->nevents - 1)) {
        rt__rd_fail(r, RT_ENOMEM, "out of memory tracking requests");
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
    if (RT_UNLIKELY(!e)) { /* its completion is read over */
        r->stats.missing_sends++;
        if (req_put(&r->requests, req, REQ_DROPPED)) {
            rt__rd_fail(r, RT_ENOMEM, "out of memory tracking requests");
            return OTF2_CALLBACK_INTERRUPT;
        }
        return OTF2_CALLBACK_SUCCESS;
    }
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
    if (start == REQ_DROPPED) /* a send to a missing rank */
        return OTF2_CALLBACK_SUCCESS;
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
    if (RT_UNLIKELY(!e)) {
        r->stats.missing_recvs++;
        return OTF2_CALLBACK_SUCCESS;
    }
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
    if (start == REQ_DROPPED || start == UINT64_MAX || r->cur->events[start].kind != RT_EV_IRECV_REQUEST) {
        /* No recorded post: replay it as a receive posted when the completing call began. */
        if (message(r, ts, RT_EV_RECV, sender, comm, tag, len, "receive", UINT64_MAX, &e))
            return OTF2_CALLBACK_INTERRUPT;
        if (RT_UNLIKELY(!e)) {
            r->stats.missing_recvs++;
            return OTF2_CALLBACK_SUCCESS;
        }
        e->flags |= RT_EVF_ORPHAN;
        r->stats.orphan_completions++;
        r->stats.recvs++;
        return OTF2_CALLBACK_SUCCESS;
    }
    /* the message's fields go to the request, which has a payload (the completion has none) */
    if (message(r, ts, RT_EV_IRECV, sender, comm, tag, len, "receive", start, &e))
        return OTF2_CALLBACK_INTERRUPT;
    if (RT_UNLIKELY(!e)) { /* from a missing rank: the request, completed by nothing, is skipped */
        r->cur->events[start].flags |= RT_EVF_CANCELLED;
        r->stats.missing_recvs++;
        return OTF2_CALLBACK_SUCCESS;
    }
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
    if (start != UINT64_MAX && start != REQ_DROPPED)
        r->cur->events[start].flags |= RT_EVF_CANCELLED;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_begin(EVT_ARGS)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    if (r->coll_begin != UINT64_MAX) {
        rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: collective begins inside another collective",
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

uint8_t rt_coll_op_otf2(int op, int vector)
{
    switch (op) { /* the inverse of coll_op and coll_vector */
    case RT_COLL_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
    case RT_COLL_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
    case RT_COLL_GATHER: return vector ? OTF2_COLLECTIVE_OP_GATHERV : OTF2_COLLECTIVE_OP_GATHER;
    case RT_COLL_SCATTER: return vector ? OTF2_COLLECTIVE_OP_SCATTERV : OTF2_COLLECTIVE_OP_SCATTER;
    case RT_COLL_ALLGATHER: return vector ? OTF2_COLLECTIVE_OP_ALLGATHERV : OTF2_COLLECTIVE_OP_ALLGATHER;
    case RT_COLL_ALLTOALL: return vector ? OTF2_COLLECTIVE_OP_ALLTOALLV : OTF2_COLLECTIVE_OP_ALLTOALL;
    case RT_COLL_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
    case RT_COLL_ALLREDUCE: return vector ? OTF2_COLLECTIVE_OP_REDUCE_SCATTER : OTF2_COLLECTIVE_OP_ALLREDUCE;
    case RT_COLL_SCAN: return OTF2_COLLECTIVE_OP_SCAN;
    /* RT_COLL_OTHER: operations OTF2 3 does not define (the reader keeps the handle operations as
     * measured time, not as collectives). Written as the first value after those OTF2 3 defines,
     * so that reading the archive back times it as before. */
    default: return (uint8_t)(OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE + 1);
    }
}

/* The handle and allocation operations of OTF2_CollectiveOp (OTF2 3.x): communicator, window
 * and memory set-up and tear-down. Score-P 8 and later record MPI_Init and MPI_Finalize so (one
 * CREATE_HANDLE, one DESTROY_HANDLE on the world communicator inside the call's region), and every
 * version records MPI_Comm_split, _dup, _free, MPI_Win_create ... so. Their time is the MPI
 * library's own start-up and bookkeeping (seconds for an MPI_Init), not data moved between the
 * ranks, so no network model can time them: the reader keeps the call as its measured time, as
 * an older Score-P's MPI_Init region without collective records is kept (see ev_coll_end). */
static int coll_handle(OTF2_CollectiveOp op)
{
    return op >= OTF2_COLLECTIVE_OP_CREATE_HANDLE && op <= OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE;
}

/* Vector variants, whose ranks may pass different counts (the replay then skips its size check).
 * A reduce_scatter_block is one too although its blocks are equal: both reduce-scatters are an
 * allreduce's vector variant whose block is the whole vector the ranks send (Score-P's sent
 * count), where a plain allreduce's reading would take one rank's share of it as the vector. */
static int coll_vector(OTF2_CollectiveOp op)
{
    return op == OTF2_COLLECTIVE_OP_GATHERV || op == OTF2_COLLECTIVE_OP_SCATTERV ||
           op == OTF2_COLLECTIVE_OP_ALLGATHERV || op == OTF2_COLLECTIVE_OP_ALLTOALLV ||
           op == OTF2_COLLECTIVE_OP_ALLTOALLW || op == OTF2_COLLECTIVE_OP_REDUCE_SCATTER ||
           op == OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
}

/* The open collective's begin, the row's last event, taken back: the call keeps its measured time. */
static void take_back_begin(struct reader *r)
{
    struct rt__row *row = r->cur;
    uint64_t n = --row->nevents;
    rt__pblock_set(&row->pblocks[n >> 6], rt__pblock_has(&row->pblocks[n >> 6]) & ~(1ull << (n & 63)));
    row->npay--;
    r->tail_final = 0; /* the payload before may or may not be final: share none with it */
    r->coll_begin = UINT64_MAX;
}

/* What a collective's completion tells about its begin @p b (blocking and non-blocking alike): an
 * operation OTF2 does not define is counted (a newer writer's: said, not silent); vector
 * operations, and any collective on a communicator a missing rank belongs to (among the members
 * present each has its own counts, which no missing member can confirm), time per-member counts. */
/* retime-trace's retime::in_place attribute on a collective's end: the call was MPI_IN_PLACE on
 * this rank, so its counts leave its own block out (the replay reads its block as such). */
static int coll_in_place(const struct reader *r, OTF2_AttributeList *attrs)
{
    uint8_t v = 0;
    return attrs && r->have_inplace_attr && OTF2_AttributeList_GetUint8(attrs, r->inplace_attr, &v) == OTF2_SUCCESS &&
           v;
}

static void coll_begin_flags(struct reader *r, struct rt_event *b, OTF2_CollectiveOp op, uint32_t ci)
{
    if (op > OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE)
        r->stats.unknown_coll_ops++;
    if (coll_vector(op))
        b->flags |= RT_EVF_VECTOR;
    if (RT_UNLIKELY(ci < r->t->ncomms && r->t->comms[ci].present)) {
        b->flags |= RT_EVF_VECTOR;
        r->stats.missing_colls++;
    }
}

static OTF2_CallbackCode ev_coll_end(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    struct reader *r = ud;
    (void)loc; (void)pos;
    if (r->coll_begin == UINT64_MAX) {
        rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: collective end without begin", r->row,
                    (unsigned long long)r->cur->nevents);
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint32_t ci = RT_NONE, root_row = RT_NONE; /* set by peer_row on success */
    if (peer_row(r, comm, root, "collective", &ci, &root_row))
        return OTF2_CALLBACK_INTERRUPT;
    if (coll_handle(op) && r->coll_begin == r->cur->nevents - 1) {
        /* A set-up call (coll_handle): its begin, the row's last event, is taken back, so that the
         * call's region holds no operation and keeps its measured duration. (With events between
         * begin and end, which no producer is known to write, it stays a collective.) */
        take_back_begin(r);
        r->stats.measured_collectives++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (RT_UNLIKELY(root_row == ROW_MISSING)) {
        /* Rooted at a missing rank: nothing to time it by. The call keeps its measured time (its
         * begin taken back, or, with events in between, skipped as a collective never completed). */
        if (r->coll_begin == r->cur->nevents - 1)
            take_back_begin(r);
        else
            r->cur->events[r->coll_begin].flags |= RT_EVF_CANCELLED;
        r->coll_begin = UINT64_MAX;
        r->stats.missing_roots++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (sent > RT_MAX_BYTES || received > RT_MAX_BYTES) {
        rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: collective of %llu bytes sent, %llu received, more than %llu "
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
    coll_begin_flags(r, b, op, ci);
    if (coll_in_place(r, attrs))
        b->flags |= RT_EVF_IN_PLACE;
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

/* ---------------------------------------------------------------- non-blocking collectives
 *
 * An MPI_I<coll> call holds a NonBlockingCollectiveRequest(request id); the MPI_Wait, MPI_Test
 * (or their variants) that completes it holds a NonBlockingCollectiveComplete with the
 * operation, communicator, root, sizes and the same request id (OTF2 3.x; Score-P writes them
 * so). The request becomes an RT_EV_NBCOLL_BEGIN, where the member enters the collective, and the
 * completion an RT_EV_NBCOLL_END, by which its part must be done. Their pairing goes through the
 * table of open requests, as nonblocking messages do; the operation and counts come with the
 * completion and are written back to the begin (its payload, and its aux the end's index, so that
 * the engine finds the counts and the operation from the begin in O(1)). An unpaired record is an
 * error: a member missing from one instance would shift every later collective on its
 * communicator onto the wrong instance. */

static OTF2_CallbackCode ev_nbcoll_request(EVT_ARGS, uint64_t req)
{
    struct reader *r = ud;
    (void)loc; (void)pos; (void)attrs;
    uint64_t n = r->cur->nevents;
    uint64_t prev = req_take(&r->requests, req);
    if (prev != UINT64_MAX && prev != REQ_DROPPED && r->cur->events[prev].kind == RT_EV_NBCOLL_BEGIN) {
        rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: non-blocking collective request %llu started again while "
                    "its request at event %llu is not completed", r->row, (unsigned long long)n,
                    (unsigned long long)req, (unsigned long long)prev);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (n >= UINT32_MAX) { /* its end refers to it in 32 bits */
        rt__rd_fail(r, RT_EUNSUPPORTED, "rank %u event %llu: a non-blocking collective beyond event 2^32 - 1", r->row,
                    (unsigned long long)n);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (!push(r, ts, RT_EV_NBCOLL_BEGIN))
        return OTF2_CALLBACK_INTERRUPT;
    r->tail_final = 0; /* its fields come with its completion */
    return remember_request(r, req);
}

/* The request at event @p start is skipped: the calls holding it and its completion keep their
 * measured time. */
static void nbcoll_skip(struct reader *r, uint64_t start)
{
    struct rt_event *b = &r->cur->events[start];
    b->flags |= RT_EVF_CANCELLED;
    b->aux = RT_NONE;
}

static OTF2_CallbackCode ev_nbcoll_complete(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                            uint64_t sent, uint64_t received, uint64_t req)
{
    struct reader *r = ud;
    (void)loc; (void)pos;
    uint64_t n = r->cur->nevents;
    uint64_t start = take_request(r, req);
    if (start == UINT64_MAX || start == REQ_DROPPED || r->cur->events[start].kind != RT_EV_NBCOLL_BEGIN) {
        rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: non-blocking collective completion (%s) of request %llu "
                    "without its request (no NonBlockingCollectiveRequest %llu open on this location)", r->row,
                    (unsigned long long)n, rt_coll_op_name((int)coll_op(op)), (unsigned long long)req,
                    (unsigned long long)req);
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint32_t ci = RT_NONE, root_row = RT_NONE; /* set by peer_row on success */
    if (peer_row(r, comm, root, "non-blocking collective", &ci, &root_row))
        return OTF2_CALLBACK_INTERRUPT;
    if (coll_handle(op)) { /* MPI_Comm_idup and the like: set-up, kept as measured time (see coll_handle) */
        nbcoll_skip(r, start);
        r->stats.measured_collectives++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (RT_UNLIKELY(root_row == ROW_MISSING)) { /* rooted at a missing rank: nothing to time it by */
        nbcoll_skip(r, start);
        r->stats.missing_roots++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (sent > RT_MAX_BYTES || received > RT_MAX_BYTES) {
        rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: non-blocking collective of %llu bytes sent, %llu received, "
                    "more than %llu (corrupt size?)", r->row, (unsigned long long)n, (unsigned long long)sent,
                    (unsigned long long)received, (unsigned long long)RT_MAX_BYTES);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (n >= UINT32_MAX) { /* its begin refers to it in 32 bits */
        rt__rd_fail(r, RT_EUNSUPPORTED, "rank %u event %llu: a non-blocking collective's completion beyond event "
                    "2^32 - 1", r->row, (unsigned long long)n);
        return OTF2_CALLBACK_INTERRUPT;
    }
    int prev_final = r->tail_final;
    struct rt_event *e = push(r, ts, RT_EV_NBCOLL_END);
    if (!e)
        return OTF2_CALLBACK_INTERRUPT;
    struct rt_event *b = &r->cur->events[start];
    b->ref = root_row;
    b->aux = (uint32_t)(r->cur->nevents - 1);
    e->ref = (uint32_t)start;
    e->aux = coll_op(op);
    coll_begin_flags(r, b, op, ci);
    if (coll_in_place(r, attrs))
        b->flags |= RT_EVF_IN_PLACE;
    struct rt_event_payload *bp = rt__row_payload_of(r->cur, start), *ep = last_payload(r);
    bp->comm = ci;
    bp->bytes = sent;
    ep->comm = ci;
    ep->bytes = received;
    /* the begin's fields are final now; the payload before the end's may be another's, final or not */
    share_payload(r, bp == ep - 1 || prev_final);
    r->stats.collectives++;
    r->stats.nb_collectives++;
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
 * it dropped, and weighs the call that holds it (see skip). One callback per record type, each
 * with its own signature. */
static OTF2_CallbackCode rma_seen(struct reader *r)
{
    r->stats.rma_records++;
    if (!r->thr_cur && r->call_depth)
        r->call_kinds |= 1u << RT_SKIP_RMA;
    return OTF2_CALLBACK_SUCCESS;
}
#define RMA_COUNTER(name, ...)                                                                                    \
    static OTF2_CallbackCode rma_##name(EVT_ARGS, __VA_ARGS__)                                                    \
    {                                                                                                             \
        return rma_seen(ud);                                                                                      \
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
    return rma_seen(ud);
}

/* The callbacks every CPU thread shares: thread teams, the RMA counters, records of unknown type. */
static void set_common_callbacks(OTF2_EvtReaderCallbacks *cb)
{
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, ev_unknown);
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
#define SKIP_SET(name) OTF2_EvtReaderCallbacks_Set##name##Callback(cb, skip_##name)
    SKIP_SET(OmpAcquireLock); SKIP_SET(OmpReleaseLock); SKIP_SET(OmpTaskCreate); SKIP_SET(OmpTaskSwitch);
    SKIP_SET(OmpTaskComplete); SKIP_SET(ThreadAcquireLock); SKIP_SET(ThreadReleaseLock); SKIP_SET(ThreadTaskCreate);
    SKIP_SET(ThreadTaskSwitch); SKIP_SET(ThreadTaskComplete); SKIP_SET(ThreadCreate); SKIP_SET(ThreadBegin);
    SKIP_SET(ThreadWait); SKIP_SET(ThreadEnd); SKIP_SET(Metric); SKIP_SET(ParameterString); SKIP_SET(ParameterInt);
    SKIP_SET(ParameterUnsignedInt); SKIP_SET(CallingContextEnter); SKIP_SET(CallingContextLeave);
    SKIP_SET(CallingContextSample); SKIP_SET(IoCreateHandle); SKIP_SET(IoDestroyHandle); SKIP_SET(IoDuplicateHandle);
    SKIP_SET(IoSeek); SKIP_SET(IoChangeStatusFlags); SKIP_SET(IoDeleteFile); SKIP_SET(IoOperationBegin);
    SKIP_SET(IoOperationTest); SKIP_SET(IoOperationIssued); SKIP_SET(IoOperationComplete);
    SKIP_SET(IoOperationCancelled); SKIP_SET(IoAcquireLock); SKIP_SET(IoReleaseLock); SKIP_SET(IoTryLock);
    SKIP_SET(ProgramBegin); SKIP_SET(ProgramEnd); SKIP_SET(NonBlockingCollectiveRequest);
    SKIP_SET(NonBlockingCollectiveComplete); SKIP_SET(CommCreate); SKIP_SET(CommDestroy);
    SKIP_SET(MeasurementOnOff); SKIP_SET(BufferFlush);
#undef SKIP_SET
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
    (void)loc; (void)pos;
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
    rt__rd_fail(r, RT_EUNSUPPORTED, "thread location %llu of rank %u: %s on a thread other than the process's MPI "
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


/* Location @p location's local definition and event files, refused when they are there but are
 * not regular files (rt__rd_member), before OTF2 opens them; @p where begins the error. */
static int location_members(struct reader *r, uint64_t location, const char *where)
{
    char tail[64];
    snprintf(tail, sizeof tail, "/%llu.def", (unsigned long long)location);
    if (rt__rd_member(r, tail, where))
        return r->failed;
    snprintf(tail, sizeof tail, "/%llu.evt", (unsigned long long)location);
    return rt__rd_member(r, tail, where);
}

/* Reads one of a rank's other threads: its team spans, nothing kept as events. */
static OTF2_CallbackCode def_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    struct reader *r = ud;
    (void)time;
    if (!r->offs.n++) {
        r->offs.first = offset;
        r->offs.first_sd = sd;
    }
    r->offs.last = offset;
    r->offs.last_sd = sd;
    return OTF2_CALLBACK_SUCCESS;
}

static double ticks_ns(const struct reader *r, double ticks)
{
    return ticks * 1e9 / (double)r->timer_resolution;
}

/* Adds the rank's offsets (read with its local definitions) to the stats; see rt_trace_clock_offsets. */
static void clock_offsets_done(struct reader *r, uint32_t row)
{
    struct rt_trace_clock_offsets *c = &r->stats.clock;
    if (!r->offs.n)
        return;
    double a = fabs((double)r->offs.first), b = fabs((double)r->offs.last);
    rt_time_ns mag = (rt_time_ns)llround(ticks_ns(r, a > b ? a : b));
    if (mag > 0) {
        if (!c->ranks || mag > c->max_ns || (mag == c->max_ns && row < c->max_rank)) {
            c->max_ns = mag;
            c->max_rank = row;
        }
        c->ranks++;
    }
    double move = fabs((double)r->offs.last - (double)r->offs.first), unc = r->offs.first_sd + r->offs.last_sd;
    if (r->offs.n > 1 && isfinite(unc) && move > unc) {
        rt_time_ns m = (rt_time_ns)llround(ticks_ns(r, move));
        if (!c->drift_ranks || m > c->drift_ns || (m == c->drift_ns && row < c->drift_rank)) {
            c->drift_ns = m;
            c->drift_uncertainty_ns = (rt_time_ns)llround(ticks_ns(r, unc));
            c->drift_rank = row;
        }
        c->drift_ranks++;
    }
}

int rt__rd_thread(struct reader *r, OTF2_Reader *rd, struct thread_loc *th)
{
    char where[96];
    r->thr_cur = th;
    r->team_depth = 0;
    r->row = th->row;
    if (r->last_callsite) /* a thread's call sites are its own */
        memset(r->last_callsite, 0xff, (r->t->nregions ? r->t->nregions : 1) * sizeof *r->last_callsite);
    snprintf(where, sizeof where, "thread location %llu of rank %u: ", (unsigned long long)th->location, th->row);
    if (location_members(r, th->location, where))
        goto done;
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, th->location);
    if (dr) {
        uint64_t n = 0;
        OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
        if (ec != OTF2_SUCCESS && !r->failed)
            rt__rd_fail(r, RT_ECORRUPT, "thread location %llu of rank %u: local definitions unreadable: %s",
                        (unsigned long long)th->location, th->row, OTF2_Error_GetDescription(ec));
        if (r->failed)
            goto done;
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, th->location);
    if (!er) {
        char tail[64], why[4200];
        snprintf(tail, sizeof tail, "/%llu.evt", (unsigned long long)th->location);
        rt__rd_fail(r, RT_ECORRUPT, "thread location %llu of rank %u: no event reader: %s", (unsigned long long)th->location,
                    th->row, rt__rd_file_problem(r->path, tail, why, sizeof why));
        goto done;
    }
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb) {
        OTF2_Reader_CloseEvtReader(rd, er);
        rt__rd_fail(r, RT_ENOMEM, "out of memory");
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
        rt__rd_fail(r, RT_ECORRUPT, "thread location %llu of rank %u: event data truncated or corrupt after %llu events: %s",
                    (unsigned long long)th->location, th->row, (unsigned long long)nread, OTF2_Error_GetDescription(ec));
    r->memory += th->capspans * sizeof *th->spans;
done:
    r->thr_cur = NULL;
    return r->failed;
}

/* ---------------------------------------------------------------- a rank's location */

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

/* At the end of a row: a call still open, measurement still off, count up to its last event; each
 * kind's time is this rank's share of its span, kept when it is the worst so far. */
static void skip_shares(struct reader *r, const struct rt__row *cur)
{
    if (!cur->nevents)
        return;
    rt_time_ns first = cur->first_time, last = cur->last_time;
    if (r->call_depth && r->call_kinds)
        call_done(r, last);
    if (r->off_since != INT64_MIN && last > r->off_since)
        r->skip_ns[RT_SKIP_MEASUREMENT] += last - r->off_since;
    for (int k = 0; k < RT_SKIP_KINDS; k++) {
        struct rt_trace_skip mine = {.worst_ns = r->skip_ns[k], .span_ns = last - first, .worst_rank = r->row};
        if (mine.worst_ns > mine.span_ns) /* a flush's stop time past the rank's last event */
            mine.worst_ns = mine.span_ns;
        rt__skip_worse(&r->stats.skipped[k], &mine);
    }
}

int rt__rd_location_open(struct reader *r, OTF2_Reader *rd, uint32_t row, OTF2_EvtReader **erp)
{
    rt_trace *t = r->t;
    struct rt__row *cur = &t->rows[row];
    r->row = row;
    r->cur = cur;
    r->mpi_depth = 0;
    r->mpi_enter = 0;
    r->nread = 0;
    r->first_noted = 0;
    *erp = NULL;
    r->call_flags = 0;
    r->last_time = INT64_MIN;
    r->fast_lo = r->fast_hi ? r->global_offset : UINT64_MAX;
    r->coll_begin = UINT64_MAX;
    r->tail_final = 0;
    r->thr_cur = NULL;
    r->team_depth = 0;
    r->call_depth = 0;
    r->call_kinds = 0;
    r->off_since = INT64_MIN;
    memset(r->skip_ns, 0, sizeof r->skip_ns);
    memset(&r->cpu, 0, sizeof r->cpu);
    r->cpu.gap_at = INT64_MIN;
    r->cpu.in_compute = 1;
    r->cpu.compute_from = INT64_MIN; /* from the first event on */
    req_clear(&r->requests);
    if (!r->open && !(r->open = calloc(t->nregions ? t->nregions : 1, sizeof *r->open)))
        return rt__rd_fail(r, RT_ENOMEM, "out of memory");
    if (r->callsite_repeats && r->have_callsites) { /* each rank's call sites start unknown */
        if (!r->last_callsite && !(r->last_callsite = malloc((t->nregions ? t->nregions : 1) * sizeof *r->last_callsite)))
            return rt__rd_fail(r, RT_ENOMEM, "out of memory");
        memset(r->last_callsite, 0xff, (t->nregions ? t->nregions : 1) * sizeof *r->last_callsite); /* RT_NONE */
    }
    if (r->nopen) { /* the rank before left regions open (a trace cut short): none are here */
        memset(r->open, 0, (t->nregions ? t->nregions : 1) * sizeof *r->open);
        r->nopen = 0;
    }
    uint64_t declared = cur->nevents;
    cur->nevents = 0;
    cur->npay = 0;
    cur->kept = cur->safe = 0;
    cur->first_time = cur->last_time = 0;
    cur->more = 1;
    r->cap = 0;
    /* A streamed row reserves address space for 8x the count declared (at least 2^20 events): a
     * count too low costs a move later, which a replay on a network cannot always take
     * (trace_stream.c); a smaller reservation where the system refuses that much. */
    uint64_t want = declared;
    if (r->vm)
        want = r->vm_reserve ? r->vm_reserve : declared > (1ull << 17) ? 8 * declared : (1ull << 20);
    for (; want && want < (1ull << 40); want = r->vm && want > declared && want > 4096 ? want / 2 : 0)
        if (grow_row(r, cur, 0, want) == RT_OK)
            break;
    if (want && want < (1ull << 40)) {
        declared = want;
        r->cap = declared;
        if (!r->vm) /* (a streamed row holds a window: small pages, given back one by one) */
            advise_huge(cur->events, declared * sizeof *cur->events);
    }

    char where[96];
    snprintf(where, sizeof where, "location %llu (rank %u): ", (unsigned long long)cur->location, row);
    if (location_members(r, cur->location, where))
        return r->failed;
    /* Local definitions hold the mapping tables and clock offsets OTF2 applies to this
     * location's events; the offsets are also noted for the stats. */
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, cur->location);
    memset(&r->offs, 0, sizeof r->offs);
    if (dr) {
        uint64_t n = 0;
        OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
        if (!dcb) {
            OTF2_Reader_CloseDefReader(rd, dr);
            return rt__rd_fail(r, RT_ENOMEM, "out of memory");
        }
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, def_clock_offset);
        OTF2_Reader_RegisterDefCallbacks(rd, dr, dcb, r);
        OTF2_DefReaderCallbacks_Delete(dcb);
        OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
        clock_offsets_done(r, row);
        if (ec != OTF2_SUCCESS && !r->failed)
            return rt__rd_fail(r, RT_ECORRUPT, "location %llu (rank %u): local definitions unreadable: %s",
                               (unsigned long long)cur->location, row, OTF2_Error_GetDescription(ec));
        if (r->failed)
            return r->failed;
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, cur->location);
    if (!er) {
        char tail[64], why[4200];
        snprintf(tail, sizeof tail, "/%llu.evt", (unsigned long long)cur->location);
        return rt__rd_fail(r, RT_ECORRUPT, "location %llu (rank %u): no event reader: %s%s", (unsigned long long)cur->location,
                           row, rt__rd_file_problem(r->path, tail, why, sizeof why),
                           rt__rd_member_empty(r->path, tail)
                               ? " (a rank killed before it wrote? --allow-missing-ranks replays without it)" : "");
    }
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return rt__rd_fail(r, RT_ENOMEM, "out of memory");
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
    /* on the rank's own thread non-blocking collectives are replayed (set_common_callbacks counts
     * them, for the other threads) */
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbcoll_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbcoll_complete);
    OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, r);
    OTF2_EvtReaderCallbacks_Delete(cb);
    *erp = er;
    return RT_OK;
}

int rt__rd_location_read(struct reader *r, OTF2_Reader *rd, OTF2_EvtReader *er, uint64_t n, int *end)
{
    struct rt__row *cur = r->cur;
    uint64_t nread = 0;
    OTF2_ErrorCode ec = n == UINT64_MAX ? OTF2_Reader_ReadAllLocalEvents(rd, er, &nread)
                                        : OTF2_Reader_ReadLocalEvents(rd, er, n, &nread);
    r->nread += nread;
    r->stats.otf2_events += nread;
    if (!r->first_noted && cur->nevents) { /* (a streamed row gives its first events back later) */
        cur->first_time = cur->events[0].time;
        r->first_noted = 1;
    }
    *end = n == UINT64_MAX || nread < n;
    if (r->failed)
        return r->failed;
    if (ec != OTF2_SUCCESS)
        return rt__rd_fail(r, RT_ECORRUPT, "location %llu (rank %u): event data truncated or corrupt after %llu events: %s",
                           (unsigned long long)cur->location, r->row, (unsigned long long)r->nread,
                           OTF2_Error_GetDescription(ec));
    return RT_OK;
}

uint64_t rt__rd_location_safe(const struct reader *r)
{
    const struct rt__row *cur = r->cur;
    uint64_t s = cur->nevents;
    if (!cur->more)
        return s;
    if (r->have_cpu_attr && s && cur->events[s - 1].time == r->last_time) /* the run at the last time read */
        while (s > cur->kept && cur->events[s - 1].time == r->last_time)
            s--;
    if (r->mpi_depth > 0 && r->mpi_enter < s)
        s = r->mpi_enter;
    if (r->coll_begin != UINT64_MAX && r->coll_begin < s)
        s = r->coll_begin;
    if (r->team_depth && r->fork_ev < s)
        s = r->fork_ev;
    for (size_t i = 0; r->requests.count && i < r->requests.cap; i++) {
        const struct req_slot *q = &r->requests.slot[i];
        if (q->val && q->val - 1 != REQ_DROPPED && q->val - 1 < s)
            s = q->val - 1;
    }
    return s;
}

int rt__rd_location(struct reader *r, OTF2_Reader *rd, uint32_t row)
{
    OTF2_EvtReader *er = NULL;
    int end, rc = rt__rd_location_open(r, rd, row, &er);
    if (rc == RT_OK)
        rc = rt__rd_location_read(r, rd, er, UINT64_MAX, &end);
    if (er)
        OTF2_Reader_CloseEvtReader(rd, er);
    return rc ? rc : rt__rd_location_close(r);
}

int rt__rd_location_close(struct reader *r)
{
    struct rt__row *cur = r->cur;
    uint32_t row = r->row;
    /* Receive requests never completed carry no message: the replay skips them. Sends never
     * completed still send (the replay needs no completion for that), but are counted: a
     * tracer that lost their completions (one handle for several pending requests) is told. */
    for (size_t i = 0; r->requests.count && i < r->requests.cap; i++) {
        const struct req_slot *s = &r->requests.slot[i];
        if (!s->val || s->val - 1 == REQ_DROPPED)
            continue;
        if (cur->events[s->val - 1].kind == RT_EV_IRECV_REQUEST) {
            cur->events[s->val - 1].flags |= RT_EVF_CANCELLED;
            r->stats.dropped_requests++;
        } else if (cur->events[s->val - 1].kind == RT_EV_ISEND) {
            r->stats.uncompleted_isends++;
        }
    }
    if (r->coll_begin != UINT64_MAX)
        cur->events[r->coll_begin].flags |= RT_EVF_CANCELLED;
    /* A non-blocking collective never completed: its peers would wait for this member forever,
     * and every later instance on its communicator would pair with the wrong one. */
    const struct req_slot *open_nb = NULL; /* the earliest, whatever the table's order */
    for (size_t i = 0; r->requests.count && i < r->requests.cap; i++) {
        const struct req_slot *s = &r->requests.slot[i];
        if (s->val && s->val - 1 != REQ_DROPPED && cur->events[s->val - 1].kind == RT_EV_NBCOLL_BEGIN &&
            (!open_nb || s->val < open_nb->val))
            open_nb = s;
    }
    if (open_nb)
        return rt__rd_fail(r, RT_ECORRUPT, "rank %u event %llu: non-blocking collective request %llu never "
                           "completed (no NonBlockingCollectiveComplete for it on this location)", row,
                           (unsigned long long)(open_nb->val - 1), (unsigned long long)open_nb->key);
    if (cur->nevents < r->cap && !r->vm) { /* give back what the declared count over-reserved */
        struct rt_event *shrunk = realloc(cur->events, (cur->nevents ? cur->nevents : 1) * sizeof *shrunk);
        if (shrunk)
            cur->events = shrunk;
    }
    if (cur->npay < r->cap && !r->vm) { /* and the payloads' room beyond those there are */
        struct rt_event_payload *shrunk = realloc(cur->pay, (cur->npay ? cur->npay : 1) * sizeof *shrunk);
        if (shrunk)
            cur->pay = shrunk;
    }
    if (r->cpu.in_compute && r->cpu.compute_from != INT64_MIN && cur->nevents) /* the last stretch */
        cur->compute_wall += cur->events[cur->nevents - 1].time - r->cpu.compute_from;
    if (cur->nevents)
        cur->last_time = cur->events[cur->nevents - 1].time;
    cur->safe = cur->nevents;
    cur->more = 0;
    skip_shares(r, cur);
    uint64_t nblocks = (cur->nevents + 63) / 64;
    r->stats.events += cur->nevents;
    r->memory += cur->nevents * sizeof(struct rt_event) + cur->npay * sizeof(struct rt_event_payload) +
                 nblocks * sizeof(struct rt__pblock);
    return RT_OK;
}
