/*
 * The SDK's kernel-free helpers: api/ct_heap.h (the C heap as an allocator) and api/ct_file.h
 * (a whole file into one block) and api/ct_array.h (growing an array): what they hand back, and
 * each way they refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../support/test_alloc.h"
#include "ct_array.h"
#include "ct_file.h"
#include "ct_heap.h"

static char path[64];

static int write_file(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/ct_file_test_%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite("hello\0world", 1, 11, f), 11);
    fclose(f);
    return 0;
}

static int remove_file(void **state)
{
    (void)state;
    remove(path);
    return 0;
}

static void heap_allocates_and_frees(void **state)
{
    (void)state;
    ct_allocator_t *a = ct_heap_allocator();
    assert_ptr_equal(a, ct_heap_allocator());
    char *p = ct_alloc(a, 8);
    assert_non_null(p);
    memcpy(p, "1234567", 8);
    p = ct_realloc(a, p, 8, 4096);
    assert_string_equal(p, "1234567");
    assert_null(ct_realloc(a, p, 4096, 0));
}

static void a_file_is_read_whole_with_a_nul_after(void **state)
{
    (void)state;
    test_alloc_t t;
    test_alloc_init(&t);
    size_t size = 99;
    char err[256] = "";
    uint8_t *bytes = ct_file_read(path, &t.base, 11, &size, err, sizeof err);
    assert_non_null(bytes);
    assert_int_equal(size, 11);
    assert_memory_equal(bytes, "hello\0world", 11);
    assert_int_equal(bytes[11], 0);
    assert_int_equal(t.live_bytes, 12);
    ct_free(&t.base, bytes, size + 1);
    assert_int_equal(t.live_blocks, 0);
}

static void each_refusal_says_why(void **state)
{
    (void)state;
    test_alloc_t t;
    test_alloc_init(&t);
    size_t size = 99;
    char err[256];
    assert_null(ct_file_read("/nonexistent/ct_file", &t.base, 100, &size, err, sizeof err));
    assert_int_equal(size, 0);
    assert_non_null(strstr(err, "/nonexistent/ct_file: cannot open: "));
    assert_null(ct_file_read(path, &t.base, 10, &size, err, sizeof err));
    assert_non_null(strstr(err, "not a readable file of at most 10 bytes"));
    assert_null(ct_file_read("/tmp", &t.base, 100, &size, err, sizeof err)); /* a folder */
    assert_non_null(strstr(err, "/tmp: "));
    assert_int_equal(t.allocations, 0);
    assert_null(ct_file_read("/nonexistent", &t.base, 100, &size, NULL, 0)); /* no message */
}

static void *refuse(ct_allocator_t *a, void *p, size_t old_size, size_t new_size, const char *file,
                    uint32_t line)
{
    (void)a, (void)p, (void)old_size, (void)new_size, (void)file, (void)line;
    return NULL;
}

static void arrays_double_until_what_is_needed_fits(void **state)
{
    (void)state;
    assert_int_equal(ct_array_capacity(0, 1, 16), 16);
    assert_int_equal(ct_array_capacity(16, 16, 16), 16);
    assert_int_equal(ct_array_capacity(16, 17, 16), 32);
    assert_int_equal(ct_array_capacity(16, 100, 16), 128);
    assert_int_equal(ct_array_capacity(0, 3, 0), 4);
    assert_int_equal(ct_array_capacity(1u << 31, UINT32_MAX, 8), UINT32_MAX);

    test_alloc_t t;
    test_alloc_init(&t);
    uint64_t *v = NULL;
    uint32_t capacity = 0;
    for (uint32_t i = 0; i < 100; i++) {
        assert_true(ct_array_reserve_of(&t.base, &v, &capacity, i + 1, 8));
        v[i] = i * 3u;
    }
    assert_int_equal(capacity, 128);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(v[i], i * 3u);
    assert_int_equal(t.allocations, 5); /* 8, 16, 32, 64, 128 */

    ct_allocator_t none = {NULL, refuse};
    uint64_t *kept = v;
    assert_false(ct_array_reserve_of(&none, &v, &capacity, 129, 8));
    assert_ptr_equal(v, kept);
    assert_int_equal(capacity, 128);
    ct_free(&t.base, v, capacity * sizeof *v);
    assert_int_equal(t.live_blocks, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heap_allocates_and_frees),
        cmocka_unit_test(a_file_is_read_whole_with_a_nul_after),
        cmocka_unit_test(each_refusal_says_why),
        cmocka_unit_test(arrays_double_until_what_is_needed_fits),
    };
    return cmocka_run_group_tests(tests, write_file, remove_file);
}
