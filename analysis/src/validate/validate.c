/* SPDX-License-Identifier: MIT */
/*
 * A replay's timing against the measured one over the measured window (retime/validate.h):
 * each rank's stack of open regions and MPI calls, gathered event by event as the replay reports
 * them, into rows per rank, region instance, call site and message size class.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "map.h"
#include "retime/validate.h"

#define SIZE_CLASSES 15 /* 0 B, then decades up to 10^13 B (past RT_MAX_BYTES) */

/* An open region or MPI call on a rank. */
struct frame {
    uint32_t region, callsite;
    uint64_t index;     /* its Enter's event index */
    uint64_t instance;  /* the region's outermost instance number, or UINT64_MAX when nested in itself */
    rt_time_ns meas;    /* its Enter's measured time */
    rt_time_ps pred;    /* and predicted */
    rt_bytes bytes;     /* MPI calls: the largest point-to-point message in it */
    uint8_t mpi, msg;   /* an MPI call; it carries a point-to-point message */
};

struct rank_state {
    struct frame *stack;
    uint32_t depth, cap;
    uint64_t begin, end;     /* window events (UINT64_MAX: outside) */
    rt_time_ns begin_meas, end_meas;
    rt_time_ps begin_pred, end_pred;
    int has_begin, has_end;
};

struct acc {
    struct rt_validate_row row;
    double meas, pred; /* sums */
};

struct rt_validate {
    const rt_trace *t;
    uint32_t ranks;
    struct rank_state *rs;
    struct rt__map inst;    /* (rank, region) -> outermost instances begun */
    struct rt__map index;   /* (table, key) -> row of acc[table]; region key: region << 40 | instance */
    struct rt__map key2;    /* callsite rows: (callsite, mpi region) -> row */
    struct acc *acc[RT_VAL_TABLES];
    size_t nacc[RT_VAL_TABLES], capacc[RT_VAL_TABLES];
    struct rt_validate_row *rows[RT_VAL_TABLES];
    size_t *worst[RT_VAL_TABLES];
    int nomem;
};

static uint32_t size_class(rt_bytes m)
{
    uint32_t c = 0;
    for (rt_bytes lim = 1; m >= lim && c < SIZE_CLASSES - 1; lim *= 10)
        c++;
    return c;
}

void rt_validate_size_class(uint32_t cls, rt_bytes *lo, rt_bytes *hi)
{
    rt_bytes p = 1;
    for (uint32_t i = 1; i < cls; i++)
        p *= 10;
    *lo = cls ? p : 0;
    *hi = cls ? p * 10 - 1 : 0;
}

int rt_validate_create(const rt_trace *t, const rt_window *w, rt_validate **out, rt_error *err)
{
    rt_validate *v = calloc(1, sizeof *v);
    uint32_t n = rt_trace_ranks(t);
    if (!v || !(v->rs = calloc(n ? n : 1, sizeof *v->rs))) {
        free(v);
        return rt_error_set(err, RT_ENOMEM, "%s: out of memory", rt_trace_path(t));
    }
    v->t = t;
    v->ranks = n;
    rt__map_init(&v->inst);
    rt__map_init(&v->index);
    rt__map_init(&v->key2);
    int all = !w || rt_window_kind(w) == RT_WINDOW_ALL;
    for (uint32_t r = 0; r < n; r++) {
        uint64_t ne;
        rt_trace_events(t, r, &ne);
        v->rs[r].begin = all ? (ne ? 0 : UINT64_MAX) : rt_window_begin(w, r);
        v->rs[r].end = all ? (ne ? ne - 1 : UINT64_MAX) : rt_window_end(w, r);
    }
    *out = v;
    return RT_OK;
}

void rt_validate_destroy(rt_validate *v)
{
    if (!v)
        return;
    for (uint32_t r = 0; r < v->ranks; r++)
        free(v->rs[r].stack);
    free(v->rs);
    for (int k = 0; k < RT_VAL_TABLES; k++) {
        free(v->acc[k]);
        free(v->rows[k]);
        free(v->worst[k]);
    }
    rt__map_free(&v->inst);
    rt__map_free(&v->index);
    rt__map_free(&v->key2);
    free(v);
}

/* The accumulator of row (table @p k, key @p key, @p key2 for call sites), made when new. */
static struct acc *row(rt_validate *v, int k, uint64_t key, uint64_t key2)
{
    uint64_t *slot = k == RT_VAL_CALLSITE ? rt__map_ref(&v->key2, key, key2, UINT64_MAX)
                                          : rt__map_ref(&v->index, (uint64_t)k, key, UINT64_MAX);
    if (!slot)
        return NULL;
    if (*slot == UINT64_MAX) {
        if (v->nacc[k] == v->capacc[k]) {
            size_t c = v->capacc[k] ? 2 * v->capacc[k] : 64;
            struct acc *a = realloc(v->acc[k], c * sizeof *a);
            if (!a)
                return NULL;
            v->acc[k] = a;
            v->capacc[k] = c;
        }
        *slot = v->nacc[k];
        memset(&v->acc[k][v->nacc[k]++], 0, sizeof(struct acc));
    }
    return &v->acc[k][*slot];
}

static void add(rt_validate *v, int k, uint64_t key, uint64_t key2, double meas, double pred)
{
    struct acc *a = row(v, k, key, key2);
    if (!a) {
        v->nomem = 1;
        return;
    }
    if (!a->row.count) {
        a->row.mpi = k == RT_VAL_CALLSITE ? (uint32_t)key2 : RT_NONE;
        a->row.id = k == RT_VAL_REGION ? (uint32_t)(key >> 40) : (uint32_t)key;
        a->row.instance = k == RT_VAL_REGION ? key & ((UINT64_C(1) << 40) - 1) : 0;
    }
    a->row.count++;
    a->meas += meas;
    a->pred += pred;
}

void rt_validate_on_event(void *vv, uint32_t rank, uint64_t i, const struct rt_event *e, rt_time_ps predicted)
{
    rt_validate *v = vv;
    if (v->nomem || rank >= v->ranks)
        return;
    struct rank_state *s = &v->rs[rank];
    if (i == s->begin) {
        s->begin_meas = e->time;
        s->begin_pred = predicted;
        s->has_begin = 1;
    }
    if (i == s->end) {
        s->end_meas = e->time;
        s->end_pred = predicted;
        s->has_end = 1;
    }
    if (e->kind == RT_EV_ENTER) {
        if (rt__grow((void **)&s->stack, &s->cap, sizeof *s->stack, s->depth + 1)) {
            v->nomem = 1;
            return;
        }
        int nested = 0;
        for (uint32_t d = 0; d < s->depth && !nested; d++)
            nested = s->stack[d].region == e->ref;
        const struct rt_region *g = rt_trace_region(v->t, e->ref);
        struct frame f = {.region = e->ref, .callsite = e->aux, .index = i, .instance = UINT64_MAX,
                          .meas = e->time, .pred = predicted, .mpi = (e->flags & RT_EVF_MPI) != 0};
        if (!nested && g && !g->is_mpi && !f.mpi) {
            uint64_t *c = rt__map_ref(&v->inst, rank, e->ref, 0);
            if (!c) {
                v->nomem = 1;
                return;
            }
            f.instance = (*c)++;
        }
        s->stack[s->depth++] = f;
        return;
    }
    if (e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND || e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV ||
        e->kind == RT_EV_IRECV_REQUEST || e->kind == RT_EV_ISEND_COMPLETE) {
        /* the outermost open MPI call carries it */
        for (uint32_t d = 0; d < s->depth; d++)
            if (s->stack[d].mpi) {
                uint64_t at = e->kind == RT_EV_ISEND_COMPLETE ? e->ref : i;
                rt_bytes m = rt_trace_payload(v->t, rank, at).bytes;
                s->stack[d].msg = 1;
                s->stack[d].bytes = m > s->stack[d].bytes ? m : s->stack[d].bytes;
                break;
            }
        return;
    }
    if (e->kind != RT_EV_LEAVE || !s->depth)
        return;
    struct frame f = s->stack[--s->depth];
    if (s->begin == UINT64_MAX || f.index < s->begin || i > s->end)
        return; /* not wholly inside the window */
    double meas = (double)(e->time - f.meas), pred = (double)(predicted - f.pred) / 1e3;
    int outermost_mpi = f.mpi;
    for (uint32_t d = 0; d < s->depth && outermost_mpi; d++)
        outermost_mpi = !s->stack[d].mpi;
    if (outermost_mpi) {
        add(v, RT_VAL_CALLSITE, f.callsite, f.region, meas, pred);
        if (f.msg)
            add(v, RT_VAL_SIZE, size_class(f.bytes), 0, meas, pred);
    } else if (f.instance != UINT64_MAX) {
        add(v, RT_VAL_REGION, (uint64_t)f.region << 40 | (f.instance & ((UINT64_C(1) << 40) - 1)), 0, meas, pred);
    }
}

static int cmp_row(const void *a, const void *b)
{
    const struct rt_validate_row *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->mpi != y->mpi)
        return x->mpi < y->mpi ? -1 : 1;
    return x->instance < y->instance ? -1 : x->instance > y->instance;
}

/* The time a row loses: |predicted - measured| over all it stands for (a region row's times are
 * means over its ranks). The worst rows are the ones that lose the most time, not the ones with
 * the largest relative error: a -100 % row of a few microseconds must not hide one that is off
 * by seconds. */
static double time_lost(const struct rt_validate_row *w, int k)
{
    return fabs(w->predicted_ns - w->measured_ns) * (k == RT_VAL_REGION ? (double)w->count : 1);
}

static const struct rt_validate_row *sort_rows;
static int sort_kind;
static int cmp_worst(const void *a, const void *b)
{
    double x = time_lost(&sort_rows[*(const size_t *)a], sort_kind),
           y = time_lost(&sort_rows[*(const size_t *)b], sort_kind);
    if (x != y)
        return x > y ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int rt_validate_report(rt_validate *v, struct rt_validate_report *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    for (uint32_t r = 0; r < v->ranks && !v->nomem; r++) {
        struct rank_state *s = &v->rs[r];
        if (s->has_begin && s->has_end)
            add(v, RT_VAL_RANK, r, 0, (double)(s->end_meas - s->begin_meas),
                (double)(s->end_pred - s->begin_pred) / 1e3);
    }
    for (int k = 0; k < RT_VAL_TABLES && !v->nomem; k++) {
        size_t n = v->nacc[k];
        free(v->rows[k]);
        free(v->worst[k]);
        v->rows[k] = malloc((n ? n : 1) * sizeof *v->rows[k]);
        v->worst[k] = malloc((n ? n : 1) * sizeof *v->worst[k]);
        double *abs_err = malloc((n ? n : 1) * sizeof *abs_err);
        if (!v->rows[k] || !v->worst[k] || !abs_err) {
            free(abs_err);
            v->nomem = 1;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            struct rt_validate_row *w = &v->rows[k][i];
            *w = v->acc[k][i].row;
            double div = k == RT_VAL_REGION ? (double)w->count : 1;
            w->measured_ns = v->acc[k][i].meas / div;
            w->predicted_ns = v->acc[k][i].pred / div;
            w->has_error = w->measured_ns > 0;
            w->error_pct = w->has_error ? 100 * (w->predicted_ns - w->measured_ns) / w->measured_ns : 0;
        }
        if (n)
            qsort(v->rows[k], n, sizeof *v->rows[k], cmp_row);
        size_t nw = 0;
        for (size_t i = 0; i < n; i++)
            if (v->rows[k][i].has_error) {
                abs_err[nw] = fabs(v->rows[k][i].error_pct);
                v->worst[k][nw++] = i;
            }
        sort_rows = v->rows[k];
        sort_kind = k;
        if (nw) {
            qsort(v->worst[k], nw, sizeof *v->worst[k], cmp_worst);
            qsort(abs_err, nw, sizeof *abs_err, cmp_double);
        }
        struct rt_validate_tab *tb = &out->tab[k];
        tb->rows = v->rows[k];
        tb->n = n;
        tb->worst = v->worst[k];
        tb->nworst = nw;
        tb->median_abs_error_pct = nw ? (abs_err[(nw - 1) / 2] + abs_err[nw / 2]) / 2 : 0;
        free(abs_err);
    }
    if (v->nomem)
        return rt_error_set(err, RT_ENOMEM, "%s: out of memory", rt_trace_path(v->t));
    for (uint32_t r = 0; r < v->ranks; r++)
        v->rs[r].has_begin = v->rs[r].has_end = 0;
    return RT_OK;
}
