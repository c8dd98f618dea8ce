/* SPDX-License-Identifier: MIT */
/*
 * The collective algorithms of MPICH and Open MPI (issue #31): each against a closed form derived
 * by hand under Hockney (T(m) = 2000 + m ns, a send holds its port T(m), coll_harness.h), on
 * powers of two and not, run in one go, then message by message on a crossbar network with each
 * rank's sends in order (the same answers: issue #46) and shared; and
 * the rule sets (mpich, openmpi, rules files) at, just below and just above each threshold.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_harness.h"
#include "test_util.h"

#define T0 T(0)
#define T1 T(1000)
#define T2 T(2000)
#define T4 T(4000)

/* On a crossbar network with shared injection (the third pass) a member's messages that are on
 * the wire at once share its NIC link max-min fairly instead of queueing at its port: k flows of
 * m bytes started together all arrive at α + k·m·β, and an eager sender is done T(m) after it
 * posted each. In order (the second pass) the network gives the one-go answers. */
#define SHARED_NET (g_topology && g_injection == RT_INJECT_SHARED)
#define NET(one_go, network) (SHARED_NET ? (network) : (one_go))
/* Where a receive port takes messages of several rounds: in one go it takes them round by round,
 * the network (in order) in the order they arrive, so a message that arrived early is not queued
 * behind a later round's. The answers then differ (issue #46, item 2, left open); these cases are
 * checked in one go and shared only. */
#define ROUND_ORDER_DIFFERS (g_topology && g_injection == RT_INJECT_IN_ORDER)
#define US 1000000LL /* ps per µs */

/* A rules file in the tests' directory holding @p text; its path in @p path. */
static void rules_file(char *path, size_t n, const char *text)
{
    static int k;
    snprintf(path, n, "%s/rules%d.txt", tmp_root, k++);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ------------------------------------------------------------------ bcast */

/* linear, P = 5, root 2: the root posts four sends at once; its port injects them T apart, so
 * rel k has the message at k·T and the root is done at 4T. */
static void test_bcast_linear(void)
{
    struct setup su = {.algos = "bcast=linear"};
    rt_time_ps want[5];
    for (uint32_t r = 0; r < 5; r++) /* network: 4 flows of 1000 B share the root's link */
        want[r] = r == 2 ? NET(4 * T1, T1) : NET(((r + 5 - 2) % 5) * T1, 6 * US);
    check_coll("bcast linear P=5 root=2", &su, 5, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 2, 1000, NULL, want);
}

/* pipeline, P = 4, one segment: a chain, rel k receives at k·T and forwards until (k+1)·T. */
static void test_bcast_pipeline(void)
{
    struct setup su = {.algos = "bcast=pipeline"};
    rt_time_ps want[4] = {T1, 2 * T1, 3 * T1, 3 * T1};
    check_coll("bcast pipeline P=4", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, NULL, want);
}

/* pipeline in 4 segments of 250 B, P = 4 (a rules file): rel d forwards segment j during
 * [(j+d)·T, (j+d+1)·T] with T = T(250): the root is done at 4T, rel 1 at 5T, rel 2 and the leaf
 * rel 3 at 6T. */
static void test_bcast_pipeline_segments(void)
{
    char path[300];
    rules_file(path, sizeof path, "# a segmented chain\nbcast * * pipeline seg=250B\n");
    struct setup su = {.rules = path};
    rt_time_ps want[4] = {4 * T(250), 5 * T(250), 6 * T(250), 6 * T(250)};
    check_coll("bcast pipeline 4 segments P=4", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, NULL, want);
}

/* knomial radix 4, P = 6: 0 serves 4 (the farthest) then 1, 2, 3, posted at once (injected 0, T,
 * 2T, 3T); 4 forwards to 5 at T. */
static void test_bcast_knomial(void)
{
    struct setup su = {.algos = "bcast=knomial"};
    rt_time_ps want[6] = {NET(4 * T1, T1),     NET(2 * T1, 6 * US), NET(3 * T1, 6 * US),
                          NET(4 * T1, 6 * US), NET(2 * T1, 9 * US), NET(2 * T1, 9 * US)};
    check_coll("bcast knomial P=6", &su, 6, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, NULL, want);
}

/* scatter-recdbl, P = 8, m = 8000 B (pieces of 1000 B): the binomial scatter ends at
 * T(4000) + T(2000) + T(1000) for everyone, the recursive doubling adds the same again. */
static void test_bcast_scatter_recdbl(void)
{
    struct setup su = {.algos = "bcast=scatter-recdbl"};
    rt_time_ps want[8];
    fill(want, 8, 2 * (T4 + T2 + T1));
    check_coll("bcast scatter-recdbl P=8", &su, 8, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 8000, NULL, want);
}

/* scatter-ring, P = 5, m = 5000 B: the scatter sends 1000 B to 4, 2000 B to 2, then 1000 B to 1
 * and 2 -> 3 (done at 2T1 + T2, rank 4 at T1); four ring steps of 1000 B follow, the first bound
 * by the last scatter receive: all end at 6T1 + T2. */
static void test_bcast_scatter_ring(void)
{
    struct setup su = {.algos = "bcast=scatter-ring"};
    rt_time_ps want[5];
    fill(want, 5, 6 * T1 + T2);
    check_coll("bcast scatter-ring P=5", &su, 5, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 5000, NULL, want);
}

/* split-binary, P = 4, m = 2000 B: halves of 1000 B to 1 (injected at 0) and 2 (at T1), 1 passes
 * its half to 3 at T1; then 1 and 2 swap halves and the root sends the second half to 3 (even
 * P: 3 has no partner), all at 2T1: everyone ends at 3T1. */
static void test_bcast_split_binary(void)
{
    struct setup su = {.algos = "bcast=split-binary"};
    rt_time_ps want[4];
    fill(want, 4, 3 * T1);
    if (SHARED_NET) { /* the halves share the root's link (4 µs); 2 -> 1 waits for 1's send to 3 */
        rt_time_ps net[4] = {6 * US, 10 * US, 10 * US, 7 * US};
        memcpy(want, net, sizeof net);
    }
    check_coll("bcast split-binary P=4", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 2000, NULL, want);
}

/* Split-binary with halves that differ (issue #44, item 4): P = 4, m = 2001 B, halves 1001 and
 * 1000 B; tree 0 -> {1, 2}, 1 -> 3; odd ranks carry the first half. The root sends 1001 B to 1
 * (0 - 3001 ns, its port busy) then 1000 B to 2 (3001 - 6001); 1 forwards its 1001 B to 3 (3001
 * - 6002). The swap: 1 and 2 trade halves (1 -> 2 at 6002 arrives 9003, 2 -> 1 at 6001 arrives
 * 9001; both done at 9003), and the last rank of an even P, 3, gets the second half, 1000 B, from
 * the root (sent 6001 - 9001; delivered at 9002, one gap of 1000 B after 3's delivery at 6002).
 * The first half instead would end 0 at 9002 and 3 at 9003. One go only: on the network the halves
 * share links. */
static void test_bcast_split_binary_uneven(void)
{
    if (SHARED_NET)
        return;
    struct setup su = {.algos = "bcast=split-binary"};
    rt_time_ps want[4] = {9001 * NS, 9003 * NS, 9003 * NS, 9002 * NS};
    check_coll("bcast split-binary P=4 m=2001", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 2001, NULL, want);
}

/* A member's sends of one round are posted one after the other: under LogP-lite with o_s = 500 ns
 * above g = 100 ns, the linear bcast's root posts at 500, 1000, 1500 ns (injected then, eager:
 * it is done at its last injection) and rel k has its 1-byte message L later ((m-1)·G = 0; the
 * network's G = 0.001 ns/B only gives it a bandwidth). Posted all at once they would leave at
 * 500, 600, 700 ns. */
static void test_sends_posted_in_turn(void)
{
    static const struct rt_model_params p = {.L_ns = 1000, .o_s_ns = 500, .o_r_ns = 0, .g_ns = 100, .G_ns_per_byte = 0.001};
    struct setup su = {.model = "logp", .params = &p, .algos = "bcast=linear"};
    rt_time_ps want[4] = {1500 * NS, 1500 * NS, 2000 * NS, 2500 * NS};
    check_coll("bcast linear P=4 logp o_s > g", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1, NULL, want);
}

/* ------------------------------------------------------------------ reduce */

/* linear, P = 4: the root receives from 3, 2, 1 in turn, one T apart at its port. */
static void test_reduce_linear(void)
{
    struct setup su = {.algos = "reduce=linear"};
    rt_time_ps want[4] = {NET(3 * T1, 5 * US), T1, T1, T1}; /* network: 3 flows into the root's link */
    check_coll("reduce linear P=4", &su, 4, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, NULL, want);
}

/* Open MPI's basic linear reduce takes its senders from rank P-1 down (issue #44, item 4): with
 * rank 3 late by 10 us, the root waits for 3's vector (sent at 10 us, delivered at 13 us), then
 * takes 2's and 1's, long arrived, one port gap of T(1000) apart: 16 and 19 us. In rank order it
 * would end at 13 us. Each sender is done when its eager send is: T, T, 10 us + T. */
static void test_reduce_linear_late(void)
{
    if (SHARED_NET || ROUND_ORDER_DIFFERS) /* (in order: 13 us, the root takes 2's and 1's as they came) */
        return;
    struct setup su = {.algos = "reduce=linear", .scale = 1};
    const uint64_t late[4] = {0, 0, 0, 10000};
    rt_time_ps want[4] = {19 * US, T1, T1, 10 * US + T1};
    check_coll("reduce linear P=4, rank 3 late", &su, 4, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, late, want);
}

/* in-order binary, P = 5, root 0: the tree 4 <- {3, 1}, 3 <- 2, 1 <- 0; 3's vector reaches 4 at
 * 2T, 1's after it at 3T, then 4 sends the result to the root: 4T. */
static void test_reduce_in_order_binary(void)
{
    struct setup su = {.algos = "reduce=in-order-binary"};
    rt_time_ps want[5] = {NET(4 * T1, 10 * US), 2 * T1, T1, 2 * T1, NET(4 * T1, 10 * US)};
    check_coll("reduce in-order-binary P=5", &su, 5, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, NULL, want);
}

/* in-order binary, P = 6 (an even subtree size): 5 <- {2, 4}, 2 <- {0, 1}, 4 <- 3; 2 takes its
 * two children's vectors at T and 2T, 5 takes 4's at 2T and 2's at 3T, then sends to the root.
 * Network: 0 and 1 share 2's link (4 µs), 4's and 2's flows reach 5 at 6 and 7 µs. */
static void test_reduce_in_order_binary_even(void)
{
    struct setup su = {.algos = "reduce=in-order-binary"};
    rt_time_ps want[6] = {NET(4 * T1, 10 * US), T1, NET(3 * T1, 7 * US), T1, NET(2 * T1, 6 * US), NET(4 * T1, 10 * US)};
    check_coll("reduce in-order-binary P=6", &su, 6, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, NULL, want);
}

/* rabenseifner, P = 4, m = 4000 B: halving exchanges 2000 then 1000 B (7 µs), then the gather:
 * 1 -> 0 and 3 -> 2 of 1000 B, 2 -> 0 of 2000 B. Root 1 is the mirror image (rank XOR 1). */
static void test_reduce_rabenseifner(void)
{
    struct setup su = {.algos = "reduce=rabenseifner"};
    rt_time_ps h = T2 + T1;
    rt_time_ps want0[4] = {h + T1 + T2, h + T1, h + T1 + T2, h + T1};
    check_coll("reduce rabenseifner P=4 root=0", &su, 4, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 4000, NULL, want0);
    rt_time_ps want1[4] = {h + T1, h + T1 + T2, h + T1, h + T1 + T2};
    check_coll("reduce rabenseifner P=4 root=1", &su, 4, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 1, 4000, NULL, want1);
}

/* rabenseifner, P = 6 (pof2 4, rem 2), root 1 outside the group: 1 and 3 hand their vectors to 0
 * and 2 (T4), halving among ranks 0, 2, 4, 5 (2000 B, then 1000 B), the gather to 0 (1000 B from
 * 2 and from 5 to 4, then 2000 B from 4), and 0, the root's stand-in, sends the result to 1. */
static void test_reduce_rabenseifner_odd_root(void)
{
    if (ROUND_ORDER_DIFFERS) /* (in order: 29, 29, 19, 6, 23, 19 us) */
        return;
    struct setup su = {.algos = "reduce=rabenseifner"};
    rt_time_ps want[6] = {26000 * NS, 26000 * NS, 16000 * NS, 6000 * NS, 20000 * NS, 16000 * NS};
    check_coll("reduce rabenseifner P=6 root=1", &su, 6, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 1, 4000, NULL, want);
}

/* ------------------------------------------------------------------ allreduce */

/* segmented ring, P = 4, m = 4000 B in segments of 500 B: blocks of 1000 B in two phases of
 * 500 B (2·3 rounds of T(500)), then 3 allgather rounds of T(1000). */
static void test_allreduce_segmented_ring(void)
{
    char path[300];
    rules_file(path, sizeof path, "allreduce 2-64 1KiB- segmented-ring seg=500B\n");
    struct setup su = {.rules = path};
    rt_time_ps want[4];
    fill(want, 4, 6 * T(500) + 3 * T1);
    check_coll("allreduce segmented-ring P=4", &su, 4, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 4000,
               NULL, want);
}

/* The segmented ring on sizes that do not divide (issue #44, item 4): P = 3, m = 1001 B, 100-B
 * segments: the block is ceil(1001 / 3) = 334 B, in ceil(334 / 100) = 4 phases of ceil(334 / 4) =
 * 84 B (the last 82 B), each 2 ring rounds; then 2 rounds of the block:
 * 2 (3 T(84) + T(82)) + 2 T(334) = 21336 ns. A block or a share rounded down gives 21332 ns. */
static void test_allreduce_segmented_ring_uneven(void)
{
    if (SHARED_NET)
        return;
    char path[300];
    rules_file(path, sizeof path, "allreduce * * segmented-ring seg=100B\n");
    struct setup su = {.rules = path};
    rt_time_ps want[3];
    fill(want, 3, 2 * (3 * T(84) + T(82)) + 2 * T(334));
    check_coll("allreduce segmented-ring P=3 m=1001", &su, 3, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT,
               1001, NULL, want);
}

/* reduce-bcast, P = 4, m = 1000 B (parts binomial): up in 2T, down in 2T. */
static void test_allreduce_reduce_bcast(void)
{
    struct setup su = {.algos = "allreduce=reduce-bcast"};
    rt_time_ps want[4];
    fill(want, 4, 4 * T1);
    check_coll("allreduce reduce-bcast P=4", &su, 4, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 1000,
               NULL, want);
}

/* reduce_scatter of a 4000 B vector (blocks of 1000 B) as the libraries run it; retime's rules
 * time it as the allreduce of its vector, as before (2 (T(2000) + T(1000))). */
static void test_reduce_scatter(void)
{
    char path[300];
    rt_time_ps want[5];
    struct setup mp = {.rules = "mpich"}; /* recursive halving: 2000 B, then 1000 B */
    fill(want, 4, T2 + T1);
    check_coll("reduce_scatter mpich P=4", &mp, 4, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, "MPI_Reduce_scatter", NO_ROOT,
               4000, NULL, want);
    /* P = 5: 1 hands its vector to 0 (T(4000)), halving among 0, 2, 3, 4, then 0 passes rank 1
     * its block of 800 B */
    rt_time_ps w5[5] = {15800 * NS, 15800 * NS, 13000 * NS, 13000 * NS, 13000 * NS};
    /* (shared: 2's first halving flow shares 0's link with 1's pre-step flow; in order: 0's port
     * takes 2's halving message, which came first, before 1's vector: 19.8, 19.8, 17, 17, 17 us) */
    if (!SHARED_NET && !ROUND_ORDER_DIFFERS)
        check_coll("reduce_scatter mpich P=5", &mp, 5, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, "MPI_Reduce_scatter",
                   NO_ROOT, 4000, NULL, w5);
    rules_file(path, sizeof path, "reduce_scatter * * pairwise\n");
    struct setup pw = {.rules = path}; /* 3 rounds of one block */
    fill(want, 4, 3 * T1);
    check_coll("reduce_scatter pairwise P=4", &pw, 4, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, "MPI_Reduce_scatter",
               NO_ROOT, 4000, NULL, want);
    rules_file(path, sizeof path, "reduce_scatter * * reduce-bcast\n");
    struct setup rb = {.rules = path}; /* binomial reduce of 4000 B to 0 (2 T(4000)), then its blocks */
    rt_time_ps w4[4] = {2 * T4 + 3 * T1, 2 * T4 + T1, 2 * T4 + 2 * T1, 2 * T4 + 3 * T1};
    check_coll("reduce_scatter reduce-bcast P=4", &rb, 4, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, "MPI_Reduce_scatter",
               NO_ROOT, 4000, NULL, w4);
    fill(want, 4, 2 * (T2 + T1)); /* retime's: the allreduce of the vector */
    check_coll("reduce_scatter retime P=4", NULL, 4, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, "MPI_Reduce_scatter", NO_ROOT,
               4000, NULL, want);
}

/* reduce_scatter_block of 1000 B per rank (Score-P: 4000 B sent and received) is the reduce_scatter
 * of the 4000 B vector, not an allreduce of 1000 B (2 T(1000) by recursive doubling). */
static void test_reduce_scatter_block(void)
{
    rt_time_ps want[4];
    struct setup mp = {.rules = "mpich"};
    fill(want, 4, T2 + T1);
    check_coll("reduce_scatter_block mpich P=4", &mp, 4, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
               "MPI_Reduce_scatter_block", NO_ROOT, 1000, NULL, want);
    fill(want, 4, 2 * (T2 + T1));
    check_coll("reduce_scatter_block retime P=4", NULL, 4, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
               "MPI_Reduce_scatter_block", NO_ROOT, 1000, NULL, want);
}

/* ------------------------------------------------------------------ allgather, alltoall */

/* neighbour exchange, P = 4: one block with the neighbour, then two blocks with the other. */
static void test_allgather_neighbor(void)
{
    struct setup su = {.algos = "allgather=neighbor"};
    rt_time_ps want[5];
    fill(want, 4, T1 + T2);
    check_coll("allgather neighbor P=4", &su, 4, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 1000, NULL,
               want);
    /* P = 5 (odd): the ring, 4 rounds of one block */
    fill(want, 5, 4 * T1);
    check_coll("allgather neighbor P=5 (ring)", &su, 5, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 1000,
               NULL, want);
}

/* neighbour exchange of unequal blocks (allgatherv, 1000 B on ranks 0 and 1, 3000 B on 2 and 3):
 * after the first swap (0 and 1 at T(1000), 2 and 3 at T(3000)), 0 sends blocks 0-1 to 3 and gets
 * blocks 2-3 (6000 B) from 3, which sends at T(3000): everyone ends at T(3000) + T(6000). */
static void test_allgatherv_neighbor(void)
{
    char dir[300];
    static const uint64_t blk[4] = {1000, 1000, 3000, 3000};
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    for (uint32_t r = 0; r < 4; r++)
        add_call(b, r, 0, "MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, NO_ROOT, 4 * blk[r], 8000);
    CHECK_EQ_INT(tb_close(b), 0);
    struct setup su = {.algos = "allgather=neighbor"};
    rt_time_ps end[4];
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, &su, end, 4, &err), RT_OK);
    for (uint32_t r = 0; r < 4 && !SHARED_NET; r++)
        CHECK_EQ_INT(end[r], T(3000) + T(6000));
}

/* Bruck's alltoall, P = 5: rounds of the blocks whose index has bit 1 (2 blocks), bit 2 (2)
 * and bit 4 (1). */
static void test_alltoall_bruck(void)
{
    struct setup su = {.algos = "alltoall=bruck"};
    rt_time_ps want[5];
    fill(want, 5, 2 * T2 + T1);
    check_coll("alltoall bruck P=5", &su, 5, OTF2_COLLECTIVE_OP_ALLTOALL, "MPI_Alltoall", NO_ROOT, 1000, NULL, want);
}

/* all at once, P = 4: each rank's three sends leave T apart; it receives at T, 2T and 3T. */
static void test_alltoall_all_at_once(void)
{
    struct setup su = {.algos = "alltoall=all-at-once"};
    rt_time_ps want[4];
    fill(want, 4, NET(3 * T1, 5 * US)); /* network: 3 flows on every link at once */
    check_coll("alltoall all-at-once P=4", &su, 4, OTF2_COLLECTIVE_OP_ALLTOALL, "MPI_Alltoall", NO_ROOT, 1000, NULL,
               want);
}

/* Open MPI's all-at-once alltoall posts its P-1 exchanges 32 at a time (issue #44, item 4): at
 * P = 33 all 32 in one round, at P = 34 a second round for the 33rd. LogP-lite (o_s = 100, o_r =
 * 200, g = 300, L = 1000 ns, G = 0): a member's k-th send is injected at 100 + 300 (k - 1) (its
 * port, not its CPU, sets the pace), the k-th message to it arrives L later and takes its o_r:
 * P = 33, the 32nd at 100 + 31 * 300 + 1000 = 10400, done at 10600. P = 34: the first round's 32
 * end at 10600 too; the 33rd is posted then (10700), arrives at 11700, done at 11900. A limit of
 * 31 would end P = 33 at 10300 + 100 + 1000 + 200 = 11600. */
static void test_alltoall_all_at_once_limit(void)
{
    if (g_topology) /* (G = 0: a network needs a bandwidth) */
        return;
    struct setup su = {.model = "logp", .algos = "alltoall=all-at-once"};
    rt_time_ps want[34];
    fill(want, 33, 10600 * NS);
    check_coll("alltoall all-at-once P=33", &su, 33, OTF2_COLLECTIVE_OP_ALLTOALL, "MPI_Alltoall", NO_ROOT, 8, NULL,
               want);
    fill(want, 34, 11900 * NS);
    check_coll("alltoall all-at-once P=34", &su, 34, OTF2_COLLECTIVE_OP_ALLTOALL, "MPI_Alltoall", NO_ROOT, 8, NULL,
               want);
}

/* ------------------------------------------------------------------ gather, scatter, scan */

/* linear-sync, P = 3: for each rank in turn an empty request, then its block. */
static void test_gather_linear_sync(void)
{
    struct setup su = {.algos = "gather=linear-sync"};
    rt_time_ps want[3] = {2 * T0 + 2 * T1, T0 + T1, 2 * T0 + 2 * T1};
    check_coll("gather linear-sync P=3", &su, 3, OTF2_COLLECTIVE_OP_GATHER, "MPI_Gather", 0, 1000, NULL, want);
}

/* linear-nb, P = 4: the root's three sends injected T apart. */
static void test_scatter_linear_nb(void)
{
    struct setup su = {.algos = "scatter=linear-nb"};
    rt_time_ps want[4] = {NET(3 * T1, T1), NET(T1, 5 * US), NET(2 * T1, 5 * US), NET(3 * T1, 5 * US)};
    check_coll("scatter linear-nb P=4", &su, 4, OTF2_COLLECTIVE_OP_SCATTER, "MPI_Scatter", 0, 1000, NULL, want);
}

/* linear scan, P = 4: a chain. */
static void test_scan_linear(void)
{
    struct setup su = {.algos = "scan=linear"};
    rt_time_ps want[4] = {T1, 2 * T1, 3 * T1, 3 * T1};
    check_coll("scan linear P=4", &su, 4, OTF2_COLLECTIVE_OP_SCAN, "MPI_Scan", NO_ROOT, 1000, NULL, want);
}

/* ------------------------------------------------------------------ barriers */

static void test_barriers(void)
{
    rt_time_ps want[6];
    /* recursive doubling, P = 6: 4 -> 0 and 5 -> 1 first, XOR exchanges in 0..3 (2 and 3 done at
     * 3T0, 0 and 1 at 3T0 too), then 0 -> 4, 1 -> 5. */
    struct setup rd = {.algos = "barrier=recdbl"};
    rt_time_ps w6[6] = {4 * T0, 4 * T0, 3 * T0, 3 * T0, 4 * T0, 4 * T0};
    check_coll("barrier recdbl P=6", &rd, 6, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, w6);
    /* tree, P = 4: up in 2T0, down in 2T0 */
    struct setup tr = {.algos = "barrier=tree"};
    fill(want, 4, 4 * T0);
    check_coll("barrier tree P=4", &tr, 4, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, want);
    /* linear, P = 4: three reports reach 0 at T0, 2T0, 3T0; its three releases leave T0 apart
     * (network: empty messages share no bandwidth, each takes α) */
    struct setup li = {.algos = "barrier=linear"};
    rt_time_ps w4[4] = {NET(6 * T0, 2 * T0), NET(4 * T0, 2 * T0), NET(5 * T0, 2 * T0), NET(6 * T0, 2 * T0)};
    check_coll("barrier linear P=4", &li, 4, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, w4);
    /* double ring, P = 3: six hops one after the other */
    struct setup dr = {.algos = "barrier=double-ring"};
    rt_time_ps w3[3] = {6 * T0, 5 * T0, 6 * T0};
    check_coll("barrier double-ring P=3", &dr, 3, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, w3);
    /* bruck: dissemination's schedule, ceil(log2 5) rounds */
    struct setup br = {.algos = "barrier=bruck"};
    fill(want, 5, 3 * T0);
    check_coll("barrier bruck P=5", &br, 5, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, want);
}

/* ------------------------------------------------------------------ the rule sets */

static int pick(const rt_coll_rules *r, int op, int vector, uint32_t P, rt_bytes block, rt_bytes total)
{
    struct rt_coll_plan p;
    rt_coll_plan_choose(r, NULL, op, vector, P, block, total, &p);
    return p.algo;
}

#define PICK(r, op, P, block, want) CHECK_EQ_INT(pick(r, op, 0, P, block, (rt_bytes)(block) * (P)), want)

/* MPICH 4.0.2's rules at each threshold: below, at and above it. */
static void test_rules_mpich(void)
{
    rt_coll_rules *r = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_coll_rules_open("mpich", &r, &err), RT_OK);
    /* bcast: P < 8 binomial; avg <= 12288 binomial; pof2 and <= 524288 scatter-recdbl; else ring */
    PICK(r, RT_COLL_BCAST, 7, 1 << 20, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 12288, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 12289, RT_ALGO_SCATTER_RECDBL);
    PICK(r, RT_COLL_BCAST, 8, 524288, RT_ALGO_SCATTER_RECDBL);
    PICK(r, RT_COLL_BCAST, 8, 524289, RT_ALGO_SCATTER_RING);
    PICK(r, RT_COLL_BCAST, 9, 12289, RT_ALGO_SCATTER_RING);
    PICK(r, RT_COLL_BCAST, 9, 12288, RT_ALGO_BINOMIAL);
    /* allreduce: avg <= 8 or count (8 B elements) < pof2: recdbl, else rabenseifner */
    PICK(r, RT_COLL_ALLREDUCE, 2, 8, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLREDUCE, 2, 16, RT_ALGO_RABENSEIFNER);
    PICK(r, RT_COLL_ALLREDUCE, 64, 511, RT_ALGO_RECDBL);  /* count 63 < 64 */
    PICK(r, RT_COLL_ALLREDUCE, 64, 512, RT_ALGO_RABENSEIFNER);
    PICK(r, RT_COLL_ALLREDUCE, 127, 511, RT_ALGO_RECDBL); /* pof2 64 */
    PICK(r, RT_COLL_ALLREDUCE, 127, 512, RT_ALGO_RABENSEIFNER);
    /* reduce: avg <= 2048 binomial */
    PICK(r, RT_COLL_REDUCE, 4, 2048, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_REDUCE, 4, 2049, RT_ALGO_RABENSEIFNER);
    PICK(r, RT_COLL_REDUCE, 512, 4095, RT_ALGO_BINOMIAL); /* count 511 < 512 */
    PICK(r, RT_COLL_REDUCE, 512, 4096, RT_ALGO_RABENSEIFNER);
    /* allgather on the total: pof2 < 524288 recdbl, else ring; not pof2 < 81920 bruck, else ring */
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 0, 8, 0, 524287), RT_ALGO_RECDBL);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 0, 8, 0, 524288), RT_ALGO_RING);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 0, 6, 0, 81919), RT_ALGO_BRUCK);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 0, 6, 0, 81920), RT_ALGO_RING);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 1, 6, 0, 81919), RT_ALGO_BRUCK); /* allgatherv */
    /* alltoall: P <= 8 (MPICH's call-time comparison) no Bruck; avg <= 256 bruck; <= 32768 at once */
    PICK(r, RT_COLL_ALLTOALL, 8, 256, RT_ALGO_ALL_AT_ONCE);
    PICK(r, RT_COLL_ALLTOALL, 9, 256, RT_ALGO_BRUCK);
    PICK(r, RT_COLL_ALLTOALL, 9, 257, RT_ALGO_ALL_AT_ONCE);
    PICK(r, RT_COLL_ALLTOALL, 9, 32768, RT_ALGO_ALL_AT_ONCE);
    PICK(r, RT_COLL_ALLTOALL, 9, 32769, RT_ALGO_PAIRWISE);
    PICK(r, RT_COLL_ALLTOALL, 8, 32769, RT_ALGO_PAIRWISE);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLTOALL, 1, 9, 100, 900), RT_ALGO_ALL_AT_ONCE); /* alltoallv */
    /* the rest */
    PICK(r, RT_COLL_BARRIER, 5, 0, RT_ALGO_DISSEMINATION);
    PICK(r, RT_COLL_GATHER, 5, 100, RT_ALGO_BINOMIAL);
    CHECK_EQ_INT(pick(r, RT_COLL_GATHER, 1, 5, 100, 500), RT_ALGO_LINEAR);
    CHECK_EQ_INT(pick(r, RT_COLL_SCATTER, 1, 5, 100, 500), RT_ALGO_LINEAR);
    PICK(r, RT_COLL_SCAN, 5, 100, RT_ALGO_RECDBL);
    /* reduce_scatter on the whole vector: recursive halving below 512 KiB, pairwise above */
    CHECK_EQ_INT(pick(r, RT_COLL_ALLREDUCE, 1, 8, 524287, 8 * 524287), RT_ALGO_RABENSEIFNER);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLREDUCE, 1, 8, 524288, 8 * 524288), RT_ALGO_PAIRWISE);
    rt_coll_rules_free(r);
}

/* Open MPI 4.1.4's tables at band edges (P) and size edges (S), with the count fallbacks. */
static void test_rules_openmpi(void)
{
    rt_coll_rules *r = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_coll_rules_open("openmpi", &r, &err), RT_OK);
    /* bcast, 8 <= P <= 15: S < 8 knomial, < 64 binary, < 4096 knomial, < 16384 binary, < 32768
     * binomial, else linear; 4 <= P <= 7: S < 64 binary */
    PICK(r, RT_COLL_BCAST, 8, 7, RT_ALGO_KNOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 8, RT_ALGO_BINARY);
    PICK(r, RT_COLL_BCAST, 7, 7, RT_ALGO_BINARY);
    PICK(r, RT_COLL_BCAST, 15, 63, RT_ALGO_BINARY);
    PICK(r, RT_COLL_BCAST, 15, 64, RT_ALGO_KNOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 16383, RT_ALGO_BINARY);
    PICK(r, RT_COLL_BCAST, 8, 16384, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 32767, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 32768, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_BCAST, 16, 1048575, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_BCAST, 16, 1048576, RT_ALGO_SCATTER_RECDBL);
    PICK(r, RT_COLL_BCAST, 300, 16383, RT_ALGO_KNOMIAL);
    PICK(r, RT_COLL_BCAST, 300, 16384, RT_ALGO_SPLIT_BINARY);
    PICK(r, RT_COLL_BCAST, 300, 32768, RT_ALGO_KNOMIAL);
    /* allreduce: 4 <= P <= 7 S < 16 ring, but fewer 8 B elements than ranks: recdbl */
    PICK(r, RT_COLL_ALLREDUCE, 4, 15, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLREDUCE, 4, 16, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLREDUCE, 4, 8191, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLREDUCE, 4, 8192, RT_ALGO_RABENSEIFNER);
    PICK(r, RT_COLL_ALLREDUCE, 2, 65535, RT_ALGO_RING);
    PICK(r, RT_COLL_ALLREDUCE, 2, 65536, RT_ALGO_SEGMENTED_RING);
    PICK(r, RT_COLL_ALLREDUCE, 2, 262144, RT_ALGO_RABENSEIFNER);
    PICK(r, RT_COLL_ALLREDUCE, 128, 131071, RT_ALGO_REDUCE_BCAST);
    PICK(r, RT_COLL_ALLREDUCE, 128, 131072, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLREDUCE, 127, 131071, RT_ALGO_RECDBL);
    /* nonoverlapping's parts come from the reduce and bcast tables: P = 128, S = 1 KiB */
    struct rt_coll_plan p;
    rt_coll_plan_choose(r, NULL, RT_COLL_ALLREDUCE, 0, 128, 1024, 128 * 1024, &p);
    CHECK_EQ_INT(p.algo, RT_ALGO_REDUCE_BCAST);
    CHECK_EQ_INT(p.part[0], RT_ALGO_BINOMIAL); /* reduce 32 <= P <= 255: binomial */
    CHECK_EQ_INT(p.part[1], RT_ALGO_BINARY);   /* bcast 128 <= P <= 255, 2 <= S < 16384: binary */
    /* barrier by P alone */
    PICK(r, RT_COLL_BARRIER, 3, 0, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_BARRIER, 4, 0, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_BARRIER, 7, 0, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_BARRIER, 8, 0, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_BARRIER, 63, 0, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_BARRIER, 64, 0, RT_ALGO_BRUCK);
    PICK(r, RT_COLL_BARRIER, 256, 0, RT_ALGO_TREE);
    PICK(r, RT_COLL_BARRIER, 512, 0, RT_ALGO_BRUCK);
    PICK(r, RT_COLL_BARRIER, 1024, 0, RT_ALGO_TREE);
    PICK(r, RT_COLL_BARRIER, 4096, 0, RT_ALGO_BRUCK);
    /* alltoall, 16 <= P <= 31, per-peer block: < 4 linear(-sync), < 512 bruck, then linear */
    PICK(r, RT_COLL_ALLTOALL, 16, 3, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_ALLTOALL, 16, 4, RT_ALGO_BRUCK);
    PICK(r, RT_COLL_ALLTOALL, 16, 511, RT_ALGO_BRUCK);
    PICK(r, RT_COLL_ALLTOALL, 16, 512, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_ALLTOALL, 64, 262144, RT_ALGO_PAIRWISE);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLTOALL, 1, 64, 10, 640), RT_ALGO_PAIRWISE); /* alltoallv by P */
    CHECK_EQ_INT(pick(r, RT_COLL_ALLTOALL, 1, 63, 10, 630), RT_ALGO_LINEAR);
    /* allgather: P = 2 two_proc (one exchange: recdbl); 32 <= P <= 63 by the block */
    PICK(r, RT_COLL_ALLGATHER, 2, 100000, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLGATHER, 32, 1023, RT_ALGO_RECDBL);
    PICK(r, RT_COLL_ALLGATHER, 32, 1024, RT_ALGO_NEIGHBOR);
    PICK(r, RT_COLL_ALLGATHER, 32, 65535, RT_ALGO_NEIGHBOR);
    PICK(r, RT_COLL_ALLGATHER, 32, 65536, RT_ALGO_RING);
    /* allgatherv on the average block: 8 <= P <= 15, < 1024 default (linear), else bruck */
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 1, 8, 2000, 8 * 1023), RT_ALGO_LINEAR);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLGATHER, 1, 8, 2000, 8 * 1024), RT_ALGO_BRUCK);
    /* reduce 4 <= P <= 7: S < 4096 binary, then chain */
    PICK(r, RT_COLL_REDUCE, 4, 4095, RT_ALGO_BINARY);
    PICK(r, RT_COLL_REDUCE, 4, 4096, RT_ALGO_CHAIN);
    /* gather 4 <= P <= 7: < 1024 binomial, < 8192 linear; scatter P >= 64: < 512 binomial */
    PICK(r, RT_COLL_GATHER, 4, 1023, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_GATHER, 4, 1024, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_GATHER, 4, 262144, RT_ALGO_LINEAR_SYNC);
    PICK(r, RT_COLL_SCATTER, 64, 511, RT_ALGO_BINOMIAL);
    PICK(r, RT_COLL_SCATTER, 64, 512, RT_ALGO_LINEAR_NB);
    /* reduce_scatter, 4 <= P <= 7: S < 8 nonoverlapping, < 262144 halving, then ring */
    CHECK_EQ_INT(pick(r, RT_COLL_ALLREDUCE, 1, 4, 7, 28), RT_ALGO_REDUCE_BCAST);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLREDUCE, 1, 4, 8, 32), RT_ALGO_RABENSEIFNER);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLREDUCE, 1, 4, 262143, 4 * 262143), RT_ALGO_RABENSEIFNER);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLREDUCE, 1, 4, 262144, 4 * 262144), RT_ALGO_RING);
    /* basic: scan, gatherv, scatterv linear */
    PICK(r, RT_COLL_SCAN, 5, 100, RT_ALGO_LINEAR);
    CHECK_EQ_INT(pick(r, RT_COLL_GATHER, 1, 5, 100, 500), RT_ALGO_LINEAR);
    rt_coll_rules_free(r);
}

/* retime's own rules (the default) and --coll over a rule set. */
static void test_rules_retime(void)
{
    PICK(NULL, RT_COLL_ALLREDUCE, 4, 2048, RT_ALGO_RECDBL);
    PICK(NULL, RT_COLL_ALLREDUCE, 4, 2049, RT_ALGO_RABENSEIFNER);
    CHECK_EQ_INT(pick(NULL, RT_COLL_ALLGATHER, 0, 4, 0, 512 * 1024 - 1), RT_ALGO_BRUCK);
    CHECK_EQ_INT(pick(NULL, RT_COLL_ALLGATHER, 0, 4, 0, 512 * 1024), RT_ALGO_RING);
    PICK(NULL, RT_COLL_BCAST, 64, 1 << 20, RT_ALGO_BINOMIAL);
    rt_coll_rules *r = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_coll_rules_open("mpich", &r, &err), RT_OK);
    uint8_t over[RT_COLL_OTHER + 1] = {0};
    CHECK_EQ_INT(rt_coll_algo_parse("bcast=pipeline", over, &err), RT_OK);
    struct rt_coll_plan p;
    rt_coll_plan_choose(r, over, RT_COLL_BCAST, 0, 16, 1 << 20, 16 << 20, &p);
    CHECK_EQ_INT(p.algo, RT_ALGO_PIPELINE);
    rt_coll_plan_choose(r, over, RT_COLL_ALLREDUCE, 0, 16, 1 << 20, 16 << 20, &p);
    CHECK_EQ_INT(p.algo, RT_ALGO_RABENSEIFNER);
    CHECK(!strcmp(rt_coll_rules_name(r), "mpich"));
    CHECK(!strcmp(rt_coll_rules_name(NULL), "retime"));
    rt_coll_rules_free(r);
}

/* Rules files: first match wins, ranges inclusive, operations without a line get retime's;
 * every mistake is one error naming the file and line. */
static void test_rules_file(void)
{
    char path[300];
    rt_coll_rules *r = NULL;
    rt_error err = {0};
    rules_file(path, sizeof path,
               "# op   ranks  bytes        algorithm\n"
               "bcast  2-7    *            linear\n"
               "bcast  8-     0-12KiB      knomial fanout=2\n"
               "bcast  *      *            pipeline seg=64KiB   # the rest\n"
               "alltoallv * * pairwise\n");
    CHECK_EQ_INT(rt_coll_rules_open(path, &r, &err), RT_OK);
    PICK(r, RT_COLL_BCAST, 7, 1 << 20, RT_ALGO_LINEAR);
    PICK(r, RT_COLL_BCAST, 8, 12288, RT_ALGO_KNOMIAL);
    PICK(r, RT_COLL_BCAST, 8, 12289, RT_ALGO_PIPELINE);
    struct rt_coll_plan p;
    rt_coll_plan_choose(r, NULL, RT_COLL_BCAST, 0, 8, 100, 800, &p);
    CHECK_EQ_INT(p.fanout, 2);
    rt_coll_plan_choose(r, NULL, RT_COLL_BCAST, 0, 8, 1 << 20, 8 << 20, &p);
    CHECK_EQ_INT(p.seg, 65536);
    CHECK_EQ_INT(pick(r, RT_COLL_ALLTOALL, 1, 4, 10, 40), RT_ALGO_PAIRWISE);
    PICK(r, RT_COLL_ALLREDUCE, 4, 4096, RT_ALGO_RABENSEIFNER); /* no line: retime's */
    CHECK(!strcmp(rt_coll_rules_name(r), path));
    rt_coll_rules_free(r);

    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"bcast * * ring\n", ":1: algorithm 'ring' does not apply to bcast"},
        {"# c\nbcst * * binomial\n", ":2: unknown operation 'bcst'"},
        {"bcast 0-4 * binomial\n", ":1: bad RANKS '0-4'"},
        {"bcast 5-4 * binomial\n", ":1: bad RANKS '5-4'"},
        {"bcast * 2KiB-1KiB binomial\n", ":1: bad BYTES '2KiB-1KiB'"},
        {"bcast * 1Kb binomial\n", ":1: bad BYTES '1Kb'"},
        {"bcast * * pipeline seg=x\n", ":1: bad segment size 'x'"},
        {"bcast * * chain fanout=0\n", ":1: bad fan-out '0'"},
        {"bcast * * chain depth=3\n", ":1: unknown field 'depth=3'"},
        {"bcast * *\n", ":1: expected OP RANKS BYTES ALGORITHM"},
        {"# nothing\n\n", ": no rules"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rules_file(path, sizeof path, bad[i].text);
        r = NULL;
        CHECK_EQ_INT(rt_coll_rules_open(path, &r, &err), RT_EINVAL);
        CHECK(r == NULL);
        CHECK_CONTAINS(err.msg, bad[i].msg);
        CHECK_CONTAINS(err.msg, path);
    }
    /* a line past the limit */
    char *line = malloc(2000);
    if (line) {
        memset(line, ' ', 1999);
        line[1999] = '\0';
        memcpy(line, "bcast * * binomial", 18);
        rules_file(path, sizeof path, line);
        CHECK_EQ_INT(rt_coll_rules_open(path, &r, &err), RT_EINVAL);
        CHECK_CONTAINS(err.msg, ":1: line longer than");
        free(line);
    }
    CHECK_EQ_INT(rt_coll_rules_open("/nonexistent/rules", &r, &err), RT_ENOTFOUND);
    CHECK_CONTAINS(err.msg, "/nonexistent/rules: cannot open collective rules");
}

/* The same instance under the three rule sets: the plans differ, and so does the timing. */
static void test_rules_in_replay(void)
{
    char dir[300];
    const uint32_t P = 16;
    tb_builder *b = new_trace(dir, sizeof dir, P);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t s, rv;
        counts(OTF2_COLLECTIVE_OP_BCAST, P, r, 0, 1 << 16, &s, &rv);
        add_call(b, r, 0, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, s, rv);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps e[3][MAXP];
    const char *sets[3] = {"retime", "mpich", "openmpi"};
    for (int k = 0; k < 3; k++) {
        struct setup su = {.rules = sets[k]};
        rt_error err = {0};
        CHECK_EQ_INT(replay(dir, &su, e[k], P, &err), RT_OK);
    }
    /* retime: binomial, 4 rounds of T(64 KiB) (rendezvous at 64 KiB + 1? 64 KiB is eager) */
    CHECK_EQ_INT(e[0][0], 4 * T(65536));
    /* mpich: scatter-recdbl (64 KiB > 12288, P = 16 a power of two); openmpi: binomial
     * (16 <= P <= 31, 4096 <= S < 1 MiB) in Open MPI's tree: the root posts 4 sends at once */
    CHECK(e[1][0] != e[0][0]);
    CHECK_EQ_INT(e[2][0], 4 * T(65536));
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-collalgo-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    for (int pass = 0; pass < 3; pass++) {
        /* the closed forms in one go, then message by message on a crossbar network, in order
         * (the same answers) and shared */
        g_topology = pass ? "crossbar" : NULL;
        g_injection = pass == 2 ? RT_INJECT_SHARED : RT_INJECT_IN_ORDER;
        test_bcast_linear();
        test_bcast_pipeline();
        test_bcast_pipeline_segments();
        test_bcast_knomial();
        test_bcast_scatter_recdbl();
        test_bcast_scatter_ring();
        test_bcast_split_binary();
        test_bcast_split_binary_uneven();
        test_reduce_linear();
        test_reduce_linear_late();
        test_reduce_in_order_binary();
        test_reduce_in_order_binary_even();
        test_sends_posted_in_turn();
        test_allgatherv_neighbor();
        test_reduce_rabenseifner();
        test_reduce_rabenseifner_odd_root();
        test_allreduce_segmented_ring();
        test_allreduce_segmented_ring_uneven();
        test_allreduce_reduce_bcast();
        test_reduce_scatter();
        test_reduce_scatter_block();
        test_allgather_neighbor();
        test_alltoall_bruck();
        test_alltoall_all_at_once();
        test_alltoall_all_at_once_limit();
        test_gather_linear_sync();
        test_scatter_linear_nb();
        test_scan_linear();
        test_barriers();
    }
    g_topology = NULL;
    test_rules_mpich();
    test_rules_openmpi();
    test_rules_retime();
    test_rules_file();
    test_rules_in_replay();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    rt_test_failures += harness_failures();
    TEST_MAIN_END();
}
