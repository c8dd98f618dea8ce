/* SPDX-License-Identifier: MIT */
/* The MPI library a run used, recorded in the archive (issue #45, item 4): its version string,
 * its eager-limit control variables (MPI_T) and the eager limit of the transport the run's ranks
 * used between them, so that the replay takes the run's own eager/rendezvous switch instead of a
 * default. Rank 0 reads them after MPI_Init (the transports' variables exist only once they are
 * open) and writes them as OTF2 archive properties (RETIME::*) with the anchor file. */
#include "trace.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RT_MAX_CVARS 24

static char rt__library[MPI_MAX_LIBRARY_VERSION_STRING];
static struct { char name[96]; long long value; } rt__cvars[RT_MAX_CVARS];
static int rt__ncvars, rt__one_host;
static int rt__node_ranks, rt__node_cpus; /* the most ranks on one node, the fewest CPUs of a node */

/* An integer control variable's value, or -1. */
static long long rt__cvar_value(int i, MPI_Datatype dt)
{
    MPI_T_cvar_handle h;
    int count = 0;
    long long v = -1;
    if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
        return -1;
    if (count == 1) {
        int iv;
        unsigned uv;
        unsigned long ul;
        unsigned long long ull;
        long long ll;
        if (dt == MPI_INT && MPI_T_cvar_read(h, &iv) == MPI_SUCCESS)
            v = iv;
        else if (dt == MPI_UNSIGNED && MPI_T_cvar_read(h, &uv) == MPI_SUCCESS)
            v = uv;
        else if (dt == MPI_UNSIGNED_LONG && MPI_T_cvar_read(h, &ul) == MPI_SUCCESS)
            v = (long long)ul;
        else if (dt == MPI_UNSIGNED_LONG_LONG && MPI_T_cvar_read(h, &ull) == MPI_SUCCESS)
            v = (long long)ull;
        else if (dt == MPI_LONG_LONG && MPI_T_cvar_read(h, &ll) == MPI_SUCCESS)
            v = ll;
    }
    MPI_T_cvar_handle_free(&h);
    return v;
}

void rt__mpi_info_read(MPI_Comm node)
{
    /* Collective: whether every rank shares rank 0's node (then shared memory carries the run). */
    int nsize = 0;
    PMPI_Comm_size(node, &nsize);
    rt__one_host = nsize == rt__g.size;
    /* Oversubscription: ranks per node against the node's CPUs (online, whatever a job was given) */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int mine[2] = {nsize, -(int)(cpus > 0 && cpus < INT32_MAX ? cpus : 1)}, most[2] = {0, 0};
    PMPI_Allreduce(mine, most, 2, MPI_INT, MPI_MAX, rt__g.comm);
    rt__node_ranks = most[0];
    rt__node_cpus = -most[1];
    if (rt__g.rank != 0)
        return;
    int len = 0, provided, n = 0;
    if (PMPI_Get_library_version(rt__library, &len) != MPI_SUCCESS)
        rt__library[0] = '\0';
    rt__library[sizeof rt__library - 1] = '\0';
    for (char *p = rt__library; *p; p++) /* one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_get_num(&n) == MPI_SUCCESS)
        for (int i = 0; i < n && rt__ncvars < RT_MAX_CVARS; i++) {
            char name[96], desc[8];
            int nl = sizeof name, dl = sizeof desc, verb, bind, scope;
            MPI_Datatype dt;
            MPI_T_enum en;
            if (MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) != MPI_SUCCESS ||
                bind != MPI_T_BIND_NO_OBJECT)
                continue;
            /* Open MPI's btl_<transport>_eager_limit; MPICH's MPIR_CVAR_..._EAGER_MAX_MSG_SIZE,
             * ch3's NEMESIS_SHM_EAGER_MAX_SZ and ch4's shared-memory cell size (which bounds its
             * eager messages); the replay reads each as its library does (replay/src/model/eager.c) */
            if (!strstr(name, "eager_limit") && !strstr(name, "EAGER_MAX_MSG_SIZE") &&
                !strstr(name, "SHM_EAGER_MAX_SZ") && !strstr(name, "POSIX_IQUEUE_CELL_SIZE"))
                continue;
            long long v = rt__cvar_value(i, dt);
            if (v < 0)
                continue;
            snprintf(rt__cvars[rt__ncvars].name, sizeof rt__cvars[0].name, "%s", name);
            rt__cvars[rt__ncvars++].value = v;
        }
    MPI_T_finalize();
}

/* The variable that holds the eager limit between the run's ranks: shared memory's when they all
 * share one node, the network's otherwise (the first of each list that the library has). */
static int rt__eager_choice(void)
{
    static const char *const shm[] = {"btl_vader_eager_limit", "btl_sm_eager_limit",
                                      "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE",
                                      "MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ", NULL};
    static const char *const net[] = {"btl_tcp_eager_limit", "btl_openib_eager_limit", "btl_uct_eager_limit",
                                      "btl_ofi_eager_limit", "MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE",
                                      "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", NULL};
    for (const char *const *c = rt__one_host ? shm : net; *c; c++)
        for (int i = 0; i < rt__ncvars; i++)
            if (!strcmp(rt__cvars[i].name, *c))
                return i;
    return -1;
}

void rt__mpi_info_write(OTF2_Archive *a)
{
    char list[RT_MAX_CVARS * 120] = "", v[64];
    size_t len = 0;
    if (rt__library[0])
        OTF2_Archive_SetProperty(a, "RETIME::MPI_LIBRARY", rt__library, true);
    for (int i = 0; i < rt__ncvars && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s=%lld", i ? "," : "", rt__cvars[i].name,
                                rt__cvars[i].value);
    if (list[0])
        OTF2_Archive_SetProperty(a, "RETIME::MPI_EAGER_CVARS", list, true);
    if (rt__node_ranks > 0 && rt__node_cpus > 0) {
        snprintf(v, sizeof v, "%d", rt__node_ranks);
        OTF2_Archive_SetProperty(a, "RETIME::NODE_RANKS_MAX", v, true);
        snprintf(v, sizeof v, "%d", rt__node_cpus);
        OTF2_Archive_SetProperty(a, "RETIME::NODE_CPUS_MIN", v, true);
    }
    int c = rt__eager_choice();
    if (c >= 0) {
        snprintf(v, sizeof v, "%lld", rt__cvars[c].value);
        OTF2_Archive_SetProperty(a, "RETIME::EAGER_LIMIT", v, true);
        OTF2_Archive_SetProperty(a, "RETIME::EAGER_LIMIT_SOURCE", rt__cvars[c].name, true);
    }
}
