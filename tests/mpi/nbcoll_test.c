/* SPDX-License-Identifier: MIT */
/* Test program: MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce and MPI_Ibarrier, completed by MPI_Wait,
 * an MPI_Test loop and MPI_Waitall, with compute (a busy loop) between start and completion, then
 * 150 MPI_Iallreduce in flight at once and one MPI_Waitall; prints
 * "verification: passed" when the data is right. tests/mpi/nbcoll.sh traces and replays it. */
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
    int bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad_all ? "verification: FAILED\n" : "verification: passed\n");
    MPI_Finalize();
    return bad_all != 0;
}
