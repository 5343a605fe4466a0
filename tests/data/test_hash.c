/*
 * ct_hash.h against reference vectors, and the perfect-hash seed search.
 *
 * The vectors come from an independent Python implementation of MurmurHash2 and MurmurHash64A
 * written from Austin Appleby's original C; that implementation also reproduces every API id in
 * api/ (for example ct_hash32("ct.lua") == 0x2c36d80e).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ct_hash.h"
#include "perfect_hash.h"

typedef struct vector_t {
    const char *key;
    uint32_t seed;
    uint32_t h32;
    uint64_t h64;
} vector_t;

/* Lengths 0..9 cover every tail case of both functions (4- and 8-byte blocks). */
static const vector_t vectors[] = {
    {"", 0x00000000u, 0x00000000u, 0x0000000000000000ull},
    {"", 0x9747b28cu, 0x106e08d9u, 0x8397626cd6895052ull},
    {"a", 0x00000000u, 0x92685f5eu, 0x071717d2d36b6b11ull},
    {"a", 0x9747b28cu, 0xa2d0b27cu, 0xe96b6245652273aeull},
    {"ab", 0x00000000u, 0x1aa14063u, 0x62be85b2fe53d1f8ull},
    {"ab", 0x9747b28cu, 0x12d8262au, 0x9be5e012c4364087ull},
    {"abc", 0x00000000u, 0x13577c9bu, 0x9cc9c33498a95efbull},
    {"abc", 0x9747b28cu, 0x1c94221bu, 0xa9316c8740c81414ull},
    {"abcd", 0x00000000u, 0x26873021u, 0xec1044c45cc5097aull},
    {"abcd", 0x9747b28cu, 0xb11ab5f4u, 0xbb245b4802d79fa0ull},
    {"abcde", 0x00000000u, 0x5f09a8deu, 0x1182974836d6dbb7ull},
    {"abcde", 0x9747b28cu, 0x1b897eddu, 0x7642c616c328015aull},
    {"abcdefg", 0x00000000u, 0xf9a1cef3u, 0x241aa52b0a62005dull},
    {"abcdefg", 0x9747b28cu, 0xeb595499u, 0x5b4f5856bf1718a1ull},
    {"abcdefgh", 0x00000000u, 0x042287e6u, 0xafdb0257ff41aa98ull},
    {"abcdefgh", 0x9747b28cu, 0xc70d55ddu, 0x617b517726694ebaull},
    {"abcdefghi", 0x00000000u, 0xf0319aa7u, 0xc9b9d84356146ac2ull},
    {"abcdefghi", 0x9747b28cu, 0xdb106fbeu, 0x63c2a246fd386297ull},
    {"ct.lua", 0x00000000u, 0x2c36d80eu, 0xbee21ce3d8be5371ull},
    {"ct.lua", 0x9747b28cu, 0x556da023u, 0xa2625bb4b1ef2547ull},
    {"units/crate.unit", 0x00000000u, 0x38c3a2cau, 0xde94c1720158f1cfull},
    {"units/crate.unit", 0x9747b28cu, 0x01daa0e2u, 0x182a3f95a838467cull},
    {"The quick brown fox jumps over the lazy dog", 0x00000000u, 0x212729d0u,
     0x5589ca33042a861bull},
    {"The quick brown fox jumps over the lazy dog", 0x9747b28cu, 0x1d84d036u,
     0x029a7747a564bd84ull},
};

static void murmur_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const vector_t *v = &vectors[i];
        size_t len = strlen(v->key);
        /* Hash from an unaligned, exactly-sized copy: the functions must not care. */
        char *copy = malloc(len + 1);
        memcpy(copy + 1, v->key, len);
        assert_int_equal(ct_murmur2_32(copy + 1, len, v->seed), v->h32);
        assert_int_equal(ct_murmur64a(copy + 1, len, v->seed), v->h64);
        free(copy);
        if (v->seed == 0) {
            assert_int_equal(ct_hash32(v->key), v->h32);
            assert_int_equal(ct_hash64(v->key), v->h64);
        }
    }
}

#define NUM_KEYS 65000u
#define KEY_SIZE 48

static char *make_keys(uint32_t n, const char **keys)
{
    char *storage = malloc((size_t)n * KEY_SIZE);
    for (uint32_t i = 0; i < n; i++) {
        char *k = storage + (size_t)i * KEY_SIZE;
        snprintf(k, KEY_SIZE, "units/level_%03u/prop_%05u.unit", i % 97, i);
        keys[i] = k;
    }
    return storage;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void perfect_seed_for_65000_keys(void **state)
{
    (void)state;
    const char **keys = malloc(NUM_KEYS * sizeof *keys);
    char *storage = make_keys(NUM_KEYS, keys);
    uint32_t seed = 0;
    assert_int_equal(perfect_hash__find_seed(keys, NUM_KEYS, 0, 1000, &seed), 0);

    /* Check the answer independently of the search's own radix sort. */
    uint32_t *h = malloc(NUM_KEYS * sizeof *h);
    for (uint32_t i = 0; i < NUM_KEYS; i++)
        h[i] = ct_murmur2_32(keys[i], strlen(keys[i]), seed);
    qsort(h, NUM_KEYS, sizeof *h, compare_u32);
    for (uint32_t i = 1; i < NUM_KEYS; i++)
        assert_true(h[i] != h[i - 1]);
    free(h);
    free(storage);
    free(keys);
}

/* Finds two generated keys whose hashes collide under seed 0, so the search has to skip it. */
static void seed_zero_collision(const char **keys, uint32_t n, uint32_t *a, uint32_t *b)
{
    uint64_t *v = malloc((size_t)n * sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = (uint64_t)ct_murmur2_32(keys[i], strlen(keys[i]), 0) << 32 | i;
    qsort(v, n, sizeof *v, compare_u64);
    *a = *b = UINT32_MAX;
    for (uint32_t i = 1; i < n && *a == UINT32_MAX; i++) {
        if (v[i] >> 32 == v[i - 1] >> 32) {
            *a = (uint32_t)v[i - 1];
            *b = (uint32_t)v[i];
        }
    }
    free(v);
}

static void seed_search_skips_colliding_seeds(void **state)
{
    (void)state;
    /* 200,000 keys make a seed-0 collision all but certain (about 4.7 expected pairs). */
    const uint32_t n = 200000;
    const char **keys = malloc(n * sizeof *keys);
    char *storage = make_keys(n, keys);
    uint32_t a, b;
    seed_zero_collision(keys, n, &a, &b);
    assert_true(a != UINT32_MAX);
    const char *pair[2] = {keys[a], keys[b]};
    uint32_t seed = 12345;
    assert_int_equal(perfect_hash__find_seed(pair, 2, 0, 1, &seed), CT_ERR_NOT_FOUND);
    assert_int_equal(seed, 12345);
    assert_int_equal(perfect_hash__find_seed(pair, 2, 0, 100, &seed), 0);
    assert_true(seed > 0);
    assert_true(ct_hash32(pair[0]) == ct_hash32(pair[1]));
    assert_true(ct_murmur2_32(pair[0], strlen(pair[0]), seed) !=
                ct_murmur2_32(pair[1], strlen(pair[1]), seed));
    free(storage);
    free(keys);
}

static void seed_search_edge_cases(void **state)
{
    (void)state;
    uint32_t seed = 99;
    const char *same[3] = {"a", "b", "a"};
    assert_int_equal(perfect_hash__find_seed(same, 3, 0, 100, &seed), CT_ERR_INVALID);
    assert_int_equal(perfect_hash__find_seed(same, 0, 7, 1, &seed), 0);
    assert_int_equal(seed, 7);
    assert_int_equal(perfect_hash__find_seed(same, 2, 0, 0, &seed), CT_ERR_NOT_FOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(murmur_vectors),
        cmocka_unit_test(perfect_seed_for_65000_keys),
        cmocka_unit_test(seed_search_skips_colliding_seeds),
        cmocka_unit_test(seed_search_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
