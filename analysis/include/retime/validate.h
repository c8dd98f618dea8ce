/* SPDX-License-Identifier: MIT */
/**
 * @file validate.h  A replay's timing against the measured one, over the measured window
 * (retime validate): how well the model reproduces the run the trace recorded, before it is
 * asked for another.
 *
 * Gathered while the replay runs (an observer, like region_stats.h) and summarised in four
 * tables, each row with its measured and predicted time and error = (predicted - measured) /
 * measured:
 *  rank      each rank's span from its window begin event to its window end event;
 *  region    each instance of each region that is not an MPI call (instance i: the i-th outermost
 *            Enter/Leave pair of that region on a rank, counted over the whole run), the mean
 *            over the ranks that ran it whole inside the window;
 *  callsite  the time in the MPI calls of each call site (and MPI function), summed;
 *  size      the time in the MPI calls that carry point-to-point messages, by the largest
 *            message's size class (decades: 0 B, 1-9 B, 10-99 B, ...), summed.
 * Every table has the median |error| of its rows and its rows in order of the time they lose,
 * |predicted - measured| (region rows: times their ranks), the worst first. A row whose measured
 * time is 0 has no error (counted, left out of the median and of the worst).
 */
#ifndef RETIME_VALIDATE_H
#define RETIME_VALIDATE_H

#include "retime/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rt_validate_table { RT_VAL_RANK, RT_VAL_REGION, RT_VAL_CALLSITE, RT_VAL_SIZE, RT_VAL_TABLES };

struct rt_validate_row {
    uint32_t id;          /**< rank; region; call site (RT_NONE: none recorded); size class (0: 0 B, c: [10^(c-1), 10^c)) */
    uint32_t mpi;         /**< callsite: the MPI function's region; else RT_NONE */
    uint64_t instance;    /**< region: the instance (0-based); else 0 */
    uint64_t count;       /**< region: ranks; callsite and size: calls; rank: 1 */
    double measured_ns, predicted_ns; /**< region: mean over its ranks; callsite and size: sums */
    int has_error;        /**< measured_ns > 0 */
    double error_pct;     /**< 100 (predicted - measured) / measured when has_error */
};

struct rt_validate_tab {
    const struct rt_validate_row *rows; /**< in order of id (region: id, instance); owned by the collector */
    size_t n;
    const size_t *worst;  /**< indices of the rows with an error, the most time lost first:
                               |predicted - measured| (region rows: times their ranks) */
    size_t nworst;
    double median_abs_error_pct; /**< over the rows with an error (0 when none) */
};

struct rt_validate_report {
    struct rt_validate_tab tab[RT_VAL_TABLES];
};

typedef struct rt_validate rt_validate;

/** Creates a collector for @p trace over window @p w (NULL or "all": the whole run); *out owned
 *  by the caller. RT_OK or RT_ENOMEM. */
int rt_validate_create(const rt_trace *trace, const rt_window *w, rt_validate **out, rt_error *err);
/** Frees it; NULL is a no-op. */
void rt_validate_destroy(rt_validate *v);
/** The observer to pass to rt_replay_run (struct rt_replay_observer.on_event). */
void rt_validate_on_event(void *v, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted);
/** Summarises after the replay; the tables are owned by @p v. RT_OK, or RT_ENOMEM (also when
 *  the observer ran out of memory during the replay). */
int rt_validate_report(rt_validate *v, struct rt_validate_report *out, rt_error *err);
/** The size class's bounds: [*lo, *hi] in bytes. */
void rt_validate_size_class(uint32_t cls, rt_bytes *lo, rt_bytes *hi);

#ifdef __cplusplus
}
#endif
#endif
