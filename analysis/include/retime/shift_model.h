/* SPDX-License-Identifier: MIT */
/**
 * @file shift_model.h  The Shift paper's closed forms (000_7e9d5dd1e6b01527, eq. 1-3), as a
 * cross-check for replays of Shift traces.
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

#endif
