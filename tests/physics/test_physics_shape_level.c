/*
 * Hulls and compounds in level and unit sources (body format 4: modules/physics/
 * physics_body_shapes.c). A level with a hull rock and a compound table (a top and four legs)
 * loaded through the resource system: balls dropped on each come to rest at the heights their
 * shapes give, and a ball between the legs under the table falls through to the floor. Bad
 * sources are refused naming the file, the entity and the field (with the nearest name); edited
 * blobs are refused at load naming the field; Lua reads the shape kinds back, and adds a hull
 * body with World.add_component.
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

#include "base/memory.h"
#include "physics_module_fixture.h"

static const test_world_t *t;

static int boot(void **state)
{
    (void)state;
    t = physics_boot("shape_level");
    return 0;
}

/*
 * The rock: a hull of 8 points, a frustum 0.8 m high whose base (1.4 x 1.0 m) is twice its top
 * (0.7 x 0.5 m), given with its base at y = 0. A hull body's position is its centre of mass,
 * which for such a frustum lies 0.8 * 3.85 / 9.8 = 0.3142857 m over the base: placed there, the
 * rock stands on the floor (y = 0) with its top at 0.8.
 * The table: a compound of a top (1.6 x 0.1 x 1.0 m, y 0.7 to 0.8) and four legs (0.1 x 0.7 x
 * 0.1 m) at x +-0.7, z +-0.4, in the body's frame; its centre of mass is (0.16 * 0.75 + 0.028 *
 * 0.35) / 0.188 = 0.690426 m over the legs' feet: placed at 0.70 it drops 1 cm onto its feet.
 * A ball of radius 0.25 dropped on the rock rests at 0.8 + 0.25; one of radius 0.15 on the table
 * top at 0.8 + 0.15; one of radius 0.15 under the top, between the legs, at 0.15.
 */
static const char shapes_level[] =
    "entities = [\n"
    "  { name = \"floor\" components = { transform = { position = [0 -0.5 0] }\n"
    "      body = { kind = \"static\" half_extents = [10 0.5 10] } } }\n"
    "  { name = \"rock\" components = { transform = { position = [-3 0.3142857 0] }\n"
    "      body = { kind = \"static\" friction = 0.8 shape = { type = \"hull\" points = [\n"
    "        [-0.7 0 -0.5] [0.7 0 -0.5] [0.7 0 0.5] [-0.7 0 0.5]\n"
    "        [-0.35 0.8 -0.25] [0.35 0.8 -0.25] [0.35 0.8 0.25] [-0.35 0.8 0.25] ] } } } }\n"
    "  { name = \"table\" components = { transform = { position = [3 0.70 0] }\n"
    "      body = { mass = 20 rotates = true friction = 0.8 shape = { type = \"compound\" children = [\n"
    "        { shape = { type = \"box\" half_extents = [0.8 0.05 0.5] } position = [0 0.75 0] }\n"
    "        { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [-0.7 0.35 -0.4] }\n"
    "        { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 -0.4] }\n"
    "        { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 0.4]\n"
    "          rotation = [0 0.7071068 0 0.7071068] }\n"
    "        { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [-0.7 0.35 0.4] }\n"
    "      ] } } } }\n"
    "  { name = \"rock_ball\" components = { transform = { position = [-2.95 2.5 0.03] }\n"
    "      body = { shape = \"sphere\" radius = 0.25 rotates = true } } }\n"
    "  { name = \"table_ball\" components = { transform = { position = [3.1 2.5 0.1] }\n"
    "      body = { shape = \"sphere\" radius = 0.15 rotates = true } } }\n"
    "  { name = \"under_ball\" components = { transform = { position = [3 0.45 0] }\n"
    "      body = { shape = \"sphere\" radius = 0.15 rotates = true } } }\n"
    "]\n";

enum { FLOOR, ROCK, TABLE, ROCK_BALL, TABLE_BALL, UNDER_BALL, NUM };

/* e rests at height `expected` (within 2 mm), slower than `speed` m/s. */
static void height_within(ct_entity_t e, const char *what, float expected, float speed)
{
    float p[3], v[3];
    assert_int_equal(p4->position(t->world, e, p), 0);
    assert_int_equal(p4->velocity(t->world, e, v), 0);
    print_message("%s at %.4f %.4f %.4f, speed %.5f\n", what, (double)p[0], (double)p[1],
                  (double)p[2], sqrt((double)(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])));
    if (!(fabsf(p[1] - expected) < 0.002f))
        fail_msg("%s rests at %.4f, not %.4f", what, (double)p[1], (double)expected);
    assert_true(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < speed * speed);
}

static void height_is(ct_entity_t e, const char *what, float expected)
{
    height_within(e, what, expected, 0.01f);
}

static void test_balls_rest_on_the_rock_and_the_table(void **state)
{
    (void)state;
    assert_int_equal(physics_load("level", "levels/shapes", shapes_level), 0);
    ct_entity_t e[NUM];
    assert_int_equal(t->worlds->spawn_resource(t->world, t->resource->get("level", "levels/shapes"),
                                               NULL, NULL, e, NUM),
                     NUM);
    /* The shapes as physics sees them: the rock's corners bound it 0.7 x 0.4857 x 0.5 about its
     * centre of mass; the table's children reach 0.8 x 0.690426 x 0.5 about its. */
    ct_physics_shape_t s[NUM];
    assert_int_equal(p4->shapes(t->world, 0, s, NUM), NUM);
    for (int k = 0; k < NUM; k++) {
        if (s[k].entity == e[ROCK].id) {
            assert_int_equal(s[k].shape, CT_BODY_HULL);
            assert_true(fabsf(s[k].half_extents[1] - 0.4857143f) < 1e-4f);
        } else if (s[k].entity == e[TABLE].id) {
            assert_int_equal(s[k].shape, CT_BODY_COMPOUND);
        }
    }
    /* A ray straight down meets the rock's top and the table's, and the floor under the table. */
    ct_physics_hit_t hit;
    assert_true(p4->raycast(t->world, (float[3]){-3.3f, 3, -0.1f}, (float[3]){0, -1, 0}, 5, &hit));
    assert_int_equal(hit.entity, e[ROCK].id);
    assert_true(fabsf(hit.point[1] - 0.8f) < 1e-4f);
    assert_true(p4->raycast(t->world, (float[3]){2.7f, 3, -0.3f}, (float[3]){0, -1, 0}, 5, &hit));
    assert_int_equal(hit.entity, e[TABLE].id);
    assert_true(fabsf(hit.point[1] - 0.81f) < 1e-3f);
    for (int k = 0; k < 240; k++)
        p4->simulate(t->world, 1.0f / 60.0f);
    height_is(e[ROCK_BALL], "ball on the rock", 1.05f);
    height_is(e[TABLE_BALL], "ball on the table", 0.95f);
    height_is(e[UNDER_BALL], "ball under the table", 0.15f);
    /* The table stands: its feet on the floor, level. */
    float p[3], q[4];
    assert_int_equal(p4->position(t->world, e[TABLE], p), 0);
    assert_int_equal(p4->rotation(t->world, e[TABLE], q), 0);
    print_message("table at %.4f %.4f %.4f\n", (double)p[0], (double)p[1], (double)p[2]);
    assert_true(fabsf(p[1] - 0.690426f) < 0.002f);
    assert_true(fabsf(q[3]) > 0.9999f);
    /* Lua reads the kinds back. */
    const char *script = "function shape_kinds(w, floor, rock, tbl, ball)\n"
                         "  assert(Actor.shape(w, floor) == 'box', Actor.shape(w, floor))\n"
                         "  assert(Actor.shape(w, rock) == 'hull', Actor.shape(w, rock))\n"
                         "  assert(Actor.shape(w, tbl) == 'compound', Actor.shape(w, tbl))\n"
                         "  assert(Actor.shape(w, ball) == 'sphere', Actor.shape(w, ball))\n"
                         "  local ok, err = pcall(Actor.shape, w, 999999)\n"
                         "  assert(not ok and err:find('no body'), err)\n"
                         "end\n";
    assert_int_equal(t->lua->run_string(script, "shape_kinds"), 0);
    const ct_entity_t which[4] = {e[FLOOR], e[ROCK], e[TABLE], e[ROCK_BALL]};
    test_lua_call("shape_kinds", t->world, which, 4);
    t->entity->destroy_batch(e, NUM);
    t->resource->unload("level", "levels/shapes");
}

/* The table as a unit, spawned turned 90 degrees about y: its top's 1.6 m now runs along z, so a
 * ball dropped 0.7 m along z from its centre lands on the top (0.95 m), where an unturned table
 * has no top (0.5 m along z) and no leg: it would fall to the floor (0.15 m). */
static const char table_unit[] =
    "entities = [ { name = \"table\" components = { transform = {}\n"
    "  body = { mass = 20 rotates = true friction = 0.8 shape = { type = \"compound\" children = [\n"
    "    { shape = { type = \"box\" half_extents = [0.8 0.05 0.5] } position = [0 0.75 0] }\n"
    "    { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [-0.7 0.35 -0.4] }\n"
    "    { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 -0.4] }\n"
    "    { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 0.4] }\n"
    "    { shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [-0.7 0.35 0.4] }\n"
    "  ] } } } } ]\n";

static void test_a_turned_table_unit(void **state)
{
    (void)state;
    assert_int_equal(physics_load("unit", "units/table", table_unit), 0);
    assert_int_equal(
        physics_load("level", "levels/floor",
                     "entities = [ { components = { transform = { position = [0 -0.5 0] }\n"
                     "  body = { kind = \"static\" half_extents = [10 0.5 10] } } } ]\n"),
        0);
    ct_entity_t floor;
    assert_int_equal(t->worlds->spawn_resource(t->world, t->resource->get("level", "levels/floor"),
                                               NULL, NULL, &floor, 1),
                     1);
    const float at[3] = {0, 0.70f, 6}, turn[4] = {0, 0.7071068f, 0, 0.7071068f};
    const ct_entity_t table = t->worlds->spawn_unit(t->world, "units/table", at, turn);
    assert_true(t->entity->alive(table));
    const ct_entity_t ball = t->entity->create();
    const ct_physics_api_v5 *p5 = test_kernel_api(CT_PHYSICS_API, 5);
    assert_int_equal(p5->add_rigid_body(t->world, ball,
                                        &(ct_rigid_body_desc_t){.shape = CT_BODY_SPHERE,
                                                                .radius = 0.15f,
                                                                .mass = 1,
                                                                .friction = 0.5f,
                                                                .position = {0, 2.5f, 6.7f}}),
                     0);
    for (int k = 0; k < 240; k++)
        p4->simulate(t->world, 1.0f / 60.0f);
    /* The table sleeps when the ball lands: the ball's hit wakes it and moves it (1.5 mm), as
     * it would an awake table, and the ball rolls on at 0.012 m/s (nothing slows a rolling
     * ball). Taken for fixed, the sleeping table had stopped it dead. */
    height_within(ball, "ball on the turned table", 0.95f, 0.02f);
    const ct_entity_t gone[3] = {floor, table, ball};
    t->entity->destroy_batch(gone, 3);
    t->resource->unload("unit", "units/table");
    t->resource->unload("level", "levels/floor");
}

/* World.add_component with a Lua table of a hull and of a compound: the same compiler, the same
 * checks; a bad one raises. */
static void test_lua_adds_hull_and_compound_components(void **state)
{
    (void)state;
    const char *script =
        "function add_shapes(w, a, b)\n"
        "  World.add_component(w, a, 'body', { kind = 'static', shape = { type = 'hull',\n"
        "    points = { {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1} } } })\n"
        "  assert(Actor.shape(w, a) == 'hull')\n"
        "  World.add_component(w, b, 'body', { shape = { type = 'compound', children = {\n"
        "    { shape = { type = 'sphere', radius = 0.3 }, position = {0, 0.5, 0} },\n"
        "    { shape = { type = 'hull', points = { {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1} } } },\n"
        "  } } })\n"
        "  assert(Actor.shape(w, b) == 'compound')\n"
        "  local ok = pcall(World.add_component, w, b, 'body', { shape = { type = 'hull',\n"
        "    points = { {0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0} } } })\n"
        "  assert(not ok)\n"
        "end\n";
    assert_int_equal(t->lua->run_string(script, "add_shapes"), 0);
    const ct_entity_t e[2] = {t->entity->create(), t->entity->create()};
    log__set_sink(capture, NULL);
    captured[0] = '\0';
    test_lua_call("add_shapes", t->world, e, 2);
    log__set_sink(NULL, NULL);
    assert_non_null(strstr(captured, "body.shape.points (all on one line"));
    t->entity->destroy_batch(e, 2);
}

/* A level whose one entity's body is `fields`: refused, the log naming the file, the entity and
 * every word of `words` ('|'-separated). */
static void expect_refused(const char *fields, const char *words)
{
    physics_level_refused(words, "levels/bad_shape", "thing", "transform = {} body = { %s }",
                          fields);
}

#define CUBE "[0 0 0] [1 0 0] [0 1 0] [0 0 1] [1 1 0] [1 0 1] [0 1 1] [1 1 1]"
#define LEG "{ shape = { type = \"box\" half_extents = [0.05 0.35 0.05] } position = [0.7 0.35 0.4] }"

static void test_bad_sources_are_refused(void **state)
{
    (void)state;
    log__set_sink(capture, NULL);
    /* Hulls: too few and too many points, degenerate (one line), coplanar, duplicates only,
     * a point that is not [x y z], a number too large for a float, a misspelt field or type,
     * a simple shape written as an object, a size on the body. */
    expect_refused("shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [0 1 0]] }",
                   "body.shape.points|4 to 64");
    char many[4096] = "shape = { type = \"hull\" points = [";
    for (int k = 0; k < 65; k++)
        snprintf(many + strlen(many), sizeof many - strlen(many), " [%d %d %d]", k, (k * 7) % 13,
                 (k * k) % 17);
    strcat(many, " ] }");
    expect_refused(many, "body.shape.points|65 given");
    expect_refused("shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [2 0 0] [3 0 0]] }",
                   "body.shape.points (all on one line");
    expect_refused("shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [0 0 1] [1 0 1] [2 0 3]] }",
                   "body.shape.points (coplanar");
    expect_refused("shape = { type = \"hull\" points = [[1 2 3] [1 2 3] [1 2 3] [1 2 3]] }",
                   "body.shape.points (points 0 and 1 are duplicates");
    expect_refused("shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [0 1 0] [0 0]] }",
                   "body.shape.points[3]: must be [x y z]");
    expect_refused("shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [0 1e39 0] [0 0 1]] }",
                   "body.shape.points[2]");
    expect_refused("shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [0 2e4 0] [0 0 1]] }",
                   "body.shape.points (point 2 is NaN, infinite or outside");
    expect_refused("shape = { type = \"hull\" pionts = [" CUBE "] }",
                   "body.shape.pionts|did you mean 'points'");
    expect_refused("shape = { type = \"hul\" points = [" CUBE "] }",
                   "body.shape.type|did you mean \"hull\"");
    expect_refused("shape = { type = \"box\" half_extents = [1 1 1] }",
                   "body.shape.type|a box, sphere or capsule is a string");
    expect_refused("radius = 2 shape = { type = \"hull\" points = [" CUBE "] }",
                   "body.radius: a hull body takes its size from its shape");
    /* Compounds: none and too many children, a compound inside, a mesh inside, a bad size, a
     * rotation that is no unit quaternion, misspelt fields of a child and of its shape, a
     * degenerate child hull, a child that is no object, the body's kind for a hull. */
    expect_refused("shape = { type = \"compound\" children = [] }",
                   "body.shape.children|1 to 16|0 given");
    char legs[4096] = "shape = { type = \"compound\" children = [";
    for (int k = 0; k < 17; k++)
        strcat(legs, LEG);
    strcat(legs, " ] }");
    expect_refused(legs, "body.shape.children|17 given");
    expect_refused("shape = { type = \"compound\" children = [ " LEG
                   " { shape = { type = \"compound\" children = [" LEG "] } } ] }",
                   "body.shape.children[1].shape.type|no compound in a compound");
    expect_refused("shape = { type = \"compound\" children = [ { shape = { type = \"mesh\" "
                   "mesh = \"meshes/box\" } } ] }",
                   "body.shape.children[0].shape.type");
    expect_refused("shape = { type = \"compound\" children = [ " LEG
                   " { shape = { type = \"sphere\" radius = -1 } } ] }",
                   "body.shape.children[1].shape.radius (must be within");
    expect_refused("shape = { type = \"compound\" children = [ { shape = { type = \"box\" } "
                   "rotation = [0 0 0 2] } ] }",
                   "body.shape.children[0].rotation (x y z w of length 1");
    expect_refused("shape = { type = \"compound\" children = [ { shape = { type = \"box\" } "
                   "postion = [0 1 0] } ] }",
                   "body.shape.children[0].postion|did you mean 'position'");
    expect_refused("shape = { type = \"compound\" children = [ { shape = { type = \"box\" "
                   "radius = 1 } } ] }",
                   "body.shape.children[0].shape.radius|unknown field");
    expect_refused("shape = { type = \"compound\" children = [ " LEG " " LEG
                   " { shape = { type = \"hull\" points = [[0 0 0] [1 0 0] [0 0 1] [1 0 1]] } } "
                   "] }",
                   "body.shape.children[2].shape.points (coplanar");
    expect_refused("shape = { type = \"compound\" children = [ 3 ] }",
                   "body.shape.children[0]: must be { shape");
    expect_refused("shape = { type = \"compound\" chilren = [] }",
                   "body.shape.chilren|did you mean 'children'");
    expect_refused("kind = \"static\" shape = { type = \"hull\" points = [" CUBE "] } sensor = 1",
                   "body.sensor");
    log__set_sink(NULL, NULL);
}

/* Blobs edited behind the compiler's back are refused at load, naming the field: a hull's point
 * made NaN, a duplicate, a child's radius out of range, a child's rotation. */
static void test_edited_blobs_are_refused(void **state)
{
    (void)state;
    test_blob_t b = test_blob_compile(
        "level", "entities = [ { components = { transform = {} body = { kind = \"static\"\n"
                 "  shape = { type = \"hull\" points = [[0 0 0] [1.25 0 0] [0 1.5 0] [0 0 1.75]] } } } }\n"
                 "{ components = { transform = {} body = { shape = { type = \"compound\" children = [\n"
                 "  { shape = { type = \"sphere\" radius = 0.375 } position = [0 0.625 0] }\n"
                 "  { shape = { type = \"hull\" points = [[0 0 0] [2.25 0 0] [0 2.5 0] [0 0 2.75]] } }\n"
                 "] } } } } ]\n");
    const float x[1] = {1.25f};
    const char *const hull_words[] = {"entity 0", "body", "shape.points", NULL};
    test_blob_refused(&b, test_blob_find(&b, x, 4), NAN, hull_words);
    test_blob_refused(&b, test_blob_find(&b, x, 4), 0.0f, hull_words);
    const float r[1] = {0.375f};
    const char *const radius_words[] = {"entity 1", "body", "shape.children[0].radius", NULL};
    test_blob_refused(&b, test_blob_find(&b, r, 4), -1.0f, radius_words);
    /* The rotation's z: after the position's y (0.625) and z, and the rotation's x and y. */
    const float pos[2] = {0.625f, 0.0f};
    const char *const rotation_words[] = {"entity 1", "body", "shape.children[0].rotation", NULL};
    test_blob_refused(&b, test_blob_find(&b, pos, 8) + 16, 3.0f, rotation_words);
    const float hx[1] = {2.25f};
    const char *const child_hull_words[] = {"entity 1", "body", "shape.children[1].points", NULL};
    test_blob_refused(&b, test_blob_find(&b, hx, 4), INFINITY, child_hull_words);
    /* The body section's header says format 5 after its instance size (variable, at most a
     * compound of 16 hulls of 64 points: a 140-byte head, 16 children of 56 bytes and 1,024
     * points, 13,324 bytes). A level compiled with format 4 (the head without the damping) or 3
     * (a body of 184 bytes, fixed) is refused, not read: it needs compiling again. */
    const uint32_t head[2] = {CT_COMPONENT_VARIABLE_SIZE | 13324u, 5u};
    const size_t format = test_blob_find(&b, head, sizeof head) + 4;
    for (uint32_t old = 3; old <= 4; old++) {
        float as_float;
        memcpy(&as_float, &old, 4);
        char words[16];
        snprintf(words, sizeof words, "format %u", old);
        const char *const format_words[] = {"component 'body'", words, "recompile", NULL};
        test_blob_refused(&b, format, as_float, format_words);
    }
    test_blob_free(&b);
}

/* A level of 100 static rocks 3 m apart, each the hull of the rock above (hulls) or a box. */
static void rocks_level(const char *name, bool hulls)
{
    static char level[40000];
    size_t at = (size_t)snprintf(level, sizeof level, "entities = [\n");
    for (int k = 0; k < 100; k++)
        at += (size_t)snprintf(
            level + at, sizeof level - at,
            "  { name = \"rock%d\" components = { transform = { position = [%d 0.3142857 %d] }\n"
            "      body = { kind = \"static\" %s } } }\n",
            k, 3 * (k % 10), 3 * (k / 10),
            hulls ? "shape = { type = \"hull\" points = [ [-0.7 0 -0.5] [0.7 0 -0.5] [0.7 0 0.5]\n"
                    "        [-0.7 0 0.5] [-0.35 0.8 -0.25] [0.35 0.8 -0.25] [0.35 0.8 0.25]\n"
                    "        [-0.35 0.8 0.25] ] }"
                  : "half_extents = [0.7 0.4 0.5]");
    snprintf(level + at, sizeof level - at, "]\n");
    assert_true(at < sizeof level - 4);
    assert_int_equal(physics_load("level", name, level), 0);
}

/* The allocations (new blocks and growths, by every tracked allocator) that spawning the level
 * `name` into a fresh world makes. */
static uint64_t spawn_allocations(const char *name)
{
    ct_world_o *w = t->worlds->create_world(NULL);
    assert_non_null(w);
    const void *level = t->resource->get("level", name);
    memory__fail_nth(UINT64_MAX); /* armed past reach: it only counts */
    const int made = t->worlds->spawn_resource(w, level, NULL, NULL, NULL, 0);
    const uint64_t counted = memory__fail_nth(0);
    assert_int_equal(made, 100);
    t->worlds->destroy_world(w);
    return counted;
}

/* A level of 100 rocks of one hull shape keeps one hull: its spawn allocates what a level of 100
 * boxes does, and three blocks more (the hull, and the registry's two arrays that find it by its
 * shape), where a hull each took 100 more. */
static void test_a_hundred_rocks_share_one_hull(void **state)
{
    (void)state;
    rocks_level("levels/hull_rocks", true);
    rocks_level("levels/box_rocks", false);
    const uint64_t hulls = spawn_allocations("levels/hull_rocks");
    const uint64_t boxes = spawn_allocations("levels/box_rocks");
    print_message("spawn allocations: %llu with hull rocks, %llu with box rocks\n",
                  (unsigned long long)hulls, (unsigned long long)boxes);
    assert_int_equal(hulls, boxes + 3);
    t->resource->unload("level", "levels/hull_rocks");
    t->resource->unload("level", "levels/box_rocks");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_balls_rest_on_the_rock_and_the_table),
        physics_test(test_a_turned_table_unit),
        physics_test(test_lua_adds_hull_and_compound_components),
        physics_test(test_bad_sources_are_refused),
        physics_test(test_edited_blobs_are_refused),
        physics_test(test_a_hundred_rocks_share_one_hull),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
