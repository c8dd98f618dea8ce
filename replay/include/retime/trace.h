/* SPDX-License-Identifier: MIT */
/**
 * @file trace.h  The in-memory trace: what retime keeps of an OTF2 archive.
 *
 * One row ("rank") per OTF2 location that carries events, numbered 0..ranks-1 in order of
 * location id. Messages refer to peers by that row number (communicator ranks are translated
 * when the trace is read), so the replay never needs the communicator tables in its hot path.
 */
#ifndef RETIME_TRACE_H
#define RETIME_TRACE_H

#include <stdint.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Marks an absent reference (no call site, no root, ...). */
#define RT_NONE UINT32_MAX

/** The longest span of a trace's timestamps (2^51 ns, 26 days): the replay counts in ps in 64 bits. */
#define RT_MAX_SPAN_NS (INT64_C(1) << 51)
/** Every event time t (ns since the global start) has |t| < RT_MAX_TIME_NS (2^52 ns, 52 days). */
#define RT_MAX_TIME_NS (INT64_C(1) << 52)
/** The most communicators (defined ones plus per-process instances of self ones) a trace may hold. */
#define RT_MAX_COMMS (UINT32_C(1) << 21)
/** struct rt_event's comm of an event without a communicator (all 22 bits set). */
#define RT_EV_NO_COMM ((UINT32_C(1) << 22) - 1)
/** The largest message or collective byte count the reader accepts (2^42 - 1 B, 4 TiB). */
#define RT_MAX_BYTES ((UINT64_C(1) << 42) - 1)

/** Event kinds kept by the reader; every other OTF2 record is dropped. */
enum rt_event_kind {
    RT_EV_ENTER = 1,       /**< ref = region, aux = call site or RT_NONE */
    RT_EV_LEAVE,           /**< ref = region */
    RT_EV_SEND,            /**< blocking send: ref = peer rank, aux = tag, comm, bytes */
    RT_EV_ISEND,           /**< nonblocking send: as RT_EV_SEND */
    RT_EV_ISEND_COMPLETE,  /**< ref = index of its RT_EV_ISEND in this rank's events */
    RT_EV_RECV,            /**< blocking receive: ref = actual source rank, aux = tag, comm, bytes */
    RT_EV_IRECV_REQUEST,   /**< receive posted: message fields filled in from its completion */
    RT_EV_IRECV,           /**< ref = index of its RT_EV_IRECV_REQUEST, whose payload it shares */
    RT_EV_COLL_BEGIN,      /**< ref = root rank or RT_NONE, aux = enum rt_coll_op, comm, bytes = sent */
    RT_EV_COLL_END,        /**< ref = index of its RT_EV_COLL_BEGIN, bytes = received */
    RT_EV_FORK,            /**< the process's first thread forks a thread team (OpenMP parallel region) */
    RT_EV_JOIN,            /**< the team is joined: ref = index of its RT_EV_FORK, work_ns = the slowest
                                other thread's work [ns] from the fork to its arrival at the join */
    RT_EV_NBCOLL_BEGIN,    /**< non-blocking collective started (OTF2 NonBlockingCollectiveRequest, in its
                                MPI_I<coll> call): ref = root rank or RT_NONE, aux = index of its
                                RT_EV_NBCOLL_END in this rank's events, comm, bytes = sent */
    RT_EV_NBCOLL_END       /**< its completion (NonBlockingCollectiveComplete, in the MPI_Wait or MPI_Test
                                that completed it): ref = index of its RT_EV_NBCOLL_BEGIN,
                                aux = enum rt_coll_op, comm, bytes = received */
};

/** Event flags. */
enum rt_event_flag {
    RT_EVF_SYNC = 1u << 0,      /**< synchronous send (MPI_Ssend, MPI_Issend): always rendezvous */
    RT_EVF_BUFFERED = 1u << 1,  /**< buffered send (MPI_Bsend, MPI_Ibsend): always eager */
    RT_EVF_MPI = 1u << 2,       /**< ENTER/LEAVE of an MPI function (paradigm MPI) */
    RT_EVF_CANCELLED = 1u << 3, /**< request cancelled: the operation never happened */
    RT_EVF_ORPHAN = 1u << 4,    /**< completion whose start was not recorded: replayed as blocking */
    RT_EVF_VECTOR = 1u << 5,    /**< COLL_BEGIN of a vector variant (gatherv, alltoallv, reduce_scatter, ...):
                                     the ranks' counts may differ */
    RT_EVF_NOWORK = 1u << 6,    /**< LEAVE of the first thread's last barrier in a team: the time
                                     since its Enter was waiting for the team (the JOIN times it), not work */
    RT_EVF_IN_PLACE = RT_EVF_SYNC /**< (NB)COLL_BEGIN of a call made MPI_IN_PLACE on this rank (retime-trace's
                                     retime::in_place): its counts leave its own block out */
};

/** Collective operations (the subset of OTF2_CollectiveOp retime distinguishes). */
enum rt_coll_op {
    RT_COLL_BARRIER = 0, RT_COLL_BCAST, RT_COLL_GATHER, RT_COLL_SCATTER, RT_COLL_ALLGATHER,
    RT_COLL_ALLTOALL, RT_COLL_REDUCE, RT_COLL_ALLREDUCE, RT_COLL_SCAN, RT_COLL_OTHER
};

/**
 * The hot per-event record, 16 bytes: the trace of a long run is mostly these. Bit-fields keep
 * the fields' names (read and assigned as plain fields; no address can be taken) within the
 * limits above: a time of 53 bits (|time| < RT_MAX_TIME_NS), a kind of 4 and flags of 7 bits.
 * Times are measured nanoseconds since the trace's global start, clock offsets applied.
 * Message, collective and join events have more fields, kept beside the events
 * (struct rt_event_payload, rt_trace_payload): Enter and Leave, most of a trace, need none.
 */
struct rt_event {
    int64_t time : 53;  /**< measured time [ns] */
    uint64_t kind : 4;  /**< enum rt_event_kind */
    uint64_t flags : 7; /**< enum rt_event_flag */
    uint32_t ref;       /**< see enum rt_event_kind */
    uint32_t aux;       /**< see enum rt_event_kind */
};
_Static_assert(sizeof(struct rt_event) == 16, "struct rt_event must stay 16 bytes");
_Static_assert(RT_EV_NBCOLL_END < 16, "every enum rt_event_kind must fit struct rt_event's 4-bit kind");

/**
 * The fields of SEND, ISEND, RECV, IRECV_REQUEST, COLL_BEGIN, COLL_END, NBCOLL_BEGIN, NBCOLL_END and JOIN events (8 bytes
 * each, in a side array of their row, stored once for a run of events with equal fields; an
 * IRECV shares its request's): a byte count of 42 bits
 * (RT_MAX_BYTES) and a communicator of 22 (fewer than RT_MAX_COMMS; RT_EV_NO_COMM: none), or a
 * JOIN's 64-bit work_ns.
 */
struct rt_event_payload {
    union {
        struct {
            uint64_t bytes : 42; /**< message bytes; (NB)COLL_BEGIN: bytes sent; (NB)COLL_END: bytes received */
            uint64_t comm : 22;  /**< communicator index (messages, collectives) */
        };
        uint64_t work_ns; /**< JOIN: the slowest other thread's work [ns] from the fork to the join */
    };
};
_Static_assert(sizeof(struct rt_event_payload) == 8, "struct rt_event_payload must stay 8 bytes");

/** A region (function or user phase). */
struct rt_region {
    const char *name;
    uint8_t is_mpi;   /**< paradigm MPI */
    uint8_t role;     /**< OTF2_RegionRole */
};

/** A call site: the program location that called an MPI function. */
struct rt_callsite {
    const char *function; /**< "??" when unknown */
    const char *file;     /**< "??" when unknown */
    uint32_t line;        /**< 0 when unknown */
};

/** A communicator: its size and the row of each of its ranks. */
struct rt_comm {
    const char *name;
    uint32_t size;
    const uint32_t *members; /**< members[comm rank] = trace row */
    uint32_t origin;         /**< the communicator as defined: itself, or for one process's instance of a
                                  self communicator (MPI_COMM_SELF: members NULL) that communicator */
    uint32_t parent;         /**< the communicator it was made from (OTF2's parent: a split or a
                                  duplicate; an instance: its origin's), or RT_NONE */
};

typedef struct rt_trace rt_trace;

/**
 * Kinds of OTF2 records a replay does not replay (struct rt_trace_stats.skipped). The replay keeps
 * a rank's time around them as measured (compute); what each kind stands for, and the time counted
 * as "inside" it (docs/other-producers.md, "What a replay leaves out"):
 */
enum rt_skip_kind {
    RT_SKIP_ACCEL = 0,   /**< records of accelerator locations (declared counts); time: the rank's thread
                              inside calls of an accelerator API (regions of paradigm CUDA, HIP, OpenCL,
                              OpenACC, HMPP), which wait for the device */
    RT_SKIP_RMA,         /**< one-sided records (Rma*); time: inside the MPI calls that hold them */
    RT_SKIP_NBCOLL,      /**< NonBlockingCollectiveRequest/Complete on a thread other than its process's rank
                              (on the rank's own thread they are replayed, RT_EV_NBCOLL_BEGIN/END); time: inside
                              the MPI calls that hold them */
    RT_SKIP_COMM,        /**< CommCreate, CommDestroy; time: inside the MPI calls that hold them */
    RT_SKIP_IO,          /**< Io* records; time: inside the MPI, accelerator or file-I/O calls that hold them */
    RT_SKIP_MEASUREMENT, /**< MeasurementOnOff; time: from an Off to the next On (or the rank's end) */
    RT_SKIP_FLUSH,       /**< BufferFlush; time: each flush's own span (its stop time - its time) */
    RT_SKIP_THREAD,      /**< locks, tasks, ThreadCreate/Begin/Wait/End (Omp*, Thread*): counted only */
    RT_SKIP_CONTEXT,     /**< CallingContextEnter/Leave/Sample: counted only */
    RT_SKIP_METRIC,      /**< Metric records (CPU threads, and metric locations' declared counts): counted only */
    RT_SKIP_PARAMETER,   /**< ParameterString/Int/UnsignedInt: counted only */
    RT_SKIP_PROGRAM,     /**< ProgramBegin, ProgramEnd: counted only */
    RT_SKIP_UNKNOWN,     /**< records of a type OTF2 does not know: counted only */
    RT_SKIP_KINDS
};

/**
 * One kind of record not replayed: how many, and the rank most of whose time lies inside them.
 * A rank's share is the time of its thread inside the kind (enum rt_skip_kind) over its own span,
 * first event to last; the worst rank is the one of the largest share (the lowest of equal ones).
 */
struct rt_trace_skip {
    uint64_t records;     /**< records of the kind, on all locations */
    rt_time_ns worst_ns;  /**< the worst rank's time inside them [ns] (0: none, or a kind without time) */
    rt_time_ns span_ns;   /**< that rank's span [ns] */
    uint32_t worst_rank;  /**< that rank (row), or RT_NONE */
};

/** The ranks' OTF2 ClockOffset records (their local definitions). OTF2's reader adds each
 *  location's offset to its events' times, interpolated linearly between its records; retime
 *  reads the times so corrected, and reports what was applied here. */
struct rt_trace_clock_offsets {
    uint32_t ranks;            /**< ranks with a nonzero offset in any of their records */
    rt_time_ns max_ns;         /**< the largest offset's magnitude [ns] */
    uint32_t max_rank;         /**< its rank (when ranks > 0) */
    uint32_t drift_ranks;      /**< ranks whose offset moves between their first and last record by
                                *   more than the two records' stated uncertainty (standard deviation
                                *   fields) together: a drifting clock or a bad measurement */
    rt_time_ns drift_ns;       /**< the largest such move [ns] */
    rt_time_ns drift_uncertainty_ns; /**< its stated uncertainty [ns] */
    uint32_t drift_rank;       /**< its rank (when drift_ranks > 0) */
};

/** Counters of what the reader kept, translated or dropped. */
struct rt_trace_stats {
    uint64_t events;          /**< events kept */
    uint64_t otf2_events;     /**< OTF2 records read (kept or not) */
    uint64_t sends, isends, recvs, irecvs, collectives;
    uint64_t nb_collectives;  /**< of the collectives, non-blocking ones (NonBlockingCollectiveRequest/Complete pairs) */
    uint64_t bytes_sent;      /**< point-to-point payload bytes */
    uint64_t orphan_completions; /**< completions without a recorded start */
    uint64_t dropped_requests;   /**< receive requests started but never completed (not replayed) */
    uint64_t uncompleted_isends; /**< nonblocking sends without a completion record (replayed as sent) */
    rt_time_ns span_ns;       /**< last event time - first event time */
    uint32_t self_comms;      /**< self communicators (each has one instance per rank after the defined ones) */
    uint32_t threads;         /**< CPU thread locations besides the ranks' own (OpenMP and other threads) */
    uint64_t thread_records;  /**< OTF2 records read on those threads (their team work times the joins) */
    uint64_t forks;           /**< thread teams forked by the ranks (fork/join instances modeled) */
    uint32_t accel_locations; /**< accelerator (GPU stream) locations: not replayed */
    uint64_t accel_records;   /**< their records (declared counts): dropped */
    uint32_t metric_locations;/**< metric locations: not replayed */
    uint64_t metric_records;  /**< their records (declared counts): dropped */
    uint64_t rma_records;     /**< one-sided (RMA) records on the CPU threads: dropped */
    uint64_t measured_collectives; /**< collective records of set-up operations (OTF2's handle and
                               *   allocation operations: Score-P 8's MPI_Init and MPI_Finalize,
                               *   communicator and window creation) kept as their call's measured
                               *   time, not timed by a model (one per rank and call) */
    uint64_t unknown_coll_ops; /**< collective records of an operation OTF2 3.x does not define (a newer
                               *   writer's): timed as dissemination rounds (RT_COLL_OTHER) */
    uint64_t unknown_records; /**< event records of a type OTF2 does not know (a newer writer, or a
                               *   damaged type byte): skipped, and named by rt_trace_dropped */
    struct rt_trace_skip skipped[RT_SKIP_KINDS]; /**< every kind of record not replayed (rt_trace_coverage) */
    uint32_t missing_ranks;   /**< MPI ranks whose locations the archive lacks (RT_TRACE_ALLOW_MISSING_RANKS):
                               *   no row; rt_trace_missing_rank names them */
    uint64_t missing_sends;   /**< messages to them dropped (sends and nonblocking sends) */
    uint64_t missing_recvs;   /**< messages from them dropped (receives and completed receive requests) */
    uint64_t missing_colls;   /**< collective records on communicators holding them: timed over the members
                               *   present, each with its own counts (as a vector variant) */
    uint64_t missing_roots;   /**< collective records whose root is missing: kept as measured time */
    struct rt_trace_clock_offsets clock; /**< what the ranks' clock offsets moved (ranks' own locations only) */
};

/** Flags of rt_trace_open_flags. */
enum rt_trace_open_flag {
    /** An MPI rank whose locations the archive lacks (its event file missing or empty, or its
     *  location not defined: a rank killed before it wrote) is left out instead of refused: the
     *  messages to and from it are dropped, collectives on communicators holding it are timed over
     *  the members present, and a rooted one whose root it is keeps its measured time. The rows
     *  are the ranks present, in order of location id (so later ranks' row numbers move down). */
    RT_TRACE_ALLOW_MISSING_RANKS = 1u << 0,
    /** Streamed: only the definitions are read at the open; rt_replay_run reads each rank's
     *  events as it reaches them and gives back those it has passed, so a trace larger than
     *  memory replays in the memory of its ranks' windows (bounded by how far their progress
     *  drifts apart). Such a trace serves one replay: rt_trace_events gives only what is held,
     *  and its stats are whole once that replay has ended. Refused for a part
     *  (rt_trace_open_part) and for a trace whose ranks have other threads' locations. */
    RT_TRACE_STREAM = 1u << 1
};

/**
 * Ranks and threads: a rank (row) is an MPI process, the CPU thread location an MPI
 * COMM_LOCATIONS group lists (without such a group: the first CPU thread of each process
 * location group). Other CPU threads of its location group are its threads: their records are
 * read for the work they do in the rank's thread teams, not kept as rows. Accelerator and metric
 * locations, and RMA records, are counted (struct rt_trace_stats) but not replayed.
 *
 * Opens an OTF2 archive and reads it whole into memory.
 * @param path  the `.otf2` anchor file or a directory holding `traces.otf2`
 * @param out   receives the trace, owned by the caller (rt_trace_close)
 * @param err   optional error record: names the file, location and event on failure
 * @return RT_OK or a negative RT_E* code
 */
int rt_trace_open(const char *path, rt_trace **out, rt_error *err);
/** rt_trace_open with flags (enum rt_trace_open_flag; 0: as rt_trace_open). */
int rt_trace_open_flags(const char *path, unsigned flags, rt_trace **out, rt_error *err);
/** Frees the trace; NULL is a no-op. */
void rt_trace_close(rt_trace *trace);

/**
 * Opens part @p part of @p nparts of a trace, for a distributed replay: all definitions, but
 * the events of one contiguous range of ranks only (the ranges split the ranks by their
 * declared event counts; every process computes the same split). The other ranks have no
 * events (rt_trace_events gives 0). rt_trace_part_rows tells which ranks were read.
 */
int rt_trace_open_part(const char *path, uint32_t nparts, uint32_t part, rt_trace **out, rt_error *err);
/** rt_trace_open_part with flags (enum rt_trace_open_flag). */
int rt_trace_open_part_flags(const char *path, unsigned flags, uint32_t nparts, uint32_t part, rt_trace **out,
                             rt_error *err);
/** The ranks [*first, *end) whose events @p trace holds (all of them unless opened as a part). */
void rt_trace_part_rows(const rt_trace *trace, uint32_t *first, uint32_t *end);
/**
 * The earliest first event and the latest last event of the ranks @p trace holds, and their
 * ranks (the lowest of equal ones); *lo_row = *hi_row = RT_NONE when it holds no event.
 */
void rt_trace_time_range(const rt_trace *trace, rt_time_ns *lo, uint32_t *lo_row, rt_time_ns *hi, uint32_t *hi_row);
/**
 * Whether events from @p lo (rank @p lo_row) to @p hi (rank @p hi_row) fit the span a replay can
 * count in ps (RT_MAX_SPAN_NS): RT_OK, or RT_ECORRUPT naming both. rt_trace_open checks its
 * whole trace; rt_trace_open_part with @p nparts > 1 leaves the check to its caller, over the
 * range of all parts (a part cannot see that another part's events are days away).
 */
int rt_trace_check_span(const rt_trace *trace, rt_time_ns lo, uint32_t lo_row, rt_time_ns hi, uint32_t hi_row,
                        rt_error *err);

/** Whether @p trace was opened with RT_TRACE_STREAM. */
int rt_trace_streamed(const rt_trace *trace);
/** The events the ranks' Location definitions declare, summed (before a streamed trace is read,
 *  the best estimate of its size; 0 when the producer declares none). */
uint64_t rt_trace_declared_events(const rt_trace *trace);
/** The bytes a trace read whole holds per event: the 16-byte events, their payloads and payload
 *  blocks (bench/scale.sh measures 17 B of RSS per event at 10^7 and 10^8 events). */
#define RT_TRACE_EVENT_BYTES 17
/** About the bytes a streamed replay of @p trace (opened with RT_TRACE_STREAM, before it is read)
 *  holds at its peak, from the declared counts: a rank read in pieces holds OTF2's buffers (one
 *  or two of the archive's event chunks) and the events the reader reads ahead, a rank read in
 *  one piece its events (RT_TRACE_EVENT_BYTES each) to the end; 0 for a trace read whole. Many
 *  long ranks can need more than the whole read (docs/streaming.md). */
uint64_t rt_trace_stream_bytes(const rt_trace *trace);

/** Path of the anchor file the trace was read from. */
const char *rt_trace_path(const rt_trace *trace);
/** Number of rows (locations with events). */
uint32_t rt_trace_ranks(const rt_trace *trace);
/** Events of row @p rank; *n receives their number. The array is owned by the trace. */
const struct rt_event *rt_trace_events(const rt_trace *trace, uint32_t rank, uint64_t *n);
/**
 * The payload of event @p i of row @p rank (O(1)); an IRECV gives its request's; an event of
 * another kind, or one out of range, gives bytes 0 and comm RT_EV_NO_COMM.
 */
struct rt_event_payload rt_trace_payload(const rt_trace *trace, uint32_t rank, uint64_t i);
/** OTF2 location id of row @p rank. */
uint64_t rt_trace_location_id(const rt_trace *trace, uint32_t rank);
/** Name of row @p rank ("MPI Rank 3" or the location's own name). */
const char *rt_trace_rank_name(const rt_trace *trace, uint32_t rank);
uint32_t rt_trace_regions(const rt_trace *trace);
const struct rt_region *rt_trace_region(const rt_trace *trace, uint32_t region);
/** Region index by name, or RT_NONE. */
uint32_t rt_trace_find_region(const rt_trace *trace, const char *name);
/** What the archive recorded of the MPI library its run used (retime-trace's RETIME::* archive
 *  properties, docs/tracing.md); NULL strings and 0 where it recorded nothing (other tracers). */
struct rt_trace_mpi {
    const char *library;      /**< MPI_Get_library_version's string */
    const char *eager_cvars;  /**< its eager-limit control variables, "name=value,..." */
    rt_bytes eager_limit;     /**< the eager limit between the run's ranks [B] (0: unknown) */
    const char *eager_source; /**< the variable it came from (btl_vader_eager_limit, ...) */
    const char *clock;        /**< the clock of its timestamps ("tsc at 2.3 GHz, ...", "CLOCK_MONOTONIC") */
    uint32_t node_ranks;      /**< the most ranks on one node (0: unknown) */
    uint32_t node_cpus;       /**< the fewest CPUs online on a node (0: unknown); more ranks than
                               *   that on a node: oversubscribed, its ranks waited for CPUs */
};
const struct rt_trace_mpi *rt_trace_mpi_info(const rt_trace *trace);

/** Whether the archive says its run stopped before its ranks finished (retime-trace's emergency
 *  save after a signal, MPI_Abort or an exit without MPI_Finalize): then replays take it up to
 *  where it stopped (rt_replay_options.cut). */
int rt_trace_cut_short(const rt_trace *trace);
/** Whether the ranks' events carry their CPU times (retime-trace's retime::cpu_time attribute;
 *  docs/cpu-time.md): then the replay can take compute as CPU time (RT_COMPUTE_CPU). */
int rt_trace_has_cpu_time(const rt_trace *trace);
/** Row @p rank's measured time outside MPI calls [ns] (*@p wall) and the part of it the rank did
 *  not run, waiting for a CPU, by its CPU times [ns] (*@p waited; 0 without them). */
void rt_trace_compute_time(const rt_trace *trace, uint32_t rank, rt_time_ns *wall, rt_time_ns *waited);
/** Event @p i of row @p rank on the rank's compute clock [ns]: its measured time less, up to then,
 *  what the rank did not run (by its CPU times) and what the tracer took for itself (its flushes);
 *  the measured time without CPU times. Between two events outside MPI calls this clock's gap is
 *  the compute RT_COMPUTE_CPU replays. O(log) in the rank's CPU readings. */
rt_time_ns rt_trace_cpu_clock(const rt_trace *trace, uint32_t rank, uint64_t i);
uint32_t rt_trace_callsites(const rt_trace *trace);
const struct rt_callsite *rt_trace_callsite(const rt_trace *trace, uint32_t callsite);
uint32_t rt_trace_comms(const rt_trace *trace);
const struct rt_comm *rt_trace_comm(const rt_trace *trace, uint32_t comm);
/** Communicator @p comm's members as defined, in comm rank order (*@p size of them): a row, or
 *  RT_NONE for a missing rank (RT_TRACE_ALLOW_MISSING_RANKS; rt_comm.members lists only the rows
 *  present). NULL for a self communicator. */
const uint32_t *rt_trace_comm_defined(const rt_trace *trace, uint32_t comm, uint32_t *size);
const struct rt_trace_stats *rt_trace_stats(const rt_trace *trace);
/** Bytes of memory held by the trace (events, tables, strings). */
uint64_t rt_trace_memory(const rt_trace *trace);
/**
 * Says what the trace holds that the replay does not replay, in one phrase for a warning line
 * ("378 records on 4 accelerator locations, 12 RMA records"); empty when nothing is dropped.
 * Metric locations are not named (they carry no timing the replay would change).
 * @return the number of characters written (0: nothing dropped)
 */
size_t rt_trace_dropped(const rt_trace *trace, char *buf, size_t n);
/**
 * The coverage phrase: every kind of record not replayed (struct rt_trace_stats.skipped) with its
 * count and, for kinds that have time, the worst rank's share of its time inside them:
 * "1,810 accelerator records (61 % of rank 0's time in accelerator API calls), 1,618 RMA records
 * (2.5 % of rank 3's time in the MPI calls that hold them)". Empty when every record is replayed.
 * @return the number of characters written (0: nothing left out)
 */
size_t rt_trace_coverage(const rt_trace *trace, char *buf, size_t n);
/** The name of a kind of record not replayed ("accelerator", "RMA", ...; "unknown" out of range). */
const char *rt_skip_kind_name(int kind);
/**
 * The @p i th of the MPI ranks left out by RT_TRACE_ALLOW_MISSING_RANKS (stats.missing_ranks of
 * them, ascending), as its number in MPI_COMM_WORLD (the MPI COMM_LOCATIONS group); RT_NONE past them.
 */
uint32_t rt_trace_missing_rank(const rt_trace *trace, uint32_t i);
/**
 * A part of a distributed read (rt_trace_open_part) counts what RT_TRACE_ALLOW_MISSING_RANKS
 * dropped on its own ranks only; the caller sums the parts' counts (missing_sends, missing_recvs,
 * missing_colls, missing_roots, in that order) and gives the totals here, so that every part
 * reports the whole trace's.
 */
void rt_trace_set_missing_totals(rt_trace *trace, const uint64_t totals[4]);
/**
 * The MPI_COMM_WORLD rank of row @p row: the row itself, unless ranks are missing
 * (RT_TRACE_ALLOW_MISSING_RANKS), whose rows the later ranks take (with rank 2 missing, row 2 is
 * rank 3). What every output names a rank by. RT_NONE stays RT_NONE.
 */
uint32_t rt_trace_rank_label(const rt_trace *trace, uint32_t row);
/** The regions a rank enters other than MPI calls (those with instances), for an error line or
 *  a summary: "a, b, c (3 entered besides MPI calls; N regions defined)", the first dozen.
 *  Defined regions nobody enters (a producer's call-site functions) are left out. */
void rt_trace_region_list(const rt_trace *trace, char *buf, size_t n);
/** Whether some rank of the trace (of those held) enters region @p region: O(events). */
int rt_trace_region_entered(const rt_trace *trace, uint32_t region);
/** Name of a collective operation ("allreduce"). */
const char *rt_coll_op_name(int op);
/** The OTF2_CollectiveOp a collective of operation @p op (enum rt_coll_op) is written as, the
 *  vector variant when @p vector (RT_EVF_VECTOR): the inverse of the reader's reading, for the
 *  writers of archives. RT_COLL_OTHER gives the first value past those OTF2 3 defines, which the
 *  reader reads back as RT_COLL_OTHER. */
uint8_t rt_coll_op_otf2(int op, int vector);

#ifdef __cplusplus
}
#endif
#endif
