/* physics_queries.c: spatial queries over bodies (through the grid) and the state digest. */
#include "physics_internal.h"

#include "ct_hash.h"

#include <stdlib.h>

bool physics__sphere_overlaps_body(const physics__bodies *b, uint32_t i, physics__v3 c, float r)
{
    const physics__v3 d = v3_sub(c, b->position[i]), h = b->half[i];
    if (b->shape[i] == CT_BODY_SPHERE)
        return v3_dot(d, d) <= (r + h.x) * (r + h.x);
    const physics__v3 out = v3_sub(d, v3_max(v3_scale(h, -1.0f), v3_min(d, h)));
    return v3_dot(out, out) <= r * r;
}

/* Distance along the unit direction d from o to body i, or INFINITY. A ray starting inside a
 * shape hits it at 0, facing back along the ray. */
float physics__ray_body(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal)
{
    const physics__v3 p = b->position[i], h = b->half[i];
    const physics__v3 m = v3_sub(o, p);
    if (b->shape[i] == CT_BODY_SPHERE) {
        const float c = v3_dot(m, m) - h.x * h.x;
        if (c <= 0.0f) {
            *normal = v3_scale(d, -1.0f);
            return 0.0f;
        }
        const float bb = v3_dot(m, d);
        const float disc = bb * bb - c;
        if (bb > 0.0f || disc < 0.0f)
            return INFINITY;
        const float t = -bb - sqrtf(disc);
        *normal = v3_scale(v3_add(m, v3_scale(d, t)), 1.0f / h.x);
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

uint32_t physics__scene_overlap_sphere(physics__scene *s, physics__v3 c, float r, ct_entity_t *out,
                                       uint32_t max)
{
    physics__broadphase *bp = &s->bp;
    const physics__v3 ext = v3(r, r, r);
    if (physics__scene_refresh_grid(s) || physics__broadphase_overlap(bp, v3_sub(c, ext), v3_add(c, ext)))
        return 0;
    /* Keep the exact hits, as entity ids, in place of the candidates. */
    uint32_t n = 0;
    for (uint32_t k = 0; k < bp->num_found; k++)
        if (physics__sphere_overlaps_body(&s->bodies, bp->found[k], c, r))
            bp->found[n++] = s->bodies.entity[bp->found[k]].id;
    if (n > 1) /* qsort wants a valid pointer even for nothing */
        qsort(bp->found, n, sizeof *bp->found, physics__cmp_u32);
    for (uint32_t k = 0; k < n && k < max; k++)
        out[k].id = bp->found[k];
    return n;
}

typedef struct queries__ray {
    const physics__bodies *b;
    physics__v3 o, d;
} queries__ray;

static float queries__ray_hit(void *user, uint32_t i, float best)
{
    const queries__ray *r = user;
    physics__v3 n;
    const float t = physics__ray_body(r->b, i, r->o, r->d, &n);
    return t < best ? t : INFINITY;
}

bool physics__scene_raycast(physics__scene *s, physics__v3 o, physics__v3 dir, float max_t,
                            ct_physics_hit_t *out)
{
    /* Every body lies within +-CT_PHYSICS_MAX_POSITION: a ray from further out, or longer than
     * the world's diagonal, meets nothing more, so the walk always has a finite end. */
    const float len = v3_len(dir), world = CT_PHYSICS_MAX_POSITION;
    if (!(len > 0.0f && isfinite(len)) || !v3_within(o, 4.0f * world) || !(max_t >= 0.0f) ||
        physics__scene_refresh_grid(s))
        return false;
    max_t = f_min(max_t, 8.0f * world);
    queries__ray ray = {&s->bodies, o, v3_scale(dir, 1.0f / len)};
    float t;
    const uint32_t i = physics__broadphase_raycast(&s->bp, o, ray.d, max_t, queries__ray_hit, &ray, &t);
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

static int queries__cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Chains MurmurHash64A over (entity, position, velocity) records in entity order. */
static uint64_t queries__digest(ct_allocator_t *a, uint64_t h, uint32_t n, const ct_entity_t *entity,
                                const physics__v3 *position, const physics__v3 *velocity)
{
    uint64_t *order = n ? ct_alloc(a, (size_t)n * sizeof *order) : NULL;
    if (n && !order)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        order[i] = (uint64_t)entity[i].id << 32 | i;
    if (n > 1) /* qsort wants a valid pointer even for nothing */
        qsort(order, n, sizeof *order, queries__cmp_u64);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = (uint32_t)order[k];
        struct {
            uint32_t id;
            physics__v3 p, v;
        } rec = {entity[i].id, position[i], velocity[i]};
        h = ct_murmur64a(&rec, sizeof rec, h);
    }
    if (order)
        ct_free(a, order, (size_t)n * sizeof *order);
    return h;
}

uint64_t physics__state_hash(const physics__scene *s, const physics__points *p)
{
    const physics__bodies *b = &s->bodies;
    uint64_t h = queries__digest(s->a, 0, b->n, b->entity, b->position, b->velocity);
    if (p)
        h = queries__digest(s->a, h, p->n, p->entity, p->position, p->velocity);
    return h;
}
