/* SPDX-License-Identifier: MIT */
/**
 * @file shift_model.h  The Shift paper's closed forms (000_7e9d5dd1e6b01527, eq. 1-3), as a
 * cross-check for replays of Shift traces, and the Team Shift closed form derived in the same
 * style (docs/team-shift.md).
 *
 * Plimpton's Shift on a 1D ring or 3D torus: in dimension d every rank forwards k blocks each
 * way, and the message of dimension d carries m_d = (2k+1)^(d-1)·m1 bytes. Under Hockney
 * T(m) = α + β·m the per-iteration time is
 *     ssend (blocking, even/odd phases):     t = Σ_d 4k·T(m_d)   (1D: twice eq. 1; 3D: eq. 3)
 *     isend (both directions overlapped):    t = Σ_d 2k·T(m_d)   (eq. 2)
 */
#ifndef RETIME_SHIFT_MODEL_H
#define RETIME_SHIFT_MODEL_H

#include <stdint.h>

#include "retime/error.h"

struct rt_shift_config {
    int dims;        /**< 1 or 3 */
    int k;           /**< neighbours per direction, >= 1 */
    uint64_t m1;     /**< bytes of one box */
    int synchronous; /**< 1: MPI_Ssend/MPI_Recv phases; 0: Isend/Irecv + Waitall */
};

/**
 * Per-iteration time [ns] under Hockney, and per dimension in @p dim_ns (may be NULL).
 * @return RT_OK, or RT_ERANGE for dims not 1 or 3, k < 1 or message sizes that overflow.
 */
int rt_shift_predict(const struct rt_shift_config *c, double alpha_ns, double beta_ns_per_byte, double *ns,
                     double dim_ns[3], uint64_t dim_bytes[3], rt_error *err);

/**
 * Team Shift (Driscoll et al. 2013 as the Shift paper's §2.3 describes it), as the `shift`
 * benchmark's `--algorithm team-shift` runs it (MPI_Ssend/MPI_Recv, docs/team-shift.md): P ranks
 * in T = P/c teams of c; each team owns one box and a cut-off of k boxes. Per dimension d, with
 * m = m_d = (2k+1)^(d-1)·m1, q = ceil(log2 c), M = ceil((2k+1)/c) - [c divides k] and
 * T(m) = α + β·m, the leader (the last rank to finish) spends
 *     broadcast   q·T(m)                         binomial tree, the leader sends q times
 *     tilt        2·T(m)            if c ∤ k      one even/odd hop to its first block
 *     shift       2·(M - [c ∤ k])·T(m)           even/odd hops in steps of c, wrapping once
 *     reduce      Σ_{i<q} T(min(2^i, c-2^i)·M·m) binomial gather of M blocks per member
 * and t = Σ_d (sum of the four). For c = 1 this is Shift's 4k·T(m) per dimension (eq. 1 times two).
 */
struct rt_team_shift_config {
    int dims;    /**< 1 or 3 */
    int k;       /**< cut-off in boxes, >= 1 */
    int c;       /**< team size, >= 1 */
    uint64_t m1; /**< bytes of one box */
};

/** The leader's time in each step of one dimension [ns], and that dimension's message size. */
struct rt_team_shift_dim {
    uint64_t bytes;       /**< m_d, the block size of the dimension */
    uint64_t reduce_bytes; /**< M·m_d, one member's share in the gather */
    double bcast_ns, tilt_ns, shift_ns, reduce_ns, total_ns;
};

/** ceil(log2 c), the rounds of a binomial tree over c ranks (0 for c = 1). */
int rt_team_shift_rounds(int c);
/** M = ceil((2k+1)/c) - [c divides k]: the most hop messages of a team member (the leader's). */
int rt_team_shift_hops(int k, int c);

/**
 * Per-iteration time [ns] of Team Shift under Hockney, and per dimension in @p dim (3 entries,
 * may be NULL; entries beyond dims are zeroed).
 * @return RT_OK, or RT_ERANGE for dims not 1 or 3, k or c out of [1, 1000000], or sizes that
 * overflow 64 bits.
 */
int rt_team_shift_predict(const struct rt_team_shift_config *c, double alpha_ns, double beta_ns_per_byte,
                          double *ns, struct rt_team_shift_dim dim[3], rt_error *err);

#endif
