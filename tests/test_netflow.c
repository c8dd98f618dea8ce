/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the flow-level contention model (replay/src/network/netflow.c) on small networks whose
 * finish times, rates and delays are derived by hand below, and on random workloads: the same
 * workload twice, and the incremental recomputation against a full one, must give bit-identical
 * results. Rates and sizes are mostly powers of two (or sums of them) so that the expected times
 * are exact in floating point; the decimal cases state a 1 ps tolerance.
 */
#include <stdint.h>

#include "../replay/src/network/netflow.h"
#include "../replay/src/util/sort.h"
#include "test_util.h"

#define MAXR 8

struct rec {
    uint64_t user;
    uint32_t id, n;
    rt_time_ps start, finish, alone;
    double bytes;
    uint32_t links[MAXR];
    double delay[MAXR];
};

struct log {
    struct rec *r;
    size_t n, cap;
};

static void on_done(void *ud, const struct rt__flow_done *f)
{
    struct log *lg = ud;
    if (lg->n == lg->cap) {
        lg->cap = lg->cap ? 2 * lg->cap : 64;
        lg->r = realloc(lg->r, lg->cap * sizeof *lg->r);
        if (!lg->r)
            abort();
    }
    struct rec *r = &lg->r[lg->n++];
    memset(r, 0, sizeof *r);
    r->user = f->user;
    r->id = f->id;
    r->n = f->n;
    r->start = f->start;
    r->finish = f->finish;
    r->alone = f->alone;
    r->bytes = f->bytes;
    for (uint32_t i = 0; i < f->n && i < MAXR; i++) {
        r->links[i] = f->links[i];
        r->delay[i] = f->delay_ps[i];
    }
}

/* The record of the flow with user value @p user (NULL when it did not complete). */
static const struct rec *find(const struct log *lg, uint64_t user)
{
    for (size_t i = 0; i < lg->n; i++)
        if (lg->r[i].user == user)
            return &lg->r[i];
    return NULL;
}

/* Advances from completion to completion until no flow is left. */
static void drain(struct rt__flownet *fn, struct log *lg)
{
    while (rt__flownet_active(fn) > 0) {
        rt_time_ps t = rt__flownet_next(fn);
        CHECK(t != INT64_MAX && t != INT64_MIN);
        if (t == INT64_MAX || t == INT64_MIN)
            return;
        CHECK_EQ_INT(rt__flownet_advance(fn, t, on_done, lg), RT_OK);
    }
    CHECK_EQ_INT(rt__flownet_next(fn), INT64_MAX);
}

static struct rt__flownet *net(uint32_t n, const double *cap)
{
    struct rt__flownet *fn = NULL;
    CHECK_EQ_INT(rt__flownet_create(n, cap, &fn), RT_OK);
    if (!fn)
        abort();
    return fn;
}

/*
 * One flow alone. Without links only its limit applies: 1000 B at 0.25 B/ps take 4000 ps, which
 * is also its alone time, with no delay. Over a link of 0.125 B/ps the link is the bottleneck:
 * 1000 / 0.125 = 8000 ps, and it loses 8000 * (1 - 0.125/0.25) = 4000 ps = 8000 - 4000 to it.
 * Decimal: 1e6 B at 12.5 GB/s (0.0125 B/ps) take 8e7 ps (within 1 ps of rounding).
 */
static void test_alone(void)
{
    double cap[2] = {0.125, 1.0};
    struct rt__flownet *fn = net(2, cap);
    struct log lg = {0};
    uint32_t l0 = 0, id = 99;
    CHECK_EQ_INT(rt__flownet_start(fn, 0, NULL, 0, 1000, 0.25, 1, &id), RT_OK);
    CHECK_EQ_INT(id, 0);
    CHECK_EQ_INT(rt__flownet_active(fn), 1);
    CHECK_EQ_INT(rt__flownet_next(fn), 4000);
    CHECK_NEAR(rt__flownet_rate(fn, id), 0.25, 0);
    drain(fn, &lg);
    CHECK_EQ_INT(lg.n, 1);
    CHECK_EQ_INT(lg.r[0].finish, 4000);
    CHECK_EQ_INT(lg.r[0].alone, 4000);
    CHECK_EQ_INT(lg.r[0].n, 0);

    CHECK_EQ_INT(rt__flownet_start(fn, 5000, &l0, 1, 1000, 0.25, 2, NULL), RT_OK);
    drain(fn, &lg);
    const struct rec *r = find(&lg, 2);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->start, 5000);
        CHECK_EQ_INT(r->finish, 13000);
        CHECK_EQ_INT(r->alone, 4000);
        CHECK_NEAR(r->delay[0], 4000, 0);
    }
    const struct rt__link_stats *st = rt__flownet_link(fn, 0);
    CHECK_NEAR(st->bytes, 1000, 0);
    CHECK_EQ_INT(st->busy_ps, 8000);
    CHECK_NEAR(st->delay_ps, 4000, 0);
    CHECK_EQ_INT(st->max_flows, 1);
    CHECK_EQ_INT(st->flows, 1);

    CHECK_EQ_INT(rt__flownet_start(fn, 20000, NULL, 0, 1e6, 0.0125, 3, NULL), RT_OK);
    drain(fn, &lg);
    r = find(&lg, 3);
    CHECK(r != NULL);
    if (r)
        CHECK_NEAR(r->finish - 20000, 80000000, 1);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * Two flows of m = 1000 B start together on one link of C = 0.5 B/ps with their own limits
 * 0.5: each gets C/2 = 0.25, both finish at m / (C/2) = 2m/C = 4000 ps, and each loses
 * 4000 * (1 - 0.25/0.5) = 2000 = m/C ps to the link (alone = m/0.5 = 2000).
 */
static void test_two(void)
{
    double cap[1] = {0.5};
    struct rt__flownet *fn = net(1, cap);
    struct log lg = {0};
    uint32_t l = 0;
    CHECK_EQ_INT(rt__flownet_start(fn, 0, &l, 1, 1000, 0.5, 1, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, &l, 1, 1000, 0.5, 2, NULL), RT_OK);
    drain(fn, &lg);
    CHECK_EQ_INT(lg.n, 2);
    for (size_t i = 0; i < lg.n; i++) {
        CHECK_EQ_INT(lg.r[i].user, i + 1); /* ascending start, then id */
        CHECK_EQ_INT(lg.r[i].finish, 4000);
        CHECK_EQ_INT(lg.r[i].alone, 2000);
        CHECK_NEAR(lg.r[i].delay[0], 2000, 0);
    }
    const struct rt__link_stats *st = rt__flownet_link(fn, 0);
    CHECK_NEAR(st->bytes, 2000, 0);
    CHECK_EQ_INT(st->busy_ps, 4000);
    CHECK_NEAR(st->delay_ps, 4000, 0);
    CHECK_EQ_INT(st->max_flows, 2);
    CHECK_EQ_INT(st->flows, 2);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * The second flow starts halfway through the first. C = 0.5, m = 1000, limits 0.5. A alone at
 * 0.5 B/ps until 1000 ps has 500 B left; then both run at 0.25: A ends 500/0.25 = 2000 ps later,
 * at 3000, when B has sent 500 B; B alone sends its last 500 B at 0.5 by 4000.
 * Delays: A loses 2000 * 0.5 = 1000 = 3000 - 0 - 2000; B loses 1000 = 4000 - 1000 - 2000.
 */
static void test_halfway(void)
{
    double cap[1] = {0.5};
    struct rt__flownet *fn = net(1, cap);
    struct log lg = {0};
    uint32_t l = 0;
    CHECK_EQ_INT(rt__flownet_start(fn, 0, &l, 1, 1000, 0.5, 1, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 2000);
    CHECK_EQ_INT(rt__flownet_start(fn, 1000, &l, 1, 1000, 0.5, 2, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 3000);
    drain(fn, &lg);
    const struct rec *a = find(&lg, 1), *b = find(&lg, 2);
    CHECK(a && b);
    if (a && b) {
        CHECK_EQ_INT(a->finish, 3000);
        CHECK_EQ_INT(b->finish, 4000);
        CHECK_NEAR(a->delay[0], 1000, 0);
        CHECK_NEAR(b->delay[0], 1000, 0);
    }
    CHECK_EQ_INT(rt__flownet_link(fn, 0)->busy_ps, 4000);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * The classic max-min example. Link 0 has capacity 1, link 1 capacity 2; A (1000 B) over link 0,
 * B (2000 B) over links 0 and 1, C (6000 B) over link 1; limits 4 (never binding).
 * Filling: shares 1/2 (link 0) and 2/2 (link 1): link 0 freezes A = B = 0.5; link 1 keeps
 * 2 - 0.5 = 1.5 for C alone. A ends at 1000/0.5 = 2000; B has 1000 B left, C 6000 - 3000 = 3000.
 * Then both links have share 1 (link 0: 1/1, link 1: 2/2); link 0, now B's alone, counts as B's
 * limit, and a limit goes first in a tie: B = 1 with link 0 its bottleneck; link 1 keeps 1 for C. B ends at 2000 + 1000 = 3000; C has 2000 B left, alone on link 1
 * at 2: ends at 4000.
 * Delays (d = dt (1 - r/4)): A: 2000 * 7/8 = 1750 on link 0 (= 2000 - 250). B: on link 0,
 * 2000 * 7/8 + 1000 * 3/4 = 2500 (= 3000 - 500), none on link 1. C: on link 1,
 * 2000 * 5/8 + 1000 * 3/4 + 1000 * 1/2 = 2500 (= 4000 - 1500).
 */
static void test_classic(void)
{
    double cap[2] = {1, 2};
    struct rt__flownet *fn = net(2, cap);
    struct log lg = {0};
    uint32_t ra[1] = {0}, rb[2] = {0, 1}, rc[1] = {1}, ia, ib, ic;
    CHECK_EQ_INT(rt__flownet_start(fn, 0, ra, 1, 1000, 4, 'A', &ia), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, rb, 2, 2000, 4, 'B', &ib), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, rc, 1, 6000, 4, 'C', &ic), RT_OK);
    CHECK_EQ_INT(rt__flownet_rate(fn, ia), 0); /* lazy: not computed yet */
    CHECK_EQ_INT(rt__flownet_next(fn), 2000);
    CHECK_NEAR(rt__flownet_rate(fn, ia), 0.5, 0);
    CHECK_NEAR(rt__flownet_rate(fn, ib), 0.5, 0);
    CHECK_NEAR(rt__flownet_rate(fn, ic), 1.5, 0);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    CHECK_EQ_INT(rt__flownet_advance(fn, 2000, on_done, &lg), RT_OK);
    CHECK_EQ_INT(lg.n, 1);
    CHECK_EQ_INT(rt__flownet_next(fn), 3000);
    CHECK_NEAR(rt__flownet_rate(fn, ib), 1, 0);
    CHECK_NEAR(rt__flownet_rate(fn, ic), 1, 0);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    CHECK_EQ_INT(rt__flownet_advance(fn, 3000, on_done, &lg), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 4000);
    CHECK_NEAR(rt__flownet_rate(fn, ic), 2, 0);
    drain(fn, &lg);
    const struct rec *a = find(&lg, 'A'), *b = find(&lg, 'B'), *c = find(&lg, 'C');
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK_EQ_INT(a->finish, 2000);
        CHECK_EQ_INT(b->finish, 3000);
        CHECK_EQ_INT(c->finish, 4000);
        CHECK_EQ_INT(a->alone, 250);
        CHECK_EQ_INT(b->alone, 500);
        CHECK_EQ_INT(c->alone, 1500);
        CHECK_NEAR(a->delay[0], 1750, 0);
        CHECK_NEAR(b->delay[0], 2500, 0);
        CHECK_NEAR(b->delay[1], 0, 0);
        CHECK_NEAR(c->delay[0], 2500, 0);
    }
    CHECK_NEAR(rt__flownet_link(fn, 0)->delay_ps, 1750 + 2500, 0);
    CHECK_NEAR(rt__flownet_link(fn, 1)->delay_ps, 2500, 0);
    CHECK_NEAR(rt__flownet_link(fn, 1)->bytes, 8000, 0);
    CHECK_EQ_INT(rt__flownet_link(fn, 0)->busy_ps, 3000);
    CHECK_EQ_INT(rt__flownet_link(fn, 1)->busy_ps, 4000);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * A flow held by its own limit next to an unlimited one on a link of capacity 1: A (limit 0.25,
 * 1000 B) is frozen first at 0.25, B (limit 4, 6000 B) gets the rest, 0.75. A ends at 4000 with
 * no delay (its alone time); B has sent 3000 B and sends the other 3000 at 1 by 7000.
 * B's delay: 4000 (1 - 0.75/4) + 3000 (1 - 1/4) = 3250 + 2250 = 5500 = 7000 - 1500.
 */
static void test_own_limit(void)
{
    double cap[1] = {1};
    struct rt__flownet *fn = net(1, cap);
    struct log lg = {0};
    uint32_t l = 0, ia, ib;
    CHECK_EQ_INT(rt__flownet_start(fn, 0, &l, 1, 1000, 0.25, 'A', &ia), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, &l, 1, 6000, 4, 'B', &ib), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 4000);
    CHECK_NEAR(rt__flownet_rate(fn, ia), 0.25, 0);
    CHECK_NEAR(rt__flownet_rate(fn, ib), 0.75, 0);
    drain(fn, &lg);
    const struct rec *a = find(&lg, 'A'), *b = find(&lg, 'B');
    CHECK(a && b);
    if (a && b) {
        CHECK_EQ_INT(a->finish, 4000);
        CHECK_EQ_INT(a->alone, 4000);
        CHECK_NEAR(a->delay[0], 0, 0);
        CHECK_EQ_INT(b->finish, 7000);
        CHECK_NEAR(b->delay[0], 5500, 0);
    }
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * Incast: 64 flows of m = 65536 B, each over its own injection link and one shared ejection link,
 * all of C = 12.5 GB/s = 0.0125 B/ps, limits C. The ejection share C/64 is the smallest level, so
 * all run at C/64 and finish at 64 m / C = 335,544,320 ps (within 1 ps), each losing
 * 335544320 - m/C = 335544320 - 5242880 ps to the ejection link (route position 1).
 */
static void test_incast(void)
{
    enum { N = 64 };
    double cap[N + 1];
    for (int i = 0; i <= N; i++)
        cap[i] = 0.0125;
    struct rt__flownet *fn = net(N + 1, cap);
    struct log lg = {0};
    for (uint32_t i = 0; i < N; i++) {
        uint32_t r[2] = {i, N};
        CHECK_EQ_INT(rt__flownet_start(fn, 0, r, 2, 65536, 0.0125, i, NULL), RT_OK);
    }
    drain(fn, &lg);
    CHECK_EQ_INT(lg.n, N);
    for (size_t i = 0; i < lg.n; i++) {
        CHECK_NEAR(lg.r[i].finish, 335544320.0, 1);
        CHECK_NEAR(lg.r[i].alone, 5242880.0, 1);
        CHECK_NEAR(lg.r[i].delay[0], 0, 0);
        CHECK_NEAR(lg.r[i].delay[1], 335544320.0 - 5242880.0, 2);
    }
    CHECK_EQ_INT(rt__flownet_link(fn, N)->max_flows, N);
    CHECK_NEAR(rt__flownet_link(fn, N)->bytes, 64.0 * 65536, 0);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * A done callback that starts the next flow at the completion time (a chain of messages): three
 * flows of 1000 B at 0.5 B/ps one after the other end at 2000, 4000 and 6000. Flows ending at one
 * time come in (start, id) order.
 */
struct chain {
    struct rt__flownet *fn;
    struct log lg;
    int left;
};

static void on_chain(void *ud, const struct rt__flow_done *f)
{
    struct chain *c = ud;
    on_done(&c->lg, f);
    if (c->left-- > 0)
        CHECK_EQ_INT(rt__flownet_start(c->fn, f->finish, NULL, 0, 1000, 0.5, f->user + 1, NULL), RT_OK);
    /* Anything else is refused during the callback. */
    CHECK_EQ_INT(rt__flownet_advance(c->fn, f->finish, NULL, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(c->fn, f->finish + 1, NULL, 0, 1, 1, 0, NULL), RT_EINVAL);
}

static void test_chain_and_order(void)
{
    struct chain c = {net(0, NULL), {0}, 2};
    CHECK_EQ_INT(rt__flownet_start(c.fn, 0, NULL, 0, 1000, 0.5, 1, NULL), RT_OK);
    while (rt__flownet_active(c.fn) > 0)
        CHECK_EQ_INT(rt__flownet_advance(c.fn, rt__flownet_next(c.fn), on_chain, &c), RT_OK);
    CHECK_EQ_INT(c.lg.n, 3);
    for (size_t i = 0; i < c.lg.n; i++) {
        CHECK_EQ_INT(c.lg.r[i].user, i + 1);
        CHECK_EQ_INT(c.lg.r[i].start, 2000 * (rt_time_ps)i);
        CHECK_EQ_INT(c.lg.r[i].finish, 2000 * (rt_time_ps)(i + 1));
    }
    /* Flows that end together: 4000 B from 0, 2000 B from 2000, 1000 B from 3000, all at 1 B/ps
     * without links end at 4000; reported by start. Ids: slots freed above are reused. */
    struct log lg = {0};
    CHECK_EQ_INT(rt__flownet_start(c.fn, 10000, NULL, 0, 1000, 1, 30, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(c.fn, 7000, NULL, 0, 1000, 1, 0, NULL), RT_EINVAL); /* back in time */
    CHECK_EQ_INT(rt__flownet_start(c.fn, 8000, NULL, 0, 3000, 1, 20, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(c.fn, 10000, NULL, 0, 1000, 1, 31, NULL), RT_OK);
    drain(c.fn, &lg);
    CHECK_EQ_INT(lg.n, 2);
    CHECK_EQ_INT(lg.r[0].user, 30);
    CHECK_EQ_INT(lg.r[1].user, 31);
    lg.n = 0;
    CHECK_EQ_INT(rt__flownet_start(c.fn, 20000, NULL, 0, 4000, 1, 40, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(c.fn, 22000, NULL, 0, 2000, 1, 41, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(c.fn, 23000, NULL, 0, 1000, 1, 42, NULL), RT_OK);
    drain(c.fn, &lg);
    CHECK_EQ_INT(lg.n, 3);
    for (size_t i = 0; i < lg.n; i++) {
        CHECK_EQ_INT(lg.r[i].user, 40 + i);
        CHECK_EQ_INT(lg.r[i].finish, 24000);
    }
    free(lg.r);
    free(c.lg.r);
    rt__flownet_destroy(c.fn);
}

/*
 * A flow started exactly when another is due, before the latter is advanced: the due one takes no
 * bandwidth from the new one. Link of 1 B/ps: A (1000 B) ends at 1000; B (1000 B) starts at 1000
 * before the advance and runs alone at 1 until 2000.
 */
static void test_start_at_due_as(int fast)
{
    double cap[1] = {1};
    struct rt__flownet *fn = net(1, cap);
    rt__flownet_set_fast(fn, fast);
    struct log lg = {0};
    uint32_t l = 0;
    CHECK_EQ_INT(rt__flownet_start(fn, 0, &l, 1, 1000, 4, 'A', NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 1000);
    CHECK_EQ_INT(rt__flownet_start(fn, 1000, &l, 1, 1000, 4, 'B', NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 1000);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    drain(fn, &lg);
    const struct rec *a = find(&lg, 'A'), *b = find(&lg, 'B');
    CHECK(a && b);
    if (a && b) {
        CHECK_EQ_INT(a->finish, 1000);
        CHECK_EQ_INT(b->finish, 2000);
    }
    free(lg.r);
    rt__flownet_destroy(fn);
}

static void test_start_at_due(void)
{
    for (int fast = 0; fast <= 1; fast++) /* the fast model does not count a due flow either */
        test_start_at_due_as(fast);
}

/*
 * Ties name the bottleneck deterministically. A flow alone over links 1 and 0 (route order), both
 * of 0.25 B/ps, limit 1: both links are its limit at 0.25; the lower route position (link 1)
 * is named: 1000 B take 4000 ps, alone 1000, delay 3000 on route position 0. With its own limit
 * also 0.25, the limit goes first: no delay at all.
 */
static void test_ties_as(int fast)
{
    double cap[2] = {0.25, 0.25};
    struct rt__flownet *fn = net(2, cap);
    rt__flownet_set_fast(fn, fast);
    struct log lg = {0};
    uint32_t r[2] = {1, 0};
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r, 2, 1000, 1, 1, NULL), RT_OK);
    drain(fn, &lg);
    CHECK_EQ_INT(rt__flownet_start(fn, 5000, r, 2, 1000, 0.25, 2, NULL), RT_OK);
    drain(fn, &lg);
    const struct rec *a = find(&lg, 1), *b = find(&lg, 2);
    CHECK(a && b);
    if (a && b) {
        CHECK_EQ_INT(a->finish, 4000);
        CHECK_EQ_INT(a->alone, 1000);
        CHECK_NEAR(a->delay[0], 3000, 0);
        CHECK_NEAR(a->delay[1], 0, 0);
        CHECK_EQ_INT(b->finish, 9000);
        CHECK_NEAR(b->delay[0] + b->delay[1], 0, 0);
    }
    free(lg.r);
    rt__flownet_destroy(fn);
}

static void test_ties(void)
{
    for (int fast = 0; fast <= 1; fast++) /* the fast approximation names the same links */
        test_ties_as(fast);
}

/*
 * Flows alone on their links (netflow.c's nf_alone: no component search, no filling) must get what
 * the filling gives. Links 0 and 1 of 0.5 B/ps; A (2000 B, limit 1) over links 0 and 1, B (500 B,
 * limit 1) over link 0, both at 0: link 0's share 0.25 freezes both (A's limit, 0.5 from link 1,
 * is higher); B ends at 500 / 0.25 = 2000 with A 1500 B short. A is then alone: its limit is 0.5,
 * where link 0 ties with link 1 and is named (the lower route position): 1500 / 0.5 = 3000 more,
 * it ends at 5000 (alone 2000) and loses 2000 * 0.75 + 3000 * 0.5 = 3000 on link 0, none on link 1.
 * Then C (1000 B, limit 0.5, as both links) over links 1 and 0, freed by A: its own limit is
 * named, no delay, 2000 ps. Each recomputation computes the flows once: 2 at 0, then 1 and 1.
 * C's user value has RT__FLOW_APART: the links count it (and only it) in apart_flows and _bytes.
 */
static void test_alone_path(void)
{
    double cap[2] = {0.5, 0.5};
    struct rt__flownet *fn = net(2, cap);
    struct log lg = {0};
    uint32_t ra[2] = {0, 1}, rb[1] = {0}, rc[2] = {1, 0};
    CHECK_EQ_INT(rt__flownet_start(fn, 0, ra, 2, 2000, 1, 1, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, rb, 1, 500, 1, 2, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 2000);
    CHECK_EQ_INT(rt__flownet_filled(fn), 2);
    CHECK_EQ_INT(rt__flownet_advance(fn, 2000, on_done, &lg), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 5000);
    CHECK_EQ_INT(rt__flownet_filled(fn), 3);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    CHECK_EQ_INT(rt__flownet_advance(fn, 5000, on_done, &lg), RT_OK);
    CHECK_EQ_INT(rt__flownet_start(fn, 5000, rc, 2, 1000, 0.5, 3 | RT__FLOW_APART, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_link(fn, 0)->flows, 3); /* A, B and C, started */
    CHECK_EQ_INT(rt__flownet_next(fn), 7000);
    CHECK_EQ_INT(rt__flownet_filled(fn), 4);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    drain(fn, &lg);
    const struct rec *a = find(&lg, 1), *b = find(&lg, 2), *c = find(&lg, 3 | RT__FLOW_APART);
    const struct rt__link_stats *s0 = rt__flownet_link(fn, 0), *s1 = rt__flownet_link(fn, 1);
    CHECK_EQ_INT(s0->flows, 3);
    CHECK_EQ_INT(s0->max_flows, 2);
    CHECK_EQ_INT(s0->apart_flows, 1);
    CHECK_NEAR(s0->apart_bytes, 1000, 0);
    CHECK_NEAR(s0->bytes, 3500, 0);
    CHECK_EQ_INT(s1->flows, 2);
    CHECK_EQ_INT(s1->max_flows, 1);
    CHECK_EQ_INT(s1->apart_flows, 1);
    CHECK_EQ_INT(s1->busy_ps, 7000);
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK_EQ_INT(b->finish, 2000);
        CHECK_EQ_INT(a->finish, 5000);
        CHECK_EQ_INT(a->alone, 2000);
        CHECK_NEAR(a->delay[0], 3000, 0);
        CHECK_NEAR(a->delay[1], 0, 0);
        CHECK_EQ_INT(c->finish, 7000);
        CHECK_NEAR(c->delay[0] + c->delay[1], 0, 0);
    }
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * Incremental: 50 flows over links 0..9 (one component through link 0) and 1 flow over links
 * 10 and 11. Starting one more flow over link 11, and its end, recompute 2 flows each time, not
 * 52; a full recomputation recomputes all 52. Ending one of the 50 recomputes the other 49.
 */
static void test_incremental(void)
{
    double cap[12];
    for (int l = 0; l < 12; l++)
        cap[l] = 0.5;
    struct rt__flownet *fn = net(12, cap);
    struct log lg = {0};
    for (uint32_t i = 0; i < 50; i++) {
        uint32_t r[2] = {0, 1 + i % 9};
        CHECK_EQ_INT(rt__flownet_start(fn, 0, r, 2, 1e6 + 1e3 * i, 1, i, NULL), RT_OK);
    }
    uint32_t r1[2] = {10, 11}, r2[1] = {11};
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r1, 2, 1e9, 1, 100, NULL), RT_OK);
    rt__flownet_next(fn);
    CHECK_EQ_INT(rt__flownet_filled(fn), 51);
    CHECK_EQ_INT(rt__flownet_start(fn, 10, r2, 1, 100, 1, 101, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 10 + 400); /* 100 B at 0.25 B/ps: link 11 shared by 2 */
    CHECK_EQ_INT(rt__flownet_filled(fn), 51 + 2);
    CHECK_EQ_INT(rt__flownet_advance(fn, 410, on_done, &lg), RT_OK);
    CHECK_EQ_INT(lg.n, 1);
    rt__flownet_next(fn);
    CHECK_EQ_INT(rt__flownet_filled(fn), 51 + 2 + 1);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    rt__flownet_set_full(fn, 1);
    CHECK_EQ_INT(rt__flownet_start(fn, 500, r2, 1, 100, 1, 102, NULL), RT_OK);
    rt__flownet_next(fn);
    CHECK_EQ_INT(rt__flownet_filled(fn), 51 + 2 + 1 + 52);
    rt__flownet_set_full(fn, 0);
    uint64_t before = rt__flownet_filled(fn);
    rt_time_ps t = rt__flownet_next(fn);
    CHECK_EQ_INT(rt__flownet_advance(fn, t, on_done, &lg), RT_OK); /* flow 102 */
    t = rt__flownet_next(fn);
    CHECK_EQ_INT(rt__flownet_filled(fn) - before, 1);
    CHECK_EQ_INT(rt__flownet_advance(fn, t, on_done, &lg), RT_OK); /* flow 0, the smallest of 50 */
    CHECK_EQ_INT(lg.r[lg.n - 1].user, 0);
    before = rt__flownet_filled(fn);
    rt__flownet_next(fn);
    CHECK_EQ_INT(rt__flownet_filled(fn) - before, 49);
    drain(fn, &lg);
    CHECK_EQ_INT(lg.n, 53);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/*
 * By region: a chain of 50 flows, f_i over links i and i+1 (capacity 1 B/ps each, limits 1), is
 * one component in which every flow gets 0.5. A flow g over link 25 alone makes that link's share
 * 1/3: f_24, f_25 and g get 1/3, and f_23 and f_26 keep 0.5 (their other links, of share 0.5, still
 * hold them), so nothing further changes. The recomputation computes those few flows, not the 51
 * of the component (nf_region), and gives what a full filling gives (rt__flownet_check); g's end
 * puts the chain back as it was, again without refilling it.
 */
static void test_region(void)
{
    double cap[51];
    for (int l = 0; l < 51; l++)
        cap[l] = 1;
    struct rt__flownet *fn = net(51, cap);
    uint32_t id[50], gid;
    for (uint32_t i = 0; i < 50; i++) {
        uint32_t r[2] = {i, i + 1};
        CHECK_EQ_INT(rt__flownet_start(fn, 0, r, 2, 1e9, 1, i, &id[i]), RT_OK);
    }
    rt__flownet_next(fn);
    for (uint32_t i = 0; i < 50; i++)
        CHECK_NEAR(rt__flownet_rate(fn, id[i]), 0.5, 0);
    uint64_t before = rt__flownet_filled(fn);
    uint32_t rg[1] = {25};
    CHECK_EQ_INT(rt__flownet_start(fn, 1000, rg, 1, 3000, 1, 100, &gid), RT_OK);
    CHECK_EQ_INT(rt__flownet_next(fn), 1000 + 9000); /* 3000 B at 1/3 B/ps */
    uint64_t started = rt__flownet_filled(fn) - before;
    CHECK(started >= 3 && started <= 10);
    CHECK_NEAR(rt__flownet_rate(fn, gid), 1.0 / 3, 0);
    CHECK_NEAR(rt__flownet_rate(fn, id[24]), 1.0 / 3, 0);
    CHECK_NEAR(rt__flownet_rate(fn, id[25]), 1.0 / 3, 0);
    CHECK_NEAR(rt__flownet_rate(fn, id[23]), 0.5, 0);
    CHECK_NEAR(rt__flownet_rate(fn, id[26]), 0.5, 0);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    struct log lg = {0};
    CHECK_EQ_INT(rt__flownet_advance(fn, 10000, on_done, &lg), RT_OK);
    CHECK_EQ_INT(lg.n, 1);
    before = rt__flownet_filled(fn);
    rt__flownet_next(fn);
    uint64_t ended = rt__flownet_filled(fn) - before;
    CHECK(ended >= 2 && ended <= 10);
    for (uint32_t i = 0; i < 50; i++)
        CHECK_NEAR(rt__flownet_rate(fn, id[i]), 0.5, 0);
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    free(lg.r);
    rt__flownet_destroy(fn);
}

/* ---- random workloads ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

struct wl_flow {
    rt_time_ps at;
    uint32_t n, links[6];
    double bytes, max_rate;
};

struct workload {
    uint32_t nlinks;
    double *cap;
    struct wl_flow *f;
    uint32_t nf;
};

static void make_workload(struct workload *w, uint64_t seed, uint32_t nlinks, uint32_t nf, uint32_t gap)
{
    static const double caps[] = {0.0125, 0.025, 0.05, 0.003125, 0.1};
    static const double limits[] = {0.0125, 0.025, 0.1, 0.00625};
    rng_state = seed;
    w->nlinks = nlinks;
    w->nf = nf;
    w->cap = malloc(nlinks * sizeof *w->cap);
    w->f = malloc(nf * sizeof *w->f);
    if (!w->cap || !w->f)
        abort();
    for (uint32_t l = 0; l < nlinks; l++)
        w->cap[l] = caps[rnd(5)];
    rt_time_ps t = 0;
    for (uint32_t i = 0; i < nf; i++) {
        struct wl_flow *f = &w->f[i];
        /* Starts in bursts: many at one time, quantized so that ties with completions happen. */
        if (rnd(4) == 0)
            t += 1000 * (rt_time_ps)rnd(gap);
        f->at = t;
        f->n = rnd(7);
        for (uint32_t k = 0; k < f->n; k++) {
            uint32_t l;
            int dup;
            do { /* distinct links */
                l = rnd(nlinks);
                dup = 0;
                for (uint32_t j = 0; j < k; j++)
                    dup |= f->links[j] == l;
            } while (dup);
            f->links[k] = l;
        }
        f->bytes = rnd(3) == 0 ? (double)(1 + rnd(100000)) : 1024.0 * (1 + rnd(64));
        f->max_rate = limits[rnd(4)];
    }
}

/* How run_workload_as builds and drives the network. */
struct wl_how {
    int full, eager_start, check, fast;
    long small;
    /* NULL: the links made by rt__flownet_create; else link perm[i] of the workload is added i-th
     * with rt__flownet_add_link and key perm[i] (and told back by its key in the log) */
    const uint32_t *perm;
};

/*
 * Replays workload @p w: each flow starts at its time, in order. With eager_start, a flow is
 * started before advancing to its time (so flows due at that time are still there, and start()
 * moves the time itself); otherwise the network is first advanced to it. With check, every
 * 7th recomputation is compared with a full one. full, fast and small (-1: the default) are
 * passed to rt__flownet_set_full, _set_fast and _set_small. Returns the completion log.
 */
static struct log run_workload_as(const struct workload *w, struct wl_how how)
{
    struct log lg = {0};
    struct rt__flownet *fn;
    uint32_t *local = calloc(w->nlinks, sizeof *local); /* workload link -> network link */
    if (!local)
        abort();
    if (how.perm) {
        CHECK_EQ_INT(rt__flownet_create(0, NULL, &fn), RT_OK);
        for (uint32_t i = 0; i < w->nlinks; i++) {
            uint32_t l = UINT32_MAX;
            CHECK_EQ_INT(rt__flownet_add_link(fn, w->cap[how.perm[i]], how.perm[i], &l), RT_OK);
            CHECK_EQ_INT(l, i);
            local[how.perm[i]] = l;
        }
    } else {
        fn = net(w->nlinks, w->cap);
        for (uint32_t l = 0; l < w->nlinks; l++)
            local[l] = l;
    }
    rt__flownet_set_full(fn, how.full);
    rt__flownet_set_fast(fn, how.fast);
    if (how.small >= 0)
        rt__flownet_set_small(fn, (uint32_t)how.small);
    int eager_start = how.eager_start, check = how.check;
    uint32_t i = 0, steps = 0;
    while (i < w->nf || rt__flownet_active(fn) > 0) {
        rt_time_ps t = rt__flownet_next(fn);
        if (check && (steps++ % 7) == 0)
            CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
        if (i < w->nf && w->f[i].at <= t) {
            rt_time_ps at = w->f[i].at;
            if (!eager_start && at > rt__flownet_now(fn))
                CHECK_EQ_INT(rt__flownet_advance(fn, at, on_done, &lg), RT_OK);
            while (i < w->nf && w->f[i].at == at) {
                const struct wl_flow *f = &w->f[i];
                uint32_t route[6];
                for (uint32_t k = 0; k < f->n; k++)
                    route[k] = local[f->links[k]];
                int rc = rt__flownet_start(fn, at, route, f->n, f->bytes, f->max_rate, i, NULL);
                CHECK_EQ_INT(rc, RT_OK);
                if (rc)
                    abort();
                i++;
            }
        } else {
            CHECK(t != INT64_MAX && t != INT64_MIN);
            CHECK_EQ_INT(rt__flownet_advance(fn, t, on_done, &lg), RT_OK);
        }
    }
    CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
    /* Link totals: bytes of the flows over each link. */
    for (uint32_t l = 0; l < w->nlinks; l++) {
        double b = 0;
        uint64_t nflows = 0;
        for (uint32_t k = 0; k < w->nf; k++)
            for (uint32_t j = 0; j < w->f[k].n; j++)
                if (w->f[k].links[j] == l) {
                    b += w->f[k].bytes;
                    nflows++;
                }
        CHECK_NEAR(rt__flownet_link(fn, local[l])->bytes, b, 1e-6 * b);
        CHECK_EQ_INT(rt__flownet_link(fn, local[l])->flows, nflows);
    }
    rt__flownet_destroy(fn);
    for (size_t k = 0; how.perm && k < lg.n; k++) /* the log in the workload's link ids */
        for (uint32_t j = 0; j < lg.r[k].n && j < MAXR; j++)
            lg.r[k].links[j] = how.perm[lg.r[k].links[j]];
    free(local);
    return lg;
}

static struct log run_workload(const struct workload *w, int full, int eager_start, int check, long small)
{
    return run_workload_as(w, (struct wl_how){.full = full, .eager_start = eager_start, .check = check, .small = small});
}

static int same_log(const struct log *a, const struct log *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct rec *x = &a->r[i], *y = &b->r[i];
        if (x->user != y->user || x->start != y->start || x->finish != y->finish || x->alone != y->alone ||
            x->n != y->n)
            return 0;
        for (uint32_t k = 0; k < x->n; k++)
            if (x->links[k] != y->links[k] || memcmp(&x->delay[k], &y->delay[k], sizeof(double)) != 0)
                return 0;
    }
    return 1;
}

/* Physical sanity of every completion: all flows complete once, never faster than alone, and the
 * delays add up to finish - start - alone within the rounding of the completion times. */
static void check_log(const struct workload *w, const struct log *lg)
{
    CHECK_EQ_INT(lg->n, w->nf);
    unsigned char *seen = calloc(w->nf, 1);
    int bad = 0;
    for (size_t i = 0; i < lg->n; i++) {
        const struct rec *r = &lg->r[i];
        if (r->user >= w->nf || seen[r->user]++) {
            bad++;
            continue;
        }
        if (i > 0 && r->finish < lg->r[i - 1].finish)
            bad++; /* never back in time */
        double sum = 0;
        for (uint32_t k = 0; k < r->n; k++)
            sum += r->delay[k];
        double lost = (double)(r->finish - r->start - r->alone);
        if (r->finish - r->start < r->alone - 1 || fabs(sum - lost) > 2 + 1e-9 * (double)(r->finish - r->start))
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    free(seen);
}

static void test_random(void)
{
    struct {
        uint64_t seed;
        uint32_t nlinks, nf, gap;
    } cases[] = {{1, 48, 1500, 1500}, {2, 16, 1000, 4000}, {3, 400, 3000, 3000}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct workload w;
        make_workload(&w, cases[c].seed, cases[c].nlinks, cases[c].nf, cases[c].gap);
        for (int eager = 0; eager <= 1; eager++) {
            struct log inc = run_workload(&w, 0, eager, 1, -1);
            struct log again = run_workload(&w, 0, eager, 0, -1);
            struct log full = run_workload(&w, 1, eager, 0, -1);
            struct log heap = run_workload(&w, 0, eager, 1, 0);          /* always the heap */
            struct log scan = run_workload(&w, 1, eager, 0, 1000000000); /* always the scan */
            check_log(&w, &inc);
            CHECK(same_log(&inc, &again));
            CHECK(same_log(&inc, &full));
            CHECK(same_log(&inc, &heap));
            CHECK(same_log(&inc, &scan));
            free(inc.r);
            free(again.r);
            free(full.r);
            free(heap.r);
            free(scan.r);
        }
        free(w.cap);
        free(w.f);
    }
}

/*
 * Links added one by one (rt__flownet_add_link, as a replay meets them on a machine too large to
 * hold) in a shuffled order, each keyed by its workload id: the completions, bottlenecks and
 * delays are those of the network made with every link at once, bit for bit (ties between links'
 * shares, frequent here with 5 capacities, go by key, not by the order links were added in).
 */
static void test_added_links(void)
{
    struct {
        uint64_t seed;
        uint32_t nlinks, nf, gap;
    } cases[] = {{1, 48, 1500, 1500}, {2, 16, 1000, 4000}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct workload w;
        make_workload(&w, cases[c].seed, cases[c].nlinks, cases[c].nf, cases[c].gap);
        uint32_t *perm = malloc(w.nlinks * sizeof *perm);
        if (!perm)
            abort();
        for (uint32_t l = 0; l < w.nlinks; l++)
            perm[l] = w.nlinks - 1 - l; /* reversed: every tie between links would flip */
        for (int small = 0; small <= 1; small++) { /* the heap and the scan */
            long sm = small ? 1000000000 : 0;
            struct log dense = run_workload_as(&w, (struct wl_how){.check = 1, .small = sm});
            struct log added = run_workload_as(&w, (struct wl_how){.check = 1, .small = sm, .perm = perm});
            CHECK(same_log(&dense, &added));
            free(dense.r);
            free(added.r);
        }
        free(perm);
        free(w.cap);
        free(w.f);
    }
}

/*
 * The fast approximation against max-min, derived by hand. Link A (1 B/ps) carries flows a and
 * b, link B (1 B/ps) carries b, c and d; each flow 3000 B, its own limit 1 B/ps.
 *   max-min: B's share 1/3 is the least: b, c, d at 1/3; then a alone on A's remaining 2/3.
 *            a ends at 3000 / (2/3) = 4500, b, c, d at 9000.
 *   fast:    a = min(1, 1/2) = 1/2, ends at 6000; b = min(1/2, 1/3) = 1/3, c = d = 1/3: 9000.
 * When a ends (fast), A's share rises to 1, above b's rate 1/3 on its bottleneck B: no flow is
 * recomputed (b's rate cannot change; c and d are not over A); nor with max-min, as A froze no
 * flow left over it and its capacity is above b's rate (netflow.c's nf_kept): b, c and d keep
 * their rates, which rt__flownet_check confirms. b's bottleneck is B in both: its delay is all on B.
 */
static void test_fast(void)
{
    for (int fast = 0; fast <= 1; fast++) {
        double cap[2] = {1, 1};
        struct rt__flownet *fn = net(2, cap);
        rt__flownet_set_fast(fn, fast);
        struct log lg = {0};
        uint32_t ra[1] = {0}, rb[2] = {0, 1}, rc[1] = {1};
        CHECK_EQ_INT(rt__flownet_start(fn, 0, ra, 1, 3000, 1, 'a', NULL), RT_OK);
        CHECK_EQ_INT(rt__flownet_start(fn, 0, rb, 2, 3000, 1, 'b', NULL), RT_OK);
        CHECK_EQ_INT(rt__flownet_start(fn, 0, rc, 1, 3000, 1, 'c', NULL), RT_OK);
        CHECK_EQ_INT(rt__flownet_start(fn, 0, rc, 1, 3000, 1, 'd', NULL), RT_OK);
        CHECK_EQ_INT(rt__flownet_next(fn), fast ? 6000 : 4500);
        CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
        uint64_t before = rt__flownet_filled(fn);
        CHECK_EQ_INT(rt__flownet_advance(fn, fast ? 6000 : 4500, on_done, &lg), RT_OK);
        CHECK_EQ_INT(rt__flownet_next(fn), 9000);
        CHECK_EQ_INT(rt__flownet_filled(fn) - before, 0);
        CHECK_EQ_INT(rt__flownet_check(fn), RT_OK);
        drain(fn, &lg);
        const struct rec *a = find(&lg, 'a'), *b = find(&lg, 'b'), *d = find(&lg, 'd');
        CHECK(a && b && d);
        if (a && b && d) {
            CHECK_EQ_INT(a->finish, fast ? 6000 : 4500);
            CHECK_NEAR(a->delay[0], fast ? 3000 : 1500, 1e-6);
            CHECK_EQ_INT(b->finish, 9000);
            CHECK_NEAR(b->delay[0], 0, 0);
            CHECK_NEAR(b->delay[1], 6000, 1e-6);
            CHECK_EQ_INT(d->finish, 9000);
        }
        free(lg.r);
        rt__flownet_destroy(fn);
    }
}

/*
 * The fast approximation on random workloads: every 7th recomputation (and the last) against the
 * fast rates computed from scratch for every flow, and no link over its capacity
 * (rt__flownet_check in fast mode); the same completions twice, and with links added in another
 * order. Physical sanity as for max-min (check_log).
 */
static void test_fast_random(void)
{
    struct workload w;
    make_workload(&w, 5, 48, 1500, 1500);
    uint32_t perm[48];
    for (uint32_t l = 0; l < 48; l++)
        perm[l] = (l * 7) % 48;
    for (int eager = 0; eager <= 1; eager++) {
        struct log a = run_workload_as(&w, (struct wl_how){.fast = 1, .eager_start = eager, .check = 1, .small = -1});
        struct log b = run_workload_as(&w, (struct wl_how){.fast = 1, .eager_start = eager, .small = -1, .perm = perm});
        check_log(&w, &a);
        CHECK(same_log(&a, &b));
        free(a.r);
        free(b.r);
    }
    free(w.cap);
    free(w.f);
}

/*
 * A closed loop as the engine drives it: every completion starts the next flow from its done
 * callback (so the flow table grows while completions are being reported), 40 in flight, 3000 in
 * all over random routes of 32 links. Run twice: the same completions bit for bit; every
 * recomputation also checked against a full one.
 */
struct loop {
    struct rt__flownet *fn;
    struct log lg;
    uint64_t started, total;
};

static void loop_start(struct loop *lp, rt_time_ps t)
{
    uint32_t r[6], n = rnd(7);
    for (uint32_t k = 0; k < n; k++) {
        int dup;
        do {
            r[k] = rnd(32);
            dup = 0;
            for (uint32_t j = 0; j < k; j++)
                dup |= r[j] == r[k];
        } while (dup);
    }
    CHECK_EQ_INT(rt__flownet_start(lp->fn, t, r, n, 512.0 * (1 + rnd(128)), 0.0125, lp->started++, NULL), RT_OK);
}

static void on_loop(void *ud, const struct rt__flow_done *f)
{
    struct loop *lp = ud;
    on_done(&lp->lg, f);
    if (lp->started < lp->total)
        loop_start(lp, f->finish);
}

static struct log run_loop(void)
{
    double cap[32];
    rng_state = 7;
    for (int l = 0; l < 32; l++)
        cap[l] = l % 3 ? 0.0125 : 0.05;
    struct loop lp = {net(32, cap), {0}, 0, 3000};
    for (int i = 0; i < 40; i++)
        loop_start(&lp, 0);
    while (rt__flownet_active(lp.fn) > 0) {
        rt_time_ps t = rt__flownet_next(lp.fn);
        CHECK_EQ_INT(rt__flownet_check(lp.fn), RT_OK);
        CHECK_EQ_INT(rt__flownet_advance(lp.fn, t, on_loop, &lp), RT_OK);
    }
    CHECK_EQ_INT(lp.lg.n, 3000);
    rt__flownet_destroy(lp.fn);
    return lp.lg;
}

static void test_closed_loop(void)
{
    struct log a = run_loop(), b = run_loop();
    CHECK(same_log(&a, &b));
    free(a.r);
    free(b.r);
}

/* Bad input is an error, never a crash, and leaves the network usable. */
static void test_bad_input(void)
{
    struct rt__flownet *fn = NULL;
    double bad[][2] = {{1, 0}, {1, -1}, {1, NAN}, {1, INFINITY}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(rt__flownet_create(2, bad[i], &fn), RT_EINVAL);
        CHECK(fn == NULL);
    }
    CHECK_EQ_INT(rt__flownet_create(2, NULL, &fn), RT_EINVAL);
    double cap[2] = {1, 1};
    CHECK_EQ_INT(rt__flownet_create(2, cap, NULL), RT_EINVAL);
    fn = net(2, cap);
    uint32_t r_out[1] = {2}, r_dup[2] = {1, 1}, r_ok[2] = {0, 1};
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_ok, 2, 0, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_ok, 2, -5, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_ok, 2, NAN, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_ok, 2, INFINITY, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_ok, 2, 100, 0, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_ok, 2, 100, NAN, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_out, 1, 100, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, r_dup, 2, 100, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 0, NULL, 2, 100, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(NULL, 0, r_ok, 2, 100, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_active(fn), 0);
    CHECK_EQ_INT(rt__flownet_next(fn), INT64_MAX);
    CHECK(rt__flownet_link(fn, 2) == NULL);
    CHECK(rt__flownet_link(fn, 1) != NULL);

    /* Time: 100 B at 1 B/ps from 1000 end at 1100. */
    CHECK_EQ_INT(rt__flownet_advance(fn, 1000, NULL, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_advance(fn, 999, NULL, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 999, r_ok, 2, 100, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_start(fn, 1000, r_ok, 2, 100, 1, 7, NULL), RT_OK);
    CHECK_EQ_INT(rt__flownet_advance(fn, 1101, NULL, NULL), RT_EINVAL); /* past a completion */
    CHECK_EQ_INT(rt__flownet_start(fn, 1101, NULL, 0, 1, 1, 0, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_next(fn), 1100);
    CHECK_EQ_INT(rt__flownet_advance(fn, 1050, NULL, NULL), RT_OK);
    struct log lg = {0};
    drain(fn, &lg);
    CHECK_EQ_INT(lg.n, 1);
    CHECK_EQ_INT(lg.r[0].finish, 1100);
    CHECK_EQ_INT(rt__flownet_advance(NULL, 0, NULL, NULL), RT_EINVAL);
    CHECK_EQ_INT(rt__flownet_next(NULL), INT64_MAX);
    CHECK_EQ_INT(rt__flownet_active(NULL), 0);
    free(lg.r);
    rt__flownet_destroy(fn);
    rt__flownet_destroy(NULL);
}

/* util/sort.h, which orders the flows that end together and the region's link states: against a
 * stable insertion sort, over random arrays of every size up to 300 (the insertion cutoff 16 and
 * the merges around it, odd halves) with keys from a small range (ties: stability, by the
 * element's first place). */
struct skey {
    uint32_t key, at;
};
static int skey_less(const struct skey *a, const struct skey *b)
{
    return a->key < b->key;
}
RT_SORT_DEFINE(skey_sort, struct skey, skey_less)

static void test_sort(void)
{
    struct skey a[300], ref[300], tmp[150];
    uint64_t st = 7;
    for (uint32_t n = 0; n <= 300; n++) {
        for (int round = 0; round < 4; round++) {
            uint32_t range = round == 0 ? 4 : round == 1 ? 1000 : n + 1;
            for (uint32_t i = 0; i < n; i++) {
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                /* round 3: already in order but for its last element */
                uint32_t k = round == 3 ? (i + 1 < n ? i : (uint32_t)(st >> 40) % range) : (uint32_t)(st >> 33) % range;
                a[i] = ref[i] = (struct skey){k, i};
            }
            for (uint32_t i = 1; i < n; i++) { /* the reference: stable insertion */
                struct skey x = ref[i];
                uint32_t j = i;
                for (; j > 0 && x.key < ref[j - 1].key; j--)
                    ref[j] = ref[j - 1];
                ref[j] = x;
            }
            skey_sort(a, tmp, n);
            uint32_t bad = 0;
            for (uint32_t i = 0; i < n; i++)
                bad += a[i].key != ref[i].key || a[i].at != ref[i].at;
            if (bad) {
                fprintf(stderr, "sort: n %u round %d: %u places differ from a stable sort\n", n, round, bad);
                rt_test_failures++;
            }
        }
    }
}

int main(void)
{
    test_sort();
    test_alone();
    test_two();
    test_halfway();
    test_classic();
    test_own_limit();
    test_incast();
    test_chain_and_order();
    test_start_at_due();
    test_ties();
    test_alone_path();
    test_incremental();
    test_region();
    test_random();
    test_added_links();
    test_fast();
    test_fast_random();
    test_closed_loop();
    test_bad_input();
    TEST_MAIN_END();
}
