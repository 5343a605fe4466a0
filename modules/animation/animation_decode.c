/*
 * animation_decode.c: a full local pose from a compressed clip, the innermost loop of animation.
 *
 * Where the time went (perf on CMU 01_01, 31 bones, spec mode; the old decoder took 1.09 us warm):
 * unpacking a track's four keys one at a time into memory and reading them back as a vector (a
 * store-forwarding stall: a quarter of the pose), a square root per key behind an errno branch,
 * and every case inlined into 10 KB of code that a cold pose fetches from memory. A cold pose on
 * this virtual machine is mostly waiting: for page walks (about 250 ns each with the TLB flushed)
 * of the API table, the code, the clip and its segment, and for cache lines one after another.
 *
 * Here each track is one branch-free pass over its four keys side by side in four lanes (one
 * lane per key, animation_lanes.h: SSE2 on x86, plain C elsewhere: unpack, rebuild the dropped component with one vector square root, hemisphere flips
 * as a prefix XOR, the Hermite as four lane weights); the tracks of a kind run in one loop; the
 * clip's small tables live next to the loaded clip (anim__clip_keep_tables); the constants and
 * the pose's whole segment are prefetched before the first key is needed, so their misses
 * overlap; and the decoder's code and the API's sample share one page.
 */
#include "animation_codec.h"
#include "animation_lanes.h"

/* The key at or before frame `whole` (the last such; keys' frames rise, so those at or before it
 * are a prefix): eight frame numbers compared at a time, so a track of up to eight keys in a
 * segment takes one step with no branch on the data. */
static uint32_t interval(const uint8_t *keys, uint32_t n, uint32_t whole)
{
    uint32_t at = 0, count;
    do {
        count = u16x8_count_at_or_before(keys + 2 * at, whole);
        at += count;
    } while (count == 8 && at < n);
    at = at < n ? at : n;
    return at ? at - 1 : 0;
}

static uint32_t frame_of(const uint8_t *keys, uint32_t k)
{
    uint16_t v;
    memcpy(&v, keys + 2 * k, 2);
    return v;
}

/* The keys the curve around frame f needs, lane by lane (previous, start, end, next; repeated
 * where a neighbour is missing or across a discontinuity) and each one's weight in the result:
 * the Hermite h00 p_i + h10 m_i + h01 p_i+1 + h11 m_i+1 with m_i = (p_i+1 - p_i-1) h / d0 and
 * m_i+1 = (p_i+2 - p_i) h / d1, regrouped per key. The weights sum to 1. */
/* The first function of this file's hot code, which starts a page: the decoder then fits in one
 * page with the API's sample, so a pose with cold caches takes one instruction TLB miss for its
 * code, not two (measured: 0.1-0.3 us of a cold pose on this machine). */
ANIM_HOT __attribute__((aligned(4096))) static f32x4 window(const uint8_t *keys, uint32_t n,
                                                            float f, uint32_t key[4])
{
    const uint32_t i = interval(keys, n, (uint32_t)f), last = n - 1;
    const uint32_t j = i < last ? i + 1 : last, prev = i ? i - 1 : 0,
                   next = j < last ? j + 1 : last;
    const uint32_t tp = frame_of(keys, prev), ti = frame_of(keys, i), tj = frame_of(keys, j);
    const uint32_t tn = frame_of(keys, next);
    key[0] = tp < ti ? prev : i;
    key[1] = i, key[2] = j;
    key[3] = tn > tj ? next : j;
    if (i == j) /* the clip's last frame */
        return f32x4_set(0, 1, 0, 0);
    /* u = (f - t_i) / h and the derivative scales h / d0, h / d1, with one division. */
    const float h = (float)(tj - ti), d0 = (float)(tj - tp), d1 = (float)(tn - ti);
    const float r = 1.0f / (h * d0 * d1);
    const float u = (f - (float)ti) * d0 * d1 * r, u2 = u * u, u3 = u2 * u;
    const float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
    const float h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    const float s0 = h10 * h * h * d1 * r, s1 = h11 * h * h * d0 * r;
    return f32x4_set(-s0, h00 - s1, h01 + s0, s1);
}

/* The packed values of the four keys (each key's 8-byte load), one key per lane. */
static u64x4 gather(const uint8_t *values, uint32_t size, const uint32_t key[4])
{
    return u64x4_set(load8(values + key[0] * size), load8(values + key[1] * size),
                     load8(values + key[2] * size), load8(values + key[3] * size));
}

static uint32_t load4(const uint8_t *in)
{
    uint32_t v;
    memcpy(&v, in, 4);
    return v;
}

/* The weighted sum over the lanes of x, y, z, w: one vector (x, y, z, w). */
static f32x4 blend(f32x4 weight, f32x4 x, f32x4 y, f32x4 z, f32x4 w)
{
    x = f32x4_mul(x, weight), y = f32x4_mul(y, weight);
    z = f32x4_mul(z, weight), w = f32x4_mul(w, weight);
    f32x4_transpose(&x, &y, &z, &w);
    return f32x4_add(f32x4_add(x, y), f32x4_add(z, w));
}

/* The rotation of four keys (values: the track's packed values) blended with their weights. */
ANIM_HOT static void blend_rotation(anim__mode mode, const uint8_t *values, const uint32_t key[4],
                                    f32x4 weight, float *out)
{
    const uint32_t bits = mode == ANIM_SPEC ? 10u : 15u, mask = (1u << bits) - 1u;
    u32x4 qa, qb, qc, big;
    if (mode == ANIM_SPEC) { /* 2 + 3 x 10 bits: the four keys in one register */
        const u32x4 v = u32x4_set(load4(values + 4 * key[0]), load4(values + 4 * key[1]),
                                  load4(values + 4 * key[2]), load4(values + 4 * key[3]));
        qa = u32x4_bits(v, 20, 0x3ff), qb = u32x4_bits(v, 10, 0x3ff), qc = u32x4_bits(v, 0, 0x3ff);
        big = u32x4_shift_right(v, 30);
    } else {
        const u64x4 v = gather(values, anim__value_size(mode, true), key);
        qa = u64x4_bits(v, 2 * bits, mask), qb = u64x4_bits(v, bits, mask),
        qc = u64x4_bits(v, 0, mask);
        big = u64x4_bits(v, 3 * bits, 3);
    }
    const f32x4 scale = f32x4_splat(2 * SQRT_HALF / (float)mask), half = f32x4_splat(SQRT_HALF);
    const f32x4 a = f32x4_sub(f32x4_mul(u32x4_to_float(qa), scale), half);
    const f32x4 b = f32x4_sub(f32x4_mul(u32x4_to_float(qb), scale), half);
    const f32x4 c = f32x4_sub(f32x4_mul(u32x4_to_float(qc), scale), half);
    /* The dropped (largest) component from x^2 + y^2 + z^2 + w^2 = 1, then each key's stored
     * three around it: lane by lane, the component before the dropped one is a, and so on. */
    const f32x4 sum = f32x4_add(f32x4_add(f32x4_mul(a, a), f32x4_mul(b, b)), f32x4_mul(c, c));
    const f32x4 r = f32x4_sqrt(f32x4_max(f32x4_sub(f32x4_splat(1), sum), f32x4_splat(0)));
    const mask32x4 is0 = u32x4_equals(big, 0), is1 = u32x4_equals(big, 1);
    const mask32x4 is2 = u32x4_equals(big, 2), is3 = u32x4_equals(big, 3);
    f32x4 x = f32x4_pick(is0, r, a);
    f32x4 y = f32x4_pick(is0, a, f32x4_pick(is1, r, b));
    f32x4 z = f32x4_pick(mask32x4_or(is0, is1), b, f32x4_pick(is2, r, c));
    f32x4 w = f32x4_pick(is3, r, c);
    /* One hemisphere: a key flips when its dot product with the key before is negative, and
     * with every flip before it (a prefix XOR of the lanes' signs). */
    const f32x4 dot =
        f32x4_add(f32x4_add(f32x4_mul(x, f32x4_previous(x)), f32x4_mul(y, f32x4_previous(y))),
                  f32x4_add(f32x4_mul(z, f32x4_previous(z)), f32x4_mul(w, f32x4_previous(w))));
    const mask32x4 flip = mask32x4_prefix_xor(f32x4_less(dot, f32x4_splat(0)));
    x = f32x4_negate_where(flip, x), y = f32x4_negate_where(flip, y);
    z = f32x4_negate_where(flip, z), w = f32x4_negate_where(flip, w);
    const f32x4 q = blend(weight, x, y, z, w);
    f32x4_store(out, f32x4_div(q, f32x4_sqrt(f32x4_sum_lanes(f32x4_mul(q, q)))));
}

ANIM_HOT void anim__decode_rotation(anim__mode mode, const uint8_t *keys, uint32_t n, float f,
                                    float *out)
{
    uint32_t key[4];
    const f32x4 weight = window(keys, n, f, key);
    blend_rotation(mode, keys + 2 * n, key, weight, out);
}

ANIM_HOT void anim__decode_translation(anim__mode mode, const anim__range_t *range,
                                       const uint8_t *keys, uint32_t n, float f, float *out)
{
    uint32_t key[4];
    const f32x4 weight = window(keys, n, f, key);
    const u64x4 v = gather(keys + 2 * n, anim__value_size(mode, false), key);
    const f32x4 q = blend(weight, u32x4_to_float(u64x4_bits(v, 0, 0xffffu)),
                          u32x4_to_float(u64x4_bits(v, 16, 0xffffu)),
                          u32x4_to_float(u64x4_bits(v, 32, 0xffffu)), f32x4_splat(0));
    /* The weights sum to 1, so the range applies once, after the curve. */
    const f32x4 lo = mode == ANIM_SPEC ? f32x4_splat(-10.0f)
                                       : f32x4_set(range->min[0], range->min[1], range->min[2], 0);
    const f32x4 extent = mode == ANIM_SPEC
                             ? f32x4_splat(20.0f)
                             : f32x4_set(range->extent[0], range->extent[1], range->extent[2], 0);
    f32x4_store3(out, f32x4_add(lo, f32x4_mul(q, f32x4_mul(extent, f32x4_splat(1.0f / 65535.0f)))));
}

/* Tracks are numbered 2 * bone (rotation) and 2 * bone + 1 (translation); these pick one kind
 * out of a 64-track word of the constant mask. */
#define ROTATION_BITS 0x5555555555555555ull
#define TRANSLATION_BITS 0xaaaaaaaaaaaaaaaaull

/* The tracks of one kind in word w whose constant bit is `constant`, as a bit set. */
static uint64_t tracks_of(const anim__clip *clip, uint32_t w, uint64_t kind, bool constant)
{
    const uint32_t left = 2 * clip->num_bones - 64 * w;
    const uint64_t exist = left >= 64 ? ~0ull : (1ull << left) - 1u;
    return (constant ? clip->constant_mask[w] : ~clip->constant_mask[w]) & kind & exist;
}

/* Copies the constant tracks of one kind (size floats each) to out, bone b at b * stride;
 * returns the constants after them. */
ANIM_HOT static const float (*copy_constants(const anim__clip *clip, uint64_t kind,
                                             const float (*constant)[4], uint32_t size, float *out,
                                             uint32_t stride))[4]
{
    for (uint32_t w = 0; w < (2 * clip->num_bones + 63) / 64; w++)
        for (uint64_t m = tracks_of(clip, w, kind, true); m; m &= m - 1)
            memcpy(out + (size_t)((64 * w + (uint32_t)__builtin_ctzll(m)) / 2) * stride,
                   *constant++, size * sizeof(float));
    return constant;
}

ANIM_HOT void anim__sample(const anim__clip *clip, float t, float *rotation,
                           uint32_t rotation_stride, float *translation,
                           uint32_t translation_stride)
{
    float f = t * clip->sample_rate;
    f = f > 0 ? (f < clip->last_frame ? f : clip->last_frame) : 0;
    uint32_t s = (uint32_t)f / ANIM_SEGMENT_FRAMES;
    s = s < clip->num_segments ? s : clip->num_segments - 1;
    /* Every line of the constants and of the segment requested at once: with cold caches the
     * misses overlap instead of following one another (the constants' while the segment table
     * is read, the segment's while the constants are copied). */
    const uint8_t *table = (const uint8_t *)clip->constants;
    for (const uint8_t *p = table; p < table + 16 * (size_t)clip->num_constants; p += 64)
        __builtin_prefetch(p);
    const uint8_t *seg = clip->data + clip->segments[s];
    const uint8_t *end =
        clip->data + (s + 1 < clip->num_segments ? clip->segments[s + 1] : clip->data_size);
    for (const uint8_t *p = seg; p < end; p += 64)
        __builtin_prefetch(p);
    const float(*constant)[4] =
        copy_constants(clip, ROTATION_BITS, clip->constants, 4, rotation, rotation_stride);
    copy_constants(clip, TRANSLATION_BITS, constant, 3, translation, translation_stride);
    /* The segment's animated tracks: rotations, then translations, each track's keys where the
     * previous track's ended (the offsets in front give each track's end). */
    const uint16_t *offsets = (const uint16_t *)(const void *)seg;
    uint32_t at = clip->num_animated * 2u, k = 0;
    const anim__mode mode = clip->mode;
    const anim__range_t *range = clip->ranges;
    for (uint32_t pass = 0; pass < 2; pass++) {
        const uint32_t key = anim__key_size(mode, pass == 0);
        for (uint32_t w = 0; w < (2 * clip->num_bones + 63) / 64; w++)
            for (uint64_t m = tracks_of(clip, w, pass ? TRANSLATION_BITS : ROTATION_BITS, false); m;
                 m &= m - 1) {
                const uint32_t b = (64 * w + (uint32_t)__builtin_ctzll(m)) / 2,
                               track_end = offsets[k++];
                /* Keys are 6 or 8 bytes: division by a constant, not by a variable. */
                const uint32_t n = key == 6 ? (track_end - at) / 6 : (track_end - at) / 8;
                if (pass == 0) {
                    anim__decode_rotation(mode, seg + at, n, f,
                                          rotation + (size_t)b * rotation_stride);
                } else {
                    anim__decode_translation(mode, range, seg + at, n, f,
                                             translation + (size_t)b * translation_stride);
                    range += mode == ANIM_PRECISION;
                }
                at = track_end;
            }
    }
}
