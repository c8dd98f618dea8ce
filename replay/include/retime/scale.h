/* SPDX-License-Identifier: MIT */
/**
 * @file scale.h  What if the messages were bigger: a factor on the trace's byte counts.
 *
 * A spec is one or more rules, separated by commas; each is a factor F (a number from 0 to 1e6)
 * and what it applies to:
 *
 *  F                 every message and collective
 *  F@comm:NAME       those on the communicator named NAME (as the trace defines it)
 *  F@FUNCTION        those called from the function FUNCTION (its call sites)
 *  F@FILE:LINE       those called at line LINE of FILE (FILE: the call site's path or its tail,
 *                    "shift.c" or "shift/shift.c")
 *  F@FILE            those called anywhere in FILE (FILE holds a '.' or a '/')
 *
 * A call's factor is the last call-site rule that matches its call site, else the last
 * communicator rule that matches its communicator, else the last plain factor, else 1. A
 * message's size is its send's count times the send call's factor, rounded to a whole byte; its
 * receive takes that size (a receive's own call site does not change it). A collective member's
 * counts are scaled by its own call's factor. Everything that depends on a size follows the new
 * one: the model's times, the eager or rendezvous protocol, the collective algorithms' choices.
 */
#ifndef RETIME_SCALE_H
#define RETIME_SCALE_H

#include "retime/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rt_scale rt_scale;

/** The largest factor a rule may give. */
#define RT_SCALE_MAX 1e6

/** Checks a spec's form without a trace (for option parsing): RT_OK or RT_EINVAL naming the rule. */
int rt_scale_check(const char *spec, rt_error *err);
/**
 * Resolves @p spec against @p trace's communicators and call sites. A rule that names nothing in
 * the trace is an error (RT_EINVAL) naming it and what the trace has.
 */
int rt_scale_open(const rt_trace *trace, const char *spec, rt_scale **out, rt_error *err);
void rt_scale_free(rt_scale *s);
/** The spec as given. */
const char *rt_scale_spec(const rt_scale *s);
/** Whether some rule goes by call site (the caller then has to find a call's site). */
int rt_scale_by_site(const rt_scale *s);
/** The factor of a call on communicator @p comm at call site @p callsite (RT_NONE: unknown). */
double rt_scale_factor(const rt_scale *s, uint32_t comm, uint32_t callsite);
/** @p m bytes times @p factor, rounded to the nearest byte; UINT64_MAX when above RT_MAX_BYTES. */
rt_bytes rt_scale_apply(double factor, rt_bytes m);

#ifdef __cplusplus
}
#endif

#endif
