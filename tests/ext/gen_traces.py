#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the synthetic traces of tests/ext_traces.sh with Debian's python3-otf2, a second OTF2
writer besides retime's own: each trace has the record layout Score-P gives the case it stands
for (self communicators, a root recording one block, OpenMP thread teams, accelerator streams,
RMA windows), and times chosen so that the replay's answers can be worked out by hand (the
derivations are in tests/ext_traces.sh, beside the checks).

usage: gen_traces.py OUTDIR
"""
import os
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm,
                        RegionRole)

OUT = sys.argv[1]
NOROOT = 0xFFFFFFFF  # OTF2_UNDEFINED_UINT32: an unrooted collective
LEGACY = False  # OmpFork/OmpJoin instead of ThreadFork/ThreadJoin


def archive(name):
    path = os.path.join(OUT, name)
    return otf2.writer.open(path, timer_resolution=1000000000), path


class Defs:
    """The definitions every trace here shares: P processes, each a location group with its
    first CPU thread (the MPI rank) and `threads` more CPU threads."""

    def __init__(self, trace, P, threads=0):
        d = trace.definitions
        self.d = d
        node = d.system_tree_node("node")
        self.groups = [d.location_group("Process %d" % r, location_group_type=LocationGroupType.PROCESS,
                                        system_tree_parent=node) for r in range(P)]
        # Score-P's numbering: thread t of rank r is location t << 32 | r; the MPI rank is thread 0.
        self.ranks = [d.location("Master thread", type=LocationType.CPU_THREAD, group=self.groups[r])
                      for r in range(P)]
        self.threads = [[d.location("OMP thread %d" % (t + 1), type=LocationType.CPU_THREAD,
                                    group=self.groups[r]) for t in range(threads)] for r in range(P)]
        self.mpi_locations = d.group("MPI ranks", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                                     members=self.ranks)
        self.world_group = d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP,
                                   paradigm=Paradigm.MPI, members=list(range(P)))
        self.world = d.comm("MPI_COMM_WORLD", group=self.world_group)
        self.self_group = d.group("MPI_COMM_SELF", group_type=GroupType.COMM_SELF,
                                  paradigm=Paradigm.MPI, members=[])
        self.self = d.comm("MPI_COMM_SELF", group=self.self_group)
        self.regions = {}

    def region(self, name, role=RegionRole.FUNCTION, paradigm=Paradigm.USER):
        if name not in self.regions:
            self.regions[name] = self.d.region(name, region_role=role, paradigm=paradigm)
        return self.regions[name]

    def mpi(self, name, role=RegionRole.POINT2POINT):
        return self.region(name, role, Paradigm.MPI)


def call(w, defs, name, t0, t1, records, role=RegionRole.COLL_ONE2ALL):
    """An MPI call from t0 to t1 holding `records` (callables taking the writer)."""
    w.write(otf2.events.Enter(t0, defs.mpi(name, role)))
    for rec in records:
        rec(w)
    w.write(otf2.events.Leave(t1, defs.mpi(name, role)))


def coll(w, defs, name, t0, t1, op, comm, root, sent, recv):
    call(w, defs, name, t0, t1, [lambda w: w.write(otf2.events.MpiCollectiveBegin(t0)),
                                 lambda w: w.write(otf2.events.MpiCollectiveEnd(t1, op, comm, root, sent, recv))])


# --------------------------------------------------------------------------- self communicators
# P ranks each run the same eight collectives on MPI_COMM_SELF at overlapping times (ranks 100 ns
# apart), then one MPI_Allreduce of 8 B on MPI_COMM_WORLD. Rank r: main at 0, 1000 ns of work
# before each self collective, each call 500 ns long; the world allreduce at 17000 + 100 r.
SELF_OPS = [("MPI_Allreduce", CollectiveOp.ALLREDUCE, False), ("MPI_Gather", CollectiveOp.GATHER, True),
            ("MPI_Bcast", CollectiveOp.BCAST, True), ("MPI_Barrier", CollectiveOp.BARRIER, False),
            ("MPI_Reduce", CollectiveOp.REDUCE, True), ("MPI_Scatter", CollectiveOp.SCATTER, True),
            ("MPI_Allgather", CollectiveOp.ALLGATHER, False), ("MPI_Alltoall", CollectiveOp.ALLTOALL, False)]
for P in (2, 3, 8):
    ctx, path = archive("self-coll-p%d" % P)
    with ctx as trace:
        defs = Defs(trace, P)
        main = defs.region("main")
        for r in range(P):
            w = trace.event_writer_from_location(defs.ranks[r])
            off = 100 * r
            w.write(otf2.events.Enter(off, main))
            t = off
            for name, op, rooted in SELF_OPS:
                t += 1000
                size = 0 if op == CollectiveOp.BARRIER else 64
                coll(w, defs, name, t, t + 500, op, defs.self, 0 if rooted else NOROOT,
                     size, size)
                t += 500
            t0 = 17000 + off
            coll(w, defs, "MPI_Allreduce", t0, 20000, CollectiveOp.ALLREDUCE, defs.world,
                 NOROOT, 8 * P, 8 * P)
            w.write(otf2.events.Leave(21000, main))

# --------------------------------------------------------------------------- one block at the root
# 4 ranks; the root (comm rank 0) of each rooted collective records one block of 1000 B as its
# total (what some writers do), the others their own block: bcast, reduce, gather, scatter, each
# entered by every rank at the same time, 10000 ns apart.
ctx, path = archive("rooted-one-block")
with ctx as trace:
    P, B = 4, 1000
    defs = Defs(trace, P)
    main = defs.region("main")
    ops = [("MPI_Bcast", CollectiveOp.BCAST), ("MPI_Reduce", CollectiveOp.REDUCE),
           ("MPI_Gather", CollectiveOp.GATHER), ("MPI_Scatter", CollectiveOp.SCATTER)]
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        for i, (name, op) in enumerate(ops):
            t = 1000 + 10000 * i
            root = r == 0
            if op == CollectiveOp.BCAST:
                sent, recv = (B, 0) if root else (0, B)
            elif op == CollectiveOp.SCATTER:
                sent, recv = (B, 0) if root else (0, B)
            else:  # reduce, gather: everyone sends a block, the root records one block received
                sent, recv = (B, B) if root else (B, 0)
            coll(w, defs, name, t, t + 5000, op, defs.world, 0, sent, recv)
        w.write(otf2.events.Leave(50000, main))

# The same broadcast where rank 2 records 999 B received: a real mismatch, to be named with both
# ranks and both counts.
ctx, path = archive("rooted-mismatch")
with ctx as trace:
    P, B = 4, 1000
    defs = Defs(trace, P)
    main = defs.region("main")
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        sent, recv = (B, 0) if r == 0 else (0, 999 if r == 2 else B)
        coll(w, defs, "MPI_Bcast", 1000, 6000, CollectiveOp.BCAST, defs.world, 0, sent, recv)
        w.write(otf2.events.Leave(10000, main))

# A broadcast whose internal messages contend (tests/network.sh, issue #30): 3 ranks, root 0
# enters at 1000, ranks 1 and 2 at 0; 1000 B; rank 2 then works until 14000 and every rank leaves
# main 1000 ns after its last call (rank 0 at 4000, rank 1 at 5000, rank 2 at 15000).
ctx, path = archive("bcast-contend")
with ctx as trace:
    P, B = 3, 1000
    defs = Defs(trace, P)
    main = defs.region("main")
    work = defs.region("work")
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        t0, t1 = (1000, 3000) if r == 0 else (0, 4000)
        coll(w, defs, "MPI_Bcast", t0, t1, CollectiveOp.BCAST, defs.world, 0, B if r == 0 else 0, 0 if r == 0 else B)
        if r == 2:
            w.write(otf2.events.Enter(4000, work))
            w.write(otf2.events.Leave(14000, work))
        w.write(otf2.events.Leave({0: 4000, 1: 5000, 2: 15000}[r], main))

# --------------------------------------------------------------------------- requests on 65 ranks
# 65 ranks in a ring, as Score-P records persistent requests and MPI_Waitany/MPI_Testsome: each of
# 2 iterations starts a persistent receive from the left (MPI_Start: an IrecvRequest) and a
# persistent send of 100 B to the right (MPI_Start: an Isend), tests the send once in vain
# (MPI_Testsome: a RequestTest record only), waits for the receive (MPI_Waitany: the Irecv) and
# completes the send (MPI_Testsome: the IsendComplete). Then a barrier on the even or odd ranks
# (a communicator of 33 or 32 ranks from MPI_Comm_split).
ctx, path = archive("requests-p65")
with ctx as trace:
    P, M = 65, 100
    defs = Defs(trace, P)
    d = trace.definitions
    main = defs.region("main")
    halves = [d.comm("split %s" % ("even", "odd")[h], group=d.group("split %d" % h, group_type=GroupType.COMM_GROUP,
                                                                      paradigm=Paradigm.MPI,
                                                                      members=list(range(h, P, 2))))
              for h in (0, 1)]
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        left, right = (r - 1) % P, (r + 1) % P
        for i in range(2):
            t0 = 1000 + 10000 * i
            rq, sq = 2 * i + 1, 2 * i + 2
            call(w, defs, "MPI_Start", t0, t0 + 10, [lambda w: w.write(otf2.events.MpiIrecvRequest(t0, rq))])
            call(w, defs, "MPI_Start", t0 + 20, t0 + 30,
                 [lambda w: w.write(otf2.events.MpiIsend(t0 + 20, right, defs.world, 5, M, sq))])
            call(w, defs, "MPI_Testsome", t0 + 40, t0 + 50, [lambda w: w.write(otf2.events.MpiRequestTest(t0 + 45, sq))])
            call(w, defs, "MPI_Waitany", t0 + 100, t0 + 2000,
                 [lambda w: w.write(otf2.events.MpiIrecv(t0 + 2000, left, defs.world, 5, M, rq))])
            call(w, defs, "MPI_Testsome", t0 + 2100, t0 + 2110,
                 [lambda w: w.write(otf2.events.MpiIsendComplete(t0 + 2105, sq))])
        coll(w, defs, "MPI_Barrier", 25000, 27000, CollectiveOp.BARRIER, halves[r % 2], NOROOT, 0, 0)
        w.write(otf2.events.Leave(30000, main))

# --------------------------------------------------------------------------- Score-P 8 and 9: MPI_Init as a collective
# Score-P 8 and later record MPI_Init and MPI_Finalize as collectives on MPI_COMM_WORLD inside the
# calls' regions: Enter MPI_Init, MpiCollectiveBegin, (CommCreate records), MpiCollectiveEnd with
# operation CREATE_HANDLE, no root and 0 bytes, Leave MPI_Init; MPI_Finalize likewise with
# DESTROY_HANDLE. Score-P 9 records MPI_Comm_split the same way (CREATE_HANDLE on the parent).
# 4 ranks: MPI_Init from 10 ns to 1 ms + 1000 r (the start-up), 100 us of work, an 8-byte
# MPI_Allreduce entered at 1.1 ms + 1000 r and left at 1.105 ms, 10 us of work, MPI_Comm_split
# (1.115 ms to 1.116 ms + 100 r), MPI_Finalize from 1.12 ms to 1.17 ms + 500 r, main left 1000 ns
# later.
def scorep8(name, split_op):
    ctx, path = archive(name)
    with ctx as trace:
        P = 4
        defs = Defs(trace, P)
        main = defs.region("main")
        for r in range(P):
            w = trace.event_writer_from_location(defs.ranks[r])
            w.write(otf2.events.Enter(0, main))
            coll(w, defs, "MPI_Init", 10, 1000000 + 1000 * r, CollectiveOp.CREATE_HANDLE, defs.world, NOROOT, 0, 0)
            coll(w, defs, "MPI_Allreduce", 1100000 + 1000 * r, 1105000, CollectiveOp.ALLREDUCE, defs.world, NOROOT,
                 8 * P, 8 * P)
            coll(w, defs, "MPI_Comm_split", 1115000, 1116000 + 100 * r, split_op, defs.world, NOROOT, 0, 0)
            coll(w, defs, "MPI_Finalize", 1120000, 1170000 + 500 * r, CollectiveOp.DESTROY_HANDLE, defs.world,
                 NOROOT, 0, 0)
            w.write(otf2.events.Leave(1171000 + 500 * r, main))


scorep8("scorep8-init", CollectiveOp.CREATE_HANDLE)
# the same whose MPI_Comm_split carries an operation OTF2 3.0 does not define (a newer writer's)
scorep8("scorep8-unknown-op", 23)

# --------------------------------------------------------------------------- hybrid MPI + OpenMP (+ CUDA, RMA)
# 2 processes of 3 CPU threads each (the MPI rank and 2 OpenMP threads), one thread team each,
# then rank 0 sends 8 B to rank 1 (0 B in hybrid-zero-byte). Rank 0 also has a CUDA stream (an accelerator location of 6
# records: 3 kernels) and an RMA window (2 records); a metric location holds 4 records.
def team(defs, w, lo, master, fork, begin, work_end, barrier_leave, join):
    """One thread team as Score-P records it on one thread."""
    par = defs.region("!$omp parallel @hybrid.c:10", RegionRole.PARALLEL, Paradigm.OPENMP)
    bar = defs.region("!$omp implicit barrier @hybrid.c:20", RegionRole.IMPLICIT_BARRIER, Paradigm.OPENMP)
    work = defs.region("compute", RegionRole.FUNCTION, Paradigm.USER)
    if master and LEGACY:
        w.write(otf2.events.OmpFork(fork, 3))
    elif master:
        w.write(otf2.events.ThreadFork(fork, Paradigm.OPENMP, 3))
    w.write(otf2.events.ThreadTeamBegin(begin, lo))
    w.write(otf2.events.Enter(begin, par))
    w.write(otf2.events.Enter(begin, work))
    w.write(otf2.events.Leave(work_end, work))
    w.write(otf2.events.Enter(work_end, bar))
    w.write(otf2.events.Leave(barrier_leave, bar))
    w.write(otf2.events.Leave(barrier_leave, par))
    w.write(otf2.events.ThreadTeamEnd(barrier_leave, lo))
    if master and LEGACY:
        w.write(otf2.events.OmpJoin(join))
    elif master:
        w.write(otf2.events.ThreadJoin(join, Paradigm.OPENMP))


def cuda_stream(trace, defs, kernels):
    """A CUDA stream in rank 0's process (an accelerator location group) running `kernels` kernels
    of 500 ns, one every 1000 ns from 1200."""
    d = trace.definitions
    acc = d.location_group("CUDA context 0", location_group_type=LocationGroupType.ACCELERATOR,
                           system_tree_parent=d.system_tree_node("node"), creating_location_group=defs.groups[0])
    stream = d.location("CUDA stream 1", type=LocationType.ACCELERATOR_STREAM, group=acc)
    kern = defs.region("kernel", RegionRole.FUNCTION, Paradigm.CUDA)
    w = trace.event_writer_from_location(stream)
    for k in range(kernels):
        w.write(otf2.events.Enter(1200 + 1000 * k, kern))
        w.write(otf2.events.Leave(1700 + 1000 * k, kern))


def hybrid(name, mpi_on_thread=False, msg_bytes=8):
    ctx, path = archive(name)
    with ctx as trace:
        d = trace.definitions
        defs = Defs(trace, 2, threads=2)
        d.group("OpenMP threads", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP,
                members=[defs.ranks[0]] + defs.threads[0] + [defs.ranks[1]] + defs.threads[1])
        teams = [d.comm("Thread team %d" % r, group=d.group("team %d" % r, group_type=GroupType.COMM_GROUP,
                                                             paradigm=Paradigm.OPENMP,
                                                             members=[3 * r, 3 * r + 1, 3 * r + 2]))
                 for r in range(2)]
        main = defs.region("main")
        # rank 0: fork 1000, its own work to 3000, threads arrive at 2000 and 4900, all leave 5000
        w = trace.event_writer_from_location(defs.ranks[0])
        w.write(otf2.events.Enter(0, main))
        w.write(otf2.events.RmaWinCreate(500, d.rma_win("window", comm=defs.world)))
        if msg_bytes == 0:
            coll(w, defs, "MPI_Barrier", 600, 700, CollectiveOp.BARRIER, defs.self, NOROOT, 0, 0)
        team(defs, w, teams[0], True, 1000, 1000, 3000, 5000, 5000)
        call(w, defs, "MPI_Send", 6000, 6100,
             [lambda w: w.write(otf2.events.MpiSend(6000, 1, defs.world, 7, msg_bytes))])
        w.write(otf2.events.RmaWinDestroy(6500, d.rma_win("window", comm=defs.world)))
        w.write(otf2.events.Leave(7000, main))
        for t, end in ((0, 2000), (1, 4900)):
            w = trace.event_writer_from_location(defs.threads[0][t])
            team(defs, w, teams[0], False, 0, 1100, end, 5000, 0)
            if mpi_on_thread and t == 1:
                call(w, defs, "MPI_Send", 5500, 5600,
                     [lambda w: w.write(otf2.events.MpiSend(5500, 1, defs.world, 9, 8))])
        # rank 1: fork 1000, its own work to 1500, threads arrive at 1900 and 1200, all leave 2000
        w = trace.event_writer_from_location(defs.ranks[1])
        w.write(otf2.events.Enter(0, main))
        if msg_bytes == 0:
            coll(w, defs, "MPI_Barrier", 600, 700, CollectiveOp.BARRIER, defs.self, NOROOT, 0, 0)
        team(defs, w, teams[1], True, 1000, 1000, 1500, 2000, 2000)
        call(w, defs, "MPI_Recv", 2500, 6200,
             [lambda w: w.write(otf2.events.MpiRecv(6200, 0, defs.world, 7, msg_bytes))])
        w.write(otf2.events.Leave(7000, main))
        for t, end in ((0, 1900), (1, 1200)):
            w = trace.event_writer_from_location(defs.threads[1][t])
            team(defs, w, teams[1], False, 0, 1050, end, 2000, 0)
        # a CUDA stream of rank 0's process: 3 kernels (6 records), and a metric location
        cuda_stream(trace, defs, 3)


hybrid("hybrid-omp-cuda")
hybrid("hybrid-mpi-on-thread", mpi_on_thread=True)
# the same with a message of 0 bytes on MPI_COMM_WORLD right after each join, and a barrier on
# MPI_COMM_SELF (600-700) before each fork: the message's fields equal those of the join's payload
# before the reader fills in the join's work, and the payload before the join's is final, so a
# reader that let a payload share a join's would give the message the join's work as its bytes
hybrid("hybrid-zero-byte", msg_bytes=0)

# --------------------------------------------------------------------------- two communicators
# Rank 0 sends 8 B with tag 0 on "reversed" (world's ranks in the other order), then 8 B with tag 0
# on MPI_COMM_WORLD; rank 1 receives the world one first. Same size, same tag: only the
# communicator tells the messages apart (the reader must not let the second send share the
# first's fields).
ctx, path = archive("two-comms")
with ctx as trace:
    defs = Defs(trace, 2)
    d = trace.definitions
    rev = d.comm("reversed", group=d.group("reversed", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                           members=[1, 0]))
    main = defs.region("main")
    w = trace.event_writer_from_location(defs.ranks[0])
    w.write(otf2.events.Enter(0, main))
    call(w, defs, "MPI_Send", 1000, 1100, [lambda w: w.write(otf2.events.MpiSend(1000, 0, rev, 0, 8))],
         RegionRole.POINT2POINT)
    call(w, defs, "MPI_Send", 2000, 2100, [lambda w: w.write(otf2.events.MpiSend(2000, 1, defs.world, 0, 8))],
         RegionRole.POINT2POINT)
    w.write(otf2.events.Leave(3000, main))
    w = trace.event_writer_from_location(defs.ranks[1])
    w.write(otf2.events.Enter(0, main))
    call(w, defs, "MPI_Recv", 1000, 3000, [lambda w: w.write(otf2.events.MpiRecv(3000, 0, defs.world, 0, 8))],
         RegionRole.POINT2POINT)
    call(w, defs, "MPI_Recv", 4000, 4100, [lambda w: w.write(otf2.events.MpiRecv(4100, 1, rev, 0, 8))],
         RegionRole.POINT2POINT)
    w.write(otf2.events.Leave(5000, main))

# --------------------------------------------------------------------------- one process, OpenMP only
# A one-process OpenMP trace (no MPI at all): 1 rank with 9 more threads, 2 teams; once with
# ThreadFork/ThreadJoin, once with the OmpFork/OmpJoin records older Score-P versions wrote.
def openmp_only(name):
    ctx, path = archive(name)
    with ctx as trace:
        d = trace.definitions
        node = d.system_tree_node("node")
        grp = d.location_group("Process", location_group_type=LocationGroupType.PROCESS, system_tree_parent=node)
        locs = [d.location("OMP thread %d" % t, type=LocationType.CPU_THREAD, group=grp) for t in range(10)]
        tgrp = d.group("team", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP, members=locs)
        teamc = d.comm("team", group=d.group("team members", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.OPENMP,
                                            members=list(range(10))))
        defs = type("D", (), {})()
        defs.regions = {}
        defs.d = d
        defs.region = lambda name, role=RegionRole.FUNCTION, paradigm=Paradigm.USER: Defs.region(defs, name, role, paradigm)
        main = defs.region("main")
        for t in range(10):
            w = trace.event_writer_from_location(locs[t])
            if t == 0:
                w.write(otf2.events.Enter(0, main))
            for k in range(2):
                base = 1000 + 10000 * k
                # thread t works (t + 1) * 500 ns; everyone leaves the barrier at base + 6000
                team(defs, w, teamc, t == 0, base, base + (0 if t == 0 else 50), base + (t + 1) * 500,
                     base + 6000, base + 6000)
            if t == 0:
                w.write(otf2.events.Leave(30000, main))


openmp_only("openmp-only")
LEGACY = True
openmp_only("openmp-only-legacy")


# --------------------------------------------------------------------------- a worker that begins before the fork
# One process of 3 threads (OMPT-style records): the master forks at 10000 and works to 11000, then
# waits in the barrier to 16000 and joins. Worker 1 begins the team at 10050 and works to 12000.
# Worker 2's first record of the team, at 7000, comes 3 us before the master's fork (threads'
# records are not ordered across threads); inside the team it runs a nested team of its own
# (12000-14500) and works on to 15000, the last of all, then waits in the barrier to 16000.
ctx, path = archive("omp-early-worker")
with ctx as trace:
    d = trace.definitions
    grp = d.location_group("Process", location_group_type=LocationGroupType.PROCESS,
                           system_tree_parent=d.system_tree_node("node"))
    locs = [d.location("OMP thread %d" % t, type=LocationType.CPU_THREAD, group=grp) for t in range(3)]
    d.group("team", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP, members=locs)
    teamc = d.comm("team", group=d.group("team members", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.OPENMP,
                                        members=[0, 1, 2]))
    inner = d.comm("inner team", group=d.group("inner members", group_type=GroupType.COMM_GROUP,
                                               paradigm=Paradigm.OPENMP, members=[0]))
    main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
    par = d.region("!$omp parallel @early.c:10", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
    bar = d.region("!$omp implicit barrier @early.c:20", region_role=RegionRole.IMPLICIT_BARRIER,
                   paradigm=Paradigm.OPENMP)
    par2 = d.region("!$omp parallel @early.c:30", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
    bar2 = d.region("!$omp implicit barrier @early.c:40", region_role=RegionRole.IMPLICIT_BARRIER,
                    paradigm=Paradigm.OPENMP)
    work = d.region("compute", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
    E, L = otf2.events.Enter, otf2.events.Leave
    for t, begin, work_end in ((0, 10000, 11000), (1, 10050, 12000), (2, 7000, 15000)):
        w = trace.event_writer_from_location(locs[t])
        if t == 0:
            w.write(E(0, main))
            w.write(otf2.events.ThreadFork(10000, Paradigm.OPENMP, 3))
        w.write(otf2.events.ThreadTeamBegin(begin, teamc))
        w.write(E(begin, par))
        w.write(E(begin, work))
        if t == 2:  # a nested team inside its work
            w.write(otf2.events.ThreadFork(12000, Paradigm.OPENMP, 1))
            w.write(otf2.events.ThreadTeamBegin(12000, inner))
            w.write(E(12000, par2))
            w.write(E(14000, bar2))
            w.write(L(14500, bar2))
            w.write(L(14500, par2))
            w.write(otf2.events.ThreadTeamEnd(14500, inner))
            w.write(otf2.events.ThreadJoin(14500, Paradigm.OPENMP))
        w.write(L(work_end, work))
        w.write(E(work_end, bar))
        w.write(L(16000, bar))
        w.write(L(16000, par))
        w.write(otf2.events.ThreadTeamEnd(16000, teamc))
        if t == 0:
            w.write(otf2.events.ThreadJoin(16000, Paradigm.OPENMP))
            w.write(L(20000, main))


# --------------------------------------------------------------------------- threads without MPI (APEX)
# APEX's OTF2 output: one process whose first location (its MPI location, listed in an MPI
# COMM_LOCATIONS group) holds no events; the work is on two other threads. Thread 1: main from 0
# to 6000 with a parallel region 1000-5000 (its team: it works to 2000, waits in the barrier to
# 5000); thread 2 joins that team from 1000, works to 4000 (the last), waits to 5000; then it runs
# "apex worker" 5500-9000 outside any team (not replayed: only a process's rank's own events are).
# threads-only-dishonest: the same with the MPI location declaring 79 events it does not hold, as
# APEX's anchor declares for every location (issue #47 item 6): decided from the records.
for name, declared in (("threads-only", 0), ("threads-only-dishonest", 79)):
    ctx, path = archive(name)
    with ctx as trace:
        d = trace.definitions
        grp = d.location_group("Process 0", location_group_type=LocationGroupType.PROCESS,
                               system_tree_parent=d.system_tree_node("node"))
        mpi_loc = d.location("MPI location", type=LocationType.CPU_THREAD, group=grp, number_of_events=declared)
        thr = [d.location("CPU thread %d" % t, type=LocationType.CPU_THREAD, group=grp) for t in (1, 2)]
        d.group("MPI ranks", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=[mpi_loc])
        main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        par = d.region("parallel region", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)
        bar = d.region("barrier", region_role=RegionRole.IMPLICIT_BARRIER, paradigm=Paradigm.OPENMP)
        work = d.region("work", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        apex = d.region("apex worker", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        E, L = otf2.events.Enter, otf2.events.Leave
        w = trace.event_writer_from_location(thr[0])
        for rec in (E(0, main), E(1000, par), E(1000, work), L(2000, work), E(2000, bar), L(5000, bar),
                    L(5000, par), L(6000, main)):
            w.write(rec)
        w = trace.event_writer_from_location(thr[1])
        for rec in (E(1000, par), E(1000, work), L(4000, work), E(4000, bar), L(5000, bar), L(5000, par),
                    E(5500, apex), L(9000, apex)):
            w.write(rec)


# --------------------------------------------------------------------------- split and self communicators (Score-P)
# Score-P's communicator definitions: one COMM_SELF group that MPI_COMM_SELF and every
# communicator of one process share, and split or duplicated communicators naming their parent
# (a duplicate shares its parent's group). 4 ranks: MPI_COMM_SELF, "halves" (MPI_Comm_split of
# MPI_COMM_WORLD into ranks {0,1} and {2,3}: two definitions, one group each), "alone" (a split of
# "halves" into one process each: the COMM_SELF group, parent "halves") and "world dup" (parent
# MPI_COMM_WORLD, its group). Every rank runs a barrier on each, 1000 ns apart.
ctx, path = archive("comms-split-self")
with ctx as trace:
    P = 4
    defs = Defs(trace, P)
    d = trace.definitions
    main = defs.region("main")
    halves = [d.comm("halves", group=d.group("halves %d" % h, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                            members=[2 * h, 2 * h + 1]), parent=defs.world) for h in (0, 1)]
    alone = d.comm("alone", group=defs.self_group, parent=halves[0])
    dup = d.comm("world dup", group=defs.world_group, parent=defs.world)
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        for i, c in enumerate((defs.self, halves[r // 2], alone, dup)):
            t = 1000 + 1000 * i
            coll(w, defs, "MPI_Barrier", t, t + 500, CollectiveOp.BARRIER, c, NOROOT, 0, 0)
        w.write(otf2.events.Leave(6000, main))


# --------------------------------------------------------------------------- network patterns (tests/network.sh)
def exchange(name, P, m, sends):
    """P ranks; at 1000 ns every rank enters one MPI_Startall that posts its receives and its
    sends (sends: rank -> list of destinations) at once, then waits for all of them in one
    MPI_Waitall (measured 1000 + 100 .. 5000), and ends at 6000. m: the bytes of every message, or
    per sender (rank -> bytes)."""
    size = (lambda s: m[s]) if isinstance(m, dict) else (lambda s: m)
    ctx, path = archive(name)
    with ctx as trace:
        defs = Defs(trace, P)
        main = defs.region("main")
        recvs = {r: [s for s in range(P) for d in sends.get(s, []) if d == r] for r in range(P)}
        for r in range(P):
            w = trace.event_writer_from_location(defs.ranks[r])
            w.write(otf2.events.Enter(0, main))
            req = {}
            recs = []
            for s in recvs[r]:
                req[("r", s)] = len(req) + 1
                recs.append(lambda w, q=req[("r", s)]: w.write(otf2.events.MpiIrecvRequest(1000, q)))
            for d in sends.get(r, []):
                req[("s", d)] = len(req) + 1
                recs.append(lambda w, d=d, q=req[("s", d)]: w.write(otf2.events.MpiIsend(1000, d, defs.world, 3, size(r), q)))
            call(w, defs, "MPI_Startall", 1000, 1100, recs)
            done = []
            for s in recvs[r]:
                done.append(lambda w, s=s, q=req[("r", s)]: w.write(otf2.events.MpiIrecv(5000, s, defs.world, 3, size(s), q)))
            for d in sends.get(r, []):
                done.append(lambda w, q=req[("s", d)]: w.write(otf2.events.MpiIsendComplete(5000, q)))
            call(w, defs, "MPI_Waitall", 1100, 5000, done)
            w.write(otf2.events.Leave(6000, main))


exchange("net-two-isends", 3, 1000, {0: [1, 2]})
exchange("net-shared-link", 16, 1000, {0: [2], 1: [3]})
exchange("net-alone", 16, 1000, {0: [2]})
exchange("net-shared-4", 4, 1000, {0: [2], 1: [3]})
exchange("net-alltoall-16", 16, 1000, {r: [d for d in range(16) if d != r] for r in range(16)})
# the fast contention model against max-min (tests/network.sh): rank 0's injection link carries
# 0 -> 1 and 0 -> 2, rank 2's ejection link 0 -> 2, 3 -> 2 and 4 -> 2
exchange("net-fast", 5, 1000, {0: [1, 2], 3: [2], 4: [2]})
# a small message behind a large one (--mtu, tests/network.sh): rank 0 sends 10000 B to rank 2 at
# 1000 (MPI_Isend, waited for until 15000); rank 1 sends it 8 B at 2000 (MPI_Send 2000 - 2100);
# rank 2 receives the 8 B (MPI_Recv 500 - 3100), computes to 23100, receives the 10000 B (MPI_Recv
# 23100 - 23200) and ends at 24000.
ctx, path = archive("net-queue")
with ctx as trace:
    defs = Defs(trace, 3)
    main = defs.region("main")
    ws = [trace.event_writer_from_location(defs.ranks[r]) for r in range(3)]
    for w in ws:
        w.write(otf2.events.Enter(0, main))
    call(ws[0], defs, "MPI_Isend", 1000, 1010, [lambda w: w.write(otf2.events.MpiIsend(1000, 2, defs.world, 1, 10000, 1))])
    call(ws[0], defs, "MPI_Wait", 1010, 15000, [lambda w: w.write(otf2.events.MpiIsendComplete(15000, 1))])
    ws[0].write(otf2.events.Leave(16000, main))
    call(ws[1], defs, "MPI_Send", 2000, 2100, [lambda w: w.write(otf2.events.MpiSend(2000, 2, defs.world, 2, 8))])
    ws[1].write(otf2.events.Leave(3000, main))
    call(ws[2], defs, "MPI_Recv", 500, 3100, [lambda w: w.write(otf2.events.MpiRecv(3100, 1, defs.world, 2, 8))])
    call(ws[2], defs, "MPI_Recv", 23100, 23200, [lambda w: w.write(otf2.events.MpiRecv(23200, 0, defs.world, 1, 10000))])
    ws[2].write(otf2.events.Leave(24000, main))
# net-shared-link's routes with 1000 B and 3000 B: the shared link is busy 3000 ns without
# sharing (--contention none), 4000 with it
exchange("net-uneven", 16, {0: 1000, 1: 3000}, {0: [2], 1: [3]})


# one MPI_Reduce of 8 B to rank 0 on 64 ranks (tests/network.sh: a small collective on a 2-level fat
# tree with a hop latency, issue #46 item 5): every rank enters it at 1000 (left at 2000 measured)
# and ends 1000 ns after.
ctx, path = archive("reduce-64")
with ctx as trace:
    defs = Defs(trace, 64)
    main = defs.region("main")
    for r in range(64):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        coll(w, defs, "MPI_Reduce", 1000, 2000, CollectiveOp.REDUCE, defs.world, 0, 8, 8 * 64 if r == 0 else 0)
        w.write(otf2.events.Leave(3000, main))


# --------------------------------------------------------------------------- an allreduce loop
# 8 ranks, 20 iterations: 50 us of work, then MPI_Allreduce of 8 B on MPI_COMM_WORLD (20 us in
# the measured times), every rank alike; tests/network.sh puts OS noise on one rank and asks the
# analysis who is to blame (issue #30).
ctx, path = archive("allreduce-loop")
with ctx as trace:
    P = 8
    defs = Defs(trace, P)
    main = defs.region("main")
    work = defs.region("work")
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        t = 1000
        for i in range(20):
            w.write(otf2.events.Enter(t, work))
            w.write(otf2.events.Leave(t + 50000, work))
            coll(w, defs, "MPI_Allreduce", t + 50000, t + 70000, CollectiveOp.ALLREDUCE, defs.world, NOROOT,
                 8 * P, 8 * P)
            t += 70000
        w.write(otf2.events.Leave(t + 1000, main))


# --------------------------------------------------------------------------- one late rank
# Issue #44's program: 8 ranks, 5 iterations; rank 6 computes 50 ms before each MPI_Allreduce of
# one double, the others 1 ms. Measured: every rank leaves the allreduce 20 us after rank 6 enters
# it. tests/coll_path.sh: the critical path is rank 6's compute under every algorithm and view.
ctx, path = archive("late-allreduce")
with ctx as trace:
    P = 8
    defs = Defs(trace, P)
    main = defs.region("main")
    work = defs.region("work")
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        t = 1000
        for i in range(5):
            late = 50000000 if r == 6 else 1000000
            w.write(otf2.events.Enter(t, work))
            w.write(otf2.events.Leave(t + late, work))
            coll(w, defs, "MPI_Allreduce", t + late, t + 50020000, CollectiveOp.ALLREDUCE, defs.world, NOROOT,
                 8 * P, 8 * P)
            t += 50020000
        w.write(otf2.events.Leave(t + 1000, main))


# --------------------------------------------------------------------------- measured binder
# 4 ranks, then one MPI_Allreduce of 8 B (issue #44, item 5). Measured: rank 2 waits 10 ms in an
# MPI_Recv of 8 B from rank 3 (sent at 1000 ns) and enters the allreduce last, at 10,001,000 ns;
# rank 0 computes 2 ms and enters at 2,001,000; ranks 1 and 3 at 1000 and 1100; all leave at
# 10,021,000. In the model the receive takes a few us, so rank 0 is the late one there. The
# measured run's collective waits are the raw records' (10,001,000 - entry summed over 0, 1, 3 =
# 27,999,900 ns), all of them for rank 2.
ctx, path = archive("measured-binder")
with ctx as trace:
    P = 4
    defs = Defs(trace, P)
    main = defs.region("main")
    work = defs.region("work")
    entry = {0: 2001000, 1: 1000, 2: 10001000, 3: 1100}
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        if r == 0:
            w.write(otf2.events.Enter(1000, work))
            w.write(otf2.events.Leave(2001000, work))
        if r == 3:
            call(w, defs, "MPI_Send", 1000, 1100, [lambda w: w.write(otf2.events.MpiSend(1000, 2, defs.world, 5, 8))],
                 RegionRole.POINT2POINT)
        if r == 2:
            call(w, defs, "MPI_Recv", 1000, 10001000,
                 [lambda w: w.write(otf2.events.MpiRecv(10001000, 3, defs.world, 5, 8))], RegionRole.POINT2POINT)
        coll(w, defs, "MPI_Allreduce", entry[r], 10021000, CollectiveOp.ALLREDUCE, defs.world, NOROOT, 8 * P, 8 * P)
        w.write(otf2.events.Leave(10022000, main))


# --------------------------------------------------------------------------- what a replay leaves out
# 2 ranks whose records the replay does not replay, each kind with its time chosen (issue #33,
# item 5). Rank 0 spans 0 - 10000: a CUDA call 1000 - 3000 (2000: 20 %), MPI_Put 4000 - 4500
# holding an RMA put (500: 5 %), MPI_Comm_dup 5000 - 5400 holding a CommCreate (400: 4 %),
# measurement off 6000 - 7000 (1000: 10 %), a buffer flush 7500 - 7800 (300: 3 %), MPI_Iallreduce
# 8600 - 8700 and MPI_Wait 8800 - 9000 holding a non-blocking collective's request and completion
# (300: 3 %), an OpenMP lock taken and given back. Rank 1 spans 0 - 20000: MPI_Put 1000 - 5000
# (4000: 20 %), the same MPI_Iallreduce and MPI_Wait (300: 1.5 %), measurement off from 15000 and
# never on again (5000 to its end: 25 %). Both begin and end with ProgramBegin/ProgramEnd. A CUDA
# stream of rank 0's process holds 2 kernels (4 records).
ctx, path = archive("coverage-mix")
with ctx as trace:
    d = trace.definitions
    defs = Defs(trace, 2)
    main = defs.region("main")
    memcpy = defs.region("cudaMemcpy", RegionRole.DATA_TRANSFER, Paradigm.CUDA)
    win = d.rma_win("window", comm=defs.world)
    dup = d.comm("dup", group=defs.world_group, parent=defs.world)
    for r, end in ((0, 10000), (1, 20000)):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.ProgramBegin(0, "coverage", []))
        w.write(otf2.events.Enter(0, main))
        if r == 0:
            w.write(otf2.events.Enter(1000, memcpy))
            w.write(otf2.events.Leave(3000, memcpy))
            call(w, defs, "MPI_Put", 4000, 4500, [lambda w: w.write(otf2.events.RmaPut(4100, win, 1, 64, 0))],
                 RegionRole.FUNCTION)
            call(w, defs, "MPI_Comm_dup", 5000, 5400, [lambda w: w.write(otf2.events.CommCreate(5000, dup))],
                 RegionRole.FUNCTION)
            w.write(otf2.events.MeasurementOnOff(6000, otf2.MeasurementMode.OFF))
            w.write(otf2.events.MeasurementOnOff(7000, otf2.MeasurementMode.ON))
            w.write(otf2.events.BufferFlush(7500, 7800))
        else:
            call(w, defs, "MPI_Put", 1000, 5000, [lambda w: w.write(otf2.events.RmaPut(1100, win, 0, 64, 0))],
                 RegionRole.FUNCTION)
        call(w, defs, "MPI_Iallreduce", 8600, 8700,
             [lambda w: w.write(otf2.events.NonBlockingCollectiveRequest(8600, 1))], RegionRole.COLL_ALL2ALL)
        call(w, defs, "MPI_Wait", 8800, 9000,
             [lambda w: w.write(otf2.events.NonBlockingCollectiveComplete(9000, CollectiveOp.ALLREDUCE, defs.world,
                                                                          NOROOT, 16, 16, 1))], RegionRole.FUNCTION)
        if r == 0:
            w.write(otf2.events.OmpAcquireLock(9100, 1, 1))
            w.write(otf2.events.OmpReleaseLock(9200, 1, 1))
        else:
            w.write(otf2.events.MeasurementOnOff(15000, otf2.MeasurementMode.OFF))
        w.write(otf2.events.Leave(end, main))
        w.write(otf2.events.ProgramEnd(end, 0))
    cuda_stream(trace, defs, 2)


# --------------------------------------------------------------------------- a rank that wrote nothing
# 4 ranks; tests/other_producers.sh deletes rank 2's event file (traces/2.evt: a rank killed before
# it wrote). Every rank: main 0 - 7000, an MPI_Barrier entered at 4000 (left at 4500 measured), an
# MPI_Bcast of 100 B rooted at rank 2 (5000 - 5600). Before them: rank 0 sends 1000 B to rank 1
# (MPI_Send 1000 - 1100; rank 1's MPI_Recv 1000 - 2000); rank 1 sends 1000 B to rank 2 (MPI_Send
# 2100 - 2200) and receives 1000 B from it nonblocking (MPI_Irecv 2300 - 2350, MPI_Wait 2400 -
# 2600); rank 3 receives 1000 B from rank 2 (MPI_Recv 1000 - 3000) and sends it 1000 B nonblocking
# (MPI_Isend 3100 - 3150, MPI_Wait 3200 - 3300); rank 2 the other ends of these.
ctx, path = archive("missing-rank")
with ctx as trace:
    P = 4
    defs = Defs(trace, P)
    main = defs.region("main")
    p2p = {
        0: [("MPI_Send", 1000, 1100, [lambda w: w.write(otf2.events.MpiSend(1000, 1, defs.world, 1, 1000))])],
        1: [("MPI_Recv", 1000, 2000, [lambda w: w.write(otf2.events.MpiRecv(2000, 0, defs.world, 1, 1000))]),
            ("MPI_Send", 2100, 2200, [lambda w: w.write(otf2.events.MpiSend(2100, 2, defs.world, 2, 1000))]),
            ("MPI_Irecv", 2300, 2350, [lambda w: w.write(otf2.events.MpiIrecvRequest(2300, 6))]),
            ("MPI_Wait", 2400, 2600, [lambda w: w.write(otf2.events.MpiIrecv(2600, 2, defs.world, 3, 1000, 6))])],
        2: [("MPI_Recv", 1000, 2200, [lambda w: w.write(otf2.events.MpiRecv(2200, 1, defs.world, 2, 1000))]),
            ("MPI_Send", 2300, 2400, [lambda w: w.write(otf2.events.MpiSend(2300, 1, defs.world, 3, 1000))]),
            ("MPI_Send", 2500, 2600, [lambda w: w.write(otf2.events.MpiSend(2500, 3, defs.world, 4, 1000))]),
            ("MPI_Recv", 3000, 3200, [lambda w: w.write(otf2.events.MpiRecv(3200, 3, defs.world, 5, 1000))])],
        3: [("MPI_Recv", 1000, 3000, [lambda w: w.write(otf2.events.MpiRecv(3000, 2, defs.world, 4, 1000))]),
            ("MPI_Isend", 3100, 3150, [lambda w: w.write(otf2.events.MpiIsend(3100, 2, defs.world, 5, 1000, 5))]),
            ("MPI_Wait", 3200, 3300, [lambda w: w.write(otf2.events.MpiIsendComplete(3300, 5))])],
    }
    for r in range(P):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        for name, t0, t1, recs in p2p[r]:
            call(w, defs, name, t0, t1, recs, RegionRole.POINT2POINT)
        coll(w, defs, "MPI_Barrier", 4000, 4500, CollectiveOp.BARRIER, defs.world, NOROOT, 0, 0)
        coll(w, defs, "MPI_Bcast", 5000, 5600, CollectiveOp.BCAST, defs.world, 2, 100 * P if r == 2 else 0, 100)
        w.write(otf2.events.Leave(7000, main))


# --------------------------------------------------------------------------- lost send completions
# What retime-trace wrote before issue #45 (item 3) when Open MPI returned one handle for three
# inline MPI_Isend: three MpiIsend (requests 1-3) and, in the MPI_Waitall, the completion of the
# last one only. 2 ranks; rank 0: three MPI_Isend of 8 B at 1000, 1100, 1200 (50 ns each), the
# MPI_Waitall 1300 - 1400; rank 1: three MPI_Recv, 1000 - 2000, 2000 - 2100, 2100 - 2200.
ctx, path = archive("isend-lost-completion")
with ctx as trace:
    defs = Defs(trace, 2)
    main = defs.region("main")
    for r in range(2):
        w = trace.event_writer_from_location(defs.ranks[r])
        w.write(otf2.events.Enter(0, main))
        for i in range(3):
            if r == 0:
                call(w, defs, "MPI_Isend", 1000 + 100 * i, 1050 + 100 * i,
                     [lambda w, i=i: w.write(otf2.events.MpiIsend(1000 + 100 * i, 1, defs.world, i, 8, i + 1))],
                     RegionRole.POINT2POINT)
            else:
                t0 = 1000 if i == 0 else 1900 + 100 * i
                call(w, defs, "MPI_Recv", t0, t0 + (1000 if i == 0 else 100),
                     [lambda w, i=i, t=t0 + (1000 if i == 0 else 100): w.write(otf2.events.MpiRecv(t, 0, defs.world, i, 8))],
                     RegionRole.POINT2POINT)
        if r == 0:
            call(w, defs, "MPI_Waitall", 1300, 1400, [lambda w: w.write(otf2.events.MpiIsendComplete(1400, 3))],
                 RegionRole.POINT2POINT)
        w.write(otf2.events.Leave(3000, main))

# --------------------------------------------------------------------------- non-blocking collectives
# Score-P's layout (OTF2 3.x): the MPI_I<coll> call holds a NonBlockingCollectiveRequest(request
# id), the MPI_Wait that completes it a NonBlockingCollectiveComplete(op, comm, root, sent,
# received, request id). 4 ranks; every rank: main from 0, the MPI_I<coll> call 1000 - 1100
# (rank `late` enters it at 3000 - 3100 instead), compute until its MPI_Wait, which it enters
# `compute` ns after leaving the MPI_I<coll> call and leaves 100 ns later, then 1000 ns of
# compute to main's end. tests/other_producers.sh and tests/network.sh derive the ends by hand.
def nbcoll(name, op, root, sizes, compute, late=None, call_name="MPI_Iallreduce", complete=True, req_done=7,
           late_at=3000):
    ctx, path = archive(name)
    with ctx as trace:
        P = 4
        defs = Defs(trace, P)
        main = defs.region("main")
        role = RegionRole.COLL_ONE2ALL if root != NOROOT else RegionRole.COLL_ALL2ALL
        for r in range(P):
            w = trace.event_writer_from_location(defs.ranks[r])
            w.write(otf2.events.Enter(0, main))
            t0 = late_at if r == late else 1000
            call(w, defs, call_name, t0, t0 + 100, [lambda w, t0=t0: w.write(otf2.events.NonBlockingCollectiveRequest(t0, 7))],
                 role)
            tw = t0 + 100 + compute
            sent, recv = sizes(r)
            recs = []
            if complete or r != 1:
                recs = [lambda w, tw=tw, sent=sent, recv=recv: w.write(otf2.events.NonBlockingCollectiveComplete(
                    tw + 100, op, defs.world, root, sent, recv, req_done if r == 1 else 7))]
            call(w, defs, "MPI_Wait", tw, tw + 100, recs, RegionRole.FUNCTION)
            w.write(otf2.events.Leave(tw + 1100, main))


# MPI_Iallreduce of 1000 B (Score-P's counts: P x 1000 sent and received), 5000 ns of compute
# before the wait (the collective hidden), 2000 ns (the wait waits for it), and rank 3 late.
allreduce = lambda r: (4000, 4000)
nbcoll("nbcoll-hidden", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 5000)
nbcoll("nbcoll-exposed", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 2000)
nbcoll("nbcoll-late", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 2000, late=3)
# rank 3 posts its MPI_Iallreduce 10 ms late: tests/coll_path.sh (issue #44) wants its 10 ms on
# the critical path under every algorithm
nbcoll("nbcoll-late-10ms", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 2000, late=3, late_at=10000000)
# --fix-clocks (tests/clock_fix.sh): rank 3's request read at 8000, after the others' completions
# at 3200: three ends before a member's begin, 4800 ns each
nbcoll("nbcoll-skewed", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 2000, late=3, late_at=8000)
# and an MPI_Ibcast whose root's request is read at 8000, after the others completed at 4200: the
# root waits for nobody, the others for the root
nbcoll("nbcoll-ibcast-skewed", CollectiveOp.BCAST, 0, lambda r: (4000, 0) if r == 0 else (0, 1000), 3000,
       call_name="MPI_Ibcast", late=0, late_at=8000)
# MPI_Ibcast of 1000 B from rank 0 (the root records P x 1000 sent), 3000 ns of compute.
nbcoll("nbcoll-ibcast", CollectiveOp.BCAST, 0, lambda r: (4000, 0) if r == 0 else (0, 1000), 3000,
       call_name="MPI_Ibcast")
# Unpaired records: rank 1's request is never completed; rank 1 completes request 8, never requested.
nbcoll("nbcoll-never-completed", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 2000, complete=False)
nbcoll("nbcoll-no-request", CollectiveOp.ALLREDUCE, NOROOT, allreduce, 2000, req_done=8)
