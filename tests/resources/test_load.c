/* The type registry and the life of a loaded resource: load_source, counted loads, get, unload,
 * unregister. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "fixture.h"
#include "resources/resources.h"
#include "test_type.h"

static const char source[] = "// a comment\nvalues = [3 1 -4]\nlabel = \"pi\"\n";

static void registering_checks_the_type(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    ct_resource_type_t t = test_type(1, NULL);
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->register_type(&t), CT_ERR_CONFLICT);
    ct_resource_type_t bad = t;
    bad.type = "Level";
    assert_int_equal(api->register_type(&bad), CT_ERR_INVALID);
    bad.type = "a.b";
    assert_int_equal(api->register_type(&bad), CT_ERR_INVALID);
    bad.type = "";
    assert_int_equal(api->register_type(&bad), CT_ERR_INVALID);
    bad = t;
    bad.type = "other";
    bad.load = NULL;
    assert_int_equal(api->register_type(&bad), CT_ERR_INVALID);
    assert_int_equal(api->register_type(NULL), CT_ERR_INVALID);
    api->unregister_type(TEST_TYPE);
    assert_int_equal(api->register_type(&t), 0);
}

static void load_source_round_trip(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    test_type_counters_t counters = {0};
    ct_resource_type_t t = test_type(1, &counters);
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->load_source(TEST_TYPE, "maths/pi", source, strlen(source)), 0);
    const test_numbers_t *n = api->get(TEST_TYPE, "maths/pi");
    assert_non_null(n);
    assert_int_equal(n->count, 3);
    assert_int_equal(n->values[0], 3);
    assert_int_equal(n->values[1], 1);
    assert_int_equal(n->values[2], -4);
    assert_string_equal(n->label, "pi");
    assert_int_equal(counters.compiles, 1);
    assert_int_equal(counters.loads, 1);
    api->unload(TEST_TYPE, "maths/pi");
    assert_null(api->get(TEST_TYPE, "maths/pi"));
    assert_int_equal(counters.unloads, 1);
}

static void loads_are_counted(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    test_type_counters_t counters = {0};
    ct_resource_type_t t = test_type(1, &counters);
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->load_source(TEST_TYPE, "a", source, strlen(source)), 0);
    assert_int_equal(api->load_source(TEST_TYPE, "a", source, strlen(source)), 0);
    assert_int_equal(api->load_source(TEST_TYPE, "b", source, strlen(source)), 0);
    assert_int_equal(counters.loads, 2);
    void *a = api->get(TEST_TYPE, "a");
    api->unload(TEST_TYPE, "a");
    assert_ptr_equal(api->get(TEST_TYPE, "a"), a);
    assert_int_equal(counters.unloads, 0);
    api->unload(TEST_TYPE, "a");
    assert_null(api->get(TEST_TYPE, "a"));
    assert_int_equal(counters.unloads, 1);
    /* One unload too many is reported and harmless. */
    api->unload(TEST_TYPE, "a");
    assert_int_equal(counters.unloads, 1);
    assert_non_null(api->get(TEST_TYPE, "b"));
    /* Unregistering unloads what is left, whatever its count. */
    assert_int_equal(api->load_source(TEST_TYPE, "b", source, strlen(source)), 0);
    api->unregister_type(TEST_TYPE);
    assert_int_equal(counters.unloads, 2);
    assert_null(api->get(TEST_TYPE, "b"));
}

/* A hot reload hands a type new callbacks: what is loaded stays loaded and the new unload
 * releases it. The name and format must match. */
static void replacing_keeps_loaded_resources(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    test_type_counters_t before = {0}, after = {0};
    ct_resource_type_t t = test_type(1, &before);
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->load_source(TEST_TYPE, "a", source, strlen(source)), 0);
    const void *a = api->get(TEST_TYPE, "a");
    ct_resource_type_t other = test_type(2, &after);
    assert_int_equal(api->replace_type(&other), CT_ERR_VERSION);
    other = test_type(1, &after);
    other.type = "missing";
    assert_int_equal(api->replace_type(&other), CT_ERR_NOT_FOUND);
    other.type = TEST_TYPE;
    other.load = NULL;
    assert_int_equal(api->replace_type(&other), CT_ERR_INVALID);
    other = test_type(1, &after);
    assert_int_equal(api->replace_type(&other), 0);
    assert_ptr_equal(api->get(TEST_TYPE, "a"), a);
    assert_int_equal(api->load_source(TEST_TYPE, "b", source, strlen(source)), 0);
    api->unregister_type(TEST_TYPE);
    assert_int_equal(before.loads, 1);
    assert_int_equal(before.unloads, 0);
    assert_int_equal(after.loads, 1);
    assert_int_equal(after.unloads, 2);
}

static void load_source_refuses_bad_input(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    test_type_counters_t counters = {0};
    ct_resource_type_t t = test_type(1, &counters);
    assert_int_equal(api->register_type(&t), 0);
    const char *no_values = "label = \"x\"";
    const char *broken = "values = [1 2";
    assert_int_equal(api->load_source(TEST_TYPE, "x", no_values, strlen(no_values)),
                     CT_ERR_BAD_DATA);
    assert_int_equal(api->load_source(TEST_TYPE, "x", broken, strlen(broken)), CT_ERR_BAD_DATA);
    assert_int_equal(api->load_source(TEST_TYPE, "X", source, strlen(source)), CT_ERR_INVALID);
    assert_int_equal(api->load_source("nope", "x", source, strlen(source)), CT_ERR_NOT_FOUND);
    /* Only the first `len` bytes are source: cut inside the array, it no longer parses. */
    assert_int_equal(api->load_source(TEST_TYPE, "x", source, 24), CT_ERR_BAD_DATA);
    assert_null(api->get(TEST_TYPE, "x"));
    assert_int_equal(counters.loads, 0);
}

static void load_without_a_project_is_not_found(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    ct_resource_type_t t = test_type(1, NULL);
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->load(TEST_TYPE, "a"), CT_ERR_NOT_FOUND);
    assert_int_equal(api->load("nope", "a"), CT_ERR_NOT_FOUND);
    assert_null(api->get("nope", "a"));
    assert_null(api->get(NULL, NULL));
    api->unload("nope", "a");
    api->unregister_type("nope");
}

/* Compile callbacks see the source path, the size written so far, and strict mode. */
static uint64_t seen_written;
static const char *seen_path;

static int probing_compile(void *user_data, const struct ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    (void)src;
    const ct_resource_api_v1 *api = resources__api_v1();
    api->write(ctx, "abc", 3);
    seen_written = api->written(ctx);
    seen_path = api->source_path(ctx);
    api->compile_warning(ctx, "only a warning");
    return 0;
}

static void *raw_load(void *user_data, const void *payload, uint64_t size, char *err,
                      size_t err_size)
{
    (void)user_data;
    (void)err;
    (void)err_size;
    return size == 3 && memcmp(payload, "abc", 3) == 0 ? (void *)payload : NULL;
}

static void compile_context_functions(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    ct_resource_type_t raw = {.type = "raw", .compile = probing_compile, .load = raw_load};
    assert_int_equal(api->register_type(&raw), 0);
    assert_false(api->strict());
    assert_int_equal(api->load_source("raw", "dir/thing", "", 0), 0);
    assert_int_equal(seen_written, 3);
    assert_string_equal(seen_path, "dir/thing.raw");
    assert_memory_equal(api->get("raw", "dir/thing"), "abc", 3);
    api->unload("raw", "dir/thing");
}

static void strict_mode_turns_warnings_into_errors(void **state)
{
    (void)state;
    resources__shutdown();
    assert_int_equal(resources__init(NULL, true), 0);
    const ct_resource_api_v1 *api = resources__api_v1();
    ct_resource_type_t raw = {.type = "raw", .compile = probing_compile, .load = raw_load};
    assert_int_equal(api->register_type(&raw), 0);
    assert_true(api->strict());
    assert_int_equal(api->load_source("raw", "thing", "", 0), CT_ERR_BAD_DATA);
    assert_null(api->get("raw", "thing"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(registering_checks_the_type, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(load_source_round_trip, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(loads_are_counted, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(replacing_keeps_loaded_resources, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(load_source_refuses_bad_input, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(load_without_a_project_is_not_found, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(compile_context_functions, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(strict_mode_turns_warnings_into_errors, fixture_setup,
                                        fixture_teardown),
    };
    return cmocka_run_group_tests_name("resources load", tests, NULL, NULL);
}
