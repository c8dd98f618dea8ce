/* SPDX-License-Identifier: MIT */
/* Shared pieces of the retime command-line tool: option scanning, output helpers, model options. */
#ifndef RETIME_CLI_H
#define RETIME_CLI_H

#include <stdio.h>

#include "retime/clock_fix.h"
#include "retime/depgraph.h"
#include "retime/replay.h"

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

/* The argument vector and the scanner's position in it. */
struct args {
    int argc, i;
    char **argv;
};

/* Prints "retime: error: ..." and one newline to stderr; returns 1 (the exit status). Says
 * nothing after cli_quiet_errors(1). */
int cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Under mpirun every process finds the same errors, and process 0 says them: the others call
 * this with 1 before any command runs. */
void cli_quiet_errors(int quiet);
/* At start: a standard descriptor that is closed gets /dev/null, read-only, so that no file the
 * command opens takes its number (and a write to a closed standard output still fails). */
void cli_std_fds(void);
/* At the end: standard output checked like any file. A write, flush or close error there is one
 * line ("retime: error: standard output: No space left on device"); returns @p rc, or 1 for such
 * an error after a command that succeeded. */
int cli_stdout_done(int rc);
/* fflush(stdout), keeping the errno of a failure for cli_stdout_done: every flush of standard
 * output goes through it. 0, or -1 on failure. */
int cli_flush_stdout(void);
/* Prints an rt_error the same way; returns 1. */
int cli_fail(const rt_error *err);
/** The error for a region option naming no region of @p t (@p reg RT_NONE) or one no rank enters:
 *  the name (cut at 80 characters) and the trace's regions; returns RT_EINVAL. */
int cli_region_error(rt_error *err, const rt_trace *t, uint32_t reg, const char *name);
/** One warning line on stderr naming what the trace holds that the replay drops (nothing if none),
 *  one note line counting the set-up collectives kept as measured time, one warning line counting
 *  collectives of operations OTF2 does not define, one warning line naming the missing ranks
 *  (--allow-missing-ranks) and what was dropped with them (each line only when there are some). */
void cli_warn_dropped(const rt_trace *t);
/* The time the ranks waited for a CPU while computing (wall minus CPU time outside MPI calls), for
 * a trace with CPU times (rt_trace_has_cpu_time; else 0 and nothing written): one text line
 * without its label ("12.3ms of 40.1ms compute (30.7 %) ..."), or a JSON member
 * ", \"cpu_wait\": {...}" with every rank. */
int cli_cpu_wait_text(const rt_trace *t, char *buf, size_t cap);
/* The ranks' compute outside MPI calls and the part of it they waited for a CPU, summed; returns
 * the rank with the largest share waited (*worst_share, if not NULL), RT_NONE for no ranks. */
uint32_t cli_cpu_wait_totals(const rt_trace *t, rt_time_ns *wall, rt_time_ns *waited, double *worst_share);
/* The MPI call rank @p rank is inside at its event @p j (the innermost one entered and not left by
 * then): its region, and the index of its Enter (*enter); RT_NONE when outside MPI calls. */
uint32_t cli_call_at(const rt_trace *t, uint32_t rank, uint64_t j, uint64_t *enter);
/* After a replay with options.cut: one warning line per rank that waits at its end for what never
 * came (where it was cut), and one for the sends in flight. */
void cli_warn_cut(const rt_trace *t, const struct rt_replay_result *res);
void cli_cpu_wait_json(FILE *f, const rt_trace *t);
/* "up to 8 ranks on a node of 2 CPUs: oversubscribed, ..." when the trace's run was (else 0). */
int cli_oversubscribed_text(const rt_trace *t, char *buf, size_t cap);
/* --allow-missing-ranks (any command that reads a trace; taken out of argv by main): the flags
 * every trace is opened with (enum rt_trace_open_flag). */
void cli_set_trace_flags(unsigned flags);
/* rt_trace_open with the flags above: every command opens its traces through it. A trace whose
 * declared events need more than the memory budget (RT_TRACE_EVENT_BYTES each) is refused in one
 * line with the size it needs. */
int cli_trace_open(const char *path, rt_trace **t, rt_error *err);
/* The same, for a command that can replay it streamed (RT_TRACE_STREAM) when @p whole_why is NULL:
 * a trace over the budget is then opened streamed, with a note on stderr; else @p whole_why says
 * why the command needs every event (the refusal's words, e.g. "--region gathers ..."). */
int cli_trace_open_budget(const char *path, const char *whole_why, rt_trace **t, rt_error *err);
/* --memory-budget SIZE (any command that reads a trace; taken out of argv by main): what a trace
 * read whole may take; by default half the machine's memory. */
void cli_set_memory_budget(uint64_t bytes);
uint64_t cli_memory_budget(void);
/* "1.59GiB": a size in bytes with a binary unit. */
char *cli_format_bytes(char *buf, size_t n, double bytes);
/* Those flags (for the opening of a part of a trace under mpirun). */
unsigned cli_trace_flags(void);
/* The coverage line: "not replayed" and what the replay leaves out (rt_trace_coverage; the
 * missing ranks and what was dropped with them), its label padded to @p width, on @p f; nothing
 * when every record is replayed and no rank is missing. */
void cli_coverage_text(FILE *f, const rt_trace *t, int width);
/* The same as a JSON member after others: , "not_replayed": {...}; nothing when nothing is left out. */
void cli_coverage_json(FILE *f, const rt_trace *t);
/* Matches "--name value" or "--name=value" at a->i; *val is NULL when the value is missing. */
int cli_opt(struct args *a, const char *name, const char **val);
/* A whole number from @p lo to @p hi, written in decimal digits only: 0, or -1 (nothing printed). */
int cli_count(const char *v, uint64_t lo, uint64_t hi, uint64_t *out);
/* Parses text|json|csv (csv only when @p allow_csv). */
int cli_format(const char *v, enum format *f, int allow_csv);
/* @p s as a JSON string, escaped; null for NULL (a string the trace did not record). */
void cli_json_string(FILE *f, const char *s);
/* Text output of names from a trace (regions, call sites' files and functions, communicators) and
 * of lines made with them: each control byte (below 0x20, and 0x7f) is written as \xNN, so that
 * a crafted trace cannot send escape sequences to a terminal (JSON has cli_json_string); '\n'
 * stays when @p keep_newlines (text of several lines). The one helper for all text output. */
void cli_text(FILE *f, const char *s, int keep_newlines);
/* The same for one name into @p buf of @p n bytes (newlines escaped; cut to fit, always
 * terminated), for printf and its field widths; returns buf. */
const char *cli_text_buf(char *buf, size_t n, const char *s);
/* Writes the synopsis of command @p cmd ("replay", "plot timeline") out of a usage text @p usage:
 * each of its lines that starts (after "usage: " or spaces) with "retime CMD ", as "usage: retime
 * CMD ...", with the indented lines that follow it. Returns how many synopses it wrote. */
int cli_usage_of(FILE *f, const char *usage, const char *cmd);
/* Whether @p argv[from..argc) asks for help (--help or -h). */
int cli_wants_help(int argc, char **argv, int from);
/* Prints a double with the fewest digits (15..17) that read back to the same value. */
void cli_print_double(FILE *f, double v);
/* Prints picoseconds as nanoseconds with exactly the precision they have. */
void cli_print_ps_as_ns(FILE *f, rt_time_ps ps);

/* The operand and output options of every command that replays one trace. */
struct trace_cli {
    const char *path;   /* TRACE */
    const char *region; /* --region NAME */
    enum format fmt;    /* --format text|json|csv */
    const struct clock_fix_cli *fix; /* --fix-clocks and its report, for the output; NULL without */
};

/* The last option handler of such a command: takes --region, --format and the TRACE operand,
 * and rejects any other option. Returns 0 or 1 after printing the error. */
int trace_cli_option(struct args *a, struct trace_cli *t, const char *cmd);
/* The same without --format (commands that write no report): --region NAME, the TRACE operand,
 * and the error for any other option. Returns 0 or 1 after printing the error. */
int trace_cli_operand(struct args *a, const char **path, const char **region, const char *cmd);
/* --runs N and --jobs J of a Monte Carlo: 1 consumed, 0 not ours, -1 error (printed). */
int cli_runs_option(struct args *a, uint64_t *runs, uint64_t *jobs);
/* Checks that a TRACE was given. Returns 0 or 1 after printing the error. */
int trace_cli_finish(const struct trace_cli *t, const char *cmd);

/* --fix-clocks[=SPEC] of replay, analyze and plot timeline: the trace's clocks corrected after
 * reading (retime/clock_fix.h). SPEC: L_MIN (a TIME), or lmin=TIME,gamma=X (docs/clock-fix.md). */
struct clock_fix_cli {
    int on;
    struct rt_clock_fix_options opts;
    struct rt_clock_fix_report rep; /* filled by clock_fix_cli_apply */
};
/* 1 consumed, 0 not ours, -1 error (printed). */
int clock_fix_cli_option(struct args *a, struct clock_fix_cli *f);
/* Corrects @p t when --fix-clocks was given, with the replay's @p eager_limit deciding which sends
 * are rendezvous (as the replay and analyze see them): RT_OK or the error, in @p err. */
int clock_fix_cli_apply(struct clock_fix_cli *f, rt_trace *t, rt_bytes eager_limit, rt_error *err);
/* "1 violation of 1 constraint (worst 500 ns at rank 1 event 1), 2 events moved, ..." (no newline). */
void clock_fix_cli_text(FILE *f, const struct clock_fix_cli *fx);
/* JSON object {"min_latency_ns": ..., "violations_before": ...}, or null for NULL. */
void clock_fix_cli_json(FILE *f, const struct clock_fix_cli *fx);

/* Model options shared by replay, sweep and the commands that replay. */
struct model_cli {
    const char *model;       /* --model, default hockney */
    const char *params_file; /* --params FILE */
    const char *coll_spec;   /* --coll OP=ALGO,... */
    const char *coll_rules_spec; /* --coll-algos retime|mpich|openmpi|FILE */
    const char *window_spec;  /* --window all|mpi|region:...|time:... (NULL: mpi) */
    double max_work;          /* --max-work N: events a command may replay in all (0: the default) */
    uint64_t replays;         /* replays the command will run (runs × combinations; 0: 1) */
    rt_window *window;        /* opened by model_cli_network once the trace is known */
    rt_coll_rules *coll_rules; /* opened by model_cli_finish, freed by model_cli_free */
    struct rt_model_params params;
    unsigned given;          /* parameters set by options (bit = index in rt_model_param_table) */
    double compute_scale;
    const char *scale_spec;   /* --scale-bytes F[@TARGET],... (retime/scale.h; NULL: as traced) */
    rt_scale *scale;          /* opened on the trace by model_cli_window, freed by model_cli_free */
    const rt_trace *scale_trace; /* the trace it was opened on */
    int compute;              /* --compute: enum rt_compute (default RT_COMPUTE_CPU: CPU time where the trace has it) */
    int compute_given;
    int cut;                  /* --cut: replay up to where the run stopped (also when the trace says it stopped early) */
    rt_bytes eager_limit;
    int have_eager;
    int injection;            /* --injection: enum rt_injection (default in order) */
    int have_injection;
    int beta_table;          /* --beta-table: Hockney's β per size from the parameter file */
    const char *net_noise_spec; /* --net-noise DIST */
    rt_dist *net_noise;      /* parsed by model_cli_finish, freed by model_cli_free */
    const char *os_noise_spec[8]; /* --os-noise SOURCE, repeatable */
    unsigned n_os_noise;
    rt_os_noise *os_noise;   /* parsed by model_cli_finish */
    const char *net_burst_spec; /* --net-burst mmpp:... */
    rt_burst *net_burst;     /* parsed by model_cli_finish */
    uint64_t seed;           /* --seed */
    struct rt_network_params net; /* --topology ... (net.topology NULL: none) */
    rt_network *network;     /* made by model_cli_network once the ranks are known */
    rt_network *calm;        /* the same without background traffic (--perturb), for noise-free replays */
    rt_network *crossbar;    /* model_cli_crossbar's network (shared injection only) */
};

/* Where the second topology of a --topology value that lists several starts (the "mesh:2x4" of
 * "torus:2x2x2,mesh:2x4"), or NULL when it is one spec. A spec has commas of its own
 * (torus:4x4x4,adaptive, dragonfly:9,4,2,2, fattree:N,radix=K, XGFT(2;18,36;1,18)), but none is
 * followed by NAME: or by crossbar, which start another topology. */
const char *cli_topology_list_next(const char *v);

void model_cli_init(struct model_cli *m);
/* Consumes the option at a->i if it is a model option: 1 consumed, 0 not ours, -1 error (printed). */
int model_cli_option(struct args *a, struct model_cli *m);
/* Applies the parameter file under the options, checks that the model has all it needs and
 * fills @p o. Returns 0, or 1 after printing the error. */
int model_cli_finish(struct model_cli *m, struct rt_replay_options *o);
/* Frees what model_cli_finish allocated. */
void model_cli_free(struct model_cli *m);
/* With --topology: builds the network for trace @p t (its ranks) into @p o. Returns 0 or 1 after
 * printing the error. */
int model_cli_network(struct model_cli *m, struct rt_replay_options *o, const rt_trace *t);
/* The topology a replay takes for --topology @p topology (NULL: none given): the network's spec,
 * or NULL for the crossbar of the model alone; with --injection shared the crossbar's is the
 * network crossbar-flow (the single port is in order by its nature). */
const char *model_cli_topology(const struct model_cli *m, const char *topology);
/* The crossbar as the replays of @p m have it, for comparisons with it (analyze --against
 * crossbar): NULL (the model alone) in order, else a crossbar-flow network built for @p t.
 * 0, or 1 (printed). */
int model_cli_crossbar(struct model_cli *m, const rt_trace *t, const rt_network **out);
/* For a command that replays without a network: 1 after one error line when --topology or one
 * of its options was given (they would be ignored), else 0. */
int model_cli_no_network(const struct model_cli *m, const char *command);
/* A streamed trace read to its end: what the descriptions say of it (its CPU times) from its events. */
void model_cli_trace_read(const rt_trace *t);
/* The options that need the trace but no network (model_cli_network calls it): the measured
 * window, and the estimate of the work to do (--max-work, m->replays replays). 0, or 1 (printed). */
int model_cli_window(struct model_cli *m, struct rt_replay_options *o, const rt_trace *t);
#define CLI_MAX_WORK_DEFAULT 2e9 /* --max-work's default, events: some minutes of replay at a few million per second */
/* The links the trace's point-to-point messages cross on @p net, counted up to @p bound, in
 * *links; RT_ERANGE with the error line when a route is longer than a replay routes. */
int model_cli_routes(const rt_trace *t, const rt_network *net, double bound, double *links, rt_error *err);
/* The measured window's lines: "window ...", then measured and predicted in it (or the whole
 * run's without one), then the whole run's when there is a window. */
void cli_window_text(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res);
/* JSON object {spec, text, ranks, measured_ns, predicted_ns, begin_ns, end_ns}, or null. */
void cli_window_json(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res);
/* The network's line for the text output, its JSON object, from a replay's result. */
void model_cli_network_text(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res, uint64_t top);
void model_cli_network_json(FILE *f, const struct rt_replay_options *o, const struct rt_replay_result *res);
/* Usage lines for the model options. */
extern const char cli_model_usage[];
/* "hockney alpha=2.122us beta=0.7595ns/B" for the active model's parameters. */
void model_cli_describe(FILE *f, const struct rt_replay_options *o);
/* JSON object {"name": ..., "alpha_ns": ..., "eager_limit_bytes": ..., "compute_scale": ...}. */
void model_cli_json(FILE *f, const struct rt_replay_options *o);

/* The noise options as one line of text ("net exp:mean=1us (mean 1us per message); os
 * periodic:...; seed 7"), or nothing when there is no noise. */
void model_cli_noise_describe(FILE *f, const struct model_cli *m);
/* The fields "net_ns": ..., "os_ns": ..., "burst_ns": ... of the noise one replay injected. */
void cli_print_injected_fields(FILE *f, rt_time_ps net, rt_time_ps os, rt_time_ps burst);
/* JSON object {"seed": ..., "net": ..., "net_mean_ns": ..., "os": [...], "burst": ...} ("null" without noise). */
void model_cli_noise_json(FILE *f, const struct model_cli *m);

int cmd_replay(struct args *a);
int cmd_sweep(struct args *a);
int cmd_calibrate(struct args *a);
int cmd_validate(struct args *a);
int cmd_extrapolate(struct args *a);
int cmd_predict(struct args *a);
int cmd_analyze(struct args *a);
int cmd_check(struct args *a);
int cmd_plot(struct args *a);

/* Replays @p t under @p o into a new dependency graph *g (the caller destroys it), with a progress
 * line labelled @p what, and checks the graph against the replay's own timing. @p keep (optional)
 * receives the result's totals and its links and contention records (free() them; not its
 * per-rank arrays). RT_OK or the error, in @p err. */
int cli_replay_graph(const rt_trace *t, const struct rt_replay_options *o, rt_depgraph **g,
                     struct rt_replay_result *keep, const char *what, rt_error *err);
/* "function file:line (MPI_Xxx)" for call site @p cs of MPI function region @p mpi, as analyze
 * prints it; "(outside MPI calls)" for RT_NONE both. */
void cli_callsite_label(char *buf, size_t n, const rt_trace *t, uint32_t cs, uint32_t mpi);

#endif
