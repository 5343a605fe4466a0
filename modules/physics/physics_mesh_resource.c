/*
 * physics_mesh_resource.c: the resource type "collision_mesh", the triangles of one of the
 * project's mesh resources for static mesh bodies. Its source names the mesh:
 *
 *     // meshes/terrain.collision_mesh: the terrain's triangles for physics
 *     mesh = "meshes/terrain"
 *
 * and a level's or unit's body names the collision mesh as its shape:
 *
 *     body = { kind = "static" shape = { type = "mesh" mesh = "meshes/terrain" } }
 *
 * Compiling reads the mesh resource's source (meshes/terrain.mesh: its `source` OBJ or glTF
 * file, and `gltf_mesh` when it picks one mesh of a glTF file) and that file through formats/
 * (obj.h, gltf.h: the readers rendering compiles the same mesh with), so the body collides with
 * what is drawn. The name goes to the reference index (ct_resource_api_v6.reference: cuttle-deps
 * follows a renamed mesh) and every file read is noted (source_file, depends_on: a changed .mesh,
 * OBJ, glTF or .bin compiles the collision mesh again). A glTF file's default scene is baked with
 * its nodes' transforms, as rendering bakes it; its line and point primitives are left out.
 * Triangles of no area (under 5e-7 m^2, which physics__mesh_build refuses) are dropped, noted in
 * the log; a mesh left without a triangle, or that physics__mesh_build refuses, is a compile
 * error naming the field, the mesh and its file.
 *
 * The blob is a header (magic, vertex and triangle counts), the vertices (x y z floats) and the
 * triangles (three uint32 indices each). Loading checks every count and index, so a damaged blob
 * is refused, never read past; the runtime object is that data, which spawning hands to
 * add_mesh_body (each body builds its own tree).
 */
#include "physics_hull.h"
#include "physics_mesh_resource.h"

#include "ct_file.h"
#include "gltf.h"
#include "obj.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESH_RES_MAGIC 0x4d434c43u /* "CLCM" */
/* The layout of the blob (ct_resource_type_t.format_version). */
#define MESH_RES_FORMAT 1
/* The largest .mesh source read (it is a few lines of SJSON). */
#define MESH_RES_MAX_MESH_SOURCE (64u << 10)
/* The largest OBJ read (as rendering's limit). */
#define MESH_RES_MAX_OBJ (512u << 20)

typedef struct mesh_res_header {
    uint32_t magic, num_vertices, num_triangles, reserved;
} mesh_res_header;

static bool ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Reads project file `rel` (named through source_file, so a change compiles again) into a block
 * of *size + 1 bytes, NUL-terminated; NULL having reported why. ct_file_read opens it without
 * blocking and reads only a regular file (a FIFO named as a source never holds the compile). */
static char *read_project_file(ct_compile_ctx_o *ctx, const char *field, const char *rel,
                               size_t max, size_t *size)
{
    char path[1024], err[1200];
    if (!physics__m.resource->source_file(ctx, field, rel, path, sizeof path))
        return NULL;
    char *text = (char *)ct_file_read(path, physics__m.allocator, max, size, err, sizeof err);
    if (!text)
        physics__m.resource->compile_error(ctx, "%s: '%s': %s", field, rel, err);
    return text;
}

/* The triangles gathered for the blob. */
typedef struct mesh_res_build {
    float *v;
    uint32_t *t;
    uint32_t nv, nt, cap_v, cap_t;
} mesh_res_build;

static bool build_reserve(mesh_res_build *b, uint32_t nv, uint32_t nt)
{
    ct_allocator_t *a = physics__m.allocator;
    if ((uint64_t)b->nv + nv > OBJ_MAX_VERTICES ||
        (uint64_t)b->nt + nt > CT_PHYSICS_MAX_MESH_TRIANGLES)
        return false;
    if (b->nv + nv > b->cap_v) {
        const uint32_t cap = (b->nv + nv) * 2u;
        float *p = ct_realloc(a, b->v, (size_t)b->cap_v * 12u, (size_t)cap * 12u);
        if (!p)
            return false;
        b->v = p, b->cap_v = cap;
    }
    if (b->nt + nt > b->cap_t) {
        const uint32_t cap = (b->nt + nt) * 2u;
        uint32_t *p = ct_realloc(a, b->t, (size_t)b->cap_t * 12u, (size_t)cap * 12u);
        if (!p)
            return false;
        b->t = p, b->cap_t = cap;
    }
    return true;
}

static void build_free(mesh_res_build *b)
{
    ct_free(physics__m.allocator, b->v, (size_t)b->cap_v * 12u);
    ct_free(physics__m.allocator, b->t, (size_t)b->cap_t * 12u);
}

/* Appends triangles over nv positions (3 floats each, placed by the column-major matrix w when
 * not NULL); false when past the limits or out of memory. */
static bool build_add(mesh_res_build *b, const float *pos, uint32_t nv, const uint32_t *idx,
                      uint32_t ni, const float *w)
{
    if (!build_reserve(b, nv, ni / 3u))
        return false;
    for (uint32_t k = 0; k < nv; k++) {
        const float *p = pos + 3u * k;
        float *o = b->v + 3u * (b->nv + k);
        for (int r = 0; r < 3; r++)
            o[r] = w ? w[r] * p[0] + w[4 + r] * p[1] + w[8 + r] * p[2] + w[12 + r] : p[r];
    }
    for (uint32_t k = 0; k + 2 < ni; k += 3)
        for (int c = 0; c < 3; c++)
            b->t[3u * b->nt + (uint32_t)(k / 3u) * 3u + (uint32_t)c] = b->nv + idx[k + (uint32_t)c];
    b->nv += nv, b->nt += ni / 3u;
    return true;
}

static void mat4_mul(float out[16], const float a[16], const float b[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] +
                             a[12 + r] * b[4 * c + 3];
}

/* One glTF mesh's triangle primitives (placed by w, or as the file gives them). */
static bool gltf_add_mesh(mesh_res_build *b, const ct_gltf_mesh_t *m, const float *w)
{
    for (uint32_t p = 0; p < m->num_primitives; p++) {
        const ct_gltf_primitive_t *prim = &m->primitives[p];
        if (prim->mode != CT_GLTF_TRIANGLES)
            continue;
        if (!build_add(b, prim->positions, prim->num_vertices, prim->indices, prim->num_indices,
                       w))
            return false;
    }
    return true;
}

static int ascending(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The default scene's meshes placed by their nodes' world matrices (each node's parents come
 * first in the walk from the scene's roots), or mesh `pick` alone. */
static int gltf_gather(ct_compile_ctx_o *ctx, const char *field, const char *rel,
                       const ct_data_o *mesh_src, mesh_res_build *b)
{
    const ct_resource_api_v6 *res = physics__m.resource;
    char path[1024], err[512];
    if (!res->source_file(ctx, field, rel, path, sizeof path))
        return CT_ERR_BAD_DATA;
    ct_gltf_t *doc = ct_gltf_load_file(path, physics__m.allocator, err, sizeof err);
    if (!doc) {
        res->compile_error(ctx, "%s: %s", field, err);
        return CT_ERR_BAD_DATA;
    }
    for (uint32_t i = 0; i < doc->num_files; i++) {
        char dep[1024];
        if (!ct_gltf_file_path(rel, doc->files[i], dep, sizeof dep) ||
            !res->depends_on(ctx, field, dep)) {
            ct_gltf_free(doc);
            return CT_ERR_BAD_DATA;
        }
    }
    int e = 0;
    const ct_data_o *pick = physics__m.data->get(mesh_src, "gltf_mesh");
    if (pick) {
        const double k = physics__m.data->number(pick, -1.0);
        if (!(k >= 0 && k < doc->num_meshes && k == floor(k))) {
            res->compile_error(ctx, "%s: gltf_mesh of '%s' is not a mesh index of it", field, rel);
            e = CT_ERR_BAD_DATA;
        } else if (!gltf_add_mesh(b, &doc->meshes[(uint32_t)k], NULL)) {
            e = CT_ERR_NOMEM;
        }
        ct_gltf_free(doc);
        return e;
    }
    /* World matrices by a walk from the roots (a node's parent is always placed before it). */
    float(*world)[16] = ct_alloc(physics__m.allocator, (size_t)doc->num_nodes * sizeof *world);
    uint32_t *stack = ct_alloc(physics__m.allocator, (size_t)doc->num_nodes * sizeof *stack);
    uint8_t *done = ct_alloc(physics__m.allocator, doc->num_nodes);
    if (doc->num_nodes && (!world || !stack || !done))
        e = CT_ERR_NOMEM;
    if (done)
        memset(done, 0, doc->num_nodes);
    for (uint32_t r = 0; !e && r < doc->num_scene_nodes; r++) {
        uint32_t top = 0;
        stack[top++] = doc->scene_nodes[r];
        while (!e && top) {
            const uint32_t n = stack[--top];
            if (n >= doc->num_nodes || done[n])
                continue;
            done[n] = 1;
            const ct_gltf_node_t *node = &doc->nodes[n];
            if (node->parent >= 0 && done[node->parent])
                mat4_mul(world[n], world[node->parent], node->matrix);
            else
                memcpy(world[n], node->matrix, sizeof world[n]);
            if (node->mesh >= 0 && (uint32_t)node->mesh < doc->num_meshes &&
                !gltf_add_mesh(b, &doc->meshes[node->mesh], world[n]))
                e = CT_ERR_NOMEM;
            /* Its children, the nodes whose parent it is, pushed in ascending order (as the
             * file's triangles have always come out). Each node has its list: finding them by a
             * walk over every node made a scene of 300,000 nodes a compile of minutes. */
            const uint32_t first = top;
            for (uint32_t c = 0; c < node->num_children && top < doc->num_nodes; c++)
                if (node->children[c] < doc->num_nodes && !done[node->children[c]])
                    stack[top++] = node->children[c];
            qsort(stack + first, top - first, sizeof *stack, ascending);
        }
    }
    ct_free(physics__m.allocator, world, (size_t)doc->num_nodes * sizeof *world);
    ct_free(physics__m.allocator, stack, (size_t)doc->num_nodes * sizeof *stack);
    ct_free(physics__m.allocator, done, doc->num_nodes);
    ct_gltf_free(doc);
    if (e == CT_ERR_NOMEM)
        res->compile_error(ctx, "%s: '%s': out of memory or past %u triangles", field, rel,
                           CT_PHYSICS_MAX_MESH_TRIANGLES);
    return e;
}

static int obj_gather(ct_compile_ctx_o *ctx, const char *field, const char *rel,
                      mesh_res_build *b)
{
    size_t size = 0;
    char *text = read_project_file(ctx, field, rel, MESH_RES_MAX_OBJ, &size);
    if (!text)
        return CT_ERR_BAD_DATA;
    obj_mesh_t m;
    char err[512];
    int e = obj_read(text, size, rel, physics__m.allocator, &m, err, sizeof err);
    ct_free(physics__m.allocator, text, size + 1);
    if (e) {
        physics__m.resource->compile_error(ctx, "%s: %s", field, err);
        return e;
    }
    if (!build_add(b, m.positions, m.num_vertices, m.indices, m.num_indices, NULL)) {
        physics__m.resource->compile_error(ctx, "%s: '%s': out of memory or past %u triangles",
                                           field, rel, CT_PHYSICS_MAX_MESH_TRIANGLES);
        e = CT_ERR_NOMEM;
    }
    obj_free(&m, physics__m.allocator);
    return e;
}

/* Drops the triangles of no area (physics__mesh_build refuses them); how many went. */
static uint32_t drop_flat(mesh_res_build *b)
{
    uint32_t kept = 0;
    for (uint32_t t = 0; t < b->nt; t++) {
        const uint32_t *i = b->t + 3u * t;
        const physics__v3 p0 = v3_load(b->v + 3u * i[0]), p1 = v3_load(b->v + 3u * i[1]),
                          p2 = v3_load(b->v + 3u * i[2]);
        if (v3_len(v3_cross(v3_sub(p1, p0), v3_sub(p2, p0))) <
            CT_PHYSICS_MIN_SIZE * CT_PHYSICS_MIN_SIZE)
            continue;
        memmove(b->t + 3u * kept, i, 3u * sizeof *i);
        kept++;
    }
    const uint32_t dropped = b->nt - kept;
    b->nt = kept;
    return dropped;
}

static int compile_mesh_res(void *user_data, const ct_data_o *src, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    const ct_resource_api_v6 *res = physics__m.resource;
    static const ct_field_t known[] = {{"mesh", CT_DATA_STRING, 0}};
    if (!res->check_fields(ctx, src, "collision_mesh", known, 1))
        return CT_ERR_BAD_DATA;
    const char *name = physics__m.data->string(physics__m.data->get(src, "mesh"), NULL);
    if (!name) {
        res->compile_error(ctx, "collision_mesh.mesh: the name of a mesh resource is required");
        return CT_ERR_BAD_DATA;
    }
    if (strlen(name) >= PHYSICS_MESH_NAME_SIZE - 5u) {
        res->compile_error(ctx, "collision_mesh.mesh: '%s' is longer than %u bytes", name,
                           PHYSICS_MESH_NAME_SIZE - 6u);
        return CT_ERR_BAD_DATA;
    }
    if (!res->reference(ctx, "collision_mesh.mesh", "mesh", name))
        return CT_ERR_BAD_DATA;
    /* The mesh resource's own source, for the file it is made from. */
    char mesh_file[PHYSICS_MESH_NAME_SIZE];
    snprintf(mesh_file, sizeof mesh_file, "%s.mesh", name);
    size_t size = 0;
    char *text = read_project_file(ctx, "collision_mesh.mesh", mesh_file,
                                   MESH_RES_MAX_MESH_SOURCE, &size);
    if (!text)
        return CT_ERR_BAD_DATA;
    char err[512];
    ct_data_o *mesh_src = physics__m.data->parse(text, size, mesh_file, err, sizeof err);
    ct_free(physics__m.allocator, text, size + 1);
    if (!mesh_src) {
        res->compile_error(ctx, "collision_mesh.mesh: %s", err);
        return CT_ERR_BAD_DATA;
    }
    const char *rel = physics__m.data->string(physics__m.data->get(mesh_src, "source"), NULL);
    mesh_res_build b = {0};
    int e = 0;
    if (!rel) {
        res->compile_error(ctx, "collision_mesh.mesh: '%s' names no source file", mesh_file);
        e = CT_ERR_BAD_DATA;
    } else if (physics__m.data->get(mesh_src, "skin")) {
        res->compile_error(ctx, "collision_mesh.mesh: '%s' is skinned: it moves, a mesh body is "
                                "static",
                           name);
        e = CT_ERR_BAD_DATA;
    } else if (ends_with(rel, ".gltf") || ends_with(rel, ".glb")) {
        e = gltf_gather(ctx, "collision_mesh.mesh", rel, mesh_src, &b);
    } else if (ends_with(rel, ".obj")) {
        e = obj_gather(ctx, "collision_mesh.mesh", rel, &b);
    } else {
        res->compile_error(ctx, "collision_mesh.mesh: '%s': the file must be .obj, .gltf or .glb",
                           rel);
        e = CT_ERR_BAD_DATA;
    }
    if (!e) {
        const uint32_t dropped = drop_flat(&b);
        if (!b.nt) {
            res->compile_error(ctx, "collision_mesh.mesh: '%s' (%s) has no triangle with an area",
                               name, rel);
            e = CT_ERR_BAD_DATA;
        } else if (dropped) {
            /* Scanned models have a few (the bunny 4 of 69,666): worth a note, not a failure
             * (a warning fails a strict compile). */
            PHYSICS_LOG(CT_LOG_INFO, "%s: collision_mesh.mesh: '%s' (%s): %u triangles of no area "
                                     "left out",
                        res->source_path(ctx), name, rel, dropped);
        }
    }
    if (!e) {
        /* What the bodies will build must build. */
        physics__mesh *m;
        char reason[160];
        const char *bad = physics__mesh_build(physics__m.allocator, b.v, b.nv, b.t, b.nt, &m,
                                              reason, sizeof reason);
        if (bad) {
            res->compile_error(ctx, "collision_mesh.mesh: '%s' (%s): %s", name, rel, bad);
            e = CT_ERR_BAD_DATA;
        } else {
            physics__mesh_free(physics__m.allocator, m);
            const mesh_res_header h = {MESH_RES_MAGIC, b.nv, b.nt, 0};
            res->write(ctx, &h, sizeof h);
            res->write(ctx, b.v, (uint64_t)b.nv * 12u);
            res->write(ctx, b.t, (uint64_t)b.nt * 12u);
        }
    }
    build_free(&b);
    physics__m.data->destroy(mesh_src);
    return e;
}

const char *physics__mesh_res_check(const void *payload, uint64_t size, uint32_t *num_vertices,
                                    uint32_t *num_triangles)
{
    mesh_res_header h;
    if (!payload || size < sizeof h)
        return "shorter than its header";
    memcpy(&h, payload, sizeof h);
    if (h.magic != MESH_RES_MAGIC)
        return "not a collision mesh";
    if (h.num_vertices < 3 || h.num_vertices > OBJ_MAX_VERTICES || h.num_triangles == 0 ||
        h.num_triangles > CT_PHYSICS_MAX_MESH_TRIANGLES)
        return "vertex or triangle count out of range";
    if (size != sizeof h + (uint64_t)h.num_vertices * 12u + (uint64_t)h.num_triangles * 12u)
        return "size does not match its counts";
    const uint8_t *at = (const uint8_t *)payload + sizeof h;
    for (uint64_t k = 0; k < (uint64_t)h.num_vertices * 3u; k++) {
        float x;
        memcpy(&x, at + 4u * k, 4);
        if (!(fabsf(x) <= CT_PHYSICS_MAX_POSITION))
            return "a vertex is NaN, infinite or too far";
    }
    at += (size_t)h.num_vertices * 12u;
    for (uint64_t k = 0; k < (uint64_t)h.num_triangles * 3u; k++) {
        uint32_t i;
        memcpy(&i, at + 4u * k, 4);
        if (i >= h.num_vertices)
            return "a triangle names a vertex past the last";
    }
    *num_vertices = h.num_vertices, *num_triangles = h.num_triangles;
    return NULL;
}

static void *load_mesh_res(void *user_data, const void *payload, uint64_t size, char *err,
                           size_t err_size)
{
    (void)user_data;
    uint32_t nv, nt;
    const char *bad = physics__mesh_res_check(payload, size, &nv, &nt);
    if (bad) {
        snprintf(err, err_size, "collision_mesh: %s", bad);
        return NULL;
    }
    const size_t bytes = sizeof(physics__mesh_res) + (size_t)nv * 12u + (size_t)nt * 12u;
    physics__mesh_res *r = ct_alloc(physics__m.allocator, bytes);
    if (!r) {
        snprintf(err, err_size, "collision_mesh: out of memory");
        return NULL;
    }
    r->bytes = bytes;
    r->num_vertices = nv, r->num_triangles = nt;
    r->vertices = (float *)(r + 1);
    r->indices = (uint32_t *)(r->vertices + 3u * (size_t)nv);
    const uint8_t *at = (const uint8_t *)payload + sizeof(mesh_res_header);
    memcpy(r->vertices, at, (size_t)nv * 12u);
    memcpy(r->indices, at + (size_t)nv * 12u, (size_t)nt * 12u);
    return r;
}

static void unload_mesh_res(void *user_data, void *runtime)
{
    (void)user_data;
    physics__mesh_res *r = runtime;
    if (r)
        ct_free(physics__m.allocator, r, r->bytes);
}

static const ct_resource_type_t mesh_res_type = {
    .type = PHYSICS_MESH_RESOURCE_TYPE,
    .format_version = MESH_RES_FORMAT,
    .compile = compile_mesh_res,
    .load = load_mesh_res,
    .unload = unload_mesh_res,
};

int physics__mesh_res_register(void) { return physics__m.resource->register_type(&mesh_res_type); }

bool physics__mesh_res_rebind(void) { return physics__m.resource->replace_type(&mesh_res_type) == 0; }

void physics__mesh_res_unregister(void)
{
    physics__m.resource->unregister_type(PHYSICS_MESH_RESOURCE_TYPE);
}
