/*
 * animation_codec.h: what the compressor and the decoder must agree on bit for bit: key sizes,
 * quantization, and the curve evaluation. Private to the core (animation_*.c of the core).
 */
#ifndef ANIMATION_CODEC_H
#define ANIMATION_CODEC_H

#include "animation_core.h"

/* Bytes of one key: a u16 frame number and the packed value. */
static inline uint32_t anim__key_size(anim__mode mode, bool rotation)
{
    return 2u + (rotation ? (mode == ANIM_SPEC ? 4u : 6u) : 6u);
}

/* Packs a value (rotation x y z w, or translation x y z) into out; unpacks it. `track` gives the
 * translation range in precision mode. */
void anim__pack(anim__mode mode, bool rotation, const anim__track_t *track, const float *value,
                uint8_t *out);
void anim__unpack(anim__mode mode, bool rotation, const anim__track_t *track, const uint8_t *in,
                  float *value);

/*
 * The curve between keys i and i + 1 of the arrays (time, value) of n keys, at time t (frames,
 * time[i] <= t < time[i + 1]): a cubic Hermite whose derivatives come from the neighbouring keys,
 * one-sided where there is no neighbour or where a neighbour shares the key's time (a
 * discontinuity). Rotation values must already sit in one hemisphere; the result is normalised.
 */
void anim__eval(const float *time, const float (*value)[4], uint32_t n, uint32_t i, float t,
                bool rotation, float *out);

/* Puts q in the hemisphere of ref (flips its sign when their dot product is negative). */
static inline void anim__align(const float *ref, float *q)
{
    if (ref[0] * q[0] + ref[1] * q[1] + ref[2] * q[2] + ref[3] * q[3] < 0)
        for (int k = 0; k < 4; k++)
            q[k] = -q[k];
}

#endif
