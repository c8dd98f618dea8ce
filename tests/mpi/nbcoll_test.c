/* SPDX-License-Identifier: MIT */
/* Test program: every MPI_I<coll> the tracer wraps. MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce and
 * MPI_Ibarrier, completed by MPI_Wait, an MPI_Test loop and MPI_Waitall, with compute (a busy loop)
 * between start and completion, then 150 MPI_Iallreduce in flight at once and one MPI_Waitall, then
 * MPI_Igather, MPI_Iscatter, MPI_Iallgather and MPI_Ialltoall with roots, types and MPI_IN_PLACE as
 * listed in nbcoll_more (tests/mpi/nbcoll.sh derives each rank's byte counts from that list). Prints
 * "verification: passed" when every result is right. tests/mpi/nbcoll.sh traces and replays it. */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static void compute(int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += (double)i * 1e-9;
    sink = x;
}

enum { PMAX = 16 }; /* the largest world nbcoll_more checks */

/* Waits for @p n requests: MPI_Wait for one, an MPI_Test loop for two, MPI_Waitall for more, with
 * compute before (the collectives progress meanwhile). */
static void complete(int n, MPI_Request *r)
{
    compute(20000);
    if (n == 1) {
        MPI_Wait(r, MPI_STATUS_IGNORE);
    } else if (n == 2) {
        for (int done = 0; !done;) {
            compute(1000);
            MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        }
    } else {
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    }
}

/* The other non-blocking collectives, in this order (P ranks, the root's rank in brackets; "in
 * place" at the root, or on every rank for the all-to-all ones); returns the number of wrong values:
 *   1  Igather     3 MPI_DOUBLE to [P-1]                               MPI_Wait
 *   2  Igather     5 MPI_INT to [0], in place                           MPI_Wait
 *   3  Iscatter    7 MPI_SHORT from [1 % P]                             } MPI_Testall
 *   4  Iscatter    2 MPI_LONG_LONG from [P-1], in place                 }
 *   5  Iallgather  2 MPI_DOUBLE                                         } MPI_Waitall
 *   6  Iallgather  4 MPI_INT, in place                                  }
 *   7  Ialltoall   1 of 3 MPI_SHORT (contiguous type) sent, 3 MPI_SHORT received, per peer }
 *   8  Ialltoall   1 MPI_INT per peer on the communicator of the ranks of my parity         }
 *   9  Iallreduce  2 MPI_INT on MPI_COMM_SELF                                               } MPI_Testall
 *  10  Iallgather  1 MPI_INT on MPI_COMM_SELF                                               }
 * (Open MPI hands 9 and 10, done at once on one rank, the same request: the tracer must keep both.) */
static int nbcoll_more(int rank, int size)
{
    int bad = 0, last = size - 1;
    MPI_Request r[4];
    /* 1: the last rank gathers 3 doubles from each */
    double gs[3] = {rank, rank + 0.5, rank + 0.25}, gr[3 * PMAX];
    MPI_Igather(gs, 3, MPI_DOUBLE, gr, 3, MPI_DOUBLE, last, MPI_COMM_WORLD, &r[0]);
    complete(1, r);
    if (rank == last)
        for (int i = 0; i < size; i++)
            bad += gr[3 * i] != i || gr[3 * i + 1] != i + 0.5 || gr[3 * i + 2] != i + 0.25;
    /* 2: rank 0 gathers 5 ints in place (its own block already in the receive buffer) */
    int is[5], ir[5 * PMAX];
    for (int j = 0; j < 5; j++)
        is[j] = ir[j] = 10 * rank + j;
    MPI_Igather(rank ? is : MPI_IN_PLACE, 5, MPI_INT, ir, 5, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    complete(1, r);
    if (rank == 0)
        for (int i = 0; i < 5 * size; i++)
            bad += ir[i] != 10 * (i / 5) + i % 5;
    /* 3 and 4: scatters, the second in place at its root */
    int sroot = 1 % size;
    short ss[7 * PMAX], sr[7];
    for (int i = 0; i < 7 * size; i++)
        ss[i] = (short)(rank == sroot ? i : -1);
    long long ls[2 * PMAX], lr[2] = {-1, -1};
    for (int i = 0; i < 2 * size; i++)
        ls[i] = rank == last ? 1000LL * i : -1;
    MPI_Iscatter(ss, 7, MPI_SHORT, sr, 7, MPI_SHORT, sroot, MPI_COMM_WORLD, &r[0]);
    MPI_Iscatter(ls, 2, MPI_LONG_LONG, rank == last ? MPI_IN_PLACE : (void *)lr, 2, MPI_LONG_LONG, last,
                 MPI_COMM_WORLD, &r[1]);
    complete(2, r);
    for (int j = 0; j < 7; j++)
        bad += sr[j] != 7 * rank + j;
    for (int j = 0; j < 2; j++)
        bad += (rank == last ? ls[2 * rank + j] : lr[j]) != 1000LL * (2 * rank + j);
    /* 5 to 8: allgathers and alltoalls, all four in flight at once */
    double as[2] = {rank, -rank}, ar[2 * PMAX];
    int ai[4 * PMAX];
    for (int i = 0; i < 4 * size; i++)
        ai[i] = i / 4 == rank ? 100 * rank + i % 4 : -1;
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_SHORT, &three);
    MPI_Type_commit(&three);
    short ts[3 * PMAX], tr[3 * PMAX];
    for (int i = 0; i < 3 * size; i++)
        ts[i] = (short)(100 * rank + i);
    MPI_Comm parity;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
    int psize, prank, ps[PMAX], pr[PMAX];
    MPI_Comm_size(parity, &psize);
    MPI_Comm_rank(parity, &prank);
    for (int i = 0; i < psize; i++)
        ps[i] = 1000 * prank + i;
    MPI_Iallgather(as, 2, MPI_DOUBLE, ar, 2, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ai, 4, MPI_INT, MPI_COMM_WORLD, &r[1]);
    MPI_Ialltoall(ts, 1, three, tr, 3, MPI_SHORT, MPI_COMM_WORLD, &r[2]);
    MPI_Ialltoall(ps, 1, MPI_INT, pr, 1, MPI_INT, parity, &r[3]);
    complete(4, r);
    for (int i = 0; i < size; i++) {
        bad += ar[2 * i] != i || ar[2 * i + 1] != -i;
        for (int j = 0; j < 4; j++)
            bad += ai[4 * i + j] != 100 * i + j;
        for (int j = 0; j < 3; j++) /* from rank i: its block for me */
            bad += tr[3 * i + j] != 100 * i + 3 * rank + j;
    }
    for (int i = 0; i < psize; i++)
        bad += pr[i] != 1000 * i + prank;
    /* 9 and 10: two in flight on a one-rank communicator */
    int si[2] = {rank, -rank}, so[2], sg = -1;
    MPI_Iallreduce(si, so, 2, MPI_INT, MPI_SUM, MPI_COMM_SELF, &r[0]);
    MPI_Iallgather(&rank, 1, MPI_INT, &sg, 1, MPI_INT, MPI_COMM_SELF, &r[1]);
    complete(2, r);
    bad += so[0] != rank || so[1] != -rank || sg != rank;
    MPI_Comm_free(&parity);
    MPI_Type_free(&three);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 250 };
    int v[N], sum[N];
    for (int i = 0; i < N; i++)
        v[i] = rank + i;
    MPI_Request r[2];
    /* an allreduce hidden behind compute, completed by MPI_Wait */
    MPI_Iallreduce(v, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    compute(200000);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        bad += sum[i] != size * (size - 1) / 2 + size * i;
    /* a bcast from rank 1 (rank 0 alone), completed by an MPI_Test loop */
    int root = size > 1 ? 1 : 0, b[N];
    for (int i = 0; i < N; i++)
        b[i] = rank == root ? 7 * i : -1;
    MPI_Ibcast(b, N, MPI_INT, root, MPI_COMM_WORLD, &r[0]);
    for (int done = 0; !done;) {
        compute(1000);
        MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < N; i++)
        bad += b[i] != 7 * i;
    /* a reduce to rank 0 and a barrier, completed together by MPI_Waitall */
    MPI_Ireduce(v, sum, N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
    compute(50000);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (rank == 0)
        for (int i = 0; i < N; i++)
            bad += sum[i] != size - 1 + i;
    /* many in flight at once (the tracer's request table grows), completed by one MPI_Waitall */
    enum { M = 150 };
    int in[M], out[M];
    MPI_Request many[M];
    for (int i = 0; i < M; i++) {
        in[i] = rank * i;
        MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &many[i]);
    }
    MPI_Waitall(M, many, MPI_STATUSES_IGNORE);
    for (int i = 0; i < M; i++)
        bad += out[i] != i * size * (size - 1) / 2;
    if (size > PMAX) {
        if (rank == 0)
            printf("nbcoll_test: at most %d ranks\n", PMAX);
        bad++;
    } else {
        bad += nbcoll_more(rank, size);
    }
    int bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad_all ? "verification: FAILED\n" : "verification: passed\n");
    MPI_Finalize();
    return bad_all != 0;
}
