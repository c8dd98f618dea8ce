/* SPDX-License-Identifier: MIT */
/*
 * Distributed, on a network: every member's counts of a collective instance, where the schedule
 * is made (issue #50, item 4; docs/distributed.md).
 *
 * A collective's schedule (coll_exec.c) needs every member's counts before its first member
 * sends, and under mpirun the events of the members on other processes are not here. They come
 * on demand instead of all at once, so that no process holds every collective call of the trace:
 *
 *  - each process indexes its own ranks' collective calls (8 bytes a call) and reads a call's
 *    counts from its events when they are asked for;
 *  - a rank that is about to enter an instance whose schedule is not made here and whose counts
 *    are not all here stops before the MPI call (rt__cxc_wait: the engine queues it again at its
 *    clock and puts that entry off, engine_remote.c) and asks the processes of the missing members
 *    (FX_CCREQ) for this instance and the next CXC_AHEAD ones of the communicator, so that a
 *    phase of collectives costs one request, not one each;
 *  - a process that sends a message of an instance to a member on another process first sends
 *    it the counts of that instance (rt__cx_tell, coll_exec.c), so that a message or a
 *    receiver's round never reaches a process that cannot make the schedule;
 *  - counts that arrive stay until the instance's schedule is made here (rt__cxc_consumed).
 *
 * What is held is then the instances asked for and not made yet: O(CXC_AHEAD x members on other
 * processes) per communicator, not O(every call). The results cannot change: the counts are the
 * same numbers, read from the same events, whichever way they come, and a rank that stops before
 * its call resumes at the same clock with the same events before it already replayed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "grow.h"
#include "map.h"

/* Instances asked for at once beyond the one needed (rt_replay_part.counts_ahead's default):
 * enough that a loop of collectives stops for its counts once in CXC_AHEAD calls, few enough
 * that the counts held stay small. */
#define CXC_AHEAD 64
#define CXC_AHEAD_MAX 4096 /* (a request for more is refused as not ours) */

/* A rank's calls on one communicator: the event of each instance, in order. */
struct own_calls {
    uint64_t *ev;
    uint64_t n, cap;
};

struct cx_far {
    struct rt__map at;   /* (comm | member << 32, instance) -> index in v: counts from other processes */
    struct rt__cx_count *v;
    uint32_t n, cap;
    uint32_t *freed;     /* slots of v given back, for reuse */
    uint32_t nfreed, capfreed;
    struct rt__map asked; /* (comm, instance) -> 1: asked for, its schedule not made yet */
    struct rt__map own;  /* (row here, comm) -> index in calls */
    struct own_calls *calls;
    uint32_t ncalls, capcalls;
    uint8_t *to;         /* per process: scratch for the processes to ask */
};

int rt__cxc_setup(struct engine *E)
{
    struct cx_far *F = calloc(1, sizeof *F);
    if (!F || !(F->to = calloc(E->part->nprocs ? E->part->nprocs : 1, 1))) {
        free(F);
        return rt__eng_oom(E);
    }
    E->cxfar = F;
    rt__map_init(&F->at);
    rt__map_init(&F->asked);
    rt__map_init(&F->own);
    for (uint32_t r = E->lo; r < E->hi; r++) {
        const struct rank *R = &E->ranks[r];
        for (uint64_t j = 0; j < R->nev; j++) {
            const struct rt_event *e = &R->ev[j];
            if (!rt__coll_start(e) || (e->flags & RT_EVF_CANCELLED)) /* (as the replay numbers them) */
                continue;
            uint32_t comm = rt__row_payload_of(R->row, j)->comm;
            uint64_t *k = rt__map_ref(&F->own, r, comm, UINT64_MAX);
            if (!k)
                return rt__eng_oom(E);
            if (*k == UINT64_MAX) {
                if (rt__grow((void **)&F->calls, &F->capcalls, sizeof *F->calls, F->ncalls + 1))
                    return rt__eng_oom(E);
                F->calls[F->ncalls] = (struct own_calls){0};
                *k = F->ncalls++;
            }
            struct own_calls *o = &F->calls[*k];
            if (rt__grow_one64((void **)&o->ev, &o->cap, sizeof *o->ev, o->n))
                return rt__eng_oom(E);
            o->ev[o->n++] = j;
        }
    }
    return RT_OK;
}

void rt__cxc_free(struct engine *E)
{
    struct cx_far *F = E->cxfar;
    if (!F)
        return;
    for (uint32_t i = 0; i < F->ncalls; i++)
        free(F->calls[i].ev);
    free(F->calls);
    rt__map_free(&F->own);
    rt__map_free(&F->at);
    rt__map_free(&F->asked);
    free(F->v);
    free(F->freed);
    free(F->to);
    free(F);
    E->cxfar = NULL;
}

/* The counts of rank @p row here in instance @p seq on @p comm, from its events; RT__CALL_NONE in
 * how when it makes fewer calls. */
static void own_count(struct engine *E, uint32_t row, uint32_t comm, uint64_t seq, struct rt__cx_count *k)
{
    const struct cx_far *F = E->cxfar;
    const uint64_t *i = rt__map_get(&F->own, row, comm);
    *k = (struct rt__cx_count){.row = row, .how = RT__CALL_NONE, .scale = 1};
    if (!i || seq >= F->calls[*i].n)
        return;
    const struct rank *R = &E->ranks[row];
    uint64_t j = F->calls[*i].ev[seq];
    const struct rt_event *e = &R->ev[j];
    k->ev = j;
    k->sent = rt__row_payload_of(R->row, j)->bytes;
    k->recv = rt__eng_coll_received(R, j);
    if (E->o->scale)
        k->scale = rt__eng_factor(E, row, j, comm);
    k->mentry = (rt_time_ns)e->time;
    k->op = rt__coll_op_at(R->ev, R->avail, j);
    k->root = e->ref;
    k->how = ((e->flags & RT_EVF_VECTOR) ? RT__CALL_VECTOR : 0) | ((e->flags & RT_EVF_IN_PLACE) ? RT__CALL_IN_PLACE : 0);
}

int rt__cxc_get(struct engine *E, uint32_t comm, uint32_t i, uint32_t row, uint64_t seq, struct rt__cx_count *k)
{
    if (owned(E, row)) {
        own_count(E, row, comm, seq, k);
        return 1;
    }
    const uint64_t *v = rt__map_get(&E->cxfar->at, (uint64_t)comm | (uint64_t)i << 32, seq);
    if (!v)
        return 0;
    *k = E->cxfar->v[*v];
    return 1;
}

int rt__cxc_send(struct engine *E, uint32_t proc, uint32_t comm, uint64_t seq, uint32_t i,
                 const struct rt__cx_count *k)
{
    struct fx f = {.kind = FX_CCOUNT, .comm = comm, .n = seq, .i = i, .src = k->row, .ev1 = k->ev, .tag = k->op,
                   .dst = k->root, .flags = k->how, .bytes = k->sent, .ev2 = k->recv, .t2 = (rt_time_ps)k->mentry};
    memcpy(&f.id, &k->scale, sizeof k->scale);
    return rt__eng_fx_send_proc(E, proc, &f) ? rt__eng_oom(E) : RT_OK;
}

/* Whether instance @p seq on @p comm has its schedule here (or knows it has none). */
static int made_here(const struct engine *E, uint32_t comm, uint64_t seq)
{
    const uint64_t *v = rt__map_get(&E->coll_of, comm, seq);
    return v && (E->colls[*v].cx || E->colls[*v].cx_none);
}

int rt__cxc_put(struct engine *E, uint32_t from, const struct fx *f)
{
    struct cx_far *F = E->cxfar;
    const struct rt_comm *cm = rt_trace_comm(E->t, f->comm);
    if (!cm || !cm->members || f->i >= cm->size || cm->members[f->i] != f->src || f->src >= E->nranks ||
        owned(E, f->src) || (f->flags & ~(uint32_t)(RT__CALL_VECTOR | RT__CALL_IN_PLACE | RT__CALL_NONE)))
        return E->failed = rt_error_set(E->err, RT_ECORRUPT,
                                        "%s: distributed replay: process %u sent bad counts of a collective",
                                        rt_trace_path(E->t), from);
    uint64_t key = (uint64_t)f->comm | (uint64_t)f->i << 32;
    if (made_here(E, f->comm, f->n) || rt__map_get(&F->at, key, f->n)) /* (told twice: kept once) */
        return RT_OK;
    uint32_t slot = F->nfreed ? F->freed[--F->nfreed] : F->n;
    if (slot == F->n && rt__grow((void **)&F->v, &F->cap, sizeof *F->v, F->n + 1))
        return rt__eng_oom(E);
    if (rt__map_put(&F->at, key, f->n, slot))
        return rt__eng_oom(E);
    F->n += slot == F->n;
    struct rt__cx_count *k = &F->v[slot];
    *k = (struct rt__cx_count){.ev = f->ev1, .sent = f->bytes, .recv = f->ev2, .mentry = (rt_time_ns)f->t2,
                               .row = f->src, .op = f->tag, .root = f->dst, .how = f->flags};
    memcpy(&k->scale, &f->id, sizeof k->scale);
    return RT_OK;
}

int rt__cxc_answer(struct engine *E, uint32_t from, const struct fx *f)
{
    const struct rt_comm *cm = rt_trace_comm(E->t, f->comm);
    if (!cm || !cm->members || f->i == 0 || f->i > CXC_AHEAD_MAX || from == E->part->me)
        return E->failed = rt_error_set(E->err, RT_ECORRUPT,
                                        "%s: distributed replay: process %u sent a bad request for counts",
                                        rt_trace_path(E->t), from);
    for (uint32_t i = 0; i < cm->size; i++) {
        uint32_t row = cm->members[i];
        if (row >= E->nranks || !owned(E, row))
            continue;
        for (uint64_t s = f->n; s < f->n + f->i; s++) {
            struct rt__cx_count k;
            own_count(E, row, f->comm, s, &k);
            if ((k.how & RT__CALL_NONE) && s > f->n) /* (past its last call: only the one needed) */
                break;
            if (rt__cxc_send(E, from, f->comm, s, i, &k))
                return E->failed;
            if (k.how & RT__CALL_NONE)
                break;
        }
    }
    return E->failed;
}

/* 1 when instance @p seq on @p comm has no schedule here and some member's counts are missing,
 * after asking for them once; 0 when nothing is missing. */
static int wait_one(struct engine *E, uint32_t comm, uint64_t seq)
{
    struct cx_far *F = E->cxfar;
    const struct rt_comm *cm = rt_trace_comm(E->t, comm);
    if (!cm || !cm->members || made_here(E, comm, seq)) /* (the replay reports what is wrong) */
        return 0;
    int missing = 0;
    memset(F->to, 0, E->part->nprocs);
    for (uint32_t i = 0; i < cm->size; i++) {
        uint32_t row = cm->members[i];
        if (row >= E->nranks || owned(E, row) || rt__map_get(&F->at, (uint64_t)comm | (uint64_t)i << 32, seq))
            continue;
        missing = 1;
        F->to[owner_of(E, row)] = 1;
    }
    if (!missing || rt__map_get(&F->asked, comm, seq))
        return missing;
    if (rt__map_put(&F->asked, comm, seq, 1))
        return rt__eng_oom(E), -1;
    uint32_t ahead = E->part->counts_ahead ? E->part->counts_ahead : CXC_AHEAD;
    struct fx f = {.kind = FX_CCREQ, .comm = comm, .n = seq, .i = (ahead < CXC_AHEAD_MAX ? ahead : CXC_AHEAD_MAX - 1) + 1};
    for (uint32_t p = 0; p < E->part->nprocs; p++)
        if (F->to[p] && rt__eng_fx_send_proc(E, p, &f))
            return rt__eng_oom(E), -1;
    return 1;
}

int rt__cxc_wait(struct engine *E, uint32_t r, uint64_t j)
{
    const struct rank *R = &E->ranks[r];
    const struct rt_event *e = &R->ev[j];
    uint64_t end = j + 1;
    if (e->kind == RT_EV_ENTER) { /* the operations of the MPI call entered at j */
        int depth = 1;
        for (; end < R->nev && depth > 0; end++)
            if (R->ev[end].flags & RT_EVF_MPI)
                depth += R->ev[end].kind == RT_EV_ENTER ? 1 : R->ev[end].kind == RT_EV_LEAVE ? -1 : 0;
    }
    int wait = 0;
    for (uint64_t k = j; k < end; k++) {
        const struct rt_event *c = &R->ev[k];
        if (!rt__coll_start(c) || (c->flags & RT_EVF_CANCELLED))
            continue;
        uint32_t comm = rt__row_payload_of(R->row, k)->comm;
        const uint64_t *next = rt__map_get(&E->coll_seq, r, comm);
        uint64_t seq = next ? *next : 0;
        for (uint64_t p = j; p < k; p++) /* (a call that starts two on one communicator) */
            seq += rt__coll_start(&R->ev[p]) && !(R->ev[p].flags & RT_EVF_CANCELLED) &&
                   rt__row_payload_of(R->row, p)->comm == comm;
        int w = wait_one(E, comm, seq);
        if (w < 0)
            return -1;
        wait |= w;
    }
    return wait;
}

void rt__cxc_consumed(struct engine *E, uint32_t comm, uint64_t seq)
{
    struct cx_far *F = E->cxfar;
    const struct rt_comm *cm = rt_trace_comm(E->t, comm);
    rt__map_del(&F->asked, comm, seq);
    for (uint32_t i = 0; cm && cm->members && i < cm->size; i++) {
        uint64_t key = (uint64_t)comm | (uint64_t)i << 32, *v = rt__map_get(&F->at, key, seq);
        if (!v)
            continue;
        uint32_t slot = (uint32_t)*v;
        rt__map_del(&F->at, key, seq);
        /* (freed only grows to the most slots ever held, which v has room for) */
        if (!rt__grow((void **)&F->freed, &F->capfreed, sizeof *F->freed, F->nfreed + 1))
            F->freed[F->nfreed++] = slot;
    }
}
