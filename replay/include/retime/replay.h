/* SPDX-License-Identifier: MIT */
/**
 * @file replay.h  Re-timing a trace under a network model.
 *
 * The engine walks every rank's events once. Compute intervals (time outside MPI calls, and
 * MPI calls that move no data) keep their measured length times the compute scale; the time
 * inside MPI calls that send, receive or synchronise is what the model says. Ranks interact
 * only through the messages and collectives they take part in: a rank's replay needs its own
 * events plus the timings of its messages.
 */
#ifndef RETIME_REPLAY_H
#define RETIME_REPLAY_H

#include "retime/model.h"
#include "retime/network.h"
#include "retime/noise.h"
#include "retime/scale.h"
#include "retime/trace.h"
#include "retime/window.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Point-to-point algorithms a collective is expanded into (see collective.c). */
enum rt_coll_algo {
    RT_ALGO_AUTO = 0,      /**< the default choice for the operation, size and communicator */
    RT_ALGO_DISSEMINATION, /**< barrier (Hensgen, Finkel & Manber 1988) */
    RT_ALGO_BINOMIAL,      /**< bcast, reduce, gather, scatter */
    RT_ALGO_RECDBL,        /**< recursive doubling: allreduce, allgather, scan */
    RT_ALGO_RING,          /**< allreduce (reduce-scatter + allgather), allgather */
    RT_ALGO_RABENSEIFNER,  /**< allreduce: recursive halving + recursive doubling */
    RT_ALGO_PAIRWISE,      /**< alltoall, reduce_scatter */
    RT_ALGO_BRUCK,         /**< allgather, alltoall (Bruck et al. 1997), barrier (= dissemination) */
    RT_ALGO_LINEAR,        /**< every operation: one rank talks to all in turn */
    RT_ALGO_PIPELINE,      /**< bcast, reduce: a chain in segments */
    RT_ALGO_CHAIN,         /**< bcast, reduce: `fanout` chains in segments */
    RT_ALGO_BINARY,        /**< bcast, reduce: a binary tree in segments */
    RT_ALGO_SPLIT_BINARY,  /**< bcast: the two halves down the two subtrees, then swapped */
    RT_ALGO_KNOMIAL,       /**< bcast: a k-nomial tree (radix `fanout`, 4) */
    RT_ALGO_IN_ORDER_BINARY, /**< reduce: Open MPI's in-order binary tree */
    RT_ALGO_SCATTER_RECDBL, /**< bcast: scatter + recursive-doubling allgather */
    RT_ALGO_SCATTER_RING,  /**< bcast: scatter + ring allgather */
    RT_ALGO_SEGMENTED_RING, /**< allreduce: the ring in phases of a segment */
    RT_ALGO_REDUCE_BCAST,  /**< allreduce: reduce + bcast (Open MPI's "nonoverlapping") */
    RT_ALGO_NEIGHBOR,      /**< allgather: neighbour exchange */
    RT_ALGO_ALL_AT_ONCE,   /**< alltoall: isend/irecv to all, 32 at a time */
    RT_ALGO_LINEAR_SYNC,   /**< gather: the root asks each rank in turn */
    RT_ALGO_LINEAR_NB,     /**< scatter: the root's sends all posted at once */
    RT_ALGO_TREE,          /**< barrier: up and down a binomial tree */
    RT_ALGO_DOUBLE_RING,   /**< barrier: a token twice around the ring */
    RT_ALGO_COUNT
};

/**
 * What one collective instance runs: the algorithm, its segment size (0: one segment) and
 * fan-out (chains, k-nomial radix; 0: the algorithm's own), and for composite algorithms
 * (reduce-bcast) the algorithms of their two parts (0: binomial).
 */
struct rt_coll_plan {
    int op, algo;
    rt_bytes seg;
    uint32_t fanout;
    uint8_t part[2];
    /** An allreduce's vector variant (MPI_Reduce_scatter) runs as what the MPI library runs for it:
     *  rabenseifner's reduce-scatter half (recursive halving), ring's, pairwise, or reduce-bcast
     *  as a reduce and a linear scatter. Set by the mpich and openmpi rule sets and by rules files;
     *  retime's rules time it as an allreduce of its vector, as before. */
    uint8_t reduce_scatter;
};

/**
 * The bytes one member passed to a collective call (its block: the message of a bcast, the vector
 * of an allreduce, one peer's block of an alltoall), read from that member's own counts in the
 * trace's convention (Score-P's: an allreduce of b bytes on P ranks records P·b sent and
 * received). For tables by message size; where the counts fit no reading, the larger count.
 * @param op  enum rt_coll_op; @p vector: a v-variant; @p is_root: this member is the root
 */
rt_bytes rt_coll_call_bytes(int op, int vector, uint32_t P, int is_root, rt_bytes sent, rt_bytes recv);

/** A rule set that picks each collective's algorithm (docs/collectives.md). */
typedef struct rt_coll_rules rt_coll_rules;

/**
 * Opens a rule set: "retime" (the default: the choices of earlier releases), "mpich" (MPICH
 * 4.x's defaults), "openmpi" (Open MPI 4.1's coll/tuned fixed rules), or the path of a rules
 * file (docs/collectives.md: `OP RANKS BYTES ALGORITHM [seg=SIZE] [fanout=N]` lines).
 * @return RT_OK, or an error naming the file and line.
 */
int rt_coll_rules_open(const char *spec, rt_coll_rules **out, rt_error *err);
void rt_coll_rules_free(rt_coll_rules *r);
/** "retime", "mpich", "openmpi" or the file's path. */
const char *rt_coll_rules_name(const rt_coll_rules *r);

/**
 * The plan of one collective instance of operation @p op (enum rt_coll_op; @p vector for the
 * v-variants) on @p P ranks whose largest block is @p block and whose blocks total @p total
 * bytes, under rule set @p r (NULL: "retime"), unless @p override (indexed by operation, may be
 * NULL) names an algorithm other than RT_ALGO_AUTO for it.
 */
void rt_coll_plan_choose(const rt_coll_rules *r, const uint8_t *override, int op, int vector, uint32_t P,
                         rt_bytes block, rt_bytes total, struct rt_coll_plan *out);

/** A kind of collective instance in a trace and the plan it gets (rt_coll_census). */
struct rt_coll_census_row {
    int op, vector;
    uint32_t ranks;
    rt_bytes block, total; /**< the largest block and the blocks' sum, as the replay derives them */
    struct rt_coll_plan plan;
    uint64_t instances;
};
#define RT_COLL_CENSUS_MAX 10000 /**< distinct rows kept; the rest are counted in `more` */
struct rt_coll_census {
    struct rt_coll_census_row *rows; /**< by operation, ranks, block */
    size_t n;
    uint64_t more;       /**< instances of rows past RT_COLL_CENSUS_MAX */
    uint64_t incomplete; /**< instances some member never enters */
    uint64_t mismatched; /**< instances whose members' counts disagree (the replay refuses them) */
};
/**
 * Every collective instance of @p t with the plan it gets under rule set @p r (NULL: retime's)
 * and @p override (may be NULL), grouped. RT_OK or RT_ENOMEM.
 */
int rt_coll_census(const rt_trace *t, const rt_coll_rules *r, const uint8_t *override, struct rt_coll_census *out,
                   rt_error *err);
void rt_coll_census_free(struct rt_coll_census *c);

/**
 * The processes of a distributed replay (see docs/distributed.md). Each process replays the
 * ranks [first_rank[me], first_rank[me + 1]) and needs only their events; the processes swap
 * the timings of the messages and collectives that cross between them. The engine calls the
 * two operations collectively: every process makes the same calls in the same order. The
 * results are bit-identical to a replay by one process.
 */
struct rt_replay_part {
    uint32_t nprocs, me;
    const uint32_t *first_rank; /**< nprocs + 1 entries, first_rank[nprocs] = the trace's ranks */
    void *ud;
    /** Sends out[p] (outlen[p] bytes) to every process p and receives what each sent to this
     *  one in in[p] (inlen[p] bytes), valid until the next call. RT_OK or an RT_E* code. */
    int (*exchange)(void *ud, void *const *out, const size_t *outlen, void **in, size_t *inlen);
    /** Replaces @p v[0..n) by its element-wise minimum (@p sum = 0) or sum (@p sum = 1) over
     *  the processes. RT_OK or an RT_E* code. */
    int (*reduce)(void *ud, int64_t *v, size_t n, int sum);
    /** On a network: how many instances of a communicator's collectives beyond the one a rank is
     *  about to enter a request for their members' counts also asks for (docs/distributed.md,
     *  "counts on demand"); more hold more counts and stop fewer ranks. 0: 64. */
    uint32_t counts_ahead;
};

/** How measured compute (the time between a rank's events outside communicating calls) is taken. */
enum rt_compute {
    RT_COMPUTE_WALL = 0, /**< the events' time stamps: wall time, with whatever else ran on the machine */
    RT_COMPUTE_CPU = 1   /**< less the time the rank did not run, by its CPU times (rt_trace_has_cpu_time;
                          *   without them, as RT_COMPUTE_WALL) */
};

/** How a rank's outstanding sends share its injection (docs/network.md, "One discipline"). */
enum rt_injection {
    RT_INJECT_IN_ORDER = 0, /**< one at a time: each starts when the previous one's port gap is over
                             *   (the crossbar's single port; on a network, its flow starts then) */
    RT_INJECT_SHARED = 1    /**< at once, max-min fair on the NIC link (a network only: the crossbar's
                             *   is the network crossbar-flow) */
};
/** Parses "in-order" or "shared" into *@p out (enum rt_injection). RT_OK or RT_EINVAL. */
int rt_injection_parse(const char *s, int *out, rt_error *err);
/** "in-order" or "shared". */
const char *rt_injection_name(int injection);

struct rt_replay_options {
    struct rt_model model;
    double compute_scale;   /**< 1 = compute as measured, 0 = communication only */
    int compute;            /**< enum rt_compute: what "as measured" means (RT_COMPUTE_WALL: 0) */
    int cut;                /**< 1: a run that ended before its ranks did (killed, hung) replays up to
                             *   where it stopped: ranks that wait for what never comes end there
                             *   (rt_replay_result.cut_event) instead of an error, and sends never
                             *   received are counted (in_flight); one process only */
    rt_bytes eager_limit;   /**< largest eager message [B]; larger ones use rendezvous */
    uint8_t coll_algo[RT_COLL_OTHER + 1]; /**< enum rt_coll_algo per enum rt_coll_op (overrides) */
    const rt_coll_rules *coll_rules; /**< the rules for the others (NULL: "retime") */
    /** Network noise: an extra delay on the wire of every point-to-point message, drawn from
     *  this distribution (NULL: none) in the random stream keyed by (seed, run, sender rank,
     *  send event index), so it does not depend on the order of the replay. */
    const rt_dist *net_noise;
    /** OS noise: CPU detours per rank (NULL: none). They stretch compute intervals and the
     *  model's CPU overheads (o_s, o_r), and a rank cannot resume during one; never the wire. */
    const rt_os_noise *os_noise;
    /** Bursty background traffic: a two-state Markov chain whose "on" state slows the wire
     *  (NULL: none). */
    const rt_burst *net_burst;
    uint64_t seed, run;
    /** The network (retime/network.h): NULL for the single-port crossbar of the model alone
     *  (every earlier result, bit-identical); otherwise point-to-point messages are routed and
     *  share links. Not with a distributed replay (part). */
    const rt_network *network;
    /** enum rt_injection (RT_INJECT_IN_ORDER: 0); RT_INJECT_SHARED needs a network. */
    int injection;
    /** With a network: record each message's contention delay per link in the result
     *  (struct rt_replay_result.contention), for the analysis of which of it the critical path took. */
    uint8_t record_contention;
    /** NULL: this process replays every rank. Otherwise the distributed replay's processes. */
    const struct rt_replay_part *part;
    /** The measured window the result reports beside the whole run (retime/window.h; NULL or
     *  "all": none). It changes no timing. */
    const rt_window *window;
    /** What if the messages were bigger: factors on the trace's byte counts (retime/scale.h,
     *  opened on the trace replayed; NULL: the counts as traced). */
    const rt_scale *scale;
};

/** The links the routes of trace @p t's messages cross on @p net, summed (each route as the
 *  topology gives it with no traffic; shared memory none): the replay's work on the network,
 *  about one step per link and message. A collective's messages are its algorithm's: each member
 *  is counted as sending to the members 1, 2, 4, ... places on in the communicator (recursive
 *  doubling's and binomial trees' partners, ceil(log2 P) messages). It stops counting once past
 *  @p limit; HUGE_VAL when out of memory. The longest route met, in *@p longest links, from row
 *  *@p from to row *@p to. (Other jobs' messages are not counted: --perturb's estimate counts them
 *  as messages.) */
double rt_replay_route_links(const rt_trace *t, const rt_network *net, double limit, uint32_t *longest,
                             uint32_t *from, uint32_t *to);
/** The most links a replay routes one message over: a flow holds its route, and every link it
 *  meets costs memory, so routes of millions of links (a scattered mapping on a huge mesh) are
 *  refused before the replay (machines' routes are tens of links; docs/topology.md). */
#define RT_MAX_ROUTE_LINKS 65536u

/** Whether @p o injects any noise (then runs with different rt_replay_options.run differ). */
int rt_replay_options_noisy(const struct rt_replay_options *o);
/** @p o without its noise: the noise-free replay that noisy runs are compared with. */
struct rt_replay_options rt_replay_options_noise_free(const struct rt_replay_options *o);

/**
 * Parses a collective algorithm choice "OP=ALGO[,OP=ALGO...]" (e.g. "allreduce=ring,bcast=binomial")
 * into @p algo (indexed by enum rt_coll_op), leaving operations not named unchanged.
 * @return RT_OK or RT_EINVAL naming the bad operation or algorithm and the valid ones.
 */
int rt_coll_algo_parse(const char *spec, uint8_t algo[RT_COLL_OTHER + 1], rt_error *err);
/** Name of an algorithm ("recdbl"). */
const char *rt_coll_algo_name(int algo);

/** What an event's remote edge is (enum rt_dep.kind). */
enum rt_dep_kind {
    RT_DEP_NONE = 0,    /**< only the local edge */
    RT_DEP_MESSAGE,     /**< a receive (or a rendezvous send) completes: the message's origin */
    RT_DEP_COLLECTIVE   /**< a collective member leaves: the member whose entry bound it */
};

/**
 * How an event's predicted time came about: the dependency graph of the replay, one node per
 * event. Every event v has a local edge from the previous event of its rank (the first event:
 * from the run's start at time 0) and at most one remote edge from an earlier-timed event u
 * (a message's send event or the event at which its receive was posted, for rendezvous the
 * later of the two; a collective member's COLL_BEGIN). The predicted time is exactly
 *     t(v) = max(local_ready, remote_ready)
 * where each is the time v would have had through that edge alone. The binding edge's ready
 * time is exact; the other's is the model's cost without OS noise (a valid lower bound), so
 * ready - t(u) is a valid edge weight in both cases.
 */
struct rt_dep {
    rt_time_ps local_ready;  /**< through the local edge */
    rt_time_ps remote_ready; /**< through the remote edge (INT64_MIN when there is none) */
    uint64_t src_index;      /**< the remote source event's index in its rank's events */
    uint32_t src_rank;       /**< its rank (RT_NONE when there is no remote edge) */
    uint8_t kind;            /**< enum rt_dep_kind */
    /** RT_DEP_COLLECTIVE: the member whose *measured* entry binds this leave in the trace's own
     *  times (by the operation's data dependencies: rt_depgraph_measured's source), its entry
     *  event; msrc_rank RT_NONE for the other kinds */
    uint64_t msrc_index;
    uint32_t msrc_rank;
};

/** Called once per event, in each rank's program order, with its predicted time. */
struct rt_replay_observer {
    void *ud;
    void (*on_event)(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev,
                     rt_time_ps predicted);
    /** Optional: called just before on_event with the event's edges (NULL: the engine does not
     *  work them out). A remote source has been reported before any event that depends on it
     *  is reported on another rank only when ranks run in time order; do not rely on it. */
    void (*on_dep)(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted,
                   const struct rt_dep *dep);
    /** Optional: called about every 2^16 events with the events replayed so far and the total
     *  (for progress displays; never called for traces shorter than that). */
    void (*on_progress)(void *ud, uint64_t done, uint64_t total);
};

struct rt_replay_result {
    uint32_t ranks;
    rt_time_ps predicted_ps;      /**< latest predicted end over ranks */
    rt_time_ns measured_ns;       /**< latest measured end minus earliest measured start */
    rt_time_ps *predicted_end_ps; /**< per rank */
    rt_time_ns *measured_end_ns;  /**< per rank, from the earliest measured start */
    uint64_t events;
    uint64_t messages;            /**< point-to-point messages replayed */
    uint64_t rendezvous;          /**< of which used the rendezvous protocol */
    uint64_t collectives;         /**< collective instances replayed */
    uint64_t peak_bytes;          /**< engine memory high-water mark (excluding the trace) */
    rt_time_ps net_noise_ps;      /**< network noise injected, summed over messages */
    rt_time_ps os_noise_ps;       /**< CPU time lost to OS detours, summed over ranks */
    rt_time_ps burst_ps;          /**< extra wire time of messages sent in a burst, summed */
    uint64_t rounds;              /**< distributed replay: rounds of exchange (0 for one process) */
    /* with a network (options.network) */
    struct rt_link_use *links;    /**< the links that carried messages, by link id (owned) */
    uint32_t nlinks;
    rt_time_ps contention_ps;     /**< time messages lost to sharing links, summed over messages */
    uint64_t routed;              /**< messages between nodes */
    uint64_t local;               /**< messages between ranks of one node (shared memory) */
    uint64_t net_recomputed;      /**< flows whose rates the contention model computed, summed over its
                                       recomputations: its work (bench/network.sh) */
    struct rt_msg_contention *contention; /**< options.record_contention: per message and link (owned) */
    uint64_t ncontention;
    /** options.record_contention, collectives run as messages on a network: per internal message
     *  (numbered as they start), the message of the same collective its sending went back to
     *  (UINT64_MAX: the sender's own entry), so that a member's chain of messages can be followed
     *  back from its leaving (coll_binds) to its origin's entry (owned) */
    uint64_t *coll_pred;
    uint64_t ncoll_msgs;
    /** the same with options.part (a distributed replay): the messages this process numbers, by
     *  name (ncoll_msgs entries; owned). Process 0 numbers every message of the network's copy
     *  and keeps the contention records and coll_pred; every process numbers the messages its
     *  members' coll_binds go back to (others' coll_pred entries: UINT64_MAX). NULL otherwise. */
    struct rt_coll_msg_name *coll_names;
    struct rt_coll_bind *coll_binds; /**< per member leaving a collective run as messages (owned) */
    uint64_t ncoll_binds;
    /* with options.cut */
    uint32_t cut_ranks;           /**< ranks that wait at their end for what never comes */
    uint64_t *cut_event;          /**< per rank (options.cut): the event it waits at, UINT64_MAX if it
                                   *   finished (owned) */
    uint32_t *cut_waits_for;      /**< per rank: the rank it waits for (a message's peer), or RT_NONE
                                   *   (a collective, or it finished) (owned) */
    uint64_t in_flight;           /**< sends never received: in flight when the run stopped */
    /* with a window (options.window other than "all") */
    uint8_t window;               /**< 1: the window fields below are set */
    uint32_t window_ranks;        /**< ranks with both window events (0: none; the spans are 0) */
    rt_time_ps window_begin_ps, window_end_ps; /**< predicted: earliest begin, latest end */
    rt_time_ps window_predicted_ps; /**< window_end_ps - window_begin_ps */
    rt_time_ns window_measured_ns;  /**< the same span in the trace */
};

/** Fills @p o with defaults: Hockney α = β = 0, compute scale 1, eager limit 64 KiB. */
void rt_replay_options_default(struct rt_replay_options *o);

/**
 * Replays @p trace under @p opts.
 * @param obs  optional observer (NULL for none)
 * @param out  receives the result, owned by the caller (rt_replay_result_destroy)
 * @return RT_OK; RT_EUNMATCHED for a send or receive without partner, RT_EDEADLOCK when the
 *         trace cannot complete, RT_EMISMATCH for disagreeing collectives; @p err names the
 *         rank, the event index and the MPI call.
 */
int rt_replay_run(const rt_trace *trace, const struct rt_replay_options *opts,
                  const struct rt_replay_observer *obs, struct rt_replay_result **out, rt_error *err);

/** Frees a result; NULL is a no-op. */
void rt_replay_result_destroy(struct rt_replay_result *r);

#ifdef __cplusplus
}
#endif
#endif
