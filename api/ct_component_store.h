/*
 * ct_component_store.h: the storage of a component manager, written once (an SDK helper, no API
 * id: inline functions only), so a component's author writes its fields and its logic, not the
 * bookkeeping every manager repeats.
 *
 * What it keeps, for one world:
 *   columns   one array per field of the component (structure of arrays), all `n` long: instance
 *             i of every column belongs to entity[i]. Columns are zeroed when an instance is added.
 *   entity    the entity of each instance;
 *   index     a paged index from an entity's index to its instance (ct_entity_pages_t of
 *             ct_entity.h: two loads per lookup, whatever order entities came and went in);
 *   removal   swap-erase: the last instance moves into the freed place (instances stay packed;
 *             their order changes), and the `destroyed` callback sees the instance before it goes;
 *   GC        ct_component_store_gc removes, a few random probes at a time, instances whose entity
 *             died without the manager being told (the seed post's lazy collection).
 *
 *     enum { HEALTH_VALUE, HEALTH_REGEN, HEALTH_COLUMNS };
 *     static const uint32_t sizes[HEALTH_COLUMNS] = {sizeof(float), sizeof(float)};
 *     ct_component_store_t s;
 *     if (!ct_component_store_init(&s, a, sizes, HEALTH_COLUMNS)) return NULL;
 *     uint32_t i = ct_component_store_add(&s, e);            // CT_STORE_NONE: out of memory
 *     CT_STORE_COLUMN(&s, HEALTH_VALUE, float)[i] = 100.0f;
 *     ct_component_store_remove(&s, e);                      // from the type's `destroyed`
 *     ct_component_store_gc(&s, alive, world, &rng, 4);      // once a frame, `gc` of the type
 *     ct_component_store_free(&s);                           // destroy_manager
 *
 * Single-threaded like the manager that holds it. Every allocation comes from the allocator given
 * to init (the manager's tracked allocator), so leaks are reported against the component's plugin.
 */
#ifndef CT_COMPONENT_STORE_H
#define CT_COMPONENT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ct_entity.h"
#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many columns (fields) per store. */
#define CT_STORE_MAX_COLUMNS 16u
/* "No instance": what lookup answers for an entity without one, and add when memory ran out. */
#define CT_STORE_NONE 0xffffffffu

struct ct_component_store_t;
/* Called with the instance about to be removed (its columns still hold its data). */
typedef void (*ct_store_destroyed_f)(void *user_data, struct ct_component_store_t *s,
                                     uint32_t instance);
/* Whether `e` is alive (for GC); e.g. a wrapper of ct_entity_api_v2.alive. */
typedef bool (*ct_store_alive_f)(void *user_data, ct_entity_t e);

/* One world's storage of a component (see the top); fields read-only but through the functions
 * below, except the columns' contents and `destroyed`/`user_data`, which the manager sets. */
typedef struct ct_component_store_t {
    ct_allocator_t *a; /* every column, the entities and the index come from it */
    uint32_t n;        /* live instances */
    uint32_t capacity; /* rows each column has room for */
    uint32_t num_columns;
    uint32_t column_size[CT_STORE_MAX_COLUMNS]; /* bytes per row */
    void *column[CT_STORE_MAX_COLUMNS];
    ct_entity_t *entity;     /* n entries: the entity of each instance */
    ct_entity_pages_t index; /* entity index -> instance + 1 (0: none) */
    /* Optional: called by remove and gc before an instance goes. */
    ct_store_destroyed_f destroyed;
    void *user_data;
} ct_component_store_t;

/* Column k of the store as an array of `type` (which must be column_size[k] bytes). */
#define CT_STORE_COLUMN(s, k, type) ((type *)(s)->column[(k)])

/* An empty store with `num_columns` columns of the given row sizes; false when num_columns is 0 or
 * above CT_STORE_MAX_COLUMNS or a size is 0. Allocates nothing yet. */
static inline bool ct_component_store_init(ct_component_store_t *s, ct_allocator_t *a,
                                           const uint32_t *column_sizes, uint32_t num_columns)
{
    memset(s, 0, sizeof *s);
    if (!a || num_columns == 0 || num_columns > CT_STORE_MAX_COLUMNS)
        return false;
    for (uint32_t k = 0; k < num_columns; k++) {
        if (column_sizes[k] == 0)
            return false;
        s->column_size[k] = column_sizes[k];
    }
    s->a = a;
    s->num_columns = num_columns;
    return true;
}

/* Frees every column, the entities and the index (no callbacks); leaves an empty store. */
static inline void ct_component_store_free(ct_component_store_t *s)
{
    for (uint32_t k = 0; k < s->num_columns; k++) {
        if (s->column[k])
            ct_free(s->a, s->column[k], (size_t)s->capacity * s->column_size[k]);
        s->column[k] = NULL;
    }
    if (s->entity)
        ct_free(s->a, s->entity, (size_t)s->capacity * sizeof *s->entity);
    s->entity = NULL;
    if (s->a)
        ct_entity_pages_free(&s->index, s->a);
    s->n = s->capacity = 0;
}

/* The instance of `e`, or CT_STORE_NONE (also for an older entity of the same index). */
static inline uint32_t ct_component_store_lookup(const ct_component_store_t *s, ct_entity_t e)
{
    const uint32_t *at = ct_entity_pages_entry(&s->index, e);
    return at && *at && s->entity[*at - 1u].id == e.id ? *at - 1u : CT_STORE_NONE;
}

/* Grows every column to `capacity` rows, all or nothing: new blocks are taken first, so a failure
 * leaves the store as it was. */
static inline bool ct_component_store__grow(ct_component_store_t *s, uint32_t capacity)
{
    void *grown[CT_STORE_MAX_COLUMNS + 1];
    uint32_t k = 0;
    for (; k <= s->num_columns; k++) {
        const size_t row = k < s->num_columns ? s->column_size[k] : sizeof(ct_entity_t);
        grown[k] = ct_alloc(s->a, (size_t)capacity * row);
        if (!grown[k])
            break;
    }
    if (k <= s->num_columns) {
        while (k-- > 0)
            ct_free(s->a, grown[k],
                    (size_t)capacity *
                        (k < s->num_columns ? s->column_size[k] : sizeof(ct_entity_t)));
        return false;
    }
    for (k = 0; k <= s->num_columns; k++) {
        const size_t row = k < s->num_columns ? s->column_size[k] : sizeof(ct_entity_t);
        void **old = k < s->num_columns ? &s->column[k] : (void **)&s->entity;
        if (*old) {
            memcpy(grown[k], *old, (size_t)s->n * row);
            ct_free(s->a, *old, (size_t)s->capacity * row);
        }
        *old = grown[k];
    }
    s->capacity = capacity;
    return true;
}

/* Adds an instance for `e` with every column zeroed and returns it; the existing instance when
 * `e` has one already; CT_STORE_NONE when memory ran out (the store unchanged). */
static inline uint32_t ct_component_store_add(ct_component_store_t *s, ct_entity_t e)
{
    const uint32_t have = ct_component_store_lookup(s, e);
    if (have != CT_STORE_NONE)
        return have;
    if (!ct_entity_pages_reserve(&s->index, s->a, e))
        return CT_STORE_NONE;
    if (s->n == s->capacity && !ct_component_store__grow(s, s->capacity ? s->capacity * 2u : 16u))
        return CT_STORE_NONE;
    const uint32_t i = s->n++;
    for (uint32_t k = 0; k < s->num_columns; k++)
        memset((char *)s->column[k] + (size_t)i * s->column_size[k], 0, s->column_size[k]);
    s->entity[i] = e;
    *ct_entity_pages_entry(&s->index, e) = i + 1u;
    return i;
}

/* Removes instance i: `destroyed` sees it first, then the last instance moves into its place. */
static inline void ct_component_store_remove_at(ct_component_store_t *s, uint32_t i)
{
    if (i >= s->n)
        return;
    if (s->destroyed)
        s->destroyed(s->user_data, s, i);
    const uint32_t last = --s->n;
    *ct_entity_pages_entry(&s->index, s->entity[i]) = 0;
    if (i != last) {
        for (uint32_t k = 0; k < s->num_columns; k++) {
            char *col = (char *)s->column[k];
            memcpy(col + (size_t)i * s->column_size[k], col + (size_t)last * s->column_size[k],
                   s->column_size[k]);
        }
        s->entity[i] = s->entity[last];
        *ct_entity_pages_entry(&s->index, s->entity[i]) = i + 1u;
    }
}

/* Removes e's instance; false when it has none. */
static inline bool ct_component_store_remove(ct_component_store_t *s, ct_entity_t e)
{
    const uint32_t i = ct_component_store_lookup(s, e);
    if (i == CT_STORE_NONE)
        return false;
    ct_component_store_remove_at(s, i);
    return true;
}

/* Lazy garbage collection: looks at random instances (xorshift on *rng, which must not be 0) and
 * removes those whose entity is dead, until `probes` live ones in a row were seen or the store is
 * empty. Returns how many were removed. Call it every frame with a few probes: a store whose
 * entities die without telling it empties over frames at no cost to the frames where none die. */
static inline uint32_t ct_component_store_gc(ct_component_store_t *s, ct_store_alive_f alive,
                                             void *user_data, uint32_t *rng, uint32_t probes)
{
    uint32_t removed = 0, alive_in_a_row = 0;
    while (s->n > 0 && alive_in_a_row < probes) {
        uint32_t x = *rng ? *rng : 0x9e3779b9u;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *rng = x;
        const uint32_t i = x % s->n;
        if (alive(user_data, s->entity[i])) {
            alive_in_a_row++;
        } else {
            ct_component_store_remove_at(s, i);
            removed++;
            alive_in_a_row = 0;
        }
    }
    return removed;
}

#ifdef __cplusplus
}
#endif
#endif
