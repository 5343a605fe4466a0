/*
 * physics_joint_component.c: the "joint" component, joints written as data in levels and units.
 *
 *   joint = { type = "hinge" to = "frame" anchor = [-0.5 0 0] axis = [0 1 0]
 *             lower = -1.2 upper = 0 }
 *
 * One joint per entity: the entity's body is the joint's a (ct_physics_api_v4.add_joint), and
 * `to` names b by its debug name among the entities of the same spawn (the level or the unit
 * copy being spawned, so two ragdolls spawned from one unit each join their own limbs); without
 * `to` the body is held to the world. Trees of bodies, which is what ragdolls, doors, chains and
 * bridges are, need no more than one joint per entity: each part names the part it hangs from.
 *
 * The geometry is written in the entity's own frame, so a unit can be spawned anywhere and
 * turned: `anchor` and `axis` are in the joint entity's body frame (default its centre and +y),
 * `anchor_b` (distance joints) in the frame of `to`'s body, or of the spawn's root pose when the
 * joint holds to the world (default that frame's origin). A limit is on when any of lower, upper
 * (and for a ball, cone_angle) is written; a hinge, slider or distance limit needs both bounds,
 * a ball's missing ones are free (cone pi, twist [-pi, pi]). A motor is on when motor_speed or
 * max_motor_force is written.
 *
 * The compiler checks every field (check_fields: unknown names, types, finite numbers) and the
 * ranges of ct_joint_desc_t, naming the file, the entity and the field; the loader checks every
 * compiled instance again (set_validate). The type spawns after the debug names
 * (CT_SPAWN_ORDER_DEBUG_NAME + 1), when the spawn's bodies and names exist; a joint whose `to`
 * names no entity of the spawn, or whose entities have no body, is skipped with a message naming
 * the world, the entity and the field (the rest of the spawn goes on, as bodies do).
 *
 * The manager remembers each entity's joint (Physics.joint_of in Lua). Removing the component
 * removes the joint; a dying entity's body takes its joints with it (physics__scene_remove), and
 * this manager forgets them in the same batch, so nothing refers to a dead body.
 */
#include "physics_internal.h"

#include <stdio.h>
#include <string.h>

#include "ct_array.h"
#include "ct_plugin.h"

#define JOINT_NAME_BYTES 64u

/* The compiled instance: the desc in the bodies' own frames, and whom it joins. */
typedef struct joint_instance_t {
    ct_joint_desc_t desc;
    char to[JOINT_NAME_BYTES]; /* a debug name of the same spawn; "" is the world */
} joint_instance_t;

typedef struct joint_entry_t {
    ct_entity_t entity;
    uint32_t joint; /* ct_physics_joint_t.id */
} joint_entry_t;

typedef struct joint_manager_t {
    ct_allocator_t *a;
    ct_world_o *world;
    joint_entry_t *entries;
    uint32_t n, cap;
    physics__map map; /* entity id -> entry */
} joint_manager_t;

static uint64_t joint_type_id;

static const char *const type_names[] = {"fixed", "hinge", "ball", "slider", "distance"};

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    joint_manager_t *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (joint_manager_t){.a = a, .world = world, .map.a = a};
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    joint_manager_t *m = manager;
    if (m->entries)
        ct_free(m->a, m->entries, (size_t)m->cap * sizeof *m->entries);
    physics__map_free(&m->map);
    ct_free(m->a, m, sizeof *m);
}

static physics__body_manager *bodies_in(ct_world_o *w)
{
    return physics__m.component->manager(w, physics__m.state->type_id[PHYSICS_BODY_TYPE]);
}

static void forget(joint_manager_t *m, ct_entity_t e)
{
    const uint32_t i = physics__map_get(&m->map, e.id);
    if (i == UINT32_MAX)
        return;
    const uint32_t last = --m->n;
    if (i != last) {
        m->entries[i] = m->entries[last];
        *physics__map_upsert(&m->map, m->entries[i].entity.id, i) = i;
    }
    physics__map_remove(&m->map, e.id);
}

/* Dead entities, or the component removed: their joints go (when the body did not take them
 * already). */
static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    joint_manager_t *m = manager;
    physics__body_manager *bodies = bodies_in(m->world);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = physics__map_get(&m->map, entities[k].id);
        if (i == UINT32_MAX)
            continue;
        if (bodies)
            physics__joints_remove(&bodies->scene, m->entries[i].joint);
        forget(m, entities[k]);
    }
}

/* ---- compiling ------------------------------------------------------------------------------ */

static const ct_field_t joint_fields[] = {
    {"type", CT_DATA_STRING, 0},
    {"to", CT_DATA_STRING, 0},
    {"anchor", CT_DATA_ARRAY, 3},
    {"anchor_b", CT_DATA_ARRAY, 3},
    {"axis", CT_DATA_ARRAY, 3},
    {"lower", CT_DATA_NUMBER, 0},
    {"upper", CT_DATA_NUMBER, 0},
    {"cone_angle", CT_DATA_NUMBER, 0},
    {"motor_speed", CT_DATA_NUMBER, 0},
    {"max_motor_force", CT_DATA_NUMBER, 0},
    {"length", CT_DATA_NUMBER, 0},
    {"spring_hertz", CT_DATA_NUMBER, 0},
    {"spring_damping", CT_DATA_NUMBER, 0},
    {"collide", CT_DATA_BOOL, 0},
};

static bool has(const ct_data_o *src, const char *field)
{
    return physics__m.data->get(src, field) != NULL;
}

/* Reads the numbers of src into *out (absent fields leave it as it is); check_fields has checked
 * their types and finiteness. */
static void read_number(const ct_data_o *src, const char *field, float *out)
{
    const ct_data_o *v = physics__m.data->get(src, field);
    if (v)
        *out = (float)physics__m.data->number(v, 0.0);
}

static void read_vec3(const ct_data_o *src, const char *field, float out[3])
{
    const ct_data_api_v1 *data = physics__m.data;
    const ct_data_o *v = data->get(src, field);
    if (!v)
        return;
    const ct_data_o *c = data->first_child(v);
    for (int k = 0; k < 3 && c; k++, c = data->next(c))
        out[k] = (float)data->number(c, 0.0);
}

static int compile_joint(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_resource_api_v6 *res = physics__m.resource;
    if (!res->check_fields(ctx, src, "joint", joint_fields, CT_ARRAY_COUNT(joint_fields)))
        return CT_ERR_BAD_DATA;
    joint_instance_t j = {.desc = {.axis = {0.0f, 1.0f, 0.0f}}};
    const char *type = physics__m.data->string(physics__m.data->get(src, "type"), NULL);
    if (!type) {
        res->compile_error(ctx, "joint.type: missing (fixed, hinge, ball, slider or distance)");
        return CT_ERR_BAD_DATA;
    }
    uint32_t t = 0;
    while (t < CT_ARRAY_COUNT(type_names) && strcmp(type, type_names[t]) != 0)
        t++;
    if (t == CT_ARRAY_COUNT(type_names)) {
        const char *near = res->nearest_name(type, type_names, CT_ARRAY_COUNT(type_names));
        res->compile_error(ctx,
                           "joint.type: \"%s\" is not a joint type (fixed, hinge, ball, slider or "
                           "distance)%s%s%s",
                           type, near ? "; did you mean \"" : "", near ? near : "",
                           near ? "\"?" : "");
        return CT_ERR_BAD_DATA;
    }
    j.desc.type = t;
    const char *to = physics__m.data->string(physics__m.data->get(src, "to"), NULL);
    if (to) {
        const size_t len = strlen(to);
        if (len == 0 || len >= JOINT_NAME_BYTES) {
            res->compile_error(ctx, "joint.to: an entity's debug name of 1 to %u bytes",
                               JOINT_NAME_BYTES - 1);
            return CT_ERR_BAD_DATA;
        }
        memcpy(j.to, to, len + 1);
    }
    read_vec3(src, "anchor", j.desc.anchor);
    read_vec3(src, "anchor_b", j.desc.anchor_b);
    read_vec3(src, "axis", j.desc.axis);
    const bool lower = has(src, "lower"), upper = has(src, "upper"), cone = has(src, "cone_angle");
    if (lower || upper || cone) {
        if (t == CT_JOINT_FIXED) {
            res->compile_error(ctx, "joint.%s: a fixed joint has no limit",
                               lower   ? "lower"
                               : upper ? "upper"
                                       : "cone_angle");
            return CT_ERR_BAD_DATA;
        }
        if (cone && t != CT_JOINT_BALL) {
            res->compile_error(ctx, "joint.cone_angle: only a ball joint has a cone");
            return CT_ERR_BAD_DATA;
        }
        if (t != CT_JOINT_BALL && lower != upper) {
            res->compile_error(ctx, "joint.%s: a limit needs both lower and upper",
                               lower ? "upper" : "lower");
            return CT_ERR_BAD_DATA;
        }
        j.desc.flags |= CT_JOINT_LIMIT;
        j.desc.lower = -3.14159265f, j.desc.upper = 3.14159265f, j.desc.cone_angle = 3.14159265f;
    }
    read_number(src, "lower", &j.desc.lower);
    read_number(src, "upper", &j.desc.upper);
    read_number(src, "cone_angle", &j.desc.cone_angle);
    if (has(src, "motor_speed") || has(src, "max_motor_force"))
        j.desc.flags |= CT_JOINT_MOTOR;
    read_number(src, "motor_speed", &j.desc.motor_speed);
    read_number(src, "max_motor_force", &j.desc.max_motor_force);
    read_number(src, "length", &j.desc.length);
    read_number(src, "spring_hertz", &j.desc.spring_hertz);
    read_number(src, "spring_damping", &j.desc.spring_damping);
    const ct_data_o *collide = physics__m.data->get(src, "collide");
    if (collide && physics__m.data->boolean(collide, false))
        j.desc.flags |= CT_JOINT_COLLIDE;
    char said[192];
    const char *bad =
        physics__joint_given(&j.desc, physics__joint_desc_error(&j.desc), said, sizeof said);
    if (bad) {
        res->compile_error(ctx, "joint.%s", bad);
        return CT_ERR_BAD_DATA;
    }
    memcpy(out, &j, sizeof j);
    return 0;
}

/* A compiled instance read back at load: the desc's ranges, and a terminated name. */
static bool validate_joint(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    joint_instance_t j;
    memcpy(&j, instance, sizeof j);
    if (!memchr(j.to, '\0', sizeof j.to)) {
        snprintf(why, why_size, "joint.to (a name of at most %u bytes)", JOINT_NAME_BYTES - 1);
        return false;
    }
    const char *bad = physics__joint_desc_error(&j.desc);
    if (bad)
        snprintf(why, why_size, "joint.%s", bad);
    return !bad;
}

/* ---- spawning ------------------------------------------------------------------------------- */

/* FNV-1a: names of one spawn into the entity map's keys (a clash is caught by comparing). */
static uint64_t name_key(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static const char *name_of(ct_world_o *w, ct_entity_t e)
{
    const ct_debug_name_api_v1 *names = physics__m.debug_name;
    return names ? names->name(w, names->lookup(w, e)) : NULL;
}

/* The spawn's entity named `to` (the first in resource order), or {0}. `index` maps the names'
 * keys to entity indices; a key shared by two names falls back to a walk. */
static ct_entity_t find_named(const ct_spawn_context_t *ctx, const physics__map *index,
                              const char *to)
{
    const uint32_t k = physics__map_get(index, name_key(to));
    if (k == UINT32_MAX)
        return (ct_entity_t){0};
    const char *s = name_of(ctx->world, ctx->entity_lookup[k]);
    if (s && strcmp(s, to) == 0)
        return ctx->entity_lookup[k];
    for (uint32_t i = 0; i < ctx->num_entities; i++)
        if ((s = name_of(ctx->world, ctx->entity_lookup[i])) && strcmp(s, to) == 0)
            return ctx->entity_lookup[i];
    return (ct_entity_t){0};
}

/* The world pose of entity e's body, or false when it has none. */
static bool body_pose(physics__body_manager *bodies, ct_entity_t e, physics__v3 *p,
                      physics__quat *q)
{
    const uint32_t i = bodies ? physics__bodies_find(&bodies->scene.bodies, e) : UINT32_MAX;
    if (i == UINT32_MAX)
        return false;
    *p = bodies->scene.bodies.position[i];
    *q = bodies->scene.bodies.rotation[i];
    return true;
}

static void refuse(const ct_spawn_context_t *ctx, ct_entity_t e, const char *field, const char *why,
                   const char *detail)
{
    const char *name = name_of(ctx->world, e);
    PHYSICS_LOG(CT_LOG_ERROR, "spawn joint: world %p, entity %u%s%s%s: joint.%s: %s%s",
                (void *)ctx->world, e.id, name ? " (\"" : "", name ? name : "", name ? "\")" : "",
                field, why, detail ? detail : "");
}

static void spawn_joints(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                         const uint32_t *entity_index, const void *data)
{
    joint_manager_t *m = manager;
    physics__body_manager *bodies = bodies_in(ctx->world);
    if (!ct_array_reserve_of(m->a, &m->entries, &m->cap, m->n + n, 16) ||
        physics__map_reserve(&m->map, m->n + n)) {
        PHYSICS_LOG(CT_LOG_ERROR, "spawn joint: world %p: out of memory for %u joints",
                    (void *)ctx->world, n);
        physics__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    /* The spawn's names, once: a level of 10,000 joined parts must not compare every pair. */
    physics__map index = {.a = m->a};
    bool named = false;
    for (uint32_t k = 0; k < n && !named; k++)
        named = ((const joint_instance_t *)data)[k].to[0] != '\0';
    if (named && physics__map_reserve(&index, ctx->num_entities)) {
        PHYSICS_LOG(CT_LOG_ERROR, "spawn joint: world %p: out of memory for %u names",
                    (void *)ctx->world, ctx->num_entities);
        physics__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
        return;
    }
    for (uint32_t i = 0; named && i < ctx->num_entities; i++) {
        const char *s = name_of(ctx->world, ctx->entity_lookup[i]);
        if (s)
            physics__map_upsert(&index, name_key(s), i); /* keeps the first */
    }
    const physics__quat root_q = {ctx->rotation[0], ctx->rotation[1], ctx->rotation[2],
                                  ctx->rotation[3]};
    const physics__v3 root_p = v3_load(ctx->position);
    for (uint32_t k = 0; k < n; k++) {
        joint_instance_t j;
        memcpy(&j, (const char *)data + (size_t)k * sizeof j, sizeof j);
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        ct_entity_t other = {0};
        if (j.to[0]) {
            if (!physics__m.debug_name) {
                refuse(ctx, e, "to", "names need ct.debug_name, which is not loaded", NULL);
                continue;
            }
            other = find_named(ctx, &index, j.to);
            if (!other.id) {
                refuse(ctx, e, "to", "no entity of this spawn is named ", j.to);
                continue;
            }
        }
        physics__v3 pa, pb = root_p;
        physics__quat qa, qb = quat_is_identity(root_q) || !(fabsf(root_q.w) <= 1.0f)
                                   ? quat_identity()
                                   : quat_normalize(root_q);
        if (!body_pose(bodies, e, &pa, &qa)) {
            refuse(ctx, e, "to", "the joint's own entity has no body", NULL);
            continue;
        }
        if (other.id && !body_pose(bodies, other, &pb, &qb)) {
            refuse(ctx, e, "to", "has no body: ", j.to);
            continue;
        }
        ct_joint_desc_t d = j.desc;
        v3_store(v3_add(pa, quat_rotate(qa, v3_load(j.desc.anchor))), d.anchor);
        v3_store(v3_add(pb, quat_rotate(qb, v3_load(j.desc.anchor_b))), d.anchor_b);
        v3_store(quat_rotate(qa, v3_load(j.desc.axis)), d.axis);
        const char *bad = physics__joint_desc_error(&d);
        if (bad) {
            refuse(ctx, e, bad, "out of range where the spawn put it", NULL);
            continue;
        }
        ct_physics_joint_t id;
        if (physics__api_v4.add_joint(ctx->world, e, other, &d, &id) != 0)
            continue; /* logged, naming the world and both entities */
        const uint32_t at = physics__map_get(&m->map, e.id);
        if (at != UINT32_MAX) { /* a second joint component on one entity replaces the first */
            physics__joints_remove(&bodies->scene, m->entries[at].joint);
            m->entries[at].joint = id.id;
            continue;
        }
        m->entries[m->n] = (joint_entry_t){e, id.id};
        *physics__map_upsert(&m->map, e.id, m->n) = m->n;
        m->n++;
    }
    physics__map_free(&index);
}

uint32_t physics__joint_of(ct_world_o *w, ct_entity_t e)
{
    joint_manager_t *m = joint_type_id ? physics__m.component->manager(w, joint_type_id) : NULL;
    const uint32_t i = m ? physics__map_get(&m->map, e.id) : UINT32_MAX;
    if (i == UINT32_MAX)
        return 0;
    /* The body may have gone since (its joints with it): say so rather than name a dead joint. */
    physics__body_manager *bodies = bodies_in(w);
    if (!bodies || !physics__joints_find(&bodies->scene, m->entries[i].joint))
        return 0;
    return m->entries[i].joint;
}

static const ct_component_type_t joint_type = {
    .name = CT_PHYSICS_JOINT_COMPONENT_NAME,
    .spawn_order = CT_SPAWN_ORDER_DEBUG_NAME + 1u,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = sizeof(joint_instance_t),
    .compile = compile_joint,
    .spawn = spawn_joints,
    .destroyed = destroyed,
};

int physics__joint_component_register(void)
{
    joint_type_id = physics__m.component->register_type(&joint_type);
    if (!joint_type_id)
        return CT_ERR_CONFLICT;
    physics__m.component->set_validate(joint_type_id, validate_joint);
    return 0;
}

bool physics__joint_component_rebind(void)
{
    joint_type_id = physics__m.component->type_id(CT_PHYSICS_JOINT_COMPONENT_NAME);
    if (!physics__m.component->replace_type(&joint_type))
        return false;
    physics__m.component->set_validate(joint_type_id, validate_joint);
    return true;
}

void physics__joint_component_unregister(void)
{
    if (joint_type_id)
        physics__m.component->unregister_type(joint_type_id);
    joint_type_id = 0;
}
