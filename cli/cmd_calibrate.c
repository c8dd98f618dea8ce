/* SPDX-License-Identifier: MIT */
/* retime calibrate: Hockney's α and β fitted from the trace's own messages (retime/calibrate.h),
 * how well a replay under them reproduces the measured run, and the parameter file --params
 * reads (docs/parameter-file.md). */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "retime/calibrate.h"
#include "retime/replay.h"
#include "retime/units.h"
#include "retime/window.h"

#include "cli.h"

struct calib_cli {
    const char *path, *output;
    rt_bytes eager_limit;
    double cut;
    enum format fmt;
};

static int parse_calibrate(struct args *a, struct calib_cli *c)
{
    rt_error err = {0};
    memset(c, 0, sizeof *c);
    c->eager_limit = 64 * 1024;
    c->cut = 2;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *v, *arg = a->argv[a->i];
        if (cli_opt(a, "--eager-limit", &v)) {
            if (!v || rt_parse_bytes(v, &c->eager_limit, &err))
                return cli_die("--eager-limit: %s", v ? err.msg : "needs a SIZE");
        } else if (cli_opt(a, "--cut-coef", &v)) {
            if (!v || rt_parse_number(v, &c->cut, &err) || !(c->cut >= 1) || c->cut > 1e6)
                return cli_die("bad --cut-coef '%s' (a number from 1 to 1e6: samples above it times their size's "
                               "median are dropped)", v ? v : "");
        } else if (cli_opt(a, "--output", &v)) {
            if (!v || !*v)
                return cli_die("--output needs a FILE (the parameter file to write)");
            c->output = v;
        } else if (cli_opt(a, "--format", &v)) {
            if (cli_format(v, &c->fmt, 0))
                return cli_die("bad --format '%s' (text or json)", v ? v : "");
        } else if (arg[0] == '-' && arg[1]) {
            return cli_die("unknown option '%s' for calibrate", arg);
        } else if (!c->path) {
            c->path = arg;
        } else {
            return cli_die("more than one trace given ('%s' and '%s')", c->path, arg);
        }
    }
    return c->path ? 0 : cli_die("calibrate needs a TRACE");
}

/* @p x with 6 significant digits in fixed notation (docs/parameter-file.md: never 1e-05). */
static const char *fixed6(char *buf, size_t n, double x)
{
    int mag = x != 0 ? (int)floor(log10(fabs(x))) + 1 : 1, dec = 6 - mag;
    snprintf(buf, n, "%.*f", dec < 0 ? 0 : dec > 12 ? 12 : dec, x);
    return buf;
}

/* The parameter file, written whole (a temporary file renamed) so a failed write leaves none. */
static int write_params(const char *path, const char *trace, const struct rt_calib_fit *f)
{
    char tmp[4096], a[64], b[64];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cli_die("--output: path too long");
    FILE *o = fopen(tmp, "w");
    if (!o)
        return cli_die("%s: cannot write: %s", path, strerror(errno));
    fprintf(o, "# Hockney parameters fitted from %s's own messages by retime calibrate\n", trace);
    fprintf(o, "format = retime-params 1\nalpha = %sns\nbeta = %sns/B\n", fixed6(a, sizeof a, f->alpha_ns),
            fixed6(b, sizeof b, f->beta_ns_per_byte));
    fprintf(o, "info.samples = %" PRIu64 "\ninfo.sizes = %u\ninfo.r2 = %s\n", f->samples, f->sizes,
            fixed6(a, sizeof a, f->r2));
    int bad = ferror(o);
    if (fclose(o) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return cli_die("%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

static void fit_text(const char *name, const struct rt_calib_fit *f)
{
    char a[32], b[32], c[32];
    printf("%-11s %" PRIu64 " samples of %u sizes (%" PRIu64 " dropped above the cut)\n", name, f->samples, f->sizes,
           f->dropped);
    if (f->alpha_ok)
        printf("            alpha %s", rt_format_time(a, sizeof a, f->alpha_ns));
    if (f->beta_ok)
        printf("  beta %sns/B  R2 %.4f  |residual| median %s, max %s", fixed6(b, sizeof b, f->beta_ns_per_byte),
               f->r2, rt_format_time(a, sizeof a, f->resid_median_ns), rt_format_time(c, sizeof c, f->resid_max_ns));
    if (f->alpha_ok || f->beta_ok)
        printf("\n");
    if (f->why[0])
        printf("            %s\n", f->why);
    for (uint32_t i = 0; i < f->nsize && f->beta_ok; i++)
        printf("            %10" PRIu64 " B  %6" PRIu64 " samples  median %-10s beta %sns/B\n", f->size[i].bytes,
               f->size[i].samples, rt_format_time(a, sizeof a, f->size[i].median_ns),
               fixed6(b, sizeof b, f->size[i].beta_ns_per_byte));
}

static void fit_json(const char *name, const struct rt_calib_fit *f)
{
    printf("\"%s\": {\"samples\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"sizes\": %u, \"alpha_ns\": ", name,
           f->samples, f->dropped, f->sizes);
    if (f->alpha_ok)
        cli_print_double(stdout, f->alpha_ns);
    else
        printf("null");
    printf(", \"beta_ns_per_byte\": ");
    if (f->beta_ok)
        cli_print_double(stdout, f->beta_ns_per_byte);
    else
        printf("null");
    printf(", \"r2\": ");
    cli_print_double(stdout, f->r2);
    printf(", \"residual_median_ns\": ");
    cli_print_double(stdout, f->resid_median_ns);
    printf(", \"residual_max_ns\": ");
    cli_print_double(stdout, f->resid_max_ns);
    printf(", \"why\": ");
    cli_json_string(stdout, f->why);
    printf(", \"per_size\": [");
    for (uint32_t i = 0; i < f->nsize; i++) {
        printf("%s{\"bytes\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"median_ns\": ", i ? ", " : "",
               f->size[i].bytes, f->size[i].samples);
        cli_print_double(stdout, f->size[i].median_ns);
        printf(", \"beta_ns_per_byte\": ");
        cli_print_double(stdout, f->size[i].beta_ns_per_byte);
        printf("}");
    }
    printf("]}");
}

/* How well the fitted model reproduces the measured window: one replay under it. */
static int check_fit(const rt_trace *t, const struct rt_calib_fit *f, rt_bytes eager, rt_window *w,
                     struct rt_replay_result **res, rt_error *err)
{
    struct rt_replay_options o;
    rt_replay_options_default(&o);
    struct rt_model_params p = {.alpha_ns = f->alpha_ns, .beta_ns_per_byte = f->beta_ns_per_byte};
    int rc = rt_model_init(&o.model, "hockney", &p, err);
    if (rc)
        return rc;
    o.eager_limit = eager;
    o.window = w;
    return rt_replay_run(t, &o, NULL, res, err);
}

int cmd_calibrate(struct args *a)
{
    struct calib_cli c;
    if (parse_calibrate(a, &c))
        return 2;
    rt_error err = {0};
    rt_trace *t = NULL;
    rt_window *w = NULL;
    struct rt_calibration k;
    struct rt_replay_result *res = NULL;
    int rc = 1;
    if (rt_trace_open(c.path, &t, &err) || rt_calibrate(t, c.eager_limit, c.cut, &k, &err) ||
        rt_window_open(t, "mpi", &w, &err)) {
        cli_fail(&err);
        goto out;
    }
    const struct rt_calib_fit *f = &k.eager; /* the parameters the file gets: the eager fit */
    int usable = f->alpha_ok && f->beta_ok;
    if (usable && check_fit(t, f, c.eager_limit, w, &res, &err)) {
        cli_fail(&err);
        goto out;
    }
    double meas = res ? (double)(res->window && res->window_ranks ? res->window_measured_ns : res->measured_ns) : 0;
    double pred = res ? (res->window && res->window_ranks ? res->window_predicted_ps : res->predicted_ps) / 1e3 : 0;
    if (c.fmt == FMT_JSON) {
        printf("{\"trace\": ");
        cli_json_string(stdout, rt_trace_path(t));
        printf(", \"messages\": %" PRIu64 ", \"unmatched\": %" PRIu64 ", ", k.messages, k.unmatched);
        fit_json("eager", &k.eager);
        printf(", ");
        fit_json("rendezvous", &k.rendezvous);
        printf(", \"check\": ");
        if (res) {
            printf("{\"window\": ");
            cli_json_string(stdout, rt_window_text(w));
            printf(", \"measured_ns\": ");
            cli_print_double(stdout, meas);
            printf(", \"predicted_ns\": ");
            cli_print_double(stdout, pred);
            printf(", \"error_pct\": ");
            cli_print_double(stdout, meas > 0 ? 100 * (pred - meas) / meas : 0);
            printf("}");
        } else {
            printf("null");
        }
        printf("}\n");
    } else {
        char x[32], y[32];
        printf("trace       %s\nmessages    %" PRIu64 " matched (%" PRIu64 " sends or receives without a partner)\n",
               rt_trace_path(t), k.messages, k.unmatched);
        fit_text("eager", &k.eager);
        fit_text("rendezvous", &k.rendezvous);
        if (res)
            printf("check       a replay under alpha and beta: %s predicted against %s measured (%+.1f%%) over %s\n",
                   rt_format_time(x, sizeof x, pred), rt_format_time(y, sizeof y, meas),
                   meas > 0 ? 100 * (pred - meas) / meas : 0.0, rt_window_text(w));
        else
            printf("check       none: the eager messages do not determine alpha and beta\n");
    }
    if (c.output) {
        if (!usable) {
            cli_die("%s: not written: %s", c.output, f->why[0] ? f->why : "alpha and beta are not determined");
            goto out;
        }
        if (write_params(c.output, rt_trace_path(t), f))
            goto out;
    }
    rc = 0;
out:
    rt_replay_result_destroy(res);
    rt_window_free(w);
    rt_trace_close(t);
    return rc;
}
