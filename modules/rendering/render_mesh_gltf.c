/*
 * render_mesh_gltf.c: a mesh resource compiled from glTF 2.0 (formats/gltf.h): the default
 * scene's triangles baked into one mesh (node transforms applied), or with `gltf_mesh = N` mesh N
 * alone as the file gives it.
 */
#include "render_internal.h"
#include "ct_array.h"

#include "gltf.h"
#include "mesh_normals.h"
#include "obj.h" /* OBJ_MAX_VERTICES, OBJ_MAX_INDICES: one limit for every mesh source */

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The triangles gathered so far, positions, normals and tangents already placed. */
typedef struct gltf_bake {
    float *positions, *normals, *uvs, *tangents;
    uint32_t *indices;
    uint32_t nv, ni, cap_v, cap_i;
} gltf_bake;

static bool bake_reserve(gltf_bake *b, uint32_t nv, uint32_t ni)
{
    ct_allocator_t *a = render__m.allocator;
    if (b->nv + nv > b->cap_v) {
        /* Four columns of one capacity: each grows, or all go back to the old capacity. */
        const uint32_t cap = ct_array_capacity(b->cap_v, b->nv + nv, 1024);
        float **columns[4] = {&b->positions, &b->normals, &b->uvs, &b->tangents};
        static const size_t width[4] = {12, 12, 8, 16};
        int grown = 0;
        for (; cap && grown < 4; grown++) {
            float *p = ct_realloc(a, *columns[grown], (size_t)b->cap_v * width[grown],
                                  (size_t)cap * width[grown]);
            if (!p)
                break;
            *columns[grown] = p;
        }
        if (grown < 4) {
            while (grown--)
                *columns[grown] = ct_realloc(a, *columns[grown], (size_t)cap * width[grown],
                                             (size_t)b->cap_v * width[grown]);
            return false;
        }
        b->cap_v = cap;
    }
    return ct_array_reserve_of(a, &b->indices, &b->cap_i, b->ni + ni, 1024);
}

static void bake_free(gltf_bake *b)
{
    ct_allocator_t *a = render__m.allocator;
    ct_free(a, b->positions, (size_t)b->cap_v * 12);
    ct_free(a, b->normals, (size_t)b->cap_v * 12);
    ct_free(a, b->uvs, (size_t)b->cap_v * 8);
    ct_free(a, b->tangents, (size_t)b->cap_v * 16);
    ct_free(a, b->indices, (size_t)b->cap_i * 4);
}

/* The tangents of the primitive just placed at b->nv: the file's (TANGENT) turned by the node's
 * matrix, or derived (render__mesh_tangents) when it has none or they are not usable. */
static bool bake_tangents(gltf_bake *b, const ct_gltf_primitive_t *prim, const float *w)
{
    float *tan = &b->tangents[4 * b->nv];
    const float *nrm = &b->normals[3 * b->nv];
    bool usable = prim->tangents != NULL;
    for (uint32_t v = 0; usable && v < prim->num_vertices; v++) {
        const float *src = &prim->tangents[4 * v];
        float t[3];
        for (int r = 0; r < 3; r++)
            t[r] = w ? w[r] * src[0] + w[4 + r] * src[1] + w[8 + r] * src[2] : src[r];
        const float *n = &nrm[3 * v];
        const float d = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
        for (int r = 0; r < 3; r++)
            t[r] -= d * n[r];
        const float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        usable = len > 1e-6f && isfinite(len) && isfinite(src[3]);
        for (int r = 0; r < 3 && usable; r++)
            tan[4 * v + r] = t[r] / len;
        tan[4 * v + 3] = src[3] < 0 ? -1.0f : 1.0f;
    }
    if (usable)
        return true;
    const size_t bytes = (size_t)prim->num_vertices * 3 * sizeof(float);
    float *scratch = ct_alloc(render__m.allocator, bytes);
    const bool ok =
        render__mesh_tangents(&b->positions[3 * b->nv], nrm, prim->uvs ? &b->uvs[2 * b->nv] : NULL,
                              prim->num_vertices, prim->indices, prim->num_indices, scratch, tan);
    ct_free(render__m.allocator, scratch, bytes);
    return ok;
}

/* Appends mesh `m` placed by the column-major matrix `w` (NULL: as it is). */
static int bake_mesh(gltf_bake *b, const ct_gltf_mesh_t *m, const float *w, ct_compile_ctx_o *ctx)
{
    for (uint32_t p = 0; p < m->num_primitives; p++) {
        const ct_gltf_primitive_t *prim = &m->primitives[p];
        if (prim->mode != CT_GLTF_TRIANGLES || prim->num_indices < 3) {
            /* Nothing is dropped silently: a mesh resource draws triangles only. */
            render__m.resource->compile_warning(
                ctx,
                "mesh.source: mesh '%s' primitive %u: %s are not drawn "
                "(mesh resources draw triangles)",
                m->name, p, prim->mode == CT_GLTF_POINTS ? "points" : "lines");
            continue;
        }
        if (prim->joints && p == 0)
            render__m.resource->compile_warning(
                ctx,
                "mesh.source: mesh '%s' is skinned (JOINTS_0, WEIGHTS_0): "
                "mesh resources draw it in its bind pose; its joints are "
                "not kept",
                m->name);
        if (b->nv + (uint64_t)prim->num_vertices > OBJ_MAX_VERTICES ||
            b->ni + (uint64_t)prim->num_indices > OBJ_MAX_INDICES)
            return render__compile_bad(ctx, "mesh.source: more than %s vertices or %s indices",
                                       "2^24", "2^26");
        if (!bake_reserve(b, prim->num_vertices, prim->num_indices))
            return CT_ERR_NOMEM;
        float *pos = &b->positions[3 * b->nv], *nrm = &b->normals[3 * b->nv];
        for (uint32_t v = 0; v < prim->num_vertices; v++) {
            const float *src = &prim->positions[3 * v];
            for (int r = 0; r < 3; r++)
                pos[3 * v + r] =
                    w ? w[r] * src[0] + w[4 + r] * src[1] + w[8 + r] * src[2] + w[12 + r] : src[r];
        }
        float *uv = &b->uvs[2 * b->nv];
        for (uint32_t v = 0; v < 2 * prim->num_vertices; v++)
            uv[v] = prim->uvs ? prim->uvs[v] : 0.0f;
        for (uint32_t i = 0; i < prim->num_indices; i++)
            b->indices[b->ni + i] = b->nv + prim->indices[i];
        /* Normals from the baked positions: right under any node scale, and for files with none. */
        mesh_smooth_normals(pos, prim->num_vertices, prim->indices, prim->num_indices, nrm);
        if (prim->normals)
            for (uint32_t v = 0; v < prim->num_vertices; v++) {
                const float *src = &prim->normals[3 * v];
                float n[3];
                for (int r = 0; r < 3; r++)
                    n[r] = w ? w[r] * src[0] + w[4 + r] * src[1] + w[8 + r] * src[2] : src[r];
                const float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                if (len > 0.0f && isfinite(len))
                    for (int r = 0; r < 3; r++)
                        nrm[3 * v + r] = n[r] / len;
            }
        if (!bake_tangents(b, prim, w))
            return CT_ERR_NOMEM;
        b->nv += prim->num_vertices;
        b->ni += prim->num_indices;
    }
    return 0;
}

static void mat4_mul_cm(float out[16], const float a[16], const float b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] +
                             a[12 + r] * b[4 * c + 3];
}

/* Walks the default scene depth first (the reader guarantees a forest) with an explicit stack. */
static int bake_scene(gltf_bake *b, const ct_gltf_t *doc, ct_compile_ctx_o *ctx)
{
    ct_allocator_t *a = render__m.allocator;
    const size_t bytes = (size_t)doc->num_nodes * (sizeof(uint32_t) + 16 * sizeof(float));
    uint32_t *stack = doc->num_nodes ? ct_alloc(a, bytes) : NULL;
    if (doc->num_nodes && !stack)
        return CT_ERR_NOMEM;
    float(*world)[16] = (float(*)[16])(void *)(stack + doc->num_nodes);
    int e = 0;
    uint32_t top = 0;
    for (uint32_t r = 0; r < doc->num_scene_nodes; r++)
        stack[top++] = doc->scene_nodes[r];
    while (top && !e) {
        const uint32_t n = stack[--top];
        const ct_gltf_node_t *node = &doc->nodes[n];
        if (node->parent >= 0)
            mat4_mul_cm(world[n], world[node->parent], node->matrix);
        else
            memcpy(world[n], node->matrix, sizeof world[n]);
        if (node->mesh >= 0)
            e = bake_mesh(b, &doc->meshes[node->mesh], world[n], ctx);
        for (uint32_t c = 0; c < node->num_children && top < doc->num_nodes; c++)
            stack[top++] = node->children[c];
    }
    ct_free(a, stack, bytes);
    return e;
}

int render__compile_gltf_mesh(const char *rel, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    char path[RENDER_PATH_SIZE * 2], err[512];
    if (!render__m.resource->source_file(ctx, "mesh.source", rel, path, sizeof path))
        return CT_ERR_BAD_DATA;
    ct_gltf_t *doc = ct_gltf_load_file(path, render__m.allocator, err, sizeof err);
    if (!doc) {
        render__m.resource->compile_error(ctx, "mesh.source: %s", err);
        return CT_ERR_BAD_DATA;
    }
    gltf_bake b = {0};
    int e = 0;
    /* The .bin files the document read: a change to one compiles the mesh again. */
    for (uint32_t i = 0; i < doc->num_files && !e; i++) {
        char file[RENDER_PATH_SIZE];
        if (!ct_gltf_file_path(rel, doc->files[i], file, sizeof file))
            e = render__compile_bad(ctx, "mesh.source: the path of '%s' beside '%s' is too long",
                                    doc->files[i], rel);
        else if (!render__m.resource->depends_on(ctx, "mesh.source", file))
            e = CT_ERR_BAD_DATA;
    }
    const ct_data_o *pick = render__m.data->get(src, "gltf_mesh");
    const ct_data_o *skin = render__m.data->get(src, "skin");
    if (!e && skin) {
        const double k = render__m.data->number(skin, -1);
        const double units = render__m.data->number(render__m.data->get(src, "units"), 1.0);
        if (pick)
            e = render__compile_bad(ctx, "mesh.skin: the skin's own mesh is drawn; leave %s out%s",
                                    "gltf_mesh", "");
        else if (!(k >= 0 && k < doc->num_skins && k == floor(k)))
            e = render__compile_bad(ctx, "mesh.skin: must be a skin index of '%s'%s", rel, "");
        else if (!(units > 0 && units <= 1000))
            e = render__compile_bad(
                ctx, "mesh.units: must be in (0, 1000] metres per file unit%s%s", "", "");
        else
            e = render__compile_skinned_mesh(rel, doc, (uint32_t)k, units, ctx);
        ct_gltf_free(doc);
        return e;
    }
    if (!e && render__m.data->get(src, "units"))
        e = render__compile_bad(ctx, "mesh.units: only for skinned meshes (mesh.skin)%s%s", "", "");
    if (!e && pick) {
        const double m = render__m.data->number(pick, -1);
        if (!(m >= 0 && m < doc->num_meshes && m == floor(m))) {
            char range[32];
            snprintf(range, sizeof range, "%u", doc->num_meshes);
            e = render__compile_bad(
                ctx,
                "mesh.gltf_mesh: must be a mesh index below %s (the file's mesh count) in '%s'",
                range, rel);
        } else {
            e = bake_mesh(&b, &doc->meshes[(uint32_t)m], NULL, ctx);
        }
    } else if (!e) {
        e = bake_scene(&b, doc, ctx);
    }
    if (!e && b.ni == 0)
        e = render__compile_bad(ctx, "mesh.source: '%s' has no triangles%s", rel,
                                pick ? " in that mesh" : " in its default scene");
    if (!e)
        e = render__write_mesh(ctx, b.positions, b.normals, b.uvs, b.nv, b.indices, b.ni,
                               b.tangents, NULL);
    if (e == CT_ERR_NOMEM)
        render__compile_bad(ctx, "mesh.source: '%s': out of memory%s", rel, "");
    bake_free(&b);
    ct_gltf_free(doc);
    return e;
}
