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
"""
import os
import sys

import otf2
from otf2.enums import GroupType, LocationGroupType, LocationType, Paradigm, RegionRole

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


def main(argv):
    if len(argv) == 6 and argv[1] == "tree":
        tree(argv[2], int(argv[3]), int(argv[4]), argv[5])
    elif len(argv) == 10 and argv[1] == "probes":
        probes(argv[2], argv[3], int(argv[4]), argv[5], int(argv[6]), int(argv[7]), int(argv[8]), int(argv[9]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
