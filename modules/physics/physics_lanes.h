/*
 * physics_lanes.h: the four-lane operations the solver's rows are written in
 * (physics_solver.c), one lane per row of a block. Private to the core.
 *
 * The operations the modules share are in ../common/lanes_f32x4.h; these are the solver's own.
 * SSE2 on x86-64, plain C11 elsewhere, such as ARM: -DPHYSICS_LANES_PORTABLE picks the plain one
 * on x86 too, so both are built and tested on every build (tests/physics). PHYSICS_LANES names
 * the one compiled in. Every operation rounds as the scalar C expression does, so a row gives
 * the same bits in either version and in any lane.
 */
#ifndef PHYSICS_LANES_H
#define PHYSICS_LANES_H

#include <stdbool.h>
#include <stdint.h>

#if defined(PHYSICS_LANES_PORTABLE) && !defined(LANES_PORTABLE)
#define LANES_PORTABLE
#endif
#include "../common/lanes_f32x4.h"

#define PHYSICS_LANES LANES_NAME

#if LANES_SSE2
static inline f32x4 f32x4_load(const float p[4]) { return _mm_loadu_ps(p); }
static inline f32x4 f32x4_abs(f32x4 a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
static inline f32x4 f32x4_negate(f32x4 a) { return _mm_xor_ps(a, _mm_set1_ps(-0.0f)); }

static inline mask32x4 f32x4_greater(f32x4 a, f32x4 b) { return _mm_cmpgt_ps(a, b); }
static inline mask32x4 f32x4_nonzero(f32x4 a) { return _mm_cmpneq_ps(a, _mm_setzero_ps()); }
static inline bool mask32x4_any(mask32x4 m) { return _mm_movemask_ps(m) != 0; }
/* Bit i set where lane i is. */
static inline uint32_t mask32x4_bits(mask32x4 m) { return (uint32_t)_mm_movemask_ps(m); }
/* The mask whose lane i is set where bit i of bits is (mask32x4_bits' inverse). */
static inline mask32x4 mask32x4_of_bits(uint32_t bits)
{
    const __m128i lane = _mm_setr_epi32(1, 2, 4, 8);
    return _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)bits), lane), lane));
}

/* Four 3-vectors (three floats at each of p0..p3) as columns: lane i of *x, *y, *z is pi's. The
 * x and y pairs are loaded 8 bytes at a time and z one float at a time, which takes fewer
 * shuffles (one port) than loading whole vectors and transposing them. */
static inline void f32x4_gather3(const float *p0, const float *p1, const float *p2, const float *p3,
                                 f32x4 *x, f32x4 *y, f32x4 *z)
{
    const __m128 xy01 =
        _mm_loadh_pi(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p0)),
                     (const __m64 *)(const void *)p1);
    const __m128 xy23 =
        _mm_loadh_pi(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p2)),
                     (const __m64 *)(const void *)p3);
    *x = _mm_shuffle_ps(xy01, xy23, _MM_SHUFFLE(2, 0, 2, 0));
    *y = _mm_shuffle_ps(xy01, xy23, _MM_SHUFFLE(3, 1, 3, 1));
    *z = _mm_movelh_ps(_mm_unpacklo_ps(_mm_load_ss(p0 + 2), _mm_load_ss(p1 + 2)),
                       _mm_unpacklo_ps(_mm_load_ss(p2 + 2), _mm_load_ss(p3 + 2)));
}

/* The columns back to the four 3-vectors, only those whose bit (1 << i for pi) is in `lanes`. */
static inline void f32x4_scatter3(float *p0, float *p1, float *p2, float *p3, f32x4 x, f32x4 y,
                                  f32x4 z, uint32_t lanes)
{
    const __m128 xy01 = _mm_unpacklo_ps(x, y), xy23 = _mm_unpackhi_ps(x, y);
    if (lanes & 1u) {
        _mm_storel_pi((__m64 *)(void *)p0, xy01);
        _mm_store_ss(p0 + 2, z);
    }
    if (lanes & 2u) {
        _mm_storeh_pi((__m64 *)(void *)p1, xy01);
        _mm_store_ss(p1 + 2, _mm_shuffle_ps(z, z, _MM_SHUFFLE(1, 1, 1, 1)));
    }
    if (lanes & 4u) {
        _mm_storel_pi((__m64 *)(void *)p2, xy23);
        _mm_store_ss(p2 + 2, _mm_movehl_ps(z, z));
    }
    if (lanes & 8u) {
        _mm_storeh_pi((__m64 *)(void *)p3, xy23);
        _mm_store_ss(p3 + 2, _mm_shuffle_ps(z, z, _MM_SHUFFLE(3, 3, 3, 3)));
    }
}

#else

static inline f32x4 f32x4_load(const float p[4])
{
    f32x4 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline f32x4 f32x4_abs(f32x4 a)
{
    f32x4 r;
    LANES_MAP(r, fabsf(a.v[i]));
    return r;
}
static inline f32x4 f32x4_negate(f32x4 a)
{
    f32x4 r;
    LANES_MAP(r, -a.v[i]);
    return r;
}

static inline mask32x4 f32x4_greater(f32x4 a, f32x4 b)
{
    mask32x4 r;
    LANES_MAP(r, a.v[i] > b.v[i] ? ~0u : 0u);
    return r;
}
static inline mask32x4 f32x4_nonzero(f32x4 a)
{
    mask32x4 r;
    LANES_MAP(r, a.v[i] != 0.0f ? ~0u : 0u);
    return r;
}
static inline bool mask32x4_any(mask32x4 m) { return (m.v[0] | m.v[1] | m.v[2] | m.v[3]) != 0; }
static inline uint32_t mask32x4_bits(mask32x4 m)
{
    return (m.v[0] & 1u) | (m.v[1] & 2u) | (m.v[2] & 4u) | (m.v[3] & 8u);
}
static inline mask32x4 mask32x4_of_bits(uint32_t bits)
{
    mask32x4 r;
    LANES_MAP(r, bits >> i & 1u ? ~0u : 0u);
    return r;
}

static inline void f32x4_gather3(const float *p0, const float *p1, const float *p2, const float *p3,
                                 f32x4 *x, f32x4 *y, f32x4 *z)
{
    const float *p[4] = {p0, p1, p2, p3};
    for (int i = 0; i < 4; i++) {
        x->v[i] = p[i][0];
        y->v[i] = p[i][1];
        z->v[i] = p[i][2];
    }
}

static inline void f32x4_scatter3(float *p0, float *p1, float *p2, float *p3, f32x4 x, f32x4 y,
                                  f32x4 z, uint32_t lanes)
{
    float *p[4] = {p0, p1, p2, p3};
    for (int i = 0; i < 4; i++)
        if (lanes >> i & 1u) {
            p[i][0] = x.v[i];
            p[i][1] = y.v[i];
            p[i][2] = z.v[i];
        }
}

#endif

/* Four 3-vectors as three lanes: one 3-vector per row (physics_solver.c) or per contact
 * (physics_rigid_wide.c) of a block. The operations round as v3_* do, in the same order, so each
 * lane gets the bits the scalar expression would. */
typedef struct v3x4 {
    f32x4 x, y, z;
} v3x4;

/* Lane i of each of x, y, z: the block's columns as they are stored. */
static inline v3x4 v3x4_load(const float x[4], const float y[4], const float z[4])
{
    return (v3x4){f32x4_load(x), f32x4_load(y), f32x4_load(z)};
}
static inline v3x4 v3x4_add(v3x4 a, v3x4 b)
{
    return (v3x4){f32x4_add(a.x, b.x), f32x4_add(a.y, b.y), f32x4_add(a.z, b.z)};
}
static inline v3x4 v3x4_sub(v3x4 a, v3x4 b)
{
    return (v3x4){f32x4_sub(a.x, b.x), f32x4_sub(a.y, b.y), f32x4_sub(a.z, b.z)};
}
static inline v3x4 v3x4_scale(v3x4 a, f32x4 s)
{
    return (v3x4){f32x4_mul(a.x, s), f32x4_mul(a.y, s), f32x4_mul(a.z, s)};
}
static inline f32x4 v3x4_dot(v3x4 a, v3x4 b)
{
    return f32x4_add(f32x4_add(f32x4_mul(a.x, b.x), f32x4_mul(a.y, b.y)), f32x4_mul(a.z, b.z));
}
/* Lane by lane: yes where m is set, no elsewhere. */
static inline v3x4 v3x4_pick(mask32x4 m, v3x4 yes, v3x4 no)
{
    return (v3x4){f32x4_pick(m, yes.x, no.x), f32x4_pick(m, yes.y, no.y),
                  f32x4_pick(m, yes.z, no.z)};
}

/* The 3-vectors at p0..p3 (three floats each) into the lanes, and back for the lanes whose bit
 * (1 << i for pi) is set in `lanes`. */
static inline v3x4 v3x4_gather(const float *p0, const float *p1, const float *p2, const float *p3)
{
    v3x4 r;
    f32x4_gather3(p0, p1, p2, p3, &r.x, &r.y, &r.z);
    return r;
}
static inline void v3x4_scatter(float *p0, float *p1, float *p2, float *p3, v3x4 r, uint32_t lanes)
{
    f32x4_scatter3(p0, p1, p2, p3, r.x, r.y, r.z, lanes);
}

/* Four 3-vectors v turned by four unit quaternions (u their vector parts, w their scalar ones),
 * as quat_rotate rounds (quat_unrotate: u negated). */
static inline v3x4 v3x4_quat_rotate(v3x4 u, f32x4 w, v3x4 v)
{
    const f32x4 two = f32x4_splat(2.0f);
    const v3x4 t = {f32x4_mul(f32x4_sub(f32x4_mul(u.y, v.z), f32x4_mul(u.z, v.y)), two),
                    f32x4_mul(f32x4_sub(f32x4_mul(u.z, v.x), f32x4_mul(u.x, v.z)), two),
                    f32x4_mul(f32x4_sub(f32x4_mul(u.x, v.y), f32x4_mul(u.y, v.x)), two)};
    const v3x4 c = {f32x4_sub(f32x4_mul(u.y, t.z), f32x4_mul(u.z, t.y)),
                    f32x4_sub(f32x4_mul(u.z, t.x), f32x4_mul(u.x, t.z)),
                    f32x4_sub(f32x4_mul(u.x, t.y), f32x4_mul(u.y, t.x))};
    return v3x4_add(v3x4_add(v, v3x4_scale(t, w)), c);
}

/* Friction within a cone, lane by lane: the tangent impulses (*j1, *j2) brought back onto the
 * circle of radius limit (friction times the normal impulse) when they lie outside it (a zero
 * limit stops them). Mostly they fit (things at rest hold): the square root and the division are
 * then left out, which shortens each block's chain of latencies. The rows of both solvers clamp
 * so (physics_solver.c, physics_rigid_wide.c). */
static inline void physics__friction_cone(f32x4 *j1, f32x4 *j2, f32x4 limit)
{
    const f32x4 zero = f32x4_splat(0.0f);
    const f32x4 sq = f32x4_add(f32x4_mul(*j1, *j1), f32x4_mul(*j2, *j2));
    const mask32x4 outside = f32x4_greater(sq, f32x4_mul(limit, limit));
    if (mask32x4_any(outside)) {
        const f32x4 scale =
            f32x4_pick(f32x4_greater(sq, zero), f32x4_div(limit, f32x4_sqrt(sq)), zero);
        *j1 = f32x4_pick(outside, f32x4_mul(*j1, scale), *j1);
        *j2 = f32x4_pick(outside, f32x4_mul(*j2, scale), *j2);
    }
}

#endif
