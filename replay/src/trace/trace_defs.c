/* SPDX-License-Identifier: MIT */
/*
 * The OTF2 global definitions -> the trace's tables. The callbacks keep what the definitions say
 * (strings, regions, locations, groups, communicators, source locations, calling contexts: they
 * may arrive in any order); once all are read, rt__rd_tables tells ranks from their threads and
 * other locations, and resolves communicators' members and call sites.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "reader_internal.h"

static int ref_put(struct ref_index *x, uint64_t ref, uint32_t val)
{
    if (ref >= DENSE_LIMIT)
        return rt__map_put(&x->sparse, ref, 0, val);
    if (ref >= x->n) {
        uint32_t nn = x->n ? x->n : 64;
        while (nn <= ref)
            nn *= 2;
        uint32_t *nv = realloc(x->v, (size_t)nn * sizeof *nv);
        if (!nv)
            return -1;
        for (uint32_t i = x->n; i < nn; i++)
            nv[i] = RT_NONE;
        x->v = nv;
        x->n = nn;
    }
    x->v[ref] = val;
    return 0;
}

static char *keep_string(struct reader *r, const char *s)
{
    rt_trace *t = r->t;
    if (t->nstrings == t->capstrings) {
        uint32_t ncap = t->capstrings ? t->capstrings * 2 : 64;
        char **ns = realloc(t->strings, ncap * sizeof *ns);
        if (!ns)
            return NULL;
        t->strings = ns;
        t->capstrings = ncap;
    }
    char *copy = strdup(s ? s : "");
    if (!copy)
        return NULL;
    t->strings[t->nstrings++] = copy;
    t->memory += strlen(copy) + 1 + sizeof(char *);
    return copy;
}

static const char *string_ref(struct reader *r, uint64_t ref)
{
    uint64_t *i = rt__map_get(&r->strings, ref, 0);
    return i ? r->t->strings[*i] : NULL;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t len, uint64_t rt)
{
    struct reader *r = ud;
    (void)len; (void)rt;
    if (res == 0) {
        rt__rd_fail(r, RT_ECORRUPT, "clock properties: timer resolution is 0");
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->timer_resolution = res;
    r->global_offset = offset;
    r->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* retime-trace's retime::cpu_time (docs/cpu-time.md) and retime::in_place attributes; other
 * attributes are not read. */
static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef desc,
                                       OTF2_Type type)
{
    struct reader *r = ud;
    (void)desc;
    const char *n = string_ref(r, name);
    if (n && type == OTF2_TYPE_UINT64 && !strcmp(n, "retime::cpu_time")) {
        r->cpu_attr = self;
        r->have_cpu_attr = 1;
    }
    if (n && type == OTF2_TYPE_UINT8 && !strcmp(n, "retime::in_place")) {
        r->inplace_attr = self;
        r->have_inplace_attr = 1;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct reader *r = ud;
    if (!keep_string(r, s) || rt__map_put(&r->strings, self, 0, r->t->nstrings - 1)) {
        rt__rd_fail(r, RT_ENOMEM, "out of memory reading string definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canon, OTF2_StringRef descr, OTF2_RegionRole role,
                                    OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                    OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    struct reader *r = ud;
    rt_trace *t = r->t;
    (void)canon; (void)descr; (void)flags; (void)file; (void)begin; (void)end;
    struct rt_region *nr = realloc(t->regions, (t->nregions + 1) * sizeof *nr);
    if (!nr) {
        rt__rd_fail(r, RT_ENOMEM, "out of memory reading region definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    t->regions = nr;
    const char *s = string_ref(r, name);
    nr[t->nregions].name = s ? s : "??";
    nr[t->nregions].is_mpi = paradigm == OTF2_PARADIGM_MPI ||
                             (s && strncmp(s, "MPI_", 4) == 0 && paradigm == OTF2_PARADIGM_UNKNOWN);
    nr[t->nregions].role = (uint8_t)role;
    uint8_t *nf = realloc(r->region_flags, t->nregions + 1);
    if (nf)
        r->region_flags = nf;
    if (!nf || ref_put(&r->regions, self, t->nregions)) {
        rt__rd_fail(r, RT_ENOMEM, "out of memory reading region definitions");
        return OTF2_CALLBACK_INTERRUPT;
    }
    /* Whether a send is synchronous or buffered is only said by the name of its call. The MPI
     * bit is kept beside it so that Enter and Leave read one byte per event. */
    nf[t->nregions] = (uint8_t)((nr[t->nregions].is_mpi ? RT_EVF_MPI : 0) |
                                (paradigm == OTF2_PARADIGM_MPI ? 0
                                 : role == OTF2_REGION_ROLE_PARALLEL ? RF_PARALLEL
                                 : role == OTF2_REGION_ROLE_IMPLICIT_BARRIER || role == OTF2_REGION_ROLE_BARRIER
                                     ? RF_BARRIER : 0) |
                                (paradigm == OTF2_PARADIGM_CUDA || paradigm == OTF2_PARADIGM_HIP ||
                                         paradigm == OTF2_PARADIGM_OPENCL || paradigm == OTF2_PARADIGM_OPENACC ||
                                         paradigm == OTF2_PARADIGM_HMPP
                                     ? RF_ACCEL
                                 : role == OTF2_REGION_ROLE_FILE_IO && paradigm != OTF2_PARADIGM_MPI ? RF_FILEIO
                                                                                                    : 0) |
                                (!s                                                    ? 0
                                 : !strcmp(s, "MPI_Ssend") || !strcmp(s, "MPI_Issend") ? RT_EVF_SYNC
                                 : !strcmp(s, "MPI_Bsend") || !strcmp(s, "MPI_Ibsend") ? RT_EVF_BUFFERED
                                                                                      : 0));
    t->nregions++;
    t->memory += sizeof *nr;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    struct reader *r = ud;
    if (r->nloc == r->caploc) {
        uint32_t ncap = r->caploc ? r->caploc * 2 : 64;
        struct loc_def *nl = ncap > r->caploc ? realloc(r->locv, ncap * sizeof *nl) : NULL;
        if (!nl) {
            rt__rd_fail(r, RT_ENOMEM, "out of memory reading location definitions");
            return OTF2_CALLBACK_INTERRUPT;
        }
        r->locv = nl;
        r->caploc = ncap;
    }
    const char *s = string_ref(r, name);
    r->locv[r->nloc++] = (struct loc_def){self, nevents, group, s ? s : "", (uint8_t)type};
    return OTF2_CALLBACK_SUCCESS;
}

static int cmp_loc(const void *a, const void *b)
{
    const struct loc_def *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_thr(const void *a, const void *b)
{
    const struct thread_loc *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return x->location < y->location ? -1 : x->location > y->location;
}

/* Whether location @p id is one of the @p n sorted ids (the MPI COMM_LOCATIONS group's members,
 * the locations found empty). */
static int in_sorted(const uint64_t *sorted, uint32_t n, uint64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo] == id;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Tells ranks, threads and other locations apart (see rt_trace_open). A rank is an MPI process:
 * a CPU thread the MPI COMM_LOCATIONS group lists, or, in a location group (a process) that holds
 * none of those, its first CPU thread; a CPU thread without a location group is a rank of its
 * own. Every other CPU thread is a thread of its group's first rank. Accelerator streams and
 * metric locations are counted with their declared records: they are not replayed.
 * Builds t->rows (sorted by location id, as before threads were told apart) and r->thr.
 */
static int classify_locations(struct reader *r)
{
    rt_trace *t = r->t;
    const struct group_def *mpi = NULL;
    uint64_t *sorted = NULL;
    int rc = RT_OK;
    for (uint32_t i = 0; i < r->ngroups; i++)
        if (r->groupv[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groupv[i].paradigm == OTF2_PARADIGM_MPI)
            mpi = &r->groupv[i];
    if (mpi && mpi->n) {
        sorted = malloc((size_t)mpi->n * sizeof *sorted);
        if (!sorted)
            return rt__rd_fail(r, RT_ENOMEM, "out of memory sorting locations");
        memcpy(sorted, mpi->members, (size_t)mpi->n * sizeof *sorted);
        qsort(sorted, mpi->n, sizeof *sorted, cmp_u64);
    }
    uint32_t nmpi = mpi ? mpi->n : 0;
    if (r->nloc) /* qsort's array must not be NULL, even when empty */
        qsort(r->locv, r->nloc, sizeof *r->locv, cmp_loc); /* by group, then id */
    t->rows = calloc(r->nloc ? r->nloc : 1, sizeof *t->rows);
    r->thr = calloc(r->nloc ? r->nloc : 1, sizeof *r->thr);
    if (!t->rows || !r->thr) {
        rc = rt__rd_fail(r, RT_ENOMEM, "out of memory reading location definitions");
        goto done;
    }
    /* Per location group [g0, g1): its ranks become rows, its other CPU threads threads of the
     * first of them; thr[k].row holds the rank's location id until the rows are sorted. */
    for (uint32_t g0 = 0, g1; g0 < r->nloc; g0 = g1) {
        g1 = g0 + 1;
        if (r->locv[g0].group != OTF2_UNDEFINED_LOCATION_GROUP)
            while (g1 < r->nloc && r->locv[g1].group == r->locv[g0].group)
                g1++;
        int has_mpi = 0;
        for (uint32_t i = g0; i < g1 && nmpi; i++)
            has_mpi |= r->locv[i].type == OTF2_LOCATION_TYPE_CPU_THREAD && in_sorted(sorted, nmpi, r->locv[i].id);
        /* A process of one rank whose rank location holds no events, while another of its CPU
         * threads does (APEX writes its MPI location empty and the work on other threads): that
         * thread, the first such, is its rank instead, so that the process replays with its
         * threads rather than as nothing. Empty by its declared count, or as a first read found
         * it (r->found_empty: APEX declares 79 events for every location). */
        uint64_t instead = UINT64_MAX;
        uint32_t nrank = 0, empty = 0;
        for (uint32_t i = g0; i < g1; i++) {
            const struct loc_def *l = &r->locv[i];
            if (l->type == OTF2_LOCATION_TYPE_CPU_THREAD &&
                (has_mpi ? in_sorted(sorted, nmpi, l->id) : nrank == 0)) {
                nrank++;
                empty = l->nevents == 0 || in_sorted(r->found_empty, r->nfound_empty, l->id);
            }
        }
        for (uint32_t i = g0; i < g1 && nrank == 1 && empty && instead == UINT64_MAX; i++)
            if (r->locv[i].type == OTF2_LOCATION_TYPE_CPU_THREAD && r->locv[i].nevents &&
                !in_sorted(r->found_empty, r->nfound_empty, r->locv[i].id))
                instead = r->locv[i].id;
        uint64_t first_rank = UINT64_MAX;
        uint32_t thr0 = r->nthr;
        for (uint32_t i = g0; i < g1; i++) {
            const struct loc_def *l = &r->locv[i];
            if (l->type == OTF2_LOCATION_TYPE_METRIC) {
                t->stats.metric_locations++;
                t->stats.metric_records += l->nevents;
                continue;
            }
            if (l->type != OTF2_LOCATION_TYPE_CPU_THREAD) { /* accelerator streams (and unknown kinds) */
                t->stats.accel_locations++;
                t->stats.accel_records += l->nevents;
                continue;
            }
            int rank = instead != UINT64_MAX ? l->id == instead
                       : has_mpi ? in_sorted(sorted, nmpi, l->id) : first_rank == UINT64_MAX;
            if (rank) {
                t->rows[t->nrows++] = (struct rt__row){.location = l->id, .name = (char *)l->name, .nevents = l->nevents};
                if (first_rank == UINT64_MAX)
                    first_rank = l->id;
            } else {
                r->thr[r->nthr++] = (struct thread_loc){.location = l->id, .nevents = l->nevents};
            }
        }
        for (uint32_t k = thr0; k < r->nthr; k++)
            r->thr[k].rank_location = first_rank;
    }
    t->stats.threads = r->nthr;
    t->memory += (uint64_t)t->nrows * sizeof *t->rows;
done:
    free(sorted);
    return rc;
}

/* After the rows are sorted: each thread's rank row, and the threads grouped by rank. */
static int index_threads(struct reader *r)
{
    rt_trace *t = r->t;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < r->nthr; k++) {
        uint64_t *row = rt__map_get(&r->rows, r->thr[k].rank_location, 0);
        if (!row && (r->flags & RT_TRACE_ALLOW_MISSING_RANKS)) /* a thread of a missing rank: left out too */
            continue;
        if (!row)
            return rt__rd_fail(r, RT_ECORRUPT, "thread location %llu: its process has no rank", /* cannot happen */
                               (unsigned long long)r->thr[k].location);
        r->thr[k].row = (uint32_t)*row;
        r->thr[kept++] = r->thr[k];
    }
    r->nthr = t->stats.threads = kept;
    qsort(r->thr, r->nthr, sizeof *r->thr, cmp_thr);
    r->thr_at = calloc((size_t)t->nrows + 1, sizeof *r->thr_at);
    if (!r->thr_at)
        return rt__rd_fail(r, RT_ENOMEM, "out of memory indexing threads");
    for (uint32_t k = 0; k < r->nthr; k++)
        r->thr_at[r->thr[k].row + 1]++;
    for (uint32_t i = 0; i < t->nrows; i++)
        r->thr_at[i + 1] += r->thr_at[i];
    return RT_OK;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                   uint32_t n, const uint64_t *members)
{
    struct reader *r = ud;
    (void)name; (void)flags;
    if (r->ngroups == r->capgroups) {
        uint32_t ncap = r->capgroups ? r->capgroups * 2 : 16;
        struct group_def *ng = realloc(r->groupv, ncap * sizeof *ng);
        if (!ng)
            goto oom;
        r->groupv = ng;
        r->capgroups = ncap;
    }
    uint64_t *m = NULL;
    if (n) {
        m = malloc((size_t)n * sizeof *m);
        if (!m)
            goto oom;
        memcpy(m, members, (size_t)n * sizeof *m);
    }
    r->groupv[r->ngroups] = (struct group_def){(uint8_t)type, (uint8_t)paradigm, n, m};
    if (rt__map_put(&r->groups, self, 0, r->ngroups))
        goto oom;
    r->ngroups++;
    return OTF2_CALLBACK_SUCCESS;
oom:
    rt__rd_fail(r, RT_ENOMEM, "out of memory reading group definitions");
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct reader *r = ud;
    rt_trace *t = r->t;
    (void)flags;
    if (t->ncomms == r->capcomms) {
        uint32_t ncap = r->capcomms ? r->capcomms * 2 : 8;
        struct rt__comm *nc = realloc(t->comms, ncap * sizeof *nc);
        if (!nc)
            goto oom;
        t->comms = nc;
        uint64_t *ng = realloc(r->comm_group, ncap * sizeof *ng);
        if (!ng)
            goto oom;
        r->comm_group = ng;
        uint64_t *np = realloc(r->comm_parent, ncap * sizeof *np);
        if (!np)
            goto oom;
        r->comm_parent = np;
        r->capcomms = ncap;
    }
    const char *s = string_ref(r, name);
    t->comms[t->ncomms] = (struct rt__comm){.pub = {.name = s ? s : "", .size = 0, .members = NULL, .origin = t->ncomms,
                                                   .parent = RT_NONE}};
    r->comm_group[t->ncomms] = group;
    r->comm_parent[t->ncomms] = parent;
    if (ref_put(&r->comms, self, t->ncomms))
        goto oom;
    t->ncomms++;
    return OTF2_CALLBACK_SUCCESS;
oom:
    rt__rd_fail(r, RT_ENOMEM, "out of memory reading communicator definitions");
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_scl(void *ud, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
                                 uint32_t line)
{
    struct reader *r = ud;
    if (r->nscl == r->capscl) {
        uint32_t ncap = r->capscl ? r->capscl * 2 : 16;
        uint64_t *nv = realloc(r->sclv, ncap * sizeof *nv);
        if (!nv)
            goto oom;
        r->sclv = nv;
        r->capscl = ncap;
    }
    if (rt__map_put(&r->scls, self, 0, ((uint64_t)file << 32) | line))
        goto oom;
    r->sclv[r->nscl++] = self;
    return OTF2_CALLBACK_SUCCESS;
oom:
    rt__rd_fail(r, RT_ENOMEM, "out of memory reading source code locations");
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_ctx(void *ud, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                 OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    struct reader *r = ud;
    (void)parent;
    if (r->nctx == r->capctx) {
        uint32_t ncap = r->capctx ? r->capctx * 2 : 16;
        struct ctx_def *nc = realloc(r->ctxv, ncap * sizeof *nc);
        if (!nc)
            goto oom;
        r->ctxv = nc;
        r->capctx = ncap;
    }
    r->ctxv[r->nctx] = (struct ctx_def){self, region, scl};
    if (rt__map_put(&r->ctxs, self, 0, r->nctx))
        goto oom;
    r->nctx++;
    return OTF2_CALLBACK_SUCCESS;
oom:
    rt__rd_fail(r, RT_ENOMEM, "out of memory reading calling contexts");
    return OTF2_CALLBACK_INTERRUPT;
}

static int add_callsite(struct reader *r, const char *function, uint64_t scl, uint32_t *idx)
{
    rt_trace *t = r->t;
    struct rt_callsite cs = {function ? function : "??", "??", 0};
    uint64_t *v = scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION ? NULL : rt__map_get(&r->scls, scl, 0);
    if (v) {
        const char *f = string_ref(r, *v >> 32);
        cs.file = f ? f : "??";
        cs.line = (uint32_t)(*v & 0xffffffffu);
    }
    struct rt_callsite *n = realloc(t->callsites, (t->ncallsites + 1) * sizeof *n);
    if (!n)
        return RT_ENOMEM;
    t->callsites = n;
    n[t->ncallsites] = cs;
    *idx = t->ncallsites++;
    t->memory += sizeof *n;
    return RT_OK;
}

/* A communicator some of whose members are missing ranks (RT_TRACE_ALLOW_MISSING_RANKS): its
 * collectives are among the members present, so those are what the replay sees (pub), while
 * messages still translate communicator ranks through all of them (members). */
static int present_members(struct reader *r, struct rt__comm *comm)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < comm->pub.size; i++)
        n += comm->members[i] != RT_NONE;
    if (n == comm->pub.size)
        return RT_OK;
    comm->present = malloc((size_t)(n ? n : 1) * sizeof *comm->present);
    if (!comm->present)
        return rt__rd_fail(r, RT_ENOMEM, "out of memory resolving communicators");
    n = 0;
    for (uint32_t i = 0; i < comm->pub.size; i++)
        if (comm->members[i] != RT_NONE)
            comm->present[n++] = comm->members[i];
    comm->pub.members = comm->present;
    comm->pub.size = n;
    r->t->memory += (uint64_t)n * sizeof(uint32_t);
    return RT_OK;
}

/* Builds communicator member tables and the call-site table once all definitions are known. */
static int resolve_definitions(struct reader *r)
{
    rt_trace *t = r->t;
    int rc;
    for (uint32_t c = 0; c < t->ncomms; c++) {
        struct rt__comm *comm = &t->comms[c];
        uint64_t *gi = rt__map_get(&r->groups, r->comm_group[c], 0);
        if (!gi)
            return rt__rd_fail(r, RT_ECORRUPT, "communicator '%s' refers to undefined group %llu",
                               comm->pub.name, (unsigned long long)r->comm_group[c]);
        struct group_def *g = &r->groupv[*gi];
        /* A parent that is not defined is not an error: it is kept for --output-trace only. */
        if (r->comm_parent[c] != OTF2_UNDEFINED_COMM)
            comm->pub.parent = ref_get(&r->comms, r->comm_parent[c]);
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            comm->is_self = 1;
            comm->pub.size = 1;
            continue;
        }
        if (g->type != OTF2_GROUP_TYPE_COMM_GROUP)
            return rt__rd_fail(r, RT_ECORRUPT, "communicator '%s': group %llu is not a communicator group",
                               comm->pub.name, (unsigned long long)r->comm_group[c]);
        /* COMM_GROUP members index into the COMM_LOCATIONS group of the same paradigm. */
        struct group_def *locs = NULL;
        for (uint32_t i = 0; i < r->ngroups; i++)
            if (r->groupv[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groupv[i].paradigm == g->paradigm)
                locs = &r->groupv[i];
        if (!locs)
            return rt__rd_fail(r, RT_ECORRUPT, "communicator '%s': no COMM_LOCATIONS group for its paradigm",
                               comm->pub.name);
        comm->members = malloc((size_t)(g->n ? g->n : 1) * sizeof *comm->members);
        if (!comm->members)
            return rt__rd_fail(r, RT_ENOMEM, "out of memory resolving communicators");
        for (uint32_t i = 0; i < g->n; i++) {
            if (g->members[i] >= locs->n)
                return rt__rd_fail(r, RT_ECORRUPT, "communicator '%s': member %u refers to rank %llu of %u",
                                   comm->pub.name, i, (unsigned long long)g->members[i], locs->n);
            uint64_t *row = rt__map_get(&r->rows, locs->members[g->members[i]], 0);
            comm->members[i] = row ? (uint32_t)*row : RT_NONE;
        }
        comm->pub.size = comm->nmembers = g->n;
        comm->pub.members = comm->members;
        t->memory += (uint64_t)g->n * sizeof(uint32_t);
        if (t->stats.missing_ranks && (rc = present_members(r, comm)))
            return rc;
    }
    /* A self communicator (MPI_COMM_SELF, or any communicator of one process: Score-P gives them
     * all a COMM_SELF group) is one definition for what are separate communicators, one per
     * process: collectives that ranks call on it at the same time are not one collective. Each
     * row gets its own instance, a communicator of one member appended after the defined ones,
     * and events name the instance, so the replay never joins them. */
    uint32_t ndefined = t->ncomms, nself = 0;
    for (uint32_t c = 0; c < ndefined; c++)
        nself += t->comms[c].is_self != 0;
    if (nself && t->nrows) {
        uint64_t total = ndefined + (uint64_t)nself * t->nrows;
        if (total > RT_MAX_COMMS)
            return rt__rd_fail(r, RT_EUNSUPPORTED, "%u self communicators on %u ranks make %llu communicator instances, "
                               "more than the %u the replay supports", nself, t->nrows, (unsigned long long)total,
                               (unsigned)RT_MAX_COMMS);
        struct rt__comm *nc = realloc(t->comms, total * sizeof *nc);
        if (nc)
            t->comms = nc;
        t->self_rows = malloc(t->nrows * sizeof *t->self_rows);
        if (!nc || !t->self_rows)
            return rt__rd_fail(r, RT_ENOMEM, "out of memory resolving self communicators");
        for (uint32_t i = 0; i < t->nrows; i++)
            t->self_rows[i] = i;
        for (uint32_t c = 0; c < ndefined; c++) {
            if (!t->comms[c].is_self)
                continue;
            t->comms[c].self_base = t->ncomms;
            for (uint32_t i = 0; i < t->nrows; i++)
                t->comms[t->ncomms++] = (struct rt__comm){
                    .pub = {.name = t->comms[c].pub.name, .size = 1, .members = &t->self_rows[i], .origin = c,
                            .parent = t->comms[c].pub.parent}};
        }
        t->memory += (uint64_t)t->nrows * sizeof(uint32_t) + (total - ndefined) * sizeof *t->comms;
        t->stats.self_comms = nself;
    }
    /* Call sites are numbered in definition order (calling contexts, then source locations no
     * context names), not in hash-table order: the numbers then do not depend on the map's
     * layout, and an archive written back with its definitions in table order (otf2_writer.c)
     * reads back with the same numbers. A context defined twice counts once, at its last
     * definition (the one the event mapping uses). */
    for (uint32_t i = 0; i < r->nctx; i++) {
        struct ctx_def *d = &r->ctxv[i];
        uint64_t *last = rt__map_get(&r->ctxs, d->self, 0);
        if (!last || *last != i)
            continue;
        uint32_t reg = ref_get(&r->regions, d->region);
        uint32_t idx;
        if (add_callsite(r, reg != RT_NONE ? t->regions[reg].name : "??", d->scl, &idx) ||
            rt__map_put(&r->callsite_of, 1, d->self, idx))
            return rt__rd_fail(r, RT_ENOMEM, "out of memory building call sites");
    }
    /* A source location that a calling context already names shares that context's call site;
     * the others (Score-P's SOURCE_CODE_LOCATION attributes) get their own, without a function. */
    for (uint32_t i = 0; i < r->nctx; i++) {
        struct ctx_def *d = &r->ctxv[i];
        if (d->scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION)
            continue;
        uint64_t *cs = rt__map_get(&r->callsite_of, 1, d->self);
        if (cs && !rt__map_get(&r->callsite_of, 2, d->scl) && rt__map_put(&r->callsite_of, 2, d->scl, *cs))
            return rt__rd_fail(r, RT_ENOMEM, "out of memory building call sites");
    }
    for (uint32_t i = 0; i < r->nscl; i++) {
        uint32_t idx;
        if (rt__map_get(&r->callsite_of, 2, r->sclv[i]))
            continue;
        if (add_callsite(r, "??", r->sclv[i], &idx) || rt__map_put(&r->callsite_of, 2, r->sclv[i], idx))
            return rt__rd_fail(r, RT_ENOMEM, "out of memory building call sites");
    }
    return RT_OK;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct rt__row *x = a, *y = b;
    return x->location < y->location ? -1 : x->location > y->location;
}

/* Reads all global definitions through the callbacks above; then the clock must be known. */
int rt__rd_definitions(struct reader *r, OTF2_Reader *rd)
{
    if (rt__rd_member(r, ".def", "global definitions: "))
        return r->failed;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gdr) {
        char why[4200];
        return rt__rd_fail(r, RT_ECORRUPT, "no global definitions: %s",
                           rt__rd_file_problem(r->path, ".def", why, sizeof why));
    }
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gcb)
        return rt__rd_fail(r, RT_ENOMEM, "out of memory");
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(gcb, def_scl);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(gcb, def_ctx);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gcb, def_attribute);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, r);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (r->failed)
        return r->failed;
    if (ec != OTF2_SUCCESS)
        return rt__rd_fail(r, RT_ECORRUPT, "global definitions truncated or corrupt after %llu records: %s",
                           (unsigned long long)ndefs, OTF2_Error_GetDescription(ec));
    if (!r->have_clock)
        return rt__rd_fail(r, RT_ECORRUPT, "no clock properties definition");
    return RT_OK;
}

/* RT_TRACE_ALLOW_MISSING_RANKS: a rank whose event file is missing or empty (a rank killed before
 * it wrote) has no row. Then every member of the MPI COMM_LOCATIONS group without a row (that one,
 * or a location never defined) is a missing rank, listed by its number in that group. */
static int drop_missing_rows(struct reader *r)
{
    rt_trace *t = r->t;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < t->nrows; i++) {
        char tail[64];
        snprintf(tail, sizeof tail, "/%llu.evt", (unsigned long long)t->rows[i].location);
        if (!rt__rd_member_empty(r->path, tail))
            t->rows[kept++] = t->rows[i];
    }
    t->nrows = kept;
    return RT_OK;
}

static int list_missing(struct reader *r)
{
    rt_trace *t = r->t;
    const struct group_def *mpi = NULL;
    for (uint32_t i = 0; i < r->ngroups; i++)
        if (r->groupv[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groupv[i].paradigm == OTF2_PARADIGM_MPI)
            mpi = &r->groupv[i];
    if (!mpi)
        return RT_OK;
    for (uint32_t i = 0; i < mpi->n; i++) {
        if (rt__map_get(&r->rows, mpi->members[i], 0))
            continue;
        if (!t->missing && !(t->missing = malloc((size_t)mpi->n * sizeof *t->missing)))
            return rt__rd_fail(r, RT_ENOMEM, "out of memory");
        t->missing[t->stats.missing_ranks++] = i;
    }
    t->memory += (uint64_t)t->stats.missing_ranks * sizeof *t->missing;
    return RT_OK;
}

int rt__rd_tables(struct reader *r)
{
    int allow = (r->flags & RT_TRACE_ALLOW_MISSING_RANKS) != 0;
    int rc = classify_locations(r);
    if (rc || (allow && (rc = drop_missing_rows(r))))
        return rc;
    if (r->t->nrows == 0)
        return rt__rd_fail(r, RT_ECORRUPT, allow ? "no CPU location with events: nothing to replay"
                                                 : "no CPU locations defined: nothing to replay");
    qsort(r->t->rows, r->t->nrows, sizeof *r->t->rows, cmp_rows);
    for (uint32_t i = 0; i < r->t->nrows; i++)
        if (rt__map_put(&r->rows, r->t->rows[i].location, 0, i))
            return rt__rd_fail(r, RT_ENOMEM, "out of memory");
    rc = index_threads(r);
    if (rc || (allow && (rc = list_missing(r))))
        return rc;
    return resolve_definitions(r);
}
