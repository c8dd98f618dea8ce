/* SPDX-License-Identifier: MIT */
/* Hash tables of the tracer: pending nonblocking requests and known communicators. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handles are opaque (pointers in Open MPI, ints in MPICH); they are hashed by their bytes. */
static inline uint64_t rt__hash_bytes(const void *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

/* --- requests ----------------------------------------------------------------------------- */

/* Open addressing with linear probing and backward-shift deletion (no tombstones), so a table
 * that sees millions of short-lived requests never degrades. It grows on demand: the number of
 * pending requests is the program's, not ours to bound. */
static struct rt__request *rt__reqs;
static size_t rt__req_cap, rt__req_n;

static inline size_t rt__req_slot(MPI_Request h)
{
    return (size_t)rt__hash_bytes(&h, sizeof h) & (rt__req_cap - 1);
}

static int rt__req_grow(void)
{
    size_t ncap = rt__req_cap ? rt__req_cap * 2 : 256;
    struct rt__request *old = rt__reqs, *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        return -1;
    size_t ocap = rt__req_cap;
    rt__reqs = nt;
    rt__req_cap = ncap;
    rt__req_n = 0;
    /* From an empty slot on, which no probe run crosses, so that entries of one handle go in as
     * they stood (rt__req_insert_entry): the older first. */
    size_t start = 0;
    while (start < ocap && old[start].kind)
        start++;
    for (size_t k = 1; k <= ocap; k++) {
        size_t i = (start + k) & (ocap - 1);
        if (old[i].kind)
            rt__req_insert_entry(&old[i]);
    }
    free(old);
    return 0;
}

/* Requests are known by the handle MPI returned and by the caller's variable that holds it (its
 * address, the "slot"), because one handle can stand for several pending requests: Open MPI 4.1
 * returns the same complete request (ompi_request_empty) for every MPI_Isend it sends inline and
 * for every non-blocking collective on a one-rank communicator. So a handle already pending keeps
 * its entry, and the new one goes beside it, the older first along the probe run (backward-shift
 * deletion and growing keep their order). Only the same handle in the same slot replaces an
 * entry: the caller overwrote that variable, so MPI reused the handle after a completion the
 * tracer did not see. A completion takes the entry of its own slot, else the oldest of the
 * handle (a program may complete a copy of its request variable). Non-blocking collectives never
 * replace each other, as before: each request id gets its NonBlockingCollectiveComplete. */
static int rt__req_same(const struct rt__request *e, const struct rt__request *q)
{
    return e->handle == q->handle && e->slot == q->slot &&
           !(e->kind == RT_REQ_COLL && q->kind == RT_REQ_COLL);
}

int rt__req_insert_entry(const struct rt__request *q)
{
    if ((rt__req_n + 1) * 2 > rt__req_cap && rt__req_grow() != 0)
        return -1;
    size_t i = rt__req_slot(q->handle);
    while (rt__reqs[i].kind && !rt__req_same(&rt__reqs[i], q))
        i = (i + 1) & (rt__req_cap - 1);
    if (!rt__reqs[i].kind)
        rt__req_n++;
    rt__reqs[i] = *q;
    return 0;
}

int rt__req_insert(MPI_Request handle, const MPI_Request *slot, MPI_Comm comm_handle, uint64_t id,
                   int kind, uint32_t comm)
{
    struct rt__request q = {.handle = handle, .slot = slot, .comm_handle = comm_handle, .id = id,
                            .comm = comm, .kind = kind};
    return rt__req_insert_entry(&q);
}

/* The entry of @p handle held in @p slot, else the oldest entry of @p handle (see above). */
static size_t rt__req_index(MPI_Request handle, const MPI_Request *slot)
{
    if (!rt__req_n)
        return SIZE_MAX;
    size_t i = rt__req_slot(handle), first = SIZE_MAX;
    while (rt__reqs[i].kind) {
        if (rt__reqs[i].handle == handle) {
            if (rt__reqs[i].slot == slot)
                return i;
            if (first == SIZE_MAX)
                first = i;
        }
        i = (i + 1) & (rt__req_cap - 1);
    }
    return first;
}

int rt__req_find(MPI_Request handle, const MPI_Request *slot, struct rt__request *out)
{
    size_t i = rt__req_index(handle, slot);
    if (i == SIZE_MAX)
        return -1;
    *out = rt__reqs[i];
    return 0;
}

int rt__req_take(MPI_Request handle, const MPI_Request *slot, struct rt__request *out)
{
    size_t i = rt__req_index(handle, slot);
    if (i == SIZE_MAX)
        return -1;
    *out = rt__reqs[i];
    /* Backward shift: move later members of the probe run into the hole when their home slot
     * does not lie cyclically between the hole and their current position. */
    size_t mask = rt__req_cap - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!rt__reqs[j].kind)
            break;
        size_t home = rt__req_slot(rt__reqs[j].handle);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            rt__reqs[i] = rt__reqs[j];
            i = j;
        }
    }
    rt__reqs[i].kind = 0;
    rt__req_n--;
    return 0;
}

size_t rt__req_count(void)
{
    return rt__req_n;
}

/* --- communicators ------------------------------------------------------------------------ */

/* Programs create few communicators, so a small array searched linearly is enough; the common
 * MPI_COMM_WORLD never gets here (see rt__comm_id). */
struct rt__comm_entry {
    MPI_Comm comm;
    uint32_t id;
};
static struct rt__comm_entry *rt__comms;
static size_t rt__n_comms, rt__cap_comms;

void rt__comm_insert(MPI_Comm comm, uint32_t id)
{
    for (size_t i = 0; i < rt__n_comms; i++)
        if (rt__comms[i].comm == comm) {
            rt__comms[i].id = id;
            return;
        }
    if (rt__n_comms == rt__cap_comms) {
        size_t ncap = rt__cap_comms ? rt__cap_comms * 2 : 16;
        struct rt__comm_entry *n = realloc(rt__comms, ncap * sizeof *n);
        if (!n)
            return; /* The comm stays unknown: its events fall back to world ranks. */
        rt__comms = n;
        rt__cap_comms = ncap;
    }
    rt__comms[rt__n_comms++] = (struct rt__comm_entry){comm, id};
}

void rt__comm_remove(MPI_Comm comm)
{
    for (size_t i = 0; i < rt__n_comms; i++)
        if (rt__comms[i].comm == comm) {
            rt__comms[i] = rt__comms[--rt__n_comms];
            return;
        }
}

uint32_t rt__comm_lookup_slow(MPI_Comm comm)
{
    for (size_t i = 0; i < rt__n_comms; i++)
        if (rt__comms[i].comm == comm)
            return rt__comms[i].id;
    return RT_COMM_UNKNOWN;
}

/* Appends a global key to this rank's comm list; world and self take local ids 0 and 1. */
static uint32_t rt__comm_add_key(uint32_t key)
{
    if (rt__g.n_comm_keys == rt__g.cap_comm_keys) {
        uint32_t ncap = rt__g.cap_comm_keys ? rt__g.cap_comm_keys * 2 : 16;
        uint32_t *k = realloc(rt__g.comm_keys, ncap * sizeof *k);
        if (!k)
            return RT_COMM_UNKNOWN;
        rt__g.comm_keys = k;
        rt__g.cap_comm_keys = ncap;
    }
    if (rt__g.n_comm_keys == 0) {
        rt__g.comm_keys[0] = RT_COMM_WORLD_ID;
        rt__g.comm_keys[1] = RT_COMM_SELF_ID;
        rt__g.n_comm_keys = 2;
    }
    rt__g.comm_keys[rt__g.n_comm_keys] = key;
    return rt__g.n_comm_keys++;
}

void rt__comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how)
{
    if (newcomm == MPI_COMM_NULL)
        return;
    int inter = 0, me = 0, n = 0;
    PMPI_Comm_test_inter(newcomm, &inter);
    if (inter)
        return; /* Intercommunicators are not defined; their events use world ranks. */
    PMPI_Comm_rank(newcomm, &me);
    PMPI_Comm_size(newcomm, &n);
    /* The new comm's rank 0 names it: 2 + k * P + its world rank, where k counts the comms that
     * rank named before. Unique without a global agreement; the broadcast is legal here because
     * all members are inside the creating call. */
    uint32_t key = 0;
    if (me == 0)
        key = 2u + rt__g.comm_counter++ * (uint32_t)rt__g.size + (uint32_t)rt__g.rank;
    PMPI_Bcast(&key, 1, MPI_UINT32_T, 0, newcomm);
    uint32_t lid = rt__comm_add_key(key);
    if (lid == RT_COMM_UNKNOWN)
        return;
    rt__comm_insert(newcomm, lid);
    if (me != 0)
        return;
    if (rt__g.n_comm_defs == rt__g.cap_comm_defs) {
        uint32_t ncap = rt__g.cap_comm_defs ? rt__g.cap_comm_defs * 2 : 8;
        struct rt__comm_def *d = realloc(rt__g.comm_defs, ncap * sizeof *d);
        if (!d)
            return;
        rt__g.comm_defs = d;
        rt__g.cap_comm_defs = ncap;
    }
    struct rt__comm_def *d = &rt__g.comm_defs[rt__g.n_comm_defs];
    d->world_ranks = malloc((size_t)n * sizeof *d->world_ranks);
    int *local = malloc((size_t)n * sizeof *local), *world = malloc((size_t)n * sizeof *world);
    if (!d->world_ranks || !local || !world) {
        free(d->world_ranks);
        free(local);
        free(world);
        return;
    }
    MPI_Group g, wg;
    PMPI_Comm_group(newcomm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        local[i] = i;
    PMPI_Group_translate_ranks(g, n, local, wg, world);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    for (int i = 0; i < n; i++)
        d->world_ranks[i] = (uint32_t)world[i];
    free(local);
    free(world);
    d->key = key;
    uint32_t pid = rt__comm_id(parent);
    d->parent_key = pid < rt__g.n_comm_keys ? rt__g.comm_keys[pid] : OTF2_UNDEFINED_COMM;
    d->size = (uint32_t)n;
    snprintf(d->name, sizeof d->name, "%s %u", how, key);
    rt__g.n_comm_defs++;
}
