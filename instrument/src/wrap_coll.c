/* SPDX-License-Identifier: MIT */
/* PMPI wrappers of collectives, blocking and non-blocking, plain, vector (v, w) and prefix (scan), with
 * sent/received byte counts computed the way Score-P does: one rt__bytes_<op> per operation, shared by
 * the blocking call and its MPI_I twin. */
#include "trace.h"

#define RT_CALLER() __builtin_return_address(0)

/* What one member of a collective sends and receives, as Score-P's scorep_mpi_coll_bytes_* count it. */
struct rt__coll_bytes {
    uint64_t sent, received;
    int in_place; /* this rank's call was MPI_IN_PLACE: its counts leave its own block out */
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
    rt__evlog_put(t, RT_EV_COLL_BEGIN, 0, 0, 0);
    rt__out();
}

/* @p root is the root's rank in @p comm, or -1 for rootless collectives. */
static void rt__coll_end(int region, OTF2_CollectiveOp op, MPI_Comm comm, int root, struct rt__coll_bytes b)
{
    uint64_t t = rt__now();
    if (rt__g.active) {
        uint32_t cid, r = rt__coll_ids(comm, root, &cid);
        rt__g.in_tracer = 1;
        uint64_t *p = rt__evlog_put(t, RT_EV_COLL_END, b.in_place ? RT_EVF_IN_PLACE : 0, (uint32_t)op, 3);
        p[0] = cid | (uint64_t)r << 32;
        p[1] = b.sent;
        p[2] = b.received;
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
    *rt__evlog_put(t, RT_EV_NBC_REQUEST, 0, 0, 1) = id;
    rt__out();
    return id;
}

/* @p root is the root's rank in @p comm, or -1 for rootless collectives. */
static void rt__icoll_end(int region, int rc, const MPI_Request *req, uint64_t id, OTF2_CollectiveOp op,
                          MPI_Comm comm, int root, struct rt__coll_bytes b)
{
    if (id && rc == MPI_SUCCESS && rt__g.active) {
        struct rt__request q = {.handle = *req, .slot = req, .comm_handle = comm, .id = id, .kind = RT_REQ_COLL, .op = (int)op,
                                .sent = b.sent, .received = b.received, .in_place = b.in_place};
        q.root = rt__coll_ids(comm, root, &q.comm);
        rt__req_insert_entry(&q);
    }
    rt__leave(region, rt__now());
}

/* --- byte counts, one function per operation ---------------------------------------------- */

/* One of a communicator's numbers by its PMPI_Comm_<get> (size, rank, test_inter, remote_size). */
static int rt__comm_get(int (*get)(MPI_Comm, int *), MPI_Comm comm)
{
    int x = 0;
    get(comm, &x);
    return x;
}

static int rt__comm_size(MPI_Comm comm)
{
    return rt__comm_get(PMPI_Comm_size, comm);
}

static int rt__comm_rank(MPI_Comm comm)
{
    return rt__comm_get(PMPI_Comm_rank, comm);
}

/* All-to-one (Gather, Reduce): the root receives one block from everybody (itself included unless
 * MPI_IN_PLACE), the others send one block. */
static struct rt__coll_bytes rt__bytes_all_to_one(uint64_t send_block, uint64_t recv_block, int root, int inplace,
                                                  MPI_Comm comm)
{
    if (rt__comm_rank(comm) != root)
        return (struct rt__coll_bytes){.sent = send_block, .received = 0};
    uint64_t n = (uint64_t)rt__comm_size(comm);
    return (struct rt__coll_bytes){.sent = inplace ? 0 : recv_block, .received = (inplace ? n - 1 : n) * recv_block,
                                   .in_place = inplace};
}

/* One-to-all (Scatter) is all-to-one with the directions exchanged. */
static struct rt__coll_bytes rt__swap(struct rt__coll_bytes b)
{
    return (struct rt__coll_bytes){.sent = b.received, .received = b.sent, .in_place = b.in_place};
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
    return (struct rt__coll_bytes){.sent = x, .received = x, .in_place = sbuf == MPI_IN_PLACE};
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
        return (struct rt__coll_bytes){.sent = (n - 1) * rb, .received = (n - 1) * rb, .in_place = 1};
    return (struct rt__coll_bytes){.sent = n * rt__bytes(stype, scount), .received = n * rb};
}

/* --- the vector and prefix collectives' byte counts ------------------------------------------ */

/* One side (send or receive) of a vector collective: a count per peer, and one type for all (the v
 * collectives) or a type per peer (MPI_Alltoallw, whose @p types is then non-NULL). */
struct rt__vec {
    const int *counts;
    const MPI_Datatype *types;
    MPI_Datatype type;
};

/* The bytes of the block of peer @p i (a negative count, which MPI refuses, counts 0). */
static uint64_t rt__vec_bytes(struct rt__vec v, int i)
{
    return rt__bytes(v.types ? v.types[i] : v.type, v.counts[i]);
}

static uint64_t rt__vec_sum(struct rt__vec v, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x += rt__vec_bytes(v, i);
    return x;
}

static int rt__comm_inter(MPI_Comm comm)
{
    return rt__comm_get(PMPI_Comm_test_inter, comm);
}

/* The peers a vector's entries stand for: the remote group of an intercommunicator (the count
 * arrays of its all-to-all operations have one entry per remote rank), else the communicator. */
static int rt__comm_peers(MPI_Comm comm)
{
    return rt__comm_get(rt__comm_inter(comm) ? PMPI_Comm_remote_size : PMPI_Comm_size, comm);
}

/* Gatherv: the root receives every rank's block of @p r (but its own in place) and sends its own
 * block (recvcounts[root] at the root: the send and receive signatures match); the others send
 * theirs. On an intercommunicator the root (MPI_ROOT) receives the remote group's blocks and sends
 * nothing, an MPI_PROC_NULL member neither. Score-P's scorep_mpi_coll_bytes_gatherv. */
static struct rt__coll_bytes rt__bytes_gatherv(const void *sbuf, int scount, MPI_Datatype stype, struct rt__vec r,
                                               int root, MPI_Comm comm)
{
    int inter = rt__comm_inter(comm), me = inter ? -1 : rt__comm_rank(comm);
    if (inter && root == MPI_PROC_NULL)
        return (struct rt__coll_bytes){0, 0, 0};
    if (inter ? root != MPI_ROOT : me != root)
        return (struct rt__coll_bytes){.sent = rt__bytes(stype, scount), .received = 0};
    uint64_t all = rt__vec_sum(r, rt__comm_peers(comm));
    if (inter)
        return (struct rt__coll_bytes){.sent = 0, .received = all};
    uint64_t own = rt__vec_bytes(r, me);
    if (sbuf == MPI_IN_PLACE)
        return (struct rt__coll_bytes){.sent = 0, .received = all - own, .in_place = 1};
    return (struct rt__coll_bytes){.sent = own, .received = all};
}

/* Scatterv is gatherv with the directions exchanged; the root's MPI_IN_PLACE is its receive buffer. */
static struct rt__coll_bytes rt__bytes_scatterv(struct rt__vec s, const void *rbuf, int rcount, MPI_Datatype rtype,
                                                int root, MPI_Comm comm)
{
    return rt__swap(rt__bytes_gatherv(rbuf, rcount, rtype, s, root, comm));
}

/* Allgatherv: every rank sends its block to everybody and receives everybody's; in place it keeps
 * its own (recvcounts[me]) and sends that to the n - 1 others. */
static struct rt__coll_bytes rt__bytes_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, struct rt__vec r,
                                                  MPI_Comm comm)
{
    uint64_t n = (uint64_t)rt__comm_peers(comm), all = rt__vec_sum(r, (int)n);
    if (sbuf != MPI_IN_PLACE)
        return (struct rt__coll_bytes){.sent = n * rt__bytes(stype, scount), .received = all};
    uint64_t own = rt__vec_bytes(r, rt__comm_rank(comm));
    return (struct rt__coll_bytes){.sent = (n - 1) * own, .received = all - own, .in_place = 1};
}

/* Alltoallv and Alltoallw: the sums of the send and of the receive blocks; in place (one buffer,
 * the receive side's) every pair exchanges equal blocks, so both are the receive blocks but its own. */
static struct rt__coll_bytes rt__bytes_alltoallv(const void *sbuf, struct rt__vec s, struct rt__vec r, MPI_Comm comm)
{
    int n = rt__comm_peers(comm);
    if (sbuf != MPI_IN_PLACE)
        return (struct rt__coll_bytes){.sent = rt__vec_sum(s, n), .received = rt__vec_sum(r, n)};
    uint64_t x = rt__vec_sum(r, n) - rt__vec_bytes(r, rt__comm_rank(comm));
    return (struct rt__coll_bytes){.sent = x, .received = x, .in_place = 1};
}

/* Reduce_scatter: every rank sends the whole vector (the sum of recvcounts over the local group,
 * but its own part in place) and receives its part from each of the n (n - 1 in place) ranks of
 * the group that scatters to it (the remote one on an intercommunicator). */
static struct rt__coll_bytes rt__bytes_reduce_scatter(const void *sbuf, const int *rcounts, MPI_Datatype type,
                                                      MPI_Comm comm)
{
    struct rt__vec v = {.counts = rcounts, .type = type};
    int me = rt__comm_rank(comm), inplace = sbuf == MPI_IN_PLACE && !rt__comm_inter(comm);
    uint64_t n = (uint64_t)rt__comm_peers(comm), all = rt__vec_sum(v, rt__comm_size(comm)),
             own = rt__vec_bytes(v, me);
    return (struct rt__coll_bytes){.sent = inplace ? all - own : all, .received = (inplace ? n - 1 : n) * own,
                                   .in_place = inplace};
}

/* Reduce_scatter_block: n blocks of recvcount sent and received (n - 1 in place), n the local group. */
static struct rt__coll_bytes rt__bytes_reduce_scatter_block(const void *sbuf, int rcount, MPI_Datatype type,
                                                            MPI_Comm comm)
{
    uint64_t n = (uint64_t)rt__comm_size(comm), x = (sbuf == MPI_IN_PLACE ? n - 1 : n) * rt__bytes(type, rcount);
    return (struct rt__coll_bytes){.sent = x, .received = x, .in_place = sbuf == MPI_IN_PLACE};
}

/* Scan: rank me sends its vector to itself and every later rank (n - me) and receives one from
 * itself and every earlier rank (me + 1); in place, and always for Exscan (@p exclusive), not to or
 * from itself. */
static struct rt__coll_bytes rt__bytes_scan(const void *sbuf, int count, MPI_Datatype type, int exclusive,
                                            MPI_Comm comm)
{
    uint64_t n = (uint64_t)rt__comm_size(comm), me = (uint64_t)rt__comm_rank(comm), b = rt__bytes(type, count);
    uint64_t self = exclusive || sbuf == MPI_IN_PLACE ? 0 : 1;
    return (struct rt__coll_bytes){.sent = (n - me - 1 + self) * b, .received = (me + self) * b,
                                   .in_place = !exclusive && sbuf == MPI_IN_PLACE};
}

/* --- the wrappers ----------------------------------------------------------------------------- */

/* The body of a blocking collective's wrapper MPI_<name>(...): the call between a
 * MpiCollectiveBegin and a MpiCollectiveEnd of operation OTF2_COLLECTIVE_OP_<op> on @p comm with
 * @p root (-1: none) and the counts @p bytes (evaluated after the call, from its arguments). */
#define RT_COLL(name, op, comm, root, bytes, ...)                                                     \
    do {                                                                                              \
        if (!rt__g.active)                                                                            \
            return PMPI_##name(__VA_ARGS__);                                                          \
        rt__coll_begin(RT_R_##name, RT_CALLER());                                                     \
        int rc_ = PMPI_##name(__VA_ARGS__);                                                           \
        rt__coll_end(RT_R_##name, OTF2_COLLECTIVE_OP_##op, comm, root, bytes);                        \
        return rc_;                                                                                   \
    } while (0)

/* The body of a non-blocking collective's wrapper MPI_<name>(..., req): a request whose completion
 * writes what RT_COLL's end would (see rt__icoll_begin). */
#define RT_ICOLL(name, op, comm, root, bytes, ...)                                                    \
    do {                                                                                              \
        if (!rt__g.active)                                                                            \
            return PMPI_##name(__VA_ARGS__);                                                          \
        uint64_t id_ = rt__icoll_begin(RT_R_##name, RT_CALLER());                                     \
        int rc_ = PMPI_##name(__VA_ARGS__);                                                           \
        rt__icoll_end(RT_R_##name, rc_, req, id_, OTF2_COLLECTIVE_OP_##op, comm, root, bytes);        \
        return rc_;                                                                                   \
    } while (0)

#define RT_NO_BYTES ((struct rt__coll_bytes){0, 0, 0})

/* --- blocking collectives ----------------------------------------------------------------- */

RT_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    RT_COLL(Barrier, BARRIER, comm, -1, RT_NO_BYTES, comm);
}

RT_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    RT_COLL(Bcast, BCAST, comm, root, rt__bytes_bcast(count, type, root, comm), buf, count, type, root, comm);
}

RT_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                         MPI_Comm comm)
{
    RT_COLL(Reduce, REDUCE, comm, root, rt__bytes_reduce(sbuf, count, type, root, comm), sbuf, rbuf, count, type,
            op, root, comm);
}

RT_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    RT_COLL(Allreduce, ALLREDUCE, comm, -1, rt__bytes_allreduce(sbuf, count, type, comm), sbuf, rbuf, count, type,
            op, comm);
}

RT_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm)
{
    RT_COLL(Gather, GATHER, comm, root, rt__bytes_gather(sbuf, scount, stype, rcount, rtype, root, comm), sbuf,
            scount, stype, rbuf, rcount, rtype, root, comm);
}

RT_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm)
{
    RT_COLL(Scatter, SCATTER, comm, root, rt__bytes_scatter(scount, stype, rbuf, rcount, rtype, root, comm), sbuf,
            scount, stype, rbuf, rcount, rtype, root, comm);
}

RT_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm)
{
    RT_COLL(Allgather, ALLGATHER, comm, -1, rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm), sbuf,
            scount, stype, rbuf, rcount, rtype, comm);
}

RT_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    RT_COLL(Alltoall, ALLTOALL, comm, -1, rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm), sbuf,
            scount, stype, rbuf, rcount, rtype, comm);
}

RT_EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                          const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    RT_COLL(Gatherv, GATHERV, comm, root,
            rt__bytes_gatherv(sbuf, scount, stype, (struct rt__vec){.counts = rcounts, .type = rtype}, root, comm),
            sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
}

RT_EXPORT int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                           void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    RT_COLL(Scatterv, SCATTERV, comm, root,
            rt__bytes_scatterv((struct rt__vec){.counts = scounts, .type = stype}, rbuf, rcount, rtype, root, comm),
            sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
}

RT_EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                             const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    RT_COLL(Allgatherv, ALLGATHERV, comm, -1,
            rt__bytes_allgatherv(sbuf, scount, stype, (struct rt__vec){.counts = rcounts, .type = rtype}, comm),
            sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
}

RT_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                            void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    RT_COLL(Alltoallv, ALLTOALLV, comm, -1,
            rt__bytes_alltoallv(sbuf, (struct rt__vec){.counts = scounts, .type = stype},
                                (struct rt__vec){.counts = rcounts, .type = rtype}, comm),
            sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}

RT_EXPORT int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                            void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
                            MPI_Comm comm)
{
    RT_COLL(Alltoallw, ALLTOALLW, comm, -1,
            rt__bytes_alltoallv(sbuf, (struct rt__vec){.counts = scounts, .types = stypes},
                                (struct rt__vec){.counts = rcounts, .types = rtypes}, comm),
            sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
}

RT_EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm)
{
    RT_COLL(Reduce_scatter, REDUCE_SCATTER, comm, -1, rt__bytes_reduce_scatter(sbuf, rcounts, type, comm), sbuf,
            rbuf, rcounts, type, op, comm);
}

RT_EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                                       MPI_Comm comm)
{
    RT_COLL(Reduce_scatter_block, REDUCE_SCATTER_BLOCK, comm, -1,
            rt__bytes_reduce_scatter_block(sbuf, rcount, type, comm), sbuf, rbuf, rcount, type, op, comm);
}

RT_EXPORT int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    RT_COLL(Scan, SCAN, comm, -1, rt__bytes_scan(sbuf, count, type, 0, comm), sbuf, rbuf, count, type, op, comm);
}

RT_EXPORT int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    RT_COLL(Exscan, EXSCAN, comm, -1, rt__bytes_scan(sbuf, count, type, 1, comm), sbuf, rbuf, count, type, op, comm);
}

/* --- their non-blocking twins: the same counts, recorded at the completing MPI_Wait/Test ---- */

RT_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ibarrier, BARRIER, comm, -1, RT_NO_BYTES, comm, req);
}

RT_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ibcast, BCAST, comm, root, rt__bytes_bcast(count, type, root, comm), buf, count, type, root, comm, req);
}

RT_EXPORT int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                          MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ireduce, REDUCE, comm, root, rt__bytes_reduce(sbuf, count, type, root, comm), sbuf, rbuf, count, type,
             op, root, comm, req);
}

RT_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                             MPI_Request *req)
{
    RT_ICOLL(Iallreduce, ALLREDUCE, comm, -1, rt__bytes_allreduce(sbuf, count, type, comm), sbuf, rbuf, count, type,
             op, comm, req);
}

RT_EXPORT int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Igather, GATHER, comm, root, rt__bytes_gather(sbuf, scount, stype, rcount, rtype, root, comm), sbuf,
             scount, stype, rbuf, rcount, rtype, root, comm, req);
}

RT_EXPORT int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Iscatter, SCATTER, comm, root, rt__bytes_scatter(scount, stype, rbuf, rcount, rtype, root, comm), sbuf,
             scount, stype, rbuf, rcount, rtype, root, comm, req);
}

RT_EXPORT int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                             MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Iallgather, ALLGATHER, comm, -1, rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm), sbuf,
             scount, stype, rbuf, rcount, rtype, comm, req);
}

RT_EXPORT int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ialltoall, ALLTOALL, comm, -1, rt__bytes_all_to_all(sbuf, scount, stype, rcount, rtype, comm), sbuf,
             scount, stype, rbuf, rcount, rtype, comm, req);
}

RT_EXPORT int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                           const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Igatherv, GATHERV, comm, root,
             rt__bytes_gatherv(sbuf, scount, stype, (struct rt__vec){.counts = rcounts, .type = rtype}, root, comm),
             sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req);
}

RT_EXPORT int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                            void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Iscatterv, SCATTERV, comm, root,
             rt__bytes_scatterv((struct rt__vec){.counts = scounts, .type = stype}, rbuf, rcount, rtype, root, comm),
             sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req);
}

RT_EXPORT int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                              const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Iallgatherv, ALLGATHERV, comm, -1,
             rt__bytes_allgatherv(sbuf, scount, stype, (struct rt__vec){.counts = rcounts, .type = rtype}, comm),
             sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req);
}

RT_EXPORT int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                             void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                             MPI_Request *req)
{
    RT_ICOLL(Ialltoallv, ALLTOALLV, comm, -1,
             rt__bytes_alltoallv(sbuf, (struct rt__vec){.counts = scounts, .type = stype},
                                 (struct rt__vec){.counts = rcounts, .type = rtype}, comm),
             sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
}

RT_EXPORT int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                             const MPI_Datatype stypes[], void *rbuf, const int rcounts[], const int rdispls[],
                             const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ialltoallw, ALLTOALLW, comm, -1,
             rt__bytes_alltoallv(sbuf, (struct rt__vec){.counts = scounts, .types = stypes},
                                 (struct rt__vec){.counts = rcounts, .types = rtypes}, comm),
             sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req);
}

RT_EXPORT int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                                  MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ireduce_scatter, REDUCE_SCATTER, comm, -1, rt__bytes_reduce_scatter(sbuf, rcounts, type, comm), sbuf,
             rbuf, rcounts, type, op, comm, req);
}

RT_EXPORT int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                                        MPI_Comm comm, MPI_Request *req)
{
    RT_ICOLL(Ireduce_scatter_block, REDUCE_SCATTER_BLOCK, comm, -1,
             rt__bytes_reduce_scatter_block(sbuf, rcount, type, comm), sbuf, rbuf, rcount, type, op, comm, req);
}

RT_EXPORT int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                        MPI_Request *req)
{
    RT_ICOLL(Iscan, SCAN, comm, -1, rt__bytes_scan(sbuf, count, type, 0, comm), sbuf, rbuf, count, type, op, comm,
             req);
}

RT_EXPORT int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                          MPI_Request *req)
{
    RT_ICOLL(Iexscan, EXSCAN, comm, -1, rt__bytes_scan(sbuf, count, type, 1, comm), sbuf, rbuf, count, type, op,
             comm, req);
}
