/* SPDX-License-Identifier: MIT */
/*
 * retime predict tradeoff --traces: the Shift-or-Team-Shift answer from replays. Each trace is
 * a run of the shift benchmark (its `shift.txt` beside the archive says the algorithm, team size
 * c, k, m1, dims and mode); it is replayed under Hockney with the tradeoff's α and β and compute
 * scale 0 (communication only, as the closed forms), and its time per iteration is the mean over
 * the `shift_iteration` instances of the slowest rank's time (the team leader's, which the
 * closed form gives). The comparison with the closed form and the crossovers are predict_team.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "predict.h"
#include "retime/region_stats.h"
#include "retime/replay.h"

#define HEADER_MAX 512

void tradeoff_replays_free(struct tradeoff_replays *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->pt[i].path);
    free(r->pt);
    memset(r, 0, sizeof *r);
}

/* The value of "key=" in the shift.txt header @p h as a string (into @p buf), or NULL. */
static const char *header_value(const char *h, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = h; (p = strstr(p, key)); p += kl) {
        if ((p != h && p[-1] != ' ') || p[kl] != '=')
            continue;
        const char *v = p + kl + 1;
        size_t len = strcspn(v, " \n");
        if (len >= n)
            return NULL;
        memcpy(buf, v, len);
        buf[len] = 0;
        return buf;
    }
    return NULL;
}

static int header_long(const char *h, const char *key, long *out)
{
    char buf[32], *end;
    if (!header_value(h, key, buf, sizeof buf))
        return -1;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || *end || end == buf)
        return -1;
    *out = v;
    return 0;
}

/* Whether @p dir holds a benchmark run: DIR/shift.txt and DIR/traces.otf2. */
static int is_run(const char *dir)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/shift.txt", dir);
    if (stat(p, &st) || !S_ISREG(st.st_mode))
        return 0;
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

static void skip(struct tradeoff_replays *r, const char *dir, const char *why)
{
    r->skipped++;
    if (r->skipped == 1) /* the first one named, the others counted */
        snprintf(r->first_skip, sizeof r->first_skip, "%s (%s)", dir, why);
}

/* Replays the run in @p dir, if it is one of the tradeoff's (ssend, the dims and m1 asked). */
static int add_run(struct tradeoff_replays *r, const char *dir, const struct predict_common *p, rt_error *err)
{
    char path[4200], h[HEADER_MAX], mode[16], alg[32];
    snprintf(path, sizeof path, "%s/shift.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_error_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    int got = fgets(h, sizeof h, f) != NULL;
    fclose(f);
    long dims, k, P, m1, c = 1;
    if (!got || strncmp(h, "# shift: ", 9) || header_long(h, "dims", &dims) || header_long(h, "k", &k) ||
        header_long(h, "P", &P) || header_long(h, "m1", &m1) || !header_value(h, "mode", mode, sizeof mode))
        return rt_error_set(err, RT_EINVAL, "%s: line 1 is not the shift benchmark's header "
                                             "('# shift: dims=D ... P=N mode=M k=K m1=B ...')", path);
    if (header_value(h, "algorithm", alg, sizeof alg) && !strcmp(alg, "team-shift") && header_long(h, "team", &c))
        return rt_error_set(err, RT_EINVAL, "%s: a team-shift run without team=C in line 1", path);
    if (dims != p->dims) {
        skip(r, dir, "other dims");
        return RT_OK;
    }
    if ((uint64_t)m1 != p->m1) {
        skip(r, dir, "other m1");
        return RT_OK;
    }
    if (strcmp(mode, "ssend")) {
        skip(r, dir, "isend: the tradeoff compares the ssend algorithms");
        return RT_OK;
    }
    if (k < 1 || c < 1 || P < 1 || k > 1000000 || c > 1000000)
        return rt_error_set(err, RT_EINVAL, "%s: k=%ld c=%ld P=%ld out of range", path, k, c, P);

    int rc;
    rt_trace *t = NULL;
    rt_region_stats *rs = NULL;
    struct rt_replay_result *res = NULL;
    struct rt_replay_options o;
    struct rt_model_params par = {.alpha_ns = p->alpha, .beta_ns_per_byte = p->beta};
    rt_replay_options_default(&o);
    o.compute_scale = 0;
    if ((rc = rt_model_init(&o.model, "hockney", &par, err)) || (rc = rt_trace_open(dir, &t, err)))
        goto out;
    uint32_t reg = rt_trace_find_region(t, "shift_iteration");
    if (reg == RT_NONE) {
        rc = rt_error_set(err, RT_EINVAL, "%s: no shift_iteration region: not a shift benchmark run",
                          rt_trace_path(t));
        goto out;
    }
    struct rt_replay_observer obs = {0};
    if ((rc = rt_region_stats_create(t, reg, &rs, err)))
        goto out;
    obs.ud = rs;
    obs.on_event = rt_region_stats_on_event;
    if ((rc = rt_replay_run(t, &o, &obs, &res, err)))
        goto out;
    const struct rt_region_instance *inst;
    uint64_t n;
    if ((rc = rt_region_stats_instances(rs, &inst, &n, err)))
        goto out;
    if (!n) {
        rc = rt_error_set(err, RT_EINVAL, "%s: no complete shift_iteration", rt_trace_path(t));
        goto out;
    }
    double sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += inst[i].predicted_max_ns;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct tradeoff_point *pt = realloc(r->pt, cap * sizeof *pt);
        if (!pt) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto out;
        }
        r->pt = pt;
        r->cap = cap;
    }
    struct tradeoff_point *q = &r->pt[r->n];
    memset(q, 0, sizeof *q);
    if (!(q->path = strdup(dir))) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto out;
    }
    q->c = (int)c;
    q->k = (int)k;
    q->ranks = (long)rt_trace_ranks(t);
    q->iterations = n;
    q->ns = sum / (double)n;
    r->n++;
out:
    rt_replay_result_destroy(res);
    rt_region_stats_destroy(rs);
    rt_trace_close(t);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tradeoff_replays_add(struct tradeoff_replays *r, const char *dir, const struct predict_common *p, rt_error *err)
{
    if (is_run(dir))
        return add_run(r, dir, p, err);
    /* A directory of runs: its subdirectories that are runs, in name order (deterministic). */
    DIR *d = opendir(dir);
    if (!d)
        return rt_error_set(err, RT_EIO, "--traces %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = RT_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (!is_run(sub))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                goto out;
            }
            names = nn;
        }
        if (!(names[n] = strdup(sub))) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto out;
        }
        n++;
    }
    if (!n) {
        rc = rt_error_set(err, RT_ENOTFOUND, "--traces %s: neither a shift benchmark run (shift.txt and traces.otf2) "
                                          "nor a directory of them", dir);
        goto out;
    }
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n && !rc; i++)
        rc = add_run(r, names[i], p, err);
out:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

const struct tradeoff_point *tradeoff_replays_find(const struct tradeoff_replays *r, int c, int k)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->pt[i].c == c && r->pt[i].k == k)
            return &r->pt[i];
    return NULL;
}
