/* SPDX-License-Identifier: MIT */
/* Open addressing with linear probing; removal leaves tombstones that a rehash clears. */
#include "map.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

enum { SLOT_FREE = 0, SLOT_USED = 1, SLOT_TOMB = 2 };

static uint64_t mix(uint64_t k1, uint64_t k2)
{
    /* splitmix64 finaliser over both halves: cheap and spreads dense ids well. */
    uint64_t x = k1 * 0x9E3779B97F4A7C15ull ^ (k2 + 0x632BE59BD9B4E019ull + (k1 << 6) + (k1 >> 2));
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

void rt__map_init(struct rt__map *m)
{
    m->slots = NULL;
    m->cap = m->count = m->tombs = 0;
}

void rt__map_free(struct rt__map *m)
{
    free(m->slots);
    rt__map_init(m);
}

uint64_t *rt__map_get(const struct rt__map *m, uint64_t k1, uint64_t k2)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = mix(k1, k2) & mask;; i = (i + 1) & mask) {
        struct rt__map_slot *s = &m->slots[i];
        if (s->used == SLOT_FREE)
            return NULL;
        if (s->used == SLOT_USED && s->k1 == k1 && s->k2 == k2)
            return &s->val;
    }
}

static int grow(struct rt__map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    if (m->count * 4 < m->cap) /* mostly tombstones: rehash at the same size */
        ncap = m->cap;
    struct rt__map_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t j = 0; j < m->cap; j++) {
        struct rt__map_slot *s = &m->slots[j];
        if (s->used != SLOT_USED)
            continue;
        size_t i = mix(s->k1, s->k2) & (ncap - 1);
        while (ns[i].used)
            i = (i + 1) & (ncap - 1);
        ns[i] = *s;
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->tombs = 0;
    return 0;
}

int rt__map_put(struct rt__map *m, uint64_t k1, uint64_t k2, uint64_t val)
{
    /* One probe finds the key or, failing that, where it goes: the first tombstone on the way,
     * else the free slot that ends the run (a lookup followed by a second probe cost twice). */
    if (m->cap) {
        size_t mask = m->cap - 1, tomb = SIZE_MAX;
        size_t i = mix(k1, k2) & mask;
        for (;; i = (i + 1) & mask) {
            struct rt__map_slot *s = &m->slots[i];
            if (s->used == SLOT_FREE)
                break;
            if (s->used == SLOT_TOMB) {
                if (tomb == SIZE_MAX)
                    tomb = i;
            } else if (s->k1 == k1 && s->k2 == k2) {
                s->val = val;
                return 0;
            }
        }
        if (tomb != SIZE_MAX) { /* reusing a tombstone: the load does not change */
            m->slots[tomb] = (struct rt__map_slot){k1, k2, val, SLOT_USED};
            m->tombs--;
            m->count++;
            return 0;
        }
    }
    if ((m->count + m->tombs + 1) * 4 > m->cap * 3 && grow(m) != 0)
        return -1;
    size_t mask = m->cap - 1;
    size_t i = mix(k1, k2) & mask;
    while (m->slots[i].used == SLOT_USED)
        i = (i + 1) & mask;
    if (m->slots[i].used == SLOT_TOMB)
        m->tombs--;
    m->slots[i] = (struct rt__map_slot){k1, k2, val, SLOT_USED};
    m->count++;
    return 0;
}

uint64_t *rt__map_ref(struct rt__map *m, uint64_t k1, uint64_t k2, uint64_t init)
{
    uint64_t *v = rt__map_get(m, k1, k2);
    if (v)
        return v;
    return rt__map_put(m, k1, k2, init) ? NULL : rt__map_get(m, k1, k2);
}

int rt__map_del(struct rt__map *m, uint64_t k1, uint64_t k2)
{
    uint64_t *v = rt__map_get(m, k1, k2);
    if (!v)
        return 0;
    struct rt__map_slot *s = (struct rt__map_slot *)((char *)v - offsetof(struct rt__map_slot, val));
    size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
    m->count--;
    /* A slot followed by a free one ends its probe run, so no lookup passes through it: it can
     * be freed outright, and so can the tombstones just before it. Without this, maps with
     * short-lived keys (the replay's in-flight operations) fill with tombstones and every miss
     * walks a long run. */
    if (m->slots[(i + 1) & mask].used == SLOT_FREE) {
        s->used = SLOT_FREE;
        for (i = (i - 1) & mask; m->slots[i].used == SLOT_TOMB; i = (i - 1) & mask) {
            m->slots[i].used = SLOT_FREE;
            m->tombs--;
        }
        return 1;
    }
    s->used = SLOT_TOMB;
    m->tombs++;
    return 1;
}

size_t rt__map_memory(const struct rt__map *m)
{
    return m->cap * sizeof(struct rt__map_slot);
}
