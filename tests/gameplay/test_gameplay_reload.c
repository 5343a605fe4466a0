/* Hot reload of ct_gameplay.so (booted in-process from copies in a temporary folder, as a build
 * replaces the file): a reload keeps the islands' fields and the clock; a build whose state layout
 * differs only in a struct the state block reaches through a pointer (islands__row, one field
 * added, the block's size unchanged) is refused, and the old code keeps running. A hand-bumped
 * layout number forgotten would let that build adopt the old state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

#include "ct_gameplay.h"
#include "plugins/loader.h"
#include "test_kernel.h"

static char dir[64], entities_path[128], gameplay_path[128];

/* Puts a copy of `built` at `path` the way a build does (a new file renamed over the old). */
static void install(const char *built, const char *path)
{
    char part[160];
    snprintf(part, sizeof part, "%s.part", path);
    uv_fs_t req;
    assert_int_equal(uv_fs_copyfile(NULL, &req, built, part, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(rename(part, path), 0);
}

static void gameplay_state_survives_and_another_layout_is_refused(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/cuttle-gameplay-reload-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(entities_path, sizeof entities_path, "%s/ct_entities.so", dir);
    snprintf(gameplay_path, sizeof gameplay_path, "%s/ct_gameplay.so", dir);
    install(CT_TEST_MODULE("entities", "ct_entities"), entities_path);
    install(CT_TEST_MODULE("gameplay", "ct_gameplay"), gameplay_path);
    const char *paths[] = {entities_path, gameplay_path};
    assert_int_equal(test_kernel_boot(paths, 2), 0);
    const ct_islands_api_v1 *islands = test_kernel_api(CT_ISLANDS_API, 1);
    const ct_clock_api_v1 *clock = test_kernel_api(CT_CLOCK_API, 1);
    const ct_entity_api_v1 *entity = test_kernel_api(CT_ENTITY_API, 1);
    assert_non_null(islands);
    assert_non_null(clock);
    const uint32_t health = islands->field("health");
    const ct_entity_t e = entity->create();
    islands->set_value(e, health, 42);
    clock->set_scale(0.5);

    /* Another layout: refused, the old code and its state stay. */
    install(GAMEPLAY_LAYOUT2, gameplay_path);
    assert_int_equal(loader__reload("ct.gameplay"), CT_ERR_VERSION);
    assert_true(islands->value(e, health) == 42);
    assert_true(clock->scale() == 0.5);

    /* The same layout: adopted, the state carries over. */
    install(CT_TEST_MODULE("gameplay", "ct_gameplay"), gameplay_path);
    assert_int_equal(loader__reload("ct.gameplay"), 0);
    assert_true(islands->value(e, health) == 42);
    assert_true(clock->scale() == 0.5);
    assert_int_equal(islands->field("health"), health);

    entity->destroy(e);
    assert_int_equal(test_kernel_shutdown(), 0);
    remove(entities_path);
    remove(gameplay_path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gameplay_state_survives_and_another_layout_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
