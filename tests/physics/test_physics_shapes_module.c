/* The v5 shapes through the module (api/ct_physics.h, ct_physics_api_v5) and Lua: a hull, a
 * compound, a mesh and a height field made in a world, refusals naming the field, the debug
 * shape list, and the same from a script (Physics.add_hull, add_compound, add_mesh,
 * add_height_field) with fixed results. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "physics_module_fixture.h"

static int boot(void **state)
{
    (void)state;
    physics_boot("shapes");
    return 0;
}

static float cube[24];

/* A hull cube and a table compound dropped on a height field rest at their heights; the shape
 * list names their shapes; refusals change nothing. */
static void test_shapes_in_a_world(void **state)
{
    (void)state;
    unit_cube_points(cube);
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "shapes_c"});
    const ct_entity_t ground = entity->create(), hull = entity->create(), table = entity->create(),
                      bad = entity->create();
    float heights[11 * 11];
    for (int k = 0; k < 121; k++)
        heights[k] = 0.0f;
    const ct_rigid_body_desc_t field = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_MESH, .friction = 0.5f, .position = {-5, 0, -5}};
    assert_int_equal(p5->add_height_field_body(w, ground, &field, heights, 11, 11, 1, 1), 0);
    const ct_rigid_body_desc_t h = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_HULL,
                                    .mass = 1,
                                    .friction = 0.5f,
                                    .position = {-2, 1, 0}};
    assert_int_equal(p5->add_hull_body(w, hull, &h, cube, 8), 0);
    const ct_compound_child_t legs[3] = {
        {.shape = CT_BODY_BOX, .half_extents = {1, 0.05f, 0.5f}, .position = {0, 0.5f, 0}},
        {.shape = CT_BODY_SPHERE, .radius = 0.2f, .position = {-0.8f, 0.2f, 0}},
        {.shape = CT_BODY_SPHERE, .radius = 0.2f, .position = {0.8f, 0.2f, 0}},
    };
    ct_rigid_body_desc_t c = h;
    c.shape = CT_BODY_COMPOUND;
    c.position[0] = 2, c.position[1] = 1;
    assert_int_equal(p5->add_compound_body(w, table, &c, legs, 3), 0);
    /* Refused, naming the field, and nothing added. */
    float flat[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1};
    assert_int_equal(p5->add_hull_body(w, bad, &h, flat, 4), CT_ERR_INVALID);
    assert_int_equal(p5->add_hull_body(w, hull, &h, cube, 8), CT_ERR_CONFLICT);
    ct_rigid_body_desc_t moving = field;
    moving.kind = CT_BODY_DYNAMIC;
    assert_int_equal(p5->add_height_field_body(w, bad, &moving, heights, 11, 11, 1, 1),
                     CT_ERR_INVALID);
    const uint32_t past[3] = {0, 1, 9};
    assert_int_equal(p5->add_mesh_body(w, bad, &field, flat, 4, past, 1), CT_ERR_INVALID);
    const ct_compound_child_t none[1] = {{.shape = CT_BODY_SPHERE}};
    assert_int_equal(p5->add_compound_body(w, bad, &c, none, 1), CT_ERR_INVALID);
    assert_int_equal(p5->body_count(w), 3);
    for (int k = 0; k < 120; k++)
        p5->simulate(w, 1.0f / 60.0f);
    float ph[3], pt[3];
    assert_int_equal(p5->position(w, hull, ph), 0);
    assert_int_equal(p5->position(w, table, pt), 0);
    print_message("hull y %.5f, table y %.5f\n", (double)ph[1], (double)pt[1]);
    assert_true(fabsf(ph[1] - 0.5f) < 0.002f);
    /* The table's centre of mass over its balls' bottoms: by volume, 0.2 m^3 of top at 0.5 and two
     * balls of 0.0335 at 0.2: (0.2 * 0.5 + 0.0670 * 0.2) / 0.2670 = 0.42469 over y 0. */
    assert_true(fabsf(pt[1] - 0.42469f) < 0.002f);
    ct_physics_shape_t list[4];
    assert_int_equal(p5->shapes(w, 0, list, 4), 3);
    assert_int_equal(list[0].shape, CT_BODY_MESH);
    assert_int_equal(list[1].shape, CT_BODY_HULL);
    assert_int_equal(list[2].shape, CT_BODY_COMPOUND);
    assert_true(fabsf(list[1].half_extents[0] - 0.5f) < 1e-6f);
    worlds->destroy_world(w);
    entity->destroy(ground), entity->destroy(hull), entity->destroy(table), entity->destroy(bad);
}


/* v5's shape_cast: a ball dropped onto a height field and a box pushed at a wall stop where they
 * first touch (fixed distances and normals); a mask that leaves everything out meets nothing;
 * a hull, a NaN radius or a NULL argument is refused, nothing hit. */
static void test_shape_cast_through_the_table(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "shape_cast_c"});
    const ct_entity_t ground = entity->create(), wall = entity->create();
    float heights[11 * 11] = {0};
    const ct_rigid_body_desc_t field = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_MESH, .friction = 0.5f, .position = {-5, 0, -5}};
    assert_int_equal(p5->add_height_field_body(w, ground, &field, heights, 11, 11, 1, 1), 0);
    const ct_rigid_body_desc_t slab = {.kind = CT_BODY_STATIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {0.1f, 1, 1},
                                       .position = {3, 1, 0}};
    assert_int_equal(p5->add_rigid_body(w, wall, &slab), 0);
    ct_physics_hit_t hit;
    const ct_rigid_body_desc_t ball = {.shape = CT_BODY_SPHERE, .radius = 0.5f};
    assert_true(p5->shape_cast(w, &ball, (float[3]){0, 2, 0}, (float[3]){0, -10, 0}, UINT32_MAX,
                               &hit));
    print_message("ball: entity %u at %.5f, normal %.3f %.3f %.3f\n", hit.entity,
                  (double)hit.distance, (double)hit.normal[0], (double)hit.normal[1],
                  (double)hit.normal[2]);
    assert_int_equal(hit.entity, ground.id);
    assert_float_equal(hit.distance, 1.5f, 1e-3f);
    assert_float_equal(hit.normal[1], 1.0f, 1e-3f);
    const ct_rigid_body_desc_t box = {.shape = CT_BODY_BOX, .half_extents = {0.25f, 0.25f, 0.25f}};
    assert_true(
        p5->shape_cast(w, &box, (float[3]){0, 1, 0}, (float[3]){10, 0, 0}, UINT32_MAX, &hit));
    print_message("box: entity %u at %.5f, normal %.3f %.3f %.3f\n", hit.entity,
                  (double)hit.distance, (double)hit.normal[0], (double)hit.normal[1],
                  (double)hit.normal[2]);
    assert_int_equal(hit.entity, wall.id);
    assert_float_equal(hit.distance, 2.65f, 1e-3f);
    assert_float_equal(hit.normal[0], -1.0f, 1e-3f);
    assert_false(p5->shape_cast(w, &box, (float[3]){0, 1, 0}, (float[3]){10, 0, 0}, 0, &hit));
    const ct_rigid_body_desc_t hull = {.shape = CT_BODY_HULL};
    const ct_rigid_body_desc_t nan_ball = {.shape = CT_BODY_SPHERE, .radius = NAN};
    assert_false(
        p5->shape_cast(w, &hull, (float[3]){0, 2, 0}, (float[3]){0, -10, 0}, UINT32_MAX, &hit));
    assert_false(p5->shape_cast(w, &nan_ball, (float[3]){0, 2, 0}, (float[3]){0, -10, 0},
                                UINT32_MAX, &hit));
    assert_false(p5->shape_cast(w, &ball, NULL, (float[3]){0, -10, 0}, UINT32_MAX, &hit));
    assert_false(
        p5->shape_cast(w, &ball, (float[3]){0, 2, 0}, (float[3]){0, -10, 0}, UINT32_MAX, NULL));
    worlds->destroy_world(w);
    entity->destroy(ground), entity->destroy(wall);
}

/* The same from Lua. */
static void test_lua_shapes(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "shapes_lua"});
    const ct_entity_t e[5] = {entity->create(), entity->create(), entity->create(),
                              entity->create(), entity->create()};
    const char *script =
        "function shapes_lua(w, floor, field, hull, table, bad)\n"
        "  Physics.add_mesh(w, floor, {-20, 0, -20, 20, 0, -20, -20, 0, 20, 20, 0, 20},\n"
        "                   {1, 3, 2, 2, 3, 4}, { friction = 0.5, position = {0, 0, -30} })\n"
        "  local hs = {}\n"
        "  for i = 1, 25 do hs[i] = 0 end\n"
        "  Physics.add_height_field(w, field, hs, 5, 5, 2, 2, { position = {-4, 0, -4} })\n"
        "  local cube = unit_cube()\n"
        "  Physics.add_hull(w, hull, cube, { mass = 2, position = {0, 1, 0} })\n"
        "  Physics.add_compound(w, table, {\n"
        "    { shape = 'box', half_extents = {1, 0.05, 0.5}, position = {0, 0.5, 0} },\n"
        "    { shape = 'hull', points = cube, position = {0, 0, 0} } },\n"
        "    { position = {0, 2, -30} })\n"
        "  for i = 1, 120 do Physics.simulate(w, 1 / 60) end\n"
        "  local _, y = Actor.position(w, hull)\n"
        "  assert(math.abs(y - 0.5) < 0.002, y)\n"
        "  local _, ty = Actor.position(w, table)\n"
        "  assert(math.abs(ty - (0.5 + 0.1 / 1.2)) < 0.002, ty)\n"
        "  local ok, err = pcall(Physics.add_hull, w, bad, {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1})\n"
        "  assert(not ok and err:find('coplanar'), err)\n"
        "  ok, err = pcall(Physics.add_hull, w, bad, {0, 0, 0, 'x'})\n"
        "  assert(not ok and err:find('argument 3'), err)\n"
        "  ok, err = pcall(Physics.add_mesh, w, bad, {0, 0, 0, 1, 0, 0, 0, 0, 1}, {1, 2, 7})\n"
        "  assert(not ok and err:find('indices'), err)\n"
        "  ok, err = pcall(Physics.add_compound, w, bad, { { shape = 'cone' } })\n"
        "  assert(not ok and err:find('child 1: shape'), err)\n"
        "  ok, err = pcall(Physics.add_height_field, w, bad, {0, 0, 0}, 2, 2, 1, 1)\n"
        "  assert(not ok and err:find('columns x rows'), err)\n"
        "end\n";
    physics_lua_unit_cube();
    assert_int_equal(lua->run_string(script, "shapes_lua"), 0);
    test_lua_call("shapes_lua", w, e, 5);
    worlds->destroy_world(w);
    for (int k = 0; k < 5; k++)
        entity->destroy(e[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_shapes_in_a_world),
        physics_test(test_shape_cast_through_the_table),
        physics_test(test_lua_shapes),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
