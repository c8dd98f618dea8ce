/* SPDX-License-Identifier: MIT */
/* The Shift paper's closed forms (see shift_model.h). */
#include "retime/shift_model.h"

int rt_shift_predict(const struct rt_shift_config *c, double alpha_ns, double beta_ns_per_byte, double *ns,
                     double dim_ns[3], uint64_t dim_bytes[3], rt_error *err)
{
    if (c->dims != 1 && c->dims != 3)
        return rt_error_set(err, RT_ERANGE, "shift: dims must be 1 or 3, not %d", c->dims);
    if (c->k < 1 || c->k > 1000000)
        return rt_error_set(err, RT_ERANGE, "shift: k must be between 1 and 1000000, not %d", c->k);
    double total = 0, hops = (c->synchronous ? 4.0 : 2.0) * c->k;
    uint64_t m = c->m1, grow = 2 * (uint64_t)c->k + 1;
    for (int d = 0; d < 3; d++) {
        double t = 0;
        if (d < c->dims) {
            if (d > 0) {
                if (m > UINT64_MAX / grow)
                    return rt_error_set(err, RT_ERANGE, "shift: message of dimension %d overflows 64 bits", d + 1);
                m *= grow; /* eq. 2: the next dimension forwards all 2k+1 blocks */
            }
            t = hops * (alpha_ns + beta_ns_per_byte * (double)m);
            total += t;
        }
        if (dim_ns)
            dim_ns[d] = t;
        if (dim_bytes)
            dim_bytes[d] = d < c->dims ? m : 0;
    }
    *ns = total;
    return RT_OK;
}

/* --- Team Shift (docs/team-shift.md derives each term) ------------------------------------- */

int rt_team_shift_rounds(int c)
{
    int q = 0;
    while (q < 31 && (1L << q) < (long)c)
        q++;
    return q;
}

int rt_team_shift_hops(int k, int c)
{
    /* Member j of a team collects the offsets o in [-k, k] with o = j + b (mod c), b = k mod c,
     * and needs one message per block, less one for the class holding offset 0 (its own box,
     * known from the broadcast). The largest class has ceil((2k+1)/c) offsets; when c divides
     * k every class but offset 0's is smaller by one, so M is one less. */
    long w = 2L * k + 1;
    return (int)((w + c - 1) / c - (k % c == 0));
}

int rt_team_shift_predict(const struct rt_team_shift_config *c, double alpha_ns, double beta_ns_per_byte,
                          double *ns, struct rt_team_shift_dim dim[3], rt_error *err)
{
    if (c->dims != 1 && c->dims != 3)
        return rt_error_set(err, RT_ERANGE, "team-shift: dims must be 1 or 3, not %d", c->dims);
    if (c->k < 1 || c->k > 1000000)
        return rt_error_set(err, RT_ERANGE, "team-shift: k must be between 1 and 1000000, not %d", c->k);
    if (c->c < 1 || c->c > 1000000)
        return rt_error_set(err, RT_ERANGE, "team-shift: the team size c must be between 1 and 1000000, not %d",
                            c->c);
    const int q = rt_team_shift_rounds(c->c), M = rt_team_shift_hops(c->k, c->c);
    const int tilt = c->k % c->c != 0; /* the leader's class lacks offset 0: one hop to reach it */
    const uint64_t grow = 2 * (uint64_t)c->k + 1;
    uint64_t m = c->m1;
    double total = 0;
    for (int d = 0; d < 3; d++) {
        struct rt_team_shift_dim r = {0};
        if (d < c->dims) {
            if (d > 0) {
                if (m > UINT64_MAX / grow)
                    return rt_error_set(err, RT_ERANGE, "team-shift: message of dimension %d overflows 64 bits",
                                        d + 1);
                m *= grow; /* the leader forwards all 2k+1 blocks of the previous dimension */
            }
            if (m > UINT64_MAX / (uint64_t)M / (uint64_t)c->c)
                return rt_error_set(err, RT_ERANGE, "team-shift: gather of dimension %d overflows 64 bits", d + 1);
            const double T = alpha_ns + beta_ns_per_byte * (double)m;
            r.bytes = m;
            r.reduce_bytes = (uint64_t)M * m;
            r.bcast_ns = q * T;
            r.tilt_ns = tilt ? 2.0 * T : 0.0;
            r.shift_ns = 2.0 * (M - tilt) * T;
            for (int i = 0; i < q; i++) { /* round i: the leader receives the subtree of rank 2^i */
                long blocks = (1L << i) < (long)c->c - (1L << i) ? (1L << i) : (long)c->c - (1L << i);
                r.reduce_ns += alpha_ns + beta_ns_per_byte * (double)blocks * (double)r.reduce_bytes;
            }
            r.total_ns = r.bcast_ns + r.tilt_ns + r.shift_ns + r.reduce_ns;
            total += r.total_ns;
        }
        if (dim)
            dim[d] = r;
    }
    *ns = total;
    return RT_OK;
}
