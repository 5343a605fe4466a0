/* physics_solver.c: one step of the bodies, and the queries that share its grid.
 *
 * Bodies carry linear motion only (spheres and axis-aligned boxes never rotate), so a contact is
 * one point with one normal and the impulse maths has no inertia tensors. The step:
 *   1. forces and gravity into velocities;
 *   2. the spatial hash over boxes swept by this step's motion, then exact shape tests: contacts
 *      are kept a little before touching ("speculative"), so fast bodies do not tunnel and resting
 *      ones keep their contact;
 *   3. sequential impulses (friction, then the non-penetrating normal), warm started with the
 *      impulses a contact had in the previous step, which is what lets a stack rest. They run
 *      over rows in colour order (physics__rows) on velocities gathered into a compact array;
 *   4. positions from velocities, then a few passes that push overlapping bodies apart by moving
 *      positions only (no velocity, so correcting penetration never adds energy);
 *   5. remember impulses per pair; write a collision event for pairs that just started pressing.
 * Contacts are sorted by their entity pair first: the result then depends on what the bodies are,
 * not on where they sit in the arrays or on the hash map's history. */
#include "physics_internal.h"

#include <stddef.h>
#include <string.h>

/* Contacts are kept when the gap is under this (m) plus what the bodies can close in a step. */
#define SOLVER_MARGIN 0.02f
/* Penetration left alone (m): correcting to exactly zero would make resting contacts flicker. */
#define SOLVER_SLOP 0.0002f
/* Fraction of the remaining penetration removed per position pass, and the most per pass (m). */
#define SOLVER_BAUMGARTE 0.2f
#define SOLVER_MAX_CORRECTION 0.2f
/* Candidate pairs a step may collide: this many, or 64 per body if more. Past that (bodies piled
 * into one spot) the rest are dropped and the owner warns. */
#define SOLVER_MIN_PAIR_LIMIT 65536u
#define SOLVER_PAIRS_PER_BODY 64u
/* Below this closing speed (m/s) contacts do not bounce: resting bodies would never settle. */
#define SOLVER_BOUNCE_SPEED 1.0f
/* Shapes this close (m) at the end of a step touch: collision events, and bounces, need it. */
#define SOLVER_TOUCH 0.002f
/* Bodies, or boxes, are cut into jobs of this many for the pool. */
#define SOLVER_SLICE_BOXES 1024u
/* Colours of the solver's rows (see physics__rows); a body's colours are bits of a uint64_t. */
#define SOLVER_COLORS 63u
/* Fewer rows than this are solved in entity-pair order, more in colours (see solver__prepare). */
#define SOLVER_COLOR_MIN_ROWS 2048u

#define CONTACT_FIELD(name) {offsetof(physics__contacts, name), sizeof(*((physics__contacts *)0)->name)}
static const physics__soa_field solver__contact_fields[] = {
    CONTACT_FIELD(key),    CONTACT_FIELD(a),      CONTACT_FIELD(b),        CONTACT_FIELD(normal),
    CONTACT_FIELD(point),  CONTACT_FIELD(sep_base), CONTACT_FIELD(target), CONTACT_FIELD(speed),
    CONTACT_FIELD(approach), CONTACT_FIELD(cached), CONTACT_FIELD(slot_a), CONTACT_FIELD(slot_b),   CONTACT_FIELD(row),
};
#define ROW_FIELD(name) {offsetof(physics__rows, name), sizeof(*((physics__rows *)0)->name)}
static const physics__soa_field solver__row_fields[] = {
    ROW_FIELD(slot_a),     ROW_FIELD(slot_b),   ROW_FIELD(normal),   ROW_FIELD(t1),
    ROW_FIELD(t2),         ROW_FIELD(inv_mass_a), ROW_FIELD(inv_mass_b), ROW_FIELD(mass_n),
    ROW_FIELD(target),     ROW_FIELD(friction), ROW_FIELD(sep_base), ROW_FIELD(jn),
    ROW_FIELD(jt1),        ROW_FIELD(jt2),      ROW_FIELD(color_start),
};
#define GATHERED_FIELD(name) {offsetof(physics__gathered, name), sizeof(*((physics__gathered *)0)->name)}
static const physics__soa_field solver__gathered_fields[] = {
    GATHERED_FIELD(slot),     GATHERED_FIELD(body),     GATHERED_FIELD(colors),
    GATHERED_FIELD(velocity), GATHERED_FIELD(position),
};
#define NARROW_FIELD(name) {offsetof(physics__narrow, name), sizeof(*((physics__narrow *)0)->name)}
static const physics__soa_field solver__narrow_fields[] = {
    NARROW_FIELD(normal), NARROW_FIELD(point), NARROW_FIELD(sep), NARROW_FIELD(flags),
};
#define SOLVER_NUM_FIELDS(f) ((uint32_t)(sizeof f / sizeof f[0]))

void physics__scene_init(physics__scene *s, ct_allocator_t *a)
{
    memset(s, 0, sizeof *s);
    s->a = s->bodies.a = s->bodies.map.a = s->bp.a = s->fixed.a = s->events.a = a;
    s->gravity = v3(0.0f, -9.81f, 0.0f);
    /* Twenty sweeps let a ten-box stack settle within a few millimetres from a cold start;
     * after that warm starting does most of the work. */
    s->velocity_iterations = 20;
    s->position_iterations = 4;
    s->bp_stale = s->fixed_stale = true;
    s->sleeping = true;
    s->max_pairs = SOLVER_MIN_PAIR_LIMIT;
}

void physics__scene_free(physics__scene *s)
{
    physics__bodies_free(&s->bodies);
    physics__broadphase_free(&s->bp);
    physics__broadphase_free(&s->fixed);
    physics__events_free(&s->events);
    struct {
        void **p;
        uint32_t *cap;
        size_t size;
    } const arrays[] = {
        {(void **)&s->grid_body, &s->cap_grid_body, sizeof *s->grid_body},
        {(void **)&s->fixed_body, &s->cap_fixed_body, sizeof *s->fixed_body},
        {(void **)&s->pairs, &s->cap_pairs, sizeof *s->pairs},
        {(void **)&s->fixed_pairs, &s->cap_fixed_pairs, sizeof *s->fixed_pairs},
        {(void **)&s->fixed_count, &s->cap_fixed_count, sizeof *s->fixed_count},
        {(void **)&s->fill_first, &s->cap_fill_first, sizeof *s->fill_first},
        {(void **)&s->query, &s->cap_query, sizeof *s->query},
        {(void **)&s->escaped, &s->cap_escaped, sizeof *s->escaped},
        {(void **)&s->islands, &s->cap_islands, sizeof *s->islands},
        {(void **)&s->island_rest, &s->cap_island_rest, sizeof *s->island_rest},
        {(void **)&s->next_cache, &s->cap_next_cache, sizeof *s->next_cache},
    };
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        if (*arrays[k].p)
            ct_free(s->a, *arrays[k].p, (size_t)*arrays[k].cap * arrays[k].size);
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        *arrays[k].p = NULL;
        *arrays[k].cap = 0;
    }
    physics__soa_free(s->a, &s->narrow.buffer, solver__narrow_fields,
                      SOLVER_NUM_FIELDS(solver__narrow_fields), s->narrow.cap);
    if (s->narrow.kept)
        ct_free(s->a, s->narrow.kept, (size_t)s->narrow.cap_kept * sizeof *s->narrow.kept);
    s->narrow.kept = NULL;
    s->narrow.cap = s->narrow.cap_kept = 0;
    physics__soa_free(s->a, &s->contacts.buffer, solver__contact_fields,
                      SOLVER_NUM_FIELDS(solver__contact_fields), s->contacts.cap);
    physics__soa_free(s->a, &s->rows.buffer, solver__row_fields,
                      SOLVER_NUM_FIELDS(solver__row_fields), s->rows.cap);
    physics__soa_free(s->a, &s->gathered.buffer, solver__gathered_fields,
                      SOLVER_NUM_FIELDS(solver__gathered_fields), s->gathered.cap);
    s->contacts.n = s->contacts.cap = s->rows.cap = s->gathered.n = s->gathered.cap = 0;
    if (s->cache)
        ct_free(s->a, s->cache, (size_t)s->cap_cache * sizeof *s->cache);
    if (s->order)
        ct_free(s->a, s->order, (size_t)s->cap_order * sizeof *s->order);
    s->cache = NULL;
    s->order = NULL;
    s->cap_cache = s->cap_order = s->num_cache = 0;
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

/* As solver__reserve, keeping the contents. */
static int solver__reserve_keep(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t fresh = *cap ? *cap : 256;
    while (fresh < need)
        fresh *= 2;
    void *p = ct_realloc(a, *array, (size_t)*cap * size, (size_t)fresh * size);
    if (!p)
        return CT_ERR_NOMEM;
    *array = p;
    *cap = fresh;
    return 0;
}

/* The same for structure-of-arrays buffers (physics__soa_grow), whose capacity doubles alike. */
static int solver__reserve_soa(ct_allocator_t *a, void *owner, void **buffer,
                               const physics__soa_field *f, uint32_t num_fields, uint32_t *cap,
                               uint32_t need)
{
    if (need <= *cap)
        return 0;
    uint32_t fresh = *cap ? *cap : 256;
    while (fresh < need)
        fresh *= 2;
    if (physics__soa_grow(a, owner, buffer, f, num_fields, 0, *cap, fresh))
        return CT_ERR_NOMEM;
    *cap = fresh;
    return 0;
}

/* Whether body i sits in the fixed grid. */
static inline bool solver__fixed(const physics__bodies *b, uint32_t i)
{
    return b->kind[i] == CT_BODY_STATIC || b->asleep[i];
}

/* The inverse mass the solver uses: a sleeping body does not move until it wakes. */
static inline float solver__inv_mass(const physics__bodies *b, uint32_t i)
{
    return b->asleep[i] ? 0.0f : b->inv_mass[i];
}

typedef struct solver__fill_job {
    physics__scene *s;
    physics__broadphase *bp;
    uint32_t *body;
    bool fixed;
    float dt;
} solver__fill_job;

/* A job of solver__fill: the boxes of slices [begin, end) of SOLVER_SLICE_BOXES bodies, each
 * slice from its first box (s->fill_first) on. */
static void solver__fill_range(void *user, uint32_t begin, uint32_t end)
{
    const solver__fill_job *job = user;
    const physics__bodies *b = &job->s->bodies;
    physics__broadphase *bp = job->bp;
    const float dt = job->dt;
    const uint32_t last = end * SOLVER_SLICE_BOXES < b->n ? end * SOLVER_SLICE_BOXES : b->n;
    uint32_t n = job->s->fill_first[begin];
    for (uint32_t i = begin * SOLVER_SLICE_BOXES; i < last; i++) {
        if (solver__fixed(b, i) != job->fixed)
            continue;
        const physics__v3 p = b->position[i], h = b->half[i];
        physics__v3 lo = v3_sub(p, h), hi = v3_add(p, h);
        if (dt > 0.0f) {
            const physics__v3 m = v3(SOLVER_MARGIN, SOLVER_MARGIN, SOLVER_MARGIN);
            const physics__v3 move = v3_scale(b->velocity[i], dt);
            lo = v3_sub(v3_min(lo, v3_add(lo, move)), m);
            hi = v3_add(v3_max(hi, v3_add(hi, move)), m);
        }
        job->body[n] = i;
        bp->lo[n] = lo;
        bp->hi[n] = hi;
        bp->moving[n] = b->kind[i] == CT_BODY_DYNAMIC && !job->fixed;
        n++;
    }
}

/* Fills a grid with the bodies that belong to it (fixed ones, or the others) and builds it. With
 * dt > 0 each moving box covers its whole motion this step plus the margin; with dt == 0 the
 * boxes are the shapes' exact bounds. The boxes are counted per slice of bodies here, then
 * written on any threads. */
static int solver__fill(physics__scene *s, physics__broadphase *bp, uint32_t **body, uint32_t *cap,
                        bool fixed, float dt)
{
    const physics__bodies *b = &s->bodies;
    const uint32_t slices = (b->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES;
    if (physics__broadphase_resize(bp, b->n) ||
        solver__reserve(s->a, (void **)body, cap, b->n, sizeof **body) ||
        solver__reserve(s->a, (void **)&s->fill_first, &s->cap_fill_first, slices + 1, sizeof *s->fill_first))
        return CT_ERR_NOMEM;
    bp->pool = s->pool;
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (i % SOLVER_SLICE_BOXES == 0)
            s->fill_first[i / SOLVER_SLICE_BOXES] = n;
        n += solver__fixed(b, i) == fixed;
    }
    s->fill_first[slices] = n;
    solver__fill_job job = {s, bp, *body, fixed, dt};
    physics__pool_run(s->pool, slices, solver__fill_range, &job);
    bp->n = n;
    return physics__broadphase_build(bp, 0.0f);
}

static int solver__fill_fixed(physics__scene *s)
{
    if (!s->fixed_stale)
        return 0;
    const int err = solver__fill(s, &s->fixed, &s->fixed_body, &s->cap_fixed_body, true, 0.0f);
    s->fixed_stale = err != 0;
    return err;
}

int physics__scene_refresh_grid(physics__scene *s)
{
    if (solver__fill_fixed(s))
        return CT_ERR_NOMEM;
    if (!s->bp_stale)
        return 0;
    const int err = solver__fill(s, &s->bp, &s->grid_body, &s->cap_grid_body, false, 0.0f);
    s->bp_stale = err != 0;
    s->num_escaped = 0;
    return err;
}

/* After a step the grid of moving bodies still serves queries: a query finds candidates by the
 * boxes of the bodies' paths and tests the shapes where they are now. The few bodies that ended
 * outside their box (a collision turned them) are listed and tested one by one; when they are
 * many, or bodies fell asleep, the grid is rebuilt at the next query instead. */
static int solver__check_grid(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    const physics__broadphase *bp = &s->bp;
    s->num_escaped = 0;
    if (s->bp_stale)
        return 0;
    if (solver__reserve(s->a, (void **)&s->escaped, &s->cap_escaped, bp->n / 8 + 1, sizeof *s->escaped))
        return CT_ERR_NOMEM;
    for (uint32_t k = 0; k < bp->n; k++) {
        const uint32_t i = s->grid_body[k];
        const physics__v3 lo = v3_sub(b->position[i], b->half[i]), hi = v3_add(b->position[i], b->half[i]);
        if (lo.x >= bp->lo[k].x && lo.y >= bp->lo[k].y && lo.z >= bp->lo[k].z &&
            hi.x <= bp->hi[k].x && hi.y <= bp->hi[k].y && hi.z <= bp->hi[k].z)
            continue;
        if (s->num_escaped == bp->n / 8 + 1) {
            s->bp_stale = true;
            s->num_escaped = 0;
            return 0;
        }
        s->escaped[s->num_escaped++] = k;
    }
    return 0;
}

void physics__scene_touched(physics__scene *s, uint32_t i)
{
    s->bp_stale = true;
    if (i < s->bodies.n && solver__fixed(&s->bodies, i))
        s->fixed_stale = true;
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

/* Whether b's motion relative to a over the step, d, brings the shapes together: b's centre
 * against a grown by b (a rounded sum for two spheres, a box otherwise, which for a sphere and a
 * box is a little generous at the corners). For two boxes *axis gets the axis through which the
 * path enters, the one that closes (-1 when it starts inside). */
static bool solver__sweep(const physics__bodies *b, uint32_t i, uint32_t j, physics__v3 d, int *axis)
{
    const physics__v3 p = v3_sub(b->position[j], b->position[i]);
    *axis = -1;
    if (b->shape[i] == CT_BODY_SPHERE && b->shape[j] == CT_BODY_SPHERE) {
        const float r = b->half[i].x + b->half[j].x, dd = v3_dot(d, d);
        const float t = dd > 0.0f ? f_min(f_max(-v3_dot(p, d) / dd, 0.0f), 1.0f) : 0.0f;
        const physics__v3 q = v3_add(p, v3_scale(d, t));
        return v3_dot(q, q) <= r * r;
    }
    const physics__v3 h = v3_add(b->half[i], b->half[j]);
    float t0 = 0.0f, t1 = 1.0f;
    for (int k = 0; k < 3; k++) {
        const float pk = v3_get(p, k), dk = v3_get(d, k), hk = v3_get(h, k);
        if (dk == 0.0f) {
            if (pk < -hk || pk > hk)
                return false;
            continue;
        }
        float ta = (-hk - pk) / dk, tb = (hk - pk) / dk;
        if (ta > tb) {
            const float x = ta;
            ta = tb;
            tb = x;
        }
        if (ta > t0)
            t0 = ta, *axis = k;
        t1 = f_min(t1, tb);
        if (t0 > t1)
            return false;
    }
    return true;
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

/* Asks for body i's island to wake at the end of the step (all islands once the list is full). */
static void solver__want_awake(physics__scene *s, uint32_t i)
{
    if (s->num_wake < s->cap_islands)
        s->islands[s->num_wake++] = s->bodies.island[i];
    else
        s->num_wake = UINT32_MAX;
}

/* Moving boxes ask the fixed grid in jobs of SOLVER_SLICE_BOXES; each job has room for
 * SOLVER_FIXED_ROOM pairs a box (a box on a floor by a wall has two). */
#define SOLVER_FIXED_ROOM 4u

typedef struct solver__fixed_out {
    const physics__scene *s;
    physics__pair *out;
    uint32_t n, room;
    uint32_t i; /* the moving body asking */
} solver__fixed_out;

/* A fixed body the moving body o->i overlaps: a pair, unless a kinematic body meets a static
 * one. Non-zero when out of room. */
static int solver__fixed_found(void *user, uint32_t box)
{
    solver__fixed_out *o = user;
    const physics__bodies *b = &o->s->bodies;
    const uint32_t j = o->s->fixed_body[box];
    if (b->kind[o->i] != CT_BODY_DYNAMIC && !b->asleep[j])
        return 0;
    if (o->n == o->room)
        return 1;
    o->out[o->n++] = (physics__pair){o->i, j};
    return 0;
}

/* A job of physics__scene_candidates: the pairs of slices [begin, end) of moving boxes with the
 * fixed grid, each slice into its room; its count is UINT32_MAX when the room was too small. */
static void solver__fixed_range(void *user, uint32_t begin, uint32_t end)
{
    physics__scene *s = user;
    const physics__broadphase *bp = &s->bp;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_BOXES;
        const uint32_t last = first + SOLVER_SLICE_BOXES < bp->n ? first + SOLVER_SLICE_BOXES : bp->n;
        solver__fixed_out o = {s, s->fixed_pairs + (size_t)first * SOLVER_FIXED_ROOM, 0,
                               (last - first) * SOLVER_FIXED_ROOM, 0};
        for (uint32_t k = first; k < last; k++) {
            o.i = s->grid_body[k];
            if (physics__broadphase_visit(&s->fixed, bp->lo[k], bp->hi[k], solver__fixed_found, &o)) {
                o.n = UINT32_MAX;
                break;
            }
        }
        s->fixed_count[slice] = o.n;
    }
}

/* Finds the contacts of this step's pairs (step 2 above). */
/* The step's candidate pairs as body indices (step 2's first half): the moving grid's own, then
 * every moving box against the fixed grid. At most max_pairs, or SOLVER_PAIRS_PER_BODY per body;
 * the report says when the limit cut some off. */
int physics__scene_candidates(physics__scene *s, float dt)
{
    const physics__bodies *b = &s->bodies;
    physics__broadphase *bp = &s->bp, *fx = &s->fixed;
    const uint32_t limit = s->max_pairs > SOLVER_PAIRS_PER_BODY * b->n ? s->max_pairs
                                                                        : SOLVER_PAIRS_PER_BODY * b->n;
    bp->max_pairs = limit;
    if (solver__fill_fixed(s) ||
        solver__fill(s, bp, &s->grid_body, &s->cap_grid_body, false, dt) ||
        physics__broadphase_pairs(bp) ||
        solver__reserve(s->a, (void **)&s->pairs, &s->cap_pairs, bp->num_pairs + bp->n, sizeof *s->pairs))
        return CT_ERR_NOMEM;
    s->bp_stale = false;
    uint32_t n = 0;
    for (uint32_t k = 0; k < bp->num_pairs; k++)
        s->pairs[n++] = (physics__pair){s->grid_body[bp->pairs[k].a], s->grid_body[bp->pairs[k].b]};
    /* The fixed grid is asked on any threads, a slice of moving boxes at a time, each into its
     * own room; the slices join in order. A slice that ran out of room asks again here. */
    bool cut = bp->dropped;
    const uint32_t slices = (bp->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES;
    if (!fx->n || cut) {
        s->num_pairs = n;
        s->report.pair_limit = cut ? limit : 0;
        return 0;
    }
    if (solver__reserve(s->a, (void **)&s->fixed_pairs, &s->cap_fixed_pairs, bp->n * SOLVER_FIXED_ROOM,
                        sizeof *s->fixed_pairs) ||
        solver__reserve(s->a, (void **)&s->fixed_count, &s->cap_fixed_count, slices, sizeof *s->fixed_count))
        return CT_ERR_NOMEM;
    physics__pool_run(s->pool, slices, solver__fixed_range, s);
    for (uint32_t slice = 0; slice < slices && !cut; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_BOXES;
        const uint32_t last = first + SOLVER_SLICE_BOXES < bp->n ? first + SOLVER_SLICE_BOXES : bp->n;
        solver__fixed_out o = {s, s->fixed_pairs + (size_t)first * SOLVER_FIXED_ROOM, 0,
                               s->fixed_count[slice], 0};
        if (o.room == UINT32_MAX) {
            /* Out of room: this slice's pairs one box at a time, straight into s->pairs. */
            for (uint32_t k = first; k < last && !cut; k++) {
                if (physics__broadphase_overlap(fx, bp->lo[k], bp->hi[k]))
                    return CT_ERR_NOMEM;
                o.room = fx->num_found;
                if (solver__reserve_keep(s->a, (void **)&s->pairs, &s->cap_pairs, n + o.room, sizeof *s->pairs))
                    return CT_ERR_NOMEM;
                o.out = s->pairs + n;
                o.n = 0;
                o.i = s->grid_body[k];
                for (uint32_t f = 0; f < fx->num_found; f++)
                    solver__fixed_found(&o, fx->found[f]);
                cut = n + o.n > limit;
                n = cut ? limit : n + o.n;
            }
            continue;
        }
        if (solver__reserve_keep(s->a, (void **)&s->pairs, &s->cap_pairs, n + o.room, sizeof *s->pairs))
            return CT_ERR_NOMEM;
        cut = n + o.room > limit;
        const uint32_t take = cut ? limit - n : o.room;
        memcpy(s->pairs + n, o.out, (size_t)take * sizeof *s->pairs);
        n += take;
    }
    s->num_pairs = n;
    s->report.pair_limit = cut ? limit : 0;
    return 0;
}

/* The shape tests of the sorted pairs, and the contacts made of them, are cut into jobs of this
 * many pairs. */
#define SOLVER_SLICE_PAIRS 1024u
#define NARROW_KEEP 1u
#define NARROW_WAKE 2u

typedef struct solver__narrow_job {
    physics__scene *s;
    const physics__keyed_pair *order;
    uint32_t count;
    float dt;
} solver__narrow_job;

/* Shape tests of the sorted pairs in slices [begin, end), into the narrow phase's entries; each
 * slice counts the contacts it keeps. A contact is kept when the shapes overlap, when they are
 * within the margin and not rushing together (a resting contact keeps its warm start), or when
 * this step's motion brings them together. The last is tested on the path, not on a gap: a box
 * falling past another's corner is near it on one axis and closing on another, yet never touches.
 * Two boxes then push along the axis that closes. A body that runs into a sleeping island wakes it
 * for the next step; in this one the island holds still (a kinematic body only wakes it). */
static void solver__narrow_range(void *user, uint32_t begin, uint32_t end)
{
    const solver__narrow_job *job = user;
    const physics__bodies *b = &job->s->bodies;
    physics__narrow *nw = &job->s->narrow;
    const float dt = job->dt;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_PAIRS;
        const uint32_t last = first + SOLVER_SLICE_PAIRS < job->count ? first + SOLVER_SLICE_PAIRS : job->count;
        uint32_t kept = 0;
        for (uint32_t k = first; k < last; k++) {
            const uint32_t i = job->order[k].a, j = job->order[k].b;
            physics__v3 normal;
            float sep;
            solver__shapes(b, i, j, &normal, &sep, &nw->point[k]);
            const physics__v3 rel = v3_sub(b->velocity[j], b->velocity[i]);
            const float vn = v3_dot(rel, normal);
            bool keep = sep <= 0.0f || (sep <= SOLVER_MARGIN && -vn * dt <= SOLVER_MARGIN);
            int axis;
            if (!keep && sep < SOLVER_MARGIN + v3_len(rel) * dt && solver__sweep(b, i, j, v3_scale(rel, dt), &axis)) {
                keep = true;
                if (axis >= 0 && b->shape[i] == CT_BODY_BOX && b->shape[j] == CT_BODY_BOX) {
                    const physics__v3 d = v3_sub(b->position[j], b->position[i]);
                    float e[3] = {0, 0, 0};
                    e[axis] = v3_get(d, axis) < 0.0f ? -1.0f : 1.0f;
                    normal = v3_load(e);
                    sep = fabsf(v3_get(d, axis)) - v3_get(v3_add(b->half[i], b->half[j]), axis);
                }
            }
            uint8_t flags = keep ? NARROW_KEEP : 0;
            if (keep && (b->asleep[i] | b->asleep[j])) {
                const uint32_t mover = b->asleep[i] ? j : i;
                if (b->rest[mover] == 0.0f || b->kind[mover] == CT_BODY_KINEMATIC)
                    flags |= NARROW_WAKE;
                if (solver__inv_mass(b, mover) == 0.0f)
                    flags &= (uint8_t)~NARROW_KEEP;
            }
            nw->normal[k] = normal;
            nw->sep[k] = sep;
            nw->flags[k] = flags;
            kept += flags & NARROW_KEEP;
        }
        nw->kept[slice] = kept;
    }
}

/* The contacts of slices [begin, end) of sorted pairs, each slice from its first contact on. */
static void solver__contact_range(void *user, uint32_t begin, uint32_t end)
{
    const solver__narrow_job *job = user;
    const physics__scene *s = job->s;
    const physics__bodies *b = &s->bodies;
    const physics__narrow *nw = &s->narrow;
    const physics__contacts *c = &s->contacts;
    const float dt = job->dt;
    for (uint32_t slice = begin; slice < end; slice++) {
        const uint32_t first = slice * SOLVER_SLICE_PAIRS;
        const uint32_t last = first + SOLVER_SLICE_PAIRS < job->count ? first + SOLVER_SLICE_PAIRS : job->count;
        uint32_t n = nw->kept[slice];
        /* The pairs and the cache are both sorted by key: one merge walk from the slice's first. */
        uint32_t at = 0, hi = s->num_cache;
        while (at < hi) {
            const uint32_t mid = at + (hi - at) / 2;
            if (s->cache[mid].key < job->order[first].key)
                at = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t k = first; k < last; k++) {
            if (!(nw->flags[k] & NARROW_KEEP))
                continue;
            const uint32_t i = job->order[k].a, j = job->order[k].b;
            const physics__v3 normal = nw->normal[k];
            const float sep = nw->sep[k];
            const physics__v3 rel = v3_sub(b->velocity[j], b->velocity[i]);
            const float vn = v3_dot(rel, normal);
            c->a[n] = i;
            c->b[n] = j;
            c->key[n] = job->order[k].key;
            c->normal[n] = normal;
            c->point[n] = nw->point[k];
            c->sep_base[n] = sep - v3_dot(normal, v3_sub(b->position[j], b->position[i]));
            while (at < s->num_cache && s->cache[at].key < job->order[k].key)
                at++;
            const physics__cached *old =
                at < s->num_cache && s->cache[at].key == job->order[k].key ? &s->cache[at] : NULL;
            c->cached[n] = old ? at : UINT32_MAX;
            /* Restitution only where the shapes touch: a contact still apart stops the bodies at
             * the surface (speculatively) and remembers how fast they came; they bounce at the
             * next step, from the surface, with that speed. */
            const float e = f_max(b->restitution[i], b->restitution[j]);
            float target = sep > 0.0f ? -sep / dt : 0.0f;
            c->approach[n] = 0.0f;
            if (sep > SOLVER_TOUCH) {
                if (sep + vn * dt < 0.0f)
                    c->approach[n] = -vn;
            } else if (vn <= 0.0f) {
                const float speed = f_max(-vn, old ? old->approach : 0.0f);
                if (e > 0.0f && speed > SOLVER_BOUNCE_SPEED)
                    target = e * speed;
            }
            c->target[n] = target;
            c->speed[n] = f_max(-vn, old ? old->approach : 0.0f);
            n++;
        }
    }
}

/* Finds the contacts of this step's pairs (step 2 above). */
static int solver__collide(physics__scene *s, float dt)
{
    const physics__bodies *b = &s->bodies;
    physics__contacts *c = &s->contacts;
    physics__narrow *nw = &s->narrow;
    if (physics__scene_candidates(s, dt))
        return CT_ERR_NOMEM;
    const uint32_t num_pairs = s->num_pairs;
    const uint32_t slices = (num_pairs + SOLVER_SLICE_PAIRS - 1) / SOLVER_SLICE_PAIRS;
    if (solver__reserve_soa(s->a, c, &c->buffer, solver__contact_fields,
                            SOLVER_NUM_FIELDS(solver__contact_fields), &c->cap, num_pairs) ||
        solver__reserve_soa(s->a, nw, &nw->buffer, solver__narrow_fields,
                            SOLVER_NUM_FIELDS(solver__narrow_fields), &nw->cap, num_pairs) ||
        solver__reserve(s->a, (void **)&nw->kept, &nw->cap_kept, slices, sizeof *nw->kept) ||
        solver__reserve(s->a, (void **)&s->order, &s->cap_order, 2 * num_pairs, sizeof *s->order))
        return CT_ERR_NOMEM;
    /* The pairs in entity-pair order first, so the contacts come out sorted. Pairs whose layers
     * and masks do not meet are left out here. */
    uint32_t m = 0;
    for (uint32_t k = 0; k < num_pairs; k++) {
        uint32_t i = s->pairs[k].a, j = s->pairs[k].b;
        if ((b->inv_mass[i] == 0.0f && b->inv_mass[j] == 0.0f) ||
            !(b->layer[i] & b->mask[j]) || !(b->layer[j] & b->mask[i]))
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
        m ? solver__sort_pairs(s->order, s->order + num_pairs, m) : NULL;
    /* The shape tests on any threads; then, in order, the islands to wake and where each slice's
     * contacts begin; then the contacts, on any threads. */
    solver__narrow_job job = {s, order, m, dt};
    const uint32_t used = (m + SOLVER_SLICE_PAIRS - 1) / SOLVER_SLICE_PAIRS;
    physics__pool_run(s->pool, used, solver__narrow_range, &job);
    for (uint32_t k = 0; k < m; k++)
        if (nw->flags[k] & NARROW_WAKE)
            solver__want_awake(s, b->asleep[order[k].a] ? order[k].a : order[k].b);
    uint32_t n = 0;
    for (uint32_t slice = 0; slice < used; slice++) {
        const uint32_t kept = nw->kept[slice];
        nw->kept[slice] = n;
        n += kept;
    }
    physics__pool_run(s->pool, used, solver__contact_range, &job);
    c->n = n;
    return 0;
}

static inline bool solver__negative_zero(physics__v3 v)
{
    return (v.x == 0.0f && signbit(v.x)) | (v.y == 0.0f && signbit(v.y)) |
           (v.z == 0.0f && signbit(v.z));
}

/* The place of body i in the compact arrays for one contact, gathering its velocity. A body with
 * no inverse mass is not moved by impulses: v - impulse * 0 is v itself, bit for bit, unless a
 * component is -0 (which can turn +0; a position likewise). Each of its contacts then gets a copy
 * of its own, so that the contacts on a ground do not wait on one another through the ground's
 * velocity (nor use up its colours); every copy goes back holding the same bits. */
static inline uint32_t solver__slot(physics__gathered *g, const physics__bodies *b, uint32_t i)
{
    const bool fixed = solver__inv_mass(b, i) == 0.0f && !solver__negative_zero(b->velocity[i]) &&
                       !solver__negative_zero(b->position[i]);
    if (fixed || g->slot[i] == UINT32_MAX) {
        g->slot[i] = fixed ? g->slot[i] : g->n;
        g->body[g->n] = i;
        g->colors[g->n] = 0;
        g->velocity[g->n] = b->velocity[i];
        return g->n++;
    }
    return g->slot[i];
}

/* Fills the rows of the contacts in slices [begin, end) of SOLVER_SLICE_PAIRS, each contact
 * into its row (c->row), with last step's impulses where the warm start will apply them. */
static void solver__fill_rows(void *user, uint32_t begin, uint32_t end)
{
    const physics__scene *s = user;
    const physics__bodies *b = &s->bodies;
    const physics__contacts *c = &s->contacts;
    const physics__rows *r = &s->rows;
    const uint32_t last = end * SOLVER_SLICE_PAIRS < c->n ? end * SOLVER_SLICE_PAIRS : c->n;
    for (uint32_t k = begin * SOLVER_SLICE_PAIRS; k < last; k++) {
        const uint32_t i = c->a[k], j = c->b[k], q = c->row[k];
        const physics__v3 n = c->normal[k];
        r->slot_a[q] = c->slot_a[k];
        r->slot_b[q] = c->slot_b[k];
        r->normal[q] = n;
        /* Either axis works for the tangent seed as long as it is not parallel to n. */
        const physics__v3 seed = fabsf(n.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
        const physics__v3 t1 = v3_cross(n, seed);
        r->t1[q] = v3_scale(t1, 1.0f / v3_len(t1));
        r->t2[q] = v3_cross(n, r->t1[q]);
        r->inv_mass_a[q] = solver__inv_mass(b, i);
        r->inv_mass_b[q] = solver__inv_mass(b, j);
        r->mass_n[q] = 1.0f / (r->inv_mass_a[q] + r->inv_mass_b[q]);
        r->target[q] = c->target[k];
        r->friction[q] = sqrtf(b->friction[i] * b->friction[j]);
        r->sep_base[q] = c->sep_base[k];
        const physics__cached *old = c->cached[k] != UINT32_MAX ? &s->cache[c->cached[k]] : NULL;
        const bool warm = old && c->target[k] <= 0.0f;
        r->jn[q] = warm ? old->jn : 0.0f;
        r->jt1[q] = warm ? old->jt1 : 0.0f;
        r->jt2[q] = warm ? old->jt2 : 0.0f;
    }
}

/* Gathers the velocities of the bodies in contact, sorts the contacts into colours (see
 * physics__rows) and fills the rows, warm started with the impulses a contact had in the
 * previous step. Everything here walks the contacts in entity-pair order, the warm start too. */
static int solver__prepare(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    physics__contacts *c = &s->contacts;
    physics__rows *r = &s->rows;
    physics__gathered *g = &s->gathered;
    if (solver__reserve_soa(s->a, r, &r->buffer, solver__row_fields,
                            SOLVER_NUM_FIELDS(solver__row_fields), &r->cap, c->n) ||
        solver__reserve_soa(s->a, g, &g->buffer, solver__gathered_fields,
                            SOLVER_NUM_FIELDS(solver__gathered_fields), &g->cap, b->n + 2 * c->n))
        return CT_ERR_NOMEM;
    g->n = 0;
    if (b->n)
        memset(g->slot, 0xff, (size_t)b->n * sizeof *g->slot);
    /* Greedy colouring: each contact takes the lowest colour neither of its slots has yet; one
     * that finds none joins the overflow, the last colour, solved in order. Fewer than
     * SOLVER_COLOR_MIN_ROWS contacts are solved in entity-pair order itself, which converges in
     * fewer passes on stacks (ids usually go up a stack): "colours" are then waves, each contact
     * one after the latest of its slots (g->colors holding that number), which keeps that order.
     * Either way the choice depends on the contacts only, never on the threads. Colours keep
     * the rows of a bigger scene apart by body, the order that converged best on the pyramids. */
    const bool waves = c->n < SOLVER_COLOR_MIN_ROWS;
    uint32_t colors = 0;
    r->num_colors = 0;
    for (uint32_t k = 0; k < c->n; k++) {
        const uint32_t sa = c->slot_a[k] = solver__slot(g, b, c->a[k]);
        const uint32_t sb = c->slot_b[k] = solver__slot(g, b, c->b[k]);
        uint32_t color;
        if (waves) {
            color = (uint32_t)(g->colors[sa] > g->colors[sb] ? g->colors[sa] : g->colors[sb]);
            g->colors[sa] = g->colors[sb] = color + 1;
        } else {
            const uint64_t taken = g->colors[sa] | g->colors[sb];
            color = ~taken ? (uint32_t)__builtin_ctzll(~taken) : SOLVER_COLORS;
            if (color < SOLVER_COLORS) {
                g->colors[sa] |= 1ull << color;
                g->colors[sb] |= 1ull << color;
            }
        }
        c->row[k] = color + 1;
        colors = color + 1 > colors ? color + 1 : colors;
    }
    /* A counting sort by colour, stable: rows of one colour keep entity-pair order. */
    if (colors)
        memset(r->color_start, 0, (size_t)colors * sizeof *r->color_start);
    for (uint32_t k = 0; k < c->n; k++)
        r->color_start[c->row[k] - 1]++;
    for (uint32_t w = 0, sum = 0; w < colors; w++) {
        const uint32_t count = r->color_start[w];
        r->color_start[w] = sum;
        sum += count;
    }
    r->num_colors = colors;
    r->overflow = !waves && colors == SOLVER_COLORS + 1;
    for (uint32_t k = 0; k < c->n; k++)
        c->row[k] = r->color_start[c->row[k] - 1]++;
    physics__pool_run(s->pool, (c->n + SOLVER_SLICE_PAIRS - 1) / SOLVER_SLICE_PAIRS, solver__fill_rows, s);
    /* The warm start, in entity-pair order. A bounce starts from nothing: last step's push would
     * only damp it. */
    physics__v3 *v = g->velocity;
    for (uint32_t k = 0; k < c->n; k++) {
        if (c->cached[k] == UINT32_MAX || c->target[k] > 0.0f)
            continue;
        const uint32_t q = c->row[k];
        const physics__v3 impulse = v3_add(v3_scale(r->normal[q], r->jn[q]),
                                           v3_add(v3_scale(r->t1[q], r->jt1[q]), v3_scale(r->t2[q], r->jt2[q])));
        const uint32_t sa = c->slot_a[k], sb = c->slot_b[k];
        v[sa] = v3_sub(v[sa], v3_scale(impulse, r->inv_mass_a[q]));
        v[sb] = v3_add(v[sb], v3_scale(impulse, r->inv_mass_b[q]));
    }
    return 0;
}

/* Sequential impulses (step 3) over rows [begin, end), on the gathered velocities. Each row's
 * arithmetic is the one the bodies' own arrays would see, in the same order: a and b are
 * different slots, so both velocities stay in registers between the friction and the normal
 * impulse. */
static void solver__velocity_rows(physics__scene *s, uint32_t begin, uint32_t end, float out[2])
{
    physics__rows *r = &s->rows;
    physics__v3 *v = s->gathered.velocity;
    float change = 0.0f, largest = 0.0f;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t sa = r->slot_a[k], sb = r->slot_b[k];
        const physics__v3 nn = r->normal[k], t1 = r->t1[k], t2 = r->t2[k];
        const float ia = r->inv_mass_a[k], ib = r->inv_mass_b[k], mass = r->mass_n[k];
        const float jn = r->jn[k], jt1 = r->jt1[k], jt2 = r->jt2[k];
        physics__v3 va = v[sa], vb = v[sb];
        /* Friction first, within a cone: the tangent impulse is at most friction times the
         * normal impulse so far, in every direction. A row that has pushed nothing yet has no
         * friction to apply (nor any to take back): the common case of a speculative contact or
         * of neighbours side by side, skipped. */
        float j1 = 0.0f, j2 = 0.0f;
        if (jn != 0.0f || jt1 != 0.0f || jt2 != 0.0f) {
            const float limit = r->friction[k] * jn;
            const physics__v3 dv = v3_sub(vb, va);
            j1 = jt1 - mass * v3_dot(dv, t1);
            j2 = jt2 - mass * v3_dot(dv, t2);
            const float sq = j1 * j1 + j2 * j2;
            if (sq > limit * limit) {
                const float scale = sq > 0.0f ? limit / sqrtf(sq) : 0.0f;
                j1 *= scale;
                j2 *= scale;
            }
            const physics__v3 tangent = v3_add(v3_scale(t1, j1 - jt1), v3_scale(t2, j2 - jt2));
            va = v3_sub(va, v3_scale(tangent, ia));
            vb = v3_add(vb, v3_scale(tangent, ib));
        }

        const physics__v3 dv = v3_sub(vb, va);
        const float j = f_max(jn + mass * (r->target[k] - v3_dot(dv, nn)), 0.0f);
        const physics__v3 normal = v3_scale(nn, j - jn);
        v[sa] = v3_sub(va, v3_scale(normal, ia));
        v[sb] = v3_add(vb, v3_scale(normal, ib));
        change = f_max(change, fabsf(j - jn) + fabsf(j1 - jt1) + fabsf(j2 - jt2));
        largest = f_max(largest, j);
        r->jn[k] = j;
        r->jt1[k] = j1;
        r->jt2[k] = j2;
    }
    out[0] = f_max(out[0], change);
    out[1] = f_max(out[1], largest);
}

/* Moves overlapping bodies apart by position only (step 4), rows [begin, end), on the gathered
 * positions. */
static void solver__position_rows(physics__scene *s, uint32_t begin, uint32_t end, float out[2])
{
    const physics__rows *r = &s->rows;
    physics__v3 *p = s->gathered.position;
    float deepest = 0.0f;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t sa = r->slot_a[k], sb = r->slot_b[k];
        const physics__v3 nn = r->normal[k];
        const float sep = r->sep_base[k] + v3_dot(nn, v3_sub(p[sb], p[sa]));
        const float C = f_max(SOLVER_BAUMGARTE * (sep + SOLVER_SLOP), -SOLVER_MAX_CORRECTION);
        if (C >= 0.0f)
            continue;
        const physics__v3 push = v3_scale(nn, -C * r->mass_n[k]);
        p[sa] = v3_sub(p[sa], v3_scale(push, r->inv_mass_a[k]));
        p[sb] = v3_add(p[sb], v3_scale(push, r->inv_mass_b[k]));
        deepest = f_max(deepest, -C);
    }
    out[0] = f_max(out[0], deepest);
}

/* Velocity passes stop early once a pass changed no impulse by more than this fraction of the
 * largest, position passes once none moved a body by more than SOLVER_STILL (m): a warm-started
 * resting pile or a small pyramid converges in a few passes. */
#define SOLVER_CONVERGED 1e-4f
#define SOLVER_STILL 1e-6f

typedef void (*solver__rows_f)(physics__scene *s, uint32_t begin, uint32_t end, float out[2]);

static inline bool solver__converged(solver__rows_f fn, const float m[2])
{
    return fn == solver__velocity_rows ? m[0] <= SOLVER_CONVERGED * m[1] : m[0] <= SOLVER_STILL;
}

/* Up to `passes` passes of fn over all rows, on this thread. A team of two solving each colour
 * side by side was tried: on two cores it made every scene slower (pyramid_100 6.2 ms against
 * 4.7 ms, the 10k pile's threads_x 1.39 against 1.5), the bodies' cache lines moving between
 * the cores at every colour; the step's other loops use the pool instead. */
static void solver__passes(physics__scene *s, solver__rows_f fn, uint32_t passes)
{
    const uint32_t n = s->contacts.n;
    for (uint32_t it = 0; it < passes; it++) {
        float pass[2] = {0.0f, 0.0f};
        fn(s, 0, n, pass);
        if (solver__converged(fn, pass))
            break;
    }
}

/* Whether contact k's shapes touch, and press, at the end of the step. */
static inline bool solver__touching(const physics__scene *s, uint32_t k)
{
    const physics__contacts *c = &s->contacts;
    const physics__v3 *p = s->bodies.position;
    const float sep = c->sep_base[k] + v3_dot(c->normal[k], v3_sub(p[c->b[k]], p[c->a[k]]));
    return sep <= SOLVER_TOUCH && s->rows.jn[c->row[k]] > 0.0f;
}

static int solver__ended(physics__scene *s, uint64_t key)
{
    const ct_physics_contact_ended_event_t ev = {(uint32_t)(key >> 32), (uint32_t)key};
    return physics__events_write(&s->events, CT_PHYSICS_EVENT_CONTACT_ENDED, &ev, sizeof ev);
}

/* Whether an old contact of two bodies that were asleep (or one static) still is one: both are
 * there and neither woke. Asked only after something woke or went. */
static bool solver__still_asleep(const physics__scene *s, uint64_t key)
{
    const physics__bodies *b = &s->bodies;
    const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)(key >> 32)});
    const uint32_t j = physics__bodies_find(b, (ct_entity_t){(uint32_t)key});
    return i != UINT32_MAX && j != UINT32_MAX && solver__fixed(b, i) && solver__fixed(b, j);
}

/* Remembers impulses and reports contacts that began and ended touching (step 5). The new cache
 * merges, in key order, this step's contacts with the old contacts of sleeping islands, which
 * are carried over untouched (no event: sleeping is not parting). */
static int solver__remember(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    const physics__contacts *c = &s->contacts;
    const physics__rows *r = &s->rows;
    if (solver__reserve(s->a, (void **)&s->next_cache, &s->cap_next_cache, c->n + s->num_cache,
                        sizeof *s->next_cache))
        return CT_ERR_NOMEM;
    physics__cached *next = s->next_cache;
    uint32_t at = 0, n = 0;
    for (uint32_t k = 0; k <= c->n; k++) {
        /* The old contacts before this one that this step did not find. */
        for (; at < s->num_cache && (k == c->n || s->cache[at].key < c->key[k]); at++) {
            const physics__cached *old = &s->cache[at];
            if (old->asleep && (!s->woke || solver__still_asleep(s, old->key)))
                next[n++] = *old;
            else if (old->touching && solver__ended(s, old->key))
                return CT_ERR_NOMEM;
        }
        if (k == c->n)
            break;
        const bool was = c->cached[k] != UINT32_MAX && s->cache[c->cached[k]].touching;
        if (at < s->num_cache && s->cache[at].key == c->key[k])
            at++;
        const bool is = solver__touching(s, k);
        const uint32_t q = c->row[k], i = c->a[k], j = c->b[k];
        next[n++] = (physics__cached){c->key[k], r->jn[q], r->jt1[q], r->jt2[q], c->approach[k], is,
                                      solver__fixed(b, i) && solver__fixed(b, j)};
        if (was && !is && solver__ended(s, c->key[k]))
            return CT_ERR_NOMEM;
        if (was || !is)
            continue;
        ct_physics_collision_event_t ev = {.a = b->entity[i].id, .b = b->entity[j].id,
                                           .impulse = r->jn[q], .speed = c->speed[k]};
        v3_store(c->point[k], ev.point);
        v3_store(c->normal[k], ev.normal);
        if (physics__events_write(&s->events, CT_PHYSICS_EVENT_COLLISION, &ev, sizeof ev))
            return CT_ERR_NOMEM;
    }
    physics__cached *t = s->cache;
    const uint32_t cap = s->cap_cache;
    s->cache = s->next_cache;
    s->cap_cache = s->cap_next_cache;
    s->next_cache = t;
    s->cap_next_cache = cap;
    s->num_cache = n;
    s->woke = false;
    return 0;
}

/* Speeds stay within CT_PHYSICS_MAX_SPEED whatever the forces (the direction is kept). */
static inline physics__v3 solver__clamp_speed(physics__v3 v)
{
    const float max = CT_PHYSICS_MAX_SPEED, sq = v3_dot(v, v);
    return sq <= max * max ? v : v3_scale(v, max / sqrtf(sq));
}

/* A body that left the world's bounds stops at the border, losing its velocity along that axis;
 * the report names the first. */
static void solver__keep_inside(physics__scene *s)
{
    physics__bodies *b = &s->bodies;
    const float max = CT_PHYSICS_MAX_POSITION;
    for (uint32_t i = 0; i < b->n; i++) {
        if (v3_within(b->position[i], max))
            continue;
        float p[3], v[3];
        v3_store(b->position[i], p);
        v3_store(b->velocity[i], v);
        for (int k = 0; k < 3; k++)
            if (!(fabsf(p[k]) <= max)) {
                p[k] = p[k] > 0.0f ? max : -max;
                v[k] = 0.0f;
            }
        b->position[i] = v3_load(p);
        b->velocity[i] = v3_load(v);
        if (!s->report.escaped++)
            s->report.escaped_entity = b->entity[i].id;
    }
}

int physics__scene_step(physics__scene *s, float dt)
{
    physics__bodies *b = &s->bodies;
    s->events.size = 0;
    s->report = (physics__step_report){0};
    s->num_wake = 0;
    if (solver__reserve(s->a, (void **)&s->island_rest, &s->cap_island_rest, b->n, sizeof *s->island_rest) ||
        solver__reserve(s->a, (void **)&s->islands, &s->cap_islands, b->n, sizeof *s->islands))
        return CT_ERR_NOMEM;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->kind[i] == CT_BODY_DYNAMIC && !b->asleep[i]) {
            b->velocity[i] = solver__clamp_speed(v3_add(
                b->velocity[i], v3_scale(v3_add(s->gravity, v3_scale(b->force[i], b->inv_mass[i])), dt)));
            s->report.awake++;
        }
        b->force[i] = v3(0, 0, 0);
    }
    if (solver__collide(s, dt) || solver__prepare(s))
        return CT_ERR_NOMEM;
    solver__passes(s, solver__velocity_rows, s->velocity_iterations);
    /* The velocities go back before positions move; the positions of the bodies in contact are
     * then gathered for the passes that push them apart, and go back in turn. */
    const physics__gathered *g = &s->gathered;
    for (uint32_t k = 0; k < g->n; k++)
        b->velocity[g->body[k]] = g->velocity[k];
    for (uint32_t i = 0; i < b->n; i++)
        if (b->kind[i] != CT_BODY_STATIC && !b->asleep[i])
            b->position[i] = v3_add(b->position[i], v3_scale(b->velocity[i], dt));
    for (uint32_t k = 0; k < g->n; k++)
        g->position[k] = b->position[g->body[k]];
    solver__passes(s, solver__position_rows, s->position_iterations);
    for (uint32_t k = 0; k < g->n; k++)
        b->position[g->body[k]] = g->position[k];
    solver__keep_inside(s);
    physics__islands_wake_listed(s);
    physics__islands_sleep(s, dt);
    return solver__remember(s) || solver__check_grid(s) ? CT_ERR_NOMEM : 0;
}
