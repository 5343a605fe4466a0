/* physics_hull.c: convex hulls (v5): building one from points, its mass, and its tests against
 * boxes, spheres, capsules, other hulls and rays.
 *
 * Building. At most 64 points: a triple of points spans a plane, and a plane with every point on
 * one side (within a tolerance scaled to the hull's size) is a face plane. Planes are told apart by
 * the set of points lying on them (so the slightly different normals of near-coplanar triples make
 * one face), and each face's polygon is the 2D convex hull of its points. Which triples are worth
 * testing comes from a quick hull of triangles grown a point at a time (see "the faces" below):
 * 64 points on a sphere build in about 0.12 ms where testing all 41,664 triples took 1.3 ms.
 *
 * Collision. Two polytopes (hulls, or a hull and a box) are tested on the separating-axis theorem:
 * every face normal of each, and the cross products of edge pairs whose arcs cross on the Gauss
 * map (Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013: the only edge
 * pairs that can make a face of the Minkowski difference). The manifold is then made as for two
 * boxes: the incident face clipped by the reference face's side planes, reduced to four points,
 * with the same preference for faces and for last step's reference. A sphere meets a hull at the
 * nearest point of its surface; a capsule as against a box (physics_manifold.c): apart, at its
 * segment's nearest point, or clipped on the face that point lies over; going in, by the
 * separating axes of segment and hull. Projecting back and forth between segment and hull for
 * that nearest point, as this did, crawls where the segment lies along a face: a capsule tipping
 * off a hull ledge went 7.6 cm in, as it did off a box's. */
#include "physics_hull.h"
#include "physics_lanes.h"

#include <stdio.h>
#include <string.h>

/* As the box tests' (physics_manifold.c). */
#define HULL_FACE_TOLERANCE 0.005f
#define HULL_EDGE_TOLERANCE 0.005f
#define HULL_CLIP_SLOP 0.001f
/* How far (m, for each metre of the coordinates' size, and 1 + that) the rounding of a nearest
 * point's distance is taken to reach: hundreds of times the few ulps it takes
 * (poly__foot_alone, hull__deep_over). */
#define POLY_NEAREST_TOL 1e-4f
/* Faces whose normals are this far apart (cos) are told apart by a nearest point's way from the
 * hull whatever its rounding (hull__deep_over). */
#define HULL_APART_NORMALS 0.98f

/* Feature ids: bit 15 is PHYSICS_MANIFOLD_REFERENCE_B; a face contact puts the reference face in
 * bits 16-23 and the incident face in 24-30, the clip in 0-14; an edge contact is bit 31 with the
 * two edges. */
#define HULL_ID_EDGE 0x80000000u

/* ---- building ------------------------------------------------------------------------------ */

/* The 2D convex hull (Andrew's monotone chain) of the points idx[0 .. n - 1] in the plane (u, v),
 * counter-clockwise seen from u x v; strict corners only. Returns the count written to out. */
static uint32_t hull__polygon(const physics__v3 *p, const uint8_t *idx, uint32_t n, physics__v3 u,
                              physics__v3 v, float tol, uint8_t *out)
{
    float x[PHYSICS_HULL_MAX_VERTICES], y[PHYSICS_HULL_MAX_VERTICES];
    uint8_t s[PHYSICS_HULL_MAX_VERTICES];
    for (uint32_t k = 0; k < n; k++)
        s[k] = idx[k];
    /* Insertion sort by (x, y): n is small. */
    for (uint32_t k = 0; k < n; k++) {
        x[k] = v3_dot(p[s[k]], u);
        y[k] = v3_dot(p[s[k]], v);
    }
    for (uint32_t k = 1; k < n; k++)
        for (uint32_t j = k; j > 0 && (x[j] < x[j - 1] || (x[j] == x[j - 1] && y[j] < y[j - 1]));
             j--) {
            float t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
            t = y[j], y[j] = y[j - 1], y[j - 1] = t;
            const uint8_t c = s[j];
            s[j] = s[j - 1], s[j - 1] = c;
        }
    uint32_t h[2 * PHYSICS_HULL_MAX_VERTICES], m = 0;
    /* A turn counts as one only past tol times the edges' lengths: collinear points are not
     * corners. */
#define HULL_TURN(a, b, c) ((x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a]))
    for (uint32_t k = 0; k < n; k++) {
        while (m >= 2 && HULL_TURN(h[m - 2], h[m - 1], k) <=
                             tol * (fabsf(x[k] - x[h[m - 2]]) + fabsf(y[k] - y[h[m - 2]])))
            m--;
        h[m++] = k;
    }
    for (uint32_t k = n - 1, lower = m + 1; k-- > 0;) {
        while (m >= lower && HULL_TURN(h[m - 2], h[m - 1], k) <=
                                 tol * (fabsf(x[k] - x[h[m - 2]]) + fabsf(y[k] - y[h[m - 2]])))
            m--;
        h[m++] = k;
    }
#undef HULL_TURN
    m = m > 0 ? m - 1 : 0; /* the last point is the first again */
    for (uint32_t k = 0; k < m; k++)
        out[k] = s[h[k]];
    return m;
}

static const char *hull__fail(char *reason, size_t size, const char *fmt, uint32_t a, uint32_t b)
{
    snprintf(reason, size, fmt, a, b);
    return reason;
}

/* ---- the faces ------------------------------------------------------------------------------
 * A triple of points whose plane has every point on one side (within tol) spans a face; the face
 * is told by the set of points on that plane (so the slightly different normals of near-coplanar
 * triples make one face), found at its first such triple in the order (i < j < k), and its
 * polygon is the 2D convex hull of its points. Testing every triple (41,664 for 64 points) took
 * over a millisecond. The triples that pass are triples of points on one face of the hull, so a
 * quick hull of triangles (hull__triangulate) first names, for each point, the points that share
 * a triangle's plane with it (within a tolerance far looser than tol), and only triples of such
 * points are tested, in the same order and by the same test, and none whose three points lie on
 * a face found already (a cylinder's caps of 32 points would have 9,920): the same faces in the
 * same order, so the same hull to the bit (test_physics_hull holds it to every triple's). The one
 * difference: points within tol of one plane that testing every triple found twice with different
 * points on it (two overlapping faces, refused as too nearly degenerate) now make one face. Should
 * the triangles fail (points too nearly degenerate for them) or the faces found not close, every
 * triple is tested, as before. */

/* Room for the triangles of a hull being grown: each point added replaces at least one triangle
 * by at most as many as its horizon has edges, and the array is compacted after each point. */
#define HULL_TRIANGLES (4u * PHYSICS_HULL_MAX_VERTICES)

typedef struct hull__triangles {
    uint8_t v[HULL_TRIANGLES][3]; /* counter-clockwise seen from outside */
    physics__v3 n[HULL_TRIANGLES];
    float off[HULL_TRIANGLES];
    bool dead[HULL_TRIANGLES];
    uint32_t count;
    /* The triangle holding each directed edge a -> b, or 0xffff. */
    uint16_t edge[PHYSICS_HULL_MAX_VERTICES][PHYSICS_HULL_MAX_VERTICES];
} hull__triangles;

/* Adds triangle (a, b, c), claiming its edges; false when it is degenerate or an edge is taken
 * already (the surface would not be a closed one). */
static bool hull__triangle_add(hull__triangles *t, const physics__v3 *p, uint8_t a, uint8_t b,
                               uint8_t c)
{
    const physics__v3 n = v3_cross(v3_sub(p[b], p[a]), v3_sub(p[c], p[a]));
    const float len = v3_len(n);
    if (t->count == HULL_TRIANGLES || !(len > 0.0f) || t->edge[a][b] != 0xffff ||
        t->edge[b][c] != 0xffff || t->edge[c][a] != 0xffff)
        return false;
    const uint32_t f = t->count++;
    t->v[f][0] = a, t->v[f][1] = b, t->v[f][2] = c;
    t->n[f] = v3_scale(n, 1.0f / len);
    t->off[f] = v3_dot(t->n[f], p[a]);
    t->dead[f] = false;
    t->edge[a][b] = t->edge[b][c] = t->edge[c][a] = (uint16_t)f;
    return true;
}

/* The hull of p[0 .. count - 1] as triangles, grown a point at a time from the tetrahedron
 * (0, b, c, d) (the points that showed the set spans a volume): a point more than eps outside
 * some triangle replaces the triangles it sees (found from the one it is farthest outside of,
 * across edges, so they are one patch) by a fan from their horizon. Then each point's mask of the
 * points it shares a triangle's plane with (within `loose`). False when the triangles do not make
 * a closed surface with every point inside (within loose): then no masks. With 64 points at most,
 * each point tests every triangle rather than keeping conflict lists. */
static bool hull__triangulate(const physics__v3 *p, uint32_t count, uint32_t b, uint32_t c,
                              uint32_t d, float eps, float loose, uint64_t *masks)
{
    hull__triangles t;
    t.count = 0;
    memset(t.edge, 0xff, sizeof t.edge);
    const uint8_t corner[4] = {0, (uint8_t)b, (uint8_t)c, (uint8_t)d};
    /* The tetrahedron's faces, each turned to face away from the corner it leaves out. */
    static const uint8_t side[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    const physics__v3 n0 =
        v3_cross(v3_sub(p[corner[2]], p[corner[1]]), v3_sub(p[corner[3]], p[corner[1]]));
    const bool flip = v3_dot(n0, v3_sub(p[corner[0]], p[corner[1]])) > 0.0f;
    for (int f = 0; f < 4; f++) {
        const uint8_t x = corner[side[f][0]], y = corner[side[f][1]], z = corner[side[f][2]];
        if (!(flip ? hull__triangle_add(&t, p, x, z, y) : hull__triangle_add(&t, p, x, y, z)))
            return false;
    }
    for (uint32_t q = 1; q < count; q++) {
        if (q == b || q == c || q == d)
            continue;
        uint32_t best = 0;
        float far = -INFINITY;
        for (uint32_t f = 0; f < t.count; f++) {
            const float s = v3_dot(t.n[f], p[q]) - t.off[f];
            if (s > far)
                far = s, best = f;
        }
        if (!(far > eps))
            continue; /* inside, or on the surface: a triple with it is found by the masks */
        /* The triangles it sees, from the farthest across edges. */
        uint32_t stack[HULL_TRIANGLES], top = 0;
        bool seen[HULL_TRIANGLES] = {false};
        seen[best] = true;
        stack[top++] = best;
        t.dead[best] = true;
        while (top) {
            const uint32_t f = stack[--top];
            for (int e = 0; e < 3; e++) {
                const uint16_t g = t.edge[t.v[f][(e + 1) % 3]][t.v[f][e]];
                if (g == 0xffff)
                    return false;
                if (seen[g])
                    continue;
                seen[g] = true;
                if (v3_dot(t.n[g], p[q]) - t.off[g] > eps) {
                    t.dead[g] = true;
                    stack[top++] = g;
                }
            }
        }
        /* Their horizon: the edges of a seen triangle whose neighbour stays. */
        uint8_t horizon[HULL_TRIANGLES][2];
        uint32_t nh = 0;
        for (uint32_t f = 0; f < t.count; f++)
            if (t.dead[f])
                for (int e = 0; e < 3; e++) {
                    const uint8_t x = t.v[f][e], y = t.v[f][(e + 1) % 3];
                    if (!t.dead[t.edge[y][x]]) {
                        if (nh == HULL_TRIANGLES)
                            return false;
                        horizon[nh][0] = x, horizon[nh++][1] = y;
                    }
                }
        /* The seen triangles go (the rest moved down), the fan comes. */
        uint32_t kept = 0;
        for (uint32_t f = 0; f < t.count; f++) {
            if (t.dead[f]) {
                for (int e = 0; e < 3; e++)
                    t.edge[t.v[f][e]][t.v[f][(e + 1) % 3]] = 0xffff;
                continue;
            }
            if (kept != f) {
                memcpy(t.v[kept], t.v[f], sizeof t.v[f]);
                t.n[kept] = t.n[f], t.off[kept] = t.off[f], t.dead[kept] = false;
                for (int e = 0; e < 3; e++)
                    t.edge[t.v[kept][e]][t.v[kept][(e + 1) % 3]] = (uint16_t)kept;
            }
            kept++;
        }
        t.count = kept;
        for (uint32_t e = 0; e < nh; e++)
            if (!hull__triangle_add(&t, p, horizon[e][0], horizon[e][1], (uint8_t)q))
                return false;
    }
    /* Closed, and every point inside (the points skipped were within eps of the surface of the
     * hull of their time, which only grew). */
    for (uint32_t f = 0; f < t.count; f++) {
        for (int e = 0; e < 3; e++)
            if (t.edge[t.v[f][(e + 1) % 3]][t.v[f][e]] == 0xffff)
                return false;
        for (uint32_t q = 0; q < count; q++)
            if (!(v3_dot(t.n[f], p[q]) - t.off[f] <= loose))
                return false;
    }
    memset(masks, 0, count * sizeof *masks);
    for (uint32_t f = 0; f < t.count; f++) {
        uint64_t on = 0;
        for (uint32_t q = 0; q < count; q++)
            if (fabsf(v3_dot(t.n[f], p[q]) - t.off[f]) <= loose)
                on |= 1ull << q;
        for (uint32_t q = 0; q < count; q++)
            if (on >> q & 1u)
                masks[q] |= on;
    }
    return true;
}

/* The faces of the hull of p[0 .. count - 1] (size: its largest extent; tol: how far from a
 * plane a point may lie and be on it) into h: its corners (as given, in the order the faces first
 * use them), faces and edges. Only the triples (i, j, k) with j and k in masks[i] and k in
 * masks[j] are tested, and with `skip`, none inside a face found already. NULL, or why the points
 * make no hull. */
static const char *hull__faces(physics__hull *h, const physics__v3 *p, uint32_t count, float size,
                               float tol, const uint64_t *masks, bool skip)
{
    uint64_t sets[PHYSICS_HULL_MAX_FACES];
    physics__v3 normals[PHYSICS_HULL_MAX_FACES];
    uint32_t nf = 0;
    /* The faces found so far that each point is on (bit f of word f / 64). */
    uint64_t faces_of[PHYSICS_HULL_MAX_VERTICES][(PHYSICS_HULL_MAX_FACES + 63u) / 64u];
    memset(faces_of, 0, count * sizeof faces_of[0]);
    for (uint32_t i = 0; i < count; i++)
        for (uint64_t js = masks[i] & ~(~0ull >> (63u - i)); js; js &= js - 1u) {
            const uint32_t j = (uint32_t)__builtin_ctzll(js);
            /* A triple inside a face found already gives that face again (or, within tol of
             * degenerate, an overlapping sliver of it the edges below would refuse). */
            uint64_t covered = 0;
            for (uint32_t w = 0; skip && w < (PHYSICS_HULL_MAX_FACES + 63u) / 64u; w++)
                for (uint64_t fs = faces_of[i][w] & faces_of[j][w]; fs; fs &= fs - 1u)
                    covered |= sets[64u * w + (uint32_t)__builtin_ctzll(fs)];
            uint64_t ks = masks[i] & masks[j] & ~covered & ~(~0ull >> (63u - j));
            while (ks) {
                const uint32_t k = (uint32_t)__builtin_ctzll(ks);
                ks &= ks - 1u;
                physics__v3 n = v3_cross(v3_sub(p[j], p[i]), v3_sub(p[k], p[i]));
                const float len = v3_len(n);
                if (len <= 1e-6f * size * size)
                    continue;
                n = v3_scale(n, 1.0f / len);
                const float off = v3_dot(n, p[i]);
                float most = -INFINITY, least = INFINITY;
                uint64_t on = 0;
                for (uint32_t q = 0; q < count; q++) {
                    const float s = v3_dot(n, p[q]) - off;
                    most = f_max(most, s);
                    least = f_min(least, s);
                    if (fabsf(s) <= tol)
                        on |= 1ull << q;
                    if (most > tol && least < -tol)
                        break; /* points on both sides: no face */
                }
                if (most > tol && least < -tol)
                    continue;
                if (most > tol)
                    n = v3_scale(n, -1.0f);
                uint32_t f = 0;
                while (f < nf && sets[f] != on)
                    f++;
                if (f < nf)
                    continue;
                if (nf == PHYSICS_HULL_MAX_FACES)
                    return "points (too nearly degenerate to make a hull of)";
                sets[nf] = on;
                normals[nf] = n;
                for (uint64_t qs = on; qs; qs &= qs - 1u)
                    faces_of[__builtin_ctzll(qs)][nf / 64u] |= 1ull << (nf % 64u);
                nf++;
                if (skip)
                    ks &= ~on;
            }
        }
    /* Each face's polygon, and the corners they use. */
    int8_t remap[PHYSICS_HULL_MAX_VERTICES];
    memset(remap, -1, sizeof remap);
    uint8_t poly[PHYSICS_HULL_MAX_FACES][PHYSICS_HULL_MAX_VERTICES];
    uint32_t poly_n[PHYSICS_HULL_MAX_FACES], used = 0, total = 0;
    for (uint32_t f = 0; f < nf; f++) {
        uint8_t idx[PHYSICS_HULL_MAX_VERTICES];
        uint32_t n = 0;
        for (uint32_t q = 0; q < count; q++)
            if (sets[f] >> q & 1u)
                idx[n++] = (uint8_t)q;
        const physics__v3 nn = normals[f];
        const physics__v3 t = fabsf(nn.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
        const physics__v3 u = v3_scale(v3_cross(t, nn), 1.0f / v3_len(v3_cross(t, nn)));
        const physics__v3 v = v3_cross(nn, u);
        poly_n[f] = hull__polygon(p, idx, n, u, v, tol, poly[f]);
        if (poly_n[f] < 3)
            return "points (too nearly degenerate to make a hull of)";
        total += poly_n[f];
        for (uint32_t k = 0; k < poly_n[f]; k++)
            if (remap[poly[f][k]] < 0)
                remap[poly[f][k]] = (int8_t)used++;
    }
    if (total > 2u * PHYSICS_HULL_MAX_EDGES)
        return "points (too nearly degenerate to make a hull of)";

    memset(h, 0, sizeof *h);
    for (uint32_t q = 0; q < count; q++)
        if (remap[q] >= 0)
            h->vertex[remap[q]] = p[q];
    h->num_vertices = used;
    h->num_faces = nf;
    uint32_t at = 0;
    for (uint32_t f = 0; f < nf; f++) {
        h->face_first[f] = (uint16_t)at;
        h->face_count[f] = (uint8_t)poly_n[f];
        for (uint32_t k = 0; k < poly_n[f]; k++)
            h->face_index[at++] = (uint8_t)remap[poly[f][k]];
    }
    /* Edges: each directed side a -> b of a face meets b -> a of its neighbour. */
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t k = 0; k < poly_n[f]; k++) {
            const uint8_t a = h->face_index[h->face_first[f] + k],
                          z = h->face_index[h->face_first[f] + (k + 1) % poly_n[f]];
            if (a < z) {
                if (h->num_edges == PHYSICS_HULL_MAX_EDGES)
                    return "points (too nearly degenerate to make a hull of)";
                h->edge[h->num_edges++] = (physics__hull_edge){{a, z}, {(uint8_t)f, 0xff}};
            }
        }
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t k = 0; k < poly_n[f]; k++) {
            const uint8_t a = h->face_index[h->face_first[f] + k],
                          z = h->face_index[h->face_first[f] + (k + 1) % poly_n[f]];
            if (a < z)
                continue;
            uint32_t e = 0;
            while (e < h->num_edges && !(h->edge[e].v[0] == z && h->edge[e].v[1] == a))
                e++;
            if (e == h->num_edges || h->edge[e].f[1] != 0xff)
                return "points (too nearly degenerate to make a hull of)";
            h->edge[e].f[1] = (uint8_t)f;
        }
    for (uint32_t e = 0; e < h->num_edges; e++)
        if (h->edge[e].f[1] == 0xff)
            return "points (too nearly degenerate to make a hull of)";
    return NULL;
}

/* physics__hull_build, or with every_triple physics__hull_build_every_triple. */
static const char *hull__build(physics__hull *h, const float *points, uint32_t count, char *reason,
                               size_t reason_size, bool every_triple)
{
    if (!points)
        return "points (NULL)";
    if (count == 1)
        return "points (one point: a hull needs at least 4 that span a volume)";
    if (count < 4)
        return "points (fewer than 4: a hull needs at least 4 that span a volume)";
    if (count > PHYSICS_HULL_MAX_VERTICES)
        return "points (more than 64)";
    physics__v3 p[PHYSICS_HULL_MAX_VERTICES];
    physics__v3 lo = v3(INFINITY, INFINITY, INFINITY), hi = v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t k = 0; k < count; k++) {
        p[k] = v3_load(points + 3 * k);
        if (!v3_within(p[k], CT_PHYSICS_MAX_SIZE))
            return hull__fail(reason, reason_size,
                              "points (point %u is NaN, infinite or outside +-1e4 m)", k, 0);
        lo = v3_min(lo, p[k]);
        hi = v3_max(hi, p[k]);
    }
    for (uint32_t a = 0; a < count; a++)
        for (uint32_t c = a + 1; c < count; c++) {
            const physics__v3 d = v3_sub(p[a], p[c]);
            if (v3_dot(d, d) < CT_PHYSICS_MIN_SIZE * CT_PHYSICS_MIN_SIZE)
                return hull__fail(reason, reason_size,
                                  "points (points %u and %u are duplicates: closer than 1e-3 m)", a,
                                  c);
        }
    const physics__v3 span = v3_sub(hi, lo);
    const float size = f_max(span.x, f_max(span.y, span.z));
    const float tol = 1e-5f * size;
    /* Does it span a volume? The farthest point from the first, from that line, from that plane. */
    uint32_t b = 0, c = 0, d = 0;
    float best = 0.0f;
    for (uint32_t k = 1; k < count; k++) {
        const physics__v3 e = v3_sub(p[k], p[0]);
        if (v3_dot(e, e) > best)
            best = v3_dot(e, e), b = k;
    }
    const physics__v3 ab = v3_sub(p[b], p[0]);
    best = 0.0f;
    for (uint32_t k = 1; k < count; k++) {
        const physics__v3 e = v3_cross(ab, v3_sub(p[k], p[0]));
        if (v3_dot(e, e) > best)
            best = v3_dot(e, e), c = k;
    }
    if (sqrtf(best) / v3_len(ab) < CT_PHYSICS_MIN_SIZE)
        return "points (all on one line: they span no volume)";
    const physics__v3 pn = v3_scale(v3_cross(ab, v3_sub(p[c], p[0])), 1.0f / sqrtf(best));
    best = 0.0f;
    for (uint32_t k = 1; k < count; k++)
        if (fabsf(v3_dot(pn, v3_sub(p[k], p[0]))) > best)
            best = fabsf(v3_dot(pn, v3_sub(p[k], p[0]))), d = k;
    if (best < CT_PHYSICS_MIN_SIZE)
        return "points (coplanar: all on one plane, they span no volume)";

    /* The faces: the triples the triangles name first, every triple when that fails. */
    uint64_t masks[PHYSICS_HULL_MAX_VERTICES];
    const char *why = "triangles";
    if (!every_triple && hull__triangulate(p, count, b, c, d, tol, 100.0f * tol, masks))
        why = hull__faces(h, p, count, size, tol, masks, true);
    if (why) {
        const uint64_t all = count == 64u ? ~0ull : (1ull << count) - 1u;
        for (uint32_t q = 0; q < count; q++)
            masks[q] = all;
        why = hull__faces(h, p, count, size, tol, masks, false);
        if (why)
            return why;
    }
    const uint32_t nf = h->num_faces, used = h->num_vertices;

    /* Mass: tetrahedra from a point inside to each face's fan of triangles. */
    physics__v3 ref = v3(0, 0, 0);
    for (uint32_t k = 0; k < used; k++)
        ref = v3_add(ref, h->vertex[k]);
    ref = v3_scale(ref, 1.0f / (float)used);
    double vol = 0.0, cx = 0.0, cy = 0.0, cz = 0.0, xx = 0.0, yy = 0.0, zz = 0.0;
    for (uint32_t f = 0; f < nf; f++) {
        const uint8_t *fi = &h->face_index[h->face_first[f]];
        const physics__v3 a = v3_sub(h->vertex[fi[0]], ref);
        for (uint32_t k = 1; k + 1 < h->face_count[f]; k++) {
            const physics__v3 bb = v3_sub(h->vertex[fi[k]], ref),
                              cc = v3_sub(h->vertex[fi[k + 1]], ref);
            const double det = (double)v3_dot(a, v3_cross(bb, cc));
            vol += det / 6.0;
            cx += det / 24.0 * ((double)a.x + bb.x + cc.x);
            cy += det / 24.0 * ((double)a.y + bb.y + cc.y);
            cz += det / 24.0 * ((double)a.z + bb.z + cc.z);
#define HULL_SQ(k)                                                                                 \
    ((double)a.k * a.k + (double)bb.k * bb.k + (double)cc.k * cc.k + (double)a.k * bb.k +          \
     (double)a.k * cc.k + (double)bb.k * cc.k)
            xx += det / 60.0 * HULL_SQ(x);
            yy += det / 60.0 * HULL_SQ(y);
            zz += det / 60.0 * HULL_SQ(z);
#undef HULL_SQ
        }
    }
    if (!(vol > 0.0))
        return "points (too nearly degenerate to make a hull of)";
    cx /= vol, cy /= vol, cz /= vol;
    /* Second moments about the centroid, per unit volume. */
    const double sx = xx / vol - cx * cx, sy = yy / vol - cy * cy, sz = zz / vol - cz * cz;
    h->volume = (float)vol;
    h->inertia = v3((float)(sy + sz), (float)(sx + sz), (float)(sx + sy));
    h->centroid = v3_add(ref, v3((float)cx, (float)cy, (float)cz));
    h->half = v3(0, 0, 0);
    for (uint32_t k = 0; k < used; k++) {
        h->vertex[k] = v3_sub(h->vertex[k], h->centroid);
        h->half = v3_max(h->half,
                         v3(fabsf(h->vertex[k].x), fabsf(h->vertex[k].y), fabsf(h->vertex[k].z)));
    }
    /* Planes through the corners (Newell's normal: the polygon's own, not a triple's). */
    for (uint32_t f = 0; f < nf; f++) {
        const uint8_t *fi = &h->face_index[h->face_first[f]];
        physics__v3 n = v3(0, 0, 0), mid = v3(0, 0, 0);
        for (uint32_t k = 0; k < h->face_count[f]; k++) {
            const physics__v3 a = h->vertex[fi[k]], z = h->vertex[fi[(k + 1) % h->face_count[f]]];
            n = v3_add(n, v3((a.y - z.y) * (a.z + z.z), (a.z - z.z) * (a.x + z.x),
                             (a.x - z.x) * (a.y + z.y)));
            mid = v3_add(mid, a);
        }
        n = v3_scale(n, 1.0f / v3_len(n));
        h->normal[f] = n;
        h->offset[f] = v3_dot(n, v3_scale(mid, 1.0f / (float)h->face_count[f]));
    }
    /* Thin in some direction: the width across each face. */
    for (uint32_t f = 0; f < nf; f++) {
        float least = INFINITY;
        for (uint32_t k = 0; k < used; k++)
            least = f_min(least, v3_dot(h->normal[f], h->vertex[k]));
        if (h->offset[f] - least < CT_PHYSICS_MIN_SIZE)
            return "points (thinner than 1e-3 m across a face: they span no volume)";
    }
    return NULL;
}

const char *physics__hull_build(physics__hull *h, const float *points, uint32_t count, char *reason,
                                size_t reason_size)
{
    return hull__build(h, points, count, reason, reason_size, false);
}

const char *physics__hull_build_every_triple(physics__hull *h, const float *points, uint32_t count,
                                             char *reason, size_t reason_size)
{
    return hull__build(h, points, count, reason, reason_size, true);
}

/* ---- polytopes in the world -------------------------------------------------------------- */

/* A box's corners are k = x | y << 1 | z << 2 (bit set: the + side); faces +x -x +y -y +z -z. */
static const uint16_t box_face_first[6] = {0, 4, 8, 12, 16, 20};
static const uint8_t box_face_count[6] = {4, 4, 4, 4, 4, 4};
static const uint8_t box_face_index[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3,
                                           0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const physics__hull_edge box_edge[12] = {
    {{0, 1}, {3, 5}}, {{2, 3}, {2, 5}}, {{4, 5}, {3, 4}}, {{6, 7}, {2, 4}},
    {{0, 2}, {1, 5}}, {{1, 3}, {0, 5}}, {{4, 6}, {1, 4}}, {{5, 7}, {0, 4}},
    {{0, 4}, {1, 3}}, {{1, 5}, {0, 3}}, {{2, 6}, {1, 2}}, {{3, 7}, {0, 2}},
};

void physics__poly_of(const physics__bodies *b, uint32_t i, physics__poly *p)
{
    const physics__quat q = b->rotation[i];
    const physics__v3 c = b->position[i];
    p->c = c;
    p->flat = false;
    p->box = false;
    if (b->shape[i] == CT_BODY_HULL) {
        const physics__hull *h = b->hull[i];
        p->nv = h->num_vertices, p->nf = h->num_faces, p->ne = h->num_edges;
        for (uint32_t k = 0; k < p->nv; k++)
            p->v[k] = v3_add(c, quat_rotate(q, h->vertex[k]));
        for (uint32_t f = 0; f < p->nf; f++) {
            p->n[f] = quat_rotate(q, h->normal[f]);
            p->d[f] = h->offset[f] + v3_dot(p->n[f], c);
        }
        p->face_first = h->face_first, p->face_count = h->face_count;
        p->face_index = h->face_index, p->edge = h->edge;
        return;
    }
    const physics__v3 hx = quat_rotate(q, v3(b->half[i].x, 0, 0)),
                      hy = quat_rotate(q, v3(0, b->half[i].y, 0)),
                      hz = quat_rotate(q, v3(0, 0, b->half[i].z));
    p->nv = 8, p->nf = 6, p->ne = 12;
    /* Corner k is ((c -+ hx) -+ hy) -+ hz: the sums its corners share taken once (c + -h is
     * c - h to the bit). */
    physics__v3 cx[2], cxy[4];
    cx[0] = v3_sub(c, hx), cx[1] = v3_add(c, hx);
    for (uint32_t k = 0; k < 4; k++)
        cxy[k] = (k & 2u) ? v3_add(cx[k & 1u], hy) : v3_sub(cx[k & 1u], hy);
    for (uint32_t k = 0; k < 8; k++)
        p->v[k] = (k & 4u) ? v3_add(cxy[k & 3u], hz) : v3_sub(cxy[k & 3u], hz);
    const physics__v3 ax[3] = {quat_rotate(q, v3(1, 0, 0)), quat_rotate(q, v3(0, 1, 0)),
                               quat_rotate(q, v3(0, 0, 1))};
    const float h3[3] = {b->half[i].x, b->half[i].y, b->half[i].z};
    for (uint32_t k = 0; k < 3; k++) {
        /* (The -axis face's dot is the +axis face's negated, to the bit.) */
        const float along = v3_dot(ax[k], c);
        p->n[2 * k] = ax[k], p->n[2 * k + 1] = v3_scale(ax[k], -1.0f);
        p->d[2 * k] = along + h3[k], p->d[2 * k + 1] = -along + h3[k];
    }
    p->face_first = box_face_first, p->face_count = box_face_count;
    p->face_index = box_face_index, p->edge = box_edge;
    p->box = true;
    for (uint32_t k = 0; k < 3; k++)
        p->axis[k] = ax[k], p->h[k] = h3[k];
}

/* The extent [*lo, *hi] of polytope p along dir. */
static void poly__interval(const physics__poly *p, physics__v3 dir, float *lo, float *hi)
{
    if (p->box) {
        const float c = v3_dot(p->c, dir);
        const float r = p->h[0] * fabsf(v3_dot(p->axis[0], dir)) +
                        p->h[1] * fabsf(v3_dot(p->axis[1], dir)) +
                        p->h[2] * fabsf(v3_dot(p->axis[2], dir));
        *lo = c - r, *hi = c + r;
        return;
    }
    float l = INFINITY, h = -INFINITY;
    for (uint32_t k = 0; k < p->nv; k++) {
        const float x = v3_dot(p->v[k], dir);
        l = f_min(l, x), h = f_max(h, x);
    }
    *lo = l, *hi = h;
}

static float poly__support(const physics__poly *p, physics__v3 dir)
{
    float best = -INFINITY;
    for (uint32_t k = 0; k < p->nv; k++)
        best = f_max(best, v3_dot(p->v[k], dir));
    return best;
}

/* Side k of face f as poly__over_face and poly__side_closest measure it: its first corner a, the
 * way e to its last, e's squared length, and its outward normal in the face's plane as long as
 * the side (e x n). */
typedef struct poly__side {
    physics__v3 a, e, out;
    float ee;
} poly__side;

static inline poly__side poly__side_of(const physics__poly *p, uint32_t f, uint32_t k)
{
    const uint8_t *fi = &p->face_index[p->face_first[f]];
    const uint32_t count = p->face_count[f];
    const physics__v3 a = p->v[fi[k]], e = v3_sub(p->v[fi[k + 1 < count ? k + 1 : 0]], a);
    return (poly__side){a, e, v3_cross(e, p->n[f]), v3_dot(e, e)};
}

/* The sides of a polytope's faces kept for a search that measures many points against it (a
 * capsule's halving: up to 24), face f's made the first time it is asked (bit f of `made`), at
 * its places in face_index; the same values made on the spot otherwise. */
enum { POLY_SIDES = 64 };
typedef struct poly__sides {
    uint64_t made;
    poly__side side[POLY_SIDES];
} poly__sides;

/* Room for p's sides in `sides`, or NULL when they do not fit (a hull of many faces). */
static poly__sides *poly__sides_for(const physics__poly *p, poly__sides *sides)
{
    if (p->nf > 64u)
        return NULL;
    for (uint32_t f = 0; f < p->nf; f++)
        if (p->face_first[f] + p->face_count[f] > POLY_SIDES)
            return NULL;
    sides->made = 0;
    return sides;
}

/* Face f's kept sides (made now if not yet), or NULL without room for them. */
static inline const poly__side *poly__face_sides(const physics__poly *p, poly__sides *sides,
                                                 uint32_t f)
{
    if (!sides)
        return NULL;
    poly__side *s = &sides->side[p->face_first[f]];
    if (!(sides->made >> f & 1u)) {
        for (uint32_t k = 0; k < p->face_count[f]; k++)
            s[k] = poly__side_of(p, f, k);
        sides->made |= (uint64_t)1 << f;
    }
    return s;
}

/* Whether point q of face f's plane lies within its polygon, at least inset from each side.
 * (Inlined: gcc called it from poly__closest's loops, a few points a capsule's search, which cost
 * 3.5 M instructions of the convex_vs_mesh run.) */
static inline __attribute__((always_inline)) bool
poly__over_face(const physics__poly *p, poly__sides *sides, uint32_t f, physics__v3 q, float inset)
{
    const poly__side *kept = poly__face_sides(p, sides, f);
    const uint32_t count = p->face_count[f];
    for (uint32_t k = 0; k < count; k++) {
        const poly__side s = kept ? kept[k] : poly__side_of(p, f, k);
        const float out = v3_dot(s.out, v3_sub(q, s.a));
        if (!(out <= 0.0f) || (inset > 0.0f && out * out < inset * inset * s.ee))
            return false;
    }
    return true;
}

/* The point of face f's sides nearest to x (q if none is nearer than infinity). */
static physics__v3 poly__side_closest(const physics__poly *p, poly__sides *sides, uint32_t f,
                                      physics__v3 x, physics__v3 q)
{
    const poly__side *kept = poly__face_sides(p, sides, f);
    const uint32_t count = p->face_count[f];
    physics__v3 best = q;
    float best_d = INFINITY;
    for (uint32_t k = 0; k < count; k++) {
        const poly__side s = kept ? kept[k] : poly__side_of(p, f, k);
        const float t =
            s.ee > 0.0f ? f_min(f_max(v3_dot(v3_sub(x, s.a), s.e) / s.ee, 0.0f), 1.0f) : 0.0f;
        const physics__v3 c = v3_add(s.a, v3_scale(s.e, t)), dx = v3_sub(x, c);
        if (v3_dot(dx, dx) < best_d)
            best_d = v3_dot(dx, dx), best = c;
    }
    return best;
}

/* What the rounding of a nearest point's distance may reach, about points a and b. */
static float poly__tolerance(physics__v3 a, physics__v3 b)
{
    const float big = f_max(f_max(f_max(fabsf(a.x), fabsf(a.y)), f_max(fabsf(a.z), fabsf(b.x))),
                            f_max(fabsf(b.y), fabsf(b.z)));
    return POLY_NEAREST_TOL * (1.0f + big);
}

/* Whether x's foot on face f's plane (x s[f] in front of it, and s[g] of each face g's), which
 * lies within f's polygon, is x's nearest point of p with no other face's nearest point measured
 * as near: every other face x lies in front of is, along its normal, further behind the foot
 * than the rounding of the distances could make up. (p lies behind f's plane, so a point y of it
 * is sqrt(s^2 + |foot - y|^2) or more from x; a point of face g at least g's depth under it.) */
static bool poly__foot_alone(const physics__poly *p, uint32_t f, physics__v3 x, const float *s)
{
    const float tol = poly__tolerance(x, x), near = 4.0f * tol * s[f] + 1e-6f * s[f] * s[f];
    for (uint32_t g = 0; g < p->nf; g++) {
        if (g == f || s[g] <= 0.0f)
            continue;
        const float depth = s[f] * v3_dot(p->n[g], p->n[f]) - s[g];
        if (!(depth > tol && depth * depth > near + 4.0f * tol * depth))
            return false;
    }
    return true;
}

/* physics__poly_closest (p's sides kept in `sides` unless NULL), and the face x lies furthest in
 * front of (*face). */
static inline physics__v3 poly__closest(const physics__poly *p, poly__sides *sides, physics__v3 x,
                                        float *sep, physics__v3 *n, uint32_t *face)
{
    float s[PHYSICS_HULL_MAX_FACES];
    float most = -INFINITY;
    uint32_t fm = 0;
    for (uint32_t f = 0; f < p->nf; f++) {
        s[f] = v3_dot(p->n[f], x) - p->d[f];
        if (s[f] > most)
            most = s[f], fm = f;
    }
    *face = fm;
    if (most <= 0.0f) {
        *sep = most;
        *n = p->n[fm];
        return x;
    }
    /* The foot on the face x lies furthest in front of: alone nearest (the way a point over a
     * face mostly lies), or each face x lies in front of measured, the nearest first met, each
     * face's point its foot within it or else the nearest of its sides'. */
    const physics__v3 foot = v3_sub(x, v3_scale(p->n[fm], most));
    const bool over = poly__over_face(p, sides, fm, foot, 0.0f);
    physics__v3 best = foot;
    float best_d;
    if (over && poly__foot_alone(p, fm, x, s)) {
        const physics__v3 dx = v3_sub(x, foot);
        best_d = v3_dot(dx, dx);
    } else {
        best = x, best_d = INFINITY;
        for (uint32_t f = 0; f < p->nf; f++) {
            if (s[f] <= 0.0f)
                continue;
            const physics__v3 q = f == fm ? foot : v3_sub(x, v3_scale(p->n[f], s[f]));
            const bool within = f == fm ? over : poly__over_face(p, sides, f, q, 0.0f);
            const physics__v3 c = within ? q : poly__side_closest(p, sides, f, x, q),
                              dx = v3_sub(x, c);
            if (v3_dot(dx, dx) < best_d)
                best_d = v3_dot(dx, dx), best = c;
        }
    }
    const float dist = sqrtf(best_d);
    *sep = dist;
    *n = dist > 1e-6f ? v3_scale(v3_sub(x, best), 1.0f / dist) : p->n[fm];
    return best;
}

physics__v3 physics__poly_closest(const physics__poly *p, physics__v3 x, float *sep, physics__v3 *n)
{
    uint32_t face;
    return poly__closest(p, NULL, x, sep, n, &face);
}

/* ---- manifolds ---------------------------------------------------------------------------- */

static void hull__add(physics__manifold_out *m, physics__v3 point, float sep, uint32_t id)
{
    if (m->count < PHYSICS_MANIFOLD_MAX_CLIP)
        m->p[m->count++] = (physics__manifold_point){point, sep, id};
}

/* Sutherland-Hodgman against dot(x, axis) <= limit; a cut point's id names the plane and the
 * edge's first point. */
static uint32_t hull__clip(const physics__manifold_point *in, uint32_t n, physics__v3 axis,
                           float limit, uint32_t plane, physics__manifold_point *out, uint32_t room)
{
    uint32_t m = 0;
    for (uint32_t k = 0; k < n && m + 2 <= room; k++) {
        const physics__manifold_point *a = &in[k], *z = &in[k + 1 < n ? k + 1 : 0];
        const float da = v3_dot(a->point, axis) - limit, dz = v3_dot(z->point, axis) - limit;
        if (da <= 0.0f)
            out[m++] = *a;
        if ((da <= 0.0f) != (dz <= 0.0f)) {
            const float t = da / (da - dz);
            out[m++] =
                (physics__manifold_point){v3_add(a->point, v3_scale(v3_sub(z->point, a->point), t)),
                                          0.0f, (a->id & 0xffu) | ((plane + 1u) & 0x7fu) << 8};
        }
    }
    return m;
}

/* Reference face f of r (normal n, towards the other), incident polytope in. */
void physics__poly_faces(const physics__poly *r, uint32_t f, const physics__poly *in, physics__v3 n,
                         float margin, uint32_t id_base, physics__manifold_out *m)
{
    uint32_t g = 0;
    float least = INFINITY;
    for (uint32_t k = 0; k < in->nf; k++)
        if (v3_dot(in->n[k], n) < least)
            least = v3_dot(in->n[k], n), g = k;
    /* Room for the incident face's corners plus two per clip plane. */
    enum { ROOM = PHYSICS_HULL_MAX_VERTICES * 3 };
    physics__manifold_point poly[2][ROOM];
    uint32_t count = in->face_count[g], cur = 0;
    const uint8_t *gi = &in->face_index[in->face_first[g]];
    for (uint32_t k = 0; k < count; k++)
        poly[0][k] = (physics__manifold_point){in->v[gi[k]], 0.0f, gi[k]};
    const uint8_t *fi = &r->face_index[r->face_first[f]];
    const uint32_t rc = r->face_count[f];
    for (uint32_t k = 0; k < rc && count; k++) {
        const physics__v3 a = r->v[fi[k]], z = r->v[fi[k + 1 < rc ? k + 1 : 0]];
        physics__v3 s = v3_cross(v3_sub(z, a), n);
        s = v3_scale(s, 1.0f / v3_len(s));
        count =
            hull__clip(poly[cur], count, s, v3_dot(s, a) + HULL_CLIP_SLOP, k, poly[cur ^ 1], ROOM);
        cur ^= 1;
    }
    const uint32_t ids = id_base | f << 16 | (g & 0x7fu) << 24;
    for (uint32_t k = 0; k < count; k++) {
        const float sep = v3_dot(poly[cur][k].point, n) - r->d[f];
        if (sep <= margin)
            hull__add(m, v3_sub(poly[cur][k].point, v3_scale(n, 0.5f * sep)), sep,
                      ids | poly[cur][k].id);
    }
}

/* Whether the arcs a-b (of one polytope's edge) and c-d (the other's, negated) cross on the unit
 * sphere: only then is their edge pair a face of the Minkowski difference. */
/* v3_dot(v, each lane's axis), rounded as the scalar one, and f_min of two lanes' values. */
static inline f32x4 poly__dot4(physics__v3 v, v3x4 ax)
{
    return f32x4_add(
        f32x4_add(f32x4_mul(f32x4_splat(v.x), ax.x), f32x4_mul(f32x4_splat(v.y), ax.y)),
        f32x4_mul(f32x4_splat(v.z), ax.z));
}
static inline f32x4 poly__min4(f32x4 a, f32x4 b) { return f32x4_pick(f32x4_greater(b, a), a, b); }

static bool hull__minkowski_face(physics__v3 a, physics__v3 b, physics__v3 c, physics__v3 d)
{
    const physics__v3 bxa = v3_cross(b, a), dxc = v3_cross(d, c);
    const float cba = v3_dot(c, bxa), dba = v3_dot(d, bxa), adc = v3_dot(a, dxc),
                bdc = v3_dot(b, dxc);
    return cba * dba < 0.0f && adc * bdc < 0.0f && cba * bdc > 0.0f;
}

static void hull__segments(physics__v3 p1, physics__v3 q1, physics__v3 p2, physics__v3 q2,
                           physics__v3 *c1, physics__v3 *c2)
{
    const physics__v3 d1 = v3_sub(q1, p1), d2 = v3_sub(q2, p2), r = v3_sub(p1, p2);
    const float a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r), c = v3_dot(d1, r);
    const float bb = v3_dot(d1, d2), denom = a * e - bb * bb;
    float s = denom > 1e-12f ? f_min(f_max((bb * f - c * e) / denom, 0.0f), 1.0f) : 0.0f;
    float t = e > 1e-12f ? (bb * s + f) / e : 0.0f;
    if (t < 0.0f)
        t = 0.0f, s = a > 1e-12f ? f_min(f_max(-c / a, 0.0f), 1.0f) : 0.0f;
    else if (t > 1.0f)
        t = 1.0f, s = a > 1e-12f ? f_min(f_max((bb - c) / a, 0.0f), 1.0f) : 0.0f;
    *c1 = v3_add(p1, v3_scale(d1, s));
    *c2 = v3_add(p2, v3_scale(d2, t));
}

/* How far apart a's extent [lo_a, hi_a] and b's [lo_b, hi_b] along *ax are (negative: they
 * overlap) on the side where they are least deep, *ax turned to point from a to b there. */
static float poly__gap(float lo_a, float hi_a, float lo_b, float hi_b, physics__v3 *ax)
{
    if (lo_b - hi_a >= lo_a - hi_b)
        return lo_b - hi_a;
    *ax = v3_scale(*ax, -1.0f);
    return lo_a - hi_b;
}

/* What the separating-axis tests of poly__flat_manifold and physics__poly_manifold found: the
 * deepest face of a (fa) and of b (fb), the deepest pair of edges (ea of a, eb of b) and its axis
 * from a to b, with their separations. */
typedef struct poly__axes {
    float face_a, face_b, edge;
    uint32_t fa, fb, ea, eb;
    physics__v3 edge_axis;
} poly__axes;

/* The contact of a and b on the axis x found: the closest points of the two edges when they
 * separate more than either face (by the tolerance), else the reference face's polygon (b's when
 * prefer_b and within the tolerance of a's) clipped by the other polytope, reduced. */
static void poly__contact(const physics__poly *a, const physics__poly *b, float margin,
                          bool prefer_b, const poly__axes *x, physics__manifold_out *m)
{
    const bool use_b = prefer_b ? x->face_b + HULL_FACE_TOLERANCE >= x->face_a
                                : x->face_b > x->face_a + HULL_FACE_TOLERANCE;
    const float face = use_b ? x->face_b : x->face_a;
    if (x->edge > face + HULL_EDGE_TOLERANCE) {
        const physics__hull_edge *ea = &a->edge[x->ea], *eb = &b->edge[x->eb];
        physics__v3 pa, pb;
        hull__segments(a->v[ea->v[0]], a->v[ea->v[1]], b->v[eb->v[0]], b->v[eb->v[1]], &pa, &pb);
        m->normal = x->edge_axis;
        hull__add(m, v3_scale(v3_add(pa, pb), 0.5f), v3_dot(v3_sub(pb, pa), x->edge_axis),
                  HULL_ID_EDGE | x->ea << 8 | x->eb);
        return;
    }
    if (use_b) {
        m->normal = v3_scale(b->n[x->fb], -1.0f);
        physics__poly_faces(b, x->fb, a, b->n[x->fb], margin, PHYSICS_MANIFOLD_REFERENCE_B, m);
    } else {
        m->normal = a->n[x->fa];
        physics__poly_faces(a, x->fa, b, a->n[x->fa], margin, 0, m);
    }
    if (m->count == 4) {
        /* Corner, opposite corner, then the other two (see physics_manifold.c's boxes). */
        const physics__manifold_point t = m->p[1];
        m->p[1] = m->p[2];
        m->p[2] = t;
    }
    physics__manifold_reduce(m);
}

/* Four edge axes of flat polygon a (a mesh's triangle) and polytope b at once: the cross products
 * of a's edge da (la its squared length) with b's edge directions d (dl2 their squared lengths),
 * made unit, and the two polytopes' gap along each (poly__gap: the axis turned to point from a to
 * b on the side where they are least deep). Bit i of the answer is set where direction i is
 * usable (not parallel to da); there gap[i] and ax*[i] hold the gap and the turned axis, and bit
 * i of *apart is set where the gap is past the margin, of *back where the turned axis faces
 * against a's front (dot(axis, front) < 0). Each lane rounds as the scalar expressions
 * (v3_cross, v3_len, v3_dot, poly__interval, poly__gap) do, in the same order: the same bits as
 * one axis at a time, a third of the time (a box has three directions, the lanes' fourth unused;
 * Jolt's pyramid of 8 edges two groups). */
static uint32_t poly__flat_edges(const physics__poly *a, const physics__poly *b, physics__v3 da,
                                 float la, float box_least, const float *dx, const float *dy,
                                 const float *dz, const float *dl2, float margin, uint32_t *apart,
                                 uint32_t *back, float *gap, float *axx, float *axy, float *axz)
{
    const f32x4 bx = f32x4_load(dx), by = f32x4_load(dy), bz = f32x4_load(dz);
    const f32x4 ax_ = f32x4_splat(da.x), ay_ = f32x4_splat(da.y), az_ = f32x4_splat(da.z);
    /* v3_cross(da, db) */
    v3x4 ax = {f32x4_sub(f32x4_mul(ay_, bz), f32x4_mul(az_, by)),
               f32x4_sub(f32x4_mul(az_, bx), f32x4_mul(ax_, bz)),
               f32x4_sub(f32x4_mul(ax_, by), f32x4_mul(ay_, bx))};
    const f32x4 len = f32x4_sqrt(v3x4_dot(ax, ax));
    const f32x4 least = b->box ? f32x4_splat(box_least)
                               : f32x4_mul(f32x4_splat(1e-5f),
                                           f32x4_sqrt(f32x4_mul(f32x4_splat(la), f32x4_load(dl2))));
    /* (len < least skips the axis; NaN never reaches here: inputs are checked.) */
    const uint32_t usable = ~mask32x4_bits(f32x4_greater(least, len)) & 15u;
    *apart = *back = 0;
    if (!usable)
        return 0;
    ax = v3x4_scale(ax, f32x4_div(f32x4_splat(1.0f), len));
    /* a's extent along each: f_min / f_max of its three corners' products. */
    const f32x4 t0 = poly__dot4(a->v[0], ax), t1 = poly__dot4(a->v[1], ax),
                t2 = poly__dot4(a->v[2], ax);
    const f32x4 lo_a = poly__min4(poly__min4(t0, t1), t2), hi_a = f32x4_max(f32x4_max(t0, t1), t2);
    f32x4 lo_b, hi_b;
    if (b->box) {
        const f32x4 c = poly__dot4(b->c, ax);
        const f32x4 r = f32x4_add(
            f32x4_add(f32x4_mul(f32x4_splat(b->h[0]), f32x4_abs(poly__dot4(b->axis[0], ax))),
                      f32x4_mul(f32x4_splat(b->h[1]), f32x4_abs(poly__dot4(b->axis[1], ax)))),
            f32x4_mul(f32x4_splat(b->h[2]), f32x4_abs(poly__dot4(b->axis[2], ax))));
        lo_b = f32x4_sub(c, r), hi_b = f32x4_add(c, r);
    } else {
        lo_b = f32x4_splat(INFINITY), hi_b = f32x4_splat(-INFINITY);
        for (uint32_t k = 0; k < b->nv; k++) {
            const f32x4 t = poly__dot4(b->v[k], ax);
            lo_b = poly__min4(lo_b, t), hi_b = f32x4_max(hi_b, t);
        }
    }
    /* poly__gap: lo_b - hi_a unless lo_a - hi_b is larger, then with the axis turned. */
    const f32x4 g1 = f32x4_sub(lo_b, hi_a), g2 = f32x4_sub(lo_a, hi_b);
    const mask32x4 turn = f32x4_greater(g2, g1);
    const f32x4 g = f32x4_pick(turn, g2, g1);
    const v3x4 axt = {f32x4_pick(turn, f32x4_negate(ax.x), ax.x),
                      f32x4_pick(turn, f32x4_negate(ax.y), ax.y),
                      f32x4_pick(turn, f32x4_negate(ax.z), ax.z)};
    *apart = mask32x4_bits(f32x4_greater(g, f32x4_splat(margin)));
    *back = mask32x4_bits(f32x4_greater(f32x4_splat(0.0f), poly__dot4(a->n[0], axt)));
    f32x4_store(gap, g);
    f32x4_store(axx, axt.x);
    f32x4_store(axy, axt.y);
    f32x4_store(axz, axt.z);
    return usable;
}

/* The manifold of a flat polygon a (a mesh's triangle: one-sided, b is only ever pushed out through
 * its front) and polytope b, by the separating-axis test on extents: a's plane, b's face normals,
 * and the cross products of a's edges with b's edge directions (a box has three, not twelve; its
 * edge along the best one is then the one facing a). The axes that would push b out through a's
 * back are not the contact's, but they count in the test: when the axis of least penetration over
 * all of them is one of those and shows the two apart, b lies beside or behind a, clear of it by
 * that much, and a gives no contact. Taken along the best axis that faces a's front, such a body
 * got a contact far deeper than it was: a board on the bunny's scanned back, 5 to 19 cm clear
 * along such an axis of small triangles facing sideways under its end, got points 0.1 to 0.5 m
 * deep along their normals (physics_mesh.c gives the face's normal to a contact that leans too far
 * from it), was pushed by them at up to RIGID_PUSH_SPEED and spun up (15 rad/s after landing; 80
 * with the turn counted in the speculative margin up to 5 cm, which takes in more of them). */
static void poly__flat_manifold(const physics__poly *a, const physics__poly *b, float margin,
                                bool prefer_b, physics__manifold_out *m)
{
    const physics__v3 front = a->n[0];
    float lo, hi;
    poly__interval(b, front, &lo, &hi);
    const float face_a = lo - a->d[0];
    if (face_a > margin || a->d[0] - hi > margin)
        return;
    /* (The most an axis of b's or of the edges' that may not be the contact's separates them.) */
    float behind = -INFINITY;
    float face_b = -INFINITY, edge = -INFINITY;
    uint32_t fb = 0, ea = 0, eb = 0;
    physics__v3 edge_axis = v3(0, 1, 0);
    if (b->box) {
        /* The three axes at once, as lanes (the fourth a copy of the third, unused), each rounded
         * as the scalar v3_dot, f_min and f_max round: the same bits as one axis at a time. */
        v3x4 axes;
        f32x4_gather3(&b->axis[0].x, &b->axis[1].x, &b->axis[2].x, &b->axis[2].x, &axes.x, &axes.y,
                      &axes.z);
        const float h4[4] = {b->h[0], b->h[1], b->h[2], b->h[2]};
        const f32x4 t0 = poly__dot4(a->v[0], axes), t1 = poly__dot4(a->v[1], axes),
                    t2 = poly__dot4(a->v[2], axes), c = poly__dot4(b->c, axes), h = f32x4_load(h4);
        /* Face 2k (+axis, plane c + h) and face 2k + 1 (-axis, plane -c + h). */
        const f32x4 sp4 = f32x4_sub(f32x4_sub(poly__min4(poly__min4(t0, t1), t2), c), h),
                    sm4 = f32x4_sub(f32x4_sub(c, f32x4_max(f32x4_max(t0, t1), t2)), h),
                    margin4 = f32x4_splat(margin);
        if (mask32x4_bits(mask32x4_or(f32x4_greater(sp4, margin4), f32x4_greater(sm4, margin4))) &
            7u)
            return;
        float sps[4], sms[4], dots[4];
        f32x4_store(sps, sp4);
        f32x4_store(sms, sm4);
        f32x4_store(dots, poly__dot4(front, axes));
        for (uint32_t k = 0; k < 3; k++) {
            const float sp = sps[k], sm = sms[k], dot = dots[k];
            if (dot > 0.0f)
                behind = f_max(behind, sp);
            else if (sp > face_b)
                face_b = sp, fb = 2 * k;
            if (-dot > 0.0f)
                behind = f_max(behind, sm);
            else if (sm > face_b)
                face_b = sm, fb = 2 * k + 1;
        }
    } else {
        for (uint32_t f = 0; f < b->nf; f++) {
            const physics__v3 n = b->n[f];
            const float s =
                f_min(f_min(v3_dot(a->v[0], n), v3_dot(a->v[1], n)), v3_dot(a->v[2], n)) - b->d[f];
            if (s > margin)
                return;
            if (v3_dot(n, front) > 0.0f)
                behind = f_max(behind, s);
            else if (s > face_b)
                face_b = s, fb = f;
        }
    }
    const uint32_t directions = b->box ? 3u : b->ne;
    /* b's edge directions and their squared lengths, once for the three edges of a, as lanes of
     * four (the last group padded with a direction marked unused: written first, then over). */
    enum { DIRS = (PHYSICS_HULL_MAX_EDGES + 3u) & ~3u };
    float dx[DIRS], dy[DIRS], dz[DIRS], dl2[DIRS];
    const uint32_t last = (directions - 1u) & ~3u;
    f32x4_store(dx + last, f32x4_splat(0.0f));
    f32x4_store(dy + last, f32x4_splat(0.0f));
    f32x4_store(dz + last, f32x4_splat(0.0f));
    f32x4_store(dl2 + last, f32x4_splat(1.0f));
    for (uint32_t j = 0; j < directions; j++) {
        physics__v3 d;
        if (b->box) {
            d = b->axis[j], dl2[j] = 1.0f;
        } else {
            const physics__hull_edge *y = &b->edge[j];
            d = v3_sub(b->v[y->v[1]], b->v[y->v[0]]), dl2[j] = v3_dot(d, d);
        }
        dx[j] = d.x, dy[j] = d.y, dz[j] = d.z;
    }
    for (uint32_t i = 0; i < a->ne; i++) {
        const physics__hull_edge *x = &a->edge[i];
        const physics__v3 da = v3_sub(a->v[x->v[1]], a->v[x->v[0]]);
        const float la = v3_dot(da, da);
        /* (A box's directions are unit: la * 1 is la, so its bound is the same for all three.) */
        const float box_least = 1e-5f * sqrtf(la);
        for (uint32_t j0 = 0; j0 < directions; j0 += 4u) {
            float gap[4], axx[4], axy[4], axz[4];
            uint32_t apart, back;
            uint32_t usable = poly__flat_edges(a, b, da, la, box_least, dx + j0, dy + j0, dz + j0,
                                               dl2 + j0, margin, &apart, &back, gap, axx, axy, axz);
            if (directions - j0 < 4u)
                usable &= (1u << (directions - j0)) - 1u;
            if (usable & apart)
                return;
            /* The lanes in order, each as one axis at a time would be taken. */
            for (uint32_t l = 0; usable >> l; l++) {
                if (!(usable >> l & 1u))
                    continue;
                const float s = gap[l];
                if (back >> l & 1u)
                    behind = f_max(behind, s);
                else if (s > edge)
                    edge = s, ea = i, eb = j0 + l, edge_axis = v3(axx[l], axy[l], axz[l]);
            }
        }
    }
    if (b->box) {
        /* eb is one of the box's three edge directions: of the four edges along it, the one
         * nearest a, on the side of each other axis that faces against the edge axis (corner
         * k = x | y << 1 | z << 2, bit set: + side; box_edge lists the x edges, then the y ones,
         * then the z ones). Unused when a face is deeper. */
        const uint32_t o1 = eb == 0 ? 1u : 0u, o2 = eb == 2 ? 1u : 2u;
        const uint32_t s1 = v3_dot(b->axis[o1], edge_axis) < 0.0f,
                       s2 = v3_dot(b->axis[o2], edge_axis) < 0.0f;
        eb = 4u * eb + s1 + 2u * s2;
    }
    if (behind > 0.0f && behind > f_max(face_a, f_max(face_b, edge)))
        return;
    /* a's only face is its front, face 0. */
    poly__contact(a, b, margin, prefer_b,
                  &(poly__axes){face_a, face_b, edge, 0, fb, ea, eb, edge_axis}, m);
}

void physics__poly_manifold(const physics__poly *a, const physics__poly *b, float margin,
                            bool prefer_b, physics__manifold_out *m)
{
    if (a->flat && !b->flat) {
        poly__flat_manifold(a, b, margin, prefer_b, m);
        return;
    }
    float face_a = -INFINITY, face_b = -INFINITY, edge = -INFINITY;
    uint32_t fa = 0, fb = 0, ea = 0, eb = 0;
    physics__v3 edge_axis = v3(0, 1, 0);
    /* A flat a (a mesh's triangle) is one-sided: any axis may separate, but b is only ever pushed
     * out through its front (a normal from a to b with dot(normal, a->n[0]) >= 0). */
    const physics__v3 front = a->n[0];
    if (!a->flat && !b->flat) {
        /* Most pairs of a pile are apart, most often along the face of either that faces the other
         * most: those two first. Any face that separates them makes the loops below return too
         * (they measure the same), so this only returns sooner. */
        const physics__v3 ab = v3_sub(b->c, a->c);
        uint32_t fa_most = 0, fb_most = 0;
        float most_a = -INFINITY, most_b = -INFINITY;
        for (uint32_t f = 0; f < a->nf; f++)
            if (v3_dot(a->n[f], ab) > most_a)
                most_a = v3_dot(a->n[f], ab), fa_most = f;
        for (uint32_t f = 0; f < b->nf; f++)
            if (-v3_dot(b->n[f], ab) > most_b)
                most_b = -v3_dot(b->n[f], ab), fb_most = f;
        if (-poly__support(b, v3_scale(a->n[fa_most], -1.0f)) - a->d[fa_most] > margin ||
            -poly__support(a, v3_scale(b->n[fb_most], -1.0f)) - b->d[fb_most] > margin)
            return;
    }
    for (uint32_t f = 0; f < a->nf; f++) {
        const float s = -poly__support(b, v3_scale(a->n[f], -1.0f)) - a->d[f];
        if (s > margin)
            return;
        if (s > face_a && !(a->flat && f))
            face_a = s, fa = f;
    }
    for (uint32_t f = 0; f < b->nf; f++) {
        const float s = -poly__support(a, v3_scale(b->n[f], -1.0f)) - b->d[f];
        if (s > margin)
            return;
        if (s > face_b && !(a->flat && v3_dot(b->n[f], front) > 0.0f))
            face_b = s, fb = f;
    }
    for (uint32_t i = 0; i < a->ne; i++) {
        const physics__hull_edge *x = &a->edge[i];
        const physics__v3 na = a->n[x->f[0]], nb = a->n[x->f[1]];
        const physics__v3 pa = a->v[x->v[0]], da = v3_sub(a->v[x->v[1]], pa);
        for (uint32_t j = 0; j < b->ne; j++) {
            const physics__hull_edge *y = &b->edge[j];
            /* A flat polygon's edges join a face to its own back: no arc to prune by. */
            if (!a->flat && !b->flat &&
                !hull__minkowski_face(na, nb, v3_scale(b->n[y->f[0]], -1.0f),
                                      v3_scale(b->n[y->f[1]], -1.0f)))
                continue;
            const physics__v3 pb = b->v[y->v[0]], db = v3_sub(b->v[y->v[1]], pb);
            physics__v3 ax = v3_cross(da, db);
            const float len = v3_len(ax);
            if (len < 1e-5f * sqrtf(v3_dot(da, da) * v3_dot(db, db)))
                continue;
            ax = v3_scale(ax, 1.0f / len);
            float s;
            if (a->flat) {
                /* No inside to orient the axis by: both polytopes' extents along it. */
                const float hi_a = poly__support(a, ax),
                            lo_a = -poly__support(a, v3_scale(ax, -1.0f));
                const float hi_b = poly__support(b, ax),
                            lo_b = -poly__support(b, v3_scale(ax, -1.0f));
                s = poly__gap(lo_a, hi_a, lo_b, hi_b, &ax);
                if (s > margin)
                    return;
                if (v3_dot(ax, front) < 0.0f)
                    continue;
            } else {
                if (v3_dot(ax, v3_sub(pa, a->c)) < 0.0f)
                    ax = v3_scale(ax, -1.0f);
                s = v3_dot(ax, v3_sub(pb, pa));
                if (s > margin)
                    return;
            }
            if (s > edge)
                edge = s, ea = i, eb = j, edge_axis = ax;
        }
    }
    poly__contact(a, b, margin, prefer_b,
                  &(poly__axes){face_a, face_b, edge, fa, fb, ea, eb, edge_axis}, m);
}

/* A ball (centre c, radius r) against polytope p; the normal from p towards the ball. */
static bool hull__ball(const physics__poly *p, physics__v3 c, float r, float margin, physics__v3 *n,
                       float *sep, physics__v3 *point)
{
    float s;
    physics__poly_closest(p, c, &s, n);
    *sep = s - r;
    if (*sep > margin)
        return false;
    *point = v3_sub(c, v3_scale(*n, r + 0.5f * *sep));
    return true;
}

void physics__hull_manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                            bool prefer_b, physics__manifold_out *m)
{
    m->count = 0;
    m->normal = v3(0, 1, 0);
    const uint8_t si = b->shape[i], sj = b->shape[j];
    const bool pi = si == CT_BODY_HULL || si == CT_BODY_BOX,
               pj = sj == CT_BODY_HULL || sj == CT_BODY_BOX;
    if (pi && pj) {
        physics__poly a, c;
        physics__poly_of(b, i, &a);
        physics__poly_of(b, j, &c);
        physics__poly_manifold(&a, &c, margin, prefer_b, m);
        return;
    }
    /* The round one against the hull; the normal always from i to j. */
    const uint32_t round = pi ? j : i, solid = pi ? i : j;
    physics__poly p;
    physics__poly_of(b, solid, &p);
    physics__v3 p0, p1;
    physics__round_segment(b, round, &p0, &p1);
    physics__poly_round_manifold(&p, solid == i, p0, p1, b->radius[round], margin, m);
}

void physics__round_segment(const physics__bodies *b, uint32_t i, physics__v3 *p0, physics__v3 *p1)
{
    *p0 = *p1 = b->position[i];
    if (b->shape[i] == CT_BODY_CAPSULE) {
        const physics__v3 a =
            quat_rotate(b->rotation[i], v3(0.0f, b->half[i].y - b->radius[i], 0.0f));
        *p0 = v3_sub(b->position[i], a);
        *p1 = v3_add(b->position[i], a);
    }
}

float physics__segment_nearest_t(float (*slope)(void *ctx, float t), void *ctx)
{
    float lo = 0.0f, hi = 1.0f, t = 0.5f;
    for (int it = 0; it < 24; it++) {
        t = 0.5f * (lo + hi);
        const float s = slope(ctx, t);
        if (s > 0.0f)
            hi = t;
        else if (s < 0.0f)
            lo = t;
        else
            break;
    }
    return t;
}

/* The capsule (segment p0 p1, radius r) on face f of p, as manifold__capsule_face on a box's: the
 * segment clipped by the face's side planes, what is left's two ends measured along the face's
 * normal, those within the margin kept. Returns how many it added (none when the segment passes
 * beside the face). */
static uint32_t hull__capsule_face(const physics__poly *p, uint32_t f, physics__v3 p0,
                                   physics__v3 p1, float r, float margin, bool flip,
                                   physics__manifold_out *m)
{
    const physics__v3 n = p->n[f], seg = v3_sub(p1, p0);
    const uint8_t *fi = &p->face_index[p->face_first[f]];
    const uint32_t count = p->face_count[f];
    float lo = 0.0f, hi = 1.0f;
    for (uint32_t k = 0; k < count; k++) {
        const physics__v3 a = p->v[fi[k]], z = p->v[fi[(k + 1) % count]];
        /* The side plane's outward normal (the face's corners run counter-clockwise). */
        const physics__v3 side = v3_cross(v3_sub(z, a), n);
        const float at = v3_dot(side, v3_sub(p0, a)), along = v3_dot(side, seg);
        if (along == 0.0f) {
            if (at > 0.0f)
                return 0;
            continue;
        }
        const float t = -at / along;
        if (along > 0.0f)
            hi = f_min(hi, t);
        else
            lo = f_max(lo, t);
    }
    if (!(lo <= hi))
        return 0;
    const float ts[2] = {lo, hi};
    uint32_t added = 0;
    for (uint32_t e = 0; e < (hi > lo ? 2u : 1u); e++) {
        const physics__v3 c = v3_add(p0, v3_scale(seg, ts[e]));
        const float sep = v3_dot(n, c) - p->d[f] - r;
        if (sep > margin)
            continue;
        hull__add(m, v3_sub(c, v3_scale(n, r + 0.5f * sep)), sep, 0x1000u + 2u * f + e);
        added++;
    }
    if (added)
        m->normal = flip ? n : v3_scale(n, -1.0f);
    return added;
}

/* The capsule (segment p0 p1, radius r) going into p, by the separating axes of a segment and a
 * polytope, as manifold__capsule_in_box: the faces (how far the deeper end is past each plane)
 * and the segment's direction across each edge whose arc on the Gauss map it crosses (the edges
 * that can face it: their two faces lie on either side of the segment's direction). The face of
 * least depth is clipped (hull__capsule_face) unless an edge is shallower by HULL_EDGE_TOLERANCE;
 * then one point, where the segment passes nearest that edge. */
static void hull__capsule_in(const physics__poly *p, physics__v3 p0, physics__v3 p1, float r,
                             float margin, bool flip, physics__manifold_out *m)
{
    uint32_t face = 0;
    float face_sep = -INFINITY;
    for (uint32_t f = 0; f < p->nf; f++) {
        const float s = f_min(v3_dot(p->n[f], p0), v3_dot(p->n[f], p1)) - p->d[f];
        if (s > face_sep)
            face_sep = s, face = f;
    }
    const physics__v3 d = v3_sub(p1, p0);
    int32_t edge = -1;
    float edge_sep = -INFINITY;
    physics__v3 edge_n = v3(0, 1, 0);
    for (uint32_t e = 0; e < p->ne; e++) {
        const physics__hull_edge *x = &p->edge[e];
        const physics__v3 na = p->n[x->f[0]], nb = p->n[x->f[1]];
        if (!(v3_dot(d, na) * v3_dot(d, nb) < 0.0f))
            continue;
        const physics__v3 a = p->v[x->v[0]], along = v3_sub(p->v[x->v[1]], a);
        const physics__v3 across = v3_cross(d, along);
        const float len = v3_len(across);
        if (!(len > 1e-3f * v3_len(d) * v3_len(along)))
            continue; /* the segment runs along the edge: the faces hold it */
        physics__v3 n = v3_scale(across, 1.0f / len);
        if (v3_dot(n, v3_add(na, nb)) < 0.0f)
            n = v3_scale(n, -1.0f);
        /* Every point of the segment lies at the same height along n. */
        const float s = v3_dot(n, v3_sub(p0, a));
        if (s > edge_sep)
            edge_sep = s, edge = (int32_t)e, edge_n = n;
    }
    if (edge < 0 || !(edge_sep > face_sep + HULL_EDGE_TOLERANCE)) {
        hull__capsule_face(p, face, p0, p1, r, margin, flip, m);
        return;
    }
    const physics__hull_edge *x = &p->edge[edge];
    physics__v3 on_segment, on_edge;
    hull__segments(p0, p1, p->v[x->v[0]], p->v[x->v[1]], &on_segment, &on_edge);
    const float sep = edge_sep - r;
    if (sep > margin)
        return;
    m->normal = flip ? edge_n : v3_scale(edge_n, -1.0f);
    hull__add(m, v3_sub(on_segment, v3_scale(edge_n, r + 0.5f * sep)), sep, 0x2000u + (uint32_t)edge);
}

/* A capsule's segment (p0 + t seg, radius r) beside polytope p, as the search for its point
 * nearest p goes: the two ends of the interval left ([0] low, [1] high: where it was asked, the
 * face that point lies furthest in front of and whether it lies deep over it, hull__deep_over:
 * -1 not yet known), the search's end when it needs no nearest point, and the last t asked with
 * its point's distance and way from p (the search ends on that t: not measured again). */
typedef struct hull__segment {
    const physics__poly *p;
    poly__sides *sides;
    physics__v3 p0, p1, seg;
    float r, margin, tol;
    bool flip, tried;
    physics__manifold_out *m;
    float at[2];
    uint32_t face[2];
    int8_t deep[2], faces_none;
    enum { HULL_SEARCHING, HULL_ON_FACE, HULL_FAR } end;
    float last_t, last_d;
    physics__v3 last_n;
} hull__segment;

/* Whether point x lies deep over face f of p: in front of it by more than tol, its foot within
 * f's polygon and tol from its sides, and every other face's normal well away from f's. Then x's
 * nearest point of p is its foot on f, the way from it f's normal as near as makes no difference
 * to which face physics__poly_round_manifold picks or whether it is within PHYSICS_CAPSULE_FACE
 * of it; and so is any point between two such points (all points whose foot on f is nearest
 * make a convex prism). */
static bool hull__deep_over(const physics__poly *p, poly__sides *sides, uint32_t f, physics__v3 x,
                            float tol)
{
    const physics__v3 n = p->n[f];
    const float s = v3_dot(n, x) - p->d[f];
    if (!(s > tol) || !poly__over_face(p, sides, f, v3_sub(x, v3_scale(n, s)), tol))
        return false;
    for (uint32_t g = 0; g < p->nf; g++)
        if (g != f && !(v3_dot(p->n[g], n) < HULL_APART_NORMALS))
            return false;
    return true;
}

/* When both ends of g's interval lie deep over one face (hull__deep_over), so does where the
 * search would end, and its outcome is the capsule on that face (hull__capsule_face) whatever
 * point it found, if that adds any: then true, the points added. */
static bool hull__segment_on_face(hull__segment *g)
{
    if (g->tried || g->face[0] != g->face[1])
        return false;
    /* (The end known already first: the other is asked only if that one lies deep.) */
    const uint32_t first = g->deep[1] >= 0;
    for (uint32_t e = 0; e < 2; e++) {
        const uint32_t k = e ? !first : first;
        if (g->deep[k] < 0)
            g->deep[k] = hull__deep_over(g->p, g->sides, g->face[k],
                                         v3_add(g->p0, v3_scale(g->seg, g->at[k])), g->tol);
        if (!g->deep[k])
            return false;
    }
    g->tried = true;
    return hull__capsule_face(g->p, g->face[0], g->p0, g->p1, g->r, g->margin, g->flip, g->m) > 0;
}

/* Whether no face of p would take the capsule g (hull__capsule_face; asked once a search). */
static bool hull__segment_faces_none(hull__segment *g)
{
    if (g->faces_none < 0) {
        physics__manifold_out none = {.count = 0};
        g->faces_none = 1;
        for (uint32_t f = 0; f < g->p->nf && g->faces_none; f++)
            g->faces_none =
                !hull__capsule_face(g->p, f, g->p0, g->p1, g->r, g->margin, g->flip, &none);
    }
    return g->faces_none;
}

/* The slope along the segment of half the squared distance from the polytope at t (0 inside);
 * or not a number, which ends the search there (physics__segment_nearest_t), when its outcome is
 * known without the nearest point: the capsule on a face (hull__segment_on_face), or nothing, the
 * whole segment further than the radius and margin (the distance d(t) is convex along it: at
 * least d + d'(t) (t' - t) anywhere in the interval left, which holds the nearest point) and no
 * face that would take it. */
static float hull__segment_slope(void *ctx, float t)
{
    hull__segment *g = ctx;
    const physics__v3 x = v3_add(g->p0, v3_scale(g->seg, t));
    float d;
    physics__v3 n;
    uint32_t face;
    const physics__v3 q = poly__closest(g->p, g->sides, x, &d, &n, &face);
    g->last_t = t, g->last_d = d, g->last_n = n;
    const float slope = v3_dot(v3_sub(x, q), g->seg);
    if (slope == 0.0f || !(d > 0.0f))
        return slope;
    const uint32_t k = slope > 0.0f;
    g->at[k] = t, g->face[k] = face, g->deep[k] = -1;
    if (hull__segment_on_face(g)) {
        g->end = HULL_ON_FACE;
        return NAN;
    }
    const float least = d + slope / d * (g->at[!k] - t);
    if (least > g->r + g->margin + g->tol && hull__segment_faces_none(g)) {
        g->end = HULL_FAR;
        return NAN;
    }
    return slope;
}

void physics__poly_round_manifold(const physics__poly *p, bool flip, physics__v3 p0, physics__v3 p1,
                                  float r, float margin, physics__manifold_out *m)
{
    /* Both ends past the same face's plane by more than the radius and margin: every ball below
     * is too (most balls and capsules near a hull in a pile are clear of it). */
    const float clear = r + margin + PHYSICS_PLANE_SLACK;
    uint32_t over = 0;
    float over_s = -INFINITY;
    for (uint32_t f = 0; f < p->nf; f++) {
        const float s = f_min(v3_dot(p->n[f], p0), v3_dot(p->n[f], p1)) - p->d[f];
        if (s > clear)
            return;
        if (s > over_s)
            over_s = s, over = f;
    }
    const physics__v3 seg = v3_sub(p1, p0);
    physics__v3 n, point;
    float sep;
    if (!(v3_dot(seg, seg) > 1e-12f)) {
        /* A ball. */
        if (!hull__ball(p, p0, r, margin, &n, &sep, &point))
            return;
        m->normal = flip ? n : v3_scale(n, -1.0f);
        hull__add(m, point, sep, 0x600u);
        return;
    }
    /* The interval's ends, the segment's, over the face both lie furthest in front of. */
    poly__sides room;
    hull__segment g = {p, poly__sides_for(p, &room), p0, p1, seg, r, margin,
                       poly__tolerance(p0, p1), flip, false, m,
                       {0.0f, 1.0f}, {over, over}, {-1, -1}, -1, HULL_SEARCHING, NAN, 0.0f,
                       v3(0, 0, 0)};
    if (hull__segment_on_face(&g))
        return;
    const float t = physics__segment_nearest_t(hull__segment_slope, &g);
    if (g.end != HULL_SEARCHING)
        return;
    const physics__v3 x = v3_add(p0, v3_scale(seg, t));
    float dist = g.last_d;
    n = g.last_n;
    if (!(t == g.last_t))
        physics__poly_closest(p, x, &dist, &n);
    if (!(dist > 1e-6f)) {
        hull__capsule_in(p, p0, p1, r, margin, flip, m);
        return;
    }
    uint32_t face = 0;
    float most = -INFINITY;
    for (uint32_t f = 0; f < p->nf; f++)
        if (v3_dot(p->n[f], n) > most)
            most = v3_dot(p->n[f], n), face = f;
    if (most > PHYSICS_CAPSULE_FACE && hull__capsule_face(p, face, p0, p1, r, margin, flip, m))
        return;
    sep = dist - r;
    if (sep > margin)
        return;
    m->normal = flip ? n : v3_scale(n, -1.0f);
    hull__add(m, v3_sub(x, v3_scale(n, r + 0.5f * sep)), sep, 0x3000u);
}

void physics__manifold_merge(physics__manifold_out *m, const physics__manifold_out *from)
{
    for (uint32_t k = 0; k < from->count; k++) {
        if (m->count == PHYSICS_MANIFOLD_MAX_CLIP)
            physics__manifold_reduce(m);
        m->p[m->count++] = from->p[k];
    }
}

/* ---- rays ---------------------------------------------------------------------------------- */

float physics__ray_hull(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal)
{
    const physics__hull *h = b->hull[i];
    const physics__quat q = b->rotation[i];
    const physics__v3 m = quat_unrotate(q, v3_sub(o, b->position[i])), dl = quat_unrotate(q, d);
    float t0 = 0.0f, t1 = INFINITY;
    int32_t face = -1;
    for (uint32_t f = 0; f < h->num_faces; f++) {
        const float dn = v3_dot(h->normal[f], dl), dist = v3_dot(h->normal[f], m) - h->offset[f];
        if (dn == 0.0f) {
            if (dist > 0.0f)
                return INFINITY;
            continue;
        }
        const float t = -dist / dn;
        if (dn < 0.0f) {
            if (t > t0)
                t0 = t, face = (int32_t)f;
        } else {
            t1 = f_min(t1, t);
        }
        if (t0 > t1)
            return INFINITY;
    }
    *normal = face < 0 ? v3_scale(d, -1.0f) : quat_rotate(q, h->normal[face]);
    return t0;
}
