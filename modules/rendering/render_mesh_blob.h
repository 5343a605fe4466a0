/*
 * render_mesh_blob.h: the compiled mesh payload (the resource type "mesh") and its checking
 * reader. Kernel-free like render_gpu.h, so its fuzz target (tests/rendering/fuzz_mesh_blob.c)
 * compiles it directly.
 */
#ifndef RENDER_MESH_BLOB_H
#define RENDER_MESH_BLOB_H

#include "render_gpu.h"

/* A skinned mesh's joint: the bone it follows (by name: the animation's bone of that name) and
 * the inverse of that bone's rest frame in the mesh's space (3x4, row-major). */
#define RENDER_JOINT_NAME 32
typedef struct render__mesh_joint {
    char name[RENDER_JOINT_NAME];
    float bind_inverse[12];
} render__mesh_joint;

/* The compiled mesh payload's header (format 4); vertices and indices follow, then a tangent per
 * vertex (4 floats: the direction of increasing u, unit length and square to the normal, and w =
 * +1 or -1 such that b = w * cross(n, t) is the bitangent, the direction of the image's up, which
 * is decreasing v: images' top rows are at v = 0, as in glTF, whose TANGENT means the same), then
 * for a skinned mesh (num_joints > 0) a render__skin_vertex per vertex and the joints. */
typedef struct render__mesh_header {
    uint32_t num_vertices, num_indices;
    float center[3], radius;
    uint32_t num_joints, reserved;
} render__mesh_header;

/* A checked payload: pointers into its bytes (which must stay alive, 4-byte aligned). */
typedef struct render__mesh_view {
    const render__vertex *vertices;
    const uint32_t *indices;
    uint32_t num_vertices, num_indices;
    float center[3], radius;
    const float (*tangents)[4];
    const render__skin_vertex *skin; /* NULL for a rigid mesh */
    const render__mesh_joint *joints;
    uint32_t num_joints;
} render__mesh_view;

/* Checks a payload of `size` bytes: the sizes add up exactly, every index is in range, every
 * number is finite, bounds are sane, skinned vertices name joints that exist with weights summing
 * to 1, joint names are terminated. true with *out filled, or false with the reason in err. */
bool render__mesh_parse(const void *payload, uint64_t size, render__mesh_view *out, char *err,
                        size_t err_size);

/*
 * Tangents for normal mapping, when a source gives none (4 floats per vertex into `out`): each
 * triangle's tangent and bitangent solved from its texture coordinates (Lengyel's method, not
 * MikkTSpace: simpler, and the same wherever the mesh's vertices are shared as its source shares
 * them), summed per vertex weighted by the triangle's area, then made square to the vertex's
 * normal (Gram-Schmidt), w the bitangent's side. A vertex whose triangles give no direction
 * (no texture coordinates, or all degenerate) gets any unit vector square to its normal, w = 1.
 * `uv` NULL counts as all zero. false only when `scratch` (3 floats per vertex) is NULL.
 */
bool render__mesh_tangents(const float *pos, const float *nrm, const float *uv, uint32_t nv,
                           const uint32_t *idx, uint32_t ni, float *scratch, float *out);

#endif
