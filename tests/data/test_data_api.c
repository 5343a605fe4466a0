/* ct_data_api_v1: parse, walk, typed reads with fallbacks, load_file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/sjson.h"

static const char crate[] = "name = \"crate\"\n"
                            "mass = 10\n"
                            "static = false\n"
                            "tags = [ \"wood\" \"breakable\" ]\n"
                            "shape = { type = \"box\" half_extents = [0.5 0.5 0.5] }\n"
                            "nothing = null\n";

static void walk_a_tree(void **state)
{
    (void)state;
    const ct_data_api_v1 *d = data__api_v1();
    char err[256];
    ct_data_o *root = d->parse(crate, sizeof crate - 1, "crate.unit", err, sizeof err);
    assert_non_null(root);
    assert_int_equal(d->type(root), CT_DATA_OBJECT);
    assert_int_equal(d->count(root), 6);
    assert_string_equal(d->key(root), "");

    /* Members come back in source order with their keys. */
    static const char *const keys[] = {"name", "mass", "static", "tags", "shape", "nothing"};
    static const ct_data_type types[] = {CT_DATA_STRING, CT_DATA_NUMBER, CT_DATA_BOOL,
                                         CT_DATA_ARRAY,  CT_DATA_OBJECT, CT_DATA_NULL};
    uint32_t i = 0;
    for (const ct_data_o *m = d->first_child(root); m; m = d->next(m), i++) {
        assert_string_equal(d->key(m), keys[i]);
        assert_int_equal(d->type(m), types[i]);
    }
    assert_int_equal(i, 6);

    assert_string_equal(d->string(d->get(root, "name"), "?"), "crate");
    assert_true(d->number(d->get(root, "mass"), -1) == 10.0);
    assert_false(d->boolean(d->get(root, "static"), true));

    const ct_data_o *tags = d->get(root, "tags");
    assert_int_equal(d->count(tags), 2);
    assert_string_equal(d->key(d->first_child(tags)), "");
    assert_string_equal(d->string(d->next(d->first_child(tags)), NULL), "breakable");
    assert_null(d->get(tags, "wood"));

    const ct_data_o *extents = d->get(d->get(root, "shape"), "half_extents");
    double sum = 0;
    for (const ct_data_o *e = d->first_child(extents); e; e = d->next(e))
        sum += d->number(e, 0);
    assert_true(sum == 1.5);
    d->destroy(root);
}

static void lookups_and_fallbacks(void **state)
{
    (void)state;
    const ct_data_api_v1 *d = data__api_v1();
    ct_data_o *root = d->parse(crate, sizeof crate - 1, "crate.unit", NULL, 0);
    assert_non_null(root);
    /* Keys match exactly: case matters. */
    assert_null(d->get(root, "Name"));
    assert_null(d->get(root, "missing"));
    assert_null(d->get(root, NULL));
    assert_null(d->get(d->get(root, "mass"), "x"));
    /* Wrong type or no node: the fallback. */
    const ct_data_o *name = d->get(root, "name");
    assert_true(d->number(name, 7) == 7);
    assert_true(d->boolean(name, true));
    assert_string_equal(d->string(d->get(root, "mass"), "fb"), "fb");
    assert_null(d->string(d->get(root, "nothing"), NULL));
    assert_true(d->number(NULL, 3) == 3);
    assert_false(d->boolean(NULL, false));
    /* Leaves and NULL have no children. */
    assert_null(d->first_child(name));
    assert_int_equal(d->count(name), 0);
    assert_int_equal(d->count(NULL), 0);
    assert_null(d->first_child(NULL));
    assert_null(d->next(NULL));
    assert_int_equal(d->type(NULL), CT_DATA_INVALID);
    assert_string_equal(d->key(NULL), "");
    d->destroy(root);
    d->destroy(NULL);
}

static void parse_errors_and_load_file(void **state)
{
    (void)state;
    const ct_data_api_v1 *d = data__api_v1();
    char err[512];
    assert_null(d->parse("a = ", 4, "bad.sjson", err, sizeof err));
    assert_true(strncmp(err, "bad.sjson:1:5:", 14) == 0);

    assert_null(d->load_file("/nonexistent/cuttle.sjson", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/cuttle.sjson"));

    char path[] = "/tmp/cuttle_test_data_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, crate, sizeof crate - 1), (ssize_t)(sizeof crate - 1));
    close(fd);
    ct_data_o *root = d->load_file(path, err, sizeof err);
    assert_non_null(root);
    assert_string_equal(d->string(d->get(d->get(root, "shape"), "type"), NULL), "box");
    d->destroy(root);

    /* A bad file's errors name the file's path. */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a = 1\nb = [", 11), 11);
    close(fd);
    assert_null(d->load_file(path, err, sizeof err));
    assert_true(strncmp(err, path, strlen(path)) == 0);
    unsigned line = 0, col = 0;
    assert_int_equal(sscanf(err + strlen(path), ":%u:%u:", &line, &col), 2);
    assert_int_equal(line, 2);
    assert_int_equal(col, 6);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_a_tree),
        cmocka_unit_test(lookups_and_fallbacks),
        cmocka_unit_test(parse_errors_and_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
