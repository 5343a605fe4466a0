/* Compiling a project folder, incrementally. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "compiler.h"
#include "test_type.h"

typedef struct counts_t {
    uint32_t compiled, up_to_date, failed;
} counts_t;

static const char *dir;
static test_type_counters_t counters;

static counts_t compile(int expect)
{
    counts_t c = {99, 99, 99};
    assert_int_equal(compiler__compile_project(dir, &c.compiled, &c.up_to_date, &c.failed), expect);
    return c;
}

static void expect_counts(counts_t c, uint32_t compiled, uint32_t up_to_date, uint32_t failed)
{
    assert_int_equal(c.compiled, compiled);
    assert_int_equal(c.up_to_date, up_to_date);
    assert_int_equal(c.failed, failed);
}

static void register_numbers(uint32_t format_version)
{
    ct_resource_type_t t = test_type(format_version, &counters);
    assert_int_equal(resources__api_v1()->register_type(&t), 0);
}

/* Three sources of the test type, one of another type nobody registered, a hidden file and a
 * stale file inside compiled/ that must not be taken for a source. All with old mtimes, so a
 * later rewrite always changes the mtime. */
static int make_project(void **state)
{
    (void)state;
    dir = fixture_make_dir();
    fixture_write(dir, "project.sjson", "modules = []\n");
    fixture_write(dir, "a.numbers", "values = [1 2 3]\n");
    fixture_write(dir, "levels/b.numbers", "values = [4]\nlabel = \"bee\"\n");
    fixture_write(dir, "levels/deep/c.numbers", "values = []\n");
    fixture_write(dir, "textures/d.texture", "whatever\n");
    fixture_write(dir, ".hidden.numbers", "values = [\n");
    fixture_write(dir, "compiled/e.numbers", "values = [\n");
    const char *files[] = {"a.numbers", "levels/b.numbers", "levels/deep/c.numbers"};
    for (int i = 0; i < 3; i++)
        fixture_set_mtime(dir, files[i], 1000000000);
    counters = (test_type_counters_t){0};
    fixture_start(dir);
    return 0;
}

static int remove_project(void **state)
{
    (void)state;
    fixture_stop();
    fixture_remove_dir(dir);
    return 0;
}

static void second_run_is_all_up_to_date(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    assert_int_equal(counters.compiles, 3);
    assert_true(fixture_exists(dir, "compiled/numbers/levels/deep/c.bin"));
    assert_true(fixture_exists(dir, "compiled/manifest.json"));
    expect_counts(compile(0), 0, 3, 0);
    assert_int_equal(counters.compiles, 3);

    const ct_resource_api_v1 *api = resources__api_v1();
    assert_int_equal(api->load(TEST_TYPE, "levels/b"), 0);
    const test_numbers_t *b = api->get(TEST_TYPE, "levels/b");
    assert_non_null(b);
    assert_int_equal(b->count, 1);
    assert_int_equal(b->values[0], 4);
    assert_string_equal(b->label, "bee");
    api->unload(TEST_TYPE, "levels/b");
}

static void touching_a_source_recompiles_only_it(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    fixture_set_mtime(dir, "levels/b.numbers", 1000000500);
    expect_counts(compile(0), 1, 2, 0);
    fixture_write(dir, "a.numbers", "values = [7 8 9]\n");
    expect_counts(compile(0), 1, 2, 0);
    expect_counts(compile(0), 0, 3, 0);
    const ct_resource_api_v1 *api = resources__api_v1();
    assert_int_equal(api->load(TEST_TYPE, "a"), 0);
    assert_int_equal(((const test_numbers_t *)api->get(TEST_TYPE, "a"))->values[0], 7);
    api->unload(TEST_TYPE, "a");
}

/* Same mtime, same size, other bytes: the content hash notices. */
static void an_edit_keeping_mtime_and_size_recompiles(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    fixture_write(dir, "a.numbers", "values = [1 2 4]\n");
    fixture_set_mtime(dir, "a.numbers", 1000000000);
    expect_counts(compile(0), 1, 2, 0);
}

static void a_new_format_version_recompiles_its_type(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    resources__api_v1()->unregister_type(TEST_TYPE);
    register_numbers(2);
    expect_counts(compile(0), 3, 0, 0);
    expect_counts(compile(0), 0, 3, 0);
    assert_int_equal(resources__api_v1()->load(TEST_TYPE, "a"), 0);
    resources__api_v1()->unload(TEST_TYPE, "a");
}

static void bad_sjson_fails_that_file_only(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    fixture_write(dir, "levels/b.numbers", "values = [4 \n");
    fixture_write(dir, "levels/new.numbers", "values = [5]\n");
    expect_counts(compile(CT_ERR_BAD_DATA), 1, 2, 1);
    /* The failed source lost its old blob: nothing stale is loaded. */
    assert_false(fixture_exists(dir, "compiled/numbers/levels/b.bin"));
    assert_int_equal(resources__api_v1()->load(TEST_TYPE, "levels/b"), CT_ERR_NOT_FOUND);
    /* It is tried again next time, and compiles once fixed. */
    expect_counts(compile(CT_ERR_BAD_DATA), 0, 3, 1);
    fixture_write(dir, "levels/b.numbers", "values = [4]\n");
    expect_counts(compile(0), 1, 3, 0);
}

static void a_compile_error_fails_that_file_only(void **state)
{
    (void)state;
    register_numbers(1);
    fixture_write(dir, "levels/deep/c.numbers", "values = \"not an array\"\n");
    expect_counts(compile(CT_ERR_BAD_DATA), 2, 0, 1);
}

static void deleting_a_source_deletes_its_blob(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/levels/deep/c.numbers", dir);
    assert_int_equal(remove(path), 0);
    expect_counts(compile(0), 0, 2, 0);
    assert_false(fixture_exists(dir, "compiled/numbers/levels/deep/c.bin"));
    assert_false(fixture_exists(dir, "compiled/numbers/levels/deep"));
    assert_true(fixture_exists(dir, "compiled/numbers/levels/b.bin"));
    /* A deleted blob with its source still there is rebuilt. */
    snprintf(path, sizeof path, "%s/compiled/numbers/a.bin", dir);
    assert_int_equal(remove(path), 0);
    expect_counts(compile(0), 1, 1, 0);
}

/* A run without the module that owns a type keeps that type's work. */
static void an_unregistered_type_keeps_its_blobs(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    resources__api_v1()->unregister_type(TEST_TYPE);
    expect_counts(compile(0), 0, 0, 0);
    assert_true(fixture_exists(dir, "compiled/numbers/a.bin"));
    register_numbers(1);
    expect_counts(compile(0), 0, 3, 0);
}

static void a_corrupt_manifest_means_a_full_rebuild(void **state)
{
    (void)state;
    register_numbers(1);
    expect_counts(compile(0), 3, 0, 0);
    const char *bad[] = {
        "{ not json",
        "{\"manifest_version\": 2, \"sources\": []}",
        "{\"manifest_version\": 1, \"sources\": {}}",
        "{\"manifest_version\": 1, \"sources\": [{\"path\": \"a.numbers\"}]}",
        /* One entry split over two lines (parenthesised so clang sees it is meant). */
        ("{\"manifest_version\": 1, \"sources\": [{\"path\": \"a.numbers\", \"mtime_sec\": 1, "
         "\"mtime_nsec\": 0.5, \"size\": 1, \"hash\": \"0000000000000000\", \"format\": 1}]}"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fixture_write(dir, "compiled/manifest.json", bad[i]);
        expect_counts(compile(0), 3, 0, 0);
    }
    expect_counts(compile(0), 0, 3, 0);
}

static void a_missing_project_is_not_created(void **state)
{
    (void)state;
    register_numbers(1);
    char missing[512];
    snprintf(missing, sizeof missing, "%s/nope", dir);
    uint32_t compiled = 9;
    assert_int_equal(compiler__compile_project(missing, &compiled, NULL, NULL), CT_ERR_NOT_FOUND);
    assert_int_equal(compiled, 0);
    assert_false(fixture_exists(dir, "nope"));
    assert_int_equal(compiler__compile_project(NULL, NULL, NULL, NULL), CT_ERR_INVALID);
}

/* The manifest's index by path stays right through puts, replacements and removals (a removal
 * moves the last entry into the hole and shifts probe chains back). */
static void the_manifest_finds_every_entry(void **state)
{
    (void)state;
    compiler_manifest_t m = {0};
    char path[64];
    for (uint32_t i = 0; i < 3000; i++) {
        snprintf(path, sizeof path, "s/%u.numbers", i);
        compiler_manifest_entry_t e = {.path = path, .stamp = {.size = i}, .provider = "kernel"};
        assert_int_equal(compiler__manifest_put(&m, &e), 0);
    }
    for (uint32_t i = 0; i < 3000; i += 3) {
        snprintf(path, sizeof path, "s/%u.numbers", i);
        compiler_manifest_entry_t *e = compiler__manifest_find(&m, path);
        assert_non_null(e);
        compiler__manifest_remove(&m, e);
    }
    /* A put of a path already there replaces its entry. */
    compiler_manifest_entry_t again = {.path = "s/1.numbers", .stamp = {.size = 7}};
    assert_int_equal(compiler__manifest_put(&m, &again), 0);
    assert_int_equal(m.count, 2000);
    for (uint32_t i = 0; i < 3000; i++) {
        snprintf(path, sizeof path, "s/%u.numbers", i);
        const compiler_manifest_entry_t *e = compiler__manifest_find(&m, path);
        if (i % 3 == 0) {
            assert_null(e);
            continue;
        }
        assert_non_null(e);
        assert_string_equal(e->path, path);
        assert_int_equal(e->stamp.size, i == 1 ? 7 : i);
    }
    assert_null(compiler__manifest_find(&m, "s/3000.numbers"));
    compiler__manifest_free(&m);
    assert_null(compiler__manifest_find(&m, "s/1.numbers"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(second_run_is_all_up_to_date, make_project, remove_project),
        cmocka_unit_test_setup_teardown(touching_a_source_recompiles_only_it, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(an_edit_keeping_mtime_and_size_recompiles, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(a_new_format_version_recompiles_its_type, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(bad_sjson_fails_that_file_only, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(a_compile_error_fails_that_file_only, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(deleting_a_source_deletes_its_blob, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(an_unregistered_type_keeps_its_blobs, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(a_corrupt_manifest_means_a_full_rebuild, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(a_missing_project_is_not_created, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(the_manifest_finds_every_entry, make_project,
                                        remove_project),
    };
    return cmocka_run_group_tests_name("resources compile", tests, NULL, NULL);
}
