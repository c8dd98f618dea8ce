/* SPDX-License-Identifier: MIT */
/*
 * Integration test: replays a stored Shift trace with --compute-scale 0 under Hockney
 * (α = 2122 ns, β = 0.7595 ns/B) and compares every `shift_iteration` instance with the
 * closed-form model of Werner et al. (shared/papers/000_*.txt), within 0.1%:
 *   1D ssend: 4k·T(m1)                     (eq. 1 times two: send and receive alternate)
 *   3D ssend: Σ_d 4k·T(m_d)                (eq. 3)
 *   isend:    Σ_d 2k·T(m_d)                (eq. 2)
 * with m_d = (2k+1)^(d-1)·m1. The parameters come from the trace's directory name,
 * shift{1d,3d}-{ssend,isend}-p{P}-k{K}-m{M1}.
 */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "retime/depgraph.h"
#include "retime/region_stats.h"
#include "retime/replay.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_shift_traces TRACE_DIR\n");
        return 2;
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", argv[1]);
    const char *name = basename(copy);
    int dims, p, k;
    char mode[16];
    unsigned long long m1;
    if (sscanf(name, "shift%dd-%15[a-z]-p%d-k%d-m%llu", &dims, mode, &p, &k, &m1) != 5) {
        fprintf(stderr, "cannot parse trace name '%s'\n", name);
        return 2;
    }
    struct rt_model_params par = {.alpha_ns = 2122.0, .beta_ns_per_byte = 0.7595};
    double expected_ns = 0, md = (double)m1;
    for (int d = 0; d < dims; d++) {
        double T = par.alpha_ns + par.beta_ns_per_byte * md;
        expected_ns += (strcmp(mode, "ssend") == 0 ? 4.0 : 2.0) * k * T;
        md *= 2 * k + 1;
    }
    rt_error err = {0};
    rt_trace *t = NULL;
    if (rt_trace_open(argv[1], &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    CHECK_EQ_INT(rt_trace_ranks(t), p);

    /* Every message carries one of the pattern's sizes on a communicator the trace defines, its
     * completions and the calls around it none; one payload per message event and collective
     * record, none past a row's end. */
    const struct rt_trace_stats *st = rt_trace_stats(t);
    uint64_t with_payload = 0, bad_sizes = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t ne;
        const struct rt_event *ev = rt_trace_events(t, r, &ne);
        for (uint64_t i = 0; i < ne; i++) {
            struct rt_event_payload pl = rt_trace_payload(t, r, i);
            int msg = ev[i].kind == RT_EV_SEND || ev[i].kind == RT_EV_ISEND || ev[i].kind == RT_EV_RECV ||
                      ev[i].kind == RT_EV_IRECV_REQUEST || ev[i].kind == RT_EV_IRECV;
            int coll = ev[i].kind == RT_EV_COLL_BEGIN || ev[i].kind == RT_EV_COLL_END;
            if (msg || coll) {
                with_payload++;
                CHECK(pl.comm < rt_trace_comms(t));
            } else {
                CHECK_EQ_INT(pl.comm, RT_EV_NO_COMM);
                CHECK_EQ_INT(pl.bytes, 0);
            }
            if (msg) {
                unsigned long long size = m1;
                int ok = 0;
                for (int d = 0; d < dims; d++, size *= 2ull * (unsigned)k + 1)
                    ok |= pl.bytes == size;
                bad_sizes += !ok;
            }
        }
        CHECK_EQ_INT(rt_trace_payload(t, r, ne).comm, RT_EV_NO_COMM);
    }
    CHECK_EQ_INT(bad_sizes, 0);
    CHECK_EQ_INT(with_payload, st->sends + st->isends + st->recvs + 2 * st->irecvs + 2 * st->collectives);
    CHECK_EQ_INT(rt_trace_payload(t, rt_trace_ranks(t), 0).bytes, 0);
    struct rt_replay_options o;
    rt_replay_options_default(&o);
    CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &par, &err), RT_OK);
    o.compute_scale = 0;
    rt_region_stats *rs = NULL;
    uint32_t reg = rt_trace_find_region(t, "shift_iteration");
    CHECK(reg != RT_NONE);
    CHECK_EQ_INT(rt_region_stats_create(t, reg, &rs, &err), RT_OK);
    struct rt_replay_observer obs = {.ud = rs, .on_event = rt_region_stats_on_event};
    struct rt_replay_result *res = NULL;
    int rc = rt_replay_run(t, &o, &obs, &res, &err);
    CHECK_EQ_INT(rc, RT_OK);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    const struct rt_region_instance *inst = NULL;
    uint64_t n = 0;
    if (rc == RT_OK)
        CHECK_EQ_INT(rt_region_stats_instances(rs, &inst, &n, &err), RT_OK);
    CHECK_EQ_INT(n, 10); /* 10 measured iterations */
    printf("%s: closed form %.1f ns per iteration\n", name, expected_ns);
    for (uint64_t i = 0; i < n; i++) {
        printf("  iteration %llu: predicted mean %.1f ns, max %.1f ns, measured mean %.1f ns (%u ranks)\n",
               (unsigned long long)i, inst[i].predicted_mean_ns, inst[i].predicted_max_ns, inst[i].measured_mean_ns,
               inst[i].ranks);
        CHECK_EQ_INT(inst[i].ranks, p);
        CHECK_NEAR(inst[i].predicted_mean_ns, expected_ns, expected_ns * 1e-3);
        CHECK_NEAR(inst[i].predicted_max_ns, expected_ns, expected_ns * 1e-3);
    }
    rt_replay_result_destroy(res);
    rt_region_stats_destroy(rs);

    /* The dependency contract (rt_dep, checked by rt_depgraph_check) under Hockney and LogP-lite,
     * measured compute, with and without every kind of noise; the critical path's length is the
     * run's end. */
    struct rt_model_params lp = {.L_ns = 1000, .o_s_ns = 300, .o_r_ns = 500, .g_ns = 700, .G_ns_per_byte = 0.76};
    rt_dist *nd = NULL;
    rt_os_noise *on = NULL;
    rt_burst *bu = NULL;
    CHECK_EQ_INT(rt_dist_parse("exp:mean=1us", &nd, &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&on, "poisson:interval=20us,duration=exp:mean=2us", &err), RT_OK);
    CHECK_EQ_INT(rt_burst_parse("mmpp:on=5us,off=15us,latency=3,bandwidth=0.5", &bu, &err), RT_OK);
    for (int logp = 0; logp < 2; logp++)
        for (int noisy = 0; noisy < 2; noisy++) {
            struct rt_replay_options q;
            rt_replay_options_default(&q);
            CHECK_EQ_INT(rt_model_init(&q.model, logp ? "logp" : "hockney", logp ? &lp : &par, &err), RT_OK);
            if (noisy) {
                q.net_noise = nd;
                q.os_noise = on;
                q.net_burst = bu;
                q.seed = 7;
            }
            rt_depgraph *g = NULL;
            struct rt_replay_observer dobs;
            struct rt_replay_result *dres = NULL;
            const struct rt_critical_path *cp = NULL;
            CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
            if (!g)
                continue;
            rt_depgraph_observer(g, &dobs);
            CHECK_EQ_INT(rt_replay_run(t, &q, &dobs, &dres, &err), RT_OK);
            rc = rt_depgraph_check(g, &err);
            if (rc)
                fprintf(stderr, "contract: %s\n", err.msg);
            CHECK_EQ_INT(rc, RT_OK);
            CHECK_EQ_INT(rt_depgraph_critical_path(g, &cp, &err), RT_OK);
            if (cp && dres) {
                CHECK_EQ_INT(cp->end_ps, dres->predicted_ps);
                CHECK_EQ_INT(cp->length_ps, cp->end_ps);
            }
            rt_replay_result_destroy(dres);
            rt_depgraph_destroy(g);
        }
    rt_dist_free(nd);
    rt_os_noise_free(on);
    rt_burst_free(bu);
    rt_trace_close(t);
    TEST_MAIN_END();
}
