/* SPDX-License-Identifier: MIT */
/*
 * retime predict team-shift and retime predict tradeoff: the Team Shift closed form
 * (analysis/src/closed_form/shift_model.c, derived in docs/team-shift.md) beside the Shift's (eq. 1-3 of
 * 000_7e9d5dd1e6b01527), and the team sizes c and cut-offs k at which Team Shift is faster.
 *
 * Both algorithms run with MPI_Ssend (the paper's §4.1), so Shift costs Σ_d 4k·T(m_d) and Team
 * Shift Σ_d [q·T(m_d) + 2M·T(m_d) + Σ_{i<q} T(min(2^i, c-2^i)·M·m_d)]. Both keep a box of m1
 * bytes and a cut-off of k boxes per box; Team Shift spends c ranks on each box. With --P N
 * (ranks), a c must divide N and the N/c teams must hold the cut-off window on each ring
 * (2k+1 teams per ring; the Shift likewise 2k+1 ranks), else it is not offered.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_common.h"
#include "predict.h"
#include "retime/shift_model.h"
#include "retime/units.h"

void predict_common_init(struct predict_common *p)
{
    memset(p, 0, sizeof *p);
    p->dims = 1;
    p->k = 1;
    p->fmt = FMT_TEXT;
}

/* A whole number in [lo, hi] written as digits: 0, or -1. */
static int whole(const char *v, long lo, long hi, long *out)
{
    uint64_t u;
    if (!v || cli_count(v, (uint64_t)lo, (uint64_t)hi, &u))
        return -1;
    *out = (long)u;
    return 0;
}

int predict_common_option(struct args *a, struct predict_common *p)
{
    const char *v;
    rt_error err = {0};
    long n;
    if (cli_opt(a, "--dims", &v)) {
        if (!v || (strcmp(v, "1") && strcmp(v, "3")))
            return cli_die("bad --dims '%s' (1 or 3)", v ? v : ""), -1;
        p->dims = atoi(v);
    } else if (cli_opt(a, "--k", &v)) {
        if (whole(v, 1, 1000000, &n))
            return cli_die("bad --k '%s' (a whole number from 1 to 1000000)", v ? v : ""), -1;
        p->k = (int)n;
    } else if (cli_opt(a, "--m1", &v)) {
        if (rt_parse_bytes(v, &p->m1, &err))
            return cli_die("--m1: %s", err.msg), -1;
        p->have_m1 = 1;
    } else if (cli_opt(a, "--alpha", &v)) {
        if (rt_parse_time_ns(v, &p->alpha, &err))
            return cli_die("--alpha: %s", err.msg), -1;
        p->have_alpha = 1;
    } else if (cli_opt(a, "--beta", &v)) {
        if (rt_parse_ns_per_byte(v, &p->beta, &err))
            return cli_die("--beta: %s", err.msg), -1;
        p->have_beta = 1;
    } else if (cli_opt(a, "--format", &v)) {
        if (cli_format(v, &p->fmt, 0))
            return cli_die("bad --format '%s' (text or json)", v ? v : ""), -1;
    } else {
        return 0;
    }
    return 1;
}

int predict_common_finish(const struct predict_common *p, const char *cmd)
{
    if (!p->have_m1 || !p->have_alpha || !p->have_beta)
        return cli_die("%s needs --m1, --alpha and --beta", cmd);
    return 0;
}

/* Shift with MPI_Ssend, the algorithm Team Shift is compared with. */
static int shift_ns(const struct predict_common *p, int k, double *ns, rt_error *err)
{
    struct rt_shift_config c = {.dims = p->dims, .k = k, .m1 = p->m1, .synchronous = 1};
    return rt_shift_predict(&c, p->alpha, p->beta, ns, NULL, NULL, err);
}

static int team_ns(const struct predict_common *p, int k, int c, double *ns, struct rt_team_shift_dim *dim,
                   rt_error *err)
{
    struct rt_team_shift_config tc = {.dims = p->dims, .k = k, .c = c, .m1 = p->m1};
    return rt_team_shift_predict(&tc, p->alpha, p->beta, ns, dim, err);
}

/* ------------------------------------------------------------------ predict team-shift */

int predict_team_shift(struct args *a)
{
    struct predict_common p;
    predict_common_init(&p);
    int c = 0;
    const char *v;
    for (a->i = 3; a->i < a->argc; a->i++) {
        int r = predict_common_option(a, &p);
        if (r < 0)
            return 1;
        if (r)
            continue;
        long n;
        if (cli_opt(a, "--team", &v) || cli_opt(a, "--c", &v)) {
            if (whole(v, 1, 1000000, &n))
                return cli_die("bad --team '%s' (a whole number from 1 to 1000000)", v ? v : "");
            c = (int)n;
        } else if (cli_opt(a, "--mode", &v)) {
            if (!v || strcmp(v, "ssend"))
                return cli_die("bad --mode '%s' (Team Shift is modelled with ssend only)", v ? v : "");
        } else {
            return cli_die("unknown option '%s' for predict team-shift", a->argv[a->i]);
        }
    }
    if (predict_common_finish(&p, "predict team-shift"))
        return 1;
    if (!c)
        return cli_die("predict team-shift needs --team C (the team size)");
    rt_error err = {0};
    struct rt_team_shift_dim dim[3];
    double total, shift;
    if (team_ns(&p, p.k, c, &total, dim, &err) || shift_ns(&p, p.k, &shift, &err))
        return cli_fail(&err);
    const int q = rt_team_shift_rounds(c), M = rt_team_shift_hops(p.k, c);
    static const char formula[] = "sum_d q*T(m_d) + 2M*T(m_d) + sum_{i<q} T(min(2^i,c-2^i)*M*m_d)";
    static const char *const step_names[4] = {"broadcast", "tilt", "shift", "reduce"};
    if (p.fmt == FMT_JSON) {
        printf("{\"program\": \"team-shift\", \"dims\": %d, \"k\": %d, \"team\": %d, \"m1_bytes\": %" PRIu64
               ", \"mode\": \"ssend\", \"alpha_ns\": ",
               p.dims, p.k, c, p.m1);
        cli_print_double(stdout, p.alpha);
        printf(", \"beta_ns_per_byte\": ");
        cli_print_double(stdout, p.beta);
        printf(", \"formula\": \"%s\", \"q\": %d, \"M\": %d, \"iteration_ns\": ", formula, q, M);
        cli_print_double(stdout, total);
        printf(", \"per_dimension\": [");
        for (int d = 0; d < p.dims; d++) {
            const double st[4] = {dim[d].bcast_ns, dim[d].tilt_ns, dim[d].shift_ns, dim[d].reduce_ns};
            printf("%s{\"dim\": %d, \"bytes\": %" PRIu64 ", \"reduce_share_bytes\": %" PRIu64, d ? ", " : "", d + 1,
                   dim[d].bytes, dim[d].reduce_bytes);
            for (int s = 0; s < 4; s++) {
                printf(", \"%s_ns\": ", step_names[s]);
                cli_print_double(stdout, st[s]);
            }
            printf(", \"ns\": ");
            cli_print_double(stdout, dim[d].total_ns);
            printf("}");
        }
        printf("], \"shift_ns\": ");
        cli_print_double(stdout, shift);
        printf(", \"speedup_over_shift\": ");
        cli_print_double(stdout, shift / total);
        printf("}\n");
        return 0;
    }
    char b[6][32];
    printf("team-shift %dD ssend c=%d k=%d m1=%" PRIu64 "B  alpha=%s beta=%.6gns/B\n", p.dims, c, p.k, p.m1,
           rt_format_time(b[0], sizeof b[0], p.alpha), p.beta);
    printf("formula     t = %s, q=%d, M=%d, T(m) = alpha + beta*m\n", formula, q, M);
    for (int d = 0; d < p.dims; d++)
        printf("dim %d       m=%" PRIu64 "B  broadcast %s  tilt %s  shift %s  reduce %s (M*m=%" PRIu64 "B)  = %s\n",
               d + 1, dim[d].bytes, rt_format_time(b[0], sizeof b[0], dim[d].bcast_ns),
               rt_format_time(b[1], sizeof b[1], dim[d].tilt_ns), rt_format_time(b[2], sizeof b[2], dim[d].shift_ns),
               rt_format_time(b[3], sizeof b[3], dim[d].reduce_ns), dim[d].reduce_bytes,
               rt_format_time(b[4], sizeof b[4], dim[d].total_ns));
    printf("iteration   %s (%.1f ns)\n", rt_format_time(b[0], sizeof b[0], total), total);
    printf("shift       %s (%.1f ns), ssend, same k and m1: team-shift is %s (speed-up %.4g)\n",
           rt_format_time(b[1], sizeof b[1], shift), shift,
           total < shift ? "faster" : total > shift ? "slower" : "as fast", shift / total);
    return 0;
}

/* ------------------------------------------------------------------ predict tradeoff */

/* The largest smallest extent of a 3D grid of @p n boxes (over all factorizations). */
static long grid3_min_extent(long n)
{
    long best = 0;
    for (long x = 1; x * x * x <= n; x++) {
        if (n % x)
            continue;
        for (long y = x; y * y <= n / x; y++)
            if ((n / x) % y == 0 && x > best)
                best = x; /* x <= y <= n/(x*y): x is the smallest extent */
    }
    return best;
}

/* The largest k that @p boxes boxes (ranks for Shift, teams for Team Shift) can hold: every ring
 * needs 2k+1 boxes for the cut-off window. */
static long k_limit(int dims, long boxes)
{
    long ring = dims == 1 ? boxes : grid3_min_extent(boxes);
    return (ring - 1) / 2;
}

#define TRADEOFF_MAX_C 64

struct tradeoff_row {
    int c;
    long teams;        /* P/c, 0 without --P */
    long k_valid;      /* largest k the teams hold (k_max without --P) */
    double ns;         /* at the given k (NAN when the teams do not hold it) */
    long crossover;    /* smallest k from which Team Shift stays faster up to k_valid; 0: none */
};

#define TRADEOFF_MAX_TRACES 256  /* --traces options */
#define TRADEOFF_MAX_POINTS 4096 /* runs replayed */

/* A team size's crossover from the replays: over the k at which both it and the Shift were
 * replayed, the smallest from which it stays faster (0: none), beside the closed form's over the
 * same k. */
struct replay_crossover {
    int c, nk;
    long k, closed_k, kmin, kmax;
};

struct tradeoff {
    struct predict_common p;
    long P, k_max, shift_k_valid;
    int nc;
    struct tradeoff_row row[TRADEOFF_MAX_C];
    double shift;
    /* --traces: the replayed runs and what they answer */
    const char *trace_dirs[TRADEOFF_MAX_TRACES];
    int ntrace_dirs;
    struct tradeoff_replays rep;
    struct replay_crossover rx[TRADEOFF_MAX_C];
    int nrx;
    const struct tradeoff_point *rep_best, *rep_shift; /* at p.k: the fastest replayed run; the Shift's */
    const struct tradeoff_point *closed_best;          /* of the same runs, the fastest by closed form */
};

/* Parses --c LIST (comma-separated team sizes, each from 2 to 1000000). */
static int parse_c_list(const char *v, struct tradeoff *t)
{
    if (!v || !*v)
        return cli_die("--c needs a list of team sizes (e.g. 2,4,8)");
    char buf[512];
    if (strlen(v) >= sizeof buf)
        return cli_die("--c: list too long");
    strcpy(buf, v);
    t->nc = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long n;
        if (whole(tok, 2, 1000000, &n))
            return cli_die("bad --c '%s' (team sizes from 2 to 1000000, comma-separated)", tok);
        if (t->nc == TRADEOFF_MAX_C)
            return cli_die("--c: at most %d team sizes", TRADEOFF_MAX_C);
        for (int i = 0; i < t->nc; i++)
            if (t->row[i].c == n)
                return cli_die("--c: team size %ld given twice", n);
        t->row[t->nc++].c = (int)n;
    }
    return t->nc ? 0 : cli_die("--c needs a list of team sizes (e.g. 2,4,8)");
}

static int tradeoff_compute(struct tradeoff *t, rt_error *err)
{
    const struct predict_common *p = &t->p;
    t->shift_k_valid = t->P ? k_limit(p->dims, t->P) : t->k_max;
    if (t->P && t->shift_k_valid < p->k)
        return rt_error_set(err, RT_ERANGE, "%ld ranks do not hold the Shift's cut-off k=%d (a ring needs %d ranks)",
                            t->P, p->k, 2 * p->k + 1);
    if (shift_ns(p, p->k, &t->shift, err))
        return err->code;
    int n = 0;
    for (int i = 0; i < t->nc; i++) {
        struct tradeoff_row r = {.c = t->row[i].c, .ns = NAN};
        if (t->P) {
            if (t->P % r.c)
                continue; /* not a team size of P ranks */
            r.teams = t->P / r.c;
            r.k_valid = k_limit(p->dims, r.teams);
            if (r.k_valid < 1)
                continue;
        } else {
            r.k_valid = t->k_max;
        }
        if (r.k_valid > t->k_max)
            r.k_valid = t->k_max;
        if (r.k_valid > t->shift_k_valid)
            r.k_valid = t->shift_k_valid;
        if (p->k <= r.k_valid && team_ns(p, p->k, r.c, &r.ns, NULL, err))
            return err->code;
        /* From k_valid down: the smallest k from which every larger k (to k_valid) is faster. */
        for (long k = r.k_valid; k >= 1; k--) {
            double ts, tt;
            if (shift_ns(p, (int)k, &ts, err) || team_ns(p, (int)k, r.c, &tt, NULL, err))
                return err->code;
            if (!(tt < ts))
                break;
            r.crossover = k;
        }
        t->row[n++] = r;
    }
    t->nc = n;
    return RT_OK;
}

/* The closed form of a replayed run (c = 1: Shift). */
static int point_closed(const struct predict_common *p, const struct tradeoff_point *q, double *ns, rt_error *err)
{
    return q->c == 1 ? shift_ns(p, q->k, ns, err) : team_ns(p, q->k, q->c, ns, NULL, err);
}

/* Replays every --traces run and derives the answer at p.k and each team size's crossover from
 * the replays alone, and the closed form's over the same runs beside them. */
static int tradeoff_replay(struct tradeoff *t, rt_error *err)
{
    const struct predict_common *p = &t->p;
    for (int i = 0; i < t->ntrace_dirs; i++)
        if (tradeoff_replays_add(&t->rep, t->trace_dirs[i], p, err))
            return err->code;
    if (t->rep.n > TRADEOFF_MAX_POINTS)
        return rt_error_set(err, RT_ERANGE, "--traces: %zu runs, at most %d", t->rep.n, TRADEOFF_MAX_POINTS);
    if (!t->rep.n)
        return rt_error_set(err, RT_EINVAL, "--traces: no %dD ssend run with m1=%" PRIu64 "B among them (%zu skipped, "
                            "the first: %s)", p->dims, p->m1, t->rep.skipped, t->rep.first_skip);
    for (size_t i = 0; i < t->rep.n; i++)
        if (point_closed(p, &t->rep.pt[i], &t->rep.pt[i].closed_ns, err))
            return err->code;
    /* the answer at p.k: the fastest replayed run there, and by closed form among the same runs */
    t->rep_shift = tradeoff_replays_find(&t->rep, 1, p->k);
    for (size_t i = 0; i < t->rep.n; i++) {
        const struct tradeoff_point *q = &t->rep.pt[i];
        if (q->k != p->k || tradeoff_replays_find(&t->rep, q->c, q->k) != q)
            continue;
        if (!t->rep_best || q->ns < t->rep_best->ns)
            t->rep_best = q;
        if (!t->closed_best || q->closed_ns < t->closed_best->closed_ns)
            t->closed_best = q;
    }
    /* each team size's crossover over the k replayed for both it and the Shift: the Shift's k,
     * largest first */
    int ks[TRADEOFF_MAX_POINTS];
    size_t nks = 0;
    for (size_t i = 0; i < t->rep.n; i++) {
        int k = t->rep.pt[i].k;
        if (t->rep.pt[i].c != 1 || tradeoff_replays_find(&t->rep, 1, k) != &t->rep.pt[i])
            continue;
        size_t j = nks++;
        for (; j > 0 && ks[j - 1] < k; j--)
            ks[j] = ks[j - 1];
        ks[j] = k;
    }
    t->nrx = 0;
    for (size_t i = 0; i < t->rep.n && t->nrx < TRADEOFF_MAX_C; i++) {
        const struct tradeoff_point *q = &t->rep.pt[i];
        int seen = q->c == 1;
        for (int j = 0; j < t->nrx; j++)
            seen |= t->rx[j].c == q->c;
        if (seen)
            continue;
        struct replay_crossover x = {.c = q->c};
        int still = 1, still_closed = 1;
        for (size_t j = 0; j < nks; j++) { /* from the largest k down, as tradeoff_compute */
            int k = ks[j];
            const struct tradeoff_point *a = tradeoff_replays_find(&t->rep, 1, k);
            const struct tradeoff_point *b = tradeoff_replays_find(&t->rep, q->c, k);
            if (!b)
                continue;
            x.nk++;
            x.kmin = k;
            if (!x.kmax)
                x.kmax = k;
            still &= b->ns < a->ns;
            still_closed &= b->closed_ns < a->closed_ns;
            if (still)
                x.k = k;
            if (still_closed)
                x.closed_k = k;
        }
        if (x.nk)
            t->rx[t->nrx++] = x;
    }
    return RT_OK;
}

/* The row of the fastest Team Shift at the given k (NULL if none holds it). */
static const struct tradeoff_row *tradeoff_best(const struct tradeoff *t)
{
    const struct tradeoff_row *b = NULL;
    for (int i = 0; i < t->nc; i++)
        if (!isnan(t->row[i].ns) && (!b || t->row[i].ns < b->ns))
            b = &t->row[i];
    return b;
}

/* The row with the smallest crossover k (the smaller c on ties). */
static const struct tradeoff_row *tradeoff_first(const struct tradeoff *t)
{
    const struct tradeoff_row *b = NULL;
    for (int i = 0; i < t->nc; i++)
        if (t->row[i].crossover && (!b || t->row[i].crossover < b->crossover))
            b = &t->row[i];
    return b;
}

static void tradeoff_json(const struct tradeoff *t)
{
    const struct predict_common *p = &t->p;
    printf("{\"program\": \"tradeoff\", \"dims\": %d, \"k\": %d, \"m1_bytes\": %" PRIu64 ", \"mode\": \"ssend\", "
           "\"alpha_ns\": ",
           p->dims, p->k, p->m1);
    cli_print_double(stdout, p->alpha);
    printf(", \"beta_ns_per_byte\": ");
    cli_print_double(stdout, p->beta);
    if (t->P)
        printf(", \"P\": %ld", t->P);
    else
        printf(", \"P\": null");
    printf(", \"k_max\": %ld, \"shift_ns\": ", t->k_max);
    cli_print_double(stdout, t->shift);
    printf(", \"teams\": [");
    for (int i = 0; i < t->nc; i++) {
        const struct tradeoff_row *r = &t->row[i];
        printf("%s{\"c\": %d, ", i ? ", " : "", r->c);
        if (r->teams)
            printf("\"teams\": %ld, ", r->teams);
        else
            printf("\"teams\": null, ");
        printf("\"k_valid\": %ld, \"team_shift_ns\": ", r->k_valid);
        if (isnan(r->ns)) {
            printf("null, \"speedup\": null, \"faster\": null");
        } else {
            cli_print_double(stdout, r->ns);
            printf(", \"speedup\": ");
            cli_print_double(stdout, t->shift / r->ns);
            printf(", \"faster\": %s", r->ns < t->shift ? "true" : "false");
        }
        if (r->crossover)
            printf(", \"crossover_k\": %ld}", r->crossover);
        else
            printf(", \"crossover_k\": null}");
    }
    printf("], \"best\": ");
    const struct tradeoff_row *b = tradeoff_best(t);
    if (b && b->ns < t->shift) {
        printf("{\"algorithm\": \"team-shift\", \"c\": %d, \"ns\": ", b->c);
        cli_print_double(stdout, b->ns);
    } else {
        printf("{\"algorithm\": \"shift\", \"c\": 1, \"ns\": ");
        cli_print_double(stdout, t->shift);
    }
    printf("}, \"first_crossover\": ");
    const struct tradeoff_row *f = tradeoff_first(t);
    if (f)
        printf("{\"c\": %d, \"k\": %ld}", f->c, f->crossover);
    else
        printf("null");
    printf(", \"replays\": ");
    if (!t->ntrace_dirs) {
        printf("null}\n");
        return;
    }
    printf("{\"runs\": [");
    for (size_t i = 0; i < t->rep.n; i++) {
        const struct tradeoff_point *q = &t->rep.pt[i];
        printf("%s{\"trace\": ", i ? ", " : "");
        cli_json_string(stdout, q->path);
        printf(", \"c\": %d, \"k\": %d, \"ranks\": %ld, \"iterations\": %" PRIu64 ", \"replayed_ns\": ", q->c, q->k,
               q->ranks, q->iterations);
        cli_print_double(stdout, q->ns);
        printf(", \"closed_form_ns\": ");
        cli_print_double(stdout, q->closed_ns);
        printf("}");
    }
    printf("], \"skipped\": %zu, \"first_skipped\": ", t->rep.skipped);
    if (t->rep.skipped)
        cli_json_string(stdout, t->rep.first_skip);
    else
        printf("null");
    printf(", \"answer\": ");
    if (t->rep_shift && t->rep_best) {
        printf("{\"algorithm\": \"%s\", \"c\": %d, \"ns\": ", t->rep_best->c == 1 ? "shift" : "team-shift",
               t->rep_best->c);
        cli_print_double(stdout, t->rep_best->ns);
        printf(", \"shift_ns\": ");
        cli_print_double(stdout, t->rep_shift->ns);
        printf(", \"closed_form_c\": %d}", t->closed_best->c);
    } else {
        printf("null");
    }
    printf(", \"crossovers\": [");
    for (int i = 0; i < t->nrx; i++) {
        const struct replay_crossover *x = &t->rx[i];
        printf("%s{\"c\": %d, \"k_replayed\": %d, \"k_min\": %ld, \"k_max\": %ld, \"crossover_k\": ", i ? ", " : "",
               x->c, x->nk, x->kmin, x->kmax);
        if (x->k)
            printf("%ld", x->k);
        else
            printf("null");
        printf(", \"closed_form_crossover_k\": ");
        if (x->closed_k)
            printf("%ld}", x->closed_k);
        else
            printf("null}");
    }
    printf("]}}\n");
}

/* The k (1 to k_valid) at which Team Shift with r->c is faster, as ranges: "2, 4..100". */
static void faster_ranges(const struct tradeoff *t, const struct tradeoff_row *r, char *buf, size_t n)
{
    rt_error err = {0};
    size_t len = 0;
    long start = 0;
    buf[0] = 0;
    for (long k = 1; k <= r->k_valid + 1; k++) {
        double ts = 0, tt = 0;
        int fast = k <= r->k_valid && shift_ns(&t->p, (int)k, &ts, &err) == RT_OK &&
                   team_ns(&t->p, (int)k, r->c, &tt, NULL, &err) == RT_OK && tt < ts;
        if (fast && !start)
            start = k;
        if (!fast && start) {
            if (len + 32 >= n) {
                snprintf(buf + len, n - len, ", ...");
                return;
            }
            if (start == k - 1)
                len += (size_t)snprintf(buf + len, n - len, "%s%ld", len ? ", " : "k = ", start);
            else
                len += (size_t)snprintf(buf + len, n - len, "%s%ld..%ld", len ? ", " : "k = ", start, k - 1);
            start = 0;
        }
    }
    if (!len)
        snprintf(buf, n, "no k up to %ld", r->k_valid);
}

/* The answer from the replays, beside the closed form's for the same runs. */
static void replay_text(const struct tradeoff *t)
{
    const struct predict_common *p = &t->p;
    char b1[32], b2[32];
    printf("\nreplays      %zu runs of the shift benchmark replayed under Hockney at compute scale 0; per\n"
           "             iteration: the slowest rank, mean over the shift_iteration instances\n",
           t->rep.n);
    if (t->rep.skipped)
        printf("skipped      %zu run(s) of other dims, m1 or mode: %s%s\n", t->rep.skipped, t->rep.first_skip,
               t->rep.skipped > 1 ? ", ..." : "");
    printf("%6s %5s %6s %14s %14s %9s  %s\n", "c", "k", "ranks", "replayed", "closed form", "diff", "trace");
    for (size_t i = 0; i < t->rep.n; i++) {
        const struct tradeoff_point *q = &t->rep.pt[i];
        printf("%6d %5d %6ld %14s %14s %8.3f%%  %s\n", q->c, q->k, q->ranks, rt_format_time(b1, sizeof b1, q->ns),
               rt_format_time(b2, sizeof b2, q->closed_ns), 100.0 * (q->ns - q->closed_ns) / q->closed_ns, q->path);
    }
    if (!t->rep_shift || !t->rep_best) {
        printf("replayed     no Shift run at k=%d among the traces: no answer from the replays at this k\n", p->k);
    } else if (t->rep_best->c == 1) {
        printf("replayed     at k=%d, Shift: %s, no replayed team size is faster", p->k,
               rt_format_time(b1, sizeof b1, t->rep_shift->ns));
    } else {
        printf("replayed     at k=%d, Team Shift with c=%d: %s against Shift's %s (speed-up %.4g)", p->k, t->rep_best->c,
               rt_format_time(b1, sizeof b1, t->rep_best->ns), rt_format_time(b2, sizeof b2, t->rep_shift->ns),
               t->rep_shift->ns / t->rep_best->ns);
    }
    if (t->rep_shift && t->rep_best)
        printf("; closed form on the same runs: %s\n", t->closed_best->c == t->rep_best->c ? "the same answer" : "differs");
    for (int i = 0; i < t->nrx; i++) {
        const struct replay_crossover *x = &t->rx[i];
        char ks[64];
        if (x->nk == 1)
            snprintf(ks, sizeof ks, "k = %ld", x->kmin);
        else
            snprintf(ks, sizeof ks, "%d k in %ld..%ld", x->nk, x->kmin, x->kmax);
        printf("%-12s c=%d ", i ? "" : "crossover", x->c);
        if (x->k)
            printf("faster for every replayed k from k=%ld on", x->k);
        else
            printf("not faster at the largest replayed k");
        printf(" (%s replayed for both); closed form: ", ks);
        if (x->closed_k)
            printf("from k=%ld%s\n", x->closed_k, x->closed_k == x->k ? ", the same" : "");
        else
            printf("none%s\n", x->k ? "" : ", the same");
    }
}

static void tradeoff_text(const struct tradeoff *t)
{
    const struct predict_common *p = &t->p;
    char b1[32], b2[32];
    printf("tradeoff %dD ssend k=%d m1=%" PRIu64 "B  alpha=%s beta=%.6gns/B", p->dims, p->k, p->m1,
           rt_format_time(b1, sizeof b1, p->alpha), p->beta);
    if (t->P)
        printf("  P=%ld", t->P);
    printf("\nshift        %s per iteration (sum_d 4k*T(m_d)), one rank per box\n",
           rt_format_time(b1, sizeof b1, t->shift));
    printf("team-shift   c ranks per box (teams of c), the same boxes and k (docs/team-shift.md)\n");
    printf("%6s %7s %14s %9s  %s\n", "c", "teams", "team-shift", "speed-up", "team-shift faster for");
    for (int i = 0; i < t->nc; i++) {
        const struct tradeoff_row *r = &t->row[i];
        char teams[24] = "-", from[96];
        if (r->teams)
            snprintf(teams, sizeof teams, "%ld", r->teams);
        faster_ranges(t, r, from, sizeof from);
        if (isnan(r->ns))
            printf("%6d %7s %14s %9s  %s\n", r->c, teams, "-", "-", from);
        else
            printf("%6d %7s %14s %9.4f  %s\n", r->c, teams, rt_format_time(b1, sizeof b1, r->ns), t->shift / r->ns,
                   from);
    }
    const struct tradeoff_row *b = tradeoff_best(t), *f = tradeoff_first(t);
    if (b && b->ns < t->shift)
        printf("answer       at k=%d, Team Shift with c=%d: %s against Shift's %s (speed-up %.4g)\n", p->k, b->c,
               rt_format_time(b1, sizeof b1, b->ns), rt_format_time(b2, sizeof b2, t->shift), t->shift / b->ns);
    else
        printf("answer       at k=%d, Shift: %s, no team size is faster%s\n", p->k,
               rt_format_time(b1, sizeof b1, t->shift), b ? "" : " (none holds this k)");
    if (f)
        printf("crossover    Team Shift is faster for every k from k=%ld on (c=%d, up to k=%ld)\n", f->crossover, f->c,
               f->k_valid);
    else
        printf("crossover    none up to k=%ld\n", t->k_max);
    if (t->ntrace_dirs)
        replay_text(t);
}

/* The plot: time per iteration against k for Shift and up to 6 team sizes, crossovers marked. */
static int tradeoff_plot(struct plot_out *o, const struct tradeoff *t)
{
    const struct predict_common *p = &t->p;
    int show[6], ns = 0;
    const struct tradeoff_row *b = tradeoff_best(t);
    if (b)
        show[ns++] = (int)(b - t->row);
    for (int i = 0; i < t->nc && ns < 6; i++)
        if (!b || i != b - t->row)
            show[ns++] = i;
    /* k from 1 to twice the largest crossover shown (at least 2k and 10), within what holds */
    long kmax = p->k * 2L > 10 ? p->k * 2L : 10;
    for (int s = 0; s < ns; s++)
        if (t->row[show[s]].crossover * 2 > kmax)
            kmax = t->row[show[s]].crossover * 2;
    if (kmax > t->k_max)
        kmax = t->k_max;
    if (kmax > t->shift_k_valid)
        kmax = t->shift_k_valid;
    if (kmax < 1)
        kmax = 1;
    rt_error err = {0};
    double ymax = 0;
    for (long k = 1; k <= kmax; k++) {
        double v;
        if (shift_ns(p, (int)k, &v, &err) == RT_OK && v > ymax)
            ymax = v;
        for (int s = 0; s < ns; s++)
            if (k <= t->row[show[s]].k_valid && team_ns(p, (int)k, t->row[show[s]].c, &v, NULL, &err) == RT_OK &&
                v > ymax)
                ymax = v;
    }
    struct plot_unit u = plot_time_unit(ymax);
    char what[300], b1[32];
    snprintf(what, sizeof what, "retime predict tradeoff: Shift and Team Shift against k, %dD, m1=%" PRIu64
             "B, alpha=%s, beta=%.6gns/B", p->dims, p->m1, rt_format_time(b1, sizeof b1, p->alpha), p->beta);
    if (plot_begin(o, what))
        return 1;
    FILE *f = o->dat;
    fprintf(f, "# block 0: k shift");
    for (int s = 0; s < ns; s++)
        fprintf(f, " team_shift_c%d", t->row[show[s]].c);
    fprintf(f, " [%s per iteration; NaN: the teams do not hold k]\n", u.name);
    for (long k = 1; k <= kmax; k++) {
        double v = NAN;
        shift_ns(p, (int)k, &v, &err);
        fprintf(f, "%ld %.9g", k, v / u.ns);
        for (int s = 0; s < ns; s++) {
            v = NAN;
            if (k <= t->row[show[s]].k_valid)
                team_ns(p, (int)k, t->row[show[s]].c, &v, NULL, &err);
            fprintf(f, isnan(v) ? " NaN" : " %.9g", v / u.ns);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n\n# block 1: crossovers: k time (one point per team size)\n");
    int marks = 0;
    for (int s = 0; s < ns; s++) {
        const struct tradeoff_row *r = &t->row[show[s]];
        double v;
        if (r->crossover && r->crossover <= kmax && team_ns(p, (int)r->crossover, r->c, &v, NULL, &err) == RT_OK) {
            fprintf(f, "%ld %.9g\n", r->crossover, v / u.ns);
            marks++;
        }
    }
    if (!marks)
        fprintf(f, "NaN NaN\n");
    /* One label per crossover k, above its highest point: several team sizes often share one. */
    fprintf(f, "\n\n# block 2: crossover labels: k time label\n");
    marks = 0;
    for (int s = 0; s < ns; s++) {
        const struct tradeoff_row *r = &t->row[show[s]];
        int first = 1;
        for (int s2 = 0; s2 < s; s2++)
            first &= t->row[show[s2]].crossover != r->crossover;
        if (!r->crossover || r->crossover > kmax || !first)
            continue;
        char cs[128] = "";
        size_t len = 0;
        double top = 0, v;
        for (int s2 = s; s2 < ns; s2++)
            if (t->row[show[s2]].crossover == r->crossover &&
                team_ns(p, (int)r->crossover, t->row[show[s2]].c, &v, NULL, &err) == RT_OK) {
                if (v > top)
                    top = v;
                if (len < sizeof cs)
                    len += (size_t)snprintf(cs + len, sizeof cs - len, "%s%d", len ? "," : "", t->row[show[s2]].c);
            }
        fprintf(f, "%ld %.9g \"c=%s faster from k=%ld\"\n", r->crossover, top / u.ns, cs, r->crossover);
        marks++;
    }
    if (!marks)
        fprintf(f, "NaN NaN \"\"\n");
    if (t->ntrace_dirs) { /* the replayed runs of the Shift and of the team sizes drawn */
        fprintf(f, "\n\n# block 3: replayed traces (--traces): k time c\n");
        marks = 0;
        for (size_t i = 0; i < t->rep.n; i++) {
            const struct tradeoff_point *q = &t->rep.pt[i];
            int drawn = q->c == 1;
            for (int s = 0; s < ns; s++)
                drawn |= t->row[show[s]].c == q->c;
            if (drawn && q->k <= kmax) {
                fprintf(f, "%d %.9g %d\n", q->k, q->ns / u.ns, q->c);
                marks++;
            }
        }
        if (!marks)
            fprintf(f, "NaN NaN 0\n");
    }
    FILE *g = o->gp;
    fprintf(g, "set title ");
    plot_strf(g, "Shift or Team Shift? Time per iteration against the cut-off k (closed forms%s, ssend)\n"
                 "%dD, m1 = %" PRIu64 " B, Hockney alpha = %s, beta = %.6g ns/B%s",
              t->ntrace_dirs ? "; x: replayed traces" : "", p->dims, p->m1, rt_format_time(b1, sizeof b1, p->alpha),
              p->beta, t->P ? "; team sizes that divide P" : "");
    fprintf(g, "\nset xlabel 'cut-off k [boxes]'\nset ylabel ");
    plot_strf(g, "time per iteration [%s]", u.name);
    fprintf(g, "\nset key top left opaque box\nset grid\nset xrange [0.5:%ld.5]\nset yrange [0:*]\n", kmax);
    fprintf(g, "set arrow from %d, graph 0 to %d, graph 1 nohead dt 2 lc rgb '#888888'\n", p->k, p->k);
    fprintf(g, "set label ");
    plot_strf(g, "k = %d", p->k);
    fprintf(g, " at %d, graph 0.04 offset 0.5,0 tc rgb '#888888'\n", p->k);
    fprintf(g, "plot ");
    plot_datafile(o);
    fprintf(g, " index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '%s' title 'Shift (c = 1)'",
            plot_colors[7]);
    for (int s = 0; s < ns; s++) {
        fprintf(g, ", \\\n  '' index 0 using 1:%d with linespoints lw 1.5 pt %d ps 0.6 lc rgb '%s' title ", s + 3,
                5 + s, plot_colors[s % 7]);
        plot_strf(g, "Team Shift c = %d", t->row[show[s]].c);
    }
    fprintf(g, ", \\\n  '' index 1 using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb '%s' title 'crossover', \\\n"
               "  '' index 2 using 1:2:3 with labels left offset 1,1.2 font ',9' notitle",
            plot_colors[1]);
    if (t->ntrace_dirs)
        fprintf(g, ", \\\n  '' index 3 using 1:2 with points pt 2 ps 1.8 lw 2 lc rgb '#000000' title 'replayed traces'");
    fprintf(g, "\n");
    return plot_render(o);
}

int predict_tradeoff(struct args *a)
{
    struct tradeoff t;
    memset(&t, 0, sizeof t);
    predict_common_init(&t.p);
    t.k_max = 0;
    struct plot_out o;
    plot_out_init(&o);
    int have_c = 0;
    const char *v;
    for (a->i = 3; a->i < a->argc; a->i++) {
        int r = predict_common_option(a, &t.p);
        if (r < 0)
            return 1;
        if (r)
            continue;
        r = plot_out_option(a, &o);
        if (r < 0)
            return 1;
        if (r)
            continue;
        long n;
        if (cli_opt(a, "--P", &v)) {
            if (whole(v, 2, 1000000000L, &n))
                return cli_die("bad --P '%s' (the number of ranks, from 2 to 1000000000)", v ? v : "");
            t.P = n;
        } else if (cli_opt(a, "--c", &v) || cli_opt(a, "--team", &v)) {
            if (parse_c_list(v, &t))
                return 1;
            have_c = 1;
        } else if (cli_opt(a, "--k-max", &v)) {
            if (whole(v, 1, 100000, &n))
                return cli_die("bad --k-max '%s' (a whole number from 1 to 100000)", v ? v : "");
            t.k_max = n;
        } else if (cli_opt(a, "--traces", &v)) {
            if (!v || !*v)
                return cli_die("--traces needs a directory: a shift benchmark run or a directory of them");
            if (t.ntrace_dirs == TRADEOFF_MAX_TRACES)
                return cli_die("--traces: at most %d", TRADEOFF_MAX_TRACES);
            t.trace_dirs[t.ntrace_dirs++] = v;
        } else if (cli_opt(a, "--mode", &v)) {
            if (!v || strcmp(v, "ssend"))
                return cli_die("bad --mode '%s' (the tradeoff compares the ssend algorithms)", v ? v : "");
        } else {
            return cli_die("unknown option '%s' for predict tradeoff", a->argv[a->i]);
        }
    }
    if (predict_common_finish(&t.p, "predict tradeoff"))
        return 1;
    if (!t.k_max)
        t.k_max = t.p.k * 4L > 100 ? t.p.k * 4L : 100;
    if (t.k_max < t.p.k)
        return cli_die("--k-max %ld is below --k %d", t.k_max, t.p.k);
    if (t.p.k > 100000)
        return cli_die("predict tradeoff: --k at most 100000");
    if (!have_c) { /* every team size up to 16, or every divisor of P up to 64 */
        int hi = t.P ? TRADEOFF_MAX_C + 1 : 16;
        for (int c = 2; c <= hi && t.nc < TRADEOFF_MAX_C; c++)
            if (!t.P || t.P % c == 0)
                t.row[t.nc++].c = c;
    } else if (t.P) {
        for (int i = 0; i < t.nc; i++)
            if (t.P % t.row[i].c)
                return cli_die("--c %d does not divide --P %ld", t.row[i].c, t.P);
    }
    if (o.prefix && t.p.fmt == FMT_JSON)
        return cli_die("predict tradeoff: --output goes with the text output (its 'wrote' line would follow the JSON)");
    if (o.prefix && plot_out_check(&o, "predict tradeoff"))
        return 1;
    rt_error err = {0};
    if (tradeoff_compute(&t, &err))
        return cli_fail(&err);
    if (t.nc == 0)
        return cli_die("predict tradeoff: no team size of %ld ranks holds k=1 (a ring needs 3 teams)", t.P);
    if (t.ntrace_dirs && tradeoff_replay(&t, &err)) {
        tradeoff_replays_free(&t.rep);
        return cli_fail(&err);
    }
    if (t.p.fmt == FMT_JSON)
        tradeoff_json(&t);
    else
        tradeoff_text(&t);
    int rc = 0;
    if (o.prefix) {
        cli_flush_stdout();
        rc = tradeoff_plot(&o, &t);
        plot_out_close(&o);
    }
    tradeoff_replays_free(&t.rep);
    return rc;
}
