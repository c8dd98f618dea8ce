/* SPDX-License-Identifier: MIT */
/* The eager limit as the MPI libraries have it (issue #46, item 3).
 *
 * retime's eager limit is the largest payload sent eagerly: a message of m bytes goes eagerly iff
 * m <= limit (engine.c, coll_sim.c). The libraries' own settings mean something else: Open MPI's
 * ob1 subtracts its largest header from a BTL's eager limit, MPICH counts its packet header, and
 * some compare with < (sources: Open MPI v4.1.8 ompi/mca/pml/ob1/pml_ob1_sendreq.h, pml_ob1_hdr.h;
 * MPICH v4.2.3 src/mpid/ch3/src/mpid_send.c, src/mpid/ch4/shm/src/shm_am.h, .../ofi/ofi_send.h;
 * UCX v1.15 src/ucp/core/ucp_request.c; the header sizes are x86-64's, derived in
 * docs/network.md). This table turns a setting into retime's limit, so that a message of exactly
 * the library's boundary takes the protocol the library gives it. */
#include <string.h>

#include "retime/model.h"
#include "retime/units.h"

struct eager_rule {
    const char *prefix, *suffix; /* the setting's name: prefix...suffix (suffix NULL: exactly prefix) */
    rt_bytes header;             /* bytes of the setting that are not payload */
    int strict;                  /* the library's test is payload < setting (else <=) */
    const char *rule;            /* how the limit follows, e.g. "less Open MPI ob1's 56 B header" */
};

static const struct eager_rule rules[] = {
    {"btl_", "_eager_limit", 56, 0,
     "less Open MPI ob1's 56 B header"},
    {"MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", NULL, 32, 0,
     "less MPICH ch3's 32 B eager packet"},
    {"MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ", NULL, 32, 0,
     "less MPICH ch3's 32 B eager packet"},
    {"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", NULL, 80, 0,
     "less MPICH ch4's 80 B of cell and message headers"},
    {"MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE", NULL, 0, 1, "less 1 B: MPICH ch4's OFI sends eagerly below it"},
    {"UCX_RNDV_THRESH", NULL, 0, 1, "less 1 B: UCX sends eagerly below it"},
};

static const struct eager_rule *rule_of(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const struct eager_rule *r = &rules[i];
        size_t lp = strlen(r->prefix);
        if (!r->suffix) {
            if (n == lp && !strncmp(name, r->prefix, n))
                return r;
            continue;
        }
        size_t ls = strlen(r->suffix);
        if (n > lp + ls && !strncmp(name, r->prefix, lp) && !strncmp(name + n - ls, r->suffix, ls))
            return r;
    }
    return NULL;
}

int rt_eager_limit_of(const char *setting, rt_bytes value, rt_bytes *payload, const char **rule, rt_error *err)
{
    const struct eager_rule *r = rule_of(setting, strlen(setting));
    if (!r)
        return rt_error_set(err, RT_EINVAL,
                            "unknown eager setting '%.80s' (known: btl_<transport>_eager_limit, "
                            "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE, MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ, "
                            "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE, MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE, "
                            "UCX_RNDV_THRESH)",
                            setting);
    rt_bytes cut = r->header + (rt_bytes)r->strict;
    if (value < cut || (r->strict && value == 0))
        return rt_error_set(err, RT_ERANGE, "%s=%llu B leaves no payload (%s)", setting,
                            (unsigned long long)value, r->rule);
    *payload = value - cut;
    if (rule)
        *rule = r->rule;
    return RT_OK;
}

int rt_eager_limit_parse(const char *spec, rt_bytes *payload, const char **rule, rt_error *err)
{
    const char *eq = strchr(spec, '=');
    if (rule)
        *rule = NULL;
    if (!eq)
        return rt_parse_bytes(spec, payload, err);
    char name[128];
    size_t n = (size_t)(eq - spec);
    if (n == 0 || n >= sizeof name)
        return rt_error_set(err, RT_EINVAL, "'%.80s' is not SIZE or SETTING=SIZE", spec);
    memcpy(name, spec, n);
    name[n] = '\0';
    rt_bytes value;
    int rc = rt_parse_bytes(eq + 1, &value, err);
    if (rc)
        return rc;
    return rt_eager_limit_of(name, value, payload, rule, err);
}
