/* SPDX-License-Identifier: MIT */
/* retime extrapolate: one program's traces at three or more rank counts, recognised as functions
 * of the rank and the rank count (retime/extrapolate.h), written at a larger rank count as an OTF2
 * archive that every command reads (docs/extrapolate.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/extrapolate.h"
#include "retime/units.h"

#include "cli.h"

struct extrap_cli {
    const char *path[RT_EXTRAP_MAX_TRACES], *output;
    size_t ntraces;
    uint64_t ranks;
    enum rt_scaling scaling;
    long top;
    enum format fmt;
};

static int parse_extrapolate(struct args *a, struct extrap_cli *c)
{
    memset(c, 0, sizeof *c);
    c->top = 8;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *v, *arg = a->argv[a->i];
        if (cli_opt(a, "--ranks", &v)) {
            if (cli_count(v, 2, 1u << 24, &c->ranks))
                return cli_die("bad --ranks '%s' (the rank count to write: a whole number from 2 to 2^24)", v ? v : "");
        } else if (cli_opt(a, "--output", &v)) {
            if (!v || !*v)
                return cli_die("--output needs a DIR (the extrapolated trace is written into it, new)");
            c->output = v;
        } else if (cli_opt(a, "--scaling", &v)) {
            if (v && !strcmp(v, "auto"))
                c->scaling = RT_SCALING_AUTO;
            else if (v && !strcmp(v, "weak"))
                c->scaling = RT_SCALING_WEAK;
            else if (v && !strcmp(v, "strong"))
                c->scaling = RT_SCALING_STRONG;
            else
                return cli_die("bad --scaling '%s' (auto, weak or strong: how the compute between calls scales "
                               "with the rank count)", v ? v : "");
        } else if (cli_opt(a, "--top", &v)) {
            uint64_t n;
            if (cli_count(v, 0, 1000000, &n))
                return cli_die("bad --top '%s' (a whole number from 0)", v ? v : "");
            c->top = (long)n;
        } else if (cli_opt(a, "--format", &v)) {
            if (cli_format(v, &c->fmt, 0))
                return cli_die("bad --format '%s' (text or json)", v ? v : "");
        } else if (arg[0] == '-' && arg[1]) {
            return cli_die("unknown option '%s' for extrapolate", arg);
        } else if (c->ntraces == RT_EXTRAP_MAX_TRACES) {
            return cli_die("more than %d traces given", RT_EXTRAP_MAX_TRACES);
        } else {
            c->path[c->ntraces++] = arg;
        }
    }
    if (c->ntraces < 3)
        return cli_die("extrapolate needs the traces of one program at 3 or more rank counts (%zu given)", c->ntraces);
    if (!c->ranks || !c->output)
        return cli_die("extrapolate needs --ranks P (the rank count to write) and --output DIR");
    return 0;
}

static const char *scaling_name(enum rt_scaling s)
{
    return s == RT_SCALING_WEAK ? "weak" : s == RT_SCALING_STRONG ? "strong" : "auto";
}

/* "c0 + c1 * P^a * log2(P)^b", the terms that are there. */
static void fit_text(char *buf, size_t n, double c0, double c1, double a, double b)
{
    int len = 0;
    if (c0 != 0 || c1 == 0)
        len += snprintf(buf + len, n - (size_t)len, "%g", c0);
    if (c1 != 0) {
        len += snprintf(buf + len, n - (size_t)len, "%s%g", len ? (c1 < 0 ? " - " : " + ") : "", len ? fabs(c1) : c1);
        if (a != 0)
            len += snprintf(buf + len, n - (size_t)len, " * P^%.3g", a);
        if (b != 0)
            snprintf(buf + len, n - (size_t)len, " * log2(P)%s", b == 1 ? "" : b == 2 ? "^2" : "^?");
    }
}

/* "c·P^a·log2(P)^b" with the number's unit. */
static void model_text(char *buf, size_t n, const struct rt_extrap_interval *v)
{
    char t[32];
    int len = snprintf(buf, n, "%s", rt_format_time(t, sizeof t, v->c));
    if (v->a != 0)
        len += snprintf(buf + len, n - (size_t)len, " * P^%.3g", v->a);
    if (v->b != 0)
        snprintf(buf + len, n - (size_t)len, " * log2(P)^%g", v->b);
}

/* The intervals by share, largest first. */
static uint32_t *by_share(const rt_extrap *x, uint32_t n)
{
    uint32_t *o = malloc((n ? n : 1) * sizeof *o);
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!o || !s) {
        free(o), free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct rt_extrap_interval v;
        rt_extrap_interval(x, i, &v);
        o[i] = i, s[i] = v.share;
    }
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && s[o[j]] > s[o[j - 1]]; j--) {
            uint32_t t = o[j];
            o[j] = o[j - 1];
            o[j - 1] = t;
        }
    free(s);
    return o;
}

static void print_text(const struct extrap_cli *c, const rt_extrap *x, rt_trace *const *t)
{
    struct rt_extrap_summary s;
    rt_extrap_summary(x, &s);
    printf("traces      ");
    for (size_t i = 0; i < c->ntraces; i++)
        printf("%s%s (%u ranks)", i ? ", " : "", rt_trace_path(t[i]), rt_trace_ranks(t[i]));
    printf("\nclasses     %u: %s\n", s.classes, s.class_rule);
    printf("events      %" PRIu64 " per class template: %" PRIu64 " sends, %" PRIu64 " collectives\n", s.events, s.p2p,
           s.colls);
    printf("peers       %" PRIu64 " ring offsets, %" PRIu64 " 2D grid neighbours, %" PRIu64 " 3D grid neighbours, %" PRIu64
           " fixed ranks (message records)\n",
           s.by_offset, s.by_grid2, s.by_grid3, s.by_fixed);
    for (uint32_t k = 0; k < s.classes; k++) {
        struct rt_extrap_loop l;
        if (!rt_extrap_loop(x, k, &l))
            continue;
        printf("loop        class %u: %" PRIu64 " events an iteration, ", k, l.events);
        for (uint32_t i = 0; i < l.traces; i++)
            printf("%s%" PRIu64, i ? ", " : "", l.iterations[i]);
        printf(" times at ");
        for (uint32_t i = 0; i < l.traces; i++)
            printf("%s%u", i ? ", " : "", l.P[i]);
        char f[96];
        fit_text(f, sizeof f, l.c0, l.c1, l.a, l.b);
        printf(" ranks: %s\n", f);
    }
    if (s.splits)
        printf("splits      %" PRIu64 " sends and collectives on communicators of a split (grid lines, blocks of "
               "ranks, strides)\n", s.splits);
    printf("sizes       %" PRIu64 " the same at every rank count, %" PRIu64 " scaling with it (exact at every trace)\n",
           s.sizes_constant, s.sizes_scaled);
    printf("compute     %s; %u intervals (%u constant), scaling %s; fit error (relative RMS at the traced counts, "
           "time-weighted) median %.1f %%, worst %.1f %%; %.1f %% of the compute scales with P\n",
           s.cpu_time ? "CPU time (every trace has it)" : "wall time", s.intervals, s.intervals_constant,
           scaling_name(c->scaling), 100 * s.fit_error_median,
           100 * s.fit_error_max, 100 * s.compute_share_scaled);
    uint32_t n = rt_extrap_intervals(x), *o = by_share(x, n);
    if (o && c->top && n) {
        printf("  the largest intervals (of the largest trace's compute)\n");
        printf("  %-6s %-28s %-28s %10s %7s %8s  %s\n", "class", "from", "to", "per rank", "share", "error", "mean gap");
        for (uint32_t i = 0; i < n && i < (uint32_t)c->top; i++) {
            struct rt_extrap_interval v;
            char m[96];
            rt_extrap_interval(x, o[i], &v);
            model_text(m, sizeof m, &v);
            printf("  %-6u %-28.28s %-28.28s %10" PRIu64 " %6.1f%% %7.1f%%  %s\n", v.cls, v.from, v.to,
                   v.occurrences, 100 * v.share, 100 * v.error, m);
        }
    }
    free(o);
    printf("wrote       %s: %" PRIu64 " ranks (retime replay %s ...)\n", c->output, c->ranks, c->output);
}

static void print_json(const struct extrap_cli *c, const rt_extrap *x, rt_trace *const *t)
{
    struct rt_extrap_summary s;
    rt_extrap_summary(x, &s);
    printf("{\"traces\": [");
    for (size_t i = 0; i < c->ntraces; i++) {
        printf("%s{\"path\": ", i ? ", " : "");
        cli_json_string(stdout, rt_trace_path(t[i]));
        printf(", \"ranks\": %u}", rt_trace_ranks(t[i]));
    }
    printf("], \"classes\": %u, \"class_rule\": ", s.classes);
    cli_json_string(stdout, s.class_rule);
    printf(", \"events\": %" PRIu64 ", \"sends\": %" PRIu64 ", \"collectives\": %" PRIu64
           ", \"peers\": {\"offset\": %" PRIu64 ", \"grid2\": %" PRIu64 ", \"grid3\": %" PRIu64 ", \"fixed\": %" PRIu64
           "}, \"splits\": %" PRIu64 ", \"sizes_constant\": %" PRIu64 ", \"sizes_scaled\": %" PRIu64
           ", \"scaling\": \"%s\", \"cpu_time\": %s",
           s.events, s.p2p, s.colls, s.by_offset, s.by_grid2, s.by_grid3, s.by_fixed, s.splits, s.sizes_constant,
           s.sizes_scaled, scaling_name(c->scaling), s.cpu_time ? "true" : "false");
    printf(", \"fit_error_median\": ");
    cli_print_double(stdout, s.fit_error_median);
    printf(", \"fit_error_max\": ");
    cli_print_double(stdout, s.fit_error_max);
    printf(", \"loops\": [");
    for (uint32_t k = 0, any = 0; k < s.classes; k++) {
        struct rt_extrap_loop l;
        if (!rt_extrap_loop(x, k, &l))
            continue;
        printf("%s{\"class\": %u, \"events\": %" PRIu64 ", \"ranks\": [", any++ ? ", " : "", k, l.events);
        for (uint32_t i = 0; i < l.traces; i++)
            printf("%s%u", i ? ", " : "", l.P[i]);
        printf("], \"iterations\": [");
        for (uint32_t i = 0; i < l.traces; i++)
            printf("%s%" PRIu64, i ? ", " : "", l.iterations[i]);
        printf("], \"c0\": ");
        cli_print_double(stdout, l.c0);
        printf(", \"c1\": ");
        cli_print_double(stdout, l.c1);
        printf(", \"a\": ");
        cli_print_double(stdout, l.a);
        printf(", \"b\": ");
        cli_print_double(stdout, l.b);
        printf("}");
    }
    printf("], \"intervals\": [");
    uint32_t n = rt_extrap_intervals(x);
    for (uint32_t i = 0; i < n; i++) {
        struct rt_extrap_interval v;
        rt_extrap_interval(x, i, &v);
        printf("%s{\"class\": %u, \"from\": ", i ? ", " : "", v.cls);
        cli_json_string(stdout, v.from);
        printf(", \"to\": ");
        cli_json_string(stdout, v.to);
        printf(", \"per_rank\": %" PRIu64 ", \"share\": ", v.occurrences);
        cli_print_double(stdout, v.share);
        printf(", \"c_ns\": ");
        cli_print_double(stdout, v.c);
        printf(", \"a\": ");
        cli_print_double(stdout, v.a);
        printf(", \"b\": ");
        cli_print_double(stdout, v.b);
        printf(", \"error\": ");
        cli_print_double(stdout, v.error);
        printf("}");
    }
    printf("], \"output\": ");
    cli_json_string(stdout, c->output);
    printf(", \"ranks\": %" PRIu64 "}\n", c->ranks);
}

int cmd_extrapolate(struct args *a)
{
    struct extrap_cli c;
    rt_trace *t[RT_EXTRAP_MAX_TRACES] = {0};
    rt_extrap *x = NULL;
    rt_error err = {0};
    int rc = 1;
    if (parse_extrapolate(a, &c))
        return 2;
    for (size_t i = 0; i < c.ntraces; i++) {
        if (cli_trace_open(c.path[i], &t[i], &err)) {
            cli_fail(&err);
            goto out;
        }
        cli_warn_dropped(t[i]);
    }
    if (rt_extrap_build((const rt_trace *const *)t, c.ntraces, c.scaling, &x, &err) ||
        rt_extrap_write(x, (uint32_t)c.ranks, c.output, &err)) {
        cli_fail(&err);
        goto out;
    }
    if (c.fmt == FMT_JSON)
        print_json(&c, x, t);
    else
        print_text(&c, x, t);
    rc = cli_flush_stdout();
out:
    rt_extrap_free(x);
    for (size_t i = 0; i < c.ntraces; i++)
        rt_trace_close(t[i]);
    return rc;
}
