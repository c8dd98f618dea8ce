/* SPDX-License-Identifier: MIT */
/**
 * @file calibrate.h  Hockney's α and β fitted from a trace's own messages (retime calibrate).
 *
 * A message's time is the network's, not a wait, when its receiver was already waiting:
 *  eager (not synchronous, at most the eager limit): a blocking receive entered no later than
 *    the send's call; the sample is the receive's completion minus the send call's entry;
 *  rendezvous (synchronous, or above the limit): both sides posted; the sample is the receive's
 *    completion minus the later of the two entries.
 * Messages are matched per (source, destination, communicator, tag) in order, as MPI does. Per
 * size, samples above cut_coef times that size's median are dropped (pingpong's rule, 003 §3.3);
 * α and β are the least-squares line through the rest, with R² and the residuals; a β per size
 * is (median − α) / m. What the trace cannot determine (fewer than 3 samples, one size only) is
 * said, not invented.
 */
#ifndef RETIME_CALIBRATE_H
#define RETIME_CALIBRATE_H

#include "retime/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RT_CALIB_SIZES 64 /**< sizes reported per protocol (the most sampled) */

struct rt_calib_size {
    rt_bytes bytes;
    uint64_t samples, dropped;
    double median_ns;
    double beta_ns_per_byte; /**< (median - alpha) / bytes; 0 for 0 bytes */
};

struct rt_calib_fit {
    uint64_t samples, dropped; /**< kept and dropped (above cut_coef x the size's median) */
    uint32_t sizes;            /**< distinct sizes among the kept samples */
    int alpha_ok, beta_ok;     /**< whether the trace determines them */
    double alpha_ns, beta_ns_per_byte;
    double r2;                 /**< of the line over the kept samples */
    double resid_median_ns, resid_max_ns; /**< |residuals| */
    char why[160];             /**< why a parameter is not determined ("" when both are) */
    struct rt_calib_size size[RT_CALIB_SIZES];
    uint32_t nsize;
};

struct rt_calibration {
    uint64_t messages;         /**< point-to-point messages matched */
    uint64_t unmatched;        /**< sends or receives without a partner (ignored) */
    struct rt_calib_fit eager, rendezvous;
};

/**
 * Fits @p t's messages (eager up to @p eager_limit; samples above @p cut_coef times their
 * size's median dropped). RT_OK, or RT_ENOMEM.
 */
int rt_calibrate(const rt_trace *t, rt_bytes eager_limit, double cut_coef, struct rt_calibration *out,
                 rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
