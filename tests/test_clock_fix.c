/* SPDX-License-Identifier: MIT */
/*
 * rt_trace_fix_clocks (the controlled logical clock): hand-derived corrections of small traces
 * (a blocking and a nonblocking receive with the controller and the backward amortisation, a
 * synchronous send, each kind of collective), 2- and 4-rank traces with one rank's clock off by
 * -500 ns and -5 us (0 violations after, every receive at least l_min after its send by a matcher
 * of its own, the other ranks untouched, no event later than its true time, the depgraph's
 * measured timing without violations), the stored and Score-P traces (bit-identical without
 * violations, fixed and idempotent with them), bad options and inputs.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "otf2_builder.h"
#include "retime/clock_fix.h"
#include "retime/depgraph.h"
#include "retime/replay.h"
#include "test_util.h"

#include "stored_traces.h"

static char tmp_root[256];
static int ntraces;

static tb_builder *new_trace(char *dir, size_t n, uint32_t ranks)
{
    snprintf(dir, n, "%s/t%d", tmp_root, ntraces++);
    return tb_create(dir, ranks);
}

static rt_trace *open_trace(const char *dir)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    int rc = rt_trace_open(dir, &t, &err);
    if (rc)
        fprintf(stderr, "open %s: %s\n", dir, err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    return t;
}

/* All event times, rank after rank (the caller frees them). */
static rt_time_ns *snapshot(const rt_trace *t)
{
    uint64_t total = 0, n, k = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        rt_trace_events(t, r, &n);
        total += n;
    }
    rt_time_ns *s = malloc((total ? total : 1) * sizeof *s);
    for (uint32_t r = 0; s && r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++)
            s[k++] = ev[j].time;
    }
    return s;
}

static rt_time_ns time_of(const rt_trace *t, uint32_t r, uint64_t j)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(t, r, &n);
    return j < n ? ev[j].time : -1;
}

static int fix(rt_trace *t, rt_time_ns lmin, double gamma, struct rt_clock_fix_report *rep)
{
    struct rt_clock_fix_options o;
    rt_error err = {0};
    rt_clock_fix_options_init(&o);
    o.min_latency_ns = lmin;
    o.gamma = gamma;
    int rc = rt_trace_fix_clocks(t, &o, rep, &err);
    if (rc)
        fprintf(stderr, "fix %s: %s\n", rt_trace_path(t), err.msg);
    return rc;
}

/* Per rank: times never decrease; no event moved backwards (against @p before). */
static void check_order(const rt_trace *t, const rt_time_ns *before)
{
    uint64_t k = 0, n, bad_order = 0, backwards = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++, k++) {
            bad_order += j && ev[j].time < ev[j - 1].time;
            backwards += ev[j].time < before[k];
        }
    }
    CHECK_EQ_INT(bad_order, 0);
    CHECK_EQ_INT(backwards, 0);
}

/* A matcher of the test's own: every receive completion at least @p lmin after the n-th send of
 * its (comm, source, destination, tag) channel. Returns the messages checked; quadratic, for
 * small traces. */
static uint64_t check_messages(const rt_trace *t, rt_time_ns lmin)
{
    enum { MAXM = 4096 };
    static struct m { uint32_t comm, tag, src, dst; rt_time_ns t; int used; } sends[MAXM], recvs[MAXM];
    int ns = 0, nr = 0;
    uint64_t n, checked = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++) {
            const struct rt_event *e = &ev[j];
            if ((e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) && !(e->flags & RT_EVF_CANCELLED) && ns < MAXM)
                sends[ns++] = (struct m){(uint32_t)rt_trace_payload(t, r, j).comm, e->aux, r, e->ref, e->time, 0};
            if (e->kind == RT_EV_RECV && nr < MAXM)
                recvs[nr++] = (struct m){(uint32_t)rt_trace_payload(t, r, j).comm, e->aux, e->ref, r, e->time, 0};
            if (e->kind == RT_EV_IRECV_REQUEST && !(e->flags & RT_EVF_CANCELLED) && nr < MAXM) {
                rt_time_ns done = -1; /* posted here, in post order; completes at its IRECV */
                for (uint64_t k = j + 1; k < n; k++)
                    if (ev[k].kind == RT_EV_IRECV && ev[k].ref == j)
                        done = ev[k].time;
                recvs[nr++] = (struct m){(uint32_t)rt_trace_payload(t, r, j).comm, e->aux, e->ref, r, done, 0};
            }
        }
    }
    for (int i = 0; i < nr; i++) {
        int k = 0;
        while (k < ns && (sends[k].used || sends[k].comm != recvs[i].comm || sends[k].tag != recvs[i].tag ||
                          sends[k].src != recvs[i].src || sends[k].dst != recvs[i].dst))
            k++;
        CHECK(k < ns);
        if (k == ns)
            continue;
        sends[k].used = 1;
        if (recvs[i].t < sends[k].t + lmin)
            fprintf(stderr, "receive of %u -> %u at %" PRId64 " before send at %" PRId64 " + %" PRId64 "\n",
                    recvs[i].src, recvs[i].dst, recvs[i].t, sends[k].t, lmin);
        CHECK(recvs[i].t >= sends[k].t + lmin);
        checked++;
    }
    return checked;
}

/* Causality violations the depgraph's measured timing counts (a Hockney replay's structure). */
static uint64_t depgraph_violations(const rt_trace *t)
{
    struct rt_replay_options o;
    struct rt_model_params p = {.alpha_ns = 2122.0, .beta_ns_per_byte = 0.7595};
    struct rt_replay_observer obs;
    struct rt_replay_result *res = NULL;
    struct rt_measured_info mi = {0};
    rt_depgraph *g = NULL, *m = NULL;
    rt_error err = {0};
    rt_replay_options_default(&o);
    CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &p, &err), RT_OK);
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    rt_depgraph_observer(g, &obs);
    CHECK_EQ_INT(rt_replay_run(t, &o, &obs, &res, &err), RT_OK);
    CHECK_EQ_INT(rt_depgraph_measured(t, g, &m, &mi, &err), RT_OK);
    rt_depgraph_destroy(m);
    rt_depgraph_destroy(g);
    rt_replay_result_destroy(res);
    return mi.violations;
}

/* ------------------------------------------------------------------ hand-derived cases */

/* The corpus's skew trace: rank 1's receive ends at 500 ns, rank 0's send starts at 1000 ns. With
 * l_min 0 the receive and the Leave after it move to 1000; the Enter of MPI_Recv is the receive's
 * post (a cause in its own right) and stays. */
static void test_blocking(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_call_send(b, 0, 1000, 1100, "MPI_Send", 1, 0, 8);
    tb_call_recv(b, 1, 0, 500, 0, 0, 8);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    CHECK_EQ_INT(depgraph_violations(t), 1);
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 0, RT_CLOCK_FIX_DEFAULT_GAMMA, &rep), RT_OK);
    CHECK_EQ_INT(rep.constraints, 1);
    CHECK_EQ_INT(rep.violations_before, 1);
    CHECK_EQ_INT(rep.violations_after, 0);
    CHECK_EQ_INT(rep.worst_ns, 500);
    CHECK_EQ_INT(rep.worst_rank, 1);
    CHECK_EQ_INT(rep.worst_index, 1);
    CHECK_EQ_INT(rep.events_moved, 2);
    CHECK_EQ_INT(rep.max_correction_ns, 500);
    CHECK_EQ_INT(rep.total_correction_ns, 1000);
    CHECK_EQ_INT(time_of(t, 1, 0), 0);
    CHECK_EQ_INT(time_of(t, 1, 1), 1000);
    CHECK_EQ_INT(time_of(t, 1, 2), 1000);
    CHECK_EQ_INT(time_of(t, 0, 0), 1000);
    CHECK_EQ_INT(time_of(t, 0, 2), 1100);
    CHECK_EQ_INT(depgraph_violations(t), 0);
    rt_trace_close(t);
}

/*
 * A nonblocking receive, l_min 100 ns, γ 0.5. Rank 0 sends at 1000. Rank 1 (events 0..9):
 *   0 Enter MPI_Irecv 100 (the post)   1 IRECV_REQUEST 100   2 Leave 150
 *   3 Enter work 200                   4 Leave work 400
 *   5 Enter MPI_Wait 450               6 IRECV 500           7 Leave 500
 *   8 Enter work 700                   9 Leave work 2000
 * Forward: IRECV at max(500, 1000 + 100) = 1100, a jump Δ = 600 at t_r = 500. Backward: the
 * events after the previous communication event (0, at 100) move by Δ·(t - 100)/(500 - 100):
 *   1: +0 -> 100   2: +75 -> 225   3: +150 -> 350   4: +450 -> 850   5: +525 -> 975.
 * Controller (offset 600 at event 6, decaying by (1-γ) of each interval):
 *   7: d 0, offset 600 -> 1100   8: d 200, offset 500 -> 1200   9: d 1300, offset 0 -> 2000.
 * With γ 0.75 (a quarter of each interval; a controller decaying at γ instead would give 1150 and
 * 2000, and at γ = 0.5 the two cannot be told apart):
 *   7: offset 600 -> 1100        8: d 200, offset 550 -> 1250   9: d 1300, offset 225 -> 2225.
 */
static void test_amortisation(double gamma)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_enter(b, 0, 0, "main");
    tb_call_send(b, 0, 1000, 1100, "MPI_Send", 1, 0, 8);
    tb_leave(b, 0, 3000, "main");
    tb_enter(b, 1, 100, "MPI_Irecv");
    tb_irecv_request(b, 1, 100, 77);
    tb_leave(b, 1, 150, "MPI_Irecv");
    tb_enter(b, 1, 200, "work");
    tb_leave(b, 1, 400, "work");
    tb_enter(b, 1, 450, "MPI_Wait");
    tb_irecv(b, 1, 500, 0, 0, 8, 77);
    tb_leave(b, 1, 500, "MPI_Wait");
    tb_enter(b, 1, 700, "work");
    tb_leave(b, 1, 2000, "work");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 100, gamma, &rep), RT_OK);
    int q = gamma == 0.75;
    const rt_time_ns want[] = {100, 100, 225, 350, 850, 975, 1100, 1100, q ? 1250 : 1200, q ? 2225 : 2000};
    for (uint64_t j = 0; j < sizeof want / sizeof *want; j++)
        CHECK_EQ_INT(time_of(t, 1, j), want[j]);
    CHECK_EQ_INT(time_of(t, 0, 1), 1000);
    CHECK_EQ_INT(time_of(t, 0, 4), 3000);
    CHECK_EQ_INT(rep.violations_before, 1);
    CHECK_EQ_INT(rep.violations_after, 0);
    CHECK_EQ_INT(rep.worst_ns, 600);
    CHECK_EQ_INT(rep.worst_index, 6);
    CHECK_EQ_INT(rep.events_moved, q ? 8 : 7);
    CHECK_EQ_INT(rep.max_correction_ns, 600);
    CHECK_EQ_INT(rep.total_correction_ns, 75 + 150 + 450 + 525 + 600 + 600 + (q ? 550 + 225 : 500));
    CHECK_EQ_INT(check_messages(t, 100), 1);
    rt_trace_close(t);
}

/* A synchronous send completes only once its receive is posted: rank 1's clock runs 2 us ahead,
 * so its MPI_Recv (true 800..1400 ns) reads 2800..3400, after rank 0's MPI_Ssend left at 1500.
 * The receive itself is fine (3400 >= 1000); the Ssend's Leave moves to the post + l_min 50, and
 * with γ 0.5 the shift of 1350 ns has decayed by rank 0's last event, 3500 ns later. */
static void test_rendezvous(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_enter(b, 0, 0, "main");
    tb_call_send(b, 0, 1000, 1500, "MPI_Ssend", 1, 0, 8);
    tb_leave(b, 0, 5000, "main");
    tb_call_recv(b, 1, 2800, 3400, 0, 0, 8);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    CHECK_EQ_INT(depgraph_violations(t), 1);
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 50, 0.5, &rep), RT_OK);
    CHECK_EQ_INT(rep.constraints, 2);
    CHECK_EQ_INT(rep.violations_before, 1);
    CHECK_EQ_INT(rep.worst_rank, 0);
    CHECK_EQ_INT(rep.worst_index, 3);
    CHECK_EQ_INT(rep.worst_ns, 2800 + 50 - 1500);
    CHECK_EQ_INT(time_of(t, 0, 2), 1000); /* the SEND itself stays */
    CHECK_EQ_INT(time_of(t, 0, 3), 2850);
    CHECK_EQ_INT(time_of(t, 0, 4), 5000);
    CHECK_EQ_INT(time_of(t, 1, 1), 3400);
    CHECK_EQ_INT(depgraph_violations(t), 0);
    rt_trace_close(t);
}

/*
 * Collectives on 3 ranks, l_min 10, γ 0.5, each call Enter/Begin at t0 and End/Leave at t1:
 *   barrier  r0 0..400    r1 200..250   r2 300..500   r1's end after r2's begin: 310
 *   bcast 1  r0 900..950  r1 1000..1100 r2 1000..1200 r0's end after the root's begin: 1010
 *   reduce 2 r0 1300..1400 r1 1500..1600 r2 1200..1250 the root's end after r1's begin: 1510
 *   scan     r0 2000..2100 r1 1900..1950 r2 2050..2070 r1 after r0: 2010; r2 after r0, r1: 2070
 * With γ 0.5 each shift has decayed before the rank's next call (its Leave keeps it: interval 0).
 */
static void test_collectives(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 3);
    static const struct { const char *name; int op; uint32_t root; uint64_t t[3][2]; } calls[] = {
        {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, {{0, 400}, {200, 250}, {300, 500}}},
        {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 1, {{900, 950}, {1000, 1100}, {1000, 1200}}},
        {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, 2, {{1300, 1400}, {1500, 1600}, {1200, 1250}}},
        {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN, OTF2_UNDEFINED_UINT32, {{2000, 2100}, {1900, 1950}, {2050, 2070}}},
        /* issue #47 item 7: a gather and a scatter skewed so that taking them as synchronising
         * would move a member that has no cause, and a barrier whose last begin is the member's
         * own (not a cause of its own end) */
        {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, 0, {{3000, 3050}, {3100, 3200}, {2900, 2950}}},
        {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER, 2, {{3500, 3520}, {3600, 3650}, {3550, 3560}}},
        {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, {{5000, 5005}, {4000, 5100}, {4100, 5200}}},
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        for (uint32_t r = 0; r < 3; r++)
            tb_collective(b, r, calls[i].t[r][0], calls[i].t[r][1], calls[i].name, calls[i].op, calls[i].root, 8, 8);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 10, 0.5, &rep), RT_OK);
    /* events per call: Enter 4k, Begin 4k+1, End 4k+2, Leave 4k+3 */
    CHECK_EQ_INT(time_of(t, 1, 2), 310);   /* barrier end */
    CHECK_EQ_INT(time_of(t, 1, 3), 310);   /* its Leave follows */
    CHECK_EQ_INT(time_of(t, 0, 2), 400);   /* r0's barrier end was late enough */
    CHECK_EQ_INT(time_of(t, 0, 6), 1010);  /* bcast end of a non-root */
    CHECK_EQ_INT(time_of(t, 1, 6), 1100);  /* the root's own end: no cause */
    CHECK_EQ_INT(time_of(t, 2, 10), 1510); /* the reduce root's end */
    CHECK_EQ_INT(time_of(t, 0, 10), 1400); /* a non-root's end: no cause */
    CHECK_EQ_INT(time_of(t, 1, 14), 2010); /* scan: r1 after r0's begin */
    CHECK_EQ_INT(time_of(t, 2, 14), 2070); /* r2 after r0 (2000) and r1 (1900): 2010 <= 2070 */
    CHECK_EQ_INT(time_of(t, 0, 14), 2100); /* r0: no cause */
    CHECK_EQ_INT(time_of(t, 0, 18), 3110); /* gather root: after r1's begin (3100) */
    CHECK_EQ_INT(time_of(t, 2, 18), 2950); /* a gather's non-root: no cause (synchronising: 3110) */
    CHECK_EQ_INT(time_of(t, 0, 22), 3560); /* scatter non-root: after the root's begin (3550) */
    CHECK_EQ_INT(time_of(t, 2, 22), 3560); /* the scatter root's end: no cause (synchronising: 3610) */
    CHECK_EQ_INT(time_of(t, 0, 26), 5005); /* the barrier's last begin is r0's own: its end stays */
    CHECK_EQ_INT(rep.violations_before, 6);
    CHECK_EQ_INT(rep.violations_after, 0);
    /* barrier 3 ends + bcast 2 non-roots + reduce root + scan r1, r2 + gather root + scatter 2
     * non-roots + barrier 3 ends */
    CHECK_EQ_INT(rep.constraints, 14);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ skewed clocks */

/* A ping-pong between ranks 0 and 1, 50 rounds; rank 1's clock reads @p skew (< 0) off. True
 * times: latency 300 ns one way, 400 back. */
static void test_pingpong(rt_time_ns skew)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    const uint64_t off = 100000; /* keeps rank 1's skewed times positive */
    tb_enter(b, 0, 0, "main");
    tb_enter(b, 1, 0, "main");
    for (uint64_t i = 0; i < 50; i++) {
        uint64_t B = off + i * 5000, s = (uint64_t)-skew;
        tb_call_send(b, 0, B, B + 100, "MPI_Send", 1, 0, 64);
        tb_call_recv(b, 0, B + 200, B + 2400, 1, 1, 64);
        tb_call_recv(b, 1, B - 500 - s, B + 300 - s, 0, 0, 64);
        tb_enter(b, 1, B + 400 - s, "work");
        tb_leave(b, 1, B + 1900 - s, "work");
        tb_call_send(b, 1, B + 2000 - s, B + 2100 - s, "MPI_Send", 0, 1, 64);
    }
    tb_leave(b, 0, off + 50 * 5000, "main");
    tb_leave(b, 1, off + 50 * 5000, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_time_ns *before = snapshot(t);
    CHECK(depgraph_violations(t) > 0);
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 100, RT_CLOCK_FIX_DEFAULT_GAMMA, &rep), RT_OK);
    CHECK(rep.violations_before > 0);
    CHECK_EQ_INT(rep.violations_after, 0);
    CHECK_EQ_INT(rep.worst_rank, 1);
    CHECK_EQ_INT(rep.worst_ns, -skew - 300 + 100); /* the first receive: its true latency was 300 */
    CHECK_EQ_INT(rep.max_correction_ns, -skew - 300 + 100);
    check_order(t, before);
    CHECK_EQ_INT(check_messages(t, 100), 100);
    CHECK_EQ_INT(depgraph_violations(t), 0);
    /* Rank 0 is untouched, and no event of rank 1 moved past its true time. */
    uint64_t n0, n1, k = 0, late = 0;
    const struct rt_event *e0 = rt_trace_events(t, 0, &n0), *e1 = rt_trace_events(t, 1, &n1);
    for (uint64_t j = 0; j < n0; j++, k++)
        CHECK_EQ_INT(e0[j].time, before[k]);
    for (uint64_t j = 0; j < n1; j++, k++)
        late += e1[j].time - before[k] > -skew;
    CHECK_EQ_INT(late, 0);
    free(before);
    rt_trace_close(t);
}

/*
 * Four ranks, rank 2's clock 5 us behind, 20 rounds of: a ring exchange (MPI_Irecv from the left,
 * MPI_Isend to the right, MPI_Waitall; true latency 800 ns), an allreduce (entered within 200 ns,
 * left 1.5 us later), a bcast from rank 0 and a synchronous send 3 -> 2. After the fix: nothing
 * violated, ranks 0, 1 and 3 bit for bit as read, rank 2 never later than its true time.
 */
static void test_ring4(void)
{
    char dir[300];
    const uint32_t P = 4, skewed = 2;
    const uint64_t skew = 5000, off = 100000;
    tb_builder *b = new_trace(dir, sizeof dir, P);
    for (uint32_t r = 0; r < P; r++)
        tb_enter(b, r, 0, "main");
    for (uint64_t i = 0; i < 20; i++) {
        uint64_t B = off + i * 20000;
        for (uint32_t r = 0; r < P; r++) {
            uint64_t s = r == skewed ? skew : 0, x = B + 50 * r - s; /* a little jitter per rank */
            tb_enter(b, r, x, "MPI_Irecv");
            tb_irecv_request(b, r, x, 1000 + i);
            tb_leave(b, r, x + 50, "MPI_Irecv");
            tb_enter(b, r, B + 300 - s, "MPI_Isend");
            tb_isend(b, r, B + 300 - s, (r + 1) % P, 5, 256, 2000 + i);
            tb_leave(b, r, B + 350 - s, "MPI_Isend");
            tb_enter(b, r, B + 400 - s, "MPI_Waitall");
            tb_isend_complete(b, r, B + 450 - s, 2000 + i);
            tb_irecv(b, r, B + 1400 - s, (r + P - 1) % P, 5, 256, 1000 + i);
            tb_leave(b, r, B + 1400 - s, "MPI_Waitall");
            tb_collective(b, r, B + 3000 + 60 * r - s, B + 4700 - s, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE,
                          OTF2_UNDEFINED_UINT32, 8, 8);
            tb_collective(b, r, B + 5000 + (r ? 100 : 0) - s, B + 6500 - s, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 0,
                          r ? 0 : 1024, 1024);
            if (r == 3)
                tb_call_send(b, r, B + 7000, B + 9000, "MPI_Ssend", 2, 9, 32);
            if (r == 2)
                tb_call_recv(b, r, B + 8000 - s, B + 8800 - s, 3, 9, 32);
        }
    }
    for (uint32_t r = 0; r < P; r++)
        tb_leave(b, r, off + 20 * 20000, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_time_ns *before = snapshot(t);
    CHECK(depgraph_violations(t) > 0);
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 100, RT_CLOCK_FIX_DEFAULT_GAMMA, &rep), RT_OK);
    CHECK(rep.violations_before >= 20);
    CHECK_EQ_INT(rep.violations_after, 0);
    CHECK_EQ_INT(rep.worst_rank, skewed);
    check_order(t, before);
    CHECK_EQ_INT(check_messages(t, 100), 20 * (P + 1));
    CHECK_EQ_INT(depgraph_violations(t), 0);
    uint64_t k = 0, changed = 0, late = 0, n;
    for (uint32_t r = 0; r < P; r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++, k++) {
            if (r != skewed)
                changed += ev[j].time != before[k];
            else
                late += ev[j].time - before[k] > (rt_time_ns)skew;
        }
    }
    CHECK_EQ_INT(changed, 0);
    CHECK_EQ_INT(late, 0);
    /* Fixing again finds nothing to do. */
    rt_time_ns *fixed = snapshot(t);
    CHECK_EQ_INT(fix(t, 100, RT_CLOCK_FIX_DEFAULT_GAMMA, &rep), RT_OK);
    CHECK_EQ_INT(rep.violations_before, 0);
    CHECK_EQ_INT(rep.events_moved, 0);
    k = 0;
    for (uint32_t r = 0; r < P; r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++, k++)
            changed += ev[j].time != fixed[k];
    }
    CHECK_EQ_INT(changed, 0);
    free(fixed);
    free(before);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ stored traces */

static void stored_each(const char *path, int first)
{
    (void)first;
    rt_trace *t = open_trace(path);
    if (!t)
        return;
    rt_time_ns *before = snapshot(t);
    uint64_t n, k = 0, changed = 0;
    struct rt_clock_fix_report rep;
    CHECK_EQ_INT(fix(t, 0, RT_CLOCK_FIX_DEFAULT_GAMMA, &rep), RT_OK);
    CHECK_EQ_INT(rep.violations_after, 0);
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++, k++)
            changed += ev[j].time != before[k];
    }
    CHECK_EQ_INT(changed, rep.events_moved);
    if (rep.violations_before == 0) /* nothing to correct: not a single bit changes */
        CHECK_EQ_INT(changed, 0);
    else
        CHECK(changed > 0);
    check_order(t, before);
    printf("%s: %" PRIu64 " of %" PRIu64 " constraints violated (worst %" PRId64 " ns), %" PRIu64 " events moved\n",
           path, rep.violations_before, rep.constraints, rep.worst_ns, changed);
    rt_time_ns *fixed = snapshot(t);
    CHECK_EQ_INT(fix(t, 0, RT_CLOCK_FIX_DEFAULT_GAMMA, &rep), RT_OK); /* idempotent */
    CHECK_EQ_INT(rep.violations_before, 0);
    CHECK_EQ_INT(rep.events_moved, 0);
    k = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t j = 0; j < n; j++, k++)
            CHECK_EQ_INT(ev[j].time, fixed[k]);
    }
    free(fixed);
    free(before);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ bad input */

static void expect_error(const char *dir, int code, const char *text)
{
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_error err = {0};
    struct rt_clock_fix_report rep;
    int rc = rt_trace_fix_clocks(t, NULL, &rep, &err);
    CHECK_EQ_INT(rc, code);
    CHECK_CONTAINS(err.msg, text);
    rt_trace_close(t);
}

static void test_bad(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_call_recv(b, 1, 0, 500, 0, 0, 8);
    tb_enter(b, 0, 0, "main");
    tb_leave(b, 0, 10, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    expect_error(dir, RT_EUNMATCHED, "unmatched receive: rank 1 event 1 (receive from rank 0, tag 0");

    b = new_trace(dir, sizeof dir, 2);
    tb_call_send(b, 0, 0, 500, "MPI_Send", 1, 3, 8);
    tb_enter(b, 1, 0, "main");
    tb_leave(b, 1, 10, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    expect_error(dir, RT_EUNMATCHED, "unmatched send: rank 0 event 1 (send to rank 1, tag 3");

    b = new_trace(dir, sizeof dir, 2);
    tb_call_send(b, 0, 0, 500, "MPI_Ssend", 1, 3, 8);
    tb_enter(b, 1, 0, "main");
    tb_leave(b, 1, 10, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    expect_error(dir, RT_EUNMATCHED, "its receive is never posted");

    b = new_trace(dir, sizeof dir, 2); /* each receives before it sends: no order satisfies both */
    for (uint32_t r = 0; r < 2; r++) {
        tb_call_recv(b, r, 0, 100, 1 - r, 0, 8);
        tb_call_send(b, r, 200, 300, "MPI_Send", 1 - r, 0, 8);
    }
    CHECK_EQ_INT(tb_close(b), 0);
    expect_error(dir, RT_EDEADLOCK, "waits for rank 1");

    b = new_trace(dir, sizeof dir, 2);
    tb_collective(b, 0, 0, 100, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tb_collective(b, 1, 0, 100, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
    CHECK_EQ_INT(tb_close(b), 0);
    expect_error(dir, RT_EMISMATCH, "collective mismatch");

    b = new_trace(dir, sizeof dir, 2);
    tb_collective(b, 0, 0, 100, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tb_enter(b, 1, 0, "main");
    tb_leave(b, 1, 10, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    expect_error(dir, RT_EDEADLOCK, "end of barrier");

    /* Bad options are refused before anything changes. */
    b = new_trace(dir, sizeof dir, 2);
    tb_call_send(b, 0, 1000, 1100, "MPI_Send", 1, 0, 8);
    tb_call_recv(b, 1, 0, 500, 0, 0, 8);
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_error err = {0};
    struct rt_clock_fix_options o;
    static const struct { rt_time_ns lmin; double gamma; } bad[] = {
        {-1, 0.5}, {RT_CLOCK_FIX_MAX_LMIN_NS + 1, 0.5}, {0, 0}, {0, 1.5}, {0, -1}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rt_clock_fix_options_init(&o);
        o.min_latency_ns = bad[i].lmin;
        o.gamma = bad[i].gamma;
        CHECK_EQ_INT(rt_trace_fix_clocks(t, &o, NULL, &err), RT_EINVAL);
    }
    CHECK_EQ_INT(time_of(t, 1, 1), 500);
    CHECK_EQ_INT(rt_trace_fix_clocks(NULL, NULL, NULL, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_trace_fix_clocks(t, NULL, NULL, NULL), RT_OK); /* report and error record optional */
    CHECK_EQ_INT(time_of(t, 1, 1), 1000);
    rt_trace_close(t);
    /* A part of a trace (a distributed replay's) lacks the other ranks' messages. */
    t = NULL;
    CHECK_EQ_INT(rt_trace_open_part(dir, 2, 0, &t, &err), RT_OK);
    if (t)
        CHECK_EQ_INT(rt_trace_fix_clocks(t, NULL, NULL, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "needs every rank's events");
    rt_trace_close(t);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-clock-fix-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_blocking();
    test_amortisation(0.5);
    test_amortisation(0.75);
    test_rendezvous();
    test_collectives();
    test_pingpong(-500);
    test_pingpong(-5000);
    test_ring4();
    rt_test_on_traces(RT_TRACES_DIR, RT_EXT_TRACES_DIR, stored_each);
    test_bad();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
