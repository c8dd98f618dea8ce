/* SPDX-License-Identifier: MIT */
/* retime check: the baseline file (model settings, and per trace its identity, predicted times
 * and critical-path composition) and what a check of one trace measures. docs/check.md
 * describes the file; check_baseline.c reads it (with Jansson) and writes it. */
#ifndef RETIME_CHECK_H
#define RETIME_CHECK_H

#include <stdio.h>

#include "cli.h"
#include "retime/replay.h"

#define CHECK_FORMAT "retime-check-baseline"
#define CHECK_VERSION 1
#define CHECK_MAX_OS 8 /* --os-noise sources, as struct model_cli holds them */

/* Everything that decides a replay's timing, as a baseline records it. */
struct check_settings {
    char model[16];                       /* "hockney", "logp" */
    struct rt_model_params params;        /* that model's parameters; nbeta > 0: Hockney's β table */
    rt_bytes eager_limit;
    double compute_scale;
    uint8_t coll_algo[RT_COLL_OTHER + 1]; /* enum rt_coll_algo per operation */
    char coll_rules[256];                 /* --coll-algos, "" for retime's (the file omits it then) */
    char window[160];                     /* --window, "" for the whole run (the file omits it then) */
    char scale_bytes[512];                /* --scale-bytes, "" for the sizes as traced (omitted then) */
    char *net_noise, *net_burst;          /* specs as --net-noise/--net-burst take them, or NULL */
    char *os_noise[CHECK_MAX_OS];
    unsigned n_os;
    uint64_t seed;                        /* meaningful only with noise */
};

/* A row of the critical path's breakdown by call site. */
struct check_share {
    char *label; /* "hop_ssend shift.c:285 (MPI_Ssend)", as retime analyze prints it */
    double pct;  /* share of the critical path's length, in percent, rounded to 0.001 */
};

/* One recorded region: instances 0 means the trace has no such region (mean then unused). */
struct check_region {
    uint64_t instances;
    double mean_ns; /* mean over instances of the predicted mean over ranks */
};

enum { CHECK_NACT = 4 }; /* activities recorded: compute, cpu_overhead, transfer, collective */

/* The written form's prefix of a fingerprint of either kind (struct check_trace.untimed). */
static inline const char *check_fp_prefix(int untimed)
{
    return untimed ? "fnv1a64-untimed:" : "fnv1a64:";
}

/* One trace: as the baseline recorded it, or as measured now. */
struct check_trace {
    char *path;              /* relative to the baseline's directory, '/'-separated */
    uint32_t ranks;
    uint64_t events;
    uint64_t fingerprint;    /* FNV-1a 64 over the events and definitions the replay uses (call-site
                                files relative to their common directory), without the events' times
                                when untimed (what baselines record now: a re-trace of the same run
                                keeps it), else with them (older baselines) */
    int untimed;
    uint64_t fingerprint_timed; /* measured only: with the events' times, as older baselines hold it */
    uint64_t fingerprint_abs; /* measured only: that with absolute files, as still older ones hold it */
    rt_time_ns measured_ns;  /* the traced run's length */
    rt_time_ps predicted_ps;
    double act_pct[CHECK_NACT];       /* critical-path shares in percent, rounded to 0.001 */
    struct check_share *callsites;    /* largest share first */
    size_t ncallsites;
    struct check_region *regions;     /* one per region name of the baseline */
};

struct check_baseline {
    struct check_settings settings;
    char **regions;            /* user regions whose predicted mean is recorded */
    size_t nregions;
    struct check_trace *traces; /* sorted by path */
    size_t ntraces;
};

/* Reads @p file. Returns RT_OK; RT_ENOTFOUND when it does not exist; RT_EINVAL (or RT_EIO)
 * with one line in @p err naming the file and what is wrong (line and column of a JSON syntax
 * error, or the path of the bad field such as traces[2].predicted_ns). @p b is empty then. */
int check_baseline_load(const char *file, struct check_baseline *b, rt_error *err);
/* Writes @p b to @p file (through FILE.tmp.PID and a rename, so a failed write leaves the old
 * one and a reader never sees half a file). */
int check_baseline_write(const char *file, const struct check_baseline *b, rt_error *err);
/* Takes the exclusive lock on @p file's updates (an flock on FILE.lock, waiting for another
 * holder), to be held from reading the baseline to replacing it: concurrent `check --update`s
 * then take turns, and none writes over entries another recorded after it read. Returns the
 * lock's descriptor, or -1 with one line in @p err. */
int check_baseline_lock(const char *file, rt_error *err);
/* Removes FILE.lock and releases the lock @p fd (-1: none). */
void check_baseline_unlock(const char *file, int fd);
void check_baseline_free(struct check_baseline *b);
void check_trace_free(struct check_trace *t);
void check_settings_free(struct check_settings *s);

/* The settings a model_cli_finish()ed model_cli @p m and its options @p o stand for. */
int check_settings_from_cli(const struct model_cli *m, const struct rt_replay_options *o,
                            struct check_settings *s, rt_error *err);
/* Fills @p m (model_cli_init()ed) from @p s so that model_cli_finish gives the replay options; @p
 * coll_buf receives the --coll spec @p m points to. @p m's strings point into @p s. */
void check_settings_to_cli(const struct check_settings *s, struct model_cli *m, char *coll_buf, size_t n);
/* Prints the settings that differ, one "KEY  BASE -> NOW" line each (exact values, "(not used)"
 * for a setting the other model lacks) after @p indent; @p f may be NULL. Returns how many differ. */
int check_settings_diff(FILE *f, const char *indent, const struct check_settings *base,
                        const struct check_settings *now);

/* Opens the trace at @p open, fingerprints it and replays it under @p o, filling @p m (named
 * @p key, with one region per name in @p regions). Returns RT_OK or the error of reading or
 * replaying it; @p m is then partly filled (free it with check_trace_free either way). @p window and
 * @p scale (--scale-bytes, NULL: none) are opened on the trace. */
/* Call-site labels "FUNCTION PATH:LINE (MPI_X)" made relative: the absolute paths lose the
 * directory prefix they all share (or @p root, where they start with it), so that a program built
 * and traced in another directory checks the same. Idempotent: a baseline's labels, relative or
 * written absolute by an older release, are normalised the same way when read. */
void check_labels_relative(struct check_share *v, size_t n, const char *root);
int check_measure(const char *open, const char *key, const struct rt_replay_options *o, const char *window,
                  const char *scale, const char *source_root, const char *const *regions,
                  size_t nregions, struct check_trace *m, rt_error *err);
/* @p pct rounded to 0.001: shares are kept so in the file and compared so. */
double check_round3(double pct);
/* @p ns rounded to the ps (0.001 ns), the replay's resolution: a region's mean time is kept so
 * when measured and when read from a baseline, so that the file holds it short (7464.064, not
 * 7464.063750000001) and an older file that holds the long form compares the same. */
double check_round_ps(double ns);

#endif
