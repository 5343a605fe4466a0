/*
 * lanes_f32x4.h: four float lanes, the operations that the modules' lane code shares (the
 * animation decoder, a key per lane; the physics solver, a contact row per lane). Each module's
 * own header includes it and adds what only it needs (animation_lanes.h, physics_lanes.h).
 * Private to the modules: nothing here is API.
 *
 * Two implementations, chosen at compile time, behind the same names: SSE2 intrinsics where the
 * compiler targets SSE2 (every x86-64), and plain C11 (four-element arrays and loops) anywhere
 * else, such as ARM. LANES_PORTABLE picks the plain one on x86 too (the module headers define it
 * from their own switch, so that each module's tests build both). LANES_SSE2 says which one is
 * compiled in (1 or 0) and LANES_NAME names it.
 *
 * Every operation rounds as the scalar C expression does (IEEE division and square root, no
 * fused multiply-add, max as `a > b ? a : b`), so a lane gets the bits that C would. Masks
 * (mask32x4) hold all-ones or all-zero lanes, as compares make them.
 */
#ifndef LANES_F32X4_H
#define LANES_F32X4_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(LANES_PORTABLE)
#define LANES_SSE2 1
#define LANES_NAME "sse2"
#include <emmintrin.h>

typedef __m128 f32x4;
typedef __m128 mask32x4;

static inline f32x4 f32x4_splat(float a) { return _mm_set1_ps(a); }
static inline f32x4 f32x4_add(f32x4 a, f32x4 b) { return _mm_add_ps(a, b); }
static inline f32x4 f32x4_sub(f32x4 a, f32x4 b) { return _mm_sub_ps(a, b); }
static inline f32x4 f32x4_mul(f32x4 a, f32x4 b) { return _mm_mul_ps(a, b); }
static inline f32x4 f32x4_div(f32x4 a, f32x4 b) { return _mm_div_ps(a, b); }
/* a > b ? a : b in each lane, which is what maxps computes. */
static inline f32x4 f32x4_max(f32x4 a, f32x4 b) { return _mm_max_ps(a, b); }
static inline f32x4 f32x4_sqrt(f32x4 a) { return _mm_sqrt_ps(a); }
static inline mask32x4 mask32x4_or(mask32x4 a, mask32x4 b) { return _mm_or_ps(a, b); }

/* yes where the mask is set, no elsewhere. */
static inline f32x4 f32x4_pick(mask32x4 m, f32x4 yes, f32x4 no)
{
    return _mm_or_ps(_mm_and_ps(m, yes), _mm_andnot_ps(m, no));
}

static inline void f32x4_store(float *out, f32x4 a) { _mm_storeu_ps(out, a); }

#else
#define LANES_SSE2 0
#define LANES_NAME "portable"
#include <math.h>

typedef struct f32x4 {
    float v[4];
} f32x4;
typedef struct mask32x4 {
    uint32_t v[4];
} mask32x4;

/* out.v[i] = expr for each lane i: the plain operations' one loop (the module headers use it). */
#define LANES_MAP(out, expr)                                                                       \
    for (int i = 0; i < 4; i++)                                                                    \
    (out).v[i] = (expr)

static inline f32x4 f32x4_splat(float a) { return (f32x4){{a, a, a, a}}; }
static inline f32x4 f32x4_add(f32x4 a, f32x4 b)
{
    f32x4 r;
    LANES_MAP(r, a.v[i] + b.v[i]);
    return r;
}
static inline f32x4 f32x4_sub(f32x4 a, f32x4 b)
{
    f32x4 r;
    LANES_MAP(r, a.v[i] - b.v[i]);
    return r;
}
static inline f32x4 f32x4_mul(f32x4 a, f32x4 b)
{
    f32x4 r;
    LANES_MAP(r, a.v[i] * b.v[i]);
    return r;
}
static inline f32x4 f32x4_div(f32x4 a, f32x4 b)
{
    f32x4 r;
    LANES_MAP(r, a.v[i] / b.v[i]);
    return r;
}
static inline f32x4 f32x4_max(f32x4 a, f32x4 b)
{
    f32x4 r;
    LANES_MAP(r, a.v[i] > b.v[i] ? a.v[i] : b.v[i]);
    return r;
}
static inline f32x4 f32x4_sqrt(f32x4 a)
{
    f32x4 r;
    LANES_MAP(r, sqrtf(a.v[i]));
    return r;
}
static inline mask32x4 mask32x4_or(mask32x4 a, mask32x4 b)
{
    mask32x4 r;
    LANES_MAP(r, a.v[i] | b.v[i]);
    return r;
}
static inline f32x4 f32x4_pick(mask32x4 m, f32x4 yes, f32x4 no)
{
    f32x4 r;
    LANES_MAP(r, m.v[i] ? yes.v[i] : no.v[i]);
    return r;
}
static inline void f32x4_store(float *out, f32x4 a) { memcpy(out, a.v, 4 * sizeof(float)); }
#endif

#endif
