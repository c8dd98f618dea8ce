/* SPDX-License-Identifier: MIT */
/* Test program: the vector and prefix collectives the tracer wraps, with counts that differ from rank
 * to rank, each first blocking (MPI_<coll>) and then as its non-blocking twin (MPI_I<coll>, all
 * seventeen in flight at once and completed by one MPI_Waitall). Prints "verification: passed" when
 * every result of both rounds is right. tests/mpi/vcoll.sh derives each rank's byte counts from the
 * list in vcoll_round and checks the trace's records against them, then replays the trace. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { PMAX = 16, NITEMS = 17 };

/* The call MPI_<name>(...) in the blocking round, its twin MPI_<iname>(..., &r[n++]) in the other. */
#define CALL(name, iname, ...) (nb ? MPI_##iname(__VA_ARGS__, &r[n++]) : MPI_##name(__VA_ARGS__))

static int Tsize(int i) /* the Alltoallw type of rank i's blocks: MPI_DOUBLE when i is odd */
{
    return i % 2 ? 8 : 2;
}

/* One round over the items below (P ranks; i is this rank, [R] the root; counts are of elements)
 * on MPI_COMM_WORLD; returns the number of wrong values.
 *   1  Gatherv               i + 1 MPI_INT from rank i to [P-1]
 *   2  Gatherv               2i + 1 MPI_DOUBLE from rank i to [0], in place
 *   3  Scatterv              P - i MPI_SHORT to rank i from [1 % P]
 *   4  Scatterv              i + 2 MPI_INT to rank i from [0], in place
 *   5  Allgatherv            i + 1 MPI_DOUBLE from rank i
 *   6  Allgatherv            2i + 1 MPI_INT from rank i, in place
 *   7  Alltoallv             i + 2j + 1 MPI_INT from rank i to rank j
 *   8  Alltoallv             i + j + 1 MPI_INT between ranks i and j, in place
 *   9  Alltoallw             i + 1 of T(i) from rank i to each rank (T: MPI_DOUBLE for odd i, else MPI_SHORT)
 *  10  Reduce_scatter        i + 1 MPI_INT to rank i (MPI_SUM)
 *  11  Reduce_scatter        P - i MPI_INT to rank i, in place
 *  12  Reduce_scatter_block  3 MPI_INT per rank
 *  13  Reduce_scatter_block  2 MPI_DOUBLE per rank, in place
 *  14  Scan                  5 MPI_INT
 *  15  Scan                  2 MPI_DOUBLE, in place
 *  16  Exscan                3 MPI_INT
 *  17  Exscan                1 MPI_LONG_LONG, in place */
static int vcoll_round(int nb, int me, int P)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r[NITEMS];
    int n = 0, bad = 0, last = P - 1, s = 1 % P;
    int c1[PMAX], d1[PMAX], c2[PMAX], d2[PMAX], c3[PMAX], d3[PMAX], c4[PMAX], d4[PMAX], c5[PMAX], d5[PMAX];
    int c6[PMAX], d6[PMAX], c10[PMAX], c11[PMAX];
    int sc7[PMAX], sd7[PMAX], rc7[PMAX], rd7[PMAX], c8[PMAX], d8[PMAX];
    int sc9[PMAX], sd9[PMAX], rc9[PMAX], rd9[PMAX];
    MPI_Datatype st9[PMAX], rt9[PMAX];
    int t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7s = 0, t7r = 0, t8 = 0, t10 = 0, t11 = 0;
    for (int j = 0; j < P; j++) {
        c1[j] = j + 1, d1[j] = t1, t1 += c1[j];
        c2[j] = 2 * j + 1, d2[j] = t2, t2 += c2[j];
        c3[j] = P - j, d3[j] = t3, t3 += c3[j];
        c4[j] = j + 2, d4[j] = t4, t4 += c4[j];
        c5[j] = j + 1, d5[j] = t5, t5 += c5[j];
        c6[j] = 2 * j + 1, d6[j] = t6, t6 += c6[j];
        sc7[j] = me + 2 * j + 1, sd7[j] = t7s, t7s += sc7[j];
        rc7[j] = j + 2 * me + 1, rd7[j] = t7r, t7r += rc7[j];
        c8[j] = me + j + 1, d8[j] = t8, t8 += c8[j];
        sc9[j] = me + 1, sd9[j] = 17 * 8 * j, st9[j] = me % 2 ? MPI_DOUBLE : MPI_SHORT;
        rc9[j] = j + 1, rd9[j] = 17 * 8 * j, rt9[j] = j % 2 ? MPI_DOUBLE : MPI_SHORT;
        c10[j] = j + 1, t10 += c10[j];
        c11[j] = P - j, t11 += c11[j];
    }
    /* 1 and 2: gathers */
    int s1[PMAX], r1[PMAX * PMAX];
    for (int k = 0; k < c1[me]; k++)
        s1[k] = 100 * me + k;
    CALL(Gatherv, Igatherv, s1, c1[me], MPI_INT, r1, c1, d1, MPI_INT, last, w);
    double s2[2 * PMAX], r2[2 * PMAX * PMAX];
    for (int k = 0; k < c2[me]; k++)
        s2[k] = r2[k] = me + k / 10.0;
    CALL(Gatherv, Igatherv, me ? s2 : MPI_IN_PLACE, c2[me], MPI_DOUBLE, r2, c2, d2, MPI_DOUBLE, 0, w);
    /* 3 and 4: scatters */
    short s3[PMAX * PMAX], r3[PMAX];
    for (int j = 0; j < P; j++)
        for (int k = 0; k < c3[j]; k++)
            s3[d3[j] + k] = (short)(me == s ? 10 * j + k : -1);
    int s4[PMAX * PMAX], r4[PMAX + 2];
    for (int j = 0; j < P; j++)
        for (int k = 0; k < c4[j]; k++)
            s4[d4[j] + k] = me == 0 ? 1000 * j + k : -1;
    CALL(Scatterv, Iscatterv, s3, c3, d3, MPI_SHORT, r3, c3[me], MPI_SHORT, s, w);
    CALL(Scatterv, Iscatterv, s4, c4, d4, MPI_INT, me ? (void *)r4 : MPI_IN_PLACE, c4[me], MPI_INT, 0, w);
    /* 5 and 6: allgathers */
    double s5[PMAX], r5[PMAX * PMAX];
    for (int k = 0; k < c5[me]; k++)
        s5[k] = 10 * me + k;
    CALL(Allgatherv, Iallgatherv, s5, c5[me], MPI_DOUBLE, r5, c5, d5, MPI_DOUBLE, w);
    int r6[2 * PMAX * PMAX];
    for (int k = 0; k < t6; k++)
        r6[k] = k >= d6[me] && k < d6[me] + c6[me] ? 100 * me + k - d6[me] : -1;
    CALL(Allgatherv, Iallgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r6, c6, d6, MPI_INT, w);
    /* 7 to 9: all-to-alls */
    int s7[3 * PMAX * PMAX], r7[3 * PMAX * PMAX];
    for (int j = 0; j < P; j++)
        for (int k = 0; k < sc7[j]; k++)
            s7[sd7[j] + k] = 10000 * me + 100 * j + k;
    CALL(Alltoallv, Ialltoallv, s7, sc7, sd7, MPI_INT, r7, rc7, rd7, MPI_INT, w);
    int r8[2 * PMAX * PMAX];
    for (int j = 0; j < P; j++)
        for (int k = 0; k < c8[j]; k++)
            r8[d8[j] + k] = 10000 * me + 100 * j + k;
    CALL(Alltoallv, Ialltoallv, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r8, c8, d8, MPI_INT, w);
    char s9[17 * 8 * PMAX], r9[17 * 8 * PMAX];
    for (int j = 0; j < P; j++)
        for (int k = 0; k < sc9[j]; k++) {
            double v = 100 * me + 7 * j + k;
            short h = (short)v;
            memcpy(s9 + sd9[j] + k * Tsize(me), me % 2 ? (void *)&v : (void *)&h, (size_t)Tsize(me));
        }
    CALL(Alltoallw, Ialltoallw, s9, sc9, sd9, st9, r9, rc9, rd9, rt9, w);
    /* 10 to 13: reduce-scatters */
    int s10[PMAX * PMAX], r10[PMAX];
    for (int e = 0; e < t10; e++)
        s10[e] = me + e;
    CALL(Reduce_scatter, Ireduce_scatter, s10, r10, c10, MPI_INT, MPI_SUM, w);
    int r11[PMAX * PMAX];
    for (int e = 0; e < t11; e++)
        r11[e] = 2 * me + e;
    CALL(Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, r11, c11, MPI_INT, MPI_SUM, w);
    int s12[3 * PMAX], r12[3];
    for (int e = 0; e < 3 * P; e++)
        s12[e] = me + e;
    CALL(Reduce_scatter_block, Ireduce_scatter_block, s12, r12, 3, MPI_INT, MPI_SUM, w);
    double r13[2 * PMAX];
    for (int e = 0; e < 2 * P; e++)
        r13[e] = me + 0.5 * e;
    CALL(Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, r13, 2, MPI_DOUBLE, MPI_SUM, w);
    /* 14 to 17: scans */
    int s14[5], r14[5], s16[3], r16[3];
    double r15[2];
    long long r17 = me + 1;
    for (int k = 0; k < 5; k++)
        s14[k] = me + k;
    for (int k = 0; k < 2; k++)
        r15[k] = 1.5 * me + k;
    for (int k = 0; k < 3; k++)
        s16[k] = me + k;
    CALL(Scan, Iscan, s14, r14, 5, MPI_INT, MPI_SUM, w);
    CALL(Scan, Iscan, MPI_IN_PLACE, r15, 2, MPI_DOUBLE, MPI_SUM, w);
    CALL(Exscan, Iexscan, s16, r16, 3, MPI_INT, MPI_SUM, w);
    CALL(Exscan, Iexscan, MPI_IN_PLACE, &r17, 1, MPI_LONG_LONG, MPI_SUM, w);
    if (nb)
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);

    for (int j = 0; j < P; j++) {
        for (int k = 0; me == last && k < c1[j]; k++)
            bad += r1[d1[j] + k] != 100 * j + k;
        for (int k = 0; me == 0 && k < c2[j]; k++)
            bad += r2[d2[j] + k] != j + k / 10.0;
        for (int k = 0; k < c5[j]; k++)
            bad += r5[d5[j] + k] != 10 * j + k;
        for (int k = 0; k < c6[j]; k++)
            bad += r6[d6[j] + k] != 100 * j + k;
        for (int k = 0; k < rc7[j]; k++) /* from rank j: its block for me */
            bad += r7[rd7[j] + k] != 10000 * j + 100 * me + k;
        for (int k = 0; k < c8[j]; k++)
            bad += r8[d8[j] + k] != 10000 * j + 100 * me + k;
        for (int k = 0; k < rc9[j]; k++) {
            double v = 0;
            short h = 0;
            memcpy(j % 2 ? (void *)&v : (void *)&h, r9 + rd9[j] + k * Tsize(j), (size_t)Tsize(j));
            bad += (j % 2 ? v : h) != 100 * j + 7 * me + k;
        }
    }
    for (int k = 0; k < c3[me]; k++)
        bad += r3[k] != 10 * me + k;
    for (int k = 0; me && k < c4[me]; k++)
        bad += r4[k] != 1000 * me + k;
    for (int k = 0; k < c10[me]; k++) /* element e = d + k of the sum of (rank + e) */
        bad += r10[k] != P * (P - 1) / 2 + P * (me * (me + 1) / 2 + k);
    int d11 = t11 - (P - me) * (P - me + 1) / 2; /* my block's first element */
    for (int k = 0; k < c11[me]; k++)
        bad += r11[k] != P * (P - 1) + P * (d11 + k);
    for (int k = 0; k < 3; k++)
        bad += r12[k] != P * (P - 1) / 2 + P * (3 * me + k);
    for (int k = 0; k < 2; k++)
        bad += r13[k] != P * (P - 1) / 2.0 + P * 0.5 * (2 * me + k);
    for (int k = 0; k < 5; k++)
        bad += r14[k] != me * (me + 1) / 2 + (me + 1) * k;
    for (int k = 0; k < 2; k++)
        bad += r15[k] != 1.5 * me * (me + 1) / 2 + (me + 1) * k;
    for (int k = 0; me && k < 3; k++)
        bad += r16[k] != me * (me - 1) / 2 + me * k;
    bad += me && r17 != (long long)me * (me + 1) / 2;
    if (nb && n != NITEMS)
        bad++;
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > PMAX) {
        if (rank == 0)
            printf("vcoll_test: at most %d ranks\n", PMAX);
        bad++;
    } else {
        bad += vcoll_round(0, rank, size);
        bad += vcoll_round(1, rank, size);
    }
    int bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad_all ? "verification: FAILED (%d wrong)\n" : "verification: passed\n", bad_all);
    MPI_Finalize();
    return bad_all != 0;
}
