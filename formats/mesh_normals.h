/* mesh_normals.h: smooth vertex normals for meshes whose file gives none (OBJ, glTF). */
#ifndef FORMATS_MESH_NORMALS_H
#define FORMATS_MESH_NORMALS_H

#include "ct_types.h"

/* normals[3 * v] = the normalised sum of the (area-weighted) normals of the triangles using v;
 * (0, 1, 0) for a vertex no triangle with an area uses. Indices must be < num_vertices. */
void mesh_smooth_normals(const float *positions, uint32_t num_vertices, const uint32_t *indices,
                         uint32_t num_indices, float *normals);

#endif
