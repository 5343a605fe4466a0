/*
 * The animation core without a kernel: the post's quantization to its stated precision, curves
 * through synthetic tracks (a constant, a ramp, a discontinuity), the error report against known
 * values, and compiled clips broken every way a file can be (each byte flipped, every truncation,
 * offsets pointing anywhere): refused with a reason or decoded within bounds, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "animation_codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *heap_realloc(ct_allocator_t *a, void *p, size_t old_size, size_t size,
                          const char *file, uint32_t line)
{
    (void)a, (void)old_size, (void)file, (void)line;
    if (!size) {
        free(p);
        return NULL;
    }
    return realloc(p, size);
}

static ct_allocator_t heap = {NULL, heap_realloc};

static void spec_quantization_precision(void **state)
{
    (void)state;
    const anim__range_t track = {{0}, {0}};
    uint64_t rng = 99;
    double worst_component = 0, worst_vector = 0;
    for (int i = 0; i < 100000; i++) {
        float q[4], back[4], v[3], vb[3];
        double n = 0;
        for (int k = 0; k < 4; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            q[k] = (float)((double)(rng >> 11) / 9007199254740992.0 * 2 - 1);
            n += q[k] * q[k];
        }
        for (int k = 0; k < 4; k++)
            q[k] = (float)(q[k] / sqrt(n));
        for (int k = 0; k < 3; k++)
            v[k] = q[k] * 9.9f;
        uint8_t packed[8] = {0};
        anim__pack(ANIM_SPEC, true, &track, q, packed);
        anim__unpack(ANIM_SPEC, true, &track, packed, back);
        anim__align(q, back);
        for (int k = 0; k < 4; k++)
            worst_component = fmax(worst_component, fabs(back[k] - q[k]));
        memset(packed, 0, sizeof packed);
        anim__pack(ANIM_SPEC, false, &track, v, packed);
        anim__unpack(ANIM_SPEC, false, &track, packed, vb);
        for (int k = 0; k < 3; k++)
            worst_vector = fmax(worst_vector, fabs(vb[k] - v[k]));
    }
    /* The post: 0.0014 per stored quaternion component (the rebuilt one can be a little worse),
     * 0.3 mm per vector component. */
    print_message("spec: worst quaternion component %.5f, vector component %.6f m\n",
                  worst_component, worst_vector);
    assert_true(worst_component < 0.0014 && worst_component > 0.0003);
    assert_true(worst_vector <= 20.0 / 65535 / 2 + 2e-6 && worst_vector > 0.0001); /* + float */
    /* Out of range vectors clamp to the range's ends. */
    const float far[3] = {25, -25, 0};
    float back[3];
    uint8_t packed[8] = {0};
    anim__pack(ANIM_SPEC, false, &track, far, packed);
    anim__unpack(ANIM_SPEC, false, &track, packed, back);
    assert_float_equal(back[0], 10, 1e-6);
    assert_float_equal(back[1], -10, 1e-6);
}

/* Two bones: a root whose translation ramps, then jumps 3 m at frame 100 (a cut), and a child
 * whose rotation is constant. */
static anim__raw make_raw(uint32_t frames, int32_t *parent, float (*rot)[4], float (*pos)[3])
{
    parent[0] = -1, parent[1] = 0;
    for (uint32_t f = 0; f < frames; f++) {
        const float x = 0.01f * (float)f + (f >= 100 ? 3.0f : 0.0f);
        const float a = 0.3f * sinf(0.05f * (float)f);
        pos[2 * f][0] = x, pos[2 * f][1] = 1, pos[2 * f][2] = 0;
        rot[2 * f][0] = 0, rot[2 * f][1] = sinf(a / 2), rot[2 * f][2] = 0, rot[2 * f][3] = cosf(a / 2);
        pos[2 * f + 1][0] = 0, pos[2 * f + 1][1] = 0.5f, pos[2 * f + 1][2] = 0;
        rot[2 * f + 1][0] = 0, rot[2 * f + 1][1] = 0, rot[2 * f + 1][2] = 0, rot[2 * f + 1][3] = 1;
    }
    return (anim__raw){2, frames, 120.0f, parent, rot, pos};
}

static void curves_and_discontinuities(void **state)
{
    (void)state;
    enum { FRAMES = 300 };
    int32_t parent[2];
    static float rot[FRAMES * 2][4], pos[FRAMES * 2][3];
    const anim__raw raw = make_raw(FRAMES, parent, rot, pos);
    for (int mode = 0; mode < 2; mode++) {
        const anim__settings s = {(anim__mode)mode, mode ? 0.0005 : 0.002};
        anim__bytes blob;
        double achieved = 0;
        assert_int_equal(anim__compress(&raw, &s, NULL, 0, &heap, &blob, &achieved), 0);
        anim__clip clip;
        const char *bad = anim__clip_open(blob.data, blob.size, &clip);
        if (bad)
            fail_msg("%s", bad);
        assert_true(anim__constant(&clip, 3));  /* child translation */
        assert_true(anim__constant(&clip, 2));  /* child rotation */
        assert_false(anim__constant(&clip, 1)); /* root translation */
        assert_int_equal(clip.num_ranges, mode == ANIM_PRECISION ? 1 : 0);
        /* Much smaller than the samples: 2 bones x 300 samples x 40 bytes = 24,000. */
        assert_true(blob.size < 24000 / 3);
        float r[2][4], p[2][3];
        /* Right before and at the cut: no smear of the jump into the frames before it. */
        anim__sample(&clip, 99.0f / 120, r[0], 4, p[0], 3);
        assert_float_equal(p[0][0], 0.99f, 0.003);
        anim__sample(&clip, 99.5f / 120, r[0], 4, p[0], 3);
        assert_float_equal(p[0][0], 0.99f, 0.01);
        anim__sample(&clip, 100.0f / 120, r[0], 4, p[0], 3);
        assert_float_equal(p[0][0], 4.0f, 0.003);
        anim__sample(&clip, 200.0f / 120, r[0], 4, p[0], 3);
        assert_float_equal(p[0][0], 5.0f, 0.003);
        assert_float_equal(p[1][1], 0.5f, 0.001);
        /* Clamped outside the clip. */
        anim__sample(&clip, -5, r[0], 4, p[0], 3);
        assert_float_equal(p[0][0], 0.0f, 0.003);
        anim__sample(&clip, 1e9f, r[0], 4, p[0], 3);
        assert_float_equal(p[0][0], 2.99f + 3.0f, 0.003);
        anim__error_report report;
        assert_int_equal(anim__measure(&raw, &clip, blob.size, &heap, &report), 0);
        assert_true(report.max_mm <= s.target_error_m * 1000 && report.max_mm > 0);
        assert_true(report.p99_mm <= report.max_mm);
        assert_float_equal(report.max_mm, achieved, 1e-9);
        assert_float_equal(report.ratio, 40.0 * 2 * FRAMES / (double)blob.size, 1e-9);
        anim__bytes_free(&blob);
    }
}

/* Two samples a second apart, 90 degrees about z: a coarse clip, not a cut, so the curve turns
 * in between rather than holding the first key (what a per-frame cut threshold did). */
static void coarse_clips_are_not_cuts(void **state)
{
    (void)state;
    int32_t parent[1] = {-1};
    float rot[2][4] = {{0, 0, 0, 1}, {0, 0, 0.70710678f, 0.70710678f}}, pos[2][3] = {{0}};
    const anim__raw raw = {1, 2, 1.0f, parent, rot, pos};
    anim__bytes blob;
    double achieved;
    const anim__settings s = {ANIM_PRECISION, 0.0005};
    assert_int_equal(anim__compress(&raw, &s, NULL, 0, &heap, &blob, &achieved), 0);
    anim__clip clip;
    assert_null(anim__clip_open(blob.data, blob.size, &clip));
    float r[4], p[3];
    anim__sample(&clip, 0.5f, r, 4, p, 3);
    assert_float_equal(r[2], sinf((float)M_PI / 8), 0.01); /* about 45 degrees */
    anim__bytes_free(&blob);
}

/* A raw clip measured against itself compressed at a loose target: the report's max error is
 * what a hand calculation gives for a known offset. */
static void error_report_fixed_values(void **state)
{
    (void)state;
    enum { FRAMES = 10 };
    int32_t parent[2];
    static float rot[FRAMES * 2][4], pos[FRAMES * 2][3];
    anim__raw raw = make_raw(FRAMES, parent, rot, pos);
    anim__bytes blob;
    double achieved;
    const anim__settings s = {ANIM_PRECISION, 0.0005};
    assert_int_equal(anim__compress(&raw, &s, NULL, 0, &heap, &blob, &achieved), 0);
    anim__clip clip;
    assert_null(anim__clip_open(blob.data, blob.size, &clip));
    /* Move the raw root 2 cm along y: every virtual point of both bones is 20 mm off. */
    for (uint32_t f = 0; f < FRAMES; f++)
        pos[2 * f][1] += 0.02f;
    anim__error_report report;
    assert_int_equal(anim__measure(&raw, &clip, blob.size, &heap, &report), 0);
    assert_float_equal(report.max_mm, 20.0, 0.01);
    assert_float_equal(report.p99_mm, 20.0, 0.01);
    anim__bytes_free(&blob);
}

static void broken_clips(void **state)
{
    (void)state;
    enum { FRAMES = 150 };
    int32_t parent[2];
    static float rot[FRAMES * 2][4], pos[FRAMES * 2][3];
    const anim__raw raw = make_raw(FRAMES, parent, rot, pos);
    const anim__settings s = {ANIM_SPEC, 0.005};
    const anim__event events[2] = {{0.5f, 1, "a"}, {1.0f, 2, "b"}};
    anim__bytes blob;
    double achieved;
    assert_int_equal(anim__compress(&raw, &s, events, 2, &heap, &blob, &achieved), 0);
    /* An 8-aligned exact-size copy per try, so ASan sees any read past the end. */
    uint32_t refused = 0, accepted = 0;
    for (size_t cut = 0; cut < blob.size; cut++) {
        uint8_t *copy = malloc(cut + 8);
        memcpy(copy, blob.data, cut);
        anim__clip clip;
        if (anim__clip_open(copy, cut, &clip))
            refused++;
        free(copy);
    }
    assert_int_equal(refused, blob.size); /* every truncation is refused */
    for (size_t at = 0; at < blob.size; at++)
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *copy = malloc(blob.size);
            memcpy(copy, blob.data, blob.size);
            copy[at] ^= (uint8_t)(1u << bit);
            anim__clip clip;
            if (!anim__clip_open(copy, blob.size, &clip)) {
                accepted++;
                float r[2][4], p[2][3];
                for (float t = -0.1f; t < 1.5f; t += 0.13f)
                    anim__sample(&clip, t, r[0], 4, p[0], 3);
            }
            free(copy);
        }
    /* Flipped key values and times inside a segment can still be a valid clip; headers,
     * offsets and orders cannot. Both kinds happened. */
    print_message("bit flips: %u decoded, %zu refused\n", accepted, blob.size * 8 - accepted);
    assert_true(accepted > 0 && accepted < blob.size * 8);
    anim__bytes_free(&blob);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_quantization_precision),
        cmocka_unit_test(curves_and_discontinuities),
        cmocka_unit_test(coarse_clips_are_not_cuts),
        cmocka_unit_test(error_report_fixed_values),
        cmocka_unit_test(broken_clips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
