/*
 * The version-matrix probe: one plugin that runs its scenario with whichever combination of API
 * versions its driver asks for (matrix_probe_api_v2.run), so the matrix is one build and N runs.
 * It declares each API as the range of versions it knows, and at each run binds the tables of
 * exactly the versions asked for. It runs:
 *
 *   the common scenario, written with each version's own calls (single calls in v1, batches
 *   where a version has them) but meaning the same thing everywhere: spawn a unit many times,
 *   move its chains, integrate point masses, destroy some entities, hand the survivors' count to a
 *   Lua chunk (ct.lua v1 calls, which every later version keeps). Its state hash must agree
 *   across every combination, and its results are checked against values worked out here
 *   independently (chain tips, point-mass positions, counts), so agreeing on a wrong world fails;
 *
 *   what each version adds, checked against fixed expected results and reported as a feature bit
 *   (the driver checks each run reports exactly the features of its versions):
 *     entity v2     create_batch / destroy_batch / live_count
 *     world v1      a unit spawned rotated: its tip lands where the rotation puts it
 *     transform v2  set_world_position / world_position round trip under a rotated parent
 *     transform v3  destroy_tree takes a whole chain
 *     transform v4  the change counter moves when a pose is set, and only then
 *     physics v2    a sphere dropped on a static box comes to rest on it, with a collision event
 *     physics v3    a sphere whose layer the floor's mask leaves out falls through; user data
 *     physics v4    a free box spun at a quarter turn per second is turned a quarter after 1 s
 *     physics v5    a hull cube (its 8 corners) dropped on a static box rests on it, and a ray
 *                   down hits its top
 *     component v2  sort_by_entity and ct_entity_join_run pair two shuffled arrays exactly
 *     render v1     a null-backend frame seen from a spawned camera: its fixed packet count
 *     render v2     debug lines and a box drawn into a null-backend frame: one packet more
 *     render v3     a frame prepared here and executed on another thread: render()'s display
 *                   list (hash), executed once, the shadow cap taken
 *     animation v1  a two-bone arm whose clip turns it 90 degrees: the tip lands where that puts it
 *     network v1    a host session on a loopback port replicates an entity it owns
 *     world v2      the live worlds listed and a listener told of one created and destroyed (and
 *                   of nothing once removed)
 *     lua v2        a closure with its context and a userdata type with a method, called from a
 *                   chunk and through pcall, with a reference keeping the userdata
 *     expr v1       the seed's expression compiled and evaluated once and in a batch: fixed bits
 *     particles v1  an effect's burst stepped once: its count and a particle's velocity
 *     input v1      controls named both ways, an injected key press taken, a bad event refused
 *     clock v1      the time scale set and read back, an out-of-range scale refused, pausing
 *     islands v1    an event's handler run as an island adds its number to an entity's field
 *
 * A version joins by adding it to the dict in meson.build, a BIND_VERSION line below, and (when
 * it adds something) a feature in matrix_probe.h with its check here.
 */
#include "ct_animation.h"
#include "ct_entity.h"
#include "ct_expr.h"
#include "ct_gameplay.h"
#include "ct_hash.h"
#include "ct_input.h"
#include "ct_lua.h"
#include "ct_network.h"
#include "ct_particles.h"
#include "ct_physics.h"
#include "ct_plugin.h"
#include "ct_render.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "matrix_probe.h"

#define NUM_CHAINS 24
#define CHAIN_DEPTH 5
#define STEPS 10
#define DT (1.0f / 60.0f)

/* ---- the tables of the combination being run -------------------------------------------- */

/* Each API is held as its newest version's struct, with the members the scenario calls copied
 * from the version asked for. A member that version lacks stays NULL and is only called behind a
 * check of that version (versions.of). */
static matrix_versions_t versions;
static ct_get_api_f get_engine_api;
static ct_entity_api_v2 entity_table;
static ct_world_api_v2 world_table;
static ct_transform_api_v4 transform_table;
static ct_physics_api_v5 physics_table;
static ct_component_api_v2 component_table;
static ct_render_api_v3 render_table;
static ct_animation_api_v1 animation_table;
static ct_network_api_v1 network_table;
static ct_lua_api_v2 lua_table;
static ct_expr_api_v1 expr_table;
static ct_particles_api_v1 particles_table;
static ct_input_api_v1 input_table;
static ct_clock_api_v1 clock_table;
static ct_islands_api_v1 islands_table;
static const ct_entity_api_v2 *const entity = &entity_table;
static const ct_world_api_v2 *const world_api = &world_table;
static const ct_transform_api_v4 *const transform = &transform_table;
static const ct_physics_api_v5 *const physics = &physics_table;
static const ct_component_api_v2 *const component = &component_table;
static const ct_render_api_v3 *const render = &render_table;
static const ct_animation_api_v1 *const animation = &animation_table;
static const ct_network_api_v1 *const network = &network_table;
static const ct_lua_api_v2 *const lua = &lua_table;
static const ct_expr_api_v1 *const expr = &expr_table;
static const ct_particles_api_v1 *const particles = &particles_table;
static const ct_input_api_v1 *const input = &input_table;
static const ct_clock_api_v1 *const game_clock = &clock_table;
static const ct_islands_api_v1 *const islands = &islands_table;
static const ct_resource_api_v1 *resource;
/* world v0's spawn_unit takes no rotation, so it has a slot of its own. */
static ct_entity_t (*spawn_unit_v0)(ct_world_o *world, const char *name, const float pos[3]);

/* The members each version has that the scenario calls (each list holds the previous one's). */
#define ENTITY_V1(X) X(create) X(destroy) X(alive)
#define ENTITY_V2(X) ENTITY_V1(X) X(create_batch) X(destroy_batch) X(live_count)
#define WORLD_V0(X) X(create_world) X(destroy_world)
#define WORLD_V1(X) WORLD_V0(X) X(spawn_unit)
#define WORLD_V2(X)                                                                                \
    WORLD_V1(X) X(world_count) X(world_at) X(add_world_listener) X(remove_world_listener)
#define TRANSFORM_V1(X)                                                                            \
    X(create)                                                                                      \
    X(lookup) X(entity) X(count) X(local) X(world_matrix) X(set_local) X(link) X(first_child)
#define TRANSFORM_V2(X) TRANSFORM_V1(X) X(set_local_batch) X(world_position) X(set_world_position)
#define TRANSFORM_V3(X) TRANSFORM_V2(X) X(destroy_tree)
#define TRANSFORM_V4(X) TRANSFORM_V3(X) X(changes)
#define PHYSICS_V1(X) X(add_point_mass) X(point_position) X(simulate)
#define PHYSICS_V2(X)                                                                              \
    PHYSICS_V1(X) X(add_body) X(velocity) X(position) X(events) X(body_count) X(set_gravity)
#define PHYSICS_V3(X)                                                                              \
    PHYSICS_V2(X) X(set_collision_filter) X(collision_filter) X(set_user_data) X(user_data)
#define PHYSICS_V4(X) PHYSICS_V3(X) X(add_rigid_body) X(rotation)
#define PHYSICS_V5(X) PHYSICS_V4(X) X(raycast) X(add_hull_body)
#define COMPONENT_V1(X) X(manager) X(type_id)
#define COMPONENT_V2(X) COMPONENT_V1(X) X(sort_by_entity)
#define RENDER_V1(X) X(render) X(stats) X(set_backend)
#define RENDER_V2(X) RENDER_V1(X) X(debug_lines) X(debug_box)
#define RENDER_V3(X) RENDER_V2(X) X(prepare) X(execute) X(set_max_shadow_size)
#define ANIMATION_V1(X) X(evaluate) X(bone) X(bone_index) X(bone_count) X(time)
#define NETWORK_V1(X) X(start) X(port) X(peer_id) X(replicate) X(owner) X(stats) X(stop)
#define LUA_V1(X)                                                                                  \
    X(main_state)                                                                                  \
    X(get_top) X(set_top) X(push_number) X(set_field) X(get_field) X(run_string) X(to_number)      \
        X(check_number)
#define LUA_V2(X)                                                                                  \
    LUA_V1(X)                                                                                      \
    X(register_closures) X(register_type) X(new_userdata) X(check_userdata) X(ref) X(push_ref)     \
        X(unref) X(pcall)
#define EXPR_V1(X) X(compile) X(eval) X(eval_batch) X(num_outputs) X(destroy)
#define PARTICLES_V1(X) X(spawn) X(simulate) X(view) X(destroy)
#define INPUT_V1(X) X(control) X(control_name) X(inject)
#define CLOCK_V1(X) X(scale) X(set_scale) X(paused) X(set_paused)
#define ISLANDS_V1(X) X(handler) X(field) X(post) X(run) X(get) X(set) X(value) X(set_value)

#define COPY_MEMBER(member) table->member = from->member;
/* A case of a bind function: copies the members CALLS lists from version n's table. */
#define BIND_VERSION(n, type, CALLS)                                                               \
    case n: {                                                                                      \
        const type *from = get_engine_api(id, n);                                                  \
        if (!from)                                                                                 \
            return false;                                                                          \
        CALLS(COPY_MEMBER)                                                                         \
        return true;                                                                               \
    }

/* Defines `name`, which fills *table from the version asked for (one BIND_VERSION per version). */
#define DEFINE_BIND(name, table_type, ...)                                                         \
    static bool name(uint32_t id, uint32_t version, table_type *table)                             \
    {                                                                                              \
        switch (version) {                                                                         \
            __VA_ARGS__                                                                            \
        }                                                                                          \
        return false;                                                                              \
    }

DEFINE_BIND(bind_entity, ct_entity_api_v2,
            BIND_VERSION(1, ct_entity_api_v1, ENTITY_V1)
                BIND_VERSION(2, ct_entity_api_v2, ENTITY_V2))

/* world v0's spawn_unit has its own slot: the case is written out. */
static bool bind_world(uint32_t id, uint32_t version, ct_world_api_v2 *table)
{
    switch (version) {
    case 0: {
        const ct_world_api_v0 *from = get_engine_api(id, 0);
        if (!from)
            return false;
        WORLD_V0(COPY_MEMBER)
        spawn_unit_v0 = from->spawn_unit;
        return true;
    }
        BIND_VERSION(1, ct_world_api_v1, WORLD_V1)
        BIND_VERSION(2, ct_world_api_v2, WORLD_V2)
    }
    return false;
}

DEFINE_BIND(bind_transform, ct_transform_api_v4,
            BIND_VERSION(1, ct_transform_api_v1, TRANSFORM_V1)
                BIND_VERSION(2, ct_transform_api_v2, TRANSFORM_V2)
                    BIND_VERSION(3, ct_transform_api_v3, TRANSFORM_V3)
                        BIND_VERSION(4, ct_transform_api_v4, TRANSFORM_V4))

DEFINE_BIND(bind_physics, ct_physics_api_v5,
            BIND_VERSION(1, ct_physics_api_v1, PHYSICS_V1)
                BIND_VERSION(2, ct_physics_api_v2, PHYSICS_V2)
                    BIND_VERSION(3, ct_physics_api_v3, PHYSICS_V3)
                        BIND_VERSION(4, ct_physics_api_v4, PHYSICS_V4)
                            BIND_VERSION(5, ct_physics_api_v5, PHYSICS_V5))

DEFINE_BIND(bind_component, ct_component_api_v2,
            BIND_VERSION(1, ct_component_api_v1, COMPONENT_V1)
                BIND_VERSION(2, ct_component_api_v2, COMPONENT_V2))

DEFINE_BIND(bind_render, ct_render_api_v3,
            BIND_VERSION(1, ct_render_api_v1, RENDER_V1)
                BIND_VERSION(2, ct_render_api_v2, RENDER_V2)
                    BIND_VERSION(3, ct_render_api_v3, RENDER_V3))

DEFINE_BIND(bind_animation, ct_animation_api_v1, BIND_VERSION(1, ct_animation_api_v1, ANIMATION_V1))

DEFINE_BIND(bind_network, ct_network_api_v1, BIND_VERSION(1, ct_network_api_v1, NETWORK_V1))

DEFINE_BIND(bind_lua, ct_lua_api_v2,
            BIND_VERSION(1, ct_lua_api_v1, LUA_V1) BIND_VERSION(2, ct_lua_api_v2, LUA_V2))

DEFINE_BIND(bind_expr, ct_expr_api_v1, BIND_VERSION(1, ct_expr_api_v1, EXPR_V1))

DEFINE_BIND(bind_particles, ct_particles_api_v1, BIND_VERSION(1, ct_particles_api_v1, PARTICLES_V1))

DEFINE_BIND(bind_input, ct_input_api_v1, BIND_VERSION(1, ct_input_api_v1, INPUT_V1))

DEFINE_BIND(bind_clock, ct_clock_api_v1, BIND_VERSION(1, ct_clock_api_v1, CLOCK_V1))

DEFINE_BIND(bind_islands, ct_islands_api_v1, BIND_VERSION(1, ct_islands_api_v1, ISLANDS_V1))

/* Binds every table of `v`: 0, or CT_ERR_MISSING_API with `missing` naming the first API version
 * that is not served (or that this probe does not know). */
static int bind_all(const matrix_versions_t *v, char missing[64])
{
    memset(&entity_table, 0, sizeof entity_table);
    memset(&world_table, 0, sizeof world_table);
    memset(&transform_table, 0, sizeof transform_table);
    memset(&physics_table, 0, sizeof physics_table);
    memset(&component_table, 0, sizeof component_table);
    memset(&render_table, 0, sizeof render_table);
    memset(&lua_table, 0, sizeof lua_table);
    spawn_unit_v0 = NULL;
    const bool bound[MATRIX_NUM_APIS] = {
        [MATRIX_API_ENTITY] = bind_entity(CT_ENTITY_API, v->of[MATRIX_API_ENTITY], &entity_table),
        [MATRIX_API_WORLD] = bind_world(CT_WORLD_API, v->of[MATRIX_API_WORLD], &world_table),
        [MATRIX_API_TRANSFORM] =
            bind_transform(CT_TRANSFORM_API, v->of[MATRIX_API_TRANSFORM], &transform_table),
        [MATRIX_API_PHYSICS] =
            bind_physics(CT_PHYSICS_API, v->of[MATRIX_API_PHYSICS], &physics_table),
        [MATRIX_API_COMPONENT] =
            bind_component(CT_COMPONENT_API, v->of[MATRIX_API_COMPONENT], &component_table),
        [MATRIX_API_RENDER] = bind_render(CT_RENDER_API, v->of[MATRIX_API_RENDER], &render_table),
        [MATRIX_API_ANIMATION] =
            bind_animation(CT_ANIMATION_API, v->of[MATRIX_API_ANIMATION], &animation_table),
        [MATRIX_API_NETWORK] =
            bind_network(CT_NETWORK_API, v->of[MATRIX_API_NETWORK], &network_table),
        [MATRIX_API_LUA] = bind_lua(CT_LUA_API, v->of[MATRIX_API_LUA], &lua_table),
        [MATRIX_API_EXPR] = bind_expr(CT_EXPR_API, v->of[MATRIX_API_EXPR], &expr_table),
        [MATRIX_API_PARTICLES] =
            bind_particles(CT_PARTICLES_API, v->of[MATRIX_API_PARTICLES], &particles_table),
        [MATRIX_API_INPUT] = bind_input(CT_INPUT_API, v->of[MATRIX_API_INPUT], &input_table),
        [MATRIX_API_CLOCK] = bind_clock(CT_CLOCK_API, v->of[MATRIX_API_CLOCK], &clock_table),
        [MATRIX_API_ISLANDS] =
            bind_islands(CT_ISLANDS_API, v->of[MATRIX_API_ISLANDS], &islands_table),
    };
    for (int a = 0; a < MATRIX_NUM_APIS; a++) {
        if (!bound[a]) {
            snprintf(missing, 64, "%s v%u", matrix_api_names[a], v->of[a]);
            return CT_ERR_MISSING_API;
        }
    }
    versions = *v;
    return 0;
}

static const char chain_unit[] =
    "entities = [ { name = \"link0\" components = { transform = {} debug_name = { name = \"root\" "
    "} }\n"
    "  children = [ { components = { transform = { position = [0 1 0] } }\n"
    "    children = [ { components = { transform = { position = [0 1 0] } }\n"
    "      children = [ { components = { transform = { position = [0 1 0] } }\n"
    "        children = [ { components = { transform = { position = [0 1 0] } } } ] } ] } ] } ] } "
    "]\n";

static bool near(double a, double b, double tolerance) { return fabs(a - b) <= tolerance; }

static bool world_position_is(ct_world_o *w, ct_entity_t e, double x, double y, double z)
{
    const ct_transform_matrix_t m = transform->world_matrix(w, transform->lookup(w, e));
    return near(m.m[3], x, 1e-4) && near(m.m[7], y, 1e-4) && near(m.m[11], z, 1e-4);
}

static ct_entity_t spawn_unit_at(ct_world_o *w, const char *unit, const float pos[3])
{
    if (versions.of[MATRIX_API_WORLD] == 0)
        return spawn_unit_v0(w, unit, pos);
    return world_api->spawn_unit(w, unit, pos, NULL);
}

static ct_entity_t spawn_chain(ct_world_o *w, const float pos[3])
{
    return spawn_unit_at(w, "matrix/chain", pos);
}

/* The pose node d of chain c is given by move_chains. */
static ct_transform_pose_t moved_pose(int c, int d)
{
    const float angle = 0.1f * (float)d;
    return (ct_transform_pose_t){
        .position = {0.5f * (float)c, d ? 1.0f + 0.1f * (float)c : 0.0f, 0.05f * (float)d},
        .rotation = {0, 0, sinf(angle / 2), cosf(angle / 2)},
        .scale = {1, 1, 1},
    };
}

static void move_chains(ct_world_o *w, ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH])
{
    ct_transform_t instances[NUM_CHAINS * CHAIN_DEPTH];
    ct_transform_pose_t poses[NUM_CHAINS * CHAIN_DEPTH];
    uint32_t n = 0;
    for (int c = 0; c < NUM_CHAINS; c++) {
        for (int d = 0; d < CHAIN_DEPTH; d++) {
            instances[n] = transform->lookup(w, nodes[c][d]);
            poses[n++] = moved_pose(c, d);
        }
    }
    if (versions.of[MATRIX_API_TRANSFORM] == 1) {
        for (uint32_t i = 0; i < n; i++)
            transform->set_local(w, instances[i], &poses[i]);
    } else {
        transform->set_local_batch(w, instances, poses, n);
    }
}

/* Where move_chains puts the tip of chain c, composed here in double precision: each node turns
 * by 0.1 * d about z relative to its parent and sits at its local position in the parent's
 * frame. */
static bool tip_is_where_expected(ct_world_o *w, ct_entity_t nodes[CHAIN_DEPTH], int c)
{
    double x = 0, y = 0, z = 0, angle = 0;
    for (int d = 0; d < CHAIN_DEPTH; d++) {
        const ct_transform_pose_t p = moved_pose(c, d);
        x += cos(angle) * p.position[0] - sin(angle) * p.position[1];
        y += sin(angle) * p.position[0] + cos(angle) * p.position[1];
        z += p.position[2];
        angle += 0.1 * d;
    }
    return world_position_is(w, nodes[CHAIN_DEPTH - 1], x, y, z);
}

static uint32_t destroy_some(ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH])
{
    ct_entity_t doomed[NUM_CHAINS];
    uint32_t n = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        if (c % 3 == 0)
            doomed[n++] = nodes[c][c % 2 ? 0 : CHAIN_DEPTH - 1];
    if (versions.of[MATRIX_API_ENTITY] == 1) {
        for (uint32_t i = 0; i < n; i++)
            entity->destroy(doomed[i]);
    } else {
        entity->destroy_batch(doomed, n);
    }
    return n;
}

static uint32_t count_alive(ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH])
{
    uint32_t n = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        for (int d = 0; d < CHAIN_DEPTH; d++)
            n += entity->alive(nodes[c][d]);
    return n;
}

/* Alive flags, world matrices and point-mass positions of every spawned node, in spawn order. */
static uint64_t hash_state(ct_world_o *w, ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH])
{
    uint64_t h = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        for (int d = 0; d < CHAIN_DEPTH; d++) {
            struct {
                uint32_t alive, has_point;
                ct_transform_matrix_t world;
                float point[3];
            } s;
            memset(&s, 0, sizeof s);
            s.alive = entity->alive(nodes[c][d]);
            ct_transform_t t = transform->lookup(w, nodes[c][d]);
            if (s.alive && t.i)
                s.world = transform->world_matrix(w, t);
            s.has_point = s.alive && physics->point_position(w, nodes[c][d], s.point) == 0;
            h = ct_murmur64a(&s, sizeof s, h);
        }
    return h;
}

/* ---- what each version adds ------------------------------------------------------------- */

static int entity_batches(ct_world_o *w)
{
    (void)w;
    ct_entity_t e[10];
    const uint32_t live = entity->live_count();
    if (entity->create_batch(e, 10) != 10 || entity->live_count() != live + 10)
        return CT_ERR_INVALID;
    entity->destroy_batch(e, 10);
    for (int k = 0; k < 10; k++)
        if (entity->alive(e[k]))
            return CT_ERR_INVALID;
    return entity->live_count() == live ? 0 : CT_ERR_INVALID;
}

/* A chain spawned at (0 0 10) turned a quarter about z: its tip, 4 up in the unit, goes to -x. */
static int world_rotations(ct_world_o *w)
{
    const float pos[3] = {0, 0, 10}, rot[4] = {0, 0, 0.70710678f, 0.70710678f};
    const ct_entity_t root = world_api->spawn_unit(w, "matrix/chain", pos, rot);
    if (!root.id)
        return CT_ERR_NOT_FOUND;
    ct_transform_t t = transform->lookup(w, root);
    for (int d = 1; d < CHAIN_DEPTH; d++)
        t = transform->first_child(w, t);
    const bool ok = world_position_is(w, transform->entity(w, t), -4, 0, 10);
    ct_entity_t unit[CHAIN_DEPTH];
    t = transform->lookup(w, root);
    for (int d = 0; d < CHAIN_DEPTH; d++, t = transform->first_child(w, t))
        unit[d] = transform->entity(w, t);
    for (int d = 0; d < CHAIN_DEPTH; d++)
        entity->destroy(unit[d]);
    return ok ? 0 : CT_ERR_INVALID;
}

/* Under a parent turned a quarter about z, a world position set is read back exactly. */
static int transform_world_setters(ct_world_o *w)
{
    ct_entity_t e[2] = {entity->create(), entity->create()};
    const ct_transform_pose_t turned = {{1, 1, 0}, {0, 0, 0.70710678f, 0.70710678f}, {1, 1, 1}};
    const ct_transform_t parent = transform->create(w, e[0], &turned);
    const ct_transform_t child = transform->create(w, e[1], NULL);
    transform->link(w, child, parent);
    const float want[3] = {3, -2, 5};
    float got[3] = {0};
    const bool ok = transform->set_world_position(w, e[1], want) &&
                    transform->world_position(w, e[1], got) && near(got[0], 3, 1e-5) &&
                    near(got[1], -2, 1e-5) && near(got[2], 5, 1e-5) &&
                    /* local = R(-90) * (world - parent): (3-1, -2-1) turned back = (-3, -2) */
                    near(transform->local(w, child).position[0], -3, 1e-5) &&
                    near(transform->local(w, child).position[1], -2, 1e-5);
    entity->destroy(e[0]);
    entity->destroy(e[1]);
    return ok ? 0 : CT_ERR_INVALID;
}

static int transform_destroy_tree(ct_world_o *w)
{
    const ct_entity_t root = spawn_chain(w, (const float[3]){0, 0, -10});
    const uint32_t count = transform->count(w);
    if (!root.id || transform->destroy_tree(w, root) != CHAIN_DEPTH)
        return CT_ERR_INVALID;
    return transform->count(w) == count - CHAIN_DEPTH && !entity->alive(root) ? 0 : CT_ERR_INVALID;
}

/* A unit sphere dropped from y = 3 on a static box whose top is at y = 0.5 settles at y = 1 and
 * raises one collision event naming both bodies. */
static int physics_bodies_and_contacts(ct_world_o *w)
{
    const ct_entity_t floor = entity->create(), ball = entity->create();
    const ct_body_desc_t floor_desc = {.kind = CT_BODY_STATIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {10, 0.5f, 10},
                                       .friction = 0.5f,
                                       .position = {0, 0, 0}};
    const ct_body_desc_t ball_desc = {.kind = CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_SPHERE,
                                      .radius = 0.5f,
                                      .mass = 1,
                                      .friction = 0.5f,
                                      .position = {0, 3, 0}};
    if (physics->add_body(w, floor, &floor_desc) || physics->add_body(w, ball, &ball_desc))
        return CT_ERR_INVALID;
    uint32_t collisions = 0;
    for (int step = 0; step < 240; step++) {
        physics->simulate(w, DT);
        uint32_t size, at = 0;
        const void *stream = physics->events(w, &size);
        for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(stream, size, &at));) {
            const ct_physics_collision_event_t *ev = (const void *)(h + 1);
            if (h->type == CT_PHYSICS_EVENT_COLLISION && ((ev->a == floor.id && ev->b == ball.id) ||
                                                          (ev->a == ball.id && ev->b == floor.id)))
                collisions++;
        }
    }
    float p[3] = {0}, v[3] = {1, 1, 1};
    const bool ok = physics->body_count(w) == 2 && physics->position(w, ball, p) == 0 &&
                    physics->velocity(w, ball, v) == 0 && near(p[1], 1.0, 0.02) &&
                    near(p[0], 0, 1e-4) && near(v[1], 0, 0.05) && collisions >= 1;
    entity->destroy(floor);
    entity->destroy(ball);
    return ok ? 0 : CT_ERR_INVALID;
}

/* The same drop with the ball on layer 2 and a floor whose mask leaves 2 out: it falls through;
 * the user data given comes back. */
static int physics_filters(ct_world_o *w)
{
    const ct_entity_t floor = entity->create(), ball = entity->create();
    const ct_body_desc_t floor_desc = {.kind = CT_BODY_STATIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {10, 0.5f, 10},
                                       .friction = 0.5f};
    const ct_body_desc_t ball_desc = {.kind = CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_SPHERE,
                                      .radius = 0.5f,
                                      .mass = 1,
                                      .position = {0, 3, 0}};
    uint64_t data = 0;
    uint32_t layer = 0, mask = 0;
    if (physics->add_body(w, floor, &floor_desc) || physics->add_body(w, ball, &ball_desc) ||
        physics->set_collision_filter(w, floor, 1u, ~2u) ||
        physics->set_collision_filter(w, ball, 2u, ~0u) ||
        physics->set_user_data(w, ball, 0xfeedu) || physics->user_data(w, ball, &data) ||
        physics->collision_filter(w, floor, &layer, &mask))
        return CT_ERR_INVALID;
    for (int step = 0; step < 60; step++)
        physics->simulate(w, DT);
    float p[3] = {0};
    /* Free fall for a second from y = 3: about 3 - 9.81 / 2. */
    const bool ok = data == 0xfeedu && layer == 1u && mask == ~2u &&
                    physics->position(w, ball, p) == 0 && p[1] < -1.0f && p[1] > -2.5f;
    entity->destroy(floor);
    entity->destroy(ball);
    return ok ? 0 : CT_ERR_INVALID;
}

/* Two arrays holding entities 0..99 and the even ones, shuffled: after sort_by_entity, the join
 * pairs exactly the 50 even ones and the sorted array is in key order. */
static int component_order(ct_world_o *w)
{
    (void)w;
    enum { N = 100 };
    ct_entity_t e[N], a[N], b[N / 2], sa[N], sb[N / 2];
    uint32_t order[N], scratch[3 * N];
    for (int k = 0; k < N; k++)
        e[k] = entity->create();
    for (int k = 0; k < N; k++)
        a[k] = e[(k * 37) % N];
    for (int k = 0; k < N / 2; k++)
        b[k] = e[2 * ((k * 13) % (N / 2))];
    component->sort_by_entity(a, N, order, scratch);
    for (int k = 0; k < N; k++)
        sa[k] = a[order[k]];
    component->sort_by_entity(b, N / 2, order, scratch);
    for (int k = 0; k < N / 2; k++)
        sb[k] = b[order[k]];
    uint32_t pairs = 0, run;
    bool same = true;
    for (ct_entity_join_t j = {0, 0}; (run = ct_entity_join_run(sa, N, sb, N / 2, &j)) != 0;
         j.a += run, j.b += run) {
        for (uint32_t k = 0; k < run; k++)
            same = same && sa[j.a + k].id == sb[j.b + k].id;
        pairs += run;
    }
    bool ordered = true;
    for (int k = 1; k < N; k++)
        ordered = ordered && ct_entity_order_key(sa[k - 1]) < ct_entity_order_key(sa[k]);
    for (int k = 0; k < N; k++)
        entity->destroy(e[k]);
    return same && ordered && pairs == N / 2 ? 0 : CT_ERR_INVALID;
}

/* A null-backend frame of the world seen from a spawned camera: the world holds no meshes, so the
 * frame is exactly the two default layers' begin packets, all valid. */
static int render_null_frame(ct_world_o *w)
{
    static const char camera_unit[] = "entities = [ { components = { transform = {} camera = { fov "
                                      "= 60 near = 0.1 far = 100 } } } ]";
    int r = resource->load_source("unit", "matrix/camera", camera_unit, sizeof camera_unit - 1);
    if (r)
        return r;
    const ct_entity_t camera = spawn_unit_at(w, "matrix/camera", (const float[3]){20, 3, 30});
    r = render->set_backend("null");
    if (!r)
        r = render->render(w, camera);
    const ct_render_stats_t s = render->stats();
    entity->destroy(camera);
    resource->unload("unit", "matrix/camera");
    if (!r && (s.frame != 1 || s.packets != 2 || s.invalid != 0))
        r = CT_ERR_INVALID;
    return r;
}

/* An arm of two bones (the second 1 up from the first) whose clip turns the first from 0 to 90
 * degrees about z over one second: after a second of playback the tip sits 1 to the -x side of
 * the shoulder, which stands where the unit was spawned. */
static int animation_arm(ct_world_o *w)
{
    static const char arm[] = "bvh = \"HIERARCHY\\nROOT shoulder\\n{\\nOFFSET 0 0 0\\nCHANNELS 1 "
                              "Zrotation\\nJOINT hand\\n{\\nOFFSET 0 1 0\\n}\\n}\\nMOTION\\n"
                              "Frames: 2\\nFrame Time: 1\\n0\\n90\\n\"";
    static const char unit[] = "entities = [ { components = { transform = {} animation = { "
                               "skeleton = \"matrix/arm\" clip = \"matrix/arm\" } } } ]";
    /* Precision mode: the spec mode's 10-bit components put the tip a millimetre or more off. */
    char clip[sizeof arm + 32];
    snprintf(clip, sizeof clip, "mode = \"precision\" %s", arm);
    int r = resource->load_source("skeleton", "matrix/arm", arm, sizeof arm - 1);
    if (!r)
        r = resource->load_source("clip", "matrix/arm", clip, strlen(clip));
    if (!r)
        r = resource->load_source("unit", "matrix/arm", unit, sizeof unit - 1);
    if (r)
        return r;
    const ct_entity_t e = spawn_unit_at(w, "matrix/arm", (const float[3]){50, 0, 0});
    animation->evaluate(w, 1.0f);
    const ct_entity_t hand = animation->bone(w, e, animation->bone_index(w, e, "hand"));
    /* Within the quantization of 15-bit quaternion components (about 1e-4 here). */
    const ct_transform_matrix_t m = transform->world_matrix(w, transform->lookup(w, hand));
    const bool ok = animation->bone_count(w, e) == 2 && near(animation->time(w, e), 1.0, 1e-6) &&
                    near(m.m[3], 49, 1e-3) && near(m.m[7], 0, 1e-3) && near(m.m[11], 0, 1e-3);
    entity->destroy(e);
    animation->evaluate(w, 0);
    resource->unload("unit", "matrix/arm");
    return ok ? 0 : CT_ERR_INVALID;
}

/* network v1: a host session on a free loopback port replicates an entity it owns. */
static int network_replication(ct_world_o *w)
{
    const ct_network_desc_t desc = {.host = 1, .world = w};
    if (network->start(&desc) != 0 || network->port() == 0 || network->peer_id() != 1)
        return CT_ERR_IO;
    const ct_entity_t e = entity->create();
    const ct_transform_pose_t pose = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
    const bool ok = transform->create(w, e, &pose).i && network->replicate(w, e) == 0 &&
                    network->owner(w, e) == 1 && network->stats().objects == 1;
    network->stop();
    entity->destroy(e);
    return ok && network->port() == 0 ? 0 : CT_ERR_INVALID;
}

/* expr v1: sin(t) + 0.1 * cos(10 * t) at t = 0.5, once and over a batch of 300 (two whole
 * blocks and a tail): the engine's own polynomials give these bits on every machine. */
static int expr_seed(ct_world_o *w)
{
    (void)w;
    static const char *const inputs[] = {"t"};
    ct_expr_error_t err;
    ct_expr_program_o *p = expr->compile(
        "sin(t) + 0.1 * cos(10 * t)", &(ct_expr_desc_t){.inputs = inputs, .num_inputs = 1}, &err);
    if (!p)
        return CT_ERR_INVALID;
    static float t[300], out[300];
    for (int i = 0; i < 300; i++)
        t[i] = 0.5f;
    float one = 0.0f;
    expr->eval(p, &t[0], &one);
    expr->eval_batch(p, (const float *const[]){t}, (float *const[]){out}, 300);
    uint32_t bits;
    memcpy(&bits, &one, sizeof bits);
    bool ok = bits == 0x3f01fea4u && expr->num_outputs(p) == 1;
    for (int i = 0; i < 300; i++)
        ok &= out[i] == one;
    expr->destroy(p);
    return ok ? 0 : CT_ERR_INVALID;
}

/* particles v1: a burst of 8 with vy = 3 + n, stepped by 0.5 s with gravity 2: vy = 3 + n - 1. */
static int particles_burst(ct_world_o *w)
{
    static const char src[] = "burst = 8 lifetime = 2 spawn = \"vx = 0; vy = 3 + n; vz = 0\" "
                              "velocity = \"vx = vx; vy = vy - 2 * dt; vz = vz\"";
    if (resource->load_source("particles", "matrix/burst", src, sizeof src - 1))
        return CT_ERR_INVALID;
    const float at[3] = {0, 0, 0};
    const ct_particle_emitter_t e = particles->spawn(w, "matrix/burst", at);
    particles->simulate(w, 0.5f);
    ct_particles_view_t v;
    const bool ok =
        e.id && particles->view(w, e, &v) && v.count == 8 && v.vy[5] == 7.0f && v.py[5] == 3.5f;
    particles->destroy(w, e);
    resource->unload("particles", "matrix/burst");
    return ok ? 0 : CT_ERR_INVALID;
}

typedef struct world_events_t {
    uint32_t created, destroyed;
    ct_world_o *last;
} world_events_t;

static void on_world(void *ctx, ct_world_o *world, uint32_t event)
{
    world_events_t *ev = ctx;
    ev->created += event == CT_WORLD_CREATED;
    ev->destroyed += event == CT_WORLD_DESTROYED;
    ev->last = world;
}

/* The scenario's world is the only one; a second one is listed while it lives, and a listener
 * hears of it being created and destroyed, then, removed, of nothing more. */
static int world_listeners(ct_world_o *w)
{
    world_events_t ev = {0, 0, NULL};
    if (world_api->world_count() != 1 || world_api->world_at(0) != w ||
        world_api->world_at(1) != NULL || world_api->add_world_listener(on_world, &ev) != 0)
        return CT_ERR_INVALID;
    ct_world_o *other = world_api->create_world(&(ct_world_desc_t){.name = "matrix.other"});
    const bool listed = other && world_api->world_count() == 2 &&
                        (world_api->world_at(1) == other || world_api->world_at(0) == other) &&
                        ev.created == 1 && ev.last == other;
    world_api->destroy_world(other);
    const bool heard = ev.destroyed == 1 && ev.last == other && world_api->world_count() == 1;
    world_api->remove_world_listener(on_world, &ev);
    world_api->destroy_world(world_api->create_world(NULL));
    return listed && heard && ev.created == 1 && ev.destroyed == 1 ? 0 : CT_ERR_INVALID;
}

typedef struct lua_probe_t {
    double base;
    uint32_t calls;
} lua_probe_t;

/* Matrix.add(a, b) = the context's base + a + b. */
static int l_add(lua_State *L, void *ctx)
{
    lua_probe_t *p = ctx;
    p->calls++;
    lua->push_number(L, p->base + lua->check_number(L, 1) + lua->check_number(L, 2));
    return 1;
}

/* vec:len() of a "matrix.vec" userdata holding three floats. */
static int l_vec_len(lua_State *L, void *ctx)
{
    (void)ctx;
    const float *v = lua->check_userdata(L, 1, "matrix.vec");
    lua->push_number(L, sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]));
    return 1;
}

/* A chunk computes Matrix.add(2, 3) + vec:len() with vec = (3 4 0) kept by a reference:
 * 100 + 5 + 5; then pcall calls Matrix.add(1, 1) from C: 102. */
static int lua_closures(ct_world_o *w)
{
    (void)w;
    static lua_probe_t probe = {100, 0};
    const ct_lua_closure_reg_t fns[] = {{"add", l_add}}, methods[] = {{"len", l_vec_len}};
    lua->register_closures("Matrix", fns, 1, &probe);
    lua->register_type("matrix.vec", methods, 1, NULL);
    lua_State *L = lua->main_state();
    const int top = lua->get_top(L);
    float *v = lua->new_userdata(L, 3 * sizeof(float), "matrix.vec");
    v[0] = 3, v[1] = 4, v[2] = 0;
    const int32_t ref = lua->ref(L, -1);
    lua->set_top(L, top);
    lua->push_ref(L, ref);
    lua->set_field(L, CT_LUA_GLOBALS, "matrix_vec");
    if (lua->run_string("matrix_sum = Matrix.add(2, 3) + matrix_vec:len()", "matrix") != 0)
        return CT_ERR_LUA;
    lua->get_field(L, CT_LUA_GLOBALS, "matrix_sum");
    const double sum = lua->to_number(L, -1);
    lua->set_top(L, top);
    lua->get_field(L, CT_LUA_GLOBALS, "Matrix");
    lua->get_field(L, -1, "add");
    lua->push_number(L, 1);
    lua->push_number(L, 1);
    const int r = lua->pcall(L, 2, 1);
    const double called = r == 0 ? lua->to_number(L, -1) : 0;
    lua->set_top(L, top);
    lua->unref(L, ref);
    return sum == 110 && called == 102 && probe.calls == 2 ? 0 : CT_ERR_INVALID;
}

/* transform v4: setting a pose moves the change counter; reading one does not. */
static int transform_changes(ct_world_o *w)
{
    const ct_entity_t e = entity->create();
    const ct_transform_t t = transform->create(w, e, NULL);
    const uint64_t created = transform->changes(w);
    transform->world_matrix(w, t);
    const uint64_t read = transform->changes(w);
    const ct_transform_pose_t moved = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
    transform->set_local(w, t, &moved);
    const uint64_t set = transform->changes(w);
    entity->destroy(e);
    return t.i && created > 0 && read == created && set > read ? 0 : CT_ERR_INVALID;
}

/* physics v4: without gravity, a free cube spun about y at a quarter turn per second has turned a
 * quarter after a second: (0, sin 45, 0, cos 45). A cube's inertia is the same about every axis,
 * so nothing makes it wobble. */
static int physics_rotation(ct_world_o *w)
{
    const float quarter = 1.5707963f;
    const ct_entity_t e = entity->create();
    const ct_rigid_body_desc_t desc = {.kind = CT_BODY_DYNAMIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {0.5f, 0.5f, 0.5f},
                                       .mass = 1,
                                       .position = {0, 100, 0},
                                       .angular_velocity = {0, quarter, 0}};
    float gravity[3] = {0, -9.81f, 0}, q[4] = {0};
    physics->set_gravity(w, (const float[3]){0, 0, 0});
    int r = physics->add_rigid_body(w, e, &desc);
    for (int step = 0; r == 0 && step < 60; step++)
        physics->simulate(w, DT);
    const bool ok = r == 0 && physics->rotation(w, e, q) == 0 && near(q[0], 0, 1e-3) &&
                    near(q[1], 0.70710678, 1e-3) && near(q[2], 0, 1e-3) &&
                    near(q[3], 0.70710678, 1e-3);
    physics->set_gravity(w, gravity);
    entity->destroy(e);
    return ok ? 0 : CT_ERR_INVALID;
}

/* physics v5: a hull cube of side 1 (its 8 corners) dropped from 1 m onto a static box whose top
 * is at y 0 rests with its centre at 0.5, and a ray straight down hits its top at 1.0. */
static int physics_hull(ct_world_o *w)
{
    const ct_entity_t floor = entity->create(), e = entity->create();
    const ct_rigid_body_desc_t floor_desc = {.kind = CT_BODY_STATIC,
                                             .shape = CT_BODY_BOX,
                                             .half_extents = {5, 0.5f, 5},
                                             .position = {0, -0.5f, 0},
                                             .locks = CT_BODY_LOCK_ROTATION};
    const ct_rigid_body_desc_t desc = {
        .kind = CT_BODY_DYNAMIC, .shape = CT_BODY_HULL, .mass = 1, .friction = 0.5f,
        .position = {0, 1.5f, 0}};
    float points[24], p[3] = {0};
    for (int k = 0; k < 8; k++) {
        points[3 * k] = (k & 1) ? 0.5f : -0.5f;
        points[3 * k + 1] = (k & 2) ? 0.5f : -0.5f;
        points[3 * k + 2] = (k & 4) ? 0.5f : -0.5f;
    }
    int r = physics->add_rigid_body(w, floor, &floor_desc);
    if (r == 0)
        r = physics->add_hull_body(w, e, &desc, points, 8);
    for (int step = 0; r == 0 && step < 120; step++)
        physics->simulate(w, DT);
    ct_physics_hit_t hit = {0};
    const bool ok = r == 0 && physics->position(w, e, p) == 0 && near(p[1], 0.5, 0.01) &&
                    physics->raycast(w, (const float[3]){0, 5, 0}, (const float[3]){0, -1, 0}, 10,
                                     &hit) &&
                    hit.entity == e.id && near(hit.distance, 5.0 - p[1] - 0.5, 1e-4);
    entity->destroy(e);
    entity->destroy(floor);
    return ok ? 0 : CT_ERR_INVALID;
}

/* render v2: two debug lines and a box drawn into a null-backend frame reach its display list. */
static int render_debug_draw(ct_world_o *w)
{
    static const char camera_unit[] = "entities = [ { components = { transform = {} camera = { fov "
                                      "= 60 near = 0.1 far = 100 } } } ]";
    int r = resource->load_source("unit", "matrix/camera2", camera_unit, sizeof camera_unit - 1);
    if (r)
        return r;
    const ct_entity_t camera = spawn_unit_at(w, "matrix/camera2", (const float[3]){20, 3, 30});
    const float white[4] = {1, 1, 1, 1}, lines[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0, 1, 0}};
    r = render->set_backend("null");
    if (!r)
        r = render->render(w, camera);
    const ct_render_stats_t plain = render->stats();
    render->debug_lines(lines, 2, white);
    render->debug_box((const float[3]){0, 0, 0}, (const float[3]){1, 1, 1}, NULL, white);
    if (!r)
        r = render->render(w, camera);
    const ct_render_stats_t drawn = render->stats();
    entity->destroy(camera);
    resource->unload("unit", "matrix/camera2");
    /* The world holds no meshes: the two layers' begin packets, then one more for the lines. */
    if (!r && (plain.packets != 2 || drawn.packets != 3 || drawn.invalid != 0 ||
               drawn.command_hash == plain.command_hash))
        r = CT_ERR_INVALID;
    return r;
}

static void *execute_frame(void *result)
{
    *(int *)result = render->execute(NULL, 0, NULL, NULL);
    return NULL;
}

/* render v3: a null-backend frame prepared here and executed on another thread has the display
 * list render() builds; it is executed once; the shadow cap is taken (no shadow layer here). */
static int render_split_frame(ct_world_o *w)
{
    static const char camera_unit[] = "entities = [ { components = { transform = {} camera = { fov "
                                      "= 60 near = 0.1 far = 100 } } } ]";
    int r = resource->load_source("unit", "matrix/camera3", camera_unit, sizeof camera_unit - 1);
    if (r)
        return r;
    const ct_entity_t camera = spawn_unit_at(w, "matrix/camera3", (const float[3]){20, 3, 30});
    r = render->set_backend("null");
    render->set_max_shadow_size(512);
    if (!r)
        r = render->render(w, camera);
    const ct_render_stats_t whole = render->stats();
    if (!r)
        r = render->prepare(w, camera);
    const ct_render_stats_t prepared = render->stats();
    int executed = CT_ERR_INVALID;
    pthread_t t;
    if (!r && pthread_create(&t, NULL, execute_frame, &executed) == 0)
        pthread_join(t, NULL);
    const int again = render->execute(NULL, 0, NULL, NULL);
    render->set_max_shadow_size(0);
    entity->destroy(camera);
    resource->unload("unit", "matrix/camera3");
    if (!r && (executed != 0 || again != CT_ERR_INVALID || prepared.frame != whole.frame + 1 ||
               prepared.packets != 2 || prepared.command_hash != whole.command_hash))
        r = CT_ERR_INVALID;
    return r;
}

/* input v1: a control named both ways, a bad name refused, a key press injected and an event of
 * no type refused. */
static int input_controls(ct_world_o *w)
{
    (void)w;
    const uint32_t key = input->control("w");
    const char *name = key ? input->control_name(key) : NULL;
    const bool ok =
        key && name && strcmp(name, "w") == 0 && input->control("Bad Name") == 0 &&
        input->inject(&(ct_input_event_t){.type = CT_INPUT_DOWN, .control = key}) == 0 &&
        input->inject(&(ct_input_event_t){.type = CT_INPUT_UP, .control = key}) == 0 &&
        input->inject(&(ct_input_event_t){.type = 99, .control = key}) == CT_ERR_INVALID;
    return ok ? 0 : CT_ERR_INVALID;
}

/* clock v1: the scale starts at 1; 0.5 is taken, 200 refused (0.5 stays); pausing is read back.
 * The clock is left as it was found. */
static int clock_scale(ct_world_o *w)
{
    (void)w;
    const bool fresh = game_clock->scale() == 1.0 && game_clock->paused() == 0;
    game_clock->set_scale(0.5);
    const bool half = game_clock->scale() == 0.5;
    game_clock->set_scale(200);
    const bool refused = game_clock->scale() == 0.5;
    game_clock->set_paused(1);
    const bool paused = game_clock->paused() == 1;
    game_clock->set_paused(0);
    game_clock->set_scale(1);
    return fresh && half && refused && paused && game_clock->paused() == 0 ? 0 : CT_ERR_INVALID;
}

typedef struct island_probe_t {
    uint32_t hp;
} island_probe_t;

/* "matrix_hit": the second entity's hp grows by the event's first number. */
static void on_hit(void *user_data, const ct_island_event_t *event, ct_island_ctx_o *ctx)
{
    const island_probe_t *probe = user_data;
    const ct_entity_t target = event->entities[1];
    islands->set(ctx, target, probe->hp, islands->get(ctx, target, probe->hp) + event->args[0]);
}

/* islands v1: one event naming two entities is one island of one event, run on this thread: its
 * handler adds 2 to an hp of 40. */
static int islands_run(ct_world_o *w)
{
    (void)w;
    static island_probe_t probe;
    probe.hp = islands->field("hp");
    const uint32_t hit = islands->handler("matrix_hit", on_hit, &probe);
    const ct_entity_t a = entity->create(), b = entity->create();
    islands->set_value(b, probe.hp, 40);
    ct_island_stats_t st = {0};
    const bool ok = probe.hp && hit &&
                    islands->post(&(ct_island_event_t){
                        .type = hit, .num_entities = 2, .entities = {a, b}, .args = {2}}) == 0 &&
                    islands->run(CT_ISLANDS_ONE_THREAD, &st) == 0 && st.events == 1 &&
                    st.islands == 1 && st.largest == 1 && st.refused == 0 &&
                    islands->value(b, probe.hp) == 42;
    entity->destroy(a);
    entity->destroy(b);
    return ok ? 0 : CT_ERR_INVALID;
}

/* Each feature and the check that shows it, run in this order when the combination's versions
 * add it (matrix_features in matrix_probe.h). */
static const struct {
    uint32_t feature;
    int (*check)(ct_world_o *w);
} feature_checks[] = {
    {MATRIX_ENTITY_BATCHES, entity_batches},
    {MATRIX_WORLD_ROTATIONS, world_rotations},
    {MATRIX_TRANSFORM_WORLD_SETTERS, transform_world_setters},
    {MATRIX_TRANSFORM_DESTROY_TREE, transform_destroy_tree},
    {MATRIX_TRANSFORM_CHANGES, transform_changes},
    {MATRIX_PHYSICS_BODIES, physics_bodies_and_contacts},
    {MATRIX_PHYSICS_FILTERS, physics_filters},
    {MATRIX_PHYSICS_ROTATION, physics_rotation},
    {MATRIX_PHYSICS_HULLS, physics_hull},
    {MATRIX_COMPONENT_ORDER, component_order},
    {MATRIX_RENDER_NULL_FRAME, render_null_frame},
    {MATRIX_RENDER_DEBUG_DRAW, render_debug_draw},
    {MATRIX_ANIMATION_PLAYBACK, animation_arm},
    {MATRIX_NETWORK_REPLICATION, network_replication},
    {MATRIX_WORLD_LISTENERS, world_listeners},
    {MATRIX_LUA_CLOSURES, lua_closures},
    {MATRIX_EXPR_EVAL, expr_seed},
    {MATRIX_PARTICLES_STEP, particles_burst},
    {MATRIX_INPUT_CONTROLS, input_controls},
    {MATRIX_CLOCK_SCALE, clock_scale},
    {MATRIX_ISLANDS_RUN, islands_run},
    {MATRIX_RENDER_SPLIT_FRAME, render_split_frame},
};

/* Runs each added feature; a feature that ran and gave its expected result sets its bit. */
static int run_features(ct_world_o *w, uint32_t *features)
{
    const uint32_t wanted = matrix_features_of(&versions);
    for (size_t k = 0; k < sizeof feature_checks / sizeof feature_checks[0]; k++) {
        if (!(wanted & feature_checks[k].feature))
            continue;
        const int r = feature_checks[k].check(w);
        if (r != 0)
            return r;
        *features |= feature_checks[k].feature;
    }
    return 0;
}

/* ---- the scenario ----------------------------------------------------------------------- */

static int common_scenario(ct_world_o *w, matrix_result_t *out)
{
    ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH];
    for (int c = 0; c < NUM_CHAINS; c++) {
        const float pos[3] = {2.0f * (float)c, 0, 0};
        nodes[c][0] = spawn_chain(w, pos);
        ct_transform_t t = transform->lookup(w, nodes[c][0]);
        for (int d = 1; d < CHAIN_DEPTH; d++) {
            t = transform->first_child(w, t);
            nodes[c][d] = transform->entity(w, t);
        }
    }
    /* Spawned where the unit says: every node alive, tips 4 up. */
    if (count_alive(nodes) != NUM_CHAINS * CHAIN_DEPTH)
        return CT_ERR_NOT_FOUND;
    for (int c = 0; c < NUM_CHAINS; c++)
        if (!world_position_is(w, nodes[c][CHAIN_DEPTH - 1], 2.0 * c, 4, 0))
            return CT_ERR_INVALID;
    const uint64_t spawned = hash_state(w, nodes);

    move_chains(w, nodes);
    for (int c = 0; c < NUM_CHAINS; c++)
        if (!tip_is_where_expected(w, nodes[c], c))
            return CT_ERR_INVALID;

    for (int c = 0; c < NUM_CHAINS; c++) {
        const ct_point_mass_desc_t pm = {.mass = 1.0f + (float)c, .velocity = {1, 2, 0}};
        if (physics->add_point_mass(w, nodes[c][0], &pm) != 0)
            return CT_ERR_INVALID;
    }
    for (int step = 0; step < STEPS; step++)
        physics->simulate(w, DT);
    for (int c = 0; c < NUM_CHAINS; c++) {
        float p[3];
        if (physics->point_position(w, nodes[c][0], p) != 0 || !near(p[0], STEPS * DT, 1e-5) ||
            !near(p[1], 2 * STEPS * DT, 1e-5) || !near(p[2], 0, 1e-6))
            return CT_ERR_INVALID;
    }

    /* Every version of the registry finds the transform manager of the world. */
    if (!component->manager(w, component->type_id(CT_TRANSFORM_COMPONENT_NAME)))
        return CT_ERR_NOT_FOUND;
    const uint32_t destroyed = destroy_some(nodes);
    if (destroyed != (NUM_CHAINS + 2) / 3 ||
        count_alive(nodes) != NUM_CHAINS * CHAIN_DEPTH - destroyed)
        return CT_ERR_INVALID;
    /* The survivors' count goes through a Lua chunk (v1 calls) and comes back doubled plus one. */
    lua_State *L = lua->main_state();
    const int top = lua->get_top(L);
    lua->push_number(L, count_alive(nodes));
    lua->set_field(L, CT_LUA_GLOBALS, "matrix_alive");
    if (lua->run_string("matrix_lua = matrix_alive * 2 + 1", "matrix") != 0)
        return CT_ERR_LUA;
    lua->get_field(L, CT_LUA_GLOBALS, "matrix_lua");
    const double from_lua = lua->to_number(L, -1);
    lua->set_top(L, top);
    if (from_lua != 2.0 * (NUM_CHAINS * CHAIN_DEPTH - destroyed) + 1)
        return CT_ERR_INVALID;
    out->common_hash = ct_murmur64a(&from_lua, sizeof from_lua, hash_state(w, nodes));
    out->changed = out->common_hash != spawned;
    return 0;
}

static int run(const matrix_versions_t *v, matrix_result_t *out, char missing[64])
{
    memset(out, 0, sizeof *out);
    missing[0] = '\0';
    int r = bind_all(v, missing);
    if (r)
        return r;
    r = resource->load_source("unit", "matrix/chain", chain_unit, sizeof chain_unit - 1);
    if (r)
        return r;
    ct_world_o *w = world_api->create_world(&(ct_world_desc_t){.name = "matrix"});
    if (!w)
        return CT_ERR_NOMEM;
    r = common_scenario(w, out);
    if (r == 0)
        r = run_features(w, &out->features);
    world_api->destroy_world(w);
    resource->unload("unit", "matrix/chain");
    return r;
}

static int init(const ct_plugin_host_t *host, void **ctx)
{
    *ctx = NULL;
    get_engine_api = host->get_engine_api;
    resource = get_engine_api(CT_RESOURCE_API, 1);
    return resource ? 0 : CT_ERR_MISSING_API;
}

/* Every version this probe binds; the kernel checks some version of each is served, and run
 * asks for the exact ones. */
static const ct_api_need_t required[] = {
    CT_API_NEED_RANGE("ct.entity", 1, 2),
    CT_API_NEED_RANGE("ct.world", 0, 2),
    CT_API_NEED_RANGE("ct.transform", 1, 4),
    CT_API_NEED_RANGE("ct.physics", 1, 5),
    CT_API_NEED_RANGE("ct.component", 1, 2),
    CT_API_NEED_RANGE("ct.render", 1, 3),
    CT_API_NEED("ct.animation", 1),
    CT_API_NEED("ct.network", 1),
    CT_API_NEED_RANGE("ct.lua", 1, 2),
    CT_API_NEED("ct.expr", 1),
    CT_API_NEED("ct.particles", 1),
    CT_API_NEED("ct.input", 1),
    CT_API_NEED("ct.clock", 1),
    CT_API_NEED("ct.islands", 1),
    CT_API_NEED("ct.resource", 1),
};
static const matrix_probe_api_v2 probe_api = {.run = run};
static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("matrix.probe", 2, matrix_probe_api_v2),
};
static const ct_plugin_api_v2 plugin = {
    .magic = CT_PLUGIN_MAGIC,
    .struct_size = sizeof(ct_plugin_api_v2),
    .name = "matrix.probe",
    .version = {2, 0, 0, 0},
    .provides = provides,
    .num_provides = CT_ARRAY_COUNT(provides),
    .num_required = CT_ARRAY_COUNT(required),
    .required = required,
    .init = init,
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&plugin;
    if (api == ct_hash32("matrix.probe") && version == 2)
        return (void *)&probe_api;
    return NULL;
}
