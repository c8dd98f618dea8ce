/* SPDX-License-Identifier: MIT */
/* Test and benchmark helper: writes small OTF2 archives event by event (one comm: WORLD). */
#ifndef RETIME_OTF2_BUILDER_H
#define RETIME_OTF2_BUILDER_H

#include <stdint.h>

typedef struct tb_builder tb_builder;

/** Starts an archive DIR/traces.otf2 with @p ranks locations; NULL on failure. */
tb_builder *tb_create(const char *dir, uint32_t ranks);
/** tb_create with event chunks of @p evt_chunk bytes (OTF2_CHUNK_SIZE_MIN..MAX; tb_create: 1 MiB). */
tb_builder *tb_create_chunk(const char *dir, uint32_t ranks, uint64_t evt_chunk);
/** Writes the definitions and closes; returns 0 on success. Frees @p b in any case. */
int tb_close(tb_builder *b);

/* Events; @p t in ns, non-decreasing per rank. Region names starting with "MPI_" get the
 * MPI paradigm. @p comm_rank arguments are ranks in MPI_COMM_WORLD. */
void tb_enter(tb_builder *b, uint32_t rank, uint64_t t, const char *region);
void tb_leave(tb_builder *b, uint32_t rank, uint64_t t, const char *region);
void tb_send(tb_builder *b, uint32_t rank, uint64_t t, uint32_t to, uint32_t tag, uint64_t bytes);
void tb_recv(tb_builder *b, uint32_t rank, uint64_t t, uint32_t from, uint32_t tag, uint64_t bytes);
void tb_isend(tb_builder *b, uint32_t rank, uint64_t t, uint32_t to, uint32_t tag, uint64_t bytes, uint64_t req);
void tb_isend_complete(tb_builder *b, uint32_t rank, uint64_t t, uint64_t req);
void tb_irecv_request(tb_builder *b, uint32_t rank, uint64_t t, uint64_t req);
void tb_irecv(tb_builder *b, uint32_t rank, uint64_t t, uint32_t from, uint32_t tag, uint64_t bytes, uint64_t req);
/** A whole collective call: Enter(region), CollectiveBegin, CollectiveEnd, Leave at t0..t1. */
void tb_collective(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1, const char *region, int otf2_op,
                   uint32_t root, uint64_t sent, uint64_t received);

/**
 * Defines a communicator of the world ranks @p world_ranks (in communicator-rank order) besides
 * MPI_COMM_WORLD (id 0); returns its id for tb_collective_on.
 */
uint32_t tb_comm(tb_builder *b, const char *name, uint32_t n, const uint32_t *world_ranks);
/** tb_collective on communicator @p comm; @p root is a rank in that communicator. */
void tb_collective_on(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1, const char *region, int otf2_op,
                      uint32_t comm, uint32_t root, uint64_t sent, uint64_t received);

/** A non-blocking collective, as Score-P and retime-trace write one: the MPI_I<coll> call at
 * @p t0..@p t1 holds a NonBlockingCollectiveRequest(@p req); tb_nbcoll_wait's MPI_Wait completes it. */
void tb_nbcoll_call(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1, const char *region, uint64_t req);
/** The MPI_Wait at @p t0..@p t1 that completes request @p req: a NonBlockingCollectiveComplete of
 *  operation @p otf2_op on communicator @p comm (0: MPI_COMM_WORLD) at @p t1. */
void tb_nbcoll_wait(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1, int otf2_op, uint32_t comm, uint32_t root,
                    uint64_t sent, uint64_t received, uint64_t req);

/* Whole blocking calls: Enter/record/Leave in one go. */
void tb_call_send(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1, const char *region, uint32_t to,
                  uint32_t tag, uint64_t bytes);
void tb_call_recv(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1, uint32_t from, uint32_t tag,
                  uint64_t bytes);

/** Gives rank @p rank's next tb_enter or tb_leave the CPU time @p cpu_ns (the attribute
 * retime::cpu_time, as retime-trace writes it); OTF2 empties the list after that record. */
void tb_cpu(tb_builder *b, uint32_t rank, uint64_t cpu_ns);

/** A BufferFlush record of rank @p rank from @p t0 to @p t1: the tracer's own time (as
 * retime-trace writes one for each drain of its event log). */
void tb_buffer_flush(tb_builder *b, uint32_t rank, uint64_t t0, uint64_t t1);

/** Marks rank @p rank's next collective (tb_collective, tb_collective_on) as made MPI_IN_PLACE:
 * the attribute retime::in_place on its end, as retime-trace writes it. */
void tb_in_place(tb_builder *b, uint32_t rank);

/** A ClockOffset record of rank @p rank (its local definitions; at most 8 in all): OTF2's reader
 * adds @p offset to the rank's times, interpolated between its records. */
void tb_clock_offset(tb_builder *b, uint32_t rank, uint64_t time, int64_t offset, double sd);

/* Raw records for broken-trace tests: the references are written as given and not defined, so
 * they may name a region or communicator the archive lacks. */
/** Enter of region reference @p region_ref (defined only if a named region got that id). */
void tb_enter_ref(tb_builder *b, uint32_t rank, uint64_t t, uint32_t region_ref);
/** MpiSend on communicator reference @p comm_ref to rank @p to of it. */
void tb_send_on(tb_builder *b, uint32_t rank, uint64_t t, uint32_t comm_ref, uint32_t to, uint32_t tag,
                uint64_t bytes);

#endif
