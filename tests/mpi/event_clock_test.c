/* SPDX-License-Identifier: MIT */
/* What tests/mpi/event_clock.sh checks in a traced run (issue #45, item 6): MPI_Barrier made from
 * three call sites, first one site several times in a row, then two sites in turn (the tracer
 * writes a call site only when it changes for its region; every call must still be attributed to
 * its own line); and a known interval, a sleep inside the user region "sleep" that the program
 * measures itself with CLOCK_MONOTONIC, so that the trace's clock can be checked against it.
 * Prints "rank R slept_ns N" per rank and "event_clock_test: ok". */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <retime/region.h>
#include <stdio.h>
#include <time.h>

static double mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Each site a function of its own, so that the sites differ by name where the build has no line
 * information (Release); a store after each call keeps it a call (not a jump from the caller's
 * frame) and the functions unlike (identical code folding would merge them). */
static volatile int after;

__attribute__((noinline)) static void barrier_a(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* SITE_A: 7 calls in a row */
    after = 1;
}

__attribute__((noinline)) static void barrier_b(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* SITE_B: 4 calls, between SITE_C's */
    after = 2;
}

__attribute__((noinline)) static void barrier_c(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* SITE_C: 8 calls */
    after = 3;
}

__attribute__((noinline)) static void barrier_d(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* SITE_D: 1 call, after SITE_C */
    after = 4;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 7; i++)
        barrier_a();
    for (int i = 0; i < 12; i++) {
        if (i % 3 == 0)
            barrier_b();
        else
            barrier_c();
    }
    rt_region_begin("sleep");
    double t0 = mono_ns();
    struct timespec d = {0, 300000000}; /* 300 ms */
    nanosleep(&d, NULL);
    double t1 = mono_ns();
    rt_region_end();
    barrier_d();
    printf("rank %d slept_ns %.0f\n", rank, t1 - t0);
    if (rank == 0)
        printf("event_clock_test: ok\n");
    MPI_Finalize();
    return 0;
}
