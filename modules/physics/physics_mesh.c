/* physics_mesh.c: static triangle meshes and height fields (v5).
 *
 * A mesh keeps its triangles in the order of the leaves of a bounding-volume hierarchy (median
 * splits on the longest axis, at most PHYSICS_MESH_LEAF triangles a leaf), so a body finds the
 * triangles under it by walking the tree with its box. Each triangle collides as a one-sided
 * polygon (a body behind it is not pushed through to its front) through the polytope tests of
 * hulls, and the triangles' manifolds are merged as a compound's children's are.
 *
 * Internal edges. An edge two triangles share, where the surface is flat or bends up (a valley),
 * is no edge of the surface a body can meet: a box sliding over a tiled floor must feel the floor,
 * not the seams between its tiles, whose edge normals would kick it up. So a triangle whose three
 * edges are all internal collides along its face normal only (the body's face clipped to the
 * triangle), and a ball or capsule only where it lies over the triangle (its neighbour takes the
 * rest). Triangles with an open or convex edge (a ridge, a border) use the full test. A height
 * field is a mesh of two triangles per cell. */
#include "physics_hull.h"
#include "physics_lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The neighbour's far corner may lie this far under the plane (times the edge's scale) for the
 * edge to count as flat: rounding of a flat floor's vertices. */
#define MESH_FLAT 1e-4f
/* One manifold for a body and mesh (physics__mesh_manifold: queries, sensors, sweeps, the
 * character mover) gathers the triangles within about 25 degrees of the deepest one's normal. */
#define MESH_SAME_WAY 0.906f
/* Several (the rigid step's contacts, physics__mesh_manifolds) gather them within about 3
 * degrees, each along the mean of its triangles' normals (Jolt merges a pair's manifolds within
 * 5). A scanned surface's triangles lean a few degrees each way: a cube resting on them with the
 * deepest one's normal for all rocked from corner to corner (7 cm/s on the bunny's back), the
 * normal jumping with the deepest triangle; 25 degrees with the mean let a body of
 * convex_vs_mesh through its wavy floor. At 15, a 1 m board on a smooth swell (slopes up to 8.5
 * degrees) had the triangles under it, leaning up to 8 degrees apart, in one way: reduced to four
 * points along their mean normal, the manifold kept corners a centimetre over the surface for the
 * spread and dropped the points it rested on, and the board rocked on two points, 1 cm in, for
 * ever (11 of 40 seeded random drops; test_physics_mesh_rest has some). 5 degrees left 4 of
 * them rocking, 3 none. */
#define MESH_CLUSTER_WAY 0.9986f
/* Seams between meshes. A triangle with an open edge (a border of its mesh) meets a body with the
 * full test, whose normal may be the edge's or the body's own side's. Where another mesh (or
 * height field) continues this one in the same plane, that edge is a seam: a box sliding from
 * one onto the other met the border edge of the second with the speculative normal of its own
 * front face, stopped at the seam and was thrown back (0.7 m/s from 3 m/s). Nothing in one mesh
 * says whether another continues it, so a body whose lowest point lies within this (m) of the
 * triangle's plane, over or under it, meets the triangle along its face only (over it, or not
 * at all): it slides on at the surface's level, as over an internal edge. A body lower than that
 * (beside a ledge, or hitting it) gets the full test; one landing on a mesh's outer rim is
 * caught by it this much later. */
#define MESH_SEAM_DEPTH 0.005f
/* A cluster of more than four points is reduced to four among those within this (m) of its
 * deepest: the four spanning the most area among all of them took points of a ridge's sides up to
 * 2 cm under a board lying across it, far out, and left out an end of the ridge's top it rested
 * on; found anew each step (its far end coming down to the floor), the board rolled from one end
 * of the ridge to the other and sank 1 cm into it. */
#define MESH_REDUCE_OVER 0.01f

typedef struct mesh__edge_key {
    uint64_t key; /* lower vertex << 32 | higher */
    uint32_t tri, k;
} mesh__edge_key;

/* A vertex by its position, to find the vertices that lie on one spot. */
typedef struct mesh__spot {
    float x, y, z;
    uint32_t index;
} mesh__spot;

static int mesh__cmp_spot(const void *x, const void *y)
{
    const mesh__spot *a = x, *b = y;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static int mesh__cmp_edge(const void *x, const void *y)
{
    const mesh__edge_key *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

void physics__mesh_free(ct_allocator_t *a, physics__mesh *m)
{
    if (m)
        ct_free(a, m, m->bytes);
}

/* Sorts tri[first .. first + count) into the tree below node `at`; returns the next free node. */
static uint32_t mesh__build_node(physics__mesh *m, const physics__v3 *centre, uint32_t *order,
                                 uint32_t at, uint32_t first, uint32_t count)
{
    physics__mesh_node *n = &m->node[at];
    physics__v3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    physics__v3 clo = lo, chi = hi;
    for (uint32_t k = first; k < first + count; k++) {
        const uint32_t *t = m->tri[order[k]];
        for (int c = 0; c < 3; c++) {
            lo = v3_min(lo, m->vertex[t[c]]);
            hi = v3_max(hi, m->vertex[t[c]]);
        }
        clo = v3_min(clo, centre[order[k]]);
        chi = v3_max(chi, centre[order[k]]);
    }
    n->lo = lo, n->hi = hi;
    if (count <= PHYSICS_MESH_LEAF) {
        n->first = first, n->count = count;
        return at + 1;
    }
    /* Median split on the longest axis of the centres (a partial selection would do; n log n
     * sorting by insertion into halves is simpler: nth_element by quickselect). */
    const physics__v3 span = v3_sub(chi, clo);
    const int axis = span.x >= span.y && span.x >= span.z ? 0 : span.y >= span.z ? 1 : 2;
    const uint32_t half = count / 2;
    uint32_t l = first, r = first + count - 1;
    const uint32_t want = first + half;
    while (l < r) {
        const float pivot = v3_get(centre[order[(l + r) / 2]], axis);
        uint32_t i = l, j = r;
        while (i <= j) {
            while (v3_get(centre[order[i]], axis) < pivot)
                i++;
            while (v3_get(centre[order[j]], axis) > pivot)
                j--;
            if (i <= j) {
                const uint32_t t = order[i];
                order[i] = order[j], order[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (want <= j)
            r = j;
        else if (want >= i)
            l = i;
        else
            break;
    }
    n->count = 0;
    const uint32_t left = at + 1;
    const uint32_t right = mesh__build_node(m, centre, order, left, first, half);
    n->first = right; /* the left child is at + 1 */
    return mesh__build_node(m, centre, order, right, first + half, count - half);
}

const char *physics__mesh_build(ct_allocator_t *a, const float *vertices, uint32_t num_vertices,
                                const uint32_t *indices, uint32_t num_triangles,
                                physics__mesh **out, char *reason, size_t reason_size)
{
    *out = NULL;
    if (!vertices || !indices)
        return "vertices (NULL)";
    if (num_vertices < 3 || num_triangles == 0)
        return "triangles (a mesh needs at least one)";
    if (num_vertices > CT_PHYSICS_MAX_MESH_TRIANGLES * 3u ||
        num_triangles > CT_PHYSICS_MAX_MESH_TRIANGLES)
        return "triangles (more than CT_PHYSICS_MAX_MESH_TRIANGLES)";
    for (uint32_t k = 0; k < num_vertices; k++)
        if (!v3_within(v3_load(vertices + 3 * k), CT_PHYSICS_MAX_POSITION)) {
            snprintf(reason, reason_size,
                     "vertices (vertex %u is NaN, infinite or outside +-1e5 m)", k);
            return reason;
        }
    for (uint32_t t = 0; t < num_triangles; t++) {
        const uint32_t *i = indices + 3 * t;
        if (i[0] >= num_vertices || i[1] >= num_vertices || i[2] >= num_vertices) {
            snprintf(reason, reason_size, "indices (triangle %u names a vertex past the %u given)",
                     t, num_vertices);
            return reason;
        }
        const physics__v3 p0 = v3_load(vertices + 3 * i[0]), p1 = v3_load(vertices + 3 * i[1]),
                          p2 = v3_load(vertices + 3 * i[2]);
        if (v3_len(v3_cross(v3_sub(p1, p0), v3_sub(p2, p0))) <
            CT_PHYSICS_MIN_SIZE * CT_PHYSICS_MIN_SIZE) {
            snprintf(reason, reason_size,
                     "indices (triangle %u has no area: zero or under 5e-7 m^2)", t);
            return reason;
        }
    }
    const uint32_t max_nodes = 2u * num_triangles;
    const size_t bytes =
        sizeof(physics__mesh) + (size_t)num_vertices * sizeof(physics__v3) +
        (size_t)num_triangles *
            (sizeof(uint32_t[3]) + 3u * sizeof(physics__v3) + 1u + sizeof(float)) +
        (size_t)max_nodes * sizeof(physics__mesh_node) + 16u;
    physics__mesh *m = ct_alloc(a, bytes);
    physics__v3 *centre = ct_alloc(a, (size_t)num_triangles * sizeof *centre);
    uint32_t *order = ct_alloc(a, (size_t)num_triangles * sizeof *order);
    mesh__edge_key *edges = ct_alloc(a, (size_t)num_triangles * 3u * sizeof *edges);
    mesh__spot *spot = ct_alloc(a, (size_t)num_vertices * sizeof *spot);
    uint32_t *weld = ct_alloc(a, (size_t)num_vertices * sizeof *weld);
    if (!m || !centre || !order || !edges || !spot || !weld) {
        if (spot)
            ct_free(a, spot, (size_t)num_vertices * sizeof *spot);
        if (weld)
            ct_free(a, weld, (size_t)num_vertices * sizeof *weld);
        if (m)
            ct_free(a, m, bytes);
        if (centre)
            ct_free(a, centre, (size_t)num_triangles * sizeof *centre);
        if (order)
            ct_free(a, order, (size_t)num_triangles * sizeof *order);
        if (edges)
            ct_free(a, edges, (size_t)num_triangles * 3u * sizeof *edges);
        return "triangles (out of memory)";
    }
    memset(m, 0, sizeof *m);
    m->bytes = bytes;
    m->num_vertices = num_vertices, m->num_triangles = num_triangles;
    char *at = (char *)(m + 1);
    m->node = (physics__mesh_node *)at, at += (size_t)max_nodes * sizeof *m->node;
    m->vertex = (physics__v3 *)at, at += (size_t)num_vertices * sizeof *m->vertex;
    m->normal = (physics__v3 *)at, at += (size_t)num_triangles * sizeof *m->normal;
    m->tri = (uint32_t(*)[3])at, at += (size_t)num_triangles * sizeof *m->tri;
    m->box = (physics__v3(*)[2])at, at += (size_t)num_triangles * sizeof *m->box;
    m->internal = (uint8_t *)at, at += num_triangles;
    memset(m->internal, 0, num_triangles);
    m->cos_limit = (float *)(((uintptr_t)at + 3u) & ~(uintptr_t)3u);
    for (uint32_t t = 0; t < num_triangles; t++)
        m->cos_limit[t] = -1.0f; /* an open edge: any normal */
    physics__v3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t k = 0; k < num_vertices; k++) {
        m->vertex[k] = v3_load(vertices + 3 * k);
        lo = v3_min(lo, m->vertex[k]);
        hi = v3_max(hi, m->vertex[k]);
    }
    m->half = v3_max(v3(fabsf(lo.x), fabsf(lo.y), fabsf(lo.z)),
                     v3(fabsf(hi.x), fabsf(hi.y), fabsf(hi.z)));
    for (uint32_t t = 0; t < num_triangles; t++) {
        order[t] = t;
        const uint32_t *i = indices + 3 * t;
        centre[t] = v3_scale(v3_add(v3_add(m->vertex[i[0]], m->vertex[i[1]]), m->vertex[i[2]]),
                             1.0f / 3.0f);
        memcpy(m->tri[t], i, sizeof m->tri[t]);
    }
    m->num_nodes = mesh__build_node(m, centre, order, 0, 0, num_triangles);
    /* Triangles into leaf order. */
    uint32_t(*sorted)[3] = (uint32_t(*)[3])edges; /* scratch large enough: 3 words a triangle */
    for (uint32_t t = 0; t < num_triangles; t++)
        memcpy(sorted[t], m->tri[order[t]], sizeof sorted[t]);
    memcpy(m->tri, sorted, (size_t)num_triangles * sizeof *m->tri);
    for (uint32_t t = 0; t < num_triangles; t++) {
        const physics__v3 p0 = m->vertex[m->tri[t][0]], p1 = m->vertex[m->tri[t][1]],
                          p2 = m->vertex[m->tri[t][2]];
        const physics__v3 n = v3_cross(v3_sub(p1, p0), v3_sub(p2, p0));
        m->normal[t] = v3_scale(n, 1.0f / v3_len(n));
        m->box[t][0] = v3_min(v3_min(p0, p1), p2);
        m->box[t][1] = v3_max(v3_max(p0, p1), p2);
    }
    /* Internal edges: shared, and flat or bending up. Shared by where their ends are, not by their
     * indices: a mesh exported with its vertices split at seams of normals or texture coordinates
     * (every tile of a floor with its own four corners) has the same seams to slide over. weld[v]
     * is the first vertex on v's spot (equal coordinates). */
    for (uint32_t k = 0; k < num_vertices; k++)
        spot[k] = (mesh__spot){m->vertex[k].x, m->vertex[k].y, m->vertex[k].z, k};
    qsort(spot, num_vertices, sizeof *spot, mesh__cmp_spot);
    for (uint32_t k = 0, first = 0; k < num_vertices; k++) {
        if (k == 0 || spot[k].x != spot[k - 1].x || spot[k].y != spot[k - 1].y ||
            spot[k].z != spot[k - 1].z)
            first = spot[k].index; /* the lowest index on the spot: ties sort by index */
        weld[spot[k].index] = first;
    }
    for (uint32_t t = 0; t < num_triangles; t++)
        for (uint32_t k = 0; k < 3; k++) {
            const uint32_t a0 = weld[m->tri[t][k]], a1 = weld[m->tri[t][(k + 1) % 3]];
            edges[3 * t + k] =
                (mesh__edge_key){(uint64_t)(a0 < a1 ? a0 : a1) << 32 | (a0 < a1 ? a1 : a0), t, k};
        }
    qsort(edges, (size_t)num_triangles * 3u, sizeof *edges, mesh__cmp_edge);
    uint32_t *shared = order; /* its edges shared with one neighbour each */
    memset(shared, 0, (size_t)num_triangles * sizeof *shared);
    for (uint32_t t = 0; t < num_triangles; t++)
        m->cos_limit[t] = 1.0f;
    for (uint32_t e = 0; e + 1 < num_triangles * 3u; e++) {
        if (edges[e].key != edges[e + 1].key || (e > 0 && edges[e - 1].key == edges[e].key) ||
            (e + 2 < num_triangles * 3u && edges[e + 2].key == edges[e].key))
            continue; /* open, or shared by more than two: a real edge */
        for (int side = 0; side < 2; side++) {
            const mesh__edge_key *x = &edges[e + (uint32_t)side],
                                 *y = &edges[e + 1u - (uint32_t)side];
            const uint32_t far = m->tri[y->tri][(y->k + 2) % 3];
            const physics__v3 base = m->vertex[m->tri[x->tri][x->k]];
            const physics__v3 w = v3_sub(m->vertex[far], base);
            if (v3_dot(m->normal[x->tri], w) >= -MESH_FLAT * v3_len(w))
                m->internal[x->tri] |= (uint8_t)(1u << x->k);
            shared[x->tri]++;
            m->cos_limit[x->tri] =
                f_min(m->cos_limit[x->tri], v3_dot(m->normal[x->tri], m->normal[y->tri]));
        }
    }
    /* A little slack past the steepest neighbour; an open edge allows any normal. */
    for (uint32_t t = 0; t < num_triangles; t++)
        m->cos_limit[t] = shared[t] == 3u ? m->cos_limit[t] - 0.01f : -1.0f;
    ct_free(a, centre, (size_t)num_triangles * sizeof *centre);
    ct_free(a, order, (size_t)num_triangles * sizeof *order);
    ct_free(a, edges, (size_t)num_triangles * 3u * sizeof *edges);
    ct_free(a, spot, (size_t)num_vertices * sizeof *spot);
    ct_free(a, weld, (size_t)num_vertices * sizeof *weld);
    *out = m;
    return NULL;
}

/* ---- walking the tree ------------------------------------------------------------------------ */

#if !LANES_SSE2 /* SSE2's mesh__probe_meets compares in lanes */
static inline bool mesh__box_meets(physics__v3 alo, physics__v3 ahi, physics__v3 blo,
                                   physics__v3 bhi)
{
    return !(alo.x > bhi.x || ahi.x < blo.x || alo.y > bhi.y || ahi.y < blo.y || alo.z > bhi.z ||
             ahi.z < blo.z);
}
#endif

/* A box the tree and the lists are searched with, ready for mesh__probe_meets. */
typedef struct mesh__probe {
#if LANES_SSE2
    __m128 hi; /* hi.x, y, z, and a lane no compare keeps */
    __m128 lo; /* a lane no compare keeps, then lo.x, y, z */
#else
    physics__v3 lo, hi;
#endif
} mesh__probe;

static inline mesh__probe mesh__probe_of(physics__v3 lo, physics__v3 hi)
{
#if LANES_SSE2
    return (mesh__probe){_mm_setr_ps(hi.x, hi.y, hi.z, 0.0f), _mm_setr_ps(0.0f, lo.x, lo.y, lo.z)};
#else
    return (mesh__probe){lo, hi};
#endif
}

/* mesh__box_meets(box[0], box[1], the probe's lo, hi) for the box at `box` (its lo, then its hi:
 * a node's or a triangle's). Six compares in two (the nodes and the lists' triangles are tested
 * every step, each with six compares and branches): the floats 0..3 of the box against hi and
 * 2..5 against lo, each keeping three lanes. A compare with NaN is false in both. */
static inline bool mesh__probe_meets(const physics__v3 *box, const mesh__probe *p)
{
#if LANES_SSE2
    const float *f = &box->x;
    return !((_mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(f), p->hi)) & 7) |
             (_mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(f + 2), p->lo)) & 14));
#else
    return mesh__box_meets(box[0], box[1], p->lo, p->hi);
#endif
}
_Static_assert(offsetof(physics__mesh_node, hi) == sizeof(physics__v3) &&
                   sizeof(physics__v3) == 3 * sizeof(float),
               "a node's box is six floats, lo then hi");

/* Calls fn for each triangle whose node boxes meet [lo, hi] (mesh frame), at most *left of them
 * (counted off it); stops on non-zero, and returns MESH_CUT where one more would be past *left. */
typedef int (*mesh__visit_f)(void *user, uint32_t tri);
#define MESH_CUT (-1)
static int mesh__visit(const physics__mesh *m, physics__v3 lo, physics__v3 hi, mesh__visit_f fn,
                       void *user, uint32_t *left)
{
    const mesh__probe probe = mesh__probe_of(lo, hi);
    uint32_t stack[64], top = 0, room = *left;
    stack[top++] = 0;
    int r = 0;
    while (top && !r) {
        const physics__mesh_node *n = &m->node[stack[--top]];
        if (!mesh__probe_meets(&n->lo, &probe))
            continue;
        if (n->count) {
            for (uint32_t t = n->first; t < n->first + n->count; t++) {
                /* The leaf's box is its triangles' together: a triangle of it may still lie far
                 * from the query (and a round body's test against it would find its plane, not
                 * the triangle). */
                if (!mesh__probe_meets(m->box[t], &probe))
                    continue;
                if (!room) {
                    r = MESH_CUT;
                    break;
                }
                room--;
                if ((r = fn(user, t)) != 0)
                    break;
            }
            continue;
        }
        if (top + 2 > 64)
            break; /* a tree this deep has over 2^60 triangles: cannot happen */
        stack[top++] = n->first;
        stack[top++] = (uint32_t)(n - m->node) + 1u;
    }
    *left = room;
    return r;
}

/* ---- the triangles near a body ----------------------------------------------------------------
 * A body over a mesh asks for the triangles under its box every step it is awake, and walking the
 * tree for them (some 40 nodes for 3 triangles in Jolt's ConvexVsMesh scene) took a tenth of the
 * step. The walk is done for a grown box instead and its triangles kept in the body's slot
 * (physics__mesh_near): while the body's box stays inside the grown one, the list gives the same
 * triangles the walk would, each still tested against the body's own box, in the same (index)
 * order. How far the box grows adapts per slot: halved when the list would overflow (a small body
 * on a fine mesh), doubled back towards MESH_NEAR_GROW when it holds few. */
#define MESH_NEAR_GROW 0.5f      /* m past the body's box, at most */
#define MESH_NEAR_GROW_MIN 0.03f /* a slot that overflowed at no growth starts again from here */
_Static_assert(PHYSICS_MESH_NEAR_MAX <= 32, "a list's triangles are bits of one word");

void physics__mesh_near_reserve(physics__bodies *b)
{
    /* memchr: a world without meshes pays a scan of one byte a body. */
    bool any = false;
    for (const uint8_t *at = b->shape, *end = b->shape + b->n;
         at < end && (at = memchr(at, CT_BODY_MESH, (size_t)(end - at))) != NULL; at++) {
        physics__mesh *m = b->mesh[at - b->shape];
        if (m && !m->serial)
            m->serial = ++b->mesh_serial; /* 2^32 meshes in one world: not in this universe */
        any = true;
    }
    if (any && !b->mesh_tally) {
        b->mesh_tally = ct_alloc(b->a, sizeof *b->mesh_tally);
        if (b->mesh_tally) {
            atomic_init(&b->mesh_tally->most, 0);
            atomic_init(&b->mesh_tally->cut, UINT64_MAX);
        }
    }
    if (!any || b->num_near >= b->n)
        return;
    /* Grown by half again, so a world adding bodies one by one reallocates rarely. */
    const uint32_t want = b->n + b->n / 2u + 8u;
    physics__mesh_near *near = ct_alloc(b->a, (size_t)want * sizeof *near);
    if (!near)
        return; /* no lists: the trees are walked */
    if (b->near) {
        memcpy(near, b->near, (size_t)b->num_near * sizeof *near);
        ct_free(b->a, b->near, (size_t)b->num_near * sizeof *near);
    }
    for (uint32_t k = b->num_near; k < want; k++) {
        near[k].serial = 0;
        near[k].grow = MESH_NEAR_GROW;
        atomic_init(&near[k].busy, 0);
    }
    b->near = near, b->num_near = want;
}

void physics__mesh_near_free(physics__bodies *b)
{
    if (b->near)
        ct_free(b->a, b->near, (size_t)b->num_near * sizeof *b->near);
    b->near = NULL;
    b->num_near = 0;
    if (b->mesh_tally)
        ct_free(b->a, b->mesh_tally, sizeof *b->mesh_tally);
    b->mesh_tally = NULL;
}

/* Whether the list of the body whose slot is `near` holds what a walk for [lo, hi] finds: its box
 * holds [lo, hi]. */
static inline bool mesh__near_holds(const physics__mesh *m, const physics__mesh_near *near,
                                    physics__v3 lo, physics__v3 hi)
{
    return near->serial == m->serial && lo.x >= near->lo.x && lo.y >= near->lo.y &&
           lo.z >= near->lo.z && hi.x <= near->hi.x && hi.y <= near->hi.y && hi.z <= near->hi.z;
}

/* mesh__visit from the list that holds it (mesh__near_holds; a list holds fewer triangles than
 * any *left). */
static int mesh__visit_list(const physics__mesh *m, const physics__mesh_near *near,
                            physics__v3 lo, physics__v3 hi, mesh__visit_f fn, void *user,
                            uint32_t *left)
{
    /* The boxes first, then the tests: the triangles' loads (mostly cache misses) then overlap
     * instead of each waiting behind the previous triangle's test. */
    const mesh__probe probe = mesh__probe_of(lo, hi);
    uint32_t meets = 0;
    for (uint32_t k = 0; k < near->count; k++)
        meets |= (uint32_t)mesh__probe_meets(m->box[near->tri[k]], &probe) << k;
    int r = 0;
    for (; meets && !r; meets &= meets - 1u) {
        --*left;
        r = fn(user, near->tri[__builtin_ctz(meets)]);
    }
    return r;
}

/* mesh__visit for the body whose slot is `near`, walking the tree for a grown box and keeping
 * what it finds as the slot's list. */
static int mesh__visit_near(const physics__mesh *m, physics__mesh_near *near, physics__v3 lo,
                            physics__v3 hi, mesh__visit_f fn, void *user, uint32_t *left)
{
    const float g = near->grow;
    const physics__v3 glo = v3_sub(lo, v3(g, g, g)), ghi = v3_add(hi, v3(g, g, g));
    const mesh__probe grown = mesh__probe_of(glo, ghi), probe = mesh__probe_of(lo, hi);
    uint32_t count = 0, stack[64], top = 0, room = *left;
    bool whole = true;
    stack[top++] = 0;
    while (top) {
        const physics__mesh_node *n = &m->node[stack[--top]];
        if (!mesh__probe_meets(&n->lo, &grown))
            continue;
        if (n->count) {
            for (uint32_t t = n->first; t < n->first + n->count; t++) {
                if (!mesh__probe_meets(m->box[t], &grown))
                    continue;
                if (count < PHYSICS_MESH_NEAR_MAX)
                    near->tri[count] = t;
                count++;
                if (!mesh__probe_meets(m->box[t], &probe))
                    continue;
                const int r = room ? (room--, fn(user, t)) : MESH_CUT;
                if (r) {
                    near->serial = 0; /* cut short: the list is not whole */
                    *left = room;
                    return r;
                }
            }
            continue;
        }
        if (top + 2 > 64) {
            whole = false;
            continue;
        }
        stack[top++] = n->first;
        stack[top++] = (uint32_t)(n - m->node) + 1u;
    }
    *left = room;
    if (count > PHYSICS_MESH_NEAR_MAX || !whole) {
        near->serial = 0;
        near->grow = g > MESH_NEAR_GROW_MIN ? 0.5f * g : 0.0f;
        return 0;
    }
    near->count = (uint16_t)count;
    near->serial = m->serial;
    near->lo = glo, near->hi = ghi;
    /* Room to spare: the next list may reach further (a slot at no growth starts again). */
    if (count <= PHYSICS_MESH_NEAR_MAX / 4u)
        near->grow = g > 0.0f ? f_min(2.0f * g, MESH_NEAR_GROW) : MESH_NEAR_GROW_MIN;
    else
        near->grow = g;
    return 0;
}

/* Triangle t placed in the world as a flat polytope. */
static const uint16_t tri_face_first[2] = {0, 3};
static const uint8_t tri_face_count[2] = {3, 3};
static const uint8_t tri_face_index[6] = {0, 1, 2, 0, 2, 1};
static const physics__hull_edge tri_edge[3] = {
    {{0, 1}, {0, 1}}, {{1, 2}, {0, 1}}, {{2, 0}, {0, 1}}};

/* Where mesh body i lies: its mesh, position and rotation, and whether it is turned (most level
 * geometry is not: then the mesh frame is the world's, moved). A body's search takes it once
 * (mesh__begin) for all the triangles it asks about: read per triangle, with the identity
 * compares, it cost as much as the plane itself. */
typedef struct mesh__frame {
    const physics__mesh *m;
    physics__v3 at;
    physics__quat q;
    bool turned;
} mesh__frame;

static inline mesh__frame mesh__frame_of(const physics__bodies *b, uint32_t i)
{
    return (mesh__frame){b->mesh[i], b->position[i], b->rotation[i],
                         !quat_is_identity(b->rotation[i])};
}

/* The plane of triangle t placed in the world: its front normal *n and offset *d (the same bits
 * as mesh__triangle's n[0] and d[0]), and its first corner *v0. A body's test asks this first:
 * most triangles under a body's box are clear of it (the body over a slope, or still falling). */
static inline void mesh__plane(const mesh__frame *f, uint32_t t, physics__v3 *n, float *d,
                               physics__v3 *v0)
{
    const physics__mesh *m = f->m;
    const physics__v3 v = m->vertex[m->tri[t][0]];
    *v0 = v3_add(f->at, f->turned ? quat_rotate(f->q, v) : v);
    *n = f->turned ? quat_rotate(f->q, m->normal[t]) : m->normal[t];
    *d = v3_dot(*n, *v0);
}

/* Triangle t placed in the world as a flat polytope, from its plane (mesh__plane). */
static void mesh__triangle_of(const mesh__frame *f, uint32_t t, physics__v3 n, float d,
                              physics__v3 v0, physics__poly *p)
{
    const physics__mesh *m = f->m;
    p->nv = 3, p->nf = 2, p->ne = 3, p->flat = true, p->box = false;
    p->v[0] = v0;
    for (int k = 1; k < 3; k++) {
        const physics__v3 v = m->vertex[m->tri[t][k]];
        p->v[k] = v3_add(f->at, f->turned ? quat_rotate(f->q, v) : v);
    }
    p->c = v3_scale(v3_add(v3_add(p->v[0], p->v[1]), p->v[2]), 1.0f / 3.0f);
    p->n[0] = n;
    p->n[1] = v3_scale(n, -1.0f);
    p->d[0] = d;
    p->d[1] = -d;
    p->face_first = tri_face_first, p->face_count = tri_face_count;
    p->face_index = tri_face_index, p->edge = tri_edge;
}

static void mesh__triangle(const physics__bodies *b, uint32_t i, uint32_t t, physics__poly *p)
{
    const mesh__frame f = mesh__frame_of(b, i);
    physics__v3 n, v0;
    float d;
    mesh__plane(&f, t, &n, &d, &v0);
    mesh__triangle_of(&f, t, n, d, v0, p);
}

/* ---- manifolds ------------------------------------------------------------------------------ */


enum { MESH_MAX_FOUND = 16 };

typedef struct mesh__collide {
    const physics__bodies *b;
    mesh__frame frame; /* the mesh's */
    uint32_t mesh, other;
    bool mesh_is_a;
    float margin;
    bool prefer_b;
    bool poly; /* the other is a box or hull (else a sphere or capsule) */
    bool poly_ready; /* *other_poly is made */
    /* Out of the struct (a few kB): zeroing it with the rest for every pair cost more than a
     * triangle's test. */
    physics__poly *other_poly;
    physics__v3 p0, p1; /* the round one's segment */
    physics__v3 axis[3]; /* a box's axes in the world, and its half sizes along them */
    float h[3];
    physics__v3 centre;
    float reach; /* how far the body reaches from its centre */
    float radius;
    float depth;
    uint32_t num; /* the found manifold that is deepest (depth), of triangle depth_tri */
    uint32_t depth_tri;
    bool least; /* only the deepest is asked for (physics__mesh_least) */
    physics__manifold_out *found;
    uint32_t num_found;
    bool *face; /* per found manifold: along its triangle's face normal */
} mesh__collide;

/* Triangle t along its face normal only: the body's face clipped to it (with corners_only, just
 * the body's own corners over it), or a ball's or capsule's ends over it; nothing for a box or
 * hull wholly behind its plane (a round one: mesh__near_plane). Taken for one sunk into it, a
 * crate on the ground 1 cm under a mesh shelf was pushed out through the shelf's top, 1 m up. */
static void mesh__face_contact(mesh__collide *c, const physics__poly *tp, bool corners_only,
                               physics__manifold_out *o)
{
    const physics__v3 n = tp->n[0];
    o->count = 0;
    o->normal = n;
    if (c->poly) {
        float least = INFINITY;
        for (uint32_t k = 0; k < c->other_poly->nv; k++)
            least = f_min(least, v3_dot(n, c->other_poly->v[k]));
        if (least - tp->d[0] > c->margin)
            return;
        /* (Wholly behind: only a body whose centre is.) */
        if (v3_dot(n, c->centre) < tp->d[0]) {
            float most = -INFINITY;
            for (uint32_t k = 0; k < c->other_poly->nv; k++)
                most = f_max(most, v3_dot(n, c->other_poly->v[k]));
            if (most < tp->d[0])
                return;
        }
        physics__poly_faces(tp, 0, c->other_poly, n, c->margin, 0, o);
        if (!corners_only)
            return;
        /* A point cut where the body's face crosses a seam is no support (the neighbour finds
         * the corners beyond it), and such points crowd the corners out of the four kept. */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < o->count; k++)
            if (!(o->p[k].id >> 8 & 0x7fu))
                o->p[kept++] = o->p[k];
        o->count = kept;
        return;
    }
    const bool ball = v3_dot(v3_sub(c->p1, c->p0), v3_sub(c->p1, c->p0)) < 1e-12f;
    for (int e = 0; e < (ball ? 1 : 2); e++) {
        const physics__v3 x = e ? c->p1 : c->p0;
        const float sep = v3_dot(n, x) - tp->d[0] - c->radius;
        if (sep > c->margin)
            continue;
        const physics__v3 q = v3_sub(x, v3_scale(n, sep + c->radius));
        /* Over it, or within 0.1 mm of its sides (a ball right on a seam is over both). */
        bool inside = true;
        for (int k = 0; k < 3 && inside; k++) {
            const physics__v3 a = tp->v[k], z = tp->v[(k + 1) % 3], d = v3_sub(z, a);
            inside = v3_dot(v3_cross(d, n), v3_sub(q, a)) <= 1e-4f * v3_len(d);
        }
        if (inside && o->count < PHYSICS_MANIFOLD_MAX_CLIP)
            o->p[o->count++] = (physics__manifold_point){v3_add(q, v3_scale(n, 0.5f * sep)), sep,
                                                         0x700u + (uint32_t)e};
    }
}

/* The point of triangle v[0..2] nearest to p (Ericson, Real-Time Collision Detection, 5.1.5);
 * *face whether it lies inside the triangle (p's own foot on its plane), not on an edge or
 * corner. */
static physics__v3 mesh__closest(const physics__v3 *v, physics__v3 p, bool *face)
{
    const physics__v3 a = v[0], b = v[1], cc = v[2];
    const physics__v3 ab = v3_sub(b, a), ac = v3_sub(cc, a), ap = v3_sub(p, a);
    *face = false;
    const float d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f)
        return a;
    const physics__v3 bp = v3_sub(p, b);
    const float d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3)
        return b;
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f)
        return v3_add(a, v3_scale(ab, d1 / (d1 - d3)));
    const physics__v3 cp = v3_sub(p, cc);
    const float d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6)
        return cc;
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f)
        return v3_add(a, v3_scale(ac, d2 / (d2 - d6)));
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f)
        return v3_add(b, v3_scale(v3_sub(cc, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    *face = true;
    const float den = 1.0f / (va + vb + vc);
    return v3_add(a, v3_add(v3_scale(ab, vb * den), v3_scale(ac, vc * den)));
}

/* A capsule's segment (p0 + t seg) beside triangle v[0..2]. */
typedef struct mesh__segment {
    const physics__v3 *v;
    physics__v3 p0, seg;
} mesh__segment;

/* The slope along the segment of half the squared distance from the triangle at t. */
static float mesh__segment_slope(void *ctx, float t)
{
    const mesh__segment *g = ctx;
    const physics__v3 x = v3_add(g->p0, v3_scale(g->seg, t));
    bool face;
    return v3_dot(v3_sub(x, mesh__closest(g->v, x, &face)), g->seg);
}

/* A ball or capsule against a triangle with an open or ridge edge: the segment's ends and its
 * point nearest the triangle, each as a ball; the normal from the triangle (its face's when a
 * centre lies on it). The nearest point is found by halving the segment on the slope of the
 * distance (physics__segment_nearest_t), and only where the slopes at the ends say it lies
 * between them (the distance from a triangle is convex along a line). Projecting back and forth
 * between segment and triangle (4 times), as this did, crawls where the segment lies nearly along
 * the face: it stopped near the middle of a capsule tipping off a ledge, which went 6 cm into the
 * ledge's edge (test_physics_mesh_round). */
static void mesh__round(const mesh__collide *c, const physics__poly *tp, physics__manifold_out *o)
{
    const physics__v3 seg = v3_sub(c->p1, c->p0);
    const float ss = v3_dot(seg, seg);
    physics__v3 x[3] = {c->p0, c->p1}, q[3];
    bool face[3];
    q[0] = mesh__closest(tp->v, x[0], &face[0]);
    uint32_t used = 1;
    if (ss > 1e-12f) {
        q[1] = mesh__closest(tp->v, x[1], &face[1]);
        used = 2;
        const physics__v3 d0 = v3_sub(x[0], q[0]), d1 = v3_sub(x[1], q[1]);
        const float s0 = v3_dot(d0, seg), s1 = v3_dot(d1, seg);
        /* The squared distance is convex too: it lies over its tangents at the ends, whose
         * crossing bounds it from below. Past the ball's reach there (most triangles under a
         * capsule's box, off to its side), the segment's middle cannot touch: no halving. */
        const float g0 = v3_dot(d0, d0), g1 = v3_dot(d1, d1), reach = c->radius + c->margin;
        if (s0 < 0.0f && s1 > 0.0f &&
            g0 * s1 - g1 * s0 + 2.0f * s0 * s1 <= reach * reach * (s1 - s0) * 1.001f) {
            mesh__segment g = {tp->v, c->p0, seg};
            const float t = physics__segment_nearest_t(mesh__segment_slope, &g);
            /* Near an end it takes that end's place (left out, as the third ball was, a capsule
             * whose end just passed a ledge's edge was found 3 cm shallower than it lay). */
            const uint32_t k = t <= 0.05f ? 0u : t >= 0.95f ? 1u : used++;
            x[k] = v3_add(c->p0, v3_scale(seg, t));
            q[k] = mesh__closest(tp->v, x[k], &face[k]);
        }
    }
    for (uint32_t k = 0; k < used; k++) {
        const physics__v3 d = v3_sub(x[k], q[k]);
        const float dist = v3_len(d);
        /* Behind the face: pushed out through its front, by its depth. */
        const float side = v3_dot(d, tp->n[0]);
        /* Behind its plane but clear of the triangle itself (past an edge, or further than the
         * ball reaches): no contact. Taken for a depth, a far triangle's plane pushed a ball
         * metres out; and a ball past an edge, behind the plane, is beside the triangle, not in
         * it: a capsule lying across a ledge, its segment behind the wall's plane over the wall's
         * top edge, was pushed off the ledge 20 cm deep. */
        if (side <= 0.0f && (!face[k] || dist > c->radius + c->margin))
            continue;
        const physics__v3 n = dist > 1e-6f && side > 0.0f ? v3_scale(d, 1.0f / dist) : tp->n[0];
        const float sep = (side > 0.0f ? dist : -dist) - c->radius;
        if (sep > c->margin)
            continue;
        if (!o->count || sep < o->p[0].sep)
            o->normal = n;
        if (o->count < PHYSICS_MANIFOLD_MAX_CLIP)
            o->p[o->count++] = (physics__manifold_point){
                v3_sub(x[k], v3_scale(n, c->radius + 0.5f * sep)), sep, 0x600u + k};
    }
}

/* How far the body's lowest point along the triangle's face normal is over its plane (negative:
 * under it). */
static float mesh__lowest(const mesh__collide *c, const physics__poly *tp)
{
    const physics__v3 n = tp->n[0];
    float least = INFINITY;
    if (c->poly) {
        for (uint32_t k = 0; k < c->other_poly->nv; k++)
            least = f_min(least, v3_dot(n, c->other_poly->v[k]));
    } else {
        least = f_min(v3_dot(n, c->p0), v3_dot(n, c->p1)) - c->radius;
    }
    return least - tp->d[0];
}

/* Triangle t's plane (mesh__plane) and whether the body comes within the margin of it: false when
 * the plane tests below leave nothing for the triangle's test to find. *gap gets how far the
 * body's lowest point along the normal is over the plane. */
static bool mesh__near_plane(mesh__collide *c, uint32_t t, physics__v3 *n_out, float *d_out,
                             physics__v3 *v0, float *gap)
{
    physics__v3 n;
    float d;
    mesh__plane(&c->frame, t, &n, &d, v0);
    *n_out = n, *d_out = d;
    const float front = v3_dot(n, c->centre) - d;
    /* One-sided: a body wholly behind the triangle's plane is not pushed through it. */
    if (front < -c->reach)
        return false;
    /* Wholly in front of it past the margin (its bounding ball, with a little slack for
     * rounding): the plane separates them and no test below would find a point. */
    if (front > (c->reach + c->margin) * 1.01f + 1e-3f)
        return false;
    /* The same with the body's lowest point along the normal instead of its ball: most triangles
     * under a body's box that come this far are still clear of it (a box or capsule lying flat
     * reaches down far less than its ball). Every test below measures the body against the
     * triangle's plane first and finds nothing past the margin, so this skips only what they would
     * skip; PHYSICS_PLANE_SLACK keeps their rounding on the safe side. */
    float lowest;
    if (!c->poly) {
        const float h0 = v3_dot(n, c->p0), h1 = v3_dot(n, c->p1);
        /* A ball or capsule wholly behind the plane: one-sided, the triangle does not push it
         * through to its front, however near it comes from behind (a box or hull:
         * mesh__face_contact, and the full test's back-facing axes). Within the margin, a
         * capsule on the ground 1 cm under a mesh shelf was pushed out through the shelf's top. */
        if (f_max(h0, h1) + c->radius < d)
            return false;
        lowest = f_min(h0, h1) - c->radius;
    } else if (c->b->shape[c->other] == CT_BODY_BOX) {
        lowest = v3_dot(n, c->centre) - c->h[0] * fabsf(v3_dot(c->axis[0], n)) -
                 c->h[1] * fabsf(v3_dot(c->axis[1], n)) - c->h[2] * fabsf(v3_dot(c->axis[2], n));
    } else {
        /* A hull's corners. */
        if (!c->poly_ready) {
            physics__poly_of(c->b, c->other, c->other_poly);
            c->poly_ready = true;
        }
        lowest = INFINITY;
        for (uint32_t k = 0; k < c->other_poly->nv; k++)
            lowest = f_min(lowest, v3_dot(n, c->other_poly->v[k]));
    }
    *gap = lowest - d;
    return !(lowest - d > c->margin + PHYSICS_PLANE_SLACK);
}

/* Whether `normal` (from the triangle to the body) leans from the face only over edges the
 * triangle shares flat or bending up (bit k of `internal`: edge v[k] v[k + 1]), none of them open
 * or a ridge: a seam's normal. A triangle with an open edge allows any lean (cos_limit), and the
 * border triangles of a tiled floor took one across their inner seams: a board's corner 3.9 cm into
 * such a triangle got the normal of the seam it was 1.6 cm from, sideways, which no cluster of the
 * floor's way took in (3 of 2,000 poses of a board over an 8 x 8 tiled floor, 0 to 5 cm in, lost
 * their deepest corner). */
static bool mesh__leans_inward(uint8_t internal, const physics__poly *tp, physics__v3 normal)
{
    const physics__v3 n = tp->n[0];
    for (uint32_t k = 0; k < 3; k++) {
        /* (the edge's outward side in the plane: the corners run counter-clockwise about n) */
        const physics__v3 side = v3_cross(v3_sub(tp->v[(k + 1) % 3], tp->v[k]), n);
        if (v3_dot(side, normal) > 0.0f && !(internal >> k & 1u))
            return false;
    }
    return true;
}

/* Whether a triangle whose plane the body comes within gap of (mesh__near_plane) cannot be deeper
 * than the deepest found so far: every point a test below finds lies no nearer than the body's
 * lowest point along the face normal (a reference face of the body or an edge axis wins only by
 * separating more than the triangle's face does), except a round body's behind the plane past an
 * edge, measured from the triangle's nearest point. */
static inline bool mesh__past_deepest(const mesh__collide *c, float gap)
{
    return c->num_found && gap > c->depth + PHYSICS_PLANE_SLACK && (c->poly || gap > 0.0f);
}

/* Triangle t, whose plane (n, d, first corner v0) the body comes within gap of (mesh__near_plane),
 * against the body: its manifold kept in c->found. */
static void mesh__collide_near(mesh__collide *c, uint32_t t, physics__v3 n, float d, physics__v3 v0,
                               float gap)
{
    const physics__mesh *mesh = c->b->mesh[c->mesh];
    /* Only the deepest triangle asked for (physics__mesh_least): one whose plane the body clears
     * by more than the deepest found so far cannot be deeper. */
    if (c->least && mesh__past_deepest(c, gap))
        return;
    physics__poly tp;
    mesh__triangle_of(&c->frame, t, n, d, v0, &tp);
    /* The body's polytope when a first triangle comes near it (most pairs of a body over a
     * mesh find none some steps). */
    if (c->poly && !c->poly_ready) {
        physics__poly_of(c->b, c->other, c->other_poly);
        c->poly_ready = true;
    }
    physics__manifold_out spare;
    physics__manifold_out *o = c->num_found < MESH_MAX_FOUND ? &c->found[c->num_found] : &spare;
    o->count = 0;
    if (mesh->internal[t] == 7u) {
        mesh__face_contact(c, &tp, true, o);
    } else {
        if (c->poly)
            physics__poly_manifold(&tp, c->other_poly, c->margin, false, o);
        else
            mesh__round(c, &tp, o);
        /* An edge's normal may only lean from the face as far as the neighbours over its shared
         * edges do (its Voronoi region, roughly): past that it is a seam's normal, which kicks a
         * body sideways into the next triangle. Then the face's normal is the contact's. */
        if (o->count && v3_dot(o->normal, tp.n[0]) < mesh->cos_limit[t])
            mesh__face_contact(c, &tp, false, o);
        else if (o->count && mesh->cos_limit[t] == -1.0f && v3_dot(o->normal, tp.n[0]) < 0.9999f &&
                 (fabsf(mesh__lowest(c, &tp)) <= MESH_SEAM_DEPTH ||
                  mesh__leans_inward(mesh->internal[t], &tp, o->normal)))
            mesh__face_contact(c, &tp, false, o);
    }
    if (!o->count)
        return;
    float least = INFINITY;
    for (uint32_t k = 0; k < o->count; k++) {
        least = f_min(least, o->p[k].sep);
        o->p[k].id ^= t * 0x9e3779b1u & 0x7fff0000u; /* the triangle, kept off the reference bit */
    }
    uint32_t at = c->num_found;
    /* (Of equals, the first by index: physics__mesh_least takes the triangles in another order.) */
    const bool deepest = least < c->depth || (least == c->depth && t < c->depth_tri);
    if (o == &spare) {
        /* All kept slots are taken (a body over many triangles: a 1 m board on a height field of
         * 5 cm cells covers some 240). The new manifold joins the kept one that faces most its
         * way, within MESH_CLUSTER_WAY, as its cluster would take it: its points merged in and
         * reduced to the deepest and the widest spread about it. That one's normal becomes the
         * new one's when it is the deepest of all, so the deepest's normal is its triangle's own,
         * as physics__mesh_least finds it. Keeping the deepest sixteen instead, a board on a height
         * field of 0.1 mm noise (each of whose triangles, a little ridge, meets it in full and
         * finds points) kept the triangles under its lower end alone: its other end, held by
         * nothing, sank and was the lower one at the next find, and the board rocked end to end
         * each step and sank till its centre was under the surface. A manifold of a way no kept
         * one faces takes the place of the shallowest kept if it is deeper, never of the deepest
         * (writing it over the last slot lost the deepest when that was the last). */
        uint32_t along = MESH_MAX_FOUND;
        float most = MESH_CLUSTER_WAY;
        for (uint32_t k = 0; k < MESH_MAX_FOUND; k++) {
            const float way = v3_dot(c->found[k].normal, spare.normal);
            if (way > most || (way == most && along == MESH_MAX_FOUND))
                most = way, along = k;
        }
        if (along < MESH_MAX_FOUND) {
            at = along;
            physics__manifold_merge(&c->found[at], &spare);
            if (!deepest)
                return;
            c->found[at].normal = spare.normal;
        } else {
            float shallowest = -INFINITY;
            for (uint32_t k = 0; k < MESH_MAX_FOUND; k++) {
                float kl = INFINITY;
                for (uint32_t q = 0; q < c->found[k].count; q++)
                    kl = f_min(kl, c->found[k].p[q].sep);
                if (k != c->num && kl > shallowest)
                    shallowest = kl, at = k;
            }
            if (!(least < shallowest))
                return;
            c->found[at] = spare;
        }
    } else {
        c->num_found++;
    }
    c->face[at] = v3_dot(c->found[at].normal, tp.n[0]) > 0.9999f;
    if (deepest) {
        c->depth = least;
        c->num = at;
        c->depth_tri = t;
    }
}

/* What a cut walk found forgotten (mesh__walk_deepest). */
static void mesh__collide_reset(void *user)
{
    mesh__collide *c = user;
    c->num_found = 0;
    c->num = 0;
    c->depth = INFINITY;
    c->depth_tri = UINT32_MAX;
}

static int mesh__collide_triangle(void *user, uint32_t t)
{
    mesh__collide *c = user;
    physics__v3 n, v0;
    float d, gap;
    if (mesh__near_plane(c, t, &n, &d, &v0, &gap))
        mesh__collide_near(c, t, n, d, v0, gap);
    return 0;
}

/* The triangles' manifolds in clusters by normal, deepest first: the deepest found one's normal
 * gathers every found manifold within MESH_CLUSTER_WAY of it, merged and reduced to four points
 * along the mean of their normals (one asked for: within MESH_SAME_WAY, along the deepest's, as
 * before there were several); then the deepest one left starts the next cluster, up to `max`.
 * One manifold has the deepest triangle's way only: a cube in a crease was pushed from one face
 * into the other and back, and a board across a ridge was held by one side alone. What is left
 * past `max` clusters (faces of more ways than that under one body) is dropped, as the other ways
 * all were. */
/* One pair's search: its state, the room for the manifolds it finds, and the other body's box in
 * the mesh's frame, grown by the margin (lo, hi). */
typedef struct mesh__pair {
    mesh__collide c;
    physics__manifold_out found[MESH_MAX_FOUND];
    bool face[MESH_MAX_FOUND];
    physics__poly other_poly;
    physics__v3 lo, hi;
} mesh__pair;

/* The collision of bodies i and j, one of them a mesh, into p (no manifolds found yet); false
 * when both are meshes (both static: never a pair). */
static bool mesh__begin(mesh__pair *p, const physics__bodies *b, uint32_t i, uint32_t j,
                        float margin, bool prefer_b)
{
    const bool mesh_is_a = b->shape[i] == CT_BODY_MESH;
    const uint32_t mi = mesh_is_a ? i : j, oi = mesh_is_a ? j : i;
    if (b->shape[oi] == CT_BODY_MESH)
        return false;
    mesh__collide *c = &p->c;
    *c = (mesh__collide){.b = b,
                         .face = p->face,
                         .other_poly = &p->other_poly,
                         .frame = mesh__frame_of(b, mi),
                         .mesh = mi,
                         .other = oi,
                         .mesh_is_a = mesh_is_a,
                         .margin = margin,
                         .prefer_b = prefer_b,
                         .centre = b->position[oi],
                         .depth = INFINITY,
                         .depth_tri = UINT32_MAX,
                         .found = p->found};
    const uint8_t so = b->shape[oi];
    c->poly = so == CT_BODY_BOX || so == CT_BODY_HULL;
    c->reach = v3_len(b->extent[oi]);
    if (!c->poly) {
        physics__round_segment(b, oi, &c->p0, &c->p1);
        c->radius = b->radius[oi];
    } else if (so == CT_BODY_BOX) {
        const physics__quat qo = b->rotation[oi];
        c->axis[0] = quat_rotate(qo, v3(1, 0, 0));
        c->axis[1] = quat_rotate(qo, v3(0, 1, 0));
        c->axis[2] = quat_rotate(qo, v3(0, 0, 1));
        c->h[0] = b->half[oi].x, c->h[1] = b->half[oi].y, c->h[2] = b->half[oi].z;
    }
    /* The other body's box in the mesh's frame. */
    const physics__quat q = b->rotation[mi];
    const physics__v3 centre = quat_unrotate(q, v3_sub(b->position[oi], b->position[mi]));
    const physics__v3 e = b->extent[oi];
    physics__v3 half = e;
    if (!quat_is_identity(q)) {
        const physics__v3 ax = quat_unrotate(q, v3(e.x, 0, 0)),
                          ay = quat_unrotate(q, v3(0, e.y, 0)),
                          az = quat_unrotate(q, v3(0, 0, e.z));
        half = v3(fabsf(ax.x) + fabsf(ay.x) + fabsf(az.x), fabsf(ax.y) + fabsf(ay.y) + fabsf(az.y),
                  fabsf(ax.z) + fabsf(ay.z) + fabsf(az.z));
    }
    half = v3_add(half, v3(margin, margin, margin));
    p->lo = v3_sub(centre, half), p->hi = v3_add(centre, half);
    return true;
}

/* A search over more than PHYSICS_MESH_BUDGET triangles: fn for the deepest PHYSICS_MESH_DEEPEST
 * of them instead (physics__mesh_deepest), after reset(user) forgets what a cut walk found; how
 * many; the tally told. */
__attribute__((noinline, cold)) static uint32_t
mesh__walk_deepest(const mesh__pair *p, mesh__visit_f fn, void (*reset)(void *), void *user)
{
    const physics__bodies *b = p->c.b;
    const uint32_t mi = p->c.mesh, oi = p->c.other;
    const physics__mesh *mesh = b->mesh[mi];
    reset(user);
    /* The body's own box in the mesh's frame, grown by the margin as (p->lo, p->hi) are. */
    const physics__quat q = b->rotation[mi], qo = b->rotation[oi];
    const physics__v3 axis[3] = {quat_unrotate(q, quat_rotate(qo, v3(1, 0, 0))),
                                 quat_unrotate(q, quat_rotate(qo, v3(0, 1, 0))),
                                 quat_unrotate(q, quat_rotate(qo, v3(0, 0, 1)))};
    const float margin = p->c.margin;
    uint32_t tri[PHYSICS_MESH_DEEPEST];
    const uint32_t n = physics__mesh_deepest(
        mesh, p->lo, p->hi, quat_unrotate(q, v3_sub(b->position[oi], b->position[mi])), axis,
        v3_add(b->half[oi], v3(margin, margin, margin)), tri, PHYSICS_MESH_DEEPEST);
    uint32_t tested = 0;
    while (tested < n && !fn(user, tri[tested++]))
        ;
    physics__mesh_tally *tally = b->mesh_tally;
    if (tally && oi < b->n && !b->mesh_told[oi]) {
        const uint64_t key = (uint64_t)b->entity[oi].id << 32 | b->entity[mi].id;
        uint64_t least = atomic_load_explicit(&tally->cut, memory_order_relaxed);
        while (key < least && !atomic_compare_exchange_weak_explicit(&tally->cut, &least, key,
                                                                     memory_order_relaxed,
                                                                     memory_order_relaxed))
            ;
    }
    return tested;
}

static int mesh__count(void *user, uint32_t t)
{
    (void)user, (void)t;
    return 0;
}

/* Whether a box of [lo, hi] (mesh frame) likely takes in more than an eighth of
 * PHYSICS_MESH_BUDGET triangles: its share of the mesh's box on each axis (a flat one's whole on
 * its flat axis) times the triangles. Such a search counts them first (mesh__count): cut, it then
 * tests PHYSICS_MESH_DEEPEST, not those the walk met first as well. Only how long a search takes
 * depends on it: the triangles it tests are the same either way. */
static bool mesh__crowded(const physics__mesh *m, physics__v3 lo, physics__v3 hi)
{
    const physics__mesh_node *root = &m->node[0];
    /* (share > budget / 8 without the divisions: every walk asks.) */
    float share = 8.0f * (float)m->num_triangles, whole = (float)PHYSICS_MESH_BUDGET;
    for (int k = 0; k < 3; k++) {
        const float size = v3_get(root->hi, k) - v3_get(root->lo, k);
        const float in = f_min(v3_get(hi, k), v3_get(root->hi, k)) -
                         f_max(v3_get(lo, k), v3_get(root->lo, k));
        if (size > 0.0f)
            share *= f_max(0.0f, in), whole *= size;
    }
    return share > whole;
}

/* fn for each triangle of the pair's mesh whose box meets the other body's (p->lo, p->hi): from
 * the body's list of the triangles near it (its slot, unless this is no body of the world, a
 * compound's child or a cast shape posed past the last body, or another thread has it), else by
 * walking the tree. Past PHYSICS_MESH_BUDGET of them, the deepest (mesh__walk_deepest, which calls
 * reset first). */
static void mesh__walk(const mesh__pair *p, mesh__visit_f fn, void (*reset)(void *), void *user)
{
    const physics__bodies *b = p->c.b;
    const uint32_t oi = p->c.other;
    const physics__mesh *mesh = b->mesh[p->c.mesh];
    physics__mesh_near *near =
        oi < b->n && oi < b->num_near && mesh->serial ? &b->near[oi] : NULL;
    const bool mine = near && !atomic_exchange_explicit(&near->busy, 1, memory_order_acquire);
    uint32_t counted = PHYSICS_MESH_BUDGET, left = PHYSICS_MESH_BUDGET;
    int r = MESH_CUT;
    if (mine && mesh__near_holds(mesh, near, p->lo, p->hi))
        r = mesh__visit_list(mesh, near, p->lo, p->hi, fn, user, &left);
    else if (mesh__crowded(mesh, p->lo, p->hi) &&
             mesh__visit(mesh, p->lo, p->hi, mesh__count, NULL, &counted) == MESH_CUT)
        ; /* over the budget: no walk */
    else if (mine)
        r = mesh__visit_near(mesh, near, p->lo, p->hi, fn, user, &left);
    else
        r = mesh__visit(mesh, p->lo, p->hi, fn, user, &left);
    if (mine)
        atomic_store_explicit(&near->busy, 0, memory_order_release);
    uint32_t tested = PHYSICS_MESH_BUDGET - left;
    if (r == MESH_CUT)
        tested += mesh__walk_deepest(p, fn, reset, user);
    physics__mesh_tally *tally = b->mesh_tally;
    if (tally) {
        uint32_t most = atomic_load_explicit(&tally->most, memory_order_relaxed);
        while (tested > most && !atomic_compare_exchange_weak_explicit(&tally->most, &most, tested,
                                                                       memory_order_relaxed,
                                                                       memory_order_relaxed))
            ;
    }
}

uint32_t physics__mesh_manifolds(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                 bool prefer_b, physics__manifold_out *out, uint32_t max)
{
    if (max) {
        out[0].count = 0;
        out[0].normal = v3(0, 1, 0);
    }
    mesh__pair p;
    if (!max || !mesh__begin(&p, b, i, j, margin, prefer_b))
        return 0;
    mesh__walk(&p, mesh__collide_triangle, mesh__collide_reset, &p.c);
    const mesh__collide *c = &p.c;
    const physics__manifold_out *found = p.found;
    if (!c->num_found)
        return 0;
    /* Each found manifold's deepest point, and the cluster it joined (MESH_MAX_FOUND: none). */
    float least[MESH_MAX_FOUND];
    uint8_t cluster[MESH_MAX_FOUND];
    for (uint32_t k = 0; k < c->num_found; k++) {
        least[k] = INFINITY;
        for (uint32_t q = 0; q < found[k].count; q++)
            least[k] = f_min(least[k], found[k].p[q].sep);
        cluster[k] = MESH_MAX_FOUND;
    }
    const bool several = max > 1u;
    const float same_way = several ? MESH_CLUSTER_WAY : MESH_SAME_WAY;
    uint32_t made = 0;
    for (uint32_t seed = c->num; made < max;) {
        physics__manifold_out *m = &out[made];
        const physics__v3 n = found[seed].normal;
        physics__v3 mean = n;
        if (several) {
            mean = v3(0, 0, 0);
            for (uint32_t k = 0; k < c->num_found; k++)
                if (cluster[k] == MESH_MAX_FOUND &&
                    (k == seed || v3_dot(found[k].normal, n) >= same_way))
                    mean = v3_add(mean, found[k].normal);
            mean = v3_scale(mean, 1.0f / v3_len(mean));
        }
        m->count = 0;
        m->normal = c->mesh_is_a ? mean : v3_scale(mean, -1.0f);
        for (uint32_t k = 0; k < c->num_found; k++)
            if (cluster[k] == MESH_MAX_FOUND &&
                (k == seed || v3_dot(found[k].normal, n) >= same_way)) {
                cluster[k] = (uint8_t)made;
                physics__manifold_merge(m, &found[k]);
            }
        if (m->count > PHYSICS_MANIFOLD_POINTS) { /* (MESH_REDUCE_OVER) */
            float deepest = INFINITY;
            for (uint32_t q = 0; q < m->count; q++)
                deepest = f_min(deepest, m->p[q].sep);
            uint32_t kept = 0;
            for (uint32_t q = 0; q < m->count; q++)
                if (m->p[q].sep <= deepest + MESH_REDUCE_OVER)
                    m->p[kept++] = m->p[q];
            m->count = kept;
        }
        physics__manifold_reduce(m);
        made++;
        /* The deepest left (the first of equals) seeds the next, if it pushes along its triangle's
         * face normal: an edge's or the body's own face's normal (a box across the open border of
         * a mesh that another continues) joins a way or is dropped, as before there were several;
         * as a way of its own it kicked a box sliding along the seam of two floors up. */
        seed = MESH_MAX_FOUND;
        for (uint32_t k = 0; k < c->num_found; k++)
            if (cluster[k] == MESH_MAX_FOUND && p.face[k] &&
                (seed == MESH_MAX_FOUND || least[k] < least[seed]))
                seed = k;
        if (seed == MESH_MAX_FOUND)
            break;
    }
    return made;
}

void physics__mesh_manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                            bool prefer_b, physics__manifold_out *m)
{
    physics__mesh_manifolds(b, i, j, margin, prefer_b, m, 1);
}

/* ---- the deepest triangle only ---------------------------------------------------------------
 * A sweep (physics_ccd.c) asks how near a body is to a mesh, at each pose it tries: the least
 * separation of physics__mesh_manifold's points and that manifold's normal, which are the deepest
 * triangle's (its least point is the manifold's: merging and reducing keep the deepest point).
 * Its margin is the whole motion, so its box takes in several triangles, each tested in full, and
 * the manifold was then clustered, merged and reduced for its least point alone (jolt's
 * ConvexVsMesh: the sweeps' manifolds were 4.5% of the step's instructions). Here the triangles
 * are taken nearest plane first, and one that cannot be deeper than the deepest found is skipped
 * (mesh__collide_triangle); the answer is the same, bit for bit. */
enum { MESH_LEAST_MAX = 64 };

typedef struct mesh__near_list {
    mesh__collide *c;
    uint32_t count;
    uint32_t tri[MESH_LEAST_MAX];
    float gap[MESH_LEAST_MAX], d[MESH_LEAST_MAX];
    physics__v3 n[MESH_LEAST_MAX], v0[MESH_LEAST_MAX];
} mesh__near_list;

/* Keeps each triangle the body comes near, in order of its plane's gap (of equals, by index). */
static int mesh__gather(void *user, uint32_t t)
{
    mesh__near_list *l = user;
    physics__v3 n, v0;
    float d, gap;
    if (!mesh__near_plane(l->c, t, &n, &d, &v0, &gap))
        return 0;
    if (l->count == MESH_LEAST_MAX)
        return 1; /* more than the list holds: all of them in index order instead */
    uint32_t k = l->count++;
    for (; k > 0 && l->gap[k - 1] > gap; k--) {
        l->tri[k] = l->tri[k - 1], l->gap[k] = l->gap[k - 1], l->d[k] = l->d[k - 1];
        l->n[k] = l->n[k - 1], l->v0[k] = l->v0[k - 1];
    }
    l->tri[k] = t, l->gap[k] = gap, l->d[k] = d, l->n[k] = n, l->v0[k] = v0;
    return 0;
}

static void mesh__gather_reset(void *user)
{
    ((mesh__near_list *)user)->count = 0;
}

float physics__mesh_least(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                          physics__v3 *normal)
{
    *normal = v3(0, 1, 0);
    mesh__pair p;
    if (!mesh__begin(&p, b, i, j, margin, false))
        return INFINITY;
    mesh__collide *c = &p.c;
    c->least = true;
    mesh__near_list l;
    l.c = c;
    l.count = 0;
    mesh__walk(&p, mesh__gather, mesh__gather_reset, &l);
    if (l.count == MESH_LEAST_MAX) {
        mesh__walk(&p, mesh__collide_triangle, mesh__collide_reset, c);
    } else {
        /* In order of gap, and the depth found only shrinks: the first triangle that cannot be
         * deeper (mesh__collide_near's test) is followed by none that can. */
        for (uint32_t k = 0; k < l.count && !mesh__past_deepest(c, l.gap[k]); k++)
            mesh__collide_near(c, l.tri[k], l.n[k], l.d[k], l.v0[k], l.gap[k]);
    }
    if (!c->num_found)
        return INFINITY;
    const physics__v3 n = p.found[c->num].normal;
    *normal = c->mesh_is_a ? n : v3_scale(n, -1.0f);
    return c->depth;
}

/* ---- queries --------------------------------------------------------------------------------- */

typedef struct mesh__query {
    const physics__bodies *b;
    uint32_t i;
    physics__v3 c; /* sphere: world centre; ray: world origin */
    float r;       /* sphere radius */
    physics__v3 d; /* ray direction */
    float best;
    physics__v3 normal;
} mesh__query;

static int mesh__sphere_triangle(void *user, uint32_t t)
{
    mesh__query *q = user;
    physics__poly tp;
    mesh__triangle(q->b, q->i, t, &tp);
    float sep;
    physics__v3 n;
    physics__poly_closest(&tp, q->c, &sep, &n);
    return sep <= q->r;
}

bool physics__sphere_overlaps_mesh(const physics__bodies *b, uint32_t i, physics__v3 c, float r)
{
    mesh__query q = {.b = b, .i = i, .c = c, .r = r};
    const physics__v3 l = quat_unrotate(b->rotation[i], v3_sub(c, b->position[i]));
    uint32_t left = UINT32_MAX; /* a query, no contact: it stops at the first triangle it meets */
    return mesh__visit(b->mesh[i], v3_sub(l, v3(r, r, r)), v3_add(l, v3(r, r, r)),
                       mesh__sphere_triangle, &q, &left) != 0;
}

/* Rays walk the tree in the mesh's frame with a slab test per node. */
float physics__ray_mesh(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal)
{
    const physics__mesh *m = b->mesh[i];
    const physics__quat q = b->rotation[i];
    const physics__v3 lo = quat_unrotate(q, v3_sub(o, b->position[i])), ld = quat_unrotate(q, d);
    const physics__v3 inv =
        v3(ld.x != 0.0f ? 1.0f / ld.x : INFINITY, ld.y != 0.0f ? 1.0f / ld.y : INFINITY,
           ld.z != 0.0f ? 1.0f / ld.z : INFINITY);
    float best = INFINITY;
    physics__v3 bn = v3(0, 1, 0);
    uint32_t stack[64], top = 0;
    stack[top++] = 0;
    while (top) {
        const physics__mesh_node *n = &m->node[stack[--top]];
        float t0 = 0.0f, t1 = best;
        for (int k = 0; k < 3 && t0 <= t1; k++) {
            const float ok = v3_get(lo, k), ik = v3_get(inv, k);
            if (isinf(ik)) {
                if (ok < v3_get(n->lo, k) || ok > v3_get(n->hi, k))
                    t0 = INFINITY;
                continue;
            }
            float ta = (v3_get(n->lo, k) - ok) * ik, tb = (v3_get(n->hi, k) - ok) * ik;
            if (ta > tb) {
                const float x = ta;
                ta = tb, tb = x;
            }
            t0 = f_max(t0, ta);
            t1 = f_min(t1, tb);
        }
        if (t0 > t1)
            continue;
        if (!n->count) {
            if (top + 2 <= 64) {
                stack[top++] = n->first;
                stack[top++] = (uint32_t)(n - m->node) + 1u;
            }
            continue;
        }
        for (uint32_t t = n->first; t < n->first + n->count; t++) {
            /* Moller-Trumbore, both sides. */
            const physics__v3 p0 = m->vertex[m->tri[t][0]],
                              e1 = v3_sub(m->vertex[m->tri[t][1]], p0),
                              e2 = v3_sub(m->vertex[m->tri[t][2]], p0);
            const physics__v3 pv = v3_cross(ld, e2);
            const float det = v3_dot(e1, pv);
            if (fabsf(det) < 1e-12f)
                continue;
            const float id = 1.0f / det;
            const physics__v3 tv = v3_sub(lo, p0);
            const float u = v3_dot(tv, pv) * id;
            if (u < 0.0f || u > 1.0f)
                continue;
            const physics__v3 qv = v3_cross(tv, e1);
            const float v = v3_dot(ld, qv) * id;
            if (v < 0.0f || u + v > 1.0f)
                continue;
            const float tt = v3_dot(e2, qv) * id;
            if (tt >= 0.0f && tt < best) {
                best = tt;
                bn = v3_dot(m->normal[t], ld) > 0.0f ? v3_scale(m->normal[t], -1.0f) : m->normal[t];
            }
        }
    }
    if (best < INFINITY)
        *normal = quat_rotate(q, bn);
    return best;
}

/* ---- height fields --------------------------------------------------------------------------- */

const char *physics__height_field_mesh(ct_allocator_t *a, const float *heights, uint32_t columns,
                                       uint32_t rows, float cell_x, float cell_z, float **vertices,
                                       uint32_t **indices)
{
    *vertices = NULL, *indices = NULL;
    if (!heights)
        return "heights (NULL)";
    if (columns < 2 || rows < 2)
        return "heights (a height field has at least 2 x 2 samples)";
    if ((uint64_t)(columns - 1) * (rows - 1) * 2u > CT_PHYSICS_MAX_MESH_TRIANGLES)
        return "heights (more than CT_PHYSICS_MAX_MESH_TRIANGLES triangles)";
    if (!f_within(cell_x, CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE) ||
        !f_within(cell_z, CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
        return "cell_x, cell_z (each within [1e-3, 1e4] m)";
    /* Checked here, not as the vertices they become, so the refusal names the caller's field. */
    for (size_t k = 0; k < (size_t)columns * rows; k++)
        if (!(fabsf(heights[k]) <= CT_PHYSICS_MAX_POSITION))
            return "heights (a sample is NaN, infinite or outside +-1e5 m)";
    const size_t nv = (size_t)columns * rows, nt = (size_t)(columns - 1) * (rows - 1) * 2u;
    float *v = ct_alloc(a, nv * 3u * sizeof *v);
    uint32_t *ix = ct_alloc(a, nt * 3u * sizeof *ix);
    if (!v || !ix) {
        if (v)
            ct_free(a, v, nv * 3u * sizeof *v);
        if (ix)
            ct_free(a, ix, nt * 3u * sizeof *ix);
        return "heights (out of memory)";
    }
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < columns; c++) {
            float *p = &v[3u * ((size_t)r * columns + c)];
            p[0] = (float)c * cell_x, p[1] = heights[(size_t)r * columns + c];
            p[2] = (float)r * cell_z;
        }
    uint32_t *t = ix;
    for (uint32_t r = 0; r + 1 < rows; r++)
        for (uint32_t c = 0; c + 1 < columns; c++) {
            const uint32_t a0 = r * columns + c, b0 = a0 + 1, c0 = a0 + columns, d0 = c0 + 1;
            *t++ = a0, *t++ = c0, *t++ = b0;
            *t++ = b0, *t++ = c0, *t++ = d0;
        }
    *vertices = v, *indices = ix;
    return NULL;
}
