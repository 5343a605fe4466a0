/*
 * physics_hull.h: convex hulls (v5), shared by the files that build, collide and query them.
 *
 * A hull is built once from its points (physics__hull_build) into a fixed-size block the body owns:
 * its corners about the centre of mass, its faces as planes with their corners in turn round the
 * outward normal, and its edges with the two faces that meet there (what the separating-axis test
 * of two polytopes needs to skip edge pairs that cannot separate them).
 */
#ifndef PHYSICS_HULL_H
#define PHYSICS_HULL_H

#include "physics_internal.h"

#define PHYSICS_HULL_MAX_VERTICES CT_PHYSICS_MAX_HULL_POINTS
/* Euler's bounds for a convex polyhedron of V corners: at most 2V - 4 faces and 3V - 6 edges. */
#define PHYSICS_HULL_MAX_FACES (2u * PHYSICS_HULL_MAX_VERTICES - 4u)
#define PHYSICS_HULL_MAX_EDGES (3u * PHYSICS_HULL_MAX_VERTICES - 6u)

typedef struct physics__hull_edge {
    uint8_t v[2]; /* its corners */
    uint8_t f[2]; /* the faces on either side */
} physics__hull_edge;

struct physics__hull {
    uint32_t num_vertices, num_faces, num_edges;
    float volume;
    physics__v3 half;     /* the largest |coordinate| of the corners on each axis */
    physics__v3 inertia;  /* principal moments per unit mass along the body's axes */
    physics__v3 centroid; /* what was taken off the points given (their volume's centroid) */
    physics__v3 vertex[PHYSICS_HULL_MAX_VERTICES]; /* body frame, about the centre of mass */
    physics__v3 normal[PHYSICS_HULL_MAX_FACES];    /* outward, unit */
    float offset[PHYSICS_HULL_MAX_FACES];          /* the plane dot(normal, x) = offset */
    uint16_t face_first[PHYSICS_HULL_MAX_FACES];   /* into face_index */
    uint8_t face_count[PHYSICS_HULL_MAX_FACES];
    uint8_t face_index[2u * PHYSICS_HULL_MAX_EDGES]; /* each face's corners, counter-clockwise */
    physics__hull_edge edge[PHYSICS_HULL_MAX_EDGES];
};

/* Builds the hull of points[0 .. count - 1] into *h. NULL, or why the points are refused (a
 * static string, or `reason` filled when it names points). */
const char *physics__hull_build(physics__hull *h, const float *points, uint32_t count, char *reason,
                                size_t reason_size);

/* A polytope placed in the world: a hull's or a box's corners and planes in world space, with
 * the topology of its shape. */
typedef struct physics__poly {
    uint32_t nv, nf, ne;
    physics__v3 c; /* centre of mass */
    physics__v3 v[PHYSICS_HULL_MAX_VERTICES];
    physics__v3 n[PHYSICS_HULL_MAX_FACES];
    float d[PHYSICS_HULL_MAX_FACES];
    const uint16_t *face_first;
    const uint8_t *face_count, *face_index;
    const physics__hull_edge *edge;
} physics__poly;

/* Body i (a hull or a box) as a polytope in the world. */
void physics__poly_of(const physics__bodies *b, uint32_t i, physics__poly *p);
/* The manifold of bodies i and j when either is a hull (physics__manifold's part). */
void physics__hull_manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                            bool prefer_b, physics__manifold_out *m);
/* The point of polytope p nearest to x (x itself when inside); *sep gets the signed distance
 * (negative inside: minus the depth under the nearest face) and *n the direction from the
 * polytope towards x (the nearest face's normal when inside). */
physics__v3 physics__poly_closest(const physics__poly *p, physics__v3 x, float *sep,
                                  physics__v3 *n);
/* A ray (origin o, unit direction d) against body i's hull: the distance or INFINITY (0 from
 * inside, facing back along the ray). */
float physics__ray_hull(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal);

#endif
