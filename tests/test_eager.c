/* SPDX-License-Identifier: MIT */
/*
 * The eager limit as the MPI libraries have it (issue #46, item 3; docs/network.md): each
 * library setting gives the payload limit its library's test gives (less its header, less one byte
 * where the test is <), and the replay takes a message of exactly that limit eagerly and one byte
 * more by rendezvous, point to point and inside a collective under --coll-algos openmpi and mpich.
 * Timings: Hockney, α = 2122 ns, β = 0.7595 ns/B; the receiver arrives 5 µs late, so a
 * rendezvous sender ends after 5 µs and an eager one at T(m).
 */
#define _POSIX_C_SOURCE 200809L
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_builder.h"
#include "retime/model.h"
#include "retime/replay.h"
#include "test_util.h"

#define ALPHA 2122.0
#define BETA 0.7595
#define LATE_NS 5000u
#define T_PS(m) ((int64_t)(ALPHA * 1000 + BETA * 1000 * (double)(m) + 0.5))

static char tmp_root[256];
static int ntraces;

/* The settings and the payload limit their libraries give (derived in docs/network.md). */
static const struct {
    const char *spec;
    rt_bytes payload;
} cases[] = {
    {"btl_vader_eager_limit=4096", 4040},          /* Open MPI ob1: - 56 */
    {"btl_tcp_eager_limit=64KiB", 65480},          /* the same rule for every BTL */
    {"btl_self_eager_limit=1KiB", 968},
    {"MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE=131072", 131040}, /* MPICH ch3: - 32 */
    {"MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ=65536", 65504},
    {"MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE=16KiB", 16304}, /* MPICH ch4 shm: - 80 */
    {"MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE=65536", 65535},      /* payload < limit */
    {"UCX_RNDV_THRESH=8193", 8192},
    {"4040", 4040}, /* retime's own: the payload itself */
};

static void test_rules(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_bytes p = 0;
        const char *rule = (const char *)1;
        rt_error err = {0};
        CHECK_EQ_INT(rt_eager_limit_parse(cases[i].spec, &p, &rule, &err), RT_OK);
        CHECK_EQ_INT(p, cases[i].payload);
        CHECK(strchr(cases[i].spec, '=') ? rule != NULL : rule == NULL);
    }
    /* at the header exactly: payload 0 (only empty messages eager); below it, none at all */
    rt_bytes p = 1;
    rt_error err = {0};
    CHECK_EQ_INT(rt_eager_limit_of("btl_vader_eager_limit", 56, &p, NULL, &err), RT_OK);
    CHECK_EQ_INT(p, 0);
    CHECK_EQ_INT(rt_eager_limit_of("btl_vader_eager_limit", 55, &p, NULL, &err), RT_ERANGE);
    CHECK_EQ_INT(rt_eager_limit_of("UCX_RNDV_THRESH", 0, &p, NULL, &err), RT_ERANGE);
    CHECK_EQ_INT(rt_eager_limit_of("UCX_RNDV_THRESH", 1, &p, NULL, &err), RT_OK);
    CHECK_EQ_INT(p, 0);
    CHECK_EQ_INT(rt_eager_limit_of("MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", 79, &p, NULL, &err), RT_ERANGE);
    /* names: unknown, a prefix and suffix that overlap, an empty name, a bad size */
    CHECK_EQ_INT(rt_eager_limit_parse("eager=4KiB", &p, NULL, &err), RT_EINVAL);
    CHECK(strstr(err.msg, "unknown eager setting 'eager'") != NULL);
    CHECK_EQ_INT(rt_eager_limit_parse("btl_eager_limit=4KiB", &p, NULL, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_eager_limit_parse("=4KiB", &p, NULL, &err), RT_EINVAL);
    CHECK(rt_eager_limit_parse("btl_vader_eager_limit=lots", &p, NULL, &err) != RT_OK);
    CHECK_EQ_INT(rt_eager_limit_parse("MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZEX=1KiB", &p, NULL, &err), RT_EINVAL);
}

/* Rank 0 sends m bytes to rank 1 at 0 (a send, or a 2-rank MPI_Bcast from rank 0); rank 1
 * computes until LATE_NS first. */
static void late_trace(char *dir, size_t n, rt_bytes m, int coll)
{
    snprintf(dir, n, "%s/t%d", tmp_root, ntraces++);
    tb_builder *b = tb_create(dir, 2);
    tb_enter(b, 1, 0, "compute");
    tb_leave(b, 1, LATE_NS, "compute");
    if (coll) {
        tb_collective(b, 0, 0, 10, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, m, m);
        tb_collective(b, 1, LATE_NS, LATE_NS + 100, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, 0, m);
    } else {
        tb_call_send(b, 0, 0, 10, "MPI_Send", 1, 1, m);
        tb_call_recv(b, 1, LATE_NS, LATE_NS + 100, 0, 1, m);
    }
    CHECK_EQ_INT(tb_close(b), 0);
}

/* Rank 0's predicted end of @p dir's exchange with eager limit @p limit, under @p rules (NULL:
 * retime's; a bcast forced to one whole message, linear). */
static int64_t sender_end(const char *dir, rt_bytes limit, const char *rules, uint64_t *rendezvous)
{
    rt_trace *t = NULL;
    rt_coll_rules *r = NULL;
    struct rt_replay_options o;
    struct rt_model_params p = {.alpha_ns = ALPHA, .beta_ns_per_byte = BETA};
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    int64_t end = -1;
    rt_replay_options_default(&o);
    CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &p, &err), RT_OK);
    o.eager_limit = limit;
    if (rules) {
        CHECK_EQ_INT(rt_coll_rules_open(rules, &r, &err), RT_OK);
        o.coll_rules = r;
    }
    CHECK_EQ_INT(rt_coll_algo_parse("bcast=linear", o.coll_algo, &err), RT_OK);
    if (rt_trace_open(dir, &t, &err) == RT_OK && rt_replay_run(t, &o, NULL, &res, &err) == RT_OK) {
        end = res->predicted_end_ps[0];
        *rendezvous = res->rendezvous;
    } else {
        fprintf(stderr, "  %s: %s\n", dir, err.msg);
    }
    rt_replay_result_destroy(res);
    rt_trace_close(t);
    rt_coll_rules_free(r);
    return end;
}

/* For every setting: a message of its payload limit - 1 and of the limit goes eagerly (the sender
 * ends at T(m)), one of limit + 1 by rendezvous (after the late receiver). */
static void test_boundary(void)
{
    static const char *const rules[] = {NULL, "openmpi", "mpich"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_bytes limit = 0;
        rt_error err = {0};
        CHECK_EQ_INT(rt_eager_limit_parse(cases[i].spec, &limit, NULL, &err), RT_OK);
        for (rt_bytes m = limit - 1; m <= limit + 1; m++)
            for (int coll = 0; coll <= 1; coll++)
                for (int k = coll ? 0 : 2; k < 3; k++) { /* point to point once, collectives per rules */
                    char dir[300];
                    late_trace(dir, sizeof dir, m, coll);
                    uint64_t rdv = 0;
                    int64_t end = sender_end(dir, limit, coll ? rules[k] : NULL, &rdv);
                    int eager = m <= limit;
                    if (eager)
                        CHECK_NEAR(end, T_PS(m), 1);
                    else
                        CHECK_NEAR(end, (int64_t)LATE_NS * 1000 + T_PS(m), 1); /* ps rounding */
                    if (!coll)
                        CHECK_EQ_INT(rdv, eager ? 0 : 1);
                    if (rt_test_failures) {
                        fprintf(stderr, "  at %s, m = %llu, %s %s\n", cases[i].spec, (unsigned long long)m,
                                coll ? "bcast" : "send", coll && rules[k] ? rules[k] : "");
                        return;
                    }
                }
    }
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-eager-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_rules();
    test_boundary();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
