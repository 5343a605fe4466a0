/*
 * animation_codec.h: what the compressor and the decoder must agree on bit for bit: key sizes,
 * quantization, and the curve evaluation. Private to the core (animation_*.c of the core).
 */
#ifndef ANIMATION_CODEC_H
#define ANIMATION_CODEC_H

#include "animation_core.h"

#include <math.h>
#include <string.h>

/* Spare bytes after the last key, so decoding may read any key with one 8-byte load. */
#define ANIM_TAIL_PADDING 8u

/* Bytes of one key: a u16 frame number and the packed value. */
static inline uint32_t anim__key_size(anim__mode mode, bool rotation)
{
    return 2u + (rotation ? (mode == ANIM_SPEC ? 4u : 6u) : 6u);
}

/* Packs a value (rotation x y z w, or translation x y z) into out (anim__unpack reverses it).
 * `range` gives a translation's range in precision mode (unused otherwise, may be NULL). */
void anim__pack(anim__mode mode, bool rotation, const anim__range_t *range, const float *value,
                uint8_t *out);

/* Puts q in the hemisphere of ref (flips its sign when their dot product is negative). */
static inline void anim__align(const float *ref, float *q)
{
    if (ref[0] * q[0] + ref[1] * q[1] + ref[2] * q[2] + ref[3] * q[3] < 0)
        for (int k = 0; k < 4; k++)
            q[k] = -q[k];
}

#define SQRT_HALF 0.70710678118654752f

/* Decoding sits in the innermost loop of every pose, so it is inline here, forced where the
 * compiler would otherwise keep a call (each call site specialises on mode and track kind). */
#if defined(__GNUC__)
#define ANIM_INLINE static inline __attribute__((always_inline))
#else
#define ANIM_INLINE static inline
#endif

/* Keys are read 8 bytes at a time: the data section ends with ANIM_TAIL_PADDING spare bytes, so
 * the read never leaves the payload. The format is little-endian, like every host we build for. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "compiled clips are little-endian; a big-endian host needs byte swaps in load8"
#endif
ANIM_INLINE uint64_t load8(const uint8_t *in)
{
    uint64_t v;
    memcpy(&v, in, 8);
    return v;
}

ANIM_INLINE void anim__unpack(anim__mode mode, bool rotation, const anim__range_t *range,
                                const uint8_t *in, float *value)
{
    const uint64_t v = load8(in);
    if (rotation) {
        /* Where the three stored components go, by the index of the dropped largest one. */
        static const uint8_t slot[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
        const uint32_t bits = mode == ANIM_SPEC ? 10u : 15u, mask = (1u << bits) - 1u;
        const float scale = 2 * SQRT_HALF / (float)mask;
        const uint32_t big = (uint32_t)(v >> (3 * bits)) & 3u;
        const float a = (float)((v >> (2 * bits)) & mask) * scale - SQRT_HALF;
        const float b = (float)((v >> bits) & mask) * scale - SQRT_HALF;
        const float c = (float)(v & mask) * scale - SQRT_HALF;
        const float rest = 1.0f - a * a - b * b - c * c;
        value[slot[big][0]] = a, value[slot[big][1]] = b, value[slot[big][2]] = c;
        value[big] = sqrtf(rest > 0 ? rest : 0);
        return;
    }
    for (uint32_t k = 0; k < 3; k++) {
        const float q = (float)((v >> (16 * k)) & 0xffffu);
        value[k] = mode == ANIM_SPEC ? q * (20.0f / 65535.0f) - 10.0f
                                     : range->min[k] + q * (range->extent[k] / 65535.0f);
    }
}

/*
 * The curve between keys i and i + 1 of the arrays (time, value) of n keys, at time t (frames,
 * time[i] <= t < time[i + 1]): a cubic Hermite whose derivatives come from the neighbouring keys,
 * one-sided where there is no neighbour or where a neighbour shares the key's time (a
 * discontinuity). Rotation values must already sit in one hemisphere; the result is normalised.
 */
ANIM_INLINE void anim__eval(const float *time, const float (*value)[4], uint32_t n, uint32_t i,
                              float t, bool rotation, float *out)
{
    const uint32_t dim = rotation ? 4u : 3u;
    if (i + 1 >= n) {
        memcpy(out, value[n - 1], dim * sizeof *out);
        return;
    }
    /* Neighbours for the derivatives, skipping ones at the same time (a discontinuity). */
    const uint32_t p0 = i > 0 && time[i - 1] < time[i] ? i - 1 : i;
    const uint32_t n1 = i + 2 < n && time[i + 2] > time[i + 1] ? i + 2 : i + 1;
    /* u = (t - t_i) / h and the derivative scales h / d0, h / d1, with one division. */
    const float h = time[i + 1] - time[i], d0 = time[i + 1] - time[p0], d1 = time[n1] - time[i];
    const float r = 1.0f / (h * d0 * d1);
    const float u = (t - time[i]) * d0 * d1 * r, u2 = u * u, u3 = u2 * u;
    const float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
    const float h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    const float s0 = h * h * d1 * r, s1 = h * h * d0 * r;
    float len2 = 0;
    for (uint32_t k = 0; k < dim; k++) {
        const float m0 = (value[i + 1][k] - value[p0][k]) * s0;
        const float m1 = (value[n1][k] - value[i][k]) * s1;
        out[k] = h00 * value[i][k] + h10 * m0 + h01 * value[i + 1][k] + h11 * m1;
        len2 += out[k] * out[k];
    }
    if (rotation) {
        const float inv = 1.0f / sqrtf(len2);
        for (uint32_t k = 0; k < 4; k++)
            out[k] *= inv;
    }
}

#endif
