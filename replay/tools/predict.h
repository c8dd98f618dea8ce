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

/* retime predict team-shift: the Team Shift closed form per step and dimension, beside Shift's. */
int predict_team_shift(struct args *a);
/* retime predict tradeoff: the team sizes c and cut-offs k at which Team Shift is faster. */
int predict_tradeoff(struct args *a);

#endif
