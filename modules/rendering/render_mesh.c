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

/* Writes the compiled mesh: header, vertices, indices, tangents (derived when NULL), skin. */
int render__write_mesh(ct_compile_ctx_o *ctx, const float *pos, const float *nrm, const float *uv,
                       uint32_t nv, const uint32_t *idx, uint32_t ni, const float *tangents,
                       const render__mesh_skin *skin)
{
    float *derived = NULL;
    const size_t derived_bytes = (size_t)nv * 7 * sizeof(float);
    if (!tangents) {
        derived = ct_alloc(render__m.allocator, derived_bytes);
        if (!derived ||
            !render__mesh_tangents(pos, nrm, uv, nv, idx, ni, derived + 4 * (size_t)nv, derived)) {
            ct_free(render__m.allocator, derived, derived_bytes);
            return render__compile_bad(ctx, "mesh: out of memory for its tangents%s%s", "", "");
        }
        tangents = derived;
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], pos[3 * i + k]);
            hi[k] = fmaxf(hi[k], pos[3 * i + k]);
        }
    render__mesh_header h = {
        nv,
        ni,
        {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])},
        0,
        skin ? skin->num_joints : 0,
        0};
    for (uint32_t i = 0; i < nv; i++) {
        const float d[3] = {pos[3 * i] - h.center[0], pos[3 * i + 1] - h.center[1],
                            pos[3 * i + 2] - h.center[2]};
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
    render__m.resource->write(ctx, tangents, (uint64_t)nv * 4 * sizeof *tangents);
    if (skin) {
        render__m.resource->write(ctx, skin->vertices, (uint64_t)nv * sizeof *skin->vertices);
        render__m.resource->write(ctx, skin->joints,
                                  (uint64_t)skin->num_joints * sizeof *skin->joints);
    }
    ct_free(render__m.allocator, derived, derived_bytes);
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
    const int w = render__write_mesh(ctx, m.positions, m.normals, m.uvs, m.num_vertices, m.indices,
                                     m.num_indices, NULL, NULL);
    obj_free(&m, render__m.allocator);
    return w;
}

static int compile_mesh(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {{"source", CT_DATA_STRING, 0},
                                       {"gltf_mesh", CT_DATA_INVALID, 0},
                                       {"skin", CT_DATA_NUMBER, 0},
                                       {"units", CT_DATA_NUMBER, 0}};
    if (!render__m.resource->check_fields(ctx, src, "mesh", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *rel = render__m.data->string(render__m.data->get(src, "source"), NULL);
    if (!rel)
        return render__compile_bad(ctx, "mesh.source: a file name (string) is required%s%s", "",
                                   "");
    if (ends_with(rel, ".gltf") || ends_with(rel, ".glb"))
        return render__compile_gltf_mesh(rel, src, ctx);
    if (!ends_with(rel, ".obj"))
        return render__compile_bad(ctx, "mesh.source: '%s': the file must be .obj, .gltf or .glb%s",
                                   rel, "");
    if (render__m.data->get(src, "gltf_mesh") || render__m.data->get(src, "skin"))
        return render__compile_bad(ctx, "mesh.gltf_mesh, mesh.skin: '%s' is not a glTF file%s", rel,
                                   "");
    size_t size = 0;
    char *text = render__read_project_file(ctx, "mesh.source", rel, MESH_MAX_SOURCE_BYTES, &size);
    if (!text)
        return CT_ERR_BAD_DATA;
    const int e = compile_obj(rel, text, size, ctx);
    ct_free(render__m.allocator, text, size + 1);
    return e;
}

static bool upload(render__gl *gl, uint32_t slot, const render__mesh_slot *m)
{
    return render__gl_mesh_set(gl, slot, m->vertices, m->num_vertices, m->indices,
                               m->num_indices) &&
           render__gl_mesh_set_tangents(gl, slot, m->tangents, m->num_vertices) &&
           (!m->skin || render__gl_mesh_set_skin(gl, slot, m->skin, m->num_vertices));
}

static void *load_mesh_locked(void *user_data, const void *payload, uint64_t size, char *err,
                              size_t err_size)
{
    (void)user_data;
    render__mesh_view v;
    if (!render__mesh_parse(payload, size, &v, err, err_size))
        return NULL;
    render__state *s = render__m.state;
    const uint32_t slot = render__take_slot((void **)&s->meshes, sizeof *s->meshes, NULL, 0,
                                            &s->meshes_cap, 1u << 20);
    if (slot == RENDER_NO_INDEX) {
        snprintf(err, err_size, "mesh: out of memory for the mesh table");
        return NULL;
    }
    render__mesh_slot *m = &s->meshes[slot];
    *m = (render__mesh_slot){.used = true,
                             .vertices = v.vertices,
                             .indices = v.indices,
                             .num_vertices = v.num_vertices,
                             .num_indices = v.num_indices,
                             .center = {v.center[0], v.center[1], v.center[2]},
                             .radius = v.radius,
                             .tangents = v.tangents,
                             .skin = v.skin,
                             .joints = v.joints,
                             .num_joints = v.num_joints};
    if (s->gl)
        m->uploaded = upload(s->gl, slot, m);
    return render__runtime_from_slot(slot);
}

/* Loads and unloads upload to or release from the GL context: inside a section. */
static void *load_mesh(void *user_data, const void *payload, uint64_t size, char *err,
                       size_t err_size)
{
    render__gl_enter();
    void *r = load_mesh_locked(user_data, payload, size, err, err_size);
    render__gl_leave();
    return r;
}

static void unload_mesh_locked(void *user_data, void *runtime)
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

static void unload_mesh(void *user_data, void *runtime)
{
    render__gl_enter();
    unload_mesh_locked(user_data, runtime);
    render__gl_leave();
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
    .format_version = 4, /* 2: texture coordinates kept; 3: skinned meshes; 4: tangents */
    .compile = compile_mesh,
    .load = load_mesh,
    .unload = unload_mesh,
};
