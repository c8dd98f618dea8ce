/* SPDX-License-Identifier: MIT */
/**
 * @file perfetto.h  Writes the measured run and a timing of it as a Chrome trace-event JSON
 * timeline, which the Perfetto UI and chrome://tracing open.
 */
#ifndef RETIME_PERFETTO_H
#define RETIME_PERFETTO_H

#include "retime/depgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes @p path: one process per rank (pid = rank, "rank N") with three threads, "predicted"
 * (@p timing), "critical path" and "measured" (the trace's timestamps); every Enter/Leave pair as
 * a complete slice (MPI calls with call site, peers and bytes in args); flow arrows from each
 * point-to-point send to its receive's completion on both timings, and on the predicted one from
 * the collective member whose entry bound another's release; the critical path of @p timing as
 * one slice per run on a rank (the runs tile [0, end]), with arrows where it changes rank.
 * Times are microseconds with nanosecond precision. The file is streamed (memory O(messages +
 * events of one rank), time O(events log messages)); docs/perfetto.md describes every field.
 *
 * @param timing  a complete timing of @p trace whose critical path is marked (call
 *                rt_depgraph_critical_path on it first)
 * @return RT_OK; RT_EINVAL when @p timing is not of @p trace, is incomplete or has no critical
 *         path marked; RT_EIO naming the path when it cannot be written (the file may then be
 *         partly written); RT_ENOMEM.
 */
int rt_perfetto_write(const rt_trace *trace, const rt_depgraph *timing, const char *path, rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
