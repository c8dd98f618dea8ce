/* SPDX-License-Identifier: MIT */
/* Test program: point-to-point and collectives on communicators made by MPI_Comm_split and
 * MPI_Comm_dup, plus MPI_PROC_NULL peers; prints "verification: passed" when the data is right. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(half, &dup);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    /* Ring inside the half: the event records must name peers by their rank in `half`. */
    int token = -1, right = (hr + 1) % hn, left = (hr + hn - 1) % hn;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &token, 1, MPI_INT, left, 7, half, MPI_STATUS_IGNORE);
    int expect_left_world = 2 * left + rank % 2;
    bad += token != expect_left_world;
    int root_val = hr == 0 ? 1000 + rank : 0;
    MPI_Bcast(&root_val, 1, MPI_INT, 0, dup);
    bad += root_val != 1000 + rank % 2;
    MPI_Send(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    int bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(bad_all ? "verification: FAILED\n" : "verification: passed\n");
    MPI_Finalize();
    return bad_all != 0;
}
