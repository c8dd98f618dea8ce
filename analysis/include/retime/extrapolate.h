/* SPDX-License-Identifier: MIT */
/**
 * @file extrapolate.h  A program traced at a few rank counts, written at a larger one.
 *
 * From traces of the same SPMD program at three or more rank counts P1 < P2 < P3 ...,
 * rt_extrap_build recognises the program as functions of the rank r and the rank count P, and
 * rt_extrap_write writes it at any P' as an OTF2 archive every command reads (docs/extrapolate.md):
 *
 *  - rank classes: ranks whose event sequences are alike (one class; rank 0 and the others; even
 *    and odd ranks; rank 0, odd, even), each class the same sequence of calls at every P but for
 *    the number of iterations of one loop, c0 + c1·P^a·log2(P)^b (exact at every traced P);
 *  - each message's peer: a ring offset (r + d mod P), a neighbour on a periodic 2D or 3D process
 *    grid as MPI_Dims_create makes it (row-major, as MPI_Cart_create without reordering), or a
 *    fixed rank; a collective's root a fixed rank of its communicator; communicators that hold
 *    every rank in order, or splits into grid lines, blocks or strides of ranks;
 *  - each message's and collective's size, the same on every rank of a class, as c·P^a·log2(P)^b
 *    (exact to the byte at every traced P);
 *  - the time between two events (compute outside MPI calls) per pair of call sites, as
 *    c·P^a·log2(P)^b fitted to the mean over the class's ranks and occurrences at each P (the
 *    family of Extra-P), or constant (weak scaling).
 *
 * What it cannot recognise is refused with one line naming the trace, rank, event and pattern.
 */
#ifndef RETIME_EXTRAPOLATE_H
#define RETIME_EXTRAPOLATE_H

#include <stddef.h>
#include <stdint.h>

#include "retime/error.h"
#include "retime/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rt_extrap rt_extrap;

/** How the compute between events scales with P. */
enum rt_scaling {
    RT_SCALING_AUTO = 0, /**< the family's best fit per interval (constant unless a term fits clearly better) */
    RT_SCALING_WEAK,     /**< constant per rank: the mean over the traces */
    RT_SCALING_STRONG    /**< the family's best fit without the constant's preference */
};

/** The most traces one extrapolation takes. */
#define RT_EXTRAP_MAX_TRACES 16

/** What the recognition found, for the report. */
struct rt_extrap_summary {
    uint32_t traces, classes;     /**< input traces, rank classes */
    const char *class_rule;       /**< "one class", "rank 0 and the others", "even and odd ranks", ... */
    uint64_t events;              /**< template events over the classes (the largest trace's) */
    uint64_t p2p, colls;          /**< message records and collectives among them */
    uint64_t by_offset, by_grid2, by_grid3, by_fixed; /**< messages whose peer is a ring offset, a 2D or 3D grid neighbour, a fixed rank */
    uint64_t sizes_constant, sizes_scaled; /**< message/collective sizes the same at every P, or scaling with P */
    uint64_t splits;              /**< sends and collectives on communicators of a split (grid lines, blocks, strides) */
    uint32_t intervals;           /**< compute intervals fitted (pairs of call sites per class) */
    uint32_t intervals_constant;  /**< of them constant */
    double fit_error_median, fit_error_max; /**< relative RMS error of the intervals' fits at the traced P, weighted by time */
    double compute_share_scaled;  /**< the share of the largest trace's compute in intervals that scale with P */
    int cpu_time;                 /**< the gaps are CPU time (every trace has it), not wall time */
};

/** Recognises the program of @p n traces (n >= 3, rank counts all different). */
int rt_extrap_build(const rt_trace *const *traces, size_t n, enum rt_scaling scaling, rt_extrap **out, rt_error *err);
void rt_extrap_free(rt_extrap *x);
void rt_extrap_summary(const rt_extrap *x, struct rt_extrap_summary *s);
/** The @p i th fitted interval (for the report): what it lies between, its model and error. */
struct rt_extrap_interval {
    uint32_t cls;
    const char *from, *to;   /**< the events' calls or regions ("MPI_Waitall", "jacobi_iteration") */
    uint64_t occurrences;    /**< per rank in the largest trace */
    double share;            /**< of the largest trace's compute */
    double c, a, b;          /**< mean ns = c·P^a·log2(P)^b */
    double error;            /**< relative RMS error at the traced P */
};
/** Class @p cls's main loop (for the report): 0 when it has none (every trace runs the same calls). */
struct rt_extrap_loop {
    uint64_t events;             /**< events an iteration */
    uint32_t traces;             /**< traces the class is in */
    uint32_t P[RT_EXTRAP_MAX_TRACES];
    uint64_t iterations[RT_EXTRAP_MAX_TRACES];
    double c0, c1, a, b;         /**< iterations = c0 + c1·P^a·log2(P)^b */
};
int rt_extrap_loop(const rt_extrap *x, uint32_t cls, struct rt_extrap_loop *out);
uint32_t rt_extrap_intervals(const rt_extrap *x);
void rt_extrap_interval(const rt_extrap *x, uint32_t i, struct rt_extrap_interval *out);
/**
 * Writes the program at @p P ranks as DIR/traces.otf2 (@p dir is created; it must not hold a
 * trace). Rank counts a recognised pattern cannot take (a 2D grid needs no more than what
 * MPI_Dims_create gives; an even/odd split needs an even P) are refused in one line.
 */
int rt_extrap_write(const rt_extrap *x, uint32_t P, const char *dir, rt_error *err);

#ifdef __cplusplus
}
#endif

#endif
