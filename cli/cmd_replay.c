/* SPDX-License-Identifier: MIT */
/* retime replay: one replay of a trace under a model, with optional per-region statistics;
 * with --runs N, a Monte Carlo of N noisy runs (cmd_montecarlo.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "distributed.h"
#include "montecarlo.h"
#include "outputs.h"
#include "progress.h"
#include "retime/region_stats.h"
#include "retime/units.h"

struct replay_cli {
    struct trace_cli tr;
    struct model_cli model;
    struct outputs out; /* --output-trace, --perfetto */
    uint64_t runs; /* --runs N: Monte Carlo (0: a single replay) */
    uint64_t jobs; /* --jobs J: threads for the runs (0: all cores) */
    struct clock_fix_cli fix; /* --fix-clocks */
    int split_runs; /* --split runs: under mpirun, each process replays whole runs */
};

static int parse_replay(struct args *a, struct replay_cli *c)
{
    const char *v;
    memset(c, 0, sizeof *c);
    model_cli_init(&c->model);
    for (a->i = 2; a->i < a->argc; a->i++) {
        int m = model_cli_option(a, &c->model);
        if (m == 0)
            m = outputs_option(a, &c->out);
        if (m == 0)
            m = cli_runs_option(a, &c->runs, &c->jobs);
        if (m == 0)
            m = clock_fix_cli_option(a, &c->fix);
        if (m == 0 && (m = cli_opt(a, "--split", &v)) > 0) {
            if (strcmp(v, "ranks") && strcmp(v, "runs"))
                return cli_die("--split must be 'ranks' or 'runs', not '%s'", v);
            c->split_runs = !strcmp(v, "runs");
        }
        if (m < 0)
            return 1;
        if (m == 0 && trace_cli_option(a, &c->tr, "replay"))
            return 1;
    }
    if (c->jobs && !c->runs)
        return cli_die("--jobs needs --runs (it spreads the Monte Carlo runs over threads)");
    if (c->split_runs && !c->runs)
        return cli_die("--split runs needs --runs (it spreads the Monte Carlo runs over the processes)");
    if (c->runs && outputs_wanted(&c->out))
        return cli_die("--output-trace and --perfetto write one replay, not the --runs of a Monte Carlo");
    return trace_cli_finish(&c->tr, "replay");
}

static void print_replay(const struct replay_cli *c, const struct rt_replay_options *o, const rt_trace *t,
                         const struct rt_replay_result *res, const struct rt_region_instance *inst, uint64_t ninst)
{
    char a[32], b[32], d[32];
    if (c->tr.fmt == FMT_JSON) {
        printf("{\"trace\": ");
        cli_json_string(stdout, rt_trace_path(t));
        cli_coverage_json(stdout, t);
        printf(", \"model\": ");
        model_cli_json(stdout, o);
        printf(", \"noise\": ");
        model_cli_noise_json(stdout, &c->model);
        printf(", \"injected\": {");
        cli_print_injected_fields(stdout, res->net_noise_ps, res->os_noise_ps, res->burst_ps);
        printf("}");
        printf(", \"clock_fix\": ");
        clock_fix_cli_json(stdout, c->tr.fix);
        printf(", \"ranks\": %u, \"events\": %" PRIu64 ", \"messages\": %" PRIu64 ", \"rendezvous\": %" PRIu64
               ", \"collectives\": %" PRIu64 ", \"measured_ns\": %" PRId64 ", \"predicted_ns\": ",
               res->ranks, res->events, res->messages, res->rendezvous, res->collectives, res->measured_ns);
        cli_print_ps_as_ns(stdout, res->predicted_ps);
        printf(", \"window\": ");
        cli_window_json(stdout, o, res);
        printf(", \"network\": ");
        model_cli_network_json(stdout, o, res);
        printf(", \"per_rank\": [");
        for (uint32_t r = 0; r < res->ranks; r++) {
            printf("%s{\"rank\": %u, \"measured_end_ns\": %" PRId64 ", \"predicted_end_ns\": ", r ? ", " : "",
                   rt_trace_rank_label(t, r), res->measured_end_ns[r]);
            cli_print_ps_as_ns(stdout, res->predicted_end_ps[r]);
            printf("}");
        }
        printf("]");
        if (c->tr.region) {
            printf(", \"region\": {\"name\": ");
            cli_json_string(stdout, c->tr.region);
            printf(", \"instances\": [");
            for (uint64_t i = 0; i < ninst; i++)
                printf("%s{\"index\": %" PRIu64 ", \"ranks\": %u, \"measured_mean_ns\": %.3f, \"measured_max_ns\": %.3f"
                       ", \"predicted_mean_ns\": %.3f, \"predicted_max_ns\": %.3f}",
                       i ? ", " : "", inst[i].index, inst[i].ranks, inst[i].measured_mean_ns, inst[i].measured_max_ns,
                       inst[i].predicted_mean_ns, inst[i].predicted_max_ns);
            printf("]}");
        }
        printf("}\n");
        return;
    }
    if (c->tr.fmt == FMT_CSV) {
        printf("record,rank,index,measured_ns,predicted_ns,measured_max_ns,predicted_max_ns\n");
        printf("total,,,%" PRId64 ",", res->measured_ns);
        cli_print_ps_as_ns(stdout, res->predicted_ps);
        printf(",,\n");
        if (res->window && res->window_ranks) { /* record window: the measured window's span */
            printf("window,,,%" PRId64 ",", res->window_measured_ns);
            cli_print_ps_as_ns(stdout, res->window_predicted_ps);
            printf(",,\n");
        }
        for (uint32_t r = 0; r < res->ranks; r++) {
            printf("rank,%u,,%" PRId64 ",", rt_trace_rank_label(t, r), res->measured_end_ns[r]);
            cli_print_ps_as_ns(stdout, res->predicted_end_ps[r]);
            printf(",,\n");
        }
        for (uint64_t i = 0; i < ninst; i++)
            printf("region,,%" PRIu64 ",%.3f,%.3f,%.3f,%.3f\n", inst[i].index, inst[i].measured_mean_ns,
                   inst[i].predicted_mean_ns, inst[i].measured_max_ns, inst[i].predicted_max_ns);
        return;
    }
    printf("trace       %s\n", rt_trace_path(t));
    cli_coverage_text(stdout, t, 12);
    printf("model       ");
    model_cli_describe(stdout, o);
    if (rt_replay_options_noisy(o)) {
        printf("\nnoise       ");
        model_cli_noise_describe(stdout, &c->model);
        printf("\ninjected    net %s, os %s, burst %s (summed over messages and ranks)",
               rt_format_time(a, sizeof a, (double)res->net_noise_ps / 1e3),
               rt_format_time(b, sizeof b, (double)res->os_noise_ps / 1e3),
               rt_format_time(d, sizeof d, (double)res->burst_ps / 1e3));
    }
    if (c->tr.fix) {
        printf("\nclock fix   ");
        clock_fix_cli_text(stdout, c->tr.fix);
    }
    printf("\nranks       %u\nevents      %" PRIu64 "\nmessages    %" PRIu64 " (%" PRIu64
           " rendezvous), collectives %" PRIu64 "\n",
           res->ranks, res->events, res->messages, res->rendezvous, res->collectives);
    cli_window_text(stdout, o, res);
    model_cli_network_text(stdout, o, res, 5);
    printf("\n");
    printf("%6s %16s %16s\n", "rank", "measured_end", "predicted_end");
    for (uint32_t r = 0; r < res->ranks; r++)
        printf("%6u %16s %16s\n", rt_trace_rank_label(t, r), rt_format_time(a, sizeof a, (double)res->measured_end_ns[r]),
               rt_format_time(b, sizeof b, (double)res->predicted_end_ps[r] / 1e3));
    if (c->tr.region) {
        printf("\nregion %s: %" PRIu64 " instances (mean and max over ranks)\n", c->tr.region, ninst);
        printf("%6s %6s %16s %16s %16s %16s\n", "index", "ranks", "measured_mean", "measured_max", "predicted_mean",
               "predicted_max");
        double sum[4] = {0}, max[4] = {0}; /* over instances: measured and predicted means and maxima */
        char v[4][32];
        for (uint64_t i = 0; i < ninst; i++) {
            double x[4] = {inst[i].measured_mean_ns, inst[i].measured_max_ns, inst[i].predicted_mean_ns,
                           inst[i].predicted_max_ns};
            for (int k = 0; k < 4; k++) {
                sum[k] += x[k];
                max[k] = x[k] > max[k] ? x[k] : max[k];
                rt_format_time(v[k], sizeof v[k], x[k]);
            }
            printf("%6" PRIu64 " %6u %16s %16s %16s %16s\n", inst[i].index, inst[i].ranks, v[0], v[1], v[2], v[3]);
        }
        if (ninst) { /* the summary: mean and max of the instances' rows, and their total */
            static const char *const what[3] = {"mean", "max", "total"};
            for (int row = 0; row < 3; row++) {
                for (int k = 0; k < 4; k++)
                    rt_format_time(v[k], sizeof v[k], row == 0 ? sum[k] / (double)ninst : row == 1 ? max[k] : sum[k]);
                printf("%13s %16s %16s %16s %16s\n", what[row], v[0], v[1], v[2], v[3]);
            }
        }
    }
}

/* What one replay feeds while it runs: region statistics, the dependency graph for the output
 * files, and the progress line; each optional. */
struct watch {
    rt_region_stats *rs;
    rt_depgraph *g;
    struct progress *pg;
};

static void watch_event(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps t)
{
    rt_region_stats_on_event(((struct watch *)ud)->rs, rank, index, ev, t);
}

static void watch_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps t,
                      const struct rt_dep *dep)
{
    rt_depgraph_on_dep(((struct watch *)ud)->g, rank, index, ev, t, dep);
}

static void watch_progress(void *ud, uint64_t done, uint64_t total)
{
    progress_replay(((struct watch *)ud)->pg, done, total);
}

/* Why this replay needs every event in memory (cli_trace_open_budget's refusal), or NULL when it
 * can read the trace as it goes (RT_TRACE_STREAM): one replay, nothing that keeps or revisits
 * every event. */
static const char *whole_why(const struct replay_cli *c)
{
    const char *win = c->model.window_spec;
    if (c->runs)
        return "a Monte Carlo (--runs) replays every event many times";
    if (outputs_wanted(&c->out))
        return "--output-trace and --perfetto keep every event's timing";
    if (c->fix.on)
        return "--fix-clocks corrects every event before the replay";
    if (c->tr.region)
        return "--region gathers every instance of the region";
    if (win && strcmp(win, "mpi") && strcmp(win, "all"))
        return "--window region:... and time:... need every event read first";
    return NULL;
}

int cmd_replay(struct args *a)
{
    struct replay_cli c;
    struct rt_replay_options opts;
    if (parse_replay(a, &c))
        return 2; /* a usage error */
    if (model_cli_finish(&c.model, &opts))
        return 1;
    rt_error err = {0};
    rt_trace *t = NULL;
    struct watch w = {0};
    struct rt_replay_result *res = NULL;
    const struct rt_region_instance *inst = NULL;
    uint64_t ninst = 0;
    int rc = 1;
    if (dist_active() && !c.split_runs && (c.tr.region || outputs_wanted(&c.out) || c.fix.on)) {
        rc = cli_die("--region, --output-trace, --perfetto and --fix-clocks need every rank's events: "
                     "run them as one process, or with --runs N --split runs under mpirun");
        goto out_quiet;
    }
    if (dist_trace_open(c.tr.path, c.split_runs, whole_why(&c), &t, &opts.part, &err) ||
        clock_fix_cli_apply(&c.fix, t, opts.eager_limit, &err))
        goto out;
    int streamed = rt_trace_streamed(t);
    if (dist_rank() == 0 && !streamed) /* (a streamed trace knows what it dropped once read) */
        cli_warn_dropped(t);
    c.model.replays = c.runs ? c.runs : 1;
    if (model_cli_network(&c.model, &opts, t))
        goto out_quiet;
    c.tr.fix = c.fix.on ? &c.fix : NULL;
    uint32_t reg = RT_NONE;
    if (c.tr.region) {
        reg = rt_trace_find_region(t, c.tr.region);
        /* (a region no rank enters has no instance: an error, not an empty table; under mpirun a
         * process holds only its ranks' events, so there only the name is checked) */
        if (reg == RT_NONE || (dist_size() == 1 && !rt_trace_region_entered(t, reg))) {
            cli_region_error(&err, t, reg, c.tr.region);
            goto out;
        }
    }
    if (c.runs) {
        /* distributed: the processes replay each run together, one run after another
         * (--split ranks), or each its share of the runs (--split runs) */
        struct mc_config mc = {.trace = t, .opts = opts, .calm = c.model.calm, .runs = c.runs,
                               .jobs = opts.part ? 1 : (long)c.jobs,
                               .region = reg, .nprocs = c.split_runs ? dist_size() : 1,
                               .proc = c.split_runs ? dist_rank() : 0};
        mc.ud = w.pg = progress_start("replay --runs", "replays", c.runs + 1);
        mc.on_done = progress_tick;
        if (cmd_montecarlo(&mc, &c.tr, &c.model, &err) == RT_OK)
            rc = 0;
        goto out;
    }
    struct rt_replay_observer obs = {.ud = &w};
    if (c.tr.region) {
        if (rt_region_stats_create(t, reg, &w.rs, &err))
            goto out;
        obs.on_event = watch_event;
    }
    if (outputs_wanted(&c.out)) {
        if (rt_depgraph_create(t, &w.g, &err))
            goto out;
        obs.on_dep = watch_dep;
    }
    if ((w.pg = progress_start("replay", "events", streamed ? rt_trace_declared_events(t) : rt_trace_stats(t)->events)))
        obs.on_progress = watch_progress;
    if (rt_replay_run(t, &opts, &obs, &res, &err))
        goto out;
    progress_end(w.pg);
    w.pg = NULL;
    if (streamed) {
        cli_warn_dropped(t);
        model_cli_trace_read(t);
    }
    cli_warn_cut(t, res);
    if (w.rs && rt_region_stats_instances(w.rs, &inst, &ninst, &err))
        goto out;
    if (w.g && outputs_write(&c.out, t, w.g, &err))
        goto out;
    print_replay(&c, &opts, t, res, inst, ninst);
    rc = 0;
out:
    progress_end(w.pg);
    if (rc)
        cli_fail(&err);
out_quiet:
    rt_replay_result_destroy(res);
    rt_depgraph_destroy(w.g);
    rt_region_stats_destroy(w.rs);
    rt_trace_close(t);
    model_cli_free(&c.model);
    return rc;
}
