/* SPDX-License-Identifier: MIT */
/*
 * Collectives re-timed as the point-to-point algorithms MPI libraries run for them.
 *
 * Every algorithm is a sequence of rounds; in a round each rank sends at most one message and
 * receives at most one. P ranks, q = ceil(log2 P), and for rooted operations the relative rank
 * rel = (rank - root + P) mod P:
 *
 *  barrier     dissemination (Hensgen, Finkel & Manber, "Two algorithms for barrier
 *              synchronization", IJPP 17(1), 1988): round i, r sends 0 bytes to (r + 2^i) mod P.
 *  bcast       binomial tree as in MPICH (Thakur, Rabenseifner & Gropp, "Optimization of
 *  scatter     Collective Communication Operations in MPICH", IJHPCA 19(1), 2005): in round k,
 *              with mask = 2^(q-1-k), every rel that is a multiple of 2·mask sends to rel + mask
 *              (if < P). bcast sends the whole message, scatter the receiver's subtree
 *              [rel + mask, rel + 2·mask) ∩ [0, P): min(mask, P - rel - mask) blocks.
 *  reduce      the mirror image: in round i every rel with rel mod 2^(i+1) = 2^i sends to
 *  gather      rel - 2^i; reduce the whole message, gather its subtree: min(2^i, P - rel) blocks.
 *  allreduce   MPICH's three (Thakur et al. 2005, §4): with pof2 the largest power of two <= P
 *              and rem = P - pof2, the first 2·rem ranks pair up, odd ones send their vector to
 *              even ones first and get the result back at the end, so pof2 ranks remain.
 *              recdbl: log2(pof2) exchanges of the whole message with rank XOR 2^i.
 *              rabenseifner: reduce-scatter by recursive halving (m/2, m/4, ..., m/pof2), then
 *              allgather by recursive doubling back (m/pof2, ..., m/2).
 *              ring: P-1 rounds of ceil(m/P) to the right neighbour (reduce-scatter), P-1 more
 *              (allgather). auto: recdbl for m <= 2048 B (MPICH's ALLREDUCE_SHORT_MSG_SIZE),
 *              rabenseifner above.
 *  allgather   ring: P-1 rounds, each passes on the block received in the round before.
 *              recdbl: Bruck's dissemination (Bruck, Ho, Kipnis, Upfal & Weathersby, "Efficient
 *              algorithms for all-to-all communications in multiport message-passing systems",
 *              IEEE TPDS 8(11), 1997), which works for any P: round i sends the
 *              min(2^i, P - 2^i) blocks r holds to r - 2^i; for P = 2^q the counts of recursive
 *              doubling. auto: recdbl while the P blocks total < 512 KiB, ring above.
 *  alltoall    pairwise exchange: round i = 1..P-1, r sends one block to (r + i) mod P and
 *              receives one from (r - i) mod P.
 *  scan        recursive doubling in one direction: round i, r sends to r + 2^i (if < P).
 *  other       (operations the reader maps to RT_COLL_OTHER) no algorithm is known, so a rough
 *              stand-in: dissemination rounds in which each rank sends the larger of its counts.
 *
 * A message a -> b of m bytes is timed exactly as the engine times a point-to-point message
 * (engine.c: post_message, on_ready, on_arrive, step), from the clocks c[] at the round's start:
 *   post = c[a] + o_send(m); eager if m <= eager limit, else the data starts no earlier than
 *   max(post, c[b]) + handshake(m); inject = max(that, tx_free[a]); tx_free[a] = inject + gap(m);
 *   arrival = inject + wire(m); delivered = arrival, or rx_free[b] + gap(m) while b's receive
 *   port is busy; b is done at max(delivered, c[b]) + o_recv(m); a at inject + send_hold(m)
 *   (eager) or at delivered (rendezvous).
 * After the round each rank's clock is the latest of its own completions; a rank that does
 * nothing in a round keeps its clock. Ports are the members' real ports, so collective and
 * point-to-point traffic queue behind each other. The reduction arithmetic itself is not
 * timed (it is CPU work inside the MPI call, which the model decides).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"

#define NEVER INT64_MIN

static const char *const algo_names[RT_ALGO_COUNT] = {"auto", "dissemination", "binomial", "recdbl",
                                                      "ring", "rabenseifner", "pairwise"};

#define A(x) (1u << (x))
/* Which algorithms apply to which operation (auto always does). */
static const unsigned algo_valid[RT_COLL_OTHER + 1] = {
    [RT_COLL_BARRIER] = A(RT_ALGO_DISSEMINATION),
    [RT_COLL_BCAST] = A(RT_ALGO_BINOMIAL),
    [RT_COLL_GATHER] = A(RT_ALGO_BINOMIAL),
    [RT_COLL_SCATTER] = A(RT_ALGO_BINOMIAL),
    [RT_COLL_ALLGATHER] = A(RT_ALGO_RING) | A(RT_ALGO_RECDBL),
    [RT_COLL_ALLTOALL] = A(RT_ALGO_PAIRWISE),
    [RT_COLL_REDUCE] = A(RT_ALGO_BINOMIAL),
    [RT_COLL_ALLREDUCE] = A(RT_ALGO_RECDBL) | A(RT_ALGO_RING) | A(RT_ALGO_RABENSEIFNER),
    [RT_COLL_SCAN] = A(RT_ALGO_RECDBL),
    [RT_COLL_OTHER] = A(RT_ALGO_DISSEMINATION),
};
#undef A

/* ------------------------------------------------------------------ algorithm names */

const char *rt_coll_algo_name(int algo)
{
    return algo >= 0 && algo < RT_ALGO_COUNT ? algo_names[algo] : "unknown";
}

int rt__coll_algo_applies(int op, int algo)
{
    if (op < 0 || op > RT_COLL_OTHER || algo < 0 || algo >= RT_ALGO_COUNT)
        return 0;
    return algo == RT_ALGO_AUTO || (algo_valid[op] >> algo & 1u);
}

/* "auto, ring, recdbl": the algorithms that apply to @p op. */
static const char *valid_list(int op, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int a = 0; a < RT_ALGO_COUNT; a++)
        if (rt__coll_algo_applies(op, a) && len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", algo_names[a]);
    return buf;
}

int rt__coll_algo_check(const uint8_t algo[RT_COLL_OTHER + 1], rt_error *err)
{
    char buf[96];
    for (int op = 0; op <= RT_COLL_OTHER; op++)
        if (!rt__coll_algo_applies(op, algo[op]))
            return rt_error_set(err, RT_EINVAL, "collective algorithm '%s' does not apply to %s (valid: %s)",
                                rt_coll_algo_name(algo[op]), rt_coll_op_name(op), valid_list(op, buf, sizeof buf));
    return RT_OK;
}

int rt_coll_algo_parse(const char *spec, uint8_t algo[RT_COLL_OTHER + 1], rt_error *err)
{
    static const char ops_list[] = "barrier, bcast, gather, scatter, allgather, alltoall, reduce, allreduce, scan";
    uint8_t tmp[RT_COLL_OTHER + 1];
    char buf[96];
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "empty collective algorithm choice (expected OP=ALGO[,OP=ALGO...])");
    /* Work on a copy so that a bad spec leaves the caller's table as it was. */
    memcpy(tmp, algo, sizeof tmp);
    for (const char *p = spec;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return rt_error_set(err, RT_EINVAL, "'%.*s' is not OP=ALGO (in '%s')", (int)len, p, spec);
        size_t oplen = (size_t)(eq - p), alen = len - oplen - 1;
        int op = -1, a = -1;
        for (int i = 0; i < RT_COLL_OTHER && op < 0; i++)
            if (strlen(rt_coll_op_name(i)) == oplen && !strncmp(p, rt_coll_op_name(i), oplen))
                op = i;
        if (op < 0)
            return rt_error_set(err, RT_EINVAL, "unknown collective operation '%.*s' (operations: %s)", (int)oplen, p,
                                ops_list);
        for (int i = 0; i < RT_ALGO_COUNT && a < 0; i++)
            if (strlen(algo_names[i]) == alen && !strncmp(eq + 1, algo_names[i], alen))
                a = i;
        if (a < 0)
            return rt_error_set(err, RT_EINVAL, "unknown collective algorithm '%.*s' for %s (valid: %s)", (int)alen,
                                eq + 1, rt_coll_op_name(op), valid_list(op, buf, sizeof buf));
        if (!rt__coll_algo_applies(op, a))
            return rt_error_set(err, RT_EINVAL, "algorithm '%s' does not apply to %s (valid: %s)", algo_names[a],
                                rt_coll_op_name(op), valid_list(op, buf, sizeof buf));
        tmp[op] = (uint8_t)a;
        if (!end)
            break;
        p = end + 1;
    }
    memcpy(algo, tmp, sizeof tmp);
    return RT_OK;
}

/* ------------------------------------------------------------------ block sizes */

/* Whether x == k·b, without overflowing. */
static int is_times(rt_bytes x, uint64_t k, rt_bytes b)
{
    if (k == 0)
        return x == 0;
    return x % k == 0 && x / k == b;
}

/* Whether the root's total @p x of a rooted operation is one of the readings producers write:
 * P·b (Score-P, retime's tracer), (P-1)·b (in place: the root's own block does not move), or b
 * (one block at the root, as some writers record a broadcast's or reduction's buffer). */
static int root_total(rt_bytes x, uint64_t P, rt_bytes b)
{
    return is_times(x, P, b) || is_times(x, P - 1, b) || x == b;
}

/* Whether a member's counts fit the block @p b under the producers' conventions (docs/collectives.md:
 * Score-P's, retime's tracer's in instrument/src/wrap_coll.c, a root recording one block): the
 * MPI_IN_PLACE forms count one block less. */
static int fits(int op, uint64_t P, uint64_t me, int is_root, rt_bytes s, rt_bytes r, rt_bytes b)
{
    switch (op) {
    case RT_COLL_BCAST: /* the root sent P·b, (P-1)·b or b; everyone else received b */
        return r == b || (is_root && r == 0 && root_total(s, P, b));
    case RT_COLL_REDUCE:
    case RT_COLL_GATHER: /* everyone sent b (the root 0 in place); the root received P·b, (P-1)·b or b */
        return (s == b && (!is_root || r == 0 || root_total(r, P, b))) || (is_root && s == 0 && root_total(r, P, b));
    case RT_COLL_SCATTER: /* gather with the directions exchanged */
        return (r == b && (!is_root || s == 0 || root_total(s, P, b))) || (is_root && r == 0 && root_total(s, P, b));
    case RT_COLL_ALLREDUCE:
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL: /* sent = received = P·b, or (P-1)·b in place */
        return (is_times(s, P, b) || is_times(s, P - 1, b)) && (is_times(r, P, b) || is_times(r, P - 1, b));
    case RT_COLL_SCAN: /* sent (P-me)·b, received (me+1)·b; in place (and exscan) one block less each */
        return (is_times(s, P - me, b) && is_times(r, me + 1, b)) ||
               (is_times(s, P - me - 1, b) && is_times(r, me, b));
    default:
        return 1;
    }
}

/* Blocks that a member's counts suggest, the plain (not in place) reading first. */
static int candidates(int op, uint64_t P, uint64_t me, int is_root, rt_bytes s, rt_bytes r, rt_bytes out[4])
{
    uint64_t div[4];
    rt_bytes of[4];
    int n = 0, k = 0;
    switch (op) {
    case RT_COLL_BCAST: /* a root's own counts: what it received (b), or its total over P, P-1 or 1 */
        if (!is_root || r)
            out[n++] = r;
        if (is_root)
            of[k] = s, div[k++] = P, of[k] = s, div[k++] = P - 1, of[k] = s, div[k++] = 1;
        break;
    case RT_COLL_REDUCE:
    case RT_COLL_GATHER:
        if (!is_root || s)
            out[n++] = s;
        if (is_root)
            of[k] = r, div[k++] = P, of[k] = r, div[k++] = P - 1, of[k] = r, div[k++] = 1;
        break;
    case RT_COLL_SCATTER:
        if (!is_root || r)
            out[n++] = r;
        if (is_root)
            of[k] = s, div[k++] = P, of[k] = s, div[k++] = P - 1, of[k] = s, div[k++] = 1;
        break;
    case RT_COLL_ALLREDUCE:
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL:
        of[k] = s, div[k++] = P, of[k] = s, div[k++] = P - 1;
        break;
    case RT_COLL_SCAN:
        of[k] = s, div[k++] = P - me, of[k] = s, div[k++] = P - me - 1;
        of[k] = r, div[k++] = me + 1, of[k] = r, div[k++] = me;
        break;
    default:
        out[n++] = s > r ? s : r;
        break;
    }
    for (int i = 0; i < k && n < 4; i++)
        if (div[i] > 0 && of[i] % div[i] == 0)
            out[n++] = of[i] / div[i];
    return n;
}

/* A vector variant's own block: what this rank's counts say, no agreement asked for. */
static rt_bytes own_block(int op, uint64_t P, uint64_t me, int is_root, rt_bytes s, rt_bytes r)
{
    switch (op) {
    case RT_COLL_GATHER: /* gatherv: what it sends (the root's own block does not travel) */
        return s;
    case RT_COLL_SCATTER: /* scatterv: what it receives */
        return r;
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL: /* its block per peer: sent over P (over P-1 in place), rounded up */
        if (P == 1 || s % P == 0)
            return s / P;
        return s / (P - 1) + (s % (P - 1) != 0);
    case RT_COLL_ALLREDUCE: /* reduce_scatter: Score-P counts the whole vector as sent */
        return s;
    default: {
        rt_bytes c[4];
        int n = candidates(op, P, me, is_root, s, r, c);
        for (int i = 0; i < n; i++)
            if (fits(op, P, me, is_root, s, r, c[i]))
                return c[i];
        return s > r ? s : r;
    }
    }
}

int rt__coll_blocks(int op, uint32_t P, uint32_t root, int vector, struct rt__coll_member *mem, uint32_t *a,
                    uint32_t *b)
{
    if (op == RT_COLL_BARRIER || op == RT_COLL_OTHER || vector) {
        for (uint32_t i = 0; i < P; i++)
            mem[i].block = op == RT_COLL_BARRIER ? 0
                           : op == RT_COLL_OTHER ? (mem[i].sent > mem[i].recv ? mem[i].sent : mem[i].recv)
                                                 : own_block(op, P, i, i == root, mem[i].sent, mem[i].recv);
        return RT_OK;
    }
    /* The block comes from comm rank 0's counts; where they read two ways (P·b or (P-1)·b),
     * the reading every member fits wins. */
    rt_bytes c[4];
    int n = candidates(op, P, 0, root == 0, mem[0].sent, mem[0].recv, c);
    /* On a mismatch the error names the reading most members fit, and its first misfit. */
    uint32_t bad = UINT32_MAX, best = 0;
    rt_bytes expected = UINT64_MAX;
    for (int k = 0; k < n; k++) {
        if (!fits(op, P, 0, root == 0, mem[0].sent, mem[0].recv, c[k]))
            continue;
        uint32_t first_bad = UINT32_MAX, fit = 1;
        for (uint32_t i = 1; i < P; i++) {
            if (fits(op, P, i, i == root, mem[i].sent, mem[i].recv, c[k]))
                fit++;
            else if (first_bad == UINT32_MAX)
                first_bad = i;
        }
        if (fit == P) {
            for (uint32_t i = 0; i < P; i++)
                mem[i].block = c[k];
            return RT_OK;
        }
        if (fit > best) {
            best = fit;
            bad = first_bad;
            expected = c[k];
        }
    }
    /* Counts that fit neither of Score-P's readings but agree on every member come from a
     * producer with another convention: take them as the per-rank contribution (allreduce) or
     * as the total over the P peers (allgather, alltoall) rather than call them a mismatch. */
    if (op == RT_COLL_ALLREDUCE || op == RT_COLL_ALLGATHER || op == RT_COLL_ALLTOALL) {
        uint32_t i = 1;
        while (i < P && mem[i].sent == mem[0].sent && mem[i].recv == mem[0].recv)
            i++;
        if (i == P) {
            rt_bytes x = mem[0].sent > mem[0].recv ? mem[0].sent : mem[0].recv;
            rt_bytes blk = op == RT_COLL_ALLREDUCE ? x : x / P + (x % P != 0);
            for (i = 0; i < P; i++)
                mem[i].block = blk;
            return RT_OK;
        }
    }
    *a = 0;
    *b = bad != UINT32_MAX ? bad : P > 1 ? 1 : 0;
    mem[0].block = expected; /* UINT64_MAX: rank 0's own counts fit no block */
    return RT_EMISMATCH;
}

/* ------------------------------------------------------------------ rounds */

/* A message of the current round whose receiving side is still to be timed. */
struct pending {
    uint32_t a, b, origin;
    int eager;
    rt_time_ps inject, arrival, gap, hold, o_recv;
};

/* The model's times for one message size. The ops are pure functions of the parameters and the
 * size, and a round's messages mostly share one size, so the last size's times are kept instead
 * of asking the model five or six times per message (each a double evaluation and a rounding). */
struct times {
    rt_bytes m;
    rt_time_ps o_send, o_recv, gap, wire, hold, handshake;
    int valid;
};

struct sim {
    struct rt__coll_sched *emit; /* set: the algorithm's messages are recorded, not timed */
    struct rt__coll_member *m; /* m[i].done is rank i's clock during the run */
    rt_time_ps *next;          /* clocks at the end of the current round */
    uint32_t *next_origin;     /* and the members whose entries bound them (m[i].origin: now) */
    rt_bytes *pre;             /* pre[rel] = sum of the blocks of relative ranks < rel */
    uint64_t P, root;
    rt_bytes mmax;             /* the largest block: the size where a round needs one */
    const struct rt_model *model;
    rt_bytes eager_limit;
    const struct rt__coll_noise *noise;
    uint64_t nmsg; /* messages so far: the noise's key */
    struct times last; /* the times of the last message's size */
    struct pending *pend; /* the current round's messages, sending side done (at most P) */
    size_t npend;
    int failed;
};

static uint32_t phys(const struct sim *s, uint64_t rel)
{
    return (uint32_t)((rel + s->root) % s->P);
}

/* Bytes of the @p n blocks of relative ranks lo, lo+1, ... (cyclically). */
static rt_bytes span(const struct sim *s, uint64_t lo, uint64_t n)
{
    if (lo + n <= s->P)
        return s->pre[lo + n] - s->pre[lo];
    return s->pre[s->P] - s->pre[lo] + s->pre[lo + n - s->P];
}

static void round_begin(struct sim *s)
{
    if (s->emit)
        return;
    for (uint64_t i = 0; i < s->P; i++) {
        s->next[i] = s->m[i].done;
        s->next_origin[i] = s->m[i].origin;
    }
}

static void receive_side(struct sim *s);

static const struct times *times_of(struct sim *s, rt_bytes m)
{
    struct times *c = &s->last;
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

static void round_end(struct sim *s)
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

static rt_time_ps later(rt_time_ps x, rt_time_ps y)
{
    return x > y ? x : y;
}

/* CPU work on member @p i: stretched by its OS noise. */
static rt_time_ps cpu(const struct sim *s, uint32_t i, rt_time_ps t, rt_time_ps work)
{
    return s->noise ? s->noise->cpu(s->noise->ud, i, t, work) : t + work;
}

/* One message of the current round, timed from the clocks at the round's start: the sending
 * side now (its CPU overhead, the send port, the wire), the receiving side at the round's end
 * (receive_side), so that each member's CPU is asked for its send before its receive and the
 * OS noise's detours are walked forward in time. */
static void message(struct sim *s, uint32_t a, uint32_t b, rt_bytes m)
{
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
    if (s->npend == s->P) /* no algorithm sends more than P messages a round; stay in bounds */
        receive_side(s);
    const struct times *c = times_of(s, m);
    struct pending *q = &s->pend[s->npend++];
    q->a = a;
    q->b = b;
    q->eager = m <= s->eager_limit;
    rt_time_ps ready = cpu(s, a, A->done, c->o_send);
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
    if (s->noise && s->noise->net(s->noise->ud, a, b, s->nmsg, q->inject, m, &wire, &q->gap, &q->hold))
        s->failed = RT_ENOMEM;
    s->nmsg++;
    A->tx_free = q->inject + q->gap;
    q->arrival = q->inject + wire;
}

/* The receiving side of the round's messages, in the order they were sent. The sender's
 * completion is not a CPU step: the member resumes at the next round's send or at its end. */
static void receive_side(struct sim *s)
{
    for (size_t k = 0; k < s->npend; k++) {
        const struct pending *q = &s->pend[k];
        struct rt__coll_member *B = &s->m[q->b];
        /* The receive port takes one message at a time, one gap apart (engine.c: on_arrive). */
        rt_time_ps delivered =
            B->rx_free == NEVER || q->arrival >= B->rx_free + q->gap ? q->arrival : B->rx_free + q->gap;
        B->rx_free = delivered;
        rt_time_ps recv_done = cpu(s, q->b, later(delivered, B->done), q->o_recv);
        rt_time_ps send_done = q->eager ? q->inject + q->hold : delivered;
        if (send_done > s->next[q->a]) {
            s->next[q->a] = send_done;
            s->next_origin[q->a] = q->origin;
        }
        if (recv_done > s->next[q->b]) {
            s->next[q->b] = recv_done;
            s->next_origin[q->b] = B->done >= delivered ? B->origin : q->origin;
        }
    }
    s->npend = 0;
}

static uint64_t ceil_div(uint64_t x, uint64_t k)
{
    return x / k + (x % k != 0);
}

/* Round i: r -> (r + 2^i) mod P; barrier: empty messages, other: each rank's own size. */
static void dissemination(struct sim *s, int sized)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            message(s, (uint32_t)r, (uint32_t)((r + d) % s->P), sized ? s->m[r].block : 0);
        round_end(s);
    }
}

/* bcast (whole message) and scatter (subtrees) down MPICH's binomial tree. */
static void tree_down(struct sim *s, int subtrees)
{
    uint64_t top = 1;
    while (top < s->P)
        top <<= 1;
    for (uint64_t mask = top >> 1; mask > 0; mask >>= 1) {
        round_begin(s);
        for (uint64_t rel = 0; rel + mask < s->P; rel += 2 * mask) {
            uint64_t dst = rel + mask, n = s->P - dst < mask ? s->P - dst : mask;
            message(s, phys(s, rel), phys(s, dst), subtrees ? span(s, dst, n) : s->mmax);
        }
        round_end(s);
    }
}

/* reduce (whole message) and gather (subtrees) up the same tree. */
static void tree_up(struct sim *s, int subtrees)
{
    for (uint64_t mask = 1; mask < s->P; mask <<= 1) {
        round_begin(s);
        for (uint64_t rel = mask; rel < s->P; rel += 2 * mask) {
            uint64_t n = s->P - rel < mask ? s->P - rel : mask;
            message(s, phys(s, rel), phys(s, rel - mask), subtrees ? span(s, rel, n) : s->mmax);
        }
        round_end(s);
    }
}

/* Rank of the pof2-group member @p nr: the first 2·rem ranks leave their odd halves behind. */
static uint32_t group_rank(uint64_t nr, uint64_t rem)
{
    return (uint32_t)(nr < rem ? 2 * nr : nr + rem);
}

static void exchange(struct sim *s, uint64_t pof2, uint64_t rem, uint64_t mask, rt_bytes m)
{
    round_begin(s);
    for (uint64_t nr = 0; nr < pof2; nr++)
        message(s, group_rank(nr, rem), group_rank(nr ^ mask, rem), m);
    round_end(s);
}

/* Allreduce by recursive doubling or by Rabenseifner's halving + doubling, MPICH's pre and
 * post steps for P not a power of two. */
static void allreduce_pof2(struct sim *s, int rabenseifner)
{
    uint64_t pof2 = 1, m = s->mmax;
    while (pof2 * 2 <= s->P)
        pof2 *= 2;
    uint64_t rem = s->P - pof2;
    if (rem) {
        round_begin(s);
        for (uint64_t i = 0; i < rem; i++)
            message(s, (uint32_t)(2 * i + 1), (uint32_t)(2 * i), m);
        round_end(s);
    }
    if (!rabenseifner) {
        for (uint64_t mask = 1; mask < pof2; mask <<= 1)
            exchange(s, pof2, rem, mask, m);
    } else {
        for (uint64_t mask = 1; mask < pof2; mask <<= 1) /* reduce-scatter: m/2, m/4, ... */
            exchange(s, pof2, rem, mask, ceil_div(m, 2 * mask));
        for (uint64_t mask = pof2 >> 1; mask > 0; mask >>= 1) /* allgather: ..., m/4, m/2 */
            exchange(s, pof2, rem, mask, ceil_div(m, 2 * mask));
    }
    if (rem) {
        round_begin(s);
        for (uint64_t i = 0; i < rem; i++)
            message(s, (uint32_t)(2 * i), (uint32_t)(2 * i + 1), m);
        round_end(s);
    }
}

/* @p rounds rounds to the right neighbour, of @p bs bytes each (allreduce), or passing on the
 * block that started at rank r - k in round k (allgather, @p bs = UINT64_MAX). */
static void ring(struct sim *s, uint64_t rounds, rt_bytes bs)
{
    for (uint64_t k = 0; k < rounds; k++) {
        round_begin(s);
        for (uint64_t r = 0; r < s->P; r++) {
            rt_bytes m = bs != UINT64_MAX ? bs : s->m[(r + s->P - k % s->P) % s->P].block;
            message(s, (uint32_t)r, (uint32_t)((r + 1) % s->P), m);
        }
        round_end(s);
    }
}

static void bruck(struct sim *s)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        uint64_t n = d < s->P - d ? d : s->P - d;
        round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            message(s, (uint32_t)r, (uint32_t)((r + s->P - d) % s->P), span(s, r, n));
        round_end(s);
    }
}

static void pairwise(struct sim *s)
{
    for (uint64_t i = 1; i < s->P; i++) {
        round_begin(s);
        for (uint64_t r = 0; r < s->P; r++)
            message(s, (uint32_t)r, (uint32_t)((r + i) % s->P), s->m[r].block);
        round_end(s);
    }
}

static void scan(struct sim *s)
{
    for (uint64_t d = 1; d < s->P; d <<= 1) {
        round_begin(s);
        for (uint64_t r = 0; r + d < s->P; r++)
            message(s, (uint32_t)r, (uint32_t)(r + d), s->mmax);
        round_end(s);
    }
}

/* Sets up @p s for @p P members' blocks and runs @p op's algorithm over it: timed, or with
 * s->emit set, recorded. */
static int run(struct sim *s, int op, int algo, uint32_t P)
{
    int rc = RT_OK;
    if (!s->emit) {
        s->next = malloc((size_t)P * sizeof *s->next);
        s->next_origin = malloc((size_t)P * sizeof *s->next_origin);
        s->pend = malloc((size_t)P * sizeof *s->pend);
    }
    s->pre = malloc(((size_t)P + 1) * sizeof *s->pre);
    if ((!s->emit && (!s->next || !s->next_origin || !s->pend)) || !s->pre) {
        rc = RT_ENOMEM;
        goto done;
    }
    s->pre[0] = 0;
    for (uint64_t rel = 0; rel < P; rel++) {
        rt_bytes b = s->m[phys(s, rel)].block;
        s->pre[rel + 1] = s->pre[rel] + b;
        s->mmax = b > s->mmax ? b : s->mmax;
    }
    if (algo == RT_ALGO_AUTO) {
        if (op == RT_COLL_ALLREDUCE)
            algo = s->mmax <= 2048 ? RT_ALGO_RECDBL : RT_ALGO_RABENSEIFNER;
        else if (op == RT_COLL_ALLGATHER)
            algo = s->pre[P] < 512 * 1024 ? RT_ALGO_RECDBL : RT_ALGO_RING;
    }
    if (s->emit) /* where auto has no choice, the operation's only algorithm */
        s->emit->algo = algo != RT_ALGO_AUTO ? algo : __builtin_ctz(algo_valid[op]);
    switch (op) {
    case RT_COLL_BARRIER:
        dissemination(s, 0);
        break;
    case RT_COLL_BCAST:
        tree_down(s, 0);
        break;
    case RT_COLL_SCATTER:
        tree_down(s, 1);
        break;
    case RT_COLL_REDUCE:
        tree_up(s, 0);
        break;
    case RT_COLL_GATHER:
        tree_up(s, 1);
        break;
    case RT_COLL_ALLREDUCE:
        if (algo == RT_ALGO_RING)
            ring(s, 2 * ((uint64_t)P - 1), ceil_div(s->mmax, P));
        else
            allreduce_pof2(s, algo == RT_ALGO_RABENSEIFNER);
        break;
    case RT_COLL_ALLGATHER:
        if (algo == RT_ALGO_RING)
            ring(s, (uint64_t)P - 1, UINT64_MAX);
        else
            bruck(s);
        break;
    case RT_COLL_ALLTOALL:
        pairwise(s);
        break;
    case RT_COLL_SCAN:
        scan(s);
        break;
    default:
        dissemination(s, 1);
        break;
    }
    rc = s->failed;
done:
    free(s->next);
    free(s->next_origin);
    free(s->pend);
    free(s->pre);
    return rc;
}

int rt__coll_run(int op, int algo, uint32_t P, uint32_t root, struct rt__coll_member *mem,
                 const struct rt_model *model, rt_bytes eager_limit, const struct rt__coll_noise *noise)
{
    struct sim s = {.m = mem, .P = P, .root = P ? root % P : 0, .model = model, .eager_limit = eager_limit,
                    .noise = noise};
    for (uint32_t i = 0; i < P; i++) {
        mem[i].done = mem[i].begin;
        mem[i].origin = i;
    }
    if (P <= 1)
        return RT_OK;
    return run(&s, op, algo, P);
}

int rt__coll_schedule(int op, int algo, uint32_t P, uint32_t root, struct rt__coll_member *mem,
                      struct rt__coll_sched *out)
{
    memset(out, 0, sizeof *out);
    if (P <= 1)
        return RT_OK;
    struct sim s = {.emit = out, .m = mem, .P = P, .root = root % P};
    int rc = run(&s, op, algo, P);
    if (rc)
        rt__coll_sched_free(out);
    return rc;
}

void rt__coll_sched_free(struct rt__coll_sched *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
