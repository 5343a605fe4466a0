/* physics_solver.c: one step of the bodies, and the queries that share its grid.
 *
 * Bodies carry linear motion only (spheres and axis-aligned boxes never rotate), so a contact is
 * one point with one normal and the impulse maths has no inertia tensors. The step:
 *   1. forces and gravity into velocities;
 *   2. the spatial hash over boxes swept by this step's motion, then exact shape tests: contacts
 *      are kept a little before touching ("speculative"), so fast bodies do not tunnel and resting
 *      ones keep their contact;
 *   3. sequential impulses (friction, then the non-penetrating normal), warm started with the
 *      impulses a contact had in the previous step, which is what lets a stack rest;
 *   4. positions from velocities, then a few passes that push overlapping bodies apart by moving
 *      positions only (no velocity, so correcting penetration never adds energy);
 *   5. remember impulses per pair; write a collision event for pairs that just started pressing.
 * Contacts are sorted by their entity pair first: the result then depends on what the bodies are,
 * not on where they sit in the arrays or on the hash map's history. */
#include "physics_internal.h"

#include <string.h>

/* Contacts are kept when the gap is under this (m) plus what the bodies can close in a step. */
#define SOLVER_MARGIN 0.02f
/* Penetration left alone (m): correcting to exactly zero would make resting contacts flicker. */
#define SOLVER_SLOP 0.0002f
/* Fraction of the remaining penetration removed per position pass, and the most per pass (m). */
#define SOLVER_BAUMGARTE 0.2f
#define SOLVER_MAX_CORRECTION 0.2f
/* Below this closing speed (m/s) contacts do not bounce: resting bodies would never settle. */
#define SOLVER_BOUNCE_SPEED 1.0f

void physics__scene_init(physics__scene *s, ct_allocator_t *a)
{
    memset(s, 0, sizeof *s);
    s->a = s->bodies.a = s->bodies.map.a = s->bp.a = s->events.a = a;
    s->gravity = v3(0.0f, -9.81f, 0.0f);
    /* Twenty sweeps let a ten-box stack settle within a few millimetres from a cold start;
     * after that warm starting does most of the work. */
    s->velocity_iterations = 20;
    s->position_iterations = 4;
    s->bp_stale = true;
}

void physics__scene_free(physics__scene *s)
{
    physics__bodies_free(&s->bodies);
    physics__broadphase_free(&s->bp);
    physics__events_free(&s->events);
    if (s->contacts)
        ct_free(s->a, s->contacts, (size_t)s->cap_contacts * sizeof *s->contacts);
    if (s->cache)
        ct_free(s->a, s->cache, (size_t)s->cap_cache * sizeof *s->cache);
    if (s->order)
        ct_free(s->a, s->order, (size_t)s->cap_order * sizeof *s->order);
    s->contacts = NULL;
    s->cache = NULL;
    s->order = NULL;
    s->cap_contacts = s->cap_cache = s->cap_order = s->num_contacts = s->num_cache = 0;
}

/* Grows an array of `size`-byte elements to at least `need` (doubling, contents dropped: every
 * user refills it). */
static int solver__reserve(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need,
                           size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t fresh = *cap ? *cap : 256;
    while (fresh < need)
        fresh *= 2;
    void *p = ct_alloc(a, (size_t)fresh * size);
    if (!p)
        return CT_ERR_NOMEM;
    if (*array)
        ct_free(a, *array, (size_t)*cap * size);
    *array = p;
    *cap = fresh;
    return 0;
}

/* Fills the broadphase boxes. With dt > 0 each moving box covers its whole motion this step
 * plus the margin; with dt == 0 the boxes are the shapes' exact bounds (for queries). */
static int solver__fill_grid(physics__scene *s, float dt)
{
    const physics__bodies *b = &s->bodies;
    physics__broadphase *bp = &s->bp;
    if (physics__broadphase_resize(bp, b->n))
        return CT_ERR_NOMEM;
    bp->pool = s->pool;
    for (uint32_t i = 0; i < b->n; i++) {
        const physics__v3 p = b->position[i], h = b->half[i];
        physics__v3 lo = v3_sub(p, h), hi = v3_add(p, h);
        if (dt > 0.0f && b->kind[i] != CT_BODY_STATIC) {
            const physics__v3 m = v3(SOLVER_MARGIN, SOLVER_MARGIN, SOLVER_MARGIN);
            const physics__v3 move = v3_scale(b->velocity[i], dt);
            lo = v3_sub(v3_min(lo, v3_add(lo, move)), m);
            hi = v3_add(v3_max(hi, v3_add(hi, move)), m);
        }
        bp->lo[i] = lo;
        bp->hi[i] = hi;
        bp->moving[i] = b->kind[i] == CT_BODY_DYNAMIC;
    }
    return physics__broadphase_build(bp, 0.0f);
}

int physics__scene_refresh_grid(physics__scene *s)
{
    if (!s->bp_stale && s->bp.n == s->bodies.n)
        return 0;
    const int err = solver__fill_grid(s, 0.0f);
    s->bp_stale = err != 0;
    return err;
}

/* Sphere (center c, radius r) against a box: normal from the box towards the sphere. */
static void solver__sphere_box(physics__v3 c, float r, physics__v3 p, physics__v3 h, physics__v3 *n,
                               float *sep, physics__v3 *point)
{
    const physics__v3 local = v3_sub(c, p);
    const physics__v3 q = v3_max(v3_scale(h, -1.0f), v3_min(local, h));
    const physics__v3 diff = v3_sub(local, q);
    const float dist = v3_len(diff);
    if (dist > 1e-6f) {
        *n = v3_scale(diff, 1.0f / dist);
        *sep = dist - r;
        *point = v3_add(p, q);
        return;
    }
    /* The center is inside the box: leave through the nearest face. */
    int k = 0;
    float depth = h.x - fabsf(local.x);
    for (int j = 1; j < 3; j++)
        if (v3_get(h, j) - fabsf(v3_get(local, j)) < depth)
            k = j, depth = v3_get(h, j) - fabsf(v3_get(local, j));
    float e[3] = {0, 0, 0};
    e[k] = v3_get(local, k) < 0.0f ? -1.0f : 1.0f;
    *n = v3_load(e);
    *sep = -depth - r;
    *point = c;
}

/* Shape test of bodies a and b: normal from a to b, separation (negative: overlap), point. */
static void solver__shapes(const physics__bodies *b, uint32_t i, uint32_t j, physics__v3 *n,
                           float *sep, physics__v3 *point)
{
    const physics__v3 pa = b->position[i], pb = b->position[j];
    const physics__v3 ha = b->half[i], hb = b->half[j];
    if (b->shape[i] == CT_BODY_SPHERE && b->shape[j] == CT_BODY_SPHERE) {
        const physics__v3 d = v3_sub(pb, pa);
        const float dist = v3_len(d);
        *n = dist > 1e-9f ? v3_scale(d, 1.0f / dist) : v3(0, 1, 0);
        *sep = dist - ha.x - hb.x;
        *point = v3_add(pa, v3_scale(*n, ha.x + 0.5f * *sep));
    } else if (b->shape[i] == CT_BODY_SPHERE) {
        solver__sphere_box(pa, ha.x, pb, hb, n, sep, point);
        *n = v3_scale(*n, -1.0f);
    } else if (b->shape[j] == CT_BODY_SPHERE) {
        solver__sphere_box(pb, hb.x, pa, ha, n, sep, point);
    } else {
        /* Two boxes: the axis of least overlap (or largest gap) separates them. */
        const physics__v3 d = v3_sub(pb, pa);
        int k = 0;
        float best = -INFINITY;
        for (int j2 = 0; j2 < 3; j2++) {
            const float gap = fabsf(v3_get(d, j2)) - (v3_get(ha, j2) + v3_get(hb, j2));
            if (gap > best)
                best = gap, k = j2;
        }
        float e[3] = {0, 0, 0};
        e[k] = v3_get(d, k) < 0.0f ? -1.0f : 1.0f;
        *n = v3_load(e);
        *sep = best;
        const physics__v3 lo = v3_max(v3_sub(pa, ha), v3_sub(pb, hb));
        const physics__v3 hi = v3_min(v3_add(pa, ha), v3_add(pb, hb));
        *point = v3_scale(v3_add(lo, hi), 0.5f);
    }
}

/* LSD radix sort by key, 11 bits a pass, from p through tmp; returns whichever holds the result.
 * A pass where every key has the same digit is skipped: entity ids are small, so most of the
 * high passes are. Far cheaper than qsort's callback per comparison on ten thousand pairs. */
static physics__keyed_pair *solver__sort_pairs(physics__keyed_pair *p, physics__keyed_pair *tmp,
                                              uint32_t n)
{
    for (uint32_t shift = 0; shift < 64 && n > 1; shift += 11) {
        uint32_t count[2048] = {0};
        for (uint32_t i = 0; i < n; i++)
            count[(p[i].key >> shift) & 2047]++;
        if (count[(p[0].key >> shift) & 2047] == n)
            continue;
        for (uint32_t d = 0, sum = 0; d < 2048; d++) {
            const uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[count[(p[i].key >> shift) & 2047]++] = p[i];
        physics__keyed_pair *t = p;
        p = tmp;
        tmp = t;
    }
    return p;
}

/* Finds the contacts of this step's pairs (step 2 above). */
static int solver__collide(physics__scene *s, float dt)
{
    const physics__bodies *b = &s->bodies;
    physics__broadphase *bp = &s->bp;
    if (solver__fill_grid(s, dt) || physics__broadphase_pairs(bp))
        return CT_ERR_NOMEM;
    if (solver__reserve(s->a, (void **)&s->contacts, &s->cap_contacts, bp->num_pairs,
                        sizeof *s->contacts) ||
        solver__reserve(s->a, (void **)&s->order, &s->cap_order, 2 * bp->num_pairs,
                        sizeof *s->order))
        return CT_ERR_NOMEM;
    /* The pairs in entity-pair order first, so the contacts come out sorted. */
    uint32_t m = 0;
    for (uint32_t k = 0; k < bp->num_pairs; k++) {
        uint32_t i = bp->pairs[k].a, j = bp->pairs[k].b;
        if (b->inv_mass[i] == 0.0f && b->inv_mass[j] == 0.0f)
            continue;
        if (b->entity[i].id > b->entity[j].id) {
            const uint32_t t = i;
            i = j;
            j = t;
        }
        const uint64_t key = (uint64_t)b->entity[i].id << 32 | b->entity[j].id;
        s->order[m++] = (physics__keyed_pair){key, i, j};
    }
    /* (The arrays may not exist yet when there are no pairs.) */
    const physics__keyed_pair *order =
        m ? solver__sort_pairs(s->order, s->order + bp->num_pairs, m) : NULL;
    uint32_t n = 0;
    for (uint32_t k = 0; k < m; k++) {
        const uint32_t i = order[k].a, j = order[k].b;
        physics__contact *c = &s->contacts[n];
        float sep;
        solver__shapes(b, i, j, &c->n, &sep, &c->point);
        const float closing = v3_len(v3_sub(b->velocity[j], b->velocity[i])) * dt;
        if (!(sep < SOLVER_MARGIN + closing))
            continue;
        c->a = i;
        c->b = j;
        c->key = order[k].key;
        c->sep_base = sep - v3_dot(c->n, v3_sub(b->position[j], b->position[i]));
        /* Either axis works for the tangent seed as long as it is not parallel to n. */
        const physics__v3 seed = fabsf(c->n.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
        c->t1 = v3_cross(c->n, seed);
        c->t1 = v3_scale(c->t1, 1.0f / v3_len(c->t1));
        c->t2 = v3_cross(c->n, c->t1);
        /* Restitution and approach are decided here, from velocities before any impulse. */
        const float vn = v3_dot(v3_sub(b->velocity[j], b->velocity[i]), c->n);
        const float e = f_max(b->restitution[i], b->restitution[j]);
        c->target = sep > 0.0f ? -sep / dt : 0.0f;
        if (e > 0.0f && vn < -SOLVER_BOUNCE_SPEED && sep + vn * dt < 0.0f)
            c->target = -e * vn;
        c->speed = -vn;
        c->mass_n = 1.0f / (b->inv_mass[i] + b->inv_mass[j]);
        c->friction = sqrtf(b->friction[i] * b->friction[j]);
        n++;
    }
    s->num_contacts = n;
    return 0;
}

static inline void solver__apply(physics__bodies *b, const physics__contact *c, physics__v3 impulse)
{
    b->velocity[c->a] = v3_sub(b->velocity[c->a], v3_scale(impulse, b->inv_mass[c->a]));
    b->velocity[c->b] = v3_add(b->velocity[c->b], v3_scale(impulse, b->inv_mass[c->b]));
}

/* Sequential impulses (step 3). */
static void solver__velocities(physics__scene *s)
{
    physics__bodies *b = &s->bodies;
    /* Contacts and cache are both sorted by key: one merge walk finds every contact's past. */
    uint32_t at = 0;
    for (uint32_t k = 0; k < s->num_contacts; k++) {
        physics__contact *c = &s->contacts[k];
        while (at < s->num_cache && s->cache[at].key < c->key)
            at++;
        const physics__cached *old =
            at < s->num_cache && s->cache[at].key == c->key ? &s->cache[at] : NULL;
        c->fresh = !old || old->jn == 0.0f;
        c->jn = c->jt1 = c->jt2 = 0.0f;
        /* A bounce starts from nothing: last step's push would only damp it. */
        if (old && c->target <= 0.0f) {
            c->jn = old->jn;
            c->jt1 = old->jt1;
            c->jt2 = old->jt2;
            solver__apply(b, c, v3_add(v3_scale(c->n, c->jn),
                                       v3_add(v3_scale(c->t1, c->jt1), v3_scale(c->t2, c->jt2))));
        }
    }
    for (uint32_t it = 0; it < s->velocity_iterations; it++) {
        for (uint32_t k = 0; k < s->num_contacts; k++) {
            physics__contact *c = &s->contacts[k];
            /* Friction first, bounded by the normal impulse so far (a box of friction). */
            const float limit = c->friction * c->jn;
            physics__v3 dv = v3_sub(b->velocity[c->b], b->velocity[c->a]);
            float j1 = f_min(f_max(c->jt1 - c->mass_n * v3_dot(dv, c->t1), -limit), limit);
            float j2 = f_min(f_max(c->jt2 - c->mass_n * v3_dot(dv, c->t2), -limit), limit);
            solver__apply(b, c, v3_add(v3_scale(c->t1, j1 - c->jt1), v3_scale(c->t2, j2 - c->jt2)));
            c->jt1 = j1;
            c->jt2 = j2;

            dv = v3_sub(b->velocity[c->b], b->velocity[c->a]);
            const float jn = f_max(c->jn + c->mass_n * (c->target - v3_dot(dv, c->n)), 0.0f);
            solver__apply(b, c, v3_scale(c->n, jn - c->jn));
            c->jn = jn;
        }
    }
}

/* Moves overlapping bodies apart by position only (step 4). */
static void solver__positions(physics__scene *s)
{
    physics__bodies *b = &s->bodies;
    for (uint32_t it = 0; it < s->position_iterations; it++) {
        for (uint32_t k = 0; k < s->num_contacts; k++) {
            const physics__contact *c = &s->contacts[k];
            const float sep = c->sep_base + v3_dot(c->n, v3_sub(b->position[c->b], b->position[c->a]));
            const float C = f_max(SOLVER_BAUMGARTE * (sep + SOLVER_SLOP), -SOLVER_MAX_CORRECTION);
            if (C >= 0.0f)
                continue;
            const physics__v3 push = v3_scale(c->n, -C * c->mass_n);
            b->position[c->a] = v3_sub(b->position[c->a], v3_scale(push, b->inv_mass[c->a]));
            b->position[c->b] = v3_add(b->position[c->b], v3_scale(push, b->inv_mass[c->b]));
        }
    }
}

/* Remembers impulses and reports new collisions (step 5). */
static int solver__remember(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    for (uint32_t k = 0; k < s->num_contacts; k++) {
        const physics__contact *c = &s->contacts[k];
        if (!c->fresh || c->jn <= 0.0f)
            continue;
        ct_physics_collision_event_t ev = {
            .a = b->entity[c->a].id, .b = b->entity[c->b].id, .impulse = c->jn, .speed = c->speed};
        v3_store(c->point, ev.point);
        v3_store(c->n, ev.normal);
        if (physics__events_write(&s->events, CT_PHYSICS_EVENT_COLLISION, &ev, sizeof ev))
            return CT_ERR_NOMEM;
    }
    if (solver__reserve(s->a, (void **)&s->cache, &s->cap_cache, s->num_contacts, sizeof *s->cache))
        return CT_ERR_NOMEM;
    for (uint32_t k = 0; k < s->num_contacts; k++) {
        const physics__contact *c = &s->contacts[k];
        s->cache[k] = (physics__cached){c->key, c->jn, c->jt1, c->jt2};
    }
    s->num_cache = s->num_contacts; /* in key order, as the contacts are */
    return 0;
}

int physics__scene_step(physics__scene *s, float dt)
{
    physics__bodies *b = &s->bodies;
    s->events.size = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->kind[i] == CT_BODY_DYNAMIC)
            b->velocity[i] = v3_add(b->velocity[i],
                                    v3_scale(v3_add(s->gravity, v3_scale(b->force[i], b->inv_mass[i])), dt));
        b->force[i] = v3(0, 0, 0);
    }
    s->bp_stale = true;
    if (solver__collide(s, dt))
        return CT_ERR_NOMEM;
    solver__velocities(s);
    for (uint32_t i = 0; i < b->n; i++)
        if (b->kind[i] != CT_BODY_STATIC)
            b->position[i] = v3_add(b->position[i], v3_scale(b->velocity[i], dt));
    solver__positions(s);
    return solver__remember(s);
}
