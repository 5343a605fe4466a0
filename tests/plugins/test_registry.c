/* get_engine_api, introspection, v0 and v1 plugins side by side, frame hooks, --list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../sample_plugins/hello_v1/acme_greeter.h"
#include "ct_host.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_profiler.h"
#include "fixture.h"
#include "lua/lua_env.h"
#include "test_kernel.h"

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static const char *const both[] = {SAMPLE_PLUGIN("seed_adder"), SAMPLE_PLUGIN("hello_v1")};

static bool used(const char *who, uint32_t api, uint32_t version, bool answered)
{
    const ct_registry_api_v1 *r = registry__api_v1();
    for (uint32_t i = 0; i < r->api_use_count(); i++) {
        ct_api_use_t u;
        assert_true(r->api_use(i, &u));
        if (strcmp(u.who, who) == 0 && u.api == api && u.version == version &&
            u.answered == answered)
            return true;
    }
    return false;
}

static void v0_and_v1_plugins_side_by_side(void **state)
{
    (void)state;
    assert_int_equal(fixture_boot_paths(both, N(both)), 0);
    ct_plugin_info_t seed = fixture_info("seed_adder"), hello = fixture_info("acme.hello");
    assert_int_equal(seed.state, CT_PLUGIN_LOADED);
    assert_int_equal(seed.plugin_api, 0);
    assert_int_equal(seed.num_provides, 0);
    assert_int_equal(hello.state, CT_PLUGIN_LOADED);
    assert_int_equal(hello.plugin_api, 1);
    assert_int_equal(hello.version.major, 1);
    assert_int_equal(hello.num_requires, 3);
    assert_int_equal(hello.provides[0].id, ACME_GREETER_API);
    /* The seed's plugin, unchanged: Plugin.test(a, b) adds. */
    assert_int_equal(lua_env__run_string("assert(Plugin.test(2, 3) == 5)", "seed"), 0);
    assert_int_equal(lua_env__run_string("assert(Hello.greet('you') == 'Hello, you!')", "hello"),
                     0);
    assert_int_equal(fixture_shutdown(), 0);
}

static void engine_api_tables_are_stable_copies(void **state)
{
    (void)state;
    assert_int_equal(fixture_boot_paths(both, N(both)), 0);
    const acme_greeter_api_v1 *g = registry__get_engine_api(ACME_GREETER_API, 1);
    assert_non_null(g);
    assert_ptr_equal(registry__get_engine_api(ACME_GREETER_API, 1), g);
    assert_null(registry__get_engine_api(ACME_GREETER_API, 2));
    char buf[32];
    assert_int_equal(g->greet("C", buf, sizeof buf), strlen("Hello, C!"));
    assert_string_equal(buf, "Hello, C!");
    assert_int_equal(g->greetings(), 1);

    /* Uses are recorded once each, with who asked. */
    assert_true(used("seed_adder", CT_LUA_API, 0, true));
    assert_true(used("acme.hello", CT_LOG_API, 1, true));
    assert_true(used("kernel", ACME_GREETER_API, 1, true));
    assert_true(used("kernel", ACME_GREETER_API, 2, false));
    uint32_t uses = registry__api_v1()->api_use_count();
    registry__get_engine_api(ACME_GREETER_API, 1);
    assert_int_equal(registry__api_v1()->api_use_count(), uses);
    assert_string_equal(registry__api_v1()->api_name(ACME_GREETER_API), "acme.greeter");
    assert_string_equal(registry__api_v1()->api_name(CT_LUA_API), "ct.lua");
    assert_int_equal(fixture_shutdown(), 0);
}

static void frame_hooks_run_in_order(void **state)
{
    (void)state;
    assert_int_equal(fixture_boot_paths(both, N(both)), 0);
    for (int i = 0; i < 3; i++) {
        loader__frame_begin(1.0 / 60);
        loader__frame_end(1.0 / 60);
    }
    assert_int_equal(lua_env__run_string("assert(Hello.frames() == 3)", "frames"), 0);
    assert_int_equal(fixture_shutdown(), 0);
}

static void list_prints_every_plugin(void **state)
{
    (void)state;
    const char *paths[] = {SAMPLE_PLUGIN("hello_v1"), TEST_PLUGIN("needs_x2")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    loader__print_list(f);
    assert_true(ftell(f) > 0);
    fclose(f);
    assert_int_equal(fixture_shutdown(), 0);
}

/* --list prints a requirement's range and the version it chose, does not call the chosen version
 * of a range "used but not declared", and does not blame a plugin for the kernel APIs ct_module.h
 * asks for on its behalf (before: "ct.lua v0", and "Used but not declared: test.v2 asked for
 * ct.lua v1", "acme.hello asked for ct.log v1"; issue 25, defect 4). */
static void list_prints_ranges_and_blames_no_one_for_declared_uses(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("context_v1"), TEST_PLUGIN("prov_a"),
                           SAMPLE_PLUGIN("hello_v1")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    loader__print_list(f);
    char text[8192] = {0};
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(n > 0);
    assert_non_null(strstr(text, "ct.lua v0-v1 (v1 chosen)"));
    assert_non_null(strstr(text, "test.x v1-v3 (v1 chosen) (optional)"));
    assert_null(strstr(text, "Used but not declared"));
    assert_int_equal(fixture_shutdown(), 0);
}

static void shut_down_plugins_answer_nothing(void **state)
{
    (void)state;
    assert_int_equal(fixture_boot_paths(both, N(both)), 0);
    loader__shutdown();
    assert_int_equal(fixture_state("acme.hello"), CT_PLUGIN_SHUT_DOWN);
    assert_null(registry__get_engine_api(ACME_GREETER_API, 1));
    /* Its Lua functions raise instead of jumping into unloaded code. */
    assert_int_equal(lua_env__run_string("Hello.greet('x')", "after"), CT_ERR_LUA);
    assert_int_equal(fixture_shutdown(), 0);
}

/* The fixture registers the kernel's own list of APIs, so plugins tested here see what they see
 * under `cuttle`, including the APIs a copied list once left out. */
static void the_fixture_serves_the_kernels_apis(void **state)
{
    (void)state;
    assert_int_equal(fixture_boot_paths(NULL, 0), 0);
    const ct_registry_api_v1 *r = registry__api_v1();
    assert_non_null(registry__get_engine_api(CT_JOBS_API, 1));
    assert_string_equal(r->api_name(CT_JOBS_API), "ct.jobs");
    assert_non_null(registry__get_engine_api(CT_HOST_API, 1));
    assert_string_equal(r->api_name(CT_HOST_API), "ct.host");
    assert_non_null(registry__get_engine_api(CT_PROFILER_API, 1));
    assert_string_equal(r->api_name(CT_PROFILER_API), "ct.profiler");
    assert_int_equal(fixture_shutdown(), 0);
}

static void the_real_kernel_boots_the_samples(void **state)
{
    (void)state;
    assert_int_equal(test_kernel_boot(both, N(both)), 0);
    assert_int_equal(fixture_state("seed_adder"), CT_PLUGIN_LOADED);
    assert_int_equal(lua_env__run_string("assert(Plugin.test(2, 3) == 5)", "seed"), 0);
    assert_int_equal(kernel__frame(1.0 / 60), 0);
    assert_int_equal(test_kernel_shutdown(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v0_and_v1_plugins_side_by_side),
        cmocka_unit_test(engine_api_tables_are_stable_copies),
        cmocka_unit_test(frame_hooks_run_in_order),
        cmocka_unit_test(list_prints_every_plugin),
        cmocka_unit_test(list_prints_ranges_and_blames_no_one_for_declared_uses),
        cmocka_unit_test(shut_down_plugins_answer_nothing),
        cmocka_unit_test(the_fixture_serves_the_kernels_apis),
        cmocka_unit_test(the_real_kernel_boots_the_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
