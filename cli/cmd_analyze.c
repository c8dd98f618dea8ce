/* SPDX-License-Identifier: MIT */
/* retime analyze: the critical path, wait states, and the absorbed/accumulated split of the
 * deviations between two timings of a trace (model vs model with noise, or model vs measured). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "distributed.h"
#include "outputs.h"
#include "retime/congestion.h"
#include "retime/depgraph.h"
#include "retime/units.h"

/* A: the noise-free model (on the same network, without its background traffic), the model alone
 * (crossbar: no network, no noise) or the model itself (measured); B: the model with everything,
 * or the measured run. */
enum against { AGAINST_NONE, AGAINST_MODEL, AGAINST_MEASURED, AGAINST_CROSSBAR };

struct analyze_cli {
    struct trace_cli tr;
    struct model_cli model;
    struct outputs out; /* --output-trace, --perfetto: the replay (A with --against measured, else B) */
    enum against against;
    uint64_t top;
    struct clock_fix_cli fix; /* --fix-clocks */
};

static int parse_analyze(struct args *a, struct analyze_cli *c)
{
    memset(c, 0, sizeof *c);
    model_cli_init(&c->model);
    c->top = 5;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *v;
        int m = model_cli_option(a, &c->model);
        if (m == 0)
            m = outputs_option(a, &c->out);
        if (m == 0)
            m = clock_fix_cli_option(a, &c->fix);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        if (cli_opt(a, "--against", &v)) {
            if (v && !strcmp(v, "model"))
                c->against = AGAINST_MODEL;
            else if (v && !strcmp(v, "measured"))
                c->against = AGAINST_MEASURED;
            else if (v && !strcmp(v, "crossbar"))
                c->against = AGAINST_CROSSBAR;
            else
                return cli_die("bad --against '%s' (model, measured or crossbar)", v ? v : "");
        } else if (cli_opt(a, "--top", &v)) {
            if (cli_count(v, 1, 1000000, &c->top))
                return cli_die("bad --top '%s' (a whole number from 1 to 1000000)", v ? v : "");
        } else if (trace_cli_option(a, &c->tr, "analyze")) {
            return 1;
        }
    }
    if (c->tr.region)
        return cli_die("--region is not an option of analyze (regions are reported by themselves)");
    if (c->tr.fmt == FMT_CSV)
        return cli_die("bad --format 'csv' for analyze (text or json)");
    if (trace_cli_finish(&c->tr, "analyze"))
        return 1;
    if (c->against == AGAINST_NONE)
        return cli_die("analyze needs --against model|measured|crossbar");
    if (c->against == AGAINST_CROSSBAR && !c->model.net.topology)
        return cli_die("--against crossbar compares a network with the model alone: give --topology");
    return 0;
}

/* ------------------------------------------------------------------ labels */

static void region_label(char *buf, size_t n, const rt_trace *t, uint32_t region, uint64_t inst)
{
    if (region != RT_NONE && region < rt_trace_regions(t))
        snprintf(buf, n, "%s#%" PRIu64, rt_trace_region(t, region)->name, inst);
    else
        snprintf(buf, n, "(no region)");
}

static void size_label(char *buf, size_t n, uint32_t b)
{
    if (b == RT_NONE)
        snprintf(buf, n, "no message");
    else if (b == 0)
        snprintf(buf, n, "0 B");
    else if (b >= 64)
        snprintf(buf, n, ">= 2^63 B");
    else
        snprintf(buf, n, "%" PRIu64 "-%" PRIu64 " B", (uint64_t)1 << (b - 1), ((uint64_t)1 << (b - 1)) * 2 - 1);
}

static void share_label(char *buf, size_t n, const rt_trace *t, const struct rt_dep_share *s)
{
    switch (s->group) {
    case RT_GROUP_CALLSITE:
        cli_callsite_label(buf, n, t, s->id, s->region);
        break;
    case RT_GROUP_REGION:
        region_label(buf, n, t, s->region, s->instance);
        break;
    case RT_GROUP_SIZE:
        size_label(buf, n, s->id);
        break;
    default:
        snprintf(buf, n, "rank %u", rt_trace_rank_label(t, s->id));
        break;
    }
}

static char *fmt_ps(char *buf, size_t n, rt_time_ps ps)
{
    if (ps < 0) {
        buf[0] = '-';
        rt_format_time(buf + 1, n - 1, (double)-ps / 1e3);
        return buf;
    }
    return rt_format_time(buf, n, (double)ps / 1e3);
}

/* The first @p top rows of group @p g (and wait kind @p w) in a sorted share array. */
#define FOR_GROUP(s, ns, w_, g_, top, it)                                                                  \
    for (uint64_t it##_i = 0, it##_k = 0; it##_i < (ns); it##_i++)                                       \
        for (const struct rt_dep_share *it = &(s)[it##_i]; it && it->wait == (w_) && it->group == (g_) && \
                                                           it##_k < (top);                                 \
             it = NULL, it##_k++)

/* ------------------------------------------------------------------ regions over their instances */

/* The path's time per region summed over the region's instances (the rows of RT_GROUP_REGION
 * are per instance), largest first: a profile of the phases. */
struct region_total {
    uint32_t region;
    uint64_t instances;
    rt_time_ps ps;
};

static int cmp_region_total(const void *a, const void *b)
{
    const struct region_total *x = a, *y = b;
    if (x->ps != y->ps)
        return x->ps > y->ps ? -1 : 1;
    return x->region < y->region ? -1 : x->region > y->region;
}

/* The totals of @p cp's region rows in a new array (*@p n rows; NULL when there are none). */
static struct region_total *region_totals(const struct rt_critical_path *cp, size_t *n)
{
    struct region_total *v = NULL;
    *n = 0;
    for (uint64_t i = 0; i < cp->nshare; i++) {
        const struct rt_dep_share *e = &cp->share[i];
        if (e->group != RT_GROUP_REGION)
            continue;
        size_t k = 0;
        while (k < *n && v[k].region != e->region)
            k++;
        if (k == *n) {
            struct region_total *w = realloc(v, (*n + 1) * sizeof *w);
            if (!w)
                break; /* a shorter profile rather than none */
            v = w;
            v[(*n)++] = (struct region_total){e->region, 0, 0};
        }
        v[k].instances++;
        v[k].ps += e->value;
    }
    if (*n)
        qsort(v, *n, sizeof *v, cmp_region_total);
    return v;
}

static const char *region_name(const rt_trace *t, uint32_t r)
{
    return r != RT_NONE && r < rt_trace_regions(t) ? rt_trace_region(t, r)->name : "(no region)";
}

/* ------------------------------------------------------------------ congestion */

/* A time of @p v ps (a sum of fractional delays) as rt_format_time writes it. */
static const char *fmt_ps_f(char *buf, size_t n, double v)
{
    return rt_format_time(buf, n, v / 1e3);
}

/* The width of the names of rows @p r (the first @p top of @p n): 40, or the longest. */
static int congestion_name_width(const struct rt_congestion_row *r, uint32_t n, uint64_t top, int w)
{
    for (uint32_t i = 0; i < n && i < top; i++)
        w = (int)strlen(r[i].name) > w ? (int)strlen(r[i].name) : w;
    return w;
}

/* Rows @p r (the first @p top of @p n) as lines of text under the header @p title, the names in a
 * column @p w wide, so that the header's words end where their columns do. */
static void congestion_rows_text(FILE *f, const char *title, const struct rt_congestion_row *r, uint32_t n,
                                 uint64_t top, int w)
{
    char a[32], b[32];
    fprintf(f, "  %-*s %12s %12s %9s\n", w + 2, title, "accumulated", "absorbed", "messages");
    for (uint32_t i = 0; i < n && i < top; i++)
        fprintf(f, "    %-*s %12s %12s %9" PRIu64 "\n", w, r[i].name, fmt_ps_f(a, sizeof a, r[i].accumulated_ps),
                fmt_ps_f(b, sizeof b, r[i].absorbed_ps), r[i].messages);
}

/* The congestion of B along its critical path (retime/congestion.h), the first @p top links. */
static void congestion_text(FILE *f, const struct rt_congestion *c, uint64_t top)
{
    char a[32], title[64];
    fprintf(f, "\ncongestion of B: time its messages lost sharing links (%" PRIu64 " messages)\n", c->messages);
    fprintf(f, "  total        %14s\n", fmt_ps_f(a, sizeof a, c->total_ps));
    fprintf(f, "  accumulated  %14s  (on B's critical path)\n", fmt_ps_f(a, sizeof a, c->accumulated_ps));
    fprintf(f, "  absorbed     %14s  (off it: slack)\n", fmt_ps_f(a, sizeof a, c->absorbed_ps));
    /* one width for both tables, so that their columns line up with each other too */
    int w = congestion_name_width(c->links, c->nlinks, top, congestion_name_width(c->kinds, c->nkinds, UINT64_MAX, 40));
    congestion_rows_text(f, "by kind of link", c->kinds, c->nkinds, UINT64_MAX, w);
    snprintf(title, sizeof title, "top %" PRIu64 " links", top < c->nlinks ? top : c->nlinks);
    congestion_rows_text(f, title, c->links, c->nlinks, top, w);
    fprintf(f, "  (messages: those that lost time sharing the link; accumulated: that time on B's critical path, "
               "absorbed: off it)\n");
}

/* Rows @p r (the first @p top of @p n) as JSON objects. */
static void congestion_rows_json(FILE *f, const struct rt_congestion_row *r, uint32_t n, uint64_t top)
{
    for (uint32_t i = 0; i < n && i < top; i++) {
        fprintf(f, "%s{", i ? ", " : "");
        if (r[i].link != UINT32_MAX)
            fprintf(f, "\"link\": %u, ", r[i].link);
        fprintf(f, "\"name\": ");
        cli_json_string(f, r[i].name);
        fprintf(f, ", \"accumulated_ns\": %.3f, \"absorbed_ns\": %.3f, \"messages\": %" PRIu64 "}",
                r[i].accumulated_ps / 1e3, r[i].absorbed_ps / 1e3, r[i].messages);
    }
}

/* The congestion as a JSON object, the first @p top links. */
static void congestion_json(FILE *f, const struct rt_congestion *c, uint64_t top)
{
    fprintf(f, "{\"total_ns\": %.3f, \"accumulated_ns\": %.3f, \"absorbed_ns\": %.3f, \"messages\": %" PRIu64
            ", \"by_kind\": [", c->total_ps / 1e3, c->accumulated_ps / 1e3, c->absorbed_ps / 1e3, c->messages);
    congestion_rows_json(f, c->kinds, c->nkinds, UINT64_MAX);
    fprintf(f, "], \"links\": [");
    congestion_rows_json(f, c->links, c->nlinks, top);
    fprintf(f, "]}");
}

/* ------------------------------------------------------------------ JSON */

static void json_key_fields(const rt_trace *t, const struct rt_dep_share *s)
{
    char b[512];
    switch (s->group) {
    case RT_GROUP_CALLSITE: {
        printf("\"callsite\": ");
        if (s->id != RT_NONE && s->id < rt_trace_callsites(t)) {
            const struct rt_callsite *c = rt_trace_callsite(t, s->id);
            printf("%u, \"function\": ", s->id);
            cli_json_string(stdout, c->function);
            printf(", \"file\": ");
            cli_json_string(stdout, c->file);
            printf(", \"line\": %u", c->line);
        } else {
            printf("null, \"function\": null, \"file\": null, \"line\": null");
        }
        printf(", \"mpi\": ");
        if (s->region != RT_NONE && s->region < rt_trace_regions(t))
            cli_json_string(stdout, rt_trace_region(t, s->region)->name);
        else
            printf("null");
        cli_callsite_label(b, sizeof b, t, s->id, s->region);
        printf(", \"label\": ");
        cli_json_string(stdout, b);
        break;
    }
    case RT_GROUP_REGION:
        printf("\"region\": ");
        if (s->region != RT_NONE && s->region < rt_trace_regions(t)) {
            cli_json_string(stdout, rt_trace_region(t, s->region)->name);
            printf(", \"instance\": %" PRIu64, s->instance);
        } else {
            printf("null, \"instance\": null");
        }
        break;
    case RT_GROUP_SIZE:
        if (s->id == RT_NONE)
            printf("\"bucket\": null, \"min_bytes\": null, \"max_bytes\": null");
        else if (s->id == 0)
            printf("\"bucket\": 0, \"min_bytes\": 0, \"max_bytes\": 0");
        else
            printf("\"bucket\": %u, \"min_bytes\": %" PRIu64 ", \"max_bytes\": %" PRIu64, s->id,
                   (uint64_t)1 << (s->id - 1), s->id >= 64 ? UINT64_MAX : ((uint64_t)1 << (s->id - 1)) * 2 - 1);
        break;
    default:
        printf("\"rank\": %u", rt_trace_rank_label(t, s->id));
        break;
    }
}

static void json_rows(const rt_trace *t, const struct rt_dep_share *s, uint64_t ns, uint8_t w, uint8_t g, uint64_t top,
                      int mode)
{
    int first = 1;
    printf("[");
    FOR_GROUP(s, ns, w, g, top, e)
    {
        printf("%s{", first ? "" : ", ");
        first = 0;
        json_key_fields(t, e);
        if (mode == 0) { /* critical path */
            printf(", \"ns\": ");
            cli_print_ps_as_ns(stdout, e->value);
        } else if (mode == 1) { /* wait states */
            printf(", \"ns\": ");
            cli_print_ps_as_ns(stdout, e->value);
            if (g != RT_GROUP_BLAME)
                printf(", \"count\": %" PRId64, e->value2);
        } else { /* deviations */
            printf(", \"accumulated_ns\": ");
            cli_print_ps_as_ns(stdout, e->value);
            printf(", \"absorbed_ns\": ");
            cli_print_ps_as_ns(stdout, e->value2);
        }
        printf("}");
    }
    printf("]");
}

static void run_end(const rt_trace *t, const struct rt_replay_result *res, int json);

static void print_json(const struct analyze_cli *c, const struct rt_replay_options *o, const rt_trace *t,
                       rt_time_ps end_a, const struct rt_critical_path *cp, const struct rt_wait_states *ws,
                       const struct rt_depgraph_diff *d, const struct rt_measured_info *mi,
                       const struct rt_replay_result *noisy, const struct rt_congestion *cg,
                       const struct rt_replay_result *run)
{
    printf("{\"trace\": ");
    cli_json_string(stdout, rt_trace_path(t));
    cli_coverage_json(stdout, t);
    printf(", \"model\": ");
    model_cli_json(stdout, o);
    printf(", \"noise\": ");
    model_cli_noise_json(stdout, &c->model);
    printf(", \"clock_fix\": ");
    clock_fix_cli_json(stdout, c->tr.fix);
    printf(", \"network\": ");
    if (o->network)
        cli_json_string(stdout, rt_network_describe(o->network));
    else
        printf("null");
    int noisy_b = rt_replay_options_noisy(o) || c->model.calm;
    printf(", \"against\": \"%s\"", c->against == AGAINST_MODEL      ? "model"
                                     : c->against == AGAINST_CROSSBAR ? "crossbar"
                                                                      : "measured");
    printf(", \"a\": {\"timing\": \"%s\", \"end_ns\": ", c->against == AGAINST_MODEL      ? "model without noise"
                                                    : c->against == AGAINST_CROSSBAR ? "model alone, no network"
                                                                                     : "model");
    cli_print_ps_as_ns(stdout, end_a);
    printf("}, \"b\": {\"timing\": \"%s\", \"end_ns\": ",
           c->against == AGAINST_MEASURED ? "measured" : noisy_b ? "model with noise" : "model without noise");
    cli_print_ps_as_ns(stdout, cp->length_ps); /* the window's span (the whole run: its end) */
    printf("}, \"window\": {\"spec\": ");
    cli_json_string(stdout, rt_window_spec(o->window));
    printf(", \"text\": ");
    cli_json_string(stdout, rt_window_text(o->window));
    printf("}, \"critical_path\": {\"end_ns\": ");
    cli_print_ps_as_ns(stdout, cp->end_ps);
    printf(", \"length_ns\": ");
    cli_print_ps_as_ns(stdout, cp->length_ps);
    printf(", \"end_rank\": %u, \"end_index\": %" PRIu64 ", \"events\": %" PRIu64 ", \"activity\": {",
           rt_trace_rank_label(t, cp->end_rank),
           cp->end_index, cp->events);
    for (int k = 0; k < RT_ACT_COUNT; k++) {
        printf("%s\"%s_ns\": ", k ? ", " : "", rt_activity_name(k));
        cli_print_ps_as_ns(stdout, cp->activity_ps[k]);
    }
    printf("}, \"segments\": [");
    for (uint64_t i = 0; i < cp->nseg; i++) {
        printf("%s{\"rank\": %u, \"first\": %" PRIu64 ", \"last\": %" PRIu64 ", \"begin_ns\": ", i ? ", " : "",
               rt_trace_rank_label(t, cp->seg[i].rank), cp->seg[i].first, cp->seg[i].last);
        cli_print_ps_as_ns(stdout, cp->seg[i].begin_ps);
        printf(", \"end_ns\": ");
        cli_print_ps_as_ns(stdout, cp->seg[i].end_ps);
        printf("}");
    }
    static const struct {
        const char *name;
        uint8_t group;
    } cpg[] = {{"by_rank", RT_GROUP_RANK}, {"by_callsite", RT_GROUP_CALLSITE}, {"by_region", RT_GROUP_REGION},
               {"by_size", RT_GROUP_SIZE}};
    printf("]");
    for (size_t k = 0; k < sizeof cpg / sizeof *cpg; k++) {
        printf(", \"%s\": ", cpg[k].name);
        json_rows(t, cp->share, cp->nshare, 0, cpg[k].group, c->top, 0);
    }
    size_t nrt;
    struct region_total *rt = region_totals(cp, &nrt);
    printf(", \"by_region_total\": [");
    for (size_t k = 0; k < nrt && k < c->top; k++) {
        printf("%s{\"region\": ", k ? ", " : "");
        cli_json_string(stdout, region_name(t, rt[k].region));
        printf(", \"instances\": %" PRIu64 ", \"ns\": ", rt[k].instances);
        cli_print_ps_as_ns(stdout, rt[k].ps);
        printf("}");
    }
    printf("]");
    free(rt);
    printf("}, \"wait_states\": [");
    for (int k = 0; k < RT_WAIT_COUNT; k++) {
        printf("%s{\"kind\": \"%s\", \"ns\": ", k ? ", " : "", rt_wait_kind_name(k));
        cli_print_ps_as_ns(stdout, ws->total_ps[k]);
        printf(", \"count\": %" PRIu64 ", \"by_rank\": ", ws->count[k]);
        json_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_RANK, c->top, 1);
        printf(", \"by_callsite\": ");
        json_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_CALLSITE, c->top, 1);
        printf(", \"by_cause\": ");
        json_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_CAUSE, c->top, 1);
        printf(", \"by_blame\": ");
        json_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_BLAME, c->top, 1);
        printf("}");
    }
    printf("], \"deviation\": ");
    if (!d) {
        printf("null");
    } else {
        printf("{\"delta_end_ns\": ");
        cli_print_ps_as_ns(stdout, d->end_b - d->end_a);
        printf(", \"injected_ns\": ");
        cli_print_ps_as_ns(stdout, d->injected);
        printf(", \"accumulated_ns\": ");
        cli_print_ps_as_ns(stdout, d->accumulated);
        printf(", \"absorbed_ns\": ");
        cli_print_ps_as_ns(stdout, d->absorbed);
        printf(", \"injected_negative_ns\": ");
        cli_print_ps_as_ns(stdout, d->injected_negative);
        printf(", \"slack_ns\": ");
        cli_print_ps_as_ns(stdout, d->slack);
        printf(", \"residual_ns\": ");
        cli_print_ps_as_ns(stdout, d->residual);
        printf(", \"edges\": %" PRIu64 ", \"source_changed\": %" PRIu64, d->edges, d->source_changed);
        if (c->against == AGAINST_MODEL) {
            printf(", \"noise_injected\": {");
            cli_print_injected_fields(stdout, noisy->net_noise_ps, noisy->os_noise_ps, noisy->burst_ps);
            printf("}");
        } else {
            printf(", \"noise_injected\": null");
        }
        for (size_t k = 0; k < sizeof cpg / sizeof *cpg; k++) {
            printf(", \"%s\": ", cpg[k].name);
            json_rows(t, d->share, d->nshare, 0, cpg[k].group, c->top, 2);
        }
        printf("}");
    }
    printf(", \"congestion\": ");
    if (cg)
        congestion_json(stdout, cg, c->top);
    else
        printf("null");
    printf(", \"measured\": ");
    if (!mi) {
        printf("null");
    } else {
        printf("{\"violations\": %" PRIu64 ", \"worst_ns\": ", mi->violations);
        cli_print_ps_as_ns(stdout, mi->worst_ps);
        if (mi->violations)
            printf(", \"worst_rank\": %u, \"worst_index\": %" PRIu64 "}", rt_trace_rank_label(t, mi->worst_rank),
                   mi->worst_index);
        else
            printf(", \"worst_rank\": null, \"worst_index\": null}");
    }
    if (o->cut)
        run_end(t, run, 1);
    printf("}\n");
}

/* ------------------------------------------------------------------ where a stopped run was */

/* With options.cut (a killed or hung run): where each rank was when the run stopped, as measured
 * (its last MPI call and since when, or outside MPI calls since its last one), and whom the replay
 * has it wait for at its end. */
static void run_end(const rt_trace *t, const struct rt_replay_result *res, int json)
{
    rt_time_ns end = INT64_MIN;
    uint64_t n;
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        if (n && ev[n - 1].time > end)
            end = ev[n - 1].time;
    }
    if (json)
        printf(", \"run_end\": [");
    else
        printf("\nwhere the ranks were when the run stopped (as measured; the replay's wait at its end)\n"
               "  %6s  %-28s %12s  %s\n", "rank", "in", "since", "waits for");
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        uint64_t enter = UINT64_MAX, k = n;
        while (k-- > 0) /* the last MPI event: its call, or the end of it */
            if ((ev[k].flags & RT_EVF_MPI) && (ev[k].kind == RT_EV_ENTER || ev[k].kind == RT_EV_LEAVE))
                break;
        uint32_t reg = k < n ? cli_call_at(t, r, k, &enter) : RT_NONE;
        /* inside it at the end: its Leave (if any) is the rank's last event, written when it stopped */
        int inside = reg != RT_NONE && (ev[k].kind == RT_EV_ENTER || ev[k].time == ev[n - 1].time);
        rt_time_ns since = inside ? ev[enter].time : k < n ? ev[k].time : n ? ev[0].time : end;
        uint32_t w = res->cut_waits_for && res->cut_event[r] != UINT64_MAX ? res->cut_waits_for[r] : RT_NONE;
        const char *in = inside ? rt_trace_region(t, reg)->name : "(outside MPI calls)";
        char a[32], who[32] = "-";
        if (w != RT_NONE)
            snprintf(who, sizeof who, "rank %u", rt_trace_rank_label(t, w));
        else if (res->cut_event && res->cut_event[r] != UINT64_MAX)
            snprintf(who, sizeof who, "a collective");
        if (json) {
            printf("%s{\"rank\": %u, \"in\": ", r ? ", " : "", rt_trace_rank_label(t, r));
            cli_json_string(stdout, in);
            printf(", \"since_ns\": %" PRId64 ", \"cut_event\": ", end - since);
            if (res->cut_event && res->cut_event[r] != UINT64_MAX)
                printf("%" PRIu64, res->cut_event[r]);
            else
                printf("null");
            printf(", \"waits_for\": ");
            if (w != RT_NONE)
                printf("%u}", rt_trace_rank_label(t, w));
            else
                printf("null}");
        } else {
            rt_format_time(a, sizeof a, (double)(end - since));
            printf("  %6u  %-28s %12s  %s\n", rt_trace_rank_label(t, r), in, a, who);
        }
    }
    if (json)
        printf("]");
}

/* ------------------------------------------------------------------ text */

static void text_rows(const rt_trace *t, const struct rt_dep_share *s, uint64_t ns, uint8_t w, uint8_t g, uint64_t top,
                      rt_time_ps total, int mode, const char *indent)
{
    char raw[512], lab[512], a[32], b[32];
    FOR_GROUP(s, ns, w, g, top, e)
    {
        share_label(raw, sizeof raw, t, e);
        cli_text_buf(lab, sizeof lab, raw);
        if (mode == 0)
            printf("%s%-48s %12s %6.1f%%\n", indent, lab, fmt_ps(a, sizeof a, e->value),
                   total ? 100.0 * (double)e->value / (double)total : 0.0);
        else if (mode == 1)
            printf("%s%-48s %12s  (%" PRId64 ")\n", indent, lab, fmt_ps(a, sizeof a, e->value), e->value2);
        else if (mode == 3)
            printf("%s%-48s %12s\n", indent, lab, fmt_ps(a, sizeof a, e->value));
        else
            printf("%s%-48s %12s %12s\n", indent, lab, fmt_ps(a, sizeof a, e->value), fmt_ps(b, sizeof b, e->value2));
    }
}

static void print_text(const struct analyze_cli *c, const struct rt_replay_options *o, const rt_trace *t,
                       rt_time_ps end_a, const struct rt_critical_path *cp, const struct rt_wait_states *ws,
                       const struct rt_depgraph_diff *d, const struct rt_measured_info *mi,
                       const struct rt_replay_result *noisy, const struct rt_congestion *cg)
{
    char a[32], b[32], x[32];
    static const char *gname[] = {"rank", "call site", "region", "activity", "message size"};
    printf("trace       %s\n", rt_trace_path(t));
    cli_coverage_text(stdout, t, 12);
    printf("model       ");
    model_cli_describe(stdout, o);
    if (rt_replay_options_noisy(o)) {
        printf("\nnoise       ");
        model_cli_noise_describe(stdout, &c->model);
    }
    if (o->network)
        printf("\nnetwork     %s", rt_network_describe(o->network));
    if (c->tr.fix) {
        printf("\nclock fix   ");
        clock_fix_cli_text(stdout, c->tr.fix);
    }
    int noisy_b = rt_replay_options_noisy(o) || c->model.calm;
    if (c->against == AGAINST_MODEL)
        printf("\nagainst     model: A = the model without noise%s, B = %s\n", c->model.calm ? " or background traffic" : "",
               noisy_b ? "with the noise above" : "the same (no noise options: nothing to compare)");
    else if (c->against == AGAINST_CROSSBAR)
        printf("\nagainst     crossbar: A = the model alone (each rank's single port, no network, no noise), B = the "
               "network%s\n", noisy_b ? " with the noise above" : "");
    else
        printf("\nagainst     measured: A = the model%s, B = the measured run\n",
               rt_replay_options_noisy(o) ? " with the noise above" : "");
    if (o->window && rt_window_kind(o->window) != RT_WINDOW_ALL)
        printf("window      %s (--window %s; --window all for the whole run)\n", rt_window_text(o->window),
               rt_window_spec(o->window));
    else if (o->window && strcmp(rt_window_spec(o->window), "all"))
        printf("window      %s\n", rt_window_text(o->window));
    printf("run time    A %s, B %s (B - A = %s)%s\n\n", fmt_ps(a, sizeof a, end_a), fmt_ps(b, sizeof b, cp->length_ps),
           fmt_ps(x, sizeof x, cp->length_ps - end_a),
           o->window && rt_window_kind(o->window) != RT_WINDOW_ALL ? " in the window" : "");
    printf("critical path of B: %s over %" PRIu64 " events in %" PRIu64 " segments, ends on rank %u event %" PRIu64
           "\n",
           fmt_ps(a, sizeof a, cp->length_ps), cp->events, cp->nseg, rt_trace_rank_label(t, cp->end_rank), cp->end_index);
    /* What each activity holds, beside its name (the JSON's keys); waiting is never on the path
     * (a wait is the slack the path does not take), so the text leaves it out. */
    static const char *const holds[RT_ACT_COUNT] = {
        [RT_ACT_COMPUTE] = "outside MPI calls", [RT_ACT_OVERHEAD] = "CPU in MPI calls: o_s, o_r",
        [RT_ACT_TRANSFER] = "point-to-point messages", [RT_ACT_COLLECTIVE] = "collective operations"};
    printf("  activity\n");
    for (int k = 0; k < RT_ACT_COUNT; k++) {
        if (k == RT_ACT_WAITING)
            continue;
        char label[64];
        snprintf(label, sizeof label, "%s (%s)", rt_activity_name(k), holds[k]);
        printf("    %-46s %12s %6.1f%%\n", label, fmt_ps(a, sizeof a, cp->activity_ps[k]),
               cp->length_ps ? 100.0 * (double)cp->activity_ps[k] / (double)cp->length_ps : 0.0);
    }
    static const uint8_t groups[] = {RT_GROUP_RANK, RT_GROUP_CALLSITE, RT_GROUP_REGION, RT_GROUP_SIZE};
    for (size_t k = 0; k < sizeof groups; k++) {
        printf("  by %s (top %" PRIu64 ")\n", gname[groups[k]], c->top);
        text_rows(t, cp->share, cp->nshare, 0, groups[k], c->top, cp->length_ps, 0, "    ");
        if (groups[k] != RT_GROUP_REGION)
            continue;
        size_t nrt;
        struct region_total *rt = region_totals(cp, &nrt);
        printf("  by region over its instances (top %" PRIu64 ")\n", c->top);
        for (size_t i = 0; i < nrt && i < c->top; i++) {
            char raw[300], lab[600], v[32];
            if (rt[i].region == RT_NONE || rt[i].region >= rt_trace_regions(t))
                snprintf(raw, sizeof raw, "(no region)");
            else
                snprintf(raw, sizeof raw, "%s (%" PRIu64 " instance%s)", region_name(t, rt[i].region),
                         rt[i].instances, rt[i].instances == 1 ? "" : "s");
            cli_text_buf(lab, sizeof lab, raw);
            printf("    %-48s %12s %6.1f%%\n", lab, fmt_ps(v, sizeof v, rt[i].ps),
                   cp->length_ps ? 100.0 * (double)rt[i].ps / (double)cp->length_ps : 0.0);
        }
        free(rt);
    }
    uint64_t nshow = cp->nseg <= 2 * c->top ? cp->nseg : 2 * c->top;
    printf("  segments (%s%" PRIu64 " of %" PRIu64 ")\n", nshow < cp->nseg ? "first " : "", nshow, cp->nseg);
    for (uint64_t i = 0; i < nshow; i++)
        printf("    rank %-5u events %" PRIu64 "-%" PRIu64 "  %s .. %s\n", rt_trace_rank_label(t, cp->seg[i].rank),
               cp->seg[i].first,
               cp->seg[i].last, fmt_ps(a, sizeof a, cp->seg[i].begin_ps), fmt_ps(b, sizeof b, cp->seg[i].end_ps));

    printf("\nwait states of B (time summed over the waiting events, count)\n");
    for (int k = 0; k < RT_WAIT_COUNT; k++) {
        printf("  %-48s %12s  (%" PRIu64 ")\n", rt_wait_kind_name(k), fmt_ps(a, sizeof a, ws->total_ps[k]),
               ws->count[k]);
        if (!ws->count[k])
            continue;
        printf("    waiting ranks\n");
        text_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_RANK, c->top, 0, 1, "      ");
        printf("    call sites\n");
        text_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_CALLSITE, c->top, 0, 1, "      ");
        printf("    waited for (the rank whose event ended the wait)\n");
        text_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_CAUSE, c->top, 0, 1, "      ");
        printf("    caused by (ranks on the critical path of the waits, time they cover)\n");
        text_rows(t, ws->share, ws->nshare, (uint8_t)k, RT_GROUP_BLAME, c->top, 0, 3, "      ");
    }
    if (mi) {
        printf("\nmeasured    %" PRIu64 " causality violations (receive before send: clocks out of sync; --fix-clocks "
               "corrects them, docs/clock-fix.md)", mi->violations);
        if (mi->violations)
            printf(", worst %s at rank %u event %" PRIu64, fmt_ps(a, sizeof a, mi->worst_ps),
                   rt_trace_rank_label(t, mi->worst_rank),
                   mi->worst_index);
        printf("\n");
    }
    if (!d) {
        printf("\ndeviations: none to compare (give noise options, or --against measured)\n");
        return;
    }
    printf("\ndeviations delta = w_B - w_A on every edge (%" PRIu64 " edges, %" PRIu64 " with another source in A)\n",
           d->edges, d->source_changed);
    printf("  injected     %14s  (sum over all edges", fmt_ps(a, sizeof a, d->injected));
    if (c->against == AGAINST_MODEL) /* one message's noise lengthens every edge it lies on */
        printf("; the replay drew net %s, os %s, burst %s", fmt_ps(a, sizeof a, noisy->net_noise_ps),
               fmt_ps(b, sizeof b, noisy->os_noise_ps), fmt_ps(x, sizeof x, noisy->burst_ps));
    printf(")\n");
    printf("  accumulated  %14s  (sum over B's critical path)\n", fmt_ps(a, sizeof a, d->accumulated));
    printf("  absorbed     %14s  (injected - accumulated)\n", fmt_ps(a, sizeof a, d->absorbed));
    if (d->absorbed < 0 || d->injected < 0) /* a sum of signed deviations: say what made it negative */
        printf("               negative: B was faster than A on some edges (they sum to %s; the delays sum to %s):\n"
               "               %s\n",
               fmt_ps(a, sizeof a, d->injected_negative), fmt_ps(b, sizeof b, d->injected - d->injected_negative),
               c->against == AGAINST_MEASURED ? "the model is slower than the measured machine on those edges (or "
                                                "work the trace records but retime drops is not modeled there)"
                                              : "the noisy replay took another path that is shorter there");
    printf("  slack        %14s  (len_A(A's critical path) - len_A(B's critical path))\n",
           fmt_ps(a, sizeof a, d->slack));
    printf("  end(B) - end(A) = accumulated - slack: %s = %s - %s, residual ", fmt_ps(a, sizeof a, d->end_b - d->end_a),
           fmt_ps(b, sizeof b, d->accumulated), fmt_ps(x, sizeof x, d->slack));
    cli_print_ps_as_ns(stdout, d->residual);
    printf(" ns\n");
    for (size_t k = 0; k < sizeof groups; k++) {
        printf("  top %" PRIu64 " by %-40s  %12s %12s\n", c->top, gname[groups[k]], "accumulated", "absorbed");
        text_rows(t, d->share, d->nshare, 0, groups[k], c->top, 0, 2, "    ");
    }
    if (cg)
        congestion_text(stdout, cg, c->top);
}

/* ------------------------------------------------------------------ command */

int cmd_analyze(struct args *a)
{
    struct analyze_cli c;
    struct rt_replay_options opts, free_opts;
    if (parse_analyze(a, &c))
        return 2; /* a usage error */
    if (model_cli_finish(&c.model, &opts))
        return 1;
    rt_error err = {0};
    rt_trace *t = NULL;
    rt_depgraph *ga = NULL, *gb = NULL;
    struct rt_depgraph_diff *d = NULL;
    const struct rt_critical_path *cpa, *cpb;
    const struct rt_wait_states *ws;
    struct rt_measured_info mi;
    struct rt_replay_result noisy = {0}, calm = {0};
    struct rt_congestion *cg = NULL;
    int rc = 1;
    if (dist_active() && (outputs_wanted(&c.out) || c.fix.on)) {
        cli_die("--output-trace, --perfetto and --fix-clocks need every rank's events: run analyze with them as one "
                "process, without mpirun");
        goto out_quiet;
    }
    if (dist_trace_open(c.tr.path, 0, "analyze holds every event and its dependency graph", &t, &opts.part, &err) || clock_fix_cli_apply(&c.fix, t, opts.eager_limit, &err))
        goto out;
    if (dist_rank() == 0)
        cli_warn_dropped(t);
    c.model.replays = 2; /* A and B */
    if (model_cli_network(&c.model, &opts, t))
        goto out_quiet;
    c.tr.fix = c.fix.on ? &c.fix : NULL;
    free_opts = rt_replay_options_noise_free(&opts);
    if (c.model.calm) /* a noise-free replay has no background traffic either */
        free_opts.network = c.model.calm;
    if (c.against == AGAINST_CROSSBAR && model_cli_crossbar(&c.model, t, &free_opts.network))
        goto out_quiet;
    opts.record_contention = opts.network != NULL && c.against != AGAINST_MEASURED;
    free_opts.record_contention = opts.record_contention;
    if (cli_replay_graph(t, c.against == AGAINST_MEASURED ? &opts : &free_opts, &ga, &calm, "analyze: replay A", &err))
        goto out;
    if (c.against == AGAINST_MEASURED) {
        if (rt_depgraph_measured(t, ga, &gb, &mi, &err))
            goto out;
    } else if (rt_replay_options_noisy(&opts) || c.model.calm || c.against == AGAINST_CROSSBAR) {
        if (cli_replay_graph(t, &opts, &gb, &noisy, "analyze: replay B", &err))
            goto out;
    }
    rt_depgraph *explained = gb ? gb : ga;
    /* both paths, the explained timing's wait states and the comparison in one walk; the getters
     * below return them. The comparison's identity and the written timelines are the whole run's. */
    if (rt_depgraph_analyze(ga, gb, gb ? &d : NULL, &err) || rt_depgraph_critical_path(ga, &cpa, &err) ||
        rt_depgraph_critical_path(explained, &cpb, &err) || rt_depgraph_wait_states(explained, &ws, &err))
        goto out;
    if (outputs_wanted(&c.out) && outputs_write(&c.out, t, c.against == AGAINST_MEASURED ? ga : explained, &err))
        goto out;
    if (opts.window && rt_window_kind(opts.window) != RT_WINDOW_ALL) { /* the paths shown: the window's */
        rt_depgraph_set_window(ga, opts.window);
        if (gb)
            rt_depgraph_set_window(gb, opts.window);
        if (rt_depgraph_critical_path(ga, &cpa, &err) || rt_depgraph_critical_path(explained, &cpb, &err))
            goto out;
    }
    /* the congestion of the explained replay, along its critical path */
    if (opts.record_contention && rt_congestion_create(opts.network, gb ? &noisy : &calm, explained, t, &cg, &err))
        goto out;
    if (c.tr.fmt == FMT_JSON) {
        print_json(&c, &opts, t, cpa->length_ps, cpb, ws, d, c.against == AGAINST_MEASURED ? &mi : NULL, &noisy,
                   cg, &calm);
    } else {
        print_text(&c, &opts, t, cpa->length_ps, cpb, ws, d, c.against == AGAINST_MEASURED ? &mi : NULL, &noisy,
                   cg);
        if (opts.cut)
            run_end(t, &calm, 0);
    }
    rc = 0;
out:
    if (rc)
        cli_fail(&err);
out_quiet:
    rt_congestion_destroy(cg);
    free(noisy.links);
    free(noisy.contention);
    free(noisy.coll_pred);
    free(noisy.coll_names);
    free(noisy.coll_binds);
    free(calm.links);
    free(calm.contention);
    free(calm.cut_event);
    free(calm.cut_waits_for);
    free(noisy.cut_event);
    free(noisy.cut_waits_for);
    free(calm.coll_pred);
    free(calm.coll_names);
    free(calm.coll_binds);
    rt_depgraph_diff_destroy(d);
    rt_depgraph_destroy(gb);
    rt_depgraph_destroy(ga);
    rt_trace_close(t);
    model_cli_free(&c.model);
    return rc;
}
