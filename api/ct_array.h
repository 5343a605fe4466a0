/*
 * ct_array.h: growing an array through a ct_allocator_t (an SDK helper, no API id: inline
 * functions only): the capacity doubles, from a first size, until what is needed fits, so
 * appending n elements one by one costs O(n) copies.
 *
 *     typedef struct { float *items; uint32_t count, capacity; } floats_t;
 *     if (!ct_array_reserve_of(a, &v->items, &v->capacity, v->count + 1, 16))
 *         return CT_ERR_NOMEM;                 // nothing changed
 *     v->items[v->count++] = x;
 *
 * An array of several columns (structure of arrays) takes its new capacity from
 * ct_array_capacity and reallocates each column itself.
 */
#ifndef CT_ARRAY_H
#define CT_ARRAY_H

#include <string.h>

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The capacity that holds `needed` elements, grown from `capacity` by doubling (from `first`
 * when it is 0; `first` 0 counts as 1); `capacity` itself when it holds them already, and 0 when
 * the doubling would pass UINT32_MAX. */
static inline uint32_t ct_array_capacity(uint32_t capacity, uint32_t needed, uint32_t first)
{
    if (needed <= capacity)
        return capacity;
    uint64_t grown = capacity ? capacity : (first ? first : 1u);
    while (grown < needed)
        grown *= 2u;
    return grown <= UINT32_MAX ? (uint32_t)grown : (needed <= UINT32_MAX ? UINT32_MAX : 0u);
}

/*
 * Makes the array whose pointer is at `items` (a `T **` passed as void *: `*capacity` elements
 * of `size` bytes, from `a`) hold at least `needed`, keeping its elements. true, or false with
 * nothing changed when `a` has no memory or the bytes would not fit a size_t.
 */
static inline bool ct_array_reserve(ct_allocator_t *a, void *items, uint32_t *capacity,
                                    uint32_t needed, size_t size, uint32_t first)
{
    const uint32_t grown = ct_array_capacity(*capacity, needed, first);
    if (grown == *capacity)
        return true;
    if (!grown || size > SIZE_MAX / grown)
        return false;
    void *old;
    memcpy(&old, items, sizeof old);
    void *p = ct_realloc(a, old, (size_t)*capacity * size, (size_t)grown * size);
    if (!p)
        return false;
    memcpy(items, &p, sizeof p);
    *capacity = grown;
    return true;
}

/* ct_array_reserve with the element size taken from the array's type. */
#define ct_array_reserve_of(a, items, capacity, needed, first)                                     \
    ct_array_reserve((a), (items), (capacity), (needed), sizeof **(items), (first))

#ifdef __cplusplus
}
#endif
#endif
