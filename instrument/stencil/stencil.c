/* SPDX-License-Identifier: MIT */
/* A 1D Jacobi stencil on a periodic ring, timed: the second program of scripts/accuracy.sh
 * (issue #36), beside the Shift, so that the accuracy figures are not one benchmark's alone.
 *
 * Every rank owns --n doubles (default 4096). An iteration (user region stencil_iteration) is a
 * three-point Jacobi sweep over them (compute), then a halo exchange with both ring neighbours
 * by MPI_Sendrecv: --halo SIZE bytes to the right from the left, then to the left from the right
 * (the halo is a separate buffer, so the message size does not change the compute). Unlike the
 * Shift's MPI_Ssend phases, these are eager (up to the MPI library's limit) and each rank sends
 * and receives in one call.
 *
 * Output (rank 0): a header and one line "halo_bytes<TAB>mean<TAB>sigma<TAB>min<TAB>median" of
 * the iteration time in ns over all ranks and timed iterations (after --warmup), and
 * "checksum: X" of the final values, which depends only on the options and the rank count.
 * --sweeps K does K sweeps per iteration (default 1): more compute per exchange over the same
 * --n doubles, so that a small array that stays in the cache can still make long compute bursts
 * (tests/mpi/ci_gate.sh: its CPU time then hardly depends on what else runs on the machine).
 * usage: stencil [--halo SIZE] [--n N] [--sweeps K] [--iters N] [--warmup N]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "retime/region.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long arg_long(const char *v, long lo, long hi, const char *name, int rank)
{
    char *end;
    long x = strtol(v ? v : "", &end, 10);
    if (!v || *end || x < lo || x > hi) {
        if (rank == 0)
            fprintf(stderr, "stencil: error: bad %s '%s' (a whole number from %ld to %ld)\n", name, v ? v : "", lo,
                    hi);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long halo = 1000, n = 4096, sweeps = 1, iters = 100, warmup = 10;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--halo"))
            halo = arg_long(v, 0, 1L << 26, "--halo", rank), i++;
        else if (!strcmp(argv[i], "--n"))
            n = arg_long(v, 3, 1L << 24, "--n", rank), i++;
        else if (!strcmp(argv[i], "--sweeps"))
            sweeps = arg_long(v, 1, 1L << 20, "--sweeps", rank), i++;
        else if (!strcmp(argv[i], "--iters"))
            iters = arg_long(v, 1, 1L << 24, "--iters", rank), i++;
        else if (!strcmp(argv[i], "--warmup"))
            warmup = arg_long(v, 0, 1L << 24, "--warmup", rank), i++;
        else {
            if (rank == 0)
                fprintf(stderr, "stencil: error: unknown option '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    double *u = malloc((size_t)(n + 2) * sizeof *u), *w = malloc((size_t)(n + 2) * sizeof *w);
    char *sl = malloc((size_t)halo + 1), *sr = malloc((size_t)halo + 1), *rl = malloc((size_t)halo + 1),
         *rr = malloc((size_t)halo + 1);
    double *t = malloc((size_t)iters * sizeof *t);
    if (!u || !w || !sl || !sr || !rl || !rr || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n + 2; i++)
        u[i] = (double)((rank * 7919 + i) % 101);
    int left = (rank + P - 1) % P, right = (rank + 1) % P;
    for (long it = -warmup; it < iters; it++) {
        double t0 = now();
        rt_region_begin("stencil_iteration");
        for (long k = 0; k < sweeps; k++) {
            w[0] = u[0]; /* the halo values stay for every sweep of the iteration */
            w[n + 1] = u[n + 1];
            for (long i = 1; i <= n; i++)
                w[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
            double *x = u;
            u = w;
            w = x;
        }
        /* the edge values travel in the halo's first bytes */
        if (halo >= (long)sizeof(double)) {
            memcpy(sr, &u[n], sizeof(double));
            memcpy(sl, &u[1], sizeof(double));
        }
        MPI_Sendrecv(sr, (int)halo, MPI_BYTE, right, 1, rl, (int)halo, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(sl, (int)halo, MPI_BYTE, left, 2, rr, (int)halo, MPI_BYTE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (halo >= (long)sizeof(double)) {
            memcpy(&u[0], rl, sizeof(double));
            memcpy(&u[n + 1], rr, sizeof(double));
        }
        rt_region_end();
        if (it >= 0)
            t[it] = now() - t0;
    }
    double sum = 0;
    for (long i = 1; i <= n; i++)
        sum += u[i];
    double *all = rank == 0 ? malloc((size_t)iters * (size_t)P * sizeof *all) : NULL;
    double total = 0;
    MPI_Gather(t, (int)iters, MPI_DOUBLE, all, (int)iters, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        size_t m = (size_t)iters * (size_t)P;
        double mean = 0, sq = 0;
        for (size_t i = 0; i < m; i++)
            mean += all[i];
        mean /= (double)m;
        for (size_t i = 0; i < m; i++)
            sq += (all[i] - mean) * (all[i] - mean);
        qsort(all, m, sizeof *all, cmp_double);
        printf("halo_bytes\tmean [ns]\tsigma [ns]\tmin [ns]\tmedian [ns]\n");
        printf("%ld\t%.0f\t%.0f\t%.0f\t%.0f\n", halo, mean * 1e9, m > 1 ? sqrt(sq / (double)(m - 1)) * 1e9 : 0,
               all[0] * 1e9, all[(m - 1) / 2] * 1e9);
        printf("checksum: %.6f\n", total);
        free(all);
    }
    free(u), free(w), free(sl), free(sr), free(rl), free(rr), free(t);
    MPI_Finalize();
    return 0;
}
