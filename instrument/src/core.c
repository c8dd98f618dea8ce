/* SPDX-License-Identifier: MIT */
/* Tracer life cycle: opening the OTF2 archive at MPI_Init, finalizing it collectively at
 * MPI_Finalize, the emergency path for MPI_Abort/signals/exit, clock offsets and user regions. */
#include "trace.h"

#include "retime/region.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

RT_HIDDEN struct rt__state rt__g = {.cur_mpi_region = -1};

/* Defined in otf2_mpi.c, the only file that includes <otf2/OTF2_MPI_Collectives.h>. */
RT_HIDDEN OTF2_ErrorCode rt__otf2_set_mpi_collectives(OTF2_Archive *archive, MPI_Comm comm);

#define RT_TAG_CLOCK 7301
#define RT_CLOCK_PINGPONGS 5

static int rt__warned;
static char rt__otf2_msg[256];

/* Warnings are the only output of the tracer; one line, prefixed, at most once per rank for
 * failures so that a broken disk does not flood the program's stderr. */
static void rt__warn(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "retime-trace: %s\n", line);
}

/* OTF2 prints its errors to stderr by default; keep only the last message for our one warning. */
static OTF2_ErrorCode rt__otf2_error(void *user, const char *file, uint64_t line, const char *func,
                                     OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user, (void)file, (void)line, (void)func;
    vsnprintf(rt__otf2_msg, sizeof rt__otf2_msg, fmt, va);
    return code;
}

static int rt__ok = 1; /* This rank's part of the archive is intact. */

void rt__fail(const char *what, OTF2_ErrorCode err)
{
    rt__g.active = 0;
    rt__ok = 0;
    if (!rt__warned) {
        rt__warned = 1;
        rt__warn("rank %d: %s failed: %s%s%s; tracing stopped, the program continues", rt__g.rank,
                 what, OTF2_Error_GetName(err), rt__otf2_msg[0] ? ": " : "", rt__otf2_msg);
    }
}

void rt__check(OTF2_ErrorCode err, const char *what)
{
    if (RT_UNLIKELY(err != OTF2_SUCCESS))
        rt__fail(what, err);
}

/* --- OTF2 buffer management --------------------------------------------------------------- */

static OTF2_FlushType rt__pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                    void *caller, bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp rt__post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return rt__now();
}

static OTF2_FlushCallbacks rt__flush_callbacks = {rt__pre_flush, rt__post_flush};

/* The memory callbacks bound what one rank keeps in memory: once the budget is used, allocate
 * returns NULL, which makes OTF2 flush the buffer to disk and hand its chunks back (free_all). */
struct rt__chunk {
    struct rt__chunk *next;
    uint64_t size;
};
static uint64_t rt__mem_used, rt__mem_budget;

static void *rt__mem_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                           uint64_t size)
{
    (void)user, (void)loc;
    /* Only event buffers count: they are the ones that grow with the run and that OTF2 can
     * flush. Definition buffers are written once at the end and cannot be flushed early. */
    int counted = type == OTF2_FILETYPE_EVENTS;
    if (counted && rt__mem_used + size > rt__mem_budget)
        return NULL;
    struct rt__chunk *c = malloc(sizeof *c + size + 64);
    if (!c)
        return NULL;
    c->next = *per_buffer;
    c->size = counted ? size : 0;
    *per_buffer = c;
    rt__mem_used += c->size;
    /* OTF2 expects chunk memory aligned like malloc's; the header keeps 16-byte alignment. */
    return (unsigned char *)c + sizeof *c;
}

static void rt__mem_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                             void **per_buffer, bool final)
{
    (void)user, (void)type, (void)loc, (void)final;
    struct rt__chunk *c = *per_buffer;
    while (c) {
        struct rt__chunk *n = c->next;
        rt__mem_used -= c->size;
        free(c);
        c = n;
    }
    *per_buffer = NULL;
}

static OTF2_MemoryCallbacks rt__memory_callbacks = {rt__mem_alloc, rt__mem_free_all};

/* --- events ------------------------------------------------------------------------------- */

void rt__enter(int region, uint64_t t, void *ret)
{
    if (!rt__g.active)
        return;
    rt__g.in_tracer = 1;
    OTF2_AttributeList *attrs = NULL;
    if (ret && rt__g.callsite_mode) {
        uint32_t cc = rt__callsite_id(ret);
        if (cc != OTF2_UNDEFINED_CALLING_CONTEXT &&
            OTF2_AttributeList_AddCallingContextRef(rt__g.attrs, 0, cc) == OTF2_SUCCESS)
            attrs = rt__g.attrs;
    }
    rt__check(OTF2_EvtWriter_Enter(rt__g.evt, attrs, t, (OTF2_RegionRef)region), "Enter");
    rt__g.cur_mpi_region = region;
    rt__g.in_tracer = 0;
}

void rt__leave(int region, uint64_t t)
{
    if (!rt__g.active)
        return;
    rt__g.in_tracer = 1;
    rt__check(OTF2_EvtWriter_Leave(rt__g.evt, NULL, t, (OTF2_RegionRef)region), "Leave");
    rt__g.cur_mpi_region = -1;
    rt__g.in_tracer = 0;
}

uint32_t rt__peer(MPI_Comm comm, int peer, uint32_t *id)
{
    *id = rt__comm_id(comm);
    if (RT_LIKELY(*id != RT_COMM_UNKNOWN))
        return (uint32_t)peer;
    /* A communicator we did not see being created (an intercommunicator or one made by a call
     * we do not wrap): keep the message matchable by naming the peer by its world rank. */
    MPI_Group g, wg;
    int wr = MPI_UNDEFINED;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, 1, &peer, wg, &wr);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    *id = RT_COMM_WORLD_ID;
    return wr == MPI_UNDEFINED ? OTF2_UNDEFINED_UINT32 : (uint32_t)wr;
}

/* --- clock offsets ------------------------------------------------------------------------ */

/* Rank 0's clock is the reference. Each other rank in turn does a few ping-pongs with rank 0 and
 * keeps the one with the smallest round trip, whose midpoint best matches rank 0's reading. */
static void rt__clock_sync(struct rt__clock_offset *out)
{
    uint64_t t_best = rt__clock();
    int64_t off_best = 0;
    uint64_t rtt_best = UINT64_MAX;
    MPI_Comm c = rt__g.comm;
    for (int r = 1; r < rt__g.size; r++) {
        for (int i = 0; i < RT_CLOCK_PINGPONGS; i++) {
            if (rt__g.rank == 0) {
                uint64_t dummy, t0;
                PMPI_Recv(&dummy, 1, MPI_UINT64_T, r, RT_TAG_CLOCK, c, MPI_STATUS_IGNORE);
                t0 = rt__clock();
                PMPI_Send(&t0, 1, MPI_UINT64_T, r, RT_TAG_CLOCK, c);
            } else if (rt__g.rank == r) {
                uint64_t t1 = rt__clock(), t0 = 0, t2;
                PMPI_Send(&t1, 1, MPI_UINT64_T, 0, RT_TAG_CLOCK, c);
                PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, RT_TAG_CLOCK, c, MPI_STATUS_IGNORE);
                t2 = rt__clock();
                if (t2 - t1 < rtt_best) {
                    rtt_best = t2 - t1;
                    t_best = t1 + (t2 - t1) / 2;
                    off_best = (int64_t)(t0 - t_best);
                }
            }
        }
    }
    out->time = t_best;
    out->offset = off_best;
    out->stddev = rtt_best == UINT64_MAX ? 0.0 : (double)rtt_best / 2.0;
}

/* --- archive directory -------------------------------------------------------------------- */

static int rt__exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int rt__mkdirs(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int rt__archive_taken(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    if (rt__exists(p))
        return 1;
    snprintf(p, sizeof p, "%s/traces", dir);
    return rt__exists(p);
}

/* Rank 0 picks the directory so that every rank uses the same one. An explicit RETIME_TRACE_DIR
 * that already holds an archive is never overwritten: tracing is switched off with a warning.
 * The default time-stamped name gets a ".1", ".2" ... suffix instead, because two runs started in
 * the same second should both be traced. Returns 0 if tracing can go ahead. */
static int rt__choose_dir(char *dir, size_t cap)
{
    const char *env = getenv("RETIME_TRACE_DIR");
    if (env && *env) {
        if (snprintf(dir, cap, "%s", env) >= (int)cap) {
            rt__warn("RETIME_TRACE_DIR is too long; tracing disabled");
            return -1;
        }
        if (rt__archive_taken(dir)) {
            rt__warn("%s/traces.otf2 already exists; not overwriting it, tracing disabled", dir);
            return -1;
        }
    } else {
        char base[64];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(base, sizeof base, "retime-trace-%Y%m%d-%H%M%S", &tm);
        snprintf(dir, cap, "%s", base);
        for (int i = 1; rt__exists(dir) && i < 1000; i++)
            snprintf(dir, cap, "%s.%d", base, i);
        if (rt__exists(dir)) {
            rt__warn("no free archive directory name near %s; tracing disabled", base);
            return -1;
        }
    }
    if (rt__mkdirs(dir) != 0) {
        rt__warn("cannot create %s: %s; tracing disabled", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* --- signals and exit --------------------------------------------------------------------- */

static struct sigaction rt__old_term, rt__old_int;

static void rt__on_signal(int sig)
{
    /* OTF2 and stdio are not async-signal-safe. The usual case is a rank blocked inside MPI when
     * mpirun forwards SIGTERM/SIGINT, where no tracer state is half-updated; if the signal hit
     * the tracer itself (in_tracer), the buffers may be inconsistent and nothing is written. An
     * alarm ends the process should the writing hang on a lock the signal interrupted. */
    if (!rt__g.in_tracer && rt__g.opened && !rt__g.finished) {
        alarm(20);
        rt__emergency(sig == SIGTERM ? "terminated by SIGTERM" : "interrupted by SIGINT", 1);
    }
    sigaction(sig, sig == SIGTERM ? &rt__old_term : &rt__old_int, NULL);
    raise(sig);
}

static void rt__at_exit(void)
{
    if (rt__g.opened && !rt__g.finished)
        rt__emergency("process exited without MPI_Finalize", 0);
}

static void rt__install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = rt__on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &rt__old_term);
    sigaction(SIGINT, &sa, &rt__old_int);
    atexit(rt__at_exit);
}

/* --- init --------------------------------------------------------------------------------- */

static void rt__read_env(void)
{
    const char *cs = getenv("RETIME_TRACE_CALLSITE");
    rt__g.callsite_mode = 1;
    rt__g.callsite_skip = 0;
    if (cs && (!strcmp(cs, "0") || !strcmp(cs, "off")))
        rt__g.callsite_mode = 0;
    else if (cs && !strcmp(cs, "unwind"))
        rt__g.callsite_mode = 2; /* libunwind even without a skip, to compare its cost */
    const char *depth = getenv("RETIME_TRACE_CALLSITE_SKIP");
    if (rt__g.callsite_mode && depth && atoi(depth) > 0) {
        rt__g.callsite_mode = 2;
        rt__g.callsite_skip = atoi(depth) > 16 ? 16 : atoi(depth);
    }
    const char *mb = getenv("RETIME_TRACE_BUFFER_MB");
    rt__mem_budget = (mb && atoi(mb) > 0 ? (uint64_t)atoi(mb) : 64u) << 20;
    if (rt__mem_budget < (2u << 20)) /* at least two 1 MiB event chunks */
        rt__mem_budget = 2u << 20;
}

void rt__init(uint64_t t_enter, int region, void *ret)
{
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (!initialized || rt__g.opened)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rt__g.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &rt__g.size);
    const char *off = getenv("RETIME_TRACE");
    if (off && (!strcmp(off, "0") || !strcmp(off, "off")))
        return; /* Same value on all ranks, so no rank waits in a collective below. */
    rt__read_env();
    OTF2_Error_RegisterCallback(rt__otf2_error, NULL);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &rt__g.comm) != MPI_SUCCESS)
        return;

    int go = 0;
    if (rt__g.rank == 0)
        go = rt__choose_dir(rt__g.dir, sizeof rt__g.dir) == 0;
    PMPI_Bcast(&go, 1, MPI_INT, 0, rt__g.comm);
    PMPI_Bcast(rt__g.dir, (int)sizeof rt__g.dir, MPI_CHAR, 0, rt__g.comm);
    if (!go) {
        PMPI_Comm_free(&rt__g.comm);
        return;
    }

    /* Archive_Open is local but SetCollectiveCallbacks is collective, so agree first that every
     * rank could open the archive; otherwise no rank may enter the collective part. */
    rt__g.archive = OTF2_Archive_Open(rt__g.dir, "traces", OTF2_FILEMODE_WRITE, 1u << 20, 4u << 20,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    int ok = rt__g.archive != NULL, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rt__g.comm);
    if (!all_ok) {
        if (rt__g.rank == 0)
            rt__warn("cannot open the OTF2 archive in %s%s%s; tracing disabled", rt__g.dir,
                     rt__otf2_msg[0] ? ": " : "", rt__otf2_msg);
        if (rt__g.archive)
            OTF2_Archive_Close(rt__g.archive);
        rt__g.archive = NULL;
        PMPI_Comm_free(&rt__g.comm);
        return;
    }
    OTF2_ErrorCode e = rt__otf2_set_mpi_collectives(rt__g.archive, rt__g.comm);
    rt__g.opened = 1;
    rt__check(e, "OTF2 collective setup");
    if (e == OTF2_SUCCESS) {
        OTF2_Archive_SetFlushCallbacks(rt__g.archive, &rt__flush_callbacks, NULL);
        OTF2_Archive_SetMemoryCallbacks(rt__g.archive, &rt__memory_callbacks, NULL);
        OTF2_Archive_SetCreator(rt__g.archive, "retime-trace");
        e = OTF2_Archive_OpenEvtFiles(rt__g.archive);
        rt__check(e, "opening event files");
    }
    if (e == OTF2_SUCCESS) {
        rt__g.evt = OTF2_Archive_GetEvtWriter(rt__g.archive, (OTF2_LocationRef)rt__g.rank);
        rt__g.attrs = OTF2_AttributeList_New();
        if (!rt__g.evt || !rt__g.attrs)
            rt__fail("creating the event writer", OTF2_ERROR_MEM_ALLOC_FAILED);
    }

    struct timespec rts;
    clock_gettime(CLOCK_REALTIME, &rts);
    rt__g.realtime_ns = (uint64_t)rts.tv_sec * 1000000000u + (uint64_t)rts.tv_nsec;
    rt__clock_sync(&rt__g.offsets[0]);
    rt__g.n_offsets = 1;
    rt__callsite_init();
    rt__g.first_ts = t_enter;
    rt__g.last_ts = t_enter;
    rt__g.next_request_id = 1;
    if (rt__ok) {
        rt__g.active = 1;
        rt__enter(region, t_enter, ret);
        rt__leave(region, rt__now());
    }
    rt__install_handlers();
}

/* --- finalize ----------------------------------------------------------------------------- */

/* Closes this rank's event stream. Local definition files (mapping tables and clock offsets)
 * are written later by whoever merges the definitions of all ranks. */
static void rt__close_local(uint64_t *nevents)
{
    *nevents = 0;
    if (rt__g.evt) {
        if (rt__ok)
            rt__check(OTF2_EvtWriter_GetNumberOfEvents(rt__g.evt, nevents), "counting events");
        rt__check(OTF2_Archive_CloseEvtWriter(rt__g.archive, rt__g.evt), "writing events");
        rt__g.evt = NULL;
    }
    if (rt__g.attrs) {
        OTF2_AttributeList_Delete(rt__g.attrs);
        rt__g.attrs = NULL;
    }
    if (rt__ok)
        rt__check(OTF2_Archive_CloseEvtFiles(rt__g.archive), "closing event files");
}

void rt__finalize(uint64_t t_enter)
{
    if (!rt__g.opened || rt__g.finished)
        return;
    (void)t_enter;
    rt__clock_sync(&rt__g.offsets[1]);
    rt__g.n_offsets = 2;
    if (rt__g.active) {
        uint64_t t = rt__now();
        while (rt__g.region_depth > 0) {
            uint32_t id = rt__g.region_stack[--rt__g.region_depth];
            if (id != UINT32_MAX)
                rt__check(OTF2_EvtWriter_Leave(rt__g.evt, NULL, t, id), "Leave");
        }
        rt__leave(RT_R_Finalize, t);
    }
    rt__g.active = 0;
    rt__g.finished = 1;
    uint64_t nevents = 0;
    rt__g.in_tracer = 1;
    rt__close_local(&nevents);

    /* Every rank that opened the archive takes part, even one whose tracing failed, so that
     * rank 0 learns which locations are intact and nobody waits forever in the gather. */
    struct rt__buf b = {0};
    rt__defs_pack(&b, rt__ok, nevents, rt__g.last_ts);
    int len = b.oom ? 0 : (int)b.len;
    int *lens = NULL, *displs = NULL;
    unsigned char *all = NULL;
    if (rt__g.rank == 0) {
        lens = calloc((size_t)rt__g.size, sizeof *lens);
        displs = calloc((size_t)rt__g.size, sizeof *displs);
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, rt__g.comm);
    size_t total = 0;
    if (rt__g.rank == 0 && lens && displs) {
        for (int r = 0; r < rt__g.size; r++) {
            displs[r] = (int)total;
            total += (size_t)lens[r];
        }
        all = malloc(total ? total : 1);
    }
    PMPI_Gatherv(b.data, len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, rt__g.comm);

    if (rt__g.rank == 0) {
        const unsigned char **blobs = calloc((size_t)rt__g.size, sizeof *blobs);
        size_t *blens = calloc((size_t)rt__g.size, sizeof *blens);
        if (!all || !lens || !blobs || !blens) {
            rt__fail("collecting definitions", OTF2_ERROR_MEM_ALLOC_FAILED);
        } else if (rt__ok) {
            for (int r = 0; r < rt__g.size; r++) {
                blobs[r] = lens[r] ? all + displs[r] : NULL;
                blens[r] = (size_t)lens[r];
            }
            int nloc = rt__defs_write(rt__g.archive, rt__g.size, blobs, blens);
            if (nloc < 0)
                rt__fail("writing definitions", OTF2_ERROR_PROCESSED_WITH_FAULTS);
            else if (nloc < rt__g.size)
                rt__warn("%d of %d ranks could not be traced; %s/traces.otf2 holds the rest",
                         rt__g.size - nloc, rt__g.size, rt__g.dir);
        }
        if (!rt__ok)
            rt__warn("rank 0 could not write the definitions; %s/traces.otf2 is not readable",
                     rt__g.dir);
        free(blobs);
        free(blens);
    }
    free(all);
    free(lens);
    free(displs);
    rt__buf_free(&b);
    OTF2_Archive_Close(rt__g.archive);
    rt__g.archive = NULL;
    PMPI_Comm_free(&rt__g.comm);
    rt__g.in_tracer = 0;
}

/* --- emergency ---------------------------------------------------------------------------- */

static int rt__write_file(const char *path, const void *data, size_t len)
{
    char tmp[4500];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return -1;
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    if (close(fd) != 0)
        return -1;
    /* The rename makes a half-written file invisible to the ranks that merge these blobs. */
    return rename(tmp, path);
}

static unsigned char *rt__read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *data = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            unsigned char *d = realloc(data, cap);
            if (!d)
                break;
            data = d;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return data;
}

/* Merges every rank's emergency blob found in DIR/traces/ into fresh global definitions and an
 * anchor, written into a scratch archive and renamed into place. Runs under an flock so that
 * concurrently dying ranks take turns; each turn yields a readable archive, and the last one
 * includes every rank that managed to write its files. */
static int rt__emergency_anchor(void)
{
    char lock[4300], scratch[4300], path[4400], dst[4400];
    snprintf(lock, sizeof lock, "%s/.retime.lock", rt__g.dir);
    int fd = open(lock, O_RDWR | O_CREAT, 0666);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int P = rt__g.size, nloc = -1;
    const unsigned char **blobs = calloc((size_t)P, sizeof *blobs);
    size_t *lens = calloc((size_t)P, sizeof *lens);
    if (blobs && lens) {
        for (int r = 0; r < P; r++) {
            snprintf(path, sizeof path, "%s/traces/%d.rtdefs", rt__g.dir, r);
            blobs[r] = rt__read_file(path, &lens[r]);
        }
        snprintf(scratch, sizeof scratch, "%s/.retime-tmp-%d", rt__g.dir, rt__g.rank);
        OTF2_Archive *a = OTF2_Archive_Open(scratch, "traces", OTF2_FILEMODE_WRITE, 1u << 20,
                                            4u << 20, OTF2_SUBSTRATE_POSIX,
                                            OTF2_COMPRESSION_NONE);
        if (a && OTF2_Archive_SetSerialCollectiveCallbacks(a) == OTF2_SUCCESS) {
            OTF2_Archive_SetFlushCallbacks(a, &rt__flush_callbacks, NULL);
            OTF2_Archive_SetCreator(a, "retime-trace (emergency)");
            nloc = rt__defs_write(a, P, blobs, lens);
        }
        if (a && OTF2_Archive_Close(a) != OTF2_SUCCESS)
            nloc = -1;
        /* Local definition files first, the anchor last: a reader never sees an anchor that
         * names a location whose mapping tables are not in place yet. */
        for (int r = 0; nloc >= 0 && r < P; r++) {
            snprintf(path, sizeof path, "%s/traces/%d.def", scratch, r);
            snprintf(dst, sizeof dst, "%s/traces/%d.def", rt__g.dir, r);
            if (rt__exists(path) && rename(path, dst) != 0)
                nloc = -1;
        }
        if (nloc >= 0) {
            snprintf(path, sizeof path, "%s/traces.def", scratch);
            snprintf(dst, sizeof dst, "%s/traces.def", rt__g.dir);
            if (rename(path, dst) != 0)
                nloc = -1;
            snprintf(path, sizeof path, "%s/traces.otf2", scratch);
            snprintf(dst, sizeof dst, "%s/traces.otf2", rt__g.dir);
            if (nloc >= 0 && rename(path, dst) != 0)
                nloc = -1;
        }
        /* Remove the scratch archive, including leftovers after a failure. */
        for (int r = 0; r < P; r++) {
            snprintf(path, sizeof path, "%s/traces/%d.def", scratch, r);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/traces", scratch);
        rmdir(path);
        snprintf(path, sizeof path, "%s/traces.def", scratch);
        unlink(path);
        snprintf(path, sizeof path, "%s/traces.otf2", scratch);
        unlink(path);
        rmdir(scratch);
        for (int r = 0; r < P; r++)
            free((void *)blobs[r]);
    }
    free(blobs);
    free(lens);
    flock(fd, LOCK_UN);
    close(fd);
    return nloc;
}

/* Number of emergency blobs present in the archive directory. */
static int rt__count_blobs(void)
{
    char path[4400];
    int n = 0;
    for (int r = 0; r < rt__g.size; r++) {
        snprintf(path, sizeof path, "%s/traces/%d.rtdefs", rt__g.dir, r);
        n += rt__exists(path);
    }
    return n;
}

void rt__emergency(const char *why, int wait_for_peers)
{
    if (!rt__g.opened || rt__g.finished)
        return;
    rt__g.finished = 1;
    rt__g.in_tracer = 1;
    if (rt__g.active) {
        /* Close what is open so that every Enter has its Leave; readers rely on the nesting. */
        uint64_t t = rt__now();
        if (rt__g.cur_mpi_region >= 0)
            rt__check(OTF2_EvtWriter_Leave(rt__g.evt, NULL, t, (OTF2_RegionRef)rt__g.cur_mpi_region),
                      "Leave");
        while (rt__g.region_depth > 0) {
            uint32_t id = rt__g.region_stack[--rt__g.region_depth];
            if (id != UINT32_MAX)
                rt__check(OTF2_EvtWriter_Leave(rt__g.evt, NULL, t, id), "Leave");
        }
    }
    rt__g.active = 0;
    /* A second clock-offset record keeps the pair structure readers expect (init and end). */
    rt__g.offsets[1] = rt__g.offsets[0];
    rt__g.offsets[1].time = rt__clock();
    rt__g.n_offsets = 2;
    uint64_t nevents = 0;
    rt__close_local(&nevents);

    struct rt__buf b = {0};
    char path[4400];
    int wrote = 0;
    if (rt__defs_pack(&b, rt__ok, nevents, rt__g.last_ts) == 0 && !b.oom) {
        snprintf(path, sizeof path, "%s/traces/%d.rtdefs", rt__g.dir, rt__g.rank);
        if (rt__write_file(path, b.data, b.len) == 0)
            wrote = 1;
    }
    rt__buf_free(&b);
    int nloc = wrote ? rt__emergency_anchor() : -1;
    /* mpirun kills the remaining ranks soon after the first one dies, so a rank that was
     * signalled stays a little while and merges again as long as peers keep adding their blobs:
     * the last merge before the deadline then holds every rank that got this far. */
    for (int i = 0; wait_for_peers && nloc > 0 && nloc < rt__g.size && i < 100; i++) {
        usleep(10000);
        int n = rt__count_blobs();
        if (n > nloc)
            nloc = rt__emergency_anchor();
    }
    if (nloc > 0)
        rt__warn("rank %d: %s; %s/traces.otf2 now holds the %d rank(s) saved so far", rt__g.rank,
                 why, rt__g.dir, nloc);
    else
        rt__warn("rank %d: %s; could not save this rank's trace in %s", rt__g.rank, why,
                 rt__g.dir);
    rt__g.in_tracer = 0;
}

/* --- user regions ------------------------------------------------------------------------- */

static uint32_t rt__user_region(const char *name)
{
    static const char *last_ptr[8];
    static uint32_t last_idx[8];
    /* Programs mostly pass string literals, so the last pointers are tried first; the string is
     * still compared because a buffer may be reused for another name. */
    for (int i = 0; i < 8; i++)
        if (last_ptr[i] == name && !strcmp(rt__g.user_names[last_idx[i]], name))
            return RT_R_COUNT + last_idx[i];
    uint32_t idx = 0;
    for (; idx < rt__g.n_user_names; idx++)
        if (!strcmp(rt__g.user_names[idx], name))
            break;
    if (idx == rt__g.n_user_names) {
        if (idx >= RT_MAX_USER_REGIONS)
            return UINT32_MAX;
        rt__g.user_names[idx] = strdup(name);
        if (!rt__g.user_names[idx])
            return UINT32_MAX;
        rt__g.n_user_names++;
    }
    uint32_t id = RT_R_COUNT + idx;
    static unsigned next;
    last_ptr[next % 8] = name;
    last_idx[next % 8] = idx;
    next++;
    return id;
}

RT_EXPORT void rt_region_begin(const char *name)
{
    if (!rt__g.active || !name || rt__g.region_depth >= RT_MAX_REGION_DEPTH)
        return;
    uint32_t id = rt__user_region(name);
    rt__g.region_stack[rt__g.region_depth++] = id;
    if (id == UINT32_MAX)
        return;
    rt__g.in_tracer = 1;
    rt__check(OTF2_EvtWriter_Enter(rt__g.evt, NULL, rt__now(), id), "Enter");
    rt__g.in_tracer = 0;
}

RT_EXPORT void rt_region_end(void)
{
    if (!rt__g.active || rt__g.region_depth <= 0)
        return;
    uint32_t id = rt__g.region_stack[--rt__g.region_depth];
    if (id == UINT32_MAX)
        return;
    rt__g.in_tracer = 1;
    rt__check(OTF2_EvtWriter_Leave(rt__g.evt, NULL, rt__now(), id), "Leave");
    rt__g.in_tracer = 0;
}
