/* SPDX-License-Identifier: MIT */
/* Per-rank definition blobs (packed at finalize or on abort) and the global OTF2 definitions that
 * rank 0, or the last dying rank, writes from them. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RT_BLOB_MAGIC 0x31445452u /* "RTD1" */

/* --- byte buffer -------------------------------------------------------------------------- */

void rt__buf_free(struct rt__buf *b)
{
    free(b->data);
    *b = (struct rt__buf){0};
}

static void rt__put(struct rt__buf *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 1024;
        while (ncap < b->len + n)
            ncap *= 2;
        unsigned char *d = realloc(b->data, ncap);
        if (!d) {
            b->oom = 1;
            return;
        }
        b->data = d;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void rt__put_u32(struct rt__buf *b, uint32_t v)
{
    rt__put(b, &v, sizeof v);
}

static void rt__put_u64(struct rt__buf *b, uint64_t v)
{
    rt__put(b, &v, sizeof v);
}

static void rt__put_str(struct rt__buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    rt__put_u32(b, n);
    rt__put(b, s, n);
}

/* Reader with bounds checks: blobs come from other processes or from files a crash may have
 * truncated, so every length is checked before use and a short blob is simply rejected. */
struct rt__rd {
    const unsigned char *p, *end;
    int bad;
};

static void rt__get(struct rt__rd *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p, n);
    r->p += n;
}

static uint32_t rt__get_u32(struct rt__rd *r)
{
    uint32_t v;
    rt__get(r, &v, sizeof v);
    return v;
}

static uint64_t rt__get_u64(struct rt__rd *r)
{
    uint64_t v;
    rt__get(r, &v, sizeof v);
    return v;
}

/* Returns a NUL-terminated copy owned by the caller, or NULL (and r->bad) on a short blob. */
static char *rt__get_str(struct rt__rd *r)
{
    uint32_t n = rt__get_u32(r);
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, r->p, n);
    s[n] = 0;
    r->p += n;
    return s;
}

/* --- packing ------------------------------------------------------------------------------ */

int rt__defs_pack(struct rt__buf *b, int ok, uint64_t nevents, uint64_t last_ts)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    rt__put_u32(b, RT_BLOB_MAGIC);
    rt__put_u32(b, (uint32_t)rt__g.rank);
    rt__put_u32(b, ok ? 1u : 0u);
    rt__put_u64(b, nevents);
    rt__put_u64(b, rt__g.first_ts);
    rt__put_u64(b, last_ts);
    rt__put_u64(b, rt__g.realtime_ns);
    rt__put_u32(b, (uint32_t)rt__g.n_offsets);
    for (int i = 0; i < rt__g.n_offsets; i++) {
        rt__put_u64(b, rt__g.offsets[i].time);
        rt__put_u64(b, (uint64_t)rt__g.offsets[i].offset);
        rt__put(b, &rt__g.offsets[i].stddev, sizeof(double));
    }
    rt__put_str(b, host);
    rt__put_u32(b, rt__g.n_user_names);
    for (uint32_t i = 0; i < rt__g.n_user_names; i++)
        rt__put_str(b, rt__g.user_names[i]);
    struct rt__callsite_info *cs = NULL;
    uint32_t ncs = 0;
    if (rt__callsite_resolve(&cs, &ncs) != 0)
        ncs = 0;
    rt__put_u32(b, ncs);
    for (uint32_t i = 0; i < ncs; i++) {
        rt__put_u32(b, cs[i].index);
        rt__put_str(b, cs[i].func);
        rt__put_str(b, cs[i].file);
        rt__put_u32(b, cs[i].line);
        rt__put_u32(b, cs[i].func_line);
    }
    free(cs);
    if (rt__g.n_comm_keys) {
        rt__put_u32(b, rt__g.n_comm_keys);
        for (uint32_t i = 0; i < rt__g.n_comm_keys; i++)
            rt__put_u32(b, rt__g.comm_keys[i]);
    } else {
        rt__put_u32(b, 2);
        rt__put_u32(b, RT_COMM_WORLD_ID);
        rt__put_u32(b, RT_COMM_SELF_ID);
    }
    rt__put_u32(b, rt__g.n_comm_defs);
    for (uint32_t i = 0; i < rt__g.n_comm_defs; i++) {
        const struct rt__comm_def *d = &rt__g.comm_defs[i];
        rt__put_u32(b, d->key);
        rt__put_u32(b, d->parent_key);
        rt__put_str(b, d->name);
        rt__put_u32(b, d->size);
        for (uint32_t k = 0; k < d->size; k++)
            rt__put_u32(b, d->world_ranks[k]);
    }
    return b->oom ? -1 : 0;
}

/* --- parsed blobs ------------------------------------------------------------------------- */

struct rt__pcs {
    uint32_t index, line, func_line;
    char *func, *file;
};
struct rt__pcomm {
    uint32_t key, parent_key, size;
    char *name;
    uint32_t *members;
};
struct rt__blob {
    int valid;
    uint32_t rank, ok, n_offsets, n_user, n_cs, n_keys, n_comms;
    uint64_t nevents, first_ts, last_ts, realtime;
    struct rt__clock_offset offsets[2];
    char *host;
    char **user;
    struct rt__pcs *cs;
    uint32_t *keys;
    struct rt__pcomm *comms;
    /* Filled by the merge: local id -> global id. */
    uint64_t *region_map, *cc_map, *comm_map;
};

static void rt__blob_free(struct rt__blob *b)
{
    free(b->host);
    for (uint32_t i = 0; b->user && i < b->n_user; i++)
        free(b->user[i]);
    free(b->user);
    for (uint32_t i = 0; b->cs && i < b->n_cs; i++) {
        free(b->cs[i].func);
        free(b->cs[i].file);
    }
    free(b->cs);
    free(b->keys);
    for (uint32_t i = 0; b->comms && i < b->n_comms; i++) {
        free(b->comms[i].name);
        free(b->comms[i].members);
    }
    free(b->comms);
    free(b->region_map);
    free(b->cc_map);
    free(b->comm_map);
    memset(b, 0, sizeof *b);
}

/* A count read from a blob can never exceed the bytes left (each item takes at least 4 bytes). */
static int rt__count_ok(struct rt__rd *r, uint32_t n)
{
    if (r->bad || (size_t)n > (size_t)(r->end - r->p) / 4) {
        r->bad = 1;
        return 0;
    }
    return 1;
}

static int rt__blob_parse(const unsigned char *data, size_t len, int world, struct rt__blob *b)
{
    struct rt__rd r = {data, data + len, 0};
    memset(b, 0, sizeof *b);
    if (rt__get_u32(&r) != RT_BLOB_MAGIC)
        return -1;
    b->rank = rt__get_u32(&r);
    b->ok = rt__get_u32(&r);
    b->nevents = rt__get_u64(&r);
    b->first_ts = rt__get_u64(&r);
    b->last_ts = rt__get_u64(&r);
    b->realtime = rt__get_u64(&r);
    b->n_offsets = rt__get_u32(&r);
    if (!rt__count_ok(&r, b->n_offsets))
        goto bad;
    for (uint32_t i = 0; i < b->n_offsets; i++) {
        struct rt__clock_offset o;
        o.time = rt__get_u64(&r);
        o.offset = (int64_t)rt__get_u64(&r);
        rt__get(&r, &o.stddev, sizeof o.stddev);
        if (i < 2)
            b->offsets[i] = o;
    }
    if (b->n_offsets > 2)
        b->n_offsets = 2;
    b->host = rt__get_str(&r);
    b->n_user = rt__get_u32(&r);
    if (!rt__count_ok(&r, b->n_user) || b->n_user > RT_MAX_USER_REGIONS)
        goto bad;
    b->user = calloc(b->n_user + 1, sizeof *b->user);
    for (uint32_t i = 0; b->user && i < b->n_user; i++)
        b->user[i] = rt__get_str(&r);
    b->n_cs = rt__get_u32(&r);
    if (!b->user || !rt__count_ok(&r, b->n_cs) || b->n_cs > RT_MAX_CALLSITES)
        goto bad;
    b->cs = calloc(b->n_cs + 1, sizeof *b->cs);
    for (uint32_t i = 0; b->cs && i < b->n_cs; i++) {
        b->cs[i].index = rt__get_u32(&r);
        b->cs[i].func = rt__get_str(&r);
        b->cs[i].file = rt__get_str(&r);
        b->cs[i].line = rt__get_u32(&r);
        b->cs[i].func_line = rt__get_u32(&r);
        if (b->cs[i].index >= b->n_cs)
            r.bad = 1;
    }
    b->n_keys = rt__get_u32(&r);
    if (!b->cs || !rt__count_ok(&r, b->n_keys) || b->n_keys < 2)
        goto bad;
    b->keys = calloc(b->n_keys, sizeof *b->keys);
    for (uint32_t i = 0; b->keys && i < b->n_keys; i++)
        b->keys[i] = rt__get_u32(&r);
    b->n_comms = rt__get_u32(&r);
    if (!b->keys || !rt__count_ok(&r, b->n_comms))
        goto bad;
    b->comms = calloc(b->n_comms + 1, sizeof *b->comms);
    for (uint32_t i = 0; b->comms && i < b->n_comms && !r.bad; i++) {
        struct rt__pcomm *c = &b->comms[i];
        c->key = rt__get_u32(&r);
        c->parent_key = rt__get_u32(&r);
        c->name = rt__get_str(&r);
        c->size = rt__get_u32(&r);
        if (!rt__count_ok(&r, c->size) || c->size > (uint32_t)world) {
            r.bad = 1;
            break;
        }
        c->members = calloc(c->size + 1, sizeof *c->members);
        for (uint32_t k = 0; c->members && k < c->size; k++)
            c->members[k] = rt__get_u32(&r);
        if (!c->members)
            r.bad = 1;
    }
    if (!b->comms || r.bad || b->rank >= (uint32_t)world)
        goto bad;
    b->region_map = calloc(RT_R_COUNT + b->n_user, sizeof *b->region_map);
    b->cc_map = calloc(b->n_cs + 1, sizeof *b->cc_map);
    b->comm_map = calloc(b->n_keys, sizeof *b->comm_map);
    if (!b->region_map || !b->cc_map || !b->comm_map)
        goto bad;
    b->valid = 1;
    return 0;
bad:
    rt__blob_free(b);
    return -1;
}

/* --- string table ------------------------------------------------------------------------- */

/* Strings are deduplicated so that the 64 copies of "shift.c" become one definition. */
struct rt__strtab {
    char **s;
    uint32_t n, cap;
    uint32_t *slots; /* index + 1, 0 = empty */
    uint32_t nslots;
    OTF2_GlobalDefWriter *w;
    int err;
};

static uint64_t rt__hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint32_t rt__intern(struct rt__strtab *t, const char *s)
{
    if (!s)
        s = "";
    if ((t->n + 1) * 2 > t->nslots) {
        uint32_t nn = t->nslots ? t->nslots * 2 : 1024;
        uint32_t *ns = calloc(nn, sizeof *ns);
        if (!ns) {
            t->err = 1;
            return 0;
        }
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t j = (uint32_t)rt__hash_str(t->s[i]) & (nn - 1);
            while (ns[j])
                j = (j + 1) & (nn - 1);
            ns[j] = i + 1;
        }
        free(t->slots);
        t->slots = ns;
        t->nslots = nn;
    }
    uint32_t j = (uint32_t)rt__hash_str(s) & (t->nslots - 1);
    while (t->slots[j]) {
        if (!strcmp(t->s[t->slots[j] - 1], s))
            return t->slots[j] - 1;
        j = (j + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 256;
        char **n = realloc(t->s, nc * sizeof *n);
        if (!n) {
            t->err = 1;
            return 0;
        }
        t->s = n;
        t->cap = nc;
    }
    t->s[t->n] = strdup(s);
    if (!t->s[t->n]) {
        t->err = 1;
        return 0;
    }
    t->slots[j] = t->n + 1;
    if (OTF2_GlobalDefWriter_WriteString(t->w, t->n, s) != OTF2_SUCCESS)
        t->err = 1;
    return t->n++;
}

static void rt__strtab_free(struct rt__strtab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slots);
}

/* Small keyed dedup (function+file for regions, file+line for source locations). */
struct rt__keymap {
    char **keys;
    uint32_t *ids;
    uint32_t n, cap;
};

static int rt__keymap_get(struct rt__keymap *m, const char *key, uint32_t *id)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (!strcmp(m->keys[i], key)) {
            *id = m->ids[i];
            return 1;
        }
    return 0;
}

static int rt__keymap_put(struct rt__keymap *m, const char *key, uint32_t id)
{
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        char **k = realloc(m->keys, nc * sizeof *k);
        if (!k)
            return -1;
        m->keys = k;
        uint32_t *ids = realloc(m->ids, nc * sizeof *ids);
        if (!ids)
            return -1;
        m->ids = ids;
        m->cap = nc;
    }
    m->keys[m->n] = strdup(key);
    if (!m->keys[m->n])
        return -1;
    m->ids[m->n++] = id;
    return 0;
}

static void rt__keymap_free(struct rt__keymap *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->ids);
}

/* --- global definitions ------------------------------------------------------------------- */

static const char *const rt__mpi_names[] = {
#define RT_X(name, role) "MPI_" #name,
    RT_MPI_REGIONS(RT_X)
#undef RT_X
};
static const OTF2_RegionRole rt__mpi_roles[] = {
#define RT_X(name, role) OTF2_REGION_ROLE_##role,
    RT_MPI_REGIONS(RT_X)
#undef RT_X
};


#define RT_CHECK(call)                                                                            \
    do {                                                                                          \
        if ((call) != OTF2_SUCCESS)                                                               \
            err = 1;                                                                              \
    } while (0)

/* Global comm definitions, parents before children for readers that resolve the parent while
 * reading. Fills each blob's comm_map (local comm id -> global comm id). */
static int rt__merge_comms(OTF2_GlobalDefWriter *w, struct rt__strtab *st, struct rt__blob *b,
                           int P, uint64_t *members)
{
    int err = 0;
    uint32_t s_empty = rt__intern(st, "");
    for (int r = 0; r < P; r++)
        members[r] = (uint64_t)r;
    /* The COMM_LOCATIONS group lists every location id (= world rank), so the members of each
     * COMM_GROUP (world ranks) are indexes into it, as in Score-P traces. */
    RT_CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)P, members));
    RT_CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                             (uint32_t)P, members));
    RT_CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 2, s_empty, OTF2_GROUP_TYPE_COMM_SELF,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL));
    RT_CHECK(OTF2_GlobalDefWriter_WriteComm(w, 0, rt__intern(st, "MPI_COMM_WORLD"), 1,
                                            OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    RT_CHECK(OTF2_GlobalDefWriter_WriteComm(w, 1, rt__intern(st, "MPI_COMM_SELF"), 2,
                                            OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    struct rt__keymap done = {0};
    char key[32], pkey[32];
    rt__keymap_put(&done, "0", 0);
    rt__keymap_put(&done, "1", 1);
    uint32_t next_comm = 2, next_group = 3, total = 0, written = 0;
    for (int r = 0; r < P; r++)
        total += b[r].valid ? b[r].n_comms : 0;
    for (uint32_t pass = 0; pass <= total && written < total; pass++) {
        for (int r = 0; r < P; r++) {
            for (uint32_t i = 0; b[r].valid && i < b[r].n_comms; i++) {
                const struct rt__pcomm *c = &b[r].comms[i];
                uint32_t parent = OTF2_UNDEFINED_COMM, id;
                snprintf(key, sizeof key, "%u", c->key);
                if (rt__keymap_get(&done, key, &id))
                    continue;
                snprintf(pkey, sizeof pkey, "%u", c->parent_key);
                int have_parent = c->parent_key != OTF2_UNDEFINED_COMM &&
                                  rt__keymap_get(&done, pkey, &parent);
                /* Wait for the parent for up to `total` passes; after that (its root rank left
                 * no data) the comm is defined without one. */
                if (!have_parent && c->parent_key != OTF2_UNDEFINED_COMM && pass < total)
                    continue;
                uint64_t *m = calloc((size_t)c->size + 1, sizeof *m);
                if (!m) {
                    err = 1;
                    continue;
                }
                for (uint32_t k = 0; k < c->size; k++)
                    m[k] = c->members[k];
                uint32_t s = rt__intern(st, c->name);
                RT_CHECK(OTF2_GlobalDefWriter_WriteGroup(w, next_group, s,
                                                         OTF2_GROUP_TYPE_COMM_GROUP,
                                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                         c->size, m));
                free(m);
                RT_CHECK(OTF2_GlobalDefWriter_WriteComm(w, next_comm, s, next_group,
                                                        have_parent ? parent : OTF2_UNDEFINED_COMM,
                                                        OTF2_COMM_FLAG_NONE));
                rt__keymap_put(&done, key, next_comm);
                next_group++;
                next_comm++;
                written++;
            }
        }
    }
    /* A comm whose definition is missing (its rank 0 left no data) maps to no comm at all. */
    for (int r = 0; r < P; r++) {
        for (uint32_t i = 0; b[r].valid && i < b[r].n_keys; i++) {
            uint32_t id = OTF2_UNDEFINED_COMM;
            snprintf(key, sizeof key, "%u", b[r].keys[i]);
            rt__keymap_get(&done, key, &id);
            b[r].comm_map[i] = id;
        }
    }
    rt__keymap_free(&done);
    return err;
}

/* Local definitions of every merged location: the mapping tables that translate the ids in its
 * events to the global ids, and its clock offsets. */
static int rt__write_local_defs(OTF2_Archive *a, struct rt__blob *b, int P)
{
    int err = 0;
    if (OTF2_Archive_OpenDefFiles(a) != OTF2_SUCCESS)
        return 1;
    for (int r = 0; r < P; r++) {
        if (!b[r].valid)
            continue;
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)r);
        if (!dw) {
            err = 1;
            continue;
        }
        const struct {
            OTF2_MappingType type;
            uint64_t n, *map;
        } maps[] = {{OTF2_MAPPING_REGION, RT_R_COUNT + b[r].n_user, b[r].region_map},
                    {OTF2_MAPPING_CALLING_CONTEXT, b[r].n_cs, b[r].cc_map},
                    {OTF2_MAPPING_COMM, b[r].n_keys, b[r].comm_map}};
        for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
            if (!maps[i].n)
                continue;
            OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(maps[i].n, maps[i].map, false);
            if (!m) {
                err = 1;
                continue;
            }
            RT_CHECK(OTF2_DefWriter_WriteMappingTable(dw, maps[i].type, m));
            OTF2_IdMap_Free(m);
        }
        for (uint32_t i = 0; i < b[r].n_offsets; i++)
            RT_CHECK(OTF2_DefWriter_WriteClockOffset(dw, b[r].offsets[i].time,
                                                     b[r].offsets[i].offset,
                                                     b[r].offsets[i].stddev));
        RT_CHECK(OTF2_Archive_CloseDefWriter(a, dw));
    }
    RT_CHECK(OTF2_Archive_CloseDefFiles(a));
    return err;
}

int rt__defs_write(OTF2_Archive *a, int P, const unsigned char *const *blobs, const size_t *lens)
{
    struct rt__blob *b = calloc((size_t)P, sizeof *b);
    uint64_t *members = calloc((size_t)P + 1, sizeof *members);
    OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(a);
    if (!b || !members || !w) {
        free(b);
        free(members);
        return -1;
    }
    int err = 0, nloc = 0;
    uint64_t t_min = UINT64_MAX, t_max = 0, realtime = OTF2_UNDEFINED_TIMESTAMP;
    for (int r = 0; r < P; r++) {
        if (!blobs[r] || rt__blob_parse(blobs[r], lens[r], P, &b[r]) != 0)
            continue;
        if (b[r].rank != (uint32_t)r || !b[r].ok) {
            rt__blob_free(&b[r]);
            continue;
        }
        if (b[r].first_ts < t_min) {
            t_min = b[r].first_ts;
            realtime = b[r].realtime;
        }
        if (b[r].last_ts > t_max)
            t_max = b[r].last_ts;
    }
    if (t_min == UINT64_MAX)
        t_min = t_max = 0;
    /* ClockProperties first: readers interpret every later timestamp through it. */
    RT_CHECK(OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000u, t_min, t_max - t_min,
                                                       realtime));
    struct rt__strtab st = {.w = w};
    uint32_t s_empty = rt__intern(&st, "");
    RT_CHECK(OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, rt__intern(&st, "MPI"),
                                                OTF2_PARADIGM_CLASS_PROCESS));
    RT_CHECK(OTF2_GlobalDefWriter_WriteAttribute(
        w, RT_ATTR_CALLSITE, rt__intern(&st, "retime::callsite"),
        rt__intern(&st, "Call site of the MPI call (function, file and line of the caller)"),
        OTF2_TYPE_CALLING_CONTEXT));
    RT_CHECK(OTF2_GlobalDefWriter_WriteAttribute(
        w, RT_ATTR_CPU_TIME, rt__intern(&st, "retime::cpu_time"),
        rt__intern(&st, "The rank's thread CPU time at this event [ns] (CLOCK_THREAD_CPUTIME_ID), "
                        "on events 20 us or more after the last one that has it"),
        OTF2_TYPE_UINT64));
    RT_CHECK(OTF2_GlobalDefWriter_WriteAttribute(
        w, RT_ATTR_IN_PLACE, rt__intern(&st, "retime::in_place"),
        rt__intern(&st, "1: the collective was MPI_IN_PLACE on this rank (its counts leave its own block out)"),
        OTF2_TYPE_UINT8));

    /* System tree: one machine node with one child per host name; one location group per
     * rank (dense ids), holding the rank's location (id = world rank). */
    RT_CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, rt__intern(&st, "machine"),
                                                      rt__intern(&st, "machine"),
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    struct rt__keymap hosts = {0};
    uint32_t n_nodes = 1;
    char name[128];
    for (int r = 0; r < P; r++) {
        if (!b[r].valid)
            continue;
        uint32_t node;
        const char *host = b[r].host ? b[r].host : "unknown";
        if (!rt__keymap_get(&hosts, host, &node)) {
            node = n_nodes++;
            rt__keymap_put(&hosts, host, node);
            RT_CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(
                w, node, rt__intern(&st, host), rt__intern(&st, "node"), 0));
        }
    }
    for (int r = 0; r < P; r++) {
        uint32_t node = 0;
        if (!b[r].valid)
            continue;
        rt__keymap_get(&hosts, b[r].host ? b[r].host : "unknown", &node);
        snprintf(name, sizeof name, "MPI Rank %d", r);
        RT_CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(w, (OTF2_LocationGroupRef)nloc,
                                                         rt__intern(&st, name),
                                                         OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
                                                         OTF2_UNDEFINED_LOCATION_GROUP));
        RT_CHECK(OTF2_GlobalDefWriter_WriteLocation(w, (OTF2_LocationRef)r,
                                                    rt__intern(&st, "Master thread"),
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, b[r].nevents,
                                                    (OTF2_LocationGroupRef)nloc));
        nloc++;
    }
    rt__keymap_free(&hosts);

    /* Regions: the MPI functions keep their ids; user regions are deduplicated by name. */
    for (int i = 0; i < RT_R_COUNT; i++) {
        uint32_t s = rt__intern(&st, rt__mpi_names[i]);
        RT_CHECK(OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)i, s, s, s_empty,
                                                  rt__mpi_roles[i], OTF2_PARADIGM_MPI,
                                                  OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
    }
    struct rt__keymap regions = {0}, locs = {0}, ccs = {0};
    uint32_t next_region = RT_R_COUNT, next_scl = 0, next_cc = 0;
    char key[1200];
    for (int r = 0; r < P; r++) {
        for (uint32_t i = 0; b[r].valid && i < RT_R_COUNT; i++)
            b[r].region_map[i] = i;
        for (uint32_t i = 0; b[r].valid && i < b[r].n_user; i++) {
            uint32_t id;
            const char *un = b[r].user[i] ? b[r].user[i] : "??";
            snprintf(key, sizeof key, "user\n%s", un);
            if (!rt__keymap_get(&regions, key, &id)) {
                id = next_region++;
                rt__keymap_put(&regions, key, id);
                uint32_t s = rt__intern(&st, un);
                RT_CHECK(OTF2_GlobalDefWriter_WriteRegion(w, id, s, s, s_empty,
                                                          OTF2_REGION_ROLE_FUNCTION,
                                                          OTF2_PARADIGM_USER,
                                                          OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
            }
            b[r].region_map[RT_R_COUNT + i] = id;
        }
    }

    /* Call sites: the calling function becomes a region (by function and file), the call's
     * line a source-code location (by file and line), and the pair a calling context without
     * parent (by region and location), so equal call sites of all ranks share one id. */
    for (int r = 0; r < P; r++) {
        for (uint32_t i = 0; b[r].valid && i < b[r].n_cs; i++) {
            const struct rt__pcs *c = &b[r].cs[i];
            const char *func = c->func ? c->func : "??", *file = c->file ? c->file : "";
            uint32_t region, scl = OTF2_UNDEFINED_SOURCE_CODE_LOCATION, cc;
            snprintf(key, sizeof key, "func\n%s\n%s", func, file);
            if (!rt__keymap_get(&regions, key, &region)) {
                region = next_region++;
                rt__keymap_put(&regions, key, region);
                uint32_t s = rt__intern(&st, func);
                RT_CHECK(OTF2_GlobalDefWriter_WriteRegion(
                    w, region, s, s, s_empty, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER,
                    OTF2_REGION_FLAG_NONE, rt__intern(&st, file), c->func_line, 0));
            }
            if (file[0]) {
                snprintf(key, sizeof key, "%s\n%u", file, c->line);
                if (!rt__keymap_get(&locs, key, &scl)) {
                    scl = next_scl++;
                    rt__keymap_put(&locs, key, scl);
                    RT_CHECK(OTF2_GlobalDefWriter_WriteSourceCodeLocation(
                        w, scl, rt__intern(&st, file), c->line));
                }
            }
            snprintf(key, sizeof key, "%u:%u", region, scl);
            if (!rt__keymap_get(&ccs, key, &cc)) {
                cc = next_cc++;
                rt__keymap_put(&ccs, key, cc);
                RT_CHECK(OTF2_GlobalDefWriter_WriteCallingContext(w, cc, region, scl,
                                                                  OTF2_UNDEFINED_CALLING_CONTEXT));
            }
            b[r].cc_map[c->index] = cc;
        }
    }
    rt__keymap_free(&regions);
    rt__keymap_free(&locs);
    rt__keymap_free(&ccs);

    if (rt__merge_comms(w, &st, b, P, members))
        err = 1;
    if (st.err)
        err = 1;
    rt__strtab_free(&st);
    if (rt__write_local_defs(a, b, P))
        err = 1;
    for (int r = 0; r < P; r++)
        rt__blob_free(&b[r]);
    free(b);
    free(members);
    return err ? -1 : nloc;
}
