# SPDX-License-Identifier: MIT
"""The definitions the single-threaded MPI traces of tests/ext share (gen_scaled.py, gen_extrap.py):
P processes, each one location (its MPI rank), MPI_COMM_WORLD, and regions made on first use."""
import otf2
from otf2.enums import GroupType, LocationGroupType, LocationType, Paradigm, RegionRole


class World:
    def __init__(self, trace, P):
        d = self.d = trace.definitions
        node = d.system_tree_node("node")
        self.locs = [d.location("Master thread", type=LocationType.CPU_THREAD,
                                group=d.location_group("Process %d" % r, location_group_type=LocationGroupType.PROCESS,
                                                       system_tree_parent=node)) for r in range(P)]
        d.group("MPI ranks", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=self.locs)
        self.world = d.comm("MPI_COMM_WORLD", group=d.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP,
                                                            paradigm=Paradigm.MPI, members=list(range(P))))
        self.regions = {}

    def reg(self, name, role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI):
        """Region NAME (an MPI call unless said otherwise), defined on first use."""
        if name not in self.regions:
            self.regions[name] = self.d.region(name, region_role=role, paradigm=paradigm)
        return self.regions[name]


def archive(path):
    return otf2.writer.open(path, timer_resolution=1000000000)
