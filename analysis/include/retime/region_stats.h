/* SPDX-License-Identifier: MIT */
/**
 * @file region_stats.h  Per-instance durations of a region (e.g. each `shift_iteration`),
 * measured and predicted, gathered while the replay runs (no second pass over the trace).
 *
 * Instance i of a region is the i-th outermost Enter/Leave pair of that region on each rank.
 */
#ifndef RETIME_REGION_STATS_H
#define RETIME_REGION_STATS_H

#include "retime/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rt_region_stats rt_region_stats;

/** One instance of the region, summarised over the ranks that ran it. */
struct rt_region_instance {
    uint64_t index;            /**< 0-based instance number */
    uint32_t ranks;            /**< ranks that completed this instance */
    double measured_mean_ns, measured_max_ns;
    double predicted_mean_ns, predicted_max_ns;
};

/** Creates a collector for region @p region of @p trace; *out owned by the caller. */
int rt_region_stats_create(const rt_trace *trace, uint32_t region, rt_region_stats **out, rt_error *err);
/** Frees it; NULL is a no-op. */
void rt_region_stats_destroy(rt_region_stats *s);
/** The observer to pass to rt_replay_run (or to call from one). */
void rt_region_stats_on_event(void *stats, uint32_t rank, uint64_t index, const struct rt_event *ev,
                              rt_time_ps predicted);
/** Summarises after the replay; the array is owned by @p s. */
int rt_region_stats_instances(rt_region_stats *s, const struct rt_region_instance **inst, uint64_t *n,
                              rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
