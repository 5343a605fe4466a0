/* physics_queries.c: spatial queries over bodies (through the grid) and the state digest. */
#include "physics_hull.h"

#include "ct_array.h"

#include "ct_hash.h"

#include <stdlib.h>

/* Whether body i is turned or round in a way the axis-aligned tests below do not cover (v4):
 * its queries then run in its own frame. */
static bool queries__turned(const physics__bodies *b, uint32_t i)
{
    return b->shape[i] == CT_BODY_CAPSULE || !quat_is_identity(b->rotation[i]);
}

bool physics__sphere_overlaps_body(const physics__bodies *b, uint32_t i, physics__v3 c, float r)
{
    if (b->shape[i] == CT_BODY_COMPOUND)
        return physics__sphere_overlaps_compound(b, i, c, r);
    if (b->shape[i] == CT_BODY_MESH)
        return physics__sphere_overlaps_mesh(b, i, c, r);
    if (b->shape[i] == CT_BODY_HULL) {
        physics__poly p;
        physics__v3 n;
        float sep;
        physics__poly_of(b, i, &p);
        physics__poly_closest(&p, c, &sep, &n);
        return sep <= r;
    }
    physics__v3 d = v3_sub(c, b->position[i]);
    const physics__v3 h = b->half[i];
    if (b->shape[i] == CT_BODY_SPHERE)
        return v3_dot(d, d) <= (r + h.x) * (r + h.x);
    if (queries__turned(b, i))
        d = quat_unrotate(b->rotation[i], d);
    if (b->shape[i] == CT_BODY_CAPSULE) {
        /* Against the segment along local y. */
        const float hh = h.y - b->radius[i], y = f_max(-hh, f_min(d.y, hh)), rr = r + b->radius[i];
        const physics__v3 e = v3(d.x, d.y - y, d.z);
        return v3_dot(e, e) <= rr * rr;
    }
    const physics__v3 out = v3_sub(d, v3_max(v3_scale(h, -1.0f), v3_min(d, h)));
    return v3_dot(out, out) <= r * r;
}

/* A ray (m from the centre, unit d) against a ball of radius r at the origin: the distance, or
 * INFINITY; 0 from inside. */
static float queries__ray_ball(physics__v3 m, physics__v3 d, float r, physics__v3 *normal)
{
    const float c = v3_dot(m, m) - r * r;
    if (c <= 0.0f) {
        *normal = v3_scale(d, -1.0f);
        return 0.0f;
    }
    const float bb = v3_dot(m, d);
    const float disc = bb * bb - c;
    if (bb > 0.0f || disc < 0.0f)
        return INFINITY;
    const float t = -bb - sqrtf(disc);
    *normal = v3_scale(v3_add(m, v3_scale(d, t)), 1.0f / r);
    return t;
}

/* A ray against a capsule along local y (segment half length hh, radius r): the nearer of its
 * side and its two end balls. */
static float queries__ray_capsule(physics__v3 m, physics__v3 d, float hh, float r,
                                  physics__v3 *normal)
{
    const float y = f_max(-hh, f_min(m.y, hh));
    const physics__v3 in = v3(m.x, m.y - y, m.z);
    if (v3_dot(in, in) <= r * r) {
        *normal = v3_scale(d, -1.0f);
        return 0.0f;
    }
    float best = INFINITY;
    const float a = d.x * d.x + d.z * d.z;
    if (a > 1e-12f) {
        const float bb = m.x * d.x + m.z * d.z, c = m.x * m.x + m.z * m.z - r * r;
        const float disc = bb * bb - a * c;
        if (disc >= 0.0f) {
            const float t = (-bb - sqrtf(disc)) / a, yt = m.y + t * d.y;
            if (t >= 0.0f && yt >= -hh && yt <= hh) {
                best = t;
                *normal = v3((m.x + t * d.x) / r, 0.0f, (m.z + t * d.z) / r);
            }
        }
    }
    for (int end = -1; end <= 1; end += 2) {
        physics__v3 n;
        const float t = queries__ray_ball(v3(m.x, m.y - (float)end * hh, m.z), d, r, &n);
        if (t < best)
            best = t, *normal = n;
    }
    return best;
}

/* Distance along the unit direction d from o to body i, or INFINITY. A ray starting inside a
 * shape hits it at 0, facing back along the ray. */
float physics__ray_body(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal)
{
    const physics__v3 p = b->position[i], h = b->half[i];
    physics__v3 m = v3_sub(o, p);
    if (b->shape[i] == CT_BODY_HULL)
        return physics__ray_hull(b, i, o, d, normal);
    if (b->shape[i] == CT_BODY_COMPOUND)
        return physics__ray_compound(b, i, o, d, normal);
    if (b->shape[i] == CT_BODY_MESH)
        return physics__ray_mesh(b, i, o, d, normal);
    if (b->shape[i] == CT_BODY_SPHERE)
        return queries__ray_ball(m, d, h.x, normal);
    if (queries__turned(b, i)) {
        /* In the body's frame, and the normal turned back. */
        const physics__quat q = b->rotation[i];
        physics__v3 n = v3(0, 0, 0);
        m = quat_unrotate(q, m);
        const physics__v3 dl = quat_unrotate(q, d);
        float t;
        if (b->shape[i] == CT_BODY_CAPSULE) {
            t = queries__ray_capsule(m, dl, h.y - b->radius[i], b->radius[i], &n);
        } else {
            t = INFINITY;
            float t0 = 0.0f, t1 = INFINITY;
            int axis = -1;
            float sign = 0.0f;
            bool miss = false;
            for (int k = 0; k < 3 && !miss; k++) {
                const float mk = v3_get(m, k), dk = v3_get(dl, k), hk = v3_get(h, k);
                if (dk == 0.0f) {
                    miss = mk < -hk || mk > hk;
                    continue;
                }
                float ta = (-hk - mk) / dk, tb = (hk - mk) / dk, s = -1.0f;
                if (ta > tb) {
                    const float x = ta;
                    ta = tb, tb = x, s = 1.0f;
                }
                if (ta > t0)
                    t0 = ta, axis = k, sign = s;
                t1 = fminf(t1, tb);
                miss = t0 > t1;
            }
            if (!miss) {
                float e[3] = {0, 0, 0};
                if (axis >= 0)
                    e[axis] = sign;
                n = axis >= 0 ? v3_load(e) : v3_scale(dl, -1.0f);
                t = t0;
            }
        }
        if (t < INFINITY)
            *normal = quat_rotate(q, n);
        return t;
    }
    float t0 = 0.0f, t1 = INFINITY;
    int axis = -1;
    float sign = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float mk = v3_get(m, k), dk = v3_get(d, k), hk = v3_get(h, k);
        if (dk == 0.0f) {
            if (mk < -hk || mk > hk)
                return INFINITY;
            continue;
        }
        float ta = (-hk - mk) / dk, tb = (hk - mk) / dk;
        float s = -1.0f;
        if (ta > tb) {
            const float t = ta;
            ta = tb;
            tb = t;
            s = 1.0f;
        }
        if (ta > t0)
            t0 = ta, axis = k, sign = s;
        t1 = fminf(t1, tb);
        if (t0 > t1)
            return INFINITY;
    }
    float n[3] = {0, 0, 0};
    if (axis < 0) {
        *normal = v3_scale(d, -1.0f);
    } else {
        n[axis] = sign;
        *normal = v3_load(n);
    }
    return t0;
}

int physics__cmp_u32(const void *x, const void *y)
{
    const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Whether box k of the moving grid is one whose body left it during the last step. */
static bool queries__escaped(const physics__scene *s, const physics__broadphase *bp, uint32_t k)
{
    return bp == &s->bp && s->num_escaped &&
           bsearch(&k, s->escaped, s->num_escaped, sizeof k, physics__cmp_u32);
}

/* What a query keeps of the grid's candidates. */
typedef bool (*queries__keep_f)(const physics__bodies *b, uint32_t i, const void *ctx);

/* Appends to s->query the entity ids of one grid's bodies within [lo, hi] that `keep` keeps:
 * candidates from the grid, and for the moving grid the bodies that left their boxes. */
static int queries__collect(physics__scene *s, physics__broadphase *bp, const uint32_t *body,
                            physics__v3 lo, physics__v3 hi, uint32_t mask, queries__keep_f keep,
                            const void *ctx, uint32_t *n)
{
    if (!bp->n || physics__broadphase_overlap(bp, lo, hi))
        return bp->n ? CT_ERR_NOMEM : 0;
    const uint32_t escaped = bp == &s->bp ? s->num_escaped : 0;
    if (*n + bp->num_found + escaped > s->cap_query) {
        if (!ct_array_reserve(s->a, &s->query, &s->cap_query, *n + bp->num_found + escaped,
                              sizeof *s->query, 256))
            return CT_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < bp->num_found; k++)
        if (!queries__escaped(s, bp, bp->found[k]) &&
            (s->bodies.layer[body[bp->found[k]]] & mask) &&
            keep(&s->bodies, body[bp->found[k]], ctx))
            s->query[(*n)++] = s->bodies.entity[body[bp->found[k]]].id;
    for (uint32_t k = 0; k < escaped; k++)
        if ((s->bodies.layer[body[s->escaped[k]]] & mask) &&
            keep(&s->bodies, body[s->escaped[k]], ctx))
            s->query[(*n)++] = s->bodies.entity[body[s->escaped[k]]].id;
    return 0;
}

typedef struct queries__sphere_ctx {
    physics__v3 c;
    float r;
} queries__sphere_ctx;

static bool queries__keep_sphere(const physics__bodies *b, uint32_t i, const void *ctx)
{
    const queries__sphere_ctx *x = ctx;
    return physics__sphere_overlaps_body(b, i, x->c, x->r);
}

static int queries__sphere(physics__scene *s, physics__broadphase *bp, const uint32_t *body,
                           physics__v3 c, float r, uint32_t mask, uint32_t *n)
{
    const physics__v3 ext = v3(r, r, r);
    const queries__sphere_ctx ctx = {c, r};
    return queries__collect(s, bp, body, v3_sub(c, ext), v3_add(c, ext), mask, queries__keep_sphere,
                            &ctx, n);
}

/* A body's world box against [lo, hi] (ctx: the two corners). */
static bool queries__keep_box(const physics__bodies *b, uint32_t i, const void *ctx)
{
    const physics__v3 *box = ctx;
    const physics__v3 lo = v3_sub(b->position[i], b->extent[i]),
                      hi = v3_add(b->position[i], b->extent[i]);
    return lo.x <= box[1].x && lo.y <= box[1].y && lo.z <= box[1].z && hi.x >= box[0].x &&
           hi.y >= box[0].y && hi.z >= box[0].z;
}

uint32_t *physics__scene_overlap_box(physics__scene *s, physics__v3 lo, physics__v3 hi,
                                     uint32_t mask, uint32_t *n)
{
    const physics__v3 box[2] = {lo, hi};
    *n = 0;
    if (physics__scene_refresh_grid(s) ||
        queries__collect(s, &s->bp, s->grid_body, lo, hi, mask, queries__keep_box, box, n) ||
        queries__collect(s, &s->fixed, s->fixed_body, lo, hi, mask, queries__keep_box, box, n)) {
        *n = 0;
        return NULL;
    }
    if (*n > 1)
        qsort(s->query, *n, sizeof *s->query, physics__cmp_u32);
    return s->query;
}

uint32_t physics__scene_overlap_sphere(physics__scene *s, physics__v3 c, float r, uint32_t mask,
                                       ct_entity_t *out, uint32_t max)
{
    uint32_t n = 0;
    if (physics__scene_refresh_grid(s) ||
        queries__sphere(s, &s->bp, s->grid_body, c, r, mask, &n) ||
        queries__sphere(s, &s->fixed, s->fixed_body, c, r, mask, &n))
        return 0;
    if (n > 1) /* qsort wants a valid pointer even for nothing */
        qsort(s->query, n, sizeof *s->query, physics__cmp_u32);
    for (uint32_t k = 0; k < n && k < max; k++)
        out[k].id = s->query[k];
    return n;
}

typedef struct queries__ray {
    const physics__scene *s;
    const physics__broadphase *bp;
    const physics__bodies *b;
    const uint32_t *body; /* grid box -> body */
    physics__v3 o, d;
    uint32_t mask;
} queries__ray;

static float queries__ray_hit(void *user, uint32_t box, float best)
{
    const queries__ray *r = user;
    if (queries__escaped(r->s, r->bp, box) || !(r->b->layer[r->body[box]] & r->mask))
        return INFINITY;
    physics__v3 n;
    const float t = physics__ray_body(r->b, r->body[box], r->o, r->d, &n);
    return t < best ? t : INFINITY;
}

bool physics__scene_raycast(physics__scene *s, physics__v3 o, physics__v3 dir, float max_t,
                            uint32_t mask, ct_physics_hit_t *out)
{
    /* Every body lies within +-CT_PHYSICS_MAX_POSITION: a ray from further out, or longer than
     * the world's diagonal, meets nothing more, so the walk always has a finite end. */
    const float len = v3_len(dir), world = CT_PHYSICS_MAX_POSITION;
    if (!(len > 0.0f && isfinite(len)) || !v3_within(o, 4.0f * world) || !(max_t >= 0.0f) ||
        physics__scene_refresh_grid(s))
        return false;
    max_t = f_min(max_t, 8.0f * world);
    queries__ray ray = {s, &s->bp, &s->bodies, s->grid_body, o, v3_scale(dir, 1.0f / len), mask};
    float t = INFINITY, t_fixed = INFINITY;
    uint32_t i = physics__broadphase_raycast(&s->bp, o, ray.d, max_t, queries__ray_hit, &ray, &t);
    i = i == UINT32_MAX ? i : s->grid_body[i];
    for (uint32_t k = 0; k < s->num_escaped; k++) {
        physics__v3 n;
        const uint32_t e = s->grid_body[s->escaped[k]];
        if (!(s->bodies.layer[e] & mask))
            continue;
        const float te = physics__ray_body(&s->bodies, e, o, ray.d, &n);
        if (te <= max_t && (i == UINT32_MAX || te < t))
            i = e, t = te;
    }
    ray.bp = &s->fixed;
    ray.body = s->fixed_body;
    const uint32_t f = physics__broadphase_raycast(&s->fixed, o, ray.d, f_min(max_t, t),
                                                   queries__ray_hit, &ray, &t_fixed);
    if (f != UINT32_MAX && (i == UINT32_MAX || t_fixed < t))
        i = s->fixed_body[f], t = t_fixed;
    if (i == UINT32_MAX)
        return false;
    physics__v3 n;
    physics__ray_body(&s->bodies, i, o, ray.d, &n);
    out->entity = s->bodies.entity[i].id;
    out->distance = t;
    v3_store(v3_add(o, v3_scale(ray.d, t)), out->point);
    v3_store(n, out->normal);
    return true;
}

/* ---- shape casts ------------------------------------------------------------------------------
 * Conservative advancement, as the continuous sweeps do (physics_ccd.c): the cast shape is posed
 * in the bodies' scratch slot (index n: past the last body, so no list, grid or map sees it) and
 * moved along the motion by the gap its manifold with each candidate reports, divided by how fast
 * the motion closes that gap, until the gap is under CAST_TARGET (a hit) or the motion is used up
 * or opens it (a miss). Candidates are the bodies whose boxes meet the box of the whole sweep. */
#define CAST_TARGET 1e-4f /* m: this close counts as touching */
#define CAST_MAX_ITERATIONS 64u

/* The least separation of the posed shape (slot i) from body j within margin, its axis (from the
 * shape to j) and the point of it; INFINITY when nothing is within margin. */
static float queries__cast_gap(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                               physics__v3 *normal, physics__v3 *point)
{
    physics__manifold_out m;
    physics__manifold(b, i, j, margin, false, &m);
    float least = INFINITY;
    for (uint32_t q = 0; q < m.count; q++)
        if (m.p[q].sep < least) {
            least = m.p[q].sep;
            *point = m.p[q].point;
        }
    *normal = m.normal;
    return least;
}

bool physics__scene_shape_cast(physics__scene *s, const physics__cast *shape, physics__v3 from,
                               physics__v3 motion, uint32_t mask, ct_physics_hit_t *out)
{
    physics__bodies *b = &s->bodies;
    const float length = v3_len(motion);
    if (!v3_within(from, 4.0f * CT_PHYSICS_MAX_POSITION) ||
        !(length <= 8.0f * CT_PHYSICS_MAX_POSITION) || physics__bodies_reserve(b, b->n + 1))
        return false;
    const uint32_t i = b->n;
    b->shape[i] = (uint8_t)shape->shape;
    b->kind[i] = CT_BODY_STATIC;
    b->radius[i] = shape->radius;
    b->half[i] = shape->shape == CT_BODY_SPHERE ? v3(shape->radius, shape->radius, shape->radius)
                 : shape->shape == CT_BODY_CAPSULE
                     ? v3(shape->radius, shape->half_height + shape->radius, shape->radius)
                     : shape->half;
    b->rotation[i] = shape->rotation;
    b->hull[i] = NULL;
    b->compound[i] = NULL;
    b->mesh[i] = NULL;
    b->position[i] = from;
    physics__bodies_extent(b, i);
    const physics__v3 e = b->extent[i], to = v3_add(from, motion);
    uint32_t n;
    const uint32_t *near = physics__scene_overlap_box(s, v3_sub(v3_min(from, to), e),
                                                      v3_add(v3_max(from, to), e), mask, &n);
    const float margin = length + v3_len(e) + 1.0f;
    float best = INFINITY;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t j = physics__bodies_find(b, (ct_entity_t){near[k]});
        if (j == UINT32_MAX)
            continue;
        /* Advance along the motion: f is the fraction gone. */
        float f = 0.0f;
        physics__v3 normal, point;
        bool hit = false;
        for (uint32_t it = 0; it < CAST_MAX_ITERATIONS; it++) {
            b->position[i] = v3_add(from, v3_scale(motion, f));
            const float gap = queries__cast_gap(b, i, j, margin, &normal, &point);
            if (gap <= CAST_TARGET) {
                hit = true;
                break;
            }
            const float rate = v3_dot(motion, normal);
            if (gap == INFINITY || !(rate > 1e-9f))
                break;
            f += gap / rate;
            if (!(f <= 1.0f) || f * length >= best)
                break;
        }
        const float distance = f * length;
        if (!hit || distance >= best)
            continue; /* near[] is sorted: a tie keeps the lower entity */
        best = distance;
        out->entity = near[k];
        out->distance = distance;
        v3_store(point, out->point);
        v3_store(v3_scale(normal, -1.0f), out->normal);
    }
    return best < INFINITY;
}

static int queries__cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Chains MurmurHash64A over the (entity, position, velocity) records of live entities in entity
 * order, so that neither the instance order nor dead entities awaiting collection show. */
static uint64_t queries__digest(ct_allocator_t *a, uint64_t h, uint32_t n,
                                const ct_entity_t *entity, const physics__v3 *position,
                                const physics__v3 *velocity, const physics__bodies *spin,
                                physics__alive_f alive)
{
    uint64_t *order = n ? ct_alloc(a, (size_t)n * sizeof *order) : NULL;
    if (n && !order)
        return 0;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!alive || alive(entity[i]))
            order[m++] = (uint64_t)entity[i].id << 32 | i;
    if (m > 1) /* qsort wants a valid pointer even for nothing */
        qsort(order, m, sizeof *order, queries__cmp_u64);
    for (uint32_t k = 0; k < m; k++) {
        const uint32_t i = (uint32_t)order[k];
        struct {
            uint32_t id;
            physics__v3 p, v;
        } rec = {entity[i].id, position[i], velocity[i]};
        h = ct_murmur64a(&rec, sizeof rec, h);
        /* Bodies that rotate add their rotation and spin (v1-v3 worlds keep their hashes). */
        if (spin && spin->rotates[i]) {
            struct {
                physics__quat q;
                physics__v3 w;
            } turn = {spin->rotation[i], spin->angular[i]};
            h = ct_murmur64a(&turn, sizeof turn, h);
        }
    }
    if (order)
        ct_free(a, order, (size_t)n * sizeof *order);
    return h;
}

uint64_t physics__state_hash(const physics__scene *s, const physics__points *p,
                             physics__alive_f alive)
{
    const physics__bodies *b = &s->bodies;
    uint64_t h = queries__digest(s->a, 0, b->n, b->entity, b->position, b->velocity, b, alive);
    if (p)
        h = queries__digest(s->a, h, p->n, p->entity, p->position, p->velocity, NULL, alive);
    return h;
}
