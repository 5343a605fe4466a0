/* physics_lua.c: modules Physics and Actor (documented in api/ct_physics.h). Worlds are light
 * userdata, entities numbers holding their id. Every binding goes through the v2 table, so Lua
 * sees exactly the checks C callers get; errors become Lua errors naming the entity.
 * Physics.shape_cast calls physics__shape_cast, the function v5's shape_cast points at. */
#include "physics_internal.h"

#include "../common/lua_checks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define L_API (physics__m.lua)

/* An optional layer mask at idx: every layer when absent; else a whole number in [0, 2^32). */
static uint32_t check_mask(lua_State *L, int idx, const char *fn)
{
    if (L_API->type(L, idx) <= CT_LUA_NIL)
        return UINT32_MAX;
    const double v = check__range(L_API, L, idx, fn, 0.0, (double)UINT32_MAX);
    if (v != (double)(uint32_t)v)
        check__fail(L_API, L, idx, fn, "is not a mask (a whole number)");
    return (uint32_t)v;
}

/* A destroyed world (its managers went with it) or one without physics would otherwise get false,
 * nil or 0 from the C side, which reads as an answer; the check raises instead. */
static bool world_live(const ct_world_o *w)
{
    /* manager only looks the world up; it takes a mutable one. */
    return physics__m.component->manager((ct_world_o *)w,
                                         physics__m.state->type_id[PHYSICS_BODY_TYPE]) != NULL;
}

ct_world_o *physics__lua_world(lua_State *L, const char *fn)
{
    return check__world(L_API, L, 1, fn, world_live);
}

/* Raises the error of a failed call on entity e of world w, naming both (as the C side's log). */
static int check_result(lua_State *L, ct_world_o *w, int err, const char *what, ct_entity_t e)
{
    if (err == CT_ERR_NOT_FOUND)
        return L_API->error(L, "%s: world %p: entity %u has no body in this world", what, (void *)w,
                            e.id);
    if (err == CT_ERR_INVALID)
        return L_API->error(L, "%s: world %p, entity %u: %s", what, (void *)w, e.id,
                            physics__refusal);
    if (err)
        return L_API->error(L, "%s: world %p, entity %u: %s", what, (void *)w, e.id,
                            physics__m.log->error_message(err));
    return 0;
}

static int push_vec3(lua_State *L, const float v[3])
{
    for (int k = 0; k < 3; k++)
        L_API->push_number(L, v[k]);
    return 3;
}

static int l_physics_simulate(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.simulate");
    const double dt = check__number(L_API, L, 2, "Physics.simulate");
    if (!(dt >= CT_PHYSICS_MIN_DT && dt <= CT_PHYSICS_MAX_DT))
        return L_API->error(L, "Physics.simulate: dt %g refused: must be within [1e-5, 1] s", dt);
    physics__api_v2.simulate(w, (float)dt);
    return 0;
}

static int l_physics_overlap_sphere(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.overlap_sphere");
    float c[3];
    check__vec(L_API, L, 2, 3, c, "Physics.overlap_sphere");
    const float r = (float)check__number(L_API, L, 5, "Physics.overlap_sphere");
    const uint32_t mask = check_mask(L, 6, "Physics.overlap_sphere");
    const char *bad = physics__sphere_query_error(c, r);
    if (bad)
        return L_API->error(L, "Physics.overlap_sphere: world %p: %s refused", (void *)w, bad);
    /* Most queries fit on the stack; a bigger answer is fetched again into one allocation. */
    enum { ON_STACK = 256 };
    ct_entity_t stack[ON_STACK];
    ct_entity_t *found = stack;
    const uint32_t n = physics__api_v3.overlap_sphere_masked(w, c, r, mask, stack, ON_STACK);
    if (n > ON_STACK) {
        found = ct_alloc(physics__m.allocator, (size_t)n * sizeof *found);
        if (!found)
            return L_API->error(L, "Physics.overlap_sphere: out of memory for %u entities", n);
        physics__api_v3.overlap_sphere_masked(w, c, r, mask, found, n);
    }
    L_API->new_table(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        L_API->push_number(L, found[k].id);
        L_API->set_index(L, -2, (int)k + 1);
    }
    if (found != stack)
        ct_free(physics__m.allocator, found, (size_t)n * sizeof *found);
    return 1;
}

static int l_physics_raycast(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.raycast");
    float o[3], d[3];
    check__vec(L_API, L, 2, 3, o, "Physics.raycast");
    check__vec(L_API, L, 5, 3, d, "Physics.raycast");
    ct_physics_hit_t hit;
    const float max_t = (float)check__number(L_API, L, 8, "Physics.raycast");
    const uint32_t mask = check_mask(L, 9, "Physics.raycast");
    const char *bad = physics__ray_error(o, d, max_t);
    if (bad)
        return L_API->error(L, "Physics.raycast: world %p: %s refused", (void *)w, bad);
    if (!physics__api_v3.raycast_masked(w, o, d, max_t, mask, &hit)) {
        L_API->push_nil(L);
        return 1;
    }
    L_API->push_number(L, hit.entity);
    L_API->push_number(L, hit.distance);
    return 2 + push_vec3(L, hit.point);
}

static int l_physics_state_hash(lua_State *L)
{
    char hex[17];
    ct_world_o *w = physics__lua_world(L, "Physics.state_hash");
    snprintf(hex, sizeof hex, "%016" PRIx64, physics__api_v2.state_hash(w));
    L_API->push_string(L, hex, 16);
    return 1;
}

static int l_physics_set_gravity(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.set_gravity");
    float g[3], now[3];
    check__vec(L_API, L, 2, 3, g, "Physics.set_gravity");
    physics__api_v2.set_gravity(w, g);
    physics__api_v2.gravity(w, now);
    if (memcmp(g, now, sizeof g) != 0)
        return L_API->error(L, "Physics.set_gravity: world %p: %s", (void *)w, physics__refusal);
    return 0;
}

/* Actor setters share one shape: (world, e, x, y, z). */
static int actor_set(lua_State *L, int (*fn)(ct_world_o *, ct_entity_t, const float[3]),
                     const char *what)
{
    ct_world_o *w = physics__lua_world(L, what);
    const ct_entity_t e = check__entity(L_API, L, 2, what);
    float v[3];
    check__vec(L_API, L, 3, 3, v, what);
    return check_result(L, w, fn(w, e, v), what, e);
}

static int actor_get(lua_State *L, int (*fn)(ct_world_o *, ct_entity_t, float[3]), const char *what)
{
    ct_world_o *w = physics__lua_world(L, what);
    const ct_entity_t e = check__entity(L_API, L, 2, what);
    float v[3];
    check_result(L, w, fn(w, e, v), what, e);
    return push_vec3(L, v);
}

static int l_actor_set_collision_filter(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.set_collision_filter");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.set_collision_filter");
    const uint32_t layer = check_mask(L, 3, "Actor.set_collision_filter");
    const uint32_t mask = check_mask(L, 4, "Actor.set_collision_filter");
    return check_result(L, w, physics__api_v3.set_collision_filter(w, e, layer, mask),
                        "Actor.set_collision_filter", e);
}

static int l_actor_sleeping(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.sleeping");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.sleeping");
    L_API->push_boolean(L, physics__api_v3.sleeping(w, e));
    return 1;
}

static int l_actor_wake(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.wake");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.wake");
    return check_result(L, w, physics__api_v3.wake(w, e), "Actor.wake", e);
}

/* Actor.set_sensor(world, e, on): the body becomes a sensor (trigger volume) or stops being one. */
static int l_actor_set_sensor(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.set_sensor");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.set_sensor");
    const bool on = L_API->to_boolean(L, 3);
    return check_result(L, w, physics__api_v5.set_sensor(w, e, on), "Actor.set_sensor", e);
}

static int l_actor_is_sensor(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.is_sensor");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.is_sensor");
    L_API->push_boolean(L, physics__api_v5.is_sensor(w, e));
    return 1;
}

/* Actor.sensor_contents(world, e) -> { entity, ... }: the bodies in the sensor after the last
 * step, by entity id. */
static int l_actor_sensor_contents(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.sensor_contents");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.sensor_contents");
    enum { ON_STACK = 256 };
    ct_entity_t stack[ON_STACK];
    ct_entity_t *found = stack;
    const uint32_t n = physics__api_v5.sensor_contents(w, e, stack, ON_STACK);
    if (n > ON_STACK) {
        found = ct_alloc(physics__m.allocator, (size_t)n * sizeof *found);
        if (!found)
            return L_API->error(L, "Actor.sensor_contents: out of memory for %u entities", n);
        physics__api_v5.sensor_contents(w, e, found, n);
    }
    L_API->new_table(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        L_API->push_number(L, found[k].id);
        L_API->set_index(L, -2, (int)k + 1);
    }
    if (found != stack)
        ct_free(physics__m.allocator, found, (size_t)n * sizeof *found);
    return 1;
}

static int l_actor_set_velocity(lua_State *L)
{
    return actor_set(L, physics__api_v2.set_velocity, "Actor.set_velocity");
}
static int l_actor_add_force(lua_State *L)
{
    return actor_set(L, physics__api_v2.add_force, "Actor.add_force");
}
static int l_actor_teleport(lua_State *L)
{
    return actor_set(L, physics__api_v2.teleport, "Actor.teleport");
}
static int l_actor_velocity(lua_State *L)
{
    return actor_get(L, physics__api_v2.velocity, "Actor.velocity");
}
static int l_actor_position(lua_State *L)
{
    return actor_get(L, physics__api_v2.position, "Actor.position");
}

/* ---- v4: rotation ---- */

static int l_actor_angular_velocity(lua_State *L)
{
    return actor_get(L, physics__api_v4.angular_velocity, "Actor.angular_velocity");
}
static int l_actor_set_angular_velocity(lua_State *L)
{
    return actor_set(L, physics__api_v4.set_angular_velocity, "Actor.set_angular_velocity");
}
static int l_actor_add_torque(lua_State *L)
{
    return actor_set(L, physics__api_v4.add_torque, "Actor.add_torque");
}

/* Actor.rotation(world, e) -> x, y, z, w */
static int l_actor_rotation(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.rotation");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.rotation");
    float q[4];
    check_result(L, w, physics__api_v4.rotation(w, e, q), "Actor.rotation", e);
    for (int k = 0; k < 4; k++)
        L_API->push_number(L, q[k]);
    return 4;
}

/* Actor.set_rotation(world, e, x, y, z, w) */
static int l_actor_set_rotation(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.set_rotation");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.set_rotation");
    float q[4];
    check__vec(L_API, L, 3, 4, q, "Actor.set_rotation");
    return check_result(L, w, physics__api_v4.set_rotation(w, e, q), "Actor.set_rotation", e);
}

/* (world, e, vx, vy, vz, px, py, pz): a vector applied at a world point. */
static int actor_at(lua_State *L,
                    int (*fn)(ct_world_o *, ct_entity_t, const float[3], const float[3]),
                    const char *what)
{
    ct_world_o *w = physics__lua_world(L, what);
    const ct_entity_t e = check__entity(L_API, L, 2, what);
    float v[3], p[3];
    check__vec(L_API, L, 3, 3, v, what);
    check__vec(L_API, L, 6, 3, p, what);
    return check_result(L, w, fn(w, e, v, p), what, e);
}

static int l_actor_add_impulse_at(lua_State *L)
{
    return actor_at(L, physics__api_v4.add_impulse_at, "Actor.add_impulse_at");
}
static int l_actor_add_force_at(lua_State *L)
{
    return actor_at(L, physics__api_v4.add_force_at, "Actor.add_force_at");
}

/* ---- v5: damping ---- */

/* A Lua number as a float for a setter's range check: past the float range it is an infinity
 * (which the check refuses naming the field), not an undefined conversion. */
static float to_float(double v)
{
    return v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
}

/* Actor.set_damping(world, e, linear, angular) (1/s, see set_damping) */
static int l_actor_set_damping(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.set_damping");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.set_damping");
    const float linear = to_float(check__number(L_API, L, 3, "Actor.set_damping"));
    const float angular = to_float(check__number(L_API, L, 4, "Actor.set_damping"));
    return check_result(L, w, physics__api_v5.set_damping(w, e, linear, angular),
                        "Actor.set_damping", e);
}

/* Actor.damping(world, e) -> linear, angular */
static int l_actor_damping(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Actor.damping");
    const ct_entity_t e = check__entity(L_API, L, 2, "Actor.damping");
    float linear = 0.0f, angular = 0.0f;
    check_result(L, w, physics__api_v5.damping(w, e, &linear, &angular), "Actor.damping", e);
    L_API->push_number(L, linear);
    L_API->push_number(L, angular);
    return 2;
}

/* ---- v4: joints ---- */

/* Reads the optional field `key` of the table at idx: a number into *out (true), or nothing. */
static bool field_number(lua_State *L, int idx, const char *key, float *out, const char *fn)
{
    const ct_lua_type t = L_API->get_field(L, idx, key);
    const double v = L_API->to_number(L, -1);
    if (t > CT_LUA_NIL && (t != CT_LUA_NUMBER || !(fabs(v) <= FLT_MAX))) {
        char got[32];
        return L_API->error(L, "%s: field %s is not a finite number (got %s)", fn, key,
                            check__got(L_API, L, -1, got, sizeof got)),
               false;
    }
    L_API->set_top(L, -2);
    if (t <= CT_LUA_NIL)
        return false;
    *out = (float)v;
    return true;
}

/* The optional field `key`: a table of three numbers into out. */
static void field_vec(lua_State *L, int idx, const char *key, float out[3], const char *fn)
{
    const ct_lua_type t = L_API->get_field(L, idx, key);
    if (t <= CT_LUA_NIL) {
        L_API->set_top(L, -2);
        return;
    }
    char got[48];
    if (t != CT_LUA_TABLE)
        L_API->error(L, "%s: field %s is not a table of three numbers {x, y, z} (got %s)", fn, key,
                     check__got(L_API, L, -1, got, sizeof got));
    for (int k = 0; k < 3; k++) {
        if (L_API->get_index(L, -1, k + 1) != CT_LUA_NUMBER)
            L_API->error(L,
                         "%s: field %s is not a table of three numbers {x, y, z} (its [%d] is %s)",
                         fn, key, k + 1, check__got(L_API, L, -1, got, sizeof got));
        out[k] = (float)L_API->to_number(L, -1);
        L_API->set_top(L, -2);
    }
    L_API->set_top(L, -2);
}

/* Physics.shape_cast(world, { shape = "sphere" | "box" | "capsule", radius, half_extents = {x, y,
 * z}, half_height, rotation = {x, y, z, w} }, x, y, z, dx, dy, dz[, mask]) -> e, distance, px, py,
 * pz, nx, ny, nz | nil: the first body the shape meets swept from (x, y, z) by (dx, dy, dz). */
static int l_physics_shape_cast(lua_State *L)
{
    static const char *const shapes[] = {"box", "sphere", "capsule"};
    const char *fn = "Physics.shape_cast";
    ct_world_o *w = physics__lua_world(L, fn);
    if (L_API->type(L, 2) != CT_LUA_TABLE)
        return check__fail(L_API, L, 2, fn, "is not a shape table {shape = ..., ...}");
    ct_rigid_body_desc_t d = {0};
    /* Only a string is a name (a number would be turned into one on the stack); it stays on the
     * stack while it is read. */
    const bool is_string = L_API->get_field(L, 2, "shape") == CT_LUA_STRING;
    const char *name = is_string ? L_API->to_string(L, -1, NULL) : NULL;
    d.shape = 3;
    for (uint32_t k = 0; name && k < 3; k++)
        if (strcmp(name, shapes[k]) == 0)
            d.shape = k;
    if (d.shape == 3) {
        char got[32];
        return L_API->error(L,
                            "%s: argument 2's shape is %s%s%s, not \"box\", \"sphere\" or "
                            "\"capsule\"",
                            fn, name ? "\"" : "",
                            name ? name : check__got(L_API, L, -1, got, sizeof got),
                            name ? "\"" : "");
    }
    L_API->set_top(L, -2);
    field_number(L, 2, "radius", &d.radius, fn);
    field_number(L, 2, "half_height", &d.half_height, fn);
    field_vec(L, 2, "half_extents", d.half_extents, fn);
    if (L_API->get_field(L, 2, "rotation") > CT_LUA_NIL) {
        bool ok = L_API->type(L, -1) == CT_LUA_TABLE;
        for (int k = 0; ok && k < 4; k++) {
            ok = L_API->get_index(L, -1, k + 1) == CT_LUA_NUMBER;
            d.rotation[k] = (float)L_API->to_number(L, -1);
            L_API->set_top(L, -2);
        }
        if (!ok)
            return L_API->error(L, "%s: field rotation is not {x, y, z, w}", fn);
    }
    L_API->set_top(L, -2);
    float from[3], motion[3];
    check__vec(L_API, L, 3, 3, from, fn);
    check__vec(L_API, L, 6, 3, motion, fn);
    const uint32_t mask = check_mask(L, 9, fn);
    const char *bad = physics__shape_cast_error(&d, from, motion);
    if (bad)
        return L_API->error(L, "%s: %s", fn, bad);
    ct_physics_hit_t hit;
    if (!physics__shape_cast(w, &d, from, motion, mask, &hit)) {
        L_API->push_nil(L);
        return 1;
    }
    L_API->push_number(L, hit.entity);
    L_API->push_number(L, hit.distance);
    return 2 + push_vec3(L, hit.point) + push_vec3(L, hit.normal);
}

static bool joint_flag(lua_State *L, int idx, const char *key)
{
    L_API->get_field(L, idx, key);
    const bool on = L_API->to_boolean(L, -1);
    L_API->set_top(L, -2);
    return on;
}

/* Physics.add_joint(world, a, b, type, { anchor = {x, y, z}, anchor_b, axis, lower, upper,
 * cone_angle, motor_speed, max_motor_force, length, spring_hertz, spring_damping, limit, motor,
 * collide }) -> joint id. b 0 is the world. A limit is on when lower, upper or cone_angle is given
 * (or limit = true), a motor when motor_speed or max_motor_force is. */
static int l_physics_add_joint(lua_State *L)
{
    static const char *const types[] = {"fixed", "hinge", "ball", "slider", "distance"};
    const char *fn = "Physics.add_joint";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t a = check__entity(L_API, L, 2, fn);
    const ct_entity_t b = L_API->type(L, 3) == CT_LUA_NUMBER && L_API->to_number(L, 3) == 0.0
                              ? (ct_entity_t){0}
                              : check__entity(L_API, L, 3, fn);
    ct_joint_desc_t d = {.type = check__enum(L_API, L, 4, fn, types, 5, NULL)};
    if (L_API->type(L, 5) > CT_LUA_NIL) {
        if (L_API->type(L, 5) != CT_LUA_TABLE)
            return check__fail(L_API, L, 5, fn, "is not a table of fields");
        field_vec(L, 5, "anchor", d.anchor, fn);
        field_vec(L, 5, "anchor_b", d.anchor_b, fn);
        field_vec(L, 5, "axis", d.axis, fn);
        bool limit = field_number(L, 5, "lower", &d.lower, fn);
        limit |= field_number(L, 5, "upper", &d.upper, fn);
        limit |= field_number(L, 5, "cone_angle", &d.cone_angle, fn);
        bool motor = field_number(L, 5, "motor_speed", &d.motor_speed, fn);
        motor |= field_number(L, 5, "max_motor_force", &d.max_motor_force, fn);
        field_number(L, 5, "length", &d.length, fn);
        field_number(L, 5, "spring_hertz", &d.spring_hertz, fn);
        field_number(L, 5, "spring_damping", &d.spring_damping, fn);
        d.flags = (limit || joint_flag(L, 5, "limit") ? CT_JOINT_LIMIT : 0u) |
                  (motor || joint_flag(L, 5, "motor") ? CT_JOINT_MOTOR : 0u) |
                  (joint_flag(L, 5, "collide") ? CT_JOINT_COLLIDE : 0u);
    }
    ct_physics_joint_t j = {0};
    const int err = physics__api_v4.add_joint(w, a, b, &d, &j);
    if (err == CT_ERR_NOT_FOUND || err == CT_ERR_INVALID)
        return L_API->error(L, "%s: world %p, entities %u and %u: %s", fn, (void *)w, a.id, b.id,
                            physics__refusal);
    if (err)
        return L_API->error(L, "%s: %s", fn, physics__m.log->error_message(err));
    L_API->push_number(L, j.id);
    return 1;
}

static ct_physics_joint_t check_joint(lua_State *L, int idx, const char *fn)
{
    const double v = L_API->type(L, idx) == CT_LUA_NUMBER ? L_API->to_number(L, idx) : 0.0;
    if (!(v >= 1.0 && v <= (double)UINT32_MAX && v == (double)(uint32_t)v))
        check__fail(L_API, L, idx, fn, "is not a joint id");
    return (ct_physics_joint_t){(uint32_t)v};
}

static int joint_result(lua_State *L, ct_world_o *w, int err, const char *fn, ct_physics_joint_t j)
{
    if (err == CT_ERR_NOT_FOUND)
        return L_API->error(L, "%s: world %p: joint %u is not in this world (removed?)", fn,
                            (void *)w, j.id);
    if (err)
        return L_API->error(L, "%s: world %p, joint %u, %s", fn, (void *)w, j.id, physics__refusal);
    return 0;
}

static int l_physics_remove_joint(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.remove_joint");
    const ct_physics_joint_t j = check_joint(L, 2, "Physics.remove_joint");
    return joint_result(L, w, physics__api_v4.remove_joint(w, j), "Physics.remove_joint", j);
}

/* Physics.joint_force(world, j) -> fx, fy, fz, tx, ty, tz (on b's body) */
static int l_physics_joint_force(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.joint_force");
    const ct_physics_joint_t j = check_joint(L, 2, "Physics.joint_force");
    float f[3], t[3];
    joint_result(L, w, physics__api_v4.joint_force(w, j, f, t), "Physics.joint_force", j);
    push_vec3(L, f);
    return push_vec3(L, t) + 3;
}

static int l_physics_joint_value(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.joint_value");
    const ct_physics_joint_t j = check_joint(L, 2, "Physics.joint_value");
    float v;
    joint_result(L, w, physics__api_v4.joint_value(w, j, &v), "Physics.joint_value", j);
    L_API->push_number(L, v);
    return 1;
}

/* Physics.set_joint_motor(world, j, speed, max_force) */
static int l_physics_set_joint_motor(lua_State *L)
{
    const char *fn = "Physics.set_joint_motor";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_physics_joint_t j = check_joint(L, 2, fn);
    const float speed = check__finite(L_API, L, 3, fn), most = check__finite(L_API, L, 4, fn);
    return joint_result(L, w, physics__api_v4.set_joint_motor(w, j, speed, most), fn, j);
}

/* Physics.joint_of(world, e) -> the joint e's "joint" component made (a level's or unit's), or
 * nil when it has none (or its body went, and the joint with it). */
static int l_physics_joint_of(lua_State *L)
{
    ct_world_o *w = physics__lua_world(L, "Physics.joint_of");
    const ct_entity_t e = check__entity(L_API, L, 2, "Physics.joint_of");
    const uint32_t id = physics__joint_of(w, e);
    if (id)
        L_API->push_number(L, id);
    else
        L_API->push_nil(L);
    return 1;
}

/* ---- v4: characters ---- */

/* The settings fields the table at idx has, over *d. */
static void settings_fields(lua_State *L, int idx, ct_character_settings_t *d, const char *fn)
{
    field_number(L, idx, "max_step", &d->max_step, fn);
    field_number(L, idx, "max_slope", &d->max_slope, fn);
    field_number(L, idx, "step_down", &d->step_down, fn);
    field_number(L, idx, "mass", &d->mass, fn);
    field_number(L, idx, "max_strength", &d->max_strength, fn);
}

static int not_a_character(lua_State *L, const char *fn, ct_world_o *w, ct_entity_t e)
{
    return L_API->error(L, "%s: world %p: entity %u is not a character in this world", fn,
                        (void *)w, e.id);
}

/* Physics.add_character(world, e, { radius, half_height, max_step, max_slope, position = {x, y, z},
 * step_down, mass, max_strength }): the last three as set_character_settings's (v5). */
static int l_physics_add_character(lua_State *L)
{
    const char *fn = "Physics.add_character";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    if (L_API->type(L, 3) != CT_LUA_TABLE)
        return check__fail(L_API, L, 3, fn, "is not a table of fields");
    ct_character_desc_t d = {0};
    field_number(L, 3, "radius", &d.radius, fn);
    field_number(L, 3, "half_height", &d.half_height, fn);
    field_number(L, 3, "max_step", &d.max_step, fn);
    field_number(L, 3, "max_slope", &d.max_slope, fn);
    field_vec(L, 3, "position", d.position, fn);
    /* The settings' fields are read before the character is made (a field that is no number
     * raises with nothing made); a value the settings refuse removes it again. */
    ct_character_settings_t set = {.max_step = d.max_step,
                                   .max_slope = d.max_slope,
                                   .step_down = d.max_step,
                                   .max_strength = CT_PHYSICS_MAX_FORCE};
    settings_fields(L, 3, &set, fn);
    int err = physics__api_v4.add_character(w, e, &d);
    if (err == CT_ERR_CONFLICT)
        return L_API->error(L, "%s: world %p, entity %u has a body already", fn, (void *)w, e.id);
    if (!err && (err = physics__api_v5.set_character_settings(w, e, &set)) != 0) {
        char why[sizeof physics__refusal];
        snprintf(why, sizeof why, "%s", physics__refusal);
        physics__api_v4.remove_body(w, e);
        return L_API->error(L, "%s: world %p, entity %u: %s", fn, (void *)w, e.id, why);
    }
    return check_result(L, w, err, fn, e);
}

/* Physics.set_character_settings(world, e, { max_step, max_slope, step_down, mass,
 * max_strength }): the fields left out keep their values. */
static int l_physics_set_character_settings(lua_State *L)
{
    const char *fn = "Physics.set_character_settings";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    if (L_API->type(L, 3) != CT_LUA_TABLE)
        return check__fail(L_API, L, 3, fn, "is not a table of fields");
    ct_character_settings_t d;
    if (physics__api_v5.character_settings(w, e, &d))
        return not_a_character(L, fn, w, e);
    settings_fields(L, 3, &d, fn);
    return check_result(L, w, physics__api_v5.set_character_settings(w, e, &d), fn, e);
}

/* Physics.character_settings(world, e) -> { max_step, max_slope, step_down, mass, max_strength } */
static int l_physics_character_settings(lua_State *L)
{
    const char *fn = "Physics.character_settings";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    ct_character_settings_t d;
    if (physics__api_v5.character_settings(w, e, &d))
        return not_a_character(L, fn, w, e);
    const struct {
        const char *key;
        float value;
    } fields[] = {{"max_step", d.max_step},
                  {"max_slope", d.max_slope},
                  {"step_down", d.step_down},
                  {"mass", d.mass},
                  {"max_strength", d.max_strength}};
    L_API->new_table(L, 0, 5);
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        L_API->push_number(L, fields[k].value);
        L_API->set_field(L, -2, fields[k].key);
    }
    return 1;
}

/* Physics.move_character(world, e, vx, vy, vz, dt) -> grounded, ground, x, y, z, vx, vy, vz */
static int l_physics_move_character(lua_State *L)
{
    const char *fn = "Physics.move_character";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    float v[3];
    check__vec(L_API, L, 3, 3, v, fn);
    const float dt = (float)check__number(L_API, L, 6, fn);
    ct_character_state_t st;
    const int err = physics__api_v4.move_character(w, e, v, dt, &st);
    if (err == CT_ERR_NOT_FOUND)
        return not_a_character(L, fn, w, e);
    check_result(L, w, err, fn, e);
    L_API->push_boolean(L, st.grounded != 0);
    L_API->push_number(L, st.ground);
    push_vec3(L, st.position);
    return 2 + push_vec3(L, st.velocity) + 3;
}

/* A {x, y, z} array on top of the stack, set as field `key` of the table below it. */
static void set_vec3_field(lua_State *L, const float v[3], const char *key)
{
    L_API->new_table(L, 3, 0);
    for (int k = 0; k < 3; k++) {
        L_API->push_number(L, v[k]);
        L_API->set_index(L, -2, k + 1);
    }
    L_API->set_field(L, -2, key);
}

/* Physics.character_contacts(world, e) -> { { body, point = {x, y, z}, normal = {x, y, z}, kind,
 * character, accepted }, ... }: the contacts of e's last move, in the order met (v5; a list
 * rather than a Lua callback per contact, which would cost a call into Lua for each). */
static int l_physics_character_contacts(lua_State *L)
{
    const char *fn = "Physics.character_contacts";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    ct_character_settings_t unused;
    if (physics__api_v5.character_settings(w, e, &unused))
        return not_a_character(L, fn, w, e);
    ct_character_contact_t list[CT_CHARACTER_MAX_CONTACTS];
    const uint32_t n = physics__api_v5.character_contacts(w, e, list, CT_CHARACTER_MAX_CONTACTS);
    static const char *const kinds[] = {[CT_BODY_DYNAMIC] = "dynamic",
                                        [CT_BODY_STATIC] = "static",
                                        [CT_BODY_KINEMATIC] = "kinematic"};
    L_API->new_table(L, (int)n, 0);
    for (uint32_t k = 0; k < n; k++) {
        const ct_character_contact_t *c = &list[k];
        L_API->new_table(L, 0, 6);
        L_API->push_number(L, c->body);
        L_API->set_field(L, -2, "body");
        set_vec3_field(L, c->point, "point");
        set_vec3_field(L, c->normal, "normal");
        const char *kind = c->body_kind < 3 ? kinds[c->body_kind] : "static";
        L_API->push_string(L, kind, strlen(kind));
        L_API->set_field(L, -2, "kind");
        L_API->push_boolean(L, c->is_character != 0);
        L_API->set_field(L, -2, "character");
        L_API->push_boolean(L, c->accepted != 0);
        L_API->set_field(L, -2, "accepted");
        L_API->set_index(L, -2, (int)k + 1);
    }
    return 1;
}

void physics__register_lua(void)
{
    static const ct_lua_reg_t physics[] = {
        {"simulate", l_physics_simulate},
        {"overlap_sphere", l_physics_overlap_sphere},
        {"raycast", l_physics_raycast},
        {"shape_cast", l_physics_shape_cast},
        {"state_hash", l_physics_state_hash},
        {"set_gravity", l_physics_set_gravity},
        {"add_joint", l_physics_add_joint},
        {"remove_joint", l_physics_remove_joint},
        {"joint_force", l_physics_joint_force},
        {"joint_value", l_physics_joint_value},
        {"set_joint_motor", l_physics_set_joint_motor},
        {"joint_of", l_physics_joint_of},
        {"add_character", l_physics_add_character},
        {"move_character", l_physics_move_character},
        {"set_character_settings", l_physics_set_character_settings},
        {"character_settings", l_physics_character_settings},
        {"character_contacts", l_physics_character_contacts},
    };
    static const ct_lua_reg_t actor[] = {
        {"set_velocity", l_actor_set_velocity},
        {"velocity", l_actor_velocity},
        {"add_force", l_actor_add_force},
        {"teleport", l_actor_teleport},
        {"position", l_actor_position},
        {"set_collision_filter", l_actor_set_collision_filter},
        {"sleeping", l_actor_sleeping},
        {"wake", l_actor_wake},
        {"rotation", l_actor_rotation},
        {"set_rotation", l_actor_set_rotation},
        {"angular_velocity", l_actor_angular_velocity},
        {"set_angular_velocity", l_actor_set_angular_velocity},
        {"add_torque", l_actor_add_torque},
        {"add_impulse_at", l_actor_add_impulse_at},
        {"add_force_at", l_actor_add_force_at},
        {"set_sensor", l_actor_set_sensor},
        {"is_sensor", l_actor_is_sensor},
        {"sensor_contents", l_actor_sensor_contents},
        {"set_damping", l_actor_set_damping},
        {"damping", l_actor_damping},
    };
    L_API->register_module("Physics", physics, sizeof physics / sizeof physics[0]);
    L_API->register_module("Actor", actor, sizeof actor / sizeof actor[0]);
    physics__register_lua_shapes();
}
