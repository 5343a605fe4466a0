/* mesh_normals.c: see mesh_normals.h. */
#include "mesh_normals.h"

#include <math.h>
#include <string.h>

void mesh_smooth_normals(const float *positions, uint32_t num_vertices, const uint32_t *indices,
                         uint32_t num_indices, float *normals)
{
    memset(normals, 0, (size_t)num_vertices * 3 * sizeof *normals);
    for (uint32_t t = 0; t + 2 < num_indices; t += 3) {
        const float *a = &positions[3 * indices[t]], *b = &positions[3 * indices[t + 1]],
                    *c = &positions[3 * indices[t + 2]];
        const float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const float v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const float n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                            u[0] * v[1] - u[1] * v[0]};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                normals[3 * indices[t + k] + j] += n[j];
    }
    for (uint32_t i = 0; i < num_vertices; i++) {
        float *n = &normals[3 * i];
        const float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0.0f && isfinite(len)) {
            n[0] /= len, n[1] /= len, n[2] /= len;
        } else {
            n[0] = 0, n[1] = 1, n[2] = 0;
        }
    }
}
