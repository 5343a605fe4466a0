/*
 * render_mesh.c: the resource type "mesh" (format in api/ct_render.h): compiled from OBJ here or
 * from glTF (render_mesh_gltf.c), loaded into the module's mesh slots (uploaded to the gl backend
 * when there is one).
 */
#include "render_internal.h"
#include "ct_plugin.h" /* CT_ARRAY_COUNT */

#include "obj.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESH_MAX_SOURCE_BYTES (512u << 20)

static bool ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Writes the compiled mesh: header, vertices, indices. */
int render__write_mesh(ct_compile_ctx_o *ctx, const float *pos, const float *nrm, const float *uv, uint32_t nv,
                       const uint32_t *idx, uint32_t ni, const render__mesh_skin *skin)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], pos[3 * i + k]);
            hi[k] = fmaxf(hi[k], pos[3 * i + k]);
        }
    render__mesh_header h = {nv, ni, {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])}, 0,
                             skin ? skin->num_joints : 0, 0};
    for (uint32_t i = 0; i < nv; i++) {
        const float d[3] = {pos[3 * i] - h.center[0], pos[3 * i + 1] - h.center[1], pos[3 * i + 2] - h.center[2]};
        h.radius = fmaxf(h.radius, sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    render__m.resource->write(ctx, &h, sizeof h);
    for (uint32_t i = 0; i < nv; i++) {
        render__vertex v = {{pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]},
                            {nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]},
                            {uv ? uv[2 * i] : 0, uv ? uv[2 * i + 1] : 0}};
        render__m.resource->write(ctx, &v, sizeof v);
    }
    render__m.resource->write(ctx, idx, (uint64_t)ni * sizeof *idx);
    if (skin) {
        render__m.resource->write(ctx, skin->vertices, (uint64_t)nv * sizeof *skin->vertices);
        render__m.resource->write(ctx, skin->joints, (uint64_t)skin->num_joints * sizeof *skin->joints);
    }
    return 0;
}

static int compile_obj(const char *rel, const char *text, size_t size, ct_compile_ctx_o *ctx)
{
    obj_mesh_t m;
    char err[512];
    const int e = obj_read(text, size, rel, render__m.allocator, &m, err, sizeof err);
    if (e) {
        render__m.resource->compile_error(ctx, "mesh.source: %s", err);
        return e;
    }
    render__write_mesh(ctx, m.positions, m.normals, m.uvs, m.num_vertices, m.indices, m.num_indices, NULL);
    obj_free(&m, render__m.allocator);
    return 0;
}

static int compile_mesh(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {{"source", CT_DATA_STRING, 0}, {"gltf_mesh", CT_DATA_INVALID, 0},
                                       {"skin", CT_DATA_NUMBER, 0}, {"units", CT_DATA_NUMBER, 0}};
    if (!render__m.resource->check_fields(ctx, src, "mesh", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *rel = render__m.data->string(render__m.data->get(src, "source"), NULL);
    if (!rel)
        return render__compile_bad(ctx, "mesh.source: a file name (string) is required%s%s", "", "");
    if (ends_with(rel, ".gltf") || ends_with(rel, ".glb"))
        return render__compile_gltf_mesh(rel, src, ctx);
    if (!ends_with(rel, ".obj"))
        return render__compile_bad(ctx, "mesh.source: '%s': the file must be .obj, .gltf or .glb%s", rel, "");
    if (render__m.data->get(src, "gltf_mesh") || render__m.data->get(src, "skin"))
        return render__compile_bad(ctx, "mesh.gltf_mesh, mesh.skin: '%s' is not a glTF file%s", rel, "");
    size_t size = 0;
    char *text = render__read_project_file(ctx, "mesh.source", rel, MESH_MAX_SOURCE_BYTES, &size);
    if (!text)
        return CT_ERR_BAD_DATA;
    const int e = compile_obj(rel, text, size, ctx);
    ct_free(render__m.allocator, text, size + 1);
    return e;
}

/* Why a skinned mesh's bones are unusable, or NULL: every joint index in range, weights finite
 * and summing to 1, joint names terminated, inverse binds finite. */
static const char *skin_error(const render__skin_vertex *skin, uint32_t nv, const render__mesh_joint *joints,
                              uint32_t nj)
{
    for (uint32_t i = 0; skin && i < nv; i++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            if (skin[i].joints[k] >= nj || !isfinite(skin[i].weights[k]) || skin[i].weights[k] < 0)
                return "a skinned vertex names a joint past the mesh's joints, or has a bad weight";
            sum += skin[i].weights[k];
        }
        if (fabsf(sum - 1.0f) > 1e-3f)
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

static bool upload(render__gl *gl, uint32_t slot, const render__mesh_slot *m)
{
    return render__gl_mesh_set(gl, slot, m->vertices, m->num_vertices, m->indices, m->num_indices) &&
           (!m->skin || render__gl_mesh_set_skin(gl, slot, m->skin, m->num_vertices));
}

static void *load_mesh(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size)
{
    (void)user_data;
    render__mesh_header h;
    if (size < sizeof h) {
        snprintf(err, err_size, "mesh: %llu bytes, shorter than its header", (unsigned long long)size);
        return NULL;
    }
    memcpy(&h, payload, sizeof h);
    const uint64_t want = sizeof h + (uint64_t)h.num_vertices * sizeof(render__vertex) + (uint64_t)h.num_indices * 4u +
                          (h.num_joints ? (uint64_t)h.num_vertices * sizeof(render__skin_vertex) +
                                              (uint64_t)h.num_joints * sizeof(render__mesh_joint)
                                        : 0);
    if (h.num_vertices == 0 || h.num_indices == 0 || h.num_indices % 3 || want != size ||
        h.num_joints > RENDER_MAX_JOINTS || h.reserved ||
        !(isfinite(h.radius) && h.radius >= 0.0f) || !isfinite(h.center[0] + h.center[1] + h.center[2])) {
        snprintf(err, err_size, "mesh: %u vertices and %u indices do not add up to %llu bytes (or bad bounds)",
                 h.num_vertices, h.num_indices, (unsigned long long)size);
        return NULL;
    }
    const render__vertex *v = (const render__vertex *)(const void *)((const char *)payload + sizeof h);
    const uint32_t *idx = (const uint32_t *)(const void *)(v + h.num_vertices);
    for (uint32_t i = 0; i < h.num_indices; i++)
        if (idx[i] >= h.num_vertices) {
            snprintf(err, err_size, "mesh: index %u is %u, past its %u vertices", i, idx[i], h.num_vertices);
            return NULL;
        }
    for (uint32_t i = 0; i < h.num_vertices; i++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(v[i].position[k]) || !isfinite(v[i].normal[k]) || (k < 2 && !isfinite(v[i].uv[k]))) {
                snprintf(err, err_size, "mesh: vertex %u is not finite", i);
                return NULL;
            }
    const render__skin_vertex *skin = h.num_joints ? (const render__skin_vertex *)(const void *)(idx + h.num_indices) : NULL;
    const render__mesh_joint *joints = skin ? (const render__mesh_joint *)(const void *)(skin + h.num_vertices) : NULL;
    const char *why = skin_error(skin, h.num_vertices, joints, h.num_joints);
    if (why) {
        snprintf(err, err_size, "mesh: %s", why);
        return NULL;
    }
    render__state *s = render__m.state;
    const uint32_t slot = render__take_slot((void **)&s->meshes, sizeof *s->meshes, NULL, 0, &s->meshes_cap, 1u << 20);
    if (slot == RENDER_NO_INDEX) {
        snprintf(err, err_size, "mesh: out of memory for the mesh table");
        return NULL;
    }
    render__mesh_slot *m = &s->meshes[slot];
    *m = (render__mesh_slot){.used = true, .vertices = v, .indices = idx, .num_vertices = h.num_vertices,
                             .num_indices = h.num_indices, .center = {h.center[0], h.center[1], h.center[2]},
                             .radius = h.radius, .skin = skin, .joints = joints, .num_joints = h.num_joints};
    if (s->gl)
        m->uploaded = upload(s->gl, slot, m);
    return render__runtime_from_slot(slot);
}

static void unload_mesh(void *user_data, void *runtime)
{
    (void)user_data;
    render__state *s = render__m.state;
    const uint32_t slot = render__slot_from_runtime(runtime);
    if (slot >= s->meshes_cap)
        return;
    if (s->gl)
        render__gl_mesh_release(s->gl, slot);
    render__mesh_slot *m = &s->meshes[slot];
    if (m->joint_bone)
        ct_free(render__m.allocator, m->joint_bone, (size_t)m->num_joints * sizeof *m->joint_bone);
    *m = (render__mesh_slot){0};
}

void render__upload_meshes(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = 0; i < s->meshes_cap; i++) {
        render__mesh_slot *m = &s->meshes[i];
        if (m->used)
            m->uploaded = upload(s->gl, i, m);
    }
}

/* The slot's name is only known from the outside: loads go through the kernel by name. */
uint32_t render__mesh_slot_of(const char *name)
{
    void *r = render__m.resource->get("mesh", name);
    if (!r)
        return RENDER_NO_INDEX;
    const uint32_t slot = render__slot_from_runtime(r);
    render__mesh_slot *m = &render__m.state->meshes[slot];
    snprintf(m->name, sizeof m->name, "%s", name);
    return slot;
}

const ct_resource_type_t render__mesh_resource = {
    .type = "mesh",
    .format_version = 3, /* 2: texture coordinates kept; 3: skinned meshes */
    .compile = compile_mesh,
    .load = load_mesh,
    .unload = unload_mesh,
};
