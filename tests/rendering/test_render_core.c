/*
 * The rendering core without the kernel: sort keys field by field, contexts, the stable radix
 * sort against a reference, merge order, display lists built serially and on a pool (same
 * bytes), and the null backend's counts and hash (a fixed value, so a change in the stream's
 * bytes shows up).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ct_heap.h"
#include "render_core.h"
#include "render_mesh_blob.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

#include <math.h>

static void test_key_fields(void **state)
{
    (void)state;
    const render__key_fields f = {
        .layer = 3, .pass = 2, .program = 1000, .material = 0xbeef, .depth = 12345};
    const uint64_t k = render__key_encode(&f);
    assert_int_equal(k, 0x032fa2fbbc003039ull);
    const render__key_fields g = render__key_decode(k);
    assert_memory_equal(&f, &g, sizeof f);
    /* A layer always outranks everything below it. */
    const render__key_fields hi = {.layer = 1}, lo = {.layer = 0,
                                                      .pass = 15,
                                                      .program = 1023,
                                                      .material = 0xffff,
                                                      .depth = (1u << 26) - 1};
    assert_true(render__key_encode(&hi) > render__key_encode(&lo));
    /* Depth: 0 at near, top at far, complemented back to front, NaN to 0. */
    assert_int_equal(render__key_depth(0.1f, 0.1f, 100.0f, false), 0);
    assert_int_equal(render__key_depth(100.0f, 0.1f, 100.0f, false), (1u << 26) - 1);
    assert_int_equal(render__key_depth(1e9f, 0.1f, 100.0f, true), 0);
    assert_int_equal(render__key_depth(0.0f / 0.0f, 0.1f, 100.0f, false), 0);
}

static uint64_t rng = 0x1234567;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int compare_stable(const void *a, const void *b)
{
    const render__packet *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->command > y->command) - (x->command < y->command); /* recording order */
}

static void test_radix_sort_is_stable(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint32_t hist[RENDER_RADIX_DIGITS][RENDER_RADIX_BUCKETS];
    render__packet *p = malloc(N * sizeof *p), *ref = malloc(N * sizeof *p),
                   *tmp = malloc(N * sizeof *p);
    for (uint32_t i = 0; i < N; i++) {
        /* Few distinct keys, so most have equals whose order must survive. */
        p[i] = (render__packet){(next_random() % 50) << 40 | (next_random() % 3), 0, i};
        ref[i] = p[i];
    }
    qsort(ref, N, sizeof *ref, compare_stable);
    render__radix_sort(p, tmp, N, hist);
    assert_memory_equal(p, ref, N * sizeof *p);
    /* All keys equal: every pass is skipped and the order is untouched. */
    for (uint32_t i = 0; i < N; i++)
        p[i] = (render__packet){7, 0, i};
    render__radix_sort(p, tmp, N, hist);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(p[i].command, i);
    render__radix_sort(p, tmp, 0, hist);
    free(p), free(ref), free(tmp);
}

static render__command draw_cmd(uint32_t mesh, uint32_t material, float x)
{
    return (render__command){.kind = RENDER_CMD_DRAW,
                             .mesh = mesh,
                             .material = material,
                             .program = material % 2,
                             .world = {1, 0, 0, x, 0, 1, 0, 0, 0, 0, 1, -5}};
}

/* Records n draws spread over contexts of `grain` objects each, like the gather step does. */
static void record_scene(render__queue *q, uint32_t n, uint32_t grain)
{
    assert_true(render__queue_begin(q, (n + grain - 1) / grain));
    for (uint32_t i = 0; i < n; i++) {
        const render__command c = draw_cmd(i % 7 % 5, i % 7, (float)i * 0.01f);
        const render__key_fields f = {
            .layer = i % 2, .program = c.program, .material = c.material, .depth = i % 3};
        render__context_record(&q->contexts[i / grain], ct_heap_allocator(), render__key_encode(&f),
                               &c);
    }
}

static void test_merge_keeps_context_order(void **state)
{
    (void)state;
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    record_scene(&q, 5000, 700);
    assert_true(render__merge_sort(&q));
    assert_int_equal(q.num_packets, 5000);
    for (uint32_t i = 1; i < q.num_packets; i++) {
        const render__packet *a = &q.sorted[i - 1], *b = &q.sorted[i];
        assert_true(a->key <= b->key);
        if (a->key == b->key) /* equal keys: context order, then recording order */
            assert_true(a->context < b->context ||
                        (a->context == b->context && a->command < b->command));
    }
    render__queue_free(&q);
}

/* A pool that runs the ranges in reverse order, to show the result does not depend on order. */
static void reverse_pool(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn, void *user)
{
    (void)ctx;
    uint32_t blocks = (count + grain - 1) / grain;
    while (blocks--)
        fn(user, blocks * grain, (blocks + 1) * grain < count ? (blocks + 1) * grain : count);
}

static void test_build_and_null_backend(void **state)
{
    (void)state;
    static const float view_proj[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, -1, 0, 0, -0.2f, 0};
    render__draw *serial[2];
    uint64_t hashes[2];
    for (int pass = 0; pass < 2; pass++) {
        render__queue q;
        render__queue_init(&q, ct_heap_allocator());
        record_scene(&q, 9000, pass ? 1000 : 300);
        assert_true(render__merge_sort(&q));
        const render__pool pool = {reverse_pool, NULL};
        assert_true(render__build(&q, view_proj, NULL, 0, pass ? &pool : NULL));
        serial[pass] = malloc(q.num_packets * sizeof **serial);
        memcpy(serial[pass], q.draws, q.num_packets * sizeof **serial);
        const render__null_stats s = render__null_execute(q.draws, q.num_packets, 5, 7, 2);
        assert_int_equal(s.draws, 9000);
        assert_int_equal(s.invalid, 0);
        /* Two layers; within each, program then material runs: few changes, not one per draw. */
        assert_true(s.state_changes > 2 && s.state_changes < 200);
        hashes[pass] = s.hash;
        /* Out-of-range tables are caught. */
        assert_int_equal(render__null_execute(q.draws, q.num_packets, 4, 7, 2).invalid,
                         1286); /* i % 7 == 4 */
        render__queue_free(&q);
    }
    assert_memory_equal(serial[0], serial[1], 9000 * sizeof **serial);
    assert_int_equal(hashes[0], hashes[1]);
    free(serial[0]), free(serial[1]);
}

static void test_mvp_of_a_translation(void **state)
{
    (void)state;
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    render__queue q;
    render__queue_init(&q, ct_heap_allocator());
    assert_true(render__queue_begin(&q, 1));
    const render__command c = draw_cmd(0, 0, 3.0f);
    render__context_record(&q.contexts[0], ct_heap_allocator(), 0, &c);
    assert_true(render__merge_sort(&q));
    assert_true(render__build(&q, identity, NULL, 0, NULL));
    /* Column 3 holds the translation (3, 0, -5). */
    assert_true(q.draws[0].mvp[12] == 3.0f && q.draws[0].mvp[14] == -5.0f &&
                q.draws[0].mvp[15] == 1.0f);
    assert_int_equal(q.draws[0].changes, RENDER_CHANGE_LAYER | RENDER_CHANGE_PROGRAM |
                                             RENDER_CHANGE_MATERIAL | RENDER_CHANGE_MESH);
    /* The normal matrix of a rotation-free uniform frame is the identity. */
    assert_true(q.draws[0].normal[0] == 1.0f && q.draws[0].normal[5] == 1.0f &&
                q.draws[0].normal[10] == 1.0f);
    render__queue_free(&q);
}

/* A quad in the XY plane facing +z: u along +x. With v = 0 at the top (the image upright), the
 * image's up is +y = cross(n, t): w = +1; with v = 0 at the bottom (mirrored), w = -1. A quad
 * turned about z turns its tangent; without texture coordinates any unit perpendicular comes. */
static void test_tangents_follow_texture_axes(void **state)
{
    (void)state;
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0},
                nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float upright[8] = {0, 1, 1, 1, 1, 0, 0, 0}, mirrored[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const float turned[8] = {0, 0, 0, 1, 1, 1, 1, 0}; /* u along +y, v along +x */
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    float scratch[12], t[16];
    assert_true(render__mesh_tangents(pos, nrm, upright, 4, idx, 6, scratch, t));
    for (int v = 0; v < 4; v++) {
        assert_true(fabsf(t[4 * v] - 1.0f) < 1e-6f && fabsf(t[4 * v + 1]) < 1e-6f &&
                    fabsf(t[4 * v + 2]) < 1e-6f);
        assert_true(t[4 * v + 3] == 1.0f);
    }
    assert_true(render__mesh_tangents(pos, nrm, mirrored, 4, idx, 6, scratch, t));
    for (int v = 0; v < 4; v++)
        assert_true(fabsf(t[4 * v] - 1.0f) < 1e-6f && t[4 * v + 3] == -1.0f);
    assert_true(render__mesh_tangents(pos, nrm, turned, 4, idx, 6, scratch, t));
    for (int v = 0; v < 4; v++)
        assert_true(fabsf(t[4 * v + 1] - 1.0f) < 1e-6f && fabsf(t[4 * v]) < 1e-6f);
    assert_true(render__mesh_tangents(pos, nrm, NULL, 4, idx, 6, scratch, t));
    for (int v = 0; v < 4; v++) {
        const float *q = &t[4 * v];
        assert_true(fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0f) < 1e-5f &&
                    fabsf(q[2]) < 1e-6f);
    }
    assert_false(render__mesh_tangents(pos, nrm, upright, 4, idx, 6, NULL, t));
}

/* A compiled one-triangle mesh: accepted as written, refused with a tangent of length 0 or a w
 * other than +-1, or a byte short. */
static void test_mesh_parse_refuses_bad_tangents(void **state)
{
    (void)state;
    struct {
        render__mesh_header h;
        render__vertex v[3];
        uint32_t idx[3];
        float tan[3][4];
    } blob = {{3, 3, {0, 0, 0}, 1, 0, 0},
              {{{0, 0, 0}, {0, 0, 1}, {0, 0}},
               {{1, 0, 0}, {0, 0, 1}, {1, 0}},
               {{0, 1, 0}, {0, 0, 1}, {0, 1}}},
              {0, 1, 2},
              {{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, -1}}};
    render__mesh_view v;
    char err[256];
    assert_true(render__mesh_parse(&blob, sizeof blob, &v, err, sizeof err));
    assert_int_equal(v.num_vertices, 3);
    assert_true(v.tangents[2][3] == -1.0f);
    assert_null(v.skin);
    assert_false(render__mesh_parse(&blob, sizeof blob - 1, &v, err, sizeof err));
    blob.tan[1][3] = 0.5f;
    assert_false(render__mesh_parse(&blob, sizeof blob, &v, err, sizeof err));
    assert_non_null(strstr(err, "tangent 1"));
    blob.tan[1][3] = 1.0f;
    blob.tan[0][0] = 0.0f;
    assert_false(render__mesh_parse(&blob, sizeof blob, &v, err, sizeof err));
    assert_non_null(strstr(err, "tangent 0"));
}

static void append_bytes(void *context, void *data, int size)
{
    uint8_t **out = context;
    memcpy(out[0], data, (size_t)size);
    out[0] += size;
}

/* A 2 x 1 normal map, one texel tilted left and one right: its 1 x 1 mip is the average made unit
 * again, straight up (128 128 255), where averaging bytes would shorten it (128 128 218); the same
 * image as colour averages in linear light instead. */
static void test_normal_map_mips_stay_unit(void **state)
{
    (void)state;
    const uint8_t texels[6] = {218, 128, 218, 38, 128, 218};
    uint8_t png[512], *end = png;
    assert_true(stbi_write_png_to_func(append_bytes, &end, 2, 1, 3, texels, 6));
    render__texture_info info;
    char err[256];
    uint8_t *levels = render__texture_decode(png, (size_t)(end - png), 0, 4096, ct_heap_allocator(),
                                             &info, err, sizeof err);
    assert_non_null(levels);
    assert_int_equal(info.levels, 2);
    assert_int_equal(info.flags, 0);
    assert_memory_equal(levels, ((uint8_t[8]){218, 128, 218, 255, 38, 128, 218, 255}), 8);
    assert_true(abs(levels[8] - 128) <= 1 && abs(levels[9] - 128) <= 1 && levels[10] == 255);
    ct_free(ct_heap_allocator(), levels, render__texture_bytes(2, 1, 2));
    levels = render__texture_decode(png, (size_t)(end - png), RENDER_TEXTURE_SRGB, 4096,
                                    ct_heap_allocator(), &info, err, sizeof err);
    assert_non_null(levels);
    assert_int_equal(levels[10], 218); /* colour: the same blue stays */
    ct_free(ct_heap_allocator(), levels, render__texture_bytes(2, 1, 2));
    assert_null(render__texture_decode(png, (size_t)(end - png), 0, 1, ct_heap_allocator(), &info,
                                       err, sizeof err));
    assert_non_null(strstr(err, "too large"));
    assert_null(
        render__texture_decode(png, 20, 0, 4096, ct_heap_allocator(), &info, err, sizeof err));
}

/* A JPEG whose Huffman table (DHT) counts 257 codes: stb_image 2.27 would write past its table
 * (UBSan: index 257 out of bounds, found by fuzz_texture); the decoder refuses it first, also
 * when the table follows an APP segment and fill bytes. The same file with 256 codes gets past
 * that check (and is refused later for what is missing: no frame). */
static void test_jpeg_huffman_overflow_refused(void **state)
{
    (void)state;
    uint8_t jpeg[2 + 6 + 2 + 4 + 17 + 257 + 2] = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0xAB, 0xCD,
                                                  0xFF, 0xFF, 0xC4, 0x01, 0x14, 0x00, 250,  7};
    jpeg[sizeof jpeg - 2] = 0xFF, jpeg[sizeof jpeg - 1] = 0xD9;
    render__texture_info info;
    char err[256];
    assert_null(render__texture_decode(jpeg, sizeof jpeg, RENDER_TEXTURE_SRGB, 4096,
                                       ct_heap_allocator(), &info, err, sizeof err));
    assert_non_null(strstr(err, "more than 256 codes"));
    jpeg[15] = 6, jpeg[12] = 0x13; /* 256 codes, the segment one byte shorter */
    assert_null(render__texture_decode(jpeg, sizeof jpeg, RENDER_TEXTURE_SRGB, 4096,
                                       ct_heap_allocator(), &info, err, sizeof err));
    assert_null(strstr(err, "more than 256 codes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_fields),
        cmocka_unit_test(test_radix_sort_is_stable),
        cmocka_unit_test(test_merge_keeps_context_order),
        cmocka_unit_test(test_build_and_null_backend),
        cmocka_unit_test(test_mvp_of_a_translation),
        cmocka_unit_test(test_tangents_follow_texture_axes),
        cmocka_unit_test(test_mesh_parse_refuses_bad_tangents),
        cmocka_unit_test(test_normal_map_mips_stay_unit),
        cmocka_unit_test(test_jpeg_huffman_overflow_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
