/* cuttle-censor's built-in preprocessor filter: each case is an input, the symbols, and the exact
 * output expected (removed lines become blank lines, so the line count never changes), plus the
 * errors, each naming its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "censor_ifdef.h"

static size_t count_lines(const char *s, size_t n)
{
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    return lines;
}

/* Filters `in` with the space-separated options and checks the output is exactly `expected`. */
static void expect(const char *options, const char *in, const char *expected)
{
    censor_ifdef_t f = {0};
    char err[256], copy[256];
    snprintf(copy, sizeof copy, "%s", options);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        assert_true(censor_ifdef_add(&f, w, err, sizeof err));
    char *out;
    size_t size;
    if (!censor_ifdef_run(&f, in, strlen(in), &out, &size, err, sizeof err))
        fail_msg("unexpected error: %s", err);
    if (size != strlen(expected) || memcmp(out, expected, size) != 0)
        fail_msg("options '%s'\n-- got:\n%.*s-- expected:\n%s", options, (int)size, out, expected);
    assert_int_equal(count_lines(out, size), count_lines(in, strlen(in)));
    free(out);
}

static void expect_error(const char *options, const char *in, const char *message)
{
    censor_ifdef_t f = {0};
    char err[256], copy[256];
    snprintf(copy, sizeof copy, "%s", options);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        assert_true(censor_ifdef_add(&f, w, err, sizeof err));
    char *out = (char *)1;
    size_t size;
    assert_false(censor_ifdef_run(&f, in, strlen(in), &out, &size, err, sizeof err));
    assert_null(out);
    assert_string_equal(err, message);
}

static void decided_groups_leave_blank_lines(void **state)
{
    (void)state;
    const char *in = "a\n#ifdef NDA_PS5\nsecret();\n#else\nopen();\n#endif\nb\n";
    expect("-UNDA_PS5", in, "a\n\n\n\nopen();\n\nb\n");
    expect("-DNDA_PS5", in, "a\n\nsecret();\n\n\n\nb\n");
    expect("-DOTHER", in, in); /* not decided: kept as written */
    expect("-UNDA", "#ifndef NDA\nx\n#endif\n", "\nx\n\n");
}

static void expressions(void **state)
{
    (void)state;
    const char *in = "#if defined(A) && !defined B\nab\n#endif\n";
    expect("-DA -UB", in, "\nab\n\n");
    expect("-DA -DB", in, "\n\n\n");
    expect("-UA", in, "\n\n\n"); /* false && unknown is false */
    expect("-DA", in, in);       /* true && unknown stays undecided */
    expect("-DB", in, "\n\n\n");
    expect("-DV=3", "#if V >= 2 || X\nnew\n#endif\n", "\nnew\n\n"); /* true || unknown */
    expect("-DV=1", "#if V == 2\ntwo\n#elif V < 2\nless\n#endif\n", "\n\n\nless\n\n");
    expect("-UA", "#if (A) /* comment */\nx\n#endif // done\n", "\n\n\n");
    expect("-DA", "#if F(A)\nx\n#endif\n", "#if F(A)\nx\n#endif\n"); /* unreadable: kept */
    expect("-DA -UB", "#if defined(A) \\\n && defined(B)\nx\n#endif\n", "\n\n\n\n");
}

static void mixed_chains_keep_a_correct_shape(void **state)
{
    (void)state;
    const char *chain = "#if A\na\n#elif B\nb\n#elif C\nc\n#else\nd\n#endif\n";
    /* Undecided, then a true #elif: it becomes the #else and the rest goes. */
    expect("-UB -DC", chain, "#if A\na\n\n\n#else\nc\n\n\n#endif\n");
    /* Removed branches first, then an undecided #elif: it becomes the #if. */
    expect("-UA", chain, "\n\n#if B\nb\n#elif C\nc\n#else\nd\n#endif\n");
    expect("-UA -UB -UC", chain, "\n\n\n\n\n\n\nd\n\n");
    expect("-DA", chain, "\na\n\n\n\n\n\n\n\n");
}

static void nesting_and_comments(void **state)
{
    (void)state;
    expect("-UX", "#ifdef X\n#if Y\ny\n#else\nz\n#endif\n#endif\nkeep\n", "\n\n\n\n\n\n\nkeep\n");
    expect("-UX", "#ifdef Y\n#ifdef X\nx\n#endif\ny\n#endif\n", "#ifdef Y\n\n\n\ny\n#endif\n");
    /* A directive inside a block comment, and a comment opener inside a string, are not code. */
    expect("-UX", "/*\n#ifdef X\n*/\nx\n", "/*\n#ifdef X\n*/\nx\n");
    expect("-UX", "s = \"/*\";\n#ifdef X\nx\n#endif\n", "s = \"/*\";\n\n\n\n");
    expect("-UX", "#ifdef X\r\nx\r\n#endif\r\nend", "\r\n\r\n\r\nend");
}

static void binary_passes_through(void **state)
{
    (void)state;
    const char in[] = "#ifdef X\n\0\n#endif\n";
    censor_ifdef_t f = {0};
    char err[128], *out;
    size_t size;
    assert_true(censor_ifdef_add(&f, "-UX", err, sizeof err));
    assert_true(censor_ifdef_run(&f, in, sizeof in - 1, &out, &size, err, sizeof err));
    assert_int_equal(size, sizeof in - 1);
    assert_memory_equal(out, in, size);
    free(out);
}

static void errors_name_the_line(void **state)
{
    (void)state;
    expect_error("-UX", "a\n#endif\n", "line 2: #endif without #if");
    expect_error("-UX", "a\n#else\n", "line 2: #else without #if");
    expect_error("-UX", "#ifdef X\nx\n", "line 2: 1 #if never closed by #endif");
    expect_error("", "#if A\n", "line 1: 1 #if never closed by #endif");
    char deep[300 * 8 + 1] = "";
    for (int i = 0; i < 300; i++)
        strcat(deep, "#if A\n");
    expect_error("", deep, "line 257: conditionals nested deeper than 256");
}

static void lenient_filters_warn(void **state)
{
    (void)state;
    censor_ifdef_t f = {.lenient = true};
    char err[128], *out;
    size_t size;
    assert_true(censor_ifdef_add(&f, "-UX", err, sizeof err));
    const char *in = "#ifdef X\nx\n#endif\n#endif\n#ifdef X\ny\n";
    assert_true(censor_ifdef_run(&f, in, strlen(in), &out, &size, err, sizeof err));
    assert_string_equal(err, "line 4: #endif without #if");
    assert_int_equal(size, strlen("\n\n\n#endif\n\n\n"));
    assert_memory_equal(out, "\n\n\n#endif\n\n\n", size);
    free(out);
    assert_true(censor_ifdef_run(&f, "a\n", 2, &out, &size, err, sizeof err));
    assert_string_equal(err, ""); /* no warning when nothing is wrong */
    free(out);
}

static void bad_options_are_refused(void **state)
{
    (void)state;
    censor_ifdef_t f = {0};
    char err[128];
    assert_false(censor_ifdef_add(&f, "NDA", err, sizeof err));
    assert_string_equal(err, "'NDA' is not -DSYMBOL, -DSYMBOL=INTEGER or -USYMBOL");
    assert_false(censor_ifdef_add(&f, "-D1X", err, sizeof err));
    assert_false(censor_ifdef_add(&f, "-UX=1", err, sizeof err));
    assert_false(censor_ifdef_add(&f, "-DX=one", err, sizeof err));
    assert_false(censor_ifdef_add(&f, "-D", err, sizeof err));
    assert_true(censor_ifdef_add(&f, "-DX=0x10", err, sizeof err));
    assert_int_equal(f.symbols[0].value, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decided_groups_leave_blank_lines),
        cmocka_unit_test(expressions),
        cmocka_unit_test(mixed_chains_keep_a_correct_shape),
        cmocka_unit_test(nesting_and_comments),
        cmocka_unit_test(binary_passes_through),
        cmocka_unit_test(errors_name_the_line),
        cmocka_unit_test(lenient_filters_warn),
        cmocka_unit_test(bad_options_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
