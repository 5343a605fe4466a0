/*
 * The entities module: the plugin entry point and the API tables it serves.
 *   ct.entity v1, v2       the EntityManager (entities_manager.c)
 *   ct.component v1, v2    the component-type registry (entities_component.c); v1 is the
 *                          prefix of v2
 *   ct.world v0, v1        worlds and entity resources (entities_world.c, entities_resource.c);
 *                          v0 is a thin adapter over v1
 *   ct.debug_name v1       the debug-name component (entities_debug_name.c)
 */
#include <string.h>

#include "entities_internal.h"

#include "ct_profiler.h"
#undef CT_PROFILER /* ct_profiler.h names its default table; this module keeps its own */
#define CT_PROFILER (entities__services.profiler)

#include "ct_module.h"
#include "entities_layout.h"

entities_services_t entities__services;
entities_state_t *entities__state;

static const ct_entity_api_v1 entity_v1 = {
    .create = entities__create,
    .destroy = entities__destroy,
    .alive = entities__alive,
};

static const ct_entity_api_v2 entity_v2 = {
    .create = entities__create,
    .destroy = entities__destroy,
    .alive = entities__alive,
    .create_batch = entities__create_batch,
    .destroy_batch = entities__destroy_batch,
    .add_destroy_callback = entities__add_destroy_callback,
    .remove_destroy_callback = entities__remove_destroy_callback,
    .live_count = entities__live_count,
};

static void *component_manager(ct_world_o *world, uint64_t type_id)
{
    return entities__world_valid(world) ? entities__world_manager(world, type_id) : NULL;
}

static const ct_component_api_v1 component_v1 = {
    .register_type = entities__register_type,
    .unregister_type = entities__unregister_type,
    .manager = component_manager,
    .type_id = entities__type_id,
    .replace_type = entities__replace_type,
};

static const ct_component_api_v2 component_v2 = {
    .register_type = entities__register_type,
    .unregister_type = entities__unregister_type,
    .manager = component_manager,
    .type_id = entities__type_id,
    .replace_type = entities__replace_type,
    .set_validate = entities__set_validate,
    .spawn_failed = entities__spawn_failed,
    .gc_probe = entities__gc_probe,
    .sort_by_entity = entities__sort_by_entity,
};

static ct_entity_t spawn_unit_v1(ct_world_o *world, const char *name, const float pos[3],
                                 const float rot[4])
{
    ct_entity_t root = {0};
    entities__spawn_named(world, "unit", name, pos, rot, &root);
    return root;
}

static int spawn_level(ct_world_o *world, const char *name)
{
    return entities__spawn_named(world, "level", name, NULL, NULL, NULL);
}

static const ct_world_api_v1 world_v1 = {
    .create_world = entities__create_world,
    .destroy_world = entities__destroy_world,
    .spawn_unit = spawn_unit_v1,
    .spawn_level = spawn_level,
    .spawn_resource = entities__spawn_resource,
    .collect_garbage = entities__collect_garbage,
    .queue_callback = entities__queue_callback,
};

static const ct_world_api_v2 world_v2 = {
    .create_world = entities__create_world,
    .destroy_world = entities__destroy_world,
    .spawn_unit = spawn_unit_v1,
    .spawn_level = spawn_level,
    .spawn_resource = entities__spawn_resource,
    .collect_garbage = entities__collect_garbage,
    .queue_callback = entities__queue_callback,
    .world_count = entities__world_count,
    .world_at = entities__world_at,
    .add_world_listener = entities__add_world_listener,
    .remove_world_listener = entities__remove_world_listener,
};

static ct_entity_t spawn_unit_v0(ct_world_o *world, const char *name, const float pos[3])
{
    return world_v1.spawn_unit(world, name, pos, NULL);
}

static const ct_world_api_v0 world_v0 = {
    .create_world = entities__create_world,
    .destroy_world = entities__destroy_world,
    .spawn_unit = spawn_unit_v0,
};

static int start(void)
{
    int err = entities__manager_init();
    if (err == 0)
        err = entities__debug_name_init();
    if (err == 0)
        err = entities__resource_init();
    if (err == 0 && (err = entities__lua_init()) != 0)
        entities__resource_shutdown();
    if (err != 0) {
        entities__debug_name_shutdown();
        entities__manager_shutdown();
    }
    return err;
}

/* Worlds go first (their managers may belong to types of other modules, which unregister at
 * their own shutdown, before ours since they require us), then our own type and state. */
static void stop(void)
{
    entities__resource_shutdown();
    entities__destroy_all_worlds();
    entities__world_listeners_shutdown();
    entities__debug_name_shutdown();
    entities__unregister_all();
    entities__manager_shutdown();
}

/* Every frame, each lazily collected manager of every world gets one bounded collection step
 * (ct_component_api_v2.gc_probe), so dead entities' data goes without a script asking. */
static void frame_end(void *module, double dt)
{
    (void)module, (void)dt;
    CT_PROFILE_SCOPE("entities.gc");
    entities__collect_garbage_all();
}

/*
 * Points at this code whatever others call back into: the Lua functions (the kernel swaps them in
 * place, or back if we refuse), the debug-name component type and the "level" and "unit" resource
 * types. The API tables are the kernel's to swap. Nothing is changed for good until every step
 * has succeeded.
 */
static int rebind(void)
{
    entities__lua_register();
    ct_component_type_t previous;
    if (!entities__debug_name_rebind(&previous))
        return CT_ERR_VERSION;
    const int err = entities__resource_rebind();
    if (err < 0)
        entities__replace_type(&previous);
    return err;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.entity", 1, ct_entity_api_v1),
    CT_API_PROVIDE("ct.entity", 2, ct_entity_api_v2),
    CT_API_PROVIDE("ct.component", 1, ct_component_api_v1),
    CT_API_PROVIDE("ct.component", 2, ct_component_api_v2),
    CT_API_PROVIDE("ct.world", 0, ct_world_api_v0),
    CT_API_PROVIDE("ct.world", 1, ct_world_api_v1),
    CT_API_PROVIDE("ct.world", 2, ct_world_api_v2),
    CT_API_PROVIDE("ct.debug_name", 1, ct_debug_name_api_v1),
};

static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &entities__services.log),
    CT_MODULE_API(memory, 1, &entities__services.memory),
    CT_MODULE_API(lua, 1, &entities__services.lua),
    CT_MODULE_API(data, 1, &entities__services.data),
    CT_MODULE_API(resource, 6, &entities__services.resource),
    CT_MODULE_API_OPTIONAL(registry, 3, &entities__services.registry),
    CT_MODULE_API_OPTIONAL(profiler, 1, &entities__services.profiler),
};

/* The old code may keep running (the new code can refuse), so a reload hands the state over as
 * is. */
static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.entities", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
               .frame_end = frame_end},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &entities__services.self,
               .allocator = &entities__services.a,
               .state = &entities__state,
               .state_size = sizeof(entities_state_t),
               .layout_version = ENTITIES_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {
        {CT_ENTITY_API, 1, &entity_v1},       {CT_ENTITY_API, 2, &entity_v2},
        {CT_COMPONENT_API, 1, &component_v1}, {CT_COMPONENT_API, 2, &component_v2},
        {CT_WORLD_API, 0, &world_v0},         {CT_WORLD_API, 1, &world_v1},
        {CT_WORLD_API, 2, &world_v2},         {CT_DEBUG_NAME_API, 1, &entities__debug_name_api},
    };
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
