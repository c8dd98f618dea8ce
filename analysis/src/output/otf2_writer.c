/* SPDX-License-Identifier: MIT */
/*
 * A timing of a trace (a replay's prediction) -> a new OTF2 archive with the trace's definitions,
 * so that Vampir, otf2-print or retime itself show the predicted run beside the measured one.
 *
 * Layout (docs/otf2-output.md has the reader's view):
 *   - timer resolution 10^12 ticks/s, global offset 0: a tick is 1 ps, the unit of the timing, so
 *     the timestamps are the predicted times exactly;
 *   - one location per trace row, with the row's OTF2 location id and name, each in a location
 *     group (a process) "MPI Rank <row>" under one system tree node;
 *   - regions in the trace's order (ref = region index), paradigm MPI or USER;
 *   - call sites as retime's tracer writes them: call site j is calling context j (the region
 *     named like its function and a source code location), referenced from Enter events by the
 *     attribute `retime::callsite`; call sites without a function after the last one that has
 *     one are bare source code locations, referenced by `retime::callsite_location` (as Score-P
 *     does), so that the reader (replay/src/trace/trace_defs.c) numbers them the same when it
 *     reads the archive back;
 *   - one COMM_LOCATIONS group (MPI rank r = row r), one COMM_SELF group that every self
 *     communicator shares (as Score-P defines them), one COMM_GROUP group per distinct member list
 *     (a duplicate shares its parent's), communicators in the trace's order (ref = communicator
 *     index) with their parents (a split's or a duplicate's);
 *   - every event carries `retime::measured_ns` (its measured time), and the events on the
 *     critical path `retime::critical_path` = 1.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "retime/otf2_writer.h"
#include "outfile.h"

/* Attribute ids. */
enum { ATTR_CALLSITE = 0, ATTR_CRITICAL = 1, ATTR_MEASURED = 2, ATTR_CALLSITE_LOCATION = 3 };

/* Marks request ids of receives that had no recorded post: no IrecvRequest carries one, so the
 * reader takes the MpiIrecv for an orphan completion again (RT_EVF_ORPHAN). Started requests
 * use their event index, which is below 2^63. */
#define ORPHAN_REQUEST (UINT64_C(1) << 63)

/* Interned strings: each distinct string is one String definition, written on first use. */
struct str_slot {
    char *s;          /* owned copy; NULL = free slot */
    uint32_t ref;     /* its String definition */
    uint32_t region;  /* the first region of that name, or RT_NONE */
};

struct strtab {
    struct str_slot *slots;
    uint32_t cap, n; /* cap: power of two */
};

/* A communicator's ranks by trace row, sorted by row: (row << 32 | comm rank). */
struct comm_index {
    uint64_t *by_row;
    uint32_t n;
    int self;
    uint32_t group; /* the communicator whose group it is written with (share_groups) */
};

struct writer {
    const rt_trace *t;
    const rt_depgraph *g;
    rt_error *err;
    const char *dir;
    int rc;                 /* first error, RT_OK while all is well */
    OTF2_Archive *ar;
    OTF2_GlobalDefWriter *gw;
    OTF2_AttributeList *attrs;
    struct strtab st;
    struct comm_index *comms;
    uint32_t ncomms;
    uint32_t ctx_callsites; /* call sites [0, ctx_callsites) are calling contexts */
    uint64_t *nrecords;     /* per row: OTF2 event records written */
    rt_time_ps t_max;
    OTF2_ErrorCode sys;     /* the first system error OTF2 met (OTF2_ERROR_E...), or OTF2_SUCCESS */
};

static OTF2_ErrorCode otf2_quiet(void *ud, const char *file, uint64_t line, const char *function,
                                 OTF2_ErrorCode code, const char *fmt, va_list va)
{
    /* Library code never prints: OTF2's own messages are dropped, its codes are reported. */
    (void)ud; (void)file; (void)line; (void)function; (void)fmt; (void)va;
    return code;
}

/* The same while writing, keeping the first system error (a full disk: OTF2_ERROR_ENOSPC), which
 * OTF2 passes here and then reports to the caller as a fault of its own (INTEGRITY_FAULT). */
static OTF2_ErrorCode otf2_keep_sys(void *ud, const char *file, uint64_t line, const char *function,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    struct writer *w = ud;
    if (w->sys == OTF2_SUCCESS && code >= OTF2_ERROR_E2BIG && code <= OTF2_ERROR_EXDEV)
        w->sys = code;
    return otf2_quiet(ud, file, line, function, code, fmt, va);
}

static int fail(struct writer *w, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records the first error only: later ones are usually consequences of it. */
static int fail(struct writer *w, int code, const char *fmt, ...)
{
    if (w->rc == RT_OK) {
        char buf[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        rt_error_set(w->err, code, "%s: %s", w->dir, buf);
        w->rc = code;
    }
    return w->rc;
}

/* A system error OTF2 met, as strerror says it (as every other output's error does) for the ones
 * a writer meets, else as OTF2 does. */
static const char *sys_text(OTF2_ErrorCode c)
{
    static const struct {
        OTF2_ErrorCode code;
        int err;
    } known[] = {{OTF2_ERROR_ENOSPC, ENOSPC}, {OTF2_ERROR_EFBIG, EFBIG},   {OTF2_ERROR_EDQUOT, EDQUOT},
                 {OTF2_ERROR_EIO, EIO},       {OTF2_ERROR_EROFS, EROFS},   {OTF2_ERROR_EACCES, EACCES},
                 {OTF2_ERROR_ENOENT, ENOENT}, {OTF2_ERROR_EMFILE, EMFILE}, {OTF2_ERROR_ENAMETOOLONG, ENAMETOOLONG}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (known[i].code == c)
            return strerror(known[i].err);
    return OTF2_Error_GetDescription(c);
}

/* Checks one OTF2 call; returns nonzero (and records RT_EIO) when it failed. */
static int otf2_ok(struct writer *w, OTF2_ErrorCode ec, const char *what)
{
    if (ec == OTF2_SUCCESS)
        return 1;
    if (w->sys != OTF2_SUCCESS) /* the cause, in the words of its errno */
        fail(w, RT_EIO, "cannot write the OTF2 archive: %s", sys_text(w->sys));
    else
        fail(w, RT_EIO, "cannot write the OTF2 archive: %s: %s (%s)", what, OTF2_Error_GetDescription(ec),
             OTF2_Error_GetName(ec));
    return 0;
}

/* ---------------------------------------------------------------- strings */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct str_slot *str_find(const struct strtab *st, const char *s)
{
    if (!st->cap)
        return NULL;
    for (uint32_t i = (uint32_t)hash_str(s) & (st->cap - 1);; i = (i + 1) & (st->cap - 1)) {
        if (!st->slots[i].s)
            return &st->slots[i];
        if (!strcmp(st->slots[i].s, s))
            return &st->slots[i];
    }
}

static int str_grow(struct strtab *st)
{
    uint32_t ncap = st->cap ? st->cap * 2 : 256;
    if (ncap < st->cap)
        return -1;
    struct str_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (uint32_t j = 0; j < st->cap; j++) {
        if (!st->slots[j].s)
            continue;
        uint32_t i = (uint32_t)hash_str(st->slots[j].s) & (ncap - 1);
        while (ns[i].s)
            i = (i + 1) & (ncap - 1);
        ns[i] = st->slots[j];
    }
    free(st->slots);
    st->slots = ns;
    st->cap = ncap;
    return 0;
}

static void str_free(struct strtab *st)
{
    for (uint32_t i = 0; i < st->cap; i++)
        free(st->slots[i].s);
    free(st->slots);
    st->slots = NULL;
    st->cap = st->n = 0;
}

/* The String definition of @p s in *ref, written now if it is new; nonzero on failure (error
 * recorded). Returns the ref, not the slot: the next call may move the slots. */
static int intern(struct writer *w, const char *s, uint32_t *ref)
{
    struct strtab *st = &w->st;
    if (!s)
        s = "";
    if ((st->n + 1) * 2 > st->cap && str_grow(st))
        return fail(w, RT_ENOMEM, "out of memory");
    struct str_slot *slot = str_find(st, s);
    if (!slot->s) {
        char *copy = strdup(s);
        if (!copy)
            return fail(w, RT_ENOMEM, "out of memory");
        if (!otf2_ok(w, OTF2_GlobalDefWriter_WriteString(w->gw, st->n, s), "string definition")) {
            free(copy);
            return w->rc;
        }
        *slot = (struct str_slot){copy, st->n++, RT_NONE};
    }
    *ref = slot->ref;
    return RT_OK;
}

/* ---------------------------------------------------------------- communicators */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int build_comm_index(struct writer *w)
{
    w->ncomms = rt_trace_comms(w->t);
    w->comms = calloc(w->ncomms ? w->ncomms : 1, sizeof *w->comms);
    if (!w->comms)
        return fail(w, RT_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < w->ncomms; c++) {
        uint32_t size;
        const uint32_t *members = rt_trace_comm_defined(w->t, c, &size); /* with missing ranks' places */
        struct comm_index *ci = &w->comms[c];
        /* The reader gives a self communicator (MPI_COMM_SELF) size 1 and no member table. */
        if (!members) {
            ci->self = 1;
            continue;
        }
        ci->by_row = malloc((size_t)(size ? size : 1) * sizeof *ci->by_row);
        if (!ci->by_row)
            return fail(w, RT_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < size; k++)
            if (members[k] != RT_NONE)
                ci->by_row[ci->n++] = (uint64_t)members[k] << 32 | k;
        qsort(ci->by_row, ci->n, sizeof *ci->by_row, cmp_u64);
    }
    return RT_OK;
}

/* A defined communicator's members as a sort key: communicators of the same members (in the same
 * order) share one group, found by sorting the keys rather than comparing every pair (a trace
 * may define many thousands of communicators). A self communicator has no members: size
 * UINT32_MAX keeps them apart from the others. */
struct group_key {
    uint64_t hash;
    uint32_t size, comm;
};

static int cmp_group_key(const void *a, const void *b)
{
    const struct group_key *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->comm < y->comm ? -1 : x->comm > y->comm;
}

static int same_members(const rt_trace *t, uint32_t a, uint32_t b)
{
    uint32_t na, nb;
    const uint32_t *ma = rt_trace_comm_defined(t, a, &na), *mb = rt_trace_comm_defined(t, b, &nb);
    return !ma ? !mb : mb && na == nb && !memcmp(ma, mb, na * sizeof *ma);
}

/* Each defined communicator's group (struct comm_index.group): the first communicator's of the
 * same members, as the input shares them (Score-P's one COMM_SELF group for every self
 * communicator; a duplicate's group is its parent's). */
static int share_groups(struct writer *w)
{
    struct group_key *key = malloc((w->ncomms ? w->ncomms : 1) * sizeof *key);
    if (!key)
        return fail(w, RT_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t c = 0; c < w->ncomms; c++) {
        const struct rt_comm *cm = rt_trace_comm(w->t, c);
        w->comms[c].group = c;
        if (cm->origin != c)
            continue;
        uint32_t size;
        const uint32_t *members = rt_trace_comm_defined(w->t, c, &size);
        uint64_t h = 14695981039346656037ull; /* FNV-1a over the members */
        for (uint32_t k = 0; members && k < size; k++)
            h = (h ^ members[k]) * 1099511628211ull;
        key[n++] = (struct group_key){h, members ? size : UINT32_MAX, c};
    }
    qsort(key, n, sizeof *key, cmp_group_key);
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && key[j].hash == key[i].hash && key[j].size == key[i].size; j++)
            ;
        /* a run of equal keys, in communicator order: almost always one list of members */
        for (uint32_t a = i + 1; a < j; a++)
            for (uint32_t b = i; b < a; b++)
                if (same_members(w->t, key[a].comm, key[b].comm)) {
                    w->comms[key[a].comm].group = w->comms[key[b].comm].group;
                    break;
                }
    }
    free(key);
    return RT_OK;
}

/* Rank of trace row @p row in communicator @p comm; UINT32_MAX if it is not a member. */
static uint32_t comm_rank(const struct writer *w, uint32_t comm, uint32_t my_row, uint32_t row)
{
    const struct comm_index *ci = &w->comms[comm];
    if (ci->self)
        return row == my_row ? 0 : UINT32_MAX;
    uint32_t lo = 0, hi = ci->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t r = (uint32_t)(ci->by_row[mid] >> 32);
        if (r == row)
            return (uint32_t)ci->by_row[mid];
        if (r < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

/* ---------------------------------------------------------------- events */

/* Bounds-checks the message fields of event @p i of @p row and translates its peer (a row) into
 * a rank of its communicator. */
static int peer_of(struct writer *w, uint32_t row, uint64_t i, uint32_t comm, uint32_t peer_row, int may_be_none,
                   uint32_t *rank)
{
    if (comm >= w->ncomms)
        return fail(w, RT_EINVAL, "rank %u event %" PRIu64 ": communicator %u of %u", row, i, comm, w->ncomms);
    if (peer_row == RT_NONE && may_be_none) {
        *rank = OTF2_UNDEFINED_UINT32;
        return RT_OK;
    }
    *rank = peer_row == RT_NONE ? UINT32_MAX : comm_rank(w, comm, row, peer_row);
    if (*rank == UINT32_MAX)
        return fail(w, RT_EINVAL, "rank %u event %" PRIu64 ": peer row %u is not in communicator '%s'", row, i,
                    peer_row, rt_trace_comm(w->t, comm)->name);
    return RT_OK;
}

/* The index an ISEND_COMPLETE, IRECV or COLL_END refers to, checked to be an earlier event of the
 * kind that starts it. */
static int start_of(struct writer *w, uint32_t row, const struct rt_event *ev, uint64_t i, uint8_t kind)
{
    if (ev[i].ref >= i || ev[ev[i].ref].kind != kind)
        return fail(w, RT_EINVAL, "rank %u event %" PRIu64 ": refers to event %u, which does not start it", row, i,
                    ev[i].ref);
    return RT_OK;
}

/* The communicator an event names as written: a process's instance of a self communicator is
 * written as that communicator (the reader makes the instances again). */
static OTF2_CommRef comm_ref(const struct writer *w, uint32_t comm)
{
    const struct rt_comm *cm = rt_trace_comm(w->t, comm);
    return cm ? cm->origin : comm;
}

static int write_event(struct writer *w, OTF2_EvtWriter *ew, uint32_t row, const struct rt_event *ev, uint64_t i,
                       OTF2_TimeStamp ts)
{
    const struct rt_event *e = &ev[i];
    const struct rt_event_payload p = rt_trace_payload(w->t, row, i); /* messages and collectives */
    const uint32_t comm = (uint32_t)p.comm;
    OTF2_AttributeList *al = w->attrs;
    uint32_t peer = 0;
    OTF2_ErrorCode ec;
    switch (e->kind) {
    case RT_EV_ENTER:
    case RT_EV_LEAVE:
        if (e->ref >= rt_trace_regions(w->t))
            return fail(w, RT_EINVAL, "rank %u event %" PRIu64 ": region %u of %u", row, i, e->ref,
                        rt_trace_regions(w->t));
        if (e->kind == RT_EV_LEAVE) {
            ec = OTF2_EvtWriter_Leave(ew, al, ts, e->ref);
            break;
        }
        if (e->aux != RT_NONE && e->aux < rt_trace_callsites(w->t)) {
            ec = e->aux < w->ctx_callsites
                     ? OTF2_AttributeList_AddCallingContextRef(al, ATTR_CALLSITE, e->aux)
                     : OTF2_AttributeList_AddSourceCodeLocationRef(al, ATTR_CALLSITE_LOCATION, e->aux);
            if (!otf2_ok(w, ec, "attribute"))
                return w->rc;
        }
        ec = OTF2_EvtWriter_Enter(ew, al, ts, e->ref);
        break;
    case RT_EV_SEND:
    case RT_EV_ISEND:
        if (peer_of(w, row, i, comm, e->ref, 0, &peer))
            return w->rc;
        if (e->kind == RT_EV_SEND) {
            ec = OTF2_EvtWriter_MpiSend(ew, al, ts, peer, comm_ref(w, comm), e->aux, p.bytes);
            break;
        }
        ec = OTF2_EvtWriter_MpiIsend(ew, al, ts, peer, comm_ref(w, comm), e->aux, p.bytes, i);
        /* A cancelled send's request never completes; the reader knows it only from this record.
         * Its time is lost in the trace: it is written with the send's. */
        if (ec == OTF2_SUCCESS && (e->flags & RT_EVF_CANCELLED)) {
            ec = OTF2_EvtWriter_MpiRequestCancelled(ew, NULL, ts, i);
            w->nrecords[row]++;
        }
        break;
    case RT_EV_ISEND_COMPLETE:
        if (start_of(w, row, ev, i, RT_EV_ISEND))
            return w->rc;
        ec = OTF2_EvtWriter_MpiIsendComplete(ew, al, ts, e->ref);
        break;
    case RT_EV_RECV:
        if (peer_of(w, row, i, comm, e->ref, 0, &peer))
            return w->rc;
        ec = (e->flags & RT_EVF_ORPHAN)
                 ? OTF2_EvtWriter_MpiIrecv(ew, al, ts, peer, comm_ref(w, comm), e->aux, p.bytes, ORPHAN_REQUEST | i)
                 : OTF2_EvtWriter_MpiRecv(ew, al, ts, peer, comm_ref(w, comm), e->aux, p.bytes);
        break;
    case RT_EV_IRECV_REQUEST:
        /* A cancelled (never completed) request gets no record of its end: the reader flags it so. */
        ec = OTF2_EvtWriter_MpiIrecvRequest(ew, al, ts, i);
        break;
    case RT_EV_IRECV: {
        if (start_of(w, row, ev, i, RT_EV_IRECV_REQUEST))
            return w->rc;
        const struct rt_event *post = &ev[e->ref]; /* the reader keeps source and tag there */
        if (peer_of(w, row, i, comm, post->ref, 0, &peer))
            return w->rc;
        ec = OTF2_EvtWriter_MpiIrecv(ew, al, ts, peer, comm_ref(w, comm), post->aux, p.bytes, e->ref);
        break;
    }
    case RT_EV_COLL_BEGIN:
        ec = OTF2_EvtWriter_MpiCollectiveBegin(ew, al, ts);
        break;
    case RT_EV_COLL_END: {
        if (start_of(w, row, ev, i, RT_EV_COLL_BEGIN))
            return w->rc;
        const struct rt_event *b = &ev[e->ref]; /* the reader keeps op, root and bytes sent there */
        if (peer_of(w, row, i, comm, b->ref, 1, &peer))
            return w->rc;
        ec = OTF2_EvtWriter_MpiCollectiveEnd(ew, al, ts, (OTF2_CollectiveOp)rt_coll_op_otf2((int)b->aux, b->flags & RT_EVF_VECTOR), comm_ref(w, comm),
                                             peer, rt_trace_payload(w->t, row, e->ref).bytes, p.bytes);
        break;
    }
    case RT_EV_NBCOLL_BEGIN:
        /* A skipped one (a set-up operation, a missing root) has no completion: nothing is written,
         * as the reader kept nothing of it. Request ids are the begin's event index. */
        if (e->flags & RT_EVF_CANCELLED)
            return RT_OK;
        ec = OTF2_EvtWriter_NonBlockingCollectiveRequest(ew, al, ts, i);
        break;
    case RT_EV_NBCOLL_END: {
        if (start_of(w, row, ev, i, RT_EV_NBCOLL_BEGIN))
            return w->rc;
        const struct rt_event *b = &ev[e->ref]; /* the reader keeps the root and bytes sent there */
        if (peer_of(w, row, i, comm, b->ref, 1, &peer))
            return w->rc;
        ec = OTF2_EvtWriter_NonBlockingCollectiveComplete(ew, al, ts, (OTF2_CollectiveOp)rt_coll_op_otf2((int)e->aux, b->flags & RT_EVF_VECTOR),
                                                          comm_ref(w, comm), peer,
                                                          rt_trace_payload(w->t, row, e->ref).bytes, p.bytes, e->ref);
        break;
    }
    case RT_EV_FORK: /* the team's other threads are not written: the join's time is the prediction */
        ec = OTF2_EvtWriter_ThreadFork(ew, al, ts, OTF2_PARADIGM_OPENMP, 0);
        break;
    case RT_EV_JOIN:
        ec = OTF2_EvtWriter_ThreadJoin(ew, al, ts, OTF2_PARADIGM_OPENMP);
        break;
    default:
        return fail(w, RT_EINVAL, "rank %u event %" PRIu64 ": unknown event kind %u", row, i, e->kind);
    }
    if (!otf2_ok(w, ec, "event"))
        return w->rc;
    w->nrecords[row]++;
    return RT_OK;
}

static int write_row(struct writer *w, uint32_t row)
{
    uint64_t n = 0;
    const struct rt_event *ev = rt_trace_events(w->t, row, &n);
    uint64_t loc = rt_trace_location_id(w->t, row);
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, loc);
    if (!ew)
        return fail(w, RT_EIO, "cannot write the OTF2 archive: no event writer for location %" PRIu64, loc);
    rt_time_ps prev = 0;
    for (uint64_t i = 0; i < n && w->rc == RT_OK; i++) {
        struct rt_dep_event d;
        rt_error e2 = {0};
        if (rt_depgraph_event(w->g, row, i, &d, &e2) != RT_OK) {
            fail(w, RT_EINVAL, "the timing does not belong to this trace: %s", e2.msg);
            break;
        }
        /* OTF2 timestamps are unsigned and never go backwards on a location. */
        if (d.t < 0 || d.t < prev) {
            fail(w, RT_EINVAL, "rank %u event %" PRIu64 ": predicted time %" PRId64 " ps is %s", row, i, d.t,
                 d.t < 0 ? "negative" : "before the previous event's");
            break;
        }
        prev = d.t;
        w->t_max = d.t > w->t_max ? d.t : w->t_max;
        OTF2_AttributeList_RemoveAllAttributes(w->attrs);
        if (!otf2_ok(w, OTF2_AttributeList_AddInt64(w->attrs, ATTR_MEASURED, ev[i].time), "attribute"))
            break;
        if (d.on_path && !otf2_ok(w, OTF2_AttributeList_AddUint8(w->attrs, ATTR_CRITICAL, 1), "attribute"))
            break;
        write_event(w, ew, row, ev, i, (OTF2_TimeStamp)d.t);
    }
    otf2_ok(w, OTF2_Archive_CloseEvtWriter(w->ar, ew), "closing an event writer");
    return w->rc;
}

/* ---------------------------------------------------------------- definitions */

/* Call sites [0, k) become calling contexts and [k, n) bare source code locations, k just past
 * the last call site with a function: the reader numbers contexts first, then locations that no
 * context names, and gives a bare location the function "??". */
static uint32_t ctx_callsites(const rt_trace *t)
{
    uint32_t k = 0, n = rt_trace_callsites(t);
    for (uint32_t j = 0; j < n; j++)
        if (strcmp(rt_trace_callsite(t, j)->function, "??") != 0)
            k = j + 1;
    return k;
}

static int write_definitions(struct writer *w)
{
    const rt_trace *t = w->t;
    uint32_t nrows = rt_trace_ranks(t), nregions = rt_trace_regions(t), ncs = rt_trace_callsites(t);
    uint32_t s = 0, s2 = 0, empty = 0;
    char name[64];
    uint64_t *members = NULL;
    /* Row r's MPI rank: its place in the COMM_LOCATIONS group. Missing ranks
     * (RT_TRACE_ALLOW_MISSING_RANKS) keep their places, holding an undefined location, so that
     * the rows after them keep their ranks and the archive reads back with them missing. */
    uint32_t nmiss = rt_trace_stats(t)->missing_ranks, nranks = nrows + nmiss, placed = 0, passed = 0;
    uint32_t *mpi_rank = malloc((nrows ? nrows : 1) * sizeof *mpi_rank);
    if (!mpi_rank)
        return fail(w, RT_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nranks; i++) {
        if (passed < nmiss && rt_trace_missing_rank(t, passed) == i)
            passed++;
        else if (placed < nrows)
            mpi_rank[placed++] = i;
    }
    if (placed != nrows || passed != nmiss) { /* (places that do not add up: rows in order, as without them) */
        for (uint32_t r = 0; r < nrows; r++)
            mpi_rank[r] = r;
        nmiss = 0;
        nranks = nrows;
    }

    w->gw = OTF2_Archive_GetGlobalDefWriter(w->ar);
    if (!w->gw) {
        fail(w, RT_EIO, "cannot write the OTF2 archive: no global definition writer");
        goto done;
    }
    /* The clock first: readers interpret every later timestamp through it. */
    if (!otf2_ok(w, OTF2_GlobalDefWriter_WriteClockProperties(w->gw, UINT64_C(1000000000000), 0,
                                                              (uint64_t)w->t_max + 1, OTF2_UNDEFINED_TIMESTAMP),
                 "clock properties"))
        goto done;
    if (intern(w, "", &empty) || intern(w, "MPI", &s) ||
        !otf2_ok(w, OTF2_GlobalDefWriter_WriteParadigm(w->gw, OTF2_PARADIGM_MPI, s, OTF2_PARADIGM_CLASS_PROCESS),
                 "paradigm"))
        goto done;

    static const struct {
        uint32_t id;
        const char *name, *descr;
        OTF2_Type type;
    } attrs[] = {
        {ATTR_CALLSITE, "retime::callsite", "Call site of the MPI call (function, file and line of the caller)",
         OTF2_TYPE_CALLING_CONTEXT},
        {ATTR_CRITICAL, "retime::critical_path", "1: the event is on the critical path of the predicted run",
         OTF2_TYPE_UINT8},
        {ATTR_MEASURED, "retime::measured_ns", "Measured time of the event [ns since the measured trace's start]",
         OTF2_TYPE_INT64},
        {ATTR_CALLSITE_LOCATION, "retime::callsite_location", "Call site of the MPI call (file and line)",
         OTF2_TYPE_SOURCE_CODE_LOCATION},
    };
    /* retime::callsite_location only where a call site has no function (Score-P's form). */
    size_t nattrs = sizeof attrs / sizeof attrs[0] - (w->ctx_callsites == ncs ? 1 : 0);
    for (size_t i = 0; i < nattrs; i++) {
        if (intern(w, attrs[i].name, &s) || intern(w, attrs[i].descr, &s2) ||
            !otf2_ok(w, OTF2_GlobalDefWriter_WriteAttribute(w->gw, attrs[i].id, s, s2, attrs[i].type),
                     "attribute definition"))
            goto done;
    }

    /* System tree: one node; one process (location group) per row holding its location. */
    if (intern(w, "machine", &s) ||
        !otf2_ok(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(w->gw, 0, s, s, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
                 "system tree"))
        goto done;
    for (uint32_t r = 0; r < nrows; r++) {
        snprintf(name, sizeof name, "MPI Rank %u", mpi_rank[r]);
        if (intern(w, name, &s) ||
            !otf2_ok(w, OTF2_GlobalDefWriter_WriteLocationGroup(w->gw, r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                                OTF2_UNDEFINED_LOCATION_GROUP),
                     "location group") ||
            intern(w, rt_trace_rank_name(t, r), &s) ||
            !otf2_ok(w, OTF2_GlobalDefWriter_WriteLocation(w->gw, rt_trace_location_id(t, r), s,
                                                           OTF2_LOCATION_TYPE_CPU_THREAD, w->nrecords[r], r),
                     "location"))
            goto done;
    }

    for (uint32_t i = 0; i < nregions; i++) {
        const struct rt_region *rg = rt_trace_region(t, i);
        if (intern(w, rg->name, &s) ||
            !otf2_ok(w, OTF2_GlobalDefWriter_WriteRegion(w->gw, i, s, s, empty, (OTF2_RegionRole)rg->role,
                                                         rg->is_mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                                         OTF2_REGION_FLAG_NONE, empty, 0, 0),
                     "region"))
            goto done;
        struct str_slot *slot = str_find(&w->st, rg->name ? rg->name : ""); /* interned just above */
        if (slot->region == RT_NONE)
            slot->region = i;
    }

    /* Call sites: source code location j (when it has one) and calling context j. */
    for (uint32_t j = 0; j < ncs; j++) {
        const struct rt_callsite *cs = rt_trace_callsite(t, j);
        int bare = j >= w->ctx_callsites;
        OTF2_SourceCodeLocationRef scl = OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
        if (bare || strcmp(cs->file, "??") != 0 || cs->line != 0) {
            if (intern(w, cs->file, &s) ||
                !otf2_ok(w, OTF2_GlobalDefWriter_WriteSourceCodeLocation(w->gw, j, s, cs->line),
                         "source code location"))
                goto done;
            scl = j;
        }
        if (bare)
            continue;
        /* The reader names a call site by its context's region; "??" is an undefined one. */
        struct str_slot *fn = str_find(&w->st, cs->function);
        OTF2_RegionRef region = fn && fn->s && fn->region != RT_NONE ? fn->region : OTF2_UNDEFINED_REGION;
        if (!otf2_ok(w, OTF2_GlobalDefWriter_WriteCallingContext(w->gw, j, region, scl, OTF2_UNDEFINED_CALLING_CONTEXT),
                     "calling context"))
            goto done;
    }

    /* Communicators. The COMM_LOCATIONS group lists the rows' locations at their MPI ranks (an
     * undefined location at a missing rank's, and one more at the end for members that are not
     * rows when no rank is missing), each COMM_GROUP their indexes. */
    uint32_t nomember = nmiss ? rt_trace_missing_rank(t, 0) : nranks, maxsize = nranks + 1, size;
    for (uint32_t c = 0; c < w->ncomms; c++)
        if (rt_trace_comm_defined(t, c, &size) && size > maxsize)
            maxsize = size;
    members = malloc((size_t)maxsize * sizeof *members);
    if (!members) {
        fail(w, RT_ENOMEM, "out of memory");
        goto done;
    }
    int need_nomember = 0;
    for (uint32_t c = 0; c < w->ncomms && !nmiss; c++) {
        const uint32_t *cm = rt_trace_comm_defined(t, c, &size);
        for (uint32_t k = 0; cm && k < size; k++)
            need_nomember |= cm[k] >= nrows;
    }
    for (uint32_t i = 0; i <= nranks; i++)
        members[i] = OTF2_UNDEFINED_LOCATION;
    for (uint32_t r = 0; r < nrows; r++)
        members[mpi_rank[r]] = rt_trace_location_id(t, r);
    if (!otf2_ok(w, OTF2_GlobalDefWriter_WriteGroup(w->gw, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                    nranks + (need_nomember ? 1 : 0), members),
                 "group"))
        goto done;
    for (uint32_t c = 0; c < w->ncomms; c++) {
        const struct rt_comm *cm = rt_trace_comm(t, c);
        uint32_t n = 0;
        if (cm->origin != c) /* an instance of a self communicator: written as that one */
            continue;
        /* The group of an earlier communicator with the same members, if there is one (group c + 1
         * otherwise): the input's groups are shared so (Score-P's one COMM_SELF group; a
         * duplicate's group is its parent's), and otf2-print warns of a second COMM_SELF group. */
        uint32_t group = w->comms[c].group;
        OTF2_CommRef parent = cm->parent < c ? cm->parent : OTF2_UNDEFINED_COMM; /* defined before it */
        const uint32_t *cmm = rt_trace_comm_defined(t, c, &size);
        for (uint32_t k = 0; cmm && k < size; k++)
            members[n++] = cmm[k] < nrows ? mpi_rank[cmm[k]] : nomember;
        if (intern(w, cm->name, &s) ||
            (group == c && !otf2_ok(w, OTF2_GlobalDefWriter_WriteGroup(
                                           w->gw, c + 1, s, cm->members ? OTF2_GROUP_TYPE_COMM_GROUP : OTF2_GROUP_TYPE_COMM_SELF,
                                           OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, members),
                                    "group")) ||
            !otf2_ok(w, OTF2_GlobalDefWriter_WriteComm(w->gw, c, s, group + 1, parent, OTF2_COMM_FLAG_NONE),
                     "communicator"))
            goto done;
    }
done:
    free(members);
    free(mpi_rank);
    return w->rc;
}

/* ---------------------------------------------------------------- driver */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud; (void)ft; (void)loc; (void)cd; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud; (void)ft; (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* Checks that @p g times exactly the events of @p t: same ranks, same number of events each. */
static int check_shape(struct writer *w)
{
    struct rt_dep_event d;
    uint32_t nrows = rt_trace_ranks(w->t);
    for (uint32_t r = 0; r < nrows; r++) {
        uint64_t n = 0;
        rt_trace_events(w->t, r, &n);
        if ((n && rt_depgraph_event(w->g, r, n - 1, &d, NULL) != RT_OK) ||
            rt_depgraph_event(w->g, r, n, &d, NULL) == RT_OK)
            return fail(w, RT_EINVAL, "the timing does not belong to this trace (rank %u: %" PRIu64 " events)", r, n);
    }
    if (rt_depgraph_event(w->g, nrows, 0, &d, NULL) == RT_OK)
        return fail(w, RT_EINVAL, "the timing does not belong to this trace (more than %u ranks)", nrows);
    return RT_OK;
}

int rt_otf2_write(const rt_trace *trace, const rt_depgraph *timing, const char *dir, rt_error *err)
{
    struct writer w = {.t = trace, .g = timing, .err = err, .dir = dir ? dir : "", .rc = RT_OK};
    struct rt__outdir *od = NULL;
    char descr[1200];
    if (!trace || !timing || !dir || !*dir)
        return rt_error_set(err, RT_EINVAL, "rt_otf2_write: no trace, timing or directory given");
    OTF2_Error_RegisterCallback(otf2_keep_sys, &w);
    uint32_t nrows = rt_trace_ranks(trace);
    if (check_shape(&w) || build_comm_index(&w) || share_groups(&w))
        goto done;
    w.ctx_callsites = ctx_callsites(trace);
    w.nrecords = calloc(nrows ? nrows : 1, sizeof *w.nrecords);
    w.attrs = OTF2_AttributeList_New();
    if (!w.nrecords || !w.attrs) {
        fail(&w, RT_ENOMEM, "out of memory");
        goto done;
    }
    /* The directory is made here, not by OTF2, so that an existing one is never written into and
     * the message says why it could not be made; the archive goes into a temporary directory
     * beside it, which replaces it once whole: a reader never sees a partial archive. */
    if ((w.rc = rt__outdir_open(dir, "the OTF2 archive", &od, err)))
        goto done;
    snprintf(descr, sizeof descr, "retime: predicted timing of %s", rt_trace_path(trace));
    /* 1 MiB definition chunks, not 4: a reader zeroes one for each location's local definitions */
    w.ar = OTF2_Archive_Open(rt__outdir_path(od), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 1024 * 1024,
                             OTF2_SUBSTRATE_POSIX,
                             OTF2_COMPRESSION_NONE);
    if (!w.ar) {
        fail(&w, RT_EIO, "OTF2 cannot create an archive here");
        goto done;
    }
    if (!otf2_ok(&w, OTF2_Archive_SetFlushCallbacks(w.ar, &flush_callbacks, NULL), "flush callbacks") ||
        !otf2_ok(&w, OTF2_Archive_SetSerialCollectiveCallbacks(w.ar), "collective callbacks") ||
        !otf2_ok(&w, OTF2_Archive_SetCreator(w.ar, "retime"), "creator") ||
        !otf2_ok(&w, OTF2_Archive_SetDescription(w.ar, descr), "description") ||
        !otf2_ok(&w, OTF2_Archive_OpenEvtFiles(w.ar), "opening the event files"))
        goto done;
    /* One location at a time: closing its writer flushes what is left of its buffer, and OTF2's own
     * allocator flushes a buffer whenever it holds 128 MiB, so memory stays bounded however long
     * the trace is. */
    for (uint32_t r = 0; r < nrows && w.rc == RT_OK; r++)
        write_row(&w, r);
    if (!otf2_ok(&w, OTF2_Archive_CloseEvtFiles(w.ar), "closing the event files") || w.rc)
        goto done;
    /* Empty local definitions: the events already use the global ids. */
    if (!otf2_ok(&w, OTF2_Archive_OpenDefFiles(w.ar), "opening the definition files"))
        goto done;
    for (uint32_t r = 0; r < nrows && w.rc == RT_OK; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w.ar, rt_trace_location_id(trace, r));
        if (!dw)
            fail(&w, RT_EIO, "cannot write the OTF2 archive: no definition writer for location %" PRIu64,
                 rt_trace_location_id(trace, r));
        else
            otf2_ok(&w, OTF2_Archive_CloseDefWriter(w.ar, dw), "local definitions");
    }
    if (!otf2_ok(&w, OTF2_Archive_CloseDefFiles(w.ar), "closing the definition files") || w.rc)
        goto done;
    if (write_definitions(&w))
        goto done;
    OTF2_Archive *ar = w.ar;
    w.ar = NULL;
    if (otf2_ok(&w, OTF2_Archive_Close(ar), "closing the archive")) {
        w.rc = rt__outdir_close(od, err);
        od = NULL;
    }
done:
    if (w.ar)
        OTF2_Archive_Close(w.ar);
    OTF2_Error_RegisterCallback(otf2_quiet, NULL);
    rt__outdir_abort(od); /* no partial archive is left behind: both directories are ours */
    if (w.attrs)
        OTF2_AttributeList_Delete(w.attrs);
    for (uint32_t c = 0; w.comms && c < w.ncomms; c++)
        free(w.comms[c].by_row);
    free(w.comms);
    free(w.nrecords);
    str_free(&w.st);
    return w.rc;
}
