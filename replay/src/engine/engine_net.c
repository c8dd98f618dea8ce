/* SPDX-License-Identifier: MIT */
/*
 * The engine's side of a routed network (--topology; network.c holds the network itself): the
 * flows of the messages the ranks' ports grant, the network's completions and its background
 * traffic, in one order that does not depend on the order the engine happened to take its
 * entries of one time in.
 *
 * The order. At each time t the network's operations come in three steps around the queue's
 * entries of that time: (1) the flows that end at t (their messages arrive a latency later),
 * (2) background traffic due at t (--perturb), (3) the engine's entries of time t, which grant
 * messages; (4) the flows of all messages granted at t start, in the order of their keys (the
 * sender and its send event; a collective's message: its sender and place in the schedule, then
 * its instance). A grant does not start its flow at once: the flows of one time start together
 * once nothing more can be granted at that time. So the flow model sees the same calls in the
 * same order whatever order the ranks were simulated in, and in the distributed replay every
 * process can make them in that order from the grants of all processes (docs/distributed.md,
 * "Networks under mpirun"). Within one time, which flow starts first only decides flow ids
 * (which break ties between equal rates: which link is named a flow's bottleneck) and, with
 * adaptive routes, which loads a route sees; no flow's rate depends on it.
 *
 * Background traffic runs while the trace does: its messages due at t leave unless every rank
 * had finished before t (a rank's finish: its clock when it stepped its last event).
 */
#include <stdint.h>
#include <stdlib.h>

#include "engine_internal.h"
#include "grow.h"
#include "sort.h"
#include "retime/units.h"

/* ------------------------------------------------------------------ flows granted, not started */

static int sless(const struct nstart *a, const struct nstart *b)
{
    return a->t < b->t || (a->t == b->t && (a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2)));
}

static int start_push(struct engine *E, struct nstart s)
{
    if (rt__grow((void **)&E->pend, &E->cappend, sizeof *E->pend, E->npend + 1))
        return rt__eng_oom(E);
    uint32_t i = E->npend++;
    while (i > 0 && sless(&s, &E->pend[(i - 1) / 2])) {
        E->pend[i] = E->pend[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    E->pend[i] = s;
    return 0;
}

static struct nstart start_pop(struct engine *E)
{
    struct nstart top = E->pend[0], last = E->pend[--E->npend];
    uint32_t i = 0, n = E->npend;
    for (uint32_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && sless(&E->pend[c + 1], &E->pend[c]))
            c++;
        if (!sless(&E->pend[c], &last))
            break;
        E->pend[i] = E->pend[c];
    }
    if (n)
        E->pend[i] = last;
    return top;
}

/* A message's keys in the order of the flows of one time: k1 its queue key (sender, send event or
 * place in its collective's schedule), k2 its collective instance (0: a point-to-point message). */
static void msg_keys(const struct engine *E, const struct msg *m, uint64_t *k1, uint64_t *k2)
{
    *k1 = MSG_QKEY(m);
    *k2 = m->flags & M_COLL ? coll_instance(&E->colls[m->comm]) : 0;
}

/* ------------------------------------------------------------------ distributed: every process's flows */

/* In a distributed replay each process runs a whole copy of the network: every grant's flow goes
 * to every process (FX_FLOW), and each starts them all in the order above, so every copy makes
 * the same calls in the same order and comes to the same state, bit for bit. A process queues
 * the arrivals of its own ranks' messages. The flows granted and not yet ended are kept here by
 * slot (a flow's user value in the copy); the record holds what the receiver's process needs. */
struct net_part {
    struct fx *flow;
    uint32_t *free;
    uint32_t n, cap, nfree, capfree;
    uint32_t *inflight; /* per rank here: flows held or running that end at it (rt__eng_net_inflight) */
};

uint32_t rt__eng_net_inflight(const struct engine *E, uint32_t r)
{
    return E->np->inflight[r - E->lo];
}

static uint32_t flow_new(struct engine *E, const struct fx *f)
{
    struct net_part *np = E->np;
    uint32_t slot;
    if (np->nfree) {
        slot = np->free[--np->nfree];
    } else {
        if (rt__grow((void **)&np->flow, &np->cap, sizeof *np->flow, np->n + 1)) {
            rt__eng_oom(E);
            return UINT32_MAX;
        }
        slot = np->n++;
    }
    np->flow[slot] = *f;
    return slot;
}

static int flow_free(struct engine *E, uint32_t slot)
{
    struct net_part *np = E->np;
    if (rt__grow((void **)&np->free, &np->capfree, sizeof *np->free, np->nfree + 1))
        return rt__eng_oom(E);
    np->free[np->nfree++] = slot;
    return 0;
}

/* ------------------------------------------------------------------ distributed: congestion records */

/* Under mpirun process 0's copy makes the contention records (it runs every flow, in the order
 * one process does, so its records come in one process's order) and numbers the collectives'
 * messages by name as their flows come (a message's sending goes back to another of its instance:
 * the flow record carries its place, fx.tag); every process names those its members' leavings go
 * back to (rt__cx_member_bind). The congestion attribution matches the names (retime/congestion.h). */
static int records_here(const struct engine *E)
{
    return E->o->record_contention && E->part->me == 0;
}

uint64_t rt__eng_coll_name(struct engine *E, uint64_t instance, uint64_t place)
{
    struct rt_replay_result *res = E->res;
    uint64_t *v = rt__map_ref(&E->cx_names, instance, place, UINT64_MAX);
    if (!v || (*v == UINT64_MAX &&
               (rt__grow_one64((void **)&res->coll_names, &E->capcnames, sizeof *res->coll_names, res->ncoll_msgs) ||
                rt__grow_one64((void **)&res->coll_pred, &E->capcpred, sizeof *res->coll_pred, res->ncoll_msgs)))) {
        rt__eng_oom(E);
        return UINT64_MAX;
    }
    if (*v == UINT64_MAX) {
        res->coll_names[res->ncoll_msgs] = (struct rt_coll_msg_name){instance, place};
        res->coll_pred[res->ncoll_msgs] = UINT64_MAX; /* (process 0: set when its flow comes) */
        *v = res->ncoll_msgs++;
    }
    return *v;
}

/* Process 0 numbers collective flow @p f's message and the one its sending went back to. */
static int name_flow(struct engine *E, const struct fx *f)
{
    uint64_t inst = (uint64_t)f->t4, pred = f->tag == UINT32_MAX ? UINT64_MAX : rt__eng_coll_name(E, inst, f->tag);
    uint64_t n = rt__eng_coll_name(E, inst, f->n);
    if (E->failed)
        return E->failed;
    E->res->coll_pred[n] = pred;
    return 0;
}

/* Holds flow record @p f (from any process) to start with the others of its time. */
static int hold_record(struct engine *E, const struct fx *f)
{
    if ((f->flags & M_COLL) && records_here(E) && name_flow(E, f))
        return E->failed;
    uint32_t slot = flow_new(E, f);
    if (slot == UINT32_MAX)
        return E->failed;
    if (owned(E, f->dst))
        E->np->inflight[f->dst - E->lo]++;
    uint64_t k1 = MSG_KEY(f->src, f->flags & M_COLL ? f->n : f->ev1);
    return start_push(E, (struct nstart){f->t1, k1, (uint64_t)f->t4, f->t2, f->t3, slot});
}

/* The message of flow @p slot reaches its receiver's port at @p at: queued there if the
 * receiver is replayed here. */
static int flow_arrives(struct engine *E, uint32_t slot, rt_time_ps at)
{
    const struct fx *f = &E->np->flow[slot];
    int rc = 0;
    int coll = (f->flags & M_COLL) != 0;
    uint64_t key = MSG_KEY(f->src, coll ? f->n : f->ev1);
    if (owned(E, f->src) && !owned(E, f->dst) && (f->flags & M_RDV) && !coll) /* held for its delivery */
        E->msgs[f->id].recv_done = at; /* (a bound on it: wake_bound) */
    if (owned(E, f->dst)) {
        E->np->inflight[f->dst - E->lo]--;
        rc = owned(E, f->src) ? push(E, at, Q_ARRIVE, (uint32_t)f->id, key) /* the message is here whole */
             : coll           ? rt__cx_far_arrives(E, f, at)
                              : rt__eng_half_arrives(E, f, at);
    }
    return rc ? E->failed : flow_free(E, slot);
}

int rt__eng_net_record(struct engine *E, uint32_t from, const struct fx *f)
{
    if (!E->np || f->src >= E->nranks || f->dst >= E->nranks || f->comm >= rt_trace_comms(E->t) ||
        f->n > UINT32_MAX || f->t1 < 0 || owned(E, f->src))
        return E->failed = rt_error_set(E->err, RT_ECORRUPT,
                                        "%s: distributed replay: process %u sent a bad flow", rt_trace_path(E->t), from);
    return hold_record(E, f);
}

int rt__eng_net_catch_up(struct engine *E, rt_time_ps H)
{
    for (;;) {
        int cls;
        rt_time_ps t = net_next(E, &cls);
        if (t == INT64_MAX || (cls == NET_START ? t >= H : t > H))
            return E->failed;
        if (rt__eng_net_step(E))
            return E->failed;
    }
}

/* ------------------------------------------------------------------ grants */

int rt__eng_net_start(struct engine *E, uint32_t id, rt_time_ps now, rt_time_ps wire, rt_time_ps bytes_ps)
{
    struct msg *m = &E->msgs[id];
    struct nstart s = {.t = now, .wire = wire, .bytes_ps = bytes_ps, .ref = id};
    msg_keys(E, m, &s.k1, &s.k2);
    if (!E->part)
        return start_push(E, s);
    struct fx f = {.kind = FX_FLOW, .comm = m->comm, .tag = m->tag, .src = m->src, .dst = m->dst,
                   .i = m->origin_rank, .flags = m->flags & (M_RDV | M_BURST | M_COLL), .n = m->n,
                   .ev1 = m->send_ev, .ev2 = m->origin_ev, .bytes = m->bytes, .id = id, .t1 = now, .t2 = wire,
                   .t3 = bytes_ps, .t4 = (rt_time_ps)s.k2};
    if (m->flags & M_COLL) { /* named by its instance and place, which every process knows */
        const struct coll *c = &E->colls[m->comm];
        f.comm = c->comm;
        f.ev1 = c->seq;
        f.ev2 = rt__cx_origin(c->cx, m->n);
        f.tag = rt__cx_pred(c->cx, m->n); /* (the congestion records' chains: name_flow) */
    }
    /* (its receiver's process makes the schedule from the counts, which go first) */
    if ((m->flags & M_COLL) && !owned(E, m->dst) && rt__cx_tell(E, m->comm, owner_of(E, m->dst)))
        return E->failed;
    if (rt__eng_fx_send_all(E, &f))
        return rt__eng_oom(E);
    if ((m->flags & M_COLL) && !owned(E, m->dst)) { /* its receiver's process has the rest (rt__cx_far_arrives) */
        uint32_t cid = m->comm;
        msg_release(E, id);
        rt__eng_coll_unref(E, cid); /* the hold cx_launch took */
    }
    if (m->flags & M_VRECV) { /* its arrival comes from the receiver's process's copy */
        m->flags |= M_FWD;
        m->recv_done = NEVER; /* its arrival, when this copy has it (flow_arrives) */
        rt__eng_vrecv_release(E, id);
    }
    return hold_record(E, &f);
}

/* ------------------------------------------------------------------ arrivals */

/* The time message @p rec (its origin and collective number filled) lost on each of its @p n
 * links, as contention records. */
static int record_delays(struct engine *E, struct rt_msg_contention rec, uint32_t n, const uint32_t *links,
                         const double *delay_ps)
{
    struct rt_replay_result *res = E->res;
    for (uint32_t i = 0; i < n; i++) {
        if (!(delay_ps[i] >= 0.5)) /* under a ps: rounding, not contention */
            continue;
        if (rt__grow_one64((void **)&res->contention, &E->capcont, sizeof *res->contention, res->ncontention))
            return rt__eng_oom(E);
        rec.link = links[i];
        rec.delay_ps = delay_ps[i];
        res->contention[res->ncontention++] = rec;
    }
    return 0;
}

/* The same for the flow in slot @p slot of a distributed replay's copy (process 0): a collective's
 * message by the number of its name (its origin's event is on its member's process). */
static int record_flow_delays(struct engine *E, uint32_t slot, uint32_t n, const uint32_t *links,
                              const double *delay_ps)
{
    const struct fx *f = &E->np->flow[slot];
    struct rt_msg_contention rec = {f->ev2, f->i, 0, 0, UINT64_MAX};
    if (f->flags & M_COLL) {
        const struct rt_comm *cm = rt_trace_comm(E->t, f->comm);
        rec.origin_ev = UINT64_MAX;
        rec.origin_rank = cm && cm->members && f->ev2 < cm->size ? cm->members[f->ev2] : RT_NONE;
        if ((rec.coll_msg = rt__eng_coll_name(E, (uint64_t)f->t4, f->n)) == UINT64_MAX)
            return E->failed;
    }
    return record_delays(E, rec, n, links, delay_ps);
}

static void net_arrived(void *ud, uint64_t user, rt_time_ps at, uint32_t n, const uint32_t *links,
                        const double *delay_ps)
{
    struct engine *E = ud;
    if (E->np) {
        if (records_here(E) && record_flow_delays(E, (uint32_t)user, n, links, delay_ps))
            return;
        flow_arrives(E, (uint32_t)user, at);
        return;
    }
    const struct msg *m = &E->msgs[(uint32_t)user];
    if (E->o->record_contention) {
        uint64_t cm = m->flags & M_COLL ? rt__cx_serial(E->colls[m->comm].cx, m->n) : UINT64_MAX;
        if (record_delays(E, (struct rt_msg_contention){m->origin_ev, m->origin_rank, 0, 0, cm}, n, links, delay_ps))
            return;
    }
    /* (queued by net_done once the advance is over, in the queue's order) */
    if (rt__grow((void **)&E->arr, &E->caparr, sizeof *E->arr, E->narr + 1)) {
        rt__eng_oom(E);
        return;
    }
    E->arr[E->narr++] = qent_make(at, Q_ARRIVE, (uint32_t)user, MSG_QKEY(m));
}

RT_SORT_DEFINE(arr_sort, struct qent, qless)

/* The arrivals of one advance, queued in order: flows that end together come in the flow model's
 * order, and in the queue's they mostly join the lane (push_lane). */
static int queue_arrivals(struct engine *E)
{
    uint32_t n = E->narr;
    E->narr = 0;
    if (n > 1) {
        if (rt__grow((void **)&E->arr, &E->caparr, sizeof *E->arr, n + n / 2))
            return rt__eng_oom(E);
        arr_sort(E->arr, E->arr + n, n);
    }
    for (uint32_t i = 0; i < n && !E->failed; i++)
        push_lane(E, E->arr[i]);
    return E->failed;
}

/* ------------------------------------------------------------------ the operations */

/* The flows that end at @p t: the messages whose last byte left then are queued to arrive after
 * their latency; the network's next end is set. */
static int net_done(struct engine *E, rt_time_ps t)
{
    E->net_at = INT64_MAX;
    rt_time_ps nx = rt__netrun_next(E->net);
    if (nx == INT64_MIN)
        return rt__eng_oom(E);
    if (nx == INT64_MAX)
        return 0;
    if (nx > t) {
        E->net_at = nx;
        return 0;
    }
    if (rt__netrun_advance(E->net, t, net_arrived, E))
        return rt__eng_oom(E);
    if (queue_arrivals(E))
        return E->failed;
    nx = rt__netrun_next(E->net);
    if (nx == INT64_MIN)
        return rt__eng_oom(E);
    E->net_at = nx;
    return E->failed;
}

/* Background traffic's messages due at @p t leave, unless every rank had finished before. */
static int net_bg(struct engine *E, rt_time_ps t)
{
    E->bg_at = INT64_MAX;
    rt_time_ps end = E->part ? E->net_end : E->ranks_done == E->nranks ? E->last_finish : INT64_MAX;
    if (end < t)
        return 0; /* the trace is done: the other jobs no longer matter */
    int rc = rt__netrun_perturb_fire(E->net, t);
    if (rc == RT_ERANGE) {
        char at[32];
        return E->failed = rt_error_set(E->err, RT_ERANGE,
                                        "%s: --perturb: %llu background messages on the wire at once at predicted "
                                        "time %s: the other jobs offer more than the links carry and their traffic "
                                        "piles up without bound (lower the ratio or size, or raise the interval)",
                                        rt_trace_path(E->t), (unsigned long long)rt__netrun_bg_on_wire(E->net),
                                        rt_format_time(at, sizeof at, (double)t / 1e3));
    }
    if (rc)
        return rt__eng_oom(E);
    E->net_at = t; /* the rates are worked out again now */
    E->bg_at = rt__netrun_perturb_next(E->net);
    return 0;
}

/* The flows of the messages granted at the earliest time held start, in their keys' order. */
static int net_starts(struct engine *E)
{
    rt_time_ps t = E->pend[0].t;
    int kick = 0;
    while (E->npend && E->pend[0].t == t && !E->failed) {
        struct nstart s = start_pop(E);
        uint32_t src, dst;
        rt_bytes bytes;
        if (E->np) {
            const struct fx *f = &E->np->flow[s.ref];
            src = f->src, dst = f->dst, bytes = f->bytes;
        } else {
            const struct msg *m = &E->msgs[s.ref];
            src = m->src, dst = m->dst, bytes = m->bytes;
        }
        rt_time_ps arrive;
        int rc = rt__netrun_send(E->net, src, dst, bytes, t, s.wire, s.bytes_ps, s.ref, &arrive);
        if (rc < 0)
            return rt__eng_oom(E);
        if (rc == 1) {
            kick = 1;
            continue;
        }
        arrive = arrive > t ? arrive : t + 1; /* shared memory may be faster than the model's wire_min */
        if (E->np ? flow_arrives(E, s.ref, arrive) : push_lane(E, qent_make(arrive, Q_ARRIVE, s.ref, MSG_QKEY(&E->msgs[s.ref]))))
            return E->failed;
    }
    if (kick)
        E->net_at = t; /* the rates are worked out again now */
    return E->failed;
}

int rt__eng_net_step(struct engine *E)
{
    int cls;
    rt_time_ps t = net_next(E, &cls);
    return cls == NET_DONE ? net_done(E, t) : cls == NET_BG ? net_bg(E, t) : net_starts(E);
}

/* ------------------------------------------------------------------ set-up */

rt_time_ps rt__eng_net_lookahead(const struct engine *E)
{
    /* A message's latency (rt__netrun_send, after its flow or at its start when nothing is
     * shared) is its wire time less its bytes' time (net_inject): E->wire0 for a message with
     * bytes, the model's whole wire time of 0 bytes (no less) for an empty one, plus hops and
     * queues (never negative); on one node at least --shm-alpha when set; net_starts puts every
     * arrival 1 ps after its start at least. */
    if (E->o->net_noise || E->o->net_burst)
        return 1;
    rt_time_ps l = E->wire0, shm = rt__netrun_shm_latency(E->net);
    l = shm < l ? shm : l;
    return l > 1 ? l : 1;
}

int rt__eng_net_setup(struct engine *E)
{
    const struct rt_model *mod = &E->o->model;
    if (E->part && (!(E->np = calloc(1, sizeof *E->np)) ||
                    !(E->np->inflight = calloc((size_t)(E->hi - E->lo) + 1, sizeof *E->np->inflight))))
        return rt__eng_oom(E);
    /* The latency part of the wire time, so that a flow of m bytes alone, its bytes taking one
     * per-byte time each, arrives at W(m): W(0) (Hockney's α), but LogGP's wire time leaves the
     * first byte's G out (W(m) = L + (m-1)G, so W(1) = W(0)): then L - G. */
    rt_time_ps w0 = mod->ops->wire(&mod->params, 0), w1 = mod->ops->wire(&mod->params, 1);
    E->wire0 = w1 == w0 ? w0 - (mod->ops->wire(&mod->params, 2) - w1) : w0;
    E->wire0 = E->wire0 > 0 ? E->wire0 : 0;
    /* the model's own per-byte time, over a large message (the NICs' default bandwidth) */
    double per_byte_ns = (double)(mod->ops->wire(&mod->params, 1 << 20) - E->wire0) / (double)(1 << 20) / 1e3;
    int rc = rt__netrun_create(E->o->network, per_byte_ns, &E->net, E->err);
    if (rc)
        return E->failed = rc;
    rt__netrun_set_in_order(E->net, E->in_order);
    /* (net_arrived's only use of them; under mpirun process 0 makes the records) */
    rt__netrun_set_routes(E->net, E->o->record_contention && (!E->part || E->part->me == 0));
    if (rt__netrun_perturb_start(E->net, E->o->seed, E->o->run))
        return rt__eng_oom(E);
    E->bg_at = rt__netrun_perturb_next(E->net);
    return 0;
}

void rt__eng_net_free(struct engine *E)
{
    rt__netrun_destroy(E->net);
    free(E->pend);
    free(E->arr);
    if (E->np) {
        free(E->np->flow);
        free(E->np->free);
        free(E->np->inflight);
        free(E->np);
    }
}
