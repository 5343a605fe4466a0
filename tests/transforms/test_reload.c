/* Hot reload of ct.transforms, alone and together with ct.entities: everything made before a
 * reload works after it (see tests/entities/reload_fixture.h), and code whose state layout
 * differs is refused with the old code still running. The other code is the module's own
 * sources with one field added to transforms__manager_t and no number bumped (see
 * tests/transforms/meson.build): its layout identity, made at build time, differs by itself. With
 * a hand-bumped number (the old scheme) that copy was adopted and this test fails. */
#include "plugins/loader.h"
#include "reload_fixture.h"

static void reload_keeps_transforms_and_bindings(void **state)
{
    (void)state;
    reload_fixture_check();
    assert_int_equal(loader__reload("ct.transforms"), 0);
    assert_int_equal(reload_fixture_reload_count("ct.transforms"), 1);
    reload_fixture_check();
    assert_int_equal(loader__reload("ct.entities"), 0);
    assert_int_equal(loader__reload("ct.transforms"), 0);
    assert_int_equal(reload_fixture_reload_count("ct.transforms"), 2);
    reload_fixture_check();
}

static void another_layout_is_refused(void **state)
{
    (void)state;
    reload_fixture_refuses_layout("ct.transforms", TRANSFORMS_LAYOUT2, rf.transforms_path,
                                  CT_TEST_MODULE("transforms", "ct_transforms"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(reload_keeps_transforms_and_bindings, reload_fixture_boot,
                                        reload_fixture_shutdown),
        cmocka_unit_test_setup_teardown(another_layout_is_refused, reload_fixture_boot,
                                        reload_fixture_shutdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
