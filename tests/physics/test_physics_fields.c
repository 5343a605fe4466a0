/*
 * Force fields (modules/physics/physics_fields.c): a field's expression pushes the bodies inside
 * its sphere and no other, from where they are relative to it, each step; a bad expression fails
 * the compile naming the entity, the field and the place with a caret.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "physics_module_fixture.h"

/* Boots ct.entities, ct.transforms, ct.expr and ct.physics with a world named `name` (fields_end
 * shuts it down after each test, passed or failed). */
static const test_world_t *boot_fields(const char *name)
{
    const char *paths[] = {
        CT_TEST_MODULE("entities", "ct_entities"), CT_TEST_MODULE("transforms", "ct_transforms"),
        CT_TEST_MODULE("expr", "ct_expr"), CT_TEST_MODULE("physics", "ct_physics")};
    const kernel_desc_t desc = test_kernel_desc(paths, 4);
    return test_world_boot(&desc, name);
}

static const ct_physics_api_v2 *physics;

/* boot_fields with a world named `world` without gravity, and level `name` (of source `level`)
 * spawned in it, its n entities into made. */
static const test_world_t *spawn_fields(const char *world, const char *name, const char *level,
                                        ct_entity_t *made, uint32_t n)
{
    const test_world_t *t = boot_fields(world);
    physics = test_kernel_api(CT_PHYSICS_API, 2);
    assert_non_null(physics);
    physics->set_gravity(t->world, (const float[3]){0, 0, 0});
    assert_int_equal(t->resource->load_source("level", name, level, strlen(level)), 0);
    assert_int_equal(
        t->worlds->spawn_resource(t->world, t->resource->get("level", name), NULL, NULL, made, n),
        (int)n);
    return t;
}

static void fields_push_the_bodies_inside(void **state)
{
    (void)state;
    /* An updraft inside 3 m that grows with height, and a swirl around the y axis. */
    static const char level[] =
        "entities = [\n"
        "  { components = { transform = { position = [0 0 0] } force_field = { radius = 3 "
        "      force = \"fx = -z * 10; fy = 50 + 10 * y; fz = x * 10\" } } }\n"
        "  { name = \"in\" components = { transform = { position = [1 2 0] } body = { shape = "
        "\"sphere\" "
        "      radius = 0.25 mass = 10 } } }\n"
        "  { name = \"out\" components = { transform = { position = [5 2 0] } body = { shape = "
        "\"sphere\" "
        "      radius = 0.25 mass = 10 } } }\n"
        "  { name = \"floor\" components = { transform = { position = [0 -1 0] } body = { kind = "
        "\"static\" "
        "      shape = \"box\" half_extents = [1 0.1 1] } } }\n"
        "]\n";
    ct_entity_t made[4];
    const test_world_t *t = spawn_fields("fields", "levels/field", level, made, 4);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    physics->simulate(t->world, 0.1f);
    log__set_sink(NULL, NULL);
    assert_string_equal(captured, ""); /* the static floor inside the field is left alone */
    float v[3];
    /* The body at (1, 2, 0): F = (0, 70, 10) N on 10 kg for 0.1 s. */
    assert_int_equal(physics->velocity(t->world, made[1], v), 0);
    assert_true(fabsf(v[0]) < 1e-5f);
    assert_true(fabsf(v[1] - 0.7f) < 1e-4f);
    assert_true(fabsf(v[2] - 0.1f) < 1e-4f);
    assert_int_equal(physics->velocity(t->world, made[2], v), 0);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 0);
    /* The field goes with its entity. */
    t->entity->destroy(made[0]);
    physics->simulate(t->world, 0.1f);
    assert_int_equal(physics->velocity(t->world, made[1], v), 0);
    assert_true(fabsf(v[1] - 0.7f) < 1e-4f);
    t->resource->unload("level", "levels/field");

    /* A bad expression fails the compile, naming where. */
    static const char bad[] =
        "entities = [ { name = \"twister\" components = { transform = {} "
        "force_field = { radius = 2 force = \"fx = 1; fy = hieght; fz = 0\" } } } ]";
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    assert_true(t->resource->load_source("level", "levels/bad", bad, strlen(bad)) < 0);
    log__set_sink(NULL, NULL);
    if (!strstr(captured, "force_field.force: 1:14: unknown name 'hieght'") ||
        !strstr(captured, "twister"))
        fail_msg("got: %s", captured);
}

/* A field whose force on a body is finite but past the ranges (fx = 1e13 N: an explosion's 1 / d^2
 * near its centre) skips that force, as one that is not finite, and says so once for the field,
 * naming the world, the field's entity, the force and the body; the body inside the range is
 * pushed. Before, add_force refused the force with a line of the log for each body at every step
 * (ten steps, ten lines). */
static void fields_past_the_ranges_logged_once(void **state)
{
    (void)state;
    static const char level[] =
        "entities = [\n"
        "  { components = { transform = { position = [0 0 0] } force_field = { radius = 3.25 "
        "      force = \"fx = select(x < 0, 1e13, 10); fy = 0; fz = 0\" } } }\n"
        "  { components = { transform = { position = [-1 0 0] } body = { shape = \"sphere\" "
        "      radius = 0.25 mass = 10 } } }\n"
        "  { components = { transform = { position = [1 0 0] } body = { shape = \"sphere\" "
        "      radius = 0.25 mass = 10 } } }\n"
        "]\n";
    ct_entity_t made[3];
    const test_world_t *t = spawn_fields("fields_past", "levels/past", level, made, 3);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    for (int k = 0; k < 10; k++)
        physics->simulate(t->world, 0.01f);
    log__set_sink(NULL, NULL);
    char want[256];
    snprintf(want, sizeof want,
             "force_field: world %p, entity %u: force (1e+13, 0, 0) on entity %u skipped: past "
             "+-1e12 N",
             (void *)t->world, made[0].id, made[1].id);
    const char *first = strstr(captured, want);
    if (!first || strchr(first, '\n') != captured + strlen(captured) - 1)
        fail_msg("not once '%s': '%s'", want, captured);
    float v[3];
    assert_int_equal(physics->velocity(t->world, made[1], v), 0);
    assert_true(v[0] == 0.0f);
    assert_int_equal(physics->velocity(t->world, made[2], v), 0);
    assert_true(fabsf(v[0] - 0.1f) < 1e-4f);
    t->entity->destroy_batch(made, 3);
    t->resource->unload("level", "levels/past");

}

/* A compiled field edited behind the compiler's back (a radius NaN, negative or past 1e4) is
 * refused when its level loads, naming the entity and the field. Before, it loaded, and its radius
 * was refused by overlap_sphere at every step. */
static void fields_edited_blob_refused(void **state)
{
    (void)state;
    boot_fields("fields_blob");
    test_blob_t b = test_blob_compile(
        "level", "entities = [ { components = { transform = {} force_field = { radius = 3.25 "
                 "force = \"fx = 1; fy = 0; fz = 0\" } } } ]");
    const float radius = 3.25f;
    const size_t at = test_blob_find(&b, &radius, sizeof radius);
    const char *const words[] = {"entity 0", "force_field.radius", NULL};
    test_blob_refused(&b, at, NAN, words);
    test_blob_refused(&b, at, -1.0f, words);
    test_blob_refused(&b, at, 2e4f, words);
    test_blob_free(&b);
}

/* Each test's teardown: the log back to its own sink and the kernel down, so that a failing test
 * leaves neither to the next one's boot. */
static int fields_end(void **state)
{
    log__set_sink(NULL, NULL);
    return test_world_shutdown(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(fields_push_the_bodies_inside, fields_end),
        cmocka_unit_test_teardown(fields_past_the_ranges_logged_once, fields_end),
        cmocka_unit_test_teardown(fields_edited_blob_refused, fields_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
