/*
 * animation_core.h: the animation module's kernel-free core: raw clips, compression, the
 * compressed layout, decoding and the error report. Tests, the benchmark and the error tool
 * compile these files directly; animation.c and friends bind them to the engine.
 *
 * Compression (after the seed post "The BitSquid low level animation system"). A clip is a
 * rotation track and a translation track per bone, in local space. A track whose samples all
 * stay within its tolerance of the first is constant: one value in the track table. Every other
 * track becomes, per segment of ANIM_SEGMENT_FRAMES frames, a Hermite curve through a subset of
 * its own samples, with derivatives computed from the neighbouring keys (one-sided at a curve's
 * ends), fitted by splitting the interval with the largest error at its middle sample until every
 * interval is within tolerance. A jump between two samples larger than a bone can move in a frame
 * is a discontinuity: the curve ends on one side and starts again on the other (two keys with
 * nothing in between; see anim__decode_rotation). Curves restart at segment boundaries, so a pose at any time
 * reads one segment only.
 *
 * Tolerances. Error is what the ACL metric sees: the motion of points 3 cm from each bone,
 * carried through the hierarchy. A rotation error of a bone moves everything below it by the
 * angle times the distance, so a bone's rotation tolerance is the positional budget divided by
 * its reach (the longest chain of bone offsets below it, plus the 3 cm), and the budget is split
 * over the bones of its deepest chain (errors along a chain add up). A global factor is then
 * searched so the measured error meets the target with as few keys as possible.
 *
 * Quantization.
 *   spec mode, exactly the post: translation keys 3 x 16 bits over -10 m .. 10 m; rotation keys
 *     2 bits for the index of the largest component and 3 x 10 bits for the others in
 *     (-1/sqrt 2, 1/sqrt 2); 16-bit times (the frame number). Constant values are quantized the
 *     same way.
 *   precision mode (film): rotation keys 2 + 3 x 15 bits (6 bytes), translation keys 3 x 16 bits
 *     over the track's own range (range reduction), constant tracks at full float precision.
 * Decoding puts each rotation key in the hemisphere of the key before it before interpolating.
 *
 * Layout (the clip blob's payload, little-endian; see anim__clip_header_t). Tracks are numbered
 * rotation of bone 0, translation of bone 0, rotation of bone 1, ...
 *     constant mask    u64 words, bit t set when track t is constant
 *     constants        float[4] per constant track: the rotations in bone order, then the
 *                      translations
 *     ranges           anim__range_t per animated translation track (precision mode only)
 *     segment table    u32 offset of each segment's data
 *     events           sorted by time
 *     segment data     per segment: u16 end offset of each animated track's keys, then the keys
 *                      of the animated rotations in bone order, then those of the translations;
 *                      each track's keys as its u16 frame numbers, then its packed values
 *     tail padding     ANIM_TAIL_PADDING bytes, so the decoder's wide reads stay inside
 * A pose reads the small tables and its segment from front to back, in the order it builds the
 * pose: the decoder runs one loop per kind of track (constant rotations, constant translations,
 * animated rotations, animated translations), each reading where the previous track ended. That
 * is the forward, in-order read the post asks for. A track's frame numbers sit together so the
 * search for the keys around a time compares eight at once; sequential playback stays inside one
 * segment for a quarter second at 120 Hz, and a cold pose prefetches its whole segment (about
 * 1.6 KB for CMU 01_01 in spec mode) before decoding, so its misses overlap.
 */
#ifndef ANIMATION_CORE_H
#define ANIMATION_CORE_H

#include "ct_types.h"

#define ANIM_SEGMENT_FRAMES 32u
#define ANIM_MAX_BONES 1024u
#define ANIM_MAX_FRAMES 65535u /* 16-bit key times */
#define ANIM_EVENT_NAME 24u
#define ANIM_MAX_EVENTS 4096u
#define ANIM_VIRTUAL_POINT_M 0.03 /* ACL's virtual points: 3 cm from the bone */

typedef enum anim__mode { ANIM_SPEC = 0, ANIM_PRECISION = 1 } anim__mode;

/* A raw clip: local poses of every bone at every sample. Rotations are unit quaternions x y z w,
 * translations metres. Arrays are [sample * num_bones + bone]. */
typedef struct anim__raw {
    uint32_t num_bones, num_samples;
    float sample_rate;     /* samples per second */
    const int32_t *parent; /* per bone, -1 for a root; a parent precedes its children */
    float (*rotation)[4];
    float (*translation)[3];
} anim__raw;

/* One marked time of a clip ("footstep"); a script reads these as an event stream. */
typedef struct anim__event {
    float time;
    uint32_t name_hash; /* ct_hash32-style FNV-1a of the name, for cheap comparison */
    char name[ANIM_EVENT_NAME];
} anim__event;

/* The header at the start of a compiled clip's payload. */
typedef struct anim__clip_header_t {
    uint32_t num_bones;
    uint32_t num_samples;
    float sample_rate;
    uint32_t mode; /* anim__mode */
    uint32_t num_segments;
    uint32_t num_events;
    uint64_t hierarchy_hash; /* of the parents, to match a skeleton */
    uint32_t mask_offset, constants_offset, ranges_offset;
    uint32_t segments_offset, events_offset, data_offset;
    uint32_t size; /* of the whole payload */
    uint32_t reserved;
} anim__clip_header_t;

/* The quantization range of a translation track in precision mode. */
typedef struct anim__range_t {
    float min[3];
    float extent[3];
} anim__range_t;

/* A validated compressed clip: pointers into the payload. */
typedef struct anim__clip {
    const anim__clip_header_t *header;
    const uint64_t *constant_mask;
    const float (*constants)[4];
    const anim__range_t *ranges;
    const uint32_t *segments;
    const anim__event *events;
    const uint8_t *data;
    uint32_t num_animated, num_constants, num_ranges;
    float duration; /* (num_samples - 1) / sample_rate */
    /* Copies of header fields a pose needs, so sampling does not wait for the header's line. */
    uint32_t num_bones, num_segments, data_size; /* data_size: keys, without the tail padding */
    anim__mode mode;
    float sample_rate, last_frame;
} anim__clip;

/* Whether track t (2 * bone + 0 rotation, + 1 translation) of a clip is constant. */
static inline bool anim__constant(const anim__clip *clip, uint32_t t)
{
    return (clip->constant_mask[t / 64] >> (t % 64)) & 1u;
}

/* Compression settings. */
typedef struct anim__settings {
    anim__mode mode;
    double target_error_m; /* the ACL error the fit aims for (the max, metres) */
} anim__settings;

/* A growing byte buffer the compressor writes into (allocated from `a`). */
typedef struct anim__bytes {
    ct_allocator_t *a;
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} anim__bytes;

/* Compresses raw into out (the clip payload) with the fewest bytes whose ACL error meets the
 * target; when no tolerance can (the target is below the quantization floor), the tightest fit.
 * *achieved_mm gets its measured error. events may be NULL. Returns 0 or a ct_error. */
int anim__compress(const anim__raw *raw, const anim__settings *s, const anim__event *events,
                   uint32_t num_events, ct_allocator_t *a, anim__bytes *out, double *achieved_mm);
/* Frees what a compress wrote. */
void anim__bytes_free(anim__bytes *b);

/* Checks a payload and fills clip; NULL, or the reason something is wrong. */
const char *anim__clip_open(const void *payload, uint64_t size, anim__clip *clip);

/* The tables every pose reads besides its segment (constant mask, constants, ranges, segment
 * table): their size, and a copy of them to `to` (8-aligned) that clip then reads instead. A
 * loaded clip keeps them right after itself, so a pose with cold caches waits for two pages (its
 * clip's and its segment's), not three. */
uint32_t anim__clip_tables_size(const anim__clip *clip);
void anim__clip_keep_tables(anim__clip *clip, void *to);

/* The pose decoder's functions, and the API's sample that calls them, go into one small run of
 * code (.text.hot): a pose with cold caches then fetches its code from one page, not three. */
#if defined(__GNUC__)
#define ANIM_HOT __attribute__((hot))
#else
#define ANIM_HOT
#endif

/* Samples the full local pose at time t (seconds, clamped to the clip): bone b's rotation goes
 * to rotation + b * rotation_stride (4 floats), its translation to translation + b *
 * translation_stride (3 floats), so it can fill separate arrays or ct_transform_pose_t directly.
 * Reads the clip only; any thread. */
void anim__sample(const anim__clip *clip, float t, float *rotation, uint32_t rotation_stride,
                  float *translation, uint32_t translation_stride);

/* The ACL-metric report: max and 99th percentile over every bone and raw sample of the
 * distance between virtual points (3 cm along each local axis) carried to object space by the
 * raw and the decoded clip, in mm; ratio = 40 bytes x bones x samples / compressed size. */
typedef struct anim__error_report {
    double max_mm, p99_mm;
    double ratio;
    uint32_t worst_bone, worst_sample;
} anim__error_report;
int anim__measure(const anim__raw *raw, const anim__clip *clip, size_t compressed_size,
                  ct_allocator_t *a, anim__error_report *out);
/* Why a clip misses its target, for people: the worst bone (named `worst_name`, may be NULL),
 * how deep it sits and how far its chain reaches, how large the skeleton is and whether that
 * looks like wrong units, and what to try. Writes one paragraph into out. */
void anim__explain_miss(const anim__raw *raw, const anim__error_report *r, double target_mm,
                        const char *mode, const char *worst_name, char *out, size_t size);

/* The hierarchy hash of a parent array. */
uint64_t anim__hierarchy_hash(const int32_t *parent, uint32_t n);
/* FNV-1a of a string, the events' name hash. */
uint32_t anim__name_hash(const char *s);

#endif
