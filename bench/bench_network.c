/* SPDX-License-Identifier: MIT */
/*
 * retime-bench-network: the replay rate with a network (replay/src/network/network.c, netflow.c) beside the
 * rate without one, on one trace read once. The replays of the networks given are interleaved
 * (round r replays every network once, in the order given), so that a machine whose speed drifts
 * affects them alike; each network's figures are the minimum and the median over the rounds.
 *
 * usage: retime-bench-network TRACE [--repeat R] [--net SPEC]... [--seed S]
 *   SPEC: "crossbar" (no network layer: the model's single port, the reference), or a topology as
 *   `retime replay --topology` takes it (crossbar-flow, torus:8x8x8, fattree:512, ...), optionally
 *   followed by "@" and a mapping (`--mapping`: block, random:SEED, ...), "%" and a contention
 *   model (`--contention`: exact, exact-full, fast, none) and "+" and a --perturb spec (background
 *   traffic), in that order.
 *   Default: crossbar, crossbar-flow, torus:8x8x8, fattree:512. Hockney α = 2.122 µs,
 *   β = 0.7595 ns/B, block mapping, one rank per node, links as fast as the NICs.
 *
 * Prints per network: replay seconds (min, median), events/s and point-to-point messages/s (at
 * the median), the ratio of its rate to the first network's in the same rounds, the messages
 * routed between nodes, the mean links per route (the links' message counts summed / routed:
 * injection and ejection links included, so a route over h switches has h + 1 links), the
 * network's extra cost against the first network per routed message and per link crossed, and
 * the contention model's work: flows whose rates it computed per routed message. One
 * `BENCH {json}` line per network follows.
 *
 * A network with "%fast" is also compared with the same network without it (exact max-min),
 * when that is given too: the predicted end's error, and per message the difference of the time
 * it lost to contention (its delays summed over its links), median and worst, beside the exact
 * model's median and worst per-message delay. One `BENCH_FAST {json}` line each.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "retime/model.h"
#include "retime/network.h"
#include "retime/replay.h"
#include "retime/trace.h"

#define BENCH_ALPHA_NS 2122.0
#define BENCH_BETA_NS_PER_B 0.7595
#define MAX_NETS 32

/* One message's contention delay, summed over its links (record_contention). */
struct msg_delay {
    uint64_t ev;
    uint32_t rank;
    double ps;
};

struct net {
    const char *spec; /* as given */
    char *topology, *mapping, *contention, *perturb;
    struct msg_delay *delay; /* from the first round, by (rank, ev) */
    uint64_t ndelay, recomputed;
    uint64_t background; /* background messages (--perturb) the replay started */
    uint64_t bg_links;   /* the links their routes cross, summed */
    rt_network *net;  /* NULL: crossbar */
    double *t;        /* per round */
    /* from the first round */
    rt_time_ps predicted_ps;
    uint64_t messages, routed, local, hops, peak_bytes;
    rt_time_ps contention_ps;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of n values (the mean of the middle two for even n); sorts a copy. */
static double median(const double *v, int n)
{
    double *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return v[0];
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_d);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

static double min_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static int delay_cmp(const void *a, const void *b)
{
    const struct msg_delay *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The per-message delays of @p res, summed over links, by (rank, ev); -1 when out of memory. */
static int message_delays(const struct rt_replay_result *res, struct net *n)
{
    n->delay = malloc((res->ncontention ? res->ncontention : 1) * sizeof *n->delay);
    if (!n->delay)
        return -1;
    n->ndelay = 0;
    for (uint64_t i = 0; i < res->ncontention; i++) {
        const struct rt_msg_contention *c = &res->contention[i];
        if (n->ndelay && n->delay[n->ndelay - 1].ev == c->origin_ev && n->delay[n->ndelay - 1].rank == c->origin_rank)
            n->delay[n->ndelay - 1].ps += c->delay_ps; /* a message's links are consecutive */
        else
            n->delay[n->ndelay++] = (struct msg_delay){c->origin_ev, c->origin_rank, c->delay_ps};
    }
    qsort(n->delay, n->ndelay, sizeof *n->delay, delay_cmp);
    return 0;
}

/* Per message: |fast - exact| delay (a message without contention in one counts 0 there); the
 * median and worst of those and of the exact delays, in ns. */
static void compare_fast(const struct net *fast, const struct net *exact, const char *path)
{
    uint64_t cap = fast->ndelay + exact->ndelay, n = 0, i = 0, j = 0;
    double *diff = malloc((cap ? cap : 1) * sizeof *diff), *ex = malloc((cap ? cap : 1) * sizeof *ex);
    if (!diff || !ex) {
        free(diff);
        free(ex);
        return;
    }
    while (i < fast->ndelay || j < exact->ndelay) {
        int c = i == fast->ndelay ? 1 : j == exact->ndelay ? -1 : delay_cmp(&fast->delay[i], &exact->delay[j]);
        double a = c <= 0 ? fast->delay[i++].ps : 0, b = c >= 0 ? exact->delay[j++].ps : 0;
        diff[n] = a > b ? a - b : b - a;
        ex[n++] = b;
    }
    double end_err = exact->predicted_ps ? ((double)fast->predicted_ps - (double)exact->predicted_ps) /
                                               (double)exact->predicted_ps : 0;
    double dmed = n ? median(diff, (int)n) / 1e3 : 0, dmax = 0;
    double emed = n ? median(ex, (int)n) / 1e3 : 0, emax = 0;
    for (uint64_t k = 0; k < n; k++) {
        dmax = diff[k] / 1e3 > dmax ? diff[k] / 1e3 : dmax;
        emax = ex[k] / 1e3 > emax ? ex[k] / 1e3 : emax;
    }
    printf("%-44.44s end %+.3f%% against %s; per-message contention delay: |fast - exact| median %.1f ns, worst "
           "%.1f ns (exact: median %.1f ns, worst %.1f ns; %" PRIu64 " messages with any)\n",
           fast->spec, 100 * end_err, exact->spec, dmed, dmax, emed, emax, n);
    printf("BENCH_FAST {\"trace\":\"%s\",\"net\":\"%s\",\"exact\":\"%s\",\"end_error\":%.6f,"
           "\"delay_diff_median_ns\":%.3f,\"delay_diff_max_ns\":%.3f,\"exact_delay_median_ns\":%.3f,"
           "\"exact_delay_max_ns\":%.3f,\"messages\":%" PRIu64 "}\n",
           path, fast->spec, exact->spec, end_err, dmed, dmax, emed, emax, n);
    free(diff);
    free(ex);
}

/* @p spec as the table shows it: a file: mapping by its file's name alone (a mapping file in a
 * temporary folder would otherwise fill the column, and the rows with and without +PERTURB look
 * alike). */
static const char *shown(const char *spec, char *buf, size_t n)
{
    const char *f = strstr(spec, "@file:"), *end, *base;
    if (!f)
        return spec;
    end = f + strcspn(f, "%+");
    base = f + 6;
    for (const char *c = base; c < end; c++)
        if (*c == '/')
            base = c + 1;
    snprintf(buf, n, "%.*s@%.*s%s", (int)(f - spec), spec, (int)(end - base), base, end);
    return buf;
}

static int die(const char *msg, const char *arg)
{
    fprintf(stderr, "retime-bench-network: error: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return 1;
}

static void usage(FILE *f)
{
    fputs("usage: retime-bench-network TRACE [--repeat R] [--net SPEC]... [--seed S]\n"
          "SPEC: crossbar (no network, the reference) | TOPOLOGY[@MAPPING][%CONTENTION][+PERTURB] as retime\n"
          "replay's --topology, --mapping, --contention and --perturb take them.\n"
          "Default: crossbar, crossbar-flow, torus:8x8x8, fattree:512; R = 3.\n"
          "Replays are interleaved over the networks; ratios are against the first network.\n",
          f);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long repeat = 3;
    uint64_t seed = 1;
    struct net nets[MAX_NETS];
    int nn = 0;
    memset(nets, 0, sizeof nets);
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            errno = 0;
            repeat = strtol(argv[++i], &end, 10);
            if (*end || errno || repeat < 1 || repeat > 1000)
                return die("--repeat needs an integer from 1 to 1000", argv[i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            errno = 0;
            seed = strtoull(argv[++i], &end, 10);
            if (*end || errno || argv[i][0] == '-')
                return die("--seed needs a whole number", argv[i]);
        } else if (!strcmp(argv[i], "--net") && i + 1 < argc) {
            if (nn == MAX_NETS)
                return die("too many --net", NULL);
            nets[nn++].spec = argv[++i];
        } else if (argv[i][0] == '-' || path) {
            usage(stderr);
            return die("unexpected argument", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return die("no trace given", NULL);
    }
    if (!nn) {
        static const char *const def[] = {"crossbar", "crossbar-flow", "torus:8x8x8", "fattree:512"};
        for (; nn < 4; nn++)
            nets[nn].spec = def[nn];
    }

    rt_error err = {0};
    rt_trace *t = NULL;
    double t0 = now_s();
    if (rt_trace_open(path, &t, &err))
        return die(err.msg, NULL);
    double read_s = now_s() - t0;
    const struct rt_trace_stats *st = rt_trace_stats(t);
    uint32_t ranks = rt_trace_ranks(t);

    struct rt_replay_options o;
    rt_replay_options_default(&o);
    struct rt_model_params mp = {.alpha_ns = BENCH_ALPHA_NS, .beta_ns_per_byte = BENCH_BETA_NS_PER_B};
    if (rt_model_init(&o.model, "hockney", &mp, &err))
        return die(err.msg, NULL);
    o.seed = seed;

    for (int k = 0; k < nn; k++) {
        struct net *n = &nets[k];
        n->t = calloc((size_t)repeat, sizeof *n->t);
        if (!n->t)
            return die("out of memory", NULL);
        if (!strcmp(n->spec, "crossbar"))
            continue;
        n->topology = strdup(n->spec);
        if (!n->topology)
            return die("out of memory", NULL);
        char *plus = strchr(n->topology, '+'), *pct, *at;
        if (plus) {
            *plus = 0;
            n->perturb = plus + 1;
        }
        if ((pct = strchr(n->topology, '%'))) {
            *pct = 0;
            n->contention = pct + 1;
        }
        if ((at = strchr(n->topology, '@'))) {
            *at = 0;
            n->mapping = at + 1;
        }
        struct rt_network_params np;
        rt_network_params_default(&np);
        np.topology = n->topology;
        np.mapping = n->mapping;
        np.perturb = n->perturb;
        if (n->contention && rt_contention_parse(n->contention, &np.contention, &err))
            return die(err.msg, n->spec);
        if (rt_network_create(&np, ranks, &n->net, &err))
            return die(err.msg, n->spec);
    }

    printf("# %s: %" PRIu64 " events, %u ranks, read in %.3f s; Hockney alpha = %.3f us, beta = %.4f ns/B; "
           "%ld interleaved rounds\n",
           path, st->events, ranks, read_s, BENCH_ALPHA_NS / 1e3, BENCH_BETA_NS_PER_B, repeat);
    for (long r = 0; r < repeat; r++) {
        for (int k = 0; k < nn; k++) {
            struct net *n = &nets[k];
            struct rt_replay_result *res = NULL;
            o.network = n->net;
            o.record_contention = r == 0 && n->net; /* the first round: per-message delays (its time is
                                                        * not the median of 3 rounds or more) */
            double a = now_s();
            if (rt_replay_run(t, &o, NULL, &res, &err))
                return die(err.msg, n->spec);
            n->t[r] = now_s() - a;
            if (r == 0) {
                n->predicted_ps = res->predicted_ps;
                n->messages = res->messages;
                n->routed = res->routed;
                n->local = res->local;
                n->contention_ps = res->contention_ps;
                n->peak_bytes = res->peak_bytes;
                n->recomputed = res->net_recomputed;
                /* the background messages the replay started (the same draws; they leave while the
                 * trace runs, up to its predicted end) */
                if (n->net && rt_network_background_traffic(n->net, o.seed, o.run, res->predicted_ps, &n->background,
                                                            &n->bg_links))
                    return die("out of memory", NULL);
                if (n->net && message_delays(res, n))
                    return die("out of memory", NULL);
                for (uint32_t i = 0; i < res->nlinks; i++)
                    n->hops += res->links[i].flows;
            }
            rt_replay_result_destroy(res);
        }
    }

    /* The reference: the first network; ratios are the rate over its rate (its time over ours). */
    const struct net *ref = &nets[0];
    double ref_med = median(ref->t, (int)repeat), ref_min = min_of(ref->t, (int)repeat);
    printf("%-44s %8s %8s %9s %9s %6s %6s %9s %6s %8s %8s %8s %11s\n", "network", "min_s", "med_s", "Mev/s",
           "Mmsg/s", "ratio", "r_min", "routed", "links", "ns/msg", "ns/link", "rec/msg", "predicted");
    for (int k = 0; k < nn; k++) {
        const struct net *n = &nets[k];
        double med = median(n->t, (int)repeat), mn = min_of(n->t, (int)repeat);
        double ratio = ref_med / med, rmin = ref_min / mn;
        double mean_links = n->routed ? (double)n->hops / (double)n->routed : 0;
        double per_msg = n->routed ? (med - ref_med) / (double)n->routed * 1e9 : 0;
        double per_link = n->hops ? (med - ref_med) / (double)n->hops * 1e9 : 0;
        char ns_msg[16] = "-", ns_link[16] = "-", rec[16] = "-";
        if (n->routed) {
            snprintf(ns_msg, sizeof ns_msg, "%.0f", per_msg);
            snprintf(ns_link, sizeof ns_link, "%.0f", per_link);
            snprintf(rec, sizeof rec, "%.1f", (double)n->recomputed / (double)n->routed);
        }
        char name[256];
        printf("%-44.44s %8.3f %8.3f %9.2f %9.3f %6.2f %6.2f %9" PRIu64 " %6.2f %8s %8s %8s %9.3fms\n",
               shown(n->spec, name, sizeof name), mn,
               med, (double)st->events / med / 1e6, (double)n->messages / med / 1e6, ratio, rmin, n->routed,
               mean_links, ns_msg, ns_link, rec, (double)n->predicted_ps / 1e9);
    }
    for (int k = 0; k < nn; k++) {
        const struct net *n = &nets[k];
        double med = median(n->t, (int)repeat), mn = min_of(n->t, (int)repeat);
        printf("BENCH {\"mode\":\"network\",\"trace\":\"%s\",\"events\":%" PRIu64 ",\"ranks\":%u,\"net\":\"%s\","
               "\"repeat\":%ld,\"read_s\":%.6f,\"min_s\":%.6f,\"median_s\":%.6f,\"eps\":%.1f,\"msgs_per_s\":%.1f,"
               "\"ratio\":%.4f,\"ratio_min\":%.4f,\"messages\":%" PRIu64 ",\"routed\":%" PRIu64 ",\"local\":%" PRIu64
               ",\"link_crossings\":%" PRIu64 ",\"contention_ns\":%.3f,\"engine_bytes\":%" PRIu64
               ",\"recomputed\":%" PRIu64 ",\"background\":%" PRIu64 ",\"background_links\":%" PRIu64
               ",\"predicted_ps\":%" PRId64
               ",\"times_s\":[",
               path, st->events, ranks, n->spec, repeat, read_s, mn, med, (double)st->events / med,
               (double)n->messages / med, ref_med / med, ref_min / mn, n->messages, n->routed, n->local, n->hops,
               (double)n->contention_ps / 1e3, n->peak_bytes, n->recomputed, n->background, n->bg_links,
               (int64_t)n->predicted_ps);
        for (long r = 0; r < repeat; r++)
            printf("%s%.6f", r ? "," : "", n->t[r]);
        printf("]}\n");
    }
    /* each fast network against the same network exact, where given */
    for (int k = 0; k < nn; k++) {
        const struct net *n = &nets[k];
        if (!n->contention || strcmp(n->contention, "fast"))
            continue;
        for (int e = 0; e < nn; e++) {
            const struct net *x = &nets[e];
            if (x->net && (!x->contention || !strcmp(x->contention, "exact")) && !strcmp(x->topology, n->topology) &&
                !strcmp(x->mapping ? x->mapping : "block", n->mapping ? n->mapping : "block") &&
                !strcmp(x->perturb ? x->perturb : "", n->perturb ? n->perturb : "")) {
                compare_fast(n, x, path);
                break;
            }
        }
    }
    for (int k = 0; k < nn; k++) {
        rt_network_destroy(nets[k].net);
        free(nets[k].topology);
        free(nets[k].t);
        free(nets[k].delay);
    }
    rt_trace_close(t);
    return 0;
}
