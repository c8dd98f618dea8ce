/* SPDX-License-Identifier: MIT */
/*
 * LogP-lite: LogP (Culler, Karp, Patterson, Sahay, Schauser, Santos, Subramonian, von Eicken,
 * "LogP: Towards a Realistic Model of Parallel Computation", PPoPP 1993) with LogGP's gap per
 * byte for long messages (Alexandrov, Ionescu, Schauser, Scheiman, "LogGP: Incorporating Long
 * Messages into the LogP Model", SPAA 1995), and separate send / receive overheads.
 *
 * Parameters: L latency, o_s / o_r CPU overhead of a send / receive, g gap between consecutive
 * messages, G gap per byte (all in ns, G in ns/B). For a message of m bytes:
 *
 *     sender CPU busy           o_s                      (before the message is injected)
 *     injection spacing         gap(m)  = max(g, m·G)    (consecutive injections of a rank,
 *                                                          and likewise consecutive receptions)
 *     network                   wire(m) = L + (m-1)·G    (first byte injected -> last arrives;
 *                                                          L for m = 0)
 *     receiver CPU busy         o_r                      (once it has arrived and the receive
 *                                                          is being waited for)
 *
 * so a ping-pong round trip is 2·(o_s + L + (m-1)·G + o_r), and n eager sends from one rank to
 * n different ranks end at o_s + (n-1)·max(o_s, g, m·G) + L + (m-1)·G + o_r (Culler et al. §3).
 *
 * Protocols (engine.c): an eager blocking send returns when its message is injected (the CPU
 * is free after o_s; the port's gap delays only the next injection). A rendezvous first
 * exchanges one control message once both sides are posted, o_r + L + o_s, then moves the data;
 * both sides complete when the data has arrived (the receiver then pays o_r).
 */
#include "retime/model.h"

static int logp_validate(const struct rt_model_params *p, rt_error *err)
{
    return rt_model_check_params(p, "logp", err);
}

static rt_time_ps o_send(const struct rt_model_params *p, rt_bytes m)
{
    (void)m;
    return rt_ns_to_ps(p->o_s_ns);
}

static rt_time_ps o_recv(const struct rt_model_params *p, rt_bytes m)
{
    (void)m;
    return rt_ns_to_ps(p->o_r_ns);
}

static rt_time_ps gap(const struct rt_model_params *p, rt_bytes m)
{
    double per_bytes = p->G_ns_per_byte * (double)m;
    return rt_ns_to_ps(per_bytes > p->g_ns ? per_bytes : p->g_ns);
}

static rt_time_ps wire(const struct rt_model_params *p, rt_bytes m)
{
    return rt_ns_to_ps(p->L_ns + (m ? p->G_ns_per_byte * (double)(m - 1) : 0.0));
}

static rt_time_ps handshake(const struct rt_model_params *p, rt_bytes m)
{
    (void)m;
    return rt_ns_to_ps(p->o_r_ns + p->L_ns + p->o_s_ns);
}

const struct rt_model_ops rt_model_logp = {
    .name = "logp",
    .validate = logp_validate,
    .o_send = o_send,
    .o_recv = o_recv,
    .gap = gap,
    .wire = wire,
    .send_hold = rt_model_zero, /* an eager send returns at injection */
    .handshake = handshake,
};
