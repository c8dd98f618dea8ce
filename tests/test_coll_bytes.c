/* SPDX-License-Identifier: MIT */
/*
 * Every collective schedule moves the data its operation needs (issue #44, item 4), on sizes that
 * do not divide evenly, odd and even P, P > 32, every root, with and without segments: a white-box
 * test of the coll layer's schedules (rt__coll_schedule, the messages the engine times). What a
 * member must receive, summed over the schedule's messages to it, is a lower bound of the
 * operation itself, whatever the algorithm:
 *   bcast, scatter  every member but the root: its whole block m;
 *   gather          the root: the others' blocks, (P-1)·m;
 *   allgather, alltoall  every member: the others' blocks to it, (P-1)·m;
 *   reduce          the root: m (each element either comes reduced from elsewhere or is reduced
 *                   there, with at least one other member's contribution);
 *   allreduce       every member: m (the same argument);
 *   scan            every member but rank 0: m;
 *   reduce_scatter  every member: its share of the vector, ceil(m/P) where m is the vector.
 * A piece rounded down instead of up (scatter-ring, a segment, a half of an odd message) leaves a
 * member short of its data, which these bounds catch; the timing tests cannot see it when every
 * size divides evenly.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_rules.h"
#include "collective.h"
#include "test_util.h"

static int checked, cases;

static rt_bytes need(int op, int rs, uint32_t P, uint32_t i, uint32_t root, rt_bytes m)
{
    switch (op) {
    case RT_COLL_BCAST:
    case RT_COLL_SCATTER:
        return i == root ? 0 : m;
    case RT_COLL_GATHER:
        return i == root ? (P - 1) * m : 0;
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL:
        return (P - 1) * m;
    case RT_COLL_REDUCE:
        return i == root ? m : 0;
    case RT_COLL_ALLREDUCE:
        return rs ? m / P + (m % P != 0) : m;
    case RT_COLL_SCAN:
        return i == 0 ? 0 : m;
    default:
        return 0;
    }
}

/* One schedule: every member's received bytes against its need. */
static void check_one(int op, int algo, int rs, uint32_t P, uint32_t root, rt_bytes m, rt_bytes seg,
                      uint32_t fanout)
{
    struct rt__coll_member *mem = calloc(P, sizeof *mem);
    rt_bytes *got = calloc(P, sizeof *got);
    struct rt__coll_sched sc = {0};
    struct rt_coll_plan plan = {.op = op, .algo = algo, .seg = seg, .fanout = fanout, .reduce_scatter = (uint8_t)rs};
    if (!mem || !got) {
        CHECK(!"out of memory");
        goto done;
    }
    /* a reduce_scatter's member holds the vector; the others their block m */
    for (uint32_t i = 0; i < P; i++)
        mem[i].block = m;
    if (algo == RT_ALGO_REDUCE_BCAST || algo == RT_ALGO_SEGMENTED_RING) { /* composites: their parts as chosen */
        uint8_t over[RT_COLL_OTHER + 1] = {0};
        over[op] = (uint8_t)algo;
        rt_coll_plan_choose(NULL, over, op, 0, P, m, (rt_bytes)P * m, &plan);
        plan.seg = seg ? seg : plan.seg;
        plan.reduce_scatter = (uint8_t)rs;
    }
    if (rt__coll_schedule(&plan, P, root, mem, &sc) != RT_OK) {
        fprintf(stderr, "%s=%s P=%u: no schedule\n", rt_coll_op_name(op), rt_coll_algo_name(algo), P);
        rt_test_failures++;
        goto done;
    }
    for (size_t k = 0; k < sc.n; k++)
        if (sc.v[k].b < P)
            got[sc.v[k].b] += sc.v[k].m;
    for (uint32_t i = 0; i < P; i++) {
        rt_bytes want = need(op, rs, P, i, root, m);
        checked++;
        if (got[i] < want) {
            fprintf(stderr, "%s=%s P=%u root=%u m=%llu seg=%llu fanout=%u: member %u receives %llu bytes, needs %llu\n",
                    rs ? "reduce_scatter" : rt_coll_op_name(op), rt_coll_algo_name(algo), P, root,
                    (unsigned long long)m, (unsigned long long)seg, fanout, i, (unsigned long long)got[i],
                    (unsigned long long)want);
            rt_test_failures++;
            break;
        }
    }
    rt__coll_sched_free(&sc);
    cases++;
done:
    free(mem);
    free(got);
}

/* rt_coll_call_bytes: the block a member passed, from its own counts in Score-P's convention
 * (tests/coll_harness.c: counts) for every operation, root and not, P = 8 and b = 1000. */
static void test_call_bytes(void)
{
    const uint32_t P = 8;
    const rt_bytes b = 1000;
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_ALLREDUCE, 0, P, 0, P * b, P * b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_ALLGATHER, 0, P, 0, P * b, P * b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_ALLTOALL, 0, P, 0, P * b, P * b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_BCAST, 0, P, 1, P * b, b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_BCAST, 0, P, 0, 0, b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_REDUCE, 0, P, 1, b, P * b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_GATHER, 0, P, 0, b, 0), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_SCATTER, 0, P, 1, P * b, b), b);
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_SCAN, 0, P, 0, (P - 3) * b, 4 * b), b); /* member 3 */
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_BARRIER, 0, P, 0, 0, 0), 0);
    /* counts of no Score-P reading: the larger count */
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_ALLREDUCE, 0, P, 0, 7 * 143, 7 * 143), 143); /* in place: (P-1)·b */
    CHECK_EQ_INT(rt_coll_call_bytes(RT_COLL_ALLREDUCE, 0, P, 0, 1003, 1003), 1003);
}

int main(void)
{
    test_call_bytes();
    static const uint32_t Ps[] = {2, 3, 5, 6, 7, 8, 13, 31, 32, 33, 47, 64};
    static const rt_bytes ms[] = {1, 7, 1000, 1001, 4097, 65537, 100003};
    static const rt_bytes segs[] = {0, 1000, 4097};
    static const uint32_t fans[] = {0, 3};
    static const int rs_algos[] = {RT_ALGO_RABENSEIFNER, RT_ALGO_RING, RT_ALGO_PAIRWISE, RT_ALGO_REDUCE_BCAST};
    int pairs = 0;
    for (int op = RT_COLL_BARRIER; op < RT_COLL_OTHER; op++)
        for (int algo = RT_ALGO_AUTO + 1; algo < RT_ALGO_COUNT + 4; algo++) {
            int rs = algo >= RT_ALGO_COUNT; /* the last four: reduce_scatter's */
            int o = rs ? RT_COLL_ALLREDUCE : op, a = rs ? rs_algos[algo - RT_ALGO_COUNT] : algo;
            if ((rs && op != RT_COLL_ALLREDUCE) || !rt__coll_algo_applies(o, a) ||
                (!rs && o == RT_COLL_ALLREDUCE && a == RT_ALGO_PAIRWISE)) /* pairwise: reduce_scatter only */
                continue;
            pairs++;
            for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++)
                for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
                    uint32_t P = Ps[i];
                    /* rooted operations at three roots; the others run with root 0, as the engine gives them */
                    int rooted = o == RT_COLL_BCAST || o == RT_COLL_SCATTER || o == RT_COLL_GATHER || o == RT_COLL_REDUCE;
                    uint32_t roots[3] = {0, P - 1, P / 2};
                    for (int r = 0; r < (rooted ? 3 : 1); r++)
                        for (size_t s = 0; s < sizeof segs / sizeof segs[0]; s++)
                            for (size_t f = 0; f < sizeof fans / sizeof fans[0]; f++)
                                check_one(o, a, rs, P, roots[r], ms[j], segs[s], fans[f]);
                }
        }
    printf("%d (operation, algorithm) pairs, %d schedules, %d members checked\n", pairs, cases, checked);
    CHECK_EQ_INT(pairs, 49); /* the 50 pairs of test_coll_path but pairwise allreduce, reduce_scatter's only */
    TEST_MAIN_END();
}
