/* SPDX-License-Identifier: MIT */
/*
 * Rank-to-node mappings (retime/topology.h, docs/topology.md): block, round-robin, a seeded
 * random permutation of the slots, and a mapping file.
 *
 * Block and round-robin are computed on each call and store nothing. `random:SEED` is a
 * Fisher-Yates shuffle of the nodes x ranks_per_node slots of which only the first `ranks`
 * places are drawn: place i takes slot a[j], j uniform in i..S-1, and a[j] gets a[i]. The
 * slots not yet touched hold their own number, so the slot array is kept sparse (a hash of the
 * touched places), which keeps `random` at O(ranks) memory on a machine of 2^31 nodes. The
 * random numbers are splitmix64 (Steele, Lea and Flood, 2014) from the seed, and j is drawn by
 * rejection (no modulo bias), so the permutation is the same on every machine.
 */
/* strdup is POSIX.1-2008. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retime/topology.h"
#include "sidefile.h"

/* Largest mapping file read. */
#define MAP_FILE_MAX (64ull << 20)

enum { MAP_BLOCK, MAP_ROUND_ROBIN, MAP_TABLE };

struct rt_mapping {
    int kind;
    uint32_t ranks, nodes, rpn;
    uint32_t used;  /* round-robin: the nodes it cycles over */
    uint32_t *node; /* MAP_TABLE: node of each rank */
    char *spec;     /* canonical */
};

/* 1 when a table of ranks + 1 node numbers does not fit size_t (only where size_t has 32 bits). */
static int too_many(uint32_t ranks)
{
#if SIZE_MAX < UINT64_MAX
    return (uint64_t)ranks + 1 > SIZE_MAX / sizeof(uint32_t);
#else
    (void)ranks;
    return 0;
#endif
}

/* ------------------------------------------------------------------ random */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n >= 1): draws below 2^64 mod n are rejected, so every value has the same
 * number of draws that give it. */
static uint64_t uniform(uint64_t *state, uint64_t n)
{
    uint64_t reject = (UINT64_MAX % n + 1) % n; /* 2^64 mod n */
    for (;;) {
        uint64_t x = splitmix64(state);
        if (x >= reject)
            return x % n;
    }
}

/* The sparse slot array: open addressing, linear probing; an empty cell has key EMPTY. */
#define EMPTY UINT64_MAX
struct cell {
    uint64_t key, val;
};

static struct cell *probe(struct cell *tab, uint64_t mask, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    for (uint64_t i = (h ^ (h >> 29)) & mask;; i = (i + 1) & mask)
        if (tab[i].key == key || tab[i].key == EMPTY)
            return &tab[i];
}

static int map_random(struct rt_mapping *m, uint64_t seed, rt_error *err)
{
    uint64_t slots = (uint64_t)m->nodes * m->rpn, cap = 16;
    /* At most one cell per place drawn: a table of twice that stays at most half full. */
    while (cap < 2 * (uint64_t)m->ranks)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof(struct cell) || too_many(m->ranks))
        return rt_error_set(err, RT_ENOMEM, "mapping '%s': out of memory", m->spec);
    struct cell *tab = malloc((size_t)cap * sizeof *tab);
    m->node = malloc(((size_t)m->ranks + 1) * sizeof *m->node);
    if (!tab || !m->node) {
        free(tab);
        return rt_error_set(err, RT_ENOMEM, "mapping '%s': out of memory", m->spec);
    }
    for (uint64_t i = 0; i < cap; i++)
        tab[i].key = EMPTY;
    uint64_t state = seed;
    for (uint32_t i = 0; i < m->ranks; i++) {
        uint64_t j = i + uniform(&state, slots - i);
        struct cell *ci = probe(tab, cap - 1, i);
        uint64_t ai = ci->key == EMPTY ? i : ci->val;
        struct cell *cj = probe(tab, cap - 1, j);
        uint64_t aj = cj->key == EMPTY ? j : cj->val;
        /* a[j] = a[i]; place i (never looked at again) keeps a[j]. */
        cj->key = j;
        cj->val = ai;
        m->node[i] = (uint32_t)(aj / m->rpn);
    }
    free(tab);
    return RT_OK;
}

/* ------------------------------------------------------------------ file */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Reads a decimal number at *p into *out (saturating at UINT64_MAX: errors show the digits as
 * written); 0 when there is none. */
static int number(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    }
    *p = s;
    *out = v;
    return 1;
}

static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int map_file(struct rt_mapping *m, const char *path, rt_error *err)
{
    char qp[RT__QUOTE_SIZE], ql[RT__QUOTE_SIZE];
    struct rt__sidefile *f = NULL;
    uint32_t *sorted = NULL;
    const char *line;
    size_t len;
    int rc;
    rt__quote(qp, sizeof qp, path, strlen(path));
    if (!*path)
        return rt_error_set(err, RT_EINVAL, "mapping 'file:': no file name (expected file:PATH)");
    if (too_many(m->ranks))
        return rt_error_set(err, RT_ENOMEM, "mapping file %s: out of memory", qp);
    m->node = malloc(((size_t)m->ranks + 1) * sizeof *m->node);
    if (!m->node)
        return rt_error_set(err, RT_ENOMEM, "mapping file %s: out of memory", qp);
    for (uint32_t r = 0; r < m->ranks; r++)
        m->node[r] = UINT32_MAX;
    if ((rc = rt__sidefile_open(path, "mapping file", MAP_FILE_MAX, &f, err)))
        return rc;
    while ((rc = rt__sidefile_line(f, &line, &len, err)) == 1) {
        uint32_t ln = rt__sidefile_lineno(f);
        const char *hash = memchr(line, '#', len);
        size_t body = hash ? (size_t)(hash - line) : len;
        const char *p = skip_blank(line);
        if ((size_t)(p - line) >= body)
            continue; /* blank or comment */
        uint64_t rank = 0, node = 0;
        const char *rtext = p, *ntext;
        int ok = number(&p, &rank);
        size_t rlen = (size_t)(p - rtext), nlen;
        const char *q = skip_blank(p);
        ok = ok && q > p;
        p = ntext = q;
        ok = ok && number(&p, &node);
        nlen = (size_t)(p - ntext);
        p = skip_blank(p);
        if (!ok || (size_t)(p - line) != body) {
            rc = rt_error_set(err, RT_EINVAL, "mapping file %s line %u: expected 'RANK NODE', found '%s'", qp, ln,
                              rt__quote(ql, sizeof ql, line, body));
            goto done;
        }
        if (rank >= m->ranks) {
            rc = rt_error_set(err, RT_EINVAL, "mapping file %s line %u: rank %s is outside 0..%lld", qp, ln,
                              rt__quote(ql, sizeof ql, rtext, rlen), (long long)m->ranks - 1);
            goto done;
        }
        if (node >= m->nodes) {
            rc = rt_error_set(err, RT_EINVAL, "mapping file %s line %u: node %s is outside 0..%u", qp, ln,
                              rt__quote(ql, sizeof ql, ntext, nlen), m->nodes - 1);
            goto done;
        }
        if (m->node[rank] != UINT32_MAX) {
            rc = rt_error_set(err, RT_EINVAL, "mapping file %s line %u: rank %llu is mapped a second time", qp, ln,
                              (unsigned long long)rank);
            goto done;
        }
        m->node[rank] = (uint32_t)node;
    }
    if (rc < 0)
        goto done;
    rc = RT_OK;
    for (uint32_t r = 0; r < m->ranks; r++)
        if (m->node[r] == UINT32_MAX) {
            rc = rt_error_set(err, RT_EINVAL, "mapping file %s: rank %u has no node", qp, r);
            goto done;
        }
    /* At most ranks_per_node ranks per node: count runs in a sorted copy, as a table per node
     * could be far larger than the ranks (a crossbar of 2^31 nodes). */
    sorted = malloc(((size_t)m->ranks + 1) * sizeof *sorted);
    if (!sorted) {
        rc = rt_error_set(err, RT_ENOMEM, "mapping file %s: out of memory", qp);
        goto done;
    }
    memcpy(sorted, m->node, (size_t)m->ranks * sizeof *sorted);
    qsort(sorted, m->ranks, sizeof *sorted, cmp_u32);
    for (uint32_t r = 0, run = 0; r < m->ranks; r++) {
        run = r && sorted[r] == sorted[r - 1] ? run + 1 : 1;
        if (run > m->rpn) {
            rc = rt_error_set(err, RT_EINVAL, "mapping file %s: node %u has more than %u rank%s (ranks per node)", qp,
                              sorted[r], m->rpn, m->rpn == 1 ? "" : "s");
            goto done;
        }
    }
done:
    free(sorted);
    rt__sidefile_close(f);
    return rc;
}

/* ------------------------------------------------------------------ public */

int rt_mapping_create(const char *spec, uint32_t ranks, uint32_t nodes, uint32_t ranks_per_node, rt_mapping **out,
                      rt_error *err)
{
    char q[RT__QUOTE_SIZE];
    int rc = RT_OK;
    *out = NULL;
    if (!spec)
        spec = "";
    if (nodes == 0 || ranks_per_node == 0)
        return rt_error_set(err, RT_EINVAL, "mapping: %s must be >= 1", nodes ? "ranks per node" : "the number of nodes");
    if ((uint64_t)nodes * ranks_per_node < ranks)
        return rt_error_set(err, RT_ERANGE, "mapping: %u ranks do not fit %u node%s x %u rank%s per node", ranks, nodes,
                            nodes == 1 ? "" : "s", ranks_per_node, ranks_per_node == 1 ? "" : "s");
    struct rt_mapping *m = calloc(1, sizeof *m);
    if (!m)
        return rt_error_set(err, RT_ENOMEM, "out of memory");
    m->ranks = ranks;
    m->nodes = nodes;
    m->rpn = ranks_per_node;
    if (!strcmp(spec, "block")) {
        m->kind = MAP_BLOCK;
        m->spec = strdup("block");
    } else if (!strcmp(spec, "round-robin")) {
        uint64_t need = ((uint64_t)ranks + ranks_per_node - 1) / ranks_per_node;
        m->kind = MAP_ROUND_ROBIN;
        m->used = need == 0 ? 1 : need < nodes ? (uint32_t)need : nodes;
        m->spec = strdup("round-robin");
    } else if (!strncmp(spec, "random", 6) && (spec[6] == 0 || spec[6] == ':')) {
        const char *p = spec[6] ? spec + 7 : spec + 6;
        uint64_t seed;
        int over = 0;
        /* The seed: a decimal number below 2^64 and nothing else. */
        if (*p < '0' || *p > '9') {
            rc = rt_error_set(err, RT_EINVAL, "mapping '%s': expected random:SEED (SEED a decimal number)",
                              rt__quote(q, sizeof q, spec, strlen(spec)));
            goto fail;
        }
        for (seed = 0; *p >= '0' && *p <= '9'; p++) {
            unsigned d = (unsigned)(*p - '0');
            if (seed > (UINT64_MAX - d) / 10)
                over = 1;
            seed = seed * 10 + d;
        }
        if (*p || over) {
            rc = rt_error_set(err, RT_EINVAL, "mapping '%s': the seed must be a decimal number below 2^64",
                              rt__quote(q, sizeof q, spec, strlen(spec)));
            goto fail;
        }
        m->kind = MAP_TABLE;
        char buf[32];
        snprintf(buf, sizeof buf, "random:%llu", (unsigned long long)seed);
        if (!(m->spec = strdup(buf)))
            goto nomem;
        if ((rc = map_random(m, seed, err)))
            goto fail;
    } else if (!strncmp(spec, "file:", 5)) {
        m->kind = MAP_TABLE;
        if (!(m->spec = strdup(spec)))
            goto nomem;
        if ((rc = map_file(m, spec + 5, err)))
            goto fail;
    } else {
        rc = rt_error_set(err, RT_EINVAL, "mapping '%s': unknown mapping (known: block, round-robin, random:SEED, file:PATH)",
                          rt__quote(q, sizeof q, spec, strlen(spec)));
        goto fail;
    }
    if (!m->spec)
        goto nomem;
    *out = m;
    return RT_OK;
nomem:
    rc = rt_error_set(err, RT_ENOMEM, "out of memory");
fail:
    rt_mapping_destroy(m);
    return rc;
}

void rt_mapping_destroy(rt_mapping *m)
{
    if (!m)
        return;
    free(m->node);
    free(m->spec);
    free(m);
}

uint32_t rt_mapping_node(const rt_mapping *m, uint32_t rank)
{
    if (rank >= m->ranks)
        return UINT32_MAX;
    switch (m->kind) {
    case MAP_BLOCK:
        return rank / m->rpn;
    case MAP_ROUND_ROBIN:
        return rank % m->used;
    default:
        return m->node[rank];
    }
}

const char *rt_mapping_spec(const rt_mapping *m)
{
    return m->spec;
}
