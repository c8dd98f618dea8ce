/* SPDX-License-Identifier: MIT */
/* retime check: a CI gate on stored traces. Replays them under the model settings a baseline
 * file records, compares predicted times and critical-path composition with the baseline and
 * fails beyond a tolerance (exit 1, with a diff and optionally JUnit XML); --update rewrites the
 * baseline. docs/check.md describes the command and the file. */
/* realpath is declared for X/Open (SUSv4) in glibc's headers; the target asks for POSIX only. */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "outfile.h"
#include "progress.h"
#include "retime/depgraph.h"
#include "retime/units.h"

/* A usage error: printed like every error, exit status 2. */
#define USAGE(...) ((void)cli_die(__VA_ARGS__), 2)

#define MAX_REGIONS 64

struct check_cli {
    const char **ops; /* TRACE operands */
    size_t nops;
    const char *baseline, *junit;
    const char *name; /* --name: the key in the baseline of the TRACEs, runs of one program */
    const char *tol_text, *share_text;
    double tol_pct;  /* --tolerance, percent of the baseline's time */
    double share_pp; /* --share-tolerance, percentage points */
    int update, allow_changes, model_given, tol_given, share_given;
    const char *window; /* --window, or NULL: the baseline's (mpi for a new one) */
    const char *source_root; /* --source-root DIR: call-site paths relative to it (NULL: their common prefix) */
    struct model_cli model;
    const char *regions[MAX_REGIONS];
    size_t nregions;
};

/* "5%" or "2pp": a number from 0 to @p max written with digits, then @p suffix. */
/* Whether a trace is the baseline's: its fingerprint with call-site files relative to their
 * common directory, or, for a baseline written before that, with absolute files. */
static int same_fingerprint(const struct check_trace *base, const struct check_trace *now)
{
    if (base->untimed)
        return base->fingerprint == now->fingerprint;
    return base->fingerprint == now->fingerprint_timed || base->fingerprint == now->fingerprint_abs;
}

static int parse_suffixed(const char *v, const char *suffix, double max, double *out)
{
    char num[64];
    rt_error e = {0};
    size_t n = v ? strlen(v) : 0, sl = strlen(suffix);
    if (n <= sl || n - sl >= sizeof num || strcmp(v + n - sl, suffix) != 0 || !strchr("0123456789.", v[0]))
        return -1;
    memcpy(num, v, n - sl);
    num[n - sl] = '\0';
    if (strspn(num, "0123456789.eE+-") != n - sl) /* no hex, no inf or nan */
        return -1;
    double x;
    if (rt_parse_number(num, &x, &e) || !(x >= 0) || x > max)
        return -1;
    *out = x;
    return 0;
}

static int parse_check(struct args *a, struct check_cli *c)
{
    memset(c, 0, sizeof *c);
    model_cli_init(&c->model);
    c->tol_pct = 5;
    c->share_pp = 2;
    c->tol_text = "5%";
    c->share_text = "2pp";
    if (!(c->ops = calloc((size_t)a->argc, sizeof *c->ops)))
        return cli_die("out of memory");
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *arg = a->argv[a->i], *v;
        if (cli_opt(a, "--source-root", &v)) {
            if (!v || !*v)
                return USAGE("--source-root needs a DIR");
            c->source_root = v;
            continue;
        }
        if (cli_opt(a, "--window", &v)) { /* not a model option: the baseline's window applies otherwise */
            rt_error e = {0};
            if (!v || rt_window_check(v, &e))
                return USAGE("--window: %s", v ? e.msg : "needs all, mpi, region:NAME[#FROM-TO] or time:T1-T2");
            c->window = v;
            continue;
        }
        int m = model_cli_option(a, &c->model);
        if (m < 0)
            return 2;
        if (m > 0) {
            c->model_given = 1;
            continue;
        }
        if (cli_opt(a, "--baseline", &v)) {
            if (!v || !*v)
                return USAGE("--baseline needs a FILE");
            c->baseline = v;
        } else if (cli_opt(a, "--tolerance", &v)) {
            if (parse_suffixed(v, "%", 1e6, &c->tol_pct))
                return USAGE("bad --tolerance '%s' (a percentage of the baseline's time, 0%% or more, e.g. 5%%)",
                             v ? v : "");
            c->tol_text = v;
            c->tol_given = 1;
        } else if (cli_opt(a, "--share-tolerance", &v)) {
            if (parse_suffixed(v, "pp", 100, &c->share_pp))
                return USAGE("bad --share-tolerance '%s' (percentage points from 0pp to 100pp, e.g. 2pp)", v ? v : "");
            c->share_text = v;
            c->share_given = 1;
        } else if (cli_opt(a, "--name", &v)) {
            /* stored as the entry's "path": the same rules (relative, '/'-separated) */
            if (!v || !*v || v[0] == '/' || v[strlen(v) - 1] == '/' || strstr(v, "//"))
                return USAGE("--name needs a NAME (letters, digits, '/' between parts, e.g. solver or ci/solver)");
            c->name = v;
        } else if (cli_opt(a, "--junit", &v)) {
            if (!v || !*v)
                return USAGE("--junit needs a FILE");
            c->junit = v;
        } else if (cli_opt(a, "--region", &v)) {
            if (!v || !*v)
                return USAGE("--region needs a region name");
            if (c->nregions == MAX_REGIONS)
                return USAGE("--region: at most %d regions", MAX_REGIONS);
            for (size_t i = 0; i < c->nregions; i++)
                if (!strcmp(c->regions[i], v))
                    return USAGE("--region '%s' given twice", v);
            c->regions[c->nregions++] = v;
        } else if (!strcmp(arg, "--update")) {
            c->update = 1;
        } else if (!strcmp(arg, "--allow-trace-changes")) {
            c->allow_changes = 1;
        } else if (arg[0] == '-' && arg[1]) {
            return USAGE("unknown option '%s' for check", arg);
        } else {
            c->ops[c->nops++] = arg;
        }
    }
    if (!c->baseline)
        return USAGE("check needs --baseline FILE");
    if (c->name && c->nops == 0)
        return USAGE("--name needs a TRACE (or several: runs of one program, judged by their median)");
    if (c->update) {
        const char *bad = c->junit ? "--junit" : c->tol_given ? "--tolerance" : c->share_given ? "--share-tolerance"
                        : c->allow_changes ? "--allow-trace-changes" : NULL;
        if (bad)
            return USAGE("%s is for checking; --update records the predictions without comparing", bad);
    } else if (c->nregions) {
        return USAGE("--region is recorded with --update; a check uses the baseline's regions");
    }
    return 0;
}

/* ------------------------------------------------------------------ paths */

/* @p abs (absolute) without ".", ".." and repeated '/'. */
static char *normalise(const char *abs)
{
    char *out = malloc(strlen(abs) + 2);
    size_t len = 0;
    if (!out)
        return NULL;
    for (const char *p = abs; *p;) {
        while (*p == '/')
            p++;
        size_t cl = strcspn(p, "/");
        if (cl == 0 || (cl == 1 && p[0] == '.')) {
            /* nothing */
        } else if (cl == 2 && p[0] == '.' && p[1] == '.') {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;
        } else {
            out[len++] = '/';
            memcpy(out + len, p, cl);
            len += cl;
        }
        p += cl;
    }
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    return out;
}

/* The absolute path of @p p: symbolic links resolved where it exists, lexically otherwise. */
static char *resolved_path(const char *p)
{
    char *r = realpath(p, NULL), cwd[PATH_MAX];
    if (r || p[0] == '/')
        return r ? r : normalise(p);
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    size_t n = strlen(cwd) + strlen(p) + 2;
    char *t = malloc(n);
    if (!t)
        return NULL;
    snprintf(t, n, "%s/%s", cwd, p);
    r = normalise(t);
    free(t);
    return r;
}

/* The absolute path of trace operand @p p with the directories it goes through resolved, as the
 * baseline's directory is, but its own name (or its directory's, for DIR/traces.otf2) as given:
 * a trace reached through a symbolic link keeps the link's name, which its baseline entry has. */
static char *abs_path(const char *p)
{
    size_t base, nlen;
    rt__path_last(p, &base, &nlen);
    const char *name = p + base;
    if (!nlen || (nlen == 1 && name[0] == '.') || (nlen == 2 && name[0] == '.' && name[1] == '.'))
        return resolved_path(p);
    char *dir = base ? strndup(p, base) : strdup(".");
    char *rdir = NULL, *out = NULL;
    if (dir && (nlen == 11 && !strncmp(name, "traces.otf2", 11) && base > 0))
        rdir = abs_path(dir); /* DIR/traces.otf2: DIR keeps its name */
    else if (dir)
        rdir = resolved_path(dir);
    if (rdir && (out = malloc(strlen(rdir) + nlen + 2)))
        snprintf(out, strlen(rdir) + nlen + 2, "%s%s%.*s", rdir, strcmp(rdir, "/") ? "/" : "", (int)nlen, name);
    free(dir);
    free(rdir);
    return out;
}

static size_t split(char *s, char **comp)
{
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, "/", &save); t; t = strtok_r(NULL, "/", &save))
        comp[n++] = t;
    return n;
}

/* @p abs relative to the directory @p base (both absolute and normalised): "a/b", "../x", ".". */
static char *rel_path(const char *abs, const char *base)
{
    char *a = strdup(abs), *b = strdup(base), *out = NULL;
    char **ca = calloc(strlen(abs) + 1, sizeof *ca), **cb = calloc(strlen(base) + 1, sizeof *cb);
    if (a && b && ca && cb) {
        size_t na = split(a, ca), nb = split(b, cb), c = 0, o = 0;
        while (c < na && c < nb && !strcmp(ca[c], cb[c]))
            c++;
        size_t n = 3 * (nb - c) + strlen(abs) + 2;
        if ((out = malloc(n))) {
            for (size_t i = c; i < nb; i++)
                o += (size_t)snprintf(out + o, n - o, "%s..", o ? "/" : "");
            for (size_t i = c; i < na; i++)
                o += (size_t)snprintf(out + o, n - o, "%s%s", o ? "/" : "", ca[i]);
            if (!o)
                snprintf(out, n, ".");
        }
    }
    free(a);
    free(b);
    free(ca);
    free(cb);
    return out;
}

static char *join(const char *dir, const char *name)
{
    if (!strcmp(dir, "."))
        return strdup(name);
    size_t n = strlen(dir) + strlen(name) + 2;
    char *r = malloc(n);
    if (r)
        snprintf(r, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return r;
}

static int is_trace_dir(const char *dir)
{
    struct stat st;
    char *anchor = join(dir, "traces.otf2");
    int ok = anchor && stat(anchor, &st) == 0 && S_ISREG(st.st_mode);
    free(anchor);
    return ok;
}

/* ------------------------------------------------------------------ what is checked */

enum verdict { V_PASS, V_FAIL, V_ERROR, V_SKIP };

/* One trace to check (or a baseline entry that is not checked), and its result. */
struct target {
    char *key;                      /* path relative to the baseline's directory: the trace's name */
    char *open;                     /* the path rt_trace_open gets */
    int exists;                     /* 0: nothing at that path */
    int skip;                       /* a baseline entry that no TRACE operand covers */
    const struct check_trace *base; /* its baseline entry, or NULL */
    const char **runs;              /* --name with several TRACEs: every run's path (open is the first) */
    size_t nruns;                   /* 0: one trace, at open */
    size_t median;                  /* the run whose measures are now's (runs[median]) */
    rt_time_ps run_lo, run_hi;      /* the runs' least and greatest predicted total */
    struct check_trace now;         /* measured, when measured is set (of the median run) */
    int measured;
    rt_error err;                   /* why it could not be measured */
    enum verdict verdict;
    char *kinds;  /* failure types for JUnit ("prediction", "trace changed", ...) */
    char *reason; /* one line */
    char *detail; /* diff table and notes, lines indented by 6 spaces; may be NULL */
    double seconds;
};

struct tlist {
    struct target *v;
    size_t n, cap;
};

static struct target *tl_add(struct tlist *l, char *key, char *open, int exists)
{
    if (!key || !open)
        goto nomem;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        struct target *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            goto nomem;
        l->v = v;
        l->cap = cap;
    }
    struct target *t = &l->v[l->n++];
    memset(t, 0, sizeof *t);
    t->key = key;
    t->open = open;
    t->exists = exists;
    return t;
nomem:
    free(key);
    free(open);
    return NULL;
}

static void tl_free(struct tlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct target *t = &l->v[i];
        free(t->key);
        free(t->open);
        free(t->kinds);
        free(t->reason);
        free(t->detail);
        free(t->runs);
        check_trace_free(&t->now);
    }
    free(l->v);
}

static int cmp_target(const void *a, const void *b)
{
    return strcmp(((const struct target *)a)->key, ((const struct target *)b)->key);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct check_trace *find_entry(const struct check_baseline *b, const char *key)
{
    size_t lo = 0, hi = b->ntraces;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(b->traces[mid].path, key);
        if (c == 0)
            return &b->traces[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The subdirectories of @p dir that hold a trace, as targets named PREFIX/NAME. */
static int add_collection(struct tlist *l, const char *dir, const char *prefix, rt_error *err)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = RT_OK;
    if (!d)
        return rt_error_set(err, RT_EIO, "%s: cannot read directory: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = join(dir, e->d_name);
        int yes = sub && is_trace_dir(sub);
        free(sub);
        if (!yes)
            continue;
        if (n == cap) {
            char **v = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!v) {
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                break;
            }
            names = v;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (n) /* qsort's array must not be NULL, even for no elements */
        qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == RT_OK && !tl_add(l, join(prefix, names[i]), join(dir, names[i]), 1))
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        free(names[i]);
    }
    free(names);
    return rc;
}

static int covered(const char *key, char *const *cover, size_t ncover)
{
    for (size_t i = 0; i < ncover; i++) {
        size_t n = strlen(cover[i]);
        if (!strcmp(cover[i], ".") ? strncmp(key, "../", 3) != 0 : !strncmp(key, cover[i], n) && key[n] == '/')
            return 1;
    }
    return 0;
}

static int covers_entry(const struct check_baseline *b, const char *prefix)
{
    char *const cover[1] = {(char *)prefix};
    for (size_t i = 0; i < b->ntraces; i++)
        if (covered(b->traces[i].path, cover, 1))
            return 1;
    return 0;
}

/*
 * The traces to check, named by their path relative to the baseline's directory and sorted:
 * each TRACE operand that is a trace (a directory holding traces.otf2, or an anchor file), the
 * traces one level down in each operand directory that is not itself a trace, or with no
 * operands every trace of the baseline. Baseline entries inside an operand directory that are
 * not found there are missing; entries no operand covers are not checked. A directory with no
 * trace in it and no baseline entry under it is checked as a trace (and fails to open).
 */
static int collect(const struct check_cli *c, const struct check_baseline *b, const char *base_abs,
                   const char *base_disp, struct tlist *l, rt_error *err)
{
    char **cover = calloc(c->nops + 1, sizeof *cover);
    size_t ncover = 0;
    int rc = RT_OK;
    if (!cover)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    for (size_t i = 0; i < b->ntraces && !c->nops; i++) {
        char *open = join(base_disp, b->traces[i].path);
        struct stat st;
        if (!tl_add(l, strdup(b->traces[i].path), open, open && stat(open, &st) == 0)) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto out;
        }
    }
    for (size_t i = 0; i < c->nops; i++) {
        const char *op = c->ops[i];
        struct stat st;
        char *abs = abs_path(op);
        if (!abs) {
            rc = rt_error_set(err, RT_ENOMEM, "%s: cannot resolve the path", op);
            goto out;
        }
        int exists = stat(op, &st) == 0;
        if (c->name) { /* runs of one program, known by the name given: traced anew on every run */
            free(abs);
            if (exists && S_ISDIR(st.st_mode) && !is_trace_dir(op)) {
                rc = rt_error_set(err, RT_EINVAL, "--name: %s is a directory of traces, not one trace", op);
                goto out;
            }
            struct target *t = i ? &l->v[l->n - 1] : tl_add(l, strdup(c->name), strdup(op), exists);
            if (!t || (c->nops > 1 && !t->runs && !(t->runs = calloc(c->nops, sizeof *t->runs)))) {
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                goto out;
            }
            if (t->runs)
                t->runs[t->nruns++] = op;
            if (!exists && t->exists) { /* a run that is missing is the one the report names */
                free(t->open);
                t->exists = 0;
                if (!(t->open = strdup(op))) {
                    rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                    goto out;
                }
            }
            continue;
        }
        if (exists && S_ISDIR(st.st_mode) && !is_trace_dir(op)) {
            /* A directory of traces is resolved whole, as the baseline's directory is (it is often
             * the same one): only a trace keeps the name of the link it is reached through. */
            free(abs);
            char *rabs = resolved_path(op);
            char *prefix = rabs ? rel_path(rabs, base_abs) : NULL;
            free(rabs);
            if (!prefix) {
                rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                goto out;
            }
            size_t before = l->n;
            cover[ncover++] = prefix;
            if ((rc = add_collection(l, op, prefix, err)))
                goto out;
            if (l->n == before && !covers_entry(b, prefix)) {
                /* Neither a trace nor a directory of traces, nor where the baseline's are:
                 * most likely a trace that lost its anchor file. Opening it says what is
                 * wrong, as an error of that trace. */
                cover[--ncover] = NULL;
                if (!tl_add(l, prefix, strdup(op), 1)) {
                    rc = rt_error_set(err, RT_ENOMEM, "out of memory");
                    goto out;
                }
            }
            continue;
        }
        if (exists && !S_ISDIR(st.st_mode)) { /* DIR/traces.otf2 is named DIR */
            char *slash = strrchr(abs, '/');
            if (slash && !strcmp(slash + 1, "traces.otf2"))
                *(slash == abs ? slash + 1 : slash) = '\0';
        }
        char *key = rel_path(abs, base_abs);
        free(abs);
        if (!tl_add(l, key, strdup(op), exists)) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto out;
        }
    }
    /* One target per name: a trace given twice (or as directory and anchor) is checked once. */
    if (l->n)
        qsort(l->v, l->n, sizeof *l->v, cmp_target);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (k && !strcmp(l->v[k - 1].key, l->v[i].key)) {
            free(l->v[i].key);
            free(l->v[i].open);
            continue;
        }
        l->v[k++] = l->v[i];
    }
    l->n = k;
    for (size_t i = 0; i < l->n; i++)
        l->v[i].base = find_entry(b, l->v[i].key);
    for (size_t i = 0; i < b->ntraces && c->nops; i++) {
        const struct check_trace *e = &b->traces[i];
        int found = 0;
        for (size_t j = 0; j < l->n && !found; j++)
            found = l->v[j].base == e;
        if (found)
            continue;
        struct target *t = tl_add(l, strdup(e->path), join(base_disp, e->path), 0);
        if (!t) {
            rc = rt_error_set(err, RT_ENOMEM, "out of memory");
            goto out;
        }
        t->base = e;
        t->skip = !covered(e->path, cover, ncover);
    }
    if (l->n)
        qsort(l->v, l->n, sizeof *l->v, cmp_target);
out:
    for (size_t i = 0; i < ncover; i++)
        free(cover[i]);
    free(cover);
    return rc;
}

/* ------------------------------------------------------------------ comparing */

/* A time in ns with 7 significant digits and a fitting unit ("11.526us"); @p sign: "+" first. */
static char *fmt_ns(char *buf, size_t n, double ns, int sign)
{
    double a = fabs(ns), d = a < 1e3 ? 1 : a < 1e6 ? 1e3 : a < 1e9 ? 1e6 : 1e9;
    const char *u = a < 1e3 ? "ns" : a < 1e6 ? "us" : a < 1e9 ? "ms" : "s";
    snprintf(buf, n, sign ? "%+.7g%s" : "%.7g%s", ns / d, u);
    return buf;
}

struct row {
    char what[1100];
    char base[40], now[40], delta[40], change[24], note[48];
    int fail;
};

struct rows {
    struct row *v;
    size_t n, cap;
    int oom; /* a row could not be kept: the verdict must not rest on the table */
};

static void row_push(struct rows *r, const struct row *row)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct row *v = realloc(r->v, cap * sizeof *v);
        if (!v) {
            r->oom = 1;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = *row;
}

/* What makes a trace fail: kinds for JUnit, and the first few reasons for the one-line summary. */
struct why {
    char kinds[128];
    char text[600];
    int n, more;
};

static void why_add(struct why *w, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why_add(struct why *w, const char *kind, const char *fmt, ...)
{
    if (!strstr(w->kinds, kind)) {
        size_t len = strlen(w->kinds);
        snprintf(w->kinds + len, sizeof w->kinds - len, "%s%s", len ? ", " : "", kind);
    }
    if (w->n == 3) {
        w->more++;
        return;
    }
    size_t len = strlen(w->text);
    if (len)
        len += (size_t)snprintf(w->text + len, sizeof w->text - len, "; ");
    va_list ap;
    va_start(ap, fmt);
    if (len < sizeof w->text)
        vsnprintf(w->text + len, sizeof w->text - len, fmt, ap);
    va_end(ap);
    w->n++;
}

/* A time row: relative change against --tolerance. */
static void time_row(struct rows *rs, struct why *w, const struct check_cli *c, const char *what, double base,
                     double now)
{
    struct row row, *r = &row;
    memset(r, 0, sizeof *r);
    snprintf(r->what, sizeof r->what, "%s", what);
    fmt_ns(r->base, sizeof r->base, base, 0);
    fmt_ns(r->now, sizeof r->now, now, 0);
    fmt_ns(r->delta, sizeof r->delta, now - base, 1);
    double rel = base != 0 ? 100.0 * (now - base) / base : now == base ? 0 : INFINITY;
    if (isfinite(rel))
        snprintf(r->change, sizeof r->change, "%+.2f%%", rel);
    else
        snprintf(r->change, sizeof r->change, "n/a");
    /* A relative change at the tolerance passes; 1e-9 keeps rounding from deciding it. */
    if (fabs(rel) > c->tol_pct + 1e-9) {
        r->fail = 1;
        snprintf(r->note, sizeof r->note, "FAIL (> %s)", c->tol_text);
        why_add(w, "prediction", "%s %s (> %s)", what, r->change, c->tol_text);
    }
    row_push(rs, r);
}

/* A share row: change in percentage points against --share-tolerance. */
static void share_row(struct rows *rs, struct why *w, const struct check_cli *c, const char *what, double base,
                      double now)
{
    struct row row, *r = &row;
    memset(r, 0, sizeof *r);
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->base, sizeof r->base, "%.3f%%", base);
    snprintf(r->now, sizeof r->now, "%.3f%%", now);
    double d = check_round3(now - base);
    snprintf(r->delta, sizeof r->delta, "%+.3fpp", d);
    if (fabs(d) > c->share_pp + 1e-9) {
        r->fail = 1;
        snprintf(r->note, sizeof r->note, "FAIL (> %s)", c->share_text);
        why_add(w, "composition", "%s %+.3fpp (> %s)", what, d, c->share_text);
    }
    row_push(rs, r);
}

static int has_label(const struct check_trace *t, const char *label)
{
    for (size_t i = 0; i < t->ncallsites; i++)
        if (!strcmp(t->callsites[i].label, label))
            return 1;
    return 0;
}

static double share_of(const struct check_trace *t, const char *label)
{
    for (size_t i = 0; i < t->ncallsites; i++)
        if (!strcmp(t->callsites[i].label, label))
            return t->callsites[i].pct;
    return 0;
}

/* A call-site label for the diff table: the source file without its directories
 * ("hop_ssend shift.c:288 (MPI_Recv)"); the baseline keeps the whole label. */
static void short_label(char *buf, size_t n, const char *label)
{
    const char *colon = strrchr(label, ':'), *slash = NULL;
    for (const char *p = label; colon && p < colon; p++)
        if (*p == '/')
            slash = p;
    if (!slash) {
        snprintf(buf, n, "%s", label);
        return;
    }
    const char *space = slash;
    while (space > label && *space != ' ')
        space--;
    snprintf(buf, n, "%.*s%s", (int)(space > label ? space - label + 1 : 0), label, slash + 1);
}

struct cs_cmp {
    const char *label;
    double base, now;
};

static int cmp_cs(const void *a, const void *b)
{
    const struct cs_cmp *x = a, *y = b;
    double mx = fmax(x->base, x->now), my = fmax(y->base, y->now);
    return mx < my ? 1 : mx > my ? -1 : strcmp(x->label, y->label);
}

static void print_rows(FILE *f, const struct rows *rs, size_t hidden)
{
    size_t w = 20;
    for (size_t i = 0; i < rs->n; i++)
        if (strlen(rs->v[i].what) > w)
            w = strlen(rs->v[i].what);
    if (w > 56)
        w = 56;
    fprintf(f, "      %-*s %12s %12s %12s %8s\n", (int)w, "", "baseline", "now", "delta", "change");
    for (size_t i = 0; i < rs->n; i++) {
        const struct row *r = &rs->v[i];
        char line[1400];
        int len = snprintf(line, sizeof line, "      %-*s %12s %12s %12s %8s%s%s", (int)w, r->what, r->base, r->now,
                           r->delta, r->change, r->note[0] ? "  " : "", r->note);
        while (len > 0 && (size_t)len < sizeof line && line[len - 1] == ' ')
            line[--len] = '\0';
        fprintf(f, "%s\n", line);
    }
    if (hidden)
        fprintf(f, "      (%zu call site%s on the critical path within tolerance)\n", hidden, hidden == 1 ? "" : "s");
}

/* What every trace of a check is measured with (check_measure's arguments but the trace's). */
struct measure_with {
    const struct rt_replay_options *opts;
    const char *window, *scale, *source_root;
    const char *const *regions;
    size_t nregions;
};

static int cmp_run(const void *a, const void *b)
{
    const struct check_trace *x = *(const struct check_trace *const *)a, *y = *(const struct check_trace *const *)b;
    return x->predicted_ps < y->predicted_ps ? -1 : x->predicted_ps > y->predicted_ps ? 1 : x < y ? -1 : x > y;
}

/* Measures @p t into t->now. Several runs of one program (--name with several TRACEs) are each
 * replayed, and the run whose predicted total is their median (the lower one of an even number)
 * stands for them all, whole (its regions and critical path too, so its shares add up): one run
 * that the machine slowed, before or now, then moves no verdict. The runs must have done the same
 * communication (fingerprint, ranks, events) unless @p allow_changes. On failure t->err. */
static int measure_target(struct target *t, const struct measure_with *mw, int allow_changes)
{
    size_t n = t->nruns ? t->nruns : 1;
    struct check_trace *m = calloc(n, sizeof *m), **by = calloc(n, sizeof *by);
    int rc = RT_OK;
    if (!m || !by) {
        rc = rt_error_set(&t->err, RT_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const char *open = t->nruns ? t->runs[i] : t->open;
        if ((rc = check_measure(open, t->key, mw->opts, mw->window, mw->scale, mw->source_root, mw->regions,
                                mw->nregions, &m[i], &t->err)))
            goto out;
        if (i && !allow_changes &&
            (m[i].fingerprint != m[0].fingerprint || m[i].ranks != m[0].ranks || m[i].events != m[0].events)) {
            rc = rt_error_set(&t->err, RT_EINVAL,
                              "%s: not a run of the same program as %s (fingerprint %s%016" PRIx64 " -> %016" PRIx64
                              ", ranks %u -> %u, events %" PRIu64 " -> %" PRIu64 "): --name judges runs of one"
                              " program by their median",
                              open, t->runs[0], check_fp_prefix(1), m[0].fingerprint, m[i].fingerprint, m[0].ranks,
                              m[i].ranks, m[0].events, m[i].events);
            goto out;
        }
        by[i] = &m[i];
    }
    qsort(by, n, sizeof *by, cmp_run);
    t->median = (size_t)(by[(n - 1) / 2] - m);
    t->run_lo = by[0]->predicted_ps;
    t->run_hi = by[n - 1]->predicted_ps;
    t->now = m[t->median];
    memset(&m[t->median], 0, sizeof m[t->median]); /* moved */
out:
    for (size_t i = 0; m && i < n; i++)
        check_trace_free(&m[i]);
    free(m);
    free(by);
    return rc;
}

/* "median of 3 runs (54.58ms to 56.49ms, 3.4 % apart)" for a target of several runs, else "";
 * with ", more than the 5% tolerance" when they spread wider than @p tol_pct (< 0: none). */
static const char *runs_text(char *buf, size_t n, const struct target *t, double tol_pct, const char *tol_text)
{
    char lo[40], hi[40];
    buf[0] = '\0';
    if (t->nruns < 2)
        return buf;
    double med = (double)t->now.predicted_ps, apart = med > 0 ? 100.0 * (double)(t->run_hi - t->run_lo) / med : 0.0;
    int wide = tol_pct >= 0 && apart > tol_pct;
    snprintf(buf, n, "median of %zu runs (%s to %s, %.1f %% apart%s%s%s)", t->nruns,
             fmt_ns(lo, sizeof lo, (double)t->run_lo / 1e3, 0), fmt_ns(hi, sizeof hi, (double)t->run_hi / 1e3, 0), apart,
             wide ? ", more than the " : "", wide ? tol_text : "", wide ? " tolerance" : "");
    return buf;
}

/* Sets t->verdict, reason, kinds and detail. */
static void judge(struct target *t, const struct check_cli *c, const char *const *regions, size_t nregions)
{
    struct why w = {{0}, {0}, 0, 0};
    char a[40], b[40], what[1100];
    char *detail = NULL;
    size_t dlen = 0;
    FILE *f = open_memstream(&detail, &dlen);
    t->verdict = V_ERROR; /* until judged: out of memory must not read as a pass */
    if (!f)
        return;
    if (t->skip) {
        t->verdict = V_SKIP;
        why_add(&w, "not checked", "in the baseline, not among the TRACEs given: not checked");
    } else if (!t->exists) {
        t->verdict = V_FAIL;
        why_add(&w, "trace missing", "trace missing: no such file or directory: %s", t->open);
        if (t->nruns > 1)
            fprintf(f, "      a run of %zu given with --name; the others are not judged without it\n", t->nruns);
        else if (t->base)
            fprintf(f, "      the baseline has it (predicted %s); remove it with --update if it is gone for good\n",
                    fmt_ns(a, sizeof a, (double)t->base->predicted_ps / 1e3, 0));
        else
            fprintf(f, "      it is not in the baseline either\n");
    } else if (!t->measured) {
        t->verdict = V_ERROR;
        why_add(&w, "replay error", "%s", t->err.msg[0] ? t->err.msg : rt_strerror(t->err.code));
    } else if (!t->base) {
        t->verdict = V_FAIL;
        why_add(&w, "not in baseline", "not in the baseline (predicted %s); add it with --update",
                fmt_ns(a, sizeof a, (double)t->now.predicted_ps / 1e3, 0));
    } else {
        const struct check_trace *B = t->base, *N = &t->now;
        struct rows rs = {0};
        int changed = !same_fingerprint(B, N) || B->ranks != N->ranks || B->events != N->events;
        if (changed) {
            fprintf(f, "      trace changed since the baseline was recorded: fingerprint %s%016" PRIx64
                       " -> %s%016" PRIx64 "\n      (ranks %u -> %u, events %" PRIu64 " -> %" PRIu64
                       ", measured run %s -> %s)\n",
                    check_fp_prefix(B->untimed), B->fingerprint,
                    check_fp_prefix(B->untimed), B->untimed ? N->fingerprint : N->fingerprint_timed,
                    B->ranks, N->ranks, B->events, N->events,
                    fmt_ns(a, sizeof a, (double)B->measured_ns, 0), fmt_ns(b, sizeof b, (double)N->measured_ns, 0));
            if (!c->allow_changes)
                why_add(&w, "trace changed", "trace changed (fingerprint differs)");
        }
        time_row(&rs, &w, c, "predicted total", (double)B->predicted_ps / 1e3, (double)N->predicted_ps / 1e3);
        for (size_t i = 0; i < nregions; i++) {
            const struct check_region *rb = &B->regions[i], *rn = &N->regions[i];
            if (rb->instances != rn->instances) {
                struct row r;
                memset(&r, 0, sizeof r);
                snprintf(r.what, sizeof r.what, "region %s instances", regions[i]);
                snprintf(r.base, sizeof r.base, "%" PRIu64, rb->instances);
                snprintf(r.now, sizeof r.now, "%" PRIu64, rn->instances);
                snprintf(r.note, sizeof r.note, "FAIL");
                r.fail = 1;
                row_push(&rs, &r);
                why_add(&w, "prediction", "region %s: %" PRIu64 " instances, %" PRIu64 " in the baseline", regions[i],
                        rn->instances, rb->instances);
            } else if (rb->instances) {
                snprintf(what, sizeof what, "region %s mean", regions[i]);
                time_row(&rs, &w, c, what, rb->mean_ns, rn->mean_ns);
            }
        }
        for (int k = 0; k < CHECK_NACT; k++) {
            if (B->act_pct[k] == 0 && N->act_pct[k] == 0)
                continue; /* an activity on neither path says nothing */
            snprintf(what, sizeof what, "critical path %s", rt_activity_name(k));
            share_row(&rs, &w, c, what, B->act_pct[k], N->act_pct[k]);
        }
        /* Call sites: every one on either path is compared, largest first; the diff table
         * shows those that fail (they can be many). */
        struct cs_cmp *cs = calloc(B->ncallsites + N->ncallsites + 1, sizeof *cs);
        size_t ncs = 0, hidden = 0;
        rs.oom |= !cs;
        for (size_t i = 0; cs && i < B->ncallsites; i++)
            cs[ncs++] = (struct cs_cmp){B->callsites[i].label, B->callsites[i].pct, share_of(N, B->callsites[i].label)};
        for (size_t i = 0; cs && i < N->ncallsites; i++)
            if (!has_label(B, N->callsites[i].label))
                cs[ncs++] = (struct cs_cmp){N->callsites[i].label, 0, N->callsites[i].pct};
        if (cs && ncs)
            qsort(cs, ncs, sizeof *cs, cmp_cs);
        for (size_t i = 0; i < ncs; i++) {
            int fails = fabs(check_round3(cs[i].now - cs[i].base)) > c->share_pp + 1e-9;
            if (!fails) {
                hidden++;
                continue;
            }
            snprintf(what, sizeof what, "call site ");
            short_label(what + strlen(what), sizeof what - strlen(what), cs[i].label);
            share_row(&rs, &w, c, what, cs[i].base, cs[i].now);
        }
        free(cs);
        t->verdict = w.n ? V_FAIL : V_PASS;
        if (rs.oom) { /* never a pass on a comparison that could not be made */
            t->verdict = V_ERROR;
            snprintf(w.kinds, sizeof w.kinds, "replay error");
            snprintf(w.text, sizeof w.text, "out of memory comparing with the baseline");
            w.more = 0;
        } else if (t->verdict == V_FAIL) {
            if (t->nruns > 1)
                fprintf(f, "      now: the %s, that of %s\n", runs_text(what, sizeof what, t, c->tol_pct, c->tol_text),
                        t->runs[t->median]);
            print_rows(f, &rs, hidden);
        } else {
            double rel = B->predicted_ps ? 100.0 * (double)(N->predicted_ps - B->predicted_ps) / (double)B->predicted_ps
                                         : 0;
            snprintf(w.text, sizeof w.text, "predicted %s (baseline %s, %+.2f%%)%s%s%s",
                     fmt_ns(a, sizeof a, (double)N->predicted_ps / 1e3, 0),
                     fmt_ns(b, sizeof b, (double)B->predicted_ps / 1e3, 0), rel,
                     changed ? "; trace changed, allowed by --allow-trace-changes" : "", t->nruns > 1 ? "; " : "",
                     runs_text(what, sizeof what, t, c->tol_pct, c->tol_text));
        }
        free(rs.v);
    }
    if (w.more) {
        size_t len = strlen(w.text);
        snprintf(w.text + len, sizeof w.text - len, "; and %d more", w.more);
    }
    fclose(f);
    t->reason = strdup(w.text);
    t->kinds = strdup(w.kinds);
    if (dlen)
        t->detail = detail;
    else
        free(detail);
}

/* ------------------------------------------------------------------ JUnit */

/* Length of the valid UTF-8 sequence at @p p, or 0 (XML readers reject invalid UTF-8). */
static int utf8_len(const unsigned char *p)
{
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* Text for an XML attribute (@p attr) or element: markup escaped, line breaks in attributes as
 * character references (a parser would fold them to spaces), other control characters and
 * invalid UTF-8 as '?' (XML 1.0 cannot carry them). */
static void xml_put(FILE *f, const char *s, int attr)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = 1;
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        default:
            if (*p < 0x20)
                fputc('?', f);
            else if (*p < 0x80)
                fputc(*p, f);
            else if ((n = utf8_len(p)))
                fwrite(p, 1, (size_t)n, f);
            else
                fputc('?', f), n = 1;
        }
        p += n;
    }
}

static void xml_escape(FILE *f, const char *s)
{
    xml_put(f, s, 1);
}

static int write_junit(const struct check_cli *c, const struct tlist *l, const char *model_text,
                       const char *settings_note, rt_error *err)
{
    size_t fails = 0, errors = 0, skipped = 0;
    double total = 0;
    for (size_t i = 0; i < l->n; i++) {
        fails += l->v[i].verdict == V_FAIL;
        errors += l->v[i].verdict == V_ERROR;
        skipped += l->v[i].verdict == V_SKIP;
        total += l->v[i].seconds;
    }
    struct rt__outfile *of;
    int rc = rt__outfile_open(c->junit, "JUnit report", &of, err);
    if (rc)
        return rc;
    FILE *f = rt__outfile_stream(of);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    for (int k = 0; k < 2; k++)
        fprintf(f, "%s<%s name=\"retime check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                k ? "  " : "", k ? "testsuite" : "testsuites", l->n, fails, errors, skipped, total);
    fprintf(f, "    <properties>\n      <property name=\"baseline\" value=\"");
    xml_escape(f, c->baseline);
    fprintf(f, "\"/>\n      <property name=\"model\" value=\"");
    xml_escape(f, model_text);
    fprintf(f, "\"/>\n      <property name=\"tolerance\" value=\"");
    xml_escape(f, c->tol_text);
    fprintf(f, "\"/>\n      <property name=\"share_tolerance\" value=\"");
    xml_escape(f, c->share_text);
    fprintf(f, "\"/>\n    </properties>\n");
    for (size_t i = 0; i < l->n; i++) {
        const struct target *t = &l->v[i];
        fprintf(f, "    <testcase classname=\"retime check\" name=\"");
        xml_escape(f, t->key);
        fprintf(f, "\" time=\"%.3f\"", t->seconds);
        if (t->verdict == V_PASS) {
            fprintf(f, "/>\n");
            continue;
        }
        const char *el = t->verdict == V_SKIP ? "skipped" : t->verdict == V_ERROR ? "error" : "failure";
        fprintf(f, ">\n      <%s message=\"", el);
        xml_escape(f, t->reason ? t->reason : "");
        if (t->verdict != V_SKIP) {
            fprintf(f, "\" type=\"");
            xml_escape(f, t->kinds ? t->kinds : "");
        }
        if (t->verdict == V_SKIP) {
            fprintf(f, "\"/>\n    </testcase>\n");
            continue;
        }
        fprintf(f, "\">");
        /* The body: the one-line reason and the diff table as the text report prints them. */
        xml_put(f, t->reason ? t->reason : "", 0);
        fputs("\n", f);
        if (settings_note && t->verdict == V_FAIL) { /* each test case, read alone, must say it */
            xml_put(f, "the model settings differ from the baseline's (baseline -> now):\n", 0);
            xml_put(f, settings_note, 0);
        }
        if (t->detail)
            xml_put(f, t->detail, 0);
        fprintf(f, "</%s>\n    </testcase>\n", el);
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return rt__outfile_close(of, err);
}

/* ------------------------------------------------------------------ reports */

static size_t key_width(const struct tlist *l)
{
    size_t w = 24;
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i].key) > w)
            w = strlen(l->v[i].key);
    return w > 60 ? 60 : w;
}

static void print_head(const char *what, const char *model_text, const char *from, const char *note,
                       const char *const *regions, size_t nregions)
{
    printf("%s\nmodel       %s\nsettings    %s\n%s", what, model_text, from, note ? note : "");
    if (nregions) {
        printf("regions     ");
        for (size_t i = 0; i < nregions; i++)
            printf("%s%s", i ? ", " : "", regions[i]);
        printf("\n");
    }
}

static int run_check(const struct check_cli *c, struct tlist *l, const char *const *regions, size_t nregions,
                     const char *model_text, const char *settings_note)
{
    size_t n[4] = {0}, checked = 0;
    char head[PATH_MAX + 64];
    for (size_t i = 0; i < l->n; i++) {
        judge(&l->v[i], c, regions, nregions);
        n[l->v[i].verdict]++;
        checked += l->v[i].verdict != V_SKIP;
    }
    snprintf(head, sizeof head, "retime check: %zu trace%s against %s", checked, checked == 1 ? "" : "s", c->baseline);
    print_head(head, model_text,
               !c->model_given ? "as recorded in the baseline"
               : settings_note ? "from the command line, not those recorded in the baseline (baseline -> now):"
                               : "from the command line, the same as recorded in the baseline",
               settings_note, regions, nregions);
    printf("tolerance   %s on predicted times, %s on critical-path shares%s\n\n", c->tol_text, c->share_text,
           c->allow_changes ? "; changed traces allowed" : "");
    int w = (int)key_width(l);
    static const char *const label[] = {"PASS", "FAIL", "ERROR", "SKIP"};
    for (size_t i = 0; i < l->n; i++) {
        const struct target *t = &l->v[i];
        char key[PATH_MAX];
        printf("%-5s %-*s  ", label[t->verdict], w, cli_text_buf(key, sizeof key, t->key));
        cli_text(stdout, t->reason ? t->reason : "", 0); /* they quote call sites and regions of the trace */
        fputc('\n', stdout);
        if (t->detail && t->verdict != V_PASS)
            cli_text(stdout, t->detail, 1);
    }
    printf("\n%zu passed, %zu failed, %zu errors, %zu not checked\n", n[V_PASS], n[V_FAIL], n[V_ERROR], n[V_SKIP]);
    if (n[V_FAIL] || n[V_ERROR]) {
        printf("retime check: FAILED. If the change is intended, record it with --update (docs/check.md).\n");
        return 1;
    }
    return 0;
}

static const char *first_skipped(const struct tlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].skip)
            return l->v[i].key;
    return "";
}

static int same_trace(const struct check_trace *a, const struct check_trace *b, size_t nregions)
{
    if (a->fingerprint != b->fingerprint || a->untimed != b->untimed || a->ranks != b->ranks || a->events != b->events ||
        a->measured_ns != b->measured_ns || a->predicted_ps != b->predicted_ps || a->ncallsites != b->ncallsites ||
        memcmp(a->act_pct, b->act_pct, sizeof a->act_pct) != 0)
        return 0;
    for (size_t i = 0; i < a->ncallsites; i++)
        if (strcmp(a->callsites[i].label, b->callsites[i].label) || a->callsites[i].pct != b->callsites[i].pct)
            return 0;
    for (size_t i = 0; i < nregions; i++)
        if (a->regions[i].instances != b->regions[i].instances || a->regions[i].mean_ns != b->regions[i].mean_ns)
            return 0;
    return 1;
}

static int cmp_trace_path(const void *a, const void *b)
{
    return strcmp(((const struct check_trace *)a)->path, ((const struct check_trace *)b)->path);
}

/* --update: the new baseline holds every trace measured now, keeps the entries no operand
 * covers while the settings and regions stay the same, and drops the missing ones. Nothing is
 * written when a trace cannot be measured. */
/* Whether --update keeps the recorded settings and regions. If not, entries recorded under the
 * old ones cannot stay beside the new ones, and dropping them silently would lose them: every
 * entry must then be re-recorded. Returns 0, or 2 after printing why (before any replay). */
static int update_preflight(const struct check_cli *c, const struct check_baseline *old, int have_old,
                            const struct check_settings *set, const char *const *regions, size_t nregions,
                            const struct tlist *l, int *same_set)
{
    *same_set = have_old && !check_settings_diff(NULL, "", &old->settings, set) && old->nregions == nregions;
    for (size_t i = 0; *same_set && i < nregions; i++)
        *same_set = !strcmp(old->regions[i], regions[i]);
    size_t stale = 0;
    for (size_t i = 0; i < l->n; i++)
        stale += l->v[i].skip && !*same_set;
    if (stale)
        return USAGE("%s not written: the settings or regions change, and %zu of its traces (%s%s) are not among "
                     "the TRACEs given; give them too, or no TRACE to re-record every one",
                     c->baseline, stale, first_skipped(l), stale > 1 ? ", ..." : "");
    return 0;
}

static int run_update(const struct check_cli *c, struct check_baseline *old, int have_old, int same_set,
                      struct check_settings *set, const char *const *regions, size_t nregions, struct tlist *l,
                      const char *model_text)
{
    struct check_baseline nb;
    int errors = 0, cnt[5] = {0}; /* added, updated, unchanged, removed, kept */
    char a[40], b[40], head[PATH_MAX + 64];
    memset(&nb, 0, sizeof nb);
    if (!(nb.traces = calloc(l->n + 1, sizeof *nb.traces)) || (nregions && !(nb.regions = calloc(nregions, sizeof *nb.regions))))
        goto nomem;
    nb.nregions = nregions;
    for (size_t i = 0; i < nregions; i++)
        if (!(nb.regions[i] = strdup(regions[i])))
            goto nomem;
    snprintf(head, sizeof head, "retime check --update: %s%s", c->baseline, have_old ? "" : " (new)");
    char *note = NULL;
    size_t note_len = 0;
    FILE *nf = have_old ? open_memstream(&note, &note_len) : NULL;
    if (nf) {
        check_settings_diff(nf, "              ", &old->settings, set);
        fclose(nf);
    }
    print_head(head, model_text,
               !c->model_given ? "as recorded in the baseline"
               : note && note_len ? "from the command line, not those recorded before (before -> now):"
                                  : "from the command line",
               note, regions, nregions);
    free(note);
    printf("\n");
    int w = (int)key_width(l);
    for (size_t i = 0; i < l->n; i++) {
        struct target *t = &l->v[i];
        if (t->skip) { /* same settings (checked above): still valid */
            nb.traces[nb.ntraces++] = *t->base;
            memset((struct check_trace *)t->base, 0, sizeof *t->base); /* moved: old no longer owns it */
            cnt[4]++;
            printf("KEEP   %-*s  not given; kept as recorded\n", w, t->key);
            continue;
        }
        if (!t->exists) {
            if (t->base && t->nruns < 2) { /* a run of several missing is a mistake, not a removal */
                cnt[3]++;
                printf("REMOVE %-*s  trace missing: %s\n", w, t->key, t->open);
            } else {
                cli_die("%s: no such file or directory", t->open);
                errors++;
            }
            continue;
        }
        if (!t->measured) {
            cli_fail(&t->err);
            errors++;
            continue;
        }
        fmt_ns(a, sizeof a, (double)t->now.predicted_ps / 1e3, 0);
        char runs[200];
        runs_text(runs, sizeof runs, t, -1, "");
        if (!t->base) {
            cnt[0]++;
            printf("ADD    %-*s  predicted %s%s%s\n", w, t->key, a, runs[0] ? ", " : "", runs);
        } else if (same_set && same_trace(t->base, &t->now, nregions)) {
            cnt[2]++;
            printf("SAME   %-*s  predicted %s%s%s\n", w, t->key, a, runs[0] ? ", " : "", runs);
        } else {
            cnt[1]++;
            double bp = (double)t->base->predicted_ps;
            printf("UPDATE %-*s  predicted %s (was %s, %+.2f%%)%s%s%s\n", w, t->key, a, fmt_ns(b, sizeof b, bp / 1e3, 0),
                   bp ? 100.0 * ((double)t->now.predicted_ps - bp) / bp : 0.0,
                   !same_fingerprint(t->base, &t->now) ? "; trace changed" : "", runs[0] ? "; " : "", runs);
        }
        nb.traces[nb.ntraces++] = t->now;
        memset(&t->now, 0, sizeof t->now);
    }
    for (size_t r = 0; r < nregions; r++) {
        int seen = 0;
        for (size_t i = 0; i < nb.ntraces && !seen; i++)
            seen = nb.traces[i].regions[r].instances > 0;
        if (!seen)
            printf("note: region '%s' is in none of the traces\n", regions[r]);
    }
    if (errors) {
        cli_die("%s not written: %d trace%s could not be read or replayed", c->baseline, errors, errors == 1 ? "" : "s");
        check_baseline_free(&nb);
        return 1;
    }
    qsort(nb.traces, nb.ntraces, sizeof *nb.traces, cmp_trace_path);
    nb.settings = *set;
    memset(set, 0, sizeof *set); /* moved */
    rt_error err = {0};
    int rc = check_baseline_write(c->baseline, &nb, &err);
    if (rc)
        cli_fail(&err);
    else
        printf("\nwrote %s: %zu trace%s (%d added, %d updated, %d unchanged, %d removed, %d kept)\n", c->baseline,
               nb.ntraces, nb.ntraces == 1 ? "" : "s", cnt[0], cnt[1], cnt[2], cnt[3], cnt[4]);
    check_baseline_free(&nb);
    return rc ? 1 : 0;
nomem:
    check_baseline_free(&nb);
    return cli_die("out of memory");
}

/* ------------------------------------------------------------------ command */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The report's model line: the settings and the noise; NULL when out of memory. */
static char *describe_model(const struct rt_replay_options *o, const struct model_cli *m)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return NULL;
    model_cli_describe(f, o);
    if (rt_replay_options_noisy(o)) {
        fprintf(f, "\nnoise       ");
        model_cli_noise_describe(f, m);
    }
    fclose(f);
    return s;
}

int cmd_check(struct args *a)
{
    struct check_cli c;
    struct check_baseline base;
    struct check_settings set;
    struct model_cli bm;
    struct rt_replay_options opts;
    struct tlist l = {0};
    struct model_cli *eff = &c.model;
    char coll[256], *base_disp = NULL, *base_abs = NULL, *model_text = NULL, *note = NULL;
    size_t note_len = 0;
    rt_error err = {0};
    int have_base = 0, lock_fd = -1;
    memset(&base, 0, sizeof base);
    memset(&set, 0, sizeof set);
    model_cli_init(&bm);
    int rc = parse_check(a, &c);
    if (rc)
        goto out;
    rc = 2;
    /* An update holds the baseline's lock from reading it to replacing it. */
    if (c.update && (lock_fd = check_baseline_lock(c.baseline, &err)) < 0) {
        cli_fail(&err);
        goto out;
    }
    int lrc = check_baseline_load(c.baseline, &base, &err);
    if (lrc == RT_OK) {
        have_base = 1;
        for (size_t i = 0; i < base.ntraces; i++) /* absolute labels of older baselines: relative */
            check_labels_relative(base.traces[i].callsites, base.traces[i].ncallsites, c.source_root);
    } else if (lrc != RT_ENOTFOUND || !c.update) {
        if (lrc == RT_ENOTFOUND)
            cli_die("%s (record a baseline with --update and the model options)", err.msg);
        else
            cli_fail(&err);
        goto out;
    } else if (!c.model_given) {
        cli_die("%s does not exist yet: give the model options to record in it (e.g. --alpha 2.122us --beta "
                "0.7595ns/B)",
                c.baseline);
        goto out;
    }
    /* The settings: the command line's when it has model options (a check then notes how they
     * differ from the baseline's), otherwise the baseline's. */
    if (!c.model_given) {
        check_settings_to_cli(&base.settings, &bm, coll, sizeof coll);
        eff = &bm;
    }
    if (model_cli_no_network(&c.model, "check") || model_cli_finish(eff, &opts))
        goto out;
    if (check_settings_from_cli(eff, &opts, &set, &err)) {
        cli_fail(&err);
        goto out;
    }
    /* the window: --window, else the baseline's (none recorded: the whole run, as it was made),
     * else mpi for a new baseline */
    snprintf(set.window, sizeof set.window, "%s",
             c.window ? (strcmp(c.window, "all") ? c.window : "") : have_base ? base.settings.window : "mpi");
    if (!(model_text = describe_model(&opts, eff))) {
        cli_die("out of memory");
        goto out;
    }
    if (have_base && c.model_given && !c.update) {
        FILE *f = open_memstream(&note, &note_len);
        if (!f || (check_settings_diff(f, "              ", &base.settings, &set), fclose(f)) != 0) {
            cli_die("out of memory");
            goto out;
        }
        if (!note_len) {
            free(note);
            note = NULL;
        }
    }
    /* Trace names are paths relative to the baseline's directory, wherever retime runs. */
    const char *slash = strrchr(c.baseline, '/');
    base_disp = slash ? (slash == c.baseline ? strdup("/") : strndup(c.baseline, (size_t)(slash - c.baseline)))
                      : strdup(".");
    if (!base_disp || !(base_abs = realpath(base_disp, NULL))) {
        cli_die("%s: cannot resolve the baseline's directory: %s", c.baseline, base_disp ? strerror(errno) : "out of memory");
        goto out;
    }
    /* The regions: --region's (with --update), otherwise the baseline's. */
    const char *const *regions = c.nregions || !have_base ? c.regions : (const char *const *)base.regions;
    size_t nregions = c.nregions || !have_base ? c.nregions : base.nregions;
    if (collect(&c, &base, base_abs, base_disp, &l, &err)) {
        cli_fail(&err);
        goto out;
    }
    if (l.n == 0) {
        cli_die("nothing to check: %s", c.nops ? "no trace found in the TRACE operands" : "the baseline lists no traces and no TRACE was given");
        goto out;
    }
    int same_set = 0;
    if (c.update && (rc = update_preflight(&c, &base, have_base, &set, regions, nregions, &l, &same_set)))
        goto out;
    rc = 2;
    size_t todo = 0;
    for (size_t i = 0; i < l.n; i++)
        todo += !l.v[i].skip && l.v[i].exists;
    struct progress *p = progress_start(c.update ? "check --update" : "check", "traces", todo);
    for (size_t i = 0; i < l.n; i++) {
        struct target *t = &l.v[i];
        if (t->skip || !t->exists)
            continue;
        double t0 = now_s();
        struct measure_with mw = {&opts, set.window[0] ? set.window : "all", set.scale_bytes[0] ? set.scale_bytes : NULL,
                                  c.source_root, regions, nregions};
        if (measure_target(t, &mw, c.update ? 0 : c.allow_changes) == RT_OK)
            t->measured = 1;
        t->seconds = now_s() - t0;
        progress_add(p, 1);
    }
    progress_end(p);
    if (c.update) {
        rc = run_update(&c, &base, have_base, same_set, &set, regions, nregions, &l, model_text);
        goto out;
    }
    rc = run_check(&c, &l, regions, nregions, model_text, note);
    cli_flush_stdout();
    if (c.junit && write_junit(&c, &l, model_text, note, &err)) {
        cli_fail(&err);
        rc = 2;
    }
out:
    check_baseline_unlock(c.baseline, lock_fd);
    tl_free(&l);
    free(base_disp);
    free(base_abs);
    free(model_text);
    free(note);
    free(c.ops);
    check_settings_free(&set);
    check_baseline_free(&base);
    model_cli_free(&bm);
    model_cli_free(&c.model);
    return rc;
}
