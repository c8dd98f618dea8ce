/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the replay engine on small synthetic traces whose timings are derived by hand:
 * Hockney with T = α + β·m, α = 2122 ns, β = 0.7595 ns/B (so T(1000) = 2881.5 ns), and
 * LogP-lite with L = 1000 ns, o_s = 300 ns, o_r = 500 ns, g = 700 ns, G = 0.76 ns/B.
 */
#define _POSIX_C_SOURCE 200809L
#include <otf2/otf2.h>
#include <stdlib.h>
#include <unistd.h>

#include "otf2_builder.h"
#include "retime/region_stats.h"
#include "retime/replay.h"
#include "test_util.h"

#define ALPHA 2122.0
#define BETA 0.7595
#define T_PS(m) ((int64_t)(ALPHA * 1000 + BETA * 1000 * (m) + 0.5))

static char tmp_root[256];
static int ntraces;

static tb_builder *new_trace(char *dir, size_t n, uint32_t ranks)
{
    snprintf(dir, n, "%s/t%d", tmp_root, ntraces++);
    return tb_create(dir, ranks);
}

/* LogP-lite parameters [ns] and their closed-form pieces [ps]. */
#define LP_L 1000.0
#define LP_OS 300.0
#define LP_OR 500.0
#define LP_g 700.0
#define LP_G 0.76
static const struct rt_model_params logp_params = {
    .L_ns = LP_L, .o_s_ns = LP_OS, .o_r_ns = LP_OR, .g_ns = LP_g, .G_ns_per_byte = LP_G};
#define PS(ns) ((int64_t)((ns) * 1000.0 + 0.5))
#define LP_WIRE(m) (PS(LP_L) + PS(LP_G * (double)((m) - 1))) /* L + (m-1)·G */

static const char *model_name = "hockney"; /* the model replay() uses */
static const rt_dist *net_noise;          /* and its network noise */
static const rt_os_noise *os_noise;       /* OS noise */
static const rt_burst *net_burst;         /* bursty traffic */
static uint64_t noise_seed, noise_run;

static int replay(const char *dir, double scale, rt_bytes eager, struct rt_replay_result **res, rt_error *err,
                  const char *region, struct rt_region_instance *first_inst, uint64_t *ninst)
{
    rt_trace *t = NULL;
    struct rt_replay_options o;
    struct rt_model_params p = {.alpha_ns = ALPHA, .beta_ns_per_byte = BETA};
    rt_replay_options_default(&o);
    if (strcmp(model_name, "hockney") == 0)
        rt_model_init(&o.model, "hockney", &p, err);
    else
        rt_model_init(&o.model, model_name, &logp_params, err);
    o.compute_scale = scale;
    o.eager_limit = eager;
    o.net_noise = net_noise;
    o.os_noise = os_noise;
    o.net_burst = net_burst;
    o.seed = noise_seed;
    o.run = noise_run;
    int rc = rt_trace_open(dir, &t, err);
    if (rc)
        return rc;
    rt_region_stats *rs = NULL;
    struct rt_replay_observer obs = {0};
    if (region) {
        rt_region_stats_create(t, rt_trace_find_region(t, region), &rs, err);
        obs.ud = rs;
        obs.on_event = rt_region_stats_on_event;
    }
    rc = rt_replay_run(t, &o, region ? &obs : NULL, res, err);
    if (rc == RT_OK && rs) {
        const struct rt_region_instance *inst;
        rt_region_stats_instances(rs, &inst, ninst, err);
        for (uint64_t i = 0; i < *ninst; i++)
            first_inst[i] = inst[i];
    }
    rt_region_stats_destroy(rs);
    rt_trace_close(t);
    return rc;
}

static void test_pingpong(const char *send_region)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_call_send(b, 0, 0, 10, send_region, 1, 7, 1000);
    tb_call_recv(b, 0, 20, 100, 1, 8, 1000);
    tb_call_recv(b, 1, 0, 50, 0, 7, 1000);
    tb_call_send(b, 1, 60, 70, send_region, 0, 8, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
    if (!res)
        return;
    /* Round trip = 2·T(1000) for eager and for synchronous sends alike. */
    CHECK_EQ_INT(res->predicted_ps, 2 * T_PS(1000));
    CHECK_EQ_INT(res->predicted_end_ps[0], 2 * T_PS(1000));
    CHECK_EQ_INT(res->predicted_end_ps[1], 2 * T_PS(1000));
    CHECK_EQ_INT(res->messages, 2);
    CHECK_EQ_INT(res->rendezvous, strcmp(send_region, "MPI_Ssend") == 0 ? 2 : 0);
    rt_replay_result_destroy(res);
}

/* A 2-rank trace into @p dir: rank 0 sends 1000 bytes with @p send_region at 0-10 ns, rank 1
 * computes until @p post_ns and then receives them (100 ns). */
static void late_receiver_trace(char *dir, size_t n, const char *send_region, uint64_t post_ns)
{
    tb_builder *b = new_trace(dir, n, 2);
    tb_call_send(b, 0, 0, 10, send_region, 1, 1, 1000);
    tb_enter(b, 1, 0, "compute");
    tb_leave(b, 1, post_ns, "compute");
    tb_call_recv(b, 1, post_ns, post_ns + 100, 0, 1, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
}

/* A receiver that arrives late: rendezvous waits for it, eager does not. */
static void test_late_receiver(void)
{
    for (int sync = 0; sync <= 1; sync++) {
        char dir[300];
        late_receiver_trace(dir, sizeof dir, sync ? "MPI_Ssend" : "MPI_Send", 5000);
        for (int half = 0; half <= 1; half++) {
            double scale = half ? 0.5 : 1.0;
            int64_t posted = (int64_t)(5000 * 1000 * scale);
            struct rt_replay_result *res = NULL;
            rt_error err = {0};
            CHECK_EQ_INT(replay(dir, scale, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
            if (!res)
                continue;
            if (sync) {
                CHECK_EQ_INT(res->predicted_end_ps[0], posted + T_PS(1000));
                CHECK_EQ_INT(res->predicted_end_ps[1], posted + T_PS(1000));
            } else {
                CHECK_EQ_INT(res->predicted_end_ps[0], T_PS(1000));
                /* eager data waits in the receiver's buffer: done at max(posted, T) */
                CHECK_EQ_INT(res->predicted_end_ps[1], posted > T_PS(1000) ? posted : T_PS(1000));
            }
            rt_replay_result_destroy(res);
        }
    }
}

/* A message of exactly the eager limit goes eager (the limit is the largest eager size): the
 * sender returns at T(1000) although its receiver posts at 5 us; one byte less and it waits. */
static void test_eager_at_limit(void)
{
    char dir[300];
    late_receiver_trace(dir, sizeof dir, "MPI_Send", 5000);
    for (rt_bytes limit = 999; limit <= 1000; limit++) {
        struct rt_replay_result *res = NULL;
        rt_error err = {0};
        CHECK_EQ_INT(replay(dir, 1, limit, &res, &err, NULL, NULL, NULL), RT_OK);
        if (!res)
            continue;
        CHECK_EQ_INT(res->rendezvous, limit == 1000 ? 0 : 1);
        CHECK_EQ_INT(res->predicted_end_ps[0], (limit == 1000 ? 0 : 5000000) + T_PS(1000));
        rt_replay_result_destroy(res);
    }
}

/* A region instance that not every rank runs: its mean is over the ranks that ran it. Rank 0 runs
 * "phase" twice (1000 and 3000 ns of compute), rank 1 once (2000 ns): instance 0 has 2 ranks,
 * mean 1500, max 2000; instance 1 has rank 0 alone, mean 3000 (not 1500, over both ranks). */
static void test_region_partial(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_enter(b, 0, 0, "phase");
    tb_leave(b, 0, 1000, "phase");
    tb_enter(b, 0, 2000, "phase");
    tb_leave(b, 0, 5000, "phase");
    tb_enter(b, 1, 0, "phase");
    tb_leave(b, 1, 2000, "phase");
    tb_enter(b, 1, 2000, "other");
    tb_leave(b, 1, 5000, "other");
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    struct rt_region_instance inst[4];
    uint64_t n = 0;
    CHECK_EQ_INT(replay(dir, 1, 65536, &res, &err, "phase", inst, &n), RT_OK);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_INT(inst[0].ranks, 2);
        CHECK_NEAR(inst[0].predicted_mean_ns, 1500, 1e-9);
        CHECK_NEAR(inst[0].measured_mean_ns, 1500, 1e-9);
        CHECK_NEAR(inst[0].predicted_max_ns, 2000, 1e-9);
        CHECK_EQ_INT(inst[1].ranks, 1);
        CHECK_NEAR(inst[1].predicted_mean_ns, 3000, 1e-9);
        CHECK_NEAR(inst[1].measured_mean_ns, 3000, 1e-9);
        CHECK_NEAR(inst[1].predicted_max_ns, 3000, 1e-9);
    }
    rt_replay_result_destroy(res);
}

/* The paper's 1D Shift with MPI_Ssend and even/odd phases: 4k·T(m1) per iteration. */
static void build_shift_ssend(tb_builder *b, uint32_t P, int k, uint64_t m1, int iters)
{
    uint64_t *now = calloc(P, sizeof *now);
    for (int it = 0; it < iters; it++) {
        for (uint32_t r = 0; r < P; r++)
            tb_enter(b, r, now[r] += 100, "shift_iteration");
        for (int dir = 0; dir < 2; dir++)
            for (int h = 0; h < k; h++)
                for (int phase = 0; phase < 2; phase++)
                    for (uint32_t r = 0; r < P; r++) {
                        uint32_t to = dir == 0 ? (r + 1) % P : (r + P - 1) % P;
                        uint32_t from = dir == 0 ? (r + P - 1) % P : (r + 1) % P;
                        int sender = (int)(r % 2) == phase;
                        uint64_t t0 = now[r] += 10, t1 = now[r] += 3000;
                        if (sender)
                            tb_call_send(b, r, t0, t1, "MPI_Ssend", to, (uint32_t)dir, m1);
                        else
                            tb_call_recv(b, r, t0, t1, from, (uint32_t)dir, m1);
                    }
        for (uint32_t r = 0; r < P; r++)
            tb_leave(b, r, now[r] += 100, "shift_iteration");
    }
    free(now);
}

static void test_shift_ssend(void)
{
    for (int k = 1; k <= 3; k++) {
        char dir[300];
        tb_builder *b = new_trace(dir, sizeof dir, 8);
        build_shift_ssend(b, 8, k, 1000, 3);
        CHECK_EQ_INT(tb_close(b), 0);
        struct rt_replay_result *res = NULL;
        rt_error err = {0};
        struct rt_region_instance inst[8];
        uint64_t n = 0;
        CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, "shift_iteration", inst, &n), RT_OK);
        CHECK_EQ_INT(n, 3);
        for (uint64_t i = 0; i < n; i++) {
            CHECK_NEAR(inst[i].predicted_mean_ns, 4.0 * k * 2881.5, 1e-6);
            CHECK_NEAR(inst[i].predicted_max_ns, 4.0 * k * 2881.5, 1e-6);
            CHECK_EQ_INT(inst[i].ranks, 8);
        }
        if (k == 1)
            CHECK_NEAR(inst[0].predicted_mean_ns, 11526.0, 1e-6); /* the paper's Table 2 */
        rt_replay_result_destroy(res);
    }
}

/* Isend/Irecv + Waitall per hop, both directions: 2 sends per hop through one port = 2T. */
static void test_shift_isend(void)
{
    const uint32_t P = 4;
    const int k = 2;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    uint64_t now[4] = {0};
    for (uint32_t r = 0; r < P; r++) {
        uint32_t L = (r + P - 1) % P, R = (r + 1) % P;
        tb_enter(b, r, now[r] += 50, "shift_iteration");
        for (int h = 0; h < k; h++) {
            uint64_t q = (uint64_t)h * 4;
            tb_enter(b, r, now[r] += 10, "MPI_Irecv");
            tb_irecv_request(b, r, now[r], q + 1);
            tb_leave(b, r, now[r] += 10, "MPI_Irecv");
            tb_enter(b, r, now[r] += 10, "MPI_Irecv");
            tb_irecv_request(b, r, now[r], q + 2);
            tb_leave(b, r, now[r] += 10, "MPI_Irecv");
            tb_enter(b, r, now[r] += 10, "MPI_Isend");
            tb_isend(b, r, now[r], R, 0, 1000, q + 3);
            tb_leave(b, r, now[r] += 10, "MPI_Isend");
            tb_enter(b, r, now[r] += 10, "MPI_Isend");
            tb_isend(b, r, now[r], L, 1, 1000, q + 4);
            tb_leave(b, r, now[r] += 10, "MPI_Isend");
            tb_enter(b, r, now[r] += 10, "MPI_Waitall");
            tb_irecv(b, r, now[r] += 4000, L, 0, 1000, q + 1);
            tb_irecv(b, r, now[r] += 10, R, 1, 1000, q + 2);
            tb_isend_complete(b, r, now[r] += 10, q + 3);
            tb_isend_complete(b, r, now[r] += 10, q + 4);
            tb_leave(b, r, now[r] += 10, "MPI_Waitall");
        }
        tb_leave(b, r, now[r] += 50, "shift_iteration");
    }
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    struct rt_region_instance inst[2];
    uint64_t n = 0;
    CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, "shift_iteration", inst, &n), RT_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_NEAR(inst[0].predicted_max_ns, 2.0 * k * 2881.5, 1e-6); /* eq. 2, one dimension */
    CHECK_NEAR(inst[0].predicted_mean_ns, 2.0 * k * 2881.5, 1e-6);
    rt_replay_result_destroy(res);
}

/* Three senders at once into one receiver: its port delivers them one T apart. */
static void test_incast(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    for (uint32_t s = 1; s < 4; s++)
        tb_call_send(b, s, 0, 10, "MPI_Send", 0, 0, 1000);
    for (uint32_t s = 1; s < 4; s++)
        tb_call_recv(b, 0, s * 100, s * 100 + 50, s, 0, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
    if (res) {
        CHECK_EQ_INT(res->predicted_end_ps[0], 3 * T_PS(1000));
        CHECK_EQ_INT(res->predicted_end_ps[1], T_PS(1000));
        rt_replay_result_destroy(res);
    }
}

/* MPI_Sendrecv of large (rendezvous) messages between two ranks must not deadlock. */
static void test_sendrecv_rendezvous(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    for (uint32_t r = 0; r < 2; r++) {
        tb_enter(b, r, 0, "MPI_Sendrecv");
        tb_send(b, r, 1, 1 - r, 5, 100000);
        tb_recv(b, r, 90, 1 - r, 5, 100000);
        tb_leave(b, r, 100, "MPI_Sendrecv");
    }
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
    if (res) {
        CHECK_EQ_INT(res->rendezvous, 2);
        CHECK_EQ_INT(res->predicted_ps, T_PS(100000));
        rt_replay_result_destroy(res);
    }
    /* The eager limit decides: with 1 MiB both go eager and the result is the same here. */
    CHECK_EQ_INT(replay(dir, 0, 1 << 20, &res, &err, NULL, NULL, NULL), RT_OK);
    if (res) {
        CHECK_EQ_INT(res->rendezvous, 0);
        CHECK_EQ_INT(res->predicted_ps, T_PS(100000));
        rt_replay_result_destroy(res);
    }
}

/* A barrier completes ceil(log2 P) empty-message rounds after the last rank enters. */
static void test_barrier(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    for (uint32_t r = 0; r < 4; r++) {
        tb_enter(b, r, 0, "work");
        tb_leave(b, r, 1000 * r, "work");
        tb_collective(b, r, 1000 * r, 9000, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, 1, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
    if (res) {
        for (uint32_t r = 0; r < 4; r++)
            CHECK_EQ_INT(res->predicted_end_ps[r], 3000 * 1000 + 2 * T_PS(0));
        CHECK_EQ_INT(res->collectives, 1);
        rt_replay_result_destroy(res);
    }
}

static void expect_error(void (*build)(tb_builder *), uint32_t ranks, int code, const char *text)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, ranks);
    build(b);
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, 1, 65536, &res, &err, NULL, NULL, NULL), code);
    CHECK(res == NULL);
    CHECK_CONTAINS(err.msg, text);
    CHECK(strchr(err.msg, '\n') == NULL); /* one line */
}

static void build_unmatched_recv(tb_builder *b)
{
    tb_enter(b, 0, 0, "MPI_Init");
    tb_leave(b, 0, 10, "MPI_Init");
    tb_call_recv(b, 1, 0, 10, 0, 3, 8);
}

static void build_unmatched_send(tb_builder *b)
{
    tb_call_send(b, 0, 0, 10, "MPI_Send", 1, 3, 8);
    tb_enter(b, 1, 0, "MPI_Init");
    tb_leave(b, 1, 10, "MPI_Init");
}

static void build_deadlock(tb_builder *b)
{
    for (uint32_t r = 0; r < 2; r++) {
        tb_call_recv(b, r, 0, 10, 1 - r, 0, 8);
        tb_call_send(b, r, 20, 30, "MPI_Send", 1 - r, 0, 8);
    }
}

static void build_size_mismatch(tb_builder *b)
{
    tb_call_send(b, 0, 0, 10, "MPI_Send", 1, 3, 100);
    tb_call_recv(b, 1, 0, 10, 0, 3, 200);
}

static void build_collective_mismatch(tb_builder *b)
{
    tb_collective(b, 0, 0, 10, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0, 8, 0);
    tb_collective(b, 1, 0, 10, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 1, 8, 0);
}

/* ------------------------------------------------------------------ LogP-lite */

/* Eager ping-pong: the round trip is 2·(o_s + L + (m-1)·G + o_r) (Culler et al. 1993). */
static void test_logp_pingpong(void)
{
    const uint64_t m = 1000;
    for (int sync = 0; sync <= 1; sync++) {
        char dir[300];
        tb_builder *b = new_trace(dir, sizeof dir, 2);
        const char *send = sync ? "MPI_Ssend" : "MPI_Send";
        tb_call_send(b, 0, 0, 10, send, 1, 7, m);
        tb_call_recv(b, 0, 20, 100, 1, 8, m);
        tb_call_recv(b, 1, 0, 50, 0, 7, m);
        tb_call_send(b, 1, 60, 70, send, 0, 8, m);
        CHECK_EQ_INT(tb_close(b), 0);
        struct rt_replay_result *res = NULL;
        rt_error err = {0};
        model_name = "logp";
        CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
        model_name = "hockney";
        if (!res)
            continue;
        int64_t one_way = PS(LP_OS) + LP_WIRE(m) + PS(LP_OR);
        if (sync) /* + the rendezvous handshake o_r + L + o_s each way */
            one_way += PS(LP_OR) + PS(LP_L) + PS(LP_OS);
        CHECK_EQ_INT(res->predicted_end_ps[0], 2 * one_way);
        /* rank 1's last act is its send: eager returns at injection (after o_s), a
         * rendezvous when the data has arrived (before rank 0's o_r) */
        CHECK_EQ_INT(res->predicted_end_ps[1], sync ? 2 * one_way - PS(LP_OR) : one_way + PS(LP_OS));
        rt_replay_result_destroy(res);
    }
}

/* n eager sends from rank 0 to ranks 1..n: injections o_s + i·max(o_s, g, m·G) apart, the last
 * receiver done after o_s + (n-1)·max(o_s, g, m·G) + L + (m-1)·G + o_r. Sizes cover g > m·G
 * (100 B: 76 ns < g) and m·G > g (2000 B: 1520 ns). */
static void test_logp_fanout(void)
{
    const uint32_t n = 5;
    const uint64_t sizes[2] = {100, 2000};
    for (int si = 0; si < 2; si++) {
        uint64_t m = sizes[si];
        char dir[300];
        tb_builder *b = new_trace(dir, sizeof dir, n + 1);
        for (uint32_t i = 1; i <= n; i++) {
            tb_call_send(b, 0, 10 * i, 10 * i + 5, "MPI_Send", i, 0, m);
            tb_call_recv(b, i, 0, 50, 0, 0, m);
        }
        CHECK_EQ_INT(tb_close(b), 0);
        struct rt_replay_result *res = NULL;
        rt_error err = {0};
        model_name = "logp";
        CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
        model_name = "hockney";
        if (!res)
            continue;
        double gap = LP_G * (double)m > LP_g ? LP_G * (double)m : LP_g;
        double step = gap > LP_OS ? gap : LP_OS;
        for (uint32_t i = 1; i <= n; i++)
            CHECK_EQ_INT(res->predicted_end_ps[i], PS(LP_OS + (i - 1) * step) + LP_WIRE(m) + PS(LP_OR));
        CHECK_EQ_INT(res->predicted_end_ps[0], PS(LP_OS + (n - 1) * step)); /* its last injection */
        rt_replay_result_destroy(res);
    }
}

/*
 * The 1D Shift with MPI_Ssend/MPI_Recv under LogP-lite. One phase (a rendezvous, both sides
 * entering at t): the sender posts at t + o_s, the handshake o_r + L + o_s follows, then the data
 * needs L + (m-1)·G; the sender leaves at t + D, D = 2·o_s + o_r + 2·L + (m-1)·G, the receiver
 * o_r later. In the next phase the roles swap and the new sender starts o_r late, so a hop
 * (two phases) takes 2·D + 2·o_r for the rank that sent first (even ranks) and ends o_r earlier
 * for the odd ones; an iteration is 2k hops. In the first iteration all ranks start together,
 * so the odd ranks' iteration is o_r shorter; afterwards they also start o_r earlier.
 */
static void test_logp_shift_ssend(void)
{
    const uint64_t m = 1000;
    for (int k = 1; k <= 2; k++) {
        char dir[300];
        tb_builder *b = new_trace(dir, sizeof dir, 8);
        build_shift_ssend(b, 8, k, m, 3);
        CHECK_EQ_INT(tb_close(b), 0);
        struct rt_replay_result *res = NULL;
        rt_error err = {0};
        struct rt_region_instance inst[8];
        uint64_t n = 0;
        model_name = "logp";
        CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, "shift_iteration", inst, &n), RT_OK);
        model_name = "hockney";
        if (!res)
            continue;
        double D = 2 * LP_OS + LP_OR + 2 * LP_L + LP_G * (double)(m - 1);
        double iter = 2.0 * k * (2 * D + 2 * LP_OR);
        CHECK_EQ_INT(n, 3);
        for (uint64_t i = 0; i < n; i++) {
            CHECK_NEAR(inst[i].predicted_max_ns, iter, 1e-3);
            CHECK_NEAR(inst[i].predicted_mean_ns, i == 0 ? iter - LP_OR / 2 : iter, 1e-3);
        }
        rt_replay_result_destroy(res);
    }
}

/* Several receives completed in one Waitall pay o_r one after the other on the CPU. */
static void test_logp_receive_overhead(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 3);
    for (uint32_t s = 1; s <= 2; s++)
        tb_call_send(b, s, 0, 10, "MPI_Send", 0, 0, 8);
    tb_enter(b, 0, 0, "MPI_Irecv");
    tb_irecv_request(b, 0, 1, 1);
    tb_leave(b, 0, 2, "MPI_Irecv");
    tb_enter(b, 0, 3, "MPI_Irecv");
    tb_irecv_request(b, 0, 4, 2);
    tb_leave(b, 0, 5, "MPI_Irecv");
    tb_enter(b, 0, 6, "MPI_Waitall");
    tb_irecv(b, 0, 90, 1, 0, 8, 1);
    tb_irecv(b, 0, 95, 2, 0, 8, 2);
    tb_leave(b, 0, 100, "MPI_Waitall");
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    model_name = "logp";
    CHECK_EQ_INT(replay(dir, 0, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
    model_name = "hockney";
    if (res) {
        /* both arrive at o_s + L + 7·G; the receive port spaces them by g; the CPU then takes
         * them one at a time: max(second arrival, first done) + o_r */
        int64_t first = PS(LP_OS) + LP_WIRE(8) + PS(LP_OR);
        int64_t second_arrival = PS(LP_OS) + LP_WIRE(8) + PS(LP_g);
        int64_t end = (second_arrival > first ? second_arrival : first) + PS(LP_OR);
        CHECK_EQ_INT(res->predicted_end_ps[0], end);
        rt_replay_result_destroy(res);
    }
}

/* ------------------------------------------------------------------ network noise */

/* A chain of N blocking ping-pongs: every message is on the critical path, so all injected
 * network noise accumulates: end(noisy) - end(clean) = injected, to the ps. Its mean per
 * message matches the distribution's mean within 5 standard errors. */
static void test_net_noise_chain(void)
{
    const int N = 2000;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    for (int i = 0; i < N; i++) {
        uint64_t t = (uint64_t)i * 100;
        tb_call_send(b, (uint32_t)(i % 2), t, t + 10, "MPI_Send", (uint32_t)(1 - i % 2), 0, 1000);
        tb_call_recv(b, (uint32_t)(1 - i % 2), t, t + 50, (uint32_t)(i % 2), 0, 1000);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *clean = NULL, *noisy = NULL, *again = NULL, *other = NULL;
    rt_error err = {0};
    rt_dist *d = NULL;
    CHECK_EQ_INT(rt_dist_parse("exp:mean=500ns", &d, &err), RT_OK);
    CHECK_EQ_INT(replay(dir, 0, 65536, &clean, &err, NULL, NULL, NULL), RT_OK);
    net_noise = d;
    noise_seed = 42;
    CHECK_EQ_INT(replay(dir, 0, 65536, &noisy, &err, NULL, NULL, NULL), RT_OK);
    CHECK_EQ_INT(replay(dir, 0, 65536, &again, &err, NULL, NULL, NULL), RT_OK);
    noise_seed = 43;
    CHECK_EQ_INT(replay(dir, 0, 65536, &other, &err, NULL, NULL, NULL), RT_OK);
    net_noise = NULL;
    noise_seed = 0;
    if (clean && noisy && again && other) {
        CHECK_EQ_INT(clean->predicted_ps, (int64_t)N * T_PS(1000));
        CHECK_EQ_INT(noisy->predicted_ps - clean->predicted_ps, noisy->net_noise_ps); /* all accumulated */
        double mean_ns = (double)noisy->net_noise_ps / 1e3 / N;
        CHECK_NEAR(mean_ns, 500.0, 5 * 500.0 / sqrt((double)N)); /* exp: sd = mean */
        CHECK_EQ_INT(again->predicted_ps, noisy->predicted_ps); /* same seed: bit-identical */
        CHECK(memcmp(again->predicted_end_ps, noisy->predicted_end_ps, 2 * sizeof(rt_time_ps)) == 0);
        CHECK(other->predicted_ps != noisy->predicted_ps); /* another seed: other draws */
    }
    rt_replay_result_destroy(clean);
    rt_replay_result_destroy(noisy);
    rt_replay_result_destroy(again);
    rt_replay_result_destroy(other);
    rt_dist_free(d);
}

/* An eager message to a receiver that posts 10 µs late: noise up to 5 µs on the wire is absorbed
 * by the receiver's slack (10 µs - T(1000)); the run's end does not move. */
static void test_net_noise_absorbed(void)
{
    char dir[300];
    late_receiver_trace(dir, sizeof dir, "MPI_Send", 10000);
    rt_error err = {0};
    rt_dist *d = NULL;
    CHECK_EQ_INT(rt_dist_parse("uniform:min=1us,max=5us", &d, &err), RT_OK);
    net_noise = d;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct rt_replay_result *res = NULL;
        noise_seed = seed;
        CHECK_EQ_INT(replay(dir, 1, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
        if (!res)
            continue;
        CHECK(res->net_noise_ps >= 1000000 && res->net_noise_ps <= 5000000);
        /* the data (at most T(1000) + 5 µs) is there when the receive is posted at 10 µs */
        CHECK_EQ_INT(res->predicted_end_ps[1], 10000000);
        rt_replay_result_destroy(res);
    }
    net_noise = NULL;
    noise_seed = 0;
    rt_dist_free(d);
}

/* ------------------------------------------------------------------ OS noise and bursts */

static rt_os_noise *os_noise_of(const char *spec)
{
    rt_os_noise *n = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_os_noise_add(&n, spec, &err), RT_OK);
    if (err.msg[0])
        fprintf(stderr, "%s: %s\n", spec, err.msg);
    return n;
}

/* Replays @p dir (compute scale 1, eager) under OS noise @p spec; NULL on failure. */
static struct rt_replay_result *replay_os(const char *dir, const char *spec)
{
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    rt_os_noise *n = spec ? os_noise_of(spec) : NULL;
    os_noise = n;
    CHECK_EQ_INT(replay(dir, 1, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
    os_noise = NULL;
    rt_os_noise_free(n);
    return res;
}

/* Rank 1 computes 10 µs and then waits for rank 0's message, sent after 100 µs of compute and
 * delivered at 100 µs + T(1000). A detour of 30 µs on rank 1 falls into its slack
 * (92.88 µs): absorbed, rank 1 ends exactly as without noise. A detour of 95 µs exceeds the
 * slack: rank 1 ends at 95 + 10 µs, late by the excess only. */
static void test_os_noise_slack(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_enter(b, 0, 0, "compute");
    tb_leave(b, 0, 100000, "compute");
    tb_call_send(b, 0, 100000, 100010, "MPI_Send", 1, 0, 1000);
    tb_enter(b, 1, 0, "compute");
    tb_leave(b, 1, 10000, "compute");
    tb_call_recv(b, 1, 10000, 102900, 0, 0, 1000);
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *clean = replay_os(dir, NULL);
    struct rt_replay_result *small = replay_os(dir, "periodic:period=1s,duration=30us,phase=aligned,ranks=1");
    struct rt_replay_result *big = replay_os(dir, "periodic:period=1s,duration=95us,phase=aligned,ranks=1");
    if (clean && small && big) {
        CHECK_EQ_INT(clean->predicted_end_ps[1], 100000000 + T_PS(1000));
        CHECK_EQ_INT(small->os_noise_ps, 30000000);                       /* injected ... */
        CHECK_EQ_INT(small->predicted_end_ps[1], clean->predicted_end_ps[1]); /* ... and absorbed */
        CHECK_EQ_INT(small->predicted_end_ps[0], clean->predicted_end_ps[0]); /* rank 0 has none */
        CHECK_EQ_INT(big->predicted_end_ps[1], 105000000);
    }
    rt_replay_result_destroy(clean);
    rt_replay_result_destroy(small);
    rt_replay_result_destroy(big);
}

/* A pipeline: rank i receives from i-1, computes 100 µs, sends 0 bytes to i+1. Detours of
 * d = 7 µs with period p = 100 µs + d + T(0), aligned, hit every rank exactly once while it
 * computes (and when its message arrives): the chain's end moves by P·d, the detours
 * accumulate one by one. */
static void test_os_noise_pipeline(void)
{
    const uint32_t P = 4;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, P);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t t = 0;
        if (r > 0) {
            tb_call_recv(b, r, 0, 101000 * r, r - 1, 0, 0);
            t = 101000 * r;
        }
        tb_enter(b, r, t, "compute");
        tb_leave(b, r, t + 100000, "compute");
        if (r + 1 < P)
            tb_call_send(b, r, t + 100000, t + 100010, "MPI_Send", r + 1, 0, 0);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    char spec[128];
    struct rt_replay_result *clean = replay_os(dir, NULL);
    snprintf(spec, sizeof spec, "periodic:period=%.3fns,duration=7us,phase=aligned",
             (double)(100000000 + 7000000 + T_PS(0)) / 1000.0);
    struct rt_replay_result *noisy = replay_os(dir, spec);
    if (clean && noisy) {
        CHECK_EQ_INT(clean->predicted_end_ps[P - 1], (int64_t)P * 100000000 + (P - 1) * T_PS(0));
        CHECK_EQ_INT(noisy->predicted_end_ps[P - 1] - clean->predicted_end_ps[P - 1], (int64_t)P * 7000000);
    }
    rt_replay_result_destroy(clean);
    rt_replay_result_destroy(noisy);
}

/* One rank computing C = 10 ms under Poisson detours of load ρ = mean duration / interval
 * takes C / (1 - ρ) on average (the CPU is free a share 1 - ρ of the time). Every detour is
 * on its path: the stretch equals the time lost. A file of detours repeats with its span:
 * detours [0, 1) and [5, 6) µs, i.e. 2 µs busy in every 6 µs, stretch 600 µs of work
 * (150 free windows of 4 µs) to 900 µs less the part of the last busy time it need not wait
 * for: between 898 and 900 µs, whatever the offset. */
static void test_os_noise_load(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    for (uint32_t r = 0; r < 2; r++) {
        tb_enter(b, r, 0, "compute");
        tb_leave(b, r, r == 0 ? 10000000 : 600000, "compute");
    }
    CHECK_EQ_INT(tb_close(b), 0);
    const double C = 10e6, rho = 0.1; /* ns */
    double sum = 0;
    const int seeds = 8;
    for (int sd = 1; sd <= seeds; sd++) {
        noise_seed = (uint64_t)sd;
        struct rt_replay_result *res = replay_os(dir, "poisson:interval=10us,ranks=0,duration=exp:mean=1us");
        if (res) {
            CHECK_EQ_INT(res->predicted_end_ps[0] - (int64_t)(C * 1000), res->os_noise_ps);
            sum += (double)res->predicted_end_ps[0] / 1e3;
            CHECK_EQ_INT(res->predicted_end_ps[1], 600000000); /* ranks=0: rank 1 is quiet */
        }
        rt_replay_result_destroy(res);
    }
    /* per run: about C·ρ/(1-ρ)/1 µs = 1111 detours of mean 1 µs and sd 1 µs in a busy-period
     * mix: sd of the total below 100 µs; tolerance 5 sd of the mean of 8 runs */
    CHECK_NEAR(sum / seeds, C / (1 - rho), 5 * 100000.0 / sqrt((double)seeds));
    char path[320];
    snprintf(path, sizeof path, "%s/noise.txt", tmp_root);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# start duration [ns]\n0 1000\n5000 1000\n", f);
        fclose(f);
    }
    char spec[400];
    snprintf(spec, sizeof spec, "file:%s,coscheduled", path);
    for (int sd = 1; sd <= 3; sd++) {
        noise_seed = (uint64_t)sd;
        struct rt_replay_result *res = replay_os(dir, spec);
        if (res) {
            int64_t e1 = res->predicted_end_ps[1];
            CHECK(e1 >= 898000000 && e1 <= 900000000);
        }
        rt_replay_result_destroy(res);
    }
    noise_seed = 0;
}

/* Bursts: 2000 messages of 1000 B, 100 µs apart (far longer than the chain's memory,
 * 1/(σ1+σ2) = 4 µs). A share σ2/(σ1+σ2) = 0.2 of them go in a burst, where T = 3α + 2βm:
 * 5003.5 ns more. The share seen matches within 5 standard errors. */
static void test_burst_share(void)
{
    const int N = 2000;
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    for (int i = 0; i < N; i++) {
        uint64_t t = (uint64_t)i * 100000;
        tb_call_send(b, 0, t, t + 10, "MPI_Send", 1, 0, 1000);
        tb_call_recv(b, 1, t, t + 3000, 0, 0, 1000);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    const char *specs[] = {"mmpp:on=5us,off=20us,latency=3,bandwidth=0.5",
                           "mmpp:sigma1=0.2/us,sigma2=0.05/us,latency=3,bandwidth=0.5,scope=rank"};
    for (int k = 0; k < 2; k++) {
        rt_burst *bu = NULL;
        rt_error err = {0};
        CHECK_EQ_INT(rt_burst_parse(specs[k], &bu, &err), RT_OK);
        CHECK_NEAR(bu ? rt_burst_on_share(bu) : 0, 0.2, 1e-12);
        net_burst = bu;
        noise_seed = 11;
        struct rt_replay_result *res = NULL, *again = NULL;
        CHECK_EQ_INT(replay(dir, 1, 65536, &res, &err, NULL, NULL, NULL), RT_OK);
        CHECK_EQ_INT(replay(dir, 1, 65536, &again, &err, NULL, NULL, NULL), RT_OK);
        if (res && again) {
            double share = (double)res->burst_ps / 1e3 / 5003.5 / N;
            CHECK_NEAR(share, 0.2, 5 * sqrt(0.2 * 0.8 / N));
            CHECK_EQ_INT(res->predicted_ps, again->predicted_ps);
        }
        rt_replay_result_destroy(res);
        rt_replay_result_destroy(again);
        net_burst = NULL;
        noise_seed = 0;
        rt_burst_free(bu);
    }
}

/* Network noise reaches the messages inside collectives: 100 barriers on 4 ranks (2 rounds of
 * empty messages each), keyed by instance and message, so every run is reproducible; with
 * all three noises, run 0 and run 1 of one seed differ and each repeats bit for bit. */
static void test_collective_noise(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 4);
    for (uint32_t r = 0; r < 4; r++)
        for (int i = 0; i < 100; i++)
            tb_collective(b, r, (uint64_t)i * 20000 + 1000 * r, (uint64_t)i * 20000 + 9000, "MPI_Barrier",
                          OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_error err = {0};
    rt_dist *d = NULL;
    rt_burst *bu = NULL;
    CHECK_EQ_INT(rt_dist_parse("exp:mean=1us", &d, &err), RT_OK);
    CHECK_EQ_INT(rt_burst_parse("mmpp:on=5us,off=5us,latency=2", &bu, &err), RT_OK);
    rt_os_noise *n = os_noise_of("poisson:interval=20us,duration=2us");
    struct rt_replay_result *clean = NULL, *r0 = NULL, *r0b = NULL, *r1 = NULL;
    CHECK_EQ_INT(replay(dir, 1, 65536, &clean, &err, NULL, NULL, NULL), RT_OK);
    net_noise = d;
    net_burst = bu;
    os_noise = n;
    noise_seed = 5;
    CHECK_EQ_INT(replay(dir, 1, 65536, &r0, &err, NULL, NULL, NULL), RT_OK);
    CHECK_EQ_INT(replay(dir, 1, 65536, &r0b, &err, NULL, NULL, NULL), RT_OK);
    noise_run = 1;
    CHECK_EQ_INT(replay(dir, 1, 65536, &r1, &err, NULL, NULL, NULL), RT_OK);
    net_noise = NULL;
    net_burst = NULL;
    os_noise = NULL;
    noise_seed = noise_run = 0;
    if (clean && r0 && r0b && r1) {
        CHECK(r0->net_noise_ps > 100 * 4 * 2 * 500000); /* 800 messages of mean 1 µs */
        CHECK(r0->burst_ps > 0);
        CHECK(r0->predicted_ps > clean->predicted_ps);
        CHECK(memcmp(r0->predicted_end_ps, r0b->predicted_end_ps, 4 * sizeof(rt_time_ps)) == 0);
        CHECK_EQ_INT(r0->net_noise_ps, r0b->net_noise_ps);
        CHECK_EQ_INT(r0->os_noise_ps, r0b->os_noise_ps);
        CHECK(r1->predicted_ps != r0->predicted_ps);
    }
    rt_replay_result_destroy(clean);
    rt_replay_result_destroy(r0);
    rt_replay_result_destroy(r0b);
    rt_replay_result_destroy(r1);
    rt_dist_free(d);
    rt_burst_free(bu);
    rt_os_noise_free(n);
}

static void test_determinism(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 6);
    build_shift_ssend(b, 6, 2, 12345, 4);
    CHECK_EQ_INT(tb_close(b), 0);
    struct rt_replay_result *r1 = NULL, *r2 = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(replay(dir, 0.7, 65536, &r1, &err, NULL, NULL, NULL), RT_OK);
    CHECK_EQ_INT(replay(dir, 0.7, 65536, &r2, &err, NULL, NULL, NULL), RT_OK);
    if (r1 && r2) {
        CHECK(memcmp(r1->predicted_end_ps, r2->predicted_end_ps, 6 * sizeof(rt_time_ps)) == 0);
        CHECK_EQ_INT(r1->predicted_ps, r2->predicted_ps);
    }
    rt_replay_result_destroy(r1);
    rt_replay_result_destroy(r2);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-replay-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_pingpong("MPI_Send");
    test_pingpong("MPI_Ssend");
    test_late_receiver();
    test_eager_at_limit();
    test_region_partial();
    test_shift_ssend();
    test_shift_isend();
    test_incast();
    test_sendrecv_rendezvous();
    test_barrier();
    test_determinism();
    test_logp_pingpong();
    test_logp_fanout();
    test_logp_shift_ssend();
    test_logp_receive_overhead();
    test_net_noise_chain();
    test_net_noise_absorbed();
    test_os_noise_slack();
    test_os_noise_pipeline();
    test_os_noise_load();
    test_burst_share();
    test_collective_noise();
    expect_error(build_unmatched_recv, 2, RT_EUNMATCHED,
                 "unmatched receive: rank 1 event 1 (MPI_Recv from rank 0, tag 3");
    expect_error(build_unmatched_send, 2, RT_EUNMATCHED, "unmatched send: rank 0 event 1 (MPI_Send to rank 1, tag 3");
    expect_error(build_deadlock, 2, RT_EDEADLOCK, "deadlock: rank 0 event 1 (MPI_Recv from rank 1");
    expect_error(build_size_mismatch, 2, RT_EMISMATCH, "sends 100 bytes but rank 1 event 1 (MPI_Recv) receives 200");
    expect_error(build_collective_mismatch, 2, RT_EMISMATCH, "collective mismatch");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
