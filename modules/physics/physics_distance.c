/* physics_distance.c: how far apart two convex shapes are, for the sweeps of physics_ccd.c.
 *
 * A sweep's conservative advancement needs, at each pose, a gap along some axis that is no more
 * than the true distance, and that axis; the contact manifold gives one (its least point, along
 * its normal), but builds the whole manifold for it: clipped faces, up to four points, reduction
 * (physics_manifold.c). Here the distance is found by GJK (Gilbert, Johnson and Keerthi): the
 * point of the Minkowski difference A - B nearest the origin, from the shapes' support points
 * alone. Each shape is a core (a point, a segment, a box or a hull) with a radius (a ball's, a
 * capsule's) around it, so GJK runs on the cores and the radii come off at the end.
 *
 * What is returned is a lower bound, never the estimate from above: for any axis v, every point x
 * of A - B has x . v/|v| >= w . v/|v|, where w is the support point of A - B towards -v, so
 *   gap(v) = w . v / |v|  (minus the radii)
 * is how far apart the shapes are along v, at most the true distance, whatever v is. Each GJK
 * iteration gives one; the largest is kept, with its axis. So a wrong turn (rounding, a simplex
 * that degenerates) can only make the gap smaller, and a sweep step shorter, never one too long.
 * Cores that touch or overlap have no useful gap (the iterations find the origin in the simplex):
 * the caller then asks the manifold, which measures how deep they are. Every operation is plain
 * float arithmetic in a fixed order, so the bits depend on the inputs only (no threads, no
 * library calls but sqrtf). */
#include "physics_internal.h"
#include "physics_hull.h"

/* GJK stops when the nearest point of its simplex is within this fraction of its length (plus
 * DISTANCE_SLACK) of the gap it proved: the rest a sweep covers in its next step. */
#define DISTANCE_TOLERANCE 1e-3f
#define DISTANCE_SLACK 1e-4f /* m: the rounding of support points 50 m from the origin */
/* A handful of iterations converge for boxes and capsules; hulls may take more. Past this many
 * the best gap so far is the answer (a lower bound all the same). */
#define DISTANCE_MAX_ITERATIONS 24u
/* Passes of the nearest points of a box (dist__gjk) before GJK proper. */
#define DISTANCE_BOX_PASSES 2u

enum { DIST_POINT, DIST_SEGMENT, DIST_BOX, DIST_HULL };

/* A shape's core, posed: its centre, its axes in world coordinates (its rotation's columns), and
 * for a box its half extents, for a segment its half length (in half.y, along axis[1]). */
typedef struct dist__core {
    physics__v3 p;
    physics__v3 axis[3];
    physics__v3 half;
    const physics__hull *hull;
    float radius;
    uint8_t kind;
} dist__core;

static void dist__axes(physics__quat q, physics__v3 axis[3])
{
    const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    axis[0] = v3(1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy));
    axis[1] = v3(2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx));
    axis[2] = v3(2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy));
}

/* The core of a shape (box, sphere, capsule or hull, with a body's or a child's sizes) at
 * position p, rotation q. False for shapes that are not convex (meshes) or not one shape. */
static bool dist__core_of(uint8_t shape, physics__v3 half, float radius, const physics__hull *hull,
                          physics__v3 p, physics__quat q, dist__core *c)
{
    c->p = p;
    c->hull = NULL;
    c->radius = 0.0f;
    c->half = v3(0, 0, 0);
    switch (shape) {
    case CT_BODY_SPHERE:
        c->kind = DIST_POINT;
        c->radius = radius;
        return true;
    case CT_BODY_CAPSULE:
        c->kind = DIST_SEGMENT;
        c->radius = radius;
        c->half = v3(0.0f, half.y - radius, 0.0f);
        dist__axes(q, c->axis);
        return true;
    case CT_BODY_BOX:
        c->kind = DIST_BOX;
        c->half = half;
        dist__axes(q, c->axis);
        return true;
    case CT_BODY_HULL:
        if (!hull || !hull->num_vertices)
            return false;
        c->kind = DIST_HULL;
        c->hull = hull;
        dist__axes(q, c->axis);
        return true;
    default: return false;
    }
}

/* The point of core c furthest along d (world axes); ties go to the positive side. */
static physics__v3 dist__support(const dist__core *c, physics__v3 d)
{
    switch (c->kind) {
    case DIST_SEGMENT: {
        const physics__v3 a = v3_scale(c->axis[1], c->half.y);
        return v3_dot(d, c->axis[1]) >= 0.0f ? v3_add(c->p, a) : v3_sub(c->p, a);
    }
    case DIST_BOX: {
        physics__v3 s = c->p;
        s = v3_add(s, v3_scale(c->axis[0], v3_dot(d, c->axis[0]) >= 0.0f ? c->half.x : -c->half.x));
        s = v3_add(s, v3_scale(c->axis[1], v3_dot(d, c->axis[1]) >= 0.0f ? c->half.y : -c->half.y));
        s = v3_add(s, v3_scale(c->axis[2], v3_dot(d, c->axis[2]) >= 0.0f ? c->half.z : -c->half.z));
        return s;
    }
    case DIST_HULL: {
        const physics__hull *h = c->hull;
        const physics__v3 l =
            v3(v3_dot(d, c->axis[0]), v3_dot(d, c->axis[1]), v3_dot(d, c->axis[2]));
        uint32_t best = 0;
        float most = v3_dot(h->vertex[0], l);
        for (uint32_t k = 1; k < h->num_vertices; k++) {
            const float x = v3_dot(h->vertex[k], l);
            if (x > most)
                most = x, best = k;
        }
        const physics__v3 v = h->vertex[best];
        return v3_add(c->p, v3_add(v3_add(v3_scale(c->axis[0], v.x), v3_scale(c->axis[1], v.y)),
                                   v3_scale(c->axis[2], v.z)));
    }
    default: return c->p;
    }
}

/* ---- the simplex's nearest point to the origin (Voronoi regions, as in Ericson's Real-Time
 * Collision Detection, 5.1) ------------------------------------------------------------------ */

/* Segment s[0] s[1]: its point nearest the origin; s and *n keep the vertices that make it. */
static physics__v3 dist__segment(physics__v3 *s, uint32_t *n)
{
    const physics__v3 a = s[0], ab = v3_sub(s[1], s[0]);
    const float t = -v3_dot(a, ab), len = v3_dot(ab, ab);
    if (t <= 0.0f) {
        *n = 1;
        return a;
    }
    if (t >= len) {
        s[0] = s[1];
        *n = 1;
        return s[0];
    }
    *n = 2;
    return v3_add(a, v3_scale(ab, t / len));
}

static physics__v3 dist__triangle(physics__v3 *s, uint32_t *n)
{
    const physics__v3 a = s[0], b = s[1], c = s[2];
    const physics__v3 ab = v3_sub(b, a), ac = v3_sub(c, a);
    const float d1 = -v3_dot(ab, a), d2 = -v3_dot(ac, a);
    if (d1 <= 0.0f && d2 <= 0.0f) {
        *n = 1;
        return a;
    }
    const float d3 = -v3_dot(ab, b), d4 = -v3_dot(ac, b);
    if (d3 >= 0.0f && d4 <= d3) {
        s[0] = b;
        *n = 1;
        return b;
    }
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
        *n = 2;
        return v3_add(a, v3_scale(ab, d1 / (d1 - d3)));
    }
    const float d5 = -v3_dot(ab, c), d6 = -v3_dot(ac, c);
    if (d6 >= 0.0f && d5 <= d6) {
        s[0] = c;
        *n = 1;
        return c;
    }
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
        s[1] = c;
        *n = 2;
        return v3_add(a, v3_scale(ac, d2 / (d2 - d6)));
    }
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f) {
        s[0] = b;
        s[1] = c;
        *n = 2;
        return v3_add(b, v3_scale(v3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    const float sum = va + vb + vc;
    if (!(sum > 0.0f)) /* a triangle with no area: its longest side is as near */
        return dist__segment(s, n);
    *n = 3;
    return v3_add(a, v3_add(v3_scale(ab, vb / sum), v3_scale(ac, vc / sum)));
}

/* Whether the origin and d lie on opposite sides of plane abc (or d on it: a flat tetrahedron is
 * measured by all its faces). */
static bool dist__outside(physics__v3 a, physics__v3 b, physics__v3 c, physics__v3 d)
{
    const physics__v3 nrm = v3_cross(v3_sub(b, a), v3_sub(c, a));
    const float o = -v3_dot(a, nrm), x = v3_dot(v3_sub(d, a), nrm);
    return x == 0.0f || o * x < 0.0f;
}

static physics__v3 dist__tetrahedron(physics__v3 *s, uint32_t *n)
{
    static const uint8_t face[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    physics__v3 best = v3(0, 0, 0), keep[3];
    float least = INFINITY;
    uint32_t kept = 4;
    for (uint32_t f = 0; f < 4; f++) {
        const uint8_t *k = face[f];
        if (!dist__outside(s[k[0]], s[k[1]], s[k[2]], s[k[3]]))
            continue;
        physics__v3 t[3] = {s[k[0]], s[k[1]], s[k[2]]};
        uint32_t m = 3;
        const physics__v3 q = dist__triangle(t, &m);
        const float qq = v3_dot(q, q);
        if (qq < least) {
            least = qq, best = q, kept = m;
            for (uint32_t j = 0; j < m; j++)
                keep[j] = t[j];
        }
    }
    if (kept == 4) /* the origin is inside: the cores overlap */
        return v3(0, 0, 0);
    for (uint32_t j = 0; j < kept; j++)
        s[j] = keep[j];
    *n = kept;
    return best;
}

/* The point of box core c nearest x. */
static physics__v3 dist__box_nearest(const dist__core *c, physics__v3 x)
{
    const physics__v3 d = v3_sub(x, c->p);
    const float lx = f_min(f_max(v3_dot(d, c->axis[0]), -c->half.x), c->half.x);
    const float ly = f_min(f_max(v3_dot(d, c->axis[1]), -c->half.y), c->half.y);
    const float lz = f_min(f_max(v3_dot(d, c->axis[2]), -c->half.z), c->half.z);
    return v3_add(c->p, v3_add(v3_add(v3_scale(c->axis[0], lx), v3_scale(c->axis[1], ly)),
                               v3_scale(c->axis[2], lz)));
}

/* The axis GJK starts from (from b towards a): from the larger box's nearest point to the other's
 * centre, when either is a box (a wall's centre can be 50 m to the side of where a ball meets
 * it, and GJK took many more iterations from the centres' axis); else the centres' axis. */
static physics__v3 dist__guess(const dist__core *a, const dist__core *b)
{
    const bool ab = a->kind == DIST_BOX, bb = b->kind == DIST_BOX;
    physics__v3 d = v3_sub(a->p, b->p);
    if (bb && (!ab || v3_dot(b->half, b->half) >= v3_dot(a->half, a->half)))
        d = v3_sub(a->p, dist__box_nearest(b, a->p));
    else if (ab)
        d = v3_sub(dist__box_nearest(a, b->p), b->p);
    if (v3_dot(d, d) > 1e-12f)
        return d;
    d = v3_sub(a->p, b->p);
    return v3_dot(d, d) > 1e-12f ? d : v3(0, 1, 0);
}

/* The lower bound of the distance between cores a and b (radii taken off) along *normal (unit,
 * from a to b), starting from axis `guess` (from b towards a; any non-zero vector). Stops early
 * once the gap passes `far`. -INFINITY when the cores touch or no axis separates them. */
static float dist__gjk(const dist__core *a, const dist__core *b, physics__v3 guess, float far,
                       physics__v3 *normal)
{
    physics__v3 s[4];
    uint32_t n = 0;
    physics__v3 v = guess;
    float best = -INFINITY;
    const float radii = a->radius + b->radius;
    far += radii;
    *normal = v3(0, 1, 0);
    /* A box against anything (a wall, mostly): a support point y of the other core and the box's
     * point x nearest it are at least as far apart as the cores, so |y - x| bounds the distance
     * from above as the gaps bound it from below; the axis y - x is tried next. A ball or a
     * capsule's end against a face, or a box's corner, is answered in one or two passes, where
     * GJK went round the wall's far corners first (five to seven iterations). */
    const bool box_b = b->kind == DIST_BOX && (a->kind != DIST_BOX || v3_dot(b->half, b->half) >=
                                                                          v3_dot(a->half, a->half));
    if (box_b || a->kind == DIST_BOX) {
        const dist__core *x = box_b ? b : a, *y = box_b ? a : b;
        physics__v3 u = box_b ? v : v3_scale(v, -1.0f); /* from x towards y */
        for (uint32_t pass = 0; pass < DISTANCE_BOX_PASSES; pass++) {
            const float uu = v3_dot(u, u);
            if (!(uu > 1e-12f))
                break;
            const float len = sqrtf(uu);
            const physics__v3 sy = dist__support(y, v3_scale(u, -1.0f));
            const float gap = v3_dot(v3_sub(sy, dist__support(x, u)), u) / len;
            if (gap > best) {
                best = gap;
                *normal = v3_scale(u, (box_b ? -1.0f : 1.0f) / len);
            }
            const physics__v3 d = v3_sub(sy, dist__box_nearest(x, sy));
            const float above = v3_len(d);
            if (best > far || above - best <= DISTANCE_TOLERANCE * above + DISTANCE_SLACK)
                return best - radii;
            u = d;
        }
        if (v3_dot(u, u) > 1e-12f)
            v = box_b ? u : v3_scale(u, -1.0f);
    }
    for (uint32_t it = 0; it < DISTANCE_MAX_ITERATIONS; it++) {
        const float vv = v3_dot(v, v);
        if (!(vv > 1e-12f))
            break;
        /* The support point of A - B towards -v. */
        const physics__v3 w = v3_sub(dist__support(a, v3_scale(v, -1.0f)), dist__support(b, v));
        const float vw = v3_dot(v, w), len = sqrtf(vv);
        const float gap = vw / len;
        if (gap > best) {
            best = gap;
            *normal = v3_scale(v, -1.0f / len);
        }
        if (best > far || vv - vw <= DISTANCE_TOLERANCE * vv + DISTANCE_SLACK * len)
            break;
        bool again = false; /* w already in the simplex: no progress */
        for (uint32_t k = 0; k < n; k++)
            again |= s[k].x == w.x && s[k].y == w.y && s[k].z == w.z;
        if (again)
            break;
        s[n++] = w;
        v = n == 1   ? s[0]
            : n == 2 ? dist__segment(s, &n)
            : n == 3 ? dist__triangle(s, &n)
                     : dist__tetrahedron(s, &n);
    }
    return best - radii;
}

/* Body i's own shape, or child k of its compound, as a core (and the ball about its centre that
 * holds it). */
static bool dist__part(const physics__bodies *b, uint32_t i, uint32_t k, dist__core *c,
                       float *bound)
{
    if (b->shape[i] != CT_BODY_COMPOUND) {
        if (!dist__core_of(b->shape[i], b->half[i], b->radius[i], b->hull[i], b->position[i],
                           b->rotation[i], c))
            return false;
        *bound = b->shape[i] == CT_BODY_SPHERE    ? b->radius[i]
                 : b->shape[i] == CT_BODY_CAPSULE ? b->half[i].y
                                                  : v3_len(b->half[i]);
        return true;
    }
    const physics__child *x = &b->compound[i]->child[k];
    *bound = x->bound;
    return dist__core_of(x->shape, x->half, x->radius, x->hull,
                         v3_add(b->position[i], quat_rotate(b->rotation[i], x->position)),
                         quat_mul(b->rotation[i], x->rotation), c);
}

bool physics__distance(const physics__bodies *b, uint32_t i, uint32_t j, float near, float far,
                       float *gap, physics__v3 *normal)
{
    const bool ci = b->shape[i] == CT_BODY_COMPOUND, cj = b->shape[j] == CT_BODY_COMPOUND;
    if ((ci && !b->compound[i]) || (cj && !b->compound[j]))
        return false;
    const uint32_t ni = ci ? b->compound[i]->count : 1, nj = cj ? b->compound[j]->count : 1;
    enum { MAX_PARTS = 8 };
    if (ni > MAX_PARTS || nj > MAX_PARTS)
        return false;
    dist__core other[MAX_PARTS];
    float other_bound[MAX_PARTS];
    for (uint32_t k = 0; k < nj; k++)
        if (!dist__part(b, j, k, &other[k], &other_bound[k]))
            return false;
    /* The least gap over the pairs of parts; a pair whose balls are further apart than that
     * cannot be less (ties keep the first pair, in order). */
    float least = INFINITY;
    physics__v3 axis = v3(0, 1, 0);
    for (uint32_t k = 0; k < ni; k++) {
        dist__core self;
        float self_bound;
        if (!dist__part(b, i, k, &self, &self_bound))
            return false;
        for (uint32_t m = 0; m < nj; m++) {
            const physics__v3 d = v3_sub(self.p, other[m].p);
            const float apart = v3_len(d) - self_bound - other_bound[m];
            if (apart >= least || apart > far)
                continue;
            physics__v3 nrm;
            const float g =
                dist__gjk(&self, &other[m], dist__guess(&self, &other[m]), f_min(far, least), &nrm);
            if (g < least)
                least = g, axis = nrm;
        }
    }
    if (!(least > near))
        return false;
    *gap = least > far ? INFINITY : least;
    *normal = axis;
    return true;
}
