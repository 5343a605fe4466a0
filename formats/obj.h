/*
 * obj.h: the one Wavefront OBJ reader (positions, normals, texture coordinates, faces).
 *
 * Reads `v`, `vn`, `vt` and `f` lines; polygons are fanned into triangles; face corners may be
 * `v`, `v/vt`, `v//vn` or `v/vt/vn`, with negative (relative) indices. Other statements (o, g, s,
 * usemtl, mtllib, l, p, comments) are skipped. Corners that share position, texture coordinate
 * and normal become one vertex. A file without normals gets smooth ones (area-weighted face
 * normals summed per vertex), and `has_normals` says it had none of its own.
 *
 * Every error names the file and line: a bad number, an index out of range or zero, a face with
 * fewer than three corners, a non-finite value, or a file past the limits below. Nothing is read
 * outside `text[0, len)`; the text need not end in NUL.
 *
 * Kernel-free: it allocates through the allocator it is given. Thread-safe (no shared state).
 */
#ifndef FORMATS_OBJ_H
#define FORMATS_OBJ_H

#include "ct_types.h"

#define OBJ_MAX_VERTICES (1u << 24)
#define OBJ_MAX_INDICES (1u << 26)

typedef struct obj_mesh_t {
    float *positions; /* 3 per vertex */
    float *normals;   /* 3 per vertex */
    float *uvs;       /* 2 per vertex (0 where the file gave none) */
    uint32_t num_vertices;
    uint32_t *indices; /* 3 per triangle */
    uint32_t num_indices;
    bool has_normals;
} obj_mesh_t;

/* Parses `len` bytes of OBJ text; `name` only names it in messages. 0 and *out filled, or a
 * negative ct_error with "name:line: what" in err. */
int obj_read(const char *text, size_t len, const char *name, ct_allocator_t *a, obj_mesh_t *out,
             char *err, size_t err_size);
/* Frees what obj_read filled in. Accepts a zeroed mesh. */
void obj_free(obj_mesh_t *m, ct_allocator_t *a);

#endif
