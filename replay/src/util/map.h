/* SPDX-License-Identifier: MIT */
/* Internal open-addressing hash map from a 128-bit key (two uint64) to a uint64 value. */
#ifndef RETIME_MAP_H
#define RETIME_MAP_H

#include <stddef.h>
#include <stdint.h>

struct rt__map_slot {
    uint64_t k1, k2, val;
    uint8_t used;
};

struct rt__map {
    struct rt__map_slot *slots;
    size_t cap;   /* power of two or 0 */
    size_t count; /* live entries */
    size_t tombs; /* removed entries still occupying probes */
};

void rt__map_init(struct rt__map *m);
void rt__map_free(struct rt__map *m);
/** Returns a pointer to the value of (k1,k2), or NULL. */
uint64_t *rt__map_get(const struct rt__map *m, uint64_t k1, uint64_t k2);
/** Returns a pointer to the value of (k1,k2), inserted as @p init when absent (one probe when
 *  present); NULL on out of memory. The pointer is valid until the map next changes. */
uint64_t *rt__map_ref(struct rt__map *m, uint64_t k1, uint64_t k2, uint64_t init);
/** Inserts or overwrites; returns 0 or -1 on out of memory. */
int rt__map_put(struct rt__map *m, uint64_t k1, uint64_t k2, uint64_t val);
/** Removes (k1,k2) if present; returns 1 if it was there. */
int rt__map_del(struct rt__map *m, uint64_t k1, uint64_t k2);
size_t rt__map_memory(const struct rt__map *m);

#endif
