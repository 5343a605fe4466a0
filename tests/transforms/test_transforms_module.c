/*
 * ct_transforms.so in a booted kernel with ct_entities.so: the ct.transform tables, several
 * worlds, entity death, resources (compile errors, spawning with parent links and a pose) and
 * the Lua bindings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "test_kernel.h"
#include "resources/resources.h"

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_transform_api_v1 *tv1;
static const ct_transform_api_v2 *tv2;
static const ct_transform_api_v3 *tv3;
static const ct_transform_api_v4 *tv4;
static const ct_resource_api_v1 *resource;
static const ct_lua_api_v1 *lua;
static ct_world_o *world;

static int boot(void **state)
{
    (void)state;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms")};
    const kernel_desc_t desc = test_kernel_desc(paths, 2);
    const test_world_t *t = test_world_boot(&desc, "main");
    entity = t->entity, worlds = t->worlds, resource = t->resource, lua = t->lua, world = t->world;
    tv1 = test_kernel_api(CT_TRANSFORM_API, 1);
    tv2 = test_kernel_api(CT_TRANSFORM_API, 2);
    tv3 = test_kernel_api(CT_TRANSFORM_API, 3);
    assert_non_null(tv1);
    assert_non_null(tv2);
    assert_non_null(tv3);
    tv4 = test_kernel_api(CT_TRANSFORM_API, 4);
    assert_non_null(tv4);
    assert_null(test_kernel_api(CT_TRANSFORM_API, 5));
    return 0;
}

static ct_transform_pose_t transforms_identity(void)
{
    return (ct_transform_pose_t){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
}

static ct_transform_pose_t pose_at(float x, float y, float z)
{
    return (ct_transform_pose_t){{x, y, z}, {0, 0, 0, 1}, {1, 1, 1}};
}

static void assert_near(float a, float b)
{
    if (!(fabsf(a - b) <= 1e-4f * (1 + fabsf(b))))
        fail_msg("%.7g differs from %.7g", (double)a, (double)b);
}

static void assert_world_position(ct_world_o *w, ct_entity_t e, float x, float y, float z)
{
    float p[3];
    assert_true(tv2->world_position(w, e, p));
    assert_near(p[0], x);
    assert_near(p[1], y);
    assert_near(p[2], z);
}

static void test_chain_and_links(void **state)
{
    (void)state;
    ct_entity_t e[5];
    assert_int_equal(entity->create_batch(e, 5), 5);
    ct_transform_t t[5];
    for (int k = 0; k < 5; k++) {
        t[k] = tv2->create(world, e[k], (const ct_transform_pose_t[]){pose_at(0, 1, 0)});
        assert_true(t[k].i != 0);
    }
    for (int k = 1; k < 5; k++)
        tv2->link(world, t[k], t[k - 1]);
    assert_int_equal(tv2->count(world), 5);
    assert_int_equal(tv2->parent(world, t[4]).i, t[3].i);
    assert_int_equal(tv2->first_child(world, t[0]).i, t[1].i);
    assert_int_equal(tv2->lookup(world, e[2]).i, t[2].i);
    assert_int_equal(tv2->entity(world, t[2]).id, e[2].id);
    assert_world_position(world, e[4], 0, 5, 0);

    /* Moving the root moves the tip before anything else happens. */
    tv2->set_local(world, t[0], &(ct_transform_pose_t){{3, 1, 0}, {0, 0, 0, 1}, {2, 2, 2}});
    assert_world_position(world, e[4], 3, 9, 0);

    /* A cycle is refused; stale and invalid handles are ignored. */
    tv2->link(world, t[0], t[4]);
    assert_int_equal(tv2->parent(world, t[0]).i, 0);
    tv2->set_local(world, (ct_transform_t){999}, &(ct_transform_pose_t){0});
    assert_int_equal(tv2->parent(world, (ct_transform_t){999}).i, 0);

    /* Unlinking keeps the world pose. */
    tv2->unlink(world, t[3]);
    assert_world_position(world, e[4], 3, 9, 0);
    assert_int_equal(tv2->parent(world, t[3]).i, 0);
    const ct_transform_pose_t p3 = tv2->local(world, t[3]);
    assert_near(p3.position[1], 7);
    assert_near(p3.scale[0], 2);

    /* World setters solve the local pose through the parent. */
    assert_true(tv2->set_world_position(world, e[2], (float[3]){1, 1, 1}));
    assert_world_position(world, e[2], 1, 1, 1);
    const ct_transform_pose_t p2 = tv2->local(world, tv2->lookup(world, e[2]));
    assert_near(p2.position[0], -1), assert_near(p2.position[1], -1),
        assert_near(p2.position[2], 0.5f);
    const float quarter_z[4] = {0, 0, 0.70710678f, 0.70710678f};
    assert_true(tv2->set_world_rotation(world, e[2], quarter_z));
    float q[4];
    assert_true(tv2->world_rotation(world, e[2], q));
    for (int k = 0; k < 4; k++)
        assert_near(q[k], quarter_z[k]);

    ct_entity_t none = entity->create();
    assert_false(tv2->world_position(world, none, q));
    assert_false(tv2->set_world_position(world, none, q));
    entity->destroy(none);
    entity->destroy_batch(e, 5);
    assert_int_equal(tv2->count(world), 0);
}

static void test_several_worlds(void **state)
{
    (void)state;
    ct_world_o *other = worlds->create_world(&(ct_world_desc_t){.name = "inventory"});
    assert_non_null(other);
    ct_entity_t e = entity->create();
    ct_transform_t a = tv2->create(world, e, (const ct_transform_pose_t[]){pose_at(1, 2, 3)});
    ct_transform_t b = tv2->create(other, e, (const ct_transform_pose_t[]){pose_at(-5, 0, 0)});
    assert_true(a.i && b.i);
    /* One per world: a second one in the same world is refused. */
    assert_int_equal(tv2->create(world, e, NULL).i, 0);
    assert_world_position(world, e, 1, 2, 3);
    assert_world_position(other, e, -5, 0, 0);
    tv2->set_local(other, b, (const ct_transform_pose_t[]){pose_at(7, 7, 7)});
    assert_world_position(world, e, 1, 2, 3);
    assert_world_position(other, e, 7, 7, 7);
    /* Death removes it from every world. */
    entity->destroy(e);
    assert_int_equal(tv2->count(world), 0);
    assert_int_equal(tv2->count(other), 0);
    assert_int_equal(tv2->create(world, e, NULL).i, 0);
    worlds->destroy_world(other);
}

static void test_destroying_a_parent(void **state)
{
    (void)state;
    ct_entity_t e[3];
    assert_int_equal(entity->create_batch(e, 3), 3);
    ct_transform_t p = tv2->create(world, e[0], (const ct_transform_pose_t[]){pose_at(10, 0, 0)});
    ct_transform_t c = tv2->create(world, e[1], (const ct_transform_pose_t[]){pose_at(0, 1, 0)});
    ct_transform_t g = tv2->create(world, e[2], (const ct_transform_pose_t[]){pose_at(0, 0, 1)});
    tv2->link(world, c, p);
    tv2->link(world, g, c);
    entity->destroy(e[0]);
    assert_int_equal(tv2->count(world), 2);
    c = tv2->lookup(world, e[1]);
    g = tv2->lookup(world, e[2]);
    assert_int_equal(tv2->parent(world, c).i, 0);
    assert_int_equal(tv2->parent(world, g).i, c.i);
    assert_world_position(world, e[1], 10, 1, 0);
    assert_world_position(world, e[2], 10, 1, 1);
    entity->destroy_batch(&e[1], 2);
    assert_int_equal(tv2->count(world), 0);
}

/* The same operations through v1 (per node) in one world and v2 (batched) in another give
 * bit-identical world matrices. */
static void test_v1_v2_and_batch_agree(void **state)
{
    (void)state;
    ct_world_o *other = worlds->create_world(NULL);
    enum { CHAINS = 20, DEPTH = 5, N = CHAINS * DEPTH };
    ct_entity_t e[N];
    ct_transform_t a[N], b[N];
    ct_transform_pose_t poses[N];
    assert_int_equal(entity->create_batch(e, N), N);
    for (int k = 0; k < N; k++) {
        a[k] = tv1->create(world, e[k], NULL);
        b[k] = tv2->create(other, e[k], NULL);
        if (k % DEPTH) {
            tv1->link(world, a[k], a[k - 1]);
            tv2->link(other, b[k], b[k - 1]);
        }
        const float s = 0.5f + (float)(k % 7) / 8;
        const float h = 0.1f * (float)k;
        poses[k] =
            (ct_transform_pose_t){{(float)k, 1, -1}, {0, sinf(h), 0, cosf(h)}, {s, 1, 2 - s}};
    }
    for (int k = 0; k < N; k++)
        tv1->set_local(world, a[k], &poses[k]);
    tv2->set_local_batch(other, b, poses, N);
    for (int k = 0; k < N; k++) {
        const ct_transform_matrix_t ma = tv1->world_matrix(world, a[k]);
        const ct_transform_matrix_t mb = tv2->world_matrix(other, b[k]);
        assert_memory_equal(&ma, &mb, sizeof ma);
        const ct_transform_pose_t la = tv1->local(world, a[k]);
        assert_memory_equal(&la, &poses[k], sizeof la);
    }
    worlds->destroy_world(other);
    entity->destroy_batch(e, N);
}

static int load_level(const char *name, const char *source)
{
    return resource->load_source("level", name, source, strlen(source));
}

static void test_compile_refuses_bad_values(void **state)
{
    (void)state;
    static const char *bad[] = {
        "entities = [ { components = { transform = { position = [1 2] } } } ]",
        "entities = [ { components = { transform = { position = [1 2 \"x\"] } } } ]",
        "entities = [ { components = { transform = { rotation = [0 0 0 0] } } } ]",
        "entities = [ { components = { transform = { scale = [1 0 1] } } } ]",
        "entities = [ { components = { transform = { postion = [1 2 3] } } } ]",
        "entities = [ { components = { transform = 5 } } ]",
        "entities = [ { components = { transform = { position = [1 2 1e39] } } } ]",
        "entities = [ { components = { transform = { position = [1 2 2e9] } } } ]",
        "entities = [ { components = { transform = { scale = [1 1e-7 1] } } } ]",
        "entities = [ { components = { transform = { scale = [1 1 -2e6] } } } ]",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char name[32];
        snprintf(name, sizeof name, "levels/bad%zu", k);
        assert_true(load_level(name, bad[k]) < 0);
        assert_null(resource->get("level", name));
    }
}

static void test_spawn_links_children(void **state)
{
    (void)state;
    const char *src =
        "entities = [\n"
        "  { components = { transform = { position = [1 0 0] } }\n"
        "    children = [\n"
        "      { components = { transform = { position = [0 2 0] scale = [2 2 2] } }\n"
        "        children = [ { components = { transform = { position = [0 0 1] } } } ] }\n"
        "      { components = { transform = { rotation = [0 0 1 1] } } }\n"
        "    ] }\n"
        "  { components = { transform = {} } }\n"
        "]\n";
    assert_int_equal(load_level("levels/tree", src), 0);
    const void *level = resource->get("level", "levels/tree");
    assert_non_null(level);
    ct_entity_t e[5];
    /* Roots go to (0 0 5) turned a quarter about z: x becomes y. */
    const float pos[3] = {0, 0, 5}, rot[4] = {0, 0, 0.70710678f, 0.70710678f};
    assert_int_equal(worlds->spawn_resource(world, level, pos, rot, e, 5), 5);
    assert_int_equal(tv2->count(world), 5);
    /* The resource's order is the entities module's business; find each node by its pose:
     * placed roots A (0 1 5) and E (0 0 5), child B (0 2 0), grandchild C (0 0 1), and the
     * turned child D. */
    enum { A, B, C, D, E };
    static const float locals[5][3] = {{0, 1, 5}, {0, 2, 0}, {0, 0, 1}, {0, 0, 0}, {0, 0, 5}};
    ct_transform_t t[5] = {{0}};
    ct_entity_t by[5] = {{0}};
    for (int k = 0; k < 5; k++) {
        const ct_transform_t i = tv2->lookup(world, e[k]);
        const ct_transform_pose_t p = tv2->local(world, i);
        for (int n = 0; n < 5; n++) {
            if (fabsf(p.position[0] - locals[n][0]) + fabsf(p.position[1] - locals[n][1]) +
                        fabsf(p.position[2] - locals[n][2]) <
                    1e-4f &&
                !t[n].i) {
                t[n] = i;
                by[n] = e[k];
                break;
            }
        }
    }
    for (int n = 0; n < 5; n++)
        assert_true(t[n].i != 0);
    assert_int_equal(tv2->parent(world, t[A]).i, 0);
    assert_int_equal(tv2->parent(world, t[B]).i, t[A].i);
    assert_int_equal(tv2->parent(world, t[C]).i, t[B].i);
    assert_int_equal(tv2->parent(world, t[D]).i, t[A].i);
    assert_int_equal(tv2->parent(world, t[E]).i, 0);
    assert_world_position(world, by[A], 0, 1, 5);
    assert_world_position(world, by[B], -2, 1, 5);
    assert_world_position(world, by[C], -2, 1, 7);
    assert_world_position(world, by[D], 0, 1, 5);
    assert_world_position(world, by[E], 0, 0, 5);
    /* The compiled rotation was normalised; children keep their local pose as written. */
    assert_near(tv2->local(world, t[D]).rotation[2], 0.70710678f);
    assert_near(tv2->local(world, t[B]).scale[0], 2);
    entity->destroy_batch(e, 5);
    assert_int_equal(tv2->count(world), 0);
}

/* An entity without a transform between two that have one: the lower one links to the nearest
 * ancestor that has a transform. */
static void test_spawn_skips_entities_without_transform(void **state)
{
    (void)state;
    const char *src =
        "entities = [ { components = { transform = { position = [1 0 0] } }\n"
        "  children = [ { components = { debug_name = { name = \"no pose\" } }\n"
        "    children = [ { components = { transform = { position = [0 1 0] } } } ] } ] } ]\n";
    assert_int_equal(load_level("levels/gap", src), 0);
    ct_entity_t e[3];
    assert_int_equal(
        worlds->spawn_resource(world, resource->get("level", "levels/gap"), NULL, NULL, e, 3), 3);
    assert_int_equal(tv2->count(world), 2);
    ct_entity_t top = {0}, low = {0};
    for (int k = 0; k < 3; k++) {
        const ct_transform_t i = tv2->lookup(world, e[k]);
        if (i.i && tv2->parent(world, i).i)
            low = e[k];
        else if (i.i)
            top = e[k];
    }
    assert_int_equal(tv2->parent(world, tv2->lookup(world, low)).i, tv2->lookup(world, top).i);
    assert_world_position(world, low, 1, 1, 0);
    entity->destroy_batch(e, 3);
}

static bool same_pose(ct_transform_pose_t a, ct_transform_pose_t b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* "Valid poses" in ct_transform.h: one rule at every C entry point. */
static void test_poses_checked_at_every_entry_point(void **state)
{
    (void)state;
    const float nan = NAN, inf = INFINITY;
    const ct_transform_pose_t bad[] = {
        {{nan, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}},  {{0, inf, 0}, {0, 0, 0, 1}, {1, 1, 1}},
        {{0, 0, 2e9f}, {0, 0, 0, 1}, {1, 1, 1}}, {{0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1}},
        {{0, 0, 0}, {nan, 0, 0, 1}, {1, 1, 1}},  {{0, 0, 0}, {0, 0, 0, 1}, {1, 0, 1}},
        {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, -inf}}, {{0, 0, 0}, {0, 0, 0, 1}, {nan, 1, 1}},
    };
    const uint32_t n_bad = sizeof bad / sizeof bad[0];
    ct_entity_t e[2];
    assert_int_equal(entity->create_batch(e, 2), 2);
    for (uint32_t k = 0; k < n_bad; k++)
        assert_int_equal(tv2->create(world, e[0], &bad[k]).i, 0);
    assert_int_equal(tv2->count(world), 0);

    /* An unnormalised rotation is normalised; a unit one is kept bit for bit. */
    const ct_transform_t t =
        tv2->create(world, e[0], &(ct_transform_pose_t){{1, 2, 3}, {0, 0, 2, 0}, {1, 1, 1}});
    assert_true(t.i != 0);
    assert_true(tv2->local(world, t).rotation[2] == 1.0f);
    const ct_transform_pose_t good = {{1, 2, 3}, {0, 0, 0.6f, 0.8f}, {-2, 1, 1}};
    tv2->set_local(world, t, &good);
    assert_true(same_pose(tv2->local(world, t), good));

    for (uint32_t k = 0; k < n_bad; k++) {
        tv2->set_local(world, t, &bad[k]);
        tv1->set_local(world, t, &bad[k]);
        assert_true(same_pose(tv2->local(world, t), good));
    }
    /* A batch applies the good entries and skips the bad ones. */
    const ct_transform_t u = tv2->create(world, e[1], NULL);
    const ct_transform_t batch_i[3] = {t, u, t};
    const ct_transform_pose_t batch_p[3] = {pose_at(5, 5, 5), bad[0], bad[3]};
    tv2->set_local_batch(world, batch_i, batch_p, 3);
    assert_true(tv2->local(world, t).position[0] == 5.0f);
    assert_true(same_pose(tv2->local(world, u), transforms_identity()));

    const ct_transform_pose_t before = tv2->local(world, t);
    assert_false(tv2->set_world_position(world, e[0], (float[3]){nan, 0, 0}));
    assert_false(tv2->set_world_position(world, e[0], (float[3]){0, -inf, 0}));
    assert_false(tv2->set_world_position(world, e[0], (float[3]){0, 0, 3e9f}));
    assert_false(tv2->set_world_rotation(world, e[0], (float[4]){0, 0, 0, 0}));
    assert_false(tv2->set_world_rotation(world, e[0], (float[4]){0, 0, nan, 1}));
    assert_true(same_pose(tv2->local(world, t), before));
    assert_true(tv2->set_world_rotation(world, e[0], (float[4]){0, 0, 3, 0}));
    assert_near(tv2->local(world, t).rotation[2], 1);
    float w[3];
    assert_true(tv2->world_position(world, e[0], w));
    assert_true(isfinite(w[0]) && isfinite(w[1]) && isfinite(w[2]));
    entity->destroy_batch(e, 2);
}

/* A unit spawned at a bad pose makes nothing; a rotation that is not of unit length is
 * normalised. */
static void test_spawn_pose_checked(void **state)
{
    (void)state;
    const char src[] = "entities = [ { components = { transform = { position = [1 0 0] } } } ]";
    assert_int_equal(resource->load_source("unit", "units/pose", src, sizeof src - 1), 0);
    const uint32_t live = entity->live_count();
    const float nan = NAN;
    assert_int_equal(worlds->spawn_unit(world, "units/pose", (float[3]){nan, 0, 0}, NULL).id, 0);
    assert_int_equal(worlds->spawn_unit(world, "units/pose", (float[3]){0, 0, 1e10f}, NULL).id, 0);
    assert_int_equal(worlds->spawn_unit(world, "units/pose", NULL, (float[4]){0, 0, 0, 0}).id, 0);
    assert_int_equal(worlds->spawn_unit(world, "units/pose", NULL, (float[4]){0, nan, 0, 1}).id, 0);
    const ct_world_api_v0 *v0 = test_kernel_api(CT_WORLD_API, 0);
    assert_int_equal(v0->spawn_unit(world, "units/pose", (float[3]){0, INFINITY, 0}).id, 0);
    assert_int_equal(entity->live_count(), live);
    assert_int_equal(tv2->count(world), 0);
    /* Twice a quarter turn about z, unnormalised: (1 0 0) goes to (0 1 0). */
    const ct_entity_t e = worlds->spawn_unit(world, "units/pose", NULL, (float[4]){0, 0, 2, 2});
    assert_true(e.id != 0);
    assert_world_position(world, e, 0, 1, 0);
    entity->destroy(e);
}

/* Instance handles carry a generation: after a destroy, the destroyed instance's handle and the
 * moved one's old handle are refused (the old code let them name another entity's data). */
static void test_stale_instance_handles(void **state)
{
    (void)state;
    ct_entity_t e[3];
    assert_int_equal(entity->create_batch(e, 3), 3);
    ct_transform_t t[3];
    for (int k = 0; k < 3; k++)
        t[k] = tv2->create(world, e[k], (const ct_transform_pose_t[]){pose_at((float)k, 0, 0)});
    tv2->destroy(world, t[0]); /* t[2] moves into t[0]'s slot */
    assert_int_equal(tv2->entity(world, t[0]).id, 0);
    assert_int_equal(tv2->entity(world, t[2]).id, 0);
    assert_true(tv2->local(world, t[0]).position[0] == 0.0f); /* the identity, not entity 2's */
    tv2->set_local(world, t[2], (const ct_transform_pose_t[]){pose_at(9, 9, 9)});
    tv1->destroy(world, t[0]);
    assert_int_equal(tv2->count(world), 2);
    assert_world_position(world, e[2], 2, 0, 0);
    const ct_transform_t now = tv2->lookup(world, e[2]);
    assert_int_equal(tv2->entity(world, now).id, e[2].id);
    assert_int_equal(tv2->entity(world, t[1]).id, e[1].id); /* untouched: still valid */
    /* A freed slot taken again by a new instance keeps old handles stale. */
    const ct_entity_t f = entity->create();
    const ct_transform_t nt = tv2->create(world, f, NULL);
    assert_true(nt.i != 0 && nt.i != t[2].i);
    assert_int_equal(tv2->entity(world, t[2]).id, 0);
    /* Links return handles that work. */
    tv2->link(world, nt, now);
    assert_int_equal(tv2->parent(world, nt).i, now.i);
    assert_int_equal(tv2->first_child(world, now).i, nt.i);
    entity->destroy(f);
    entity->destroy_batch(e, 3);
}

/* Poses in a blob made outside the compiler (edited and re-signed) are refused at load by the
 * transform type's validation, naming the entity, the component and the field; the old code
 * loaded them and spawned NaN or a flattened node. */
static void test_blob_with_bad_pose_refused_at_load(void **state)
{
    (void)state;
    test_blob_t b = test_blob_compile(
        "level", "entities = [ { components = { debug_name = { name = \"a\" } } }\n"
                 "  { components = { transform = { position = [1 2 3] scale = [4 5 6] } } } ]");
    const float position[3] = {1, 2, 3}, scale[3] = {4, 5, 6};
    const size_t at_position = test_blob_find(&b, position, sizeof position);
    const size_t at_scale = test_blob_find(&b, scale, sizeof scale);
    test_blob_refused(&b, at_position + 4, NAN,
                      (const char *const[]){"entity 1", "'transform'", "position[1]", NULL});
    test_blob_refused(&b, at_position, INFINITY,
                      (const char *const[]){"entity 1", "'transform'", "position[0]", NULL});
    test_blob_refused(&b, at_scale + 8, 0.0f,
                      (const char *const[]){"entity 1", "'transform'", "scale[2]", NULL});
    test_blob_refused(&b, at_scale, 1e30f,
                      (const char *const[]){"entity 1", "'transform'", "scale[0]", NULL});
    /* A rotation of zero length, too (the four floats after the position). */
    uint8_t *copy = malloc(b.payload_size);
    memcpy(copy, b.payload, b.payload_size);
    memset(copy + at_position + 12, 0, 16);
    char err[256] = "";
    assert_null(b.type->load(b.type->user_data, copy, b.payload_size, err, sizeof err));
    assert_non_null(strstr(err, "rotation"));
    free(copy);
    test_blob_free(&b);
}

/* destroy_tree takes a whole hierarchy (C and Lua); Entity.destroy takes one entity and its
 * children become roots (the old code had only that). */
static void test_destroy_tree(void **state)
{
    (void)state;
    ct_entity_t e[6];
    assert_int_equal(entity->create_batch(e, 6), 6);
    ct_transform_t t[6];
    for (int k = 0; k < 6; k++)
        t[k] = tv3->create(world, e[k], NULL);
    /* 0 - 1 - 2, 1 - 3; 4 alone; 5 under 0 */
    tv3->link(world, t[1], t[0]);
    tv3->link(world, t[2], t[1]);
    tv3->link(world, t[3], t[1]);
    tv3->link(world, tv3->lookup(world, e[5]), tv3->lookup(world, e[0]));
    /* Entity 2 also lives in another world, linked differently: only this world's links count. */
    ct_world_o *other = worlds->create_world(NULL);
    const ct_transform_t o2 = tv3->create(other, e[2], NULL);
    const ct_transform_t o4 = tv3->create(other, e[4], NULL);
    tv3->link(other, o4, o2);
    const uint32_t live = entity->live_count();
    assert_int_equal(tv3->destroy_tree(world, e[1]), 3);
    assert_false(entity->alive(e[1]) || entity->alive(e[2]) || entity->alive(e[3]));
    assert_true(entity->alive(e[0]) && entity->alive(e[4]) && entity->alive(e[5]));
    assert_int_equal(entity->live_count(), live - 3);
    assert_int_equal(tv3->count(world), 3);
    assert_int_equal(tv3->count(other), 1);              /* e[2] went there too, e[4] stays */
    assert_int_equal(tv3->destroy_tree(world, e[1]), 0); /* dead: logged */
    /* An entity without a transform here is destroyed alone. */
    ct_entity_t lone = entity->create();
    assert_int_equal(tv3->destroy_tree(world, lone), 1);
    assert_false(entity->alive(lone));
    /* Lua. */
    const char *script = "function tree_check(w, root, leaf)\n"
                         "  assert(Transform.destroy_tree(w, root) == 2)\n"
                         "  assert(not Entity.alive(root) and not Entity.alive(leaf))\n"
                         "  assert(not pcall(Transform.destroy_tree, w, root))\n"
                         "end\n";
    assert_int_equal(lua->run_string(script, "tree_check"), 0);
    test_lua_call("tree_check", world, (const ct_entity_t[]){e[0], e[5]}, 2);
    assert_int_equal(tv3->count(world), 1);
    entity->destroy(e[4]);
    worlds->destroy_world(other);
}

static void test_lua_bindings(void **state)
{
    (void)state;
    ct_entity_t e[2];
    assert_int_equal(entity->create_batch(e, 2), 2);
    tv2->create(world, e[0], NULL);
    tv2->create(world, e[1], NULL);
    const char *script =
        "function transform_check(w, a, b)\n"
        "  Transform.set_local_position(w, a, 1, 2, 3)\n"
        "  Transform.set_local_scale(w, a, 2, 2, 2)\n"
        "  Transform.set_local_rotation(w, a, 0, 0, 0.6, 0.8)\n"
        "  local x, y, z = Transform.local_position(w, a)\n"
        "  assert(x == 1 and y == 2 and z == 3)\n"
        "  local qx, qy, qz, qw = Transform.local_rotation(w, a)\n"
        "  assert(qx == 0 and qy == 0 and math.abs(qz - 0.6) < 1e-7 and math.abs(qw - 0.8) < "
        "1e-7)\n"
        "  local sx = Transform.local_scale(w, a)\n"
        "  assert(sx == 2)\n"
        "  Transform.set_local_position(w, b, 1, 0, 0)\n"
        "  Transform.link(w, b, a)\n"
        "  x, y, z = Transform.world_position(w, b)\n"
        "  assert(math.abs(x - (1 + 2 * 0.28)) < 1e-5 and math.abs(y - (2 + 2 * 0.96)) < 1e-5, x "
        ".. ' ' .. y)\n"
        "  qx, qy, qz, qw = Transform.world_rotation(w, b)\n"
        "  assert(math.abs(qz - 0.6) < 1e-5 and math.abs(qw - 0.8) < 1e-5)\n"
        "  assert(not pcall(Transform.link, w, a, b))\n"
        "  assert(not pcall(Transform.world_position, w, 123456))\n"
        "  assert(not pcall(Transform.set_local_rotation, w, a, 0, 0, 0, 0))\n"
        "  assert(not pcall(Transform.set_local_scale, w, a, 1, 0, 1))\n"
        "  assert(Transform.local_scale(w, a) == 2)\n"
        "  local function refused(pattern, f, ...)\n"
        "    local ok, err = pcall(f, ...)\n"
        "    assert(not ok and err:find(pattern), tostring(err))\n"
        "  end\n"
        "  refused('entity ' .. a .. ': position%[1%]', Transform.set_local_position, w, a, 0, "
        "0/0, 0)\n"
        "  refused('position%[0%]', Transform.set_local_position, w, a, math.huge, 0, 0)\n"
        "  refused('position%[2%]', Transform.set_local_position, w, a, 0, 0, 1e10)\n"
        "  refused('rotation%[3%]', Transform.set_local_rotation, w, a, 0, 0, 0, 0/0)\n"
        "  refused('scale%[1%]', Transform.set_local_scale, w, a, 1, 1e-9, 1)\n"
        "  refused('scale%[0%]', Transform.set_local_scale, w, a, -math.huge, 1, 1)\n"
        "  refused('not an entity id', Transform.local_position, w, a + 0.5)\n"
        "  refused('not an entity id', Transform.set_local_position, w, -a, 1, 2, 3)\n"
        "  refused('not an entity id', Transform.link, w, b, a + 0.25)\n"
        "  x, y, z = Transform.local_position(w, a)\n"
        "  assert(x == 1 and y == 2 and z == 3)\n"
        "  Transform.set_local_rotation(w, a, 0, 0, 3, 4)\n"
        "  qx, qy, qz, qw = Transform.local_rotation(w, a)\n"
        "  assert(math.abs(qz - 0.6) < 1e-6 and math.abs(qw - 0.8) < 1e-6)\n"
        "  Transform.unlink(w, b)\n"
        "  x, y, z = Transform.world_position(w, b)\n"
        "  assert(math.abs(y - (2 + 2 * 0.96)) < 1e-5)\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "transform_check"), 0);
    test_lua_call("transform_check", world, (const ct_entity_t[]){e[0], e[1]}, 2);
    /* Exact: what Lua set is what C reads. */
    const ct_transform_pose_t p = tv2->local(world, tv2->lookup(world, e[0]));
    assert_true(p.rotation[2] == 0.6f && p.rotation[3] == 0.8f);
    entity->destroy_batch(e, 2);
}

/* v4's change counter goes up with every change of a world pose or of the graph, and stays put
 * while nothing changes (reads, lookups): what lets physics skip reading a world at rest. */
static void test_changes_counter(void **state)
{
    (void)state;
    ct_entity_t e[2];
    assert_int_equal(entity->create_batch(e, 2), 2);
    uint64_t c = tv4->changes(world);
    const ct_transform_pose_t p = pose_at(1, 2, 3);
    const ct_transform_t a = tv4->create(world, e[0], &p), b = tv4->create(world, e[1], &p);
    assert_true(tv4->changes(world) > c);
    c = tv4->changes(world);
    float out[4];
    assert_true(tv4->world_position(world, e[0], out));
    assert_true(tv4->world_rotation(world, e[0], out));
    (void)tv4->world_matrix(world, a);
    (void)tv4->lookup(world, e[1]);
    assert_true(tv4->changes(world) == c);
    const float to[3] = {4, 5, 6};
    assert_true(tv4->set_world_position(world, e[0], to));
    assert_true(tv4->changes(world) > c);
    c = tv4->changes(world);
    tv4->set_local(world, b, &p);
    assert_true(tv4->changes(world) > c);
    c = tv4->changes(world);
    tv4->link(world, b, a);
    assert_true(tv4->changes(world) > c);
    c = tv4->changes(world);
    tv4->unlink(world, b);
    assert_true(tv4->changes(world) > c);
    c = tv4->changes(world);
    tv4->destroy(world, b);
    assert_true(tv4->changes(world) > c);
    assert_true(tv4->changes(NULL) == 0);
    entity->destroy_batch(e, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_and_links),
        cmocka_unit_test(test_several_worlds),
        cmocka_unit_test(test_destroying_a_parent),
        cmocka_unit_test(test_v1_v2_and_batch_agree),
        cmocka_unit_test(test_compile_refuses_bad_values),
        cmocka_unit_test(test_spawn_links_children),
        cmocka_unit_test(test_spawn_skips_entities_without_transform),
        cmocka_unit_test(test_poses_checked_at_every_entry_point),
        cmocka_unit_test(test_spawn_pose_checked),
        cmocka_unit_test(test_stale_instance_handles),
        cmocka_unit_test(test_blob_with_bad_pose_refused_at_load),
        cmocka_unit_test(test_destroy_tree),
        cmocka_unit_test(test_lua_bindings),
        cmocka_unit_test(test_changes_counter),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
