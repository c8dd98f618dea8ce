/* SPDX-License-Identifier: MIT */
/*
 * Congestion on the critical path (retime/congestion.h). A message's contention delay on a link (the
 * time it lost while that link was its bottleneck, netflow.c) lengthens its remote edge, from its
 * origin event to the event that completes it. When that edge is on the critical path (the
 * completing event is on the path and the remote edge binds, from that origin), all of the
 * message's delay is on the path: accumulated; otherwise slack absorbed it. This splits the part
 * of end(B) - end(A) that contention explains by link; the identity of the whole comparison is
 * the analysis's (rt_depgraph_compare).
 *
 * A collective run as messages on a network: a member's leaving on the critical path whose
 * remote edge binds goes back to its origin's entry through a chain of the collective's internal
 * messages (the replay's coll_binds and coll_pred); the delays of the messages of that chain are
 * accumulated, those of its other messages (other branches of a tree, members that left earlier)
 * absorbed.
 *
 * Under mpirun each process holds its ranks' graph and process 0 the records (its copy of the
 * network makes them, naming collectives' messages by instance and place): each process finds
 * the critical path's messages on its ranks, process 0 gathers them, marks and sums.
 */
#include "retime/congestion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/topology.h"

struct key {
    uint64_t ev;
    uint32_t rank;
};

/* What a process finds on its part of the critical path, sent to process 0 (or kept, alone): a
 * message's remote edge that binds there (its origin), or the last message of the chain a
 * collective leaving goes back to (by name under mpirun, else by number: instance UINT64_MAX). */
enum { FOUND_MESSAGE, FOUND_CHAIN };
struct found {
    uint64_t a, b; /* FOUND_MESSAGE: origin event, rank; FOUND_CHAIN: instance, place (or number) */
    uint64_t kind;
};

/* A link id against a link's use (bsearch over res->links, which are by link id). */
static int use_cmp(const void *key, const void *elem)
{
    uint32_t x = *(const uint32_t *)key, y = ((const struct rt_link_use *)elem)->link;
    return x < y ? -1 : x > y;
}

static int bind_cmp(const void *a, const void *b)
{
    const struct rt_coll_bind *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static int row_cmp(const void *a, const void *b)
{
    const struct rt_congestion_row *x = a, *y = b;
    if (x->accumulated_ps != y->accumulated_ps)
        return x->accumulated_ps > y->accumulated_ps ? -1 : 1;
    if (x->absorbed_ps != y->absorbed_ps)
        return x->absorbed_ps > y->absorbed_ps ? -1 : 1;
    return x->link < y->link ? -1 : x->link > y->link ? 1 : strcmp(x->name, y->name);
}

/* A collective's message by name, with its number here (mark_path's index). */
struct named {
    struct rt_coll_msg_name name;
    uint64_t number;
};

static int named_cmp(const void *a, const void *b)
{
    const struct rt_coll_msg_name *x = &((const struct named *)a)->name, *y = &((const struct named *)b)->name;
    if (x->instance != y->instance)
        return x->instance < y->instance ? -1 : 1;
    return x->place < y->place ? -1 : x->place > y->place;
}

static int grow(void **v, uint64_t *cap, size_t elem, uint64_t n)
{
    if (n < *cap)
        return 0;
    uint64_t nc = *cap ? 2 * *cap : 256;
    void *p = realloc(*v, nc * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = nc;
    return 0;
}

/* This process's finds along the critical path of @p g into *@p out (*@p n of them): the origins
 * of the remote edges that bind on it, and the chains' last messages of the collective leavings
 * that do. RT_OK or RT_ENOMEM. */
static int find_on_path(const struct rt_replay_result *res, const rt_depgraph *g, const rt_trace *t,
                        struct found **out, uint64_t *n)
{
    struct rt_coll_bind *binds = NULL;
    uint64_t cap = 0;
    int rc = RT_ENOMEM;
    *out = NULL;
    *n = 0;
    if (res->ncoll_binds) {
        if (!(binds = malloc(res->ncoll_binds * sizeof *binds)))
            goto out;
        memcpy(binds, res->coll_binds, res->ncoll_binds * sizeof *binds);
        qsort(binds, res->ncoll_binds, sizeof *binds, bind_cmp);
    }
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t ne;
        rt_trace_events(t, r, &ne);
        for (uint64_t j = 0; j < ne; j++) {
            struct rt_dep_event d;
            if (rt_depgraph_event(g, r, j, &d, NULL) || !d.on_path || !d.remote_binds || d.src_rank == RT_NONE)
                continue; /* (another process's rank: not held here) */
            struct found f = {d.src_index, d.src_rank, FOUND_MESSAGE};
            if (d.kind == RT_DEP_COLLECTIVE && binds) {
                struct rt_coll_bind k = {j, r, 0};
                const struct rt_coll_bind *b = bsearch(&k, binds, res->ncoll_binds, sizeof *binds, bind_cmp);
                if (!b || b->msg >= res->ncoll_msgs)
                    continue; /* its own entry timed it: no message */
                f = res->coll_names ? (struct found){res->coll_names[b->msg].instance, res->coll_names[b->msg].place, FOUND_CHAIN}
                                    : (struct found){UINT64_MAX, b->msg, FOUND_CHAIN};
            } else if (d.kind != RT_DEP_MESSAGE) {
                continue;
            }
            if (grow((void **)out, &cap, sizeof **out, *n))
                goto out;
            (*out)[(*n)++] = f;
        }
    }
    rc = RT_OK;
out:
    free(binds);
    return rc;
}

/* Marks what is on the critical path, from every process's finds @p f (@p nf): the origins into
 * *@p on (sorted, *@p non), the collectives' messages on chains into *@p on_chain (per number of
 * @p res). RT_OK, RT_ENOMEM or RT_ECORRUPT (a chain's message this process does not number). */
static int mark_path(const struct rt_replay_result *res, const struct found *f, uint64_t nf, struct key **on,
                     uint64_t *non, uint8_t **on_chain)
{
    struct named *byname = NULL;
    uint64_t cap = 0;
    int rc = RT_ENOMEM;
    *on = NULL;
    *non = 0;
    *on_chain = NULL;
    if (res->ncoll_msgs && !(*on_chain = calloc(res->ncoll_msgs, 1)))
        goto out;
    if (res->coll_names && res->ncoll_msgs) { /* the numbers here by name */
        if (!(byname = malloc(res->ncoll_msgs * sizeof *byname)))
            goto out;
        for (uint64_t i = 0; i < res->ncoll_msgs; i++)
            byname[i] = (struct named){res->coll_names[i], i};
        qsort(byname, res->ncoll_msgs, sizeof *byname, named_cmp);
    }
    for (uint64_t i = 0; i < nf; i++) {
        if (f[i].kind == FOUND_MESSAGE) {
            if (grow((void **)on, &cap, sizeof **on, *non))
                goto out;
            (*on)[(*non)++] = (struct key){f[i].a, (uint32_t)f[i].b};
            continue;
        }
        uint64_t m = f[i].b;
        if (f[i].a != UINT64_MAX) { /* a name: its number here */
            struct named want = {{f[i].a, f[i].b}, 0};
            const struct named *x = byname ? bsearch(&want, byname, res->ncoll_msgs, sizeof *byname, named_cmp) : NULL;
            if (!x) {
                rc = RT_ECORRUPT;
                goto out;
            }
            m = x->number;
        }
        for (; m < res->ncoll_msgs && !(*on_chain)[m]; m = res->coll_pred[m])
            (*on_chain)[m] = 1; /* (a chain goes back within its instance's schedule: it ends) */
    }
    if (*non > 1)
        qsort(*on, *non, sizeof **on, key_cmp);
    rc = RT_OK;
out:
    free(byname);
    return rc;
}

/* "NIC injection", "torus dim 1 +", "fat tree level 2 down", "dragonfly global": what a link is. */
static void kind_name(const rt_topology *topo, const struct rt_link_info *li, char *buf, size_t n)
{
    const char *k = rt_topology_kind(topo);
    if (li->kind == RT_LINK_INJECT)
        snprintf(buf, n, "NIC injection");
    else if (li->kind == RT_LINK_EJECT)
        snprintf(buf, n, "NIC ejection");
    else if (!strcmp(k, "torus") || !strcmp(k, "mesh"))
        snprintf(buf, n, "%s dim %u %s", k, li->level, li->up ? "+" : "-");
    else if (!strcmp(k, "fattree"))
        snprintf(buf, n, "fat tree level %u %s", li->level, li->up ? "up" : "down");
    else if (!strcmp(k, "dragonfly"))
        snprintf(buf, n, "dragonfly %s", li->level ? "global" : "local");
    else
        snprintf(buf, n, "%s link", k);
}

int rt_congestion_create(const rt_network *net, const struct rt_replay_result *res, const rt_depgraph *g,
                         const rt_trace *t, struct rt_congestion **out, rt_error *err)
{
    const rt_topology *topo = rt_network_topology(net);
    struct key *on = NULL;
    uint64_t non = 0, nmine = 0;
    struct found *mine = NULL, *all = NULL;
    size_t alllen = 0;
    uint8_t *on_chain = NULL; /* per internal message of a collective: on the critical path */
    struct rt_congestion *c = calloc(1, sizeof *c);
    *out = NULL;
    /* what is on the critical path: each process finds it on its ranks, process 0 (which has the
     * records under mpirun) marks it; a gather of nothing then lets every process agree */
    int rc = c ? find_on_path(res, g, t, &mine, &nmine) : RT_ENOMEM;
    if (rc)
        rc = rt_error_set(err, rc, "out of memory");
    rc = rt_depgraph_gather(g, mine, nmine * sizeof *mine, (void **)&all, &alllen, rc, err);
    free(mine);
    if (!rc && all && (rc = mark_path(res, all, alllen / sizeof *all, &on, &non, &on_chain)))
        rc = rc == RT_ENOMEM ? rt_error_set(err, rc, "out of memory")
                             : rt_error_set(err, rc, "%s: congestion: a collective's message on the critical path was "
                                                     "not numbered by process 0", rt_trace_path(t));
    free(all);
    all = NULL;
    if ((rc = rt_depgraph_gather(g, NULL, 0, (void **)&all, &alllen, rc, err)))
        goto fail;
    free(all);
    /* per link, then per kind of link: an index by the place of the link among the links the
     * messages used (res->links, by link id), not by link id, which may run to billions */
    uint32_t nl = res->nlinks;
    int32_t *row_of = malloc((nl ? nl : 1) * sizeof *row_of);
    if (!row_of)
        goto oom;
    for (uint32_t l = 0; l < nl; l++)
        row_of[l] = -1;
    struct rt_congestion_row *rows = NULL;
    uint32_t nrows = 0, caprows = 0;
    struct key prev = {UINT64_MAX, UINT32_MAX};
    uint64_t prev_msg = UINT64_MAX;
    for (uint64_t i = 0; i < res->ncontention; i++) {
        const struct rt_msg_contention *m = &res->contention[i];
        const struct rt_link_use *u = nl ? bsearch(&m->link, res->links, nl, sizeof *res->links, use_cmp) : NULL;
        if (!u)
            continue;
        uint32_t li = (uint32_t)(u - res->links);
        struct key k = {m->origin_ev, m->origin_rank};
        int path = m->coll_msg != UINT64_MAX ? on_chain && m->coll_msg < res->ncoll_msgs && on_chain[m->coll_msg]
                                             : on && bsearch(&k, on, non, sizeof *on, key_cmp) != NULL;
        if (k.ev != prev.ev || k.rank != prev.rank || m->coll_msg != prev_msg) /* a message's records are consecutive */
            c->messages++;
        prev = k;
        prev_msg = m->coll_msg;
        if (row_of[li] < 0) {
            if (nrows == caprows) {
                caprows = caprows ? 2 * caprows : 64;
                struct rt_congestion_row *nr = realloc(rows, caprows * sizeof *nr);
                if (!nr) {
                    free(row_of);
                    free(rows);
                    goto oom;
                }
                rows = nr;
            }
            row_of[li] = (int32_t)nrows;
            rows[nrows] = (struct rt_congestion_row){.link = m->link};
            rt_network_link_name(net, m->link, rows[nrows].name, sizeof rows[nrows].name);
            nrows++;
        }
        struct rt_congestion_row *row = &rows[row_of[li]];
        row->messages++;
        if (path)
            row->accumulated_ps += m->delay_ps, c->accumulated_ps += m->delay_ps;
        else
            row->absorbed_ps += m->delay_ps, c->absorbed_ps += m->delay_ps;
        c->total_ps += m->delay_ps;
    }
    free(row_of);
    free(on);
    free(on_chain);
    on = NULL;
    on_chain = NULL;
    c->links = rows;
    c->nlinks = nrows;
    /* kinds: few, a linear search each */
    c->kinds = calloc(nrows ? nrows : 1, sizeof *c->kinds);
    if (!c->kinds)
        goto oom;
    for (uint32_t i = 0; i < nrows; i++) {
        struct rt_link_info li;
        char name[64];
        rt_topology_link(topo, rows[i].link, &li);
        kind_name(topo, &li, name, sizeof name);
        uint32_t k = 0;
        while (k < c->nkinds && strcmp(c->kinds[k].name, name))
            k++;
        if (k == c->nkinds) {
            c->kinds[c->nkinds++] = (struct rt_congestion_row){.link = UINT32_MAX};
            snprintf(c->kinds[k].name, sizeof c->kinds[k].name, "%s", name);
        }
        c->kinds[k].accumulated_ps += rows[i].accumulated_ps;
        c->kinds[k].absorbed_ps += rows[i].absorbed_ps;
        c->kinds[k].messages += rows[i].messages;
    }
    if (c->nlinks)
        qsort(c->links, c->nlinks, sizeof *c->links, row_cmp);
    if (c->nkinds)
        qsort(c->kinds, c->nkinds, sizeof *c->kinds, row_cmp);
    *out = c;
    return RT_OK;
oom:
    rc = rt_error_set(err, RT_ENOMEM, "out of memory");
fail:
    free(on);
    free(on_chain);
    rt_congestion_destroy(c);
    return rc;
}

void rt_congestion_destroy(struct rt_congestion *c)
{
    if (!c)
        return;
    free(c->links);
    free(c->kinds);
    free(c);
}
