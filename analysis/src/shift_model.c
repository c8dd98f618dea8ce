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
