#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes one synthetic SPMD program at any rank count, for tests/extrapolate.sh, with Debian's
python3-otf2: what retime extrapolate must recognise and reproduce. Written at 4, 8 and 16 ranks
and extrapolated to 32 and 64, its replays must equal those of the program written at 32 and 64.

The program (P a power of two, at least 4): MPI_Init; then ITERS iterations of
  - compute c·P^-1 ns (strong scaling: 2^20 ns of work split over P ranks);
  - a ring exchange, even ranks sending to r+1 first and then receiving from r-1, odd ranks the
    other way round (rank classes by parity), of 2^20 / P bytes (a strong-scaling halo);
  - a 2D periodic grid halo (MPI_Dims_create(P, 2), row-major): MPI_Irecv from the four
    neighbours, MPI_Isend to them, MPI_Waitall, 4096 B each (weak);
  - a 3D grid neighbour exchange along dimension 2 (MPI_Sendrecv, 512 B);
  - 1500 ns of compute, an MPI_Allreduce of 8 B (recorded as 8·P B, as Score-P and retime-trace do);
then an MPI_Gather to rank 0 (the root receives P blocks: rank 0 its own class) and
MPI_Finalize.

usage: gen_extrap.py OUTDIR P [VARIANT]
VARIANT: "" the program; "random-peer": the ring's partner is a random permutation (refused);
"more-iters": one more iteration at this P (refused when no form of P fits the counts);
"log-iters": 1 + log2(P) iterations (a solver that needs more of them on more ranks);
"extra": rank 0 also reports for 10 us before an MPI_Comm_rank each iteration (which the others
call alone, 50 ns), and after the allreduce come 20 us of compute and a second MPI_Allreduce from
another line (a gap of 2^20/P ns and one of 20 us between the same calls);
"splits": each iteration also has the 2D grid's row and column communicators (MPI_Comm_split's,
named per instance as retime-trace names them): an MPI_Allreduce on the row, an MPI_Allgather on
the column, an MPI_Sendrecv to the row's next rank (a rank of the row communicator).
"""
import random
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, Paradigm, RegionRole

from otf2defs import World, archive

OUT, P = sys.argv[1], int(sys.argv[2])
VARIANT = sys.argv[3] if len(sys.argv) > 3 else ""
ITERS = 4 + (VARIANT == "more-iters")
if VARIANT == "log-iters":
    ITERS = P.bit_length()  # 1 + log2(P)
NOROOT = 0xFFFFFFFF


def dims_create(p, n):
    f, x, d = [], p, 2
    while d * d <= x:
        while x % d == 0:
            f.append(d)
            x //= d
        d += 1
    if x > 1:
        f.append(x)
    dims = [1] * n
    for q in sorted(f, reverse=True):
        dims[dims.index(min(dims))] *= q
    return sorted(dims, reverse=True)


def grid_peer(r, n, dim, step):
    dims = dims_create(P, n)
    c, x = [0] * n, r
    for i in reversed(range(n)):
        c[i], x = x % dims[i], x // dims[i]
    c[dim] = (c[dim] + step) % dims[dim]
    q = 0
    for i in range(n):
        q = q * dims[i] + c[i]
    return q


perm = list(range(P))
random.Random(7).shuffle(perm)
with archive(OUT) as trace:
    defs = World(trace, P)
    d, locs, world, reg = defs.d, defs.locs, defs.world, defs.reg
    rows, cols = {}, {}
    # call sites as retime-trace writes them: a calling context per MPI region (function "step",
    # file "gen.c", a line per call), named by each Enter's attribute retime::callsite
    site_attr = d.attribute("retime::callsite", "call site", type=otf2.Type.CALLING_CONTEXT)
    sites = {}

    def site(name):
        if name not in sites:
            fn = d.region("step", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
            sites[name] = d.calling_context(fn, d.source_code_location("gen.c", 100 + len(sites)), None)
        return sites[name]
    if VARIANT == "splits":  # row-major: a row shares coordinate 0, a column coordinate 1
        d0, d1 = dims_create(P, 2)
        for i in range(d0):
            mem = [i * d1 + j for j in range(d1)]
            c = d.comm("MPI_Comm_split %d" % (2 * i), group=d.group("row %d" % i, group_type=GroupType.COMM_GROUP,
                                                                     paradigm=Paradigm.MPI, members=mem))
            for q in mem:
                rows[q] = (c, mem)
        for j in range(d1):
            mem = [i * d1 + j for i in range(d0)]
            c = d.comm("MPI_Comm_split %d" % (2 * j + 1), group=d.group("col %d" % j, group_type=GroupType.COMM_GROUP,
                                                                         paradigm=Paradigm.MPI, members=mem))
            for q in mem:
                cols[q] = (c, mem)

    for r in range(P):
        w = trace.event_writer_from_location(locs[r])
        t = [0]

        def call(name, dur, recs, role=RegionRole.POINT2POINT, line=None):
            w.write(otf2.events.Enter(t[0], reg(name, role), attributes={site_attr: site(line or name)}))
            for rec in recs:
                rec(t[0])
            t[0] += dur
            w.write(otf2.events.Leave(t[0], reg(name, role)))

        call("MPI_Init", 1000, [])
        w.write(otf2.events.Enter(t[0], reg("main", RegionRole.FUNCTION, Paradigm.USER)))
        right, left = (r + 1) % P, (r - 1) % P
        if VARIANT == "random-peer":
            right = perm[(perm.index(r) + 1) % P]
            left = perm[(perm.index(r) - 1) % P]
        for it in range(ITERS):
            t[0] += (1 << 20) // P
            m = (1 << 20) // P
            send = lambda ts: w.write(otf2.events.MpiSend(ts, right, world, 1, m))
            recv = lambda ts: w.write(otf2.events.MpiRecv(ts, left, world, 1, m))
            if r % 2 == 0:
                call("MPI_Send", 100, [send])
                call("MPI_Recv", 100, [recv])
            else:
                call("MPI_Recv", 100, [recv])
                call("MPI_Send", 100, [send])
            t[0] += 200
            nb = [grid_peer(r, 2, 0, -1), grid_peer(r, 2, 0, 1), grid_peer(r, 2, 1, -1), grid_peer(r, 2, 1, 1)]
            src = [grid_peer(r, 2, 0, 1), grid_peer(r, 2, 0, -1), grid_peer(r, 2, 1, 1), grid_peer(r, 2, 1, -1)]
            for k in range(4):
                call("MPI_Irecv", 10, [lambda ts, k=k: w.write(otf2.events.MpiIrecvRequest(ts, 100 * it + k))])
            for k in range(4):
                call("MPI_Isend", 10, [lambda ts, k=k: w.write(
                    otf2.events.MpiIsend(ts, nb[k], world, 10 + k, 4096, 100 * it + 4 + k))])
            recs = [lambda ts, k=k: w.write(otf2.events.MpiIrecv(ts, src[k], world, 10 + k, 4096, 100 * it + k))
                    for k in range(4)]
            recs += [lambda ts, k=k: w.write(otf2.events.MpiIsendComplete(ts, 100 * it + 4 + k)) for k in range(4)]
            call("MPI_Waitall", 50, recs)
            up, down = grid_peer(r, 3, 2, 1), grid_peer(r, 3, 2, -1)
            call("MPI_Sendrecv", 60, [lambda ts: w.write(otf2.events.MpiSend(ts, up, world, 20, 512)),
                                      lambda ts: w.write(otf2.events.MpiRecv(ts, down, world, 20, 512))])
            if VARIANT == "splits":
                rc, rmem = rows[r]
                cc, cmem = cols[r]
                me = rmem.index(r)
                nxt, prv = (me + 1) % len(rmem), (me - 1) % len(rmem)
                call("MPI_Sendrecv", 60, [lambda ts: w.write(otf2.events.MpiSend(ts, nxt, rc, 30, 256)),
                                          lambda ts: w.write(otf2.events.MpiRecv(ts, prv, rc, 30, 256))])
                t[0] += 100
                call("MPI_Allreduce", 200, [lambda ts: w.write(otf2.events.MpiCollectiveBegin(ts)),
                                            lambda ts: w.write(otf2.events.MpiCollectiveEnd(
                                                ts + 200, CollectiveOp.ALLREDUCE, rc, NOROOT, 64 * len(rmem),
                                                64 * len(rmem)))], RegionRole.COLL_ALL2ALL)
                call("MPI_Allgather", 200, [lambda ts: w.write(otf2.events.MpiCollectiveBegin(ts)),
                                            lambda ts: w.write(otf2.events.MpiCollectiveEnd(
                                                ts + 200, CollectiveOp.ALLGATHER, cc, NOROOT, 1024,
                                                1024 * len(cmem)))], RegionRole.COLL_ALL2ALL)
            if VARIANT == "extra":
                if r == 0:
                    w.write(otf2.events.Enter(t[0], reg("report", RegionRole.FUNCTION, Paradigm.USER)))
                    t[0] += 10000
                    w.write(otf2.events.Leave(t[0], reg("report", RegionRole.FUNCTION, Paradigm.USER)))
                call("MPI_Comm_rank", 50, [])
            t[0] += 1500
            call("MPI_Allreduce", 300, [lambda ts: w.write(otf2.events.MpiCollectiveBegin(ts)),
                                        lambda ts: w.write(otf2.events.MpiCollectiveEnd(
                                            ts + 300, CollectiveOp.ALLREDUCE, world, NOROOT, 8 * P, 8 * P))],
                 RegionRole.COLL_ALL2ALL)
            if VARIANT == "extra":
                t[0] += 20000
                call("MPI_Allreduce", 300, [lambda ts: w.write(otf2.events.MpiCollectiveBegin(ts)),
                                            lambda ts: w.write(otf2.events.MpiCollectiveEnd(
                                                ts + 300, CollectiveOp.ALLREDUCE, world, NOROOT, 8 * P, 8 * P))],
                     RegionRole.COLL_ALL2ALL, line="second allreduce")
        t[0] += 500
        call("MPI_Gather", 300, [lambda ts: w.write(otf2.events.MpiCollectiveBegin(ts)),
                                 lambda ts: w.write(otf2.events.MpiCollectiveEnd(
                                     ts + 300, CollectiveOp.GATHER, world, 0, 64, 64 * P if r == 0 else 0))],
             RegionRole.COLL_ALL2ONE)
        w.write(otf2.events.Leave(t[0], reg("main", RegionRole.FUNCTION, Paradigm.USER)))
        call("MPI_Finalize", 1000, [])
