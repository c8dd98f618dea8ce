/* SPDX-License-Identifier: MIT */
/*
 * The distributed replay (struct rt_replay_part) against the replay by one process: on every
 * stored trace and the Score-P traces, split over 2, 3, 4 and 7 "processes" (threads swapping
 * their messages in memory, tests/support/part_threads.h), under Hockney, LogP-lite and all
 * three kinds of noise, every event's predicted time and every field of the result must be
 * bit-identical. Also: a part that has no ranks, a trace that deadlocks and an unmatched
 * receive give one error (at the lowest failing process) and RT_EREMOTE elsewhere.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "retime/noise.h"
#include "retime/replay.h"
#include "retime/trace.h"
#include <otf2/otf2.h>

#include "otf2_builder.h"
#include "support/part_threads.h"
#include "test_util.h"
#include "stored_traces.h"

#define MAXP 7

/* Per rank, per event: the predicted time the observer saw (each thread writes its own ranks). */
struct times {
    rt_time_ps **t;
    uint32_t ranks;
};

static void on_event(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted)
{
    (void)ev;
    struct times *x = ud;
    x->t[rank][index] = predicted;
}

static struct times times_new(const rt_trace *t)
{
    struct times x = {calloc(rt_trace_ranks(t), sizeof(rt_time_ps *)), rt_trace_ranks(t)};
    for (uint32_t r = 0; r < x.ranks; r++) {
        uint64_t n;
        rt_trace_events(t, r, &n);
        x.t[r] = calloc(n ? n : 1, sizeof(rt_time_ps));
        for (uint64_t i = 0; i < n; i++)
            x.t[r][i] = -1;
    }
    return x;
}

static void times_free(struct times *x)
{
    for (uint32_t r = 0; r < x->ranks; r++)
        free(x->t[r]);
    free(x->t);
}

static int same_result(const struct rt_replay_result *a, const struct rt_replay_result *b)
{
    int same = a->ranks == b->ranks && a->predicted_ps == b->predicted_ps && a->measured_ns == b->measured_ns &&
               a->events == b->events && a->messages == b->messages && a->rendezvous == b->rendezvous &&
               a->collectives == b->collectives && a->net_noise_ps == b->net_noise_ps &&
               a->os_noise_ps == b->os_noise_ps && a->burst_ps == b->burst_ps;
    for (uint32_t r = 0; same && r < a->ranks; r++)
        same = a->predicted_end_ps[r] == b->predicted_end_ps[r] && a->measured_end_ns[r] == b->measured_end_ns[r];
    return same;
}

static struct rt_replay_options variants[4];
static const char *variant_names[4] = {"hockney", "logp", "hockney+noise", "logp+noise, eager 1KiB"};
static uint64_t compared_events;

static void check_trace(const char *path, int first)
{
    (void)first;
    rt_trace *t = NULL;
    rt_error err = {0};
    if (rt_trace_open(path, &t, &err) != RT_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        rt_test_failures++;
        return;
    }
    uint32_t ranks = rt_trace_ranks(t);
    for (int v = 0; v < 4; v++) {
        struct times serial = times_new(t);
        struct rt_replay_observer obs = {.ud = &serial, .on_event = on_event};
        struct rt_replay_result *ref = NULL;
        int rc = rt_replay_run(t, &variants[v], &obs, &ref, &err);
        CHECK_EQ_INT(rc, RT_OK);
        if (rc) {
            fprintf(stderr, "%s (%s): %s\n", path, variant_names[v], err.msg);
            times_free(&serial);
            continue;
        }
        static const uint32_t parts[] = {2, 3, 4, MAXP};
        for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
            uint32_t n = parts[k];
            struct times dist = times_new(t);
            struct rt_replay_observer dobs = {.ud = &dist, .on_event = on_event};
            struct rt_replay_result *res[MAXP] = {0};
            int rcs[MAXP];
            rt_error errs[MAXP];
            CHECK_EQ_INT(pt_run(t, &variants[v], &dobs, n, res, rcs, errs), 0);
            uint64_t differ = 0, first_r = 0, first_i = 0;
            for (uint32_t p = 0; p < n; p++) {
                if (rcs[p]) {
                    fprintf(stderr, "%s (%s, %u parts): part %u: %s\n", path, variant_names[v], n, p, errs[p].msg);
                    rt_test_failures++;
                } else if (!same_result(ref, res[p])) {
                    fprintf(stderr,
                            "%s (%s, %u parts): part %u: result differs: predicted %lld vs %lld ps, messages %llu vs "
                            "%llu, collectives %llu vs %llu, noise net %lld vs %lld, os %lld vs %lld, burst %lld vs %lld\n",
                            path, variant_names[v], n, p, (long long)res[p]->predicted_ps, (long long)ref->predicted_ps,
                            (unsigned long long)res[p]->messages, (unsigned long long)ref->messages,
                            (unsigned long long)res[p]->collectives, (unsigned long long)ref->collectives,
                            (long long)res[p]->net_noise_ps, (long long)ref->net_noise_ps,
                            (long long)res[p]->os_noise_ps, (long long)ref->os_noise_ps, (long long)res[p]->burst_ps,
                            (long long)ref->burst_ps);
                    rt_test_failures++;
                }
                rt_replay_result_destroy(res[p]);
            }
            for (uint32_t r = 0; r < ranks; r++) {
                uint64_t ne;
                rt_trace_events(t, r, &ne);
                for (uint64_t i = 0; i < ne; i++)
                    if (dist.t[r][i] != serial.t[r][i] && differ++ == 0)
                        first_r = r, first_i = i;
                compared_events += ne;
            }
            if (differ) {
                fprintf(stderr, "%s (%s, %u parts): %llu events differ, first rank %llu event %llu: %lld vs %lld ps\n",
                        path, variant_names[v], n, (unsigned long long)differ, (unsigned long long)first_r,
                        (unsigned long long)first_i, (long long)dist.t[first_r][first_i],
                        (long long)serial.t[first_r][first_i]);
                rt_test_failures++;
            }
            times_free(&dist);
        }
        rt_replay_result_destroy(ref);
        times_free(&serial);
    }
    printf("%s: %u ranks, identical in 2, 3, 4 and %u parts under %d models\n", path, ranks, MAXP, 4);
    rt_trace_close(t);
}

/* A part without ranks (more parts than ranks) and broken traces split over processes. */
static void check_edges(void)
{
    char dir[] = "/tmp/retime-dist-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    /* 2 ranks, one exchange each way and a barrier, in 3 parts: part 2 has no rank */
    snprintf(path, sizeof path, "%s/ok", dir);
    tb_builder *b = tb_create(path, 2);
    for (uint32_t r = 0; r < 2; r++) {
        tb_enter(b, r, 0, "MPI_Sendrecv");
        tb_send(b, r, 100, 1 - r, 0, 100);
        tb_recv(b, r, 200, 1 - r, 0, 100);
        tb_leave(b, r, 300, "MPI_Sendrecv");
        tb_collective(b, r, 400, 500, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_trace_open(path, &t, &err), RT_OK);
    if (t) {
        struct rt_replay_result *ref = NULL, *res[MAXP] = {0};
        int rcs[MAXP];
        rt_error errs[MAXP];
        CHECK_EQ_INT(rt_replay_run(t, &variants[0], NULL, &ref, &err), RT_OK);
        CHECK_EQ_INT(pt_run(t, &variants[0], NULL, 3, res, rcs, errs), 0);
        for (uint32_t p = 0; p < 3; p++) {
            CHECK_EQ_INT(rcs[p], RT_OK);
            CHECK(res[p] && ref && same_result(ref, res[p]));
            rt_replay_result_destroy(res[p]);
        }
        rt_replay_result_destroy(ref);
        rt_trace_close(t);
    }
    /* Broken traces: each process layout must report what the serial replay reports, at the
     * process that finds it (the lowest one when several do), and RT_EREMOTE elsewhere. */
    static const char *names[] = {"deadlock", "unmatched", "size-from-rank-1", "collective-mismatch"};
    static const int finder[] = {0, 0, 1, 0}; /* the process whose ranks show the problem */
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        b = tb_create(path, 2);
        if (k == 0 || k == 1) { /* both ranks receive first; or rank 1 never sends */
            for (uint32_t r = 0; r < 2; r++) {
                if (k == 1 && r == 1) {
                    tb_enter(b, 1, 0, "compute");
                    tb_leave(b, 1, 50, "compute");
                    continue;
                }
                tb_call_recv(b, r, 0, 200, 1 - r, 0, 100);
            }
        } else if (k == 2) { /* rank 1 sends 100 bytes, rank 0 receives 200: found where rank 1 is */
            tb_call_recv(b, 0, 0, 200, 1, 0, 200);
            tb_call_send(b, 1, 100, 300, "MPI_Send", 0, 0, 100);
        } else { /* a barrier meets an allreduce */
            tb_collective(b, 0, 0, 100, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
            tb_collective(b, 1, 50, 100, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
        }
        CHECK_EQ_INT(tb_close(b), 0);
        t = NULL;
        CHECK_EQ_INT(rt_trace_open(path, &t, &err), RT_OK);
        if (!t)
            continue;
        struct rt_replay_result *ref = NULL, *res[MAXP] = {0};
        int rcs[MAXP];
        rt_error errs[MAXP];
        int src = rt_replay_run(t, &variants[0], NULL, &ref, &err);
        CHECK(src != RT_OK);
        CHECK_EQ_INT(pt_run(t, &variants[0], NULL, 2, res, rcs, errs), 0);
        int f = finder[k], o = 1 - finder[k];
        CHECK_EQ_INT(rcs[f], src);
        CHECK(strcmp(errs[f].msg, err.msg) == 0);
        if (strcmp(errs[f].msg, err.msg))
            fprintf(stderr, "distributed: %s\nserial:      %s\n", errs[f].msg, err.msg);
        CHECK_EQ_INT(rcs[o], RT_EREMOTE);
        printf("%s in 2 parts, process %d: %s\n", names[k], f, errs[f].msg);
        rt_trace_close(t);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

int main(void)
{
    rt_error err = {0};
    struct rt_model_params hp = {.alpha_ns = 2122, .beta_ns_per_byte = 0.76};
    struct rt_model_params lp = {.L_ns = 1000, .o_s_ns = 300, .o_r_ns = 500, .g_ns = 700, .G_ns_per_byte = 0.76};
    rt_dist *net = NULL;
    rt_os_noise *os = NULL;
    rt_burst *burst = NULL;
    CHECK_EQ_INT(rt_dist_parse("exp:mean=500ns", &net, &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&os, "poisson:interval=200us,duration=exp:mean=10us", &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&os, "periodic:period=1ms,duration=25us", &err), RT_OK);
    CHECK_EQ_INT(rt_burst_parse("mmpp:on=5us,off=20us,latency=3,bandwidth=0.5,scope=rank", &burst, &err), RT_OK);
    for (int v = 0; v < 4; v++) {
        rt_replay_options_default(&variants[v]);
        CHECK_EQ_INT(rt_model_init(&variants[v].model, v % 2 ? "logp" : "hockney", v % 2 ? &lp : &hp, &err), RT_OK);
    }
    for (int v = 2; v < 4; v++) {
        variants[v].net_noise = net;
        variants[v].os_noise = os;
        variants[v].net_burst = burst;
        variants[v].seed = 42;
        variants[v].run = 3;
    }
    variants[3].eager_limit = 1024;
    variants[3].compute_scale = 0.5;
    rt_test_on_traces(RT_TRACES_DIR, RT_EXT_TRACES_DIR, check_trace);
    check_edges();
    printf("%llu event times compared\n", (unsigned long long)compared_events);
    rt_dist_free(net);
    rt_os_noise_free(os);
    rt_burst_free(burst);
    if (rt_test_failures)
        fprintf(stderr, "%d check(s) failed\n", rt_test_failures);
    return rt_test_failures ? 1 : 0;
}
