/* SPDX-License-Identifier: MIT */
/* A 2D Jacobi solver on a periodic process grid, timed: the third program of the rank
 * extrapolation's check (issue #48, docs/extrapolate.md), beside the Shift and the 1D stencil:
 * a 2D decomposition (MPI_Dims_create, MPI_Cart_create without reordering, so that rank r has the
 * row-major coordinates of r) and an MPI_Allreduce per iteration, as a conjugate-gradient code has.
 *
 * Every rank owns an --n x --n block of doubles (weak scaling: the same block at every rank
 * count). An iteration (user region jacobi_iteration) exchanges the block's four edges with the
 * four grid neighbours (MPI_Irecv and MPI_Isend each, then MPI_Waitall; --n doubles each way),
 * sweeps the block (five-point Jacobi, compute) and sums the squared change over all ranks
 * (MPI_Allreduce of one double): the residual a solver tests for convergence.
 *
 * Output (rank 0): "grid: AxB", the mean iteration time in ns over ranks and timed iterations,
 * and "residual: X" of the last iteration, which depends only on the options and the rank count.
 * usage: jacobi2d [--n N] [--iters N] [--warmup N]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "retime/region.h"

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

static long arg_long(const char *v, long lo, long hi, const char *name, int rank)
{
    char *end;
    long x = strtol(v ? v : "", &end, 10);
    if (!v || *end || x < lo || x > hi) {
        if (rank == 0)
            fprintf(stderr, "jacobi2d: error: bad %s '%s' (a whole number from %ld to %ld)\n", name, v ? v : "", lo,
                    hi);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return x;
}

#define AT(i, j) ((size_t)(i) * (size_t)(n + 2) + (size_t)(j)) /* (n+2)^2 with a one-cell halo */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long n = 128, iters = 100, warmup = 10;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--n"))
            n = arg_long(v, 1, 1L << 13, "--n", rank), i++;
        else if (!strcmp(argv[i], "--iters"))
            iters = arg_long(v, 1, 1L << 24, "--iters", rank), i++;
        else if (!strcmp(argv[i], "--warmup"))
            warmup = arg_long(v, 0, 1L << 24, "--warmup", rank), i++;
        else {
            if (rank == 0)
                fprintf(stderr, "jacobi2d: error: unknown option '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    MPI_Comm grid;
    MPI_Dims_create(P, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_coords(grid, rank, 2, coords);
    int up, down, left, right; /* up/down along dimension 0, left/right along dimension 1 */
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    size_t cells = (size_t)(n + 2) * (size_t)(n + 2);
    double *u = calloc(cells, sizeof *u), *w = calloc(cells, sizeof *w);
    double *sbuf = malloc(4 * (size_t)n * sizeof *sbuf), *rbuf = malloc(4 * (size_t)n * sizeof *rbuf);
    if (!u || !w || !sbuf || !rbuf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            u[AT(i, j)] = (double)((coords[0] * 131 + coords[1] * 71 + i * 7 + j) % 97);
    double res = 0, sum_t = 0;
    for (long it = -warmup; it < iters; it++) {
        double t0 = now();
        rt_region_begin("jacobi_iteration");
        for (long k = 0; k < n; k++) { /* the edges: top row, bottom row, left column, right column */
            sbuf[k] = u[AT(1, k + 1)];
            sbuf[n + k] = u[AT(n, k + 1)];
            sbuf[2 * n + k] = u[AT(k + 1, 1)];
            sbuf[3 * n + k] = u[AT(k + 1, n)];
        }
        MPI_Request rq[8];
        int peer[4] = {up, down, left, right}, from[4] = {down, up, right, left};
        for (int d = 0; d < 4; d++)
            MPI_Irecv(rbuf + d * n, (int)n, MPI_DOUBLE, from[d], d, grid, &rq[d]);
        for (int d = 0; d < 4; d++)
            MPI_Isend(sbuf + d * n, (int)n, MPI_DOUBLE, peer[d], d, grid, &rq[4 + d]);
        MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
        for (long k = 0; k < n; k++) { /* what came from below is the bottom halo, and so on */
            u[AT(n + 1, k + 1)] = rbuf[k];
            u[AT(0, k + 1)] = rbuf[n + k];
            u[AT(k + 1, n + 1)] = rbuf[2 * n + k];
            u[AT(k + 1, 0)] = rbuf[3 * n + k];
        }
        double local = 0;
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++) {
                double x = 0.25 * (u[AT(i - 1, j)] + u[AT(i + 1, j)] + u[AT(i, j - 1)] + u[AT(i, j + 1)]);
                local += (x - u[AT(i, j)]) * (x - u[AT(i, j)]);
                w[AT(i, j)] = x;
            }
        double *x = u;
        u = w;
        w = x;
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, grid);
        rt_region_end();
        if (it >= 0)
            sum_t += now() - t0;
    }
    double mean = 0;
    MPI_Reduce(&sum_t, &mean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("grid: %dx%d\n", dims[0], dims[1]);
        printf("iteration mean [ns]: %.0f\n", mean / (double)P / (double)iters * 1e9);
        printf("residual: %.9e\n", res);
    }
    free(u), free(w), free(sbuf), free(rbuf);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
