/* SPDX-License-Identifier: MIT */
/*
 * The core the collective algorithms run on: a message's timing, rounds, and the two ways to
 * run an algorithm (timed in one go, or recorded as a schedule).
 *
 * A message a -> b of m bytes is timed exactly as the engine times a point-to-point message
 * (engine.c: post_message, on_ready, on_arrive, step), from the clocks c[] at the round's start:
 *   post = c[a] + o_send(m) (after a's earlier sends of the round: post[a] + o_send(m)); eager if
 *   m <= eager limit, else the data starts no earlier than max(post, c[b]) + handshake(m);
 *   inject = max(that, tx_free[a]); tx_free[a] = inject + gap(m); arrival = inject + wire(m);
 *   delivered = arrival, or rx_free[b] + gap(m) while b's receive port is busy; b is done at
 *   max(delivered, c[b]) + o_recv(m); a at inject + send_hold(m) (eager) or at delivered
 *   (rendezvous).
 * After the round each member's clock is the latest of its own completions; a member that does
 * nothing in a round keeps its clock. Ports are the members' real ports, so collective and
 * point-to-point traffic queue behind each other. The reduction arithmetic itself is not timed
 * (it is CPU work inside the MPI call, which the model decides).
 */
#include <stdlib.h>
#include <string.h>

#include "coll_sim.h"
#include "coll_rules.h"

#define NEVER INT64_MIN

/* A message of the current round whose receiving side is still to be timed. */
struct rt__cs_pending {
    uint32_t a, b, origin;
    int eager;
    rt_time_ps inject, arrival, gap, hold, o_recv;
};

static rt_time_ps later(rt_time_ps x, rt_time_ps y)
{
    return x > y ? x : y;
}

/* CPU work on member @p i: stretched by its OS noise. */
static rt_time_ps cpu(const struct rt__cs *s, uint32_t i, rt_time_ps t, rt_time_ps work)
{
    return s->noise ? s->noise->cpu(s->noise->ud, i, t, work) : t + work;
}

/* The model's times for one message size. The ops are pure functions of the parameters and the
 * size, and a round's messages mostly share one size, so the last size's times are kept instead
 * of asking the model five or six times per message (each a double evaluation and a rounding). */
static const struct rt__cs_times *times_of(struct rt__cs *s, rt_bytes m)
{
    struct rt__cs_times *c = &s->last;
    if (!c->valid || c->m != m) {
        const struct rt_model_ops *ops = s->model->ops;
        const struct rt_model_params *p = &s->model->params;
        c->m = m;
        c->o_send = ops->o_send(p, m);
        c->o_recv = ops->o_recv(p, m);
        c->gap = ops->gap(p, m);
        c->wire = ops->wire(p, m);
        c->hold = ops->send_hold(p, m);
        c->handshake = ops->handshake(p, m);
        c->valid = 1;
    }
    return c;
}

void rt__cs_round_begin(struct rt__cs *s)
{
    if (s->emit)
        return;
    s->round_no++;
    s->multi = 0;
    for (uint64_t i = 0; i < s->P; i++) {
        s->next[i] = s->m[i].done;
        s->post[i] = s->m[i].done;
        s->next_origin[i] = s->m[i].origin;
    }
}

/* Pending messages by arrival, ties in the order they were sent (a merge sort: stable). */
static void by_arrival(struct rt__cs_pending *v, struct rt__cs_pending *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    by_arrival(v, tmp, h);
    by_arrival(v + h, tmp, n - h);
    if (v[h - 1].arrival <= v[h].arrival)
        return; /* already in order: the common case of one message per receiver */
    while (i < h && j < n)
        tmp[k++] = v[j].arrival < v[i].arrival ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* The receiving side of the round's messages, in the order they arrive (as the engine delivers
 * them; a member receiving several in one round takes them at its port one gap apart). The
 * sender's completion is not a CPU step: the member resumes at the next round's send or at its
 * end. */
static void receive_side(struct rt__cs *s)
{
    if (s->multi) /* (one message per receiver: the order cannot matter, keep the sending order) */
        by_arrival(s->pend, s->pend + s->cap, s->npend);
    for (size_t k = 0; k < s->npend; k++) {
        const struct rt__cs_pending *q = &s->pend[k];
        struct rt__coll_member *B = &s->m[q->b];
        /* The receive port takes one message at a time, one gap apart (engine.c: on_arrive); a
         * message delivered late for the port goes back to where the port's last one did. */
        rt_time_ps delivered = q->arrival;
        uint32_t dorigin = q->origin;
        if (B->rx_free != NEVER && q->arrival < B->rx_free + q->gap) {
            delivered = B->rx_free + q->gap;
            dorigin = s->rx_origin[q->b];
        }
        B->rx_free = delivered;
        s->rx_origin[q->b] = dorigin;
        rt_time_ps recv_done = cpu(s, q->b, later(delivered, B->done), q->o_recv);
        rt_time_ps send_done = q->eager ? q->inject + q->hold : delivered;
        if (send_done > s->next[q->a]) {
            s->next[q->a] = send_done;
            s->next_origin[q->a] = q->eager ? q->origin : dorigin;
        }
        if (recv_done > s->next[q->b]) {
            s->next[q->b] = recv_done;
            s->next_origin[q->b] = B->done >= delivered ? B->origin : dorigin;
        }
    }
    s->npend = 0;
}

void rt__cs_round_end(struct rt__cs *s)
{
    if (s->emit) {
        s->emit->rounds++;
        return;
    }
    receive_side(s);
    for (uint64_t i = 0; i < s->P; i++) {
        s->m[i].done = s->next[i];
        s->m[i].origin = s->next_origin[i];
    }
}

/* One message of the current round, timed from the clocks at the round's start: the sending
 * side now (its CPU overhead, the send port, the wire), the receiving side at the round's end
 * (receive_side), so that each member's CPU is asked for its send before its receive and the
 * OS noise's detours are walked forward in time. */
void rt__cs_message(struct rt__cs *s, uint32_t a, uint32_t b, rt_bytes m)
{
    if (s->failed)
        return;
    if (s->emit) {
        struct rt__coll_sched *e = s->emit;
        if (e->n == e->cap) {
            size_t cap = e->cap ? 2 * e->cap : 64;
            struct rt__coll_msg *v = realloc(e->v, cap * sizeof *v);
            if (!v) {
                s->failed = RT_ENOMEM;
                return;
            }
            e->v = v;
            e->cap = cap;
        }
        e->v[e->n++] = (struct rt__coll_msg){.round = e->rounds, .a = a, .b = b, .m = m};
        return;
    }
    struct rt__coll_member *A = &s->m[a], *B = &s->m[b];
    if (s->npend == s->cap) { /* a round of many messages (all-at-once): room for all of them */
        struct rt__cs_pending *v = realloc(s->pend, 4 * s->cap * sizeof *v);
        if (!v) {
            s->failed = RT_ENOMEM;
            return;
        }
        s->pend = v;
        s->cap *= 2; /* (the other half is the sort's scratch) */
    }
    if (s->seen[b] == s->round_no)
        s->multi = 1;
    s->seen[b] = s->round_no;
    const struct rt__cs_times *c = times_of(s, m);
    struct rt__cs_pending *q = &s->pend[s->npend++];
    q->a = a;
    q->b = b;
    q->eager = m <= s->eager_limit;
    rt_time_ps ready = cpu(s, a, s->post[a], c->o_send);
    s->post[a] = ready;
    q->origin = A->origin; /* whose entry the message's timing goes back to */
    if (!q->eager) {
        if (B->done > ready)
            q->origin = B->origin;
        ready = later(ready, B->done) + c->handshake;
    }
    rt_time_ps wire = c->wire;
    q->gap = c->gap;
    q->hold = c->hold;
    q->o_recv = c->o_recv;
    q->inject = later(ready, A->tx_free);
    if (A->tx_free > ready) /* it waited for the send port: back to the message that held it */
        q->origin = s->tx_origin[a];
    if (s->noise && s->noise->net(s->noise->ud, a, b, s->nmsg, q->inject, m, &wire, &q->gap, &q->hold))
        s->failed = RT_ENOMEM;
    s->nmsg++;
    A->tx_free = q->inject + q->gap;
    s->tx_origin[a] = q->origin;
    q->arrival = q->inject + wire;
}

/* Sets up @p s for @p P members' blocks and runs @p plan's algorithm over it: timed, or with
 * s->emit set, recorded. */
static int run(struct rt__cs *s, const struct rt_coll_plan *plan, uint32_t P)
{
    int rc = RT_OK;
    if (!s->emit) {
        s->next = malloc((size_t)P * sizeof *s->next);
        s->post = malloc((size_t)P * sizeof *s->post);
        s->next_origin = malloc((size_t)P * sizeof *s->next_origin);
        s->tx_origin = malloc((size_t)P * sizeof *s->tx_origin);
        s->rx_origin = malloc((size_t)P * sizeof *s->rx_origin);
        s->seen = calloc(P, sizeof *s->seen);
        s->cap = P;
        s->pend = malloc(2 * (size_t)P * sizeof *s->pend); /* P pending + P scratch for the sort */
    }
    s->pre = malloc(((size_t)P + 1) * sizeof *s->pre);
    if ((!s->emit && (!s->next || !s->post || !s->next_origin || !s->tx_origin || !s->rx_origin || !s->seen ||
                      !s->pend)) ||
        !s->pre) {
        rc = RT_ENOMEM;
        goto done;
    }
    for (uint32_t i = 0; !s->emit && i < P; i++)
        s->tx_origin[i] = s->rx_origin[i] = i;
    s->pre[0] = 0;
    for (uint64_t rel = 0; rel < P; rel++) {
        rt_bytes b = s->m[rt__cs_phys(s, rel)].block;
        s->pre[rel + 1] = s->pre[rel] + b;
        s->mmax = b > s->mmax ? b : s->mmax;
    }
    s->seg = plan->seg;
    s->fanout = plan->fanout;
    s->plan = plan;
    if (s->emit)
        s->emit->algo = plan->algo;
    rt__coll_algo_fn(plan->op, plan->algo)(s);
    rc = s->failed;
done:
    free(s->next);
    free(s->post);
    free(s->next_origin);
    free(s->tx_origin);
    free(s->rx_origin);
    free(s->seen);
    free(s->pend);
    free(s->pre);
    return rc;
}

int rt__coll_run(const struct rt_coll_plan *plan, uint32_t P, uint32_t root, struct rt__coll_member *mem,
                 const struct rt_model *model, rt_bytes eager_limit, const struct rt__coll_noise *noise)
{
    struct rt__cs s = {.m = mem, .P = P, .root = P ? root % P : 0, .model = model, .eager_limit = eager_limit,
                       .noise = noise};
    for (uint32_t i = 0; i < P; i++) {
        mem[i].done = mem[i].begin;
        mem[i].origin = i;
    }
    if (P <= 1)
        return RT_OK;
    return run(&s, plan, P);
}

int rt__coll_schedule(const struct rt_coll_plan *plan, uint32_t P, uint32_t root, struct rt__coll_member *mem,
                      struct rt__coll_sched *out)
{
    out->n = 0; /* (its room is used again) */
    out->rounds = 0;
    out->algo = 0;
    if (P <= 1)
        return RT_OK;
    struct rt__cs s = {.emit = out, .m = mem, .P = P, .root = root % P};
    int rc = run(&s, plan, P);
    if (rc)
        rt__coll_sched_free(out);
    return rc;
}

void rt__coll_sched_free(struct rt__coll_sched *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
