/* SPDX-License-Identifier: MIT */
/*
 * Clock correction: the controlled logical clock (CLC) of Becker, Rabenseifner, Wolf and Linford,
 * "Scalable timestamp synchronization for event traces of message-passing applications",
 * Parallel Computing 35(12), 2009, on the trace's measured timestamps.
 *
 * Constraints (edges u -> v, "v must not be earlier than t(u) + l_min"):
 *   send (SEND, ISEND) -> its receive completion (RECV, IRECV): the n-th send of a
 *     (communicator, source, destination, tag) channel matches its n-th receive, as in the replay;
 *   receive post -> completion of a rendezvous send (synchronous, or above the eager limit): such a
 *     send cannot complete before its receive was posted. The post is the Enter of the outermost
 *     MPI call holding the RECV or IRECV_REQUEST (the event itself outside calls), the completion
 *     the Leave of the call holding a blocking SEND, or the ISEND_COMPLETE; as in the replay;
 *   collectives, as Scalasca maps them to logical messages: N-to-N (barrier, allgather, alltoall,
 *     allreduce, reduce_scatter, and the operations retime does not know) every member's end after
 *     every other member's begin; 1-to-N (bcast, scatter) a non-root's end after the root's begin;
 *     N-to-1 (gather, reduce) the root's end after every other member's begin; scan and exscan
 *     member i's end after the begins of members 0..i-1.
 *
 * Forward amortisation (the paper's eq. 3 and 4, Scalasca's Clock.cpp with δ = 0): the ranks are
 * stepped in happened-before order (a rank runs until an event needs a cause not yet reached, as
 * the replay engine does), and each event gets
 *     LC'(e_i) = max( t(e_i), LC'(e_i-1) + γ·(t(e_i) - t(e_i-1)), max over causes u: LC'(u) + l_min ).
 * Without a violation LC' = t, bit for bit; after a jump the controller γ <= 1 keeps the next
 * events at least γ times their original interval apart, so the shift decays back to the
 * original clock at a rate of 1 - γ.
 *
 * Backward amortisation: a jump Δ at a constrained event v (LC'(v) = t_r + Δ, t_r its value
 * without the cause) is spread linearly over the events since the previous communication event
 * c on the rank (a cause or a constrained event of any edge above): event e moves by
 * Δ·(LC'(e) - LC'(c))/(t_r - LC'(c)). Stopping at c (where Scalasca instead looks for sends whose
 * slack bounds the slope) keeps every cause where the other ranks saw it, so no constraint breaks
 * again, and touches every event once: O(events). The events of such a stretch are written only
 * when its closing event is reached, which is also when their original times are last needed.
 *
 * Every time is handled relative to the trace's earliest event, where the reader guarantees a span
 * below 2^51 ns, so no sum below can overflow.
 */
#include "retime/clock_fix.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "map.h"
#include "trace_internal.h"

#define NONE_T INT64_MIN /* no cause */
#define NIL UINT32_MAX

enum { ROLE_SOURCE = 1, ROLE_TARGET = 2 };
enum state { S_READY, S_BLOCKED, S_DONE };
enum shape { NTON, ONETON, NTOONE, SCAN };

struct chan {
    uint64_t nsend, nrecv; /* sends and receives numbered so far */
    uint32_t comm, tag, src, dst;
};

/* A message, created by whichever of its send and its receive post comes first; freed when the
 * receive has completed and, for a rendezvous, the send too. */
struct msg {
    rt_time_ns lc, orig;           /* the send's corrected and original time */
    rt_time_ns post_lc, post_orig; /* the receive post's */
    uint64_t ord, send_ev;
    uint32_t chan, recv_waiter, send_waiter, next_free;
    uint8_t used, have_send, have_post, rdv, recv_done, send_done;
};

struct top2 { /* the two latest begins of a collective, so that a member can exclude its own */
    rt_time_ns v1, v2;
    uint32_t who1;
};

struct coll {
    uint64_t seq, first_ev;
    uint32_t comm, op, root, size, arrived, ended, waiters, next_free, first_rank;
    struct top2 lc, orig;
    rt_time_ns root_lc, root_orig;
    rt_time_ns *pre_lc, *pre_orig; /* scan: a member's begin, then (once the prefix passed it) the
                                      latest begin of the members before it */
    uint8_t *mark;                 /* scan: 0 absent, 1 begun, 2 prefix passed, 4 end waiting */
    uint32_t prefix;               /* scan: members 0..prefix-1 have all begun */
    uint8_t root_in, used;
};

struct rank {
    struct rt_event *ev;
    uint64_t n, cur;   /* events; the next one to step */
    uint64_t scan;     /* the controller has run up to here (scan <= cur) */
    uint64_t base;     /* first event of the open stretch (after the last communication event) */
    double off_s;      /* the controller's offset LC' - t at event scan-1 (kept exact, see ctl) */
    rt_time_ns t_s;    /* and its original time */
    double off_b;      /* the same for event base-1 */
    rt_time_ns t_b, lc_b;
    uint32_t held;     /* the message whose receive completes at cur */
    uint32_t next_waiter;
    uint32_t *waits, nwaits, capwaits; /* rendezvous blocking sends of the current MPI call */
    int depth;         /* MPI call nesting */
    uint8_t state;
};

struct cf {
    rt_trace *t;
    const char *path;
    int fix; /* 1: correct; 0: only count the violations */
    rt_time_ns lmin, lo, limit;
    double gamma;
    rt_bytes eager;
    struct rank *ranks;
    uint32_t nranks, *stack, nstack;
    struct rt__map chan_of, msg_of, post_of, send_of, coll_of, coll_seq, coll_pend, comm_rank;
    struct chan *chans;
    struct msg *msgs;
    struct coll *colls;
    uint32_t nchans, capchans, nmsgs, capmsgs, freemsg, ncolls, capcolls, freecoll;
    struct rt_clock_fix_report *rep;
    rt_error *err;
};

void rt_clock_fix_options_init(struct rt_clock_fix_options *o)
{
    o->min_latency_ns = RT_CLOCK_FIX_DEFAULT_LMIN_NS;
    o->gamma = RT_CLOCK_FIX_DEFAULT_GAMMA;
    o->eager_limit_bytes = RT_CLOCK_FIX_SYNC_ONLY;
}

/* ------------------------------------------------------------------ helpers */


static int oom(struct cf *c)
{
    return rt_error_set(c->err, RT_ENOMEM, "%s: clock fix: out of memory", c->path);
}

static const char *comm_name(const struct cf *c, uint32_t comm)
{
    const struct rt_comm *cm = rt_trace_comm(c->t, comm);
    return cm && cm->name && cm->name[0] ? cm->name : "?";
}

static void wake(struct cf *c, uint32_t r)
{
    if (c->ranks[r].state == S_BLOCKED) {
        c->ranks[r].state = S_READY;
        c->stack[c->nstack++] = r;
    }
}

/* The controller, on the offset LC' - t: from offset @p off at original time @p tp, the offset at
 * original time @p t. LC' = max(t, LC'_prev + γ·(t - tp)) is off = max(0, off_prev - (1-γ)·(t - tp)),
 * kept as a real number so that rounding to whole ns does not add up over many events; the event
 * gets t + floor(off), which keeps the rank's order (the floors differ by at most t - tp) and is
 * t exactly, bit for bit, while no jump came before. */
static double ctl(const struct cf *c, double off, rt_time_ns tp, rt_time_ns t)
{
    double o = off - (1.0 - c->gamma) * (double)(t - tp);
    return o > 0 ? o : 0;
}

/* Writes corrected time @p v (relative) of an event whose original relative time is @p orig. */
static int put(struct cf *c, uint32_t r, uint64_t j, rt_time_ns orig, rt_time_ns v)
{
    if (v > c->limit)
        return rt_error_set(c->err, RT_ERANGE,
                            "%s: clock fix: rank %u event %" PRIu64 " would move to %" PRId64
                            " ns after the trace's start, beyond the %" PRId64 " ns a trace may span",
                            c->path, r, j, v, c->limit);
    c->ranks[r].ev[j].time = c->lo + v;
    if (v != orig) {
        struct rt_clock_fix_report *p = c->rep;
        rt_time_ns d = v - orig;
        p->events_moved++;
        p->max_correction_ns = d > p->max_correction_ns ? d : p->max_correction_ns;
        p->total_correction_ns = p->total_correction_ns > UINT64_MAX - (uint64_t)d ? UINT64_MAX
                                                                                  : p->total_correction_ns + (uint64_t)d;
    }
    return RT_OK;
}

/* Writes the open stretch [base, end) of rank @p r: the controller's times from the event before
 * it, plus the linear share of a jump @p delta that the event closing it made at @p t_r. */
static int close_stretch(struct cf *c, uint32_t r, uint64_t end, rt_time_ns delta, rt_time_ns t_r)
{
    struct rank *R = &c->ranks[r];
    uint64_t k = R->base;
    if (k >= end)
        return RT_OK;
    rt_time_ns tp, t_l; /* t_l: where the amortisation starts (no move there) */
    double off;
    if (k == 0) { /* the rank's first event starts its clock where it is */
        t_l = tp = R->ev[0].time - c->lo;
        off = 0;
        int rc = put(c, r, 0, tp, tp);
        if (rc)
            return rc;
        k = 1;
    } else {
        t_l = R->lc_b;
        tp = R->t_b;
        off = R->off_b;
    }
    for (; k < end; k++) {
        rt_time_ns orig = R->ev[k].time - c->lo;
        off = ctl(c, off, tp, orig);
        tp = orig;
        rt_time_ns lc = orig + (rt_time_ns)off, v = lc;
        if (delta > 0 && t_r > t_l) /* lc in [t_l, t_r]: the share grows from 0 to delta */
            v += (rt_time_ns)((__int128)delta * (lc - t_l) / (t_r - t_l));
        int rc = put(c, r, k, orig, v);
        if (rc)
            return rc;
    }
    return RT_OK;
}

/* ------------------------------------------------------------------ messages */

static int chan_get(struct cf *c, uint32_t comm, uint32_t tag, uint32_t src, uint32_t dst, uint32_t *out)
{
    uint64_t k1 = (uint64_t)comm << 32 | tag, k2 = (uint64_t)src << 32 | dst;
    uint64_t *v = rt__map_get(&c->chan_of, k1, k2);
    if (v) {
        *out = (uint32_t)*v;
        return RT_OK;
    }
    if (rt__grow((void **)&c->chans, &c->capchans, sizeof *c->chans, c->nchans + 1) ||
        rt__map_put(&c->chan_of, k1, k2, c->nchans))
        return oom(c);
    c->chans[c->nchans] = (struct chan){0, 0, comm, tag, src, dst};
    *out = c->nchans++;
    return RT_OK;
}

/* Message number @p ord of channel @p ch, created when it is not there yet. */
static int msg_get(struct cf *c, uint32_t ch, uint64_t ord, uint32_t *out)
{
    uint64_t *v = rt__map_get(&c->msg_of, ch, ord);
    if (v) {
        *out = (uint32_t)*v;
        return RT_OK;
    }
    uint32_t id = c->freemsg;
    if (id != NIL) {
        c->freemsg = c->msgs[id].next_free;
    } else {
        if (rt__grow((void **)&c->msgs, &c->capmsgs, sizeof *c->msgs, c->nmsgs + 1))
            return oom(c);
        id = c->nmsgs++;
    }
    if (rt__map_put(&c->msg_of, ch, ord, id))
        return oom(c);
    c->msgs[id] = (struct msg){.ord = ord, .chan = ch, .recv_waiter = NIL, .send_waiter = NIL, .next_free = NIL,
                               .used = 1};
    *out = id;
    return RT_OK;
}

/* Frees message @p id once neither side needs it any more. */
static void msg_release(struct cf *c, uint32_t id)
{
    struct msg *m = &c->msgs[id];
    if (!m->used || !m->recv_done || !m->have_send || (m->rdv && !m->send_done))
        return;
    rt__map_del(&c->msg_of, m->chan, m->ord);
    m->used = 0;
    m->next_free = c->freemsg;
    c->freemsg = id;
}

/* The payload of event @p j of rank @p r, a message, collective or join event. */
static const struct rt_event_payload *pay(const struct cf *c, uint32_t r, uint64_t j)
{
    return rt__row_payload_of(&c->t->rows[r], j);
}

/* Checks the peer and communicator of message event @p j of rank @p r. */
static int msg_refs(struct cf *c, uint32_t r, uint64_t j)
{
    const struct rt_event *e = &c->ranks[r].ev[j];
    uint32_t comm = pay(c, r, j)->comm;
    if (e->ref >= c->nranks || comm >= rt_trace_comms(c->t))
        return rt_error_set(c->err, RT_ECORRUPT, "%s: clock fix: rank %u event %" PRIu64 ": message with peer %u on communicator %u, "
                            "which the trace does not have", c->path, r, j, e->ref, comm);
    return RT_OK;
}

/* Gives the receive at event @p k of rank @p r (RECV or IRECV_REQUEST) its number in its channel
 * and remembers its message under (r, k) for the completion. */
static int post_recv(struct cf *c, uint32_t r, uint64_t k, uint32_t *id)
{
    const struct rt_event *e = &c->ranks[r].ev[k];
    uint32_t ch;
    int rc = msg_refs(c, r, k);
    if (!rc)
        rc = chan_get(c, pay(c, r, k)->comm, e->aux, e->ref, r, &ch);
    if (!rc)
        rc = msg_get(c, ch, c->chans[ch].nrecv++, id);
    if (!rc && rt__map_put(&c->post_of, r, k, *id))
        rc = oom(c);
    return rc;
}

/* The receive of message @p id was posted at (lc, orig): a rendezvous send may complete. */
static void publish_post(struct cf *c, uint32_t id, rt_time_ns lc, rt_time_ns orig)
{
    struct msg *m = &c->msgs[id];
    m->post_lc = lc;
    m->post_orig = orig;
    m->have_post = 1;
    if (m->send_waiter != NIL)
        wake(c, m->send_waiter);
    m->send_waiter = NIL;
}

/* Whether @p e posts a receive (inside an MPI call it is posted at the call's Enter). */
static int is_post(const struct rt_event *e)
{
    return e->kind == RT_EV_RECV || (e->kind == RT_EV_IRECV_REQUEST && !(e->flags & RT_EVF_CANCELLED));
}

/* For the depth-1 MPI Enter @p j of rank @p r: whether its call posts a receive; with @p post,
 * numbers those receives and publishes their post at (lc, orig). */
static int call_posts(struct cf *c, uint32_t r, uint64_t j, int post, rt_time_ns lc, rt_time_ns orig)
{
    const struct rank *R = &c->ranks[r];
    int depth = 1, found = 0;
    for (uint64_t k = j + 1; k < R->n && depth > 0; k++) {
        const struct rt_event *e = &R->ev[k];
        if (e->flags & RT_EVF_MPI)
            depth += e->kind == RT_EV_ENTER ? 1 : e->kind == RT_EV_LEAVE ? -1 : 0;
        if (!is_post(e))
            continue;
        found = 1;
        if (!post)
            break;
        uint32_t id;
        int rc = post_recv(c, r, k, &id);
        if (rc)
            return rc;
        publish_post(c, id, lc, orig);
    }
    return found;
}

static int publish_send(struct cf *c, uint32_t r, uint64_t j, rt_time_ns lc, rt_time_ns orig)
{
    struct rank *R = &c->ranks[r];
    const struct rt_event *e = &R->ev[j];
    uint32_t ch, id;
    int rc = msg_refs(c, r, j);
    if (!rc)
        rc = chan_get(c, pay(c, r, j)->comm, e->aux, r, e->ref, &ch);
    if (!rc)
        rc = msg_get(c, ch, c->chans[ch].nsend++, &id);
    if (rc)
        return rc;
    struct msg *m = &c->msgs[id];
    m->lc = lc;
    m->orig = orig;
    m->send_ev = j;
    m->have_send = 1;
    /* As the replay decides it: a synchronous send, or one above the eager limit, unless buffered. */
    m->rdv = !(e->flags & RT_EVF_BUFFERED) && ((e->flags & RT_EVF_SYNC) || pay(c, r, j)->bytes > c->eager);
    if (m->recv_waiter != NIL)
        wake(c, m->recv_waiter);
    m->recv_waiter = NIL;
    if (m->rdv && e->kind == RT_EV_ISEND) { /* its ISEND_COMPLETE waits for the post */
        if (rt__map_put(&c->send_of, r, j, id))
            return oom(c);
    } else if (m->rdv && R->depth > 0) { /* the Leave of its call waits for the post */
        if (rt__grow((void **)&R->waits, &R->capwaits, sizeof *R->waits, R->nwaits + 1))
            return oom(c);
        R->waits[R->nwaits++] = id;
    } else {
        m->send_done = 1; /* nothing waits for it */
    }
    msg_release(c, id);
    return RT_OK;
}

/* The send of message @p id for the receive completing at rank @p r: 1 with its times, 0 when it
 * is not there yet (rank @p r then waits for it). */
static int send_of(struct cf *c, uint32_t r, uint32_t id, rt_time_ns *lc, rt_time_ns *orig)
{
    struct msg *m = &c->msgs[id];
    if (!m->have_send) {
        m->recv_waiter = r;
        return 0;
    }
    *lc = m->lc;
    *orig = m->orig;
    c->ranks[r].held = id;
    return 1;
}

/* The latest receive post that the rendezvous sends of @p ids (n of them) wait for: 1, or 0
 * when one is not posted yet (rank @p r then waits for it). Marks the sends complete. */
static int posts_of(struct cf *c, uint32_t r, const uint32_t *ids, uint32_t n, rt_time_ns *lc, rt_time_ns *orig)
{
    for (uint32_t i = 0; i < n; i++) {
        struct msg *m = &c->msgs[ids[i]];
        if (!m->have_post) {
            m->send_waiter = r;
            return 0;
        }
        *lc = m->post_lc > *lc ? m->post_lc : *lc;
        *orig = m->post_orig > *orig ? m->post_orig : *orig;
    }
    for (uint32_t i = 0; i < n; i++) {
        c->msgs[ids[i]].send_done = 1;
        msg_release(c, ids[i]);
    }
    return 1;
}

/* ------------------------------------------------------------------ collectives */

static enum shape shape_of(uint32_t op)
{
    switch (op) {
    case RT_COLL_BCAST: case RT_COLL_SCATTER: return ONETON;
    case RT_COLL_GATHER: case RT_COLL_REDUCE: return NTOONE;
    case RT_COLL_SCAN: return SCAN;
    default: return NTON; /* barrier, all*, and unknown operations: synchronising */
    }
}

/* The operation of collective begin @p j of rank @p r, blocking or not (rt__coll_op_at). */
static uint32_t op_of(const struct cf *c, uint32_t r, uint64_t j)
{
    return rt__coll_op_at(c->t->rows[r].events, c->t->rows[r].nevents, j);
}

static void top2_add(struct top2 *m, rt_time_ns v, uint32_t who)
{
    if (v > m->v1) {
        m->v2 = m->v1;
        m->v1 = v;
        m->who1 = who;
    } else if (v > m->v2) {
        m->v2 = v;
    }
}

static rt_time_ns top2_without(const struct top2 *m, uint32_t who)
{
    return m->who1 == who ? m->v2 : m->v1;
}

/* The root row of collective begin @p b: rooted operations without one are rooted at communicator
 * rank 0, as the replay does; RT_NONE for the others. */
static uint32_t root_of(const struct rt_event *b, uint32_t op, const struct rt_comm *cm)
{
    if (shape_of(op) != ONETON && shape_of(op) != NTOONE)
        return RT_NONE;
    return b->ref == RT_NONE ? cm->members[0] : b->ref;
}

/* Communicator rank of row @p row in @p comm (RT_NONE when it is no member); the reverse of the
 * member table is built on the communicator's first collective. */
static int comm_rank(struct cf *c, uint32_t comm, const struct rt_comm *cm, uint32_t row, uint32_t *out)
{
    if (!rt__map_get(&c->comm_rank, comm, UINT64_MAX)) {
        for (uint32_t i = 0; i < cm->size; i++)
            if (cm->members[i] != RT_NONE && rt__map_put(&c->comm_rank, comm, cm->members[i], i))
                return oom(c);
        if (rt__map_put(&c->comm_rank, comm, UINT64_MAX, 0))
            return oom(c);
    }
    uint64_t *v = rt__map_get(&c->comm_rank, comm, row);
    *out = v ? (uint32_t)*v : RT_NONE;
    return RT_OK;
}

/* The collective's communicator when it has other members; NULL for a one-member one. */
static int coll_comm(struct cf *c, uint32_t r, uint64_t j, const struct rt_comm **out)
{
    uint32_t comm = pay(c, r, j)->comm;
    const struct rt_comm *cm = comm < rt_trace_comms(c->t) ? rt_trace_comm(c->t, comm) : NULL;
    if (!cm)
        return rt_error_set(c->err, RT_ECORRUPT, "%s: clock fix: rank %u event %" PRIu64 ": collective on communicator %u, "
                            "which the trace does not have", c->path, r, j, comm);
    *out = cm->members && cm->size > 1 ? cm : NULL;
    return RT_OK;
}

static void coll_free(struct cf *c, uint32_t id)
{
    struct coll *k = &c->colls[id];
    free(k->pre_lc);
    free(k->pre_orig);
    free(k->mark);
    k->pre_lc = k->pre_orig = NULL;
    k->mark = NULL;
    k->used = 0;
    k->next_free = c->freecoll;
    c->freecoll = id;
}

/* A scan's prefix moves over every member that has begun: each gets the latest begin before it. */
static void scan_advance(struct cf *c, struct coll *k, const struct rt_comm *cm)
{
    while (k->prefix < k->size && (k->mark[k->prefix] & 1)) {
        uint32_t i = k->prefix++;
        rt_time_ns blc = k->pre_lc[i], bor = k->pre_orig[i];
        k->pre_lc[i] = k->lc.v1; /* lc/orig.v1 hold the running maximum over members 0..i-1 */
        k->pre_orig[i] = k->orig.v1;
        top2_add(&k->lc, blc, i);
        top2_add(&k->orig, bor, i);
        if (k->mark[i] & 4)
            wake(c, cm->members[i]);
        k->mark[i] = 2;
    }
}

static int publish_begin(struct cf *c, uint32_t r, uint64_t j, rt_time_ns lc, rt_time_ns orig)
{
    const struct rt_event *b = &c->ranks[r].ev[j];
    const uint32_t comm = pay(c, r, j)->comm, op = op_of(c, r, j);
    const struct rt_comm *cm;
    uint32_t me, id;
    int rc = coll_comm(c, r, j, &cm);
    if (rc || !cm)
        return rc;
    if ((rc = comm_rank(c, comm, cm, r, &me)))
        return rc;
    if (me == RT_NONE)
        return rt_error_set(c->err, RT_EMISMATCH, "%s: clock fix: rank %u event %" PRIu64 ": collective on communicator '%s', "
                            "which rank %u is not a member of", c->path, r, j, comm_name(c, comm), r);
    /* The instance: this rank's n-th collective on the communicator is everyone's n-th. */
    uint64_t *sq = rt__map_get(&c->coll_seq, r, comm), seq = sq ? *sq : 0;
    if (rt__map_put(&c->coll_seq, r, comm, seq + 1))
        return oom(c);
    uint64_t *v = rt__map_get(&c->coll_of, comm, seq);
    if (v) {
        id = (uint32_t)*v;
    } else {
        id = c->freecoll;
        if (id != NIL) {
            c->freecoll = c->colls[id].next_free;
        } else {
            if (rt__grow((void **)&c->colls, &c->capcolls, sizeof *c->colls, c->ncolls + 1))
                return oom(c);
            id = c->ncolls++;
        }
        struct coll *k = &c->colls[id];
        *k = (struct coll){.seq = seq, .first_ev = j, .comm = comm, .op = op, .size = cm->size,
                           .waiters = NIL, .first_rank = r, .used = 1,
                           .lc = {NONE_T, NONE_T, NIL}, .orig = {NONE_T, NONE_T, NIL}};
        k->root = root_of(b, op, cm);
        if (shape_of(op) == SCAN) {
            k->pre_lc = malloc((size_t)cm->size * sizeof *k->pre_lc);
            k->pre_orig = malloc((size_t)cm->size * sizeof *k->pre_orig);
            k->mark = calloc(cm->size, 1);
        }
        if (rt__map_put(&c->coll_of, comm, seq, id) ||
            (shape_of(op) == SCAN && (!k->pre_lc || !k->pre_orig || !k->mark)))
            return oom(c); /* the pass's cleanup frees the arrays */
    }
    struct coll *k = &c->colls[id];
    uint32_t root = root_of(b, op, cm);
    if (k->op != op || k->root != root)
        return rt_error_set(c->err, RT_EMISMATCH,
                            "%s: clock fix: collective mismatch on comm '%s': rank %u event %" PRIu64 " (%s, root %d) vs "
                            "rank %u event %" PRIu64 " (%s, root %d)", c->path, comm_name(c, comm), k->first_rank,
                            k->first_ev, rt_coll_op_name((int)k->op), k->root == RT_NONE ? -1 : (int)k->root, r, j,
                            rt_coll_op_name((int)op), root == RT_NONE ? -1 : (int)root);
    if (rt__map_put(&c->coll_pend, r, j, id))
        return oom(c);
    k->arrived++;
    if (k->mark) {
        k->pre_lc[me] = lc;
        k->pre_orig[me] = orig;
        k->mark[me] |= 1;
        scan_advance(c, k, cm);
        return RT_OK;
    }
    top2_add(&k->lc, lc, r);
    top2_add(&k->orig, orig, r);
    if (r == k->root) {
        k->root_lc = lc;
        k->root_orig = orig;
        k->root_in = 1;
    }
    /* Wake the ends that waited for this instance once what they need is there. */
    if (k->arrived == k->size || (shape_of(k->op) == ONETON && r == k->root)) {
        for (uint32_t w = k->waiters; w != NIL; w = c->ranks[w].next_waiter)
            wake(c, w);
        k->waiters = NIL;
    }
    return RT_OK;
}

/* The causes of collective end @p j of rank @p r: 1 with the latest cause (NONE_T when it has
 * none), 0 when they are not all there yet (the rank then waits). */
static int coll_cause(struct cf *c, uint32_t r, uint64_t j, rt_time_ns *lc, rt_time_ns *orig)
{
    const struct rt_event *ev = c->ranks[r].ev, *e = &ev[j];
    const struct rt_comm *cm;
    *lc = *orig = NONE_T;
    if (e->ref >= j || !rt__coll_start(&ev[e->ref]) || (ev[e->ref].flags & RT_EVF_CANCELLED))
        return rt_error_set(c->err, RT_ECORRUPT, "%s: clock fix: rank %u event %" PRIu64 ": collective end without its begin",
                            c->path, r, j);
    int rc = coll_comm(c, r, e->ref, &cm);
    if (rc)
        return rc;
    if (!cm)
        return 1;
    uint64_t *v = rt__map_get(&c->coll_pend, r, e->ref);
    if (!v)
        return rt_error_set(c->err, RT_ECORRUPT, "%s: clock fix: rank %u event %" PRIu64 ": collective ended twice",
                            c->path, r, j);
    uint32_t id = (uint32_t)*v;
    struct coll *k = &c->colls[id];
    enum shape sh = shape_of(k->op);
    if (sh == SCAN) {
        uint32_t me;
        if ((rc = comm_rank(c, k->comm, cm, r, &me)))
            return rc;
        if (k->prefix <= me) {
            k->mark[me] |= 4;
            return 0;
        }
        *lc = k->pre_lc[me];
        *orig = k->pre_orig[me];
    } else if ((sh == NTON || (sh == NTOONE && r == k->root)) && k->arrived < k->size) {
        c->ranks[r].next_waiter = k->waiters;
        k->waiters = r;
        return 0;
    } else if (sh == ONETON && r != k->root && !k->root_in) {
        c->ranks[r].next_waiter = k->waiters;
        k->waiters = r;
        return 0;
    } else if (sh == NTON || (sh == NTOONE && r == k->root)) {
        *lc = top2_without(&k->lc, r);
        *orig = top2_without(&k->orig, r);
    } else if (sh == ONETON && r != k->root) {
        *lc = k->root_lc;
        *orig = k->root_orig;
    }
    rt__map_del(&c->coll_pend, r, e->ref);
    if (++k->ended == k->size) {
        rt__map_del(&c->coll_of, k->comm, k->seq);
        coll_free(c, id);
    }
    return 1;
}

/* ------------------------------------------------------------------ the pass */

/* What event @p j of rank @p r is: a cause of another rank's event (ROLE_SOURCE), an event that
 * has causes (ROLE_TARGET), both, or neither (0); negative on error. */
static int role_of(struct cf *c, uint32_t r, uint64_t j)
{
    const struct rank *R = &c->ranks[r];
    const struct rt_event *e = &R->ev[j];
    int cancelled = e->flags & RT_EVF_CANCELLED;
    switch (e->kind) {
    case RT_EV_SEND: case RT_EV_ISEND: case RT_EV_COLL_BEGIN: case RT_EV_NBCOLL_BEGIN:
        return cancelled ? 0 : ROLE_SOURCE;
    case RT_EV_RECV: /* outside a call it is its own post */
        return ROLE_TARGET | (R->depth == 0 ? ROLE_SOURCE : 0);
    case RT_EV_IRECV_REQUEST:
        return !cancelled && R->depth == 0 ? ROLE_SOURCE : 0;
    case RT_EV_IRECV: case RT_EV_COLL_END: case RT_EV_NBCOLL_END:
        return ROLE_TARGET;
    case RT_EV_ISEND_COMPLETE:
        return rt__map_get(&c->send_of, r, e->ref) ? ROLE_TARGET : 0;
    case RT_EV_ENTER:
        return (e->flags & RT_EVF_MPI) && R->depth == 0 && call_posts(c, r, j, 0, 0, 0) ? ROLE_SOURCE : 0;
    case RT_EV_LEAVE:
        return (e->flags & RT_EVF_MPI) && R->depth == 1 && R->nwaits ? ROLE_TARGET : 0;
    default:
        return 0;
    }
}

/* The latest cause of target event @p j of rank @p r: 1 with its times (NONE_T when it turns out
 * to have none), 0 when rank @p r must wait for it, negative on error. */
static int cause_of(struct cf *c, uint32_t r, uint64_t j, rt_time_ns *lc, rt_time_ns *orig)
{
    struct rank *R = &c->ranks[r];
    const struct rt_event *e = &R->ev[j];
    uint64_t *v;
    uint32_t id;
    int rc;
    switch (e->kind) {
    case RT_EV_COLL_END: case RT_EV_NBCOLL_END:
        return coll_cause(c, r, j, lc, orig);
    case RT_EV_LEAVE:
        if ((rc = posts_of(c, r, R->waits, R->nwaits, lc, orig)) == 1)
            R->nwaits = 0;
        return rc;
    case RT_EV_ISEND_COMPLETE:
        id = (uint32_t)*rt__map_get(&c->send_of, r, e->ref); /* role_of found it */
        if ((rc = posts_of(c, r, &id, 1, lc, orig)) == 1)
            rt__map_del(&c->send_of, r, e->ref);
        return rc;
    case RT_EV_RECV:
        v = rt__map_get(&c->post_of, r, j); /* posted at its call's Enter, or here */
        if (!v && (rc = post_recv(c, r, j, &id)))
            return rc;
        return send_of(c, r, v ? (uint32_t)*v : id, lc, orig);
    default: /* IRECV: the request it completes was numbered when it was posted */
        v = e->ref < j && R->ev[e->ref].kind == RT_EV_IRECV_REQUEST ? rt__map_get(&c->post_of, r, e->ref) : NULL;
        if (!v)
            return rt_error_set(c->err, RT_ECORRUPT, "%s: clock fix: rank %u event %" PRIu64 ": receive completion of "
                                "request event %u, which is no open receive request", c->path, r, j, e->ref);
        return send_of(c, r, (uint32_t)*v, lc, orig);
    }
}

/* Event @p j of rank @p r is at its final time (lc, orig): tell the events it causes. */
static int publish(struct cf *c, uint32_t r, uint64_t j, rt_time_ns lc, rt_time_ns orig)
{
    const struct rt_event *e = &c->ranks[r].ev[j];
    uint32_t id;
    int rc;
    switch (e->kind) {
    case RT_EV_COLL_BEGIN: case RT_EV_NBCOLL_BEGIN:
        return publish_begin(c, r, j, lc, orig);
    case RT_EV_ENTER:
        rc = call_posts(c, r, j, 1, lc, orig);
        return rc < 0 ? rc : RT_OK;
    case RT_EV_RECV:
        publish_post(c, c->ranks[r].held, lc, orig);
        return RT_OK;
    case RT_EV_IRECV_REQUEST:
        if ((rc = post_recv(c, r, j, &id)))
            return rc;
        publish_post(c, id, lc, orig);
        return RT_OK;
    default:
        return publish_send(c, r, j, lc, orig);
    }
}

/* Steps rank @p r until it ends or waits for a cause. */
static int run_rank(struct cf *c, uint32_t r)
{
    struct rank *R = &c->ranks[r];
    struct rt_clock_fix_report *p = c->rep;
    int rc;
    for (; R->cur < R->n; R->cur++) {
        uint64_t j = R->cur;
        const struct rt_event *e = &R->ev[j];
        int role = role_of(c, r, j);
        if (role < 0)
            return role;
        if (role) {
            /* The controller up to this event; its value without any cause. */
            rt_time_ns orig = e->time - c->lo, internal = orig;
            if (c->fix) {
                for (; R->scan < j; R->scan++) {
                    rt_time_ns t = R->ev[R->scan].time - c->lo;
                    R->off_s = R->scan ? ctl(c, R->off_s, R->t_s, t) : 0;
                    R->t_s = t;
                }
                if (j)
                    internal = orig + (rt_time_ns)ctl(c, R->off_s, R->t_s, orig);
            }
            rt_time_ns v = internal;
            if (role & ROLE_TARGET) {
                rt_time_ns need_lc = NONE_T, need_orig = NONE_T;
                rc = cause_of(c, r, j, &need_lc, &need_orig);
                if (rc < 0)
                    return rc;
                if (rc == 0) {
                    R->state = S_BLOCKED;
                    return RT_OK;
                }
                if (need_lc != NONE_T) {
                    p->constraints += c->fix;
                    if (orig < need_orig + c->lmin) {
                        if (!c->fix) {
                            p->violations_after++;
                        } else {
                            if (!p->violations_before || need_orig + c->lmin - orig > p->worst_ns) {
                                p->worst_ns = need_orig + c->lmin - orig;
                                p->worst_rank = r;
                                p->worst_index = j;
                            }
                            p->violations_before++;
                        }
                    }
                    if (c->fix && v < need_lc + c->lmin)
                        v = need_lc + c->lmin;
                }
            }
            if (c->fix && ((rc = close_stretch(c, r, j, v - internal, internal)) || (rc = put(c, r, j, orig, v))))
                return rc;
            if ((role & ROLE_SOURCE) && (rc = publish(c, r, j, v, orig)))
                return rc;
            if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV) { /* the receive is complete */
                c->msgs[R->held].recv_done = 1;
                msg_release(c, R->held);
                rt__map_del(&c->post_of, r, e->kind == RT_EV_RECV ? j : e->ref);
                R->held = NIL;
            }
            R->off_b = R->off_s = (double)(v - orig);
            R->t_b = R->t_s = orig;
            R->lc_b = v;
            R->base = R->scan = j + 1;
        }
        if (e->flags & RT_EVF_MPI) /* after the event: a call's Enter and Leave are at its depth */
            R->depth += e->kind == RT_EV_ENTER ? 1 : e->kind == RT_EV_LEAVE && R->depth > 0 ? -1 : 0;
    }
    if (c->fix && (rc = close_stretch(c, r, R->n, 0, 0)))
        return rc;
    R->state = S_DONE;
    return RT_OK;
}

/* Every rank that is not done waits: name the first and what it waits for. */
static int diagnose(struct cf *c)
{
    for (uint32_t r = 0; r < c->nranks; r++) {
        const struct rank *R = &c->ranks[r];
        if (R->state == S_DONE)
            continue;
        const struct rt_event *e = &R->ev[R->cur];
        if (e->kind == RT_EV_COLL_END || e->kind == RT_EV_NBCOLL_END) {
            return rt_error_set(c->err, RT_EDEADLOCK,
                                "%s: clock fix: rank %u event %" PRIu64 " (end of %s on comm '%s') waits for members' "
                                "begins that never come before it (a collective some ranks do not take part in?)",
                                c->path, r, R->cur, rt_coll_op_name((int)op_of(c, r, e->ref)),
                                comm_name(c, pay(c, r, e->ref)->comm));
        }
        if (e->kind == RT_EV_LEAVE || e->kind == RT_EV_ISEND_COMPLETE) { /* a rendezvous send: its receive's post */
            uint32_t id = R->nwaits ? R->waits[0] : NIL;
            for (uint32_t i = 0; i < R->nwaits; i++)
                id = c->msgs[R->waits[i]].have_post ? id : R->waits[i];
            if (e->kind == RT_EV_ISEND_COMPLETE)
                id = (uint32_t)*rt__map_get(&c->send_of, r, e->ref);
            const struct chan *ch = &c->chans[c->msgs[id].chan];
            return rt_error_set(c->err, c->ranks[ch->dst].state == S_DONE ? RT_EUNMATCHED : RT_EDEADLOCK,
                                "%s: clock fix: rank %u event %" PRIu64 " (rendezvous send to rank %u, tag %u, comm '%s') "
                                "completes at event %" PRIu64 " but %s", c->path, r, c->msgs[id].send_ev, ch->dst, ch->tag,
                                comm_name(c, ch->comm), R->cur,
                                c->ranks[ch->dst].state == S_DONE ? "its receive is never posted"
                                                                  : "its receive cannot be posted before");
        }
        uint64_t post_j = e->kind == RT_EV_IRECV ? e->ref : R->cur;
        const struct rt_event *post = &R->ev[post_j];
        const struct rt_event_payload *post_p = pay(c, r, post_j);
        uint32_t s = post->ref;
        if (c->ranks[s].state == S_DONE)
            return rt_error_set(c->err, RT_EUNMATCHED,
                                "%s: clock fix: unmatched receive: rank %u event %" PRIu64 " (receive from rank %u, tag %u, "
                                "comm '%s', %" PRIu64 " bytes): rank %u never sends it",
                                c->path, r, R->cur, s, post->aux, comm_name(c, post_p->comm), (uint64_t)post_p->bytes, s);
        return rt_error_set(c->err, RT_EDEADLOCK,
                            "%s: clock fix: deadlock: rank %u event %" PRIu64 " (receive from rank %u, tag %u) waits for rank %u, "
                            "which waits at event %" PRIu64 ": no order puts every receive after its send",
                            c->path, r, R->cur, s, post->aux, s, c->ranks[s].cur);
    }
    return RT_OK;
}

/* One pass over the trace: corrects it (fix), or counts what still violates a constraint. */
static int pass(struct cf *c, int fix)
{
    int rc = RT_OK;
    c->fix = fix;
    c->ranks = calloc(c->nranks ? c->nranks : 1, sizeof *c->ranks);
    c->stack = malloc((c->nranks ? c->nranks : 1) * sizeof *c->stack);
    c->chans = NULL;
    c->msgs = NULL;
    c->colls = NULL;
    c->nchans = c->capchans = c->nmsgs = c->capmsgs = c->ncolls = c->capcolls = c->nstack = 0;
    c->freemsg = c->freecoll = NIL;
    struct rt__map *maps[] = {&c->chan_of, &c->msg_of, &c->post_of, &c->send_of,
                              &c->coll_of, &c->coll_seq, &c->coll_pend, &c->comm_rank};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        rt__map_init(maps[i]);
    if (!c->ranks || !c->stack) {
        rc = oom(c);
        goto out;
    }
    for (uint32_t r = 0; r < c->nranks; r++) {
        struct rank *R = &c->ranks[r];
        R->ev = c->t->rows[r].events;
        R->n = c->t->rows[r].nevents;
        R->held = R->next_waiter = NIL;
        R->state = S_READY;
        c->stack[c->nstack++] = c->nranks - 1 - r; /* rank 0 first */
    }
    while (c->nstack && !rc) {
        uint32_t r = c->stack[--c->nstack];
        rc = run_rank(c, r);
    }
    if (!rc)
        rc = diagnose(c);
    for (uint32_t i = 0; i < c->nmsgs && !rc; i++) {
        const struct msg *m = &c->msgs[i];
        if (m->used && m->have_send && !m->recv_done) {
            const struct chan *ch = &c->chans[m->chan];
            rc = rt_error_set(c->err, RT_EUNMATCHED,
                              "%s: clock fix: unmatched send: rank %u event %" PRIu64 " (send to rank %u, tag %u, comm '%s') "
                              "has no matching receive", c->path, ch->src, m->send_ev, ch->dst, ch->tag,
                              comm_name(c, ch->comm));
        }
    }
out:
    for (uint32_t i = 0; i < c->ncolls; i++)
        if (c->colls[i].used)
            coll_free(c, i);
    for (uint32_t r = 0; c->ranks && r < c->nranks; r++)
        free(c->ranks[r].waits);
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        rt__map_free(maps[i]);
    free(c->colls);
    free(c->msgs);
    free(c->chans);
    free(c->stack);
    free(c->ranks);
    c->ranks = NULL;
    c->stack = NULL;
    return rc;
}

int rt_trace_fix_clocks(rt_trace *t, const struct rt_clock_fix_options *o, struct rt_clock_fix_report *rep,
                        rt_error *err)
{
    struct rt_clock_fix_options defaults;
    struct rt_clock_fix_report local;
    if (!o) {
        rt_clock_fix_options_init(&defaults);
        o = &defaults;
    }
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    rep->worst_rank = RT_NONE;
    if (!t)
        return rt_error_set(err, RT_EINVAL, "clock fix: no trace");
    if (t->part_first != 0 || t->part_end != t->nrows) /* messages cross the parts */
        return rt_error_set(err, RT_EINVAL, "%s: clock fix: needs every rank's events, not a part of the trace",
                            t->path);
    if (o->min_latency_ns < 0 || o->min_latency_ns > RT_CLOCK_FIX_MAX_LMIN_NS)
        return rt_error_set(err, RT_EINVAL, "%s: clock fix: minimum latency %" PRId64 " ns is outside 0 ns .. 1 s",
                            t->path, o->min_latency_ns);
    if (!(o->gamma > 0 && o->gamma <= 1))
        return rt_error_set(err, RT_EINVAL, "%s: clock fix: gamma %g is outside (0, 1]", t->path, o->gamma);
    struct cf c = {.t = t, .path = t->path, .lmin = o->min_latency_ns, .gamma = o->gamma,
                   .eager = o->eager_limit_bytes, .nranks = t->nrows, .rep = rep, .err = err};
    /* Times relative to the earliest event: corrections only move events later, so it stays the
     * earliest, and the span limit bounds every relative time. */
    c.lo = INT64_MAX;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->rows[r].nevents && t->rows[r].events[0].time < c.lo)
            c.lo = t->rows[r].events[0].time;
    if (c.lo == INT64_MAX)
        return RT_OK; /* no events: nothing to order */
    /* and every time must stay below RT_MAX_TIME_NS (c.lo > -RT_MAX_TIME_NS: no overflow) */
    c.limit = RT_MAX_TIME_NS - 1 - c.lo < RT_MAX_SPAN_NS ? RT_MAX_TIME_NS - 1 - c.lo : RT_MAX_SPAN_NS;
    int rc = pass(&c, 1);
    if (!rc)
        rc = pass(&c, 0); /* the correction's own check: no constraint may be violated any more */
    if (rc)
        return rc;
    rt_time_ns hi = c.lo;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->rows[r].nevents && t->rows[r].events[t->rows[r].nevents - 1].time > hi)
            hi = t->rows[r].events[t->rows[r].nevents - 1].time;
    t->stats.span_ns = hi - c.lo;
    return RT_OK;
}
