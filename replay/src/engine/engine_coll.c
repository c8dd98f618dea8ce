/* SPDX-License-Identifier: MIT */
/*
 * Collectives in the engine: a member's entry (the instance's record on first sight, the members'
 * ranks in their communicator, their counts checked against each other), and, without a network,
 * the instance timed in one go by its algorithm (coll/collective.c) once its last member is in,
 * at that time in the queue's order, the members' ports read and written, each member woken at
 * its own end. On a network each member runs its own part message by message instead
 * (coll_exec.c). In a distributed replay the process of member 0 coordinates (engine_dist.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "engine_internal.h"
#include "map.h"


/* ------------------------------------------------------------------ noise */

struct coll_noise { /* what the collective's noise hooks need */
    struct engine *E;
    const struct coll *c;
};

static rt_time_ps coll_cpu(void *ud, uint32_t i, rt_time_ps t, rt_time_ps work)
{
    struct coll_noise *h = ud;
    return rt__eng_cpu(h->E, member_row(h->E, h->c, i), t, work);
}

static int coll_net(void *ud, uint32_t a, uint32_t b, uint64_t idx, rt_time_ps inject, rt_bytes m, rt_time_ps *wire,
                    rt_time_ps *gap, rt_time_ps *hold)
{
    struct coll_noise *h = ud;
    (void)b;
    /* keyed by the instance (communicator, number) and the message's place in the algorithm */
    uint64_t key = coll_noise_key(h->c, idx);
    return rt__eng_net_timing(h->E, member_row(h->E, h->c, a), inject, m, key, wire, gap, hold) < 0 ? RT_ENOMEM : RT_OK;
}


/* ------------------------------------------------------------------ members */

/* Communicator rank of trace row @p row in communicator @p c, or RT_NONE when the row is not a
 * member (E->failed is set on failure). The reverse of rt_comm.members is built on the
 * communicator's first collective, so a post costs one lookup, not a scan. */
static uint32_t comm_rank_of(struct engine *E, uint32_t c, const struct rt_comm *cm, uint32_t row)
{
    if (!cm->members)
        return 0; /* a self communicator: the caller alone */
    if (c + 1 != E->comm_checked) {
        if (!rt__map_get(&E->comm_rank, c, UINT64_MAX)) {
            for (uint32_t i = 0; i < cm->size; i++) {
                if (cm->members[i] == RT_NONE)
                    continue;
                if (rt__map_get(&E->comm_rank, c, cm->members[i])) {
                    E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: communicator '%s' lists rank %u twice",
                                             rt_trace_path(E->t), rt__eng_comm_name(E, c), cm->members[i]);
                    return RT_NONE;
                }
                if (rt__map_put(&E->comm_rank, c, cm->members[i], i)) {
                    rt__eng_oom(E);
                    return RT_NONE;
                }
            }
            if (rt__map_put(&E->comm_rank, c, UINT64_MAX, 0)) {
                rt__eng_oom(E);
                return RT_NONE;
            }
        }
        E->comm_checked = c + 1;
    }
    /* The members are distinct (checked above): a row that is its own communicator rank, as in
     * MPI_COMM_WORLD, needs no lookup. */
    if (row < cm->size && cm->members[row] == row)
        return row;
    uint64_t *v = rt__map_get(&E->comm_rank, c, row);
    return v ? (uint32_t)*v : RT_NONE;
}

uint32_t rt__eng_comm_rank(struct engine *E, uint32_t c, uint32_t row)
{
    const struct rt_comm *cm = rt_trace_comm(E->t, c);
    return cm ? comm_rank_of(E, c, cm, row) : RT_NONE;
}

/* Bytes received by the collective that begins at event @p j: its COLL_END, the rank's next
 * collective record (the reader never nests them), refers back to it; a non-blocking one's
 * NBCOLL_END is where its begin says (aux). */
rt_bytes rt__eng_coll_received(const struct rank *R, uint64_t j)
{
    if (R->ev[j].kind == RT_EV_NBCOLL_BEGIN) {
        /* (its NBCOLL_END is read: a streamed trace holds it, perhaps past what the rank may step) */
        uint64_t k = R->ev[j].aux;
        return k < R->avail && R->ev[k].kind == RT_EV_NBCOLL_END && R->ev[k].ref == j ? rt__row_payload_of(R->row, k)->bytes
                                                                                   : 0;
    }
    for (uint64_t k = j + 1; k < R->nev; k++) {
        if (R->ev[k].kind == RT_EV_COLL_END)
            return R->ev[k].ref == j ? rt__row_payload_of(R->row, k)->bytes : 0;
        if (R->ev[k].kind == RT_EV_COLL_BEGIN)
            break;
    }
    return 0;
}

void rt__eng_coll_release(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    E->coll_bytes -= (uint64_t)c->size * (sizeof *c->mem + sizeof *c->ev);
    free(c->mem);
    free(c->ev);
    c->mem = NULL;
    c->ev = NULL;
    rt__cx_release(E, c->cx);
    c->cx = NULL;
    c->refs = E->freecoll;
    E->freecoll = id;
}

void rt__eng_coll_unref(struct engine *E, uint32_t id)
{
    if (--E->colls[id].refs == 0)
        rt__eng_coll_release(E, id);
}

/* --scale-bytes on the blocks, derived from the counts as traced (a count rounded on its own
 * would not be a multiple of the block): each member's by its call's factor; the members of a
 * collective that is not a vector variant scale alike (their blocks are one). */
static int scale_blocks(struct engine *E, struct coll *c)
{
    uint32_t z = 0; /* the first member with a block: a barrier's, or an absent member's, is 0 and moves nothing */
    while (z + 1 < c->size && (c->mem[z].block == 0 || c->mem[z].block == UINT64_MAX))
        z++;
    for (uint32_t i = 0; i < c->size; i++) {
        struct rt__coll_member *A = &c->mem[i], *Z = &c->mem[z];
        uint32_t ra = member_row(E, c, i), rz = member_row(E, c, z);
        if (!c->vector && c->op != RT_COLL_BARRIER && A->block && A->block != UINT64_MAX && A->scale != Z->scale)
            return E->failed = rt_error_set(
                       E->err, RT_EINVAL,
                       "%s: --scale-bytes scales the members of one %s on comm '%s' differently: rank %u event %llu "
                       "(%s) by %g, rank %u event %llu (%s) by %g; give their call sites one factor, or name the "
                       "communicator",
                       rt_trace_path(E->t), rt_coll_op_name((int)c->op), rt__eng_comm_name(E, c->comm),
                       rt_trace_rank_label(E->t, rz), (unsigned long long)c->ev[z], rt__eng_call_name(E, rz, c->ev[z]),
                       Z->scale, rt_trace_rank_label(E->t, ra), (unsigned long long)c->ev[i],
                       rt__eng_call_name(E, ra, c->ev[i]), A->scale);
        rt_bytes b = A->block == UINT64_MAX ? A->block : rt_scale_apply(A->scale, A->block);
        if (b == UINT64_MAX && A->block != UINT64_MAX)
            return E->failed = rt_error_set(E->err, RT_ERANGE,
                                            "%s: --scale-bytes: rank %u event %llu (%s): a block of %llu bytes times %g "
                                            "is more than the 4 TiB a count may hold",
                                            rt_trace_path(E->t), rt_trace_rank_label(E->t, ra),
                                            (unsigned long long)c->ev[i], rt__eng_call_name(E, ra, c->ev[i]),
                                            (unsigned long long)A->block, A->scale);
        A->block = b;
    }
    return 0;
}

/* Every member's block from the members' counts (rt__coll_blocks); on a mismatch the error names
 * two members that disagree. */
int rt__eng_coll_blocks(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    uint32_t a = 0, b = 0;
    if (rt__coll_blocks((int)c->op, c->size, c->root_rank, c->vector, c->mem, &a, &b)) {
        struct rt__coll_member *A = &c->mem[a], *B = &c->mem[b];
        uint32_t ra = member_row(E, c, a), rb = member_row(E, c, b);
        char block[48] = "";
        if (A->block != UINT64_MAX && A->block != 0) /* an empty reading explains nothing */
            snprintf(block, sizeof block, " (blocks of %llu bytes)", (unsigned long long)A->block);
        return E->failed = rt_error_set(
                   E->err, RT_EMISMATCH,
                   "%s: collective size mismatch on comm '%s' (%s): rank %u event %llu (%s) sends %llu and receives "
                   "%llu bytes%s but rank %u event %llu (%s) sends %llu and receives %llu bytes",
                   rt_trace_path(E->t), rt__eng_comm_name(E, c->comm), rt_coll_op_name((int)c->op), rt_trace_rank_label(E->t, ra),
                   (unsigned long long)c->ev[a], rt__eng_call_name(E, ra, c->ev[a]), (unsigned long long)A->sent,
                   (unsigned long long)A->recv, block, rt_trace_rank_label(E->t, rb), (unsigned long long)c->ev[b],
                   rt__eng_call_name(E, rb, c->ev[b]),
                   (unsigned long long)B->sent, (unsigned long long)B->recv);
    }
    return E->o->scale ? scale_blocks(E, c) : 0;
}

/* The ports of the members replayed here, the results of the algorithm: every member's done time
 * and ports. Members here are woken; the others' processes are sent theirs. */
int rt__eng_coll_finish(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    if (rt__eng_coll_blocks(E, id))
        return E->failed;
    uint32_t op = c->op <= RT_COLL_OTHER ? c->op : RT_COLL_OTHER;
    struct coll_noise cn = {E, c};
    struct rt__coll_noise hooks = {&cn, coll_cpu, coll_net};
    struct rt_coll_plan plan;
    rt__coll_plan_of(E->o->coll_rules, E->o->coll_algo, (int)op, c->vector, c->size, c->mem, &plan);
    if (rt__coll_run(&plan, c->size, c->root_rank, c->mem, &E->o->model, E->o->eager_limit,
                     rt_replay_options_noisy(E->o) ? &hooks : NULL))
        return rt__eng_oom(E);
    c->complete = 1;
    rt__coll_measured_binders((int)op, c->size, c->root_rank, c->mem);
    for (uint32_t i = 0; i < c->size; i++) {
        uint32_t row = member_row(E, c, i);
        if (!owned(E, row)) {
            struct fx f = {.kind = FX_CDONE, .comm = c->comm, .n = c->seq, .i = i, .t1 = c->mem[i].done,
                           .t2 = c->mem[i].tx_free, .t3 = c->mem[i].rx_free, .src = c->mem[i].origin,
                           .ev1 = c->ev[c->mem[i].origin], .tag = c->mem[i].mbind,
                           .ev2 = c->ev[c->mem[i].mbind]};
            if (rt__eng_fx_send(E, row, &f))
                return rt__eng_oom(E);
            continue;
        }
        struct rank *R = &E->ranks[row];
        R->tx_free = c->mem[i].tx_free;
        R->rx_free = c->mem[i].rx_free;
        R->held = 0;
    }
    for (uint32_t i = 0; i < c->size; i++)
        if (owned(E, member_row(E, c, i)) && wake(E, member_row(E, c, i), c->mem[i].done))
            return E->failed;
    return 0;
}

/* Popped at the last member's entry: the ports of the members replayed here are read (all of
 * them in a replay by one process, which then runs the algorithm at once). */
int rt__eng_coll_ports(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    for (uint32_t i = 0; i < c->size; i++) {
        uint32_t row = member_row(E, c, i);
        if (!owned(E, row))
            continue;
        struct rank *R = &E->ranks[row];
        R->held = 1;
        rt__eng_incoll_del(R, id);
        if (coordinates(E, c)) {
            c->mem[i].tx_free = R->tx_free;
            c->mem[i].rx_free = R->rx_free;
            c->ports_in++;
        } else {
            struct fx f = {.kind = FX_CPORTS, .comm = c->comm, .n = c->seq, .i = i, .t1 = R->tx_free,
                           .t2 = R->rx_free};
            if (rt__eng_fx_send(E, member_row(E, c, 0), &f))
                return rt__eng_oom(E);
        }
    }
    if (c->ports_in == c->size) {
        rt__map_del(&E->coll_of, c->comm, c->seq);
        return rt__eng_coll_finish(E, id);
    }
    return 0;
}

/* Every member has entered (known at the coordinator): the collective runs, reading and writing
 * the members' ports, at the last entry, in time order with the ports' other grants. */
static int coll_ready(struct engine *E, uint32_t id)
{
    struct coll *c = &E->colls[id];
    rt_time_ps tc = NEVER;
    for (uint32_t i = 0; i < c->size; i++)
        tc = c->mem[i].begin > tc ? c->mem[i].begin : tc;
    c->tc = tc;
    c->pt = tc > E->cur_pt ? tc : E->cur_pt; /* (its order: the distributed replay's, engine_remote.c) */
    c->tc_known = 1;
    if (c->own < c->size) { /* each other process with members queues it too */
        uint32_t me = E->part->me, last = me;
        for (uint32_t i = 0; i < c->size; i++) {
            uint32_t row = member_row(E, c, i), p = owner_of(E, row);
            if (p == me || p == last)
                continue;
            last = p;
            struct fx f = {.kind = FX_CTC, .comm = c->comm, .n = c->seq, .t1 = tc};
            if (rt__eng_fx_send(E, row, &f))
                return rt__eng_oom(E);
        }
    }
    return push(E, tc, Q_COLL, id, coll_key(c));
}

/* The record of instance @p seq of a collective on communicator @p comm, made on first sight. */
int rt__eng_coll_record(struct engine *E, uint32_t comm, uint64_t seq, uint32_t op, uint32_t root, uint32_t first_rank,
                        uint64_t first_ev, uint32_t *idp)
{
    const char *path = rt_trace_path(E->t);
    const struct rt_comm *cm = rt_trace_comm(E->t, comm);
    uint64_t *cid = rt__map_get(&E->coll_of, comm, seq);
    if (cid) {
        *idp = (uint32_t)*cid;
        return 0;
    }
    uint32_t size = cm->members ? cm->size : 1, id;
    if (size > INT32_MAX) /* the member index must fit the pending value */
        return E->failed = rt_error_set(E->err, RT_EUNSUPPORTED, "%s: communicator '%s' has %u ranks, more than 2^31",
                                        path, rt__eng_comm_name(E, comm), size);
    uint32_t root_rank = root == RT_NONE ? 0 : comm_rank_of(E, comm, cm, root);
    if (E->failed)
        return E->failed;
    if (E->freecoll != UINT32_MAX) {
        id = E->freecoll;
        E->freecoll = E->colls[id].refs;
    } else {
        if (rt__grow((void **)&E->colls, &E->capcolls, sizeof *E->colls, E->ncolls + 1))
            return rt__eng_oom(E);
        id = E->ncolls++;
    }
    struct coll *c = &E->colls[id];
    memset(c, 0, sizeof *c);
    c->mem = calloc(size, sizeof *c->mem); /* the driver's cleanup frees them on failure */
    c->ev = calloc(size, sizeof *c->ev);
    if (!c->mem || !c->ev || rt__map_put(&E->coll_of, comm, seq, id))
        return rt__eng_oom(E);
    E->coll_bytes += (uint64_t)size * (sizeof *c->mem + sizeof *c->ev);
    if (E->coll_bytes > E->coll_bytes_peak)
        E->coll_bytes_peak = E->coll_bytes;
    c->size = size;
    c->comm = comm;
    c->members = cm->members;
    c->op = op;
    c->root = root;
    c->root_rank = root_rank == RT_NONE ? 0 : root_rank;
    c->first_rank = first_rank;
    c->first_ev = first_ev;
    c->seq = seq;
    c->max_begin = NEVER;
    for (uint32_t i = 0; i < size; i++)
        c->mem[i].scale = 1;
    for (uint32_t i = 0; i < size; i++)
        c->own += owned(E, member_row(E, c, i));
    c->refs = c->own;
    c->coord = owner_of(E, member_row(E, c, 0));
    if (coordinates(E, c))
        E->res->collectives++;
    *idp = id;
    return 0;
}

/* Member @p me (trace row @p row) enters collective @p id at @p begin. */
int rt__eng_coll_enter(struct engine *E, uint32_t id, uint32_t me, uint32_t row, uint64_t ev, uint32_t op,
                       uint32_t root, rt_time_ps begin, rt_time_ns mentry, rt_bytes sent, rt_bytes recv, double scale,
                       int how)
{
    int vector = how & RT__CALL_VECTOR;
    struct coll *c = &E->colls[id];
    if (c->op != op || c->root != root)
        return E->failed = rt_error_set(
                   E->err, RT_EMISMATCH,
                   "%s: collective mismatch on comm '%s': rank %u event %llu (%s, %s, root %d) vs rank %u event %llu (%s, %s, root %d)",
                   rt_trace_path(E->t), rt__eng_comm_name(E, c->comm), rt_trace_rank_label(E->t, c->first_rank),
                   (unsigned long long)c->first_ev,
                   rt__eng_call_name(E, c->first_rank, c->first_ev), rt_coll_op_name((int)c->op),
                   c->root == RT_NONE ? -1 : (int)c->root, rt_trace_rank_label(E->t, row), (unsigned long long)ev,
                   rt__eng_call_name(E, row, ev),
                   rt_coll_op_name((int)op), root == RT_NONE ? -1 : (int)root);
    struct rt__coll_member *m = &c->mem[me];
    m->begin = begin;
    m->mentry = mentry;
    m->sent = sent;
    m->recv = recv;
    m->scale = scale;
    m->in_place = (how & RT__CALL_IN_PLACE) != 0;
    c->ev[me] = ev;
    if (vector)
        c->vector = 1;
    c->max_begin = begin > c->max_begin ? begin : c->max_begin;
    c->arrived++;
    if (E->net) /* its own part starts now, message by message on the network */
        return rt__cx_enter(E, id, me);
    if (!coordinates(E, c)) { /* the coordinator counts and times it */
        uint32_t reg = rt__eng_call_region(E, row, ev);
        struct fx f = {.kind = FX_CPOST, .comm = c->comm, .n = c->seq, .i = me, .src = row, .t1 = begin,
                       .t2 = mentry, .bytes = sent, .ev2 = recv, .ev1 = ev, .tag = op, .dst = root, .flags = (uint32_t)how,
                       .reg = reg == RT_NONE ? 0 : reg + 1};
        memcpy(&f.id, &scale, sizeof scale); /* (its factor's bits: the coordinator scales the blocks) */
        return rt__eng_fx_send(E, member_row(E, c, 0), &f) ? rt__eng_oom(E) : 0;
    }
    return c->arrived == c->size ? coll_ready(E, id) : 0;
}

int rt__eng_post_collective(struct engine *E, uint32_t r, uint64_t j, const struct rt_event *e,
                            const struct rt_event_payload *p, rt_time_ps t)
{
    const char *path = rt_trace_path(E->t);
    const struct rt_comm *cm = rt_trace_comm(E->t, p->comm);
    uint32_t op = rt__coll_op_at(E->ranks[r].ev, E->ranks[r].avail, j);
    if (!cm)
        return E->failed = rt_error_set(E->err, RT_ECORRUPT, "%s: rank %u event %llu: collective without communicator",
                                        path, rt_trace_rank_label(E->t, r), (unsigned long long)j);
    uint32_t me = comm_rank_of(E, p->comm, cm, r);
    if (E->failed)
        return E->failed;
    if (me == RT_NONE)
        return E->failed = rt_error_set(
                   E->err, RT_EMISMATCH,
                   "%s: collective on comm '%s' by a non-member: rank %u event %llu (%s, %s) is not one of its %u ranks",
                   path, rt__eng_comm_name(E, p->comm), rt_trace_rank_label(E->t, r), (unsigned long long)j,
                   rt__eng_call_name(E, r, j), rt_coll_op_name((int)op), cm->size);
    /* A rooted operation whose trace names no root is refused, not timed as rooted at rank 0 (#47:
     * a bcast with a late rank 2 came out far from root 2's answer, silently). */
    if (e->ref == RT_NONE && (op == RT_COLL_BCAST || op == RT_COLL_GATHER || op == RT_COLL_SCATTER || op == RT_COLL_REDUCE))
        return E->failed = rt_error_set(E->err, RT_ECORRUPT,
                                        "%s: rank %u event %llu (%s on comm '%s'): a rooted collective whose root "
                                        "the trace leaves undefined; it cannot be timed without one",
                                        path, rt_trace_rank_label(E->t, r), (unsigned long long)j, rt__eng_call_name(E, r, j),
                                        rt__eng_comm_name(E, p->comm));
    uint64_t *seqp = rt__map_ref(&E->coll_seq, r, p->comm, 0);
    if (!seqp)
        return rt__eng_oom(E);
    uint64_t seq = (*seqp)++;
    if (E->stream && E->net && rt__cx_passed(E, r, p->comm, j, seq)) /* (look-aheads start past it) */
        return E->failed;
    uint32_t id;
    if (rt__eng_coll_record(E, p->comm, seq, op, e->ref, r, j, &id))
        return E->failed;
    if (pt_put(&E->ranks[r].pending, j, COLL_BIT | (uint64_t)me << 32 | id))
        return rt__eng_oom(E);
    if (E->part && !E->net && rt__eng_incoll_add(&E->ranks[r], id)) /* (the rounds' bounds on its ports) */
        return rt__eng_oom(E);
    double c_scale = E->o->scale ? rt__eng_factor(E, r, j, p->comm) : 1;
    return rt__eng_coll_enter(E, id, me, r, j, op, e->ref, t, (rt_time_ns)e->time, p->bytes,
                              rt__eng_coll_received(&E->ranks[r], j), c_scale,
                              ((e->flags & RT_EVF_VECTOR) ? RT__CALL_VECTOR : 0) |
                                  ((e->flags & RT_EVF_IN_PLACE) ? RT__CALL_IN_PLACE : 0));
}
