/* SPDX-License-Identifier: MIT */
/*
 * The sweep runner: a trace replayed once per combination of listed model parameters (and
 * compute scales), on threads. Shared by `retime sweep` (cmd_sweep.c, which prints the table)
 * and `retime plot sweep` (plot_sweep.c, which draws it as a heat map).
 *
 * Use: sweep_init; per argument sweep_option (before model_cli_option, which would take a
 * list as one value); sweep_finish_options; model_cli_finish(&s->model, &s->base); sweep_run;
 * read s->runs; sweep_free. Combination c varies the first axis slowest (mixed radix).
 *
 * --scale-bytes F1,F2,... is an axis of factors, each on every message and collective (per
 * call-site rules are replay's, analyze's and check's).
 *
 * --topology and --mapping are axes too, but of strings: a topology spec holds commas and
 * semicolons, so each is given once per value (`--topology torus:4x4x4 --topology fattree:64`);
 * --mapping takes a list too (`--mapping block,random:1`) unless a file: mapping, whose PATH may
 * hold commas, is in it. Each axis takes its place among the others where its first value is
 * given. sweep_run builds one network per topology and mapping pair once the trace (its ranks)
 * is known.
 */
#ifndef RETIME_SWEEP_H
#define RETIME_SWEEP_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

struct progress;

#define SWEEP_MAX_AXES 16
#define SWEEP_MAX_VALUES 4096
#define SWEEP_MAX_COMBOS 1000000

/* sweep_axis.param values of the --compute-scale axis and of the string axes. */
enum { SWEEP_AXIS_SCALE = -2, SWEEP_AXIS_TOPOLOGY = -3, SWEEP_AXIS_MAPPING = -4, SWEEP_AXIS_BYTES = -5 };

/* One varied option and its values. */
struct sweep_axis {
    char name[24]; /* option name without "--" ("alpha", "o", "compute-scale", "topology") */
    int param[2];  /* indices into rt_model_param_table; SWEEP_AXIS_SCALE, _TOPOLOGY, _MAPPING; -1 unused */
    double *vals;  /* [n] in ns or ns/B (or the factor); of a string axis the value's index; owned */
    const char **strs; /* [n] a string axis's values (pointing into argv), owned array; else NULL */
    size_t n;
};

/* The figures of one combination. */
struct sweep_run {
    rt_time_ps predicted_ps;
    double region_ns, region_measured_ns; /* mean over instances of the mean over ranks */
    rt_time_ps contention_ps;             /* with a network: time lost sharing links, summed over messages */
    uint64_t routed, local;               /* with a network: messages between nodes, within a node */
    int rc;
    rt_error err;
};

struct sweep {
    struct trace_cli tr;          /* TRACE, --region, --format (the latter unused by plots) */
    struct model_cli model;       /* the fixed model options */
    struct rt_replay_options base; /* filled by model_cli_finish */
    struct sweep_axis axes[SWEEP_MAX_AXES];
    int naxes;
    long jobs;                    /* --jobs; 0 = the online CPUs */
    size_t combos;                /* product of the axes' lengths */
    rt_trace *trace;              /* opened by sweep_run, closed by sweep_free */
    uint32_t region_id;
    rt_time_ns measured_ns;       /* the trace's measured run time */
    struct sweep_run *runs;       /* [combos], filled by sweep_run, owned */
    rt_network **nets;            /* with a --topology axis: [topologies x mappings], NULL for
                                     crossbar (the model alone); built by sweep_run, owned */
    rt_scale **scales;            /* with a --scale-bytes axis: one per value, opened by sweep_run */
    /* The runner's own state. */
    pthread_mutex_t lock;
    size_t next;
    struct progress *progress;
};

/* Zeroes @p s and initialises its model options and lock. */
void sweep_init(struct sweep *s);
/* Consumes the option at a->i if it is a varied parameter (--PARAM LIST, --o LIST,
 * --compute-scale LIST), one value of a string axis (--topology SPEC, --mapping SPEC) or --jobs:
 * 1 consumed, 0 not ours, -1 error (printed). */
int sweep_option(struct args *a, struct sweep *s);
/* After the options: puts every axis's first value into the model options (so that
 * model_cli_finish checks a complete model) and counts the combinations. 0, or 1 (printed). */
int sweep_finish_options(struct sweep *s);
/* Opens s->tr.path, looks up s->tr.region and replays every combination. Returns 0, or 1
 * after printing the error (the lowest failing combination and its values). */
int sweep_run(struct sweep *s);
/* Sets combination @p c's values (and network, once sweep_run built them) into @p o (from s->base)
 * and each axis's value index in @p pick. */
void sweep_combo(const struct sweep *s, size_t c, struct rt_replay_options *o, size_t *pick);
/* Prints an axis value: with units ("2.122us", "0.7595ns/B"), or @p plain as a bare number (CSV);
 * a string axis's value as it is, or with @p plain quoted as CSV needs ("fattree:16,radix=4"). */
void sweep_print_value(FILE *f, const struct sweep_axis *x, double v, int plain);
/* The JSON/CSV field name of an axis ("alpha_ns", "beta_ns_per_byte", "compute_scale", "topology"). */
const char *sweep_axis_field(const struct sweep_axis *x, char *buf, size_t n);
/* Whether @p x holds strings (--topology, --mapping) rather than numbers. */
int sweep_axis_is_string(const struct sweep_axis *x);
/* Frees what the sweep holds (the trace, the runs, the axes, the networks, the model options). */
/* The networks in s->nets: one per topology and mapping of the axes, 0 without a --topology axis. */
size_t sweep_nnets(const struct sweep *s);
void sweep_free(struct sweep *s);

#endif
