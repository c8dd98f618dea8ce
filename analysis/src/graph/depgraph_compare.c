/* SPDX-License-Identifier: MIT */
/* The comparison of two timings A and B of the same trace: per edge δ = w_B - w_A, accumulated
 * where the edge is on B's critical path and absorbed elsewhere, its sums and rows over every
 * process. The walk over the events adds up the edges with cmp_visit (depgraph_compare.h). */
#include "depgraph_compare.h"

void rt__dg_cmp_sizes_flush(struct cmp_sums *k)
{
    for (uint32_t i = 0; i < SIZE_ROWS; i++)
        if (k->size_used[i])
            smap_add(&k->m, RT_GROUP_SIZE, 0, i == SIZE_ROWS - 1 ? RT_NONE : i, RT_NONE, 0, k->size_v[i][0],
                     k->size_v[i][1]);
}

void rt__dg_cmp_merge(struct cmp_sums *dst, const struct cmp_sums *src)
{
    rt__dg_smap_merge(&dst->m, &src->m);
    dst->len_a_cpb += src->len_a_cpb;
    if (dst->d) { /* then src->d is the thread's own */
        dst->d->edges += src->d->edges;
        dst->d->source_changed += src->d->source_changed;
        dst->d->injected += src->d->injected;
        dst->d->injected_negative += src->d->injected_negative;
    }
}

int rt__dg_cmp_finish(struct cmp_sums *k, int rc, rt_error *err)
{
    const rt_depgraph *A = k->a, *B = k->b;
    struct rt_depgraph_diff *d = k->d;
    /* len_A(B's critical path), edges, injected, source_changed, injected_negative */
    int64_t v[5] = {0};
    if (d) {
        v[0] = k->len_a_cpb;
        v[1] = (int64_t)d->edges;
        v[2] = d->injected;
        v[3] = (int64_t)d->source_changed;
        v[4] = d->injected_negative;
    }
    if ((rc = rt__dg_reduce(&A->dp, v, 5, 1, rc, err)))
        return rc;
    d->injected_negative = v[4];
    d->edges = (uint64_t)v[1];
    d->injected = v[2];
    d->source_changed = (uint64_t)v[3];
    d->accumulated = B->cp.length_ps - v[0];
    d->slack = A->cp.length_ps - v[0];
    d->absorbed = d->injected - d->accumulated;
    d->residual = (d->end_b - d->end_a) - (d->accumulated - d->slack);
    return rt__dg_shares_finish(&A->dp, &k->m, 1, &d->share, &d->nshare, RT_OK, err);
}
