/* Plugin files and paths as an attacker (or a careless build) hands them over: overwritten and
 * truncated while loaded, garbage tables, files the project does not list, and paths that a
 * library search would resolve. None may crash the engine; each is refused with a reason. */
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
#include "../../sample_plugins/hello_v1/acme_greeter.h"

#define N(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

typedef struct folder_t {
    char dir[64];
} folder_t;

static int make_folder(void **state)
{
    folder_t *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/cuttle-hostile-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int remove_folder(void **state)
{
    folder_t *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc;
}

static void put(const folder_t *f, const char *src, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", f->dir, name);
    uv_fs_t req;
    assert_int_equal(uv_fs_copyfile(NULL, &req, src, path, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
}

static uint32_t greet_length(void)
{
    const acme_greeter_api_v1 *g = registry__get_engine_api(ACME_GREETER_API, 1);
    char buf[64];
    return g ? g->greet("you", buf, sizeof buf) : 0;
}

/* `cp other.so hello.so` writes into the file in place, and truncating it shrinks the mapping of
 * whoever mapped the file itself: touching its pages then raises SIGBUS. */
static void a_loaded_file_overwritten_or_truncated_in_place_does_not_crash(void **state)
{
    folder_t *f = *state;
    char path[128];
    put(f, SAMPLE_PLUGIN("hello_v1"), "hello.so", path, sizeof path);
    const char *paths[] = {path};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    assert_int_equal(greet_length(), strlen("Hello, you!"));

    FILE *in_place = fopen(path, "r+b");
    assert_non_null(in_place);
    char zeros[4096] = {0};
    for (int i = 0; i < 64; i++)
        fwrite(zeros, 1, sizeof zeros, in_place);
    fclose(in_place);
    assert_int_equal(truncate(path, 0), 0);

    assert_int_equal(greet_length(), strlen("Hello, you!"));
    loader__frame_begin(0.0);
    loader__frame_end(0.0);
    assert_int_equal(lua_env__run_string("assert(Hello.greet('x') == 'Hello, x!')", "after"), 0);
    /* A reload of the empty file is refused; the old code keeps running. */
    assert_true(loader__reload("acme.hello") < 0);
    assert_int_equal(greet_length(), strlen("Hello, you!"));
    assert_int_equal(fixture_shutdown(), 0);
}

static void garbage_plugin_tables_are_refused_not_read(void **state)
{
    (void)state;
    const char *kinds[] = {"pointer", "name", "refs", "init", "provided", "v2"};
    for (uint32_t i = 0; i < N(kinds); i++) {
        char path[512], name[64];
        snprintf(name, sizeof name, "garbage_%s", kinds[i]);
        snprintf(path, sizeof path, "%s/%s.so", TEST_PLUGIN_DIR, name);
        const char *paths[] = {path, SAMPLE_PLUGIN("hello_v1")};
        assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
        ct_plugin_info_t info;
        assert_true(registry__api_v1()->plugin_info(0, &info));
        assert_non_null(strstr(info.path, name));
        assert_int_equal(info.state, CT_PLUGIN_FAILED);
        assert_true(info.error[0] != '\0');
        assert_int_equal(fixture_state("acme.hello"), CT_PLUGIN_LOADED);
        assert_int_equal(fixture_shutdown(), 0);
    }
}

/* A provided ct.* table is checked against this kernel's headers at load: a table of another size
 * or a required slot left NULL is refused, naming the plugin, the API and the slot, and nothing
 * calls through it (before: signal 11 on the first call, with no line). */
static void a_bad_ct_table_is_refused_at_load(void **state)
{
    (void)state;
    const char *paths[] = {TEST_PLUGIN("null_slot"), TEST_PLUGIN("wrong_size"),
                           SAMPLE_PLUGIN("hello_v1")};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    ct_plugin_info_t info = fixture_info("null_slot");
    assert_int_equal(info.state, CT_PLUGIN_FAILED);
    assert_string_equal(info.error,
                        "provides ct.log v1 with slot 'error_name' NULL "
                        "(ct_log_api_v1.error_name is not optional: fill it, or provide "
                        "an older version)");
    info = fixture_info("wrong_size");
    assert_int_equal(info.state, CT_PLUGIN_FAILED);
    assert_string_equal(info.error,
                        "provides ct.log v1 with a table of 24 bytes, but ct_log_api_v1 "
                        "is 32 bytes (build it against this SDK's headers, or provide "
                        "the version it was written for)");
    assert_int_equal(fixture_state("acme.hello"), CT_PLUGIN_LOADED);
    assert_int_equal(fixture_shutdown(), 0);
}

/* The new file a hot reload would load is garbage: refused, the old code stays. */
static void a_garbage_file_at_reload_is_refused(void **state)
{
    folder_t *f = *state;
    char path[128];
    put(f, TEST_PLUGIN("counter_v1"), "counter.so", path, sizeof path);
    const char *paths[] = {path};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    const char *kinds[] = {"garbage_pointer", "garbage_refs", "garbage_v2", "undefined_symbol"};
    for (uint32_t i = 0; i < N(kinds); i++) {
        char src[512];
        snprintf(src, sizeof src, "%s/%s.so", TEST_PLUGIN_DIR, kinds[i]);
        put(f, src, "counter.so", path, sizeof path);
        assert_true(loader__reload("counter") < 0);
    }
    const test_counter_api_v1 *c = registry__get_engine_api(TEST_COUNTER_API, 1);
    assert_int_equal(c->code_version(), 1);
    assert_int_equal(fixture_shutdown(), 0);
}

/* A project lists acme.hello: its folder's acme_hello.so is opened, the garbage next to it is not
 * even opened (no record at all), and a listed file name holding another plugin is refused. */
static void files_the_project_does_not_list_are_not_opened(void **state)
{
    folder_t *f = *state;
    char path[128];
    put(f, SAMPLE_PLUGIN("hello_v1"), "acme_hello.so", path, sizeof path);
    put(f, TEST_PLUGIN("garbage_pointer"), "garbage.so", path, sizeof path);
    put(f, SAMPLE_PLUGIN("hello_v1"), "acme_impostor.so", path, sizeof path);
    put(f, SAMPLE_PLUGIN("seed_adder"), "acme_seed.so", path, sizeof path);
    const char *dirs[] = {f->dir};
    const char *wanted[] = {"acme.hello", "acme.impostor", "acme.seed"};
    loader_desc_t desc = {
        .module_dirs = dirs, .num_module_dirs = 1, .wanted = wanted, .num_wanted = N(wanted)};
    assert_int_equal(fixture_boot(&desc), 0);
    assert_int_equal(fixture_state("acme.hello"), CT_PLUGIN_LOADED);
    assert_int_equal(registry__api_v1()->find_plugin("garbage"), UINT32_MAX);
    /* A v0 plugin has no name: it is the plugin its file name is for. */
    assert_int_equal(fixture_state("acme.seed"), CT_PLUGIN_LOADED);
    assert_int_equal(registry__api_v1()->plugin_count(), 3);
    ct_plugin_info_t impostor;
    assert_true(registry__api_v1()->plugin_info(1, &impostor));
    assert_non_null(strstr(impostor.path, "acme_impostor.so"));
    assert_int_equal(impostor.state, CT_PLUGIN_FAILED);
    assert_non_null(strstr(impostor.error, "acme.impostor"));
    assert_int_equal(fixture_shutdown(), 0);
}

/* "libm.so.6" would be found by a library search and "" would open the executable itself. Each
 * refusal says what is wrong with that path: a missing file is "no such file" (with the ./ hint
 * only for a bare name), a folder is a folder. */
static void a_plugin_path_is_a_path_never_a_search(void **state)
{
    (void)state;
    const char *paths[] = {"libm.so.6", "", "libc.so.6", "/tmp/cuttle-no-such-plugin.so", "/tmp"};
    const char *said[] = {"no such file (a plugin is named by its path: write ./libm.so.6 for a "
                          "file in the current folder)",
                          "is an empty path: a plugin is named by its path (./name.so)",
                          "no such file (a plugin is named by its path: write ./libc.so.6 for a "
                          "file in the current folder)",
                          "no such file", "is a folder, not a plugin file"};
    assert_int_equal(fixture_boot_paths(paths, N(paths)), 0);
    const ct_registry_api_v1 *r = registry__api_v1();
    assert_int_equal(r->plugin_count(), N(paths));
    for (uint32_t i = 0; i < N(paths); i++) {
        ct_plugin_info_t info;
        assert_true(r->plugin_info(i, &info));
        assert_int_equal(info.state, CT_PLUGIN_FAILED);
        assert_string_equal(info.error, said[i]);
    }
    assert_int_equal(fixture_shutdown(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            a_loaded_file_overwritten_or_truncated_in_place_does_not_crash, make_folder,
            remove_folder),
        cmocka_unit_test(garbage_plugin_tables_are_refused_not_read),
        cmocka_unit_test(a_bad_ct_table_is_refused_at_load),
        cmocka_unit_test_setup_teardown(a_garbage_file_at_reload_is_refused, make_folder,
                                        remove_folder),
        cmocka_unit_test_setup_teardown(files_the_project_does_not_list_are_not_opened, make_folder,
                                        remove_folder),
        cmocka_unit_test(a_plugin_path_is_a_path_never_a_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
