/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of collectives expanded into their point-to-point algorithms (collective.c), on
 * synthetic traces whose timings are derived by hand.
 *
 * Hockney with α = 2000 ns, β = 1 ns/B: T(m) = 2000 + m ns, single port per direction, an eager
 * blocking send holds its port (and the CPU) for T(m). LogP-lite with L = 1000 ns, o_s = 100 ns,
 * o_r = 200 ns, g = 300 ns, G = 0: a message is injected o_s after its send is posted (the
 * sender is then free), arrives L later, and the receiver is done o_r after arrival; a port
 * injects (and delivers) at most one message per g. Unless a test says otherwise every rank
 * enters its collective at time 0 (compute scale 0) and the byte counts follow Score-P.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_harness.h"
#include "test_util.h"

/* ------------------------------------------------------------------ Hockney closed forms */

/* Binomial bcast of m bytes on P = 2^q ranks: q·T(m) for every root. Every rank ends then: the
 * root and inner nodes send until the last round (each send holds the port T(m)), and the
 * leaves receive in the last round. */
static void test_bcast_pow2(void)
{
    for (uint32_t q = 1; q <= 4; q++) {
        uint32_t P = 1u << q;
        for (uint32_t root = 0; root < P; root++) {
            rt_time_ps want[MAXP];
            char what[64];
            snprintf(what, sizeof what, "bcast P=%u root=%u", P, root);
            fill(want, P, q * T(1000));
            check_coll(what, NULL, P, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", root, 1000, NULL, want);
        }
    }
}

/* Binomial bcast on P = 3 (rel 0 -> 2 in round 0, 0 -> 1 in round 1): rel 2 is a leaf that is
 * done after T(m), the root and rel 1 after 2T(m). Root 1: rel r is rank (r + 1) mod 3. */
static void test_bcast_p3(void)
{
    rt_time_ps want[3] = {T(1000), 2 * T(1000), 2 * T(1000)}; /* ranks 0, 1, 2 = rel 2, 0, 1 */
    check_coll("bcast P=3 root=1", NULL, 3, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 1, 1000, NULL, want);
}

/* Dissemination barrier: ceil(log2 P) rounds of T(0) = 3·2000 ns for P = 5 and P = 8. */
static void test_barrier(void)
{
    rt_time_ps want[MAXP];
    fill(want, 8, 3 * T(0));
    check_coll("barrier P=5", NULL, 5, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, want);
    check_coll("barrier P=8", NULL, 8, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, want);
}

/* Binomial reduce of m = 1000 B on P = 8, root 3 (rank = (rel + 3) mod 8). Round 0: odd rel
 * send to rel - 1 (done at T); round 1: rel 2, 6 send (done at 2T); round 2: rel 4 sends to
 * the root, which is done at 3T, as is rel 4. */
static void test_reduce_p8(void)
{
    rt_time_ps by_rel[8] = {3 * T(1000), T(1000), 2 * T(1000), T(1000), 3 * T(1000), T(1000), 2 * T(1000), T(1000)};
    rt_time_ps want[8];
    for (uint32_t rel = 0; rel < 8; rel++)
        want[(rel + 3) % 8] = by_rel[rel];
    check_coll("reduce P=8 root=3", NULL, 8, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 3, 1000, NULL, want);
}

/* Binomial reduce on P = 6, root 0. Round 0: 1->0, 3->2, 5->4 (T); round 1: 2->0 (sent at T,
 * arrives 2T); round 2: 4->0 is injected at T and arrives at 2T, but the root's receive port
 * delivered at 2T, so it is delivered T later: the root is done at 3T, rank 4 at 2T. */
static void test_reduce_p6(void)
{
    rt_time_ps want[6] = {3 * T(1000), T(1000), 2 * T(1000), T(1000), 2 * T(1000), T(1000)};
    check_coll("reduce P=6", NULL, 6, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, NULL, want);
}

/* Binomial gather of b = 100 B blocks on P = 8, root 0: the message doubles each round,
 * T(b) + T(2b) + T(4b) = 3α + 7βb = 6700 ns at the root and at rel 4 (which sends last);
 * rel 2, 6: T(b) + T(2b); odd rel: T(b). The root in place (sends 0, receives 7b) is the same. */
static void test_gather_p8(void)
{
    rt_time_ps want[8] = {6700 * NS, T(100), T(100) + T(200), T(100), 6700 * NS, T(100), T(100) + T(200), T(100)};
    check_coll("gather P=8", NULL, 8, OTF2_COLLECTIVE_OP_GATHER, "MPI_Gather", 0, 100, NULL, want);

    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 8);
    for (uint32_t r = 0; r < 8; r++)
        add_call(b, r, 0, "MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, 0, r ? 100 : 0, r ? 0 : 700);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps end[8];
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, NULL, end, 8, &err), RT_OK);
    for (uint32_t r = 0; r < 8; r++)
        CHECK_EQ_INT(end[r], want[r]);
}

/* Binomial gather on P = 5, root 2 (rank = (rel + 2) mod 5), b = 100. Round 0: rel 1->0, 3->2
 * (one block each, T(b) = 2100 ns); round 1: rel 2->0 two blocks, sent at T(b), delivered at
 * T(b) + T(2b) = 4300; round 2: rel 4 (idle so far) sends its one block at 0, but the root's
 * port delivered at 4300, so it is delivered at 4300 + T(b) = 6400 ns. */
static void test_gather_p5(void)
{
    rt_time_ps by_rel[5] = {6400 * NS, T(100), 4300 * NS, T(100), T(100)};
    rt_time_ps want[5];
    for (uint32_t rel = 0; rel < 5; rel++)
        want[(rel + 2) % 5] = by_rel[rel];
    check_coll("gather P=5 root=2", NULL, 5, OTF2_COLLECTIVE_OP_GATHER, "MPI_Gather", 2, 100, NULL, want);
}

/* Binomial scatter of b = 100 B blocks on P = 8, root 5: the root sends 4b, 2b, b; every rank
 * ends at T(4b) + T(2b) + T(b) = 6700 ns (e.g. rel 1 receives the root's third message, sent
 * at T(4b) + T(2b)). */
static void test_scatter_p8(void)
{
    rt_time_ps want[8];
    fill(want, 8, 6700 * NS);
    check_coll("scatter P=8 root=5", NULL, 8, OTF2_COLLECTIVE_OP_SCATTER, "MPI_Scatter", 5, 100, NULL, want);
}

/* Recursive-doubling allreduce of m = 1000 B: P = 4, log2 4 = 2 exchanges, 2T(m) everywhere.
 * P = 6 (pof2 = 4, rem = 2): 1->0 and 3->2 first (T); exchanges 0<->2, 4<->5 (ranks 4 and 5
 * start at 0: done at T; 0 and 2 at 2T), then 0<->4, 2<->5: 4->0 arrives at 2T but 0's port
 * delivered at 2T, so it is delivered at 3T: all four done at 3T; then 0->1, 2->3 (4T). Ranks
 * 4, 5 end at 3T, ranks 0..3 at 4T. */
static void test_allreduce_recdbl(void)
{
    struct setup su = {.algos = "allreduce=recdbl"};
    rt_time_ps want[6];
    fill(want, 4, 2 * T(1000));
    check_coll("allreduce recdbl P=4", &su, 4, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 1000, NULL, want);
    rt_time_ps want6[6] = {4 * T(1000), 4 * T(1000), 4 * T(1000), 4 * T(1000), 3 * T(1000), 3 * T(1000)};
    check_coll("allreduce recdbl P=6", &su, 6, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 1000, NULL,
               want6);
    /* A producer that records each rank's own count (7 B sent and received on P = 3, which is
     * neither 3·b nor 2·b): every member agrees, so it is the block, not a mismatch. */
    {
        char dir[300];
        tb_builder *b = new_trace(dir, sizeof dir, 3);
        for (uint32_t r = 0; r < 3; r++)
            add_call(b, r, 0, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, NO_ROOT, 7, 7);
        CHECK_EQ_INT(tb_close(b), 0);
        rt_time_ps end[MAXP] = {0};
        rt_error err = {0};
        CHECK_EQ_INT(replay(dir, &su, end, 3, &err), RT_OK);
        /* recdbl on P = 3: rank 1 hands its vector to rank 0 (T), ranks 0 and 2 exchange (rank
         * 0's receive port is busy until T, so 2T), rank 0 returns the result to rank 1: 3T. */
        CHECK_EQ_INT(end[0], 3 * T(7));
        CHECK_EQ_INT(end[1], 3 * T(7));
    }
    /* auto takes recdbl up to 2048 B: 2T(2048) on P = 4. */
    fill(want, 4, 2 * T(2048));
    check_coll("allreduce auto 2048 B", NULL, 4, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 2048, NULL,
               want);
}

/* Ring allreduce: 2(P-1) rounds of ceil(m/P). P = 4, m = 1000: 6·T(250) = 13500 ns; P = 3:
 * 4·T(334) = 9336 ns. MPI_IN_PLACE counts ((P-1)·m = 2000 on P = 3) give the same block. (Counts
 * that read both ways, 3000 on P = 4 = 4·750 = 3·1000, are taken as not in place: 750 B.) */
static void test_allreduce_ring(void)
{
    struct setup su = {.algos = "allreduce=ring"};
    rt_time_ps want[4];
    fill(want, 4, 6 * T(250));
    check_coll("allreduce ring P=4", &su, 4, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 1000, NULL, want);
    fill(want, 3, 4 * T(334));
    check_coll("allreduce ring P=3", &su, 3, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 1000, NULL, want);

    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 3);
    for (uint32_t r = 0; r < 3; r++)
        add_call(b, r, 0, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, NO_ROOT, 2000, 2000);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps end[3];
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, &su, end, 3, &err), RT_OK);
    for (uint32_t r = 0; r < 3; r++)
        CHECK_EQ_INT(end[r], 4 * T(334));

    /* 3000 B on P = 4 read both ways: without more, 4·750 (6·T(188)); with retime-trace's
     * retime::in_place on any member (here rank 2 only, the others' counts agree), 3·1000: the
     * real 1000 B allreduce, 6·T(250). (Issue #45: a 64 KiB allreduce in place on 64 ranks was
     * replayed as 63 KiB.) */
    for (int inplace = 0; inplace <= 1; inplace++) {
        b = new_trace(dir, sizeof dir, 4);
        for (uint32_t r = 0; r < 4; r++) {
            if (inplace && r == 2)
                tb_in_place(b, r);
            add_call(b, r, 0, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, NO_ROOT, 3000, 3000);
        }
        CHECK_EQ_INT(tb_close(b), 0);
        rt_time_ps end4[4];
        CHECK_EQ_INT(replay(dir, &su, end4, 4, &err), RT_OK);
        for (uint32_t r = 0; r < 4; r++)
            CHECK_EQ_INT(end4[r], 6 * T(inplace ? 250 : 188));
    }
}

/* Rabenseifner allreduce (auto above 2048 B). P = 8, m = 8000: halving T(4000) + T(2000) +
 * T(1000), doubling back T(1000) + T(2000) + T(4000) = 6α + 14000β = 26000 ns. m = 2049 on
 * P = 4: T(1025) + T(513) + T(513) + T(1025) = 11076 ns.
 * P = 6, m = 4000: 1->0, 3->2 (T(4000) = 6000); halving 0<->2, 4<->5 with 2000 B (0, 2 done at
 * 10000, 4, 5 at 4000), then 0<->4, 2<->5 with 1000 B: 4->0 is delivered after 0's port is free
 * at 10000, so 13000 for all four; doubling 1000 B (16000), 2000 B (20000); 0->1, 2->3 with
 * 4000 B: 26000. Ranks 4, 5 end at 20000 ns, ranks 0..3 at 26000 ns. */
static void test_allreduce_rabenseifner(void)
{
    rt_time_ps want[8];
    fill(want, 8, 26000 * NS);
    check_coll("allreduce auto P=8 8000 B", NULL, 8, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 8000, NULL,
               want);
    fill(want, 4, 11076 * NS);
    check_coll("allreduce auto 2049 B", NULL, 4, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 2049, NULL,
               want);
    struct setup su = {.algos = "allreduce=rabenseifner"};
    rt_time_ps want6[6] = {26000 * NS, 26000 * NS, 26000 * NS, 26000 * NS, 20000 * NS, 20000 * NS};
    /* (on the network in order 29, 29, 29, 29, 23, 23 us: a receive port takes an early message
     * before a later round's, where one go takes them round by round; issue #46, item 2) */
    if (!g_topology)
        check_coll("allreduce rabenseifner P=6", &su, 6, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 4000,
                   NULL, want6);
}

/* Allgather of b = 1000 B blocks. Ring: (P-1)·T(b) = 9000 ns on P = 4. Recursive doubling
 * (Bruck): P = 4: T(b) + T(2b) = 7000 ns; P = 8: T(b) + T(2b) + T(4b) = 3α + 7βb = 13000 ns;
 * P = 5: T(b) + T(2b) + T(b) (the last round sends min(4, 5-4) = 1 block) = 10000 ns.
 * auto: recdbl while P·b < 512 KiB, else ring (both rendezvous here, without handshake cost
 * under Hockney): b = 131071 on P = 4: T(131071) + T(262142) = 397213 ns; b = 131072:
 * 3·T(131072) = 399216 ns. */
static void test_allgather(void)
{
    struct setup ring = {.algos = "allgather=ring"}, rd = {.algos = "allgather=recdbl"};
    rt_time_ps want[8];
    fill(want, 4, 3 * T(1000));
    check_coll("allgather ring P=4", &ring, 4, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 1000, NULL, want);
    fill(want, 4, 7000 * NS);
    check_coll("allgather recdbl P=4", &rd, 4, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 1000, NULL, want);
    fill(want, 8, 13000 * NS);
    check_coll("allgather recdbl P=8", &rd, 8, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 1000, NULL, want);
    fill(want, 5, 10000 * NS);
    check_coll("allgather recdbl P=5", &rd, 5, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 1000, NULL, want);
    fill(want, 4, 397213 * NS);
    check_coll("allgather auto below 512 KiB", NULL, 4, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 131071,
               NULL, want);
    fill(want, 4, 399216 * NS);
    check_coll("allgather auto at 512 KiB", NULL, 4, OTF2_COLLECTIVE_OP_ALLGATHER, "MPI_Allgather", NO_ROOT, 131072,
               NULL, want);
}

/* Pairwise alltoall: (P-1)·T(b) = 4·3000 ns on P = 5. */
static void test_alltoall(void)
{
    rt_time_ps want[5];
    fill(want, 5, 4 * T(1000));
    check_coll("alltoall P=5", NULL, 5, OTF2_COLLECTIVE_OP_ALLTOALL, "MPI_Alltoall", NO_ROOT, 1000, NULL, want);
}

/* Scan on P = 5: r -> r+1 (T), r -> r+2 (2T), 0 -> 4 (3T): ranks 0 and 4 end at 3T, the
 * others at 2T. */
static void test_scan(void)
{
    rt_time_ps want[5] = {3 * T(1000), 2 * T(1000), 2 * T(1000), 2 * T(1000), 3 * T(1000)};
    check_coll("scan P=5", NULL, 5, OTF2_COLLECTIVE_OP_SCAN, "MPI_Scan", NO_ROOT, 1000, NULL, want);
}

/* An operation retime has no algorithm for (23: one OTF2 3 does not define): dissemination rounds
 * of each rank's larger count, 2·T(1000) on P = 4. */
static void test_other(void)
{
    rt_time_ps want[4];
    fill(want, 4, 2 * T(1000));
    check_coll("other P=4", NULL, 4, OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE + 1, "MPI_Future_op", NO_ROOT,
               1000, NULL, want);
}

/* The handle operations (communicator and window set-up, Score-P 8's MPI_Init and MPI_Finalize)
 * keep their measured time, as compute: at compute scale 1 each rank leaves its 1000 ns call
 * 1000 ns after entering it, rank 1 entering 3000 ns late does not hold up the others (timed as
 * dissemination rounds, everyone would leave at 3000 ns + 2·T(1000)). */
static void test_handle(void)
{
    struct setup su = {.scale = 1};
    uint64_t late[4] = {0, 3000, 0, 0};
    rt_time_ps want[4] = {1000 * NS, 4000 * NS, 1000 * NS, 1000 * NS};
    const int ops[] = {OTF2_COLLECTIVE_OP_CREATE_HANDLE, OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
                       OTF2_COLLECTIVE_OP_ALLOCATE, OTF2_COLLECTIVE_OP_DEALLOCATE,
                       OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE, OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        check_coll("handle op kept as measured", &su, 4, ops[i], "MPI_Win_create", NO_ROOT, 0, late, want);
}

/* Ranks arriving at different times (compute scale 1), bcast of 1000 B on P = 4, root 0
 * (0 -> 2, then 0 -> 1 and 2 -> 3). A root 10 µs late delays everyone by its lateness:
 * 10 µs + 2T. A late leaf (rank 3) delays only itself: it takes the message at 10 µs. */
static void test_late(void)
{
    struct setup su = {.scale = 1};
    uint64_t late_root[4] = {10000, 0, 0, 0}, late_leaf[4] = {0, 0, 0, 10000};
    rt_time_ps want[4];
    fill(want, 4, 10000 * NS + 2 * T(1000));
    check_coll("bcast late root", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, late_root, want);
    rt_time_ps want_leaf[4] = {2 * T(1000), 2 * T(1000), 2 * T(1000), 10000 * NS};
    check_coll("bcast late leaf", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, late_leaf, want_leaf);

    /* 100000 B, rank 2 (the root's first child) 1 ms late. Eager: the root and rank 1 are not
     * held up (2T(m) = 204 µs); rank 2 takes its message at 1 ms and forwards it to 3 (+T).
     * Rendezvous: the root's first send waits for rank 2, everyone ends at 1 ms + 2T(m). */
    uint64_t late2[4] = {0, 0, 1000000, 0};
    struct setup eager = {.scale = 1, .eager = 1 << 20}, rdv = {.scale = 1, .eager = 65536};
    rt_time_ps want_eager[4] = {2 * T(100000), 2 * T(100000), 1000000 * NS + T(100000), 1000000 * NS + T(100000)};
    check_coll("bcast eager late child", &eager, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 100000, late2,
               want_eager);
    fill(want, 4, 1000000 * NS + 2 * T(100000));
    check_coll("bcast rendezvous late child", &rdv, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 100000, late2, want);
}

/* ------------------------------------------------------------------ LogP-lite */

/* Dissemination barrier: every round costs o_s + L + o_r = 1300 ns (g = 300 is shorter), so
 * ceil(log2 P)·1300 = 3900 ns for P = 5 and P = 8. */
static void test_logp_barrier(void)
{
    struct setup su = {.model = "logp"};
    rt_time_ps want[8];
    fill(want, 8, 3900 * NS);
    check_coll("logp barrier P=5", &su, 5, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, want);
    check_coll("logp barrier P=8", &su, 8, OTF2_COLLECTIVE_OP_BARRIER, "MPI_Barrier", NO_ROOT, 0, NULL, want);
}

/* Bcast on P = 4, root 0, per member. Round 0: 0 -> 2 injected at o_s = 100, arrives at 1100,
 * rank 2 done at 1300; the root is free at 100 but its port only at 100 + g = 400. Round 1:
 * 0 -> 1 injected at 400 (port), rank 1 done at 400 + L + o_r = 1600; 2 -> 3 injected at
 * 1300 + o_s = 1400, rank 3 done at 2600; the root is done at 400, rank 2 at 1400. Root 1
 * rotates the same times: rank = (rel + 1) mod 4. */
static void test_logp_bcast(void)
{
    struct setup su = {.model = "logp"};
    rt_time_ps by_rel[4] = {400 * NS, 1600 * NS, 1400 * NS, 2600 * NS};
    rt_time_ps want[4];
    for (uint32_t root = 0; root < 2; root++) {
        for (uint32_t rel = 0; rel < 4; rel++)
            want[(rel + root) % 4] = by_rel[rel];
        check_coll(root ? "logp bcast root=1" : "logp bcast root=0", &su, 4, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast",
                   root, 8, NULL, want);
    }
}

/* ------------------------------------------------------------------ vectors, communicators */

/* MPI_Gatherv, root 0, ranks 1..3 send 100, 200, 300 B (no size check). Round 0: 1 -> 0
 * (T(100) = 2100), 3 -> 2 (2300); round 1: 2 -> 0 with rel 2's and 3's blocks, 500 B, sent at
 * 2300: 4800 ns. */
static void test_gatherv(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    uint64_t sent[4] = {50, 100, 200, 300};
    for (uint32_t r = 0; r < 4; r++)
        add_call(b, r, 0, "MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV, 0, sent[r], r ? 0 : 650);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps end[4], want[4] = {4800 * NS, 2100 * NS, 4800 * NS, 2300 * NS};
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, NULL, end, 4, &err), RT_OK);
    for (uint32_t r = 0; r < 4; r++)
        CHECK_EQ_INT(end[r], want[r]);
}

/* MPI_Allgatherv by ring on P = 3 with blocks 100, 200, 300 B (sent = 3 blocks each). Round 0
 * passes each rank's own block: ends 2300, 2200, 2300. Round 1 passes the block from r - 1:
 * 0 -> 1 the 300 B block from 2300 (4600), 1 -> 2 100 B from 2200 (4300), 2 -> 0 200 B from
 * 2300 (4500): ranks end at 4600, 4600, 4500 ns. */
static void test_allgatherv_ring(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 3);
    for (uint32_t r = 0; r < 3; r++)
        add_call(b, r, 0, "MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, NO_ROOT, 3 * 100 * (r + 1), 600);
    CHECK_EQ_INT(tb_close(b), 0);
    struct setup su = {.algos = "allgather=ring"};
    rt_time_ps end[3], want[3] = {4600 * NS, 4600 * NS, 4500 * NS};
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, &su, end, 3, &err), RT_OK);
    for (uint32_t r = 0; r < 3; r++)
        CHECK_EQ_INT(end[r], want[r]);
}

/* A bcast on a communicator of world ranks {3, 1, 2} (comm ranks 0, 1, 2), root comm rank 0 =
 * world rank 3: rel 0 -> 2 (world 2, done at T), then 0 -> 1 (world 1, 2T). World rank 0 is not
 * in it and only computes. */
static void test_subcomm(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    uint32_t members[3] = {3, 1, 2};
    uint32_t comm = tb_comm(b, "sub", 3, members);
    tb_enter(b, 0, 0, "work");
    tb_leave(b, 0, 10, "work");
    for (uint32_t i = 0; i < 3; i++)
        tb_collective_on(b, members[i], 0, 1000, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, comm, 0, i ? 0 : 3000, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps end[4], want[4] = {0, 2 * T(1000), T(1000), 2 * T(1000)};
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, NULL, end, 4, &err), RT_OK);
    for (uint32_t r = 0; r < 4; r++)
        CHECK_EQ_INT(end[r], want[r]);
}

/* ------------------------------------------------------------------ errors */

static void expect_error(const char *what, tb_builder *b, const char *dir, int code, const char *text)
{
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps end[MAXP];
    rt_error err = {0};
    int rc = replay(dir, NULL, end, 0, &err);
    CHECK_EQ_INT(rc, code);
    CHECK_CONTAINS(err.msg, text);
    CHECK(strchr(err.msg, '\n') == NULL); /* one line */
    if (rc != code)
        fprintf(stderr, "  %s: %s\n", what, err.msg);
}

/* A trace of 4 ranks whose rank 2 only works while the others call @p call (@p op, root @p root),
 * rank 0 sending @p s0 bytes and the others none, each receiving @p rv. */
static tb_builder *missing_member(char *dir, size_t n, const char *call, int op, uint32_t root, uint64_t s0,
                                  uint64_t rv)
{
    tb_builder *b = new_trace(dir, n, 4);
    for (uint32_t r = 0; r < 4; r++) {
        if (r == 2) {
            tb_enter(b, r, 0, "work");
            tb_leave(b, r, 1000, "work");
        } else {
            add_call(b, r, 0, call, op, root, r ? 0 : s0, rv);
        }
    }
    return b;
}

static void test_errors(void)
{
    char dir[300];
    /* A bcast whose rank 2 receives 800 B while the others have 1000 B blocks. */
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    for (uint32_t r = 0; r < 4; r++)
        add_call(b, r, 0, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, r ? 0 : 4000, r == 2 ? 800 : 1000);
    expect_error("bcast sizes", b, dir, RT_EMISMATCH,
                 "collective size mismatch on comm 'MPI_COMM_WORLD' (bcast): rank 0 event 1 (MPI_Bcast) sends 4000 "
                 "and receives 1000 bytes (blocks of 1000 bytes) but rank 2 event 1 (MPI_Bcast) sends 0 and "
                 "receives 800 bytes");

    /* An allreduce whose rank 3 reduces 1100 B blocks, the others 1000 B. */
    b = new_trace(dir, sizeof dir, 4);
    for (uint32_t r = 0; r < 4; r++)
        add_call(b, r, 0, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, NO_ROOT, r == 3 ? 4400 : 4000,
                 r == 3 ? 4400 : 4000);
    expect_error("allreduce sizes", b, dir, RT_EMISMATCH,
                 "(allreduce): rank 0 event 1 (MPI_Allreduce) sends 4000 and receives 4000 bytes (blocks of 1000 "
                 "bytes) but rank 3 event 1 (MPI_Allreduce) sends 4400 and receives 4400 bytes");

    /* Rank 3 enters a barrier on a communicator of ranks 0..2. */
    b = new_trace(dir, sizeof dir, 4);
    uint32_t members[3] = {0, 1, 2};
    uint32_t comm = tb_comm(b, "sub", 3, members);
    for (uint32_t r = 0; r < 4; r++)
        tb_collective_on(b, r, 0, 1000, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, comm, NO_ROOT, 0, 0);
    expect_error("non-member", b, dir, RT_EMISMATCH,
                 "collective on comm 'sub' by a non-member: rank 3 event 1 (MPI_Barrier, barrier) is not one of its 3 "
                 "ranks");

    /* Rank 2 of 4 never enters the barrier the others wait in. On a network the members run
     * their own parts: rank 0 gets through round 1 (from rank 3) and waits in round 2 for rank
     * 2's message, which the error names. */
    b = missing_member(dir, sizeof dir, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, NO_ROOT, 0, 0);
    expect_error("missing member", b, dir, RT_EDEADLOCK,
                 g_topology ? "deadlock: rank 0 event 2 (MPI_Barrier on comm 'MPI_COMM_WORLD') waits for a collective "
                              "that only 3 of 4 ranks enter; in round 2 of 2 of its barrier (dissemination), it waits "
                              "to receive from rank 2 (0 bytes), which never enters it"
                            : "deadlock: rank 0 event 2 (MPI_Barrier on comm 'MPI_COMM_WORLD') waits for a collective "
                              "that only 3 of 4 ranks enter");

    /* The same with a bcast: rank 2's counts are unknown, so on a network no schedule is made
     * either (not a size mismatch): the others wait at their entry, as without one. */
    b = missing_member(dir, sizeof dir, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, 4000, 1000);
    expect_error("missing bcast member", b, dir, RT_EDEADLOCK,
                 "deadlock: rank 0 event 2 (MPI_Bcast on comm 'MPI_COMM_WORLD') waits for a collective that only 3 "
                 "of 4 ranks enter");
}

/* ------------------------------------------------------------------ limits and causes */

/* Binomial scatter on P = 5, root 0, b = 100 B: subtrees clipped at P. Round mask 4: 0 -> 4 with
 * rel 4's subtree [4, 8) ∩ [0, 5) = 1 block (T(b) = 2100 ns); mask 2: 0 -> 2 with [2, 4) = 2
 * blocks, sent at 2100, done at 2100 + T(2b) = 4300; mask 1: 0 -> 1 and 2 -> 3 (1 block each)
 * at 4300, done at 6400. Rank 4 ends at 2100, all others at 6400. Root 3 on P = 6: rel 4's
 * subtree is [4, 6) = 2 blocks (4300 ns; mask 1 then sends rel 4 -> 5 at 4300: 6400). */
static void test_scatter_clipped(void)
{
    rt_time_ps want5[5] = {6400 * NS, 6400 * NS, 6400 * NS, 6400 * NS, T(100)};
    check_coll("scatter P=5 root=0", NULL, 5, OTF2_COLLECTIVE_OP_SCATTER, "MPI_Scatter", 0, 100, NULL, want5);
    /* P = 6, root 3: mask 4: rel 0 -> 4 (2 blocks, 4300 - 2100 = T(2b) = 2200 ns from 0: 2200);
     * mask 2: rel 0 -> 2 (2 blocks, sent at 2200, done 4400); mask 1: rel 0 -> 1 (4400 +
     * T(b) = 6500), rel 2 -> 3 (6500), rel 4 -> 5 (2200 + 2100 = 4300). */
    rt_time_ps by_rel[6] = {6500 * NS, 6500 * NS, 6500 * NS, 6500 * NS, 4300 * NS, 4300 * NS};
    rt_time_ps want6[6];
    for (uint32_t rel = 0; rel < 6; rel++)
        want6[(rel + 3) % 6] = by_rel[rel];
    check_coll("scatter P=6 root=3", NULL, 6, OTF2_COLLECTIVE_OP_SCATTER, "MPI_Scatter", 3, 100, NULL, want6);
}

/* A bcast of 1000 B on P = 2 whose receiver enters 10 µs late (compute scale 1). With an eager
 * limit of exactly 1000 B it is eager: the root is done after its send's hold, T(1000) = 3 µs,
 * the receiver at its entry, 10 µs. With a limit of 999 B it is a rendezvous: the data leaves
 * when the receiver is there (Hockney has no handshake), both are done at 10 µs + T(1000). */
static void test_eager_limit(void)
{
    uint64_t late[2] = {0, 10000};
    struct setup at = {.scale = 1, .eager = 1000}, below = {.scale = 1, .eager = 999};
    rt_time_ps want_eager[2] = {T(1000), 10000 * NS}, want_rdv[2] = {10000 * NS + T(1000), 10000 * NS + T(1000)};
    check_coll("bcast at the eager limit", &at, 2, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, late, want_eager);
    check_coll("bcast above the eager limit", &below, 2, OTF2_COLLECTIVE_OP_BCAST, "MPI_Bcast", 0, 1000, late,
               want_rdv);
}

struct coll_end_dep {
    uint32_t rank;   /* whose COLL_END is watched */
    struct rt_dep dep;
    int seen;
};

static void on_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted,
                   const struct rt_dep *dep)
{
    struct coll_end_dep *w = ud;
    (void)index;
    (void)predicted;
    if (rank == w->rank && ev->kind == RT_EV_COLL_END) {
        w->dep = *dep;
        w->seen++;
    }
}

/* The rendezvous bcast above: the root's wait is the late receiver's doing, so the root's
 * COLL_END goes back to rank 1's COLL_BEGIN (event 3: Enter and Leave of its work, then the
 * call's Enter); with the eager limit at 1000 B the root goes back to its own entry. */
static void test_late_receiver_cause(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    add_call(b, 0, 0, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, 2000, 1000);
    add_call(b, 1, 10000, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, 0, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
    for (int eager = 0; eager < 2; eager++) {
        rt_trace *t = NULL;
        struct rt_replay_options o;
        struct rt_replay_result *res = NULL;
        rt_network *net = NULL;
        rt_error err = {0};
        rt_replay_options_default(&o);
        CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &hockney, &err), RT_OK);
        o.compute_scale = 1;
        o.eager_limit = eager ? 1000 : 999;
        if (g_topology) {
            struct rt_network_params np;
            rt_network_params_default(&np);
            np.topology = "crossbar:2";
            CHECK_EQ_INT(rt_network_create(&np, 2, &net, &err), RT_OK);
            o.network = net;
        }
        struct coll_end_dep w = {.rank = 0};
        struct rt_replay_observer obs = {.ud = &w, .on_dep = on_dep};
        CHECK_EQ_INT(rt_trace_open(dir, &t, &err), RT_OK);
        CHECK_EQ_INT(rt_replay_run(t, &o, &obs, &res, &err), RT_OK);
        CHECK_EQ_INT(w.seen, 1);
        CHECK_EQ_INT(w.dep.kind, RT_DEP_COLLECTIVE);
        CHECK_EQ_INT(w.dep.src_rank, eager ? 0 : 1);
        CHECK_EQ_INT(w.dep.src_index, eager ? 1 : 3);
        rt_replay_result_destroy(res);
        rt_trace_close(t);
        rt_network_destroy(net);
    }
}

/* ------------------------------------------------------------------ on a routed network */

/* Collectives on a crossbar network with shared injection share the NIC links as flows instead
 * of queueing at ports (Hockney α = 2000 ns, β = 1 ns/B, the NICs at β: an uncontended message
 * still takes T(m)); in order they queue at the ports as in one go, and give its answers.
 * Reduce of 1000 B on P = 6, root 0: round 0 as before (1->0, 3->2, 5->4 done at T = 3 µs);
 * then 2->0 (round 1) and 4->0 (round 2, rank 4 has no round-1 message) both leave at 3 µs and
 * share the root's ejection link: each moves its 1000 B in 2 µs at half the bandwidth and
 * arrives α later, at 7 µs, where the port model delivered one after the other (9 µs). Ranks 2
 * and 4 are done after their eager sends' hold, 3 + 3 = 6 µs. */
static void test_network_shared_links(void)
{
    struct setup net = {.topology = "crossbar"};
    rt_time_ps want[6] = {7000 * NS, T(1000), 6000 * NS, T(1000), 6000 * NS, T(1000)};
    g_injection = RT_INJECT_SHARED;
    check_coll("network reduce P=6", &net, 6, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, NULL, want);
    /* Recursive doubling on P = 6: 1->0, 3->2 (T); 0<->2 at 3 µs while 4<->5 (from 0, done at
     * 3 µs) are followed by 4->0 and 5->2 at 3 µs, which share 0's and 2's ejection links with
     * 2->0 and 0->2: both arrive at 3 + 2 + 2 = 7 µs. 0 and 2 then send to 4 and 5 at 7 µs
     * (arriving at 10 µs: ranks 4 and 5 end), their sends held until 10 µs; 0->1, 2->3 at 10 µs
     * arrive at 13 µs. */
    struct setup rd = {.topology = "crossbar", .algos = "allreduce=recdbl"};
    rt_time_ps want6[6] = {13000 * NS, 13000 * NS, 13000 * NS, 13000 * NS, 10000 * NS, 10000 * NS};
    check_coll("network allreduce recdbl P=6", &rd, 6, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT, 1000,
               NULL, want6);
    /* In order, as in one go (checked beside it): the reduce's 2->0 and 4->0 one gap apart at
     * the root's port, 0 done at 9 µs. Recursive doubling: 1->0, 3->2 and 4<->5 at 0 (T); 0<->2
     * at 3 µs arrive at 6 µs, and 4->0 and 5->2, sent at 3 µs and arriving at 6 µs too, are
     * taken one gap later, at 9 µs; 0->4 and 2->5 leave at 6 µs and arrive at 9 µs (ranks 4 and 5
     * end), 0->1 and 2->3 leave at 9 µs and arrive at 12 µs. */
    g_injection = RT_INJECT_IN_ORDER;
    rt_time_ps inord[6] = {9000 * NS, T(1000), 6000 * NS, T(1000), 6000 * NS, T(1000)};
    check_coll("network reduce P=6 in order", &net, 6, OTF2_COLLECTIVE_OP_REDUCE, "MPI_Reduce", 0, 1000, NULL, inord);
    struct setup one_go = {.algos = "allreduce=recdbl"};
    rt_time_ps in6[6] = {12000 * NS, 12000 * NS, 12000 * NS, 12000 * NS, 9000 * NS, 9000 * NS};
    check_coll("network allreduce recdbl P=6 in order", &rd, 6, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT,
               1000, NULL, in6);
    check_coll("one-go allreduce recdbl P=6", &one_go, 6, OTF2_COLLECTIVE_OP_ALLREDUCE, "MPI_Allreduce", NO_ROOT,
               1000, NULL, in6);
}

/* LogGP on a network (issue #46): a binomial bcast of 1000 B on P = 8 under L = 2000 ns,
 * o = 100 ns, g = 0, G = 1 ns/B. Rank 7 gets the data down 0 -> 4 -> 6 -> 7, each hop its sender's
 * first send: 3 (o + L + (m - 1)G + o) = 3 x 3199 = 9597 ns, LogGP's closed form. On crossbar-flow
 * in order every rank ends as in one go (a flow's latency part is L - G, so a lone flow arrives at
 * L + (m - 1)G, not one G later); shared, the root's three sends share its NIC and the first
 * child's data comes later than in one go. */
static void test_network_loggp_bcast(void)
{
    static const struct rt_model_params lg = {.L_ns = 2000, .o_s_ns = 100, .o_r_ns = 100, .g_ns = 0,
                                              .G_ns_per_byte = 1};
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 8);
    for (uint32_t r = 0; r < 8; r++) {
        uint64_t s, rv;
        counts(OTF2_COLLECTIVE_OP_BCAST, 8, r, 0, 1000, &s, &rv);
        add_call(b, r, 0, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, s, rv);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    struct setup go = {.model = "logp", .params = &lg, .algos = "bcast=binomial"}, net = go;
    net.topology = "crossbar";
    rt_time_ps one[8], inord[8], shared[8];
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, &go, one, 8, &err), RT_OK);
    CHECK_EQ_INT(one[7], 9597 * NS);
    g_injection = RT_INJECT_IN_ORDER;
    CHECK_EQ_INT(replay(dir, &net, inord, 8, &err), RT_OK);
    for (uint32_t r = 0; r < 8; r++)
        CHECK_EQ_INT(inord[r], one[r]);
    g_injection = RT_INJECT_SHARED;
    CHECK_EQ_INT(replay(dir, &net, shared, 8, &err), RT_OK);
    CHECK(shared[4] > one[4]);
    g_injection = RT_INJECT_IN_ORDER;
}

/* The chains of a binomial bcast's messages (issue #30: the congestion attribution follows them).
 * P = 8, root 0, 1000 B eager, every rank in at 0: rank r's message comes down the tree
 * 0 -> 4 -> 6 -> 7 style, so the chain from r's leaving back to the root's entry has popcount(r)
 * messages (rank 4: its receive binds, its later send goes back to it; the root: its own entry,
 * none). With rank 6 in late (its clock past 4 -> 6's arrival) its own entry times it (no
 * message) and rank 7's chain is only 6 -> 7. Without record_contention nothing is kept. With
 * rank 6 late and the messages rendezvous (eager limit 999 B), 4 -> 6 waits for rank 6's entry,
 * where its time goes back to (no message before it); rank 6's own send 6 -> 7 waits for its
 * delivery, so ranks 6 and 7 both leave at the end of the chain 4 -> 6, 6 -> 7. */
static void test_network_chains(void)
{
    for (int late6 = 0; late6 < 4; late6++) {
        char dir[300];
        tb_builder *b = new_trace(dir, sizeof dir, 8);
        for (uint32_t r = 0; r < 8; r++) {
            uint64_t s, rv;
            counts(OTF2_COLLECTIVE_OP_BCAST, 8, r, 0, 1000, &s, &rv);
            add_call(b, r, r == 6 && (late6 & 1) ? 100000 : 0, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, s, rv);
        }
        CHECK_EQ_INT(tb_close(b), 0);
        rt_trace *t = NULL;
        struct rt_replay_options o;
        struct rt_replay_result *res = NULL;
        rt_network *net = NULL;
        rt_error err = {0};
        struct rt_network_params np;
        rt_replay_options_default(&o);
        CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &hockney, &err), RT_OK);
        CHECK_EQ_INT(rt_coll_algo_parse("bcast=binomial", o.coll_algo, &err), RT_OK);
        o.compute_scale = 1;
        o.record_contention = late6 != 2;
        o.eager_limit = late6 == 3 ? 999 : 65536;
        rt_network_params_default(&np);
        np.topology = "crossbar:8";
        CHECK_EQ_INT(rt_network_create(&np, 8, &net, &err), RT_OK);
        o.network = net;
        CHECK_EQ_INT(rt_trace_open(dir, &t, &err), RT_OK);
        CHECK_EQ_INT(rt_replay_run(t, &o, NULL, &res, &err), RT_OK);
        if (res && late6 == 2) {
            CHECK_EQ_INT(res->ncoll_msgs, 0);
            CHECK_EQ_INT(res->ncoll_binds, 0);
        } else if (res) {
            CHECK_EQ_INT(res->ncoll_msgs, 7);
            CHECK_EQ_INT(res->ncoll_binds, 8);
            for (uint64_t i = 0; i < res->ncoll_binds; i++) {
                uint32_t r = res->coll_binds[i].rank, len = 0, want = (uint32_t)__builtin_popcount(r);
                for (uint64_t m = res->coll_binds[i].msg; m != UINT64_MAX && len < 9; m = res->coll_pred[m])
                    len++;
                if (late6 == 1 && (r == 6 || r == 7))
                    want = r == 6 ? 0 : 1;
                if (late6 == 3 && (r == 6 || r == 7))
                    want = 2;
                if (late6 < 3 || r == 6 || r == 7) /* (the others' rendezvous chains: not derived here) */
                    CHECK_EQ_INT(len, want);
            }
        }
        rt_replay_result_destroy(res);
        rt_trace_close(t);
        rt_network_destroy(net);
    }
}

/* ------------------------------------------------------------------ options, determinism */

static void test_algo_parse(void)
{
    uint8_t a[RT_COLL_OTHER + 1] = {0};
    rt_error err = {0};
    CHECK_EQ_INT(rt_coll_algo_parse("allreduce=ring,bcast=binomial", a, &err), RT_OK);
    CHECK_EQ_INT(a[RT_COLL_ALLREDUCE], RT_ALGO_RING);
    CHECK_EQ_INT(a[RT_COLL_BCAST], RT_ALGO_BINOMIAL);
    CHECK_EQ_INT(a[RT_COLL_BARRIER], RT_ALGO_AUTO);
    CHECK_EQ_INT(rt_coll_algo_parse("allgather=recdbl,alltoall=pairwise,barrier=dissemination,scan=recdbl", a, &err),
                 RT_OK);
    CHECK_EQ_INT(a[RT_COLL_ALLGATHER], RT_ALGO_RECDBL);
    CHECK_EQ_INT(a[RT_COLL_ALLREDUCE], RT_ALGO_RING); /* not named: unchanged */
    CHECK_EQ_INT(rt_coll_algo_parse("allreduce=auto", a, &err), RT_OK);
    CHECK_EQ_INT(a[RT_COLL_ALLREDUCE], RT_ALGO_AUTO);

    uint8_t before[RT_COLL_OTHER + 1];
    memcpy(before, a, sizeof a);
    CHECK_EQ_INT(rt_coll_algo_parse("allreduce=rabenseifner,bcast=ring", a, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "algorithm 'ring' does not apply to bcast (valid: auto, binomial, linear, pipeline, chain, binary, split-binary, knomial, scatter-recdbl, scatter-ring)");
    CHECK(memcmp(a, before, sizeof a) == 0); /* a bad spec changes nothing */
    CHECK_EQ_INT(rt_coll_algo_parse("allreduce=fast", a, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "unknown collective algorithm 'fast' for allreduce (valid: auto, recdbl, ring, rabenseifner, pairwise, linear, segmented-ring, reduce-bcast)");
    CHECK_EQ_INT(rt_coll_algo_parse("allredux=ring", a, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "unknown collective operation 'allredux' (operations: barrier, bcast");
    CHECK_EQ_INT(rt_coll_algo_parse("allreduce", a, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "'allreduce' is not OP=ALGO");
    CHECK_EQ_INT(rt_coll_algo_parse("allreduce=ring,", a, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_coll_algo_parse("", a, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_coll_algo_parse("other=dissemination", a, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_coll_algo_parse("gather=pairwise", a, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "does not apply to gather (valid: auto, binomial, linear, linear-sync)");

    CHECK(strcmp(rt_coll_algo_name(RT_ALGO_RABENSEIFNER), "rabenseifner") == 0);
    CHECK(strcmp(rt_coll_algo_name(RT_ALGO_AUTO), "auto") == 0);
    CHECK(strcmp(rt_coll_algo_name(99), "unknown") == 0);

    /* The replay checks a table filled by hand, too. */
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    for (uint32_t r = 0; r < 2; r++)
        add_call(b, r, 0, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, NO_ROOT, 0, 0);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = NULL;
    CHECK_EQ_INT(rt_trace_open(dir, &t, &err), RT_OK);
    struct rt_replay_options o;
    rt_replay_options_default(&o);
    for (int op = 0; op <= RT_COLL_OTHER; op++)
        CHECK_EQ_INT(o.coll_algo[op], RT_ALGO_AUTO);
    o.coll_algo[RT_COLL_BCAST] = RT_ALGO_RING;
    struct rt_replay_result *res = NULL;
    CHECK_EQ_INT(rt_replay_run(t, &o, NULL, &res, &err), RT_EINVAL);
    CHECK(res == NULL);
    CHECK_CONTAINS(err.msg, "collective algorithm 'ring' does not apply to bcast");
    rt_trace_close(t);
}

/* A mix of collectives with late ranks, replayed twice: bit-identical. */
static void test_determinism(void)
{
    char dir[300];
    const uint32_t P = 7;
    tb_builder *b = new_trace(dir, sizeof dir, P);
    static const int ops[] = {OTF2_COLLECTIVE_OP_BARRIER, OTF2_COLLECTIVE_OP_BCAST, OTF2_COLLECTIVE_OP_ALLREDUCE,
                              OTF2_COLLECTIVE_OP_GATHER, OTF2_COLLECTIVE_OP_ALLGATHER, OTF2_COLLECTIVE_OP_ALLTOALL,
                              OTF2_COLLECTIVE_OP_REDUCE, OTF2_COLLECTIVE_OP_SCATTER, OTF2_COLLECTIVE_OP_SCAN};
    static const char *const calls[] = {"MPI_Barrier", "MPI_Bcast", "MPI_Allreduce", "MPI_Gather", "MPI_Allgather",
                                        "MPI_Alltoall", "MPI_Reduce", "MPI_Scatter", "MPI_Scan"};
    for (uint32_t r = 0; r < P; r++) {
        uint64_t t = 0;
        for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            uint64_t s, rv, work = 1000 + 737 * ((r * 5 + i * 3) % 7);
            tb_enter(b, r, t, "work");
            tb_leave(b, r, t + work, "work");
            t += work;
            counts(ops[i], P, r, i % P, 3000 + 1000 * i, &s, &rv);
            tb_collective(b, r, t, t + 500, calls[i], ops[i], i % P, s, rv);
            t += 500;
        }
    }
    CHECK_EQ_INT(tb_close(b), 0);
    struct setup su = {.scale = 1};
    rt_time_ps e1[MAXP], e2[MAXP];
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, &su, e1, P, &err), RT_OK);
    CHECK_EQ_INT(replay(dir, &su, e2, P, &err), RT_OK);
    CHECK(memcmp(e1, e2, P * sizeof e1[0]) == 0);
    su.model = "logp";
    CHECK_EQ_INT(replay(dir, &su, e1, P, &err), RT_OK);
    CHECK_EQ_INT(replay(dir, &su, e2, P, &err), RT_OK);
    CHECK(memcmp(e1, e2, P * sizeof e1[0]) == 0);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-coll-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_bcast_pow2();
    test_bcast_p3();
    test_barrier();
    test_reduce_p8();
    test_reduce_p6();
    test_gather_p8();
    test_gather_p5();
    test_scatter_p8();
    test_allreduce_recdbl();
    test_allreduce_ring();
    test_allreduce_rabenseifner();
    test_allgather();
    test_alltoall();
    test_scan();
    test_other();
    test_handle();
    test_late();
    test_logp_barrier();
    test_logp_bcast();
    test_gatherv();
    test_allgatherv_ring();
    test_subcomm();
    test_errors();
    test_algo_parse();
    test_determinism();
    test_scatter_clipped();
    test_eager_limit();
    test_late_receiver_cause();
    /* The same closed forms with the collectives run message by message on a crossbar network,
     * where none of their messages share a NIC link at once (coll_exec.c). */
    g_topology = "crossbar";
    test_bcast_pow2();
    test_bcast_p3();
    test_barrier();
    test_reduce_p8();
    test_gather_p8();
    test_scatter_p8();
    test_scatter_clipped();
    test_allreduce_rabenseifner();
    test_allgather();
    test_alltoall();
    test_scan();
    test_other();
    test_late();
    test_gatherv();
    test_allgatherv_ring();
    test_subcomm();
    test_errors();
    test_eager_limit();
    test_late_receiver_cause();
    g_topology = NULL;
    test_network_shared_links();
    test_network_loggp_bcast();
    test_network_chains();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    rt_test_failures += harness_failures();
    TEST_MAIN_END();
}
