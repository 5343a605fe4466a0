/* cuttle-compile end to end: a project compiled with a plugin that registers the test type. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fixture.h"

typedef struct run_t {
    int status;
    unsigned compiled, up_to_date, failed;
} run_t;

static run_t run_tool(const char *dir, const char *extra)
{
    char command[2048];
    snprintf(command, sizeof command, "'%s' --project '%s' --plugin '%s' %s 2>/dev/null",
             CUTTLE_COMPILE, dir, NUMBERS_PLUGIN, extra);
    FILE *p = popen(command, "r");
    assert_non_null(p);
    run_t r = {.compiled = 99, .up_to_date = 99, .failed = 99};
    char line[256];
    while (fgets(line, sizeof line, p))
        sscanf(line, "compiled %u, up to date %u, failed %u", &r.compiled, &r.up_to_date,
               &r.failed);
    int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

static void compiles_then_is_up_to_date(void **state)
{
    (void)state;
    const char *dir = fixture_make_dir();
    fixture_write(dir, "project.sjson", "modules = []\n");
    fixture_write(dir, "a.numbers", "values = [1]\n");
    fixture_write(dir, "b/c.numbers", "values = [2 3]\n");
    run_t r = run_tool(dir, "");
    assert_int_equal(r.status, 0);
    assert_int_equal(r.compiled, 2);
    assert_int_equal(r.up_to_date, 0);
    assert_int_equal(r.failed, 0);
    assert_true(fixture_exists(dir, "compiled/numbers/b/c.bin"));
    r = run_tool(dir, "");
    assert_int_equal(r.status, 0);
    assert_int_equal(r.compiled, 0);
    assert_int_equal(r.up_to_date, 2);

    fixture_write(dir, "b/c.numbers", "values = [2 3\n");
    r = run_tool(dir, "");
    assert_int_equal(r.status, 1);
    assert_int_equal(r.compiled, 0);
    assert_int_equal(r.up_to_date, 1);
    assert_int_equal(r.failed, 1);
    fixture_remove_dir(dir);
}

static void bad_usage_exits_2(void **state)
{
    (void)state;
    char command[1024];
    snprintf(command, sizeof command, "'%s' --bogus 2>/dev/null", CUTTLE_COMPILE);
    int status = system(command);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    snprintf(command, sizeof command, "'%s' 2>/dev/null", CUTTLE_COMPILE);
    status = system(command);
    assert_int_equal(WEXITSTATUS(status), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiles_then_is_up_to_date),
        cmocka_unit_test(bad_usage_exits_2),
    };
    return cmocka_run_group_tests_name("resources tool", tests, NULL, NULL);
}
