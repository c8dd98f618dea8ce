/* SPDX-License-Identifier: MIT */
/* Test program for the tracer's signal handling: sets the dispositions of SIGTERM and SIGINT the
 * options ask for before MPI_Init (a handler that reports and then dies by the signal, one that
 * reports and lets the program go on, or SIG_IGN), then passes a token around a ring inside a
 * user region until the time is up, or (--until-file PATH) until PATH exists: a test that must
 * signal the program while it runs then ends it when it is done, however slow a loaded machine
 * is. With --pids, every rank prints its rank and process id first (tests/mpi/save_order.sh
 * signals the ranks one by one). */
#define _POSIX_C_SOURCE 200809L
#include "retime/region.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void on_signal(int sig)
{
    /* What a careful program does: report with write(2), then die by the signal. */
    const char *msg = sig == SIGTERM ? "signal_test: caught SIGTERM\n" : "signal_test: caught SIGINT\n";
    ssize_t n = write(STDERR_FILENO, msg, strlen(msg));
    (void)n;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_signal_go_on(int sig)
{
    const char *msg = sig == SIGTERM ? "signal_test: caught SIGTERM, going on\n"
                                     : "signal_test: caught SIGINT, going on\n";
    ssize_t n = write(STDERR_FILENO, msg, strlen(msg));
    (void)n;
}

static int parse_sig(const char *s)
{
    if (!strcmp(s, "term"))
        return SIGTERM;
    if (!strcmp(s, "int"))
        return SIGINT;
    fprintf(stderr, "signal_test: error: want term or int, not '%s'\n", s);
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double seconds = 30;
    const char *until_file = NULL;
    int pids = 0;
    for (int i = 1; i < argc; i++) {
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--pids")) {
            pids = 1;
            continue;
        }
        if (val && !strcmp(argv[i], "--handler"))
            signal(parse_sig(val), on_signal);
        else if (val && !strcmp(argv[i], "--handler-go-on"))
            sigaction(parse_sig(val),
                      &(struct sigaction){.sa_handler = on_signal_go_on, .sa_flags = SA_RESTART},
                      NULL);
        else if (val && !strcmp(argv[i], "--ignore"))
            signal(parse_sig(val), SIG_IGN);
        else if (val && !strcmp(argv[i], "--seconds"))
            seconds = atof(val);
        else if (val && !strcmp(argv[i], "--until-file"))
            until_file = val;
        else {
            fprintf(stderr, "usage: signal_test [--handler term|int] [--handler-go-on term|int] "
                            "[--ignore term|int] [--seconds S] [--until-file PATH] [--pids]\n");
            return 2;
        }
        i++;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (pids) {
        printf("signal_test: rank %d pid %ld\n", rank, (long)getpid());
        fflush(stdout);
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long steps = 0;
    double t_end = now_s() + seconds;
    int go = 1;
    while (go) {
        int token = rank, got = -1;
        rt_region_begin("ring_step");
        MPI_Sendrecv(&token, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        rt_region_end();
        /* A few thousand steps a second keep the trace of a short run small. */
        nanosleep(&(struct timespec){0, 200000}, NULL);
        if (got != left) {
            fprintf(stderr, "signal_test: wrong token %d from %d\n", got, left);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (++steps == 1 && rank == 0) {
            printf("signal_test: ready\n");
            fflush(stdout);
        }
        /* Rank 0 decides, so that all ranks stop after the same step. */
        if (steps % 64 == 0) {
            go = now_s() < t_end && !(until_file && access(until_file, F_OK) == 0);
            MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("signal_test: done after %ld steps\n", steps);
    MPI_Finalize();
    return 0;
}
