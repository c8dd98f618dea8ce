/* SPDX-License-Identifier: MIT */
/*
 * retime plot sweep: a heat map of a two-parameter sweep (the runner of `retime sweep`,
 * sweep.h): the predicted total (or, with --region, the mean region time), or the speed-up
 * against the first combination, in one cell per pair of listed values, each cell labelled.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot_common.h"
#include "retime/units.h"
#include "sweep.h"

/* Cells are labelled with their value while they are wide and tall enough to hold it. */
#define LABEL_MAX_X 16
#define LABEL_MAX_Y 24

static int parse_plot_sweep(struct args *a, struct sweep *s, struct plot_out *o, int *speedup)
{
    for (a->i = 3; a->i < a->argc; a->i++) {
        const char *v;
        int m = sweep_option(a, s);
        if (m == 0)
            m = model_cli_option(a, &s->model);
        if (m == 0)
            m = plot_out_option(a, o);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        if (cli_opt(a, "--value", &v)) {
            if (v && !strcmp(v, "total"))
                *speedup = 0;
            else if (v && !strcmp(v, "speedup"))
                *speedup = 1;
            else
                return cli_die("bad --value '%s' (total or speedup)", v ? v : "");
        } else if (trace_cli_operand(a, &s->tr.path, &s->tr.region, "plot sweep")) {
            return 1;
        }
    }
    if (!s->tr.path)
        return cli_die("plot sweep needs a TRACE");
    int varied = 0;
    for (int i = 0; i < s->naxes; i++)
        varied += s->axes[i].n > 1;
    if (varied != 2)
        return cli_die("plot sweep needs exactly two options with a list of values (--PARAM LIST, e.g. --alpha "
                       "1us,2us --beta 0.5ns/B,1ns/B), got %d",
                       varied);
    if (sweep_finish_options(s))
        return 1;
    return plot_out_check(o, "sweep");
}

/* "latency (--alpha)": the parameter's description up to its first ':' or '(', and the option. */
static void axis_label(char *buf, size_t n, const struct sweep_axis *x)
{
    const char *help = "";
    if (x->param[0] == SWEEP_AXIS_SCALE)
        help = "compute scale";
    else if (!strcmp(x->name, "o"))
        help = "CPU overhead of a send and a receive";
    else if (x->param[0] >= 0)
        help = rt_model_param_table[x->param[0]].help;
    size_t len = strcspn(help, ":(");
    while (len && help[len - 1] == ' ')
        len--;
    snprintf(buf, n, "%.*s (--%s)", (int)len, help, x->name);
}

static void value_text(char *buf, size_t n, const struct sweep_axis *x, double v)
{
    FILE *f = fmemopen(buf, n, "w");
    if (!f) {
        snprintf(buf, n, "%g", v);
        return;
    }
    sweep_print_value(f, x, v, 0);
    fclose(f);
    buf[n - 1] = '\0';
}

/* The map: which axes span it, and every cell's value. */
struct heat_map {
    const struct sweep *s;
    const struct sweep_axis *ax, *ay; /* x: the first option with a list, y: the second */
    size_t sx, sy;                    /* their strides: combination = i·sx + j·sy */
    int speedup;
    double *val;                      /* [combos]: ns, or the speed-up */
    double vmin, vmax;                /* over the finite values */
    struct plot_unit u;
    int digits;                       /* significant digits of the labels */
    char figure[160];
};

/* Finds the two axes and computes the values. 0, or 1 after printing the error. */
static int heat_map_fill(struct heat_map *h, const struct sweep *s, int speedup)
{
    /* Combination c = Σ pick_k·stride_k (the first axis slowest); options with one value each
     * have pick 0. */
    size_t stride[SWEEP_MAX_AXES], st = 1;
    for (int k = s->naxes - 1; k >= 0; k--) {
        stride[k] = st;
        st *= s->axes[k].n;
    }
    for (int k = 0; k < s->naxes; k++)
        if (s->axes[k].n > 1) {
            if (!h->ax) {
                h->ax = &s->axes[k];
                h->sx = stride[k];
            } else {
                h->ay = &s->axes[k];
                h->sy = stride[k];
            }
        }
    h->s = s;
    h->speedup = speedup;
    if (!(h->val = calloc(s->combos, sizeof *h->val)))
        return cli_die("out of memory");
    const struct sweep_run *r0 = &s->runs[0];
    h->vmin = INFINITY;
    h->vmax = -INFINITY;
    for (size_t c = 0; c < s->combos; c++) {
        const struct sweep_run *r = &s->runs[c];
        double ns = s->tr.region ? r->region_ns : (double)r->predicted_ps / 1e3;
        double base_ns = s->tr.region ? r0->region_ns : (double)r0->predicted_ps / 1e3;
        h->val[c] = speedup ? base_ns / ns : ns;
        if (isfinite(h->val[c])) {
            h->vmin = fmin(h->vmin, h->val[c]);
            h->vmax = fmax(h->vmax, h->val[c]);
        }
    }
    if (!(h->vmin <= h->vmax))
        return cli_die("plot sweep: no combination has a finite %s (every prediction is 0?)",
                       speedup ? "speed-up" : "time");
    h->u = speedup ? (struct plot_unit){"", 1} : plot_time_unit(h->vmax);
    /* Enough significant digits to tell the smallest value from the largest (4 to 10). */
    h->digits = 4;
    if (h->vmax > h->vmin)
        h->digits = (int)ceil(log10(fmax(fabs(h->vmax), fabs(h->vmin)) / (h->vmax - h->vmin))) + 2;
    h->digits = h->digits < 4 ? 4 : h->digits > 10 ? 10 : h->digits;
    if (s->tr.region)
        snprintf(h->figure, sizeof h->figure, "%s of the mean %s time", speedup ? "speed-up" : "predicted",
                 s->tr.region);
    else
        snprintf(h->figure, sizeof h->figure, "%s",
                 speedup ? "speed-up of the predicted run time" : "predicted run time");
    return 0;
}

/* Block 0: the grid of values (one scan per y value); block 1: the cells' labels. Returns
 * whether the cells are labelled. */
static int heat_map_data(FILE *f, const struct heat_map *h)
{
    const struct sweep_axis *ax = h->ax, *ay = h->ay;
    fprintf(f, "# block 0: x_index y_index value [%s] (one scan per y value)\n", h->speedup ? "ratio" : h->u.name);
    for (size_t j = 0; j < ay->n; j++) {
        for (size_t i = 0; i < ax->n; i++) {
            size_t c = i * h->sx + j * h->sy;
            char tx[40], ty[40];
            fprintf(f, "%zu %zu ", i, j);
            if (isfinite(h->val[c]))
                fprintf(f, "%.9g", h->val[c] / h->u.ns);
            else
                fprintf(f, "NaN");
            value_text(tx, sizeof tx, ax, ax->vals[i]);
            value_text(ty, sizeof ty, ay, ay->vals[j]);
            fprintf(f, "   # combination %zu: --%s %s --%s %s\n", c, ax->name, tx, ay->name, ty);
        }
        fprintf(f, "\n");
    }
    int labels = ax->n <= LABEL_MAX_X && ay->n <= LABEL_MAX_Y;
    fprintf(f, "\n# block 1: cell labels: x_index y_index text text_colour\n");
    for (size_t j = 0; j < ay->n && labels; j++)
        for (size_t i = 0; i < ax->n; i++) {
            double v = h->val[i * h->sx + j * h->sy];
            double rel = h->vmax > h->vmin ? (v - h->vmin) / (h->vmax - h->vmin) : 0.5;
            /* Light text on the dark (low) end of the palette. */
            if (isfinite(v))
                fprintf(f, "%zu %zu %.*g %d\n", i, j, h->digits, v / h->u.ns, rel < 0.45 ? 0xffffff : 0x000000);
            else
                fprintf(f, "%zu %zu - 0\n", i, j);
        }
    if (!labels)
        fprintf(f, "NaN NaN - 0\n");
    return labels;
}

static void tics(FILE *g, const char *which, const struct sweep_axis *x)
{
    fprintf(g, "set %s (", which);
    for (size_t i = 0; i < x->n; i++) {
        char t[40];
        value_text(t, sizeof t, x, x->vals[i]);
        fprintf(g, "%s", i ? ", " : "");
        plot_str(g, t);
        fprintf(g, " %zu", i);
    }
    fprintf(g, ")\n");
}

static void heat_map_script(struct plot_out *o, const struct heat_map *h, const char *model_text, int labels)
{
    FILE *g = o->gp;
    const struct sweep_axis *ax = h->ax, *ay = h->ay;
    char tp[128], against[200] = "", lx[96], ly[96];
    if (h->speedup) {
        char t0[40], t1[40];
        value_text(t0, sizeof t0, ax, ax->vals[0]);
        value_text(t1, sizeof t1, ay, ay->vals[0]);
        snprintf(against, sizeof against, "; speed-up against --%s %s --%s %s (> 1: faster)", ax->name, t0, ay->name,
                 t1);
    }
    /* wrapped to the picture's width, as the Monte Carlo plot's */
    char title[1200], wrapped[1400];
    size_t cols = plot_title_width(o->width);
    snprintf(title, sizeof title, "Sweep: %s over --%s and --%s\n%s\n%s%s", h->figure, ax->name, ay->name,
             plot_title_path(tp, sizeof tp, h->s->tr.path, cols < 100 ? cols : 100), model_text, against);
    plot_title_wrap(wrapped, sizeof wrapped, title, cols);
    fprintf(g, "set title ");
    plot_str(g, wrapped);
    axis_label(lx, sizeof lx, ax);
    axis_label(ly, sizeof ly, ay);
    fprintf(g, "\nset xlabel ");
    plot_str(g, lx);
    fprintf(g, "\nset ylabel ");
    plot_str(g, ly);
    fprintf(g, "\nset cblabel ");
    if (h->speedup)
        plot_str(g, "speed-up (> 1: faster)");
    else
        plot_strf(g, "%s [%s]", h->s->tr.region ? "mean region time" : "predicted run time", h->u.name);
    /* Values close together need more digits on the colour box than gnuplot's default format
     * gives, and room for them: the default margin and title place fit only short labels. */
    if (h->digits > 4)
        fprintf(g, " offset %d,0\nset rmargin %d\nset format cb '%%.%dg'", h->digits - 4, h->digits + 10,
                h->digits);
    fprintf(g, "\nset xrange [-0.5:%g]\nset yrange [-0.5:%g]\n", (double)ax->n - 0.5, (double)ay->n - 0.5);
    tics(g, "xtics", ax);
    tics(g, "ytics", ay);
    fprintf(g, "set tics out nomirror\n");
    if (ax->n > 8)
        fprintf(g, "set xtics rotate by -30\n");
    /* viridis: dark = small, bright = large */
    fprintf(g, "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')\n");
    double lo = h->vmin / h->u.ns, hi = h->vmax / h->u.ns;
    if (!(hi > lo)) { /* one value: a range around it */
        lo = lo * 0.99 - 1e-9;
        hi = hi * 1.01 + 1e-9;
    }
    fprintf(g, "set cbrange [%.9g:%.9g]\n", lo, hi);
    fprintf(g, "unset key\nplot ");
    plot_datafile(o);
    fprintf(g, " index 0 using 1:2:3 with image");
    if (labels)
        fprintf(g, ", \\\n  '' index 1 using 1:2:3:4 with labels tc rgb variable font ',9'");
    fprintf(g, "\n");
}

int plot_sweep(struct args *a)
{
    struct sweep s;
    struct plot_out o;
    struct heat_map h;
    int speedup = 0, rc = 1;
    memset(&h, 0, sizeof h);
    sweep_init(&s);
    plot_out_init(&o);
    if (parse_plot_sweep(a, &s, &o, &speedup) || model_cli_finish(&s.model, &s.base) || sweep_run(&s) ||
        heat_map_fill(&h, &s, speedup))
        goto out;
    /* The title names the model without the varied parameters. */
    unsigned varied = 0;
    for (int k = 0; k < s.naxes; k++)
        for (int q = 0; q < 2 && s.axes[k].n > 1; q++)
            varied |= s.axes[k].param[q] >= 0                  ? 1u << s.axes[k].param[q]
                      : s.axes[k].param[q] == SWEEP_AXIS_SCALE ? PLOT_VARIED_SCALE
                                                               : 0;
    char model_text[512], what[800], b1[32], b2[32];
    plot_model_text(model_text, sizeof model_text, &s.base, &s.model, varied);
    /* a network that is no axis (one topology, one mapping) belongs to the model's line */
    if (sweep_nnets(&s) == 1 && s.nets[0]) {
        size_t len = strlen(model_text);
        snprintf(model_text + len, sizeof model_text - len, "; %s", rt_network_describe(s.nets[0]));
    }
    snprintf(what, sizeof what, "retime plot sweep: %s over --%s x --%s, %s (%s)", h.figure, h.ax->name, h.ay->name,
             rt_trace_path(s.trace), model_text);
    printf("sweep of %s: %zu combinations (--%s x --%s), %s from ", rt_trace_path(s.trace), s.combos, h.ax->name,
           h.ay->name, h.figure);
    if (speedup)
        printf("%.4g to %.4g\n", h.vmin, h.vmax);
    else
        printf("%s to %s\n", rt_format_time(b1, sizeof b1, h.vmin), rt_format_time(b2, sizeof b2, h.vmax));
    if (plot_begin(&o, what))
        goto out;
    heat_map_script(&o, &h, model_text, heat_map_data(o.dat, &h));
    rc = plot_render(&o);
out:
    plot_out_close(&o);
    free(h.val);
    sweep_free(&s);
    return rc;
}
