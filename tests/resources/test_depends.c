/* Files a resource is built from besides its source (ct_resource_api_v4.source_file and
 * depends_on), and warnings under --strict: when cuttle-compile's project compile runs again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/memory.h"
#include "data/sjson.h"
#include "fixture.h"
#include "compiler.h"

static const char *dir;
static uint32_t compiles;

/*
 * The type "listing":
 *     include = ["data/one.txt"]    files read through source_file; the payload is their bytes
 *     depends = ["data/Extra.BIN"]  files only noted through depends_on
 *     warn = true                   a warning
 */
static int compile_listing(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_resource_api_v4 *res = resources__api_v4();
    const ct_data_api_v1 *data = data__api_v1();
    compiles++;
    const ct_data_o *list = data->get(source, "include");
    for (const ct_data_o *f = data->first_child(list); f; f = data->next(f)) {
        char path[RESOURCES_PATH_SIZE];
        const char *name = data->string(f, NULL);
        if (!res->source_file(ctx, "include", name, path, sizeof path))
            return CT_ERR_BAD_DATA;
        uint64_t size;
        uint8_t *bytes = resources__read_file(path, &size);
        if (!bytes) {
            res->compile_error(ctx, "include: %s: cannot read it", name);
            return CT_ERR_BAD_DATA;
        }
        res->write(ctx, bytes, size);
        ct_free(resources__allocator(), bytes, (size_t)size + 1);
    }
    list = data->get(source, "depends");
    for (const ct_data_o *f = data->first_child(list); f; f = data->next(f))
        if (!res->depends_on(ctx, "depends", data->string(f, NULL)))
            return CT_ERR_BAD_DATA;
    if (data->boolean(data->get(source, "warn"), false))
        res->compile_warning(ctx, "warn: as asked");
    return 0;
}

static void *load_listing(void *user_data, const void *payload, uint64_t size, char *err,
                          size_t err_size)
{
    (void)user_data, (void)size, (void)err, (void)err_size;
    return (void *)payload;
}

static void start(bool strict)
{
    assert_int_equal(memory__init(MEMORY_DEBUG_FILL | MEMORY_DEBUG_CANARY), 0);
    assert_int_equal(resources__init(dir, strict), 0);
    static const ct_resource_type_t listing = {"listing",    1,   NULL, compile_listing,
                                               load_listing, NULL};
    assert_int_equal(resources__api_v4()->register_type(&listing), 0);
}

static int make_project(void **state)
{
    (void)state;
    dir = fixture_make_dir();
    fixture_write(dir, "data/one.txt", "one\n");
    fixture_write(dir, "data/two.txt", "two\n");
    fixture_write(dir, "data/Extra.BIN", "extra\n");
    fixture_write(dir, "l.listing", "include = [\"data/one.txt\"]\n");
    fixture_write(dir, "m.listing",
                  "include = [\"data/two.txt\" \"data/two.txt\"] depends = [\"data/Extra.BIN\"]\n");
    const char *files[] = {"data/one.txt", "data/two.txt", "data/Extra.BIN", "l.listing",
                           "m.listing"};
    for (int i = 0; i < 5; i++)
        fixture_set_mtime(dir, files[i], 1000000000);
    compiles = 0;
    start(false);
    return 0;
}

static int remove_project(void **state)
{
    (void)state;
    fixture_stop();
    fixture_remove_dir(dir);
    return 0;
}

static void restart(bool strict)
{
    fixture_stop();
    start(strict);
}

/* Runs a project compile, wanting `rc` and the three counts. */
static void compile(int rc, uint32_t compiled, uint32_t up_to_date, uint32_t failed)
{
    uint32_t c = 99, u = 99, f = 99;
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), rc);
    assert_int_equal(c, compiled);
    assert_int_equal(u, up_to_date);
    assert_int_equal(f, failed);
}

static void expect_payload(const char *name, const char *text)
{
    const ct_resource_api_v1 *api = resources__api_v1();
    assert_int_equal(api->load("listing", name), 0);
    assert_memory_equal(api->get("listing", name), text, strlen(text));
    api->unload("listing", name);
}

static void a_changed_file_recompiles_what_was_built_from_it(void **state)
{
    (void)state;
    compile(0, 2, 0, 0);
    compile(0, 0, 2, 0);
    assert_int_equal(compiles, 2);
    /* Touched, edited in place (same mtime and size), or only noted: each recompiles its user. */
    fixture_set_mtime(dir, "data/one.txt", 1000000500);
    compile(0, 1, 1, 0);
    fixture_write(dir, "data/two.txt", "TWO\n");
    fixture_set_mtime(dir, "data/two.txt", 1000000000);
    compile(0, 1, 1, 0);
    expect_payload("m", "TWO\nTWO\n");
    fixture_write(dir, "data/Extra.BIN", "more extra\n");
    compile(0, 1, 1, 0);
    compile(0, 0, 2, 0);
    assert_int_equal(compiles, 5);
    expect_payload("l", "one\n");
}

static void a_deleted_file_fails_what_reads_it(void **state)
{
    (void)state;
    compile(0, 2, 0, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/data/one.txt", dir);
    assert_int_equal(remove(path), 0);
    compile(CT_ERR_BAD_DATA, 0, 1, 1);
    assert_false(fixture_exists(dir, "compiled/listing/l.bin"));
    compile(CT_ERR_BAD_DATA, 0, 1, 1);
    fixture_write(dir, "data/one.txt", "back\n");
    compile(0, 1, 1, 0);
    expect_payload("l", "back\n");
    /* A noted file that is gone recompiles its user, which here does not read it and compiles;
     * it is then noted as absent, and its coming back recompiles again. */
    snprintf(path, sizeof path, "%s/data/Extra.BIN", dir);
    assert_int_equal(remove(path), 0);
    compile(0, 1, 1, 0);
    compile(0, 0, 2, 0);
    fixture_write(dir, "data/Extra.BIN", "extra\n");
    compile(0, 1, 1, 0);
    compile(0, 0, 2, 0);
}

/* m.listing noting `count` files f0, f1, ... */
static void write_depends(int count)
{
    char text[RESOURCES_MAX_FILES * 16 + 64] = "depends = [";
    for (int i = 0; i < count; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "\"f%d\" ", i);
    strcat(text, "]\n");
    fixture_write(dir, "m.listing", text);
}

static void bad_paths_and_too_many_files_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {
        "depends = [\"../outside\"]",   "depends = [\"/etc/passwd\"]",
        "depends = [\"a//b\"]",         "depends = [\"./a\"]",
        "depends = [\"a\\\\b\"]",       "depends = [\"\"]",
        "include = [\"DATA/one.txt\"]", "include = [\"data/../l.listing\"]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fixture_write(dir, "m.listing", bad[i]);
        compile(CT_ERR_BAD_DATA, i == 0, i > 0, 1);
    }
    write_depends(RESOURCES_MAX_FILES + 1);
    compile(CT_ERR_BAD_DATA, 0, 1, 1);
    write_depends(RESOURCES_MAX_FILES); /* allowed, though none of them exists */
    compile(0, 1, 1, 0);
    compile(0, 0, 2, 0);
}

static void strict_recompiles_what_compiled_with_warnings(void **state)
{
    (void)state;
    fixture_write(dir, "l.listing", "include = [\"data/one.txt\"] warn = true\n");
    compile(0, 2, 0, 0);
    compile(0, 0, 2, 0);
    restart(true);
    compile(CT_ERR_BAD_DATA, 0, 1, 1);
    assert_false(fixture_exists(dir, "compiled/listing/l.bin"));
    restart(false);
    compile(0, 1, 1, 0);
    /* Fixed, it is up to date under --strict as well. */
    fixture_write(dir, "l.listing", "include = [\"data/one.txt\"]\n");
    compile(0, 1, 1, 0);
    restart(true);
    compile(0, 0, 2, 0);
}

/* The manifest's file paths are read from disk: one leading out of the project makes it corrupt
 * (a full rebuild), not a file to stat. */
static void a_manifest_file_outside_the_project_is_refused(void **state)
{
    (void)state;
    compile(0, 2, 0, 0);
    fixture_write(dir, "compiled/manifest.json",
                  "{\"manifest_version\": 3, \"sources\": [{\"path\": \"l.listing\", "
                  "\"mtime_sec\": 1000000000, \"mtime_nsec\": 0, \"size\": 27, "
                  "\"hash\": \"0000000000000000\", \"format\": 1, \"warnings\": 0, "
                  "\"provider\": \"kernel\", \"formats\": \"\", \"files\": "
                  "[{\"path\": \"../x\", \"mtime_sec\": 1, \"mtime_nsec\": 0, \"size\": 1, "
                  "\"hash\": \"0000000000000000\"}]}]}");
    compile(0, 2, 0, 0);
    compile(0, 0, 2, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_changed_file_recompiles_what_was_built_from_it,
                                        make_project, remove_project),
        cmocka_unit_test_setup_teardown(a_deleted_file_fails_what_reads_it, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(bad_paths_and_too_many_files_are_refused, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(strict_recompiles_what_compiled_with_warnings, make_project,
                                        remove_project),
        cmocka_unit_test_setup_teardown(a_manifest_file_outside_the_project_is_refused,
                                        make_project, remove_project),
    };
    return cmocka_run_group_tests_name("resources depends", tests, NULL, NULL);
}
