/* SPDX-License-Identifier: MIT */
/* One replay's traffic on a network (network.c): what the engine asks of it. */
#ifndef RETIME_NETWORK_INTERNAL_H
#define RETIME_NETWORK_INTERNAL_H

#include "retime/network.h"

struct rt__netrun;

/* Starts one replay's traffic on @p net; @p model_ns_per_byte is the model's per-byte time (the
 * NICs' default). RT_OK, RT_EINVAL or RT_ENOMEM with @p err filled. */
int rt__netrun_create(const rt_network *net, double model_ns_per_byte, struct rt__netrun **out, rt_error *err);
void rt__netrun_destroy(struct rt__netrun *n);
/* In order (retime/replay.h, RT_INJECT_IN_ORDER): the engine gives each node's receive port one
 * message at a time, as the crossbar's, so a trace's message leaves its ejection link out of its
 * flow (its injection link it keeps: the engine starts a sender's flows a port gap apart, so they
 * meet only other jobs' traffic there). */
void rt__netrun_set_in_order(struct rt__netrun *n, int in_order);
/* Whether rt__netrun_advance's callback is given each message's route and delays (off: 0 links). */
void rt__netrun_set_routes(struct rt__netrun *n, int on);
/* A message of @p m bytes from rank @p src to rank @p dst starts at @p t; the model gives it the
 * wire time @p wire (noise included), of which @p byte_ps is its per-byte part. Returns 0 with
 * *@p arrive set when its arrival is known now (shared memory, no bytes), 1 when it became a flow
 * (its arrival comes from rt__netrun_advance, with @p user), RT_ENOMEM. */
int rt__netrun_send(struct rt__netrun *n, uint32_t src, uint32_t dst, rt_bytes m, rt_time_ps t, rt_time_ps wire,
                    rt_time_ps byte_ps, uint64_t user, rt_time_ps *arrive);
/* When the next flow's last byte leaves (INT64_MAX: none; INT64_MIN: out of memory). */
rt_time_ps rt__netrun_next(struct rt__netrun *n);
/* Advances to @p t (<= rt__netrun_next), calling @p arrived for every message whose last byte
 * left at t, with its arrival time and (rt__netrun_set_routes) its route and the time it lost on
 * each of its links.
 * RT_OK or RT_ENOMEM. */
typedef void rt__net_arrived(void *ud, uint64_t user, rt_time_ps at, uint32_t n, const uint32_t *links,
                             const double *delay_ps);
int rt__netrun_advance(struct rt__netrun *n, rt_time_ps t, rt__net_arrived *arrived, void *ud);
/* The links that carried traffic (malloc'd, the caller's), and the contention delay summed. */
int rt__netrun_links(const struct rt__netrun *n, struct rt_link_use **out, uint32_t *count, rt_time_ps *delay);
/* Background traffic (--perturb): picks this run's perturbing nodes and their sources' first
 * draws from (@p seed, @p run); RT_OK or RT_ENOMEM. Nothing without --perturb. */
int rt__netrun_perturb_start(struct rt__netrun *n, uint64_t seed, uint64_t run);
/* When the next background messages leave (INT64_MAX: none). */
rt_time_ps rt__netrun_perturb_next(const struct rt__netrun *n);
/* Starts the background messages due at @p t (= rt__netrun_perturb_next) as flows. */
/* RT_ERANGE when the background messages on the wire keep piling up: past RT_NET_BG_MAX_PER_NODE
 * per perturbing node (plus RT_NET_BG_MAX_SLACK) they grew to RT_NET_BG_GROWTH times what they
 * were when they passed it, without falling back below it in between. The other jobs then offer
 * more than the links carry, and the replay's work would grow without bound. A busy but stable
 * network (links near saturation: long queues that come and go) passes the mark and falls back. */
#define RT_NET_BG_MAX_PER_NODE 8
#define RT_NET_BG_MAX_SLACK 1000
#define RT_NET_BG_GROWTH 4
int rt__netrun_perturb_fire(struct rt__netrun *n, rt_time_ps t);
/* Background messages on the wire now. */
uint64_t rt__netrun_bg_on_wire(const struct rt__netrun *n);
/* The least latency of a message between two ranks on one node when --shm-alpha sets it
 * (INT64_MAX: not set, such a message takes the model's latency). */
rt_time_ps rt__netrun_shm_latency(const struct rt__netrun *n);
/* Messages routed through the network, and between ranks of one node; flows whose rates the
 * contention model computed (its work). */
void rt__netrun_counts(const struct rt__netrun *n, uint64_t *routed, uint64_t *local, uint64_t *recomputed);

#endif
