/* What the files of modules/entities share; nothing here is API. */
#ifndef CT_ENTITIES_INTERNAL_H
#define CT_ENTITIES_INTERNAL_H

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_resource.h"
#include "ct_world.h"

/* The services the module got at init, and its own allocator. */
typedef struct entities_services_t {
    const ct_log_api_v1 *log;
    const ct_memory_api_v1 *memory;
    const ct_lua_api_v1 *lua;
    const ct_data_api_v1 *data;
    const ct_resource_api_v1 *resource;
    ct_plugin_o *self;
    ct_allocator_t *a;
} entities_services_t;

extern entities_services_t entities__services;

#define entities__log(level, ...) \
    entities__services.log->write(entities__services.self, (level), __VA_ARGS__)

/* entities_manager.c: the EntityManager (one per process; entities are global). */
int entities__manager_init(void);
void entities__manager_shutdown(void);
ct_entity_t entities__create(void);
void entities__destroy(ct_entity_t e);
bool entities__alive(ct_entity_t e);
uint32_t entities__create_batch(ct_entity_t *out, uint32_t n);
void entities__destroy_batch(const ct_entity_t *entities, uint32_t n);
uint32_t entities__add_destroy_callback(ct_entity_destroyed_f fn, void *user_data);
void entities__remove_destroy_callback(uint32_t handle);
uint32_t entities__live_count(void);

/* entities_component.c: the registry of component types. Types live in stable slots; a world
 * keeps its managers in an array indexed by slot. */
#define ENTITIES_MAX_TYPES 64u
uint64_t entities__register_type(const ct_component_type_t *type);
void entities__unregister_type(uint64_t type_id);
bool entities__replace_type(const ct_component_type_t *type);
uint64_t entities__type_id(const char *name);
/* The type in a slot, or NULL when the slot is free. */
const ct_component_type_t *entities__type_at(uint32_t slot);
/* The id of the type in a slot (kept from registration, so no name is hashed again), or 0. */
uint64_t entities__type_id_at(uint32_t slot);
/* The slot of a registered type id, or -1. */
int entities__type_slot(uint64_t type_id);
/* Used slots in spawn order; *n receives their count. */
const uint32_t *entities__spawn_order(uint32_t *n);
/* Unregisters every type still registered (at shutdown). */
void entities__unregister_all(void);

/* entities_world.c: worlds and their managers. */
ct_world_o *entities__create_world(const ct_world_desc_t *desc);
void entities__destroy_world(ct_world_o *world);
void entities__destroy_all_worlds(void);
bool entities__world_valid(const ct_world_o *world);
void *entities__world_manager(ct_world_o *world, uint64_t type_id);
void *entities__world_manager_at(ct_world_o *world, uint32_t slot);
/* Gives every world a manager of the type in `slot` / destroys those managers. */
void entities__worlds_add_type(uint32_t slot);
void entities__worlds_remove_type(uint32_t slot);
/* Hands a batch of dead entities to every `destroyed` manager of every world. */
void entities__worlds_entities_destroyed(const ct_entity_t *entities, uint32_t n);
void entities__collect_garbage(ct_world_o *world);
int entities__queue_callback(ct_world_o *world, ct_entity_t entity, const char *callback,
                             const double *args, uint32_t n);
/* Script side of the queue: take moves the queued callbacks aside for reading (false when a run
 * is already in progress); next reads one, false at the end (which also ends the run). */
bool entities__take_callbacks(ct_world_o *world);
bool entities__next_callback(ct_world_o *world, ct_entity_t *entity, const char **callback,
                             const double **args, uint32_t *n);

/* entities_compile.c: the compile function of "level" and "unit". */
int entities__resource_compile(void *user_data, const ct_data_o *source, ct_compile_ctx_o *ctx);

/* entities_resource.c: "level" and "unit" resources. */
int entities__resource_init(void);
void entities__resource_shutdown(void);
int entities__spawn_resource(ct_world_o *world, const void *resource, const float pos[3],
                             const float rot[4], ct_entity_t *out, uint32_t out_capacity);
/* Loads (once) and spawns the resource (type, name); returns the entity count or an error and,
 * if asked, the first entity. */
int entities__spawn_named(ct_world_o *world, const char *type, const char *name,
                          const float pos[3], const float rot[4], ct_entity_t *first);

/* entities_debug_name.c */
int entities__debug_name_init(void);
void entities__debug_name_shutdown(void);
extern const ct_debug_name_api_v1 entities__debug_name_api;

/* entities_lua.c */
int entities__lua_init(void);

#endif
