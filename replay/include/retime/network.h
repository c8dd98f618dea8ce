/* SPDX-License-Identifier: MIT */
/**
 * @file network.h  The replay's network layer: a routed topology, a mapping of ranks to nodes,
 * and flow-level link contention (docs/network.md).
 *
 * Without a network (struct rt_replay_options.network NULL, the CLI's `--topology crossbar`) a
 * message holds its sender's and receiver's single port for the model's gap and arrives the
 * model's wire time after it starts, as always. With one, the engine asks the network for each
 * point-to-point message's arrival instead: ranks on one node talk through shared memory (their
 * own α and β, no contention); between nodes a message's bytes are a flow over the links of its
 * route (the sender's NIC injection link, the topology's links, the receiver's ejection link)
 * that shares each link's bandwidth max-min fairly with the other flows on it
 * (replay/src/network/netflow.c), and it arrives its latency (the model's zero-byte wire time
 * plus a per-hop latency per switch or router crossed, plus any network noise) after its last
 * byte leaves. Ports are not held: the NIC links are the shared resource. Collectives keep the model's timing.
 */
#ifndef RETIME_NETWORK_H
#define RETIME_NETWORK_H

#include <stdint.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a network is built from; zeroed fields take their defaults. */
struct rt_network_params {
    const char *topology;       /**< rt_topology_create spec ("torus:4x4x4", "fattree:XGFT(2;4,4;1,4)",
                                     "dragonfly:4,4,2,2"); "crossbar-flow" for the NICs alone */
    const char *mapping;        /**< rt_mapping_create spec; NULL: "block" */
    uint32_t ranks_per_node;    /**< slots per node; 0: 1 */
    double link_ns_per_byte;    /**< inverse bandwidth of the topology's links; 0: the NIC's */
    double nic_ns_per_byte;     /**< inverse bandwidth of the NIC injection and ejection links; 0: the
                                     model's own per-byte time (Hockney β, LogGP G) */
    double hop_latency_ns;      /**< added per switch or router a message crosses; default 0 */
    /** The packet size of the links [bytes] (0: none): a message between nodes waits, at each
     *  link of its route, for one packet of each other flow on that link when it starts (the
     *  queue ahead of its first packet), as small messages do under congestion (002_*.txt) */
    double packet_bytes;
    double shm_alpha_ns;        /**< ranks on one node: latency; < 0: the model's zero-byte wire time */
    double shm_ns_per_byte;     /**< ranks on one node: inverse bandwidth; < 0: the model's */
    /** Background traffic of other jobs (NULL: none), `ratio=R,pattern=P,size=SIZE[,...]`:
     *  a fraction R of the machine's nodes, drawn per run among those the trace does not use,
     *  sends SIZE-byte messages through the same links: pattern `random-permutation` (every
     *  interval=T, each sends to one other and receives from one, 002_*.txt §3), `uniform` (every
     *  interval=T, each to a random other) or `ipp` (each node an interrupted Poisson process of
     *  004_*.txt: rate=R messages per time while on, leaving on at sigma1=R, off at sigma2=R, to a
     *  random other). Seeded by the replay's seed and run (docs/network.md). */
    const char *perturb;
    /** How links are shared (enum rt_contention); 0: RT_CONTENTION_EXACT. */
    int contention;
};

/** The contention model (docs/network.md, "Contention models"). */
enum rt_contention {
    RT_CONTENTION_EXACT = 0,      /**< max-min fair, recomputed per connected component (default) */
    RT_CONTENTION_EXACT_FULL = 1, /**< max-min fair, every flow recomputed at each change: the
                                       reference the default is checked against (bit-identical) */
    RT_CONTENTION_FAST = 2,       /**< approximate: each flow min(own limit, C_l / n_l over its links),
                                       recomputed only over the links whose load changed */
    RT_CONTENTION_NONE = 3        /**< no sharing: each message at the least of its own rate and its
                                       route's capacities, as if alone (distance without congestion) */
};

/** Parses "exact", "exact-full", "fast" or "none" into *@p out; RT_OK or RT_EINVAL with one line. */
int rt_contention_parse(const char *s, int *out, rt_error *err);
/** "exact", "exact-full", "fast" or "none". */
const char *rt_contention_name(int contention);

/** Sets every field to its default (shm_* to -1: the model's own). */
void rt_network_params_default(struct rt_network_params *p);

typedef struct rt_network rt_network;

/**
 * Builds the network for a trace of @p ranks ranks: the topology, the mapping (every rank on a
 * node of it, at most ranks_per_node per node) and the link capacities. Immutable afterwards:
 * one network may serve many replays at once (sweep, Monte Carlo).
 * @return RT_OK, or RT_EINVAL with one line naming the bad spec or value (RT_ENOMEM)
 */
int rt_network_create(const struct rt_network_params *p, uint32_t ranks, rt_network **out, rt_error *err);
/** NULL is a no-op. */
void rt_network_destroy(rt_network *net);
/**
 * What --perturb offers: background messages per ns (0 without it), and in *@p nic_load the share
 * of a perturbing node's NIC link its own messages need (over 1: they pile up without bound).
 * @p model_ns_per_byte stands in for an unset NIC bandwidth, as in a replay.
 */
double rt_network_background_rate(const rt_network *net, double model_ns_per_byte, double *nic_load);
/** The changes of state the ipp sources' chains make per ns, summed over the perturbing nodes
 *  (0 for the other patterns): work the replay does besides the messages. */
double rt_network_background_switch_rate(const rt_network *net);
/** The links a background message crosses (--perturb), on average over 64 node pairs drawn with a
 *  fixed seed (its nodes are drawn per run), and in *@p longest the longest of those routes: for
 *  the work estimate, and to refuse other jobs' routes of millions of links (a huge mesh). 0 (and
 *  0) without background traffic; HUGE_VAL when out of memory. */
double rt_network_background_route(const rt_network *net, uint32_t *longest);
/**
 * How many background messages --perturb starts from time 0 to @p until_ps (ps, inclusive) in the
 * replay of @p seed and Monte Carlo run @p run (rt_replay_options' seed and run): the same draws as
 * that replay, without the flows (which messages leave when does not depend on the network's
 * state). A replay starts them while its trace runs, so until_ps = its predicted end counts what
 * it carried (bench/network.sh). *@p count is 0 without --perturb.
 * @return RT_OK or RT_ENOMEM
 */
int rt_network_background_messages(const rt_network *net, uint64_t seed, uint64_t run, int64_t until_ps,
                                   uint64_t *count);
/**
 * rt_network_background_messages, and in *@p links (unless NULL) the links their routes cross,
 * summed: each route as the topology gives it with no traffic on the links (with adaptive
 * routing the replay's own routes may differ; minimal ones have the same lengths). A background
 * message's cost is mostly per link crossed (bench/network.sh compares it per link with an
 * application message's). @return RT_OK or RT_ENOMEM
 */
int rt_network_background_traffic(const rt_network *net, uint64_t seed, uint64_t run, int64_t until_ps,
                                  uint64_t *messages, uint64_t *links);
/** "torus:4x4x4, block mapping, 1 rank per node" style summary. */
const char *rt_network_describe(const rt_network *net);
/** The node rank @p rank runs on. */
uint32_t rt_network_node(const rt_network *net, uint32_t rank);
/** The topology's directed links, NIC links included. */
uint32_t rt_network_links(const rt_network *net);
/** A readable name of link @p link into @p buf (n bytes); returns buf. */
const char *rt_network_link_name(const rt_network *net, uint32_t link, char *buf, size_t n);
const struct rt_network_params *rt_network_params_of(const rt_network *net);
/** The topology (retime/topology.h: its links' kinds and levels). */
const struct rt_topology *rt_network_topology(const rt_network *net);

/** One link's traffic in a replay (struct rt_replay_result.links). */
struct rt_link_use {
    uint32_t link;
    uint32_t max_flows;  /**< most flows on it at once (background traffic included) */
    uint64_t flows;      /**< the trace's messages that crossed it */
    double bytes;        /**< their bytes */
    rt_time_ps busy_ps;  /**< time with at least one flow on it (background traffic included) */
    double delay_ps;     /**< time the trace's messages lost while it was their bottleneck (contention) */
    uint64_t bg_flows;   /**< background messages (--perturb) that crossed it */
    double bg_bytes;
};

/** The time one message lost on one link while it was its bottleneck (struct rt_replay_result). The
 *  message is named as the dependency graph names a remote edge's source: its origin event. */
struct rt_msg_contention {
    uint64_t origin_ev;   /**< the send (or, for a rendezvous, the later post) its timing goes back to */
    uint32_t origin_rank;
    uint32_t link;
    double delay_ps;
    uint64_t coll_msg;    /**< a collective's internal message: its number (struct rt_replay_result's
                               coll_pred); UINT64_MAX for a point-to-point message. Under mpirun
                               (process 0 keeps the records) a collective's origin_ev is UINT64_MAX:
                               its member's event is on its own process */
};

/** A collective's internal message as every process of a distributed replay names it (struct
 *  rt_replay_result.coll_names): its instance, (communicator + 1) << 40 | the instance's number
 *  on that communicator (from 0, below 2^40), and its place in the instance's schedule. */
struct rt_coll_msg_name {
    uint64_t instance;
    uint64_t place;
};

/** Which internal message of its collective a member's leaving goes back to (struct
 *  rt_replay_result.coll_binds): the last link of the chain of messages that timed it. */
struct rt_coll_bind {
    uint64_t ev;   /**< the member's collective event on its rank */
    uint32_t rank;
    uint64_t msg;  /**< the message (coll_pred's index); UINT64_MAX: its own entry timed it */
};

#ifdef __cplusplus
}
#endif
#endif
