/* SPDX-License-Identifier: MIT */
/**
 * @file topology.h  Routed network topologies (crossbar, torus, mesh, fat tree, dragonfly) and
 * the mapping of MPI ranks to their nodes (docs/topology.md).
 *
 * A topology is a directed graph: vertices 0..nodes-1 are the compute nodes (the endpoints),
 * the switches or routers are numbered from `nodes` up; every directed link has an id in
 * 0..links-1, the nodes' NIC injection and ejection links included. Routing is static and
 * pure: the same source, destination and salt always give the same links. Topologies are
 * immutable once created, so one may serve many concurrent replays; no topology stores a
 * per-link table (link ids and routes are computed), so even a very large one costs a few
 * hundred bytes.
 */
#ifndef RETIME_TOPOLOGY_H
#define RETIME_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A routed topology; defined in topology.c and the topo_*.c files. */
typedef struct rt_topology rt_topology;

/** What a link connects. */
enum rt_link_kind {
    RT_LINK_INJECT = 0, /**< a node's NIC into the network (from a node) */
    RT_LINK_EJECT,      /**< the network into a node's NIC (to a node) */
    RT_LINK_NET         /**< between two switches or routers */
};

/** One directed link (rt_topology_link()). */
struct rt_link_info {
    uint8_t kind;     /**< enum rt_link_kind */
    uint8_t level;    /**< torus/mesh: the dimension (0..n-1); fat tree: the level of the upper end (1..h);
                           dragonfly: 0 local, 1 global; NIC links: 0 */
    uint8_t up;       /**< fat tree: 1 going up, 0 down; torus/mesh: 1 positive direction; else 0 */
    uint32_t from, to;/**< vertices: nodes are 0..nodes-1, switches/routers numbered from nodes up */
};

/**
 * Builds a topology from its spec (docs/topology.md):
 *   - `crossbar` (2^31-1 virtual nodes) or `crossbar:N`;
 *   - `torus:AxBx...` and `mesh:AxBx...` (1 to 6 dimensions, each >= 2, at most 2^24 nodes);
 *   - `fattree:XGFT(h;m1,...,mh;w1,...,wh)`, `fattree:N` and `fattree:N,radix=K`;
 *   - `dragonfly:g,a,p,h` and `dragonfly:g,a,p,h,valiant`.
 * @param spec  the spec; not kept
 * @param out   receives the topology, which the caller destroys with rt_topology_destroy()
 * @param err   may be NULL; on failure one line naming the spec and what is wrong with it
 * @return RT_OK, RT_EINVAL (bad spec), RT_ERANGE (too large: ids must fit 32 bits), RT_ENOMEM
 */
int rt_topology_create(const char *spec, rt_topology **out, rt_error *err);

/** Frees a topology; NULL is a no-op. */
void rt_topology_destroy(rt_topology *t);

/** The canonical spec ("torus:8x8x8", "fattree:XGFT(2;18,4;1,18)" for `fattree:64`); owned by @p t. */
const char *rt_topology_spec(const rt_topology *t);

/** The kind: "crossbar", "torus", "mesh", "fattree" or "dragonfly"; a static string. */
const char *rt_topology_kind(const rt_topology *t);

/** The number of endpoints (compute nodes), vertices 0..nodes-1. */
uint32_t rt_topology_nodes(const rt_topology *t);

/** The number of vertices: nodes plus switches or routers. */
uint32_t rt_topology_vertices(const rt_topology *t);

/** The number of directed links, the NIC injection and ejection links included; ids 0..links-1. */
uint32_t rt_topology_links(const rt_topology *t);

/**
 * The most links rt_topology_route() returns for any pair and salt: the room its @p links needs.
 * Exact (some route has that many) for crossbar, torus, mesh and fat tree; for a dragonfly a
 * bound that counts a local hop in every group a route enters, which some sizes never need.
 */
uint32_t rt_topology_max_route(const rt_topology *t);

/**
 * Describes directed link @p link.
 * @return RT_OK, or RT_ERANGE when @p link >= rt_topology_links() (*@p out zeroed)
 */
int rt_topology_link(const rt_topology *t, uint32_t link, struct rt_link_info *out);

/**
 * Writes a short readable name of link @p link into @p buf (@p n bytes, always NUL-terminated
 * when n > 0, cut to fit): "n3>sw" (crossbar), "n5>r(1,1)" "r(1,2)+x" (torus, mesh),
 * "sw1.4^sw2.0" "sw2.0>sw1.4" (fat tree), "g1r2>g1r3" "g1r2/0>g3r0" (dragonfly). Names are
 * unique within a topology; docs/topology.md spells out each form.
 * @return the name's length (as snprintf: the length it has uncut), 0 for a link out of range
 *         (buf then "")
 */
size_t rt_topology_link_name(const rt_topology *t, uint32_t link, char *buf, size_t n);

/**
 * Routes a message from node @p src to node @p dst: writes the directed links it crosses, in
 * order, into @p links (room for rt_topology_max_route() ids): src's injection link first,
 * dst's ejection link last, each link's `to` the next one's `from`, no link twice.
 * @param salt  picks among random choices (dragonfly's Valiant intermediate group)
 *              deterministically; deterministic routing ignores it
 * @return the number of links; 0 when src == dst (a node talks to itself through shared
 *         memory) or when src or dst is not a node (>= rt_topology_nodes()). Pure: same inputs,
 *         same output; no state, so concurrent calls are safe.
 */
uint32_t rt_topology_route(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t *links);

/** How loaded a link is for adaptive routing: the flows on @p link now. */
typedef uint32_t (*rt_link_load_fn)(void *ctx, uint32_t link);

/** Whether the topology routes adaptively (`torus:...,adaptive`, `mesh:...,adaptive`): then
 *  rt_topology_route_load() picks among the minimal routes by link load. */
int rt_topology_adaptive(const rt_topology *t);

/**
 * Routes as rt_topology_route(), and on an adaptive topology picks, at each router, among the
 * links that still lead along a minimal route the one with the least @p load (ties: dimension
 * order), so that with no load anywhere the route is rt_topology_route()'s. Deterministic for
 * the same loads. @p load NULL, or a topology that is not adaptive: rt_topology_route().
 */
uint32_t rt_topology_route_load(const rt_topology *t, uint32_t src, uint32_t dst, uint64_t salt, rt_link_load_fn load,
                                void *ctx, uint32_t *links);

/** The kinds rt_topology_create() knows, for help texts: "crossbar, torus, mesh, fattree, dragonfly". */
const char *rt_topology_kinds(void);

/* ------------------------------------------------------------------ rank-to-node mapping */

/** Where each rank runs: a node of a topology, at most ranks_per_node ranks per node. */
typedef struct rt_mapping rt_mapping;

/**
 * Places @p ranks ranks on @p nodes nodes with @p ranks_per_node slots each (docs/topology.md):
 *   - `block`: rank r on node r / ranks_per_node (the first ranks_per_node ranks fill node 0, ...);
 *   - `round-robin`: rank r on node r mod U, U = min(nodes, ceil(ranks / ranks_per_node)) (the
 *     nodes block would use), so every node holds at most ranks_per_node ranks;
 *   - `random:SEED`: rank r in slot P[r] of a permutation P of all nodes x ranks_per_node slots,
 *     drawn by a Fisher-Yates shuffle from splitmix64 seeded with SEED (a decimal uint64):
 *     the same on every machine; slot s is on node s / ranks_per_node;
 *   - `file:PATH`: lines "RANK NODE" ('#' starts a comment; blank lines are fine), every rank
 *     0..ranks-1 exactly once, at most ranks_per_node ranks per node; a regular file of at
 *     most 64 MiB, lines of at most 4096 bytes.
 * @param spec   the spec; not kept
 * @param out    receives the mapping, which the caller destroys with rt_mapping_destroy()
 * @param err    may be NULL; on failure one line (the file and line number for a file)
 * @return RT_OK, RT_EINVAL (bad spec or file content), RT_ERANGE (the ranks do not fit),
 *         RT_ENOTFOUND / RT_EIO / RT_ECORRUPT (the file), RT_ENOMEM
 */
int rt_mapping_create(const char *spec, uint32_t ranks, uint32_t nodes, uint32_t ranks_per_node, rt_mapping **out,
                      rt_error *err);

/** Frees a mapping; NULL is a no-op. */
void rt_mapping_destroy(rt_mapping *m);

/** The node rank @p rank runs on; UINT32_MAX when @p rank >= the mapping's ranks. */
uint32_t rt_mapping_node(const rt_mapping *m, uint32_t rank);

/** The canonical spec ("block", "round-robin", "random:42", "file:map.txt"); owned by @p m. */
const char *rt_mapping_spec(const rt_mapping *m);

#ifdef __cplusplus
}
#endif
#endif
