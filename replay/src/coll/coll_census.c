/* SPDX-License-Identifier: MIT */
/*
 * Which algorithm each collective of a trace would get (retime info --collectives): the trace's
 * collective instances, each with its members' blocks as the replay derives them, grouped by
 * what decides the plan.
 *
 * Instance k of a communicator is the k-th collective each member rank enters on it (the
 * replay's matching too). The members' rows are walked once per communicator with a cursor
 * each, so memory is O(communicator size), not O(instances).
 */
#include <stdlib.h>
#include <string.h>

#include "collective.h"

/* The next uncancelled COLL_BEGIN or NBCOLL_BEGIN on @p comm of row @p row from *@p pos on;
 * UINT64_MAX: none. */
static uint64_t next_begin(const rt_trace *t, uint32_t row, uint32_t comm, uint64_t *pos)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(t, row, &n);
    for (uint64_t k = *pos; k < n; k++)
        if ((ev[k].kind == RT_EV_COLL_BEGIN || ev[k].kind == RT_EV_NBCOLL_BEGIN) && !(ev[k].flags & RT_EVF_CANCELLED) &&
            rt_trace_payload(t, row, k).comm == comm) {
            *pos = k + 1;
            return k;
        }
    *pos = n;
    return UINT64_MAX;
}

/* The NBCOLL_END of the NBCOLL_BEGIN at @p j (its aux), or UINT64_MAX. */
static uint64_t nb_end(const struct rt_event *ev, uint64_t n, uint64_t j)
{
    uint64_t k = ev[j].aux;
    return k < n && ev[k].kind == RT_EV_NBCOLL_END && ev[k].ref == j ? k : UINT64_MAX;
}

/* Bytes received by the (NB)COLL_END of the (NB)COLL_BEGIN at @p j (0 without one). */
static rt_bytes received(const rt_trace *t, uint32_t row, uint64_t j)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(t, row, &n);
    if (ev[j].kind == RT_EV_NBCOLL_BEGIN) {
        uint64_t k = nb_end(ev, n, j);
        return k == UINT64_MAX ? 0 : rt_trace_payload(t, row, k).bytes;
    }
    for (uint64_t k = j + 1; k < n; k++) {
        if (ev[k].kind == RT_EV_COLL_END)
            return ev[k].ref == j ? rt_trace_payload(t, row, k).bytes : 0;
        if (ev[k].kind == RT_EV_COLL_BEGIN)
            break;
    }
    return 0;
}

static int same_row(const struct rt_coll_census_row *a, const struct rt_coll_census_row *b)
{
    return a->op == b->op && a->vector == b->vector && a->ranks == b->ranks && a->block == b->block &&
           a->total == b->total && a->plan.algo == b->plan.algo && a->plan.seg == b->plan.seg &&
           a->plan.fanout == b->plan.fanout && !memcmp(a->plan.part, b->plan.part, sizeof a->plan.part);
}

static int cmp_row(const void *x, const void *y)
{
    const struct rt_coll_census_row *a = x, *b = y;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    if (a->ranks != b->ranks)
        return a->ranks < b->ranks ? -1 : 1;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    if (a->vector != b->vector)
        return a->vector < b->vector ? -1 : 1;
    return a->total < b->total ? -1 : a->total > b->total;
}

/* Adds one instance to the rows (a linear search: a trace has few distinct kinds). */
static int add(struct rt_coll_census *c, const struct rt_coll_census_row *x, size_t *cap)
{
    for (size_t i = 0; i < c->n; i++)
        if (same_row(&c->rows[i], x)) {
            c->rows[i].instances++;
            return RT_OK;
        }
    if (c->n == RT_COLL_CENSUS_MAX) {
        c->more++;
        return RT_OK;
    }
    if (c->n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        struct rt_coll_census_row *v = realloc(c->rows, ncap * sizeof *v);
        if (!v)
            return RT_ENOMEM;
        c->rows = v;
        *cap = ncap;
    }
    c->rows[c->n] = *x;
    c->rows[c->n++].instances = 1;
    return RT_OK;
}

int rt_coll_census(const rt_trace *t, const rt_coll_rules *rules, const uint8_t *override, struct rt_coll_census *out,
                   rt_error *err)
{
    memset(out, 0, sizeof *out);
    struct rt__coll_member *mem = NULL;
    uint64_t *pos = NULL;
    size_t cap = 0;
    int rc = RT_OK;
    for (uint32_t c = 0; c < rt_trace_comms(t) && !rc; c++) {
        const struct rt_comm *cm = rt_trace_comm(t, c);
        uint32_t P = cm->size;
        if (!cm->members || P < 2)
            continue; /* one rank alone sends nothing */
        free(mem);
        free(pos);
        mem = calloc(P, sizeof *mem);
        pos = calloc(P, sizeof *pos);
        if (!mem || !pos) {
            rc = RT_ENOMEM;
            break;
        }
        for (;;) {
            uint64_t first = UINT64_MAX;
            uint32_t missing = 0, root = 0;
            int op = RT_COLL_OTHER, vector = 0;
            for (uint32_t i = 0; i < P; i++) {
                uint32_t row = cm->members[i];
                uint64_t k = row < rt_trace_ranks(t) ? next_begin(t, row, c, &pos[i]) : UINT64_MAX;
                if (k == UINT64_MAX) {
                    missing++;
                    continue;
                }
                uint64_t nev;
                const struct rt_event *ev = rt_trace_events(t, row, &nev), *e = &ev[k];
                mem[i].sent = rt_trace_payload(t, row, k).bytes;
                mem[i].recv = received(t, row, k);
                mem[i].in_place = (e->flags & RT_EVF_IN_PLACE) != 0;
                if (first == UINT64_MAX) {
                    first = k;
                    uint64_t ke = e->kind == RT_EV_NBCOLL_BEGIN ? nb_end(ev, nev, k) : k; /* where its op is */
                    uint32_t a = ke == UINT64_MAX ? RT_COLL_OTHER : ev[ke].aux;
                    op = a <= RT_COLL_OTHER ? (int)a : RT_COLL_OTHER;
                    for (uint32_t j = 0; e->ref != RT_NONE && j < P; j++)
                        if (cm->members[j] == e->ref)
                            root = j;
                }
                vector |= (e->flags & RT_EVF_VECTOR) != 0;
            }
            if (first == UINT64_MAX)
                break; /* every member is past its last collective here */
            if (missing) {
                out->incomplete++;
                continue;
            }
            uint32_t a, b;
            if (rt__coll_blocks(op, P, root, vector, mem, &a, &b)) {
                out->mismatched++;
                continue;
            }
            struct rt_coll_census_row x = {.op = op, .vector = vector, .ranks = P};
            for (uint32_t i = 0; i < P; i++) {
                x.block = mem[i].block > x.block ? mem[i].block : x.block;
                x.total += mem[i].block;
            }
            rt__coll_plan_of(rules, override, op, vector, P, mem, &x.plan);
            if ((rc = add(out, &x, &cap)) != RT_OK)
                break;
        }
    }
    free(mem);
    free(pos);
    if (rc) {
        rt_coll_census_free(out);
        return rt_error_set(err, rc, "%s: out of memory", rt_trace_path(t));
    }
    if (out->n)
        qsort(out->rows, out->n, sizeof *out->rows, cmp_row);
    return RT_OK;
}

void rt_coll_census_free(struct rt_coll_census *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
