/* cuttle-deps's pieces: the Lua literal scanner (what is a soft reference and where), the
 * collision check (a weak hash makes two names collide; the report names both paths), lookups
 * of what users type, and an index whose reference file is damaged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ct_hash.h"
#include "deps.h"

typedef struct found_t {
    char text[16][64];
    uint32_t line[16], column[16];
    uint32_t count;
} found_t;

static void collect(void *user, const char *s, size_t n, uint32_t line, uint32_t column)
{
    found_t *f = user;
    if (f->count < 16) {
        snprintf(f->text[f->count], sizeof f->text[0], "%.*s", (int)n, s);
        f->line[f->count] = line;
        f->column[f->count++] = column;
    }
}

static void lua_literals_skip_comments(void **state)
{
    (void)state;
    const char *lua = "-- \"in/a/comment\"\n"
                      "local a = \"units/a\" .. 'units/b'\n"
                      "--[==[ long \"comment\" ]] still ]==] x = [[units/c]]\n"
                      "t[b[1]] = \"esc\\\"aped\" y = [=[\nunits/d]=]\n"
                      "z = \"unterminated\n"
                      "w = 'units/e'";
    found_t f = {0};
    deps_lua_literals(lua, strlen(lua), collect, &f);
    assert_int_equal(f.count, 6);
    assert_string_equal(f.text[0], "units/a");
    assert_int_equal(f.line[0], 2);
    assert_int_equal(f.column[0], 12);
    assert_string_equal(f.text[1], "units/b");
    assert_int_equal(f.column[1], 25);
    assert_string_equal(f.text[2], "units/c");
    assert_int_equal(f.line[2], 3);
    assert_int_equal(f.column[2], 43);
    assert_string_equal(f.text[3], "esc\\\"aped");
    assert_int_equal(f.line[3], 4);
    assert_string_equal(f.text[4], "units/d"); /* the first newline of a long string is dropped */
    assert_int_equal(f.line[4], 5);
    assert_int_equal(f.column[4], 1);
    assert_string_equal(f.text[5], "units/e");
    assert_int_equal(f.line[5], 7);
}

static void lua_literals_never_read_past_the_end(void **state)
{
    (void)state;
    static const char *const cut[] = {"\"abc", "[[abc", "--[[abc", "[==[abc]=]", "'a\\", "-"};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        found_t f = {0};
        const size_t n = strlen(cut[i]);
        char *exact = malloc(n); /* no terminator: ASan sees a read past the end */
        memcpy(exact, cut[i], n);
        deps_lua_literals(exact, n, collect, &f);
        assert_int_equal(f.count, 0);
        free(exact);
    }
}

static char project[256];

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", project, rel);
    for (char *p = path + strlen(project) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A compiled-looking project written by hand: the index reads files, nothing else. */
static int make_project(void **state)
{
    (void)state;
    snprintf(project, sizeof project, "/tmp/cuttle_deps_unit.XXXXXX");
    assert_non_null(mkdtemp(project));
    write_file("project.sjson", "roots = [\"levels/one.level\"]\n");
    write_file("levels/one.level", "units = [\"units/a\" \"units/b\"]\n");
    write_file("units/a.unit", "x = 1\n");
    write_file("units/b.unit", "x = 2\n");
    write_file("units/b.mesh", "source_file = \"meshes/b.obj\"\n");
    write_file("meshes/b.obj", "v 0 0 0\n");
    write_file("meshes/unnamed.obj", "v 0 0 0\n"); /* no compile named it: not hashed */
    write_file("compiled/unit/units/a.bin", "");
    write_file("compiled/mesh/units/b.bin", "");
    write_file("compiled/level/levels/one.bin", "");
    write_file("compiled/references/units/b.mesh.refs",
               "@file\tmeshes/b.obj\tsource_file\t1\t16\t12\n");
    write_file("compiled/references/levels/one.level.refs", "unit\tunits/a\tunits\t1\t11\t7\n"
                                                            "unit\tunits/b\tunits\t1\t21\t7\n"
                                                            "this line is damaged\n"
                                                            "unit\tunits/gone\tunits\t0\t0\t0\n");
    return 0;
}

static int remove_project(void **state)
{
    (void)state;
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", project);
    return system(command);
}

/* A hash under which every name in units/ collides, and every path in meshes/ with every name
 * in levels/; others keep MurmurHash64A. */
static uint64_t weak_hash(const char *s)
{
    if (strncmp(s, "units/", 6) == 0)
        return 1;
    if (strncmp(s, "meshes/", 7) == 0 || strncmp(s, "levels/", 7) == 0)
        return 2;
    return ct_hash64(s);
}

static void collisions_name_both_paths(void **state)
{
    (void)state;
    deps_index_t ix;
    char err[256] = "";
    assert_int_equal(deps_index_load(&ix, project, 1, err, sizeof err), 0);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    /* units/b is a unit and a mesh: one name, so the pair a/b is reported once. The file the
     * mesh names through source_file collides with the level's name; the file nobody names is
     * not a name, so it collides with nothing. */
    assert_int_equal(deps_collisions(&ix, weak_hash, out), 2);
    fclose(out);
    assert_string_equal(text, "hash 0000000000000001: \"units/a\" (units/a.unit) and \"units/b\" "
                              "(units/b.mesh)\n"
                              "hash 0000000000000002: \"levels/one\" (levels/one.level) and "
                              "\"meshes/b.obj\" (meshes/b.obj)\n");
    free(text);
    deps_index_free(&ix);
}

static void lookups_and_a_damaged_index(void **state)
{
    (void)state;
    deps_index_t ix;
    char err[256] = "";
    assert_int_equal(deps_index_load(&ix, project, 2, err, sizeof err), 0);
    /* The damaged line is skipped; the others are read. */
    uint32_t level = deps_index_lookup(&ix, "levels/one", err, sizeof err);
    assert_int_not_equal(level, DEPS_NONE);
    assert_int_equal(ix.nodes[level].num_refs, 3);
    /* A name two types have needs its file. */
    assert_int_equal(deps_index_lookup(&ix, "units/b", err, sizeof err), DEPS_NONE);
    assert_non_null(strstr(err, "names resources of 2 types"));
    assert_int_not_equal(deps_index_lookup(&ix, "units/b.mesh", err, sizeof err), DEPS_NONE);
    assert_int_equal(deps_index_lookup(&ix, "units/c", err, sizeof err), DEPS_NONE);
    /* The reference without a span to a resource that is gone is missing; nothing reaches
     * units/b.mesh. */
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_int_equal(deps_missing(&ix, out), 1);
    assert_int_equal(deps_unused(&ix, out), 1);
    fclose(out);
    assert_string_equal(text, "levels/one.level:0:0: units: no unit named \"units/gone\"\n"
                              "units/b.mesh\n");
    free(text);
    deps_index_free(&ix);
}

static void no_compiled_folder(void **state)
{
    (void)state;
    deps_index_t ix;
    char err[256] = "";
    assert_int_equal(deps_index_load(&ix, "/", 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "run cuttle-compile first"));
    deps_index_free(&ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lua_literals_skip_comments),
        cmocka_unit_test(lua_literals_never_read_past_the_end),
        cmocka_unit_test_setup_teardown(collisions_name_both_paths, make_project, remove_project),
        cmocka_unit_test_setup_teardown(lookups_and_a_damaged_index, make_project, remove_project),
        cmocka_unit_test(no_compiled_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
