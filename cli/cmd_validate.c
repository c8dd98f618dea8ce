/* SPDX-License-Identifier: MIT */
/* retime validate: a replay at compute scale 1 against the measured run, over the measured window,
 * per rank, region instance, call site and message size class (retime/validate.h computes; this
 * file prints), a plot of measured against predicted per region instance, and an exit code for CI
 * (--max-error). Exit 0: within; 1: the window's |error| above --max-error; 2: usage, or the
 * validation could not run. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "plot_common.h"
#include "progress.h"
#include "retime/units.h"
#include "retime/validate.h"

struct validate_cli {
    struct model_cli model;
    struct plot_out out; /* --plot PREFIX */
    const char *path;
    enum format fmt;
    double max_error; /* --max-error PCT (< 0: none) */
    uint64_t top;     /* --top N: worst rows per table in text */
};

static const char *const tab_name[RT_VAL_TABLES] = {"rank", "region", "callsite", "size"};
static const char *const tab_title[RT_VAL_TABLES] = {"per rank", "per region instance", "per call site",
                                                     "per message size"};

static int parse_validate(struct args *a, struct validate_cli *c)
{
    rt_error err = {0};
    memset(c, 0, sizeof *c);
    model_cli_init(&c->model);
    plot_out_init(&c->out);
    c->max_error = -1;
    c->top = 5;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *v, *arg = a->argv[a->i];
        int m = model_cli_option(a, &c->model);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        if (cli_opt(a, "--format", &v)) {
            if (cli_format(v, &c->fmt, 1))
                return cli_die("bad --format '%s' (text, json or csv)", v ? v : "");
        } else if (cli_opt(a, "--max-error", &v)) {
            size_t n = v ? strlen(v) : 0;
            char num[64];
            if (!v || n == 0 || n >= sizeof num)
                return cli_die("bad --max-error '%s' (a percentage: 10 or 10%%)", v ? v : "");
            snprintf(num, sizeof num, "%.*s", (int)(v[n - 1] == '%' ? n - 1 : n), v);
            if (rt_parse_number(num, &c->max_error, &err) || !(c->max_error >= 0) || c->max_error > 1e9)
                return cli_die("bad --max-error '%s' (a percentage from 0 to 1e9: 10 or 10%%)", v);
        } else if (cli_opt(a, "--top", &v)) {
            if (cli_count(v, 0, 1000000, &c->top))
                return cli_die("bad --top '%s' (a whole number from 0 to 1000000: worst rows shown per table)",
                               v ? v : "");
        } else if (cli_opt(a, "--plot", &v)) {
            if (!v || !*v)
                return cli_die("--plot needs a PREFIX (it writes PREFIX.svg, PREFIX.png, PREFIX.dat and PREFIX.gp)");
            c->out.prefix = v;
        } else if (arg[0] == '-' && arg[1]) {
            return cli_die("unknown option '%s' for validate", arg);
        } else if (!c->path) {
            c->path = arg;
        } else {
            return cli_die("more than one trace given ('%s' and '%s')", c->path, arg);
        }
    }
    if (!c->path)
        return cli_die("validate needs a TRACE");
    if (c->out.prefix) {
        const char *slash = strrchr(c->out.prefix, '/');
        struct stat st;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - c->out.prefix) : 1, slash ? c->out.prefix : ".");
        if (slash && !slash[1])
            return cli_die("--plot '%s' needs a file name prefix after the directory", c->out.prefix);
        if (stat(*dir ? dir : "/", &st) != 0 || !S_ISDIR(st.st_mode))
            return cli_die("--plot '%s': directory '%s' does not exist", c->out.prefix, dir);
        return plot_out_check(&c->out, "validate");
    }
    return 0;
}

/* The name of row @p r of table @p k, for text (escaped), CSV and JSON. */
static const char *row_name(char *buf, size_t n, const rt_trace *t, int k, const struct rt_validate_row *r)
{
    rt_bytes lo, hi;
    switch (k) {
    case RT_VAL_RANK:
        snprintf(buf, n, "rank %" PRIu32, rt_trace_rank_label(t, r->id));
        break;
    case RT_VAL_REGION:
        snprintf(buf, n, "%s #%" PRIu64, rt_trace_region(t, r->id)->name, r->instance);
        break;
    case RT_VAL_CALLSITE:
        cli_callsite_label(buf, n, t, r->id, r->mpi);
        break;
    default:
        rt_validate_size_class(r->id, &lo, &hi);
        if (r->id)
            snprintf(buf, n, "%" PRIu64 "-%" PRIu64 " B", lo, hi);
        else
            snprintf(buf, n, "0 B");
    }
    return buf;
}

static void csv_field(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar((unsigned char)*s < 0x20 ? ' ' : *s);
    }
    putchar('"');
}

static void print_text(const struct validate_cli *c, const rt_trace *t, const struct rt_replay_options *o,
                       const struct rt_replay_result *res, const struct rt_validate_report *rep, double meas,
                       double pred)
{
    char a[64], b[64], name[600], esc[600];
    printf("trace       ");
    cli_text(stdout, rt_trace_path(t), 0);
    printf("\nmodel       ");
    model_cli_describe(stdout, o);
    printf("\n");
    cli_window_text(stdout, o, res);
    if (meas > 0)
        printf("error       %+.1f%% (predicted against measured over the window)\n", 100 * (pred - meas) / meas);
    else
        printf("error       none: no measured time in the window\n");
    /* A busy machine slows the measured run itself: say by how much, since a CPU-time replay
     * cannot predict that part (the ranks' time without a CPU is the machine's, not the program's). */
    char waited[400];
    if (cli_oversubscribed_text(t, waited, sizeof waited))
        printf("warning     %s\n", waited);
    if (cli_cpu_wait_text(t, waited, sizeof waited)) {
        printf("cpu time    ");
        cli_text(stdout, waited, 0);
        printf("\n");
    }
    printf("\n%-22s %6s %15s  %s\n", "", "rows", "median |error|", "worst");
    for (int k = 0; k < RT_VAL_TABLES; k++) {
        const struct rt_validate_tab *tb = &rep->tab[k];
        printf("%-22s %6zu ", tab_title[k], tb->n);
        if (tb->nworst) {
            const struct rt_validate_row *w = &tb->rows[tb->worst[0]];
            printf("%14.1f%%  %s %+.1f%%\n", tb->median_abs_error_pct,
                   cli_text_buf(esc, sizeof esc, row_name(name, sizeof name, t, k, w)), w->error_pct);
        } else {
            printf("%15s  %s\n", "-",
                   k == RT_VAL_REGION   ? "no region instance in the window: the trace has no measured times of a "
                                          "region besides MPI calls (or none wholly inside the window)"
                   : k == RT_VAL_SIZE   ? "no MPI call with a point-to-point message in the window"
                   : k == RT_VAL_RANK   ? "no rank has both window events"
                                        : "no MPI call in the window");
        }
    }
    for (int k = 0; k < RT_VAL_TABLES && c->top; k++) {
        const struct rt_validate_tab *tb = &rep->tab[k];
        if (!tb->nworst)
            continue;
        size_t n = tb->nworst < c->top ? tb->nworst : (size_t)c->top;
        printf("\n%s: the %zu worst of %zu (by time lost: |predicted - measured|%s)\n", tab_title[k], n, tb->n,
               k == RT_VAL_REGION ? " times the ranks" : "");
        int wid = (int)strlen(tab_name[k]); /* the name column as wide as its longest name shown */
        for (size_t i = 0; i < n; i++) {
            int l = (int)strlen(cli_text_buf(esc, sizeof esc, row_name(name, sizeof name, t, k, &tb->rows[tb->worst[i]])));
            wid = l > wid ? l : wid;
        }
        wid = wid > 90 ? 90 : wid;
        printf("  %-*s %8s %14s %14s %14s %9s\n", wid, tab_name[k],
               k == RT_VAL_REGION ? "ranks" : k == RT_VAL_RANK ? "" : "calls",
               k == RT_VAL_REGION ? "measured mean" : "measured", k == RT_VAL_REGION ? "predicted mean" : "predicted",
               "lost", "error");
        for (size_t i = 0; i < n; i++) {
            const struct rt_validate_row *r = &tb->rows[tb->worst[i]];
            char cnt[32] = "";
            if (k != RT_VAL_RANK)
                snprintf(cnt, sizeof cnt, "%" PRIu64, r->count);
            char lost[32];
            double l = (r->predicted_ns > r->measured_ns ? r->predicted_ns - r->measured_ns
                                                         : r->measured_ns - r->predicted_ns) *
                       (k == RT_VAL_REGION ? (double)r->count : 1);
            printf("  %-*s %8s %14s %14s %14s %+8.1f%%\n", wid,
                   cli_text_buf(esc, sizeof esc, row_name(name, sizeof name, t, k, r)), cnt,
                   rt_format_time(a, sizeof a, r->measured_ns), rt_format_time(b, sizeof b, r->predicted_ns),
                   rt_format_time(lost, sizeof lost, l), r->error_pct);
        }
    }
}

static void print_json(const struct validate_cli *c, const rt_trace *t, const struct rt_replay_options *o,
                       const struct rt_replay_result *res, const struct rt_validate_report *rep, double meas,
                       double pred, int failed)
{
    char name[600];
    printf("{\"trace\": ");
    cli_json_string(stdout, rt_trace_path(t));
    printf(", \"model\": ");
    model_cli_json(stdout, o);
    printf(", \"window\": ");
    cli_window_json(stdout, o, res);
    printf(", \"measured_ns\": ");
    cli_print_double(stdout, meas);
    printf(", \"predicted_ns\": ");
    cli_print_double(stdout, pred);
    printf(", \"error_pct\": ");
    if (meas > 0)
        cli_print_double(stdout, 100 * (pred - meas) / meas);
    else
        printf("null");
    printf(", \"max_error_pct\": ");
    if (c->max_error >= 0)
        cli_print_double(stdout, c->max_error);
    else
        printf("null");
    cli_cpu_wait_json(stdout, t);
    printf(", \"passed\": %s, \"tables\": {", failed ? "false" : "true");
    for (int k = 0; k < RT_VAL_TABLES; k++) {
        const struct rt_validate_tab *tb = &rep->tab[k];
        printf("%s\"%s\": {\"median_abs_error_pct\": ", k ? ", " : "", tab_name[k]);
        if (tb->nworst)
            cli_print_double(stdout, tb->median_abs_error_pct);
        else
            printf("null");
        printf(", \"worst\": [");
        for (size_t i = 0; i < tb->nworst; i++)
            printf("%s%zu", i ? ", " : "", tb->worst[i]);
        printf("], \"rows\": [");
        for (size_t i = 0; i < tb->n; i++) {
            const struct rt_validate_row *r = &tb->rows[i];
            printf("%s{\"id\": %" PRIu32 ", \"name\": ", i ? ", " : "", r->id);
            cli_json_string(stdout, row_name(name, sizeof name, t, k, r));
            if (k == RT_VAL_REGION)
                printf(", \"instance\": %" PRIu64, r->instance);
            printf(", \"count\": %" PRIu64 ", \"measured_ns\": ", r->count);
            cli_print_double(stdout, r->measured_ns);
            printf(", \"predicted_ns\": ");
            cli_print_double(stdout, r->predicted_ns);
            printf(", \"error_pct\": ");
            if (r->has_error)
                cli_print_double(stdout, r->error_pct);
            else
                printf("null");
            printf("}");
        }
        printf("]}");
    }
    printf("}}\n");
}

static void print_csv(const rt_trace *t, const struct rt_validate_report *rep, double meas, double pred)
{
    char name[600];
    printf("table,id,name,instance,count,measured_ns,predicted_ns,error_pct\n");
    printf("window,,,,,%.3f,%.3f,", meas, pred);
    if (meas > 0)
        printf("%.3f", 100 * (pred - meas) / meas);
    printf("\n");
    for (int k = 0; k < RT_VAL_TABLES; k++)
        for (size_t i = 0; i < rep->tab[k].n; i++) {
            const struct rt_validate_row *r = &rep->tab[k].rows[i];
            printf("%s,%" PRIu32 ",", tab_name[k], r->id);
            csv_field(row_name(name, sizeof name, t, k, r));
            printf(",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,", r->instance, r->count, r->measured_ns, r->predicted_ns);
            if (r->has_error)
                printf("%.3f", r->error_pct);
            printf("\n");
        }
}

/* Measured against predicted per region instance, one colour per region (the 7 with the most
 * instances; the rest together), the diagonal drawn. 0, or 1 after printing the error. */
static int draw(struct validate_cli *c, const rt_trace *t, const struct rt_replay_options *o,
                const struct rt_validate_tab *tb)
{
    if (!tb->n)
        return cli_die("--plot: no region instance in the window to plot (the trace has no measured times of a "
                       "region besides MPI calls)");
    uint32_t nreg = rt_trace_regions(t);
    uint64_t *cnt = calloc(nreg ? nreg : 1, sizeof *cnt);
    uint32_t top[7];
    int ntop = 0;
    if (!cnt)
        return cli_die("out of memory");
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < tb->n; i++) {
        cnt[tb->rows[i].id]++;
        double m = tb->rows[i].measured_ns, p = tb->rows[i].predicted_ns;
        if (m > 0)
            lo = fmin(lo, m), hi = fmax(hi, m);
        if (p > 0)
            lo = fmin(lo, p), hi = fmax(hi, p);
    }
    for (; ntop < 7; ntop++) { /* the regions with the most instances, in order */
        uint32_t best = RT_NONE;
        for (uint32_t r = 0; r < nreg; r++)
            if (cnt[r] && (best == RT_NONE || cnt[r] > cnt[best]))
                best = r;
        if (best == RT_NONE)
            break;
        top[ntop] = best;
        cnt[best] = 0;
    }
    int other = 0;
    for (uint32_t r = 0; r < nreg; r++)
        other |= cnt[r] != 0;
    free(cnt);
    if (!(hi > 0)) {
        lo = 1;
        hi = 10;
    }
    if (!(lo > 0) || !isfinite(lo))
        lo = hi / 10;
    struct plot_unit u = plot_time_unit(hi);
    int logscale = hi / lo > 100;
    char model_text[512], what[800], tp[128];
    plot_model_text(model_text, sizeof model_text, o, &c->model, 0);
    snprintf(what, sizeof what, "retime validate: measured against predicted per region instance of %s (%s)",
             rt_trace_path(t), model_text);
    if (plot_begin(&c->out, what))
        return 1;
    FILE *f = c->out.dat, *g = c->out.gp;
    for (int b = 0; b < ntop + other; b++) {
        fprintf(f, "%s# block %d: %s: measured_mean predicted_mean [%s] instance\n", b ? "\n\n" : "", b,
                b < ntop ? rt_trace_region(t, top[b])->name : "other regions", u.name);
        for (size_t i = 0; i < tb->n; i++) {
            const struct rt_validate_row *r = &tb->rows[i];
            int in = 0;
            for (int k = 0; k < ntop; k++)
                in = in || r->id == top[k];
            if (b < ntop ? r->id != top[b] : in)
                continue;
            fprintf(f, "%.9g %.9g %" PRIu64 "\n", r->measured_ns / u.ns, r->predicted_ns / u.ns, r->instance);
        }
    }
    fprintf(g, "set title ");
    plot_strf(g, "measured against predicted per region instance (mean over ranks)\n%s\n%s",
              plot_title_path(tp, sizeof tp, c->path, 100), model_text);
    fprintf(g, "\nset xlabel 'measured [%s]'\nset ylabel 'predicted [%s]'\n", u.name, u.name);
    double l = logscale ? lo / 1.5 : 0, h = hi * (logscale ? 1.5 : 1.05);
    fprintf(g, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\nset size ratio -1\n", l / u.ns, h / u.ns, l / u.ns,
            h / u.ns);
    if (logscale)
        fprintf(g, "set logscale xy\n");
    fprintf(g, "set grid xtics ytics lc rgb '#e5e5e5'\nset key below horizontal font ',9'\n");
    fprintf(g, "plot x with lines dt 2 lw 1.5 lc rgb '#000000' title 'predicted = measured'");
    for (int b = 0; b < ntop + other; b++) {
        fprintf(g, ", \\\n  ");
        plot_datafile(&c->out);
        fprintf(g, " index %d using 1:2 with points pt 7 ps 0.6 lc rgb '%s' title ", b, plot_colors[b % 8]);
        plot_str(g, b < ntop ? rt_trace_region(t, top[b])->name : "other regions");
    }
    fprintf(g, "\n");
    return plot_render(&c->out);
}

int cmd_validate(struct args *a)
{
    struct validate_cli c;
    struct rt_replay_options opts;
    rt_error err = {0};
    rt_trace *t = NULL;
    rt_validate *v = NULL;
    struct rt_replay_result *res = NULL;
    int rc = 2;
    if (parse_validate(a, &c) || model_cli_finish(&c.model, &opts))
        goto out;
    if (opts.compute_scale != 1) {
        cli_die("validate replays at --compute-scale 1 (the compute as measured), not %g", opts.compute_scale);
        goto out;
    }
    if (rt_replay_options_noisy(&opts)) {
        cli_die("validate replays without noise (--net-noise, --os-noise, --net-burst): the measured run is one run");
        goto out;
    }
    if (cli_trace_open(c.path, &t, &err)) {
        cli_fail(&err);
        goto out;
    }
    cli_warn_dropped(t);
    if (model_cli_network(&c.model, &opts, t))
        goto out;
    if (rt_validate_create(t, opts.window, &v, &err)) {
        cli_fail(&err);
        goto out;
    }
    struct rt_replay_observer obs = {.ud = v, .on_event = rt_validate_on_event};
    struct rt_validate_report rep;
    if (rt_replay_run(t, &opts, &obs, &res, &err) || rt_validate_report(v, &rep, &err)) {
        cli_fail(&err);
        goto out;
    }
    cli_warn_cut(t, res);
    int win = res->window && res->window_ranks;
    double meas = (double)(win ? res->window_measured_ns : res->measured_ns);
    double pred = (double)(win ? res->window_predicted_ps : res->predicted_ps) / 1e3;
    if (c.max_error >= 0 && !(meas > 0)) {
        cli_die("--max-error: no measured time in the window to compare with");
        goto out;
    }
    int failed = c.max_error >= 0 && fabs(100 * (pred - meas) / meas) > c.max_error;
    if (c.fmt == FMT_JSON)
        print_json(&c, t, &opts, res, &rep, meas, pred, failed);
    else if (c.fmt == FMT_CSV)
        print_csv(t, &rep, meas, pred);
    else
        print_text(&c, t, &opts, res, &rep, meas, pred);
    if (c.out.prefix && draw(&c, t, &opts, &rep.tab[RT_VAL_REGION]))
        goto out;
    if (c.fmt == FMT_TEXT && c.max_error >= 0)
        printf("\nmax-error   %s: |error| %.1f%% over the window %s --max-error %g%%\n", failed ? "FAILED" : "passed",
               fabs(100 * (pred - meas) / meas), failed ? ">" : "<=", c.max_error);
    rc = failed ? 1 : 0;
out:
    plot_out_close(&c.out);
    rt_replay_result_destroy(res);
    rt_validate_destroy(v);
    rt_trace_close(t);
    model_cli_free(&c.model);
    return rc;
}
