/* SPDX-License-Identifier: MIT */
/* retime-make-trace: writes a synthetic 1D Shift trace of about N events for the replay benchmark. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <otf2/otf2.h>

#include "otf2_builder.h"
#include "retime/units.h"

/*
 * The trace imitates what a tracer records for a 1D Shift (ring halo exchange) code:
 * every iteration is a compute region, then a "shift_iteration" region holding K hops in each
 * direction, then a small MPI_Allreduce (a residual check). The hops cycle through three
 * implementations so that the replay sees every point-to-point path it has:
 *   iteration % 4 == 0, 1  MPI_Ssend / MPI_Recv in even/odd phases (rendezvous, the paper's Shift)
 *   iteration % 4 == 2     MPI_Send / MPI_Recv in even/odd phases (eager up to 64 KiB)
 *   iteration % 4 == 3     MPI_Irecv x2, MPI_Isend x2, MPI_Waitall per hop
 * With --pattern coll the iterations are collective-heavy instead (issue #30): a compute region,
 * an MPI_Allreduce of 8 B and an MPI_Bcast of --m1 bytes (default 64 KiB there) from a root
 * that moves round the ranks, no point-to-point messages; --pattern coll-heavy adds an
 * MPI_Allreduce of --m1 bytes before the bcast (issue #31's collective-heavy program).
 * Timestamps come from a rough Hockney-like execution with jitter (fixed seed), so they are
 * distinct, increasing and of realistic magnitude; that matters because OTF2 stores a
 * timestamp record only when the time changes, so constant times would shrink the files.
 */

#define ALPHA_NS 2122.0
#define BETA_NS_PER_B 0.7595

struct gen {
    tb_builder *b;
    uint32_t P;
    int hops;
    uint64_t m1;
    uint64_t *now;   /* per-rank clock [ns] */
    uint64_t rng;
    uint64_t events; /* records written so far */
    uint64_t req;    /* next request id */
    int coll;        /* --pattern coll (1) or coll-heavy (2) */
};

/* xorshift64*: cheap, and the same seed always gives the same trace. */
static uint64_t rnd(struct gen *g)
{
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 2685821657736338717ull;
}

/* @p base ns with ±@p pct percent of uniform jitter, at least 1 ns. */
static uint64_t jitter(struct gen *g, double base, double pct)
{
    double u = (double)(rnd(g) >> 11) / 9007199254740992.0; /* [0,1) */
    double v = base * (1.0 + pct / 100.0 * (2.0 * u - 1.0));
    return v < 1.0 ? 1 : (uint64_t)v;
}

static uint64_t transfer_ns(struct gen *g, uint64_t m)
{
    return jitter(g, ALPHA_NS + BETA_NS_PER_B * (double)m, 5.0);
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* One blocking pair: s sends to d; the receive ends when the data is there. */
static void blocking_pair(struct gen *g, uint32_t s, uint32_t d, uint32_t tag, int sync)
{
    uint64_t ts = g->now[s] + jitter(g, 300, 30), td = g->now[d] + jitter(g, 300, 30);
    uint64_t arrive = max_u64(ts, td) + transfer_ns(g, g->m1);
    int eager = !sync && g->m1 <= 64 * 1024;
    /* An eager send returns after the local copy; a synchronous one when the receiver has it. */
    uint64_t s_end = eager ? ts + jitter(g, 400 + 0.1 * (double)g->m1, 20) : arrive + jitter(g, 150, 30);
    uint64_t d_end = arrive + jitter(g, 150, 30);
    tb_call_send(g->b, s, ts, s_end, sync ? "MPI_Ssend" : "MPI_Send", d, tag, g->m1);
    tb_call_recv(g->b, d, td, d_end, s, tag, g->m1);
    g->now[s] = s_end;
    g->now[d] = d_end;
    g->events += 6;
}

/* Even/odd phases in both directions: in phase p the ranks of parity p send. */
static void blocking_hops(struct gen *g, int sync)
{
    uint32_t P = g->P;
    for (int dir = 0; dir < 2; dir++)
        for (int h = 0; h < g->hops; h++)
            for (uint32_t phase = 0; phase < 2; phase++)
                for (uint32_t s = phase; s < P; s += 2) {
                    uint32_t d = dir == 0 ? (s + 1) % P : (s + P - 1) % P;
                    blocking_pair(g, s, d, (uint32_t)dir, sync);
                }
}

/* Per hop every rank posts both receives and both sends, then waits for all four. */
static void nonblocking_hops(struct gen *g)
{
    uint32_t P = g->P;
    uint64_t *posted = malloc(P * sizeof *posted);
    if (!posted)
        return;
    for (int h = 0; h < g->hops; h++) {
        uint64_t base = g->req;
        g->req += 4;
        for (uint32_t r = 0; r < P; r++) {
            uint32_t L = (r + P - 1) % P, R = (r + 1) % P;
            uint64_t t = g->now[r];
            for (int i = 0; i < 2; i++) {
                tb_enter(g->b, r, t += jitter(g, 200, 30), "MPI_Irecv");
                tb_irecv_request(g->b, r, t += jitter(g, 40, 30), base + (uint64_t)i);
                tb_leave(g->b, r, t += jitter(g, 150, 30), "MPI_Irecv");
            }
            tb_enter(g->b, r, t += jitter(g, 200, 30), "MPI_Isend");
            tb_isend(g->b, r, t += jitter(g, 40, 30), R, 0, g->m1, base + 2);
            tb_leave(g->b, r, t += jitter(g, 300, 30), "MPI_Isend");
            tb_enter(g->b, r, t += jitter(g, 200, 30), "MPI_Isend");
            tb_isend(g->b, r, t += jitter(g, 40, 30), L, 1, g->m1, base + 3);
            tb_leave(g->b, r, t += jitter(g, 300, 30), "MPI_Isend");
            tb_enter(g->b, r, t += jitter(g, 200, 30), "MPI_Waitall");
            posted[r] = t;
            g->events += 12;
        }
        /* Both sends leave through one port: the second arrives one transfer after the first. */
        for (uint32_t r = 0; r < P; r++) {
            uint32_t L = (r + P - 1) % P, R = (r + 1) % P;
            uint64_t t = max_u64(posted[r], max_u64(posted[L], posted[R])) + transfer_ns(g, g->m1);
            tb_irecv(g->b, r, t, L, 0, g->m1, base);
            tb_irecv(g->b, r, t += transfer_ns(g, g->m1), R, 1, g->m1, base + 1);
            tb_isend_complete(g->b, r, t += jitter(g, 60, 30), base + 2);
            tb_isend_complete(g->b, r, t += jitter(g, 60, 30), base + 3);
            tb_leave(g->b, r, t += jitter(g, 150, 30), "MPI_Waitall");
            g->now[r] = t;
            g->events += 6;
        }
    }
    free(posted);
}

/* Every rank leaves collective @p op together, ceil(log2 P) message times of @p m after the last
 * one enters. */
static void collective(struct gen *g, const char *call, int op, uint32_t root, uint64_t m, uint64_t sent_root,
                       uint64_t sent, uint64_t recv_root, uint64_t recv)
{
    uint32_t P = g->P;
    int rounds = 0;
    while ((1u << rounds) < P)
        rounds++;
    uint64_t last = 0;
    for (uint32_t r = 0; r < P; r++)
        last = max_u64(last, g->now[r]);
    uint64_t end = last + 200 + (uint64_t)rounds * transfer_ns(g, m);
    for (uint32_t r = 0; r < P; r++) {
        uint64_t t0 = g->now[r] + jitter(g, 100, 30);
        uint64_t t1 = max_u64(end, t0) + jitter(g, 100, 30);
        tb_collective(g->b, r, t0, t1, call, op, root, r == root ? sent_root : sent, r == root ? recv_root : recv);
        g->now[r] = t1;
        g->events += 4;
    }
}

/* --pattern coll: compute, an 8 B allreduce, a bcast of m1 bytes from root it mod P (Score-P's
 * counts: the root sends P blocks, every rank receives one). */
static void coll_iteration(struct gen *g, uint64_t it)
{
    uint32_t P = g->P, root = (uint32_t)(it % P);
    for (uint32_t r = 0; r < P; r++) {
        tb_enter(g->b, r, g->now[r] += jitter(g, 100, 30), "compute");
        tb_leave(g->b, r, g->now[r] += jitter(g, 20000, 10), "compute");
        g->events += 2;
    }
    collective(g, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8, 8, 8, 8);
    if (g->coll > 1) /* coll-heavy: an allreduce of m1 bytes too (issue #31's program; Score-P counts
                      * P·m1 sent and received) */
        collective(g, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, g->m1,
                   (uint64_t)P * g->m1, (uint64_t)P * g->m1, (uint64_t)P * g->m1, (uint64_t)P * g->m1);
    collective(g, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, root, g->m1, (uint64_t)P * g->m1, 0, g->m1, g->m1);
}

static void iteration(struct gen *g, uint64_t it)
{
    uint32_t P = g->P;
    if (g->coll) {
        coll_iteration(g, it);
        return;
    }
    for (uint32_t r = 0; r < P; r++) {
        tb_enter(g->b, r, g->now[r] += jitter(g, 100, 30), "compute");
        tb_leave(g->b, r, g->now[r] += jitter(g, 20000, 10), "compute");
        tb_enter(g->b, r, g->now[r] += jitter(g, 50, 30), "shift_iteration");
        g->events += 3;
    }
    switch (it % 4) {
    case 0: case 1: blocking_hops(g, 1); break;
    case 2: blocking_hops(g, 0); break;
    default: nonblocking_hops(g); break;
    }
    for (uint32_t r = 0; r < P; r++) {
        tb_leave(g->b, r, g->now[r] += jitter(g, 50, 30), "shift_iteration");
        g->events++;
    }
    collective(g, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8, 8, 8, 8);
}

static void usage(FILE *f)
{
    fputs("usage: retime-make-trace DIR --events N [--ranks P] [--m1 SIZE] [--hops K] [--seed S]\n"
          "                         [--pattern shift|coll|coll-heavy] [--chunk SIZE]\n"
          "Writes DIR/traces.otf2: a synthetic 1D Shift trace with about N events (N may be 1e7), or\n"
          "with --pattern coll iterations of an 8 B MPI_Allreduce and an MPI_Bcast of --m1 bytes\n"
          "(coll-heavy: an MPI_Allreduce of --m1 bytes between them).\n"
          "--chunk: OTF2's event chunk, 256KiB to 16MiB (what a reader holds per location it reads).\n"
          "Defaults: --ranks 32 (even, >= 2) --m1 8KiB (coll: 64KiB) --hops 2 --seed 1 --chunk 1MiB.\n",
          f);
}

static int die(const char *msg, const char *arg)
{
    fprintf(stderr, "retime-make-trace: error: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return 1;
}

/* A positive count, written as an integer or in floating notation such as 1e7. */
static int parse_count(const char *s, double max, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || errno || !(v >= 1) || v > max || v != floor(v))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    uint64_t events = 0, ranks = 32, hops = 2, seed = 1;
    rt_bytes m1 = 8192, chunk = 1024 * 1024;
    int coll = 0, m1_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--events")) {
            if (parse_count(v, 1e12, &events))
                return die("--events needs a positive integer", v);
            i++;
        } else if (!strcmp(a, "--ranks")) {
            if (parse_count(v, 1 << 20, &ranks) || ranks < 2 || ranks % 2)
                return die("--ranks needs an even number >= 2 (the even/odd phases pair the ranks)", v);
            i++;
        } else if (!strcmp(a, "--hops")) {
            if (parse_count(v, 1000, &hops))
                return die("--hops needs a positive integer", v);
            i++;
        } else if (!strcmp(a, "--seed")) {
            if (parse_count(v, 1e18, &seed))
                return die("--seed needs a positive integer", v);
            i++;
        } else if (!strcmp(a, "--pattern")) {
            if (!v || (strcmp(v, "shift") && strcmp(v, "coll") && strcmp(v, "coll-heavy")))
                return die("--pattern needs shift, coll or coll-heavy", v);
            coll = !strcmp(v, "coll") ? 1 : !strcmp(v, "coll-heavy") ? 2 : 0;
            i++;
        } else if (!strcmp(a, "--m1")) {
            rt_error err = {0};
            if (!v || rt_parse_bytes(v, &m1, &err))
                return die(v ? err.msg : "--m1 needs a size", NULL);
            m1_given = 1;
            i++;
        } else if (!strcmp(a, "--chunk")) {
            rt_error err = {0};
            if (!v || rt_parse_bytes(v, &chunk, &err))
                return die(v ? err.msg : "--chunk needs a size", NULL);
            if (chunk < OTF2_CHUNK_SIZE_MIN || chunk > OTF2_CHUNK_SIZE_MAX)
                return die("--chunk needs a size from 256KiB to 16MiB", v);
            i++;
        } else if (a[0] == '-' || dir) {
            usage(stderr);
            return die("unexpected argument", a);
        } else {
            dir = a;
        }
    }
    if (!dir || !events) {
        usage(stderr);
        return die(!dir ? "no output directory given" : "--events is required", NULL);
    }
    char anchor[4096];
    struct stat st;
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    /* OTF2 will not write into an existing archive; say so before it fails obscurely. */
    if (stat(anchor, &st) == 0)
        return die("an archive already exists there; remove it first", anchor);

    if (coll && !m1_given)
        m1 = 65536;
    struct gen g = {.P = (uint32_t)ranks, .hops = (int)hops, .m1 = m1, .rng = seed * 0x9E3779B97F4A7C15ull | 1,
                    .coll = coll};
    g.now = calloc(g.P, sizeof *g.now);
    g.b = g.now ? tb_create_chunk(dir, g.P, chunk) : NULL;
    if (!g.b) {
        free(g.now);
        return die("cannot create the OTF2 archive", dir);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t it = 0; g.events < events; it++)
        iteration(&g, it);
    int rc = tb_close(g.b);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(g.now);
    if (rc)
        return die("writing the OTF2 archive failed", dir);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%s: %" PRIu64 " events, %" PRIu64 " ranks, m1 %" PRIu64 " B, %" PRIu64 " hops, written in %.2f s\n",
           anchor, g.events, ranks, (uint64_t)m1, hops, s);
    return 0;
}
