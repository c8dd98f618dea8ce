/* SPDX-License-Identifier: MIT */
/*
 * Hockney model (Hockney & Jesshope 1988; as used by Werner et al., "Analytical Model of
 * Communication Algorithm for Simulations with Range-Limited Interactions", eq. 1-3):
 *
 *     T(m) = α + β·m          α: latency [ns], β: inverse bandwidth [ns/B]
 *
 * Semantics in the replay (engine.c implements them, this file supplies T):
 *  - Single port per direction, full duplex: a message occupies its sender's send port for
 *    T(m), so a rank's consecutive sends are at least T apart (the paper's eq. 1: 2k messages
 *    of T each per dimension), and its receiver's receive port for T(m) on arrival.
 *  - Eager (m <= eager limit and the send is not synchronous): the transfer starts when the
 *    send is posted and the port is free; a blocking send returns when its port is released
 *    (start + T); the receive completes at max(receive posted, start + T).
 *  - Rendezvous (MPI_Ssend/MPI_Issend, or m > eager limit): the transfer starts when both
 *    sides are posted (and the ports are free), without an extra handshake cost; both
 *    complete at start + T.
 *  - No CPU overheads (o = 0): Hockney charges everything to the message.
 *  - With a β table (`--beta-table`: the `beta@SIZE` entries of a parameter file, the paper's
 *    Table 1), T(m) runs piecewise linearly through (0, α) and the measured (s_i, α + β_i·s_i),
 *    and beyond the largest measured size as α + β_last·m.
 */
#include <math.h>

#include "retime/model.h"

/* T(m) [ns] through the β table (nbeta > 0). */
static double table_time_ns(const struct rt_model_params *p, rt_bytes m)
{
    uint32_t n = p->nbeta, i = 0;
    while (i < n && p->beta_size[i] < m)
        i++;
    if (i == n) /* beyond the largest measured size: its β */
        return p->alpha_ns + p->beta_at[n - 1] * (double)m;
    double x1 = (double)p->beta_size[i], t1 = p->alpha_ns + p->beta_at[i] * x1;
    double x0 = i ? (double)p->beta_size[i - 1] : 0.0;
    double t0 = i ? p->alpha_ns + p->beta_at[i - 1] * x0 : p->alpha_ns;
    return t0 + (t1 - t0) * ((double)m - x0) / (x1 - x0);
}

rt_time_ps rt_hockney_time_ps(const struct rt_model_params *p, rt_bytes m)
{
    /* α and β are given in ns; the engine counts in ps so that T(1000) = 2881.5 ns stays exact. */
    if (p->nbeta)
        return rt_ns_to_ps(table_time_ns(p, m));
    return rt_ns_to_ps(p->alpha_ns + p->beta_ns_per_byte * (double)m);
}

static int hockney_validate(const struct rt_model_params *p, rt_error *err)
{
    int rc = rt_model_check_params(p, "hockney", err);
    if (rc || p->nbeta == 0)
        return rc;
    if (p->nbeta > RT_BETA_TABLE_MAX)
        return rt_error_set(err, RT_ERANGE, "hockney: more than %d sizes in the beta table", RT_BETA_TABLE_MAX);
    for (uint32_t i = 0; i < p->nbeta; i++) {
        if (p->beta_size[i] == 0 || (i && p->beta_size[i] <= p->beta_size[i - 1]))
            return rt_error_set(err, RT_EINVAL, "hockney: beta table sizes must be above 0 and increasing");
        double t = p->alpha_ns + p->beta_at[i] * (double)p->beta_size[i];
        if (!isfinite(p->beta_at[i]) || !(t >= 0) || t > 1e12)
            return rt_error_set(err, RT_ERANGE, "hockney: beta@%lluB gives T = %g ns, not between 0 and 1000s",
                                (unsigned long long)p->beta_size[i], t);
    }
    if (p->beta_at[p->nbeta - 1] < 0)
        return rt_error_set(err, RT_ERANGE, "hockney: the largest size's beta must not be negative");
    return RT_OK;
}

const struct rt_model_ops rt_model_hockney = {
    .name = "hockney",
    .validate = hockney_validate,
    .o_send = rt_model_zero,
    .o_recv = rt_model_zero,
    .gap = rt_hockney_time_ps,
    .wire = rt_hockney_time_ps,
    .send_hold = rt_hockney_time_ps,
    .handshake = rt_model_zero,
};
