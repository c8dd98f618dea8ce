/* SPDX-License-Identifier: MIT */
/**
 * @file calibrate.h  Model parameters fitted from traces' own messages (retime calibrate).
 *
 * A message's time is the network's, not a wait, when its receiver was already waiting:
 *  eager (not synchronous, at most the eager limit): the receiver was in a blocking receive, or
 *    had posted an MPI_Irecv and was in the MPI_Wait (Waitall, Waitany, Waitsome) that completes
 *    it, when the send's call began; the sample is the receive's completion minus the send
 *    call's entry. A wait that completes several receives gives none (its end is the last one's);
 *  rendezvous (synchronous, or above the limit): both sides posted; the sample is the receive's
 *    completion (the data's arrival, where the replay's rendezvous ends on both sides) minus the
 *    later of the send's entry and the receiver's readiness (its wait's entry, the receive
 *    posted). When the receive's completion cannot tell (a nonblocking receive completed by a
 *    late wait or MPI_Test), a blocking rendezvous send (MPI_Ssend, or MPI_Send above the limit)
 *    posted after its receive gives its own duration (handshake, data and acknowledgement).
 * Messages are matched per (source, destination, communicator, tag) in order, as MPI does, within
 * each trace. Collectives are not used (their time is their algorithm's, many messages). Per
 * size, samples above cut_coef times that size's median are dropped (pingpong's rule, 003 §3.3);
 * α and β are the least-squares line through the rest, with R² and the residuals; a β per size
 * is (median − α) / m.
 *
 * LogP-lite (docs/parameter-file.md's definitions, as pingpong measures them):
 *  o_s  median duration of blocking eager sends of at most small_limit bytes;
 *  o_r  median time in a receive call (blocking receive, or the one-receive wait) of at most
 *       small_limit bytes entered once the eager fit says the message had arrived (the send's
 *       entry plus α + β·m): the time to take a message that is there;
 *  g    median interval between the entries of back-to-back send calls (two sends of at most
 *       small_limit bytes, at most gap_ns outside MPI between them);
 *  G    the eager fit's β (the slope of T(m));
 *  L    α − o_s − o_r of the eager fit, clamped at 0 (said).
 * Each is fitted with pingpong's cut around its median. What the traces cannot determine (fewer
 * than 3 samples, one size only) is said, not invented.
 */
#ifndef RETIME_CALIBRATE_H
#define RETIME_CALIBRATE_H

#include "retime/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RT_CALIB_SIZES 64 /**< sizes reported per protocol (the smallest first) */

/** A size whose usable samples are fewer than this share of its messages is left out of the line:
 *  its few samples are the exceptions (a sender stalled after its receiver came), not the rule. */
#define RT_CALIB_MIN_SHARE 0.1

struct rt_calib_size {
    rt_bytes bytes;
    uint64_t samples, dropped;
    uint64_t messages;       /**< messages of this size and protocol, usable or not */
    int thin;                /**< samples < RT_CALIB_MIN_SHARE of messages: not in the line */
    double median_ns;
    double beta_ns_per_byte; /**< (median - alpha) / bytes; 0 for 0 bytes */
};

struct rt_calib_fit {
    uint64_t samples, dropped; /**< kept and dropped (above cut_coef x the size's median) */
    uint64_t from_recv, from_wait, from_send; /**< where the samples (before the cut) came from:
                                                   blocking receives, waits, blocking rendezvous
                                                   sends (their own duration) */
    uint32_t sizes;            /**< distinct sizes among the kept samples (thin ones not counted) */
    uint32_t thin_sizes;       /**< sizes left out of the line as thin (their samples not counted) */
    int alpha_ok, beta_ok;     /**< whether the trace determines them */
    double alpha_ns, beta_ns_per_byte;
    double r2;                 /**< of the line over the kept samples */
    double resid_median_ns, resid_max_ns; /**< |residuals| */
    char why[160];             /**< why a parameter is not determined ("" when both are) */
    struct rt_calib_size size[RT_CALIB_SIZES];
    uint32_t nsize;
};

/** One LogP-lite parameter fitted as the median of its samples after pingpong's cut. */
struct rt_calib_value {
    uint64_t samples, dropped;
    int ok;
    double ns;                            /**< the median of the kept samples */
    double resid_median_ns, resid_max_ns; /**< |sample - median| over the kept samples */
    char why[160];                        /**< why it is not determined, or a caveat; "" otherwise */
};

struct rt_calib_logp {
    struct rt_calib_value o_s, o_r, g, L; /**< L: samples and residuals are 0 (it is derived) */
    int G_ok;
    double G_ns_per_byte;
    char G_why[160];
};

struct rt_calib_options {
    rt_bytes eager_limit; /**< largest eager message (64 KiB) */
    double cut_coef;      /**< samples above it times their median are dropped (2) */
    rt_bytes small_limit; /**< largest message for o_s, o_r and g (1024 B) */
    rt_time_ns gap_ns;    /**< most time outside MPI between back-to-back sends (1000 ns) */
};

struct rt_calibration {
    uint32_t traces;
    uint64_t messages;         /**< point-to-point messages matched */
    uint64_t unmatched;        /**< sends or receives without a partner (ignored) */
    /* messages left out, by reason */
    uint64_t late_receiver;    /**< eager: the receiver came after the send began (a wait) */
    uint64_t not_waited;       /**< a nonblocking receive not completed by a wait that was
                                    waiting when the send began (Test, or a late wait) */
    uint64_t shared_wait;      /**< a wait completing several receives */
    uint64_t backwards;        /**< completion before the start: clocks out of sync */
    uint64_t collectives;      /**< collective calls (per rank), not used */
    struct rt_calib_fit eager, rendezvous;
    struct rt_calib_logp logp;
};

/** Fills @p o with the defaults above. */
void rt_calib_options_default(struct rt_calib_options *o);

/**
 * Fits the messages of the @p n traces @p t together (a machine's several runs: a trace of one
 * message size each). RT_OK, or RT_ENOMEM.
 */
int rt_calibrate_traces(const rt_trace *const *t, size_t n, const struct rt_calib_options *o,
                        struct rt_calibration *out, rt_error *err);

/**
 * Fits @p t's messages (eager up to @p eager_limit; samples above @p cut_coef times their
 * size's median dropped; the other options' defaults). RT_OK, or RT_ENOMEM.
 */
int rt_calibrate(const rt_trace *t, rt_bytes eager_limit, double cut_coef, struct rt_calibration *out,
                 rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
