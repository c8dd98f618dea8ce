#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the synthetic OTF2 traces of scripts/network-repro.sh (docs/network-repro.md) with
Debian's python3-otf2:

  tree OUT P SIZE reduce|bcast
      a binomial tree of P ranks as point-to-point messages of SIZE bytes (002_*.txt, Figure 6):
      ceil(log2 P) rounds; reduce: in round k (stride s = 2^k) rank r with r mod 2s = s sends to
      r - s after it has received from its own children r + s/2, r + s/4, ..., r + 1; bcast: in
      round k rank r < s sends to r + s, which received from r - s... in the round before. Blocking
      MPI_Recv and MPI_Send, one message per pair per round; the measured times are a round every
      100 us (replay it with --compute-scale 0: only the messages count).

  probes OUT MAPFILE NODES SRC:DST[,SRC:DST...] J PERIOD SIZE START
      latency probes: for each route SRC -> DST (node numbers) J probes; probe j of a route is
      one rank on node SRC whose only call is an MPI_Send of SIZE bytes at START + j*PERIOD (ns)
      and one rank on node DST whose only call is the matching MPI_Recv, entered at 0. Replayed
      with compute kept (--compute-scale 1), the sender's MPI_Send starts exactly at its
      measured time (nothing comes before it on its rank) and the receiver's MPI_Recv ends when
      the message arrives, which is also its rank's predicted end: latency = end(receiver) -
      send time. Every rank ends with its call, so that the trace (and the background traffic
      replayed with it) lasts no longer than the probes need. Writes MAPFILE (`rank node` lines, for --mapping file:MAPFILE with
      --ranks-per-node J) and prints one line per probe: `receiver_rank send_time_ns route`.

  coll OUT P OPS SIZES REPS BYTES [WARMUP]
      the calls of instrument/collbench (002's collective benchmark, §2) on P ranks, as its
      traced run records them, without running MPI: OPS a list of allreduce, reduce, bcast;
      SIZES a list of communicator sizes K or ranges A-B in [2, P]; REPS repetitions of BYTES
      bytes after WARMUP warm-up calls (default 2, collbench's --warmup). Every rank first calls MPI_Comm_split once per
      size (communicator "MPI_Comm_split K": a COMM_GROUP of the world ranks 0..K-1, parent
      MPI_COMM_WORLD). Then per operation and size the first K ranks do, per call, an
      MPI_Barrier on their communicator and the operation (root 0), each repetition's operation
      inside the user region <op>_k<K>, then one MPI_Reduce of REPS doubles (collbench's
      timings); every rank ends the (op, K) in an MPI_Barrier on MPI_COMM_WORLD. Last, an 8-byte
      MPI_Reduce on MPI_COMM_WORLD, MPI_Comm_free and MPI_Finalize (MPI_Init comes first). Sent/received bytes follow Score-P and
      instrument/src/wrap_coll.c: barrier 0/0; allreduce K*b/K*b; reduce b/0, the root b/K*b;
      bcast 0/b, the root K*b/b. The measured times are 5 us per call (replay it with
      --compute-scale 0: only the collectives' messages count).
"""
import os
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm, RegionRole

CHUNK = 256 * 1024  # OTF2's smallest event chunk: the memory each rank's writer holds until the end


def archive(path):
    return otf2.writer.open(path, timer_resolution=1000000000, chunk_size_events=CHUNK, chunk_size_definitions=CHUNK)


class Trace:
    """P ranks on MPI_COMM_WORLD. (Every writer stays open until the archive closes: python3-otf2
    closes them all then, and one closed early loses its events; 10^4 ranks hold 2.5 GiB.)"""

    def __init__(self, trace, P):
        d = trace.definitions
        self.trace = trace
        node = d.system_tree_node("node")
        groups = [d.location_group("Process %d" % r, location_group_type=LocationGroupType.PROCESS,
                                   system_tree_parent=node) for r in range(P)]
        self.ranks = [d.location("Master thread", type=LocationType.CPU_THREAD, group=groups[r])
                      for r in range(P)]
        d.group("MPI ranks", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=self.ranks)
        world_group = d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                              members=list(range(P)))
        self.world = d.comm("MPI_COMM_WORLD", group=world_group)
        self.main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        self.send = d.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        self.recv = d.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)

    def rank(self, r, calls, end):
        """Rank r: main from 0 to end around calls [(t0, t1, 'send'|'recv', peer, size)]."""
        w = self.trace.event_writer_from_location(self.ranks[r])
        w.write(otf2.events.Enter(0, self.main))
        for t0, t1, kind, peer, size in calls:
            if kind == "send":
                w.write(otf2.events.Enter(t0, self.send))
                w.write(otf2.events.MpiSend(t0, peer, self.world, 1, size))
                w.write(otf2.events.Leave(t1, self.send))
            else:
                w.write(otf2.events.Enter(t0, self.recv))
                w.write(otf2.events.MpiRecv(t1, peer, self.world, 1, size))
                w.write(otf2.events.Leave(t1, self.recv))
        w.write(otf2.events.Leave(end, self.main))


def tree(out, P, size, kind):
    rounds = max(1, (P - 1).bit_length())
    step = 100000  # ns per round in the measured times
    with archive(out) as trace:
        t = Trace(trace, P)
        for r in range(P):
            calls = []
            for k in range(rounds):
                s = 1 << k
                t0 = 1000 + k * step
                if kind == "reduce":
                    if r % (2 * s) == s:
                        calls.append((t0, t0 + step // 2, "send", r - s, size))
                    elif r % (2 * s) == 0 and r + s < P:
                        calls.append((t0, t0 + step // 2, "recv", r + s, size))
                else:
                    if r < s and r + s < P:
                        calls.append((t0, t0 + step // 2, "send", r + s, size))
                    elif s <= r < 2 * s:
                        calls.append((t0, t0 + step // 2, "recv", r - s, size))
            t.rank(r, calls, 1000 + rounds * step)


def probes(out, mapfile, nodes, routes, J, period, size, start):
    routes = [tuple(int(x) for x in rt.split(":")) for rt in routes.split(",")]
    P = 2 * J * len(routes)
    where, lines = [], []
    with archive(out) as trace:
        t = Trace(trace, P)
        for i, (a, b) in enumerate(routes):
            if not (0 <= a < nodes and 0 <= b < nodes and a != b):
                sys.exit("network_traces.py: bad route %d:%d" % (a, b))
            for j in range(J):
                snd, rcv = 2 * (i * J + j), 2 * (i * J + j) + 1
                ts = start + j * period
                t.rank(snd, [(ts, ts + 100, "send", rcv, size)], ts + 100)
                t.rank(rcv, [(0, ts + 1000, "recv", snd, size)], ts + 1000)
                where += [(snd, a), (rcv, b)]
                lines.append("%d %d %d:%d" % (rcv, ts, a, b))
    with open(mapfile, "w") as f:
        f.write("# rank node: the probes of network_traces.py\n")
        for r, n in where:
            f.write("%d %d\n" % (r, n))
    print("\n".join(lines))


OPS = {"allreduce": (CollectiveOp.ALLREDUCE, "MPI_Allreduce"), "reduce": (CollectiveOp.REDUCE, "MPI_Reduce"),
       "bcast": (CollectiveOp.BCAST, "MPI_Bcast")}
NO_ROOT = 0xFFFFFFFF  # OTF2_UNDEFINED_UINT32


def coll_bytes(op, k, me, b):
    """(sent, received) of comm rank me of k in op on b bytes, as Score-P and our tracer count."""
    if op == "allreduce":
        return k * b, k * b
    if op == "reduce":
        return (b, k * b) if me == 0 else (b, 0)
    if op == "bcast":
        return (k * b, b) if me == 0 else (0, b)
    return 0, 0  # barrier


def int_list(spec, lo, hi):
    """'2-16' or '4,8,16' (or both, '2,4-6') -> [ints], each in [lo, hi] and once."""
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        if not (a.isdigit() and (not b or b.isdigit())):
            sys.exit("network_traces.py: bad list '%s'" % spec)
        out += range(int(a), int(b or a) + 1)
    if not out or any(not lo <= x <= hi for x in out) or len(set(out)) != len(out):
        sys.exit("network_traces.py: bad list '%s' (each in [%d, %d], once)" % (spec, lo, hi))
    return out


def coll(out, P, ops, sizes, reps, nbytes, warmup=2):
    ops = ops.split(",")
    if any(op not in OPS for op in ops) or len(set(ops)) != len(ops):
        sys.exit("network_traces.py: bad OPS '%s' (allreduce, reduce, bcast, each once)" % ",".join(ops))
    sizes = int_list(sizes, 2, P)
    if reps < 1 or nbytes < 0 or warmup < 0:
        sys.exit("network_traces.py: coll needs REPS >= 1, BYTES >= 0 and WARMUP >= 0")
    call, gap = 5000, 100  # ns: one call's measured length, and the time between two calls
    with archive(out) as trace:
        t = Trace(trace, P)
        d = trace.definitions
        region = {name: d.region(name, region_role=role, paradigm=Paradigm.MPI)
                  for name, role in (("MPI_Barrier", RegionRole.BARRIER), ("MPI_Allreduce", RegionRole.COLL_ALL2ALL),
                                     ("MPI_Reduce", RegionRole.COLL_ALL2ONE), ("MPI_Bcast", RegionRole.COLL_ONE2ALL),
                                     ("MPI_Init", RegionRole.FUNCTION), ("MPI_Finalize", RegionRole.FUNCTION),
                                     ("MPI_Comm_split", RegionRole.FUNCTION), ("MPI_Comm_free", RegionRole.FUNCTION))}
        comm = {}
        for k in sizes:
            name = "MPI_Comm_split %d" % k
            group = d.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=list(range(k)))
            comm[k] = d.comm(name, group=group, parent=t.world)
        user = {(op, k): d.region("%s_k%d" % (op, k), region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
                for op in ops for k in sizes}
        w = [trace.event_writer_from_location(loc) for loc in t.ranks]

        def call_on(r, t0, op, cm, k, b, root=NO_ROOT, t1=None):
            """Rank r's collective op (or "barrier") on communicator cm of k ranks from t0 to t1
            (default t0 + call); returns the time of its next call."""
            otf2op, rname = OPS.get(op, (CollectiveOp.BARRIER, "MPI_Barrier"))
            t1 = t0 + call if t1 is None else t1
            sent, recvd = coll_bytes(op, k, r, b)
            w[r].write(otf2.events.Enter(t0, region[rname]))
            w[r].write(otf2.events.MpiCollectiveBegin(t0))
            w[r].write(otf2.events.MpiCollectiveEnd(t1, otf2op, cm, root, sent, recvd))
            w[r].write(otf2.events.Leave(t1, region[rname]))
            return t1 + gap

        def func(r, t0, rname):
            w[r].write(otf2.events.Enter(t0, region[rname]))
            w[r].write(otf2.events.Leave(t0 + gap, region[rname]))

        now = 1000
        for r in range(P):
            func(r, now - 2 * gap, "MPI_Init")
        for i in range(len(sizes)):
            for r in range(P):
                func(r, now + 2 * i * gap, "MPI_Comm_split")
        now += 2 * len(sizes) * gap
        for op in ops:
            for k in sizes:
                # the first k ranks: warm-up calls and repetitions, then collbench's reduce of
                # its timings; all of them at the same times
                for r in range(k):
                    c = now
                    for rep in range(warmup + reps):
                        c = call_on(r, c, "barrier", comm[k], k, 0)
                        if rep >= warmup:
                            w[r].write(otf2.events.Enter(c, user[(op, k)]))
                        c = call_on(r, c, op, comm[k], k, nbytes, NO_ROOT if op == "allreduce" else 0)
                        if rep >= warmup:
                            w[r].write(otf2.events.Leave(c - gap, user[(op, k)]))
                    c = call_on(r, c, "reduce", comm[k], k, 8 * reps, 0)
                # everyone ends it in MPI_Barrier on MPI_COMM_WORLD, which the others entered
                # at its start
                for r in range(P):
                    call_on(r, now if r >= k else c, "barrier", t.world, P, 0, t1=c + call)
                now = c + call + gap
        for r in range(P):
            c = call_on(r, now, "reduce", t.world, P, 8, 0)
            for i, k in enumerate(sizes):
                if r < k:
                    func(r, c + 2 * i * gap, "MPI_Comm_free")
            func(r, c + 2 * len(sizes) * gap, "MPI_Finalize")


def main(argv):
    if len(argv) == 6 and argv[1] == "tree":
        tree(argv[2], int(argv[3]), int(argv[4]), argv[5])
    elif len(argv) in (8, 9) and argv[1] == "coll":
        coll(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]), int(argv[7]), int(argv[8]) if len(argv) == 9 else 2)
    elif len(argv) == 10 and argv[1] == "probes":
        probes(argv[2], argv[3], int(argv[4]), argv[5], int(argv[6]), int(argv[7]), int(argv[8]), int(argv[9]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
