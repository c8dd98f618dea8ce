/* SPDX-License-Identifier: MIT */
/*
 * retime plot montecarlo: the distribution of a noisy replay's predicted run time (or, with
 * --region, of the run's mean region time) over N Monte Carlo runs (montecarlo.h, the same runs
 * and statistics as `retime replay --runs N`): a histogram, the empirical CDF on the right axis,
 * and the noise-free replay, the median, the mean and the 95th percentile marked.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "montecarlo.h"
#include "plot_common.h"
#include "progress.h"
#include "retime/units.h"

#define MAX_BINS 1000
#define CDF_POINTS 2000

struct mc_plot_cli {
    struct model_cli model;
    struct plot_out out;
    const char *path, *region;
    uint64_t runs, jobs, bins;
};

static int parse_mc(struct args *a, struct mc_plot_cli *c)
{
    memset(c, 0, sizeof *c);
    model_cli_init(&c->model);
    plot_out_init(&c->out);
    for (a->i = 3; a->i < a->argc; a->i++) {
        const char *v;
        int m = model_cli_option(a, &c->model);
        if (m == 0)
            m = plot_out_option(a, &c->out);
        if (m == 0)
            m = cli_runs_option(a, &c->runs, &c->jobs);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        if (cli_opt(a, "--bins", &v)) {
            if (cli_count(v, 1, MAX_BINS, &c->bins))
                return cli_die("bad --bins '%s' (a whole number from 1 to %d)", v ? v : "", MAX_BINS);
        } else if (trace_cli_operand(a, &c->path, &c->region, "plot montecarlo")) {
            return 1;
        }
    }
    if (!c->path)
        return cli_die("plot montecarlo needs a TRACE");
    if (!c->runs)
        return cli_die("plot montecarlo needs --runs N (the number of noisy runs)");
    return plot_out_check(&c->out, "montecarlo");
}

/* Freedman & Diaconis' bin width 2·IQR·n^(-1/3), as a number of bins over the range, kept
 * between 5 and 100 (and at most n); sqrt(n) when the IQR is 0. */
static size_t auto_bins(const double *sorted, size_t n, double range)
{
    double q1 = sorted[(size_t)((double)(n - 1) * 0.25)], q3 = sorted[(size_t)((double)(n - 1) * 0.75)];
    double iqr = q3 - q1, b;
    if (iqr > 0 && range > 0)
        b = ceil(range / (2 * iqr * pow((double)n, -1.0 / 3)));
    else
        b = ceil(sqrt((double)n));
    if (b > 100)
        b = 100;
    if (b > (double)n)
        b = (double)n;
    if (b < 5)
        b = 5;
    return (size_t)b;
}

/* @p ns in unit @p u with enough decimals to tell apart values @p spread_ns apart. */
static const char *in_unit(char *buf, size_t n, double ns, struct plot_unit u, double spread_ns)
{
    int dec = 1;
    if (spread_ns > 0)
        dec = (int)ceil(-log10(spread_ns / u.ns)) + 2;
    dec = dec < 1 ? 1 : dec > 9 ? 9 : dec;
    snprintf(buf, n, "%.*f %s", dec, ns / u.ns, u.name);
    return buf;
}

/* Bins the sorted values @p x, writes the data and the script and runs gnuplot. 0, or 1 after
 * printing the error. */
static int draw_mc(struct mc_plot_cli *c, const struct rt_replay_options *opts, const char *trace_path,
                   const double *x, size_t n, double base, const struct mc_stats *st)
{
    /* Bins over [min, max]; a single value gets a narrow range around it. */
    double lo = st->min, hi = st->max;
    if (!(hi > lo)) {
        double w = fmax(fabs(lo) * 1e-6, 1e-3);
        lo -= w / 2;
        hi += w / 2;
    }
    size_t nb = c->bins ? (size_t)c->bins : auto_bins(x, n, hi - lo);
    uint64_t *count = calloc(nb, sizeof *count);
    if (!count)
        return cli_die("out of memory");
    double width = (hi - lo) / (double)nb;
    uint64_t cmax = 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = (size_t)((x[i] - lo) / width);
        b = b >= nb ? nb - 1 : b; /* the maximum falls into the last bin */
        if (++count[b] > cmax)
            cmax = count[b];
    }
    struct plot_unit u = plot_time_unit(fmax(hi, base));

    char model_text[512], what[800], b1[32], b2[32], b3[32], b4[32], b5[32];
    plot_model_text(model_text, sizeof model_text, opts, &c->model, 0);
    const char *figure = c->region ? "mean time per instance of region" : "predicted run time";
    printf("%s%s%s over %zu runs: noise-free %s, median %s, mean %s, p95 %s, max %s\n", figure,
           c->region ? " " : "", c->region ? c->region : "", n, rt_format_time(b1, sizeof b1, base),
           rt_format_time(b2, sizeof b2, st->median), rt_format_time(b3, sizeof b3, st->mean),
           rt_format_time(b4, sizeof b4, st->p95), rt_format_time(b5, sizeof b5, st->max));
    snprintf(what, sizeof what, "retime plot montecarlo: %s over %zu runs of %s (%s)", figure, n, trace_path,
             model_text);
    if (plot_begin(&c->out, what)) {
        free(count);
        return 1;
    }
    FILE *f = c->out.dat, *g = c->out.gp;
    fprintf(f, "# block 0: histogram: bin_center runs bin_low bin_high [%s]\n", u.name);
    for (size_t b = 0; b < nb; b++)
        fprintf(f, "%.9g %" PRIu64 " %.9g %.9g\n", (lo + ((double)b + 0.5) * width) / u.ns, count[b],
                (lo + (double)b * width) / u.ns, (lo + (double)(b + 1) * width) / u.ns);
    free(count);
    fprintf(f, "\n\n# block 1: empirical CDF: value fraction_of_runs_at_or_below [%s]%s\n", u.name,
            n > CDF_POINTS ? " (at evenly spaced ranks)" : "");
    fprintf(f, "%.9g 0\n", x[0] / u.ns);
    size_t np = n > CDF_POINTS ? CDF_POINTS : n;
    for (size_t j = 0; j < np; j++) {
        size_t i = np == n ? j : (size_t)llround((double)j * (double)(n - 1) / (double)(np - 1));
        fprintf(f, "%.9g %.9g\n", x[i] / u.ns, (double)(i + 1) / (double)n);
    }
    const struct {
        const char *name;
        double v;
        const char *style;
    } marks[] = {
        {"noise-free", base, "dt 2 lw 2 lc rgb '#000000'"},
        {"median", st->median, "dt 1 lw 2 lc rgb '#009E73'"},
        {"mean", st->mean, "dt 4 lw 2 lc rgb '#CC79A7'"},
        {"p95", st->p95, "dt 1 lw 2 lc rgb '#D55E00'"},
    };
    for (int k = 0; k < 4; k++)
        fprintf(f, "\n\n# block %d: %s: value, at the bottom and top of the plot [%s]\n%.9g 0\n%.9g 1\n", 2 + k,
                marks[k].name, u.name, marks[k].v / u.ns, marks[k].v / u.ns);

    /* The title wrapped to the picture's width: the model's line, with noise options and a
     * network, is often twice as wide and was cut off at both edges. */
    char tp[128], title[1024], wrapped[1200];
    size_t cols = plot_title_width(c->out.width);
    snprintf(title, sizeof title, "Monte Carlo: %s%s%s over %zu noisy runs\n%s\n%s", figure, c->region ? " " : "",
             c->region ? c->region : "", n, plot_title_path(tp, sizeof tp, c->path, cols < 100 ? cols : 100),
             model_text);
    plot_title_wrap(wrapped, sizeof wrapped, title, cols);
    fprintf(g, "set title ");
    plot_str(g, wrapped);
    fprintf(g, "\nset xlabel '%s [%s]'\n", c->region ? "mean region time per run" : "predicted run time", u.name);
    fprintf(g, "set ylabel 'runs per bin'\nset y2label 'fraction of runs at or below (CDF)'\n");
    fprintf(g, "set yrange [0:%" PRIu64 "]\nset y2range [0:1.05]\nset ytics nomirror\nset y2tics 0.2\n",
            cmax + cmax / 8 + 1);
    double span = fmax(hi, base) - fmin(lo, base);
    fprintf(g, "set xrange [%.9g:%.9g]\n", (fmin(lo, base) - 0.03 * span) / u.ns,
            (fmax(hi, base) + 0.03 * span) / u.ns);
    fprintf(g, "set grid xtics ytics lc rgb '#e5e5e5'\n");
    fprintf(g, "set key below horizontal maxrows 2 Left reverse width 1 font ',9'\nset bmargin 6\n");
    fprintf(g, "set style fill solid 0.55 border lc rgb '#0072B2'\n");
    fprintf(g, "plot ");
    plot_datafile(&c->out);
    fprintf(g, " index 0 using 1:2:($4-$3) with boxes lc rgb '#56B4E9' title ");
    plot_strf(g, "runs per bin (%zu bins)", nb);
    fprintf(g, ", \\\n  '' index 1 using 1:2 axes x1y2 with steps lw 1.5 lc rgb '#0072B2' title 'CDF'");
    for (int k = 0; k < 4; k++) {
        char v[32];
        fprintf(g, ", \\\n  '' index %d using 1:2 axes x1y2 with lines %s title ", 2 + k, marks[k].style);
        plot_strf(g, "%s %s", marks[k].name, in_unit(v, sizeof v, marks[k].v, u, st->max - st->min));
    }
    fprintf(g, "\n");
    return plot_render(&c->out);
}

int plot_montecarlo(struct args *a)
{
    struct mc_plot_cli c;
    struct rt_replay_options opts;
    struct mc_result r = {0};
    rt_error err = {0};
    rt_trace *t = NULL;
    double *x = NULL;
    int rc = 1;
    if (parse_mc(a, &c) || model_cli_finish(&c.model, &opts))
        goto out;
    if (!rt_replay_options_noisy(&opts)) {
        cli_die("plot montecarlo needs noise options (--net-noise, --os-noise or --net-burst): without noise every "
                "run is the noise-free replay");
        goto out;
    }
    if (cli_trace_open(c.path, &t, &err)) {
        cli_fail(&err);
        goto out;
    }
    c.model.replays = c.runs;
    if (model_cli_network(&c.model, &opts, t)) /* --topology and the window, as replay --runs takes them */
        goto out;
    uint32_t region = RT_NONE;
    if (c.region && ((region = rt_trace_find_region(t, c.region)) == RT_NONE || !rt_trace_region_entered(t, region))) {
        cli_region_error(&err, t, region, c.region);
        cli_fail(&err);
        goto out;
    }
    struct mc_config cfg = {.trace = t, .opts = opts, .calm = c.model.calm, .runs = c.runs, .jobs = (long)c.jobs,
                            .region = region};
    struct progress *prog = progress_start("plot montecarlo", "replays", c.runs + 1);
    cfg.on_done = progress_tick;
    cfg.ud = prog;
    int mrc = mc_run(&cfg, &r, &err);
    progress_end(prog);
    if (mrc) {
        cli_fail(&err);
        goto out;
    }
    enum mc_field field = c.region ? MC_REGION_MEAN_NS : MC_PREDICTED_NS;
    size_t n = (size_t)r.runs;
    x = malloc(n * sizeof *x);
    if (!x) {
        cli_die("out of memory for %zu runs", n);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = mc_value(&r, &r.run[i], field);
    double base = mc_value(&r, NULL, field);
    struct mc_stats st;
    mc_stats(x, n, &st); /* sorts x */

    rc = draw_mc(&c, &opts, rt_trace_path(t), x, n, base, &st);
out:
    plot_out_close(&c.out);
    free(x);
    mc_result_free(&r);
    rt_trace_close(t);
    model_cli_free(&c.model);
    return rc;
}
