/* SPDX-License-Identifier: MIT */
/* PMPI wrappers of collectives, blocking and non-blocking, with sent/received byte counts computed the
 * way Score-P does. */
#include "trace.h"

#define RT_CALLER() __builtin_return_address(0)

static void rt__coll_begin(int region, void *ret)
{
    uint64_t t = rt__now();
    rt__enter(region, t, ret);
    if (!rt__g.active)
        return;
    rt__g.in_tracer = 1;
    rt__check(OTF2_EvtWriter_MpiCollectiveBegin(rt__g.evt, NULL, t), "MpiCollectiveBegin");
    rt__out();
}

/* @p root is the root's rank in @p comm, or -1 for rootless collectives. */
static void rt__coll_end(int region, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent,
                         uint64_t received)
{
    uint64_t t = rt__now();
    if (rt__g.active) {
        uint32_t cid, r = OTF2_UNDEFINED_UINT32;
        if (root >= 0)
            r = rt__peer(comm, root, &cid);
        else
            cid = rt__comm_id(comm) == RT_COMM_UNKNOWN ? RT_COMM_WORLD_ID : rt__comm_id(comm);
        rt__g.in_tracer = 1;
        rt__check(OTF2_EvtWriter_MpiCollectiveEnd(rt__g.evt, NULL, t, op, cid, r, sent, received),
                  "MpiCollectiveEnd");
        rt__out();
    }
    rt__leave(region, t);
}

static int rt__comm_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int rt__comm_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

/* All-to-one (Gather, Reduce), following Score-P's scorep_mpi_coll_bytes_*: the root receives one
 * block from everybody (itself included unless MPI_IN_PLACE), the others send one block. */
static void rt__bytes_all_to_one(uint64_t send_block, uint64_t recv_block, int root, int inplace,
                                 MPI_Comm comm, uint64_t *sent, uint64_t *recvd)
{
    if (rt__comm_rank(comm) == root) {
        uint64_t n = (uint64_t)rt__comm_size(comm);
        *sent = inplace ? 0 : recv_block;
        *recvd = (inplace ? n - 1 : n) * recv_block;
    } else {
        *sent = send_block;
        *recvd = 0;
    }
}

RT_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Barrier(comm);
    rt__coll_begin(RT_R_Barrier, RT_CALLER());
    int rc = PMPI_Barrier(comm);
    rt__coll_end(RT_R_Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    return rc;
}

RT_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Bcast(buf, count, type, root, comm);
    rt__coll_begin(RT_R_Bcast, RT_CALLER());
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    uint64_t b = rt__bytes(type, count), sent = 0;
    if (rt__comm_rank(comm) == root)
        sent = (uint64_t)rt__comm_size(comm) * b;
    rt__coll_end(RT_R_Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, root, sent, b);
    return rc;
}

RT_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                         int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    rt__coll_begin(RT_R_Reduce, RT_CALLER());
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    uint64_t b = rt__bytes(type, count), sent, recvd;
    rt__bytes_all_to_one(b, b, root, sbuf == MPI_IN_PLACE, comm, &sent, &recvd);
    rt__coll_end(RT_R_Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, root, sent, recvd);
    return rc;
}

RT_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    rt__coll_begin(RT_R_Allreduce, RT_CALLER());
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    uint64_t b = rt__bytes(type, count), n = (uint64_t)rt__comm_size(comm);
    uint64_t x = (sbuf == MPI_IN_PLACE ? n - 1 : n) * b;
    rt__coll_end(RT_R_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, x, x);
    return rc;
}

RT_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    rt__coll_begin(RT_R_Gather, RT_CALLER());
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    uint64_t sent, recvd, sb = sbuf == MPI_IN_PLACE ? 0 : rt__bytes(stype, scount);
    uint64_t rb = rt__comm_rank(comm) == root ? rt__bytes(rtype, rcount) : 0;
    rt__bytes_all_to_one(sb, rb, root, sbuf == MPI_IN_PLACE, comm, &sent, &recvd);
    rt__coll_end(RT_R_Gather, OTF2_COLLECTIVE_OP_GATHER, comm, root, sent, recvd);
    return rc;
}

RT_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    rt__coll_begin(RT_R_Scatter, RT_CALLER());
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    /* One-to-all is all-to-one with the directions exchanged. */
    uint64_t sent, recvd, rb = rbuf == MPI_IN_PLACE ? 0 : rt__bytes(rtype, rcount);
    uint64_t sb = rt__comm_rank(comm) == root ? rt__bytes(stype, scount) : 0;
    rt__bytes_all_to_one(rb, sb, root, rbuf == MPI_IN_PLACE, comm, &recvd, &sent);
    rt__coll_end(RT_R_Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root, sent, recvd);
    return rc;
}

/* Allgather and Alltoall: every rank sends a block to and receives one from everybody. */
static void rt__bytes_all_to_all(const void *sbuf, int scount, MPI_Datatype stype, int rcount,
                                 MPI_Datatype rtype, MPI_Comm comm, uint64_t *sent, uint64_t *recvd)
{
    uint64_t n = (uint64_t)rt__comm_size(comm), rb = rt__bytes(rtype, rcount);
    if (sbuf == MPI_IN_PLACE) {
        *sent = *recvd = (n - 1) * rb;
    } else {
        *sent = n * rt__bytes(stype, scount);
        *recvd = n * rb;
    }
}

RT_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    rt__coll_begin(RT_R_Allgather, RT_CALLER());
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    uint64_t sent, recvd;
    rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm, &sent, &recvd);
    rt__coll_end(RT_R_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, sent, recvd);
    return rc;
}

RT_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    rt__coll_begin(RT_R_Alltoall, RT_CALLER());
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    uint64_t sent, recvd;
    rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm, &sent, &recvd);
    rt__coll_end(RT_R_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, sent, recvd);
    return rc;
}

/* --- non-blocking collectives ------------------------------------------------------------- */

/* As Score-P records them (OTF2 3.x): the MPI_I<coll> call holds a NonBlockingCollectiveRequest,
 * and the MPI_Wait/Test that completes the request a NonBlockingCollectiveComplete with the
 * operation, communicator, root and byte counts (the blocking collective's counts), written by
 * rt__completed (wrap_p2p.c) from the request's entry. Returns the request id (0: not traced). */
static uint64_t rt__icoll_begin(int region, void *ret)
{
    uint64_t t = rt__now(), id = 0;
    rt__enter(region, t, ret);
    if (!rt__g.active)
        return 0;
    id = rt__g.next_request_id++;
    rt__g.in_tracer = 1;
    rt__check(OTF2_EvtWriter_NonBlockingCollectiveRequest(rt__g.evt, NULL, t, id), "NonBlockingCollectiveRequest");
    rt__out();
    return id;
}

/* @p root is the root's rank in @p comm, or -1 for rootless collectives. */
static void rt__icoll_end(int region, int rc, const MPI_Request *req, uint64_t id, OTF2_CollectiveOp op,
                          MPI_Comm comm, int root, uint64_t sent, uint64_t received)
{
    if (id && rc == MPI_SUCCESS && rt__g.active) {
        struct rt__request q = {.handle = *req, .comm_handle = comm, .id = id, .kind = RT_REQ_COLL, .op = (int)op,
                                .root = OTF2_UNDEFINED_UINT32, .sent = sent, .received = received};
        if (root >= 0)
            q.root = rt__peer(comm, root, &q.comm);
        else
            q.comm = rt__comm_id(comm) == RT_COMM_UNKNOWN ? RT_COMM_WORLD_ID : rt__comm_id(comm);
        rt__req_insert_entry(&q);
    }
    rt__leave(region, rt__now());
}

RT_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ibarrier(comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ibarrier, RT_CALLER());
    int rc = PMPI_Ibarrier(comm, req);
    rt__icoll_end(RT_R_Ibarrier, rc, req, id, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    return rc;
}

RT_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ibcast(buf, count, type, root, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ibcast, RT_CALLER());
    int rc = PMPI_Ibcast(buf, count, type, root, comm, req);
    uint64_t b = rt__bytes(type, count), sent = 0;
    if (rt__comm_rank(comm) == root)
        sent = (uint64_t)rt__comm_size(comm) * b;
    rt__icoll_end(RT_R_Ibcast, rc, req, id, OTF2_COLLECTIVE_OP_BCAST, comm, root, sent, b);
    return rc;
}

RT_EXPORT int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                          MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ireduce, RT_CALLER());
    int rc = PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
    uint64_t b = rt__bytes(type, count), sent, recvd;
    rt__bytes_all_to_one(b, b, root, sbuf == MPI_IN_PLACE, comm, &sent, &recvd);
    rt__icoll_end(RT_R_Ireduce, rc, req, id, OTF2_COLLECTIVE_OP_REDUCE, comm, root, sent, recvd);
    return rc;
}

RT_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                             MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Iallreduce, RT_CALLER());
    int rc = PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    uint64_t b = rt__bytes(type, count), n = (uint64_t)rt__comm_size(comm);
    uint64_t x = (sbuf == MPI_IN_PLACE ? n - 1 : n) * b;
    rt__icoll_end(RT_R_Iallreduce, rc, req, id, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, x, x);
    return rc;
}
