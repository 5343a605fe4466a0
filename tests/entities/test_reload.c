/* Hot reload of ct.entities with ct.transforms loaded: everything made before a reload works
 * after it (see reload_fixture_check), and code whose state layout differs is refused with the
 * old code still running. */
#include "plugins/loader.h"
#include "reload_fixture.h"

static void reload_keeps_worlds_entities_and_bindings(void **state)
{
    (void)state;
    reload_fixture_check();
    assert_int_equal(loader__reload("ct.entities"), 0);
    assert_int_equal(reload_fixture_reload_count("ct.entities"), 1);
    reload_fixture_check();
    /* Again: now the code being replaced is itself a reloaded copy. */
    assert_int_equal(loader__reload("ct.entities"), 0);
    assert_int_equal(reload_fixture_reload_count("ct.entities"), 2);
    reload_fixture_check();
}

static void another_layout_is_refused(void **state)
{
    (void)state;
    reload_fixture_refuses_layout("ct.entities", ENTITIES_LAYOUT2, rf.entities_path,
                                  CT_TEST_MODULE("entities", "ct_entities"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(reload_keeps_worlds_entities_and_bindings,
                                        reload_fixture_boot, reload_fixture_shutdown),
        cmocka_unit_test_setup_teardown(another_layout_is_refused, reload_fixture_boot,
                                        reload_fixture_shutdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
