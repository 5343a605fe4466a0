/* physics_map.c: the u64 -> u32 open-addressing map behind entity lookups, and SoA buffers. */
#include "physics_internal.h"

#include "ct_array.h"

#include <string.h>

/* A 64-bit finaliser (from MurmurHash3): entity ids are small consecutive numbers and need their
 * bits spread before masking. */
static inline uint32_t map__slot(uint64_t k, uint32_t mask)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (uint32_t)k & mask;
}

int physics__map_reserve(physics__map *m, uint32_t n)
{
    if ((uint64_t)n * 2 <= m->cap)
        return 0;
    /* A power of two at least twice n (load under 50%). */
    const uint32_t cap = n <= UINT32_MAX / 2 ? ct_array_capacity(0, 2 * n, 16) : 0u;
    if (!cap)
        return CT_ERR_NOMEM;
    physics__map_slot *slots = ct_alloc(m->a, (size_t)cap * sizeof *slots);
    if (!slots)
        return CT_ERR_NOMEM;
    memset(slots, 0xff, (size_t)cap * sizeof *slots);
    physics__map old = *m;
    m->slots = slots;
    m->cap = cap;
    m->count = 0;
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.slots[i].key != PHYSICS_MAP_EMPTY)
            *physics__map_upsert(m, old.slots[i].key, 0) = old.slots[i].value;
    if (old.slots)
        ct_free(m->a, old.slots, (size_t)old.cap * sizeof *old.slots);
    return 0;
}

uint32_t *physics__map_upsert(physics__map *m, uint64_t key, uint32_t fresh)
{
    const uint32_t mask = m->cap - 1;
    for (uint32_t i = map__slot(key, mask);; i = (i + 1) & mask) {
        physics__map_slot *s = &m->slots[i];
        if (s->key == key)
            return &s->value;
        if (s->key == PHYSICS_MAP_EMPTY) {
            s->key = key;
            s->value = fresh;
            m->count++;
            return &s->value;
        }
    }
}

uint32_t physics__map_get(const physics__map *m, uint64_t key)
{
    if (!m->cap)
        return UINT32_MAX;
    const uint32_t mask = m->cap - 1;
    for (uint32_t i = map__slot(key, mask);; i = (i + 1) & mask) {
        const physics__map_slot *s = &m->slots[i];
        if (s->key == key)
            return s->value;
        if (s->key == PHYSICS_MAP_EMPTY)
            return UINT32_MAX;
    }
}

/* Backward-shift deletion: keeps probe chains unbroken without tombstones. */
void physics__map_remove(physics__map *m, uint64_t key)
{
    if (!m->cap)
        return;
    const uint32_t mask = m->cap - 1;
    uint32_t i = map__slot(key, mask);
    while (m->slots[i].key != key) {
        if (m->slots[i].key == PHYSICS_MAP_EMPTY)
            return;
        i = (i + 1) & mask;
    }
    for (uint32_t j = (i + 1) & mask; m->slots[j].key != PHYSICS_MAP_EMPTY; j = (j + 1) & mask) {
        const uint32_t home = map__slot(m->slots[j].key, mask);
        /* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
        const bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i].key = PHYSICS_MAP_EMPTY;
    m->count--;
}

void physics__map_free(physics__map *m)
{
    if (m->slots)
        ct_free(m->a, m->slots, (size_t)m->cap * sizeof *m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

static size_t soa__bytes(const physics__soa_field *f, uint32_t num_fields, uint32_t cap)
{
    size_t total = 0;
    for (uint32_t k = 0; k < num_fields; k++)
        total += ((f[k].size * cap) + 15u) & ~(size_t)15u;
    return total;
}

/* The array pointers are read and written with memcpy: they have different pointee types, and
 * going through their bytes keeps this one loop free of aliasing questions. */
int physics__soa_grow(ct_allocator_t *a, void *owner, void **buffer, const physics__soa_field *f,
                      uint32_t num_fields, uint32_t n, uint32_t old_cap, uint32_t new_cap)
{
    char *fresh = ct_alloc(a, soa__bytes(f, num_fields, new_cap));
    if (!fresh)
        return CT_ERR_NOMEM;
    char *at = fresh;
    for (uint32_t k = 0; k < num_fields; k++) {
        char *slot = (char *)owner + f[k].offset;
        void *old;
        memcpy(&old, slot, sizeof old);
        if (n)
            memcpy(at, old, f[k].size * n);
        memcpy(slot, &at, sizeof at);
        at += ((f[k].size * new_cap) + 15u) & ~(size_t)15u;
    }
    if (*buffer)
        ct_free(a, *buffer, soa__bytes(f, num_fields, old_cap));
    *buffer = fresh;
    return 0;
}

void physics__soa_free(ct_allocator_t *a, void **buffer, const physics__soa_field *f,
                       uint32_t num_fields, uint32_t cap)
{
    if (*buffer)
        ct_free(a, *buffer, soa__bytes(f, num_fields, cap));
    *buffer = NULL;
}

/* Grows an array of `size`-byte elements to at least `need` (doubling, contents dropped: every
 * user refills it). */
int physics__reserve(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    const uint32_t fresh = ct_array_capacity(*cap, need, 256);
    void *p = fresh && size <= SIZE_MAX / fresh ? ct_alloc(a, (size_t)fresh * size) : NULL;
    if (!p)
        return CT_ERR_NOMEM;
    if (*array)
        ct_free(a, *array, (size_t)*cap * size);
    *array = p;
    *cap = fresh;
    return 0;
}

/* As physics__reserve, keeping the contents. */
int physics__reserve_keep(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need,
                          size_t size)
{
    return ct_array_reserve(a, array, cap, need, size, 256) ? 0 : CT_ERR_NOMEM;
}

/* The same for structure-of-arrays buffers (physics__soa_grow), whose capacity doubles alike. */
int physics__reserve_soa(ct_allocator_t *a, void *owner, void **buffer, const physics__soa_field *f,
                         uint32_t num_fields, uint32_t *cap, uint32_t need)
{
    if (need <= *cap)
        return 0;
    const uint32_t fresh = ct_array_capacity(*cap, need, 256);
    if (!fresh || physics__soa_grow(a, owner, buffer, f, num_fields, 0, *cap, fresh))
        return CT_ERR_NOMEM;
    *cap = fresh;
    return 0;
}
