/* SPDX-License-Identifier: MIT */
/*
 * Compute as CPU time (issue #45, item 2): traces whose Enter/Leave records carry retime-trace's
 * retime::cpu_time attribute. Hand-derived: one rank whose lost time (wall minus CPU) is put in
 * the gap before each reading, a jump larger than that gap deferred to the next reading; two
 * ranks where the sender's lost time moves the receiver's end. Property over random one-rank
 * traces: the CPU-time replay ends exactly the lost time earlier than the wall-time one, and the
 * time counted as waiting for a CPU is that lost time. A trace without the attribute replays the
 * same under RT_COMPUTE_CPU as under RT_COMPUTE_WALL. The tracer's own time outside MPI calls
 * (BufferFlush records) is taken out of compute under both, never making an interval negative.
 * Each of these traces replays the same streamed (RT_TRACE_STREAM), read one record at a time.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdlib.h>
#include <string.h>

#include "otf2_builder.h"
#include "retime/replay.h"
#include "test_util.h"

static char tmp_root[256];
static int ntraces;

static tb_builder *new_trace(char *dir, size_t n, uint32_t ranks)
{
    snprintf(dir, n, "%s/t%d", tmp_root, ntraces++);
    return tb_create(dir, ranks);
}

static rt_trace *open_trace(const char *dir)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    int rc = rt_trace_open(dir, &t, &err);
    if (rc)
        fprintf(stderr, "open %s: %s\n", dir, err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    return t;
}

/* Rank @p rank's predicted end [ps] under Hockney alpha 1000 ns, beta 0, compute @p compute. */
static rt_time_ps end_ps(rt_trace *t, int compute, uint32_t rank)
{
    struct rt_replay_options o;
    struct rt_model_params p = {.alpha_ns = 1000.0, .beta_ns_per_byte = 0.0};
    struct rt_replay_result *res = NULL;
    rt_error err = {0};
    rt_replay_options_default(&o);
    CHECK_EQ_INT(rt_model_init(&o.model, "hockney", &p, &err), RT_OK);
    o.compute = compute;
    int rc = rt_replay_run(t, &o, NULL, &res, &err);
    if (rc)
        fprintf(stderr, "replay: %s\n", err.msg);
    CHECK_EQ_INT(rc, RT_OK);
    rt_time_ps end = res ? res->predicted_end_ps[rank] : -1;
    rt_replay_result_destroy(res);
    return end;
}

/* end_ps of the trace in @p dir opened streamed (RT_TRACE_STREAM), read @p chunk records at a time:
 * a CPU reading may still apply to events read before it at its time (trace_stream.c). */
static rt_time_ps stream_end_ps(const char *dir, int compute, uint32_t rank, const char *chunk)
{
    rt_trace *t = NULL;
    rt_error err = {0};
    setenv("RETIME_STREAM_CHUNK", chunk, 1);
    int rc = rt_trace_open_flags(dir, RT_TRACE_STREAM, &t, &err);
    CHECK_EQ_INT(rc, RT_OK);
    rt_time_ps end = rc ? -1 : end_ps(t, compute, rank);
    rt_trace_close(t);
    unsetenv("RETIME_STREAM_CHUNK");
    return end;
}

/* One rank in "main" from 0 to 20000 ns, with "work" 1000-11000 and "work2" 12000-12500.
 * Readings (event time: CPU time): 0: 0 (the base), 11000: 4000, 12500: 4600, 20000: 12000.
 *   11000: wall minus CPU since the base 7000, within the gap before it (10000): lost 7000;
 *   12500: 7900, but the gap before it is 500: lost 7000 + 500 = 7500 (the rest waits);
 *   20000: 8000, within 7500 + the 7500 gap: lost 8000.
 * Wall time: ends at 20000; CPU time: 20000 - 8000 = 12000. All of it is outside MPI calls:
 * compute 20000 ns, of it 8000 waiting for a CPU. */
static void test_one_rank(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 1);
    tb_cpu(b, 0, 0);
    tb_enter(b, 0, 0, "main");
    tb_enter(b, 0, 1000, "work");
    tb_cpu(b, 0, 4000);
    tb_leave(b, 0, 11000, "work");
    tb_enter(b, 0, 12000, "work2");
    tb_cpu(b, 0, 4600);
    tb_leave(b, 0, 12500, "work2");
    tb_cpu(b, 0, 12000);
    tb_leave(b, 0, 20000, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    CHECK_EQ_INT(rt_trace_has_cpu_time(t), 1);
    rt_time_ns wall = -1, waited = -1;
    rt_trace_compute_time(t, 0, &wall, &waited);
    CHECK_EQ_INT(wall, 20000);
    CHECK_EQ_INT(waited, 8000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_WALL, 0), 20000000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 0), 12000000);
    rt_trace_close(t);
}

/* Rank 0 computes 0-10000 by the wall, 3000 by its CPU time (read at its MPI_Send's Enter), then
 * sends 8 B (MPI_Send 10000-10100, main left at 10200); rank 1 waits in MPI_Recv from 100 and
 * leaves main 100 ns after it. Hockney alpha 1000 ns: the message arrives 1000 ns after the
 * send starts: at 11000 by the wall, at 4000 by the CPU time; rank 1 ends 100 ns later. Rank 1's
 * own time in MPI_Recv is not compute: it has no lost time (its only reading is the base). */
static void test_two_ranks(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_cpu(b, 0, 0);
    tb_enter(b, 0, 0, "main");
    tb_cpu(b, 0, 3000);
    tb_call_send(b, 0, 10000, 10100, "MPI_Send", 1, 0, 8);
    tb_leave(b, 0, 10200, "main");
    tb_cpu(b, 1, 50);
    tb_enter(b, 1, 0, "main");
    tb_call_recv(b, 1, 100, 12000, 0, 0, 8);
    tb_leave(b, 1, 12100, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_WALL, 1), 11100000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 1), 4100000);
    rt_time_ns wall, waited;
    rt_trace_compute_time(t, 0, &wall, &waited);
    CHECK_EQ_INT(wall, 10000 + 100);
    CHECK_EQ_INT(waited, 7000);
    rt_trace_compute_time(t, 1, &wall, &waited);
    CHECK_EQ_INT(wall, 100 + 100);
    CHECK_EQ_INT(waited, 0);
    rt_trace_close(t);
}

/* A receive whose call lost time (the rank waited 9000 ns without running inside MPI_Recv,
 * 1000-12000): the message record and the Leave share 12000, the reading is on the Leave.
 * Rank 1: main at 0 (CPU 0), MPI_Recv 1000-12000 (CPU at the Leave 3000: lost 12000 - 3000 =
 * 9000, all in the gap 1000-12000), then compute to main's Leave at 15000 (CPU 6000: nothing
 * lost there). Its compute outside MPI calls: 1000 + 3000 = 4000 wall, none lost. The model
 * times the receive: it ends when the message comes (rank 0 sends at 10000, alpha 1000: 11000;
 * rank 0 has no CPU times), then 3000 of compute: 14000, by CPU time as by wall time. (Put into
 * the gap after the call, the 9000 lost would eat that compute: 11000.) */
static void test_lost_in_call(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 2);
    tb_enter(b, 0, 0, "main");
    tb_call_send(b, 0, 10000, 10100, "MPI_Send", 1, 0, 8);
    tb_leave(b, 0, 10200, "main");
    tb_cpu(b, 1, 0);
    tb_enter(b, 1, 0, "main");
    tb_enter(b, 1, 1000, "MPI_Recv");
    tb_recv(b, 1, 12000, 0, 0, 8);
    tb_cpu(b, 1, 3000);
    tb_leave(b, 1, 12000, "MPI_Recv");
    tb_cpu(b, 1, 6000);
    tb_leave(b, 1, 15000, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_time_ns wall, waited;
    rt_trace_compute_time(t, 1, &wall, &waited);
    CHECK_EQ_INT(wall, 4000);
    CHECK_EQ_INT(waited, 0);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 1), 14000000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_WALL, 1), 14000000);
    rt_trace_close(t);
}

/* Time lost inside a call the model does not time (MPI_Init: no message, no collective) stays:
 * one rank, MPI_Init 0-5000 (CPU 0 at its Enter, 1000 at its Leave: 4000 not run, inside the
 * call), then compute to main's Leave at 8000 (CPU 4000: nothing lost). The call keeps its 5000
 * as measured, the compute its 3000: 8000 by CPU time as by wall time, and no wait for a CPU. */
static void test_lost_in_init(void)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 1);
    tb_cpu(b, 0, 0);
    tb_enter(b, 0, 0, "MPI_Init");
    tb_cpu(b, 0, 1000);
    tb_leave(b, 0, 5000, "MPI_Init");
    tb_enter(b, 0, 5000, "main");
    tb_cpu(b, 0, 4000);
    tb_leave(b, 0, 8000, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_time_ns wall, waited;
    rt_trace_compute_time(t, 0, &wall, &waited);
    CHECK_EQ_INT(wall, 3000);
    CHECK_EQ_INT(waited, 0);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 0), 8000000);
    rt_trace_close(t);
}

/* test_two_ranks's run without CPU times into @p dir, with rank 0's buffer flush @p f0-@p f1
 * before its MPI_Send when @p f1 > 0. 0, or the builder's failure. */
static int send_recv_trace(char *dir, size_t n, uint64_t f0, uint64_t f1)
{
    tb_builder *b = new_trace(dir, n, 2);
    tb_enter(b, 0, 0, "main");
    if (f1 > 0)
        tb_buffer_flush(b, 0, f0, f1);
    tb_call_send(b, 0, 10000, 10100, "MPI_Send", 1, 0, 8);
    tb_leave(b, 0, 10200, "main");
    tb_enter(b, 1, 0, "main");
    tb_call_recv(b, 1, 100, 12000, 0, 0, 8);
    tb_leave(b, 1, 12100, "main");
    return tb_close(b);
}

/* The same trace without CPU times: no CPU time, and RT_COMPUTE_CPU replays as wall time. */
static void test_without(void)
{
    char dir[300];
    CHECK_EQ_INT(send_recv_trace(dir, sizeof dir, 0, 0), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    CHECK_EQ_INT(rt_trace_has_cpu_time(t), 0);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 1), end_ps(t, RT_COMPUTE_WALL, 1));
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 1), 11100000);
    rt_time_ns wall, waited;
    rt_trace_compute_time(t, 0, &wall, &waited);
    CHECK_EQ_INT(waited, 0);
    rt_trace_close(t);
}

/* Random one-rank traces: regions entered and left with gaps of 0-5000 ns (equal times too), a
 * reading at about half of the events, each reading's CPU time chosen so that its lost time grows
 * by no more than the gap before it, from the last earlier time (as a real thread's does when no
 * event falls in a long wait; events at one time, a message record and its call's Leave, share
 * one gap):
 * then nothing is deferred, the CPU-time replay ends exactly the last reading's lost time earlier
 * than the wall-time one, and that time is all counted as waiting for a CPU. */
static void test_random(unsigned seed)
{
    char dir[300];
    srand(seed);
    tb_builder *b = new_trace(dir, sizeof dir, 1);
    /* before: the last event time below t (the gap a reading's lost time goes into begins there:
     * events at equal times share one) */
    uint64_t t = 0, prev = 0, before = 0, base_t = 0, last_t = 0, cpu = 0, base_cpu = 0, last_cpu = 0;
    int have_base = 0, depth = 0;
    int n = 50 + rand() % 300;
    for (int i = 0; i < n || depth > 0; i++) {
        if (i > 0) {
            uint64_t step = rand() % 4 == 0 ? 0 : (uint64_t)(rand() % 5000);
            if (step)
                before = prev;
            t += step;
        }
        int read = i == 0 || rand() % 2;
        if (read) {
            if (!have_base) {
                cpu = 1000000 + (uint64_t)(rand() % 1000);
                base_t = t;
                base_cpu = cpu;
                have_base = 1;
            } else { /* CPU since the last reading: all of it but at most the last gap */
                uint64_t since = t - last_t, gap = t > before ? t - before : 0;
                if (gap > since) /* the last reading lies inside that gap */
                    gap = since;
                uint64_t lo = since - gap;
                cpu = last_cpu + lo + (gap ? (uint64_t)rand() % (gap + 1) : 0);
            }
            last_t = t;
            last_cpu = cpu;
            tb_cpu(b, 0, cpu);
        }
        if (depth == 0 || (i < n && rand() % 2)) {
            tb_enter(b, 0, t, depth % 2 ? "inner" : "outer");
            depth++;
        } else {
            depth--;
            tb_leave(b, 0, t, depth % 2 ? "inner" : "outer");
        }
        prev = t;
    }
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *tr = open_trace(dir);
    if (!tr)
        return;
    int64_t lost = (int64_t)(last_t - base_t) - (int64_t)(last_cpu - base_cpu);
    rt_time_ps wall_end = end_ps(tr, RT_COMPUTE_WALL, 0), cpu_end = end_ps(tr, RT_COMPUTE_CPU, 0);
    CHECK_EQ_INT(wall_end, (int64_t)t * 1000);
    CHECK_EQ_INT(cpu_end, ((int64_t)t - lost) * 1000);
    static const char *const chunks[] = {"1", "2", "5", "64"}; /* streamed: the same, piece by piece */
    for (int c = 0; c < 4; c++) {
        CHECK_EQ_INT(stream_end_ps(dir, RT_COMPUTE_WALL, 0, chunks[c]), wall_end);
        CHECK_EQ_INT(stream_end_ps(dir, RT_COMPUTE_CPU, 0, chunks[c]), cpu_end);
    }
    rt_time_ns wall, waited;
    rt_trace_compute_time(tr, 0, &wall, &waited);
    CHECK_EQ_INT(wall, (int64_t)t);
    CHECK_EQ_INT(waited, lost);
    if (rt_test_failures)
        fprintf(stderr, "  (seed %u, %d events)\n", seed, n);
    rt_trace_close(tr);
}

/* The tracer's own time (a BufferFlush record outside MPI calls: retime-trace's drain of its
 * event log) is taken out of compute, with the wall time and with the CPU time. Rank 0 of
 * test_two_ranks's run, without CPU readings, flushed 2000-5000 before its MPI_Send at 10000:
 * its compute to the send is 7000, the message arrives at 8000 (Hockney alpha 1000), rank 1 ends
 * 100 ns later: 8100 ns by either compute (no readings: the same). Without the flush: 11100. */
static void test_flush_taken_out(void)
{
    char dir[300];
    CHECK_EQ_INT(send_recv_trace(dir, sizeof dir, 2000, 5000), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_WALL, 1), 8100000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 1), 8100000);
    rt_trace_close(t);
}

/* A flush and CPU readings on one rank. main from 0 (CPU 0), a flush 1000-4000 (the tracer ran:
 * its 3000 ns are CPU time), "work" entered at 10000 (CPU 8000: of the 10000 ns, 3000 the
 * tracer's, 5000 the program's, 2000 not run), left at 12000 (CPU 10000), main left at 13000
 * (CPU 11000). Wall: 13000 - 3000 = 10000. CPU: less the 2000 not run too: 8000; 2000 waited.
 * With @p deschedule, the flush is 1000-9000 and "work" is entered at 10000 with CPU 500 (the
 * flush itself did not run): 9500 ns not run by then, but the gap before it holds only 2000
 * outside the flush, so 2000 is placed there (no compute interval is ever negative) and the
 * rest (7500) at the next reading, 20000 (CPU 10500, main left then). Wall: 20000 - 8000 =
 * 12000; CPU: 12000 - 9500 = 2500 (the flush's own wait counted again: its CPU time is not
 * known). */
static void test_flush_and_cpu(int deschedule)
{
    char dir[300];
    tb_builder *b = new_trace(dir, sizeof dir, 1);
    tb_cpu(b, 0, 0);
    tb_enter(b, 0, 0, "main");
    tb_buffer_flush(b, 0, 1000, deschedule ? 9000 : 4000);
    tb_cpu(b, 0, deschedule ? 500 : 8000);
    tb_enter(b, 0, 10000, "work");
    tb_cpu(b, 0, deschedule ? 10500 : 10000);
    tb_leave(b, 0, deschedule ? 20000 : 12000, "work");
    if (!deschedule)
        tb_cpu(b, 0, 11000);
    tb_leave(b, 0, deschedule ? 20000 : 13000, "main");
    CHECK_EQ_INT(tb_close(b), 0);
    rt_trace *t = open_trace(dir);
    if (!t)
        return;
    rt_time_ns wall = -1, waited = -1;
    rt_trace_compute_time(t, 0, &wall, &waited);
    CHECK_EQ_INT(waited, deschedule ? 9500 : 2000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_WALL, 0), deschedule ? 12000000 : 10000000);
    CHECK_EQ_INT(end_ps(t, RT_COMPUTE_CPU, 0), deschedule ? 2500000 : 8000000);
    CHECK_EQ_INT(stream_end_ps(dir, RT_COMPUTE_WALL, 0, "1"), deschedule ? 12000000 : 10000000);
    CHECK_EQ_INT(stream_end_ps(dir, RT_COMPUTE_CPU, 0, "1"), deschedule ? 2500000 : 8000000);
    rt_trace_close(t);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/retime-test-cpu-time-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_one_rank();
    test_two_ranks();
    test_lost_in_call();
    test_lost_in_init();
    test_without();
    test_flush_taken_out();
    test_flush_and_cpu(0);
    test_flush_and_cpu(1);
    for (unsigned seed = 1; seed <= 40 && !rt_test_failures; seed++)
        test_random(seed);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
