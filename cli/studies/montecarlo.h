/* SPDX-License-Identifier: MIT */
/*
 * Monte Carlo replays: N noisy runs of one trace plus the noise-free baseline, spread over
 * threads, and the statistics of their figures. Shared by `retime replay --runs` and the
 * benchmark; it prints nothing.
 */
#ifndef RETIME_MONTECARLO_H
#define RETIME_MONTECARLO_H

#include <stddef.h>
#include <stdint.h>

#include "retime/replay.h"

#define MC_MAX_RUNS 10000000u
#define MC_MAX_JOBS 1024

/* The figures kept from one run: O(1) per run, whatever the trace. */
struct mc_run {
    rt_time_ps predicted_ps;
    rt_time_ps net_noise_ps, os_noise_ps, burst_ps; /* injected, summed over messages / ranks */
    double region_mean_ns; /* mean over instances of the mean over ranks (0 without a region) */
    double region_max_ns;  /* largest instance, max over ranks (0 without a region) */
};

struct mc_config {
    const rt_trace *trace;
    struct rt_replay_options opts; /* the noisy options; .run is set per run, .seed is kept */
    /* The network of the noise-free replay when opts.network has background traffic (the same
     * network without it: retime replay --perturb); NULL: opts.network. */
    const rt_network *calm;
    uint64_t runs;                 /* 1 .. MC_MAX_RUNS */
    long jobs;                     /* threads; 0 = the online CPUs */
    uint32_t region;               /* region id for per-run region figures, RT_NONE for none */
    /* Optional: called by the thread that finished a replay (runs and the noise-free one), from
     * any thread, so it must be thread-safe; for progress displays. */
    void (*on_done)(void *ud);
    void *ud;
    /* Runs spread over processes (retime replay --split runs under mpirun): this process replays
     * run r only if r % nprocs == proc, the others' slots stay zero (0 or 1 process: all runs);
     * dist_mc_merge then gives every process every run. The noise-free replay runs everywhere. */
    uint32_t nprocs, proc;
};

struct mc_result {
    uint64_t runs;
    struct mc_run baseline;  /* the noise-free replay */
    struct mc_run *run;      /* [runs], indexed by run number, owned (mc_result_free) */
    uint64_t region_instances; /* instances of the region in the baseline */
    uint32_t ranks;
    uint64_t events, messages, collectives;
    rt_time_ns measured_ns;
    long jobs;               /* threads used (informational: no figure depends on it) */
};

/*
 * Replays cfg->trace cfg->runs times (run r with opts.run = r) and once without noise.
 * Runs are handed to threads in increasing order; each one's figures go to its own slot, so
 * the result does not depend on the number of threads. On failure @p err names the failing
 * run with the lowest number ("run 3 of seed 7: ..."), or the noise-free replay.
 * @return RT_OK or the replay's error code; *out is filled only on success.
 */
int mc_run(const struct mc_config *cfg, struct mc_result *out, rt_error *err);
/* Frees what mc_run allocated; a zeroed result is a no-op. */
void mc_result_free(struct mc_result *r);

/* Distribution of n >= 1 values. Quantiles interpolate linearly between order statistics
 * (Hyndman & Fan type 7, NumPy's default): q(p) = x[h] + (h - floor h)(x[h+1] - x[h]) with
 * h = (n-1)p on the sorted values x[0..n-1]; median = q(0.5), p95 = q(0.95). The mean is
 * summed in run order as min + sum(x - min)/n, so n equal values give exactly that value; sd
 * is the sample standard deviation (n-1 in the denominator, 0 for n = 1). */
struct mc_stats {
    double min, median, mean, p95, max, sd;
};

/* Which figure of a run to summarise. */
enum mc_field {
    MC_PREDICTED_NS,
    MC_SLOWDOWN, /* predicted / noise-free predicted */
    MC_REGION_MEAN_NS,
    MC_REGION_MAX_NS,
    MC_NET_NS,
    MC_OS_NS,
    MC_BURST_NS,
    MC_FIELDS
};

/* Value of @p field for run @p run (or for the baseline when run is NULL). */
double mc_value(const struct mc_result *r, const struct mc_run *run, enum mc_field field);
/* Statistics of @p field over all runs; @p scratch holds r->runs doubles. */
void mc_stats_of(const struct mc_result *r, enum mc_field field, double *scratch, struct mc_stats *s);
/* Statistics of @p n values in @p x (reordered: sorted on return). */
void mc_stats(double *x, size_t n, struct mc_stats *s);

/* retime replay --runs N (cmd_montecarlo.c): runs the replays of @p cfg and prints the report
 * in @p tr->fmt. Returns RT_OK, or an error code with @p err filled (nothing printed). */
struct trace_cli;
struct model_cli;
int cmd_montecarlo(const struct mc_config *cfg, const struct trace_cli *tr, const struct model_cli *m,
                   rt_error *err);

#endif
