/* SPDX-License-Identifier: MIT */
/*
 * What the `retime plot` commands share: the output options (--output PREFIX, --size WxH),
 * the files PREFIX.dat (data) and PREFIX.gp (a gnuplot script that draws PREFIX.svg and
 * PREFIX.png from it), finding gnuplot and running it. Tool code: errors are printed here
 * ("retime: error: ...") and the functions return 1.
 */
#ifndef RETIME_PLOT_COMMON_H
#define RETIME_PLOT_COMMON_H

#include <limits.h>
#include <stdio.h>

#include "cli.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct plot_out {
    const char *prefix;        /* --output PREFIX */
    int width, height;         /* --size WxH in pixels (default 800x500) */
    char dir[PATH_MAX];        /* PREFIX's directory ("." when it has none) */
    char name[256];            /* PREFIX's last component: the files are DIR/NAME.{dat,gp,svg,png} */
    char gnuplot[PATH_MAX];    /* the gnuplot executable found on PATH */
    FILE *dat, *gp;            /* open between plot_begin and plot_render */
    struct rt__outfile *dat_file; /* dat's file, renamed into place once whole (util/outfile.h) */
    char *script;              /* gp's text, in memory until plot_render writes it */
    size_t script_len;
    long svg_at[2], png_at[2]; /* where the script names the two pictures: [begin, end) */
};

/* Sets the defaults. */
void plot_out_init(struct plot_out *o);
/* Consumes --output PREFIX or --size WxH at a->i: 1 consumed, 0 not ours, -1 error (printed). */
int plot_out_option(struct args *a, struct plot_out *o);
/* After the options: checks that --output was given and names a usable prefix, and finds
 * gnuplot on PATH (before any long replay). 0, or 1 after printing the error. */
int plot_out_check(struct plot_out *o, const char *cmd);

/* Opens PREFIX.dat and PREFIX.gp (each written whole or not at all) and writes the script's head: a comment naming the command
 * (@p what, one line) and the loop that renders the body once per terminal (svg, pngcairo).
 * The body follows (write it to o->gp; it starts from `reset`), then plot_render. 0 or 1. */
int plot_begin(struct plot_out *o, const char *what);
/* Closes the script's loop and both files, runs gnuplot in PREFIX's directory with the pictures
 * sent to retime through pipes (so that a failed write, a full disk included, is seen and named)
 * and writes PREFIX.svg and PREFIX.png, each whole or not at all; prints "wrote PREFIX.svg
 * PREFIX.png (data ..., gnuplot script ...)" on stdout, and gnuplot's warnings on stderr. 0, or 1
 * after printing the error. */
int plot_render(struct plot_out *o);
/* Closes whatever plot_begin left open (after an error). */
void plot_out_close(struct plot_out *o);

/* Writes @p s as a gnuplot string expression: single-quoted (no escapes are interpreted in
 * those; a quote is doubled), a newline as '."\n".' (a line break in titles and labels). */
void plot_str(FILE *f, const char *s);
/* The same for a printf-formatted text. */
void plot_strf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes the data file's name as a gnuplot string ('NAME.dat'). */
void plot_datafile(const struct plot_out *o);

/* A time unit for an axis whose values span up to @p max_ns: its name ("ns", "µs", "ms", "s")
 * and how many ns one unit is. */
struct plot_unit {
    const char *name;
    double ns;
};
struct plot_unit plot_time_unit(double max_ns);

/* A short text of the model and noise options, for titles ("hockney α=2.122us β=0.7595ns/B,
 * compute-scale 1; net exp:mean=1us, seed 3"). Parameters whose bit (1u << index in
 * rt_model_param_table) is in @p varied, and the compute scale with PLOT_VARIED_SCALE, are left
 * out (a sweep varies them). */
#define PLOT_VARIED_SCALE (1u << 31)
void plot_model_text(char *buf, size_t n, const struct rt_replay_options *o, const struct model_cli *m,
                     unsigned varied);

/* @p path for a title: as it is, or its last @p max - 1 characters after "…" when longer. */
const char *plot_title_path(char *buf, size_t n, const char *path, size_t max);
/* @p text (lines separated by '\n') with every line longer than @p max characters (a UTF-8
 * sequence counts one) broken, at its last "; " past a third of the line, else its last ", "
 * there, else its last space, else at @p max: a title as wide as the picture instead of one cut
 * off at its edges. Written to @p buf (truncated to @p n); returns the number of lines. */
size_t plot_title_wrap(char *buf, size_t n, const char *text, size_t max);
/* The characters of a title line that fit across a picture @p width pixels wide (8 pixels a
 * character: the 10-point PNG and 11-point SVG fonts average 6.5-7.5 with the margins' slack). */
size_t plot_title_width(int width);

/* The colours the plots use for series, in order (8 of them, a colour-blind-safe set). */
extern const char *const plot_colors[8];

/* The plot subcommands (cmd_plot.c dispatches). */
int plot_shift(struct args *a);
int plot_timeline(struct args *a);
int plot_montecarlo(struct args *a);
int plot_sweep(struct args *a);

#endif
