/* SPDX-License-Identifier: MIT */
/* The floor under any OTF2 tracer's cost per MPI call (issue #45, item 6): what OTF2 itself takes
 * to write one Enter and one Leave record, as a traced call writes them, with the two clock reads
 * that stamp them, measured here without MPI or a tracer. bench/overhead.sh prints it beside the
 * tracer's own cost (instrument/bench_overhead) from the same run.
 *
 *   retime-bench-otf2-floor DIR [N]     (DIR: a new directory for the scratch archive)
 *
 * Rows, each the best of 5 rounds of N pairs (default 200000) by the thread's CPU time, in ns per
 * pair: Enter + Leave with increasing timestamps and no clock read; stamped with two reads of the
 * time-stamp counter (x86-64), converted to ns (the tracer's cost for a call made again from the
 * same site); the same with a call-site attribute (a calling context) on every Enter (a call from
 * a new site); and that with two clock_gettime(CLOCK_MONOTONIC) instead of the counter. */
#define _POSIX_C_SOURCE 200809L
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

enum { BARE, TSC, TSC_ATTR, MONO_ATTR, MODES };
static const char *const mode_name[MODES] = {
    "Enter + Leave, no clock read", "Enter + Leave, two time-stamp counter reads",
    "  + a call-site attribute on the Enter", "  the same with two clock_gettime(CLOCK_MONOTONIC)"};

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u, (void)t, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u, (void)t, (void)l;
    return mono_ns();
}

/* The next timestamp, after reading the clock of @p mode (the counter converted to ns as the
 * tracer converts it: a multiply and a shift), never below the previous one plus 1. */
static inline uint64_t stamp(int mode, uint64_t *last)
{
    uint64_t t = *last + 1, c = 0;
    if (mode == MONO_ATTR)
        c = mono_ns();
#if defined(__x86_64__)
    else if (mode == TSC || mode == TSC_ATTR)
        c = (uint64_t)(((unsigned __int128)__rdtsc() * 1867392000u) >> 32); /* ~2.3 GHz */
#endif
    if (c > t)
        t = c;
    return *last = t;
}

static OTF2_FlushCallbacks flush_cbs = {pre_flush, post_flush};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: retime-bench-otf2-floor DIR [N]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 200000;
    if (n <= 0)
        n = 200000;
    int rc = 1;
    OTF2_AttributeList *al = NULL;
    /* 1 MiB chunks, as the tracer's (instrument/src/core.c) */
    OTF2_Archive *a = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 20,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a || OTF2_Archive_SetFlushCallbacks(a, &flush_cbs, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(a) != OTF2_SUCCESS || OTF2_Archive_OpenEvtFiles(a) != OTF2_SUCCESS) {
        fprintf(stderr, "retime-bench-otf2-floor: error: cannot open an OTF2 archive in %s\n", argv[1]);
        goto out;
    }
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, 0);
    al = OTF2_AttributeList_New();
    if (!w || !al)
        goto out;
    uint64_t ts = mono_ns();
    printf("otf2_floor pairs_per_round %ld\n", n);
    for (int mode = 0; mode < MODES; mode++) {
#if !defined(__x86_64__)
        if (mode == TSC || mode == TSC_ATTR)
            continue;
#endif
        double best = 1e30;
        for (int round = 0; round < 5; round++) {
            double c0 = cpu_ns();
            for (long i = 0; i < n; i++) {
                OTF2_AttributeList *at = NULL;
                if (mode == TSC_ATTR || mode == MONO_ATTR) {
                    OTF2_AttributeList_AddCallingContextRef(al, 0, (OTF2_CallingContextRef)(i & 7));
                    at = al;
                }
                OTF2_EvtWriter_Enter(w, at, stamp(mode, &ts), 4);
                OTF2_EvtWriter_Leave(w, NULL, stamp(mode, &ts), 4);
            }
            double c = (cpu_ns() - c0) / (double)n;
            if (c < best)
                best = c;
        }
        printf("%-48s %.1f ns/pair\n", mode_name[mode], best);
    }
    rc = 0;
out:
    if (al)
        OTF2_AttributeList_Delete(al);
    if (a) {
        OTF2_Archive_CloseEvtFiles(a);
        OTF2_Archive_Close(a);
    }
    return rc;
}
