/* The log service: level from the environment, per-level counts, the error table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/jobs.h"
#include "base/log.h"

/* Must run first: the level is read from CUTTLE_LOG on first use. */
static void level_comes_from_environment(void **state)
{
    (void)state;
    setenv("CUTTLE_LOG", "warning", 1);
    assert_int_equal(log__level(), CT_LOG_WARNING);
    log__set_level(CT_LOG_DEBUG);
    assert_int_equal(log__level(), CT_LOG_DEBUG);
}

static void counts_written_lines_per_level(void **state)
{
    (void)state;
    const ct_log_api_v1 *api = log__api_v1();
    log__set_level(CT_LOG_WARNING);
    uint64_t errors = api->count(CT_LOG_ERROR);
    uint64_t warnings = api->count(CT_LOG_WARNING);
    uint64_t infos = api->count(CT_LOG_INFO);

    log__error("test error %d", 1);
    api->write(NULL, CT_LOG_WARNING, "test warning %s", "from the table");
    log__info("dropped: below the minimum level");

    assert_int_equal(api->count(CT_LOG_ERROR), errors + 1);
    assert_int_equal(api->count(CT_LOG_WARNING), warnings + 1);
    assert_int_equal(api->count(CT_LOG_INFO), infos);
    assert_int_equal(api->count((ct_log_level)7), 0);
}

static void error_names_and_messages(void **state)
{
    (void)state;
    const ct_log_api_v1 *api = log__api_v1();
    assert_string_equal(api->error_name(CT_ERR_OK), "CT_ERR_OK");
    assert_string_equal(api->error_name(CT_ERR_NOT_FOUND), "CT_ERR_NOT_FOUND");
    assert_string_equal(api->error_message(CT_ERR_NOT_FOUND), "not found");
    assert_string_equal(api->error_name(CT_ERR_STALE), "CT_ERR_STALE");
    assert_string_equal(api->error_message(CT_ERR_NOMEM), "out of memory");
    assert_string_equal(api->error_name(-1000), "CT_ERR_UNKNOWN");
    assert_string_equal(api->error_message(42), "unknown error");
}

static void write_lines(void *user_data, uint32_t begin, uint32_t end)
{
    (void)user_data;
    for (uint32_t i = begin; i < end; i++)
        log__warning("line %u from a job", i);
}

static void counts_stay_exact_across_threads(void **state)
{
    (void)state;
    assert_int_equal(jobs__init(4), CT_ERR_OK);
    log__set_level(CT_LOG_WARNING);
    uint64_t before = log__count(CT_LOG_WARNING);
    jobs__api_v1()->parallel_for(400, 3, write_lines, NULL);
    assert_int_equal(log__count(CT_LOG_WARNING), before + 400);
    jobs__shutdown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(level_comes_from_environment),
        cmocka_unit_test(counts_written_lines_per_level),
        cmocka_unit_test(error_names_and_messages),
        cmocka_unit_test(counts_stay_exact_across_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
