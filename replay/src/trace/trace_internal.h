/* SPDX-License-Identifier: MIT */
/* The trace's private layout, shared by the reader and the accessors. */
#ifndef RETIME_TRACE_INTERNAL_H
#define RETIME_TRACE_INTERNAL_H

#include "retime/trace.h"

/* Which events of a row store a payload, per 64 events: one bit each, and the number of payloads
 * before the block, so that finding an event's payload is a popcount (16 bytes per 64 events).
 * An event of a payload kind whose bit is clear shares the last payload stored before it: the
 * reader stores a payload only when it differs from the one before (a run of messages of one
 * size on one communicator keeps one). */
struct rt__pblock {
    uint64_t has;
    uint64_t base;
};

struct rt__row {
    uint64_t location;        /* OTF2 location id */
    char *name;
    struct rt_event *events;
    uint64_t nevents;
    struct rt_event_payload *pay; /* the payloads stored, in event order (see rt__pblock) */
    uint64_t npay;
    struct rt__pblock *pblocks;   /* (nevents + 63) / 64 */
    /* Time outside MPI calls that was not the program's computing, as it grows: from time
     * cpu[k].at on, cpu[k].lost ns in all that the rank did not run (from the CPU times of the
     * tracer's retime::cpu_time, docs/cpu-time.md) and cpu[k].tracer ns in all that the tracer
     * took for itself (its BufferFlush records); 0 before cpu[0].at. */
    struct rt__cpu_step { rt_time_ns at, lost, tracer; } *cpu;
    uint64_t ncpu, capcpu;
    uint64_t cpu_readings;        /* events that carried the CPU time (0: none, wall time only) */
    rt_time_ns compute_wall;      /* time outside MPI calls, as measured [ns] */
    rt_time_ns compute_wait;      /* of it, time the rank did not run (from the CPU times) [ns] */
    rt_time_ns compute_tracer;    /* of it, time the tracer took (flushes) [ns] */
    rt_time_ns first_time, last_time; /* its first and last events' times [ns] (0: no events) */
    /* A streamed trace (trace_stream.c) holds events [kept, nevents) of the row, those before
     * given back; the replay may step those before safe (no later record changes them), and more
     * says records are still to be read. A trace read whole: kept 0, safe nevents, more 0. */
    uint64_t kept, safe;
    uint64_t vmcap;               /* streamed: the events the arrays reserve (address space); 0: malloc'ed */
    uint8_t more;
};

/* The kinds whose events carry a payload (struct rt_event_payload). An IRECV has none of its
 * own: its fields are its IRECV_REQUEST's (ref), which the reader fills from it. An NBCOLL_BEGIN
 * has its own (bytes sent), filled from its NBCOLL_END (bytes received). */
#define RT__PAYLOAD_KINDS                                                                                    \
    (1u << RT_EV_SEND | 1u << RT_EV_ISEND | 1u << RT_EV_RECV | 1u << RT_EV_IRECV_REQUEST | 1u << RT_EV_COLL_BEGIN | \
     1u << RT_EV_COLL_END | 1u << RT_EV_JOIN | 1u << RT_EV_NBCOLL_BEGIN | 1u << RT_EV_NBCOLL_END)

/* One instruction where the target has one; otherwise bit arithmetic inline rather than
 * libgcc's __popcountdi2 call (which cost the replay 2 % more instructions). */
static inline unsigned rt__popcount64(uint64_t x)
{
#if defined(__POPCNT__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* A block's bits, read and written whole: a streamed trace's reader sets the bits of new events
 * while the replay reads those of the block's earlier ones (relaxed: plain loads and stores). */
static inline uint64_t rt__pblock_has(const struct rt__pblock *b) { return __atomic_load_n(&b->has, __ATOMIC_RELAXED); }
static inline void rt__pblock_set(struct rt__pblock *b, uint64_t has) { __atomic_store_n(&b->has, has, __ATOMIC_RELAXED); }

/* Where the payload of event i (of a payload kind) is in R->pay: the last one stored at or
 * before it, its own or the one it shares. (2 << 63 is 0 in 64 bits: then the mask is all ones.) */
static inline uint64_t rt__payload_index(const struct rt__row *R, uint64_t i)
{
    const struct rt__pblock *b = &R->pblocks[i >> 6];
    return b->base + rt__popcount64(rt__pblock_has(b) & ((2ull << (i & 63)) - 1)) - 1;
}

/* The payload of event i (< R->nevents) of a row, or NULL when its kind has none. */
static inline struct rt_event_payload *rt__row_payload(const struct rt__row *R, uint64_t i)
{
    return RT__PAYLOAD_KINDS >> R->events[i].kind & 1 ? &R->pay[rt__payload_index(R, i)] : NULL;
}

/* The payload of an event that has one by its kind (the engine's checked traces): no kind test. */
static inline struct rt_event_payload *rt__row_payload_of(const struct rt__row *R, uint64_t i)
{
    return &R->pay[rt__payload_index(R, i)];
}

/* Whether event @p e starts a collective: blocking (COLL_BEGIN) or non-blocking (NBCOLL_BEGIN). */
static inline int rt__coll_start(const struct rt_event *e)
{
    return e->kind == RT_EV_COLL_BEGIN || e->kind == RT_EV_NBCOLL_BEGIN;
}

/* The operation (enum rt_coll_op) of the collective that starts at event @p j of a row's events
 * @p ev, of which @p n are read: a COLL_BEGIN holds it, an NBCOLL_BEGIN's is on its NBCOLL_END
 * (aux), which the reader checked. */
static inline uint32_t rt__coll_op_at(const struct rt_event *ev, uint64_t n, uint64_t j)
{
    const struct rt_event *e = &ev[j];
    if (e->kind != RT_EV_NBCOLL_BEGIN)
        return e->aux;
    return e->aux < n && ev[e->aux].kind == RT_EV_NBCOLL_END ? ev[e->aux].aux : RT_COLL_OTHER;
}

struct rt__comm {
    struct rt_comm pub;
    uint32_t *members;        /* members[comm rank] = row, or RT_NONE for a missing rank: messages translate
                               * through it; pub.members lists the rows present (RT_TRACE_ALLOW_MISSING_RANKS) */
    uint32_t *present;        /* pub.members when some member is missing (owned), else NULL */
    uint32_t nmembers;        /* members' length, the communicator's size as defined (pub.size: those present) */
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
    uint64_t unknown_location, unknown_record; /* the first record of unknown type: location, position */
    uint32_t *missing;        /* the MPI ranks left out (stats.missing_ranks of them), ascending */
    uint64_t memory;
    int cut_short;            /* the archive is an emergency save: the run stopped early (rt_trace_cut_short) */
    struct rt_trace_mpi mpi;  /* the RETIME::* archive properties (owned strings) */
    struct rt__stream *stream; /* a streamed trace's readers (trace_stream.c), or NULL: read whole */
};

/* What the replay of a streamed trace (rt_trace_streamed) may take of a row (trace_stream.c):
 * its events, indexed as in a whole read, those before safe to step, those before avail read
 * (a non-blocking collective's end may lie past safe); its CPU steps; more: the row goes on.
 * moved: some row's arrays moved since the replay's last pull (it takes every row's pointers
 * again, rt__trace_view). */
struct rt__pull {
    const struct rt_event *ev;
    const struct rt__cpu_step *cpu;
    uint64_t safe, avail, ncpu;
    int more, moved;
};
/* trace_stream.c: gives back row @p row's events before @p keep (the replay needs none of them
 * again) and waits until more of its events are safe to step than it took last, or it ends:
 * *@p out. RT_OK, or the read's error (file, rank and event) in @p err. */
int rt__trace_pull(rt_trace *t, uint32_t row, uint64_t keep, struct rt__pull *out, rt_error *err);
/* trace_stream.c: the replay will look ahead from inside steps, holding pointers into rows (a
 * network's collectives): with the reader thread no row's arrays move from now on (a row that
 * outgrows its reservation is refused). Before the first pull. */
void rt__trace_stream_fixed(rt_trace *t);
/* trace_stream.c: the row's arrays and counts as the replay took them last (after a move). */
void rt__trace_view(rt_trace *t, uint32_t row, struct rt__pull *out);
/* trace_stream.c: once every row of a streamed trace is read to its end, the trace's counts and
 * checks as a whole read has them (rt_trace_stats). RT_OK or the error in @p err. */
int rt__trace_stream_end(rt_trace *t, rt_error *err);

#endif
