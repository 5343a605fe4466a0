/*
 * animation_source.h: raw clips and skeletons made from source files (BVH, glTF) through the
 * shared readers of formats/. Compile-time only; private to the module, its tests and tools.
 */
#ifndef ANIMATION_SOURCE_H
#define ANIMATION_SOURCE_H

#include "animation_core.h"
#include "bvh.h"
#include "gltf.h"

#define ANIM_BONE_NAME 32u

/* A skeleton as compiled: per bone its parent, name and rest pose (scale and the glTF inverse
 * bind matrix for renderers; identity for BVH). The blob is this header then the bones. */
typedef struct anim__bone_t {
    int32_t parent;
    uint32_t name_hash;
    char name[ANIM_BONE_NAME];
    float translation[3];
    float rotation[4];
    float scale[3];
    float inverse_bind[16];
} anim__bone_t;

typedef struct anim__skeleton_header_t {
    uint32_t num_bones;
    uint32_t reserved;
    uint64_t hierarchy_hash;
} anim__skeleton_header_t;

/* A raw clip with the arrays it owns (from `a`). glTF scale channels give each bone's scale per
 * sample too ([sample * num_bones + bone], the rest scale where a bone has no channel); `scale`
 * is NULL when the source animates no scale. */
typedef struct anim__raw_owned {
    anim__raw raw;
    int32_t *parent;
    float (*scale)[3];
    char (*name)[ANIM_BONE_NAME]; /* per bone, for messages */
    ct_allocator_t *a;
} anim__raw_owned;

/* Every frame of a BVH as a raw clip, translations times `scale` (metres per file unit). The
 * rotations are made hemisphere-continuous over time. */
int anim__raw_from_bvh(const ct_bvh_t *bvh, double scale, ct_allocator_t *a, anim__raw_owned *out);
/* A glTF animation resampled at `rate` Hz on the joints of skin `skin` (bones ordered parents
 * first): translation, rotation and scale channels (morph target weights are not bone motion and
 * are left out). Returns a ct_error with the reason in err. */
int anim__raw_from_gltf(const ct_gltf_t *doc, uint32_t skin, uint32_t animation, float rate,
                        double scale, ct_allocator_t *a, anim__raw_owned *out, char *err,
                        size_t err_size);
void anim__raw_free(anim__raw_owned *r);

/* The glTF animation a clip names: by its name ("Walk") or by index (a string of digits). An
 * unknown one gets -1 and, in err, the nearest known name (through `nearest`, which may be NULL)
 * and every name with its duration. */
typedef const char *(*anim__nearest_f)(const char *word, const char *const *names, uint32_t count);
int32_t anim__gltf_animation(const ct_gltf_t *doc, const char *name, anim__nearest_f nearest,
                             char *err, size_t err_size);
/* The label of animation a for messages and listings: its name, or "animation_N" without one. */
void anim__gltf_animation_label(const ct_gltf_t *doc, uint32_t a, char *out, size_t size);

/* The bones of a BVH or of a glTF skin (n of them written to out, out has ANIM_MAX_BONES). */
uint32_t anim__bones_from_bvh(const ct_bvh_t *bvh, double scale, anim__bone_t *out);
int anim__bones_from_gltf(const ct_gltf_t *doc, uint32_t skin, double scale, anim__bone_t *out,
                          uint32_t *n, char *err, size_t err_size);

#endif
