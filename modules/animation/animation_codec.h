/*
 * animation_codec.h: what the compressor and the decoder must agree on bit for bit: key sizes,
 * quantization, and the curve evaluation. Private to the core (animation_*.c of the core).
 */
#ifndef ANIMATION_CODEC_H
#define ANIMATION_CODEC_H

#include "animation_core.h"

#include <math.h>
#include <string.h>

/* Spare bytes after the last key: decoding reads 8 bytes for any value and 16 bytes of frame
 * numbers from any key of a track, so the reads never leave the payload. */
#define ANIM_TAIL_PADDING 16u

/* Bytes of a key's packed value (rotation: index of the dropped component and the other three;
 * translation: 3 x 16 bits). A key also has its u16 frame number, stored apart (see
 * animation_core.h), so a key takes 2 + this. */
static inline uint32_t anim__value_size(anim__mode mode, bool rotation)
{
    return rotation && mode == ANIM_SPEC ? 4u : 6u;
}

static inline uint32_t anim__key_size(anim__mode mode, bool rotation)
{
    return 2u + anim__value_size(mode, rotation);
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

/* Keys are read 8 bytes at a time: the data section ends with ANIM_TAIL_PADDING spare bytes, so
 * the read never leaves the payload. The format is little-endian, like every host we build for. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "compiled clips are little-endian; a big-endian host needs byte swaps in load8"
#endif
static inline uint64_t load8(const uint8_t *in)
{
    uint64_t v;
    memcpy(&v, in, 8);
    return v;
}

/* One key's value, one at a time: what the packer checks its choices with, and constants. The pose
 * decoder (anim__decode_*) does the same four keys at once. */
static inline void anim__unpack(anim__mode mode, bool rotation, const anim__range_t *range,
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
 * One animated track of one segment at frame f: keys is the track's n frame numbers (u16, rising;
 * two equal ones mark a discontinuity) followed by its n packed values. The curve between the keys
 * i and i + 1 around f is a cubic Hermite whose derivatives come from the neighbouring keys,
 * one-sided where there is no neighbour or where a neighbour shares the key's time (a
 * discontinuity); rotation keys are put in one hemisphere first and the result is normalised.
 * Writes 4 floats (rotation) or 3 (translation, range: its quantization range in precision mode,
 * ignored in spec mode). The compressor fits its curves through these same functions.
 */
void anim__decode_rotation(anim__mode mode, const uint8_t *keys, uint32_t n, float f, float *out);
void anim__decode_translation(anim__mode mode, const anim__range_t *range, const uint8_t *keys,
                              uint32_t n, float f, float *out);

#endif
