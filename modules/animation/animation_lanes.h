/*
 * animation_lanes.h: the four-lane operations the pose decoder (animation_decode.c) is written
 * in, one lane per key. Private to the core.
 *
 * The float operations the modules share are in ../common/lanes_f32x4.h; these are the
 * decoder's own. SSE2 on x86-64, plain C11 elsewhere, such as ARM: -DANIM_LANES_PORTABLE picks
 * the plain one on x86 too, so both are built and tested on every build (tests/animation).
 * ANIM_LANES names the one compiled in.
 *
 * Masks (mask32x4) hold all-ones or all-zero lanes, as compares make them. Integer lanes hold
 * values below 2^31 wherever they become floats.
 */
#ifndef ANIMATION_LANES_H
#define ANIMATION_LANES_H

#include <stdint.h>
#include <string.h>

#if defined(ANIM_LANES_PORTABLE) && !defined(LANES_PORTABLE)
#define LANES_PORTABLE
#endif
#include "../common/lanes_f32x4.h"

#define ANIM_LANES LANES_NAME

#if LANES_SSE2
typedef __m128i u32x4;
typedef struct u64x4 { /* lanes 0 and 1 in lo, 2 and 3 in hi */
    __m128i lo, hi;
} u64x4;

/* How many of the eight little-endian u16 frame numbers at `frames` (they rise) are at or before
 * `whole`: one compare and a movemask, no branch on the data. Reads 16 bytes. */
static inline uint32_t u16x8_count_at_or_before(const uint8_t *frames, uint32_t whole)
{
    const __m128i w = _mm_set1_epi16((short)(uint16_t)whole), zero = _mm_setzero_si128();
    const __m128i f = _mm_loadu_si128((const __m128i *)(const void *)frames);
    const __m128i at_or_before = _mm_cmpeq_epi16(_mm_subs_epu16(f, w), zero);
    return (uint32_t)__builtin_ctz(
        ~(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(at_or_before, zero)));
}

static inline f32x4 f32x4_set(float a, float b, float c, float d)
{
    return _mm_setr_ps(a, b, c, d);
}

static inline u32x4 u32x4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return _mm_setr_epi32((int)a, (int)b, (int)c, (int)d);
}

/* Bits [shift, shift + width of mask) of each lane. */
static inline u32x4 u32x4_bits(u32x4 v, uint32_t shift, uint32_t mask)
{
    return _mm_and_si128(_mm_srli_epi32(v, (int)shift), _mm_set1_epi32((int)mask));
}

static inline u32x4 u32x4_shift_right(u32x4 v, uint32_t shift)
{
    return _mm_srli_epi32(v, (int)shift);
}
static inline f32x4 u32x4_to_float(u32x4 v) { return _mm_cvtepi32_ps(v); }
static inline mask32x4 u32x4_equals(u32x4 v, uint32_t c)
{
    return _mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_set1_epi32((int)c)));
}

static inline u64x4 u64x4_set(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return (u64x4){_mm_set_epi64x((long long)b, (long long)a),
                   _mm_set_epi64x((long long)d, (long long)c)};
}

/* Bits [shift, shift + width of mask) of each 64-bit lane, as 32-bit lanes. */
static inline u32x4 u64x4_bits(u64x4 v, uint32_t shift, uint32_t mask)
{
    const __m128i s = _mm_cvtsi32_si128((int)shift);
    const __m128 lo = _mm_castsi128_ps(_mm_srl_epi64(v.lo, s));
    const __m128 hi = _mm_castsi128_ps(_mm_srl_epi64(v.hi, s));
    const __m128i lanes = _mm_castps_si128(_mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
    return _mm_and_si128(lanes, _mm_set1_epi32((int)mask));
}

static inline mask32x4 f32x4_less(f32x4 a, f32x4 b) { return _mm_cmplt_ps(a, b); }

/* Lane i: the XOR of lanes 0..i. */
static inline mask32x4 mask32x4_prefix_xor(mask32x4 m)
{
    __m128i v = _mm_castps_si128(m);
    v = _mm_xor_si128(v, _mm_slli_si128(v, 4));
    v = _mm_xor_si128(v, _mm_slli_si128(v, 8));
    return _mm_castsi128_ps(v);
}

/* a with its sign flipped where the mask is set. */
static inline f32x4 f32x4_negate_where(mask32x4 m, f32x4 a)
{
    return _mm_xor_ps(a, _mm_and_ps(m, _mm_set1_ps(-0.0f)));
}

/* (a0, a0, a1, a2): each lane gets the lane before it (lane 0 itself). */
static inline f32x4 f32x4_previous(f32x4 a)
{
    return _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 1, 0, 0));
}

/* The sum of the four lanes, in every lane. */
static inline f32x4 f32x4_sum_lanes(f32x4 a)
{
    a = _mm_add_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_add_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)));
}

/* Rows become columns: lane j of *r after is lane r of the j-th vector before. */
static inline void f32x4_transpose(f32x4 *x, f32x4 *y, f32x4 *z, f32x4 *w)
{
    _MM_TRANSPOSE4_PS(*x, *y, *z, *w);
}

static inline void f32x4_store3(float *out, f32x4 a)
{
    _mm_storel_pi((__m64 *)(void *)out, a);
    _mm_store_ss(out + 2, _mm_movehl_ps(a, a));
}

#else

typedef struct u32x4 {
    uint32_t v[4];
} u32x4;
typedef struct u64x4 {
    uint64_t v[4];
} u64x4;

static inline uint32_t u16x8_count_at_or_before(const uint8_t *frames, uint32_t whole)
{
    uint16_t f[8];
    memcpy(f, frames,
           sizeof f); /* the format is little-endian, as is the host (animation_codec.h) */
    uint32_t n = 0;
    while (n < 8 && f[n] <= (uint16_t)whole)
        n++;
    return n;
}

static inline f32x4 f32x4_set(float a, float b, float c, float d) { return (f32x4){{a, b, c, d}}; }

static inline u32x4 u32x4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return (u32x4){{a, b, c, d}};
}
static inline u32x4 u32x4_bits(u32x4 v, uint32_t shift, uint32_t mask)
{
    u32x4 r;
    LANES_MAP(r, (v.v[i] >> shift) & mask);
    return r;
}
static inline u32x4 u32x4_shift_right(u32x4 v, uint32_t shift)
{
    u32x4 r;
    LANES_MAP(r, v.v[i] >> shift);
    return r;
}
static inline f32x4 u32x4_to_float(u32x4 v)
{
    f32x4 r;
    LANES_MAP(r, (float)v.v[i]);
    return r;
}
static inline mask32x4 u32x4_equals(u32x4 v, uint32_t c)
{
    mask32x4 r;
    LANES_MAP(r, v.v[i] == c ? ~0u : 0u);
    return r;
}

static inline u64x4 u64x4_set(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return (u64x4){{a, b, c, d}};
}
static inline u32x4 u64x4_bits(u64x4 v, uint32_t shift, uint32_t mask)
{
    u32x4 r;
    LANES_MAP(r, (uint32_t)(v.v[i] >> shift) & mask);
    return r;
}

static inline mask32x4 f32x4_less(f32x4 a, f32x4 b)
{
    mask32x4 r;
    LANES_MAP(r, a.v[i] < b.v[i] ? ~0u : 0u);
    return r;
}

static inline mask32x4 mask32x4_prefix_xor(mask32x4 m)
{
    for (int i = 1; i < 4; i++)
        m.v[i] ^= m.v[i - 1];
    return m;
}

static inline f32x4 f32x4_negate_where(mask32x4 m, f32x4 a)
{
    f32x4 r;
    LANES_MAP(r, m.v[i] ? -a.v[i] : a.v[i]);
    return r;
}
static inline f32x4 f32x4_previous(f32x4 a) { return (f32x4){{a.v[0], a.v[0], a.v[1], a.v[2]}}; }

/* Added in the SSE2 order, so every lane holds the same sum. */
static inline f32x4 f32x4_sum_lanes(f32x4 a)
{
    return f32x4_splat((a.v[0] + a.v[1]) + (a.v[2] + a.v[3]));
}

static inline void f32x4_transpose(f32x4 *x, f32x4 *y, f32x4 *z, f32x4 *w)
{
    f32x4 *rows[4] = {x, y, z, w}, in[4] = {*x, *y, *z, *w};
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            rows[r]->v[c] = in[c].v[r];
}

static inline void f32x4_store3(float *out, f32x4 a) { memcpy(out, a.v, 3 * sizeof(float)); }

#endif

#endif
