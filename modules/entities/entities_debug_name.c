/*
 * The debug-name component, the reference component manager (the seed's part 2):
 *   - instance data as a structure of arrays (entity[], name[], generation[]) in one allocation,
 *     so growing is one allocation and one free;
 *   - entity -> instance through the paged index of ct_entity.h (ct_entity_pages_t): two loads
 *     and a compare with the stored entity, no probing, so removal costs the same however the
 *     names were added. It replaced an open-addressing hash whose grouped homes clustered:
 *     removing a name walked 16 to 40 slots, most of a destroy's 50-85 ns. The price is memory
 *     for sparse worlds: a 4 KiB page per 1024 entity indices that have names;
 *   - a batch (spawning) grows the storage and makes its pages once, before it changes anything,
 *     so it fails (out of memory) with the manager as it was;
 *   - removal swaps the last instance into the hole (the arrays stay packed for linear walks) and
 *     repoints that instance's index entry;
 *   - names of dead entities go in the entity destroy callback, in the batch it gives.
 */
#include <string.h>

#include "ct_array.h"
#include "entities_internal.h"

#define MIN_CAPACITY 64u

typedef struct debug_name_manager_t {
    ct_allocator_t *a;
    void *block;
    size_t block_size;
    uint32_t n;
    uint32_t capacity;
    ct_entity_t *entity;
    char (*name)[CT_DEBUG_NAME_MAX];
    uint16_t
        *generation; /* per instance slot, 1..1023: goes up when the slot's name moves or goes */
    ct_entity_pages_t index; /* entity -> instance + 1 */
} debug_name_manager_t;

/* An instance handle is (slot generation << 22) | (slot + 1); one with generation 0 is a plain
 * position, 1..count(), for walking the manager as it is now (see ct_world.h). */
#define INDEX_BITS 22u
#define INDEX_MASK ((1u << INDEX_BITS) - 1u)
#define GENERATION_MASK 0x3ffu

static size_t bytes_for(uint32_t capacity)
{
    return (size_t)capacity * (sizeof(ct_entity_t) + CT_DEBUG_NAME_MAX + sizeof(uint16_t));
}

/* The entry of e's index (NULL: none yet). */
static inline uint32_t *entry_of(const debug_name_manager_t *m, ct_entity_t e)
{
    return ct_entity_pages_entry(&m->index, e);
}

/* The instance of e, or UINT32_MAX. */
static inline uint32_t find(const debug_name_manager_t *m, ct_entity_t e)
{
    const uint32_t *entry = entry_of(m, e);
    return entry && *entry && m->entity[*entry - 1u].id == e.id ? *entry - 1u : UINT32_MAX;
}

/* Room for `want` instances: capacity doubles until it fits, so a batch grows once and single
 * adds grow geometrically. One allocation; each array is copied once. */
static bool reserve(debug_name_manager_t *m, uint32_t want)
{
    if (want <= m->capacity)
        return true;
    const uint32_t capacity = ct_array_capacity(m->capacity, want, MIN_CAPACITY);
    if (!capacity || capacity > INDEX_MASK + 1u)
        return false;
    size_t size = bytes_for(capacity);
    void *block = ct_alloc(m->a, size);
    if (!block)
        return false;
    ct_entity_t *entity = block;
    char(*name)[CT_DEBUG_NAME_MAX] = (void *)(entity + capacity);
    uint16_t *generation = (uint16_t *)(void *)(name + capacity);
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
    m->generation = generation;
    return true;
}

static void copy_name(char *to, const char *from)
{
    entities__copy_utf8(to, CT_DEBUG_NAME_MAX, from);
}

static void next_generation(debug_name_manager_t *m, uint32_t i)
{
    const uint16_t g = (uint16_t)((m->generation[i] + 1u) & GENERATION_MASK);
    m->generation[i] = g ? g : 1u;
}

/* The instance of e, appended if e has none yet; the caller made room for one more and e's page.
 * An entry left by an older entity of the same index (its destroy was not seen here) is taken
 * over by e, as a new instance in meaning. */
static uint32_t instance_of(debug_name_manager_t *m, ct_entity_t e)
{
    uint32_t *entry = entry_of(m, e);
    if (*entry && m->entity[*entry - 1u].id == e.id)
        return *entry - 1u;
    if (*entry) {
        m->entity[*entry - 1u] = e;
        next_generation(m, *entry - 1u);
        return *entry - 1u;
    }
    *entry = m->n + 1u;
    m->entity[m->n] = e;
    return m->n++;
}

static int set_name(debug_name_manager_t *m, ct_entity_t e, const char *name)
{
    /* Full is fine when e only renames: room is made only when it would be appended. */
    if ((m->n == m->capacity && find(m, e) == UINT32_MAX && !reserve(m, m->n + 1u)) ||
        !ct_entity_pages_reserve(&m->index, m->a, e))
        return CT_ERR_NOMEM;
    copy_name(m->name[instance_of(m, e)], name);
    return 0;
}

/* Swap-erase: both slots change meaning (i takes the last name, the last slot goes free). */
static void remove_entity(debug_name_manager_t *m, ct_entity_t e)
{
    const uint32_t i = find(m, e);
    if (i == UINT32_MAX)
        return;
    const uint32_t last = --m->n;
    next_generation(m, i);
    next_generation(m, last);
    *entry_of(m, e) = 0;
    if (i != last) {
        m->entity[i] = m->entity[last];
        memcpy(m->name[i], m->name[last], CT_DEBUG_NAME_MAX);
        *entry_of(m, m->entity[i]) = i + 1u;
    }
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
    ct_entity_pages_free(&m->index, m->a);
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
    /* Everything that can fail comes first, so a failure leaves the manager as it was. Entities
     * made together share pages: the check is one compare for most of them. */
    bool room = n <= UINT32_MAX - m->n && reserve(m, m->n + n);
    for (uint32_t i = 0; room && i < n; i++)
        room = ct_entity_pages_reserve(&m->index, m->a, ctx->entity_lookup[entity_index[i]]);
    if (!room) {
        entities__log(CT_LOG_ERROR, "debug_name: out of memory spawning %u names", n);
        entities__spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    /* Compiled names are already NUL-padded to CT_DEBUG_NAME_MAX (see compile), so each is one
     * fixed-size copy; the last byte is still forced to NUL in case a blob was not made by us.
     * Spawned entities are new, so most have no entry yet and are appended right here. The arrays
     * and the count are held in locals: a store of name bytes may alias anything, so reading them
     * through `m` would reload them after every name (10k names: 36 -> 26 us). */
    char(*const name)[CT_DEBUG_NAME_MAX] = m->name;
    ct_entity_t *const entity = m->entity;
    uint32_t count = m->n;
    for (uint32_t i = 0; i < n; i++) {
        const ct_entity_t e = ctx->entity_lookup[entity_index[i]];
        uint32_t *entry = entry_of(m, e);
        uint32_t slot = count;
        if (*entry) {
            m->n = count;
            slot = instance_of(m, e);
            count = m->n;
        } else {
            *entry = ++count;
            entity[slot] = e;
        }
        memcpy(name[slot], names[i], CT_DEBUG_NAME_MAX);
        name[slot][CT_DEBUG_NAME_MAX - 1u] = 0;
    }
    m->n = count;
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
    .spawn_order = CT_SPAWN_ORDER_DEBUG_NAME,
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
    const uint32_t i = m && e.id ? find(m, e) : UINT32_MAX;
    if (i == UINT32_MAX)
        return (ct_debug_name_instance_t){0};
    return (ct_debug_name_instance_t){((uint32_t)m->generation[i] << INDEX_BITS) | (i + 1u)};
}

/* The slot a handle names, or -1 (a stale one logged). */
static int64_t slot_of(const debug_name_manager_t *m, ct_debug_name_instance_t h, const char *what)
{
    const uint32_t position = h.i & INDEX_MASK, gen = h.i >> INDEX_BITS;
    if (position == 0 || position > m->n)
        return -1;
    if (gen != 0 && gen != m->generation[position - 1u]) {
        entities__log(CT_LOG_WARNING,
                      "debug_name.%s: instance 0x%08x is stale (its name was "
                      "removed or moved)",
                      what, h.i);
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
