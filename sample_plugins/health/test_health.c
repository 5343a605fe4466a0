/*
 * The example component plugin's own tests, on a real kernel (ct_test_kernel.h) with the
 * installed engine modules: `make test` builds and runs them against the installed SDK.
 * The plugin under test is plugins/acme_health.so, or the path in argv[1].
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "acme_health.h"
#include "ct_resource.h"
#include "ct_test_kernel.h"
#include "ct_world.h"

static const char *plugin = "plugins/acme_health.so";

static int boot(void **state)
{
    (void)state;
    return ct_test_kernel_boot(
        &(ct_test_kernel_desc_t){.plugins = &plugin, .num_plugins = 1, .strict = true});
}

/* The group fails when the plugin leaked: every block it took is given back at shutdown. */
static int shut(void **state)
{
    (void)state;
    return ct_test_kernel_shutdown() == 0 ? 0 : -1;
}

static int load_unit(const char *name, const char *source)
{
    const ct_resource_api_v1 *res = ct_test_kernel_api(CT_RESOURCE_API, 1);
    assert_non_null(res);
    return res->load_source("unit", name, source, strlen(source));
}

/* Spawned from a unit: the API reads, damages within [0, max], regenerates, and the instance is
 * collected once its entity died. */
static void spawn_damage_regenerate_collect(void **state)
{
    (void)state;
    const acme_health_api_v1 *health = ct_test_kernel_api(ACME_HEALTH_API, 1);
    const ct_world_api_v2 *worlds = ct_test_kernel_api(CT_WORLD_API, 2);
    const ct_entity_api_v1 *entities = ct_test_kernel_api(CT_ENTITY_API, 1);
    assert_non_null(health);
    assert_non_null(worlds);
    assert_non_null(entities);
    assert_int_equal(
        load_unit("units/test_hero",
                  "entities = [ { components = { health = { value = 80 regen = 4 } } } ]"),
        0);
    ct_world_o *w = worlds->create_world(NULL);
    assert_non_null(w);
    const ct_entity_t e = worlds->spawn_unit(w, "units/test_hero", NULL, NULL);
    assert_true(e.id != 0);
    float v = 0.0f;
    assert_true(health->value(w, e, &v));
    assert_true(v == 80.0f);
    assert_true(health->damage(w, e, 30.0f) == 50.0f);
    health->regenerate(w, 0.5f); /* +2 */
    assert_true(health->value(w, e, &v) && v == 52.0f);
    assert_true(health->damage(w, e, 1000.0f) == 0.0f);    /* not below 0 */
    assert_true(health->damage(w, e, -1000.0f) == 100.0f); /* nor above max (default 100) */
    assert_int_equal(health->count(w), 1);
    /* An entity without the component, and a dead one. */
    const ct_entity_t bare = entities->create();
    assert_false(health->value(w, bare, &v));
    assert_true(health->damage(w, bare, 1.0f) == -1.0f);
    entities->destroy(e);
    assert_int_equal(health->count(w), 1); /* collected lazily, not at once */
    worlds->collect_garbage(w);
    assert_int_equal(health->count(w), 0);
    assert_false(health->value(w, e, &v));
    entities->destroy(bare);
    worlds->destroy_world(w);
    assert_int_equal(health->count(w), 0); /* a destroyed world is not read */
}

/* The compiler refuses what the component cannot hold, naming the field (logged). */
static void bad_sources_are_refused(void **state)
{
    (void)state;
    assert_true(
        load_unit("units/over_max",
                  "entities = [ { components = { health = { value = 150 max = 100 } } } ]") < 0);
    assert_true(
        load_unit("units/no_max", "entities = [ { components = { health = { max = 0 } } } ]") < 0);
    assert_true(load_unit("units/misspelt",
                          "entities = [ { components = { health = { valeu = 10 } } } ]") < 0);
    assert_true(load_unit("units/wrong_type",
                          "entities = [ { components = { health = { value = \"full\" } } } ]") < 0);
}

/* The Lua module, and its refusals. */
static void lua_module(void **state)
{
    (void)state;
    assert_int_equal(ct_test_kernel_lua("local w = World.create()\n"
                                        "local e = World.spawn_unit(w, 'units/test_hero')\n"
                                        "assert(Health.value(w, e) == 80)\n"
                                        "assert(Health.damage(w, e, 100) == 0)\n"
                                        "assert(Health.count(w) == 1)\n"
                                        "assert(Health.value(w, Entity.create()) == nil)\n"
                                        "World.destroy(w)\n"),
                     0);
    assert_int_equal(ct_test_kernel_lua("Health.count(nil)"), CT_ERR_LUA);
    assert_int_equal(ct_test_kernel_lua("w = World.create()"), 0);
    assert_int_equal(ct_test_kernel_lua("Health.value(w, 0.5)"), CT_ERR_LUA);
    assert_int_equal(ct_test_kernel_lua("World.destroy(w) w = nil"), 0);
}

/* A hot reload of the plugin: the instances stay where they are (the managers belong to the
 * worlds), and the new code serves the Lua functions and compiles the component. */
static void reload_keeps_instances(void **state)
{
    (void)state;
    assert_int_equal(ct_test_kernel_lua("w = World.create()\n"
                                        "hero = World.spawn_unit(w, 'units/test_hero')\n"
                                        "assert(Health.damage(w, hero, 25) == 55)\n"),
                     0);
    assert_int_equal(ct_test_kernel_reload("acme.health"), 0);
    assert_int_equal(ct_test_kernel_lua("assert(Health.value(w, hero) == 55)\n"
                                        "assert(Health.count(w) == 1)\n"),
                     0);
    assert_int_equal(
        load_unit("units/after_reload", "entities = [ { components = { health = { max = 7 } } } ]"),
        0);
    assert_true(load_unit("units/bad_after_reload",
                          "entities = [ { components = { health = { max = -1 } } } ]") < 0);
    assert_int_equal(ct_test_kernel_lua(
                         "assert(Health.value(w, World.spawn_unit(w, 'units/after_reload')) == 7)\n"
                         "World.destroy(w) w, hero = nil, nil\n"),
                     0);
    assert_true(ct_test_kernel_reload("acme.nobody") < 0);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        plugin = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spawn_damage_regenerate_collect),
        cmocka_unit_test(bad_sources_are_refused),
        cmocka_unit_test(lua_module),
        cmocka_unit_test(reload_keeps_instances),
    };
    return cmocka_run_group_tests(tests, boot, shut);
}
