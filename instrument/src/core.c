/* SPDX-License-Identifier: MIT */
/* Tracer life cycle: opening the OTF2 archive at MPI_Init, finalizing it collectively at
 * MPI_Finalize, the emergency path for MPI_Abort/signals/exit, failures and disk-space checks
 * (a full disk stops tracing, never the program) and user regions. */
#include "trace.h"

#include "retime/region.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

RT_HIDDEN struct rt__state rt__g = {.cur_mpi_region = -1};

/* Defined in otf2_mpi.c, the only file that includes <otf2/OTF2_MPI_Collectives.h>. */
RT_HIDDEN OTF2_ErrorCode rt__otf2_set_mpi_collectives(OTF2_Archive *archive, MPI_Comm comm);

/* Chunk sizes given to OTF2_Archive_Open, and the write buffer OTF2's POSIX substrate keeps per
 * file (OTF2 3.0: data is written in blocks of up to 4 MiB, so up to that much of what was
 * flushed may still be in memory). The definition chunk bounds one definition record (a group
 * of about 250,000 ranks fits in 1 MiB); every reader zeroes a chunk of that size for each
 * location's local definitions, so it is 1 MiB, not 4 (reading 512 locations: 25 % faster). */
#define RT_EVT_CHUNK (1u << 20)
#define RT_DEF_CHUNK (1u << 20)
#define RT_OTF2_FILE_BUFFER (4u << 20)
#define RT_SPACE_MARGIN (1u << 20)

/* A failure code: an OTF2 error code, or RT_ERRNO_BASE + errno for a failure the tracer saw
 * itself (no room for the next flush). */
#define RT_ERRNO_BASE 0x10000

/* Warnings are the only output of the tracer: one line each, prefixed, written with a single
 * write(2) so that lines of several ranks do not interleave, and usable from a signal handler
 * (no stdio lock). */
void rt__warn(const char *fmt, ...)
{
    char line[5000];
    int n = snprintf(line, sizeof line, "retime-trace: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

/* --- failures ----------------------------------------------------------------------------- */

/* A failure stops tracing on this rank for good, and this rank's archive is never touched by
 * OTF2 again: no flush, no close. OTF2 3.0 is not safe after a failed write: closing a writer
 * whose buffered write failed uses freed memory and crashes the program. So the writer and the
 * archive are abandoned (their memory, at most the buffer budget, stays allocated), and the
 * rank's event file is removed to give the space back; at MPI_Finalize the rank is left out of
 * the archive. The failure is reported in one line: rank 0 prints its own at once; the other
 * ranks' failures reach rank 0 at MPI_Finalize, which prints one line for all of them (unless
 * it printed its own), so that a full disk does not print one line per rank. */
RT_HIDDEN int rt__ok = 1;       /* This rank's part of the archive is intact. */
static int rt__fail_code;       /* What stopped it (see RT_ERRNO_BASE). */
static char rt__fail_what[64];  /* The operation that failed, for non-I/O failures. */
static int rt__fail_printed;
static OTF2_ErrorCode rt__otf2_err; /* First error OTF2 reported since the last reset. */
static char rt__otf2_msg[256];

/* OTF2 prints its errors to stderr by default. It also reports some failures only here: a
 * failed write at close returns OTF2_SUCCESS from OTF2_Archive_CloseEvtWriter. So the first
 * error is kept, and every close checks it. */
static OTF2_ErrorCode rt__otf2_error(void *user, const char *file, uint64_t line, const char *func,
                                     OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user, (void)file, (void)line, (void)func;
    if (code != OTF2_SUCCESS && code != OTF2_WARNING && rt__otf2_err == OTF2_SUCCESS) {
        rt__otf2_err = code;
        vsnprintf(rt__otf2_msg, sizeof rt__otf2_msg, fmt, va);
    }
    return code;
}

static int rt__is_io_error(int code)
{
    return code >= RT_ERRNO_BASE ||
           (code >= OTF2_ERROR_E2BIG && code <= OTF2_ERROR_EXDEV && code != OTF2_ERROR_ENOMEM);
}

/* The one line that reports the failure @p code of rank @p rank (without the prefix). */
static void rt__fail_line(char *buf, size_t cap, int rank, int code, const char *what)
{
    const char *text = code >= RT_ERRNO_BASE ? strerror(code - RT_ERRNO_BASE)
                                             : OTF2_Error_GetDescription((OTF2_ErrorCode)code);
    if (rt__is_io_error(code))
        snprintf(buf, cap, "rank %d: cannot write trace to %s: %s; tracing stopped, the program "
                           "goes on", rank, rt__g.dir, text);
    else
        snprintf(buf, cap, "rank %d: tracing failed%s%s%s: %s; tracing stopped, the program "
                           "goes on", rank, what && *what ? " (" : "", what ? what : "",
                 what && *what ? ")" : "", text);
}

static void rt__evt_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/traces/%d.evt", rt__g.dir, rt__g.rank);
}

static void rt__print_failure(void)
{
    if (rt__ok || rt__fail_printed)
        return;
    char line[4700];
    rt__fail_printed = 1;
    rt__fail_line(line, sizeof line, rt__g.rank, rt__fail_code, rt__fail_what);
    rt__warn("%s", line);
}

static void rt__stop(int code, const char *what)
{
    rt__g.active = 0;
    if (!rt__ok)
        return;
    rt__ok = 0;
    rt__fail_code = code ? code : OTF2_ERROR_PROCESSED_WITH_FAULTS;
    snprintf(rt__fail_what, sizeof rt__fail_what, "%s", what ? what : "");
    if (rt__g.opened) {
        /* These events will never be part of the archive; truncating frees the space at once,
         * although OTF2 keeps the file open. */
        char path[4200];
        rt__evt_path(path, sizeof path);
        if (truncate(path, 0) == 0)
            unlink(path);
    }
    /* In the emergency path no MPI_Finalize gather will report it for this rank. */
    if (rt__g.rank == 0 || (rt__g.finished && !rt__g.finalized))
        rt__print_failure();
}

void rt__fail(const char *what, OTF2_ErrorCode err)
{
    /* The first error OTF2 reported is the cause ("No space left on device"); the code the
     * call returned is often only its consequence ("Chunk handling failed"). */
    rt__stop(rt__otf2_err != OTF2_SUCCESS ? (int)rt__otf2_err : (int)err, what);
}

void rt__check(OTF2_ErrorCode err, const char *what)
{
    if (RT_UNLIKELY(err != OTF2_SUCCESS))
        rt__fail(what, err);
}

/* --- disk space --------------------------------------------------------------------------- */

/* Before OTF2 writes, the tracer makes sure the write will succeed, because OTF2 does not
 * survive a failed write (see rt__stop). Every flush of the event buffer first reserves room
 * for what it will write in the rank's event file: fallocate(FALLOC_FL_KEEP_SIZE) from the
 * file's end for the buffered events plus OTF2's file buffer. If that fails with ENOSPC or
 * EDQUOT, the flush is skipped (OTF2_NO_FLUSH) and tracing stops cleanly. Where the file does
 * not exist yet (the first flush) or the file system cannot reserve, free space is checked with
 * statvfs instead. The first flush carries at most one chunk (see rt__mem_alloc), which stays in
 * OTF2's file buffer and is written only at close, where a failure is survivable. The reserved
 * tail beyond the data is released once the file is closed. RLIMIT_FSIZE is honoured the same
 * way, so the trace never makes the program receive SIGXFSZ. */
static uint64_t rt__reserved_end;
static int rt__flushed_once;

static int rt__room_statvfs(uint64_t need)
{
    struct statvfs sv;
    if (statvfs(rt__g.dir, &sv) != 0)
        return 0; /* Cannot tell; the write decides. */
    uint64_t room = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
    return room < need ? ENOSPC : 0;
}

/* 0 if the next flush can write @p need bytes more to this rank's event file, else an errno. */
static int rt__reserve_events(uint64_t need)
{
    char path[4200];
    rt__evt_path(path, sizeof path);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    uint64_t size = 0;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0)
        size = (uint64_t)st.st_size;
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        size + need > (uint64_t)rl.rlim_cur) {
        if (fd >= 0)
            close(fd);
        return EFBIG;
    }
    if (fd < 0)
        return rt__room_statvfs(need);
    int err = 0;
#ifdef FALLOC_FL_KEEP_SIZE
    if (size + need <= rt__reserved_end) {
        err = 0; /* Still covered by the last reservation. */
    } else if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)size, (off_t)need) == 0) {
        rt__reserved_end = size + need;
    } else if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) {
        err = errno;
    } else {
        err = rt__room_statvfs(need); /* EOPNOTSUPP and the like: a file system without it. */
    }
#else
    err = rt__room_statvfs(need);
#endif
    close(fd);
    return err;
}

/* Gives back the reserved blocks beyond the end of the closed event file. */
static void rt__release_reservation(void)
{
    if (!rt__reserved_end)
        return;
    char path[4200];
    rt__evt_path(path, sizeof path);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size < rt__reserved_end) {
        /* Truncating to the current size drops blocks allocated beyond it (ext4, xfs, tmpfs). */
        if (ftruncate(fd, st.st_size) != 0) {
            /* Nothing else to do: the blocks stay allocated but the data is intact. */
        }
    }
    if (fd >= 0)
        close(fd);
    rt__reserved_end = 0;
}

/* --- OTF2 buffer management --------------------------------------------------------------- */

static uint64_t rt__mem_used, rt__mem_budget, rt__log_words;
/* RETIME_TRACE_TEST_MERGE_DELAY's wait for this rank before the merge lock, in ms (0: none). */
static unsigned rt__merge_delay_ms;

static OTF2_FlushType rt__pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                    void *caller, bool final)
{
    (void)user, (void)loc, (void)caller, (void)final;
    /* Definition and anchor files are written once, at the end, and checked there. */
    if (type != OTF2_FILETYPE_EVENTS)
        return OTF2_FLUSH;
    if (!rt__ok)
        return OTF2_NO_FLUSH;
    int err = rt__reserve_events(rt__mem_used + RT_OTF2_FILE_BUFFER + RT_SPACE_MARGIN);
    if (err) {
        rt__stop(RT_ERRNO_BASE + err, NULL);
        return OTF2_NO_FLUSH;
    }
    return OTF2_FLUSH;
}

static OTF2_TimeStamp rt__post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)loc;
    if (type == OTF2_FILETYPE_EVENTS)
        rt__flushed_once = 1;
    /* Inside a drain of the event log the records still to come are stamped earlier than now:
     * the flush ends at the last record encoded (evlog.c writes the drain's own span). */
    uint64_t t;
    return rt__evlog_time(&t) ? t : rt__now();
}

static OTF2_FlushCallbacks rt__flush_callbacks = {rt__pre_flush, rt__post_flush};

/* The memory callbacks bound what one rank keeps in memory: once the budget is used, allocate
 * returns NULL, which makes OTF2 flush the buffer to disk and hand its chunks back (free_all).
 * Until the first flush the budget is one chunk, so that the first flush is small (above). */
struct rt__chunk {
    struct rt__chunk *next;
    uint64_t size;
};

static void *rt__mem_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                           uint64_t size)
{
    (void)user, (void)loc;
    /* Only event buffers count: they are the ones that grow with the run and that OTF2 can
     * flush. Definition buffers are written once at the end and cannot be flushed early. */
    int counted = type == OTF2_FILETYPE_EVENTS;
    uint64_t budget = rt__flushed_once ? rt__mem_budget : RT_EVT_CHUNK;
    if (counted && rt__mem_used + size > budget)
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

/* Properties of every archive of this tracer, whichever rank writes its anchor: the event clock
 * (event_clock.c) and how call sites are written (rt__enter; docs/tracing.md). */
static void rt__archive_properties(OTF2_Archive *a)
{
    rt__event_clock_write(a);
    OTF2_Archive_SetProperty(a, "RETIME::CALLSITE_REPEATS", "omitted", true);
}

void rt__enter(int region, uint64_t t, void *ret)
{
    if (!rt__g.active)
        return;
    rt__g.in_tracer = 1;
    unsigned flags = 0;
    uint64_t v[2];
    int nv = 0;
    if (ret && rt__g.callsite_mode) {
        /* Only a change of the region's call site is written (RETIME::CALLSITE_REPEATS): an MPI
         * call made again from where it was made last costs no attribute, the dearest part of a
         * record (issue #45 item 6). OTF2_UNDEFINED_CALLING_CONTEXT names no site. */
        uint32_t cc = rt__g.callsite_mode == 1 && ret == rt__g.last_return[region]
                          ? rt__g.last_callsite[region] : rt__callsite_id(ret);
        if (cc != rt__g.last_callsite[region]) {
            rt__g.last_callsite[region] = cc;
            flags |= RT_EVF_CALLSITE;
            v[nv++] = cc;
        }
        rt__g.last_return[region] = ret;
    }
    if (rt__cpu_due(t) && rt__cpu_read(t, &v[nv]))
        flags |= RT_EVF_CPU, nv++;
    uint64_t *p = rt__evlog_put(t, RT_EV_ENTER, flags, (uint32_t)region, (unsigned)nv);
    for (int i = 0; i < nv; i++)
        p[i] = v[i];
    rt__g.cur_mpi_region = region;
    rt__out();
}

void rt__leave(int region, uint64_t t)
{
    if (!rt__g.active)
        return;
    rt__g.in_tracer = 1;
    uint64_t cpu;
    if (rt__cpu_due(t) && rt__cpu_read(t, &cpu))
        *rt__evlog_put(t, RT_EV_LEAVE, RT_EVF_CPU, (uint32_t)region, 1) = cpu;
    else
        rt__evlog_put(t, RT_EV_LEAVE, 0, (uint32_t)region, 0);
    rt__g.cur_mpi_region = -1;
    rt__evlog_after_call();
    rt__out();
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
    /* An absolute path keeps the archive where it was meant to be if the program changes its
     * working directory later (OTF2 opens the event files only at their first flush). */
    char cwd[4096], abs[4096 + 4096 + 2];
    int n;
    if (dir[0] != '/' && getcwd(cwd, sizeof cwd) &&
        (n = snprintf(abs, sizeof abs, "%s/%s", cwd, dir)) > 0 && (size_t)n < cap)
        memcpy(dir, abs, (size_t)n + 1);
    return 0;
}

/* --- signals and exit --------------------------------------------------------------------- */

/* SIGTERM and SIGINT (a batch system ending a job, Ctrl-C under mpirun, mpirun killing the
 * other ranks after one failed) save the trace recorded so far and then do exactly what the
 * program's own disposition would have done: the handler the program installed before MPI_Init
 * runs, or the process dies by the signal (so its exit status still says so). A signal the
 * program ignores stays ignored: no handler is installed for it.
 *
 * The save is best effort, as in Score-P: OTF2, malloc and stdio are not async-signal-safe.
 *   - A signal that arrives while the tracer records an event or drains its event log
 *     (in_tracer == 1) is held until that is done (rt__out), so the log and the buffers are
 *     consistent when they are written. A second signal while one is held is passed on at once.
 *   - A signal that arrives elsewhere (the usual case: a rank blocked in MPI, or computing) is
 *     handled in the handler. If it interrupted malloc, the save can deadlock on malloc's lock;
 *     an alarm(20) then ends the process (by SIGALRM, not by the original signal).
 *   - Only the thread that called MPI_Init records events. A signal delivered to another
 *     thread (the kernel picks one when the main thread blocks it) is passed on unsaved, since
 *     the main thread may be writing events at that moment.
 *   - During MPI_Finalize's merge (in_tracer == 2) a signal is passed on at once. */
static struct sigaction rt__old_act[2]; /* SIGTERM, SIGINT */
static int rt__installed[2];
static pthread_t rt__main_thread;

static int rt__sig_index(int sig)
{
    return sig == SIGTERM ? 0 : 1;
}

/* Puts the program's disposition back and raises the signal again. Inside the handler the
 * signal is blocked, so it is delivered when the handler returns; from rt__signal_held it is
 * delivered at once. */
static void rt__pass_on(int sig)
{
    int i = rt__sig_index(sig);
    if (rt__installed[i]) {
        sigaction(sig, &rt__old_act[i], NULL);
        rt__installed[i] = 0;
    }
    raise(sig);
}

static void rt__save_on_signal(int sig)
{
    if (!rt__g.opened || rt__g.finished)
        return;
    unsigned prev_alarm = alarm(20);
    rt__emergency(sig == SIGTERM ? "terminated by SIGTERM" : "interrupted by SIGINT", 1);
    /* If the program's handler lets the process live on, its own alarm must not change. */
    alarm(prev_alarm);
}

static void rt__on_signal(int sig)
{
    int saved_errno = errno;
    if (!pthread_equal(pthread_self(), rt__main_thread)) {
        rt__pass_on(sig);
    } else if (rt__g.in_tracer == 1 && !rt__g.pending_sig) {
        rt__g.pending_sig = sig;
    } else {
        if (rt__g.in_tracer != 2 && !rt__g.pending_sig)
            rt__save_on_signal(sig);
        rt__pass_on(sig);
    }
    errno = saved_errno;
}

void rt__signal_held(void)
{
    int sig = rt__g.pending_sig;
    rt__g.pending_sig = 0;
    if (!sig)
        return;
    int saved_errno = errno;
    rt__save_on_signal(sig);
    rt__pass_on(sig);
    errno = saved_errno;
}

static void rt__at_exit(void)
{
    if (rt__g.opened && !rt__g.finished)
        rt__emergency("process exited without MPI_Finalize", 0);
}

static void rt__install_handlers(void)
{
    atexit(rt__at_exit);
    const char *env = getenv("RETIME_TRACE_SIGNALS");
    if (env && (!strcmp(env, "0") || !strcmp(env, "off")))
        return;
    rt__main_thread = pthread_self();
    static const int sigs[2] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = rt__on_signal;
        /* Both blocked while one is handled, so the save is not interrupted by the other;
         * SA_RESTART so that a held signal does not make the interrupted write fail. */
        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, SIGTERM);
        sigaddset(&sa.sa_mask, SIGINT);
        sa.sa_flags = SA_RESTART;
        if (sigaction(sigs[i], &sa, &rt__old_act[i]) == 0)
            rt__installed[i] = 1;
    }
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
    /* 16 MiB, like Score-P's default SCOREP_TOTAL_MEMORY: a flush every ~1.3 M events, and
     * memory that does not grow with the run. */
    /* Thread CPU time every 20 us at most (clock.c); RETIME_TRACE_CPU=0 records none, a
     * number of us sets the interval (0.. 1 s; "every": at every event, for tests). */
    const char *cpu = getenv("RETIME_TRACE_CPU");
    rt__g.cpu_on = 1;
    rt__g.cpu_every = 20000;
    if (cpu && (!strcmp(cpu, "0") || !strcmp(cpu, "off")))
        rt__g.cpu_on = 0;
    else if (cpu && !strcmp(cpu, "every"))
        rt__g.cpu_every = 0;
    else if (cpu && atol(cpu) > 0 && atol(cpu) <= 1000000)
        rt__g.cpu_every = (uint64_t)atol(cpu) * 1000u;
    const char *mb = getenv("RETIME_TRACE_BUFFER_MB");
    long v = mb ? strtol(mb, NULL, 10) : 0;
    uint64_t total = (uint64_t)(v > 0 && v <= 1L << 20 ? v : 16) << 20;
    /* Half of it holds the event log (evlog.h: records as words, 32 bytes for a call's two), half
     * OTF2's encoded chunks, at least two of them. */
    rt__log_words = total / 2 / sizeof(uint64_t);
    rt__mem_budget = total - total / 2;
    if (rt__mem_budget < 2u * RT_EVT_CHUNK)
        rt__mem_budget = 2u * RT_EVT_CHUNK;
    /* For tests only: RANK:MS makes that rank wait before it takes the merge lock, so that the
     * other ranks' saves come first in a chosen order (tests/mpi/save_order.sh). */
    const char *delay = getenv("RETIME_TRACE_TEST_MERGE_DELAY");
    /* For tests only: a log of this many words, so that it drains within calls too
     * (tests/mpi/requests.sh). */
    const char *words = getenv("RETIME_TRACE_TEST_LOG_WORDS");
    if (words && atol(words) > 0)
        rt__log_words = (uint64_t)atol(words);
    char *end = NULL;
    long who = delay ? strtol(delay, &end, 10) : -1;
    long ms = end && *end == ':' ? strtol(end + 1, NULL, 10) : 0;
    rt__merge_delay_ms = who == rt__g.rank && ms > 0 && ms <= 60000 ? (unsigned)ms : 0;
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
    rt__g.archive = OTF2_Archive_Open(rt__g.dir, "traces", OTF2_FILEMODE_WRITE, RT_EVT_CHUNK,
                                      RT_DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
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
        if (!rt__g.evt || !rt__g.attrs || rt__evlog_init(rt__log_words) != 0)
            rt__fail("creating the event writer", OTF2_ERROR_MEM_ALLOC_FAILED);
    }

    struct timespec rts;
    clock_gettime(CLOCK_REALTIME, &rts);
    rt__g.realtime_ns = (uint64_t)rts.tv_sec * 1000000000u + (uint64_t)rts.tv_nsec;
    /* The ranks of each node: one of them calibrates the event clock for all (event_clock.c). */
    if (PMPI_Comm_split_type(rt__g.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &rt__g.node) != MPI_SUCCESS)
        PMPI_Comm_split(rt__g.comm, rt__g.rank, 0, &rt__g.node); /* then each rank alone */
    t_enter = rt__event_clock_init(rt__g.node, t_enter);
    rt__clock_sync(&rt__g.offsets[0], 0);
    rt__g.n_offsets = 1;
    rt__mpi_info_read(rt__g.node);
    rt__callsite_init();
    for (int i = 0; i < RT_R_COUNT; i++) {
        rt__g.last_callsite[i] = OTF2_UNDEFINED_CALLING_CONTEXT;
        rt__g.last_return[i] = NULL;
    }
    rt__g.first_ts = t_enter;
    rt__g.last_ts = t_enter;
    rt__g.next_request_id = 1;
    rt__otf2_err = OTF2_SUCCESS;
    if (rt__ok) {
        rt__g.active = 1;
        rt__enter(region, t_enter, ret);
        rt__leave(region, rt__now());
    }
    rt__install_handlers();
}

/* --- finalize ----------------------------------------------------------------------------- */

/* Closes this rank's event stream. Local definition files (mapping tables and clock offsets)
 * are written later by whoever merges the definitions of all ranks. After a failure nothing is
 * closed (see rt__stop). */
static void rt__close_local(uint64_t *nevents)
{
    *nevents = 0;
    rt__evlog_drain(0); /* what the log still holds */
    if (rt__ok && rt__g.evt) {
        rt__check(OTF2_EvtWriter_GetNumberOfEvents(rt__g.evt, nevents), "counting events");
        rt__otf2_err = OTF2_SUCCESS;
        OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(rt__g.archive, rt__g.evt);
        if (rt__ok && (e != OTF2_SUCCESS || rt__otf2_err != OTF2_SUCCESS))
            rt__fail("writing events", e);
        rt__g.evt = NULL;
    }
    if (rt__ok && rt__g.attrs) {
        OTF2_AttributeList_Delete(rt__g.attrs);
        rt__g.attrs = NULL;
    }
    if (rt__ok)
        rt__check(OTF2_Archive_CloseEvtFiles(rt__g.archive), "closing event files");
    if (rt__ok)
        rt__release_reservation();
}

/* Rough size of the definition files written from these blobs: they hold the same strings and
 * ids, plus the fixed MPI regions and the records' headers. */
static uint64_t rt__defs_estimate(const size_t *lens, int n)
{
    uint64_t total = 64u << 10;
    for (int r = 0; r < n; r++)
        total += 2u * (uint64_t)lens[r] + 4096u;
    return total;
}

/* Writes the definitions of all intact ranks into the archive (rank 0's own, or a scratch
 * archive that is renamed into place). Returns the number of locations written, or -1 with
 * this rank stopped (and the reason recorded) when something failed. */
static int rt__write_defs_checked(OTF2_Archive *a, const unsigned char *const *blobs,
                                  const size_t *lens)
{
    int err = rt__room_statvfs(rt__defs_estimate(lens, rt__g.size));
    if (err) {
        rt__stop(RT_ERRNO_BASE + err, "writing definitions");
        return -1;
    }
    rt__otf2_err = OTF2_SUCCESS;
    int nloc = rt__defs_write(a, rt__g.size, blobs, lens);
    if (nloc < 0 || rt__otf2_err != OTF2_SUCCESS) {
        rt__fail("writing definitions", OTF2_ERROR_PROCESSED_WITH_FAULTS);
        return -1;
    }
    return nloc;
}

static int rt__merge_blobs(const unsigned char *const *blobs, const size_t *lens);

/* Events counted when this rank's event stream was closed by the emergency path. */
static uint64_t rt__saved_nevents;

void rt__finalize(uint64_t t_enter)
{
    if (!rt__g.opened || rt__g.finalized)
        return;
    (void)t_enter;
    /* A rank whose trace was saved by a signal whose handler (the program's) let it live on
     * still takes part in everything collective below, or the other ranks would wait for it
     * forever; its events, closed then, join the archive like the others. */
    rt__g.finalized = 1;
    rt__clock_sync(&rt__g.offsets[1], 1);
    rt__g.n_offsets = 2;
    rt__event_clock_finish(rt__g.node);
    if (rt__g.active) {
        uint64_t t = rt__now();
        rt__g.in_tracer = 1;
        while (rt__g.region_depth > 0) {
            uint32_t id = rt__g.region_stack[--rt__g.region_depth];
            if (id != UINT32_MAX)
                rt__evlog_put(t, RT_EV_LEAVE, 0, id, 0);
        }
        rt__evlog_put(t, RT_EV_LEAVE, 0, RT_R_Finalize, 0);
        rt__out(); /* A signal held meanwhile saves the trace through the emergency path. */
    }
    rt__g.active = 0;
    rt__g.in_tracer = 2;
    uint64_t nevents = rt__saved_nevents;
    if (!rt__g.finished) {
        rt__g.finished = 1;
        rt__close_local(&nevents);
        rt__evlog_free(); /* (the emergency path, in a signal handler, leaves it to the exit) */
    } else {
        char path[4400];
        snprintf(path, sizeof path, "%s/traces/%d.rtdefs", rt__g.dir, rt__g.rank);
        unlink(path); /* The merge below supersedes the emergency one. */
    }
    int ok_before_defs = rt__ok;

    /* Every rank that opened the archive takes part, even one whose tracing failed, so that
     * rank 0 learns which locations are intact and nobody waits forever in the gather. */
    struct rt__buf b = {0};
    rt__defs_pack(&b, rt__ok, nevents, rt__g.last_ts);
    int len = b.oom ? 0 : (int)b.len;
    int *lens = NULL, *displs = NULL, *codes = NULL;
    unsigned char *all = NULL;
    if (rt__g.rank == 0) {
        lens = calloc((size_t)rt__g.size, sizeof *lens);
        displs = calloc((size_t)rt__g.size, sizeof *displs);
        codes = calloc((size_t)rt__g.size, sizeof *codes);
    }
    int code = rt__ok ? 0 : rt__fail_code;
    PMPI_Gather(&code, 1, MPI_INT, codes, 1, MPI_INT, 0, rt__g.comm);
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
        int nloc = -1;
        if (!all || !lens || !codes || !blobs || !blens) {
            rt__fail("collecting definitions", OTF2_ERROR_MEM_ALLOC_FAILED);
        } else {
            for (int r = 0; r < rt__g.size; r++) {
                blobs[r] = lens[r] ? all + displs[r] : NULL;
                blens[r] = (size_t)lens[r];
            }
            /* Rank 0's own archive takes the definitions while it is intact; if rank 0 stopped
             * tracing before, the other ranks are merged into a scratch archive instead. */
            int intact = 0;
            for (int r = 0; r < rt__g.size; r++)
                intact += codes[r] == 0;
            if (rt__ok) {
                nloc = rt__write_defs_checked(rt__g.archive, blobs, blens);
            } else if (!ok_before_defs && intact > 0) {
                nloc = rt__merge_blobs(blobs, blens);
                char lock[4300];
                snprintf(lock, sizeof lock, "%s/.retime.lock", rt__g.dir);
                unlink(lock); /* Nobody else merges at MPI_Finalize. */
            }
        }
        if (rt__ok) {
            rt__otf2_err = OTF2_SUCCESS;
            rt__mpi_info_write(rt__g.archive);
            rt__archive_properties(rt__g.archive);
            if (OTF2_Archive_Close(rt__g.archive) != OTF2_SUCCESS ||
                rt__otf2_err != OTF2_SUCCESS)
                rt__fail("writing the anchor file", OTF2_ERROR_PROCESSED_WITH_FAULTS);
            rt__g.archive = NULL;
        }
        /* One line at most: rank 0's own failure was printed when it happened; otherwise the
         * first other rank that stopped speaks for all that did. */
        int nfail = 0, first = -1;
        for (int r = 0; codes && r < rt__g.size; r++)
            if (codes[r]) {
                nfail++;
                if (first < 0)
                    first = r;
            }
        if (!rt__fail_printed && !rt__ok) {
            rt__print_failure();
        } else if (!rt__fail_printed && first > 0) {
            char line[4700];
            rt__fail_line(line, sizeof line, first, codes[first], NULL);
            if (nloc > 0)
                rt__warn("%s (%d of %d ranks stopped; %s/traces.otf2 holds the other %d)", line,
                         nfail, rt__g.size, rt__g.dir, nloc);
            else
                rt__warn("%s (%d of %d ranks stopped)", line, nfail, rt__g.size);
        }
        free(blobs);
        free(blens);
    } else if (rt__ok) {
        OTF2_Archive_Close(rt__g.archive);
        rt__g.archive = NULL;
    }
    free(all);
    free(lens);
    free(displs);
    free(codes);
    rt__buf_free(&b);
    PMPI_Comm_free(&rt__g.node);
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

/* Removes a scratch archive left by rt__merge_blobs (also one of a rank killed while it
 * merged: every merge runs under the lock, so a scratch archive seen then is abandoned). */
static void rt__remove_scratch(const char *scratch)
{
    char path[4400];
    DIR *d;
    snprintf(path, sizeof path, "%s/traces", scratch);
    if ((d = opendir(path)) != NULL) {
        struct dirent *e;
        char f[4700];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(f, sizeof f, "%s/%s", path, e->d_name);
            unlink(f);
        }
        closedir(d);
    }
    rmdir(path);
    snprintf(path, sizeof path, "%s/traces.def", scratch);
    unlink(path);
    snprintf(path, sizeof path, "%s/traces.otf2", scratch);
    unlink(path);
    rmdir(scratch);
}

static void rt__remove_stale_scratch(void)
{
    DIR *d = opendir(rt__g.dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, ".retime-tmp-", 12) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", rt__g.dir, e->d_name);
        rt__remove_scratch(path);
    }
    closedir(d);
}

/* Reads every rank's emergency blob found in DIR/traces/ into BLOBS (NULL where a rank saved
 * none, or where it cannot be read). */
static void rt__read_blobs(const unsigned char **blobs, size_t *lens)
{
    char path[4400];
    for (int r = 0; r < rt__g.size; r++) {
        snprintf(path, sizeof path, "%s/traces/%d.rtdefs", rt__g.dir, r);
        lens[r] = 0;
        blobs[r] = rt__read_file(path, &lens[r]);
    }
}

/* Merges the ranks' blobs into fresh global and local definitions and an anchor, written into a
 * scratch archive and renamed into place, under an flock so that concurrently dying ranks take
 * turns. GIVEN holds the blobs (MPI_Finalize gathered them), or is NULL: then the blobs saved in
 * DIR/traces/ are read under the lock, never before it. Blobs are only ever added (each renamed
 * into place before its rank merges), so every turn merges at least the ranks of the turn
 * before: each yields a readable archive that never holds fewer ranks than the one it replaces,
 * and the last one includes every rank that managed to save. Used by dying ranks, and at
 * MPI_Finalize when rank 0's own archive failed. Returns the number of locations, or -1. */
static int rt__merge_blobs(const unsigned char *const *given, const size_t *given_lens)
{
    char lock[4300], scratch[4300], path[4400], dst[4400];
    int P = rt__g.size, nloc = -1;
    const unsigned char **read = NULL;
    size_t *read_lens = NULL;
    const unsigned char *const *blobs = given;
    const size_t *lens = given_lens;
    if (rt__merge_delay_ms)
        usleep(rt__merge_delay_ms * 1000u);
    snprintf(lock, sizeof lock, "%s/.retime.lock", rt__g.dir);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0 || flock(fd, LOCK_EX) != 0)
        goto out;
    if (!given) {
        read = calloc((size_t)P, sizeof *read);
        read_lens = calloc((size_t)P, sizeof *read_lens);
        if (!read || !read_lens)
            goto out;
        rt__read_blobs(read, read_lens);
        blobs = read;
        lens = read_lens;
    }
    rt__remove_stale_scratch();
    snprintf(scratch, sizeof scratch, "%s/.retime-tmp-%d", rt__g.dir, rt__g.rank);
    if (rt__room_statvfs(rt__defs_estimate(lens, P)) == 0) {
        rt__otf2_err = OTF2_SUCCESS;
        OTF2_Archive *a = OTF2_Archive_Open(scratch, "traces", OTF2_FILEMODE_WRITE, RT_EVT_CHUNK,
                                            RT_DEF_CHUNK, OTF2_SUBSTRATE_POSIX,
                                            OTF2_COMPRESSION_NONE);
        if (a && OTF2_Archive_SetSerialCollectiveCallbacks(a) == OTF2_SUCCESS) {
            OTF2_Archive_SetFlushCallbacks(a, &rt__flush_callbacks, NULL);
            OTF2_Archive_SetCreator(a, "retime-trace (emergency)");
            rt__archive_properties(a);
            nloc = rt__defs_write(a, P, blobs, lens);
        }
        if (a && OTF2_Archive_Close(a) != OTF2_SUCCESS)
            nloc = -1;
        if (rt__otf2_err != OTF2_SUCCESS)
            nloc = -1;
    }
    /* Local definition files first, the anchor last: a reader never sees an anchor that names
     * a location whose mapping tables are not in place yet. */
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
    rt__remove_scratch(scratch);
out:
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
    for (int r = 0; read && r < P; r++)
        free((void *)read[r]);
    free(read);
    free(read_lens);
    return nloc;
}

/* Merges every rank's emergency blob found in DIR/traces/ (read under the merge lock). */
static int rt__emergency_anchor(void)
{
    return rt__merge_blobs(NULL, NULL);
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
    rt__g.in_tracer = 2;
    if (rt__g.active) {
        /* Close what is open so that every Enter has its Leave; readers rely on the nesting. */
        uint64_t t = rt__now();
        if (rt__g.cur_mpi_region >= 0)
            rt__evlog_put(t, RT_EV_LEAVE, 0, (uint32_t)rt__g.cur_mpi_region, 0);
        while (rt__g.active && rt__g.region_depth > 0) {
            uint32_t id = rt__g.region_stack[--rt__g.region_depth];
            if (id != UINT32_MAX)
                rt__evlog_put(t, RT_EV_LEAVE, 0, id, 0);
        }
    }
    rt__g.active = 0;
    /* A second clock-offset record keeps the pair structure readers expect (init and end). */
    rt__g.offsets[1] = rt__g.offsets[0];
    rt__g.offsets[1].time = rt__clock();
    rt__g.n_offsets = 2;
    uint64_t nevents = 0;
    rt__close_local(&nevents);
    rt__saved_nevents = nevents;
    /* A failure seen before (a full disk) has not been reported yet on ranks other than 0. */
    rt__print_failure();

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
    /* Said at once: mpirun sends SIGKILL about a second after SIGTERM (OpenMPI's
     * odls_base_sigkill_timeout), and a loaded machine may not get through the wait below. */
    /* Ranks save one after the other, each adding its own: a count below the run's size is not a
     * loss, only how far the saves had got (the last one holds every rank that saved). */
    if (nloc > 0)
        rt__warn("rank %d: %s; saved: %s/traces.otf2 holds %d of %d ranks after this save (each rank "
                 "that stops adds its own)", rt__g.rank, why, rt__g.dir, nloc, rt__g.size);
    else
        rt__warn("rank %d: %s; could not save this rank's trace in %s", rt__g.rank, why,
                 rt__g.dir);
    /* mpirun kills the remaining ranks soon after the first one dies, so a rank that was
     * signalled stays a little while and merges again as long as peers keep adding their blobs:
     * the last merge before the deadline then holds every rank that got this far. */
    int first = nloc;
    for (int i = 0; wait_for_peers && nloc > 0 && nloc < rt__g.size && i < 100; i++) {
        usleep(10000);
        int n = rt__count_blobs();
        if (n > nloc)
            nloc = rt__emergency_anchor();
    }
    if (nloc > first)
        rt__warn("rank %d: %s/traces.otf2 holds %d of %d ranks now", rt__g.rank, rt__g.dir, nloc, rt__g.size);
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
    uint64_t t = rt__now(), cpu;
    if (rt__cpu_due(t) && rt__cpu_read(t, &cpu))
        *rt__evlog_put(t, RT_EV_ENTER, RT_EVF_CPU, id, 1) = cpu;
    else
        rt__evlog_put(t, RT_EV_ENTER, 0, id, 0);
    rt__out();
}

RT_EXPORT void rt_region_end(void)
{
    if (!rt__g.active || rt__g.region_depth <= 0)
        return;
    uint32_t id = rt__g.region_stack[--rt__g.region_depth];
    if (id == UINT32_MAX)
        return;
    rt__g.in_tracer = 1;
    uint64_t t = rt__now(), cpu;
    if (rt__cpu_due(t) && rt__cpu_read(t, &cpu))
        *rt__evlog_put(t, RT_EV_LEAVE, RT_EVF_CPU, id, 1) = cpu;
    else
        rt__evlog_put(t, RT_EV_LEAVE, 0, id, 0);
    rt__evlog_after_call();
    rt__out();
}
