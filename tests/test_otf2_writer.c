/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of rt_otf2_write: a replay's timing written as an OTF2 archive and read back.
 * On a synthetic trace with every event kind and flag the reader makes (sync, buffered,
 * cancelled and orphan requests, vector and "other" collectives, a sub-communicator with a
 * root), on every stored trace and on the Score-P traces beside the checkout when present:
 *   1. rt_trace_open of the written archive gives the same rows, location ids, names, regions,
 *      call sites, communicators and events (kind, ref, aux, comm, bytes, flags), and each
 *      event's time is its predicted time rounded to ns;
 *   2. the archive's own records carry the predicted time in ps exactly, the measured time as
 *      `retime::measured_ns`, and `retime::critical_path` on exactly the critical path's events;
 *   3. replaying the written archive under the same model (compute scale 1, no noise) gives
 *      every event the time the first replay gave it: to the ps with Hockney α = 2 µs,
 *      β = 1 ns/B (all costs whole ns), and with the paper's β = 0.7595 ns/B (fractional ns).
 * And the errors: an existing directory, a missing parent, a timing of another trace, a timing
 * that goes backwards (the half-written archive is removed), missing arguments.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2_builder.h"
#include "retime/depgraph.h"
#include "retime/otf2_writer.h"
#include "retime/replay.h"
#include "test_util.h"
#include "stored_traces.h"

static char tmp_root[256];
static int ndirs;

static void next_dir(char *dir, size_t n)
{
    snprintf(dir, n, "%s/d%d", tmp_root, ndirs++);
}

static void hockney(struct rt_replay_options *o, double alpha_ns, double beta_ns)
{
    struct rt_model_params p = {.alpha_ns = alpha_ns, .beta_ns_per_byte = beta_ns};
    rt_error err = {0};
    rt_replay_options_default(o);
    CHECK_EQ_INT(rt_model_init(&o->model, "hockney", &p, &err), RT_OK);
    o->compute_scale = 1;
}

/* Replays @p t under @p o into a graph with its critical path marked; NULL on failure. */
static rt_depgraph *timing(const rt_trace *t, const struct rt_replay_options *o, uint64_t *on_path)
{
    rt_depgraph *g = NULL;
    struct rt_replay_result *res = NULL;
    struct rt_replay_observer obs;
    const struct rt_critical_path *cp = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (!g)
        return NULL;
    rt_depgraph_observer(g, &obs);
    int rc = rt_replay_run(t, o, &obs, &res, &err);
    if (rc)
        fprintf(stderr, "replay of %s: %s\n", rt_trace_path(t), err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    rt_replay_result_destroy(res);
    CHECK_EQ_INT(rt_depgraph_critical_path(g, &cp, &err), RT_OK);
    if (rc || !cp) {
        rt_depgraph_destroy(g);
        return NULL;
    }
    if (on_path)
        *on_path = cp->events;
    return g;
}

static rt_time_ps t_of(const rt_depgraph *g, uint32_t r, uint64_t i, uint8_t *on_path)
{
    struct rt_dep_event d = {0};
    rt_error err = {0};
    CHECK_EQ_INT(rt_depgraph_event(g, r, i, &d, &err), RT_OK);
    if (on_path)
        *on_path = d.on_path;
    return d.t;
}

static int same_str(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* 1: the trace read back from the archive against the one it was written from. */
static void compare_traces(const rt_trace *a, const rt_trace *b, const rt_depgraph *g)
{
    int before = rt_test_failures;
    CHECK_EQ_INT(rt_trace_ranks(b), rt_trace_ranks(a));
    CHECK_EQ_INT(rt_trace_regions(b), rt_trace_regions(a));
    CHECK_EQ_INT(rt_trace_callsites(b), rt_trace_callsites(a));
    CHECK_EQ_INT(rt_trace_comms(b), rt_trace_comms(a));
    if (rt_test_failures != before)
        return;
    for (uint32_t i = 0; i < rt_trace_regions(a); i++) {
        const struct rt_region *x = rt_trace_region(a, i), *y = rt_trace_region(b, i);
        CHECK(same_str(x->name, y->name));
        CHECK_EQ_INT(x->is_mpi, y->is_mpi);
        CHECK_EQ_INT(x->role, y->role);
    }
    for (uint32_t i = 0; i < rt_trace_callsites(a); i++) {
        const struct rt_callsite *x = rt_trace_callsite(a, i), *y = rt_trace_callsite(b, i);
        if (!same_str(x->function, y->function) || !same_str(x->file, y->file) || x->line != y->line) {
            fprintf(stderr, "call site %u: %s %s:%u read back as %s %s:%u\n", i, x->function, x->file, x->line,
                    y->function, y->file, y->line);
            rt_test_failures++;
        }
    }
    for (uint32_t i = 0; i < rt_trace_comms(a); i++) {
        const struct rt_comm *x = rt_trace_comm(a, i), *y = rt_trace_comm(b, i);
        CHECK(same_str(x->name, y->name));
        CHECK_EQ_INT(x->size, y->size);
        CHECK_EQ_INT(x->members == NULL, y->members == NULL);
        for (uint32_t k = 0; x->members && y->members && k < x->size && k < y->size; k++)
            CHECK_EQ_INT(x->members[k], y->members[k]);
    }
    for (uint32_t r = 0; r < rt_trace_ranks(a); r++) {
        CHECK_EQ_INT(rt_trace_location_id(b, r), rt_trace_location_id(a, r));
        CHECK(same_str(rt_trace_rank_name(a, r), rt_trace_rank_name(b, r)));
        uint64_t na = 0, nb = 0;
        const struct rt_event *ea = rt_trace_events(a, r, &na), *eb = rt_trace_events(b, r, &nb);
        CHECK_EQ_INT(nb, na);
        int bad = 0;
        for (uint64_t i = 0; i < na && i < nb && bad < 3; i++) {
            rt_time_ps t = t_of(g, r, i, NULL);
            rt_time_ns want = (t + 500) / 1000; /* to the nearest ns, halves up; t >= 0 */
            const struct rt_event *x = &ea[i], *y = &eb[i];
            const struct rt_event_payload px = rt_trace_payload(a, r, i), py = rt_trace_payload(b, r, i);
            if (x->kind != y->kind || x->ref != y->ref || x->aux != y->aux || px.comm != py.comm ||
                px.bytes != py.bytes || x->flags != y->flags || y->time != want) {
                fprintf(stderr,
                        "%s rank %u event %llu: kind %u ref %u aux %u comm %u bytes %llu flags %#x, want %lld ns;"
                        " read back kind %u ref %u aux %u comm %u bytes %llu flags %#x, %lld ns\n",
                        rt_trace_path(a), r, (unsigned long long)i, x->kind, x->ref, x->aux, (unsigned)px.comm,
                        (unsigned long long)px.bytes, x->flags, (long long)want, y->kind, y->ref, y->aux, (unsigned)py.comm,
                        (unsigned long long)py.bytes, y->flags, (long long)y->time);
                rt_test_failures++;
                bad++;
            }
        }
    }
}

/* ------------------------------------------------------------------ the archive's own records */

struct raw {
    const rt_trace *t;
    const rt_depgraph *g;
    OTF2_StringRef str_cp, str_meas;      /* the attributes' names */
    OTF2_AttributeRef attr_cp, attr_meas; /* and their ids */
    uint32_t row;
    uint64_t next;     /* next event index on the row */
    uint64_t marked;   /* records carrying retime::critical_path */
    uint64_t cancels;  /* MpiRequestCancelled records */
    int bad;
};

static OTF2_CallbackCode raw_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef descr,
                                  OTF2_Type type)
{
    (void)descr; (void)type;
    struct raw *x = ud;
    if (name == x->str_cp)
        x->attr_cp = self;
    else if (name == x->str_meas)
        x->attr_meas = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode raw_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct raw *x = ud;
    if (!strcmp(s, "retime::critical_path"))
        x->str_cp = self;
    else if (!strcmp(s, "retime::measured_ns"))
        x->str_meas = self;
    return OTF2_CALLBACK_SUCCESS;
}

/* One event record: its timestamp, measured time and critical-path mark against the timing. */
static OTF2_CallbackCode raw_event(struct raw *x, OTF2_TimeStamp ts, OTF2_AttributeList *al)
{
    uint64_t n = 0;
    const struct rt_event *ev = rt_trace_events(x->t, x->row, &n);
    if (x->next >= n) {
        x->bad++;
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint8_t on = 0;
    rt_time_ps t = t_of(x->g, x->row, x->next, &on);
    OTF2_AttributeValue v;
    OTF2_Type type;
    int has_meas = al && OTF2_AttributeList_GetAttributeByID(al, x->attr_meas, &type, &v) == OTF2_SUCCESS &&
                   type == OTF2_TYPE_INT64 && v.int64 == ev[x->next].time;
    int has_cp = al && OTF2_AttributeList_GetAttributeByID(al, x->attr_cp, &type, &v) == OTF2_SUCCESS &&
                 type == OTF2_TYPE_UINT8 && v.uint8 == 1;
    if ((uint64_t)t != ts || !has_meas || has_cp != on) {
        if (x->bad++ < 3)
            fprintf(stderr, "rank %u event %llu: record at %llu ps (want %lld), measured %s, critical %d (want %d)\n",
                    x->row, (unsigned long long)x->next, (unsigned long long)ts, (long long)t,
                    has_meas ? "ok" : "missing or wrong", has_cp, on);
    }
    x->marked += has_cp;
    x->next++;
    return OTF2_CALLBACK_SUCCESS;
}

#define RAW_ARGS OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *ud, OTF2_AttributeList *al
static OTF2_CallbackCode raw_enter(RAW_ARGS, OTF2_RegionRef r) { (void)loc; (void)pos; (void)r; return raw_event(ud, ts, al); }
static OTF2_CallbackCode raw_leave(RAW_ARGS, OTF2_RegionRef r) { (void)loc; (void)pos; (void)r; return raw_event(ud, ts, al); }
static OTF2_CallbackCode raw_send(RAW_ARGS, uint32_t p, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    (void)loc; (void)pos; (void)p; (void)c; (void)tag; (void)len;
    return raw_event(ud, ts, al);
}
static OTF2_CallbackCode raw_isend(RAW_ARGS, uint32_t p, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{
    (void)loc; (void)pos; (void)p; (void)c; (void)tag; (void)len; (void)req;
    return raw_event(ud, ts, al);
}
static OTF2_CallbackCode raw_req(RAW_ARGS, uint64_t req) { (void)loc; (void)pos; (void)req; return raw_event(ud, ts, al); }
static OTF2_CallbackCode raw_cancel(RAW_ARGS, uint64_t req)
{
    (void)loc; (void)ts; (void)pos; (void)req; (void)al;
    ((struct raw *)ud)->cancels++;
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode raw_begin(RAW_ARGS) { (void)loc; (void)pos; return raw_event(ud, ts, al); }
static OTF2_CallbackCode raw_end(RAW_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s, uint64_t r)
{
    (void)loc; (void)pos; (void)op; (void)c; (void)root; (void)s; (void)r;
    return raw_event(ud, ts, al);
}

/* 2: reads the archive with OTF2 itself: exact ps timestamps, the measured time on every event,
 * the critical-path mark on exactly the path's events. */
static void check_records(const char *dir, const rt_trace *t, const rt_depgraph *g, uint64_t on_path)
{
    char anchor[1100];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    struct raw x = {.t = t, .g = g, .str_cp = OTF2_UNDEFINED_STRING, .str_meas = OTF2_UNDEFINED_STRING,
                    .attr_cp = OTF2_UNDEFINED_ATTRIBUTE, .attr_meas = OTF2_UNDEFINED_ATTRIBUTE};
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    CHECK(rd != NULL);
    if (!rd)
        return;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, raw_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gcb, raw_attr);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &x);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t n = 0;
    CHECK_EQ_INT(OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n), OTF2_SUCCESS);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    CHECK(x.attr_cp != OTF2_UNDEFINED_ATTRIBUTE && x.attr_meas != OTF2_UNDEFINED_ATTRIBUTE);
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++)
        OTF2_Reader_SelectLocation(rd, rt_trace_location_id(t, r));
    OTF2_Reader_OpenEvtFiles(rd);
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, raw_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, raw_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, raw_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, raw_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, raw_isend);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, raw_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, raw_req);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, raw_req);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, raw_cancel);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, raw_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, raw_end);
    uint64_t cancelled = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t nev = 0;
        const struct rt_event *ev = rt_trace_events(t, r, &nev);
        for (uint64_t i = 0; i < nev; i++)
            cancelled += ev[i].kind == RT_EV_ISEND && (ev[i].flags & RT_EVF_CANCELLED);
        x.row = r;
        x.next = 0;
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, rt_trace_location_id(t, r));
        CHECK(er != NULL);
        if (!er)
            continue;
        OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, &x);
        CHECK_EQ_INT(OTF2_Reader_ReadAllLocalEvents(rd, er, &n), OTF2_SUCCESS);
        OTF2_Reader_CloseEvtReader(rd, er);
        CHECK_EQ_INT(x.next, nev);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    CHECK_EQ_INT(x.bad, 0);
    CHECK_EQ_INT(x.marked, on_path);
    CHECK_EQ_INT(x.cancels, cancelled);
}

/* ------------------------------------------------------------------ round trips */

struct drift {
    uint64_t events, differ;
    rt_time_ps max_abs;
};

/* Writes @p t's timing under @p o, checks 1 and 2, replays the archive under @p o again and
 * returns how far its times are from the first replay's (3). */
static struct drift round_trip(const rt_trace *t, const struct rt_replay_options *o, int print_check)
{
    struct drift d = {0};
    uint64_t on_path = 0;
    rt_depgraph *g = timing(t, o, &on_path);
    if (!g)
        return d;
    char dir[300];
    next_dir(dir, sizeof dir);
    rt_error err = {0};
    int rc = rt_otf2_write(t, g, dir, &err);
    if (rc)
        fprintf(stderr, "rt_otf2_write %s: %s\n", rt_trace_path(t), err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    rt_trace *b = NULL;
    if (rc == RT_OK) {
        rc = rt_trace_open(dir, &b, &err);
        if (rc)
            fprintf(stderr, "reading back %s: %s\n", dir, err.msg);
        CHECK_EQ_INT(rc, RT_OK);
    }
    CHECK(on_path > 0);
    if (b) {
        compare_traces(t, b, g);
        check_records(dir, t, g, on_path);
        rt_depgraph *g2 = timing(b, o, NULL);
        for (uint32_t r = 0; g2 && r < rt_trace_ranks(t); r++) {
            uint64_t n = 0;
            rt_trace_events(t, r, &n);
            for (uint64_t i = 0; i < n; i++) {
                rt_time_ps x = t_of(g, r, i, NULL), y = t_of(g2, r, i, NULL);
                rt_time_ps a = y > x ? y - x : x - y;
                d.events++;
                d.differ += a != 0;
                d.max_abs = a > d.max_abs ? a : d.max_abs;
            }
        }
        rt_depgraph_destroy(g2);
        rt_trace_close(b);
    }
    /* otf2-print (when installed) reads the archive and shows the critical-path attribute. */
    if (print_check && rc == RT_OK && system("command -v otf2-print >/dev/null 2>&1") == 0) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "otf2-print '%s/traces.otf2' > '%s.print' 2>&1 && grep -q '\"retime::critical_path\"' '%s.print' &&"
                 " grep -q '\"retime::measured_ns\"' '%s.print' && grep -q '\"retime::callsite\"' '%s.print'",
                 dir, dir, dir, dir, dir);
        CHECK_EQ_INT(system(cmd), 0);
    }
    rt_depgraph_destroy(g);
    return d;
}

static rt_trace *open_trace(const char *path)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    int rc = rt_trace_open(path, &t, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    return t;
}

/* Both models on one trace: exact with whole-ns costs, and what the paper's β does. */
static void both_models(const char *path, int print_check)
{
    rt_trace *t = open_trace(path);
    if (!t)
        return;
    struct rt_replay_options whole, paper;
    hockney(&whole, 2000, 1.0);
    hockney(&paper, 2122, 0.7595);
    struct drift a = round_trip(t, &whole, print_check);
    struct drift b = round_trip(t, &paper, 0);
    printf("%-60s %8llu events  alpha=2us beta=1ns/B: %llu differ (max %lld ps)  beta=0.7595ns/B: %llu differ "
           "(max %lld ps)\n",
           path, (unsigned long long)a.events, (unsigned long long)a.differ, (long long)a.max_abs,
           (unsigned long long)b.differ, (long long)b.max_abs);
    CHECK(a.events > 0);
    CHECK_EQ_INT(a.differ, 0);
    /* With fractional-ns costs the archive's times are rounded to ns, but every compute gap
     * between two predicted times is a whole measured ns and keeps its length, and every
     * communication cost is recomputed in ps: the second replay gives the same times too. */
    CHECK_EQ_INT(b.differ, 0);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ a synthetic trace */

/* Three ranks with every event kind and flag the reader makes, and a communicator whose ranks
 * are not the world's. */
static void make_synthetic(const char *dir)
{
    tb_builder *b = tb_create(dir, 3);
    CHECK(b != NULL);
    if (!b)
        return;
    uint32_t pair[2] = {1, 0}; /* comm rank k is world rank 1 - k */
    uint32_t sub = tb_comm(b, "sub", 2, pair);
    for (uint32_t r = 0; r < 3; r++)
        tb_enter(b, r, 0, "main");
    /* rank 0 */
    tb_call_send(b, 0, 10, 20, "MPI_Ssend", 1, 1, 100);           /* RT_EVF_SYNC */
    tb_enter(b, 0, 30, "MPI_Isend");
    tb_isend(b, 0, 30, 1, 2, 200, 5);
    tb_leave(b, 0, 35, "MPI_Isend");
    tb_call_send(b, 0, 40, 45, "MPI_Bsend", 1, 3, 50);            /* RT_EVF_BUFFERED */
    tb_enter(b, 0, 50, "MPI_Wait");
    tb_isend_complete(b, 0, 60, 5);
    tb_leave(b, 0, 60, "MPI_Wait");
    tb_enter(b, 0, 70, "MPI_Irecv");
    tb_irecv_request(b, 0, 70, 8);                                /* never completed: cancelled */
    tb_leave(b, 0, 72, "MPI_Irecv");
    tb_enter(b, 0, 80, "MPI_Recv");
    tb_irecv(b, 0, 90, 1, 4, 10, 99);                             /* no post recorded: orphan */
    tb_leave(b, 0, 90, "MPI_Recv");
    tb_isend_complete(b, 0, 91, 1234);                            /* orphan completion: dropped */
    /* rank 1 */
    tb_call_recv(b, 1, 10, 25, 0, 1, 100);
    tb_enter(b, 1, 26, "MPI_Irecv");
    tb_irecv_request(b, 1, 26, 3);
    tb_leave(b, 1, 27, "MPI_Irecv");
    tb_call_recv(b, 1, 41, 46, 0, 3, 50);
    tb_enter(b, 1, 47, "MPI_Wait");
    tb_irecv(b, 1, 61, 0, 2, 200, 3);
    tb_leave(b, 1, 61, "MPI_Wait");
    tb_call_send(b, 1, 85, 88, "MPI_Send", 0, 4, 10);
    /* collectives: a vector one on WORLD, a rooted one on the sub-communicator, an "other" one */
    for (uint32_t r = 0; r < 3; r++)
        tb_collective(b, r, 100 + r, 150, "MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV, 0, 8 * (r + 1),
                      r == 0 ? 48 : 0);
    for (uint32_t r = 0; r < 2; r++)
        tb_collective_on(b, r, 160, 170 + r, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, sub, 1, r == 0 ? 64 : 0, 64);
    for (uint32_t r = 0; r < 3; r++)
        tb_collective(b, r, 180, 190, "MPI_Comm_dup", OTF2_COLLECTIVE_OP_CREATE_HANDLE, OTF2_UNDEFINED_UINT32, 0, 0);
    for (uint32_t r = 0; r < 3; r++)
        tb_leave(b, r, 200 + r, "main");
    CHECK_EQ_INT(tb_close(b), 0);
}

static void test_synthetic(void)
{
    char dir[300];
    next_dir(dir, sizeof dir);
    make_synthetic(dir);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    /* the trace has what it is meant to cover */
    uint8_t flags = 0;
    int kinds = 0, rooted = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t n = 0;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++) {
            flags |= ev[i].flags;
            kinds |= 1 << ev[i].kind;
            rooted += ev[i].kind == RT_EV_COLL_BEGIN && rt_trace_payload(t, r, i).comm != 0 && ev[i].ref == 0; /* sub's rank 1 */
        }
    }
    CHECK_EQ_INT(flags, RT_EVF_SYNC | RT_EVF_BUFFERED | RT_EVF_MPI | RT_EVF_CANCELLED | RT_EVF_ORPHAN | RT_EVF_VECTOR);
    CHECK_EQ_INT(kinds, 0x7fe); /* kinds 1..10 */
    CHECK_EQ_INT(rooted, 2);
    both_models(dir, 0);
    rt_trace_close(t);
}

/* What the builder cannot make, written with OTF2 itself: a cancelled send (MpiRequestCancelled),
 * Score-P style call sites (SOURCE_CODE_LOCATION attributes, besides a calling context), a
 * message on MPI_COMM_SELF, sparse location ids in reverse order with their own names, and a
 * 2.5 GHz clock. */
static OTF2_FlushType raw_pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud; (void)ft; (void)loc; (void)cd; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp raw_post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud; (void)ft; (void)loc;
    return 0;
}

static void make_raw(const char *dir)
{
    static const OTF2_FlushCallbacks flush = {raw_pre_flush, raw_post_flush};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    CHECK(ar != NULL);
    if (!ar)
        return;
    OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    enum { R_MAIN, R_ISEND, R_SEND, R_RECV, R_CANCEL, R_WAIT };
    enum { C_WORLD, C_SELF };
    const uint64_t loc[2] = {9, 4}; /* rank 0 is location 9: rows are 4 (rank 1), then 9 */
    const uint64_t T = 2500;        /* ticks per µs */
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, loc[0]);
    OTF2_EvtWriter_Enter(w, NULL, 0, R_MAIN);
    OTF2_AttributeList_AddSourceCodeLocationRef(al, 0, 1);
    OTF2_EvtWriter_Enter(w, al, 1 * T, R_ISEND);
    OTF2_EvtWriter_MpiIsend(w, NULL, 1 * T + 1, 1, C_WORLD, 7, 64, 42);
    OTF2_EvtWriter_Leave(w, NULL, 2 * T, R_ISEND);
    OTF2_EvtWriter_Enter(w, NULL, 3 * T, R_CANCEL);
    OTF2_EvtWriter_MpiRequestCancelled(w, NULL, 3 * T + 3, 42);
    OTF2_EvtWriter_Leave(w, NULL, 4 * T, R_CANCEL);
    OTF2_AttributeList_AddCallingContextRef(al, 1, 0);
    OTF2_EvtWriter_Enter(w, al, 5 * T, R_SEND);
    OTF2_EvtWriter_MpiSend(w, NULL, 5 * T + 2, 1, C_WORLD, 8, 128);
    OTF2_EvtWriter_Leave(w, NULL, 6 * T, R_SEND);
    OTF2_AttributeList_AddSourceCodeLocationRef(al, 0, 0);
    OTF2_EvtWriter_Enter(w, al, 7 * T, R_ISEND); /* to itself on MPI_COMM_SELF */
    OTF2_EvtWriter_MpiIsend(w, NULL, 7 * T, 0, C_SELF, 9, 16, 43);
    OTF2_EvtWriter_Leave(w, NULL, 7 * T + 5, R_ISEND);
    OTF2_EvtWriter_Enter(w, NULL, 8 * T, R_RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, 8 * T + 7, 0, C_SELF, 9, 16);
    OTF2_EvtWriter_Leave(w, NULL, 8 * T + 9, R_RECV);
    OTF2_EvtWriter_Enter(w, NULL, 9 * T, R_WAIT);
    OTF2_EvtWriter_MpiIsendComplete(w, NULL, 9 * T + 1, 43);
    OTF2_EvtWriter_Leave(w, NULL, 9 * T + 2, R_WAIT);
    OTF2_EvtWriter_Leave(w, NULL, 10 * T, R_MAIN);
    uint64_t n0 = 0, n1 = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &n0);
    OTF2_Archive_CloseEvtWriter(ar, w);
    w = OTF2_Archive_GetEvtWriter(ar, loc[1]);
    OTF2_EvtWriter_Enter(w, NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w, NULL, 2 * T, R_RECV);
    OTF2_EvtWriter_MpiRecv(w, NULL, 7 * T, 0, C_WORLD, 8, 128);
    OTF2_EvtWriter_Leave(w, NULL, 7 * T + 1, R_RECV);
    OTF2_EvtWriter_Leave(w, NULL, 10 * T + 1, R_MAIN);
    OTF2_EvtWriter_GetNumberOfEvents(w, &n1);
    OTF2_Archive_CloseEvtWriter(ar, w);
    OTF2_AttributeList_Delete(al);
    OTF2_Archive_CloseEvtFiles(ar);

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000 * T, 0, 10 * T + 2, OTF2_UNDEFINED_TIMESTAMP);
    static const char *const str[] = {"", "main", "MPI_Isend", "MPI_Send", "MPI_Recv", "MPI_Cancel", "MPI_Wait",
                                      "node", "proc 0", "proc 1", "thread A", "thread B", "MPI_COMM_WORLD",
                                      "MPI_COMM_SELF", "a.c", "b.c", "SOURCE_CODE_LOCATION", "retime::callsite",
                                      "c.c"};
    for (uint32_t i = 0; i < sizeof str / sizeof *str; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    OTF2_GlobalDefWriter_WriteAttribute(g, 0, 16, 0, OTF2_TYPE_SOURCE_CODE_LOCATION);
    OTF2_GlobalDefWriter_WriteAttribute(g, 1, 17, 0, OTF2_TYPE_CALLING_CONTEXT);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 7, 7, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 8 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, loc[r], 10 + r, OTF2_LOCATION_TYPE_CPU_THREAD, r ? n1 : n0, r);
    }
    for (uint32_t i = 0; i <= R_WAIT; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, i, 1 + i, 1 + i, 0, i ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
                                         i ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, 0, 14, 10);
    OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, 1, 15, 20);
    OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, 2, 18, 30);
    OTF2_GlobalDefWriter_WriteCallingContext(g, 0, R_MAIN, 2, OTF2_UNDEFINED_CALLING_CONTEXT);
    const uint64_t ranks[2] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    2, loc);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                    ranks);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0,
                                    NULL);
    OTF2_GlobalDefWriter_WriteComm(g, C_WORLD, 12, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(g, C_SELF, 13, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    CHECK_EQ_INT(OTF2_Archive_Close(ar), OTF2_SUCCESS);
}

static void test_raw(void)
{
    char dir[300];
    next_dir(dir, sizeof dir);
    make_raw(dir);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    /* what it is meant to cover */
    CHECK_EQ_INT(rt_trace_ranks(t), 2);
    CHECK_EQ_INT(rt_trace_location_id(t, 0), 4);
    CHECK(same_str(rt_trace_rank_name(t, 0), "thread B"));
    CHECK_EQ_INT(rt_trace_callsites(t), 3);
    if (rt_trace_callsites(t) == 3) {
        CHECK(same_str(rt_trace_callsite(t, 0)->function, "main"));
        CHECK(same_str(rt_trace_callsite(t, 1)->function, "??"));
        CHECK(same_str(rt_trace_callsite(t, 2)->file, "b.c"));
    }
    uint64_t n = 0;
    const struct rt_event *ev = rt_trace_events(t, 1, &n);
    CHECK(n > 2 && ev[2].kind == RT_EV_ISEND && (ev[2].flags & RT_EVF_CANCELLED));
    CHECK(n > 1 && ev[1].aux == 2); /* the Isend's call site: b.c:20 */
    both_models(dir, 0);
    rt_trace_close(t);
}

/* The measured timing (rt_depgraph_measured) written and read back gives the measured times, from
 * the earliest event on. */
static void test_measured(const char *path)
{
    rt_trace *t = open_trace(path), *b = NULL;
    if (!t)
        return;
    struct rt_replay_options o;
    hockney(&o, 2000, 1.0);
    rt_depgraph *g = timing(t, &o, NULL), *m = NULL;
    struct rt_measured_info mi;
    const struct rt_critical_path *cp = NULL;
    rt_error err = {0};
    char dir[300];
    CHECK(g != NULL);
    if (g)
        CHECK_EQ_INT(rt_depgraph_measured(t, g, &m, &mi, &err), RT_OK);
    if (m)
        CHECK_EQ_INT(rt_depgraph_critical_path(m, &cp, &err), RT_OK);
    next_dir(dir, sizeof dir);
    if (cp) {
        CHECK_EQ_INT(rt_otf2_write(t, m, dir, &err), RT_OK);
        CHECK_EQ_INT(rt_trace_open(dir, &b, &err), RT_OK);
    }
    if (b) {
        compare_traces(t, b, m);
        check_records(dir, t, m, cp->events);
        rt_time_ns first = INT64_MAX;
        for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
            uint64_t n = 0;
            const struct rt_event *ev = rt_trace_events(t, r, &n);
            first = n && ev[0].time < first ? ev[0].time : first;
        }
        uint64_t differ = 0;
        for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
            uint64_t na = 0, nb = 0;
            const struct rt_event *ea = rt_trace_events(t, r, &na), *eb = rt_trace_events(b, r, &nb);
            for (uint64_t i = 0; i < na && i < nb; i++)
                differ += eb[i].time != ea[i].time - first;
        }
        CHECK_EQ_INT(differ, 0);
    }
    rt_trace_close(b);
    rt_depgraph_destroy(m);
    rt_depgraph_destroy(g);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ errors */

static void test_errors(const char *path)
{
    rt_trace *t = open_trace(path), *other = NULL;
    if (!t)
        return;
    struct rt_replay_options o;
    hockney(&o, 2000, 1.0);
    rt_depgraph *g = timing(t, &o, NULL);
    rt_error err = {0};
    char dir[300], file[400];

    /* an existing directory is never written into, and stays as it was */
    next_dir(dir, sizeof dir);
    CHECK_EQ_INT(mkdir(dir, 0777), 0);
    snprintf(file, sizeof file, "%s/keep", dir);
    FILE *f = fopen(file, "w");
    if (f)
        fclose(f);
    CHECK_EQ_INT(rt_otf2_write(t, g, dir, &err), RT_EIO);
    CHECK_EQ_INT(err.code, RT_EIO);
    CHECK_CONTAINS(err.msg, dir);
    CHECK_CONTAINS(err.msg, "already exists");
    CHECK_EQ_INT(access(file, F_OK), 0);

    /* a directory that cannot be made */
    snprintf(file, sizeof file, "%s/no/such/parent", dir);
    CHECK_EQ_INT(rt_otf2_write(t, g, file, &err), RT_EIO);
    CHECK_CONTAINS(err.msg, file);
    CHECK_CONTAINS(err.msg, "cannot create");

    /* the timing of another trace */
    char syn[300];
    next_dir(syn, sizeof syn);
    make_synthetic(syn);
    other = open_trace(syn);
    rt_depgraph *go = other ? timing(other, &o, NULL) : NULL;
    next_dir(dir, sizeof dir);
    CHECK_EQ_INT(rt_otf2_write(t, go, dir, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "does not belong to this trace");
    CHECK(access(dir, F_OK) != 0);

    /* a timing whose last event goes backwards: found while writing, after the directory was
     * made; the half-written archive is removed */
    rt_depgraph *bad = NULL;
    CHECK_EQ_INT(rt_depgraph_create(t, &bad, &err), RT_OK);
    uint32_t last_rank = rt_trace_ranks(t) - 1;
    for (uint32_t r = 0; bad && r < rt_trace_ranks(t); r++) {
        uint64_t n = 0;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++) {
            rt_time_ps tt = r == last_rank && i == n - 1 ? 0 : (rt_time_ps)(i + 1) * 1000;
            struct rt_dep d = {.local_ready = tt, .remote_ready = INT64_MIN, .src_rank = RT_NONE};
            rt_depgraph_on_dep(bad, r, i, &ev[i], tt, &d);
        }
    }
    next_dir(dir, sizeof dir);
    CHECK_EQ_INT(rt_otf2_write(t, bad, dir, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "before the previous event's");
    CHECK_CONTAINS(err.msg, dir);
    CHECK(access(dir, F_OK) != 0);

    CHECK_EQ_INT(rt_otf2_write(t, g, NULL, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_otf2_write(NULL, g, dir, &err), RT_EINVAL);
    CHECK_EQ_INT(rt_otf2_write(t, NULL, dir, NULL), RT_EINVAL);
    CHECK(access(dir, F_OK) != 0);

    rt_depgraph_destroy(bad);
    rt_depgraph_destroy(go);
    rt_depgraph_destroy(g);
    rt_trace_close(other);
    rt_trace_close(t);
}

/* ------------------------------------------------------------------ stored traces */

static void test_stored_traces(void)
{
    rt_test_on_traces(RT_TRACES_DIR, RT_EXT_TRACES_DIR, both_models);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "%s/otf2-writer-XXXXXX", RT_TMP_DIR);
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_synthetic();
    test_raw();
    test_measured(RT_TRACES_DIR "/shift1d-isend-p8-k2-m1000");
    test_errors(RT_TRACES_DIR "/shift1d-ssend-p8-k1-m1000");
    test_stored_traces();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
