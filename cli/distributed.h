/* SPDX-License-Identifier: MIT */
/* retime under mpirun: the distributed replay's processes (see docs/distributed.md). */
#ifndef RETIME_TOOLS_DISTRIBUTED_H
#define RETIME_TOOLS_DISTRIBUTED_H

#include "retime/replay.h"

/* Called first in main: joins the MPI job when retime was started by an MPI launcher with more
 * than one process (a no-op otherwise, and in a build without MPI). Other processes than the
 * first send their standard output nowhere: process 0 prints the results. */
void dist_init(int *argc, char ***argv);
/* Leaves the MPI job; @p rc is the process's exit status. */
void dist_finalize(int rc);
/* Whether this is one of several processes, and which. */
int dist_active(void);
unsigned dist_rank(void);
/* Opens @p path: all of it, or in a distributed run this process's part of the ranks, with
 * *@p part set to the run's processes (NULL otherwise; @p whole: every process reads all of it).
 * One process: over the memory budget, streamed when @p whole_why is NULL, else refused
 * (cli_trace_open_budget). Collective: when any process fails, all do, and only the lowest
 * failing one keeps its own error (the others get RT_EREMOTE). */
int dist_trace_open(const char *path, int whole, const char *whole_why, rt_trace **t,
                    const struct rt_replay_part **part, rt_error *err);
/* The number of processes (1 without mpirun). */
unsigned dist_size(void);
struct mc_result;
/* --split runs: after each process replayed its share of the runs (struct mc_config.nprocs),
 * gives every process all of them. @p rc is this process's mc_run result; returns it, or
 * RT_EREMOTE when only another process failed (the lowest failing one keeps its error). */
int dist_mc_merge(struct mc_result *r, int rc, rt_error *err);
/* Whether any process found what this one says in @p any (rt_window_open_part's question; every
 * process asks alike). One process: @p any. */
int dist_any(void *ud, int any);
/* Under mpirun -np N > 1, for what does not run distributed: says so (once) and returns 1. */
int dist_refuse(const char *what);

#endif
