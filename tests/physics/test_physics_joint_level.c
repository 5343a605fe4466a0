/*
 * Joints written as data: the "joint" component in levels and units (modules/physics/
 * physics_joint_component.c). A hinge door from a level swings to its limit and stays on its
 * hinge; a unit spawned twice, moved and turned, joins each copy's own parts; bad sources are
 * refused naming the file, the entity and the field; an edited blob is refused at load; a `to`
 * naming nobody is skipped naming the world, the entity and the field; a joint goes with either
 * of its bodies and with its component, and nothing refers to it afterwards.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "physics_module_fixture.h"

static const test_world_t *t;

static int boot(void **state)
{
    (void)state;
    t = physics_boot("joint_level");
    return 0;
}

static const float step = 1.0f / 60.0f;

/* A door frame (static) and a door (a 1 x 2 m plank) hinged on its left edge to the frame about
 * +y, opening at most 1 rad either way, pushed open at 3 rad/s and held open by its motor (a
 * door closer set to open it at 2 rad/s with at most 40 N m). */
static const char door_level[] =
    "entities = [\n"
    "  { name = \"frame\" components = {\n"
    "      transform = { position = [0 1 0] }\n"
    "      debug_name = { name = \"frame\" }\n"
    "      body = { kind = \"static\" shape = \"box\" half_extents = [0.05 1 0.05] } } }\n"
    "  { name = \"door\" components = {\n"
    "      transform = { position = [0.6 1 0] }\n"
    "      debug_name = { name = \"door\" }\n"
    "      body = { shape = \"box\" half_extents = [0.5 1 0.025] mass = 20 rotates = true\n"
    "               angular_velocity = [0 3 0] }\n"
    "      joint = { type = \"hinge\" to = \"frame\" anchor = [-0.55 0 0] axis = [0 1 0]\n"
    "                lower = -1 upper = 1 motor_speed = 2 max_motor_force = 40 } } }\n"
    "]\n";

/* The door swings to its 1 rad limit and rests there, on its hinge. */
static void test_door_swings_to_its_limit(void **state)
{
    (void)state;
    assert_int_equal(physics_load("level", "levels/door", door_level), 0);
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "door"});
    ct_entity_t e[2];
    assert_int_equal(
        t->worlds->spawn_resource(w, t->resource->get("level", "levels/door"), NULL, NULL, e, 2),
        2);
    assert_int_equal(p4->joint_count(w), 1);
    /* Lua finds the hinge the level made (Physics.joint_of), and nothing for the frame. */
    assert_int_equal(t->lua->run_string("function door_joint(w, e)\n"
                                        "  door_j = Physics.joint_of(w, e)\n"
                                        "  assert(type(door_j) == 'number' and door_j > 0)\n"
                                        "  assert(Physics.joint_of(w, e - 1) == nil)\n"
                                        "end\n",
                                        "door_joint"),
                     0);
    test_lua_call("door_joint", w, &e[1], 1);
    float angle = 0.0f, most = 0.0f;
    for (int k = 0; k < 120; k++) {
        p4->simulate(w, step);
        float q[4];
        assert_int_equal(p4->rotation(w, e[1], q), 0);
        angle = 2.0f * atan2f(q[1], q[3]);
        most = angle > most ? angle : most;
    }
    print_message("door: %.4f rad after 2 s (limit 1), at most %.4f\n", (double)angle,
                  (double)most);
    assert_float_equal(angle, 1.0f, 0.01f);
    assert_true(most < 1.02f);
    /* The hinge the level made, found from C (v5): its angle is the door's. */
    const ct_physics_joint_t hinge = p5->joint_of(w, e[1]);
    assert_int_not_equal(hinge.id, 0);
    assert_int_equal(p5->joint_of(w, e[0]).id, 0);
    float value;
    assert_int_equal(p4->joint_value(w, hinge, &value), 0);
    assert_float_equal(value, angle, 1e-3f);
    /* The hinge's edge stays at the frame: the door's centre is 0.55 m from (0, 1, 0). */
    float p[3];
    assert_int_equal(p4->position(w, e[1], p), 0);
    assert_float_equal(p[1], 1.0f, 1e-3f);
    assert_float_equal(p[0], 0.05f + 0.55f * cosf(angle), 5e-3f);
    assert_float_equal(p[2], -0.55f * sinf(angle), 5e-3f);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 2);
}

/* A unit (a lamp: a ball hung from a hook by a distance joint) spawned twice, one copy moved
 * and turned a quarter about z: each lamp hangs from its own hook, and the world joint of the
 * hook follows the spawn's pose. */
static void test_unit_copies_join_their_own_parts(void **state)
{
    (void)state;
    assert_int_equal(
        physics_load(
            "unit", "units/lamp",
            "entities = [\n"
            "  { components = { transform = {} debug_name = { name = \"hook\" }\n"
            "      body = { kind = \"static\" shape = \"sphere\" radius = 0.05 } }\n"
            "    children = [\n"
            "      { components = { transform = { position = [0 -1 0] }\n"
            "          debug_name = { name = \"lamp\" }\n"
            "          body = { shape = \"sphere\" radius = 0.1 rotates = true }\n"
            "          joint = { type = \"distance\" to = \"hook\" anchor = [0 0.1 0] } } }\n"
            "    ] }\n"
            "]\n"),
        0);
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "lamps"});
    const float s = sqrtf(0.5f);
    ct_entity_t a[2], b[2];
    const void *unit = t->resource->get("unit", "units/lamp");
    assert_int_equal(t->worlds->spawn_resource(w, unit, (float[3]){0, 5, 0}, NULL, a, 2), 2);
    assert_int_equal(
        t->worlds->spawn_resource(w, unit, (float[3]){10, 5, 0}, (float[4]){0, 0, s, s}, b, 2), 2);
    assert_int_equal(p4->joint_count(w), 2);
    for (int k = 0; k < 240; k++)
        p4->simulate(w, step);
    /* The lamps hang 1 m (0.9 from the hook's centre to the lamp's top, as spawned) under their
     * own hooks: the turned copy's lamp started beside its hook and swung down under it. */
    float pa[3], pb[3];
    assert_int_equal(p4->position(w, a[1], pa), 0);
    assert_int_equal(p4->position(w, b[1], pb), 0);
    print_message("lamps at (%.3f %.3f) and (%.3f %.3f)\n", (double)pa[0], (double)pa[1],
                  (double)pb[0], (double)pb[1]);
    assert_float_equal(pa[0], 0.0f, 1e-3f);
    assert_float_equal(pa[1], 4.0f, 1e-2f);
    const float db = sqrtf((pb[0] - 10.0f) * (pb[0] - 10.0f) + (pb[1] - 5.0f) * (pb[1] - 5.0f));
    assert_float_equal(db, 1.0f, 2e-2f);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(a, 2);
    t->entity->destroy_batch(b, 2);
}

/* A level whose one entity has `joint` written as `fields`, for the refusals below. */
#define GATE "transform = {} body = { rotates = true }\n  joint = { %s }"

static int compile_joint(const char *fields)
{
    return physics_compile_level("levels/bad_joint", "gate", GATE, fields);
}

static void expect_refused(const char *fields, const char *words)
{
    physics_level_refused(words, "levels/bad_joint", "gate", GATE, fields);
}

static void test_bad_sources_name_file_entity_field(void **state)
{
    (void)state;
    log__set_sink(capture, NULL);
    expect_refused("typ = \"hinge\"", "joint.typ: unknown field (did you mean 'type'?)");
    expect_refused("to = \"x\"", "joint.type: missing");
    expect_refused("type = \"hing\"", "\"hing\" is not a joint type");
    expect_refused("type = \"hing\"", "did you mean \"hinge\"");
    expect_refused("type = 3", "joint.type");
    expect_refused("type = \"ball\" anchor = [0 1]", "joint.anchor");
    expect_refused("type = \"ball\" anchor = [0 1e39 0]", "joint.anchor");
    expect_refused("type = \"ball\" anchor = [0 2e5 0]", "joint.anchor (each coordinate within");
    expect_refused("type = \"hinge\" axis = [0 0 0]", "joint.axis");
    expect_refused("type = \"hinge\" lower = -1", "joint.upper: a limit needs both");
    expect_refused("type = \"hinge\" lower = 1 upper = 0", "joint.lower, upper");
    expect_refused("type = \"hinge\" lower = -4 upper = 0", "joint.lower, upper (within [-pi, pi]");
    expect_refused("type = \"ball\" cone_angle = 4", "joint.cone_angle");
    expect_refused("type = \"hinge\" cone_angle = 1", "joint.cone_angle: only a ball");
    expect_refused("type = \"fixed\" upper = 1", "joint.upper: a fixed joint has no limit");
    expect_refused("type = \"ball\" motor_speed = 1", "joint.flags (a motor is for hinges");
    expect_refused("type = \"hinge\" max_motor_force = -1", "joint.max_motor_force");
    expect_refused("type = \"distance\" length = 1e6", "joint.length");
    /* What came, with what was wanted. */
    expect_refused("type = \"distance\" length = 1e6",
                   "joint.length (within [0, 1e4] m), given 1e+06");
    expect_refused("type = \"hinge\" lower = -4 upper = 0",
                   "joint.lower, upper (within [-pi, pi] rad, lower <= upper), given [-4 0]");
    expect_refused("type = \"distance\" spring_hertz = 1e9", "joint.spring_hertz");
    expect_refused("type = \"ball\" to = \"\"", "joint.to");
    expect_refused("type = \"ball\" to = "
                   "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
                   "joint.to");
    expect_refused("type = \"ball\" collide = 1", "joint.collide");
    /* And one that compiles, to show the helper can tell. */
    assert_int_equal(compile_joint("type = \"slider\" axis = [1 0 0] lower = -1 upper = 1 "
                                   "motor_speed = 1 max_motor_force = 10 collide = true"),
                     0);
    log__set_sink(NULL, NULL);
    t->resource->unload("level", "levels/bad_joint");
}

/* A compiled joint edited behind the compiler's back (a NaN or a huge anchor, a cone past pi) is
 * refused when the level loads, naming the entity, the type and the field. */
static void test_edited_blob_refused(void **state)
{
    (void)state;
    test_blob_t b = test_blob_compile("level", "entities = [ { name = \"gate\" components = {\n"
                                               "  transform = {} body = { rotates = true }\n"
                                               "  joint = { type = \"ball\" anchor = [0.125 0.25 "
                                               "0.375] cone_angle = 0.75 } } } ]\n");
    const float anchor[3] = {0.125f, 0.25f, 0.375f}, cone = 0.75f;
    const size_t at = test_blob_find(&b, anchor, sizeof anchor);
    const char *const anchor_words[] = {"entity 0", "joint", "anchor", NULL};
    test_blob_refused(&b, at, NAN, anchor_words);
    test_blob_refused(&b, at + 4, 3e38f, anchor_words);
    const char *const cone_words[] = {"entity 0", "joint", "cone_angle", NULL};
    test_blob_refused(&b, test_blob_find(&b, &cone, sizeof cone), 5.0f, cone_words);
    test_blob_free(&b);
}

/* At spawn: a `to` naming no entity of the spawn, or a joint on an entity without a body, is
 * skipped with a message naming the world, the entity and the field; the rest spawns. */
static void test_spawn_refusals_name_world_entity_field(void **state)
{
    (void)state;
    assert_int_equal(
        physics_load("level", "levels/lost",
                     "entities = [\n"
                     "  { components = { transform = {} debug_name = { name = \"seat\" }\n"
                     "      body = { rotates = true }\n"
                     "      joint = { type = \"ball\" to = \"nobody\" } } }\n"
                     "  { components = { transform = {} debug_name = { name = \"ghost\" }\n"
                     "      joint = { type = \"ball\" } } }\n"
                     "  { components = { transform = { position = [3 0 0] }\n"
                     "      body = { rotates = true } joint = { type = \"ball\" } } }\n"
                     "]\n"),
        0);
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "lost"});
    ct_entity_t e[3];
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    assert_int_equal(
        t->worlds->spawn_resource(w, t->resource->get("level", "levels/lost"), NULL, NULL, e, 3),
        3);
    log__set_sink(NULL, NULL);
    char want[256];
    snprintf(want, sizeof want, "spawn joint: world %p, entity %u (\"seat\"): joint.to: no entity",
             (void *)w, e[0].id);
    if (!strstr(captured, want) || !strstr(captured, "named nobody"))
        fail_msg("got '%s'", captured);
    snprintf(want, sizeof want,
             "spawn joint: world %p, entity %u (\"ghost\"): joint.to: the joint's own entity "
             "has no body",
             (void *)w, e[1].id);
    if (!strstr(captured, want))
        fail_msg("got '%s'", captured);
    assert_int_equal(p4->joint_count(w), 1); /* the third, held to the world */
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* A joint goes with either of its bodies and with its component: destroying the frame's entity
 * removes the door's hinge (Physics.joint_of says nil), the door falls freely, and destroying
 * the door afterwards finds nothing left to remove; World.remove_component removes a joint. */
static void test_joint_goes_with_its_bodies(void **state)
{
    (void)state;
    /* Its own load of the level: each test's loads go at its end (physics_test_end). */
    assert_int_equal(physics_load("level", "levels/door", door_level), 0);
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "door_gone"});
    ct_entity_t e[2];
    assert_int_equal(
        t->worlds->spawn_resource(w, t->resource->get("level", "levels/door"), NULL, NULL, e, 2),
        2);
    assert_int_equal(p4->joint_count(w), 1);
    const ct_physics_joint_t hinge = p5->joint_of(w, e[1]);
    assert_int_not_equal(hinge.id, 0);
    t->entity->destroy(e[0]); /* the frame */
    assert_int_equal(p4->joint_count(w), 0);
    assert_int_equal(p5->joint_of(w, e[1]).id, 0);
    float f[3];
    assert_int_equal(p4->joint_force(w, hinge, f, NULL), CT_ERR_NOT_FOUND);
    assert_int_equal(t->lua->run_string("function no_joint(w, e)\n"
                                        "  assert(Physics.joint_of(w, e) == nil)\n"
                                        "end\n",
                                        "no_joint"),
                     0);
    test_lua_call("no_joint", w, &e[1], 1);
    for (int k = 0; k < 30; k++)
        p4->simulate(w, step);
    float p[3];
    assert_int_equal(p4->position(w, e[1], p), 0);
    assert_true(p[1] < 0.0f); /* half a second of free fall: 1.23 m */
    t->entity->destroy(e[1]);
    assert_int_equal(p4->body_count(w), 0);

    /* The component removed from a live entity takes its joint. */
    assert_int_equal(
        t->worlds->spawn_resource(w, t->resource->get("level", "levels/door"), NULL, NULL, e, 2),
        2);
    assert_int_equal(p4->joint_count(w), 1);
    assert_int_equal(t->lua->run_string("function drop_joint(w, e)\n"
                                        "  World.remove_component(w, e, 'joint')\n"
                                        "  assert(Physics.joint_of(w, e) == nil)\n"
                                        "end\n",
                                        "drop_joint"),
                     0);
    test_lua_call("drop_joint", w, &e[1], 1);
    assert_int_equal(p4->joint_count(w), 0);
    assert_int_equal(p4->body_count(w), 2);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_door_swings_to_its_limit),
        physics_test(test_unit_copies_join_their_own_parts),
        physics_test(test_bad_sources_name_file_entity_field),
        physics_test(test_edited_blob_refused),
        physics_test(test_spawn_refusals_name_world_entity_field),
        physics_test(test_joint_goes_with_its_bodies),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
