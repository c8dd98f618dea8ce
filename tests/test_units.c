/* SPDX-License-Identifier: MIT */
/* Unit tests: parsing of numbers with units, model parameter files and model validation. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "retime/model.h"
#include "retime/noise.h"
#include "retime/replay.h"
#include "retime/units.h"
#include "test_util.h"

static const char *write_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/retime-test-params-%d.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_params_file(void)
{
    rt_error err = {0};
    struct rt_model_params p = {0};
    unsigned given = 0;
    struct rt_param_settings ps = {0};
    const char *f = write_file("# written by pingpong\n"
                               "format = retime-params 1\n"
                               "alpha = 2.122us   # half round trip\n"
                               "beta = 0.7595ns/B\n"
                               "beta@1024B = 0.81ns/B\n"
                               "info.host = node 17 (rack 2)\n"
                               "\n"
                               "L=1.9us\n o_s = 300ns\n\to_r = 0.35us\r\n"
                               "g = 0.5us\nG = 0.76ns/B\neager_limit = 32KiB\ninjection = shared\n");
    CHECK_EQ_INT(rt_model_params_load(f, &p, &given, &ps, &err), RT_OK);
    CHECK_NEAR(p.alpha_ns, 2122.0, 1e-9);
    CHECK_NEAR(p.beta_ns_per_byte, 0.7595, 1e-12);
    CHECK_NEAR(p.L_ns, 1900.0, 1e-9);
    CHECK_NEAR(p.o_s_ns, 300.0, 0);
    CHECK_NEAR(p.o_r_ns, 350.0, 1e-9);
    CHECK_NEAR(p.g_ns, 500.0, 0);
    CHECK_NEAR(p.G_ns_per_byte, 0.76, 1e-12);
    CHECK_EQ_INT(given, 0x7f); /* all seven parameters */
    CHECK_EQ_INT(ps.have_eager, 1);
    CHECK_EQ_INT(ps.eager_limit, 32768);
    CHECK_EQ_INT(ps.have_injection, 1);
    CHECK_EQ_INT(ps.injection, RT_INJECT_SHARED);
    CHECK_EQ_INT(p.nbeta, 1);
    CHECK_EQ_INT(p.beta_size[0], 1024);
    CHECK_NEAR(p.beta_at[0], 0.81, 1e-12);

    /* A UTF-8 byte-order mark before the first key is not part of it (#47: "format" was unknown,
     * quoted with the raw bytes); eager_limit as a library's setting (#46: Open MPI's 4096 B less
     * its 56 B header) */
    struct rt_model_params bp = {0};
    given = 0;
    f = write_file("\xEF\xBB\xBF" "format = retime-params 1\nalpha = 1us\neager_limit = btl_vader_eager_limit=4096\n");
    CHECK_EQ_INT(rt_model_params_load(f, &bp, &given, &ps, &err), RT_OK);
    CHECK_NEAR(bp.alpha_ns, 1000.0, 0);
    CHECK_EQ_INT(ps.eager_limit, 4040);

    /* The β table: sorted on load, T piecewise linear through (0, α) and (s_i, α + β_i·s_i). */
    struct rt_model_params t = {0};
    given = 0;
    f = write_file("alpha = 1000ns\nbeta@1000B = 2ns/B\nbeta@10B = -10ns/B\nbeta@100B = 0.5ns/B\n");
    CHECK_EQ_INT(rt_model_params_load(f, &t, &given, &ps, &err), RT_OK);
    CHECK_EQ_INT(t.nbeta, 3);
    CHECK_EQ_INT(t.beta_size[0], 10);
    CHECK_EQ_INT(t.beta_size[2], 1000);
    struct rt_model hm;
    CHECK_EQ_INT(rt_model_init(&hm, "hockney", &t, &err), RT_OK);
    CHECK_EQ_INT(hm.ops->wire(&hm.params, 0), 1000000);         /* α */
    CHECK_EQ_INT(hm.ops->wire(&hm.params, 10), 900000);         /* 1000 - 10·10 */
    CHECK_EQ_INT(hm.ops->wire(&hm.params, 5), 950000);          /* halfway from (0, 1000) */
    CHECK_EQ_INT(hm.ops->wire(&hm.params, 100), 1050000);       /* 1000 + 0.5·100 */
    CHECK_EQ_INT(hm.ops->wire(&hm.params, 550), 2025000);       /* halfway between 1050 and 3000 */
    CHECK_EQ_INT(hm.ops->wire(&hm.params, 2000), 5000000);      /* beyond: 1000 + 2·2000 */
    t.beta_at[2] = -1; /* the largest size's β must not be negative */
    CHECK_EQ_INT(rt_model_init(&hm, "hockney", &t, &err), RT_ERANGE);
    t.beta_at[2] = 2;
    t.beta_at[0] = -200; /* T(10) = 1000 - 2000 < 0 */
    CHECK_EQ_INT(rt_model_init(&hm, "hockney", &t, &err), RT_ERANGE);
    CHECK_CONTAINS(err.msg, "beta@10B gives T = -1000 ns");

    /* A file with only some keys sets only those. */
    struct rt_model_params q = {.alpha_ns = 5};
    given = 0;
    f = write_file("beta = 1ns/B\n");
    CHECK_EQ_INT(rt_model_params_load(f, &q, &given, &ps, &err), RT_OK);
    CHECK_NEAR(q.alpha_ns, 5, 0);
    CHECK_EQ_INT(given, 1u << rt_model_param_find("beta"));

    static const struct {
        const char *text, *msg;
        int code;
    } bad[] = {
        {"alpha = 2.122\n", ":1: alpha: bad duration '2.122': needs a unit", RT_EUNIT},
        {"# c\nalfa = 2us\n", ":2: alfa: unknown key 'alfa'", RT_EINVAL},
        {"alpha 2us\n", ":1: expected 'key = value'", RT_ECORRUPT},
        {"alpha =\n", ":1: expected 'key = value'", RT_ECORRUPT},
        {"format = retime-params 2\n", "is not 'retime-params 1'", RT_EUNSUPPORTED},
        {"G = -1ns/B\n", "must not be negative", RT_EUNIT},
        {"beta@0B = 1ns/B\n", ":1: beta@0B: size must be above 0", RT_ERANGE},
        {"beta@8B = 1ns/B\nbeta@8 = 2ns/B\n", ":2: beta@8: size 8 B given twice", RT_EINVAL},
        {"beta@8XB = 1ns/B\n", ":1: beta@8XB: bad size", RT_EUNIT},
        {"injection = fair\n", ":1: injection: injection 'fair': must be in-order or shared", RT_EINVAL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = write_file(bad[i].text);
        CHECK_EQ_INT(rt_model_params_load(f, &q, &given, &ps, &err), bad[i].code);
        CHECK_CONTAINS(err.msg, bad[i].msg);
        CHECK_CONTAINS(err.msg, f); /* names the file */
    }
    remove(f);
    CHECK_EQ_INT(rt_model_params_load("/nonexistent/params.txt", &q, &given, &ps, &err),
                 RT_ENOTFOUND);
    CHECK_CONTAINS(err.msg, "/nonexistent/params.txt: cannot open parameter file");
}

static void test_model_validation(void)
{
    rt_error err = {0};
    struct rt_model m;
    struct rt_model_params p = {.alpha_ns = 1, .beta_ns_per_byte = 1, .L_ns = 1, .g_ns = -1};
    CHECK_EQ_INT(rt_model_init(&m, "hockney", &p, &err), RT_OK); /* g is not Hockney's */
    CHECK_EQ_INT(rt_model_init(&m, "logp", &p, &err), RT_ERANGE);
    CHECK_CONTAINS(err.msg, "logp: g must be between 0 and 1000s");
    CHECK_EQ_INT(rt_model_init(&m, "loggp", &p, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "unknown model 'loggp' (known: hockney|logp)");
    p.g_ns = 1;
    CHECK_EQ_INT(rt_model_init(&m, "logp", &p, &err), RT_OK);
    /* LogP-lite pieces for m = 1000: wire = L + 999·G, gap = max(g, m·G) */
    p.G_ns_per_byte = 0.5;
    p.o_s_ns = 3;
    CHECK_EQ_INT(rt_model_init(&m, "logp", &p, &err), RT_OK);
    CHECK_EQ_INT(m.ops->wire(&m.params, 1000), 1000 + 499500);
    CHECK_EQ_INT(m.ops->wire(&m.params, 0), 1000);
    CHECK_EQ_INT(m.ops->gap(&m.params, 1000), 500000);
    CHECK_EQ_INT(m.ops->gap(&m.params, 1), 1000);
    CHECK_EQ_INT(m.ops->handshake(&m.params, 8), 3000 + 1000 + 0);
    CHECK_EQ_INT(m.ops->send_hold(&m.params, 8), 0);
}

/* Sample mean of @p n draws against the analytic mean, within 5 standard errors (sd given). */
static void check_dist(const char *spec, double mean, double sd)
{
    rt_error err = {0};
    rt_dist *d = NULL;
    CHECK_EQ_INT(rt_dist_parse(spec, &d, &err), RT_OK);
    if (!d) {
        fprintf(stderr, "%s: %s\n", spec, err.msg);
        return;
    }
    CHECK_NEAR(rt_dist_mean_ns(d), mean, 1e-9 * mean);
    const int n = 200000;
    double sum = 0, minv = INFINITY;
    for (int i = 0; i < n; i++) {
        uint64_t st = rt_rng_stream(7, 0, (uint64_t)i);
        double x = rt_dist_sample_ns(d, &st);
        sum += x;
        minv = x < minv ? x : minv;
    }
    CHECK(minv >= 0);
    if (fabs(sum / n - mean) > 5 * sd / sqrt((double)n)) {
        fprintf(stderr, "%s: sample mean %.3f vs %.3f\n", spec, sum / n, mean);
        rt_test_failures++;
    }
    rt_dist_free(d);
}

static void test_noise(void)
{
    /* Analytic means and standard deviations [ns]. */
    check_dist("exp:mean=2us", 2000, 2000);
    check_dist("uniform:min=1us,max=3us", 2000, 2000 / sqrt(12.0));
    check_dist("lognormal:median=1us,sigma=0.5", 1000 * exp(0.125), 1000 * exp(0.125) * sqrt(exp(0.25) - 1));
    check_dist("pareto:scale=1us,shape=3", 1500, 1000 * sqrt(3.0 / (4.0 * 1.0)));
    /* N(0, 1us) truncated at 0: the half-normal, mean sd·sqrt(2/π), sd·sqrt(1 - 2/π) */
    check_dist("normal:mean=0us,sd=1us", 1000 * sqrt(2 / 3.14159265358979323846),
               1000 * sqrt(1 - 2 / 3.14159265358979323846));
    check_dist("normal:mean=5us,sd=0ns", 5000, 1);

    /* An empirical histogram (pingpong's CSV): the excess over the smallest bin edge. Size 8:
     * bins [100,110) x 3 and [130,150) x 1 -> excess uniform on [0,10) w.p. 3/4, [30,50) w.p. 1/4:
     * mean 0.75·5 + 0.25·40 = 13.75 ns. */
    const char *f = write_file("size_bytes,bin_lo_ns,bin_hi_ns,count\n0,50,60,10\n8,100,110,3\n8,130,150,1\n");
    char spec[128];
    snprintf(spec, sizeof spec, "empirical:%s,size=8", f);
    check_dist(spec, 13.75, 15.0);
    snprintf(spec, sizeof spec, "empirical:%s", f); /* the smallest size: [0,10) only */
    check_dist(spec, 5.0, 3.0);

    /* Streams: a function of (seed, run, key) only. */
    uint64_t a = rt_rng_stream(1, 2, 3), b = rt_rng_stream(1, 2, 3), c = rt_rng_stream(1, 3, 3);
    CHECK(rt_rng_uniform(&a) == rt_rng_uniform(&b));
    CHECK(rt_rng_uniform(&a) != rt_rng_uniform(&c));

    static const struct {
        const char *spec, *msg;
        int code;
    } bad[] = {
        {"gauss:mean=1us", "unknown noise distribution 'gauss'", RT_EINVAL},
        {"exp:mean=1", "mean: bad duration '1': needs a unit", RT_EUNIT},
        {"exp", "needs mean=", RT_EINVAL},
        {"exp:mean=1us,sd=2us", "unexpected 'sd=2us'", RT_EINVAL},
        {"uniform:min=2us,max=1us", "max must not be below min", RT_ERANGE},
        {"pareto:scale=1us,shape=0", "scale and shape must be above 0", RT_ERANGE},
        /* the bound on one delay (RT_MAX_DELAY_NS, 1000 s) and finite means */
        {"pareto:scale=1us,shape=1e-300", "a shape of at most 1 has no finite mean", RT_ERANGE},
        {"pareto:scale=1ms,shape=1.0000001", "the mean is 1e+04s, beyond 1000s", RT_ERANGE},
        {"exp:mean=1e308s", "mean is 1e308s, beyond 1000s", RT_ERANGE},
        {"uniform:min=0ns,max=1001s", "max is 1001s, beyond 1000s", RT_ERANGE},
        {"normal:mean=1us,sd=2000s", "sd is 2000s, beyond 1000s", RT_ERANGE},
        {"lognormal:median=1us,sigma=10", "the mean is 5.185e+15s, beyond 1000s", RT_ERANGE},
        {"lognormal:median=0ns,sigma=1", "median must be above 0", RT_ERANGE},
        {"lognormal:median=1us,sigma=-1", "sigma from 0 to 10", RT_ERANGE}, /* #47: was taken as 1 */
        {"normal:mean=-1us,sd=1us", "must not be negative", RT_EUNIT},
        {"empirical:/nonexistent.csv", "/nonexistent.csv: cannot open histogram", RT_ENOTFOUND},
        {"", "empty noise distribution", RT_EINVAL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rt_error err = {0};
        rt_dist *d = NULL;
        CHECK_EQ_INT(rt_dist_parse(bad[i].spec, &d, &err), bad[i].code);
        CHECK(d == NULL);
        CHECK_CONTAINS(err.msg, bad[i].msg);
    }
    /* a tail's draws are cut at the bound: P(X > 1000 s) = 1000^-1.5 for this Pareto, some 3 of 10^5 */
    {
        rt_error e = {0};
        rt_dist *p = NULL;
        CHECK_EQ_INT(rt_dist_parse("pareto:scale=1s,shape=1.5", &p, &e), RT_OK);
        uint64_t st = rt_rng_stream(7, 0, 0);
        double max = 0;
        for (int k = 0; p && k < 100000; k++) {
            double x = rt_dist_sample_ns(p, &st);
            max = x > max ? x : max;
        }
        CHECK(max == RT_MAX_DELAY_NS);
        rt_dist_free(p);
    }
    snprintf(spec, sizeof spec, "empirical:%s,size=9", f);
    rt_error err = {0};
    rt_dist *d = NULL;
    CHECK_EQ_INT(rt_dist_parse(spec, &d, &err), RT_EINVAL);
    CHECK_CONTAINS(err.msg, "no counts for size 9 B");
    f = write_file("size,lo,hi,count\n");
    snprintf(spec, sizeof spec, "empirical:%s", f);
    CHECK_EQ_INT(rt_dist_parse(spec, &d, &err), RT_ECORRUPT);
    CHECK_CONTAINS(err.msg, "not a histogram");
    remove(f);
}

/* OS noise sources and burst specs: loads, and one clear error per bad spec. */
static void test_os_noise_specs(void)
{
    rt_os_noise *n = NULL;
    rt_error err = {0};
    CHECK_EQ_INT(rt_os_noise_add(&n, "periodic:period=1ms,duration=25us", &err), RT_OK);
    CHECK_EQ_INT(rt_os_noise_add(&n, "poisson:interval=100us,ranks=2-3,duration=lognormal:median=1us,sigma=0.5", &err),
                 RT_OK);
    CHECK_EQ_INT(rt_os_noise_sources(n), 2);
    CHECK_NEAR(rt_os_noise_load(n, 0), 0.025, 1e-12);
    CHECK_NEAR(rt_os_noise_load(n, 2), 0.025 + 1000 * exp(0.125) / 100000, 1e-12);
    rt_os_noise_free(n);
    const char *f = write_file("# LogGOPSim noise trace\n100 20\n\n50 10   # overlapping ones merge\n55 10\n");
    char spec[256];
    snprintf(spec, sizeof spec, "file:%s,coscheduled,ranks=1", f);
    n = NULL;
    CHECK_EQ_INT(rt_os_noise_add(&n, spec, &err), RT_OK);
    CHECK_NEAR(rt_os_noise_load(n, 1), 35.0 / 120.0, 1e-12); /* [50,65) and [100,120) in 120 ns */
    CHECK_NEAR(rt_os_noise_load(n, 0), 0, 0);
    rt_os_noise_free(n);
    remove(f);
    const char *g = write_file("0 10\nten 5\n");
    char gspec[256], gline[300];
    snprintf(gspec, sizeof gspec, "file:%s", g);
    snprintf(gline, sizeof gline, "%s:2: expected 'start duration' in ns", g);
    /* a file of comments only: no detours, said before anything sorts them (#47: UBSan saw
     * qsort(NULL, 0) there) */
    char e[64], espec[256], eline[300];
    snprintf(e, sizeof e, "/tmp/retime-test-noise-empty-%d.txt", (int)getpid());
    FILE *ef = fopen(e, "w");
    if (ef) {
        fputs("# nothing but a comment\n\n", ef);
        fclose(ef);
    }
    snprintf(espec, sizeof espec, "file:%s", e);
    snprintf(eline, sizeof eline, "%s: no detours", e);

    const struct {
        const char *spec, *msg;
        int code;
    } bad[] = {
        {"periodic:period=1ms,duration=1ms", "needs 0 < duration < period", RT_ERANGE},
        {"periodic:period=1ms", "needs duration=", RT_EINVAL},
        {"periodic:period=1ms,duration=2us,phase=late", "phase must be random or aligned", RT_EINVAL},
        {"periodic:period=1ms,duration=2us,ranks=3-1", "bad ranks '3-1'", RT_EINVAL},
        {"periodic:period=1,duration=2us", "period: bad duration '1': needs a unit", RT_EUNIT},
        {"poisson:interval=10us", "needs duration= (a time or a distribution), last", RT_EINVAL},
        {"poisson:interval=10us,duration=exp:mean=10us", "the mean duration must be below the interval", RT_ERANGE},
        {"poisson:interval=10us,duration=gauss:x=1", "duration: unknown noise distribution 'gauss'", RT_EINVAL},
        {"file:/nonexistent-noise.txt", "/nonexistent-noise.txt: cannot open noise file", RT_ENOTFOUND},
        {gspec, gline, RT_ECORRUPT},
        {espec, eline, RT_ECORRUPT},
        {"jitter:x=1", "unknown OS noise 'jitter' (known: periodic, poisson, file)", RT_EINVAL},
        {"", "empty OS noise source", RT_EINVAL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = NULL;
        memset(&err, 0, sizeof err);
        CHECK_EQ_INT(rt_os_noise_add(&n, bad[i].spec, &err), bad[i].code);
        CHECK(n == NULL);
        CHECK_CONTAINS(err.msg, bad[i].msg);
    }
    remove(g);
    remove(e);

    rt_burst *b = NULL;
    CHECK_EQ_INT(rt_burst_parse("mmpp:sigma1=0.2/us,sigma2=0.8/us,latency=2", &b, &err), RT_OK);
    CHECK_NEAR(b ? rt_burst_on_share(b) : 0, 0.8, 1e-12); /* 004 Fig. 1a */
    rt_burst_free(b);
    static const struct {
        const char *spec, *msg;
    } bbad[] = {
        {"ipp:on=1us", "expected mmpp:KEY=VALUE"},
        {"mmpp:on=1us,latency=2", "needs sigma2= (a rate) or off="},
        {"mmpp:sigma1=0.2,sigma2=1/us", "sigma1: bad rate '0.2': needs a unit /ns, /us, /ms or /s"},
        {"mmpp:sigma1=1/us,on=1us,off=1us", "give sigma1= or on=, not both"},
        {"mmpp:on=1us,off=1us,bandwidth=0", "factors must be above 0"},
        {"mmpp:on=1us,off=1us,scope=link", "scope must be global or rank"},
        {"mmpp:on=1us,off=1us,lat=2", "unexpected 'lat=2'"},
    };
    for (size_t i = 0; i < sizeof bbad / sizeof bbad[0]; i++) {
        b = NULL;
        memset(&err, 0, sizeof err);
        CHECK(rt_burst_parse(bbad[i].spec, &b, &err) != RT_OK);
        CHECK(b == NULL);
        CHECK_CONTAINS(err.msg, bbad[i].msg);
    }
}

int main(void)
{
    rt_error err;
    double x;
    rt_bytes b;
    CHECK_EQ_INT(rt_parse_time_ns("2.122us", &x, &err), RT_OK);
    CHECK_NEAR(x, 2122.0, 1e-9);
    CHECK_EQ_INT(rt_parse_time_ns("15ns", &x, &err), RT_OK);
    CHECK_NEAR(x, 15.0, 0);
    CHECK_EQ_INT(rt_parse_time_ns("1.5ms", &x, &err), RT_OK);
    CHECK_NEAR(x, 1.5e6, 1e-6);
    CHECK_EQ_INT(rt_parse_time_ns("2s", &x, &err), RT_OK);
    CHECK_NEAR(x, 2e9, 0);
    CHECK_EQ_INT(rt_parse_time_ns("2122", &x, &err), RT_EUNIT); /* a bare number is ambiguous */
    CHECK_CONTAINS(err.msg, "needs a unit");
    CHECK_EQ_INT(rt_parse_time_ns("2.1xs", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_time_ns("-1us", &x, &err), RT_EUNIT);
    CHECK_CONTAINS(err.msg, "negative");
    CHECK_EQ_INT(rt_parse_time_ns("", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_time_ns("us", &x, &err), RT_EUNIT);

    CHECK_EQ_INT(rt_parse_bytes("64KiB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 65536);
    CHECK_EQ_INT(rt_parse_bytes("256KB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 256000);
    CHECK_EQ_INT(rt_parse_bytes("1MiB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 1048576);
    CHECK_EQ_INT(rt_parse_bytes("2MB", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 2000000);
    CHECK_EQ_INT(rt_parse_bytes("1000", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 1000);
    CHECK_EQ_INT(rt_parse_bytes("12B", &b, &err), RT_OK);
    CHECK_EQ_INT(b, 12);
    CHECK_EQ_INT(rt_parse_bytes("1.5B", &b, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_bytes("64kib", &b, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_bytes("1e30B", &b, &err), RT_ERANGE);

    CHECK_EQ_INT(rt_parse_ns_per_byte("0.7595ns/B", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.7595, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0.76us/KB", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.76, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("1ns/KiB", &x, &err), RT_OK);
    CHECK_NEAR(x, 1.0 / 1024, 1e-15);
    CHECK_EQ_INT(rt_parse_ns_per_byte("1GB/s", &x, &err), RT_OK); /* 1 GB/s = 1 ns/B */
    CHECK_NEAR(x, 1.0, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("10GB/s", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.1, 1e-12);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0GB/s", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0.76", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_ns_per_byte("0.76ns/parsec", &x, &err), RT_EUNIT);

    CHECK_EQ_INT(rt_parse_number("0.5", &x, &err), RT_OK);
    CHECK_NEAR(x, 0.5, 0);
    CHECK_EQ_INT(rt_parse_number("0.5x", &x, &err), RT_EUNIT);
    CHECK_EQ_INT(rt_parse_number("nan", &x, &err), RT_EUNIT);

    char buf[32];
    CHECK(strcmp(rt_format_time(buf, sizeof buf, 2122.0), "2.122us") == 0);
    CHECK(strcmp(rt_format_time(buf, sizeof buf, 11526.0), "11.53us") == 0);
    CHECK(strcmp(rt_err_name(RT_EDEADLOCK), "RT_EDEADLOCK") == 0);
    CHECK(strcmp(rt_strerror(RT_EUNMATCHED), "unmatched message") == 0);
    test_params_file();
    test_model_validation();
    test_noise();
    test_os_noise_specs();
    TEST_MAIN_END();
}
