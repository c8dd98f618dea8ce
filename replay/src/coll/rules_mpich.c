/* SPDX-License-Identifier: MIT */
/*
 * MPICH's choices: MPICH 4.0.2's selection (the same rules as 3.4.1): the MPIR-level rules of
 * maint/tuning/coll/mpir/generic.json (compiled into src/mpi/coll/src/csel_json_autogen.c,
 * evaluated by src/mpi/coll/src/csel.c) for a flat communicator. The ch4 device's node-aware
 * compositions (a bcast or allreduce through each node's leader, shared-memory release/gather)
 * are not modelled: a replay knows no node of a rank, so every communicator is taken as flat,
 * as MPICH does when each process is on its own node. docs/collectives.md has the table.
 *
 * What the rules see: avg, the vector (bcast, reduce, allreduce, scan) or one rank's block
 * (alltoall); total, the sum of the blocks (allgather, allgatherv); and P. The trace does not
 * say whether an operation is commutative or built in: a built-in commutative one is assumed
 * (MPI_SUM); where MPICH compares the count of elements with pof2, elements of 8 bytes are
 * assumed. As in 3.4.1 and 4.0.2, alltoall's "comm_size < 8", evaluated at call time, holds for
 * P <= 8.
 * reduce_scatter (an allreduce's vector variant, total = its whole vector): recursive halving
 * (rabenseifner's reduce-scatter half) below 524288 B, pairwise above.
 * Not modelled: MPI_IN_PLACE alltoall (pairwise sendrecv_replace), non-commutative reduce_scatter.
 */
#include "coll_rules.h"

void rt__rules_mpich(const struct rt__coll_query *q, struct rt_coll_plan *out)
{
    uint64_t P = q->P, pof2 = 1;
    while (pof2 * 2 <= P)
        pof2 *= 2;
    rt_bytes avg = q->block, count = avg / 8;
    switch (q->op) {
    case RT_COLL_BARRIER:
        out->algo = RT_ALGO_DISSEMINATION;
        break;
    case RT_COLL_BCAST:
        if (P < 8 || avg <= 12288)
            out->algo = RT_ALGO_BINOMIAL;
        else if (rt__pof2(P) && avg <= 524288)
            out->algo = RT_ALGO_SCATTER_RECDBL;
        else
            out->algo = RT_ALGO_SCATTER_RING;
        break;
    case RT_COLL_REDUCE:
        out->algo = avg <= 2048 || count < pof2 ? RT_ALGO_BINOMIAL : RT_ALGO_RABENSEIFNER;
        break;
    case RT_COLL_ALLREDUCE:
        if (q->vector) /* reduce_scatter (commutative): recursive halving below 512 KiB in all */
            out->algo = q->block < 524288 ? RT_ALGO_RABENSEIFNER : RT_ALGO_PAIRWISE;
        else
            out->algo = avg <= 8 || count < pof2 ? RT_ALGO_RECDBL : RT_ALGO_RABENSEIFNER;
        break;
    case RT_COLL_ALLGATHER: /* on the total of all blocks (allgatherv: the same rule) */
        if (rt__pof2(P))
            out->algo = q->total < 524288 ? RT_ALGO_RECDBL : RT_ALGO_RING;
        else
            out->algo = q->total < 81920 ? RT_ALGO_BRUCK : RT_ALGO_RING;
        break;
    case RT_COLL_ALLTOALL:
        if (q->vector)
            out->algo = RT_ALGO_ALL_AT_ONCE; /* alltoallv: "scattered", 32 at a time */
        else if (P > 8 && avg <= 256)
            out->algo = RT_ALGO_BRUCK;
        else if (avg <= 32768)
            out->algo = RT_ALGO_ALL_AT_ONCE;
        else
            out->algo = RT_ALGO_PAIRWISE;
        break;
    case RT_COLL_GATHER:
    case RT_COLL_SCATTER: /* the v-variants are linear */
        out->algo = q->vector ? RT_ALGO_LINEAR : RT_ALGO_BINOMIAL;
        break;
    case RT_COLL_SCAN: /* scan and exscan */
        out->algo = RT_ALGO_RECDBL;
        break;
    default:
        rt__rules_retime(q, out);
        break;
    }
}
