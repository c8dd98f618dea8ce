/* SPDX-License-Identifier: MIT */
/* The model registry (one line per model) and the table of model parameters. */
#include <math.h>
#include <string.h>

#include "retime/model.h"

static const struct rt_model_ops *const registry[] = {
    &rt_model_hockney,
    &rt_model_logp,
};

#define P(field) offsetof(struct rt_model_params, field)
const struct rt_param_desc rt_model_param_table[] = {
    {"alpha", "hockney", RT_PU_TIME, P(alpha_ns), "latency: T(m) = alpha + beta*m"},
    {"beta", "hockney", RT_PU_INV_BW, P(beta_ns_per_byte), "inverse bandwidth (or a bandwidth, 10GB/s)"},
    {"L", "logp", RT_PU_TIME, P(L_ns), "network latency"},
    {"o_s", "logp", RT_PU_TIME, P(o_s_ns), "CPU overhead of a send"},
    {"o_r", "logp", RT_PU_TIME, P(o_r_ns), "CPU overhead of a receive"},
    {"g", "logp", RT_PU_TIME, P(g_ns), "gap between consecutive messages of a port"},
    {"G", "logp", RT_PU_INV_BW, P(G_ns_per_byte), "gap per byte (inverse bandwidth)"},
    {NULL, NULL, RT_PU_TIME, 0, NULL},
};
#undef P

int rt_model_param_find(const char *name)
{
    for (int i = 0; rt_model_param_table[i].name; i++)
        if (strcmp(rt_model_param_table[i].name, name) == 0)
            return i;
    return -1;
}

double *rt_model_param_ptr(struct rt_model_params *p, int index)
{
    return (double *)((char *)p + rt_model_param_table[index].offset);
}

const char *rt_model_names(void)
{
    return "hockney|logp";
}

int rt_model_check_params(const struct rt_model_params *p, const char *model, rt_error *err)
{
    for (int i = 0; rt_model_param_table[i].name; i++) {
        const struct rt_param_desc *d = &rt_model_param_table[i];
        if (strcmp(d->model, model) != 0)
            continue;
        double v = *(const double *)((const char *)p + d->offset);
        double max = d->unit == RT_PU_TIME ? 1e12 : 1e6;
        if (!(v >= 0) || !isfinite(v) || v > max)
            return rt_error_set(err, RT_ERANGE, "%s: %s must be between 0 and %s", model, d->name,
                                d->unit == RT_PU_TIME ? "1000s" : "1ms/B");
    }
    return RT_OK;
}

rt_time_ps rt_ns_to_ps(double ns)
{
    double ps = ns * 1e3;
    if (!(ps > 0))
        return 0;
    return ps < 4e18 ? (rt_time_ps)llround(ps) : (rt_time_ps)4e18;
}

rt_time_ps rt_model_zero(const struct rt_model_params *p, rt_bytes m)
{
    (void)p;
    (void)m;
    return 0;
}

int rt_model_init(struct rt_model *m, const char *name, const struct rt_model_params *p, rt_error *err)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        if (strcmp(registry[i]->name, name) == 0) {
            int rc = registry[i]->validate(p, err);
            if (rc)
                return rc;
            m->ops = registry[i];
            m->params = *p;
            return RT_OK;
        }
    }
    return rt_error_set(err, RT_EINVAL, "unknown model '%s' (known: %s)", name, rt_model_names());
}
