/* SPDX-License-Identifier: MIT */
/* The `retime predict` programs besides shift (cmd_predict.c dispatches). */
#ifndef RETIME_PREDICT_H
#define RETIME_PREDICT_H

#include "cli.h"

/* The options every predict program shares: 1 consumed, 0 not ours, -1 error (printed). */
struct predict_common {
    int dims, k;
    uint64_t m1;
    double alpha, beta;
    int have_m1, have_alpha, have_beta;
    enum format fmt;
};
void predict_common_init(struct predict_common *p);
int predict_common_option(struct args *a, struct predict_common *p);
/* After the options: --m1, --alpha and --beta given. 0, or 1 after printing the error. */
int predict_common_finish(const struct predict_common *p, const char *cmd);

/* One replayed shift benchmark run (tradeoff_replay.c): c = 1 for the Shift. */
struct tradeoff_point {
    int c, k;
    long ranks;
    uint64_t iterations; /* shift_iteration instances */
    double ns;           /* replayed time per iteration: mean over instances of the slowest rank */
    double closed_ns;    /* the closed form's (filled by predict_team.c) */
    char *path;          /* owned */
};
struct tradeoff_replays {
    struct tradeoff_point *pt; /* [n], in the order given (a directory's runs by name) */
    size_t n, cap, skipped;    /* skipped: runs of other dims, m1 or mode */
    char first_skip[256];      /* the first skipped run and why */
};
/* Adds the benchmark run in @p dir (shift.txt and traces.otf2), or every run directly under it,
 * replayed under Hockney with p's α and β at compute scale 0; runs with other dims, m1 or an
 * isend mode are counted in r->skipped. RT_OK or an error naming the file. */
int tradeoff_replays_add(struct tradeoff_replays *r, const char *dir, const struct predict_common *p, rt_error *err);
/* The first replayed run with team size @p c (1: Shift) and cut-off @p k, or NULL. */
const struct tradeoff_point *tradeoff_replays_find(const struct tradeoff_replays *r, int c, int k);
void tradeoff_replays_free(struct tradeoff_replays *r);

/* retime predict team-shift: the Team Shift closed form per step and dimension, beside Shift's. */
int predict_team_shift(struct args *a);
/* retime predict tradeoff: the team sizes c and cut-offs k at which Team Shift is faster. */
int predict_tradeoff(struct args *a);

#endif
