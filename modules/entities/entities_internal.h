/* What the files of modules/entities share; nothing here is API. */
#ifndef CT_ENTITIES_INTERNAL_H
#define CT_ENTITIES_INTERNAL_H

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_registry.h"
#include "ct_reload.h"
#include "ct_resource.h"
#include "ct_world.h"

/* The services the module got at init (or at a reload), and its own allocator. Each copy of the
 * code fetches its own, so they are not part of the state handed across a reload. */
typedef struct entities_services_t {
    const ct_log_api_v1 *log;
    const ct_memory_api_v1 *memory;
    const ct_lua_api_v1 *lua;
    const ct_data_api_v1 *data;
    const ct_resource_api_v6 *resource;
    const ct_registry_api_v3
        *registry; /* optional: without it listeners have no owner; v3 names them */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_plugin_o *self;
    ct_allocator_t *a;
} entities_services_t;

extern entities_services_t entities__services;

#define entities__log(level, ...)                                                                  \
    entities__services.log->write(entities__services.self, (level), __VA_ARGS__)

/* ---- the module's state ----------------------------------------------------------------------
 * Everything the module changes while it runs lives in one entities_state_t from the plugin
 * allocator, so a hot reload hands it to the new code whole (see entities.c). Each part belongs to
 * one file. */

/* ENTITIES_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of entities_state_t and every struct they reach (entities_layout.h, by
 * tools/abi/layout_id.py): a change there changes it, so there is no number to bump. The module's
 * entry file includes entities_layout.h. */

#define ENTITIES_MAX_TYPES 64u
#define ENTITIES_MAX_DESTROY_CALLBACKS 32u
#define ENTITIES_NUM_RESOURCE_TYPES 2u

typedef struct entities_destroy_callback_t {
    ct_entity_destroyed_f fn;
    void *user_data;
} entities_destroy_callback_t;

/* entities_manager.c */
typedef struct entities_manager_t {
    void *block;
    uint32_t *ring;       /* capacity entries; free indices from head, free_count of them */
    uint16_t *generation; /* capacity entries; `used` are indices handed out at least once */
    uint32_t capacity;
    uint32_t used;
    uint32_t head;
    uint32_t free_count;
    uint32_t live;
    entities_destroy_callback_t callbacks[ENTITIES_MAX_DESTROY_CALLBACKS];
    uint32_t callbacks_end; /* slots past this are free: single destroys scan only up to it */
} entities_manager_t;

/* entities_component.c */
typedef struct entities_type_slot_t {
    ct_component_type_t type;
    ct_component_validate_f validate; /* ct_component_api_v2.set_validate; NULL: none */
    uint64_t id;
    uint64_t serial; /* registration order: breaks spawn_order ties deterministically */
    bool used;
    /* The plugin that registered it (ct.registry v2; NULL: unknown or the kernel). The type goes
     * when that plugin is no longer loaded: its callbacks may point at code that gave up. */
    ct_plugin_o *owner;
} entities_type_slot_t;

typedef struct entities_types_t {
    entities_type_slot_t slots[ENTITIES_MAX_TYPES];
    uint32_t order[ENTITIES_MAX_TYPES];
    uint32_t num_order;
    uint64_t next_serial;
} entities_types_t;

/* entities_world.c. A world is here, not in its file, because worlds outlive a reload: their
 * layout is part of the module's (ENTITIES_LAYOUT_VERSION). */
typedef struct entities_bytes_t {
    uint8_t *bytes;
    uint32_t size;
    uint32_t capacity;
} entities_bytes_t;

/* What a ct_world_o handle names. The handle is not this struct's address: it is the world's
 * slot and that slot's generation (see make_handle), so a handle kept past destroy_world never
 * names a world created later, even one that got the same memory. */
typedef struct entities_world_t {
    void *managers[ENTITIES_MAX_TYPES];
    ct_allocator_t *allocators[ENTITIES_MAX_TYPES];
    char name[32];
    entities_bytes_t queue;
    entities_bytes_t run;
    uint32_t run_cursor;
    ct_world_o *handle;
    uint32_t run_serial; /* names the run in progress; 0 when none */
    uint32_t runs;       /* runs started, for the next serial */
    bool dropping;       /* the queue dropped callbacks since the last run (entities_world.c) */
} entities_world_t;

typedef struct entities_world_slot_t {
    entities_world_t *world; /* NULL when the slot is free */
    uint32_t generation;     /* goes up when the slot's world is destroyed; never 0 */
} entities_world_slot_t;

typedef struct entities_worlds_t {
    entities_world_slot_t *slots;
    uint32_t num_slots; /* slots ever used */
    uint32_t capacity;
    uint32_t count; /* live worlds */
} entities_worlds_t;

/* entities_world_events.c: who is told about worlds being created and destroyed. */
typedef struct entities_world_listener_t {
    ct_world_listener_f fn;
    void *ctx;
    ct_plugin_o *owner;
} entities_world_listener_t;

typedef struct entities_world_listeners_t {
    entities_world_listener_t *items;
    uint32_t count;
    uint32_t capacity;
} entities_world_listeners_t;

typedef struct entities_state_t {
    /* First in every layout, so any code can tell whether it may read the rest (ct_reload.h). */
    ct_reload_header_t header; /* sizeof(entities_state_t), ENTITIES_LAYOUT_VERSION */
    entities_manager_t manager;
    entities_types_t types;
    entities_worlds_t worlds;
    /* entities_debug_name.c: the type's id and slot, stable while registered (a slot saves a
     * registry search per call). */
    uint64_t debug_name_type_id;
    uint32_t debug_name_type_slot;
    /* entities_resource.c: "level" and "unit" as registered, to put them back when a reload is
     * refused halfway. */
    ct_resource_type_t resource_types[ENTITIES_NUM_RESOURCE_TYPES];
    entities_world_listeners_t world_listeners;
} entities_state_t;

extern entities_state_t *entities__state;

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
/* Unregisters the types whose plugin is no longer loaded (failed its init, or shut down without
 * unregistering them). Cheap; run before anything calls the types' callbacks in bulk. */
void entities__drop_orphan_types(void);
bool entities__set_validate(uint64_t type_id, ct_component_validate_f validate);
/* The registered type of an id with its validation (NULL when none), or NULL. */
const ct_component_type_t *entities__type_of(uint64_t type_id, ct_component_validate_f *validate);
/* The format a component type's module declared for its instances ("component.<name>",
 * ct_resource_api_v6.declare_format), 0 when none did. */
uint32_t entities__component_format(const char *type_name);
void entities__sort_by_entity(const ct_entity_t *entities, uint32_t n, uint32_t *order,
                              uint32_t *scratch);
uint32_t entities__gc_probe(const ct_entity_t *entities, uint32_t n, uint64_t *rng,
                            uint32_t *budget);

/* ct_world_api_v2: the walk over live worlds (entities_world.c) and the listeners
 * (entities_world_events.c). */
uint32_t entities__world_count(void);
ct_world_o *entities__world_at(uint32_t i);
int entities__add_world_listener(ct_world_listener_f fn, void *ctx);
void entities__remove_world_listener(ct_world_listener_f fn, void *ctx);
/* Tells the listeners whose plugins are still loaded (and drops the others). */
void entities__notify_world(ct_world_o *world, uint32_t event);
void entities__world_listeners_shutdown(void);

/* entities_world.c: worlds and their managers. */
/* Copies `from` into to[size] NUL-padded, cutting at most size - 1 bytes at a UTF-8 character
 * boundary (names of worlds and debug names). */
void entities__copy_utf8(char *to, size_t size, const char *from);
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
/* collect_garbage for every world: the module's frame_end hook. */
void entities__collect_garbage_all(void);
int entities__queue_callback(ct_world_o *world, ct_entity_t entity, const char *callback,
                             const double *args, uint32_t n);
/* Script side of the queue: take moves the queued callbacks aside for reading and returns the
 * run's serial (a run still in progress was abandoned: its rest is dropped); next reads one of
 * run `run`, false at the end (which ends the run) or when a later run has started. */
uint32_t entities__take_callbacks(ct_world_o *world);
bool entities__next_callback(ct_world_o *world, uint32_t run, ct_entity_t *entity,
                             const char **callback, const double **args, uint32_t *n);

/* entities_compile.c: the compile function of "level" and "unit". */
int entities__resource_compile(void *user_data, const ct_data_o *source, ct_compile_ctx_o *ctx);

/* entities_resource.c: "level" and "unit" resources. */
int entities__resource_init(void);
/* For a reload: points "level" and "unit" at this code (all or nothing); 0 or the refusal of
 * ct_resource_api_v1.replace_type. */
int entities__resource_rebind(void);
void entities__resource_shutdown(void);
/* The rule for the pose a resource is spawned at (the one of "Valid poses" in ct_transform.h):
 * false with the field named in `why`; out_rot receives rot (NULL: identity) normalised. */
bool entities__check_spawn_pose(const float pos[3], const float rot[4], float out_rot[4], char *why,
                                size_t why_size);
void entities__spawn_failed(const ct_spawn_context_t *ctx, int err);
int entities__spawn_resource(ct_world_o *world, const void *resource, const float pos[3],
                             const float rot[4], ct_entity_t *out, uint32_t out_capacity);
/* Loads (once) and spawns the resource (type, name); returns the entity count or an error and,
 * if asked, the first entity. */
int entities__spawn_named(ct_world_o *world, const char *type, const char *name, const float pos[3],
                          const float rot[4], ct_entity_t *first);

/* A loaded level or unit: its number of entities and their parent indices (UINT32_MAX: a root);
 * the section of one component type (its data, instance count and entity indices), or NULL. */
uint32_t entities__resource_entities(const void *resource, const uint32_t **parent_index);
const void *entities__resource_section(const void *resource, uint64_t type_id,
                                       uint32_t *num_instances, const uint32_t **entity_index);

/* entities_handles.c: World.spawn (a handle listing what it made), World.find, and components
 * added to and removed from live entities. */
int entities__handles_lua_init(void);
void entities__handles_lua_register(void);

/* entities_debug_name.c */
int entities__debug_name_init(void);
/* For a reload: points the registered type at this code's callbacks; *previous receives the
 * type as it was, to put back if the reload is refused later. */
bool entities__debug_name_rebind(ct_component_type_t *previous);
void entities__debug_name_shutdown(void);
extern const ct_debug_name_api_v1 entities__debug_name_api;

/* entities_lua.c: init registers the functions and runs the Lua half; a reload registers the
 * functions again (replacing them in place) and keeps the Lua half, which holds the scripts'
 * callbacks. */
int entities__lua_init(void);
void entities__lua_register(void);

#endif
