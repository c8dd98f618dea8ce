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
 */
#include "retime/model.h"

rt_time_ps rt_hockney_time_ps(const struct rt_model_params *p, rt_bytes m)
{
    /* α and β are given in ns; the engine counts in ps so that T(1000) = 2881.5 ns stays exact. */
    return rt_ns_to_ps(p->alpha_ns + p->beta_ns_per_byte * (double)m);
}

static int hockney_validate(const struct rt_model_params *p, rt_error *err)
{
    return rt_model_check_params(p, "hockney", err);
}

static rt_time_ps nothing(const struct rt_model_params *p, rt_bytes m)
{
    (void)p;
    (void)m;
    return 0;
}

const struct rt_model_ops rt_model_hockney = {
    .name = "hockney",
    .validate = hockney_validate,
    .o_send = nothing,
    .o_recv = nothing,
    .gap = rt_hockney_time_ps,
    .wire = rt_hockney_time_ps,
    .send_hold = rt_hockney_time_ps,
    .handshake = nothing,
};
