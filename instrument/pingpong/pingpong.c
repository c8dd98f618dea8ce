/* SPDX-License-Identifier: MIT */
/* pingpong: measures the network model parameters of a machine between MPI ranks 0 and 1 and
 * writes them as a retime parameter file (docs/parameter-file.md).
 *
 * Ping-pong timing follows Luecke, Coyle, Hoekstra, Kraeva, Xu 2009, "Measuring MPI latency and
 * communication rates for small messages" (shared/papers/003_*):
 *   §3.1  timer: N back-to-back reads of MPI_Wtime and of clock_gettime(CLOCK_MONOTONIC);
 *         res_timing = min positive difference, min_ov = min non-negative difference; the timer
 *         with the smaller res_timing is used and min_ov is subtracted from every timing.
 *   §3.3  per size: median_ppt = median(npptime / npp_init) over npptrial trials of npp_init
 *         ping-pongs; npp = nint(max(1, res_npp * res_timing / median_ppt)).
 *   §3.2  each timing trial: barrier, hand-shake (rank 1 sends, rank 0 receives and only then
 *         reads the clock), npp ping-pongs with blocking MPI_Send/MPI_Recv.
 *   §3.4  statistics of the one-way time t = trial time / (2 npp) (round trip / 2 per ping-pong):
 *         min, median, mean, max, variance, sigma, CV, SE, RSE; again after dropping the trials
 *         > cut_coef x median; a histogram.
 * Parameter filter: by default the median of the cut trials; with --fastest PCT (Werner et al.,
 * shared/papers/000_*, §6.2.3) the mean of the fastest PCT % of the trials.
 *
 * Hockney (paper 000 §3.1, §4.4), T(m) = alpha + beta m:
 *   alpha = T(0);  beta@m = (T(m) - alpha) / m  (Table 1);
 *   beta = least-squares slope of T(m) = a + b m over all sizes m > 0 (a is reported too).
 *
 * LogP-lite: the parameterised-LogP method of Kielmann, Bal, Verstoep 2000, "Fast measurement of
 * LogP parameters for message passing platforms" (IPDPS 2000 workshops, LNCS 1800, 1176-1183),
 * measured per size m and reduced to scalars. All times are taken on rank 0:
 *   o_s(m) = time in MPI_Send(m); rank 1 answers each message with 0 bytes, which also gives
 *            RTT_s(m) (m bytes there, 0 back).
 *   o_r(m) = time in MPI_Recv(m) of a message rank 1 sends on a 0-byte trigger; the receive is
 *            posted after a busy wait of 2 RTT_s(m), so the message has already arrived.
 *   g(m)   = (time of n back-to-back MPI_Send(m)) / n, n doubled from 10 until the per-message
 *            time changes by < 2 % and the closing 0-byte ack is < 5 % of the stream (saturation).
 *   o_s = o_s(0), o_r = o_r(0), g = g(0);  G = least-squares slope of g(m) over m >= large_from;
 *   L = T(0) - o_s - o_r, clamped at 0 (LogP: half round trip = o_s + L + o_r).
 *   PLogP's own latency, L' = RTT(0)/2 - g(0), is written as info.L_plogp.
 *   Check per size (LogGP): T(m) ~ o_s + L + (m-1) G + o_r.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PP_MAX_SIZES 64
#define PP_MAX_BYTES (1ull << 30)
#define PP_NAME "pingpong"

/* Message tags: one per protocol step, so a protocol bug shows as a hang, not as wrong data. */
enum { TAG_HS = 1, TAG_PP, TAG_CTRL, TAG_DATA, TAG_ACK };

enum pp_timer { PP_TIMER_MONO, PP_TIMER_MPI, PP_TIMER_N };
static const char *const pp_timer_name[PP_TIMER_N] = {"clock_gettime(CLOCK_MONOTONIC)",
                                                      "MPI_Wtime"};

struct pp_opts {
    uint64_t sizes[PP_MAX_SIZES];
    int nsizes;
    long trials, npp_fixed, res_npp, npp_init, npp_trials, timer_reads, logp_reps, warmup, bins;
    double cut_coef, fastest; /* fastest: percent, 0 = not given */
    uint64_t large_from;
    int timer_choice; /* -1 auto, else enum pp_timer */
    int ssend;        /* ping-pong trials (alpha, beta) with MPI_Ssend instead of MPI_Send */
    const char *output, *histogram;
};

/* Distribution of a set of samples (ns): Luecke et al. §3.4. cv and rse are in percent. */
struct pp_stats {
    size_t n;
    double min, median, mean, max, var, sd, cv, se, rse;
};

/* One sample set after sorting, with both filters applied. */
struct pp_dist {
    struct pp_stats all, cut, fast;
    double limit;   /* cut_coef x median of all */
    double value;   /* the statistic the parameters use */
};

struct pp_timer_probe {
    double res, min_ov, median, mean, max;
    size_t zeros, n;
};

struct pp_size {
    uint64_t bytes;
    long npp;
    double median_ppt;   /* round trip per ping-pong in the npp estimate (ns); 0 if --npp */
    double *trial;       /* one-way time per trial (ns), in measurement order */
    struct pp_dist t, os, orr, g, rtt_s;
    long g_n;            /* messages per stream at saturation */
};

struct pp_ctx {
    struct pp_opts o;
    int rank, size;
    MPI_Comm pair; /* ranks 0 and 1 of MPI_COMM_WORLD; MPI_COMM_NULL elsewhere */
    unsigned char *buf;
    uint64_t max_bytes;
    struct pp_timer_probe probe[PP_TIMER_N];
    enum pp_timer timer;
    double min_ov, res;
    struct pp_size *sz;
    double *samples, *scratch; /* rank 0: LogP samples and a sort buffer */
    size_t scratch_n;
    /* results */
    double alpha, beta, beta_icpt, L, L_plogp, os, orr, g, G;
    int L_clamped, beta_clamped, G_clamped, G_fallback;
    char host[256], peer_host[256], mpi_version[256], date[32];
};

/* --- errors and option parsing ---------------------------------------------------------- */

static char pp_err[512];

static int pp_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pp_err, sizeof pp_err, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_long(const char *s, const char *opt, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return pp_fail("bad %s '%s' (want an integer in [%ld, %ld])", opt, s, lo, hi);
    *out = v;
    return 0;
}

/* A size: a non-negative integer with an optional unit. Powers of 1000 (kB, KB, MB) and of 1024
 * (KiB, MiB); a bare integer is bytes. */
static int parse_size(const char *s, size_t len, uint64_t *out)
{
    static const struct {
        const char *name;
        uint64_t bytes;
    } units[] = {{"", 1},          {"B", 1},           {"kB", 1000},       {"KB", 1000},
                 {"MB", 1000000},  {"KiB", 1024},      {"MiB", 1048576}};
    char tmp[64];
    if (len == 0 || len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = 0;
    if (tmp[0] < '0' || tmp[0] > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(tmp, &end, 10);
    if (errno)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].name)) {
            if (v > PP_MAX_BYTES / units[i].bytes)
                return -1;
            *out = v * units[i].bytes;
            return 0;
        }
    return -1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int parse_sizes(const char *s, struct pp_opts *o)
{
    const char *p = s;
    o->nsizes = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (o->nsizes == PP_MAX_SIZES)
            return pp_fail("bad --sizes '%s' (at most %d sizes)", s, PP_MAX_SIZES);
        if (parse_size(p, len, &o->sizes[o->nsizes]) != 0)
            return pp_fail("bad --sizes '%s' at '%.*s' (want sizes such as 0,8,64,1KiB,1MiB; "
                           "units B kB KB MB KiB MiB; at most 1GiB)",
                           s, (int)(len > 32 ? 32 : len), p);
        o->nsizes++;
        if (!comma)
            break;
        p = comma + 1;
    }
    qsort(o->sizes, (size_t)o->nsizes, sizeof o->sizes[0], cmp_u64);
    for (int i = 1; i < o->nsizes; i++)
        if (o->sizes[i] == o->sizes[i - 1])
            return pp_fail("bad --sizes '%s' (size %llu B given twice)", s,
                           (unsigned long long)o->sizes[i]);
    /* alpha is T(0), and beta and G are straight-line fits: they need 0 and two more sizes. */
    if (o->sizes[0] != 0 || o->nsizes < 3)
        return pp_fail("bad --sizes '%s' (must contain 0 and at least two sizes > 0)", s);
    return 0;
}

static int parse_double(const char *s, const char *opt, double lo, double hi, int lo_open,
                        const char *want, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v > hi || (lo_open ? v <= lo : v < lo))
        return pp_fail("bad %s '%s' (%s)", opt, s, want);
    *out = v;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pingpong [--sizes LIST] [--trials N] [--npp N | --res-npp N] [--npp-init N]\n"
            "                [--npp-trials N] [--cut-coef X] [--fastest PCT] [--output FILE]\n"
            "                [--histogram FILE] [--bins N] [--timer auto|monotonic|mpi]\n"
            "                [--timer-reads N] [--warmup N] [--logp-reps N] [--large-from SIZE]\n"
            "                [--send send|ssend]\n"
            "Ping-pong between MPI ranks 0 and 1 (Luecke et al. 2009): timer resolution and\n"
            "overhead, npp per size, per-size statistics of the one-way time (round trip / 2);\n"
            "Hockney alpha/beta and LogP-lite L, o_s, o_r, g, G (Kielmann et al. 2000).\n"
            "Writes the parameter file (default params.txt) and a report on stdout.\n"
            "  --sizes LIST       message sizes, must include 0 (default\n"
            "                     0,1,8,64,256,1KiB,4KiB,16KiB,64KiB,256KiB,1MiB)\n"
            "  --trials N         timing trials per size (1000)\n"
            "  --npp N            ping-pongs per trial, fixed (default: computed per size)\n"
            "  --res-npp N        npp = nint(max(1, res_npp*res_timing/median_ppt)) (50)\n"
            "  --npp-init N       ping-pongs per trial when estimating npp (10)\n"
            "  --npp-trials N     trials when estimating npp (100)\n"
            "  --cut-coef X       drop trials > X * median (2; X >= 1)\n"
            "  --fastest PCT      parameters from the mean of the fastest PCT %% of the trials\n"
            "  --histogram FILE   CSV size_bytes,bin_lo_ns,bin_hi_ns,count of all trials\n"
            "  --bins N           histogram bins between the minimum and the cut limit (20)\n"
            "  --timer-reads N    back-to-back timer reads per timer (1048576)\n"
            "  --warmup N         untimed ping-pongs per size (10)\n"
            "  --logp-reps N      samples of o_s(m) and o_r(m); g(m) takes N/10, at least 3 (100)\n"
            "  --large-from SIZE  smallest size in the fit of G (16KiB)\n"
            "  --send ssend       time the ping-pong trials (alpha, beta) with MPI_Ssend, for programs\n"
            "                     that send synchronously (the Shift paper measured alpha, beta that\n"
            "                     way); LogP-lite stays on MPI_Send (default: send)\n");
}

/* Returns 0 on success, 1 for --help, -1 with pp_err set on a bad option. */
static int parse_opts(int argc, char **argv, struct pp_opts *o)
{
    *o = (struct pp_opts){.trials = 1000, .res_npp = 50, .npp_init = 10, .npp_trials = 100,
                          .timer_reads = 1L << 20, .logp_reps = 100, .warmup = 10, .bins = 20,
                          .cut_coef = 2.0, .large_from = 16384, .timer_choice = -1,
                          .output = "params.txt"};
    int rc = parse_sizes("0,1,8,64,256,1KiB,4KiB,16KiB,64KiB,256KiB,1MiB", o);
    if (rc)
        return rc;
    int have_npp = 0, have_res_npp = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        char name[32];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 1;
        if (strncmp(a, "--", 2) != 0)
            return pp_fail("unexpected argument '%s'", a);
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name)
            return pp_fail("unknown option '%s'", a);
        memcpy(name, a, nlen);
        name[nlen] = 0;
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else
            return pp_fail("option %s needs a value", name);
        if (!strcmp(name, "--sizes")) {
            rc = parse_sizes(v, o);
        } else if (!strcmp(name, "--trials")) {
            rc = parse_long(v, name, 1, 10000000, &o->trials);
        } else if (!strcmp(name, "--npp")) {
            rc = parse_long(v, name, 1, 10000000, &o->npp_fixed);
            have_npp = 1;
        } else if (!strcmp(name, "--res-npp")) {
            rc = parse_long(v, name, 1, 1000000, &o->res_npp);
            have_res_npp = 1;
        } else if (!strcmp(name, "--npp-init")) {
            rc = parse_long(v, name, 1, 1000000, &o->npp_init);
        } else if (!strcmp(name, "--npp-trials")) {
            rc = parse_long(v, name, 1, 10000000, &o->npp_trials);
        } else if (!strcmp(name, "--cut-coef")) {
            rc = parse_double(v, name, 1.0, 1e6, 0,
                              "want a number >= 1: trials above X times the median are dropped",
                              &o->cut_coef);
        } else if (!strcmp(name, "--fastest")) {
            rc = parse_double(v, name, 0.0, 100.0, 1, "want a percentage in (0, 100]",
                              &o->fastest);
        } else if (!strcmp(name, "--output")) {
            rc = *v ? 0 : pp_fail("bad --output '' (want a file name)");
            o->output = v;
        } else if (!strcmp(name, "--histogram")) {
            rc = *v ? 0 : pp_fail("bad --histogram '' (want a file name)");
            o->histogram = v;
        } else if (!strcmp(name, "--bins")) {
            rc = parse_long(v, name, 1, 1000, &o->bins);
        } else if (!strcmp(name, "--timer-reads")) {
            rc = parse_long(v, name, 1000, 1L << 26, &o->timer_reads);
        } else if (!strcmp(name, "--warmup")) {
            rc = parse_long(v, name, 0, 1000000, &o->warmup);
        } else if (!strcmp(name, "--logp-reps")) {
            rc = parse_long(v, name, 3, 1000000, &o->logp_reps);
        } else if (!strcmp(name, "--large-from")) {
            rc = parse_size(v, strlen(v), &o->large_from)
                     ? pp_fail("bad --large-from '%s' (want a size such as 16KiB)", v)
                     : 0;
        } else if (!strcmp(name, "--send")) {
            if (!strcmp(v, "send") || !strcmp(v, "ssend"))
                o->ssend = !strcmp(v, "ssend");
            else
                rc = pp_fail("bad --send '%s' (want send or ssend)", v);
        } else if (!strcmp(name, "--timer")) {
            if (!strcmp(v, "auto"))
                o->timer_choice = -1;
            else if (!strcmp(v, "monotonic"))
                o->timer_choice = PP_TIMER_MONO;
            else if (!strcmp(v, "mpi"))
                o->timer_choice = PP_TIMER_MPI;
            else
                rc = pp_fail("bad --timer '%s' (want auto, monotonic or mpi)", v);
        } else {
            rc = pp_fail("unknown option '%s'", name);
        }
        if (rc)
            return rc;
    }
    if (have_npp && have_res_npp)
        return pp_fail("--npp and --res-npp exclude each other (--npp fixes npp)");
    return 0;
}

/* --- timers ----------------------------------------------------------------------------- */

static enum pp_timer pp_clock = PP_TIMER_MONO;
static time_t pp_mono_base;
static double pp_mpi_base;

/* Nanoseconds since the program's start on the selected timer. The bases keep the values small
 * so that a double holds them to well below a nanosecond. */
static inline double now_ns(void)
{
    if (pp_clock == PP_TIMER_MONO) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)(ts.tv_sec - pp_mono_base) * 1e9 + (double)ts.tv_nsec;
    }
    return (MPI_Wtime() - pp_mpi_base) * 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *x, size_t n)
{
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Luecke et al. §3.1: n back-to-back reads; resolution = min positive difference (0 when every
 * difference is 0), minimum overhead = min non-negative difference. */
static void probe_timer(enum pp_timer t, double *d, size_t n, struct pp_timer_probe *p)
{
    pp_clock = t;
    for (size_t i = 0; i < n; i++) {
        double t1 = now_ns();
        double t2 = now_ns();
        d[i] = t2 - t1;
    }
    *p = (struct pp_timer_probe){.n = n, .res = INFINITY, .min_ov = INFINITY};
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] > 0 && d[i] < p->res)
            p->res = d[i];
        if (d[i] >= 0 && d[i] < p->min_ov)
            p->min_ov = d[i];
        p->zeros += d[i] == 0;
        sum += d[i];
    }
    if (!isfinite(p->res))
        p->res = 0;
    if (!isfinite(p->min_ov))
        p->min_ov = 0;
    p->mean = sum / (double)n;
    qsort(d, n, sizeof *d, cmp_double);
    p->median = median_sorted(d, n);
    p->max = d[n - 1];
}

/* The better timer: the smaller positive resolution, then the smaller overhead. */
static enum pp_timer choose_timer(const struct pp_timer_probe p[PP_TIMER_N])
{
    const struct pp_timer_probe *m = &p[PP_TIMER_MONO], *w = &p[PP_TIMER_MPI];
    if (m->res <= 0)
        return PP_TIMER_MPI;
    if (w->res <= 0)
        return PP_TIMER_MONO;
    if (w->res < 0.99 * m->res)
        return PP_TIMER_MPI;
    if (m->res < 0.99 * w->res)
        return PP_TIMER_MONO;
    return w->min_ov < m->min_ov ? PP_TIMER_MPI : PP_TIMER_MONO;
}

/* Time of code between two reads, less the minimum timer overhead; never negative. */
static inline double elapsed(const struct pp_ctx *c, double t1, double t2)
{
    double d = t2 - t1 - c->min_ov;
    return d > 0 ? d : 0;
}

/* --- statistics ------------------------------------------------------------------------- */

/* Statistics of the first n values of the sorted array x. */
static void stats_sorted(const double *x, size_t n, struct pp_stats *s)
{
    *s = (struct pp_stats){.n = n};
    if (n == 0)
        return;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    s->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (x[i] - s->mean) * (x[i] - s->mean);
    s->min = x[0];
    s->max = x[n - 1];
    s->median = median_sorted(x, n);
    s->var = n > 1 ? sq / (double)(n - 1) : 0.0;
    s->sd = sqrt(s->var);
    s->se = s->sd / sqrt((double)n);
    s->cv = s->mean > 0 ? 100.0 * s->sd / s->mean : 0.0;
    s->rse = s->mean > 0 ? 100.0 * s->se / s->mean : 0.0;
}

/* Sorts a copy of x into the context's scratch buffer and fills d: all samples, those <=
 * cut_coef x median, the fastest PCT %, and the value the parameters use (median of the cut set,
 * or mean of the fastest set when --fastest is given). */
static void distribute(struct pp_ctx *c, const double *x, size_t n, struct pp_dist *d)
{
    double *s = c->scratch;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    stats_sorted(s, n, &d->all);
    d->limit = c->o.cut_coef * d->all.median;
    size_t k = 0;
    while (k < n && s[k] <= d->limit)
        k++;
    stats_sorted(s, k, &d->cut);
    if (c->o.fastest > 0) {
        size_t f = (size_t)ceil((double)n * c->o.fastest / 100.0);
        if (f < 1)
            f = 1;
        if (f > n)
            f = n;
        stats_sorted(s, f, &d->fast);
        d->value = d->fast.mean;
    } else {
        d->value = d->cut.median;
    }
}

/* Least squares y = a + b x over n points; returns -1 when the x do not vary. */
static int least_squares(const double *x, const double *y, int n, double *a, double *b)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (n < 2 || sxx <= 0)
        return -1;
    *b = sxy / sxx;
    *a = my - *b * mx;
    return 0;
}

/* --- measurements (both ranks of the pair run each function; rank 0 times) -------------- */

/* One timing trial of Luecke et al. §3.2 with the hand-shake; returns the elapsed ns on rank 0. */
static double pp_trial(const struct pp_ctx *c, int bytes, long npp)
{
    double hs = 0, t = 0;
    MPI_Barrier(c->pair);
    if (c->rank == 0) {
        MPI_Recv(&hs, 1, MPI_DOUBLE, 1, TAG_HS, c->pair, MPI_STATUS_IGNORE);
        double t1 = now_ns();
        for (long i = 0; i < npp; i++) {
            (c->o.ssend ? MPI_Ssend : MPI_Send)(c->buf, bytes, MPI_BYTE, 1, TAG_PP, c->pair);
            MPI_Recv(c->buf, bytes, MPI_BYTE, 1, TAG_PP, c->pair, MPI_STATUS_IGNORE);
        }
        double t2 = now_ns();
        t = elapsed(c, t1, t2);
    } else {
        MPI_Send(&hs, 1, MPI_DOUBLE, 0, TAG_HS, c->pair);
        for (long i = 0; i < npp; i++) {
            MPI_Recv(c->buf, bytes, MPI_BYTE, 0, TAG_PP, c->pair, MPI_STATUS_IGNORE);
            (c->o.ssend ? MPI_Ssend : MPI_Send)(c->buf, bytes, MPI_BYTE, 0, TAG_PP, c->pair);
        }
    }
    return t;
}

/* npp for one size (§3.3), then the timing trials. */
static void measure_pingpong(struct pp_ctx *c, struct pp_size *s)
{
    const struct pp_opts *o = &c->o;
    const int bytes = (int)s->bytes;
    pp_trial(c, bytes, o->warmup);
    if (o->npp_fixed) {
        s->npp = o->npp_fixed;
    } else {
        double *ppt = c->samples;
        for (long k = 0; k < o->npp_trials; k++)
            ppt[k] = pp_trial(c, bytes, o->npp_init) / (double)o->npp_init;
        if (c->rank == 0) {
            qsort(ppt, (size_t)o->npp_trials, sizeof *ppt, cmp_double);
            s->median_ppt = median_sorted(ppt, (size_t)o->npp_trials);
            double want = s->median_ppt > 0 ? (double)o->res_npp * c->res / s->median_ppt : 1.0;
            if (want < 1.0)
                want = 1.0;
            if (want > 1e7) /* a broken timer must not make a trial run for hours */
                want = 1e7;
            s->npp = lround(want);
        }
        MPI_Bcast(&s->npp, 1, MPI_LONG, 0, c->pair);
    }
    for (long k = 0; k < o->trials; k++) {
        double t = pp_trial(c, bytes, s->npp);
        if (c->rank == 0)
            s->trial[k] = t / (2.0 * (double)s->npp);
    }
}

/* Rank 1 signals that it has entered a protocol step; rank 0 waits for it (PLogP's "sync"). */
static void sync_pair(const struct pp_ctx *c)
{
    if (c->rank == 0)
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_HS, c->pair, MPI_STATUS_IGNORE);
    else
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_HS, c->pair);
}

/* o_s(m) and RTT_s(m): time in MPI_Send(m) on rank 0, each message answered with 0 bytes. The
 * first two rounds warm caches and are not kept. */
static void measure_os(struct pp_ctx *c, struct pp_size *s)
{
    const long reps = c->o.logp_reps;
    const int bytes = (int)s->bytes;
    double *os = c->samples, *rtt = c->samples + reps;
    sync_pair(c);
    for (long r = -2; r < reps; r++) {
        if (c->rank == 0) {
            double t0 = now_ns();
            MPI_Send(c->buf, bytes, MPI_BYTE, 1, TAG_DATA, c->pair);
            double t1 = now_ns();
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, c->pair, MPI_STATUS_IGNORE);
            double t2 = now_ns();
            if (r >= 0) {
                os[r] = elapsed(c, t0, t1);
                rtt[r] = elapsed(c, t0, t2);
            }
        } else {
            MPI_Recv(c->buf, bytes, MPI_BYTE, 0, TAG_DATA, c->pair, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, c->pair);
        }
    }
    if (c->rank == 0) {
        distribute(c, os, (size_t)reps, &s->os);
        distribute(c, rtt, (size_t)reps, &s->rtt_s);
    }
}

/* o_r(m): rank 0 triggers rank 1 with 0 bytes, busy-waits 2 RTT_s(m) (at least 1 us) so the
 * m-byte answer has arrived, then times MPI_Recv(m). Kielmann's code waits 1.2 RTT; twice is
 * kept for margin on shared, noisy nodes. */
static void measure_or(struct pp_ctx *c, struct pp_size *s)
{
    const long reps = c->o.logp_reps;
    const int bytes = (int)s->bytes;
    double *orr = c->samples;
    double delay = 2.0 * s->rtt_s.all.median;
    if (delay < 1000.0)
        delay = 1000.0;
    sync_pair(c);
    for (long r = -2; r < reps; r++) {
        if (c->rank == 0) {
            MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_CTRL, c->pair);
            double w = now_ns();
            while (now_ns() - w < delay)
                ;
            double t0 = now_ns();
            MPI_Recv(c->buf, bytes, MPI_BYTE, 1, TAG_DATA, c->pair, MPI_STATUS_IGNORE);
            double t1 = now_ns();
            if (r >= 0)
                orr[r] = elapsed(c, t0, t1);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_CTRL, c->pair, MPI_STATUS_IGNORE);
            MPI_Send(c->buf, bytes, MPI_BYTE, 0, TAG_DATA, c->pair);
        }
    }
    if (c->rank == 0)
        distribute(c, orr, (size_t)reps, &s->orr);
}

/* One stream of n back-to-back MPI_Send(m) ended by rank 1's 0-byte ack. Rank 0 returns the
 * per-message send time and the total time including the ack. Rank 1 loops on stream lengths
 * until it receives 0. */
static double g_stream(const struct pp_ctx *c, int bytes, long n, double *total)
{
    MPI_Send(&n, 1, MPI_LONG, 1, TAG_CTRL, c->pair);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_HS, c->pair, MPI_STATUS_IGNORE);
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        MPI_Send(c->buf, bytes, MPI_BYTE, 1, TAG_DATA, c->pair);
    double t1 = now_ns();
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, c->pair, MPI_STATUS_IGNORE);
    double t2 = now_ns();
    *total = elapsed(c, t0, t2);
    return elapsed(c, t0, t1) / (double)n;
}

static void g_mirror(const struct pp_ctx *c, int bytes)
{
    for (;;) {
        long n;
        MPI_Recv(&n, 1, MPI_LONG, 0, TAG_CTRL, c->pair, MPI_STATUS_IGNORE);
        if (n == 0)
            return;
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_HS, c->pair);
        for (long i = 0; i < n; i++)
            MPI_Recv(c->buf, bytes, MPI_BYTE, 0, TAG_DATA, c->pair, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, c->pair);
    }
}

/* g(m) by saturation, as in Kielmann et al.'s MPI LogP benchmark: the stream length doubles
 * from 10 until the per-message time changes by less than 2 % and the round trip of the closing
 * ack is under 5 % of the stream, or a stream takes 20 ms, or doubling would pass 2^16. Then
 * max(3, reps/10) streams of that length are the samples. */
static void measure_g(struct pp_ctx *c, struct pp_size *s)
{
    const int bytes = (int)s->bytes;
    if (c->rank != 0) {
        g_mirror(c, bytes);
        return;
    }
    const double rtt = s->rtt_s.all.median;
    double prev = 0, total = 0;
    long n = 10;
    for (int first = 1;; first = 0) {
        double g = g_stream(c, bytes, n, &total);
        int stable = !first && n >= 20 && fabs(g - prev) <= 0.02 * prev && rtt < 0.05 * total;
        if (stable || total > 20e6 || 2 * n > (1L << 16))
            break;
        prev = g;
        n *= 2;
    }
    s->g_n = n;
    long streams = c->o.logp_reps / 10 < 3 ? 3 : c->o.logp_reps / 10;
    double *gs = c->samples;
    for (long r = 0; r < streams; r++)
        gs[r] = g_stream(c, bytes, n, &total);
    long stop = 0;
    MPI_Send(&stop, 1, MPI_LONG, 1, TAG_CTRL, c->pair);
    distribute(c, gs, (size_t)streams, &s->g);
}

static void measure_all(struct pp_ctx *c)
{
    for (int i = 0; i < c->o.nsizes; i++) {
        struct pp_size *s = &c->sz[i];
        measure_pingpong(c, s);
        if (c->rank == 0)
            distribute(c, s->trial, (size_t)c->o.trials, &s->t);
        measure_os(c, s);
        measure_or(c, s);
        measure_g(c, s);
    }
}

/* --- parameters ------------------------------------------------------------------------- */

static void derive(struct pp_ctx *c)
{
    const int n = c->o.nsizes;
    double x[PP_MAX_SIZES], y[PP_MAX_SIZES];
    /* sizes[0] is 0 (checked by the option parser) */
    const struct pp_size *z = &c->sz[0];
    c->alpha = z->t.value;
    c->os = z->os.value;
    c->orr = z->orr.value;
    c->g = z->g.value;
    int k = 0;
    for (int i = 1; i < n; i++) {
        x[k] = (double)c->sz[i].bytes;
        y[k++] = c->sz[i].t.value;
    }
    if (least_squares(x, y, k, &c->beta_icpt, &c->beta) != 0)
        c->beta = 0, c->beta_icpt = c->alpha;
    if (c->beta < 0) {
        c->beta = 0;
        c->beta_clamped = 1;
    }
    /* G from the sizes >= large_from; the two largest sizes when fewer than two qualify. */
    k = 0;
    for (int i = 0; i < n; i++)
        if (c->sz[i].bytes >= c->o.large_from) {
            x[k] = (double)c->sz[i].bytes;
            y[k++] = c->sz[i].g.value;
        }
    if (k < 2) {
        c->G_fallback = 1;
        k = 0;
        for (int i = n - 2; i < n; i++) {
            x[k] = (double)c->sz[i].bytes;
            y[k++] = c->sz[i].g.value;
        }
    }
    double icpt = 0;
    if (least_squares(x, y, k, &icpt, &c->G) != 0)
        c->G = 0;
    if (c->G < 0) {
        c->G = 0;
        c->G_clamped = 1;
    }
    /* With --send ssend alpha includes the synchronisation; L then comes from the MPI_Send
     * round trip that o_s was measured with (same 0-byte exchange, without the ssend). */
    c->L = (c->o.ssend ? z->rtt_s.value / 2.0 : c->alpha) - c->os - c->orr;
    if (c->L < 0) {
        c->L = 0;
        c->L_clamped = 1;
    }
    c->L_plogp = z->rtt_s.value / 2.0 - c->g;
}

static double predict_loggp(const struct pp_ctx *c, uint64_t m)
{
    double bytes_after_first = m > 0 ? (double)(m - 1) : 0.0;
    return c->os + c->L + bytes_after_first * c->G + c->orr;
}

/* --- formatting ------------------------------------------------------------------------- */

/* Up to 6 significant digits in fixed notation (no exponent, for simple parsers), trailing
 * zeros removed. */
static void fmt_sig(char *buf, size_t n, double v)
{
    if (v == 0 || !isfinite(v)) {
        snprintf(buf, n, "0");
        return;
    }
    int mag = (int)floor(log10(fabs(v)));
    int dec = 5 - mag;
    if (dec < 0)
        dec = 0;
    if (dec > 15)
        dec = 15;
    snprintf(buf, n, "%.*f", dec, v);
    if (strchr(buf, '.')) {
        char *e = buf + strlen(buf) - 1;
        while (*e == '0')
            *e-- = 0;
        if (*e == '.')
            *e = 0;
    }
}

/* A time in ns as value+unit (ns, us, ms, s), the unit chosen to keep the number readable. */
static const char *fmt_time(char *buf, size_t n, double ns)
{
    static const struct {
        double scale;
        const char *unit;
    } u[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    size_t i = 0;
    while (i < 3 && fabs(ns) < u[i].scale)
        i++;
    char num[48];
    fmt_sig(num, sizeof num, ns / u[i].scale);
    snprintf(buf, n, "%s%s", num, u[i].unit);
    return buf;
}

static const char *fmt_invbw(char *buf, size_t n, double ns_per_byte)
{
    char num[48];
    fmt_sig(num, sizeof num, ns_per_byte);
    snprintf(buf, n, "%sns/B", num);
    return buf;
}

static const char *fmt_size(char *buf, size_t n, uint64_t b)
{
    if (b >= 1048576 && b % 1048576 == 0)
        snprintf(buf, n, "%lluMiB", (unsigned long long)(b / 1048576));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%lluKiB", (unsigned long long)(b / 1024));
    else
        snprintf(buf, n, "%lluB", (unsigned long long)b);
    return buf;
}

static const char *filter_name(const struct pp_opts *o, char *buf, size_t n)
{
    char num[48];
    if (o->fastest > 0) {
        fmt_sig(num, sizeof num, o->fastest);
        snprintf(buf, n, "fastest%s%%", num);
    } else {
        fmt_sig(num, sizeof num, o->cut_coef);
        snprintf(buf, n, "cut%sxmedian", num);
    }
    return buf;
}

/* --- histogram -------------------------------------------------------------------------- */

/* Bins of one size's trials: `bins` equal bins from the minimum to the cut limit (cut_coef x
 * median), then doubling bins [limit, 2 limit), [2 limit, 4 limit), ... until the maximum is
 * covered, so a heavy tail costs a few rows and no trial is left out. Bins are [lo, hi). */
struct pp_hist {
    double lo, width, limit;
    int body, tail;
    long *count; /* body + tail entries */
};

static int hist_build(const struct pp_ctx *c, const struct pp_size *s, struct pp_hist *h)
{
    const double min = s->t.all.min, max = s->t.all.max;
    *h = (struct pp_hist){.lo = min, .body = (int)c->o.bins, .limit = s->t.limit};
    if (h->limit <= min)
        h->limit = min + 1.0; /* all trials equal: one nanosecond wide */
    h->width = (h->limit - min) / h->body;
    if (max >= h->limit)
        h->tail = (int)floor(log2(max / h->limit)) + 1;
    h->count = calloc((size_t)(h->body + h->tail + 1), sizeof *h->count);
    if (!h->count)
        return -1;
    for (long k = 0; k < c->o.trials; k++) {
        double v = s->trial[k];
        int b;
        if (v < h->limit) {
            b = (int)floor((v - min) / h->width);
            b = b < 0 ? 0 : b >= h->body ? h->body - 1 : b;
        } else {
            b = h->body + (int)floor(log2(v / h->limit));
            b = b >= h->body + h->tail ? h->body + h->tail - 1 : b;
        }
        h->count[b]++;
    }
    return 0;
}

static void hist_bin(const struct pp_hist *h, int b, double *lo, double *hi)
{
    if (b < h->body) {
        *lo = h->lo + b * h->width;
        *hi = b == h->body - 1 ? h->limit : h->lo + (b + 1) * h->width;
    } else {
        *lo = h->limit * ldexp(1.0, b - h->body);
        *hi = 2.0 * *lo;
    }
}

/* --- output ----------------------------------------------------------------------------- */

static void print_stats_row(const char *label, const struct pp_stats *s)
{
    if (s->n == 0) {
        printf("  %-14s %7zu  (no trials)\n", label, s->n);
        return;
    }
    printf("  %-14s %7zu %11.1f %11.1f %11.1f %11.1f %12.4g %10.1f %8.2f %9.3f %8.3f\n", label,
           s->n, s->min, s->median, s->mean, s->max, s->var, s->sd, s->cv, s->se, s->rse);
}

static int report(struct pp_ctx *c)
{
    const struct pp_opts *o = &c->o;
    char a[64], b[64], d[64], f[64];
    printf("# pingpong: ranks 0 (%s) and 1 (%s) of %d; %s\n", c->host, c->peer_host, c->size,
           c->mpi_version);
    printf("# %s; trials=%ld per size; parameters from filter %s (%s)\n\n", c->date, o->trials,
           filter_name(o, f, sizeof f),
           o->fastest > 0 ? "mean of the kept trials" : "median of the kept trials");

    printf("timer (Luecke et al. 3.1, %zu back-to-back read pairs each, ns)\n",
           c->probe[0].n);
    printf("  %-32s %10s %12s %10s %10s %12s %8s\n", "timer", "resolution", "min_overhead",
           "median", "mean", "max", "zeros");
    for (int t = 0; t < PP_TIMER_N; t++) {
        const struct pp_timer_probe *p = &c->probe[t];
        printf("  %-32s %10.1f %12.1f %10.1f %10.1f %12.1f %8zu\n", pp_timer_name[t], p->res,
               p->min_ov, p->median, p->mean, p->max, p->zeros);
    }
    printf("  MPI_Wtick() = %s\n", fmt_time(a, sizeof a, MPI_Wtick() * 1e9));
    printf("  using %s (%s): res_timing = %.1f ns; min_overhead %.1f ns is subtracted from every "
           "timing\n\n",
           pp_timer_name[c->timer],
           o->timer_choice >= 0 ? "--timer" : "smaller resolution, then smaller overhead", c->res,
           c->min_ov);

    printf("npp per size (%s)\n", o->npp_fixed ? "fixed by --npp"
                                               : "nint(max(1, res_npp*res_timing/median_ppt))");
    printf("  %10s %16s %8s\n", "size", "median_ppt[ns]", "npp");
    for (int i = 0; i < o->nsizes; i++)
        printf("  %10s %16.1f %8ld\n", fmt_size(a, sizeof a, c->sz[i].bytes), c->sz[i].median_ppt,
               c->sz[i].npp);
    if (!o->npp_fixed)
        printf("  res_npp=%ld, npp_init=%ld, npptrial=%ld; median_ppt is a whole round trip\n",
               o->res_npp, o->npp_init, o->npp_trials);

    printf("\none-way time per trial = trial time / (2 npp), i.e. round trip / 2 per ping-pong "
           "(ns; cv and rse in %%)\n");
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        char lab[96];
        printf("size %s (npp %ld)\n", fmt_size(a, sizeof a, s->bytes), s->npp);
        printf("  %-14s %7s %11s %11s %11s %11s %12s %10s %8s %9s %8s\n", "filter", "n", "min",
               "median", "mean", "max", "variance", "sigma", "cv", "se", "rse");
        print_stats_row("all", &s->t.all);
        fmt_sig(b, sizeof b, o->cut_coef);
        snprintf(lab, sizeof lab, "<= %sx median", b);
        print_stats_row(lab, &s->t.cut);
        if (o->fastest > 0) {
            fmt_sig(b, sizeof b, o->fastest);
            snprintf(lab, sizeof lab, "fastest %s%%", b);
            print_stats_row(lab, &s->t.fast);
        }
        printf("  dropped by the cut: %zu of %zu", s->t.all.n - s->t.cut.n, s->t.all.n);
        if (s->bytes > 0 && s->t.all.median > 0) /* bytes per ns = GB/s, so x 1000 for MB/s */
            printf("; rate at the median %.2f MB/s", (double)s->bytes / s->t.all.median * 1e3);
        printf("\n");
    }

    printf("\nhistogram of the one-way time per trial (all trials; bins [lo, hi) ns)\n");
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        struct pp_hist h;
        if (hist_build(c, s, &h) != 0)
            return pp_fail("out of memory for a histogram");
        long peak = 1;
        for (int k = 0; k < h.body + h.tail; k++)
            peak = h.count[k] > peak ? h.count[k] : peak;
        printf("size %s\n", fmt_size(a, sizeof a, s->bytes));
        for (int k = 0; k < h.body + h.tail; k++) {
            double lo, hi;
            hist_bin(&h, k, &lo, &hi);
            int bar = (int)(40.0 * (double)h.count[k] / (double)peak + 0.5);
            printf("  %12.1f %12.1f %8ld %.*s\n", lo, hi, h.count[k], bar,
                   "########################################");
        }
        free(h.count);
    }

    printf("\nHockney (paper 000 3.1, 4.4): T(m) = one-way time, %s\n",
           o->fastest > 0 ? "mean of the fastest trials" : "median of the cut trials");
    printf("  %10s %14s %16s\n", "size", "T(m)[ns]", "beta@m[ns/B]");
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        if (s->bytes == 0)
            printf("  %10s %14.1f %16s\n", fmt_size(a, sizeof a, s->bytes), s->t.value, "-");
        else
            printf("  %10s %14.1f %16.6f\n", fmt_size(a, sizeof a, s->bytes), s->t.value,
                   (s->t.value - c->alpha) / (double)s->bytes);
    }
    printf("  alpha = %s (T(0))\n", fmt_time(a, sizeof a, c->alpha));
    printf("  beta  = %s (least squares over the sizes > 0; fitted intercept %s)%s\n",
           fmt_invbw(b, sizeof b, c->beta), fmt_time(d, sizeof d, c->beta_icpt),
           c->beta_clamped ? " [slope was negative, clamped at 0]" : "");

    printf("\nLogP-lite (Kielmann, Bal, Verstoep 2000, PLogP; all on rank 0, ns)\n");
    printf("  %10s %12s %12s %12s %12s %8s\n", "size", "o_s(m)", "o_r(m)", "g(m)", "RTT_s(m)",
           "stream");
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        printf("  %10s %12.1f %12.1f %12.1f %12.1f %8ld\n", fmt_size(a, sizeof a, s->bytes),
               s->os.value, s->orr.value, s->g.value, s->rtt_s.value, s->g_n);
    }
    printf("  o_s = o_s(0) = %s, o_r = o_r(0) = %s, g = g(0) = %s\n", fmt_time(a, sizeof a, c->os),
           fmt_time(b, sizeof b, c->orr), fmt_time(d, sizeof d, c->g));
    printf("  G = %s (least squares of g(m) over %s)%s\n", fmt_invbw(a, sizeof a, c->G),
           c->G_fallback ? "the two largest sizes: fewer than two sizes >= --large-from"
                         : "the sizes >= --large-from",
           c->G_clamped ? " [slope was negative, clamped at 0]" : "");
    if (c->os < 2 * c->res || c->orr < 2 * c->res)
        printf("  note: o_s or o_r is below 2 x res_timing (%.1f ns); PLogP times single calls, "
               "so take it as uncertain by about res_timing\n",
               c->res);
    printf("  L = T(0) - o_s - o_r = %s%s; PLogP's RTT(0)/2 - g(0) = %s\n",
           fmt_time(a, sizeof a, c->L),
           c->L_clamped ? " [negative, clamped at 0: o_s + o_r exceed the half round trip]" : "",
           fmt_time(b, sizeof b, c->L_plogp));

    printf("\ncheck: measured T(m) against LogGP o_s + L + (m-1) G + o_r and Hockney "
           "alpha + beta m (ns)\n");
    printf("  %10s %12s %12s %8s %12s %8s\n", "size", "measured", "LogGP", "diff%", "Hockney",
           "diff%");
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        double pl = predict_loggp(c, s->bytes), ph = c->alpha + c->beta * (double)s->bytes;
        double t = s->t.value;
        printf("  %10s %12.1f %12.1f %8.1f %12.1f %8.1f\n", fmt_size(a, sizeof a, s->bytes), t,
               pl, t > 0 ? 100.0 * (pl - t) / t : 0.0, ph, t > 0 ? 100.0 * (ph - t) / t : 0.0);
    }
    return 0;
}

/* info.* values end at '#' for the parser and at a line end for us: replace both. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if (*s == '#' || *s == '\n' || *s == '\r' || (unsigned char)*s < 0x20)
            *s = ' ';
}

static void write_params(const struct pp_ctx *c, FILE *f)
{
    const struct pp_opts *o = &c->o;
    char a[64], b[64], k[64];
    fprintf(f, "# retime network parameters measured by pingpong (instrument/pingpong),\n"
               "# format: docs/parameter-file.md\n");
    fprintf(f, "format = retime-params 1\n");
    fprintf(f, "alpha = %-14s # Hockney latency: half round trip at 0 bytes (%s)\n",
            fmt_time(a, sizeof a, c->alpha), c->o.ssend ? "MPI_Ssend" : "MPI_Send");
    fprintf(f, "beta = %-15s # Hockney inverse bandwidth: least squares over sizes > 0%s\n",
            fmt_invbw(a, sizeof a, c->beta), c->beta_clamped ? " (negative slope, clamped)" : "");
    fprintf(f, "L = %-18s # LogP-lite latency: %s - o_s - o_r%s\n", fmt_time(a, sizeof a, c->L),
            c->o.ssend ? "MPI_Send RTT(0)/2" : "alpha",
            c->L_clamped ? " (negative, clamped at 0)" : "");
    fprintf(f, "o_s = %-16s # send overhead: time in MPI_Send of 0 bytes\n",
            fmt_time(a, sizeof a, c->os));
    fprintf(f, "o_r = %-16s # receive overhead: MPI_Recv of 0 bytes that has already arrived\n",
            fmt_time(a, sizeof a, c->orr));
    fprintf(f, "g = %-18s # gap: per-message time of back-to-back 0-byte sends\n",
            fmt_time(a, sizeof a, c->g));
    fprintf(f, "G = %-18s # gap per byte: least squares of g(m) over %s\n",
            fmt_invbw(a, sizeof a, c->G),
            c->G_fallback ? "the two largest sizes" : "the large sizes");
    fprintf(f, "\n# Table 1 of Werner et al.: (T(m) - alpha) / m per size\n");
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        if (s->bytes == 0)
            continue;
        snprintf(k, sizeof k, "beta@%lluB", (unsigned long long)s->bytes);
        double beta_m = (s->t.value - c->alpha) / (double)s->bytes;
        fprintf(f, "%s = %s\n", k, fmt_invbw(a, sizeof a, beta_m));
    }
    fprintf(f, "\n# for people: the replay ignores info.*\n");
    fprintf(f, "info.host = %s\n", c->host);
    fprintf(f, "info.peer_host = %s\n", c->peer_host);
    fprintf(f, "info.date = %s\n", c->date);
    fprintf(f, "info.mpi = %s\n", c->mpi_version);
    fprintf(f, "info.ranks = %d\n", c->size);
    fprintf(f, "info.method = kielmann2000-plogp\n");
    fprintf(f, "info.send = %s\n", c->o.ssend ? "MPI_Ssend" : "MPI_Send");
    fprintf(f, "info.pingpong = luecke2009\n");
    fprintf(f, "info.filter = %s\n", filter_name(o, a, sizeof a));
    fprintf(f, "info.statistic = %s\n", o->fastest > 0 ? "mean" : "median");
    fprintf(f, "info.timer = %s\n", pp_timer_name[c->timer]);
    fprintf(f, "info.timer_resolution = %s\n", fmt_time(a, sizeof a, c->res));
    fprintf(f, "info.timer_overhead = %s\n", fmt_time(a, sizeof a, c->min_ov));
    fprintf(f, "info.trials = %ld\n", o->trials);
    if (o->npp_fixed)
        fprintf(f, "info.npp = %ld\n", o->npp_fixed);
    else
        fprintf(f, "info.res_npp = %ld\n", o->res_npp);
    fprintf(f, "info.beta_intercept = %s\n", fmt_time(a, sizeof a, c->beta_icpt));
    fprintf(f, "info.L_plogp = %s\n", fmt_time(a, sizeof a, c->L_plogp));
    fprintf(f, "info.large_from = %lluB\n", (unsigned long long)o->large_from);
    for (int i = 0; i < o->nsizes; i++) {
        const struct pp_size *s = &c->sz[i];
        unsigned long long m = (unsigned long long)s->bytes;
        fprintf(f, "info.npp@%lluB = %ld\n", m, s->npp);
        fprintf(f, "info.T@%lluB = %s\n", m, fmt_time(a, sizeof a, s->t.value));
        fprintf(f, "info.sigma@%lluB = %s\n", m, fmt_time(a, sizeof a, s->t.all.sd));
        fprintf(f, "info.o_s@%lluB = %s\n", m, fmt_time(a, sizeof a, s->os.value));
        fprintf(f, "info.o_r@%lluB = %s\n", m, fmt_time(a, sizeof a, s->orr.value));
        fprintf(f, "info.g@%lluB = %s\n", m, fmt_time(b, sizeof b, s->g.value));
    }
}

static int write_histogram(const struct pp_ctx *c, FILE *f)
{
    fprintf(f, "size_bytes,bin_lo_ns,bin_hi_ns,count\n");
    for (int i = 0; i < c->o.nsizes; i++) {
        struct pp_hist h;
        if (hist_build(c, &c->sz[i], &h) != 0)
            return pp_fail("out of memory for a histogram");
        for (int k = 0; k < h.body + h.tail; k++) {
            double lo, hi;
            hist_bin(&h, k, &lo, &hi);
            fprintf(f, "%llu,%.3f,%.3f,%ld\n", (unsigned long long)c->sz[i].bytes, lo, hi,
                    h.count[k]);
        }
        free(h.count);
    }
    return 0;
}

/* --- setup, output files and main -------------------------------------------------------- */

/* An output file is written under a temporary name and renamed into place when complete, so a
 * failed run never leaves a half-written parameter file. Opening it before the measurement
 * makes a bad path fail in a second, not after a minute. */
struct pp_out {
    const char *path;
    char tmp[4096];
    FILE *f;
};

static int out_open(struct pp_out *w, const char *path)
{
    w->path = path;
    w->f = NULL;
    if (!path)
        return 0;
    if (snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof w->tmp)
        return pp_fail("output path too long: %s", path);
    w->f = fopen(w->tmp, "w");
    if (!w->f)
        return pp_fail("cannot write %s: %s", path, strerror(errno));
    return 0;
}

static int out_commit(struct pp_out *w)
{
    if (!w->f)
        return 0;
    int bad = ferror(w->f);
    bad |= fclose(w->f) != 0;
    w->f = NULL;
    if (bad || rename(w->tmp, w->path) != 0) {
        int e = errno;
        remove(w->tmp);
        return pp_fail("cannot write %s: %s", w->path, strerror(e));
    }
    return 0;
}

static void out_abort(struct pp_out *w)
{
    if (w->f) {
        fclose(w->f);
        remove(w->tmp);
        w->f = NULL;
    }
}

static void free_ctx(struct pp_ctx *c)
{
    if (c->sz)
        for (int i = 0; i < c->o.nsizes; i++)
            free(c->sz[i].trial);
    free(c->sz);
    free(c->buf);
    free(c->samples);
    free(c->scratch);
    if (c->pair != MPI_COMM_NULL)
        MPI_Comm_free(&c->pair);
}

/* Buffers for ranks 0 and 1. */
static int setup(struct pp_ctx *c)
{
    const struct pp_opts *o = &c->o;
    c->max_bytes = o->sizes[o->nsizes - 1];
    c->buf = malloc((size_t)c->max_bytes ? (size_t)c->max_bytes : 1);
    /* samples: npptrial round trips, or 2 x logp_reps for o_s with RTT_s */
    size_t ns = (size_t)o->npp_trials;
    if ((size_t)(2 * o->logp_reps) > ns)
        ns = (size_t)(2 * o->logp_reps);
    c->samples = malloc(ns * sizeof *c->samples);
    c->sz = calloc((size_t)o->nsizes, sizeof *c->sz);
    if (!c->buf || !c->samples || !c->sz)
        return pp_fail("rank %d: out of memory for buffers", c->rank);
    for (int i = 0; i < o->nsizes; i++)
        c->sz[i].bytes = o->sizes[i];
    if (c->rank != 0)
        return 0;
    c->scratch_n = (size_t)o->trials > ns ? (size_t)o->trials : ns;
    if (c->scratch_n < (size_t)o->timer_reads)
        c->scratch_n = (size_t)o->timer_reads;
    c->scratch = malloc(c->scratch_n * sizeof *c->scratch);
    if (!c->scratch)
        return pp_fail("out of memory for the results");
    for (int i = 0; i < o->nsizes; i++) {
        c->sz[i].trial = malloc((size_t)o->trials * sizeof *c->sz[i].trial);
        if (!c->sz[i].trial)
            return pp_fail("out of memory for %ld trials", o->trials);
    }
    return 0;
}

/* Host names, date and library of the run, for the info.* keys. */
static void describe(struct pp_ctx *c)
{
    char name[256] = "";
    if (gethostname(name, sizeof name - 1) != 0)
        snprintf(name, sizeof name, "unknown");
    name[sizeof name - 1] = 0;
    if (c->rank == 0) {
        snprintf(c->host, sizeof c->host, "%s", name);
        MPI_Recv(c->peer_host, (int)sizeof c->peer_host, MPI_CHAR, 1, TAG_CTRL, c->pair,
                 MPI_STATUS_IGNORE);
        c->peer_host[sizeof c->peer_host - 1] = 0;
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        lib[len < (int)sizeof lib ? len : (int)sizeof lib - 1] = 0;
        lib[strcspn(lib, "\n")] = 0;
        snprintf(c->mpi_version, sizeof c->mpi_version, "%s", lib);
        time_t now = time(NULL);
        struct tm tm;
        if (gmtime_r(&now, &tm))
            strftime(c->date, sizeof c->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        sanitize(c->host);
        sanitize(c->peer_host);
        sanitize(c->mpi_version);
    } else {
        MPI_Send(name, (int)sizeof name, MPI_CHAR, 0, TAG_CTRL, c->pair);
    }
}

/* Timer probe on rank 0, the only rank that times anything. */
static void timers(struct pp_ctx *c)
{
    if (c->rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        pp_mono_base = ts.tv_sec;
        pp_mpi_base = MPI_Wtime();
        for (int t = 0; t < PP_TIMER_N; t++)
            probe_timer((enum pp_timer)t, c->scratch, (size_t)c->o.timer_reads, &c->probe[t]);
        c->timer = c->o.timer_choice >= 0 ? (enum pp_timer)c->o.timer_choice
                                          : choose_timer(c->probe);
        pp_clock = c->timer;
        c->res = c->probe[c->timer].res;
        c->min_ov = c->probe[c->timer].min_ov;
    }
    /* rank 1 needs none of it; the barrier keeps it from spinning in a receive meanwhile */
    MPI_Barrier(c->pair);
}

/* The final barrier. Ranks other than 0 and 1 wait in it for the whole measurement; MPI
 * libraries busy-poll in MPI_Barrier, which would take a core from the measuring pair on a small
 * or oversubscribed node, so they test a non-blocking barrier every millisecond instead. */
static void idle_barrier(void)
{
    /* Every rank takes the non-blocking form: MPI does not match it with MPI_Barrier. */
    MPI_Request rq;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    for (;;) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct pp_ctx c = {.pair = MPI_COMM_NULL};
    struct pp_out params = {0}, hist = {0};
    int status = 0, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);

    /* Every rank parses the same arguments, so all agree on the outcome; rank 0 reports. */
    int rc = parse_opts(argc, argv, &c.o);
    if (rc == 1) {
        if (c.rank == 0)
            usage(stdout);
        goto done;
    }
    if (rc == 0 && c.size < 2)
        rc = pp_fail("needs at least 2 MPI ranks (ping-pong between ranks 0 and 1), got %d",
                     c.size);
    if (rc != 0) {
        if (c.rank == 0)
            fprintf(stderr, PP_NAME ": error: %s\n", pp_err);
        status = 2;
        goto done;
    }

    /* Ranks 2.. wait in the final barrier. */
    MPI_Comm_split(MPI_COMM_WORLD, c.rank < 2 ? 0 : MPI_UNDEFINED, c.rank, &c.pair);
    if (c.rank < 2) {
        rc = setup(&c);
        if (rc == 0 && c.rank == 0)
            rc = out_open(&params, c.o.output);
        if (rc == 0 && c.rank == 0)
            rc = out_open(&hist, c.o.histogram);
        if (rc != 0)
            fprintf(stderr, PP_NAME ": error: %s\n", pp_err);
        ok = rc == 0;
        int all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.pair);
        ok = all_ok;
    }
    if (!ok) {
        status = 1;
        goto done;
    }
    if (c.rank < 2) {
        describe(&c);
        timers(&c);
        measure_all(&c);
    }
    if (c.rank == 0) {
        derive(&c);
        rc = report(&c);
        if (rc == 0) {
            write_params(&c, params.f);
            rc = out_commit(&params);
        }
        if (rc == 0 && hist.f) {
            rc = write_histogram(&c, hist.f);
            if (rc == 0)
                rc = out_commit(&hist);
        }
        fflush(stdout);
        if (rc != 0) {
            fprintf(stderr, PP_NAME ": error: %s\n", pp_err);
            status = 1;
        } else {
            printf("\nwrote %s%s%s\n", c.o.output, c.o.histogram ? " and " : "",
                   c.o.histogram ? c.o.histogram : "");
        }
    }

done:
    out_abort(&params);
    out_abort(&hist);
    idle_barrier();
    free_ctx(&c);
    MPI_Finalize();
    return status;
}
