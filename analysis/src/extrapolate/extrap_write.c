/* SPDX-License-Identifier: MIT */
/*
 * The recognised program written at P' ranks (rt_extrap_write): one OTF2 archive, each rank's
 * events its class's template with peers, sizes and gaps evaluated at P'. Memory: OTF2's buffers
 * (one location at a time); the archive is as large as a trace of the program at P' would be.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extrap_internal.h"
#include "outfile.h"

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cbs = {pre_flush, post_flush};

static uint64_t size_at(const struct xp_fit *f, uint32_t P)
{
    double v = f->floor ? floor(rt__xp_eval(f, P) + 1e-9) : floor(rt__xp_eval(f, P) + 0.5); /* N/P floors */
    return v < 0 ? 0 : v > (double)RT_MAX_BYTES ? RT_MAX_BYTES : (uint64_t)v;
}

/* Class @p k's loop iterations at @p P (0 without a loop), and its rank's events in *@p len. */
static uint64_t iterations(const struct rt_extrap *x, uint32_t k, uint32_t P, uint64_t *len)
{
    const struct xp_loop *l = &x->loop[k];
    if (!l->p) {
        *len = x->n[k];
        return 0;
    }
    double c = floor(rt__xp_eval(&l->count, P) + 0.5);
    uint64_t it = c > 0 && isfinite(c) ? (uint64_t)c : 0;
    *len = x->n[k] - l->p + it * l->p;
    return it;
}

/* The interval that ends at a rank's emitted event @p e (template event @p j). */
static uint32_t interval_at(const struct rt_extrap *x, uint32_t k, uint64_t j, int again)
{
    const struct xp_ev *v = &x->tmpl[k][j];
    return again && j == x->loop[k].s ? v->interval_loop : v->interval;
}

/* Whether template event @p j ends a set-up call that holds no record (MPI_Init, MPI_Cart_create,
 * MPI_Comm_split): the replay keeps such a call's measured length, and in a real run the ranks
 * leave it together. (Not every call without a record: an MPI_Comm_rank or an MPI_Test
 * that completes nothing is a rank's own.) */
static int setup_call(const char *name)
{
    /* (not MPI_Finalize or MPI_Comm_free: libraries need not synchronise in them, and the
     * window ends at MPI_Finalize's start) */
    static const char *const calls[] = {"MPI_Init",         "MPI_Comm_split",        "MPI_Comm_dup",
                                        "MPI_Comm_create",  "MPI_Cart_create",       "MPI_Cart_sub",
                                        "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Intercomm_create", NULL};
    for (int i = 0; calls[i]; i++)
        if (!strncmp(name, calls[i], strlen(calls[i])))
            return 1;
    return 0;
}

static int silent_leave(const struct rt_extrap *x, const struct xp_ev *tm, uint64_t j)
{
    return j > 0 && tm[j].kind == RT_EV_LEAVE && (tm[j].flags & RT_EVF_MPI) && tm[j - 1].kind == RT_EV_ENTER &&
           tm[j - 1].region == tm[j].region && tm[j].region < x->nregions && setup_call(x->region_name[tm[j].region]);
}

/* The times at which every rank leaves its m-th silent call: the latest over the classes, as the
 * ranks of a real run leave a set-up call that synchronises them (MPI_Init, MPI_Cart_create)
 * together, and a class's own fitted lengths would otherwise skew them by what its rank 0 waited.
 * *@p nsil 0 when the classes' silent calls are not the same sequence (then nothing is aligned). */
static int align_silent(const struct rt_extrap *x, uint32_t P, const double *gap, uint64_t **out, uint64_t *nsil)
{
    uint64_t n0 = 0, pos[XC_MAX] = {0}, t[XC_MAX] = {0}, it[XC_MAX] = {0}, len[XC_MAX] = {0};
    *out = NULL, *nsil = 0;
    for (uint32_t k = 0; k < x->ncls; k++)
        it[k] = iterations(x, k, P, &len[k]);
#define SILENT(k, e) silent_leave(x, x->tmpl[k], rt__xp_at(&x->loop[k], it[k], (e), &again))
    int again;
    for (uint64_t e = 0; e < len[0]; e++)
        n0 += SILENT(0, e);
    for (uint32_t k = 1; k < x->ncls; k++) { /* the same calls in the same order in every class */
        uint64_t a = 0, b = 0;
        for (;;) {
            while (a < len[0] && !SILENT(0, a))
                a++;
            while (b < len[k] && !SILENT(k, b))
                b++;
            if (a == len[0] || b == len[k]) {
                if (a != len[0] || b != len[k])
                    return 0;
                break;
            }
            if (x->tmpl[0][rt__xp_at(&x->loop[0], it[0], a, &again)].region !=
                x->tmpl[k][rt__xp_at(&x->loop[k], it[k], b, &again)].region)
                return 0;
            a++, b++;
        }
    }
    uint64_t *al = malloc((n0 ? n0 : 1) * sizeof *al);
    if (!al)
        return -1;
    for (uint64_t m = 0; m < n0; m++) {
        uint64_t latest = 0;
        for (uint32_t k = 0; k < x->ncls; k++) {
            const struct xp_ev *tm = x->tmpl[k];
            for (;;) {
                uint64_t e = pos[k]++, j = rt__xp_at(&x->loop[k], it[k], e, &again);
                if (e)
                    t[k] += (uint64_t)llround(gap[interval_at(x, k, j, again)]);
                if (silent_leave(x, tm, j))
                    break;
            }
            latest = t[k] > latest ? t[k] : latest;
        }
        for (uint32_t k = 0; k < x->ncls; k++)
            t[k] = latest;
        al[m] = latest;
    }
    *out = al, *nsil = n0;
    return 0;
#undef SILENT
}

/* Rank @p r's events at @p P; its last time in *@p end. */
/* The split communicators: per largest-trace communicator its slot (UINT32_MAX: not a split) and
 * member rule; their OTF2 ids at P are ncomms + slot·P + the group's first rank. */
struct splits {
    uint32_t *slot, nslots;
    struct xp_group *rule;
    uint32_t *buf; /* P: one group's members */
};

static int splits_make(const struct rt_extrap *x, uint32_t P, struct splits *sp, rt_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->slot = malloc((x->ncomms ? x->ncomms : 1) * sizeof *sp->slot);
    sp->rule = calloc(x->ncomms ? x->ncomms : 1, sizeof *sp->rule);
    sp->buf = malloc((size_t)P * sizeof *sp->buf);
    if (!sp->slot || !sp->rule || !sp->buf)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < x->ncomms; c++)
        sp->slot[c] = UINT32_MAX;
    for (uint32_t k = 0; k < x->ncls; k++)
        for (uint64_t j = 0; j < x->n[k]; j++) {
            const struct xp_ev *v = &x->tmpl[k][j];
            if (v->group.kind == XG_WORLD || v->comm >= x->ncomms)
                continue;
            if (sp->slot[v->comm] == UINT32_MAX) {
                /* one slot per rule: each class's template names its own rank's instance (row 0's,
                 * row 1's), and the same rule is the same communicators */
                uint32_t same = UINT32_MAX;
                for (uint32_t c = 0; c < x->ncomms && same == UINT32_MAX; c++)
                    if (sp->slot[c] != UINT32_MAX && sp->rule[c].kind == v->group.kind &&
                        sp->rule[c].ndims == v->group.ndims && sp->rule[c].dim == v->group.dim &&
                        sp->rule[c].xfast == v->group.xfast && sp->rule[c].m == v->group.m)
                        same = sp->slot[c];
                sp->slot[v->comm] = same != UINT32_MAX ? same : sp->nslots++;
                sp->rule[v->comm] = v->group;
                if (rt__xp_members(&v->group, 0, P, NULL, 0) == UINT32_MAX)
                    return rt_error_set(err, RT_EINVAL, "--ranks %u: communicator '%s' is every %u-th rank or a block "
                                                        "of %u, which %u ranks do not divide",
                                        P, x->comm_name[v->comm] ? x->comm_name[v->comm] : "?", v->group.m,
                                        v->group.m, P);
            }
        }
    if ((uint64_t)x->ncomms + (uint64_t)sp->nslots * P > UINT32_MAX - 1)
        return rt_error_set(err, RT_EINVAL, "--ranks %u: too many communicators to number", P);
    return RT_OK;
}

static void splits_free(struct splits *sp)
{
    free(sp->slot), free(sp->rule), free(sp->buf);
}

/* Rank @p r's communicator for template event @p v at @p P (its OTF2 id), and @p *peer (a world
 * rank) made a rank of it. */
static uint32_t comm_of(const struct rt_extrap *x, const struct splits *sp, const struct xp_ev *v, uint32_t r,
                        uint32_t P, uint32_t *peer)
{
    if (v->group.kind == XG_WORLD)
        return v->comm;
    uint32_t n = rt__xp_members(&v->group, r, P, sp->buf, P);
    for (uint32_t i = 0; peer && i < n; i++)
        if (sp->buf[i] == *peer) {
            *peer = i;
            break;
        }
    return x->ncomms + sp->slot[v->comm] * P + sp->buf[0];
}

static int write_rank(const struct rt_extrap *x, const struct splits *sp, OTF2_EvtWriter *w, uint32_t r, uint32_t P,
                      const double *gap, const uint64_t *aligned, uint64_t nsil, OTF2_AttributeList *attrs,
                      uint64_t *end)
{
    uint32_t k = rt__xp_class(x->rule, r);
    const struct xp_ev *tm = x->tmpl[k];
    uint64_t t = 0, m = 0, len, it = iterations(x, k, P, &len);
    OTF2_ErrorCode e = OTF2_SUCCESS;
    /* request ids: the emitted event's index + 1, so that every iteration's are its own */
    for (uint64_t q = 0; q < len && e == OTF2_SUCCESS; q++) {
        int again;
        uint64_t j = rt__xp_at(&x->loop[k], it, q, &again);
        const struct xp_ev *v = &tm[j];
        if (q)
            t += (uint64_t)llround(gap[interval_at(x, k, j, again)]);
        if (m < nsil && silent_leave(x, tm, j))
            t = aligned[m++];
        if (t > (uint64_t)RT_MAX_SPAN_NS) /* (a fit that grows without bound at this P) */
            return -2;
        /* a message's peer as a rank of its communicator (OTF2's), from the rule's world rank */
        uint32_t peer = v->peer.kind ? rt__xp_peer_of(&v->peer, r, P) : 0, cm;
        switch (v->kind) {
        case RT_EV_ENTER:
            if (v->site != RT_NONE && attrs) { /* its call site, as retime-trace writes one */
                OTF2_AttributeList_RemoveAllAttributes(attrs);
                OTF2_AttributeList_AddCallingContextRef(attrs, 0, v->site);
            }
            e = OTF2_EvtWriter_Enter(w, v->site != RT_NONE ? attrs : NULL, t, v->region);
            break;
        case RT_EV_LEAVE: e = OTF2_EvtWriter_Leave(w, NULL, t, v->region); break;
        case RT_EV_SEND:
            cm = comm_of(x, sp, v, r, P, &peer);
            e = OTF2_EvtWriter_MpiSend(w, NULL, t, peer, cm, v->tag, size_at(&v->bytes, P));
            break;
        case RT_EV_ISEND:
            cm = comm_of(x, sp, v, r, P, &peer);
            e = OTF2_EvtWriter_MpiIsend(w, NULL, t, peer, cm, v->tag, size_at(&v->bytes, P), q + 1);
            break;
        case RT_EV_ISEND_COMPLETE: e = OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, q - v->back + 1); break;
        case RT_EV_RECV:
            cm = comm_of(x, sp, v, r, P, &peer);
            e = OTF2_EvtWriter_MpiRecv(w, NULL, t, peer, cm, v->tag, size_at(&v->bytes, P));
            break;
        case RT_EV_IRECV_REQUEST: e = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, q + 1); break;
        case RT_EV_IRECV: {
            const struct xp_ev *rq = &tm[j - v->back]; /* its request holds the peer, tag and size */
            peer = rt__xp_peer_of(&rq->peer, r, P);
            cm = comm_of(x, sp, rq, r, P, &peer);
            e = OTF2_EvtWriter_MpiIrecv(w, NULL, t, peer, cm, rq->tag, size_at(&rq->bytes, P), q - v->back + 1);
            break;
        }
        case RT_EV_COLL_BEGIN: e = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t); break;
        case RT_EV_COLL_END: { /* (its root is a rank of its communicator already) */
            const struct xp_ev *b = &tm[j - v->back];
            uint32_t root = b->peer.kind == XP_FIXED ? (uint32_t)b->peer.d : OTF2_UNDEFINED_UINT32;
            cm = comm_of(x, sp, b, r, P, NULL);
            uint64_t members = b->group.kind == XG_WORLD ? P : rt__xp_members(&b->group, r, P, NULL, 0);
            e = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, rt_coll_op_otf2((int)b->tag, (b->flags & RT_EVF_VECTOR) != 0), cm,
                                                root, size_at(&b->bytes, P) * (b->per_member ? members : 1),
                                                size_at(&v->bytes, P) * (v->per_member ? members : 1));
            break;
        }
        default: break; /* (refused when recognised) */
        }
    }
    *end = t;
    return e == OTF2_SUCCESS ? 0 : -1;
}

int rt_extrap_write(const rt_extrap *x, uint32_t P, const char *dir, rt_error *err)
{
    if (P < 2 || P > (1u << 24))
        return rt_error_set(err, RT_EINVAL, "--ranks %u: from 2 to 2^24", P);
    if ((x->rule == XC_PARITY || x->rule == XC_ROOT_PARITY) && P % 2)
        return rt_error_set(err, RT_EINVAL, "--ranks %u: the program's ranks are even and odd ones (%s): an odd "
                                            "rank count is not extrapolated",
                            P, x->sum.class_rule);
    for (uint32_t k = 0; k < x->ncls; k++) { /* a loop's count may grow past what a trace holds */
        double c = rt__xp_eval(&x->loop[k].count, P);
        if (x->loop[k].p && !(c * (double)x->loop[k].p < 1e9))
            return rt_error_set(err, RT_EINVAL, "--ranks %u: the loop's count comes to %g iterations of %llu events "
                                                "a rank: not written",
                                P, c, (unsigned long long)x->loop[k].p);
    }
    for (uint32_t k = 0; k < x->ncls; k++)
        for (uint64_t j = 0; j < x->n[k]; j++) /* a fixed peer or root must exist at P */
            if (x->tmpl[k][j].peer.kind == XP_FIXED &&
                (x->tmpl[k][j].peer.d >= (int64_t)P ||
                 (x->tmpl[k][j].kind == RT_EV_COLL_BEGIN && x->tmpl[k][j].group.kind != XG_WORLD &&
                  x->tmpl[k][j].peer.d >= (int64_t)rt__xp_members(&x->tmpl[k][j].group, 0, P, NULL, 0))))
                return rt_error_set(err, RT_EINVAL, "--ranks %u: the program talks to rank %lld, which %u ranks lack",
                                    P, (long long)x->tmpl[k][j].peer.d, P);
    struct rt__outdir *od = NULL; /* written beside, moved into place whole (util/outfile.h) */
    int rc = rt__outdir_open(dir, "the extrapolated trace", &od, err);
    if (rc)
        return rc;
    double *gap = malloc((x->niv ? x->niv : 1) * sizeof *gap);
    uint64_t *nev = calloc(P, sizeof *nev), *aligned = NULL, nsil = 0;
    struct splits sp = {0};
    OTF2_AttributeList *attrs = NULL; /* an Enter's call site */
    OTF2_Archive *ar = NULL;
    if (!gap || !nev) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    for (uint32_t q = 0; q < x->niv; q++) {
        double g = rt__xp_eval(&x->iv[q].fit, P);
        gap[q] = g > 0 && isfinite(g) ? (g < 1e12 ? g : 1e12) : 0; /* (at most 1000 s: times stay in range) */
    }
    if (align_silent(x, P, gap, &aligned, &nsil)) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = splits_make(x, P, &sp, err)))
        goto done;
    if (x->nsites && !(attrs = OTF2_AttributeList_New())) {
        rc = rt_error_set(err, RT_ENOMEM, "out of memory");
        goto done;
    }
    /* the smallest chunks OTF2 takes: each location's writer has one, and 4096 ranks of them are zeroed */
    ar = OTF2_Archive_Open(rt__outdir_path(od), "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
                           OTF2_SUBSTRATE_POSIX,
                           OTF2_COMPRESSION_NONE);
    if (!ar || OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(ar, "retime extrapolate") != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS) {
        rc = rt_error_set(err, RT_EIO, "%s: OTF2 cannot create an archive here", dir);
        goto done;
    }
    uint64_t last = 0;
    for (uint32_t r = 0; r < P && !rc; r++) { /* one location at a time: bounded memory */
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
        uint64_t end = 0;
        int wr = w ? write_rank(x, &sp, w, r, P, gap, aligned, nsil, attrs, &end) : -1;
        if (wr == -2)
            rc = rt_error_set(err, RT_ERANGE, "--ranks %u: rank %u's compute comes to more than the %lld ns a trace "
                                              "may span: a fit that grows without bound there",
                              P, r, (long long)RT_MAX_SPAN_NS);
        else if (wr || OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]) != OTF2_SUCCESS ||
                 OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS)
            rc = rt_error_set(err, RT_EIO, "%s: cannot write rank %u's events", dir, r);
        last = end > last ? end : last;
    }
    if (rc || OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS || OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS) {
        rc = rc ? rc : rt_error_set(err, RT_EIO, "%s: cannot write the event files", dir);
        goto done;
    }
    for (uint32_t r = 0; r < P && !rc; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, r);
        if (!dw || OTF2_Archive_CloseDefWriter(ar, dw) != OTF2_SUCCESS)
            rc = rt_error_set(err, RT_EIO, "%s: cannot write rank %u's definitions", dir, r);
    }
    if (rc || OTF2_Archive_CloseDefFiles(ar) != OTF2_SUCCESS) {
        rc = rc ? rc : rt_error_set(err, RT_EIO, "%s: cannot write the definitions", dir);
        goto done;
    }
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_ErrorCode e = g ? OTF2_SUCCESS : OTF2_ERROR_INVALID;
    /* strings: 0 "", 1 "machine", 2 "node", 3 "MPI ranks", 4.. regions, then communicators, ranks */
    uint32_t s = 0;
    const char *fixed[] = {"", "machine", "node", "MPI ranks"};
    for (int i = 0; i < 4 && e == OTF2_SUCCESS; i++)
        e = OTF2_GlobalDefWriter_WriteString(g, s++, fixed[i]);
    if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, last + 1, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < x->nregions && e == OTF2_SUCCESS; i++) {
        uint32_t name = s++;
        e = OTF2_GlobalDefWriter_WriteString(g, name, x->region_name[i]);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteRegion(g, i, name, name, 0, (OTF2_RegionRole)x->region_role[i],
                                                 x->region_mpi[i] ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                                 OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    /* call sites: a calling context per site (its function a region, its file and line a source
     * code location), named by the Enters' attribute retime::callsite */
    if (e == OTF2_SUCCESS && x->nsites) {
        uint32_t an = s++;
        e = OTF2_GlobalDefWriter_WriteString(g, an, "retime::callsite");
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteAttribute(g, 0, an, 0, OTF2_TYPE_CALLING_CONTEXT);
    }
    for (uint32_t i = 0; i < x->nsites && e == OTF2_SUCCESS; i++) {
        uint32_t fn = s++, fl = s++;
        e = OTF2_GlobalDefWriter_WriteString(g, fn, x->site[i].function);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteString(g, fl, x->site[i].file);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteRegion(g, x->nregions + i, fn, fn, 0, OTF2_REGION_ROLE_FUNCTION,
                                                 OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, fl, 0, 0);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, i, fl, x->site[i].line);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteCallingContext(g, i, x->nregions + i, i, OTF2_UNDEFINED_CALLING_CONTEXT);
    }
    if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < P && e == OTF2_SUCCESS; r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %u", r);
        uint32_t sn = s++;
        e = OTF2_GlobalDefWriter_WriteString(g, sn, name);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteLocationGroup(g, r, sn, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                        OTF2_UNDEFINED_LOCATION_GROUP);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteLocation(g, r, sn, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r);
    }
    uint64_t *members = malloc((size_t)P * sizeof *members);
    if (!members)
        e = OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t r = 0; members && r < P; r++)
        members[r] = r;
    if (e == OTF2_SUCCESS) /* group 0: the MPI locations; group 1: every rank, the communicators' group */
        e = OTF2_GlobalDefWriter_WriteGroup(g, 0, 3, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, P, members);
    if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, P, members);
    free(members);
    for (uint32_t c = 0; c < x->ncomms && e == OTF2_SUCCESS; c++) { /* the same ids as the largest trace's */
        if (!x->comm_name[c] || sp.slot[c] != UINT32_MAX || !x->comm_world[c])
            continue;
        uint32_t sn = s++;
        e = OTF2_GlobalDefWriter_WriteString(g, sn, x->comm_name[c]);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteComm(g, c, sn, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }
    uint32_t gid = 2; /* the splits' groups and communicators: one per group of ranks */
    uint8_t *done_slot = calloc(sp.nslots ? sp.nslots : 1, 1);
    if (!done_slot)
        e = OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t c = 0; c < x->ncomms && e == OTF2_SUCCESS; c++) {
        if (sp.slot[c] == UINT32_MAX || done_slot[sp.slot[c]])
            continue;
        done_slot[sp.slot[c]] = 1;
        for (uint32_t r = 0; r < P && e == OTF2_SUCCESS; r++) {
            uint32_t n = rt__xp_members(&sp.rule[c], r, P, sp.buf, P);
            if (!n || sp.buf[0] != r)
                continue; /* (each group once, at its first rank) */
            uint64_t *mem = malloc((size_t)n * sizeof *mem);
            if (!mem) {
                e = OTF2_ERROR_MEM_ALLOC_FAILED;
                break;
            }
            for (uint32_t i = 0; i < n; i++)
                mem[i] = sp.buf[i];
            char name[300];
            snprintf(name, sizeof name, "%s (ranks %u..)", x->comm_name[c] ? x->comm_name[c] : "split", r);
            uint32_t sn = s++;
            e = OTF2_GlobalDefWriter_WriteString(g, sn, name);
            if (e == OTF2_SUCCESS)
                e = OTF2_GlobalDefWriter_WriteGroup(g, gid, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                    OTF2_GROUP_FLAG_NONE, n, mem);
            if (e == OTF2_SUCCESS)
                e = OTF2_GlobalDefWriter_WriteComm(g, x->ncomms + sp.slot[c] * P + r, sn, gid++, OTF2_UNDEFINED_COMM,
                                                   OTF2_COMM_FLAG_NONE);
            free(mem);
        }
    }
    free(done_slot);
    if (e != OTF2_SUCCESS || OTF2_Archive_CloseGlobalDefWriter(ar, g) != OTF2_SUCCESS)
        rc = rt_error_set(err, RT_EIO, "%s: cannot write the global definitions", dir);
done:
    if (ar && OTF2_Archive_Close(ar) != OTF2_SUCCESS && !rc)
        rc = rt_error_set(err, RT_EIO, "%s: cannot close the archive", dir);
    if (rc) /* no partial archive is left: both directories are ours */
        rt__outdir_abort(od);
    else
        rc = rt__outdir_close(od, err);
    free(gap);
    free(nev);
    free(aligned);
    splits_free(&sp);
    if (attrs)
        OTF2_AttributeList_Delete(attrs);
    return rc;
}
