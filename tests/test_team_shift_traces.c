/* SPDX-License-Identifier: MIT */
/*
 * Integration test: replays a stored Team Shift trace (traces/team-shift/, the shift benchmark's
 * --algorithm team-shift) with --compute-scale 0 under Hockney (α = 2122 ns, β = 0.7595 ns/B)
 * and compares every `shift_iteration` instance, within 0.1%, with
 *   - the mean and the max over the ranks of a schedule computed here by hand from the algorithm
 *     (docs/team-shift.md): binomial broadcast, one tilt hop, hops in steps of C, binomial
 *     gather, every message a rendezvous that starts when both sides are there and ends T(m)
 *     later, every even/odd hop two such phases;
 *   - the closed form rt_team_shift_predict, which must equal that schedule's max (the leader).
 * The parameters come from the trace's directory name, teamshift1d-ssend-p{P}-c{C}-k{K}-m{M1}.
 * For C = 1 the answer is also the Shift's 4k·T(m1) (the paper's eq. 1 times two, Table 2).
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/depgraph.h"
#include "retime/region_stats.h"
#include "retime/replay.h"
#include "retime/shift_model.h"
#include "test_util.h"

#define ALPHA 2122.0
#define BETA 0.7595

static double hockney(double bytes)
{
    return ALPHA + BETA * bytes;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* The blocks member j collects and the messages it needs (its class's offsets, less offset 0). */
static int class_blocks(int k, int C, int j, int *has_zero)
{
    int s = (j + k % C) % C, n = 0;
    *has_zero = 0;
    for (int o = -k; o <= k; o++)
        if (((o - s) % C + C) % C == 0) {
            n++;
            *has_zero |= o == 0;
        }
    return n;
}

/* Each member's end of the iteration, 1D, ranks of one team (all teams are alike). */
static void schedule(int C, int k, double m, double *end)
{
    double T = hockney(m);
    int q = 0;
    while ((1 << q) < C)
        q++;
    for (int j = 0; j < C; j++)
        end[j] = 0;
    /* broadcast, MPICH's binomial order */
    for (int i = 0; i < q; i++) {
        int mask = 1 << (q - 1 - i);
        for (int j = 0; j < C; j += 2 * mask)
            if (j + mask < C) {
                double t = max2(end[j], end[j + mask]) + T;
                end[j] = end[j + mask] = t;
            }
    }
    /* tilt and shift: every hop two phases of T(m); the M of the gather is the largest count */
    int M = 0;
    for (int j = 0; j < C; j++) {
        int z, n = class_blocks(k, C, j, &z);
        int hops = n - z;
        end[j] += 2.0 * hops * T;
        if (hops > M)
            M = hops;
    }
    /* gather: round i, j = 2^i (mod 2^(i+1)) sends its subtree's M-block shares to j - 2^i */
    for (int i = 0; i < q; i++) {
        int step = 1 << i;
        for (int j = step; j < C; j += 2 * step) {
            int cnt = step < C - j ? step : C - j;
            double t = max2(end[j], end[j - step]) + hockney((double)cnt * M * m);
            end[j] = end[j - step] = t;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_team_shift_traces TRACE_DIR\n");
        return 2;
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", argv[1]);
    const char *name = basename(copy);
    int dims, p, C, k;
    char mode[16];
    unsigned long long m1;
    if (sscanf(name, "teamshift%dd-%15[a-z]-p%d-c%d-k%d-m%llu", &dims, mode, &p, &C, &k, &m1) != 6 || dims != 1 ||
        strcmp(mode, "ssend") != 0 || C < 1 || C > 64 || p % C) {
        fprintf(stderr, "cannot parse trace name '%s'\n", name);
        return 2;
    }
    double end[64], mean = 0, max = 0;
    schedule(C, k, (double)m1, end);
    for (int j = 0; j < C; j++) {
        mean += end[j] / C;
        max = max2(max, end[j]);
    }
    CHECK_NEAR(end[0], max, 1e-9); /* the leader finishes last */

    /* the closed form is the leader's time */
    rt_error err = {0};
    double closed = 0;
    struct rt_team_shift_config tc = {.dims = 1, .k = k, .c = C, .m1 = m1};
    CHECK_EQ_INT(rt_team_shift_predict(&tc, ALPHA, BETA, &closed, NULL, &err), RT_OK);
    CHECK_NEAR(closed, max, max * 1e-12);
    if (C == 1)
        CHECK_NEAR(closed, 4.0 * k * hockney((double)m1), 1e-6);
    printf("%s: schedule max %.1f ns mean %.1f ns, closed form %.1f ns\n", name, max, mean, closed);

    rt_trace *t = NULL;
    if (rt_trace_open(argv[1], &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    CHECK_EQ_INT(rt_trace_ranks(t), p);
    struct rt_model_params par = {.alpha_ns = ALPHA, .beta_ns_per_byte = BETA};
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
    for (uint64_t i = 0; i < n; i++) {
        printf("  iteration %llu: predicted mean %.1f ns, max %.1f ns, measured mean %.1f ns (%u ranks)\n",
               (unsigned long long)i, inst[i].predicted_mean_ns, inst[i].predicted_max_ns, inst[i].measured_mean_ns,
               inst[i].ranks);
        CHECK_EQ_INT(inst[i].ranks, p);
        CHECK_NEAR(inst[i].predicted_max_ns, max, max * 1e-3);
        CHECK_NEAR(inst[i].predicted_mean_ns, mean, mean * 1e-3);
    }
    rt_replay_result_destroy(res);
    rt_region_stats_destroy(rs);

    /* The four step regions are there, once per measured iteration and rank. */
    static const char *const steps[] = {"team_broadcast", "team_tilt", "team_shift", "team_reduce"};
    for (int s = 0; s < 4; s++) {
        uint32_t r = rt_trace_find_region(t, steps[s]);
        CHECK(r != RT_NONE);
        if (r == RT_NONE)
            continue;
        rt_region_stats *ss = NULL;
        CHECK_EQ_INT(rt_region_stats_create(t, r, &ss, &err), RT_OK);
        struct rt_replay_observer so = {.ud = ss, .on_event = rt_region_stats_on_event};
        struct rt_replay_result *sr = NULL;
        CHECK_EQ_INT(rt_replay_run(t, &o, &so, &sr, &err), RT_OK);
        uint64_t sn = 0;
        CHECK_EQ_INT(rt_region_stats_instances(ss, &inst, &sn, &err), RT_OK);
        CHECK_EQ_INT(sn, 10);
        rt_replay_result_destroy(sr);
        rt_region_stats_destroy(ss);
    }

    /* The dependency contract and the critical path's length, as for the Shift traces. */
    rt_depgraph *g = NULL;
    struct rt_replay_observer dobs;
    struct rt_replay_result *dres = NULL;
    const struct rt_critical_path *cp = NULL;
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (g) {
        rt_depgraph_observer(g, &dobs);
        CHECK_EQ_INT(rt_replay_run(t, &o, &dobs, &dres, &err), RT_OK);
        CHECK_EQ_INT(rt_depgraph_check(g, &err), RT_OK);
        CHECK_EQ_INT(rt_depgraph_critical_path(g, &cp, &err), RT_OK);
        if (cp && dres)
            CHECK_EQ_INT(cp->end_ps, dres->predicted_ps);
        rt_replay_result_destroy(dres);
        rt_depgraph_destroy(g);
    }
    rt_trace_close(t);
    TEST_MAIN_END();
}
