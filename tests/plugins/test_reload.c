/* Hot reload: state survives the swap, provided tables keep their address and get the new code,
 * a refused reload keeps the old code, and a file change is picked up through the watcher. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "base/log.h"
#include "lua/lua_env.h"
#include "ct_resource.h"
#include "test_plugins.h"

typedef struct reload_fixture_t {
    char dir[64];
    char path[96];
} reload_fixture_t;

/* Replaces `dst` the way a build does: a new file renamed over the old, so the mapped old code
 * is never written to. */
static void install(const char *src, const char *dst)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s.part", dst);
    uv_fs_t req;
    assert_int_equal(uv_fs_copyfile(NULL, &req, src, tmp, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(rename(tmp, dst), 0);
}

static int setup(void **state)
{
    reload_fixture_t *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/cuttle-reload-test-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/counter.so", f->dir);
    install(TEST_PLUGIN("counter_v1"), f->path);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    reload_fixture_t *f = *state;
    remove(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Calls Counter.step() from Lua and checks the total it returns. */
static int step_gives(int expected)
{
    char code[64];
    snprintf(code, sizeof code, "assert(Counter.step() == %d)", expected);
    return lua_env__run_string(code, "step");
}

static void reload_keeps_state_and_swaps_code(void **state)
{
    reload_fixture_t *f = *state;
    const char *paths[] = {f->path};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    const test_counter_api_v1 *c = registry__get_engine_api(TEST_COUNTER_API, 1);
    assert_non_null(c);
    assert_int_equal(c->code_version(), 1);
    assert_int_equal(step_gives(1), 0);
    assert_int_equal(step_gives(2), 0);
    assert_int_equal(step_gives(3), 0);

    install(TEST_PLUGIN("counter_v2"), f->path);
    assert_int_equal(loader__reload("counter"), 0);
    assert_ptr_equal(registry__get_engine_api(TEST_COUNTER_API, 1), c);
    assert_int_equal(c->code_version(), 2);
    assert_true(c->value() == 3);
    assert_int_equal(step_gives(13), 0);
    assert_int_equal(fixture_info("counter").reload_count, 1);
    assert_int_equal(fixture_info("counter").version.major, 2);

    /* The bad build registers a step of 1000 and then refuses: everything stays as it was. */
    install(TEST_PLUGIN("counter_bad"), f->path);
    assert_true(loader__reload("counter") < 0);
    assert_int_equal(c->code_version(), 2);
    assert_int_equal(step_gives(23), 0);
    assert_int_equal(fixture_info("counter").reload_count, 1);
    assert_int_equal(fixture_state("counter"), CT_PLUGIN_LOADED);
    /* The resource type only the refused code registered went with it. */
    const ct_resource_api_v1 *r = registry__get_engine_api(CT_RESOURCE_API, 1);
    ct_resource_type_t free_name = {
        .type = "counter_bad", .compile = test_compile_nothing, .load = test_load_nothing};
    assert_int_equal(r->register_type(&free_name), 0);
    r->unregister_type("counter_bad");
    assert_int_equal(fixture_shutdown(), 0);
}

static void plugins_without_hooks_are_not_reloaded(void **state)
{
    (void)state;
    const char *paths[] = {SAMPLE_PLUGIN("seed_adder")};
    assert_int_equal(fixture_boot_paths(paths, 1), 0);
    assert_true(loader__reload("seed_adder") < 0);
    assert_true(loader__reload("nobody") < 0);
    assert_int_equal(fixture_info("seed_adder").reload_count, 0);
    assert_int_equal(fixture_shutdown(), 0);
}

static void the_watcher_picks_up_a_rebuild(void **state)
{
    reload_fixture_t *f = *state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    const char *paths[] = {f->path};
    loader_desc_t desc = {
        .plugin_paths = paths, .num_plugin_paths = 1, .watch = true, .loop = &loop};
    assert_int_equal(fixture_boot(&desc), 0);
    assert_int_equal(step_gives(1), 0);
    install(TEST_PLUGIN("counter_v2"), f->path);
    /* Frames until the change is seen and the file has settled; bounded so a lost event fails
     * the test instead of hanging it. */
    uint32_t reloaded = 0;
    for (int frame = 0; frame < 500 && !reloaded; frame++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        reloaded = loader__apply_reloads();
        if (!reloaded)
            usleep(10000);
    }
    assert_int_equal(reloaded, 1);
    assert_int_equal(step_gives(11), 0);
    assert_int_equal(fixture_shutdown(), 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A linker that creates the file empty and pauses longer than the settle time: the reload waits
 * for a whole library without a line, then loads it (before: "file too short", an error and a
 * failed reload; issue 25, defect 7). */
static void a_rebuild_in_progress_is_waited_for_quietly(void **state)
{
    reload_fixture_t *f = *state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    const char *paths[] = {f->path};
    loader_desc_t desc = {
        .plugin_paths = paths, .num_plugin_paths = 1, .watch = true, .loop = &loop};
    assert_int_equal(fixture_boot(&desc), 0);
    assert_int_equal(step_gives(1), 0);
    const uint64_t errors = log__count(CT_LOG_ERROR), warnings = log__count(CT_LOG_WARNING);
    /* The empty file, then a half-written one, each left alone well past the settle time. */
    FILE *empty = fopen(f->path, "wb");
    assert_non_null(empty);
    fclose(empty);
    for (int frame = 0; frame < 60; frame++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        assert_int_equal(loader__apply_reloads(), 0);
        usleep(10000);
    }
    assert_int_equal(log__count(CT_LOG_ERROR), errors);
    assert_int_equal(log__count(CT_LOG_WARNING), warnings);
    assert_int_equal(step_gives(2), 0);
    install(TEST_PLUGIN("counter_v2"), f->path);
    uint32_t reloaded = 0;
    for (int frame = 0; frame < 500 && !reloaded; frame++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        reloaded = loader__apply_reloads();
        if (!reloaded)
            usleep(10000);
    }
    assert_int_equal(reloaded, 1);
    assert_int_equal(log__count(CT_LOG_ERROR), errors);
    assert_int_equal(fixture_shutdown(), 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(reload_keeps_state_and_swaps_code, setup, teardown),
        cmocka_unit_test(plugins_without_hooks_are_not_reloaded),
        cmocka_unit_test_setup_teardown(the_watcher_picks_up_a_rebuild, setup, teardown),
        cmocka_unit_test_setup_teardown(a_rebuild_in_progress_is_waited_for_quietly, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
