/* physics_manifold.c: the contact manifolds of rotating shapes (v4): spheres, capsules and
 * oriented boxes, up to PHYSICS_MANIFOLD_POINTS points with one normal (from body a to body b).
 *
 * Two boxes are tested on the 15 axes of the separating-axis theorem. When a face axis wins (with a
 * small preference for faces, so a box resting flat does not flicker onto an edge axis) the
 * incident face of the other box is clipped by the side planes of the reference face, and the
 * points within the margin are kept, reduced to the four that span the most area (the deepest,
 * the farthest from it, then the two that widen the quadrilateral most); when an edge axis wins,
 * the closest points of the two edges make one point. Capsules are segments with a radius: a
 * capsule meets a sphere or capsule at the closest points of their segments (two points when two
 * capsules lie side by side), and a box as Box3D's capsule meets a hull: apart, at the segment's
 * point nearest the box, or, when that lies over a face, at the ends of the segment clipped on
 * that face; going into it, by the separating axes of segment and box. Every point carries a
 * feature id (which faces, vertices, clip planes or ends made it) so the next step can find it
 * again for the warm start. */
#include "physics_hull.h"

/* A box as the tests see it: centre, world axes, half extents. */
typedef struct manifold__box {
    physics__v3 c, ax[3];
    float h[3];
} manifold__box;

/* A face axis must beat the other box's by this much (m) to take the reference from it; an edge
 * axis must beat the faces by MANIFOLD_EDGE_TOLERANCE. Without these a resting box switches features between
 * steps and loses its warm start. */
#define MANIFOLD_FACE_TOLERANCE 0.005f
/* Clip planes lie this much (m) outside the reference face's sides. Boxes of one size stacked flush
 * put the incident face's corners exactly on those planes, where rounding decides from step to
 * step whether a corner stays or is cut (a new point, with a new id and no warm start); a
 * pyramid one box thick then jitters and leans over. */
#define MANIFOLD_CLIP_SLOP 0.001f
#define MANIFOLD_EDGE_TOLERANCE 0.005f

static manifold__box manifold__box_of(const physics__bodies *b, uint32_t i)
{
    const physics__quat q = b->rotation[i];
    manifold__box x = {.c = b->position[i], .h = {b->half[i].x, b->half[i].y, b->half[i].z}};
    x.ax[0] = quat_rotate(q, v3(1, 0, 0));
    x.ax[1] = quat_rotate(q, v3(0, 1, 0));
    x.ax[2] = quat_rotate(q, v3(0, 0, 1));
    return x;
}

static void manifold__add(physics__manifold_out *m, physics__v3 point, float sep, uint32_t id)
{
    if (m->count < PHYSICS_MANIFOLD_MAX_CLIP)
        m->p[m->count++] = (physics__manifold_point){point, sep, id};
}

/* Two balls (centre, radius): the normal from a to b, one point midway between the surfaces. */
static void manifold__balls(physics__v3 pa, float ra, physics__v3 pb, float rb, float margin,
                            uint32_t id, physics__manifold_out *m)
{
    const physics__v3 d = v3_sub(pb, pa);
    const float dist = v3_len(d);
    const physics__v3 n = dist > 1e-9f ? v3_scale(d, 1.0f / dist) : v3(0, 1, 0);
    const float sep = dist - ra - rb;
    if (sep > margin)
        return;
    if (!m->count)
        m->normal = n;
    manifold__add(m, v3_add(pa, v3_scale(n, ra + 0.5f * sep)), sep, id);
}

/* The point of segment p0 + t (p1 - p0), t in [0, 1], nearest to q. */
static float manifold__segment_t(physics__v3 p0, physics__v3 p1, physics__v3 q)
{
    const physics__v3 d = v3_sub(p1, p0);
    const float dd = v3_dot(d, d);
    return dd > 1e-12f ? f_min(f_max(v3_dot(v3_sub(q, p0), d) / dd, 0.0f), 1.0f) : 0.0f;
}

static physics__v3 manifold__lerp(physics__v3 a, physics__v3 b, float t)
{
    return v3_add(a, v3_scale(v3_sub(b, a), t));
}

/* The closest points of two segments (Ericson's, clamped). */
static void manifold__segments(physics__v3 p1, physics__v3 q1, physics__v3 p2, physics__v3 q2,
                               physics__v3 *c1, physics__v3 *c2)
{
    const physics__v3 d1 = v3_sub(q1, p1), d2 = v3_sub(q2, p2), r = v3_sub(p1, p2);
    const float a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
    float s = 0.0f, t = 0.0f;
    if (a <= 1e-12f && e <= 1e-12f) {
        *c1 = p1;
        *c2 = p2;
        return;
    }
    if (a <= 1e-12f) {
        t = f_min(f_max(f / e, 0.0f), 1.0f);
    } else {
        const float c = v3_dot(d1, r);
        if (e <= 1e-12f) {
            s = f_min(f_max(-c / a, 0.0f), 1.0f);
        } else {
            const float bb = v3_dot(d1, d2), denom = a * e - bb * bb;
            s = denom > 1e-12f ? f_min(f_max((bb * f - c * e) / denom, 0.0f), 1.0f) : 0.0f;
            t = (bb * s + f) / e;
            if (t < 0.0f) {
                t = 0.0f;
                s = f_min(f_max(-c / a, 0.0f), 1.0f);
            } else if (t > 1.0f) {
                t = 1.0f;
                s = f_min(f_max((bb - c) / a, 0.0f), 1.0f);
            }
        }
    }
    *c1 = v3_add(p1, v3_scale(d1, s));
    *c2 = v3_add(p2, v3_scale(d2, t));
}

/* A capsule's segment: its ends. */
static void manifold__capsule(const physics__bodies *b, uint32_t i, physics__v3 *p0,
                              physics__v3 *p1)
{
    const physics__v3 a = quat_rotate(b->rotation[i], v3(0.0f, b->half[i].y - b->radius[i], 0.0f));
    *p0 = v3_sub(b->position[i], a);
    *p1 = v3_add(b->position[i], a);
}

/* A ball (centre c, radius r) against a box: the normal from the box towards the ball. */
static bool manifold__ball_box(physics__v3 c, float r, const manifold__box *x, float margin,
                               physics__v3 *n, float *sep, physics__v3 *point)
{
    const physics__v3 d = v3_sub(c, x->c);
    float local[3], q[3];
    for (int k = 0; k < 3; k++) {
        local[k] = v3_dot(d, x->ax[k]);
        q[k] = f_max(-x->h[k], f_min(local[k], x->h[k]));
    }
    const physics__v3 diff = v3(local[0] - q[0], local[1] - q[1], local[2] - q[2]);
    const float dist = v3_len(diff);
    physics__v3 nl;
    if (dist > 1e-6f) {
        nl = v3_scale(diff, 1.0f / dist);
        *sep = dist - r;
    } else {
        /* The centre is inside the box: out through the nearest face. */
        int k = 0;
        float depth = x->h[0] - fabsf(local[0]);
        for (int j = 1; j < 3; j++)
            if (x->h[j] - fabsf(local[j]) < depth)
                k = j, depth = x->h[j] - fabsf(local[j]);
        float e[3] = {0, 0, 0};
        e[k] = local[k] < 0.0f ? -1.0f : 1.0f;
        nl = v3_load(e);
        *sep = -depth - r;
    }
    if (*sep > margin)
        return false;
    *n = v3_add(v3_add(v3_scale(x->ax[0], nl.x), v3_scale(x->ax[1], nl.y)),
                v3_scale(x->ax[2], nl.z));
    *point = v3_sub(c, v3_scale(*n, r + 0.5f * *sep));
    return true;
}

/* A capsule's segment in a box's axes: the point at t in [0, 1] is l0 + t dl. */
typedef struct manifold__segment_in_box {
    float l0[3], dl[3];
} manifold__segment_in_box;

/* The segment g beside a box of half extents h (manifold__segment_box_slope's context). */
typedef struct manifold__segment_beside {
    const manifold__segment_in_box *g;
    const float *h;
} manifold__segment_beside;

/* The slope along the segment of half its squared distance from the box at t: the offset from
 * the box along the segment (0 inside it). Its sign halves the segment for the point nearest the
 * box (physics__segment_nearest_t). Projecting back and forth between segment and box, as this
 * did, crawls where the segment lies nearly along a face (each round moves t by the square of the
 * angle's sine): a capsule tipping over a box's edge kept a point near its middle while its
 * segment went 7 cm into the edge. */
static float manifold__segment_box_slope(void *ctx, float t)
{
    const manifold__segment_beside *b = ctx;
    float slope = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float l = b->g->l0[k] + t * b->g->dl[k], over = fabsf(l) - b->h[k];
        if (over > 0.0f)
            slope += (l > 0.0f ? over : -over) * b->g->dl[k];
    }
    return slope;
}

/* The capsule (segment p0 p1, g in the box's axes, radius r) on the box's face `face` (2 k for
 * -ax[k], 2 k + 1 for +ax[k]), as Box3D's capsule against a hull: the segment clipped by the
 * face's side planes, the two ends of what is left measured along the face's normal, those within
 * the margin kept (a capsule lying on a face rests on two points; one hanging over its edge, on
 * its end and the edge). Returns how many it added (none when the segment passes beside the
 * face). */
static uint32_t manifold__capsule_face(physics__v3 p0, physics__v3 p1,
                                       const manifold__segment_in_box *g, float r,
                                       const manifold__box *x, uint32_t face, float margin,
                                       bool flip, physics__manifold_out *m)
{
    const int k = (int)(face / 2u);
    const float s = face & 1u ? 1.0f : -1.0f;
    float lo = 0.0f, hi = 1.0f;
    for (int j = 0; j < 3; j++) {
        if (j == k)
            continue;
        if (g->dl[j] == 0.0f) {
            if (fabsf(g->l0[j]) > x->h[j])
                return 0;
            continue;
        }
        const float ta = (-x->h[j] - g->l0[j]) / g->dl[j], tb = (x->h[j] - g->l0[j]) / g->dl[j];
        lo = f_max(lo, f_min(ta, tb));
        hi = f_min(hi, f_max(ta, tb));
    }
    if (!(lo <= hi))
        return 0;
    const physics__v3 n = v3_scale(x->ax[k], s);
    const float ts[2] = {lo, hi};
    uint32_t added = 0;
    for (uint32_t e = 0; e < (hi > lo ? 2u : 1u); e++) {
        const float sep = s * (g->l0[k] + ts[e] * g->dl[k]) - x->h[k] - r;
        if (sep > margin)
            continue;
        const physics__v3 c = manifold__lerp(p0, p1, ts[e]);
        manifold__add(m, v3_sub(c, v3_scale(n, r + 0.5f * sep)), sep, 0x200u + 2u * face + e);
        added++;
    }
    if (added)
        m->normal = flip ? n : v3_scale(n, -1.0f);
    return added;
}

/* The capsule (segment p0 p1, g in the box's axes, radius r) against box x by the separating axes
 * of a segment and a box, when the segment goes into it: the box's faces (how far the deeper end
 * is past the face's plane) and the segment's direction across each of the box's edges. The face
 * of least depth is clipped (manifold__capsule_face) unless an edge is shallower by
 * MANIFOLD_EDGE_TOLERANCE; then one point, where the segment passes nearest that edge. A rod
 * through a thin wall so goes back out of the side its deeper part is on: its point nearest the
 * box, somewhere inside it, pushed out of the face nearest to that point, as this did, sent more
 * than half of such rods on through the wall (test_physics_ccd's spinning compounds and room). */
static void manifold__capsule_in_box(physics__v3 p0, physics__v3 p1,
                                     const manifold__segment_in_box *g, float r,
                                     const manifold__box *x, float margin, bool flip,
                                     physics__manifold_out *m)
{
    uint32_t face = 0;
    float face_sep = -INFINITY;
    for (int k = 0; k < 3; k++) {
        const float a = g->l0[k], b = g->l0[k] + g->dl[k];
        if (-f_max(a, b) - x->h[k] > face_sep)
            face_sep = -f_max(a, b) - x->h[k], face = 2u * (uint32_t)k;
        if (f_min(a, b) - x->h[k] > face_sep)
            face_sep = f_min(a, b) - x->h[k], face = 2u * (uint32_t)k + 1u;
    }
    const physics__v3 d = v3_sub(p1, p0), o = v3_sub(p0, x->c);
    int edge = -1;
    float edge_sep = -INFINITY;
    physics__v3 edge_n = v3(0, 1, 0);
    for (int k = 0; k < 3; k++) {
        const physics__v3 across = v3_cross(d, x->ax[k]);
        const float len = v3_len(across);
        if (!(len > 1e-3f * v3_len(d)))
            continue; /* the segment runs along the edges: the faces hold it */
        physics__v3 n = v3_scale(across, 1.0f / len);
        /* Every point of the segment lies at the same height along n. */
        float at = v3_dot(o, n);
        if (at < 0.0f)
            n = v3_scale(n, -1.0f), at = -at;
        float reach = 0.0f;
        for (int q = 0; q < 3; q++)
            reach += x->h[q] * fabsf(v3_dot(x->ax[q], n));
        if (at - reach > edge_sep)
            edge_sep = at - reach, edge = k, edge_n = n;
    }
    if (edge < 0 || !(edge_sep > face_sep + MANIFOLD_EDGE_TOLERANCE)) {
        /* (The part of the segment inside the box lies within the face's sides, and is at or
         * below its plane: this adds at least one point.) */
        manifold__capsule_face(p0, p1, g, r, x, face, margin, flip, m);
        return;
    }
    /* The box's edge along ax[edge] furthest out along n. */
    physics__v3 corner = x->c;
    for (int q = 0; q < 3; q++)
        if (q != edge)
            corner = v3_add(
                corner, v3_scale(x->ax[q], v3_dot(x->ax[q], edge_n) < 0.0f ? -x->h[q] : x->h[q]));
    const physics__v3 along = v3_scale(x->ax[edge], x->h[edge]);
    physics__v3 on_segment, on_edge;
    manifold__segments(p0, p1, v3_sub(corner, along), v3_add(corner, along), &on_segment, &on_edge);
    const float sep = edge_sep - r;
    if (sep > margin)
        return;
    m->normal = flip ? edge_n : v3_scale(edge_n, -1.0f);
    manifold__add(m, v3_sub(on_segment, v3_scale(edge_n, r + 0.5f * sep)), sep,
                  0x210u + (uint32_t)edge);
}

/* A capsule (segment p0 p1, radius r) against a box, as Box3D's capsule against a hull: apart,
 * by the segment's point nearest the box (physics__segment_nearest_t); where the way from the box
 * to it is (within PHYSICS_CAPSULE_FACE) a face's normal, the segment clipped on that face
 * (manifold__capsule_face), else that one point. The segment going into the box:
 * manifold__capsule_in_box. `flip`: the box is body a. */
static void manifold__capsule_box(physics__v3 p0, physics__v3 p1, float r, const manifold__box *x,
                                  float margin, bool flip, physics__manifold_out *m)
{
    /* Both ends past the same face's plane by more than the radius and margin: every point below
     * is too (most capsules near a box in a pile are clear of it). */
    const float clear = r + margin + PHYSICS_PLANE_SLACK;
    manifold__segment_in_box g;
    const physics__v3 o = v3_sub(p0, x->c), d = v3_sub(p1, p0);
    for (int k = 0; k < 3; k++) {
        g.l0[k] = v3_dot(o, x->ax[k]);
        g.dl[k] = v3_dot(d, x->ax[k]);
        const float a0 = g.l0[k], a1 = v3_dot(v3_sub(p1, x->c), x->ax[k]);
        if (f_min(a0, a1) - x->h[k] > clear || -f_max(a0, a1) - x->h[k] > clear)
            return;
    }
    manifold__segment_beside beside = {&g, x->h};
    const float t = physics__segment_nearest_t(manifold__segment_box_slope, &beside);
    float off[3];
    for (int k = 0; k < 3; k++) {
        const float l = g.l0[k] + t * g.dl[k];
        off[k] = l - f_max(-x->h[k], f_min(l, x->h[k]));
    }
    const float dist = sqrtf(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);
    if (!(dist > 1e-6f)) {
        manifold__capsule_in_box(p0, p1, &g, r, x, margin, flip, m);
        return;
    }
    int k = 0;
    for (int q = 1; q < 3; q++)
        if (fabsf(off[q]) > fabsf(off[k]))
            k = q;
    if (fabsf(off[k]) > PHYSICS_CAPSULE_FACE * dist &&
        manifold__capsule_face(p0, p1, &g, r, x, 2u * (uint32_t)k + (off[k] > 0.0f), margin, flip,
                               m))
        return;
    const float sep = dist - r;
    if (sep > margin)
        return;
    const physics__v3 n =
        v3_scale(v3_add(v3_add(v3_scale(x->ax[0], off[0]), v3_scale(x->ax[1], off[1])),
                        v3_scale(x->ax[2], off[2])),
                 1.0f / dist);
    m->normal = flip ? n : v3_scale(n, -1.0f);
    manifold__add(m, v3_sub(manifold__lerp(p0, p1, t), v3_scale(n, r + 0.5f * sep)), sep, 0x218u);
}

/* The clip of a polygon by the plane dot(p, axis) <= limit (Sutherland-Hodgman), ids kept: a
 * point made by the cut gets one from the plane and the edge's first point. */
static uint32_t manifold__clip(const physics__manifold_point *in, uint32_t n, physics__v3 axis,
                               float limit, uint32_t plane, physics__manifold_point *out)
{
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        const physics__manifold_point *a = &in[k], *b = &in[(k + 1) % n];
        const float da = v3_dot(a->point, axis) - limit, db = v3_dot(b->point, axis) - limit;
        if (da <= 0.0f)
            out[m++] = *a;
        if ((da <= 0.0f) != (db <= 0.0f)) {
            const float t = da / (da - db);
            out[m++] = (physics__manifold_point){manifold__lerp(a->point, b->point, t), 0.0f,
                                                 (a->id & 0xfu) | (plane + 1u) << 4};
        }
    }
    return m;
}

/* Keeps the four points that hold the most: the deepest, the farthest from it, the one that makes
 * the largest triangle with those, and the one farthest out on the triangle's other side (so the
 * first two, and the last two, are opposite corners: see manifold__box_box). */
static void manifold__reduce(physics__manifold_out *m)
{
    if (m->count <= PHYSICS_MANIFOLD_POINTS)
        return;
    const physics__manifold_point *p = m->p;
    const physics__v3 n = m->normal;
    uint32_t a = 0, b = 0, c = 0, d = 0;
    for (uint32_t k = 1; k < m->count; k++)
        if (p[k].sep < p[a].sep)
            a = k;
    float best = -1.0f;
    for (uint32_t k = 0; k < m->count; k++) {
        const physics__v3 e = v3_sub(p[k].point, p[a].point);
        if (v3_dot(e, e) > best)
            best = v3_dot(e, e), b = k;
    }
    const physics__v3 ab = v3_sub(p[b].point, p[a].point);
    best = -1.0f;
    float side = 1.0f;
    for (uint32_t k = 0; k < m->count; k++) {
        const float area = v3_dot(v3_cross(ab, v3_sub(p[k].point, p[a].point)), n);
        if (fabsf(area) > best)
            best = fabsf(area), c = k, side = area < 0.0f ? 1.0f : -1.0f;
    }
    best = -INFINITY;
    for (uint32_t k = 0; k < m->count; k++) {
        if (k == a || k == b || k == c)
            continue;
        const float area = side * v3_dot(v3_cross(ab, v3_sub(p[k].point, p[a].point)), n);
        if (area > best)
            best = area, d = k;
    }
    const physics__manifold_point keep[4] = {p[a], p[b], p[c], p[d]};
    for (uint32_t k = 0; k < 4; k++)
        m->p[k] = keep[k];
    m->count = 4;
}

/* The support of box x along its axes, signed: the corner offset farthest along dir. */
static physics__v3 manifold__corner(const manifold__box *x, physics__v3 dir, int skip)
{
    physics__v3 p = x->c;
    for (int k = 0; k < 3; k++)
        if (k != skip)
            p = v3_add(p, v3_scale(x->ax[k], v3_dot(x->ax[k], dir) >= 0.0f ? x->h[k] : -x->h[k]));
    return p;
}

/* Reference face `face` of box r (its axis, pointing along n towards the other box i), incident box
 * i: the manifold, normal n from r to i. */
static void manifold__faces(const manifold__box *r, int face, const manifold__box *i, physics__v3 n,
                            float margin, uint32_t id_base, physics__manifold_out *m)
{
    int f = 0;
    float most = -1.0f;
    for (int k = 0; k < 3; k++)
        if (fabsf(v3_dot(i->ax[k], n)) > most)
            most = fabsf(v3_dot(i->ax[k], n)), f = k;
    const float s = v3_dot(i->ax[f], n) > 0.0f ? -1.0f : 1.0f;
    const int u = (f + 1) % 3, v = (f + 2) % 3;
    const physics__v3 fc = v3_add(i->c, v3_scale(i->ax[f], s * i->h[f]));
    const physics__v3 du = v3_scale(i->ax[u], i->h[u]), dv = v3_scale(i->ax[v], i->h[v]);
    physics__manifold_point poly[2][PHYSICS_MANIFOLD_MAX_CLIP];
    poly[0][0] = (physics__manifold_point){v3_add(fc, v3_add(du, dv)), 0.0f, 0};
    poly[0][1] = (physics__manifold_point){v3_add(fc, v3_sub(dv, du)), 0.0f, 1};
    poly[0][2] = (physics__manifold_point){v3_sub(fc, v3_add(du, dv)), 0.0f, 2};
    poly[0][3] = (physics__manifold_point){v3_add(fc, v3_sub(du, dv)), 0.0f, 3};
    uint32_t count = 4, cur = 0, plane = 0;
    for (int k = 0; k < 3; k++) {
        if (k == face)
            continue;
        const float c = v3_dot(r->c, r->ax[k]);
        count = manifold__clip(poly[cur], count, r->ax[k], c + r->h[k] + MANIFOLD_CLIP_SLOP,
                               plane++, poly[cur ^ 1]);
        cur ^= 1;
        count = manifold__clip(poly[cur], count, v3_scale(r->ax[k], -1.0f),
                               -(c - r->h[k] - MANIFOLD_CLIP_SLOP), plane++, poly[cur ^ 1]);
        cur ^= 1;
    }
    const physics__v3 rc = v3_add(r->c, v3_scale(n, r->h[face]));
    const uint32_t ids = id_base | (uint32_t)face << 12 | (uint32_t)(f * 2 + (s > 0.0f)) << 8;
    for (uint32_t k = 0; k < count; k++) {
        const float sep = v3_dot(v3_sub(poly[cur][k].point, rc), n);
        if (sep <= margin)
            manifold__add(m, v3_sub(poly[cur][k].point, v3_scale(n, 0.5f * sep)), sep,
                          ids | poly[cur][k].id);
    }
}

static void manifold__box_box(const manifold__box *a, const manifold__box *b, float margin,
                              bool prefer_b, physics__manifold_out *m)
{
    const physics__v3 d = v3_sub(b->c, a->c);
    float face_a = -INFINITY, face_b = -INFINITY, edge = -INFINITY;
    int fa = 0, fb = 0, ea = 0, eb = 0;
    physics__v3 edge_axis = v3(0, 1, 0);
    for (int k = 0; k < 3; k++) {
        const physics__v3 ax = a->ax[k];
        const float sep = fabsf(v3_dot(d, ax)) - (a->h[k] + b->h[0] * fabsf(v3_dot(b->ax[0], ax)) +
                                                  b->h[1] * fabsf(v3_dot(b->ax[1], ax)) +
                                                  b->h[2] * fabsf(v3_dot(b->ax[2], ax)));
        if (sep > margin)
            return;
        if (sep > face_a)
            face_a = sep, fa = k;
    }
    for (int k = 0; k < 3; k++) {
        const physics__v3 ax = b->ax[k];
        const float sep = fabsf(v3_dot(d, ax)) - (b->h[k] + a->h[0] * fabsf(v3_dot(a->ax[0], ax)) +
                                                  a->h[1] * fabsf(v3_dot(a->ax[1], ax)) +
                                                  a->h[2] * fabsf(v3_dot(a->ax[2], ax)));
        if (sep > margin)
            return;
        if (sep > face_b)
            face_b = sep, fb = k;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            physics__v3 ax = v3_cross(a->ax[i], b->ax[j]);
            const float len = v3_len(ax);
            if (len < 1e-5f)
                continue;
            ax = v3_scale(ax, 1.0f / len);
            float ra = 0.0f, rb = 0.0f;
            for (int k = 0; k < 3; k++) {
                ra += a->h[k] * fabsf(v3_dot(a->ax[k], ax));
                rb += b->h[k] * fabsf(v3_dot(b->ax[k], ax));
            }
            const float sep = fabsf(v3_dot(d, ax)) - ra - rb;
            if (sep > margin)
                return;
            if (sep > edge)
                edge = sep, ea = i, eb = j, edge_axis = ax;
        }
    /* The reference face sticks: the box that gave it last step keeps it unless the other's face
     * separates clearly more. Swapping reference faces renames every point (their ids say which
     * box clipped which), and a pile under load whose faces swap at random loses its warm start. */
    const bool use_b = prefer_b ? face_b + MANIFOLD_FACE_TOLERANCE >= face_a
                                : face_b > face_a + MANIFOLD_FACE_TOLERANCE;
    const float face = use_b ? face_b : face_a;
    if (edge > face + MANIFOLD_EDGE_TOLERANCE) {
        const physics__v3 n = v3_dot(edge_axis, d) < 0.0f ? v3_scale(edge_axis, -1.0f) : edge_axis;
        const physics__v3 ca = manifold__corner(a, n, ea),
                          cb = manifold__corner(b, v3_scale(n, -1.0f), eb);
        const physics__v3 ha = v3_scale(a->ax[ea], a->h[ea]), hb = v3_scale(b->ax[eb], b->h[eb]);
        physics__v3 pa, pb;
        manifold__segments(v3_sub(ca, ha), v3_add(ca, ha), v3_sub(cb, hb), v3_add(cb, hb), &pa,
                           &pb);
        const float sep = v3_dot(v3_sub(pb, pa), n);
        m->normal = n;
        manifold__add(m, v3_scale(v3_add(pa, pb), 0.5f), sep, 0x100u + (uint32_t)(ea * 3 + eb));
        return;
    }
    if (use_b) {
        const physics__v3 n = v3_dot(b->ax[fb], d) > 0.0f ? v3_scale(b->ax[fb], -1.0f) : b->ax[fb];
        m->normal = v3_scale(n, -1.0f);
        manifold__faces(b, fb, a, n, margin, PHYSICS_MANIFOLD_REFERENCE_B, m);
    } else {
        const physics__v3 n = v3_dot(a->ax[fa], d) < 0.0f ? v3_scale(a->ax[fa], -1.0f) : a->ax[fa];
        m->normal = n;
        manifold__faces(a, fa, b, n, margin, 0, m);
    }
    /* The four points of a face stay in turn round it, as Box3D keeps them. (Solving them corner,
     * opposite corner, then the other two was tried while manifolds were found anew every step: it
     * only hid the drift that recycling them removed, and with recycling it made a 40-wide
     * pyramid lean out of its plane.) */
    manifold__reduce(m);
}

void physics__manifold_reduce(physics__manifold_out *m) { manifold__reduce(m); }

/* How far body i (a box, ball, capsule or hull) reaches from its centre along u, a direction in
 * its own frame (unit, but for a ball's, which is not read). */
static float manifold__support(const physics__bodies *b, uint32_t i, physics__v3 u)
{
    const physics__v3 h = b->half[i];
    switch (b->shape[i]) {
    case CT_BODY_BOX: return h.x * fabsf(u.x) + h.y * fabsf(u.y) + h.z * fabsf(u.z);
    case CT_BODY_SPHERE: return b->radius[i];
    case CT_BODY_CAPSULE: return b->radius[i] + (h.y - b->radius[i]) * fabsf(u.y);
    default: {
        const physics__hull *x = b->hull[i];
        float most = -INFINITY;
        for (uint32_t k = 0; k < x->num_vertices; k++)
            most = f_max(most, v3_dot(x->vertex[k], u));
        return most;
    }
    }
}

/* The face of polytope i (a box or hull) whose outward normal, returned in i's frame, leans most
 * along t (also in i's frame); *offset: its plane's, dot(normal, x) = offset. */
static physics__v3 manifold__facing(const physics__bodies *b, uint32_t i, physics__v3 t,
                                    float *offset)
{
    if (b->shape[i] == CT_BODY_BOX) {
        const float ax = fabsf(t.x), ay = fabsf(t.y), az = fabsf(t.z);
        const int k = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2;
        float e[3] = {0, 0, 0};
        e[k] = v3_get(t, k) < 0.0f ? -1.0f : 1.0f;
        *offset = v3_get(b->half[i], k);
        return v3_load(e);
    }
    const physics__hull *x = b->hull[i];
    uint32_t f = 0;
    for (uint32_t k = 1; k < x->num_faces; k++)
        if (v3_dot(x->normal[k], t) > v3_dot(x->normal[f], t))
            f = k;
    *offset = x->offset[f];
    return x->normal[f];
}

/* Whether hull i or j and the other body (a box, ball, capsule or hull) lie apart by more than the
 * margin on an axis that physics__hull_manifold's test of them would also find them apart on, so
 * that it finds no point. Most pairs whose boxes overlap in a pile are clear of each other (in
 * bench convex_vs_mesh 252k of the 310k tests with a hull found nothing), and that test first
 * placed both shapes in the world as polytopes, which cost more than the rest of it. With a ball
 * or capsule the axis is the line through the centres (their test measures the true distance:
 * every point it keeps lies within the margin of touching); between two polytopes, which it only
 * tests on the faces of each and pairs of edges, it is the face of each that faces the other
 * most, taken in the body's own frame (one face that separates them by more than the margin
 * makes the test return with nothing). The slack covers the rounding of the test, done with world
 * coordinates up to 1e5 m. (The tests of boxes, balls and capsules alone cost about what this
 * does.) */
static bool manifold__apart(const physics__bodies *b, uint32_t i, uint32_t j, float margin)
{
    const physics__v3 pi = b->position[i], pj = b->position[j], d = v3_sub(pj, pi);
    const physics__quat qi = b->rotation[i], qj = b->rotation[j];
    const physics__v3 hi = b->half[i], hj = b->half[j];
    const float size = f_max(f_max(fabsf(pi.x), fabsf(pi.y)), fabsf(pi.z)) +
                       f_max(f_max(fabsf(pj.x), fabsf(pj.y)), fabsf(pj.z)) +
                       f_max(f_max(hi.x, hi.y), hi.z) + f_max(f_max(hj.x, hj.y), hj.z);
    const float limit = margin + PHYSICS_PLANE_SLACK + 4e-6f * size;
    const uint8_t si = b->shape[i], sj = b->shape[j];
    if (si == CT_BODY_SPHERE || si == CT_BODY_CAPSULE || sj == CT_BODY_SPHERE ||
        sj == CT_BODY_CAPSULE) {
        const float dist = v3_len(d);
        if (!(dist > 0.0f))
            return false;
        const physics__v3 u = v3_scale(d, 1.0f / dist);
        return dist - manifold__support(b, i, quat_unrotate(qi, u)) -
                   manifold__support(b, j, quat_unrotate(qj, v3_scale(u, -1.0f))) >
               limit;
    }
    float offset;
    const physics__v3 ti = quat_unrotate(qi, d), ni = manifold__facing(b, i, ti, &offset);
    const physics__v3 ui = quat_unrotate(qj, quat_rotate(qi, v3_scale(ni, -1.0f)));
    if (v3_dot(ni, ti) - offset - manifold__support(b, j, ui) > limit)
        return true;
    const physics__v3 tj = quat_unrotate(qj, v3_scale(d, -1.0f)),
                      nj = manifold__facing(b, j, tj, &offset);
    const physics__v3 uj = quat_unrotate(qi, quat_rotate(qj, v3_scale(nj, -1.0f)));
    return v3_dot(nj, tj) - offset - manifold__support(b, i, uj) > limit;
}

void physics__manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                       bool prefer_b, physics__manifold_out *m)
{
    m->count = 0;
    m->normal = v3(0, 1, 0);
    const uint8_t si = b->shape[i], sj = b->shape[j];
    if (si == CT_BODY_MESH || sj == CT_BODY_MESH) {
        /* A compound's children meet the mesh one by one (through the compound's test). */
        if (si == CT_BODY_COMPOUND || sj == CT_BODY_COMPOUND)
            physics__compound_manifold(b, i, j, margin, prefer_b, m);
        else
            physics__mesh_manifold(b, i, j, margin, prefer_b, m);
        return;
    }
    if (si == CT_BODY_COMPOUND || sj == CT_BODY_COMPOUND) {
        physics__compound_manifold(b, i, j, margin, prefer_b, m);
        return;
    }
    if (si == CT_BODY_HULL || sj == CT_BODY_HULL) {
        if (!manifold__apart(b, i, j, margin))
            physics__hull_manifold(b, i, j, margin, prefer_b, m);
        return;
    }
    if (si == CT_BODY_BOX && sj == CT_BODY_BOX) {
        const manifold__box a = manifold__box_of(b, i), c = manifold__box_of(b, j);
        manifold__box_box(&a, &c, margin, prefer_b, m);
    } else if (si == CT_BODY_BOX || sj == CT_BODY_BOX) {
        /* The round one against the box; the normal always from i to j. */
        const uint32_t round = si == CT_BODY_BOX ? j : i, box = round == i ? j : i;
        const manifold__box x = manifold__box_of(b, box);
        const bool flip = box == i;
        if (b->shape[round] == CT_BODY_SPHERE) {
            physics__v3 n, point;
            float sep;
            if (manifold__ball_box(b->position[round], b->radius[round], &x, margin, &n, &sep,
                                   &point)) {
                m->normal = flip ? n : v3_scale(n, -1.0f);
                manifold__add(m, point, sep, 0x300u);
            }
        } else {
            physics__v3 p0, p1;
            manifold__capsule(b, round, &p0, &p1);
            manifold__capsule_box(p0, p1, b->radius[round], &x, margin, flip, m);
        }
    } else {
        /* Spheres and capsules: segments (a sphere's has one point) with radii. */
        physics__v3 a0 = b->position[i], a1 = a0, b0 = b->position[j], b1 = b0;
        if (si == CT_BODY_CAPSULE)
            manifold__capsule(b, i, &a0, &a1);
        if (sj == CT_BODY_CAPSULE)
            manifold__capsule(b, j, &b0, &b1);
        const physics__v3 da = v3_sub(a1, a0), db = v3_sub(b1, b0);
        const physics__v3 cr = v3_cross(da, db);
        const bool side_by_side = si == CT_BODY_CAPSULE && sj == CT_BODY_CAPSULE &&
                                  v3_dot(cr, cr) < 1e-4f * v3_dot(da, da) * v3_dot(db, db);
        if (side_by_side) {
            /* Both ends of b against a's segment: a capsule lying on another rests on two points. */
            manifold__balls(manifold__lerp(a0, a1, manifold__segment_t(a0, a1, b0)), b->radius[i],
                            b0, b->radius[j], margin, 0x400u, m);
            manifold__balls(manifold__lerp(a0, a1, manifold__segment_t(a0, a1, b1)), b->radius[i],
                            b1, b->radius[j], margin, 0x401u, m);
        } else {
            physics__v3 ca, cb;
            manifold__segments(a0, a1, b0, b1, &ca, &cb);
            manifold__balls(ca, b->radius[i], cb, b->radius[j], margin, 0x402u, m);
        }
    }
    if (m->count > PHYSICS_MANIFOLD_POINTS)
        manifold__reduce(m);
}

float physics__manifold_separation(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                                   physics__v3 *normal)
{
    const uint8_t si = b->shape[i], sj = b->shape[j];
    if ((si == CT_BODY_MESH || sj == CT_BODY_MESH) && si != CT_BODY_COMPOUND &&
        sj != CT_BODY_COMPOUND)
        return physics__mesh_least(b, i, j, margin, normal);
    physics__manifold_out m;
    physics__manifold(b, i, j, margin, false, &m);
    *normal = m.normal;
    return physics__manifold_least(&m);
}

uint32_t physics__manifolds(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                            bool prefer_b, physics__manifold_out *out, uint32_t max)
{
    const uint8_t si = b->shape[i], sj = b->shape[j];
    if (si == CT_BODY_MESH || sj == CT_BODY_MESH)
        return si == CT_BODY_COMPOUND || sj == CT_BODY_COMPOUND
                   ? physics__compound_mesh_manifolds(b, i, j, margin, prefer_b, out, max)
                   : physics__mesh_manifolds(b, i, j, margin, prefer_b, out, max);
    physics__manifold(b, i, j, margin, prefer_b, out);
    return out->count ? 1u : 0u;
}
