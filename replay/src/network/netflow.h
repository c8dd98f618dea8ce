/* SPDX-License-Identifier: MIT */
/*
 * A flow-level network contention model (netflow.c): flows over routes of directed links share
 * the links' bandwidth max-min fairly (progressive filling, each flow also held to its own rate
 * limit), as in SimGrid's flow models. Rates are recomputed lazily and only for the flows
 * connected, through shared links, to those that started or ended since the last recomputation.
 *
 * Units: times in ps (rt_time_ps), sizes in bytes (double), rates and capacities in bytes per ps.
 * Not thread-safe; one object per simulation.
 */
#ifndef RETIME_NETFLOW_H
#define RETIME_NETFLOW_H

#include <stdint.h>

#include "retime/error.h"

struct rt__flownet;

/** What rt__flownet_advance hands back for each completed flow; valid during the callback only. */
struct rt__flow_done {
    uint64_t user;            /**< as given to rt__flownet_start */
    uint32_t id;              /**< the flow's id (reused after the callback) */
    uint32_t n;               /**< its route length */
    rt_time_ps start, finish; /**< finish is the t of the advance */
    rt_time_ps alone;         /**< max(1, ceil(bytes / max_rate)): its time with the network to itself */
    double bytes;             /**< its size */
    const uint32_t *links;    /**< its route, n links */
    const double *delay_ps;   /**< per route position, the time it lost while that link was its
                                   bottleneck (sums to about finish - start - alone), plus what
                                   rt__flownet_add_delay added */
};

/** Per-link totals (rt__flownet_link). */
struct rt__link_stats {
    double bytes;       /**< bytes of the flows over it that have completed */
    rt_time_ps busy_ps; /**< time with at least one flow on it, over closed busy periods (a busy
                             period still open at the last advance is not counted yet) */
    double delay_ps;    /**< sum of the completed flows' delays attributed to it */
    uint32_t max_flows; /**< most flows on it at once */
    uint64_t flows;     /**< flows started over it */
    uint64_t done;      /**< flows completed over it (their bytes and delays are in bytes, delay_ps) */
    uint64_t apart_flows; /**< completed flows with RT__FLOW_APART in their user value */
    double apart_bytes;   /**< their bytes (also in bytes) */
};

/**
 * A flow whose user value has this bit is also counted in its links' apart_flows and apart_bytes:
 * a class of traffic (other jobs') whose per-link totals the caller then need not keep itself,
 * which would touch every link of its route once more at its end.
 */
#define RT__FLOW_APART (UINT64_C(1) << 63)

/**
 * Creates a network of @p nlinks directed links (0 allowed: flows with empty routes only).
 * @param capacity  nlinks capacities in bytes per ps, each > 0 and finite (copied)
 * @return RT_OK, RT_EINVAL (bad capacity, NULL arguments) or RT_ENOMEM; *@p out is the caller's
 *         to rt__flownet_destroy.
 */
int rt__flownet_create(uint32_t nlinks, const double *capacity, struct rt__flownet **out);

/**
 * Adds a link of @p capacity B/ps (> 0, finite) as the next link id, returned in *@p link: a
 * caller that knows a machine's links but uses few of them adds those it uses, as it meets them.
 * @p key orders the link among the others where a tie is broken (the bottleneck named when two
 * links' shares are equal): the caller's own id of the link, so that the results do not depend
 * on the order links were added in. Links of rt__flownet_create have their index as key.
 * @return RT_OK, RT_EINVAL or RT_ENOMEM (nothing added)
 */
int rt__flownet_add_link(struct rt__flownet *fn, double capacity, uint32_t key, uint32_t *link);
/**
 * Makes room for @p nlinks links at once (e.g. every link of a topology), so that adding them
 * never copies the links met so far. Room not used is only address space: no page of it is
 * written until a link is added there. RT_OK, or RT_ENOMEM (nothing changed: links are then
 * added by doubling, as without it).
 */
int rt__flownet_reserve_links(struct rt__flownet *fn, uint32_t nlinks);
/** A hint: link @p link will be read and written soon (its cache line is fetched). */
void rt__flownet_prefetch_link(const struct rt__flownet *fn, uint32_t link);

/** Frees the network and its flows; NULL is a no-op. */
void rt__flownet_destroy(struct rt__flownet *fn);

/**
 * Starts a flow of @p bytes (> 0, finite) over the route links[0..n) (distinct links, each
 * < nlinks; n may be 0: only its own limit applies) at time @p now, with its own rate limit
 * @p max_rate (B/ps, > 0, finite). @p links is copied. Rates are recomputed at the next
 * rt__flownet_next or advance, so flows started at one time cost one recomputation.
 * @p now must be >= the time last advanced to (or started at) and <= rt__flownet_next(): flows
 * whose completion is due before @p now must have been advanced first. A flow due exactly at
 * @p now no longer takes bandwidth from the new one. May be called from a done callback (at its t).
 * @param id  optional, receives the flow's id
 * @return RT_OK, RT_EINVAL (bad argument, time going back, completions skipped) or RT_ENOMEM
 */
int rt__flownet_start(struct rt__flownet *fn, rt_time_ps now, const uint32_t *links, uint32_t n, double bytes,
                      double max_rate, uint64_t user, uint32_t *id);

/**
 * The earliest completion time of any active flow under the current rates (INT64_MAX: none);
 * recomputes the rates first if flows started or ended since the last recomputation.
 * Returns INT64_MIN if that recomputation ran out of memory (the network is then unusable).
 */
rt_time_ps rt__flownet_next(struct rt__flownet *fn);

/**
 * Advances to time @p t (last <= t <= rt__flownet_next()), completing every flow whose predicted
 * completion is t and calling done(ud, &info) for each, in ascending (start, id) order. The
 * callback may start new flows at t (rt__flownet_start) but call nothing else of this network.
 * @return RT_OK, RT_EINVAL (t out of that range, reentry) or RT_ENOMEM (recomputation)
 */
int rt__flownet_advance(struct rt__flownet *fn, rt_time_ps t,
                        void (*done)(void *ud, const struct rt__flow_done *f), void *ud);

/** Number of active (started, not yet completed) flows. */
uint32_t rt__flownet_active(const struct rt__flownet *fn);

/** Number of active flows over link @p link (0 when out of range): the load adaptive routing reads. */
uint32_t rt__flownet_link_load(const struct rt__flownet *fn, uint32_t link);

/** Adds @p ps to the delay flow @p id is charged at route position @p pos (a wait the caller
 * models outside the flow, e.g. a queue ahead of its first packet): its rt__flow_done delay_ps
 * and its link's delay_ps then hold it too. Out of range: nothing. */
void rt__flownet_add_delay(struct rt__flownet *fn, uint32_t id, uint32_t pos, double ps);

/** The time last advanced to or started at. */
rt_time_ps rt__flownet_now(const struct rt__flownet *fn);

/** Current rate of active flow @p id in B/ps (0 before its first recomputation, or not active). */
double rt__flownet_rate(const struct rt__flownet *fn, uint32_t id);

/**
 * Totals of link @p link as of this call (flows and max_flows are brought up to date by it);
 * NULL when out of range. The pointer stays valid until the network is destroyed.
 */
const struct rt__link_stats *rt__flownet_link(const struct rt__flownet *fn, uint32_t link);

/**
 * Debugging: with @p on, every recomputation recomputes all flows instead of only the affected
 * ones. Results are bit-identical either way (tests/test_netflow.c checks it).
 */
void rt__flownet_set_full(struct rt__flownet *fn, int on);

/**
 * With @p on, rates are the fast approximation instead of max-min fairness: each flow's rate is
 * min(M_f, min over its links of C_l / n_l), recomputed only for the flows over links whose
 * count changed that the change can reach: those the link bottlenecked, or whose rate its new
 * share reaches (netflow.c, nf_fast). Capacities are respected; rates are at most the fair ones.
 */
void rt__flownet_set_fast(struct rt__flownet *fn, int on);

/** Number of flows whose rates recomputations have computed so far (a measure of their work). */
uint64_t rt__flownet_filled(const struct rt__flownet *fn);

/**
 * Tuning and debugging: components of at most @p n flows plus links are filled by scanning instead
 * of with a heap (default 64); components larger than @p n or than 16 are recomputed by region,
 * only where their rates change (netflow.c, nf_region), the others refilled whole. Results are
 * bit-identical for any @p n.
 */
void rt__flownet_set_small(struct rt__flownet *fn, uint32_t n);

/**
 * Debugging: recomputes every flow's rate from scratch (after bringing the rates up to date)
 * and compares with the rates in use: bit-identical rates and bottlenecks, and no link loaded
 * beyond its capacity (relative 1e-9).
 * @return RT_OK, RT_ERANGE on a difference, or RT_ENOMEM
 */
int rt__flownet_check(struct rt__flownet *fn);

/**
 * The time a flow of @p bytes takes alone at @p rate [B/ps]: max(1, ceil(bytes / rate)) ps, as the
 * model rounds its completions (a quotient within 4 ulps above an integer counts as it). A flow
 * that starts alone on its links and stays so ends exactly this long after its start.
 */
rt_time_ps rt__flownet_duration(double bytes, double rate);

#endif
