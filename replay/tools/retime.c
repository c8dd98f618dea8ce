/* SPDX-License-Identifier: MIT */
/* retime: the command-line tool. Thin: parses options, calls the libraries, prints. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/region_stats.h"
#include "retime/replay.h"
#include "retime/trace.h"
#include "retime/units.h"

#define RETIME_VERSION "0.1.0"

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

static void usage(FILE *f)
{
    fputs("usage: retime info TRACE [--format text|json]\n"
          "       retime replay TRACE --model hockney --alpha TIME --beta TIME/SIZE\n"
          "                    [--eager-limit SIZE] [--compute-scale X] [--region NAME]\n"
          "                    [--format text|json|csv]\n"
          "TRACE is an OTF2 anchor file (traces.otf2) or the directory holding it.\n"
          "Units: TIME ns|us|ms|s, SIZE B|KB|MB|GB|KiB|MiB|GiB, TIME/SIZE e.g. 0.7595ns/B, or SIZE/s.\n"
          "Defaults: --eager-limit 64KiB --compute-scale 1 --format text.\n",
          f);
}

static int die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "retime: error: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 1;
}

static int fail_err(const rt_error *err)
{
    fprintf(stderr, "retime: error: %s\n", err->msg[0] ? err->msg : rt_strerror(err->code));
    return 1;
}

/* Option scanner: accepts "--name value" and "--name=value". */
struct args {
    int argc, i;
    char **argv;
};

static int opt_value(struct args *a, const char *name, const char **val)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *val = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (a->i + 1 >= a->argc) {
        *val = NULL;
        return 1;
    }
    *val = a->argv[++a->i];
    return 1;
}

static int parse_format(const char *v, enum format *f, int allow_csv)
{
    if (!v)
        return -1;
    if (!strcmp(v, "text"))
        *f = FMT_TEXT;
    else if (!strcmp(v, "json"))
        *f = FMT_JSON;
    else if (allow_csv && !strcmp(v, "csv"))
        *f = FMT_CSV;
    else
        return -1;
    return 0;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Prints picoseconds as nanoseconds with exactly the precision they have. */
static void print_ps_as_ns(FILE *f, rt_time_ps ps)
{
    if (ps % 1000 == 0)
        fprintf(f, "%" PRId64, ps / 1000);
    else
        fprintf(f, "%s%" PRId64 ".%03" PRId64, ps < 0 ? "-" : "", (ps < 0 ? -ps : ps) / 1000,
                (ps < 0 ? -ps : ps) % 1000);
}

/* ------------------------------------------------------------------ info */

static int cmd_info(struct args *a)
{
    const char *path = NULL, *v;
    enum format fmt = FMT_TEXT;
    for (a->i = 2; a->i < a->argc; a->i++) {
        if (opt_value(a, "--format", &v)) {
            if (parse_format(v, &fmt, 0))
                return die("bad --format '%s' (text or json)%s", v ? v : "", "");
        } else if (a->argv[a->i][0] == '-' && a->argv[a->i][1]) {
            return die("unknown option '%s' for info%s", a->argv[a->i], "");
        } else if (!path) {
            path = a->argv[a->i];
        } else {
            return die("more than one trace given ('%s' and '%s')", path, a->argv[a->i]);
        }
    }
    if (!path)
        return die("info needs a TRACE%s%s", "", "");
    rt_error err = {0};
    rt_trace *t = NULL;
    if (rt_trace_open(path, &t, &err))
        return fail_err(&err);
    const struct rt_trace_stats *st = rt_trace_stats(t);
    uint64_t bytes_recv = 0;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        for (uint64_t i = 0; i < n; i++)
            if (ev[i].kind == RT_EV_RECV || ev[i].kind == RT_EV_IRECV_REQUEST)
                bytes_recv += ev[i].flags & RT_EVF_CANCELLED ? 0 : ev[i].bytes;
    }
    char span[32];
    rt_format_time(span, sizeof span, (double)st->span_ns);
    if (fmt == FMT_JSON) {
        printf("{\"trace\": ");
        json_string(stdout, rt_trace_path(t));
        printf(", \"ranks\": %u, \"events\": %" PRIu64 ", \"otf2_records\": %" PRIu64
               ", \"messages\": {\"send\": %" PRIu64 ", \"isend\": %" PRIu64 ", \"recv\": %" PRIu64
               ", \"irecv\": %" PRIu64 ", \"collectives\": %" PRIu64 "}, \"bytes_sent\": %" PRIu64
               ", \"bytes_received\": %" PRIu64 ", \"span_ns\": %" PRId64 ", \"regions\": %u, \"communicators\": %u"
               ", \"orphan_completions\": %" PRIu64 ", \"dropped_requests\": %" PRIu64 ", \"callsites\": [",
               rt_trace_ranks(t), st->events, st->otf2_events, st->sends, st->isends, st->recvs, st->irecvs,
               st->collectives, st->bytes_sent, bytes_recv, st->span_ns, rt_trace_regions(t), rt_trace_comms(t),
               st->orphan_completions, st->dropped_requests);
        for (uint32_t i = 0; i < rt_trace_callsites(t); i++) {
            const struct rt_callsite *cs = rt_trace_callsite(t, i);
            printf("%s{\"id\": %u, \"function\": ", i ? ", " : "", i);
            json_string(stdout, cs->function);
            printf(", \"file\": ");
            json_string(stdout, cs->file);
            printf(", \"line\": %u}", cs->line);
        }
        printf("]}\n");
    } else {
        printf("trace          %s\n", rt_trace_path(t));
        printf("ranks          %u\n", rt_trace_ranks(t));
        printf("events         %" PRIu64 " kept of %" PRIu64 " OTF2 records\n", st->events, st->otf2_events);
        printf("messages       %" PRIu64 " send, %" PRIu64 " isend, %" PRIu64 " recv, %" PRIu64 " irecv\n",
               st->sends, st->isends, st->recvs, st->irecvs);
        printf("collectives    %" PRIu64 " (calls, summed over ranks)\n", st->collectives);
        printf("bytes          %" PRIu64 " sent, %" PRIu64 " received\n", st->bytes_sent, bytes_recv);
        printf("time span      %s\n", span);
        printf("regions        %u\n", rt_trace_regions(t));
        printf("communicators  %u\n", rt_trace_comms(t));
        printf("call sites     %u\n", rt_trace_callsites(t));
        for (uint32_t i = 0; i < rt_trace_callsites(t); i++) {
            const struct rt_callsite *cs = rt_trace_callsite(t, i);
            printf("  [%u] %s %s:%u\n", i, cs->function, cs->file, cs->line);
        }
        if (st->orphan_completions || st->dropped_requests)
            printf("warning        %" PRIu64 " completions without recorded start, %" PRIu64
                   " requests never completed (recording was off?)\n",
                   st->orphan_completions, st->dropped_requests);
    }
    rt_trace_close(t);
    return 0;
}

/* ------------------------------------------------------------------ replay */

struct replay_cli {
    const char *path, *model, *region;
    struct rt_model_params params;
    int have_alpha, have_beta;
    double compute_scale;
    rt_bytes eager_limit;
    enum format fmt;
};

static int parse_replay(struct args *a, struct replay_cli *c)
{
    const char *v;
    rt_error err = {0};
    memset(c, 0, sizeof *c);
    c->model = "hockney";
    c->compute_scale = 1.0;
    c->eager_limit = 64 * 1024;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *arg = a->argv[a->i];
        if (opt_value(a, "--model", &v)) {
            if (!v)
                return die("--model needs a value%s%s", "", "");
            c->model = v;
        } else if (opt_value(a, "--alpha", &v)) {
            if (rt_parse_time_ns(v, &c->params.alpha_ns, &err))
                return die("--alpha: %s%s", err.msg, "");
            c->have_alpha = 1;
        } else if (opt_value(a, "--beta", &v)) {
            if (rt_parse_ns_per_byte(v, &c->params.beta_ns_per_byte, &err))
                return die("--beta: %s%s", err.msg, "");
            c->have_beta = 1;
        } else if (opt_value(a, "--eager-limit", &v)) {
            if (rt_parse_bytes(v, &c->eager_limit, &err))
                return die("--eager-limit: %s%s", err.msg, "");
        } else if (opt_value(a, "--compute-scale", &v)) {
            if (rt_parse_number(v, &c->compute_scale, &err))
                return die("--compute-scale: %s%s", err.msg, "");
            if (c->compute_scale < 0)
                return die("--compute-scale: must not be negative ('%s')%s", v, "");
        } else if (opt_value(a, "--region", &v)) {
            if (!v || !*v)
                return die("--region needs a region name%s%s", "", "");
            c->region = v;
        } else if (opt_value(a, "--format", &v)) {
            if (parse_format(v, &c->fmt, 1))
                return die("bad --format '%s' (text, json or csv)%s", v ? v : "", "");
        } else if (arg[0] == '-' && arg[1]) {
            return die("unknown option '%s' for replay%s", arg, "");
        } else if (!c->path) {
            c->path = arg;
        } else {
            return die("more than one trace given ('%s' and '%s')", c->path, arg);
        }
    }
    if (!c->path)
        return die("replay needs a TRACE%s%s", "", "");
    if (!strcmp(c->model, "hockney") && (!c->have_alpha || !c->have_beta))
        return die("the hockney model needs --alpha and --beta (e.g. --alpha 2.122us --beta 0.7595ns/B)%s%s", "",
                   "");
    return 0;
}

static void print_replay(const struct replay_cli *c, const rt_trace *t, const struct rt_replay_result *res,
                         const struct rt_region_instance *inst, uint64_t ninst)
{
    char a[32], b[32];
    if (c->fmt == FMT_JSON) {
        printf("{\"trace\": ");
        json_string(stdout, rt_trace_path(t));
        printf(", \"model\": {\"name\": ");
        json_string(stdout, c->model);
        printf(", \"alpha_ns\": %.17g, \"beta_ns_per_byte\": %.17g, \"eager_limit_bytes\": %" PRIu64
               ", \"compute_scale\": %.17g}",
               c->params.alpha_ns, c->params.beta_ns_per_byte, c->eager_limit, c->compute_scale);
        printf(", \"ranks\": %u, \"events\": %" PRIu64 ", \"messages\": %" PRIu64 ", \"rendezvous\": %" PRIu64
               ", \"collectives\": %" PRIu64 ", \"measured_ns\": %" PRId64 ", \"predicted_ns\": ",
               res->ranks, res->events, res->messages, res->rendezvous, res->collectives, res->measured_ns);
        print_ps_as_ns(stdout, res->predicted_ps);
        printf(", \"per_rank\": [");
        for (uint32_t r = 0; r < res->ranks; r++) {
            printf("%s{\"rank\": %u, \"measured_end_ns\": %" PRId64 ", \"predicted_end_ns\": ", r ? ", " : "", r,
                   res->measured_end_ns[r]);
            print_ps_as_ns(stdout, res->predicted_end_ps[r]);
            printf("}");
        }
        printf("]");
        if (c->region) {
            printf(", \"region\": {\"name\": ");
            json_string(stdout, c->region);
            printf(", \"instances\": [");
            for (uint64_t i = 0; i < ninst; i++)
                printf("%s{\"index\": %" PRIu64 ", \"ranks\": %u, \"measured_mean_ns\": %.3f, \"measured_max_ns\": %.3f"
                       ", \"predicted_mean_ns\": %.3f, \"predicted_max_ns\": %.3f}",
                       i ? ", " : "", inst[i].index, inst[i].ranks, inst[i].measured_mean_ns, inst[i].measured_max_ns,
                       inst[i].predicted_mean_ns, inst[i].predicted_max_ns);
            printf("]}");
        }
        printf("}\n");
        return;
    }
    if (c->fmt == FMT_CSV) {
        printf("record,rank,index,measured_ns,predicted_ns,measured_max_ns,predicted_max_ns\n");
        printf("total,,,%" PRId64 ",", res->measured_ns);
        print_ps_as_ns(stdout, res->predicted_ps);
        printf(",,\n");
        for (uint32_t r = 0; r < res->ranks; r++) {
            printf("rank,%u,,%" PRId64 ",", r, res->measured_end_ns[r]);
            print_ps_as_ns(stdout, res->predicted_end_ps[r]);
            printf(",,\n");
        }
        for (uint64_t i = 0; i < ninst; i++)
            printf("region,,%" PRIu64 ",%.3f,%.3f,%.3f,%.3f\n", inst[i].index, inst[i].measured_mean_ns,
                   inst[i].predicted_mean_ns, inst[i].measured_max_ns, inst[i].predicted_max_ns);
        return;
    }
    printf("trace       %s\n", rt_trace_path(t));
    printf("model       %s  alpha=%s  beta=%.6gns/B  eager-limit=%" PRIu64 "B  compute-scale=%g\n", c->model,
           rt_format_time(a, sizeof a, c->params.alpha_ns), c->params.beta_ns_per_byte, c->eager_limit,
           c->compute_scale);
    printf("ranks       %u\nevents      %" PRIu64 "\nmessages    %" PRIu64 " (%" PRIu64
           " rendezvous), collectives %" PRIu64 "\n",
           res->ranks, res->events, res->messages, res->rendezvous, res->collectives);
    printf("measured    %s\n", rt_format_time(a, sizeof a, (double)res->measured_ns));
    printf("predicted   %s\n\n", rt_format_time(b, sizeof b, (double)res->predicted_ps / 1e3));
    printf("%6s %16s %16s\n", "rank", "measured_end", "predicted_end");
    for (uint32_t r = 0; r < res->ranks; r++)
        printf("%6u %16s %16s\n", r, rt_format_time(a, sizeof a, (double)res->measured_end_ns[r]),
               rt_format_time(b, sizeof b, (double)res->predicted_end_ps[r] / 1e3));
    if (c->region) {
        printf("\nregion %s: %" PRIu64 " instances (mean and max over ranks, ns)\n", c->region, ninst);
        printf("%6s %6s %16s %16s %16s %16s\n", "index", "ranks", "measured_mean", "measured_max", "predicted_mean",
               "predicted_max");
        for (uint64_t i = 0; i < ninst; i++)
            printf("%6" PRIu64 " %6u %16.1f %16.1f %16.1f %16.1f\n", inst[i].index, inst[i].ranks,
                   inst[i].measured_mean_ns, inst[i].measured_max_ns, inst[i].predicted_mean_ns,
                   inst[i].predicted_max_ns);
    }
}

static int cmd_replay(struct args *a)
{
    struct replay_cli c;
    if (parse_replay(a, &c))
        return 1;
    rt_error err = {0};
    struct rt_replay_options opts;
    rt_replay_options_default(&opts);
    if (rt_model_init(&opts.model, c.model, &c.params, &err))
        return fail_err(&err);
    opts.compute_scale = c.compute_scale;
    opts.eager_limit = c.eager_limit;

    rt_trace *t = NULL;
    rt_region_stats *rs = NULL;
    struct rt_replay_result *res = NULL;
    const struct rt_region_instance *inst = NULL;
    uint64_t ninst = 0;
    int rc = 1;
    if (rt_trace_open(c.path, &t, &err))
        goto out;
    struct rt_replay_observer obs = {0};
    if (c.region) {
        uint32_t reg = rt_trace_find_region(t, c.region);
        if (reg == RT_NONE) {
            rt_error_set(&err, RT_EINVAL, "%s: no region named '%s' in this trace", rt_trace_path(t), c.region);
            goto out;
        }
        if (rt_region_stats_create(t, reg, &rs, &err))
            goto out;
        obs.ud = rs;
        obs.on_event = rt_region_stats_on_event;
    }
    if (rt_replay_run(t, &opts, c.region ? &obs : NULL, &res, &err))
        goto out;
    if (rs && rt_region_stats_instances(rs, &inst, &ninst, &err))
        goto out;
    print_replay(&c, t, res, inst, ninst);
    rc = 0;
out:
    if (rc)
        fail_err(&err);
    rt_replay_result_destroy(res);
    rt_region_stats_destroy(rs);
    rt_trace_close(t);
    return rc;
}

int main(int argc, char **argv)
{
    struct args a = {argc, 1, argv};
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("retime %s\n", RETIME_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "info"))
        return cmd_info(&a);
    if (!strcmp(argv[1], "replay"))
        return cmd_replay(&a);
    fprintf(stderr, "retime: error: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
