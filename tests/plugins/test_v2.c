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

#include "fixture.h"
#include "lua/lua_env.h"
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
    assert_int_equal(t->kernel_minor(), 1);
    assert_int_equal(t->plugin_api_max(), 2);
    assert_int_equal(lua_env__run_string("assert(Plugin.test(2, 3) == 5)", "v0"), 0);
    assert_int_equal(lua_env__run_string("assert(Hello.greet('v1') == 'Hello, v1!')", "v1"), 0);
    assert_int_equal(lua_env__run_string("assert(Weather.forecast('Oslo') == 'sun' and Weather.forecasts() == 1)", "v2"), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v0_v1_and_v2_plugins_load_side_by_side),
        cmocka_unit_test(a_range_picks_the_highest_offered_version),
        cmocka_unit_test(a_v2_plugin_reloads_and_gets_its_state_back_when_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
