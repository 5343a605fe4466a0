/*
 * render_skin.c: the frame's bone palettes. On the main thread (transforms are main-thread
 * only), before culling: for every instance of a skinned mesh, its joints' bones are found
 * through ct.animation (the bone of the same name under the instance's entity) and each palette
 * entry is  E^-1 * W(bone) * B(rest)^-1  (E the instance's world, W the bone's), so the vertex
 * shader moves rest-pose vertices in the object's space and the draw's matrices do the rest.
 * Instances sharing a mesh still draw as one instanced call: each draw names its palette.
 * Without ct.animation, or for an entity without an animation, the bones stay at rest (identity
 * entries). The bounding sphere grows by how far the bones moved, so culling follows the pose.
 */
#include "render_internal.h"
#include "ct_array.h"

#include <math.h>
#include <string.h>

static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

/* out = a * b, both 3x4 row-major affine. */
static void affine_mul(const float *a, const float *b, float *out)
{
    float o[12];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            o[4 * r + c] = a[4 * r] * b[c] + a[4 * r + 1] * b[4 + c] + a[4 * r + 2] * b[8 + c] +
                           (c == 3 ? a[4 * r + 3] : 0);
    memcpy(out, o, sizeof o);
}

/* The inverse of a 3x4 affine; identity when singular. */
static void affine_inverse(const float *m, float *out)
{
    const float d = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) +
                    m[2] * (m[4] * m[9] - m[5] * m[8]);
    if (!(fabsf(d) > 1e-30f)) {
        memcpy(out, identity, sizeof identity);
        return;
    }
    float inv[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            inv[3 * i + j] =
                (m[4 * r0 + c0] * m[4 * r1 + c1] - m[4 * r0 + c1] * m[4 * r1 + c0]) / d;
        }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            out[4 * i + j] = inv[3 * i + j];
        out[4 * i + 3] = -(inv[3 * i] * m[3] + inv[3 * i + 1] * m[7] + inv[3 * i + 2] * m[11]);
    }
}

static bool reserve(render__state *s, uint32_t instances, uint32_t bones)
{
    ct_allocator_t *a = render__m.allocator;
    if (instances > s->skinned_cap) {
        const uint32_t cap = ct_array_capacity(s->skinned_cap, instances, 256);
        uint32_t *p =
            !cap ? NULL : ct_realloc(a, s->palette_of, (size_t)s->skinned_cap * 4, (size_t)cap * 4);
        if (p)
            s->palette_of = p;
        float *r = p ? ct_realloc(a, s->skinned_radius, (size_t)s->skinned_cap * 4, (size_t)cap * 4)
                     : NULL;
        if (!r) { /* keep both at the old capacity */
            if (p)
                s->palette_of =
                    ct_realloc(a, s->palette_of, (size_t)cap * 4, (size_t)s->skinned_cap * 4);
            return false;
        }
        s->skinned_radius = r;
        s->skinned_cap = cap;
    }
    return ct_array_reserve_of(a, &s->palette, &s->palette_cap, bones, 1024);
}

/* The joints' bone indices in the skeleton of the first animated entity that draws the mesh,
 * kept on the mesh slot (meshes are skinned for one skeleton; another skeleton with a different
 * bone count is looked up again). */
static const uint32_t *joint_bones(render__mesh_slot *m, ct_world_o *world, ct_entity_t e,
                                   uint32_t bone_count)
{
    if (m->joint_bone && m->joint_bone_count == bone_count)
        return m->joint_bone;
    ct_allocator_t *a = render__m.allocator;
    if (!m->joint_bone &&
        !(m->joint_bone = ct_alloc(a, (size_t)m->num_joints * sizeof *m->joint_bone)))
        return NULL;
    for (uint32_t j = 0; j < m->num_joints; j++)
        m->joint_bone[j] = render__m.animation->bone_index(world, e, m->joints[j].name);
    m->joint_bone_count = bone_count;
    return m->joint_bone;
}

/* One instance's palette entries at s->palette[first...]; returns its culling radius. */
static float instance_palette(render__state *s, ct_world_o *world, ct_entity_t e,
                              const float *entity_world, render__mesh_slot *m, uint32_t first)
{
    const uint32_t count = render__m.animation ? render__m.animation->bone_count(world, e) : 0;
    const uint32_t *bones = count ? joint_bones(m, world, e, count) : NULL;
    float inv_world[12];
    affine_inverse(entity_world, inv_world);
    float radius = m->radius;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        float *p = s->palette[first + j];
        const ct_entity_t bone = bones && bones[j] != UINT32_MAX
                                     ? render__m.animation->bone(world, e, bones[j])
                                     : (ct_entity_t){0};
        const ct_transform_t t =
            bone.id ? render__m.transform->lookup(world, bone) : (ct_transform_t){0};
        if (!t.i) {
            memcpy(p, identity, sizeof identity);
            continue;
        }
        const ct_transform_matrix_t w = render__m.transform->world_matrix(world, t);
        affine_mul(inv_world, w.m, p);
        affine_mul(p, m->joints[j].bind_inverse, p);
        /* How far the rest sphere can have moved: the centre's displacement plus its radius
         * under the entry's largest scale. */
        float moved[3], scale2 = 0;
        for (int r = 0; r < 3; r++) {
            moved[r] = p[4 * r] * m->center[0] + p[4 * r + 1] * m->center[1] +
                       p[4 * r + 2] * m->center[2] + p[4 * r + 3] - m->center[r];
            const float col = p[r] * p[r] + p[4 + r] * p[4 + r] + p[8 + r] * p[8 + r];
            scale2 = col > scale2 ? col : scale2;
        }
        const float reach = sqrtf(moved[0] * moved[0] + moved[1] * moved[1] + moved[2] * moved[2]) +
                            m->radius * sqrtf(scale2);
        radius = reach > radius ? reach : radius;
    }
    return radius;
}

bool render__gather_palettes(render__state *s, ct_world_o *world, const render__manager *meshes)
{
    s->palette_n = 0;
    if (!reserve(s, meshes->n, 0))
        return false;
    const render__mesh_ref *refs = (const render__mesh_ref *)(const void *)meshes->data;
    for (uint32_t i = 0; i < meshes->n; i++) {
        s->palette_of[i] = RENDER_NO_INDEX;
        const render__mesh_ref r = refs[i];
        if (r.mesh >= s->meshes_cap || !s->meshes[r.mesh].used || !s->meshes[r.mesh].num_joints)
            continue;
        render__mesh_slot *m = &s->meshes[r.mesh];
        if (!reserve(s, meshes->n, s->palette_n + m->num_joints))
            return false;
        s->palette_of[i] = s->palette_n;
        s->skinned_radius[i] =
            instance_palette(s, world, meshes->entity[i], &s->worlds[12 * i], m, s->palette_n);
        s->palette_n += m->num_joints;
    }
    return true;
}

void render__skin_free(void)
{
    render__state *s = render__m.state;
    ct_allocator_t *a = render__m.allocator;
    ct_free(a, s->palette, (size_t)s->palette_cap * 48);
    ct_free(a, s->palette_of, (size_t)s->skinned_cap * 4);
    ct_free(a, s->skinned_radius, (size_t)s->skinned_cap * 4);
    s->palette = NULL, s->palette_of = NULL, s->skinned_radius = NULL;
    s->palette_cap = s->skinned_cap = s->palette_n = 0;
}
