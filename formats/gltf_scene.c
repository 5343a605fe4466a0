/* gltf_scene.c: nodes (a forest, checked), the default scene, meshes decoded into triangle
 * lists, materials, textures, images and skins. */
#include "gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Element counts of the top-level arrays are read before anything refers to them. */
static const cJSON *top(gltf__reader *r, const char *key) { return gltf__member(r->root, key); }

/* Column-major 4x4 from translation, rotation (x y z w) and scale. */
static void compose(const float t[3], const float q[4], const float s[3], float m[16])
{
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    const float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                        2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                        2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++)
            m[4 * c + row] = r[3 * c + row] * s[c];
        m[4 * c + 3] = 0;
    }
    m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
}

/* Splits an affine column-major matrix into TRS; a mirroring matrix gets a negative x scale.
 * Fails for a singular or non-affine matrix. */
static bool decompose(const float m[16], float t[3], float q[4], float s[3])
{
    if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
        return false;
    float c[3][3];
    for (int i = 0; i < 3; i++) {
        s[i] =
            sqrtf(m[4 * i] * m[4 * i] + m[4 * i + 1] * m[4 * i + 1] + m[4 * i + 2] * m[4 * i + 2]);
        if (!(s[i] > 1e-20f))
            return false;
        for (int k = 0; k < 3; k++)
            c[i][k] = m[4 * i + k] / s[i];
    }
    const float det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                      c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                      c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
    if (det < 0) {
        s[0] = -s[0];
        for (int k = 0; k < 3; k++)
            c[0][k] = -c[0][k];
    }
    /* c[col][row]; the quaternion from a rotation matrix, branch on the largest diagonal. */
    const float tr = c[0][0] + c[1][1] + c[2][2];
    if (tr > 0) {
        const float k = 0.5f / sqrtf(tr + 1);
        q[3] = 0.25f / k, q[0] = (c[1][2] - c[2][1]) * k, q[1] = (c[2][0] - c[0][2]) * k,
        q[2] = (c[0][1] - c[1][0]) * k;
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        const float k = 2 * sqrtf(fmaxf(1 + c[0][0] - c[1][1] - c[2][2], 1e-30f));
        q[3] = (c[1][2] - c[2][1]) / k, q[0] = 0.25f * k, q[1] = (c[1][0] + c[0][1]) / k,
        q[2] = (c[2][0] + c[0][2]) / k;
    } else if (c[1][1] > c[2][2]) {
        const float k = 2 * sqrtf(fmaxf(1 + c[1][1] - c[0][0] - c[2][2], 1e-30f));
        q[3] = (c[2][0] - c[0][2]) / k, q[0] = (c[1][0] + c[0][1]) / k, q[1] = 0.25f * k,
        q[2] = (c[2][1] + c[1][2]) / k;
    } else {
        const float k = 2 * sqrtf(fmaxf(1 + c[2][2] - c[0][0] - c[1][1], 1e-30f));
        q[3] = (c[0][1] - c[1][0]) / k, q[0] = (c[2][0] + c[0][2]) / k,
        q[1] = (c[2][1] + c[1][2]) / k, q[2] = 0.25f * k;
    }
    const float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= n;
    t[0] = m[12], t[1] = m[13], t[2] = m[14];
    return true;
}

static bool read_node_pose(gltf__reader *r, const cJSON *j, const char *where, ct_gltf_node_t *n)
{
    bool has_t, has_r, has_s;
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, identity[4] = {0, 0, 0, 1};
    memcpy(n->translation, zero, sizeof zero);
    memcpy(n->rotation, identity, sizeof identity);
    memcpy(n->scale, one, sizeof one);
    if (!gltf__numbers(r, j, "matrix", where, 16, n->matrix, &n->has_matrix) ||
        !gltf__numbers(r, j, "translation", where, 3, n->translation, &has_t) ||
        !gltf__numbers(r, j, "rotation", where, 4, n->rotation, &has_r) ||
        !gltf__numbers(r, j, "scale", where, 3, n->scale, &has_s))
        return false;
    if (n->has_matrix) {
        if (has_t || has_r || has_s)
            return gltf__fail(r, "%s: has both a matrix and translation/rotation/scale", where);
        if (!decompose(n->matrix, n->translation, n->rotation, n->scale))
            return gltf__fail(r, "%s.matrix: not an invertible affine transform", where);
        return true;
    }
    const float *q = n->rotation;
    const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (fabsf(len - 1.0f) > 0.01f)
        return gltf__fail(r, "%s.rotation: not a unit quaternion (length %g)", where, len);
    for (int i = 0; i < 4; i++)
        n->rotation[i] /= len;
    compose(n->translation, n->rotation, n->scale, n->matrix);
    return true;
}

bool gltf__read_nodes(gltf__reader *r)
{
    ct_gltf_t *doc = r->doc;
    ct_gltf_node_t *nodes = formats__alloc_array(&r->arena, doc->num_nodes + 1u, sizeof *nodes);
    if (!nodes)
        return gltf__nomem(r, "nodes");
    doc->nodes = nodes;
    for (uint32_t i = 0; i < doc->num_nodes; i++)
        nodes[i].parent = -1;
    uint32_t i = 0;
    for (const cJSON *j = top(r, "nodes") ? top(r, "nodes")->child : NULL; j; j = j->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "nodes[%u]", i);
        ct_gltf_node_t *n = &nodes[i];
        const cJSON *children;
        if (!cJSON_IsObject(j))
            return gltf__fail(r, "%s: expected an object", where);
        if (!gltf__string(r, j, "name", where, "", &n->name) ||
            !gltf__index(r, j, "mesh", where, doc->num_meshes, "meshes", &n->mesh) ||
            !gltf__index(r, j, "skin", where, doc->num_skins, "skins", &n->skin) ||
            !gltf__array(r, j, "children", where, &children) || !read_node_pose(r, j, where, n))
            return false;
        n->num_children = children ? (uint32_t)cJSON_GetArraySize(children) : 0;
        uint32_t *c = formats__alloc_array(&r->arena, n->num_children + 1u, sizeof *c);
        if (!c)
            return gltf__nomem(r, where);
        n->children = c;
        uint32_t k = 0;
        for (const cJSON *e = children ? children->child : NULL; e; e = e->next, k++) {
            const double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (!(d >= 0 && d < doc->num_nodes && d == floor(d)))
                return gltf__fail(r, "%s.children[%u]: not a node index below %u", where, k,
                                  doc->num_nodes);
            c[k] = (uint32_t)d;
            if (c[k] == i)
                return gltf__fail(r, "%s.children[%u]: the node is its own child", where, k);
            if (nodes[c[k]].parent >= 0)
                return gltf__fail(r,
                                  "%s.children[%u]: node %u already has parent %d (nodes "
                                  "form a tree)",
                                  where, k, c[k], nodes[c[k]].parent);
            nodes[c[k]].parent = (int32_t)i;
        }
    }
    /* With one parent each, a cycle is a chain of parents longer than the node count. */
    for (i = 0; i < doc->num_nodes; i++) {
        int32_t p = nodes[i].parent;
        for (uint32_t steps = 0; p >= 0; steps++, p = nodes[p].parent)
            if (steps > doc->num_nodes)
                return gltf__fail(r,
                                  "nodes[%u]: its parents form a cycle (a node is its own "
                                  "ancestor)",
                                  i);
    }
    return true;
}

bool gltf__read_scene(gltf__reader *r)
{
    ct_gltf_t *doc = r->doc;
    uint32_t num_scenes, scene;
    const cJSON *scenes;
    if (!gltf__top_count(r, "scenes", &num_scenes) ||
        !gltf__array(r, r->root, "scenes", "document", &scenes) ||
        !gltf__uint(r, r->root, "scene", "document", false, 0, INT32_MAX, &scene))
        return false;
    if (num_scenes && scene >= num_scenes)
        return gltf__fail(r, "scene: %u is out of range (the document has %u scenes)", scene,
                          num_scenes);
    uint32_t *list = formats__alloc_array(&r->arena, doc->num_nodes + 1u, sizeof *list);
    if (!list)
        return gltf__nomem(r, "scenes");
    uint32_t n = 0;
    if (num_scenes) {
        char where[GLTF_WHERE];
        gltf__where(where, "scenes[%u]", scene);
        const cJSON *s = cJSON_GetArrayItem(scenes, (int)scene), *nodes;
        if (!cJSON_IsObject(s))
            return gltf__fail(r, "%s: expected an object", where);
        if (!gltf__array(r, s, "nodes", where, &nodes))
            return false;
        for (const cJSON *e = nodes ? nodes->child : NULL; e; e = e->next, n++) {
            const double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (n >= doc->num_nodes || !(d >= 0 && d < doc->num_nodes && d == floor(d)))
                return gltf__fail(r, "%s.nodes[%u]: not a node index below %u", where, n,
                                  doc->num_nodes);
            list[n] = (uint32_t)d;
            if (doc->nodes[list[n]].parent >= 0)
                return gltf__fail(r, "%s.nodes[%u]: node %u is not a root", where, n, list[n]);
        }
    } else {
        for (uint32_t i = 0; i < doc->num_nodes; i++)
            if (doc->nodes[i].parent < 0)
                list[n++] = i;
    }
    doc->scene_nodes = list;
    doc->num_scene_nodes = n;
    return true;
}

/* ---- meshes ---------------------------------------------------------------------------------- */

/* Reads an attribute's accessor index: -1 when absent; its count must match the vertices. */
static bool attribute(gltf__reader *r, const cJSON *attrs, const char *key, const char *where,
                      int32_t *out, uint32_t num_vertices)
{
    if (!gltf__index(r, attrs, key, where, r->num_accessors, "accessors", out))
        return false;
    if (*out >= 0 && num_vertices && r->accessors[*out].count != num_vertices)
        return gltf__fail(r, "%s.%s: %u elements, but POSITION has %u", where, key,
                          r->accessors[*out].count, num_vertices);
    return true;
}

static bool check_type(gltf__reader *r, const char *where, const char *key, int32_t index,
                       uint32_t components, bool ok, const char *allowed)
{
    if (index < 0 || (ok && r->accessors[index].components == components))
        return true;
    return gltf__fail(r, "%s.%s: accessors[%d] must be %s with %u components", where, key, index,
                      allowed, components);
}

/* Turns the file's indices (or 0..n-1) of a mode into a list of the mode we hand out. */
static bool convert_indices(gltf__reader *r, const char *where, uint32_t mode, const uint32_t *in,
                            uint32_t n, ct_gltf_primitive_t *p)
{
    /* How many lines or triangles the mode makes of n indices. */
    uint32_t prims;
    switch (mode) {
    case 0:
    case 1:
    case 4:
        if ((mode == 1 && n % 2) || (mode == 4 && n % 3))
            return gltf__fail(r, "%s: %u indices do not make whole %s", where, n,
                              mode == 1 ? "lines" : "triangles");
        p->indices = in, p->num_indices = n, p->mode = (ct_gltf_mode)mode;
        return true;
    case 2: /* line loop */ prims = n >= 2 ? n : 0; break;
    case 3: /* line strip */ prims = n >= 2 ? n - 1 : 0; break;
    default: /* 5 triangle strip, 6 triangle fan */ prims = n >= 3 ? n - 2 : 0; break;
    }
    uint32_t *out = formats__alloc_array(&r->arena, (size_t)prims * 3 + 1, sizeof *out);
    if (!out)
        return gltf__nomem(r, where);
    uint32_t k = 0;
    for (uint32_t i = 0; i < prims; i++) {
        if (mode == 2 || mode == 3) {
            out[k++] = in[i], out[k++] = in[(i + 1) % n];
        } else if (mode == 5) { /* every second triangle swaps two corners to keep its winding */
            out[k++] = in[i], out[k++] = in[i + 1 + (i & 1)], out[k++] = in[i + 2 - (i & 1)];
        } else {
            out[k++] = in[0], out[k++] = in[i + 1], out[k++] = in[i + 2];
        }
    }
    p->indices = out, p->num_indices = k;
    p->mode = mode <= 3 ? CT_GLTF_LINES : CT_GLTF_TRIANGLES;
    return true;
}

static bool read_indices(gltf__reader *r, const cJSON *j, const char *where, uint32_t mode,
                         ct_gltf_primitive_t *p)
{
    int32_t index;
    if (!gltf__index(r, j, "indices", where, r->num_accessors, "accessors", &index))
        return false;
    const uint32_t n = index >= 0 ? r->accessors[index].count : p->num_vertices;
    r->indices_total += n;
    if (r->indices_total > GLTF_MAX_INDICES)
        return gltf__fail(r, "%s.indices: the primitives hold more than %u indices in all", where,
                          GLTF_MAX_INDICES);
    uint32_t *list = formats__alloc_array(&r->arena, (size_t)n + 1, sizeof *list);
    if (!list)
        return gltf__nomem(r, where);
    if (index >= 0) {
        const gltf__accessor *a = &r->accessors[index];
        if (a->components != 1 || a->normalized ||
            (a->component_type != 5121 && a->component_type != 5123 && a->component_type != 5125))
            return gltf__fail(r,
                              "%s.indices: accessors[%d] must be SCALAR unsigned byte, short "
                              "or int",
                              where, index);
        for (uint32_t i = 0; i < n; i++) {
            list[i] = gltf__component_uint(a, i, 0);
            if (list[i] >= p->num_vertices)
                return gltf__fail(r,
                                  "%s.indices: element %u is %u, but the primitive has %u "
                                  "vertices",
                                  where, i, list[i], p->num_vertices);
        }
    } else {
        for (uint32_t i = 0; i < n; i++)
            list[i] = i;
    }
    return convert_indices(r, where, mode, list, n, p);
}

static bool read_primitive(gltf__reader *r, const cJSON *j, const char *where,
                           ct_gltf_primitive_t *p)
{
    const cJSON *attrs;
    uint32_t mode;
    int32_t pos, nrm, uv, joints, weights, tan;
    char aw[GLTF_WHERE];
    gltf__where(aw, "%s.attributes", where);
    if (!cJSON_IsObject(j))
        return gltf__fail(r, "%s: expected an object", where);
    if (!gltf__object(r, j, "attributes", where, &attrs) ||
        !gltf__uint(r, j, "mode", where, false, 4, 6, &mode) ||
        !gltf__index(r, j, "material", where, r->doc->num_materials, "materials", &p->material))
        return false;
    if (!attrs || !gltf__member(attrs, "POSITION"))
        return gltf__fail(r, "%s.POSITION: missing (a primitive needs positions)", aw);
    if (!attribute(r, attrs, "POSITION", aw, &pos, 0))
        return false;
    p->num_vertices = r->accessors[pos].count;
    /* The limit holds before anything is decoded: a small file whose primitives all name one
     * huge accessor must not make every copy first. */
    r->vertices_total += p->num_vertices;
    if (r->vertices_total > GLTF_MAX_VERTICES)
        return gltf__fail(r, "%s: the primitives hold more than %u vertices in all", where,
                          GLTF_MAX_VERTICES);
    for (const cJSON *a = attrs->child; a; a = a->next) {
        int32_t unused;
        if (!attribute(r, attrs, a->string, aw, &unused, p->num_vertices))
            return false;
    }
    if (!attribute(r, attrs, "NORMAL", aw, &nrm, p->num_vertices) ||
        !attribute(r, attrs, "TEXCOORD_0", aw, &uv, p->num_vertices) ||
        !attribute(r, attrs, "JOINTS_0", aw, &joints, p->num_vertices) ||
        !attribute(r, attrs, "WEIGHTS_0", aw, &weights, p->num_vertices) ||
        !attribute(r, attrs, "TANGENT", aw, &tan, p->num_vertices))
        return false;
    const gltf__accessor *A = r->accessors;
    if (!check_type(r, aw, "POSITION", pos, 3, A[pos].component_type == 5126, "float VEC3") ||
        !check_type(r, aw, "NORMAL", nrm, 3, nrm < 0 || A[nrm].component_type == 5126,
                    "float VEC3") ||
        !check_type(r, aw, "TEXCOORD_0", uv, 2, uv < 0 || gltf__float_like(&A[uv], false),
                    "float or normalized unsigned VEC2") ||
        !check_type(r, aw, "JOINTS_0", joints, 4,
                    joints < 0 || (!A[joints].normalized && (A[joints].component_type == 5121 ||
                                                             A[joints].component_type == 5123)),
                    "unsigned byte or short VEC4") ||
        !check_type(r, aw, "WEIGHTS_0", weights, 4,
                    weights < 0 || gltf__float_like(&A[weights], false),
                    "float or normalized unsigned VEC4") ||
        !check_type(r, aw, "TANGENT", tan, 4, tan < 0 || A[tan].component_type == 5126,
                    "float VEC4"))
        return false;
    float *f;
    char fw[GLTF_WHERE];
    gltf__where(fw, "%s.POSITION", aw);
    if (!gltf__decode_floats(r, (uint32_t)pos, fw, &f))
        return false;
    p->positions = f;
    if (nrm >= 0) {
        gltf__where(fw, "%s.NORMAL", aw);
        if (!gltf__decode_floats(r, (uint32_t)nrm, fw, &f))
            return false;
        p->normals = f;
    }
    if (tan >= 0) {
        gltf__where(fw, "%s.TANGENT", aw);
        if (!gltf__decode_floats(r, (uint32_t)tan, fw, &f))
            return false;
        p->tangents = f;
    }
    if (uv >= 0) {
        gltf__where(fw, "%s.TEXCOORD_0", aw);
        if (!gltf__decode_floats(r, (uint32_t)uv, fw, &f))
            return false;
        p->uvs = f;
    }
    if (weights >= 0) {
        gltf__where(fw, "%s.WEIGHTS_0", aw);
        if (!gltf__decode_floats(r, (uint32_t)weights, fw, &f))
            return false;
        p->weights = f;
    }
    if (joints >= 0) {
        uint16_t *jd = formats__alloc_array(&r->arena, (size_t)p->num_vertices * 4, sizeof *jd);
        if (!jd)
            return gltf__nomem(r, aw);
        for (uint32_t i = 0; i < p->num_vertices; i++)
            for (uint32_t k = 0; k < 4; k++)
                jd[4 * i + k] = (uint16_t)gltf__component_uint(&A[joints], i, k);
        p->joints = jd;
    }
    return read_indices(r, j, where, mode, p);
}

bool gltf__read_meshes(gltf__reader *r)
{
    ct_gltf_t *doc = r->doc;
    ct_gltf_mesh_t *meshes = formats__alloc_array(&r->arena, doc->num_meshes + 1u, sizeof *meshes);
    if (!meshes)
        return gltf__nomem(r, "meshes");
    doc->meshes = meshes;
    uint32_t i = 0;
    for (const cJSON *j = top(r, "meshes") ? top(r, "meshes")->child : NULL; j; j = j->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "meshes[%u]", i);
        const cJSON *prims;
        if (!cJSON_IsObject(j))
            return gltf__fail(r, "%s: expected an object", where);
        if (!gltf__string(r, j, "name", where, "", &meshes[i].name) ||
            !gltf__array(r, j, "primitives", where, &prims))
            return false;
        const uint32_t n = prims ? (uint32_t)cJSON_GetArraySize(prims) : 0;
        if (n == 0)
            return gltf__fail(r, "%s.primitives: missing or empty", where);
        ct_gltf_primitive_t *p = formats__alloc_array(&r->arena, n, sizeof *p);
        if (!p)
            return gltf__nomem(r, where);
        meshes[i].primitives = p;
        meshes[i].num_primitives = n;
        uint32_t k = 0;
        for (const cJSON *e = prims->child; e; e = e->next, k++) {
            char pw[GLTF_WHERE];
            gltf__where(pw, "%s.primitives[%u]", where, k);
            if (!read_primitive(r, e, pw, &p[k]))
                return false;
        }
    }
    return true;
}

/* ---- materials, textures, images ------------------------------------------------------------- */

/* A textureInfo object: its texture index (-1 when the member is absent). */
static bool texture_info(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                         int32_t *index, float *scale)
{
    const cJSON *t;
    char tw[GLTF_WHERE];
    gltf__where(tw, "%s.%s", where, key);
    *index = -1;
    if (!gltf__object(r, obj, key, where, &t))
        return false;
    if (!t)
        return true;
    uint32_t texcoord;
    if (!gltf__uint(r, t, "texCoord", tw, false, 0, INT32_MAX, &texcoord) ||
        (scale && !gltf__number(r, t, "scale", tw, 1.0f, -1e30f, 1e30f, scale)) ||
        !gltf__index(r, t, "index", tw, r->doc->num_textures, "textures", index))
        return false;
    return *index >= 0 ? true : gltf__fail(r, "%s.index: missing", tw);
}

bool gltf__read_materials(gltf__reader *r)
{
    ct_gltf_t *doc = r->doc;
    ct_gltf_material_t *mats =
        formats__alloc_array(&r->arena, doc->num_materials + 1u, sizeof *mats);
    ct_gltf_texture_t *texs = formats__alloc_array(&r->arena, doc->num_textures + 1u, sizeof *texs);
    ct_gltf_image_t *imgs = formats__alloc_array(&r->arena, doc->num_images + 1u, sizeof *imgs);
    if (!mats || !texs || !imgs)
        return gltf__nomem(r, "materials");
    doc->materials = mats, doc->textures = texs, doc->images = imgs;
    uint32_t i = 0;
    for (const cJSON *j = top(r, "images") ? top(r, "images")->child : NULL; j; j = j->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "images[%u]", i);
        ct_gltf_image_t *im = &imgs[i];
        int32_t view;
        const char *uri;
        if (!cJSON_IsObject(j))
            return gltf__fail(r, "%s: expected an object", where);
        if (!gltf__string(r, j, "name", where, "", &im->name) ||
            !gltf__string(r, j, "mimeType", where, "", &im->mime_type) ||
            !gltf__string(r, j, "uri", where, NULL, &uri) ||
            !gltf__index(r, j, "bufferView", where, r->num_views, "buffer views", &view))
            return false;
        if ((uri != NULL) == (view >= 0))
            return gltf__fail(r, "%s: needs exactly one of uri and bufferView", where);
        if (view >= 0) {
            const gltf__view *v = &r->views[view];
            im->data = r->buffer_data[v->buffer] + v->offset;
            im->size = v->length;
        } else {
            char uw[GLTF_WHERE];
            gltf__where(uw, "%s.uri", where);
            if (!gltf__read_uri(r, uri, uw, &im->data, &im->size,
                                strncmp(uri, "data:", 5) ? &im->uri : NULL))
                return false;
        }
    }
    i = 0;
    for (const cJSON *j = top(r, "textures") ? top(r, "textures")->child : NULL; j;
         j = j->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "textures[%u]", i);
        int32_t sampler;
        if (!cJSON_IsObject(j))
            return gltf__fail(r, "%s: expected an object", where);
        if (!gltf__index(r, j, "source", where, doc->num_images, "images", &texs[i].image) ||
            !gltf__index(r, j, "sampler", where, r->num_samplers, "samplers", &sampler))
            return false;
    }
    i = 0;
    for (const cJSON *j = top(r, "materials") ? top(r, "materials")->child : NULL; j;
         j = j->next, i++) {
        char where[GLTF_WHERE], pw[GLTF_WHERE];
        gltf__where(where, "materials[%u]", i);
        gltf__where(pw, "%s.pbrMetallicRoughness", where);
        ct_gltf_material_t *m = &mats[i];
        const cJSON *pbr, *ds = gltf__member(j, "doubleSided");
        int32_t other;
        if (!cJSON_IsObject(j))
            return gltf__fail(r, "%s: expected an object", where);
        m->base_color[0] = m->base_color[1] = m->base_color[2] = m->base_color[3] = 1;
        if (!gltf__string(r, j, "name", where, "", &m->name) ||
            !gltf__object(r, j, "pbrMetallicRoughness", where, &pbr) ||
            !gltf__numbers(r, pbr, "baseColorFactor", pw, 4, m->base_color, NULL) ||
            !texture_info(r, pbr, "baseColorTexture", pw, &m->base_color_texture, NULL) ||
            !texture_info(r, pbr, "metallicRoughnessTexture", pw, &other, NULL) ||
            !gltf__number(r, pbr, "metallicFactor", pw, 1, 0, 1, &m->metallic) ||
            !gltf__number(r, pbr, "roughnessFactor", pw, 1, 0, 1, &m->roughness) ||
            !texture_info(r, j, "normalTexture", where, &m->normal_texture, &m->normal_scale) ||
            !texture_info(r, j, "occlusionTexture", where, &other, NULL) ||
            !texture_info(r, j, "emissiveTexture", where, &other, NULL))
            return false;
        if (m->normal_texture < 0)
            m->normal_scale = 1;
        for (int k = 0; k < 4; k++)
            if (m->base_color[k] < 0 || m->base_color[k] > 1)
                return gltf__fail(r, "%s.baseColorFactor[%d]: %g is outside 0..1", pw, k,
                                  m->base_color[k]);
        if (ds && !cJSON_IsBool(ds))
            return gltf__fail(r, "%s.doubleSided: expected a boolean", where);
        m->double_sided = cJSON_IsTrue(ds);
    }
    return true;
}

/* ---- skins ----------------------------------------------------------------------------------- */

bool gltf__read_skins(gltf__reader *r)
{
    ct_gltf_t *doc = r->doc;
    ct_gltf_skin_t *skins = formats__alloc_array(&r->arena, doc->num_skins + 1u, sizeof *skins);
    if (!skins)
        return gltf__nomem(r, "skins");
    doc->skins = skins;
    uint32_t i = 0;
    for (const cJSON *j = top(r, "skins") ? top(r, "skins")->child : NULL; j; j = j->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "skins[%u]", i);
        ct_gltf_skin_t *s = &skins[i];
        const cJSON *joints;
        int32_t ibm;
        if (!cJSON_IsObject(j))
            return gltf__fail(r, "%s: expected an object", where);
        if (!gltf__string(r, j, "name", where, "", &s->name) ||
            !gltf__array(r, j, "joints", where, &joints) ||
            !gltf__index(r, j, "skeleton", where, doc->num_nodes, "nodes", &s->skeleton) ||
            !gltf__index(r, j, "inverseBindMatrices", where, r->num_accessors, "accessors", &ibm))
            return false;
        s->num_joints = joints ? (uint32_t)cJSON_GetArraySize(joints) : 0;
        if (!s->num_joints)
            return gltf__fail(r, "%s.joints: missing or empty", where);
        uint32_t *list = formats__alloc_array(&r->arena, s->num_joints, sizeof *list);
        float *m = formats__alloc_array(&r->arena, (size_t)s->num_joints * 16, sizeof *m);
        if (!list || !m)
            return gltf__nomem(r, where);
        uint32_t k = 0;
        for (const cJSON *e = joints->child; e; e = e->next, k++) {
            const double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (!(d >= 0 && d < doc->num_nodes && d == floor(d)))
                return gltf__fail(r, "%s.joints[%u]: not a node index below %u", where, k,
                                  doc->num_nodes);
            list[k] = (uint32_t)d;
            m[16 * k] = m[16 * k + 5] = m[16 * k + 10] = m[16 * k + 15] = 1;
        }
        if (ibm >= 0) {
            const gltf__accessor *a = &r->accessors[ibm];
            float *f;
            char iw[GLTF_WHERE];
            gltf__where(iw, "%s.inverseBindMatrices", where);
            if (a->components != 16 || a->rows != 4 || a->component_type != 5126)
                return gltf__fail(r, "%s: accessors[%d] must be float MAT4", iw, ibm);
            if (a->count < s->num_joints)
                return gltf__fail(r, "%s: accessors[%d] has %u matrices for %u joints", iw, ibm,
                                  a->count, s->num_joints);
            if (!gltf__decode_floats(r, (uint32_t)ibm, iw, &f))
                return false;
            memcpy(m, f, sizeof *m * 16 * s->num_joints);
        }
        s->joints = list;
        s->inverse_bind_matrices = m;
    }
    return true;
}
