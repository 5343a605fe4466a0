/*
 * render_mesh_skin.c: a skinned glTF mesh (`skin = N`) compiled for GPU skinning.
 *
 * The animation module poses a skeleton as entities whose frames are rigid: a glTF joint's scene
 * frame J with the uniform scale k of the nodes above it that are not joints taken out (the
 * "Armature" node of a Blender export, see animation_source.c), translations in metres times
 * `units`. A vertex is drawn at  sum_i w_i * B_i(now) * B_i(rest)^-1 * v_rest,  where v_rest is
 * the vertex posed by the skeleton's rest pose (glTF: sum_i w_i * J_i * IBM_i * v, so a bind
 * shape that differs from the rest pose is honoured) and B_i = J_i / k_i is the bone's frame as
 * the animation module makes it. So the mesh stores v_rest and, per joint, its bone's name and
 * B_i(rest)^-1; the renderer multiplies by the bones' frames at draw time.
 */
#include "render_internal.h"
#include "ct_math.h"

#include "gltf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef double affine[3][4]; /* row-major 3x4 */

static void local_of(const ct_gltf_node_t *n, affine out)
{
    const double q[4] = {n->rotation[0], n->rotation[1], n->rotation[2], n->rotation[3]};
    double r[3][3];
    ct_mat3_from_quat(q, r);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            out[i][j] = r[i][j] * n->scale[j];
        out[i][3] = n->translation[i];
    }
}

static void mul(const affine a, const affine b, affine out)
{
    affine o;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            o[i][j] =
                a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + (j == 3 ? a[i][3] : 0);
    memcpy(out, o, sizeof o);
}

static double det3(const affine m)
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

static bool invert(const affine m, affine out)
{
    const double d = det3(m);
    if (!(fabs(d) > 1e-30))
        return false;
    double inv[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            inv[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / d;
        }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            out[i][j] = inv[i][j];
        out[i][3] = -(inv[i][0] * m[0][3] + inv[i][1] * m[1][3] + inv[i][2] * m[2][3]);
    }
    return true;
}

/* Every node's scene frame at rest (the reader guarantees a forest: parents end the walk). */
static void scene_frames(const ct_gltf_t *doc, affine *world, bool *done)
{
    for (uint32_t n = 0; n < doc->num_nodes; n++) {
        /* Walk up to the nearest node already done, then come back down. */
        uint32_t chain[64], depth = 0;
        int32_t p = (int32_t)n;
        while (p >= 0 && !done[p] && depth < 64)
            chain[depth++] = (uint32_t)p, p = doc->nodes[p].parent;
        while (depth--) {
            const uint32_t c = chain[depth];
            affine l;
            local_of(&doc->nodes[c], l);
            if (doc->nodes[c].parent >= 0 && done[doc->nodes[c].parent])
                mul(world[doc->nodes[c].parent], l, world[c]);
            else
                memcpy(world[c], l, sizeof l);
            done[c] = true;
        }
    }
}

/* Whether node `node` is one of the skin's joints. */
static bool is_joint(const ct_gltf_skin_t *s, int32_t node)
{
    for (uint32_t j = 0; j < s->num_joints; j++)
        if ((int32_t)s->joints[j] == node)
            return true;
    return false;
}

/* The bone frame B = J / k of joint j at rest, translation in metres times units: k is what the
 * nodes above that are not joints scale by, the joints' own scales kept (as the skeleton keeps
 * them). */
static void bone_frame(const ct_gltf_t *doc, const ct_gltf_skin_t *s, const affine *world,
                       uint32_t j, double units, affine out)
{
    double joint_scales = 1;
    for (int32_t p = (int32_t)s->joints[j]; p >= 0; p = doc->nodes[p].parent)
        if (is_joint(s, p))
            joint_scales *=
                (double)doc->nodes[p].scale[0] * doc->nodes[p].scale[1] * doc->nodes[p].scale[2];
    const affine *J = &world[s->joints[j]];
    const double k = cbrt(det3(*J) / joint_scales);
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            out[r][c] = (*J)[r][c] / k;
        out[r][3] = (*J)[r][3] * units;
    }
}

static void joint_name(const ct_gltf_t *doc, uint32_t node, char out[RENDER_JOINT_NAME])
{
    memset(out, 0, RENDER_JOINT_NAME);
    if (doc->nodes[node].name[0])
        snprintf(out, RENDER_JOINT_NAME, "%s", doc->nodes[node].name);
    else
        snprintf(out, RENDER_JOINT_NAME, "node_%u", node);
}

typedef struct skin_bake {
    float *pos, *nrm, *uv;
    render__skin_vertex *skin;
    uint32_t *idx;
    uint32_t nv, ni;
} skin_bake;

/* Poses the mesh's triangles by the skeleton's rest pose (see the top of the file). */
static void bake(const ct_gltf_t *doc, const ct_gltf_mesh_t *mesh, const ct_gltf_skin_t *s,
                 const affine *world, const affine *skin_rest, double units, skin_bake *b)
{
    for (uint32_t p = 0; p < mesh->num_primitives; p++) {
        const ct_gltf_primitive_t *prim = &mesh->primitives[p];
        if (prim->mode != CT_GLTF_TRIANGLES || prim->num_indices < 3 || !prim->joints ||
            !prim->weights)
            continue;
        for (uint32_t i = 0; i < prim->num_indices; i++)
            b->idx[b->ni + i] = b->nv + prim->indices[i];
        for (uint32_t v = 0; v < prim->num_vertices; v++) {
            const float *w = &prim->weights[4 * v];
            const uint16_t *jt = &prim->joints[4 * v];
            const double sum = (double)w[0] + w[1] + w[2] + w[3];
            double pos[3] = {0, 0, 0}, nrm[3] = {0, 0, 0};
            render__skin_vertex *sv = &b->skin[b->nv + v];
            for (int k = 0; k < 4; k++) {
                const double wk = sum > 0 ? w[k] / sum : (k == 0);
                const uint32_t j = jt[k] < s->num_joints ? jt[k] : 0;
                sv->joints[k] = (uint16_t)j;
                sv->weights[k] = (float)wk;
                const affine *m = &skin_rest[j];
                const float *x = &prim->positions[3 * v];
                const float *n = prim->normals ? &prim->normals[3 * v] : NULL;
                for (int r = 0; r < 3; r++) {
                    pos[r] += wk * ((*m)[r][0] * x[0] + (*m)[r][1] * x[1] + (*m)[r][2] * x[2] +
                                    (*m)[r][3]);
                    if (n)
                        nrm[r] += wk * ((*m)[r][0] * n[0] + (*m)[r][1] * n[1] + (*m)[r][2] * n[2]);
                }
            }
            const double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
            for (int r = 0; r < 3; r++) {
                b->pos[3 * (b->nv + v) + r] = (float)(pos[r] * units);
                b->nrm[3 * (b->nv + v) + r] = len > 0 ? (float)(nrm[r] / len) : r == 1;
            }
            for (int r = 0; r < 2; r++)
                b->uv[2 * (b->nv + v) + r] = prim->uvs ? prim->uvs[2 * v + r] : 0;
        }
        b->nv += prim->num_vertices;
        b->ni += prim->num_indices;
    }
    (void)doc, (void)world;
}

int render__compile_skinned_mesh(const char *rel, const ct_gltf_t *doc, uint32_t skin, double units,
                                 ct_compile_ctx_o *ctx)
{
    const ct_gltf_skin_t *s = &doc->skins[skin];
    int32_t node = -1;
    for (uint32_t n = 0; n < doc->num_nodes && node < 0; n++)
        if (doc->nodes[n].skin == (int32_t)skin && doc->nodes[n].mesh >= 0)
            node = (int32_t)n;
    if (node < 0)
        return render__compile_bad(ctx, "mesh.skin: no node of '%s' draws a mesh with skin %s", rel,
                                   skin ? "N" : "0");
    if (s->num_joints == 0 || s->num_joints > RENDER_MAX_JOINTS)
        return render__compile_bad(
            ctx, "mesh.skin: the skin has no joints or more than %s (in '%s')", "256", rel);
    const ct_gltf_mesh_t *mesh = &doc->meshes[doc->nodes[node].mesh];
    uint64_t nv = 0, ni = 0;
    for (uint32_t p = 0; p < mesh->num_primitives; p++) {
        const ct_gltf_primitive_t *prim = &mesh->primitives[p];
        if (prim->mode == CT_GLTF_TRIANGLES && prim->num_indices >= 3 && prim->joints &&
            prim->weights)
            nv += prim->num_vertices, ni += prim->num_indices;
        else
            render__m.resource->compile_warning(
                ctx, "mesh.skin: mesh '%s' primitive %u is not drawn (%s)", mesh->name, p,
                prim->mode != CT_GLTF_TRIANGLES ? "not triangles" : "no JOINTS_0/WEIGHTS_0");
    }
    if (ni == 0 || nv > (1u << 24))
        return render__compile_bad(ctx, "mesh.skin: mesh '%s' has %s", mesh->name,
                                   ni == 0 ? "no skinned triangles" : "more than 2^24 vertices");
    ct_allocator_t *a = render__m.allocator;
    const size_t bytes = doc->num_nodes * (sizeof(affine) + sizeof(bool)) +
                         s->num_joints * sizeof(affine) +
                         nv * (8 * sizeof(float) + sizeof(render__skin_vertex)) +
                         ni * sizeof(uint32_t) + s->num_joints * sizeof(render__mesh_joint);
    uint8_t *mem = ct_alloc(a, bytes);
    if (!mem)
        return render__compile_bad(ctx, "mesh.source: '%s': out of memory%s", rel, "");
    memset(mem, 0, bytes);
    affine *world = (affine *)(void *)mem, *skin_rest = world + doc->num_nodes;
    render__skin_vertex *skin_v = (render__skin_vertex *)(void *)(skin_rest + s->num_joints);
    render__mesh_joint *joints = (render__mesh_joint *)(void *)(skin_v + nv);
    float *pos = (float *)(void *)(joints + s->num_joints);
    uint32_t *idx = (uint32_t *)(void *)(pos + 8 * nv);
    bool *done = (bool *)(void *)(idx + ni);
    scene_frames(doc, world, done);
    int e = 0;
    for (uint32_t j = 0; j < s->num_joints && !e; j++) {
        affine ibm, bone, bone_inv;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                ibm[r][c] = s->inverse_bind_matrices[16 * j + 4 * c + r];
        mul(world[s->joints[j]], ibm, skin_rest[j]);
        bone_frame(doc, s, world, j, units, bone);
        if (!invert(bone, bone_inv)) {
            e = render__compile_bad(ctx, "mesh.skin: joint '%s' of '%s' has a degenerate frame",
                                    doc->nodes[s->joints[j]].name, rel);
            break;
        }
        joint_name(doc, s->joints[j], joints[j].name);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                joints[j].bind_inverse[4 * r + c] = (float)bone_inv[r][c];
    }
    if (!e) {
        skin_bake b = {
            .pos = pos, .nrm = pos + 3 * nv, .uv = pos + 6 * nv, .skin = skin_v, .idx = idx};
        bake(doc, mesh, s, (const affine *)world, (const affine *)skin_rest, units, &b);
        const render__mesh_skin sk = {
            .vertices = skin_v, .joints = joints, .num_joints = s->num_joints};
        e = render__write_mesh(ctx, b.pos, b.nrm, b.uv, b.nv, b.idx, b.ni, NULL,
                               &sk); /* tangents derived */
    }
    ct_free(a, mem, bytes);
    return e;
}
