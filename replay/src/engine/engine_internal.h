/* SPDX-License-Identifier: MIT */
/*
 * The replay engine's shared state: the structures of the serial replay and driver (engine.c),
 * of collectives (engine_coll.c, coll_exec.c) and of the engine's side of a distributed replay
 * (engine_remote.c), the hot helpers they call (static inline, so that the serial replay keeps
 * them inlined: the queue, the table of operations in flight, the message pool, the channels) and
 * the functions one file calls in another (rt__eng_, internal). The distributed replay's rounds
 * (engine_dist.c) do not see any of it: they meet the engine in engine_dist.h.
 */
#ifndef RETIME_ENGINE_INTERNAL_H
#define RETIME_ENGINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "compiler.h"
#include "grow.h"
#include "map.h"
#include "network_internal.h"
#include "noise_internal.h"
#include "retime/replay.h"
#include "trace_internal.h"

#define NEVER INT64_MIN
#define COLL_BIT (1ull << 63) /* pending value: COLL_BIT | member's comm rank << 32 | collective id */

/* Entry types, in the order they are taken at equal times. A rendezvous becomes ready last:
 * the receive post that makes it ready may come from a rank woken at that very time (by an
 * arrival, a collective, an eager send's return), so only then are all the readies of a time
 * known, and the order of a port's grants never depends on the order ranks were simulated. */
enum { Q_RESUME, Q_READY, Q_ARRIVE, Q_COLL, Q_RDV }; /* (a network's operations: beside the queue, net_next) */
enum { R_QUEUED, R_RUNNING, R_BLOCKED, R_DONE };
enum {
    M_SEND = 1 << 0,  /* send side posted */
    M_RECV = 1 << 1,  /* receive side posted */
    M_RDV = 1 << 2,   /* rendezvous protocol */
    M_SCHED = 1 << 3, /* READY queued */
    M_SDONE = 1 << 4, /* send completion known */
    M_RDONE = 1 << 5, /* receive completion known */
    M_BURST = 1 << 6, /* injected during a burst of background traffic */
    /* distributed replay (rt_replay_part) */
    M_VRECV = 1 << 7, /* at the sender's process: the receiver is on another process */
    M_HALF = 1 << 8,  /* at the receiver's process: the receive half of a message sent from elsewhere */
    M_FWD = 1 << 9,   /* its arrival has been sent to the receiver's process */
    M_VDONE = 1 << 10, /* the far receiver's hold on it has been released */
    M_COLL = 1 << 11,  /* a message of a collective's schedule (coll_exec.c): comm is the engine's
                        * collective, n its place in the schedule */
    M_PORT = 1 << 12   /* on a network, in order: given the sender's port for a later time, and queued
                        * to start its flow then (net_ready) */
};

/* Queue entries are ordered by (t, type, key): a total order that does not depend on when an
 * entry was queued, so that ranks replayed by different processes (rt_replay_part) grant
 * ports in the same order as one process does. Keys: RESUME the rank; READY and ARRIVE the
 * sender and its send event; COLL the communicator and the instance's number on it. */
struct qent {
    rt_time_ps t;
    uint64_t tk; /* type << 61 | key: one comparison orders by type, then key */
    uint32_t id;
};
#define QTYPE(q) ((uint8_t)((q)->tk >> 61))
#define MSG_KEY(src, ev) ((uint64_t)(src) << 40 | ((ev) & ((1ull << 40) - 1)))
/* A message's key in the queue: its sender and send event, or for a collective's message (whose
 * sends share their member's event) its place in the schedule, so that a member's messages due
 * at one time take the port in the schedule's order, as rt__coll_run sends them. */
#define MSG_QKEY(m) MSG_KEY((m)->src, (m)->flags & M_COLL ? (uint64_t)(m)->n : (m)->send_ev)

struct msg {
    rt_time_ps send_post, recv_post, send_done, recv_done;
    rt_bytes bytes;     /* its size in the replay: the send's count, scaled (--scale-bytes) */
    rt_bytes raw;       /* the count as traced, which both sides' records must agree on */
    uint64_t send_ev, recv_ev;
    uint64_t post_ev;   /* the receiver's event at which the receive was posted */
    uint64_t origin_ev; /* the event its timing goes back to: the send, or (rendezvous) a later post */
    uint32_t origin_rank;
    uint32_t src, dst, next, tag, comm;
    uint32_t n;    /* its number among its channel's messages (names it across processes) */
    uint32_t pmsg; /* receive half: the message's id at the sender's process */
    uint16_t flags;
    uint8_t refs; /* sides still holding it */
};

struct chan {
    uint32_t comm, tag, src, dst; /* what names it */
    uint32_t head, tail; /* queue of messages posted by one side only */
    uint8_t side;        /* M_SEND or M_RECV: which side the queued messages have */
    uint32_t nsend, nrecv; /* sends and receives posted so far */
};

struct coll {
    struct rt__coll_member *mem; /* per communicator rank: begin, counts, ports, done */
    uint64_t *ev;                /* per communicator rank: its COLL_BEGIN event index */
    const uint32_t *members;     /* the communicator's rt_comm.members (NULL: a self communicator) */
    uint32_t size, arrived, refs, comm, op, root, root_rank;
    uint32_t first_rank;
    uint64_t first_ev, seq; /* seq: the instance's number on its communicator */
    uint8_t complete, vector;
    uint8_t mbind_all;           /* on a network: every member's mbind worked out (all entered) */
    /* distributed replay: members on several processes; the coordinator (the process of
     * member 0) collects the entries and ports, runs the algorithm and sends each its part */
    struct coll_exec *cx;     /* on a network: its schedule running (coll_exec.c), or NULL */
    uint8_t cx_none;          /* on a network: no schedule, a member never enters (coll_exec.c) */
    rt_time_ps tc, max_begin; /* the last entry (when known), the latest entry seen here */
    uint32_t own, ports_in, dones; /* members replayed here; ports and results received */
    uint32_t coord;                /* the coordinator's process */
    uint8_t tc_known;
    rt_time_ps pt;                 /* the order its reading of the ports is taken in (>= tc; engine_remote.c) */
};

/* A rank's operations in flight, keyed by event index: open addressing with linear probing and
 * backward-shift deletion (no tombstones), 16-byte slots, a multiplicative hash of the index. The
 * replay looks one up two to four times per message, so this replaces the general 128-bit-key
 * map (rt__map) on that path. */
#define PT_EMPTY UINT64_MAX /* no event index reaches it */
struct ptab_slot {
    uint64_t key, val;
};
struct ptab {
    struct ptab_slot *slot;
    uint32_t cap, count, shift; /* cap = 2^(64 - shift), or 0 */
};

/* The model's per-message times for one message size. The ops are pure functions of the
 * parameters and the size, and a trace has few distinct sizes, so each is computed once per size
 * instead of two to six times per message (each a double evaluation with a rounding). */
#define MEMO_SLOTS 16
struct size_memo {
    rt_bytes m;
    rt_time_ps o_send, o_recv, gap, wire, hold, handshake;
    uint8_t valid;
};

struct rank {
    const struct rt_event *ev;
    const struct rt__row *row; /* its events' payloads (rt__row_payload_of) */
    uint64_t nev, cursor;
    rt_time_ps clock, tx_free, rx_free, queued_at;
    rt_time_ps fork_pred; /* predicted time of its open thread team's fork (RT_EV_FORK) */
    rt_time_ns last_meas;  /* the measured time of its last event, less the time outside MPI calls
                            * that was not the program's (the tracer's; RT_COMPUTE_CPU: and not run) */
    const struct rt__cpu_step *cpu; /* its row's steps of that time (NULL: none to take out) */
    uint64_t ncpu, cpu_k;  /* ... their count, and how many of them lie at or before last_meas's event */
    int cpu_lost;          /* RT_COMPUTE_CPU: the time not run is taken out too */
    int depth;      /* MPI call nesting */
    int call_ops;   /* the current MPI call moves data or synchronises */
    uint32_t *waits; /* blocking sends the current call's Leave waits for */
    uint32_t nwaits, capwaits;
    struct ptab pending; /* event index -> message id, or COLL_BIT | comm rank << 32 | collective id */
    /* the measured window (retime/window.h): the next of its two events to time (UINT64_MAX:
     * none), both events, and their predicted times */
    uint64_t win_next, win_begin, win_end;
    rt_time_ps win_t0, win_t1;
    rt_time_ns win_m0, win_m1; /* ... and their measured times */
    uint8_t state;
    uint8_t more;     /* a streamed trace: its row has events still to read (engine_stream.c) */
    uint64_t avail;   /* its events read: [0, avail) (a streamed trace's safe ones are [kept, nev)) */
    uint64_t kept;    /* a streamed trace: the events before are given back */
    /* distributed replay */
    uint8_t held;     /* its ports were read by a collective that has not finished */
    uint8_t cnt_wait; /* on a network: queued again before a collective whose counts are asked for */
    uint32_t *incoll; /* the collectives it has entered whose reading of its ports is still to
                       * come (one, or several with non-blocking ones): engine_remote.c's bounds */
    uint32_t nincoll, capincoll;
    /* on a network: coll_exec.c's read-ahead cursor for the first communicator it was asked
     * about (cx_comm1 = comm + 1; 0: none yet), kept here since most traces have one; the
     * others' are in engine.cx_pos */
    uint32_t cx_comm1;
    uint64_t cx_pos, cx_cnt;
    uint32_t *rdvw;   /* its rendezvous sends whose receive has not been posted */
    uint32_t nrdvw, caprdvw;
    /* distributed, on a network: the collectives whose part it runs now (coll_exec.c), each
     * collective id | member << 32, whose next messages engine_remote.c bounds (rt__cx_bound) */
    uint64_t *cxs;
    uint32_t ncx, capcx;
};

/* What one process of a distributed replay tells another (struct rt_replay_part.exchange; swapped
 * by engine_dist.c as blobs of this size).
 * Fields by kind:
 *   FX_RPOST    a receive was posted: comm tag src dst, t1 post time, ev1 post event, ev2 receive event, bytes
 *   FX_ARRIVE   a message reaches its receiver's port at t1: comm tag src dst n bytes flags,
 *               ev1 send event, ev2 origin event, i origin rank, id the sender process's message
 *   FX_DELIVERED  rendezvous delivered at t1: id the sender process's message
 *   FX_CPOST    collective entry: comm, n instance, i member, src its rank, t1 entry, t2 its measured
 *               entry [ns], bytes sent,
 *               ev2 bytes received, ev1 COLL_BEGIN event, tag op, dst root, flags vector
 *   FX_CTC      the collective's last entry t1 (comm, n)
 *   FX_CPORTS   member i's ports t1 (send) t2 (receive) at that time (comm, n)
 *   FX_CDONE    member i's result: t1 done, t2 t3 ports, src origin member, ev1 its COLL_BEGIN, tag the
 *               member whose measured entry binds it, ev2 that one's COLL_BEGIN (comm, n)
 *   FX_BOUND    rank src's bounds at the end of a round: t1 earliest grant, t2 earliest post (in
 *               order), t3, t4 the same in time
 *   FX_SENDS    before the first round: rank src sends to rank dst
 *   FX_FLOW     on a network, to every process: a message's flow starts at t1 (engine_net.c): comm tag
 *               src dst n bytes flags, ev1 send event, ev2 origin event, i origin rank, id the sender
 *               process's message, t2 its latency part, t3 its bytes' time, t4 its second key; a
 *               collective's message (flags M_COLL): comm, ev1 its instance, n its place in the
 *               schedule, ev2 the member its timing goes back to
 *   FX_CCOUNT   on a network, to a process that makes the instance's schedule (coll_counts.c): member
 *               i (rank src) of instance n on comm calls it at event ev1 (op tag, root dst, flags how:
 *               RT__CALL_NONE, it makes fewer calls), bytes sent, ev2 received, id its --scale-bytes
 *               factor's bits, t2 its measured entry
 *   FX_CCREQ    on a network: the counts of the sender's members of instances n .. n + i - 1 on comm
 *   FX_CXRECV   on a network: the receiver of message tag of instance n on comm (a rendezvous) is in its
 *               round since t1, its timing going back to member i through message id (coll_exec.c)
 *   FX_CXDONE   on a network: message tag of instance n on comm (a rendezvous) was delivered at t1 */
enum { FX_RPOST = 1, FX_ARRIVE, FX_DELIVERED, FX_CPOST, FX_CTC, FX_CPORTS, FX_CDONE, FX_BOUND, FX_SENDS, FX_FLOW,
       FX_CCOUNT, FX_CXRECV, FX_CXDONE, FX_CCREQ, FX_KINDS };
struct fx {
    uint32_t kind, comm, tag, src, dst, i, flags, reg; /* reg: the MPI call's region + 1 (errors) */
    uint64_t n, ev1, ev2, bytes, id;
    rt_time_ps t1, t2, t3, t4;
    rt_time_ps pt; /* the sender's order when it made the record (engine.cur_pt) */
};
#define RS 4 /* values per rank in engine.remote_state */

/* A flow granted at t, started with the others of its time in (k1, k2) order (engine_net.c):
 * the message @p ref, its latency part @p wire and its bytes' time @p bytes_ps. */
struct nstart {
    rt_time_ps t;
    uint64_t k1, k2;
    rt_time_ps wire, bytes_ps;
    uint32_t ref;
};

/* A FIFO of queue entries in order (push_lane): a ring of cap (a power of two) entries from head. */
struct lane {
    struct qent *q;
    uint32_t head, n, cap;
};

struct engine {
    const rt_trace *t;
    rt_trace *stream;       /* t when streamed (rt_trace_streamed): read as the replay goes, else NULL */
    rt_time_ns first;       /* the earliest rank's start [ns] (set up with the ranks) */
    const struct rt_replay_options *o;
    const struct rt_replay_observer *obs;
    uint8_t deps, events; /* obs wants the events' edges (on_dep), the events (on_event) */
    uint8_t noisy;        /* rt_replay_options_noisy(o) */
    uint8_t in_order;     /* o->injection == RT_INJECT_IN_ORDER (net_ready; the crossbar's ports always are) */
    rt_error *err;
    struct rank *ranks;
    uint32_t nranks;
    struct qent *heap;      /* the queue (see push): a binary heap ... */
    size_t nheap, capheap;
    struct qent front;      /* ... and, when has_front, an entry below all of the heap's ... */
    uint8_t has_front;
    struct lane lane;       /* ... and a FIFO of arrivals pushed in order (push_lane) */
    struct qent *arr;       /* a network's arrivals of one advance (engine_net.c) */
    uint32_t narr, caparr;
    rt_time_ps wire_min;   /* the least wire time of any message: at least 1 ps (see on_ready) */
    struct msg *msgs;
    uint32_t nmsgs, capmsgs, freemsg;
    uint32_t last_post;    /* the message the last post_message made or matched */
    struct chan *chans;
    uint32_t nchans, capchans;
    uint32_t *chan_slot;   /* index into chans or UINT32_MAX (see chan_index) */
    uint32_t chan_cap, chan_shift; /* chan_cap = 2^(64 - chan_shift), or 0 */
    struct rt__map coll_of;  /* (comm, instance) -> index into colls */
    struct rt__map coll_seq; /* (rank, comm) -> instances seen */
    struct coll *colls;
    uint32_t ncolls, capcolls, freecoll;
    struct rt__map comm_rank; /* (comm, row) -> comm rank; (comm, UINT64_MAX): comm's entries are in */
    uint32_t comm_checked;    /* the last communicator found in comm_rank, + 1 (0: none) */
    struct rt__map cx_pos;    /* on a network, for a row's communicators after its first (rank.cx_comm1):
                               * (row, comm) -> where coll_exec.c reads ahead next;
                               * (row, comm | 2^40) -> the collectives on comm it passed */
    uint64_t coll_bytes, coll_bytes_peak; /* per-member arrays of the collectives in flight */
    struct rt_replay_result *res;
    struct rt__os_ctx os;                /* OS noise, when nsrc > 0 */
    struct rt__detour_cursor *cursors;   /* nsrc per rank */
    unsigned nsrc;
    struct rt__burst_state burst;        /* bursty traffic, when burst.chain is set */
    uint64_t done, next_progress, total; /* events replayed, when to report next, in all */
    struct size_memo memo[MEMO_SLOTS];   /* direct-mapped by size; zeroed = empty */
    struct rt__netrun *net;              /* options.network's traffic, or NULL */
    rt_time_ps net_at;                   /* the network's next flow end (INT64_MAX: none; engine_net.c) */
    rt_time_ps bg_at;                    /* its background traffic's next messages (INT64_MAX: none) */
    struct nstart *pend;                 /* flows granted, not started yet: a heap (engine_net.c) */
    uint32_t npend, cappend;
    uint32_t ranks_done;                 /* ranks that have stepped their last event ... */
    rt_time_ps last_finish;              /* ... and the latest of their clocks then */
    struct net_part *np;                 /* distributed, on a network: the flows of every process (engine_net.c) */
    struct cx_far *cxfar;                /* distributed, on a network: members' counts (coll_counts.c) */
    struct coll_exec *cx_spare;          /* the last schedule ended, its room kept for the next (coll_exec.c) */
    rt_time_ps net_end;                  /* distributed: when background traffic stops (INT64_MAX: not yet known) */
    uint64_t capcont;                    /* room in res->contention */
    uint64_t capcpred, capcbind;         /* room in res->coll_pred and res->coll_binds */
    struct rt__map cx_names;             /* distributed, record_contention: (instance, place) -> its
                                          * number here (res->coll_names; rt__eng_coll_name) */
    uint64_t capcnames;                  /* room in res->coll_names */
    rt_time_ps wire0;                    /* the model's zero-byte wire time */
    int failed;
    /* distributed replay (o->part) */
    const struct rt_replay_part *part;
    rt_time_ps cur_pt;              /* the order of what is being taken or applied (see rt__eng_push_past) */
    uint32_t lo, hi;                /* the ranks replayed here */
    struct remote *rm;              /* engine_remote.c's tables for the rounds */
    uint32_t hint_rank, hint_region; /* the MPI call of another process's event hint_ev, from its record */
    uint64_t hint_ev;
    int64_t *remote_state;          /* per rank, for the diagnosis: state + 1, cursor, call region + 1,
                                     * the rank it waits for + 1 (RS values) */
};


/* engine.c: the serial replay, the diagnosis and the driver */
int rt__eng_oom(struct engine *E); /* sets the out-of-memory error once; returns E->failed */
int rt__eng_chan_grow(struct engine *E); /* doubles the channels' table; -1 out of memory */
uint32_t rt__eng_call_region(const struct engine *E, uint32_t r, uint64_t j); /* the region of event j's MPI call */
/* @p m bytes of event @p j of rank @p r on communicator @p comm as the replay sizes them: times
 * --scale-bytes' factor for the call (retime/scale.h); UINT64_MAX with E->failed set: too large. */
rt_bytes rt__eng_scaled(struct engine *E, uint32_t r, uint64_t j, uint32_t comm, rt_bytes m);
/* The --scale-bytes factor of the call that holds event @p j of rank @p r on communicator @p comm. */
double rt__eng_factor(const struct engine *E, uint32_t r, uint64_t j, uint32_t comm);
int rt__eng_schedule_if_ready(struct engine *E, uint32_t id);
int rt__eng_recv_side(struct engine *E, uint32_t id, uint64_t j, uint64_t post_ev, rt_bytes bytes, rt_time_ps t);
int rt__eng_coll_record(struct engine *E, uint32_t comm, uint64_t seq, uint32_t op, uint32_t root, uint32_t first_rank,
                        uint64_t first_ev, uint32_t *idp);
/* How a member called a collective (rt__eng_coll_enter's @p how; FX_CPOST's flags): a vector
 * variant (its counts may differ), MPI_IN_PLACE (its counts leave its own block out). */
#define RT__CALL_VECTOR 1
#define RT__CALL_IN_PLACE 2
#define RT__CALL_NONE 4 /* (FX_CCOUNT only: the member makes fewer calls on the communicator) */
int rt__eng_coll_enter(struct engine *E, uint32_t id, uint32_t me, uint32_t row, uint64_t ev, uint32_t op,
                       uint32_t root, rt_time_ps begin, rt_time_ns mentry, rt_bytes sent, rt_bytes recv, double scale,
                       int how); /* scale: the member's --scale-bytes factor (1: none) */
int rt__eng_coll_finish(struct engine *E, uint32_t id);
void rt__eng_take(struct engine *E, struct qent q); /* acts on a popped queue entry */
uint32_t rt__eng_waits_for(const struct engine *E, uint32_t r);

/* engine_remote.c: the engine's side of a distributed replay. Its set-up (an error when the part
 * does not split the ranks; out of memory leaves rt__eng_remote_ready false) and tables; a record
 * queued for the process of @p rank; rendezvous sends waiting for their far receive; a message's
 * hold for its far receiver released; a receive whose sender is elsewhere; the rounds; after them,
 * every rank's state for the diagnosis, one error for all, the summed results. */
int rt__eng_remote_setup(struct engine *E);
int rt__eng_remote_ready(const struct engine *E);
void rt__eng_remote_free(struct engine *E);
int rt__eng_fx_send(struct engine *E, uint32_t rank, const struct fx *f);
int rt__eng_fx_send_all(struct engine *E, const struct fx *f); /* to every other process */
int rt__eng_fx_send_proc(struct engine *E, uint32_t proc, const struct fx *f); /* to process @p proc */
/* A message from another process reaches its receiver here at @p t (FX_ARRIVE's fields). */
int rt__eng_half_arrives(struct engine *E, const struct fx *f, rt_time_ps t);
int rt__eng_rdv_waiting_add(struct engine *E, uint32_t r, uint32_t id);
void rt__eng_rdv_waiting_del(struct engine *E, uint32_t r, uint32_t id);
int rt__eng_incoll_add(struct rank *R, uint32_t id); /* rank.incoll: -1 out of memory */
void rt__eng_incoll_del(struct rank *R, uint32_t id);
void rt__eng_vrecv_release(struct engine *E, uint32_t id);
int rt__eng_post_remote_recv(struct engine *E, uint32_t r, uint64_t j, uint64_t post_ev, const struct rt_event *e,
                             const struct rt_event_payload *p, rt_time_ps t);
int rt__eng_run_rounds(struct engine *E);
int rt__eng_share_states(struct engine *E);
int rt__eng_agree(struct engine *E, int rc);
int rt__eng_share_results(struct engine *E);
int rt__eng_reduce(struct engine *E, int64_t *v, size_t n, int sum); /* element-wise min (sum: sum) over the processes */
/* engine.c for the other files: the CPU with its OS noise, the model's times of a size, a
 * message's network noise and bursts under @p key (1 in a burst, 0 not, -1 out of memory), the
 * names of an event's MPI call and of a communicator (for error lines) */
rt_time_ps rt__eng_cpu(struct engine *E, uint32_t r, rt_time_ps t, rt_time_ps work);
const struct size_memo *rt__eng_times(struct engine *E, rt_bytes m);
int rt__eng_net_timing(struct engine *E, uint32_t src, rt_time_ps inject, rt_bytes m, uint64_t key, rt_time_ps *wire,
                       rt_time_ps *gap, rt_time_ps *hold);
const char *rt__eng_call_name(const struct engine *E, uint32_t r, uint64_t j);
const char *rt__eng_comm_name(const struct engine *E, uint32_t c);
/* engine_coll.c: collectives in the engine. A member's entry at event @p j (its payload @p p) at
 * @p t; a queued instance's start (Q_COLL); an instance freed when no member holds it; the bytes
 * a member receives; the members' blocks (an error naming two members that disagree) */
int rt__eng_post_collective(struct engine *E, uint32_t r, uint64_t j, const struct rt_event *e,
                            const struct rt_event_payload *p, rt_time_ps t);
int rt__eng_coll_ports(struct engine *E, uint32_t id);
void rt__eng_coll_release(struct engine *E, uint32_t id);
void rt__eng_coll_unref(struct engine *E, uint32_t id); /* one hold less; released at none */
rt_bytes rt__eng_coll_received(const struct rank *R, uint64_t j);
int rt__eng_coll_blocks(struct engine *E, uint32_t id);
/* engine_net.c: the engine's side of a routed network. Its set-up and teardown; a granted
 * message's flow, held until the flows of its time start together; the next of the network's
 * operations taken (rt__eng_net_step, in the order of net_next). */
int rt__eng_net_setup(struct engine *E);
void rt__eng_net_free(struct engine *E);
int rt__eng_net_start(struct engine *E, uint32_t id, rt_time_ps now, rt_time_ps wire, rt_time_ps bytes_ps);
int rt__eng_net_step(struct engine *E);
/* Distributed: a flow started by another process (FX_FLOW); the network's operations that nothing
 * not yet known can precede, those before the horizon @p H (no rank grants before it: flows
 * that end at or before H, background traffic due then, flows granted before H). */
int rt__eng_net_record(struct engine *E, uint32_t from, const struct fx *f);
int rt__eng_net_catch_up(struct engine *E, rt_time_ps H);
uint32_t rt__eng_net_inflight(const struct engine *E, uint32_t r); /* flows known that end at rank r (here) */
/* The least time from a flow's start or end to its message's arrival (at least 1 ps): the
 * latency part of the wire time, or less on one node (--shm-alpha); 1 ps with network noise or
 * bursts, which change it per message. The distributed replay's look-ahead on a network. */
rt_time_ps rt__eng_net_lookahead(const struct engine *E);
/* Distributed, record_contention: the number this process gives a collective's message, named by
 * its instance and place (res->coll_names), made on first sight; UINT64_MAX out of memory. */
uint64_t rt__eng_coll_name(struct engine *E, uint64_t instance, uint64_t place);
/* The network's operations of one time t come in this order around the queue's entries of t
 * (which are between NET_BG and NET_START): the flows that end, background traffic, then the
 * flows of the messages granted at t. */
enum { NET_DONE, NET_BG, NET_START };
/* The time of the network's next operation (INT64_MAX: none) and its kind in *@p cls. */
static inline rt_time_ps net_next(const struct engine *E, int *cls)
{
    rt_time_ps t = E->net_at;
    *cls = NET_DONE;
    if (E->bg_at < t) {
        t = E->bg_at;
        *cls = NET_BG;
    }
    if (E->npend && E->pend[0].t < t) {
        t = E->pend[0].t;
        *cls = NET_START;
    }
    return t;
}
/* engine_diag.c: the one error line of a replay whose ranks did not all finish (RT_OK if they did) */
int rt__eng_diagnose(struct engine *E);
/* coll_exec.c: a collective's schedule run message by message on the network */
struct coll_exec;
int rt__cx_enter(struct engine *E, uint32_t id, uint32_t me); /* member me has entered */
/* A streamed trace: row @p row has entered its instance @p seq on @p comm at its event @p j; the
 * look-ahead into its events for later instances starts past it (its earlier ones may be given
 * back). 0, or an error (set in E). */
int rt__cx_passed(struct engine *E, uint32_t row, uint32_t comm, uint64_t j, uint64_t seq);
int rt__cx_sent(struct engine *E, uint32_t msg, rt_time_ps t); /* an eager message's sender is done */
int rt__cx_arrived(struct engine *E, uint32_t msg, rt_time_ps t); /* a message is delivered */
int rt__cx_member_done(const struct coll_exec *x, uint32_t me);
uint64_t rt__cx_serial(const struct coll_exec *x, uint32_t k);      /* message k's coll_pred number */
/* the number member @p me's leaving of collective @p cid goes back to (under mpirun: the one this
 * process gives it, rt__eng_coll_name); UINT64_MAX: its own entry (or out of memory: E->failed) */
uint64_t rt__cx_member_bind(struct engine *E, uint32_t cid, uint32_t me);
uint32_t rt__cx_pred(const struct coll_exec *x, uint32_t k); /* message k's sending went back to (UINT32_MAX: none) */
/* Distributed, on a network (coll_exec.c): records from another process (FX_CXRECV, FX_CXDONE);
 * a message of a collective from another process reaches its receiver here (FX_FLOW's fields);
 * the member its timing goes back to, for its flow's record; the counts of collective @p cid's
 * members go to process @p proc before one of its messages does (once; coll_counts.c). */
int rt__cx_apply(struct engine *E, uint32_t from, const struct fx *f);
int rt__cx_tell(struct engine *E, uint32_t cid, uint32_t proc);
int rt__cx_far_arrives(struct engine *E, const struct fx *f, rt_time_ps t);
uint32_t rt__cx_origin(const struct coll_exec *x, uint32_t k);
/* The earliest time rank @p row here could send a message of a collective whose part it runs
 * that is not queued yet (INT64_MIN: any time), when no message can arrive at it before
 * @p arrive: a round's next messages leave when its last message completes. */
rt_time_ps rt__cx_bound(const struct engine *E, uint32_t row, rt_time_ps arrive);
/* coll_counts.c, distributed on a network: every member's counts of a collective instance, on
 * demand. A member's call as its process reads it: */
struct rt__cx_count {
    uint64_t ev; /* its COLL_BEGIN */
    rt_bytes sent, recv;
    double scale;
    rt_time_ns mentry;
    uint32_t row, op, root, how; /* how: RT__CALL_* */
};
int rt__cxc_setup(struct engine *E); /* indexes the calls of the ranks here */
void rt__cxc_free(struct engine *E);
/* Member @p i (trace row @p row) of instance @p seq on @p comm: 1 with *@p k when its counts are
 * here (RT__CALL_NONE in how: it never makes that call), 0 when not (yet). */
int rt__cxc_get(struct engine *E, uint32_t comm, uint32_t i, uint32_t row, uint64_t seq, struct rt__cx_count *k);
int rt__cxc_send(struct engine *E, uint32_t proc, uint32_t comm, uint64_t seq, uint32_t i,
                 const struct rt__cx_count *k); /* as FX_CCOUNT to process @p proc */
int rt__cxc_put(struct engine *E, uint32_t from, const struct fx *f);    /* FX_CCOUNT received */
int rt__cxc_answer(struct engine *E, uint32_t from, const struct fx *f); /* FX_CCREQ received */
/* Whether rank @p r must wait before event @p j (an MPI call's Enter or a collective's start) for
 * the counts of a collective it starts there, which are asked for: 1 yes, 0 no, -1 failed (E). */
int rt__cxc_wait(struct engine *E, uint32_t r, uint64_t j);
void rt__cxc_consumed(struct engine *E, uint32_t comm, uint64_t seq); /* its schedule is made here */
/* engine_coll.c: a row's rank in communicator @p c (RT_NONE: not a member; E->failed on failure) */
uint32_t rt__eng_comm_rank(struct engine *E, uint32_t c, uint32_t row);
/* Appends to @p buf the round and message member @p me of collective @p id waits for. */
void rt__cx_describe_wait(const struct engine *E, uint32_t id, uint32_t me, char *buf, size_t n);
void rt__cx_free(struct coll_exec *x);
/* A collective's schedule is over: its room is kept for the next one made (or freed). */
void rt__cx_release(struct engine *E, struct coll_exec *x);

/* Whether this process replays rank @p r (every rank in a replay by one process). */
static inline int owned(const struct engine *E, uint32_t r) { return r >= E->lo && r < E->hi; }

/* The table of operations in flight (struct ptab). */
static inline size_t pt_home(const struct ptab *p, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> p->shift);
}

static inline uint64_t *pt_get(const struct ptab *p, uint64_t key)
{
    if (!p->count)
        return NULL;
    size_t mask = p->cap - 1;
    for (size_t i = pt_home(p, key);; i = (i + 1) & mask) {
        if (p->slot[i].key == key)
            return &p->slot[i].val;
        if (p->slot[i].key == PT_EMPTY)
            return NULL;
    }
}

/* Doubles the table (16 slots at first); -1 when out of memory. */
static inline int pt_grow(struct ptab *p)
{
    uint32_t ncap = p->cap ? p->cap * 2 : 16, nshift = p->cap ? p->shift - 1 : 60;
    if (ncap < p->cap)
        return -1;
    struct ptab_slot *ns = malloc((size_t)ncap * sizeof *ns);
    if (!ns)
        return -1;
    for (uint32_t i = 0; i < ncap; i++)
        ns[i].key = PT_EMPTY;
    struct ptab q = {ns, ncap, 0, nshift};
    for (uint32_t i = 0; i < p->cap; i++) {
        if (p->slot[i].key == PT_EMPTY)
            continue;
        size_t j = pt_home(&q, p->slot[i].key);
        while (ns[j].key != PT_EMPTY)
            j = (j + 1) & (ncap - 1);
        ns[j] = p->slot[i];
    }
    free(p->slot);
    p->slot = ns;
    p->cap = ncap;
    p->shift = nshift;
    return 0;
}

/* Inserts or overwrites, in one probe; -1 when out of memory. */
static inline int pt_put(struct ptab *p, uint64_t key, uint64_t val)
{
    if ((p->count + 1) * 4 > p->cap * 3 && pt_grow(p))
        return -1;
    size_t mask = p->cap - 1, i = pt_home(p, key);
    for (; p->slot[i].key != PT_EMPTY; i = (i + 1) & mask)
        if (p->slot[i].key == key) {
            p->slot[i].val = val;
            return 0;
        }
    p->slot[i] = (struct ptab_slot){key, val};
    p->count++;
    return 0;
}

/* Removes the entry whose value @p v is (from pt_get, the table unchanged since); the entries
 * after it in its run move back so that no lookup ever meets a hole before its key. */
static inline void pt_remove(struct ptab *p, uint64_t *v)
{
    size_t mask = p->cap - 1;
    size_t i = (size_t)((struct ptab_slot *)((char *)v - offsetof(struct ptab_slot, val)) - p->slot);
    for (size_t j = (i + 1) & mask; p->slot[j].key != PT_EMPTY; j = (j + 1) & mask) {
        size_t h = pt_home(p, p->slot[j].key);
        /* The entry at j may fill the hole at i unless its home lies cyclically in (i, j]. */
        if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
            continue;
        p->slot[i] = p->slot[j];
        i = j;
    }
    p->slot[i].key = PT_EMPTY;
    p->count--;
}

/* Looks up what event @p j's completion refers to; RT_NONE-like UINT64_MAX when absent. */
static inline uint64_t pending_of(struct rank *R, uint64_t j)
{
    uint64_t *v = pt_get(&R->pending, j);
    return v ? *v : UINT64_MAX;
}

/* The queue: a binary heap in (t, type, key) order (struct qent), and apart from it the least
 * entry when that was pushed below the heap's top. Many entries come due before anything queued
 * (a delivery to a free receive port wakes its receiver at once): in the heap each would sift up
 * to the root only to be popped and sifted down next; kept apart, it costs one comparison. Pops
 * come in the same total order, so the distributed replay's rounds see the same entries. */
RT_HOT_INLINE int qless(const struct qent *a, const struct qent *b)
{
    return a->t < b->t || (a->t == b->t && a->tk < b->tk);
}

/* The entry of type @p type, key @p key (below 2^61: see push) at time @p t for @p id. */
static inline struct qent qent_make(rt_time_ps t, uint8_t type, uint32_t id, uint64_t key)
{
    return (struct qent){t, (uint64_t)type << 61 | (key & ((1ull << 61) - 1)), id};
}

/* Entry @p i of lane @p L from its first. */
static inline struct qent *lane_at(const struct lane *L, uint32_t i)
{
    return &L->q[(L->head + i) & (L->cap - 1)];
}

static inline size_t qcount(const struct engine *E)
{
    return E->nheap + E->has_front + E->lane.n;
}

/* The least entry of the heap and front; they must not both be empty. */
static inline const struct qent *qtop_heap(const struct engine *E)
{
    return E->has_front ? &E->front : &E->heap[0];
}

/* Whether the lane's first entry is the least of the queue. */
RT_HOT_INLINE int lane_least(const struct engine *E)
{
    const struct lane *L = &E->lane;
    return L->n && (!(E->nheap + E->has_front) || qless(&L->q[L->head], qtop_heap(E)));
}

/* The least entry; the queue must not be empty. */
static inline const struct qent *qtop(const struct engine *E)
{
    return lane_least(E) ? &E->lane.q[E->lane.head] : qtop_heap(E);
}

/* Entry @p i of the queue in no particular order, i < qcount. */
static inline const struct qent *qat(const struct engine *E, size_t i)
{
    const struct lane *L = &E->lane;
    if (i < L->n)
        return lane_at(L, (uint32_t)i);
    i -= L->n;
    return i < E->nheap ? &E->heap[i] : &E->front;
}

/* engine_remote.c: an entry made below the order being taken (the distributed replay's second heap). */
int rt__eng_push_past(struct engine *E, rt_time_ps t, uint8_t type, uint32_t id, uint64_t key);
int rt__eng_lane_grow(struct engine *E);
/* Keys stay below 2^61: ranks and communicators below 2^21, event indices below 2^40. */
static inline int push(struct engine *E, rt_time_ps t, uint8_t type, uint32_t id, uint64_t key)
{
    if (RT_UNLIKELY(t < E->cur_pt)) /* (distributed only: one process keeps cur_pt at INT64_MIN) */
        return rt__eng_push_past(E, t, type, id, key);
    struct qent q = qent_make(t, type, id, key);
    if (E->has_front) {
        if (qless(&q, &E->front)) { /* the new entry goes in front, the old front into the heap */
            struct qent f = E->front;
            E->front = q;
            q = f;
        }
    } else if (!E->nheap || qless(&q, &E->heap[0])) {
        E->front = q;
        E->has_front = 1;
        return 0;
    }
    if (E->nheap == E->capheap) {
        size_t ncap = E->capheap ? E->capheap * 2 : 256;
        struct qent *n = realloc(E->heap, ncap * sizeof *n);
        if (!n)
            return rt__eng_oom(E);
        E->heap = n;
        E->capheap = ncap;
    }
    size_t i = E->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        struct qent *pq = &E->heap[p];
        if (!qless(&q, pq))
            break;
        E->heap[i] = *pq;
        i = p;
    }
    E->heap[i] = q;
    return 0;
}

/* push for arrivals, which mostly come in order: on a network flows end in time order and their
 * latency is mostly the same; on the crossbar most messages have the same wire time. One after
 * the lane's last entry goes to its end and is taken from there without a sift (a pop compares
 * the lane's first entry with the heap's least); any other goes to the heap. The order taken is
 * push's. (A second lane for the readies was tried: no gain.) */
static inline int push_lane(struct engine *E, struct qent q)
{
    struct lane *L = &E->lane;
    if (RT_UNLIKELY(q.t < E->cur_pt) || (L->n && !qless(lane_at(L, L->n - 1), &q)))
        return push(E, q.t, QTYPE(&q), q.id, q.tk);
    if (RT_UNLIKELY(L->n == L->cap) && rt__eng_lane_grow(E))
        return E->failed;
    *lane_at(L, L->n++) = q;
    return 0;
}

/* Takes the least entry off the queue; the queue must not be empty. */
RT_HOT_INLINE struct qent pop(struct engine *E)
{
    if (lane_least(E)) {
        struct lane *L = &E->lane;
        struct qent q = L->q[L->head];
        L->head = (L->head + 1) & (L->cap - 1);
        L->n--;
        return q;
    }
    if (E->has_front) {
        E->has_front = 0;
        return E->front;
    }
    struct qent top = E->heap[0];
    struct qent last = E->heap[--E->nheap];
    size_t i = 0, n = E->nheap;
    if (!n)
        return top;
    /* The hole at the root goes down along the lesser children to a leaf, and the last entry
     * rises from there (Floyd): it belongs near the bottom, so this takes about one comparison
     * per level instead of two. */
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (RT_LIKELY(c + 1 < n)) { /* which child is less is a coin toss: no branch on it */
            const struct qent *a = &E->heap[c + 1], *b = &E->heap[c];
            c += (size_t)((a->t < b->t) | ((a->t == b->t) & (a->tk < b->tk)));
        }
        E->heap[i] = E->heap[c];
    }
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!qless(&last, &E->heap[p]))
            break;
        E->heap[i] = E->heap[p];
        i = p;
    }
    E->heap[i] = last;
    return top;
}

/* A blocked rank may go on from time @p t. */
RT_HOT_INLINE int wake(struct engine *E, uint32_t r, rt_time_ps t)
{
    struct rank *R = &E->ranks[r];
    if (R->state == R_BLOCKED || (R->state == R_QUEUED && t < R->queued_at)) {
        R->state = R_QUEUED;
        R->queued_at = t;
        return push(E, t, Q_RESUME, r, r);
    }
    return 0;
}

/* Messages, from a pool with a free list, each freed when no side holds it (refs); channels. */
static inline uint32_t msg_new(struct engine *E)
{
    uint32_t id;
    if (E->freemsg != UINT32_MAX) {
        id = E->freemsg;
        E->freemsg = E->msgs[id].next;
    } else {
        if (rt__grow((void **)&E->msgs, &E->capmsgs, sizeof *E->msgs, E->nmsgs + 1)) {
            rt__eng_oom(E);
            return UINT32_MAX;
        }
        id = E->nmsgs++;
    }
    /* a compound literal, not memset: the compiler writes the few words itself */
    E->msgs[id] = (struct msg){.send_post = NEVER, .recv_post = NEVER, .send_done = NEVER, .recv_done = NEVER,
                               .next = UINT32_MAX, .refs = 2};
    return id;
}

/* The channel a message travels on. */
static inline void msg_label(struct msg *m, uint32_t comm, uint32_t tag, uint32_t src, uint32_t dst)
{
    m->src = src;
    m->dst = dst;
    m->tag = tag;
    m->comm = comm;
}

static inline void msg_release(struct engine *E, uint32_t id)
{
    struct msg *m = &E->msgs[id];
    if (--m->refs == 0) {
        m->next = E->freemsg;
        E->freemsg = id;
    }
}

/* Where channel (comm, tag, src, dst) is looked for first in E->chan_slot. */
static inline size_t chan_home(const struct engine *E, uint32_t comm, uint32_t tag, uint32_t src, uint32_t dst)
{
    uint64_t h = (((uint64_t)comm << 32 | tag) * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)src << 32 | dst);
    return (size_t)((h * 0xBF58476D1CE4E5B9ull) >> E->chan_shift);
}

/* The index of channel (comm, tag, src, dst), made on first use; UINT32_MAX out of memory.
 * Every message looks its channel up, so this is a table of its own (open addressing, linear
 * probing, a multiplicative hash, keys read from the channels) rather than the general rt__map
 * with its 128-bit keys and splitmix hash. */
RT_HOT_INLINE uint32_t chan_index(struct engine *E, uint32_t comm, uint32_t tag, uint32_t src, uint32_t dst)
{
    if ((E->nchans + 1) * 4 > E->chan_cap * 3 && rt__eng_chan_grow(E)) {
        rt__eng_oom(E);
        return UINT32_MAX;
    }
    size_t mask = E->chan_cap - 1, i = chan_home(E, comm, tag, src, dst);
    for (; E->chan_slot[i] != UINT32_MAX; i = (i + 1) & mask) {
        const struct chan *c = &E->chans[E->chan_slot[i]];
        if (c->src == src && c->dst == dst && c->tag == tag && c->comm == comm)
            return E->chan_slot[i];
    }
    if (rt__grow((void **)&E->chans, &E->capchans, sizeof *E->chans, E->nchans + 1)) {
        rt__eng_oom(E);
        return UINT32_MAX;
    }
    E->chans[E->nchans] = (struct chan){comm, tag, src, dst, UINT32_MAX, UINT32_MAX, 0, 0, 0};
    E->chan_slot[i] = E->nchans;
    return E->nchans++;
}

/* A post of side @p mine in channel @p ci: the oldest unmatched post of the other side, or a
 * new message queued in the channel. UINT32_MAX out of memory. */
RT_HOT_INLINE uint32_t chan_match(struct engine *E, uint32_t ci, uint8_t mine, uint32_t comm, uint32_t tag, uint32_t src,
                           uint32_t dst)
{
    struct chan *c = &E->chans[ci];
    uint32_t id;
    if (c->head != UINT32_MAX && c->side != mine) {
        id = c->head;
        c->head = E->msgs[id].next;
        if (c->head == UINT32_MAX)
            c->tail = UINT32_MAX;
        E->msgs[id].next = UINT32_MAX;
        return id;
    }
    id = msg_new(E);
    if (id == UINT32_MAX)
        return id;
    c = &E->chans[ci];
    if (c->head == UINT32_MAX)
        c->head = id;
    else
        E->msgs[c->tail].next = id;
    c->tail = id;
    c->side = mine;
    msg_label(&E->msgs[id], comm, tag, src, dst);
    return id;
}

/* Collectives, and which process replays what. */
/* Collective @p c's instance as every process names it (struct rt_coll_msg_name.instance). */
static inline uint64_t coll_instance(const struct coll *c)
{
    return (uint64_t)(c->comm + 1) << 40 | (c->seq & ((1ull << 40) - 1));
}

/* Trace row of communicator rank @p i of collective @p c. */
static inline uint32_t member_row(const struct engine *E, const struct coll *c, uint32_t i)
{
    return c->members ? c->members[i] : c->first_rank;
}

/* The process that replays rank @p r. */
static inline uint32_t owner_of(const struct engine *E, uint32_t r)
{
    if (!E->part)
        return 0;
    uint32_t lo = 0, hi = E->part->nprocs; /* first_rank[lo] <= r < first_rank[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (E->part->first_rank[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Whether this process coordinates collective @p c (always in a replay by one process). */
static inline int coordinates(const struct engine *E, const struct coll *c)
{
    return c->coord == (E->part ? E->part->me : 0);
}

/* The network-noise key of message @p idx (its place in the algorithm's order) of collective @p c:
 * the same draw whether the instance is timed in one go (engine_coll.c) or run message by message
 * (coll_exec.c). */
#define DOMAIN_COLL 0x434f4c4cull /* "COLL" */
static inline uint64_t coll_noise_key(const struct coll *c, uint64_t idx)
{
    return rt_rng_stream(DOMAIN_COLL, (uint64_t)c->comm << 40 ^ c->seq, idx) | 1ull << 63;
}

static inline uint64_t coll_key(const struct coll *c)
{
    return (uint64_t)c->comm << 40 | (c->seq & ((1ull << 40) - 1));
}

/* engine_stream.c: a streamed trace's rank @p r (owned) reached the end of its events read so
 * far, or another rank's step looks ahead in them (a collective on a network, coll_exec.c):
 * gives back what it has passed and reads on (its ev, nev and more move). RT_OK or the error. */
int rt__eng_pull(struct engine *E, uint32_t r);
/* engine.c: the MPI call's Enter that holds event @p j of rank @p r, or UINT64_MAX (for messages
 * and collectives only: scans back, no further than the events a streamed trace still holds). */
uint64_t rt__eng_call_enter(const struct engine *E, uint32_t r, uint64_t j);
/* engine_stream.c: whether rank @p R holds the MPI call that its event @p j enters up to its
 * Leave (a call is entered once read whole: enter_call posts all it starts). */
int rt__eng_call_held(const struct rank *R, uint64_t j);
/* engine_stream.c: after the replay of a streamed trace: every row read to its end, the trace's
 * counts whole (rt__trace_stream_end), the replay's event count and the measured span's
 * [*first, *last]. RT_OK or the error. */
int rt__eng_stream_end(struct engine *E, rt_time_ns *first, rt_time_ns *last);
/* engine.c: whether events up to @p last [ns] from the earliest start E->first, scaled, fit the
 * replay's clock: RT_OK or the error (set in E). */
int rt__eng_span_check(struct engine *E, rt_time_ns last);

#endif
