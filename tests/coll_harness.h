/* SPDX-License-Identifier: MIT */
/*
 * What the collective tests share (test_collectives.c, test_coll_algos.c): synthetic traces of
 * one collective with Score-P's byte counts, replayed under the models below, each rank's end
 * compared with a time derived by hand.
 *
 * Hockney with α = 2000 ns, β = 1 ns/B: T(m) = 2000 + m ns, single port per direction, an eager
 * blocking send holds its port (and the CPU) for T(m). LogP-lite with L = 1000 ns, o_s = 100 ns,
 * o_r = 200 ns, g = 300 ns, G = 0.
 */
#ifndef RETIME_COLL_HARNESS_H
#define RETIME_COLL_HARNESS_H

#include <otf2/otf2.h>

#include "otf2_builder.h"
#include "retime/replay.h"

#define NS 1000LL                   /* ps per ns */
#define T(m) ((2000LL + (m)) * NS)  /* Hockney T(m) in ps */
#define MAXP 64
#define NO_ROOT OTF2_UNDEFINED_UINT32

extern const struct rt_model_params hockney, logp;
extern char tmp_root[256]; /* the tests' traces go below it */
/* The network every replay runs on unless its setup names one: NULL (the model's crossbar, where
 * a collective is timed in one go) or "crossbar" (crossbar:P, where its messages run one by one
 * on the routed network, engine/coll_exec.c). */
extern const char *g_topology;
extern int g_injection; /* enum rt_injection of the replays on a network (g_topology or su->topology) */

/* ------------------------------------------------------------------ helpers */

struct setup {
    const char *model;               /* "hockney" (default) or "logp" */
    const char *algos;               /* rt_coll_algo_parse spec or NULL */
    double scale;                    /* compute scale (0 unless lateness matters) */
    rt_bytes eager;                  /* eager limit, 0: 64 KiB */
    const char *topology;            /* a network (retime/network.h), "crossbar": crossbar:P; NULL: none */
    const char *rules;               /* --coll-algos: retime (NULL), mpich, openmpi or a rules file */
    const struct rt_model_params *params; /* other parameters than hockney's or logp's above */
};

/* Score-P's byte counts of one rank (instrument/src/wrap_coll.c) for per-rank block b. */
void counts(int op, uint32_t P, uint32_t me, uint32_t root, uint64_t b, uint64_t *s, uint64_t *r);
tb_builder *new_trace(char *dir, size_t n, uint32_t ranks);
/* Rank r computes for late ns (if late), then calls the collective with its own counts. */
void add_call(tb_builder *b, uint32_t r, uint64_t late, const char *call, int op, uint32_t root, uint64_t s,
              uint64_t rv);
/* Replays the trace in @p dir under @p su; each of the @p n ranks' predicted end in end[]. */
int replay(const char *dir, const struct setup *su, rt_time_ps *end, uint32_t n, rt_error *err);
/* One collective on MPI_COMM_WORLD with per-rank block b (late: per-rank lateness or NULL);
 * replays it and compares every rank's end with want[] (ps). */
void check_coll(const char *what, const struct setup *su, uint32_t P, int op, const char *call, uint32_t root,
                uint64_t block, const uint64_t *late, const rt_time_ps *want);
void fill(rt_time_ps *want, uint32_t P, rt_time_ps v);
/* The harness's failed checks (test_util.h counts per file): a test adds them before it ends. */
int harness_failures(void);

#endif
