/* SPDX-License-Identifier: MIT */
/* The collective tests' shared harness (coll_harness.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "coll_harness.h"
#include "test_util.h"

const struct rt_model_params hockney = {.alpha_ns = 2000, .beta_ns_per_byte = 1};
const struct rt_model_params logp = {.L_ns = 1000, .o_s_ns = 100, .o_r_ns = 200, .g_ns = 300};

char tmp_root[256];
static int ntraces;
const char *g_topology;
int g_injection;

void counts(int op, uint32_t P, uint32_t me, uint32_t root, uint64_t b, uint64_t *s, uint64_t *r)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        *s = *r = 0;
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
        *s = me == root ? P * b : 0;
        *r = b;
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
        *s = b;
        *r = me == root ? P * b : 0;
        break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: /* b: one rank's share of the vector */
        *s = *r = P * b;
        break;
    case OTF2_COLLECTIVE_OP_SCAN:
        *s = (P - me) * b;
        *r = (me + 1) * b;
        break;
    default:
        *s = *r = b;
        break;
    }
}

tb_builder *new_trace(char *dir, size_t n, uint32_t ranks)
{
    snprintf(dir, n, "%s/t%d", tmp_root, ntraces++);
    return tb_create(dir, ranks);
}

void add_call(tb_builder *b, uint32_t r, uint64_t late, const char *call, int op, uint32_t root, uint64_t s,
              uint64_t rv)
{
    if (late) {
        tb_enter(b, r, 0, "work");
        tb_leave(b, r, late, "work");
    }
    tb_collective(b, r, late, late + 1000, call, op, root, s, rv);
}

int replay(const char *dir, const struct setup *su, rt_time_ps *end, uint32_t n, rt_error *err)
{
    rt_trace *t = NULL;
    struct rt_replay_options o;
    struct rt_replay_result *res = NULL;
    rt_replay_options_default(&o);
    const char *model = su && su->model ? su->model : "hockney";
    const struct rt_model_params *params = strcmp(model, "logp") ? &hockney : &logp;
    int rc = rt_model_init(&o.model, model, su && su->params ? su->params : params, err);
    if (rc)
        return rc;
    o.compute_scale = su ? su->scale : 0;
    o.eager_limit = su && su->eager ? su->eager : 65536;
    if (su && su->algos && (rc = rt_coll_algo_parse(su->algos, o.coll_algo, err)))
        return rc;
    rt_coll_rules *rules = NULL;
    if (su && su->rules && (rc = rt_coll_rules_open(su->rules, &rules, err)))
        return rc;
    o.coll_rules = rules;
    rt_network *net = NULL;
    const char *topo = su && su->topology ? su->topology : g_topology;
    if (topo) {
        char spec[64];
        struct rt_network_params np;
        rt_network_params_default(&np);
        snprintf(spec, sizeof spec, "%s", topo);
        if (!strcmp(topo, "crossbar")) /* (n = 0: a trace the test expects to be refused) */
            snprintf(spec, sizeof spec, "crossbar:%u", n ? n : MAXP);
        np.topology = spec;
        if ((rc = rt_network_create(&np, n, &net, err)))
            return rc;
        o.network = net;
        o.injection = g_injection;
    }
    rc = rt_trace_open(dir, &t, err);
    if (rc == RT_OK)
        rc = rt_replay_run(t, &o, NULL, &res, err);
    rt_network_destroy(net);
    if (rc == RT_OK) {
        CHECK_EQ_INT(res->ranks, n);
        for (uint32_t r = 0; r < n && r < res->ranks; r++)
            end[r] = res->predicted_end_ps[r];
    }
    rt_replay_result_destroy(res);
    rt_trace_close(t);
    rt_coll_rules_free(rules);
    return rc;
}

void check_coll(const char *what, const struct setup *su, uint32_t P, int op, const char *call, uint32_t root,
                uint64_t block, const uint64_t *late, const rt_time_ps *want)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t s, rv;
        counts(op, P, r, root, block, &s, &rv);
        add_call(b, r, late ? late[r] : 0, call, op, root, s, rv);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_time_ps end[MAXP] = {0};
    rt_error err = {0};
    int rc = replay(dir, su, end, P, &err);
    CHECK_EQ_INT(rc, RT_OK);
    if (rc)
        fprintf(stderr, "  %s: %s\n", what, err.msg);
    for (uint32_t r = 0; r < P && rc == RT_OK; r++)
        if (end[r] != want[r]) {
            fprintf(stderr, "%s: rank %u ends at %lld ps, expected %lld ps\n", what, r, (long long)end[r],
                    (long long)want[r]);
            rt_test_failures++;
        }
}

void fill(rt_time_ps *want, uint32_t P, rt_time_ps v)
{
    for (uint32_t r = 0; r < P; r++)
        want[r] = v;
}

int harness_failures(void)
{
    return rt_test_failures;
}
