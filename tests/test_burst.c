/* SPDX-License-Identifier: MIT */
/*
 * Bursty traffic's chains (replay/src/noise/burst.c, issue #47 item 1): a chain keeps a mark per
 * block of switches and draws a block again when a time falls in it, so its state at a time must
 * not depend on the order times are asked in. Property over random chains: the states asked in
 * increasing order, in random order (old blocks drawn again, the growing block asked for while it
 * grows) and every time twice agree at every time; and the chain's memory is a mark per block,
 * not 8 bytes per switch. By hand: a chain that leaves each state after 1 ns on average is on
 * about half of the time.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../replay/src/noise/noise_internal.h"
#include "test_util.h"

#define NT 4000

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

static void test_order(const char *spec, uint64_t seed, uint32_t ranks)
{
    rt_burst *b = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_burst_parse(spec, &b, &err), RT_OK);
    if (!b)
        return;
    struct rt__burst_state up, any, twice;
    CHECK_EQ_INT(rt__burst_state_init(&up, b, seed, 3, ranks), RT_OK);
    CHECK_EQ_INT(rt__burst_state_init(&any, b, seed, 3, ranks), RT_OK);
    CHECK_EQ_INT(rt__burst_state_init(&twice, b, seed, 3, ranks), RT_OK);
    /* times over 200 us, in ps, increasing; the senders they are asked for */
    static rt_time_ps t[NT];
    static uint32_t who[NT];
    static int state[NT];
    uint64_t s = seed * 7919 + 1;
    for (int i = 0; i < NT; i++) {
        t[i] = (rt_time_ps)(lcg(&s) % 200000000ull);
        who[i] = (uint32_t)(lcg(&s) % ranks);
    }
    for (int i = 1; i < NT; i++) /* insertion sort: increasing times */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            rt_time_ps x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    for (int i = 0; i < NT; i++)
        state[i] = rt__burst_on(&up, who[i], t[i]);
    int bad = 0;
    for (int k = 0; k < NT; k++) { /* a random order: each time once, drawn with replacement */
        int i = (int)(lcg(&s) % NT);
        bad += rt__burst_on(&any, who[i], t[i]) != state[i];
    }
    for (int i = NT - 1; i >= 0; i--) /* decreasing, each asked twice */
        bad += rt__burst_on(&twice, who[i], t[i]) != state[i] || rt__burst_on(&twice, who[i], t[i]) != state[i];
    CHECK_EQ_INT(bad, 0);
    rt__burst_state_free(&up);
    rt__burst_state_free(&any);
    rt__burst_state_free(&twice);
    rt_burst_free(b);
}

/* A switch every ns on average over 1 ms: about 10^6 switches, kept as one 16-byte mark per 64
 * (about 0.25 MB with the chain's block), not 8 MB; on about half of the time. */
static void test_memory_and_share(void)
{
    rt_burst *b = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_burst_parse("mmpp:on=1ns,off=1ns,latency=2,bandwidth=0.5", &b, &err), RT_OK);
    if (!b)
        return;
    struct rt__burst_state st;
    CHECK_EQ_INT(rt__burst_state_init(&st, b, 11, 0, 1), RT_OK);
    int on = 0, n = 100000;
    for (int i = 0; i < n; i++)
        on += rt__burst_on(&st, 0, (rt_time_ps)i * 10000); /* every 10 ns over 1 ms */
    CHECK(on > n * 0.48 && on < n * 0.52);
    uint64_t mem = rt__burst_state_memory(&st);
    CHECK(mem < 600000);
    if (!(mem < 600000))
        fprintf(stderr, "burst chain memory %llu bytes\n", (unsigned long long)mem);
    rt__burst_state_free(&st);
    rt_burst_free(b);
}

int main(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        test_order("mmpp:on=3ns,off=5ns,latency=2,bandwidth=0.5", seed, 1);
        test_order("mmpp:on=200ns,off=1us,latency=2,bandwidth=0.5,scope=rank", seed, 5);
        test_order("mmpp:on=20us,off=40us,latency=2,bandwidth=0.5", seed, 1); /* fewer switches than a block */
    }
    test_memory_and_share();
    TEST_MAIN_END();
}
