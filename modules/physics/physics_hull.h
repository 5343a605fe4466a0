/*
 * physics_hull.h: convex hulls (v5), shared by the files that build, collide and query them.
 *
 * A hull is built once from its points (physics__hull_build) into a fixed-size block: its corners
 * about the centre of mass, its faces as planes with their corners in turn round the outward
 * normal, and its edges with the two faces that meet there (what the separating-axis test of two
 * polytopes needs to skip edge pairs that cannot separate them). Built, it never changes, so the
 * bodies of one shape share one block (physics__bodies_hull): a game places many of the same
 * rock, and one block stays in the cache where a copy each missed it at every contact.
 */
#ifndef PHYSICS_HULL_H
#define PHYSICS_HULL_H

#include "physics_internal.h"

#include <stdatomic.h>
#include <stddef.h>

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
    /* Past the shape, so the shape's bytes compare as one block (physics__hull_build zeroes every
     * byte first, padding and unused slots too): the bookkeeping of the bodies that share it. */
    uint32_t users; /* bodies using it (physics_bodies.c); 0 when built */
    uint64_t key;   /* its key in the bodies' registry, a hash of the shape's bytes */
};

/* The bytes of a hull that make its shape: the whole block before its bookkeeping. */
#define PHYSICS_HULL_SHAPE_BYTES offsetof(physics__hull, users)

/* Builds the hull of points[0 .. count - 1] into *h. NULL, or why the points are refused (a
 * static string, or `reason` filled when it names points). */
const char *physics__hull_build(physics__hull *h, const float *points, uint32_t count, char *reason,
                                size_t reason_size);
/* The same by testing every triple of points for a face plane (as the builder did before a quick
 * hull of triangles named the triples worth testing; still its fallback when those triangles
 * fail): the reference the tests hold physics__hull_build to, bit for bit. Slow (a millisecond
 * or more for 64 points). */
const char *physics__hull_build_every_triple(physics__hull *h, const float *points, uint32_t count,
                                             char *reason, size_t reason_size);

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
    bool flat; /* a polygon (a mesh's triangle): its two faces are its front and back */
    /* A box: its axes and half sizes, so its extent along a direction costs three products
     * (the SAT of a mesh's triangles asks it along a dozen axes a triangle). */
    bool box;
    physics__v3 axis[3];
    float h[3];
} physics__poly;

/* m: a shape that lies this much past the margin in front of a plane that the other shape lies
 * behind is skipped before the tests that would measure it (and find nothing: they measure the
 * same distance, rounded another way; a millimetre is far more than that rounding at 1e5 m). */
#define PHYSICS_PLANE_SLACK 1e-3f

/* Body i (a hull or a box) as a polytope in the world. */
void physics__poly_of(const physics__bodies *b, uint32_t i, physics__poly *p);
/* The manifold of two polytopes, normal from a to b (the separating-axis test and face clip). */
void physics__poly_manifold(const physics__poly *a, const physics__poly *b, float margin,
                            bool prefer_b, physics__manifold_out *m);
/* A capsule apart from a box or hull lies on a face (two points, clipped) when the way from the
 * solid to its segment's nearest point is within this cosine of the face's normal (Box3D's: 3.6
 * degrees). */
#define PHYSICS_CAPSULE_FACE 0.998f
/* The t in [0, 1] where a convex function of t, given by its slope, is least: halving [0, 1] on
 * the slope's sign (24 times: to 1e-7 of the range), or the first t where the slope is 0 (or not
 * a number: a slope may end the search so, its context saying why). A capsule's segment's point
 * nearest a box or hull (the slope of half the squared distance). */
float physics__segment_nearest_t(float (*slope)(void *ctx, float t), void *ctx);
/* A segment p0 p1 with radius r (a capsule; a ball when p0 == p1) against a polytope, as Box3D's
 * capsule against a hull: apart, by the segment's nearest point, or the segment clipped on the
 * face that point lies over (two points); going in, by the separating axes of segment and
 * polytope. The normal from the polytope to the segment, or the other way when flip is false
 * (the polytope is then body b). */
void physics__poly_round_manifold(const physics__poly *p, bool flip, physics__v3 p0, physics__v3 p1,
                                  float r, float margin, physics__manifold_out *m);
/* Reference face f of polytope r (its normal n, towards `in`) against the incident face of `in`:
 * the clipped points within margin, added to m (whose normal the caller sets). */
void physics__poly_faces(const physics__poly *r, uint32_t f, const physics__poly *in, physics__v3 n,
                         float margin, uint32_t id_base, physics__manifold_out *m);
/* Adds from's points to m (whose normal is set), reducing m to four whenever it fills up. */
void physics__manifold_merge(physics__manifold_out *m, const physics__manifold_out *from);
/* A sphere's or capsule's segment. */
void physics__round_segment(const physics__bodies *b, uint32_t i, physics__v3 *p0, physics__v3 *p1);
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

/* ---- Compounds (physics_compound.c) ----------------------------------------------------------
 * A compound body's children about its centre of mass, in one block the body owns. */
typedef struct physics__child {
    uint8_t shape; /* box, sphere, capsule or hull */
    physics__v3 position;
    physics__quat rotation;
    physics__v3 half; /* as a body's: box half extents, (r, half_height + r, r), a hull's bound */
    float radius;
    float bound;         /* a ball about `position` that holds it */
    physics__hull *hull; /* hulls: owned */
} physics__child;

struct physics__compound {
    uint32_t count;
    uint32_t bytes;       /* of this block, to free it */
    physics__v3 centroid; /* what was taken off the children's positions */
    physics__v3 inertia;  /* principal moments per unit mass along the body's axes */
    float bound;          /* a ball about the body's position that holds every child */
    uint32_t round;       /* its ball and capsule children (physics__compound_turn_anchor) */
    physics__child child[];
};

/* Why children[0 .. count - 1] make no compound ("children[2].radius (...)", in reason, or a
 * static string), or NULL: every check of physics__compound_build, hulls built to be checked,
 * nothing allocated. The body component checks compiled compounds with it. */
const char *physics__compound_children_error(const ct_compound_child_t *children, uint32_t count,
                                             char *reason, size_t reason_size);
/* Builds the compound of children[0 .. count - 1] from allocator a into *out. NULL, or why they
 * are refused (in reason). */
const char *physics__compound_build(ct_allocator_t *a, const ct_compound_child_t *children,
                                    uint32_t count, physics__compound **out, char *reason,
                                    size_t reason_size);
void physics__compound_free(ct_allocator_t *a, physics__compound *c);
/* The manifold of bodies i and j when either is a compound (physics__manifold's part). */
void physics__compound_manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                bool prefer_b, physics__manifold_out *m);
/* The manifolds of a compound and a mesh (physics__manifolds' part): each child's own, up to
 * max, deepest first; asked for one, physics__compound_manifold's. */
uint32_t physics__compound_mesh_manifolds(const physics__bodies *b, uint32_t i, uint32_t j,
                                          float margin, bool prefer_b, physics__manifold_out *out,
                                          uint32_t max);
/* What the compound manifold gives a sweep: the least separation of its points (INFINITY when
 * none is within margin) and its normal, measuring only the child pairs that can be deepest. */
float physics__compound_separation(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                   physics__v3 *normal);
/* Queries against a compound body's children. */
bool physics__sphere_overlaps_compound(const physics__bodies *b, uint32_t i, physics__v3 c,
                                       float r);
float physics__ray_compound(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                            physics__v3 *normal);

/* ---- Meshes and height fields (physics_mesh.c) -------------------------------------------------
 * A static mesh's triangles in the order of its tree's leaves, at most PHYSICS_MESH_LEAF a leaf. */
#define PHYSICS_MESH_LEAF 4u
typedef struct physics__mesh_node {
    physics__v3 lo, hi;
    uint32_t first; /* a leaf's first triangle; an inner node's right child (its left is next) */
    uint32_t count; /* a leaf's triangles; 0 for an inner node */
} physics__mesh_node;

/* The triangles of one mesh near one body (physics_mesh.c): every triangle whose box meets
 * [lo, hi] (mesh frame), in index order, so a body that stays inside that box finds the triangles
 * under it from the list instead of walking the tree. The list only saves the walk: the triangles
 * taken from it are the ones the walk gives, in the same order, so no contact changes. */
enum { PHYSICS_MESH_NEAR_MAX = 16 };
struct physics__mesh_near {
    physics__v3 lo, hi;
    uint32_t serial;      /* the mesh's (physics__mesh.serial); 0: no list */
    float grow;           /* how far the next list's box reaches past the body's, m */
    uint16_t count;       /* triangles in tri */
    _Atomic uint8_t busy; /* taken by the thread using or making the list */
    uint32_t tri[PHYSICS_MESH_NEAR_MAX];
};

struct physics__mesh {
    size_t bytes; /* of the block, to free it */
    /* Which mesh of its world this is, for the bodies' lists of nearby triangles (given by
     * physics__mesh_near_reserve; 0 until then). */
    uint32_t serial;
    uint32_t num_vertices, num_triangles, num_nodes;
    physics__v3 half; /* the largest |coordinate| of its vertices on each axis */
    physics__mesh_node *node;
    physics__v3 *vertex;
    physics__v3 *normal;
    uint32_t (*tri)[3];
    /* Each triangle's box (lo, hi; mesh frame), as its corners give it: a body's list of nearby
     * triangles tests them all every step, and reading them from the corners took three
     * scattered loads and the index a triangle. */
    physics__v3 (*box)[2];
    uint8_t *internal; /* bit k: edge k (corner k to k + 1) is internal (flat or a valley) */
    /* How far a contact's normal may lean from the face (the cosine): as far as its neighbours
     * across its edges do, a little more; -1 with an open edge. */
    float *cos_limit;
};

/* Builds a mesh (in one block from a) of the triangles indices[3 t .. 3 t + 2] over vertices (x y z
 * triples). NULL, or why it is refused (in reason). */
const char *physics__mesh_build(ct_allocator_t *a, const float *vertices, uint32_t num_vertices,
                                const uint32_t *indices, uint32_t num_triangles,
                                physics__mesh **out, char *reason, size_t reason_size);
void physics__mesh_free(ct_allocator_t *a, physics__mesh *m);
/* The vertices and indices of a height field (as add_height_field_body says) into *vertices and
 * *indices, allocated from a (sizes: 3 columns rows floats, 6 (columns - 1) (rows - 1) indices);
 * NULL, or why it is refused. */
const char *physics__height_field_mesh(ct_allocator_t *a, const float *heights, uint32_t columns,
                                       uint32_t rows, float cell_x, float cell_z, float **vertices,
                                       uint32_t **indices);
/* The least separation of the points of physics__manifold(b, i, j, margin, false) (INFINITY when
 * it has none), and its normal into *normal: what a sweep measures (physics_ccd.c); the same
 * values, without making the manifold of a body and a mesh. */
float physics__manifold_separation(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                   physics__v3 *normal);
/* The manifold of bodies i and j when either is a mesh: the first of physics__mesh_manifolds. */
void physics__mesh_manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                            bool prefer_b, physics__manifold_out *m);
/* The least separation of physics__mesh_manifold's points (INFINITY when it has none) and its
 * normal into *normal, without the manifold: what a sweep measures. */
float physics__mesh_least(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                          physics__v3 *normal);
/* The manifolds of bodies i and j when either is a mesh, one for each way the touched triangles
 * face (clustered by normal, deepest first), into out[0 .. max): how many were made (out[0] has
 * no points when none was; those past the made ones are not written). Asked for one, it is
 * physics__mesh_manifold's, which gathers wider. */
uint32_t physics__mesh_manifolds(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                 bool prefer_b, physics__manifold_out *out, uint32_t max);
/* The triangles one search of a body against a mesh (for its contacts, or a sweep) may meet: past
 * them it is cut, and tests the PHYSICS_MESH_DEEPEST of them that reach deepest into the body
 * instead (physics__mesh_deepest), so no step takes unbounded time however large a body is over
 * however fine a mesh. A search tests at most PHYSICS_MESH_BUDGET + PHYSICS_MESH_DEEPEST (the
 * walk that finds it is over, then the deepest), and mostly PHYSICS_MESH_DEEPEST alone: a body
 * whose box takes in much of a mesh counts first (physics_mesh.c). A 1 m board over the bunny,
 * swept with its motion, meets some 17,000 (the most of any test or benchmark); a 60 m box
 * sliding on a height field of a million triangles met 918,000 and took 173 ms a step (2.5 ms
 * with the budget). */
#define PHYSICS_MESH_BUDGET 32768u
#define PHYSICS_MESH_DEEPEST 4096u
/* What the searches tell the owner (physics__bodies.mesh_tally, from b->a while b has meshes):
 * any thread's search may write it. */
typedef struct physics__mesh_tally {
    _Atomic uint32_t most; /* the most triangles one search tested, since the bodies were made */
    /* Of the searches cut (physics_mesh.c) whose body has no mesh_told yet, the least
     * entity(body) << 32 | entity(mesh); UINT64_MAX for none. The owner tells and clears it. */
    _Atomic uint64_t cut;
} physics__mesh_tally;
/* At most max of the triangles of m whose boxes meet [lo, hi] (mesh frame): the deepest in each
 * part of it, as deep as their boxes reach into the box of half sizes `half` about `centre` along
 * axis[0 .. 2] (all in the mesh frame), into out in index order (physics_mesh_budget.c); how
 * many. */
uint32_t physics__mesh_deepest(const physics__mesh *m, physics__v3 lo, physics__v3 hi,
                               physics__v3 centre, const physics__v3 axis[3], physics__v3 half,
                               uint32_t *out, uint32_t max);
bool physics__sphere_overlaps_mesh(const physics__bodies *b, uint32_t i, physics__v3 c, float r);
float physics__ray_mesh(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal);

#endif
