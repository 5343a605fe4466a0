/*
 * physics_mesh_resource.h: the resource type "collision_mesh" (physics_mesh_resource.c): the
 * triangles of a project's mesh resource, which a level's or unit's static body names as its
 * shape (physics_component.c).
 */
#ifndef PHYSICS_MESH_RESOURCE_H
#define PHYSICS_MESH_RESOURCE_H

#include "physics_internal.h"

#define PHYSICS_MESH_RESOURCE_TYPE "collision_mesh"
/* Room for a collision mesh's name in a compiled body (NUL included). */
#define PHYSICS_MESH_NAME_SIZE 64u

/* A loaded collision mesh: what add_mesh_body takes. One block of `bytes`. */
typedef struct physics__mesh_res {
    size_t bytes;
    uint32_t num_vertices, num_triangles;
    float *vertices;   /* x y z per vertex */
    uint32_t *indices; /* three per triangle, each below num_vertices */
} physics__mesh_res;

/* Checks a compiled collision mesh (the blob's payload): NULL and the counts, or what is wrong
 * (a static string). Every count and index is checked, so nothing is read past the payload. */
const char *physics__mesh_res_check(const void *payload, uint64_t size, uint32_t *num_vertices,
                                    uint32_t *num_triangles);

int physics__mesh_res_register(void);
bool physics__mesh_res_rebind(void);
void physics__mesh_res_unregister(void);

#endif
