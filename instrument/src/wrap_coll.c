/* SPDX-License-Identifier: MIT */
/* PMPI wrappers of collectives, blocking and non-blocking, with sent/received byte counts computed the
 * way Score-P does: one rt__bytes_<op> per operation, shared by the blocking call and its MPI_I twin. */
#include "trace.h"

#define RT_CALLER() __builtin_return_address(0)

/* What one member of a collective sends and receives, as Score-P's scorep_mpi_coll_bytes_* count it. */
struct rt__coll_bytes {
    uint64_t sent, received;
};

/* The root as written in a collective record (its rank in @p comm, or OTF2_UNDEFINED_UINT32 when
 * @p root is -1: rootless), and in *cid the communicator's id, the world's for an unknown one. */
static uint32_t rt__coll_ids(MPI_Comm comm, int root, uint32_t *cid)
{
    if (root >= 0)
        return rt__peer(comm, root, cid);
    *cid = rt__comm_id(comm) == RT_COMM_UNKNOWN ? RT_COMM_WORLD_ID : rt__comm_id(comm);
    return OTF2_UNDEFINED_UINT32;
}

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
static void rt__coll_end(int region, OTF2_CollectiveOp op, MPI_Comm comm, int root, struct rt__coll_bytes b)
{
    uint64_t t = rt__now();
    if (rt__g.active) {
        uint32_t cid, r = rt__coll_ids(comm, root, &cid);
        rt__g.in_tracer = 1;
        rt__check(OTF2_EvtWriter_MpiCollectiveEnd(rt__g.evt, NULL, t, op, cid, r, b.sent, b.received),
                  "MpiCollectiveEnd");
        rt__out();
    }
    rt__leave(region, t);
}

/* --- non-blocking collectives: the same records as Score-P writes them --------------------- */

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
                          MPI_Comm comm, int root, struct rt__coll_bytes b)
{
    if (id && rc == MPI_SUCCESS && rt__g.active) {
        struct rt__request q = {.handle = *req, .comm_handle = comm, .id = id, .kind = RT_REQ_COLL, .op = (int)op,
                                .sent = b.sent, .received = b.received};
        q.root = rt__coll_ids(comm, root, &q.comm);
        rt__req_insert_entry(&q);
    }
    rt__leave(region, rt__now());
}

/* --- byte counts, one function per operation ---------------------------------------------- */

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

/* All-to-one (Gather, Reduce): the root receives one block from everybody (itself included unless
 * MPI_IN_PLACE), the others send one block. */
static struct rt__coll_bytes rt__bytes_all_to_one(uint64_t send_block, uint64_t recv_block, int root, int inplace,
                                                  MPI_Comm comm)
{
    if (rt__comm_rank(comm) != root)
        return (struct rt__coll_bytes){.sent = send_block, .received = 0};
    uint64_t n = (uint64_t)rt__comm_size(comm);
    return (struct rt__coll_bytes){.sent = inplace ? 0 : recv_block, .received = (inplace ? n - 1 : n) * recv_block};
}

/* One-to-all (Scatter) is all-to-one with the directions exchanged. */
static struct rt__coll_bytes rt__swap(struct rt__coll_bytes b)
{
    return (struct rt__coll_bytes){.sent = b.received, .received = b.sent};
}

/* Bcast: the root sends the buffer to everybody (itself included), everybody receives it. */
static struct rt__coll_bytes rt__bytes_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    uint64_t b = rt__bytes(type, count);
    return (struct rt__coll_bytes){.sent = rt__comm_rank(comm) == root ? (uint64_t)rt__comm_size(comm) * b : 0,
                                   .received = b};
}

static struct rt__coll_bytes rt__bytes_reduce(const void *sbuf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    uint64_t b = rt__bytes(type, count);
    return rt__bytes_all_to_one(b, b, root, sbuf == MPI_IN_PLACE, comm);
}

/* Allreduce: every rank sends its vector to and receives one from everybody (but itself in place). */
static struct rt__coll_bytes rt__bytes_allreduce(const void *sbuf, int count, MPI_Datatype type, MPI_Comm comm)
{
    uint64_t n = (uint64_t)rt__comm_size(comm), x = (sbuf == MPI_IN_PLACE ? n - 1 : n) * rt__bytes(type, count);
    return (struct rt__coll_bytes){.sent = x, .received = x};
}

/* Gather: the receive block counts at the root only (rcount and rtype are significant there only). */
static struct rt__coll_bytes rt__bytes_gather(const void *sbuf, int scount, MPI_Datatype stype, int rcount,
                                              MPI_Datatype rtype, int root, MPI_Comm comm)
{
    uint64_t sb = sbuf == MPI_IN_PLACE ? 0 : rt__bytes(stype, scount);
    uint64_t rb = rt__comm_rank(comm) == root ? rt__bytes(rtype, rcount) : 0;
    return rt__bytes_all_to_one(sb, rb, root, sbuf == MPI_IN_PLACE, comm);
}

/* Scatter: the send block counts at the root only; the root's MPI_IN_PLACE is its receive buffer. */
static struct rt__coll_bytes rt__bytes_scatter(int scount, MPI_Datatype stype, const void *rbuf, int rcount,
                                               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    uint64_t rb = rbuf == MPI_IN_PLACE ? 0 : rt__bytes(rtype, rcount);
    uint64_t sb = rt__comm_rank(comm) == root ? rt__bytes(stype, scount) : 0;
    return rt__swap(rt__bytes_all_to_one(rb, sb, root, rbuf == MPI_IN_PLACE, comm));
}

/* Allgather and Alltoall: every rank sends a block to and receives one from everybody. */
static struct rt__coll_bytes rt__bytes_all_to_all(const void *sbuf, int scount, MPI_Datatype stype, int rcount,
                                                  MPI_Datatype rtype, MPI_Comm comm)
{
    uint64_t n = (uint64_t)rt__comm_size(comm), rb = rt__bytes(rtype, rcount);
    if (sbuf == MPI_IN_PLACE)
        return (struct rt__coll_bytes){.sent = (n - 1) * rb, .received = (n - 1) * rb};
    return (struct rt__coll_bytes){.sent = n * rt__bytes(stype, scount), .received = n * rb};
}

/* --- blocking collectives ----------------------------------------------------------------- */

RT_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Barrier(comm);
    rt__coll_begin(RT_R_Barrier, RT_CALLER());
    int rc = PMPI_Barrier(comm);
    rt__coll_end(RT_R_Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, (struct rt__coll_bytes){0, 0});
    return rc;
}

RT_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Bcast(buf, count, type, root, comm);
    rt__coll_begin(RT_R_Bcast, RT_CALLER());
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    rt__coll_end(RT_R_Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, root, rt__bytes_bcast(count, type, root, comm));
    return rc;
}

RT_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                         int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    rt__coll_begin(RT_R_Reduce, RT_CALLER());
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    rt__coll_end(RT_R_Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, root, rt__bytes_reduce(sbuf, count, type, root, comm));
    return rc;
}

RT_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    rt__coll_begin(RT_R_Allreduce, RT_CALLER());
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    rt__coll_end(RT_R_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, rt__bytes_allreduce(sbuf, count, type, comm));
    return rc;
}

RT_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    rt__coll_begin(RT_R_Gather, RT_CALLER());
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    rt__coll_end(RT_R_Gather, OTF2_COLLECTIVE_OP_GATHER, comm, root,
                 rt__bytes_gather(sbuf, scount, stype, rcount, rtype, root, comm));
    return rc;
}

RT_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    rt__coll_begin(RT_R_Scatter, RT_CALLER());
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    rt__coll_end(RT_R_Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
                 rt__bytes_scatter(scount, stype, rbuf, rcount, rtype, root, comm));
    return rc;
}

RT_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    rt__coll_begin(RT_R_Allgather, RT_CALLER());
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    rt__coll_end(RT_R_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
                 rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm));
    return rc;
}

RT_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!rt__g.active)
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    rt__coll_begin(RT_R_Alltoall, RT_CALLER());
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    rt__coll_end(RT_R_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
                 rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm));
    return rc;
}

/* --- their non-blocking twins: the same counts, recorded at the completing MPI_Wait/Test ---- */

RT_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ibarrier(comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ibarrier, RT_CALLER());
    int rc = PMPI_Ibarrier(comm, req);
    rt__icoll_end(RT_R_Ibarrier, rc, req, id, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, (struct rt__coll_bytes){0, 0});
    return rc;
}

RT_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ibcast(buf, count, type, root, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ibcast, RT_CALLER());
    int rc = PMPI_Ibcast(buf, count, type, root, comm, req);
    rt__icoll_end(RT_R_Ibcast, rc, req, id, OTF2_COLLECTIVE_OP_BCAST, comm, root,
                  rt__bytes_bcast(count, type, root, comm));
    return rc;
}

RT_EXPORT int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                          MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ireduce, RT_CALLER());
    int rc = PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
    rt__icoll_end(RT_R_Ireduce, rc, req, id, OTF2_COLLECTIVE_OP_REDUCE, comm, root,
                  rt__bytes_reduce(sbuf, count, type, root, comm));
    return rc;
}

RT_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                             MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Iallreduce, RT_CALLER());
    int rc = PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    rt__icoll_end(RT_R_Iallreduce, rc, req, id, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1,
                  rt__bytes_allreduce(sbuf, count, type, comm));
    return rc;
}

RT_EXPORT int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Igather, RT_CALLER());
    int rc = PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    rt__icoll_end(RT_R_Igather, rc, req, id, OTF2_COLLECTIVE_OP_GATHER, comm, root,
                  rt__bytes_gather(sbuf, scount, stype, rcount, rtype, root, comm));
    return rc;
}

RT_EXPORT int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Iscatter, RT_CALLER());
    int rc = PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    rt__icoll_end(RT_R_Iscatter, rc, req, id, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
                  rt__bytes_scatter(scount, stype, rbuf, rcount, rtype, root, comm));
    return rc;
}

RT_EXPORT int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Iallgather, RT_CALLER());
    int rc = PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    rt__icoll_end(RT_R_Iallgather, rc, req, id, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
                  rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm));
    return rc;
}

RT_EXPORT int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (!rt__g.active)
        return PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    uint64_t id = rt__icoll_begin(RT_R_Ialltoall, RT_CALLER());
    int rc = PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    rt__icoll_end(RT_R_Ialltoall, rc, req, id, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
                  rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm));
    return rc;
}
