/* SPDX-License-Identifier: MIT */
/*
 * retime plot shift: the Shift paper's Tables 2-6 as pictures. For a set of Shift traces, the
 * time per iteration measured (mean ± σ over ranks × iterations), as the replay predicts it
 * (mean) and as the paper's closed form gives it (eq. 1-3, analysis/src/closed_form/shift_model.c), against
 * m1 (one series per k) and against k (one series per m1).
 *
 * The Shift configuration is read from the trace, never from its file name: inside the first
 * instance of the iteration region (shift_iteration) on each rank, the dimension regions
 * shift_dim_x[, _y, _z] give dims; in each, the rank sends 2k messages of m_d bytes and receives
 * as many (k hops each way), with m_d = (2k+1)^(d-1)·m1; blocking synchronous sends (MPI_Ssend)
 * make the ssend mode, MPI_Isend the isend mode. Every rank must agree.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot_common.h"
#include "progress.h"
#include "retime/region_stats.h"
#include "retime/shift_model.h"
#include "retime/units.h"

#define MAX_TRACES 256

struct shift_cfg {
    int dims, k, synchronous;
    uint64_t m1;
};

/* What one trace gave. */
struct shift_point {
    const char *path;
    struct shift_cfg cfg;
    uint32_t ranks;
    uint64_t samples;             /* (rank, iteration) pairs */
    double measured_ns, measured_sd_ns, measured_min_ns;
    double predicted_ns;
    double closed_ns;             /* NAN without a closed form for the model */
};

/* ------------------------------------------------------------------ reading the configuration */

struct dim_count {
    uint64_t sends, recvs, bytes;
    int seen, sync_sends, async_sends, other_sends, mixed_sizes;
};

/* Reads rank @p r's configuration from its first instance of @p region. 1: read, 0: the rank
 * never enters the region, -1: not a Shift pattern (@p why says what). */
static int shift_rank(const rt_trace *t, uint32_t r, uint32_t region, const uint32_t dimreg[3], struct shift_cfg *c,
                      char *why, size_t n)
{
    uint64_t ne;
    const struct rt_event *ev = rt_trace_events(t, r, &ne);
    uint64_t i = 0;
    while (i < ne && !(ev[i].kind == RT_EV_ENTER && ev[i].ref == region))
        i++;
    if (i == ne)
        return 0;
    struct dim_count dc[3];
    memset(dc, 0, sizeof dc);
    int depth = 0, dim = -1, dim_depth = 0, order = 0, outside = 0;
    for (; i < ne; i++) {
        const struct rt_event *e = &ev[i];
        if (e->kind == RT_EV_ENTER || e->kind == RT_EV_LEAVE) {
            int enter = e->kind == RT_EV_ENTER;
            if (e->ref == region && (depth += enter ? 1 : -1) == 0)
                break;
            for (int d = 0; d < 3; d++)
                if (e->ref == dimreg[d]) {
                    if (enter && dim_depth++ == 0) {
                        if (dim != -1 || dc[d].seen) {
                            snprintf(why, n, "%s entered twice or nested in one iteration",
                                     rt_trace_region(t, dimreg[d])->name);
                            return -1;
                        }
                        if (d != order) {
                            snprintf(why, n, "dimension regions out of order (%s before shift_dim_%c)",
                                     rt_trace_region(t, dimreg[d])->name, "xyz"[order]);
                            return -1;
                        }
                        dim = d;
                        dc[d].seen = 1;
                        order++;
                    } else if (!enter && dim_depth > 0 && --dim_depth == 0) {
                        dim = -1;
                    }
                }
            continue;
        }
        int send = e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND;
        int recv = e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV;
        if (!(send || recv) || (e->flags & RT_EVF_CANCELLED)) {
            if (e->kind == RT_EV_COLL_BEGIN) {
                snprintf(why, n, "a collective (%s) inside the iteration", rt_coll_op_name((int)e->aux));
                return -1;
            }
            continue;
        }
        if (dim < 0) {
            outside++;
            continue;
        }
        struct dim_count *d = &dc[dim];
        rt_bytes bytes = rt_trace_payload(t, r, i).bytes;
        if (d->sends + d->recvs == 0)
            d->bytes = bytes;
        else if (bytes != d->bytes)
            d->mixed_sizes = 1;
        if (recv) {
            d->recvs++;
        } else {
            d->sends++;
            if (e->kind == RT_EV_SEND && (e->flags & RT_EVF_SYNC))
                d->sync_sends++;
            else if (e->kind == RT_EV_ISEND && !(e->flags & RT_EVF_SYNC))
                d->async_sends++;
            else
                d->other_sends++;
        }
    }
    if (i == ne) {
        snprintf(why, n, "the first %s never ends", rt_trace_region(t, region)->name);
        return -1;
    }
    if (!dc[0].seen) {
        snprintf(why, n, "no region shift_dim_x inside the first %s", rt_trace_region(t, region)->name);
        return -1;
    }
    if (outside) {
        snprintf(why, n, "%d messages inside %s but outside the shift_dim_* regions", outside,
                 rt_trace_region(t, region)->name);
        return -1;
    }
    c->dims = order;
    if (c->dims != 1 && c->dims != 3) {
        snprintf(why, n, "%d dimension regions (a Shift has 1 or 3)", c->dims);
        return -1;
    }
    uint64_t sends = dc[0].sends;
    if (sends == 0 || sends % 2 || sends > 2 * 1000000) {
        snprintf(why, n, "%" PRIu64 " sends in shift_dim_x (a Shift sends 2k, k each way)", sends);
        return -1;
    }
    c->k = (int)(sends / 2);
    c->m1 = dc[0].bytes;
    c->synchronous = dc[0].sync_sends > 0;
    uint64_t m = c->m1;
    for (int d = 0; d < c->dims; d++) {
        const struct dim_count *x = &dc[d];
        char dn[16];
        snprintf(dn, sizeof dn, "shift_dim_%c", "xyz"[d]);
        if (x->sends != sends || x->recvs != sends) {
            snprintf(why, n, "%s sends %" PRIu64 " and receives %" PRIu64 " messages (expected %" PRIu64 " each)", dn,
                     x->sends, x->recvs, sends);
            return -1;
        }
        if (x->mixed_sizes || x->bytes != m) {
            snprintf(why, n, "%s: messages of %" PRIu64 " B where (2k+1)^%d·m1 = %" PRIu64 " B are expected%s", dn,
                     x->bytes, d, m, x->mixed_sizes ? " (and of several sizes)" : "");
            return -1;
        }
        if (x->other_sends || (x->sync_sends && x->async_sends) || (c->synchronous ? x->async_sends : x->sync_sends)) {
            snprintf(why, n, "%s: sends are neither all MPI_Ssend nor all MPI_Isend", dn);
            return -1;
        }
        if (m > UINT64_MAX / (uint64_t)(2 * c->k + 1)) {
            snprintf(why, n, "message sizes overflow");
            return -1;
        }
        m *= (uint64_t)(2 * c->k + 1);
    }
    return 1;
}

/* The configuration all ranks agree on, or an error naming the trace and the rank. */
static int shift_detect(const rt_trace *t, uint32_t region, const char *region_name, struct shift_cfg *out,
                        rt_error *err)
{
    const char *path = rt_trace_path(t);
    if (region == RT_NONE)
        return rt_error_set(err, RT_EINVAL,
                            "%s: not a Shift trace: no region named '%s' (plot shift reads k, m1 and the mode from the "
                            "messages inside its first instance; --region names another)",
                            path, region_name);
    uint32_t dimreg[3];
    for (int d = 0; d < 3; d++) {
        char name[16];
        snprintf(name, sizeof name, "shift_dim_%c", "xyz"[d]);
        dimreg[d] = rt_trace_find_region(t, name);
    }
    if (dimreg[0] == RT_NONE)
        return rt_error_set(err, RT_EINVAL, "%s: not a Shift trace: no region named 'shift_dim_x'", path);
    for (int d = 0; d < 3; d++)
        if (dimreg[d] == region)
            return rt_error_set(err, RT_EINVAL,
                                "%s: '%s' is a dimension region: --region names the iteration region that holds "
                                "them (shift_iteration)",
                                path, region_name);
    uint32_t found = 0, first = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        struct shift_cfg c;
        char why[256];
        int rc = shift_rank(t, r, region, dimreg, &c, why, sizeof why);
        if (rc < 0)
            return rt_error_set(err, RT_EINVAL, "%s: not a Shift trace: rank %u: %s", path, r, why);
        if (rc == 0)
            continue;
        if (found++ == 0) {
            *out = c;
            first = r;
        } else if (c.dims != out->dims || c.k != out->k || c.m1 != out->m1 || c.synchronous != out->synchronous) {
            return rt_error_set(err, RT_EINVAL,
                                "%s: not a Shift trace: rank %u has dims=%d k=%d m1=%" PRIu64 " B %s, rank %u dims=%d "
                                "k=%d m1=%" PRIu64 " B %s",
                                path, first, out->dims, out->k, out->m1, out->synchronous ? "ssend" : "isend", r,
                                c.dims, c.k, c.m1, c.synchronous ? "ssend" : "isend");
        }
    }
    if (!found)
        return rt_error_set(err, RT_EINVAL, "%s: not a Shift trace: no rank enters region '%s'", path, region_name);
    return RT_OK;
}

/* ------------------------------------------------------------------ iteration times */

/* Per (rank, outermost instance of the region): measured and predicted durations, summarised
 * with Welford's update. */
struct samples {
    uint32_t region;
    uint32_t *depth;
    rt_time_ns *m0;
    rt_time_ps *p0;
    uint64_t n;
    double m_mean, m_m2, m_min, p_mean;
};

static void on_event(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted)
{
    struct samples *s = ud;
    (void)index;
    if ((ev->kind != RT_EV_ENTER && ev->kind != RT_EV_LEAVE) || ev->ref != s->region)
        return;
    if (ev->kind == RT_EV_ENTER) {
        if (s->depth[rank]++ == 0) {
            s->m0[rank] = ev->time;
            s->p0[rank] = predicted;
        }
        return;
    }
    if (s->depth[rank] == 0 || --s->depth[rank] != 0)
        return;
    double m = (double)(ev->time - s->m0[rank]), p = (double)(predicted - s->p0[rank]) / 1e3;
    s->n++;
    double d = m - s->m_mean;
    s->m_mean += d / (double)s->n;
    s->m_m2 += d * (m - s->m_mean);
    s->p_mean += (p - s->p_mean) / (double)s->n;
    if (s->n == 1 || m < s->m_min)
        s->m_min = m;
}

static int measure(const rt_trace *t, const struct rt_replay_options *o, uint32_t region, struct shift_point *pt,
                   rt_error *err)
{
    uint32_t nr = rt_trace_ranks(t);
    struct samples s = {.region = region};
    struct rt_replay_result *res = NULL;
    int rc = RT_ENOMEM;
    s.depth = calloc(nr, sizeof *s.depth);
    s.m0 = calloc(nr, sizeof *s.m0);
    s.p0 = calloc(nr, sizeof *s.p0);
    if (!s.depth || !s.m0 || !s.p0) {
        rt_error_set(err, RT_ENOMEM, "out of memory for %u ranks", nr);
        goto out;
    }
    struct rt_replay_observer obs = {.ud = &s, .on_event = on_event};
    if ((rc = rt_replay_run(t, o, &obs, &res, err)))
        goto out;
    pt->ranks = res->ranks;
    pt->samples = s.n;
    pt->measured_ns = s.m_mean;
    pt->measured_sd_ns = s.n > 1 ? sqrt(s.m_m2 / (double)(s.n - 1)) : 0;
    pt->measured_min_ns = s.m_min;
    pt->predicted_ns = s.p_mean;
    if (s.n == 0)
        rc = rt_error_set(err, RT_EINVAL, "%s: no instance of region '%s' completes", rt_trace_path(t),
                          rt_trace_region(t, region)->name);
out:
    rt_replay_result_destroy(res);
    free(s.depth);
    free(s.m0);
    free(s.p0);
    return rc;
}

/* ------------------------------------------------------------------ the plot */

static int cmp_point(const void *a, const void *b)
{
    const struct shift_point *x = a, *y = b;
    if (x->cfg.dims != y->cfg.dims)
        return x->cfg.dims - y->cfg.dims;
    if (x->cfg.synchronous != y->cfg.synchronous)
        return y->cfg.synchronous - x->cfg.synchronous;
    if (x->cfg.k != y->cfg.k)
        return x->cfg.k - y->cfg.k;
    return x->cfg.m1 < y->cfg.m1 ? -1 : x->cfg.m1 > y->cfg.m1;
}

static const char *mode_name(const struct shift_cfg *c) { return c->synchronous ? "ssend" : "isend"; }

/* A series: the points sharing dims, mode and (by_k ? m1 : k). The points are sorted by dims,
 * mode, k and m1, so a series' members, in the order of the array, ascend in its x value. */
static int same_series(const struct shift_cfg *a, const struct shift_cfg *b, int by_k)
{
    return a->dims == b->dims && a->synchronous == b->synchronous && (by_k ? a->m1 == b->m1 : a->k == b->k);
}

/* Fills @p key with the first point of each series; returns their number. */
static size_t make_series(const struct shift_point *pt, size_t np, int by_k, size_t *key)
{
    size_t ns = 0;
    for (size_t i = 0; i < np; i++) {
        size_t s = 0;
        while (s < ns && !same_series(&pt[key[s]].cfg, &pt[i].cfg, by_k))
            s++;
        if (s == ns)
            key[ns++] = i;
    }
    return ns;
}

static void series_label(char *buf, size_t n, const struct shift_cfg *c, int by_k, int show_kind)
{
    char kind[32] = "";
    if (show_kind)
        snprintf(kind, sizeof kind, "%dD %s, ", c->dims, mode_name(c));
    if (by_k)
        snprintf(buf, n, "%sm1 = %" PRIu64 " B", kind, c->m1);
    else
        snprintf(buf, n, "%sk = %d", kind, c->k);
}

/* One panel: x is m1 (log) or k; the styles: measured solid with filled circles and ±σ bars,
 * replay dashed with open squares, closed form dotted. */
static void panel(struct plot_out *o, const struct shift_point *pt, size_t np, const size_t *key, size_t ns,
                  int by_k, int block0, int show_kind, int have_closed, struct plot_unit u)
{
    FILE *g = o->gp;
    if (by_k) {
        int kmin = pt[0].cfg.k, kmax = pt[0].cfg.k;
        for (size_t i = 0; i < np; i++) {
            kmin = pt[i].cfg.k < kmin ? pt[i].cfg.k : kmin;
            kmax = pt[i].cfg.k > kmax ? pt[i].cfg.k : kmax;
        }
        fprintf(g, "unset logscale x\nset xrange [%g:%g]\nset xtics 1\nset mxtics 1\nset format x '%%g'\n", kmin - 0.5,
                kmax + 0.5);
        fprintf(g, "set xlabel 'k (neighbours per direction)'\n");
        fprintf(g, "set title 'against k'\n");
    } else {
        uint64_t lo = pt[0].cfg.m1, hi = pt[0].cfg.m1;
        for (size_t i = 0; i < np; i++) {
            lo = pt[i].cfg.m1 < lo ? pt[i].cfg.m1 : lo;
            hi = pt[i].cfg.m1 > hi ? pt[i].cfg.m1 : hi;
        }
        fprintf(g, "set logscale x 10\nset xrange [%g:%g]\nset xtics auto\nset mxtics 10\n",
                (double)(lo ? lo : 1) / 3, (double)(hi ? hi : 1) * 3);
        fprintf(g, "set format x '%%.0s%%cB'\n");
        fprintf(g, "set xlabel 'm1 (bytes per box)'\n");
        fprintf(g, "set title 'against m1'\n");
    }
    fprintf(g, "set ylabel 'time per iteration [%s]'\n", u.name);
    fprintf(g, "plot \\\n");
    for (size_t s = 0; s < ns; s++) {
        char label[96], x[64];
        const char *col = plot_colors[s % 8];
        int blk = block0 + (int)s;
        /* Series sharing an x value are set apart a little (dodged): by a factor on the log m1
         * axis, by a fraction of a step on the k axis. */
        double off = (double)s - (double)(ns - 1) / 2;
        if (by_k)
            snprintf(x, sizeof x, "($1%+.3f)", 0.07 * off);
        else
            snprintf(x, sizeof x, "($1*%.4f)", exp(0.07 * off));
        series_label(label, sizeof label, &pt[key[s]].cfg, by_k, show_kind);
        fprintf(g, "  ");
        plot_datafile(o);
        fprintf(g, " index %d using %s:2:3:4 with yerrorbars pt 7 ps 1.1 lw 1.2 lc rgb '%s' notitle, \\\n", blk, x,
                col);
        fprintf(g, "  '' index %d using %s:2 with lines lw 1.5 lc rgb '%s' title ", blk, x, col);
        plot_str(g, label);
        fprintf(g, ", \\\n");
        fprintf(g, "  '' index %d using %s:5 with linespoints dt 2 pt 4 ps 1.1 lw 1.5 lc rgb '%s' notitle, \\\n",
                blk, x, col);
        if (have_closed)
            fprintf(g, "  '' index %d using %s:6 with linespoints dt 3 pt 2 ps 1.1 lw 2 lc rgb '%s' notitle, \\\n",
                    blk, x, col);
    }
    /* The styles' legend, in grey. */
    fprintf(g, "  NaN with linespoints pt 7 lw 1.5 lc rgb '#555555' title 'measured (mean ± σ)', \\\n"
               "  NaN with linespoints dt 2 pt 4 lc rgb '#555555' title 'replay (mean)'%s\n",
            have_closed ? ", \\\n  NaN with linespoints dt 3 pt 2 lw 2 lc rgb '#555555' title 'closed form (eq. 1-3)'"
                        : "");
}

static void write_series_blocks(FILE *f, const struct shift_point *pt, size_t np, const size_t *key, size_t ns,
                                int by_k, struct plot_unit u)
{
    for (size_t s = 0; s < ns; s++) {
        char label[96];
        series_label(label, sizeof label, &pt[key[s]].cfg, by_k, 1);
        fprintf(f, "\n\n# series %s (against %s): %s measured_%s low high predicted closed_form\n", label,
                by_k ? "k" : "m1", by_k ? "k" : "m1_bytes", u.name);
        for (size_t i = 0; i < np; i++) {
            const struct shift_point *p = &pt[i];
            if (!same_series(&pt[key[s]].cfg, &p->cfg, by_k))
                continue;
            /* The bar is mean ± σ, cut at the fastest sample where σ reaches below it (log axis). */
            double lo = p->measured_ns - p->measured_sd_ns;
            if (lo < p->measured_min_ns)
                lo = p->measured_min_ns;
            if (by_k)
                fprintf(f, "%d", p->cfg.k);
            else
                fprintf(f, "%" PRIu64, p->cfg.m1);
            fprintf(f, " %.6g %.6g %.6g %.6g ", p->measured_ns / u.ns, lo / u.ns,
                    (p->measured_ns + p->measured_sd_ns) / u.ns, p->predicted_ns / u.ns);
            if (isnan(p->closed_ns))
                fprintf(f, "NaN\n");
            else
                fprintf(f, "%.6g\n", p->closed_ns / u.ns);
        }
    }
}

/* Prints the table, writes the data and the script and runs gnuplot; @p pt sorted by cmp_point,
 * @p by_m1 and @p by_k room for np series each. 0, or 1 after printing the error. */
static int draw_shift(struct plot_out *out, const struct shift_point *pt, size_t np, size_t *by_m1, size_t *by_k,
                      const char *region, const char *model_text, int have_closed)
{
    /* All traces of one kind (dims, mode): the kind goes into the title, not every label. */
    int show_kind = 0, same_ranks = 1;
    double ymax = 0, ymin = INFINITY;
    for (size_t i = 0; i < np; i++) {
        show_kind |= pt[i].cfg.dims != pt[0].cfg.dims || pt[i].cfg.synchronous != pt[0].cfg.synchronous;
        same_ranks &= pt[i].ranks == pt[0].ranks;
        double y = fmax(pt[i].measured_ns + pt[i].measured_sd_ns, fmax(pt[i].predicted_ns, pt[i].closed_ns));
        ymax = y > ymax ? y : ymax;
        y = fmin(fmax(pt[i].measured_ns - pt[i].measured_sd_ns, pt[i].measured_min_ns),
                 fmin(pt[i].predicted_ns, pt[i].closed_ns));
        ymin = y > 0 && y < ymin ? y : ymin;
    }
    struct plot_unit u = plot_time_unit(ymax);
    size_t nm1 = make_series(pt, np, 0, by_m1), nk = make_series(pt, np, 1, by_k);
    /* Both panels share the y range (log). The legend goes on top, inside: the data keep the
     * lower part of the height, the legend's lines (about 4.5% each) the upper. */
    if (!(ymin < INFINITY))
        ymin = ymax > 0 ? ymax / 10 : 1;
    if (!(ymax > ymin))
        ymax = ymin * 10;
    double ylo = ymin / 1.5, yhi = ymax * 1.5;
    size_t entries = (nm1 > nk ? nm1 : nk) + (have_closed ? 3 : 2);
    double key_share = 0.06 + 0.045 * (double)entries;
    key_share = key_share > 0.6 ? 0.6 : key_share;
    yhi = ylo * pow(yhi / ylo, 1 / (1 - key_share));

    printf("%-44s %4s %5s %3s %10s %6s %14s %12s %14s %14s\n", "trace", "dims", "mode", "k", "m1_bytes", "iters",
           "measured_ns", "sd_ns", "predicted_ns", "closed_ns");
    for (size_t i = 0; i < np; i++) {
        const struct shift_point *p = &pt[i];
        printf("%-44s %4d %5s %3d %10" PRIu64 " %6.1f %14.1f %12.1f %14.1f %14.1f\n", p->path, p->cfg.dims,
               mode_name(&p->cfg), p->cfg.k, p->cfg.m1, (double)p->samples / p->ranks, p->measured_ns,
               p->measured_sd_ns, p->predicted_ns, p->closed_ns);
    }

    char what[700];
    snprintf(what, sizeof what, "retime plot shift: time per %s, measured and predicted (%s)", region, model_text);
    if (plot_begin(out, what))
        return 1;
    FILE *f = out->dat, *g = out->gp;
    fprintf(f, "# times in %s; measured: mean and sd over every (rank, %s) pair; predicted: the replay's mean; "
               "closed_form: eq. 1-3 (NaN: not for this model)\n",
            u.name, region);
    fprintf(f, "# block 0: dims synchronous k m1_bytes ranks samples measured sd predicted closed_form\n");
    for (size_t i = 0; i < np; i++) {
        const struct shift_point *p = &pt[i];
        fprintf(f, "%d %d %d %" PRIu64 " %u %" PRIu64 " %.6g %.6g %.6g ", p->cfg.dims, p->cfg.synchronous, p->cfg.k,
                p->cfg.m1, p->ranks, p->samples, p->measured_ns / u.ns, p->measured_sd_ns / u.ns,
                p->predicted_ns / u.ns);
        if (isnan(p->closed_ns))
            fprintf(f, "NaN   # %s\n", p->path);
        else
            fprintf(f, "%.6g   # %s\n", p->closed_ns / u.ns, p->path);
    }
    write_series_blocks(f, pt, np, by_m1, nm1, 0, u);
    write_series_blocks(f, pt, np, by_k, nk, 1, u);

    char kind[64] = "";
    if (!show_kind)
        snprintf(kind, sizeof kind, "%dD %s, ", pt[0].cfg.dims, mode_name(&pt[0].cfg));
    char ranks[32] = "";
    if (same_ranks)
        snprintf(ranks, sizeof ranks, "%u ranks", pt[0].ranks);
    else
        snprintf(ranks, sizeof ranks, "several sizes");
    fprintf(g, "set multiplot layout 1,2 title ");
    plot_strf(g, "Shift (%s%s): time per %s, measured vs predicted\n%s", kind, ranks, region, model_text);
    fprintf(g, "\nset logscale y 10\nset grid xtics ytics mytics lc rgb '#dddddd'\nset format y '%%g'\n");
    fprintf(g, "set key top left Left reverse box opaque samplen 3 spacing 1.1 font ',9'\n");
    fprintf(g, "set yrange [%.6g:%.6g]\n", ylo / u.ns, yhi / u.ns);
    panel(out, pt, np, by_m1, nm1, 0, 1, show_kind, have_closed, u);
    panel(out, pt, np, by_k, nk, 1, 1 + (int)nm1, show_kind, have_closed, u);
    fprintf(g, "unset multiplot\n");
    return plot_render(out);
}

int plot_shift(struct args *a)
{
    struct model_cli model;
    struct plot_out out;
    struct rt_replay_options opts;
    const char *paths[MAX_TRACES];
    size_t np = 0;
    const char *region = "shift_iteration";
    struct shift_point *pt = NULL;
    size_t *by_m1 = NULL, *by_k = NULL; /* the series of each panel (their first points) */
    model_cli_init(&model);
    plot_out_init(&out);
    int rc = 1;
    for (a->i = 3; a->i < a->argc; a->i++) {
        const char *v, *arg = a->argv[a->i];
        int m = model_cli_option(a, &model);
        if (m == 0)
            m = plot_out_option(a, &out);
        if (m < 0)
            goto out;
        if (m > 0)
            continue;
        if (cli_opt(a, "--region", &v)) {
            if (!v || !*v) {
                cli_die("--region needs a region name");
                goto out;
            }
            region = v;
        } else if (arg[0] == '-' && arg[1]) {
            cli_die("unknown option '%s' for plot shift", arg);
            goto out;
        } else if (np == MAX_TRACES) {
            cli_die("plot shift: at most %d traces", MAX_TRACES);
            goto out;
        } else {
            paths[np++] = arg;
        }
    }
    if (np == 0) {
        cli_die("plot shift needs one or more Shift TRACEs");
        goto out;
    }
    if (plot_out_check(&out, "shift") || model_cli_no_network(&model, "plot shift") || model_cli_finish(&model, &opts))
        goto out;
    pt = calloc(np, sizeof *pt);
    by_m1 = calloc(np, sizeof *by_m1);
    by_k = calloc(np, sizeof *by_k);
    if (!pt || !by_m1 || !by_k) {
        cli_die("out of memory");
        goto out;
    }
    int have_closed = !strcmp(opts.model.ops->name, "hockney") && opts.model.params.nbeta == 0;
    struct progress *prog = progress_start("plot shift", "traces", np);
    for (size_t i = 0; i < np; i++) {
        rt_error err = {0};
        rt_trace *t = NULL;
        struct shift_point *p = &pt[i];
        memset(p, 0, sizeof *p);
        p->path = paths[i];
        int bad = cli_trace_open(paths[i], &t, &err) ||
                  shift_detect(t, rt_trace_find_region(t, region), region, &p->cfg, &err) ||
                  measure(t, &opts, rt_trace_find_region(t, region), p, &err);
        p->closed_ns = NAN;
        if (!bad && have_closed) {
            struct rt_shift_config sc = {p->cfg.dims, p->cfg.k, p->cfg.m1, p->cfg.synchronous};
            double ns;
            if (rt_shift_predict(&sc, opts.model.params.alpha_ns, opts.model.params.beta_ns_per_byte, &ns, NULL, NULL,
                                 &err) == RT_OK)
                p->closed_ns = ns;
            else
                bad = 1;
        }
        rt_trace_close(t);
        progress_add(prog, 1);
        if (bad) {
            progress_end(prog);
            cli_fail(&err);
            goto out;
        }
    }
    progress_end(prog);
    qsort(pt, np, sizeof *pt, cmp_point);
    char model_text[512];
    plot_model_text(model_text, sizeof model_text, &opts, &model, 0);
    rc = draw_shift(&out, pt, np, by_m1, by_k, region, model_text, have_closed);
out:
    plot_out_close(&out);
    free(pt);
    free(by_m1);
    free(by_k);
    model_cli_free(&model);
    return rc;
}
