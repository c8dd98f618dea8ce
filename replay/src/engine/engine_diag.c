/* SPDX-License-Identifier: MIT */
/*
 * Why a replay could not finish: every rank that is not done waits for something that never
 * comes. The first such rank names it in one line: a receive that no send matches, a send no
 * receive takes, a deadlock (with the cycle of ranks waiting for each other), or a collective
 * that not every member enters (on a network, where in its schedule). Also for the ranks of
 * other processes of a distributed replay, from their shared states (engine_dist.c).
 */
#include <stdio.h>
#include <string.h>

#include "engine_internal.h"

/* A rank's state and position, here or (after rt__eng_share_states) at its own process. */
static uint8_t rank_state(const struct engine *E, uint32_t r)
{
    if (r >= E->nranks) /* no such rank: nothing will come from it */
        return R_DONE;
    if (owned(E, r) || !E->remote_state)
        return E->ranks[r].state;
    return (uint8_t)(E->remote_state[RS * (size_t)r] - 1);
}

static uint64_t rank_cursor(const struct engine *E, uint32_t r)
{
    if (r >= E->nranks)
        return 0;
    if (owned(E, r) || !E->remote_state)
        return E->ranks[r].cursor;
    return (uint64_t)E->remote_state[RS * (size_t)r + 1];
}

/* The rank that blocked rank @p r waits for (a message's peer), or RT_NONE (a collective, none). */
uint32_t rt__eng_waits_for(const struct engine *E, uint32_t r)
{
    if (!owned(E, r)) {
        if (!E->remote_state || !E->remote_state[RS * (size_t)r + 3])
            return RT_NONE;
        return (uint32_t)(E->remote_state[RS * (size_t)r + 3] - 1);
    }
    const struct rank *R = &E->ranks[r];
    if (R->state == R_DONE || R->cursor >= R->nev)
        return RT_NONE;
    const struct rt_event *e = &R->ev[R->cursor];
    if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV)
        return (e->kind == RT_EV_RECV ? e : &R->ev[e->ref])->ref;
    if (e->kind == RT_EV_ISEND_COMPLETE || e->kind == RT_EV_LEAVE) {
        uint64_t p = e->kind == RT_EV_ISEND_COMPLETE ? pending_of((struct rank *)R, e->ref) : UINT64_MAX;
        if (p != UINT64_MAX && !(p & COLL_BIT))
            return E->msgs[p].dst;
        for (uint32_t i = 0; i < R->nwaits; i++)
            if (!(E->msgs[R->waits[i]].flags & M_SDONE))
                return E->msgs[R->waits[i]].dst;
    }
    return RT_NONE;
}

/* A row as the outputs name it: its MPI rank (rt_trace_rank_label: rows move when ranks are missing). */
#define LB(row) rt_trace_rank_label(E->t, (row))

/* Appends to @p buf the cycle of waiting ranks that rank @p r is in, if it is in one. */
static void wait_cycle(const struct engine *E, uint32_t r, char *buf, size_t n)
{
    uint32_t x = r, steps = 0;
    do { /* r is on a cycle when following the waits from it comes back to it */
        x = rt__eng_waits_for(E, x);
    } while (x != RT_NONE && x != r && ++steps <= E->nranks);
    if (x != r || steps < 2) /* two ranks: the message already names both */
        return;
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "; the cycle: rank %u", LB(r));
    for (x = rt__eng_waits_for(E, r); len < n; x = rt__eng_waits_for(E, x)) {
        len += (size_t)snprintf(buf + len, n - len, " -> %u", LB(x));
        if (x == r)
            break;
    }
}

/* options.cut: the run stopped (killed, hung) before its ranks did. The ranks still waiting end
 * where they wait, each before its first event that depends on what never came (the replay got
 * every other rank as far as it could, so the cut is consistent), and the sends never received
 * are counted as in flight. */
static int cut_here(struct engine *E)
{
    struct rt_replay_result *res = E->res;
    uint32_t n = E->nranks ? E->nranks : 1;
    res->cut_event = malloc(n * sizeof *res->cut_event);
    res->cut_waits_for = malloc(n * sizeof *res->cut_waits_for);
    if (!res->cut_event || !res->cut_waits_for)
        return rt__eng_oom(E);
    for (uint32_t r = 0; r < E->nranks; r++) {
        const struct rank *R = &E->ranks[r];
        int waits = R->state != R_DONE && R->cursor < R->nev;
        res->cut_event[r] = waits ? R->cursor : UINT64_MAX;
        res->cut_waits_for[r] = waits ? rt__eng_waits_for(E, r) : RT_NONE;
        res->cut_ranks += (uint32_t)waits;
    }
    for (uint32_t i = 0; i < E->nchans; i++)
        for (uint32_t m = E->chans[i].head; m != UINT32_MAX && E->chans[i].side == M_SEND; m = E->msgs[m].next)
            res->in_flight++;
    return RT_OK;
}

/* What the replay of a run that stopped early can do instead (rt_replay_options.cut). */
#define CUT_HINT " (if the run was killed or hung: --cut replays it up to where it stopped)"

/* Ends the deadlock message of rank @p r with its cycle of waiting ranks, then the hint. */
static void with_cycle(struct engine *E, uint32_t r)
{
    size_t n = sizeof E->err->msg;
    wait_cycle(E, r, E->err->msg, n);
    size_t len = strlen(E->err->msg);
    snprintf(E->err->msg + len, n - len, "%s", CUT_HINT);
}

int rt__eng_diagnose(struct engine *E)
{
    const char *path = rt_trace_path(E->t);
    int rc;
    if (E->o->cut)
        return cut_here(E);
    for (uint32_t r = 0; r < E->nranks; r++) {
        struct rank *R = &E->ranks[r];
        if (R->state == R_DONE)
            continue;
        uint64_t j = R->cursor;
        const struct rt_event *e = &R->ev[j];
        if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV) {
            uint64_t post_j = e->kind == RT_EV_RECV ? j : e->ref;
            const struct rt_event *post_ev = &R->ev[post_j];
            const struct rt_event_payload *post_p = rt__row_payload_of(R->row, post_j);
            uint32_t s = post_ev->ref;
            if (rank_state(E, s) == R_DONE)
                return rt_error_set(E->err, RT_EUNMATCHED,
                                    "%s: unmatched receive: rank %u event %llu (%s from rank %u, tag %u, comm '%s', %llu bytes): rank %u never sends it" CUT_HINT,
                                    path, LB(r), (unsigned long long)j, rt__eng_call_name(E, r, j), LB(s), post_ev->aux,
                                    rt__eng_comm_name(E, post_p->comm), (unsigned long long)post_p->bytes, LB(s));
            rc = rt_error_set(E->err, RT_EDEADLOCK,
                                "%s: deadlock: rank %u event %llu (%s from rank %u, tag %u) waits for rank %u, which is blocked at event %llu (%s)",
                                path, LB(r), (unsigned long long)j, rt__eng_call_name(E, r, j), LB(s), post_ev->aux, LB(s),
                                (unsigned long long)rank_cursor(E, s), rt__eng_call_name(E, s, rank_cursor(E, s)));
            if (E->err)
                with_cycle(E, r);
            return rc;
        }
        if (e->kind == RT_EV_LEAVE || e->kind == RT_EV_ISEND_COMPLETE) {
            uint32_t id = UINT32_MAX;
            if (e->kind == RT_EV_ISEND_COMPLETE)
                id = (uint32_t)pending_of(R, e->ref);
            else
                for (uint32_t i = 0; i < R->nwaits && id == UINT32_MAX; i++)
                    if (!(E->msgs[R->waits[i]].flags & M_SDONE))
                        id = R->waits[i];
            if (id != UINT32_MAX) {
                struct msg *m = &E->msgs[id];
                if (rank_state(E, m->dst) == R_DONE)
                    return rt_error_set(E->err, RT_EUNMATCHED,
                                        "%s: unmatched send: rank %u event %llu (%s to rank %u, tag %u, comm '%s', %llu bytes, rendezvous): rank %u never receives it" CUT_HINT,
                                        path, LB(r), (unsigned long long)m->send_ev, rt__eng_call_name(E, r, m->send_ev),
                                        LB(m->dst),
                                        m->tag, rt__eng_comm_name(E, m->comm), (unsigned long long)m->bytes, LB(m->dst));
                rc = rt_error_set(E->err, RT_EDEADLOCK,
                                    "%s: deadlock: rank %u event %llu (%s to rank %u, tag %u, rendezvous) waits for rank %u, which is blocked at event %llu (%s)",
                                    path, LB(r), (unsigned long long)m->send_ev, rt__eng_call_name(E, r, m->send_ev),
                                    LB(m->dst), m->tag, LB(m->dst), (unsigned long long)rank_cursor(E, m->dst),
                                    rt__eng_call_name(E, m->dst, rank_cursor(E, m->dst)));
                if (E->err)
                    with_cycle(E, r);
                return rc;
            }
        }
        if (e->kind == RT_EV_COLL_END || e->kind == RT_EV_NBCOLL_END) {
            uint64_t p = pending_of(R, e->ref);
            struct coll *c = &E->colls[(uint32_t)p];
            rc = rt_error_set(E->err, RT_EDEADLOCK,
                              "%s: deadlock: rank %u event %llu (%s on comm '%s') waits for a collective that only %u of %u ranks enter",
                              path, LB(r), (unsigned long long)j, rt__eng_call_name(E, r, j), rt__eng_comm_name(E, c->comm), c->arrived,
                              c->size);
            if (c->cx && E->err) /* on a network: where in its schedule */
                rt__cx_describe_wait(E, (uint32_t)p, (uint32_t)((p & ~COLL_BIT) >> 32), E->err->msg,
                                     sizeof E->err->msg);
            if (E->err) {
                size_t len = strlen(E->err->msg);
                snprintf(E->err->msg + len, sizeof E->err->msg - len, "%s", CUT_HINT);
            }
            return rc;
        }
        return rt_error_set(E->err, RT_EDEADLOCK, "%s: deadlock: rank %u blocked at event %llu (%s)" CUT_HINT, path, LB(r),
                            (unsigned long long)j, rt__eng_call_name(E, r, j));
    }
    /* Every rank finished: any send still queued in a channel was never received. */
    for (uint32_t i = 0; i < E->nchans; i++) {
        struct chan *c = &E->chans[i];
        if (c->head == UINT32_MAX)
            continue;
        struct msg *m = &E->msgs[c->head];
        if (c->side == M_SEND)
            return rt_error_set(E->err, RT_EUNMATCHED,
                                "%s: unmatched send: rank %u event %llu (%s to rank %u, tag %u, comm '%s', %llu bytes) has no matching receive" CUT_HINT,
                                path, LB(m->src), (unsigned long long)m->send_ev, rt__eng_call_name(E, m->src, m->send_ev), LB(m->dst),
                                m->tag, rt__eng_comm_name(E, m->comm), (unsigned long long)m->bytes);
    }
    return RT_OK;
}
