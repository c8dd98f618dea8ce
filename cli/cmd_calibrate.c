/* SPDX-License-Identifier: MIT */
/* retime calibrate: Hockney's α and β and LogP-lite's L, o, g, G fitted from traces' own messages
 * (retime/calibrate.h), how well a replay under the Hockney fit reproduces each measured run, and
 * the parameter file --params reads (docs/parameter-file.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "retime/calibrate.h"
#include "retime/replay.h"
#include "retime/units.h"
#include "retime/window.h"

#include "cli.h"

#define MAX_TRACES 256

enum which_fit { FIT_AUTO, FIT_EAGER, FIT_RENDEZVOUS };

struct calib_cli {
    const char *path[MAX_TRACES], *output;
    size_t ntraces;
    struct rt_calib_options o;
    enum which_fit which;
    enum format fmt;
};

static int parse_calibrate(struct args *a, struct calib_cli *c)
{
    rt_error err = {0};
    memset(c, 0, sizeof *c);
    rt_calib_options_default(&c->o);
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *v, *arg = a->argv[a->i];
        double x;
        if (cli_opt(a, "--eager-limit", &v)) {
            if (!v || rt_parse_bytes(v, &c->o.eager_limit, &err))
                return cli_die("--eager-limit: %s", v ? err.msg : "needs a SIZE");
        } else if (cli_opt(a, "--small", &v)) {
            if (!v || rt_parse_bytes(v, &c->o.small_limit, &err))
                return cli_die("--small: %s", v ? err.msg : "needs a SIZE (the largest message for o_s, o_r, g)");
        } else if (cli_opt(a, "--gap", &v)) {
            if (!v || rt_parse_time_ns(v, &x, &err) || !(x >= 0) || x > 1e12)
                return cli_die("bad --gap '%s' (a TIME from 0 to 1000s: the most time outside MPI between "
                               "back-to-back sends)", v ? v : "");
            c->o.gap_ns = (rt_time_ns)x;
        } else if (cli_opt(a, "--cut-coef", &v)) {
            if (!v || rt_parse_number(v, &c->o.cut_coef, &err) || !(c->o.cut_coef >= 1) || c->o.cut_coef > 1e6)
                return cli_die("bad --cut-coef '%s' (a number from 1 to 1e6: samples above it times their size's "
                               "median are dropped)", v ? v : "");
        } else if (cli_opt(a, "--fit", &v)) {
            if (v && !strcmp(v, "auto"))
                c->which = FIT_AUTO;
            else if (v && !strcmp(v, "eager"))
                c->which = FIT_EAGER;
            else if (v && !strcmp(v, "rendezvous"))
                c->which = FIT_RENDEZVOUS;
            else
                return cli_die("bad --fit '%s' (auto, eager or rendezvous: the Hockney fit the check and the "
                               "parameter file use)", v ? v : "");
        } else if (cli_opt(a, "--output", &v)) {
            if (!v || !*v)
                return cli_die("--output needs a FILE (the parameter file to write)");
            c->output = v;
        } else if (cli_opt(a, "--format", &v)) {
            if (cli_format(v, &c->fmt, 0))
                return cli_die("bad --format '%s' (text or json)", v ? v : "");
        } else if (arg[0] == '-' && arg[1]) {
            return cli_die("unknown option '%s' for calibrate", arg);
        } else if (c->ntraces == MAX_TRACES) {
            return cli_die("more than %d traces given", MAX_TRACES);
        } else {
            c->path[c->ntraces++] = arg;
        }
    }
    return c->ntraces ? 0 : cli_die("calibrate needs a TRACE");
}

/* @p x with 6 significant digits in fixed notation (docs/parameter-file.md: never 1e-05). */
static const char *fixed6(char *buf, size_t n, double x)
{
    int mag = x != 0 ? (int)floor(log10(fabs(x))) + 1 : 1, dec = 6 - mag;
    snprintf(buf, n, "%.*f", dec < 0 ? 0 : dec > 12 ? 12 : dec, x);
    return buf;
}

/* The Hockney fit the check and the file use: the one asked for, or (auto) of the two that
 * determine α and β the one with more samples. NULL when it does not determine them. */
static const struct rt_calib_fit *chosen(const struct calib_cli *c, const struct rt_calibration *k, const char **name)
{
    const struct rt_calib_fit *e = &k->eager, *r = &k->rendezvous, *f;
    if (c->which == FIT_EAGER || (c->which == FIT_AUTO && !(r->alpha_ok && r->beta_ok)))
        f = e, *name = "eager";
    else if (c->which == FIT_RENDEZVOUS || !(e->alpha_ok && e->beta_ok) || r->samples > e->samples)
        f = r, *name = "rendezvous";
    else
        f = e, *name = "eager";
    return f->alpha_ok && f->beta_ok ? f : NULL;
}

/* The parameter file, written whole or not at all (util/outfile.h). */
static int write_params(const struct calib_cli *c, const struct rt_calibration *k, const struct rt_calib_fit *f,
                        const char *fname)
{
    rt_error err = {0};
    struct rt__outfile *of = NULL;
    if (rt__outfile_open(c->output, "parameter file", &of, &err))
        return cli_fail(&err);
    FILE *o = rt__outfile_stream(of);
    char a[64], b[64];
    fprintf(o, "# Parameters fitted by retime calibrate from the messages of");
    for (size_t i = 0; i < c->ntraces; i++)
        fprintf(o, " %s", c->path[i]);
    fprintf(o, "\nformat = retime-params 1\n");
    fprintf(o, "alpha = %sns        # Hockney, the %s fit\n", fixed6(a, sizeof a, f->alpha_ns), fname);
    fprintf(o, "beta = %sns/B\n", fixed6(b, sizeof b, f->beta_ns_per_byte));
    const struct rt_calib_logp *p = &k->logp;
    if (p->L.ok)
        fprintf(o, "L = %sns\n", fixed6(a, sizeof a, p->L.ns));
    if (p->o_s.ok)
        fprintf(o, "o_s = %sns\n", fixed6(a, sizeof a, p->o_s.ns));
    if (p->o_r.ok)
        fprintf(o, "o_r = %sns\n", fixed6(a, sizeof a, p->o_r.ns));
    if (p->g.ok)
        fprintf(o, "g = %sns\n", fixed6(a, sizeof a, p->g.ns));
    if (p->G_ok)
        fprintf(o, "G = %sns/B\n", fixed6(b, sizeof b, p->G_ns_per_byte));
    for (uint32_t i = 0; i < f->nsize; i++)
        if (f->size[i].bytes && f->size[i].beta_ns_per_byte > 0 && !f->size[i].thin)
            fprintf(o, "beta@%" PRIu64 "B = %sns/B\n", f->size[i].bytes,
                    fixed6(b, sizeof b, f->size[i].beta_ns_per_byte));
    fprintf(o, "info.method = retime-calibrate\ninfo.fit = %s\ninfo.filter = cut%gxmedian\n", fname, c->o.cut_coef);
    fprintf(o, "info.samples = %" PRIu64 "\ninfo.sizes = %u\ninfo.r2 = %s\n", f->samples, f->sizes,
            fixed6(a, sizeof a, f->r2));
    for (uint32_t i = 0; i < f->nsize; i++)
        if (!f->size[i].thin)
            fprintf(o, "info.T@%" PRIu64 "B = %sns\n", f->size[i].bytes, fixed6(a, sizeof a, f->size[i].median_ns));
    return rt__outfile_close(of, &err) ? cli_fail(&err) : 0;
}

static void fit_text(const char *name, const struct rt_calib_fit *f)
{
    char a[32], b[32], c[32];
    printf("%-11s %" PRIu64 " samples of %u sizes (%" PRIu64 " dropped above the cut%s; from %" PRIu64
           " blocking receives, %" PRIu64 " waits, %" PRIu64 " blocking rendezvous sends)\n",
           name, f->samples, f->sizes, f->dropped, f->thin_sizes ? ", thin sizes left out" : "", f->from_recv,
           f->from_wait, f->from_send);
    if (f->alpha_ok)
        printf("            alpha %s", rt_format_time(a, sizeof a, f->alpha_ns));
    if (f->beta_ok)
        printf("  beta %sns/B  R2 %.4f  |residual| median %s, max %s", fixed6(b, sizeof b, f->beta_ns_per_byte),
               f->r2, rt_format_time(a, sizeof a, f->resid_median_ns), rt_format_time(c, sizeof c, f->resid_max_ns));
    if (f->alpha_ok || f->beta_ok)
        printf("\n");
    if (f->why[0])
        printf("            %s\n", f->why);
    for (uint32_t i = 0; i < f->nsize; i++) { /* T(m) per size, said even when it determines no line */
        int beta = f->beta_ok && f->size[i].bytes && !f->size[i].thin;
        printf("            %10" PRIu64 " B  %6" PRIu64 " samples  median %-*s", f->size[i].bytes, f->size[i].samples,
               beta || f->size[i].thin ? 10 : 0, rt_format_time(a, sizeof a, f->size[i].median_ns));
        if (beta)
            printf(" beta %sns/B", fixed6(b, sizeof b, f->size[i].beta_ns_per_byte));
        if (f->size[i].thin)
            printf(" left out of the line: samples from %.1f%% of its %" PRIu64 " messages (under %g%%)",
                   100.0 * (double)f->size[i].samples / (double)f->size[i].messages, f->size[i].messages,
                   100 * RT_CALIB_MIN_SHARE);
        printf("\n");
    }
}

static void value_text(const char *name, const struct rt_calib_value *v, int derived)
{
    char a[32], b[32], c[32];
    printf("            %-4s", name);
    if (v->ok && derived)
        printf("%s", rt_format_time(a, sizeof a, v->ns));
    else if (v->ok)
        printf("%-10s %" PRIu64 " samples (%" PRIu64 " dropped)  |residual| median %s, max %s",
               rt_format_time(a, sizeof a, v->ns), v->samples, v->dropped,
               rt_format_time(b, sizeof b, v->resid_median_ns), rt_format_time(c, sizeof c, v->resid_max_ns));
    if (v->why[0])
        printf("%s%s", v->ok ? "  " : "", v->why);
    printf("\n");
}

static void fit_json(const char *name, const struct rt_calib_fit *f)
{
    printf("\"%s\": {\"samples\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"sizes\": %u, \"from_recv\": %" PRIu64
           ", \"from_wait\": %" PRIu64 ", \"from_send\": %" PRIu64 ", \"alpha_ns\": ",
           name, f->samples, f->dropped, f->sizes, f->from_recv, f->from_wait, f->from_send);
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
        printf("%s{\"bytes\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"messages\": %" PRIu64
               ", \"thin\": %s, \"median_ns\": ",
               i ? ", " : "", f->size[i].bytes, f->size[i].samples, f->size[i].messages,
               f->size[i].thin ? "true" : "false");
        cli_print_double(stdout, f->size[i].median_ns);
        printf(", \"beta_ns_per_byte\": ");
        cli_print_double(stdout, f->size[i].beta_ns_per_byte);
        printf("}");
    }
    printf("]}");
}

static void value_json(const char *name, const struct rt_calib_value *v)
{
    printf("\"%s\": {\"samples\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"ns\": ", name, v->samples, v->dropped);
    if (v->ok)
        cli_print_double(stdout, v->ns);
    else
        printf("null");
    printf(", \"residual_median_ns\": ");
    cli_print_double(stdout, v->resid_median_ns);
    printf(", \"residual_max_ns\": ");
    cli_print_double(stdout, v->resid_max_ns);
    printf(", \"why\": ");
    cli_json_string(stdout, v->why);
    printf("}");
}

/* How well the fitted model reproduces a measured window: one replay under it. */
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

struct check_row {
    const char *path, *window;
    double meas, pred;
};

/* Why the traces' message times may be the machine's scheduling rather than its network: their
 * run was oversubscribed, or its ranks waited for a CPU for a tenth of their compute or more.
 * Writes the reason and what to do instead into @p buf; 0 when neither. */
static int busy_reason(rt_trace *const *t, size_t n, char *buf, size_t cap)
{
    char why[400];
    for (size_t i = 0; i < n; i++) {
        int busy = cli_oversubscribed_text(t[i], why, sizeof why);
        rt_time_ns wall, waited;
        cli_cpu_wait_totals(t[i], &wall, &waited, NULL);
        if (!busy && wall > 0 && waited * 10 >= wall) {
            snprintf(why, sizeof why, "its ranks waited for a CPU %.0f %% of their compute", 100.0 * (double)waited / (double)wall);
            busy = 1;
        }
        if (busy) {
            snprintf(buf, cap, "%s: %s; its message times hold scheduling delays, not only the network's: measure "
                     "the machine with pingpong on an idle machine (docs/tracing.md), or trace with no more ranks "
                     "than cores", rt_trace_path(t[i]), why);
            return 1;
        }
    }
    return 0;
}

int cmd_calibrate(struct args *a)
{
    struct calib_cli c;
    if (parse_calibrate(a, &c))
        return 2;
    rt_error err = {0};
    rt_trace *t[MAX_TRACES] = {0};
    rt_window *w[MAX_TRACES] = {0};
    struct check_row chk[MAX_TRACES];
    struct rt_calibration k;
    int rc = 1;
    for (size_t i = 0; i < c.ntraces; i++)
        if (cli_trace_open(c.path[i], &t[i], &err)) {
            cli_fail(&err);
            goto out;
        }
    if (rt_calibrate_traces((const rt_trace *const *)t, c.ntraces, &c.o, &k, &err)) {
        cli_fail(&err);
        goto out;
    }
    const char *fname = "eager";
    const struct rt_calib_fit *f = chosen(&c, &k, &fname);
    size_t nchk = 0;
    for (size_t i = 0; f && i < c.ntraces; i++) {
        struct rt_replay_result *res = NULL;
        if (rt_window_open(t[i], "mpi", &w[i], &err) || check_fit(t[i], f, c.o.eager_limit, w[i], &res, &err)) {
            cli_fail(&err);
            goto out;
        }
        int win = res->window && res->window_ranks;
        chk[nchk++] = (struct check_row){rt_trace_path(t[i]), rt_window_text(w[i]),
                                         (double)(win ? res->window_measured_ns : res->measured_ns),
                                         (double)(win ? res->window_predicted_ps : res->predicted_ps) / 1e3};
        rt_replay_result_destroy(res);
    }
    const struct rt_calib_logp *p = &k.logp;
    if (c.fmt == FMT_JSON) {
        printf("{\"traces\": [");
        for (size_t i = 0; i < c.ntraces; i++) {
            printf(i ? ", " : "");
            cli_json_string(stdout, rt_trace_path(t[i]));
        }
        printf("], \"messages\": %" PRIu64 ", \"unmatched\": %" PRIu64 ", \"left_out\": {\"late_receiver\": %" PRIu64
               ", \"not_waited\": %" PRIu64 ", \"shared_wait\": %" PRIu64 ", \"backwards\": %" PRIu64
               "}, \"collectives_not_used\": %" PRIu64 ", ",
               k.messages, k.unmatched, k.late_receiver, k.not_waited, k.shared_wait, k.backwards, k.collectives);
        fit_json("eager", &k.eager);
        printf(", ");
        fit_json("rendezvous", &k.rendezvous);
        printf(", \"logp\": {");
        value_json("o_s", &p->o_s);
        printf(", ");
        value_json("o_r", &p->o_r);
        printf(", ");
        value_json("g", &p->g);
        printf(", ");
        value_json("L", &p->L);
        printf(", \"G_ns_per_byte\": ");
        if (p->G_ok)
            cli_print_double(stdout, p->G_ns_per_byte);
        else
            printf("null");
        printf(", \"G_why\": ");
        cli_json_string(stdout, p->G_why);
        printf("}, \"fit_used\": ");
        if (f)
            cli_json_string(stdout, fname);
        else
            printf("null");
        printf(", \"check\": [");
        for (size_t i = 0; i < nchk; i++) {
            printf("%s{\"trace\": ", i ? ", " : "");
            cli_json_string(stdout, chk[i].path);
            printf(", \"window\": ");
            cli_json_string(stdout, chk[i].window);
            printf(", \"measured_ns\": ");
            cli_print_double(stdout, chk[i].meas);
            printf(", \"predicted_ns\": ");
            cli_print_double(stdout, chk[i].pred);
            printf(", \"error_pct\": ");
            cli_print_double(stdout, chk[i].meas > 0 ? 100 * (chk[i].pred - chk[i].meas) / chk[i].meas : 0);
            printf("}");
        }
        printf("]}\n");
    } else {
        char x[32], y[32];
        for (size_t i = 0; i < c.ntraces; i++)
            printf("trace       %s\n", rt_trace_path(t[i]));
        printf("messages    %" PRIu64 " matched (%" PRIu64 " sends or receives without a partner)\n", k.messages,
               k.unmatched);
        printf("left out    %" PRIu64 " late receivers, %" PRIu64 " receives not waited for when sent, %" PRIu64
               " in a wait of several receives, %" PRIu64 " backwards in time; %" PRIu64
               " collective calls not used\n",
               k.late_receiver, k.not_waited, k.shared_wait, k.backwards, k.collectives);
        fit_text("eager", &k.eager);
        fit_text("rendezvous", &k.rendezvous);
        printf("logp-lite   (messages of at most %" PRIu64 " B for o_s, o_r and g)\n", c.o.small_limit);
        value_text("o_s", &p->o_s, 0);
        value_text("o_r", &p->o_r, 0);
        value_text("g", &p->g, 0);
        value_text("L", &p->L, 1);
        printf("            G   ");
        if (p->G_ok)
            printf("%sns/B (the eager beta)\n", fixed6(x, sizeof x, p->G_ns_per_byte));
        else
            printf("%s\n", p->G_why);
        for (size_t i = 0; i < nchk; i++)
            printf("check       a replay under the %s alpha and beta: %s predicted against %s measured (%+.1f%%) "
                   "over %s%s%s\n",
                   fname, rt_format_time(x, sizeof x, chk[i].pred), rt_format_time(y, sizeof y, chk[i].meas),
                   chk[i].meas > 0 ? 100 * (chk[i].pred - chk[i].meas) / chk[i].meas : 0.0, chk[i].window,
                   c.ntraces > 1 ? " of " : "", c.ntraces > 1 ? chk[i].path : "");
        if (!f)
            printf("check       none: the %s messages do not determine alpha and beta\n",
                   c.which == FIT_RENDEZVOUS ? "rendezvous" : c.which == FIT_EAGER ? "eager" : "eager or rendezvous");
    }
    char busy[1200];
    int is_busy = busy_reason(t, c.ntraces, busy, sizeof busy);
    if (is_busy && c.fmt != FMT_JSON)
        printf("warning     %s\n", busy);
    if (c.output) {
        if (!f) {
            const struct rt_calib_fit *g = c.which == FIT_RENDEZVOUS ? &k.rendezvous : &k.eager;
            cli_die("%s: not written: %s%s%s", c.output, g->why[0] ? g->why : "alpha and beta are not determined",
                    is_busy ? "; " : "", is_busy ? busy : "");
            goto out;
        }
        if (write_params(&c, &k, f, fname))
            goto out;
    }
    rc = 0;
out:
    for (size_t i = 0; i < c.ntraces; i++) {
        rt_window_free(w[i]);
        rt_trace_close(t[i]);
    }
    return rc;
}
