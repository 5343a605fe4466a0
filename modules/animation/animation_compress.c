/* animation_compress.c: tolerances from the hierarchy, the curve fit (split the worst interval at
 * its middle), quantized keys written in the segment layout, and the search for the loosest
 * tolerances that still meet the target error (see animation_core.h). */
#include "animation_codec.h"

#include "ct_array.h"

#include <math.h>
#include <string.h>

/* A rotation moving at least 1 rad in one frame, faster than 60 rad/s (10 turns a second), is a
 * cut in the data, not motion; a translation jumping 0.5 m in a frame, faster than 20 m/s,
 * likewise. Both conditions, so coarsely sampled clips (one key a second) are not all cuts. */
static float cut_threshold(bool rotation, float sample_rate)
{
    return rotation ? fmaxf(1.0f, 60.0f / sample_rate) : fmaxf(0.5f, 20.0f / sample_rate);
}

static bool reserve(anim__bytes *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->size + more <= b->capacity)
        return true;
    /* A compressed clip is far below 4 GiB; one past it is refused like a failed allocation. */
    const uint32_t cap =
        b->size + more <= UINT32_MAX
            ? ct_array_capacity((uint32_t)b->capacity, (uint32_t)(b->size + more), 4096)
            : 0;
    uint8_t *d = cap ? ct_realloc(b->a, b->data, b->capacity, cap) : NULL;
    if (!d) {
        b->failed = true;
        return false;
    }
    memset(d + b->capacity, 0, cap - b->capacity);
    b->data = d;
    b->capacity = cap;
    return true;
}

static size_t append(anim__bytes *b, const void *bytes, size_t n)
{
    const size_t at = b->size;
    if (reserve(b, n)) {
        /* NULL appends zeros: a buffer reused for another try holds the last try's bytes. */
        if (bytes)
            memcpy(b->data + at, bytes, n);
        else
            memset(b->data + at, 0, n);
        b->size += n;
    }
    return at;
}

void anim__bytes_free(anim__bytes *b)
{
    if (b->data)
        ct_free(b->a, b->data, b->capacity);
    b->data = NULL;
    b->size = b->capacity = 0;
}

/* Distance between two values of a track: metres for translations, radians for rotations (the
 * chord of two aligned unit quaternions is half the angle, for small angles). */
static float distance(const float *a, const float *b, bool rotation)
{
    float d = 0, s = 0;
    if (rotation)
        s = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0f : 1.0f;
    for (uint32_t k = 0; k < (rotation ? 4u : 3u); k++) {
        const float x = a[k] - (rotation ? s * b[k] : b[k]);
        d += x * x;
    }
    return rotation ? 2.0f * sqrtf(d) : sqrtf(d);
}

/* What the compressor decides per track before writing any key. */
typedef struct track_info {
    float value[4];      /* a constant track's value, as decoding will see it */
    anim__range_t range; /* a translation's range of values */
    bool constant;
    uint32_t key_index; /* among the animated tracks: its slot in a segment's offsets */
} track_info;

/* One track's samples, as the fit sees them. */
typedef struct track_view {
    const float *samples; /* stride floats apart, num_samples of them */
    uint32_t stride;
    bool rotation;
    float tol;
    const anim__range_t *range;
    anim__mode mode;
    float cut; /* a jump between two samples larger than this is a discontinuity */
} track_view;

static const float *sample_of(const track_view *v, uint32_t f)
{
    return v->samples + (size_t)f * v->stride;
}

/* The keys of one segment of one track: frame numbers, with the "hold" key of a discontinuity
 * (same frame as the next key, value of the key before) marked. */
typedef struct seg_keys {
    uint32_t n;
    uint16_t frame[2 * ANIM_SEGMENT_FRAMES + 2];
    bool hold[2 * ANIM_SEGMENT_FRAMES + 2];
} seg_keys;

/* The most bytes one track's keys take in a segment (two keys per frame at most), plus the
 * decoder's spare bytes. */
#define TRACK_BYTES ((2 * ANIM_SEGMENT_FRAMES + 2) * 8 + ANIM_TAIL_PADDING)

/* Writes a track's keys of one segment as the clip stores them (frame numbers, then packed
 * values); returns their size. */
static uint32_t pack_keys(const track_view *v, const seg_keys *k, uint8_t *out)
{
    const uint32_t size = anim__value_size(v->mode, v->rotation);
    for (uint32_t i = 0; i < k->n; i++) {
        memcpy(out + 2 * i, &k->frame[i], 2);
        anim__pack(v->mode, v->rotation, v->range,
                   sample_of(v, k->hold[i] ? k->frame[i - 1] : k->frame[i]),
                   out + 2 * k->n + size * i);
    }
    return k->n * (2 + size);
}

/* The worst error of every interval, into err[i] for interval (i, i + 1): the keys packed and
 * decoded by the pose decoder itself, so the fit sees exactly what playback will. */
static void interval_errors(const track_view *v, const seg_keys *k, float *err)
{
    uint8_t packed[TRACK_BYTES] = {0};
    float out[4];
    pack_keys(v, k, packed);
    for (uint32_t i = 0; i + 1 < k->n; i++) {
        err[i] = 0;
        for (uint32_t f = k->frame[i] + 1u; f < k->frame[i + 1]; f++) {
            if (v->rotation)
                anim__decode_rotation(v->mode, packed, k->n, (float)f, out);
            else
                anim__decode_translation(v->mode, v->range, packed, k->n, (float)f, out);
            const float e = distance(out, sample_of(v, f), v->rotation);
            err[i] = e > err[i] ? e : err[i];
        }
    }
}

static void insert_key(seg_keys *k, uint32_t at, uint16_t frame, bool hold)
{
    memmove(&k->frame[at + 1], &k->frame[at], (k->n - at) * sizeof k->frame[0]);
    memmove(&k->hold[at + 1], &k->hold[at], (k->n - at) * sizeof k->hold[0]);
    k->frame[at] = frame;
    k->hold[at] = hold;
    k->n++;
}

/* Fits one segment [first, last] of a track: keys at both ends and around every cut, then the
 * worst interval split at its middle until all are within tolerance. */
static void fit_segment(const track_view *v, uint32_t first, uint32_t last, seg_keys *k)
{
    k->n = 0;
    k->frame[k->n] = (uint16_t)first, k->hold[k->n++] = false;
    for (uint32_t f = first; f < last; f++) {
        const float jump = distance(sample_of(v, f), sample_of(v, f + 1), v->rotation);
        if (jump > v->cut) {
            if (k->frame[k->n - 1] != f)
                k->frame[k->n] = (uint16_t)f, k->hold[k->n++] = false;
            k->frame[k->n] = (uint16_t)(f + 1), k->hold[k->n++] = true;
            if (f + 1 != last)
                k->frame[k->n] = (uint16_t)(f + 1), k->hold[k->n++] = false;
        }
    }
    if (k->frame[k->n - 1] != last || k->hold[k->n - 1])
        k->frame[k->n] = (uint16_t)last, k->hold[k->n++] = false;
    float err[2 * ANIM_SEGMENT_FRAMES + 2];
    for (;;) {
        interval_errors(v, k, err);
        uint32_t worst = UINT32_MAX;
        float worst_err = v->tol;
        for (uint32_t i = 0; i + 1 < k->n; i++)
            if (err[i] > worst_err && (uint32_t)k->frame[i + 1] - k->frame[i] > 1u)
                worst = i, worst_err = err[i];
        if (worst == UINT32_MAX)
            return;
        insert_key(k, worst + 1, (uint16_t)((k->frame[worst] + k->frame[worst + 1]) / 2u), false);
    }
}

/* Per bone: the reach (longest chain of offsets below it, plus the virtual point distance) and
 * the number of bones on its deepest root-to-leaf chain. */
static void bone_reach(const anim__raw *raw, double *reach, uint32_t *chain, uint32_t *depth)
{
    const uint32_t n = raw->num_bones;
    uint32_t *height = chain; /* bones below, reused as the chain length afterwards */
    for (uint32_t b = 0; b < n; b++)
        reach[b] = 0, height[b] = 0, depth[b] = raw->parent[b] >= 0 ? depth[raw->parent[b]] + 1 : 1;
    for (uint32_t b = n; b--;) {
        const int32_t p = raw->parent[b];
        if (p < 0)
            continue;
        const float *t = raw->translation[b];
        const double len = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
        if (len + reach[b] > reach[p])
            reach[p] = len + reach[b];
        if (height[b] + 1 > height[p])
            height[p] = height[b] + 1;
    }
    for (uint32_t b = 0; b < n; b++) {
        reach[b] += ANIM_VIRTUAL_POINT_M;
        chain[b] = height[b] + depth[b];
    }
}

/* Per track: constant (every sample within tolerance of the first) or animated, and ranges. */
static uint32_t build_tracks(const anim__raw *raw, anim__mode mode, const float *tol,
                             track_info *tracks)
{
    for (uint32_t t = 0; t < 2 * raw->num_bones; t++) {
        const uint32_t b = t / 2;
        const bool rot = (t & 1u) == 0;
        track_info *tr = &tracks[t];
        memset(tr, 0, sizeof *tr);
        const float *first = rot ? raw->rotation[b] : raw->translation[b];
        float lo[3] = {first[0], first[1], first[2]}, hi[3] = {first[0], first[1], first[2]};
        bool constant = true;
        for (uint32_t s = 0; s < raw->num_samples; s++) {
            const float *v = rot ? raw->rotation[(size_t)s * raw->num_bones + b]
                                 : raw->translation[(size_t)s * raw->num_bones + b];
            constant &= distance(first, v, rot) <= tol[t];
            for (int k = 0; k < 3 && !rot; k++)
                lo[k] = v[k] < lo[k] ? v[k] : lo[k], hi[k] = v[k] > hi[k] ? v[k] : hi[k];
        }
        for (int k = 0; k < 3; k++)
            tr->range.min[k] = lo[k], tr->range.extent[k] = hi[k] - lo[k];
        tr->constant = constant;
        if (constant && mode == ANIM_SPEC) { /* the post's quantization, decoded once here */
            uint8_t packed[8] = {0};
            anim__pack(mode, rot, &tr->range, first, packed);
            anim__unpack(mode, rot, &tr->range, packed, tr->value);
        } else if (constant) {
            memcpy(tr->value, first, (rot ? 4u : 3u) * sizeof(float));
        }
    }
    /* A segment holds the animated rotations, then the animated translations. */
    uint32_t animated = 0;
    for (uint32_t t = 0; t < 2 * raw->num_bones; t++)
        if (!tracks[t].constant && (t & 1u) == 0)
            tracks[t].key_index = animated++;
    for (uint32_t t = 1; t < 2 * raw->num_bones; t += 2)
        if (!tracks[t].constant)
            tracks[t].key_index = animated++;
    return animated;
}

/* The small tables in front of the segments: constant mask, constant values, ranges. */
static void write_tables(anim__bytes *out, anim__clip_header_t *h, const track_info *tracks,
                         uint32_t num_tracks, anim__mode mode)
{
    const uint32_t words = (num_tracks + 63) / 64;
    append(out, NULL, (8 - (out->size & 7u)) & 7u);
    h->mask_offset = (uint32_t)append(out, NULL, (size_t)words * 8);
    for (uint32_t t = 0; t < num_tracks && !out->failed; t++)
        if (tracks[t].constant)
            out->data[h->mask_offset + t / 8] |= (uint8_t)(1u << (t % 8));
    h->constants_offset = (uint32_t)out->size;
    for (uint32_t pass = 0; pass < 2; pass++) /* rotations, then translations */
        for (uint32_t t = pass; t < num_tracks; t += 2)
            if (tracks[t].constant)
                append(out, tracks[t].value, sizeof tracks[t].value);
    h->ranges_offset = (uint32_t)out->size;
    for (uint32_t t = 1; t < num_tracks && mode == ANIM_PRECISION; t += 2)
        if (!tracks[t].constant)
            append(out, &tracks[t].range, sizeof tracks[t].range);
}

/* One compression at fixed tolerances (tol per track); tracks is scratch for 2 per bone. */
static int compress_once(const anim__raw *raw, anim__mode mode, const float *tol,
                         const anim__event *events, uint32_t num_events, track_info *tracks,
                         anim__bytes *out)
{
    const uint32_t nb = raw->num_bones, ns = raw->num_samples;
    const uint32_t segs = (ns - 1u) / ANIM_SEGMENT_FRAMES + 1u;
    out->size = 0;
    out->failed = false;
    anim__clip_header_t h = {.num_bones = nb,
                             .num_samples = ns,
                             .sample_rate = raw->sample_rate,
                             .mode = mode,
                             .num_segments = segs,
                             .num_events = num_events,
                             .hierarchy_hash = anim__hierarchy_hash(raw->parent, nb)};
    append(out, &h, sizeof h);
    const uint32_t animated = build_tracks(raw, mode, tol, tracks);
    write_tables(out, &h, tracks, 2 * nb, mode);
    h.segments_offset = (uint32_t)append(out, NULL, (size_t)segs * 4);
    h.events_offset = (uint32_t)append(out, events, (size_t)num_events * sizeof *events);
    h.data_offset = (uint32_t)append(out, NULL, (out->size & 1u));
    seg_keys keys;
    for (uint32_t s = 0; s < segs && !out->failed; s++) {
        const uint32_t first = s * ANIM_SEGMENT_FRAMES;
        const uint32_t last =
            first + ANIM_SEGMENT_FRAMES < ns - 1u ? first + ANIM_SEGMENT_FRAMES : ns - 1u;
        const size_t seg_at = append(out, NULL, (size_t)animated * 2);
        memcpy(out->data + h.segments_offset + 4 * s,
               &(uint32_t){(uint32_t)(seg_at - h.data_offset)}, 4);
        for (uint32_t t = 0; t < 2 * nb && !out->failed; t++) {
            const uint32_t track = t < nb ? 2 * t : 2 * (t - nb) + 1; /* rotations first */
            const track_info *tr = &tracks[track];
            if (tr->constant)
                continue;
            const bool rot = (track & 1u) == 0;
            const track_view v = {.samples =
                                      rot ? raw->rotation[track / 2] : raw->translation[track / 2],
                                  .stride = nb * (rot ? 4u : 3u),
                                  .rotation = rot,
                                  .tol = tol[track],
                                  .range = &tr->range,
                                  .mode = mode,
                                  .cut = cut_threshold(rot, raw->sample_rate)};
            fit_segment(&v, first, last, &keys);
            uint8_t packed[TRACK_BYTES];
            append(out, packed, pack_keys(&v, &keys, packed));
            const size_t end = out->size - seg_at;
            if (end > UINT16_MAX)
                return CT_ERR_FULL; /* a segment's keys must be addressable with 16 bits */
            if (!out->failed)
                memcpy(out->data + seg_at + 2 * tr->key_index, &(uint16_t){(uint16_t)end}, 2);
        }
    }
    append(out, NULL, ANIM_TAIL_PADDING + ((8 - (out->size & 7u)) & 7u));
    if (out->failed)
        return CT_ERR_NOMEM;
    h.size = (uint32_t)out->size;
    memcpy(out->data, &h, sizeof h);
    return 0;
}

int anim__compress(const anim__raw *raw, const anim__settings *s, const anim__event *events,
                   uint32_t num_events, ct_allocator_t *a, anim__bytes *out, double *achieved_mm)
{
    const uint32_t nb = raw->num_bones;
    if (nb == 0 || nb > ANIM_MAX_BONES || raw->num_samples == 0 ||
        raw->num_samples > ANIM_MAX_FRAMES || num_events > ANIM_MAX_EVENTS ||
        !(s->target_error_m > 0))
        return CT_ERR_INVALID;
    *out = (anim__bytes){.a = a};
    const size_t scratch = nb * (sizeof(double) + 2 * sizeof(uint32_t)) + 2 * nb * sizeof(float) +
                           2 * nb * sizeof(track_info);
    uint8_t *mem = ct_alloc(a, scratch);
    if (!mem)
        return CT_ERR_NOMEM;
    double *reach = (double *)mem;
    uint32_t *chain = (uint32_t *)(reach + nb), *depth = chain + nb;
    float *tol = (float *)(depth + nb);
    track_info *tracks = (track_info *)(void *)(tol + 2 * nb);
    bone_reach(raw, reach, chain, depth);

    /* Loosen or tighten every tolerance by one factor until the measured error meets the target
     * with the fewest bytes: halving steps, then a few bisections. */
    anim__bytes best = {.a = a}, trial = {.a = a};
    double lo = 0, hi = 0, k = 1.0;
    int rc = 0;
    for (int step = 0; step < 12 && !rc; step++) {
        for (uint32_t b = 0; b < nb; b++) {
            const double budget = k * s->target_error_m / chain[b];
            tol[2 * b] = (float)(budget / reach[b]);
            tol[2 * b + 1] = (float)budget;
        }
        rc = compress_once(raw, s->mode, tol, events, num_events, tracks, &trial);
        anim__clip clip;
        anim__error_report report;
        if (rc || anim__clip_open(trial.data, trial.size, &clip) ||
            (rc = anim__measure(raw, &clip, trial.size, a, &report)))
            break;
        if (report.max_mm <= s->target_error_m * 1000.0) {
            lo = k;
            if (!best.data || trial.size < best.size) {
                *achieved_mm = report.max_mm;
                const anim__bytes swap = best;
                best = trial;
                trial = swap;
            }
        } else {
            hi = k;
            if (!best.data)
                *achieved_mm = report.max_mm;
        }
        k = hi == 0 ? k * 2 : lo == 0 ? k / 2 : 0.5 * (lo + hi);
        if (lo == 0 && k < 1e-4)
            break;
    }
    /* A target below the quantization floor is never met: the tightest fit (the last one) is
     * the closest the format gets, and the caller sees its error in *achieved_mm. */
    if (!rc && !best.data) {
        best = trial;
        trial = (anim__bytes){.a = a};
    }
    anim__bytes_free(&trial);
    ct_free(a, mem, scratch);
    if (rc) {
        anim__bytes_free(&best);
        return rc;
    }
    *out = best;
    return 0;
}
