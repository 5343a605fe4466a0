/*
 * Entity resources ("level" and "unit"): loading, validation and spawning. The layout is in
 * api/ct_world.h; compiling is in entities_compile.c.
 *
 * Loading validates the whole payload once, then keeps a table of its sections pointing into it
 * (the kernel keeps the payload until unload), so spawning reads u32 arrays and instance data in
 * place and never re-checks.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ct_transform.h"
#include "entities_internal.h"

#include "../common/byte_reader.h"

/* Far more than there are component types; it only bounds the work on a corrupt blob. */
#define MAX_SECTIONS 1024u

typedef struct section_t {
    uint64_t type_id;
    uint32_t num_instances;
    uint32_t instance_size;
    uint32_t format; /* the type's declared format when compiled ("component.<name>") */
    const uint32_t *entity_index;
    const uint8_t *data;
} section_t;

typedef struct entity_resource_t {
    uint32_t num_entities;
    uint32_t num_sections;
    const uint32_t *parent_index;
    section_t *sections;
    size_t block_size;
} entity_resource_t;

typedef struct reader_t {
    byte_reader_t bytes;
    char *err;
    size_t err_size;
} reader_t;

static bool fail(reader_t *r, const char *what, uint64_t value)
{
    snprintf(r->err, r->err_size, "entity resource: %s (%llu) at byte %llu of %llu", what,
             (unsigned long long)value, (unsigned long long)r->bytes.at,
             (unsigned long long)r->bytes.size);
    return false;
}

/* Takes `bytes` bytes (which the caller computed without overflow) or fails naming `what`. */
static const uint8_t *take(reader_t *r, uint64_t bytes, const char *what)
{
    const uint8_t *at = bytes <= SIZE_MAX ? byte_reader__take(&r->bytes, (size_t)bytes) : NULL;
    if (!at)
        fail(r, what, bytes);
    return at;
}

static bool read_u32(reader_t *r, uint32_t *v, const char *what)
{
    return byte_reader__u32(&r->bytes, v) || fail(r, what, 4);
}

/* Padding must be zero: a cheap extra check that catches shifted or corrupt sections. */
static bool align8(reader_t *r)
{
    uint32_t n = (8u - (uint32_t)(r->bytes.at & 7u)) & 7u;
    const uint8_t *pad = take(r, n, "padding past the end");
    for (uint32_t i = 0; pad && i < n; i++) {
        if (pad[i] != 0)
            return fail(r, "non-zero padding byte", pad[i]);
    }
    return pad != NULL;
}

/* The instances of a variable-size section (ct_entity.h, Variable-size instances): each one's
 * leading u32 size within [4, max] and inside the payload, its padding zero. */
static bool take_variable(reader_t *r, const section_t *sec)
{
    const uint32_t max = sec->instance_size & ~CT_COMPONENT_VARIABLE_SIZE;
    if (max < 4u || max > CT_COMPONENT_MAX_VARIABLE_SIZE)
        return fail(r, "a variable instance size's maximum is not 4 to 1 MiB", max);
    for (uint32_t i = 0; i < sec->num_instances; i++) {
        uint32_t size;
        if (!read_u32(r, &size, "variable instance past the end: need bytes"))
            return false;
        if (size < 4u || size > max)
            return fail(r, "a variable instance's size is not 4 to the type's maximum", size);
        if (!take(r, size - 4u, "variable instance past the end: need bytes") || !align8(r))
            return false;
    }
    return true;
}

/* Checks the payload; with `out` also fills in out's pointers (then `p` must be 8-aligned and
 * already checked). The spawner relies on everything checked here. */
static bool parse(reader_t *r, entity_resource_t *out)
{
    uint32_t num_entities, num_sections;
    if (!read_u32(r, &num_entities, "truncated header: need bytes") ||
        !read_u32(r, &num_sections, "truncated header: need bytes"))
        return false;
    if (num_entities > CT_ENTITY_MAX_LIVE)
        return fail(r, "num_entities over the live entity limit", num_entities);
    if (num_sections > MAX_SECTIONS)
        return fail(r, "num_component_types over the limit", num_sections);
    const uint8_t *parents = take(r, (uint64_t)num_entities * 4u, "parent_index past the end");
    if (!parents || !align8(r))
        return false;
    for (uint32_t i = 0; i < num_entities; i++) {
        uint32_t parent;
        memcpy(&parent, parents + 4u * (size_t)i, 4);
        if (parent != UINT32_MAX && parent >= i)
            return fail(r, "a parent_index entry is not an earlier entity", i);
    }
    if (out) {
        out->num_entities = num_entities;
        out->num_sections = num_sections;
        out->parent_index = (const uint32_t *)(const void *)parents;
    }
    for (uint32_t s = 0; s < num_sections; s++) {
        const uint8_t *head = take(r, 24, "truncated component type header: need bytes");
        if (!head)
            return false;
        section_t sec;
        uint32_t reserved;
        memcpy(&sec.type_id, head, 8);
        memcpy(&sec.num_instances, head + 8, 4);
        memcpy(&sec.instance_size, head + 12, 4);
        memcpy(&sec.format, head + 16, 4);
        memcpy(&reserved, head + 20, 4);
        if (reserved != 0)
            return fail(r, "a component type header's reserved field is not 0", reserved);
        const uint8_t *index =
            take(r, (uint64_t)sec.num_instances * 4u, "entity_index past the end");
        if (!index || !align8(r))
            return false;
        for (uint32_t i = 0; i < sec.num_instances; i++) {
            uint32_t e;
            memcpy(&e, index + 4u * (size_t)i, 4);
            if (e >= num_entities)
                return fail(r, "an entity_index entry is out of range", e);
        }
        sec.entity_index = (const uint32_t *)(const void *)index;
        if (sec.instance_size & CT_COMPONENT_VARIABLE_SIZE) {
            sec.data = r->bytes.p + r->bytes.at;
            if (!take_variable(r, &sec))
                return false;
        } else {
            sec.data = take(r, (uint64_t)sec.num_instances * sec.instance_size,
                            "instance data past the end: need bytes");
            if (!sec.data || !align8(r))
                return false;
        }
        if (out)
            out->sections[s] = sec;
    }
    if (byte_reader__left(&r->bytes))
        return fail(r, "bytes left over after the last component type",
                    byte_reader__left(&r->bytes));
    return true;
}

uint32_t entities__component_format(const char *type_name)
{
    char name[96];
    snprintf(name, sizeof name, "component.%s", type_name);
    return entities__services.resource->format(name);
}

/* Runs the validation each registered type set (ct_component_api_v2.set_validate) over its
 * instances: data that passed the layout checks may still hold values its module refuses. */
static bool validate_instances(const entity_resource_t *res, char *err, size_t err_size)
{
    for (uint32_t s = 0; s < res->num_sections; s++) {
        const section_t *sec = &res->sections[s];
        ct_component_validate_f validate = NULL;
        const ct_component_type_t *type = entities__type_of(sec->type_id, &validate);
        if (!type)
            continue;
        /* Data of another layout is refused whole, never read: a layout that changed and kept
         * its size would otherwise spawn garbage without a word. */
        const uint32_t format = entities__component_format(type->name);
        if (sec->format != format) {
            snprintf(err, err_size,
                     "entity resource: component '%s' was compiled with format %u, "
                     "the loaded type reads format %u: recompile (cuttle-compile)",
                     type->name, sec->format, format);
            return false;
        }
        if (!validate || type->instance_size != sec->instance_size)
            continue;
        const bool variable = (sec->instance_size & CT_COMPONENT_VARIABLE_SIZE) != 0;
        const uint8_t *at = sec->data;
        for (uint32_t i = 0; i < sec->num_instances; i++) {
            char why[128] = "";
            const uint8_t *instance = at;
            at = variable ? ct_component_next_instance(at) : at + sec->instance_size;
            if (!validate(type->user_data, instance, why, sizeof why)) {
                snprintf(err, err_size, "entity resource: entity %u, component '%s': %s",
                         sec->entity_index[i], type->name, why);
                return false;
            }
        }
    }
    return true;
}

static void *load(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size)
{
    (void)user_data;
    reader_t r = {{payload, size, 0}, err, err_size};
    if (!parse(&r, NULL))
        return NULL;
    /* The kernel keeps the payload alive until unload (ct_resource.h), so the sections are read
     * where they are. The kernel's payloads are 8-aligned (an allocator block, 40 bytes in); any
     * other is copied to an aligned place first. Copying every level cost a second touch of its
     * bytes: a fresh process's first spawn of a 10k level paid ~200 extra page faults. */
    const bool in_place = ((uintptr_t)payload & 7u) == 0;
    uint32_t num_sections;
    memcpy(&num_sections, (const uint8_t *)payload + 4, 4);
    size_t head =
        (sizeof(entity_resource_t) + (size_t)num_sections * sizeof(section_t) + 7u) & ~(size_t)7u;
    size_t block_size = head + (in_place ? 0 : (size_t)size);
    uint8_t *block = ct_alloc(entities__services.a, block_size);
    if (!block) {
        snprintf(err, err_size, "entity resource: out of memory (%zu bytes)", block_size);
        return NULL;
    }
    entity_resource_t *res = (entity_resource_t *)(void *)block;
    res->sections = (section_t *)(void *)(block + sizeof *res);
    res->block_size = block_size;
    if (!in_place)
        memcpy(block + head, payload, (size_t)size);
    reader_t fill = {{in_place ? payload : block + head, size, 0}, err, err_size};
    parse(&fill, res);
    if (!validate_instances(res, err, err_size)) {
        ct_free(entities__services.a, block, block_size);
        return NULL;
    }
    return res;
}

static void unload(void *user_data, void *runtime)
{
    (void)user_data;
    entity_resource_t *res = runtime;
    if (res)
        ct_free(entities__services.a, res, res->block_size);
}

bool entities__check_spawn_pose(const float pos[3], const float rot[4], float out_rot[4], char *why,
                                size_t why_size)
{
    for (int k = 0; pos && k < 3; k++) {
        if (!isfinite(pos[k]) || fabsf(pos[k]) > CT_TRANSFORM_MAX_POSITION) {
            snprintf(why, why_size, "position[%d] = %g is not a finite number within +-%g", k,
                     (double)pos[k], (double)CT_TRANSFORM_MAX_POSITION);
            return false;
        }
    }
    const float identity[4] = {0, 0, 0, 1};
    const float *q = rot ? rot : identity;
    float len2 = 0;
    for (int k = 0; k < 4; k++) {
        if (!isfinite(q[k])) {
            snprintf(why, why_size, "rotation[%d] is not a finite number", k);
            return false;
        }
        len2 += q[k] * q[k];
    }
    /* Said as transforms says it: a component past 1e19 overflows the squared length, which is
     * not a zero-length rotation. */
    if (!(len2 > 1e-24f) || !isfinite(len2)) {
        snprintf(why, why_size,
                 "rotation = [%.3g %.3g %.3g %.3g] does not normalise: its length %s", (double)q[0],
                 (double)q[1], (double)q[2], (double)q[3],
                 isfinite(len2) ? "is zero or nearly" : "overflows a float");
        return false;
    }
    /* A unit rotation is kept bit for bit; others are normalised, as transforms does. */
    const float scale = fabsf(len2 - 1) > 1e-6f ? 1 / sqrtf(len2) : 1;
    for (int k = 0; k < 4; k++)
        out_rot[k] = q[k] * scale;
    return true;
}

/* A spawn in progress: its context (what spawners get) and the first failure a spawner reported.
 * Spawns nest when a spawner spawns, hence a stack. */
typedef struct spawn_run_t {
    ct_spawn_context_t ctx;
    int error;
    struct spawn_run_t *outer;
} spawn_run_t;

static spawn_run_t *active_spawns;

void entities__spawn_failed(const ct_spawn_context_t *ctx, int err)
{
    for (spawn_run_t *run = active_spawns; run; run = run->outer) {
        if (&run->ctx == ctx) {
            if (run->error == 0)
                run->error = err < 0 ? err : CT_ERR_NOMEM;
            return;
        }
    }
    entities__log(CT_LOG_ERROR, "spawn_failed: %p is not the context of a spawn in progress",
                  (const void *)ctx);
}

/* "unit 'units/crate'" while entities__spawn_named spawns it (a resource handed to
 * spawn_resource has no name the module knows). Spawns nest (a spawn callback may spawn), so
 * each spawn_named restores the outer label. */
static char spawn_label[160];

/* Says which resource held sections of types not registered now, and which types by id (the
 * blob keeps only the hash of a type's name: `cuttle-hash <name>` prints the id of a name). */
static void report_skipped(const entity_resource_t *res, uint32_t spawned)
{
    char ids[160] = "";
    size_t used = 0;
    uint32_t listed = 0, skipped = res->num_sections - spawned;
    for (uint32_t s = 0; s < res->num_sections && listed < 4; s++) {
        const section_t *sec = &res->sections[s];
        if (entities__type_slot(sec->type_id) >= 0)
            continue;
        int n = snprintf(ids + used, sizeof ids - used, "%s0x%016llx (%u instance%s)",
                         listed ? ", " : "", (unsigned long long)sec->type_id, sec->num_instances,
                         sec->num_instances == 1 ? "" : "s");
        if (n < 0 || (size_t)n >= sizeof ids - used)
            break;
        used += (size_t)n;
        listed++;
    }
    entities__log(CT_LOG_WARNING,
                  "spawn of %s: %u component section%s of unregistered type%s "
                  "skipped: type id%s %s%s (is the plugin that registers %s loaded? `cuttle-hash "
                  "<name>` prints a type name's id)",
                  spawn_label[0] ? spawn_label : "a resource", skipped, skipped == 1 ? "" : "s",
                  skipped == 1 ? "" : "s", listed == 1 ? "" : "s", ids,
                  listed < skipped ? ", ..." : "", skipped == 1 ? "it" : "them");
}

int entities__spawn_resource(ct_world_o *world, const void *resource, const float pos[3],
                             const float rot[4], ct_entity_t *out, uint32_t out_capacity)
{
    const entity_resource_t *res = resource;
    entities__drop_orphan_types();
    if (!entities__world_valid(world) || !res) {
        entities__log(CT_LOG_ERROR, "spawn: no world %p or no resource", (void *)world);
        return CT_ERR_INVALID;
    }
    float rotation[4];
    char why[160];
    if (!entities__check_spawn_pose(pos, rot, rotation, why, sizeof why)) {
        entities__log(CT_LOG_ERROR, "spawn: %s; nothing spawned", why);
        return CT_ERR_INVALID;
    }
    uint32_t n = res->num_entities;
    if (n == 0)
        return 0;
    if (n > CT_ENTITY_MAX_LIVE - CT_ENTITY_MIN_FREE_INDICES - entities__live_count()) {
        entities__log(CT_LOG_ERROR,
                      "spawn: %u entities would pass the live entity limit; nothing "
                      "spawned",
                      n);
        return CT_ERR_FULL;
    }
    ct_entity_t *lookup = ct_alloc(entities__services.a, (size_t)n * sizeof *lookup);
    if (!lookup)
        return CT_ERR_NOMEM;
    /* Under the limit, only memory (growing the entity array) can make fewer. */
    uint32_t made = entities__create_batch(lookup, n);
    if (made < n) {
        entities__destroy_batch(lookup, made);
        ct_free(entities__services.a, lookup, (size_t)n * sizeof *lookup);
        return CT_ERR_NOMEM;
    }
    spawn_run_t run = {
        .ctx =
            {
                .world = world,
                .entity_lookup = lookup,
                .parent_index = res->parent_index,
                .num_entities = n,
                .position = {0, 0, 0},
            },
        .outer = active_spawns,
    };
    const ct_spawn_context_t *ctx = &run.ctx;
    if (pos)
        memcpy(run.ctx.position, pos, sizeof run.ctx.position);
    memcpy(run.ctx.rotation, rotation, sizeof run.ctx.rotation);
    active_spawns = &run;

    /* One spawn call per section, types in spawn order; sections of types not registered now
     * are counted and reported once. */
    uint32_t num_types, spawned = 0;
    const uint32_t *order = entities__spawn_order(&num_types);
    for (uint32_t t = 0; t < num_types && run.error == 0; t++) {
        const ct_component_type_t *type = entities__type_at(order[t]);
        uint64_t id = entities__type_id_at(order[t]);
        void *manager = entities__world_manager_at(world, order[t]);
        for (uint32_t s = 0; s < res->num_sections && run.error == 0; s++) {
            const section_t *sec = &res->sections[s];
            if (sec->type_id != id)
                continue;
            spawned++;
            if (sec->instance_size != type->instance_size) {
                entities__log(CT_LOG_WARNING,
                              "spawn: '%s' data is %u bytes per instance, the type "
                              "wants %u (recompile the resource); skipped",
                              type->name, sec->instance_size, type->instance_size);
                continue;
            }
            if (manager)
                type->spawn(manager, ctx, sec->num_instances, sec->entity_index, sec->data);
        }
    }
    active_spawns = run.outer;
    if (run.error) {
        /* All or nothing: the entities go, and with them every instance made for them. */
        entities__log(CT_LOG_ERROR,
                      "spawn: a component could not be spawned (%s); the %u "
                      "entities made are destroyed again",
                      entities__services.log->error_message(run.error), n);
        entities__destroy_batch(lookup, n);
        ct_free(entities__services.a, lookup, (size_t)n * sizeof *lookup);
        return run.error;
    }
    if (spawned < res->num_sections)
        report_skipped(res, spawned);

    if (out)
        memcpy(out, lookup, (size_t)(n < out_capacity ? n : out_capacity) * sizeof *out);
    ct_free(entities__services.a, lookup, (size_t)n * sizeof *lookup);
    return (int)n;
}

int entities__spawn_named(ct_world_o *world, const char *type, const char *name, const float pos[3],
                          const float rot[4], ct_entity_t *first)
{
    const ct_resource_api_v6 *resource = entities__services.resource;
    if (!name)
        return CT_ERR_INVALID;
    /* Loaded on first use and kept: the resource types' unregistration at shutdown unloads it. */
    void *res = resource->get(type, name);
    if (!res) {
        int err = resource->load(type, name);
        if (err < 0)
            return err;
        res = resource->get(type, name);
    }
    char outer[sizeof spawn_label];
    memcpy(outer, spawn_label, sizeof outer);
    snprintf(spawn_label, sizeof spawn_label, "%s '%s'", type, name);
    int result = entities__spawn_resource(world, res, pos, rot, first, first ? 1 : 0);
    memcpy(spawn_label, outer, sizeof outer);
    return result;
}

static const char *const resource_names[ENTITIES_NUM_RESOURCE_TYPES] = {"level", "unit"};

static ct_resource_type_t resource_type(uint32_t i)
{
    return (ct_resource_type_t){
        .type = resource_names[i],
        /* 2: each section records its component type's format (ct_world.h). */
        .format_version = 2,
        .compile = entities__resource_compile,
        .load = load,
        .unload = unload,
    };
}

int entities__resource_init(void)
{
    const ct_resource_api_v6 *resource = entities__services.resource;
    ct_resource_type_t *registered = entities__state->resource_types;
    for (uint32_t i = 0; i < ENTITIES_NUM_RESOURCE_TYPES; i++) {
        registered[i] = resource_type(i);
        int err = resource->register_type(&registered[i]);
        if (err < 0) {
            entities__log(CT_LOG_ERROR, "could not register resource type '%s': %s",
                          resource_names[i], entities__services.log->error_message(err));
            while (i--)
                resource->unregister_type(resource_names[i]);
            return err;
        }
    }
    return 0;
}

/* All or nothing, so a refused reload leaves every type with the old code. */
int entities__resource_rebind(void)
{
    const ct_resource_api_v6 *resource = entities__services.resource;
    ct_resource_type_t *registered = entities__state->resource_types;
    ct_resource_type_t fresh[ENTITIES_NUM_RESOURCE_TYPES];
    for (uint32_t i = 0; i < ENTITIES_NUM_RESOURCE_TYPES; i++) {
        fresh[i] = resource_type(i);
        int err = resource->replace_type(&fresh[i]);
        if (err < 0) {
            while (i--)
                resource->replace_type(&registered[i]);
            return err;
        }
    }
    memcpy(registered, fresh, sizeof fresh);
    return 0;
}

/* Unregistering unloads every level and unit still loaded (those spawned by name included). */
void entities__resource_shutdown(void)
{
    for (uint32_t i = 0; i < ENTITIES_NUM_RESOURCE_TYPES; i++)
        entities__services.resource->unregister_type(resource_names[i]);
}

uint32_t entities__resource_entities(const void *resource, const uint32_t **parent_index)
{
    const entity_resource_t *res = resource;
    *parent_index = res ? res->parent_index : NULL;
    return res ? res->num_entities : 0;
}

const void *entities__resource_section(const void *resource, uint64_t type_id,
                                       uint32_t *num_instances, const uint32_t **entity_index)
{
    const entity_resource_t *res = resource;
    for (uint32_t s = 0; res && s < res->num_sections; s++)
        if (res->sections[s].type_id == type_id) {
            *num_instances = res->sections[s].num_instances;
            *entity_index = res->sections[s].entity_index;
            return res->sections[s].data;
        }
    return NULL;
}
