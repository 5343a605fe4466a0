/*
 * physics_component.c: the "point_mass" and "body" component types: compiling their resources,
 * the per-world managers, spawning, and what happens when entities die.
 *
 * Each world has a "point_mass" manager (physics__points, collected lazily like the seed's part 2)
 * and a "body" manager (a physics__scene, whose instances go at once when their entity dies: a
 * dead body must stop colliding in the very next step).
 */
#include "physics_body_data.h"
#include "physics_mesh_resource.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void *create_points(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    (void)world;
    physics__point_manager *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (physics__point_manager){.points = {.a = a, .map.a = a}, .rng = 0x9e3779b97f4a7c15ull};
    return m;
}

static void destroy_points(void *user_data, void *manager)
{
    (void)user_data;
    physics__point_manager *m = manager;
    ct_allocator_t *a = m->points.a;
    physics__points_free(&m->points);
    ct_free(a, m, sizeof *m);
}

/* The seed's lazy collection, bounded: called every frame, it spends at most
 * CT_COMPONENT_GC_PROBES probes (ct_component_api_v2.gc_probe). */
static void gc_points(void *manager)
{
    physics__point_manager *m = manager;
    physics__points *p = &m->points;
    uint32_t budget = CT_COMPONENT_GC_PROBES, i;
    while ((i = physics__m.component->gc_probe(p->entity, p->n, &m->rng, &budget)) != UINT32_MAX)
        physics__points_remove(p, p->entity[i]);
}

static void *create_bodies(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    physics__body_manager *m = ct_alloc(a, sizeof *m);
    if (!m)
        return NULL;
    *m = (physics__body_manager){.world = world};
    physics__scene_init(&m->scene, a);
    return m;
}

static void destroy_bodies(void *user_data, void *manager)
{
    (void)user_data;
    physics__body_manager *m = manager;
    ct_allocator_t *a = m->scene.a;
    /* The world is going from inside a character's contact callback: the move it interrupted
     * touches nothing of it again (physics.c, physics__move_guard). */
    if (m->guard)
        physics__move_guard_world_gone(m->guard);
    physics__scene_free(&m->scene);
    ct_free(a, m, sizeof *m);
}

static void destroyed_bodies(void *manager, const ct_entity_t *entities, uint32_t n)
{
    physics__body_manager *m = manager;
    /* Destroyed from inside a character's contact callback: the move still walks the bodies, so
     * they go when it ends (physics__bodies_of_dead, from move_character). */
    if (m->moving) {
        m->dead = true;
        return;
    }
    /* Their joints first, in one pass (physics__scene_remove drops them one entity at a time). */
    (void)physics__joints_drop_entities(&m->scene, entities, n);
    for (uint32_t k = 0; k < n; k++)
        physics__scene_remove(&m->scene, entities[k]);
}

/* Reads an optional [x y z] of finite numbers; false (reported) if present and malformed. */
static bool compile_vec3(const ct_data_o *src, const char *field, float out[3],
                         ct_compile_ctx_o *ctx)
{
    const ct_data_api_v1 *data = physics__m.data;
    const ct_data_o *v = data->get(src, field);
    if (!v)
        return true;
    if (data->type(v) != CT_DATA_ARRAY || data->count(v) != 3) {
        physics__m.resource->compile_error(ctx, "%s: must be an array of 3 numbers", field);
        return false;
    }
    const ct_data_o *c = data->first_child(v);
    for (int k = 0; k < 3; k++, c = data->next(c)) {
        if (data->type(c) != CT_DATA_NUMBER) {
            physics__m.resource->compile_error(ctx, "%s[%d]: must be a number", field, k);
            return false;
        }
        out[k] = (float)data->number(c, 0.0);
    }
    return true;
}

static bool compile_number(const ct_data_o *src, const char *field, float *out,
                           ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = physics__m.data->get(src, field);
    if (!v)
        return true;
    if (physics__m.data->type(v) != CT_DATA_NUMBER) {
        physics__m.resource->compile_error(ctx, "%s: must be a number", field);
        return false;
    }
    *out = (float)physics__m.data->number(v, 0.0);
    return true;
}

/* Maps the string at body.`field` to its index in names (default: index 0 when absent); a name
 * that is none of them is refused saying what it was, and the nearest when one is close. */
static bool compile_enum(const ct_data_o *src, const char *field, const char *const *names,
                         const int *values, int n, int *out, ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = physics__m.data->get(src, field);
    if (!v)
        return true;
    const char *s = physics__m.data->string(v, NULL);
    for (int k = 0; s && k < n; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = values[k];
            return true;
        }
    const char *near = s ? physics__m.resource->nearest_name(s, names, (uint32_t)n) : NULL;
    physics__m.resource->compile_error(
        ctx, "body.%s: \"%s\" is not one of \"%s\", \"%s\"%s%s%s%s%s%s", field, s ? s : "?",
        names[0], names[1], n > 2 ? ", \"" : "", n > 2 ? names[2] : "", n > 2 ? "\"" : "",
        near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
    return false;
}

/* The motion locks a source names: lock = ["x", "rotate_y", ...] (an optional array of names). */
static bool compile_locks(const ct_data_o *src, uint32_t *locks, ct_compile_ctx_o *ctx)
{
    static const char *const names[] = {"x", "y", "z", "rotate_x", "rotate_y", "rotate_z"};
    const ct_data_api_v1 *data = physics__m.data;
    const ct_data_o *v = data->get(src, "lock");
    if (!v)
        return true;
    if (data->type(v) != CT_DATA_ARRAY) {
        physics__m.resource->compile_error(ctx,
                                           "body.lock: must be an array of axis names (x, y, z, "
                                           "rotate_x, rotate_y, rotate_z)");
        return false;
    }
    int k = 0;
    for (const ct_data_o *c = data->first_child(v); c; c = data->next(c), k++) {
        /* (A number or an array read '"?" is not an axis', naming nothing that was written.) */
        if (data->type(c) != CT_DATA_STRING) {
            physics__m.resource->compile_error(ctx,
                                               "body.lock[%d]: must be an axis name, a string (x, "
                                               "y, z, rotate_x, rotate_y, rotate_z)",
                                               k);
            return false;
        }
        const char *s = data->string(c, NULL);
        uint32_t bit = 0;
        for (uint32_t n = 0; n < 6; n++)
            if (strcmp(s, names[n]) == 0)
                bit = 1u << n;
        if (!bit) {
            const char *near = physics__m.resource->nearest_name(s, names, 6);
            physics__m.resource->compile_error(ctx,
                                               "body.lock[%d]: \"%s\" is not an axis (x, y, z, "
                                               "rotate_x, rotate_y, rotate_z)%s%s%s",
                                               k, s, near ? "; did you mean \"" : "",
                                               near ? near : "", near ? "\"?" : "");
            return false;
        }
        *locks |= bit;
    }
    return true;
}

/* Why a compiled body's filter, flags and damping are bad, or NULL. */
static const char *body_flags_error(const physics__body_head *b)
{
    if (b->flags & ~PHYSICS_BODY_SENSOR)
        return "flags (unknown bits)";
    if ((b->flags & PHYSICS_BODY_SENSOR) && b->desc.kind == CT_BODY_DYNAMIC)
        return "sensor (a dynamic body cannot be a sensor: make it static or kinematic)";
    return physics__damping_error(b->linear_damping, b->angular_damping);
}

/* Reads an optional 32-bit filter (a whole number in [0, 4294967295]); false (reported) if
 * present and not one. */
static bool compile_bits(const ct_data_o *src, const char *field, uint32_t *out,
                         ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = physics__m.data->get(src, field);
    if (!v)
        return true;
    const double x = physics__m.data->number(v, -1.0);
    if (!(x >= 0.0 && x <= 4294967295.0 && x == floor(x))) {
        physics__m.resource->compile_error(
            ctx,
            "body.%s: must be a whole number from 0 to 4294967295 (32 bits of a collision "
            "filter)",
            field);
        return false;
    }
    *out = (uint32_t)x;
    return true;
}

/* What is wrong with a body's description, or NULL: a hull's or a compound's as add_hull_body
 * and add_compound_body check it, a mesh body's static and the rest as any body's. */
static const char *body_desc_error(const ct_rigid_body_desc_t *d)
{
    if (d->shape == CT_BODY_HULL)
        return physics__hull_desc_error(d);
    if (d->shape == CT_BODY_COMPOUND)
        return physics__compound_desc_error(d);
    if (d->shape != CT_BODY_MESH)
        return physics__rigid_desc_error(d);
    if (d->kind != CT_BODY_STATIC)
        return "kind (a mesh body is static)";
    ct_rigid_body_desc_t r = *d;
    r.shape = CT_BODY_SPHERE, r.radius = 1.0f;
    return physics__rigid_desc_error(&r);
}

/* A body source compiles to a physics__body_head (physics_body_data.h): a ct_rigid_body_desc_t
 * (v4), the filter, the sensor switch and the damping (v5), followed by what a mesh, hull or
 * compound shape needs. `rotates = true` frees its rotation; without it a body translates only, as every body did
 * before v4, so levels written then keep behaving as they did. The rotation comes from the
 * entity's transform at spawn. */
static int compile_body(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const char *const kinds[] = {"dynamic", "static", "kinematic"};
    static const int kind_values[] = {CT_BODY_DYNAMIC, CT_BODY_STATIC, CT_BODY_KINEMATIC};
    static const char *const shapes[] = {"box", "sphere", "capsule"};
    static const int shape_values[] = {CT_BODY_BOX, CT_BODY_SPHERE, CT_BODY_CAPSULE};
    ct_rigid_body_desc_t d = {.mass = 1.0f,
                              .friction = 0.5f,
                              .half_extents = {0.5f, 0.5f, 0.5f},
                              .radius = 0.5f,
                              .half_height = 0.5f};
    int kind = CT_BODY_DYNAMIC, shape = CT_BODY_BOX;
    static const ct_field_t fields[] = {
        {"kind", CT_DATA_STRING, 0},
        {"shape", CT_DATA_INVALID, 0}, /* a string, or the object of a mesh, hull or compound */
        {"half_extents", CT_DATA_ARRAY, 3},
        {"radius", CT_DATA_NUMBER, 0},
        {"mass", CT_DATA_NUMBER, 0},
        {"restitution", CT_DATA_NUMBER, 0},
        {"friction", CT_DATA_NUMBER, 0},
        {"velocity", CT_DATA_ARRAY, 3},
        {"half_height", CT_DATA_NUMBER, 0},
        {"rotates", CT_DATA_BOOL, 0},
        {"angular_velocity", CT_DATA_ARRAY, 3},
        {"inertia", CT_DATA_ARRAY, 3},
        {"lock", CT_DATA_ARRAY, 0},
        {"sensor", CT_DATA_BOOL, 0},
        {"layer", CT_DATA_NUMBER, 0},
        {"mask", CT_DATA_NUMBER, 0},
        {"linear_damping", CT_DATA_NUMBER, 0},
        {"angular_damping", CT_DATA_NUMBER, 0},
    };
    if (!physics__m.resource->check_fields(ctx, src, "body", fields,
                                           sizeof fields / sizeof fields[0]))
        return CT_ERR_BAD_DATA;
    const ct_data_o *rotates = physics__m.data->get(src, "rotates");
    uint32_t locks = 0;
    physics__body_head head;
    memset(&head, 0, sizeof head);
    head.size = sizeof head;
    head.layer = 1u, head.mask = 0xffffffffu;
    uint8_t *tail = (uint8_t *)out + sizeof head;
    const ct_data_o *sensor = physics__m.data->get(src, "sensor");
    if (sensor && physics__m.data->boolean(sensor, false))
        head.flags |= PHYSICS_BODY_SENSOR;
    const ct_data_o *shape_src = physics__m.data->get(src, "shape");
    const bool object = physics__m.data->type(shape_src) == CT_DATA_OBJECT;
    if (object && !physics__body_shape_compile(shape_src, &head, tail, ctx))
        return CT_ERR_BAD_DATA;
    /* A mesh, hull or compound has its sizes in its shape: sizes on the body would be ignored. */
    static const char *const sizes[] = {"half_extents", "radius", "half_height"};
    for (int k = 0; object && k < 3; k++)
        if (physics__m.data->get(src, sizes[k])) {
            physics__m.resource->compile_error(
                ctx, "body.%s: a %s body takes its size from its shape, not from %s", sizes[k],
                physics__m.data->string(physics__m.data->get(shape_src, "type"), "?"), sizes[k]);
            return CT_ERR_BAD_DATA;
        }
    if (!compile_enum(src, "kind", kinds, kind_values, 3, &kind, ctx) ||
        (!object && !compile_enum(src, "shape", shapes, shape_values, 3, &shape, ctx)) ||
        !compile_vec3(src, "half_extents", d.half_extents, ctx) ||
        !compile_number(src, "radius", &d.radius, ctx) ||
        !compile_number(src, "mass", &d.mass, ctx) ||
        !compile_number(src, "restitution", &d.restitution, ctx) ||
        !compile_number(src, "friction", &d.friction, ctx) ||
        !compile_vec3(src, "velocity", d.velocity, ctx) ||
        !compile_number(src, "half_height", &d.half_height, ctx) ||
        !compile_vec3(src, "angular_velocity", d.angular_velocity, ctx) ||
        !compile_vec3(src, "inertia", d.inertia, ctx) || !compile_locks(src, &locks, ctx) ||
        !compile_bits(src, "layer", &head.layer, ctx) ||
        !compile_bits(src, "mask", &head.mask, ctx) ||
        !compile_number(src, "linear_damping", &head.linear_damping, ctx) ||
        !compile_number(src, "angular_damping", &head.angular_damping, ctx))
        return CT_ERR_BAD_DATA;
    d.kind = (uint32_t)kind;
    d.shape = object ? head.desc.shape : (uint32_t)shape;
    d.locks = (rotates && physics__m.data->boolean(rotates, false)) ? locks
                                                                    : locks | CT_BODY_LOCK_ROTATION;
    head.desc = d;
    const char *bad = body_desc_error(&d);
    if (!bad)
        bad = body_flags_error(&head);
    if (bad) {
        char said[192];
        physics__m.resource->compile_error(ctx, "body.%s",
                                           physics__rigid_given(&d, bad, said, sizeof said));
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &head, sizeof head);
    return 0;
}

static int compile_point(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    ct_point_mass_desc_t d = {.mass = 1.0f};
    static const ct_field_t fields[] = {{"mass", CT_DATA_NUMBER, 0},
                                        {"velocity", CT_DATA_ARRAY, 3}};
    if (!physics__m.resource->check_fields(ctx, src, "point_mass", fields, 2))
        return CT_ERR_BAD_DATA;
    if (!compile_number(src, "mass", &d.mass, ctx) ||
        !compile_vec3(src, "velocity", d.velocity, ctx))
        return CT_ERR_BAD_DATA;
    char said[192];
    const char *bad = physics__point_given(&d, physics__point_desc_error(&d), said, sizeof said);
    if (bad) {
        physics__m.resource->compile_error(ctx, "point_mass.%s", bad);
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &d, sizeof d);
    return 0;
}

/* Where a spawned instance starts: its transform (spawned earlier) or the context's pose. */
static void spawn_position(const ct_spawn_context_t *ctx, ct_entity_t e, float out[3])
{
    if (!physics__m.transform->world_position(ctx->world, e, out))
        memcpy(out, ctx->position, sizeof ctx->position);
}

/* And how it is turned: its transform's world rotation, when it has one. */
static void spawn_rotation(const ct_spawn_context_t *ctx, ct_entity_t e, float out[4])
{
    float r[4];
    if (physics__m.transform->world_rotation(ctx->world, e, r) && isfinite(r[0]) &&
        isfinite(r[1]) && isfinite(r[2]) && isfinite(r[3]))
        memcpy(out, r, sizeof r);
}

static void spawn_bodies(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                         const uint32_t *entity_index, const void *data)
{
    physics__body_manager *m = manager;
    if (m->moving) {
        PHYSICS_LOG(CT_LOG_ERROR,
                    "spawn body: world %p: refused inside character %u's contact callback (a "
                    "callback may read the world, not change it)",
                    (void *)ctx->world, m->moving);
        physics__m.component->spawn_failed(ctx, CT_ERR_INVALID);
        return;
    }
    if (physics__bodies_reserve(&m->scene.bodies, m->scene.bodies.n + n)) {
        PHYSICS_LOG(CT_LOG_ERROR, "spawn body: world %p: out of memory for %u bodies",
                    (void *)ctx->world, n);
        physics__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    for (uint32_t k = 0; k < n; k++, data = ct_component_next_instance(data)) {
        /* Loading checked every instance (validate_body); the head is read again from bytes
         * that stay where they are, so only the tail is read in place. */
        physics__body_head in;
        memcpy(&in, data, sizeof in);
        const uint8_t *tail = (const uint8_t *)data + sizeof in;
        ct_rigid_body_desc_t d = in.desc;
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        spawn_position(ctx, e, d.position);
        spawn_rotation(ctx, e, d.rotation);
        const char *bad = body_flags_error(&in);
        int err = 0;
        if (!bad &&
            (d.shape == CT_BODY_MESH || d.shape == CT_BODY_HULL || d.shape == CT_BODY_COMPOUND)) {
            /* add_mesh_body, add_hull_body and add_compound_body log what they refuse, naming
             * the world and the entity. */
            err = physics__body_shape_spawn(ctx->world, e, &d, &in, tail);
            if (err) {
                PHYSICS_LOG(CT_LOG_ERROR, "spawn body: world %p, entity %u: body.shape: %s",
                            (void *)ctx->world, e.id, physics__m.log->error_message(err));
                continue;
            }
        } else {
            if (!bad)
                bad = physics__rigid_desc_error(&d);
            err = bad ? CT_ERR_BAD_DATA : physics__bodies_add_rigid(&m->scene.bodies, e, &d);
        }
        const uint32_t i = err ? UINT32_MAX : physics__bodies_find(&m->scene.bodies, e);
        if (i != UINT32_MAX) {
            /* The filter first: a sensor keeps the body's filter as the one it sees with. */
            m->scene.bodies.layer[i] = in.layer;
            m->scene.bodies.mask[i] = in.mask;
            m->scene.bodies.damping[i] = (physics__damping){in.linear_damping, in.angular_damping};
            if (in.flags & PHYSICS_BODY_SENSOR)
                err = physics__sensors_set(&m->scene, i, true);
            if (err)
                physics__scene_remove(&m->scene, e);
        }
        char said[192];
        if (err || bad)
            PHYSICS_LOG(CT_LOG_ERROR, "spawn body: world %p, entity %u: body.%s",
                        (void *)ctx->world, e.id,
                        bad ? physics__rigid_given(&d, bad, said, sizeof said)
                            : physics__m.log->error_message(err));
    }
    m->scene.bp_stale = m->scene.fixed_stale = true;
    m->scene.quiet = false;
}

static void spawn_points(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                         const uint32_t *entity_index, const void *data)
{
    physics__point_manager *m = manager;
    if (physics__points_reserve(&m->points, m->points.n + n)) {
        PHYSICS_LOG(CT_LOG_ERROR, "spawn point_mass: world %p: out of memory for %u point masses",
                    (void *)ctx->world, n);
        physics__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        ct_point_mass_desc_t d;
        memcpy(&d, (const char *)data + (size_t)k * sizeof d, sizeof d);
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        spawn_position(ctx, e, d.position);
        const char *bad = physics__point_desc_error(&d);
        const int err = bad ? CT_ERR_BAD_DATA : physics__points_add(&m->points, e, &d);
        if (err)
            PHYSICS_LOG(CT_LOG_ERROR, "spawn point_mass: world %p, entity %u: point_mass.%s",
                        (void *)ctx->world, e.id, bad ? bad : physics__m.log->error_message(err));
    }
}

/* Compiled instances go through the checks of every other entry point when a level or unit
 * loads, so a blob edited and re-signed outside the compiler cannot bring NaN, a mass of 1e-40
 * or a speed of 3e38 in (the load fails naming the resource, the entity and the type). */
static bool validate_body(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    /* The loader made sure the instance's leading size is what the blob holds. */
    physics__body_head in;
    memcpy(&in.size, instance, 4);
    if (in.size < sizeof in) {
        snprintf(why, why_size, "body.size (%u bytes: shorter than a body's head)", in.size);
        return false;
    }
    memcpy(&in, instance, sizeof in);
    char shape_why[160];
    const char *bad = body_desc_error(&in.desc);
    if (!bad)
        bad = physics__body_shape_error(&in, (const uint8_t *)instance + sizeof in, shape_why,
                                        sizeof shape_why);
    if (!bad)
        bad = body_flags_error(&in);
    if (bad)
        snprintf(why, why_size, "body.%s", bad);
    return !bad;
}

static bool validate_point(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    ct_point_mass_desc_t d;
    memcpy(&d, instance, sizeof d);
    const char *bad = physics__point_desc_error(&d);
    if (bad)
        snprintf(why, why_size, "point_mass.%s", bad);
    return !bad;
}

static const ct_component_validate_f validators[PHYSICS_NUM_TYPES] = {
    [PHYSICS_POINT_TYPE] = validate_point,
    [PHYSICS_BODY_TYPE] = validate_body,
};

/* After transforms (spawn order 0), so a body reads its entity's placed world position. */
static const ct_component_type_t types[PHYSICS_NUM_TYPES] = {
    [PHYSICS_POINT_TYPE] =
        {
            .name = CT_PHYSICS_POINT_MASS_COMPONENT_NAME,
            .spawn_order = CT_SPAWN_ORDER_PHYSICS,
            .create_manager = create_points,
            .destroy_manager = destroy_points,
            .instance_size = sizeof(ct_point_mass_desc_t),
            .compile = compile_point,
            .spawn = spawn_points,
            .gc = gc_points,
        },
    [PHYSICS_BODY_TYPE] =
        {
            .name = CT_PHYSICS_BODY_COMPONENT_NAME,
            .spawn_order = CT_SPAWN_ORDER_PHYSICS,
            .create_manager = create_bodies,
            .destroy_manager = destroy_bodies,
            .instance_size = CT_COMPONENT_VARIABLE_SIZE | PHYSICS_BODY_MAX_BYTES,
            .compile = compile_body,
            .spawn = spawn_bodies,
            .destroyed = destroyed_bodies,
        },
};

/* The layouts of compiled point masses and bodies inside levels and units
 * (ct_resource_api_v6.declare_format): a change is a new number, so cuttle-compile compiles the
 * levels and units that hold them again and older blobs are refused ("recompile"). */
#define POINT_MASS_FORMAT 1
#define BODY_FORMAT                                                                                \
    5 /* 2: the collision mesh's name after the description; 3: the filter and
                       * the sensor switch after it; 4: of variable size, with hulls and
                       * compounds (physics_body_data.h); 5: the damping in the head */

int physics__register_components(void)
{
    physics__state *s = physics__m.state;
    physics__m.resource->declare_format("component." CT_PHYSICS_POINT_MASS_COMPONENT_NAME,
                                        POINT_MASS_FORMAT);
    physics__m.resource->declare_format("component." CT_PHYSICS_BODY_COMPONENT_NAME, BODY_FORMAT);
    for (uint32_t i = 0; i < PHYSICS_NUM_TYPES; i++) {
        s->type_id[i] = physics__m.component->register_type(&types[i]);
        if (!s->type_id[i]) {
            while (i--)
                physics__m.component->unregister_type(s->type_id[i]);
            return CT_ERR_CONFLICT;
        }
        s->registered[i] = types[i];
        physics__m.component->set_validate(s->type_id[i], validators[i]);
    }
    return 0;
}

bool physics__rebind_components(void)
{
    physics__state *s = physics__m.state;
    for (uint32_t i = 0; i < PHYSICS_NUM_TYPES; i++)
        if (!physics__m.component->replace_type(&types[i])) {
            while (i--)
                physics__m.component->replace_type(&s->registered[i]);
            return false;
        }
    memcpy(s->registered, types, sizeof types);
    for (uint32_t i = 0; i < PHYSICS_NUM_TYPES; i++)
        physics__m.component->set_validate(s->type_id[i], validators[i]);
    return true;
}

void physics__unregister_components(void)
{
    for (uint32_t i = PHYSICS_NUM_TYPES; i--;)
        physics__m.component->unregister_type(physics__m.state->type_id[i]);
}
