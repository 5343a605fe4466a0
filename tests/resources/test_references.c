/* The references a source makes (ct_resource_api_v6.reference): the index cuttle-compile keeps
 * under compiled/references/, with the span of each name in the source text, and a missing
 * resource as a compile error naming the file, field, name and the nearest existing name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/memory.h"
#include "data/sjson.h"
#include "fixture.h"
#include "compiler.h"

static const char *dir;
static char last_error[1024];

static void sink(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx, (void)tag;
    if (level == CT_LOG_ERROR)
        snprintf(last_error, sizeof last_error, "%s", text);
}

/* The type "holder": `uses = ["things/a" ...]` names resources of the type "thing". */
static int compile_holder(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_resource_api_v6 *res = resources__api_v6();
    const ct_data_api_v1 *data = data__api_v1();
    const ct_data_o *list = data->get(source, "uses");
    for (const ct_data_o *f = data->first_child(list); f; f = data->next(f))
        if (!res->reference(ctx, "uses", "thing", data->string(f, NULL)))
            return CT_ERR_BAD_DATA;
    res->write(ctx, "h", 1);
    return 0;
}

static int compile_thing(void *user_data, const struct ct_data_o *source, ct_compile_ctx_o *ctx)
{
    (void)user_data, (void)source;
    resources__api_v6()->write(ctx, "t", 1);
    return 0;
}

static void *load_any(void *user_data, const void *payload, uint64_t size, char *err,
                      size_t err_size)
{
    (void)user_data, (void)size, (void)err, (void)err_size;
    return (void *)payload;
}

static int setup(void **state)
{
    (void)state;
    dir = fixture_make_dir();
    fixture_write(dir, "things/apple.thing", "x = 1\n");
    fixture_write(dir, "things/pear.thing", "x = 2\n");
    fixture_write(dir, "h.holder",
                  "// names two things\n"
                  "uses = [\"things/apple\"\n"
                  "        \"things/pear\" \"things/apple\"]  // apple twice\n");
    fixture_start(dir);
    static const ct_resource_type_t holder = {"holder", 1, NULL, compile_holder, load_any, NULL};
    static const ct_resource_type_t thing = {"thing", 1, NULL, compile_thing, load_any, NULL};
    assert_int_equal(resources__api_v6()->register_type(&holder), 0);
    assert_int_equal(resources__api_v6()->register_type(&thing), 0);
    log__set_sink(sink, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    log__set_sink(NULL, NULL);
    fixture_stop();
    fixture_remove_dir(dir);
    return 0;
}

static char *read_text(const char *rel)
{
    static char text[4096];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* Each reference in the index, in order, with its line, column and length in the source. */
static void test_index_records_spans(void **state)
{
    (void)state;
    uint32_t c, u, f;
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), 0);
    assert_int_equal(c, 3);
    assert_int_equal(f, 0);
    const char *refs = read_text("compiled/references/h.holder.refs");
    assert_non_null(refs);
    assert_string_equal(refs, "thing\tthings/apple\tuses\t2\t10\t12\n"
                              "thing\tthings/pear\tuses\t3\t10\t11\n"
                              "thing\tthings/apple\tuses\t3\t24\t12\n");
    /* A source with no references has no index file. */
    assert_false(fixture_exists(dir, "compiled/references/things/apple.thing.refs"));
    /* Up to date: the index stays as it was. */
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), 0);
    assert_int_equal(c, 0);
    assert_non_null(read_text("compiled/references/h.holder.refs"));
}

/* A name with no resource fails the compile, naming file, field, name and the nearest name;
 * the index and blob of the failed source go. (Before, it compiled and failed at spawn.) */
static void test_missing_is_a_compile_error(void **state)
{
    (void)state;
    fixture_write(dir, "h.holder", "uses = [\"things/aple\"]\n");
    fixture_set_mtime(dir, "h.holder", 2000000000);
    uint32_t c, u, f;
    last_error[0] = '\0';
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), CT_ERR_BAD_DATA);
    assert_int_equal(f, 1);
    assert_string_equal(
        last_error, "h.holder: uses: no thing named \"things/aple\" (nearest: \"things/apple\")");
    assert_false(fixture_exists(dir, "compiled/references/h.holder.refs"));
    assert_false(fixture_exists(dir, "compiled/holder/h.bin"));

    /* Moved to another folder: the same file name elsewhere is the nearest. */
    fixture_write(dir, "h.holder", "uses = [\"fruit/pear\"]\n");
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), CT_ERR_BAD_DATA);
    assert_string_equal(last_error,
                        "h.holder: uses: no thing named \"fruit/pear\" (nearest: \"things/pear\")");

    /* Nothing near: said so. */
    fixture_write(dir, "h.holder", "uses = [\"zzz/qqqqqqqq\"]\n");
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), CT_ERR_BAD_DATA);
    assert_string_equal(last_error, "h.holder: uses: no thing named \"zzz/qqqqqqqq\" (the "
                                    "project has none near it)");

    /* Not a name at all. */
    fixture_write(dir, "h.holder", "uses = [\"Things/Apple\"]\n");
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), CT_ERR_BAD_DATA);
    assert_non_null(strstr(last_error, "h.holder: uses: \"Things/Apple\" is not a resource name"));

    /* Fixed: compiles, and the index is back. */
    fixture_write(dir, "h.holder", "uses = [\"things/pear\"]\n");
    assert_int_equal(compiler__compile_project(dir, &c, &u, &f), 0);
    assert_string_equal(read_text("compiled/references/h.holder.refs"),
                        "thing\tthings/pear\tuses\t1\t10\t11\n");
}

/* A deleted source takes its index file with it. */
static void test_deleted_source_loses_its_index(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/h.holder", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(compiler__compile_project(dir, NULL, NULL, NULL), 0);
    assert_false(fixture_exists(dir, "compiled/references/h.holder.refs"));
}

/* Outside cuttle-compile (load_source) only the name is checked: no index, no project lookup. */
static void test_load_source_checks_names_only(void **state)
{
    (void)state;
    const ct_resource_api_v6 *res = resources__api_v6();
    const char *ok = "uses = [\"nowhere/at_all\"]";
    assert_int_equal(res->load_source("holder", "mem/a", ok, strlen(ok)), 0);
    res->unload("holder", "mem/a");
    const char *bad = "uses = [\"../up\"]";
    assert_int_not_equal(res->load_source("holder", "mem/b", bad, strlen(bad)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_records_spans),
        cmocka_unit_test(test_missing_is_a_compile_error),
        cmocka_unit_test(test_deleted_source_loses_its_index),
        cmocka_unit_test(test_load_source_checks_names_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
