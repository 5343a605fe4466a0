/*
 * bvh.h: the engine's one BVH (Biovision hierarchy) reader, for motion capture such as the CMU
 * database.
 *
 * What it reads. The HIERARCHY section (ROOT, JOINT, End Site, OFFSET, CHANNELS in any order and
 * any subset of the six channels, on any joint) and the MOTION section (Frames, Frame Time, one
 * frame of channel values per line). Several ROOTs are accepted (a forest). Keywords are matched
 * case-sensitively, as the format's writers produce them.
 *
 * Frames that disagree with `Frames:`. Real files do (Boxing_Toes.bvh declares 3069 frames and
 * holds 3070). The reader keeps every complete frame line that follows, whatever the header
 * says, and records the disagreement in `warning` for the compiler to report; a line with the
 * wrong number of values is an error naming the line. A file with no frames at all is refused.
 *
 * Limits, so no input can make it hang or allocate without bound: 1024 joints, nesting 256 deep,
 * names of 255 bytes, 1,000,000 frames, 1 GB of text. Every number must be finite.
 *
 * Errors read "file:line: what", e.g. "walk.bvh:212: frame 3 has 62 values, the hierarchy has 96
 * channels".
 *
 * Units: BVH does not state them; the values are returned as written. The caller scales (the
 * animation compiler takes `units` from its SJSON source).
 *
 * Threads: any; a result is read-only.
 */
#ifndef CT_FORMATS_BVH_H
#define CT_FORMATS_BVH_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ct_bvh_channel {
    CT_BVH_XPOSITION,
    CT_BVH_YPOSITION,
    CT_BVH_ZPOSITION,
    CT_BVH_XROTATION,
    CT_BVH_YROTATION,
    CT_BVH_ZROTATION,
} ct_bvh_channel;

typedef struct ct_bvh_joint_t {
    const char *name;
    int32_t parent; /* joint index, -1 for a root; parents come before their children */
    float offset[3];
    uint32_t num_channels;  /* 0..6 */
    uint32_t first_channel; /* index of this joint's first value in a frame */
    uint8_t channels[6];    /* ct_bvh_channel, in file order */
    bool has_end_site;
    float end_site[3]; /* the End Site's offset: where the bone's tip is */
} ct_bvh_joint_t;

typedef struct ct_bvh_t {
    const char *name;
    const ct_bvh_joint_t *joints;
    uint32_t num_joints;
    uint32_t num_channels; /* values per frame */
    uint32_t num_frames;
    float frame_time;         /* seconds; > 0 */
    const float *frames;      /* num_frames * num_channels, degrees and file units */
    uint32_t declared_frames; /* what `Frames:` said */
    const char *warning;      /* NULL, or why the frames differ from the header */
} ct_bvh_t;

/* Reads a file (NULL and "file:line: what" in err on failure). `a`: NULL for malloc. */
ct_bvh_t *ct_bvh_load_file(const char *path, ct_allocator_t *a, char *err, size_t err_size);
/* Reads text already in memory (need not be NUL-terminated); `name` names it in messages. */
ct_bvh_t *ct_bvh_parse(const char *text, size_t size, const char *name, ct_allocator_t *a,
                       char *err, size_t err_size);
/* Frees a result. Accepts NULL. */
void ct_bvh_free(ct_bvh_t *bvh);

/*
 * The local pose of `joint` at `frame`: translation = offset + position channels (scaled by
 * `scale`, e.g. 0.0254 for inches to metres), rotation = the rotation channels applied in file
 * order about the joint's moving axes, as a unit quaternion (x y z w).
 */
void ct_bvh_local_pose(const ct_bvh_t *bvh, uint32_t frame, uint32_t joint, double scale,
                       double translation[3], double rotation[4]);

#ifdef __cplusplus
}
#endif
#endif
