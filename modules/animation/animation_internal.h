/*
 * animation_internal.h: the animation module's private contract between its engine-bound files:
 * animation.c (plugin, API table, evaluate), animation_resource.c (skeleton and clip types),
 * animation_component.c (the component type and its per-world manager), animation_lua.c.
 * The kernel-free core is animation_core.h.
 */
#ifndef ANIMATION_INTERNAL_H
#define ANIMATION_INTERNAL_H

#include "animation_core.h"
#include "animation_source.h"

#include "ct_animation.h"
#include "ct_data.h"
#include "ct_entity.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_reload.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"

/* ANIMATION_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of anim__state, anim__manager and every struct they reach (animation_layout.h, by
 * tools/abi/layout_id.py): a change there changes it, so there is no number to bump. The module's
 * entry file includes animation_layout.h. */

#define ANIM_CLIP_NAME 64u

/* A loaded skeleton: the payload itself (header then bones). */
typedef struct anim__skeleton {
    const anim__skeleton_header_t *header;
    const anim__bone_t *bones;
} anim__skeleton;

/* A loaded clip: the motion (rotations, translations, events) and, when its source animates
 * scale, a second clip of the same format whose translation tracks are the bones' scales. Both
 * read their small tables from the copies that follow the struct (anim__clip_keep_tables). */
struct ct_animation_clip_o {
    anim__clip clip;
    anim__clip scale;
    bool has_scale;
    size_t size; /* of this allocation */
    uint64_t tables[];
};

/* One playing clip of an instance. */
typedef struct anim__layer {
    char name[ANIM_CLIP_NAME]; /* "" when nothing plays */
    float time, speed;
    bool loop;
} anim__layer;

/* An instance: an animated entity with its bones (SoA would split these further; one instance is
 * touched as a whole by each step, so they stay together). */
typedef struct anim__instance {
    ct_entity_t entity;
    const anim__skeleton *skeleton;
    char skeleton_name[ANIM_CLIP_NAME];
    uint32_t first_bone; /* into the manager's bone arrays */
    uint32_t num_bones;
    anim__layer layer[2];  /* [0] plays; [1] fades out during a crossfade */
    float fade, fade_time; /* elapsed and total crossfade seconds */
    bool scaled;           /* the bones' scales are a clip's, not the skeleton's rest scales */
    /* The layers' clips, looked up by name at the start of each evaluate (a clip unloaded
     * meanwhile stops its layer instead of leaving a dangling pointer). */
    const ct_animation_clip_o *resolved[2];
} anim__instance;

/* An animation controller (animation_controller.c): an instance's play speed and crossfade
 * weight as expressions of script variables. Controllers live in their world's manager, so they
 * go with the world and carry over a hot reload of this module like the instances do; their
 * programs belong to ct.expr and hold no code address, so no reload invalidates them. */
#define ANIM_CONTROLLER_VARIABLES 8u
#define ANIM_CONTROLLER_NAME 32u
/* The expressions' inputs: time, fade, dt, then the variables in their declared order. */
#define ANIM_CONTROLLER_INPUTS (3u + ANIM_CONTROLLER_VARIABLES)

typedef struct anim__controller {
    ct_entity_t entity;
    uint32_t num_variables;
    char names[ANIM_CONTROLLER_VARIABLES][ANIM_CONTROLLER_NAME];
    float inputs[ANIM_CONTROLLER_INPUTS];
    struct ct_expr_program_o *speed, *weight; /* either may be NULL */
    float saved_fade; /* the fade's own clock while the weight expression stands in for it */
    bool overridden;
} anim__controller;

/* The per-world manager of the "animation" component. Instances and their bones are in the same
 * order, so removing instances is one pass that moves both down. */
typedef struct anim__manager {
    ct_allocator_t *a;
    ct_world_o *world;
    anim__instance *instances;
    uint32_t num_instances, cap_instances;
    ct_entity_pages_t index; /* entity -> instance + 1 (animation_lookup.c) */
    /* Bones of all instances, instance after instance: entities, transform handles (looked up
     * each evaluate) and the poses sampled into them. */
    ct_entity_t *bone_entity;
    ct_transform_t *bone_transform;
    ct_transform_pose_t *bone_pose;
    uint32_t num_bones, cap_bones;
    /* Bones whose entities must be destroyed (their owner died) at the next evaluate. */
    ct_entity_t *dead_bones;
    uint32_t num_dead, cap_dead;
    uint8_t *events; /* the last evaluate's event stream */
    uint32_t events_size, events_cap;
    anim__controller *controllers; /* by entity, unordered */
    uint32_t num_controllers, cap_controllers;
} anim__manager;

typedef struct anim__state {
    ct_reload_header_t header; /* first: what a hot reload checks (ct_reload.h) */
    uint64_t type_id;
    ct_component_type_t registered;
} anim__state;

typedef struct anim__module {
    ct_plugin_o *self;
    const ct_log_api_v1 *log;
    const ct_entity_api_v2 *entity;
    const ct_component_api_v1 *component;
    const ct_transform_api_v2 *transform;
    const ct_lua_api_v1 *lua;
    const ct_data_api_v1 *data;
    const ct_resource_api_v6 *resource;        /* v6: reference */
    const ct_jobs_api_v1 *jobs;                /* optional */
    const struct ct_expr_api_v1 *expr;         /* optional: controllers (animation_controller.c) */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_allocator_t *allocator;
    anim__state *state;
} anim__module;

extern anim__module anim__m;
extern const ct_animation_api_v1 anim__api_v1;

#define ANIM_LOG(level, ...) anim__m.log->write(anim__m.self, level, __VA_ARGS__)

/* animation_controller.c: speeds and crossfade weights as expressions of script variables;
 * evaluate calls the three steps around advancing and posing a world's instances. */
void anim__controllers_before(anim__manager *m, float dt);
void anim__controllers_weights(anim__manager *m);
void anim__controllers_after(anim__manager *m);
/* Destroys a manager's controllers and their programs (the manager is going away). */
void anim__controllers_free(anim__manager *m);
void anim__register_controller_lua(void);

/* animation_resource.c */
int anim__register_resources(void);
int anim__rebind_resources(void);
void anim__unregister_resources(void);
const anim__skeleton *anim__skeleton_get(const char *name);
const ct_animation_clip_o *anim__clip_get(const char *name);

/* animation_component.c */
int anim__register_component(void);
bool anim__rebind_component(void);
void anim__unregister_component(void);
anim__manager *anim__manager_of(ct_world_o *w, const char *what);
/* Starts a clip on an instance (layer 0), optionally fading the current one out. */
int anim__start(anim__instance *inst, const char *clip, const ct_animation_play_t *desc, float fade,
                const char *what);
/* Removes instances whose entity died and destroys bones queued for it. */
void anim__collect(anim__manager *m);

/* animation_lookup.c: the entity -> instance map. find accepts a NULL manager. reserve makes
 * room for e's entry (false: out of memory, nothing changed), so that set cannot fail; set points
 * e's entry at an instance, when it is added or moved. */
anim__instance *anim__find(anim__manager *m, ct_entity_t e);
bool anim__map_reserve(anim__manager *m, ct_entity_t e);
void anim__map_set(anim__manager *m, ct_entity_t e, uint32_t instance);
void anim__map_erase(anim__manager *m, ct_entity_t e);
void anim__map_free(anim__manager *m);

/* animation_lua.c */
void anim__register_lua(void);

#endif
