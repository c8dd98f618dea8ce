#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes pairs of random SPMD traces for tests/scale.sh with Debian's python3-otf2: in each pair
the two archives hold the same program with the same times, every message and collective count
of the second F times the first's. Replaying the first with --scale-bytes F must give what the
second gives, whatever the program (a property over random inputs: protocols, collective
algorithms and the network follow the sizes).

usage: gen_scaled.py OUTDIR SEED COUNT
Writes OUTDIR/pN-base and OUTDIR/pN-big for N in 0..COUNT-1 and OUTDIR/pairs.txt, one line per
pair: "N F".
       gen_scaled.py PATH huge|nobar
Writes one of tests/scale.sh's hand-made cases: a 2^40-byte message; a barrier rank 2 never enters.
"""
import os
import random
import sys

import otf2
from otf2.enums import CollectiveOp, Paradigm, RegionRole

from otf2defs import World, archive

OUT = sys.argv[1]
NOROOT = 0xFFFFFFFF


def program(rng):
    """A random program: P ranks and a list of steps, each sized in bytes."""
    P = rng.choice([2, 3, 5, 8, 33])
    steps = []
    for _ in range(rng.randint(3, 8)):
        kind = rng.choice(["ring", "ring", "iring", "allreduce", "bcast", "alltoall", "allgather", "reduce"])
        size = rng.choice([0, 1, 8, 100, 1000, 4000, 4096, 10000, 65536, 70000])
        steps.append((kind, size, rng.randint(1, P - 1), rng.randint(0, P - 1), rng.randint(100, 5000)))
    return P, steps


def write(path, P, steps, F):
    with archive(path) as trace:
        defs = World(trace, P)
        ranks, world, reg = defs.locs, defs.world, defs.reg
        main = reg("main", RegionRole.FUNCTION, Paradigm.USER)
        for r in range(P):
            w = trace.event_writer_from_location(ranks[r])
            t = 0
            w.write(otf2.events.Enter(t, main))
            for i, (kind, size, dist, root, work) in enumerate(steps):
                t += work + 37 * r  # ranks drift apart by a little each step
                m = size * F
                right, left = (r + dist) % P, (r - dist) % P
                if kind == "ring":  # a send to the right, then a receive from the left (eager or not)
                    w.write(otf2.events.Enter(t, reg("MPI_Sendrecv")))
                    w.write(otf2.events.MpiSend(t, right, world, i, m))
                    w.write(otf2.events.MpiRecv(t + 10, left, world, i, m))
                    w.write(otf2.events.Leave(t + 20, reg("MPI_Sendrecv")))
                    t += 20
                elif kind == "iring":
                    sq, rq = 2 * i + 1, 2 * i + 2
                    w.write(otf2.events.Enter(t, reg("MPI_Irecv")))
                    w.write(otf2.events.MpiIrecvRequest(t, rq))
                    w.write(otf2.events.Leave(t + 5, reg("MPI_Irecv")))
                    w.write(otf2.events.Enter(t + 5, reg("MPI_Isend")))
                    w.write(otf2.events.MpiIsend(t + 5, right, world, i, m, sq))
                    w.write(otf2.events.Leave(t + 10, reg("MPI_Isend")))
                    w.write(otf2.events.Enter(t + 10, reg("MPI_Waitall")))
                    w.write(otf2.events.MpiIsendComplete(t + 15, sq))
                    w.write(otf2.events.MpiIrecv(t + 20, left, world, i, m, rq))
                    w.write(otf2.events.Leave(t + 25, reg("MPI_Waitall")))
                    t += 25
                else:
                    op = {"allreduce": CollectiveOp.ALLREDUCE, "bcast": CollectiveOp.BCAST,
                          "alltoall": CollectiveOp.ALLTOALL, "allgather": CollectiveOp.ALLGATHER,
                          "reduce": CollectiveOp.REDUCE}[kind]
                    rooted = kind in ("bcast", "reduce")
                    name = "MPI_" + kind.capitalize()
                    # counts as Score-P records them: sent and received per call
                    sent = recv = m
                    if kind in ("alltoall", "allgather"):
                        sent, recv = (m * P, m * P) if kind == "alltoall" else (m, m * P)
                    elif kind == "bcast":
                        sent, recv = (m * (P - 1), 0) if r == root else (0, m)
                    elif kind == "reduce":
                        sent, recv = (m, m * P) if r == root else (m, 0)
                    w.write(otf2.events.Enter(t, reg(name, RegionRole.COLL_ALL2ALL)))
                    w.write(otf2.events.MpiCollectiveBegin(t))
                    w.write(otf2.events.MpiCollectiveEnd(t + 30, op, world, root if rooted else NOROOT, sent, recv))
                    w.write(otf2.events.Leave(t + 30, reg(name, RegionRole.COLL_ALL2ALL)))
                    t += 30
            w.write(otf2.events.Leave(t + 100, main))


def huge(path):
    """Two ranks, one MPI_Send of 2^40 B: a factor of 8 takes it past the 4 TiB a count may hold."""
    with archive(path) as trace:
        defs = World(trace, 2)
        w = trace.event_writer_from_location(defs.locs[0])
        w.write(otf2.events.Enter(0, defs.reg("MPI_Send")))
        w.write(otf2.events.MpiSend(0, 1, defs.world, 0, 1 << 40))
        w.write(otf2.events.Leave(10, defs.reg("MPI_Send")))
        w = trace.event_writer_from_location(defs.locs[1])
        w.write(otf2.events.Enter(0, defs.reg("MPI_Recv")))
        w.write(otf2.events.MpiRecv(10, 0, defs.world, 0, 1 << 40))
        w.write(otf2.events.Leave(10, defs.reg("MPI_Recv")))


def nobar(path):
    """Three ranks; ranks 0 and 1 call MPI_Barrier, rank 2 never does."""
    with archive(path) as trace:
        defs = World(trace, 3)
        bar, main = defs.reg("MPI_Barrier", RegionRole.BARRIER), defs.reg("main", RegionRole.FUNCTION, Paradigm.USER)
        for r in range(3):
            w = trace.event_writer_from_location(defs.locs[r])
            w.write(otf2.events.Enter(0, main))
            if r < 2:
                w.write(otf2.events.Enter(10, bar))
                w.write(otf2.events.MpiCollectiveBegin(10))
                w.write(otf2.events.MpiCollectiveEnd(20, CollectiveOp.BARRIER, defs.world, NOROOT, 0, 0))
                w.write(otf2.events.Leave(20, bar))
            w.write(otf2.events.Leave(30, main))


if sys.argv[2] in ("huge", "nobar"):
    {"huge": huge, "nobar": nobar}[sys.argv[2]](OUT)
    sys.exit(0)
SEED, COUNT = int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(SEED)
with open(os.path.join(OUT, "pairs.txt"), "w") as pairs:
    for n in range(COUNT):
        P, steps = program(rng)
        F = rng.choice([2, 3, 7, 16, 64])
        write(os.path.join(OUT, "p%d-base" % n), P, steps, 1)
        write(os.path.join(OUT, "p%d-big" % n), P, steps, F)
        pairs.write("%d %d\n" % (n, F))
