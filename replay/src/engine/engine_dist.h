/* SPDX-License-Identifier: MIT */
/*
 * The distributed replay's rounds (engine_dist.c) and the engine: the whole of what the two
 * share. engine_dist.c keeps the records' buffers, their swap between the processes and the
 * agreement on time; it knows no engine. The engine (engine_remote.c) makes the records, applies
 * those from other processes, and answers, through struct rt__dist_ops, what its queue holds and
 * what a round lets it take. A record is a fixed-size blob here (the engine's struct fx). Not
 * installed.
 */
#ifndef RETIME_ENGINE_DIST_H
#define RETIME_ENGINE_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "retime/error.h"

struct rt_replay_part;
#define RT__DIST_EXT 3 /* the engine's own values in a round's reduction (rt__dist_ops.earliest) */
struct rt__dist; /* the buffers and the processes: engine_dist.c's own */

/* What the rounds ask of the engine (@p ud: the engine). apply and round return the engine's
 * failure (RT_OK: none); after one, the rounds ask nothing more but take part in the swaps and
 * reductions until every process knows. */
struct rt__dist_ops {
    /* Applies the record @p rec (rec_size bytes, not necessarily aligned) that process @p from
     * sent. */
    int (*apply)(void *ud, uint32_t from, const void *rec);
    /* The earliest (time, type) of what is queued here: *t = *type = INT64_MAX when nothing is.
     * Types are below 8 and ordered as the engine takes them at equal times. *@p ask: this
     * process wants a closer look in the next round (1) or not (0). @p ext: RT__DIST_EXT values
     * of the engine's own that the rounds only reduce to their minima over the processes. */
    void (*earliest)(void *ud, int64_t *t, int64_t *type, int *ask, int64_t *ext);
    /* Takes what the round whose earliest entry over all processes is (@p T, @p tau) lets it
     * take, and sends (rt__dist_send) what that made; @p asked: some process asked (earliest);
     * @p ext: the minima of earliest's ext over the processes. */
    int (*round)(void *ud, int64_t T, int64_t tau, int asked, const int64_t *ext);
};

/** Sets up the rounds of this process of @p P (which must outlive them) for records of
 *  @p rec_size bytes; errors name @p path. NULL when out of memory. */
struct rt__dist *rt__dist_create(const struct rt_replay_part *P, size_t rec_size, const char *path, rt_error *err);
/** Frees @p D; NULL is a no-op. */
void rt__dist_destroy(struct rt__dist *D);

/** Queues a copy of record @p rec for process @p proc until the next swap. @p due is the earliest
 *  time it can make anything happen there (INT64_MAX: never): until it is swapped, the agreement
 *  on time counts it as an entry of the first type at that time. 0, or -1 when out of memory. */
int rt__dist_send(struct rt__dist *D, uint32_t proc, const void *rec, int64_t due);

/** The earliest due time of the records queued since the last swap (INT64_MAX: none). */
int64_t rt__dist_due(const struct rt__dist *D);

/** The rounds, until no process has anything queued: swap the records (each applied with
 *  ops->apply), agree on the earliest (time, type) over all processes, let the engine take a
 *  round (ops->round). @p failed: the engine's failure so far (RT_OK: none). RT_OK, the engine's
 *  failure, the transport's, RT_ECORRUPT (a process sent a bad record) or RT_EREMOTE (another
 *  process failed). */
int rt__dist_rounds(struct rt__dist *D, const struct rt__dist_ops *ops, void *ud, int failed);

/** Replaces @p v[0..n) by its element-wise minimum (@p sum = 0) or sum (@p sum = 1) over the
 *  processes. RT_OK or the transport's error (err set). */
int rt__dist_reduce(struct rt__dist *D, int64_t *v, size_t n, int sum);

/** One error for all: @p rc itself at the lowest process with an error of its own (not
 *  RT_EREMOTE) and wherever no process has one; RT_EREMOTE naming that process at the others. */
int rt__dist_agree(struct rt__dist *D, int rc);

#endif
