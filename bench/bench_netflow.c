/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the flow-level contention model (replay/src/network/netflow.c): a closed loop that keeps
 * C flows in flight (each completion starts the next flow at its time) until N flows have
 * completed, over one of two networks:
 *   fattree  a 3-level k-ary fat tree (k^3/4 hosts; 6-link routes between pods: injection,
 *            edge->agg, agg->core, core->agg, agg->edge, ejection; uplinks picked by a hash of
 *            the pair, as static ECMP), all links 12.5 GB/s, random source and destination;
 *   random   L links, random routes of R distinct links (mostly one connected component).
 * Prints flows/s and the mean number of flows per recomputed component.
 *
 * Usage: bench_netflow [fattree K | random L R] [N] [C]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../replay/src/network/netflow.h"

static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

struct bench {
    struct rt__flownet *fn;
    int fattree;
    uint32_t k, nhosts, nlinks, rlen;
    uint64_t started, target, completed;
    double bytes_done;
    rt_time_ps last;
};

/* Fat tree of k-port switches: pods of k/2 edge and k/2 agg switches, (k/2)^2 cores, k/2 hosts
 * per edge switch. Directed link ids: host up/down, edge<->agg up/down, agg<->core up/down. */
static uint32_t ft_route(const struct bench *b, uint32_t s, uint32_t d, uint32_t *r)
{
    uint32_t h = b->k / 2, H = b->nhosts;
    uint32_t es = s / h, ed = d / h;               /* edge switches (global) */
    uint32_t ps = es / h, pd = ed / h;             /* pods */
    uint32_t hash = (s * 2654435761u) ^ (d * 40503u);
    uint32_t a = hash % h, c = (hash / h) % h;     /* agg index in pod, core index in agg's group */
    uint32_t E = b->nhosts / h;                    /* edge switches: edge-agg links E*h each way */
    uint32_t base_up = 2 * H, base_dn = 2 * H + E * h;
    uint32_t A = E;                                /* agg switches, as many as edges */
    uint32_t base_cu = 2 * H + 2 * E * h, base_cd = base_cu + A * h;
    uint32_t n = 0;
    r[n++] = s; /* host s -> edge */
    if (es != ed) {
        r[n++] = base_up + es * h + a; /* edge es -> agg a of its pod */
        if (ps != pd) {
            uint32_t ag_s = ps * h + a, ag_d = pd * h + a;
            r[n++] = base_cu + ag_s * h + c; /* agg -> core (a, c) */
            r[n++] = base_cd + ag_d * h + c; /* core (a, c) -> agg a of pod pd */
        }
        r[n++] = base_dn + ed * h + a; /* agg a -> edge ed */
    }
    r[n++] = H + d; /* edge -> host d */
    return n;
}

static void start_one(struct bench *b, rt_time_ps t)
{
    uint32_t r[8], n;
    if (b->fattree) {
        uint32_t s = rnd(b->nhosts), d;
        do
            d = rnd(b->nhosts);
        while (d == s);
        n = ft_route(b, s, d, r);
    } else {
        n = b->rlen;
        for (uint32_t i = 0; i < n; i++) {
            int dup;
            do {
                r[i] = rnd(b->nlinks);
                dup = 0;
                for (uint32_t j = 0; j < i; j++)
                    dup |= r[j] == r[i];
            } while (dup);
        }
    }
    double bytes = 1024.0 * (1 + rnd(256)); /* 1 KiB .. 256 KiB */
    if (rt__flownet_start(b->fn, t, r, n, bytes, 0.0125, b->started, NULL) != RT_OK) {
        fprintf(stderr, "bench_netflow: start failed\n");
        exit(1);
    }
    b->started++;
}

static void on_done(void *ud, const struct rt__flow_done *f)
{
    struct bench *b = ud;
    b->completed++;
    b->bytes_done += f->bytes;
    b->last = f->finish;
    if (b->started < b->target)
        start_one(b, f->finish);
}

int main(int argc, char **argv)
{
    struct bench b = {0};
    int ai = 1;
    b.fattree = 1;
    b.k = 16;
    if (ai < argc && strcmp(argv[ai], "fattree") == 0) {
        b.k = ai + 1 < argc ? (uint32_t)atoi(argv[ai + 1]) : 16;
        ai += 2;
    } else if (ai < argc && strcmp(argv[ai], "random") == 0) {
        b.fattree = 0;
        b.nlinks = ai + 1 < argc ? (uint32_t)atoi(argv[ai + 1]) : 1000;
        b.rlen = ai + 2 < argc ? (uint32_t)atoi(argv[ai + 2]) : 6;
        ai += 3;
    }
    b.target = ai < argc ? strtoull(argv[ai++], NULL, 10) : 1000000;
    uint32_t conc = ai < argc ? (uint32_t)atoi(argv[ai++]) : 100;
    if (b.fattree) {
        if (b.k < 2 || b.k % 2) {
            fprintf(stderr, "bench_netflow: k must be even\n");
            return 2;
        }
        uint32_t h = b.k / 2;
        b.nhosts = b.k * h * h;
        uint32_t E = b.nhosts / h;
        b.nlinks = 2 * b.nhosts + 4 * E * h;
    }
    if (b.rlen > 8 || (!b.fattree && b.rlen > b.nlinks)) {
        fprintf(stderr, "bench_netflow: bad route length\n");
        return 2;
    }
    double *cap = malloc(b.nlinks * sizeof *cap);
    for (uint32_t l = 0; l < b.nlinks; l++)
        cap[l] = 0.0125;
    if (rt__flownet_create(b.nlinks, cap, &b.fn) != RT_OK)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t i = 0; i < conc && b.started < b.target; i++)
        start_one(&b, 0);
    uint64_t advances = 0;
    while (rt__flownet_active(b.fn) > 0) {
        rt_time_ps t = rt__flownet_next(b.fn);
        if (rt__flownet_advance(b.fn, t, on_done, &b) != RT_OK) {
            fprintf(stderr, "bench_netflow: advance failed\n");
            return 1;
        }
        advances++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (b.fattree)
        printf("network     fattree k=%u: %u hosts, %u directed links\n", b.k, b.nhosts, b.nlinks);
    else
        printf("network     random: %u links, routes of %u\n", b.nlinks, b.rlen);
    printf("flows       %llu completed, %u in flight, %llu advances\n", (unsigned long long)b.completed, conc,
           (unsigned long long)advances);
    printf("simulated   %.3f ms, %.3g B\n", (double)b.last * 1e-9, b.bytes_done);
    printf("time        %.3f s: %.0f flows/s\n", s, (double)b.completed / s);
    rt__flownet_destroy(b.fn);
    free(cap);
    return 0;
}
