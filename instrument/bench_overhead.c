/* SPDX-License-Identifier: MIT */
/* Tracer overhead benchmark: times MPI calls that do no communication, with or without
 * libretime-trace preloaded, so the difference is the cost the tracer adds per call.
 *
 *   mpirun -np 1 bench_overhead [N]                                   (untraced)
 *   LD_PRELOAD=libretime-trace.so mpirun -np 1 bench_overhead [N]     (traced)
 *
 * MPI_Send to MPI_PROC_NULL records Enter + Leave (no message record for a null peer) and
 * MPI_Test on MPI_REQUEST_NULL records Enter + Leave; both carry the call-site attribute unless
 * RETIME_TRACE_CALLSITE=0. The best of 20 rounds is printed, in ns per call, then the mean of all
 * rounds (which holds the tracer's deferred work: the event log's encoding, flushes), and beside it
 * what one read of each event clock the tracer may use costs here (clock_gettime(CLOCK_MONOTONIC)
 * and, on x86-64, the time-stamp counter): a traced call reads the clock twice.
 * bench/overhead.sh runs it untraced and traced and prints the difference.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The best of 5 rounds of n reads of each clock, in ns per read; -1 for one this CPU lacks. */
static void clock_costs(long n, double *mono, double *tsc)
{
    *mono = *tsc = 1e30;
    volatile uint64_t sink = 0;
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            sink += (uint64_t)ts.tv_nsec;
        }
        double t1 = now_ns();
#if defined(__x86_64__)
        for (long i = 0; i < n; i++)
            sink += __rdtsc();
#endif
        double t2 = now_ns();
        if ((t1 - t0) / n < *mono)
            *mono = (t1 - t0) / n;
        if ((t2 - t1) / n < *tsc)
            *tsc = (t2 - t1) / n;
    }
#if !defined(__x86_64__)
    *tsc = -1;
#endif
    (void)sink;
}

/* Per call, in ns: the best round (what a call costs in itself) and the mean of all rounds (with
 * the tracer's work that is not in every call: encoding its event log into OTF2 and flushing it
 * to disk, a few ms every few hundred thousand calls); each by the wall clock and by the thread's
 * CPU time (which leaves out the time a busy machine kept the rank off a CPU, so that figures
 * taken beside other work still compare). */
struct best {
    double wall, cpu;           /* best round */
    double wall_sum, cpu_sum;   /* all rounds */
};

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void keep(struct best *b, double w0, double c0, long n)
{
    double w = now_ns() - w0, c = cpu_ns() - c0;
    b->wall_sum += w;
    b->cpu_sum += c;
    if (w / n < b->wall)
        b->wall = w / n;
    if (c / n < b->cpu)
        b->cpu = c / n;
}

#define ROUNDS 20

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 50000;
    if (n <= 0)
        n = 50000;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char byte = 0;
    struct best send = {1e30, 1e30, 0, 0}, test = {1e30, 1e30, 0, 0};
    for (int round = 0; round < ROUNDS; round++) {
        double w0 = now_ns(), c0 = cpu_ns();
        for (long i = 0; i < n; i++)
            MPI_Send(&byte, 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        keep(&send, w0, c0, n);
        w0 = now_ns(), c0 = cpu_ns();
        for (long i = 0; i < n; i++) {
            MPI_Request r = MPI_REQUEST_NULL;
            int flag;
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
        keep(&test, w0, c0, n);
    }
    double mono, tsc;
    clock_costs(n, &mono, &tsc);
    if (rank == 0) {
        printf("calls_per_round %ld\n", n);
        double all = (double)n * ROUNDS;
        printf("MPI_Send(PROC_NULL) %.1f ns/call (cpu %.1f ns/call) mean %.1f ns/call (cpu %.1f ns/call)\n",
               send.wall, send.cpu, send.wall_sum / all, send.cpu_sum / all);
        printf("MPI_Test(REQUEST_NULL) %.1f ns/call (cpu %.1f ns/call) mean %.1f ns/call (cpu %.1f ns/call)\n",
               test.wall, test.cpu, test.wall_sum / all, test.cpu_sum / all);
        printf("clock_gettime(CLOCK_MONOTONIC) %.1f ns/read\n", mono);
        if (tsc >= 0)
            printf("rdtsc %.1f ns/read\n", tsc);
    }
    MPI_Finalize();
    return 0;
}
