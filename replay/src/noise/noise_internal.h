/* SPDX-License-Identifier: MIT */
/*
 * What the engine and the collectives need from the noise modules: the spec parsing helpers
 * they share (noise.c), the per-rank detour cursors of OS noise (os_noise.c) and the Markov
 * chains of bursty traffic (burst.c). Cursors and chains are per replay, so concurrent replays
 * of one trace (sweep, Monte Carlo) share only the immutable noise descriptions.
 */
#ifndef RETIME_NOISE_INTERNAL_H
#define RETIME_NOISE_INTERNAL_H

#include <stddef.h>

#include "retime/noise.h"
#include "retime/trace.h"

/* KEY=VALUE in a comma-separated list: the value (up to ',' or the end) and its length, or NULL. */
const char *rt__noise_param(const char *args, const char *key, size_t *len);
/* @p s (@p len bytes) as an error quotes it: whole up to 60 characters, else its first 57 and "...". */
const char *rt__noise_quote(char *buf, size_t n, const char *s, size_t len);
/* Parses KEY's value as a time (ns) or a plain number; RT_EINVAL naming @p spec when missing.
 * @p what names the option's kind in the error ("noise", "burst", "perturb"). */
int rt__noise_get(const char *what, const char *spec, const char *args, const char *key, int is_time, double *out,
                  rt_error *err);
/* Checks that @p args names only the keys in @p keys (NULL-terminated). */
int rt__noise_only(const char *what, const char *spec, const char *args, const char *const *keys, rt_error *err);

/* ------------------------------------------------------------------ OS noise */

/* Where one rank is in one source's sequence of detours. Detours come in order of start and
 * do not overlap, so a rank whose clock only moves forward walks each sequence once. */
struct rt__detour_cursor {
    rt_time_ps s, e;      /* the current detour [s, e) */
    rt_time_ps prev_e;    /* end of the one before it: a query before this restarts the walk */
    rt_time_ps offset;    /* the rank's phase (periodic) or offset into the file */
    rt_time_ps arrival;   /* poisson: arrival of the current detour */
    int64_t i;            /* index of the current detour */
    uint64_t rng;         /* poisson: the stream after drawing the newest detour */
    int64_t head;         /* poisson: index of the newest detour drawn */
    rt_time_ps *ring;     /* poisson: the last RT__DETOUR_RING detours drawn, start and end
                           * by index mod the ring, so that a query a little back in time (the
                           * members of a collective round are not timed in time order) need
                           * not draw the sequence again from time 0 */
    uint8_t state;        /* 0 not started, 1 walking, 2 this source does not apply to the rank */
};
#define RT__DETOUR_RING 64

/* Frees what @p n cursors hold (not the array). */
void rt__os_cursors_free(struct rt__detour_cursor *cur, size_t n);

/* The noise of one replay; each rank has rt_os_noise_sources() cursors, zeroed before the first use. */
struct rt__os_ctx {
    const rt_os_noise *noise;
    uint64_t seed, run;
};

/*
 * The time at which CPU work of @p work ps that may start at @p t is done on rank @p rank,
 * whose CPU runs its detours first. With @p work = 0 it is when the rank can next run: @p t,
 * or the end of the detours in progress at @p t. Adds the time the detours took to *@p lost.
 */
rt_time_ps rt__os_advance(const struct rt__os_ctx *ctx, uint32_t rank, struct rt__detour_cursor *cur, rt_time_ps t,
                          rt_time_ps work, rt_time_ps *lost);

/* ------------------------------------------------------------------ bursty traffic */

/* One two-state Markov chain, its switching times made as far as asked (state at time 0 is
 * drawn from the stationary distribution; the state flips at every switch). */
/* A chain's switching times, made in order from its random stream and kept as a mark per block of
 * RT__BURST_BLOCK switches (the time before the block and the stream's state there): 16 bytes per
 * block instead of 8 per switch. The block a query falls in is made again from its mark. */
#define RT__BURST_BLOCK 64
struct rt__burst_mark {
    rt_time_ps before; /* the switch before the block's first (0 for the first block) */
    uint64_t rng;      /* the stream's state before the block's first switch */
};
struct rt__burst_chain {
    uint64_t rng;                /* the stream's state after the last switch made */
    rt_time_ps last;             /* the last switch made */
    uint64_t n;                  /* switches made */
    struct rt__burst_mark *mark; /* one per block begun */
    size_t nmark, capmark;
    rt_time_ps *blk;             /* the switches of block cur (RT__BURST_BLOCK of room) */
    uint64_t cur;                /* UINT64_MAX: none there */
    uint32_t ncur;
    uint8_t on0, started;
};

/* The chains of one replay: one, or one per sending rank. */
struct rt__burst_state {
    const rt_burst *burst;
    uint64_t seed, run;
    struct rt__burst_chain *chain;
    uint32_t nchains;
};

/* RT_OK or RT_ENOMEM. */
int rt__burst_state_init(struct rt__burst_state *st, const rt_burst *b, uint64_t seed, uint64_t run, uint32_t ranks);
void rt__burst_state_free(struct rt__burst_state *st);
/* Bytes held by the chains' switching times. */
uint64_t rt__burst_state_memory(const struct rt__burst_state *st);
/*
 * Whether the link of @p sender is in a burst at time @p t: 1 on, 0 off, -1 out of memory.
 * Queries may come in any order of time.
 */
int rt__burst_on(struct rt__burst_state *st, uint32_t sender, rt_time_ps t);
/* A wire time of latency @p lat plus transfer @p xfer as it is during a burst. */
rt_time_ps rt__burst_wire(const rt_burst *b, rt_time_ps lat, rt_time_ps xfer);

#endif
