/* animation_source.c: BVH files and glTF skins/animations turned into skeletons and raw clips. */
#include "animation_source.h"
#include "ct_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int alloc_raw(uint32_t bones, uint32_t samples, ct_allocator_t *a, anim__raw_owned *out)
{
    *out = (anim__raw_owned){.a = a};
    const size_t n = (size_t)bones * samples;
    out->parent = ct_alloc(a, bones * sizeof *out->parent);
    out->name = ct_alloc(a, bones * sizeof *out->name);
    out->raw.rotation = ct_alloc(a, n * sizeof *out->raw.rotation);
    out->raw.translation = ct_alloc(a, n * sizeof *out->raw.translation);
    out->raw.num_bones = bones;
    out->raw.num_samples = samples;
    out->raw.parent = out->parent;
    if (!out->parent || !out->name || !out->raw.rotation || !out->raw.translation) {
        anim__raw_free(out);
        return CT_ERR_NOMEM;
    }
    return 0;
}

void anim__raw_free(anim__raw_owned *r)
{
    const size_t n = (size_t)r->raw.num_bones * r->raw.num_samples;
    if (r->parent)
        ct_free(r->a, r->parent, r->raw.num_bones * sizeof *r->parent);
    if (r->name)
        ct_free(r->a, r->name, r->raw.num_bones * sizeof *r->name);
    if (r->raw.rotation)
        ct_free(r->a, r->raw.rotation, n * sizeof *r->raw.rotation);
    if (r->raw.translation)
        ct_free(r->a, r->raw.translation, n * sizeof *r->raw.translation);
    if (r->scale)
        ct_free(r->a, r->scale, n * sizeof *r->scale);
    memset(r, 0, sizeof *r);
}

/* Quaternions of consecutive samples in one hemisphere, so nothing downstream sees a flip. */
static void make_continuous(anim__raw *raw)
{
    for (uint32_t s = 1; s < raw->num_samples; s++)
        for (uint32_t b = 0; b < raw->num_bones; b++) {
            const float *prev = raw->rotation[(size_t)(s - 1) * raw->num_bones + b];
            float *q = raw->rotation[(size_t)s * raw->num_bones + b];
            if (prev[0] * q[0] + prev[1] * q[1] + prev[2] * q[2] + prev[3] * q[3] < 0)
                for (int k = 0; k < 4; k++)
                    q[k] = -q[k];
        }
}

int anim__raw_from_bvh(const ct_bvh_t *bvh, double scale, ct_allocator_t *a, anim__raw_owned *out)
{
    if (bvh->num_joints > ANIM_MAX_BONES || bvh->num_frames > ANIM_MAX_FRAMES)
        return CT_ERR_FULL;
    const int rc = alloc_raw(bvh->num_joints, bvh->num_frames, a, out);
    if (rc)
        return rc;
    out->raw.sample_rate = 1.0f / bvh->frame_time;
    for (uint32_t j = 0; j < bvh->num_joints; j++) {
        out->parent[j] = bvh->joints[j].parent;
        snprintf(out->name[j], sizeof out->name[j], "%s", bvh->joints[j].name);
    }
    for (uint32_t f = 0; f < bvh->num_frames; f++)
        for (uint32_t j = 0; j < bvh->num_joints; j++) {
            double t[3], q[4];
            ct_bvh_local_pose(bvh, f, j, scale, t, q);
            const size_t i = (size_t)f * bvh->num_joints + j;
            for (int k = 0; k < 3; k++)
                out->raw.translation[i][k] = (float)t[k];
            for (int k = 0; k < 4; k++)
                out->raw.rotation[i][k] = (float)q[k];
        }
    make_continuous(&out->raw);
    return 0;
}

static void identity16(float m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1;
}

uint32_t anim__bones_from_bvh(const ct_bvh_t *bvh, double scale, anim__bone_t *out)
{
    for (uint32_t j = 0; j < bvh->num_joints && j < ANIM_MAX_BONES; j++) {
        anim__bone_t *b = &out[j];
        memset(b, 0, sizeof *b);
        b->parent = bvh->joints[j].parent;
        snprintf(b->name, sizeof b->name, "%s", bvh->joints[j].name);
        b->name_hash = anim__name_hash(b->name);
        for (int k = 0; k < 3; k++)
            b->translation[k] = (float)(bvh->joints[j].offset[k] * scale), b->scale[k] = 1;
        b->rotation[3] = 1;
        identity16(b->inverse_bind);
    }
    return bvh->num_joints;
}

/* The joints of a skin ordered parents first (by depth, stable), with each bone's parent bone:
 * the nearest ancestor node that is also a joint. */
static int skin_order(const ct_gltf_t *doc, uint32_t skin, uint32_t *node_of, int32_t *parent,
                      uint32_t *n, char *err, size_t err_size)
{
    if (skin >= doc->num_skins) {
        snprintf(err, err_size, "skin %u: the file has %u skins", skin, doc->num_skins);
        return CT_ERR_BAD_DATA;
    }
    const ct_gltf_skin_t *s = &doc->skins[skin];
    if (s->num_joints > ANIM_MAX_BONES) {
        snprintf(err, err_size, "skin %u has %u joints, more than %u", skin, s->num_joints,
                 ANIM_MAX_BONES);
        return CT_ERR_FULL;
    }
    uint32_t depth_of[ANIM_MAX_BONES], count = 0;
    for (uint32_t j = 0; j < s->num_joints; j++) {
        uint32_t d = 0;
        for (int32_t p = doc->nodes[s->joints[j]].parent; p >= 0; p = doc->nodes[p].parent)
            d++;
        depth_of[j] = d;
    }
    for (uint32_t d = 0; count < s->num_joints && d <= doc->num_nodes; d++)
        for (uint32_t j = 0; j < s->num_joints; j++)
            if (depth_of[j] == d)
                node_of[count++] = s->joints[j];
    for (uint32_t b = 0; b < count; b++) {
        parent[b] = -1;
        for (int32_t p = doc->nodes[node_of[b]].parent; p >= 0 && parent[b] < 0;
             p = doc->nodes[p].parent)
            for (uint32_t c = 0; c < b; c++)
                if (node_of[c] == (uint32_t)p)
                    parent[b] = (int32_t)c;
        for (uint32_t c = 0; c < b; c++)
            if (node_of[c] == node_of[b]) {
                snprintf(err, err_size, "skin %u lists node %u twice", skin, node_of[b]);
                return CT_ERR_BAD_DATA;
            }
    }
    *n = count;
    return 0;
}

/*
 * The nodes between a joint and its parent joint (for a root joint: up to the scene root) that
 * are not joints themselves: a Blender export's "Armature" node, usually scaled (0.01) and
 * turned, or any group node. glTF places the joint through them, so the importer must too. Their
 * product is taken apart into a translation, a rotation and one uniform scale; the scale is
 * carried down the skeleton as a factor on the translations below (k: the product of the scales
 * above a bone), so the bones keep rigid frames and land exactly where the file puts them:
 *     bone's translation = k_parent * (prefix.t + prefix.s * prefix.r * joint's translation)
 *     bone's rotation    = prefix.r * joint's rotation
 *     k_bone             = k_parent * prefix.s
 * A prefix that mirrors or scales unevenly cannot be expressed that way and is refused.
 */
typedef struct anim__prefix {
    double t[3], r[4], s;
} anim__prefix;

/* A node's local pose at time t of `anim` (NULL: its rest pose). */
static void node_pose(const ct_gltf_t *doc, const ct_gltf_animation_t *anim, uint32_t node, float t,
                      double tr[3], double q[4], double s[3])
{
    const ct_gltf_node_t *n = &doc->nodes[node];
    float v[4];
    for (int k = 0; k < 3; k++)
        tr[k] = n->translation[k], s[k] = n->scale[k];
    for (int k = 0; k < 4; k++)
        q[k] = n->rotation[k];
    for (uint32_t c = 0; anim && c < anim->num_channels; c++) {
        const ct_gltf_channel_t *ch = &anim->channels[c];
        if (ch->node != node || ch->path == CT_GLTF_WEIGHTS)
            continue;
        ct_gltf_sample(&anim->samplers[ch->sampler], ch->path, t, v);
        for (int k = 0; k < (ch->path == CT_GLTF_ROTATION ? 4 : 3); k++)
            (ch->path == CT_GLTF_ROTATION ? q : ch->path == CT_GLTF_SCALE ? s : tr)[k] = v[k];
    }
}

/* m = m * (T R S) of one node, 3x4 affine, row-major m[row][col]. */
static void mul_pose(double m[3][4], const double tr[3], const double q[4], const double s[3])
{
    double r[3][3], l[3][4], out[3][4];
    ct_mat3_from_quat(q, r);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            l[i][j] = r[i][j] * s[j];
        l[i][3] = tr[i];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            out[i][j] =
                m[i][0] * l[0][j] + m[i][1] * l[1][j] + m[i][2] * l[2][j] + (j == 3 ? m[i][3] : 0);
    memcpy(m, out, sizeof out);
}

/* The prefix of the joint at node `node` whose parent joint is at node `stop` (-1: none), at
 * time t of `anim` (NULL: rest). */
static int joint_prefix(const ct_gltf_t *doc, const ct_gltf_animation_t *anim, float t,
                        uint32_t node, int32_t stop, anim__prefix *out, char *err, size_t err_size)
{
    double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    int32_t chain[64];
    uint32_t depth = 0;
    for (int32_t p = doc->nodes[node].parent; p >= 0 && p != stop; p = doc->nodes[p].parent) {
        if (depth == 64) {
            snprintf(err, err_size, "joint '%s' lies under more than 64 nodes that are not joints",
                     doc->nodes[node].name);
            return CT_ERR_FULL;
        }
        chain[depth++] = p;
    }
    while (depth--) { /* from the top down: m = M(top) * ... * M(parent) */
        double tr[3], q[4], s[3];
        node_pose(doc, anim, (uint32_t)chain[depth], t, tr, q, s);
        mul_pose(m, tr, q, s);
    }
    double len[3], r[3][3];
    for (int c = 0; c < 3; c++)
        len[c] = sqrt(m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c]);
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                       m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    const double s = (len[0] + len[1] + len[2]) / 3;
    if (!(s > 0) || det <= 0 || fabs(len[0] - s) > 1e-5 * s || fabs(len[1] - s) > 1e-5 * s ||
        fabs(len[2] - s) > 1e-5 * s) {
        snprintf(err, err_size,
                 "the nodes above joint '%s' that are not joints %s (scale %.6g %.6g %.6g); only a "
                 "uniform scale, a rotation and an offset can be carried into the skeleton",
                 doc->nodes[node].name, det <= 0 ? "mirror it" : "scale it unevenly", len[0],
                 len[1], len[2]);
        return CT_ERR_BAD_DATA;
    }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            r[i][j] = m[i][j] / s;
        out->t[i] = m[i][3];
    }
    ct_quat_from_mat3(r, out->r);
    out->s = s;
    return 0;
}

/* Applies a prefix to a joint's local pose (see anim__prefix), k being k_parent. */
static void apply_prefix(const anim__prefix *p, double k, float t[3], float q[4])
{
    double r[3][3], qj[4] = {q[0], q[1], q[2], q[3]}, qo[4];
    const double tj[3] = {t[0], t[1], t[2]};
    ct_mat3_from_quat(p->r, r);
    for (int i = 0; i < 3; i++)
        t[i] =
            (float)(k * (p->t[i] + p->s * (r[i][0] * tj[0] + r[i][1] * tj[1] + r[i][2] * tj[2])));
    ct_quat_mul(p->r, qj, qo);
    for (int i = 0; i < 4; i++)
        q[i] = (float)qo[i];
}

/* A bone's name: its node's, or "node_N" for a node without one. */
static void joint_name(const ct_gltf_t *doc, uint32_t node, char *out, size_t size)
{
    if (doc->nodes[node].name[0])
        snprintf(out, size, "%s", doc->nodes[node].name);
    else
        snprintf(out, size, "node_%u", node);
}

/* The node of each bone's parent joint, or -1 for a root bone. */
static int32_t parent_node(const uint32_t *node_of, const int32_t *parent, uint32_t b)
{
    return parent[b] >= 0 ? (int32_t)node_of[parent[b]] : -1;
}

int anim__bones_from_gltf(const ct_gltf_t *doc, uint32_t skin, double scale, anim__bone_t *out,
                          uint32_t *n, char *err, size_t err_size)
{
    uint32_t node_of[ANIM_MAX_BONES];
    int32_t parent[ANIM_MAX_BONES];
    double k[ANIM_MAX_BONES];
    int rc = skin_order(doc, skin, node_of, parent, n, err, err_size);
    if (rc)
        return rc;
    const ct_gltf_skin_t *s = &doc->skins[skin];
    for (uint32_t b = 0; b < *n; b++) {
        const ct_gltf_node_t *node = &doc->nodes[node_of[b]];
        anim__bone_t *bone = &out[b];
        anim__prefix prefix;
        if ((rc = joint_prefix(doc, NULL, 0, node_of[b], parent_node(node_of, parent, b), &prefix,
                               err, err_size)))
            return rc;
        const double k_parent = parent[b] >= 0 ? k[parent[b]] : 1.0;
        k[b] = k_parent * prefix.s;
        memset(bone, 0, sizeof *bone);
        bone->parent = parent[b];
        joint_name(doc, node_of[b], bone->name, sizeof bone->name);
        bone->name_hash = anim__name_hash(bone->name);
        memcpy(bone->translation, node->translation, sizeof bone->translation);
        memcpy(bone->rotation, node->rotation, sizeof bone->rotation);
        apply_prefix(&prefix, k_parent, bone->translation, bone->rotation);
        for (int c = 0; c < 3; c++)
            bone->translation[c] = (float)(bone->translation[c] * scale),
            bone->scale[c] = node->scale[c];
        for (uint32_t j = 0; j < s->num_joints; j++)
            if (s->joints[j] == node_of[b])
                memcpy(bone->inverse_bind, s->inverse_bind_matrices + 16 * j,
                       sizeof bone->inverse_bind);
        /* The skin matrix is world * inverse bind; the bone's world lacks the factor k, so the
         * inverse bind takes it (rows x, y, z of the column-major matrix). */
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                bone->inverse_bind[4 * c + r] *= (float)k[b];
        for (int c = 12; c < 15; c++)
            bone->inverse_bind[c] *= (float)scale;
    }
    return 0;
}

/* The bone of a node among the n joints, or n. */
static uint32_t bone_of(const uint32_t *node_of, uint32_t n, uint32_t node)
{
    uint32_t b = 0;
    while (b < n && node_of[b] != node)
        b++;
    return b;
}

/* When a channel animates the scale of a joint: out->scale, every bone at its rest scale (the
 * channels are sampled in afterwards). Otherwise out->scale stays NULL. */
static int scale_from_gltf(const ct_gltf_animation_t *anim, const uint32_t *node_of,
                           const ct_gltf_t *doc, uint32_t samples, anim__raw_owned *out)
{
    const uint32_t n = out->raw.num_bones;
    bool animated = false;
    for (uint32_t c = 0; c < anim->num_channels && !animated; c++)
        animated = anim->channels[c].path == CT_GLTF_SCALE &&
                   bone_of(node_of, n, anim->channels[c].node) < n;
    if (!animated)
        return 0;
    out->scale = ct_alloc(out->a, (size_t)n * samples * sizeof *out->scale);
    if (!out->scale)
        return CT_ERR_NOMEM;
    for (uint32_t f = 0; f < samples; f++)
        for (uint32_t b = 0; b < n; b++)
            memcpy(out->scale[(size_t)f * n + b], doc->nodes[node_of[b]].scale, sizeof *out->scale);
    return 0;
}

/* Every sample's joint poses taken through their prefixes (sampled at that time: a channel may
 * move the armature node itself) and scaled to metres. A prefix whose scale changes over the
 * clip is refused: the bones' inverse bind matrices hold one factor. */
static int place_through_prefixes(const ct_gltf_t *doc, const ct_gltf_animation_t *anim,
                                  const uint32_t *node_of, const int32_t *parent, float rate,
                                  double scale, anim__raw_owned *out, char *err, size_t err_size)
{
    const uint32_t n = out->raw.num_bones;
    double k[ANIM_MAX_BONES], k_rest[ANIM_MAX_BONES];
    for (uint32_t b = 0; b < n; b++) {
        anim__prefix prefix;
        int rc = joint_prefix(doc, NULL, 0, node_of[b], parent_node(node_of, parent, b), &prefix,
                              err, err_size);
        if (rc)
            return rc;
        k_rest[b] = (parent[b] >= 0 ? k_rest[parent[b]] : 1.0) * prefix.s;
    }
    for (uint32_t f = 0; f < out->raw.num_samples; f++) {
        const float t = f / rate < anim->duration ? f / rate : anim->duration;
        for (uint32_t b = 0; b < n; b++) {
            anim__prefix prefix;
            int rc = joint_prefix(doc, anim, t, node_of[b], parent_node(node_of, parent, b),
                                  &prefix, err, err_size);
            if (rc)
                return rc;
            const double k_parent = parent[b] >= 0 ? k[parent[b]] : 1.0;
            k[b] = k_parent * prefix.s;
            if (fabs(k[b] - k_rest[b]) > 1e-6 * k_rest[b]) {
                snprintf(err, err_size,
                         "the animation scales a node above joint '%s' that is not a joint; "
                         "only its offset and rotation may change",
                         doc->nodes[node_of[b]].name);
                return CT_ERR_BAD_DATA;
            }
            const size_t i = (size_t)f * n + b;
            apply_prefix(&prefix, k_parent, out->raw.translation[i], out->raw.rotation[i]);
            for (int c = 0; c < 3; c++)
                out->raw.translation[i][c] = (float)(out->raw.translation[i][c] * scale);
        }
    }
    return 0;
}

int anim__raw_from_gltf(const ct_gltf_t *doc, uint32_t skin, uint32_t animation, float rate,
                        double scale, ct_allocator_t *a, anim__raw_owned *out, char *err,
                        size_t err_size)
{
    uint32_t node_of[ANIM_MAX_BONES], n;
    int32_t parent[ANIM_MAX_BONES];
    int rc = skin_order(doc, skin, node_of, parent, &n, err, err_size);
    if (rc)
        return rc;
    if (animation >= doc->num_animations) {
        snprintf(err, err_size, "animation %u: the file has %u animations", animation,
                 doc->num_animations);
        return CT_ERR_BAD_DATA;
    }
    const ct_gltf_animation_t *anim = &doc->animations[animation];
    const double frames = (double)anim->duration * rate;
    if (!(rate > 0) || frames + 1 > ANIM_MAX_FRAMES) {
        snprintf(err, err_size, "animation %u: %.1f s at %g Hz is more than %u samples", animation,
                 anim->duration, rate, ANIM_MAX_FRAMES);
        return CT_ERR_FULL;
    }
    const uint32_t samples = (uint32_t)ceil(frames - 1e-6) + 1u;
    if ((rc = alloc_raw(n, samples, a, out)))
        return rc;
    memcpy(out->parent, parent, n * sizeof *parent);
    for (uint32_t b = 0; b < n; b++)
        joint_name(doc, node_of[b], out->name[b], sizeof out->name[b]);
    out->raw.sample_rate = rate;
    for (uint32_t f = 0; f < samples; f++)
        for (uint32_t b = 0; b < n; b++) {
            const ct_gltf_node_t *node = &doc->nodes[node_of[b]];
            const size_t i = (size_t)f * n + b;
            memcpy(out->raw.rotation[i], node->rotation, sizeof node->rotation);
            memcpy(out->raw.translation[i], node->translation, sizeof node->translation);
        }
    if ((rc = scale_from_gltf(anim, node_of, doc, samples, out))) {
        anim__raw_free(out);
        return rc;
    }
    /* Channels on joints overwrite the rest pose; weight channels (morph targets) are not bone
     * motion. Bones are then placed through the nodes above them that are not joints. */
    for (uint32_t c = 0; c < anim->num_channels; c++) {
        const ct_gltf_channel_t *ch = &anim->channels[c];
        const uint32_t b = bone_of(node_of, n, ch->node);
        if (b == n || ch->path == CT_GLTF_WEIGHTS)
            continue;
        for (uint32_t f = 0; f < samples; f++) {
            float v[4];
            const float t = f / rate < anim->duration ? f / rate : anim->duration;
            ct_gltf_sample(&anim->samplers[ch->sampler], ch->path, t, v);
            const size_t i = (size_t)f * n + b;
            if (ch->path == CT_GLTF_ROTATION)
                memcpy(out->raw.rotation[i], v, sizeof out->raw.rotation[i]);
            else if (ch->path == CT_GLTF_SCALE)
                memcpy(out->scale[i], v, sizeof out->scale[i]);
            else
                memcpy(out->raw.translation[i], v, sizeof out->raw.translation[i]);
        }
    }
    if ((rc =
             place_through_prefixes(doc, anim, node_of, parent, rate, scale, out, err, err_size))) {
        anim__raw_free(out);
        return rc;
    }
    make_continuous(&out->raw);
    return 0;
}

void anim__gltf_animation_label(const ct_gltf_t *doc, uint32_t a, char *out, size_t size)
{
    if (doc->animations[a].name[0])
        snprintf(out, size, "%s", doc->animations[a].name);
    else
        snprintf(out, size, "animation_%u", a);
}

int32_t anim__gltf_animation(const ct_gltf_t *doc, const char *name, anim__nearest_f nearest,
                             char *err, size_t err_size)
{
    char label[96];
    const char *names[64];
    const uint32_t listed = doc->num_animations < 64 ? doc->num_animations : 64;
    for (uint32_t a = 0; a < doc->num_animations; a++) {
        anim__gltf_animation_label(doc, a, label, sizeof label);
        if (!strcmp(label, name))
            return (int32_t)a;
        if (a < listed)
            names[a] = doc->animations[a].name[0] ? doc->animations[a].name : NULL;
    }
    char *end;
    const unsigned long index = strtoul(name, &end, 10);
    if (name[0] >= '0' && name[0] <= '9' && !*end && index < doc->num_animations)
        return (int32_t)index;
    const char *near = nearest ? nearest(name, names, listed) : NULL;
    int used = snprintf(err, err_size, "no animation '%s'%s%s%s; the file has", name,
                        near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    for (uint32_t a = 0; a < doc->num_animations && used > 0 && (size_t)used < err_size; a++) {
        anim__gltf_animation_label(doc, a, label, sizeof label);
        used += snprintf(err + used, err_size - (size_t)used, "%s %s (%.2f s)", a ? "," : "", label,
                         doc->animations[a].duration);
    }
    if (!doc->num_animations && used > 0 && (size_t)used < err_size)
        snprintf(err + used, err_size - (size_t)used, " none");
    return -1;
}
