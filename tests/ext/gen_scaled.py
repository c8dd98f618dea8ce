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
"""
import os
import random
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm, RegionRole

OUT, SEED, COUNT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
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
    with otf2.writer.open(path, timer_resolution=1000000000) as trace:
        d = trace.definitions
        node = d.system_tree_node("node")
        groups = [d.location_group("Process %d" % r, location_group_type=LocationGroupType.PROCESS,
                                   system_tree_parent=node) for r in range(P)]
        ranks = [d.location("Master thread", type=LocationType.CPU_THREAD, group=groups[r]) for r in range(P)]
        d.group("MPI ranks", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=ranks)
        wg = d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                     members=list(range(P)))
        world = d.comm("MPI_COMM_WORLD", group=wg)
        regions = {}

        def reg(name, role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI):
            if name not in regions:
                regions[name] = d.region(name, region_role=role, paradigm=paradigm)
            return regions[name]

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


rng = random.Random(SEED)
with open(os.path.join(OUT, "pairs.txt"), "w") as pairs:
    for n in range(COUNT):
        P, steps = program(rng)
        F = rng.choice([2, 3, 7, 16, 64])
        write(os.path.join(OUT, "p%d-base" % n), P, steps, 1)
        write(os.path.join(OUT, "p%d-big" % n), P, steps, F)
        pairs.write("%d %d\n" % (n, F))
