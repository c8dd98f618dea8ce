/* SPDX-License-Identifier: MIT */
/*
 * Tests of the Chrome trace-event (Perfetto) timeline writer. The C side checks the writer's
 * error paths; the JSON it writes is checked by tests/perfetto_schema.py (run by
 * tests/perfetto_check.sh), against values this program derives independently of the writer:
 *
 *   test_perfetto OUTDIR [TRACE_DIR...]
 *
 * writes OUTDIR/<name>.json and OUTDIR/<name>.expect.json for synthetic traces (names that need
 * escaping and invalid UTF-8, nonblocking messages, a collective with a late member, a
 * rendezvous with a late receiver) and for every stored TRACE_DIR, replayed under Hockney
 * (α = 2122 ns, β = 0.7595 ns/B, compute scale 0). The expectations come from the replay's
 * result and the library's critical path (not from the writer): the ranks, the predicted and
 * measured end of every rank, the critical path's runs (rank, begin, end) as
 * rt_depgraph_critical_path lists them, the number of point-to-point messages the trace
 * recorded, and for Shift traces the closed form of a `shift_iteration` (rt_shift_predict).
 */
#define _POSIX_C_SOURCE 200809L
#include <libgen.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "otf2_builder.h"
#include "retime/depgraph.h"
#include "retime/perfetto.h"
#include "retime/replay.h"
#include "retime/shift_model.h"
#include "test_util.h"

#define ALPHA 2122.0
#define BETA 0.7595

static const char *outdir;

static int64_t ns_of(rt_time_ps ps) { return (ps + 500) / 1000; }

/* Replays @p t under Hockney into a new graph with its critical path marked. */
static rt_depgraph *replay(const rt_trace *t, double scale, struct rt_replay_result **res,
                           const struct rt_critical_path **cp)
{
    struct rt_model_params p = {.alpha_ns = ALPHA, .beta_ns_per_byte = BETA};
    struct rt_replay_options o;
    struct rt_replay_observer obs;
    rt_depgraph *g = NULL;
    rt_error err = {0};
    rt_replay_options_default(&o);
    CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &p, &err), RT_OK);
    o.compute_scale = scale;
    CHECK_EQ_INT(rt_depgraph_create(t, &g, &err), RT_OK);
    if (!g)
        return NULL;
    rt_depgraph_observer(g, &obs);
    int rc = rt_replay_run(t, &o, &obs, res, &err);
    if (rc)
        fprintf(stderr, "replay: %s\n", err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    if (cp) {
        CHECK_EQ_INT(rt_depgraph_critical_path(g, cp, &err), RT_OK);
    }
    return g;
}

/* Writes NAME.json and NAME.expect.json. @p region / @p region_ns: a region whose predicted
 * instances all last region_ns (NULL: none); @p names: slice names the file must hold, as
 * read back (NULL-terminated; NULL: none). */
static void write_case(const char *name, const rt_trace *t, double scale, const char *region, double region_ns,
                       const char *const *names)
{
    struct rt_replay_result *res = NULL;
    const struct rt_critical_path *cp = NULL;
    rt_error err = {0};
    char path[4096], epath[4096];
    rt_depgraph *g = replay(t, scale, &res, &cp);
    if (!g || !res || !cp) {
        CHECK(0);
        rt_depgraph_destroy(g);
        rt_replay_result_destroy(res);
        return;
    }
    snprintf(path, sizeof path, "%s/%s.json", outdir, name);
    snprintf(epath, sizeof epath, "%s/%s.expect.json", outdir, name);
    int rc = rt_perfetto_write(t, g, path, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    FILE *f = fopen(epath, "w");
    CHECK(f != NULL);
    if (f) {
        const struct rt_trace_stats *st = rt_trace_stats(t);
        uint32_t n = rt_trace_ranks(t);
        fprintf(f, "{\"ranks\": %u, \"events\": %llu, \"messages\": %llu, \"predicted_end_ns\": %lld,\n", n,
                (unsigned long long)st->events, (unsigned long long)(st->sends + st->isends),
                (long long)ns_of(res->predicted_ps));
        fprintf(f, " \"rank_predicted_end_ns\": [");
        for (uint32_t r = 0; r < n; r++)
            fprintf(f, "%s%lld", r ? ", " : "", (long long)ns_of(res->predicted_end_ps[r]));
        /* measured_end_ns counts from the earliest measured start, as the timeline does */
        fprintf(f, "],\n \"rank_measured_end_ns\": [");
        for (uint32_t r = 0; r < n; r++)
            fprintf(f, "%s%lld", r ? ", " : "", (long long)res->measured_end_ns[r]);
        fprintf(f, "],\n \"critical_path\": [");
        for (uint64_t s = 0; s < cp->nseg; s++)
            fprintf(f, "%s\n  [%u, %lld, %lld]", s ? "," : "", cp->seg[s].rank, (long long)ns_of(cp->seg[s].begin_ps),
                    (long long)ns_of(cp->seg[s].end_ps));
        fprintf(f, "]");
        if (region)
            fprintf(f, ",\n \"region\": \"%s\", \"region_ns\": %.3f", region, region_ns);
        if (names) { /* hex, so that this file needs no escaping of its own */
            fprintf(f, ",\n \"names_hex\": [");
            for (int k = 0; names[k]; k++) {
                fprintf(f, "%s\"", k ? ", " : "");
                for (const unsigned char *c = (const unsigned char *)names[k]; *c; c++)
                    fprintf(f, "%02x", *c);
                fprintf(f, "\"");
            }
            fprintf(f, "]");
        }
        fprintf(f, "}\n");
        CHECK_EQ_INT(fclose(f), 0);
    }
    printf("%s: %u ranks, critical path %llu runs, %.1f us predicted\n", name, rt_trace_ranks(t),
           (unsigned long long)cp->nseg, (double)res->predicted_ps / 1e6);
    rt_replay_result_destroy(res);
    rt_depgraph_destroy(g);
}

/* ------------------------------------------------------------------ synthetic traces */

static rt_trace *open_built(tb_builder *b, const char *dir)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(tb_close(b), 0);
    int rc = rt_trace_open(dir, &t, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", dir, err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    return t;
}

/*
 * Three ranks. Region names need JSON escaping (quote, backslash, newline, tab, a control
 * character, DEL) or are not UTF-8 (a lone continuation byte, a cut sequence), beside valid
 * multi-byte UTF-8. Rank 0 sends to 1 with MPI_Send (eager) and to 2 with MPI_Isend + Wait;
 * rank 2 posts an Irecv early and completes it in MPI_Wait; then all three run an allreduce that
 * rank 1 enters late, so the others' releases are bound by rank 1 (collective arrows).
 */
static const char odd[] = "phase \"a\\b\"\n\t\x01\x7f end";
static const char bad[] = "bad \x80 utf8 \xC3";
static const char good[] = "gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80";
/* The names as a JSON parser must read them back (bytes of UTF-8): bad bytes are U+FFFD. */
static const char *const names_back[] = {odd, "bad \xEF\xBF\xBD utf8 \xEF\xBF\xBD", good};

static rt_trace *synthetic(const char *dir)
{
    tb_builder *b = tb_create(dir, 3);
    if (!b)
        return NULL;
    for (uint32_t r = 0; r < 3; r++) {
        tb_enter(b, r, 0, "main");
        tb_enter(b, r, 10, r == 0 ? odd : r == 1 ? bad : good);
    }
    /* rank 0: MPI_Send to 1, then MPI_Isend to 2 and MPI_Wait */
    tb_call_send(b, 0, 100, 200, "MPI_Send", 1, 5, 512);
    tb_enter(b, 0, 300, "MPI_Isend");
    tb_isend(b, 0, 310, 2, 6, 4096, 1);
    tb_leave(b, 0, 320, "MPI_Isend");
    tb_enter(b, 0, 400, "MPI_Wait");
    tb_isend_complete(b, 0, 450, 1);
    tb_leave(b, 0, 460, "MPI_Wait");
    /* rank 1: MPI_Recv from 0 */
    tb_call_recv(b, 1, 150, 260, 0, 5, 512);
    /* rank 2: MPI_Irecv from 0, work, MPI_Wait */
    tb_enter(b, 2, 50, "MPI_Irecv");
    tb_irecv_request(b, 2, 60, 7);
    tb_leave(b, 2, 70, "MPI_Irecv");
    tb_enter(b, 2, 500, "MPI_Wait");
    tb_irecv(b, 2, 700, 0, 6, 4096, 7);
    tb_leave(b, 2, 710, "MPI_Wait");
    /* the allreduce: rank 1 computes long before it enters */
    uint64_t t0[3] = {1000, 90000, 1200};
    for (uint32_t r = 0; r < 3; r++) {
        tb_leave(b, r, t0[r] - 5, r == 0 ? odd : r == 1 ? bad : good);
        tb_collective(b, r, t0[r], 95000, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, RT_NONE, 8, 8);
        tb_leave(b, r, 96000, "main");
    }
    return open_built(b, dir);
}

/* Two ranks: a rendezvous MPI_Ssend whose receiver posts late (the critical path goes through
 * the receiver's post), and a late sender back. */
static rt_trace *rendezvous(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return NULL;
    tb_enter(b, 0, 0, "main");
    tb_enter(b, 1, 0, "main");
    tb_call_send(b, 0, 100, 50000, "MPI_Ssend", 1, 1, 200000);
    tb_call_recv(b, 1, 40000, 50000, 0, 1, 200000);
    tb_call_send(b, 1, 80000, 81000, "MPI_Send", 0, 2, 8);
    tb_call_recv(b, 0, 51000, 82000, 1, 2, 8);
    tb_leave(b, 0, 90000, "main");
    tb_leave(b, 1, 90000, "main");
    return open_built(b, dir);
}

/* ------------------------------------------------------------------ error paths */

static void errors(const rt_trace *t, const rt_trace *other)
{
    rt_error err = {0};
    char path[4096];
    struct rt_replay_result *res = NULL;
    rt_depgraph *g = replay(t, 1.0, &res, NULL);
    rt_replay_result_destroy(res);
    if (!g)
        return;
    snprintf(path, sizeof path, "%s/unmarked.json", outdir);
    /* no critical path marked yet */
    CHECK_EQ_INT(rt_perfetto_write(t, g, path, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "rt_depgraph_critical_path");
    const struct rt_critical_path *cp;
    CHECK_EQ_INT(rt_depgraph_critical_path(g, &cp, &err), RT_OK);
    /* a directory that does not exist: RT_EIO naming the path */
    snprintf(path, sizeof path, "%s/no-such-dir/x.json", outdir);
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(rt_perfetto_write(t, g, path, &err), RT_EIO);
    CHECK_CONTAINS(err.msg, path);
    /* a full device */
    struct stat st;
    if (stat("/dev/full", &st) == 0) {
        memset(&err, 0, sizeof err);
        CHECK_EQ_INT(rt_perfetto_write(t, g, "/dev/full", &err), RT_EIO);
        CHECK_CONTAINS(err.msg, "/dev/full");
    }
    /* the timing of another trace: with more ranks, and with fewer */
    snprintf(path, sizeof path, "%s/other.json", outdir);
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(rt_perfetto_write(other, g, path, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "more ranks than the trace");
    rt_depgraph *g2 = replay(other, 1.0, &res, &cp);
    rt_replay_result_destroy(res);
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(rt_perfetto_write(t, g2, path, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "not of this trace");
    CHECK_EQ_INT(rt_perfetto_write(t, NULL, path, &err), RT_EINVAL);
    rt_depgraph_destroy(g2);
    rt_depgraph_destroy(g);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_perfetto OUTDIR [TRACE_DIR...]\n");
        return 2;
    }
    outdir = argv[1];
    char dir[4096], dir2[4096];
    snprintf(dir, sizeof dir, "%s/synthetic", outdir);
    snprintf(dir2, sizeof dir2, "%s/rendezvous", outdir);
    rt_trace *syn = synthetic(dir), *rdv = rendezvous(dir2);
    CHECK(syn && rdv);
    if (syn && rdv) {
        {
            const char *const want[] = {names_back[0], names_back[1], names_back[2], NULL};
            write_case("synthetic", syn, 1.0, NULL, 0, want);
        }
        write_case("rendezvous", rdv, 1.0, NULL, 0, NULL);
        errors(syn, rdv);
    }
    rt_trace_close(syn);
    rt_trace_close(rdv);

    for (int i = 2; i < argc; i++) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", argv[i]);
        const char *name = basename(copy);
        rt_trace *t = NULL;
        rt_error err = {0};
        int rc = rt_trace_open(argv[i], &t, &err);
        if (rc)
            fprintf(stderr, "%s\n", err.msg);
        CHECK_EQ_INT(rc, RT_OK);
        if (!t)
            continue;
        struct rt_shift_config c = {0};
        char mode[16];
        unsigned long long m1;
        double iter_ns = 0;
        if (sscanf(name, "shift%dd-%15[a-z]-p%*d-k%d-m%llu", &c.dims, mode, &c.k, &m1) == 4) {
            c.m1 = m1;
            c.synchronous = strcmp(mode, "ssend") == 0;
            CHECK_EQ_INT(rt_shift_predict(&c, ALPHA, BETA, &iter_ns, NULL, NULL, &err), RT_OK);
        }
        write_case(name, t, 0.0, iter_ns > 0 ? "shift_iteration" : NULL, iter_ns, NULL);
        rt_trace_close(t);
    }
    TEST_MAIN_END();
}
