/* SPDX-License-Identifier: MIT */
/* Files a replay can write besides its report: the predicted run as an OTF2 archive
 * (--output-trace DIR) and as a Perfetto / Chrome timeline (--perfetto FILE.json). */
#ifndef RETIME_OUTPUTS_H
#define RETIME_OUTPUTS_H

#include "cli.h"
#include "retime/depgraph.h"

struct outputs {
    const char *trace_dir; /* --output-trace DIR */
    const char *perfetto;  /* --perfetto FILE.json */
};

/* Usage lines for the output options. */
extern const char outputs_usage[];
/* Consumes the option at a->i if it is an output option: 1 consumed, 0 not ours, -1 error (printed). */
int outputs_option(struct args *a, struct outputs *o);
/* Whether any output file was asked for (then the replay must collect a dependency graph). */
int outputs_wanted(const struct outputs *o);
/* Marks @p timing's critical path and writes the files asked for. RT_OK or the first error. */
int outputs_write(const struct outputs *o, const rt_trace *t, rt_depgraph *timing, rt_error *err);

#endif
