/* SPDX-License-Identifier: MIT */
/**
 * @file model.h  Network models behind one small ops table.
 *
 * The replay engine asks a model four things about a message of m bytes (all in picoseconds):
 *  - o_send(m), o_recv(m): CPU time the sender / receiver is busy with it (0 in Hockney);
 *  - gap(m): how long it occupies a rank's send port and, on arrival, its receive port
 *    (single port per direction, full duplex);
 *  - wire(m): time from the start of its injection to its arrival at the receiver.
 * Adding a model is one file with its ops table plus one line in model.c's registry.
 */
#ifndef RETIME_MODEL_H
#define RETIME_MODEL_H

#include "retime/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Model parameters as given on the command line or in a parameter file; unused ones are ignored. */
struct rt_model_params {
    double alpha_ns;          /**< Hockney latency α [ns] */
    double beta_ns_per_byte;  /**< Hockney inverse bandwidth β [ns/B] */
};

struct rt_model_ops {
    const char *name;
    /** Checks the parameters; fills @p err and returns an error code when one is unusable. */
    int (*validate)(const struct rt_model_params *p, rt_error *err);
    rt_time_ps (*o_send)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*o_recv)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*gap)(const struct rt_model_params *p, rt_bytes m);
    rt_time_ps (*wire)(const struct rt_model_params *p, rt_bytes m);
};

/** A model instance: ops plus parameters. Plain value, no ownership. */
struct rt_model {
    const struct rt_model_ops *ops;
    struct rt_model_params params;
};

/**
 * Looks up a model by name ("hockney") and checks its parameters.
 * @return RT_OK, RT_EINVAL for an unknown name (the message lists the known ones) or the
 *         model's own validation error.
 */
int rt_model_init(struct rt_model *m, const char *name, const struct rt_model_params *p, rt_error *err);

/** Hockney's point-to-point time T(m) = α + β·m in ps (what wire() and gap() return for it). */
rt_time_ps rt_hockney_time_ps(const struct rt_model_params *p, rt_bytes m);

extern const struct rt_model_ops rt_model_hockney;

#ifdef __cplusplus
}
#endif
#endif
