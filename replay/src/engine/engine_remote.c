/* SPDX-License-Identifier: MIT */
/*
 * The distributed replay (struct rt_replay_part): the records one process sends another, the
 * per-rank bounds that decide which queue entries a process may take in a round, the rounds, and
 * what follows them (where every rank stopped, one error for all, the summed results).
 *
 * Each process replays its own ranks with the serial engine (engine.c) and queues what crosses
 * to another process (struct fx) until the end of a round; then the processes swap these and
 * agree on T, the earliest queued time over all of them (and tau, the earliest type at T). With
 * the swap come the bounds of the ranks this process's ranks exchange messages with (struct
 * engine.pub). In a round a process takes its queue in order but puts off any entry that
 * something not yet known here could still precede on the same port, in (time, type, key) order
 * (port_ok):
 *   a send port's grant:   a ready of a rendezvous whose receive is not posted yet (rdv_bound),
 *                          the rank's own later posts (post_bound), a collective it is in
 *                          (coll_bound);
 *   a receive port's arrival: any arrival not yet sent (arrival_bound: a least wire time after
 *                          the earliest grant of a rank that sends to it);
 *   a collective's port reading: both, for every member replayed here.
 * Once an entry of a port is put off, the port's later entries are too, until the next round.
 * The earliest entry over all processes can always be taken, so every round makes progress,
 * and each port's grants come in the same order as in a replay by one process
 * (docs/distributed.md).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "grow.h"
#include "map.h"
#include "retime/replay.h"

/* ------------------------------------------------------------------ records */

/* Queues @p f for process @p p until the end of the round; -1 out of memory. */
static int fx_send_to(struct engine *E, uint32_t p, const struct fx *f)
{
    struct fxbuf *b = &E->out[p];
    if (rt__grow((void **)&b->v, &b->cap, sizeof *b->v, b->n + 1))
        return -1;
    b->v[b->n++] = *f;
    return 0;
}

/* Queues @p f for the process that replays rank @p rank. */
int rt__eng_fx_send(struct engine *E, uint32_t rank, const struct fx *f)
{
    return fx_send_to(E, owner_of(E, rank), f);
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
    uint64_t *h = rt__map_get(&E->halves, ci, n);
    if (h) {
        uint32_t id = (uint32_t)*h;
        rt__map_del(&E->halves, ci, n);
        return id;
    }
    uint32_t id = msg_new(E);
    if (id == UINT32_MAX)
        return id;
    if (rt__map_put(&E->halves, ci, n, id)) {
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
        m->bytes = p->bytes;
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
    if (f->kind == FX_BOUND) {
        if (f->src >= nr || owned(E, f->src))
            return bad_fx(E, from, f);
        E->pub[2 * (size_t)f->src] = f->t1;
        E->pub[2 * (size_t)f->src + 1] = f->t2;
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
        uint32_t id = half_of(E, ci, (uint32_t)f->n, f->comm, f->tag, f->src, f->dst);
        if (id == UINT32_MAX)
            return rt__eng_oom(E);
        struct msg *m = &E->msgs[id];
        m->flags |= M_SEND | (f->flags & (M_RDV | M_BURST));
        m->bytes = f->bytes;
        m->send_ev = f->ev1;
        m->origin_ev = f->ev2;
        m->origin_rank = f->i;
        m->pmsg = (uint32_t)f->id;
        return push(E, f->t1, Q_ARRIVE, id, MSG_KEY(f->src, f->ev1));
    }
    /* collectives */
    const struct rt_comm *cm = f->comm < rt_trace_comms(E->t) ? rt_trace_comm(E->t, f->comm) : NULL;
    if (!cm || f->i >= (cm->members ? cm->size : 1))
        return bad_fx(E, from, f);
    uint32_t id;
    if (f->kind == FX_CPOST) {
        hint(E, f->src, f->ev1, f->reg);
        if (f->src >= nr || rt__eng_coll_record(E, f->comm, f->n, f->tag, f->dst, f->src, f->ev1, &id))
            return E->failed ? E->failed : bad_fx(E, from, f);
        return rt__eng_coll_enter(E, id, f->i, f->src, f->ev1, f->tag, f->dst, f->t1, f->bytes, f->ev2, f->flags != 0);
    }
    uint64_t *cid = rt__map_get(&E->coll_of, f->comm, f->n);
    if (!cid)
        return bad_fx(E, from, f);
    id = (uint32_t)*cid;
    struct coll *c = &E->colls[id];
    switch (f->kind) {
    case FX_CTC:
        c->tc = f->t1;
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
        if (!owned(E, row) || f->src >= c->size)
            return bad_fx(E, from, f);
        struct rank *R = &E->ranks[row];
        c->mem[f->i].done = f->t1;
        c->mem[f->i].origin = f->src;
        c->ev[f->src] = f->ev1;
        R->tx_free = f->t2;
        R->rx_free = f->t3;
        R->held = 0;
        R->coll = UINT32_MAX;
        if (++c->dones == c->own) {
            c->complete = 1;
            rt__map_del(&E->coll_of, c->comm, c->seq);
        }
        return wake(E, row, f->t1);
    }
    }
}

/* ------------------------------------------------------------------ bounds */

enum { MARK_TX = 1, MARK_RX = 2 };

static void mark(struct engine *E, uint32_t r, uint8_t bits)
{
    if (!E->mark[r])
        E->marked[E->nmarked++] = r;
    E->mark[r] |= bits;
}

/* The earliest time a rendezvous ready of rank @p r not yet queued could have: its send is
 * posted, and its receive can only be posted at T or later, and not before its receiver could. */
static rt_time_ps rdv_bound(const struct engine *E, const struct rank *R)
{
    rt_time_ps lb = INT64_MAX;
    for (uint32_t i = 0; i < R->nrdvw; i++) {
        const struct msg *m = &E->msgs[R->rdvw[i]];
        rt_time_ps b = m->send_post > E->T ? m->send_post : E->T;
        b = E->pub[2 * (size_t)m->dst + 1] > b ? E->pub[2 * (size_t)m->dst + 1] : b;
        lb = b < lb ? b : lb;
    }
    return lb;
}

/* The earliest time an arrival not yet queued could reach rank @p r's receive port: one least
 * wire time after the earliest grant of any rank that ever sends to it. */
static rt_time_ps arrival_bound(const struct engine *E, uint32_t r)
{
    rt_time_ps lb = INT64_MAX;
    for (uint32_t k = E->senders_at[r - E->lo]; k < E->senders_at[r - E->lo + 1]; k++)
        lb = E->pub[2 * (size_t)E->senders[k]] < lb ? E->pub[2 * (size_t)E->senders[k]] : lb;
    lb = lb > INT64_MAX - E->wire_min ? INT64_MAX : lb + E->wire_min;
    return lb > E->T + E->wire_min ? lb : E->T + E->wire_min;
}

/* A lower bound on when collective @p c runs: its last entry. */
static rt_time_ps coll_bound(const struct engine *E, const struct coll *c)
{
    return c->tc_known ? c->tc : (c->max_begin > E->T ? c->max_begin : E->T);
}

/* A lower bound on when the blocked rank @p r can go on: the completion it waits for. */
static rt_time_ps wake_bound(const struct engine *E, uint32_t r)
{
    const struct rank *R = &E->ranks[r];
    const struct rt_event *e = &R->ev[R->cursor];
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV) {
        rt_time_ps arr = arrival_bound(E, r);
        return E->arr_min[r] < arr ? E->arr_min[r] : arr;
    }
    if (e->kind == RT_EV_COLL_END && R->coll != UINT32_MAX)
        return coll_bound(E, &E->colls[R->coll]);
    if (e->kind != RT_EV_ISEND_COMPLETE && e->kind != RT_EV_LEAVE)
        return E->T;
    /* sends it waits for: each completes at or after its grant (eager), or its delivery, which is
     * at or after its arrival (rendezvous); it goes on when the last one completes */
    rt_time_ps lb = E->T, grant = rdv_bound(E, R);
    grant = E->rdy_min[r] < grant ? E->rdy_min[r] : grant;
    uint32_t n = e->kind == RT_EV_LEAVE ? R->nwaits : 1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t p = e->kind == RT_EV_LEAVE ? R->waits[i] : pending_of((struct rank *)R, e->ref);
        if (p == UINT64_MAX || (p & COLL_BIT))
            return E->T;
        const struct msg *m = &E->msgs[p];
        if (m->flags & M_SDONE)
            continue;
        rt_time_ps b = grant;
        if ((m->flags & M_RDV) && (m->flags & M_FWD))
            b = m->recv_done; /* its arrival at the far receiver */
        else if ((m->flags & M_RDV) && owned(E, m->dst))
            b = E->arr_min[m->dst] < grant ? E->arr_min[m->dst] : grant;
        lb = b > lb ? b : lb;
    }
    return lb;
}

/* The earliest time rank @p r could still post anything. */
static rt_time_ps post_bound(const struct engine *E, uint32_t r)
{
    const struct rank *R = &E->ranks[r];
    rt_time_ps lb = R->clock > E->T ? R->clock : E->T;
    if (R->state == R_DONE)
        return INT64_MAX;
    if (R->state == R_QUEUED)
        return R->queued_at > lb ? R->queued_at : lb;
    rt_time_ps w = wake_bound(E, r);
    return w > lb ? w : lb;
}

/* Whether nothing unknown can precede (t, type) on rank @p r's port of kind @p bits. */
static int port_ok(const struct engine *E, uint32_t r, rt_time_ps t, uint8_t type, uint8_t bits)
{
    const struct rank *R = &E->ranks[r];
    int last_at_T = t == E->T && E->tau == Q_RDV; /* nothing more can be posted at T */
    if (E->mark[r] & bits)
        return 0;
    if (type != Q_COLL) {
        if (R->held)
            return 0;
        if (R->coll != UINT32_MAX) {
            rt_time_ps lb = coll_bound(E, &E->colls[R->coll]);
            if (!(t < lb || (t == lb && type < Q_COLL)))
                return 0;
        }
    }
    if (bits == MARK_RX) /* arrivals not yet sent */
        return t < arrival_bound(E, r);
    if (R->nrdvw) {
        rt_time_ps lb = rdv_bound(E, R);
        if (!(t < lb || (t == lb && (type < Q_RDV || last_at_T))))
            return 0;
    }
    if (type != Q_COLL) { /* the rank's own later posts */
        rt_time_ps lb = post_bound(E, r);
        if (type == Q_READY ? t > lb : !(t < lb || last_at_T))
            return 0;
    }
    return 1;
}

/* The earliest queued grant of every rank's send port and arrival at its receive port. */
static void scan_queue(struct engine *E)
{
    for (uint32_t r = E->lo; r < E->hi; r++)
        E->rdy_min[r] = E->arr_min[r] = INT64_MAX;
    for (size_t i = 0; i < qcount(E); i++) {
        const struct qent *q = qat(E, i);
        uint8_t ty = QTYPE(q);
        if (ty == Q_READY || ty == Q_RDV) {
            uint32_t r = E->msgs[q->id].src;
            E->rdy_min[r] = q->t < E->rdy_min[r] ? q->t : E->rdy_min[r];
        } else if (ty == Q_ARRIVE) {
            uint32_t r = E->msgs[q->id].dst;
            E->arr_min[r] = q->t < E->arr_min[r] ? q->t : E->arr_min[r];
        }
    }
}

/* At the end of a round: this process's ranks' bounds (see struct engine.pub), kept here and sent
 * to the processes that need them. Effects still on their way cannot undercut them: each came
 * from an entry that respected the bounds of the round before. */
static int publish(struct engine *E)
{
    scan_queue(E);
    for (uint32_t r = E->lo; r < E->hi; r++) {
        rt_time_ps post = post_bound(E, r), grant = rdv_bound(E, &E->ranks[r]);
        grant = E->rdy_min[r] < grant ? E->rdy_min[r] : grant;
        grant = post < grant ? post : grant;
        E->pub[2 * (size_t)r] = grant;
        E->pub[2 * (size_t)r + 1] = post;
        struct fx f = {.kind = FX_BOUND, .src = r, .t1 = grant, .t2 = post};
        for (uint32_t k = E->nbp_at[r - E->lo]; k < E->nbp_at[r - E->lo + 1]; k++)
            if (fx_send_to(E, E->nbp[k], &f))
                return rt__eng_oom(E);
    }
    return 0;
}

/* Whether entry @p q may be taken now; if not, its ports are marked. */
static int entry_ok(struct engine *E, const struct qent *q)
{
    switch (QTYPE(q)) {
    case Q_READY:
    case Q_RDV: {
        uint32_t r = E->msgs[q->id].src;
        if (port_ok(E, r, q->t, QTYPE(q), MARK_TX))
            return 1;
        mark(E, r, MARK_TX);
        return 0;
    }
    case Q_ARRIVE: {
        uint32_t r = E->msgs[q->id].dst;
        if (port_ok(E, r, q->t, QTYPE(q), MARK_RX))
            return 1;
        mark(E, r, MARK_RX);
        return 0;
    }
    case Q_COLL: {
        const struct coll *c = &E->colls[q->id];
        int ok = 1;
        for (uint32_t i = 0; i < c->size && ok; i++) {
            uint32_t row = member_row(E, c, i);
            ok = !owned(E, row) || (port_ok(E, row, q->t, Q_COLL, MARK_TX) && port_ok(E, row, q->t, Q_COLL, MARK_RX));
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

/* ------------------------------------------------------------------ rounds */

/* Sends the round's messages and applies those received; RT_OK or the transport's error. */
static int swap(struct engine *E)
{
    const struct rt_replay_part *P = E->part;
    void *outp[P->nprocs > 0 ? P->nprocs : 1], *inp[P->nprocs > 0 ? P->nprocs : 1];
    size_t outlen[P->nprocs > 0 ? P->nprocs : 1], inlen[P->nprocs > 0 ? P->nprocs : 1];
    for (uint32_t p = 0; p < P->nprocs; p++) {
        outp[p] = E->out[p].v;
        outlen[p] = E->out[p].n * sizeof(struct fx);
    }
    int rc = P->exchange(P->ud, outp, outlen, inp, inlen);
    for (uint32_t p = 0; p < P->nprocs; p++)
        E->out[p].n = 0;
    if (rc)
        return rc;
    for (uint32_t p = 0; p < P->nprocs && !E->failed; p++) {
        if (inlen[p] % sizeof(struct fx)) {
            E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent %zu bytes",
                                     rt_trace_path(E->t), p, inlen[p]);
            break;
        }
        const struct fx *f = inp[p];
        for (size_t i = 0; i < inlen[p] / sizeof(struct fx) && !E->failed; i++) {
            struct fx x;
            memcpy(&x, &f[i], sizeof x); /* the transport's buffer need not be aligned */
            fx_apply(E, p, &x);
        }
    }
    return RT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Which other processes need the bounds of each rank here (E->nbp): those of the ranks it sends to
 * (their arrivals wait for its grants; @p pairs[p] holds (receiver, sender) pairs for process p)
 * and of the ranks that send to it (their rendezvous wait for its posts). */
static int bound_readers(struct engine *E, uint32_t *const *pairs, const uint32_t *len)
{
    const struct rt_replay_part *P = E->part;
    uint32_t nown = E->hi - E->lo;
    uint64_t n = 0, k = 0;
    for (uint32_t p = 0; p < P->nprocs; p++)
        n += p == P->me ? 0 : len[p];
    n += E->senders_at[nown];
    uint64_t *key = malloc((n ? n : 1) * sizeof *key); /* (rank here - lo) << 32 | process */
    E->nbp_at = calloc((size_t)nown + 1, sizeof *E->nbp_at);
    E->nbp = malloc((n ? n : 1) * sizeof *E->nbp);
    if (!key || !E->nbp_at || !E->nbp) {
        free(key);
        return rt__eng_oom(E);
    }
    for (uint32_t p = 0; p < P->nprocs; p++)
        for (uint32_t i = 0; p != P->me && i < len[p]; i++)
            key[k++] = (uint64_t)(pairs[p][2 * i + 1] - E->lo) << 32 | p;
    for (uint32_t r = 0; r < nown; r++)
        for (uint32_t i = E->senders_at[r]; i < E->senders_at[r + 1]; i++)
            if (owner_of(E, E->senders[i]) != P->me)
                key[k++] = (uint64_t)r << 32 | owner_of(E, E->senders[i]);
    qsort(key, k, sizeof *key, cmp_u64);
    uint64_t m = 0;
    for (uint64_t i = 0; i < k; i++) {
        if (i && key[i] == key[i - 1])
            continue;
        E->nbp[m++] = (uint32_t)key[i];
        E->nbp_at[(key[i] >> 32) + 1]++;
    }
    for (uint32_t r = 0; r < nown; r++)
        E->nbp_at[r + 1] += E->nbp_at[r];
    free(key);
    return RT_OK;
}

/* Which ranks ever send to each rank here: every process sends the pairs (receiver, sender) of its
 * ranks' sends to the receivers' processes, once before the rounds. */
static int find_senders(struct engine *E)
{
    const struct rt_replay_part *P = E->part;
    struct rt__map seen;
    uint32_t **pairs = calloc(P->nprocs, sizeof *pairs), *cap = calloc(P->nprocs, sizeof *cap),
             *len = calloc(P->nprocs, sizeof *len), nown = E->hi - E->lo;
    void **outp = calloc(P->nprocs, sizeof *outp), **inp = calloc(P->nprocs, sizeof *inp);
    size_t *outlen = calloc(P->nprocs, sizeof *outlen), *inlen = calloc(P->nprocs, sizeof *inlen);
    int rc = RT_OK;
    rt__map_init(&seen);
    E->senders_at = calloc((size_t)nown + 1, sizeof *E->senders_at);
    if (!pairs || !cap || !len || !outp || !inp || !outlen || !inlen || !E->senders_at) {
        rc = rt__eng_oom(E);
        goto send;
    }
    for (uint32_t r = E->lo; r < E->hi && !rc; r++) {
        const struct rank *R = &E->ranks[r];
        for (uint64_t j = 0; j < R->nev && !rc; j++) {
            const struct rt_event *e = &R->ev[j];
            if ((e->kind != RT_EV_SEND && e->kind != RT_EV_ISEND) || e->ref >= E->nranks)
                continue;
            if (rt__map_get(&seen, e->ref, r))
                continue;
            uint32_t p = owner_of(E, e->ref);
            if (rt__map_put(&seen, e->ref, r, 1) || rt__grow((void **)&pairs[p], &cap[p], 2 * sizeof **pairs, len[p] + 1)) {
                rc = rt__eng_oom(E);
                break;
            }
            pairs[p][2 * len[p]] = e->ref;
            pairs[p][2 * len[p] + 1] = r;
            len[p]++;
        }
    }
send: /* every process takes part in the exchange, even after a failure here */
    for (uint32_t p = 0; p < P->nprocs && outlen; p++) {
        outp[p] = pairs ? pairs[p] : NULL;
        outlen[p] = rc || !len ? 0 : (size_t)len[p] * 2 * sizeof(uint32_t);
    }
    int xrc = outlen && inlen ? P->exchange(P->ud, outp, outlen, inp, inlen) : RT_ENOMEM;
    if (!rc && xrc)
        rc = E->failed = rt_error_set(E->err, xrc, "%s: distributed replay: exchange failed", rt_trace_path(E->t));
    uint64_t total = 0;
    for (uint32_t p = 0; !rc && p < P->nprocs; p++) { /* count per receiver, then place */
        const uint32_t *x = inp[p];
        for (size_t i = 0; i + 1 < inlen[p] / sizeof(uint32_t); i += 2) {
            uint32_t dst, src;
            memcpy(&dst, &x[i], sizeof dst);
            memcpy(&src, &x[i + 1], sizeof src);
            if (!owned(E, dst) || src >= E->nranks) {
                rc = E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: distributed replay: process %u sent a bad pair",
                                              rt_trace_path(E->t), p);
                break;
            }
            E->senders_at[dst - E->lo + 1]++;
            total++;
        }
    }
    if (!rc) {
        for (uint32_t i = 0; i < nown; i++)
            E->senders_at[i + 1] += E->senders_at[i];
        E->senders = malloc((total ? total : 1) * sizeof *E->senders);
        uint32_t *fill = calloc((size_t)nown + 1, sizeof *fill);
        if (!E->senders || !fill) {
            free(fill);
            rc = rt__eng_oom(E);
        } else {
            for (uint32_t p = 0; p < P->nprocs; p++) {
                const uint32_t *x = inp[p];
                for (size_t i = 0; i + 1 < inlen[p] / sizeof(uint32_t); i += 2) {
                    uint32_t dst, src;
                    memcpy(&dst, &x[i], sizeof dst);
                    memcpy(&src, &x[i + 1], sizeof src);
                    E->senders[E->senders_at[dst - E->lo] + fill[dst - E->lo]++] = src;
                }
            }
            free(fill);
        }
    }
    if (!rc)
        rc = bound_readers(E, pairs, len);
    for (uint32_t p = 0; pairs && p < P->nprocs; p++)
        free(pairs[p]);
    free(pairs);
    free(cap);
    free(len);
    free(outp);
    free(inp);
    free(outlen);
    free(inlen);
    rt__map_free(&seen);
    return rc;
}

/* The distributed replay's rounds, until no process has anything queued. */
int rt__eng_run_rounds(struct engine *E)
{
    const struct rt_replay_part *P = E->part;
    if (find_senders(E)) /* a failure is reported in the first round, which everyone takes part in */
        E->failed = E->failed ? E->failed : rt__eng_oom(E);
    for (;;) {
        int rc = swap(E);
        if (rc)
            return E->failed ? E->failed : rt_error_set(E->err, rc, "%s: distributed replay: exchange failed",
                                                          rt_trace_path(E->t));
        int64_t *v = E->red;
        v[0] = INT64_MAX;
        v[1] = E->failed ? 0 : 1;
        int64_t ty = INT64_MAX;
        if (qcount(E))
            v[0] = qtop(E)->t, ty = QTYPE(qtop(E));
        /* what the swap itself made (a collective's results) is queued elsewhere only next round */
        for (uint32_t p = 0; p < P->nprocs; p++)
            for (uint32_t i = 0; i < E->out[p].n; i++)
                if (E->out[p].v[i].kind != FX_CPORTS && E->out[p].v[i].kind != FX_BOUND &&
                    (E->out[p].v[i].t1 < v[0] || (E->out[p].v[i].t1 == v[0] && ty)))
                    v[0] = E->out[p].v[i].t1, ty = Q_RESUME;
        scan_queue(E);
        for (uint32_t i = 0; i < E->ncolls; i++) { /* collectives that wait for their ports */
            const struct coll *c = &E->colls[i];
            if (c->mem && c->tc_known && !c->complete && coordinates(E, c) && (c->tc < v[0] || (c->tc == v[0] && Q_COLL < ty)))
                v[0] = c->tc, ty = Q_COLL;
        }
        rt_time_ps mine = v[0];
        /* time and type in one value, so that one reduction gives both (times below 2^60 ps, 13
         * days; beyond, a second reduction finds the type) */
        v[2] = mine >= 0 && mine < (INT64_C(1) << 60) && ty < 8 ? mine * 8 + ty : INT64_MAX;
        if ((rc = P->reduce(P->ud, v, 3, 0)))
            return rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
        if (v[1] == 0)
            return E->failed ? E->failed
                             : rt_error_set(E->err, RT_EREMOTE, "%s: stopped: another process failed", rt_trace_path(E->t));
        if (v[0] == INT64_MAX)
            return RT_OK;
        int64_t tau = v[2] != INT64_MAX && v[2] / 8 == v[0] ? v[2] % 8 : INT64_MAX;
        if (tau == INT64_MAX) {
            tau = mine == v[0] ? ty : INT64_MAX;
            if ((rc = P->reduce(P->ud, &tau, 1, 0)))
                return rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
        }
        E->T = v[0];
        E->tau = (uint8_t)tau;
        E->res->rounds++;
        while (qcount(E) && !E->failed) {
            struct qent q = pop(E);
            if (entry_ok(E, &q)) {
                rt__eng_take(E, q);
                continue;
            }
            if (rt__grow((void **)&E->later, &E->caplater, sizeof *E->later, E->nlater + 1)) {
                rt__eng_oom(E);
                break;
            }
            E->later[E->nlater++] = q;
        }
        for (uint32_t i = 0; i < E->nlater && !E->failed; i++)
            if (push(E, E->later[i].t, QTYPE(&E->later[i]), E->later[i].id, E->later[i].tk))
                break;
        E->nlater = 0;
        for (uint32_t i = 0; i < E->nmarked; i++)
            E->mark[E->marked[i]] = 0;
        E->nmarked = 0;
        if (!E->failed)
            publish(E);
    }
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
    int rc = E->part->reduce(E->part->ud, v, RS * (size_t)E->nranks, 1);
    return rc ? rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t)) : RT_OK;
}

/* One error for all: the lowest failing process keeps its own, the others say it stopped them. */
int rt__eng_agree(struct engine *E, int rc)
{
    int64_t v = rc && rc != RT_EREMOTE ? (int64_t)E->part->me : INT64_MAX; /* the first real error */
    int prc = E->part->reduce(E->part->ud, &v, 1, 0);
    if (prc)
        return rc ? rc : rt_error_set(E->err, prc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
    if (v == INT64_MAX || v == (int64_t)E->part->me)
        return rc;
    return rt_error_set(E->err, RT_EREMOTE, "%s: stopped: process %lld of the distributed replay failed",
                        rt_trace_path(E->t), (long long)v);
}

/* Sums the processes' per-rank ends and counters: every process returns the whole result. */
int rt__eng_share_results(struct engine *E)
{
    struct rt_replay_result *res = E->res;
    size_t n = E->nranks;
    int64_t c[7] = {(int64_t)res->events, (int64_t)res->messages, (int64_t)res->rendezvous,
                    (int64_t)res->collectives, res->net_noise_ps, res->os_noise_ps, res->burst_ps};
    int rc = E->part->reduce(E->part->ud, res->predicted_end_ps, n, 1);
    if (!rc)
        rc = E->part->reduce(E->part->ud, res->measured_end_ns, n, 1);
    if (!rc)
        rc = E->part->reduce(E->part->ud, c, 7, 1);
    if (rc)
        return rt_error_set(E->err, rc, "%s: distributed replay: reduction failed", rt_trace_path(E->t));
    res->events = (uint64_t)c[0];
    res->messages = (uint64_t)c[1];
    res->rendezvous = (uint64_t)c[2];
    res->collectives = (uint64_t)c[3];
    res->net_noise_ps = c[4];
    res->os_noise_ps = c[5];
    res->burst_ps = c[6];
    return RT_OK;
}
