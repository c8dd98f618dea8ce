/* SPDX-License-Identifier: MIT */
/* Pending requests that share one handle (issue #45, item 3): Open MPI 4.1 returns the same
 * request for every MPI_Isend it sends inline (small messages on shared memory), so the tracer
 * must keep each of them and record each completion for the right request. Every phase is tagged
 * (tag = phase * 1000 + index) so that requests_check.sh can tell from the trace alone which
 * MPI_ISEND each MPI_ISEND_COMPLETE must complete.
 *   phase 1: rank 0 sends three doubles to rank 1 with MPI_Isend, then one MPI_Waitall.
 *   phase 2: rank 0 sends a and b; MPI_Wait(a) must complete a, then MPI_Wait(b) b.
 *   phase 3: rank 0 sends a and b; MPI_Wait(b) must complete b, then MPI_Wait(a) a.
 *   phase 3b: rank 0 sends a and b (tags 3500, 3501); MPI_Wait on a copy of b's variable, then
 *            MPI_Wait(a): the copy is completed as the oldest request of the handle (the tracer
 *            cannot know better), then a's variable takes the one left.
 *   phase 4: every rank sends 8 B to every other rank, ITERS times, completed by MPI_Waitall,
 *            MPI_Waitsome, MPI_Testany and MPI_Test in turn, plus one 64 KiB message to its
 *            right neighbour (a handle of its own, rendezvous), received with MPI_Irecv.
 * Prints "requests_test: ok" on rank 0 when every received value was right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 8
#define BIG (64 * 1024 / 8)

static int fail(const char *what)
{
    fprintf(stderr, "requests_test: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

/* Completes all @p n requests in @p q with the completion call of iteration @p it. */
static void complete(int it, int n, MPI_Request *q)
{
    int done = 0, idx, flag, outc, *ind = malloc((size_t)n * sizeof *ind);
    switch (it % 4) {
    case 0:
        MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
        break;
    case 1:
        while (done < n) {
            MPI_Waitsome(n, q, &outc, ind, MPI_STATUSES_IGNORE);
            if (outc == MPI_UNDEFINED)
                break;
            done += outc;
        }
        break;
    case 2:
        while (done < n) {
            MPI_Testany(n, q, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx == MPI_UNDEFINED)
                break;
            done += flag;
        }
        break;
    default:
        for (int i = 0; i < n; i++)
            for (flag = 0; !flag;)
                MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
    }
    free(ind);
}

int main(int argc, char **argv)
{
    int rank, P;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (P < 2)
        return fail("needs at least 2 ranks");
    double x[3] = {1.5, 2.5, 3.5}, y[3] = {0};
    MPI_Request q[3], a, b, c;
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Isend(&x[i], 1, MPI_DOUBLE, 1, 1000 + i, MPI_COMM_WORLD, &q[i]);
        MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
        MPI_Isend(&x[0], 1, MPI_DOUBLE, 1, 2000, MPI_COMM_WORLD, &a);
        MPI_Isend(&x[1], 1, MPI_DOUBLE, 1, 2001, MPI_COMM_WORLD, &b);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Isend(&x[0], 1, MPI_DOUBLE, 1, 3000, MPI_COMM_WORLD, &a);
        MPI_Isend(&x[1], 1, MPI_DOUBLE, 1, 3001, MPI_COMM_WORLD, &b);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Isend(&x[0], 1, MPI_DOUBLE, 1, 3500, MPI_COMM_WORLD, &a);
        MPI_Isend(&x[1], 1, MPI_DOUBLE, 1, 3501, MPI_COMM_WORLD, &b);
        c = b;
        MPI_Wait(&c, MPI_STATUS_IGNORE);
        MPI_Wait(&a, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        int tags[9] = {1000, 1001, 1002, 2000, 2001, 3000, 3001, 3500, 3501};
        for (int i = 0; i < 9; i++) {
            MPI_Recv(&y[i % 3], 1, MPI_DOUBLE, 0, tags[i], MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (y[i % 3] != x[i < 3 ? i : (i - 3) % 2])
                return fail("wrong value in phases 1-3b");
        }
    }

    int n = 2 * (P - 1) + 2;
    MPI_Request *r = malloc((size_t)n * sizeof *r);
    double *in = calloc((size_t)P, sizeof *in), *big_out = malloc(BIG * sizeof *big_out),
           *big_in = malloc(BIG * sizeof *big_in);
    if (!r || !in || !big_out || !big_in)
        return fail("out of memory");
    for (int it = 0; it < ITERS; it++) {
        int k = 0;
        for (int p = 0; p < P; p++)
            if (p != rank)
                MPI_Irecv(&in[p], 1, MPI_DOUBLE, p, 4000 + it, MPI_COMM_WORLD, &r[k++]);
        MPI_Irecv(big_in, BIG, MPI_DOUBLE, (rank + P - 1) % P, 5000 + it, MPI_COMM_WORLD, &r[k++]);
        double mine = rank * 100.0 + it;
        for (int p = 0; p < P; p++)
            if (p != rank)
                MPI_Isend(&mine, 1, MPI_DOUBLE, p, 4000 + it, MPI_COMM_WORLD, &r[k++]);
        for (int i = 0; i < BIG; i++)
            big_out[i] = rank + i + it;
        MPI_Isend(big_out, BIG, MPI_DOUBLE, (rank + 1) % P, 5000 + it, MPI_COMM_WORLD, &r[k++]);
        complete(it, k, r);
        for (int p = 0; p < P; p++)
            if (p != rank && in[p] != p * 100.0 + it)
                return fail("wrong value in the exchange");
        int left = (rank + P - 1) % P;
        if (big_in[7] != left + 7 + it)
            return fail("wrong value in the 64 KiB message");
    }
    free(r), free(in), free(big_out), free(big_in);
    if (rank == 0)
        printf("requests_test: ok\n");
    MPI_Finalize();
    return 0;
}
