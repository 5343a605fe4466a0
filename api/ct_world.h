/*
 * ct_world.h: worlds, entity resources and the debug-name component. APIs "ct.world" (versions 0
 * and 1, both served) and "ct.debug_name", from modules/entities.
 *
 * A world is a set of component managers, one per registered component type (ct_entity.h). It
 * does not own entities: entities are global (ct_entity_api), and destroying a world destroys its
 * managers, not the entities that had components in it.
 *
 * A ct_world_o pointer is a handle, not an address: it holds a slot and a generation, like an
 * entity id, so a handle kept past destroy_world is refused by every call (logged; Lua raises
 * "not a live world") instead of naming a world created later. Never dereference it. A slot's
 * generation has 24 bits: a stale handle could match again only after 16 million worlds were
 * created in its slot. At most 65535 worlds exist at once.
 *
 * Entity resources. A level (resource type "level", source `*.level`) and a unit (type "unit",
 * source `*.unit`) are the same format: a list of entities with components and children.
 *
 *     entities = [
 *       { id = "7f3a...(32 hex digits)"        // optional: the stable GUID tools give it
 *         name = "crate"                       // optional, for messages only
 *         components = {
 *           transform = { position = [0 1 0] }
 *           debug_name = { name = "crate" }
 *         }
 *         children = [ { components = { ... } } ]
 *       }
 *       { components = { transform = { position = [0 0 0] } }
 *         repeat = { count = 10000 spacing = [1 0 0] } }
 *     ]
 *
 * `id` is written by tools (ct_datamodel.h) so merges can tell entities apart; the compiler only
 * checks it is 32 hex digits. A top-level `merge_conflicts = [ ... ]` is cuttle-merge's record
 * of an unfinished merge: a source that has one is refused until someone resolves it.
 * `components` keys are component type names; an unknown one is skipped with a warning (an error
 * when the kernel runs with --strict). `repeat` emits the entity, with its children, `count` times
 * (default 1); copy k has `k * spacing` added to `components.transform.position` (a missing
 * position counts as [0 0 0]), so a big generated level stays a small source file. Children keep
 * their own transform, relative to their copy of the parent.
 *
 * Compiled layout (little-endian; the kernel's ct_blob_header_t comes first), after the seed's
 * "Entity Resources": entities are created in one batch, then each component type spawns all its
 * instances in one call, in spawn order.
 *
 *     u32 num_entities, num_component_types
 *     u32 parent_index[num_entities]        UINT32_MAX for roots; a parent precedes its children
 *     pad to 8
 *     per component type, in spawn order:
 *       u64 type_id                          ct_hash64 of the type name
 *       u32 num_instances, instance_size
 *       u32 format, reserved                 the type's format when compiled (the version its
 *                                            module declared for "component.<name>" with
 *                                            ct_resource_api_v6.declare_format, 0 if none); 0
 *       u32 entity_index[num_instances]      < num_entities
 *       pad to 8
 *       u8  data[num_instances * instance_size]
 *       pad to 8
 *     (a type of variable-size instances, instance_size CT_COMPONENT_VARIABLE_SIZE | max, see
 *     ct_entity.h: data is its instances back to back, each beginning with its own u32 size,
 *     4 to max, and padded with zeros to a multiple of 8)
 *
 * Loading checks every count and size against the payload, a variable instance's size against its
 * type's maximum too (a blob that does not add up to exactly its size is refused, naming the field), then hands each instance to its type's validation
 * (ct_component_api_v2.set_validate; transforms refuse poses outside their rule), so a blob
 * edited outside the compiler is refused naming the entity, the component and the field.
 * Spawning is all or nothing: when a component's spawner fails (out of memory), every entity made
 * for the spawn is destroyed again and the spawn returns the error. A section whose type is not registered when spawning,
 * or whose instance_size differs from the registered type's, is skipped with a warning. A section
 * whose format differs from the registered type's declared format fails the load ("recompile"):
 * a layout that changed but kept its size is never read as the new one. (Resource format 2; 1
 * had no format field.)
 *
 * Script callbacks. A system with events for scripts (physics collisions, ...) queues them with
 * queue_callback; the boot script runs them between systems with World.run_callbacks(world),
 * which calls, through protected calls, fn(entity, args...) for each queued (entity, callback)
 * that the script registered with World.set_callback(world, entity, "on_collision", fn). Events
 * for entities that died meanwhile, or with no registered function, are dropped. Never run from
 * inside a system's step. A callback calling run_callbacks for its own world gets an error; a run
 * left by a callback that yielded (and was not resumed) or by an error out of the run is over:
 * the next run takes the new events and its leftovers are dropped with a warning. The callback
 * tables of dead entities are dropped (swept whenever a world's count of entities with callbacks
 * doubles), so creating and destroying entities with callbacks does not grow the Lua heap.
 *
 * Lua (module World, worlds are light userdata holding the handle, entities are numbers holding
 * their id; a number that is not a whole number in 1 .. 2^32 - 1, such as 1.5, -1 or 0, is never
 * taken as an id: every module's functions raise "<Module.function>: argument N is not an entity
 * id (got 1.5)" for it, and "... is not a world" for a world argument that is none):
 *   World.create() -> w                     World.destroy(w)
 *   World.spawn_unit(w, name, x, y, z [, qx, qy, qz, qw]) -> root entity (nil on failure)
 *   World.spawn_level(w, name) -> number of entities (nil, message on failure)
 *   World.debug_name(w, e) -> string or nil  World.set_debug_name(w, e, s)
 *   World.set_callback(w, e, name, fn or nil) World.queue_callback(w, e, name, numbers...)
 *   World.run_callbacks(w) -> number run     World.collect_garbage(w)
 * and module Entity: Entity.create() -> e, Entity.alive(e), Entity.destroy(e), Entity.count().
 *
 * Spawn handles, finding, components at run time (what game scripts reach for):
 *   World.spawn(w, "unit"|"level", name [, x, y, z [, qx, qy, qz, qw]]) -> h, a handle (a Lua
 *     table) of everything the spawn made: h.root (the first root), h:entities() (a copy of the
 *     list, in resource order: parents before children), h:count(), h:parent(e), h:children(e)
 *     (h:children() gives the roots), h:child(e, name), and h:find("name") or h:find("a/b/c"):
 *     the first entity of the spawn whose debug name is the last segment and whose parents'
 *     names are the segments before it (so "arm/hand" and "leg/hand" differ), or nil. Names are
 *     debug names (`debug_name = { name = "hand" }` in the source) read when asked, so a renamed
 *     entity is found by its new name. A resource that does not load raises an error naming it.
 *   World.find(w, name) -> the first live entity of w with that debug name, or nil;
 *   World.find_all(w, name) -> all of them (a linear walk of the world's names).
 *   World.add_component(w, e, type, fields) gives a live entity a component: `fields` is a Lua
 *     table ({ kind = "dynamic", mass = 2 }) or SJSON text ("{ mass = 2 }"); the type's own
 *     compiler checks them (an unknown field raises, and the log names it with the nearest known
 *     name) and its validation runs, then its spawner adds the instance. An entity that already
 *     has the component gets what that type's spawner does (debug_name replaces the name).
 *   World.remove_component(w, e, type) removes it, for types that remove instances when told of
 *     dead entities (ct_component_type_t.destroyed); a type that collects lazily raises.
 *
 * Threads: main thread only.
 */
#ifndef CT_WORLD_H
#define CT_WORLD_H

/* The one exception to "include only ct_types.h": this API is about entities (ct_entity_t,
 * ct_world_o), which ct_entity.h defines. */
#include "ct_entity.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_WORLD_API 0x2167c5bdu      /* "ct.world" */
#define CT_DEBUG_NAME_API 0x1d32ccbeu /* "ct.debug_name" */

/* Creation parameters; all zero (or a NULL desc) means the defaults. */
typedef struct ct_world_desc_t {
    /* Names the world's allocators in memory reports ("entities.<name>.transform"); copied,
     * truncated to 31 bytes (never inside a UTF-8 character). NULL: "world". */
    const char *name;
} ct_world_desc_t;

/* Version 0: create, destroy, and spawn a unit at a position. */
typedef struct ct_world_api_v0 {
    /* A new world with a manager of every registered component type, or NULL (logged) when a
     * manager could not be made or memory ran out. */
    ct_world_o *(*create_world)(const ct_world_desc_t *desc);
    /* Destroys the managers and the callback queue. Accepts NULL. */
    void (*destroy_world)(ct_world_o *world);
    /* Spawns the unit `name` (loaded on first use and kept loaded) with its roots at pos (NULL:
     * the origin). Returns its first root entity, or {0} on failure (logged). */
    ct_entity_t (*spawn_unit)(ct_world_o *world, const char *name, const float pos[3]);
} ct_world_api_v0;

/* Version 1: rotations, levels, loaded resources, garbage collection and script callbacks. */
typedef struct ct_world_api_v1 {
    ct_world_o *(*create_world)(const ct_world_desc_t *desc);
    void (*destroy_world)(ct_world_o *world);
    /* As v0, with the roots rotated by the quaternion rot (x, y, z, w; NULL: identity). */
    ct_entity_t (*spawn_unit)(ct_world_o *world, const char *name, const float pos[3],
                              const float rot[4]);
    /* Spawns the level `name` at the origin (loaded on first use and kept loaded). Returns the
     * number of entities made, or a negative ct_error (logged). */
    int (*spawn_level)(ct_world_o *world, const char *name);
    /* Spawns an already-loaded entity resource: `resource` is what ct_resource_api_v1.get
     * returns for a "level" or "unit". pos/rot as spawn_unit. When `out` is not NULL the first
     * `out_capacity` entities made are written there, in resource order (roots come before their
     * children). Returns the number of entities made, or a negative ct_error. */
    int (*spawn_resource)(ct_world_o *world, const void *resource, const float pos[3],
                          const float rot[4], ct_entity_t *out, uint32_t out_capacity);
    /* Runs the `gc` of every lazily collected manager of the world (see ct_component_type_t).
     * The module also does this for every world once per frame (its frame_end hook). */
    void (*collect_garbage)(ct_world_o *world);
    /* Queues the script callback `callback` (e.g. "on_collision", copied, at most 63 bytes) for
     * `entity` with n numbers (copied, n <= 16). A queue nobody runs (World.run_callbacks) keeps
     * at most 4 MB: past that its older half is dropped, with a warning logged once until the
     * next run. Returns 0, CT_ERR_INVALID for bad arguments, or CT_ERR_NOMEM. */
    int (*queue_callback)(ct_world_o *world, ct_entity_t entity, const char *callback,
                          const double *args, uint32_t n);
} ct_world_api_v1;

/* What a world listener is told: the world was just created, or is about to be destroyed. */
#define CT_WORLD_CREATED 1u
#define CT_WORLD_DESTROYED 2u

/* Called on the main thread with the context it was added with. */
typedef void (*ct_world_listener_f)(void *ctx, ct_world_o *world, uint32_t event);

/* Version 2: version 1 (same order) plus what lets a C plugin reach the worlds without Lua
 * handing it pointers. */
typedef struct ct_world_api_v2 {
    ct_world_o *(*create_world)(const ct_world_desc_t *desc);
    void (*destroy_world)(ct_world_o *world);
    /* As v0, with the roots rotated by the quaternion rot (x, y, z, w; NULL: identity). */
    ct_entity_t (*spawn_unit)(ct_world_o *world, const char *name, const float pos[3],
                              const float rot[4]);
    /* Spawns the level `name` at the origin (loaded on first use and kept loaded). Returns the
     * number of entities made, or a negative ct_error (logged). */
    int (*spawn_level)(ct_world_o *world, const char *name);
    /* Spawns an already-loaded entity resource: `resource` is what ct_resource_api_v1.get
     * returns for a "level" or "unit". pos/rot as spawn_unit. When `out` is not NULL the first
     * `out_capacity` entities made are written there, in resource order (roots come before their
     * children). Returns the number of entities made, or a negative ct_error. */
    int (*spawn_resource)(ct_world_o *world, const void *resource, const float pos[3],
                          const float rot[4], ct_entity_t *out, uint32_t out_capacity);
    /* Runs the `gc` of every lazily collected manager of the world (see ct_component_type_t). */
    void (*collect_garbage)(ct_world_o *world);
    /* Queues the script callback `callback` (e.g. "on_collision", copied, at most 63 bytes) for
     * `entity` with n numbers (copied, n <= 16). A queue nobody runs (World.run_callbacks) keeps
     * at most 4 MB: past that its older half is dropped, with a warning logged once until the
     * next run. Returns 0, CT_ERR_INVALID for bad arguments, or CT_ERR_NOMEM. */
    int (*queue_callback)(ct_world_o *world, ct_entity_t entity, const char *callback,
                          const double *args, uint32_t n);
    /* The live worlds: world_at(i) for i < world_count(), or NULL past the end. The order
     * changes when a world is destroyed; walk it anew after any create or destroy. */
    uint32_t (*world_count)(void);
    ct_world_o *(*world_at)(uint32_t i);
    /* Calls fn(ctx, world, CT_WORLD_CREATED) after each world is created and
     * fn(ctx, world, CT_WORLD_DESTROYED) before each is destroyed (with its managers still there).
     * The listener belongs to the plugin that adds it (in init or a hook): once that plugin is
     * unloaded it is dropped, never called. Adding the same fn and ctx twice adds it once. A
     * listener may remove listeners, but must not create or destroy worlds.
     * Returns 0, CT_ERR_INVALID (NULL fn) or CT_ERR_NOMEM. */
    int (*add_world_listener)(ct_world_listener_f fn, void *ctx);
    /* Removes the listener added with the same fn and ctx; nothing when there is none. */
    void (*remove_world_listener)(ct_world_listener_f fn, void *ctx);
} ct_world_api_v2;

/*
 * The debug-name component ("debug_name", source `debug_name = { name = "crate" }`): a name of
 * at most CT_DEBUG_NAME_MAX - 1 bytes (longer ones are truncated, never inside a UTF-8
 * character) per entity per world. It is
 * the reference component manager: structure of arrays in one allocation, a paged index from
 * entity index to instance (a 4 KiB page per 1024 entity indices that have names), swap-erase on
 * removal, and removal of dead entities' names by the entity destroy callback.
 */
#define CT_DEBUG_NAME_MAX 32u

/* An instance of a component in one manager, 0 is none. lookup returns the instance's position
 * (1..count()) with its slot's generation in the high bits: removal moves the last instance into
 * the hole, and both the removed and the moved instance's old handles are then stale (name and
 * entity log it and return NULL / {0}; after 1023 changes of a slot an old handle could pass
 * again). A plain position {k}, k in 1..count(), has no generation and names the k-th instance as
 * the manager is now: that is how a walk over the whole manager goes. */
typedef struct ct_debug_name_instance_t {
    uint32_t i;
} ct_debug_name_instance_t;

typedef struct ct_debug_name_api_v1 {
    /* The instance of e in world, or {0}. */
    ct_debug_name_instance_t (*lookup)(ct_world_o *world, ct_entity_t e);
    /* The name of an instance (owned by the manager, valid like the instance), or NULL. */
    const char *(*name)(ct_world_o *world, ct_debug_name_instance_t i);
    /* The entity of an instance, or {0}. Instances 1..count() walk the whole manager. */
    ct_entity_t (*entity)(ct_world_o *world, ct_debug_name_instance_t i);
    /* Adds or replaces the name of a live entity. CT_ERR_STALE for a dead entity, CT_ERR_INVALID
     * without a manager, CT_ERR_NOMEM. */
    int (*set)(ct_world_o *world, ct_entity_t e, const char *name);
    /* Removes e's name if it has one. */
    void (*remove)(ct_world_o *world, ct_entity_t e);
    /* Number of instances in world. */
    uint32_t (*count)(ct_world_o *world);
} ct_debug_name_api_v1;

#ifdef __cplusplus
}
#endif
#endif
