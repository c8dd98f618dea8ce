/* SPDX-License-Identifier: MIT */
/* PMPI wrappers of environment calls (Init, Finalize, Abort) and communicator management. */
#include "trace.h"

#define RT_CALLER() __builtin_return_address(0)

RT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = rt__event_clock_start();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        rt__init(t, RT_R_Init, RT_CALLER());
    return rc;
}

RT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = rt__event_clock_start();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    /* The tracer keeps one event stream per rank, so it assumes MPI is called by one thread at a
     * time (SINGLE, FUNNELED or SERIALIZED); it does not lock. */
    if (rc == MPI_SUCCESS)
        rt__init(t, RT_R_Init_thread, RT_CALLER());
    return rc;
}

RT_EXPORT int MPI_Finalize(void)
{
    if (rt__g.opened && !rt__g.finalized) {
        uint64_t t = rt__now();
        rt__enter(RT_R_Finalize, t, RT_CALLER());
        rt__finalize(t);
    }
    return PMPI_Finalize();
}

RT_EXPORT int MPI_Abort(MPI_Comm comm, int code)
{
    rt__enter(RT_R_Abort, rt__now(), RT_CALLER());
    /* The other ranks will be killed; this rank saves what it has before MPI takes it down. */
    rt__emergency("MPI_Abort called", 0);
    return PMPI_Abort(comm, code);
}

/* --- communicators ------------------------------------------------------------------------ */

/* Comm registration runs whenever the archive is open (not only while this rank records, nor
 * only until a signal saved its trace), since it contains a broadcast on the new comm that all
 * its members must join. */
static int rt__comm_tracked(void)
{
    return rt__g.opened && !rt__g.finalized;
}

RT_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    if (!rt__comm_tracked())
        return PMPI_Comm_dup(comm, newcomm);
    rt__enter(RT_R_Comm_dup, rt__now(), RT_CALLER());
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS)
        rt__comm_created(comm, *newcomm, "MPI_Comm_dup");
    rt__leave(RT_R_Comm_dup, rt__now());
    return rc;
}

RT_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    if (!rt__comm_tracked())
        return PMPI_Comm_split(comm, color, key, newcomm);
    rt__enter(RT_R_Comm_split, rt__now(), RT_CALLER());
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS)
        rt__comm_created(comm, *newcomm, "MPI_Comm_split");
    rt__leave(RT_R_Comm_split, rt__now());
    return rc;
}

RT_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                  MPI_Comm *newcomm)
{
    if (!rt__comm_tracked())
        return PMPI_Comm_split_type(comm, type, key, info, newcomm);
    rt__enter(RT_R_Comm_split_type, rt__now(), RT_CALLER());
    int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
    if (rc == MPI_SUCCESS)
        rt__comm_created(comm, *newcomm, "MPI_Comm_split_type");
    rt__leave(RT_R_Comm_split_type, rt__now());
    return rc;
}

RT_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    if (!rt__comm_tracked())
        return PMPI_Comm_create(comm, group, newcomm);
    rt__enter(RT_R_Comm_create, rt__now(), RT_CALLER());
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (rc == MPI_SUCCESS)
        rt__comm_created(comm, *newcomm, "MPI_Comm_create");
    rt__leave(RT_R_Comm_create, rt__now());
    return rc;
}

RT_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                              int reorder, MPI_Comm *newcomm)
{
    if (!rt__comm_tracked())
        return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
    rt__enter(RT_R_Cart_create, rt__now(), RT_CALLER());
    int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
    if (rc == MPI_SUCCESS)
        rt__comm_created(comm, *newcomm, "MPI_Cart_create");
    rt__leave(RT_R_Cart_create, rt__now());
    return rc;
}

RT_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    if (!rt__comm_tracked())
        return PMPI_Comm_free(comm);
    rt__enter(RT_R_Comm_free, rt__now(), RT_CALLER());
    /* Forget the handle first: MPI may hand the same handle value to a later communicator. */
    rt__comm_remove(*comm);
    int rc = PMPI_Comm_free(comm);
    rt__leave(RT_R_Comm_free, rt__now());
    return rc;
}
