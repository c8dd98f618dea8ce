/* SPDX-License-Identifier: MIT */
/*
 * Hockney's α and β from a trace's own messages (retime/calibrate.h): the sends and receives of
 * every rank in program order, matched per channel by sorting, the samples whose time is the
 * network's, pingpong's outlier cut per size, and a least-squares line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/calibrate.h"

/* One side of a message: the channel, its place on it, and its call's times. */
struct side {
    uint32_t src, dst, comm, tag;
    uint64_t seq;       /* its rank's program order */
    rt_time_ns enter;   /* its MPI call's entry */
    rt_time_ns done;    /* receives: the completion (blocking ones), else -1 */
    rt_bytes bytes;
    uint8_t sync;
};

struct sample {
    rt_bytes m;
    double ns;
};

static int cmp_side(const void *a, const void *b)
{
    const struct side *x = a, *y = b;
#define CMP(f)                                                                                                         \
    if (x->f != y->f)                                                                                                  \
        return x->f < y->f ? -1 : 1;
    CMP(src)
    CMP(dst)
    CMP(comm)
    CMP(tag)
    CMP(seq)
#undef CMP
    return 0;
}

static int cmp_sample(const void *a, const void *b)
{
    const struct sample *x = a, *y = b;
    if (x->m != y->m)
        return x->m < y->m ? -1 : 1;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 1024;
    void *w = realloc(*v, c * size);
    if (!w)
        return -1;
    *v = w;
    *cap = c;
    return 0;
}

/* Every rank's sends and receives (the posting order of its receives) with their calls' times. */
static int collect(const rt_trace *t, struct side **sp, size_t *ns, struct side **rp, size_t *nr)
{
    size_t cs = 0, cr = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t n, seq = 0;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        rt_time_ns enter = 0;
        int depth = 0;
        for (uint64_t i = 0; i < n; i++) {
            const struct rt_event *e = &ev[i];
            if (e->kind == RT_EV_ENTER && (e->flags & RT_EVF_MPI) && depth++ == 0)
                enter = e->time;
            else if (e->kind == RT_EV_LEAVE && (e->flags & RT_EVF_MPI) && depth > 0)
                depth--;
            int send = e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND;
            int recv = e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV_REQUEST;
            if ((!send && !recv) || (e->flags & RT_EVF_CANCELLED))
                continue;
            struct rt_event_payload p = rt_trace_payload(t, r, i);
            struct side s = {.src = send ? r : e->ref, .dst = send ? e->ref : r, .comm = (uint32_t)p.comm,
                             .tag = e->aux, .seq = seq++, .enter = depth ? enter : e->time, .done = -1,
                             .bytes = p.bytes, .sync = (e->flags & RT_EVF_SYNC) != 0};
            if (e->kind == RT_EV_RECV)
                s.done = e->time;
            if (send ? grow((void **)sp, &cs, *ns, sizeof **sp) : grow((void **)rp, &cr, *nr, sizeof **rp))
                return RT_ENOMEM;
            if (send)
                (*sp)[(*ns)++] = s;
            else
                (*rp)[(*nr)++] = s;
        }
    }
    return RT_OK;
}

/* Fits @p v (@p n samples, sorted by size) into @p f after the cut. */
static void fit(struct sample *v, size_t n, double cut, struct rt_calib_fit *f)
{
    memset(f, 0, sizeof *f);
    size_t keep = 0;
    for (size_t lo = 0; lo < n;) { /* per size: drop the samples above cut x its median */
        size_t hi = lo;
        while (hi < n && v[hi].m == v[lo].m)
            hi++;
        double med = (v[lo + (hi - lo - 1) / 2].ns + v[lo + (hi - lo) / 2].ns) / 2;
        size_t kept0 = keep;
        for (size_t i = lo; i < hi; i++)
            if (v[i].ns <= cut * med || med <= 0)
                v[keep++] = v[i];
        f->dropped += (hi - lo) - (keep - kept0);
        if (keep > kept0)
            f->sizes++;
        if (f->nsize < RT_CALIB_SIZES && keep > kept0) {
            struct rt_calib_size *z = &f->size[f->nsize++];
            z->bytes = v[lo].m;
            z->samples = keep - kept0;
            z->dropped = (hi - lo) - z->samples;
            z->median_ns = (v[kept0 + (keep - kept0 - 1) / 2].ns + v[kept0 + (keep - kept0) / 2].ns) / 2;
        }
        lo = hi;
    }
    f->samples = keep;
    if (keep < 3) {
        snprintf(f->why, sizeof f->why, "%zu sample%s: at least 3 are needed", keep, keep == 1 ? "" : "s");
        return;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < keep; i++) {
        double x = (double)v[i].m, y = v[i].ns;
        sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
    }
    double k = (double)keep, den = k * sxx - sx * sx;
    if (f->sizes < 2 || den <= 0) { /* one size: its median is the time there, no slope */
        f->alpha_ok = v[0].m == 0;
        f->alpha_ns = f->alpha_ok ? f->size[0].median_ns : 0;
        snprintf(f->why, sizeof f->why, "one message size only (%llu B): beta cannot be determined%s",
                 (unsigned long long)v[0].m, f->alpha_ok ? "" : ", nor alpha (no 0-byte messages)");
        return;
    }
    f->beta_ns_per_byte = (k * sxy - sx * sy) / den;
    f->alpha_ns = (sy - f->beta_ns_per_byte * sx) / k;
    f->alpha_ok = f->beta_ok = 1;
    double ss_res = 0, ss_tot = syy - sy * sy / k;
    double *res = malloc(keep * sizeof *res);
    for (size_t i = 0; i < keep; i++) {
        double r = v[i].ns - (f->alpha_ns + f->beta_ns_per_byte * (double)v[i].m);
        ss_res += r * r;
        if (res)
            res[i] = fabs(r);
        f->resid_max_ns = fabs(r) > f->resid_max_ns ? fabs(r) : f->resid_max_ns;
    }
    f->r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
    if (res) {
        qsort(res, keep, sizeof *res, cmp_double);
        f->resid_median_ns = (res[(keep - 1) / 2] + res[keep / 2]) / 2;
    }
    free(res);
    for (uint32_t i = 0; i < f->nsize; i++)
        f->size[i].beta_ns_per_byte =
            f->size[i].bytes ? (f->size[i].median_ns - f->alpha_ns) / (double)f->size[i].bytes : 0;
    if (!(f->beta_ns_per_byte >= 0)) { /* never a negative β: the times do not grow with the size */
        snprintf(f->why, sizeof f->why, "the times do not grow with the size (slope %.3g ns/B): beta cannot be "
                 "determined", f->beta_ns_per_byte);
        f->beta_ok = f->alpha_ok = 0;
        return;
    }
    if (f->alpha_ns < 0) {
        snprintf(f->why, sizeof f->why, "the line crosses 0 bytes below 0 ns (%.1f ns): alpha is set to 0",
                 f->alpha_ns);
        f->alpha_ns = 0;
    }
}

int rt_calibrate(const rt_trace *t, rt_bytes eager_limit, double cut_coef, struct rt_calibration *out,
                 rt_error *err)
{
    memset(out, 0, sizeof *out);
    struct side *s = NULL, *r = NULL;
    struct sample *eg = NULL, *rv = NULL;
    size_t ns = 0, nr = 0, neg = 0, nrv = 0, ceg = 0, crv = 0;
    int rc = collect(t, &s, &ns, &r, &nr);
    if (rc)
        goto done;
    if (ns) /* (qsort's array must not be NULL, even for no elements) */
        qsort(s, ns, sizeof *s, cmp_side);
    if (nr)
        qsort(r, nr, sizeof *r, cmp_side);
    size_t i = 0, j = 0;
    while (i < ns && j < nr) { /* channels in the same order on both sides: zip them */
        struct side a = s[i], b = r[j];
        a.seq = b.seq = 0;
        int c = cmp_side(&a, &b);
        if (c) {
            out->unmatched++;
            c < 0 ? i++ : j++;
            continue;
        }
        const struct side *x = &s[i++], *y = &r[j++];
        out->messages++;
        if (y->done < 0) /* a nonblocking receive: its wait is not the network's to tell */
            continue;
        int rdv = x->sync || x->bytes > eager_limit;
        if (!rdv && y->enter > x->enter) /* the receiver came later: a wait, not the network */
            continue;
        rt_time_ns from = rdv && y->enter > x->enter ? y->enter : x->enter;
        struct sample smp = {x->bytes, (double)(y->done - from)};
        if (smp.ns < 0) /* clocks out of sync */
            continue;
        if (rdv ? grow((void **)&rv, &crv, nrv, sizeof *rv) : grow((void **)&eg, &ceg, neg, sizeof *eg)) {
            rc = RT_ENOMEM;
            goto done;
        }
        if (rdv)
            rv[nrv++] = smp;
        else
            eg[neg++] = smp;
    }
    out->unmatched += (ns - i) + (nr - j);
    if (neg)
        qsort(eg, neg, sizeof *eg, cmp_sample);
    if (nrv)
        qsort(rv, nrv, sizeof *rv, cmp_sample);
    fit(eg, neg, cut_coef, &out->eager);
    fit(rv, nrv, cut_coef, &out->rendezvous);
done:
    free(s);
    free(r);
    free(eg);
    free(rv);
    return rc ? rt_error_set(err, rc, "%s: out of memory", rt_trace_path(t)) : RT_OK;
}
