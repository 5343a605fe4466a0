/* Blob validation: every truncation, every header field and every payload bit is checked, and
 * nothing is read outside the blob (each input is an exactly-sized heap copy, so the ASan build
 * catches a stray read). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "fixture.h"
#include "resources/resources.h"
#include "test_type.h"

#define HEADER 40
#define FORMAT 7

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A blob laid out by hand from the header's documentation, as an independent check of it. The
 * payload is a valid "numbers" payload: values 5, -6 and the label "hi". */
static size_t make_blob(uint8_t *blob)
{
    uint8_t *p = blob + HEADER;
    put32(p, 0x4d554e54u);
    put32(p + 4, 2);
    put32(p + 8, 24);
    put32(p + 12, 2);
    put32(p + 16, 5);
    put32(p + 20, (uint32_t)-6);
    memcpy(p + 24, "hi", 2);
    size_t payload = 26;
    put32(blob, 0x42525443u);
    put32(blob + 4, 1);
    put64(blob + 8, ct_hash64(TEST_TYPE));
    put32(blob + 16, FORMAT);
    put32(blob + 20, 0);
    put64(blob + 24, payload);
    put64(blob + 32, ct_murmur64a(p, payload, 0));
    return HEADER + payload;
}

/* Validates an exactly-sized heap copy of the first `size` bytes of `blob`. */
static int validate(const uint8_t *blob, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, blob, size);
    const void *payload = NULL;
    uint64_t payload_size = 0;
    char err[256] = "";
    int rc = resources__validate_blob(copy, size, TEST_TYPE, FORMAT, &payload, &payload_size, err,
                                      sizeof err);
    if (rc == 0) {
        assert_ptr_equal(payload, copy + HEADER);
        assert_int_equal(payload_size, size - HEADER);
    } else {
        assert_true(err[0] != '\0');
    }
    free(copy);
    return rc;
}

static void a_valid_blob_passes(void **state)
{
    (void)state;
    uint8_t blob[128];
    size_t size = make_blob(blob);
    assert_int_equal(validate(blob, size), 0);
    assert_int_equal(resources__validate_blob(blob, size, TEST_TYPE, FORMAT, NULL, NULL, NULL, 0),
                     0);
}

static void every_truncation_is_refused(void **state)
{
    (void)state;
    uint8_t blob[128];
    size_t size = make_blob(blob);
    for (size_t n = 0; n < size; n++)
        assert_int_equal(validate(blob, n), CT_ERR_BAD_DATA);
    assert_int_equal(resources__validate_blob(NULL, 0, TEST_TYPE, FORMAT, NULL, NULL, NULL, 0),
                     CT_ERR_BAD_DATA);
}

static void a_trailing_byte_is_refused(void **state)
{
    (void)state;
    uint8_t blob[128];
    size_t size = make_blob(blob);
    blob[size] = 0;
    assert_int_equal(validate(blob, size + 1), CT_ERR_BAD_DATA);
}

/* Each header field changed on its own gives its own code. */
static void each_header_field_is_checked(void **state)
{
    (void)state;
    static const struct {
        size_t offset;
        size_t width;
        int code;
    } fields[] = {
        {0, 4, CT_ERR_BAD_DATA},  /* magic */
        {4, 4, CT_ERR_VERSION},   /* header_version */
        {8, 8, CT_ERR_BAD_DATA},  /* type */
        {16, 4, CT_ERR_VERSION},  /* format_version */
        {20, 4, CT_ERR_BAD_DATA}, /* reserved */
        {24, 8, CT_ERR_BAD_DATA}, /* payload_size */
        {32, 8, CT_ERR_BAD_DATA}, /* checksum */
    };
    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
        for (size_t byte = 0; byte < fields[f].width; byte++) {
            uint8_t blob[128];
            size_t size = make_blob(blob);
            blob[fields[f].offset + byte] ^= 0x01;
            assert_int_equal(validate(blob, size), fields[f].code);
            blob[fields[f].offset + byte] ^= 0x81;
            assert_int_equal(validate(blob, size), fields[f].code);
        }
    }
}

static void a_huge_payload_size_does_not_overflow(void **state)
{
    (void)state;
    uint64_t sizes[] = {UINT64_MAX, UINT64_MAX - HEADER + 1, 1ull << 63, 0};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        uint8_t blob[128];
        size_t size = make_blob(blob);
        put64(blob + 24, sizes[i]);
        assert_int_equal(validate(blob, size), CT_ERR_BAD_DATA);
    }
}

static void every_payload_bit_is_covered(void **state)
{
    (void)state;
    uint8_t blob[128];
    size_t size = make_blob(blob);
    for (size_t bit = HEADER * 8; bit < size * 8; bit++) {
        blob[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_equal(validate(blob, size), CT_ERR_BAD_DATA);
        blob[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    assert_int_equal(validate(blob, size), 0);
}

static void write_blob(const char *dir, const char *name, const uint8_t *blob, size_t size)
{
    char rel[256];
    snprintf(rel, sizeof rel, "compiled/%s/%s.bin", TEST_TYPE, name);
    fixture_write(dir, rel, "");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(blob, 1, size, f), size);
    fclose(f);
}

/* The same checks through load, from files in the compiled folder. */
static void load_refuses_bad_files(void **state)
{
    (void)state;
    const char *dir = fixture_make_dir();
    uint8_t blob[128];
    size_t size = make_blob(blob);
    write_blob(dir, "good", blob, size);
    write_blob(dir, "short", blob, size - 1);
    blob[16] = FORMAT + 1;
    write_blob(dir, "newer", blob, size);
    size = make_blob(blob);
    blob[size - 1] ^= 0x10;
    write_blob(dir, "flipped", blob, size);
    /* A header that is right around a payload the type refuses: 200 values in 26 bytes. */
    size = make_blob(blob);
    put32(blob + HEADER + 4, 200);
    put64(blob + 32, ct_murmur64a(blob + HEADER, size - HEADER, 0));
    write_blob(dir, "lying", blob, size);

    fixture_start(dir);
    test_type_counters_t counters = {0};
    ct_resource_type_t t = test_type(FORMAT, &counters);
    const ct_resource_api_v1 *api = resources__api_v1();
    assert_int_equal(api->register_type(&t), 0);
    assert_int_equal(api->load(TEST_TYPE, "good"), 0);
    const test_numbers_t *n = api->get(TEST_TYPE, "good");
    assert_non_null(n);
    assert_int_equal(n->count, 2);
    assert_int_equal(n->values[1], -6);
    assert_string_equal(n->label, "hi");
    assert_int_equal(api->load(TEST_TYPE, "short"), CT_ERR_BAD_DATA);
    assert_int_equal(api->load(TEST_TYPE, "newer"), CT_ERR_VERSION);
    assert_int_equal(api->load(TEST_TYPE, "flipped"), CT_ERR_BAD_DATA);
    assert_int_equal(api->load(TEST_TYPE, "lying"), CT_ERR_BAD_DATA);
    assert_null(api->get(TEST_TYPE, "short"));
    assert_null(api->get(TEST_TYPE, "lying"));
    assert_int_equal(counters.loads, 1);
    fixture_stop(); /* shutdown unloads "good" through the type */
    assert_int_equal(counters.unloads, 1);
    fixture_remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_valid_blob_passes),
        cmocka_unit_test(every_truncation_is_refused),
        cmocka_unit_test(a_trailing_byte_is_refused),
        cmocka_unit_test(each_header_field_is_checked),
        cmocka_unit_test(a_huge_payload_size_does_not_overflow),
        cmocka_unit_test(every_payload_bit_is_covered),
        cmocka_unit_test(load_refuses_bad_files),
    };
    return cmocka_run_group_tests_name("resources blob", tests, NULL, NULL);
}
