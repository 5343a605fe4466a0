/*
 * ct_entity.h: entities and component types. APIs "ct.entity" (served by modules/entities) and
 * "ct.component" (the component-type registry, same module).
 *
 * An entity is only an id: 22 bits of index and 10 bits of generation. It owns no data; component
 * managers (transforms, physics, a game's own) own the data of the entities they know, per world.
 * alive() is one array lookup. A destroyed index is reused only after at least
 * CT_ENTITY_MIN_FREE_INDICES others wait in the queue, so an id comes back only after its index
 * went round all generations: with 1024 free indices and 10 generation bits, at least
 * 1025 * 1023 destroys (alive() of the old id turns true again once its index's generation comes
 * round, even while the index waits in the queue). That holds even once every index has been used: up to CT_ENTITY_MAX_LIVE -
 * CT_ENTITY_MIN_FREE_INDICES entities live at once (create fails beyond, logged), so the minimum
 * always waits in the queue. The id 0 is never handed out.
 *
 * Worlds (ct_world_o, see ct_world.h) hold one manager per component type. One entity may have
 * components in several worlds (a game world and an inventory world).
 *
 * Hot reload. ct_entities.so can be rebuilt while the game runs (see ct_plugin.h): entities,
 * worlds with their managers and queued callbacks, registered component types, loaded levels and
 * units, and the scripts' World/Entity references and callbacks all carry over, and the tables
 * above keep their addresses. The new code takes over the "debug_name" component type and the
 * "level" and "unit" resource types. A build whose internal state layout differs (the module's
 * ENTITIES_LAYOUT_VERSION) is refused, with the reason logged, and the old code keeps running:
 * restart to use it. Modules that register component types re-point them at their new code on
 * their own reload with ct_component_api_v1.replace_type.
 */
#ifndef CT_ENTITY_H
#define CT_ENTITY_H

#include <string.h>

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_ENTITY_API 0x3aac75b5u    /* "ct.entity" */
#define CT_COMPONENT_API 0x90ed8af6u /* "ct.component" */

#define CT_ENTITY_INDEX_BITS 22
#define CT_ENTITY_GENERATION_BITS 10
#define CT_ENTITY_MAX_LIVE ((1u << CT_ENTITY_INDEX_BITS) - 1u)
#define CT_ENTITY_MIN_FREE_INDICES 1024u

/* An entity: its id, CT_ENTITY_INDEX_BITS of index then CT_ENTITY_GENERATION_BITS of generation
 * (see above). {0} is no entity. */
typedef struct ct_entity_t {
    uint32_t id;
} ct_entity_t;

/* The index bits of e (its slot, reused after the entity dies) and its generation bits. */
static inline uint32_t ct_entity_index(ct_entity_t e)
{
    return e.id & ((1u << CT_ENTITY_INDEX_BITS) - 1u);
}
static inline uint32_t ct_entity_generation(ct_entity_t e) { return e.id >> CT_ENTITY_INDEX_BITS; }

/* A world: a set of component managers. Opaque; made by ct_world_api (ct_world.h). */
typedef struct ct_world_o ct_world_o;

/* Called with a batch of entities just destroyed (they are already dead: alive() is false). */
typedef void (*ct_entity_destroyed_f)(void *user_data, const ct_entity_t *entities, uint32_t n);

/* Version 1: the single-entity API of the seed's part 1. */
typedef struct ct_entity_api_v1 {
    /* A new entity, or {0} when CT_ENTITY_MAX_LIVE - CT_ENTITY_MIN_FREE_INDICES are live
     * (logged). */
    ct_entity_t (*create)(void);
    /* Destroys e; a dead or invalid e is ignored (logged at debug level). */
    void (*destroy)(ct_entity_t e);
    bool (*alive)(ct_entity_t e);
} ct_entity_api_v1;

/* Version 2: batches and destroy callbacks. */
typedef struct ct_entity_api_v2 {
    ct_entity_t (*create)(void);
    void (*destroy)(ct_entity_t e);
    bool (*alive)(ct_entity_t e);
    /* Creates n entities into out; returns how many were made (< n only when full). */
    uint32_t (*create_batch)(ct_entity_t *out, uint32_t n);
    /* Destroys n entities (dead ones are skipped), then calls the destroy callbacks once with the
     * batch of those that died. */
    void (*destroy_batch)(const ct_entity_t *entities, uint32_t n);
    /* Registers fn(user_data, dead, n) to be called after every destroy/destroy_batch. Returns a
     * handle > 0 for remove_destroy_callback, or 0 when the table of callbacks is full. */
    uint32_t (*add_destroy_callback)(ct_entity_destroyed_f fn, void *user_data);
    void (*remove_destroy_callback)(uint32_t handle);
    /* Number of live entities. */
    uint32_t (*live_count)(void);
} ct_entity_api_v2;

struct ct_data_o;
struct ct_compile_ctx_o;

/*
 * What a spawner gets besides its own instance data: the entities of the resource being spawned
 * (entity_lookup[i] is the i-th entity of the resource), their parents (parent_index[i] is the
 * index of i's parent in the resource, UINT32_MAX for roots) and the pose the roots are placed at.
 */
typedef struct ct_spawn_context_t {
    ct_world_o *world; /* the world spawned into */
    const ct_entity_t
        *entity_lookup;           /* num_entities: the resource's entities, made for this spawn */
    const uint32_t *parent_index; /* num_entities: each one's parent (UINT32_MAX: a root) */
    uint32_t num_entities;
    float position[3]; /* where the resource's roots go */
    float rotation[4]; /* quaternion x, y, z, w */
} ct_spawn_context_t;

/*
 * The engine's own component types spawn in this order (ct_component_type_t.spawn_order, lowest
 * first). A game's type that reads another type's instances at spawn picks a number above it:
 * e.g. CT_SPAWN_ORDER_PHYSICS + 1 for a type that needs bodies. Numbers may repeat; types of one
 * number spawn in registration order.
 */
#define CT_SPAWN_ORDER_TRANSFORM 0u     /* "transform": first, everything else reads it */
#define CT_SPAWN_ORDER_PHYSICS 10u      /* physics bodies and colliders */
#define CT_SPAWN_ORDER_ANIMATION 20u    /* "animation": after transforms */
#define CT_SPAWN_ORDER_RENDER 20u       /* meshes, lights, cameras: after transforms and physics */
#define CT_SPAWN_ORDER_FORCE_FIELD 25u  /* physics force fields: after transforms and bodies */
#define CT_SPAWN_ORDER_PARTICLES 30u    /* particle emitters: after transforms */
#define CT_SPAWN_ORDER_NETWORK 100u     /* "network": after everything it replicates */
#define CT_SPAWN_ORDER_DEBUG_NAME 1000u /* "debug_name": last */

/*
 * A component type, registered by the module that implements it (transforms, physics, a game's
 * own). Every callback runs on the main thread. Strings must stay valid while registered.
 */
typedef struct ct_component_type_t {
    /* Unique name, e.g. "transform"; its ct_hash64 identifies the type in compiled resources and
     * is the key SJSON sources use under `components`. */
    const char *name;
    /* Types spawn in increasing spawn_order (transforms before the things that read them). */
    uint32_t spawn_order;
    void *user_data;

    /* A manager for one world; destroyed with the world. `a` is a tracked allocator the manager
     * allocates from. Return NULL on failure (the world is not created). */
    void *(*create_manager)(void *user_data, ct_world_o *world, ct_allocator_t *a);
    void (*destroy_manager)(void *user_data, void *manager);

    /* Bytes of compiled instance data per instance (fixed for the type; may be 0). When the
     * layout of these bytes changes, even at the same size, the module declares a new format
     * with ct_resource_api_v6.declare_format("component.<name>", N): levels and units record
     * it per section, cuttle-compile compiles them again and the loader refuses older data
     * ("recompile") instead of reading it as the new layout. Undeclared is format 0.
     * With CT_COMPONENT_VARIABLE_SIZE set, instances vary in size up to the other bits' bytes
     * (see Variable-size instances below). */
    uint32_t instance_size;
    /* Compiles one component's source (the value under `components.<name>` of an entity) into
     * instance_size bytes at out (zeroed first; a variable-size type writes at most its maximum
     * and says how many in the instance's first u32). Report bad data with
     * ct_resource_api_v1.compile_error(ctx, ...) naming the field and return a negative
     * ct_error. */
    int (*compile)(void *user_data, const struct ct_data_o *source, void *out,
                   struct ct_compile_ctx_o *ctx);
    /* Spawns n instances in one call: instance i belongs to
     * ctx->entity_lookup[entity_index[i]] and its data is data + i * instance_size (variable-size
     * types: instance i follows instance i - 1, see ct_component_next_instance). */
    void (*spawn)(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data);

    /* Exactly one of these two: `destroyed` is called with every batch of dead entities (the
     * manager removes their instances at once); or `gc` (with destroyed NULL) removes instances
     * of dead entities lazily (the seed's random probe: stop after 4 live hits in a row). `gc` is
     * called once per frame for every world and by ct_world_api.collect_garbage, so it must be
     * bounded: see ct_component_api_v2.gc_probe. */
    void (*destroyed)(void *manager, const ct_entity_t *entities, uint32_t n);
    void (*gc)(void *manager);
} ct_component_type_t;

/*
 * Variable-size instances. A type whose compiled data differs in size from one instance to the
 * next (a collision shape of 4 or of 64 points, a compound of 2 or of 16 parts) sets
 * instance_size to CT_COMPONENT_VARIABLE_SIZE | max, the most bytes one instance may take
 * (4 to CT_COMPONENT_MAX_VARIABLE_SIZE). Each instance then starts with a u32 holding its own
 * size in bytes, that u32 included (4 to max): compile writes it with the rest. In a compiled
 * level or unit the section's instances follow each other, each padded with zero bytes to a
 * multiple of 8 (so each starts 8-aligned), and the loader checks every size against max and
 * against the section before validation or spawning sees an instance: a validator may trust the
 * first u32 of the instance it is given, and a spawner walks its `data` with
 * ct_component_next_instance. A level that holds one body of 64 points pays for those points only.
 */
#define CT_COMPONENT_VARIABLE_SIZE 0x80000000u
#define CT_COMPONENT_MAX_VARIABLE_SIZE (1u << 20)

/* The instance after `instance` in a spawner's data of a variable-size type. */
static inline const void *ct_component_next_instance(const void *instance)
{
    uint32_t size;
    memcpy(&size, instance, 4);
    return (const char *)instance + ((size + 7u) & ~7u);
}

typedef struct ct_component_api_v1 {
    /* Registers a type (copied). Returns its id (ct_hash64(name)), or 0 when the name is taken
     * (logged). Worlds created afterwards get a manager of it; existing worlds get one too. */
    uint64_t (*register_type)(const ct_component_type_t *type);
    /* Destroys the type's managers in every world and forgets it. */
    void (*unregister_type)(uint64_t type_id);
    /* The manager of a type in a world, or NULL. */
    void *(*manager)(ct_world_o *world, uint64_t type_id);
    /* The ct_hash64 of a type name (the same as register_type returns). */
    uint64_t (*type_id)(const char *name);
    /* For hot reload: gives a registered type new callbacks (same name, same instance_size;
     * managers are kept, create_manager is not called again). False if no type has that name or
     * the instance size differs (logged; the type is then left as it was). The module calls it from
     * its reload_load with the type it registered at init, now pointing at the new code. */
    bool (*replace_type)(const ct_component_type_t *type);
} ct_component_api_v1;

/* Checks one compiled instance of a type (instance_size bytes at `instance`) when a resource
 * holding it is loaded, so data that was not made by the compiler (a re-signed or hand-edited
 * blob) is refused at load, never spawned. Return false with the field at fault in `why`. */
typedef bool (*ct_component_validate_f)(void *user_data, const void *instance, char *why,
                                        size_t why_size);

/* Probes per manager per frame the garbage collection may spend (see gc_probe). */
#define CT_COMPONENT_GC_PROBES 32u

/*
 * Version 2: everything of v1 (same order, same meaning), plus:
 *   - validation of compiled instances at load (set_validate);
 *   - spawning that fails as a whole (spawn_failed);
 *   - the seed's random-probe collection with a bound (gc_probe). The entities module calls the
 *     `gc` of every lazily collected manager of every world once per frame (its frame_end hook),
 *     besides ct_world_api_v1.collect_garbage; a `gc` must therefore be cheap and bounded:
 *     written with gc_probe, it costs at most CT_COMPONENT_GC_PROBES probes per call.
 */
typedef struct ct_component_api_v2 {
    uint64_t (*register_type)(const ct_component_type_t *type);
    void (*unregister_type)(uint64_t type_id);
    void *(*manager)(ct_world_o *world, uint64_t type_id);
    uint64_t (*type_id)(const char *name);
    bool (*replace_type)(const ct_component_type_t *type);

    /* Sets (or with NULL clears) the validation of a registered type's compiled instances; it
     * is called with the type's user_data for every instance of the type in every "level" or
     * "unit" loaded from then on, and a refusal fails the load naming the resource, the entity
     * and the type. Kept across replace_type: a module re-sets it from its reload to use its new
     * code. False for an unknown type (logged). */
    bool (*set_validate)(uint64_t type_id, ct_component_validate_f validate);

    /* Called by a spawner (ct_component_type_t.spawn) that could not make its instances, with
     * the context it was given and the reason (usually CT_ERR_NOMEM). The spawn then fails as a
     * whole: no further type spawns, every entity made for it is destroyed (so each type's
     * `destroyed` removes what it made; lazily collected types see the entities dead) and the
     * spawn returns the error. A spawner that fails must leave its manager as it was. */
    void (*spawn_failed)(const ct_spawn_context_t *ctx, int err);

    /* One bounded step of the seed's random-probe collection over a manager's packed array of
     * the entities it holds: probes random positions (drawing from *rng, any nonzero seed)
     * until it finds one whose entity is dead, and returns that position, or returns UINT32_MAX
     * once 4 live ones were met in a row or *budget probes were spent (each probe takes one off
     * *budget). The manager removes the instance (swap-erase) and calls again:
     *     uint32_t budget = CT_COMPONENT_GC_PROBES, i;
     *     while ((i = api->gc_probe(m->entity, m->n, &m->rng, &budget)) != UINT32_MAX)
     *         remove_at(m, i);
     */
    uint32_t (*gc_probe)(const ct_entity_t *entities, uint32_t n, uint64_t *rng, uint32_t *budget);

    /* Entity order, for systems that walk two components at once (see ct_entity_join_next):
     * writes to order[0..n) the permutation that sorts `entities` by ct_entity_order_key
     * (ascending; stable), using scratch[0..3n) as work space. A radix sort: O(n), no
     * allocation.
     * A manager applies it to its arrays after adds and removals, before such a walk. */
    void (*sort_by_entity)(const ct_entity_t *entities, uint32_t n, uint32_t *order,
                           uint32_t *scratch);
} ct_component_api_v2;

/*
 * Walking two components' data together at array speed. When two managers keep their arrays in
 * entity order (sort_by_entity above), the instances of the entities they share are found by one
 * merge walk, with no hash lookup. ct_entity_join_run finds the next shared entity and returns
 * how many positions from there hold the same entities in both arrays, so the system's own loop
 * over a run is a plain array loop the compiler vectorises; when both managers hold the same
 * entities the whole walk is one run:
 *
 *     uint32_t run;
 *     for (ct_entity_join_t j = {0, 0};
 *          (run = ct_entity_join_run(pos->entity, pos->n, vel->entity, vel->n, &j)) != 0;
 *          j.a += run, j.b += run)
 *         for (uint32_t k = 0; k < run; k++)
 *             integrate(&pos->p[j.a + k], &vel->v[j.b + k], dt);
 */
static inline uint32_t ct_entity_order_key(ct_entity_t e)
{
    return (e.id << CT_ENTITY_GENERATION_BITS) | (e.id >> CT_ENTITY_INDEX_BITS);
}

/* One entity two entity-ordered arrays share (ct_entity_join_next): where it is in each. */
typedef struct ct_entity_join_t {
    uint32_t a, b; /* positions in the first and the second array */
} ct_entity_join_t;

/* Advances j to the next pair of positions holding the same entity and returns the length of
 * the run of equal entities from there (0 at the end of either array). Both arrays must be
 * sorted by ct_entity_order_key. */
static inline uint32_t ct_entity_join_run(const ct_entity_t *a, uint32_t na, const ct_entity_t *b,
                                          uint32_t nb, ct_entity_join_t *j)
{
    while (j->a < na && j->b < nb && a[j->a].id != b[j->b].id) {
        if (ct_entity_order_key(a[j->a]) < ct_entity_order_key(b[j->b]))
            j->a++;
        else
            j->b++;
    }
    /* The run is measured 64 entities at a time with memcmp (vectorised by the C library), then
     * one by one at its end: for managers holding the same entities this is the whole walk. */
    const uint32_t most = na - j->a < nb - j->b ? na - j->a : nb - j->b;
    uint32_t run = 0;
    while (most - run >= 64 && memcmp(a + j->a + run, b + j->b + run, 64 * sizeof *a) == 0)
        run += 64;
    while (run < most && a[j->a + run].id == b[j->b + run].id)
        run++;
    return run;
}

/*
 * Finding an entity's instance in a component manager: a paged index on the entity's index bits.
 * Page p holds one u32 for each entity index from p * CT_ENTITY_PAGE to p * CT_ENTITY_PAGE +
 * CT_ENTITY_PAGE - 1, made (zeroed) the first time an entity of that range gets an entry. 0 means
 * "none"; the manager chooses what the other values mean (usually its instance + 1). A lookup is
 * two dependent loads, a removal one store: no probing, so the cost does not depend on the order
 * entities came and went. The entry belongs to an index, not to an entity: the manager compares
 * the entity it keeps at that instance with the one asked about, which also tells an older entity
 * of the same index from the live one.
 *
 * Memory: the page table, plus 4 KiB per range of CT_ENTITY_PAGE indices that ever had an entry
 * (pages are kept until ct_entity_pages_free), 16 MiB at the very most. Entities made together
 * have neighbouring indices and share pages.
 *
 *     if (!ct_entity_pages_reserve(&m->index, m->a, e))   // before changing anything
 *         return CT_ERR_NOMEM;
 *     *ct_entity_pages_entry(&m->index, e) = m->n + 1;    // exists once reserved
 *     ...
 *     const uint32_t *at = ct_entity_pages_entry(&m->index, e);
 *     const bool has = at && *at && m->entity[*at - 1].id == e.id;
 *
 * Single-threaded like the manager that holds it; a zeroed ct_entity_pages_t is an empty index.
 */
#define CT_ENTITY_PAGE_BITS 10u
#define CT_ENTITY_PAGE (1u << CT_ENTITY_PAGE_BITS)

/* The paged index (see above): one uint32_t per entity index, in pages made on first use. */
typedef struct ct_entity_pages_t {
    uint32_t **pages;   /* num_pages entries; NULL where no page was made */
    uint32_t num_pages; /* a power of two, at most 2^(CT_ENTITY_INDEX_BITS - CT_ENTITY_PAGE_BITS) */
} ct_entity_pages_t;

/* The entry of e's index, or NULL when its page was never made (no entry: as 0). */
static inline uint32_t *ct_entity_pages_entry(const ct_entity_pages_t *p, ct_entity_t e)
{
    const uint32_t index = ct_entity_index(e), page = index >> CT_ENTITY_PAGE_BITS;
    return page < p->num_pages && p->pages[page] ? &p->pages[page][index & (CT_ENTITY_PAGE - 1u)]
                                                 : (uint32_t *)NULL;
}

/* Makes sure e's entry exists (allocating from `a` its page and room in the page table); false
 * when memory ran out, with the index as it was. */
static inline bool ct_entity_pages_reserve(ct_entity_pages_t *p, ct_allocator_t *a, ct_entity_t e)
{
    const uint32_t page = ct_entity_index(e) >> CT_ENTITY_PAGE_BITS;
    if (page < p->num_pages && p->pages[page])
        return true;
    if (page >= p->num_pages) {
        uint32_t num = p->num_pages ? p->num_pages : 16u;
        while (num <= page)
            num *= 2u;
        uint32_t **pages =
            (uint32_t **)ct_realloc(a, p->pages, p->num_pages * sizeof *pages, num * sizeof *pages);
        if (!pages)
            return false;
        memset(pages + p->num_pages, 0, (num - p->num_pages) * sizeof *pages);
        p->pages = pages;
        p->num_pages = num;
    }
    uint32_t *entries = (uint32_t *)ct_alloc(a, CT_ENTITY_PAGE * sizeof *entries);
    if (!entries)
        return false;
    memset(entries, 0, CT_ENTITY_PAGE * sizeof *entries);
    p->pages[page] = entries;
    return true;
}

/* Frees every page and the table (to `a`, the allocator they came from); leaves an empty index. */
static inline void ct_entity_pages_free(ct_entity_pages_t *p, ct_allocator_t *a)
{
    for (uint32_t k = 0; k < p->num_pages; k++) {
        if (p->pages[k])
            ct_free(a, p->pages[k], CT_ENTITY_PAGE * sizeof *p->pages[k]);
    }
    if (p->pages)
        ct_free(a, p->pages, p->num_pages * sizeof *p->pages);
    p->pages = NULL;
    p->num_pages = 0;
}

#ifdef __cplusplus
}
#endif
#endif
