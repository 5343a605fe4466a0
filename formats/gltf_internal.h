/*
 * gltf_internal.h: the glTF reader's shared state, private to formats/gltf_*.c.
 *
 * One reader lives for one ct_gltf_parse call. The first error wins: helpers return false (or
 * NULL) after writing "file: where.field: what" into the caller's buffer, and every caller
 * returns at once, so a message always names the first thing found wrong.
 */
#ifndef FORMATS_GLTF_INTERNAL_H
#define FORMATS_GLTF_INTERNAL_H

#include "formats_arena.h"
#include "gltf.h"

#include <cjson/cJSON.h>

/* Paths like "meshes[12].primitives[3].attributes" fit easily. */
#define GLTF_WHERE 160

typedef struct gltf__view {
    uint32_t buffer;
    size_t offset, length;
    uint32_t stride; /* 0: tightly packed */
} gltf__view;

typedef struct gltf__accessor {
    const uint8_t *base; /* first byte of element 0 */
    size_t stride;       /* bytes between elements */
    uint32_t count;
    uint32_t component_type; /* 5120..5126 */
    uint32_t components;     /* 1 (SCALAR) .. 16 (MAT4) */
    uint32_t rows;           /* rows of a matrix type (column padding), else components */
    bool normalized;
} gltf__accessor;

typedef struct gltf__reader {
    formats__arena arena;
    ct_gltf_t *doc;
    const char *name; /* the file, for messages */
    const char *dir;  /* where external files are read from; NULL refuses them */
    char *err;
    size_t err_size;
    const cJSON *root;
    const uint8_t *glb_bin; /* the GLB BIN chunk, or NULL */
    size_t glb_bin_size;

    uint32_t num_buffers;
    const char **files; /* doc->files, room for num_buffers */
    const uint8_t **buffer_data;
    size_t *buffer_size; /* the declared byteLength (never more than the bytes held) */
    uint32_t num_views;
    gltf__view *views;
    uint32_t num_accessors;
    gltf__accessor *accessors;
    float **decoded;         /* per accessor: its floats once decoded (primitives share them) */
    uint64_t vertices_total; /* over every primitive, checked before anything is decoded */
    uint64_t indices_total;
    uint32_t num_samplers; /* texture samplers: only counted, for index checks */
} gltf__reader;

/* ---- errors and JSON fields (gltf_json.c) ---- */

/* Writes "file: " + the message; returns false. */
bool gltf__fail(gltf__reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Formats a "where" path into out (GLTF_WHERE bytes), truncating long ones. */
void gltf__where(char *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Out of memory, named. */
bool gltf__nomem(gltf__reader *r, const char *where);

/* The member `key` of `obj`: NULL when absent. A present member of the wrong JSON type fails
 * (check r->err via the return of the typed helpers below). */
const cJSON *gltf__member(const cJSON *obj, const char *key);
/* An optional array / object member: *out NULL when absent; false when present with another type. */
bool gltf__array(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                 const cJSON **out);
bool gltf__object(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                  const cJSON **out);
/* A non-negative integer member no larger than max; `fallback` when absent unless required. */
bool gltf__uint(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                bool required, uint32_t fallback, uint32_t max, uint32_t *out);
/* An optional index member below `limit` (naming `what` it indexes): -1 when absent. */
bool gltf__index(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                 uint32_t limit, const char *what, int32_t *out);
/* A finite number member within [lo, hi]; fallback when absent. */
bool gltf__number(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                  float fallback, float lo, float hi, float *out);
/* An optional array of exactly n finite numbers; out untouched when absent. *present tells. */
bool gltf__numbers(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                   uint32_t n, float *out, bool *present);
/* An optional string member copied into the arena (fallback when absent, may be NULL). */
bool gltf__string(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                  const char *fallback, const char **out);
/* A top-level array's element count (0 when absent); false when it is not an array or too long. */
bool gltf__top_count(gltf__reader *r, const char *key, uint32_t *out);
/* Checks every `name` is a string and every `extensions` an object of objects, everywhere. */
bool gltf__check_generic_fields(gltf__reader *r);

/* ---- buffers, views, accessors (gltf_buffers.c) ---- */

bool gltf__read_buffers(gltf__reader *r);
bool gltf__read_views(gltf__reader *r);
bool gltf__read_accessors(gltf__reader *r);
/* Resolves a uri (data: or relative file) into bytes; file uris are read from r->dir. */
bool gltf__read_uri(gltf__reader *r, const char *uri, const char *where, const uint8_t **data,
                    size_t *size, const char **path_out);
/* Component value k of element i as a float (normalised integers mapped as the spec says). */
float gltf__component(const gltf__accessor *a, uint32_t i, uint32_t k);
/* Element i, component k of an unsigned integer accessor (unsigned byte, short or int), exact:
 * indices and joints are never read through float (2^24 and above would round, and a float
 * past the integer's range converts to anything). */
uint32_t gltf__component_uint(const gltf__accessor *a, uint32_t i, uint32_t k);
/* Decodes accessor `index` into count * components floats, refusing non-finite values. */
bool gltf__decode_floats(gltf__reader *r, uint32_t index, const char *where, float **out);
/* Whether accessor `a` is floats or normalised integers of one of the allowed types. */
bool gltf__float_like(const gltf__accessor *a, bool allow_signed);

/* ---- nodes, meshes, materials, skins (gltf_scene.c), animations (gltf_animation.c) ---- */

bool gltf__read_nodes(gltf__reader *r);
bool gltf__read_scene(gltf__reader *r);
bool gltf__read_meshes(gltf__reader *r);
bool gltf__read_materials(gltf__reader *r);
bool gltf__read_skins(gltf__reader *r);
bool gltf__read_animations(gltf__reader *r);

#endif
