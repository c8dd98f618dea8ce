/* SPDX-License-Identifier: MIT */
/*
 * A trace and one timing of it as a Chrome trace-event JSON timeline (the format the Perfetto UI
 * and chrome://tracing open), streamed: memory O(messages + events of one rank), time
 * O(events + messages log messages), one pass over the trace per rank and two before.
 *
 * Layout (docs/perfetto.md has the field list):
 *   - one process per rank: pid = rank, process_name "rank N", process_sort_index N;
 *   - three threads per process, ids disjoint from every pid and unique over the file (Perfetto
 *     keys threads by tid alone): "predicted" (tid B + rank), "critical path" (2B + rank) and
 *     "measured" (3B + rank), B = 10^6 (10^9 beyond 10^6 ranks), thread_sort_index 0, 1, 2;
 *   - every Enter/Leave pair is a complete slice ("X"), written at its Enter (parents before
 *     their children, so that importers that sort stably by time keep the nesting);
 *   - point-to-point messages are flow arrows ("s" at the send event, "f" with "bp":"e" at the
 *     receive's completion) on the predicted and the measured thread; on the predicted thread
 *     also from the collective member whose entry bound another member's release to that
 *     release, and along the critical path from one rank's run of it to the next;
 *   - the critical path (the on_path marks of the timing) is a slice per maximal run on a rank
 *     on the "critical path" thread, from where the path arrives to its last event there, so
 *     that the runs of all ranks tile [0, end of the run]; predicted MPI calls on it carry
 *     args.critical_path = true.
 *
 * Times are microseconds from the trace's first event (measured) or from the replay's start
 * (predicted, rounded to whole nanoseconds), written as "<us>.<3 digits of ns>1": the last digit
 * is a guard of 0.1 ns. Perfetto turns a "dur" (and in some versions a "ts") into nanoseconds as
 * (int64_t)(value * 1000.0), which maps 1.001 to 1000; with the guard every value lands on its
 * own nanosecond, and slices that end together still nest. Strings are escaped for JSON and
 * invalid UTF-8 is replaced by U+FFFD, so that strict parsers accept any trace's names.
 */
#include "retime/perfetto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

#define NO_INDEX UINT64_MAX

/* Flow ids: 4 * (global event number) + kind, unique over the file. */
enum { FLOW_MSG_PRED = 0, FLOW_MSG_MEAS = 1, FLOW_COLL = 2, FLOW_PATH = 3 };
/* Threads of a rank, in display order. */
enum { TRACK_PRED = 0, TRACK_PATH = 1, TRACK_MEAS = 2, TRACKS };
static const char *const track_name[TRACKS] = {"predicted", "critical path", "measured"};

/* A buffered output stream: the file is written in 64 KiB pieces, never held whole. */
struct out {
    FILE *f;
    size_t n;
    int err; /* errno of the first failed write, 0 while all is well */
    char buf[1 << 16];
};

/* A point-to-point operation in its channel (src, dst, comm, tag), posted at event gid. */
struct p2p {
    uint32_t src, dst, comm, tag;
    uint64_t gid;  /* send event, or the receive's post (the order messages match in) */
    uint64_t done; /* receives: the completion event */
};

/* A matched message: its send event and its receive's completion (global event numbers). */
struct pair {
    uint64_t send, done;
};

/* An arrow's end held back to the end of the file. */
struct late {
    uint64_t id_gid;
    rt_time_ns ts;
    uint32_t rank;
    uint8_t track, kind;
};

/* A collective edge on the predicted timing: member src's entry released member dst. */
struct edge {
    uint64_t src, dst;
};

struct writer {
    struct out *o;
    int any;          /* an event was written: the next one needs a comma */
    const rt_trace *t;
    const rt_depgraph *g;
    rt_error *err;
    uint32_t ranks;
    uint64_t *base;   /* global number of each rank's first event */
    uint64_t total;
    uint32_t tid_base;
    rt_time_ns t0;    /* the earliest measured event */
    struct pair *by_send, *by_done;
    uint64_t npairs;
    struct edge *coll;
    uint64_t ncoll;
    uint64_t *hops;   /* events the critical path leaves for another rank, sorted */
    uint64_t nhops;
    uint64_t *leave;  /* per event of the current rank: its matching Leave (Enter only) */
    uint64_t capleave;
    struct late *late; /* arrow ends written after every rank (see flow_end) */
    uint64_t nlate, caplate;
    /* what was written, for otherData */
    uint64_t slices, flows[4], skipped_meas, skipped_pred, segments;
    rt_time_ns path_ns, pred_end_ns, meas_end_ns;
};

/* ------------------------------------------------------------------ output */

static void out_flush(struct out *o)
{
    if (o->n && !o->err && fwrite(o->buf, 1, o->n, o->f) != o->n)
        o->err = errno ? errno : EIO;
    o->n = 0;
}

static inline void put_c(struct out *o, char c)
{
    if (o->n == sizeof o->buf)
        out_flush(o);
    o->buf[o->n++] = c;
}

static void put_s(struct out *o, const char *s)
{
    for (; *s; s++)
        put_c(o, *s);
}

static void put_u64(struct out *o, uint64_t v)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        put_c(o, tmp[--k]);
}

static void put_i64(struct out *o, int64_t v)
{
    if (v < 0) {
        put_c(o, '-');
        put_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(o, (uint64_t)v);
    }
}

/* A time in ns (>= 0) as microseconds with the 0.1 ns guard digit (see the top of the file). */
static void put_time(struct out *o, rt_time_ns ns)
{
    uint64_t v = ns > 0 ? (uint64_t)ns : 0;
    put_u64(o, v / 1000);
    put_c(o, '.');
    put_c(o, (char)('0' + v / 100 % 10));
    put_c(o, (char)('0' + v / 10 % 10));
    put_c(o, (char)('0' + v % 10));
    put_c(o, '1');
}

/* Length of the valid UTF-8 sequence at @p p (RFC 3629: no overlongs, surrogates or values
 * beyond U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
#define CONT(x) (((x) & 0xC0u) == 0x80u)
    if (c >= 0xC2 && c <= 0xDF)
        return CONT(p[1]) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi && CONT(p[2]) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi && CONT(p[2]) && CONT(p[3]) ? 4 : 0;
    }
#undef CONT
    return 0;
}

/* The inside of a JSON string. Control characters get their short escape or \u00XX; invalid
 * UTF-8 bytes become U+FFFD, written as its UTF-8 bytes. (The NUL that ends @p s fails every
 * check of a continuation byte, so a sequence cut short is never read past.) */
static void put_esc(struct out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            put_c(o, '\\');
            put_c(o, (char)c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\b' ? "\\b"
                            : c == '\f' ? "\\f" : NULL;
            if (esc) {
                put_s(o, esc);
            } else {
                put_s(o, "\\u00");
                put_c(o, hex[c >> 4]);
                put_c(o, hex[c & 15]);
            }
            p++;
        } else if (c < 0x80) {
            put_c(o, (char)c);
            p++;
        } else {
            size_t len = utf8_len(p);
            if (len) {
                for (size_t i = 0; i < len; i++)
                    put_c(o, (char)p[i]);
                p += len;
            } else {
                put_s(o, "\xEF\xBF\xBD");
                p++;
            }
        }
    }
}

static void put_str(struct out *o, const char *s)
{
    put_c(o, '"');
    put_esc(o, s);
    put_c(o, '"');
}

/* ------------------------------------------------------------------ timing */

static rt_time_ns ps_to_ns(rt_time_ps ps) { return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000); }

/* Event (r, j) of the timing; fails only for a graph that does not hold it. */
static int dep(const struct writer *w, uint32_t r, uint64_t j, struct rt_dep_event *d)
{
    return rt_depgraph_event(w->g, r, j, d, w->err);
}

/* Predicted time of event (r, j) in ns. */
static int pred_ns(const struct writer *w, uint32_t r, uint64_t j, rt_time_ns *ns)
{
    struct rt_dep_event d;
    int rc = dep(w, r, j, &d);
    *ns = rc ? 0 : ps_to_ns(d.t);
    return rc;
}

static rt_time_ns meas_ns(const struct writer *w, uint32_t r, uint64_t j)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(w->t, r, &n);
    return ev[j].time - w->t0;
}

/* The rank holding global event @p gid, and its index there. */
static uint32_t rank_of(const struct writer *w, uint64_t gid, uint64_t *j)
{
    uint32_t lo = 0, hi = w->ranks; /* the last rank whose base <= gid */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->base[mid] <= gid)
            lo = mid;
        else
            hi = mid;
    }
    *j = gid - w->base[lo];
    return lo;
}

/* ------------------------------------------------------------------ preparation */

static int cmp_p2p(const void *a, const void *b)
{
    const struct p2p *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static int cmp_by_send(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return x->send < y->send ? -1 : x->send > y->send;
}

static int cmp_by_done(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return x->done < y->done ? -1 : x->done > y->done;
}

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Grows @p *v to hold @p need elements of @p size bytes; 0 or -1 (out of memory). */
static int grow(void **v, uint64_t *cap, size_t size, uint64_t need)
{
    if (need <= *cap)
        return 0;
    uint64_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    if (ncap > SIZE_MAX / size)
        return -1;
    void *nv = realloc(*v, (size_t)ncap * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

/*
 * Matches every point-to-point message the way MPI does (and the replay engine does): in each
 * channel (sender, receiver, communicator, tag), the k-th send posted matches the k-th receive
 * posted. Receives are posted at a blocking receive or an Irecv request; the arrow ends at the
 * completion. Peers are trace rows, so no communicator translation is needed.
 */
static int match_messages(struct writer *w)
{
    struct p2p *s = NULL, *rv = NULL;
    uint64_t ns = 0, nr = 0, caps = 0, capr = 0;
    int rc = RT_OK;
    for (uint32_t r = 0; r < w->ranks; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(w->t, r, &n);
        for (uint64_t j = 0; j < n; j++) {
            const struct rt_event *e = &ev[j];
            if ((e->kind == RT_EV_SEND || e->kind == RT_EV_ISEND) && !(e->flags & RT_EVF_CANCELLED) &&
                e->ref < w->ranks) {
                if (grow((void **)&s, &caps, sizeof *s, ns + 1))
                    goto oom;
                s[ns++] = (struct p2p){r, e->ref, (uint32_t)rt_trace_payload(w->t, r, j).comm, e->aux, w->base[r] + j, NO_INDEX};
            } else if (e->kind == RT_EV_RECV || e->kind == RT_EV_IRECV) {
                /* an Irecv's message fields are on its request, which refers to nothing else */
                uint64_t post = e->kind == RT_EV_RECV ? j : e->ref;
                if (post >= n || (e->kind == RT_EV_IRECV && ev[post].kind != RT_EV_IRECV_REQUEST) ||
                    ev[post].ref >= w->ranks)
                    continue;
                const struct rt_event *p = &ev[post];
                if (grow((void **)&rv, &capr, sizeof *rv, nr + 1))
                    goto oom;
                rv[nr++] = (struct p2p){p->ref, r, (uint32_t)rt_trace_payload(w->t, r, post).comm, p->aux, w->base[r] + post,
                                       w->base[r] + j};
            }
        }
    }
    if (ns)
        qsort(s, (size_t)ns, sizeof *s, cmp_p2p);
    if (nr)
        qsort(rv, (size_t)nr, sizeof *rv, cmp_p2p);
    uint64_t np = ns < nr ? ns : nr;
    if (np) {
        w->by_send = malloc((size_t)np * sizeof *w->by_send);
        w->by_done = malloc((size_t)np * sizeof *w->by_done);
        if (!w->by_send || !w->by_done)
            goto oom;
    }
    /* Zip the two sorted lists channel by channel. */
    for (uint64_t a = 0, b = 0; a < ns && b < nr;) {
        const struct p2p *x = &s[a], *y = &rv[b];
        int c = x->src != y->src ? (x->src < y->src ? -1 : 1)
              : x->dst != y->dst ? (x->dst < y->dst ? -1 : 1)
              : x->comm != y->comm ? (x->comm < y->comm ? -1 : 1)
              : x->tag != y->tag ? (x->tag < y->tag ? -1 : 1) : 0;
        if (c < 0) {
            a++;
        } else if (c > 0) {
            b++;
        } else {
            w->by_send[w->npairs++] = (struct pair){x->gid, y->done};
            a++;
            b++;
        }
    }
    if (w->npairs) {
        memcpy(w->by_done, w->by_send, (size_t)w->npairs * sizeof *w->by_done);
        qsort(w->by_send, (size_t)w->npairs, sizeof *w->by_send, cmp_by_send);
        qsort(w->by_done, (size_t)w->npairs, sizeof *w->by_done, cmp_by_done);
    }
    goto out;
oom:
    rc = rt_error_set(w->err, RT_ENOMEM, "out of memory matching the messages of %s", rt_trace_path(w->t));
out:
    free(s);
    free(rv);
    return rc;
}

/*
 * One pass over the timing: checks that it is complete and of this trace, that its critical
 * path was marked, and collects the collective edges and the critical path's hops between
 * ranks (their sources), which the writing pass needs at the source's rank.
 */
static int scan_timing(struct writer *w)
{
    uint64_t capc = 0, caph = 0, onpath = 0;
    rt_error scratch;
    struct rt_dep_event d;
    int rc = rt_depgraph_check(w->g, w->err);
    if (rc)
        return rc;
    if (rt_depgraph_event(w->g, w->ranks, 0, &d, &scratch) == RT_OK)
        return rt_error_set(w->err, RT_EINVAL, "%s: the timing has more ranks than the trace (%u)",
                            rt_trace_path(w->t), w->ranks);
    for (uint32_t r = 0; r < w->ranks; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(w->t, r, &n);
        if (rt_depgraph_event(w->g, r, n, &d, &scratch) == RT_OK ||
            (n && rt_depgraph_event(w->g, r, n - 1, &d, &scratch) != RT_OK))
            return rt_error_set(w->err, RT_EINVAL, "%s: the timing is not of this trace (rank %u has %llu events)",
                                rt_trace_path(w->t), r, (unsigned long long)n);
        for (uint64_t j = 0; j < n; j++) {
            if ((rc = dep(w, r, j, &d)))
                return rc;
            onpath += d.on_path;
            if (d.src_rank == r || d.src_rank >= w->ranks || !d.remote_binds)
                continue;
            if ((ev[j].kind == RT_EV_COLL_END || ev[j].kind == RT_EV_NBCOLL_END) && d.kind == RT_DEP_COLLECTIVE) {
                if (grow((void **)&w->coll, &capc, sizeof *w->coll, w->ncoll + 1))
                    return rt_error_set(w->err, RT_ENOMEM, "out of memory");
                w->coll[w->ncoll++] = (struct edge){w->base[d.src_rank] + d.src_index, w->base[r] + j};
            }
            if (d.on_path) {
                if (grow((void **)&w->hops, &caph, sizeof *w->hops, w->nhops + 1))
                    return rt_error_set(w->err, RT_ENOMEM, "out of memory");
                w->hops[w->nhops++] = w->base[d.src_rank] + d.src_index;
            }
        }
    }
    if (w->total && !onpath)
        return rt_error_set(w->err, RT_EINVAL,
                            "%s: the timing has no critical path marked (call rt_depgraph_critical_path first)",
                            rt_trace_path(w->t));
    if (w->ncoll)
        qsort(w->coll, (size_t)w->ncoll, sizeof *w->coll, cmp_edge);
    if (w->nhops)
        qsort(w->hops, (size_t)w->nhops, sizeof *w->hops, cmp_u64);
    return RT_OK;
}

/* The Enter/Leave pairs of rank @p r: w->leave[j] = the Leave of the Enter at j (NO_INDEX when
 * the rank's events end first). A Leave without an Enter is skipped. */
static int pair_regions(struct writer *w, uint32_t r)
{
    uint64_t n, depth = 0;
    const struct rt_event *ev = rt_trace_events(w->t, r, &n);
    if (grow((void **)&w->leave, &w->capleave, sizeof *w->leave, n))
        return rt_error_set(w->err, RT_ENOMEM, "out of memory");
    /* The open Enters are chained through w->leave itself: leave[j] holds the Enter below j
     * until j's Leave is found. */
    uint64_t top = NO_INDEX;
    for (uint64_t j = 0; j < n; j++) {
        if (ev[j].kind == RT_EV_ENTER) {
            w->leave[j] = top;
            top = j;
            depth++;
        } else if (ev[j].kind == RT_EV_LEAVE && depth) {
            uint64_t below = w->leave[top];
            w->leave[top] = j;
            top = below;
            depth--;
        }
    }
    while (depth--) {
        uint64_t below = w->leave[top];
        w->leave[top] = NO_INDEX;
        top = below;
    }
    return RT_OK;
}

/* ------------------------------------------------------------------ events */

static uint32_t tid_of(const struct writer *w, uint32_t r, int track)
{
    return (uint32_t)(track + 1) * w->tid_base + r;
}

/* Starts an event of traceEvents: one per line. */
static void next_event(struct writer *w)
{
    put_s(w->o, w->any ? ",\n{" : "\n{");
    w->any = 1;
}

static void head(struct writer *w, const char *ph, uint32_t r, int track, rt_time_ns ts)
{
    struct out *o = w->o;
    next_event(w);
    put_s(o, "\"ph\":\"");
    put_s(o, ph);
    put_s(o, "\",\"pid\":");
    put_u64(o, r);
    put_s(o, ",\"tid\":");
    put_u64(o, tid_of(w, r, track));
    put_s(o, ",\"ts\":");
    put_time(o, ts);
}

static void meta(struct writer *w, uint32_t r, int track, const char *what, const char *name, uint64_t index)
{
    struct out *o = w->o;
    next_event(w);
    put_s(o, "\"ph\":\"M\",\"pid\":");
    put_u64(o, r);
    put_s(o, ",\"tid\":");
    put_u64(o, tid_of(w, r, track));
    put_s(o, ",\"name\":\"");
    put_s(o, what);
    put_s(o, "\",\"args\":{");
    if (name) {
        put_s(o, "\"name\":");
        put_str(o, name);
    } else {
        put_s(o, "\"sort_index\":");
        put_u64(o, index);
    }
    put_s(o, "}}");
}

static const char *const flow_name[4] = {"message", "message", "collective", "critical path"};

static void flow(struct writer *w, int start, uint32_t r, int track, rt_time_ns ts, uint64_t gid, int kind)
{
    struct out *o = w->o;
    head(w, start ? "s" : "f", r, track, ts);
    put_s(o, ",\"id\":");
    put_u64(o, gid * 4 + (uint64_t)kind);
    put_s(o, ",\"name\":\"");
    put_s(o, flow_name[kind]);
    put_s(o, "\",\"cat\":\"");
    put_s(o, kind == FLOW_PATH ? "critical_path" : kind == FLOW_COLL ? "collective" : "message");
    put_s(o, start ? "\"}" : "\",\"bp\":\"e\"}");
    if (start)
        w->flows[kind]++;
}

/*
 * The end of an arrow whose start (on rank @p src_rank at @p src_ts) has the same time. Both
 * importers (catapult's and Perfetto's) pair an arrow's ends in time order, keeping the file's
 * order among equal times, and drop an end that comes before its start. Ranks are written in
 * order, so an end whose start is on a later rank is held back to the end of the file (the
 * critical path's hops always have equal times; messages and collectives only under a model
 * that costs nothing). Its slice is written by then, and an end binds to the slice enclosing
 * its time.
 */
static int flow_end(struct writer *w, uint32_t r, int track, rt_time_ns ts, uint64_t gid, int kind,
                    uint32_t src_rank, rt_time_ns src_ts)
{
    if (src_rank <= r || src_ts != ts) {
        flow(w, 0, r, track, ts, gid, kind);
        return RT_OK;
    }
    if (grow((void **)&w->late, &w->caplate, sizeof *w->late, w->nlate + 1))
        return rt_error_set(w->err, RT_ENOMEM, "out of memory");
    w->late[w->nlate++] = (struct late){gid, ts, r, (uint8_t)track, (uint8_t)kind};
    return RT_OK;
}

/* One key of an args object: `,"key":` or `"key":` first. */
static void arg(struct out *o, int *first, const char *key)
{
    put_s(o, *first ? "\"" : ",\"");
    *first = 0;
    put_s(o, key);
    put_s(o, "\":");
}

/*
 * The slice of the Enter at j (rank r) from @p beg to @p end on @p track. An MPI call's args
 * say what it moved, read from the events inside it (a call is short, so this stays
 * O(events)): the call site, the peers and bytes of its messages, its collective; a predicted
 * call that has an event on the critical path gets critical_path = true.
 */
static int slice(struct writer *w, uint32_t r, int track, uint64_t j, rt_time_ns beg, rt_time_ns end)
{
    struct out *o = w->o;
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(w->t, r, &n);
    const struct rt_event *e = &ev[j];
    const struct rt_region *reg = e->ref < rt_trace_regions(w->t) ? rt_trace_region(w->t, e->ref) : NULL;
    int mpi = (e->flags & RT_EVF_MPI) != 0;
    head(w, "X", r, track, beg);
    put_s(o, ",\"dur\":");
    put_time(o, end > beg ? end - beg : 0);
    put_s(o, ",\"name\":");
    put_str(o, reg && reg->name ? reg->name : "?");
    put_s(o, mpi ? ",\"cat\":\"mpi\",\"args\":{" : ",\"cat\":\"region\",\"args\":{");
    int first = 1;
    arg(o, &first, "event");
    put_u64(o, j);
    w->slices++;
    if (!mpi) {
        put_s(o, "}}");
        return RT_OK;
    }
    if (e->aux != RT_NONE && e->aux < rt_trace_callsites(w->t)) {
        const struct rt_callsite *cs = rt_trace_callsite(w->t, e->aux);
        char line[24];
        snprintf(line, sizeof line, ":%u", cs->line);
        arg(o, &first, "callsite"); /* one string: "function file:line" */
        put_c(o, '"');
        put_esc(o, cs->function ? cs->function : "??");
        put_c(o, ' ');
        put_esc(o, cs->file ? cs->file : "??");
        put_s(o, line);
        put_s(o, "\"");
    }
    uint64_t sends = 0, recvs = 0, sent = 0, received = 0, last = w->leave[j] == NO_INDEX ? n : w->leave[j];
    uint32_t to = RT_NONE, from = RT_NONE;
    int on_path = 0, coll = -1;
    uint32_t root = RT_NONE;
    for (uint64_t k = j; k <= last && k < n; k++) {
        const struct rt_event *x = &ev[k];
        if (track == TRACK_PRED && !on_path) {
            struct rt_dep_event d;
            int rc = dep(w, r, k, &d);
            if (rc)
                return rc;
            on_path = d.on_path;
        }
        switch (x->kind) {
        case RT_EV_SEND:
        case RT_EV_ISEND:
            sends++;
            sent += rt_trace_payload(w->t, r, k).bytes;
            to = x->ref;
            break;
        case RT_EV_RECV:
        case RT_EV_IRECV_REQUEST:
            recvs++;
            received += rt_trace_payload(w->t, r, k).bytes;
            from = x->ref;
            break;
        case RT_EV_IRECV:
            if (x->ref < n && ev[x->ref].kind == RT_EV_IRECV_REQUEST && ev[x->ref].ref != RT_NONE) {
                recvs++;
                received += rt_trace_payload(w->t, r, x->ref).bytes;
                from = ev[x->ref].ref;
            }
            break;
        case RT_EV_COLL_BEGIN:
            coll = x->aux <= RT_COLL_OTHER ? (int)x->aux : RT_COLL_OTHER;
            root = x->ref;
            sent += rt_trace_payload(w->t, r, k).bytes;
            break;
        case RT_EV_COLL_END:
            received += rt_trace_payload(w->t, r, k).bytes;
            break;
        case RT_EV_NBCOLL_BEGIN: /* its operation is on its end (aux) */
            if (x->flags & RT_EVF_CANCELLED)
                break;
            coll = x->aux < n && ev[x->aux].kind == RT_EV_NBCOLL_END && ev[x->aux].aux <= RT_COLL_OTHER
                       ? (int)ev[x->aux].aux : RT_COLL_OTHER;
            root = x->ref;
            sent += rt_trace_payload(w->t, r, k).bytes;
            break;
        case RT_EV_NBCOLL_END:
            coll = x->aux <= RT_COLL_OTHER ? (int)x->aux : RT_COLL_OTHER;
            root = x->ref < n ? ev[x->ref].ref : RT_NONE;
            received += rt_trace_payload(w->t, r, k).bytes;
            break;
        default:
            break;
        }
    }
    if (coll >= 0) {
        arg(o, &first, "collective");
        put_str(o, rt_coll_op_name(coll));
        if (root != RT_NONE) {
            arg(o, &first, "root");
            put_u64(o, root);
        }
    }
    if (sends == 1) {
        arg(o, &first, "to");
        put_u64(o, to);
    } else if (sends > 1) {
        arg(o, &first, "sends");
        put_u64(o, sends);
    }
    if (recvs == 1) {
        arg(o, &first, "from");
        put_u64(o, from);
    } else if (recvs > 1) {
        arg(o, &first, "receives");
        put_u64(o, recvs);
    }
    if (sends || coll >= 0) {
        arg(o, &first, "bytes_sent");
        put_u64(o, sent);
    }
    if (recvs || coll >= 0) {
        arg(o, &first, "bytes_received");
        put_u64(o, received);
    }
    if (on_path) {
        arg(o, &first, "critical_path");
        put_s(o, "true");
    }
    put_s(o, "}}");
    return RT_OK;
}

/* Position of the first element >= key in a sorted array of @p n. */
#define LOWER_BOUND(arr, n, field, key, pos)                   \
    do {                                                       \
        uint64_t lo_ = 0, hi_ = (n);                           \
        while (lo_ < hi_) {                                    \
            uint64_t mid_ = lo_ + (hi_ - lo_) / 2;             \
            if ((arr)[mid_] field < (key))                     \
                lo_ = mid_ + 1;                                \
            else                                               \
                hi_ = mid_;                                    \
        }                                                      \
        (pos) = lo_;                                           \
    } while (0)

/* A time of event gid on one of the two timings. */
static int time_of(const struct writer *w, uint64_t gid, int predicted, rt_time_ns *ns)
{
    uint64_t j;
    uint32_t r = rank_of(w, gid, &j);
    if (predicted)
        return pred_ns(w, r, j, ns);
    *ns = meas_ns(w, r, j);
    return RT_OK;
}

/* A message's arrow on a timing: when its send and its receive's completion happen. It is
 * drawn only when the receive completes no earlier than the send (@p ok); measured clocks out of
 * sync can break this, and such arrows are left out (counted). */
struct arrow {
    rt_time_ns send, done;
    uint32_t send_rank;
    int ok;
};

static int arrow_of(const struct writer *w, const struct pair *p, int predicted, struct arrow *a)
{
    uint64_t j;
    int rc = time_of(w, p->send, predicted, &a->send);
    if (!rc)
        rc = time_of(w, p->done, predicted, &a->done);
    a->send_rank = rank_of(w, p->send, &j);
    a->ok = !rc && a->send <= a->done;
    return rc;
}

/* A run of the critical path on one rank, open while its last event is not known. */
struct run {
    int open;
    uint64_t first, last, from_gid; /* from_gid: the hop's source, NO_INDEX at the run's start */
    uint32_t from_rank;
    rt_time_ns begin;
};

static int close_run(struct writer *w, uint32_t r, struct run *run)
{
    struct out *o = w->o;
    rt_time_ns end;
    int rc = pred_ns(w, r, run->last, &end);
    if (rc || !run->open)
        return rc;
    head(w, "X", r, TRACK_PATH, run->begin);
    put_s(o, ",\"dur\":");
    put_time(o, end - run->begin);
    put_s(o, ",\"name\":\"critical path\",\"cat\":\"critical_path\",\"cname\":\"terrible\",\"args\":{\"first_event\":");
    put_u64(o, run->first);
    put_s(o, ",\"last_event\":");
    put_u64(o, run->last);
    if (run->from_rank != RT_NONE) {
        put_s(o, ",\"from_rank\":");
        put_u64(o, run->from_rank);
    }
    put_s(o, "}}");
    w->slices++;
    w->segments++;
    w->path_ns += end - run->begin;
    if (run->from_gid != NO_INDEX)
        rc = flow_end(w, r, TRACK_PATH, run->begin, run->from_gid, FLOW_PATH, run->from_rank, run->begin);
    uint64_t gid = w->base[r] + run->last, pos;
    LOWER_BOUND(w->hops, w->nhops, + 0, gid, pos);
    if (pos < w->nhops && w->hops[pos] == gid)
        flow(w, 1, r, TRACK_PATH, end, gid, FLOW_PATH);
    run->open = 0;
    return rc;
}

/* Rank r's predicted thread (slices, message and collective arrows) and its critical path. */
static int write_predicted(struct writer *w, uint32_t r)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(w->t, r, &n);
    uint64_t ps, pd, pc;
    struct run run = {0};
    int rc = RT_OK;
    LOWER_BOUND(w->by_send, w->npairs, .send, w->base[r], ps);
    LOWER_BOUND(w->by_done, w->npairs, .done, w->base[r], pd);
    LOWER_BOUND(w->coll, w->ncoll, .src, w->base[r], pc);
    for (uint64_t j = 0; j < n && !rc; j++) {
        const struct rt_event *e = &ev[j];
        uint64_t gid = w->base[r] + j;
        struct rt_dep_event d;
        if ((rc = dep(w, r, j, &d)))
            break;
        rt_time_ns t = ps_to_ns(d.t);
        if (t > w->pred_end_ns)
            w->pred_end_ns = t;
        if (e->kind == RT_EV_ENTER) {
            rt_time_ns end;
            rc = pred_ns(w, r, w->leave[j] == NO_INDEX ? n - 1 : w->leave[j], &end);
            if (!rc)
                rc = slice(w, r, TRACK_PRED, j, t, end);
        }
        while (ps < w->npairs && w->by_send[ps].send < gid)
            ps++;
        if (ps < w->npairs && w->by_send[ps].send == gid) {
            struct arrow a;
            if (!rc && !(rc = arrow_of(w, &w->by_send[ps], 1, &a)) && a.ok)
                flow(w, 1, r, TRACK_PRED, t, gid, FLOW_MSG_PRED);
        }
        while (pd < w->npairs && w->by_done[pd].done < gid)
            pd++;
        if (pd < w->npairs && w->by_done[pd].done == gid) {
            struct arrow a;
            if (!rc && !(rc = arrow_of(w, &w->by_done[pd], 1, &a))) {
                if (a.ok)
                    rc = flow_end(w, r, TRACK_PRED, t, w->by_done[pd].send, FLOW_MSG_PRED, a.send_rank, a.send);
                else
                    w->skipped_pred++;
            }
        }
        for (; pc < w->ncoll && w->coll[pc].src <= gid; pc++)
            if (w->coll[pc].src == gid)
                flow(w, 1, r, TRACK_PRED, t, w->coll[pc].dst, FLOW_COLL);
        if (!rc && (e->kind == RT_EV_COLL_END || e->kind == RT_EV_NBCOLL_END) && d.kind == RT_DEP_COLLECTIVE &&
            d.remote_binds && d.src_rank != r &&
            d.src_rank < w->ranks) {
            rt_time_ns ts;
            if (!(rc = pred_ns(w, d.src_rank, d.src_index, &ts)))
                rc = flow_end(w, r, TRACK_PRED, t, gid, FLOW_COLL, d.src_rank, ts);
        }
        /* A run of the critical path starts where the path arrives from another rank (or at the
         * rank's first event, from the run's start) and ends at its last event before that. */
        if (!rc && d.on_path) {
            int from_other = d.remote_binds && d.src_rank != r && d.src_rank < w->ranks;
            if (from_other || (!d.remote_binds && j == 0)) {
                if ((rc = close_run(w, r, &run)))
                    break;
                run = (struct run){1, j, j, NO_INDEX, RT_NONE, 0};
                if (from_other) {
                    run.from_rank = d.src_rank;
                    run.from_gid = w->base[d.src_rank] + d.src_index;
                    rc = pred_ns(w, d.src_rank, d.src_index, &run.begin);
                }
            }
            run.last = j;
        }
    }
    if (!rc)
        rc = close_run(w, r, &run);
    return rc;
}

/* Rank r's measured thread: slices and message arrows at the measured times. */
static int write_measured(struct writer *w, uint32_t r)
{
    uint64_t n;
    const struct rt_event *ev = rt_trace_events(w->t, r, &n);
    uint64_t ps, pd;
    int rc = RT_OK;
    LOWER_BOUND(w->by_send, w->npairs, .send, w->base[r], ps);
    LOWER_BOUND(w->by_done, w->npairs, .done, w->base[r], pd);
    for (uint64_t j = 0; j < n && !rc; j++) {
        uint64_t gid = w->base[r] + j;
        rt_time_ns t = ev[j].time - w->t0;
        if (t > w->meas_end_ns)
            w->meas_end_ns = t;
        if (ev[j].kind == RT_EV_ENTER)
            rc = slice(w, r, TRACK_MEAS, j, t, meas_ns(w, r, w->leave[j] == NO_INDEX ? n - 1 : w->leave[j]));
        while (ps < w->npairs && w->by_send[ps].send < gid)
            ps++;
        if (!rc && ps < w->npairs && w->by_send[ps].send == gid) {
            struct arrow a;
            if (!(rc = arrow_of(w, &w->by_send[ps], 0, &a)) && a.ok)
                flow(w, 1, r, TRACK_MEAS, t, gid, FLOW_MSG_MEAS);
        }
        while (pd < w->npairs && w->by_done[pd].done < gid)
            pd++;
        if (!rc && pd < w->npairs && w->by_done[pd].done == gid) {
            struct arrow a;
            if (!(rc = arrow_of(w, &w->by_done[pd], 0, &a))) {
                if (a.ok)
                    rc = flow_end(w, r, TRACK_MEAS, t, w->by_done[pd].send, FLOW_MSG_MEAS, a.send_rank, a.send);
                else
                    w->skipped_meas++;
            }
        }
    }
    return rc;
}

static void other_data(struct writer *w)
{
    struct out *o = w->o;
    put_s(o, "\n],\n\"otherData\":{\"tool\":\"retime\",\"trace\":");
    put_str(o, rt_trace_path(w->t));
    put_s(o, ",\"ranks\":");
    put_u64(o, w->ranks);
    put_s(o, ",\"events\":");
    put_u64(o, w->total);
    put_s(o, ",\"time_unit\":\"us, ns precision, last digit a 0.1 ns guard\"");
    put_s(o, ",\"predicted_end_ns\":");
    put_i64(o, w->pred_end_ns);
    put_s(o, ",\"measured_end_ns\":");
    put_i64(o, w->meas_end_ns);
    put_s(o, ",\"critical_path_ns\":");
    put_i64(o, w->path_ns);
    put_s(o, ",\"critical_path_runs\":");
    put_u64(o, w->segments);
    put_s(o, ",\"messages\":");
    put_u64(o, w->npairs);
    put_s(o, ",\"message_arrows_predicted\":");
    put_u64(o, w->flows[FLOW_MSG_PRED]);
    put_s(o, ",\"message_arrows_measured\":");
    put_u64(o, w->flows[FLOW_MSG_MEAS]);
    put_s(o, ",\"measured_arrows_left_out\":");
    put_u64(o, w->skipped_meas);
    put_s(o, ",\"predicted_arrows_left_out\":");
    put_u64(o, w->skipped_pred);
    put_s(o, ",\"collective_arrows\":");
    put_u64(o, w->flows[FLOW_COLL]);
    put_s(o, ",\"slices\":");
    put_u64(o, w->slices);
    put_s(o, "}}\n");
}

int rt_perfetto_write(const rt_trace *trace, const rt_depgraph *timing, const char *path, rt_error *err)
{
    struct writer w = {.t = trace, .g = timing, .err = err};
    struct rt__outfile *of = NULL;
    int rc = RT_OK;
    if (!trace || !timing || !path)
        return rt_error_set(err, RT_EINVAL, "rt_perfetto_write: trace, timing and path are required");
    w.ranks = rt_trace_ranks(trace);
    if (w.ranks > 1000000000u)
        return rt_error_set(err, RT_ERANGE, "%s: %u ranks, more than a timeline's thread ids hold",
                            rt_trace_path(trace), w.ranks);
    w.tid_base = w.ranks <= 1000000u ? 1000000u : 1000000000u;
    w.o = malloc(sizeof *w.o);
    w.base = malloc(((size_t)w.ranks + 1) * sizeof *w.base);
    if (!w.o || !w.base) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto out;
    }
    w.o->f = NULL;
    w.o->n = 0;
    w.o->err = 0;
    w.t0 = INT64_MAX;
    for (uint32_t r = 0; r < w.ranks; r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(trace, r, &n);
        w.base[r] = w.total;
        w.total += n;
        if (n && ev[0].time < w.t0)
            w.t0 = ev[0].time;
    }
    w.base[w.ranks] = w.total;
    if (w.t0 == INT64_MAX)
        w.t0 = 0;
    if (w.total > (UINT64_MAX >> 3)) {
        rc = rt_error_set(err, RT_ERANGE, "%s: too many events for flow ids", rt_trace_path(trace));
        goto out;
    }
    if ((rc = scan_timing(&w)) || (rc = match_messages(&w)))
        goto out;
    if ((rc = rt__outfile_open(path, "timeline", &of, err)))
        goto out;
    w.o->f = rt__outfile_stream(of); /* a temporary file, renamed to @p path once whole */
    put_s(w.o, "{\"traceEvents\":[");
    for (uint32_t r = 0; r < w.ranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank %u", r);
        meta(&w, r, TRACK_PRED, "process_name", name, 0);
        meta(&w, r, TRACK_PRED, "process_sort_index", NULL, r);
        for (int k = 0; k < TRACKS; k++) {
            meta(&w, r, k, "thread_name", track_name[k], 0);
            meta(&w, r, k, "thread_sort_index", NULL, (uint64_t)k);
        }
    }
    for (uint32_t r = 0; r < w.ranks && !rc && !w.o->err; r++) {
        if (!(rc = pair_regions(&w, r)) && !(rc = write_predicted(&w, r)))
            rc = write_measured(&w, r);
    }
    if (rc)
        goto out;
    for (uint64_t i = 0; i < w.nlate; i++)
        flow(&w, 0, w.late[i].rank, w.late[i].track, w.late[i].ts, w.late[i].id_gid, w.late[i].kind);
    other_data(&w);
    out_flush(w.o);
    if (w.o->err)
        rc = rt_error_set(err, RT_EIO, "%s: cannot write the timeline: %s", path, strerror(w.o->err));
    else
        rc = rt__outfile_close(of, err), of = NULL;
out:
    rt__outfile_abort(of); /* after an error: no partial file is left */
    free(w.o);
    free(w.base);
    free(w.by_send);
    free(w.by_done);
    free(w.coll);
    free(w.hops);
    free(w.leave);
    free(w.late);
    return rc;
}
