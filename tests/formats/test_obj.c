/*
 * The OBJ reader: the Stanford bunny (glmark2-data), the hand-written cube, every corner syntax,
 * relative indices, fans, vertex sharing, computed normals, and broken files refused with the
 * file and line named, with nothing leaked (a counting allocator checks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../support/test_alloc.h"
#include "ct_file.h"
#include "ct_heap.h"
#include "obj.h"

static test_alloc_t counted = {{NULL, test_alloc__realloc}, 0, 0, 0}; /* test_alloc.h */

static void test_bunny(void **state)
{
    (void)state;
    size_t size;
    char *text = (char *)ct_file_read(BUNNY_OBJ, ct_heap_allocator(), 1u << 30, &size, NULL, 0);
    assert_non_null(text);
    obj_mesh_t m;
    char err[256];
    assert_int_equal(obj_read(text, size, "bunny.obj", &counted.base, &m, err, sizeof err), 0);
    /* The file's counts: 34,835 positions, 69,666 triangles, no normals of its own. */
    assert_int_equal(m.num_vertices, 34835);
    assert_int_equal(m.num_indices, 69666 * 3);
    assert_false(m.has_normals);
    for (uint32_t i = 0; i < m.num_vertices; i++) {
        const float *n = &m.normals[3 * i];
        const float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        assert_true(len2 > 0.99f && len2 < 1.01f);
    }
    /* The first line is "v 0.296502 -0.907931 0.450151". */
    assert_true(m.positions[0] == 0.296502f && m.positions[1] == -0.907931f);
    obj_free(&m, &counted.base);
    ct_free(ct_heap_allocator(), text, size + 1);
    assert_int_equal(counted.live_blocks, 0);
}

static void test_corners_and_sharing(void **state)
{
    (void)state;
    static const char quad[] =
        "# a quad as one fan, then a relative triangle\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n"
        "o thing\ns off\nusemtl none\n"
        "f 1/1/1 2/2/1 3/3/1 4/1/1\r\n"
        "f -4/-3/-1 -3/-2/-1 -2/-1/-1";
    obj_mesh_t m;
    char err[256];
    assert_int_equal(
        obj_read(quad, sizeof quad - 1, "quad.obj", &counted.base, &m, err, sizeof err), 0);
    assert_int_equal(m.num_indices, 9);
    /* Corners 1/1/1, 2/2/1, 3/3/1, 4/1/1: the relative triangle repeats the first three. */
    assert_int_equal(m.num_vertices, 4);
    assert_true(m.has_normals);
    assert_true(m.uvs[2 * m.indices[1]] == 1.0f);
    assert_int_equal(m.indices[6], m.indices[0]);
    obj_free(&m, &counted.base);
    static const char short_uv[] =
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.5\nvt 0.25 0.75 0\nf 1/1 2/2 3/1\n";
    assert_int_equal(
        obj_read(short_uv, sizeof short_uv - 1, "uv.obj", &counted.base, &m, err, sizeof err), 0);
    assert_true(m.uvs[0] == 0.5f && m.uvs[1] == 0.0f && m.uvs[3] == 0.75f);
    obj_free(&m, &counted.base);
    static const char mixed[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 1 2 3\n";
    assert_int_equal(
        obj_read(mixed, sizeof mixed - 1, "mixed.obj", &counted.base, &m, err, sizeof err), 0);
    assert_int_equal(m.num_vertices, 6); /* with and without normals are different vertices */
    assert_false(m.has_normals);         /* so normals are computed for all */
    assert_true(m.normals[2] == 1.0f);
    obj_free(&m, &counted.base);
    assert_int_equal(counted.live_blocks, 0);
}

static void expect_error(const char *text, const char *message)
{
    obj_mesh_t m;
    char err[256];
    assert_int_equal(obj_read(text, strlen(text), "bad.obj", &counted.base, &m, err, sizeof err),
                     CT_ERR_BAD_DATA);
    if (!strstr(err, message))
        fail_msg("expected '%s' in '%s'", message, err);
    assert_null(m.positions);
    assert_int_equal(counted.live_blocks, 0);
}

static void test_broken_files(void **state)
{
    (void)state;
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n",
                 "bad.obj:4: position index 4 is out of range");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", "bad.obj:4: position index 0");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n",
                 "bad.obj:4: a face needs at least 3 corners");
    expect_error("v 0 zero 0\n", "bad.obj:1: 'zero 0' is not a number");
    expect_error("v 0 0\n", "bad.obj:1: expected 3 numbers");
    expect_error("v 0 0 0 1 2\n", "bad.obj:1: expected 3 numbers");
    expect_error("v 0 0 0\nvt\n", "bad.obj:2: expected 1 to 3 numbers");
    expect_error("v 0 0 0\nvt 1 2 3 4\n", "bad.obj:2: expected 1 to 3 numbers");
    expect_error("v 0 nan 0\n", "not a finite float");
    expect_error("v 1e39 0 0\n", "not a finite float");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/x 2 3\n", "bad face corner");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2 3\n",
                 "texture coordinate index 1 is out of range");
    expect_error("v 0 0 0\nv 1 0 0\n", "bad.obj: no faces");
    /* Issue 28: negating the most negative index overflowed (UBSan); it is out of range. */
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -9223372036854775808 2 3\n",
                 "position index -9223372036854775808 is out of range");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/-9223372036854775808 2/1 3/1\n",
                 "texture coordinate index -9223372036854775808 is out of range");
    expect_error("", "no faces");
    char nul[] = "v 0 0 0\nv 1\0 0 0\n";
    obj_mesh_t m;
    char err[256];
    assert_int_equal(obj_read(nul, sizeof nul - 1, "nul.obj", &counted.base, &m, err, sizeof err),
                     CT_ERR_BAD_DATA);
    assert_non_null(strstr(err, "nul.obj:2: NUL byte"));
    char *long_line = malloc(8000);
    memset(long_line, ' ', 8000);
    long_line[0] = 'v';
    assert_int_equal(obj_read(long_line, 8000, "long.obj", &counted.base, &m, err, sizeof err),
                     CT_ERR_BAD_DATA);
    assert_non_null(strstr(err, "long.obj:1: line longer than"));
    free(long_line);
    assert_int_equal(counted.live_blocks, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bunny),
        cmocka_unit_test(test_corners_and_sharing),
        cmocka_unit_test(test_broken_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
