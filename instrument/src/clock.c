/* SPDX-License-Identifier: MIT */
/* The tracer's clocks: each rank's thread CPU time beside its events, and the clock offsets of
 * the ranks to rank 0.
 *
 * CPU time. Compute is what the replay keeps of a run, and on a busy machine the wall time
 * between two MPI calls holds the time the rank waited for a CPU, which is the machine's, not
 * the program's. So events carry the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, user and
 * system) as the attribute retime::cpu_time. Reading it is a system call (0.2-1.6 us here,
 * against 25-160 ns for the event clock), so it is read at an event only when cpu_every (20 us)
 * or more has passed since the last reading: at most one reading per 20 us of the run, 1 % of
 * it or less, and none in a burst of short calls. Between readings the reader takes the rank as
 * running; the time it did not run is found at the next reading and put in the gap before it,
 * so the error of any interval is below cpu_every.
 *
 * Clock offsets of the ranks to rank 0, written as OTF2 ClockOffset records (at MPI_Init and at
 * MPI_Finalize), which OTF2's reader adds to the events' timestamps (interpolated linearly between
 * the two). A wrong offset makes a trace worse than none, so:
 *   - ranks that read the very same clock as rank 0 get offset 0, exactly, with no measurement:
 *     CLOCK_MONOTONIC is one clock per booted kernel (and time namespace), so a rank whose boot id
 *     and monotonic namespace offset are rank 0's shares it, whatever the load; with the
 *     time-stamp counter (event_clock.c), a rank whose boot id and conversion are rank 0's;
 *   - other ranks measure: batches of ping-pongs with rank 0, keeping the one with the smallest
 *     round trip (its midpoint matches rank 0's reading within half the round trip); at
 *     MPI_Finalize a batch whose best round trip is far above MPI_Init's is repeated;
 *   - half the best round trip is written as the offset's uncertainty (the record's standard
 *     deviation field), and an offset not larger than it is written as 0: it cannot be told
 *     from no offset. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_TAG_CLOCK 7301
#define RT_CLOCK_ROUNDS 20         /* ping-pongs per batch */
#define RT_CLOCK_RETRIES 3         /* more batches at most, at MPI_Finalize */
#define RT_CLOCK_RETRY_FACTOR 4    /* ... while the best round trip is above this x MPI_Init's */

static uint64_t rt__init_rtt;      /* this rank's best round trip at MPI_Init (0: none measured) */

int rt__cpu_read(uint64_t t, uint64_t *cpu)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    rt__g.cpu_last = t;
    *cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 1;
}

static uint64_t rt__fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* A key of the clock this rank reads: the kernel's boot id and the monotonic clock's offset in
 * this process's time namespace. 0 when it cannot be known (then the rank measures). */
static uint64_t rt__clock_domain(void)
{
    char buf[256];
    uint64_t h = 1469598103934665603ull;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 16)
        return 0;
    h = rt__fnv(h, buf, n);
    /* The time-stamp counter is one per booted machine, and the node's ranks share its conversion
     * (event_clock.c); CLOCK_MONOTONIC is one per time namespace. */
    uint64_t tsc = rt__event_clock_key();
    if (tsc)
        return rt__fnv(h, (const char *)&tsc, sizeof tsc) | 1;
    /* Linux 5.6+: "monotonic SECS NSECS"; without the file there are no time namespaces. */
    if ((f = fopen("/proc/self/timens_offsets", "r")) != NULL) {
        while (fgets(buf, sizeof buf, f))
            if (!strncmp(buf, "monotonic", 9))
                h = rt__fnv(h, buf, strlen(buf));
        fclose(f);
    }
    return h ? h : 1;
}

/* One batch of ping-pongs between rank 0 and rank @p r (both call it); on rank r it lowers
 * *rtt_best and sets *t_best, *off_best for the best round trip. */
static void rt__pingpongs(int r, uint64_t *rtt_best, uint64_t *t_best, int64_t *off_best)
{
    MPI_Comm c = rt__g.comm;
    for (int i = 0; i < RT_CLOCK_ROUNDS; i++) {
        if (rt__g.rank == 0) {
            uint64_t dummy, t0;
            PMPI_Recv(&dummy, 1, MPI_UINT64_T, r, RT_TAG_CLOCK, c, MPI_STATUS_IGNORE);
            t0 = rt__clock();
            PMPI_Send(&t0, 1, MPI_UINT64_T, r, RT_TAG_CLOCK, c);
        } else {
            uint64_t t1 = rt__clock(), t0 = 0, t2;
            PMPI_Send(&t1, 1, MPI_UINT64_T, 0, RT_TAG_CLOCK, c);
            PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, RT_TAG_CLOCK, c, MPI_STATUS_IGNORE);
            t2 = rt__clock();
            if (t2 - t1 < *rtt_best) {
                *rtt_best = t2 - t1;
                *t_best = t1 + (t2 - t1) / 2;
                *off_best = (int64_t)(t0 - *t_best);
            }
        }
    }
}

/* Collective over the tracer's communicator. @p final: the MPI_Finalize measurement (retries). */
void rt__clock_sync(struct rt__clock_offset *out, int final)
{
    static uint64_t domain;
    static int have_domain;
    if (!have_domain) {
        const char *how = getenv("RETIME_TRACE_CLOCK_SYNC");
        /* "measure": every rank measures, as across hosts (to test that path on one host). */
        domain = how && !strcmp(how, "measure") ? 0 : rt__clock_domain();
        have_domain = 1;
    }
    uint64_t root_domain = domain;
    PMPI_Bcast(&root_domain, 1, MPI_UINT64_T, 0, rt__g.comm);
    int shared = domain != 0 && domain == root_domain, all_shared = 0;
    PMPI_Allreduce(&shared, &all_shared, 1, MPI_INT, MPI_MIN, rt__g.comm);

    uint64_t t_best = rt__clock(), rtt_best = UINT64_MAX;
    int64_t off_best = 0;
    if (!all_shared) {
        /* Rank 0 serves the ranks in turn; each says first whether it measures, and after each
         * batch whether it wants another. */
        MPI_Comm c = rt__g.comm;
        for (int r = 1; r < rt__g.size; r++) {
            if (rt__g.rank != 0 && rt__g.rank != r)
                continue;
            int more = !shared;
            if (rt__g.rank == r)
                PMPI_Send(&more, 1, MPI_INT, 0, RT_TAG_CLOCK, c);
            else
                PMPI_Recv(&more, 1, MPI_INT, r, RT_TAG_CLOCK, c, MPI_STATUS_IGNORE);
            for (int batch = 0; more; batch++) {
                rt__pingpongs(r, &rtt_best, &t_best, &off_best);
                if (rt__g.rank == r) {
                    more = final && batch < RT_CLOCK_RETRIES && rt__init_rtt &&
                           rtt_best > RT_CLOCK_RETRY_FACTOR * rt__init_rtt;
                    PMPI_Send(&more, 1, MPI_INT, 0, RT_TAG_CLOCK, c);
                } else {
                    PMPI_Recv(&more, 1, MPI_INT, r, RT_TAG_CLOCK, c, MPI_STATUS_IGNORE);
                }
            }
        }
    }
    out->time = t_best;
    out->offset = 0;
    out->stddev = 0.0;
    if (rtt_best != UINT64_MAX) { /* measured */
        if (!final)
            rt__init_rtt = rtt_best;
        out->stddev = (double)rtt_best / 2.0;
        uint64_t mag = off_best < 0 ? (uint64_t)0 - (uint64_t)off_best : (uint64_t)off_best;
        if ((double)mag > out->stddev)
            out->offset = off_best;
    }
}
