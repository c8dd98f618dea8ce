/* SPDX-License-Identifier: MIT */
/* PMPI wrappers of point-to-point calls and of request completion (Wait and Test families; they
 * also complete the non-blocking collectives of wrap_coll.c). */
#include "trace.h"

#include <stdlib.h>

#define RT_CALLER() __builtin_return_address(0)
#define RT_STACK_REQS 64

/* Each writer call checks the active flag first: after an OTF2 failure tracing stops for good
 * while the wrapped MPI call itself always runs unchanged. */
static void rt__rec_send(uint64_t t, MPI_Comm comm, int dest, int tag, uint64_t bytes)
{
    if (!rt__g.active)
        return;
    uint32_t cid, peer = rt__peer(comm, dest, &cid);
    rt__g.in_tracer = 1;
    uint64_t *p = rt__evlog_put(t, RT_EV_SEND, 0, peer, 2);
    p[0] = cid | (uint64_t)(uint32_t)tag << 32;
    p[1] = bytes;
    rt__out();
}

static void rt__rec_recv(uint64_t t, MPI_Comm comm, const MPI_Status *st)
{
    if (!rt__g.active || st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    uint32_t cid, peer = rt__peer(comm, st->MPI_SOURCE, &cid);
    rt__g.in_tracer = 1;
    uint64_t *p = rt__evlog_put(t, RT_EV_RECV, 0, peer, 2);
    p[0] = cid | (uint64_t)(uint32_t)st->MPI_TAG << 32;
    p[1] = n == MPI_UNDEFINED ? 0 : (uint64_t)n;
    rt__out();
}

/* Records the completion of a tracked request; @p handle is the caller's handle as it was before
 * MPI set it to MPI_REQUEST_NULL, @p slot the caller's variable that held it. */
static void rt__completed(MPI_Request handle, const MPI_Request *slot, const MPI_Status *st,
                          uint64_t t)
{
    struct rt__request q;
    if (handle == MPI_REQUEST_NULL || rt__req_take(handle, slot, &q) != 0 || !rt__g.active)
        return;
    rt__g.in_tracer = 1;
    if (q.kind == RT_REQ_SEND) {
        *rt__evlog_put(t, RT_EV_ISEND_COMPLETE, 0, 0, 1) = q.id;
    } else if (q.kind == RT_REQ_COLL) { /* a non-blocking collective (wrap_coll.c) */
        uint64_t *p = rt__evlog_put(t, RT_EV_NBC_COMPLETE, q.in_place ? RT_EVF_IN_PLACE : 0,
                                    (uint32_t)q.op, 4);
        p[0] = q.comm | (uint64_t)q.root << 32;
        p[1] = q.sent;
        p[2] = q.received;
        p[3] = q.id;
    } else {
        int cancelled = 0, n = 0;
        PMPI_Test_cancelled(st, &cancelled);
        if (cancelled) {
            *rt__evlog_put(t, RT_EV_REQUEST_CANCELLED, 0, 0, 1) = q.id;
        } else {
            PMPI_Get_count(st, MPI_BYTE, &n);
            uint32_t cid = q.comm, peer = (uint32_t)st->MPI_SOURCE;
            if (q.comm == RT_COMM_UNKNOWN)
                peer = rt__peer(q.comm_handle, st->MPI_SOURCE, &cid);
            uint64_t *p = rt__evlog_put(t, RT_EV_IRECV, 0, peer, 3);
            p[0] = cid | (uint64_t)(uint32_t)st->MPI_TAG << 32;
            p[1] = n == MPI_UNDEFINED ? 0 : (uint64_t)n;
            p[2] = q.id;
        }
    }
    rt__out();
}

/* --- blocking sends ----------------------------------------------------------------------- */

#define RT_BLOCKING_SEND(NAME)                                                                    \
    RT_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,    \
                             MPI_Comm comm)                                                       \
    {                                                                                             \
        if (!rt__g.active)                                                                        \
            return PMPI_##NAME(buf, count, type, dest, tag, comm);                                \
        uint64_t t = rt__now();                                                                   \
        rt__enter(RT_R_##NAME, t, RT_CALLER());                                                   \
        if (dest != MPI_PROC_NULL)                                                                \
            rt__rec_send(t, comm, dest, tag, rt__bytes(type, count));                             \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                                  \
        rt__leave(RT_R_##NAME, rt__now());                                                        \
        return rc;                                                                                \
    }

RT_BLOCKING_SEND(Send)
RT_BLOCKING_SEND(Ssend)
RT_BLOCKING_SEND(Bsend)
RT_BLOCKING_SEND(Rsend)

RT_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    rt__enter(RT_R_Recv, rt__now(), RT_CALLER());
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    uint64_t t = rt__now();
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        rt__rec_recv(t, comm, status);
    rt__leave(RT_R_Recv, t);
    return rc;
}

/* --- nonblocking -------------------------------------------------------------------------- */

#define RT_NONBLOCKING_SEND(NAME)                                                                 \
    RT_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,    \
                             MPI_Comm comm, MPI_Request *req)                                     \
    {                                                                                             \
        if (!rt__g.active)                                                                        \
            return PMPI_##NAME(buf, count, type, dest, tag, comm, req);                           \
        uint64_t t = rt__now(), id = 0;                                                           \
        uint32_t cid = 0;                                                                         \
        rt__enter(RT_R_##NAME, t, RT_CALLER());                                                   \
        if (dest != MPI_PROC_NULL && rt__g.active) {                                              \
            id = rt__g.next_request_id++;                                                         \
            uint32_t peer = rt__peer(comm, dest, &cid);                                           \
            rt__g.in_tracer = 1;                                                                  \
            uint64_t *p = rt__evlog_put(t, RT_EV_ISEND, 0, peer, 3);                               \
            p[0] = cid | (uint64_t)(uint32_t)tag << 32;                                           \
            p[1] = rt__bytes(type, count);                                                        \
            p[2] = id;                                                                            \
            rt__out();                                                                            \
        }                                                                                         \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                             \
        if (id && rc == MPI_SUCCESS)                                                              \
            rt__req_insert(*req, req, comm, id, RT_REQ_SEND, cid);                                \
        rt__leave(RT_R_##NAME, rt__now());                                                        \
        return rc;                                                                                \
    }

RT_NONBLOCKING_SEND(Isend)
RT_NONBLOCKING_SEND(Issend)
RT_NONBLOCKING_SEND(Ibsend)
RT_NONBLOCKING_SEND(Irsend)

RT_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                        MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    uint64_t t = rt__now(), id = 0;
    rt__enter(RT_R_Irecv, t, RT_CALLER());
    if (source != MPI_PROC_NULL && rt__g.active) {
        id = rt__g.next_request_id++;
        rt__g.in_tracer = 1;
        *rt__evlog_put(t, RT_EV_IRECV_REQUEST, 0, 0, 1) = id;
        rt__out();
    }
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (id && rc == MPI_SUCCESS)
        rt__req_insert(*req, req, comm, id, RT_REQ_RECV, rt__comm_id(comm));
    rt__leave(RT_R_Irecv, rt__now());
    return rc;
}

/* --- completion --------------------------------------------------------------------------- */

RT_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Wait(req, status);
    MPI_Status local;
    MPI_Request h = *req; /* MPI sets *req to MPI_REQUEST_NULL on completion. */
    if (status == MPI_STATUS_IGNORE && h != MPI_REQUEST_NULL) /* a receive's needs source and size */
        status = &local;
    rt__enter(RT_R_Wait, rt__now(), RT_CALLER());
    int rc = PMPI_Wait(req, status);
    uint64_t t = rt__now();
    if (rc == MPI_SUCCESS)
        rt__completed(h, req, status, t);
    rt__leave(RT_R_Wait, t);
    return rc;
}

RT_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Test(req, flag, status);
    MPI_Status local;
    MPI_Request h = *req;
    if (status == MPI_STATUS_IGNORE && h != MPI_REQUEST_NULL) /* as in MPI_Wait */
        status = &local;
    rt__enter(RT_R_Test, rt__now(), RT_CALLER());
    int rc = PMPI_Test(req, flag, status);
    uint64_t t = rt__now();
    if (rc == MPI_SUCCESS && h != MPI_REQUEST_NULL && rt__req_count()) {
        struct rt__request q;
        if (*flag)
            rt__completed(h, req, status, t);
        else if (rt__req_find(h, req, &q) == 0 && rt__g.active) {
            rt__g.in_tracer = 1;
            *rt__evlog_put(t, RT_EV_REQUEST_TEST, 0, 0, 1) = q.id;
            rt__out();
        }
    }
    rt__leave(RT_R_Test, t);
    return rc;
}

/* The array variants copy the handles before the call and substitute a status array when the
 * caller ignores statuses, because receive completions need source, tag and size. */
struct rt__multi {
    MPI_Request hstack[RT_STACK_REQS], *h;
    MPI_Status sstack[RT_STACK_REQS], *st;
    int track;
};

static void rt__multi_begin(struct rt__multi *m, int n, MPI_Request *reqs, MPI_Status **statuses)
{
    m->h = NULL;
    m->st = NULL;
    m->track = n > 0 && rt__req_count() > 0;
    if (!m->track)
        return;
    int subst = statuses && *statuses == MPI_STATUSES_IGNORE;
    m->h = n <= RT_STACK_REQS ? m->hstack : malloc((size_t)n * sizeof *m->h);
    if (subst)
        m->st = n <= RT_STACK_REQS ? m->sstack : malloc((size_t)n * sizeof *m->st);
    if (!m->h || (subst && !m->st)) {
        /* Out of memory: the call proceeds untracked rather than failing the program. */
        if (m->h != m->hstack)
            free(m->h);
        if (m->st != m->sstack)
            free(m->st);
        m->track = 0;
        return;
    }
    for (int i = 0; i < n; i++)
        m->h[i] = reqs[i];
    if (m->st)
        *statuses = m->st;
}

static void rt__multi_end(struct rt__multi *m)
{
    if (m->h && m->h != m->hstack)
        free(m->h);
    if (m->st && m->st != m->sstack)
        free(m->st);
}

static int rt__status_ok(int rc, const MPI_Status *st)
{
    return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && st->MPI_ERROR == MPI_SUCCESS);
}

RT_EXPORT int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    if (!rt__g.active)
        return PMPI_Waitall(count, reqs, statuses);
    struct rt__multi m;
    rt__enter(RT_R_Waitall, rt__now(), RT_CALLER());
    rt__multi_begin(&m, count, reqs, &statuses);
    int rc = PMPI_Waitall(count, reqs, statuses);
    uint64_t t = rt__now();
    for (int i = 0; m.track && i < count; i++)
        if (rt__status_ok(rc, &statuses[i]))
            rt__completed(m.h[i], &reqs[i], &statuses[i], t);
    rt__multi_end(&m);
    rt__leave(RT_R_Waitall, t);
    return rc;
}

RT_EXPORT int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (!rt__g.active)
        return PMPI_Testall(count, reqs, flag, statuses);
    struct rt__multi m;
    rt__enter(RT_R_Testall, rt__now(), RT_CALLER());
    rt__multi_begin(&m, count, reqs, &statuses);
    int rc = PMPI_Testall(count, reqs, flag, statuses);
    uint64_t t = rt__now();
    for (int i = 0; m.track && *flag && i < count; i++)
        if (rt__status_ok(rc, &statuses[i]))
            rt__completed(m.h[i], &reqs[i], &statuses[i], t);
    rt__multi_end(&m);
    rt__leave(RT_R_Testall, t);
    return rc;
}

RT_EXPORT int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Waitany(count, reqs, index, status);
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    struct rt__multi m;
    rt__enter(RT_R_Waitany, rt__now(), RT_CALLER());
    rt__multi_begin(&m, count, reqs, NULL);
    int rc = PMPI_Waitany(count, reqs, index, status);
    uint64_t t = rt__now();
    if (m.track && rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
        rt__completed(m.h[*index], &reqs[*index], status, t);
    rt__multi_end(&m);
    rt__leave(RT_R_Waitany, t);
    return rc;
}

RT_EXPORT int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Testany(count, reqs, index, flag, status);
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    struct rt__multi m;
    rt__enter(RT_R_Testany, rt__now(), RT_CALLER());
    rt__multi_begin(&m, count, reqs, NULL);
    int rc = PMPI_Testany(count, reqs, index, flag, status);
    uint64_t t = rt__now();
    if (m.track && rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && *index >= 0 &&
        *index < count)
        rt__completed(m.h[*index], &reqs[*index], status, t);
    rt__multi_end(&m);
    rt__leave(RT_R_Testany, t);
    return rc;
}

static int rt__some(int region, int wait, int count, MPI_Request reqs[], int *outcount,
                    int indices[], MPI_Status statuses[], void *ret)
{
    struct rt__multi m;
    rt__enter(region, rt__now(), ret);
    rt__multi_begin(&m, count, reqs, &statuses);
    int rc = wait ? PMPI_Waitsome(count, reqs, outcount, indices, statuses)
                  : PMPI_Testsome(count, reqs, outcount, indices, statuses);
    uint64_t t = rt__now();
    if (m.track && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < *outcount; k++)
            if (indices[k] >= 0 && indices[k] < count && rt__status_ok(rc, &statuses[k]))
                rt__completed(m.h[indices[k]], &reqs[indices[k]], &statuses[k], t);
    rt__multi_end(&m);
    rt__leave(region, t);
    return rc;
}

RT_EXPORT int MPI_Waitsome(int count, MPI_Request reqs[], int *outcount, int indices[],
                           MPI_Status statuses[])
{
    if (!rt__g.active)
        return PMPI_Waitsome(count, reqs, outcount, indices, statuses);
    return rt__some(RT_R_Waitsome, 1, count, reqs, outcount, indices, statuses, RT_CALLER());
}

RT_EXPORT int MPI_Testsome(int count, MPI_Request reqs[], int *outcount, int indices[],
                           MPI_Status statuses[])
{
    if (!rt__g.active)
        return PMPI_Testsome(count, reqs, outcount, indices, statuses);
    return rt__some(RT_R_Testsome, 0, count, reqs, outcount, indices, statuses, RT_CALLER());
}

RT_EXPORT int MPI_Request_free(MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Request_free(req);
    struct rt__request q;
    rt__enter(RT_R_Request_free, rt__now(), RT_CALLER());
    rt__req_take(*req, req, &q); /* Its completion can no longer be observed. */
    int rc = PMPI_Request_free(req);
    rt__leave(RT_R_Request_free, rt__now());
    return rc;
}

RT_EXPORT int MPI_Cancel(MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Cancel(req);
    rt__enter(RT_R_Cancel, rt__now(), RT_CALLER());
    int rc = PMPI_Cancel(req);
    rt__leave(RT_R_Cancel, rt__now());
    return rc;
}

/* --- combined and probing ----------------------------------------------------------------- */

RT_EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                           void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                           MPI_Comm comm, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                             comm, status);
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    uint64_t t = rt__now();
    rt__enter(RT_R_Sendrecv, t, RT_CALLER());
    if (dest != MPI_PROC_NULL)
        rt__rec_send(t, comm, dest, stag, rt__bytes(stype, scount));
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                           status);
    t = rt__now();
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        rt__rec_recv(t, comm, status);
    rt__leave(RT_R_Sendrecv, t);
    return rc;
}

RT_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
                                   int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    uint64_t t = rt__now();
    rt__enter(RT_R_Sendrecv_replace, t, RT_CALLER());
    if (dest != MPI_PROC_NULL)
        rt__rec_send(t, comm, dest, stag, rt__bytes(type, count));
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    t = rt__now();
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        rt__rec_recv(t, comm, status);
    rt__leave(RT_R_Sendrecv_replace, t);
    return rc;
}

RT_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Probe(source, tag, comm, status);
    rt__enter(RT_R_Probe, rt__now(), RT_CALLER());
    int rc = PMPI_Probe(source, tag, comm, status);
    rt__leave(RT_R_Probe, rt__now());
    return rc;
}

RT_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!rt__g.active)
        return PMPI_Iprobe(source, tag, comm, flag, status);
    rt__enter(RT_R_Iprobe, rt__now(), RT_CALLER());
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    rt__leave(RT_R_Iprobe, rt__now());
    return rc;
}
