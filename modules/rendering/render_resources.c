/*
 * render_resources.c: the resource types "mesh", "material" and "render_config" (formats in
 * api/ct_render.h), the module's tables of loaded meshes and materials (a slot per resource:
 * packets name slots), and the pipeline's hot reload.
 *
 * A loaded mesh or material's runtime object is its slot + 1 cast to a pointer: the slot is all
 * the module needs, and it stays put while the tables grow.
 */
#include "render_internal.h"
#include "ct_plugin.h" /* CT_ARRAY_COUNT */

#include "gltf.h"
#include "mesh_normals.h"
#include "obj.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MESH_MAX_SOURCE_BYTES (512u << 20)

static const ct_data_api_v1 *D(void) { return render__m.data; }

static int bad(ct_compile_ctx_o *ctx, const char *fmt, const char *a, const char *b)
{
    render__m.resource->compile_error(ctx, fmt, a, b);
    return CT_ERR_BAD_DATA;
}

/* Reads an array of `n` numbers in [lo, hi] (optionally n - 1 of them, the last then `fill`). */
static bool numbers(const ct_data_o *v, const char *what, int n, bool short_ok, float fill, double lo,
                    double hi, float *out, ct_compile_ctx_o *ctx)
{
    const uint32_t count = D()->type(v) == CT_DATA_ARRAY ? D()->count(v) : 0;
    bool ok = count == (uint32_t)n || (short_ok && count == (uint32_t)n - 1);
    const ct_data_o *c = ok ? D()->first_child(v) : NULL;
    for (uint32_t k = 0; ok && k < count; k++, c = D()->next(c)) {
        const double d = D()->number(c, NAN);
        ok = d >= lo && d <= hi;
        out[k] = (float)d;
    }
    if (ok && count < (uint32_t)n)
        out[n - 1] = fill;
    if (!ok)
        render__m.resource->compile_error(ctx, "%s: must be an array of %d numbers in [%g, %g]", what, n, lo, hi);
    return ok;
}

static bool number(const ct_data_o *v, const char *what, double lo, double hi, float *out, ct_compile_ctx_o *ctx)
{
    const double d = D()->number(v, NAN);
    if (D()->type(v) != CT_DATA_NUMBER || !(d >= lo && d <= hi)) {
        render__m.resource->compile_error(ctx, "%s: must be a number in [%g, %g]", what, lo, hi);
        return false;
    }
    *out = (float)d;
    return true;
}

static bool copy_name(const ct_data_o *v, const char *what, char out[RENDER_NAME_SIZE], ct_compile_ctx_o *ctx)
{
    const char *s = D()->string(v, NULL);
    if (!s || !s[0] || strlen(s) >= RENDER_NAME_SIZE) {
        render__m.resource->compile_error(ctx, "%s: must be a name of 1 to %d characters", what, RENDER_NAME_SIZE - 1);
        return false;
    }
    memset(out, 0, RENDER_NAME_SIZE);
    memcpy(out, s, strlen(s));
    return true;
}

/* ---- slots --------------------------------------------------------------------------------- */

static uint32_t slot_from_runtime(void *runtime) { return (uint32_t)((uintptr_t)runtime - 1u); }
static void *runtime_from_slot(uint32_t slot) { return (void *)((uintptr_t)slot + 1u); }

/* A free slot in a table of `cap` entries of `size` bytes whose first member is `bool used`,
 * growing it (and a parallel table) when full. */
static uint32_t take_slot(void **table, size_t size, void **parallel, size_t parallel_size, uint32_t *cap,
                          uint32_t max)
{
    for (uint32_t i = 0; i < *cap; i++)
        if (!*(bool *)((char *)*table + i * size))
            return i;
    const uint32_t n = *cap ? *cap * 2 : 16;
    if (n > max)
        return RENDER_NO_INDEX;
    void *t = ct_realloc(render__m.allocator, *table, *cap * size, n * size);
    if (!t)
        return RENDER_NO_INDEX;
    *table = t;
    memset((char *)t + *cap * size, 0, (n - *cap) * size);
    if (parallel) {
        void *p = ct_realloc(render__m.allocator, *parallel, *cap * parallel_size, n * parallel_size);
        if (!p) {
            *table = ct_realloc(render__m.allocator, t, n * size, *cap * size);
            return RENDER_NO_INDEX;
        }
        *parallel = p;
        memset((char *)p + *cap * parallel_size, 0, (n - *cap) * parallel_size);
    }
    const uint32_t first = *cap;
    *cap = n;
    return first;
}

/* ---- mesh ---------------------------------------------------------------------------------- */

/* The path of a file a source names: the kernel checks it is a canonical name inside the
 * project (so it cannot leave it) and reports it otherwise. */
static bool project_path(const char *rel, char *path, size_t size, ct_compile_ctx_o *ctx)
{
    return render__m.resource->source_file(ctx, "mesh.source", rel, path, size);
}

/* Reads a file the source names, inside the project folder. */
static char *read_project_file(const char *rel, size_t *size, ct_compile_ctx_o *ctx)
{
    char path[RENDER_PATH_SIZE * 2];
    if (!project_path(rel, path, sizeof path, ctx))
        return NULL;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MESH_MAX_SOURCE_BYTES) {
        bad(ctx, "mesh.source: '%s': %s", rel,
            stat(path, &st) != 0 ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 512 MB");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    char *text = f ? ct_alloc(render__m.allocator, (size_t)st.st_size + 1) : NULL;
    const bool ok = text && fread(text, 1, (size_t)st.st_size, f) == (size_t)st.st_size;
    if (f)
        fclose(f);
    if (!ok) {
        if (text)
            ct_free(render__m.allocator, text, (size_t)st.st_size + 1);
        bad(ctx, "mesh.source: '%s': %s", rel, f ? "read failed" : strerror(errno));
        return NULL;
    }
    *size = (size_t)st.st_size;
    return text;
}

static bool ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Writes the compiled mesh: header, vertices, indices. */
static int write_mesh(ct_compile_ctx_o *ctx, const float *pos, const float *nrm, uint32_t nv, const uint32_t *idx,
                      uint32_t ni)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], pos[3 * i + k]);
            hi[k] = fmaxf(hi[k], pos[3 * i + k]);
        }
    render__mesh_header h = {nv, ni, {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])}, 0};
    for (uint32_t i = 0; i < nv; i++) {
        const float d[3] = {pos[3 * i] - h.center[0], pos[3 * i + 1] - h.center[1], pos[3 * i + 2] - h.center[2]};
        h.radius = fmaxf(h.radius, sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    render__m.resource->write(ctx, &h, sizeof h);
    for (uint32_t i = 0; i < nv; i++) {
        render__vertex v = {{pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]}, {nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]}, {0, 0}};
        render__m.resource->write(ctx, &v, sizeof v);
    }
    render__m.resource->write(ctx, idx, (uint64_t)ni * sizeof *idx);
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
    write_mesh(ctx, m.positions, m.normals, m.num_vertices, m.indices, m.num_indices);
    obj_free(&m, render__m.allocator);
    return 0;
}

/* glTF: the default scene's triangles baked into one mesh (node transforms applied), or with
 * `gltf_mesh = N` mesh N alone as the file gives it. */
typedef struct gltf_bake {
    float *positions, *normals;
    uint32_t *indices;
    uint32_t nv, ni, cap_v, cap_i;
} gltf_bake;

static bool bake_reserve(gltf_bake *b, uint32_t nv, uint32_t ni)
{
    ct_allocator_t *a = render__m.allocator;
    if (b->nv + nv > b->cap_v) {
        const uint32_t cap = (b->nv + nv) * 2;
        float *p = ct_realloc(a, b->positions, (size_t)b->cap_v * 12, (size_t)cap * 12);
        float *n = p ? ct_realloc(a, b->normals, (size_t)b->cap_v * 12, (size_t)cap * 12) : NULL;
        if (p)
            b->positions = p;
        if (!n) {
            b->positions = ct_realloc(a, b->positions, (size_t)cap * 12, (size_t)b->cap_v * 12);
            return false;
        }
        b->normals = n;
        b->cap_v = cap;
    }
    if (b->ni + ni > b->cap_i) {
        const uint32_t cap = (b->ni + ni) * 2;
        uint32_t *i = ct_realloc(a, b->indices, (size_t)b->cap_i * 4, (size_t)cap * 4);
        if (!i)
            return false;
        b->indices = i;
        b->cap_i = cap;
    }
    return true;
}

static void bake_free(gltf_bake *b)
{
    ct_allocator_t *a = render__m.allocator;
    ct_free(a, b->positions, (size_t)b->cap_v * 12);
    ct_free(a, b->normals, (size_t)b->cap_v * 12);
    ct_free(a, b->indices, (size_t)b->cap_i * 4);
}

/* Appends mesh `m` placed by the column-major matrix `w` (NULL: as it is). */
static int bake_mesh(gltf_bake *b, const ct_gltf_mesh_t *m, const float *w, ct_compile_ctx_o *ctx)
{
    for (uint32_t p = 0; p < m->num_primitives; p++) {
        const ct_gltf_primitive_t *prim = &m->primitives[p];
        if (prim->mode != CT_GLTF_TRIANGLES || prim->num_indices < 3)
            continue;
        if (b->nv + (uint64_t)prim->num_vertices > OBJ_MAX_VERTICES || b->ni + (uint64_t)prim->num_indices > OBJ_MAX_INDICES)
            return bad(ctx, "mesh.source: more than %s vertices or %s indices", "2^24", "2^26");
        if (!bake_reserve(b, prim->num_vertices, prim->num_indices))
            return CT_ERR_NOMEM;
        float *pos = &b->positions[3 * b->nv], *nrm = &b->normals[3 * b->nv];
        for (uint32_t v = 0; v < prim->num_vertices; v++) {
            const float *src = &prim->positions[3 * v];
            for (int r = 0; r < 3; r++)
                pos[3 * v + r] = w ? w[r] * src[0] + w[4 + r] * src[1] + w[8 + r] * src[2] + w[12 + r] : src[r];
        }
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
        b->nv += prim->num_vertices;
        b->ni += prim->num_indices;
    }
    return 0;
}

static void mat4_mul_cm(float out[16], const float a[16], const float b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
}

/* Walks the default scene depth first (the reader guarantees a forest) with an explicit stack. */
static int bake_scene(gltf_bake *b, const ct_gltf_t *doc, ct_compile_ctx_o *ctx)
{
    ct_allocator_t *a = render__m.allocator;
    const size_t bytes = (size_t)doc->num_nodes * (sizeof(uint32_t) + 16 * sizeof(float));
    uint32_t *stack = doc->num_nodes ? ct_alloc(a, bytes) : NULL;
    if (doc->num_nodes && !stack)
        return CT_ERR_NOMEM;
    float (*world)[16] = (float (*)[16])(void *)(stack + doc->num_nodes);
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

static int compile_gltf(const char *rel, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    char path[RENDER_PATH_SIZE * 2], err[512];
    if (!project_path(rel, path, sizeof path, ctx))
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
            e = bad(ctx, "mesh.source: the path of '%s' beside '%s' is too long", doc->files[i], rel);
        else if (!render__m.resource->depends_on(ctx, "mesh.source", file))
            e = CT_ERR_BAD_DATA;
    }
    const ct_data_o *pick = D()->get(src, "gltf_mesh");
    if (!e && pick) {
        const double m = D()->number(pick, -1);
        if (!(m >= 0 && m < doc->num_meshes && m == floor(m))) {
            char range[32];
            snprintf(range, sizeof range, "%u", doc->num_meshes);
            e = bad(ctx, "mesh.gltf_mesh: must be a mesh index below %s (the file's mesh count) in '%s'", range, rel);
        } else {
            e = bake_mesh(&b, &doc->meshes[(uint32_t)m], NULL, ctx);
        }
    } else if (!e) {
        e = bake_scene(&b, doc, ctx);
    }
    if (!e && b.ni == 0)
        e = bad(ctx, "mesh.source: '%s' has no triangles%s", rel, pick ? " in that mesh" : " in its default scene");
    if (!e)
        write_mesh(ctx, b.positions, b.normals, b.nv, b.indices, b.ni);
    if (e == CT_ERR_NOMEM)
        bad(ctx, "mesh.source: '%s': out of memory%s", rel, "");
    bake_free(&b);
    ct_gltf_free(doc);
    return e;
}

static int compile_mesh(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {{"source", CT_DATA_STRING, 0}, {"gltf_mesh", CT_DATA_INVALID, 0}};
    if (!render__m.resource->check_fields(ctx, src, "mesh", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *rel = D()->string(D()->get(src, "source"), NULL);
    if (!rel)
        return bad(ctx, "mesh.source: a file name (string) is required%s%s", "", "");
    if (ends_with(rel, ".gltf") || ends_with(rel, ".glb"))
        return compile_gltf(rel, src, ctx);
    if (!ends_with(rel, ".obj"))
        return bad(ctx, "mesh.source: '%s': the file must be .obj, .gltf or .glb%s", rel, "");
    if (D()->get(src, "gltf_mesh"))
        return bad(ctx, "mesh.gltf_mesh: '%s' is not a glTF file%s", rel, "");
    size_t size = 0;
    char *text = read_project_file(rel, &size, ctx);
    if (!text)
        return CT_ERR_BAD_DATA;
    const int e = compile_obj(rel, text, size, ctx);
    ct_free(render__m.allocator, text, size + 1);
    return e;
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
    const uint64_t want = sizeof h + (uint64_t)h.num_vertices * sizeof(render__vertex) + (uint64_t)h.num_indices * 4u;
    if (h.num_vertices == 0 || h.num_indices == 0 || h.num_indices % 3 || want != size ||
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
            if (!isfinite(v[i].position[k]) || !isfinite(v[i].normal[k])) {
                snprintf(err, err_size, "mesh: vertex %u is not finite", i);
                return NULL;
            }
    render__state *s = render__m.state;
    const uint32_t slot = take_slot((void **)&s->meshes, sizeof *s->meshes, NULL, 0, &s->meshes_cap, 1u << 20);
    if (slot == RENDER_NO_INDEX) {
        snprintf(err, err_size, "mesh: out of memory for the mesh table");
        return NULL;
    }
    render__mesh_slot *m = &s->meshes[slot];
    *m = (render__mesh_slot){.used = true, .vertices = v, .indices = idx, .num_vertices = h.num_vertices,
                             .num_indices = h.num_indices, .center = {h.center[0], h.center[1], h.center[2]},
                             .radius = h.radius};
    if (s->gl)
        m->uploaded = render__gl_mesh_set(s->gl, slot, v, h.num_vertices, idx, h.num_indices);
    return runtime_from_slot(slot);
}

static void unload_mesh(void *user_data, void *runtime)
{
    (void)user_data;
    render__state *s = render__m.state;
    const uint32_t slot = slot_from_runtime(runtime);
    if (slot >= s->meshes_cap)
        return;
    if (s->gl)
        render__gl_mesh_release(s->gl, slot);
    s->meshes[slot] = (render__mesh_slot){0};
}

void render__upload_meshes(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = 0; i < s->meshes_cap; i++) {
        render__mesh_slot *m = &s->meshes[i];
        if (m->used)
            m->uploaded = render__gl_mesh_set(s->gl, i, m->vertices, m->num_vertices, m->indices, m->num_indices);
    }
}

/* The slot's name is only known from the outside: loads go through the kernel by name. */
uint32_t render__mesh_slot_of(const char *name)
{
    void *r = render__m.resource->get("mesh", name);
    if (!r)
        return RENDER_NO_INDEX;
    const uint32_t slot = slot_from_runtime(r);
    render__mesh_slot *m = &render__m.state->meshes[slot];
    snprintf(m->name, sizeof m->name, "%s", name);
    return slot;
}

/* ---- material ------------------------------------------------------------------------------ */

static int compile_material(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"program", CT_DATA_STRING, 0},     {"layer", CT_DATA_INVALID, 0},
        {"color", CT_DATA_INVALID, 0},      {"specular", CT_DATA_INVALID, 0},
        {"shininess", CT_DATA_INVALID, 0},
    };
    render__material_blob b = {.program = RENDER_PROGRAM_LIT, .color = {0.8f, 0.8f, 0.8f, 1.0f},
                                .specular = {0.25f, 32.0f, 0, 0}};
    strcpy(b.layer, "opaque");
    if (!render__m.resource->check_fields(ctx, src, "material", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const char *program = D()->string(D()->get(src, "program"), "lit");
    if (!strcmp(program, "unlit"))
        b.program = RENDER_PROGRAM_UNLIT;
    else if (strcmp(program, "lit"))
        return bad(ctx, "material.program: '%s' is not a program for meshes (\"lit\" or \"unlit\")%s", program, "");
    const ct_data_o *v;
    if ((v = D()->get(src, "layer")) && !copy_name(v, "material.layer", b.layer, ctx))
        return CT_ERR_BAD_DATA;
    if ((v = D()->get(src, "color")) && !numbers(v, "material.color", 4, true, 1.0f, 0.0, 1.0, b.color, ctx))
        return CT_ERR_BAD_DATA;
    if ((v = D()->get(src, "specular")) && !number(v, "material.specular", 0.0, 10.0, &b.specular[0], ctx))
        return CT_ERR_BAD_DATA;
    if ((v = D()->get(src, "shininess")) && !number(v, "material.shininess", 1.0, 4096.0, &b.specular[1], ctx))
        return CT_ERR_BAD_DATA;
    render__m.resource->write(ctx, &b, sizeof b);
    return 0;
}

static uint32_t layer_index(const char *name)
{
    const render__pipeline *p = &render__m.state->pipeline;
    for (uint32_t l = 0; l < p->num_layers; l++)
        if (!strcmp(p->layers[l].name, name) && p->layers[l].program == RENDER_NO_INDEX)
            return l;
    return RENDER_NO_INDEX;
}

static void *load_material(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size)
{
    (void)user_data;
    render__material_blob b;
    if (size != sizeof b) {
        snprintf(err, err_size, "material: %llu bytes, expected %zu", (unsigned long long)size, sizeof b);
        return NULL;
    }
    memcpy(&b, payload, sizeof b);
    bool ok = b.program <= RENDER_PROGRAM_LIT && memchr(b.layer, 0, sizeof b.layer);
    for (int k = 0; ok && k < 4; k++)
        ok = isfinite(b.color[k]) && isfinite(b.specular[k]);
    if (!ok) {
        snprintf(err, err_size, "material: bad program, layer name or parameter");
        return NULL;
    }
    render__state *s = render__m.state;
    const uint32_t slot = take_slot((void **)&s->material_slots, sizeof *s->material_slots, (void **)&s->materials,
                                    sizeof *s->materials, &s->materials_cap, RENDER_MAX_MATERIALS);
    if (slot == RENDER_NO_INDEX) {
        snprintf(err, err_size, "material: the table is full (%u materials) or memory ran out", RENDER_MAX_MATERIALS);
        return NULL;
    }
    s->material_slots[slot] = (render__material_slot){.used = true};
    memcpy(s->material_slots[slot].layer, b.layer, sizeof b.layer);
    s->materials[slot] = (render__material){.program = b.program, .layer = layer_index(b.layer)};
    memcpy(s->materials[slot].color, b.color, sizeof b.color);
    memcpy(s->materials[slot].specular, b.specular, sizeof b.specular);
    return runtime_from_slot(slot);
}

static void unload_material(void *user_data, void *runtime)
{
    (void)user_data;
    render__state *s = render__m.state;
    const uint32_t slot = slot_from_runtime(runtime);
    if (slot < s->materials_cap)
        s->material_slots[slot] = (render__material_slot){0};
}

uint32_t render__material_slot_of(const char *name)
{
    void *r = render__m.resource->get("material", name);
    if (!r)
        return RENDER_NO_INDEX;
    const uint32_t slot = slot_from_runtime(r);
    render__material_slot *m = &render__m.state->material_slots[slot];
    snprintf(m->name, sizeof m->name, "%s", name);
    if (render__m.state->materials[slot].layer == RENDER_NO_INDEX)
        RENDER_LOG(CT_LOG_WARNING, "material '%s': the pipeline has no layer of draws named '%s'; its "
                   "meshes are not drawn", name, m->layer);
    return slot;
}

void render__resolve_material_layers(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = 0; i < s->materials_cap; i++)
        if (s->material_slots[i].used)
            s->materials[i].layer = layer_index(s->material_slots[i].layer);
}

/* ---- render_config ------------------------------------------------------------------------- */

static uint32_t target_index(const render__pipeline *p, const char *name)
{
    for (uint32_t t = 0; name && t < p->num_targets; t++)
        if (!strcmp(p->targets[t].name, name))
            return t;
    return RENDER_NO_INDEX;
}

static int compile_target(const ct_data_o *t, render__pipeline *p, ct_compile_ctx_o *ctx)
{
    static const ct_field_t known[] = {
        {"name", CT_DATA_INVALID, 0}, {"format", CT_DATA_STRING, 0}, {"scale", CT_DATA_INVALID, 0},
    };
    if (p->num_targets == RENDER_MAX_TARGETS)
        return bad(ctx, "targets: at most %s targets besides %s", "7", "the backbuffer");
    render__target_desc *d = &p->targets[p->num_targets];
    *d = (render__target_desc){.scale = 1.0f};
    if (!render__m.resource->check_fields(ctx, t, "targets[]", known, CT_ARRAY_COUNT(known)) ||
        !copy_name(D()->get(t, "name"), "targets[].name", d->name, ctx))
        return CT_ERR_BAD_DATA;
    if (target_index(p, d->name) != RENDER_NO_INDEX)
        return bad(ctx, "targets: the name '%s' is used twice%s", d->name, "");
    const char *format = D()->string(D()->get(t, "format"), "rgba8");
    if (!strcmp(format, "rgba16f"))
        d->format = RENDER_FORMAT_RGBA16F;
    else if (strcmp(format, "rgba8"))
        return bad(ctx, "targets[%s].format: '%s' is not \"rgba8\" or \"rgba16f\"", d->name, format);
    const ct_data_o *v = D()->get(t, "scale");
    if (v && !number(v, "targets[].scale", 0.01, 1.0, &d->scale, ctx))
        return CT_ERR_BAD_DATA;
    p->num_targets++;
    return 0;
}

static int compile_layer(const ct_data_o *l, render__pipeline *p, ct_compile_ctx_o *ctx)
{
    static const ct_field_t known[] = {
        {"name", CT_DATA_INVALID, 0},        {"target", CT_DATA_STRING, 0},
        {"clear_color", CT_DATA_INVALID, 0}, {"clear_depth", CT_DATA_INVALID, 0},
        {"sort", CT_DATA_STRING, 0},         {"depth_test", CT_DATA_INVALID, 0},
        {"fullscreen", CT_DATA_INVALID, 0},
    };
    if (p->num_layers == RENDER_MAX_LAYERS_USED)
        return bad(ctx, "layers: at most %s layers%s", "32", "");
    render__layer_desc *d = &p->layers[p->num_layers];
    *d = (render__layer_desc){.clear_depth = 1.0f, .program = RENDER_NO_INDEX, .input = RENDER_NO_INDEX,
                              .flags = RENDER_LAYER_DEPTH_TEST};
    if (!render__m.resource->check_fields(ctx, l, "layers[]", known, CT_ARRAY_COUNT(known)) ||
        !copy_name(D()->get(l, "name"), "layers[].name", d->name, ctx))
        return CT_ERR_BAD_DATA;
    for (uint32_t k = 0; k < p->num_layers; k++)
        if (!strcmp(p->layers[k].name, d->name))
            return bad(ctx, "layers: the name '%s' is used twice%s", d->name, "");
    const char *target = D()->string(D()->get(l, "target"), "backbuffer");
    if ((d->target = target_index(p, target)) == RENDER_NO_INDEX)
        return bad(ctx, "layers[%s].target: no target is named '%s'", d->name, target);
    const ct_data_o *v;
    if ((v = D()->get(l, "clear_color"))) {
        if (!numbers(v, "layers[].clear_color", 4, true, 1.0f, 0.0, 1.0, d->clear_color, ctx))
            return CT_ERR_BAD_DATA;
        d->flags |= RENDER_LAYER_CLEAR_COLOR;
    }
    if ((v = D()->get(l, "clear_depth"))) {
        if (!number(v, "layers[].clear_depth", 0.0, 1.0, &d->clear_depth, ctx))
            return CT_ERR_BAD_DATA;
        d->flags |= RENDER_LAYER_CLEAR_DEPTH;
    }
    if ((v = D()->get(l, "depth_test"))) {
        if (D()->type(v) != CT_DATA_BOOL)
            return bad(ctx, "layers[%s].depth_test: must be true or false%s", d->name, "");
        if (!D()->boolean(v, true))
            d->flags &= ~(uint32_t)RENDER_LAYER_DEPTH_TEST;
    }
    const char *sort = D()->string(D()->get(l, "sort"), "front_to_back");
    if (!strcmp(sort, "back_to_front"))
        d->flags |= RENDER_LAYER_BACK_TO_FRONT;
    else if (strcmp(sort, "front_to_back"))
        return bad(ctx, "layers[%s].sort: '%s' is not \"front_to_back\" or \"back_to_front\"", d->name, sort);
    if ((v = D()->get(l, "fullscreen"))) {
        static const ct_field_t fs_known[] = {{"program", CT_DATA_STRING, 0}, {"input", CT_DATA_STRING, 0}};
        if (!render__m.resource->check_fields(ctx, v, "layers[].fullscreen", fs_known, CT_ARRAY_COUNT(fs_known)))
            return CT_ERR_BAD_DATA;
        const char *program = D()->string(D()->get(v, "program"), "");
        for (uint32_t k = 0; k < RENDER_NUM_PROGRAMS; k++)
            if (!strcmp(program, render__program_names[k]) && render__program_fullscreen(k))
                d->program = k;
        if (d->program == RENDER_NO_INDEX)
            return bad(ctx, "layers[%s].fullscreen.program: '%s' is not a full-screen program (\"copy\", \"vignette\")",
                       d->name, program);
        const char *input = D()->string(D()->get(v, "input"), "");
        d->input = target_index(p, input);
        if (d->input == RENDER_NO_INDEX || d->input == d->target)
            return bad(ctx, "layers[%s].fullscreen.input: '%s' must name a target other than the layer's own",
                       d->name, input);
    }
    p->num_layers++;
    return 0;
}

static int compile_config(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {
        {"resolution", CT_DATA_INVALID, 0}, {"ambient", CT_DATA_INVALID, 0},
        {"targets", CT_DATA_INVALID, 0},    {"layers", CT_DATA_INVALID, 0},
    };
    render__pipeline p = {.width = 640, .height = 360, .num_targets = 1, .ambient = {0.15f, 0.15f, 0.18f, 0}};
    strcpy(p.targets[0].name, "backbuffer");
    p.targets[0].scale = 1.0f;
    if (!render__m.resource->check_fields(ctx, src, "render_config", known, CT_ARRAY_COUNT(known)))
        return CT_ERR_BAD_DATA;
    const ct_data_o *v;
    float res[2];
    if ((v = D()->get(src, "resolution"))) {
        if (!numbers(v, "resolution", 2, false, 0, 1, 4096, res, ctx))
            return CT_ERR_BAD_DATA;
        if (res[0] != floorf(res[0]) || res[1] != floorf(res[1]))
            return bad(ctx, "resolution: must be two whole numbers%s%s", "", "");
        p.width = (uint32_t)res[0];
        p.height = (uint32_t)res[1];
    }
    if ((v = D()->get(src, "ambient")) && !numbers(v, "ambient", 3, false, 0, 0.0, 10.0, p.ambient, ctx))
        return CT_ERR_BAD_DATA;
    const ct_data_o *targets = D()->get(src, "targets"), *layers = D()->get(src, "layers");
    if (targets && D()->type(targets) != CT_DATA_ARRAY)
        return bad(ctx, "targets: must be an array of { name format scale }%s%s", "", "");
    for (const ct_data_o *t = D()->first_child(targets); t; t = D()->next(t))
        if (compile_target(t, &p, ctx))
            return CT_ERR_BAD_DATA;
    if (!layers || D()->type(layers) != CT_DATA_ARRAY || D()->count(layers) == 0)
        return bad(ctx, "layers: an array of at least one layer is required%s%s", "", "");
    for (const ct_data_o *l = D()->first_child(layers); l; l = D()->next(l))
        if (compile_layer(l, &p, ctx))
            return CT_ERR_BAD_DATA;
    const char *why = render__pipeline_error(&p);
    if (why)
        return bad(ctx, "render_config: %s%s", why, "");
    render__m.resource->write(ctx, &p, sizeof p);
    return 0;
}

static void *load_config(void *user_data, const void *payload, uint64_t size, char *err, size_t err_size)
{
    (void)user_data;
    const char *why = size != sizeof(render__pipeline) ? "wrong size" : render__pipeline_error(payload);
    if (why) {
        snprintf(err, err_size, "render_config: %s", why);
        return NULL;
    }
    return (void *)payload;
}

/* ---- switching and hot reload -------------------------------------------------------------- */

static int64_t source_mtime(const char *name)
{
    const char *dir = render__m.host ? render__m.host->project_dir() : NULL;
    char path[RENDER_PATH_SIZE * 2];
    struct stat st;
    if (!dir || (size_t)snprintf(path, sizeof path, "%s/%s.render_config", dir, name) >= sizeof path ||
        stat(path, &st) != 0)
        return -1;
    return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* Adopts a loaded configuration: targets, then materials' layers. */
static int adopt(const render__pipeline *p, const char *name)
{
    render__state *s = render__m.state;
    char err[256];
    if (s->gl && !render__gl_set_pipeline(s->gl, p, err, sizeof err)) {
        RENDER_LOG(CT_LOG_ERROR, "render_config '%s': %s; keeping the previous pipeline", name, err);
        render__gl_set_pipeline(s->gl, &s->pipeline, err, sizeof err);
        return CT_ERR_INIT_FAILED;
    }
    s->pipeline = *p;
    render__resolve_material_layers();
    return 0;
}

int render__use_pipeline(const char *name)
{
    render__state *s = render__m.state;
    if (!name || strlen(name) >= sizeof s->pipeline_name) {
        RENDER_LOG(CT_LOG_ERROR, "set_pipeline: bad render_config name");
        return CT_ERR_INVALID;
    }
    int r = render__m.resource->load("render_config", name);
    if (r)
        return r;
    r = adopt(render__m.resource->get("render_config", name), name);
    if (r) {
        render__m.resource->unload("render_config", name);
        return r;
    }
    if (s->pipeline_name[0])
        render__m.resource->unload("render_config", s->pipeline_name);
    snprintf(s->pipeline_name, sizeof s->pipeline_name, "%s", name);
    s->pipeline_mtime = source_mtime(name);
    return 0;
}

void render__use_project_pipeline(void)
{
    if (!render__m.state->pipeline_name[0] && source_mtime("default") >= 0)
        render__use_pipeline("default");
}

void render__watch_pipeline(void)
{
    render__state *s = render__m.state;
    const int64_t mtime = s->pipeline_name[0] ? source_mtime(s->pipeline_name) : -1;
    if (mtime < 0 || mtime == s->pipeline_mtime)
        return;
    s->pipeline_mtime = mtime;
    char path[RENDER_PATH_SIZE * 2];
    snprintf(path, sizeof path, "%s/%s.render_config", render__m.host->project_dir(), s->pipeline_name);
    char err[512];
    ct_data_o *tree = D()->load_file(path, err, sizeof err);
    if (!tree) {
        RENDER_LOG(CT_LOG_ERROR, "render_config '%s' changed but does not parse (%s); keeping the previous pipeline",
                   s->pipeline_name, err);
        return;
    }
    D()->destroy(tree);
    FILE *f = fopen(path, "rb");
    char text[64 * 1024];
    const size_t n = f ? fread(text, 1, sizeof text, f) : 0;
    if (f)
        fclose(f);
    /* A configuration is reloaded under a name of its own, then takes the real name's place. */
    char staged[RENDER_RESOURCE_NAME_SIZE + 16];
    snprintf(staged, sizeof staged, "%s.reload", s->pipeline_name);
    if (n == 0 || n == sizeof text || render__m.resource->load_source("render_config", staged, text, n)) {
        RENDER_LOG(CT_LOG_ERROR, "render_config '%s' changed but does not compile; keeping the previous pipeline",
                   s->pipeline_name);
        return;
    }
    if (adopt(render__m.resource->get("render_config", staged), s->pipeline_name) == 0)
        RENDER_LOG(CT_LOG_INFO, "render_config '%s' reloaded: %u targets, %u layers", s->pipeline_name,
                   s->pipeline.num_targets, s->pipeline.num_layers);
    render__m.resource->unload("render_config", staged);
}

/* ---- registration -------------------------------------------------------------------------- */

static const ct_resource_type_t resource_types[] = {
    {"mesh", 1, NULL, compile_mesh, load_mesh, unload_mesh},
    {"material", 1, NULL, compile_material, load_material, unload_material},
    {"render_config", 1, NULL, compile_config, load_config, NULL},
};
#define NUM_RESOURCE_TYPES (sizeof resource_types / sizeof resource_types[0])

int render__register_resources(void)
{
    for (uint32_t i = 0; i < NUM_RESOURCE_TYPES; i++) {
        const int r = render__m.resource->register_type(&resource_types[i]);
        if (r) {
            while (i--)
                render__m.resource->unregister_type(resource_types[i].type);
            return r;
        }
    }
    return 0;
}

bool render__rebind_resources(void)
{
    for (uint32_t i = 0; i < NUM_RESOURCE_TYPES; i++)
        if (render__m.resource->replace_type(&resource_types[i]))
            return false;
    return true;
}

void render__unregister_resources(void)
{
    render__state *s = render__m.state;
    for (uint32_t i = NUM_RESOURCE_TYPES; i--;)
        render__m.resource->unregister_type(resource_types[i].type);
    ct_free(render__m.allocator, s->meshes, (size_t)s->meshes_cap * sizeof *s->meshes);
    ct_free(render__m.allocator, s->materials, (size_t)s->materials_cap * sizeof *s->materials);
    ct_free(render__m.allocator, s->material_slots, (size_t)s->materials_cap * sizeof *s->material_slots);
    s->meshes = NULL, s->materials = NULL, s->material_slots = NULL;
    s->meshes_cap = s->materials_cap = 0;
}
