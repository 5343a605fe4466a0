/*
 * Worlds: one manager per registered component type (indexed by the type's slot), each with its
 * own tracked allocator so a leaking manager is named in the report, plus the queue of script
 * callbacks.
 *
 * The callback queue is one byte buffer of records (the "queued callbacks with inline data" of the
 * seed's Managing Decoupling): no allocation per event. A run swaps it with a second buffer so
 * callbacks queued while scripts run wait for the next run instead of growing the one being read.
 *
 * The list of worlds is entities__state->worlds, so worlds outlive a hot reload of the module.
 */
#include <stdio.h>
#include <string.h>

#include "ct_array.h"
#include "entities_internal.h"

#define MAX_CALLBACK_NAME 63u
#define MAX_CALLBACK_ARGS 16u

/* One queued callback: this header, then nargs doubles, then the name and its NUL, padded to 8. */
typedef struct callback_record_t {
    uint32_t entity;
    uint16_t nargs;
    uint16_t name_len;
} callback_record_t;

/* Handle = generation << 16 | (slot + 1): never 0, and within the 47 bits a LuaJIT light
 * userdata holds. A slot's generation goes up when its world is destroyed; after 2^24 worlds in
 * one slot it wraps (skipping 0) and an old handle could match again. */
#define SLOT_BITS 16u
#define MAX_WORLDS ((1u << SLOT_BITS) - 1u)
#define GENERATION_MASK 0xffffffu

static ct_world_o *make_handle(uint32_t slot)
{
    const uint64_t gen = entities__state->worlds.slots[slot].generation;
    return (ct_world_o *)(uintptr_t)((gen << SLOT_BITS) | (slot + 1u));
}

/* The world a handle names, or NULL for a stale, foreign or NULL handle. */
static entities_world_t *resolve(const ct_world_o *handle)
{
    const entities_worlds_t *ws = &entities__state->worlds;
    const uint64_t h = (uint64_t)(uintptr_t)handle;
    const uint64_t slot = (h & MAX_WORLDS) - 1u, gen = h >> SLOT_BITS;
    if (slot >= ws->num_slots || gen != ws->slots[slot].generation)
        return NULL;
    return ws->slots[slot].world;
}

bool entities__world_valid(const ct_world_o *world) { return resolve(world) != NULL; }

static bool add_manager(entities_world_t *w, uint32_t slot)
{
    const ct_component_type_t *type = entities__type_at(slot);
    char name[128];
    snprintf(name, sizeof name, "entities.%s.%s", w->name, type->name);
    ct_allocator_t *a = entities__services.memory->create_child(entities__services.a, name);
    void *manager = a ? type->create_manager(type->user_data, w->handle, a) : NULL;
    if (!manager) {
        entities__log(CT_LOG_ERROR, "world '%s': could not create the '%s' manager", w->name,
                      type->name);
        entities__services.memory->destroy_child(a);
        return false;
    }
    w->managers[slot] = manager;
    w->allocators[slot] = a;
    return true;
}

static void remove_manager(entities_world_t *w, uint32_t slot)
{
    if (!w->managers[slot])
        return;
    const ct_component_type_t *type = entities__type_at(slot);
    type->destroy_manager(type->user_data, w->managers[slot]);
    uint64_t leaked = entities__services.memory->destroy_child(w->allocators[slot]);
    if (leaked)
        entities__log(CT_LOG_ERROR, "world '%s': the '%s' manager leaked %llu blocks", w->name,
                      type->name, (unsigned long long)leaked);
    w->managers[slot] = NULL;
    w->allocators[slot] = NULL;
}

static void free_buffer(entities_bytes_t *b)
{
    if (b->bytes)
        ct_free(entities__services.a, b->bytes, b->capacity);
    *b = (entities_bytes_t){0};
}

static void free_world(entities_world_t *w)
{
    for (uint32_t s = 0; s < ENTITIES_MAX_TYPES; s++)
        remove_manager(w, s);
    free_buffer(&w->queue);
    free_buffer(&w->run);
    ct_free(entities__services.a, w, sizeof *w);
}

/* Truncation backs up to the start of a UTF-8 character, so a cut never leaves half of one. */
void entities__copy_utf8(char *to, size_t size, const char *from)
{
    size_t len = strnlen(from, size - 1u);
    if (from[len] != '\0') {
        while (len > 0 && ((unsigned char)from[len] & 0xC0u) == 0x80u)
            len--;
    }
    memcpy(to, from, len);
    memset(to + len, 0, size - len);
}

/* A free slot (the lowest), growing the table when all are taken; -1 when out of memory or at
 * MAX_WORLDS. */
static int64_t free_slot(void)
{
    entities_worlds_t *ws = &entities__state->worlds;
    for (uint32_t s = 0; s < ws->num_slots; s++) {
        if (!ws->slots[s].world)
            return s;
    }
    if (ws->num_slots == MAX_WORLDS) {
        entities__log(CT_LOG_ERROR, "create_world: %u worlds exist, the most there can be",
                      MAX_WORLDS);
        return -1;
    }
    if (!ct_array_reserve_of(entities__services.a, &ws->slots, &ws->capacity, ws->num_slots + 1, 8))
        return -1;
    ws->slots[ws->num_slots] = (entities_world_slot_t){NULL, 1};
    return ws->num_slots++;
}

ct_world_o *entities__create_world(const ct_world_desc_t *desc)
{
    entities__drop_orphan_types();
    entities_worlds_t *ws = &entities__state->worlds;
    const int64_t slot = free_slot();
    entities_world_t *w = slot >= 0 ? ct_alloc(entities__services.a, sizeof *w) : NULL;
    if (!w) {
        entities__log(CT_LOG_ERROR, "create_world: out of memory");
        return NULL;
    }
    memset(w, 0, sizeof *w);
    w->handle = make_handle((uint32_t)slot);
    entities__copy_utf8(w->name, sizeof w->name, desc && desc->name ? desc->name : "world");
    uint32_t n;
    const uint32_t *order = entities__spawn_order(&n);
    for (uint32_t i = 0; i < n; i++) {
        if (!add_manager(w, order[i])) {
            free_world(w);
            return NULL;
        }
    }
    ws->slots[slot].world = w;
    ws->count++;
    entities__notify_world(w->handle, CT_WORLD_CREATED);
    return w->handle;
}

void entities__destroy_world(ct_world_o *world)
{
    if (!world)
        return;
    entities_world_t *w = resolve(world);
    if (!w) {
        entities__log(CT_LOG_ERROR, "destroy_world: %p is not a live world (destroyed already?)",
                      (void *)world);
        return;
    }
    entities__notify_world(world, CT_WORLD_DESTROYED);
    entities_worlds_t *ws = &entities__state->worlds;
    entities_world_slot_t *slot = &ws->slots[((uintptr_t)world & MAX_WORLDS) - 1u];
    slot->world = NULL;
    slot->generation = (slot->generation + 1u) & GENERATION_MASK;
    if (slot->generation == 0)
        slot->generation = 1;
    ws->count--;
    free_world(w);
}

uint32_t entities__world_count(void) { return entities__state->worlds.count; }

/* The i-th live world in slot order: a walk over the slots, since worlds are few. */
ct_world_o *entities__world_at(uint32_t i)
{
    const entities_worlds_t *ws = &entities__state->worlds;
    for (uint32_t s = 0; s < ws->num_slots && i < ws->count; s++) {
        if (ws->slots[s].world && i-- == 0)
            return ws->slots[s].world->handle;
    }
    return NULL;
}

void entities__destroy_all_worlds(void)
{
    entities_worlds_t *ws = &entities__state->worlds;
    for (uint32_t s = ws->num_slots; s-- > 0;) {
        if (ws->slots[s].world)
            entities__destroy_world(ws->slots[s].world->handle);
    }
    if (ws->slots)
        ct_free(entities__services.a, ws->slots, ws->capacity * sizeof *ws->slots);
    *ws = (entities_worlds_t){0};
}

void *entities__world_manager(ct_world_o *world, uint64_t type_id)
{
    entities_world_t *w = resolve(world);
    int slot = w ? entities__type_slot(type_id) : -1;
    return slot >= 0 ? w->managers[slot] : NULL;
}

void *entities__world_manager_at(ct_world_o *world, uint32_t slot)
{
    entities_world_t *w = resolve(world);
    return w && slot < ENTITIES_MAX_TYPES ? w->managers[slot] : NULL;
}

void entities__worlds_add_type(uint32_t slot)
{
    entities_worlds_t *ws = &entities__state->worlds;
    for (uint32_t s = 0; s < ws->num_slots; s++) {
        if (ws->slots[s].world)
            add_manager(ws->slots[s].world, slot);
    }
}

void entities__worlds_remove_type(uint32_t slot)
{
    entities_worlds_t *ws = &entities__state->worlds;
    for (uint32_t s = 0; s < ws->num_slots; s++) {
        if (ws->slots[s].world)
            remove_manager(ws->slots[s].world, slot);
    }
}

void entities__worlds_entities_destroyed(const ct_entity_t *entities, uint32_t n)
{
    const entities_worlds_t *ws = &entities__state->worlds;
    if (ws->count == 0)
        return;
    uint32_t num_types;
    const uint32_t *order = entities__spawn_order(&num_types);
    for (uint32_t t = 0; t < num_types; t++) {
        const ct_component_type_t *type = entities__type_at(order[t]);
        if (!type->destroyed)
            continue;
        for (uint32_t s = 0; s < ws->num_slots; s++) {
            const entities_world_t *w = ws->slots[s].world;
            if (w && w->managers[order[t]])
                type->destroyed(w->managers[order[t]], entities, n);
        }
    }
}

void entities__collect_garbage(ct_world_o *handle)
{
    entities_world_t *world = resolve(handle);
    if (!world) {
        entities__log(CT_LOG_ERROR, "collect_garbage: %p is not a live world", (void *)handle);
        return;
    }
    uint32_t num_types;
    const uint32_t *order = entities__spawn_order(&num_types);
    for (uint32_t t = 0; t < num_types; t++) {
        const ct_component_type_t *type = entities__type_at(order[t]);
        if (type->gc && world->managers[order[t]])
            type->gc(world->managers[order[t]]);
    }
}

void entities__collect_garbage_all(void)
{
    entities__drop_orphan_types();
    const entities_worlds_t *ws = &entities__state->worlds;
    for (uint32_t s = 0; s < ws->num_slots; s++) {
        if (ws->slots[s].world)
            entities__collect_garbage(ws->slots[s].world->handle);
    }
}

static uint32_t record_size(uint32_t nargs, uint32_t name_len)
{
    uint32_t size =
        (uint32_t)sizeof(callback_record_t) + nargs * (uint32_t)sizeof(double) + name_len + 1u;
    return (size + 7u) & ~7u;
}

/* Callbacks that nothing runs are not kept for ever (a tool or a server stepping physics without
 * World.run_callbacks, a test calling simulate alone: its queue grew by every event of every
 * step, 19 MB in 10,000 steps of 60 balls passing a sensor). A queue that one more record would
 * take past ENTITIES_QUEUE_LIMIT bytes (some 47,000 collision callbacks) drops its older half
 * first, logged once until the next run: it stays under the limit however long nothing runs it,
 * and a run far behind gets the newest. */
#define ENTITIES_QUEUE_LIMIT (4u << 20)

/* Drops the records of world's queue that start in its first half. */
static void drop_older_half(entities_world_t *world)
{
    entities_bytes_t *q = &world->queue;
    uint32_t at = 0;
    while (at < q->size / 2) {
        callback_record_t header;
        memcpy(&header, q->bytes + at, sizeof header);
        at += record_size(header.nargs, header.name_len);
    }
    if (!world->dropping)
        entities__log(CT_LOG_WARNING,
                      "queue_callback: world '%s': %u bytes of script callbacks queued and not "
                      "run (World.run_callbacks); the older half is dropped (logged once until "
                      "the next run)",
                      world->name, q->size);
    world->dropping = true;
    memmove(q->bytes, q->bytes + at, q->size - at);
    q->size -= at;
}

int entities__queue_callback(ct_world_o *handle, ct_entity_t entity, const char *callback,
                             const double *args, uint32_t n)
{
    entities_world_t *world = resolve(handle);
    size_t name_len = callback ? strlen(callback) : 0;
    if (!world || name_len == 0 || name_len > MAX_CALLBACK_NAME || n > MAX_CALLBACK_ARGS ||
        (n && !args)) {
        entities__log(CT_LOG_ERROR,
                      "queue_callback: bad arguments (world %p, callback '%s', %u "
                      "args)",
                      (void *)handle, callback ? callback : "(null)", n);
        return CT_ERR_INVALID;
    }
    entities_bytes_t *q = &world->queue;
    uint32_t size = record_size(n, (uint32_t)name_len);
    if (q->size + size > ENTITIES_QUEUE_LIMIT)
        drop_older_half(world);
    if (size > q->capacity - q->size &&
        !ct_array_reserve_of(entities__services.a, &q->bytes, &q->capacity, q->size + size, 1024))
        return CT_ERR_NOMEM;
    uint8_t *at = q->bytes + q->size;
    callback_record_t header = {entity.id, (uint16_t)n, (uint16_t)name_len};
    memset(at, 0, size);
    memcpy(at, &header, sizeof header);
    if (n)
        memcpy(at + sizeof header, args, n * sizeof(double));
    memcpy(at + sizeof header + n * sizeof(double), callback, name_len);
    q->size += size;
    return 0;
}

/* A run that is still in progress when the next one starts was abandoned: a callback raised an
 * error out of the run or yielded and was not resumed. Its remaining callbacks are dropped (and
 * reported) instead of blocking every later run. */
uint32_t entities__take_callbacks(ct_world_o *handle)
{
    entities_world_t *world = resolve(handle);
    if (!world)
        return 0;
    if (world->run_serial && world->run_cursor < world->run.size)
        entities__log(CT_LOG_WARNING,
                      "world '%s': the previous World.run_callbacks did not finish "
                      "(a callback raised an error out of it or yielded); %u bytes of its queued "
                      "callbacks are dropped",
                      world->name, world->run.size - world->run_cursor);
    entities_bytes_t swap = world->run;
    world->run = world->queue;
    world->queue = swap;
    world->queue.size = 0;
    world->dropping = false;
    world->run_cursor = 0;
    world->run_serial = ++world->runs ? world->runs : ++world->runs;
    return world->run_serial;
}

bool entities__next_callback(ct_world_o *handle, uint32_t run, ct_entity_t *entity,
                             const char **callback, const double **args, uint32_t *n)
{
    entities_world_t *world = resolve(handle);
    if (!world || run == 0 || run != world->run_serial)
        return false;
    if (world->run_cursor >= world->run.size) {
        world->run_serial = 0;
        return false;
    }
    const uint8_t *at = world->run.bytes + world->run_cursor;
    callback_record_t header;
    memcpy(&header, at, sizeof header);
    entity->id = header.entity;
    *n = header.nargs;
    /* Records start at multiples of 8 in an allocator block, so the doubles are aligned. */
    *args = (const double *)(const void *)(at + sizeof header);
    *callback = (const char *)(at + sizeof header + header.nargs * sizeof(double));
    world->run_cursor += record_size(header.nargs, header.name_len);
    return true;
}
