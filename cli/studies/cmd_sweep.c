/* SPDX-License-Identifier: MIT */
/*
 * retime sweep: what-if studies. Every model parameter option (and --compute-scale) and --mapping
 * take a comma-separated list, --topology one value per option (a topology spec holds commas);
 * the trace is read once and replayed once per combination (the first option on the
 * command line varies slowest), spread over threads. Each combination is an independent,
 * deterministic replay, so the output does not depend on --jobs. The runner (sweep.h) is shared
 * with `retime plot sweep`.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "retime/region_stats.h"
#include "retime/units.h"
#include "sweep.h"

int sweep_axis_is_string(const struct sweep_axis *x)
{
    return x->param[0] == SWEEP_AXIS_TOPOLOGY || x->param[0] == SWEEP_AXIS_MAPPING;
}

/* The axis of string option @p kind (SWEEP_AXIS_TOPOLOGY, _MAPPING), or NULL. */
static const struct sweep_axis *string_axis(const struct sweep *s, int kind, int *index)
{
    for (int i = 0; i < s->naxes; i++)
        if (s->axes[i].param[0] == kind) {
            if (index)
                *index = i;
            return &s->axes[i];
        }
    return NULL;
}

size_t sweep_nnets(const struct sweep *s)
{
    const struct sweep_axis *tx = string_axis(s, SWEEP_AXIS_TOPOLOGY, NULL);
    const struct sweep_axis *mx = string_axis(s, SWEEP_AXIS_MAPPING, NULL);
    return s->nets ? tx->n * (mx ? mx->n : 1) : 0;
}

/* One more value of a string axis: a topology or a mapping spec, whole (it is checked when the
 * networks are built, where the trace's ranks are known). The axis is made by its first value. */
static int add_string_value(struct sweep *s, int kind, const char *name, const char *v)
{
    int i;
    struct sweep_axis *x = (struct sweep_axis *)string_axis(s, kind, &i);
    if (!v || !*v)
        return cli_die("--%s needs a value (once per value: --%s A --%s B)", name, name, name);
    if (!x) {
        if (s->naxes == SWEEP_MAX_AXES)
            return cli_die("sweep: at most %d varied options", SWEEP_MAX_AXES);
        x = &s->axes[s->naxes];
        memset(x, 0, sizeof *x);
        snprintf(x->name, sizeof x->name, "%s", name);
        x->param[0] = kind;
        x->param[1] = -1;
        x->vals = calloc(SWEEP_MAX_VALUES, sizeof *x->vals);
        x->strs = calloc(SWEEP_MAX_VALUES, sizeof *x->strs);
        if (!x->vals || !x->strs) {
            free(x->vals);
            free(x->strs);
            x->vals = NULL;
            x->strs = NULL;
            return cli_die("out of memory");
        }
        s->naxes++;
    }
    if (x->n == SWEEP_MAX_VALUES)
        return cli_die("--%s: more than %d values", name, SWEEP_MAX_VALUES);
    x->vals[x->n] = (double)x->n;
    x->strs[x->n++] = v;
    return 0;
}

static int add_axis(struct sweep *s, const char *name, const char *list)
{
    if (s->naxes == SWEEP_MAX_AXES)
        return cli_die("sweep: at most %d varied options", SWEEP_MAX_AXES);
    struct sweep_axis *x = &s->axes[s->naxes];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->param[0] = x->param[1] = -1;
    if (!strcmp(name, "compute-scale")) {
        x->param[0] = SWEEP_AXIS_SCALE;
    } else if (!strcmp(name, "scale-bytes")) {
        x->param[0] = SWEEP_AXIS_BYTES;
        if (list && strchr(list, '@'))
            return cli_die("--scale-bytes '%s': sweep varies one factor on every message and collective "
                           "(--scale-bytes 1,2,4); rules per communicator or call site are for replay, analyze "
                           "and check", list);
    } else if (!strcmp(name, "o")) {
        x->param[0] = rt_model_param_find("o_s");
        x->param[1] = rt_model_param_find("o_r");
    } else {
        x->param[0] = rt_model_param_find(name);
    }
    for (int i = 0; i < s->naxes; i++)
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++)
                if (x->param[p] != -1 && s->axes[i].param[q] == x->param[p])
                    return cli_die("sweep: --%s given twice (or overlaps --%s)", name, s->axes[i].name);
    if (!list || !*list)
        return cli_die("--%s needs a value or a comma-separated list", name);
    char *copy = strdup(list), *save = NULL, *tok;
    x->vals = calloc(SWEEP_MAX_VALUES, sizeof *x->vals);
    int rc = 0;
    if (!copy || !x->vals) {
        rc = cli_die("out of memory");
        goto out;
    }
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        rt_error err = {0};
        double v;
        int bad;
        if (x->n == SWEEP_MAX_VALUES) {
            rc = cli_die("--%s: more than %d values", name, SWEEP_MAX_VALUES);
            goto out;
        }
        if (x->param[0] == SWEEP_AXIS_SCALE || x->param[0] == SWEEP_AXIS_BYTES)
            bad = rt_parse_number(tok, &v, &err) || (v < 0 || v > 1e6 ? rt_error_set(&err, RT_ERANGE, "'%s' is not between 0 and 1e6", tok) : 0);
        else if (rt_model_param_table[x->param[0]].unit == RT_PU_TIME)
            bad = rt_parse_time_ns(tok, &v, &err);
        else
            bad = rt_parse_ns_per_byte(tok, &v, &err);
        if (bad) {
            rc = cli_die("--%s: %s", name, err.msg);
            goto out;
        }
        x->vals[x->n++] = v;
    }
    if (x->n == 0)
        rc = cli_die("--%s: empty list", name);
    else
        s->naxes++;
out:
    free(copy);
    if (rc) {
        free(x->vals);
        x->vals = NULL;
    }
    return rc;
}

void sweep_init(struct sweep *s)
{
    memset(s, 0, sizeof *s);
    model_cli_init(&s->model);
    pthread_mutex_init(&s->lock, NULL);
}

/* --topology SPEC: one value (a spec holds commas itself, so a list of topologies is refused
 * with the way to give them). */
static int topology_value(struct sweep *s, const char *v)
{
    const char *next = v ? cli_topology_list_next(v) : NULL;
    if (next)
        return cli_die("--topology '%s': a topology spec holds commas itself (torus:4x4x4,adaptive), so a list is not "
                       "split: give each topology its own --topology (--topology %.*s --topology %s)",
                       v, (int)(next - 1 - v), v, next);
    return add_string_value(s, SWEEP_AXIS_TOPOLOGY, "topology", v);
}

/* --mapping LIST: block,random:1 is two values, as a parameter's list is. A file: mapping's PATH
 * may hold commas: file:PATH alone is one value, and a list that holds one is refused with the
 * way to give it. The list is cut in place: @p v is a piece of @p arg, an argument of main(),
 * which the program may modify, and the pieces stay valid as long as argv. */
static int mapping_values(struct sweep *s, char *arg, const char *v)
{
    if (!v || !*v || !strchr(v, ',') || !strncmp(v, "file:", 5))
        return add_string_value(s, SWEEP_AXIS_MAPPING, "mapping", v);
    if (strstr(v, ",file:"))
        return cli_die("--mapping '%s': a file: mapping's PATH may hold commas, so this list is not split: give each "
                       "mapping its own --mapping (--mapping block --mapping file:PATH)", v);
    if (v[strlen(v) - 1] == ',' || strstr(v, ",,") || v[0] == ',')
        return cli_die("--mapping '%s': an empty mapping in the list", v);
    char *p = arg + (v - arg);
    for (char *save = NULL, *tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (add_string_value(s, SWEEP_AXIS_MAPPING, "mapping", tok))
            return 1;
    return 0;
}

int sweep_option(struct args *a, struct sweep *s)
{
    const char *arg = a->argv[a->i], *v;
    char name[24];
    size_t n = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
    if (n && n < sizeof name) {
        memcpy(name, arg + 2, n);
        name[n] = '\0';
        if (rt_model_param_find(name) >= 0 || !strcmp(name, "o") || !strcmp(name, "compute-scale") ||
            !strcmp(name, "scale-bytes")) {
            char opt[30];
            snprintf(opt, sizeof opt, "--%s", name);
            cli_opt(a, opt, &v);
            return add_axis(s, name, v) ? -1 : 1;
        }
    }
    if (cli_opt(a, "--topology", &v))
        return topology_value(s, v) ? -1 : 1;
    if (cli_opt(a, "--mapping", &v))
        return mapping_values(s, a->argv[a->i], v) ? -1 : 1;
    if (cli_opt(a, "--jobs", &v)) {
        double j;
        rt_error err = {0};
        if (!v || rt_parse_number(v, &j, &err) || j < 1 || j > 1024 || j != (long)j)
            return cli_die("bad --jobs '%s' (a whole number from 1 to 1024)", v ? v : ""), -1;
        s->jobs = (long)j;
        return 1;
    }
    return 0;
}

int sweep_finish_options(struct sweep *s)
{
    /* The first value of every axis stands in for the base model's check. */
    s->combos = 1;
    for (int i = 0; i < s->naxes; i++) {
        struct sweep_axis *x = &s->axes[i];
        for (int p = 0; p < 2; p++)
            if (x->param[p] >= 0) {
                *rt_model_param_ptr(&s->model.params, x->param[p]) = x->vals[0];
                s->model.given |= 1u << x->param[p];
            } else if (x->param[p] == SWEEP_AXIS_SCALE) {
                s->model.compute_scale = x->vals[0];
            }
        if (s->combos > SWEEP_MAX_COMBOS / x->n)
            return cli_die("sweep: more than %d combinations", SWEEP_MAX_COMBOS);
        s->combos *= x->n;
    }
    return 0;
}

static int parse_sweep(struct args *a, struct sweep *s)
{
    for (a->i = 2; a->i < a->argc; a->i++) {
        int m = sweep_option(a, s);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        m = model_cli_option(a, &s->model);
        if (m < 0)
            return 1;
        if (m > 0)
            continue;
        if (trace_cli_option(a, &s->tr, "sweep"))
            return 1;
    }
    if (trace_cli_finish(&s->tr, "sweep"))
        return 1;
    return sweep_finish_options(s);
}

/* The index into s->nets of the topology and mapping picked in @p pick. */
static size_t net_index(const struct sweep *s, const size_t *pick)
{
    int ti = -1, mi = -1;
    const struct sweep_axis *mx = string_axis(s, SWEEP_AXIS_MAPPING, &mi);
    string_axis(s, SWEEP_AXIS_TOPOLOGY, &ti);
    return (ti >= 0 ? pick[ti] : 0) * (mx ? mx->n : 1) + (mi >= 0 ? pick[mi] : 0);
}

void sweep_combo(const struct sweep *s, size_t c, struct rt_replay_options *o, size_t *pick)
{
    *o = s->base;
    for (int i = s->naxes - 1; i >= 0; i--) {
        const struct sweep_axis *x = &s->axes[i];
        pick[i] = c % x->n;
        c /= x->n;
        for (int p = 0; p < 2; p++)
            if (x->param[p] >= 0)
                *rt_model_param_ptr(&o->model.params, x->param[p]) = x->vals[pick[i]];
            else if (x->param[p] == SWEEP_AXIS_SCALE)
                o->compute_scale = x->vals[pick[i]];
            else if (x->param[p] == SWEEP_AXIS_BYTES && s->scales)
                o->scale = s->scales[pick[i]];
    }
    if (s->nets)
        o->network = s->nets[net_index(s, pick)];
}

static void run_one(struct sweep *s, size_t c)
{
    struct sweep_run *r = &s->runs[c];
    struct rt_replay_options o;
    size_t pick[SWEEP_MAX_AXES];
    struct rt_replay_result *res = NULL;
    rt_region_stats *rs = NULL;
    struct rt_replay_observer obs = {0};
    sweep_combo(s, c, &o, pick);
    r->rc = o.model.ops->validate(&o.model.params, &r->err);
    if (r->rc)
        goto out;
    if (s->tr.region) {
        if ((r->rc = rt_region_stats_create(s->trace, s->region_id, &rs, &r->err)))
            goto out;
        obs.ud = rs;
        obs.on_event = rt_region_stats_on_event;
    }
    if ((r->rc = rt_replay_run(s->trace, &o, s->tr.region ? &obs : NULL, &res, &r->err)))
        goto out;
    /* the measured window's span when there is one (the headline; docs: --window) */
    int win = res->window && res->window_ranks;
    r->predicted_ps = win ? res->window_predicted_ps : res->predicted_ps;
    r->contention_ps = res->contention_ps;
    r->routed = res->routed;
    r->local = res->local;
    if (rs) {
        const struct rt_region_instance *inst;
        uint64_t n;
        if ((r->rc = rt_region_stats_instances(rs, &inst, &n, &r->err)))
            goto out;
        double p = 0, m = 0;
        for (uint64_t i = 0; i < n; i++) {
            p += inst[i].predicted_mean_ns;
            m += inst[i].measured_mean_ns;
        }
        r->region_ns = n ? p / (double)n : 0;
        r->region_measured_ns = n ? m / (double)n : 0;
    }
    if (c == 0)
        s->measured_ns = win ? res->window_measured_ns : res->measured_ns;
out:
    rt_replay_result_destroy(res);
    rt_region_stats_destroy(rs);
}

static void *worker(void *ud)
{
    struct sweep *s = ud;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        size_t c = s->next++;
        pthread_mutex_unlock(&s->lock);
        if (c >= s->combos)
            return NULL;
        run_one(s, c);
        progress_add(s->progress, 1);
    }
}

void sweep_print_value(FILE *f, const struct sweep_axis *x, double v, int plain)
{
    char buf[32];
    if (sweep_axis_is_string(x)) {
        const char *str = v >= 0 && v < (double)x->n ? x->strs[(size_t)v] : "?";
        if (plain && str[strcspn(str, ",\"\r\n")]) { /* CSV: quoted, quotes doubled */
            fputc('"', f);
            for (; *str; str++) {
                if (*str == '"')
                    fputc('"', f);
                fputc(*str, f);
            }
            fputc('"', f);
        } else {
            fputs(str, f);
        }
    } else if (x->param[0] == SWEEP_AXIS_SCALE || plain)
        cli_print_double(f, v);
    else if (x->param[0] == SWEEP_AXIS_BYTES)
        fprintf(f, "x%g", v);
    else if (rt_model_param_table[x->param[0]].unit == RT_PU_TIME)
        fputs(rt_format_time(buf, sizeof buf, v), f);
    else
        fprintf(f, "%.6gns/B", v);
}

const char *sweep_axis_field(const struct sweep_axis *x, char *buf, size_t n)
{
    if (x->param[0] == SWEEP_AXIS_SCALE)
        snprintf(buf, n, "compute_scale");
    else if (x->param[0] == SWEEP_AXIS_BYTES)
        snprintf(buf, n, "scale_bytes");
    else if (sweep_axis_is_string(x))
        snprintf(buf, n, "%s", x->name);
    else
        snprintf(buf, n, "%s_%s", x->name, rt_model_param_table[x->param[0]].unit == RT_PU_TIME ? "ns" : "ns_per_byte");
    return buf;
}

static void print_sweep(const struct sweep *s)
{
    const struct sweep_run *r0 = &s->runs[0];
    char buf[48];
    size_t pick[SWEEP_MAX_AXES];
    struct rt_replay_options o;
    if (s->tr.fmt == FMT_JSON) {
        printf("{\"trace\": ");
        cli_json_string(stdout, rt_trace_path(s->trace));
        cli_coverage_json(stdout, s->trace);
        printf(", \"model\": ");
        model_cli_json(stdout, &s->base);
        printf(", \"window\": {\"spec\": ");
        cli_json_string(stdout, rt_window_spec(s->base.window));
        printf(", \"text\": ");
        cli_json_string(stdout, rt_window_text(s->base.window));
        printf("}, \"measured_ns\": %" PRId64 ", \"region\": ", s->measured_ns);
        if (s->tr.region) {
            cli_json_string(stdout, s->tr.region);
            printf(", \"region_measured_ns\": %.3f", r0->region_measured_ns);
        } else {
            printf("null");
        }
        printf(", \"varied\": [");
        for (int i = 0; i < s->naxes; i++)
            printf("%s\"%s\"", i ? ", " : "", sweep_axis_field(&s->axes[i], buf, sizeof buf));
        printf("], \"runs\": [");
        for (size_t c = 0; c < s->combos; c++) {
            const struct sweep_run *r = &s->runs[c];
            sweep_combo(s, c, &o, pick);
            printf("%s{\"combo\": %zu", c ? ", " : "", c);
            for (int i = 0; i < s->naxes; i++) {
                printf(", \"%s\": ", sweep_axis_field(&s->axes[i], buf, sizeof buf));
                if (sweep_axis_is_string(&s->axes[i]))
                    cli_json_string(stdout, s->axes[i].strs[pick[i]]);
                else
                    cli_print_double(stdout, s->axes[i].vals[pick[i]]);
            }
            if (s->nets) {
                printf(", \"network\": ");
                if (o.network)
                    cli_json_string(stdout, rt_network_describe(o.network));
                else
                    printf("null");
                printf(", \"routed\": %" PRIu64 ", \"local\": %" PRIu64 ", \"contention_ns\": ", r->routed, r->local);
                cli_print_ps_as_ns(stdout, r->contention_ps);
            }
            printf(", \"predicted_ns\": ");
            cli_print_ps_as_ns(stdout, r->predicted_ps);
            printf(", \"speedup\": %.6f", (double)r0->predicted_ps / (double)r->predicted_ps);
            if (s->tr.region)
                printf(", \"region_ns\": %.3f, \"region_speedup\": %.6f", r->region_ns, r0->region_ns / r->region_ns);
            printf("}");
        }
        printf("]}\n");
        return;
    }
    if (s->tr.fmt == FMT_CSV) {
        printf("combo");
        for (int i = 0; i < s->naxes; i++)
            printf(",%s", sweep_axis_field(&s->axes[i], buf, sizeof buf));
        printf("%s,predicted_ns,speedup%s\n", s->nets ? ",routed,local,contention_ns" : "",
               s->tr.region ? ",region_ns,region_speedup" : "");
        for (size_t c = 0; c < s->combos; c++) {
            const struct sweep_run *r = &s->runs[c];
            sweep_combo(s, c, &o, pick);
            printf("%zu", c);
            for (int i = 0; i < s->naxes; i++) {
                putchar(',');
                sweep_print_value(stdout, &s->axes[i], s->axes[i].vals[pick[i]], 1);
            }
            if (s->nets) {
                printf(",%" PRIu64 ",%" PRIu64 ",", r->routed, r->local);
                cli_print_ps_as_ns(stdout, r->contention_ps);
            }
            putchar(',');
            cli_print_ps_as_ns(stdout, r->predicted_ps);
            printf(",%.6f", (double)r0->predicted_ps / (double)r->predicted_ps);
            if (s->tr.region)
                printf(",%.3f,%.6f", r->region_ns, r0->region_ns / r->region_ns);
            putchar('\n');
        }
        return;
    }
    printf("trace       %s\n", rt_trace_path(s->trace));
    cli_coverage_text(stdout, s->trace, 12);
    printf("model       ");
    model_cli_describe(stdout, &s->base);
    if (s->nets) { /* every network of the sweep, in the order of its axes' values */
        size_t nn = sweep_nnets(s);
        int crossbar = 0;
        for (size_t k = 0; k < nn; k++)
            if (s->nets[k] || !crossbar++)
                printf("\n%-12s%s", k ? "" : "network", s->nets[k] ? rt_network_describe(s->nets[k])
                                                                  : "crossbar (the model alone: each rank's single port)");
    }
    printf("\nwindow      %s (--window %s)", rt_window_text(s->base.window), rt_window_spec(s->base.window));
    printf("\nmeasured    %s", rt_format_time(buf, sizeof buf, (double)s->measured_ns));
    if (s->tr.region)
        printf(" total, %s per %s", rt_format_time(buf, sizeof buf, r0->region_measured_ns), s->tr.region);
    printf("\n%zu combinations; speed-up against combination 0 (>1: faster)\n\n%6s", s->combos, "combo");
    int width[SWEEP_MAX_AXES]; /* a string axis's column fits its longest value */
    for (int i = 0; i < s->naxes; i++) {
        width[i] = 12;
        for (size_t k = 0; sweep_axis_is_string(&s->axes[i]) && k < s->axes[i].n; k++)
            if ((int)strlen(s->axes[i].strs[k]) > width[i])
                width[i] = (int)strlen(s->axes[i].strs[k]);
        printf(" %*s", width[i], s->axes[i].name);
    }
    if (s->nets)
        printf(" %14s", "contention");
    printf(" %14s %8s", "predicted", "speedup");
    if (s->tr.region)
        printf(" %16.16s %8s", s->tr.region, "speedup");
    putchar('\n');
    for (size_t c = 0; c < s->combos; c++) {
        const struct sweep_run *r = &s->runs[c];
        sweep_combo(s, c, &o, pick);
        printf("%6zu", c);
        for (int i = 0; i < s->naxes; i++) {
            char v[40];
            if (sweep_axis_is_string(&s->axes[i])) {
                printf(" %*s", width[i], s->axes[i].strs[pick[i]]);
                continue;
            }
            FILE *m = fmemopen(v, sizeof v, "w");
            if (m) {
                sweep_print_value(m, &s->axes[i], s->axes[i].vals[pick[i]], 0);
                fclose(m);
            } else {
                snprintf(v, sizeof v, "?");
            }
            printf(" %12s", v);
        }
        if (s->nets)
            printf(" %14s", o.network ? rt_format_time(buf, sizeof buf, (double)r->contention_ps / 1e3) : "-");
        /* speed-ups in 4 decimals, as the Monte Carlo's slowdown (JSON and CSV keep 6) */
        printf(" %14s %8.4f", rt_format_time(buf, sizeof buf, (double)r->predicted_ps / 1e3),
               (double)r0->predicted_ps / (double)r->predicted_ps);
        if (s->tr.region)
            printf(" %16s %8.4f", rt_format_time(buf, sizeof buf, r->region_ns), r0->region_ns / r->region_ns);
        putchar('\n');
    }
}

/* The networks: one per topology and mapping of their axes, for the trace's ranks, or (without a
 * --topology axis) the fixed network options checked as a replay checks them. 0, or 1 (printed). */
static int sweep_networks(struct sweep *s)
{
    rt_error err = {0};
    const struct sweep_axis *tx = string_axis(s, SWEEP_AXIS_TOPOLOGY, NULL);
    const struct sweep_axis *mx = string_axis(s, SWEEP_AXIS_MAPPING, NULL);
    size_t nt = tx ? tx->n : 0, nm = mx ? mx->n : 1, routed = 0;
    s->model.replays = s->combos; /* the work estimate's multiplier */
    for (size_t t = 0; t < nt; t++)
        routed += model_cli_topology(&s->model, tx->strs[t]) != NULL;
    if (!routed) { /* none, or only crossbar: the model alone; network options are errors there */
        if (mx)
            s->model.net.mapping = mx->strs[0];
        return model_cli_network(&s->model, &s->base, s->trace);
    }
    if (model_cli_window(&s->model, &s->base, s->trace)) /* (the networks' own background: not estimated) */
        return 1;
    if (!(s->nets = calloc(nt * nm, sizeof *s->nets)))
        return cli_die("out of memory");
    double bound = s->model.max_work > 0 ? s->model.max_work : CLI_MAX_WORK_DEFAULT, links_all = 0;
    for (size_t t = 0; t < nt; t++)
        for (size_t m = 0; m < nm && model_cli_topology(&s->model, tx->strs[t]); m++) {
            struct rt_network_params p = s->model.net;
            p.topology = model_cli_topology(&s->model, tx->strs[t]);
            if (mx)
                p.mapping = mx->strs[m];
            /* each network checked as a replay checks it: its routes (a scattered mapping on a
             * large mesh, #47) and their links against the bound, before any combination runs */
            double links = 0;
            if (rt_network_create(&p, rt_trace_ranks(s->trace), &s->nets[t * nm + m], &err) ||
                model_cli_routes(s->trace, s->nets[t * nm + m], bound, &links, &err) ||
                ((links_all += links * (double)(s->combos / (nt * nm))) > bound &&
                 rt_error_set(&err, RT_ERANGE, "the routes of its messages cross over %.3g links in all the combinations: "
                              "more than --max-work %.3g; raise it to run anyway", links_all, bound))) {
                if (nt * nm == 1)
                    return cli_fail(&err);
                return cli_die("--topology %s%s%s: %s", tx->strs[t], mx ? " --mapping " : "", mx ? mx->strs[m] : "",
                               err.msg);
            }
        }
    return 0;
}

/* The --scale-bytes axis's factors, each opened on the trace. 0, or 1 (printed). */
static int sweep_scales(struct sweep *s)
{
    for (int i = 0; i < s->naxes; i++) {
        const struct sweep_axis *x = &s->axes[i];
        if (x->param[0] != SWEEP_AXIS_BYTES)
            continue;
        if (!(s->scales = calloc(x->n, sizeof *s->scales)))
            return cli_die("out of memory");
        for (size_t k = 0; k < x->n; k++) {
            char spec[32];
            rt_error err = {0};
            snprintf(spec, sizeof spec, "%.17g", x->vals[k]);
            if (rt_scale_open(s->trace, spec, &s->scales[k], &err))
                return cli_fail(&err);
        }
    }
    return 0;
}

int sweep_run(struct sweep *s)
{
    rt_error err = {0};
    if (cli_trace_open(s->tr.path, &s->trace, &err))
        return cli_fail(&err);
    cli_warn_dropped(s->trace);
    if (sweep_networks(s) || sweep_scales(s))
        return 1;
    if (s->tr.region && ((s->region_id = rt_trace_find_region(s->trace, s->tr.region)) == RT_NONE ||
                         !rt_trace_region_entered(s->trace, s->region_id))) {
        rt_error e = {0};
        cli_region_error(&e, s->trace, s->region_id, s->tr.region);
        return cli_fail(&e);
    }
    s->runs = calloc(s->combos, sizeof *s->runs);
    if (!s->runs)
        return cli_die("out of memory for %zu combinations", s->combos);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long jobs = s->jobs ? s->jobs : (cores > 0 ? cores : 1);
    if ((size_t)jobs > s->combos)
        jobs = (long)s->combos;
    s->next = 0;
    s->progress = progress_start("sweep", "combinations", s->combos);
    pthread_t th[1024];
    long started = 0;
    for (; started < jobs - 1; started++)
        if (pthread_create(&th[started], NULL, worker, s))
            break; /* fewer threads is fine: the calling thread works too */
    worker(s);
    for (long i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    progress_end(s->progress);
    s->progress = NULL;
    for (size_t c = 0; c < s->combos; c++)
        if (s->runs[c].rc) {
            size_t pick[SWEEP_MAX_AXES];
            struct rt_replay_options o;
            sweep_combo(s, c, &o, pick);
            fprintf(stderr, "retime: error: combination %zu (", c);
            for (int i = 0; i < s->naxes; i++) {
                fprintf(stderr, "%s%s=", i ? " " : "", s->axes[i].name);
                sweep_print_value(stderr, &s->axes[i], s->axes[i].vals[pick[i]], 0);
            }
            fprintf(stderr, "): %s\n", s->runs[c].err.msg);
            return 1;
        }
    return 0;
}

void sweep_free(struct sweep *s)
{
    for (size_t k = 0, nn = sweep_nnets(s); k < nn; k++)
        rt_network_destroy(s->nets[k]);
    free(s->nets);
    for (int i = 0; i < s->naxes; i++)
        for (size_t k = 0; s->scales && s->axes[i].param[0] == SWEEP_AXIS_BYTES && k < s->axes[i].n; k++)
            rt_scale_free(s->scales[k]);
    free(s->scales);
    for (int i = 0; i < s->naxes; i++) {
        free(s->axes[i].vals);
        free(s->axes[i].strs);
    }
    free(s->runs);
    rt_trace_close(s->trace);
    model_cli_free(&s->model);
    pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof *s);
}

int cmd_sweep(struct args *a)
{
    struct sweep s;
    int rc = 1;
    sweep_init(&s);
    if (parse_sweep(a, &s))
        rc = 2; /* a usage error */
    else if (!model_cli_finish(&s.model, &s.base) && !sweep_run(&s)) {
        print_sweep(&s);
        rc = 0;
    }
    sweep_free(&s);
    return rc;
}
