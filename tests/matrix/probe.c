/*
 * The version-matrix probe: a plugin built once per combination of module API versions
 * (ENTITY_V, WORLD_V, TRANSFORM_V, PHYSICS_V, RENDER_V), requiring exactly those versions and running one
 * scripted scenario through them: spawn a unit many times, move its chains, integrate point
 * masses, destroy some entities, render a null-backend frame. It answers "matrix.probe" v1 with a hash of the resulting world
 * state, which must be the same for every combination.
 */
#include "ct_entity.h"
#include "ct_hash.h"
#include "ct_physics.h"
#include "ct_plugin.h"
#include "ct_render.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"

#include <math.h>
#include <string.h>

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
typedef CONCAT(ct_entity_api_v, ENTITY_V) entity_api_t;
typedef CONCAT(ct_world_api_v, WORLD_V) world_api_t;
typedef CONCAT(ct_transform_api_v, TRANSFORM_V) transform_api_t;
typedef CONCAT(ct_physics_api_v, PHYSICS_V) physics_api_t;
typedef CONCAT(ct_render_api_v, RENDER_V) render_api_t;

#define NUM_CHAINS 24
#define CHAIN_DEPTH 5

typedef struct matrix_probe_api_v1 {
    /* Runs the scenario once; 0 and the state hash, or a negative ct_error. */
    int (*run)(uint64_t *state_hash);
} matrix_probe_api_v1;

static const entity_api_t *entity;
static const world_api_t *world_api;
static const transform_api_t *transform;
static const physics_api_t *physics;
static const render_api_t *render;
static const ct_resource_api_v1 *resource;

static const char chain_unit[] =
    "entities = [ { name = \"link0\" components = { transform = {} debug_name = { name = \"root\" } }\n"
    "  children = [ { components = { transform = { position = [0 1 0] } }\n"
    "    children = [ { components = { transform = { position = [0 1 0] } }\n"
    "      children = [ { components = { transform = { position = [0 1 0] } }\n"
    "        children = [ { components = { transform = { position = [0 1 0] } } } ] } ] } ] } ] } ]\n";

static ct_entity_t spawn_unit_at(ct_world_o *w, const char *unit, const float pos[3])
{
#if WORLD_V == 0
    return world_api->spawn_unit(w, unit, pos);
#else
    return world_api->spawn_unit(w, unit, pos, NULL);
#endif
}

static ct_entity_t spawn_chain(ct_world_o *w, const float pos[3]) { return spawn_unit_at(w, "matrix/chain", pos); }

static void move_chains(ct_world_o *w, ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH])
{
    ct_transform_t instances[NUM_CHAINS * CHAIN_DEPTH];
    ct_transform_pose_t poses[NUM_CHAINS * CHAIN_DEPTH];
    uint32_t n = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        for (int d = 0; d < CHAIN_DEPTH; d++) {
            float angle = 0.1f * (float)d;
            instances[n] = transform->lookup(w, nodes[c][d]);
            poses[n] = (ct_transform_pose_t){
                .position = {0.5f * (float)c, d ? 1.0f + 0.1f * (float)c : 0.0f, 0.05f * (float)d},
                .rotation = {0, 0, sinf(angle / 2), cosf(angle / 2)},
                .scale = {1, 1, 1},
            };
            n++;
        }
#if TRANSFORM_V == 1
    for (uint32_t i = 0; i < n; i++)
        transform->set_local(w, instances[i], &poses[i]);
#else
    transform->set_local_batch(w, instances, poses, n);
#endif
}

static void destroy_some(ct_entity_t nodes[NUM_CHAINS][CHAIN_DEPTH])
{
    ct_entity_t doomed[NUM_CHAINS];
    uint32_t n = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        if (c % 3 == 0)
            doomed[n++] = nodes[c][c % 2 ? 0 : CHAIN_DEPTH - 1];
#if ENTITY_V == 1
    for (uint32_t i = 0; i < n; i++)
        entity->destroy(doomed[i]);
#else
    entity->destroy_batch(doomed, n);
#endif
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

/* A null-backend frame of the world seen from a spawned camera; its counts and command hash join
 * the state hash. */
static int render_frame(ct_world_o *w, uint64_t *state_hash)
{
    static const char camera_unit[] =
        "entities = [ { components = { transform = {} camera = { fov = 60 near = 0.1 far = 100 } } } ]";
    int r = resource->load_source("unit", "matrix/camera", camera_unit, sizeof camera_unit - 1);
    if (r)
        return r;
    const float at[3] = {20, 3, 30};
    const ct_entity_t camera = spawn_unit_at(w, "matrix/camera", at);
    r = render->set_backend("null");
    if (!r)
        r = render->render(w, camera);
    const ct_render_stats_t s = render->stats();
    resource->unload("unit", "matrix/camera");
    if (!r && (s.frame != 1 || s.packets != 2 || s.invalid != 0)) /* the two default layers' begins */
        r = CT_ERR_INVALID;
    *state_hash = ct_murmur64a(&s.command_hash, sizeof s.command_hash, *state_hash ^ s.packets);
    return r;
}

static int run(uint64_t *state_hash)
{
    int r = resource->load_source("unit", "matrix/chain", chain_unit, sizeof chain_unit - 1);
    if (r)
        return r;
    ct_world_o *w = world_api->create_world(&(ct_world_desc_t){.name = "matrix"});
    if (!w)
        return CT_ERR_NOMEM;

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
    /* A scenario that silently did nothing would hash the same everywhere: check it ran. */
    uint32_t live_before = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        for (int d = 0; d < CHAIN_DEPTH; d++)
            live_before += entity->alive(nodes[c][d]);
    if (live_before != NUM_CHAINS * CHAIN_DEPTH)
        return CT_ERR_NOT_FOUND;
    move_chains(w, nodes);
    for (int c = 0; c < NUM_CHAINS; c++) {
        ct_point_mass_desc_t pm = {.mass = 1.0f + (float)c, .velocity = {1, 2, 0}};
        physics->add_point_mass(w, nodes[c][0], &pm);
    }
    for (int step = 0; step < 10; step++)
        physics->simulate(w, 1.0f / 60.0f);
    destroy_some(nodes);
    uint32_t live_after = 0;
    for (int c = 0; c < NUM_CHAINS; c++)
        for (int d = 0; d < CHAIN_DEPTH; d++)
            live_after += entity->alive(nodes[c][d]);
    if (live_after != live_before - (NUM_CHAINS + 2) / 3)
        return CT_ERR_INVALID;
    *state_hash = hash_state(w, nodes);
    r = render_frame(w, state_hash);
    world_api->destroy_world(w);
    resource->unload("unit", "matrix/chain");
    if (r)
        return r;
    return 0;
}

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    entity = get_engine_api(CT_ENTITY_API, ENTITY_V);
    world_api = get_engine_api(CT_WORLD_API, WORLD_V);
    transform = get_engine_api(CT_TRANSFORM_API, TRANSFORM_V);
    physics = get_engine_api(CT_PHYSICS_API, PHYSICS_V);
    resource = get_engine_api(CT_RESOURCE_API, 1);
    render = get_engine_api(CT_RENDER_API, RENDER_V);
    return entity && world_api && transform && physics && resource && render ? 0 : CT_ERR_MISSING_API;
}

static const ct_api_ref_t requires[] = {
    {CT_ENTITY_API, ENTITY_V, 0, 0, "ct.entity"},
    {CT_WORLD_API, WORLD_V, 0, 0, "ct.world"},
    {CT_TRANSFORM_API, TRANSFORM_V, 0, 0, "ct.transform"},
    {CT_PHYSICS_API, PHYSICS_V, 0, 0, "ct.physics"},
    {CT_RESOURCE_API, 1, 0, 0, "ct.resource"},
    {CT_RENDER_API, RENDER_V, 0, 0, "ct.render"},
};
static ct_api_ref_t provides[1];
static const matrix_probe_api_v1 probe_api = {run};
static ct_plugin_api_v1 plugin = {
    .name = "matrix.probe",
    .version = {1, 0, 0, 0},
    .provides = provides,
    .num_provides = 1,
    .requires = requires,
    .num_requires = sizeof requires / sizeof requires[0],
    .init = init,
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    provides[0] = (ct_api_ref_t){ct_hash32("matrix.probe"), 1, sizeof probe_api, 0, "matrix.probe"};
    if (api == CT_PLUGIN_API && version == 1)
        return &plugin;
    if (api == provides[0].id && version == 1)
        return (void *)&probe_api;
    return NULL;
}
