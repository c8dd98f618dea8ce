/* SPDX-License-Identifier: MIT */
/*
 * retime calibrate's fit (retime/calibrate.h) on synthetic traces whose message times are
 * α + β·m exactly: the fit recovers them; a late receiver, a nonblocking receive and an outlier
 * are left out; one size only determines no β.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf2_builder.h"
#include "retime/calibrate.h"
#include "test_util.h"

static char root[256];
static int ntr;

/* Rank 0 sends sizes[k] to rank 1 at t = k·100 us; rank 1 waits in MPI_Recv from 10 ns before
 * and has the message at send + alpha + beta·m (+ extra[k]). late[k]: rank 1 enters after the
 * send instead (a wait of the sender, not the network). */
static int trace(char *dir, size_t n, const uint64_t *sizes, const double *extra, const int *late, int k)
{
    snprintf(dir, n, "%s/t%d", root, ntr++);
    tb_builder *b = tb_create(dir, 2);
    for (int i = 0; i < k; i++) {
        uint64_t t = 1000 + (uint64_t)i * 100000, m = sizes[i];
        uint64_t done = t + 2000 + m / 2 + (uint64_t)(extra ? extra[i] : 0);
        tb_call_send(b, 0, t, t + 100, "MPI_Send", 1, 7, m);
        tb_call_recv(b, 1, late && late[i] ? t + 50 : t - 10, done, 0, 7, m);
    }
    return tb_close(b);
}

static struct rt_calibration fit(const char *dir)
{
    struct rt_calibration k;
    rt_trace *t = NULL;
    rt_error err = {0};
    memset(&k, 0, sizeof k);
    CHECK_EQ_INT(rt_trace_open(dir, &t, &err), RT_OK);
    if (t)
        CHECK_EQ_INT(rt_calibrate(t, 65536, 2, &k, &err), RT_OK);
    rt_trace_close(t);
    return k;
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/retime-test-calib-XXXXXX");
    if (!mkdtemp(root))
        return 1;
    char dir[300];
    /* five sizes, alpha 2000 ns, beta 0.5 ns/B: recovered exactly */
    static const uint64_t sz[] = {0, 1000, 2000, 4000, 8000, 0, 1000, 2000, 4000, 8000};
    CHECK_EQ_INT(trace(dir, sizeof dir, sz, NULL, NULL, 10), 0);
    struct rt_calibration k = fit(dir);
    CHECK_EQ_INT(k.messages, 10);
    CHECK_EQ_INT(k.eager.samples, 10);
    CHECK_EQ_INT(k.eager.sizes, 5);
    CHECK(k.eager.alpha_ok && k.eager.beta_ok);
    CHECK_NEAR(k.eager.alpha_ns, 2000, 1e-6);
    CHECK_NEAR(k.eager.beta_ns_per_byte, 0.5, 1e-9);
    CHECK_NEAR(k.eager.r2, 1, 1e-12);
    CHECK_EQ_INT(k.rendezvous.samples, 0);
    /* a late receiver and an outlier (20x its size's median) are left out; the fit holds */
    static const uint64_t sz2[] = {0, 0, 1000, 1000, 2000, 2000, 4000, 4000, 4000};
    static const double extra[] = {0, 0, 0, 0, 0, 0, 0, 0, 76000};
    static const int late[] = {0, 1, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(trace(dir, sizeof dir, sz2, extra, late, 9), 0);
    k = fit(dir);
    CHECK_EQ_INT(k.messages, 9);
    CHECK_EQ_INT(k.eager.samples, 7);
    CHECK_EQ_INT(k.eager.dropped, 1);
    CHECK_NEAR(k.eager.alpha_ns, 2000, 1e-6);
    CHECK_NEAR(k.eager.beta_ns_per_byte, 0.5, 1e-9);
    CHECK_EQ_INT(k.eager.size[3].bytes, 4000);
    CHECK_EQ_INT(k.eager.size[3].samples, 2);
    CHECK_NEAR(k.eager.size[3].median_ns, 4000, 1e-6);
    CHECK_NEAR(k.eager.size[3].beta_ns_per_byte, 0.5, 1e-9);
    /* one size only: no beta, and no alpha without 0-byte messages */
    static const uint64_t one[] = {1000, 1000, 1000, 1000};
    CHECK_EQ_INT(trace(dir, sizeof dir, one, NULL, NULL, 4), 0);
    k = fit(dir);
    CHECK(!k.eager.beta_ok && !k.eager.alpha_ok);
    CHECK_CONTAINS(k.eager.why, "one message size only (1000 B): beta cannot be determined, nor alpha");
    /* times that shrink with the size: no negative beta, said */
    static const uint64_t down[] = {8000, 4000, 2000, 1000, 0};
    static const double shrink[] = {0, 4000, 8000, 12000, 16000};
    CHECK_EQ_INT(trace(dir, sizeof dir, down, shrink, NULL, 5), 0);
    k = fit(dir);
    CHECK(!k.eager.beta_ok && !k.eager.alpha_ok);
    CHECK_CONTAINS(k.eager.why, "the times do not grow with the size");
    /* two samples: not enough */
    CHECK_EQ_INT(trace(dir, sizeof dir, sz, NULL, NULL, 2), 0);
    k = fit(dir);
    CHECK(!k.eager.alpha_ok);
    CHECK_CONTAINS(k.eager.why, "2 samples: at least 3 are needed");
    /* RETIME_TEST_KEEP=DIR: the first trace stays there, for the CLI's parameter-file check */
    const char *keep = getenv("RETIME_TEST_KEEP");
    if (keep && *keep) {
        CHECK_EQ_INT(trace(dir, sizeof dir, sz, NULL, NULL, 10), 0);
        char mv[700];
        snprintf(mv, sizeof mv, "rm -rf '%s' && mv '%s' '%s'", keep, dir, keep);
        CHECK_EQ_INT(system(mv), 0);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", root);
    TEST_MAIN_END();
}
