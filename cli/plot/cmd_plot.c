/* SPDX-License-Identifier: MIT */
/*
 * retime plot: pictures drawn by gnuplot (SVG and PNG) from a replay's figures: Shift traces'
 * measured vs predicted iteration times (plot_shift.c), a Gantt timeline with the critical path
 * (plot_timeline.c), the distribution of a noisy Monte Carlo (plot_montecarlo.c) and a sweep's
 * heat map (plot_sweep.c). Each writes PREFIX.dat and a gnuplot script PREFIX.gp beside the
 * pictures, so that a plot can be restyled and redrawn without replaying again.
 */
#include <string.h>

#include "cli.h"
#include "plot_common.h"

static const char plot_usage[] =
    "usage: retime plot shift TRACE... MODEL-OPTIONS [--region NAME] --output PREFIX [--size WxH]\n"
    "       retime plot timeline TRACE MODEL-OPTIONS [NOISE-OPTIONS] [--measured] [--ranks A-B]\n"
    "                            [--region NAME [--instances A-B] | --from TIME --to TIME]\n"
    "                            --output PREFIX [--size WxH]\n"
    "       retime plot montecarlo TRACE MODEL-OPTIONS NOISE-OPTIONS --runs N [--jobs J] [--bins B]\n"
    "                              [--region NAME] --output PREFIX [--size WxH]\n"
    "       retime plot sweep TRACE MODEL-OPTIONS --PARAM LIST --PARAM LIST [--value total|speedup]\n"
    "                         [--region NAME] [--jobs J] --output PREFIX [--size WxH]\n"
    "Each writes PREFIX.svg and PREFIX.png, drawn by gnuplot from PREFIX.dat with the script PREFIX.gp\n"
    "(edit it and run `gnuplot PREFIX.gp` in its directory to restyle). --size defaults to 800x500.\n";

int cmd_plot(struct args *a)
{
    const char *what = a->argc > 2 ? a->argv[2] : NULL;
    char sub[32];
    snprintf(sub, sizeof sub, "plot %s", what ? what : "");
    /* `retime plot SUB --help`: that plot's synopsis, the model options and the notes */
    if (what && cli_wants_help(a->argc, a->argv, 3) && cli_usage_of(stdout, plot_usage, sub)) {
        fputs("MODEL-OPTIONS:\n", stdout);
        fputs(cli_model_usage, stdout);
        fputs(strstr(plot_usage, "\nEach writes") + 1, stdout);
        return 0;
    }
    if (!what || !strcmp(what, "--help") || !strcmp(what, "-h")) {
        fputs(plot_usage, what ? stdout : stderr);
        fputs(cli_model_usage, what ? stdout : stderr);
        return what ? 0 : 2;
    }
    if (!strcmp(what, "shift"))
        return plot_shift(a);
    if (!strcmp(what, "timeline"))
        return plot_timeline(a);
    if (!strcmp(what, "montecarlo"))
        return plot_montecarlo(a);
    if (!strcmp(what, "sweep"))
        return plot_sweep(a);
    fprintf(stderr, "retime: error: unknown plot '%s' (shift, timeline, montecarlo or sweep)\n", what);
    fputs(plot_usage, stderr);
    return 2;
}
