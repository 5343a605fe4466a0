/*
 * The animation core without a kernel: the post's quantization to its stated precision, curves
 * through synthetic tracks (a constant, a ramp, a discontinuity), the error report against known
 * values, the pose decoder against a plain reference of the curve (random tracks, discontinuities,
 * hemisphere flips, long tracks) and hand-computed values, and compiled clips broken every way a
 * file can be (each byte flipped, every truncation, offsets pointing anywhere): refused with a
 * reason or decoded within bounds, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ct_heap.h"
#include "animation_codec.h"
#include "animation_lanes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        rot[2 * f][0] = 0, rot[2 * f][1] = sinf(a / 2), rot[2 * f][2] = 0,
                rot[2 * f][3] = cosf(a / 2);
        pos[2 * f + 1][0] = 0, pos[2 * f + 1][1] = 0.5f, pos[2 * f + 1][2] = 0;
        rot[2 * f + 1][0] = 0, rot[2 * f + 1][1] = 0, rot[2 * f + 1][2] = 0, rot[2 * f + 1][3] = 1;
    }
    return (anim__raw){2, frames, 120.0f, parent, rot, pos};
}

/* A loaded clip reads its small tables from a copy next to itself: the same poses from there,
 * and none of them read from the payload (its tables are wiped, so call this last). */
static void check_kept_tables(const anim__clip *clip, anim__bytes *blob, uint32_t frames)
{
    anim__clip kept = *clip;
    const uint32_t size = anim__clip_tables_size(clip);
    assert_true(size >= 8 + 16 * clip->num_constants + 4 * clip->num_segments);
    uint64_t *copy = malloc(size);
    anim__clip_keep_tables(&kept, copy);
    assert_ptr_equal(kept.constant_mask, copy);
    assert_true((const uint8_t *)kept.segments + 4 * kept.num_segments <= (uint8_t *)copy + size);
    float(*want)[2][7] = malloc(frames * sizeof *want), got[2][7];
    for (uint32_t f = 0; f < frames; f++)
        anim__sample(clip, (float)f / 120, want[f][0], 7, want[f][0] + 4, 7);
    memset(blob->data + clip->header->mask_offset, 0xff, size);
    for (uint32_t f = 0; f < frames; f++) {
        anim__sample(&kept, (float)f / 120, got[0], 7, got[0] + 4, 7);
        assert_memory_equal(got, want[f], sizeof got);
    }
    free(want);
    free(copy);
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
        assert_int_equal(anim__compress(&raw, &s, NULL, 0, ct_heap_allocator(), &blob, &achieved),
                         0);
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
        assert_int_equal(anim__measure(&raw, &clip, blob.size, ct_heap_allocator(), &report), 0);
        assert_true(report.max_mm <= s.target_error_m * 1000 && report.max_mm > 0);
        assert_true(report.p99_mm <= report.max_mm);
        assert_float_equal(report.max_mm, achieved, 1e-9);
        assert_float_equal(report.ratio, 40.0 * 2 * FRAMES / (double)blob.size, 1e-9);
        check_kept_tables(&clip, &blob, FRAMES);
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
    assert_int_equal(anim__compress(&raw, &s, NULL, 0, ct_heap_allocator(), &blob, &achieved), 0);
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
    assert_int_equal(anim__compress(&raw, &s, NULL, 0, ct_heap_allocator(), &blob, &achieved), 0);
    anim__clip clip;
    assert_null(anim__clip_open(blob.data, blob.size, &clip));
    /* Move the raw root 2 cm along y: every virtual point of both bones is 20 mm off. */
    for (uint32_t f = 0; f < FRAMES; f++)
        pos[2 * f][1] += 0.02f;
    anim__error_report report;
    assert_int_equal(anim__measure(&raw, &clip, blob.size, ct_heap_allocator(), &report), 0);
    assert_float_equal(report.max_mm, 20.0, 0.01);
    assert_float_equal(report.p99_mm, 20.0, 0.01);
    anim__bytes_free(&blob);
}

/* A track as a segment stores it: n frame numbers, then the n packed values. */
static uint32_t pack_track(anim__mode mode, bool rot, const anim__range_t *range, uint32_t n,
                           const uint16_t *frame, const float (*value)[4], uint8_t *out)
{
    const uint32_t size = anim__value_size(mode, rot);
    for (uint32_t k = 0; k < n; k++) {
        memcpy(out + 2 * k, &frame[k], 2);
        anim__pack(mode, rot, range, value[k], out + 2 * n + size * k);
    }
    return n * (2 + size);
}

/* The curve written plainly, in doubles: keys unpacked one by one and put in one hemisphere
 * one after another, the key at or before f, the Hermite with derivatives from the neighbouring
 * keys (one-sided at the ends and across a discontinuity), normalised for rotations. */
static void reference_curve(anim__mode mode, bool rot, const anim__range_t *range,
                            const uint8_t *keys, uint32_t n, float f, double *out)
{
    float value[64][4] = {{0}};
    uint16_t t[64];
    const uint32_t dim = rot ? 4 : 3;
    for (uint32_t k = 0; k < n; k++) {
        memcpy(&t[k], keys + 2 * k, 2);
        anim__unpack(mode, rot, range, keys + 2 * n + anim__value_size(mode, rot) * k, value[k]);
        if (rot && k)
            anim__align(value[k - 1], value[k]);
    }
    uint32_t i = 0;
    while (i + 1 < n && t[i + 1] <= (uint32_t)f)
        i++;
    double len = 0;
    for (uint32_t c = 0; c < dim; c++) {
        if (i + 1 >= n) {
            out[c] = value[i][c];
        } else {
            const uint32_t p = i > 0 && t[i - 1] < t[i] ? i - 1 : i;
            const uint32_t q = i + 2 < n && t[i + 2] > t[i + 1] ? i + 2 : i + 1;
            const double h = t[i + 1] - t[i], u = (f - t[i]) / h;
            const double m0 = (value[i + 1][c] - value[p][c]) * h / (t[i + 1] - t[p]);
            const double m1 = (value[q][c] - value[i][c]) * h / (t[q] - t[i]);
            out[c] = (2 * u * u * u - 3 * u * u + 1) * value[i][c] +
                     (u * u * u - 2 * u * u + u) * m0 +
                     (-2 * u * u * u + 3 * u * u) * value[i + 1][c] + (u * u * u - u * u) * m1;
        }
        len += out[c] * out[c];
    }
    for (uint32_t c = 0; c < dim && rot; c++)
        out[c] /= sqrt(len);
}

static double random_unit(uint64_t *rng)
{
    *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
    return (double)(*rng >> 11) / 9007199254740992.0;
}

/* Random tracks of 1 to 40 keys (past the eight frame numbers the search compares at once),
 * with discontinuities and keys of either sign: the decoder gives the reference curve. */
static void decoder_matches_the_reference_curve(void **state)
{
    (void)state;
    uint64_t rng = 7;
    double worst[2][2] = {{0}};
    uint32_t flips = 0, pairs = 0;
    for (int trial = 0; trial < 4000; trial++) {
        const anim__mode mode = (anim__mode)(trial & 1);
        const bool rot = (trial & 2) == 0;
        const uint32_t n = 1 + (uint32_t)(random_unit(&rng) * 40);
        const anim__range_t range = {{-1, 0.5f, -3}, {2, 1, 6}};
        uint16_t frame[64];
        float value[64][4];
        for (uint32_t k = 0; k < n; k++) {
            const bool pair = k >= 2 && frame[k - 1] > frame[k - 2] && random_unit(&rng) < 0.15;
            frame[k] =
                k == 0
                    ? 100
                    : (uint16_t)(frame[k - 1] + (pair ? 0 : 1 + (uint32_t)(random_unit(&rng) * 4)));
            pairs += pair;
            double norm = 0;
            for (int c = 0; c < 4; c++) {
                value[k][c] = (float)(random_unit(&rng) * 2 - 1);
                norm += value[k][c] * value[k][c];
            }
            for (int c = 0; c < 4; c++)
                value[k][c] = rot ? (float)(value[k][c] / sqrt(norm))
                                  : range.min[c % 3] + (value[k][c] + 1) / 2 * range.extent[c % 3];
        }
        uint8_t keys[64 * 8 + ANIM_TAIL_PADDING] = {0};
        pack_track(mode, rot, &range, n, frame, (const float(*)[4])value, keys);
        for (int sample = 0; sample < 8; sample++) {
            const float f = sample == 7
                                ? (float)frame[n - 1]
                                : frame[0] + (float)random_unit(&rng) * (frame[n - 1] - frame[0]);
            double want[4];
            float got[4];
            reference_curve(mode, rot, &range, keys, n, f, want);
            if (rot)
                anim__decode_rotation(mode, keys, n, f, got);
            else
                anim__decode_translation(mode, &range, keys, n, f, got);
            /* A rotation may come out with the other sign (q and -q are one rotation). */
            double dot = 0;
            for (int c = 0; c < (rot ? 4 : 3); c++)
                dot += want[c] * got[c];
            const double sign = rot && dot < 0 ? -1 : 1;
            flips += sign < 0;
            for (int c = 0; c < (rot ? 4 : 3); c++)
                worst[mode][rot] = fmax(worst[mode][rot], fabs(want[c] - sign * got[c]));
        }
    }
    print_message(
        "decoder vs reference: spec %.2g/%.2g, precision %.2g/%.2g (rotation/translation); "
        "%u discontinuities, %u samples of the other sign\n",
        worst[0][1], worst[0][0], worst[1][1], worst[1][0], pairs, flips);
    for (int m = 0; m < 2; m++)
        for (int r = 0; r < 2; r++)
            assert_true(worst[m][r] < 2e-5 && worst[m][r] >= 0);
    assert_true(pairs > 100);
}

/* Values worked out by hand: a straight line through three keys stays straight (the derivatives
 * from the neighbours agree with it), a one-key track holds, a discontinuity does not smear, and
 * a turn whose stored keys change hemisphere stays on its path. */
static void decoder_fixed_values(void **state)
{
    (void)state;
    const anim__range_t range = {{0, 0, 0}, {4, 4, 4}};
    uint8_t keys[16 * 8 + ANIM_TAIL_PADDING] = {0};
    float out[4];
    const uint16_t line_frames[3] = {0, 10, 20};
    const float line[3][4] = {{0, 1, 2, 0}, {1, 1, 1, 0}, {2, 1, 0, 0}};
    pack_track(ANIM_PRECISION, false, &range, 3, line_frames, line, keys);
    anim__decode_translation(ANIM_PRECISION, &range, keys, 3, 5.0f, out);
    assert_float_equal(out[0], 0.5f, 1e-4);
    assert_float_equal(out[1], 1.0f, 1e-4);
    assert_float_equal(out[2], 1.5f, 1e-4);
    anim__decode_translation(ANIM_PRECISION, &range, keys, 3, 17.5f, out);
    assert_float_equal(out[0], 1.75f, 1e-4);
    assert_float_equal(out[2], 0.25f, 1e-4);
    anim__decode_translation(ANIM_PRECISION, &range, keys, 3, 20.0f, out);
    assert_float_equal(out[0], 2.0f, 1e-4);

    const uint16_t one_frame[1] = {64};
    const float one[1][4] = {{-3, 2.5f, 0.25f, 0}};
    pack_track(ANIM_SPEC, false, NULL, 1, one_frame, one, keys);
    anim__decode_translation(ANIM_SPEC, NULL, keys, 1, 64.0f, out);
    assert_float_equal(out[0], -3.0f, 2e-4);
    assert_float_equal(out[1], 2.5f, 2e-4);

    /* A hold at 1 until frame 5, then 3 from frame 5 on: (0, 1) (4, 1) (5, 1 hold) (5, 3) (9, 3). */
    const uint16_t cut_frames[5] = {0, 4, 5, 5, 9};
    const float cut[5][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {3, 0, 0, 0}, {3, 0, 0, 0}};
    pack_track(ANIM_PRECISION, false, &range, 5, cut_frames, cut, keys);
    anim__decode_translation(ANIM_PRECISION, &range, keys, 5, 4.9f, out);
    assert_float_equal(out[0], 1.0f, 1e-4);
    anim__decode_translation(ANIM_PRECISION, &range, keys, 5, 5.0f, out);
    assert_float_equal(out[0], 3.0f, 1e-4);
    anim__decode_translation(ANIM_PRECISION, &range, keys, 5, 7.0f, out);
    assert_float_equal(out[0], 3.0f, 1e-4);

    /* Turns of -40, -70, -100 and -130 degrees about z, evenly timed. Packing makes each key's
     * largest component positive: w for the first two, z for the last two, so the stored keys
     * change hemisphere between the middle two. Halfway between those, by symmetry, the curve is
     * at exactly -85 degrees; without the hemisphere fix it would be a blend of opposite signs. */
    const uint16_t turn_frames[4] = {0, 8, 16, 24};
    float turn[4][4] = {{0}};
    for (int k = 0; k < 4; k++) {
        const float half = (float)((-40.0 - 30.0 * k) / 2 * M_PI / 180);
        turn[k][2] = sinf(half), turn[k][3] = cosf(half);
    }
    pack_track(ANIM_PRECISION, true, NULL, 4, turn_frames, (const float(*)[4])turn, keys);
    float stored[2][4];
    anim__unpack(ANIM_PRECISION, true, NULL, keys + 8 + 6, stored[0]);
    anim__unpack(ANIM_PRECISION, true, NULL, keys + 8 + 12, stored[1]);
    assert_true(stored[0][3] > 0 && stored[1][2] > 0); /* the hemispheres really differ */
    anim__decode_rotation(ANIM_PRECISION, keys, 4, 12.0f, out);
    const float sign = out[3] < 0 ? -1.0f : 1.0f, half = (float)(-85.0 / 2 * M_PI / 180);
    assert_float_equal(sign * out[2], sinf(half), 1e-4);
    assert_float_equal(sign * out[3], cosf(half), 1e-4);
    assert_float_equal(out[0], 0.0f, 1e-4);
    assert_float_equal(out[1], 0.0f, 1e-4);
}

/* The lanes this executable's decoder was built with (meson builds it twice: SSE2 where the
 * target has it, and the plain C lanes ARM uses), and each lane operation on fixed values. */
#if !defined(ANIM_LANES_EXPECTED) && defined(__SSE2__)
#define ANIM_LANES_EXPECTED "sse2"
#elif !defined(ANIM_LANES_EXPECTED)
#define ANIM_LANES_EXPECTED "portable"
#endif
static void lanes_fixed_values(void **state)
{
    (void)state;
    print_message("lanes: %s\n", ANIM_LANES);
    assert_string_equal(ANIM_LANES, ANIM_LANES_EXPECTED);
    const uint16_t frames[8] = {3, 5, 5, 9, 12, 40, 41, 65535};
    uint8_t bytes[16];
    memcpy(bytes, frames, 16);
    assert_int_equal(u16x8_count_at_or_before(bytes, 2), 0);
    assert_int_equal(u16x8_count_at_or_before(bytes, 5), 3);
    assert_int_equal(u16x8_count_at_or_before(bytes, 40), 6);
    assert_int_equal(u16x8_count_at_or_before(bytes, 65535), 8);

    float out[4];
    const u64x4 v = u64x4_set(0x0123456789abcdefull, 0xfedcba9876543210ull, 1ull << 45, 7);
    f32x4_store(out, u32x4_to_float(u64x4_bits(v, 44, 0xfffff)));
    assert_true(out[0] == 0x01234 && out[1] == 0xfedcb && out[2] == 2 && out[3] == 0);
    const u32x4 w = u32x4_set(0xc0000003u, 0x40000400u, 2, 0x80000000u);
    f32x4_store(out, u32x4_to_float(u32x4_bits(w, 10, 0x3ff)));
    assert_true(out[0] == 0 && out[1] == 1 && out[2] == 0 && out[3] == 0);
    f32x4_store(out, u32x4_to_float(u32x4_shift_right(w, 30)));
    assert_true(out[0] == 3 && out[1] == 1 && out[2] == 0 && out[3] == 2);

    /* Signs flipped by a prefix XOR of (set, clear, set, clear): flipped, flipped, kept, kept. */
    const f32x4 a = f32x4_set(-1, 2, -3, 4), b = f32x4_set(10, 20, 30, 40);
    const mask32x4 negative = f32x4_less(a, f32x4_splat(0));
    f32x4_store(out, f32x4_negate_where(mask32x4_prefix_xor(negative), b));
    assert_true(out[0] == -10 && out[1] == -20 && out[2] == 30 && out[3] == 40);
    f32x4_store(out, f32x4_pick(mask32x4_or(negative, u32x4_equals(w, 2)), a, b));
    assert_true(out[0] == -1 && out[1] == 20 && out[2] == -3 && out[3] == 40);
    f32x4_store(out, f32x4_previous(b));
    assert_true(out[0] == 10 && out[1] == 10 && out[2] == 20 && out[3] == 30);
    f32x4_store(out, f32x4_sum_lanes(b));
    assert_true(out[0] == 100 && out[1] == 100 && out[2] == 100 && out[3] == 100);
    f32x4_store(out, f32x4_sqrt(f32x4_max(f32x4_mul(a, a), f32x4_splat(9))));
    assert_true(out[0] == 3 && out[1] == 3 && out[2] == 3 && out[3] == 4);
    f32x4_store(out, f32x4_div(f32x4_sub(b, a), f32x4_add(f32x4_set(1, 2, -3, 6), f32x4_splat(1))));
    assert_true(out[0] == 5.5f && out[1] == 6 && out[2] == -16.5f && out[3] == 36 / 7.0f);

    f32x4 x = f32x4_set(0, 1, 2, 3), y = f32x4_set(4, 5, 6, 7);
    f32x4 z = f32x4_set(8, 9, 10, 11), t = f32x4_set(12, 13, 14, 15);
    f32x4_transpose(&x, &y, &z, &t);
    f32x4_store(out, y);
    assert_true(out[0] == 1 && out[1] == 5 && out[2] == 9 && out[3] == 13);
    float three[4] = {0, 0, 0, -7};
    f32x4_store3(three, t);
    assert_true(three[0] == 3 && three[1] == 7 && three[2] == 11 && three[3] == -7);
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
    assert_int_equal(anim__compress(&raw, &s, events, 2, ct_heap_allocator(), &blob, &achieved), 0);
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
    /* Three keys of a track at one frame (a discontinuity is two) are refused. */
    anim__clip clip;
    assert_null(anim__clip_open(blob.data, blob.size, &clip));
    /* The root's translation in segment 3 (frames 96..128) has the cut at frame 100: keys 96,
     * 99, 100 (hold), 100, 128. */
    const uint8_t *seg = clip.data + clip.segments[3];
    const uint16_t *offsets = (const uint16_t *)(const void *)seg;
    assert_int_equal(clip.num_animated, 2);
    assert_int_equal((offsets[1] - offsets[0]) / anim__key_size(ANIM_SPEC, false), 5);
    uint8_t *track = (uint8_t *)seg + offsets[0];
    memcpy(track + 2, track, 2);
    memcpy(track + 4, track, 2);
    assert_string_equal(anim__clip_open(blob.data, blob.size, &clip),
                        "a key's time is outside its segment or out of order");
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
        cmocka_unit_test(decoder_matches_the_reference_curve),
        cmocka_unit_test(decoder_fixed_values),
        cmocka_unit_test(broken_clips),
        cmocka_unit_test(lanes_fixed_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
