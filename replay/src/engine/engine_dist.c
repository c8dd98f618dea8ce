/* SPDX-License-Identifier: MIT */
/*
 * The distributed replay's rounds (struct rt_replay_part): the records one process sends another,
 * their swap, and the agreement on time and on errors. It knows no engine (engine_dist.h).
 *
 * Each process replays its own ranks with the serial engine and queues what crosses to another
 * process (a record) here until the end of a round; then the processes swap these, the engine
 * applies those it received, and the processes agree on T, the earliest queued time over all of
 * them, records not yet swapped included, and tau, the earliest type at T. The engine then takes
 * what it may of its queue before T's round ends (engine_remote.c: its bounds) and the next round
 * begins, until nothing is queued anywhere (docs/distributed.md).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_dist.h"
#include "grow.h"
#include "retime/replay.h"

/* Records queued for one process. */
struct outbox {
    char *v;
    uint32_t n, cap; /* records */
};

struct rt__dist {
    const struct rt_replay_part *P;
    size_t rec_size;
    const char *path; /* the trace's, for errors */
    rt_error *err;
    struct outbox *out; /* per process */
    int64_t due;        /* the earliest due time of the records queued since the last swap */
};

struct rt__dist *rt__dist_create(const struct rt_replay_part *P, size_t rec_size, const char *path, rt_error *err)
{
    struct rt__dist *D = calloc(1, sizeof *D);
    if (!D)
        return NULL;
    *D = (struct rt__dist){P, rec_size, path, err, calloc(P->nprocs ? P->nprocs : 1, sizeof *D->out), INT64_MAX};
    if (!D->out) {
        free(D);
        return NULL;
    }
    return D;
}

void rt__dist_destroy(struct rt__dist *D)
{
    if (!D)
        return;
    for (uint32_t p = 0; p < D->P->nprocs; p++)
        free(D->out[p].v);
    free(D->out);
    free(D);
}

int rt__dist_send(struct rt__dist *D, uint32_t proc, const void *rec, int64_t due)
{
    struct outbox *b = &D->out[proc];
    if (rt__grow((void **)&b->v, &b->cap, D->rec_size, b->n + 1))
        return -1;
    memcpy(b->v + (size_t)b->n++ * D->rec_size, rec, D->rec_size);
    D->due = due < D->due ? due : D->due;
    return 0;
}

/* Sends the records queued and applies those received (all of them unless the engine fails,
 * *@p failed then set); RT_OK or the transport's error. */
static int swap(struct rt__dist *D, const struct rt__dist_ops *ops, void *ud, int *failed)
{
    const struct rt_replay_part *P = D->P;
    void *outp[P->nprocs > 0 ? P->nprocs : 1], *inp[P->nprocs > 0 ? P->nprocs : 1];
    size_t outlen[P->nprocs > 0 ? P->nprocs : 1], inlen[P->nprocs > 0 ? P->nprocs : 1];
    for (uint32_t p = 0; p < P->nprocs; p++) {
        outp[p] = D->out[p].v;
        outlen[p] = D->out[p].n * D->rec_size;
    }
    int rc = P->exchange(P->ud, outp, outlen, inp, inlen);
    for (uint32_t p = 0; p < P->nprocs; p++)
        D->out[p].n = 0;
    D->due = INT64_MAX;
    if (rc)
        return rc;
    for (uint32_t p = 0; p < P->nprocs && !*failed; p++) {
        if (inlen[p] % D->rec_size) {
            *failed = rt_error_set(D->err, RT_ECORRUPT, "%s: distributed replay: process %u sent %zu bytes", D->path,
                                   p, inlen[p]);
            break;
        }
        const char *f = inp[p];
        for (size_t i = 0; i < inlen[p] / D->rec_size && !*failed; i++)
            *failed = ops->apply(ud, p, f + i * D->rec_size);
    }
    return RT_OK;
}

static int reduce_failed(struct rt__dist *D, int rc)
{
    return rt_error_set(D->err, rc, "%s: distributed replay: reduction failed", D->path);
}

int rt__dist_rounds(struct rt__dist *D, const struct rt__dist_ops *ops, void *ud, int failed)
{
    const struct rt_replay_part *P = D->P;
    for (;;) {
        int rc = swap(D, ops, ud, &failed);
        if (rc)
            return failed ? failed : rt_error_set(D->err, rc, "%s: distributed replay: exchange failed", D->path);
        int64_t v[4 + RT__DIST_EXT], ty;
        int ask;
        ops->earliest(ud, &v[0], &ty, &ask, &v[4]);
        /* what the swap itself made (a collective's results) is queued elsewhere only next round */
        if (D->due < v[0] || (D->due == v[0] && ty))
            v[0] = D->due, ty = 0;
        v[1] = failed ? 0 : 1;
        int64_t mine = v[0];
        /* time and type in one value, so that one reduction gives both (times below 2^60 ps, 13
         * days; beyond, a second reduction finds the type) */
        v[2] = mine >= 0 && mine < (INT64_C(1) << 60) && ty < 8 ? mine * 8 + ty : INT64_MAX;
        v[3] = ask ? 0 : 1;
        if ((rc = P->reduce(P->ud, v, 4 + RT__DIST_EXT, 0)))
            return reduce_failed(D, rc);
        if (v[1] == 0)
            return failed ? failed : rt_error_set(D->err, RT_EREMOTE, "%s: stopped: another process failed", D->path);
        if (v[0] == INT64_MAX)
            return RT_OK;
        int64_t tau = v[2] != INT64_MAX && v[2] / 8 == v[0] ? v[2] % 8 : INT64_MAX;
        if (tau == INT64_MAX) {
            tau = mine == v[0] ? ty : INT64_MAX;
            if ((rc = P->reduce(P->ud, &tau, 1, 0)))
                return reduce_failed(D, rc);
        }
        failed = ops->round(ud, v[0], tau, v[3] == 0, &v[4]);
    }
}

int64_t rt__dist_due(const struct rt__dist *D)
{
    return D->due;
}

int rt__dist_reduce(struct rt__dist *D, int64_t *v, size_t n, int sum)
{
    int rc = D->P->reduce(D->P->ud, v, n, sum);
    return rc ? reduce_failed(D, rc) : RT_OK;
}

int rt__dist_agree(struct rt__dist *D, int rc)
{
    int64_t v = rc && rc != RT_EREMOTE ? (int64_t)D->P->me : INT64_MAX; /* the first real error */
    int prc = D->P->reduce(D->P->ud, &v, 1, 0);
    if (prc)
        return rc ? rc : reduce_failed(D, prc);
    if (v == INT64_MAX || v == (int64_t)D->P->me)
        return rc;
    return rt_error_set(D->err, RT_EREMOTE, "%s: stopped: process %lld of the distributed replay failed", D->path,
                        (long long)v);
}
