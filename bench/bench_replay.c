/* SPDX-License-Identifier: MIT */
/* retime-bench-replay: compares retime's read+replay rate and memory with a raw OTF2 decode; with
 * --montecarlo N, times N noisy runs of `retime replay --runs N` (the same code) on all cores. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <otf2/otf2.h>

#include "empty_callbacks.h" /* generated: rt_bench_register_empty_callbacks() */
#include "montecarlo.h"      /* cli/studies: the Monte Carlo run loop of `retime replay --runs` */
#include "retime/depgraph.h"
#include "retime/model.h"
#include "retime/replay.h"
#include "retime/trace.h"

/* The Hockney parameters of the paper's Table 2 (the same ones the tests use). */
#define BENCH_ALPHA_NS 2122.0
#define BENCH_BETA_NS_PER_B 0.7595
/* Issue #18's memory targets on a Shift trace [B/event]: the trace and engine as accounted, and the
 * process's peak RSS growth from 10^7 events. */
#define MEM_TARGET_ACCOUNTED 24.0
#define MEM_TARGET_RSS 20.0
#define MEM_TARGET_RSS_FROM 10000000 /* below, the process's fixed few MB weigh in */

/* The RSS target's verdict for a trace of @p events: "met", "NOT met", or (below
 * MEM_TARGET_RSS_FROM events) that it is not judged. */
static const char *rss_verdict(double events, double rss_bpe)
{
    if (events < MEM_TARGET_RSS_FROM)
        return "not judged below 10^7 events";
    return rss_bpe <= MEM_TARGET_RSS ? "met" : "NOT met";
}

/* The Monte Carlo target of issue #4: 100 runs of a 10^6-event trace within 15 s on 2 cores. */
#define BENCH_MC_TARGET_S 15.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident set size of the process so far, in bytes (Linux reports KiB). */
static uint64_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u;
}

/* ------------------------------------------------------------------ the archive on disk */

/* Reads one file to the end into a small buffer: pages it into the cache without growing RSS. */
static int slurp(const char *path, uint64_t *bytes)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        *bytes += n;
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

/* Reads every file of the archive once (anchor, .def, and the files in its folder) so that the
 * first timed pass does not pay for the disk and the comparison stays between decoders. */
static int warm_archive(const char *anchor, uint64_t *bytes)
{
    char path[4096], base[4096];
    size_t n = strlen(anchor);
    if (n < 5 || n >= sizeof base || strcmp(anchor + n - 5, ".otf2") != 0)
        return -1;
    memcpy(base, anchor, n - 5);
    base[n - 5] = '\0';
    *bytes = 0;
    if (slurp(anchor, bytes))
        return -1;
    if (snprintf(path, sizeof path, "%s.def", base) < (int)sizeof path)
        slurp(path, bytes); /* if absent, the readers will say so */
    DIR *d = opendir(base);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", base, e->d_name) >= (int)sizeof path)
            continue;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            slurp(path, bytes);
    }
    closedir(d);
    return 0;
}

/* ------------------------------------------------------------------ raw OTF2 decode */

struct locs {
    uint64_t *id;
    size_t n, cap;
};

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t nevents, OTF2_LocationGroupRef group)
{
    struct locs *l = ud;
    (void)name; (void)type; (void)nevents; (void)group;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 64;
        uint64_t *nid = realloc(l->id, ncap * sizeof *nid);
        if (!nid)
            return OTF2_CALLBACK_INTERRUPT;
        l->id = nid;
        l->cap = ncap;
    }
    l->id[l->n++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

/*
 * The reference: the least any OTF2 consumer must do to see every event. The same sequence of
 * calls as retime's reader, with an empty callback registered for every event record so that
 * OTF2 decodes and dispatches each record exactly as it does for retime.
 */
static int raw_decode(const char *anchor, uint64_t *events, char *msg, size_t msglen)
{
    struct locs locs = {0};
    int rc = -1;
    OTF2_EvtReaderCallbacks *ecb = NULL;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    *events = 0;
    if (!rd || OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
        snprintf(msg, msglen, "%s: OTF2 cannot open it", anchor);
        goto done;
    }
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !gcb) {
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
        snprintf(msg, msglen, "%s: no global definitions", anchor);
        goto done;
    }
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &locs);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (ec != OTF2_SUCCESS) {
        snprintf(msg, msglen, "%s: global definitions: %s", anchor, OTF2_Error_GetDescription(ec));
        goto done;
    }
    for (size_t i = 0; i < locs.n; i++)
        OTF2_Reader_SelectLocation(rd, locs.id[i]);
    (void)OTF2_Reader_OpenDefFiles(rd); /* optional in OTF2: archives may lack local definitions */
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        snprintf(msg, msglen, "%s: cannot open the event files", anchor);
        goto done;
    }
    ecb = OTF2_EvtReaderCallbacks_New();
    if (!ecb) {
        snprintf(msg, msglen, "out of memory");
        goto done;
    }
    rt_bench_register_empty_callbacks(ecb);
    for (size_t i = 0; i < locs.n; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, locs.id[i]);
        if (dr) {
            uint64_t n = 0;
            OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, locs.id[i]);
        if (!er) {
            snprintf(msg, msglen, "%s: location %" PRIu64 ": no event reader", anchor, locs.id[i]);
            goto done;
        }
        OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, NULL);
        uint64_t n = 0;
        ec = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
        OTF2_Reader_CloseEvtReader(rd, er);
        *events += n;
        if (ec != OTF2_SUCCESS) {
            snprintf(msg, msglen, "%s: location %" PRIu64 ": %s", anchor, locs.id[i], OTF2_Error_GetDescription(ec));
            goto done;
        }
    }
    rc = 0;
done:
    OTF2_EvtReaderCallbacks_Delete(ecb);
    if (rd) {
        OTF2_Reader_CloseEvtFiles(rd);
        OTF2_Reader_CloseDefFiles(rd);
        OTF2_Reader_Close(rd);
    }
    free(locs.id);
    return rc;
}

/* ------------------------------------------------------------------ retime */

struct retime_run {
    double read_s, replay_s;
    uint64_t otf2_events, events, ranks;
    uint64_t trace_bytes, engine_bytes;
    uint64_t rss_before, rss_peak;
    rt_time_ps predicted_ps;
    uint64_t messages, collectives;
};

static int retime_once(const char *path, const struct rt_replay_options *o, struct retime_run *out, rt_error *err)
{
    rt_trace *t = NULL;
    struct rt_replay_result *res = NULL;
    out->rss_before = peak_rss_bytes();
    double t0 = now_s();
    int rc = rt_trace_open(path, &t, err);
    double t1 = now_s();
    if (rc == RT_OK)
        rc = rt_replay_run(t, o, NULL, &res, err);
    double t2 = now_s();
    /* Read before anything is freed: this is the high-water mark of open + replay. */
    out->rss_peak = peak_rss_bytes();
    if (rc == RT_OK) {
        const struct rt_trace_stats *st = rt_trace_stats(t);
        out->read_s = t1 - t0;
        out->replay_s = t2 - t1;
        out->otf2_events = st->otf2_events;
        out->events = st->events;
        out->ranks = rt_trace_ranks(t);
        out->trace_bytes = rt_trace_memory(t);
        out->engine_bytes = res->peak_bytes;
        out->predicted_ps = res->predicted_ps;
        out->messages = res->messages;
        out->collectives = res->collectives;
    }
    rt_replay_result_destroy(res);
    rt_trace_close(t);
    return rc;
}

/* ------------------------------------------------------------------ report */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static double min_d(double a, double b) { return a < b ? a : b; }

/* ------------------------------------------------------------------ Monte Carlo */

struct mc_bench {
    long runs, jobs, repeat;
    const char *noise, *region;
    uint64_t seed;
};

/* Best of @p repeat single replays of @p t under @p o, in seconds; fills *pred. */
static int time_single(const rt_trace *t, const struct rt_replay_options *o, long repeat, double *best,
                       rt_time_ps *pred, rt_error *err)
{
    *best = 1e300;
    for (long k = 0; k < repeat; k++) {
        struct rt_replay_result *res = NULL;
        double t0 = now_s();
        int rc = rt_replay_run(t, o, NULL, &res, err);
        double dt = now_s() - t0;
        if (rc)
            return rc;
        *pred = res->predicted_ps;
        rt_replay_result_destroy(res);
        *best = min_d(*best, dt);
    }
    return RT_OK;
}

/*
 * The Monte Carlo figure: the trace is read once (timed apart), then mc_run, the loop behind
 * `retime replay --runs N`, replays it N times with network noise plus once without, on all
 * cores. The single-run replays beside it (noise-free and noisy run 0, on one thread) are the
 * reference: with perfect scaling the Monte Carlo takes (N + 1) x single / threads.
 */
static int bench_montecarlo(const char *path, const char *anchor, struct rt_replay_options *o,
                            const struct mc_bench *b)
{
    rt_trace *t = NULL;
    rt_dist *noise = NULL;
    struct mc_result r;
    double *scratch = NULL;
    rt_error err = {0};
    char msg[700];
    int rc = 1;
    memset(&r, 0, sizeof r);
    if (rt_dist_parse(b->noise, &noise, &err)) {
        snprintf(msg, sizeof msg, "--net-noise: %s", err.msg);
        goto out;
    }
    uint64_t disk_bytes = 0;
    if (warm_archive(anchor, &disk_bytes)) {
        snprintf(msg, sizeof msg, "cannot read the archive's files (give the .otf2 anchor or its directory)");
        goto out;
    }
    double t0 = now_s();
    if (rt_trace_open(path, &t, &err))
        goto fail;
    double read_s = now_s() - t0;
    uint32_t region = RT_NONE;
    if (b->region && (region = rt_trace_find_region(t, b->region)) == RT_NONE) {
        rt_error_set(&err, RT_EINVAL, "%s: no region named '%s'", anchor, b->region);
        goto fail;
    }
    o->net_noise = noise;
    o->seed = b->seed;
    o->run = 0;
    struct rt_replay_options quiet = rt_replay_options_noise_free(o);
    double single_free, single_noisy;
    rt_time_ps pred_free, pred_noisy;
    if (time_single(t, &quiet, b->repeat, &single_free, &pred_free, &err) ||
        time_single(t, o, b->repeat, &single_noisy, &pred_noisy, &err))
        goto fail;

    struct mc_config cfg = {.trace = t, .opts = *o, .runs = (uint64_t)b->runs, .jobs = b->jobs, .region = region};
    t0 = now_s();
    if (mc_run(&cfg, &r, &err))
        goto fail;
    double mc_s = now_s() - t0;
    scratch = malloc((size_t)r.runs * sizeof *scratch);
    if (!scratch) {
        snprintf(msg, sizeof msg, "out of memory");
        goto out;
    }
    struct mc_stats pred, slow;
    mc_stats_of(&r, MC_PREDICTED_NS, scratch, &pred);
    mc_stats_of(&r, MC_SLOWDOWN, scratch, &slow);

    const struct rt_trace_stats *st = rt_trace_stats(t);
    double n = (double)st->otf2_events, runs = (double)b->runs;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double ideal_s = (runs * single_noisy + single_free) / (double)r.jobs;
    printf("trace   %s\n", anchor);
    printf("events  %" PRIu64 " OTF2 records (%" PRIu64 " kept by retime), %u ranks, %" PRIu64 " messages, %" PRIu64
           " collectives\n",
           st->otf2_events, st->events, rt_trace_ranks(t), r.messages, r.collectives);
    printf("replay  Hockney alpha=%.3fus beta=%.4fns/B, net noise %s (mean %.4g ns per message), seed %" PRIu64 "%s%s\n",
           BENCH_ALPHA_NS / 1e3, BENCH_BETA_NS_PER_B, b->noise, rt_dist_mean_ns(noise), b->seed,
           b->region ? ", region " : "", b->region ? b->region : "");
    printf("runs    %ld noisy + 1 noise-free on %ld thread(s) (%ld online CPUs)\n", b->runs, r.jobs, cores);
    printf("result  predicted mean %.6f s (noise-free %.6f s), slowdown mean %.6f, p95 %.6f\n\n", pred.mean * 1e-9,
           (double)r.baseline.predicted_ps * 1e-12, slow.mean, slow.p95);
    printf("  %-44s %10s %10s %14s\n", "", "seconds", "runs/s", "events/s");
    printf("  %-44s %10.3f %10s %14.4g\n", "read (rt_trace_open, once)", read_s, "", n / read_s);
    printf("  %-44s %10.3f %10.2f %14.4g\n", "single replay, noise-free (1 thread, best)", single_free,
           1.0 / single_free, n / single_free);
    printf("  %-44s %10.3f %10.2f %14.4g\n", "single replay, noisy run 0 (1 thread, best)", single_noisy,
           1.0 / single_noisy, n / single_noisy);
    char label[64];
    snprintf(label, sizeof label, "Monte Carlo: %ld runs + noise-free (mc_run)", b->runs);
    printf("  %-44s %10.3f %10.2f %14.4g   target <= %.0f s: %s\n", label, mc_s, runs / mc_s, runs * n / mc_s,
           BENCH_MC_TARGET_S, mc_s <= BENCH_MC_TARGET_S ? "met" : "NOT met");
    printf("  %-44s %10.3f %10s %14s   parallel efficiency %.0f %%\n", "  ideal: (N x noisy + free) / threads", ideal_s,
           "", "", 100.0 * ideal_s / mc_s);
    printf("  %-44s %10.3f\n", "read + Monte Carlo (retime replay --runs)", read_s + mc_s);

    printf("BENCH {\"mode\":\"montecarlo\",\"trace\":");
    json_string(stdout, anchor);
    printf(",\"otf2_events\":%" PRIu64 ",\"events\":%" PRIu64 ",\"ranks\":%u,\"runs\":%ld,\"jobs\":%ld,\"cpus\":%ld"
           ",\"noise\":",
           st->otf2_events, st->events, rt_trace_ranks(t), b->runs, r.jobs, cores);
    json_string(stdout, b->noise);
    printf(",\"seed\":%" PRIu64 ",\"repeat\":%ld,\"read_s\":%.6f,\"single_free_s\":%.6f,\"single_noisy_s\":%.6f"
           ",\"mc_s\":%.6f,\"mc_runs_per_s\":%.3f,\"mc_eps\":%.0f,\"single_noisy_eps\":%.0f,\"ideal_s\":%.6f"
           ",\"target_s\":%.1f,\"predicted_mean_ns\":%.3f,\"noise_free_ps\":%" PRId64 ",\"slowdown_mean\":%.9f}\n",
           b->seed, b->repeat, read_s, single_free, single_noisy, mc_s, runs / mc_s, runs * n / mc_s,
           n / single_noisy, ideal_s, BENCH_MC_TARGET_S, pred.mean, (int64_t)r.baseline.predicted_ps, slow.mean);
    rc = 0;
    goto out;
fail:
    snprintf(msg, sizeof msg, "%s", err.msg[0] ? err.msg : rt_strerror(err.code));
out:
    if (rc)
        fprintf(stderr, "retime-bench-replay: error: %s\n", msg);
    free(scratch);
    mc_result_free(&r);
    rt_trace_close(t);
    rt_dist_free(noise);
    return rc;
}

/* ------------------------------------------------------------------ --scale: every figure of one size */

/* The LogP-lite parameters of the scale table: the Hockney figures above split into latency,
 * overheads and gaps (L + o_s + o_r = alpha, G = beta), so the two models predict similar runs. */
#define BENCH_L_NS 1522.0
#define BENCH_O_NS 300.0
#define BENCH_G_NS 400.0

struct scale_cfg {
    long repeat, mc_runs, mc_jobs;
    const char *mc_noise;
};

/* The phases of analyze_once, timed one by one (bench/scale.sh prints where the time went). */
enum { AN_CREATE, AN_REPLAY, AN_CHECK, AN_MEASURED, AN_WALK, AN_PHASES };
static const char *const an_phase_name[AN_PHASES] = {"graph create", "replay with the graph", "graph check",
                                                     "measured graph", "walk (paths, waits, comparison)"};

/* What `retime analyze TRACE --against measured` computes after the read: the model's timing
 * with its dependency graph (checked, as the tool does), the measured timing on the same edges,
 * both critical paths, the wait states and the comparison. Printing is left out. @p phase: the
 * seconds of each phase. */
static int analyze_once(const rt_trace *t, const struct rt_replay_options *o, rt_time_ps *end, double phase[AN_PHASES],
                        rt_error *err)
{
    rt_depgraph *ga = NULL, *gb = NULL;
    struct rt_depgraph_diff *d = NULL;
    struct rt_replay_result *res = NULL;
    struct rt_replay_observer obs = {0};
    const struct rt_critical_path *cpa, *cpb;
    const struct rt_wait_states *ws;
    struct rt_measured_info mi;
    double t0 = now_s(), t1;
    int rc = rt_depgraph_create(t, &ga, err);
    t1 = now_s(), phase[AN_CREATE] = t1 - t0, t0 = t1;
    if (rc == RT_OK) {
        rt_depgraph_observer(ga, &obs);
        rc = rt_replay_run(t, o, &obs, &res, err);
    }
    t1 = now_s(), phase[AN_REPLAY] = t1 - t0, t0 = t1;
    if (rc == RT_OK)
        rc = rt_depgraph_check(ga, err);
    t1 = now_s(), phase[AN_CHECK] = t1 - t0, t0 = t1;
    if (rc == RT_OK)
        rc = rt_depgraph_measured(t, ga, &gb, &mi, err);
    t1 = now_s(), phase[AN_MEASURED] = t1 - t0, t0 = t1;
    if (rc == RT_OK) /* as cmd_analyze.c: every result in one walk, then the getters */
        rc = rt_depgraph_analyze(ga, gb, &d, err);
    phase[AN_WALK] = now_s() - t0;
    if (rc == RT_OK)
        rc = rt_depgraph_critical_path(ga, &cpa, err);
    if (rc == RT_OK)
        rc = rt_depgraph_critical_path(gb, &cpb, err);
    if (rc == RT_OK)
        rc = rt_depgraph_wait_states(gb, &ws, err);
    if (rc == RT_OK)
        *end = cpa->end_ps;
    rt_depgraph_diff_destroy(d);
    rt_depgraph_destroy(gb);
    rt_depgraph_destroy(ga);
    rt_replay_result_destroy(res);
    return rc;
}

/*
 * One row of bench/scale.sh: on one trace, in one process, the raw decode and every retime figure
 * (read, replay under Hockney and LogP-lite, analyze, a Monte Carlo), all as events/s over the
 * same OTF2 record count; memory from the first read + replay. Prints a block and a BENCH line.
 */
static int bench_scale(const char *path, const char *anchor, const struct rt_replay_options *hockney,
                       const struct scale_cfg *c)
{
    rt_error err = {0};
    char msg[4608];
    rt_trace *t = NULL;
    rt_dist *noise = NULL;
    struct mc_result mr;
    int rc = 1;
    memset(&mr, 0, sizeof mr);
    struct rt_replay_options logp;
    struct rt_model_params lp = {.L_ns = BENCH_L_NS, .o_s_ns = BENCH_O_NS, .o_r_ns = BENCH_O_NS,
                                 .g_ns = BENCH_G_NS, .G_ns_per_byte = BENCH_BETA_NS_PER_B};
    rt_replay_options_default(&logp);
    if (rt_model_init(&logp.model, "logp", &lp, &err) || rt_dist_parse(c->mc_noise, &noise, &err))
        goto fail;
    uint64_t disk_bytes = 0;
    if (warm_archive(anchor, &disk_bytes)) {
        snprintf(msg, sizeof msg, "cannot read the archive's files (give the .otf2 anchor or its directory)");
        goto out;
    }

    /* Read + Hockney replay first (clean RSS on the first round), then the raw decode, R times. */
    struct retime_run first = {0}, run;
    double read_s = 1e300, hock_s = 1e300, total_s = 1e300, decode_s = 1e300;
    uint64_t decode_events = 0;
    for (long k = 0; k < c->repeat; k++) {
        memset(&run, 0, sizeof run);
        if (retime_once(path, hockney, &run, &err))
            goto fail;
        if (k == 0)
            first = run;
        read_s = min_d(read_s, run.read_s);
        hock_s = min_d(hock_s, run.replay_s);
        total_s = min_d(total_s, run.read_s + run.replay_s);
        double t0 = now_s();
        if (raw_decode(anchor, &decode_events, msg, sizeof msg))
            goto out;
        decode_s = min_d(decode_s, now_s() - t0);
    }
    if (decode_events != first.otf2_events)
        fprintf(stderr, "retime-bench-replay: warning: raw decode saw %" PRIu64 " records, retime %" PRIu64 "\n",
                decode_events, first.otf2_events);

    /* The read on one thread (the library reads locations on all CPUs unless told otherwise). */
    double serial_s = 1e300;
    {
        const char *had = getenv("RETIME_READ_THREADS");
        char keep[32] = "";
        int orc = RT_OK;
        if (had)
            snprintf(keep, sizeof keep, "%s", had);
        setenv("RETIME_READ_THREADS", "1", 1);
        for (long k = 0; k < c->repeat && orc == RT_OK; k++) {
            rt_trace *s1 = NULL;
            double t0 = now_s();
            orc = rt_trace_open(path, &s1, &err);
            double dt = now_s() - t0;
            rt_trace_close(s1);
            serial_s = min_d(serial_s, dt);
        }
        if (had)
            setenv("RETIME_READ_THREADS", keep, 1);
        else
            unsetenv("RETIME_READ_THREADS");
        if (orc)
            goto fail;
    }

    /* The rest work on one trace held open. */
    if (rt_trace_open(path, &t, &err))
        goto fail;
    double logp_s, held_s, analyze_s = 1e300, analyze_first_s = 0, phase[AN_PHASES], best_phase[AN_PHASES] = {0};
    rt_time_ps logp_ps, held_ps, analyze_ps = 0;
    if (time_single(t, hockney, c->repeat, &held_s, &held_ps, &err) ||
        time_single(t, &logp, c->repeat, &logp_s, &logp_ps, &err))
        goto fail;
    hock_s = min_d(hock_s, held_s); /* the same replay; best of both rounds */
    for (long k = 0; k < c->repeat; k++) {
        double t0 = now_s();
        if (analyze_once(t, hockney, &analyze_ps, phase, &err))
            goto fail;
        double dt = now_s() - t0;
        if (k == 0) /* the graphs' pages new to the process, as in one `retime analyze` */
            analyze_first_s = dt;
        if (dt < analyze_s)
            memcpy(best_phase, phase, sizeof phase);
        analyze_s = min_d(analyze_s, dt);
    }
    double mc_s = 0;
    if (c->mc_runs > 0) {
        struct mc_config cfg = {.trace = t, .opts = *hockney, .runs = (uint64_t)c->mc_runs, .jobs = c->mc_jobs,
                                .region = RT_NONE};
        cfg.opts.net_noise = noise;
        cfg.opts.seed = 1;
        double t0 = now_s();
        if (mc_run(&cfg, &mr, &err))
            goto fail;
        mc_s = now_s() - t0;
    }

    double n = (double)first.otf2_events;
    double decode_eps = n / decode_s, read_eps = n / read_s, hock_eps = n / hock_s, total_eps = n / total_s;
    double logp_eps = n / logp_s, analyze_eps = n / analyze_s, serial_eps = n / serial_s;
    double serial_total_eps = n / (serial_s + hock_s);
    double mc_eps = c->mc_runs > 0 ? (double)c->mc_runs * n / mc_s : 0;
    double acct_bpe = (double)(first.trace_bytes + first.engine_bytes) / n;
    uint64_t rss_delta = first.rss_peak > first.rss_before ? first.rss_peak - first.rss_before : 0;
    double rss_bpe = (double)rss_delta / n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    printf("trace   %s: %" PRIu64 " OTF2 records, %" PRIu64 " ranks, %.1f B/event on disk, best of %ld\n", anchor,
           first.otf2_events, first.ranks, (double)disk_bytes / n, c->repeat);
    printf("  %-44s %10s %14s %8s\n", "", "seconds", "events/s", "vs raw");
    printf("  %-44s %10.3f %14.4g %8.2f\n", "raw OTF2 decode (empty callbacks)", decode_s, decode_eps, 1.0);
    printf("  %-44s %10.3f %14.4g %8.2f\n", "read (rt_trace_open)", read_s, read_eps, read_eps / decode_eps);
    printf("  %-44s %10.3f %14.4g %8.2f\n", "  read on one thread (RETIME_READ_THREADS=1)", serial_s, serial_eps,
           serial_eps / decode_eps);
    printf("  %-44s %10.3f %14.4g %8.2f\n", "replay Hockney (rt_replay_run)", hock_s, hock_eps, hock_eps / decode_eps);
    printf("  %-44s %10.3f %14.4g %8.2f\n", "replay LogP-lite (rt_replay_run)", logp_s, logp_eps, logp_eps / decode_eps);
    printf("  %-44s %10.3f %14.4g %8.2f   target >= 0.60: %s\n", "read + replay Hockney", total_s, total_eps,
           total_eps / decode_eps, total_eps / decode_eps >= 0.6 ? "met" : "NOT met");
    printf("  %-44s %10.3f %14.4g %8.2f\n", "  read on one thread + replay Hockney", serial_s + hock_s,
           serial_total_eps, serial_total_eps / decode_eps);
    /* issue #18 item 5: analyze at >= 0.5x the rate of the replay (Hockney) */
    printf("  %-44s %10.3f %14.4g %8.2f   %.2fx the replay, target >= 0.50: %s\n",
           "analyze --against measured (after the read)", analyze_s, analyze_eps, analyze_eps / decode_eps,
           analyze_eps / hock_eps, analyze_eps >= 0.5 * hock_eps ? "met" : "NOT met");
    printf("  %-44s %10.3f %14.4g %8.2f   %.2fx the replay\n", "  its first run (the graphs' pages new)",
           analyze_first_s, n / analyze_first_s, n / analyze_first_s / decode_eps, n / analyze_first_s / hock_eps);
    for (int i = 0; i < AN_PHASES; i++) /* where the best run's time went: seconds, ns per event */
        printf("    %-42s %10.3f %11.1f ns/event\n", an_phase_name[i], best_phase[i], best_phase[i] * 1e9 / n);
    if (c->mc_runs > 0) {
        char label[64];
        snprintf(label, sizeof label, "Monte Carlo %ld runs, %ld threads (mc_run)", c->mc_runs, mr.jobs);
        printf("  %-44s %10.3f %14.4g %8.2f\n", label, mc_s, mc_eps, mc_eps / decode_eps);
    }
    printf("  memory: accounted %.2f B/event (target <= 24: %s), RSS growth %.2f B/event (target <= 20: %s)\n",
           acct_bpe, acct_bpe <= MEM_TARGET_ACCOUNTED ? "met" : "NOT met", rss_bpe, rss_verdict(n, rss_bpe));
    printf("BENCH {\"mode\":\"scale\",\"trace\":");
    json_string(stdout, anchor);
    printf(",\"otf2_events\":%" PRIu64 ",\"events\":%" PRIu64 ",\"ranks\":%" PRIu64 ",\"disk_bytes\":%" PRIu64
           ",\"repeat\":%ld,\"cpus\":%ld,\"decode_s\":%.6f,\"read_s\":%.6f,\"hockney_s\":%.6f,\"logp_s\":%.6f"
           ",\"total_s\":%.6f,\"analyze_s\":%.6f,\"analyze_first_s\":%.6f,\"mc_runs\":%ld,\"mc_jobs\":%ld,\"mc_s\":%.6f"
           ",\"decode_eps\":%.0f,\"read_eps\":%.0f,\"hockney_eps\":%.0f,\"logp_eps\":%.0f,\"total_eps\":%.0f"
           ",\"analyze_eps\":%.0f,\"mc_eps\":%.0f,\"ratio\":%.4f,\"serial_read_s\":%.6f,\"serial_read_eps\":%.0f,\"serial_ratio\":%.4f,\"trace_bytes\":%" PRIu64 ",\"engine_bytes\":%" PRIu64
           ",\"rss_before_bytes\":%" PRIu64 ",\"rss_peak_bytes\":%" PRIu64 ",\"bpe_accounted\":%.3f,\"bpe_rss\":%.3f"
           ",\"predicted_ps\":%" PRId64 ",\"logp_ps\":%" PRId64 ",\"analyze_end_ps\":%" PRId64 "}\n",
           first.otf2_events, first.events, first.ranks, disk_bytes, c->repeat, cores, decode_s, read_s, hock_s, logp_s,
           total_s, analyze_s, analyze_first_s, c->mc_runs, c->mc_runs > 0 ? mr.jobs : 0, mc_s, decode_eps, read_eps, hock_eps, logp_eps,
           total_eps, analyze_eps, mc_eps, total_eps / decode_eps, serial_s, serial_eps, serial_total_eps / decode_eps,
           first.trace_bytes, first.engine_bytes,
           first.rss_before, first.rss_peak, acct_bpe, rss_bpe, (int64_t)first.predicted_ps, (int64_t)logp_ps,
           (int64_t)analyze_ps);
    fflush(stdout);
    rc = 0;
    goto out;
fail:
    snprintf(msg, sizeof msg, "%s", err.msg[0] ? err.msg : rt_strerror(err.code));
out:
    if (rc)
        fprintf(stderr, "retime-bench-replay: error: %s\n", msg);
    mc_result_free(&mr);
    rt_trace_close(t);
    rt_dist_free(noise);
    return rc;
}

static void usage(FILE *f)
{
    fputs("usage: retime-bench-replay TRACE [--repeat R]\n"
          "       retime-bench-replay TRACE --montecarlo N [--jobs J] [--net-noise DIST] [--seed S]\n"
          "                           [--region NAME] [--repeat R]\n"
          "       retime-bench-replay TRACE --scale [--mc-runs N] [--jobs J] [--net-noise DIST] [--repeat R]\n"
          "TRACE is an OTF2 anchor file (traces.otf2) or the directory holding it. Rates are the best of\n"
          "R runs (default 3); memory is measured on the first retime run, before anything else allocates.\n"
          "--montecarlo N times N noisy runs plus the noise-free one, as `retime replay --runs N` does them,\n"
          "on J threads (default: all online CPUs) under network noise DIST (default exp:mean=1us, seed 1),\n"
          "once; the single-run references are the best of R.\n"
          "--scale (one row of bench/scale.sh) times, beside the raw decode: read, replay under Hockney and\n"
          "LogP-lite, analyze --against measured, and a Monte Carlo of --mc-runs N (default 100, 0 skips it).\n",
          f);
}

static int die(const char *msg)
{
    fprintf(stderr, "retime-bench-replay: error: %s\n", msg);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long repeat = 3;
    struct mc_bench mc = {.noise = "exp:mean=1us", .seed = 1};
    int scale = 0;
    long mc_runs = 100;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            char *end;
            errno = 0;
            repeat = strtol(argv[++i], &end, 10);
            if (*end || errno || repeat < 1 || repeat > 1000)
                return die("--repeat needs an integer from 1 to 1000");
        } else if (!strcmp(argv[i], "--montecarlo") && i + 1 < argc) {
            char *end;
            errno = 0;
            mc.runs = strtol(argv[++i], &end, 10);
            if (*end || errno || mc.runs < 1 || mc.runs > (long)MC_MAX_RUNS)
                return die("--montecarlo needs an integer from 1 to 10000000");
        } else if (!strcmp(argv[i], "--scale")) {
            scale = 1;
        } else if (!strcmp(argv[i], "--mc-runs") && i + 1 < argc) {
            char *end;
            errno = 0;
            mc_runs = strtol(argv[++i], &end, 10);
            if (*end || errno || mc_runs < 0 || mc_runs > (long)MC_MAX_RUNS)
                return die("--mc-runs needs an integer from 0 to 10000000");
        } else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) {
            char *end;
            errno = 0;
            mc.jobs = strtol(argv[++i], &end, 10);
            if (*end || errno || mc.jobs < 1 || mc.jobs > MC_MAX_JOBS)
                return die("--jobs needs an integer from 1 to 1024");
        } else if (!strcmp(argv[i], "--net-noise") && i + 1 < argc) {
            mc.noise = argv[++i];
        } else if (!strcmp(argv[i], "--region") && i + 1 < argc) {
            mc.region = argv[++i];
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            char *end;
            errno = 0;
            mc.seed = strtoull(argv[++i], &end, 10);
            if (*end || errno || argv[i][0] == '-')
                return die("--seed needs a whole number");
        } else if (argv[i][0] == '-' || path) {
            usage(stderr);
            return die("unexpected argument");
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        usage(stderr);
        return die("no trace given");
    }
    char anchor[4096], msg[4608]; /* room for the anchor path in a message */
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(msg, sizeof msg, "%s: %s", path, strerror(errno));
        return die(msg);
    }
    if (S_ISDIR(st.st_mode))
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
    else
        snprintf(anchor, sizeof anchor, "%s", path);

    struct rt_replay_options o;
    struct rt_model_params mp = {.alpha_ns = BENCH_ALPHA_NS, .beta_ns_per_byte = BENCH_BETA_NS_PER_B};
    rt_error err = {0};
    rt_replay_options_default(&o);
    if (rt_model_init(&o.model, "hockney", &mp, &err))
        return die(err.msg);

    if (scale) {
        if (mc.runs || mc.region)
            return die("--scale runs its own Monte Carlo (--mc-runs); --montecarlo and --region do not apply");
        struct scale_cfg sc = {.repeat = repeat, .mc_runs = mc_runs, .mc_jobs = mc.jobs, .mc_noise = mc.noise};
        return bench_scale(path, anchor, &o, &sc);
    }
    if (mc.runs) {
        mc.repeat = repeat;
        return bench_montecarlo(path, anchor, &o, &mc);
    }
    if (mc.jobs || mc.region)
        return die("--jobs and --region are for --montecarlo");

    uint64_t disk_bytes = 0;
    if (warm_archive(anchor, &disk_bytes))
        return die("cannot read the archive's files (give the .otf2 anchor or its directory)");

    /* retime runs first in each round so that its first run sees a process that has not yet
     * allocated anything: ru_maxrss is a high-water mark, and only that run's delta is clean. */
    struct retime_run first = {0}, run;
    double best_read = 1e300, best_replay = 1e300, best_total = 1e300, best_decode = 1e300;
    uint64_t decode_events = 0;
    for (long k = 0; k < repeat; k++) {
        memset(&run, 0, sizeof run);
        if (retime_once(path, &o, &run, &err))
            return die(err.msg[0] ? err.msg : rt_strerror(err.code));
        if (k == 0)
            first = run;
        best_read = min_d(best_read, run.read_s);
        best_replay = min_d(best_replay, run.replay_s);
        best_total = min_d(best_total, run.read_s + run.replay_s);

        double t0 = now_s();
        if (raw_decode(anchor, &decode_events, msg, sizeof msg))
            return die(msg);
        best_decode = min_d(best_decode, now_s() - t0);
    }
    if (decode_events != first.otf2_events)
        fprintf(stderr, "retime-bench-replay: warning: raw decode saw %" PRIu64 " records, retime %" PRIu64 "\n",
                decode_events, first.otf2_events);

    /* Every rate is over the same count, the OTF2 records in the trace, so the rates compare. */
    double n = (double)first.otf2_events;
    double decode_eps = n / best_decode, total_eps = n / best_total;
    double read_eps = n / best_read, replay_eps = n / best_replay;
    double ratio = total_eps / decode_eps;
    double acct_bpe = (double)(first.trace_bytes + first.engine_bytes) / n;
    uint64_t rss_delta = first.rss_peak > first.rss_before ? first.rss_peak - first.rss_before : 0;
    double rss_bpe = (double)rss_delta / n;

    printf("trace   %s\n", anchor);
    printf("events  %" PRIu64 " OTF2 records (%" PRIu64 " kept by retime), %" PRIu64 " ranks, %.1f B/event on disk\n",
           first.otf2_events, first.events, first.ranks, (double)disk_bytes / n);
    printf("replay  Hockney alpha=%.3fus beta=%.4fns/B: predicted %.6f s, %" PRIu64 " messages, %" PRIu64
           " collectives\n",
           BENCH_ALPHA_NS / 1e3, BENCH_BETA_NS_PER_B, (double)first.predicted_ps * 1e-12, first.messages,
           first.collectives);
    printf("best of %ld run(s)\n\n", repeat);
    printf("  %-40s %10s %14s %8s\n", "", "seconds", "events/s", "vs raw");
    printf("  %-40s %10.3f %14.4g %8.2f\n", "raw OTF2 decode (empty callbacks)", best_decode, decode_eps, 1.0);
    printf("  %-40s %10.3f %14.4g %8.2f   target >= 0.60: %s\n", "retime read + replay (total)", best_total, total_eps,
           ratio, ratio >= 0.6 ? "met" : "NOT met");
    printf("  %-40s %10.3f %14.4g %8.2f\n", "  retime read (rt_trace_open)", best_read, read_eps, read_eps / decode_eps);
    printf("  %-40s %10.3f %14.4g %8.2f\n\n", "  retime replay (rt_replay_run)", best_replay, replay_eps,
           replay_eps / decode_eps);
    printf("  %-40s %12s %10s\n", "memory (first run)", "bytes", "B/event");
    printf("  %-40s %12" PRIu64 " %10.2f\n", "trace (rt_trace_memory)", first.trace_bytes,
           (double)first.trace_bytes / n);
    printf("  %-40s %12" PRIu64 " %10.2f\n", "engine (result->peak_bytes)", first.engine_bytes,
           (double)first.engine_bytes / n);
    printf("  %-40s %12" PRIu64 " %10.2f   target <= %.0f: %s\n", "accounted (trace + engine)",
           first.trace_bytes + first.engine_bytes, acct_bpe, MEM_TARGET_ACCOUNTED,
           acct_bpe <= MEM_TARGET_ACCOUNTED ? "met" : "NOT met");
    printf("  %-40s %12" PRIu64 " %10.2f   target <= %.0f: %s\n", "process peak RSS growth (ru_maxrss)", rss_delta,
           rss_bpe, MEM_TARGET_RSS, rss_verdict(n, rss_bpe));

    printf("BENCH {\"trace\":");
    json_string(stdout, anchor);
    printf(",\"otf2_events\":%" PRIu64 ",\"events\":%" PRIu64 ",\"ranks\":%" PRIu64 ",\"disk_bytes\":%" PRIu64
           ",\"repeat\":%ld,\"decode_s\":%.6f,\"retime_s\":%.6f,\"read_s\":%.6f,\"replay_s\":%.6f"
           ",\"decode_eps\":%.0f,\"retime_eps\":%.0f,\"read_eps\":%.0f,\"replay_eps\":%.0f,\"ratio\":%.4f"
           ",\"trace_bytes\":%" PRIu64 ",\"engine_bytes\":%" PRIu64 ",\"rss_before_bytes\":%" PRIu64
           ",\"rss_peak_bytes\":%" PRIu64 ",\"bpe_accounted\":%.3f,\"bpe_rss\":%.3f,\"predicted_ps\":%" PRId64 "}\n",
           first.otf2_events, first.events, first.ranks, disk_bytes, repeat, best_decode, best_total, best_read,
           best_replay, decode_eps, total_eps, read_eps, replay_eps, ratio, first.trace_bytes, first.engine_bytes,
           first.rss_before, first.rss_peak, acct_bpe, rss_bpe, (int64_t)first.predicted_ps);
    return 0;
}
