/* SPDX-License-Identifier: MIT */
/*
 * Rule sets: which algorithm each collective instance runs (docs/collectives.md).
 *
 *  retime   the choices of earlier releases, kept as the default so that every stored result
 *           and baseline stays as it was: allreduce by recursive doubling up to 2048 B and
 *           Rabenseifner above (MPICH's threshold), allgather by Bruck below 512 KiB in all and
 *           ring above, every other operation its classic algorithm (dissemination barrier,
 *           binomial trees, pairwise alltoall, recursive-doubling scan).
 *  mpich    rules_mpich.c
 *  openmpi  rules_openmpi.c
 *  FILE     lines `OP RANKS BYTES ALGORITHM [seg=SIZE] [fanout=N]`, the first that matches wins;
 *           an operation no line matches gets retime's choice.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "coll_rules.h"
#include "retime/units.h"
#include "sidefile.h"

enum { RULES_RETIME, RULES_MPICH, RULES_OPENMPI, RULES_FILE };

#define RULES_MAX_LINES 4096 /* a rules file is a small table */
#define RULES_MAX_BYTES (4u << 20) /* that many lines of RULES_LINE_MAX, and as much again of comments */
#define RULES_LINE_MAX 512

/* One line of a rules file: OP (with its v-variant flag: 0 plain, 1 v, 2 both) on RANKS in
 * [pmin, pmax] with BYTES in [smin, smax] runs PLAN. */
struct rule {
    uint8_t op, vector;
    uint64_t pmin, pmax;
    rt_bytes smin, smax;
    struct rt_coll_plan plan;
};

struct rt_coll_rules {
    int kind;
    const char *path; /* a built-in set's name, or the file's path (owned) */
    struct rule *rule;
    size_t n;
};

static const struct rt_coll_rules builtin[] = {
    [RULES_RETIME] = {.kind = RULES_RETIME, .path = "retime"},
    [RULES_MPICH] = {.kind = RULES_MPICH, .path = "mpich"},
    [RULES_OPENMPI] = {.kind = RULES_OPENMPI, .path = "openmpi"},
};

/* ------------------------------------------------------------------ retime's own */

void rt__rules_retime(const struct rt__coll_query *q, struct rt_coll_plan *out)
{
    static const uint8_t classic[RT_COLL_OTHER + 1] = {
        [RT_COLL_BARRIER] = RT_ALGO_DISSEMINATION, [RT_COLL_BCAST] = RT_ALGO_BINOMIAL,
        [RT_COLL_GATHER] = RT_ALGO_BINOMIAL,       [RT_COLL_SCATTER] = RT_ALGO_BINOMIAL,
        [RT_COLL_ALLGATHER] = RT_ALGO_BRUCK,       [RT_COLL_ALLTOALL] = RT_ALGO_PAIRWISE,
        [RT_COLL_REDUCE] = RT_ALGO_BINOMIAL,       [RT_COLL_ALLREDUCE] = RT_ALGO_RECDBL,
        [RT_COLL_SCAN] = RT_ALGO_RECDBL,           [RT_COLL_OTHER] = RT_ALGO_DISSEMINATION,
    };
    out->algo = classic[q->op];
    if (q->op == RT_COLL_ALLREDUCE && q->block > 2048)
        out->algo = RT_ALGO_RABENSEIFNER;
    if (q->op == RT_COLL_ALLGATHER && q->total >= 512 * 1024)
        out->algo = RT_ALGO_RING;
}

/* ------------------------------------------------------------------ choosing */

static void file_choose(const struct rt_coll_rules *r, const struct rt__coll_query *q, struct rt_coll_plan *out)
{
    /* the measure of a line's BYTES: the largest block; for a v-variant the average one */
    rt_bytes size = q->vector ? q->total / q->P : q->block;
    for (size_t i = 0; i < r->n; i++) {
        const struct rule *x = &r->rule[i];
        if (x->op == q->op && (x->vector == 2 || x->vector == q->vector) && q->P >= x->pmin && q->P <= x->pmax &&
            size >= x->smin && size <= x->smax) {
            *out = x->plan;
            return;
        }
    }
    rt__rules_retime(q, out);
}

static void choose(const rt_coll_rules *r, const struct rt__coll_query *q, struct rt_coll_plan *out)
{
    memset(out, 0, sizeof *out);
    switch (r ? r->kind : RULES_RETIME) {
    case RULES_MPICH:
        rt__rules_mpich(q, out);
        break;
    case RULES_OPENMPI:
        rt__rules_openmpi(q, out);
        break;
    case RULES_FILE:
        file_choose(r, q, out);
        break;
    default:
        rt__rules_retime(q, out);
        break;
    }
    out->op = q->op;
}

void rt_coll_plan_choose(const rt_coll_rules *r, const uint8_t *override, int op, int vector, uint32_t P,
                         rt_bytes block, rt_bytes total, struct rt_coll_plan *out)
{
    if (op < 0 || op > RT_COLL_OTHER)
        op = RT_COLL_OTHER;
    struct rt__coll_query q = {.op = op, .vector = vector != 0, .P = P ? P : 1, .block = block, .total = total};
    choose(r, &q, out);
    int forced = override ? override[op] : RT_ALGO_AUTO;
    if (forced != RT_ALGO_AUTO && forced != out->algo && rt__coll_algo_applies(op, forced)) {
        /* the rule set's segment and fan-out belong to its own algorithm */
        *out = (struct rt_coll_plan){.op = op, .algo = forced};
    }
    /* a reduce_scatter runs as the library runs it, except under retime's rules (as before) */
    out->reduce_scatter = (uint8_t)(op == RT_COLL_ALLREDUCE && vector && r && r->kind != RULES_RETIME);
    if (op == RT_COLL_ALLREDUCE && !out->reduce_scatter && out->algo == RT_ALGO_PAIRWISE)
        out->algo = RT_ALGO_RECDBL; /* pairwise is a reduce_scatter's alone */
    if (out->algo == RT_ALGO_REDUCE_BCAST) { /* its parts as the rule set would run them */
        struct rt_coll_plan part;
        q.op = RT_COLL_REDUCE;
        choose(r, &q, &part);
        out->part[0] = (uint8_t)part.algo;
        q.op = RT_COLL_BCAST;
        choose(r, &q, &part);
        out->part[1] = (uint8_t)part.algo;
        /* (one segment size for the whole: the reduce's, as a plan has one) */
    }
}

void rt__coll_plan_of(const rt_coll_rules *rules, const uint8_t *override, int op, int vector, uint32_t P,
                      const struct rt__coll_member *mem, struct rt_coll_plan *out)
{
    rt_bytes block = 0, total = 0;
    for (uint32_t i = 0; i < P; i++) {
        block = mem[i].block > block ? mem[i].block : block;
        total += mem[i].block;
    }
    rt_coll_plan_choose(rules, override, op, vector, P, block, total, out);
}

/* ------------------------------------------------------------------ rules files */

const char *rt_coll_rules_name(const rt_coll_rules *r)
{
    return r ? r->path : "retime";
}

void rt_coll_rules_free(rt_coll_rules *r)
{
    if (!r || r->kind != RULES_FILE)
        return;
    free((char *)r->path);
    free(r->rule);
    free(r);
}

/* An operation's name in a rules file: the MPI names without "MPI_", v-variants included. */
static int parse_op(const char *w, uint8_t *op, uint8_t *vector)
{
    static const struct {
        const char *name;
        uint8_t op, vector;
    } ops[] = {
        {"barrier", RT_COLL_BARRIER, 0},     {"bcast", RT_COLL_BCAST, 0},         {"gather", RT_COLL_GATHER, 0},
        {"gatherv", RT_COLL_GATHER, 1},      {"scatter", RT_COLL_SCATTER, 0},     {"scatterv", RT_COLL_SCATTER, 1},
        {"allgather", RT_COLL_ALLGATHER, 0}, {"allgatherv", RT_COLL_ALLGATHER, 1}, {"alltoall", RT_COLL_ALLTOALL, 0},
        {"alltoallv", RT_COLL_ALLTOALL, 1},  {"reduce", RT_COLL_REDUCE, 0},       {"allreduce", RT_COLL_ALLREDUCE, 0},
        {"reduce_scatter", RT_COLL_ALLREDUCE, 1}, {"scan", RT_COLL_SCAN, 2},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(w, ops[i].name)) {
            *op = ops[i].op;
            *vector = ops[i].vector;
            return 0;
        }
    return -1;
}

/* "N", "N-M", "N-" or "*" of ranks. */
static int parse_ranks(const char *w, uint64_t *lo, uint64_t *hi)
{
    if (!strcmp(w, "*")) {
        *lo = 1;
        *hi = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*w))
        return -1;
    *lo = strtoull(w, &end, 10);
    if (errno || *lo < 1 || *lo > UINT32_MAX)
        return -1;
    if (!*end) {
        *hi = *lo;
        return 0;
    }
    if (*end != '-')
        return -1;
    if (!end[1]) {
        *hi = UINT64_MAX;
        return 0;
    }
    const char *h = end + 1;
    if (!isdigit((unsigned char)*h))
        return -1;
    *hi = strtoull(h, &end, 10);
    return errno || *end || *hi < *lo || *hi > UINT32_MAX ? -1 : 0;
}

/* "A-B", "A-" or "*" of sizes with units (64KiB-1MiB). */
static int parse_sizes(const char *w, rt_bytes *lo, rt_bytes *hi, rt_error *e)
{
    if (!strcmp(w, "*")) {
        *lo = 0;
        *hi = UINT64_MAX;
        return 0;
    }
    char buf[RULES_LINE_MAX];
    snprintf(buf, sizeof buf, "%s", w);
    char *dash = strchr(buf, '-');
    if (dash)
        *dash = '\0';
    if (rt_parse_bytes(buf, lo, e))
        return -1;
    if (!dash) {
        *hi = *lo;
        return 0;
    }
    if (!dash[1]) {
        *hi = UINT64_MAX;
        return 0;
    }
    if (rt_parse_bytes(dash + 1, hi, e))
        return -1;
    if (*hi < *lo)
        return rt_error_set(e, RT_EINVAL, "the range ends before it starts"), -1;
    return 0;
}

static int algo_of(const char *w)
{
    for (int a = 1; a < RT_ALGO_COUNT; a++)
        if (!strcmp(w, rt_coll_algo_name(a)))
            return a;
    return -1;
}

/* One line's words into @p x; RT_OK or RT_EINVAL with the reason in @p err. */
static int parse_line(char **w, int nw, struct rule *x, rt_error *err)
{
    rt_error e = {0};
    memset(x, 0, sizeof *x);
    if (nw < 4)
        return rt_error_set(err, RT_EINVAL, "expected OP RANKS BYTES ALGORITHM [seg=SIZE] [fanout=N]");
    if (parse_op(w[0], &x->op, &x->vector))
        return rt_error_set(err, RT_EINVAL, "unknown operation '%s' (barrier, bcast, gather, gatherv, scatter, "
                                            "scatterv, allgather, allgatherv, alltoall, alltoallv, reduce, "
                                            "allreduce, reduce_scatter, scan)", w[0]);
    if (parse_ranks(w[1], &x->pmin, &x->pmax))
        return rt_error_set(err, RT_EINVAL, "bad RANKS '%s' (N, N-M, N- or *, from 1)", w[1]);
    if (parse_sizes(w[2], &x->smin, &x->smax, &e))
        return rt_error_set(err, RT_EINVAL, "bad BYTES '%s' (A-B, A- or *, with units): %s", w[2], e.msg);
    int a = algo_of(w[3]);
    if (a < 0 || !rt__coll_algo_applies(x->op, a))
        return rt_error_set(err, RT_EINVAL, "algorithm '%s' does not apply to %s", w[3], w[0]);
    x->plan = (struct rt_coll_plan){.op = x->op, .algo = a};
    for (int i = 4; i < nw; i++) {
        if (!strncmp(w[i], "seg=", 4)) {
            if (rt_parse_bytes(w[i] + 4, &x->plan.seg, &e))
                return rt_error_set(err, RT_EINVAL, "bad segment size '%s': %s", w[i] + 4, e.msg);
        } else if (!strncmp(w[i], "fanout=", 7)) {
            char *end;
            errno = 0;
            unsigned long f = strtoul(w[i] + 7, &end, 10);
            if (errno || *end || !isdigit((unsigned char)w[i][7]) || f < 1 || f > 64)
                return rt_error_set(err, RT_EINVAL, "bad fan-out '%s' (1 to 64)", w[i] + 7);
            x->plan.fanout = (uint32_t)f;
        } else {
            return rt_error_set(err, RT_EINVAL, "unknown field '%s' (seg=SIZE, fanout=N)", w[i]);
        }
    }
    return RT_OK;
}

static int load(const char *path, struct rt_coll_rules *r, rt_error *err)
{
    /* Through the side-file reader: a FIFO as rules file waited for a writer forever (issue 34). */
    struct rt__sidefile *f;
    int rc = rt__sidefile_open(path, "collective rules file", RULES_MAX_BYTES, &f, err);
    if (rc)
        return rc;
    char line[RULES_LINE_MAX + 1];
    size_t cap = 0, len;
    const char *text;
    while ((rc = rt__sidefile_line(f, &text, &len, err)) > 0) {
        unsigned lineno = rt__sidefile_lineno(f);
        if (len > RULES_LINE_MAX) {
            rc = rt_error_set(err, RT_EINVAL, "%s:%u: line longer than %d characters", path, lineno, RULES_LINE_MAX);
            break;
        }
        memcpy(line, text, len + 1); /* a copy for strtok */
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *w[8];
        int nw = 0;
        for (char *t = strtok(line, " \t\r"); t; t = strtok(NULL, " \t\r"))
            if (nw < 8)
                w[nw++] = t;
            else {
                nw = 9;
                break;
            }
        if (nw == 0)
            continue;
        if (nw > 8) {
            rc = rt_error_set(err, RT_EINVAL, "%s:%u: too many fields", path, lineno);
            break;
        }
        if (r->n == RULES_MAX_LINES) {
            rc = rt_error_set(err, RT_EINVAL, "%s:%u: more than %d rules", path, lineno, RULES_MAX_LINES);
            break;
        }
        if (r->n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            struct rule *v = realloc(r->rule, ncap * sizeof *v);
            if (!v) {
                rc = rt_error_set(err, RT_ENOMEM, "%s: out of memory", path);
                break;
            }
            r->rule = v;
            cap = ncap;
        }
        rt_error e = {0};
        if (parse_line(w, nw, &r->rule[r->n], &e)) {
            rc = rt_error_set(err, RT_EINVAL, "%s:%u: %s", path, lineno, e.msg);
            break;
        }
        r->n++;
    }
    rt__sidefile_close(f);
    if (!rc && r->n == 0)
        rc = rt_error_set(err, RT_EINVAL, "%s: no rules (expected OP RANKS BYTES ALGORITHM lines)", path);
    return rc;
}

int rt_coll_rules_open(const char *spec, rt_coll_rules **out, rt_error *err)
{
    *out = NULL;
    if (!spec || !*spec)
        return rt_error_set(err, RT_EINVAL, "empty collective rules (retime, mpich, openmpi or a rules file)");
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (!strcmp(spec, builtin[i].path)) {
            *out = (rt_coll_rules *)&builtin[i]; /* never freed: rt_coll_rules_free skips it */
            return RT_OK;
        }
    struct rt_coll_rules *r = calloc(1, sizeof *r);
    char *path = strdup(spec);
    if (!r || !path) {
        free(r);
        free(path);
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    }
    r->path = path;
    r->kind = RULES_FILE;
    int rc = load(spec, r, err);
    if (rc) {
        rt_coll_rules_free(r);
        return rc;
    }
    *out = r;
    return RT_OK;
}
