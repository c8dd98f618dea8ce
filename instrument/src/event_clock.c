/* SPDX-License-Identifier: MIT */
/* The event clock: where the tracer's timestamps come from (issue #45, item 6).
 *
 * Every traced call reads the clock twice, which made it the largest fixed cost of the tracer:
 * clock_gettime(CLOCK_MONOTONIC) through the vDSO took 32-59 ns here, the CPU's time-stamp counter
 * 12.6 ns. So where the kernel keeps its own time with the counter (its clocksource is "tsc",
 * which it keeps only while the counter is invariant and synchronised over the node's CPUs) and
 * the CPU says so (constant_tsc, nonstop_tsc), events are stamped with the counter converted to
 * ns: t = base_ns + ((tsc - base_tsc) * mult) >> 32. Timestamps stay ns (ClockProperties at 1 GHz),
 * so readers see the same kind of trace and keep their fast path.
 *
 * Calibration: the counter's rate against CLOCK_MONOTONIC_RAW (the kernel's clock without NTP's
 * slewing), sampled before PMPI_Init and after it, so that MPI's own start-up is the window (at
 * least RT_TSC_MIN_WINDOW_NS; each sample is the tightest of RT_TSC_TRIES bracketed reads); the
 * base is CLOCK_MONOTONIC at the second sample, so times stay close to the other clock. One rank
 * per node calibrates and gives its parameters to the node's other ranks: the ranks of a node
 * then read one clock, and those of rank 0's node keep clock offset 0 exactly (clock.c). At
 * MPI_Finalize each node's calibrating rank measures how far its converted clock ran from
 * CLOCK_MONOTONIC_RAW; rank 0 writes the clock, its rate and the largest such distance as the
 * archive property RETIME::CLOCK, and warns above RT_TSC_WARN_PPM.
 *
 * RETIME_TRACE_CLOCK=monotonic keeps clock_gettime(CLOCK_MONOTONIC); =tsc takes the counter even
 * where the kernel does not (for a test; the finalize check still measures it). */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#define RT_HAVE_TSC 1
#else
#define RT_HAVE_TSC 0
#endif

#define RT_TSC_TRIES 16
#define RT_TSC_MIN_WINDOW_NS 2000000u /* 2 ms */
#define RT_TSC_WARN_PPM 50.0

RT_HIDDEN struct rt__event_clock rt__evclock;

/* The calibrating rank's samples (the first is taken by every rank, used by one per node). */
struct rt__clock_pair {
    uint64_t tsc, raw, mono;
};
static struct rt__clock_pair rt__cal0, rt__cal1;
static uint64_t rt__window_ticks, rt__window_ns; /* the node's calibration window (every rank) */
static double rt__drift_ppm; /* rank 0: the largest |distance| of a node's clock at finalize */
static int rt__drift_known;

static uint64_t rt__ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t rt__read_tsc(void)
{
#if RT_HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
}

/* The counter and both clocks at (nearly) one instant: the tightest bracket of several tries,
 * the counter taken at its middle. */
static void rt__pair(struct rt__clock_pair *p)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < RT_TSC_TRIES; i++) {
        struct timespec r, m;
        uint64_t a = rt__read_tsc();
        clock_gettime(CLOCK_MONOTONIC_RAW, &r);
        clock_gettime(CLOCK_MONOTONIC, &m);
        uint64_t b = rt__read_tsc();
        if (b - a < best) {
            best = b - a;
            p->tsc = a + (b - a) / 2;
            p->raw = rt__ts_ns(&r);
            p->mono = rt__ts_ns(&m);
        }
    }
}

/* Whether the kernel keeps time with the counter and the CPU says it is invariant. */
static int rt__kernel_trusts_tsc(void)
{
    char buf[64] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) && !strncmp(buf, "tsc", 3) && (buf[3] == '\n' || !buf[3]);
    fclose(f);
    if (!ok || !(f = fopen("/proc/cpuinfo", "r")))
        return 0;
    char line[4096];
    ok = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5)) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    fclose(f);
    return ok;
}

uint64_t rt__event_clock_start(void)
{
    if (RT_HAVE_TSC)
        rt__pair(&rt__cal0);
    return rt__clock();
}

/* The calibrating rank: the parameters from its two samples, or 0 when the counter is not used. */
static int rt__calibrate(void)
{
    const char *want = getenv("RETIME_TRACE_CLOCK");
    if (!RT_HAVE_TSC || (want && !strcmp(want, "monotonic")))
        return 0;
    if (!(want && !strcmp(want, "tsc")) && !rt__kernel_trusts_tsc())
        return 0;
    if (!rt__cal0.tsc) /* MPI_Init's wrapper did not run first (cannot happen today) */
        rt__pair(&rt__cal0);
    do
        rt__pair(&rt__cal1);
    while (rt__cal1.raw - rt__cal0.raw < RT_TSC_MIN_WINDOW_NS);
    uint64_t ticks = rt__cal1.tsc - rt__cal0.tsc, ns = rt__cal1.raw - rt__cal0.raw;
    /* A counter between 100 MHz and 20 GHz, or it is not what it claims to be. */
    if (ticks < ns / 10 || ticks > ns * 20)
        return 0;
    rt__evclock.mult = (uint64_t)(((unsigned __int128)ns << 32) / ticks);
    rt__evclock.base_tsc = rt__cal1.tsc;
    rt__evclock.base_ns = rt__cal1.mono;
    return 1;
}

uint64_t rt__event_clock_init(MPI_Comm node, uint64_t t_enter)
{
    int nrank = 0;
    PMPI_Comm_rank(node, &nrank);
    uint64_t p[6] = {0, 0, 0, 0, 0, 0};
    if (nrank == 0 && rt__calibrate()) {
        p[0] = 1;
        p[1] = rt__evclock.base_tsc;
        p[2] = rt__evclock.base_ns;
        p[3] = rt__evclock.mult;
        p[4] = rt__cal1.tsc - rt__cal0.tsc;
        p[5] = rt__cal1.raw - rt__cal0.raw;
    }
    PMPI_Bcast(p, 6, MPI_UINT64_T, 0, node);
    if (!p[0])
        return t_enter;
    rt__window_ticks = p[4];
    rt__window_ns = p[5];
    /* MPI_Init's Enter was stamped with CLOCK_MONOTONIC: moved by how far this rank's
     * CLOCK_MONOTONIC is from the node's converted clock now (0 but for read jitter, unless the
     * rank runs in a time namespace of its own). */
    struct timespec m;
    clock_gettime(CLOCK_MONOTONIC, &m);
    uint64_t mono = rt__ts_ns(&m);
    rt__evclock.base_tsc = p[1];
    rt__evclock.base_ns = p[2];
    rt__evclock.mult = p[3];
    rt__evclock.on = 1;
    uint64_t now = rt__clock();
    return t_enter + (now - mono);
}

uint64_t rt__event_clock_key(void)
{
    if (!rt__evclock.on)
        return 0;
    uint64_t h = 1469598103934665603ull;
    const uint64_t v[3] = {rt__evclock.base_tsc, rt__evclock.base_ns, rt__evclock.mult};
    for (int i = 0; i < 3; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

void rt__event_clock_finish(MPI_Comm node)
{
    int nrank = 0;
    PMPI_Comm_rank(node, &nrank);
    double ppm = 0.0, worst = 0.0;
    if (nrank == 0 && rt__evclock.on) {
        struct rt__clock_pair now;
        rt__pair(&now);
        double raw = (double)(now.raw - rt__cal1.raw), got = (double)(rt__tsc_ns(now.tsc) - rt__evclock.base_ns);
        if (raw > 0)
            ppm = (got - raw) / raw * 1e6;
    }
    double mag = ppm < 0 ? -ppm : ppm;
    PMPI_Reduce(&mag, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, rt__g.comm);
    if (rt__g.rank == 0 && rt__evclock.on) {
        rt__drift_ppm = worst;
        rt__drift_known = 1;
        if (worst > RT_TSC_WARN_PPM)
            rt__warn("the time-stamp counter ran %.0f ppm off CLOCK_MONOTONIC_RAW over the run; its "
                     "times are that much off (RETIME_TRACE_CLOCK=monotonic avoids it)", worst);
    }
}

void rt__event_clock_write(OTF2_Archive *a)
{
    char v[256];
    if (!rt__evclock.on) {
        OTF2_Archive_SetProperty(a, "RETIME::CLOCK", "CLOCK_MONOTONIC", true);
        return;
    }
    int n = snprintf(v, sizeof v, "tsc at %.6f GHz, calibrated over %.1f ms at MPI_Init",
                     (double)rt__window_ticks / (double)rt__window_ns, (double)rt__window_ns / 1e6);
    if (rt__drift_known && n > 0 && (size_t)n < sizeof v)
        snprintf(v + n, sizeof v - (size_t)n, "; at most %.2f ppm from CLOCK_MONOTONIC_RAW at MPI_Finalize",
                 rt__drift_ppm);
    OTF2_Archive_SetProperty(a, "RETIME::CLOCK", v, true);
}
