/*
 * The SJSON parser: every accepted form, equivalence with cJSON on plain JSON, error positions,
 * and inputs that are not NUL-terminated. Every parse goes through an exactly-sized heap copy,
 * so under ASan any read past text + len fails the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/sjson.h"

#define FILENAME "t.sjson"

/* Parses `len` bytes placed at the very end of a heap block of exactly that size. */
static cJSON *parse_exact_n(const char *text, size_t len, char *err, size_t err_size)
{
    char *block = malloc(len ? len : 1);
    char *copy = block + (len ? 0 : 1);
    memcpy(copy, text, len);
    cJSON *root = sjson__parse(copy, len, FILENAME, err, err_size);
    free(block);
    return root;
}

static cJSON *parse_exact(const char *text, char *err, size_t err_size)
{
    return parse_exact_n(text, strlen(text), err, err_size);
}

/* Asserts that `sjson` parses to the same tree as cJSON's reading of `json`. */
static void expect_same(const char *sjson, const char *json)
{
    char err[256];
    cJSON *got = parse_exact(sjson, err, sizeof err);
    if (!got)
        fail_msg("rejected %s: %s", sjson, err);
    cJSON *want = cJSON_Parse(json);
    assert_non_null(want);
    if (!cJSON_Compare(got, want, true)) {
        char *printed = cJSON_PrintUnformatted(got);
        fail_msg("%s parsed as %s, expected %s", sjson, printed, json);
    }
    cJSON_Delete(got);
    cJSON_Delete(want);
}

static void accepted_forms(void **state)
{
    (void)state;
    /* Implicit root, empty documents. */
    expect_same("", "{}");
    expect_same("  \n\t\r\n", "{}");
    expect_same("// only a comment", "{}");
    expect_same("ip = \"127.0.0.1\"\nport = 666", "{\"ip\":\"127.0.0.1\",\"port\":666}");
    /* Optional commas, one trailing comma, `=` and `:`, bare and quoted keys. */
    expect_same("a = 1, b = 2 c = 3,", "{\"a\":1,\"b\":2,\"c\":3}");
    expect_same("a: 1 b = 2 \"quoted key\" = 3 \"q2\": 4",
                "{\"a\":1,\"b\":2,\"quoted key\":3,\"q2\":4}");
    expect_same("_x1 = 1 Y_2 = 2 z9_ = 3", "{\"_x1\":1,\"Y_2\":2,\"z9_\":3}");
    expect_same("a=1 A=2", "{\"a\":1,\"A\":2}");
    expect_same("a=\"x\"b=[1]c={}d=true", "{\"a\":\"x\",\"b\":[1],\"c\":{},\"d\":true}");
    /* Literals. */
    expect_same("t = true f = false n = null", "{\"t\":true,\"f\":false,\"n\":null}");
    /* Arrays and objects, with and without commas, nested. */
    expect_same("list = [1 2, 3,] empty = [] nested = [[1] [2 [3]]]",
                "{\"list\":[1,2,3],\"empty\":[],\"nested\":[[1],[2,[3]]]}");
    expect_same("obj = { x = 1 y = { z = \"deep\" }, } e = {}",
                "{\"obj\":{\"x\":1,\"y\":{\"z\":\"deep\"}},\"e\":{}}");
    expect_same("tags = [ \"wood\" \"breakable\" ]", "{\"tags\":[\"wood\",\"breakable\"]}");
    /* Comments anywhere whitespace may go. */
    expect_same("a = 1 // line\n/* block\n comment */ b /* here */ = // there\n"
                " 2 /**/ c = 3 // end",
                "{\"a\":1,\"b\":2,\"c\":3}");
    expect_same("l = [1 /* , */ 2 // ]\n 3]", "{\"l\":[1,2,3]}");
    /* Numbers per JSON; underflow becomes zero, large integers become doubles. */
    expect_same("n = [0 -0 12 -3.5 1e3 1E-2 2.5e+2 1e-400 1.7976931348623157e308 "
                "123456789012345678901234567890]",
                "{\"n\":[0,-0,12,-3.5,1e3,1E-2,2.5e+2,0,1.7976931348623157e308,"
                "123456789012345678901234567890]}");
    /* Plain JSON: explicit root object or array, and a byte order mark. */
    expect_same("{ \"a\" : [1, 2, {\"b\": null}] }", "{\"a\":[1,2,{\"b\":null}]}");
    expect_same("[1, 2, 3]", "[1,2,3]");
    expect_same("\xef\xbb\xbf a = 1", "{\"a\":1}");
    expect_same("\xef\xbb\xbf{\"a\":1}", "{\"a\":1}");
}

static void string_escapes(void **state)
{
    (void)state;
    char err[256];
    cJSON *root = parse_exact("s = \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"\n"
                              "u = \"\\u00e9\\u20AC\\ud83d\\ude00\\u0041\"\n"
                              "raw = \"\xc3\xa9 \xe6\x9d\xb1 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"\n"
                              "empty = \"\"",
                              err, sizeof err);
    if (!root)
        fail_msg("%s", err);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "s")->valuestring,
                        "\"\\/\b\f\n\r\t");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "u")->valuestring,
                        "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                        "A");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "raw")->valuestring,
                        "\xc3\xa9 \xe6\x9d\xb1 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "empty")->valuestring, "");
    cJSON_Delete(root);
}

static void json_equivalence(void **state)
{
    (void)state;
    static const char *const samples[] = {
        "{}",
        "[]",
        "{\"a\":1}",
        ("{\"name\":\"crate\",\"mass\":10.5,\"tags\":[\"wood\",\"breakable\"],"
         "\"shape\":{\"type\":\"box\",\"half_extents\":[0.5,0.5,0.5]}}"),
        "  {\n  \"x\" : [ true , false , null ] ,\n\t\"y\" : { } , \"z\" : [ [ ] ]\n}\n",
        "{\"esc\":\"\\u0041\\u00df\\u6771\\ud834\\udd1e \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"}",
        "[-1, 0.25, 6.02e23, -1.5E-7, 1e+2, 9007199254740993, -0.0]",
        "{\"a\":{\"b\":{\"c\":{\"d\":[1,[2,[3,[4]]]]}}}}",
        "{\"A\":1,\"a\":2,\"\":3,\"with space\":4}",
        "[\"\", \"x\", \"\xe2\x82\xac\"]",
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        expect_same(samples[i], samples[i]);
}

/* A tree cJSON prints (escaping every control character its own way) reads back identically. */
static void cjson_round_trip(void **state)
{
    (void)state;
    cJSON *tree = cJSON_CreateObject();
    char all[128];
    for (int c = 1; c < 128; c++)
        all[c - 1] = (char)c;
    all[127] = '\0';
    cJSON_AddStringToObject(tree, "ascii", all);
    cJSON_AddStringToObject(tree, "utf8", "\xc3\xa9\xe6\x9d\xb1\xf0\x9f\x98\x80");
    cJSON *numbers = cJSON_AddArrayToObject(tree, "numbers");
    static const double values[] = {0, -1, 3.25, 1e300, -2.5e-300, 123456789, 0.1};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        cJSON_AddItemToArray(numbers, cJSON_CreateNumber(values[i]));
    cJSON *nested = cJSON_AddObjectToObject(tree, "nested");
    cJSON_AddItemToObject(nested, "empty", cJSON_CreateArray());
    cJSON_AddNullToObject(nested, "nothing");
    for (int formatted = 0; formatted < 2; formatted++) {
        char *text = formatted ? cJSON_Print(tree) : cJSON_PrintUnformatted(tree);
        char err[256];
        cJSON *back = parse_exact(text, err, sizeof err);
        if (!back)
            fail_msg("%s", err);
        assert_true(cJSON_Compare(tree, back, true));
        cJSON_Delete(back);
        free(text);
    }
    cJSON_Delete(tree);
}

typedef struct bad_case_t {
    const char *text;
    unsigned line, col;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    /* Unterminated strings point at the opening quote. */
    {"a = 1\nname = \"abc", 2, 8},
    {"a = 1\nname = \"abc\nb = 2", 2, 8},
    {"s = \"abc\\", 1, 5},
    /* Missing values, keys, separators and closers. */
    {"a = 1\nb = }", 2, 5},
    {"a = 1\nb =", 2, 4},
    {"a = 1\nb = 2\nshape = { mass 10 }", 3, 16},
    {"= 1", 1, 1},
    {"1 = 2", 1, 1},
    {"a = 1 ,, b = 2", 1, 8},
    {"a = 1 }", 1, 7},
    {"{\"a\" 1}", 1, 6},
    {"a = { b = 1", 1, 12},
    {"a = [1 2", 1, 9},
    {"a", 1, 2},
    /* Escapes. */
    {"s = \"a\\qb\"", 1, 7},
    {"s = \"\\u12G4\"", 1, 6},
    {"s = \"\\u12\"", 1, 6},
    {"s = \"\\ud800x\"", 1, 6},
    {"s = \"\\udc00\"", 1, 6},
    {"s = \"\\ud800\\u0041\"", 1, 6},
    {"s = \"a\\u0000\"", 1, 7},
    {"s = \"a\tb\"", 1, 7},
    /* Strings hold well-formed UTF-8 only: a stray continuation byte, an overlong form, an
     * encoded surrogate, a sequence cut short by the closing quote. */
    {"s = \"a\x80\"", 1, 7},
    {"s = \"\xc0\xaf\"", 1, 6},
    {"s = \"\xed\xa0\x80\"", 1, 6},
    {"s = \"\xf4\x90\x80\x80\"", 1, 6},
    {"s = \"\xe2\x82\"", 1, 6},
    {"s = \"\xff\"", 1, 6},
    /* Trailing garbage after a plain JSON root. */
    {"{\"a\": 1} x", 1, 10},
    {"[1] [2]", 1, 5},
    /* Duplicate keys point at the second occurrence. */
    {"a = 1\nb = 2\na = 3", 3, 1},
    {"o = { x = 1\n  x = 2 }", 2, 3},
    {"a = 1 \"a\" = 2", 1, 7},
    /* Numbers: JSON's grammar only, finite only. */
    {"n = 01", 1, 5},
    {"n = 1.", 1, 5},
    {"n = -", 1, 5},
    {"n = 1e", 1, 5},
    {"n = 1e+", 1, 5},
    {"n = .5", 1, 5},
    {"n = +1", 1, 5},
    {"n = NaN", 1, 5},
    {"n = inf", 1, 5},
    {"n = -Infinity", 1, 5},
    {"n = 1e999", 1, 5},
    {"n = -1e999", 1, 5},
    {"n = 12abc", 1, 5},
    {"n = 0x10", 1, 5},
    {"n = 1.5.2", 1, 5},
    /* Literals are exact and case-sensitive. */
    {"a = tru", 1, 5},
    {"a = True", 1, 5},
    {"a = nulll", 1, 5},
    /* Comments, columns in UTF-8 characters, CRLF line ends. */
    {"a = 1 /* x", 1, 7},
    {"a = 1 /* x *", 1, 7},
    {"k = \"\xc3\xa9\" ?", 1, 9},
    {"a = 1\r\nb = ?", 2, 5},
};

static void check_bad(const char *text, size_t len, unsigned line, unsigned col)
{
    char err[256];
    cJSON *root = parse_exact_n(text, len, err, sizeof err);
    if (root)
        fail_msg("accepted bad input: %s", text);
    unsigned got_line = 0, got_col = 0;
    if (sscanf(err, FILENAME ":%u:%u:", &got_line, &got_col) != 2 || got_line != line ||
        got_col != col)
        fail_msg("input %s: expected position %u:%u, got \"%s\"", text, line, col, err);
}

static void error_positions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        check_bad(bad_cases[i].text, strlen(bad_cases[i].text), bad_cases[i].line,
                  bad_cases[i].col);
    /* A raw NUL byte is just a bad byte, not the end of the text. */
    check_bad("a = \0", 5, 1, 5);
    check_bad("a = 1\0", 6, 1, 6);
}

static void nesting_limit(void **state)
{
    (void)state;
    char text[2 * 257 + 1];
    for (int depth = 256; depth <= 257; depth++) {
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        char err[256];
        cJSON *root = parse_exact_n(text, 2 * (size_t)depth, err, sizeof err);
        if (depth == 256) {
            assert_non_null(root);
            cJSON_Delete(root);
        } else {
            assert_null(root);
            check_bad(text, 2 * (size_t)depth, 1, 257);
        }
    }
    /* Objects count too, and the implicit root does not. */
    char deep[4 * 257 + 8];
    size_t n = 0;
    for (int i = 0; i < 257; i++) {
        memcpy(deep + n, "a={", 3);
        n += 3;
    }
    check_bad(deep, n, 1, 3 * 256 + 3);
}

/* Errors are reported into whatever room the caller gives, including none. */
static void error_buffer_sizes(void **state)
{
    (void)state;
    char err[8];
    assert_null(parse_exact("a = ?", NULL, 0));
    assert_null(parse_exact("a = ?", err, 0));
    memset(err, 'x', sizeof err);
    assert_null(parse_exact("a = ?", err, 1));
    assert_int_equal(err[0], '\0');
    assert_null(parse_exact("a = ?", err, sizeof err));
    assert_int_equal(strlen(err), sizeof err - 1);
    /* A successful parse leaves an empty message. */
    char ok[32] = "stale";
    cJSON *root = parse_exact("a = 1", ok, sizeof ok);
    assert_non_null(root);
    assert_string_equal(ok, "");
    cJSON_Delete(root);
}

/* Every prefix of a document that uses every construct parses or fails cleanly, never reading
 * past its end (the exact-size copy makes ASan check that). */
static void every_prefix_stays_in_bounds(void **state)
{
    (void)state;
    static const char doc[] = "\xef\xbb\xbf// header\n"
                              "name = \"cr\\u00e9ate \\ud83d\\ude00 \\\" \\\\ \\n\"\n"
                              "mass = -12.5e+3, count: 0\n"
                              "/* block */ flags = [true false null]\n"
                              "\"quoted\" = { inner = [1, 2.25, {x = 1e-3}], e = {} }\n";
    char err[256];
    size_t len = sizeof doc - 1;
    for (size_t n = 0; n <= len; n++)
        cJSON_Delete(parse_exact_n(doc, n, err, sizeof err));
    cJSON *full = parse_exact_n(doc, len, err, sizeof err);
    if (!full)
        fail_msg("%s", err);
    cJSON_Delete(full);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        size_t blen = strlen(bad_cases[i].text);
        for (size_t n = 0; n <= blen; n++)
            cJSON_Delete(parse_exact_n(bad_cases[i].text, n, err, sizeof err));
    }
}

static void read_file_errors_and_contents(void **state)
{
    (void)state;
    char err[512];
    size_t len = 99;
    const char *missing = "/nonexistent/cuttle/levels/a.level";
    assert_null(sjson__read_file(missing, &len, err, sizeof err));
    assert_non_null(strstr(err, missing));
    assert_null(sjson__read_file("/", &len, err, sizeof err));
    assert_non_null(strstr(err, "/"));

    char path[] = "/tmp/cuttle_test_sjson_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    /* Bigger than the reader's first buffer, to cover growth. */
    size_t size = 10000;
    char *data = malloc(size);
    for (size_t i = 0; i < size; i++)
        data[i] = (char)('a' + i % 26);
    assert_int_equal(write(fd, data, size), (ssize_t)size);
    close(fd);
    char *read = sjson__read_file(path, &len, err, sizeof err);
    assert_non_null(read);
    assert_int_equal(len, size);
    assert_memory_equal(read, data, size);
    assert_int_equal(read[len], '\0');
    free(read);
    free(data);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted_forms),
        cmocka_unit_test(string_escapes),
        cmocka_unit_test(json_equivalence),
        cmocka_unit_test(cjson_round_trip),
        cmocka_unit_test(error_positions),
        cmocka_unit_test(nesting_limit),
        cmocka_unit_test(error_buffer_sizes),
        cmocka_unit_test(every_prefix_stays_in_bounds),
        cmocka_unit_test(read_file_errors_and_contents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
