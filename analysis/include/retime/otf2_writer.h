/* SPDX-License-Identifier: MIT */
/**
 * @file otf2_writer.h  Writes a timing of a trace (a replay's prediction) as a new OTF2 archive.
 */
#ifndef RETIME_OTF2_WRITER_H
#define RETIME_OTF2_WRITER_H

#include "retime/depgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes @p trace's events with the times of @p timing as an OTF2 archive in directory @p dir
 * (anchor `DIR/traces.otf2`), with the trace's definitions (locations with their OTF2 ids and
 * names, regions, call sites, communicators). The clock ticks in ps (resolution 10^12, offset 0),
 * so the timestamps are @p timing's times exactly. Every event carries its measured time as the
 * attribute `retime::measured_ns`, and events on the critical path carry `retime::critical_path`
 * = 1; call rt_depgraph_critical_path on @p timing first to have them marked. rt_trace_open of
 * the archive gives back @p trace's tables and events, with each time rounded to the nearest ns
 * (docs/otf2-output.md says what else is kept and what is not).
 *
 * Nothing is ever written into an existing directory; on any failure the directory this call
 * made is removed again. Neither argument is changed or kept.
 * @param trace   the trace the timing is of
 * @param timing  one timing of @p trace (a replay's rt_depgraph, or rt_depgraph_measured's)
 * @param dir     the archive's directory, which must not exist yet (its parent must)
 * @param err     optional error record: names @p dir and what failed
 * @return RT_OK; RT_EIO when @p dir exists already, cannot be made, or OTF2 fails to write;
 *         RT_EINVAL when an argument is missing or @p timing is not one of @p trace (another
 *         event count, a time that is negative or goes backwards on a rank); RT_ENOMEM.
 */
int rt_otf2_write(const rt_trace *trace, const rt_depgraph *timing, const char *dir, rt_error *err);

#ifdef __cplusplus
}
#endif
#endif
