/* SPDX-License-Identifier: MIT */
/* Hooks OTF2's MPI collective callbacks into the tracer, calling PMPI so they are not traced. */
#include "trace.h"

/* The header defines static functions, so it is included in this one file only, and with
 * OTF2_MPI_USE_PMPI so that OTF2's own collectives bypass our MPI_* wrappers. */
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

OTF2_ErrorCode rt__otf2_set_mpi_collectives(OTF2_Archive *archive, MPI_Comm comm);

RT_HIDDEN OTF2_ErrorCode rt__otf2_set_mpi_collectives(OTF2_Archive *archive, MPI_Comm comm)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, comm, MPI_COMM_NULL);
}
