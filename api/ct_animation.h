/*
 * ct_animation.h: skeletal animation. API "ct.animation", served by modules/animation
 * (ct_animation.so); component type "animation"; resource types "skeleton" and "clip".
 *
 * After the seed post "The BitSquid low level animation system": the low level system finds bone
 * poses at a time t from compressed clips; blending two clips (crossfade) is the only high level
 * feature here. Bones are entities with transforms linked under the animated entity (a model's
 * scene graph is local to its entity), and every frame writes all the bones of a world through
 * ct_transform_api_v2.set_local_batch, once.
 *
 * Sources (SJSON), compiled by cuttle-compile through the resource system:
 *
 *   characters/cmu.skeleton
 *     source = "mocap/01_01.bvh"   // a project file: .bvh, or .gltf / .glb (a skin's joints)
 *     units = 0.056444             // metres per source unit: a number, or "m", "cm", "mm",
 *                                  // "inch" (CMU BVH: 0.056444; default "m")
 *     skin = 0                     // glTF only: which skin (default 0)
 *     // or, in a skeleton or a clip, instead of source the BVH text itself:
 *     //   bvh = "HIERARCHY\nROOT hips\n..."
 *     // (for tests and generated content)
 *
 *   characters/walk.clip
 *     source = "mocap/01_01.bvh"   // BVH frames, or a glTF animation resampled at `rate`
 *     units = 0.056444
 *     mode = "spec"                // "spec" (the post's quantization, default) or "precision"
 *     error_mm = 10                // target error in the ACL metric (default 10 spec, 0.5 precision)
 *     animation = "Walk"  rate = 30  // glTF only: which animation, by name (an unknown name gets
 *                                  // the nearest known one and the file's list) or index, and
 *                                  // the rate it is resampled at (Hz)
 *     skin = 0                     // glTF only
 *     events = [ { time = 0.5 name = "left_foot" } ]   // names up to 23 bytes
 *
 * An unknown field, a wrong type, a bad file, a source that cannot be read or parsed, or a clip
 * whose error stays above its target is reported naming the file and the field. The compiled
 * clip holds per bone a rotation and a translation track (curve-fitted Hermite keys, quantized;
 * see modules/animation/animation_core.h), and a scale track when the source animates scale (glTF
 * scale channels; keys like translations', so a spec-mode clip's scales must stay in -10..10);
 * glTF morph target weights are not read. A clip without scale tracks leaves bones at their
 * skeleton's rest scale. A clip plays on any skeleton with the same hierarchy (the same parent of
 * every bone), checked when it starts playing.
 *
 * cuttle-compile compiles a skeleton or clip again when its SJSON changes and also when the file
 * it names changes or is gone (the BVH, the .gltf/.glb, the .bin buffers a .gltf reads).
 *
 * The component, in an entity resource:
 *     animation = { skeleton = "characters/cmu" clip = "characters/walk" loop = true speed = 1 }
 * Spawning loads the skeleton, creates one entity per bone with a transform at the bone's rest
 * pose, links root bones under the animated entity (which should have a transform) and the others
 * under their parent bone, and starts the clip when one is named. Bones die with their entity.
 *
 * Playback. evaluate(world, dt) advances every instance's time (speed may be negative; looping
 * clips wrap, others hold their end), samples its clips (two during a crossfade, blended by the
 * fade weight) on ct.jobs in parallel, writes the bones' local poses with one batched set, and
 * fills the world's event stream with the clip events passed since the last evaluate. A clip
 * named to play must be loaded or loadable (it is loaded on first use and kept).
 *
 * Events. events(world) returns [ct_animation_event_header_t][ct_animation_event_t]... for the
 * last evaluate, valid until the next one; walk it with ct_animation_event_next and skip unknown
 * types by size. Nothing is dispatched globally; Lua reads the same stream.
 *
 * Lua (module Animation; worlds are light userdata, entities numbers):
 *   Animation.play(world, e, clip [, {loop = true, speed = 1}])
 *   Animation.crossfade(world, e, clip, seconds [, {loop =, speed =}])
 *   Animation.time(world, e) -> seconds          Animation.set_time(world, e, seconds)
 *   Animation.evaluate(world, dt)
 *   Animation.events(world) -> { {entity =, name =, time =}, ... } of the last evaluate
 *   Animation.bone(world, e, name or index) -> bone entity or nil (indices from 1)
 *   Animation.bone_count(world, e) -> number of bones (0 without an animation)
 *   Controllers (with ct.expr loaded): the play speed and the crossfade weight as expressions
 *   (ct_expr.h) of variables the script sets, plus `time` (the playing clip's), `fade` (the
 *   crossfade's progress 0..1) and `dt`:
 *   Animation.set_controller(world, e, {variables = {"gait"}, speed = "gait * 0.5",
 *                                       weight = "smoothstep(0, 1, fade)"})   (nil: removes it)
 *   Animation.set_variable(world, e, "gait", 2.5)     Animation.variable(world, e, "gait")
 *   Before each evaluate `speed` sets the playing clip's speed (clamped to +-1000); during a
 *   crossfade `weight` (clamped to 0..1) is the new clip's share instead of the fade clock's.
 *   Animation.clips(name, ...) -> { {name =, duration =, bones =}, ... } of clip resources (a
 *       glTF file's own animation names and durations: cuttle-anim-report --list FILE)
 * Bad arguments (NaN or infinite times and speeds, unknown clips, entities without an animation)
 * raise Lua errors naming the entity and the argument.
 *
 * Threads: main thread only (evaluate uses ct.jobs internally).
 *
 * Hot reload: instances, loaded resources and the event streams carry over; a build whose state
 * layout differs is refused (logged) and the old code keeps running.
 */
#ifndef CT_ANIMATION_H
#define CT_ANIMATION_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_ANIMATION_API 0xda64732bu /* "ct.animation" */
#define CT_ANIMATION_COMPONENT_NAME "animation"

typedef struct ct_entity_t ct_entity_t;
typedef struct ct_world_o ct_world_o;
typedef struct ct_transform_pose_t ct_transform_pose_t;

/* A loaded clip (owned by the resource system). */
typedef struct ct_animation_clip_o ct_animation_clip_o;

/* How a clip plays; zero means the defaults (no loop, speed 1). */
typedef struct ct_animation_play_t {
    float speed;  /* 0: 1; negative plays backwards; must be finite */
    uint8_t loop; /* 1 loops, 0 plays once (fixed width: no bool in a frozen struct) */
} ct_animation_play_t;

/* Every event is preceded by this header; `size` is the event's size after it. */
typedef struct ct_animation_event_header_t {
    uint32_t type; /* CT_ANIMATION_EVENT_* */
    uint32_t size;
} ct_animation_event_header_t;

/* The event types of an animation event stream (ct_animation_event_header_t.type). */
enum {
    /* A clip event was passed (ct_animation_event_t). */
    CT_ANIMATION_EVENT_MARKER = 1,
};

/* CT_ANIMATION_EVENT_MARKER: a clip's named event passed during an evaluate. */
typedef struct ct_animation_event_t {
    uint32_t entity;    /* the animated entity's id */
    uint32_t name_hash; /* FNV-1a of the name */
    float time;         /* the event's time in its clip */
    char name[24];      /* NUL-terminated */
} ct_animation_event_t;

/* Walks a stream: the header at *offset (advancing past its event), or NULL at the end. */
static inline const ct_animation_event_header_t *
ct_animation_event_next(const void *stream, uint32_t size, uint32_t *offset)
{
    const uint32_t at = *offset;
    if (at > size || size - at < sizeof(ct_animation_event_header_t))
        return NULL;
    const ct_animation_event_header_t *h =
        (const ct_animation_event_header_t *)((const char *)stream + at);
    if (h->size > size - at - sizeof *h)
        return NULL;
    *offset = at + (uint32_t)sizeof *h + h->size;
    return h;
}

typedef struct ct_animation_api_v1 {
    /* The clip resource `name`, loaded on first use (and kept), or NULL (logged). */
    const ct_animation_clip_o *(*clip)(const char *name);
    /* Seconds from the first to the last sample; number of bones. */
    float (*clip_duration)(const ct_animation_clip_o *clip);
    uint32_t (*clip_bones)(const ct_animation_clip_o *clip);
    /* Samples the full local pose at time t (clamped) into out[0 .. bones-1] (scale 1 unless
     * the clip has scale tracks, see the top of this header). Returns
     * the bone count, or 0 when capacity is too small or t is not finite. Any thread. */
    uint32_t (*sample)(const ct_animation_clip_o *clip, float t, ct_transform_pose_t *out,
                       uint32_t capacity);

    /* Plays `clip` on entity e's animation in `world` from its start. 0, CT_ERR_NOT_FOUND (no
     * animation, or no such clip), CT_ERR_INVALID (bad desc, or the clip's hierarchy differs from
     * the skeleton's), all logged. */
    int (*play)(ct_world_o *world, ct_entity_t e, const char *clip,
                const ct_animation_play_t *desc);
    /* As play, fading from what plays now to `clip` over `seconds` (> 0, finite). */
    int (*crossfade)(ct_world_o *world, ct_entity_t e, const char *clip, float seconds,
                     const ct_animation_play_t *desc);
    /* The time in the playing clip (seconds), or -1 without an animation or a clip. */
    float (*time)(ct_world_o *world, ct_entity_t e);
    /* Jumps to time t (finite; wrapped or clamped like playback). 0 or a ct_error. No events
     * fire for the skipped span. */
    int (*set_time)(ct_world_o *world, ct_entity_t e, float t);
    /* Advances, samples and writes every instance of the world (see above). dt finite >= 0. */
    void (*evaluate)(ct_world_o *world, float dt);
    /* The event stream of the world's last evaluate; *size its bytes. */
    const void *(*events)(ct_world_o *world, uint32_t *size);
    /* The entity of bone `index` of e's skeleton ({0} when out of range or no animation); the
     * number of bones; the index of a bone by name (UINT32_MAX if none). */
    ct_entity_t (*bone)(ct_world_o *world, ct_entity_t e, uint32_t index);
    uint32_t (*bone_count)(ct_world_o *world, ct_entity_t e);
    uint32_t (*bone_index)(ct_world_o *world, ct_entity_t e, const char *name);
} ct_animation_api_v1;

#ifdef __cplusplus
}
#endif
#endif
