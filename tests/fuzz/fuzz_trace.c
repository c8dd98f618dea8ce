/* SPDX-License-Identifier: MIT */
/* libFuzzer target over the trace reader and the replay (matcher + engine): one fuzzed file of a
 * small OTF2 archive, the archive's other files kept as stored.
 *
 * OTF2 reads archives only from files, so the harness keeps two base archives in a private
 * directory (on /dev/shm when it exists) and lets the input replace one of their files:
 *   byte 0, bit 7   which base: 0 = the stored trace RT_FUZZ_TRACE (an 8-rank Shift run),
 *                   1 = a 3-rank archive written here with the test builder (blocking and
 *                   nonblocking point-to-point, collectives on WORLD and on a sub-communicator);
 *   byte 0, bits 0-6 which file, modulo the base's file count: 0 = the anchor traces.otf2,
 *                   1 = the global traces.def, then for each rank R: traces/R.def, traces/R.evt;
 *   bytes 1..       the file's new contents.
 * After the run the file gets its stored contents back, so every input sees the same base.
 * The run is rt_trace_open + rt_replay_run (Hockney α = 2.122 us, β = 0.7595 ns/B) +
 * rt_trace_close; nothing is printed. With RT_FUZZ_SEEDS=DIR in the environment, start-up also
 * writes one seed per file of each base into DIR (how tests/fuzz/corpus was made).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "otf2_builder.h"
#include "retime/replay.h"

#ifndef RT_FUZZ_TRACE
#define RT_FUZZ_TRACE "traces/shift1d-ssend-p8-k1-m1000"
#endif

#define MAX_FILES 32

struct file {
    char path[512];
    uint8_t *data;
    size_t size;
};

struct base {
    char anchor[512];
    unsigned nfiles;
    struct file files[MAX_FILES];
};

static struct base bases[2];
static char workdir[256];
static struct rt_replay_options opts;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "fuzz_trace: %s: %s\n", what, path);
    abort();
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot read", path);
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            if (!buf)
                die("out of memory reading", path);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *size = n;
    return buf;
}

static void spill(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        die("cannot write", path);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    uint8_t *d = slurp(from, &n);
    spill(to, d, n);
    free(d);
}

/* Reads base @p b's files (already in @p dir: traces.otf2, traces.def, traces/R.{def,evt}). */
static void load_base(struct base *b, const char *dir, unsigned ranks)
{
    snprintf(b->anchor, sizeof b->anchor, "%s/traces.otf2", dir);
    b->nfiles = 2 + 2 * ranks;
    if (b->nfiles > MAX_FILES)
        die("too many files in", dir);
    snprintf(b->files[0].path, sizeof b->files[0].path, "%s/traces.otf2", dir);
    snprintf(b->files[1].path, sizeof b->files[1].path, "%s/traces.def", dir);
    for (unsigned r = 0; r < ranks; r++) {
        snprintf(b->files[2 + 2 * r].path, sizeof b->files[0].path, "%s/traces/%u.def", dir, r);
        snprintf(b->files[3 + 2 * r].path, sizeof b->files[0].path, "%s/traces/%u.evt", dir, r);
    }
    for (unsigned i = 0; i < b->nfiles; i++)
        b->files[i].data = slurp(b->files[i].path, &b->files[i].size);
    /* OTF2 clears a whole chunk buffer (here 1 MiB per event file, 4 MiB per definition file)
     * for every file it reads; that memset was 4/5 of an execution. The anchor keeps the two
     * chunk sizes as little-endian uint64 at offsets 12 and 20: cut both to OTF2's smallest,
     * 256 KiB (the files are far smaller, so they still fit one chunk). */
    struct file *a = &b->files[0];
    static const uint8_t mib1[8] = {0, 0, 0x10}, mib4[8] = {0, 0, 0x40};
    if (a->size >= 28 && memcmp(a->data + 12, mib1, 8) == 0 &&
        memcmp(a->data + 20, mib4, 8) == 0) {
        a->data[14] = 0x04;
        a->data[22] = 0x04;
        spill(a->path, a->data, a->size);
    }
}

/* The 3-rank base: every kind of event the reader keeps, on two communicators. */
static void build_small(const char *dir)
{
    tb_builder *t = tb_create(dir, 3);
    if (!t)
        die("cannot create", dir);
    static const uint32_t sub[2] = {2, 0};
    uint32_t c = tb_comm(t, "sub", 2, sub);
    for (uint32_t r = 0; r < 3; r++) {
        tb_enter(t, r, 0, "compute");
        tb_leave(t, r, 500, "compute");
    }
    tb_call_send(t, 0, 1000, 1100, "MPI_Send", 1, 3, 64);
    tb_call_recv(t, 1, 1000, 1300, 0, 3, 64);
    tb_call_send(t, 1, 1400, 1500, "MPI_Ssend", 2, 4, 100000);
    tb_call_recv(t, 2, 1000, 1800, 1, 4, 100000);
    /* rank 2 -> 0 nonblocking, rank 0 posts its receive first */
    tb_enter(t, 0, 1200, "MPI_Irecv");
    tb_irecv_request(t, 0, 1210, 7);
    tb_leave(t, 0, 1220, "MPI_Irecv");
    tb_enter(t, 2, 1900, "MPI_Isend");
    tb_isend(t, 2, 1910, 0, 5, 2048, 9);
    tb_leave(t, 2, 1920, "MPI_Isend");
    tb_enter(t, 2, 1930, "MPI_Wait");
    tb_isend_complete(t, 2, 1940, 9);
    tb_leave(t, 2, 1950, "MPI_Wait");
    tb_enter(t, 0, 1960, "MPI_Wait");
    tb_irecv(t, 0, 1970, 2, 5, 2048, 7);
    tb_leave(t, 0, 1980, "MPI_Wait");
    for (uint32_t r = 0; r < 3; r++) {
        tb_collective(t, r, 2000, 2500, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, UINT32_MAX, 8, 8);
        tb_collective(t, r, 2600, 2900, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 1, r == 1 ? 4096 : 0, 4096);
        tb_collective(t, r, 3000, 3200, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, UINT32_MAX, 0, 0);
    }
    tb_collective_on(t, 2, 3300, 3400, "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, c, 0, 16, 16);
    tb_collective_on(t, 0, 3300, 3500, "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, c, 0, 16, 16);
    if (tb_close(t) != 0)
        die("cannot write", dir);
}

static void write_seeds(const char *dir)
{
    mkdir(dir, 0755);
    for (unsigned k = 0; k < 2; k++)
        for (unsigned i = 0; i < bases[k].nfiles; i++) {
            char path[600];
            snprintf(path, sizeof path, "%s/seed-%s-%02u", dir, k ? "small" : "shift", i);
            size_t n = bases[k].files[i].size;
            uint8_t *d = malloc(n + 1);
            if (!d)
                die("out of memory writing", path);
            d[0] = (uint8_t)((k << 7) | i);
            memcpy(d + 1, bases[k].files[i].data, n);
            spill(path, d, n + 1);
            free(d);
        }
}

static void cleanup(void)
{
    if (workdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz_trace: could not remove %s\n", workdir);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(workdir, sizeof workdir, "%s/rt-fuzz-XXXXXX", tmp);
    if (!mkdtemp(workdir))
        die("cannot create a directory in", tmp);
    atexit(cleanup);

    /* Base 0: the stored trace, copied so the fuzzer never writes into the source tree. */
    const char *src = getenv("RT_FUZZ_TRACE") ? getenv("RT_FUZZ_TRACE") : RT_FUZZ_TRACE;
    char dir[400], from[600], to[600];
    snprintf(dir, sizeof dir, "%s/shift", workdir);
    mkdir(dir, 0755);
    snprintf(to, sizeof to, "%s/traces", dir);
    mkdir(to, 0755);
    unsigned ranks = 0;
    for (;; ranks++) {
        snprintf(from, sizeof from, "%s/traces/%u.evt", src, ranks);
        if (access(from, R_OK) != 0)
            break;
    }
    if (ranks == 0 || 2 + 2 * ranks > MAX_FILES)
        die("no usable base trace (RT_FUZZ_TRACE)", src);
    static const char *top[] = {"traces.otf2", "traces.def"};
    for (unsigned i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/%s", src, top[i]);
        snprintf(to, sizeof to, "%s/%s", dir, top[i]);
        copy_file(from, to);
    }
    for (unsigned r = 0; r < ranks; r++)
        for (unsigned e = 0; e < 2; e++) {
            snprintf(from, sizeof from, "%s/traces/%u.%s", src, r, e ? "evt" : "def");
            snprintf(to, sizeof to, "%s/traces/%u.%s", dir, r, e ? "evt" : "def");
            copy_file(from, to);
        }
    load_base(&bases[0], dir, ranks);

    /* Base 1: written by the builder. */
    snprintf(dir, sizeof dir, "%s/small", workdir);
    build_small(dir);
    load_base(&bases[1], dir, 3);

    const char *seeds = getenv("RT_FUZZ_SEEDS");
    if (seeds)
        write_seeds(seeds);

    rt_replay_options_default(&opts);
    struct rt_model_params p = {.alpha_ns = 2122.0, .beta_ns_per_byte = 0.7595};
    if (rt_model_init(&opts.model, "hockney", &p, NULL) != RT_OK)
        die("cannot set up", "the Hockney model");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct base *b = &bases[data[0] >> 7];
    struct file *f = &b->files[(data[0] & 0x7f) % b->nfiles];
    spill(f->path, data + 1, size - 1);

    rt_trace *trace = NULL;
    if (rt_trace_open(b->anchor, &trace, NULL) == RT_OK) {
        struct rt_replay_result *res = NULL;
        if (rt_replay_run(trace, &opts, NULL, &res, NULL) == RT_OK)
            rt_replay_result_destroy(res);
        rt_trace_close(trace);
    }

    spill(f->path, f->data, f->size);
    return 0;
}
