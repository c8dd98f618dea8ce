/* SPDX-License-Identifier: MIT */
/* retime predict shift|team-shift|tradeoff: the Shift paper's closed form (eq. 1-3), the Team
 * Shift closed form derived in its style (docs/team-shift.md), and where one overtakes the other. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "predict.h"
#include "retime/shift_model.h"
#include "retime/units.h"

static const char predict_usage[] =
    "retime predict shift      --dims 1|3 --k K --m1 SIZE --mode ssend|isend --alpha TIME --beta TIME/SIZE\n"
    "                          [--format text|json]\n"
    "retime predict team-shift --dims 1|3 --k K --m1 SIZE --team C --alpha TIME --beta TIME/SIZE\n"
    "                          [--format text|json]\n"
    "retime predict tradeoff   --dims 1|3 --k K --m1 SIZE --alpha TIME --beta TIME/SIZE [--P N]\n"
    "                          [--c LIST] [--k-max K] [--traces DIR]... [--format text|json]\n"
    "                          [--output PREFIX [--size WxH]]\n"
    "Closed forms under Hockney T(m) = alpha + beta*m, per iteration (docs/team-shift.md).\n"
    "--traces DIR: runs of the shift benchmark (DIR holds shift.txt and traces.otf2, or is a directory\n"
    "of such runs), replayed under the same model: the answer and crossovers from the replays too.\n";

static int predict_shift(struct args *a);

int cmd_predict(struct args *a)
{
    const char *what = a->argc >= 3 ? a->argv[2] : "";
    char sub[32];
    snprintf(sub, sizeof sub, "predict %s", what);
    /* `retime predict SUB --help`: that prediction's synopsis and the notes */
    if (cli_wants_help(a->argc, a->argv, 3) && cli_usage_of(stdout, predict_usage, sub)) {
        fputs(strstr(predict_usage, "\nClosed forms") + 1, stdout);
        return 0;
    }
    if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
        fputs(predict_usage, stdout);
        return 0;
    }
    if (!strcmp(what, "shift"))
        return predict_shift(a);
    if (!strcmp(what, "team-shift"))
        return predict_team_shift(a);
    if (!strcmp(what, "tradeoff"))
        return predict_tradeoff(a);
    return cli_die("predict knows shift, team-shift and tradeoff: retime predict shift --dims 1|3 --k K --m1 SIZE "
                   "--mode ssend|isend --alpha TIME --beta TIME/SIZE (retime predict --help)");
}

static int predict_shift(struct args *a)
{
    struct rt_shift_config c = {.dims = 1, .k = 1, .m1 = 0, .synchronous = 1};
    double alpha = 0, beta = 0, x;
    int have_alpha = 0, have_beta = 0, have_m1 = 0;
    enum format fmt = FMT_TEXT;
    rt_error err = {0};
    const char *v;
    for (a->i = 3; a->i < a->argc; a->i++) {
        if (cli_opt(a, "--dims", &v)) {
            if (!v || (strcmp(v, "1") && strcmp(v, "3")))
                return cli_die("bad --dims '%s' (1 or 3)", v ? v : "");
            c.dims = atoi(v);
        } else if (cli_opt(a, "--k", &v)) {
            if (rt_parse_number(v, &x, &err) || x < 1 || x > 1000000 || x != (int)x)
                return cli_die("bad --k '%s' (a whole number from 1 to 1000000)", v ? v : "");
            c.k = (int)x;
        } else if (cli_opt(a, "--m1", &v)) {
            if (rt_parse_bytes(v, &c.m1, &err))
                return cli_die("--m1: %s", err.msg);
            have_m1 = 1;
        } else if (cli_opt(a, "--mode", &v)) {
            if (!v || (strcmp(v, "ssend") && strcmp(v, "isend")))
                return cli_die("bad --mode '%s' (ssend or isend)", v ? v : "");
            c.synchronous = !strcmp(v, "ssend");
        } else if (cli_opt(a, "--alpha", &v)) {
            if (rt_parse_time_ns(v, &alpha, &err))
                return cli_die("--alpha: %s", err.msg);
            have_alpha = 1;
        } else if (cli_opt(a, "--beta", &v)) {
            if (rt_parse_ns_per_byte(v, &beta, &err))
                return cli_die("--beta: %s", err.msg);
            have_beta = 1;
        } else if (cli_opt(a, "--format", &v)) {
            if (cli_format(v, &fmt, 0))
                return cli_die("bad --format '%s' (text or json)", v ? v : "");
        } else {
            return cli_die("unknown option '%s' for predict shift", a->argv[a->i]);
        }
    }
    if (!have_m1 || !have_alpha || !have_beta)
        return cli_die("predict shift needs --m1, --alpha and --beta");
    double total, dim_ns[3];
    uint64_t dim_bytes[3];
    if (rt_shift_predict(&c, alpha, beta, &total, dim_ns, dim_bytes, &err))
        return cli_fail(&err);
    const char *mode = c.synchronous ? "ssend" : "isend";
    const char *eq = c.synchronous ? (c.dims == 1 ? "4k*T(m1) (eq. 1 per direction)" : "sum_d 4k*T(m_d) (eq. 3)")
                                   : "sum_d 2k*T(m_d) (eq. 2)";
    if (fmt == FMT_JSON) {
        printf("{\"program\": \"shift\", \"dims\": %d, \"k\": %d, \"m1_bytes\": %" PRIu64
               ", \"mode\": \"%s\", \"alpha_ns\": ", c.dims, c.k, c.m1, mode);
        cli_print_double(stdout, alpha);
        printf(", \"beta_ns_per_byte\": ");
        cli_print_double(stdout, beta);
        printf(", \"formula\": \"%s\", \"iteration_ns\": ", eq);
        cli_print_double(stdout, total);
        printf(", \"per_dimension\": [");
        for (int d = 0; d < c.dims; d++) {
            printf("%s{\"dim\": %d, \"bytes\": %" PRIu64 ", \"ns\": ", d ? ", " : "", d + 1, dim_bytes[d]);
            cli_print_double(stdout, dim_ns[d]);
            printf("}");
        }
        printf("]}\n");
        return 0;
    }
    char buf[32];
    printf("shift %dD %s k=%d m1=%" PRIu64 "B  alpha=%s beta=%.6gns/B\n", c.dims, mode, c.k, c.m1,
           rt_format_time(buf, sizeof buf, alpha), beta);
    printf("formula     t = %s, T(m) = alpha + beta*m\n", eq);
    for (int d = 0; d < c.dims; d++)
        printf("dim %d       m=%" PRIu64 "B  %s\n", d + 1, dim_bytes[d], rt_format_time(buf, sizeof buf, dim_ns[d]));
    printf("iteration   %s (%.1f ns)\n", rt_format_time(buf, sizeof buf, total), total);
    return 0;
}
