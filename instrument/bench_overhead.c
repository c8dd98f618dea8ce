/* SPDX-License-Identifier: MIT */
/* Tracer overhead benchmark: times MPI calls that do no communication, with or without
 * libretime-trace preloaded, so the difference is the cost the tracer adds per call.
 *
 *   mpirun -np 1 bench_overhead [N]                                   (untraced)
 *   LD_PRELOAD=libretime-trace.so mpirun -np 1 bench_overhead [N]     (traced)
 *
 * MPI_Send to MPI_PROC_NULL records Enter + Leave (no message record for a null peer) and
 * MPI_Test on MPI_REQUEST_NULL records Enter + Leave; both carry the call-site attribute unless
 * RETIME_TRACE_CALLSITE=0. The best of several rounds is printed, in ns per call.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (n <= 0)
        n = 200000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char byte = 0;
    double best_send = 1e30, best_test = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            MPI_Send(&byte, 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        double t1 = now_ns();
        for (long i = 0; i < n; i++) {
            MPI_Request r = MPI_REQUEST_NULL;
            int flag;
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
        double t2 = now_ns();
        if ((t1 - t0) / n < best_send)
            best_send = (t1 - t0) / n;
        if ((t2 - t1) / n < best_test)
            best_test = (t2 - t1) / n;
    }
    if (rank == 0)
        printf("calls_per_round %ld\nMPI_Send(PROC_NULL) %.1f ns/call\n"
               "MPI_Test(REQUEST_NULL) %.1f ns/call\n",
               n, best_send, best_test);
    MPI_Finalize();
    return 0;
}
