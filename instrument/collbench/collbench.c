/* SPDX-License-Identifier: MIT */
/* collbench: the collective benchmark scheme of ../shared/papers/002_*.txt (§2, Figures 3-5),
 * timed untraced and, with libretime-trace preloaded, recorded for `retime replay --region`.
 *
 * For each operation (MPI_Allreduce, MPI_Reduce, MPI_Bcast; root 0) and each communicator size k
 * (2..P, or --sizes), the first k ranks of MPI_COMM_WORLD form a communicator (MPI_Comm_split; 002
 * draws a random subset of nodes, which the replay's `--mapping random:S` does here by placing
 * the ranks on random nodes). They warm it up (--warmup W calls), then repeat --reps R times a
 * synchronised start (MPI_Barrier on the communicator) followed by the operation on --bytes bytes
 * (MPI_UNSIGNED_CHAR, MPI_BXOR), the operation alone inside the user region `<op>_k<k>` (e.g.
 * `allreduce_k8`), so that every repetition is one instance of that region. The other ranks wait
 * in an MPI_Barrier on MPI_COMM_WORLD, which every rank enters after each (op, k).
 *
 * A repetition's time is its slowest rank's time in the operation (002 takes the last process's
 * finish); rank 0 prints, per (op, k), the median, minimum and maximum over the repetitions. The
 * times are gathered with one MPI_Reduce (MPI_MAX) per (op, k) after its repetitions, outside the
 * regions. Every result is checked ("verification: passed").
 */
#include "retime/region.h"

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_MAX_BYTES (1L << 30)
#define CB_MAX_REPS 1000000L

enum cb_op { CB_ALLREDUCE, CB_REDUCE, CB_BCAST, CB_NOPS };
static const char *const cb_op_name[CB_NOPS] = {"allreduce", "reduce", "bcast"};

struct cb_opts {
    int ops[CB_NOPS]; /* the operations to run, in order */
    int nops;
    long bytes, warmup, reps;
    int *sizes;       /* communicator sizes, in order */
    int nsizes;
};

static char cb_err[256];

static int cb_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cb_err, sizeof cb_err, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_long(const char *s, const char *opt, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return cb_fail("bad %s '%s' (want an integer in [%ld, %ld])", opt, s, lo, hi);
    *out = v;
    return 0;
}

/* --ops allreduce,reduce,bcast: each at most once. */
static int parse_ops(const char *s, struct cb_opts *o)
{
    o->nops = 0;
    for (const char *p = s;;) {
        size_t n = strcspn(p, ",");
        int op = CB_NOPS;
        for (int i = 0; i < CB_NOPS; i++)
            if (strlen(cb_op_name[i]) == n && !strncmp(p, cb_op_name[i], n))
                op = i;
        for (int i = 0; i < o->nops; i++)
            if (o->ops[i] == op)
                op = CB_NOPS;
        if (op == CB_NOPS)
            return cb_fail("bad --ops '%s' (want a list of allreduce, reduce, bcast, each once)", s);
        o->ops[o->nops++] = op;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* --sizes 2,4,8: each in [2, P], each once (a size is a region name). */
static int parse_sizes(const char *s, int P, struct cb_opts *o)
{
    free(o->sizes);
    o->nsizes = 0;
    o->sizes = malloc((strlen(s) / 2 + 1) * sizeof *o->sizes);
    if (!o->sizes)
        return cb_fail("out of memory");
    for (const char *p = s;;) {
        char *end;
        errno = 0;
        long k = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ',') || k < 2 || k > P)
            return cb_fail("bad --sizes '%s' (want a list of communicator sizes in [2, %d])", s, P);
        for (int i = 0; i < o->nsizes; i++)
            if (o->sizes[i] == k)
                return cb_fail("bad --sizes '%s' (size %ld given twice)", s, k);
        o->sizes[o->nsizes++] = (int)k;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

static void usage(void)
{
    printf("usage: collbench [--ops allreduce,reduce,bcast] [--bytes B] [--sizes K,K,...]\n"
           "                 [--warmup W] [--reps R]\n"
           "002's collective benchmark: for each operation and communicator size k (default\n"
           "2..P), the first k ranks run W warm-up calls, then R times an MPI_Barrier on their\n"
           "communicator and the operation on B bytes (default 8) inside the user region\n"
           "<op>_k<k>. Prints per (op, k) the median, min and max over the repetitions of the\n"
           "slowest rank's time. Defaults: all three operations, --warmup 2 --reps 10.\n");
}

/* Returns 0, 1 for --help, or -1 with cb_err set. */
static int parse_opts(int argc, char **argv, int P, struct cb_opts *o)
{
    *o = (struct cb_opts){.ops = {CB_ALLREDUCE, CB_REDUCE, CB_BCAST}, .nops = CB_NOPS, .bytes = 8,
                          .warmup = 2, .reps = 10};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 1;
        if (i + 1 >= argc || strncmp(a, "--", 2) != 0)
            return cb_fail(strncmp(a, "--", 2) ? "unexpected argument '%s'" : "option %s needs a value", a);
        const char *v = argv[++i];
        int rc;
        if (!strcmp(a, "--ops"))
            rc = parse_ops(v, o);
        else if (!strcmp(a, "--bytes"))
            rc = parse_long(v, a, 0, CB_MAX_BYTES, &o->bytes);
        else if (!strcmp(a, "--sizes"))
            rc = parse_sizes(v, P, o);
        else if (!strcmp(a, "--warmup"))
            rc = parse_long(v, a, 0, CB_MAX_REPS, &o->warmup);
        else if (!strcmp(a, "--reps"))
            rc = parse_long(v, a, 1, CB_MAX_REPS, &o->reps);
        else
            rc = cb_fail("unknown option '%s'", a);
        if (rc)
            return rc;
    }
    if (!o->sizes) {
        if (P < 2)
            return cb_fail("needs at least 2 ranks (has %d)", P);
        o->sizes = malloc((size_t)(P - 1) * sizeof *o->sizes);
        if (!o->sizes)
            return cb_fail("out of memory");
        for (int k = 2; k <= P; k++)
            o->sizes[o->nsizes++] = k;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The data of repetition @p rep, so that every result is known in advance: every rank
 * contributes me + rep to every byte, the root (0) broadcasts rep. The reductions take MPI_BXOR,
 * not MPI_SUM: Open MPI 4.1.4's vectorised MPI_SUM on unsigned char saturates at 255 (seen at
 * 4 KiB) instead of wrapping. Returns the result every byte must hold. */
static unsigned char fill(int op, int me, int k, long rep, unsigned char *sbuf, unsigned char *rbuf, long bytes)
{
    unsigned char want = (unsigned char)rep;
    for (int r = 1; op != CB_BCAST && r < k; r++)
        want ^= (unsigned char)(r + rep);
    memset(sbuf, (unsigned char)(me + rep), (size_t)bytes);
    memset(rbuf, op == CB_BCAST && me == 0 ? want : (unsigned char)~want, (size_t)bytes);
    return want;
}

static void run_op(int op, MPI_Comm comm, unsigned char *sbuf, unsigned char *rbuf, long bytes)
{
    if (op == CB_ALLREDUCE)
        MPI_Allreduce(sbuf, rbuf, (int)bytes, MPI_UNSIGNED_CHAR, MPI_BXOR, comm);
    else if (op == CB_REDUCE)
        MPI_Reduce(sbuf, rbuf, (int)bytes, MPI_UNSIGNED_CHAR, MPI_BXOR, 0, comm);
    else
        MPI_Bcast(rbuf, (int)bytes, MPI_UNSIGNED_CHAR, 0, comm);
}

/* Wrong bytes in a result (a reduce's result is the root's only). */
static long check(int op, int me, unsigned char want, const unsigned char *rbuf, long bytes)
{
    long bad = 0;
    if (op == CB_REDUCE && me != 0)
        return 0;
    for (long i = 0; i < bytes; i++)
        bad += rbuf[i] != want;
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    struct cb_opts o;
    int rc = parse_opts(argc, argv, P, &o);
    if (rc != 0) { /* every rank parses the same options: all stop here together */
        if (rank == 0) {
            if (rc == 1)
                usage();
            else
                fprintf(stderr, "collbench: error: %s\n", cb_err);
        }
        free(o.sizes);
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }

    /* One communicator per size, made once: MPI_Comm_split is collective over MPI_COMM_WORLD. */
    MPI_Comm *comm = malloc((size_t)o.nsizes * sizeof *comm);
    double *t = malloc((size_t)o.reps * sizeof *t), *tmax = malloc((size_t)o.reps * sizeof *tmax);
    unsigned char *sbuf = malloc((size_t)o.bytes + 1), *rbuf = malloc((size_t)o.bytes + 1);
    if (!comm || !t || !tmax || !sbuf || !rbuf) {
        fprintf(stderr, "collbench: error: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int s = 0; s < o.nsizes; s++)
        MPI_Comm_split(MPI_COMM_WORLD, rank < o.sizes[s] ? 0 : MPI_UNDEFINED, rank, &comm[s]);
    if (rank == 0)
        printf("collbench: %d ranks, %ld B, %ld warm-up + %ld repetitions; time = the slowest rank's, in us\n"
               "op          k     median        min        max\n",
               P, o.bytes, o.warmup, o.reps);

    long bad = 0;
    for (int i = 0; i < o.nops; i++) {
        int op = o.ops[i];
        for (int s = 0; s < o.nsizes; s++) {
            int k = o.sizes[s];
            if (rank < k) {
                char region[32];
                snprintf(region, sizeof region, "%s_k%d", cb_op_name[op], k);
                for (long r = 0; r < o.warmup + o.reps; r++) {
                    int warm = r < o.warmup;
                    unsigned char want = fill(op, rank, k, r, sbuf, rbuf, o.bytes);
                    MPI_Barrier(comm[s]);
                    if (!warm)
                        rt_region_begin(region);
                    double t0 = MPI_Wtime();
                    run_op(op, comm[s], sbuf, rbuf, o.bytes);
                    double t1 = MPI_Wtime();
                    if (!warm) {
                        rt_region_end();
                        t[r - o.warmup] = t1 - t0;
                    }
                    bad += check(op, rank, want, rbuf, o.bytes);
                }
                MPI_Reduce(t, tmax, (int)o.reps, MPI_DOUBLE, MPI_MAX, 0, comm[s]);
                if (rank == 0) {
                    qsort(tmax, (size_t)o.reps, sizeof *tmax, cmp_double);
                    long m = o.reps / 2;
                    double med = o.reps % 2 ? tmax[m] : (tmax[m - 1] + tmax[m]) / 2;
                    printf("%-9s %3d %10.3f %10.3f %10.3f\n", cb_op_name[op], k, med * 1e6, tmax[0] * 1e6,
                           tmax[o.reps - 1] * 1e6);
                    fflush(stdout);
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }

    long bad_all = 0;
    MPI_Reduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (bad_all)
            printf("verification: FAILED (%ld wrong bytes)\n", bad_all);
        else
            printf("verification: passed\n");
    }
    for (int s = 0; s < o.nsizes; s++)
        if (comm[s] != MPI_COMM_NULL)
            MPI_Comm_free(&comm[s]);
    free(comm);
    free(t);
    free(tmax);
    free(sbuf);
    free(rbuf);
    free(o.sizes);
    MPI_Finalize();
    return bad_all ? 1 : 0;
}
