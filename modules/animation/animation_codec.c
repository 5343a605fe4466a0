/* animation_codec.c: quantization of keys and opening (checking) a compiled clip; the pose
 * decoder is animation_decode.c. */
#include "animation_codec.h"

#include <math.h>
#include <string.h>

static uint32_t quantize(float v, float lo, float hi, uint32_t bits)
{
    const float max = (float)((1u << bits) - 1u);
    float q = (v - lo) / (hi - lo) * max + 0.5f;
    q = q < 0 ? 0 : q > max ? max : q;
    return (uint32_t)q;
}

static void put_u64(uint8_t *out, uint64_t v, uint32_t bytes)
{
    for (uint32_t b = 0; b < bytes; b++)
        out[b] = (uint8_t)(v >> (8 * b));
}

void anim__pack(anim__mode mode, bool rotation, const anim__range_t *range, const float *value,
                uint8_t *out)
{
    if (rotation) {
        /* The largest component is dropped (its sign made positive) and rebuilt on decode. Each
         * of the other three is rounded down or up, whichever of the eight combinations decodes
         * closest to the value: the error that matters is the rotation's, after the rebuild. */
        uint32_t big = 0;
        for (uint32_t k = 1; k < 4; k++)
            if (fabsf(value[k]) > fabsf(value[big]))
                big = k;
        const float sign = value[big] < 0 ? -1.0f : 1.0f;
        const uint32_t bits = mode == ANIM_SPEC ? 10u : 15u, bytes = mode == ANIM_SPEC ? 4u : 6u;
        const float max = (float)((1u << bits) - 1u);
        uint32_t base[3];
        for (uint32_t k = 0, n = 0; k < 4; k++)
            if (k != big) {
                const float q = (sign * value[k] + SQRT_HALF) / (2 * SQRT_HALF) * max;
                base[n++] = q <= 0 ? 0u : q >= max ? (uint32_t)max - 1u : (uint32_t)q;
            }
        uint64_t best = 0;
        float best_dot = -1;
        for (uint32_t combo = 0; combo < 8; combo++) {
            uint64_t packed = big;
            for (uint32_t n = 0; n < 3; n++)
                packed = packed << bits | (base[n] + ((combo >> n) & 1u));
            uint8_t tmp[8] = {0};
            float back[4];
            put_u64(tmp, packed, bytes);
            anim__unpack(mode, true, range, tmp, back);
            const float dot = fabsf(back[0] * value[0] + back[1] * value[1] + back[2] * value[2] +
                                    back[3] * value[3]);
            if (dot > best_dot)
                best_dot = dot, best = packed;
        }
        put_u64(out, best, bytes);
        return;
    }
    uint64_t packed = 0;
    for (uint32_t k = 0; k < 3; k++) {
        const float lo = mode == ANIM_SPEC ? -10.0f : range->min[k];
        const float hi = mode == ANIM_SPEC ? 10.0f : range->min[k] + range->extent[k];
        packed |= (uint64_t)(hi > lo ? quantize(value[k], lo, hi, 16) : 0u) << (16 * k);
    }
    put_u64(out, packed, 6);
}

const char *anim__clip_open(const void *payload, uint64_t size, anim__clip *clip)
{
    const uint8_t *p = payload;
    const anim__clip_header_t *h = payload;
    if (size < sizeof *h || ((uintptr_t)p & 7u))
        return "shorter than its header";
    if (h->size != size)
        return "its size field disagrees with the payload size";
    if (h->num_bones == 0 || h->num_bones > ANIM_MAX_BONES)
        return "num_bones is not in 1..1024";
    if (h->num_samples < 1 || h->num_samples > ANIM_MAX_FRAMES || !(h->sample_rate > 0.0f) ||
        !isfinite(h->sample_rate))
        return "num_samples or sample_rate out of range";
    if (h->mode > ANIM_PRECISION)
        return "unknown mode";
    if (h->num_events > ANIM_MAX_EVENTS)
        return "too many events";
    const uint32_t segs = (h->num_samples - 1u) / ANIM_SEGMENT_FRAMES + 1u;
    if (h->num_segments != segs)
        return "num_segments disagrees with num_samples";
    const uint32_t tracks = 2 * h->num_bones, words = (tracks + 63) / 64;
    const uint64_t mask_end = h->mask_offset + (uint64_t)words * 8;
    if (h->mask_offset < sizeof *h || (h->mask_offset & 7u) || mask_end > h->size)
        return "its constant mask lies outside the payload";
    clip->header = h;
    clip->constant_mask = (const uint64_t *)(p + h->mask_offset);
    uint32_t constants = 0, ranges = 0;
    for (uint32_t t = 0; t < words * 64; t++) {
        const bool constant = anim__constant(clip, t);
        if (t >= tracks && constant)
            return "its constant mask marks tracks that do not exist";
        constants += constant;
        ranges += t < tracks && !constant && (t & 1u) && h->mode == ANIM_PRECISION;
    }
    const uint64_t constants_end = h->constants_offset + (uint64_t)constants * 16;
    const uint64_t ranges_end = h->ranges_offset + (uint64_t)ranges * sizeof(anim__range_t);
    const uint64_t segs_end = h->segments_offset + (uint64_t)segs * 4;
    const uint64_t events_end = h->events_offset + (uint64_t)h->num_events * sizeof(anim__event);
    if (h->constants_offset < mask_end || constants_end > h->ranges_offset ||
        ranges_end > h->segments_offset || segs_end > h->events_offset ||
        events_end > h->data_offset || h->data_offset > size ||
        (h->constants_offset | h->ranges_offset | h->segments_offset | h->events_offset) & 3u ||
        (h->data_offset & 1u))
        return "its sections overlap or lie outside the payload";
    clip->constants = (const float(*)[4])(p + h->constants_offset);
    clip->ranges = (const anim__range_t *)(p + h->ranges_offset);
    clip->segments = (const uint32_t *)(p + h->segments_offset);
    clip->events = (const anim__event *)(p + h->events_offset);
    clip->data = p + h->data_offset;
    clip->duration = (float)(h->num_samples - 1u) / h->sample_rate;
    clip->num_constants = constants;
    clip->num_ranges = ranges;
    clip->num_animated = tracks - constants;
    if (size - h->data_offset < ANIM_TAIL_PADDING)
        return "its data lacks the tail padding";
    const uint64_t data_size = size - h->data_offset - ANIM_TAIL_PADDING;
    for (uint32_t k = 0; k < constants; k++)
        for (int i = 0; i < 4; i++)
            if (!isfinite(clip->constants[k][i]))
                return "a constant value is not finite";
    for (uint32_t k = 0; k < ranges; k++)
        for (int i = 0; i < 3; i++)
            if (!isfinite(clip->ranges[k].min[i]) || !isfinite(clip->ranges[k].extent[i]) ||
                !(clip->ranges[k].extent[i] >= 0))
                return "a translation range is not finite";
    const uint32_t animated = clip->num_animated;
    for (uint32_t e = 0; e < h->num_events; e++)
        if (!isfinite(clip->events[e].time) || clip->events[e].name[ANIM_EVENT_NAME - 1] != '\0' ||
            (e && clip->events[e].time < clip->events[e - 1].time))
            return "an event is malformed or out of order";
    /* Every segment: its offset table fits, offsets rise, whole keys, times in the segment and
     * rising (equal only for a discontinuity pair); rotation tracks first, then translations. */
    for (uint32_t s = 0; s < segs; s++) {
        const uint64_t at = clip->segments[s];
        const uint64_t end = s + 1 < segs ? clip->segments[s + 1] : data_size;
        if (at > end || end > data_size || (at & 1u) || (uint64_t)animated * 2 > end - at)
            return "a segment lies outside the data";
        const uint16_t *offsets = (const uint16_t *)(clip->data + at);
        uint32_t prev_end = animated * 2u, k = 0;
        const uint32_t first = s * ANIM_SEGMENT_FRAMES;
        const uint32_t last = first + ANIM_SEGMENT_FRAMES < h->num_samples - 1u
                                  ? first + ANIM_SEGMENT_FRAMES
                                  : h->num_samples - 1u;
        for (uint32_t pass = 0; pass < 2; pass++)
            for (uint32_t t = pass; t < tracks; t += 2) {
                if (anim__constant(clip, t))
                    continue;
                const uint32_t key = anim__key_size((anim__mode)h->mode, pass == 0);
                const uint32_t track_end = offsets[k++];
                if (track_end < prev_end || track_end > end - at || (track_end - prev_end) % key ||
                    track_end == prev_end)
                    return "a segment's key offsets are malformed";
                const uint32_t n = (track_end - prev_end) / key;
                uint32_t prev_time = 0, same = 0;
                for (uint32_t j = 0; j < n; j++) {
                    uint16_t time;
                    memcpy(&time, clip->data + at + prev_end + 2 * j, 2);
                    same = j && time == prev_time ? same + 1 : 0;
                    if (time < first || time > last || (j && time < prev_time) || same > 1 ||
                        (j == 0 && time != first))
                        return "a key's time is outside its segment or out of order";
                    prev_time = time;
                }
                if (prev_time != last)
                    return "a track's keys do not reach the end of their segment";
                prev_end = track_end;
            }
    }
    clip->num_bones = h->num_bones;
    clip->num_segments = segs;
    clip->mode = (anim__mode)h->mode;
    clip->sample_rate = h->sample_rate;
    clip->last_frame = (float)(h->num_samples - 1u);
    clip->data_size = (uint32_t)data_size;
    return NULL;
}

uint32_t anim__clip_tables_size(const anim__clip *clip)
{
    const anim__clip_header_t *h = clip->header;
    return h->segments_offset + 4 * clip->num_segments - h->mask_offset;
}

void anim__clip_keep_tables(anim__clip *clip, void *to)
{
    const anim__clip_header_t *h = clip->header;
    uint8_t *t = to;
    memcpy(t, (const uint8_t *)h + h->mask_offset, anim__clip_tables_size(clip));
    clip->constant_mask = (const uint64_t *)(void *)t;
    clip->constants = (const float(*)[4])(void *)(t + h->constants_offset - h->mask_offset);
    clip->ranges = (const anim__range_t *)(void *)(t + h->ranges_offset - h->mask_offset);
    clip->segments = (const uint32_t *)(void *)(t + h->segments_offset - h->mask_offset);
}

uint64_t anim__hierarchy_hash(const int32_t *parent, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (uint32_t)parent[i]) * 1099511628211ull;
    return h;
}

uint32_t anim__name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}
