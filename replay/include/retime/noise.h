/* SPDX-License-Identifier: MIT */
/**
 * @file noise.h  Random delays for noise injection, reproducible from a seed.
 *
 * A distribution of non-negative durations is written as NAME:KEY=VALUE,... with units on
 * every time:
 *   exp:mean=2us                         exponential
 *   lognormal:median=1us,sigma=0.5       log-normal (sigma of the logarithm)
 *   pareto:scale=1us,shape=2.5           Pareto (shape > 1: a finite mean)
 *   uniform:min=0ns,max=2us              uniform
 *   normal:mean=1us,sd=0.5us             normal truncated at 0 (mean >= -3 sd)
 *   empirical:FILE[,size=BYTES]          a histogram as `pingpong --histogram` writes it
 *                                        (size_bytes,bin_lo_ns,bin_hi_ns,count): the excess
 *                                        of a sampled time over the smallest one, for the
 *                                        given size (default: the smallest size in the file)
 *
 * Randomness is counter based: every draw is a function of (seed, run, and a key that names
 * what is drawn for, such as a message's sender and event index), never of the order in
 * which the replay happens to process things. So the same seed gives bit-identical results
 * on any machine, and a distributed replay draws the same numbers as a serial one.
 */
#ifndef RETIME_NOISE_H
#define RETIME_NOISE_H

#include <stdint.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rt_dist rt_dist;

/**
 * The most one noise delay may be [ns]: 1000 s, as α at most. Every parameter that is a delay,
 * a distribution's mean, each bin of a histogram and each OS detour must be within it (a larger
 * one is refused), and every draw is cut to it: one event gets at most that much from one source,
 * which keeps sums of delays far from the replay's 64-bit ps clock (docs/noise.md, "Bounds").
 */
#define RT_MAX_DELAY_NS 1e12

/** Parses a distribution spec (see above); *out owned by the caller (rt_dist_free). A mean above
 *  RT_MAX_DELAY_NS (or none: a Pareto shape <= 1) is refused. */
int rt_dist_parse(const char *spec, rt_dist **out, rt_error *err);
void rt_dist_free(rt_dist *d);
/** The distribution's mean [ns] (analytic). */
double rt_dist_mean_ns(const rt_dist *d);
/** One sample [ns], from 0 to RT_MAX_DELAY_NS, drawn from the random stream @p state (advanced). */
double rt_dist_sample_ns(const rt_dist *d, uint64_t *state);

/* ------------------------------------------------------------------ OS noise */

/**
 * OS noise: CPU detours on every rank (timer ticks, daemons), in predicted time. While a
 * detour runs, the rank's program makes no progress: compute intervals and the model's CPU
 * overheads (o_s, o_r) are stretched by the detours that fall into them, and a rank whose
 * message or collective completes during a detour resumes when it ends. Waiting in MPI is not
 * CPU work, so a detour that falls wholly into a wait is absorbed. The network is not slowed.
 *
 * A noise is one or more sources (rt_os_noise_add once per source; their detours add up):
 *   periodic:period=1ms,duration=25us[,phase=random|aligned]
 *       a detour of `duration` every `period`; `phase=random` (default) starts each rank at its
 *       own random offset into the period, `aligned` starts them all at time 0
 *   poisson:interval=1ms,duration=DIST
 *       detours arriving as a Poisson process with mean `interval` between arrivals; DIST is a
 *       fixed time (25us) or a distribution spec as for network noise (exp:mean=25us); it must
 *       come last, since it may contain commas. A detour that arrives during another one waits
 *       for it (the CPU serves them one at a time).
 *   file:PATH[,coscheduled]
 *       the LogGOPSim noise-trace layout: one `start duration` pair per line, in ns; `#` comments.
 *       Each rank starts at its own random offset into the file (the same offset for all with
 *       `coscheduled`); the file repeats after its last detour ends.
 * Every source also takes `ranks=A` or `ranks=A-B` (last-but-DIST): only those ranks get it.
 * Offsets and durations are drawn from the random stream of (seed, run, rank, source), so a
 * rank's detours never depend on the other ranks or on the replay's order.
 */
typedef struct rt_os_noise rt_os_noise;

/** Adds the source @p spec to *@p n (a NULL *@p n is created). On error *@p n is unchanged. */
int rt_os_noise_add(rt_os_noise **n, const char *spec, rt_error *err);
void rt_os_noise_free(rt_os_noise *n);
/** Long-run fraction of rank @p rank's CPU time taken by detours (sum over its sources, capped at 1). */
double rt_os_noise_load(const rt_os_noise *n, uint32_t rank);
/** Checks that every source's ranks= names ranks of a trace of @p nranks ranks (a source for rank
 *  100 of an 8-rank trace injected nothing without a word): RT_OK or RT_EINVAL naming both. */
int rt_os_noise_check_ranks(const rt_os_noise *n, uint32_t nranks, rt_error *err);
/** Number of sources. */
unsigned rt_os_noise_sources(const rt_os_noise *n);
/** Detours per ns summed over ranks 0..@p nranks-1: the work the noise adds to a replay. */
double rt_os_noise_detour_rate(const rt_os_noise *n, uint32_t nranks);

/* ------------------------------------------------------------------ bursty traffic */

/**
 * Bursty background traffic as an interrupted Poisson process (004, section 2.1): a two-state
 * continuous-time Markov chain, "on" (a burst of other jobs' traffic) and "off". It leaves the
 * on state at rate sigma1 and the off state at rate sigma2 (mean burst 1/sigma1, mean quiet
 * period 1/sigma2; the long-run share of time on is sigma2 / (sigma1 + sigma2)). A message
 * injected while the chain is on has its wire latency multiplied by `latency` and the
 * network's bandwidth multiplied by `bandwidth` (so its per-byte time and port occupancy are
 * divided by it):
 *   mmpp:sigma1=0.2/us,sigma2=0.05/us,latency=3,bandwidth=0.5[,scope=global|rank]
 *   mmpp:on=5us,off=20us,...                     (mean durations instead of rates)
 * Rates are a number per time unit (0.2/us, 5/ms, 1e4/s). `scope=global` (default): one chain
 * for the whole network; `scope=rank`: one independent chain per sending rank's link.
 */
typedef struct rt_burst rt_burst;

int rt_burst_parse(const char *spec, rt_burst **out, rt_error *err);
void rt_burst_free(rt_burst *b);
/** Long-run share of time in the on state. */
double rt_burst_on_share(const rt_burst *b);
/** The changes of state its chains make per ns (one chain, or one per rank of @p ranks with
 *  scope=rank): work the replay does, and 8 bytes of memory each (NULL: 0). */
double rt_burst_switch_rate(const rt_burst *b, uint32_t ranks);

/* ------------------------------------------------------------------ random streams */

/** A random stream for draw @p key of run @p run under @p seed (splitmix64 of the three). */
uint64_t rt_rng_stream(uint64_t seed, uint64_t run, uint64_t key);
/** Next uniform number in (0, 1) from @p state. */
double rt_rng_uniform(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif
