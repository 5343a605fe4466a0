/*
 * The "transform" component type: per-world managers, compiling the SJSON source into a
 * ct_transform_pose_t, spawning a resource's transforms in one batch, and removing the instances
 * of dead entities.
 */
#include "transforms_internal.h"

#include <math.h>
#include <string.h>

#include "ct_data.h"
#include "ct_log.h"
#include "ct_resource.h"

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    transforms__manager_t *m = ct_alloc(a, sizeof *m);
    if (m)
        transforms__manager_init(m, a, world);
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    transforms__manager_t *m = manager;
    ct_allocator_t *a = m->a;
    transforms__manager_free(m);
    ct_free(a, m, sizeof *m);
}

/* ---- compile ------------------------------------------------------------------------------- */

/* Reads `field` as exactly n finite numbers into out. */
static int read_floats(const ct_data_o *node, const char *field, uint32_t n, float *out,
                       ct_compile_ctx_o *ctx)
{
    const ct_data_api_v1 *data = transforms__m.data;
    const ct_resource_api_v6 *res = transforms__m.resource;
    if (data->type(node) != CT_DATA_ARRAY || data->count(node) != n) {
        res->compile_error(ctx, "transform.%s: expected an array of %u numbers", field, n);
        return CT_ERR_BAD_DATA;
    }
    uint32_t k = 0;
    for (const ct_data_o *c = data->first_child(node); c; c = data->next(c), k++) {
        const double v = data->number(c, NAN);
        if (data->type(c) != CT_DATA_NUMBER || !isfinite(v) || !isfinite((float)v)) {
            res->compile_error(ctx, "transform.%s[%u]: expected a finite number", field, k);
            return CT_ERR_BAD_DATA;
        }
        out[k] = (float)v;
    }
    return 0;
}

static int compile_member(const ct_data_o *member, ct_transform_pose_t *pose, ct_compile_ctx_o *ctx)
{
    const char *key = transforms__m.data->key(member);
    if (strcmp(key, "position") == 0)
        return read_floats(member, key, 3, pose->position, ctx);
    if (strcmp(key, "rotation") == 0)
        return read_floats(member, key, 4, pose->rotation, ctx);
    if (strcmp(key, "scale") == 0)
        return read_floats(member, key, 3, pose->scale, ctx);
    return 0; /* check_fields refused every other field */
}

/* Instance data is a ct_transform_pose_t: ten little-endian floats, 40 bytes. */
static int compile(void *user_data, const ct_data_o *source, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_data_api_v1 *data = transforms__m.data;
    static const ct_field_t fields[] = {{"position", CT_DATA_ARRAY, 3},
                                        {"rotation", CT_DATA_ARRAY, 4},
                                        {"scale", CT_DATA_ARRAY, 3}};
    if (!transforms__m.resource->check_fields(ctx, source, "transform", fields, 3))
        return CT_ERR_BAD_DATA;
    ct_transform_pose_t pose = transforms__identity_pose;
    for (const ct_data_o *c = data->first_child(source); c; c = data->next(c)) {
        const int err = compile_member(c, &pose, ctx);
        if (err)
            return err;
    }
    /* The rule of every other entry point (a rotation is normalised here, once). */
    char why[160];
    if (!transforms__check_pose(&pose, why, sizeof why)) {
        transforms__m.resource->compile_error(ctx, "transform.%s", why);
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &pose, sizeof pose);
    return 0;
}

/* ---- spawn --------------------------------------------------------------------------------- */

/* The nearest resource ancestor of resource entity `r` that has a transform here, or 0. The walk
 * is bounded by the entity count, so a malformed parent_index cannot loop. */
static uint32_t transform_ancestor(const transforms__manager_t *m, const ct_spawn_context_t *ctx,
                                   uint32_t r)
{
    uint32_t a = ctx->parent_index[r];
    for (uint32_t steps = 0; a < ctx->num_entities && steps < ctx->num_entities; steps++) {
        const uint32_t p = transforms__find(m, ctx->entity_lookup[a].id);
        if (p)
            return p;
        a = ctx->parent_index[a];
    }
    return 0;
}

/* Poses at the context's pose: rotate about the context origin, then move there. */
static void place_at_context(const ct_spawn_context_t *ctx, ct_transform_pose_t *pose)
{
    float p[3];
    transforms__quat_rotate(ctx->rotation, pose->position, p);
    for (int k = 0; k < 3; k++)
        pose->position[k] = p[k] + ctx->position[k];
    transforms__quat_mul(ctx->rotation, pose->rotation, pose->rotation);
}

static bool is_identity_pose(const ct_spawn_context_t *ctx)
{
    return ctx->position[0] == 0.0f && ctx->position[1] == 0.0f && ctx->position[2] == 0.0f &&
           ctx->rotation[0] == 0.0f && ctx->rotation[1] == 0.0f && ctx->rotation[2] == 0.0f &&
           ctx->rotation[3] == 1.0f;
}

/* The handles of the instances that need a world update, made on the first one: a flat level
 * placed at the identity has none and allocates nothing. */
typedef struct dirty_list_t {
    ct_transform_t *handle;
    uint32_t count, capacity;
} dirty_list_t;

static bool dirty_add(transforms__manager_t *m, dirty_list_t *d, uint32_t i)
{
    if (!d->handle && !(d->handle = ct_alloc(m->a, (size_t)d->capacity * sizeof *d->handle)))
        return false;
    d->handle[d->count++] = transforms__handle(m, i);
    return true;
}

/*
 * One batch: create every instance (storage grows once), link each to its nearest resource
 * ancestor with a transform (roots and orphans are placed at the context's pose instead), then
 * one propagation pass over the lot, parents before children.
 */
static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    transforms__manager_t *m = manager;
    uint32_t first;
    if (n == 0)
        return;
    if (transforms__create(m, ctx->entity_lookup, entity_index, data, n, NULL, &first) < 0) {
        transforms__m.log->write(transforms__m.self, CT_LOG_ERROR,
                                 "spawn: out of memory for %u transforms", n);
        transforms__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    /* Instances were made in slots first, first + 1, ... in the order of k (an entity skipped by
     * create takes none). Only linked instances and re-placed roots need a world update: a fresh
     * root placed at the identity already has world = local. */
    const bool identity = is_identity_pose(ctx);
    dirty_list_t dirty = {.capacity = n};
    uint32_t i = first;
    for (uint32_t k = 0; k < n && i < m->n; k++) {
        const uint32_t r = entity_index[k];
        if (m->entity[i].id != ctx->entity_lookup[r].id)
            continue;
        const uint32_t parent = transform_ancestor(m, ctx, r);
        bool ok = true;
        if (parent && transforms__link(m, i, parent) == 0) {
            ok = dirty_add(m, &dirty, i);
        } else if (!identity) {
            ct_transform_pose_t pose = m->pose[i];
            place_at_context(ctx, &pose);
            transforms__write_local(m, i, &pose);
            ok = dirty_add(m, &dirty, i);
        }
        if (!ok) {
            /* The instances stay (the spawn fails as a whole and the entities go with them). */
            transforms__m.log->write(transforms__m.self, CT_LOG_ERROR,
                                     "spawn: out of memory placing %u transforms", n);
            transforms__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
            return;
        }
        i++;
    }
    if (dirty.handle) {
        transforms__propagate_batch(m, dirty.handle, dirty.count);
        ct_free(m->a, dirty.handle, (size_t)dirty.capacity * sizeof *dirty.handle);
    }
}

static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    transforms__manager_t *m = manager;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = transforms__find(m, entities[k].id);
        if (i)
            transforms__destroy(m, i);
    }
}

static const ct_component_type_t transform_type = {
    .name = CT_TRANSFORM_COMPONENT_NAME,
    .spawn_order = CT_SPAWN_ORDER_TRANSFORM,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = sizeof(ct_transform_pose_t),
    .compile = compile,
    .spawn = spawn,
    .destroyed = destroyed,
};

/* A compiled pose goes through the rule of every other entry point, so a blob edited or
 * re-signed outside the compiler cannot bring NaN or a zero scale in. */
static bool validate(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    ct_transform_pose_t pose;
    memcpy(&pose, instance, sizeof pose);
    return transforms__check_pose(&pose, why, why_size);
}

/* The layout of a compiled transform inside levels and units (ct_resource_api_v6.declare_format):
 * a change of ct_transform_pose_t as compiled is a new number, so cuttle-compile compiles the
 * levels and units that hold transforms again and older blobs are refused ("recompile"). */
#define TRANSFORM_FORMAT 1

int transforms__register_component(void)
{
    transforms__m.resource->declare_format("component." CT_TRANSFORM_COMPONENT_NAME,
                                           TRANSFORM_FORMAT);
    transforms__m.state->type_id = transforms__m.component->register_type(&transform_type);
    if (!transforms__m.state->type_id)
        return CT_ERR_CONFLICT;
    transforms__m.component->set_validate(transforms__m.state->type_id, validate);
    return 0;
}

bool transforms__rebind_component(void)
{
    return transforms__m.component->replace_type(&transform_type) &&
           transforms__m.component->set_validate(transforms__m.state->type_id, validate);
}

void transforms__unregister_component(void)
{
    if (transforms__m.state->type_id)
        transforms__m.component->unregister_type(transforms__m.state->type_id);
    transforms__m.state->type_id = 0;
}
