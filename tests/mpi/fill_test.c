/* SPDX-License-Identifier: MIT */
/* Test program that writes many trace events with little communication (tests/mpi/full_disk.sh):
 * each step enters and leaves a user region --regions times (two events each, no MPI call), then
 * passes a token around the ring and sums a checksum with MPI_Allreduce. Rank 0 prints the
 * checksum, so a traced run's results can be compared with an untraced one's. On a loaded
 * machine a step costs a few context switches, not one per event: filling a trace buffer of
 * megabytes takes seconds where a communication-bound program (Shift) took minutes. */
#include "retime/region.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long steps = 100, regions = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            steps = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--regions"))
            regions = atol(argv[i + 1]);
        else {
            fprintf(stderr, "usage: fill_test [--steps N] [--regions N]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned long sum = 0;
    for (long s = 0; s < steps; s++) {
        for (long k = 0; k < regions; k++) {
            rt_region_begin("fill");
            rt_region_end();
        }
        long token = rank * steps + s, got = -1;
        MPI_Sendrecv(&token, 1, MPI_LONG, right, 0, &got, 1, MPI_LONG, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        unsigned long part = (unsigned long)got * 2654435761ul, all = 0;
        MPI_Allreduce(&part, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        sum = sum * 31 + all;
    }
    if (rank == 0)
        printf("fill_test: %ld steps of %ld regions on %d ranks, checksum %lu\nverification: passed\n", steps,
               regions, size, sum);
    MPI_Finalize();
    return 0;
}
