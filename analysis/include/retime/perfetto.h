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
 * Writes @p path: one process per rank, with the measured run and @p timing as separate tracks,
 * flow arrows for messages, and the critical path of @p timing highlighted (call
 * rt_depgraph_critical_path on it first).
 * @return RT_OK, or RT_EIO naming the path when it cannot be written.
 */
int rt_perfetto_write(const rt_trace *trace, const rt_depgraph *timing, const char *path, rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
