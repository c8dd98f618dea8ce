/* SPDX-License-Identifier: MIT */
/*
 * Model parameters from traces' own messages (retime/calibrate.h): the sends and receives of
 * every rank in program order with their calls' times, matched per channel by sorting, the
 * samples whose time is the network's, pingpong's outlier cut per size, a least-squares line
 * (Hockney) and medians (LogP-lite's overheads and gap).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/calibrate.h"

/* One side of a message: the channel, its place on it, and its calls' times. */
struct side {
    uint32_t trace, src, dst, comm, tag;
    uint64_t seq;          /* its rank's program order */
    uint64_t ev;           /* its event (a receive request's: the request) */
    rt_time_ns enter;      /* the MPI call that sent or posted it: entry */
    rt_time_ns leave;      /* and leave */
    rt_time_ns done;       /* receives: the completion, -1 while unknown */
    rt_time_ns wait_enter; /* receives: the entry of the call that completed it */
    rt_bytes bytes;
    uint8_t sync, blocking;
    uint8_t waited;        /* receives: completed by a blocking receive, or by a wait completing it alone */
};

struct sample {
    rt_bytes m;
    double ns;
};

/* A small eager message whose receiver came after it: its receive call's time, for o_r once the
 * eager fit says whether it had arrived. */
struct late {
    rt_bytes m;
    double since_send; /* the receiver's ready time minus the send's entry */
    double in_call;    /* the completion minus the receiver's ready time */
};

struct vec {
    void *v;
    size_t n, cap;
};

static int push(struct vec *a, const void *x, size_t size)
{
    if (a->n == a->cap) {
        size_t c = a->cap ? 2 * a->cap : 1024;
        void *w = realloc(a->v, c * size);
        if (!w)
            return -1;
        a->v = w;
        a->cap = c;
    }
    memcpy((char *)a->v + a->n++ * size, x, size);
    return 0;
}

static int cmp_side(const void *a, const void *b)
{
    const struct side *x = a, *y = b;
#define CMP(f)                                                                                                         \
    if (x->f != y->f)                                                                                                  \
        return x->f < y->f ? -1 : 1;
    CMP(trace)
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

static int is_wait(const rt_trace *t, uint32_t region)
{
    const struct rt_region *g = region < rt_trace_regions(t) ? rt_trace_region(t, region) : NULL;
    return g && g->name && strncmp(g->name, "MPI_Wait", 8) == 0;
}

/* What one rank's current outermost MPI call holds, for its Leave. */
struct call {
    rt_time_ns enter;
    uint32_t region;
    size_t first_send;    /* sends made in it: [first_send, sends.n) */
    size_t done[4];       /* receives completed in it (the first four) */
    unsigned ndone;
    unsigned nsend, small_sends;
    int blocking_send;    /* its one send is a blocking eager small one */
};

/* The state of the LogP-lite sampling of one rank: the previous call, if it was one small send. */
struct prev_send {
    int valid;
    rt_time_ns enter, leave;
};

/* Every rank's sends and receives (the posting order of its receives) with their calls' times,
 * and the o_s and g samples of its send calls. */
static int collect(const rt_trace *t, uint32_t ti, const struct rt_calib_options *o, struct vec *sends,
                   struct vec *recvs, struct vec *os, struct vec *gap, uint64_t *colls)
{
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t n, seq = 0;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        size_t rfirst = recvs->n; /* this rank's receives, in event order */
        struct call c = {0};
        struct prev_send prev = {0};
        int depth = 0;
        for (uint64_t i = 0; i < n; i++) {
            const struct rt_event *e = &ev[i];
            if (e->kind == RT_EV_ENTER && (e->flags & RT_EVF_MPI)) {
                if (depth++ == 0) {
                    memset(&c, 0, sizeof c);
                    c.enter = e->time;
                    c.region = e->ref;
                    c.first_send = sends->n;
                }
                continue;
            }
            if (e->kind == RT_EV_LEAVE && (e->flags & RT_EVF_MPI) && depth > 0) {
                if (--depth)
                    continue;
                struct side *s = sends->v;
                for (size_t k = c.first_send; k < sends->n; k++)
                    s[k].leave = e->time;
                struct side *rv = recvs->v;
                int alone = c.ndone == 1 && (is_wait(t, c.region) || rv[c.done[0]].blocking);
                for (unsigned k = 0; k < c.ndone && k < 4; k++)
                    rv[c.done[k]].waited = (uint8_t)alone;
                if (c.ndone > 1)
                    for (unsigned k = 0; k < c.ndone && k < 4; k++)
                        rv[c.done[k]].waited = 2; /* several receives in one wait */
                /* LogP-lite: a call of one small send is o_s's (blocking eager) and, right after
                 * another such call, g's */
                int one_small = c.nsend == 1 && c.small_sends == 1 && c.ndone == 0;
                if (one_small && c.blocking_send) {
                    double d = (double)(e->time - c.enter);
                    if (d >= 0 && push(os, &d, sizeof d))
                        return RT_ENOMEM;
                }
                if (one_small && prev.valid && c.enter - prev.leave <= o->gap_ns && c.enter >= prev.leave) {
                    double d = (double)(c.enter - prev.enter);
                    if (push(gap, &d, sizeof d))
                        return RT_ENOMEM;
                }
                prev = (struct prev_send){one_small, c.enter, e->time};
                continue;
            }
            if (e->kind == RT_EV_COLL_BEGIN) {
                (*colls)++;
                prev.valid = 0;
                continue;
            }
            int send = e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND;
            int post = e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV_REQUEST;
            if (e->kind == RT_EV_IRECV && !(e->flags & RT_EVF_CANCELLED)) {
                /* the completion of a request posted earlier: binary search of this rank's receives */
                struct side *rv = recvs->v;
                size_t lo = rfirst, hi = recvs->n;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (rv[mid].ev < e->ref)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo < recvs->n && rv[lo].ev == e->ref) {
                    rv[lo].done = e->time;
                    rv[lo].wait_enter = depth ? c.enter : e->time;
                    if (depth && c.ndone < 4)
                        c.done[c.ndone] = lo;
                    c.ndone += depth > 0;
                }
                continue;
            }
            if ((!send && !post) || (e->flags & RT_EVF_CANCELLED))
                continue;
            struct rt_event_payload p = rt_trace_payload(t, r, i);
            rt_time_ns enter = depth ? c.enter : e->time;
            struct side s = {.trace = ti, .src = send ? r : e->ref, .dst = send ? e->ref : r,
                             .comm = (uint32_t)p.comm, .tag = e->aux, .seq = seq++, .ev = i, .enter = enter,
                             .leave = e->time, .done = -1, .wait_enter = enter, .bytes = p.bytes,
                             .sync = (e->flags & RT_EVF_SYNC) != 0,
                             .blocking = e->kind == RT_EV_SEND || e->kind == RT_EV_RECV};
            if (e->kind == RT_EV_RECV) {
                s.done = e->time;
                s.waited = 1;
                if (depth && c.ndone < 4)
                    c.done[c.ndone] = recvs->n;
                c.ndone += depth > 0;
            }
            if (send) {
                c.nsend++;
                if (s.bytes <= o->small_limit) {
                    c.small_sends++;
                    c.blocking_send = s.blocking && !s.sync && !(e->flags & RT_EVF_BUFFERED);
                }
            }
            if (push(send ? sends : recvs, &s, sizeof s))
                return RT_ENOMEM;
        }
    }
    return RT_OK;
}

/* Least squares through (@p x, @p y): slope *b and intercept *a; -1 when x does not vary. */
static int line(const double *x, const double *y, size_t n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = (double)n;
    for (size_t i = 0; i < n; i++)
        sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    double den = k * sxx - sx * sx;
    if (n < 2 || !(den > 0))
        return -1;
    *b = (k * sxy - sx * sy) / den;
    *a = (sy - *b * sx) / k;
    return 0;
}

/* Fits @p v (@p n samples, sorted by size) into @p f after the cut, as pingpong derives its
 * parameters (instrument/pingpong: alpha = T(0), beta = the least-squares slope of T(m) over the
 * sizes m > 0, one point per size): T(m) is each size's median; beta the slope through the
 * medians of the sizes above 0 (of all sizes when fewer than two are); alpha the median at 0
 * bytes, else the smallest size's median less beta times it when that size is at most @p small,
 * else the line's intercept. */
static int cmp_bytes(const void *a, const void *b)
{
    rt_bytes x = *(const rt_bytes *)a, y = *(const rt_bytes *)b;
    return x < y ? -1 : x > y;
}

/* Messages of size @p m among the sorted sizes @p all (@p n). */
static uint64_t count_size(const rt_bytes *all, size_t n, rt_bytes m)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (all[mid] < m)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t b = lo;
    for (hi = n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        if (all[mid] <= m)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - b;
}

static void fit(struct sample *v, size_t n, const rt_bytes *all, size_t nall, double cut, rt_bytes small,
                struct rt_calib_fit *f)
{
    size_t keep = 0, nsz = 0;
    double *mx = malloc((n ? n : 1) * sizeof *mx), *my = malloc((n ? n : 1) * sizeof *my);
    if (!mx || !my) {
        free(mx);
        free(my);
        snprintf(f->why, sizeof f->why, "out of memory");
        return;
    }
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
        uint64_t msgs = count_size(all, nall, v[lo].m);
        int thin = keep > kept0 && (double)(keep - kept0) < RT_CALIB_MIN_SHARE * (double)msgs;
        double med_kept = keep > kept0 ? (v[kept0 + (keep - kept0 - 1) / 2].ns + v[kept0 + (keep - kept0) / 2].ns) / 2 : 0;
        if (f->nsize < RT_CALIB_SIZES && keep > kept0) {
            struct rt_calib_size *z = &f->size[f->nsize++];
            z->bytes = v[lo].m;
            z->samples = keep - kept0;
            z->dropped = (hi - lo) - z->samples;
            z->messages = msgs;
            z->thin = thin;
            z->median_ns = med_kept;
        }
        if (thin) { /* its samples leave the fit */
            f->thin_sizes++;
            keep = kept0;
        } else if (keep > kept0) {
            f->sizes++;
            mx[nsz] = (double)v[lo].m;
            my[nsz++] = med_kept;
        }
        lo = hi;
    }
    f->samples = keep;
    double icpt = 0;
    int nonzero = nsz && mx[0] == 0 ? 1 : 0; /* the sizes above 0 start here */
    int ok = keep >= 3 && f->sizes >= 2 &&
             (nsz - (size_t)nonzero >= 2 ? line(mx + nonzero, my + nonzero, nsz - (size_t)nonzero, &icpt,
                                                &f->beta_ns_per_byte)
                                         : line(mx, my, nsz, &icpt, &f->beta_ns_per_byte)) == 0;
    double m0 = nsz ? mx[0] : 0, t0 = nsz ? my[0] : 0;
    free(mx);
    free(my);
    if (keep < 3) {
        snprintf(f->why, sizeof f->why, "%zu sample%s: at least 3 are needed", keep, keep == 1 ? "" : "s");
        return;
    }
    if (!ok) { /* one size: its median is the time there, no slope */
        f->alpha_ok = v[0].m == 0;
        f->alpha_ns = f->alpha_ok ? t0 : 0;
        snprintf(f->why, sizeof f->why, "one message size only (%llu B): beta cannot be determined%s",
                 (unsigned long long)v[0].m, f->alpha_ok ? "" : ", nor alpha (no 0-byte messages)");
        return;
    }
    if (!(f->beta_ns_per_byte >= 0)) { /* never a negative β: the times do not grow with the size */
        snprintf(f->why, sizeof f->why, "the times do not grow with the size (slope %.3g ns/B): beta cannot be "
                 "determined", f->beta_ns_per_byte);
        f->beta_ns_per_byte = 0;
        return;
    }
    f->alpha_ok = f->beta_ok = 1;
    if (m0 == 0 || m0 <= (double)small) {
        f->alpha_ns = t0 - f->beta_ns_per_byte * m0;
    } else {
        f->alpha_ns = icpt;
        snprintf(f->why, sizeof f->why, "no message of at most %llu B: alpha is the line's intercept",
                 (unsigned long long)small);
    }
    double ss_res = 0, sy = 0, syy = 0, k = (double)keep;
    double *res = malloc(keep * sizeof *res);
    for (size_t i = 0; i < keep; i++) {
        double r = v[i].ns - (f->alpha_ns + f->beta_ns_per_byte * (double)v[i].m);
        sy += v[i].ns, syy += v[i].ns * v[i].ns;
        ss_res += r * r;
        if (res)
            res[i] = fabs(r);
        f->resid_max_ns = fabs(r) > f->resid_max_ns ? fabs(r) : f->resid_max_ns;
    }
    double ss_tot = syy - sy * sy / k;
    f->r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
    if (res) {
        qsort(res, keep, sizeof *res, cmp_double);
        f->resid_median_ns = (res[(keep - 1) / 2] + res[keep / 2]) / 2;
    }
    free(res);
    for (uint32_t i = 0; i < f->nsize; i++)
        f->size[i].beta_ns_per_byte =
            f->size[i].bytes ? (f->size[i].median_ns - f->alpha_ns) / (double)f->size[i].bytes : 0;
    if (f->alpha_ns < 0) {
        snprintf(f->why, sizeof f->why, "the line crosses 0 bytes below 0 ns (%.1f ns): alpha is set to 0",
                 f->alpha_ns);
        f->alpha_ns = 0;
    }
}

/* One value: the median of @p v (@p n samples) after pingpong's cut, with its residuals. */
static void fit_value(double *v, size_t n, double cut, const char *what, struct rt_calib_value *f)
{
    if (n)
        qsort(v, n, sizeof *v, cmp_double);
    double med = n ? (v[(n - 1) / 2] + v[n / 2]) / 2 : 0;
    size_t keep = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] <= cut * med || med <= 0)
            v[keep++] = v[i];
    f->samples = keep;
    f->dropped = n - keep;
    if (keep < 3) {
        snprintf(f->why, sizeof f->why, "%zu sample%s of %s: at least 3 are needed", keep, keep == 1 ? "" : "s",
                 what);
        return;
    }
    f->ok = 1;
    f->ns = (v[(keep - 1) / 2] + v[keep / 2]) / 2;
    for (size_t i = 0; i < keep; i++) {
        v[i] = fabs(v[i] - f->ns);
        f->resid_max_ns = v[i] > f->resid_max_ns ? v[i] : f->resid_max_ns;
    }
    qsort(v, keep, sizeof *v, cmp_double);
    f->resid_median_ns = (v[(keep - 1) / 2] + v[keep / 2]) / 2;
}

/* LogP-lite from the eager fit, the send calls and the receives that came after their message. */
static int fit_logp(const struct rt_calibration *k, const struct rt_calib_options *o, struct vec *os,
                    struct vec *gap, const struct vec *late, struct rt_calib_logp *p)
{
    const struct rt_calib_fit *e = &k->eager;
    fit_value(os->v, os->n, o->cut_coef, "blocking eager sends of at most the small size", &p->o_s);
    fit_value(gap->v, gap->n, o->cut_coef, "back-to-back small sends", &p->g);
    if (p->g.ok && p->o_s.ok && p->g.ns <= 1.1 * p->o_s.ns)
        snprintf(p->g.why, sizeof p->g.why,
                 "the sends' interval is their own duration (o_s): g is at most this, not told apart from o_s");
    if (e->alpha_ok) { /* o_r: receives entered once T(m) had passed since the send */
        double *v = malloc((late->n ? late->n : 1) * sizeof *v);
        if (!v)
            return RT_ENOMEM;
        size_t nv = 0;
        const struct late *l = late->v;
        for (size_t i = 0; i < late->n; i++)
            if (l[i].since_send >= e->alpha_ns + e->beta_ns_per_byte * (double)l[i].m)
                v[nv++] = l[i].in_call;
        fit_value(v, nv, o->cut_coef, "small receives entered after their message had arrived", &p->o_r);
        free(v);
    } else {
        snprintf(p->o_r.why, sizeof p->o_r.why,
                 "not determined: whether a message had arrived is told from the eager alpha and beta, and they are not");
    }
    p->G_ok = e->beta_ok;
    p->G_ns_per_byte = e->beta_ok ? e->beta_ns_per_byte : 0;
    if (!e->beta_ok)
        snprintf(p->G_why, sizeof p->G_why, "not determined: G is the eager fit's slope (%.100s)",
                 e->why[0] ? e->why : "no eager fit");
    if (e->alpha_ok && p->o_s.ok && p->o_r.ok) {
        p->L.ok = 1;
        p->L.ns = e->alpha_ns - p->o_s.ns - p->o_r.ns;
        if (p->L.ns < 0) {
            snprintf(p->L.why, sizeof p->L.why, "alpha - o_s - o_r is %.1f ns: L is set to 0", p->L.ns);
            p->L.ns = 0;
        }
    } else {
        snprintf(p->L.why, sizeof p->L.why, "not determined: L is alpha - o_s - o_r and %s",
                 !e->alpha_ok ? "the eager alpha is not" : !p->o_s.ok ? "o_s is not" : "o_r is not");
    }
    return RT_OK;
}

void rt_calib_options_default(struct rt_calib_options *o)
{
    *o = (struct rt_calib_options){.eager_limit = 64 * 1024, .cut_coef = 2, .small_limit = 1024, .gap_ns = 1000};
}

int rt_calibrate_traces(const rt_trace *const *t, size_t ntr, const struct rt_calib_options *o,
                        struct rt_calibration *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    out->traces = (uint32_t)ntr;
    struct vec s = {0}, r = {0}, eg = {0}, rv = {0}, os = {0}, gap = {0}, late = {0}, meg = {0}, mrv = {0};
    int rc = RT_OK;
    for (size_t ti = 0; ti < ntr && !rc; ti++)
        rc = collect(t[ti], (uint32_t)ti, o, &s, &r, &os, &gap, &out->collectives);
    if (rc)
        goto done;
    if (s.n) /* (qsort's array must not be NULL, even for no elements) */
        qsort(s.v, s.n, sizeof(struct side), cmp_side);
    if (r.n)
        qsort(r.v, r.n, sizeof(struct side), cmp_side);
    size_t i = 0, j = 0;
    const struct side *sv = s.v, *rw = r.v;
    while (i < s.n && j < r.n) { /* channels in the same order on both sides: zip them */
        struct side a = sv[i], b = rw[j];
        a.seq = b.seq = 0;
        int c = cmp_side(&a, &b);
        if (c) {
            out->unmatched++;
            c < 0 ? i++ : j++;
            continue;
        }
        const struct side *x = &sv[i++], *y = &rw[j++];
        out->messages++;
        int rdv = x->sync || x->bytes > o->eager_limit;
        if (push(rdv ? &mrv : &meg, &x->bytes, sizeof x->bytes))
            goto nomem;
        /* the receiver is ready from the later of its posting and its wait's entry */
        rt_time_ns ready = y->wait_enter > y->enter ? y->wait_enter : y->enter;
        struct sample smp = {x->bytes, 0};
        struct vec *into = rdv ? &rv : &eg;
        struct rt_calib_fit *f = rdv ? &out->rendezvous : &out->eager;
        uint64_t *from_count;
        if (y->waited == 1 && y->done >= 0 && (rdv || ready <= x->enter)) {
            /* the receiver was ready when the send began (eager), or from the later of the two
             * (rendezvous): the completion is the data's arrival, which is where the replay's
             * rendezvous ends on both sides */
            rt_time_ns from = rdv && ready > x->enter ? ready : x->enter;
            smp.ns = (double)(y->done - from);
            from_count = y->blocking ? &f->from_recv : &f->from_wait;
        } else if (rdv && x->blocking && y->enter <= x->enter) {
            /* the receive was posted but its completion cannot tell (a late wait, MPI_Test): the
             * blocking rendezvous send's own time, handshake, data and acknowledgement */
            smp.ns = (double)(x->leave - x->enter);
            from_count = &f->from_send;
        } else {
            if (y->waited == 2)
                out->shared_wait++;
            else if (y->waited == 1 && y->done >= 0)
                out->late_receiver++;
            else
                out->not_waited++;
            /* o_r: a small eager message whose receiver came later, in a call that completes it alone */
            if (!rdv && y->waited == 1 && y->done >= 0 && x->bytes <= o->small_limit) {
                struct late l = {x->bytes, (double)(ready - x->enter), (double)(y->done - ready)};
                if (l.in_call >= 0 && push(&late, &l, sizeof l))
                    goto nomem;
            }
            continue;
        }
        if (smp.ns < 0) { /* clocks out of sync */
            out->backwards++;
            continue;
        }
        (*from_count)++;
        if (push(into, &smp, sizeof smp))
            goto nomem;
    }
    out->unmatched += (s.n - i) + (r.n - j);
    if (eg.n)
        qsort(eg.v, eg.n, sizeof(struct sample), cmp_sample);
    if (rv.n)
        qsort(rv.v, rv.n, sizeof(struct sample), cmp_sample);
    if (meg.n)
        qsort(meg.v, meg.n, sizeof(rt_bytes), cmp_bytes);
    if (mrv.n)
        qsort(mrv.v, mrv.n, sizeof(rt_bytes), cmp_bytes);
    fit(eg.v, eg.n, meg.v, meg.n, o->cut_coef, o->small_limit, &out->eager);
    fit(rv.v, rv.n, mrv.v, mrv.n, o->cut_coef, o->small_limit, &out->rendezvous);
    rc = fit_logp(out, o, &os, &gap, &late, &out->logp);
    goto done;
nomem:
    rc = RT_ENOMEM;
done:
    free(s.v);
    free(r.v);
    free(eg.v);
    free(rv.v);
    free(os.v);
    free(gap.v);
    free(late.v);
    free(meg.v);
    free(mrv.v);
    return rc ? rt_error_set(err, rc, "%s: out of memory", ntr ? rt_trace_path(t[0]) : "calibrate") : RT_OK;
}

int rt_calibrate(const rt_trace *t, rt_bytes eager_limit, double cut_coef, struct rt_calibration *out,
                 rt_error *err)
{
    struct rt_calib_options o;
    rt_calib_options_default(&o);
    o.eager_limit = eager_limit;
    o.cut_coef = cut_coef;
    return rt_calibrate_traces(&t, 1, &o, out, err);
}
