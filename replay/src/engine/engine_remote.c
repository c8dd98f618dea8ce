/* SPDX-License-Identifier: MIT */
/*
 * The engine's side of the distributed replay (struct rt_replay_part): the records it makes for
 * other processes and applies from them, the per-rank bounds that decide which queue entries it
 * may take in a round, and what follows the rounds (where every rank stopped, the summed results).
 * The rounds themselves, the records' buffers and their swap are engine_dist.c's, reached only
 * through engine_dist.h; what they ask of the engine is in rt__dist_ops below.
 *
 * Each process replays its own ranks with the serial engine (engine.c) and sends what crosses to
 * another process (struct fx) at the end of a round. With the records come the bounds of the
 * ranks this process's ranks exchange messages with (struct remote.pub). In a round the engine
 * takes its queue in the serial engine's order (pt, t, type, key: "the order of the entries"
 * below) but puts off any entry that something not yet known here could still precede on the
 * same port (port_ok):
 *   a send port's grant:   a ready of a rendezvous whose receive is not posted yet (rdv_bound),
 *                          the rank's own later posts (post_bound), the collectives it is in
 *                          (coll_bound: several at once with non-blocking ones);
 *   a receive port's arrival: any arrival not yet sent (arrival_bound: a least wire time after
 *                          the earliest grant of a rank that sends to it), a collective the rank
 *                          has not entered yet (entry_bound);
 *   a collective's port reading: both, for every member replayed here, and the reading of
 *                          another collective the member is in whose last entry is unknown.
 * A rank queued again before a collective whose members' counts are not here yet (coll_counts.c)
 * is put off with its ports until they are.
 * Once an entry of a port is put off, the port's later entries are too, until the next round.
 * The earliest entry over all processes can always be taken (at a tie in order the processes
 * agree on it: agree_front), so every round makes progress, and each port's grants come in the
 * same order as in a replay by one process (docs/distributed.md).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_dist.h"
#include "engine_internal.h"
#include "grow.h"
#include "map.h"
#include "retime/replay.h"

/* What the engine keeps for the rounds, beside the ranks' own fields (held, coll, rdvw). */
struct remote {
    struct rt__dist *D;        /* the rounds: the records' buffers, the swap, the agreement */
    struct rt__map halves;     /* (channel, n) -> receive half not yet both posted and arrived */
    rt_time_ps T;              /* the round's earliest queued time over all processes */
    uint8_t tau;               /* the earliest entry type queued at T */
    uint8_t *mark;             /* per rank: ports with an entry put off this round */
    uint32_t *marked;          /* the ranks marked */
    uint32_t nmarked;
    struct pent *later;        /* entries put off this round, with their order */
    uint32_t nlater, caplater;
    /* per-rank bounds, so that loosely coupled ranks need not wait for the global earliest time:
     * pub[2r] is the earliest time rank r's send port could still grant a message it has not
     * granted, pub[2r + 1] the earliest time r could still post anything (INT64_MAX: never);
     * published by r's process at the end of every round to the processes of the ranks r
     * exchanges messages with (FX_BOUND), valid from then on; INT64_MIN: not known */
    int64_t *pub;
    uint32_t *nbp, *nbp_at;         /* per rank here: the other processes that need its bounds (CSR) */
    rt_time_ps *rdy_min, *arr_min;  /* per rank, at the round's start: earliest queued grant of its
                                     * send port, earliest queued arrival at it */
    uint32_t *senders, *senders_at; /* per rank here: the ranks that ever send to it (CSR); NULL
                                     * until the first round */
    /* until the first round: the pairs (receiver here - lo) << 32 | sender received (FX_SENDS),
     * and (rank here - lo) << 32 | process for the other processes this one sent pairs to */
    uint64_t *heard, *told;
    uint32_t nheard, capheard, ntold, captold;
    uint64_t *coll_ahead; /* per rank here: its last collective's begin event + 1 (0: none) */
    struct pent {         /* an entry with its order (see "the order of the entries") */
        rt_time_ps pt;
        struct qent q;
    } *past;              /* the entries made in the past: a heap in (pt, t, type, key) order */
    uint32_t npast, cappast;
    rt_time_ps *rdy_min_t, *arr_min_t; /* as rdy_min and arr_min, in time rather than order */
    int64_t *pubt;        /* as pub, in time (the bounds' two spaces, see rdv_bound) */
    uint8_t past_at_T;    /* something made in the past (or a record) may come first at T */
    uint8_t front;        /* the least entry of all at T is agreed on: (T, front_t, front_k) */
    uint8_t want_front;   /* an entry of order T was put off: agree on the front next round */
    rt_time_ps front_t;
    uint64_t front_k;
    rt_time_ps low;       /* the least time at which any rank of any process can act below T this
                           * round and later (INT64_MAX: none can): see low_here */
    /* on a network: the horizon, before which no rank of any process grants a message it has not
     * granted (max(T, the least grant bound in time published)); this process's least such
     * bound, published at the end of the round before */
    rt_time_ps H, hpart;
    rt_time_ps look; /* on a network: the least time from a flow's end or start to its arrival */
};

static rt_time_ps max_t(rt_time_ps a, rt_time_ps b) { return a > b ? a : b; }
static rt_time_ps min_t(rt_time_ps a, rt_time_ps b) { return a < b ? a : b; }

/* ------------------------------------------------------------------ records */

/* Queues @p f for process @p p until the end of the round; -1 out of memory. A record that can
 * make something happen at its receiver is due at its t1 (see rt__dist_send). */
static int fx_send_to(struct engine *E, uint32_t p, const struct fx *f)
{
    struct fx g = *f;
    g.pt = E->cur_pt; /* what it makes there has at least this order (apply) */
    int64_t due = g.kind == FX_CPORTS || g.kind == FX_BOUND || g.kind == FX_SENDS || g.kind == FX_CCOUNT ||
                          g.kind == FX_CCREQ
                      ? INT64_MAX
                      : max_t(g.t1, g.pt);
    return rt__dist_send(E->rm->D, p, &g, due);
}

/* Queues @p f for the process that replays rank @p rank. */
int rt__eng_fx_send(struct engine *E, uint32_t rank, const struct fx *f)
{
    return fx_send_to(E, owner_of(E, rank), f);
}

int rt__eng_fx_send_proc(struct engine *E, uint32_t proc, const struct fx *f)
{
    return fx_send_to(E, proc, f);
}

int rt__eng_fx_send_all(struct engine *E, const struct fx *f)
{
    for (uint32_t p = 0; p < E->part->nprocs; p++)
        if (p != E->part->me && fx_send_to(E, p, f))
            return -1;
    return 0;
}

int rt__eng_rdv_waiting_add(struct engine *E, uint32_t r, uint32_t id)
{
    struct rank *R = &E->ranks[r];
    if (!E->part)
        return 0;
    if (rt__grow((void **)&R->rdvw, &R->caprdvw, sizeof *R->rdvw, R->nrdvw + 1))
        return -1;
    R->rdvw[R->nrdvw++] = id;
    return 0;
}

void rt__eng_rdv_waiting_del(struct engine *E, uint32_t r, uint32_t id)
{
    struct rank *R = &E->ranks[r];
    for (uint32_t i = 0; i < R->nrdvw; i++)
        if (R->rdvw[i] == id) {
            R->rdvw[i] = R->rdvw[--R->nrdvw];
            return;
        }
}

int rt__eng_incoll_add(struct rank *R, uint32_t id)
{
    if (rt__grow((void **)&R->incoll, &R->capincoll, sizeof *R->incoll, R->nincoll + 1))
        return -1;
    R->incoll[R->nincoll++] = id;
    return 0;
}

void rt__eng_incoll_del(struct rank *R, uint32_t id)
{
    for (uint32_t i = 0; i < R->nincoll; i++)
        if (R->incoll[i] == id) {
            R->incoll[i] = R->incoll[--R->nincoll];
            return;
        }
}

/* A message to another process is held for its far receiver until that side is done with it
 * here: its receive posted and (eager) its arrival sent or (rendezvous) its delivery known. */
void rt__eng_vrecv_release(struct engine *E, uint32_t id)
{
    struct msg *m = &E->msgs[id];
    if (!(m->flags & M_VRECV) || (m->flags & M_VDONE) || !(m->flags & M_RECV))
        return;
    if (!(m->flags & ((m->flags & M_RDV) ? M_SDONE : M_FWD)))
        return;
    m->flags |= M_VDONE;
    msg_release(E, id);
}

/* The receive half of message (channel @p ci, number @p n) at the receiver's process, made on
 * first sight (its post or its arrival, whichever comes first). UINT32_MAX out of memory. */
static uint32_t half_of(struct engine *E, uint32_t ci, uint32_t n, uint32_t comm, uint32_t tag, uint32_t src,
                        uint32_t dst)
{
    uint64_t *h = rt__map_get(&E->rm->halves, ci, n);
    if (h) {
        uint32_t id = (uint32_t)*h;
        rt__map_del(&E->rm->halves, ci, n);
        return id;
    }
    uint32_t id = msg_new(E);
    if (id == UINT32_MAX)
        return id;
    if (rt__map_put(&E->rm->halves, ci, n, id)) {
        rt__eng_oom(E);
        return UINT32_MAX;
    }
    struct msg *m = &E->msgs[id];
    m->flags = M_HALF;
    msg_label(m, comm, tag, src, dst);
    m->n = n;
    return id;
}

/* Rank @p r posts a receive whose sender is replayed by another process. */
int rt__eng_post_remote_recv(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e,
                             const struct rt_event_payload *p, rt_time_ps t)
{
    uint32_t ci = chan_index(E, p->comm, e->aux, e->ref, r);
    if (ci == UINT32_MAX)
        return rt__eng_oom(E);
    uint32_t id = half_of(E, ci, E->chans[ci].nrecv++, p->comm, e->aux, e->ref, r);
    if (id == UINT32_MAX)
        return rt__eng_oom(E);
    struct msg *m = &E->msgs[id];
    m->flags |= M_RECV;
    m->recv_ev = j;
    m->post_ev = post_ev;
    m->recv_post = t;
    if (!(m->flags & M_SEND))
        m->bytes = m->raw = p->bytes;
    uint32_t reg = rt__eng_call_region(E, r, j);
    struct fx f = {.kind = FX_RPOST, .comm = p->comm, .tag = e->aux, .src = e->ref, .dst = r, .t1 = t,
                   .ev1 = post_ev, .ev2 = j, .bytes = p->bytes, .reg = reg == RT_NONE ? 0 : reg + 1};
    if (rt__eng_fx_send(E, e->ref, &f) || pt_put(&E->ranks[r].pending, j, id))
        return rt__eng_oom(E);
    return 0;
}

static int bad_fx(struct engine *E, uint32_t from, const struct fx *f)
{
    return E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent a bad message (kind %u)",
                                    rt_trace_path(E->t), from, f->kind);
}

/* What another process's event @p ev of rank @p rank is in (its record's reg), for error messages. */
static void hint(struct engine *E, uint32_t rank, uint64_t ev, uint32_t reg)
{
    E->hint_rank = rank;
    E->hint_ev = ev;
    E->hint_region = reg && reg <= rt_trace_regions(E->t) ? reg - 1 : RT_NONE;
}

int rt__eng_half_arrives(struct engine *E, const struct fx *f, rt_time_ps t)
{
    uint32_t ci = chan_index(E, f->comm, f->tag, f->src, f->dst);
    uint32_t id = ci == UINT32_MAX ? ci : half_of(E, ci, (uint32_t)f->n, f->comm, f->tag, f->src, f->dst);
    if (id == UINT32_MAX)
        return rt__eng_oom(E);
    struct msg *m = &E->msgs[id];
    m->flags |= M_SEND | (f->flags & (M_RDV | M_BURST));
    m->bytes = f->bytes;
    m->send_ev = f->ev1;
    m->origin_ev = f->ev2;
    m->origin_rank = f->i;
    m->pmsg = (uint32_t)f->id;
    return push(E, t, Q_ARRIVE, id, MSG_KEY(f->src, f->ev1));
}

/* Applies what process @p from sent. */
static int fx_apply(struct engine *E, uint32_t from, const struct fx *f)
{
    uint32_t nr = E->nranks;
    if (f->kind == 0 || f->kind >= FX_KINDS)
        return bad_fx(E, from, f);
    if (f->kind == FX_DELIVERED) {
        if (f->id >= E->nmsgs || !(E->msgs[f->id].flags & M_VRECV) || !owned(E, E->msgs[f->id].src))
            return bad_fx(E, from, f);
        struct msg *m = &E->msgs[f->id];
        m->send_done = m->recv_done = f->t1;
        m->flags |= M_SDONE | M_RDONE;
        if (wake(E, m->src, f->t1))
            return E->failed;
        rt__eng_vrecv_release(E, (uint32_t)f->id);
        return 0;
    }
    if (f->kind == FX_SENDS) { /* before the first round: rank src sends to rank dst here */
        struct remote *rm = E->rm;
        if (!owned(E, f->dst) || f->src >= nr || rm->senders_at)
            return E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent a bad pair",
                                            rt_trace_path(E->t), from);
        if (rt__grow((void **)&rm->heard, &rm->capheard, sizeof *rm->heard, rm->nheard + 1))
            return rt__eng_oom(E);
        rm->heard[rm->nheard++] = (uint64_t)(f->dst - E->lo) << 32 | f->src;
        return 0;
    }
    if (f->kind == FX_BOUND) {
        if (f->src >= nr || owned(E, f->src))
            return bad_fx(E, from, f);
        E->rm->pub[2 * (size_t)f->src] = f->t1;
        E->rm->pub[2 * (size_t)f->src + 1] = f->t2;
        E->rm->pubt[2 * (size_t)f->src] = f->t3;
        E->rm->pubt[2 * (size_t)f->src + 1] = f->t4;
        return 0;
    }
    if (f->kind == FX_RPOST || f->kind == FX_ARRIVE) {
        if (f->src >= nr || f->dst >= nr || f->comm >= rt_trace_comms(E->t))
            return bad_fx(E, from, f);
        uint32_t ci = chan_index(E, f->comm, f->tag, f->src, f->dst);
        if (ci == UINT32_MAX)
            return rt__eng_oom(E);
        if (f->kind == FX_RPOST) { /* at the sender's process: the far receiver's side of the channel */
            if (!owned(E, f->src))
                return bad_fx(E, from, f);
            uint32_t id = chan_match(E, ci, M_RECV, f->comm, f->tag, f->src, f->dst);
            if (id == UINT32_MAX)
                return rt__eng_oom(E);
            E->msgs[id].flags |= M_VRECV;
            hint(E, f->dst, f->ev2, f->reg); /* names the receive's call in an error */
            if (rt__eng_recv_side(E, id, f->ev2, f->ev1, f->bytes, f->t1) || rt__eng_schedule_if_ready(E, id))
                return E->failed;
            rt__eng_vrecv_release(E, id);
            return 0;
        }
        if (!owned(E, f->dst) || f->n > UINT32_MAX) /* FX_ARRIVE, at the receiver's process */
            return bad_fx(E, from, f);
        return rt__eng_half_arrives(E, f, f->t1);
    }
    if (f->kind == FX_FLOW)
        return rt__eng_net_record(E, from, f);
    if (f->kind == FX_CCOUNT || f->kind == FX_CCREQ) /* (only on a network) */
        return !E->cxfar ? bad_fx(E, from, f)
               : f->kind == FX_CCOUNT ? rt__cxc_put(E, from, f)
                                      : rt__cxc_answer(E, from, f);
    if (f->kind == FX_CXRECV || f->kind == FX_CXDONE)
        return rt__cx_apply(E, from, f);
    /* collectives */
    const struct rt_comm *cm = f->comm < rt_trace_comms(E->t) ? rt_trace_comm(E->t, f->comm) : NULL;
    if (!cm || f->i >= (cm->members ? cm->size : 1))
        return bad_fx(E, from, f);
    uint32_t id;
    if (f->kind == FX_CPOST) {
        hint(E, f->src, f->ev1, f->reg);
        if (f->src >= nr || rt__eng_coll_record(E, f->comm, f->n, f->tag, f->dst, f->src, f->ev1, &id))
            return E->failed ? E->failed : bad_fx(E, from, f);
        double scale;
        memcpy(&scale, &f->id, sizeof scale);
        if (!(scale >= 0 && scale <= RT_SCALE_MAX))
            return bad_fx(E, from, f);
        return rt__eng_coll_enter(E, id, f->i, f->src, f->ev1, f->tag, f->dst, f->t1, (rt_time_ns)f->t2, f->bytes,
                                  f->ev2, scale, (int)(f->flags & (RT__CALL_VECTOR | RT__CALL_IN_PLACE)));
    }
    uint64_t *cid = rt__map_get(&E->coll_of, f->comm, f->n);
    if (!cid)
        return bad_fx(E, from, f);
    id = (uint32_t)*cid;
    struct coll *c = &E->colls[id];
    switch (f->kind) {
    case FX_CTC:
        c->tc = f->t1;
        c->pt = f->t1 > E->cur_pt ? f->t1 : E->cur_pt; /* the coordinator's order of it */
        c->tc_known = 1;
        return push(E, c->tc, Q_COLL, id, coll_key(c));
    case FX_CPORTS:
        c->mem[f->i].tx_free = f->t1;
        c->mem[f->i].rx_free = f->t2;
        if (++c->ports_in < c->size)
            return 0;
        rt__map_del(&E->coll_of, c->comm, c->seq);
        return rt__eng_coll_finish(E, id);
    default: { /* FX_CDONE */
        uint32_t row = member_row(E, c, f->i);
        if (!owned(E, row) || f->src >= c->size || f->tag >= c->size)
            return bad_fx(E, from, f);
        struct rank *R = &E->ranks[row];
        c->mem[f->i].done = f->t1;
        c->mem[f->i].origin = f->src;
        c->ev[f->src] = f->ev1;
        c->mem[f->i].mbind = f->tag;
        c->ev[f->tag] = f->ev2;
        R->tx_free = f->t2;
        R->rx_free = f->t3;
        R->held = 0;
        if (++c->dones == c->own) {
            c->complete = 1;
            rt__map_del(&E->coll_of, c->comm, c->seq);
        }
        return wake(E, row, f->t1);
    }
    }
}

/* ------------------------------------------------------------------ the order of the entries */

/*
 * One process takes its entries in the order (t, type, key), as the serial engine's queue gives
 * them, but for one thing: a collective runs at its last member's entry, and a member whose part
 * ended before that (a rooted collective's early leaver, a non-blocking member) is woken there at
 * its own earlier end. The serial engine then takes that wake, and all that follows from it while
 * its times stay below, before anything else still queued: in the order of the entry being taken.
 * So each entry has an order pt = max(its time, the order of the entry or record that made it),
 * and the serial engine takes its entries in (pt, t, type, key) order. Entries whose pt is above
 * their time (made "in the past") wait in a second heap here (rm->past); the main queue holds the
 * others, whose pt is their time.
 */
static int pless(const struct pent *a, const struct pent *b)
{
    return a->pt < b->pt || (a->pt == b->pt && qless(&a->q, &b->q));
}

static int past_insert(struct engine *E, struct pent x)
{
    struct remote *rm = E->rm;
    if (rt__grow((void **)&rm->past, &rm->cappast, sizeof *rm->past, rm->npast + 1))
        return rt__eng_oom(E);
    uint32_t i = rm->npast++;
    while (i > 0 && pless(&x, &rm->past[(i - 1) / 2])) {
        rm->past[i] = rm->past[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    rm->past[i] = x;
    return 0;
}

int rt__eng_push_past(struct engine *E, rt_time_ps t, uint8_t type, uint32_t id, uint64_t key)
{
    struct pent x = {E->cur_pt, qent_make(t, type, id, key)};
    return past_insert(E, x);
}

static struct pent past_pop(struct remote *rm)
{
    struct pent top = rm->past[0], last = rm->past[--rm->npast];
    uint32_t i = 0, n = rm->npast;
    for (uint32_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && pless(&rm->past[c + 1], &rm->past[c]))
            c++;
        if (!pless(&rm->past[c], &last))
            break;
        rm->past[i] = rm->past[c];
    }
    if (n)
        rm->past[i] = last;
    return top;
}

/* The least entry of both queues in (pt, t, type, key) order into *@p x (without taking it): 0
 * when both are empty, 1 from the main queue, 2 from the past heap. */
static int least(const struct engine *E, struct pent *x)
{
    const struct remote *rm = E->rm;
    int q = qcount(E) != 0;
    if (q)
        *x = (struct pent){qtop(E)->t, *qtop(E)};
    if (rm->npast && (!q || pless(&rm->past[0], x))) {
        *x = rm->past[0];
        return 2;
    }
    return q;
}

/* ------------------------------------------------------------------ bounds */

enum { MARK_TX = 1, MARK_RX = 2 };

static void mark(struct engine *E, uint32_t r, uint8_t bits)
{
    struct remote *rm = E->rm;
    if (!rm->mark[r])
        rm->marked[rm->nmarked++] = r;
    rm->mark[r] |= bits;
}

/* The bounds below come in two spaces. In order (ts = 0) they bound the order (pt) of what a
 * rank could still do, which is never below T, the round's earliest order; in time (ts = 1) its
 * time, which a rank woken in the past has below T. Ports are judged in order; the time bounds
 * serve the arrivals' bound, since an arrival comes a least wire time after its grant in time but
 * may share its grant's order. */
#define FLOOR(E, ts) ((ts) ? INT64_MIN : (E)->rm->T)
#define PUB(rm, ts) ((ts) ? (rm)->pubt : (rm)->pub)

/* A rendezvous ready of rank @p R not yet queued: its send is posted, and its receive can only be
 * posted at T or later, and not before its receiver could. */
static rt_time_ps rdv_bound(const struct engine *E, const struct rank *R, int ts)
{
    const struct remote *rm = E->rm;
    rt_time_ps lb = INT64_MAX;
    for (uint32_t i = 0; i < R->nrdvw; i++) {
        const struct msg *m = &E->msgs[R->rdvw[i]];
        rt_time_ps b = max_t(max_t(m->send_post, FLOOR(E, ts)), PUB(rm, ts)[2 * (size_t)m->dst + 1]);
        lb = min_t(b, lb);
    }
    return lb;
}

/* The earliest arrival of a message granted at @p t: a least wire time later (INT64_MIN, not
 * known, and INT64_MAX, never, stay as they are). */
static rt_time_ps wire_after(const struct engine *E, rt_time_ps t)
{
    return t == INT64_MIN ? INT64_MIN : t > INT64_MAX - E->wire_min ? INT64_MAX : t + E->wire_min;
}

/* On a network: the least end of a flow that has not ended in the copies yet (one running ends
 * after H, one not started starts at H or later). */
static rt_time_ps h_after(const struct engine *E)
{
    return E->rm->H == INT64_MAX ? INT64_MAX : E->rm->H + 1;
}

/* An arrival not yet queued at rank @p r's receive port: one least wire time after the earliest
 * grant (in time) of a rank that ever sends to it, and in order no earlier than that grant's.
 * Every grant from now on is at min(T, rm->low) or later in time, so no arrival is in order
 * before a least wire time after that (while nothing acts below T: T + wire_min). */
static rt_time_ps arrival_bound(const struct engine *E, uint32_t r, int ts)
{
    const struct remote *rm = E->rm;
    rt_time_ps lb = INT64_MAX;
    if (E->net) {
        /* On a network every arrival comes from the copy's flows (engine_net.c): those that end
         * by H are all known; one running or held to start ends after H, and one not granted yet
         * starts at its sender's grant bound or later, and at H or later; its message arrives the
         * look-ahead after its flow's end, or its start when it shares nothing (rm->look: a
         * latency, at least 1 ps). Its senders include the members of its communicators. */
        rt_time_ps h1 = rm->H > INT64_MAX - rm->look ? INT64_MAX : rm->H + rm->look;
        if (rt__eng_net_inflight(E, r))
            lb = h1;
        for (uint32_t k = rm->senders_at[r - E->lo]; k < rm->senders_at[r - E->lo + 1]; k++) {
            rt_time_ps g = rm->pubt[2 * (size_t)rm->senders[k]];
            lb = min_t(lb, g >= rm->H ? (g > INT64_MAX - rm->look ? INT64_MAX : g + rm->look) : h1);
        }
        return lb;
    }
    for (uint32_t k = rm->senders_at[r - E->lo]; k < rm->senders_at[r - E->lo + 1]; k++) {
        size_t s = rm->senders[k];
        rt_time_ps b = wire_after(E, rm->pubt[2 * s]);
        lb = min_t(lb, ts ? b : max_t(b, rm->pub[2 * s]));
    }
    return ts ? lb : max_t(lb, max_t(rm->T, wire_after(E, min_t(rm->T, rm->low))));
}

/* A lower bound on the order in which collective @p c runs: its last entry. */
static rt_time_ps coll_bound(const struct engine *E, const struct coll *c)
{
    return c->tc_known ? c->pt : max_t(c->max_begin, E->rm->T);
}

/* When the blocked rank @p r can go on: the completion it waits for. */
static rt_time_ps wake_bound(const struct engine *E, uint32_t r, int ts)
{
    const struct remote *rm = E->rm;
    const struct rank *R = &E->ranks[r];
    const struct rt_event *e = &R->ev[R->cursor];
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV)
        return min_t(ts ? rm->arr_min_t[r] : rm->arr_min[r], arrival_bound(E, r, ts));
    if (e->kind == RT_EV_COLL_END || e->kind == RT_EV_NBCOLL_END) { /* in order at or after its collective */
        uint64_t p = pending_of((struct rank *)R, e->ref); /* (on a network its own part's end: any time) */
        return !ts && !E->net && p != UINT64_MAX && (p & COLL_BIT) ? coll_bound(E, &E->colls[(uint32_t)p])
                                                                  : FLOOR(E, ts);
    }
    if (e->kind != RT_EV_ISEND_COMPLETE && e->kind != RT_EV_LEAVE)
        return FLOOR(E, ts);
    /* sends it waits for: each completes at or after its grant (eager), or its delivery, which is
     * at or after its arrival (rendezvous); it goes on when the last one completes */
    rt_time_ps lb = FLOOR(E, ts), grant = min_t(rdv_bound(E, R, ts), ts ? rm->rdy_min_t[r] : rm->rdy_min[r]);
    uint32_t n = e->kind == RT_EV_LEAVE ? R->nwaits : 1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t p = e->kind == RT_EV_LEAVE ? R->waits[i] : pending_of((struct rank *)R, e->ref);
        if (p == UINT64_MAX || (p & COLL_BIT))
            return FLOOR(E, ts);
        const struct msg *m = &E->msgs[p];
        if (m->flags & M_SDONE)
            continue;
        rt_time_ps b = grant;
        if ((m->flags & M_RDV) && (m->flags & M_FWD)) /* its arrival at the far receiver (on a network */
            b = E->net && m->recv_done == NEVER ? h_after(E) : m->recv_done; /* when its flow has ended here) */
        else if ((m->flags & M_RDV) && owned(E, m->dst)) /* (on a network its flow may be on its way) */
            b = min_t(ts ? rm->arr_min_t[m->dst] : rm->arr_min[m->dst],
                      E->net ? min_t(grant, arrival_bound(E, m->dst, ts)) : grant);
        lb = max_t(b, lb);
    }
    return lb;
}

/* The earliest rank @p r could still post anything. A rank queued is taken at its entry, unless a
 * collective it is in wakes it earlier (at T or later). */
static rt_time_ps post_bound(const struct engine *E, uint32_t r, int ts)
{
    const struct rank *R = &E->ranks[r];
    rt_time_ps lb = max_t(R->clock, FLOOR(E, ts));
    if (R->state == R_DONE)
        return INT64_MAX;
    if (R->state == R_QUEUED)
        return ts || R->nincoll || R->held ? lb : max_t(R->queued_at, lb);
    return max_t(wake_bound(E, r, ts), lb);
}

/* On a network, the earliest time rank @p r could send a message of a collective whose part it
 * runs that is not queued yet (rt__cx_bound): after a message arrives at it. */
static rt_time_ps cx_bound(const struct engine *E, uint32_t r, int ts)
{
    const struct remote *rm = E->rm;
    return rt__cx_bound(E, r, min_t(ts ? rm->arr_min_t[r] : rm->arr_min[r], arrival_bound(E, r, ts)));
}

/* The earliest grant of rank @p r's send port not yet taken (on a network, its collectives'
 * next messages too: cx_bound). */
static rt_time_ps grant_bound(const struct engine *E, uint32_t r, int ts)
{
    const struct remote *rm = E->rm;
    rt_time_ps g = min_t(rdv_bound(E, &E->ranks[r], ts), ts ? rm->rdy_min_t[r] : rm->rdy_min[r]);
    if (E->ranks[r].ncx)
        g = min_t(g, max_t(cx_bound(E, r, ts), FLOOR(E, ts)));
    return min_t(g, post_bound(E, r, ts));
}

/* The earliest order in which a collective that rank @p r has not entered yet could read its
 * ports: its last entry, at or after r's (INT64_MAX: r enters none). */
static rt_time_ps entry_bound(const struct engine *E, uint32_t r)
{
    return E->ranks[r].cursor < E->rm->coll_ahead[r - E->lo] ? post_bound(E, r, 0) : INT64_MAX;
}

/* Whether rank @p r waits for collective @p id to finish: it enters no other one before. */
static int waits_on(const struct engine *E, uint32_t r, uint32_t id)
{
    const struct rank *R = &E->ranks[r];
    if (R->state != R_BLOCKED || R->cursor >= R->nev)
        return 0;
    const struct rt_event *e = &R->ev[R->cursor];
    uint64_t p = e->kind == RT_EV_COLL_END || e->kind == RT_EV_NBCOLL_END ? pending_of((struct rank *)R, e->ref) : UINT64_MAX;
    return p != UINT64_MAX && (p & COLL_BIT) && (uint32_t)p == id;
}

/* Whether nothing unknown can precede entry @p q (order @p pt) on rank @p r's port of kind
 * @p bits; for a collective's reading of the ports (Q_COLL), @p self is that collective. At a tie
 * in order, what is not known could still come first where the serial engine takes it before: an
 * entry made in the past (below its order), which a collective at that order makes, or a
 * collective's reading; those wait until they are the least entry of all processes (rm->front). */
static int port_ok(const struct engine *E, uint32_t r, const struct qent *q, rt_time_ps pt, uint8_t bits, uint32_t self)
{
    const struct remote *rm = E->rm;
    const struct rank *R = &E->ranks[r];
    uint8_t type = QTYPE(q);
    int past = q->t < pt;
    int last_at_T = pt == rm->T && rm->tau == Q_RDV; /* nothing more can be posted at T */
    if ((rm->mark[r] & bits) || R->held) /* (held: a collective's results are still to come) */
        return 0;
    if (rm->front && pt == rm->T && q->t == rm->front_t && q->tk == rm->front_k)
        return 1; /* the least entry of all */
    if (R->ncx && bits == MARK_TX && !(pt < cx_bound(E, r, 0))) /* its collectives' next messages */
        return 0;
    for (uint32_t i = 0; i < R->nincoll; i++) {
        const struct coll *c = &E->colls[R->incoll[i]];
        rt_time_ps lb = coll_bound(E, c);
        if (type != Q_COLL) { /* (a tie: its reading comes after, unless it is made in the past) */
            int after = type < Q_COLL && !past && (c->tc_known ? c->pt == c->tc : !(pt == rm->T && rm->past_at_T));
            if (!(pt < lb || (pt == lb && after)))
                return 0;
        } else if (R->incoll[i] != self && !c->tc_known && lb <= pt) {
            /* another collective whose last entry is still to come could read the ports first
             * (one known here is queued and taken in order) */
            return 0;
        }
    }
    /* a collective the rank has not entered yet (unless it waits for this one first) */
    if (type == Q_ARRIVE || (type == Q_COLL && !waits_on(E, r, self))) {
        rt_time_ps lb = entry_bound(E, r);
        if (pt > lb || (pt == lb && (type == Q_COLL || past)))
            return 0;
    }
    if (bits == MARK_RX) /* arrivals not yet sent */
        return pt < arrival_bound(E, r, 0);
    if (R->nrdvw) {
        rt_time_ps lb = rdv_bound(E, R, 0);
        if (!(pt < lb || (pt == lb && !past && (type < Q_RDV || last_at_T))))
            return 0;
    }
    if (type != Q_COLL) { /* the rank's own later posts */
        rt_time_ps lb = post_bound(E, r, 0);
        if (type == Q_READY ? pt > lb || (pt == lb && past) : !(pt < lb || (pt == lb && !past && last_at_T)))
            return 0;
    }
    return 1;
}

/* The earliest queued grant of every rank's send port and arrival at its receive port, in order
 * and in time. */
static void scan_one(struct engine *E, const struct qent *q, rt_time_ps pt)
{
    struct remote *rm = E->rm;
    uint8_t ty = QTYPE(q);
    if (ty == Q_READY || ty == Q_RDV) {
        uint32_t r = E->msgs[q->id].src;
        rm->rdy_min[r] = min_t(pt, rm->rdy_min[r]);
        rm->rdy_min_t[r] = min_t(q->t, rm->rdy_min_t[r]);
    } else if (ty == Q_ARRIVE) {
        uint32_t r = E->msgs[q->id].dst;
        rm->arr_min[r] = min_t(pt, rm->arr_min[r]);
        rm->arr_min_t[r] = min_t(q->t, rm->arr_min_t[r]);
    }
}

static void scan_queue(struct engine *E)
{
    struct remote *rm = E->rm;
    for (uint32_t r = E->lo; r < E->hi; r++)
        rm->rdy_min[r] = rm->arr_min[r] = rm->rdy_min_t[r] = rm->arr_min_t[r] = INT64_MAX;
    for (size_t i = 0; i < qcount(E); i++)
        scan_one(E, qat(E, i), qat(E, i)->t);
    for (uint32_t i = 0; i < rm->npast; i++)
        scan_one(E, &rm->past[i].q, rm->past[i].pt);
}

/* At the end of a round: this process's ranks' bounds (see struct engine.pub), kept here and sent
 * to the processes that need them. Effects still on their way cannot undercut them: each came
 * from an entry that respected the bounds of the round before. */
static int publish(struct engine *E)
{
    struct remote *rm = E->rm;
    scan_queue(E);
    rm->hpart = INT64_MAX;
    for (uint32_t r = E->lo; r < E->hi; r++) {
        rt_time_ps grant = grant_bound(E, r, 0), post = post_bound(E, r, 0);
        rt_time_ps grant_t = grant_bound(E, r, 1), post_t = post_bound(E, r, 1);
        rm->hpart = min_t(rm->hpart, grant_t);
        rm->pub[2 * (size_t)r] = grant;
        rm->pub[2 * (size_t)r + 1] = post;
        rm->pubt[2 * (size_t)r] = grant_t;
        rm->pubt[2 * (size_t)r + 1] = post_t;
        struct fx f = {.kind = FX_BOUND, .src = r, .t1 = grant, .t2 = post, .t3 = grant_t, .t4 = post_t};
        for (uint32_t k = rm->nbp_at[r - E->lo]; k < rm->nbp_at[r - E->lo + 1]; k++)
            if (fx_send_to(E, rm->nbp[k], &f))
                return rt__eng_oom(E);
    }
    return 0;
}

/* Whether entry @p q (order @p pt) may be taken now; if not, its ports are marked. */
static int entry_ok(struct engine *E, const struct qent *q, rt_time_ps pt)
{
    switch (QTYPE(q)) {
    case Q_READY:
    case Q_RDV: {
        uint32_t r = E->msgs[q->id].src;
        if (port_ok(E, r, q, pt, MARK_TX, UINT32_MAX))
            return 1;
        mark(E, r, MARK_TX);
        return 0;
    }
    case Q_ARRIVE: {
        uint32_t r = E->msgs[q->id].dst;
        if (port_ok(E, r, q, pt, MARK_RX, UINT32_MAX))
            return 1;
        mark(E, r, MARK_RX);
        return 0;
    }
    case Q_RESUME: { /* a rank queued again before a collective until its counts are here */
        struct rank *R = &E->ranks[q->id];
        if (!R->cnt_wait || R->state != R_QUEUED || R->queued_at != q->t)
            return 1;
        int w = rt__cxc_wait(E, q->id, R->cursor);
        if (w == 0)
            R->cnt_wait = 0;
        else if (w > 0)
            mark(E, q->id, MARK_TX | MARK_RX);
        return w == 0;
    }
    case Q_COLL: {
        const struct coll *c = &E->colls[q->id];
        int ok = 1;
        for (uint32_t i = 0; i < c->size && ok; i++) {
            uint32_t row = member_row(E, c, i);
            ok = !owned(E, row) ||
                 (port_ok(E, row, q, pt, MARK_TX, q->id) && port_ok(E, row, q, pt, MARK_RX, q->id));
        }
        if (!ok)
            for (uint32_t i = 0; i < c->size; i++)
                if (owned(E, member_row(E, c, i)))
                    mark(E, member_row(E, c, i), MARK_TX | MARK_RX);
        return ok;
    }
    default:
        return 1;
    }
}

/* ------------------------------------------------------------------ who sends to whom */

/* Rank @p r here may send to rank @p dst: the pair goes to dst's process once (FX_SENDS). */
static int send_pair(struct engine *E, struct rt__map *seen, uint32_t r, uint32_t dst)
{
    struct remote *rm = E->rm;
    if (rt__map_get(seen, dst, r))
        return RT_OK;
    uint32_t p = owner_of(E, dst);
    struct fx f = {.kind = FX_SENDS, .src = r, .dst = dst};
    if (rt__map_put(seen, dst, r, 1) || fx_send_to(E, p, &f))
        return rt__eng_oom(E);
    if (p != E->part->me) { /* that process needs r's bounds: its ranks' arrivals wait for r's grants */
        if (rt__grow((void **)&rm->told, &rm->captold, sizeof *rm->told, rm->ntold + 1))
            return rt__eng_oom(E);
        rm->told[rm->ntold++] = (uint64_t)(r - E->lo) << 32 | p;
    }
    return RT_OK;
}

/* Which ranks ever send to each rank here: before the first round, every process sends the pairs
 * (receiver, sender) of its ranks' sends to the receivers' processes (FX_SENDS, in the first
 * swap), so that a round's records grow with a rank's neighbours, not with the ranks. */
static int send_pairs(struct engine *E)
{
    struct remote *rm = E->rm;
    struct rt__map seen;
    int rc = RT_OK;
    rt__map_init(&seen);
    if (!(rm->coll_ahead = calloc((size_t)(E->hi - E->lo) + 1, sizeof *rm->coll_ahead)))
        rc = rt__eng_oom(E);
    for (uint32_t r = E->lo; r < E->hi && !rc; r++) {
        const struct rank *R = &E->ranks[r];
        for (uint64_t j = 0; j < R->nev && !rc; j++) {
            const struct rt_event *e = &R->ev[j];
            if (e->kind == RT_EV_COLL_BEGIN || e->kind == RT_EV_NBCOLL_BEGIN) {
                rm->coll_ahead[r - E->lo] = j + 1;
                /* on a network a collective's messages go between its members (coll_exec.c) */
                const struct rt_comm *cm = E->net ? rt_trace_comm(E->t, rt__row_payload_of(R->row, j)->comm) : NULL;
                for (uint32_t k = 0; cm && cm->members && k < cm->size && !rc; k++)
                    if (cm->members[k] < E->nranks && cm->members[k] != r)
                        rc = send_pair(E, &seen, r, cm->members[k]);
                continue;
            }
            if ((e->kind != RT_EV_SEND && e->kind != RT_EV_ISEND) || e->ref >= E->nranks)
                continue;
            rc = send_pair(E, &seen, r, e->ref);
        }
    }
    rt__map_free(&seen);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Which other processes need the bounds of each rank here (rm->nbp): those of the ranks it sends
 * to (rm->told) and of the ranks that send to it (their rendezvous wait for its posts). */
static int bound_readers(struct engine *E)
{
    struct remote *rm = E->rm;
    uint32_t nown = E->hi - E->lo;
    uint64_t n = (uint64_t)rm->ntold + rm->senders_at[nown], k = 0;
    uint64_t *key = malloc((n ? n : 1) * sizeof *key); /* (rank here - lo) << 32 | process */
    rm->nbp_at = calloc((size_t)nown + 1, sizeof *rm->nbp_at);
    rm->nbp = malloc((n ? n : 1) * sizeof *rm->nbp);
    if (!key || !rm->nbp_at || !rm->nbp) {
        free(key);
        return rt__eng_oom(E);
    }
    for (uint32_t i = 0; i < rm->ntold; i++)
        key[k++] = rm->told[i];
    for (uint32_t r = 0; r < nown; r++)
        for (uint32_t i = rm->senders_at[r]; i < rm->senders_at[r + 1]; i++)
            if (owner_of(E, rm->senders[i]) != E->part->me)
                key[k++] = (uint64_t)r << 32 | owner_of(E, rm->senders[i]);
    qsort(key, k, sizeof *key, cmp_u64);
    uint64_t m = 0;
    for (uint64_t i = 0; i < k; i++) {
        if (i && key[i] == key[i - 1])
            continue;
        rm->nbp[m++] = (uint32_t)key[i];
        rm->nbp_at[(key[i] >> 32) + 1]++;
    }
    for (uint32_t r = 0; r < nown; r++)
        rm->nbp_at[r + 1] += rm->nbp_at[r];
    free(key);
    return RT_OK;
}

/* At the first round: the pairs heard in its swap as per-rank lists of senders, and who needs
 * whose bounds. */
static int senders_build(struct engine *E)
{
    struct remote *rm = E->rm;
    uint32_t nown = E->hi - E->lo;
    rm->senders_at = calloc((size_t)nown + 1, sizeof *rm->senders_at);
    rm->senders = malloc((rm->nheard ? rm->nheard : 1) * sizeof *rm->senders);
    uint32_t *fill = calloc((size_t)nown + 1, sizeof *fill);
    if (!rm->senders_at || !rm->senders || !fill) {
        free(fill);
        return rt__eng_oom(E);
    }
    for (uint32_t i = 0; i < rm->nheard; i++) /* count per receiver, then place */
        rm->senders_at[(rm->heard[i] >> 32) + 1]++;
    for (uint32_t i = 0; i < nown; i++)
        rm->senders_at[i + 1] += rm->senders_at[i];
    for (uint32_t i = 0; i < rm->nheard; i++) {
        uint32_t d = (uint32_t)(rm->heard[i] >> 32);
        rm->senders[rm->senders_at[d] + fill[d]++] = (uint32_t)rm->heard[i];
    }
    free(fill);
    int rc = bound_readers(E);
    free(rm->heard);
    free(rm->told);
    rm->heard = rm->told = NULL;
    return rc;
}

/* ------------------------------------------------------------------ rounds (rt__dist_ops) */

/* The type earliest gives the network's flows granted and not started: after every entry's. */
#define TY_STARTS (Q_RDV + 2)

/* Applies a record that process @p from sent: what it makes has at least the record's order. */
static int apply(void *ud, uint32_t from, const void *rec)
{
    struct engine *E = ud;
    struct fx x;
    memcpy(&x, rec, sizeof x); /* the transport's buffer need not be aligned */
    E->cur_pt = x.pt;
    fx_apply(E, from, &x);
    E->cur_pt = INT64_MIN;
    return E->failed;
}

/* The least time at which a rank here could still act below the round's order: an entry made in
 * the past (its time), or a rank in a collective, which may wake it at its own earlier end (its
 * clock: a rank's clock never goes back). Nothing else acts below its order: every other entry
 * is made at or after the order of what makes it. So from the round on, no rank of any process
 * grants a message before the least of these over the processes, or before T (rm->low). */
static rt_time_ps low_here(const struct engine *E)
{
    const struct remote *rm = E->rm;
    rt_time_ps low = INT64_MAX;
    for (uint32_t i = 0; i < rm->npast; i++)
        low = min_t(low, rm->past[i].q.t);
    for (uint32_t r = E->lo; r < E->hi; r++) {
        const struct rank *R = &E->ranks[r];
        if ((R->nincoll || R->held) && R->state != R_DONE)
            low = min_t(low, R->clock);
    }
    return low;
}

/* Whether collective @p c runs here and waits for its members' ports (it counts as an entry). */
static int awaits_ports(const struct engine *E, const struct coll *c)
{
    return c->mem && c->tc_known && !c->complete && coordinates(E, c);
}

/* The earliest entry here in order, and the collectives here that wait for their members' ports;
 * its type + 1, or 0 for one made in the past (it comes before every entry of its order). It asks
 * for the least entry of all (agree_front) when it put off one of order T last round; *@p low is
 * low_here. */
static void earliest(void *ud, int64_t *t, int64_t *type, int *ask, int64_t *ext)
{
    const struct engine *E = ud;
    *ask = E->rm->want_front;
    ext[0] = low_here(E);
    ext[1] = E->rm->hpart;
    /* background traffic stops after the last rank's finish, once all have finished: minus that
     * finish when all ranks here have (a time >= 0), INT64_MIN while one has not */
    ext[2] = E->ranks_done < E->hi - E->lo ? INT64_MIN : -max_t(E->last_finish, 0);
    rt_time_ps v = INT64_MAX;
    int64_t ty = INT64_MAX;
    struct pent x;
    if (least(E, &x))
        v = x.pt, ty = x.q.t < x.pt ? 0 : QTYPE(&x.q) + 1;
    for (uint32_t i = 0; i < E->ncolls; i++) {
        const struct coll *c = &E->colls[i];
        int64_t cty = c->pt > c->tc ? 0 : Q_COLL + 1;
        if (awaits_ports(E, c) && (c->pt < v || (c->pt == v && cty < ty)))
            v = c->pt, ty = cty;
    }
    if (E->net) { /* the network's next operation: its ends first, its flows' starts last at a time */
        int cls;
        rt_time_ps nt = net_next(E, &cls);
        int64_t nty = cls == NET_START ? TY_STARTS : 0;
        if (nt < v || (nt == v && nty < ty))
            v = nt, ty = nty;
    }
    *t = v;
    *type = ty;
}

/* The least entry here of order @p T as (time, type << 61 | key), the collectives that wait for
 * their members' ports at this coordinator included; *@p t INT64_MAX: none. */
static void least_at(const struct engine *E, rt_time_ps T, int64_t *t, uint64_t *tk)
{
    struct pent x;
    *t = INT64_MAX;
    *tk = UINT64_MAX;
    if (least(E, &x) && x.pt == T)
        *t = x.q.t, *tk = x.q.tk;
    for (uint32_t i = 0; i < E->ncolls; i++) {
        const struct coll *c = &E->colls[i];
        uint64_t k = (uint64_t)Q_COLL << 61 | coll_key(c);
        if (awaits_ports(E, c) && c->pt == T && (c->tc < *t || (c->tc == *t && k < *tk)))
            *t = c->tc, *tk = k;
    }
}

/* The least entry of all processes at order T (rm->front), for the ties port_ok cannot settle:
 * two reductions, which every process takes part in, in the rounds after one that put off an
 * entry of its T. None while a record made in the last swap could still make one at T. */
static int agree_front(struct engine *E)
{
    struct remote *rm = E->rm;
    int64_t t, v[1];
    uint64_t tk;
    least_at(E, rm->T, &t, &tk);
    v[0] = rt__dist_due(rm->D) <= rm->T ? INT64_MIN : t;
    int rc = rt__eng_reduce(E, v, 1, 0);
    if (rc || v[0] == INT64_MIN || v[0] == INT64_MAX)
        return rc;
    rm->front_t = v[0];
    v[0] = t == rm->front_t ? (int64_t)tk : INT64_MAX; /* (keys stay below 2^63) */
    if ((rc = rt__eng_reduce(E, v, 1, 0)))
        return rc;
    rm->front_k = (uint64_t)v[0];
    rm->front = 1;
    return RT_OK;
}

/* Takes the queue in order, each entry now or (if entry_ok says no) next round; then publishes. */
static int round_take(void *ud, int64_t T, int64_t tau, int asked, const int64_t *ext)
{
    struct engine *E = ud;
    struct remote *rm = E->rm;
    rm->T = T;
    rm->low = ext[0];
    rm->past_at_T = tau == 0; /* an entry made in the past, or a record, comes first at T */
    rm->tau = tau > 0 && tau <= Q_RDV + 1 ? (uint8_t)(tau - 1) : Q_RESUME;
    rm->front = 0;
    rm->want_front = 0;
    if (asked) { /* every process takes part */
        int rc = agree_front(E);
        if (rc)
            return E->failed = E->failed ? E->failed : rc;
    }
    if (!rm->senders_at && senders_build(E)) /* the first round: its swap brought the pairs */
        return E->failed;
    if (E->net) { /* every process runs its copy of the network up to the horizon */
        rm->H = max_t(T, ext[1]);
        /* when the least of all is a start, nothing is left to grant at T: the flows of T start */
        if (tau == TY_STARTS && T < INT64_MAX)
            rm->H = max_t(rm->H, T + 1);
        E->net_end = ext[2] == INT64_MIN ? INT64_MAX : -ext[2];
        if (rt__eng_net_catch_up(E, rm->H))
            return E->failed;
    }
    E->res->rounds++;
    scan_queue(E);
    struct pent x;
    for (int from; !E->failed && (from = least(E, &x));) {
        if (from == 2)
            past_pop(rm);
        else
            pop(E);
        E->cur_pt = x.pt;
        if (entry_ok(E, &x.q, x.pt)) {
            rt__eng_take(E, x.q);
            continue;
        }
        if (rt__grow((void **)&rm->later, &rm->caplater, sizeof *rm->later, rm->nlater + 1)) {
            rt__eng_oom(E);
            break;
        }
        rm->later[rm->nlater++] = x;
        rm->want_front |= x.pt == T; /* (a tie at T may hold it: the least entry of all settles it) */
    }
    E->cur_pt = INT64_MIN; /* (the entries put off go back with their own order) */
    for (uint32_t i = 0; i < rm->nlater && !E->failed; i++) {
        const struct pent *y = &rm->later[i];
        if (y->q.t < y->pt ? past_insert(E, *y) : push(E, y->q.t, QTYPE(&y->q), y->q.id, y->q.tk))
            break;
    }
    rm->nlater = 0;
    for (uint32_t i = 0; i < rm->nmarked; i++)
        rm->mark[rm->marked[i]] = 0;
    rm->nmarked = 0;
    if (!E->failed)
        publish(E);
    return E->failed;
}

/* The distributed replay's rounds, until no process has anything queued. */
int rt__eng_run_rounds(struct engine *E)
{
    static const struct rt__dist_ops ops = {apply, earliest, round_take};
    send_pairs(E); /* a failure is reported in the first round, which everyone takes part in */
    if (E->net && !E->failed) {
        rt__cxc_setup(E);
        E->rm->look = rt__eng_net_lookahead(E);
    }
    return rt__dist_rounds(E->rm->D, &ops, E, E->failed);
}

/* ------------------------------------------------------------------ set-up */

int rt__eng_remote_setup(struct engine *E)
{
    const struct rt_replay_part *P = E->o->part;
    int ok = P->nprocs > 0 && P->me < P->nprocs && P->first_rank && P->first_rank[0] == 0 &&
             P->first_rank[P->nprocs] == E->nranks && P->exchange && P->reduce;
    for (uint32_t p = 0; ok && p < P->nprocs; p++)
        ok = P->first_rank[p] <= P->first_rank[p + 1];
    if (!ok)
        return E->failed = rt_error_set(E->err, RT_EINVAL,
                                        "%s: the distributed replay's ranks are not split among its processes",
                                        rt_trace_path(E->t));
    uint32_t n = E->nranks ? E->nranks : 1;
    E->part = P;
    E->lo = P->first_rank[P->me];
    E->hi = P->first_rank[P->me + 1];
    E->remote_state = calloc(RS * (size_t)n, sizeof *E->remote_state);
    struct remote *rm = E->rm = calloc(1, sizeof *E->rm);
    if (!rm)
        return 0; /* out of memory: found by every process in setup_ranks */
    rt__map_init(&rm->halves);
    rm->D = rt__dist_create(P, sizeof(struct fx), rt_trace_path(E->t), E->err);
    rm->mark = calloc(n, 1);
    rm->marked = calloc(n, sizeof *rm->marked);
    rm->pub = malloc((2 * (size_t)E->nranks + 1) * sizeof *rm->pub);
    rm->rdy_min = calloc(n, sizeof *rm->rdy_min);
    rm->arr_min = calloc(n, sizeof *rm->arr_min);
    rm->rdy_min_t = calloc(n, sizeof *rm->rdy_min_t);
    rm->arr_min_t = calloc(n, sizeof *rm->arr_min_t);
    rm->pubt = malloc((2 * (size_t)E->nranks + 1) * sizeof *rm->pubt);
    rm->hpart = INT64_MIN; /* nothing published yet: a rank may grant at any time */
    for (size_t i = 0; rm->pub && rm->pubt && i < 2 * (size_t)E->nranks; i++)
        rm->pub[i] = rm->pubt[i] = INT64_MIN; /* nothing known yet: anything may happen at any time */
    return 0;
}

int rt__eng_remote_ready(const struct engine *E)
{
    const struct remote *rm = E->rm;
    return E->remote_state && rm && rm->D && rm->mark && rm->marked && rm->pub && rm->rdy_min && rm->arr_min &&
           rm->pubt && rm->rdy_min_t && rm->arr_min_t;
}

void rt__eng_remote_free(struct engine *E)
{
    struct remote *rm = E->rm;
    free(E->remote_state);
    if (!rm)
        return;
    rt__dist_destroy(rm->D);
    rt__map_free(&rm->halves);
    free(rm->mark);
    free(rm->marked);
    free(rm->later);
    free(rm->pub);
    free(rm->nbp);
    free(rm->nbp_at);
    free(rm->rdy_min);
    free(rm->arr_min);
    free(rm->rdy_min_t);
    free(rm->arr_min_t);
    free(rm->pubt);
    free(rm->past);
    free(rm->senders);
    free(rm->senders_at);
    free(rm->heard);
    free(rm->told);
    free(rm->coll_ahead);
    free(rm);
}

/* ------------------------------------------------------------------ after the rounds */

/* Every process learns where every rank stopped, for the diagnosis of a replay that did not finish. */
int rt__eng_share_states(struct engine *E)
{
    int64_t *v = E->remote_state;
    for (uint32_t r = E->lo; r < E->hi; r++) {
        const struct rank *R = &E->ranks[r];
        uint32_t reg = R->cursor < R->nev ? rt__eng_call_region(E, r, R->cursor) : RT_NONE;
        v[RS * (size_t)r] = (int64_t)R->state + 1;
        v[RS * (size_t)r + 1] = (int64_t)R->cursor;
        v[RS * (size_t)r + 2] = reg == RT_NONE ? 0 : (int64_t)reg + 1;
        uint32_t w = rt__eng_waits_for(E, r);
        v[RS * (size_t)r + 3] = w == RT_NONE ? 0 : (int64_t)w + 1;
    }
    return rt__dist_reduce(E->rm->D, v, RS * (size_t)E->nranks, 1);
}

/* One error for all: the lowest failing process keeps its own, the others say it stopped them. */
int rt__eng_agree(struct engine *E, int rc)
{
    return rt__dist_agree(E->rm->D, rc);
}

/* Sums the processes' per-rank ends and counters: every process returns the whole result. */
int rt__eng_share_results(struct engine *E)
{
    struct rt_replay_result *res = E->res;
    size_t n = E->nranks;
    int64_t c[7] = {(int64_t)res->events, (int64_t)res->messages, (int64_t)res->rendezvous,
                    (int64_t)res->collectives, res->net_noise_ps, res->os_noise_ps, res->burst_ps};
    int rc = rt__dist_reduce(E->rm->D, res->predicted_end_ps, n, 1);
    if (!rc)
        rc = rt__dist_reduce(E->rm->D, res->measured_end_ns, n, 1);
    if (!rc)
        rc = rt__dist_reduce(E->rm->D, c, 7, 1);
    if (rc)
        return rc;
    res->events = (uint64_t)c[0];
    res->messages = (uint64_t)c[1];
    res->rendezvous = (uint64_t)c[2];
    res->collectives = (uint64_t)c[3];
    res->net_noise_ps = c[4];
    res->os_noise_ps = c[5];
    res->burst_ps = c[6];
    return RT_OK;
}

int rt__eng_reduce(struct engine *E, int64_t *v, size_t n, int sum)
{
    return rt__dist_reduce(E->rm->D, v, n, sum);
}
