/* SPDX-License-Identifier: MIT */
/**
 * @file clock_fix.h  Restores causality in a trace recorded with unsynchronised clocks.
 *
 * The controlled logical clock (CLC) of Becker, Rabenseifner, Wolf and Linford, "Scalable
 * timestamp synchronization for event traces of message-passing applications", Parallel
 * Computing 35(12), 2009, as Scalasca applies it: a forward pass in happened-before order moves
 * every receive (and collective end) that lies before its send (or the collective's begins) plus
 * a minimum latency l_min forward, and lets later events of that rank follow with their local
 * intervals; a backward amortisation then spreads each such jump over the events before it.
 * docs/clock-fix.md describes the method, its parameters and its limits.
 */
#ifndef RETIME_CLOCK_FIX_H
#define RETIME_CLOCK_FIX_H

#include <stdint.h>

#include "retime/error.h"
#include "retime/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default minimum latency l_min [ns]: 0, so that "causality" means exactly what the
 *  depgraph's measured timing counts as a violation (a receive before its send). */
#define RT_CLOCK_FIX_DEFAULT_LMIN_NS 0
/** Default controller γ: Scalasca's first pass (the shift decays by 1e-5 of each interval). */
#define RT_CLOCK_FIX_DEFAULT_GAMMA 0.99999
/** The largest l_min accepted [ns] (1 s: a latency beyond that is a unit mistake). */
#define RT_CLOCK_FIX_MAX_LMIN_NS INT64_C(1000000000)
/** eager_limit_bytes for "only synchronous sends are rendezvous" (the default). */
#define RT_CLOCK_FIX_SYNC_ONLY UINT64_MAX

/** Parameters of the correction. */
struct rt_clock_fix_options {
    rt_time_ns min_latency_ns; /**< l_min: a receive ends at least this long after its send [ns], 0..1 s */
    double gamma;              /**< controller, in (0, 1]: after a jump the next event lies at least
                                    γ·(its original interval) after the previous one; 1 keeps the
                                    intervals exactly (the shift never decays) */
    rt_bytes eager_limit_bytes; /**< sends above this size (and synchronous ones, unless buffered)
                                     are rendezvous: they complete only after their receive is
                                     posted, as the replay assumes with the same eager limit;
                                     RT_CLOCK_FIX_SYNC_ONLY: only synchronous sends */
};

/** What the correction did. Times in ns. */
struct rt_clock_fix_report {
    uint64_t constraints;       /**< events with a remote cause: receive and rendezvous send completions,
                                     collective ends */
    uint64_t violations_before; /**< of them, those earlier than cause + l_min in the trace as read */
    uint64_t violations_after;  /**< the same count after the correction: 0 on success */
    rt_time_ns worst_ns;        /**< the largest cause + l_min - event before the correction (0 if none) */
    uint32_t worst_rank;        /**< the event of the worst violation (RT_NONE if none) */
    uint64_t worst_index;
    uint64_t events_moved;      /**< events whose time changed */
    rt_time_ns max_correction_ns;  /**< the largest change of one event's time (changes are >= 0) */
    uint64_t total_correction_ns;  /**< the sum of all changes (saturates at UINT64_MAX) */
};

/** Fills @p o with the defaults (l_min RT_CLOCK_FIX_DEFAULT_LMIN_NS, γ RT_CLOCK_FIX_DEFAULT_GAMMA,
 *  eager limit RT_CLOCK_FIX_SYNC_ONLY). */
void rt_clock_fix_options_init(struct rt_clock_fix_options *o);

/**
 * Corrects the measured timestamps of @p t in place so that every receive completion
 * (RT_EV_RECV, RT_EV_IRECV) lies at least l_min after its matching send (RT_EV_SEND, RT_EV_ISEND;
 * the n-th send of a (communicator, source, destination, tag) channel matches its n-th receive),
 * the completion of a rendezvous send (the Leave of its MPI call, or its RT_EV_ISEND_COMPLETE) at
 * least l_min after its receive was posted (the Enter of the receive's MPI call), and every
 * collective end at least l_min after the begins it depends on (N-to-N: all others'; 1-to-N: a
 * non-root's after the root's; N-to-1: the root's after all others'; scan: after those of the
 * lower communicator ranks). Events keep their order on each rank, times only move
 * forward, and a trace without violations is left bit-identical. O(events) time; memory for
 * the channels and the messages and collectives in flight.
 * @param t    the trace, as rt_trace_open returned it (not a part of one: RT_EINVAL)
 * @param o    the parameters (NULL: the defaults)
 * @param rep  optional: receives what was done
 * @param err  optional error record
 * @return RT_OK; RT_EINVAL for bad options; RT_EUNMATCHED for a send or receive without a
 *         partner; RT_EMISMATCH for collectives that disagree (operation, root) or a rank outside
 *         the communicator; RT_EDEADLOCK when the events cannot be ordered (a receive whose send
 *         comes after it through other messages); RT_ECORRUPT for references the reader would
 *         not produce; RT_ERANGE when the corrected times would exceed RT_MAX_SPAN_NS; RT_ENOMEM.
 *         After an error other than RT_EINVAL the trace's times may be partly corrected: close it.
 */
int rt_trace_fix_clocks(rt_trace *t, const struct rt_clock_fix_options *o, struct rt_clock_fix_report *rep,
                        rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
