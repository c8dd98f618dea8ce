/* SPDX-License-Identifier: MIT */
/*
 * retime replay --runs N: the Monte Carlo report. N noisy runs (run r draws from the random
 * streams of (seed, r)) and the noise-free replay; the distributions of the predicted total, of
 * the slowdown against the noise-free replay and, with --region, of the per-run region times.
 * All figures are computed after every run has finished, from per-run slots indexed by run
 * number, so the output is the same for any --jobs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "distributed.h"
#include "montecarlo.h"
#include "retime/units.h"

static const char *const stat_names[] = {"min", "median", "mean", "p95", "max", "sd"};
#define NSTATS 6

static double stat_at(const struct mc_stats *s, int k)
{
    const double v[NSTATS] = {s->min, s->median, s->mean, s->p95, s->max, s->sd};
    return v[k];
}

/* JSON has no infinity: a non-finite figure (a slowdown against a zero-time baseline) is null. */
static void json_number(double v)
{
    if (isfinite(v))
        cli_print_double(stdout, v);
    else
        fputs("null", stdout);
}

static void json_stats(const struct mc_stats *s)
{
    for (int k = 0; k < NSTATS; k++) {
        printf("%s\"%s\": ", k ? ", " : "{", stat_names[k]);
        json_number(stat_at(s, k));
    }
    putchar('}');
}

/* A CSV cell: empty for a non-finite figure or a column that does not apply. */
static void csv_cell(double v, int present)
{
    putchar(',');
    if (present && isfinite(v))
        cli_print_double(stdout, v);
}

static const char *text_time(char *buf, size_t n, double ns)
{
    if (!isfinite(ns))
        snprintf(buf, n, "inf");
    else
        rt_format_time(buf, n, ns);
    return buf;
}

/* One row of the text table: the noise-free value, then the statistics. */
static void text_row(const char *label, double base, const struct mc_stats *s, int is_time)
{
    char buf[32];
    printf("%-24.24s", label);
    for (int k = -1; k < NSTATS; k++) {
        double v = k < 0 ? base : stat_at(s, k);
        if (is_time)
            printf(" %11s", text_time(buf, sizeof buf, v));
        else /* a ratio near 1, its sd too: 4 decimals (0.0000 for a spread below 5e-5; JSON and CSV keep it whole) */
            printf(" %11.4f", v);
    }
    putchar('\n');
}

static void print_json(const struct mc_config *cfg, const struct trace_cli *tr, const struct model_cli *m,
                       const struct mc_result *r, const struct mc_stats *st)
{
    printf("{\"trace\": ");
    cli_json_string(stdout, rt_trace_path(cfg->trace));
    cli_coverage_json(stdout, cfg->trace);
    printf(", \"model\": ");
    model_cli_json(stdout, &cfg->opts);
    printf(", \"noise\": ");
    model_cli_noise_json(stdout, m);
    printf(", \"clock_fix\": ");
    clock_fix_cli_json(stdout, tr->fix);
    printf(", \"network\": ");
    if (cfg->opts.network)
        cli_json_string(stdout, rt_network_describe(cfg->opts.network));
    else
        printf("null");
    printf(", \"seed\": %" PRIu64 ", \"runs\": %" PRIu64 ", \"quantiles\": \"linear\"", cfg->opts.seed, r->runs);
    printf(", \"ranks\": %u, \"events\": %" PRIu64 ", \"messages\": %" PRIu64 ", \"collectives\": %" PRIu64
           ", \"measured_ns\": %" PRId64,
           r->ranks, r->events, r->messages, r->collectives, r->measured_ns);
    printf(", \"noise_free\": {\"predicted_ns\": ");
    cli_print_ps_as_ns(stdout, r->baseline.predicted_ps);
    if (tr->region) {
        printf(", \"region_mean_ns\": ");
        json_number(r->baseline.region_mean_ns);
        printf(", \"region_max_ns\": ");
        json_number(r->baseline.region_max_ns);
    }
    printf("}, \"predicted_ns\": ");
    json_stats(&st[MC_PREDICTED_NS]);
    printf(", \"slowdown\": ");
    json_stats(&st[MC_SLOWDOWN]);
    printf(", \"region\": ");
    if (tr->region) {
        printf("{\"name\": ");
        cli_json_string(stdout, tr->region);
        printf(", \"instances\": %" PRIu64 ", \"mean_ns\": ", r->region_instances);
        json_stats(&st[MC_REGION_MEAN_NS]);
        printf(", \"max_ns\": ");
        json_stats(&st[MC_REGION_MAX_NS]);
        printf("}");
    } else {
        printf("null");
    }
    printf(", \"injected_mean\": {\"net_ns\": ");
    json_number(st[MC_NET_NS].mean);
    printf(", \"os_ns\": ");
    json_number(st[MC_OS_NS].mean);
    printf(", \"burst_ns\": ");
    json_number(st[MC_BURST_NS].mean);
    printf("}, \"per_run\": [");
    for (uint64_t i = 0; i < r->runs; i++) {
        const struct mc_run *run = &r->run[i];
        printf("%s{\"run\": %" PRIu64 ", \"predicted_ns\": ", i ? ", " : "", i);
        cli_print_ps_as_ns(stdout, run->predicted_ps);
        printf(", \"slowdown\": ");
        json_number(mc_value(r, run, MC_SLOWDOWN));
        if (tr->region) {
            printf(", \"region_mean_ns\": ");
            json_number(run->region_mean_ns);
            printf(", \"region_max_ns\": ");
            json_number(run->region_max_ns);
        }
        printf(", ");
        cli_print_injected_fields(stdout, run->net_noise_ps, run->os_noise_ps, run->burst_ps);
        printf("}");
    }
    printf("]}\n");
}

static void csv_fields(const struct mc_result *r, const struct mc_run *run, int region)
{
    for (int f = 0; f < MC_FIELDS; f++)
        csv_cell(mc_value(r, run, (enum mc_field)f), region || (f != MC_REGION_MEAN_NS && f != MC_REGION_MAX_NS));
    putchar('\n');
}

static void print_csv(const struct trace_cli *tr, const struct mc_result *r, const struct mc_stats *st)
{
    int region = tr->region != NULL;
    printf("record,run,predicted_ns,slowdown,region_mean_ns,region_max_ns,net_ns,os_ns,burst_ns\n");
    for (uint64_t i = 0; i < r->runs; i++) {
        printf("run,%" PRIu64, i);
        csv_fields(r, &r->run[i], region);
    }
    printf("noise_free,");
    csv_fields(r, NULL, region);
    for (int k = 0; k < NSTATS; k++) {
        printf("%s,", stat_names[k]);
        for (int f = 0; f < MC_FIELDS; f++)
            csv_cell(stat_at(&st[f], k), region || (f != MC_REGION_MEAN_NS && f != MC_REGION_MAX_NS));
        putchar('\n');
    }
}

static void print_text(const struct mc_config *cfg, const struct trace_cli *tr, const struct model_cli *m,
                       const struct mc_result *r, const struct mc_stats *st)
{
    char a[32], b[32], d[32];
    int noisy = rt_replay_options_noisy(&cfg->opts);
    printf("trace       %s\n", rt_trace_path(cfg->trace));
    cli_coverage_text(stdout, cfg->trace, 12);
    printf("model       ");
    model_cli_describe(stdout, &cfg->opts);
    printf("\nnoise       ");
    if (noisy)
        model_cli_noise_describe(stdout, m);
    else if (cfg->calm)
        printf("none but other jobs' traffic (runs differ by their perturbing nodes and messages)");
    else
        printf("none: every run equals the noise-free replay");
    if (cfg->opts.network) /* without other jobs' traffic in the noise-free replay */
        printf("\nnetwork     %s%s", rt_network_describe(cfg->opts.network),
               cfg->calm ? "; the noise-free replay without the background traffic" : "");
    if (tr->fix) {
        printf("\nclock fix   ");
        clock_fix_cli_text(stdout, tr->fix);
    }
    printf("\nruns        %" PRIu64 " (run r draws from seed %" PRIu64 ", run r) and one noise-free replay\n", r->runs,
           cfg->opts.seed);
    printf("ranks       %u\nevents      %" PRIu64 "\nmessages    %" PRIu64 ", collectives %" PRIu64 "\n", r->ranks,
           r->events, r->messages, r->collectives);
    printf("measured    %s\n", rt_format_time(a, sizeof a, (double)r->measured_ns));
    printf("noise-free  %s\n", rt_format_time(a, sizeof a, (double)r->baseline.predicted_ps / 1e3));
    printf("injected    mean per run: net %s, os %s, burst %s (summed over messages and ranks)\n\n",
           rt_format_time(a, sizeof a, st[MC_NET_NS].mean), rt_format_time(b, sizeof b, st[MC_OS_NS].mean),
           rt_format_time(d, sizeof d, st[MC_BURST_NS].mean));
    printf("%-24s %11s", "over runs", "noise-free");
    for (int k = 0; k < NSTATS; k++)
        printf(" %11s", stat_names[k]);
    putchar('\n');
    text_row("predicted", mc_value(r, NULL, MC_PREDICTED_NS), &st[MC_PREDICTED_NS], 1);
    text_row("slowdown", 1.0, &st[MC_SLOWDOWN], 0);
    if (tr->region) {
        char label[64];
        snprintf(label, sizeof label, "%s mean", tr->region);
        text_row(label, r->baseline.region_mean_ns, &st[MC_REGION_MEAN_NS], 1);
        snprintf(label, sizeof label, "%s max", tr->region);
        text_row(label, r->baseline.region_max_ns, &st[MC_REGION_MAX_NS], 1);
        printf("\nregion %s: %" PRIu64 " instances; mean = mean over instances of the mean over ranks,"
               " max = the longest instance (max over ranks)\n",
               tr->region, r->region_instances);
    }
    printf("%smedian and p95 interpolate linearly between the sorted runs; sd is the sample standard deviation;"
           " slowdown = predicted / noise-free\n",
           tr->region ? "" : "\n");
}

int cmd_montecarlo(const struct mc_config *cfg, const struct trace_cli *tr, const struct model_cli *m,
                   rt_error *err)
{
    struct mc_result r;
    struct mc_stats st[MC_FIELDS];
    double *scratch = NULL;
    memset(&r, 0, sizeof r);
    int rc = mc_run(cfg, &r, err);
    if (cfg->nprocs > 1) /* every process takes part, also after a failure */
        rc = dist_mc_merge(&r, rc, err);
    if (rc)
        goto out;
    scratch = malloc((size_t)r.runs * sizeof *scratch);
    if (!scratch) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory for the statistics of %" PRIu64 " runs", r.runs);
        goto out;
    }
    for (int f = 0; f < MC_FIELDS; f++)
        mc_stats_of(&r, (enum mc_field)f, scratch, &st[f]);
    if (tr->fmt == FMT_JSON)
        print_json(cfg, tr, m, &r, st);
    else if (tr->fmt == FMT_CSV)
        print_csv(tr, &r, st);
    else
        print_text(cfg, tr, m, &r, st);
out:
    free(scratch);
    mc_result_free(&r);
    return rc;
}
