/*
 * Every API id in api/ is the hash of the name its comment gives: a line of the form
 *     #define CT_XXX_API 0x0123abcdu, then the name quoted inside a comment,
 * must satisfy ct_hash32("name") == 0x0123abcd. The headers are read from the source tree, so
 * headers added later are checked without touching this test. Ids must also be unique.
 */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ct_hash.h"

#ifndef CT_TEST_SOURCE_ROOT
#error "tests/data/meson.build defines CT_TEST_SOURCE_ROOT"
#endif

#define MAX_IDS 256

typedef struct api_id_t {
    char macro[64];
    uint32_t id;
} api_id_t;

static api_id_t ids[MAX_IDS];
static uint32_t num_ids;

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Checks one line and records its id; lines that do not define a CT_*_API value are ignored.
 * Returns false with a message naming the header and line when the line is wrong. */
static bool check_line(const char *header, uint32_t line_no, const char *line, char *why,
                       size_t why_size)
{
    const char *s = skip_blanks(line);
    if (strncmp(s, "#define", 7) != 0)
        return true;
    s = skip_blanks(s + 7);
    size_t macro_len = 0;
    while (isalnum((unsigned char)s[macro_len]) || s[macro_len] == '_')
        macro_len++;
    if (strncmp(s, "CT_", 3) != 0 || macro_len < 8 || strncmp(s + macro_len - 4, "_API", 4) != 0)
        return true;
    if (s[macro_len] == '(')
        return true; /* a function-like macro (CT_MODULE_API(part, version, slot)), not an id */
    char macro[64];
    snprintf(macro, sizeof macro, "%.*s", (int)macro_len, s);
    const char *value = skip_blanks(s + macro_len);
    if (*value == '\0' || *value == '\n')
        return true; /* a bare flag macro, not an id */

    unsigned id;
    int used = 0;
    char name[128];
    bool ok = sscanf(value, "0x%8x%n", &id, &used) == 1 && used == 10 && value[used] == 'u' &&
              sscanf(skip_blanks(value + used + 1), "/* \"%127[^\"]\" */", name) == 1;
    if (!ok) {
        snprintf(why, why_size, "%s:%u: %s must read `#define %s 0x????????u /* \"name\" */`",
                 header, line_no, macro, macro);
        return false;
    }
    if (ct_hash32(name) != id) {
        snprintf(why, why_size, "%s:%u: %s is 0x%08x but ct_hash32(\"%s\") is 0x%08x", header,
                 line_no, macro, id, name, ct_hash32(name));
        return false;
    }
    for (uint32_t i = 0; i < num_ids; i++) {
        if (ids[i].id == id) {
            snprintf(why, why_size, "%s:%u: %s has the same id as %s", header, line_no, macro,
                     ids[i].macro);
            return false;
        }
    }
    if (num_ids == MAX_IDS) {
        snprintf(why, why_size, "more than %d API ids: raise MAX_IDS", MAX_IDS);
        return false;
    }
    snprintf(ids[num_ids].macro, sizeof ids[num_ids].macro, "%s", macro);
    ids[num_ids++].id = id;
    return true;
}

static void check_header(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    uint32_t line_no = 0;
    char why[512];
    while (fgets(line, sizeof line, f)) {
        if (!check_line(path, ++line_no, line, why, sizeof why))
            fail_msg("%s", why);
    }
    fclose(f);
}

static void api_ids_are_hashes_of_their_names(void **state)
{
    (void)state;
    const char *dir_path = CT_TEST_SOURCE_ROOT "/api";
    DIR *dir = opendir(dir_path);
    assert_non_null(dir);
    struct dirent *e;
    uint32_t headers = 0;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
        check_header(path);
        headers++;
    }
    closedir(dir);
    /* The kernel's own APIs alone are eight; fewer means the scan is not finding them. */
    assert_true(headers >= 8);
    assert_true(num_ids >= 8);
}

static void the_scanner_accepts_and_rejects(void **state)
{
    (void)state;
    char why[512];
    num_ids = 0;
    assert_true(
        check_line("x.h", 1, "#define CT_LUA_API 0x2c36d80eu /* \"ct.lua\" */\n", why, sizeof why));
    assert_true(check_line("x.h", 2, "#define CT_SEED_PLUGIN_API\n", why, sizeof why));
    assert_true(
        check_line("x.h", 3, "#define CT_MODULE_API(part, v, slot) { #part }\n", why, sizeof why));
    assert_true(check_line("x.h", 3, "int CT_LUA_API = 1;\n", why, sizeof why));
    assert_int_equal(num_ids, 1);
    /* Missing name comment, wrong hash, missing u suffix, a repeated id. */
    assert_false(check_line("x.h", 4, "#define CT_A_API 0x2c36d80eu\n", why, sizeof why));
    assert_false(
        check_line("x.h", 5, "#define CT_B_API 0x2c36d80fu /* \"ct.lua\" */\n", why, sizeof why));
    assert_false(
        check_line("x.h", 6, "#define CT_C_API 0x2c36d80e /* \"ct.lua\" */\n", why, sizeof why));
    assert_false(
        check_line("x.h", 7, "#define CT_D_API 0x2c36d80eu /* \"ct.lua\" */\n", why, sizeof why));
    num_ids = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_scanner_accepts_and_rejects),
        cmocka_unit_test(api_ids_are_hashes_of_their_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
