/* SPDX-License-Identifier: MIT */
/* Test program: some traced communication, then rank 1 calls MPI_Abort while the others block. */
#include "retime/region.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rt_region_begin("before_abort");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &token, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    rt_region_end();
    if (rank == 1) {
        fprintf(stderr, "abort_test: rank 1 aborts on purpose\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* Never satisfied: these ranks wait until MPI takes them down. */
    MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
