/*
 * animation_component.c: the "animation" component type: compiling its resource data, the
 * per-world manager, spawning an instance (its bones become entities with transforms linked
 * under the animated entity), starting clips, and removing instances whose entity died.
 */
#include "animation_internal.h"

#include "ct_array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The compiled instance data of one component. */
typedef struct anim__instance_data {
    char skeleton[ANIM_CLIP_NAME];
    char clip[ANIM_CLIP_NAME]; /* "" for none */
    float speed;
    uint32_t loop;
} anim__instance_data;

/* The bone arrays share one allocation (structure of arrays in one block, as the seed's
 * component managers do); growing moves all three. */
static size_t bone_block_size(uint32_t cap)
{
    return (size_t)cap *
           (sizeof(ct_transform_pose_t) + sizeof(ct_entity_t) + sizeof(ct_transform_t));
}

static bool reserve_bones(anim__manager *m, uint32_t need)
{
    if (need <= m->cap_bones)
        return true;
    const uint32_t cap = ct_array_capacity(m->cap_bones, need, 64);
    uint8_t *block = ct_alloc(m->a, bone_block_size(cap));
    if (!block)
        return false;
    ct_transform_pose_t *pose = (ct_transform_pose_t *)block;
    ct_entity_t *entity = (ct_entity_t *)(pose + cap);
    ct_transform_t *transform = (ct_transform_t *)(entity + cap);
    if (m->num_bones) {
        memcpy(pose, m->bone_pose, m->num_bones * sizeof *pose);
        memcpy(entity, m->bone_entity, m->num_bones * sizeof *entity);
    }
    if (m->bone_pose)
        ct_free(m->a, m->bone_pose, bone_block_size(m->cap_bones));
    m->bone_pose = pose, m->bone_entity = entity, m->bone_transform = transform;
    m->cap_bones = cap;
    return true;
}

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    anim__manager *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (anim__manager){.a = a, .world = world};
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    anim__manager *m = manager;
    ct_allocator_t *a = m->a;
    if (m->instances)
        ct_free(a, m->instances, (size_t)m->cap_instances * sizeof *m->instances);
    if (m->bone_pose)
        ct_free(a, m->bone_pose, bone_block_size(m->cap_bones));
    if (m->dead_bones)
        ct_free(a, m->dead_bones, (size_t)m->cap_dead * sizeof *m->dead_bones);
    anim__map_free(m);
    if (m->events)
        ct_free(a, m->events, m->events_cap);
    anim__controllers_free(m);
    ct_free(a, m, sizeof *m);
}

anim__manager *anim__manager_of(ct_world_o *w, const char *what)
{
    anim__manager *m = w ? anim__m.component->manager(w, anim__m.state->type_id) : NULL;
    if (!m)
        ANIM_LOG(CT_LOG_WARNING, "%s: %p is not a world with animation", what, (void *)w);
    return m;
}

int anim__start(anim__instance *inst, const char *clip, const ct_animation_play_t *desc, float fade,
                const char *what)
{
    const float speed = desc && desc->speed != 0 ? desc->speed : 1.0f;
    if (!clip || strlen(clip) >= ANIM_CLIP_NAME || !isfinite(speed) || fabsf(speed) > 1000.0f ||
        !(fade >= 0 && fade < 1e6f)) {
        ANIM_LOG(CT_LOG_ERROR,
                 "%s: entity %u: refused clip \"%s\", speed %g, fade %g (names up to "
                 "63 bytes, finite speed up to 1000, fade >= 0)",
                 what, inst->entity.id, clip ? clip : "(null)", (double)speed, (double)fade);
        return CT_ERR_INVALID;
    }
    const ct_animation_clip_o *c = anim__clip_get(clip);
    if (!c) {
        ANIM_LOG(CT_LOG_ERROR, "%s: entity %u: no clip \"%s\"", what, inst->entity.id, clip);
        return CT_ERR_NOT_FOUND;
    }
    if (c->clip.header->hierarchy_hash != inst->skeleton->header->hierarchy_hash) {
        ANIM_LOG(CT_LOG_ERROR,
                 "%s: entity %u: clip \"%s\" (%u bones) does not fit skeleton \"%s\" "
                 "(%u bones): their hierarchies differ",
                 what, inst->entity.id, clip, c->clip.header->num_bones, inst->skeleton_name,
                 inst->skeleton->header->num_bones);
        return CT_ERR_INVALID;
    }
    if (fade > 0 && inst->layer[0].name[0]) {
        inst->layer[1] = inst->layer[0];
        inst->fade = 0;
        inst->fade_time = fade;
    } else {
        inst->layer[1].name[0] = '\0';
        inst->fade_time = 0;
    }
    anim__layer *l = &inst->layer[0];
    snprintf(l->name, sizeof l->name, "%s", clip);
    l->speed = speed;
    l->loop = desc && desc->loop;
    l->time = speed < 0 ? c->clip.duration : 0;
    return 0;
}

/* ---- compile and spawn ----------------------------------------------------------------------- */

static bool name_field(const ct_data_o *src, const char *field, bool required, char *out,
                       ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = anim__m.data->get(src, field);
    const char *s = anim__m.data->string(v, NULL);
    char why[160];
    out[0] = '\0';
    if (!v && !required)
        return true;
    if (!s || strlen(s) >= ANIM_CLIP_NAME || anim__m.resource->check_name(s, why, sizeof why)) {
        anim__m.resource->compile_error(ctx, "animation.%s: %s", field,
                                        !s                            ? "missing (a resource name)"
                                        : strlen(s) >= ANIM_CLIP_NAME ? "longer than 63 bytes"
                                                                      : why);
        return false;
    }
    /* The field names the resource type ("skeleton", "clip"): noted in the reference index, and
     * a missing one fails the compile instead of the spawn. */
    char path[32];
    snprintf(path, sizeof path, "animation.%s", field);
    if (!anim__m.resource->reference(ctx, path, field, s))
        return false;
    memcpy(out, s, strlen(s) + 1);
    return true;
}

static int compile(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_data_api_v1 *data = anim__m.data;
    anim__instance_data d = {.speed = 1};
    static const ct_field_t known[] = {
        {"skeleton", CT_DATA_STRING, 0},
        {"clip", CT_DATA_STRING, 0},
        {"loop", CT_DATA_BOOL, 0},
        {"speed", CT_DATA_NUMBER, 0},
    };
    if (!anim__m.resource->check_fields(ctx, src, "animation", known, 4))
        return CT_ERR_BAD_DATA;
    const ct_data_o *loop = data->get(src, "loop"), *speed = data->get(src, "speed");
    /* check_fields has checked the types (and that a number is finite); the range is ours. The
     * values are checked before the names, whose resources are looked up in the project. */
    d.loop = data->boolean(loop, false);
    if (speed) {
        const double s = data->number(speed, NAN);
        if (!(fabs(s) <= 1000)) {
            anim__m.resource->compile_error(ctx, "animation.speed: must be in -1000..1000, not %g",
                                            s);
            return CT_ERR_BAD_DATA;
        }
        d.speed = (float)s;
    }
    if (!name_field(src, "skeleton", true, d.skeleton, ctx) ||
        !name_field(src, "clip", false, d.clip, ctx))
        return CT_ERR_BAD_DATA;
    memcpy(out, &d, sizeof d);
    return 0;
}

/* Creates the bones of a new instance: entities, transforms at the rest pose, links. */
static bool make_bones(anim__manager *m, anim__instance *inst, ct_world_o *world)
{
    const uint32_t n = inst->skeleton->header->num_bones;
    if (!reserve_bones(m, m->num_bones + n))
        return false;
    ct_entity_t *bones = m->bone_entity + m->num_bones;
    if (anim__m.entity->create_batch(bones, n) != n)
        return false;
    for (uint32_t b = 0; b < n; b++) {
        const anim__bone_t *bone = &inst->skeleton->bones[b];
        ct_transform_pose_t pose;
        memcpy(pose.position, bone->translation, sizeof pose.position);
        memcpy(pose.rotation, bone->rotation, sizeof pose.rotation);
        memcpy(pose.scale, bone->scale, sizeof pose.scale);
        anim__m.transform->create(world, bones[b], &pose);
        m->bone_pose[m->num_bones + b] = pose;
    }
    /* Handles change with every create, so links are made once all bones exist. */
    const ct_transform_t owner = anim__m.transform->lookup(world, inst->entity);
    for (uint32_t b = 0; b < n; b++) {
        const int32_t p = inst->skeleton->bones[b].parent;
        const ct_transform_t parent = p >= 0 ? anim__m.transform->lookup(world, bones[p]) : owner;
        if (parent.i)
            anim__m.transform->link(world, anim__m.transform->lookup(world, bones[b]), parent);
    }
    inst->first_bone = m->num_bones;
    inst->num_bones = n;
    m->num_bones += n;
    return true;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    anim__manager *m = manager;
    for (uint32_t k = 0; k < n; k++) {
        anim__instance_data d;
        memcpy(&d, (const char *)data + (size_t)k * sizeof d, sizeof d);
        d.skeleton[ANIM_CLIP_NAME - 1] = d.clip[ANIM_CLIP_NAME - 1] = '\0';
        const ct_entity_t e = ctx->entity_lookup[entity_index[k]];
        const anim__skeleton *skeleton = anim__skeleton_get(d.skeleton);
        if (!skeleton || anim__find(m, e) ||
            !ct_array_reserve_of(m->a, &m->instances, &m->cap_instances, m->num_instances + 1,
                                 16) ||
            !anim__map_reserve(m, e)) {
            ANIM_LOG(CT_LOG_ERROR, "spawn animation: entity %u: %s", e.id,
                     !skeleton          ? "its skeleton could not be loaded"
                     : anim__find(m, e) ? "already animated in this world"
                                        : "out of memory");
            continue;
        }
        anim__instance *inst = &m->instances[m->num_instances];
        *inst = (anim__instance){.entity = e, .skeleton = skeleton};
        snprintf(inst->skeleton_name, sizeof inst->skeleton_name, "%s", d.skeleton);
        if (!make_bones(m, inst, ctx->world)) {
            ANIM_LOG(CT_LOG_ERROR,
                     "spawn animation: entity %u: out of memory or entities for %u "
                     "bones",
                     e.id, skeleton->header->num_bones);
            continue;
        }
        anim__map_set(m, e, m->num_instances++);
        if (d.clip[0])
            anim__start(inst, d.clip, &(ct_animation_play_t){d.speed, d.loop != 0}, 0,
                        "spawn animation");
    }
}

/* ---- removal --------------------------------------------------------------------------------- */

/* Queues the bones of an instance whose entity died for destruction (not from inside an entity
 * callback) and takes it out of the map; the entity 0 marks it for compact(). */
static void drop_instance(anim__manager *m, anim__instance *inst)
{
    if (ct_array_reserve_of(m->a, &m->dead_bones, &m->cap_dead, m->num_dead + inst->num_bones,
                            16)) {
        memcpy(m->dead_bones + m->num_dead, m->bone_entity + inst->first_bone,
               inst->num_bones * sizeof *m->dead_bones);
        m->num_dead += inst->num_bones;
    } else {
        ANIM_LOG(CT_LOG_ERROR, "entity %u died: out of memory queueing its %u bones; they stay",
                 inst->entity.id, inst->num_bones);
    }
    anim__map_erase(m, inst->entity);
    inst->entity.id = 0;
}

/* Moves the instances that remain, and their bones, down over the dropped ones, in one pass. */
static void compact(anim__manager *m)
{
    uint32_t kept = 0, bone = 0;
    for (uint32_t i = 0; i < m->num_instances; i++) {
        anim__instance *inst = &m->instances[i];
        if (!inst->entity.id)
            continue;
        if (inst->first_bone != bone) {
            memmove(m->bone_entity + bone, m->bone_entity + inst->first_bone,
                    inst->num_bones * sizeof *m->bone_entity);
            memmove(m->bone_pose + bone, m->bone_pose + inst->first_bone,
                    inst->num_bones * sizeof *m->bone_pose);
            inst->first_bone = bone;
        }
        bone += inst->num_bones;
        if (kept != i) {
            m->instances[kept] = *inst;
            anim__map_set(m, m->instances[kept].entity, kept);
        }
        kept++;
    }
    m->num_instances = kept;
    m->num_bones = bone;
}

/* A batch of entities died (bones among them, which are not in the map): one lookup each, then
 * one compaction for the batch. */
static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    anim__manager *m = manager;
    uint32_t dropped = 0;
    for (uint32_t k = 0; k < n; k++) {
        anim__instance *inst = anim__find(m, entities[k]);
        if (inst) {
            drop_instance(m, inst);
            dropped++;
        }
    }
    if (dropped)
        compact(m);
}

void anim__collect(anim__manager *m)
{
    if (!m->num_dead)
        return;
    const uint32_t n = m->num_dead;
    m->num_dead = 0; /* destroying bones calls back into destroyed(); nothing of ours dies then */
    anim__m.entity->destroy_batch(m->dead_bones, n);
}

/* After transforms and physics: an instance links to its entity's placed transform. */
static const ct_component_type_t type = {
    .name = CT_ANIMATION_COMPONENT_NAME,
    .spawn_order = CT_SPAWN_ORDER_ANIMATION,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = sizeof(anim__instance_data),
    .compile = compile,
    .spawn = spawn,
    .destroyed = destroyed,
};

/* The layout of a compiled animation component inside levels and units
 * (ct_resource_api_v6.declare_format): a change is a new number, so cuttle-compile compiles the
 * levels and units that hold one again and older blobs are refused ("recompile"). */
#define ANIMATION_FORMAT 1

int anim__register_component(void)
{
    anim__state *s = anim__m.state;
    anim__m.resource->declare_format("component." CT_ANIMATION_COMPONENT_NAME, ANIMATION_FORMAT);
    s->type_id = anim__m.component->register_type(&type);
    if (!s->type_id)
        return CT_ERR_CONFLICT;
    s->registered = type;
    return 0;
}

bool anim__rebind_component(void)
{
    if (!anim__m.component->replace_type(&type))
        return false;
    anim__m.state->registered = type;
    return true;
}

void anim__unregister_component(void)
{
    anim__m.component->unregister_type(anim__m.state->type_id);
}
