/* SPDX-License-Identifier: MIT */
/* Internal interface of the PMPI tracer: global state, region table and the hot-path helpers. */
#ifndef RT_TRACE_INTERNAL_H
#define RT_TRACE_INTERNAL_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define RT_EXPORT __attribute__((visibility("default")))
#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#include "evlog.h"

/* Every wrapped MPI function: X(name, OTF2 region role). The order fixes the region ids 0..N-1,
 * which are the same on every rank, so MPI events need no unification. */
#define RT_MPI_REGIONS(X)                                                                         \
    X(Init, FUNCTION) X(Init_thread, FUNCTION) X(Finalize, FUNCTION) X(Abort, FUNCTION)           \
    X(Send, POINT2POINT) X(Ssend, POINT2POINT) X(Bsend, POINT2POINT) X(Rsend, POINT2POINT)        \
    X(Recv, POINT2POINT) X(Isend, POINT2POINT) X(Issend, POINT2POINT) X(Ibsend, POINT2POINT)      \
    X(Irsend, POINT2POINT) X(Irecv, POINT2POINT) X(Wait, POINT2POINT) X(Waitall, POINT2POINT)     \
    X(Waitany, POINT2POINT) X(Waitsome, POINT2POINT) X(Test, POINT2POINT)                         \
    X(Testall, POINT2POINT) X(Testany, POINT2POINT) X(Testsome, POINT2POINT)                      \
    X(Sendrecv, POINT2POINT) X(Sendrecv_replace, POINT2POINT) X(Probe, POINT2POINT)               \
    X(Iprobe, POINT2POINT) X(Request_free, POINT2POINT) X(Cancel, POINT2POINT)                    \
    X(Barrier, BARRIER) X(Bcast, COLL_ONE2ALL) X(Reduce, COLL_ALL2ONE) X(Allreduce, COLL_ALL2ALL) \
    X(Gather, COLL_ALL2ONE) X(Scatter, COLL_ONE2ALL) X(Allgather, COLL_ALL2ALL)                   \
    X(Alltoall, COLL_ALL2ALL) X(Comm_dup, FUNCTION) X(Comm_split, FUNCTION)                       \
    X(Comm_split_type, FUNCTION) X(Comm_create, FUNCTION) X(Cart_create, FUNCTION)                \
    X(Comm_free, FUNCTION)                                                                        \
    X(Iallreduce, COLL_ALL2ALL) X(Ibcast, COLL_ONE2ALL) X(Ibarrier, BARRIER)                      \
    X(Ireduce, COLL_ALL2ONE) X(Igather, COLL_ALL2ONE) X(Iscatter, COLL_ONE2ALL)                   \
    X(Iallgather, COLL_ALL2ALL) X(Ialltoall, COLL_ALL2ALL)                                        \
    X(Gatherv, COLL_ALL2ONE) X(Scatterv, COLL_ONE2ALL) X(Allgatherv, COLL_ALL2ALL)                \
    X(Alltoallv, COLL_ALL2ALL) X(Alltoallw, COLL_ALL2ALL) X(Reduce_scatter, COLL_ALL2ALL)         \
    X(Reduce_scatter_block, COLL_ALL2ALL) X(Scan, COLL_OTHER) X(Exscan, COLL_OTHER)               \
    X(Igatherv, COLL_ALL2ONE) X(Iscatterv, COLL_ONE2ALL) X(Iallgatherv, COLL_ALL2ALL)             \
    X(Ialltoallv, COLL_ALL2ALL) X(Ialltoallw, COLL_ALL2ALL) X(Ireduce_scatter, COLL_ALL2ALL)      \
    X(Ireduce_scatter_block, COLL_ALL2ALL) X(Iscan, COLL_OTHER) X(Iexscan, COLL_OTHER)

enum rt__region {
#define RT_X(name, role) RT_R_##name,
    RT_MPI_REGIONS(RT_X)
#undef RT_X
    RT_R_COUNT
};

/* Events carry rank-local ids, as in Score-P traces: MPI regions 0..RT_R_COUNT-1 (the same on
 * every rank), user regions RT_R_COUNT + their index on this rank, call sites their index in this
 * rank's call-site cache, communicators their index in this rank's comm list. At finalize the
 * definitions of all ranks are merged into dense global ids, and each location's local
 * definition file gets OTF2 mapping tables (local -> global) that readers apply to its events. */
#define RT_MAX_USER_REGIONS 256u
#define RT_MAX_CALLSITES 4096u
#define RT_MAX_REGION_DEPTH 256

/* Local comm ids 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF on every rank. A created comm is
 * also known by a global key, agreed by its members at creation: 2 + k * P + w, where w is the
 * world rank of its rank 0 and k counts the comms that rank named before. */
#define RT_COMM_WORLD_ID 0u
#define RT_COMM_SELF_ID 1u
#define RT_COMM_UNKNOWN UINT32_MAX

struct rt__clock_offset {
    uint64_t time;
    int64_t offset;
    double stddev;
};

/* One communicator this rank created as its rank 0, to be defined globally at finalize. */
struct rt__comm_def {
    uint32_t key;
    uint32_t parent_key;
    char name[32];
    uint32_t size;
    uint32_t *world_ranks;
};

struct rt__state {
    volatile int active;      /* Events are recorded. */
    int opened;               /* This rank's archive was opened (finalize protocol runs). */
    /* 1: recording an event (evlog.h) or draining the log; a SIGTERM/SIGINT is held until it
     * is done (rt__out).
     * 2: finalize or the emergency path is running; a signal is passed on at once. */
    volatile sig_atomic_t in_tracer;
    volatile sig_atomic_t pending_sig; /* Signal held while in_tracer was 1. */
    int finished;             /* Recording ended: events closed by finalize or the emergency path. */
    int finalized;            /* The MPI_Finalize protocol ran (or is running). */
    int rank, size;
    MPI_Comm comm;            /* Private duplicate of MPI_COMM_WORLD for the tracer's traffic. */
    MPI_Comm node;            /* The ranks of this rank's node, split from comm. */
    OTF2_Archive *archive;
    OTF2_EvtWriter *evt;
    OTF2_AttributeList *attrs;
    uint64_t last_ts;         /* Timestamps are clamped so they never decrease. */
    uint64_t first_ts;
    uint64_t realtime_ns;     /* CLOCK_REALTIME at init, for ClockProperties. */
    uint64_t next_request_id;
    struct rt__clock_offset offsets[2];
    int n_offsets;
    int cur_mpi_region;       /* MPI region currently entered, -1 if none (for emergency Leave). */
    uint32_t last_callsite[RT_R_COUNT]; /* Each MPI region's call site at its last Enter (core.c), */
    void *last_return[RT_R_COUNT];      /* ... and the return address it was found for. */
    uint32_t region_stack[RT_MAX_REGION_DEPTH];
    int region_depth;
    char *user_names[RT_MAX_USER_REGIONS];
    uint32_t n_user_names;
    struct rt__comm_def *comm_defs;
    uint32_t n_comm_defs, cap_comm_defs;
    uint32_t comm_counter;    /* Comms this rank created as their rank 0. */
    uint32_t *comm_keys;      /* Local comm id -> global key. */
    uint32_t n_comm_keys, cap_comm_keys;
    uint64_t cpu_every;       /* Thread CPU time is read at an event this long after the last reading [ns]. */
    uint64_t cpu_last;        /* The event time of the last reading (see clock.c). */
    int cpu_on;               /* CPU times are recorded (RETIME_TRACE_CPU). */
    int callsite_mode;        /* 0 off, 1 return address, 2 libunwind with extra skip. */
    int callsite_skip;
    char dir[4096];
};

RT_HIDDEN extern struct rt__state rt__g;

/* --- core.c ------------------------------------------------------------------------------- */
RT_HIDDEN void rt__init(uint64_t t_enter, int region, void *ret);
RT_HIDDEN void rt__finalize(uint64_t t_enter);
/** Save this rank's trace when the run ends abnormally; see core.c. */
RT_HIDDEN void rt__emergency(const char *why, int wait_for_peers);
RT_HIDDEN void rt__fail(const char *what, OTF2_ErrorCode err);
/** One warning line "retime-trace: ..." on stderr (a single write(2)). */
RT_HIDDEN void rt__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Handles a SIGTERM/SIGINT that arrived inside an OTF2 call; see core.c. */
RT_HIDDEN void rt__signal_held(void);

/** Ends a section entered with `rt__g.in_tracer = 1`; acts on a signal that came meanwhile. */
static inline void rt__out(void)
{
    rt__g.in_tracer = 0;
    if (RT_UNLIKELY(rt__g.pending_sig))
        rt__signal_held();
}

/* --- event_clock.c ------------------------------------------------------------------------ */
/** The time-stamp counter's conversion to ns, when events are stamped with it (event_clock.c). */
struct rt__event_clock {
    int on;
    uint64_t base_tsc, base_ns, mult; /* t = base_ns + ((tsc - base_tsc) * mult) >> 32 */
};
RT_HIDDEN extern struct rt__event_clock rt__evclock;

/** Before PMPI_Init: the first calibration sample; returns rt__clock(). */
RT_HIDDEN uint64_t rt__event_clock_start(void);
/** Collective over @p node (the ranks of one node): its first rank calibrates the counter and
 * gives the node's ranks its parameters. Returns @p t_enter (MPI_Init's Enter) in the new clock. */
RT_HIDDEN uint64_t rt__event_clock_init(MPI_Comm node, uint64_t t_enter);
/** 0 with CLOCK_MONOTONIC, else a key of the parameters (equal on ranks that read one clock). */
RT_HIDDEN uint64_t rt__event_clock_key(void);
/** Collective at MPI_Finalize: how far the nodes' converted clocks ran (rank 0 keeps the most). */
RT_HIDDEN void rt__event_clock_finish(MPI_Comm node);
/** The archive property RETIME::CLOCK (rank 0 at MPI_Finalize, any rank in an emergency). */
RT_HIDDEN void rt__event_clock_write(OTF2_Archive *a);

/** A counter reading in the event clock's ns. */
static inline uint64_t rt__tsc_ns(uint64_t tsc)
{
    int64_t d = (int64_t)(tsc - rt__evclock.base_tsc);
    /* A CPU whose counter reads a few cycles behind the base's never goes back before it. */
    uint64_t ticks = d > 0 ? (uint64_t)d : 0;
    return rt__evclock.base_ns + (uint64_t)(((unsigned __int128)ticks * rt__evclock.mult) >> 32);
}

/** The event clock in ns, without clamping: the converted time-stamp counter where the kernel
 * trusts it, CLOCK_MONOTONIC otherwise (and before MPI_Init's calibration). */
static inline uint64_t rt__clock(void)
{
#if defined(__x86_64__)
    if (RT_LIKELY(rt__evclock.on))
        return rt__tsc_ns(__builtin_ia32_rdtsc());
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** The event timestamp: monotonic, never below the previous one on this location. */
static inline uint64_t rt__now(void)
{
    uint64_t t = rt__clock();
    if (RT_UNLIKELY(t < rt__g.last_ts))
        t = rt__g.last_ts;
    rt__g.last_ts = t;
    return t;
}

/* --- clock.c ------------------------------------------------------------------------------ */
/** This rank's clock offset to rank 0 now (collective over rt__g.comm; see clock.c). @p final:
 * the measurement at MPI_Finalize, which may repeat a batch taken while the machine was busy. */
RT_HIDDEN void rt__clock_sync(struct rt__clock_offset *out, int final);

/** Whether the event at @p t is due for a thread CPU time reading (clock.c explains when). */
static inline int rt__cpu_due(uint64_t t)
{
    return rt__g.cpu_on && t - rt__g.cpu_last >= rt__g.cpu_every;
}
/** This rank's thread CPU time in *cpu, for an event at @p t that is rt__cpu_due; 1 if read. */
RT_HIDDEN int rt__cpu_read(uint64_t t, uint64_t *cpu);

/** Attribute ids of the tracer's global definitions (defs.c). */
#define RT_ATTR_CALLSITE 0u
#define RT_ATTR_CPU_TIME 1u
#define RT_ATTR_IN_PLACE 2u

/* --- mpi_info.c --------------------------------------------------------------------------- */
/** Collective at MPI_Init (@p node: this rank's node's ranks): whether the ranks share one node;
 * on rank 0, the library's version and eager-limit control variables (MPI_T). */
RT_HIDDEN void rt__mpi_info_read(MPI_Comm node);
/** Rank 0, before the anchor is written: them as the archive's RETIME::* properties. */
RT_HIDDEN void rt__mpi_info_write(OTF2_Archive *a);

/* --- callsite.c --------------------------------------------------------------------------- */
/** Local calling-context id for return address @p ret (or OTF2_UNDEFINED_CALLING_CONTEXT). */
RT_HIDDEN uint32_t rt__callsite_id(void *ret);
RT_HIDDEN void rt__callsite_init(void);
/** Resolved call sites of this rank: arrays of size *n, owned by callsite.c. */
struct rt__callsite_info {
    uint32_t index;
    char func[256];
    char file[512];
    uint32_t line;
    uint32_t func_line;
};
RT_HIDDEN int rt__callsite_resolve(struct rt__callsite_info **out, uint32_t *n);

/* --- tables.c ----------------------------------------------------------------------------- */
enum rt__req_kind { RT_REQ_SEND = 1, RT_REQ_RECV = 2, RT_REQ_COLL = 3 };
struct rt__request {
    MPI_Request handle;
    const MPI_Request *slot; /* The caller's variable that received the handle (see tables.c). */
    MPI_Comm comm_handle; /* Kept to translate the source when the comm is unknown. */
    uint64_t id;
    uint32_t comm;
    int kind;
    /* RT_REQ_COLL: what its NonBlockingCollectiveComplete writes (the counts as Score-P gives them) */
    uint32_t root; /* the root's rank in comm, or OTF2_UNDEFINED_UINT32 */
    int op;        /* OTF2_CollectiveOp */
    uint64_t sent, received;
    int in_place; /* the call was MPI_IN_PLACE on this rank (retime::in_place on its completion) */
};
RT_HIDDEN int rt__req_insert(MPI_Request handle, const MPI_Request *slot, MPI_Comm comm_handle,
                             uint64_t id, int kind, uint32_t comm);
/** Inserts a whole entry (a non-blocking collective's: rt__req_insert leaves its fields 0). */
RT_HIDDEN int rt__req_insert_entry(const struct rt__request *q);
/** Find and remove the entry of @p handle held in the caller's variable @p slot (else the oldest
 * entry of @p handle); returns 0 and fills @p out if found. */
RT_HIDDEN int rt__req_take(MPI_Request handle, const MPI_Request *slot, struct rt__request *out);
RT_HIDDEN int rt__req_find(MPI_Request handle, const MPI_Request *slot, struct rt__request *out);
RT_HIDDEN size_t rt__req_count(void);

RT_HIDDEN void rt__comm_insert(MPI_Comm comm, uint32_t id);
RT_HIDDEN void rt__comm_remove(MPI_Comm comm);
RT_HIDDEN uint32_t rt__comm_lookup_slow(MPI_Comm comm);

static inline uint32_t rt__comm_id(MPI_Comm comm)
{
    if (RT_LIKELY(comm == MPI_COMM_WORLD))
        return RT_COMM_WORLD_ID;
    if (comm == MPI_COMM_SELF)
        return RT_COMM_SELF_ID;
    return rt__comm_lookup_slow(comm);
}

/** Register a communicator just created by a collective call (records its definition). */
RT_HIDDEN void rt__comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how);

/* --- defs.c ------------------------------------------------------------------------------- */
struct rt__buf {
    unsigned char *data;
    size_t len, cap;
    int oom;
};
RT_HIDDEN void rt__buf_free(struct rt__buf *b);
/** Serialize this rank's definitions (status @p ok, @p nevents) into @p b. */
RT_HIDDEN int rt__defs_pack(struct rt__buf *b, int ok, uint64_t nevents, uint64_t last_ts);
/**
 * Merge the packed per-rank blobs (blobs[r] of length lens[r]; NULL when rank r left none) into
 * archive @p a: the local definition files of all intact ranks (mapping tables and clock
 * offsets, via OpenDefFiles/CloseDefFiles) and the global definitions. Returns the number of
 * locations defined, or -1 when an OTF2 call failed.
 */
RT_HIDDEN int rt__defs_write(OTF2_Archive *a, int world_size, const unsigned char *const *blobs,
                             const size_t *lens);

/* --- event helpers (core.c) --------------------------------------------------------------- */
RT_HIDDEN void rt__enter(int region, uint64_t t, void *ret);
RT_HIDDEN void rt__leave(int region, uint64_t t);
RT_HIDDEN void rt__check(OTF2_ErrorCode err, const char *what);
/** This rank's part of the archive is intact: no write failed (core.c). */
RT_HIDDEN extern int rt__ok;
/** While the event log drains: 1, and *t the time of the record being encoded (evlog.c). */
RT_HIDDEN int rt__evlog_time(uint64_t *t);
/** Peer rank @p peer of @p comm as written in events: within the comm when the comm is known,
 * else translated to MPI_COMM_WORLD (and *id becomes the world comm). */
RT_HIDDEN uint32_t rt__peer(MPI_Comm comm, int peer, uint32_t *id);

static inline uint64_t rt__bytes(MPI_Datatype type, int count)
{
    int sz = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &sz);
    return (uint64_t)sz * (uint64_t)count;
}

#endif /* RT_TRACE_INTERNAL_H */
