/* SPDX-License-Identifier: MIT */
/*
 * retime plot timeline: a Gantt chart of one replay, one row per rank: the MPI calls coloured by
 * function over a grey bar for the time between them (compute), and the critical path drawn
 * over it (rt_depgraph: each segment on its rank's row, a vertical step where it jumps ranks).
 * With --measured a second panel shows the measured run with its own critical path, for the
 * same events (the window is chosen in predicted time and mapped to the measured times of the
 * events inside it).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot_common.h"
#include "retime/depgraph.h"
#include "retime/units.h"

#define NAMED_CATEGORIES 7 /* MPI functions with their own colour; the rest are "other MPI" */

struct tl_cli {
    struct model_cli model;
    struct plot_out out;
    const char *path;
    int measured;
    int have_ranks;
    uint64_t r0, r1;
    int have_from, have_to;
    double from_ns, to_ns;
    const char *region;        /* --region NAME: the window spans its instances */
    int have_instances;
    uint64_t inst0, inst1;     /* --instances A-B */
    struct clock_fix_cli fix;  /* --fix-clocks */
};

static int parse_ranks(const char *v, uint64_t *a, uint64_t *b)
{
    char first[32];
    const char *dash = v ? strchr(v, '-') : NULL;
    if (!v || !*v)
        return -1;
    if (!dash)
        return cli_count(v, 0, UINT32_MAX - 1, a) || (*b = *a, 0);
    if ((size_t)(dash - v) >= sizeof first)
        return -1;
    memcpy(first, v, (size_t)(dash - v));
    first[dash - v] = '\0';
    if (cli_count(first, 0, UINT32_MAX - 1, a) || cli_count(dash + 1, 0, UINT32_MAX - 1, b) || *b < *a)
        return -1;
    return 0;
}

static int parse_timeline(struct args *a, struct tl_cli *c)
{
    memset(c, 0, sizeof *c);
    model_cli_init(&c->model);
    plot_out_init(&c->out);
    for (a->i = 3; a->i < a->argc; a->i++) {
        const char *v, *arg = a->argv[a->i];
        rt_error err = {0};
        int m = model_cli_option(a, &c->model);
        if (m == 0)
            m = plot_out_option(a, &c->out);
        if (m == 0)
            m = clock_fix_cli_option(a, &c->fix);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        if (!strcmp(arg, "--measured")) {
            c->measured = 1;
        } else if (cli_opt(a, "--ranks", &v)) {
            if (parse_ranks(v, &c->r0, &c->r1))
                return cli_die("bad --ranks '%s' (A or A-B, whole numbers with A <= B)", v ? v : "");
            c->have_ranks = 1;
        } else if (cli_opt(a, "--from", &v)) {
            if (!v || rt_parse_time_ns(v, &c->from_ns, &err))
                return cli_die("--from: %s", v ? err.msg : "needs a TIME (e.g. 20us)");
            c->have_from = 1;
        } else if (cli_opt(a, "--to", &v)) {
            if (!v || rt_parse_time_ns(v, &c->to_ns, &err))
                return cli_die("--to: %s", v ? err.msg : "needs a TIME (e.g. 60us)");
            c->have_to = 1;
        } else if (cli_opt(a, "--instances", &v)) {
            if (parse_ranks(v, &c->inst0, &c->inst1))
                return cli_die("bad --instances '%s' (A or A-B, whole numbers with A <= B)", v ? v : "");
            c->have_instances = 1;
        } else if (trace_cli_operand(a, &c->path, &c->region, "plot timeline")) {
            return 1;
        }
    }
    if (!c->path)
        return cli_die("plot timeline needs a TRACE");
    if (c->have_from && c->have_to && c->to_ns <= c->from_ns)
        return cli_die("--to must be later than --from");
    if (c->have_instances && !c->region)
        return cli_die("--instances needs --region NAME (the region whose instances set the window)");
    if (c->region && (c->have_from || c->have_to))
        return cli_die("--region and --from/--to both set the window: give one of them");
    return plot_out_check(&c->out, "timeline");
}

/* ------------------------------------------------------------------ the boxes */

struct category {
    uint32_t region; /* RT_NONE: "other MPI" */
    rt_time_ps total;
    uint64_t calls;
    int colour;      /* into plot_colors (category_colours) */
};

struct panel {
    const rt_depgraph *g;
    const struct rt_critical_path *cp;
    rt_time_ps lo, hi; /* the window */
    struct plot_unit u;
    const char *label; /* "predicted" or "measured" */
};

/* Time @p t as an x coordinate: in the panel's unit, from the window's start. */
static double px(const struct panel *p, rt_time_ps t) { return (double)(t - p->lo) / (p->u.ns * 1e3); }

/* Calls @p fn for every outermost MPI call of rank @p r in @p g: its region and times. */
typedef void (*call_fn)(void *ud, uint32_t rank, uint32_t region, rt_time_ps a, rt_time_ps b);

static int each_call(const rt_trace *t, const rt_depgraph *g, uint32_t r, call_fn fn, void *ud, rt_error *err)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(t, r, &n);
    int depth = 0;
    uint32_t region = RT_NONE;
    rt_time_ps start = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (ev[i].kind != RT_EV_ENTER && ev[i].kind != RT_EV_LEAVE)
            continue;
        const struct rt_region *reg = ev[i].ref < rt_trace_regions(t) ? rt_trace_region(t, ev[i].ref) : NULL;
        if (!reg || !reg->is_mpi)
            continue;
        struct rt_dep_event de;
        int rc = rt_depgraph_event(g, r, i, &de, err);
        if (rc)
            return rc;
        if (ev[i].kind == RT_EV_ENTER) {
            if (depth++ == 0) {
                start = de.t;
                region = ev[i].ref;
            }
        } else if (depth > 0 && --depth == 0) {
            fn(ud, r, region, start, de.t);
        }
    }
    return RT_OK;
}

/* The end of the last MPI_Init and the start of the last MPI_Finalize over the ranks. */
struct init_fini {
    const rt_trace *t;
    rt_time_ps init_end, fini_begin;
};

static void find_init_fini(void *ud, uint32_t rank, uint32_t region, rt_time_ps a, rt_time_ps b)
{
    struct init_fini *f = ud;
    const char *name = rt_trace_region(f->t, region)->name;
    (void)rank;
    if ((!strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread")) && b > f->init_end)
        f->init_end = b;
    if (!strcmp(name, "MPI_Finalize") && a > f->fini_begin)
        f->fini_begin = a;
}

struct totals {
    uint32_t nregions;
    rt_time_ps *by_region; /* time in the window */
    uint64_t *calls;       /* calls that meet the window (a call may take no time) */
    rt_time_ps lo, hi;
};

static void add_total(void *ud, uint32_t rank, uint32_t region, rt_time_ps a, rt_time_ps b)
{
    struct totals *s = ud;
    (void)rank;
    if (b < s->lo || a > s->hi || region >= s->nregions)
        return;
    s->by_region[region] += (b < s->hi ? b : s->hi) - (a > s->lo ? a : s->lo);
    s->calls[region]++;
}

/* Boxes of one category on one rank, merged when less than eps apart (sub-pixel). */
struct box_writer {
    FILE *f;
    const struct panel *p;
    uint32_t want; /* the category's region, RT_NONE for "other" */
    const uint8_t *named; /* [regions]: has its own category */
    rt_time_ps eps;
    int open;
    rt_time_ps a, b;
    uint32_t rank;
    uint64_t written, calls;
};

static void flush_box(struct box_writer *w)
{
    if (!w->open)
        return;
    fprintf(w->f, "%.6f %.6f %u\n", px(w->p, w->a), px(w->p, w->b), w->rank);
    w->written++;
    w->open = 0;
}

static void add_box(void *ud, uint32_t rank, uint32_t region, rt_time_ps a, rt_time_ps b)
{
    struct box_writer *w = ud;
    int mine = w->want == RT_NONE ? !w->named[region] : region == w->want;
    if (!mine || b < w->p->lo || a > w->p->hi)
        return;
    w->calls++;
    if (w->open && w->rank == rank && a - w->b <= w->eps) {
        if (b > w->b)
            w->b = b;
        return;
    }
    flush_box(w);
    w->open = 1;
    w->rank = rank;
    w->a = a;
    w->b = b;
}

/* ------------------------------------------------------------------ the panels */

/* Writes a panel's data blocks from block @p *block on: the ranks' spans, one block per
 * category, the critical path; and its plot command. Returns RT_OK or an error. */
static int write_panel(struct plot_out *o, const rt_trace *t, const struct panel *p, const struct category *cat,
                       int ncat, const uint8_t *named, uint32_t r0, uint32_t r1, int *block, int legend,
                       uint64_t *calls, uint64_t *boxes, rt_error *err)
{
    FILE *f = o->dat, *g = o->gp;
    int b_span = (*block)++;
    /* Blocks are separated by two blank lines (gnuplot's "index"); none before the first. */
    fprintf(f, "%s# %s: span of each rank (first to last event): from to rank [%s since the window's start]\n",
            b_span ? "\n\n" : "", p->label, p->u.name);
    for (uint32_t r = r0; r <= r1; r++) {
        uint64_t n;
        struct rt_dep_event first, last;
        rt_trace_events(t, r, &n);
        if (n == 0)
            continue;
        int rc = rt_depgraph_event(p->g, r, 0, &first, err);
        if (!rc)
            rc = rt_depgraph_event(p->g, r, n - 1, &last, err);
        if (rc)
            return rc;
        fprintf(f, "%.6f %.6f %u\n", px(p, first.t), px(p, last.t), r);
    }
    int b_cat[NAMED_CATEGORIES + 1];
    for (int c = 0; c < ncat; c++) {
        b_cat[c] = (*block)++;
        const char *name = cat[c].region == RT_NONE ? "other MPI calls" : rt_trace_region(t, cat[c].region)->name;
        fprintf(f, "\n\n# %s: ", p->label);
        cli_text(f, name, 0); /* a line break in the name would end the comment */
        fprintf(f, ": from to rank [%s since the window's start]\n", p->u.name);
        struct box_writer w = {.f = f, .p = p, .want = cat[c].region, .named = named};
        w.eps = (p->hi - p->lo) / (rt_time_ps)(4 * o->width);
        for (uint32_t r = r0; r <= r1; r++) {
            int rc = each_call(t, p->g, r, add_box, &w, err);
            if (rc)
                return rc;
        }
        flush_box(&w);
        if (!w.written) /* gnuplot warns about empty blocks: a point outside the window stands in */
            fprintf(f, "NaN NaN NaN\n");
        *boxes += w.written;
        *calls += w.calls;
    }
    int b_path = (*block)++;
    fprintf(f, "\n\n# %s: critical path: time rank [%s since the window's start] (a segment on each rank, steps "
               "where it changes rank)\n",
            p->label, p->u.name);
    /* Segments are in time order and each begins where the previous one ended, so the ones
     * that meet the window form one connected piece. */
    uint64_t drawn = 0;
    for (uint64_t s = 0; s < p->cp->nseg; s++) {
        const struct rt_cp_segment *sg = &p->cp->seg[s];
        if (sg->end_ps < p->lo || sg->begin_ps > p->hi)
            continue;
        fprintf(f, "%.6f %u\n%.6f %u\n", px(p, sg->begin_ps), sg->rank, px(p, sg->end_ps), sg->rank);
        drawn++;
    }
    if (drawn == 0)
        fprintf(f, "NaN NaN\n");

    char since[40] = "";
    if (p->lo > 0) {
        char t0[32];
        snprintf(since, sizeof since, " since %s", rt_format_time(t0, sizeof t0, (double)p->lo / 1e3));
    }
    fprintf(g, "set xrange [0:%.6f]\n", px(p, p->hi));
    fprintf(g, "set xlabel '%s time%s [%s]'\n", p->label, since, p->u.name);
    fprintf(g, "plot ");
    plot_datafile(o);
    fprintf(g, " index %d using (($1+$2)/2):3:1:2:($3-0.32):($3+0.32) with boxxyerror fs solid 1.0 noborder "
               "lc rgb '#d9d9d9' %s, \\\n",
            b_span, legend ? "title 'compute'" : "notitle");
    for (int c = 0; c < ncat; c++) {
        const char *col = cat[c].region == RT_NONE ? "#8c8c8c" : plot_colors[cat[c].colour];
        fprintf(g, "  '' index %d using (($1+$2)/2):3:1:2:($3-0.32):($3+0.32) with boxxyerror fs solid 1.0 noborder "
                   "lc rgb '%s' ",
                b_cat[c], col);
        if (legend) {
            fprintf(g, "title ");
            plot_str(g, cat[c].region == RT_NONE ? "other MPI calls" : rt_trace_region(t, cat[c].region)->name);
        } else {
            fprintf(g, "notitle");
        }
        fprintf(g, ", \\\n");
    }
    fprintf(g, "  '' index %d using 1:2 with lines lw 2 lc rgb '#000000' %s", b_path,
            legend ? "title 'critical path'" : "notitle");
    fprintf(g, "\n");
    return RT_OK;
}

static int cmp_cat(const void *a, const void *b)
{
    const struct category *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return x->region < y->region ? -1 : x->region > y->region;
}

/* What the timeline is drawn from. */
struct timeline {
    const rt_trace *t;
    uint32_t r0, r1;                  /* rows drawn */
    rt_depgraph *g, *gm;              /* predicted and (--measured) measured timings */
    const struct rt_critical_path *cp, *cpm;
    struct rt_measured_info info;
    rt_time_ps end;                   /* the predicted run's end */
    struct panel pp, pm;              /* predicted and measured panels */
    struct category cat[NAMED_CATEGORIES + 1];
    int ncat;
    uint8_t *named;                   /* [regions]: has its own category */
};

/* The window in predicted time: --from/--to, or the instances of --region, or by default from the
 * end of the last rank's MPI_Init to the start of the last rank's MPI_Finalize (start-up and
 * tear-down dwarf the rest). */
static int choose_window(const struct tl_cli *c, struct timeline *tl, rt_error *err)
{
    const rt_trace *t = tl->t;
    struct init_fini ifn = {.t = t, .init_end = 0, .fini_begin = -1};
    int rc;
    for (uint32_t r = tl->r0; r <= tl->r1; r++)
        if ((rc = each_call(t, tl->g, r, find_init_fini, &ifn, err)))
            return rc;
    rt_time_ps lo = c->have_from ? rt_ns_to_ps(c->from_ns) : ifn.init_end;
    rt_time_ps hi = c->have_to ? rt_ns_to_ps(c->to_ns) : ifn.fini_begin > lo ? ifn.fini_begin : tl->end;
    if (c->region) {
        /* From the first Enter of instance A to the last Leave of instance B over the ranks. */
        uint32_t reg = rt_trace_find_region(t, c->region);
        if (reg == RT_NONE || !rt_trace_region_entered(t, reg)) {
            return cli_region_error(err, t, reg, c->region);
        }
        uint64_t ninst = 0;
        lo = INT64_MAX;
        hi = INT64_MIN;
        for (uint32_t r = tl->r0; r <= tl->r1; r++) {
            uint64_t n, inst = 0;
            int depth = 0;
            const struct rt_event *ev = rt_trace_events(t, r, &n);
            for (uint64_t i = 0; i < n; i++) {
                if ((ev[i].kind != RT_EV_ENTER && ev[i].kind != RT_EV_LEAVE) || ev[i].ref != reg)
                    continue;
                int enter = ev[i].kind == RT_EV_ENTER;
                if (!(enter ? depth++ == 0 : depth > 0 && --depth == 0))
                    continue; /* not an outermost boundary */
                if (!c->have_instances || (inst >= c->inst0 && inst <= c->inst1)) {
                    struct rt_dep_event de;
                    if ((rc = rt_depgraph_event(tl->g, r, i, &de, err)))
                        return rc;
                    lo = enter && de.t < lo ? de.t : lo;
                    hi = !enter && de.t > hi ? de.t : hi;
                }
                inst += !enter;
            }
            ninst = inst > ninst ? inst : ninst;
        }
        if (lo > hi && c->have_instances)
            return rt_error_set(err, RT_EINVAL,
                                "region '%s' has %" PRIu64 " instances (0-%" PRIu64 ") on ranks %u-%u, not %" PRIu64
                                "-%" PRIu64,
                                c->region, ninst, ninst ? ninst - 1 : 0, tl->r0, tl->r1, c->inst0, c->inst1);
        if (lo > hi)
            return rt_error_set(err, RT_EINVAL, "region '%s' has no complete instance on ranks %u-%u", c->region,
                                tl->r0, tl->r1);
    }
    if (lo >= tl->end && tl->end > 0) {
        char b1[32], b2[32];
        return rt_error_set(err, RT_EINVAL, "--from %s is not before the predicted end (%s)",
                            rt_format_time(b1, sizeof b1, c->from_ns),
                            rt_format_time(b2, sizeof b2, (double)tl->end / 1e3));
    }
    if (hi <= lo)
        hi = lo + 1000;
    tl->pp = (struct panel){.g = tl->g, .cp = tl->cp, .lo = lo, .hi = hi, .label = "predicted"};
    tl->pp.u = plot_time_unit((double)(hi - lo) / 1e3);
    if (!tl->gm)
        return RT_OK;
    /* The measured window: the measured times of the events inside the predicted one. */
    rt_time_ps mlo = INT64_MAX, mhi = INT64_MIN;
    for (uint32_t r = tl->r0; r <= tl->r1; r++) {
        uint64_t n;
        rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++) {
            struct rt_dep_event ep, em;
            if ((rc = rt_depgraph_event(tl->g, r, i, &ep, err)) || (rc = rt_depgraph_event(tl->gm, r, i, &em, err)))
                return rc;
            if (ep.t < lo || ep.t > hi)
                continue;
            mlo = em.t < mlo ? em.t : mlo;
            mhi = em.t > mhi ? em.t : mhi;
        }
    }
    if (mlo > mhi)
        return rt_error_set(err, RT_EINVAL, "no events of ranks %u-%u in the window", tl->r0, tl->r1);
    tl->pm = (struct panel){.g = tl->gm, .cp = tl->cpm, .lo = mlo, .hi = mhi > mlo ? mhi : mlo + 1000,
                            .label = "measured"};
    tl->pm.u = plot_time_unit((double)(tl->pm.hi - mlo) / 1e3);
    return RT_OK;
}

/* An MPI function's own colour, the same in every plot: the common ones by a table (a family
 * shares one: the waits, the sends, the receives), the others by their name's hash. */
static int preferred_colour(const char *name)
{
    static const struct {
        const char *name;
        int colour;
    } fixed[] = {{"MPI_Allreduce", 0}, {"MPI_Wait", 1},    {"MPI_Waitall", 1},   {"MPI_Waitany", 1},
                 {"MPI_Waitsome", 1},  {"MPI_Send", 2},    {"MPI_Isend", 2},     {"MPI_Ssend", 2},
                 {"MPI_Recv", 3},      {"MPI_Irecv", 3},   {"MPI_Barrier", 4},   {"MPI_Bcast", 5},
                 {"MPI_Alltoall", 5},  {"MPI_Reduce", 6},  {"MPI_Sendrecv", 6},  {"MPI_Allgather", 0}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(name, fixed[i].name))
            return fixed[i].colour;
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *s = name; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return (int)(h % NAMED_CATEGORIES);
}

/* Colours of the named categories, in order of importance: each its function's own colour, or,
 * when a more important one shown took it, the next free one (NAMED_CATEGORIES colours for at
 * most as many categories: there always is one). */
static void category_colours(const rt_trace *t, struct category *cat, int ncat)
{
    int taken[NAMED_CATEGORIES] = {0};
    for (int c = 0; c < ncat; c++) {
        if (cat[c].region == RT_NONE)
            continue;
        int k = preferred_colour(rt_trace_region(t, cat[c].region)->name);
        while (taken[k])
            k = (k + 1) % NAMED_CATEGORIES;
        taken[k] = 1;
        cat[c].colour = k;
    }
}

/* Categories: the MPI functions with the most time in the window (then the most calls: a call
 * may take no time) get their own colours, the rest share "other MPI calls". */
static int choose_categories(struct timeline *tl, rt_error *err)
{
    uint32_t nreg = rt_trace_regions(tl->t);
    struct totals tot = {.nregions = nreg, .lo = tl->pp.lo, .hi = tl->pp.hi};
    struct category *all = NULL;
    int rc = RT_ENOMEM;
    tot.by_region = calloc(nreg ? nreg : 1, sizeof *tot.by_region);
    tot.calls = calloc(nreg ? nreg : 1, sizeof *tot.calls);
    all = calloc(nreg ? nreg : 1, sizeof *all);
    tl->named = calloc(nreg ? nreg : 1, 1);
    if (!tot.by_region || !tot.calls || !all || !tl->named) {
        rt_error_set(err, RT_ENOMEM, "out of memory for %u regions", nreg);
        goto out;
    }
    for (uint32_t r = tl->r0; r <= tl->r1; r++)
        if ((rc = each_call(tl->t, tl->g, r, add_total, &tot, err)))
            goto out;
    size_t nused = 0;
    for (uint32_t i = 0; i < nreg; i++)
        if (tot.calls[i] > 0)
            all[nused++] = (struct category){i, tot.by_region[i], tot.calls[i], 0};
    qsort(all, nused, sizeof *all, cmp_cat);
    tl->ncat = 0;
    for (size_t i = 0; i < nused && i < NAMED_CATEGORIES; i++) {
        tl->cat[tl->ncat++] = all[i];
        tl->named[all[i].region] = 1;
    }
    if (nused > NAMED_CATEGORIES)
        tl->cat[tl->ncat++] = (struct category){RT_NONE, 0, 0, 0};
    category_colours(tl->t, tl->cat, tl->ncat);
    rc = RT_OK;
out:
    free(tot.by_region);
    free(tot.calls);
    free(all);
    return rc;
}

/* Writes the data and the script and runs gnuplot. 0, or 1 after printing the error. */
static int draw(struct tl_cli *c, struct timeline *tl, const struct rt_replay_options *opts)
{
    rt_error err = {0};
    char model_text[512], what[800], b1[32], b2[32], b3[32];
    plot_model_text(model_text, sizeof model_text, opts, &c->model, 0);
    snprintf(what, sizeof what, "retime plot timeline: %s, ranks %u-%u (%s)", rt_trace_path(tl->t), tl->r0, tl->r1,
             model_text);
    if (plot_begin(&c->out, what))
        return 1;
    FILE *gp = c->out.gp;
    uint32_t nrows = tl->r1 - tl->r0 + 1;
    fprintf(gp, "set multiplot layout %d,1 title ", tl->gm ? 2 : 1);
    char tp[128], title[1024], wrapped[1200];
    size_t cols = plot_title_width(c->out.width);
    snprintf(title, sizeof title, "Timeline of %s, ranks %u-%u\n%s",
             plot_title_path(tp, sizeof tp, c->path, cols < 70 ? cols : 70), tl->r0, tl->r1, model_text);
    plot_title_wrap(wrapped, sizeof wrapped, title, cols);
    plot_str(gp, wrapped);
    fprintf(gp, "\nset yrange [%g:%g]\nset ylabel 'rank'\n", (double)tl->r1 + 0.6, (double)tl->r0 - 0.6);
    /* At most 16 rank labels on a panel (8 with two panels), so that they do not overlap. */
    uint32_t most = tl->gm ? 8 : 16;
    fprintf(gp, "set ytics %u\nset mytics 1\n", (nrows + most - 1) / most);
    fprintf(gp, "set grid xtics lc rgb '#eeeeee'\nset clip two\nset clip one\n");
    /* Fixed margins keep the panels aligned; the legend sits in the right margin. */
    fprintf(gp, "set lmargin at screen 0.08\nset rmargin at screen 0.76\n");
    /* one column: a second one would run past the right edge (beside two panels, at the default size) */
    fprintf(gp, "set key at screen 0.77, screen %.3f left top Left reverse samplen 2 font ',9' maxcols 1\n",
            tl->gm ? 0.86 : 0.83);
    int block = 0;
    uint64_t boxes = 0, calls = 0, mboxes = 0, mcalls = 0;
    fprintf(gp, "set title 'predicted' offset 0,-0.5\n");
    if (write_panel(&c->out, tl->t, &tl->pp, tl->cat, tl->ncat, tl->named, tl->r0, tl->r1, &block, 1, &calls, &boxes,
                    &err))
        return cli_fail(&err);
    if (tl->gm) {
        char mt[200] = "measured";
        if (tl->info.violations)
            snprintf(mt, sizeof mt, "measured (%" PRIu64 " messages received before sent: clocks out of sync)",
                     tl->info.violations);
        fprintf(gp, "set title ");
        plot_str(gp, mt);
        fprintf(gp, " offset 0,-0.5\n");
        if (write_panel(&c->out, tl->t, &tl->pm, tl->cat, tl->ncat, tl->named, tl->r0, tl->r1, &block, 0, &mcalls,
                        &mboxes, &err))
            return cli_fail(&err);
    }
    fprintf(gp, "unset multiplot\n");
    printf("timeline of %s, ranks %u-%u: predicted %s to %s (the run ends at %s), %" PRIu64
           " MPI calls drawn as %" PRIu64 " boxes (neighbours closer than a pixel merged), critical path of %" PRIu64
           " segments\n",
           rt_trace_path(tl->t), tl->r0, tl->r1, rt_format_time(b1, sizeof b1, (double)tl->pp.lo / 1e3),
           rt_format_time(b2, sizeof b2, (double)tl->pp.hi / 1e3), rt_format_time(b3, sizeof b3, (double)tl->end / 1e3),
           calls, boxes, tl->cp->nseg);
    return plot_render(&c->out);
}

int plot_timeline(struct args *a)
{
    struct tl_cli c;
    struct rt_replay_options opts;
    struct timeline tl;
    rt_error err = {0};
    rt_trace *t = NULL;
    int rc = 1;
    memset(&tl, 0, sizeof tl);
    if (parse_timeline(a, &c) || model_cli_finish(&c.model, &opts))
        goto out;
    if (cli_trace_open(c.path, &t, &err) || clock_fix_cli_apply(&c.fix, t, opts.eager_limit, &err))
        goto fail;
    if (model_cli_network(&c.model, &opts, t)) /* --topology and the window, as replay takes them */
        goto out;
    if (c.fix.on) {
        printf("clock fix: ");
        clock_fix_cli_text(stdout, &c.fix);
        printf("\n");
    }
    tl.t = t;
    uint32_t nr = rt_trace_ranks(t);
    if (nr == 0) {
        rt_error_set(&err, RT_EINVAL, "%s: the trace has no ranks", rt_trace_path(t));
        goto fail;
    }
    if (c.have_ranks && c.r1 >= nr) {
        rt_error_set(&err, RT_EINVAL, "--ranks %" PRIu64 "-%" PRIu64 ": the trace has ranks 0-%u", c.r0, c.r1, nr - 1);
        goto fail;
    }
    tl.r0 = c.have_ranks ? (uint32_t)c.r0 : 0;
    tl.r1 = c.have_ranks ? (uint32_t)c.r1 : nr - 1;
    if (cli_replay_graph(t, &opts, &tl.g, NULL, "plot timeline", &err) ||
        rt_depgraph_critical_path(tl.g, &tl.cp, &err))
        goto fail;
    tl.end = rt_depgraph_end(tl.g);
    if (c.measured &&
        (rt_depgraph_measured(t, tl.g, &tl.gm, &tl.info, &err) || rt_depgraph_critical_path(tl.gm, &tl.cpm, &err)))
        goto fail;
    if (choose_window(&c, &tl, &err) || choose_categories(&tl, &err))
        goto fail;
    rc = draw(&c, &tl, &opts);
    goto out;
fail:
    cli_fail(&err);
out:
    plot_out_close(&c.out);
    free(tl.named);
    rt_depgraph_destroy(tl.gm);
    rt_depgraph_destroy(tl.g);
    rt_trace_close(t);
    model_cli_free(&c.model);
    return rc;
}
