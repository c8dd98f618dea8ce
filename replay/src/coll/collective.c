/* SPDX-License-Identifier: MIT */
/*
 * Collectives: the algorithms each operation may run and their names, the choice table's
 * parsing, and the members' blocks derived from the trace's byte counts. The algorithms
 * themselves are in algo_<operation>.c, the core they run on in coll_sim.c, the rules that
 * choose them in rules*.c (docs/collectives.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_sim.h"

static const char *const algo_names[RT_ALGO_COUNT] = {
    [RT_ALGO_AUTO] = "auto", [RT_ALGO_DISSEMINATION] = "dissemination", [RT_ALGO_BINOMIAL] = "binomial",
    [RT_ALGO_RECDBL] = "recdbl", [RT_ALGO_RING] = "ring", [RT_ALGO_RABENSEIFNER] = "rabenseifner",
    [RT_ALGO_PAIRWISE] = "pairwise", [RT_ALGO_BRUCK] = "bruck", [RT_ALGO_LINEAR] = "linear",
    [RT_ALGO_PIPELINE] = "pipeline", [RT_ALGO_CHAIN] = "chain", [RT_ALGO_BINARY] = "binary",
    [RT_ALGO_SPLIT_BINARY] = "split-binary", [RT_ALGO_KNOMIAL] = "knomial",
    [RT_ALGO_IN_ORDER_BINARY] = "in-order-binary", [RT_ALGO_SCATTER_RECDBL] = "scatter-recdbl",
    [RT_ALGO_SCATTER_RING] = "scatter-ring", [RT_ALGO_SEGMENTED_RING] = "segmented-ring",
    [RT_ALGO_REDUCE_BCAST] = "reduce-bcast", [RT_ALGO_NEIGHBOR] = "neighbor",
    [RT_ALGO_ALL_AT_ONCE] = "all-at-once", [RT_ALGO_LINEAR_SYNC] = "linear-sync",
    [RT_ALGO_LINEAR_NB] = "linear-nb", [RT_ALGO_TREE] = "tree", [RT_ALGO_DOUBLE_RING] = "double-ring",
};

/* Which algorithms each operation may run, and the function that runs each (algo_*.c). */
static const struct {
    uint8_t op, algo;
    rt__coll_algo_fn_t fn;
} algos[] = {
    {RT_COLL_BARRIER, RT_ALGO_DISSEMINATION, rt__alg_barrier_dissemination},
    {RT_COLL_BARRIER, RT_ALGO_RECDBL, rt__alg_barrier_recdbl},
    {RT_COLL_BARRIER, RT_ALGO_BRUCK, rt__alg_barrier_dissemination}, /* the same schedule */
    {RT_COLL_BARRIER, RT_ALGO_LINEAR, rt__alg_barrier_linear},
    {RT_COLL_BARRIER, RT_ALGO_TREE, rt__alg_barrier_tree},
    {RT_COLL_BARRIER, RT_ALGO_DOUBLE_RING, rt__alg_barrier_double_ring},
    {RT_COLL_BCAST, RT_ALGO_BINOMIAL, rt__alg_bcast_binomial},
    {RT_COLL_BCAST, RT_ALGO_SCATTER_RECDBL, rt__alg_bcast_scatter_recdbl},
    {RT_COLL_BCAST, RT_ALGO_SCATTER_RING, rt__alg_bcast_scatter_ring},
    {RT_COLL_BCAST, RT_ALGO_PIPELINE, rt__alg_bcast_pipeline},
    {RT_COLL_BCAST, RT_ALGO_CHAIN, rt__alg_bcast_chain},
    {RT_COLL_BCAST, RT_ALGO_BINARY, rt__alg_bcast_binary},
    {RT_COLL_BCAST, RT_ALGO_SPLIT_BINARY, rt__alg_bcast_split_binary},
    {RT_COLL_BCAST, RT_ALGO_KNOMIAL, rt__alg_bcast_knomial},
    {RT_COLL_BCAST, RT_ALGO_LINEAR, rt__alg_bcast_linear},
    {RT_COLL_GATHER, RT_ALGO_BINOMIAL, rt__alg_gather_binomial},
    {RT_COLL_GATHER, RT_ALGO_LINEAR, rt__alg_gather_linear},
    {RT_COLL_GATHER, RT_ALGO_LINEAR_SYNC, rt__alg_gather_linear_sync},
    {RT_COLL_SCATTER, RT_ALGO_BINOMIAL, rt__alg_scatter_binomial},
    {RT_COLL_SCATTER, RT_ALGO_LINEAR, rt__alg_scatter_linear},
    {RT_COLL_SCATTER, RT_ALGO_LINEAR_NB, rt__alg_scatter_linear_nb},
    {RT_COLL_ALLGATHER, RT_ALGO_BRUCK, rt__alg_allgather_bruck},
    {RT_COLL_ALLGATHER, RT_ALGO_RECDBL, rt__alg_allgather_recdbl},
    {RT_COLL_ALLGATHER, RT_ALGO_RING, rt__alg_allgather_ring},
    {RT_COLL_ALLGATHER, RT_ALGO_NEIGHBOR, rt__alg_allgather_neighbor},
    {RT_COLL_ALLGATHER, RT_ALGO_LINEAR, rt__alg_allgather_linear},
    {RT_COLL_ALLTOALL, RT_ALGO_PAIRWISE, rt__alg_alltoall_pairwise},
    {RT_COLL_ALLTOALL, RT_ALGO_BRUCK, rt__alg_alltoall_bruck},
    {RT_COLL_ALLTOALL, RT_ALGO_ALL_AT_ONCE, rt__alg_alltoall_all_at_once},
    {RT_COLL_ALLTOALL, RT_ALGO_LINEAR, rt__alg_alltoall_linear},
    {RT_COLL_REDUCE, RT_ALGO_BINOMIAL, rt__alg_reduce_binomial},
    {RT_COLL_REDUCE, RT_ALGO_RABENSEIFNER, rt__alg_reduce_rabenseifner},
    {RT_COLL_REDUCE, RT_ALGO_PIPELINE, rt__alg_reduce_pipeline},
    {RT_COLL_REDUCE, RT_ALGO_CHAIN, rt__alg_reduce_chain},
    {RT_COLL_REDUCE, RT_ALGO_BINARY, rt__alg_reduce_binary},
    {RT_COLL_REDUCE, RT_ALGO_IN_ORDER_BINARY, rt__alg_reduce_in_order_binary},
    {RT_COLL_REDUCE, RT_ALGO_LINEAR, rt__alg_reduce_linear},
    {RT_COLL_ALLREDUCE, RT_ALGO_RECDBL, rt__alg_allreduce_recdbl},
    {RT_COLL_ALLREDUCE, RT_ALGO_RABENSEIFNER, rt__alg_allreduce_rabenseifner},
    {RT_COLL_ALLREDUCE, RT_ALGO_RING, rt__alg_allreduce_ring},
    {RT_COLL_ALLREDUCE, RT_ALGO_SEGMENTED_RING, rt__alg_allreduce_segmented_ring},
    {RT_COLL_ALLREDUCE, RT_ALGO_REDUCE_BCAST, rt__alg_allreduce_reduce_bcast},
    {RT_COLL_ALLREDUCE, RT_ALGO_LINEAR, rt__alg_allreduce_linear},
    {RT_COLL_ALLREDUCE, RT_ALGO_PAIRWISE, rt__alg_allreduce_pairwise}, /* reduce_scatter only */
    {RT_COLL_SCAN, RT_ALGO_RECDBL, rt__alg_scan_recdbl},
    {RT_COLL_SCAN, RT_ALGO_LINEAR, rt__alg_scan_linear},
    {RT_COLL_OTHER, RT_ALGO_DISSEMINATION, rt__alg_other},
};

rt__coll_algo_fn_t rt__coll_algo_fn(int op, int algo)
{
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++)
        if (algos[i].op == op && algos[i].algo == algo)
            return algos[i].fn;
    return NULL;
}

/* ------------------------------------------------------------------ algorithm names */

const char *rt_coll_algo_name(int algo)
{
    return algo >= 0 && algo < RT_ALGO_COUNT ? algo_names[algo] : "unknown";
}

int rt__coll_algo_applies(int op, int algo)
{
    if (op < 0 || op > RT_COLL_OTHER || algo < 0 || algo >= RT_ALGO_COUNT)
        return 0;
    return algo == RT_ALGO_AUTO || rt__coll_algo_fn(op, algo) != NULL;
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
    char buf[256];
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
    char buf[256];
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

/* The first of a member's readings (candidates) that its counts fit; the larger count if none. */
static rt_bytes fitting_block(int op, uint64_t P, uint64_t me, int is_root, rt_bytes s, rt_bytes r)
{
    rt_bytes c[4];
    int n = candidates(op, P, me, is_root, s, r, c);
    for (int i = 0; i < n; i++)
        if (fits(op, P, me, is_root, s, r, c[i]))
            return c[i];
    return s > r ? s : r;
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
    default:
        return fitting_block(op, P, me, is_root, s, r);
    }
}

void rt__coll_measured_binders(int op, uint32_t P, uint32_t root, struct rt__coll_member *mem)
{
    uint32_t last = 0; /* the latest entry of all (ties: the lowest rank) */
    for (uint32_t i = 1; i < P; i++)
        if (mem[i].mentry > mem[last].mentry)
            last = i;
    uint32_t upto = 0; /* scan: the latest of members 0..i so far */
    for (uint32_t i = 0; i < P; i++) {
        uint32_t b;
        switch (op) {
        case RT_COLL_BCAST:
        case RT_COLL_SCATTER:
            b = root < P ? root : i;
            break;
        case RT_COLL_REDUCE:
        case RT_COLL_GATHER:
            b = i == root ? last : i;
            break;
        case RT_COLL_SCAN:
            if (mem[i].mentry > mem[upto].mentry)
                upto = i;
            b = upto;
            break;
        default:
            b = last;
            break;
        }
        mem[i].mbind = mem[b].mentry > mem[i].mentry ? b : i;
    }
}

uint32_t rt__coll_measured_binder(int op, uint32_t P, uint32_t root, const struct rt__coll_member *mem, uint32_t i)
{
    uint32_t b = i;
    if ((op == RT_COLL_BCAST || op == RT_COLL_SCATTER) && root < P)
        b = root;
    else if (op == RT_COLL_SCAN) {
        b = 0;
        for (uint32_t k = 1; k <= i && k < P; k++)
            if (mem[k].mentry > mem[b].mentry)
                b = k;
    }
    return mem[b].mentry > mem[i].mentry ? b : i;
}

rt_bytes rt_coll_call_bytes(int op, int vector, uint32_t P, int is_root, rt_bytes sent, rt_bytes recv)
{
    if (op == RT_COLL_BARRIER || P == 0)
        return 0;
    if (op == RT_COLL_SCAN) { /* (P-me)·b + (me+1)·b = (P+1)·b; in place (P-1)·b: me drops out */
        rt_bytes t = sent + recv;
        return t % (P + 1) == 0 ? t / (P + 1) : P > 1 && t % (P - 1) == 0 ? t / (P - 1) : (sent > recv ? sent : recv);
    }
    if (vector || op == RT_COLL_OTHER)
        return own_block(op, P, 0, is_root, sent, recv);
    return fitting_block(op, P, 0, is_root, sent, recv);
}

/* The block of member @p me whose call was MPI_IN_PLACE (its counts leave its own block out), or 0
 * when its counts give none. */
static rt_bytes in_place_block(int op, uint64_t P, uint64_t me, int is_root, rt_bytes s, rt_bytes r)
{
    rt_bytes x = 0;
    uint64_t k = 0;
    switch (op) {
    case RT_COLL_ALLREDUCE:
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL:
        x = s, k = P - 1;
        break;
    case RT_COLL_REDUCE:
    case RT_COLL_GATHER:
        x = is_root ? r : 0, k = P - 1;
        break;
    case RT_COLL_SCATTER:
        x = is_root ? s : 0, k = P - 1;
        break;
    case RT_COLL_SCAN:
        x = me + 1 < P ? s : r, k = me + 1 < P ? P - me - 1 : me;
        break;
    default:
        break;
    }
    return k && x % k == 0 ? x / k : 0;
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
     * the reading every member fits wins, the in-place one first where a member says it was
     * (retime-trace's retime::in_place: e.g. an allreduce of 64 KiB in place on 64 ranks counts
     * 63 x 64 KiB, which also reads as 64 x 63 KiB). */
    rt_bytes c[5];
    int n = 0;
    for (uint32_t i = 0; i < P; i++)
        if (mem[i].in_place) {
            rt_bytes ip = in_place_block(op, P, i, i == root, mem[i].sent, mem[i].recv);
            if (ip)
                c[n++] = ip;
            break;
        }
    n += candidates(op, P, 0, root == 0, mem[0].sent, mem[0].recv, c + n);
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
