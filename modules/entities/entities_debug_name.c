/*
 * The debug-name component, the reference component manager (the seed's part 2):
 *   - instance data as a structure of arrays (entity[], name[]) in one allocation, together with
 *     the entity -> instance hash, so growing is one allocation and one free;
 *   - the hash is open addressing with linear probing at most half full, keyed by entity id
 *     (0 marks an empty slot, and id 0 is never an entity); removal shifts later members of the
 *     probe run back, so there are no tombstones and lookups never slow down with churn;
 *   - a batch (spawning) grows the storage once for all its instances;
 *   - removal swaps the last instance into the hole (the arrays stay packed for linear walks) and
 *     repoints that instance's hash entry;
 *   - names of dead entities go in the entity destroy callback, in the batch it gives.
 */
#include <string.h>

#include "entities_internal.h"

typedef struct debug_name_manager_t {
    ct_allocator_t *a;
    void *block;
    size_t block_size;
    uint32_t n;
    uint32_t capacity;
    ct_entity_t *entity;
    char (*name)[CT_DEBUG_NAME_MAX];
    uint32_t *map_key;   /* entity ids; 0 is empty */
    uint32_t *map_value; /* instance indices */
    uint16_t *generation; /* per instance slot, 1..1023: goes up when the slot's name moves or goes */
    uint32_t map_mask;   /* the map has 2 * capacity slots */
    uint32_t map_shift;  /* 32 - log2 of the map's groups of HOME_GROUP slots */
} debug_name_manager_t;

/* Entities with neighbouring indices share a group of this many map slots (a 64-byte line of
 * keys); see home(). */
#define HOME_GROUP_BITS 4u
#define HOME_GROUP (1u << HOME_GROUP_BITS)
#define MIN_CAPACITY 64u

/* An instance handle is (slot generation << 22) | (slot + 1); one with generation 0 is a plain
 * position, 1..count(), for walking the manager as it is now (see ct_world.h). */
#define INDEX_BITS 22u
#define INDEX_MASK ((1u << INDEX_BITS) - 1u)
#define GENERATION_MASK 0x3ffu

static size_t bytes_for(uint32_t capacity)
{
    return (size_t)capacity * (sizeof(ct_entity_t) + CT_DEBUG_NAME_MAX +
                               2u * 2u * sizeof(uint32_t) + sizeof(uint16_t));
}

/* The home slot keeps the low bits of the entity index and scatters the groups above them
 * (Fibonacci hashing). Entities made together have neighbouring indices, so a batch fills whole
 * groups, one cache line per HOME_GROUP entities, instead of one miss per entity as with a fully
 * mixing hash. The index bits alone (index & mask) measured 4x slower at 1M entities (123 against
 * 30 ns per add): indices that wrap around the map (recycled ones past the map size) land on the
 * slots of low indices, and every insert after them walks that whole run. */
static inline uint32_t home(const debug_name_manager_t *m, uint32_t id)
{
    uint32_t index = ct_entity_index((ct_entity_t){id});
    uint32_t group = ((index >> HOME_GROUP_BITS) * 0x9e3779b1u) >> m->map_shift;
    return (group << HOME_GROUP_BITS) | (index & (HOME_GROUP - 1u));
}

/* The map slot holding id, or the empty slot where it would go. */
static uint32_t find_slot(const debug_name_manager_t *m, uint32_t id)
{
    uint32_t i = home(m, id);
    while (m->map_key[i] != 0 && m->map_key[i] != id)
        i = (i + 1u) & m->map_mask;
    return i;
}

static void map_erase(debug_name_manager_t *m, uint32_t id)
{
    uint32_t hole = find_slot(m, id);
    if (m->map_key[hole] == 0)
        return;
    for (uint32_t j = (hole + 1u) & m->map_mask; m->map_key[j] != 0; j = (j + 1u) & m->map_mask) {
        /* The entry at j may fill the hole only if its home is not in (hole, j] cyclically:
         * otherwise moving it before its home would hide it from lookups. */
        uint32_t k = home(m, m->map_key[j]);
        bool stays = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j);
        if (stays)
            continue;
        m->map_key[hole] = m->map_key[j];
        m->map_value[hole] = m->map_value[j];
        hole = j;
    }
    m->map_key[hole] = 0;
}

static uint32_t log2_of(uint32_t power_of_two)
{
    uint32_t bits = 0;
    while ((1u << bits) < power_of_two)
        bits++;
    return bits;
}

/* Room for `want` instances: capacity doubles until it fits, so a batch grows once and single
 * adds grow geometrically. One allocation; each array is copied once and the map is rebuilt
 * (only the map needs clearing: the arrays past n are written before they are read). */
static bool reserve(debug_name_manager_t *m, uint32_t want)
{
    if (want <= m->capacity)
        return true;
    uint32_t capacity = m->capacity ? m->capacity : MIN_CAPACITY;
    while (capacity < want) {
        if (capacity > UINT32_MAX / 4u)
            return false;
        capacity *= 2u;
    }
    size_t size = bytes_for(capacity);
    void *block = ct_alloc(m->a, size);
    if (!block)
        return false;
    ct_entity_t *entity = block;
    char(*name)[CT_DEBUG_NAME_MAX] = (void *)(entity + capacity);
    uint32_t *map_key = (uint32_t *)(void *)(name + capacity);
    uint32_t *map_value = map_key + 2u * capacity;
    uint16_t *generation = (uint16_t *)(void *)(map_value + 2u * capacity);
    memset(map_key, 0, 2u * capacity * sizeof *map_key);
    /* Every slot's generation is kept, free ones too: a handle to a freed slot stays stale. */
    for (uint32_t i = m->capacity; i < capacity; i++)
        generation[i] = 1;
    if (m->block) {
        memcpy(entity, m->entity, m->n * sizeof *entity);
        memcpy(name, m->name, m->n * sizeof *name);
        memcpy(generation, m->generation, m->capacity * sizeof *generation);
        ct_free(m->a, m->block, m->block_size);
    }
    m->block = block;
    m->block_size = size;
    m->capacity = capacity;
    m->entity = entity;
    m->name = name;
    m->map_key = map_key;
    m->map_value = map_value;
    m->generation = generation;
    m->map_mask = 2u * capacity - 1u;
    m->map_shift = 32u - (log2_of(2u * capacity) - HOME_GROUP_BITS);
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t slot = find_slot(m, entity[i].id);
        map_key[slot] = entity[i].id;
        map_value[slot] = i;
    }
    return true;
}

static void copy_name(char *to, const char *from)
{
    entities__copy_utf8(to, CT_DEBUG_NAME_MAX, from);
}

/* The instance of e, appended if e has none yet; the caller made room for one more. */
static uint32_t instance_of(debug_name_manager_t *m, ct_entity_t e)
{
    uint32_t slot = find_slot(m, e.id);
    if (m->map_key[slot] == 0) {
        m->map_key[slot] = e.id;
        m->map_value[slot] = m->n;
        m->entity[m->n++] = e;
    }
    return m->map_value[slot];
}

static int set_name(debug_name_manager_t *m, ct_entity_t e, const char *name)
{
    /* Full is fine when e only renames: room is made only when it would be appended. */
    if (m->n == m->capacity && (m->n == 0 || m->map_key[find_slot(m, e.id)] == 0) &&
        !reserve(m, m->n + 1u))
        return CT_ERR_NOMEM;
    copy_name(m->name[instance_of(m, e)], name);
    return 0;
}

static void next_generation(debug_name_manager_t *m, uint32_t i)
{
    const uint16_t g = (uint16_t)((m->generation[i] + 1u) & GENERATION_MASK);
    m->generation[i] = g ? g : 1u;
}

/* Swap-erase: both slots change meaning (i takes the last name, the last slot goes free). */
static void remove_entity(debug_name_manager_t *m, ct_entity_t e)
{
    uint32_t slot = find_slot(m, e.id);
    if (m->map_key[slot] == 0)
        return;
    uint32_t i = m->map_value[slot];
    uint32_t last = --m->n;
    next_generation(m, i);
    next_generation(m, last);
    if (i != last) {
        m->entity[i] = m->entity[last];
        memcpy(m->name[i], m->name[last], CT_DEBUG_NAME_MAX);
        m->map_value[find_slot(m, m->entity[i].id)] = i;
    }
    map_erase(m, e.id);
}

/* The component type's callbacks. */

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    (void)world;
    debug_name_manager_t *m = ct_alloc(a, sizeof *m);
    if (!m)
        return NULL;
    memset(m, 0, sizeof *m);
    m->a = a;
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    debug_name_manager_t *m = manager;
    if (m->block)
        ct_free(m->a, m->block, m->block_size);
    ct_free(m->a, m, sizeof *m);
}

static int compile(void *user_data, const ct_data_o *source, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_data_api_v1 *data = entities__services.data;
    static const ct_field_t fields[] = {{"name", CT_DATA_STRING, 0}};
    if (!entities__services.resource->check_fields(ctx, source, "debug_name", fields, 1))
        return CT_ERR_BAD_DATA;
    const char *name = data->string(data->get(source, "name"), NULL);
    if (!name) {
        entities__services.resource->compile_error(ctx, "debug_name: `name` must be a string");
        return CT_ERR_BAD_DATA;
    }
    if (strlen(name) >= CT_DEBUG_NAME_MAX)
        entities__services.resource->compile_warning(
            ctx, "debug_name: '%s' is longer than %u bytes and is truncated", name,
            CT_DEBUG_NAME_MAX - 1u);
    copy_name(out, name);
    return 0;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    debug_name_manager_t *m = manager;
    const char(*names)[CT_DEBUG_NAME_MAX] = data;
    if (n > UINT32_MAX - m->n || !reserve(m, m->n + n)) {
        entities__log(CT_LOG_ERROR, "debug_name: out of memory spawning %u names", n);
        entities__spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    /* Compiled names are already NUL-padded to CT_DEBUG_NAME_MAX (see compile), so each is one
     * fixed-size copy; the last byte is still forced to NUL in case a blob was not made by us. */
    for (uint32_t i = 0; i < n; i++) {
        char *to = m->name[instance_of(m, ctx->entity_lookup[entity_index[i]])];
        memcpy(to, names[i], CT_DEBUG_NAME_MAX);
        to[CT_DEBUG_NAME_MAX - 1u] = 0;
    }
}

static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    debug_name_manager_t *m = manager;
    if (m->n == 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        remove_entity(m, entities[i]);
}

static const ct_component_type_t debug_name_type = {
    .name = "debug_name",
    .spawn_order = 1000,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = CT_DEBUG_NAME_MAX,
    .compile = compile,
    .spawn = spawn,
    .destroyed = destroyed,
};

int entities__debug_name_init(void)
{
    entities_state_t *s = entities__state;
    s->debug_name_type_id = entities__register_type(&debug_name_type);
    if (!s->debug_name_type_id)
        return CT_ERR_CONFLICT;
    s->debug_name_type_slot = (uint32_t)entities__type_slot(s->debug_name_type_id);
    return 0;
}

bool entities__debug_name_rebind(ct_component_type_t *previous)
{
    const ct_component_type_t *now = entities__type_at(entities__state->debug_name_type_slot);
    *previous = now ? *now : debug_name_type;
    return entities__replace_type(&debug_name_type);
}

void entities__debug_name_shutdown(void)
{
    entities_state_t *s = entities__state;
    if (s->debug_name_type_id)
        entities__unregister_type(s->debug_name_type_id);
    s->debug_name_type_id = 0;
}

/* ct_debug_name_api_v1 */

static debug_name_manager_t *manager_of(ct_world_o *world)
{
    const entities_state_t *s = entities__state;
    return s->debug_name_type_id && entities__world_valid(world)
               ? entities__world_manager_at(world, s->debug_name_type_slot)
               : NULL;
}

static ct_debug_name_instance_t api_lookup(ct_world_o *world, ct_entity_t e)
{
    debug_name_manager_t *m = manager_of(world);
    if (!m || m->n == 0 || e.id == 0)
        return (ct_debug_name_instance_t){0};
    uint32_t slot = find_slot(m, e.id);
    if (!m->map_key[slot])
        return (ct_debug_name_instance_t){0};
    const uint32_t i = m->map_value[slot];
    return (ct_debug_name_instance_t){((uint32_t)m->generation[i] << INDEX_BITS) | (i + 1u)};
}

/* The slot a handle names, or -1 (a stale one logged). */
static int64_t slot_of(const debug_name_manager_t *m, ct_debug_name_instance_t h, const char *what)
{
    const uint32_t position = h.i & INDEX_MASK, gen = h.i >> INDEX_BITS;
    if (position == 0 || position > m->n)
        return -1;
    if (gen != 0 && gen != m->generation[position - 1u]) {
        entities__log(CT_LOG_WARNING, "debug_name.%s: instance 0x%08x is stale (its name was "
                      "removed or moved)", what, h.i);
        return -1;
    }
    return position - 1u;
}

static const char *api_name(ct_world_o *world, ct_debug_name_instance_t i)
{
    debug_name_manager_t *m = manager_of(world);
    const int64_t s = m ? slot_of(m, i, "name") : -1;
    return s >= 0 ? m->name[s] : NULL;
}

static ct_entity_t api_entity(ct_world_o *world, ct_debug_name_instance_t i)
{
    debug_name_manager_t *m = manager_of(world);
    const int64_t s = m ? slot_of(m, i, "entity") : -1;
    return s >= 0 ? m->entity[s] : (ct_entity_t){0};
}

static int api_set(ct_world_o *world, ct_entity_t e, const char *name)
{
    debug_name_manager_t *m = manager_of(world);
    if (!m || !name) {
        entities__log(CT_LOG_ERROR, "debug_name.set: no world %p or no name", (void *)world);
        return CT_ERR_INVALID;
    }
    if (!entities__alive(e)) {
        entities__log(CT_LOG_DEBUG, "debug_name.set: entity 0x%08x is not alive", e.id);
        return CT_ERR_STALE;
    }
    return set_name(m, e, name);
}

static void api_remove(ct_world_o *world, ct_entity_t e)
{
    debug_name_manager_t *m = manager_of(world);
    if (m && e.id && m->n)
        remove_entity(m, e);
}

static uint32_t api_count(ct_world_o *world)
{
    debug_name_manager_t *m = manager_of(world);
    return m ? m->n : 0;
}

const ct_debug_name_api_v1 entities__debug_name_api = {
    .lookup = api_lookup,
    .name = api_name,
    .entity = api_entity,
    .set = api_set,
    .remove = api_remove,
    .count = api_count,
};
