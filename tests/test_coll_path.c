/* SPDX-License-Identifier: MIT */
/*
 * The critical path through collectives (issue #44): whatever the operation and algorithm, a
 * member that enters late binds the members that wait for it, so its compute before the call is
 * on the critical path as compute on its rank.
 *
 * 1. Hand-derived: P instances of one collective, each followed by an MPI_Barrier (so that a
 *    late member's delay reaches the end of the run whatever the operation); in instance j
 *    member j is late by D = 10 ms (the others on time): one member late at every position, on P = 3, 5, 6, 8, 13, for
 *    every (operation, algorithm) pair, timed in one go (the model's crossbar) and message by
 *    message on a network (crossbar:P); sizes that do not divide evenly, eager and rendezvous.
 *    The path must hold every rank's compute: D on each.
 * 2. Property: random P up to 64, random pair, size, model and network, random small lateness
 *    on every member plus D on one: the path's segments are contiguous in time and sum to the
 *    predicted end, it ends at the run's end, and the late member is on it with >= D of its own
 *    compute.
 * D dominates every collective's own time here (at most a few ms: blocks up to ~40 KB, divided by
 * P for the operations that move P blocks per member), so nothing but the late member's lateness
 * explains the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_harness.h"
#include "retime/depgraph.h"
#include "retime/network.h"
#include "test_util.h"

#define MS (1000LL * 1000 * NS)
#define D_NS 10000000ULL /* the late member's lateness, 10 ms */

static const int otf2_op[] = {
    [RT_COLL_BARRIER] = OTF2_COLLECTIVE_OP_BARRIER,     [RT_COLL_BCAST] = OTF2_COLLECTIVE_OP_BCAST,
    [RT_COLL_GATHER] = OTF2_COLLECTIVE_OP_GATHER,       [RT_COLL_SCATTER] = OTF2_COLLECTIVE_OP_SCATTER,
    [RT_COLL_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER, [RT_COLL_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
    [RT_COLL_REDUCE] = OTF2_COLLECTIVE_OP_REDUCE,       [RT_COLL_ALLREDUCE] = OTF2_COLLECTIVE_OP_ALLREDUCE,
    [RT_COLL_SCAN] = OTF2_COLLECTIVE_OP_SCAN,
};
static const char *const call_name[] = {
    [RT_COLL_BARRIER] = "MPI_Barrier",     [RT_COLL_BCAST] = "MPI_Bcast",     [RT_COLL_GATHER] = "MPI_Gather",
    [RT_COLL_SCATTER] = "MPI_Scatter",     [RT_COLL_ALLGATHER] = "MPI_Allgather",
    [RT_COLL_ALLTOALL] = "MPI_Alltoall",   [RT_COLL_REDUCE] = "MPI_Reduce", [RT_COLL_ALLREDUCE] = "MPI_Allreduce",
    [RT_COLL_SCAN] = "MPI_Scan",
};

/* LogP-lite with a per-byte gap (a network needs a bandwidth). */
static const struct rt_model_params loggp = {.L_ns = 1000, .o_s_ns = 100, .o_r_ns = 200, .g_ns = 300,
                                             .G_ns_per_byte = 0.25};

/* Every (operation, algorithm) pair the replay knows, found through the public parser, and the
 * reduce_scatter's (the allreduce's vector variant, chosen by a rules file). */
static struct pair {
    int op, algo, reduce_scatter;
} pairs[RT_COLL_OTHER * RT_ALGO_COUNT];
static int npairs;
static const int reduce_scatter_algos[] = {RT_ALGO_RABENSEIFNER, RT_ALGO_RING, RT_ALGO_PAIRWISE,
                                           RT_ALGO_REDUCE_BCAST};

static void find_pairs(void)
{
    for (int op = RT_COLL_BARRIER; op < RT_COLL_OTHER; op++)
        for (int a = RT_ALGO_AUTO + 1; a < RT_ALGO_COUNT; a++) {
            char spec[64];
            uint8_t algo[RT_COLL_OTHER + 1] = {0};
            rt_error err = {0};
            snprintf(spec, sizeof spec, "%s=%s", rt_coll_op_name(op), rt_coll_algo_name(a));
            if (rt_coll_algo_parse(spec, algo, &err) == RT_OK)
                pairs[npairs++] = (struct pair){op, a, 0};
        }
    for (size_t i = 0; i < sizeof reduce_scatter_algos / sizeof reduce_scatter_algos[0]; i++)
        pairs[npairs++] = (struct pair){RT_COLL_ALLREDUCE, reduce_scatter_algos[i], 1};
}

struct path_case {
    struct pair p;
    uint32_t P, root, ninst;  /* ninst instances of the collective, one after the other */
    const uint32_t *late;     /* late[q]: the member made late by D in instance q */
    uint64_t block;           /* bytes per member's block */
    const uint64_t *base;     /* every member's small lateness [ns], or NULL */
    int logp, network;        /* LogP-lite instead of Hockney; crossbar:P instead of none */
};

static void describe(const struct path_case *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s=%s P=%u root=%u late rank%s %u block %llu B %s%s",
             c->p.reduce_scatter ? "reduce_scatter" : rt_coll_op_name(c->p.op),
             rt_coll_algo_name(c->p.algo), c->P, c->root, c->ninst > 1 ? "s from" : "", c->late[0],
             (unsigned long long)c->block,
             c->logp ? "logp" : "hockney", c->network ? " on crossbar:P" : "");
}

/* Writes the case's trace, replays it with a dependency graph and checks the path. */
static void check_path(const struct path_case *c)
{
    char what[200], dir[300], spec[64], rules_path[320];
    describe(c, what, sizeof what);
    tb_builder *b = new_trace(dir, sizeof dir, c->P);
    int op = c->p.reduce_scatter ? OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK : otf2_op[c->p.op];
    /* Instance q starts at T: rank r works late(r) ns, then enters; every rank leaves at the
     * latest entry + 1 us (as measured), then a barrier of 1 us, then instance q + 1: no compute
     * but the work. */
    uint64_t T = 0;
    for (uint32_t q = 0; q < c->ninst; q++) {
        uint64_t maxlate = 0;
        for (uint32_t r = 0; r < c->P; r++) {
            uint64_t late = (c->base ? c->base[r] : 0) + (r == c->late[q] ? D_NS : 0);
            maxlate = late > maxlate ? late : maxlate;
        }
        for (uint32_t r = 0; r < c->P; r++) {
            uint64_t s, rv, late = (c->base ? c->base[r] : 0) + (r == c->late[q] ? D_NS : 0);
            counts(op, c->P, r, c->root, c->block, &s, &rv);
            tb_enter(b, r, T, "work");
            tb_leave(b, r, T + late, "work");
            tb_collective(b, r, T + late, T + maxlate + 1000,
                          c->p.reduce_scatter ? "MPI_Reduce_scatter_block" : call_name[c->p.op], op, c->root, s, rv);
            if (c->ninst > 1)
                tb_collective(b, r, T + maxlate + 1000, T + maxlate + 2000, "MPI_Barrier",
                              OTF2_COLLECTIVE_OP_BARRIER, NO_ROOT, 0, 0);
        }
        T += maxlate + 2000;
    }
    if (tb_close(b) != 0) {
        fprintf(stderr, "%s: cannot write the trace\n", what);
        rt_test_failures++;
        return;
    }
    struct rt_replay_options o;
    rt_replay_options_default(&o);
    rt_error err = {0};
    rt_trace *t = NULL;
    rt_network *net = NULL;
    rt_depgraph *g = NULL;
    rt_coll_rules *rules = NULL;
    struct rt_replay_result *res = NULL;
    const struct rt_critical_path *cp = NULL;
    int rc = rt_model_init(&o.model, c->logp ? "logp" : "hockney", c->logp ? &loggp : &hockney, &err);
    o.compute_scale = 1;
    o.eager_limit = 65536;
    if (c->p.reduce_scatter) {
        snprintf(rules_path, sizeof rules_path, "%s.rules", dir);
        FILE *f = fopen(rules_path, "w");
        if (f) {
            fprintf(f, "reduce_scatter * * %s\n", rt_coll_algo_name(c->p.algo));
            fclose(f);
        }
        if (rc == RT_OK)
            rc = rt_coll_rules_open(rules_path, &rules, &err);
        o.coll_rules = rules;
    } else {
        snprintf(spec, sizeof spec, "%s=%s", rt_coll_op_name(c->p.op), rt_coll_algo_name(c->p.algo));
        if (rc == RT_OK)
            rc = rt_coll_algo_parse(spec, o.coll_algo, &err);
    }
    if (rc == RT_OK && c->network) {
        struct rt_network_params np;
        rt_network_params_default(&np);
        snprintf(spec, sizeof spec, "crossbar:%u", c->P);
        np.topology = spec;
        rc = rt_network_create(&np, c->P, &net, &err);
        o.network = net;
    }
    if (rc == RT_OK)
        rc = rt_trace_open(dir, &t, &err);
    if (rc == RT_OK)
        rc = rt_depgraph_create(t, &g, &err);
    if (rc == RT_OK) {
        struct rt_replay_observer obs;
        rt_depgraph_observer(g, &obs);
        rc = rt_replay_run(t, &o, &obs, &res, &err);
    }
    if (rc == RT_OK)
        rc = rt_depgraph_critical_path(g, &cp, &err);
    if (rc != RT_OK) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        rt_test_failures++;
        goto done;
    }
    /* the path: from 0 to the end, its segments contiguous in time, their lengths summing to it */
    int bad = cp->end_ps != res->predicted_ps || cp->length_ps != cp->end_ps || cp->nseg == 0 ||
              cp->seg[0].begin_ps != 0 || cp->seg[cp->nseg - 1].end_ps != cp->end_ps;
    rt_time_ps sum = 0;
    for (uint64_t k = 0; k < cp->nseg; k++) {
        const struct rt_cp_segment *sg = &cp->seg[k];
        if (k && sg->begin_ps != cp->seg[k - 1].end_ps)
            bad = 1;
        if (sg->end_ps < sg->begin_ps)
            bad = 1;
        sum += sg->end_ps - sg->begin_ps;
    }
    if (bad || sum != cp->end_ps) {
        fprintf(stderr, "%s: the path's %llu segments are not contiguous from 0 to the end %lld ps (sum %lld ps)\n",
                what, (unsigned long long)cp->nseg, (long long)cp->end_ps, (long long)sum);
        rt_test_failures++;
    }
    /* every late member's own compute is on it: D for each instance it was late in */
    rt_time_ps d = (rt_time_ps)D_NS * NS;
    if (cp->activity_ps[RT_ACT_COMPUTE] < (rt_time_ps)c->ninst * d) {
        fprintf(stderr, "%s: %lld ps of compute on the path, want >= %u x %lld ps\n", what,
                (long long)cp->activity_ps[RT_ACT_COMPUTE], c->ninst, (long long)d);
        rt_test_failures++;
    }
    for (uint32_t j = 0; j < c->P; j++) {
        rt_time_ps want = 0, on_j = 0, share = 0;
        for (uint32_t q = 0; q < c->ninst; q++)
            want += c->late[q] == j ? d : 0;
        if (!want)
            continue;
        for (uint64_t k = 0; k < cp->nseg; k++)
            if (cp->seg[k].rank == j)
                on_j += cp->seg[k].end_ps - cp->seg[k].begin_ps;
        for (uint64_t k = 0; k < cp->nshare; k++)
            if (cp->share[k].group == RT_GROUP_RANK && cp->share[k].id == j)
                share = cp->share[k].value;
        if (on_j < want || share < want) {
            fprintf(stderr, "%s: late rank %u has %lld ps on the path (segments), %lld ps (share); want >= %lld ps. "
                            "Segments:",
                    what, j, (long long)on_j, (long long)share, (long long)want);
            for (uint64_t k = 0; k < cp->nseg && k < 16; k++)
                fprintf(stderr, " r%u[%lld..%lld]", cp->seg[k].rank, (long long)cp->seg[k].begin_ps,
                        (long long)cp->seg[k].end_ps);
            fprintf(stderr, "\n");
            rt_test_failures++;
        }
    }
done:
    rt_replay_result_destroy(res);
    rt_depgraph_destroy(g);
    rt_trace_close(t);
    rt_network_destroy(net);
    rt_coll_rules_free(rules);
}

/* 1. One late member at every position, every pair, P = 3, 5, 6, 8, 13: P instances per trace. */
static void test_late_member_every_position(void)
{
    static const uint32_t Ps[] = {3, 5, 6, 8, 13};
    static const uint64_t blocks[] = {8, 1001, 70001}; /* eager, uneven, rendezvous (> 64 KiB) */
    uint32_t late[13];
    for (uint32_t j = 0; j < 13; j++)
        late[j] = j;
    int failures0 = rt_test_failures;
    unsigned n = 0;
    for (int k = 0; k < npairs; k++)
        for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++)
            for (int net = 0; net < 2; net++) {
                struct path_case c = {.p = pairs[k], .P = Ps[i], .root = Ps[i] / 2, .ninst = Ps[i], .late = late,
                                      .block = blocks[(i + (unsigned)k + (unsigned)net) % 3],
                                      .logp = (int)((i + (unsigned)k) % 2), .network = net};
                check_path(&c);
                n++;
            }
    printf("late member at every position: %u traces of %d pairs, %d failed\n", n, npairs,
           rt_test_failures - failures0);
}

/* 2. Random cases (a fixed seed, so the same every run). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state % n;
}

static void test_random_property(int cases)
{
    int failures0 = rt_test_failures;
    uint64_t base[64];
    for (int i = 0; i < cases; i++) {
        struct path_case c = {.p = pairs[rnd((uint64_t)npairs)], .P = 2 + (uint32_t)rnd(63)};
        c.root = (uint32_t)rnd(c.P);
        uint32_t late = (uint32_t)rnd(c.P);
        c.ninst = 1;
        c.late = &late;
        c.block = rnd(4) == 0 ? rnd(16) : rnd(40000) + 1; /* 0-15 B, or up to ~40 KB: eager and rendezvous */
        if (c.p.op == RT_COLL_ALLTOALL || c.p.op == RT_COLL_ALLGATHER || c.p.reduce_scatter)
            c.block = c.block / c.P + 1; /* P blocks per member: keep the whole far below D */
        c.logp = (int)rnd(2);
        c.network = (int)rnd(2);
        for (uint32_t r = 0; r < c.P; r++)
            base[r] = rnd(50000); /* up to 50 us */
        c.base = base;
        check_path(&c);
    }
    printf("random property: %d cases, %d failed\n", cases, rt_test_failures - failures0);
}

int main(int argc, char **argv)
{
    /* 800 small archives: in memory where there is a tmpfs for it */
    snprintf(tmp_root, sizeof tmp_root, "%s/retime-test-collpath-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    find_pairs();
    CHECK_EQ_INT(npairs, 50);
    printf("%d (operation, algorithm) pairs\n", npairs);
    test_late_member_every_position();
    test_random_property(argc > 1 ? atoi(argv[1]) : 300);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: cannot remove %s\n", tmp_root);
    rt_test_failures += harness_failures();
    TEST_MAIN_END();
}
