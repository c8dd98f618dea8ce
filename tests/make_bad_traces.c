/* SPDX-License-Identifier: MIT */
/* Writes the small traces the bad-input tests start from: a good one to damage, and ones
 * whose content is wrong (an unmatched receive, a deadlock). */
#include <stdio.h>
#include <string.h>

#include "otf2_builder.h"

static int good(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    for (int i = 0; i < 200; i++) {
        uint64_t t = (uint64_t)i * 10000;
        tb_call_send(b, 0, t, t + 3000, "MPI_Send", 1, 0, 1000);
        tb_call_recv(b, 1, t, t + 3000, 0, 0, 1000);
    }
    return tb_close(b);
}

static int unmatched_recv(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_call_send(b, 0, 0, 3000, "MPI_Send", 1, 0, 1000);
    tb_call_recv(b, 1, 0, 3000, 0, 0, 1000);
    tb_call_recv(b, 1, 4000, 9000, 0, 42, 64);
    return tb_close(b);
}

static int deadlock(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    for (uint32_t r = 0; r < 2; r++) {
        tb_call_recv(b, r, 0, 10, 1 - r, 0, 8);
        tb_call_send(b, r, 20, 30, "MPI_Send", 1 - r, 0, 8);
    }
    return tb_close(b);
}

int main(int argc, char **argv)
{
    char path[4096];
    if (argc != 2) {
        fprintf(stderr, "usage: make_bad_traces DIR\n");
        return 2;
    }
    int rc = 0;
    snprintf(path, sizeof path, "%s/good", argv[1]);
    rc |= good(path);
    snprintf(path, sizeof path, "%s/unmatched-recv", argv[1]);
    rc |= unmatched_recv(path);
    snprintf(path, sizeof path, "%s/deadlock", argv[1]);
    rc |= deadlock(path);
    return rc;
}
