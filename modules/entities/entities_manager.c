/*
 * The EntityManager of the seed's part 1: an entity is an index into a generation array plus the
 * generation it was created with, so alive() is one load and one compare. Destroyed indices wait
 * in a FIFO ring and are reused only while more than CT_ENTITY_MIN_FREE_INDICES wait, so an index
 * comes back after at least that many others, and an id after its index went round all
 * 2^CT_ENTITY_GENERATION_BITS generations. The live limit keeps that minimum free even when
 * every index has been handed out.
 *
 * The generation array and the ring share one allocation of `capacity` slots each (a power of
 * two): the ring never holds more indices than exist, so it grows exactly when the array does.
 * All of it is entities__state->manager, so it survives a hot reload.
 */
#include <string.h>

#include "ct_array.h"
#include "entities_internal.h"

#define INDEX_MASK ((1u << CT_ENTITY_INDEX_BITS) - 1u)
#define GENERATION_MASK ((1u << CT_ENTITY_GENERATION_BITS) - 1u)
#define INDEX_LIMIT (1u << CT_ENTITY_INDEX_BITS)
#define INITIAL_CAPACITY 4096u
/* Index 0 is never handed out (so id 0 means "no entity"); this generation never matches one
 * taken from an id, so alive() needs no special case for it. */
#define RESERVED_GENERATION 0xffffu

static size_t block_size(uint32_t capacity)
{
    return (size_t)capacity * (sizeof(uint32_t) + sizeof(uint16_t));
}

/* Grows to hold at least `want` indices; the ring is unwrapped to start at 0 on the way. */
static bool reserve(uint32_t want)
{
    entities_manager_t *em = &entities__state->manager;
    if (want <= em->capacity)
        return true;
    const uint32_t capacity = ct_array_capacity(em->capacity, want, INITIAL_CAPACITY);
    void *block = ct_alloc(entities__services.a, block_size(capacity));
    if (!block) {
        entities__log(CT_LOG_ERROR, "out of memory growing the entity array to %u", capacity);
        return false;
    }
    uint32_t *ring = block;
    uint16_t *generation = (uint16_t *)(ring + capacity);
    for (uint32_t i = 0; i < em->free_count; i++)
        ring[i] = em->ring[(em->head + i) & (em->capacity - 1u)];
    if (em->used)
        memcpy(generation, em->generation, em->used * sizeof(uint16_t));
    if (em->block)
        ct_free(entities__services.a, em->block, block_size(em->capacity));
    em->block = block;
    em->ring = ring;
    em->generation = generation;
    em->capacity = capacity;
    em->head = 0;
    return true;
}

int entities__manager_init(void)
{
    entities_manager_t *em = &entities__state->manager;
    memset(em, 0, sizeof *em);
    if (!reserve(INITIAL_CAPACITY))
        return CT_ERR_NOMEM;
    em->generation[0] = RESERVED_GENERATION;
    em->used = 1;
    return 0;
}

void entities__manager_shutdown(void)
{
    entities_manager_t *em = &entities__state->manager;
    if (em->block)
        ct_free(entities__services.a, em->block, block_size(em->capacity));
    memset(em, 0, sizeof *em);
}

static inline ct_entity_t make_entity(uint32_t index)
{
    entities_manager_t *em = &entities__state->manager;
    return (ct_entity_t){index | ((uint32_t)em->generation[index] << CT_ENTITY_INDEX_BITS)};
}

/* The next index, from the ring when more than the minimum wait there, else a fresh one. The
 * caller checked that an entity may be made (the live limit keeps the minimum waiting even when
 * every index has been handed out) and reserved room for a fresh index. */
static inline uint32_t take_index(void)
{
    entities_manager_t *em = &entities__state->manager;
    if (em->free_count > CT_ENTITY_MIN_FREE_INDICES) {
        uint32_t index = em->ring[em->head];
        em->head = (em->head + 1u) & (em->capacity - 1u);
        em->free_count--;
        return index;
    }
    em->generation[em->used] = 0;
    return em->used++;
}

/* Room for the fresh indices that making n entities may take. */
static bool reserve_for(uint32_t n)
{
    entities_manager_t *em = &entities__state->manager;
    uint32_t reusable = em->free_count > CT_ENTITY_MIN_FREE_INDICES
                            ? em->free_count - CT_ENTITY_MIN_FREE_INDICES
                            : 0;
    if (n <= reusable)
        return true;
    uint64_t want = (uint64_t)em->used + (n - reusable);
    return reserve(want > INDEX_LIMIT ? INDEX_LIMIT : (uint32_t)want);
}

uint32_t entities__create_batch(ct_entity_t *out, uint32_t n)
{
    entities_manager_t *em = &entities__state->manager;
    /* Indices 1 .. CT_ENTITY_MAX_LIVE exist; CT_ENTITY_MIN_FREE_INDICES of them always wait in
     * the queue, so an id never comes back early, not even once every index has been used. */
    const uint32_t most = CT_ENTITY_MAX_LIVE - CT_ENTITY_MIN_FREE_INDICES;
    uint32_t room = most - em->live;
    if (n > room) {
        entities__log(CT_LOG_ERROR, "cannot create %u entities: %u are live (the limit is %u)", n,
                      em->live, most);
        n = room;
    }
    if (!reserve_for(n))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        out[i] = make_entity(take_index());
    em->live += n;
    return n;
}

ct_entity_t entities__create(void)
{
    ct_entity_t e = {0};
    entities__create_batch(&e, 1);
    return e;
}

bool entities__alive(ct_entity_t e)
{
    entities_manager_t *em = &entities__state->manager;
    uint32_t index = e.id & INDEX_MASK;
    return index < em->used && em->generation[index] == (e.id >> CT_ENTITY_INDEX_BITS);
}

/* Kills e if alive; the ring has room since it never holds more than `used` indices. */
static inline bool kill(ct_entity_t e)
{
    entities_manager_t *em = &entities__state->manager;
    if (!entities__alive(e))
        return false;
    uint32_t index = e.id & INDEX_MASK;
    em->generation[index] = (uint16_t)((em->generation[index] + 1u) & GENERATION_MASK);
    em->ring[(em->head + em->free_count) & (em->capacity - 1u)] = index;
    em->free_count++;
    em->live--;
    return true;
}

static void notify(const ct_entity_t *dead, uint32_t n)
{
    entities_manager_t *em = &entities__state->manager;
    if (n == 0)
        return;
    entities__worlds_entities_destroyed(dead, n);
    for (uint32_t i = 0; i < em->callbacks_end; i++) {
        if (em->callbacks[i].fn)
            em->callbacks[i].fn(em->callbacks[i].user_data, dead, n);
    }
}

void entities__destroy(ct_entity_t e)
{
    if (!kill(e)) {
        entities__log(CT_LOG_DEBUG, "destroy: entity 0x%08x is not alive", e.id);
        return;
    }
    notify(&e, 1);
}

void entities__destroy_batch(const ct_entity_t *entities, uint32_t n)
{
    uint32_t killed = 0;
    while (killed < n && kill(entities[killed]))
        killed++;
    if (killed == n) {
        notify(entities, n);
        return;
    }
    /* Some were dead (or repeated): the callbacks get only those that died here, gathered into
     * a copy since `entities` is the caller's. The copy is per call because a callback may
     * destroy more entities and come back here. */
    ct_entity_t *dead = ct_alloc(entities__services.a, (size_t)n * sizeof *dead);
    if (!dead) {
        entities__log(CT_LOG_ERROR, "out of memory in destroy_batch; destroying one by one");
        notify(entities, killed);
        for (uint32_t i = killed + 1; i < n; i++) {
            if (kill(entities[i]))
                notify(&entities[i], 1);
        }
        return;
    }
    memcpy(dead, entities, (size_t)killed * sizeof *dead);
    uint32_t num_dead = killed;
    for (uint32_t i = killed + 1; i < n; i++) {
        if (kill(entities[i]))
            dead[num_dead++] = entities[i];
    }
    notify(dead, num_dead);
    ct_free(entities__services.a, dead, (size_t)n * sizeof *dead);
}

uint32_t entities__add_destroy_callback(ct_entity_destroyed_f fn, void *user_data)
{
    entities_manager_t *em = &entities__state->manager;
    if (!fn) {
        entities__log(CT_LOG_ERROR, "add_destroy_callback: fn is NULL");
        return 0;
    }
    for (uint32_t i = 0; i < ENTITIES_MAX_DESTROY_CALLBACKS; i++) {
        if (!em->callbacks[i].fn) {
            em->callbacks[i] = (entities_destroy_callback_t){fn, user_data};
            if (em->callbacks_end < i + 1)
                em->callbacks_end = i + 1;
            return i + 1;
        }
    }
    entities__log(CT_LOG_ERROR, "add_destroy_callback: all %u slots are taken",
                  ENTITIES_MAX_DESTROY_CALLBACKS);
    return 0;
}

void entities__remove_destroy_callback(uint32_t handle)
{
    entities_manager_t *em = &entities__state->manager;
    if (handle == 0 || handle > ENTITIES_MAX_DESTROY_CALLBACKS) {
        entities__log(CT_LOG_ERROR, "remove_destroy_callback: bad handle %u", handle);
        return;
    }
    em->callbacks[handle - 1] = (entities_destroy_callback_t){NULL, NULL};
}

uint32_t entities__live_count(void) { return entities__state->manager.live; }
