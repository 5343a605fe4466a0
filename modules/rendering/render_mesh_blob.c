/* render_mesh_blob.c: checking a compiled mesh payload before anything reads it (format in
 * render_mesh_blob.h). Kernel-free: the module's loader and the fuzz target call it alike. */
#include "render_mesh_blob.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Why a skinned mesh's bones are unusable, or NULL: every joint index in range, weights finite
 * and summing to 1, joint names terminated, inverse binds finite. */
static const char *skin_error(const render__skin_vertex *skin, uint32_t nv,
                              const render__mesh_joint *joints, uint32_t nj)
{
    for (uint32_t i = 0; skin && i < nv; i++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            if (skin[i].joints[k] >= nj || !isfinite(skin[i].weights[k]) || skin[i].weights[k] < 0)
                return "a skinned vertex names a joint past the mesh's joints, or has a bad weight";
            sum += skin[i].weights[k];
        }
        if (!(fabsf(sum - 1.0f) <= 1e-3f))
            return "a skinned vertex's weights do not sum to 1";
    }
    for (uint32_t j = 0; j < nj; j++) {
        if (!memchr(joints[j].name, 0, sizeof joints[j].name) || !joints[j].name[0])
            return "a joint's name is empty or not terminated";
        for (int k = 0; k < 12; k++)
            if (!isfinite(joints[j].bind_inverse[k]))
                return "a joint's inverse bind matrix is not finite";
    }
    return NULL;
}

bool render__mesh_parse(const void *payload, uint64_t size, render__mesh_view *out, char *err,
                        size_t err_size)
{
    render__mesh_header h;
    if (size < sizeof h) {
        snprintf(err, err_size, "mesh: %llu bytes, shorter than its header",
                 (unsigned long long)size);
        return false;
    }
    memcpy(&h, payload, sizeof h);
    const uint64_t want = sizeof h + (uint64_t)h.num_vertices * (sizeof(render__vertex) + 16u) +
                          (uint64_t)h.num_indices * 4u +
                          (h.num_joints ? (uint64_t)h.num_vertices * sizeof(render__skin_vertex) +
                                              (uint64_t)h.num_joints * sizeof(render__mesh_joint)
                                        : 0);
    if (h.num_vertices == 0 || h.num_indices == 0 || h.num_indices % 3 || want != size ||
        h.num_joints > RENDER_MAX_JOINTS || h.reserved ||
        !(isfinite(h.radius) && h.radius >= 0.0f) ||
        !isfinite(h.center[0] + h.center[1] + h.center[2])) {
        snprintf(err, err_size,
                 "mesh: %u vertices and %u indices do not add up to %llu bytes (or bad bounds)",
                 h.num_vertices, h.num_indices, (unsigned long long)size);
        return false;
    }
    const render__vertex *v =
        (const render__vertex *)(const void *)((const char *)payload + sizeof h);
    const uint32_t *idx = (const uint32_t *)(const void *)(v + h.num_vertices);
    for (uint32_t i = 0; i < h.num_indices; i++)
        if (idx[i] >= h.num_vertices) {
            snprintf(err, err_size, "mesh: index %u is %u, past its %u vertices", i, idx[i],
                     h.num_vertices);
            return false;
        }
    for (uint32_t i = 0; i < h.num_vertices; i++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(v[i].position[k]) || !isfinite(v[i].normal[k]) ||
                (k < 2 && !isfinite(v[i].uv[k]))) {
                snprintf(err, err_size, "mesh: vertex %u is not finite", i);
                return false;
            }
    const float(*tangents)[4] = (const float(*)[4])(const void *)(idx + h.num_indices);
    for (uint32_t i = 0; i < h.num_vertices; i++) {
        const float *t = tangents[i];
        const float len2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
        if (!(fabsf(len2 - 1.0f) <= 1e-2f) || (t[3] != 1.0f && t[3] != -1.0f)) {
            snprintf(err, err_size, "mesh: tangent %u is not a unit vector with w = 1 or -1", i);
            return false;
        }
    }
    const render__skin_vertex *skin =
        h.num_joints ? (const render__skin_vertex *)(const void *)(tangents + h.num_vertices)
                     : NULL;
    const render__mesh_joint *joints =
        skin ? (const render__mesh_joint *)(const void *)(skin + h.num_vertices) : NULL;
    const char *why = skin_error(skin, h.num_vertices, joints, h.num_joints);
    if (why) {
        snprintf(err, err_size, "mesh: %s", why);
        return false;
    }
    *out = (render__mesh_view){.vertices = v,
                               .indices = idx,
                               .num_vertices = h.num_vertices,
                               .num_indices = h.num_indices,
                               .center = {h.center[0], h.center[1], h.center[2]},
                               .radius = h.radius,
                               .tangents = tangents,
                               .skin = skin,
                               .joints = joints,
                               .num_joints = h.num_joints};
    return true;
}

static void sub3(const float *a, const float *b, float out[3])
{
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

static float dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A unit vector square to unit n (any of them): for vertices with nothing better. */
static void any_perpendicular(const float n[3], float out[3])
{
    const float axis[3] = {fabsf(n[0]) < 0.9f ? 1.0f : 0.0f, fabsf(n[0]) < 0.9f ? 0.0f : 1.0f,
                           0.0f};
    const float d = dot3(axis, n);
    float t[3] = {axis[0] - d * n[0], axis[1] - d * n[1], axis[2] - d * n[2]};
    const float len = sqrtf(dot3(t, t));
    if (!(len > 1e-6f)) { /* n itself was not unit: keep the output unit anyway */
        out[0] = 1, out[1] = 0, out[2] = 0;
        return;
    }
    out[0] = t[0] / len, out[1] = t[1] / len, out[2] = t[2] / len;
}

bool render__mesh_tangents(const float *pos, const float *nrm, const float *uv, uint32_t nv,
                           const uint32_t *idx, uint32_t ni, float *scratch, float *out)
{
    if (!scratch)
        return false;
    /* out[4i..4i+2] sums tangents, scratch[3i..] bitangents. */
    memset(out, 0, (size_t)nv * 4 * sizeof *out);
    memset(scratch, 0, (size_t)nv * 3 * sizeof *scratch);
    for (uint32_t f = 0; uv && f + 2 < ni; f += 3) {
        const uint32_t a = idx[f], b = idx[f + 1], c = idx[f + 2];
        if (a >= nv || b >= nv || c >= nv)
            continue;
        float e1[3], e2[3];
        sub3(&pos[3 * b], &pos[3 * a], e1);
        sub3(&pos[3 * c], &pos[3 * a], e2);
        const float du1 = uv[2 * b] - uv[2 * a], dv1 = uv[2 * b + 1] - uv[2 * a + 1];
        const float du2 = uv[2 * c] - uv[2 * a], dv2 = uv[2 * c + 1] - uv[2 * a + 1];
        const float det = du1 * dv2 - du2 * dv1;
        if (!(fabsf(det) > 1e-12f) || !isfinite(det))
            continue;
        /* t and b solve e1 = du1 t + dv1 b, e2 = du2 t + dv2 b; scaled by |det| instead of divided,
         * the sums weigh each triangle by its area (as the texture maps it the same). */
        const float sign = det > 0 ? 1.0f : -1.0f;
        float t[3], bt[3];
        for (int k = 0; k < 3; k++) {
            t[k] = sign * (dv2 * e1[k] - dv1 * e2[k]);
            bt[k] = sign * (du1 * e2[k] - du2 * e1[k]);
        }
        const uint32_t v3[3] = {a, b, c};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                out[4 * v3[j] + k] += t[k];
                scratch[3 * v3[j] + k] += bt[k];
            }
    }
    for (uint32_t i = 0; i < nv; i++) {
        const float *n = &nrm[3 * i];
        float *t = &out[4 * i];
        const float d = dot3(t, n);
        float o[3] = {t[0] - d * n[0], t[1] - d * n[1], t[2] - d * n[2]};
        const float len = sqrtf(dot3(o, o));
        if (len > 1e-8f && isfinite(len)) {
            o[0] /= len, o[1] /= len, o[2] /= len;
        } else {
            any_perpendicular(n, o);
        }
        const float cross[3] = {n[1] * o[2] - n[2] * o[1], n[2] * o[0] - n[0] * o[2],
                                n[0] * o[1] - n[1] * o[0]};
        /* Textures put the image's top row at v = 0 (glTF's convention), so the image's up is
         * towards decreasing v: the normal map's +y (green) follows -dP/dv. */
        t[3] = dot3(cross, &scratch[3 * i]) > 0.0f ? -1.0f : 1.0f;
        t[0] = o[0], t[1] = o[1], t[2] = o[2];
    }
    return true;
}
