/* SPDX-License-Identifier: MIT */
/**
 * @file window.h  The measured window: the part of a run a headline reports.
 *
 * A traced program's start-up (MPI_Init, often most of a short run) and shut-down are not what a
 * what-if question is about. A window names, on every rank, the event where it begins and the
 * event where it ends; the replay reports the window's span (from the earliest begin, for mpi
 * the latest, to the latest end over the ranks that have one) beside the whole run's.
 *
 *  all                    the whole run (no window)
 *  mpi                    from MPI_Init's (or MPI_Init_thread's) end to MPI_Finalize's start;
 *                         the whole run when the trace has neither (said by rt_window_text)
 *  region:NAME[#FROM-TO]  from the FROM-th entry into region NAME (1 = the first) to the TO-th
 *                         exit from it (default: the last), on every rank that enters it
 *  time:T1-T2             from the first event at or after T1 to the last at or before T2,
 *                         measured times from the trace's start (units: 10ms-20ms)
 */
#ifndef RETIME_WINDOW_H
#define RETIME_WINDOW_H

#include "retime/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rt_window_kind { RT_WINDOW_ALL, RT_WINDOW_MPI, RT_WINDOW_REGION, RT_WINDOW_TIME };

typedef struct rt_window rt_window;

/** Checks a window spec's form without a trace (for option parsing): RT_OK or RT_EINVAL. */
int rt_window_check(const char *spec, rt_error *err);
/**
 * Resolves @p spec on the ranks @p trace holds. A region no rank enters is an error naming the
 * trace's regions; a window no rank has an event in is an error too.
 */
int rt_window_open(const rt_trace *trace, const char *spec, rt_window **out, rt_error *err);
/**
 * The same on one part of a distributed replay (each process holds some ranks): whether any rank
 * has the window's calls, region instance or events is asked of every process through
 * @p any_of_all(@p ud, found here), which returns whether any process found them; every process
 * calls this alike, so the window resolves the same everywhere (a process whose ranks have no
 * MPI_Init keeps an "mpi" window that others found, its ranks spanning their whole runs).
 */
int rt_window_open_part(const rt_trace *trace, const char *spec, int (*any_of_all)(void *ud, int any), void *ud,
                        rt_window **out, rt_error *err);
void rt_window_free(rt_window *w);
/** What the window is after resolving: RT_WINDOW_ALL when "mpi" found no MPI_Init/Finalize. */
enum rt_window_kind rt_window_kind(const rt_window *w);
/** The spec as given ("mpi"). */
const char *rt_window_spec(const rt_window *w);
/** One phrase for outputs: "MPI_Init's end to MPI_Finalize's start", "whole run (no MPI_Init or
 *  MPI_Finalize in the trace)", "region solve #2-5", "time 10ms-20ms". */
const char *rt_window_text(const rt_window *w);
/** Whether the window begins at the latest of the ranks' begin events (mpi: once every rank is
 *  out of MPI_Init) rather than at the earliest (region, time). */
int rt_window_begins_latest(const rt_window *w);
/** The event of rank @p rank where the window begins (its time is the window's start on that
 *  rank) and the one where it ends; UINT64_MAX for a rank outside the window. */
uint64_t rt_window_begin(const rt_window *w, uint32_t rank);
uint64_t rt_window_end(const rt_window *w, uint32_t rank);
/**
 * A streamed trace's window (RT_TRACE_STREAM; mpi: the region and time windows are refused by
 * rt_window_open there) is resolved as the replay reads it: rank @p rank's events [@p from, @p to)
 * were just read, @p ended when they are its last. rt_window_begin and rt_window_end give
 * UINT64_MAX until found (a begin or end where the rank has no such call: once it has ended).
 * When every rank has ended and none had MPI_Init or MPI_Finalize, the window becomes the whole
 * run, as rt_window_open says of a trace read whole. The window is filled in place: one window
 * serves one replay of a streamed trace.
 */
void rt_window_stream_scan(const rt_window *w, uint32_t rank, const struct rt_event *ev, uint64_t from, uint64_t to,
                           int ended);

#ifdef __cplusplus
}
#endif
#endif
