/*
 * The Lua bindings, module "Transform". Worlds are light userdata, entities their id as a number.
 * Vectors travel as separate numbers (x, y, z [, w]) so no table is made per call.
 */
#include "transforms_internal.h"

#include "ct_lua.h"

#include "../common/lua_checks.h"

/* The instance in `m` of the entity at argument `idx` of `fn`; raises a Lua error naming the
 * entity when it has no transform in that world. */
static uint32_t arg_entity_instance(lua_State *L, int idx, const transforms__manager_t *m,
                                    const char *fn)
{
    const ct_entity_t e = check__entity(transforms__m.lua, L, idx, fn);
    const uint32_t i = transforms__find(m, e.id);
    if (!i)
        return (uint32_t)transforms__m.lua->error(L, "%s: entity %u has no transform in this world",
                                                  fn, e.id);
    return i;
}

/* The manager and instance of arguments (world, entity) at `idx`, `idx + 1` of `fn`. */
static uint32_t arg_instance(lua_State *L, int idx, transforms__manager_t **m, const char *fn)
{
    ct_world_o *world = check__world(transforms__m.lua, L, idx, fn, NULL);
    *m = transforms__m.component->manager(world, transforms__m.state->type_id);
    if (!*m)
        return (uint32_t)transforms__m.lua->error(
            L, "%s: argument %d is a world without transforms", fn, idx);
    return arg_entity_instance(L, idx + 1, *m, fn);
}

static int push_floats(lua_State *L, const float *v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        transforms__m.lua->push_number(L, v[k]);
    return (int)n;
}

/* Sets the pose under the rule every entry point follows (transforms__check_pose), raising an
 * error naming the function, the entity and the field when it is refused. */
static void set_pose(lua_State *L, const char *what, transforms__manager_t *m, uint32_t i,
                     ct_transform_pose_t *pose)
{
    char why[160];
    if (!transforms__check_pose(pose, why, sizeof why))
        transforms__m.lua->error(L, "Transform.%s: entity %u: %s", what, m->entity[i].id, why);
    transforms__write_local(m, i, pose);
    transforms__propagate(m, i);
}

static int l_transform_local_position(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.local_position");
    return push_floats(L, m->pose[i].position, 3);
}

static int l_transform_set_local_position(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.set_local_position");
    ct_transform_pose_t pose = m->pose[i];
    check__vec(transforms__m.lua, L, 3, 3, pose.position, "Transform.set_local_position");
    set_pose(L, "set_local_position", m, i, &pose);
    return 0;
}

static int l_transform_local_rotation(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.local_rotation");
    return push_floats(L, m->pose[i].rotation, 4);
}

static int l_transform_set_local_rotation(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.set_local_rotation");
    ct_transform_pose_t pose = m->pose[i];
    check__vec(transforms__m.lua, L, 3, 4, pose.rotation, "Transform.set_local_rotation");
    set_pose(L, "set_local_rotation", m, i, &pose);
    return 0;
}

static int l_transform_local_scale(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.local_scale");
    return push_floats(L, m->pose[i].scale, 3);
}

static int l_transform_set_local_scale(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.set_local_scale");
    ct_transform_pose_t pose = m->pose[i];
    check__vec(transforms__m.lua, L, 3, 3, pose.scale, "Transform.set_local_scale");
    set_pose(L, "set_local_scale", m, i, &pose);
    return 0;
}

static int l_transform_world_position(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.world_position");
    const float *w = m->world_m[i].m;
    const float p[3] = {w[3], w[7], w[11]};
    return push_floats(L, p, 3);
}

static int l_transform_world_rotation(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.world_rotation");
    float q[4];
    transforms__world_rotation(m, i, q);
    return push_floats(L, q, 4);
}

/* link(world, child, parent): arguments 1, 2 and 1, 3 name the two instances. */
static int l_transform_link(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t child = arg_instance(L, 1, &m, "Transform.link");
    const uint32_t parent = arg_entity_instance(L, 3, m, "Transform.link");
    if (transforms__link(m, child, parent) < 0)
        return transforms__m.lua->error(
            L, "Transform.link: the parent is the child or one of its descendants");
    transforms__propagate(m, child);
    return 0;
}

static int l_transform_unlink(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.unlink");
    transforms__unlink(m, i);
    return 0;
}

static int l_transform_destroy_tree(lua_State *L)
{
    transforms__manager_t *m;
    const uint32_t i = arg_instance(L, 1, &m, "Transform.destroy_tree");
    transforms__m.lua->push_number(L, transforms__destroy_tree(m->world, m->entity[i]));
    return 1;
}

void transforms__register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"local_position", l_transform_local_position},
        {"set_local_position", l_transform_set_local_position},
        {"local_rotation", l_transform_local_rotation},
        {"set_local_rotation", l_transform_set_local_rotation},
        {"local_scale", l_transform_local_scale},
        {"set_local_scale", l_transform_set_local_scale},
        {"world_position", l_transform_world_position},
        {"world_rotation", l_transform_world_rotation},
        {"link", l_transform_link},
        {"unlink", l_transform_unlink},
        {"destroy_tree", l_transform_destroy_tree},
    };
    transforms__m.lua->register_module("Transform", fns, sizeof fns / sizeof fns[0]);
}
