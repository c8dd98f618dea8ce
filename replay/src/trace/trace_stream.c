/* SPDX-License-Identifier: MIT */
/*
 * A streamed trace (RT_TRACE_STREAM): the definitions are read whole at the open, each rank's
 * events as the replay reaches them, a chunk of OTF2 records at a time (rt__trace_pull), and the
 * events the replay has passed are given back. A rank's memory is then its window: the events
 * read and not yet replayed, bounded by how far the ranks' progress drifts apart, not by the
 * trace's length.
 *
 * The rows are read by the same callbacks as a whole read (trace_reader.c), one reader state per
 * row, so every event comes out as it would there. Two things make that exact (with the
 * engine's side, engine_stream.c: a call is entered once read up to its Leave):
 *   - a record may still change an event read before it (a completion fills its request, the end
 *     of a collective its begin, the end of the row flags requests never completed), so the
 *     replay steps only events before the row's safe point (rt__rd_location_safe), which no
 *     later record changes; an MPI call is stepped only once read whole;
 *   - a row's arrays are reserved address space (trace_reader.c, vm_resize): indices stay those
 *     of a whole read, and the pages behind the replay are handed back to the system (madvise).
 *
 * On two CPUs or more a reader thread reads ahead while the replay runs: every row a little
 * ahead of the replay, first any row the replay waits for. The two share each row's published
 * state under one mutex (struct stream_row, "published"): the replay looks only at events before
 * the published safe point, which the reader no longer changes (it writes past the events read
 * and patches events at or after the safe point only), so no event is ever read while written.
 * The one exception is a row's arrays growing past their reservation (8x the declared count):
 * the reader moves them only while the replay waits in a pull, the mutex held, and the replay
 * then takes every rank's pointers again (rt__pull.moved). On a network the replay also waits
 * from inside a step (a collective's look-ahead into its other members, coll_exec.c), holding
 * pointers into its own rank's events: there no row moves, and one that would is refused
 * (rt__trace_stream_fixed). RETIME_READ_THREADS=1: no thread, the replay reads what it needs
 * itself (a look-ahead then moves only the row it reads on, whose pointers nobody holds).
 */
#define _GNU_SOURCE /* madvise */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "reader_internal.h"
#include "threads_env.h"

#define STREAM_CHUNK (1u << 15) /* OTF2 records per read of a row at most (RETIME_STREAM_CHUNK: tests) ... */
#define STREAM_CHUNK_MIN (1u << 10) /* ... and at least */
#define AHEAD_EVENTS (1u << 20) /* the reader thread's read-ahead, over all rows (about 25 MiB) */
#define PAGE 4096u

struct stream_row {
    struct reader r; /* the row's read state, with the shared definition tables */
    rt_error err;
    OTF2_EvtReader *er;
    int opened;
    uint64_t *team_at;  /* per thread of the rank: its first team span not yet past (stream_joins) */
    /* published (under the stream's mutex when threaded): what the replay may take */
    struct rt__pull pub;
    uint64_t keep;      /* the replay needs none of the row's events before this (given back by the reader) */
    uint64_t given;     /* the safe point the replay took last */
    int wanted;         /* the replay waits for more of this row */
    size_t faulted;     /* the replay's: bytes of the row's events its thread has faulted in (prefault) */
};

struct rt__stream {
    OTF2_Reader *rd;
    struct reader base; /* the definition tables (owned here) */
    rt_error base_err;
    struct stream_row *rows;
    uint32_t nrows, left; /* rows not read to their end yet */
    uint64_t chunk;       /* records per piece of a row (piece_of) ... */
    uint64_t whole_below; /* ... but one that declares fewer events than this is read in one piece */
    uint64_t evt_chunk;   /* the archive's event chunk [B] (0: not known) */
    uint64_t declared;    /* the rows' declared events, summed */
    uint64_t *declared_of; /* ... per row */
    int ended;            /* rt__trace_stream_end has run */
    /* the reader thread */
    int threaded, started;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t to_reader, to_replay;
    int stop;             /* the replay is done with the rows: the reader stops */
    int failed;           /* the reader stopped on an error (fail_err) */
    rt_error fail_err;
    int replay_waiting;   /* the replay waits in a pull (it looks at no row meanwhile) */
    int fixed;            /* no row may move: the replay looks ahead from inside steps (a network) */
    uint64_t gen;         /* how many times a row's arrays moved */
    uint64_t ahead;       /* events read ahead of the replay per row */
};

static void stop_reader(struct rt__stream *s);

/* A count from the environment (tests: RETIME_STREAM_CHUNK, RETIME_STREAM_RESERVE), or @p dflt. */
static uint64_t env_count(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    char *end = NULL;
    unsigned long long n = v ? strtoull(v, &end, 10) : 0;
    return v && end != v && !*end && n > 0 && n <= (1ull << 30) ? (uint64_t)n : dflt;
}

int rt__stream_start(struct reader *r, OTF2_Reader **rdp)
{
    rt_trace *t = r->t;
    struct rt__stream *s = calloc(1, sizeof *s);
    struct stream_row *rows = calloc(t->nrows ? t->nrows : 1, sizeof *rows);
    if (!s || !rows) {
        free(s);
        free(rows);
        return rt__rd_fail(r, RT_ENOMEM, "out of memory");
    }
    s->rows = rows;
    s->nrows = t->nrows;
    /* A piece is the read-ahead's share of a row, within [STREAM_CHUNK_MIN, STREAM_CHUNK]: every row
     * holds about a piece ahead of the replay, and pieces of 2^15 events at 512 ranks cost 0.7 GiB
     * more (a streamed replay of 10^8 events took more than the whole read's 1.6 GiB, and longer).
     * But a row open for reading holds OTF2's buffers, one or two of the archive's event chunks
     * (1 MiB each in retime-trace's and Score-P's archives), until its end: a row whose events
     * take no more room than one chunk is read in one piece, its reader closed at once (512
     * ranks of 2*10^4 events: 0.17 GiB so, 0.55 GiB in pieces). Tests set the pieces. */
    uint64_t share = AHEAD_EVENTS / (t->nrows ? t->nrows : 1), evt_chunk = 0, def_chunk = 0;
    share = share < STREAM_CHUNK ? share : STREAM_CHUNK;
    s->chunk = env_count("RETIME_STREAM_CHUNK", 0);
    if (OTF2_Reader_GetChunkSize(*rdp, &evt_chunk, &def_chunk) == OTF2_SUCCESS)
        s->evt_chunk = evt_chunk;
    if (!s->chunk) {
        s->whole_below = s->evt_chunk / sizeof(struct rt_event);
        s->chunk = share > STREAM_CHUNK_MIN ? share : STREAM_CHUNK_MIN;
    }
    uint64_t reserve = env_count("RETIME_STREAM_RESERVE", 0); /* the events first reserved per row */
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->to_reader, NULL);
    pthread_cond_init(&s->to_replay, NULL);
    s->threaded = rt__threads_for("RETIME_READ_THREADS", UINT64_MAX, 0, 2, 2) > 1;
    s->rd = *rdp;
    *rdp = NULL;
    s->base = *r; /* the tables are the stream's now: the caller's copy is cleared below */
    s->base.err = &s->base_err;
    t->stream = s;
    rt_error *err = r->err;
    memset(r, 0, sizeof *r);
    r->t = t;
    r->err = err;
    r->path = t->path;
    if (!(s->declared_of = malloc((t->nrows ? t->nrows : 1) * sizeof *s->declared_of)))
        return rt__rd_fail(r, RT_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nrows; i++) {
        s->declared_of[i] = t->rows[i].nevents;
        s->declared += t->rows[i].nevents;
        OTF2_Reader_SelectLocation(s->rd, t->rows[i].location);
    }
    for (uint32_t k = 0; k < s->base.nthr; k++) /* the ranks' other threads: read whole, for their teams */
        OTF2_Reader_SelectLocation(s->rd, s->base.thr[k].location);
    OTF2_Reader_OpenDefFiles(s->rd); /* optional, as in a whole read */
    if (OTF2_Reader_OpenEvtFiles(s->rd) != OTF2_SUCCESS)
        return rt__rd_fail(r, RT_ECORRUPT, "cannot open the event files");
    s->left = t->nrows;
    for (uint32_t i = 0; i < t->nrows; i++) { /* each row is opened at its first pull */
        rt__rd_copy(&rows[i].r, &s->base, &rows[i].err);
        rows[i].r.vm = 1;
        rows[i].r.stream = s;
        rows[i].r.vm_reserve = reserve;
        rows[i].pub.more = 1;
        t->rows[i].more = 1;
        t->rows[i].nevents = 0;
    }
    return RT_OK;
}

void rt__stream_free(rt_trace *t)
{
    struct rt__stream *s = t->stream;
    if (!s)
        return;
    stop_reader(s);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->to_reader);
    pthread_cond_destroy(&s->to_replay);
    for (uint32_t i = 0; i < s->nrows; i++) {
        if (s->rows[i].er)
            OTF2_Reader_CloseEvtReader(s->rd, s->rows[i].er);
        rt__rd_copy_free(&s->rows[i].r);
        free(s->rows[i].team_at);
    }
    if (s->rd) {
        OTF2_Reader_CloseEvtFiles(s->rd);
        OTF2_Reader_CloseDefFiles(s->rd);
        OTF2_Reader_Close(s->rd);
    }
    rt__rd_free(&s->base);
    free(s->declared_of);
    free(s->rows);
    free(s);
    t->stream = NULL;
}

/* Hands back the whole pages of [*from, to) bytes of @p base; *from becomes to's page. */
static void give_pages(void *base, size_t *from, size_t to)
{
    size_t lo = *from / PAGE * PAGE, hi = to / PAGE * PAGE;
    if (hi > lo) {
        (void)madvise((char *)base + lo, hi - lo, MADV_DONTNEED); /* advice: on failure the pages stay */
        *from = hi;
    }
}

/* Row @p R no longer needs its events before @p keep (< R->nevents): gives back the pages of
 * events, payloads and payload blocks before it. A payload block's first event may share the
 * payload stored before the block: that one stays. */
static void give_back(struct rt__row *R, uint64_t keep)
{
    if (keep <= R->kept || keep >= R->nevents)
        return;
    size_t ev_from = R->kept * sizeof *R->events;
    uint64_t lb = R->kept >> 6, nb = keep >> 6;
    size_t pb_from = lb * sizeof *R->pblocks;
    uint64_t old_pk = R->pblocks[lb].base ? R->pblocks[lb].base - 1 : 0;
    uint64_t pk = R->pblocks[nb].base ? R->pblocks[nb].base - 1 : 0;
    size_t pay_from = old_pk * sizeof *R->pay;
    R->kept = keep;
    give_pages(R->events, &ev_from, keep * sizeof *R->events);
    give_pages(R->pay, &pay_from, pk * sizeof *R->pay);
    give_pages(R->pblocks, &pb_from, nb * sizeof *R->pblocks);
}

/* Opens row @p row for reading: first its rank's other threads, read whole (their team spans,
 * a whole read's rt__rd_thread), then its own location. RT_OK or the error stored in sr. */
static int stream_open_row(struct rt__stream *s, struct stream_row *sr, uint32_t row)
{
    struct reader *r = &sr->r;
    uint32_t k0 = r->thr_at[row], k1 = r->thr_at[row + 1];
    sr->opened = 1;
    for (uint32_t k = k0; k < k1; k++)
        if (rt__rd_thread(r, s->rd, &r->thr[k]))
            return r->failed;
    if (k1 > k0 && !(sr->team_at = calloc(k1 - k0, sizeof *sr->team_at)))
        return rt__rd_fail(r, RT_ENOMEM, "out of memory matching thread teams of rank %u", row);
    r->t->rows[row].nevents = s->declared_of[row];
    return rt__rd_location_open(r, s->rd, row, &sr->er);
}

/* The joins among row @p row's events read from @p from on get the work of their teams' other
 * threads, as a whole read's match_teams gives them (trace_open.c), before the replay may step
 * them: the spans are read whole, and each join's fork is still held (an open team holds back
 * the row's safe point at its fork). */
static void stream_joins(struct rt__stream *s, struct stream_row *sr, uint32_t row, uint64_t from)
{
    const struct reader *r = &sr->r;
    struct rt__row *R = &r->t->rows[row];
    uint32_t k0 = r->thr_at[row], k1 = r->thr_at[row + 1];
    (void)s;
    if (k1 == k0)
        return;
    for (uint64_t j = from; j < R->nevents; j++) {
        const struct rt_event *e = &R->events[j];
        if (e->kind != RT_EV_JOIN || e->ref >= R->nevents)
            continue;
        rt_time_ns f = R->events[e->ref].time, w = 0;
        for (uint32_t k = k0; k < k1; k++) {
            const struct thread_loc *th = &r->thr[k];
            uint64_t c = sr->team_at[k - k0];
            for (; c < th->nspans && th->spans[c].begin <= e->time; c++)
                if (th->spans[c].arrive - f > w)
                    w = th->spans[c].arrive - f;
            sr->team_at[k - k0] = c;
        }
        rt__row_payload(R, j)->work_ns = (uint64_t)w; /* a JOIN has one */
    }
}

/* Row @p row read to its end: its threads' spans are freed; a rank that declared events and
 * holds none while its threads hold some (a whole read takes it as empty and reads again: APEX,
 * issue #47) is refused. RT_OK or the error stored in sr. */
static int stream_row_end(struct rt__stream *s, struct stream_row *sr, uint32_t row)
{
    struct reader *r = &sr->r;
    uint32_t k0 = r->thr_at[row], k1 = r->thr_at[row + 1];
    int other = 0;
    for (uint32_t k = k0; k < k1; k++) {
        other |= r->thr[k].nevents != 0;
        free(r->thr[k].spans);
        r->thr[k].spans = NULL;
        r->thr[k].nspans = r->thr[k].capspans = 0;
    }
    free(sr->team_at);
    sr->team_at = NULL;
    if (!r->t->rows[row].nevents && s->declared_of[row] && other)
        return rt__rd_fail(r, RT_EINVAL, "location %llu (rank %u) declares %llu events and holds none, its threads do: "
                                         "a streamed read cannot take it as empty; replay it whole (--memory-budget)",
                           (unsigned long long)r->t->rows[row].location, row,
                           (unsigned long long)s->declared_of[row]);
    return RT_OK;
}

/* The records read per piece of row @p row: a short row's all (and one more, to see its end). */
static uint64_t piece_of(const struct rt__stream *s, uint32_t row)
{
    uint64_t d = s->declared_of[row];
    return d >= s->chunk && d < s->whole_below ? d + 1 : s->chunk;
}

/* Reads the next piece of row @p row (the reader's side: the replay does not look at what it
 * writes), first giving back what is before @p keep: RT_OK or the error stored in sr. */
static int read_piece(struct rt__stream *s, struct stream_row *sr, uint32_t row, uint64_t keep)
{
    struct rt__row *R = &sr->r.t->rows[row];
    if (!sr->opened && stream_open_row(s, sr, row))
        return sr->r.failed;
    give_back(R, keep);
    int end = 0;
    uint64_t from = R->nevents;
    if (rt__rd_location_read(&sr->r, s->rd, sr->er, piece_of(s, row), &end) == RT_OK)
        stream_joins(s, sr, row, from);
    if (!sr->r.failed && end) {
        OTF2_Reader_CloseEvtReader(s->rd, sr->er);
        sr->er = NULL;
        if (rt__rd_location_close(&sr->r) == RT_OK && stream_row_end(s, sr, row) == RT_OK)
            s->left--;
    }
    if (sr->r.failed)
        return sr->r.failed;
    if (R->more)
        R->safe = rt__rd_location_safe(&sr->r);
    return RT_OK;
}

/* What the replay may take of row @p row now (the mutex held when threaded). */
static void publish(struct stream_row *sr, const struct rt__row *R)
{
    sr->pub = (struct rt__pull){.ev = R->events, .cpu = R->cpu, .safe = R->safe, .avail = R->nevents, .ncpu = R->ncpu,
                                .more = R->more};
}

/* The row the reader thread reads next: one the replay waits for, else the one least ahead of
 * the replay that is less than s->ahead ahead; UINT32_MAX: none (the mutex held). */
static uint32_t next_row(const struct rt__stream *s)
{
    uint32_t best = UINT32_MAX;
    uint64_t least = UINT64_MAX;
    for (uint32_t i = 0; i < s->nrows; i++) {
        const struct stream_row *sr = &s->rows[i];
        if (!sr->pub.more)
            continue;
        if (sr->wanted)
            return i;
        uint64_t a = sr->pub.avail - sr->given;
        if (a < s->ahead && a < least) {
            least = a;
            best = i;
        }
    }
    return best;
}

static void *reader_main(void *arg)
{
    struct rt__stream *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        uint32_t row = next_row(s);
        if (row == UINT32_MAX) {
            pthread_cond_wait(&s->to_reader, &s->mu);
            continue;
        }
        struct stream_row *sr = &s->rows[row];
        uint64_t keep = sr->keep;
        pthread_mutex_unlock(&s->mu);
        int rc = read_piece(s, sr, row, keep);
        pthread_mutex_lock(&s->mu);
        publish(sr, &sr->r.t->rows[row]);
        if (rc) {
            s->failed = 1;
            s->fail_err = sr->err;
            pthread_cond_broadcast(&s->to_replay);
            break;
        }
        if (sr->wanted && (sr->pub.safe > sr->given || !sr->pub.more)) {
            sr->wanted = 0;
            pthread_cond_broadcast(&s->to_replay);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int rt__stream_hold(struct reader *r, int enter)
{
    struct rt__stream *s = r->stream;
    if (!s || !s->started)
        return 0;
    if (enter) { /* until the replay waits in a pull; the mutex kept while the arrays move */
        if (s->fixed) /* (a look-ahead may hold pointers into any row: none moves; set before the thread) */
            return -1;
        pthread_mutex_lock(&s->mu);
        while (!s->replay_waiting && !s->stop)
            pthread_cond_wait(&s->to_reader, &s->mu);
    } else { /* the row's arrays moved: the replay takes them anew (rt__pull.moved) */
        struct stream_row *sr = (struct stream_row *)((char *)r - offsetof(struct stream_row, r));
        sr->pub.ev = r->cur->events;
        sr->pub.cpu = r->cur->cpu;
        s->gen++;
        pthread_mutex_unlock(&s->mu);
    }
    return 0;
}

/* The events the reader thread reads of a row ahead of the replay: the rows' share of
 * AHEAD_EVENTS, at least a piece. */
static uint64_t ahead_of(const struct rt__stream *s)
{
    uint64_t a = AHEAD_EVENTS / (s->nrows ? s->nrows : 1);
    return a < s->chunk ? s->chunk : a;
}

/* Starts the reader thread, unless RETIME_READ_THREADS=1 or one CPU: then the replay reads. */
static void start_reader(struct rt__stream *s)
{
    if (s->started || !s->threaded)
        return;
    s->ahead = ahead_of(s);
    s->started = 1; /* (before the thread runs: it reads it) */
    if (pthread_create(&s->th, NULL, reader_main, s) != 0)
        s->started = 0;
}

static void stop_reader(struct rt__stream *s)
{
    if (!s->started)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->to_reader);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    s->started = 0;
}

/*
 * The replay's thread faults in the pages of row @p sr's events that the reader thread writes
 * next: one piece past those read (@p avail of @p cap reserved; no further than its declared
 * events). A fresh page of a row costs the kernel a fault, a zeroing and a charge (a fifth of
 * the reader thread's time at 10^7 events, the reader being the streamed replay's bottleneck),
 * and the replay's thread, which waited for the reader nearly half of the time, pays it instead:
 * 11 % less wall time at 10^7 events (median) for at most a piece's pages (512 KiB) more per row. Only
 * pages past the events read are touched: the reader writes them afterwards or meanwhile (the
 * kernel orders the two), never gives them back (give_back is behind the replay), and moves
 * them only while the replay waits in a pull, not here. Only advice: on a kernel without
 * MADV_POPULATE_WRITE (Linux < 5.14) the reader faults them in itself.
 */
static void prefault(const struct rt__stream *s, struct stream_row *sr, uint32_t row, const struct rt_event *ev,
                     uint64_t avail, uint64_t cap)
{
#ifdef MADV_POPULATE_WRITE
    uint64_t to = avail + s->chunk;
    to = to < s->declared_of[row] ? to : s->declared_of[row];
    to = to < cap ? to : cap;
    size_t lo = avail * sizeof *ev / PAGE * PAGE, hi = to * sizeof *ev / PAGE * PAGE;
    lo = lo > sr->faulted ? lo : sr->faulted;
    if (!ev || hi < lo + 16 * PAGE) /* (a syscall for a few pages costs more than their faults) */
        return;
    (void)madvise((char *)ev + lo, hi - lo, MADV_POPULATE_WRITE);
    sr->faulted = hi;
#else
    (void)s; (void)sr; (void)row; (void)ev; (void)avail; (void)cap;
#endif
}

int rt__trace_pull(rt_trace *t, uint32_t row, uint64_t keep, struct rt__pull *out, rt_error *err)
{
    struct rt__stream *s = t->stream;
    memset(out, 0, sizeof *out);
    if (!s || row >= s->nrows)
        return RT_OK;
    struct stream_row *sr = &s->rows[row];
    struct rt__row *R = &t->rows[row];
    start_reader(s);
    if (!s->started) { /* the replay reads itself */
        int rc = RT_OK;
        while (rc == RT_OK && R->more && (R->safe <= sr->given || !sr->opened))
            rc = read_piece(s, sr, row, keep);
        if (rc) {
            if (err)
                *err = sr->err;
            return rc;
        }
        publish(sr, R);
        sr->given = sr->pub.safe;
        *out = sr->pub;
        return RT_OK;
    }
    pthread_mutex_lock(&s->mu);
    uint64_t gen = s->gen;
    if (keep > sr->keep)
        sr->keep = keep;
    while (!s->failed && sr->pub.more && sr->pub.safe <= sr->given) {
        sr->wanted = 1;
        s->replay_waiting = 1;
        pthread_cond_broadcast(&s->to_reader);
        pthread_cond_wait(&s->to_replay, &s->mu);
        s->replay_waiting = 0;
    }
    int rc = RT_OK;
    if (s->failed) { /* the reader stopped: whatever the replay holds, it cannot end right */
        if (err)
            *err = s->fail_err;
        rc = s->fail_err.code ? s->fail_err.code : RT_EIO;
    } else {
        sr->given = sr->pub.safe;
        *out = sr->pub;
        out->moved = s->gen != gen;
        pthread_cond_broadcast(&s->to_reader); /* (what it took makes room ahead) */
    }
    uint64_t cap = R->vmcap; /* (changed by a move only, under the mutex while the replay waits) */
    pthread_mutex_unlock(&s->mu);
    if (rc == RT_OK && out->more)
        prefault(s, sr, row, out->ev, out->avail, cap);
    return rc;
}

void rt__trace_stream_fixed(rt_trace *t)
{
    if (t->stream)
        t->stream->fixed = 1;
}

void rt__trace_view(rt_trace *t, uint32_t row, struct rt__pull *out)
{
    struct rt__stream *s = t->stream;
    memset(out, 0, sizeof *out);
    if (!s || row >= s->nrows)
        return;
    if (s->started)
        pthread_mutex_lock(&s->mu);
    *out = s->rows[row].pub;
    if (s->started)
        pthread_mutex_unlock(&s->mu);
}

int rt__trace_stream_end(rt_trace *t, rt_error *err)
{
    struct rt__stream *s = t->stream;
    if (!s || s->ended)
        return RT_OK;
    stop_reader(s);
    if (s->failed) {
        if (err)
            *err = s->fail_err;
        return s->fail_err.code ? s->fail_err.code : RT_EIO;
    }
    if (s->left)
        return rt_error_set(err, RT_EINVAL, "%s: %u rank(s) not read to their end", t->path, s->left);
    s->ended = 1;
    for (uint32_t i = 0; i < s->nrows; i++) /* in row order, as a whole read merges its readers */
        rt__rd_merge(t, &s->rows[i].r);
    s->base.err = err;
    return rt__rd_finish(&s->base, 1);
}

int rt_trace_streamed(const rt_trace *t) { return t->stream != NULL; }

/* Whether row @p i's event file is longer than one chunk: OTF2 then holds a second chunk's buffer
 * while reading it. Its POSIX files are ARCHIVE/LOCATION.evt beside the anchor ARCHIVE.otf2;
 * where that cannot be seen (another substrate), taken as longer. */
static int file_over_chunk(const rt_trace *t, const struct rt__stream *s, uint32_t i)
{
    char path[4096];
    struct stat st;
    size_t n = strlen(t->path);
    if (n < 5 || strcmp(t->path + n - 5, ".otf2") ||
        snprintf(path, sizeof path, "%.*s/%llu.evt", (int)(n - 5), t->path,
                 (unsigned long long)t->rows[i].location) >= (int)sizeof path ||
        stat(path, &st) != 0)
        return 1;
    return (uint64_t)st.st_size > s->evt_chunk;
}

/* (a rank read in one piece holds its events to its end, RT_TRACE_EVENT_BYTES each; a rank read in
 * pieces: its OTF2 buffers, one chunk or two (file_over_chunk), and the events the reader thread
 * reads ahead (ahead_of), the piece it reads and the pages faulted in for the next. Measured
 * (peak RSS less the 13 MiB of a replay of nothing) and estimated: 512 ranks of 2*10^5 events,
 * 1 MiB chunks: 1.04 GiB, 1.05; 32 ranks of 3*10^6: 106 MiB, 115; 128 ranks of 8*10^4 (files
 * under a chunk): 171 MiB, 180; 4 ranks of 1.5*10^6: 6-26 MiB, 29; 64 ranks of 2*10^4 in
 * 256 KiB chunks (files under a chunk): 31 MiB, 66.) */
uint64_t rt_trace_stream_bytes(const rt_trace *t)
{
    const struct rt__stream *s = t->stream;
    uint64_t b = 0, ahead = s ? ahead_of(s) : 0;
    for (uint32_t i = 0; s && i < s->nrows; i++) {
        uint64_t d = s->declared_of[i];
        b += piece_of(s, i) > d ? d * RT_TRACE_EVENT_BYTES
                                : (1 + (uint64_t)file_over_chunk(t, s, i)) * s->evt_chunk +
                                      (ahead + 2 * s->chunk) * RT_TRACE_EVENT_BYTES;
    }
    return b;
}

int rt__stream_has_cpu_time(const rt_trace *t)
{
    return t->stream && !t->stream->ended ? t->stream->base.have_cpu_attr : -1;
}

uint64_t rt_trace_declared_events(const rt_trace *t)
{
    if (t->stream)
        return t->stream->declared;
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->nrows; i++)
        n += t->rows[i].nevents;
    return n;
}
