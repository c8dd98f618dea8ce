/* SPDX-License-Identifier: MIT */
/*
 * Rank extrapolation (retime/extrapolate.h): the traces of one SPMD program at several rank
 * counts, recognised as functions of (r, P).
 *
 * 1. Rank classes: each rank's events, without peers, sizes and times, are its skeleton; the
 *    first class rule (one class; rank 0 apart; parity; rank 0 and parity) under which the ranks
 *    of a class have one skeleton and one set of sizes within each trace is the program's. Across
 *    traces a class's skeletons may differ by whole iterations of one loop (find_loop), whose
 *    count is fitted like a size. Each class's template is its first rank in the largest trace,
 *    with one iteration of the loop.
 * 2. Peers: every rule of a short list (a ring offset, a periodic 2D or 3D grid neighbour, a fixed
 *    rank) is tried on every rank of the class in every trace; the first that holds everywhere
 *    is the event's (narrowed to what another class holds for the same event). A split
 *    communicator's members likewise (a grid line, a block, a stride).
 * 3. Sizes: c0 + c1·P^a·log2(P)^b, exact to the byte at every traced P, the simplest that fits.
 * 4. Compute: per class and pair of consecutive events' labels (call or region), the mean gap
 *    over ranks and occurrences at each P, fitted by c·P^a·log2(P)^b (Extra-P's family).
 * 5. Set-up calls without records are aligned over the classes when written (extrap_write.c).
 * O(events of all traces); the model holds the largest trace's templates (about 80 B an event).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extrap_internal.h"

static const double EXPS[] = {0, 1, -1, 0.5, -0.5, 2, 1.0 / 3, -1.0 / 3, 2.0 / 3, -2.0 / 3, 1.5, -1.5};
#define NEXPS (sizeof EXPS / sizeof EXPS[0])

uint32_t rt__xp_class(int rule, uint32_t r)
{
    switch (rule) {
    case XC_ROOT:
        return r != 0;
    case XC_PARITY:
        return r % 2;
    case XC_ROOT_PARITY:
        return r == 0 ? 0 : r % 2 ? 1 : 2;
    }
    return 0;
}

static const char *class_rule_text(int rule)
{
    static const char *const t[] = {"one class", "rank 0 and the others", "even and odd ranks",
                                    "rank 0, odd ranks, the other even ranks"};
    return t[rule];
}

void rt__xp_dims(uint32_t P, int n, uint32_t dims[3])
{
    uint32_t f[32], nf = 0, x = P;
    for (uint32_t p = 2; (uint64_t)p * p <= x; p++)
        while (x % p == 0) {
            f[nf++] = p;
            x /= p;
        }
    if (x > 1)
        f[nf++] = x;
    for (int i = 0; i < 3; i++)
        dims[i] = 1;
    for (uint32_t i = nf; i-- > 0;) { /* largest factor first, to the smallest dimension so far */
        int m = 0;
        for (int d = 1; d < n; d++)
            if (dims[d] < dims[m])
                m = d;
        dims[m] *= f[i];
    }
    for (int i = 0; i < n; i++) /* non-increasing */
        for (int j = i + 1; j < n; j++)
            if (dims[j] > dims[i]) {
                uint32_t t = dims[i];
                dims[i] = dims[j];
                dims[j] = t;
            }
}

/* Rank @p r's coordinate along @p p's dimension of its grid at @p P. */
static uint32_t coord_of(const struct xp_peer *p, uint32_t r, uint32_t P)
{
    uint32_t dims[3], x = r, c = 0;
    rt__xp_dims(P, p->ndims, dims);
    for (int s = 0; s < p->ndims; s++) { /* from the fastest dimension */
        int i = p->xfast ? s : p->ndims - 1 - s;
        if (i == p->dim)
            c = x % dims[i];
        x /= dims[i];
    }
    return c;
}

uint32_t rt__xp_peer_of(const struct xp_peer *p, uint32_t r, uint32_t P)
{
    switch (p->kind) {
    case XP_OFFSET: {
        int64_t q = ((int64_t)r + p->d) % (int64_t)P;
        return (uint32_t)(q < 0 ? q + P : q);
    }
    case XP_GRID: {
        uint32_t dims[3], c[3], x = r;
        rt__xp_dims(P, p->ndims, dims);
        int n = p->ndims;
        for (int s = 0; s < n; s++) { /* from the fastest dimension */
            int i = p->xfast ? s : n - 1 - s;
            c[i] = x % dims[i];
            x /= dims[i];
        }
        int64_t v = ((int64_t)c[p->dim] + p->d) % (int64_t)dims[p->dim];
        c[p->dim] = (uint32_t)(v < 0 ? v + dims[p->dim] : v);
        uint32_t q = 0;
        for (int s = n; s-- > 0;) { /* from the slowest */
            int i = p->xfast ? s : n - 1 - s;
            q = q * dims[i] + c[i];
        }
        return q;
    }
    case XP_FIXED:
        return p->d < (int64_t)P ? (uint32_t)p->d : UINT32_MAX;
    }
    return UINT32_MAX;
}

uint32_t rt__xp_members(const struct xp_group *g, uint32_t r, uint32_t P, uint32_t *out, uint32_t max)
{
    uint32_t n = 0;
    switch (g->kind) {
    case XG_WORLD:
        for (uint32_t q = 0; q < P; q++, n++)
            if (out && n < max)
                out[n] = q;
        return n;
    case XG_BLOCK:
    case XG_STRIDE:
        if (!g->m || P % g->m)
            return UINT32_MAX;
        for (uint32_t i = 0; i < (g->kind == XG_BLOCK ? g->m : P / g->m); i++, n++)
            if (out && n < max)
                out[n] = g->kind == XG_BLOCK ? r / g->m * g->m + i : r % g->m + i * g->m;
        return n;
    case XG_LINE: { /* r's line along dim: step through that coordinate from 0 */
        struct xp_peer step = {XP_GRID, g->ndims, g->dim, g->xfast, 1};
        uint32_t dims[3], q = r;
        rt__xp_dims(P, g->ndims, dims);
        for (uint32_t i = 0; i < dims[g->dim]; i++) /* back to coordinate 0 */
            if (coord_of(&step, q, P) != 0)
                q = rt__xp_peer_of(&(struct xp_peer){XP_GRID, g->ndims, g->dim, g->xfast, -1}, q, P);
        for (uint32_t i = 0; i < dims[g->dim]; i++, n++) {
            if (out && n < max)
                out[n] = q;
            q = rt__xp_peer_of(&step, q, P);
        }
        return n;
    }
    }
    return UINT32_MAX;
}

double rt__xp_eval(const struct xp_fit *f, double P)
{
    double l = log2(P);
    return f->c0 + f->c1 * pow(P, f->a) * (f->b ? pow(l, f->b) : 1);
}

static double term(double P, double a, double b)
{
    return pow(P, a) * (b ? pow(log2(P), b) : 1);
}

/* ------------------------------------------------------------------ reading */

static int has_peer(int kind)
{
    return kind == RT_EV_SEND || kind == RT_EV_ISEND || kind == RT_EV_RECV || kind == RT_EV_IRECV_REQUEST;
}

static int has_bytes(int kind)
{
    return has_peer(kind) || kind == RT_EV_COLL_BEGIN || kind == RT_EV_COLL_END || kind == RT_EV_NBCOLL_BEGIN ||
           kind == RT_EV_NBCOLL_END;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv(h, s ? s : "", strlen(s ? s : "") + 1);
}

/* World row @p row's rank in communicator @p comm (the row itself when not a member or RT_NONE). */
static uint32_t comm_rank(const rt_trace *t, uint32_t comm, uint32_t row)
{
    const struct rt_comm *c = rt_trace_comm(t, comm);
    if (c && c->members && row < c->size && c->members[row] == row)
        return row; /* (every rank in order: no search) */
    for (uint32_t i = 0; c && c->members && row != RT_NONE && i < c->size; i++)
        if (c->members[i] == row)
            return i;
    return row;
}

/* An event's part of the skeleton: what must be the same on every rank of a class at every P. */
static uint64_t skeleton(const rt_trace *t, uint32_t r, const struct rt_event *ev, uint64_t k, uint64_t h)
{
    const struct rt_event *e = &ev[k];
    uint32_t kind = e->kind, flags = e->flags;
    h = fnv(h, &kind, sizeof kind);
    h = fnv(h, &flags, sizeof flags);
    if (kind == RT_EV_ENTER || kind == RT_EV_LEAVE) {
        h = fnv_str(h, e->ref < rt_trace_regions(t) ? rt_trace_region(t, e->ref)->name : "?");
        if (kind == RT_EV_ENTER && e->aux != RT_NONE && e->aux < rt_trace_callsites(t)) {
            const struct rt_callsite *cs = rt_trace_callsite(t, e->aux);
            h = fnv_str(fnv_str(h, cs->function), cs->file);
            h = fnv(h, &cs->line, sizeof cs->line);
        }
        return h;
    }
    if (has_peer(kind))
        h = fnv(h, &e->aux, sizeof e->aux); /* the tag */
    if (kind == RT_EV_COLL_BEGIN || kind == RT_EV_NBCOLL_END)
        h = fnv(h, &e->aux, sizeof e->aux); /* the operation */
    if (kind == RT_EV_COLL_BEGIN || kind == RT_EV_NBCOLL_BEGIN) { /* the root, as a rank of its communicator */
        uint32_t root = comm_rank(t, rt_trace_payload(t, r, k).comm, e->ref);
        h = fnv(h, &root, sizeof root);
    }
    if (kind == RT_EV_ISEND_COMPLETE || kind == RT_EV_IRECV || kind == RT_EV_COLL_END || kind == RT_EV_NBCOLL_END) {
        uint64_t back = k - e->ref;
        h = fnv(h, &back, sizeof back);
    }
    if (has_bytes(kind)) { /* the communicator's name without the number a tracer gives each instance */
        const struct rt_comm *c = rt_trace_comm(t, rt_trace_payload(t, r, k).comm);
        const char *nm = c && c->name ? c->name : "?";
        size_t len = strlen(nm), cut = len;
        while (cut > 0 && nm[cut - 1] >= '0' && nm[cut - 1] <= '9')
            cut--;
        if (cut < len && cut > 0 && nm[cut - 1] == ' ')
            len = cut - 1;
        h = fnv(h, nm, len);
    }
    return h;
}

static uint64_t sizes(const rt_trace *t, uint32_t r, const struct rt_event *ev, uint64_t k, uint64_t h)
{
    if (!has_bytes(ev[k].kind))
        return h;
    uint64_t b = rt_trace_payload(t, r, k).bytes;
    return fnv(h, &b, sizeof b);
}

/* ------------------------------------------------------------------ fitting */

/* Sizes and iteration counts: exact at every point, the simplest form first. 0 on success. */
static int fit_exact(const double *P, const double *v, int n, struct xp_fit *f)
{
    int same = 1;
    for (int i = 1; i < n; i++)
        same &= v[i] == v[0];
    if (same) {
        *f = (struct xp_fit){v[0], 0, 0, 0, 0};
        return 0;
    }
    for (int two = 0; two < 2; two++) /* c1·x first, then c0 + c1·x */
        for (int b = 0; b < 3; b++)
            for (size_t ia = 0; ia < NEXPS; ia++) {
                double a = EXPS[ia];
                if ((a == 0 && b == 0) || (a < 0 && b > 0))
                    continue; /* (P^-a·log(P)^b rises and falls: it would fit a bump in three points) */
                double sx = 0, sy = 0, sxx = 0, sxy = 0, c0 = 0, c1;
                for (int i = 0; i < n; i++) {
                    double x = term(P[i], a, b);
                    sx += x, sy += v[i], sxx += x * x, sxy += x * v[i];
                }
                if (!two) {
                    c1 = sxx > 0 ? sxy / sxx : 0;
                } else {
                    double d = n * sxx - sx * sx;
                    if (n < 3 || fabs(d) < 1e-12 * sxx * n)
                        continue; /* two points hold any line: not evidence */
                    c1 = (n * sxy - sx * sy) / d;
                    c0 = (sy - c1 * sx) / n;
                }
                int ok = 1; /* to the byte where an integer division may floor (N/P bytes), else exact:
                             * small counts (iterations 3, 4, 5) within a half would admit 1.27·√P */
                for (int i = 0; i < n && ok; i++)
                    ok = fabs(c0 + c1 * term(P[i], a, b) - v[i]) <= (v[i] >= 64 ? 0.5 : 1e-6) + 1e-9 * v[i];
                if (ok) {
                    int fl = 1; /* floored where it is not exact: an integer division */
                    for (int i = 0; i < n; i++)
                        fl &= floor(c0 + c1 * term(P[i], a, b) + 1e-9) == v[i];
                    *f = (struct xp_fit){c0, c1, a, b, fl};
                    return 0;
                }
            }
    return -1;
}

/* Compute: c·P^a·log2(P)^b by least squares on the relative error; *err its relative RMS error. */
static void fit_time(const double *P, const double *v, int n, enum rt_scaling sc, struct xp_fit *f, double *err)
{
    double best = HUGE_VAL, mean = 0;
    for (int i = 0; i < n; i++)
        mean += v[i] / n;
    *f = (struct xp_fit){0, mean, 0, 0, 0};
    for (int b = 0; b < 3; b++)
        for (size_t ia = 0; ia < NEXPS; ia++) {
            double a = EXPS[ia], sxx = 0, sxy = 0, e = 0;
            if (sc == RT_SCALING_WEAK && (a != 0 || b != 0))
                continue;
            /* auto: from three or four noisy points only the terms of a halo or a tree (|a| <= 1,
             * one log), and only when the constant misses by more than 10 % */
            if (sc == RT_SCALING_AUTO && (b > 1 || fabs(a) > 1 || (a != 0 && fabs(a) != 1 && fabs(a) != 0.5)))
                continue;
            if (sc == RT_SCALING_AUTO && (a != 0 || b != 0) && best <= 0.10)
                continue;
            for (int i = 0; i < n; i++) { /* weights 1/v²: each point's relative error counts alike */
                double x = term(P[i], a, b), w = v[i] > 0 ? 1 / (v[i] * v[i]) : 1;
                sxx += w * x * x, sxy += w * x * v[i];
            }
            double c = sxx > 0 ? sxy / sxx : 0;
            for (int i = 0; i < n; i++) {
                double d = c * term(P[i], a, b) - v[i];
                e += v[i] > 0 ? d * d / (v[i] * v[i]) : (d != 0);
            }
            e = sqrt(e / n);
            /* auto: a term must halve the constant's error to be taken (noise fits anything) */
            double need = sc == RT_SCALING_AUTO && !(a == 0 && b == 0) ? 0.5 : 1;
            if (e < best * need || (a == 0 && b == 0 && best == HUGE_VAL)) {
                best = e;
                *f = (struct xp_fit){0, c, a, b, 0};
            }
        }
    *err = best;
}

/* ------------------------------------------------------------------ build */

static int oom(rt_error *err)
{
    return rt_error_set(err, RT_ENOMEM, "out of memory");
}

struct ctx {
    const rt_trace *const *t; /* ascending P */
    size_t n;
    rt_error *err;
};

static int refuse(struct ctx *c, size_t i, uint32_t r, uint64_t k, const char *what)
{
    const rt_trace *t = c->t[i];
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(t, r, &n);
    char name[300] = "?";
    for (uint64_t j = k + 1; j-- > 0 && ev;) /* the call or region it is in, and its call site */
        if (j < n && ev[j].kind == RT_EV_ENTER) {
            const struct rt_callsite *cs = ev[j].aux < rt_trace_callsites(t) ? rt_trace_callsite(t, ev[j].aux) : NULL;
            if (cs)
                snprintf(name, sizeof name, "%s at %s:%u in %s", rt_trace_region(t, ev[j].ref)->name, cs->file,
                         cs->line, cs->function);
            else
                snprintf(name, sizeof name, "%s", rt_trace_region(t, ev[j].ref)->name);
            break;
        }
    return rt_error_set(c->err, RT_EUNSUPPORTED, "%s (%u ranks): rank %u event %llu (%s): %s", rt_trace_path(t),
                        rt_trace_ranks(t), rt_trace_rank_label(t, r), (unsigned long long)k, name, what);
}

/* Whether every rank's communicators used are world-like; the first offender refused. */
static int world_like(const rt_trace *t, uint32_t comm)
{
    const struct rt_comm *c = rt_trace_comm(t, comm);
    if (!c || !c->members || c->size != rt_trace_ranks(t))
        return 0;
    for (uint32_t i = 0; i < c->size; i++)
        if (c->members[i] != i)
            return 0;
    return 1;
}

/* The class rule: the first under which the ranks of a class have one skeleton and one set of
 * sizes within each trace; refused when none does. skel[i][r], szs[i][r]: rank r of trace i. */
static int find_rule(struct ctx *c, uint64_t *const *skel, uint64_t *const *szs, int *rule)
{
    for (int ru = 0; ru < XC_NRULES; ru++) {
        int ok = 1;
        for (size_t i = 0; i < c->n && ok; i++) { /* (across traces the loop's alignment checks them) */
            uint64_t want[XC_MAX] = {0}, swant[XC_MAX] = {0};
            int have[XC_MAX] = {0}, shave[XC_MAX] = {0};
            for (uint32_t r = 0; r < rt_trace_ranks(c->t[i]) && ok; r++) {
                uint32_t k = rt__xp_class(ru, r);
                if (!have[k])
                    want[k] = skel[i][r], have[k] = 1;
                if (!shave[k])
                    swant[k] = szs[i][r], shave[k] = 1;
                ok = want[k] == skel[i][r] && swant[k] == szs[i][r];
            }
        }
        if (ok) {
            *rule = ru;
            return 0;
        }
    }
    /* refused: the first rank that differs from rank 0's class-mates under the last rule */
    for (size_t i = 0; i < c->n; i++)
        for (uint32_t r = 1; r < rt_trace_ranks(c->t[i]); r++) {
            uint32_t k = rt__xp_class(XC_ROOT_PARITY, r), r0 = k == 1 ? 1 : 2;
            if (r0 < rt_trace_ranks(c->t[i]) && r != r0 && (skel[i][r] != skel[i][r0] || szs[i][r] != szs[i][r0])) {
                char what[200];
                snprintf(what, sizeof what,
                         "its calls or sizes differ from rank %u's: ranks in roles other than rank 0 and even/odd are "
                         "not extrapolated",
                         rt_trace_rank_label(c->t[i], r0));
                return refuse(c, i, r, 0, what);
            }
        }
    /* across traces: the first class whose calls change with P */
    for (size_t i = 1; i < c->n; i++)
        for (uint32_t r = 0; r < rt_trace_ranks(c->t[0]); r++) {
            uint64_t n0, n1;
            rt_trace_events(c->t[0], r, &n0);
            rt_trace_events(c->t[i], r, &n1);
            if (skel[i][r] == skel[0][r])
                continue;
            char what[300];
            snprintf(what, sizeof what,
                     "its calls differ from rank %u's at %u ranks (%llu events there, %llu here): a program whose "
                     "calls change with P (iteration counts, algorithms) is not extrapolated yet",
                     rt_trace_rank_label(c->t[0], r), rt_trace_ranks(c->t[0]), (unsigned long long)n0,
                     (unsigned long long)n1);
            return refuse(c, i, r, 0, what);
        }
    return rt_error_set(c->err, RT_EUNSUPPORTED, "%s: its ranks' calls differ in a way no class rule explains",
                        rt_trace_path(c->t[0]));
}

/* A rank's events as tokens: each its skeleton (what must repeat). NULL out of memory. */
static uint64_t *tokens(const rt_trace *t, uint32_t r, uint64_t *n)
{
    const struct rt_event *ev = rt_trace_events(t, r, n);
    uint64_t *v = malloc((*n ? *n : 1) * sizeof *v);
    for (uint64_t j = 0; v && j < *n; j++)
        v[j] = skeleton(t, r, ev, j, 1469598103934665603ull);
    return v;
}

/* Class @p k's loop: the traces' calls must be the largest trace's with whole iterations of one
 * block more or fewer; found from the trace that differs most, checked on every other. */
static int find_loop(struct ctx *c, struct rt_extrap *x, uint32_t k)
{
    struct xp_loop *lp = &x->loop[k];
    uint64_t *tok[RT_EXTRAP_MAX_TRACES] = {0}, nt[RT_EXTRAP_MAX_TRACES] = {0};
    uint32_t rep[RT_EXTRAP_MAX_TRACES];
    size_t L = c->n - 1;
    int rc = RT_OK;
    for (size_t i = 0; i < c->n && !rc; i++) {
        uint32_t P = rt_trace_ranks(c->t[i]), r = 0;
        while (r < P && rt__xp_class(x->rule, r) != k)
            r++;
        rep[i] = r;
        if (r < P && !(tok[i] = tokens(c->t[i], r, &nt[i])))
            rc = oom(c->err);
    }
    size_t a = SIZE_MAX; /* the present trace whose length differs most from the largest's */
    for (size_t i = 0; i < L && !rc; i++)
        if (tok[i] && (nt[i] != nt[L] || memcmp(tok[i], tok[L], nt[L] * sizeof **tok)) &&
            (a == SIZE_MAX || llabs((long long)nt[i] - (long long)nt[L]) > llabs((long long)nt[a] - (long long)nt[L])))
            a = i;
    if (rc || a == SIZE_MAX || !tok[L])
        goto done; /* the same calls at every P: no loop */
    const uint64_t *A = tok[a], *B = tok[L];
    uint64_t na = nt[a], nb = nt[L];
    size_t lng = nb > na ? L : a; /* the longer one */
    const uint64_t *Lg = tok[lng], *Sh = lng == L ? A : B;
    uint64_t nl = nt[lng], ns = lng == L ? na : nb, d = nl - ns, pre = 0;
    char what[320];
    if (na == nb)
        goto differ;
    while (pre < ns && Lg[pre] == Sh[pre])
        pre++;
    /* one block of d events inserted at pre, a whole number of iterations of a period p */
    if (memcmp(Sh + pre, Lg + pre + d, (ns - pre) * sizeof *Sh))
        goto differ;
    uint64_t p = d;
    for (uint64_t q = 1; q < d; q++) {
        if (d % q)
            continue;
        uint64_t j = pre;
        while (j + q < pre + d && Lg[j] == Lg[j + q])
            j++;
        if (j + q == pre + d) {
            p = q;
            break;
        }
    }
    uint64_t st = pre, en = pre + d; /* the periodic stretch around the block */
    while (st > 0 && st - 1 + p < nl && Lg[st - 1] == Lg[st - 1 + p])
        st--;
    while (en < nl && Lg[en] == Lg[en - p])
        en++;
    uint64_t clong = (en - st) / p;
    lp->s = st, lp->p = p;
    for (size_t i = 0; i < c->n; i++) { /* every trace: the longer one less whole iterations */
        if (!tok[i])
            continue;
        if (nt[i] > nl || (nl - nt[i]) % p || (nl - nt[i]) / p > clong ||
            memcmp(tok[i], Lg, (st + (clong - (nl - nt[i]) / p) * p) * sizeof *Lg) ||
            memcmp(tok[i] + nt[i] - (nl - st - clong * p), Lg + st + clong * p, (nl - st - clong * p) * sizeof *Lg)) {
            a = i;
            goto differ;
        }
        lp->traced[i] = clong - (nl - nt[i]) / p;
    }
    if (!lp->traced[L]) {
        rc = refuse(c, L, rep[L], st, "its loop runs no iteration at the largest rank count: nothing to repeat");
        goto done;
    }
    double P[RT_EXTRAP_MAX_TRACES], v[RT_EXTRAP_MAX_TRACES];
    int np = 0;
    for (size_t i = 0; i < c->n; i++)
        if (tok[i])
            P[np] = x->P[i], v[np++] = (double)lp->traced[i];
    if (fit_exact(P, v, np, &lp->count)) {
        int len = snprintf(what, sizeof what, "its loop of %llu events runs", (unsigned long long)p);
        for (int i = 0; i < np && len < (int)sizeof what - 40; i++)
            len += snprintf(what + len, sizeof what - (size_t)len, "%s %.0f times at %.0f ranks", i ? "," : "", v[i], P[i]);
        snprintf(what + len, sizeof what - (size_t)len, ": no c0 + c1*P^a*log2(P)^b fits");
        rc = refuse(c, L, rep[L], st, what);
    }
    goto done;
differ:
    snprintf(what, sizeof what,
             "its calls differ from rank %u's at %u ranks (%llu events there, %llu here) by more than iterations of "
             "one loop: a program whose calls change otherwise with P is not extrapolated yet",
             rt_trace_rank_label(c->t[L], rep[L]), rt_trace_ranks(c->t[L]), (unsigned long long)nt[L],
             (unsigned long long)nt[a]);
    lp->p = 0;
    rc = refuse(c, a, rep[a], 0, what);
done:
    for (size_t i = 0; i < c->n; i++)
        free(tok[i]);
    return rc;
}

/* Peer candidates for one template event, in the order of preference. Where the traces cannot
 * tell two apart (a step of +1 or -1 along a grid dimension of 2, an offset of P/2), a send takes
 * the forward one and a receive the backward one, so that the two ends of a message stay paired
 * at every P (the program or its mirror image, which times the same). */
enum { NCAND = 23 };
static void candidates(int64_t peer, uint32_t r, uint32_t P, int receive, struct xp_peer *cand)
{
    int64_t d = ((peer - (int64_t)r) % (int64_t)P + P) % P;
    int64_t small = (receive ? d < (int64_t)(P + 1) / 2 : d <= (int64_t)P / 2) ? d : d - P;
    cand[0] = (struct xp_peer){XP_OFFSET, 0, 0, 0, small};
    cand[1] = (struct xp_peer){XP_OFFSET, 0, 0, 0, small > 0 ? small - P : small + P};
    int k = 2;
    for (int xf = 0; xf < 2; xf++) /* row-major (MPI_Cart_create's), then first dimension fastest */
        for (int nd = 2; nd <= 3; nd++)
            for (int dim = 0; dim < nd; dim++)
                for (int s = 1; s >= -1; s -= 2)
                    cand[k++] = (struct xp_peer){XP_GRID, (uint8_t)nd, (uint8_t)dim, (uint8_t)xf, receive ? -s : s};
    cand[k] = (struct xp_peer){XP_FIXED, 0, 0, 0, peer};
}

/* The label id of template event @p e of trace @p t: a call's or region's name, or the kind, and
 * the call site of the MPI call it is in (@p site, RT_NONE: none), so that two gaps between the
 * same calls made from different lines are two intervals. */
static int label_of(struct rt_extrap *x, const rt_trace *t, const struct rt_event *e, uint32_t site, uint32_t *id)
{
    static const char *const kinds[] = {"?", "enter", "leave", "send", "isend", "isend-complete", "recv",
                                        "irecv-request", "irecv", "collective", "collective-end", "fork", "join",
                                        "nb-collective", "nb-collective-end"};
    char buf[200];
    const char *k = e->kind < sizeof kinds / sizeof *kinds ? kinds[e->kind] : "?";
    const struct rt_callsite *cs = site < rt_trace_callsites(t) ? rt_trace_callsite(t, site) : NULL;
    char at[160] = "";
    if (cs)
        snprintf(at, sizeof at, " (%s:%u)", cs->file, cs->line);
    if (e->kind == RT_EV_ENTER || e->kind == RT_EV_LEAVE)
        snprintf(buf, sizeof buf, "%s %s%s", k, rt_trace_region(t, e->ref)->name, at);
    else
        snprintf(buf, sizeof buf, "%s%s", k, at);
    for (uint32_t i = 0; i < x->nlabels; i++)
        if (!strcmp(x->label[i], buf)) {
            *id = i;
            return 0;
        }
    char **v = realloc(x->label, (x->nlabels + 1) * sizeof *v);
    if (!v)
        return -1;
    x->label = v;
    if (!(v[x->nlabels] = strdup(buf)))
        return -1;
    *id = x->nlabels++;
    return 0;
}

/* The interval of class @p cls between labels @p from and @p to (made on first sight). */
static int interval_of(struct rt_extrap *x, uint32_t cls, uint32_t from, uint32_t to, uint32_t *id)
{
    for (uint32_t i = 0; i < x->niv; i++) /* (a program has tens of them) */
        if (x->iv[i].cls == cls && x->iv[i].from == from && x->iv[i].to == to) {
            *id = i;
            return 0;
        }
    struct xp_interval *v = realloc(x->iv, (x->niv + 1) * sizeof *v);
    if (!v)
        return -1;
    x->iv = v;
    memset(&v[x->niv], 0, sizeof *v);
    v[x->niv].cls = cls, v[x->niv].from = from, v[x->niv].to = to;
    *id = x->niv++;
    return 0;
}


/* Whether peers @p a and @p b are the same rule. */
static int same_peer(const struct xp_peer *a, const struct xp_peer *b)
{
    return a->kind == b->kind && a->ndims == b->ndims && a->dim == b->dim && a->xfast == b->xfast && a->d == b->d;
}

/* What recognise keeps per class between its passes. */
struct cls_work {
    uint32_t rep;          /* its first rank in the largest trace */
    uint32_t *alive;       /* per template event: the candidates still holding */
    struct xp_peer *cand;  /* per template event: NCAND candidates */
    double *vals;          /* per template event and trace: the size */
    uint8_t *seen;         /* per trace: the class has ranks there */
    uint8_t *have;         /* per template event and trace: its size is known (vals) */
    double *csize;         /* per template event and trace: its communicator's size */
    uint32_t *galive;      /* per template event on a split communicator: the member rules holding */
    struct xp_group *gcand; /* per template event: NGROUP member rules */
};

enum { NGROUP = 12 }; /* member rules tried per split communicator */

/* group_mask of one trace's communicator, kept for the candidates it was made for (a block's m). */
struct group_memo {
    uint32_t mask, m, done;
};

static uint32_t group_mask(const rt_trace *t, uint32_t comm, const struct xp_group *g, uint32_t *buf);

static uint32_t cached_mask(const rt_trace *t, uint32_t comm, const struct xp_group *g, uint32_t *buf,
                            struct group_memo *memo)
{
    struct group_memo *e = &memo[comm];
    if (!e->done || e->m != g[NGROUP - 2].m)
        *e = (struct group_memo){group_mask(t, comm, g, buf), g[NGROUP - 2].m, 1};
    return e->mask;
}

/* Member rules for a communicator of @p size ranks (of @p P) in the largest trace: grid lines,
 * blocks of size ranks, every P/size-th rank. */
static void group_candidates(uint32_t size, uint32_t P, struct xp_group *g)
{
    int k = 0;
    for (int xf = 0; xf < 2; xf++)
        for (int nd = 2; nd <= 3; nd++)
            for (int dim = 0; dim < nd; dim++)
                g[k++] = (struct xp_group){XG_LINE, (uint8_t)nd, (uint8_t)dim, (uint8_t)xf, 0};
    g[k++] = (struct xp_group){XG_BLOCK, 0, 0, 0, size};
    g[k] = (struct xp_group){XG_STRIDE, 0, 0, 0, size && P % size == 0 ? P / size : 0};
}

/* The rules of @p g that give communicator @p comm of trace @p t (its members, in order) as the
 * group of its first member. */
static uint32_t group_mask(const rt_trace *t, uint32_t comm, const struct xp_group *g, uint32_t *buf)
{
    const struct rt_comm *c = rt_trace_comm(t, comm);
    uint32_t mask = 0, P = rt_trace_ranks(t);
    if (!c || !c->members || !c->size)
        return 0;
    for (int q = 0; q < NGROUP; q++)
        if (rt__xp_members(&g[q], c->members[0], P, buf, P) == c->size &&
            !memcmp(buf, c->members, c->size * sizeof *buf))
            mask |= UINT32_C(1) << q;
    return mask;
}

/* Pass 1 for class @p k: its template from the largest trace, every rank of it in every trace
 * checked against the candidates, each trace's sizes. */
static int class_pass(struct ctx *c, struct rt_extrap *x, uint32_t k, struct cls_work *w)
{
    const rt_trace *L = c->t[c->n - 1];
    uint32_t PL = rt_trace_ranks(L), rep = 0;
    while (rep < PL && rt__xp_class(x->rule, rep) != k)
        rep++;
    if (rep == PL)
        return rt_error_set(c->err, RT_EUNSUPPORTED, "%s: no rank of class %u (%s)", rt_trace_path(L), k,
                            class_rule_text(x->rule));
    w->rep = rep;
    uint64_t nl;
    const struct rt_event *ev = rt_trace_events(L, rep, &nl);
    const struct xp_loop *lp = &x->loop[k];
    uint64_t cl = lp->traced[c->n - 1], n = lp->p ? nl - (cl - 1) * lp->p : nl; /* one iteration kept */
    x->n[k] = n;
    x->tmpl[k] = calloc(n ? n : 1, sizeof *x->tmpl[k]);
    w->alive = calloc(n ? n : 1, sizeof *w->alive);
    w->cand = malloc((n ? n : 1) * NCAND * sizeof *w->cand);
    w->vals = malloc((n ? n : 1) * c->n * sizeof *w->vals);
    w->seen = calloc(c->n, 1);
    w->galive = calloc(n ? n : 1, sizeof *w->galive);
    w->csize = malloc((n ? n : 1) * c->n * sizeof *w->csize);
    w->gcand = malloc((n ? n : 1) * NGROUP * sizeof *w->gcand);
    if (!x->tmpl[k] || !w->alive || !w->cand || !w->vals || !w->seen || !w->galive || !w->gcand || !w->csize)
        return oom(c->err);
    for (uint64_t el = 0; el < nl; el++) {
        int again;
        uint64_t j = rt__xp_at(lp, cl, el, &again);
        if (again)
            continue; /* the loop's first iteration stands for all */
        const struct rt_event *e = &ev[el];
        struct xp_ev *t = &x->tmpl[k][j];
        t->kind = (uint8_t)e->kind;
        t->flags = (uint8_t)e->flags;
        if (e->kind == RT_EV_FORK || e->kind == RT_EV_JOIN)
            return refuse(c, c->n - 1, rep, el, "thread teams are not extrapolated");
        if (e->kind == RT_EV_NBCOLL_BEGIN || e->kind == RT_EV_NBCOLL_END)
            return refuse(c, c->n - 1, rep, el, "non-blocking collectives are not extrapolated yet");
        t->site = RT_NONE;
        if (e->kind == RT_EV_ENTER || e->kind == RT_EV_LEAVE)
            t->region = e->ref;
        if (e->kind == RT_EV_ENTER && e->aux < rt_trace_callsites(L))
            t->site = e->aux;
        if (has_peer(e->kind)) {
            t->tag = e->aux;
            candidates(e->ref, rep, PL, e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV_REQUEST, &w->cand[j * NCAND]);
            w->alive[j] = (UINT32_C(1) << NCAND) - 1;
        }
        if (e->kind == RT_EV_COLL_BEGIN)
            t->tag = e->aux;
        if (e->kind == RT_EV_COLL_BEGIN && e->aux >= RT_COLL_OTHER) /* (it could not be written back) */
            return refuse(c, c->n - 1, rep, el, "a collective operation retime does not tell apart: not extrapolated");
        if (e->kind == RT_EV_COLL_BEGIN && e->ref != RT_NONE) /* (a root is a rank of its communicator) */
            t->peer = (struct xp_peer){XP_FIXED, 0, 0, 0, comm_rank(L, rt_trace_payload(L, rep, el).comm, e->ref)};
        if (e->kind == RT_EV_ISEND_COMPLETE || e->kind == RT_EV_IRECV || e->kind == RT_EV_COLL_END) {
            t->back = (uint32_t)(el - e->ref);
            /* a request must start in the same part (before, in one iteration of, after the loop) */
            if (lp->p && j >= lp->s && ((j < lp->s + lp->p) ? t->back > j - lp->s : e->ref < lp->s + cl * lp->p))
                return refuse(c, c->n - 1, rep, el, "a request or collective that spans the loop's iterations is not "
                                                    "extrapolated");
        }
        if (has_bytes(e->kind)) {
            uint32_t cm = rt_trace_payload(L, rep, el).comm;
            const struct rt_comm *co = rt_trace_comm(L, cm);
            t->comm = cm;
            if (!world_like(L, cm)) {
                if (!co || !co->members)
                    return refuse(c, c->n - 1, rep, el, "on a self communicator: not extrapolated");
                group_candidates(co->size, PL, &w->gcand[j * NGROUP]);
                w->galive[j] = (UINT32_C(1) << NGROUP) - 1;
                t->group.kind = XG_LINE; /* (a split: its rule is chosen after the checks) */
            }
        }
    }
    uint32_t *buf = malloc((size_t)PL * sizeof *buf); /* a communicator's members under a rule */
    struct group_memo *memo = NULL;
    if (!buf)
        return oom(c->err);
    uint8_t *have = w->have = calloc((n ? n : 1) * c->n, 1);
    if (!have) {
        free(buf);
        return oom(c->err);
    }
    int rc = RT_OK;
    for (size_t i = 0; i < c->n && !rc; i++) { /* every rank of the class in every trace */
        const rt_trace *T = c->t[i];
        uint32_t P = rt_trace_ranks(T);
        free(memo);
        if (!(memo = calloc(rt_trace_comms(T) ? rt_trace_comms(T) : 1, sizeof *memo))) {
            rc = oom(c->err);
            break;
        }
        for (uint32_t r = 0; r < P && !rc; r++) {
            if (rt__xp_class(x->rule, r) != k)
                continue;
            uint64_t m;
            const struct rt_event *e = rt_trace_events(T, r, &m);
            for (uint64_t jj = 0; jj < m && !rc; jj++) {
                int again;
                uint64_t j = rt__xp_at(lp, lp->traced[i], jj, &again);
                if (has_bytes(e[jj].kind)) {
                    struct rt_event_payload pl = rt_trace_payload(T, r, jj);
                    int split = x->tmpl[k][j].group.kind != XG_WORLD;
                    if (split != !world_like(T, pl.comm))
                        rc = refuse(c, i, r, jj, "its communicator holds every rank at one rank count and not at "
                                                 "another: not extrapolated");
                    else if (split && !(w->galive[j] &= cached_mask(T, pl.comm, &w->gcand[j * NGROUP], buf, memo)))
                        rc = refuse(c, i, r, jj, "its communicator's members fit no rule (a line of a 2D or 3D grid, "
                                                 "a block of m ranks, every m-th rank) at every P");
                    else if (!have[j * c->n + i]) {
                        const struct rt_comm *co = rt_trace_comm(T, pl.comm);
                        w->vals[j * c->n + i] = (double)pl.bytes, have[j * c->n + i] = 1;
                        w->csize[j * c->n + i] = co && co->size ? co->size : 1;
                    }
                    else if (w->vals[j * c->n + i] != (double)pl.bytes) /* (ranks agree: the class rule) */
                        rc = refuse(c, i, r, jj, "its size differs between the loop's iterations: not extrapolated");
                }
                if (rc || !has_peer(e[jj].kind))
                    continue;
                for (int q = 0; q < NCAND; q++)
                    if ((w->alive[j] >> q & 1) && rt__xp_peer_of(&w->cand[j * NCAND + q], r, P) != e[jj].ref)
                        w->alive[j] &= ~(UINT32_C(1) << q);
                if (!w->alive[j]) {
                    char what[160];
                    snprintf(what, sizeof what,
                             "its peer, rank %u, fits no pattern (a ring offset, a 2D or 3D grid neighbour, a fixed "
                             "rank) that holds on every rank at every P",
                             rt_trace_rank_label(T, e[jj].ref));
                    rc = refuse(c, i, r, jj, what);
                }
            }
            w->seen[i] = 1;
        }
    }
    free(buf);
    free(memo);
    return rc;
}

/* A class of few ranks (rank 0 alone) holds many rules that its peers fit by chance (rank 0's
 * receive from rank 3 at every traced P is an offset of 3, and a grid neighbour): where another
 * class has the same event (kind and tag at the same place) with a rule this one also holds, the
 * rules are narrowed to those (the same program line has one rule for every rank). */
static void narrow(struct rt_extrap *x, struct cls_work *w)
{
    for (uint32_t k = 0; k < x->ncls; k++)
        for (uint32_t k2 = 0; k2 < x->ncls; k2++) {
            if (k2 == k || x->n[k2] != x->n[k])
                continue;
            for (uint64_t j = 0; j < x->n[k]; j++) {
                const struct xp_ev *a = &x->tmpl[k][j], *b = &x->tmpl[k2][j];
                if (!has_peer(a->kind) || a->kind != b->kind || a->tag != b->tag)
                    continue;
                uint32_t shared = 0;
                for (int q = 0; q < NCAND; q++)
                    for (int q2 = 0; q2 < NCAND && (w[k].alive[j] >> q & 1); q2++)
                        if ((w[k2].alive[j] >> q2 & 1) &&
                            same_peer(&w[k].cand[j * NCAND + q], &w[k2].cand[j * NCAND + q2]))
                            shared |= UINT32_C(1) << q;
                if (shared)
                    w[k].alive[j] = shared;
            }
        }
}

/* Pass 2 for class @p k: each peer's rule (the first candidate left) and each size's fit. */
static int class_choose(struct ctx *c, struct rt_extrap *x, uint32_t k, const struct cls_work *w)
{
    for (uint64_t j = 0; j < x->n[k]; j++) {
        struct xp_ev *t = &x->tmpl[k][j];
        if (has_peer(t->kind)) {
            int q = 0;
            while (!(w->alive[j] >> q & 1))
                q++;
            t->peer = w->cand[j * NCAND + q];
            x->sum.p2p += t->kind == RT_EV_SEND || t->kind == RT_EV_ISEND;
            x->sum.by_offset += t->peer.kind == XP_OFFSET;
            x->sum.by_grid2 += t->peer.kind == XP_GRID && t->peer.ndims == 2;
            x->sum.by_grid3 += t->peer.kind == XP_GRID && t->peer.ndims == 3;
            x->sum.by_fixed += t->peer.kind == XP_FIXED;
        }
        x->sum.colls += t->kind == RT_EV_COLL_BEGIN;
        if (!has_bytes(t->kind))
            continue;
        if (t->group.kind != XG_WORLD) { /* the first member rule left; one per communicator */
            int q = 0;
            while (!(w->galive[j] >> q & 1))
                q++;
            t->group = w->gcand[j * NGROUP + q];
            x->sum.splits += t->kind == RT_EV_COLL_BEGIN || t->kind == RT_EV_SEND || t->kind == RT_EV_ISEND;
        }
        double P[RT_EXTRAP_MAX_TRACES], v[RT_EXTRAP_MAX_TRACES], u[RT_EXTRAP_MAX_TRACES];
        int np = 0, whole = 1;
        for (size_t i = 0; i < c->n; i++)
            if (w->have[j * c->n + i]) {
                double cs = w->csize[j * c->n + i];
                P[np] = x->P[i], v[np] = w->vals[j * c->n + i], u[np] = v[np] / cs;
                whole &= fmod(v[np++], cs) == 0;
            }
        /* as traced, or (a collective on a communicator whose size is not a power of P: a grid's
         * row) per rank of its communicator, as the tracers count a collective's bytes */
        int bad = fit_exact(P, v, np, &t->bytes);
        if (bad && whole && (t->kind == RT_EV_COLL_BEGIN || t->kind == RT_EV_COLL_END) &&
            !fit_exact(P, u, np, &t->bytes))
            bad = 0, t->per_member = 1;
        if (bad) {
            char what[240];
            int len = snprintf(what, sizeof what, "its sizes");
            for (int i = 0; i < np && len < (int)sizeof what - 40; i++)
                len += snprintf(what + len, sizeof what - (size_t)len, "%s %.0f B at %.0f ranks", i ? "," : "", v[i],
                                P[i]);
            snprintf(what + len, sizeof what - (size_t)len, " fit no c0 + c1*P^a*log2(P)^b");
            const struct xp_loop *lp = &x->loop[k]; /* (the template's index as the largest trace's event) */
            uint64_t el = lp->p && j >= lp->s + lp->p ? j + (lp->traced[c->n - 1] - 1) * lp->p : j;
            return refuse(c, c->n - 1, w->rep, el, what);
        }
        if (t->bytes.c1 != 0)
            x->sum.sizes_scaled++;
        else
            x->sum.sizes_constant++;
    }
    x->sum.events += x->n[k];
    return RT_OK;
}

/* Templates, peers, sizes. */
static int recognise(struct ctx *c, struct rt_extrap *x)
{
    struct cls_work w[XC_MAX];
    memset(w, 0, sizeof w);
    int rc = RT_OK;
    for (uint32_t k = 0; k < x->ncls && !rc; k++)
        rc = class_pass(c, x, k, &w[k]);
    if (!rc)
        narrow(x, w);
    for (uint32_t k = 0; k < x->ncls && !rc; k++)
        rc = class_choose(c, x, k, &w[k]);
    for (uint32_t k = 0; k < XC_MAX; k++)
        free(w[k].alive), free(w[k].cand), free(w[k].vals), free(w[k].seen), free(w[k].have), free(w[k].galive),
            free(w[k].gcand), free(w[k].csize);
    return rc;
}

/* Compute intervals: the mean gap per class and pair of labels at each P, fitted. */
static int intervals(struct ctx *c, struct rt_extrap *x, enum rt_scaling sc)
{
    const rt_trace *L = c->t[c->n - 1];
    for (uint32_t k = 0; k < x->ncls; k++) { /* the template's intervals and labels */
        uint32_t rep = 0;
        while (rt__xp_class(x->rule, rep) != k)
            rep++;
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(L, rep, &n);
        const struct xp_loop *lp = &x->loop[k];
        uint64_t cl = lp->traced[c->n - 1];
        uint32_t prev = UINT32_MAX, *lab = malloc((x->n[k] ? x->n[k] : 1) * sizeof *lab), site = RT_NONE;
        int depth = 0, loop_seen = 0; /* MPI calls open; a second iteration met */
        if (!lab)
            return oom(c->err);
        for (uint64_t el = 0; el < n; el++) {
            int again;
            uint64_t j = rt__xp_at(lp, cl, el, &again);
            uint32_t id, iv;
            if (depth == 0 && ev[el].kind == RT_EV_ENTER && (ev[el].flags & RT_EVF_MPI))
                site = ev[el].aux; /* (the outermost MPI call's, for its records and its Leave) */
            if (label_of(x, L, &ev[el], depth > 0 || (ev[el].flags & RT_EVF_MPI) ? site : RT_NONE, &id) ||
                interval_of(x, k, prev, id, &iv)) {
                free(lab);
                return oom(c->err);
            }
            lab[j] = id;
            if (!again)
                x->tmpl[k][j].interval = iv;
            else if (j == lp->s)
                x->tmpl[k][j].interval_loop = iv, loop_seen = 1;
            x->iv[iv].per_rank++;
            x->iv[iv].inside |= depth > 0;
            depth += (ev[el].flags & RT_EVF_MPI) ? ev[el].kind == RT_EV_ENTER ? 1 : ev[el].kind == RT_EV_LEAVE ? -1 : 0 : 0;
            prev = id;
        }
        if (lp->p && !loop_seen) { /* one iteration at the largest P: the loop's back edge by its labels */
            uint32_t iv;
            if (interval_of(x, k, lab[lp->s + lp->p - 1], lab[lp->s], &iv)) {
                free(lab);
                return oom(c->err);
            }
            x->tmpl[k][lp->s].interval_loop = iv;
            x->iv[iv].inside |= x->iv[x->tmpl[k][lp->s].interval].inside;
        }
        free(lab);
    }
    int cpu = 1;
    for (size_t i = 0; i < c->n; i++)
        cpu &= rt_trace_has_cpu_time(c->t[i]) != 0;
    x->sum.cpu_time = cpu;
    for (size_t i = 0; i < c->n; i++) {
        const rt_trace *T = c->t[i];
        for (uint32_t r = 0; r < rt_trace_ranks(T); r++) {
            uint32_t k = rt__xp_class(x->rule, r);
            uint64_t n;
            const struct rt_event *ev = rt_trace_events(T, r, &n);
            /* the compute clock where every trace has CPU times (what the rank computed, not
             * what it waited for a CPU: the small traces' ranks share few cores too) */
            rt_time_ns prev = cpu ? rt_trace_cpu_clock(T, r, 0) : ev[0].time;
            const struct xp_loop *lp = &x->loop[k];
            for (uint64_t jj = 1; jj < n; jj++) { /* (the first event's gap is the start: 0) */
                int again;
                uint64_t j = rt__xp_at(lp, lp->traced[i], jj, &again);
                const struct xp_ev *te = &x->tmpl[k][j];
                struct xp_interval *v = &x->iv[again && j == lp->s ? te->interval_loop : te->interval];
                rt_time_ns now = cpu ? rt_trace_cpu_clock(T, r, jj) : ev[jj].time;
                v->count[i]++;
                v->sum[i] += (double)(now - prev);
                prev = now;
            }
        }
    }
    double total = 0;
    for (uint32_t q = 0; q < x->niv; q++) {
        struct xp_interval *v = &x->iv[q];
        double P[RT_EXTRAP_MAX_TRACES], m[RT_EXTRAP_MAX_TRACES];
        int np = 0;
        for (size_t i = 0; i < c->n; i++)
            if (v->count[i])
                P[np] = x->P[i], m[np++] = v->sum[i] / (double)v->count[i];
        if (!np) {
            v->fit = (struct xp_fit){0, 0, 0, 0, 0};
            continue;
        }
        /* inside MPI calls the model times the replay: a constant keeps the measured times plausible */
        fit_time(P, m, np, v->inside || np < 3 ? RT_SCALING_WEAK : sc, &v->fit, &v->error); /* (two points: no trend) */
        v->share = v->inside ? 0 : v->sum[c->n - 1];
        total += v->share;
    }
    /* the report: errors weighted by the largest trace's time in each interval */
    double *err = malloc((x->niv ? x->niv : 1) * 2 * sizeof *err);
    if (!err)
        return oom(c->err);
    uint32_t ne = 0;
    double scaled = 0;
    for (uint32_t q = 0; q < x->niv; q++) {
        struct xp_interval *v = &x->iv[q];
        v->share = total > 0 ? v->share / total : 0;
        if (v->inside)
            continue; /* (the report is about compute) */
        x->sum.intervals++;
        int constant = v->fit.a == 0 && v->fit.b == 0;
        x->sum.intervals_constant += constant;
        if (!constant)
            scaled += v->share;
        if (v->share > 0) {
            err[2 * ne] = v->error, err[2 * ne + 1] = v->share;
            ne++;
        }
        x->sum.fit_error_max = v->share > 1e-3 && v->error > x->sum.fit_error_max ? v->error : x->sum.fit_error_max;
    }
    /* weighted median */
    for (uint32_t a = 1; a < ne; a++)
        for (uint32_t b = a; b > 0 && err[2 * b] < err[2 * (b - 1)]; b--) {
            double t0 = err[2 * b], t1 = err[2 * b + 1];
            err[2 * b] = err[2 * (b - 1)], err[2 * b + 1] = err[2 * (b - 1) + 1];
            err[2 * (b - 1)] = t0, err[2 * (b - 1) + 1] = t1;
        }
    double acc = 0;
    for (uint32_t e = 0; e < ne; e++)
        if ((acc += err[2 * e + 1]) >= 0.5) {
            x->sum.fit_error_median = err[2 * e];
            break;
        }
    free(err);
    x->sum.compute_share_scaled = scaled;
    return RT_OK;
}

int rt_extrap_build(const rt_trace *const *traces, size_t n, enum rt_scaling sc, rt_extrap **out, rt_error *err)
{
    *out = NULL;
    if (n < 3 || n > RT_EXTRAP_MAX_TRACES)
        return rt_error_set(err, RT_EINVAL, "extrapolation needs 3 to %d traces of one program at different rank "
                                            "counts, not %zu",
                            RT_EXTRAP_MAX_TRACES, n);
    const rt_trace *t[RT_EXTRAP_MAX_TRACES];
    memcpy(t, traces, n * sizeof *t);
    for (size_t i = 1; i < n; i++) /* ascending P */
        for (size_t j = i; j > 0 && rt_trace_ranks(t[j]) < rt_trace_ranks(t[j - 1]); j--) {
            const rt_trace *s = t[j];
            t[j] = t[j - 1];
            t[j - 1] = s;
        }
    for (size_t i = 1; i < n; i++)
        if (rt_trace_ranks(t[i]) == rt_trace_ranks(t[i - 1]))
            return rt_error_set(err, RT_EINVAL, "%s and %s both have %u ranks: extrapolation needs different rank counts",
                                rt_trace_path(t[i - 1]), rt_trace_path(t[i]), rt_trace_ranks(t[i]));
    struct ctx c = {t, n, err};
    struct rt_extrap *x = calloc(1, sizeof *x);
    uint64_t *skel[RT_EXTRAP_MAX_TRACES] = {0}, *szs[RT_EXTRAP_MAX_TRACES] = {0};
    int rc = x ? RT_OK : oom(err);
    for (size_t i = 0; i < n && !rc; i++) {
        uint32_t P = rt_trace_ranks(t[i]);
        x->P[i] = P;
        if (rt_trace_stats(t[i])->missing_ranks)
            rc = rt_error_set(err, RT_EUNSUPPORTED, "%s: ranks are missing: extrapolation needs every rank",
                              rt_trace_path(t[i]));
        skel[i] = malloc(P * sizeof **skel);
        szs[i] = malloc(P * sizeof **szs);
        if (!rc && (!skel[i] || !szs[i]))
            rc = oom(err);
        for (uint32_t r = 0; r < P && !rc; r++) {
            uint64_t m, h = 1469598103934665603ull, hs = h;
            const struct rt_event *ev = rt_trace_events(t[i], r, &m);
            h = fnv(h, &m, sizeof m);
            for (uint64_t j = 0; j < m; j++) {
                h = skeleton(t[i], r, ev, j, h);
                hs = sizes(t[i], r, ev, j, hs);
            }
            skel[i][r] = h, szs[i][r] = hs;
        }
    }
    if (x)
        x->ntr = (uint32_t)n;
    if (!rc)
        rc = find_rule(&c, skel, szs, &x->rule);
    if (!rc && (x->rule == XC_ONE || x->rule == XC_PARITY)) {
        /* rank 0 often computes more (or less) than its calls show (input, output, a reduction's
         * result): far from its class's mean, it is a class of its own, or its time would be
         * spread over the others' */
        const rt_trace *L = t[n - 1];
        uint32_t PL = rt_trace_ranks(L), cnt = 0;
        double mean = 0, r0 = 0;
        for (uint32_t r = 0; r < PL; r++) {
            rt_time_ns wall, waited;
            rt_trace_compute_time(L, r, &wall, &waited);
            double v = (double)(wall - waited);
            if (r == 0)
                r0 = v;
            else if (rt__xp_class(x->rule, r) == 0)
                mean += v, cnt++;
        }
        mean = cnt ? mean / cnt : 0;
        if (cnt && mean > 0 && fabs(r0 - mean) > 0.25 * mean)
            x->rule = x->rule == XC_ONE ? XC_ROOT : XC_ROOT_PARITY;
    }
    if (!rc) {
        x->ncls = x->rule == XC_ONE ? 1 : x->rule == XC_ROOT_PARITY ? 3 : 2;
        x->sum.traces = (uint32_t)n;
        x->sum.classes = x->ncls;
        x->sum.class_rule = class_rule_text(x->rule);
        for (uint32_t k = 0; k < x->ncls && !rc; k++)
            rc = find_loop(&c, x, k);
        if (!rc)
            rc = recognise(&c, x);
    }
    if (!rc)
        rc = intervals(&c, x, sc);
    const rt_trace *L = t[n - 1];
    if (!rc) { /* the definitions the output keeps */
        x->nregions = rt_trace_regions(L);
        x->ncomms = rt_trace_comms(L);
        x->region_name = calloc(x->nregions + 1, sizeof *x->region_name);
        x->region_mpi = calloc(x->nregions + 1, 1);
        x->region_role = calloc(x->nregions + 1, 1);
        x->comm_name = calloc(x->ncomms + 1, sizeof *x->comm_name);
        x->comm_world = calloc(x->ncomms + 1, 1);
        if (!x->region_name || !x->region_mpi || !x->region_role || !x->comm_name || !x->comm_world)
            rc = oom(err);
        for (uint32_t i = 0; i < x->nregions && !rc; i++) {
            const struct rt_region *g = rt_trace_region(L, i);
            x->region_mpi[i] = g->is_mpi, x->region_role[i] = g->role;
            if (!(x->region_name[i] = strdup(g->name ? g->name : "")))
                rc = oom(err);
        }
        x->nsites = rt_trace_callsites(L);
        if (!rc && !(x->site = calloc(x->nsites + 1, sizeof *x->site)))
            rc = oom(err);
        for (uint32_t i = 0; i < x->nsites && !rc; i++) {
            const struct rt_callsite *cs = rt_trace_callsite(L, i);
            x->site[i].line = cs->line;
            if (!(x->site[i].function = strdup(cs->function)) || !(x->site[i].file = strdup(cs->file)))
                rc = oom(err);
        }
        for (uint32_t i = 0; i < x->ncomms && !rc; i++) {
            x->comm_world[i] = (uint8_t)world_like(L, i);
            if (rt_trace_comm(L, i)->members && !(x->comm_name[i] = strdup(rt_trace_comm(L, i)->name)))
                rc = oom(err);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(skel[i]), free(szs[i]);
    if (rc) {
        rt_extrap_free(x);
        return rc;
    }
    *out = x;
    return RT_OK;
}

void rt_extrap_free(rt_extrap *x)
{
    if (!x)
        return;
    for (uint32_t k = 0; k < XC_MAX; k++)
        free(x->tmpl[k]);
    for (uint32_t i = 0; x->region_name && i < x->nregions; i++)
        free(x->region_name[i]);
    for (uint32_t i = 0; x->comm_name && i < x->ncomms; i++)
        free(x->comm_name[i]);
    for (uint32_t i = 0; i < x->nlabels; i++)
        free(x->label[i]);
    for (uint32_t i = 0; x->site && i < x->nsites; i++)
        free((char *)x->site[i].function), free((char *)x->site[i].file);
    free(x->site);
    free(x->region_name), free(x->region_mpi), free(x->region_role), free(x->comm_name), free(x->comm_world),
        free(x->label), free(x->iv);
    free(x);
}

void rt_extrap_summary(const rt_extrap *x, struct rt_extrap_summary *s)
{
    *s = x->sum;
}

int rt_extrap_loop(const rt_extrap *x, uint32_t cls, struct rt_extrap_loop *o)
{
    memset(o, 0, sizeof *o);
    if (cls >= x->ncls || !x->loop[cls].p)
        return 0;
    const struct xp_loop *l = &x->loop[cls];
    o->events = l->p;
    for (uint32_t i = 0; i < x->ntr; i++) {
        uint32_t r = 0;
        while (r < x->P[i] && rt__xp_class(x->rule, r) != cls)
            r++;
        if (r < x->P[i]) { /* (the class has ranks there) */
            o->P[o->traces] = x->P[i];
            o->iterations[o->traces++] = l->traced[i];
        }
    }
    o->c0 = l->count.c0, o->c1 = l->count.c1, o->a = l->count.a, o->b = l->count.b;
    return 1;
}

uint32_t rt_extrap_intervals(const rt_extrap *x)
{
    return x->niv;
}

void rt_extrap_interval(const rt_extrap *x, uint32_t i, struct rt_extrap_interval *o)
{
    const struct xp_interval *v = &x->iv[i];
    *o = (struct rt_extrap_interval){v->cls,
                                     v->from == UINT32_MAX ? "start" : x->label[v->from],
                                     x->label[v->to],
                                     v->per_rank,
                                     v->share,
                                     v->fit.c1,
                                     v->fit.a,
                                     v->fit.b,
                                     v->error};
}
