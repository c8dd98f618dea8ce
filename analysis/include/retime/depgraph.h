/* SPDX-License-Identifier: MIT */
/**
 * @file depgraph.h  The dependency graph of one timing of a trace, and what it tells: the
 * critical path, wait states, and how the deviations between two timings were absorbed or
 * accumulated.
 *
 * Nodes are the trace's events. Every event v has a local edge from the previous event of its
 * rank (the first event: from a virtual run start at time 0) and at most one remote edge (a
 * message's origin, or the collective member whose entry bound v). Event times satisfy
 *     t(v) = max(local_ready(v), remote_ready(v)),
 * an edge's weight is its ready time minus its source's time. The collector is fed by the
 * replay engine's rt_replay_observer.on_dep (O(1) per event, no second pass over the trace),
 * or built from the trace's measured timestamps with the edge structure of a replay
 * (rt_depgraph_measured). Memory: 32 bytes per event (struct rt__dep_rec in depgraph_rec.h), 8
 * for a measured timing (its records are worked out from the trace and its structure graph), plus
 * one bit per event while a critical path is marked.
 *
 * Binding edge and tie rule: the remote edge binds when remote_ready > local_ready, otherwise
 * (ties included) the local edge binds. The critical path is walked back along binding edges
 * from the event with the largest time (ties: the lowest rank, and on it the last such event).
 * Every binding edge is tight, so the path's length is exactly the run's end time, and time
 * spent waiting is never on it (a wait is the gap between a non-binding local edge and the
 * event, which the path does not take): its "waiting" share is zero by construction.
 */
#ifndef RETIME_DEPGRAPH_H
#define RETIME_DEPGRAPH_H

#include "retime/replay.h"
#include "retime/window.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rt_depgraph rt_depgraph;

/** What an edge's time is spent on. */
enum rt_activity {
    RT_ACT_COMPUTE = 0, /**< local edge outside MPI calls that move data or synchronise */
    RT_ACT_OVERHEAD,    /**< local edge inside such a call (CPU overhead, eager send hold, o_r) */
    RT_ACT_TRANSFER,    /**< remote edge of a point-to-point message */
    RT_ACT_COLLECTIVE,  /**< remote edge of a collective */
    RT_ACT_WAITING,     /**< waiting: never on the critical path (always 0 there) */
    RT_ACT_COUNT
};

/** Wait states (an event whose remote edge binds waits remote_ready - local_ready). */
enum rt_wait_kind {
    RT_WAIT_LATE_SENDER = 0, /**< a receive completion inside MPI_Recv, MPI_Sendrecv, ... */
    RT_WAIT_LATE_RECEIVER,   /**< a rendezvous send completion waits for its receiver */
    RT_WAIT_COLLECTIVE,      /**< a collective other than a barrier waits for a member */
    RT_WAIT_BARRIER,         /**< MPI_Barrier waits for the last member */
    RT_WAIT_WAITALL,         /**< a completion inside MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome */
    RT_WAIT_COUNT
};

/** How shares and contributions are grouped. */
enum rt_group {
    RT_GROUP_RANK = 0, /**< id = rank */
    RT_GROUP_CALLSITE, /**< id = call-site id (RT_NONE: none recorded); region = the MPI function
                            (RT_NONE: outside MPI calls) */
    RT_GROUP_REGION,   /**< region = innermost non-MPI region (RT_NONE: none), instance = its
                            outermost instance number on that rank (as rt_region_stats counts) */
    RT_GROUP_ACTIVITY, /**< id = enum rt_activity */
    RT_GROUP_SIZE,     /**< id = message size bucket b: 0 for 0 B, else [2^(b-1), 2^b) B;
                            RT_NONE for edges that carry no message */
    RT_GROUP_CAUSE,    /**< wait states only: id = the rank whose event the wait ended on */
    RT_GROUP_BLAME,    /**< wait states only: id = a rank on the critical path of the wait
                            (whose events made the waited-for event late during the wait) */
    RT_GROUP_COUNT
};

/** One row of a breakdown. */
struct rt_dep_share {
    uint8_t group;     /**< enum rt_group */
    uint8_t wait;      /**< wait states: enum rt_wait_kind; otherwise 0 */
    uint32_t id;       /**< see enum rt_group */
    uint32_t region;   /**< see enum rt_group (RT_NONE where unused) */
    uint64_t instance; /**< RT_GROUP_REGION: instance number; otherwise 0 */
    rt_time_ps value;  /**< critical path: time on it; diff: accumulated; waits: waiting time */
    rt_time_ps value2; /**< critical path: 0; diff: absorbed; waits: number of wait states */
};

/** A maximal run of the critical path on one rank. */
struct rt_cp_segment {
    uint32_t rank;
    uint64_t first, last;      /**< event indices on that rank */
    rt_time_ps begin_ps;       /**< where the path arrives (the previous segment's end, or 0) */
    rt_time_ps end_ps;         /**< t(last) */
};

struct rt_critical_path {
    rt_time_ps end_ps;                   /**< the run's end: the largest event time */
    rt_time_ps length_ps;                /**< Σ binding-edge weights along the path (== end_ps) */
    uint32_t end_rank;
    uint64_t end_index;
    uint64_t events;                     /**< events on the path */
    const struct rt_cp_segment *seg;     /**< in time order */
    uint64_t nseg;
    rt_time_ps activity_ps[RT_ACT_COUNT];
    const struct rt_dep_share *share;    /**< groups RANK, CALLSITE, REGION, SIZE; each sorted by value, largest first */
    uint64_t nshare;
};

struct rt_wait_states {
    rt_time_ps total_ps[RT_WAIT_COUNT];
    uint64_t count[RT_WAIT_COUNT];
    const struct rt_dep_share *share;    /**< groups RANK (waiting rank), CALLSITE, CAUSE, BLAME per kind,
                                              sorted by kind, group, then value (largest first) */
    uint64_t nshare;
};

/** The comparison of two timings A and B of the same trace. */
struct rt_depgraph_diff {
    rt_time_ps end_a, end_b;
    rt_time_ps accumulated; /**< Σ δ over B's critical path */
    rt_time_ps slack;       /**< len_A(A's critical path) - len_A(B's critical path), >= 0 */
    rt_time_ps injected;    /**< Σ δ over all edges */
    rt_time_ps injected_negative; /**< Σ min(δ, 0): the edges where B is faster than A (a model slower than
                                       the measured machine, or work the trace drops). When they outweigh B's
                                       delays, injected and absorbed are negative */
    rt_time_ps absorbed;    /**< injected - accumulated */
    rt_time_ps residual;    /**< (end_b - end_a) - (accumulated - slack); 0 when both graphs hold */
    uint64_t source_changed; /**< remote edges whose source differs between A and B */
    uint64_t edges;          /**< edges compared */
    struct rt_dep_share *share; /**< groups RANK, CALLSITE, REGION, SIZE: value accumulated, value2 absorbed;
                                     per group sorted by |accumulated| + |absorbed|, largest first */
    uint64_t nshare;
};

/** What building a measured timing found. */
struct rt_measured_info {
    uint64_t violations;    /**< remote edges with t(v) < t(source): clocks out of sync */
    rt_time_ps worst_ps;    /**< the largest t(source) - t(v) among them */
    uint32_t worst_rank;    /**< the event v of the worst violation */
    uint64_t worst_index;
};

/**
 * Creates an empty collector for one timing of @p trace (which must outlive it).
 * @return RT_OK or RT_ENOMEM (the size is checked before allocating: 32 B per event).
 */
int rt_depgraph_create(const rt_trace *trace, rt_depgraph **out, rt_error *err);
/**
 * Creates the collector of one process of a distributed analysis (docs/distributed.md): it
 * holds the records of the ranks [part->first_rank[me], part->first_rank[me + 1]) only, and
 * every later call on it except rt_depgraph_event, rt_depgraph_observer, rt_depgraph_on_dep and
 * rt_depgraph_destroy is collective: all processes make it, in the same order, with their own
 * graphs of the same trace (walks that cross processes hop between them through @p part). The
 * results are those of one process holding every rank, bit-identical: the scalars (times,
 * counts, sums) on every process, the arrays (segments, shares) on process 0 only (nseg = 0,
 * nshare = 0 elsewhere). An error is reported by the lowest process that finds one, with the
 * words of the serial analysis; the others return RT_EREMOTE. @p part must outlive the graph;
 * part = NULL is rt_depgraph_create.
 */
int rt_depgraph_create_part(const rt_trace *trace, const struct rt_replay_part *part, rt_depgraph **out,
                            rt_error *err);
/** Frees the collector and everything it returned; NULL is a no-op. */
void rt_depgraph_destroy(rt_depgraph *g);
/** Fills @p obs so that rt_replay_run feeds @p g (on_dep; on_event stays NULL). */
void rt_depgraph_observer(rt_depgraph *g, struct rt_replay_observer *obs);
/** The on_dep callback itself (@p ud is the rt_depgraph), to call from a combined observer. */
void rt_depgraph_on_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted,
                        const struct rt_dep *dep);

/**
 * A replay that stopped where the run stopped (rt_replay_options.cut): rank r's events end at
 * @p cut_event[r] (UINT64_MAX: all of them), the ones from there on have no records and are not
 * part of the graph. Call before rt_depgraph_check.
 */
void rt_depgraph_cut(rt_depgraph *g, const uint64_t *cut_event);

/**
 * Checks the collected graph against the observer's contract: one record per event in program
 * order, t = max(local_ready, remote_ready), a remote source that exists with t(u) <= remote_ready,
 * local_ready >= t(previous event).
 * @return RT_OK, or RT_ECORRUPT naming the first offending event and its values.
 */
int rt_depgraph_check(const rt_depgraph *g, rt_error *err);

/**
 * A timing built from the trace's measured timestamps (ns since the earliest event, as ps) with
 * the remote sources of @p structure (a checked replay's graph of the same trace). Weights: an
 * event v with a remote source u and previous event p gets c = t(v) - max(t(u), t(p)) on both
 * edges (local_ready = t(p) + c, remote_ready = t(u) + c), so the later of u and p binds and a
 * receive waits t(u) - t(p) when its sender was late; an event without one gets its local gap.
 * A remote edge with t(v) < t(u) (clock skew) is a causality violation: counted in @p info, and
 * the local edge binds. The result keeps 8 bytes per event (its remote sources' times) and reads
 * the rest from @p trace and @p structure when asked: both must outlive it, and @p structure
 * must get no more records. RT_EINVAL when @p structure is itself a measured timing.
 */
int rt_depgraph_measured(const rt_trace *trace, const rt_depgraph *structure, rt_depgraph **out,
                         struct rt_measured_info *info, rt_error *err);

/** One event of a collected timing, as rt_depgraph_event reads it back. */
struct rt_dep_event {
    rt_time_ps t;            /**< the event's time */
    rt_time_ps local_ready;  /**< ready time through the local edge */
    rt_time_ps remote_ready; /**< through the remote edge (INT64_MIN when there is none) */
    uint64_t src_index;      /**< the remote source's index on its rank */
    uint32_t src_rank;       /**< RT_NONE when there is no remote edge */
    uint8_t kind;            /**< enum rt_dep_kind */
    uint8_t remote_binds;    /**< the remote edge binds (remote_ready > local_ready) */
    uint8_t on_path;         /**< on the critical path (always 0 before rt_depgraph_critical_path) */
};

/**
 * Reads back event @p index of @p rank (O(1)), for writers of the timing (OTF2, timelines).
 * @return RT_OK, or RT_ERANGE for an event the graph does not have.
 */
int rt_depgraph_event(const rt_depgraph *g, uint32_t rank, uint64_t index, struct rt_dep_event *out, rt_error *err);

/**
 * Sends @p len bytes of @p rows to process 0 of @p g's distributed analysis (rt_depgraph_create_part),
 * which gets every process's rows in process order in *@p all (malloc'd, *@p alllen bytes; the
 * others: NULL, 0); one process gets a copy of its own. Every process calls it; @p rc: this
 * process failed (all then fail alike). RT_OK or an RT_E* code (RT_EREMOTE: another failed).
 */
int rt_depgraph_gather(const rt_depgraph *g, const void *rows, size_t len, void **all, size_t *alllen, int rc,
                       rt_error *err);

/** The largest event time (the run's end) [ps]; 0 for a graph without events or on error. */
rt_time_ps rt_depgraph_end(const rt_depgraph *g);

/** The critical path and its breakdown; owned by @p g. */
int rt_depgraph_critical_path(rt_depgraph *g, const struct rt_critical_path **cp, rt_error *err);
/**
 * Makes the critical path cover window @p w (retime/window.h; NULL or "all": the whole run): it
 * ends at the window's end event with the latest time, walks back until the window's begin (the
 * earliest begin event's time on this graph's clock) and leaves out what lies before it; its
 * length and breakdown then add up to the window's span. Call before rt_depgraph_critical_path
 * or rt_depgraph_analyze; @p w must outlive @p g.
 */
void rt_depgraph_set_window(rt_depgraph *g, const rt_window *w);
/** Makes the "size" groups of @p g's results take the sizes of a replay under @p s (retime/scale.h;
 *  NULL: as traced): each call's counts times its call's factor. @p s must outlive @p g. */
void rt_depgraph_set_scale(rt_depgraph *g, const rt_scale *s);
/** The wait states; owned by @p g. */
int rt_depgraph_wait_states(rt_depgraph *g, const struct rt_wait_states **ws, rt_error *err);

/**
 * Compares timings @p a and @p b of the same trace: per edge δ = w_B - w_A. For a remote edge
 * that only one of them has (its source differs), the other's weight is its tight weight
 * t(v) - t(u), a valid one since u precedes v in any timing.
 * @param out  receives the comparison, owned by the caller (rt_depgraph_diff_destroy)
 */
int rt_depgraph_compare(rt_depgraph *a, rt_depgraph *b, struct rt_depgraph_diff **out, rt_error *err);
/**
 * What `retime analyze` asks for, in one walk over the events instead of one per result: the
 * critical paths of @p a and @p b (rt_depgraph_critical_path), the wait states of @p b, or of
 * @p a when @p b is NULL (rt_depgraph_wait_states), and with @p diff the comparison of @p a and
 * @p b (rt_depgraph_compare). The results are those of the single calls, which return them
 * afterwards without computing them again.
 * @param b     NULL: @p a alone
 * @param diff  NULL, or (with @p b) receives the comparison, owned by the caller
 */
int rt_depgraph_analyze(rt_depgraph *a, rt_depgraph *b, struct rt_depgraph_diff **diff, rt_error *err);
/** Frees a comparison; NULL is a no-op. */
void rt_depgraph_diff_destroy(struct rt_depgraph_diff *d);

/** "compute", "cpu_overhead", "transfer", "collective", "waiting". */
const char *rt_activity_name(int activity);
/** "late_sender", "late_receiver", "collective", "barrier", "waitall". */
const char *rt_wait_kind_name(int kind);
/** "rank", "callsite", "region", "activity", "size", "cause", "blame". */
const char *rt_group_name(int group);

#ifdef __cplusplus
}
#endif
#endif
