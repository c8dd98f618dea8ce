/* SPDX-License-Identifier: MIT */
/* What rt_extrap_build recognises and rt_extrap_write writes (extrapolate.c, extrap_write.c). */
#ifndef RETIME_EXTRAP_INTERNAL_H
#define RETIME_EXTRAP_INTERNAL_H

#include <stdint.h>

#include "retime/extrapolate.h"

/* How a rank's class follows from r (enum order: the simplest first). */
enum { XC_ONE, XC_ROOT, XC_PARITY, XC_ROOT_PARITY, XC_NRULES };
#define XC_MAX 3 /* classes at most */

/* A peer as a function of (r, P). */
enum { XP_NONE, XP_OFFSET, XP_GRID, XP_FIXED };
struct xp_peer {
    uint8_t kind;
    uint8_t ndims, dim; /* XP_GRID: a neighbour along dim of an ndims-D periodic grid */
    uint8_t xfast;      /* XP_GRID: its first dimension varies fastest (the Shift's order), not its last
                           (MPI_Cart_create's row-major order) */
    int64_t d;          /* XP_OFFSET: r + d mod P; XP_GRID: the step (+1, -1); XP_FIXED: the rank */
};

/* A communicator's members as a function of (r, P): every rank (in order), or the group of r
 * under a partition of the ranks, in rank order. */
enum { XG_WORLD, XG_LINE, XG_BLOCK, XG_STRIDE };
struct xp_group {
    uint8_t kind;
    uint8_t ndims, dim, xfast; /* XG_LINE: the ranks that share every coordinate of an ndims-D grid
                                  (MPI_Dims_create's) but dim's, ordered along dim */
    uint32_t m;                /* XG_BLOCK: ranks m·(r/m) .. + m - 1; XG_STRIDE: r mod m, every m-th */
};

/* f(P) = c0 + c1 · P^a · log2(P)^b */
struct xp_fit {
    double c0, c1, a, b;
    int floor; /* sizes: the traced ones are the form floored (N/P bytes), not rounded */
};

/* One event of a class's template (the largest trace's representative rank). */
struct xp_ev {
    uint8_t kind, flags;
    uint32_t region;    /* ENTER/LEAVE: the largest trace's region */
    uint32_t site;      /* ENTER: the largest trace's call site (RT_NONE: none) */
    uint32_t tag;       /* messages; collectives: the operation */
    uint32_t comm;      /* the largest trace's communicator (messages, collectives) */
    uint32_t back;      /* ISEND_COMPLETE, IRECV, (NB)COLL_END: k - the index of its start */
    uint32_t interval;  /* the compute interval that ends here (into rt_extrap.iv) */
    uint32_t interval_loop; /* at the loop body's first event, in its second and later iterations */
    struct xp_peer peer; /* messages: the peer; COLL_BEGIN: XP_FIXED root (a rank of its
                            communicator) or XP_NONE */
    struct xp_group group; /* messages, collectives: the communicator's members */
    struct xp_fit bytes;
    uint8_t per_member; /* bytes is per rank of its communicator (a split's collective: 64 B per row member) */
};

struct xp_interval {
    uint32_t cls, from, to;  /* the events' label ids */
    uint64_t count[RT_EXTRAP_MAX_TRACES]; /* occurrences over the class's ranks per trace */
    double sum[RT_EXTRAP_MAX_TRACES];     /* their ns */
    uint64_t per_rank;                    /* occurrences per rank in the largest trace */
    int inside;                           /* it lies inside an MPI call (the model's time, not compute) */
    struct xp_fit fit;
    double error, share;
};

/* A class's main loop: its template's events [s, s + p) are one iteration, run a number of times
 * that depends on P (count); p = 0: no loop (every trace runs the same calls). */
struct xp_loop {
    uint64_t s, p;
    struct xp_fit count;
    uint64_t traced[RT_EXTRAP_MAX_TRACES]; /* the iterations at each trace's P (0 where the class is absent) */
};

/* Template index of a rank's @p e th event when its class's loop runs @p c times; *@p again: it
 * is in the loop's second or later iteration. */
static inline uint64_t rt__xp_at(const struct xp_loop *l, uint64_t c, uint64_t e, int *again)
{
    *again = 0;
    if (!l->p || e < l->s)
        return e;
    if (e < l->s + c * l->p) {
        *again = e - l->s >= l->p;
        return l->s + (e - l->s) % l->p;
    }
    return e - c * l->p + l->p;
}

struct rt_extrap {
    uint32_t ntr, P[RT_EXTRAP_MAX_TRACES]; /* the traces' rank counts, ascending */
    int rule;
    uint32_t ncls;
    struct xp_ev *tmpl[XC_MAX];
    uint64_t n[XC_MAX];      /* template events (one iteration of the loop) */
    struct xp_loop loop[XC_MAX];
    /* the largest trace's definitions the output keeps */
    uint32_t nregions;
    char **region_name;
    uint8_t *region_mpi, *region_role;
    uint32_t nsites;     /* the largest trace's call sites, written with the events that name them */
    struct rt_callsite *site;
    uint32_t ncomms;
    char **comm_name;    /* the largest trace's communicators' names (self ones NULL) */
    uint8_t *comm_world; /* of them those that hold every rank in order */
    char **label;        /* label ids' texts */
    uint32_t nlabels;
    struct xp_interval *iv;
    uint32_t niv;
    struct rt_extrap_summary sum;
};

uint32_t rt__xp_class(int rule, uint32_t r);
/* The members of rank @p r's communicator at @p P under @p g into @p out (at most @p max; NULL:
 * only counted), returned how many; UINT32_MAX: @p g cannot hold at P (m does not divide it). */
uint32_t rt__xp_members(const struct xp_group *g, uint32_t r, uint32_t P, uint32_t *out, uint32_t max);
/* MPI_Dims_create's balanced grid of @p P in @p n dimensions (non-increasing). */
void rt__xp_dims(uint32_t P, int n, uint32_t dims[3]);
/* The peer of rank @p r at @p P under @p p (UINT32_MAX: none). */
uint32_t rt__xp_peer_of(const struct xp_peer *p, uint32_t r, uint32_t P);
double rt__xp_eval(const struct xp_fit *f, double P);

#endif
