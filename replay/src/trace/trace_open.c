/* SPDX-License-Identifier: MIT */
/*
 * Opening an OTF2 archive into an in-memory trace (rt_trace_open), and the trace's public API.
 * Opening goes in steps: the anchor file checked, the global definitions read and turned into
 * tables (trace_defs.c), this process's rows chosen, their locations' events read
 * (trace_reader.c) by several threads for a large trace, each with its own OTF2 reader over a
 * range of rows (read_events), each rank's joins given its threads' work (match_teams), and the
 * events' time span checked.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* DT_* entry types of readdir */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "map.h"
#include "sidefile.h"
#include "threads_env.h"
#include "reader_internal.h"

static OTF2_ErrorCode otf2_quiet(void *ud, const char *file, uint64_t line, const char *function,
                                 OTF2_ErrorCode code, const char *fmt, va_list va)
{
    /* Library code never prints: OTF2's own messages are dropped, its codes are reported. */
    (void)ud; (void)file; (void)line; (void)function; (void)fmt; (void)va;
    return code;
}

int rt__rd_fail(struct reader *r, int code, const char *fmt, ...)
{
    if (!r->failed) {
        char buf[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        rt_error_set(r->err, code, "%s: %s", r->path, buf);
        r->failed = code;
    }
    return r->failed;
}

static int resolve_path(const char *path, char **anchor, rt_error *err)
{
    struct stat st;
    if (!path || !*path)
        return rt_error_set(err, RT_EINVAL, "no trace path given");
    if (stat(path, &st) != 0)
        return rt_error_set(err, RT_ENOTFOUND, "%s: %s", path, strerror(errno));
    size_t n = strlen(path);
    if (S_ISDIR(st.st_mode)) {
        *anchor = malloc(n + 16);
        if (!*anchor)
            return rt_error_set(err, RT_ENOMEM, "out of memory");
        snprintf(*anchor, n + 16, "%s%straces.otf2", path, path[n - 1] == '/' ? "" : "/");
        if (stat(*anchor, &st) != 0)
            return rt_error_set(err, RT_ENOTFOUND, "%s: no OTF2 anchor file traces.otf2 in this directory", path);
    } else {
        *anchor = strdup(path);
        if (!*anchor)
            return rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    if (!S_ISREG(st.st_mode))
        return rt_error_set(err, RT_ENOTOTF2, "%s: not a regular file", *anchor);
    /* Check the anchor's magic before OTF2 sees it: a clear message for a file of another kind. */
    FILE *f = fopen(*anchor, "rb");
    unsigned char magic[6] = {0};
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f)
        fclose(f);
    if (!f)
        return rt_error_set(err, RT_EIO, "%s: %s", *anchor, strerror(errno));
    if (got < sizeof magic || memcmp(magic + 2, "OTF2", 4) != 0)
        return rt_error_set(err, RT_ENOTOTF2, "%s: not an OTF2 anchor file (no OTF2 signature)", *anchor);
    return RT_OK;
}

/* The path of archive member DIR/<stem><tail> (the anchor is DIR/<stem>.otf2) into @p path (of
 * @p n bytes); 0 when it does not fit. */
static int member_path(const char *anchor, const char *tail, char *path, size_t n)
{
    size_t len = strlen(anchor);
    if (len > 5 && !strcmp(anchor + len - 5, ".otf2"))
        len -= 5;
    return snprintf(path, n, "%.*s%s", (int)len, anchor, tail) < (int)n;
}

/* Lists the entries of the archive's location directory (DIR/<stem>/) that are not regular files
 * in r->odd: usually none. One pass over the directory, whose entries come with their types,
 * instead of a stat of each member, which cost 3 % of reading a 512-rank trace of 10^6 events.
 * Without the directory there is nothing to list: OTF2 then finds the members missing. */
static int scan_members(struct reader *r)
{
    char path[4096];
    if (!member_path(r->path, "", path, sizeof path))
        return RT_OK;
    DIR *d = opendir(path);
    if (!d)
        return RT_OK;
    int dfd = dirfd(d), rc = RT_OK;
    struct dirent *e;
    while (rc == RT_OK && (e = readdir(d))) {
        struct stat st;
        if (e->d_type == DT_REG || e->d_name[0] == '.') /* ".", "..": never a member */
            continue;
        if (fstatat(dfd, e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode)) /* a link to a regular file */
            continue;
        char **no = realloc(r->odd, (r->nodd + 1) * sizeof *no);
        if (!no || !(no[r->nodd] = strdup(e->d_name))) {
            if (no)
                r->odd = no;
            rc = rt__rd_fail(r, RT_ENOMEM, "out of memory");
            break;
        }
        r->odd = no;
        r->nodd++;
    }
    closedir(d);
    return rc;
}

int rt__rd_member(struct reader *r, const char *tail, const char *where)
{
    char path[4096];
    struct stat st;
    if (tail[0] == '/') { /* in the location directory: only the entries scan_members listed */
        uint32_t i = 0;
        while (i < r->nodd && strcmp(r->odd[i], tail + 1))
            i++;
        if (i == r->nodd)
            return RT_OK;
    }
    /* A member that is missing, or whose path is too long, is left to OTF2 and rt__rd_file_problem. */
    if (!member_path(r->path, tail, path, sizeof path) || stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return RT_OK;
    return rt__rd_fail(r, RT_EIO, "%s%s is a %s, not a regular file (an archive member must be one)", where, path,
                       rt__file_kind(st.st_mode));
}

int rt__rd_member_empty(const char *anchor, const char *tail)
{
    char path[4096];
    struct stat st;
    return member_path(anchor, tail, path, sizeof path) && (stat(path, &st) != 0 || st.st_size == 0);
}

/* What is wrong with the archive file DIR/<stem><tail> (the anchor is DIR/<stem>.otf2) that OTF2
 * would not open: missing, empty, or there but unreadable, which points at the anchor too. */
const char *rt__rd_file_problem(const char *anchor, const char *tail, char *buf, size_t n)
{
    char path[4096];
    struct stat st;
    if (!member_path(anchor, tail, path, sizeof path))
        return "path too long";
    if (stat(path, &st) != 0)
        snprintf(buf, n, "%s is missing", path);
    else if (st.st_size == 0)
        snprintf(buf, n, "%s is empty", path);
    else
        snprintf(buf, n, "%s exists (%lld bytes) but OTF2 cannot read it (corrupt file or anchor?)", path,
                 (long long)st.st_size);
    return buf;
}

/*
 * Reading the locations' events in parallel. Each worker has its own OTF2 reader over a
 * contiguous range of rows (OTF2 readers of one archive share nothing, so no locking is needed)
 * and its own copy of the reader state: the definition tables are shared read-only, the
 * per-location state, error record and counters are its own. Every row is read by exactly one
 * worker with the same callbacks, so the trace does not depend on the number of workers; on
 * failure the error of the lowest failing row is kept, which is the one a serial read reports.
 * The same split by location is what a distributed replay would give each process.
 */
#define READ_MAX_THREADS 8
#define READ_MIN_EVENTS (1u << 17) /* below this (declared events), one thread: not worth a reader */

struct read_worker {
    struct reader r;
    rt_error err;
    const char *anchor;
    OTF2_Reader *rd;      /* the worker's own reader, NULL until opened */
    int own;              /* rd was opened here (worker 0 uses the caller's) */
    uint32_t first, end;  /* rows [first, end) */
    uint32_t failed_row;  /* UINT32_MAX: none */
    int rc;
    pthread_t th;
};

/* Selects rows [first, end) and their threads for reading. */
static void select_rows(const struct reader *r, OTF2_Reader *rd, uint32_t first, uint32_t end)
{
    for (uint32_t i = first; i < end; i++) {
        OTF2_Reader_SelectLocation(rd, r->t->rows[i].location);
        for (uint32_t k = r->thr_at[i]; k < r->thr_at[i + 1]; k++)
            OTF2_Reader_SelectLocation(rd, r->thr[k].location);
    }
}

static int worker_open(struct read_worker *w)
{
    w->rd = OTF2_Reader_Open(w->anchor);
    w->own = 1;
    if (!w->rd)
        return rt__rd_fail(&w->r, RT_ENOTOTF2, "OTF2 cannot open this anchor file (wrong version or corrupt)");
    if (OTF2_Reader_SetSerialCollectiveCallbacks(w->rd) != OTF2_SUCCESS)
        return rt__rd_fail(&w->r, RT_ECORRUPT, "OTF2 cannot set up its reader");
    select_rows(&w->r, w->rd, w->first, w->end);
    OTF2_Reader_OpenDefFiles(w->rd); /* optional, as in rt_trace_open */
    if (OTF2_Reader_OpenEvtFiles(w->rd) != OTF2_SUCCESS)
        return rt__rd_fail(&w->r, RT_ECORRUPT, "cannot open the event files");
    return RT_OK;
}

/* Gives each of rank @p row's joins the work of its slowest other thread in that team: the
 * latest arrival, from the fork, of a team span that began after the rank's previous join and
 * not after this one. Not only those that began after the fork: a worker's first record of a
 * team may come a few us before the master's fork record (threads' clocks and OMPT's callbacks
 * are not ordered across threads; seen with nested teams), and it is the team's work all the
 * same. Then the spans are freed. */
static int match_teams(struct reader *r, uint32_t row)
{
    struct rt__row *R = &r->t->rows[row];
    uint32_t k0 = r->thr_at[row], k1 = r->thr_at[row + 1];
    if (k1 == k0)
        return RT_OK;
    uint64_t *cursor = calloc(k1 - k0, sizeof *cursor); /* per thread: its first span not yet past */
    if (!cursor)
        return rt__rd_fail(r, RT_ENOMEM, "out of memory matching thread teams of rank %u", row);
    for (uint64_t j = 0; j < R->nevents; j++) {
        struct rt_event *e = &R->events[j];
        if (e->kind != RT_EV_JOIN || e->ref >= R->nevents)
            continue;
        rt_time_ns f = R->events[e->ref].time, w = 0;
        for (uint32_t k = k0; k < k1; k++) {
            const struct thread_loc *th = &r->thr[k];
            uint64_t c = cursor[k - k0]; /* past the spans of the rank's earlier teams */
            for (; c < th->nspans && th->spans[c].begin <= e->time; c++)
                if (th->spans[c].arrive - f > w)
                    w = th->spans[c].arrive - f;
            cursor[k - k0] = c;
        }
        rt__row_payload(R, j)->work_ns = (uint64_t)w; /* a JOIN has one */
    }
    free(cursor);
    for (uint32_t k = k0; k < k1; k++) {
        free(r->thr[k].spans);
        r->thr[k].spans = NULL;
        r->thr[k].nspans = r->thr[k].capspans = 0;
    }
    return RT_OK;
}

static void *worker_main(void *arg)
{
    struct read_worker *w = arg;
    w->failed_row = UINT32_MAX;
    w->rc = w->rd ? RT_OK : worker_open(w);
    if (w->rc) {
        w->failed_row = w->first;
        return NULL;
    }
    for (uint32_t i = w->first; i < w->end; i++) {
        w->rc = rt__rd_location(&w->r, w->rd, i);
        for (uint32_t k = w->r.thr_at[i]; !w->rc && k < w->r.thr_at[i + 1]; k++)
            w->rc = rt__rd_thread(&w->r, w->rd, &w->r.thr[k]);
        if (w->rc) {
            w->failed_row = i;
            break;
        }
        w->rc = match_teams(&w->r, i);
        if (w->rc) {
            w->failed_row = i;
            break;
        }
    }
    return NULL;
}

/* How many readers: RETIME_READ_THREADS if set (1 = serial), else the online CPUs, at most
 * READ_MAX_THREADS and one per row, and one for small traces. */
static uint32_t read_threads(const rt_trace *t)
{
    uint64_t declared = 0;
    for (uint32_t i = 0; i < t->nrows; i++)
        declared += t->rows[i].nevents;
    return rt__threads_for("RETIME_READ_THREADS", declared, READ_MIN_EVENTS, READ_MAX_THREADS, t->nrows);
}

void rt__rd_copy(struct reader *w, const struct reader *r, rt_error *err)
{
    *w = *r; /* the definition tables, shared read-only */
    w->err = err;
    w->failed = 0;
    w->requests = (struct req_table){0};
    memset(&w->stats, 0, sizeof w->stats);
    w->memory = 0;
    w->open = NULL; /* each reader its own count of open regions */
    w->last_callsite = NULL;
    w->nopen = 0;
}

void rt__rd_copy_free(struct reader *w)
{
    req_free(&w->requests);
    free(w->open);
    free(w->last_callsite);
    w->open = NULL;
    w->last_callsite = NULL;
}

void rt__rd_merge(rt_trace *t, const struct reader *x)
{
    struct rt_trace_stats *a = &t->stats;
    const struct rt_trace_stats *b = &x->stats;
    a->events += b->events;
    a->otf2_events += b->otf2_events;
    a->sends += b->sends;
    a->isends += b->isends;
    a->recvs += b->recvs;
    a->irecvs += b->irecvs;
    a->collectives += b->collectives;
    a->nb_collectives += b->nb_collectives;
    a->bytes_sent += b->bytes_sent;
    a->orphan_completions += b->orphan_completions;
    a->dropped_requests += b->dropped_requests;
    a->uncompleted_isends += b->uncompleted_isends;
    rt__clock_offsets_merge(&a->clock, &b->clock);
    a->thread_records += b->thread_records;
    a->forks += b->forks;
    a->rma_records += b->rma_records;
    a->measured_collectives += b->measured_collectives;
    a->unknown_coll_ops += b->unknown_coll_ops;
    if (b->unknown_records && !a->unknown_records) { /* the first in row order, as a serial read finds it */
        t->unknown_location = x->unknown_location;
        t->unknown_record = x->unknown_record;
    }
    a->unknown_records += b->unknown_records;
    a->missing_sends += b->missing_sends;
    a->missing_recvs += b->missing_recvs;
    a->missing_colls += b->missing_colls;
    a->missing_roots += b->missing_roots;
    for (int kind = 0; kind < RT_SKIP_KINDS; kind++) {
        a->skipped[kind].records += b->skipped[kind].records;
        rt__skip_worse(&a->skipped[kind], &b->skipped[kind]);
    }
    t->memory += x->memory;
}

/* Reads every row's events: rows are split into contiguous ranges of about equal declared event
 * counts; worker 0 runs on this thread with the caller's reader @p rd, which has the rows of
 * range 0 selected and its files open (see select_rows). */
static int read_events(struct reader *r, OTF2_Reader *rd, uint32_t nw, const uint32_t *bounds)
{
    struct read_worker w[READ_MAX_THREADS];
    int rc = RT_OK;
    uint32_t started = 0;
    memset(w, 0, sizeof w);
    for (uint32_t k = 0; k < nw; k++) {
        rt__rd_copy(&w[k].r, r, &w[k].err);
        w[k].anchor = r->path;
        w[k].first = bounds[k];
        w[k].end = bounds[k + 1];
        w[k].rd = k == 0 ? rd : NULL;
    }
    for (uint32_t k = 1; k < nw; k++, started++) {
        if (pthread_create(&w[k].th, NULL, worker_main, &w[k]) != 0)
            break;
    }
    worker_main(&w[0]);
    for (uint32_t k = 1; k <= started; k++)
        pthread_join(w[k].th, NULL);
    for (uint32_t k = started + 1; k < nw; k++) /* threads that could not start: read here */
        worker_main(&w[k]);
    struct read_worker *bad = NULL;
    for (uint32_t k = 0; k < nw; k++) {
        struct read_worker *x = &w[k];
        if (x->rc && (!bad || x->failed_row < bad->failed_row))
            bad = x;
        rt__rd_merge(r->t, &x->r);
        rt__rd_copy_free(&x->r);
        if (x->own && x->rd) {
            OTF2_Reader_CloseEvtFiles(x->rd);
            OTF2_Reader_CloseDefFiles(x->rd);
            OTF2_Reader_Close(x->rd);
        }
    }
    if (bad) {
        if (r->err)
            *r->err = bad->err;
        rc = r->failed = bad->rc;
    }
    return rc;
}

/* Splits rows [first, end) into @p n contiguous ranges of about equal declared event counts,
 * each with at least one row while there are rows to give: bounds[0..n]. */
static void split_rows(const rt_trace *t, uint32_t first, uint32_t end, uint32_t n, uint32_t *bounds)
{
    uint64_t total = 0, acc = 0;
    uint32_t rows = end - first, k = 1;
    for (uint32_t i = first; i < end; i++)
        total += t->rows[i].nevents;
    bounds[0] = first;
    for (uint32_t i = first; i < end && k < n; i++) {
        acc += t->rows[i].nevents;
        uint32_t left = end - (i + 1); /* rows after i */
        /* close range k-1 after row i once it holds its share, leaving a row for each later range */
        if ((acc * n >= total * k && left >= n - k) || left == n - k || (rows < n && i + 1 - first == k))
            bounds[k++] = i + 1;
    }
    for (; k <= n; k++)
        bounds[k] = end;
}

/* Opens the archive's anchor r->path with OTF2 (errors quiet) and checks it can be read; *rdp is
 * set as soon as there is a reader to close, also on failure. */
static int open_archive(struct reader *r, OTF2_Reader **rdp)
{
    OTF2_Error_RegisterCallback(otf2_quiet, NULL);
    OTF2_Reader *rd = *rdp = OTF2_Reader_Open(r->path);
    if (!rd)
        return rt__rd_fail(r, RT_ENOTOTF2, "OTF2 cannot open this anchor file (wrong version or corrupt)");
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS)
        return rt__rd_fail(r, RT_ECORRUPT, "OTF2 cannot set up its reader");
    uint64_t nloc = 0;
    OTF2_ErrorCode ec = OTF2_Reader_GetNumberOfLocations(rd, &nloc);
    if (ec != OTF2_SUCCESS)
        return rt__rd_fail(r, RT_ECORRUPT, "anchor file unreadable: %s", OTF2_Error_GetDescription(ec));
    /* retime-trace's emergency save (a signal, MPI_Abort, an exit without MPI_Finalize) says so
     * in the archive's creator: the run stopped before its ranks did. */
    char *creator = NULL;
    if (OTF2_Reader_GetCreator(rd, &creator) == OTF2_SUCCESS && creator) {
        r->t->cut_short = strstr(creator, "retime-trace (emergency)") != NULL;
        free(creator);
    }
    /* The MPI library the run used (instrument/src/mpi_info.c); absent in other traces. */
    struct rt_trace_mpi *m = &r->t->mpi;
    char *v = NULL;
    if (OTF2_Reader_GetProperty(rd, "RETIME::MPI_LIBRARY", &v) == OTF2_SUCCESS)
        m->library = v;
    if (OTF2_Reader_GetProperty(rd, "RETIME::MPI_EAGER_CVARS", &v) == OTF2_SUCCESS)
        m->eager_cvars = v;
    if (OTF2_Reader_GetProperty(rd, "RETIME::EAGER_LIMIT_SOURCE", &v) == OTF2_SUCCESS)
        m->eager_source = v;
    if (OTF2_Reader_GetProperty(rd, "RETIME::CLOCK", &v) == OTF2_SUCCESS)
        m->clock = v;
    /* retime-trace writes an MPI call's call site only when it differs from the last of its
     * region on the rank (instrument/src/core.c, rt__enter). */
    if (OTF2_Reader_GetProperty(rd, "RETIME::CALLSITE_REPEATS", &v) == OTF2_SUCCESS) {
        r->callsite_repeats = !strcmp(v, "omitted");
        free(v);
    }
    static const char *const counts[2] = {"RETIME::NODE_RANKS_MAX", "RETIME::NODE_CPUS_MIN"};
    for (int i = 0; i < 2; i++)
        if (OTF2_Reader_GetProperty(rd, counts[i], &v) == OTF2_SUCCESS) {
            char *end = NULL;
            unsigned long n = strtoul(v, &end, 10);
            if (end != v && !*end && n <= UINT32_MAX)
                *(i ? &m->node_cpus : &m->node_ranks) = (uint32_t)n;
            free(v);
        }
    if (OTF2_Reader_GetProperty(rd, "RETIME::EAGER_LIMIT", &v) == OTF2_SUCCESS) {
        char *end = NULL;
        unsigned long long e = strtoull(v, &end, 10);
        if (end != v && !*end && e <= RT_MAX_BYTES) /* else ignored: not a size */
            m->eager_limit = (rt_bytes)e;
        free(v);
    }
    return RT_OK;
}

/* What the event callbacks need to know of the definitions before the first event. */
static void prepare_events(struct reader *r)
{
    /* push's fast range for a 1 ns clock: ts - global_offset in [0, RT_MAX_TIME_NS); 0 (none)
     * otherwise, or when global_offset + RT_MAX_TIME_NS - 1 would not fit (then push_slow checks). */
    r->fast_hi = r->timer_resolution == 1000000000u && r->global_offset <= UINT64_MAX - (RT_MAX_TIME_NS - 1)
                     ? r->global_offset + (RT_MAX_TIME_NS - 1) : 0;
    r->have_callsites = r->callsite_of.count != 0;
}

/* This process's rows: all, or a distributed replay's part @p part of @p nparts, split by the
 * rows' declared event counts (Location definitions). The other rows' events are not read. */
static int select_part(struct reader *r, uint32_t nparts, uint32_t part)
{
    rt_trace *t = r->t;
    uint32_t first = 0, end = t->nrows;
    if (nparts > 1) {
        uint32_t *pb = malloc(((size_t)nparts + 1) * sizeof *pb);
        if (!pb)
            return rt__rd_fail(r, RT_ENOMEM, "out of memory");
        split_rows(t, 0, t->nrows, nparts, pb);
        first = pb[part];
        end = pb[part + 1];
        free(pb);
    }
    t->part_first = first;
    t->part_end = end;
    for (uint32_t i = 0; i < t->nrows; i++) /* the others' events are not read: none here */
        if (i < first || i >= end)
            t->rows[i].nevents = 0;
    return RT_OK;
}

/* Reads the events of this process's rows, split among the readers by the rows' declared event
 * counts; reader 0 is this thread's, with @p rd. */
static int read_part(struct reader *r, OTF2_Reader *rd)
{
    rt_trace *t = r->t;
    uint32_t first = t->part_first, end = t->part_end;
    uint32_t nw = read_threads(t), bounds[READ_MAX_THREADS + 1];
    if (nw > end - first)
        nw = end - first ? end - first : 1;
    split_rows(t, first, end, nw, bounds);
    if (end == first) /* a part may hold no rows when there are more parts than ranks */
        return RT_OK;
    select_rows(r, rd, bounds[0], bounds[1]);
    /* Local definition files are optional in OTF2: without them there is simply nothing to map. */
    OTF2_Reader_OpenDefFiles(rd);
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS)
        return rt__rd_fail(r, RT_ECORRUPT, "cannot open the event files");
    return read_events(r, rd, nw, bounds);
}

/* The events' time span: a whole trace must hold events, within the span the replay counts. */
static int check_span(struct reader *r, uint32_t nparts)
{
    rt_trace *t = r->t;
    rt_time_ns lo, hi;
    uint32_t lo_row, hi_row;
    int rc;
    rt_trace_time_range(t, &lo, &lo_row, &hi, &hi_row);
    if (t->stats.events == 0 && nparts <= 1)
        return rt__rd_fail(r, RT_ECORRUPT, "the trace holds no events");
    if (nparts <= 1 && (rc = rt_trace_check_span(t, lo, lo_row, hi, hi_row, r->err)))
        return r->failed = rc;
    t->stats.span_ns = hi >= lo ? hi - lo : 0; /* 0: a part without events */
    return RT_OK;
}

/* Frees what the read kept besides the trace: the definition tables, the requests, the threads. */
void rt__rd_free(struct reader *r)
{
    rt__map_free(&r->strings);
    ref_free(&r->regions);
    free(r->region_flags);
    rt__map_free(&r->rows);
    rt__map_free(&r->groups);
    ref_free(&r->comms);
    rt__map_free(&r->scls);
    rt__map_free(&r->ctxs);
    rt__map_free(&r->callsite_of);
    req_free(&r->requests);
    for (uint32_t i = 0; i < r->ngroups; i++)
        free(r->groupv[i].members);
    free(r->groupv);
    free(r->ctxv);
    free(r->sclv);
    free(r->comm_group);
    free(r->comm_parent);
    for (uint32_t k = 0; k < r->nthr; k++)
        free(r->thr[k].spans);
    free(r->thr);
    free(r->thr_at);
    free(r->locv);
    for (uint32_t i = 0; i < r->nodd; i++)
        free(r->odd[i]);
    free(r->odd);
}

/* The kinds counted elsewhere (by location, and the older counters) in the coverage's table. */
static void count_skipped(rt_trace *t)
{
    struct rt_trace_stats *st = &t->stats;
    st->skipped[RT_SKIP_ACCEL].records = st->accel_records;
    st->skipped[RT_SKIP_RMA].records = st->rma_records;
    st->skipped[RT_SKIP_UNKNOWN].records = st->unknown_records;
    st->skipped[RT_SKIP_METRIC].records += st->metric_records;
}

/* The rank rows that read no events although their definitions declared some, when another CPU
 * thread of their process holds events (a rank location with a dishonest count): their location
 * ids, sorted, in *@p out (malloc'd; NULL and 0 when there are none). RT_OK or RT_ENOMEM. */
static int empty_ranks(const struct reader *r, const uint64_t *declared, uint64_t **out, uint32_t *n)
{
    const rt_trace *t = r->t;
    *out = NULL;
    *n = 0;
    for (uint32_t i = 0; i < t->nrows; i++) {
        if (t->rows[i].nevents || !declared[i])
            continue;
        int other = 0; /* does a thread of its process hold events? */
        for (uint32_t k = 0; k < r->nthr && !other; k++)
            other = r->thr[k].row == i && r->thr[k].nevents;
        if (!other)
            continue;
        if (!*out && !(*out = malloc((size_t)t->nrows * sizeof **out)))
            return RT_ENOMEM;
        (*out)[(*n)++] = t->rows[i].location; /* rows are sorted by location */
    }
    return RT_OK;
}

int rt__rd_finish(struct reader *r, uint32_t nparts)
{
    count_skipped(r->t);
    return check_span(r, nparts);
}

#define OPEN_AGAIN 1 /* open_once: read again (not an rt_error code: those are negative) */

/* Opens the trace once; with @p found_empty (sorted rank locations a first read found empty,
 * empty_ranks) classifies them as empty. *@p again: the read found such ranks (the trace is then
 * not kept: open it again with them). */
static int open_once(const char *path, unsigned flags, uint32_t nparts, uint32_t part, const uint64_t *found_empty,
                     uint32_t nfound_empty, uint64_t **again, uint32_t *nagain, rt_trace **out, rt_error *err)
{
    struct reader r;
    OTF2_Reader *rd = NULL;
    char *anchor = NULL;
    uint64_t *declared = NULL;
    int rc;
    memset(&r, 0, sizeof r);
    *out = NULL;
    r.found_empty = found_empty;
    r.nfound_empty = nfound_empty;
    rc = resolve_path(path, &anchor, err);
    if (rc)
        goto done;
    r.path = anchor;
    r.flags = flags;
    r.err = err;
    r.t = calloc(1, sizeof *r.t);
    if (!r.t) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    r.t->path = anchor;
    rc = scan_members(&r);
    if (rc)
        goto done;
    rc = open_archive(&r, &rd);
    if (rc)
        goto done;
    rc = rt__rd_definitions(&r, rd);
    if (rc)
        goto done;
    rc = rt__rd_tables(&r);
    if (rc)
        goto done;
    prepare_events(&r);
    rc = select_part(&r, nparts, part);
    if (rc)
        goto done;
    if (flags & RT_TRACE_STREAM) { /* the events are read as the replay goes (trace_stream.c) */
        rc = nparts > 1 ? rt__rd_fail(&r, RT_EINVAL, "a streamed read is one process's, not a part of a distributed one")
                        : rt__stream_start(&r, &rd);
        goto done;
    }
    /* the rows' declared counts, to tell a rank that promised events and held none (one process:
     * a part reads only its rows, and every process must classify alike) */
    if (nparts <= 1 && !found_empty && r.nthr) {
        if (!(declared = malloc((r.t->nrows ? r.t->nrows : 1) * sizeof *declared))) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto done;
        }
        for (uint32_t i = 0; i < r.t->nrows; i++)
            declared[i] = r.t->rows[i].nevents;
    }
    rc = read_part(&r, rd);
    if (rc)
        goto done;
    if (declared && (rc = empty_ranks(&r, declared, again, nagain)) != RT_OK) {
        rc = rt_error_set(err, rc, "out of memory");
        goto done;
    }
    if (*nagain) {
        rc = OPEN_AGAIN;
        goto done;
    }
    rc = rt__rd_finish(&r, nparts);
done:
    free(declared);
    if (rd) {
        OTF2_Reader_CloseEvtFiles(rd);
        OTF2_Reader_CloseDefFiles(rd);
        OTF2_Reader_Close(rd);
    }
    rt__rd_free(&r);
    if (rc == RT_OK) {
        *out = r.t;
    } else {
        if (r.t)
            rt_trace_close(r.t);
        else
            free(anchor);
    }
    return rc;
}

/* A rank location whose definition promised events and whose file holds none, in a process whose
 * other threads hold them (APEX declares 79 events for every location; issue #47 item 6), is read
 * as empty: the trace is read again, classified by what the first read found, not by the counts. */
static int open_trace(const char *path, unsigned flags, uint32_t nparts, uint32_t part, rt_trace **out, rt_error *err)
{
    uint64_t *found = NULL;
    uint32_t nfound = 0, none = 0;
    uint64_t *unused = NULL;
    int rc = open_once(path, flags, nparts, part, NULL, 0, &found, &nfound, out, err);
    if (rc == OPEN_AGAIN)
        rc = open_once(path, flags, nparts, part, found, nfound, &unused, &none, out, err);
    free(found);
    free(unused);
    return rc;
}

int rt_trace_open(const char *path, rt_trace **out, rt_error *err)
{
    return open_trace(path, 0, 1, 0, out, err);
}

int rt_trace_open_flags(const char *path, unsigned flags, rt_trace **out, rt_error *err)
{
    return open_trace(path, flags, 1, 0, out, err);
}

int rt_trace_open_part_flags(const char *path, unsigned flags, uint32_t nparts, uint32_t part, rt_trace **out,
                             rt_error *err)
{
    *out = NULL;
    if (nparts == 0 || part >= nparts)
        return rt_error_set(err, RT_EINVAL, "part %u of %u does not exist", part, nparts);
    return open_trace(path, flags, nparts, part, out, err);
}

int rt_trace_open_part(const char *path, uint32_t nparts, uint32_t part, rt_trace **out, rt_error *err)
{
    return rt_trace_open_part_flags(path, 0, nparts, part, out, err);
}

void rt_trace_time_range(const rt_trace *t, rt_time_ns *lo, uint32_t *lo_row, rt_time_ns *hi, uint32_t *hi_row)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    *lo_row = *hi_row = RT_NONE;
    for (uint32_t i = 0; i < t->nrows; i++) {
        const struct rt__row *row = &t->rows[i];
        if (!row->nevents)
            continue;
        /* (a streamed row no longer holds its first events; a whole one has them, clock fix included) */
        rt_time_ns first = t->stream ? row->first_time : row->events[0].time;
        rt_time_ns last = t->stream ? row->last_time : row->events[row->nevents - 1].time;
        if (first < *lo)
            *lo = first, *lo_row = i;
        if (last > *hi)
            *hi = last, *hi_row = i;
    }
}

int rt_trace_check_span(const rt_trace *t, rt_time_ns lo, uint32_t lo_row, rt_time_ns hi, uint32_t hi_row,
                        rt_error *err)
{
    /* The replay counts in ps in 64 bits: a span beyond that is a corrupt clock, not a run. */
    if (lo_row == RT_NONE || (__int128)hi - lo <= RT_MAX_SPAN_NS)
        return RT_OK;
    return rt_error_set(err, RT_ECORRUPT,
                        "%s: events span from %lld ns (rank %u) to %lld ns (rank %u), more than the %lld ns (26 days) "
                        "a trace may span: corrupt timestamps?",
                        t->path, (long long)lo, lo_row, (long long)hi, hi_row, (long long)RT_MAX_SPAN_NS);
}

void rt_trace_part_rows(const rt_trace *t, uint32_t *first, uint32_t *end)
{
    *first = t->part_first;
    *end = t->part_end;
}

/* ---------------------------------------------------------------- accessors */

void rt_trace_close(rt_trace *t)
{
    if (!t)
        return;
    rt__stream_free(t);
    for (uint32_t i = 0; i < t->nrows; i++)
        rt__rd_row_free(&t->rows[i]);
    free(t->rows);
    for (uint32_t i = 0; i < t->ncomms; i++) {
        free(t->comms[i].members);
        free(t->comms[i].present);
    }
    free(t->missing);
    free((char *)t->mpi.library);
    free((char *)t->mpi.eager_cvars);
    free((char *)t->mpi.eager_source);
    free((char *)t->mpi.clock);
    free(t->comms);
    free(t->self_rows);
    free(t->regions);
    free(t->callsites);
    for (uint32_t i = 0; i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->path);
    free(t);
}

const char *rt_trace_path(const rt_trace *t) { return t->path; }
uint32_t rt_trace_ranks(const rt_trace *t) { return t->nrows; }

const struct rt_event *rt_trace_events(const rt_trace *t, uint32_t rank, uint64_t *n)
{
    if (rank >= t->nrows) {
        *n = 0;
        return NULL;
    }
    *n = t->rows[rank].nevents;
    return t->rows[rank].events;
}

struct rt_event_payload rt_trace_payload(const rt_trace *t, uint32_t rank, uint64_t i)
{
    const struct rt__row *R = rank < t->nrows ? &t->rows[rank] : NULL;
    if (R && i < R->nevents && R->events[i].kind == RT_EV_IRECV && R->events[i].ref < R->nevents)
        i = R->events[i].ref; /* an IRECV's fields are its request's */
    const struct rt_event_payload *p = R && i < R->nevents ? rt__row_payload(R, i) : NULL;
    return p ? *p : (struct rt_event_payload){.bytes = 0, .comm = RT_EV_NO_COMM};
}

uint64_t rt_trace_location_id(const rt_trace *t, uint32_t rank)
{
    return rank < t->nrows ? t->rows[rank].location : UINT64_MAX;
}

const char *rt_trace_rank_name(const rt_trace *t, uint32_t rank)
{
    return rank < t->nrows ? t->rows[rank].name : "";
}

uint32_t rt_trace_regions(const rt_trace *t) { return t->nregions; }

const struct rt_region *rt_trace_region(const rt_trace *t, uint32_t region)
{
    return region < t->nregions ? &t->regions[region] : NULL;
}

uint32_t rt_trace_find_region(const rt_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->nregions; i++)
        if (!strcmp(t->regions[i].name, name))
            return i;
    return RT_NONE;
}

int rt_trace_cut_short(const rt_trace *t) { return t->cut_short; }

const struct rt_trace_mpi *rt_trace_mpi_info(const rt_trace *t) { return &t->mpi; }

int rt_trace_has_cpu_time(const rt_trace *t)
{
    int h = t->stream ? rt__stream_has_cpu_time(t) : -1;
    if (h >= 0) /* a streamed trace not read yet: its definitions say */
        return h;
    for (uint32_t i = 0; i < t->nrows; i++)
        if (t->rows[i].cpu_readings)
            return 1;
    return 0;
}

void rt_trace_compute_time(const rt_trace *t, uint32_t rank, rt_time_ns *wall, rt_time_ns *waited)
{
    const struct rt__row *row = rank < t->nrows ? &t->rows[rank] : NULL;
    *wall = row ? row->compute_wall : 0;
    *waited = row ? row->compute_wait : 0;
}

rt_time_ns rt_trace_cpu_clock(const rt_trace *t, uint32_t rank, uint64_t i)
{
    const struct rt__row *row = rank < t->nrows ? &t->rows[rank] : NULL;
    if (!row || i >= row->nevents)
        return 0;
    rt_time_ns at = row->events[i].time;
    uint64_t lo = 0, hi = row->ncpu; /* the steps taken by then: the last with at <= the event's time */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (row->cpu[mid].at <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? at - row->cpu[lo - 1].lost - row->cpu[lo - 1].tracer : at;
}

uint32_t rt_trace_callsites(const rt_trace *t) { return t->ncallsites; }

const struct rt_callsite *rt_trace_callsite(const rt_trace *t, uint32_t cs)
{
    return cs < t->ncallsites ? &t->callsites[cs] : NULL;
}

uint32_t rt_trace_comms(const rt_trace *t) { return t->ncomms; }

const struct rt_comm *rt_trace_comm(const rt_trace *t, uint32_t comm)
{
    return comm < t->ncomms ? &t->comms[comm].pub : NULL;
}

const uint32_t *rt_trace_comm_defined(const rt_trace *t, uint32_t comm, uint32_t *size)
{
    const struct rt__comm *c = comm < t->ncomms ? &t->comms[comm] : NULL;
    if (c && c->pub.members && c->members) { /* a defined communicator */
        *size = c->nmembers;
        return c->members;
    }
    *size = c && c->pub.members ? c->pub.size : 0; /* a self communicator's instance, or none */
    return c ? c->pub.members : NULL;
}

const struct rt_trace_stats *rt_trace_stats(const rt_trace *t) { return &t->stats; }
uint64_t rt_trace_memory(const rt_trace *t) { return t->memory; }

size_t rt_trace_dropped(const rt_trace *t, char *buf, size_t n)
{
    const struct rt_trace_stats *st = &t->stats;
    size_t k = 0;
    if (n)
        buf[0] = 0;
    if (st->accel_locations && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%llu records on %u accelerator location%s",
                              (unsigned long long)st->accel_records, st->accel_locations,
                              st->accel_locations == 1 ? "" : "s");
    if (st->rma_records && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%s%llu RMA record%s", k ? ", " : "",
                              (unsigned long long)st->rma_records, st->rma_records == 1 ? "" : "s");
    if (st->unknown_records && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%s%llu OTF2 record%s of unknown type (the first: location %llu, record %llu)",
                              k ? ", " : "", (unsigned long long)st->unknown_records,
                              st->unknown_records == 1 ? "" : "s", (unsigned long long)t->unknown_location,
                              (unsigned long long)t->unknown_record);
    return k < n ? k : (n ? n - 1 : 0);
}

/* "1,810": a count with thousands separated, as people read them. */
static const char *grouped(char *buf, size_t n, uint64_t v)
{
    char d[32];
    int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v), k = 0;
    for (int i = 0; i < len && (size_t)k + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = d[i];
    }
    buf[k] = 0;
    return buf;
}

const char *rt_skip_kind_name(int kind)
{
    static const char *const names[RT_SKIP_KINDS] = {
        "accelerator", "RMA", "non-blocking collective", "communicator", "I/O", "measurement on/off",
        "buffer flush", "thread lock/task/create", "calling-context", "metric", "parameter",
        "program begin/end", "unknown"};
    return kind >= 0 && kind < RT_SKIP_KINDS ? names[kind] : "unknown";
}

size_t rt_trace_coverage(const rt_trace *t, char *buf, size_t n)
{
    /* what the time of each kind is (enum rt_skip_kind), after "X % of rank R's time " */
    static const char *const inside[RT_SKIP_KINDS] = {
        "in accelerator API calls", "in the MPI calls that hold them", "in the MPI calls that hold them",
        "in the MPI calls that hold them", "in the calls that hold them", "with measurement off", "flushing",
        "", "", "", "", "", ""};
    size_t k = 0;
    if (n)
        buf[0] = 0;
    for (int i = 0; i < RT_SKIP_KINDS && k < n; i++) {
        const struct rt_trace_skip *s = &t->stats.skipped[i];
        char count[40];
        if (!s->records)
            continue;
        k += (size_t)snprintf(buf + k, n - k, "%s%s %s record%s", k ? ", " : "", grouped(count, sizeof count, s->records),
                              rt_skip_kind_name(i), s->records == 1 ? "" : "s");
        if (s->worst_ns > 0 && s->span_ns > 0 && s->worst_rank != RT_NONE && k < n) {
            double pct = 100.0 * (double)s->worst_ns / (double)s->span_ns;
            k += (size_t)snprintf(buf + k, n - k, " (%.*f %% of rank %u's time %s)", pct < 9.95 ? 1 : 0, pct,
                                  rt_trace_rank_label(t, s->worst_rank), inside[i]);
        }
    }
    return k < n ? k : (n ? n - 1 : 0);
}

uint32_t rt_trace_missing_rank(const rt_trace *t, uint32_t i)
{
    return i < t->stats.missing_ranks ? t->missing[i] : RT_NONE;
}

uint32_t rt_trace_rank_label(const rt_trace *t, uint32_t row)
{
    if (row == RT_NONE)
        return RT_NONE;
    /* the missing ranks ascend: each one at or below the label so far moves it up by one */
    uint32_t rank = row;
    for (uint32_t i = 0; i < t->stats.missing_ranks && t->missing[i] <= rank; i++)
        rank++;
    return rank;
}

void rt_trace_set_missing_totals(rt_trace *t, const uint64_t totals[4])
{
    t->stats.missing_sends = totals[0];
    t->stats.missing_recvs = totals[1];
    t->stats.missing_colls = totals[2];
    t->stats.missing_roots = totals[3];
}

const char *rt_coll_op_name(int op)
{
    static const char *const names[] = {"barrier", "bcast", "gather", "scatter", "allgather",
                                        "alltoall", "reduce", "allreduce", "scan", "other"};
    return op >= 0 && op <= RT_COLL_OTHER ? names[op] : "other";
}
