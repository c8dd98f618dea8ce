/* SPDX-License-Identifier: MIT */
/**
 * @file noise.h  Random delays for noise injection, reproducible from a seed.
 *
 * A distribution of non-negative durations is written as NAME:KEY=VALUE,... with units on
 * every time:
 *   exp:mean=2us                         exponential
 *   lognormal:median=1us,sigma=0.5       log-normal (sigma of the logarithm)
 *   pareto:scale=1us,shape=2.5           Pareto (shape > 1 for a finite mean)
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

/** Parses a distribution spec (see above); *out owned by the caller (rt_dist_free). */
int rt_dist_parse(const char *spec, rt_dist **out, rt_error *err);
void rt_dist_free(rt_dist *d);
/** The distribution's mean [ns] (analytic; +inf for a Pareto shape <= 1). */
double rt_dist_mean_ns(const rt_dist *d);
/** One sample [ns], >= 0, drawn from the random stream @p state (advanced). */
double rt_dist_sample_ns(const rt_dist *d, uint64_t *state);

/** A random stream for draw @p key of run @p run under @p seed (splitmix64 of the three). */
uint64_t rt_rng_stream(uint64_t seed, uint64_t run, uint64_t key);
/** Next uniform number in (0, 1) from @p state. */
double rt_rng_uniform(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif
