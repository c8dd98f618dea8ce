/* SPDX-License-Identifier: MIT */
/*
 * Which algorithm a collective instance runs: the table of algorithms per operation
 * (collective.c) and the rule sets that choose among them (rules.c: retime's own and rules
 * files; rules_mpich.c; rules_openmpi.c).
 */
#ifndef RETIME_COLL_RULES_H
#define RETIME_COLL_RULES_H

#include "retime/replay.h"

struct rt__cs;
typedef void (*rt__coll_algo_fn_t)(struct rt__cs *s);

/* The function of algorithm @p algo for operation @p op; it must apply (rt__coll_algo_applies). */
rt__coll_algo_fn_t rt__coll_algo_fn(int op, int algo);

/* What a rule set is told about an instance. */
struct rt__coll_query {
    int op, vector;
    uint64_t P;
    rt_bytes block, total; /* the largest block, the sum of the blocks */
};

/* The built-in rule sets: each sets out->algo (never RT_ALGO_AUTO), seg, fanout and parts. */
void rt__rules_retime(const struct rt__coll_query *q, struct rt_coll_plan *out);
void rt__rules_mpich(const struct rt__coll_query *q, struct rt_coll_plan *out);
void rt__rules_openmpi(const struct rt__coll_query *q, struct rt_coll_plan *out);

/* Whether x is a power of two (x >= 1). */
static inline int rt__pof2(uint64_t x)
{
    return x && !(x & (x - 1));
}

#endif
