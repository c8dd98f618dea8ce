/* SPDX-License-Identifier: MIT */
/*
 * The OTF2 reader's private state, shared by its three files and by nothing else:
 *   trace_defs.c    the global definitions: their callbacks and the tables built from them
 *   trace_reader.c  the events: a location's records into a row of compact events, requests
 *                   and messages matched, thread teams
 *   trace_open.c    opening an archive, the parallel read of the locations (each rank with its
 *                   threads' teams), the public API
 * Functions one file offers the others are named rt__rd_ (the reader's). (trace_internal.h is
 * the trace's layout, which the layers above read too.)
 */
#ifndef RETIME_READER_INTERNAL_H
#define RETIME_READER_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

#include <otf2/otf2.h>

#include "map.h"
#include "trace_internal.h"

/* Raw definitions kept until the tables can be resolved (they may arrive in any order). */
struct group_def {
    uint8_t type;          /* OTF2_GroupType */
    uint8_t paradigm;
    uint32_t n;
    uint64_t *members;
};

/* OTF2 references are usually small dense integers: index them by array, fall back to a hash
 * for the rare producer that uses huge ids. The per-event lookups (region of every Enter and
 * Leave, communicator of every message) are hot in the reader. */
#define DENSE_LIMIT (1u << 22)
struct ref_index {
    uint32_t *v;
    uint32_t n;
    struct rt__map sparse;
};

/* The index of @p ref, or RT_NONE: inline, the events' lookups are hot (see above). */
static inline uint32_t ref_get(const struct ref_index *x, uint64_t ref)
{
    if (ref < x->n)
        return x->v[ref];
    if (ref < DENSE_LIMIT)
        return RT_NONE;
    uint64_t *v = rt__map_get(&x->sparse, ref, 0);
    return v ? (uint32_t)*v : RT_NONE;
}

static inline void ref_free(struct ref_index *x)
{
    free(x->v);
    rt__map_free(&x->sparse);
}

/* Open requests of the location being read (its functions are with the event callbacks): request id -> index of the event that started it.
 * Every nonblocking call puts one and its completion takes it out again, so this is a small,
 * busy table: open addressing with 16-byte slots, Fibonacci hashing, linear probing and
 * deletion by shifting back (no tombstones). A slot is free when its value is 0; values are
 * event index + 1, so any request id may be a key. */
struct req_slot {
    uint64_t key, val;
};
struct req_table {
    struct req_slot *slot;
    uint32_t cap, count; /* cap: 0 or a power of two */
    unsigned shift;      /* 64 - log2(cap) */
};

static inline void req_free(struct req_table *q)
{
    free(q->slot);
    *q = (struct req_table){0};
}

struct ctx_def {
    uint64_t self, region, scl;
};

/* A location as defined, kept until ranks, threads and other locations can be told apart. */
struct loc_def {
    uint64_t id, nevents, group;
    const char *name;
    uint8_t type; /* OTF2_LocationType */
};

/* A thread team as one of a rank's other threads saw it: when it began, and when its work was
 * done (its arrival at the team's last barrier, or the team's end). */
struct team_span {
    rt_time_ns begin, arrive;
};

/* A CPU thread of a rank besides the rank's own: read only for its team spans. */
struct thread_loc {
    uint64_t location, nevents;
    uint32_t row;             /* its rank */
    struct team_span *spans;  /* in time order */
    uint64_t nspans, capspans;
    uint64_t rank_location;   /* its rank's location id (until the rows are indexed) */
};

/* The state of a read: the definition tables, shared read-only by the readers of a parallel read
 * once built, and the state of the location one reader is reading. */
struct reader {
    rt_trace *t;
    rt_error *err;
    const char *path;
    unsigned flags;             /* enum rt_trace_open_flag */
    /* Rank locations a first read found without events although their definitions declared
     * some (sorted): classify_locations takes them as empty (trace_open.c, open_trace). */
    const uint64_t *found_empty;
    uint32_t nfound_empty;
    int failed;                 /* set by callbacks that stored an error */
    struct rt__map strings;     /* string ref -> index into t->strings */
    struct ref_index regions;   /* region ref -> region index */
    uint8_t *region_flags;      /* region index -> RT_EVF_MPI if an MPI region, | RT_EVF_SYNC /
                                 * RT_EVF_BUFFERED of its sends */
    struct rt__map rows;        /* location ref -> row */
    struct rt__map groups;      /* group ref -> index into groupv */
    struct group_def *groupv;
    uint32_t ngroups, capgroups;
    struct ref_index comms;     /* comm ref -> comm index */
    uint64_t *comm_group;       /* comm index -> group ref, resolved after the definitions */
    uint64_t *comm_parent;      /* comm index -> parent comm ref (OTF2_UNDEFINED_COMM: none), likewise */
    uint32_t capcomms;
    struct rt__map scls;        /* source code location ref -> (string ref << 32 | line) */
    uint64_t *sclv;             /* source code location refs in definition order */
    uint32_t nscl, capscl;
    struct rt__map ctxs;        /* calling context ref -> index into ctxv */
    struct ctx_def *ctxv;
    uint32_t nctx, capctx;
    struct rt__map callsite_of; /* (kind, ref) -> call-site index; kind 1 = context, 2 = scl */
    uint64_t timer_resolution, global_offset;
    int have_clock;
    uint64_t fast_hi;           /* push's fast path takes ts in [fast_lo, fast_hi]; 0 unless a 1 ns clock */
    int have_callsites;         /* call sites defined: Enter attributes are worth looking at */
    int callsite_repeats;       /* an MPI Enter without one repeats its region's last (RETIME::CALLSITE_REPEATS) */
    struct loc_def *locv;       /* every location defined */
    uint32_t nloc, caploc;
    struct thread_loc *thr;     /* the ranks' other CPU threads, by rank, then location id */
    uint32_t nthr;
    uint32_t *thr_at;           /* rank r's threads are thr[thr_at[r] .. thr_at[r + 1]) */
    char **odd;                 /* entries of the location directory that are not regular files */
    uint32_t nodd;

    OTF2_AttributeRef cpu_attr; /* retime::cpu_time (uint64), if defined */
    int have_cpu_attr;
    OTF2_AttributeRef inplace_attr; /* retime::in_place (uint8), if defined */
    int have_inplace_attr;

    /* state of the location being read */
    struct {                    /* its CPU times (see cpu_reading) */
        uint64_t n;
        rt_time_ns base_at;     /* the first reading: event time [ns] and CPU time [ns] */
        uint64_t base_cpu;
        rt_time_ns placed;      /* the time not running so far, placed in gaps [ns] */
        rt_time_ns lost;        /* of it, in gaps outside MPI calls (compute) [ns] */
        rt_time_ns compute_from; /* where the current stretch outside MPI calls began */
        int in_compute;
        rt_time_ns tracer;      /* the tracer's own time outside MPI calls so far (flushes) [ns] */
        rt_time_ns gap_at;      /* the event that the latest flush followed, and the tracer's */
        rt_time_ns gap_tracer;  /* ... time in the gap after it [ns] (cpu_reading leaves it out) */
    } cpu;
    struct {                    /* its ClockOffset records: the first and the last */
        uint32_t n;
        int64_t first, last;    /* offsets [timer ticks] */
        double first_sd, last_sd;
    } offs;
    uint32_t row;
    struct rt__row *cur;
    uint64_t cap;
    int vm;                     /* cur's arrays are reserved address space (a streamed read, trace_stream.c) */
    struct rt__stream *stream;  /* ... and the streamed trace's reading (NULL: a whole read) */
    uint64_t vm_reserve;        /* ... the events first reserved, when not the declared count (tests) */
    uint64_t nread;             /* OTF2 records read from the location so far */
    int first_noted;            /* cur->first_time is its first event's */
    int mpi_depth;
    uint64_t mpi_enter;         /* the Enter of the outermost MPI call open (mpi_depth > 0) */
    uint8_t call_flags;         /* RT_EVF_SYNC / RT_EVF_BUFFERED of the MPI call being read */
    rt_time_ns last_time;
    uint64_t fast_lo;           /* the last event's ts (see push) */
    struct req_table requests;  /* request id -> event index */
    uint64_t coll_begin;        /* index of the open collective begin, or UINT64_MAX */
    int tail_final;             /* the row's last payload holds its final fields: the next may share it */
    /* thread teams (of the rank's own thread, or of one of its other threads, thr_cur) */
    struct thread_loc *thr_cur; /* the other thread being read, or NULL: the rank's own */
    int team_depth;             /* open team begins and parallel regions */
    int in_barrier;             /* inside a barrier region of the team */
    int work_after_barrier;     /* something was entered since the team's last barrier */
    rt_time_ns team_begin, barrier_enter;
    uint64_t fork_ev;           /* the rank's RT_EV_FORK of the open team */
    uint64_t barrier_leave;     /* the rank's Leave of its last barrier in the team, or UINT64_MAX */
    uint64_t *open;             /* per region: the rank's Enters of it not yet left (NULL until a rank is read) */
    uint64_t nopen;             /* their sum */
    uint32_t *last_callsite;    /* per region: the call site of the rank's last Enter, with callsite_repeats */
    uint64_t unknown_location, unknown_record; /* this reader's first record of unknown type */
    /* what the rank's thread spends inside records not replayed (enum rt_skip_kind): the outermost
     * call (a region of paradigm MPI, of an accelerator API or of role FILE_IO) open, when it was
     * entered and the kinds of the records inside it; measurement switched off since when */
    int call_depth;
    rt_time_ns call_enter;
    uint32_t call_kinds;        /* bit per enum rt_skip_kind */
    rt_time_ns off_since;       /* INT64_MIN: measurement on */
    rt_time_ns skip_ns[RT_SKIP_KINDS]; /* the row's time inside each kind */
    /* what this reader's locations add to the trace's counters (several readers may run at
     * once, see read_events; their counts are summed when all are done) */
    struct rt_trace_stats stats;
    uint64_t memory;
};

/* Region flags besides the event flags they carry (RT_EVF_MPI, RT_EVF_SYNC, RT_EVF_BUFFERED):
 * the thread-team regions, which only the reader looks at. */
#define RF_PARALLEL (1u << 6) /* a parallel region (OpenMP): a thread team */
#define RF_BARRIER (1u << 7)  /* a thread team's barrier (implicit or explicit; not MPI_Barrier) */
#define RF_ACCEL (1u << 3)    /* a call of an accelerator API (CUDA, HIP, OpenCL, OpenACC, HMPP) */
#define RF_FILEIO (1u << 4)   /* a file I/O call (role FILE_IO) */
/* Regions that are calls for the time inside records not replayed (see struct reader.call_depth). */
#define RF_CALL (RT_EVF_MPI | RF_ACCEL | RF_FILEIO)
/* The row of a message's peer or a collective's root that is a missing rank
 * (RT_TRACE_ALLOW_MISSING_RANKS): the message is dropped. */
#define ROW_MISSING (RT_NONE - 1)
/* A request whose message was dropped (a missing peer): its completion is read over. */
#define REQ_DROPPED (UINT64_MAX - 1)

/* Adds the clock offsets seen by one reader of a part of the rows to @p a (the largest of each,
 * of equal ones the lower rank, as a serial read finds them). */
static inline void rt__clock_offsets_merge(struct rt_trace_clock_offsets *a, const struct rt_trace_clock_offsets *b)
{
    if (b->ranks && (!a->ranks || b->max_ns > a->max_ns || (b->max_ns == a->max_ns && b->max_rank < a->max_rank))) {
        a->max_ns = b->max_ns;
        a->max_rank = b->max_rank;
    }
    a->ranks += b->ranks;
    if (b->drift_ranks && (!a->drift_ranks || b->drift_ns > a->drift_ns ||
                           (b->drift_ns == a->drift_ns && b->drift_rank < a->drift_rank))) {
        a->drift_ns = b->drift_ns;
        a->drift_uncertainty_ns = b->drift_uncertainty_ns;
        a->drift_rank = b->drift_rank;
    }
    a->drift_ranks += b->drift_ranks;
}

/* Keeps in @p a the worse of two worst ranks of a kind not replayed (the larger share of its
 * time; of equal ones the lower rank): readers of parts of the rows merge theirs so. */
static inline void rt__skip_worse(struct rt_trace_skip *a, const struct rt_trace_skip *b)
{
    if (b->worst_ns <= 0 || b->span_ns <= 0 || b->worst_rank == RT_NONE)
        return;
    if (a->worst_ns > 0 && a->span_ns > 0 && a->worst_rank != RT_NONE) {
        __int128 x = (__int128)b->worst_ns * a->span_ns, y = (__int128)a->worst_ns * b->span_ns;
        if (x < y || (x == y && b->worst_rank > a->worst_rank))
            return;
    }
    a->worst_ns = b->worst_ns;
    a->span_ns = b->span_ns;
    a->worst_rank = b->worst_rank;
}

/* Stores the first error of a read (later ones are dropped: the first is the cause) as
 * "<path>: <message>" in r->err; returns the code stored, r->failed. */
int rt__rd_fail(struct reader *r, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Refuses archive member DIR/<stem><tail> (the anchor is DIR/<stem>.otf2) when it is there but
 * is not a regular file: called before OTF2 opens it, since OTF2 would wait forever in the open of
 * a FIFO. A member of the location directory (@p tail "/N.evt", "/N.def") is looked up among the
 * entries listed when the archive was opened, without a system call. The error names the member after @p where (e.g. "location 3 (rank 3): ").
 * A missing member is not an error here: OTF2 finds it missing and rt__rd_file_problem says so.
 * Returns RT_OK or the error stored (RT_EIO). */
int rt__rd_member(struct reader *r, const char *tail, const char *where);

/* What is wrong with the archive file DIR/<stem><tail> (the anchor is DIR/<stem>.otf2) that OTF2
 * would not open, written to @p buf (of @p n bytes); returns buf, or a constant string. */
const char *rt__rd_file_problem(const char *anchor, const char *tail, char *buf, size_t n);

/* Whether archive member DIR/<stem><tail> is missing or empty (a location's event file that a rank
 * killed before it wrote left so). */
int rt__rd_member_empty(const char *anchor, const char *tail);

/* trace_defs.c: reads the global definitions (r->path's archive, opened as @p rd). */
int rt__rd_definitions(struct reader *r, OTF2_Reader *rd);
/* trace_defs.c: once the definitions are read, the trace's tables: the rows (ranks, sorted by
 * location id) and their threads, the communicators' members, the call sites. */
int rt__rd_tables(struct reader *r);

/* trace_open.c: frees a reader's definition tables and what else it kept besides the trace. */
void rt__rd_free(struct reader *r);
/* trace_stream.c: makes r->t a streamed trace: takes @p r's definition tables and the archive
 * *@p rdp (set NULL) and opens every row's events, reading none. RT_OK or the error stored in r. */
int rt__stream_start(struct reader *r, OTF2_Reader **rdp);
/* trace_stream.c: a streamed row's arrays are about to move (@p enter 1), or have moved (0): the
 * replay is kept from looking at them in between (a no-op without a reader thread). -1 (enter):
 * they cannot move now, the replay holds pointers into them while it waits (a look-ahead from
 * inside this rank's step). */
int rt__stream_hold(struct reader *r, int enter);
/* trace_stream.c: closes a streamed trace's readers (rt_trace_close). */
void rt__stream_free(rt_trace *t);
/* trace_stream.c: before a streamed trace is read to its end, whether it may hold CPU times (their
 * attribute is defined: the ranks' events will say); -1 once read (the rows say). */
int rt__stream_has_cpu_time(const rt_trace *t);

/* trace_open.c: @p w becomes a reader of its own rows with @p r's definition tables (shared,
 * read-only), its errors in @p err; _free frees what it has of its own. rt__rd_merge adds what
 * reader @p x counted to @p t's stats and memory (readers merged in row order, as a serial read
 * finds the first unknown record). */
void rt__rd_copy(struct reader *w, const struct reader *r, rt_error *err);
void rt__rd_copy_free(struct reader *w);
void rt__rd_merge(rt_trace *t, const struct reader *x);
/* trace_open.c: the counts a whole trace gets once read (the kinds not replayed, its span):
 * RT_OK or the error stored in r. */
int rt__rd_finish(struct reader *r, uint32_t nparts);

/* trace_reader.c: reads row @p row's location (selected in @p rd) into its events. */
int rt__rd_location(struct reader *r, OTF2_Reader *rd, uint32_t row);
/* trace_reader.c: rt__rd_location in three steps, for a streamed read (trace_stream.c): _open
 * prepares row @p row (its arrays, local definitions) and gives its event reader in *@p er;
 * _read reads up to @p n more records (UINT64_MAX: all), *@p end set when the location has no
 * more; _close checks and counts the row once all is read. Each returns RT_OK or the error stored. */
int rt__rd_location_open(struct reader *r, OTF2_Reader *rd, uint32_t row, OTF2_EvtReader **er);
int rt__rd_location_read(struct reader *r, OTF2_Reader *rd, OTF2_EvtReader *er, uint64_t n, int *end);
int rt__rd_location_close(struct reader *r);
/* trace_reader.c: the first event the replay may not step yet, of the row being read: the
 * earliest one a later record may still change (an open request, collective or MPI call) or,
 * in a trace with CPU times, that shares its time with the last one read (a later CPU reading at
 * that time applies to it). It may fall inside an MPI call that is read whole: the replay does
 * not enter a call before it has the call's Leave (engine_stream.c). */
uint64_t rt__rd_location_safe(const struct reader *r);
/* trace_reader.c: the grow and free of a row's arrays (reserved address space when r->vm). */
void rt__rd_row_free(struct rt__row *row);
/* trace_reader.c: reads one of a rank's other threads: its team spans, nothing kept as events. */
int rt__rd_thread(struct reader *r, OTF2_Reader *rd, struct thread_loc *th);

#endif
