/* SPDX-License-Identifier: MIT */
/* Writes the small traces the bad-input tests start from: a good one to damage, and ones whose
 * content is wrong (unmatched messages, deadlocks, undefined references, impossible sizes and
 * times), plus two valid ones that must replay (one rank, clock skew). bad_input.sh lists them. */
#include <stdio.h>
#include <string.h>

#include <otf2/otf2.h>

#include "otf2_builder.h"

#define BARRIER OTF2_COLLECTIVE_OP_BARRIER
#define ALLREDUCE OTF2_COLLECTIVE_OP_ALLREDUCE

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

/* Three ranks that each send once around a ring (0 -> 1 -> 2 -> 0): a source of .evt files
 * that belong to another archive. */
static int ring3(const char *dir)
{
    tb_builder *b = tb_create(dir, 3);
    if (!b)
        return 1;
    for (uint32_t r = 0; r < 3; r++) {
        tb_enter(b, r, 0, "compute");
        tb_leave(b, r, 500, "compute");
        tb_call_send(b, r, 1000, 1100, "MPI_Send", (r + 1) % 3, 0, 8);
        tb_call_recv(b, r, 1200, 3000, (r + 2) % 3, 0, 8);
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

/* Rank 0 sends a second (eager) message, tag 7, that rank 1 never receives. */
static int unmatched_send(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_call_send(b, 0, 0, 3000, "MPI_Send", 1, 0, 1000);
    tb_call_send(b, 0, 4000, 5000, "MPI_Send", 1, 7, 64);
    tb_call_recv(b, 1, 0, 3000, 0, 0, 1000);
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

/* A cycle of three blocking receives: rank r first waits for rank r+1 (mod 3). */
static int deadlock3(const char *dir)
{
    tb_builder *b = tb_create(dir, 3);
    if (!b)
        return 1;
    for (uint32_t r = 0; r < 3; r++) {
        tb_call_recv(b, r, 0, 10, (r + 1) % 3, 0, 8);
        tb_call_send(b, r, 20, 30, "MPI_Send", (r + 2) % 3, 0, 8);
    }
    return tb_close(b);
}

/* Rank 0's third event enters region 99, which no definition names (regions 0 and 1 exist). */
static int undefined_region(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    for (uint32_t r = 0; r < 2; r++) {
        tb_enter(b, r, 0, "compute");
        tb_leave(b, r, 100, "compute");
    }
    tb_enter_ref(b, 0, 200, 99);
    return tb_close(b);
}

/* Rank 0 sends on communicator 7; only MPI_COMM_WORLD (0) is defined. */
static int undefined_comm(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_enter(b, 0, 0, "MPI_Send");
    tb_send_on(b, 0, 0, 7, 1, 0, 8);
    tb_leave(b, 0, 100, "MPI_Send");
    tb_call_recv(b, 1, 0, 100, 0, 0, 8);
    return tb_close(b);
}

/* Rank 0 sends to rank 5 of a world of 2. */
static int peer_outside(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_call_send(b, 0, 0, 100, "MPI_Send", 5, 0, 8);
    tb_call_recv(b, 1, 0, 100, 0, 0, 8);
    return tb_close(b);
}

/* A communicator whose second member is world rank 5 of 2: a location no definition names. */
static int comm_member_outside(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    const uint32_t members[2] = {0, 5};
    tb_comm(b, "sub", 2, members);
    tb_call_send(b, 0, 0, 100, "MPI_Send", 1, 0, 8);
    tb_call_recv(b, 1, 0, 100, 0, 0, 8);
    return tb_close(b);
}

/* A matched message of 2^64 - 2 bytes. */
static int huge_message(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_call_send(b, 0, 0, 100, "MPI_Send", 1, 0, UINT64_MAX - 1);
    tb_call_recv(b, 1, 0, 100, 0, 0, UINT64_MAX - 1);
    return tb_close(b);
}

/* An allreduce whose byte counts are 2^64 - 1 on every rank (the algorithms multiply them). */
static int huge_collective(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    for (uint32_t r = 0; r < 2; r++)
        tb_collective(b, r, 0, 100, "MPI_Allreduce", ALLREDUCE, OTF2_UNDEFINED_UINT32, UINT64_MAX, UINT64_MAX);
    return tb_close(b);
}

/* Rank 0 sends 100 bytes, rank 1 receives 200. */
static int size_mismatch(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_call_send(b, 0, 0, 100, "MPI_Send", 1, 0, 100);
    tb_call_recv(b, 1, 0, 100, 0, 0, 200);
    return tb_close(b);
}

/* Replaces the one timestamp record (type byte 5, then the time in the writer's byte order) of
 * time @p from in file @p path by time @p to; 0 when exactly one was found. */
static int patch_timestamp(const char *path, uint64_t from, uint64_t to)
{
    unsigned char buf[1 << 16], pat[9] = {5};
    FILE *f = fopen(path, "r+b");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf, f), hit = SIZE_MAX, count = 0;
    memcpy(pat + 1, &from, 8);
    for (size_t i = 0; i + sizeof pat <= n; i++)
        if (!memcmp(buf + i, pat, sizeof pat)) {
            hit = i;
            count++;
        }
    int rc = count != 1 || n == sizeof buf;
    if (!rc) {
        memcpy(pat + 1, &to, 8);
        rc = fseek(f, (long)hit, SEEK_SET) || fwrite(pat, 1, sizeof pat, f) != sizeof pat;
    }
    return fclose(f) || rc;
}

/* Rank 1 leaves "compute" (event 1, at 50 ns) after entering it (event 0) at 100 ns. OTF2's
 * writer refuses a time going backwards, so the Leave is written at a marker time and patched. */
static int time_backwards(const char *dir)
{
    const uint64_t marker = 0x5a5a5a5a5a5aull;
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_enter(b, 0, 0, "compute");
    tb_leave(b, 0, 200, "compute");
    tb_enter(b, 1, 100, "compute");
    tb_leave(b, 1, marker, "compute");
    if (tb_close(b))
        return 1;
    char path[4200];
    snprintf(path, sizeof path, "%s/traces/1.evt", dir);
    return patch_timestamp(path, marker, 50);
}

/* Rank 0 computes 200 ns, rank 1 from 0 to @p end ns. */
static int long_compute(const char *dir, uint64_t end)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_enter(b, 0, 0, "compute");
    tb_leave(b, 0, 200, "compute");
    tb_enter(b, 1, 0, "compute");
    tb_leave(b, 1, end, "compute");
    return tb_close(b);
}

/* A timestamp of 2^64 - 1 ticks. */
static int time_overflow(const char *dir) { return long_compute(dir, UINT64_MAX); }
/* A time of 2^52 ns, the first that an event cannot hold. */
static int time_beyond(const char *dir) { return long_compute(dir, UINT64_C(1) << 52); }
/* A compute interval of 3 * 2^50 ns (39 days): longer than a trace may span (2^51 ns), though each
 * time is one an event can hold (below 2^52 ns). */
static int time_far(const char *dir) { return long_compute(dir, UINT64_C(3) << 50); }
/* Rank 0 computes at 0-200 ns, rank 1 at 3 * 2^50 ns: each rank's own span is short, the trace's is
 * not (a distributed open, where each process reads one rank, must still refuse it). */
static int time_apart(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_enter(b, 0, 0, "compute");
    tb_leave(b, 0, 200, "compute");
    tb_enter(b, 1, UINT64_C(3) << 50, "compute");
    tb_leave(b, 1, (UINT64_C(3) << 50) + 200, "compute");
    return tb_close(b);
}
/* A compute interval of 2^50 ns (13 days): valid, but not at --compute-scale 4 (the ps clock). */
static int time_long(const char *dir) { return long_compute(dir, UINT64_C(1) << 50); }

/* Definitions of two ranks, not a single event. */
static int no_events(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    return tb_close(b);
}

/* Rank 0 enters a barrier that rank 1 never enters. */
static int missing_collective(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_collective(b, 0, 0, 100, "MPI_Barrier", BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tb_enter(b, 1, 0, "compute");
    tb_leave(b, 1, 100, "compute");
    return tb_close(b);
}

/* Rank 0 calls a barrier where rank 1 calls an allreduce. */
static int collective_mismatch(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_collective(b, 0, 0, 100, "MPI_Barrier", BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tb_collective(b, 1, 0, 100, "MPI_Allreduce", ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
    return tb_close(b);
}

/* Both ranks record a bcast without a root (OTF2_UNDEFINED_UINT32): refused, not taken as 0. */
static int undefined_root(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_collective(b, 0, 0, 100, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, OTF2_UNDEFINED_UINT32, 8, 0);
    tb_collective(b, 1, 0, 100, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, OTF2_UNDEFINED_UINT32, 0, 8);
    return tb_close(b);
}

/* A valid run of one rank: 1 us of compute, a barrier of 100 ns, 2 us of compute. */
static int one_rank(const char *dir)
{
    tb_builder *b = tb_create(dir, 1);
    if (!b)
        return 1;
    tb_enter(b, 0, 0, "compute");
    tb_leave(b, 0, 1000, "compute");
    tb_collective(b, 0, 1000, 1100, "MPI_Barrier", BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tb_enter(b, 0, 1100, "compute");
    tb_leave(b, 0, 3100, "compute");
    return tb_close(b);
}

/* Valid but skewed: rank 1's receive completes at 500 ns, rank 0's send starts at 1000 ns. */
static int clock_skew(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    tb_call_send(b, 0, 1000, 1100, "MPI_Send", 1, 0, 8);
    tb_call_recv(b, 1, 0, 500, 0, 0, 8);
    return tb_close(b);
}

/* Valid, with clock offsets (as a tracer measured them): rank 0 sends 8 B at 1000 - 1100; rank 1
 * receives 1000 - 3000 and computes 6000 - 8000 by its own clock, whose offset to rank 0's goes
 * from 0 at time 0 to +5000 ns at 10000 (each +-100 ns): it moves by 5000 ns, more than the
 * 200 ns stated. OTF2 interpolates: rank 1's events read at 1500, 4500, 9000 and 12000. Rank 2
 * computes 2000 - 3000; its offset moves from 0 to +200 ns, exactly the 200 ns stated: no drift. */
static int clock_drift(const char *dir)
{
    tb_builder *b = tb_create(dir, 3);
    if (!b)
        return 1;
    tb_call_send(b, 0, 1000, 1100, "MPI_Send", 1, 0, 8);
    tb_call_recv(b, 1, 1000, 3000, 0, 0, 8);
    tb_enter(b, 1, 6000, "compute");
    tb_leave(b, 1, 8000, "compute");
    tb_clock_offset(b, 0, 0, 0, 0.0);
    tb_clock_offset(b, 0, 10000, 0, 0.0);
    tb_clock_offset(b, 1, 0, 0, 100.0);
    tb_clock_offset(b, 1, 10000, 5000, 100.0);
    tb_enter(b, 2, 2000, "compute");
    tb_leave(b, 2, 3000, "compute");
    tb_clock_offset(b, 2, 0, 0, 100.0);
    tb_clock_offset(b, 2, 10000, 200, 100.0);
    return tb_close(b);
}

/*
 * An archive written with OTF2 directly, since the builder always defines every location:
 * events for locations 0 and 1, but Location definitions only for those in @p defined (a bit
 * mask). MPI_COMM_WORLD still lists both; rank 0 sends to rank 1.
 */
static OTF2_FlushType raw_pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud; (void)ft; (void)loc; (void)cd; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp raw_post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud; (void)ft; (void)loc;
    return 0;
}

static int raw_locations(const char *dir, unsigned defined)
{
    static const OTF2_FlushCallbacks cbs = {raw_pre_flush, raw_post_flush};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return 1;
    OTF2_Archive_SetFlushCallbacks(ar, &cbs, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    uint64_t nev[2] = {0, 0};
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
        OTF2_EvtWriter_Enter(w, NULL, 0, 0);
        if (r == 0)
            OTF2_EvtWriter_MpiSend(w, NULL, 0, 1, 0, 0, 8);
        else
            OTF2_EvtWriter_MpiRecv(w, NULL, 100, 0, 0, 0, 8);
        OTF2_EvtWriter_Leave(w, NULL, 100, 0);
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 101, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    OTF2_GlobalDefWriter_WriteString(g, 1, "machine");
    OTF2_GlobalDefWriter_WriteString(g, 2, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(g, 3, "MPI_Send");
    OTF2_GlobalDefWriter_WriteString(g, 4, "MPI Rank 0");
    OTF2_GlobalDefWriter_WriteString(g, 5, "MPI Rank 1");
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 3, 3, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 4 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        if (defined & (1u << r))
            OTF2_GlobalDefWriter_WriteLocation(g, r, 4 + r, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r);
    }
    const uint64_t members[2] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                    members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 2, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_CloseGlobalDefWriter(ar, g);
    return OTF2_Archive_Close(ar) != OTF2_SUCCESS;
}

static int undefined_location(const char *dir) { return raw_locations(dir, 1u); }
static int no_locations(const char *dir) { return raw_locations(dir, 0u); }

/* 2500 round trips of 8 bytes: 5000 messages one after the other, each α long in a replay (the
 * clock's limit, 4e18 ps, falls after 4000 of them at α = 1000 s). */
static int long_chain(const char *dir)
{
    tb_builder *b = tb_create(dir, 2);
    if (!b)
        return 1;
    for (int i = 0; i < 2500; i++) {
        uint64_t t = (uint64_t)i * 1000;
        tb_call_send(b, 0, t, t + 100, "MPI_Send", 1, 0, 8);
        tb_call_recv(b, 1, t, t + 100, 0, 0, 8);
        tb_call_send(b, 1, t + 200, t + 300, "MPI_Send", 0, 1, 8);
        tb_call_recv(b, 0, t + 200, t + 300, 1, 1, 8);
    }
    return tb_close(b);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*make)(const char *dir);
    } traces[] = {
        {"good", good},
        {"ring3", ring3},
        {"long-chain", long_chain},
        {"unmatched-recv", unmatched_recv},
        {"unmatched-send", unmatched_send},
        {"deadlock", deadlock},
        {"deadlock3", deadlock3},
        {"undefined-region", undefined_region},
        {"undefined-comm", undefined_comm},
        {"peer-outside", peer_outside},
        {"comm-member-outside", comm_member_outside},
        {"undefined-location", undefined_location},
        {"no-locations", no_locations},
        {"huge-message", huge_message},
        {"huge-collective", huge_collective},
        {"size-mismatch", size_mismatch},
        {"time-backwards", time_backwards},
        {"time-overflow", time_overflow},
        {"time-beyond", time_beyond},
        {"time-far", time_far},
        {"time-apart", time_apart},
        {"time-long", time_long},
        {"no-events", no_events},
        {"missing-collective", missing_collective},
        {"collective-mismatch", collective_mismatch},
        {"undefined-root", undefined_root},
        {"one-rank", one_rank},
        {"clock-skew", clock_skew},
        {"clock-drift", clock_drift},
    };
    char path[4096];
    if (argc != 2) {
        fprintf(stderr, "usage: make_bad_traces DIR\n");
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof traces / sizeof *traces; i++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], traces[i].name);
        if (traces[i].make(path)) {
            fprintf(stderr, "make_bad_traces: cannot write %s\n", path);
            rc = 1;
        }
    }
    return rc;
}
