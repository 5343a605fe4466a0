/* Plugin API v2 next to v0 and v1: the context pointer reaches every callback, requirements take
 * a range of versions and the plugin learns which it got, the host tells the kernel's version,
 * and a refused reload hands the old code its state back through reload_abort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/log.h"
#include "ct_version.h"
#include "fixture.h"
#include "lua/lua_env.h"
#include "ct_world.h"
#include "test_plugins.h"

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static const test_v2_api_v1 *v2_api(void)
{
    const test_v2_api_v1 *t = registry__get_engine_api(TEST_V2_API, 1);
    assert_non_null(t);
    return t;
}

static void v0_v1_and_v2_plugins_load_side_by_side(void **state)
{
    (void)state;
    const char *paths[] = {SAMPLE_PLUGIN("seed_adder"), SAMPLE_PLUGIN("hello_v1"),
                           TEST_PLUGIN("context_v1"), SAMPLE_PLUGIN("weather")};
    loader_desc_t desc = {.plugin_paths = paths, .num_plugin_paths = N(paths), .strict = true};
    assert_int_equal(fixture_boot(&desc), 0);
    assert_int_equal(fixture_info("seed_adder").plugin_api, 0);
    assert_int_equal(fixture_info("acme.hello").plugin_api, 1);
    assert_int_equal(fixture_info("test.v2").plugin_api, 2);
    assert_int_equal(fixture_info("acme.weather").plugin_api, 2);
    for (int frame = 0; frame < 3; frame++) {
        loader__frame_begin(1.0 / 60);
        loader__frame_end(1.0 / 60);
    }
    const test_v2_api_v1 *t = v2_api();
    assert_int_equal(t->frames(), 3);
    assert_true(t->context_always_right());
    /* The highest offered version of each range; an optional one nobody offers is absent. */
    assert_int_equal(t->chosen_lua(), 1);
    assert_int_equal(t->chosen_x(), CT_API_ABSENT);
    /* The kernel tells a plugin its own version: this SDK's (0.2 since release 0.2.0). */
    assert_int_equal(t->kernel_minor(), CT_SDK_VERSION_MINOR);
    assert_int_equal(CT_SDK_VERSION_MINOR, 2);
    assert_int_equal(t->plugin_api_max(), 2);
    assert_int_equal(lua_env__run_string("assert(Plugin.test(2, 3) == 5)", "v0"), 0);
    assert_int_equal(lua_env__run_string("assert(Hello.greet('v1') == 'Hello, v1!')", "v1"), 0);
    assert_int_equal(
        lua_env__run_string(
            "assert(Weather.forecast('Oslo') == 'sun' and Weather.forecasts() == 1)", "v2"),
        0);
    assert_int_equal(fixture_shutdown(), 0);
}

/* test.x is offered at v1 by prov_a: the range 1..3 picks it. */
static void a_range_picks_the_highest_offered_version(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("context_v1"), TEST_PLUGIN("prov_a")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(v2_api()->chosen_x(), 1);
    /* The provider loads first, as for any requirement. */
    assert_int_equal(fixture_info("prov_a").load_index, 0);
    assert_int_equal(fixture_shutdown(), 0);
}

static void a_v2_plugin_reloads_and_gets_its_state_back_when_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuttle-v2-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/context.so", dir);
    uv_fs_t req;
    assert_int_equal(uv_fs_copyfile(NULL, &req, TEST_PLUGIN("context_v1"), path, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    const char *paths[] = {path};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    const test_v2_api_v1 *t = v2_api();
    loader__frame_end(0.0);
    assert_int_equal(t->code_version(), 1);

    assert_int_equal(uv_fs_copyfile(NULL, &req, TEST_PLUGIN("context_v2"), path, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(loader__reload("test.v2"), 0);
    assert_int_equal(t->code_version(), 2);
    loader__frame_end(0.0);
    assert_int_equal(t->frames(), 2); /* the state came across */
    assert_int_equal(t->aborts(), 0);

    assert_int_equal(uv_fs_copyfile(NULL, &req, TEST_PLUGIN("context_refuses"), path, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(loader__reload("test.v2"), CT_ERR_VERSION);
    assert_int_equal(t->code_version(), 2);
    assert_int_equal(t->aborts(), 1);
    loader__frame_begin(0.0);
    loader__frame_end(0.0);
    assert_int_equal(t->frames(), 3);
    assert_true(t->context_always_right());
    assert_int_equal(fixture_shutdown(), 0);
    remove(path);
    rmdir(dir);
}

/* Lua API functions that raise are safe in init and frame hooks: the error is caught there. */
static void a_lua_error_in_a_hook_is_caught(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("raises_in_init"), TEST_PLUGIN("raises_in_frame"),
                           TEST_PLUGIN("context_v1")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    ct_plugin_info_t init = fixture_info("raises_in_init");
    assert_int_equal(init.state, CT_PLUGIN_FAILED);
    assert_non_null(strstr(init.error, "CT_ERR_LUA"));
    assert_int_equal(fixture_state("raises_in_frame"), CT_PLUGIN_LOADED);
    loader__frame_begin(0.0);
    loader__frame_end(0.0);
    /* The frame went on: the plugin after it ran its hooks. */
    assert_int_equal(v2_api()->frames(), 1);
    assert_int_equal(fixture_state("raises_in_frame"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_shutdown(), 0);
}

/* A C plugin reaches the worlds through ct.world v2 and hears of each created and destroyed; the
 * listener of a plugin whose init failed is dropped, never called. */
static void a_plugin_walks_the_worlds_and_hears_of_them(void **state)
{
    (void)state;
    unsetenv("CT_TEST_FAILED_WATCHER_CALLED");
    const char *paths[] = {CT_TEST_BUILD_ROOT "/modules/entities/ct_entities.so",
                           TEST_PLUGIN("world_watcher_fails"), TEST_PLUGIN("world_watcher")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("test.failed_watcher"), CT_PLUGIN_FAILED);
    assert_int_equal(fixture_state("test.watcher"), CT_PLUGIN_LOADED);
    const ct_world_api_v2 *worlds = registry__get_engine_api(CT_WORLD_API, 2);
    const test_worlds_api_v1 *seen = registry__get_engine_api(TEST_WORLDS_API, 1);
    assert_non_null(worlds);
    assert_non_null(seen);
    ct_world_o *a = worlds->create_world(NULL);
    ct_world_o *b = worlds->create_world(&(ct_world_desc_t){.name = "b"});
    assert_int_equal(worlds->world_count(), 2);
    assert_true((worlds->world_at(0) == a && worlds->world_at(1) == b) ||
                (worlds->world_at(0) == b && worlds->world_at(1) == a));
    assert_null(worlds->world_at(2));
    worlds->destroy_world(a);
    assert_int_equal(worlds->world_count(), 1);
    assert_int_equal(seen->created(), 2);
    assert_int_equal(seen->destroyed(), 1);
    assert_int_equal(seen->listed_right(), 3);
    worlds->destroy_world(b);
    assert_int_equal(seen->destroyed(), 2);
    assert_null(getenv("CT_TEST_FAILED_WATCHER_CALLED"));
    assert_int_equal(fixture_shutdown(), 0);
}

/* A component type goes with the plugin that registered it: after that plugin's init failed,
 * no world gets a manager of it (its code is never called again). */
static void a_component_type_goes_with_its_plugin(void **state)
{
    (void)state;
    unsetenv("CT_TEST_COMPONENT_MANAGER_MADE");
    const char *paths[] = {CT_TEST_BUILD_ROOT "/modules/entities/ct_entities.so",
                           TEST_PLUGIN("component_orphan")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("component_orphan"), CT_PLUGIN_FAILED);
    const ct_world_api_v2 *worlds = registry__get_engine_api(CT_WORLD_API, 2);
    const ct_component_api_v1 *component = registry__get_engine_api(CT_COMPONENT_API, 1);
    ct_world_o *w = worlds->create_world(NULL);
    assert_non_null(w);
    assert_null(getenv("CT_TEST_COMPONENT_MANAGER_MADE"));
    assert_null(component->manager(w, component->type_id("orphan")));
    worlds->destroy_world(w);
    assert_int_equal(fixture_shutdown(), 0);
}

static char errors[4096];

static void keep_errors(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)tag;
    size_t used = strlen(errors);
    if (level == CT_LOG_ERROR)
        snprintf(errors + used, sizeof errors - used, "%s\n", text);
}

/* A component type registered twice names the plugin that has it (before: "is already
 * registered", by nobody in particular). */
static void a_taken_component_type_names_its_owner(void **state)
{
    (void)state;
    errors[0] = '\0';
    const char *paths[] = {CT_TEST_BUILD_ROOT "/modules/entities/ct_entities.so",
                           TEST_PLUGIN("health_a"), TEST_PLUGIN("health_b")};
    log__set_sink(keep_errors, NULL);
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    log__set_sink(NULL, NULL);
    assert_int_equal(fixture_state("health_a"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_state("health_b"), CT_PLUGIN_FAILED);
    assert_non_null(strstr(errors,
                           "register_type: component type 'health' is already registered by "
                           "plugin 'health_a'"));
    assert_int_equal(fixture_shutdown(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v0_v1_and_v2_plugins_load_side_by_side),
        cmocka_unit_test(a_taken_component_type_names_its_owner),
        cmocka_unit_test(a_range_picks_the_highest_offered_version),
        cmocka_unit_test(a_v2_plugin_reloads_and_gets_its_state_back_when_refused),
        cmocka_unit_test(a_lua_error_in_a_hook_is_caught),
        cmocka_unit_test(a_plugin_walks_the_worlds_and_hears_of_them),
        cmocka_unit_test(a_component_type_goes_with_its_plugin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
