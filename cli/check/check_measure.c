/* SPDX-License-Identifier: MIT */
/* What retime check measures of one trace: its fingerprint, and one replay with the dependency
 * graph (critical-path composition) and region collectors (predicted region means). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "retime/depgraph.h"
#include "retime/region_stats.h"

/* FNV-1a 64 over a fixed little-endian serialisation: a trace's fingerprint. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv_bytes(h, b, 8);
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return fnv_bytes(fnv_u64(h, n), s ? s : "", n);
}

/* Everything of the trace the replay and the analysis use: every kept event, and the regions,
 * call sites and communicators they refer to. OTF2 records retime drops do not count. */
/* The directory prefix every absolute call-site file of @p t shares (its length; 0: none). */
static size_t callsite_dir_prefix(const rt_trace *t, const char **prefix)
{
    size_t plen = 0;
    *prefix = NULL;
    for (uint32_t i = 0; i < rt_trace_callsites(t); i++) {
        const char *f = rt_trace_callsite(t, i)->file;
        if (!f || f[0] != '/')
            continue;
        if (!*prefix) {
            *prefix = f;
            plen = strlen(f);
        }
        size_t k = 0;
        while (k < plen && f[k] && (*prefix)[k] == f[k])
            k++;
        plen = k;
    }
    while (plen && (*prefix)[plen - 1] != '/')
        plen--;
    return plen > 1 ? plen : 0;
}

/* FNV-1a over the events and definitions the replay uses. @p relative: call-site files without
 * their common directory (the fingerprint baselines record since call sites are relative; the
 * absolute one still matches older baselines). */
static uint64_t trace_fingerprint(const rt_trace *t, int relative, int timed)
{
    /* Untimed: what the run did, not when (no event times, no thread team's work time), so that
     * the same program traced again, at another path or the same, keeps its fingerprint. */
    uint64_t h = fnv_str(FNV_OFFSET, timed ? "retime trace fingerprint 1" : "retime trace fingerprint 2 untimed");
    h = fnv_u64(h, rt_trace_ranks(t));
    for (uint32_t r = 0; r < rt_trace_ranks(t); r++) {
        uint64_t n;
        const struct rt_event *ev = rt_trace_events(t, r, &n);
        h = fnv_u64(h, n);
        for (uint64_t i = 0; i < n; i++) {
            /* As when events were 32 bytes (a JOIN's work in bytes, no communicator as RT_NONE), so
             * that baselines recorded then still match. */
            int join = ev[i].kind == RT_EV_JOIN;
            const struct rt_event_payload p = rt_trace_payload(t, r, i);
            uint32_t comm = join || p.comm == RT_EV_NO_COMM ? RT_NONE : (uint32_t)p.comm;
            if (timed)
                h = fnv_u64(h, (uint64_t)ev[i].time);
            h = fnv_u64(h, join ? (timed ? p.work_ns : 0) : (uint64_t)p.bytes);
            h = fnv_u64(h, (uint64_t)ev[i].ref | (uint64_t)ev[i].aux << 32);
            const struct rt_comm *cm = rt_trace_comm(t, comm); /* a self instance counts as its origin */
            h = fnv_u64(h, (uint64_t)(cm ? cm->origin : comm) | (uint64_t)ev[i].kind << 32 | (uint64_t)ev[i].flags << 40);
        }
    }
    h = fnv_u64(h, rt_trace_regions(t));
    for (uint32_t i = 0; i < rt_trace_regions(t); i++) {
        const struct rt_region *rg = rt_trace_region(t, i);
        h = fnv_u64(fnv_str(h, rg->name), (uint64_t)rg->is_mpi | (uint64_t)rg->role << 8);
    }
    h = fnv_u64(h, rt_trace_callsites(t));
    const char *prefix;
    size_t plen = relative ? callsite_dir_prefix(t, &prefix) : 0;
    for (uint32_t i = 0; i < rt_trace_callsites(t); i++) {
        const struct rt_callsite *cs = rt_trace_callsite(t, i);
        const char *file = plen && cs->file && !strncmp(cs->file, prefix, plen) ? cs->file + plen : cs->file;
        h = fnv_u64(fnv_str(fnv_str(h, cs->function), file), cs->line);
    }
    h = fnv_u64(h, rt_trace_comms(t) - rt_trace_stats(t)->self_comms * rt_trace_ranks(t));
    for (uint32_t i = 0; i < rt_trace_comms(t); i++) {
        const struct rt_comm *cm = rt_trace_comm(t, i);
        if (cm->origin != i) /* the reader's per-rank instances of a self communicator */
            continue;
        h = fnv_u64(h, cm->size);
        for (uint32_t j = 0; j < cm->size && cm->members; j++) /* MPI_COMM_SELF has no member table */
            h = fnv_u64(h, cm->members[j]);
    }
    return h;
}

/* Shares are kept to 0.001 percentage points, in the file and in comparisons alike, so that a
 * baseline just written compares equal even with --share-tolerance 0pp. */
double check_round3(double pct)
{
    double r = round(pct * 1000.0) / 1000.0;
    return r == 0 ? 0.0 : r;
}

double check_round_ps(double ns)
{
    /* From 2^53 ps on (about 2.5 hours) a double holds no fraction of a ps to round away. */
    if (!(fabs(ns) < 9007199254740992.0 / 1000.0))
        return ns;
    double r = round(ns * 1000.0) / 1000.0;
    return r == 0 ? 0.0 : r;
}

/* What one replay feeds: the dependency graph, and the region collectors (NULL: region absent). */
struct observers {
    rt_depgraph *g;
    rt_region_stats **rs;
    size_t nrs;
};

static void on_dep(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted,
                   const struct rt_dep *dep)
{
    rt_depgraph_on_dep(((struct observers *)ud)->g, rank, index, ev, predicted, dep);
}

static void on_event(void *ud, uint32_t rank, uint64_t index, const struct rt_event *ev, rt_time_ps predicted)
{
    struct observers *o = ud;
    for (size_t i = 0; i < o->nrs; i++)
        if (o->rs[i])
            rt_region_stats_on_event(o->rs[i], rank, index, ev, predicted);
}

static int cmp_share_desc(const void *a, const void *b)
{
    const struct check_share *x = a, *y = b;
    return x->pct < y->pct ? 1 : x->pct > y->pct ? -1 : strcmp(x->label, y->label);
}

/* The path in a call-site label "FUNCTION PATH:LINE (MPI_X)": *@p at its first byte, the
 * length returned (0: none, e.g. "(outside MPI calls)"). */
static size_t label_path(const char *label, const char **at)
{
    const char *sp = strchr(label, ' '), *open = strstr(label, " (");
    if (!sp || !open || open <= sp)
        return 0;
    const char *colon = NULL;
    for (const char *p = sp + 1; p < open; p++)
        if (*p == ':')
            colon = p;
    if (!colon || colon <= sp + 1)
        return 0;
    *at = sp + 1;
    return (size_t)(colon - (sp + 1));
}

void check_labels_relative(struct check_share *v, size_t n, const char *root)
{
    /* the directory prefix every absolute path shares (or @p root where a path starts with it) */
    char prefix[1024] = "";
    size_t plen = 0;
    int any = 0;
    if (root && *root) {
        snprintf(prefix, sizeof prefix - 1, "%s", root);
        plen = strlen(prefix);
        if (plen && prefix[plen - 1] != '/')
            prefix[plen++] = '/', prefix[plen] = '\0';
        any = 1;
    } else {
        for (size_t i = 0; i < n; i++) {
            const char *p;
            size_t len = label_path(v[i].label, &p);
            if (!len || p[0] != '/')
                continue;
            if (!any) { /* the first path's directory */
                size_t d = len;
                while (d && p[d - 1] != '/')
                    d--;
                plen = d < sizeof prefix ? d : 0;
                memcpy(prefix, p, plen);
                prefix[plen] = '\0';
                any = 1;
                continue;
            }
            size_t k = 0;
            while (k < plen && k < len && prefix[k] == p[k])
                k++;
            while (k && prefix[k - 1] != '/') /* back to a directory boundary */
                k--;
            plen = k;
            prefix[plen] = '\0';
        }
    }
    if (!any || plen <= 1) /* nothing shared beyond "/" */
        return;
    for (size_t i = 0; i < n; i++) {
        const char *p;
        size_t len = label_path(v[i].label, &p);
        if (len <= plen || strncmp(p, prefix, plen))
            continue;
        /* drop the prefix in place: FUNCTION and the rest stay */
        char *w = v[i].label + (p - v[i].label);
        memmove(w, w + plen, strlen(w + plen) + 1);
    }
}

static int callsite_shares(const rt_trace *t, const struct rt_critical_path *cp, const char *source_root,
                           struct check_trace *m, rt_error *err)
{
    char raw[1024], label[1024];
    for (uint64_t i = 0; i < cp->nshare; i++) {
        const struct rt_dep_share *s = &cp->share[i];
        if (s->group != RT_GROUP_CALLSITE || s->value <= 0)
            continue;
        cli_callsite_label(raw, sizeof raw, t, s->id, s->region);
        cli_text_buf(label, sizeof label, raw); /* a label is text: control bytes as \xNN, as the baseline must hold them */
        double pct = cp->length_ps ? 100.0 * (double)s->value / (double)cp->length_ps : 0;
        size_t j = 0;
        while (j < m->ncallsites && strcmp(m->callsites[j].label, label))
            j++;
        if (j < m->ncallsites) { /* two call-site ids with the same text: one row */
            m->callsites[j].pct += pct;
            continue;
        }
        struct check_share *v = realloc(m->callsites, (m->ncallsites + 1) * sizeof *v);
        if (!v)
            return rt_error_set(err, RT_ENOMEM, "out of memory");
        m->callsites = v;
        if (!(v[m->ncallsites].label = strdup(label)))
            return rt_error_set(err, RT_ENOMEM, "out of memory");
        v[m->ncallsites++].pct = pct;
    }
    check_labels_relative(m->callsites, m->ncallsites, source_root);
    for (size_t j = 0; j < m->ncallsites; j++)
        m->callsites[j].pct = check_round3(m->callsites[j].pct);
    if (m->ncallsites)
        qsort(m->callsites, m->ncallsites, sizeof *m->callsites, cmp_share_desc);
    return RT_OK;
}

/* One replay feeds both collectors (no second pass over the trace); the graph's end must be the
 * replay's, as retime analyze checks it too. */
int check_measure(const char *open, const char *key, const struct rt_replay_options *o, const char *window,
                  const char *scale, const char *source_root, const char *const *regions,
                  size_t nregions, struct check_trace *m, rt_error *err)
{
    rt_trace *t = NULL;
    struct rt_replay_result *res = NULL;
    struct observers ob = {0};
    const struct rt_critical_path *cp;
    rt_window *win = NULL;
    rt_scale *sc = NULL;
    int rc;
    memset(m, 0, sizeof *m);
    m->path = strdup(key);
    m->regions = calloc(nregions ? nregions : 1, sizeof *m->regions);
    ob.rs = calloc(nregions ? nregions : 1, sizeof *ob.rs);
    ob.nrs = nregions;
    if (!m->path || !m->regions || !ob.rs) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = cli_trace_open(open, &t, err)))
        goto out;
    m->ranks = rt_trace_ranks(t);
    m->events = rt_trace_stats(t)->events;
    m->fingerprint = trace_fingerprint(t, 1, 0);
    m->untimed = 1;
    m->fingerprint_timed = trace_fingerprint(t, 1, 1);
    m->fingerprint_abs = trace_fingerprint(t, 0, 1);
    if ((rc = rt_depgraph_create(t, &ob.g, err)))
        goto out;
    for (size_t i = 0; i < nregions; i++) {
        uint32_t id = rt_trace_find_region(t, regions[i]);
        if (id != RT_NONE && (rc = rt_region_stats_create(t, id, &ob.rs[i], err)))
            goto out;
    }
    struct rt_replay_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.ud = &ob;
    obs.on_dep = on_dep;
    obs.on_event = nregions ? on_event : NULL;
    struct rt_replay_options ow = *o; /* with this trace's window */
    if ((rc = rt_window_open(t, window, &win, err)) || (scale && (rc = rt_scale_open(t, scale, &sc, err))))
        goto out;
    ow.window = win;
    ow.scale = sc;
    rt_depgraph_set_scale(ob.g, sc);
    rt_depgraph_set_window(ob.g, win);
    if ((rc = rt_replay_run(t, &ow, &obs, &res, err)))
        goto out;
    rt_depgraph_cut(ob.g, res->cut_event); /* a run that stopped early: up to where it stopped */
    if ((rc = rt_depgraph_check(ob.g, err)))
        goto out;
    if (rt_depgraph_end(ob.g) != res->predicted_ps) {
        rc = rt_error_set(err, RT_EINVAL, "%s: dependency graph ends at %lld ps, the replay at %lld ps",
                          rt_trace_path(t), (long long)rt_depgraph_end(ob.g), (long long)res->predicted_ps);
        goto out;
    }
    int inwin = res->window && res->window_ranks; /* the window's span, else the whole run's */
    m->predicted_ps = inwin ? res->window_predicted_ps : res->predicted_ps;
    m->measured_ns = inwin ? res->window_measured_ns : res->measured_ns;
    if ((rc = rt_depgraph_critical_path(ob.g, &cp, err)))
        goto out;
    for (int k = 0; k < CHECK_NACT; k++)
        m->act_pct[k] = cp->length_ps ? check_round3(100.0 * (double)cp->activity_ps[k] / (double)cp->length_ps) : 0;
    if ((rc = callsite_shares(t, cp, source_root, m, err)))
        goto out;
    for (size_t i = 0; i < nregions; i++) {
        const struct rt_region_instance *inst;
        uint64_t n = 0;
        double sum = 0;
        if (!ob.rs[i])
            continue;
        if ((rc = rt_region_stats_instances(ob.rs[i], &inst, &n, err)))
            goto out;
        for (uint64_t j = 0; j < n; j++)
            sum += inst[j].predicted_mean_ns;
        m->regions[i].instances = n;
        m->regions[i].mean_ns = n ? check_round_ps(sum / (double)n) : 0;
    }
out:
    for (size_t i = 0; i < nregions && ob.rs; i++)
        rt_region_stats_destroy(ob.rs[i]);
    free(ob.rs);
    rt_depgraph_destroy(ob.g);
    rt_window_free(win);
    rt_scale_free(sc);
    rt_replay_result_destroy(res);
    rt_trace_close(t);
    return rc;
}
