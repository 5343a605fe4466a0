/*
 * kernel/data/text.h: JSON text into a growing buffer (the editor's welcome snapshot writes
 * 150,000 values through it). Fixed expected strings; growth far past the first block; a number
 * that reads back exactly; the escapes JSON needs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/text.h"

static void numbers_are_shortest_exact(void **state)
{
    (void)state;
    data_text_t t = {0};
    const double values[] = {0, 0.1, 2.5, -3, 1e300, 1.0 / 3.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        if (i)
            data__text_put(&t, " ", 1);
        data__text_number(&t, values[i]);
    }
    assert_false(t.failed);
    assert_string_equal(t.s, "0 0.1 2.5 -3 1e+300 0.3333333333333333 null null");
    assert_int_equal(t.len, strlen(t.s));
    free(t.s);
}

static void strings_are_escaped(void **state)
{
    (void)state;
    data_text_t t = {0};
    const char s[] = "a\"b\\c\nd\te\x01 f\xc3\xa9";
    data__text_string(&t, s, sizeof s - 1);
    assert_string_equal(t.s, "\"a\\\"b\\\\c\\nd\\te\\u0001 f\xc3\xa9\"");
    /* Only the n bytes given: a NUL inside is written as \u0000, nothing after it is read. */
    data_text_t u = {0};
    data__text_string(&u, "x\0y", 3);
    assert_string_equal(u.s, "\"x\\u0000y\"");
    free(t.s);
    free(u.s);
}

static void grows_past_its_first_block(void **state)
{
    (void)state;
    data_text_t t = {0};
    for (int i = 0; i < 10000; i++)
        data__text_puts(&t, "0123456789");
    assert_false(t.failed);
    assert_int_equal(t.len, 100000);
    assert_true(t.cap > t.len);
    assert_int_equal(t.s[t.len], 0);
    assert_memory_equal(t.s + 99990, "0123456789", 10);
    free(t.s);
}

static void a_failed_buffer_stays_failed(void **state)
{
    (void)state;
    data_text_t t = {.failed = true};
    data__text_puts(&t, "lost");
    data__text_number(&t, 1);
    assert_null(t.s);
    assert_int_equal(t.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_are_shortest_exact),
        cmocka_unit_test(strings_are_escaped),
        cmocka_unit_test(grows_past_its_first_block),
        cmocka_unit_test(a_failed_buffer_stays_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
