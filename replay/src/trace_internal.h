/* SPDX-License-Identifier: MIT */
/* The trace's private layout, shared by the reader and the accessors. */
#ifndef RETIME_TRACE_INTERNAL_H
#define RETIME_TRACE_INTERNAL_H

#include "retime/trace.h"

struct rt__row {
    uint64_t location;        /* OTF2 location id */
    char *name;
    struct rt_event *events;
    uint64_t nevents;
};

struct rt__comm {
    struct rt_comm pub;
    uint32_t *members;
    int is_self;              /* MPI_COMM_SELF style (OTF2 COMM_SELF group): one instance per process */
    uint32_t self_base;       /* is_self: the instance of row r is communicator self_base + r */
};

struct rt_trace {
    char *path;
    struct rt__row *rows;
    uint32_t nrows;
    uint32_t part_first, part_end; /* the rows whose events were read (all but in a part) */
    struct rt_region *regions;
    uint32_t nregions;
    struct rt_callsite *callsites;
    uint32_t ncallsites;
    struct rt__comm *comms;
    uint32_t ncomms;
    uint32_t *self_rows;      /* self_rows[r] = r: the one member of each self instance */
    char **strings;           /* owned copies of all names the tables point into */
    uint32_t nstrings, capstrings;
    struct rt_trace_stats stats;
    uint64_t memory;
};

#endif
