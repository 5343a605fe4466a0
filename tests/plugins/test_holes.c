/* The loader has no holes: one test, with a purpose-built plugin (bad/graph_plugin.c and
 * reload/counter.c, configured in meson.build), for each way a plugin could get past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ct_hash.h"
#include "ct_resource.h"
#include "fixture.h"
#include "lua/lua_env.h"
#include "test_plugins.h"

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

/* Immediate binding: the undefined symbol refuses the plugin at load, named, and the plugin that
 * only optionally needs it loads without it. */
static void an_undefined_symbol_is_refused_at_load(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("undefined_symbol"), TEST_PLUGIN("opt_needs_u")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("undefined_symbol"), CT_PLUGIN_FAILED);
    assert_non_null(
        strstr(fixture_info("undefined_symbol").error, "ct_test_symbol_nobody_defines"));
    assert_int_equal(fixture_state("opt_needs_u"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_shutdown(), 0);
}

/* init_fails provides test.f and fails its init: opt_needs_f loads without it. */
static void an_optional_requirement_survives_its_provider_failing_init(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("opt_needs_f"), TEST_PLUGIN("init_fails"),
                           TEST_PLUGIN("needs_f")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("init_fails"), CT_PLUGIN_FAILED);
    assert_int_equal(fixture_state("opt_needs_f"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_state("needs_f"), CT_PLUGIN_SKIPPED);
    assert_null(registry__get_engine_api(ct_hash32("test.f"), 1));
    assert_int_equal(fixture_shutdown(), 0);
}

/* reentrant's get_plugin_api calls get_engine_api; needs_re asks for its API in init. With plugin
 * code run under the registry lock this deadlocks (the test then times out). */
static void get_plugin_api_may_call_get_engine_api(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("reentrant"), TEST_PLUGIN("needs_re")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("reentrant"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_state("needs_re"), CT_PLUGIN_LOADED);
    const test_graph_api_v1 *g = registry__get_engine_api(ct_hash32("test.re"), 1);
    assert_non_null(g);
    assert_string_equal(g->who(), "reentrant");
    assert_int_equal(fixture_shutdown(), 0);
}

static void a_declared_api_answered_with_null_is_refused_at_load(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("answers_null")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    ct_plugin_info_t info = fixture_info("answers_null");
    assert_int_equal(info.state, CT_PLUGIN_FAILED);
    assert_non_null(strstr(info.error, "test.n v1"));
    assert_int_equal(fixture_shutdown(), 0);
}

/* early_user loads first and, in its frame hook, starts using late_provider's API without
 * declaring it: it must shut down before late_provider, not after (reverse load order). */
static void shutdown_respects_discovered_dependencies(void **state)
{
    (void)state;
    unsetenv("CT_TEST_SHUTDOWN_ORDER");
    const char *paths[] = {TEST_PLUGIN("early_user"), TEST_PLUGIN("late_provider")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_info("early_user").load_index, 0);
    assert_int_equal(fixture_info("late_provider").load_index, 1);
    loader__frame_begin(0.0);
    assert_int_equal(fixture_shutdown(), 0);
    assert_string_equal(getenv("CT_TEST_SHUTDOWN_ORDER"), " early_user late_provider");
}

/* Without the frame no use was seen, so the plain reverse load order holds. */
static void shutdown_is_reverse_load_order_otherwise(void **state)
{
    (void)state;
    unsetenv("CT_TEST_SHUTDOWN_ORDER");
    const char *paths[] = {TEST_PLUGIN("early_user"), TEST_PLUGIN("late_provider")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_shutdown(), 0);
    assert_string_equal(getenv("CT_TEST_SHUTDOWN_ORDER"), " late_provider early_user");
}

static void two_plugins_registering_one_lua_name_is_an_error_naming_both(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("lua_a"), TEST_PLUGIN("lua_b")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("lua_a"), CT_PLUGIN_LOADED);
    ct_plugin_info_t b = fixture_info("lua_b");
    assert_int_equal(b.state, CT_PLUGIN_FAILED);
    assert_non_null(strstr(b.error, "Clash.fn"));
    assert_non_null(strstr(b.error, "lua_a"));
    /* lua_a keeps the name. */
    assert_int_equal(lua_env__run_string("Clash.fn()", "clash"), 0);
    assert_int_equal(fixture_shutdown(), 0);
}

/* What a plugin registered goes with it when its init fails: the name is free for another. */
static void what_a_failed_init_registered_is_removed(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("lua_init_fails")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("lua_init_fails"), CT_PLUGIN_FAILED);
    assert_int_equal(lua_env__run_string("Clash.fn()", "gone"), CT_ERR_LUA);
    const char *more[] = {TEST_PLUGIN("lua_a")};
    assert_int_equal(loader__load(&(loader_desc_t){.plugin_paths = more, .num_plugin_paths = 1}),
                     0);
    assert_int_equal(fixture_state("lua_a"), CT_PLUGIN_LOADED);
    assert_int_equal(lua_env__run_string("Clash.fn()", "taken"), 0);
    assert_int_equal(fixture_shutdown(), 0);
}

/* Resource types go with their plugin: when its init fails, and when it shuts down without
 * unregistering them. */
static void resource_types_go_with_their_plugin(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("type_init_fails"), TEST_PLUGIN("type_left_behind")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("type_init_fails"), CT_PLUGIN_FAILED);
    assert_int_equal(fixture_state("type_left_behind"), CT_PLUGIN_LOADED);
    const ct_resource_api_v1 *r = registry__get_engine_api(CT_RESOURCE_API, 1);
    ct_resource_type_t owned = {
        .type = "owned", .compile = test_compile_nothing, .load = test_load_nothing};
    ct_resource_type_t kept = {
        .type = "kept", .compile = test_compile_nothing, .load = test_load_nothing};
    assert_int_equal(r->register_type(&owned), 0);
    assert_int_equal(r->register_type(&kept), CT_ERR_CONFLICT);
    r->unregister_type("owned");
    loader__shutdown();
    /* Shut down: its type is gone with it. */
    assert_int_equal(r->register_type(&kept), 0);
    r->unregister_type("kept");
    assert_int_equal(fixture_shutdown(), 0);
}

/* counter loads before prov_a; new code requiring prov_a's test.x would have to load after it. */
static void a_reload_that_would_change_the_load_order_is_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/cuttle-holes-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/counter.so", dir);
    uv_fs_t req;
    assert_int_equal(uv_fs_copyfile(NULL, &req, TEST_PLUGIN("counter_v1"), path, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    const char *paths[] = {path, TEST_PLUGIN("prov_a")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_true(fixture_info("counter").load_index < fixture_info("prov_a").load_index);
    assert_int_equal(uv_fs_copyfile(NULL, &req, TEST_PLUGIN("counter_needs_later"), path, 0, NULL),
                     0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(loader__reload("counter"), CT_ERR_VERSION);
    const test_counter_api_v1 *c = registry__get_engine_api(TEST_COUNTER_API, 1);
    assert_int_equal(c->code_version(), 1);
    assert_int_equal(fixture_info("counter").reload_count, 0);
    assert_int_equal(fixture_shutdown(), 0);
    remove(path);
    rmdir(dir);
}

/* lua_at_unmap looks at the Lua state when its library is unmapped: it must be closed by then. */
static void lua_is_closed_before_plugins_are_unmapped(void **state)
{
    (void)state;
    unsetenv("CT_TEST_LUA_AT_UNMAP");
    const char *paths[] = {TEST_PLUGIN("lua_at_unmap")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    assert_int_equal(fixture_state("lua_at_unmap"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_shutdown(), 0);
    assert_non_null(getenv("CT_TEST_LUA_AT_UNMAP"));
    assert_string_equal(getenv("CT_TEST_LUA_AT_UNMAP"), "closed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_undefined_symbol_is_refused_at_load),
        cmocka_unit_test(an_optional_requirement_survives_its_provider_failing_init),
        cmocka_unit_test(get_plugin_api_may_call_get_engine_api),
        cmocka_unit_test(a_declared_api_answered_with_null_is_refused_at_load),
        cmocka_unit_test(shutdown_respects_discovered_dependencies),
        cmocka_unit_test(shutdown_is_reverse_load_order_otherwise),
        cmocka_unit_test(two_plugins_registering_one_lua_name_is_an_error_naming_both),
        cmocka_unit_test(what_a_failed_init_registered_is_removed),
        cmocka_unit_test(resource_types_go_with_their_plugin),
        cmocka_unit_test(a_reload_that_would_change_the_load_order_is_refused),
        cmocka_unit_test(lua_is_closed_before_plugins_are_unmapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
