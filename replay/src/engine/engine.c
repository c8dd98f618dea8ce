/* SPDX-License-Identifier: MIT */
/*
 * The replay engine: a discrete-event simulation over the ranks of a trace. This file holds the
 * serial replay (posting and matching, the network's grants, the ranks' steps), the diagnosis of a
 * replay that cannot finish, and the driver rt_replay_run; the engine's side of a distributed
 * replay is in engine_remote.c (its rounds in engine_dist.c), and the structures and hot helpers
 * these files share in engine_internal.h.
 *
 * Each rank runs through its own events as far as it can, computing predicted times from its
 * own clock. It stops only where it needs a time it does not own: the completion of a message
 * or of a collective. Network resources (each rank's send and receive port) are granted in
 * global time order through one priority queue, which holds five kinds of entries:
 *   RESUME  a blocked rank may go on,
 *   READY   an eager message may start (its send is posted),
 *   ARRIVE  a message reaches its receiver's port,
 *   COLL    a collective's last member has entered: it runs over its members' ports,
 *   RDV     a rendezvous message may start (both sides posted).
 * A rank only ever queues entries at or after its own clock, and a rank runs only when it is
 * popped, so entries are popped in time order and port grants follow time, never the order
 * in which ranks happened to be simulated. Ties are broken by (type, key), an order that does
 * not depend on when an entry was queued either: the same trace and model give bit-identical
 * results, also when the ranks are split over processes (the distributed replay, engine_dist.c).
 *
 * Matching follows MPI's non-overtaking rule: per (communicator, source, destination, tag)
 * channel, the n-th posted send matches the n-th posted receive. Receives are posted, and
 * sends start, when their MPI call is entered (the engine looks ahead to the call's Leave),
 * so MPI_Sendrecv and rendezvous exchanges between two ranks cannot deadlock the replay.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "engine_internal.h"
#include "grow.h"
#include "map.h"
#include "noise_internal.h"
#include "retime/replay.h"
#include "retime/units.h"
#include "retime/window.h"


/* ------------------------------------------------------------------ helpers */

/* The model's times for a message of @p m bytes (see struct size_memo): a hit is inlined, the
 * model is asked out of line. */
static const struct size_memo *times_fill(struct engine *E, struct size_memo *c, rt_bytes m)
{
    const struct rt_model *mod = &E->o->model;
    c->m = m;
    c->o_send = mod->ops->o_send(&mod->params, m);
    c->o_recv = mod->ops->o_recv(&mod->params, m);
    c->gap = mod->ops->gap(&mod->params, m);
    c->wire = mod->ops->wire(&mod->params, m);
    c->hold = mod->ops->send_hold(&mod->params, m);
    c->handshake = mod->ops->handshake(&mod->params, m);
    c->valid = 1;
    return c;
}

RT_HOT_INLINE const struct size_memo *times_of(struct engine *E, rt_bytes m)
{
    struct size_memo *c = &E->memo[(m ^ (m >> 4) ^ (m >> 12)) & (MEMO_SLOTS - 1)];
    return c->valid && c->m == m ? c : times_fill(E, c, m);
}

int rt__eng_oom(struct engine *E)
{
    if (!E->failed)
        E->failed = rt_error_set(E->err, RT_ENOMEM, "%s: out of memory during replay", rt_trace_path(E->t));
    return E->failed;
}

int rt__eng_chan_grow(struct engine *E)
{
    uint32_t ncap = E->chan_cap ? E->chan_cap * 2 : 64, nshift = E->chan_cap ? E->chan_shift - 1 : 58;
    uint32_t *ns = ncap > E->chan_cap ? malloc((size_t)ncap * sizeof *ns) : NULL;
    if (!ns)
        return -1;
    for (uint32_t i = 0; i < ncap; i++)
        ns[i] = UINT32_MAX;
    free(E->chan_slot);
    E->chan_slot = ns;
    E->chan_cap = ncap;
    E->chan_shift = nshift;
    for (uint32_t ci = 0; ci < E->nchans; ci++) {
        const struct chan *c = &E->chans[ci];
        size_t i = chan_home(E, c->comm, c->tag, c->src, c->dst);
        while (ns[i] != UINT32_MAX)
            i = (i + 1) & (ncap - 1);
        ns[i] = ci;
    }
    return 0;
}

/* When CPU work of @p work ps that rank @p r may start at @p t is done: its OS noise's detours
 * run first. With no work, when the rank can run at all (t, or the end of a detour). */
RT_HOT_INLINE rt_time_ps cpu(struct engine *E, uint32_t r, rt_time_ps t, rt_time_ps work)
{
    if (!E->nsrc)
        return t + work;
    return rt__os_advance(&E->os, r, &E->cursors[(size_t)r * E->nsrc], t, work, &E->res->os_noise_ps);
}

uint64_t rt__eng_call_enter(const struct engine *E, uint32_t r, uint64_t j)
{
    const struct rt_event *ev = E->ranks[r].ev;
    uint64_t lo = E->ranks[r].kept; /* (a streamed trace gave back the events before) */
    int depth = 0;
    for (uint64_t k = j + 1; k-- > lo;) {
        if (!(ev[k].flags & RT_EVF_MPI))
            continue;
        if (ev[k].kind == RT_EV_LEAVE && k != j)
            depth++;
        else if (ev[k].kind == RT_EV_ENTER && depth-- == 0)
            return k;
    }
    return UINT64_MAX;
}

uint32_t rt__eng_call_region(const struct engine *E, uint32_t r, uint64_t j)
{
    uint64_t k = rt__eng_call_enter(E, r, j);
    return k == UINT64_MAX ? RT_NONE : E->ranks[r].ev[k].ref;
}

double rt__eng_factor(const struct engine *E, uint32_t r, uint64_t j, uint32_t comm)
{
    uint32_t site = RT_NONE;
    if (rt_scale_by_site(E->o->scale)) {
        uint64_t k = rt__eng_call_enter(E, r, j);
        site = k == UINT64_MAX ? RT_NONE : E->ranks[r].ev[k].aux;
    }
    return rt_scale_factor(E->o->scale, comm, site);
}

rt_bytes rt__eng_scaled(struct engine *E, uint32_t r, uint64_t j, uint32_t comm, rt_bytes m)
{
    double f = rt__eng_factor(E, r, j, comm);
    rt_bytes b = rt_scale_apply(f, m);
    if (b == UINT64_MAX && !E->failed)
        E->failed = rt_error_set(E->err, RT_ERANGE,
                                 "%s: --scale-bytes: rank %u event %llu (%s): %llu bytes times %g is more than "
                                 "the 4 TiB a count may hold",
                                 rt_trace_path(E->t), rt_trace_rank_label(E->t, r), (unsigned long long)j,
                                 rt__eng_call_name(E, r, j), (unsigned long long)m, f);
    return b;
}

const char *rt__eng_call_name(const struct engine *E, uint32_t r, uint64_t j)
{
    uint32_t reg = RT_NONE;
    if (r >= E->nranks)
        return "?";
    if (owned(E, r) && j < E->ranks[r].nev)
        reg = rt__eng_call_region(E, r, j);
    else if (r == E->hint_rank && j == E->hint_ev)
        reg = E->hint_region;
    else if (E->remote_state && E->remote_state[RS * (size_t)r] && j == (uint64_t)E->remote_state[RS * (size_t)r + 1])
        reg = (uint32_t)(E->remote_state[RS * (size_t)r + 2] - 1); /* where another process's rank stopped */
    else
        return "?";
    return reg == RT_NONE ? "no MPI call" : rt_trace_region(E->t, reg)->name;
}

const char *rt__eng_comm_name(const struct engine *E, uint32_t c)
{
    const struct rt_comm *cm = rt_trace_comm(E->t, c);
    return cm && cm->name[0] ? cm->name : "?";
}

/* ------------------------------------------------------------------ posting */

RT_HOT_INLINE int schedule_if_ready(struct engine *E, uint32_t id)
{
    struct msg *m = &E->msgs[id];
    if (m->flags & M_SCHED || !(m->flags & M_SEND))
        return 0;
    if (m->flags & M_RDV) {
        if (!(m->flags & M_RECV))
            return 0;
        m->flags |= M_SCHED;
        rt_time_ps both = m->send_post > m->recv_post ? m->send_post : m->recv_post;

        /* the later side's event is where the timing goes back to (not a blocking receive's
         * own completion, which a post outside any call would name) */
        int by_recv = m->recv_post > m->send_post && m->post_ev != m->recv_ev;
        m->origin_rank = by_recv ? m->dst : m->src;
        m->origin_ev = by_recv ? m->post_ev : m->send_ev;
        return push(E, both + times_of(E, m->bytes)->handshake, Q_RDV, id, MSG_KEY(m->src, m->send_ev));
    }
    m->flags |= M_SCHED;
    m->origin_rank = m->src;
    m->origin_ev = m->send_ev;
    return push(E, m->send_post, Q_READY, id, MSG_KEY(m->src, m->send_ev));
}

/* cpu and times_of for coll_exec.c: the serial replay's callers keep them inlined. */
rt_time_ps rt__eng_cpu(struct engine *E, uint32_t r, rt_time_ps t, rt_time_ps work)
{
    return cpu(E, r, t, work);
}

const struct size_memo *rt__eng_times(struct engine *E, rt_bytes m)
{
    return times_of(E, m);
}

/* schedule_if_ready for engine_remote.c: the serial replay's callers keep it inlined. */
int rt__eng_schedule_if_ready(struct engine *E, uint32_t id)
{
    return schedule_if_ready(E, id);
}

static int size_mismatch(struct engine *E, const struct msg *m, rt_bytes sent, rt_bytes received)
{
    return E->failed = rt_error_set(
               E->err, RT_EMISMATCH,
               "%s: inconsistent message: rank %u event %llu (%s to rank %u, tag %u, comm '%s') sends %llu bytes "
               "but rank %u event %llu (%s) receives %llu bytes",
               rt_trace_path(E->t), rt_trace_rank_label(E->t, m->src), (unsigned long long)m->send_ev,
               rt__eng_call_name(E, m->src, m->send_ev), rt_trace_rank_label(E->t, m->dst), m->tag,
               rt__eng_comm_name(E, m->comm), (unsigned long long)sent, rt_trace_rank_label(E->t, m->dst),
               (unsigned long long)m->recv_ev,
               rt__eng_call_name(E, m->dst, m->recv_ev), (unsigned long long)received);
}

/* The receive side of message @p id is posted at @p t (event @p j, started at @p post_ev). */
RT_HOT_INLINE int recv_side(struct engine *E, uint32_t id, uint64_t j, uint64_t post_ev, rt_bytes bytes, rt_time_ps t)
{
    struct msg *m = &E->msgs[id];
    m->recv_ev = j;
    if ((m->flags & M_SEND) && m->raw != bytes)
        return size_mismatch(E, m, m->raw, bytes);
    m->flags |= M_RECV;
    m->post_ev = post_ev;
    if (!(m->flags & M_SEND)) /* (the send's size, scaled, stands) */
        m->bytes = m->raw = bytes;
    m->recv_post = t;
    if ((m->flags & (M_RDV | M_SEND)) == (M_RDV | M_SEND))
        rt__eng_rdv_waiting_del(E, m->src, id);
    return 0;
}

/* recv_side for engine_remote.c: the serial replay's post keeps it inlined. */
int rt__eng_recv_side(struct engine *E, uint32_t id, uint64_t j, uint64_t post_ev, rt_bytes bytes, rt_time_ps t)
{
    return recv_side(E, id, j, post_ev, bytes, t);
}

/* Posts the send or receive at event @p j of rank @p r at time @p t; matches it in its channel.
 * A message's sender's process matches it (with the posts of a receiver elsewhere sent to it);
 * a receiver whose sender is elsewhere keeps a receive half (rt__eng_post_remote_recv in
 * engine_remote.c). Inlined into post once per side, each copy without the other side's tests. */
RT_HOT_INLINE int post_message(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e,
                               const struct rt_event_payload *p, rt_time_ps t, int is_send)
{
    uint32_t src = is_send ? r : e->ref, dst = is_send ? e->ref : r;
    if (!is_send && E->part && src < E->nranks && !owned(E, src)) /* (a source never known stays local) */
        return rt__eng_post_remote_recv(E, r, j, post_ev, e, p, t);
    uint32_t ci = chan_index(E, p->comm, e->aux, src, dst);
    uint32_t id = ci == UINT32_MAX ? ci : chan_match(E, ci, is_send ? M_SEND : M_RECV, p->comm, e->aux, src, dst);
    if (id == UINT32_MAX)
        return rt__eng_oom(E);
    struct msg *m = &E->msgs[id];
    if (is_send) {
        m->send_ev = j;
        if ((m->flags & M_RECV) && m->raw != p->bytes)
            return size_mismatch(E, m, p->bytes, m->raw);
        m->flags |= M_SEND;
        m->raw = p->bytes;
        m->bytes = E->o->scale ? rt__eng_scaled(E, r, j, p->comm, p->bytes) : p->bytes;
        if (E->failed)
            return E->failed;
        m->n = E->chans[ci].nsend++;
        m->send_post = cpu(E, r, t, times_of(E, m->bytes)->o_send); /* injection not before */
        if (!(e->flags & RT_EVF_BUFFERED) && ((e->flags & RT_EVF_SYNC) || m->bytes > E->o->eager_limit)) {
            m->flags |= M_RDV;
            E->res->rendezvous++;
            if (!(m->flags & M_RECV) && rt__eng_rdv_waiting_add(E, r, id))
                return rt__eng_oom(E);
        }
        if (!owned(E, dst))
            m->flags |= M_VRECV;
        E->res->messages++;
    } else if (recv_side(E, id, j, post_ev, p->bytes, t)) {
        return E->failed;
    }
    if (pt_put(&E->ranks[r].pending, j, id))
        return rt__eng_oom(E);
    E->last_post = id;
    return schedule_if_ready(E, id);
}

/* Posts the operation of event @p j, started at event @p post_ev (its MPI call's Enter, or itself). */
static int post(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e, rt_time_ps t)
{
    switch (e->kind) { /* these kinds have a payload */
    case RT_EV_SEND:
    case RT_EV_ISEND:
        return post_message(E, r, j, post_ev, e, rt__row_payload_of(E->ranks[r].row, j), t, 1);
    case RT_EV_RECV:
    case RT_EV_IRECV_REQUEST:
        return post_message(E, r, j, post_ev, e, rt__row_payload_of(E->ranks[r].row, j), t, 0);
    case RT_EV_COLL_BEGIN:
    case RT_EV_NBCOLL_BEGIN:
        return rt__eng_post_collective(E, r, j, e, rt__row_payload_of(E->ranks[r].row, j), t);
    default:
        return 0;
    }
}

static int is_start(const struct rt_event *e)
{
    return (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND || e->kind == RT_EV_RECV ||
            e->kind == RT_EV_IRECV_REQUEST || e->kind == RT_EV_COLL_BEGIN || e->kind == RT_EV_NBCOLL_BEGIN) &&
           !(e->flags & RT_EVF_CANCELLED);
}

/* At the Enter of an MPI call: posts every operation the call starts; returns whether the
 * call moves data or waits for it (then the model, not the measurement, times it). */
static int enter_call(struct engine *E, uint32_t r, uint64_t j, rt_time_ps t, int *ops)
{
    struct rank *R = &E->ranks[r];
    int depth = 1;
    *ops = 0;
    for (uint64_t k = j + 1; k < R->nev; k++) {
        const struct rt_event *e = &R->ev[k];
        if (e->flags & RT_EVF_MPI) {
            depth += e->kind == RT_EV_ENTER ? 1 : e->kind == RT_EV_LEAVE ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (is_start(e)) {
            *ops = 1;
            if (post(E, r, k, j, e, t))
                return E->failed;
            if (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) /* the CPU sends one at a time */
                t = E->msgs[E->last_post].send_post;
        } else if (e->kind == RT_EV_ISEND_COMPLETE || e->kind == RT_EV_IRECV || e->kind == RT_EV_COLL_END ||
                   e->kind == RT_EV_NBCOLL_END) {
            *ops = 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ network */

/* A message's port gap, eager hold and wire time from @p src injected at @p inject, with the
 * bursty traffic and network noise drawn for it under @p key. Returns 1 in a burst, 0 out of
 * one, -1 out of memory. */
static rt_time_ps burst_wire(const struct engine *E, rt_bytes m);

int rt__eng_net_timing(struct engine *E, uint32_t src, rt_time_ps inject, rt_bytes m, uint64_t key,
                      rt_time_ps *wire, rt_time_ps *gap, rt_time_ps *hold)
{
    int on = 0;
    if (E->burst.chain) {
        on = rt__burst_on(&E->burst, src, inject);
        if (on < 0)
            return -1;
        if (on && *wire > 0) { /* the port and the eager hold stretch as the wire time does */
            rt_time_ps w = burst_wire(E, m);
            double ratio = (double)w / (double)*wire;
            *gap = (rt_time_ps)llround((double)*gap * ratio);
            *hold = (rt_time_ps)llround((double)*hold * ratio);
            E->res->burst_ps += w - *wire;
            *wire = w;
        }
    }
    if (E->o->net_noise) {
        uint64_t st = rt_rng_stream(E->o->seed, E->o->run, key);
        rt_time_ps d = rt_ns_to_ps(rt_dist_sample_ns(E->o->net_noise, &st));
        E->res->net_noise_ps = E->res->net_noise_ps > INT64_MAX - d ? INT64_MAX : E->res->net_noise_ps + d;
        *wire += d;
    }
    return on;
}

/* The model's wire time of @p m bytes as it is during a burst: its latency part (the wire time
 * of an empty message) and its per-byte part scaled by the burst's factors. */
static rt_time_ps burst_wire(const struct engine *E, rt_bytes m)
{
    const struct rt_model *mod = &E->o->model;
    rt_time_ps wire = mod->ops->wire(&mod->params, m), lat = mod->ops->wire(&mod->params, 0);
    lat = lat < wire ? lat : wire;
    return rt__burst_wire(E->o->net_burst, lat, wire - lat);
}

/* The port gap of a message: stretched if it was injected in a burst (see net_timing). */
RT_HOT_INLINE rt_time_ps msg_gap(struct engine *E, const struct msg *m)
{
    const struct size_memo *c = times_of(E, m->bytes);
    rt_time_ps gap = c->gap, wire = c->wire;
    if (!(m->flags & M_BURST) || wire <= 0)
        return gap;
    return (rt_time_ps)llround((double)gap * (double)burst_wire(E, m->bytes) / (double)wire);
}

/* ------------------------------------------------------------------ the network (engine_net.c) */

/* A message's flow starts now: its bytes over its route, then its latency (the model's wire time
 * less its bytes' part, stretched as its @p gap is in a burst). It is held until the flows of
 * this time start together (engine_net.c). */
static int net_inject(struct engine *E, uint32_t id, rt_time_ps now, rt_time_ps wire, rt_time_ps gap)
{
    const struct msg *m = &E->msgs[id];
    const struct size_memo *c = times_of(E, m->bytes);
    rt_time_ps bytes_ps = m->bytes ? c->wire - E->wire0 : 0;
    if (m->flags & M_BURST)
        bytes_ps = (rt_time_ps)llround((double)bytes_ps * (double)gap / (double)(c->gap ? c->gap : 1));
    return rt__eng_net_start(E, id, now, wire, bytes_ps > 0 ? bytes_ps : 0);
}

/* on_ready with a network. The message's injection follows the discipline (struct
 * rt_replay_options.injection): shared, it starts now and shares its NIC link with the sender's
 * other flows; in order, it starts when the sender's previous message's port gap is over, as on
 * the crossbar's single port (on_ready). Then the port is given now, the timing drawn for that
 * start, and the flow started by a second entry at it (M_PORT; its wire time kept in recv_done,
 * which nothing reads before it arrives). */
static RT_COLD int net_ready(struct engine *E, uint32_t id, rt_time_ps now)
{
    struct msg *m = &E->msgs[id];
    if (m->flags & M_PORT) {
        m->flags &= (uint16_t)~M_PORT;
        return net_inject(E, id, now, m->recv_done, msg_gap(E, m));
    }
    const struct size_memo *c = times_of(E, m->bytes);
    rt_time_ps wire = c->wire, gap = c->gap, hold = c->hold, start = now;
    if (E->in_order && E->ranks[m->src].tx_free > now)
        start = E->ranks[m->src].tx_free;
    if (E->noisy) {
        uint64_t key = m->flags & M_COLL ? coll_noise_key(&E->colls[m->comm], m->n)
                                         : (uint64_t)m->src << 40 | (m->send_ev & ((1ull << 40) - 1));
        int on = rt__eng_net_timing(E, m->src, start, m->bytes, key, &wire, &gap, &hold);
        if (on < 0)
            return rt__eng_oom(E);
        if (on)
            m->flags |= M_BURST;
    }
    if (E->in_order)
        E->ranks[m->src].tx_free = start + gap;
    if (!(m->flags & M_RDV)) {
        m->send_done = start + hold;
        m->flags |= M_SDONE;
        if ((m->flags & M_COLL) ? rt__cx_sent(E, id, m->send_done) : wake(E, m->src, m->send_done))
            return E->failed;
        m = &E->msgs[id]; /* a collective's next round may have grown the messages */
    }
    if (start == now)
        return net_inject(E, id, now, wire, gap);
    m->flags |= M_PORT;
    m->recv_done = wire;
    return push(E, start, m->flags & M_RDV ? Q_RDV : Q_READY, id, MSG_QKEY(m));
}

RT_HOT_INLINE int on_ready(struct engine *E, uint32_t id, rt_time_ps now)
{
    if (E->net)
        return net_ready(E, id, now);
    struct msg *m = &E->msgs[id];
    struct rank *S = &E->ranks[m->src];
    rt_time_ps start = now > S->tx_free ? now : S->tx_free;
    const struct size_memo *c = times_of(E, m->bytes);
    rt_time_ps gap = c->gap, wire = c->wire, hold = c->hold;
    if (E->noisy) { /* one draw per message, keyed by its sender and send event */
        uint64_t key = (uint64_t)m->src << 40 | (m->send_ev & ((1ull << 40) - 1));
        int on = rt__eng_net_timing(E, m->src, start, m->bytes, key, &wire, &gap, &hold);
        if (on < 0)
            return rt__eng_oom(E);
        if (on)
            m->flags |= M_BURST;
    }
    S->tx_free = start + gap;
    if (!(m->flags & M_RDV)) {
        m->send_done = start + hold; /* eager; OS noise is applied where the rank takes it */
        m->flags |= M_SDONE;
        if (wake(E, m->src, m->send_done))
            return E->failed;
    }
    rt_time_ps arrive = start + (wire > E->wire_min ? wire : E->wire_min);
    if (m->flags & M_VRECV) { /* the receiver's port is on its own process */
        struct fx f = {.kind = FX_ARRIVE, .comm = m->comm, .tag = m->tag, .src = m->src, .dst = m->dst,
                       .i = m->origin_rank, .flags = m->flags & (M_RDV | M_BURST), .n = m->n, .ev1 = m->send_ev,
                       .ev2 = m->origin_ev, .bytes = m->bytes, .id = id, .t1 = arrive};
        m->flags |= M_FWD;
        m->recv_done = arrive; /* until its delivery is known: a bound on it (wake_bound) */
        if (rt__eng_fx_send(E, m->dst, &f))
            return rt__eng_oom(E);
        rt__eng_vrecv_release(E, id);
        return 0;
    }
    return push_lane(E, qent_make(arrive, Q_ARRIVE, id, MSG_KEY(m->src, m->send_ev)));
}

RT_HOT_INLINE int on_arrive(struct engine *E, uint32_t id, rt_time_ps now)
{
    struct msg *m = &E->msgs[id];
    struct rank *D = &E->ranks[m->dst];
    rt_time_ps delivered = now;
    if (!E->net || E->in_order) { /* shared on a network: the ejection link is what is shared */
        rt_time_ps gap = msg_gap(E, m);
        /* The receive port takes one message at a time: a message arriving while it is busy
         * is delivered one gap after the previous one. */
        delivered = D->rx_free == NEVER || now >= D->rx_free + gap ? now : D->rx_free + gap;
        D->rx_free = delivered;
    }
    if (m->flags & M_COLL)
        return rt__cx_arrived(E, id, delivered);
    m->recv_done = delivered; /* the receiver's o_recv is paid when it takes the message */
    m->flags |= M_RDONE;
    if (m->flags & M_HALF) { /* the sender is on another process */
        uint32_t dst = m->dst;
        if (m->flags & M_RDV) {
            struct fx f = {.kind = FX_DELIVERED, .src = m->src, .id = m->pmsg, .t1 = delivered};
            if (rt__eng_fx_send(E, m->src, &f))
                return rt__eng_oom(E);
        }
        msg_release(E, id); /* the arrival's hold */
        return wake(E, dst, delivered);
    }
    if (m->flags & M_RDV) {
        m->send_done = delivered;
        m->flags |= M_SDONE;
        if (wake(E, m->src, m->send_done))
            return E->failed;
    }
    return wake(E, m->dst, m->recv_done);
}

/* ------------------------------------------------------------------ ranks */

/* The measured time of event @p e of rank @p R, the one compute is taken from: its time stamp,
 * less the time the tracer took for itself outside MPI calls by then, and with RT_COMPUTE_CPU
 * less the time the rank had not run (its row's steps, passed in order: events come in time
 * order). */
RT_HOT_INLINE rt_time_ns meas_time(struct rank *R, const struct rt_event *e)
{
    if (RT_LIKELY(!R->cpu))
        return e->time;
    while (R->cpu_k < R->ncpu && R->cpu[R->cpu_k].at <= e->time)
        R->cpu_k++;
    if (!R->cpu_k)
        return e->time;
    const struct rt__cpu_step *s = &R->cpu[R->cpu_k - 1];
    return e->time - s->tracer - (R->cpu_lost ? s->lost : 0);
}

RT_HOT_INLINE rt_time_ps local_time(struct engine *E, struct rank *R, const struct rt_event *e)
{
    if (R->depth > 0 && R->call_ops)
        return R->clock; /* inside a communicating call the model decides */
    rt_time_ns gap = meas_time(R, e) - R->last_meas;
    rt_time_ps work = 0;
    if (gap > 0 && E->o->compute_scale != 0)
        work = (rt_time_ps)((double)gap * 1e3 * E->o->compute_scale + 0.5);
    return cpu(E, (uint32_t)(R - E->ranks), R->clock, work);
}

enum { STEP_OK, STEP_BLOCK, STEP_FAIL, STEP_MORE /* a streamed trace: the rank needs events not read yet */,
       STEP_WAIT /* distributed, on a network: a collective's counts are still to come (coll_counts.c) */ };

/* Rank @p R reaches one of its window's events (@p j, at @p t): the begin, then the end. A
 * streamed trace's window is found as its events are read (engine_stream.c): until its begin is
 * known, the first event stands for it (the begin where the rank has no MPI_Init). */
static RT_COLD void window_event(struct rank *R, uint64_t j, rt_time_ps t)
{
    if (j == R->win_begin || (j == 0 && R->win_begin == UINT64_MAX)) {
        R->win_t0 = t;
        R->win_m0 = R->ev[j].time;
    }
    if (j == R->win_end) {
        R->win_t1 = t;
        R->win_m1 = R->ev[j].time;
    }
    R->win_next = UINT64_MAX;
    if (R->win_begin > j && R->win_begin < R->win_next)
        R->win_next = R->win_begin;
    if (R->win_end > j && R->win_end < R->win_next)
        R->win_next = R->win_end;
}

/* The Leave of an MPI call that waits for its blocking sends: STEP_BLOCK until they are done,
 * else STEP_OK with *@p t when the call returns (and its edge in *@p dep). */
RT_HOT_INLINE int leave_call(struct engine *E, struct rank *R, uint32_t r, int deps, struct rt_dep *dep,
                             rt_time_ps *t)
{
    rt_time_ps last = NEVER; /* the latest send completion it waits for */
    const struct msg *bind = NULL;
    for (uint32_t i = 0; i < R->nwaits; i++) {
        const struct msg *m = &E->msgs[R->waits[i]];
        if (!(m->flags & M_SDONE))
            return STEP_BLOCK;
        if (m->send_done > last) {
            last = m->send_done;
            bind = m;
        }
    }
    /* resumes after the detour it may have ended in */
    *t = cpu(E, r, last > R->clock ? last : R->clock, 0);
    if (deps && bind) {
        dep->kind = RT_DEP_MESSAGE;
        dep->src_rank = bind->origin_rank;
        dep->src_index = bind->origin_ev;
        dep->local_ready = last > R->clock ? R->clock : *t;
        dep->remote_ready = last > R->clock ? *t : last;
    }
    for (uint32_t i = 0; i < R->nwaits; i++)
        msg_release(E, R->waits[i]);
    R->nwaits = 0;
    return STEP_OK;
}

/* Records that rank @p r's leaving of a collective run as messages, its event @p ev, goes back to
 * internal message @p msg (rt_replay_result.coll_binds); 0 or the engine's failure. */
static int coll_bind(struct engine *E, uint32_t r, uint64_t ev, uint64_t msg)
{
    struct rt_replay_result *res = E->res;
    if (rt__grow_one64((void **)&res->coll_binds, &E->capcbind, sizeof *res->coll_binds, res->ncoll_binds))
        return rt__eng_oom(E);
    res->coll_binds[res->ncoll_binds++] = (struct rt_coll_bind){ev, r, msg};
    return 0;
}

/* A member leaves its collective (its pending slot @p pv): STEP_BLOCK until its part is done,
 * else STEP_OK with *@p t at its own end (and its edge in *@p dep). */
RT_HOT_INLINE int coll_end(struct engine *E, struct rank *R, uint32_t r, uint64_t *pv, int deps, struct rt_dep *dep,
                           rt_time_ps *t)
{
    uint64_t p = *pv;
    struct coll *c = &E->colls[(uint32_t)p];
    uint32_t mi = (uint32_t)((p & ~COLL_BIT) >> 32);
    if (!c->complete && !(c->cx && rt__cx_member_done(c->cx, mi))) /* on a network: its own part */
        return STEP_BLOCK;
    const struct rt__coll_member *me = &c->mem[mi];
    rt_time_ps done = me->done; /* this member's own end */
    *t = cpu(E, r, done > R->clock ? done : R->clock, 0);
    if (deps) {
        dep->kind = RT_DEP_COLLECTIVE;
        dep->src_rank = member_row(E, c, me->origin);
        dep->src_index = c->ev[me->origin];
        dep->msrc_rank = member_row(E, c, me->mbind);
        dep->msrc_index = c->ev[me->mbind];
        dep->local_ready = done > R->clock ? R->clock : *t;
        dep->remote_ready = done > R->clock ? *t : done;
    }
    if (c->cx && E->o->record_contention) {
        uint64_t b = rt__cx_member_bind(E, (uint32_t)p, mi);
        if (E->failed || coll_bind(E, r, R->cursor, b))
            return STEP_FAIL;
    }
    pt_remove(&R->pending, pv);
    if (--c->refs == 0)
        rt__eng_coll_release(E, (uint32_t)p);
    return STEP_OK;
}

/* Replays event R->cursor of rank @p r. @p deps and @p events say whether the observer wants the
 * events' edges and the events: run_rank inlines this once with them and once with zeros, so
 * that a replay without an observer carries none of their tests. */
RT_HOT_INLINE int step(struct engine *E, struct rank *R, uint32_t r, int deps, int events)
{
    uint64_t j = R->cursor;
    const struct rt_event *e = &R->ev[j];
    rt_time_ps t;
    uint64_t p, *pv; /* what the event's operation refers to; its slot in R->pending */
    struct rt_dep dep;
    if (deps)
        dep = (struct rt_dep){.remote_ready = NEVER, .src_rank = RT_NONE, .msrc_rank = RT_NONE};

    switch (e->kind) {
    case RT_EV_ENTER:
        /* (a streamed trace: an MPI call is entered once read up to its Leave, engine_stream.c) */
        if (RT_UNLIKELY(R->more) && (e->flags & RT_EVF_MPI) && R->depth == 0 && !rt__eng_call_held(R, j))
            return STEP_MORE;
        if (RT_UNLIKELY(E->cxfar != NULL) && (e->flags & RT_EVF_MPI) && R->depth == 0) {
            int w = rt__cxc_wait(E, r, j);
            if (w)
                return w < 0 ? STEP_FAIL : STEP_WAIT;
        }
        t = local_time(E, R, e);
        if (e->flags & RT_EVF_MPI) {
            if (R->depth++ == 0) {
                if (enter_call(E, r, j, t, &R->call_ops))
                    return STEP_FAIL;
            }
        }
        break;
    case RT_EV_LEAVE:
        if ((e->flags & RT_EVF_MPI) && R->depth == 1 && R->call_ops) {
            if (leave_call(E, R, r, deps, &dep, &t))
                return STEP_BLOCK;
        } else if (__builtin_expect((e->flags & RT_EVF_NOWORK) != 0, 0)) {
            t = R->clock; /* it waited here for its thread team: the JOIN times that */
        } else {
            t = local_time(E, R, e);
        }
        if ((e->flags & RT_EVF_MPI) && R->depth > 0 && --R->depth == 0)
            R->call_ops = 0;
        break;
    case RT_EV_SEND:
    case RT_EV_ISEND:
    case RT_EV_IRECV_REQUEST:
    case RT_EV_COLL_BEGIN:
    case RT_EV_NBCOLL_BEGIN: /* a non-blocking collective: its member enters here, and runs its part meanwhile */
        if (RT_UNLIKELY(E->cxfar != NULL) && rt__coll_start(e) && !pt_get(&R->pending, j)) { /* (outside a call) */
            int w = rt__cxc_wait(E, r, j);
            if (w)
                return w < 0 ? STEP_FAIL : STEP_WAIT;
        }
        t = local_time(E, R, e);
        if (e->flags & RT_EVF_CANCELLED)
            break;
        pv = pt_get(&R->pending, j);
        if (!pv) { /* outside any MPI call: it starts here */
            if (post(E, r, j, j, e, t))
                return STEP_FAIL;
            pv = pt_get(&R->pending, j);
        }
        p = pv ? *pv : UINT64_MAX;
        if (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) { /* the CPU has paid o_send */
            rt_time_ps posted = E->msgs[p].send_post;
            t = posted > t ? posted : t;
        }
        if (e->kind == RT_EV_SEND) {
            pt_remove(&R->pending, pv);
            if (R->depth > 0) {
                if (rt__grow((void **)&R->waits, &R->capwaits, sizeof *R->waits, R->nwaits + 1))
                    return rt__eng_oom(E), STEP_FAIL;
                R->waits[R->nwaits++] = (uint32_t)p;
            } else {
                msg_release(E, (uint32_t)p); /* nobody waits for a send outside a call */
            }
        }
        break;
    case RT_EV_RECV:
    case RT_EV_IRECV:
    case RT_EV_ISEND_COMPLETE: {
        uint64_t key = e->kind == RT_EV_RECV ? j : e->ref;
        pv = pt_get(&R->pending, key);
        if (!pv && e->kind == RT_EV_RECV) {
            if (post(E, r, j, j, e, local_time(E, R, e)))
                return STEP_FAIL;
            pv = pt_get(&R->pending, key);
        }
        if (!pv) {
            t = local_time(E, R, e);
            break;
        }
        p = *pv;
        struct msg *m = &E->msgs[p];
        int is_recv = e->kind != RT_EV_ISEND_COMPLETE;
        if (!(m->flags & (is_recv ? M_RDONE : M_SDONE)))
            return STEP_BLOCK;
        rt_time_ps done = is_recv ? m->recv_done : m->send_done;
        /* the CPU takes the message: receive overhead, one message at a time */
        rt_time_ps o = is_recv ? times_of(E, m->bytes)->o_recv : 0;
        t = cpu(E, r, done > R->clock ? done : R->clock, o);
        if (deps) {
            dep.kind = RT_DEP_MESSAGE;
            dep.src_rank = m->origin_rank;
            dep.src_index = m->origin_ev;
            dep.local_ready = done > R->clock ? R->clock + o : t;
            dep.remote_ready = done > R->clock ? t : done + o;
        }
        pt_remove(&R->pending, pv);
        msg_release(E, (uint32_t)p);
        break;
    }
    case RT_EV_COLL_END:
    case RT_EV_NBCOLL_END: /* the completing MPI_Wait/Test returns when the member's part is done */
        pv = pt_get(&R->pending, e->ref);
        if (!pv) {
            t = local_time(E, R, e);
            break;
        }
        if (coll_end(E, R, r, pv, deps, &dep, &t))
            return STEP_BLOCK;
        break;
    case RT_EV_FORK:
        t = local_time(E, R, e);
        R->fork_pred = t;
        break;
    case RT_EV_JOIN: {
        /* The team is joined when the rank's own thread is back and the slowest other thread's
         * work since the fork (scaled as compute is) is done. */
        t = local_time(E, R, e);
        rt_time_ps work = 0;
        uint64_t work_ns = rt__row_payload_of(R->row, j)->work_ns; /* a JOIN has one */
        if (work_ns && E->o->compute_scale != 0)
            work = (rt_time_ps)((double)work_ns * 1e3 * E->o->compute_scale + 0.5);
        if (R->fork_pred + work > t)
            t = cpu(E, r, R->fork_pred + work, 0);
        break;
    }
    default:
        t = local_time(E, R, e);
        break;
    }
    R->clock = t;
    R->last_meas = meas_time(R, e);
    if (j == R->win_next) /* one compare per event: the window's begin, then its end */
        window_event(R, j, t);
    if (deps) {
        if (dep.kind == RT_DEP_NONE)
            dep.local_ready = t;
        E->obs->on_dep(E->obs->ud, r, j, e, t, &dep);
    }
    if (events)
        E->obs->on_event(E->obs->ud, r, j, e, t);
    R->cursor++;
    return STEP_OK;
}

#define PROGRESS_EVERY 65536
#define MAX_CLOCK_PS 4e18 /* as rt_ns_to_ps caps one model time; INT64_MAX ps is 9.2e18 */

/* Counts the events a rank's run stepped through, and reports progress now and then. */
static void count_done(struct engine *E, uint64_t n)
{
    E->done += n;
    if (E->done >= E->next_progress && E->obs && E->obs->on_progress) {
        E->next_progress = E->done + PROGRESS_EVERY;
        E->obs->on_progress(E->obs->ud, E->done, E->total);
    }
}

/* Steps rank R until it blocks, fails or ends; returns the last step's result (STEP_OK: ended). */
RT_HOT_INLINE int steps(struct engine *E, struct rank *R, uint32_t r, int deps, int events)
{
    for (;;) {
        int s = STEP_OK;
        while (R->cursor < R->nev && (s = step(E, R, r, deps, events)) == STEP_OK && !E->failed)
            ;
        if (s != STEP_OK && s != STEP_MORE)
            return s;
        if (E->failed)
            return STEP_FAIL;
        if (RT_LIKELY(!R->more))
            return STEP_OK;
        if (rt__eng_pull(E, r)) /* a streamed trace: its next events */
            return STEP_FAIL;
    }
}

/* Rank @p R has stepped its last event (background traffic stops once all have: engine_net.c). */
static void rank_finished(struct engine *E, struct rank *R)
{
    R->state = R_DONE;
    E->ranks_done++;
    E->last_finish = R->clock > E->last_finish ? R->clock : E->last_finish;
}

static int run_rank(struct engine *E, uint32_t r)
{
    struct rank *R = &E->ranks[r];
    uint64_t from = R->cursor;
    int rc = 0;
    R->state = R_RUNNING;
    int s = E->deps || E->events ? steps(E, R, r, E->deps, E->events) : steps(E, R, r, 0, 0);
    if (s == STEP_FAIL || E->failed)
        rc = E->failed ? E->failed : rt__eng_oom(E);
    else if (s == STEP_BLOCK)
        R->state = R_BLOCKED;
    else if (s == STEP_WAIT) { /* again at its clock, once the counts are here (engine_remote.c) */
        R->state = R_QUEUED;
        R->queued_at = R->clock;
        R->cnt_wait = 1;
        rc = push(E, R->clock, Q_RESUME, r, r);
    }
    else
        rank_finished(E, R);
    count_done(E, R->cursor - from);
    return rc;
}

RT_HOT_INLINE void take(struct engine *E, struct qent q)
{
    switch (QTYPE(&q)) {
    case Q_RESUME: {
        struct rank *R = &E->ranks[q.id];
        if (R->state == R_QUEUED && R->queued_at == q.t)
            run_rank(E, q.id);
        break;
    }
    case Q_READY:
    case Q_RDV:
        on_ready(E, q.id, q.t);
        break;
    case Q_ARRIVE:
        on_arrive(E, q.id, q.t);
        break;
    case Q_COLL:
        rt__eng_coll_ports(E, q.id);
        break;
    }
}

/* The serial loop with a network: the queue's entries and the network's operations, those of a
 * time t around the entries of t as net_next orders them. */
static void run_network(struct engine *E)
{
    while (!E->failed) {
        int queued = qcount(E) != 0, cls;
        rt_time_ps t = net_next(E, &cls);
        if (t != INT64_MAX && (!queued || t < qtop(E)->t || (t == qtop(E)->t && cls != NET_START))) {
            rt__eng_net_step(E);
            continue;
        }
        if (!queued)
            break;
        take(E, pop(E));
    }
}

/* Doubles the lane's ring (push_lane), its entries from 0. */
int rt__eng_lane_grow(struct engine *E)
{
    struct lane *L = &E->lane;
    uint32_t ncap = L->cap ? 2 * L->cap : 256;
    struct qent *n = ncap > L->cap ? malloc((size_t)ncap * sizeof *n) : NULL;
    if (!n)
        return rt__eng_oom(E);
    for (uint32_t i = 0; i < L->n; i++)
        n[i] = *lane_at(L, i);
    free(L->q);
    L->q = n;
    L->cap = ncap;
    L->head = 0;
    return 0;
}

/* take for the distributed rounds (engine_remote.c): the serial loop keeps it inlined. */
void rt__eng_take(struct engine *E, struct qent q)
{
    take(E, q);
}

/* ------------------------------------------------------------------ driver */

void rt_replay_options_default(struct rt_replay_options *o)
{
    memset(o, 0, sizeof *o);
    o->model.ops = &rt_model_hockney;
    o->compute_scale = 1.0;
    o->eager_limit = 64 * 1024;
}

int rt_replay_options_noisy(const struct rt_replay_options *o)
{
    return o->net_noise || o->os_noise || o->net_burst;
}

struct rt_replay_options rt_replay_options_noise_free(const struct rt_replay_options *o)
{
    struct rt_replay_options q = *o;
    q.net_noise = NULL;
    q.os_noise = NULL;
    q.net_burst = NULL;
    return q;
}

void rt_replay_result_destroy(struct rt_replay_result *r)
{
    if (!r)
        return;
    free(r->predicted_end_ps);
    free(r->measured_end_ns);
    free(r->links);
    free(r->contention);
    free(r->coll_pred);
    free(r->coll_names);
    free(r->coll_binds);
    free(r->cut_event);
    free(r->cut_waits_for);
    free(r);
}

/* The engine's own tables for the replay of @p E->t: the result, the ranks, the least wire time. */
static int setup_tables(struct engine *E)
{
    uint32_t n = E->nranks ? E->nranks : 1;
    E->res = calloc(1, sizeof *E->res);
    E->ranks = calloc(n, sizeof *E->ranks);
    if (E->res) {
        E->res->predicted_end_ps = calloc(n, sizeof *E->res->predicted_end_ps);
        E->res->measured_end_ns = calloc(n, sizeof *E->res->measured_end_ns);
    }
    if (!E->res || !E->ranks || !E->res->predicted_end_ps || !E->res->measured_end_ns)
        return rt__eng_oom(E);
    E->res->ranks = E->nranks;
    const struct rt_model *mod = &E->o->model;
    rt_time_ps w0 = mod->ops->wire(&mod->params, 0);
    if (E->o->net_burst) {
        rt_time_ps wb = rt__burst_wire(E->o->net_burst, w0, 0);
        w0 = wb < w0 ? wb : w0;
    }
    E->wire_min = w0 > 1 ? w0 : 1;
    E->lo = 0;
    E->hi = E->nranks;
    return 0;
}

int rt__eng_span_check(struct engine *E, rt_time_ns last)
{
    /* Every compute interval and start offset is at most the span: scaled, it must fit the ps clock. */
    if ((double)(last - E->first) * 1e3 * E->o->compute_scale > MAX_CLOCK_PS)
        return E->failed = rt_error_set(E->err, RT_ERANGE,
                                        "%s: the trace spans %lld ns; times compute scale %g that is beyond "
                                        "the replay's clock (%.3g ps)",
                                        rt_trace_path(E->t), (long long)(last - E->first), E->o->compute_scale,
                                        MAX_CLOCK_PS);
    return RT_OK;
}

/* The ranks' events and the measured span [*first, *last] over all processes; every rank here
 * queued at its start, relative to the earliest one's. */
static int setup_ranks(struct engine *E, rt_time_ns *firstp, rt_time_ns *lastp)
{
    const struct rt_replay_options *opts = E->o;
    rt_time_ns first = INT64_MAX, last = INT64_MIN;
    for (uint32_t r = 0; r < E->nranks; r++) {
        struct rank *R = &E->ranks[r];
        R->win_next = R->win_begin = R->win_end = UINT64_MAX;
        if (owned(E, r)) {
            R->row = &E->t->rows[r];
            if (E->stream) { /* its first events (the engine's window into them: engine_stream.c) */
                R->more = 1;
                if (opts->window && rt_window_kind(opts->window) != RT_WINDOW_ALL)
                    R->win_next = 0;
                if (rt__eng_pull(E, r))
                    return E->failed;
            } else {
                R->ev = rt_trace_events(E->t, r, &R->nev);
                R->avail = R->nev;
            }
            if (!E->stream && opts->window && rt_window_kind(opts->window) != RT_WINDOW_ALL) {
                R->win_begin = rt_window_begin(opts->window, r);
                R->win_end = rt_window_end(opts->window, r);
                R->win_next = R->win_begin < R->nev && R->win_end < R->nev ? R->win_begin : UINT64_MAX;
            }
        }
        if (R->nev) { /* (streamed: the last event so far; each pull checks the span again) */
            first = R->ev[0].time < first ? R->ev[0].time : first;
            last = R->ev[R->nev - 1].time > last ? R->ev[R->nev - 1].time : last;
        }
        E->res->events += R->nev;
    }
    E->total = E->res->events;
    E->next_progress = PROGRESS_EVERY;
    if (E->part) { /* the earliest start and latest end over all processes; whether all set up */
        int set_up = rt__eng_remote_ready(E);
        int64_t v[3] = {first, last == INT64_MIN ? INT64_MAX : -last, set_up ? 1 : 0};
        int prc = E->part->reduce(E->part->ud, v, 3, 0);
        if (prc || !v[2])
            return prc ? (E->failed = rt_error_set(E->err, prc, "%s: distributed replay: reduction failed",
                                                   rt_trace_path(E->t)))
                   : set_up ? (E->failed = rt_error_set(E->err, RT_EREMOTE, "%s: stopped: another process failed",
                                                        rt_trace_path(E->t)))
                            : rt__eng_oom(E);
        first = v[0];
        last = v[1] == INT64_MAX ? INT64_MIN : -v[1];
    }
    if (first == INT64_MAX)
        first = last = 0;
    *firstp = first;
    *lastp = last;
    E->first = first;
    if (rt__eng_span_check(E, last))
        return E->failed;
    for (uint32_t r = 0; r < E->nranks; r++) {
        struct rank *R = &E->ranks[r];
        rt_time_ns start = R->nev ? R->ev[0].time : first;
        /* Ranks start where they were measured to start, relative to the earliest one. */
        R->clock = (rt_time_ps)((double)(start - first) * 1e3 * opts->compute_scale + 0.5);
        R->last_meas = start;
        R->cpu = NULL;
        R->ncpu = R->cpu_k = 0;
        R->cpu_lost = 0;
        if (E->stream && R->row) { /* what a whole read would tell is not known yet: the steps are
                                    * taken as they come (without readings their lost time is 0) */
            struct rt__pull v;
            rt__trace_view(E->stream, r, &v);
            R->cpu_lost = opts->compute == RT_COMPUTE_CPU;
            R->cpu = v.cpu;
            R->ncpu = v.ncpu;
            if (R->nev)
                R->last_meas = meas_time(R, &R->ev[0]);
        } else if ((R->cpu_lost = opts->compute == RT_COMPUTE_CPU && R->row && R->row->cpu_readings),
                   R->row && R->row->ncpu && (R->cpu_lost || R->row->compute_tracer)) {
            R->cpu = R->row->cpu;
            R->ncpu = R->row->ncpu;
            if (R->nev) /* steps at the start: none before the first reading, which is the base */
                R->last_meas = meas_time(R, &R->ev[0]);
        }
        R->tx_free = R->rx_free = NEVER;
        R->pending = (struct ptab){0};
        if (!owned(E, r)) { /* replayed by another process */
            R->state = R_DONE;
            continue;
        }
        R->state = R_QUEUED;
        R->queued_at = R->clock;
        if (push(E, R->clock, Q_RESUME, r, r))
            return E->failed;
    }
    return 0;
}

/* OS noise's cursors per rank and source, and the bursty traffic's state. */
static int setup_noise(struct engine *E)
{
    const struct rt_replay_options *opts = E->o;
    rt_error e = {0};
    if (opts->os_noise && rt_os_noise_check_ranks(opts->os_noise, E->nranks, &e))
        return E->failed = rt_error_set(E->err, e.code, "%s: %s", rt_trace_path(E->t), e.msg);
    if (opts->os_noise && rt_os_noise_sources(opts->os_noise)) {
        E->nsrc = rt_os_noise_sources(opts->os_noise);
        E->os = (struct rt__os_ctx){opts->os_noise, opts->seed, opts->run};
        E->cursors = calloc((size_t)(E->nranks ? E->nranks : 1) * E->nsrc, sizeof *E->cursors);
        if (!E->cursors)
            return rt__eng_oom(E);
    }
    if (opts->net_burst && rt__burst_state_init(&E->burst, opts->net_burst, opts->seed, opts->run, E->nranks))
        return rt__eng_oom(E);
    return 0;
}

/* A refusal every process of a distributed replay makes alike, before the rounds: said once, by
 * process 0 (the others' RT_EREMOTE prints nothing; issue #50, item 5). */
static int refuse_everywhere(struct engine *E, const char *what)
{
    if (E->part && E->part->me != 0)
        return E->failed = rt_error_set(E->err, RT_EREMOTE, "%s: process 0 says why", rt_trace_path(E->t));
    return E->failed = rt_error_set(E->err, RT_EUNSUPPORTED, "%s: %s", rt_trace_path(E->t), what);
}

/* Takes the queue until it is empty (one process) or the rounds end (several), then says why
 * any rank could not finish. */
static int run(struct engine *E)
{
    int rc;
    rt__map_init(&E->coll_of);
    rt__map_init(&E->coll_seq);
    rt__map_init(&E->comm_rank);
    rt__map_init(&E->cx_pos);
    rt__map_init(&E->cx_names);
    if (E->part && E->o->cut)
        return refuse_everywhere(E, "a run that stopped early is not replayed under mpirun yet: run it as one "
                                    "process");
    if (E->part) {
        rc = rt__eng_run_rounds(E);
    } else {
        if (E->net) {
            run_network(E);
        } else {
            while (qcount(E) && !E->failed)
                take(E, pop(E));
        }
        rc = E->failed;
    }
    if (!rc && E->part)
        rc = rt__eng_share_states(E);
    if (!rc)
        rc = rt__eng_diagnose(E);
    if (E->part)
        rc = rt__eng_agree(E, rc);
    return rc;
}

/* The window's span, predicted and measured: from the earliest begin to the latest end over the
 * ranks that have both events (over all processes of a distributed replay). */
static int collect_window(struct engine *E)
{
    struct rt_replay_result *res = E->res;
    const rt_window *w = E->o->window;
    res->window = w && rt_window_kind(w) != RT_WINDOW_ALL;
    if (!res->window)
        return RT_OK;
    /* minima of: predicted begin, -predicted end, measured begin, -measured end (the begins
     * negated too where the window begins at the latest rank: mpi); and -ranks */
    int64_t v[5] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, 0}, sb = rt_window_begins_latest(w) ? -1 : 1;
    for (uint32_t r = E->lo; r < E->hi; r++) {
        const struct rank *R = &E->ranks[r];
        if (R->win_begin >= R->nev || R->win_end >= R->nev || R->win_next != UINT64_MAX)
            continue;
        v[0] = sb * R->win_t0 < v[0] ? sb * R->win_t0 : v[0];
        v[1] = -R->win_t1 < v[1] ? -R->win_t1 : v[1];
        v[2] = sb * R->win_m0 < v[2] ? sb * R->win_m0 : v[2];
        v[3] = -R->win_m1 < v[3] ? -R->win_m1 : v[3];
        v[4]--;
    }
    int rc;
    if (E->part && (rc = rt__eng_reduce(E, v, 4, 0)) != RT_OK) /* minima */
        return rc;
    if (E->part && (rc = rt__eng_reduce(E, v + 4, 1, 1)) != RT_OK) /* the ranks: a sum */
        return rc;
    v[0] *= sb;
    v[2] *= sb;
    res->window_ranks = (uint32_t)-v[4];
    if (!res->window_ranks)
        return RT_OK;
    res->window_begin_ps = v[0];
    res->window_end_ps = -v[1];
    res->window_predicted_ps = -v[1] - v[0];
    res->window_measured_ns = -v[3] - v[2];
    return RT_OK;
}

/* The result: every rank's end, the network's links and counts, the memory the replay held. */
static int collect(struct engine *E, rt_time_ns first, rt_time_ns last)
{
    int rc;
    E->res->measured_ns = last - first;
    for (uint32_t r = E->lo; r < E->hi; r++) {
        struct rank *R = &E->ranks[r];
        E->res->predicted_end_ps[r] = R->clock;
        E->res->measured_end_ns[r] = R->nev ? R->ev[R->nev - 1].time - first : 0;
    }
    if (E->part && (rc = rt__eng_share_results(E)))
        return rc;
    if (E->net) {
        if (rt__netrun_links(E->net, &E->res->links, &E->res->nlinks, &E->res->contention_ps))
            return rt__eng_oom(E);
        rt__netrun_counts(E->net, &E->res->routed, &E->res->local, &E->res->net_recomputed);
    }
    for (uint32_t r = 0; r < E->nranks; r++) {
        rt_time_ps end = E->res->predicted_end_ps[r];
        /* Every delay of one event is bounded (docs/noise.md, "Bounds"), but many of them may add
         * up past the clock: that is an error, not a prediction (a wrapped sum is negative). */
        if (end < 0 || (double)end >= MAX_CLOCK_PS)
            return E->failed = rt_error_set(E->err, RT_ERANGE,
                                            "%s: the predicted run of rank %u passes the replay's clock (%.3g ps, "
                                            "46 days): too large a model or noise value for this trace?",
                                            rt_trace_path(E->t), r, MAX_CLOCK_PS);
        if (end > E->res->predicted_ps)
            E->res->predicted_ps = end;
    }
    if ((rc = collect_window(E)) != RT_OK)
        return rc;
    uint64_t mem = (uint64_t)E->capmsgs * sizeof(struct msg) + (E->capheap + E->lane.cap) * sizeof(struct qent) +
                   (uint64_t)E->capchans * sizeof(struct chan) + (uint64_t)E->chan_cap * sizeof *E->chan_slot +
                   (uint64_t)E->capcolls * sizeof(struct coll) + rt__map_memory(&E->coll_of) + rt__map_memory(&E->coll_seq) +
                   rt__map_memory(&E->comm_rank) + E->coll_bytes_peak + rt__burst_state_memory(&E->burst) +
                   (uint64_t)E->nranks * E->nsrc * (sizeof *E->cursors + 2 * RT__DETOUR_RING * sizeof(rt_time_ps)) +
                   (uint64_t)E->nranks * sizeof(struct rank);
    for (uint32_t r = 0; r < E->nranks; r++)
        mem += (uint64_t)E->ranks[r].pending.cap * sizeof(struct ptab_slot) + E->ranks[r].capwaits * sizeof(uint32_t);
    E->res->peak_bytes = mem;
    return 0;
}

/* Frees everything but the result. */
static void teardown(struct engine *E)
{
    if (E->ranks)
        for (uint32_t r = 0; r < E->nranks; r++) {
            free(E->ranks[r].pending.slot);
            free(E->ranks[r].waits);
            free(E->ranks[r].rdvw);
            free(E->ranks[r].incoll);
            free(E->ranks[r].cxs);
        }
    rt__eng_remote_free(E);
    free(E->ranks);
    rt__os_cursors_free(E->cursors, (size_t)E->nranks * E->nsrc);
    free(E->cursors);
    rt__burst_state_free(&E->burst);
    rt__eng_net_free(E);
    rt__cxc_free(E);
    free(E->heap);
    free(E->lane.q);
    free(E->msgs);
    free(E->chans);
    for (uint32_t i = 0; i < E->ncolls; i++) {
        free(E->colls[i].mem);
        free(E->colls[i].ev);
        rt__cx_free(E->colls[i].cx);
    }
    rt__cx_free(E->cx_spare);
    rt__map_free(&E->cx_pos);
    rt__map_free(&E->cx_names);
    free(E->colls);
    free(E->chan_slot);
    rt__map_free(&E->coll_of);
    rt__map_free(&E->coll_seq);
    rt__map_free(&E->comm_rank);
}

int rt_replay_run(const rt_trace *trace, const struct rt_replay_options *opts,
                  const struct rt_replay_observer *obs, struct rt_replay_result **out, rt_error *err)
{
    struct engine E;
    rt_time_ns first = 0, last = 0;
    int rc;
    memset(&E, 0, sizeof E);
    *out = NULL;
    if (!opts->model.ops)
        return rt_error_set(err, RT_EINVAL, "no model given");
    if (!(opts->compute_scale >= 0) || opts->compute_scale > 1e6)
        return rt_error_set(err, RT_ERANGE, "compute scale must be between 0 and 1e6");
    if (rt__coll_algo_check(opts->coll_algo, err))
        return RT_EINVAL;
    if (opts->injection != RT_INJECT_IN_ORDER && (opts->injection != RT_INJECT_SHARED || !opts->network))
        return rt_error_set(err, RT_EINVAL, opts->injection == RT_INJECT_SHARED
                                                ? "shared injection needs a network (the crossbar's is crossbar-flow)"
                                                : "unknown injection discipline %d", opts->injection);
    E.t = trace;
    /* A streamed trace is read as the replay goes: its rows' windows move, nothing it says of
     * the run does (the caller's trace is otherwise left as it was) */
    E.stream = rt_trace_streamed(trace) ? (rt_trace *)trace : NULL;
    if (E.stream && (opts->part || E.deps || E.events))
        return rt_error_set(err, RT_EINVAL, "%s: a streamed trace replays in one process without observers of its "
                                            "events (they would keep every event)", rt_trace_path(trace));
    E.first = INT64_MIN; /* (until the ranks are set up: see rt__eng_pull) */
    if (E.stream && opts->network) /* its collectives look ahead from inside steps (coll_exec.c) */
        rt__trace_stream_fixed(E.stream);
    E.o = opts;
    E.obs = obs;
    E.deps = obs && obs->on_dep;
    E.events = obs && obs->on_event;
    E.noisy = (uint8_t)rt_replay_options_noisy(opts);
    E.in_order = opts->injection == RT_INJECT_IN_ORDER;
    E.err = err;
    E.nranks = rt_trace_ranks(trace);
    E.freemsg = E.freecoll = UINT32_MAX;
    E.net_at = E.bg_at = INT64_MAX;
    E.last_finish = INT64_MIN;
    E.cur_pt = INT64_MIN;
    E.hint_rank = E.hint_region = RT_NONE;
    if (!(rc = setup_tables(&E)) && !(rc = opts->part ? rt__eng_remote_setup(&E) : 0) &&
        !(rc = setup_ranks(&E, &first, &last)) && !(rc = setup_noise(&E)) &&
        !(rc = opts->network ? rt__eng_net_setup(&E) : 0) && !(rc = run(&E)) &&
        !(rc = E.stream ? rt__eng_stream_end(&E, &first, &last) : 0))
        rc = collect(&E, first, last);
    teardown(&E);
    if (rc == RT_OK)
        *out = E.res;
    else
        rt_replay_result_destroy(E.res);
    return rc;
}
