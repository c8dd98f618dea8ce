/* SPDX-License-Identifier: MIT */
/* retime: the command-line tool. Thin: parses options, calls the libraries, prints. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/replay.h"
#include "retime/trace.h"
#include "retime/units.h"

#include "cli.h"
#include "distributed.h"
#include "outputs.h"
#include "progress.h"

#define RETIME_VERSION "0.1.0"

static void usage(FILE *f)
{
    fputs("usage: retime info TRACE [--collectives [--coll-algos RULES] [--coll OP=ALGO,...]] [--format text|json]\n"
          "       retime replay TRACE MODEL-OPTIONS [OUTPUT-OPTIONS] [--region NAME]\n"
          "                     [--runs N [--jobs J] [--split ranks|runs]] [--format text|json|csv]\n"
          "       retime sweep TRACE --model M --PARAM LIST... [--compute-scale LIST] [--scale-bytes LIST] [--region NAME]\n"
          "                    [--topology SPEC]... [--mapping LIST]... [--jobs N] [--format text|json|csv]\n"
          "       retime predict shift --dims 1|3 --k K --m1 SIZE --mode ssend|isend --alpha TIME --beta TIME/SIZE\n"
          "       retime predict team-shift --dims 1|3 --k K --m1 SIZE --team C --alpha TIME --beta TIME/SIZE\n"
          "       retime predict tradeoff --dims 1|3 --k K --m1 SIZE --alpha TIME --beta TIME/SIZE [--P N] [--c LIST]\n"
          "                               [--traces DIR]... [--output PREFIX]\n"
          "       retime analyze TRACE MODEL-OPTIONS [OUTPUT-OPTIONS] --against model|measured|crossbar [--top N]\n"
          "                      [--format text|json]\n"
          "       retime check [TRACE...] --baseline FILE [--tolerance P%] [--share-tolerance Npp] [--junit FILE]\n"
          "                    [--source-root DIR] [--window SPEC]\n"
          "                    [--allow-trace-changes] [MODEL-OPTIONS] | --update [MODEL-OPTIONS] [--region NAME]...\n"
          "                    [--name NAME]  (the TRACEs are runs of one program, known in the baseline by NAME\n"
          "                    wherever they are; several: the median run is recorded and judged)\n"
          "       retime plot shift|timeline|montecarlo|sweep ... --output PREFIX   (retime plot --help)\n"
          "       retime calibrate TRACE... [--eager-limit SIZE] [--cut-coef X] [--small SIZE] [--gap TIME]\n"
          "                        [--fit auto|eager|rendezvous] [--output PARAMS] [--format text|json]\n"
          "                        alpha, beta and LogP-lite fitted from the traces' own messages (docs/calibrate.md)\n"
          "       retime validate TRACE [MODEL-OPTIONS | --params FILE] [--window SPEC] [--max-error PCT] [--top N]\n"
          "                       [--plot PREFIX] [--format text|json|csv]\n"
          "                       measured against predicted per rank, region, call site, size (docs/calibrate.md)\n"
          "       retime extrapolate TRACE TRACE TRACE... --ranks P --output DIR [--scaling auto|weak|strong]\n"
          "                          [--top N] [--format text|json]\n"
          "                          one program traced at 3+ rank counts, written at P ranks (docs/extrapolate.md)\n",
          f);
    fputs(cli_model_usage, f);
    fputs(outputs_usage, f);
    fputs("TRACE is an OTF2 anchor file (traces.otf2) or the directory holding it.\n"
          "Units: TIME ns|us|ms|s, SIZE B|KB|MB|GB|KiB|MiB|GiB, TIME/SIZE e.g. 0.7595ns/B, or SIZE/s.\n"
          "LIST: comma-separated values, e.g. --alpha 1us,2us,4us.\n"
          "Defaults: --eager-limit 64KiB --compute-scale 1 --format text.\n"
          "Progress: long replays, sweeps and Monte Carlo runs show progress on stderr when it is a\n"
          "terminal; --quiet (any command) silences it.\n"
          "--allow-missing-ranks (info, replay, analyze, sweep, calibrate, validate, check, plot): a rank whose\n"
          "locations the archive lacks (its event file missing or empty: killed before it wrote) is left out,\n"
          "the messages to and from it dropped, collectives timed over the ranks present\n"
          "(docs/other-producers.md).\n"
          "--memory-budget SIZE (any command that reads a trace): what a trace read whole may take (about\n"
          "17 B per event; default half the machine's memory). retime replay streams a trace beyond it (each\n"
          "rank's events read as the replay reaches them, docs/streaming.md) unless streamed it would need\n"
          "more still (many ranks, each read with OTF2's buffers); the other commands refuse it, saying the\n"
          "size it needs. 0: replay every trace streamed.\n"
          "Under mpirun -np N, retime replay splits the ranks over the processes (each reads its part;\n"
          "docs/distributed.md); with --runs, --split runs gives each process whole runs instead.\n",
          f);
}

/* What each command is for, after its synopsis in `retime COMMAND --help` (commands whose
 * synopsis says it have none here). */
static const struct {
    const char *cmd, *text;
} purpose[] = {
    {"info", "What a trace holds: ranks, threads, events, messages, bytes, its time span, regions and call\n"
             "sites; --collectives adds the algorithm each collective gets (docs/collectives.md).\n"},
    {"replay", "The trace re-timed under the model: the measured window's prediction, the whole run's, and\n"
               "each rank's end; --region NAME: every instance of a region; --runs N: N noisy runs and the\n"
               "distribution of their predictions.\n"},
    {"analyze", "The critical path of the window and its breakdown, the wait states, and where the difference\n"
                "between two timings comes from: --against model (A without noise, B with it), measured (A the\n"
                "model, B the trace's own times) or crossbar (A the model alone, B on the --topology network).\n"},
    {"sweep", "Every combination of the listed values replayed (the first option varies slowest), with its\n"
              "speed-up against the first. A parameter's LIST and --mapping's are comma-separated; --topology\n"
              "is given once per topology (a spec holds commas itself).\n"},
    {"check", "The CI gate: replays the traces under the baseline's settings and fails when a prediction moves\n"
              "by more than --tolerance or a critical-path share by more than --share-tolerance, or a trace\n"
              "changed; --update records the baseline (docs/check.md). Exit 0 passed, 1 failed, 2 not run.\n"},
};

/* The line of @p text that starts with @p start, on @p f (nothing when there is none). */
static void usage_line(FILE *f, const char *text, const char *start)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, start, strlen(start))) {
            fprintf(f, "%.*s\n", (int)strcspn(l, "\n"), l);
            return;
        }
}

/* `retime COMMAND --help`: the command's synopsis out of the global usage, what it is for, the
 * option groups it takes and the notes that apply; plot and predict list their own (@p sub: their
 * subcommand). 0, or 2 for an unknown command. */
static int command_help(const char *cmd, const char *sub)
{
    if (cmd && (!strcmp(cmd, "plot") || !strcmp(cmd, "predict"))) {
        char *argv[] = {"retime", (char *)cmd, (char *)(sub && sub[0] != '-' ? sub : "--help"), "--help", NULL};
        struct args a = {4, 1, argv};
        return !strcmp(cmd, "plot") ? cmd_plot(&a) : cmd_predict(&a);
    }
    char *text = NULL, *syn = NULL;
    size_t len = 0, slen = 0;
    FILE *m = open_memstream(&text, &len), *s = open_memstream(&syn, &slen);
    int found = 0;
    if (m && s) {
        usage(m);
        if (fflush(m) == 0)
            found = cmd && cli_usage_of(s, text, cmd);
    }
    if (m)
        fclose(m);
    if (s)
        fclose(s);
    if (!text || !syn) {
        free(text);
        free(syn);
        return cli_die("out of memory"), 1;
    }
    if (!found) {
        cli_die("unknown command '%s' (retime --help lists them)", cmd ? cmd : "");
        free(text);
        free(syn);
        return 2;
    }
    int model = strstr(syn, "MODEL-OPTIONS") || strstr(syn, "--model");
    fputs(syn, stdout);
    for (size_t i = 0; i < sizeof purpose / sizeof *purpose; i++)
        if (!strcmp(cmd, purpose[i].cmd))
            fputs(purpose[i].text, stdout);
    if (model) {
        puts("MODEL-OPTIONS:");
        fputs(cli_model_usage, stdout);
    }
    if (strstr(syn, "OUTPUT-OPTIONS"))
        fputs(outputs_usage, stdout);
    if (strstr(syn, "TRACE"))
        usage_line(stdout, text, "TRACE is");
    if (model || strstr(syn, "TIME") || strstr(syn, "SIZE"))
        usage_line(stdout, text, "Units:");
    if (strstr(syn, "LIST"))
        usage_line(stdout, text, "LIST:");
    if (model)
        usage_line(stdout, text, "Defaults:");
    puts("retime --help: every command.");
    free(text);
    free(syn);
    return 0;
}

/* ------------------------------------------------------------------ info */

/* "64KiB", "1MiB" when exact, else "1000B". */
static const char *bytes_text(char *buf, size_t n, rt_bytes b)
{
    static const char *const unit[] = {"GiB", "MiB", "KiB"};
    for (int i = 0; i < 3; i++) {
        rt_bytes u = 1ull << (10 * (3 - i));
        if (b >= u && b % u == 0) {
            snprintf(buf, n, "%" PRIu64 "%s", b / u, unit[i]);
            return buf;
        }
    }
    snprintf(buf, n, "%" PRIu64 "B", b);
    return buf;
}

/* "knomial (fanout 4)", "reduce-bcast (binomial + knomial)", "pipeline (segments of 8KiB)". */
static const char *plan_text(char *buf, size_t n, const struct rt_coll_plan *p)
{
    char seg[32];
    size_t len = (size_t)snprintf(buf, n, "%s", rt_coll_algo_name(p->algo));
    if (p->algo == RT_ALGO_REDUCE_BCAST && len < n)
        len += (size_t)snprintf(buf + len, n - len, " (%s + %s)", rt_coll_algo_name(p->part[0] ? p->part[0] : RT_ALGO_BINOMIAL),
                                rt_coll_algo_name(p->part[1] ? p->part[1] : RT_ALGO_BINOMIAL));
    if (p->fanout && len < n)
        len += (size_t)snprintf(buf + len, n - len, " fanout=%u", p->fanout);
    if (p->seg && len < n)
        snprintf(buf + len, n - len, " seg=%s", bytes_text(seg, sizeof seg, p->seg));
    return buf;
}

/* The algorithm each kind of collective instance of @p t gets (--collectives). */
static int info_collectives(const rt_trace *t, const struct rt_replay_options *o, enum format fmt)
{
    struct rt_coll_census c;
    rt_error err = {0};
    if (rt_coll_census(t, o->coll_rules, o->coll_algo, &c, &err))
        return cli_fail(&err);
    char b1[32], b2[32], p[96];
    const char *rules = rt_coll_rules_name(o->coll_rules);
    if (fmt == FMT_JSON) {
        printf(", \"coll_algos\": ");
        cli_json_string(stdout, rules);
        printf(", \"collective_plans\": [");
        for (size_t i = 0; i < c.n; i++) {
            const struct rt_coll_census_row *r = &c.rows[i];
            printf("%s{\"operation\": \"%s%s\", \"ranks\": %u, \"block_bytes\": %" PRIu64
                   ", \"total_bytes\": %" PRIu64 ", \"instances\": %" PRIu64 ", \"algorithm\": \"%s\""
                   ", \"segment_bytes\": %" PRIu64 ", \"fanout\": %u}",
                   i ? ", " : "", rt_coll_op_name(r->op), r->vector ? "(v)" : "", r->ranks, r->block, r->total,
                   r->instances, rt_coll_algo_name(r->plan.algo), r->plan.seg, r->plan.fanout);
        }
        printf("], \"collective_instances_incomplete\": %" PRIu64 ", \"collective_instances_mismatched\": %" PRIu64
               ", \"collective_rows_not_listed\": %" PRIu64, c.incomplete, c.mismatched, c.more);
    } else {
        printf("collectives    algorithms under --coll-algos %s%s (docs/collectives.md)\n", rules,
               c.n ? "" : ": none with 2 or more ranks");
        if (c.n)
            printf("  %-14s %6s %10s %10s %10s  %s\n", "operation", "ranks", "block", "total", "instances", "algorithm");
        for (size_t i = 0; i < c.n; i++) {
            const struct rt_coll_census_row *r = &c.rows[i];
            char op[24];
            snprintf(op, sizeof op, "%s%s", rt_coll_op_name(r->op), r->vector ? "(v)" : "");
            printf("  %-14s %6u %10s %10s %10" PRIu64 "  %s\n", op, r->ranks, bytes_text(b1, sizeof b1, r->block),
                   bytes_text(b2, sizeof b2, r->total), r->instances, plan_text(p, sizeof p, &r->plan));
        }
        if (c.incomplete || c.mismatched || c.more)
            printf("  (%" PRIu64 " instances some member never enters, %" PRIu64
                   " whose members' counts disagree, %" PRIu64 " in kinds past the first %d)\n",
                   c.incomplete, c.mismatched, c.more, RT_COLL_CENSUS_MAX);
    }
    rt_coll_census_free(&c);
    return 0;
}

static int cmd_info(struct args *a)
{
    const char *path = NULL, *v;
    enum format fmt = FMT_TEXT;
    const char *coll_spec = NULL, *rules_spec = NULL;
    int collectives = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        if (cli_opt(a, "--format", &v)) {
            if (cli_format(v, &fmt, 0))
                return cli_die("bad --format '%s' (text or json)", v ? v : "");
        } else if (!strcmp(a->argv[a->i], "--collectives")) {
            collectives = 1;
        } else if (cli_opt(a, "--coll-algos", &v)) {
            if (!v || !*v)
                return cli_die("--coll-algos needs retime, mpich, openmpi or a rules file");
            rules_spec = v;
            collectives = 1;
        } else if (cli_opt(a, "--coll", &v)) {
            if (!v || !*v)
                return cli_die("--coll needs OP=ALGO[,OP=ALGO...]");
            coll_spec = v;
            collectives = 1;
        } else if (a->argv[a->i][0] == '-' && a->argv[a->i][1]) {
            return cli_die("unknown option '%s' for info", a->argv[a->i]);
        } else if (!path) {
            path = a->argv[a->i];
        } else {
            return cli_die("more than one trace given ('%s' and '%s')", path, a->argv[a->i]);
        }
    }
    if (!path)
        return cli_die("info needs a TRACE");
    rt_error err = {0};
    rt_trace *t = NULL;
    struct rt_replay_options opts;
    memset(&opts, 0, sizeof opts);
    rt_coll_rules *rules = NULL;
    if (coll_spec && rt_coll_algo_parse(coll_spec, opts.coll_algo, &err))
        return cli_die("--coll: %s", err.msg);
    if (rules_spec && rt_coll_rules_open(rules_spec, &rules, &err))
        return cli_die("--coll-algos: %s", err.msg);
    opts.coll_rules = rules;
    int rc = 0;
    if (cli_trace_open(path, &t, &err)) {
        rt_coll_rules_free(rules);
        return cli_fail(&err);
    }
    const struct rt_trace_stats *st = rt_trace_stats(t);
    uint64_t bytes_recv = 0;
    int mpi = 0; /* some rank calls MPI (a trace of threads alone, e.g. APEX's, does not) */
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++) {
            mpi |= ev[i].flags & RT_EVF_MPI;
            if (ev[i].kind == RT_EV_RECV || ev[i].kind == RT_EV_IRECV_REQUEST)
                bytes_recv += ev[i].flags & RT_EVF_CANCELLED ? 0 : rt_trace_payload(t, r, i).bytes;
        }
    }
    char span[32], dropped[200];
    rt_format_time(span, sizeof span, (double)st->span_ns);
    rt_trace_dropped(t, dropped, sizeof dropped);
    if (fmt == FMT_JSON) {
        printf("{\"trace\": ");
        cli_json_string(stdout, rt_trace_path(t));
        cli_coverage_json(stdout, t);
        printf(", \"ranks\": %u, \"events\": %" PRIu64 ", \"otf2_records\": %" PRIu64
               ", \"messages\": {\"send\": %" PRIu64 ", \"isend\": %" PRIu64 ", \"recv\": %" PRIu64
               ", \"irecv\": %" PRIu64 ", \"collectives\": %" PRIu64 "}, \"bytes_sent\": %" PRIu64
               ", \"bytes_received\": %" PRIu64 ", \"span_ns\": %" PRId64 ", \"regions\": %u, \"communicators\": %u"
               ", \"self_communicators\": %u, \"threads\": %u, \"thread_records\": %" PRIu64
               ", \"thread_teams\": %" PRIu64 ", \"accelerator_locations\": %u, \"accelerator_records\": %" PRIu64
               ", \"metric_locations\": %u, \"metric_records\": %" PRIu64 ", \"rma_records\": %" PRIu64
               ", \"unknown_records\": %" PRIu64 ", \"measured_collectives\": %" PRIu64
               ", \"unknown_collective_ops\": %" PRIu64 ", \"orphan_completions\": %" PRIu64 ", \"dropped_requests\": %" PRIu64,
               rt_trace_ranks(t), st->events, st->otf2_events, st->sends, st->isends, st->recvs, st->irecvs,
               st->collectives, st->bytes_sent, bytes_recv, st->span_ns, rt_trace_regions(t),
               rt_trace_comms(t) - st->self_comms * rt_trace_ranks(t), st->self_comms, st->threads,
               st->thread_records, st->forks, st->accel_locations, st->accel_records, st->metric_locations,
               st->metric_records, st->rma_records, st->unknown_records, st->measured_collectives,
               st->unknown_coll_ops, st->orphan_completions, st->dropped_requests);
        if (st->nb_collectives) /* only then: the outputs of traces without them stay as they were */
            printf(", \"nonblocking_collectives\": %" PRIu64, st->nb_collectives);
        cli_cpu_wait_json(stdout, t); /* likewise: only for a trace with CPU times */
        const struct rt_trace_mpi *lib = rt_trace_mpi_info(t);
        if (lib->library || lib->eager_limit) { /* likewise: only for a trace that recorded its MPI */
            printf(", \"mpi\": {\"library\": ");
            cli_json_string(stdout, lib->library);
            printf(", \"eager_limit_bytes\": %llu, \"eager_limit_source\": ", (unsigned long long)lib->eager_limit);
            cli_json_string(stdout, lib->eager_source);
            printf(", \"eager_cvars\": ");
            cli_json_string(stdout, lib->eager_cvars);
            printf(", \"node_ranks_max\": %u, \"node_cpus_min\": %u}", lib->node_ranks, lib->node_cpus);
        }
        if (lib->clock) { /* likewise: only for a trace that recorded its clock */
            printf(", \"event_clock\": ");
            cli_json_string(stdout, lib->clock);
        }
        if (st->clock.ranks || st->clock.drift_ranks) /* likewise */
            printf(", \"clock_offsets\": {\"ranks\": %u, \"max_ns\": %" PRId64 ", \"max_rank\": %u"
                   ", \"drift_ranks\": %u, \"drift_ns\": %" PRId64 ", \"drift_uncertainty_ns\": %" PRId64
                   ", \"drift_rank\": %d}", st->clock.ranks, st->clock.max_ns, st->clock.max_rank,
                   st->clock.drift_ranks, st->clock.drift_ns, st->clock.drift_uncertainty_ns,
                   st->clock.drift_ranks ? (int)st->clock.drift_rank : -1);
        if (st->uncompleted_isends) /* likewise */
            printf(", \"uncompleted_isends\": %" PRIu64, st->uncompleted_isends);
        printf(", \"callsites\": [");
        for (uint32_t i = 0; i < rt_trace_callsites(t); i++) {
            const struct rt_callsite *cs = rt_trace_callsite(t, i);
            printf("%s{\"id\": %u, \"function\": ", i ? ", " : "", i);
            cli_json_string(stdout, cs->function);
            printf(", \"file\": ");
            cli_json_string(stdout, cs->file);
            printf(", \"line\": %u}", cs->line);
        }
        printf("], \"region_list\": [");
        for (uint32_t i = 0; i < rt_trace_regions(t); i++) {
            const struct rt_region *rg = rt_trace_region(t, i);
            printf("%s{\"name\": ", i ? ", " : "");
            cli_json_string(stdout, rg && rg->name ? rg->name : "");
            printf(", \"mpi\": %s}", rg && rg->is_mpi ? "true" : "false");
        }
        printf("]");
        if (collectives && info_collectives(t, &opts, fmt))
            rc = 1;
        printf("}\n");
    } else {
        printf("trace          %s\n", rt_trace_path(t));
        cli_coverage_text(stdout, t, 15);
        printf("ranks          %u (%s)\n", rt_trace_ranks(t), mpi ? "MPI processes" : "processes; no MPI calls");
        printf("threads        %u besides the ranks' own", st->threads);
        if (st->threads)
            printf(" (%" PRIu64 " records; %" PRIu64 " thread teams forked and joined)", st->thread_records, st->forks);
        printf("\n");
        if (st->accel_locations || st->metric_locations)
            printf("other          %u accelerator locations (%" PRIu64 " records), %u metric locations (%" PRIu64
                   " records)\n", st->accel_locations, st->accel_records, st->metric_locations, st->metric_records);
        printf("events         %" PRIu64 " kept of %" PRIu64 " OTF2 records\n", st->events, st->otf2_events);
        printf("messages       %" PRIu64 " send, %" PRIu64 " isend, %" PRIu64 " recv, %" PRIu64 " irecv\n",
               st->sends, st->isends, st->recvs, st->irecvs);
        printf("collectives    %" PRIu64 " (calls, summed over ranks)", st->collectives);
        if (st->nb_collectives)
            printf("; %" PRIu64 " of them non-blocking (replayed from their request to their completion)",
                   st->nb_collectives);
        if (st->measured_collectives)
            printf("; %" PRIu64 " set-up records (MPI_Init, MPI_Finalize, communicator or window creation) kept as "
                   "measured time", st->measured_collectives);
        if (st->unknown_coll_ops)
            printf("; %" PRIu64 " of an operation OTF2 3 does not define (timed as dissemination rounds)",
                   st->unknown_coll_ops);
        printf("\n");
        printf("bytes          %" PRIu64 " sent, %" PRIu64 " received\n", st->bytes_sent, bytes_recv);
        printf("time span      %s\n", span);
        char names[600], text[2400];
        rt_trace_region_list(t, names, sizeof names);
        printf("regions        %s\n", cli_text_buf(text, sizeof text, names));
        printf("communicators  %u", rt_trace_comms(t) - st->self_comms * rt_trace_ranks(t));
        if (st->self_comms)
            printf(" (%u self, one instance per rank)", st->self_comms);
        printf("\n");
        const struct rt_trace_mpi *lib = rt_trace_mpi_info(t);
        if (lib->library) {
            printf("mpi            ");
            cli_text(stdout, lib->library, 0);
            printf("\n");
        }
        if (lib->clock) {
            printf("event clock    ");
            cli_text(stdout, lib->clock, 0);
            printf("\n");
        }
        if (lib->eager_limit) {
            printf("eager limit    %lluB between the ranks (", (unsigned long long)lib->eager_limit);
            cli_text(stdout, lib->eager_source ? lib->eager_source : "?", 0);
            rt_bytes payload;
            const char *rule;
            rt_error e = {0};
            if (lib->eager_source && rt_eager_limit_of(lib->eager_source, lib->eager_limit, &payload, &rule, &e) == RT_OK)
                printf("; %lluB of payload, %s", (unsigned long long)payload, rule);
            printf("; the replay's default unless --eager-limit is given)\n");
        }
        char waited[400];
        if (cli_oversubscribed_text(t, waited, sizeof waited))
            printf("warning        %s\n", waited);
        if (cli_cpu_wait_text(t, waited, sizeof waited))
            printf("cpu time       %s\n", waited);
        printf("call sites     %u\n", rt_trace_callsites(t));
        for (uint32_t i = 0; i < rt_trace_callsites(t); i++) {
            const struct rt_callsite *cs = rt_trace_callsite(t, i);
            printf("  [%u] ", i);
            cli_text(stdout, cs->function, 0);
            fputc(' ', stdout);
            cli_text(stdout, cs->file, 0);
            printf(":%u\n", cs->line);
        }
        if (st->orphan_completions || st->dropped_requests)
            printf("warning        %" PRIu64 " completions without recorded start, %" PRIu64
                   " requests never completed (recording was off?)\n",
                   st->orphan_completions, st->dropped_requests);
        if (st->clock.ranks) {
            char mx[32];
            rt_format_time(mx, sizeof mx, (double)st->clock.max_ns);
            printf("clock offsets  %u of %u ranks (largest %s, rank %u), added to their times by OTF2\n",
                   st->clock.ranks, rt_trace_ranks(t), mx, st->clock.max_rank);
        }
        if (st->uncompleted_isends)
            printf("warning        %" PRIu64 " of %" PRIu64 " nonblocking sends have no completion record (the "
                   "tracer lost them: retime-trace before 2026-11-29 kept one completion per request handle, "
                   "and Open MPI returns one handle for all its inline sends); they are replayed as sent, "
                   "their waits end without them\n", st->uncompleted_isends, st->isends);
        if (dropped[0])
            printf("dropped        %s (not replayed)\n", dropped);
        if (collectives && info_collectives(t, &opts, fmt))
            rc = 1;
    }
    rt_trace_close(t);
    rt_coll_rules_free(rules);
    return rc;
}

/* --memory-budget SIZE or --memory-budget=SIZE at argv[*i]: 1 taken (value too), 0 not it, -1 bad (printed). */
static int take_budget(int argc, char **argv, int *i)
{
    const char *opt = "--memory-budget", *v = NULL;
    size_t len = strlen(opt);
    if (strncmp(argv[*i], opt, len))
        return 0;
    if (argv[*i][len] == '=')
        v = argv[*i] + len + 1;
    else if (argv[*i][len])
        return 0;
    else if (*i + 1 < argc)
        v = argv[++*i];
    rt_bytes b = 0;
    rt_error e = {0};
    if (!v || rt_parse_bytes(v, &b, &e))
        return cli_die("bad --memory-budget '%s' (a SIZE such as 8GiB; 0 streams every trace a replay can)", v ? v : ""),
               -1;
    cli_set_memory_budget(b);
    return 1;
}

/* Takes --quiet, --allow-missing-ranks and --memory-budget out of argv, wherever they are: they
 * apply to every command. -1 after an error line. */
static int take_quiet(int argc, char **argv)
{
    int n = 1;
    for (int i = 1; i < argc; i++) {
        int b;
        if (!strcmp(argv[i], "--quiet"))
            progress_set_quiet(1);
        else if (!strcmp(argv[i], "--allow-missing-ranks"))
            cli_set_trace_flags(RT_TRACE_ALLOW_MISSING_RANKS);
        else if ((b = take_budget(argc, argv, &i)) < 0)
            return -1;
        else if (!b)
            argv[n++] = argv[i];
    }
    argv[n] = NULL;
    return n;
}

static int dispatch(int argc, char **argv)
{
    argc = take_quiet(argc, argv);
    if (argc < 0)
        return 2; /* a usage error */
    struct args a = {argc, 1, argv};
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc == 2)) {
        usage(stdout);
        puts("retime COMMAND --help (or retime help COMMAND): that command's usage alone.");
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("retime %s\n", RETIME_VERSION);
        return 0;
    }
    /* `retime help COMMAND [SUB]`, `retime COMMAND --help` (-h, anywhere): that command's usage,
     * not an unknown option */
    if (!strcmp(argv[1], "help"))
        return command_help(argv[2], argc > 3 ? argv[3] : NULL);
    if (cli_wants_help(argc, argv, 2))
        return command_help(argv[1], argc > 2 ? argv[2] : NULL);
    if (!strcmp(argv[1], "info"))
        return cmd_info(&a);
    if (!strcmp(argv[1], "replay"))
        return cmd_replay(&a);
    if (!strcmp(argv[1], "analyze"))
        return cmd_analyze(&a);
    static const struct {
        const char *name;
        int (*fn)(struct args *);
    } cmds[] = {{"sweep", cmd_sweep},   {"predict", cmd_predict}, {"check", cmd_check},
                {"plot", cmd_plot},     {"calibrate", cmd_calibrate}, {"validate", cmd_validate},
                {"extrapolate", cmd_extrapolate}};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        if (strcmp(argv[1], cmds[i].name))
            continue;
        char what[32];
        snprintf(what, sizeof what, "retime %s", cmds[i].name);
        return dist_refuse(what) ? 1 : cmds[i].fn(&a);
    }
    /* one line, as every error (#47: the whole usage followed it) */
    return cli_die("unknown command '%.80s' (commands: info, replay, analyze, sweep, predict, check, plot, "
                   "calibrate, validate; retime --help says more)", argv[1]), 2;
}

int main(int argc, char **argv)
{
    cli_std_fds();
    dist_init(&argc, &argv); /* under mpirun: one process of a distributed replay */
    cli_quiet_errors(dist_active() && dist_rank() != 0);
    int rc = cli_stdout_done(dispatch(argc, argv));
    dist_finalize(rc);
    return rc;
}
