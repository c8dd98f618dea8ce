/* SPDX-License-Identifier: MIT */
/*
 * Open MPI 4.1's choices: the fixed decision rules of coll/tuned
 * (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c of Open MPI 4.1.4, the version Debian 12
 * ships and the stored traces come from), the component that runs every blocking collective of
 * an intracommunicator by default; scan, exscan, gatherv and scatterv come from coll/basic
 * (linear). The tables are transcribed from the source's if/else chains; docs/collectives.md
 * has them with Open MPI's algorithm numbers.
 *
 * What the rules see: S, the size each rule of the source measures (the vector for bcast,
 * reduce and allreduce, one rank's block for gather, scatter, allgather and alltoall, the
 * average block for allgatherv), and P. The trace does not say whether an operation is
 * commutative: the commutative tables are used (MPI_SUM, MPI_MAX, ...). Where an algorithm
 * falls back on a count of elements (ring and Rabenseifner below P or pof2 elements,
 * scatter-allgather bcast below P), elements of 8 bytes are assumed.
 *
 * The fixed rules pass segment size 0 and fan-out 0 to every algorithm: one segment, chains of
 * fan-out 1, k-nomial radix 4 (coll_tuned_bcast_algorithm_knomial_radix), so no plan here is
 * segmented. A binomial bcast is Open MPI's tree (fanout 1 in the plan: algo_bcast.c).
 * reduce_scatter (an allreduce's vector variant): its own table, with butterfly run as recursive
 * halving. Not modelled: MPI_IN_PLACE alltoall variants, non-commutative tables.
 */
#include "coll_rules.h"

#define ANY UINT64_MAX
#define LINEAR RT_ALGO_LINEAR
#define CHAIN RT_ALGO_CHAIN
#define PIPELINE RT_ALGO_PIPELINE
#define SPLIT_BINARY RT_ALGO_SPLIT_BINARY
#define BINARY RT_ALGO_BINARY
#define BINOMIAL RT_ALGO_BINOMIAL
#define KNOMIAL RT_ALGO_KNOMIAL
#define SCATTER_RECDBL RT_ALGO_SCATTER_RECDBL
#define SCATTER_RING RT_ALGO_SCATTER_RING
#define REDUCE_BCAST RT_ALGO_REDUCE_BCAST
#define RECDBL RT_ALGO_RECDBL
#define RING RT_ALGO_RING
#define SEGMENTED_RING RT_ALGO_SEGMENTED_RING
#define RABENSEIFNER RT_ALGO_RABENSEIFNER
#define IN_ORDER_BINARY RT_ALGO_IN_ORDER_BINARY
#define BRUCK RT_ALGO_BRUCK
#define NEIGHBOR RT_ALGO_NEIGHBOR
#define PAIRWISE RT_ALGO_PAIRWISE
#define DOUBLE_RING RT_ALGO_DOUBLE_RING
#define TREE RT_ALGO_TREE
#define LINEAR_SYNC RT_ALGO_LINEAR_SYNC
#define LINEAR_NB RT_ALGO_LINEAR_NB

/* A row: from communicator size pmin on (until the next band's pmin), sizes S < below. The
 * rows of a band are in increasing `below`; the last of each band has below = ANY. */
struct row {
    uint32_t pmin;
    uint64_t below;
    uint8_t algo;
};

/* allreduce (commutative op)  -- size measure: total_dsize */
static const struct row allreduce_rows[] = {
    {2, 8, RING}, {2, 4096, RECDBL}, {2, 8192, RING}, {2, 16384, RECDBL}, {2, 65536, RING},
    {2, 262144, SEGMENTED_RING}, {2, ANY, RABENSEIFNER}, {4, 16, RING}, {4, 8192, RECDBL},
    {4, ANY, RABENSEIFNER}, {8, 8192, RECDBL}, {8, ANY, RABENSEIFNER}, {16, 64, SEGMENTED_RING},
    {16, 4096, RECDBL}, {16, ANY, RABENSEIFNER}, {32, 128, SEGMENTED_RING}, {32, ANY, RABENSEIFNER},
    {64, 262144, RECDBL}, {64, ANY, RABENSEIFNER}, {128, 131072, REDUCE_BCAST}, {128, 262144, RECDBL},
    {128, ANY, RABENSEIFNER}, {256, 4096, REDUCE_BCAST}, {256, ANY, RABENSEIFNER}, {512, 2048, REDUCE_BCAST},
    {512, 16384, RECDBL}, {512, ANY, RABENSEIFNER}, {2048, 2048, REDUCE_BCAST}, {2048, 4096, SEGMENTED_RING},
    {2048, 16384, RECDBL}, {2048, ANY, RABENSEIFNER}, {4096, 2048, REDUCE_BCAST}, {4096, 16384, SEGMENTED_RING},
    {4096, 32768, RECDBL}, {4096, ANY, RABENSEIFNER},
    {0, 0, 0}};

/* alltoall  -- size measure: total_dsize */
static const struct row alltoall_rows[] = {
    {2, 2, PAIRWISE}, {2, 4, PAIRWISE}, {2, 16, PAIRWISE}, {2, 64, PAIRWISE}, {2, 256, PAIRWISE},
    {2, 4096, PAIRWISE}, {2, 32768, PAIRWISE}, {2, 262144, LINEAR}, {2, 1048576, PAIRWISE}, {2, ANY, PAIRWISE},
    {3, 8192, LINEAR}, {3, 16384, LINEAR}, {3, 65536, LINEAR}, {3, 524288, LINEAR}, {3, 1048576, PAIRWISE},
    {3, ANY, LINEAR}, {8, 262144, LINEAR}, {8, ANY, LINEAR}, {16, 4, LINEAR}, {16, 512, BRUCK},
    {16, 8192, LINEAR}, {16, 32768, LINEAR}, {16, 262144, LINEAR}, {16, 524288, LINEAR}, {16, ANY, LINEAR},
    {32, 512, BRUCK}, {32, 524288, LINEAR}, {32, ANY, LINEAR}, {64, 1024, BRUCK}, {64, 2048, LINEAR},
    {64, 4096, LINEAR}, {64, 262144, LINEAR}, {64, ANY, PAIRWISE}, {128, 1024, BRUCK}, {128, 2048, LINEAR},
    {128, 262144, LINEAR}, {128, ANY, PAIRWISE}, {256, 1024, BRUCK}, {256, 8192, LINEAR}, {256, 32768, LINEAR},
    {256, ANY, PAIRWISE}, {512, 512, BRUCK}, {512, 8192, LINEAR}, {512, 16384, LINEAR}, {512, 131072, LINEAR},
    {512, 262144, LINEAR}, {512, ANY, PAIRWISE}, {1024, 512, BRUCK}, {1024, 1024, LINEAR}, {1024, 2048, LINEAR},
    {1024, 16384, LINEAR}, {1024, 262144, LINEAR}, {1024, ANY, LINEAR}, {2048, 1024, BRUCK},
    {2048, 4096, LINEAR}, {2048, 8192, LINEAR}, {2048, 131072, LINEAR}, {2048, ANY, LINEAR},
    {4096, 2048, BRUCK}, {4096, 8192, LINEAR}, {4096, 16384, LINEAR}, {4096, 32768, LINEAR},
    {4096, 65536, LINEAR}, {4096, ANY, LINEAR},
    {0, 0, 0}};

/* alltoallv  -- size measure: None */
static const struct row alltoallv_rows[] = {
    {2, ANY, PAIRWISE}, {4, ANY, LINEAR}, {64, ANY, PAIRWISE}, {128, ANY, LINEAR}, {256, ANY, PAIRWISE},
    {1024, ANY, LINEAR},
    {0, 0, 0}};

/* barrier  -- size measure: None */
static const struct row barrier_rows[] = {
    {2, ANY, RECDBL}, {4, ANY, LINEAR}, {8, ANY, RECDBL}, {64, ANY, BRUCK}, {256, ANY, TREE}, {512, ANY, BRUCK},
    {1024, ANY, TREE}, {4096, ANY, BRUCK},
    {0, 0, 0}};

/* bcast  -- size measure: total_dsize */
static const struct row bcast_rows[] = {
    {2, 32, PIPELINE}, {2, 256, BINARY}, {2, 512, PIPELINE}, {2, 1024, KNOMIAL}, {2, 32768, LINEAR},
    {2, 131072, BINARY}, {2, 262144, CHAIN}, {2, 524288, LINEAR}, {2, 1048576, BINOMIAL}, {2, ANY, BINARY},
    {4, 64, BINARY}, {4, 128, BINOMIAL}, {4, 2048, BINARY}, {4, 8192, BINOMIAL}, {4, 1048576, LINEAR},
    {4, ANY, CHAIN}, {8, 8, KNOMIAL}, {8, 64, BINARY}, {8, 4096, KNOMIAL}, {8, 16384, BINARY},
    {8, 32768, BINOMIAL}, {8, ANY, LINEAR}, {16, 4096, KNOMIAL}, {16, 1048576, BINOMIAL},
    {16, ANY, SCATTER_RECDBL}, {32, 2048, BINOMIAL}, {32, ANY, KNOMIAL}, {64, ANY, KNOMIAL}, {128, 2, BINOMIAL},
    {128, 16384, BINARY}, {128, 32768, LINEAR}, {128, 65536, BINARY}, {128, ANY, KNOMIAL},
    {256, 16384, KNOMIAL}, {256, 32768, SPLIT_BINARY}, {256, ANY, KNOMIAL}, {1024, 524288, KNOMIAL},
    {1024, ANY, SCATTER_RECDBL}, {2048, 262144, KNOMIAL}, {2048, ANY, SCATTER_RECDBL}, {4096, 8192, KNOMIAL},
    {4096, 16384, BINARY}, {4096, 262144, KNOMIAL}, {4096, ANY, SCATTER_RECDBL},
    {0, 0, 0}};

/* reduce (commutative op)  -- size measure: total_dsize */
static const struct row reduce_rows[] = {
    {2, 8, RABENSEIFNER}, {2, 16, BINARY}, {2, 32, PIPELINE}, {2, 262144, LINEAR}, {2, 524288, PIPELINE},
    {2, 1048576, CHAIN}, {2, ANY, PIPELINE}, {4, 4096, BINARY}, {4, 65536, CHAIN}, {4, 262144, BINOMIAL},
    {4, 524288, LINEAR}, {4, 1048576, BINOMIAL}, {4, ANY, LINEAR}, {8, 8192, BINARY}, {8, ANY, BINOMIAL},
    {16, 4096, BINARY}, {16, ANY, BINOMIAL}, {32, ANY, BINOMIAL}, {256, 8192, BINOMIAL},
    {256, 16384, IN_ORDER_BINARY}, {256, ANY, BINOMIAL}, {512, ANY, BINOMIAL}, {2048, 512, BINOMIAL},
    {2048, 1024, IN_ORDER_BINARY}, {2048, 8192, BINOMIAL}, {2048, 16384, IN_ORDER_BINARY},
    {2048, ANY, BINOMIAL}, {4096, 16, BINOMIAL}, {4096, 32, IN_ORDER_BINARY}, {4096, 1024, BINOMIAL},
    {4096, 2048, IN_ORDER_BINARY}, {4096, 8192, BINOMIAL}, {4096, 16384, IN_ORDER_BINARY},
    {4096, ANY, BINOMIAL},
    {0, 0, 0}};

/* allgather  -- size measure: total_dsize */
static const struct row allgather_rows[] = {
    {2, ANY, RECDBL}, {3, ANY, RECDBL}, {32, 1024, RECDBL}, {32, 65536, NEIGHBOR}, {32, ANY, RING},
    {64, 512, RECDBL}, {64, 65536, NEIGHBOR}, {64, ANY, RING}, {128, 512, RECDBL}, {128, 131072, NEIGHBOR},
    {128, 524288, RING}, {128, 1048576, NEIGHBOR}, {128, ANY, RING}, {256, 32, RECDBL}, {256, 128, BRUCK},
    {256, 1024, RECDBL}, {256, 131072, NEIGHBOR}, {256, 524288, RING}, {256, 1048576, NEIGHBOR},
    {256, ANY, RING}, {512, 64, RECDBL}, {512, 256, BRUCK}, {512, 2048, RECDBL}, {512, ANY, NEIGHBOR},
    {1024, 4, RECDBL}, {1024, 8, BRUCK}, {1024, 16, RECDBL}, {1024, 32, BRUCK}, {1024, 256, RECDBL},
    {1024, 512, BRUCK}, {1024, 4096, RECDBL}, {1024, ANY, NEIGHBOR}, {2048, 32, BRUCK}, {2048, 128, RECDBL},
    {2048, 512, BRUCK}, {2048, 4096, RECDBL}, {2048, ANY, NEIGHBOR}, {4096, 2, RECDBL}, {4096, 8, BRUCK},
    {4096, 16, RECDBL}, {4096, 512, BRUCK}, {4096, 4096, RECDBL}, {4096, ANY, NEIGHBOR},
    {0, 0, 0}};

/* allgatherv  -- size measure: per_rank_dsize */
static const struct row allgatherv_rows[] = {
    {2, 2048, RING}, {2, 4096, RECDBL}, {2, 8192, RING}, {2, ANY, RECDBL}, {3, 256, LINEAR},
    {3, 4096, NEIGHBOR}, {3, 8192, RING}, {3, 16384, NEIGHBOR}, {3, 262144, BRUCK}, {3, ANY, NEIGHBOR},
    {8, 1024, LINEAR}, {8, ANY, BRUCK}, {16, 128, LINEAR}, {16, 262144, BRUCK}, {16, ANY, RING},
    {32, 256, LINEAR}, {32, 8192, BRUCK}, {32, ANY, RING}, {64, 256, LINEAR}, {64, 4096, BRUCK},
    {64, ANY, RING}, {128, 1024, BRUCK}, {128, 65536, NEIGHBOR}, {128, ANY, RING}, {256, 1024, BRUCK},
    {256, ANY, RING}, {512, 512, BRUCK}, {512, 1024, LINEAR}, {512, 4096, BRUCK}, {512, 1048576, NEIGHBOR},
    {512, ANY, RING}, {1024, 4096, BRUCK}, {1024, ANY, NEIGHBOR},
    {0, 0, 0}};

/* gather  -- size measure: total_dsize */
static const struct row gather_rows[] = {
    {2, 2, LINEAR_SYNC}, {2, 4, LINEAR}, {2, 32768, BINOMIAL}, {2, 65536, LINEAR}, {2, 131072, BINOMIAL},
    {2, ANY, LINEAR_SYNC}, {4, 1024, BINOMIAL}, {4, 8192, LINEAR}, {4, 32768, BINOMIAL}, {4, 262144, LINEAR},
    {4, ANY, LINEAR_SYNC}, {8, ANY, BINOMIAL}, {256, 2048, BINOMIAL}, {256, 8192, LINEAR}, {256, ANY, BINOMIAL},
    {512, ANY, BINOMIAL},
    {0, 0, 0}};

/* scatter  -- size measure: total_dsize */
static const struct row scatter_rows[] = {
    {2, 2, LINEAR_NB}, {2, 131072, LINEAR}, {2, 262144, LINEAR_NB}, {2, ANY, LINEAR}, {4, 2048, BINOMIAL},
    {4, 4096, LINEAR}, {4, 8192, BINOMIAL}, {4, 32768, LINEAR}, {4, 1048576, LINEAR_NB}, {4, ANY, LINEAR},
    {8, 16384, BINOMIAL}, {8, 1048576, LINEAR_NB}, {8, ANY, LINEAR}, {16, 16384, BINOMIAL}, {16, 32768, LINEAR},
    {16, ANY, LINEAR_NB}, {32, 512, BINOMIAL}, {32, 8192, LINEAR_NB}, {32, 16384, BINOMIAL},
    {32, ANY, LINEAR_NB}, {64, 512, BINOMIAL}, {64, ANY, LINEAR_NB},
    {0, 0, 0}};

/* reduce_scatter (commutative op): S = the whole vector; butterfly runs as recursive halving
 * (rabenseifner: the same volumes in the same number of rounds) */
static const struct row reduce_scatter_rows[] = {
    {2, 65536, RING}, {2, 131072, RABENSEIFNER}, {2, ANY, RING}, {4, 8, REDUCE_BCAST},
    {4, 262144, RABENSEIFNER}, {4, ANY, RING}, {8, 262144, RABENSEIFNER}, {8, ANY, RING},
    {32, 64, REDUCE_BCAST}, {32, 2048, RABENSEIFNER}, {32, 524288, RABENSEIFNER}, {32, ANY, RING},
    {64, 256, REDUCE_BCAST}, {64, 512, RABENSEIFNER}, {64, 2048, RABENSEIFNER}, {64, 4096, RABENSEIFNER},
    {64, ANY, RABENSEIFNER}, {128, 256, REDUCE_BCAST}, {128, 512, RABENSEIFNER}, {128, ANY, RABENSEIFNER},
    {256, 256, REDUCE_BCAST}, {256, 1024, RABENSEIFNER}, {256, ANY, RABENSEIFNER}, {512, 512, REDUCE_BCAST},
    {512, 2048, RABENSEIFNER}, {512, 8192, RABENSEIFNER}, {512, 16384, RABENSEIFNER}, {512, ANY, RABENSEIFNER},
    {1024, 512, REDUCE_BCAST}, {1024, 4096, RABENSEIFNER}, {1024, 16384, RABENSEIFNER},
    {1024, 32768, RABENSEIFNER}, {1024, ANY, RABENSEIFNER}, {2048, 512, REDUCE_BCAST},
    {2048, 4096, RABENSEIFNER}, {2048, ANY, RABENSEIFNER}, {4096, 1024, REDUCE_BCAST},
    {4096, 8192, RABENSEIFNER}, {4096, ANY, RABENSEIFNER},
    {0, 0, 0}};

/* The algorithm of the row for (P, S): the last band that starts at or below P. */
static int lookup(const struct row *t, uint64_t P, uint64_t S)
{
    const struct row *band = t;
    for (const struct row *r = t; r->pmin; r++)
        if (r->pmin <= P && r->pmin > band->pmin)
            band = r;
    for (const struct row *r = band; r->pmin == band->pmin; r++)
        if (S < r->below)
            return r->algo;
    return band->algo; /* not reached: every band ends with ANY */
}

void rt__rules_openmpi(const struct rt__coll_query *q, struct rt_coll_plan *out)
{
    uint64_t P = q->P, pof2 = 1, count;
    while (pof2 * 2 <= P)
        pof2 *= 2;
    switch (q->op) {
    case RT_COLL_BARRIER:
        out->algo = lookup(barrier_rows, P, 0);
        break;
    case RT_COLL_BCAST:
        out->algo = lookup(bcast_rows, P, q->block);
        count = q->block / 8;
        if ((out->algo == SCATTER_RECDBL || out->algo == SCATTER_RING) && count < P)
            out->algo = LINEAR;
        if (out->algo == KNOMIAL)
            out->fanout = 4;
        if (out->algo == BINOMIAL)
            out->fanout = 1; /* Open MPI's binomial tree */
        break;
    case RT_COLL_REDUCE:
        out->algo = lookup(reduce_rows, P, q->block);
        if (out->algo == RABENSEIFNER && q->block / 8 < pof2)
            out->algo = LINEAR;
        break;
    case RT_COLL_ALLREDUCE: {
        rt_bytes S = q->block;
        if (q->vector) { /* reduce_scatter */
            out->algo = lookup(reduce_scatter_rows, P, S);
            break;
        }
        out->algo = lookup(allreduce_rows, P, S);
        count = S / 8;
        if ((out->algo == RING || out->algo == SEGMENTED_RING) && count < P)
            out->algo = RECDBL;
        if (out->algo == RABENSEIFNER && count < pof2)
            out->algo = LINEAR;
        break;
    }
    case RT_COLL_ALLGATHER:
        out->algo = q->vector ? lookup(allgatherv_rows, P, q->total / P) : lookup(allgather_rows, P, q->block);
        break;
    case RT_COLL_ALLTOALL:
        out->algo = q->vector ? lookup(alltoallv_rows, P, 0) : lookup(alltoall_rows, P, q->block);
        break;
    case RT_COLL_GATHER:
        out->algo = q->vector ? LINEAR : lookup(gather_rows, P, q->block);
        break;
    case RT_COLL_SCATTER:
        out->algo = q->vector ? LINEAR : lookup(scatter_rows, P, q->block);
        break;
    case RT_COLL_SCAN:
        out->algo = LINEAR;
        break;
    default:
        rt__rules_retime(q, out);
        break;
    }
}
