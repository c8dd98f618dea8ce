/* SPDX-License-Identifier: MIT */
/* A minimal OTF2 writer for tests and benchmarks: same conventions as Score-P and our tracer. */
#define _POSIX_C_SOURCE 200809L
#include "otf2_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

struct tb_builder {
    OTF2_Archive *ar;
    OTF2_EvtWriter **w;
    uint32_t ranks;
    char **regions;
    uint32_t nregions;
    uint64_t first, last;
    int failed;
    struct tb_comm_def { /* communicators besides MPI_COMM_WORLD */
        char *name;
        uint32_t n;
        uint64_t *members;
    } *comms;
    uint32_t ncomms;
    struct tb_offset { /* ClockOffset records, written into their rank's local definitions */
        uint32_t rank;
        uint64_t time;
        int64_t offset;
        double sd;
    } offs[8];
    uint32_t noffs;
    OTF2_AttributeList *attrs; /* tb_cpu's value for the rank's next Enter or Leave */
    uint32_t attrs_rank;
    int cpu_used;              /* retime::cpu_time (attribute 0) is defined */
    int in_place_used;         /* retime::in_place (attribute 1) is defined */
    uint32_t in_place_rank;    /* tb_in_place: the rank whose next collective was in place (+1; 0: none) */
};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud; (void)ft; (void)loc; (void)cd; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud; (void)ft; (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cbs = {pre_flush, post_flush};

tb_builder *tb_create(const char *dir, uint32_t ranks)
{
    return tb_create_chunk(dir, ranks, 1024 * 1024);
}

tb_builder *tb_create_chunk(const char *dir, uint32_t ranks, uint64_t evt_chunk)
{
    tb_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->ranks = ranks;
    b->first = UINT64_MAX;
    b->w = calloc(ranks, sizeof *b->w);
    /* 1 MiB definition chunks as the tracer's: each location's local definitions cost a zeroed chunk to read */
    b->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, evt_chunk, 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!b->w || !b->ar) {
        free(b->w);
        free(b);
        return NULL;
    }
    OTF2_Archive_SetFlushCallbacks(b->ar, &flush_cbs, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(b->ar);
    OTF2_Archive_OpenEvtFiles(b->ar);
    for (uint32_t r = 0; r < ranks; r++)
        b->w[r] = OTF2_Archive_GetEvtWriter(b->ar, r);
    return b;
}

static uint32_t region(tb_builder *b, const char *name)
{
    for (uint32_t i = 0; i < b->nregions; i++)
        if (!strcmp(b->regions[i], name))
            return i;
    char **n = realloc(b->regions, (b->nregions + 1) * sizeof *n);
    if (!n) {
        b->failed = 1;
        return 0;
    }
    b->regions = n;
    n[b->nregions] = strdup(name);
    return b->nregions++;
}

static void at(tb_builder *b, uint64_t t)
{
    b->first = t < b->first ? t : b->first;
    b->last = t > b->last ? t : b->last;
}

/* The attributes tb_cpu set for rank @p r's next Enter or Leave, or NULL. */
static OTF2_AttributeList *cpu_attrs(tb_builder *b, uint32_t r)
{
    return b->attrs && b->attrs_rank == r && OTF2_AttributeList_GetNumberOfElements(b->attrs) ? b->attrs : NULL;
}

void tb_cpu(tb_builder *b, uint32_t rank, uint64_t cpu_ns)
{
    if (!b->attrs && !(b->attrs = OTF2_AttributeList_New())) {
        b->failed = 1;
        return;
    }
    OTF2_AttributeList_RemoveAllAttributes(b->attrs);
    b->attrs_rank = rank;
    b->cpu_used = 1;
    if (OTF2_AttributeList_AddUint64(b->attrs, 0, cpu_ns) != OTF2_SUCCESS)
        b->failed = 1;
}

void tb_buffer_flush(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1)
{
    at(b, t0);
    at(b, t1);
    if (OTF2_EvtWriter_BufferFlush(b->w[r], NULL, t0, t1) != OTF2_SUCCESS)
        b->failed = 1;
}

void tb_enter(tb_builder *b, uint32_t r, uint64_t t, const char *name)
{
    at(b, t);
    OTF2_EvtWriter_Enter(b->w[r], cpu_attrs(b, r), t, region(b, name));
}

void tb_leave(tb_builder *b, uint32_t r, uint64_t t, const char *name)
{
    at(b, t);
    OTF2_EvtWriter_Leave(b->w[r], cpu_attrs(b, r), t, region(b, name));
}

void tb_send(tb_builder *b, uint32_t r, uint64_t t, uint32_t to, uint32_t tag, uint64_t bytes)
{
    at(b, t);
    OTF2_EvtWriter_MpiSend(b->w[r], NULL, t, to, 0, tag, bytes);
}

void tb_recv(tb_builder *b, uint32_t r, uint64_t t, uint32_t from, uint32_t tag, uint64_t bytes)
{
    at(b, t);
    OTF2_EvtWriter_MpiRecv(b->w[r], NULL, t, from, 0, tag, bytes);
}

void tb_isend(tb_builder *b, uint32_t r, uint64_t t, uint32_t to, uint32_t tag, uint64_t bytes, uint64_t req)
{
    at(b, t);
    OTF2_EvtWriter_MpiIsend(b->w[r], NULL, t, to, 0, tag, bytes, req);
}

void tb_isend_complete(tb_builder *b, uint32_t r, uint64_t t, uint64_t req)
{
    at(b, t);
    OTF2_EvtWriter_MpiIsendComplete(b->w[r], NULL, t, req);
}

void tb_irecv_request(tb_builder *b, uint32_t r, uint64_t t, uint64_t req)
{
    at(b, t);
    OTF2_EvtWriter_MpiIrecvRequest(b->w[r], NULL, t, req);
}

void tb_irecv(tb_builder *b, uint32_t r, uint64_t t, uint32_t from, uint32_t tag, uint64_t bytes, uint64_t req)
{
    at(b, t);
    OTF2_EvtWriter_MpiIrecv(b->w[r], NULL, t, from, 0, tag, bytes, req);
}

void tb_collective(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1, const char *name, int op, uint32_t root,
                   uint64_t sent, uint64_t received)
{
    tb_collective_on(b, r, t0, t1, name, op, 0, root, sent, received);
}

uint32_t tb_comm(tb_builder *b, const char *name, uint32_t n, const uint32_t *world_ranks)
{
    struct tb_comm_def *c = realloc(b->comms, (b->ncomms + 1) * sizeof *c);
    uint64_t *m = malloc((n ? n : 1) * sizeof *m);
    char *nm = strdup(name);
    if (c)
        b->comms = c;
    if (!c || !m || !nm) {
        free(m);
        free(nm);
        b->failed = 1;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        m[i] = world_ranks[i];
    b->comms[b->ncomms] = (struct tb_comm_def){nm, n, m};
    return ++b->ncomms;
}

void tb_clock_offset(tb_builder *b, uint32_t rank, uint64_t time, int64_t offset, double sd)
{
    if (b->noffs == sizeof b->offs / sizeof b->offs[0]) {
        b->failed = 1;
        return;
    }
    b->offs[b->noffs++] = (struct tb_offset){rank, time, offset, sd};
}

void tb_in_place(tb_builder *b, uint32_t rank)
{
    b->in_place_rank = rank + 1;
    b->in_place_used = 1;
}

void tb_collective_on(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1, const char *name, int op, uint32_t comm,
                      uint32_t root, uint64_t sent, uint64_t received)
{
    tb_enter(b, r, t0, name);
    OTF2_EvtWriter_MpiCollectiveBegin(b->w[r], NULL, t0);
    OTF2_AttributeList *attrs = NULL;
    if (b->in_place_rank == r + 1) { /* retime::in_place = 1 on the end, as retime-trace writes it */
        if (!b->attrs && !(b->attrs = OTF2_AttributeList_New()))
            b->failed = 1;
        else if (OTF2_AttributeList_AddUint8(b->attrs, 1, 1) == OTF2_SUCCESS)
            attrs = b->attrs;
        b->in_place_rank = 0;
    }
    OTF2_EvtWriter_MpiCollectiveEnd(b->w[r], attrs, t1, (OTF2_CollectiveOp)op, comm, root, sent, received);
    tb_leave(b, r, t1, name);
}

void tb_nbcoll_call(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1, const char *name, uint64_t req)
{
    tb_enter(b, r, t0, name);
    OTF2_EvtWriter_NonBlockingCollectiveRequest(b->w[r], NULL, t0, req);
    tb_leave(b, r, t1, name);
}

void tb_nbcoll_wait(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1, int op, uint32_t comm, uint32_t root,
                    uint64_t sent, uint64_t received, uint64_t req)
{
    tb_enter(b, r, t0, "MPI_Wait");
    OTF2_EvtWriter_NonBlockingCollectiveComplete(b->w[r], NULL, t1, (OTF2_CollectiveOp)op, comm, root, sent, received,
                                                 req);
    tb_leave(b, r, t1, "MPI_Wait");
}

void tb_call_send(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1, const char *name, uint32_t to, uint32_t tag,
                  uint64_t bytes)
{
    tb_enter(b, r, t0, name);
    tb_send(b, r, t0, to, tag, bytes);
    tb_leave(b, r, t1, name);
}

void tb_call_recv(tb_builder *b, uint32_t r, uint64_t t0, uint64_t t1, uint32_t from, uint32_t tag, uint64_t bytes)
{
    tb_enter(b, r, t0, "MPI_Recv");
    tb_recv(b, r, t1, from, tag, bytes);
    tb_leave(b, r, t1, "MPI_Recv");
}

void tb_enter_ref(tb_builder *b, uint32_t r, uint64_t t, uint32_t region_ref)
{
    at(b, t);
    OTF2_EvtWriter_Enter(b->w[r], NULL, t, region_ref);
}

void tb_send_on(tb_builder *b, uint32_t r, uint64_t t, uint32_t comm_ref, uint32_t to, uint32_t tag, uint64_t bytes)
{
    at(b, t);
    OTF2_EvtWriter_MpiSend(b->w[r], NULL, t, to, comm_ref, tag, bytes);
}

int tb_close(tb_builder *b)
{
    int rc = b->failed;
    uint64_t *nev = calloc(b->ranks, sizeof *nev);
    for (uint32_t r = 0; r < b->ranks; r++) {
        OTF2_EvtWriter_GetNumberOfEvents(b->w[r], &nev[r]);
        OTF2_Archive_CloseEvtWriter(b->ar, b->w[r]);
    }
    OTF2_Archive_CloseEvtFiles(b->ar);
    OTF2_Archive_OpenDefFiles(b->ar);
    for (uint32_t r = 0; r < b->ranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(b->ar, r);
        for (uint32_t i = 0; i < b->noffs; i++)
            if (b->offs[i].rank == r)
                OTF2_DefWriter_WriteClockOffset(dw, b->offs[i].time, b->offs[i].offset, b->offs[i].sd);
        OTF2_Archive_CloseDefWriter(b->ar, dw);
    }
    OTF2_Archive_CloseDefFiles(b->ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(b->ar);
    uint64_t first = b->first == UINT64_MAX ? 0 : b->first;
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, first, b->last - first + 1, OTF2_UNDEFINED_TIMESTAMP);
    /* strings: 0 "", 1 "machine", 2 "node", 3 "MPI_COMM_WORLD", 4.. region names, then rank names */
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    OTF2_GlobalDefWriter_WriteString(g, 1, "machine");
    OTF2_GlobalDefWriter_WriteString(g, 2, "node");
    OTF2_GlobalDefWriter_WriteString(g, 3, "MPI_COMM_WORLD");
    uint32_t s = 4;
    for (uint32_t i = 0; i < b->nregions; i++) {
        OTF2_GlobalDefWriter_WriteString(g, s, b->regions[i]);
        int mpi = strncmp(b->regions[i], "MPI_", 4) == 0;
        OTF2_GlobalDefWriter_WriteRegion(g, i, s, s, 0, mpi ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
                                         mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
        s++;
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    if (b->cpu_used) {
        OTF2_GlobalDefWriter_WriteString(g, s, "retime::cpu_time");
        OTF2_GlobalDefWriter_WriteAttribute(g, 0, s, 0, OTF2_TYPE_UINT64);
        s++;
    }
    if (b->in_place_used) {
        OTF2_GlobalDefWriter_WriteString(g, s, "retime::in_place");
        OTF2_GlobalDefWriter_WriteAttribute(g, 1, s, 0, OTF2_TYPE_UINT8);
        s++;
    }
    uint64_t *members = calloc(b->ranks, sizeof *members);
    for (uint32_t r = 0; r < b->ranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %u", r);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, s, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r);
        members[r] = r;
        s++;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    b->ranks, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    b->ranks, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 3, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    for (uint32_t i = 0; i < b->ncomms; i++) { /* group 2+i, comm 1+i */
        OTF2_GlobalDefWriter_WriteString(g, s, b->comms[i].name);
        OTF2_GlobalDefWriter_WriteGroup(g, 2 + i, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, b->comms[i].n, b->comms[i].members);
        OTF2_GlobalDefWriter_WriteComm(g, 1 + i, s, 2 + i, 0, OTF2_COMM_FLAG_NONE);
        s++;
    }
    OTF2_Archive_CloseGlobalDefWriter(b->ar, g);
    if (OTF2_Archive_Close(b->ar) != OTF2_SUCCESS)
        rc = 1;
    for (uint32_t i = 0; i < b->nregions; i++)
        free(b->regions[i]);
    free(b->regions);
    if (b->attrs)
        OTF2_AttributeList_Delete(b->attrs);
    for (uint32_t i = 0; i < b->ncomms; i++) {
        free(b->comms[i].name);
        free(b->comms[i].members);
    }
    free(b->comms);
    free(members);
    free(nev);
    free(b->w);
    free(b);
    return rc;
}
