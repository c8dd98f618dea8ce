/* SPDX-License-Identifier: MIT */
/* --output-trace and --perfetto (see outputs.h). */
#include "outputs.h"

#include "retime/otf2_writer.h"
#include "retime/perfetto.h"

const char outputs_usage[] = "OUTPUT-OPTIONS (replay without --runs, analyze):\n"
                             "  --output-trace DIR   the predicted run as an OTF2 archive, critical path marked\n"
                             "  --perfetto FILE      measured and predicted timeline as Chrome trace-event JSON\n";

int outputs_option(struct args *a, struct outputs *o)
{
    const char *v;
    if (cli_opt(a, "--output-trace", &v)) {
        if (!v || !*v)
            return cli_die("--output-trace needs a directory"), -1;
        o->trace_dir = v;
        return 1;
    }
    if (cli_opt(a, "--perfetto", &v)) {
        if (!v || !*v)
            return cli_die("--perfetto needs a file name"), -1;
        o->perfetto = v;
        return 1;
    }
    return 0;
}

int outputs_wanted(const struct outputs *o) { return o->trace_dir || o->perfetto; }

int outputs_write(const struct outputs *o, const rt_trace *t, rt_depgraph *timing, rt_error *err)
{
    const struct rt_critical_path *cp;
    int rc = rt_depgraph_critical_path(timing, &cp, err);
    if (rc == RT_OK && o->trace_dir)
        rc = rt_otf2_write(t, timing, o->trace_dir, err);
    if (rc == RT_OK && o->perfetto)
        rc = rt_perfetto_write(t, timing, o->perfetto, err);
    return rc;
}
