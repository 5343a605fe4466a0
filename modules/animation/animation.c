/*
 * ct_animation.so: the plugin entry, the ct.animation v1 table and evaluate: advance every
 * instance's clock (collecting clip events), sample the poses on ct.jobs, write all bones of the
 * world with one batched transform set. The rules are in api/ct_animation.h.
 */
#include "animation_internal.h"
#include "ct_profiler.h"
#include "ct_array.h"
#undef CT_PROFILER /* ct_profiler.h names its default table; this module keeps its own */
#define CT_PROFILER (anim__m.profiler)

#include "ct_expr.h"

#include "ct_memory.h"
#include "ct_module.h"
#include "ct_plugin.h"
#include "animation_layout.h"

#include <math.h>
#include <string.h>

anim__module anim__m;

/* ---- clips ----------------------------------------------------------------------------------- */

static const ct_animation_clip_o *clip(const char *name)
{
    const ct_animation_clip_o *c = name ? anim__clip_get(name) : NULL;
    if (!c)
        ANIM_LOG(CT_LOG_ERROR, "clip: \"%s\" is not a loadable clip", name ? name : "(null)");
    return c;
}

static float clip_duration(const ct_animation_clip_o *c) { return c ? c->clip.duration : 0; }
static uint32_t clip_bones(const ct_animation_clip_o *c) { return c ? c->clip.num_bones : 0; }

/* Samples a clip straight into poses: rotations and positions, and scales when the clip has
 * scale tracks (else they are left as they are). The scale clip is decoded first; the
 * placeholder rotations it writes are then overwritten by the motion's. */
static void sample_into(const ct_animation_clip_o *c, float t, ct_transform_pose_t *out)
{
    const uint32_t stride = sizeof *out / sizeof(float);
    if (c->has_scale)
        anim__sample(&c->scale, t, out->rotation, stride, out->scale, stride);
    anim__sample(&c->clip, t, out->rotation, stride, out->position, stride);
}

/* The skeleton's rest scales, which a clip without scale tracks leaves the bones at. */
static void rest_scale(const anim__instance *inst, ct_transform_pose_t *out)
{
    for (uint32_t b = 0; b < inst->num_bones; b++)
        memcpy(out[b].scale, inst->skeleton->bones[b].scale, sizeof out[b].scale);
}

ANIM_HOT static uint32_t sample(const ct_animation_clip_o *c, float t, ct_transform_pose_t *out,
                                uint32_t capacity)
{
    if (!c || !out || !isfinite(t) || capacity < c->clip.num_bones)
        return 0;
    const uint32_t n = c->clip.num_bones;
    sample_into(c, t, out);
    for (uint32_t b = 0; b < n && !c->has_scale; b++)
        out[b].scale[0] = out[b].scale[1] = out[b].scale[2] = 1;
    return n;
}

/* ---- playback -------------------------------------------------------------------------------- */

static anim__instance *instance_of(ct_world_o *w, ct_entity_t e, const char *what)
{
    anim__manager *m = anim__manager_of(w, what);
    anim__instance *inst = m ? anim__find(m, e) : NULL;
    if (m && !inst)
        ANIM_LOG(CT_LOG_ERROR, "%s: entity %u has no animation in this world", what, e.id);
    return inst;
}

static int play(ct_world_o *w, ct_entity_t e, const char *name, const ct_animation_play_t *desc)
{
    anim__instance *inst = instance_of(w, e, "play");
    return inst ? anim__start(inst, name, desc, 0, "play") : CT_ERR_NOT_FOUND;
}

static int crossfade(ct_world_o *w, ct_entity_t e, const char *name, float seconds,
                     const ct_animation_play_t *desc)
{
    anim__instance *inst = instance_of(w, e, "crossfade");
    if (!inst)
        return CT_ERR_NOT_FOUND;
    if (!(seconds > 0 && seconds < 1e6f)) {
        ANIM_LOG(CT_LOG_ERROR, "crossfade: entity %u: %g s is not a fade time (finite, > 0)", e.id,
                 (double)seconds);
        return CT_ERR_INVALID;
    }
    return anim__start(inst, name, desc, seconds, "crossfade");
}

static float time_of(ct_world_o *w, ct_entity_t e)
{
    anim__instance *inst = instance_of(w, e, "time");
    return inst && inst->layer[0].name[0] ? inst->layer[0].time : -1.0f;
}

/* Wraps (looping) or clamps t into [0, duration]. */
static float place(float t, float duration, bool loop)
{
    if (duration <= 0)
        return 0;
    if (loop) {
        t = fmodf(t, duration);
        return t < 0 ? t + duration : t;
    }
    return t < 0 ? 0 : t > duration ? duration : t;
}

static int set_time(ct_world_o *w, ct_entity_t e, float t)
{
    anim__instance *inst = instance_of(w, e, "set_time");
    if (!inst)
        return CT_ERR_NOT_FOUND;
    const ct_animation_clip_o *c =
        inst->layer[0].name[0] ? anim__clip_get(inst->layer[0].name) : NULL;
    if (!c || !isfinite(t)) {
        ANIM_LOG(CT_LOG_ERROR, "set_time: entity %u: %s", e.id,
                 c ? "the time is not finite" : "no clip plays");
        return CT_ERR_INVALID;
    }
    inst->layer[0].time = place(t, c->clip.duration, inst->layer[0].loop);
    return 0;
}

static void emit(anim__manager *m, ct_entity_t e, const anim__event *ev)
{
    const uint32_t need = m->events_size + (uint32_t)(sizeof(ct_animation_event_header_t) +
                                                      sizeof(ct_animation_event_t));
    if (!ct_array_reserve_of(m->a, &m->events, &m->events_cap, need, 1024)) {
        ANIM_LOG(CT_LOG_ERROR, "events: out of memory; event \"%s\" of entity %u dropped", ev->name,
                 e.id);
        return;
    }
    const ct_animation_event_header_t h = {CT_ANIMATION_EVENT_MARKER, sizeof(ct_animation_event_t)};
    ct_animation_event_t out = {.entity = e.id, .name_hash = ev->name_hash, .time = ev->time};
    memcpy(out.name, ev->name, sizeof out.name);
    memcpy(m->events + m->events_size, &h, sizeof h);
    memcpy(m->events + m->events_size + sizeof h, &out, sizeof out);
    m->events_size = need;
}

/* Events with times in (from, to] (or [to, from) backwards) of a clip. */
static void events_between(anim__manager *m, ct_entity_t e, const anim__clip *c, float from,
                           float to)
{
    const bool forward = to >= from;
    for (uint32_t k = 0; k < c->header->num_events; k++) {
        const float t = c->events[k].time;
        if (forward ? (t > from && t <= to) : (t < from && t >= to))
            emit(m, e, &c->events[k]);
    }
}

/* Moves an instance's clocks by dt, emitting the events of its playing layer. */
static void advance(anim__manager *m, anim__instance *inst, float dt)
{
    for (int l = 0; l < 2; l++) {
        anim__layer *layer = &inst->layer[l];
        inst->resolved[l] = layer->name[0] ? anim__m.resource->get("clip", layer->name) : NULL;
        const ct_animation_clip_o *c = inst->resolved[l];
        if (!c) {
            if (layer->name[0])
                ANIM_LOG(CT_LOG_WARNING, "entity %u: clip \"%s\" was unloaded; it stops",
                         inst->entity.id, layer->name);
            layer->name[0] = '\0';
            continue;
        }
        const float d = c->clip.duration, from = layer->time, to = from + dt * layer->speed;
        layer->time = place(to, d, layer->loop);
        if (l == 1)
            continue;
        const bool wrapped = layer->loop && (to > d || to < 0) && d > 0;
        if (!wrapped) {
            events_between(m, inst->entity, &c->clip, from, layer->time);
        } else if (to > d) { /* forward past the end: the tail, then from the start */
            events_between(m, inst->entity, &c->clip, from, d);
            events_between(m, inst->entity, &c->clip, -1.0f, layer->time);
        } else {
            events_between(m, inst->entity, &c->clip, from, 0);
            events_between(m, inst->entity, &c->clip, d + 1.0f, layer->time);
        }
    }
    if (inst->layer[1].name[0]) {
        inst->fade += dt;
        if (inst->fade >= inst->fade_time)
            inst->layer[1].name[0] = '\0', inst->resolved[1] = NULL;
    }
}

typedef struct pose_job {
    anim__manager *m;
} pose_job;

/* Samples instances [begin, end) into their bones' poses: the playing clip, blended with the
 * fading one during a crossfade (nlerp of rotations in one hemisphere, lerp of positions and,
 * when either clip has scale tracks, of scales). */
static void pose_range(void *user, uint32_t begin, uint32_t end)
{
    anim__manager *m = ((pose_job *)user)->m;
    ct_transform_pose_t fading[ANIM_MAX_BONES];
    for (uint32_t i = begin; i < end; i++) {
        anim__instance *inst = &m->instances[i];
        ct_transform_pose_t *out = m->bone_pose + inst->first_bone;
        const ct_animation_clip_o *now = inst->resolved[0], *old = inst->resolved[1];
        if (!now)
            continue; /* nothing plays: the bones keep their last pose */
        sample_into(now, inst->layer[0].time, out);
        if (!now->has_scale && inst->scaled)
            rest_scale(inst, out);
        inst->scaled = now->has_scale;
        if (!old)
            continue;
        sample_into(old, inst->layer[1].time, fading);
        if (!old->has_scale)
            rest_scale(inst, fading);
        const bool blend_scale = now->has_scale || old->has_scale;
        inst->scaled = blend_scale;
        const float w = inst->fade / inst->fade_time;
        for (uint32_t b = 0; b < inst->num_bones; b++) {
            const float *a = fading[b].rotation;
            float *q = out[b].rotation, len = 0;
            const float s =
                a[0] * q[0] + a[1] * q[1] + a[2] * q[2] + a[3] * q[3] < 0 ? -1.0f : 1.0f;
            for (int k = 0; k < 4; k++) {
                q[k] = (1 - w) * s * a[k] + w * q[k];
                len += q[k] * q[k];
            }
            for (int k = 0; k < 4; k++)
                q[k] /= sqrtf(len);
            for (int k = 0; k < 3; k++)
                out[b].position[k] = (1 - w) * fading[b].position[k] + w * out[b].position[k];
            for (int k = 0; k < 3 && blend_scale; k++)
                out[b].scale[k] = (1 - w) * fading[b].scale[k] + w * out[b].scale[k];
        }
    }
}

static void evaluate(ct_world_o *w, float dt)
{
    CT_PROFILE_SCOPE("animation.evaluate");
    anim__manager *m = anim__manager_of(w, "evaluate");
    if (!m)
        return;
    if (!(dt >= 0 && dt < 1e6f)) {
        ANIM_LOG(CT_LOG_WARNING, "evaluate: refused dt %g (must be finite and >= 0)", (double)dt);
        return;
    }
    anim__collect(m);
    m->events_size = 0;
    anim__controllers_before(m, dt);
    for (uint32_t i = 0; i < m->num_instances; i++)
        advance(m, &m->instances[i], dt);
    anim__controllers_weights(m);
    pose_job job = {m};
    if (anim__m.jobs && m->num_instances > 8)
        anim__m.jobs->parallel_for(m->num_instances, 16, pose_range, &job);
    else
        pose_range(&job, 0, m->num_instances);
    anim__controllers_after(m);
    /* One batched set for the whole world. A bone whose entity or transform a script destroyed
     * has no handle any more; the set is then split around it rather than fed a stale handle. */
    for (uint32_t b = 0; b < m->num_bones; b++)
        m->bone_transform[b] = anim__m.transform->lookup(w, m->bone_entity[b]);
    for (uint32_t b = 0; b < m->num_bones;) {
        uint32_t end = b;
        while (end < m->num_bones && m->bone_transform[end].i)
            end++;
        if (end > b)
            anim__m.transform->set_local_batch(w, m->bone_transform + b, m->bone_pose + b, end - b);
        b = end + 1;
    }
}

static const void *events(ct_world_o *w, uint32_t *size)
{
    anim__manager *m = anim__manager_of(w, "events");
    *size = m ? m->events_size : 0;
    return m ? m->events : NULL;
}

static ct_entity_t bone(ct_world_o *w, ct_entity_t e, uint32_t index)
{
    anim__manager *m = anim__manager_of(w, "bone");
    anim__instance *inst = m ? anim__find(m, e) : NULL;
    return inst && index < inst->num_bones ? m->bone_entity[inst->first_bone + index]
                                           : (ct_entity_t){0};
}

static uint32_t bone_count(ct_world_o *w, ct_entity_t e)
{
    anim__instance *inst = anim__find(anim__manager_of(w, "bone_count"), e);
    return inst ? inst->num_bones : 0;
}

static uint32_t bone_index(ct_world_o *w, ct_entity_t e, const char *name)
{
    anim__instance *inst = anim__find(anim__manager_of(w, "bone_index"), e);
    for (uint32_t b = 0; inst && name && b < inst->num_bones; b++)
        if (strcmp(inst->skeleton->bones[b].name, name) == 0)
            return b;
    return UINT32_MAX;
}

const ct_animation_api_v1 anim__api_v1 = {
    .clip = clip,
    .clip_duration = clip_duration,
    .clip_bones = clip_bones,
    .sample = sample,
    .play = play,
    .crossfade = crossfade,
    .time = time_of,
    .set_time = set_time,
    .evaluate = evaluate,
    .events = events,
    .bone = bone,
    .bone_count = bone_count,
    .bone_index = bone_index,
};

/* ---- plugin ---------------------------------------------------------------------------------- */

static int start(void)
{
    int err = anim__register_resources();
    if (err)
        return err;
    if ((err = anim__register_component())) {
        anim__unregister_resources();
        return err;
    }
    anim__register_lua();
    anim__register_controller_lua();
    return 0;
}

static void stop(void)
{
    anim__unregister_component();
    anim__unregister_resources();
}

static int rebind(void)
{
    anim__register_lua();
    anim__register_controller_lua();
    if (anim__rebind_resources() || !anim__rebind_component())
        return CT_ERR_VERSION;
    return 0;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.animation", 1, ct_animation_api_v1),
};

static const ct_module_api_t apis[] = {
    CT_MODULE_API(entity, 2, &anim__m.entity),
    CT_MODULE_API(component, 1, &anim__m.component),
    CT_MODULE_API(transform, 2, &anim__m.transform),
    CT_MODULE_API(log, 1, &anim__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 1, &anim__m.lua),
    CT_MODULE_API(data, 1, &anim__m.data),
    CT_MODULE_API(resource, 6, &anim__m.resource),
    CT_MODULE_API_OPTIONAL(jobs, 1, &anim__m.jobs),
    CT_MODULE_API_OPTIONAL(expr, 1, &anim__m.expr),
    CT_MODULE_API_OPTIONAL(profiler, 1, &anim__m.profiler),
};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.animation", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &anim__m.self,
               .allocator = &anim__m.allocator,
               .state = &anim__m.state,
               .state_size = sizeof(anim__state),
               .layout_version = ANIMATION_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_ANIMATION_API, 1, &anim__api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
