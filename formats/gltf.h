/*
 * gltf.h: the engine's one glTF 2.0 reader, shared by the resource compilers of every module
 * (animation reads skeletons and clips, rendering reads meshes and materials).
 *
 * What it reads. `.gltf` (JSON) whose buffers are `.bin` files beside it or base64 `data:` URIs,
 * and `.glb` (binary container: a JSON chunk and an optional BIN chunk that is buffer 0).
 * The JSON goes through cJSON. Everything is validated while loading, so a document you get back
 * is safe to walk without further checks:
 *   - every index (node, mesh, skin, accessor, buffer view, buffer, material, texture, image,
 *     sampler) is in range; the nodes form a forest (no cycles, no node with two parents);
 *   - every accessor fits its buffer view and every view its buffer, stride and alignment
 *     included, with overflow-safe arithmetic; floats are finite;
 *   - vertex indices (read as integers, never through float) are below the primitive's vertex
 *     count; all attributes of a primitive have the same count; attribute types are the ones the
 *     specification allows;
 *   - the primitives hold at most GLTF_MAX_VERTICES vertices and GLTF_MAX_INDICES indices in
 *     all, checked before anything is decoded; primitives naming one accessor share its decoded
 *     array (so memory follows the file's data, never the number of references to it);
 *   - animation inputs are finite and strictly increasing, outputs have the count and type their
 *     path and interpolation need;
 *   - every field has the JSON type the specification gives it ("name" a string, indices
 *     non-negative integers, `extensions` objects of objects); sparse accessors and external
 *     buffers outside the document's folder (absolute paths, `..`) are refused.
 * A bad file is refused with one message naming the file and the field, e.g.
 *   "IndexOutOfRange.gltf: meshes[0].primitives[0].indices: element 35 is 255, but the
 *    primitive has 24 vertices"
 * and nothing is leaked. No input makes the reader crash, hang or read out of bounds (it is
 * fuzzed, tests/formats).
 *
 * What you get. Decoded, ready-to-use arrays rather than raw accessors: meshes as triangle lists
 * (strips and fans are converted) with float positions, normals, uvs and 32-bit indices,
 * materials with their base colour, skins with inverse bind matrices, node poses as
 * translation/rotation/scale, animation samplers as float keys. Matrices are column-major 4x4,
 * as in glTF. Quaternions are (x, y, z, w).
 *
 * Example (a renderer's mesh compiler):
 *
 *     char err[256];
 *     ct_gltf_t *doc = ct_gltf_load_file("models/box.gltf", NULL, err, sizeof err);
 *     if (!doc) { report(err); return; }
 *     for (uint32_t m = 0; m < doc->num_meshes; m++)
 *         for (uint32_t p = 0; p < doc->meshes[m].num_primitives; p++) {
 *             const ct_gltf_primitive_t *prim = &doc->meshes[m].primitives[p];
 *             upload(prim->positions, prim->normals, prim->uvs, prim->num_vertices,
 *                    prim->indices, prim->num_indices,
 *                    prim->material >= 0 ? doc->materials[prim->material].base_color : white);
 *         }
 *     ct_gltf_free(doc);
 *
 * Threads: any; a document is read-only once returned.
 */
#ifndef CT_FORMATS_GLTF_H
#define CT_FORMATS_GLTF_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GLTF_MAX_VERTICES (1u << 24) /* over every primitive of a document (like OBJ's limit) */
#define GLTF_MAX_INDICES (1u << 26)

/* A node: its local pose and what it holds. A node given a `matrix` in the file has it decomposed
 * into translation/rotation/scale (has_matrix true, the matrix kept as well). */
typedef struct ct_gltf_node_t {
    const char *name; /* "" when the file gives none */
    int32_t parent;   /* node index, -1 for a root */
    int32_t mesh;     /* -1: none */
    int32_t skin;     /* -1: none */
    const uint32_t *children;
    uint32_t num_children;
    float translation[3];
    float rotation[4]; /* unit quaternion x y z w */
    float scale[3];
    bool has_matrix;
    float matrix[16]; /* column-major; the TRS above composed when the file gave TRS */
} ct_gltf_node_t;

/* Primitive topologies after reading: triangles, or the lines and points the file had. */
typedef enum ct_gltf_mode {
    CT_GLTF_POINTS = 0,
    CT_GLTF_LINES = 1,
    CT_GLTF_TRIANGLES = 4,
} ct_gltf_mode;

/* One draw of a mesh, decoded. Arrays absent from the file are NULL. */
typedef struct ct_gltf_primitive_t {
    ct_gltf_mode mode; /* line loops/strips become lines, strips/fans triangles */
    uint32_t num_vertices;
    const float *positions; /* 3 per vertex; never NULL */
    const float *normals;   /* 3 per vertex */
    const float *uvs;       /* 2 per vertex (TEXCOORD_0; normalised integers become floats) */
    const uint16_t *joints; /* 4 per vertex (JOINTS_0: indices into the node's skin joints) */
    const float *weights;   /* 4 per vertex (WEIGHTS_0) */
    /* Indices, each < num_vertices; the file's, or 0..num_vertices-1 when it has none. */
    const uint32_t *indices;
    uint32_t num_indices;
    int32_t material; /* -1: the default material (white, metallic 1, roughness 1) */
    const float
        *tangents; /* 4 per vertex (TANGENT: xyz, then w = +1 or -1, the bitangent's side) */
} ct_gltf_primitive_t;

typedef struct ct_gltf_mesh_t {
    const char *name;
    const ct_gltf_primitive_t *primitives;
    uint32_t num_primitives;
} ct_gltf_mesh_t;

typedef struct ct_gltf_material_t {
    const char *name;
    float base_color[4];        /* pbrMetallicRoughness.baseColorFactor, default 1 1 1 1 */
    int32_t base_color_texture; /* texture index, -1: none */
    float metallic, roughness;  /* factors, default 1 */
    int32_t normal_texture;     /* texture index, -1: none */
    float normal_scale;         /* default 1 */
    bool double_sided;
} ct_gltf_material_t;

typedef struct ct_gltf_texture_t {
    int32_t image; /* -1: none */
} ct_gltf_texture_t;

/* An image: an external file (uri, relative to the document, percent-decoded and checked to stay
 * in its folder) or bytes inside the document (data URI or buffer view). */
typedef struct ct_gltf_image_t {
    const char *name;
    const char *uri;       /* NULL when the bytes are inside */
    const char *mime_type; /* "" when not given */
    const uint8_t *data;
    size_t size;
} ct_gltf_image_t;

typedef struct ct_gltf_skin_t {
    const char *name;
    const uint32_t *joints; /* node indices */
    uint32_t num_joints;
    const float *inverse_bind_matrices; /* 16 per joint, column-major; identities when absent */
    int32_t skeleton;                   /* node index, -1 when not given */
} ct_gltf_skin_t;

typedef enum ct_gltf_interpolation {
    CT_GLTF_LINEAR = 0,
    CT_GLTF_STEP = 1,
    CT_GLTF_CUBICSPLINE = 2,
} ct_gltf_interpolation;

typedef enum ct_gltf_path {
    CT_GLTF_TRANSLATION = 0,
    CT_GLTF_ROTATION = 1,
    CT_GLTF_SCALE = 2,
    CT_GLTF_WEIGHTS = 3,
} ct_gltf_path;

/* A sampler: num_keys strictly increasing times, and per key `components` floats (3 for
 * translation and scale, 4 for rotation, the morph target count for weights). CUBICSPLINE keys
 * hold three values each, in the file's order: in-tangent, value, out-tangent. */
typedef struct ct_gltf_sampler_t {
    ct_gltf_interpolation interpolation;
    uint32_t num_keys;
    uint32_t components;
    const float *times;
    const float *values; /* num_keys * components, times 3 for CUBICSPLINE */
} ct_gltf_sampler_t;

typedef struct ct_gltf_channel_t {
    uint32_t sampler; /* index into the animation's samplers */
    uint32_t node;
    ct_gltf_path path;
} ct_gltf_channel_t;

typedef struct ct_gltf_animation_t {
    const char *name;
    const ct_gltf_channel_t *channels;
    uint32_t num_channels;
    const ct_gltf_sampler_t *samplers;
    uint32_t num_samplers;
    float duration; /* the last key time over all samplers */
} ct_gltf_animation_t;

typedef struct ct_gltf_t {
    const char *name; /* the file name given to the reader, for messages */
    const ct_gltf_node_t *nodes;
    uint32_t num_nodes;
    const ct_gltf_mesh_t *meshes;
    uint32_t num_meshes;
    const ct_gltf_material_t *materials;
    uint32_t num_materials;
    const ct_gltf_texture_t *textures;
    uint32_t num_textures;
    const ct_gltf_image_t *images;
    uint32_t num_images;
    const ct_gltf_skin_t *skins;
    uint32_t num_skins;
    const ct_gltf_animation_t *animations;
    uint32_t num_animations;
    /* The nodes of the default scene (`scene`, else scenes[0]); all roots when there is none. */
    const uint32_t *scene_nodes;
    uint32_t num_scene_nodes;
    /* The external files the document was read from besides itself (its .bin buffers), each
     * once, as '/'-separated paths relative to the document's folder without '.' or empty
     * segments: what a resource compiler declares it depends on. Images are not read, so their
     * files are not here (see ct_gltf_image_t.uri). */
    const char *const *files;
    uint32_t num_files;
} ct_gltf_t;

/*
 * Reads a `.gltf` or `.glb` file (told apart by the content, not the name); external buffers are
 * read from the file's folder. `a` is the allocator the document is made from (NULL: malloc).
 * Returns the document (free it with ct_gltf_free), or NULL with "file: field: what" in err.
 */
ct_gltf_t *ct_gltf_load_file(const char *path, ct_allocator_t *a, char *err, size_t err_size);

/*
 * Reads a document already in memory. `name` names it in messages; external buffer files are read
 * from the folder `dir`, or refused when dir is NULL (data URIs and GLB chunks always work).
 */
ct_gltf_t *ct_gltf_parse(const void *bytes, size_t size, const char *name, const char *dir,
                         ct_allocator_t *a, char *err, size_t err_size);

/*
 * The path of doc->files[i] (`file`) in the terms `document` was named in (a project-relative
 * "models/box.gltf" gives "models/box.bin"): the document's folder joined with the file. For
 * resource compilers declaring what they were built from. False when it does not fit in out.
 */
bool ct_gltf_file_path(const char *document, const char *file, char *out, size_t out_size);

/* Frees a document. Accepts NULL. */
void ct_gltf_free(ct_gltf_t *doc);

/*
 * Evaluates a sampler at time t (clamped to its keys) into out[components], following its
 * interpolation: LINEAR lerps (rotations, components == 4 with `path` CT_GLTF_ROTATION, are
 * slerped along the shorter arc), STEP holds, CUBICSPLINE is the Hermite spline of the
 * specification. Rotations come out normalised.
 */
void ct_gltf_sample(const ct_gltf_sampler_t *s, ct_gltf_path path, float t, float *out);

#ifdef __cplusplus
}
#endif
#endif
