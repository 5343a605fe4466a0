/*
 * Damping through the module (ct_physics_api_v5.set_damping and damping; the body's
 * linear_damping and angular_damping in levels and units; Actor.set_damping and Actor.damping):
 * values round trip, a ball falling with damping 2 settles at g / 2 through simulate(), bad values
 * are refused naming the world, the entity and the field (C, compiled sources, edited blobs, Lua)
 * and change nothing. The physics of it is test_physics_damping's.
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

static const test_world_t *kt;

static int boot(void **state)
{
    (void)state;
    kt = physics_boot("damping");
    return 0;
}

static void expect_damping(ct_world_o *w, ct_entity_t e, float linear, float angular)
{
    float l = -1.0f, a = -1.0f;
    assert_int_equal(p5->damping(w, e, &l, &a), 0);
    assert_true(l == linear && a == angular);
}

/* set_damping and damping in C: 0 by default, set values read back (either output may be NULL),
 * a ball falling with linear damping 2 settles at 9.81 / 2 m/s; refusals name the world, the
 * entity and the field and leave the values as they were; no body, no damping. */
static void test_c_api(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "damping_c"});
    ct_rigid_body_desc_t d = ball_desc(0.0f, 10.0f, 0.0f, 0.5f);
    d.locks = 0; /* a rigid body: the substeps of test_physics_damping's expected speed */
    const ct_entity_t ball = physics_body(w, &d);
    expect_damping(w, ball, 0.0f, 0.0f);
    assert_int_equal(p5->set_damping(w, ball, 2.0f, 0.5f), 0);
    expect_damping(w, ball, 2.0f, 0.5f);
    float only = 0.0f;
    assert_int_equal(p5->damping(w, ball, NULL, &only), 0);
    assert_true(only == 0.5f);
    assert_int_equal(p5->damping(w, ball, &only, NULL), 0);
    assert_true(only == 2.0f);

    log__set_sink(capture, NULL);
    const struct {
        float linear, angular;
        const char *field;
    } bad[] = {{-1.0f, 0.0f, "linear_damping"},   {NAN, 0.0f, "linear_damping"},
               {1001.0f, 0.0f, "linear_damping"}, {0.0f, INFINITY, "angular_damping"},
               {0.0f, -0.5f, "angular_damping"},  {0.0f, NAN, "angular_damping"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        captured[0] = '\0';
        assert_int_equal(p5->set_damping(w, ball, bad[k].linear, bad[k].angular), CT_ERR_INVALID);
        char entity_words[32];
        snprintf(entity_words, sizeof entity_words, "entity %u", ball.id);
        assert_non_null(strstr(captured, "set_damping: world "));
        assert_non_null(strstr(captured, entity_words));
        assert_non_null(strstr(captured, bad[k].field));
        assert_non_null(strstr(captured, "must be within [0, 1e3] 1/s"));
        expect_damping(w, ball, 2.0f, 0.5f);
    }
    log__set_sink(NULL, NULL);
    assert_int_equal(p5->set_damping(w, ball, CT_PHYSICS_MAX_DAMPING, 0.0f), 0);
    assert_int_equal(p5->set_damping(w, ball, 2.0f, 0.0f), 0);

    for (int k = 0; k < 600; k++)
        p5->simulate(w, 1.0f / 60.0f);
    float v[3];
    assert_int_equal(p5->velocity(w, ball, v), 0);
    assert_float_equal(v[1], -4.904955f, 1e-5f);

    const ct_entity_t none = entity->create();
    float l = 7.0f;
    assert_int_equal(p5->set_damping(w, none, 1.0f, 1.0f), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->damping(w, none, &l, NULL), CT_ERR_NOT_FOUND);
    assert_true(l == 7.0f);
    worlds->destroy_world(w);
    entity->destroy(ball);
    entity->destroy(none);
}

/* A level's bodies take linear_damping and angular_damping (default 0), the rotating crate and
 * the translating ball alike, and its ball then slows as damped. */
static void test_level_fields(void **state)
{
    (void)state;
    static const char pond[] =
        "entities = [\n"
        "  { name = \"crate\" components = { transform = { position = [0 5 0] }\n"
        "      body = { rotates = true velocity = [3 0 0] linear_damping = 0.5\n"
        "               angular_damping = 0.25 } } }\n"
        "  { name = \"ball\" components = { transform = { position = [5 5 0] }\n"
        "      body = { shape = \"sphere\" radius = 0.5 angular_damping = 1000 } } }\n"
        "  { name = \"plain\" components = { transform = { position = [10 5 0] }\n"
        "      body = { shape = \"sphere\" radius = 0.5 } } }\n"
        "]\n";
    assert_int_equal(physics_load("level", "levels/pond", pond), 0);
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "pond"});
    ct_entity_t e[3];
    assert_int_equal(
        worlds->spawn_resource(w, kt->resource->get("level", "levels/pond"), NULL, NULL, e, 3), 3);
    expect_damping(w, e[0], 0.5f, 0.25f);
    expect_damping(w, e[1], 0.0f, 1000.0f);
    expect_damping(w, e[2], 0.0f, 0.0f);
    worlds->destroy_world(w);
    entity->destroy_batch(e, 3);
    kt->resource->unload("level", "levels/pond");
}

static void expect_refused(const char *fields, const char *words)
{
    physics_level_refused(words, "levels/bad_damping", "raft", "transform = {} body = { %s }",
                          fields);
}

/* Sources with a bad damping fail to compile naming the level, the entity and the field. */
static void test_bad_sources(void **state)
{
    (void)state;
    log__set_sink(capture, NULL);
    expect_refused("linear_damping = -1", "body.linear_damping (must be within [0, 1e3] 1/s)");
    expect_refused("angular_damping = 1e4", "body.angular_damping (must be within [0, 1e3] 1/s)");
    expect_refused("linear_damping = 1e39", "body.linear_damping");
    expect_refused("linear_damping = \"thick\"", "body.linear_damping: expected a number");
    expect_refused("angular_damping = [1]", "angular_damping");
    expect_refused("linear_dampnig = 1", "did you mean 'linear_damping'");
    assert_int_equal(physics_compile_level("levels/bad_damping", "raft",
                                           "transform = {} body = { linear_damping = 1000 "
                                           "angular_damping = 0 }"),
                     0);
    log__set_sink(NULL, NULL);
    kt->resource->unload("level", "levels/bad_damping");
}

/* A compiled body whose damping was edited behind the compiler's back is refused when the level
 * loads, naming the entity, the type and the field. */
static void test_edited_blob_refused(void **state)
{
    (void)state;
    test_blob_t b = test_blob_compile(
        "level", "entities = [ { name = \"raft\" components = {\n"
                 "  transform = {} body = { linear_damping = 0.625 angular_damping = 0.875 } "
                 "} } ]\n");
    const float damping[2] = {0.625f, 0.875f};
    const size_t at = test_blob_find(&b, damping, sizeof damping);
    const char *const linear_words[] = {"entity 0", "body", "linear_damping", NULL};
    test_blob_refused(&b, at, -0.5f, linear_words);
    const char *const angular_words[] = {"entity 0", "body", "angular_damping", NULL};
    test_blob_refused(&b, at + 4, NAN, angular_words);
    test_blob_free(&b);
}

/* Lua: Actor.set_damping and Actor.damping round trip; bad values raise naming the entity and
 * the field; an entity without a body raises. */
static void test_lua(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "damping_lua"});
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 4.0f, 0.0f, 0.25f);
    const ct_entity_t e[2] = {physics_body(w, &d), entity->create()};
    const char *script =
        "function damping_lua(w, ball, none)\n"
        "  local l, a = Actor.damping(w, ball)\n"
        "  assert(l == 0 and a == 0)\n"
        "  Actor.set_damping(w, ball, 0.5, 0.25)\n"
        "  l, a = Actor.damping(w, ball)\n"
        "  assert(l == 0.5 and a == 0.25, l .. ' ' .. a)\n"
        "  local ok, err = pcall(Actor.set_damping, w, ball, -1, 0)\n"
        "  assert(not ok and err:find('linear_damping', 1, true), err)\n"
        "  assert(err:find('entity ' .. ball, 1, true), err)\n"
        "  ok, err = pcall(Actor.set_damping, w, ball, 0, 1e300)\n"
        "  assert(not ok and err:find('angular_damping', 1, true), err)\n"
        "  ok, err = pcall(Actor.set_damping, w, ball, 0 / 0, 0)\n"
        "  assert(not ok and err:find('linear_damping', 1, true), err)\n"
        "  ok, err = pcall(Actor.set_damping, w, ball, 'x', 0)\n"
        "  assert(not ok, 'a string was taken')\n"
        "  l, a = Actor.damping(w, ball)\n"
        "  assert(l == 0.5 and a == 0.25)\n"
        "  ok, err = pcall(Actor.damping, w, none)\n"
        "  assert(not ok and err:find('no body', 1, true), err)\n"
        "  ok, err = pcall(Actor.set_damping, w, none, 1, 1)\n"
        "  assert(not ok and err:find('no body', 1, true), err)\n"
        "end\n";
    log__set_sink(capture, NULL);
    assert_int_equal(lua->run_string(script, "damping_lua"), 0);
    test_lua_call("damping_lua", w, e, 2);
    log__set_sink(NULL, NULL);
    expect_damping(w, e[0], 0.5f, 0.25f);
    worlds->destroy_world(w);
    entity->destroy(e[0]);
    entity->destroy(e[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_c_api),
        physics_test(test_level_fields),
        physics_test(test_bad_sources),
        physics_test(test_edited_blob_refused),
        physics_test(test_lua),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
