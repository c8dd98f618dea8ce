/* SPDX-License-Identifier: MIT */
/*
 * retime under mpirun: each process reads its part of the trace's ranks (rt_trace_open_part)
 * and the engine swaps message and collective timings through struct rt_replay_part, which
 * here is MPI_Alltoall(v) and MPI_Allreduce on MPI_COMM_WORLD.
 */
#include "distributed.h"

#include "cli.h"
#include "montecarlo.h"

#include <stdlib.h>
#include <string.h>

#ifdef RT_HAVE_MPI
#include <mpi.h>
#include <stdio.h>

static int active;
static int nprocs = 1, me;
static uint32_t *first_rank;
static struct rt_replay_part part;
/* exchange buffers, kept from round to round */
static int *scount, *rcount, *sdisp, *rdisp;
static char *rbuf;
static size_t rcap;

/* Started by an MPI launcher (Open MPI, MPICH/Hydra, PMIx, Slurm's PMI)? */
static int launched(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

static int mpi_exchange(void *ud, void *const *out, const size_t *outlen, void **in, size_t *inlen)
{
    (void)ud;
    size_t total = 0;
    for (int p = 0; p < nprocs; p++) {
        if (outlen[p] > (size_t)INT32_MAX)
            return RT_ERANGE;
        scount[p] = (int)outlen[p];
    }
    if (MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        return RT_EIO;
    for (int p = 0; p < nprocs; p++) {
        sdisp[p] = p ? sdisp[p - 1] + scount[p - 1] : 0;
        rdisp[p] = (int)total;
        total += (size_t)rcount[p];
    }
    if (total > (size_t)INT32_MAX)
        return RT_ERANGE;
    if (total > rcap) {
        char *b = realloc(rbuf, total);
        if (!b)
            return RT_ENOMEM;
        rbuf = b;
        rcap = total;
    }
    /* the send side's buffers are separate per process: pack them once */
    size_t stotal = 0;
    for (int p = 0; p < nprocs; p++)
        stotal += outlen[p];
    char *sbuf = malloc(stotal ? stotal : 1);
    if (!sbuf)
        return RT_ENOMEM;
    for (int p = 0; p < nprocs; p++)
        if (outlen[p])
            memcpy(sbuf + sdisp[p], out[p], outlen[p]);
    int ok = MPI_Alltoallv(sbuf, scount, sdisp, MPI_BYTE, rbuf, rcount, rdisp, MPI_BYTE, MPI_COMM_WORLD);
    free(sbuf);
    if (ok != MPI_SUCCESS)
        return RT_EIO;
    for (int p = 0; p < nprocs; p++) {
        in[p] = rbuf + rdisp[p];
        inlen[p] = (size_t)rcount[p];
    }
    return RT_OK;
}

static int mpi_reduce(void *ud, int64_t *v, size_t n, int sum)
{
    (void)ud;
    while (n) { /* MPI counts are int */
        int k = n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
        if (MPI_Allreduce(MPI_IN_PLACE, v, k, MPI_INT64_T, sum ? MPI_SUM : MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
            return RT_EIO;
        v += k;
        n -= (size_t)k;
    }
    return RT_OK;
}

int dist_any(void *ud, int any)
{
    (void)ud;
    int64_t v = -(int64_t)(any != 0); /* the least: -1 when any process found it */
    if (!dist_active() || mpi_reduce(NULL, &v, 1, 0) != RT_OK)
        return any;
    return v < 0;
}

void dist_init(int *argc, char ***argv)
{
    if (!launched() || MPI_Init(argc, argv) != MPI_SUCCESS)
        return;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    active = 1; /* joined, even alone, so that it also leaves */
    if (nprocs > 1 && me != 0 && !freopen("/dev/null", "w", stdout))
        fclose(stdout);
}

void dist_finalize(int rc)
{
    if (!active)
        return;
    free(first_rank);
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
    free(rbuf);
    fflush(stdout);
    (void)rc;
    MPI_Finalize();
}

int dist_active(void) { return active && nprocs > 1; }
unsigned dist_rank(void) { return (unsigned)me; }
unsigned dist_size(void) { return active ? (unsigned)nprocs : 1; }

/* The lowest process whose @p rc failed, or -1: every process calls it. */
static int lowest_failing(int rc)
{
    int v = rc ? me : nprocs, lo = nprocs;
    if (MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return me;
    return lo < nprocs ? lo : -1;
}

/* The whole trace's time span, which no part can check alone: the earliest first event and the
 * latest last event over all processes, each with the lowest rank that has it, as one process
 * finds them. Process 0 reports a span too long. */
static int check_span(const rt_trace *t, rt_error *err)
{
    rt_time_ns lo, hi;
    uint32_t lo_row, hi_row;
    rt_trace_time_range(t, &lo, &lo_row, &hi, &hi_row);
    int64_t v[2] = {lo, lo_row == RT_NONE ? INT64_MIN : hi}, ends[2];
    int64_t rows[2], at[2];
    if (MPI_Allreduce(&v[0], &ends[0], 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(&v[1], &ends[1], 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rt_error_set(err, RT_EIO, "%s: MPI_Allreduce failed", rt_trace_path(t));
    rows[0] = lo_row != RT_NONE && lo == ends[0] ? (int64_t)lo_row : INT64_MAX;
    rows[1] = hi_row != RT_NONE && hi == ends[1] ? (int64_t)hi_row : INT64_MAX;
    if (MPI_Allreduce(rows, at, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rt_error_set(err, RT_EIO, "%s: MPI_Allreduce failed", rt_trace_path(t));
    if (at[0] == INT64_MAX) /* no events anywhere: reported before */
        return RT_OK;
    int rc = rt_trace_check_span(t, ends[0], (uint32_t)at[0], ends[1], (uint32_t)at[1], err);
    if (rc && me != 0)
        rc = rt_error_set(err, RT_EREMOTE, "%s: process 0 failed", rt_trace_path(t));
    return rc;
}

int dist_trace_open(const char *path, int whole, const char *whole_why, rt_trace **t,
                    const struct rt_replay_part **partp, rt_error *err)
{
    *partp = NULL;
    if (!dist_active())
        return cli_trace_open_budget(path, whole_why, t, err);
    int rc = whole ? cli_trace_open(path, t, err)
                   : rt_trace_open_part_flags(path, cli_trace_flags(), (uint32_t)nprocs, (uint32_t)me, t, err);
    if (!rc && !whole) {
        first_rank = calloc((size_t)nprocs + 1, sizeof *first_rank);
        scount = calloc((size_t)nprocs, sizeof *scount);
        rcount = calloc((size_t)nprocs, sizeof *rcount);
        sdisp = calloc((size_t)nprocs, sizeof *sdisp);
        rdisp = calloc((size_t)nprocs, sizeof *rdisp);
        if (!first_rank || !scount || !rcount || !sdisp || !rdisp)
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    int bad = lowest_failing(rc);
    if (bad >= 0) {
        if (bad != me)
            rc = rt_error_set(err, RT_EREMOTE, "%s: process %d of the distributed replay failed", path, bad);
        rt_trace_close(*t);
        *t = NULL;
        return rc;
    }
    if (whole)
        return RT_OK;
    uint64_t mine = rt_trace_stats(*t)->events, all = 0; /* a part may have none, the trace not */
    if (MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS || all == 0) {
        rc = me == 0 ? rt_error_set(err, RT_ECORRUPT, "%s: the trace holds no events", rt_trace_path(*t))
                     : rt_error_set(err, RT_EREMOTE, "%s: process 0 failed", path);
        rt_trace_close(*t);
        *t = NULL;
        return rc;
    }
    if ((rc = check_span(*t, err))) {
        rt_trace_close(*t);
        *t = NULL;
        return rc;
    }
    /* what --allow-missing-ranks dropped, each part counting on its own ranks: the whole trace's */
    const struct rt_trace_stats *st = rt_trace_stats(*t);
    uint64_t miss[4] = {st->missing_sends, st->missing_recvs, st->missing_colls, st->missing_roots}, sum[4];
    if (MPI_Allreduce(miss, sum, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rt_error_set(err, RT_EIO, "%s: MPI_Allreduce failed", path);
    rt_trace_set_missing_totals(*t, sum);
    uint32_t lo, hi;
    rt_trace_part_rows(*t, &lo, &hi);
    if (MPI_Allgather(&lo, 1, MPI_UINT32_T, first_rank, 1, MPI_UINT32_T, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rt_error_set(err, RT_EIO, "%s: MPI_Allgather failed", path);
    first_rank[nprocs] = rt_trace_ranks(*t);
    part = (struct rt_replay_part){(uint32_t)nprocs, (uint32_t)me, first_rank, NULL, mpi_exchange, mpi_reduce, 0};
    *partp = &part;
    return RT_OK;
}

int dist_mc_merge(struct mc_result *r, int rc, rt_error *err)
{
    int bad = lowest_failing(rc);
    if (bad >= 0)
        return bad == me ? rc : rt_error_set(err, RT_EREMOTE, "process %d failed", bad);
    enum { F = 6 }; /* the figures of a run; doubles travel as their bits (only one process is not 0) */
    int64_t *v = calloc(r->runs * F, sizeof *v);
    if (!v)
        rc = rt_error_set(err, RT_ENOMEM, "out of memory for %llu runs", (unsigned long long)r->runs);
    for (uint64_t i = 0; v && i < r->runs; i++) {
        const struct mc_run *x = &r->run[i];
        v[F * i] = x->predicted_ps;
        v[F * i + 1] = x->net_noise_ps;
        v[F * i + 2] = x->os_noise_ps;
        v[F * i + 3] = x->burst_ps;
        memcpy(&v[F * i + 4], &x->region_mean_ns, sizeof(double));
        memcpy(&v[F * i + 5], &x->region_max_ns, sizeof(double));
    }
    if (v && mpi_reduce(NULL, v, r->runs * F, 1))
        rc = rt_error_set(err, RT_EIO, "MPI_Allreduce failed");
    for (uint64_t i = 0; v && !rc && i < r->runs; i++) {
        struct mc_run *x = &r->run[i];
        x->predicted_ps = v[F * i];
        x->net_noise_ps = v[F * i + 1];
        x->os_noise_ps = v[F * i + 2];
        x->burst_ps = v[F * i + 3];
        memcpy(&x->region_mean_ns, &v[F * i + 4], sizeof(double));
        memcpy(&x->region_max_ns, &v[F * i + 5], sizeof(double));
    }
    free(v);
    bad = lowest_failing(rc);
    return bad >= 0 && bad != me ? rt_error_set(err, RT_EREMOTE, "process %d failed", bad) : rc;
}

#else /* a build without MPI: always one process */

void dist_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}
void dist_finalize(int rc) { (void)rc; }
int dist_any(void *ud, int any)
{
    (void)ud;
    return any;
}
int dist_active(void) { return 0; }
unsigned dist_rank(void) { return 0; }
unsigned dist_size(void) { return 1; }
int dist_mc_merge(struct mc_result *r, int rc, rt_error *err)
{
    (void)r;
    (void)err;
    return rc;
}
int dist_trace_open(const char *path, int whole, const char *whole_why, rt_trace **t,
                    const struct rt_replay_part **part, rt_error *err)
{
    (void)whole;
    *part = NULL;
    return cli_trace_open_budget(path, whole_why, t, err);
}

#endif

int dist_refuse(const char *what)
{
    if (!dist_active())
        return 0;
    return cli_die("%s does not run distributed: run it as one process, without mpirun", what);
}
