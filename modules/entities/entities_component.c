/*
 * The registry of component types. A type keeps the slot it was registered in until it is
 * unregistered, because every world indexes its managers by slot; the spawn order is a separate
 * list of slots, rebuilt on each (rare) registration. All of it is entities__state->types.
 */
#include <string.h>

#include "ct_hash.h"
#include "entities_internal.h"

static bool spawns_before(const entities_type_slot_t *a, const entities_type_slot_t *b)
{
    if (a->type.spawn_order != b->type.spawn_order)
        return a->type.spawn_order < b->type.spawn_order;
    return a->serial < b->serial;
}

static void rebuild_order(void)
{
    entities_types_t *r = &entities__state->types;
    r->num_order = 0;
    for (uint32_t s = 0; s < ENTITIES_MAX_TYPES; s++) {
        if (!r->slots[s].used)
            continue;
        uint32_t at = r->num_order++;
        while (at > 0 && spawns_before(&r->slots[s], &r->slots[r->order[at - 1]])) {
            r->order[at] = r->order[at - 1];
            at--;
        }
        r->order[at] = s;
    }
}

uint64_t entities__type_id(const char *name) { return name ? ct_hash64(name) : 0; }

int entities__type_slot(uint64_t type_id)
{
    const entities_types_t *r = &entities__state->types;
    for (uint32_t s = 0; s < ENTITIES_MAX_TYPES; s++) {
        if (r->slots[s].used && r->slots[s].id == type_id)
            return (int)s;
    }
    return -1;
}

static bool check_type(const ct_component_type_t *type, const char *what)
{
    const char *why = NULL;
    if (!type || !type->name || !type->name[0])
        why = "no name";
    else if (!type->create_manager || !type->destroy_manager || !type->spawn)
        why = "create_manager, destroy_manager and spawn are required";
    else if ((type->destroyed == NULL) == (type->gc == NULL))
        why = "exactly one of destroyed and gc must be set";
    else if ((type->instance_size & CT_COMPONENT_VARIABLE_SIZE) &&
             ((type->instance_size & ~CT_COMPONENT_VARIABLE_SIZE) < 4u ||
              (type->instance_size & ~CT_COMPONENT_VARIABLE_SIZE) > CT_COMPONENT_MAX_VARIABLE_SIZE))
        why = "a variable instance size must allow 4 to CT_COMPONENT_MAX_VARIABLE_SIZE bytes";
    if (why)
        entities__log(CT_LOG_ERROR, "%s(%s): %s", what, type && type->name ? type->name : "?", why);
    return why == NULL;
}

uint64_t entities__register_type(const ct_component_type_t *type)
{
    entities_types_t *r = &entities__state->types;
    if (!check_type(type, "register_type"))
        return 0;
    uint64_t id = ct_hash64(type->name);
    const int taken = entities__type_slot(id);
    if (taken >= 0) {
        const ct_registry_api_v3 *registry = entities__services.registry;
        entities__log(CT_LOG_ERROR,
                      "register_type: component type '%s' is already registered by %s%s%s",
                      type->name, registry && r->slots[taken].owner ? "plugin '" : "",
                      registry ? registry->plugin_name(r->slots[taken].owner) : "another plugin",
                      registry && r->slots[taken].owner ? "'" : "");
        return 0;
    }
    for (uint32_t s = 0; s < ENTITIES_MAX_TYPES; s++) {
        if (r->slots[s].used)
            continue;
        const ct_registry_api_v3 *registry = entities__services.registry;
        r->slots[s] = (entities_type_slot_t){
            *type, NULL, id, r->next_serial++, true, registry ? registry->current_plugin() : NULL};
        rebuild_order();
        entities__worlds_add_type(s);
        return id;
    }
    entities__log(CT_LOG_ERROR, "register_type(%s): all %u component type slots are taken",
                  type->name, ENTITIES_MAX_TYPES);
    return 0;
}

/* Only the code changes: the slot, and so every world's manager of the type, stays. The instance
 * size is checked because managers and compiled resources were made for it. */
bool entities__replace_type(const ct_component_type_t *type)
{
    entities_types_t *r = &entities__state->types;
    if (!check_type(type, "replace_type"))
        return false;
    int s = entities__type_slot(ct_hash64(type->name));
    if (s < 0) {
        entities__log(CT_LOG_ERROR, "replace_type: no component type '%s'", type->name);
        return false;
    }
    if (r->slots[s].type.instance_size != type->instance_size) {
        entities__log(CT_LOG_ERROR,
                      "replace_type(%s): instances are %u bytes, the replacement "
                      "says %u",
                      type->name, r->slots[s].type.instance_size, type->instance_size);
        return false;
    }
    r->slots[s].type = *type;
    rebuild_order();
    return true;
}

void entities__unregister_type(uint64_t type_id)
{
    entities_types_t *r = &entities__state->types;
    int s = entities__type_slot(type_id);
    if (s < 0) {
        entities__log(CT_LOG_ERROR, "unregister_type: no component type 0x%016llx",
                      (unsigned long long)type_id);
        return;
    }
    entities__worlds_remove_type((uint32_t)s);
    memset(&r->slots[s], 0, sizeof r->slots[s]);
    rebuild_order();
}

void entities__unregister_all(void)
{
    entities_types_t *r = &entities__state->types;
    for (uint32_t s = 0; s < ENTITIES_MAX_TYPES; s++) {
        if (r->slots[s].used)
            entities__unregister_type(r->slots[s].id);
    }
}

void entities__drop_orphan_types(void)
{
    const ct_registry_api_v3 *registry = entities__services.registry;
    entities_types_t *r = &entities__state->types;
    for (uint32_t s = 0; registry && s < ENTITIES_MAX_TYPES; s++) {
        const entities_type_slot_t *slot = &r->slots[s];
        if (!slot->used || !slot->owner || registry->plugin_loaded(slot->owner))
            continue;
        entities__log(CT_LOG_WARNING,
                      "component type '%s' goes: the plugin that registered it "
                      "is no longer loaded",
                      slot->type.name);
        entities__unregister_type(slot->id);
    }
}

const ct_component_type_t *entities__type_at(uint32_t slot)
{
    const entities_types_t *r = &entities__state->types;
    return slot < ENTITIES_MAX_TYPES && r->slots[slot].used ? &r->slots[slot].type : NULL;
}

uint64_t entities__type_id_at(uint32_t slot)
{
    const entities_types_t *r = &entities__state->types;
    return slot < ENTITIES_MAX_TYPES && r->slots[slot].used ? r->slots[slot].id : 0;
}

const uint32_t *entities__spawn_order(uint32_t *n)
{
    const entities_types_t *r = &entities__state->types;
    *n = r->num_order;
    return r->order;
}

bool entities__set_validate(uint64_t type_id, ct_component_validate_f validate)
{
    int s = entities__type_slot(type_id);
    if (s < 0) {
        entities__log(CT_LOG_ERROR, "set_validate: no component type 0x%016llx",
                      (unsigned long long)type_id);
        return false;
    }
    entities__state->types.slots[s].validate = validate;
    return true;
}

const ct_component_type_t *entities__type_of(uint64_t type_id, ct_component_validate_f *validate)
{
    int s = entities__type_slot(type_id);
    if (s < 0)
        return NULL;
    *validate = entities__state->types.slots[s].validate;
    return &entities__state->types.slots[s].type;
}

/* xorshift64: cheap, and a manager's own seed keeps its collection deterministic. */
uint32_t entities__gc_probe(const ct_entity_t *entities, uint32_t n, uint64_t *rng,
                            uint32_t *budget)
{
    if (!entities || !rng || !budget)
        return UINT32_MAX;
    uint64_t x = *rng ? *rng : 0x9e3779b97f4a7c15u;
    for (uint32_t alive_in_row = 0; n > 0 && alive_in_row < 4 && *budget > 0;) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        --*budget;
        const uint32_t i = (uint32_t)((x >> 32) % n);
        if (!entities__alive(entities[i])) {
            *rng = x;
            return i;
        }
        alive_in_row++;
    }
    *rng = x;
    return UINT32_MAX;
}

/* LSD radix sort, 8 bits a pass, of the keys with their positions carried alongside: every
 * pass reads sequentially (reading keys through the entity array each pass would miss the
 * cache). A pass whose digit is the same for every key (the generation bits, often) is skipped. */
void entities__sort_by_entity(const ct_entity_t *entities, uint32_t n, uint32_t *order,
                              uint32_t *scratch)
{
    if (!entities || !order || !scratch)
        return;
    uint32_t *key = scratch, *key_to = scratch + n, *pos = order, *pos_to = scratch + 2 * (size_t)n;
    for (uint32_t i = 0; i < n; i++) {
        key[i] = ct_entity_order_key(entities[i]);
        pos[i] = i;
    }
    for (uint32_t shift = 0; shift < 32; shift += 8) {
        uint32_t count[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            count[((key[i] >> shift) & 0xffu) + 1u]++;
        if (n == 0 || count[((key[0] >> shift) & 0xffu) + 1u] == n)
            continue;
        for (uint32_t d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t at = count[(key[i] >> shift) & 0xffu]++;
            key_to[at] = key[i];
            pos_to[at] = pos[i];
        }
        uint32_t *t = key;
        key = key_to;
        key_to = t;
        t = pos;
        pos = pos_to;
        pos_to = t;
    }
    if (pos != order)
        memcpy(order, pos, (size_t)n * sizeof *order);
}
