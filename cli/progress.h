/* SPDX-License-Identifier: MIT */
/* Progress of long jobs on stderr: shown only when stderr is a terminal, once the job has run for
 * a second, and not after --quiet. Updates may come from several threads. */
#ifndef RETIME_PROGRESS_H
#define RETIME_PROGRESS_H

#include <stdint.h>

struct progress;

/** Silences every later progress line (--quiet). */
void progress_set_quiet(int quiet);
/** Whether --quiet was given. */
int progress_quiet(void);

/**
 * Starts a progress line "retime: WHAT  done/total UNIT  pct  elapsed".
 * @return NULL when progress is not shown (stderr not a terminal, --quiet, or out of memory);
 *         every other function accepts NULL and does nothing.
 */
struct progress *progress_start(const char *what, const char *unit, uint64_t total);
/** Adds @p n to the amount done (thread-safe); redraws at most every 0.2 s. */
void progress_add(struct progress *p, uint64_t n);
/** progress_add(ud, 1), in the shape of mc_config.on_done. */
void progress_tick(void *ud);
/** Sets the amount done, in the shape of rt_replay_observer.on_progress (@p total is ignored). */
void progress_replay(void *ud, uint64_t done, uint64_t total);
/** Clears the line and frees @p p. */
void progress_end(struct progress *p);

#endif
