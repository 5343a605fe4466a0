/* Canonical names and ids, and how a load spelled differently from the disk is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ct_hash.h"
#include "fixture.h"
#include "compiler.h"
#include "test_type.h"

static void accepts_canonical_names(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    const char *good[] = {"levels/arena", "a/b_c-1.x", "a", "units/crates/crate_01", "x.y.z/w"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char err[128] = "";
        assert_int_equal(api->check_name(good[i], err, sizeof err), 0);
    }
}

static void refuses_other_spellings(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    const char *bad[] = {"./a/../B//c", "a\\b",         "A/b",        "/a", "a/", "a//b",
                         "a/./b",       "a/../b",       "",           ".",  "..", "a b",
                         "a/\x01",      "levels/Arena", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[128] = "";
        assert_int_equal(api->check_name(bad[i], err, sizeof err), CT_ERR_INVALID);
        assert_true(err[0] != '\0');
    }
    assert_int_equal(api->check_name(NULL, NULL, 0), CT_ERR_INVALID);
}

static void refuses_names_over_the_limit(void **state)
{
    (void)state;
    char name[1024];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    assert_int_equal(resources__api_v1()->check_name(name, NULL, 0), CT_ERR_INVALID);
    /* Just inside the limit is fine, and one more byte is not. */
    size_t limit = 0;
    for (size_t n = 1; n < sizeof name; n++) {
        name[n] = '\0';
        if (resources__api_v1()->check_name(name, NULL, 0) != 0)
            break;
        limit = n;
        name[n] = 'a';
    }
    assert_true(limit >= 128);
    assert_true(limit < 1023);
}

static void ids_are_stable_hashes(void **state)
{
    (void)state;
    const ct_resource_api_v1 *api = resources__api_v1();
    ct_resource_id_t a = api->id("level", "levels/arena");
    ct_resource_id_t b = api->id("level", "levels/arena");
    assert_true(a.type == b.type && a.name == b.name);
    assert_true(a.type == ct_murmur64a("level", 5, 0));
    assert_true(a.name == ct_murmur64a("levels/arena", 12, 0));
    ct_resource_id_t c = api->id("unit", "levels/arena");
    assert_true(c.name == a.name && c.type != a.type);
    /* Baked into compiled data, so pinned: MurmurHash64A("", seed 0). */
    assert_true(api->id("", "").name == 0ull);
}

static void load_with_wrong_case_is_refused(void **state)
{
    (void)state;
    const char *dir = fixture_make_dir();
    fixture_write(dir, "levels/arena.numbers", "values = [1]");
    fixture_start(dir);
    test_type_counters_t counters = {0};
    ct_resource_type_t t = test_type(1, &counters);
    const ct_resource_api_v1 *api = resources__api_v1();
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->load(TEST_TYPE, "Levels/Arena"), CT_ERR_INVALID);
    assert_int_equal(api->load(TEST_TYPE, "./levels/arena"), CT_ERR_INVALID);
    /* Canonical but not compiled yet. */
    assert_int_equal(api->load(TEST_TYPE, "levels/arena"), CT_ERR_NOT_FOUND);
    assert_int_equal(compiler__compile_project(dir, NULL, NULL, NULL), 0);
    assert_int_equal(api->load(TEST_TYPE, "levels/arena"), 0);
    assert_int_equal(api->load(TEST_TYPE, "Levels/Arena"), CT_ERR_INVALID);
    assert_null(api->get(TEST_TYPE, "Levels/Arena"));
    api->unload(TEST_TYPE, "levels/arena");
    assert_int_equal(counters.loads, 1);
    assert_int_equal(counters.unloads, 1);
    fixture_stop();
    fixture_remove_dir(dir);
}

static void source_files_with_upper_case_fail_to_compile(void **state)
{
    (void)state;
    const char *dir = fixture_make_dir();
    fixture_write(dir, "Levels/Arena.numbers", "values = [1]");
    fixture_write(dir, "levels/ok.numbers", "values = [2]");
    fixture_start(dir);
    ct_resource_type_t t = test_type(1, NULL);
    const ct_resource_api_v1 *api = resources__api_v1();
    assert_int_equal(api->register_type(&t), 0);
    uint32_t compiled, up_to_date, failed;
    assert_int_equal(compiler__compile_project(dir, &compiled, &up_to_date, &failed),
                     CT_ERR_BAD_DATA);
    assert_int_equal(compiled, 1);
    assert_int_equal(failed, 1);
    /* Lower case is the canonical spelling, but the file on disk is not: still not found. */
    assert_int_equal(api->load(TEST_TYPE, "levels/arena"), CT_ERR_NOT_FOUND);
    assert_int_equal(api->load(TEST_TYPE, "Levels/Arena"), CT_ERR_INVALID);
    fixture_stop();
    fixture_remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(accepts_canonical_names, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(refuses_other_spellings, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(refuses_names_over_the_limit, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(ids_are_stable_hashes, fixture_setup, fixture_teardown),
        cmocka_unit_test(load_with_wrong_case_is_refused),
        cmocka_unit_test(source_files_with_upper_case_fail_to_compile),
    };
    return cmocka_run_group_tests_name("resources names", tests, NULL, NULL);
}
