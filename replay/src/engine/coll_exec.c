/* SPDX-License-Identifier: MIT */
/*
 * Collectives run message by message on a routed network (issue #30, docs/network.md).
 *
 * Without a topology the engine times a collective in one go when its last member has entered
 * (coll/collective.c, rt__coll_run). With one, every message of the collective's algorithm must
 * share links with every other flow at the time it is on the wire, so the same algorithm's
 * schedule (rt__coll_schedule: the same messages in the same order) runs here as engine messages:
 * each goes through on_ready (network noise, bursts, the flow over its route) and on_arrive like
 * a point-to-point message, and comes back here when its sender's part (eager) or its delivery is
 * done.
 *
 * The timing rules are rt__coll_run's, read per member instead of per round: member i starts its
 * first round at its own entry; in a round, a send is ready after the CPU's o_send at the
 * member's clock, eager data leaves then, rendezvous data no earlier than the receiver's clock
 * at that round plus the handshake; a receive completes at max(delivery, the receiver's clock)
 * plus o_recv; the member's clock after the round is the latest of its completions, and rounds
 * it has no message in do not exist for it. So a member starts when it enters and leaves when
 * its own part is done (a tree's leaf before the root's last send), never at a round barrier of
 * all members. Without a network the NIC ports are not held either: the links are shared.
 *
 * Which member's entry each time goes back to (its origin, for the dependency graph and the
 * congestion attribution) follows rt__coll_run too. With record_contention each time also keeps
 * the message it goes back to (its bind, CX_NONE: the member's own entry) and each message the
 * one its sending went back to (pred): the chain of messages from a member's leaving back to its
 * origin's entry, which the congestion attribution follows when that leaving is on the critical
 * path (rt_replay_result.coll_pred, coll_binds).
 *
 * The schedule needs every member's block before the first member sends, so the counts of the
 * members that have not entered yet are read ahead in the trace (cx_lookahead); under mpirun
 * the other members' events are elsewhere, and their counts come from their processes
 * (coll_counts.c, cx_far_fill).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "engine_internal.h"
#include "grow.h"
#include "map.h"


enum { CX_OUT, CX_IN, CX_DONE }; /* a member: not entered, running, its part done */

#define CX_NONE UINT32_MAX

struct cx_member {
    rt_time_ps clock;     /* its clock at the start of its current round */
    rt_time_ps next;      /* the latest completion of the current round so far */
    uint32_t origin, next_origin;
    uint32_t bind, next_bind; /* the message its clock goes back to (CX_NONE: its own entry) */
    uint32_t next_k;      /* the message whose completion set next (CX_NONE: none, its clock) */
    uint32_t pos, end;    /* its messages still to come: coll_exec.ops[pos..end) */
    uint32_t rstart;      /* its current round's messages: ops[rstart..pos) */
    uint32_t left;        /* messages of the current round not complete */
    uint8_t state;
};

struct cx_msg {
    rt_time_ps ready;     /* the sender's data may leave then (rendezvous: before the handshake) */
    rt_time_ps rclock;    /* its receiver's clock in the round it receives it (once receiver_in) ... */
    uint32_t rorigin, rbind; /* ... and where that clock goes back to (a rendezvous waits for it) */
    rt_time_ps delivered; /* NEVER: not yet */
    uint32_t id;          /* its engine message, UINT32_MAX: not started */
    uint32_t origin;      /* the member whose entry its timing goes back to */
    uint32_t pred;        /* the message its sending went back to (CX_NONE: that entry) */
    uint64_t serial;      /* its number in rt_replay_result.coll_pred (record_contention) */
    uint8_t sender_in, receiver_in, eager, send_done, recv_done;
};

struct coll_exec {
    struct rt__coll_sched sched;
    uint32_t *ops;   /* per member, its messages k << 1 | (1: it receives k), in schedule order */
    uint32_t *first; /* ops of member i: first[i] .. first[i + 1] */
    struct cx_member *mem;
    struct cx_msg *msg;
    uint8_t *told; /* distributed: the processes sent its members' counts (a bit each; rt__cx_tell) */
    /* room: members in first (+ 1) and mem, messages in msg (twice in ops). A schedule's room
     * goes on to the next collective made (E->cx_spare): a collective of P members is P log P
     * messages, hundreds of kilobytes at 512 ranks, allocated and zeroed afresh each time before. */
    size_t cap_p, cap_n;
};

void rt__cx_free(struct coll_exec *x)
{
    if (!x)
        return;
    rt__coll_sched_free(&x->sched);
    free(x->ops);
    free(x->first);
    free(x->mem);
    free(x->msg);
    free(x->told);
    free(x);
}

void rt__cx_release(struct engine *E, struct coll_exec *x)
{
    if (!x)
        return;
    if (E->cx_spare) { /* (one kept: collectives in flight at once on a network are few) */
        rt__cx_free(x);
        return;
    }
    free(x->told);
    x->told = NULL;
    E->cx_spare = x;
}

/* Room for @p n elements of @p size in *@p v (its contents not kept); -1 when out of memory. */
static int cx_room(void **v, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return 0;
    void *nv = malloc(n * size);
    if (!nv)
        return -1;
    free(*v);
    *v = nv;
    *cap = n;
    return 0;
}

int rt__cx_member_done(const struct coll_exec *x, uint32_t i)
{
    return x->mem[i].state == CX_DONE;
}

/* ------------------------------------------------------------------ reading ahead */

/* The event index of the @p seq-th collective (from 0) of trace row @p row on communicator
 * @p comm, or UINT64_MAX when the row has no such event. Each (row, comm) keeps a cursor, so
 * the rows' events are scanned once over the whole replay: a communicator's instances are first
 * entered in order. */
static int cx_cursor(struct engine *E, uint32_t row, uint32_t comm, uint64_t **pos, uint64_t **cnt)
{
    struct rank *R = &E->ranks[row];
    if (R->cx_comm1 == 0)
        R->cx_comm1 = comm + 1;
    if (R->cx_comm1 == comm + 1) {
        *pos = &R->cx_pos;
        *cnt = &R->cx_cnt;
        return 0;
    }
    /* (the second may grow the map: the first is taken again after it) */
    *cnt = rt__map_ref(&E->cx_pos, row, comm, 0) ? rt__map_ref(&E->cx_pos, row, (uint64_t)comm | 1ull << 40, 0) : NULL;
    *pos = *cnt ? rt__map_get(&E->cx_pos, row, comm) : NULL;
    return *pos && *cnt ? 0 : rt__eng_oom(E);
}

static uint64_t cx_find(struct engine *E, uint32_t row, uint32_t comm, uint64_t seq)
{
    uint64_t *pos, *cnt;
    if (cx_cursor(E, row, comm, &pos, &cnt))
        return UINT64_MAX;
    const struct rank *R = &E->ranks[row];
    /* A streamed trace has given back the member's events before R->kept: it started none on comm
     * there since its last own entry (rt__cx_passed moved the position past that one). */
    if (*pos < R->kept)
        *pos = R->kept;
    for (uint64_t k = *pos;; k++) {
        if (k >= R->nev) { /* a streamed trace: the member's events are read on as far as needed */
            if (!R->more || rt__eng_pull(E, row))
                break;
            k--;
            continue;
        }
        const struct rt_event *e = &R->ev[k];
        if (!rt__coll_start(e) || (e->flags & RT_EVF_CANCELLED) ||
            rt__row_payload_of(R->row, k)->comm != comm)
            continue;
        if ((*cnt)++ == seq) {
            *pos = k + 1;
            return k;
        }
    }
    *pos = R->nev;
    return UINT64_MAX;
}

int rt__cx_passed(struct engine *E, uint32_t row, uint32_t comm, uint64_t j, uint64_t seq)
{
    uint64_t *pos, *cnt;
    if (cx_cursor(E, row, comm, &pos, &cnt))
        return E->failed;
    if (*pos <= j) {
        *pos = j + 1;
        *cnt = seq + 1;
    }
    return 0;
}

/* Fills in the counts and events of the members of collective @p c but @p me, the first to enter
 * it, from their own records of it further on in the trace; *@p missing counts the members
 * without one, which will never enter. */
static int cx_lookahead(struct engine *E, struct coll *c, uint32_t me, uint32_t *missing)
{
    *missing = 0;
    for (uint32_t i = 0; i < c->size; i++) {
        if (i == me)
            continue;
        uint32_t row = member_row(E, c, i);
        uint64_t k = row < E->nranks ? cx_find(E, row, c->comm, c->seq) : UINT64_MAX;
        if (E->failed)
            return E->failed;
        if (k == UINT64_MAX) {
            ++*missing;
            continue;
        }
        const struct rank *R = &E->ranks[row];
        c->ev[i] = k;
        c->mem[i].sent = rt__row_payload_of(R->row, k)->bytes;
        c->mem[i].recv = rt__eng_coll_received(R, k);
        c->mem[i].in_place = (R->ev[k].flags & RT_EVF_IN_PLACE) != 0;
        c->mem[i].mentry = (rt_time_ns)R->ev[k].time;
        if (E->o->scale)
            c->mem[i].scale = rt__eng_factor(E, row, k, c->comm);
        if (R->ev[k].flags & RT_EVF_VECTOR)
            c->vector = 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ distributed: every member's counts */

/* cx_lookahead under mpirun: every member but @p me (UINT32_MAX: none) from its process's counts
 * (coll_counts.c), which are here before anything needs the schedule. */
static void cx_far_fill(struct engine *E, struct coll *c, uint32_t me, uint32_t *missing)
{
    *missing = 0;
    for (uint32_t i = 0; i < c->size; i++) {
        struct rt__cx_count k;
        if (i == me)
            continue;
        if (!rt__cxc_get(E, c->comm, i, member_row(E, c, i), c->seq, &k) || (k.how & RT__CALL_NONE)) {
            ++*missing;
            continue;
        }
        c->ev[i] = k.ev;
        c->mem[i].sent = k.sent;
        c->mem[i].recv = k.recv;
        c->mem[i].in_place = (k.how & RT__CALL_IN_PLACE) != 0;
        c->mem[i].mentry = k.mentry;
        if (E->o->scale)
            c->mem[i].scale = k.scale;
        if (k.how & RT__CALL_VECTOR)
            c->vector = 1;
    }
}

int rt__cx_tell(struct engine *E, uint32_t cid, uint32_t proc)
{
    const struct coll *c = &E->colls[cid];
    struct coll_exec *x = c->cx;
    if (proc == E->part->me)
        return RT_OK;
    if (!x->told && !(x->told = calloc(E->part->nprocs / 8 + 1, 1)))
        return rt__eng_oom(E);
    if (x->told[proc / 8] & (1u << proc % 8))
        return RT_OK;
    x->told[proc / 8] |= (uint8_t)(1u << proc % 8);
    for (uint32_t i = 0; i < c->size; i++) {
        uint32_t row = member_row(E, c, i);
        if (owner_of(E, row) == proc) /* (its own it reads from its events) */
            continue;
        const struct rt__coll_member *m = &c->mem[i];
        struct rt__cx_count k = {.ev = c->ev[i], .sent = m->sent, .recv = m->recv, .scale = m->scale,
                                 .mentry = m->mentry, .row = row, .op = c->op, .root = c->root,
                                 .how = (c->vector ? RT__CALL_VECTOR : 0) | (m->in_place ? RT__CALL_IN_PLACE : 0)};
        if (rt__cxc_send(E, proc, c->comm, c->seq, i, &k))
            return E->failed;
    }
    return RT_OK;
}

/* ------------------------------------------------------------------ set-up */

/* The schedule of collective @p id, made when its first member @p me enters. */
static int cx_create(struct engine *E, uint32_t id, uint32_t me)
{
    struct coll *c = &E->colls[id];
    uint32_t P = c->size, missing;
    if (E->cxfar) {
        cx_far_fill(E, c, me, &missing);
        rt__cxc_consumed(E, c->comm, c->seq);
    } else if (cx_lookahead(E, c, me, &missing)) {
        return E->failed;
    }
    /* A member that never enters leaves the collective unfinished for everyone, and the replay's
     * diagnosis says who waits for whom. Its counts are unknown: unless they do not matter (a
     * barrier's), no schedule is made, and the others wait at their entry. */
    if (missing && c->op != RT_COLL_BARRIER) {
        c->cx_none = 1;
        return 0;
    }
    if (rt__eng_coll_blocks(E, id))
        return E->failed;
    /* the measured binders: every member's measured entry is known now (whoever enters first) */
    rt__coll_measured_binders((int)c->op, c->size, c->root_rank, c->mem);
    c->mbind_all = 1;
    struct coll_exec *x = E->cx_spare;
    E->cx_spare = NULL;
    if (!x && !(x = calloc(1, sizeof *x)))
        return rt__eng_oom(E);
    c->cx = x;
    uint32_t op = c->op <= RT_COLL_OTHER ? c->op : RT_COLL_OTHER;
    struct rt_coll_plan plan;
    rt__coll_plan_of(E->o->coll_rules, E->o->coll_algo, (int)op, c->vector, P, c->mem, &plan);
    if (rt__coll_schedule(&plan, P, c->root_rank, c->mem, &x->sched))
        return rt__eng_oom(E);
    size_t n = x->sched.n;
    if (n > UINT32_MAX / 2)
        return E->failed = rt_error_set(E->err, RT_EUNSUPPORTED, "%s: a collective of %zu messages on comm %u",
                                        rt_trace_path(E->t), n, c->comm);
    size_t cp = x->cap_p, cn = x->cap_n; /* (the two arrays of each room grow together) */
    if (cx_room((void **)&x->first, &cp, (size_t)P + 1, sizeof *x->first) ||
        cx_room((void **)&x->mem, &x->cap_p, (size_t)P + 1, sizeof *x->mem) ||
        cx_room((void **)&x->ops, &cn, n ? n : 1, 2 * sizeof *x->ops) ||
        cx_room((void **)&x->msg, &x->cap_n, n ? n : 1, sizeof *x->msg))
        return rt__eng_oom(E);
    memset(x->first, 0, ((size_t)P + 1) * sizeof *x->first);
    memset(x->mem, 0, (size_t)P * sizeof *x->mem);
    for (size_t k = 0; k < n; k++) { /* counting sort by member: each member's messages in order */
        x->first[x->sched.v[k].a + 1]++;
        x->first[x->sched.v[k].b + 1]++;
    }
    for (uint32_t i = 0; i < P; i++)
        x->first[i + 1] += x->first[i];
    for (uint32_t i = 0; i < P; i++)
        x->mem[i].pos = x->mem[i].end = x->first[i];
    for (size_t k = 0; k < n; k++) {
        const struct rt__coll_msg *s = &x->sched.v[k];
        x->ops[x->mem[s->a].end++] = (uint32_t)k << 1;
        x->ops[x->mem[s->b].end++] = (uint32_t)k << 1 | 1;
        x->msg[k] = (struct cx_msg){.delivered = NEVER, .id = UINT32_MAX, .eager = s->m <= E->o->eager_limit};
    }
    return 0;
}

/* ------------------------------------------------------------------ running */

/* Numbers message @p k as it starts (rt_replay_result.coll_pred) with the number of the message
 * its sending went back to; RT_OK or the engine's out-of-memory failure. */
static int cx_number(struct engine *E, struct coll_exec *x, uint32_t k)
{
    struct rt_replay_result *res = E->res;
    if (rt__grow_one64((void **)&res->coll_pred, &E->capcpred, sizeof *res->coll_pred, res->ncoll_msgs))
        return rt__eng_oom(E);
    struct cx_msg *q = &x->msg[k];
    q->serial = res->ncoll_msgs;
    res->coll_pred[res->ncoll_msgs++] = q->pred == CX_NONE ? UINT64_MAX : x->msg[q->pred].serial;
    return RT_OK;
}

uint64_t rt__cx_serial(const struct coll_exec *x, uint32_t k)
{
    return x->msg[k].serial;
}

uint64_t rt__cx_member_bind(struct engine *E, uint32_t cid, uint32_t i)
{
    const struct coll *c = &E->colls[cid];
    uint32_t b = c->cx->mem[i].bind;
    if (b == CX_NONE)
        return UINT64_MAX;
    /* under mpirun the message may have been numbered on its sender's process: named instead */
    return E->part ? rt__eng_coll_name(E, coll_instance(c), b) : c->cx->msg[b].serial;
}

uint32_t rt__cx_pred(const struct coll_exec *x, uint32_t k)
{
    return x->msg[k].pred;
}

static int cx_round(struct engine *E, uint32_t cid, uint32_t i);

/* Hands message @p k to the engine at the time its data may leave: an eager one at its
 * sender's ready time, a rendezvous one once its receiver is in its round too. */
static int cx_launch(struct engine *E, uint32_t cid, uint32_t k)
{
    struct coll *c = &E->colls[cid];
    struct coll_exec *x = c->cx;
    struct cx_msg *q = &x->msg[k];
    const struct rt__coll_msg *s = &x->sched.v[k];
    if (q->id != UINT32_MAX || !q->sender_in || (!q->eager && !q->receiver_in))
        return 0;
    uint32_t id = msg_new(E);
    if (id == UINT32_MAX)
        return E->failed;
    if (E->part) /* (its members here may all leave before its flow starts, when its receiver is elsewhere) */
        c->refs++;
    struct msg *m = &E->msgs[id];
    memset(m, 0, sizeof *m);
    uint32_t a = member_row(E, c, s->a), b = member_row(E, c, s->b);
    m->src = a;
    m->dst = b;
    m->bytes = s->m;
    m->comm = cid;   /* the engine's collective, for its noise key and the callbacks */
    m->n = (uint32_t)k; /* its place in the schedule */
    m->send_ev = c->ev[s->a];
    m->refs = 1;
    m->flags = M_COLL | M_SEND | M_RECV | M_SCHED | (q->eager ? 0 : M_RDV);
    q->id = id;
    rt_time_ps at = q->ready;
    if (!q->eager) {
        /* the handshake waits for the receiver's round; its entry is then where the time goes
         * back to when it came later (rt__coll_run's message) */
        if (q->rclock > at) {
            q->origin = q->rorigin;
            q->pred = q->rbind;
        }
        at = (q->rclock > at ? q->rclock : at) + rt__eng_times(E, s->m)->handshake;
    }
    if (E->o->record_contention && !E->part && cx_number(E, x, k)) /* (under mpirun: rt__eng_coll_name) */
        return E->failed;
    m->origin_rank = member_row(E, c, q->origin);
    m->origin_ev = c->ev[q->origin];
    m->send_post = at;
    return push(E, at, q->eager ? Q_READY : Q_RDV, id, MSG_QKEY(m));
}

/* Member @p i's message @p k of its current round is complete at @p t, its time going back to
 * member @p origin's entry through message @p bind (CX_NONE: through no message). Of completions
 * at the same time the one of the lower message goes on (the member's own clock before any), not
 * the one the replay happened to take first: the processes of a distributed replay take entries
 * of one time that do not bear on each other in other orders (docs/distributed.md). */
static int cx_complete(struct engine *E, uint32_t cid, uint32_t i, uint32_t k, rt_time_ps t, uint32_t origin,
                       uint32_t bind)
{
    struct cx_member *M = &E->colls[cid].cx->mem[i];
    if (t > M->next || (t == M->next && M->next_k != CX_NONE && k < M->next_k)) {
        M->next = t;
        M->next_origin = origin;
        M->next_bind = bind;
        M->next_k = k;
    }
    if (--M->left)
        return 0;
    M->clock = M->next;
    M->origin = M->next_origin;
    M->bind = M->next_bind;
    return cx_round(E, cid, i);
}

/* The receive of message @p k by its receiver, once both the data and the receiver are there. */
static int cx_receive(struct engine *E, uint32_t cid, uint32_t k)
{
    struct coll *c = &E->colls[cid];
    struct coll_exec *x = c->cx;
    struct cx_msg *q = &x->msg[k];
    const struct rt__coll_msg *s = &x->sched.v[k];
    if (q->recv_done || q->delivered == NEVER || !q->receiver_in)
        return 0;
    q->recv_done = 1;
    const struct cx_member *B = &x->mem[s->b];
    rt_time_ps from = B->clock > q->delivered ? B->clock : q->delivered;
    rt_time_ps done = rt__eng_cpu(E, member_row(E, c, s->b), from, rt__eng_times(E, s->m)->o_recv);
    int own = B->clock >= q->delivered; /* the receiver was later than the data */
    return cx_complete(E, cid, s->b, k, done, own ? B->origin : q->origin, own ? B->bind : k);
}

/* Member @p i starts its next round at its clock, or its part is done. */
static int cx_round(struct engine *E, uint32_t cid, uint32_t i)
{
    struct coll *c = &E->colls[cid];
    struct coll_exec *x = c->cx;
    struct cx_member *M = &x->mem[i];
    uint32_t row = member_row(E, c, i);
    if (M->pos == M->end) { /* its part is done: it leaves the collective */
        M->state = CX_DONE;
        c->mem[i].done = M->clock;
        c->mem[i].origin = M->origin;
        if (E->part) { /* (its collectives in flight: rt__cx_bound) */
            struct rank *R = &E->ranks[row];
            for (uint32_t j = 0; j < R->ncx; j++)
                if (R->cxs[j] == ((uint64_t)i << 32 | cid)) {
                    R->cxs[j] = R->cxs[--R->ncx];
                    break;
                }
        }
        if (++c->dones == (E->part ? c->own : c->size)) /* (the members replayed here) */
            c->complete = 1;
        return wake(E, row, M->clock);
    }
    uint32_t round = x->sched.v[x->ops[M->pos] >> 1].round, end = M->pos;
    while (end < M->end && x->sched.v[x->ops[end] >> 1].round == round)
        end++;
    M->next = M->clock;
    M->next_origin = M->origin;
    M->next_bind = M->bind;
    M->next_k = CX_NONE;
    M->left = end - M->pos;
    uint32_t from = M->pos;
    M->rstart = from;
    M->pos = end;
    /* its sends first, as rt__coll_run asks its CPU for them before its receives, each posted
     * after the one before */
    rt_time_ps post = M->clock;
    for (uint32_t p = from; p < end; p++) {
        uint32_t k = x->ops[p] >> 1;
        if (x->ops[p] & 1)
            continue;
        struct cx_msg *q = &x->msg[k];
        q->ready = post = rt__eng_cpu(E, row, post, rt__eng_times(E, x->sched.v[k].m)->o_send);
        q->origin = M->origin;
        q->pred = M->bind;
        q->sender_in = 1;
        if (cx_launch(E, cid, k))
            return E->failed;
    }
    for (uint32_t p = from; p < end; p++) {
        uint32_t k = x->ops[p] >> 1;
        if (!(x->ops[p] & 1))
            continue;
        struct cx_msg *q = &x->msg[k];
        q->receiver_in = 1;
        q->rclock = M->clock;
        q->rorigin = M->origin;
        q->rbind = M->bind;
        /* (an eager message left with its sender: only a rendezvous one waits for its receiver,
         * whose round is sent to the sender's process when that is another) */
        if (!q->eager && !owned(E, member_row(E, c, x->sched.v[k].a))) {
            struct fx f = {.kind = FX_CXRECV, .comm = c->comm, .n = c->seq, .tag = k, .t1 = M->clock,
                           .i = M->origin, .id = M->bind};
            uint32_t arow = member_row(E, c, x->sched.v[k].a);
            if (rt__cx_tell(E, cid, owner_of(E, arow)))
                return E->failed;
            if (rt__eng_fx_send(E, arow, &f))
                return rt__eng_oom(E);
        } else if (!q->eager && cx_launch(E, cid, k)) {
            return E->failed;
        }
        if (cx_receive(E, cid, k))
            return E->failed;
    }
    return 0;
}

int rt__cx_enter(struct engine *E, uint32_t cid, uint32_t me)
{
    struct coll *c = &E->colls[cid];
    if (c->cx_none)
        return 0;
    if (!c->cx) {
        int rc = cx_create(E, cid, me);
        if (rc || c->cx_none)
            return rc;
    }
    struct cx_member *M = &c->cx->mem[me];
    M->state = CX_IN;
    if (E->part) {
        struct rank *R = &E->ranks[member_row(E, c, me)];
        if (rt__grow((void **)&R->cxs, &R->capcx, sizeof *R->cxs, R->ncx + 1))
            return rt__eng_oom(E);
        R->cxs[R->ncx++] = (uint64_t)me << 32 | cid;
    }
    M->clock = c->mem[me].begin;
    M->origin = me;
    M->bind = CX_NONE;
    return cx_round(E, cid, me);
}

int rt__cx_sent(struct engine *E, uint32_t id, rt_time_ps t)
{
    const struct msg *m = &E->msgs[id];
    uint32_t cid = m->comm, k = m->n;
    struct coll_exec *x = E->colls[cid].cx;
    x->msg[k].send_done = 1; /* eager: its sender's own time, as it was when it sent */
    return cx_complete(E, cid, x->sched.v[k].a, k, t, x->msg[k].origin, x->msg[k].pred);
}

int rt__cx_arrived(struct engine *E, uint32_t id, rt_time_ps t)
{
    struct msg *m = &E->msgs[id];
    uint32_t cid = m->comm, k = m->n;
    struct coll_exec *x = E->colls[cid].cx;
    int rdv = (m->flags & M_RDV) != 0;
    msg_release(E, id);
    x->msg[k].delivered = t;
    x->msg[k].send_done |= rdv;
    uint32_t a = x->sched.v[k].a, arow = member_row(E, &E->colls[cid], a);
    if (rdv && !owned(E, arow)) { /* the sender waited for it on another process */
        const struct coll *c = &E->colls[cid];
        struct fx f = {.kind = FX_CXDONE, .comm = c->comm, .n = c->seq, .tag = k, .t1 = t};
        if (rt__eng_fx_send(E, arow, &f))
            return rt__eng_oom(E);
    } else if (rdv && cx_complete(E, cid, a, k, t, x->msg[k].origin, k)) { /* the sender waited for it */
        return E->failed;
    }
    if (cx_receive(E, cid, k))
        return E->failed;
    if (E->part && owned(E, arow)) /* the hold cx_launch took */
        rt__eng_coll_unref(E, cid);
    return 0;
}

uint32_t rt__cx_origin(const struct coll_exec *x, uint32_t k)
{
    return x->msg[k].origin;
}

rt_time_ps rt__cx_bound(const struct engine *E, uint32_t row, rt_time_ps arrive)
{
    const struct rank *R = &E->ranks[row];
    rt_time_ps b = INT64_MAX;
    for (uint32_t j = 0; j < R->ncx; j++) {
        const struct coll_exec *x = E->colls[(uint32_t)R->cxs[j]].cx;
        const struct cx_member *M = &x->mem[R->cxs[j] >> 32];
        /* its round ends when the last of its messages completes: no earlier than any one of
         * those not complete (a receive at its arrival, a send at its start or later); a
         * rendezvous send not started waits for its receiver's round, which is not bounded */
        rt_time_ps end = INT64_MIN;
        for (uint32_t p = M->rstart; p < M->pos; p++) {
            const struct cx_msg *q = &x->msg[x->ops[p] >> 1];
            if (x->ops[p] & 1) {
                if (!q->recv_done)
                    end = end > arrive ? end : arrive;
            } else if (q->id == UINT32_MAX) {
                return INT64_MIN;
            } else if (!q->send_done) {
                end = end > q->ready ? end : q->ready;
            }
        }
        b = end < b ? end : b;
    }
    return b;
}

/* ------------------------------------------------------------------ distributed: records */

/* Instance @p seq on @p comm, with its schedule, into *@p cid: made on first sight when one of its
 * messages or receivers' rounds reaches a member here before any member here entered it; @p i a
 * member replayed here. RT_ECORRUPT (0 with *@p cid UINT32_MAX) when nothing here knows it. */
static int cx_instance(struct engine *E, uint32_t comm, uint64_t seq, uint32_t i, uint32_t *cid)
{
    uint64_t *v = rt__map_get(&E->coll_of, comm, seq);
    *cid = UINT32_MAX;
    if (v) {
        *cid = (uint32_t)*v;
    } else {
        const struct rt_comm *cm = rt_trace_comm(E->t, comm);
        struct rt__cx_count k;
        if (!cm || !cm->members || i >= cm->size || !rt__cxc_get(E, comm, i, cm->members[i], seq, &k) ||
            (k.how & RT__CALL_NONE))
            return 0;
        if (rt__eng_coll_record(E, comm, seq, k.op, k.root, k.row, k.ev, cid))
            return E->failed;
    }
    struct coll *c = &E->colls[*cid];
    if (!c->cx && !c->cx_none && cx_create(E, *cid, UINT32_MAX))
        return E->failed;
    if (!c->cx) /* (no schedule: no member sends) */
        *cid = UINT32_MAX;
    return 0;
}

static int bad_record(struct engine *E, uint32_t from, const struct fx *f)
{
    return E->failed = rt_error_set(E->err, RT_ECORRUPT,
                                    "%s: distributed replay: process %u sent a bad record of a collective (kind %u)",
                                    rt_trace_path(E->t), from, f->kind);
}

int rt__cx_apply(struct engine *E, uint32_t from, const struct fx *f)
{
    if (!E->cxfar || f->comm >= rt_trace_comms(E->t))
        return bad_record(E, from, f);
    uint64_t *v = rt__map_get(&E->coll_of, f->comm, f->n);
    uint32_t cid = v ? (uint32_t)*v : UINT32_MAX;
    if (f->kind == FX_CXRECV && cid == UINT32_MAX) { /* before its sender here entered it */
        const struct rt_comm *cm = rt_trace_comm(E->t, f->comm);
        for (uint32_t i = 0; cm && cm->members && i < cm->size && cid == UINT32_MAX; i++)
            if (cm->members[i] < E->nranks && owned(E, cm->members[i]) && cx_instance(E, f->comm, f->n, i, &cid))
                return E->failed;
    } else if (cid != UINT32_MAX && !E->colls[cid].cx && cx_instance(E, f->comm, f->n, 0, &cid)) {
        return E->failed;
    }
    struct coll_exec *x = cid == UINT32_MAX ? NULL : E->colls[cid].cx;
    if (!x || f->tag >= x->sched.n || !owned(E, member_row(E, &E->colls[cid], x->sched.v[f->tag].a)))
        return bad_record(E, from, f);
    uint32_t k = f->tag;
    struct cx_msg *q = &x->msg[k];
    if (f->kind == FX_CXDONE) {
        q->send_done = 1;
        return cx_complete(E, cid, x->sched.v[k].a, k, f->t1, q->origin, k);
    }
    q->receiver_in = 1;
    q->rclock = f->t1;
    q->rorigin = f->i;
    q->rbind = (uint32_t)f->id;
    return cx_launch(E, cid, k);
}

int rt__cx_far_arrives(struct engine *E, const struct fx *f, rt_time_ps t)
{
    uint32_t cid, b = rt__eng_comm_rank(E, f->comm, f->dst);
    if (E->failed || b == RT_NONE || cx_instance(E, f->comm, f->ev1, b, &cid))
        return E->failed ? E->failed : bad_record(E, E->part->me, f);
    struct coll *c = cid == UINT32_MAX ? NULL : &E->colls[cid];
    struct coll_exec *x = c ? c->cx : NULL;
    uint32_t k = (uint32_t)f->n;
    if (!x || f->n >= x->sched.n || x->sched.v[k].b != b || member_row(E, c, x->sched.v[k].a) != f->src)
        return bad_record(E, E->part->me, f);
    x->msg[k].origin = (uint32_t)f->ev2;
    uint32_t id = msg_new(E);
    if (id == UINT32_MAX)
        return E->failed;
    c = &E->colls[cid];
    struct msg *m = &E->msgs[id];
    memset(m, 0, sizeof *m);
    m->src = f->src;
    m->dst = f->dst;
    m->bytes = f->bytes;
    m->comm = cid;
    m->n = k;
    m->send_ev = c->ev[x->sched.v[k].a];
    m->refs = 1;
    m->flags = M_COLL | M_SEND | M_RECV | M_SCHED | (f->flags & (M_RDV | M_BURST));
    m->origin_rank = member_row(E, c, x->msg[k].origin);
    m->origin_ev = c->ev[x->msg[k].origin];
    return push(E, t, Q_ARRIVE, id, MSG_QKEY(m));
}

void rt__cx_describe_wait(const struct engine *E, uint32_t cid, uint32_t i, char *buf, size_t n)
{
    const struct coll *c = &E->colls[cid];
    const struct coll_exec *x = c->cx;
    const struct cx_member *M = &x->mem[i];
    if (M->state != CX_IN)
        return;
    for (uint32_t p = M->rstart; p < M->pos; p++) {
        uint32_t k = x->ops[p] >> 1;
        const struct cx_msg *q = &x->msg[k];
        const struct rt__coll_msg *s = &x->sched.v[k];
        int recv = x->ops[p] & 1;
        if (recv ? q->recv_done : q->send_done)
            continue;
        uint32_t peer = recv ? s->a : s->b, row = member_row(E, c, peer);
        size_t len = strlen(buf);
        snprintf(buf + len, len < n ? n - len : 0,
                 "; in round %u of %u of its %s (%s), it waits to %s rank %u (%llu bytes), which %s", s->round + 1,
                 x->sched.rounds, rt_coll_op_name((int)c->op), rt_coll_algo_name(x->sched.algo),
                 recv ? "receive from" : "send to", rt_trace_rank_label(E->t, row), (unsigned long long)s->m,
                 x->mem[peer].state == CX_OUT ? "never enters it" : "is in another round of it");
        return;
    }
}
