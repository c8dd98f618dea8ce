/* SPDX-License-Identifier: MIT */
/*
 * Collectives re-timed as their point-to-point algorithms (collective.c). Independent of the
 * engine: the engine fills one struct rt__coll_member per communicator rank, copies the
 * members' ports in and out, and wakes each member at its own done time.
 */
#ifndef RETIME_COLLECTIVE_H
#define RETIME_COLLECTIVE_H

#include "retime/replay.h"

/** One member of a collective instance, indexed by its rank in the communicator. */
struct rt__coll_member {
    rt_time_ps begin;    /**< in: its clock at the call's Enter */
    rt_time_ps done;     /**< out: when its part of the algorithm completes */
    rt_time_ps tx_free;  /**< in/out: its send port is busy until then (INT64_MIN: free) */
    rt_time_ps rx_free;  /**< in/out: time of the last delivery at its receive port (INT64_MIN: none) */
    rt_bytes sent, recv; /**< in: the trace's counts (COLL_BEGIN.bytes, COLL_END.bytes) */
    uint8_t in_place;    /**< in: the call was MPI_IN_PLACE there (RT_EVF_IN_PLACE): its counts are the
                              in-place reading ((P-1)·b), which otherwise only the P·b reading's
                              failing tells apart */
    rt_bytes block;      /**< set by rt__coll_blocks: its block [B] */
    double scale;        /**< in: the factor on its block (--scale-bytes; the engine's, 1 by default) */
    uint32_t origin;     /**< out: the member whose entry bound the chain of messages that ends
                              at this member's done (itself when its own clock did) */
    rt_time_ns mentry;   /**< in: its measured entry (the trace's time of its COLL_BEGIN) */
    uint32_t mbind;      /**< out: the member whose measured entry binds this member's leave in the
                              measured run (rt__coll_measured_binders; itself when its own did) */
};

/**
 * Derives each member's block from the trace's byte counts (Score-P's conventions) and checks
 * that the members agree; for vector variants (@p vector) each member keeps its own block.
 * @param root  the root's communicator rank (0 for rootless operations)
 * @return RT_OK, or RT_EMISMATCH with *@p a (the reference member) and *@p b (a member that
 *         disagrees with it) set to communicator ranks; mem[*a].block is the expected block.
 */
int rt__coll_blocks(int op, uint32_t P, uint32_t root, int vector, struct rt__coll_member *mem, uint32_t *a,
                    uint32_t *b);

/**
 * Which member's measured entry binds each member's leave in the measured run (mem[i].mbind), from
 * the operation's data dependencies alone, whatever the algorithm: a member can leave only after
 * the members whose data it needs have entered, and of those the latest binds (ties: the member
 * itself, then the lowest rank). Barrier, allgather, alltoall, allreduce (and their v-variants,
 * reduce_scatter): every member needs every member. Bcast, scatter: the root. Reduce, gather: the
 * root needs every member, the others nobody. Scan: members 0..i. Others: every member.
 * The measured run's own times decide, not the model's replay (a measured critical path and its
 * waits name the member that was late in the trace). O(P).
 */
void rt__coll_measured_binders(int op, uint32_t P, uint32_t root, struct rt__coll_member *mem);
/** The same for member @p i alone, before every member has entered (a collective run message by
 *  message: a bcast's leaf may leave before another enters): O(1), or O(i) for a scan; members
 *  whose data @p i needs have entered. */
uint32_t rt__coll_measured_binder(int op, uint32_t P, uint32_t root, const struct rt__coll_member *mem, uint32_t i);

/** Noise on a collective's messages, supplied by the engine (NULL: none). */
struct rt__coll_noise {
    void *ud;
    /** When CPU work of @p work ps that member @p i may start at @p t is done (OS noise). */
    rt_time_ps (*cpu)(void *ud, uint32_t i, rt_time_ps t, rt_time_ps work);
    /** Adjusts the wire time, port gap and eager hold of message @p idx (in the algorithm's
     *  order) from member @p a to member @p b, injected at @p inject (network noise, bursts).
     *  Returns RT_OK or RT_ENOMEM. */
    int (*net)(void *ud, uint32_t a, uint32_t b, uint64_t idx, rt_time_ps inject, rt_bytes m, rt_time_ps *wire,
               rt_time_ps *gap, rt_time_ps *hold);
};

/**
 * The plan of an instance whose members' blocks are set (rt__coll_blocks): the rule set's
 * choice (NULL: retime's) unless @p override[op] names an algorithm.
 */
void rt__coll_plan_of(const rt_coll_rules *rules, const uint8_t *override, int op, int vector, uint32_t P,
                      const struct rt__coll_member *mem, struct rt_coll_plan *out);

/**
 * Runs the round-based schedule of @p plan over the members' blocks (coll_sim.c): sets every
 * mem[i].done and updates the members' ports.
 * @return RT_OK or RT_ENOMEM (scratch arrays of P entries)
 */
int rt__coll_run(const struct rt_coll_plan *plan, uint32_t P, uint32_t root, struct rt__coll_member *mem,
                 const struct rt_model *model, rt_bytes eager_limit, const struct rt__coll_noise *noise);

/** One message of a collective's schedule: in round @p round member @p a sends @p m bytes to
 *  member @p b (communicator ranks). Its place in the schedule is its noise key, as in
 *  rt__coll_run. */
struct rt__coll_msg {
    uint32_t round, a, b;
    rt_bytes m;
};

/** The messages of one collective instance, in the algorithm's order (rounds ascending). */
struct rt__coll_sched {
    struct rt__coll_msg *v;
    size_t n, cap;
    uint32_t rounds;
    int algo; /* the algorithm run */
};

/**
 * The schedule rt__coll_run times, recorded instead: the same plan over the members' blocks
 * (mem[i].block, set by rt__coll_blocks), its messages in the same order. The engine runs it
 * message by message on a routed network (engine/coll_exec.c). Empty for P <= 1. *@p out is zeroed
 * before its first use, or an earlier schedule whose room (v, cap) is used again.
 * @return RT_OK or RT_ENOMEM (*@p out empty then)
 */
int rt__coll_schedule(const struct rt_coll_plan *plan, uint32_t P, uint32_t root, struct rt__coll_member *mem,
                      struct rt__coll_sched *out);
void rt__coll_sched_free(struct rt__coll_sched *s);

/** Whether algorithm @p algo may be chosen for operation @p op (RT_ALGO_AUTO always may). */
int rt__coll_algo_applies(int op, int algo);

/** Checks a whole choice table; RT_EINVAL naming the operation and its valid algorithms. */
int rt__coll_algo_check(const uint8_t algo[RT_COLL_OTHER + 1], rt_error *err);

#endif
