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
#include "physics_lanes.h"

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
const char physics__solver_lanes[] = PHYSICS_LANES;

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
        {(void **)&s->rows.block, &s->rows.cap_blocks, sizeof *s->rows.block},
        {(void **)&s->rows.contact, &s->rows.cap_contact, sizeof *s->rows.contact},
        {(void **)&s->rows.scratch, &s->rows.cap_scratch, sizeof *s->rows.scratch},
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
    physics__soa_free(s->a, &s->gathered.buffer, solver__gathered_fields,
                      SOLVER_NUM_FIELDS(solver__gathered_fields), s->gathered.cap);
    s->contacts.n = s->contacts.cap = s->gathered.n = s->gathered.cap = 0;
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

/* LSD radix sort by key, a byte a pass, from p through tmp; returns whichever holds the result.
 * Only the bytes in which some keys differ get a pass (one read finds them): entity ids are
 * small, so most bytes are skipped. Far cheaper than qsort's callback per comparison on ten
 * thousand pairs, and the 256 counts of a pass cost little on a few hundred. */
static physics__keyed_pair *solver__sort_pairs(physics__keyed_pair *p, physics__keyed_pair *tmp,
                                              uint32_t n)
{
    uint64_t differ = 0;
    for (uint32_t i = 1; i < n; i++)
        differ |= p[i].key ^ p[0].key;
    for (uint32_t shift = 0; shift < 64; shift += 8) {
        if (!((differ >> shift) & 255))
            continue;
        uint32_t count[256] = {0};
        for (uint32_t i = 0; i < n; i++)
            count[(p[i].key >> shift) & 255]++;
        for (uint32_t d = 0, sum = 0; d < 256; d++) {
            const uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            tmp[count[(p[i].key >> shift) & 255]++] = p[i];
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

/* Block m's rows, filled from their contacts (r->contact), with last step's impulses where the
 * warm start will apply them; an empty lane gets a row that changes nothing (every factor zero,
 * both slots the spare one past the bodies'). */
static void solver__fill_block(const physics__scene *s, uint32_t m)
{
    const physics__bodies *b = &s->bodies;
    const physics__contacts *c = &s->contacts;
    physics__row_block *rb = &s->rows.block[m];
    memset(rb, 0, sizeof *rb);
    for (uint32_t l = 0; l < PHYSICS_ROW_LANES; l++) {
        const uint32_t k = s->rows.contact[m * PHYSICS_ROW_LANES + l];
        if (k == UINT32_MAX) {
            rb->slot_a[l] = rb->slot_b[l] = s->gathered.n;
            continue;
        }
        const uint32_t i = c->a[k], j = c->b[k];
        const physics__v3 n = c->normal[k];
        rb->slot_a[l] = c->slot_a[k];
        rb->slot_b[l] = c->slot_b[k];
        /* Either axis works for the tangent seed as long as it is not parallel to n. */
        const physics__v3 seed = fabsf(n.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
        const physics__v3 t1 = v3_cross(n, seed);
        const physics__v3 t1n = v3_scale(t1, 1.0f / v3_len(t1));
        const physics__v3 t2 = v3_cross(n, t1n);
        for (int d = 0; d < 3; d++) {
            rb->normal[d][l] = v3_get(n, d);
            rb->t1[d][l] = v3_get(t1n, d);
            rb->t2[d][l] = v3_get(t2, d);
        }
        rb->inv_mass_a[l] = solver__inv_mass(b, i);
        rb->inv_mass_b[l] = solver__inv_mass(b, j);
        rb->mass_n[l] = 1.0f / (rb->inv_mass_a[l] + rb->inv_mass_b[l]);
        rb->target[l] = c->target[k];
        rb->friction[l] = sqrtf(b->friction[i] * b->friction[j]);
        rb->sep_base[l] = c->sep_base[k];
        const physics__cached *old = c->cached[k] != UINT32_MAX ? &s->cache[c->cached[k]] : NULL;
        if (old && c->target[k] <= 0.0f) {
            rb->jn[l] = old->jn;
            rb->jt1[l] = old->jt1;
            rb->jt2[l] = old->jt2;
        }
    }
}

/* A job of solver__prepare: the row blocks of slices [begin, end) of SOLVER_SLICE_BLOCKS. */
#define SOLVER_SLICE_BLOCKS (SOLVER_SLICE_PAIRS / PHYSICS_ROW_LANES)
static void solver__fill_rows(void *user, uint32_t begin, uint32_t end)
{
    const physics__scene *s = user;
    const uint32_t last = end * SOLVER_SLICE_BLOCKS < s->rows.num_blocks ? end * SOLVER_SLICE_BLOCKS
                                                                        : s->rows.num_blocks;
    for (uint32_t m = begin * SOLVER_SLICE_BLOCKS; m < last; m++)
        solver__fill_block(s, m);
}

/* The first block at or after b with a lane free: open[b] is b itself while b has one, else a
 * block further on (the links are halved as they are walked). */
static uint32_t solver__open_block(uint32_t *open, uint32_t b)
{
    while (open[b] != b) {
        open[b] = open[open[b]];
        b = open[b];
    }
    return b;
}

/* Puts the rows, in colour order at the start of r->scratch, into blocks (see physics__rows):
 * c->row gets each contact's row, r->contact the contact of each row. */
static int solver__cut_blocks(physics__scene *s)
{
    const physics__contacts *c = &s->contacts;
    physics__rows *r = &s->rows;
    physics__gathered *g = &s->gathered;
    const uint32_t *sequence = r->scratch;
    uint32_t *open = r->scratch + c->n, *taken = open + c->n + 1;
    /* g->colors now says after which block a slot is free: the last one using it, plus one. */
    if (g->n)
        memset(g->colors, 0, (size_t)g->n * sizeof *g->colors);
    /* Every block before `first` is full: the walk starts there when the slots are free earlier,
     * as they mostly are for the rows of a new colour. */
    uint32_t blocks = 0, first = 0;
    open[0] = taken[0] = 0;
    for (uint32_t q = 0; q < c->n; q++) {
        const uint32_t k = sequence[q], sa = c->slot_a[k], sb = c->slot_b[k];
        const uint32_t after = (uint32_t)(g->colors[sa] > g->colors[sb] ? g->colors[sa] : g->colors[sb]);
        const uint32_t m = solver__open_block(open, after > first ? after : first);
        if (m == blocks) { /* a new block, and an empty one after it */
            blocks++;
            open[blocks] = blocks;
            taken[blocks] = 0;
        }
        c->row[k] = m * PHYSICS_ROW_LANES + taken[m];
        if (++taken[m] == PHYSICS_ROW_LANES) {
            open[m] = m + 1;
            if (m == first)
                first = solver__open_block(open, m + 1);
        }
        g->colors[sa] = g->colors[sb] = m + 1;
    }
    const uint32_t rows = blocks * PHYSICS_ROW_LANES;
    if (solver__reserve(s->a, (void **)&r->block, &r->cap_blocks, blocks, sizeof *r->block) ||
        solver__reserve(s->a, (void **)&r->contact, &r->cap_contact, rows, sizeof *r->contact))
        return CT_ERR_NOMEM;
    r->num_blocks = blocks;
    if (rows)
        memset(r->contact, 0xff, (size_t)rows * sizeof *r->contact);
    for (uint32_t k = 0; k < c->n; k++)
        r->contact[c->row[k]] = k;
    return 0;
}

/* Gathers the velocities of the bodies in contact, sorts the contacts into colours (see
 * physics__rows), cuts them into blocks and fills the rows, warm started with the impulses a
 * contact had in the previous step. Everything here walks the contacts in entity-pair order, the
 * warm start too. */
static int solver__prepare(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    physics__contacts *c = &s->contacts;
    physics__rows *r = &s->rows;
    physics__gathered *g = &s->gathered;
    if (solver__reserve(s->a, (void **)&r->scratch, &r->cap_scratch, 3 * c->n + 2, sizeof *r->scratch) ||
        solver__reserve_soa(s->a, g, &g->buffer, solver__gathered_fields,
                            SOLVER_NUM_FIELDS(solver__gathered_fields), &g->cap, b->n + 2 * c->n + 1))
        return CT_ERR_NOMEM;
    g->n = 0;
    if (b->n)
        memset(g->slot, 0xff, (size_t)b->n * sizeof *g->slot);
    /* Greedy colouring: each contact takes the lowest colour neither of its slots has yet; one
     * that finds none joins the overflow, the last colour, whose rows the blocks then take one by
     * one where they share a body. Fewer than SOLVER_COLOR_MIN_ROWS contacts are solved in
     * entity-pair order itself, which converges in fewer passes on stacks (ids usually go up a
     * stack): "colours" are then waves, each contact one after the latest of its slots
     * (g->colors holding that number), which keeps that order. Either way the choice depends on
     * the contacts only, never on the threads. Colours keep the rows of a bigger scene apart by
     * body, the order that converged best on the pyramids. */
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
    /* The spare slot of empty lanes: still, and nothing moves it. */
    g->velocity[g->n] = v3(0, 0, 0);
    /* A counting sort by colour, stable: rows of one colour keep entity-pair order. */
    uint32_t *start = r->scratch + c->n;
    if (colors)
        memset(start, 0, (size_t)colors * sizeof *start);
    for (uint32_t k = 0; k < c->n; k++)
        start[c->row[k] - 1]++;
    for (uint32_t w = 0, sum = 0; w < colors; w++) {
        const uint32_t count = start[w];
        start[w] = sum;
        sum += count;
    }
    r->num_colors = colors;
    for (uint32_t k = 0; k < c->n; k++)
        r->scratch[start[c->row[k] - 1]++] = k;
    if (solver__cut_blocks(s))
        return CT_ERR_NOMEM;
    physics__pool_run(s->pool, (r->num_blocks + SOLVER_SLICE_BLOCKS - 1) / SOLVER_SLICE_BLOCKS,
                      solver__fill_rows, s);
    /* The warm start, in entity-pair order. A bounce starts from nothing: last step's push would
     * only damp it. */
    for (uint32_t k = 0; k < c->n; k++) {
        if (c->cached[k] == UINT32_MAX || c->target[k] > 0.0f)
            continue;
        const physics__row_block *rb = &r->block[c->row[k] / PHYSICS_ROW_LANES];
        const uint32_t l = c->row[k] % PHYSICS_ROW_LANES;
        const physics__v3 n = v3(rb->normal[0][l], rb->normal[1][l], rb->normal[2][l]);
        const physics__v3 t1 = v3(rb->t1[0][l], rb->t1[1][l], rb->t1[2][l]);
        const physics__v3 t2 = v3(rb->t2[0][l], rb->t2[1][l], rb->t2[2][l]);
        const physics__v3 impulse = v3_add(v3_scale(n, rb->jn[l]),
                                           v3_add(v3_scale(t1, rb->jt1[l]), v3_scale(t2, rb->jt2[l])));
        physics__v3 *va = &g->velocity[c->slot_a[k]], *vb = &g->velocity[c->slot_b[k]];
        *va = v3_sub(*va, v3_scale(impulse, rb->inv_mass_a[l]));
        *vb = v3_add(*vb, v3_scale(impulse, rb->inv_mass_b[l]));
    }
    return 0;
}

/* Three lanes of vectors: one 3-vector per row of a block. The operations round as v3_* do, in
 * the same order, so each lane gets the bits the scalar expression would. */
typedef struct solver__v3x4 {
    f32x4 x, y, z;
} solver__v3x4;

static inline solver__v3x4 v3x4_load(const float p[3][PHYSICS_ROW_LANES])
{
    return (solver__v3x4){f32x4_load(p[0]), f32x4_load(p[1]), f32x4_load(p[2])};
}
static inline solver__v3x4 v3x4_add(solver__v3x4 a, solver__v3x4 b)
{
    return (solver__v3x4){f32x4_add(a.x, b.x), f32x4_add(a.y, b.y), f32x4_add(a.z, b.z)};
}
static inline solver__v3x4 v3x4_sub(solver__v3x4 a, solver__v3x4 b)
{
    return (solver__v3x4){f32x4_sub(a.x, b.x), f32x4_sub(a.y, b.y), f32x4_sub(a.z, b.z)};
}
static inline solver__v3x4 v3x4_scale(solver__v3x4 a, f32x4 s)
{
    return (solver__v3x4){f32x4_mul(a.x, s), f32x4_mul(a.y, s), f32x4_mul(a.z, s)};
}
static inline f32x4 v3x4_dot(solver__v3x4 a, solver__v3x4 b)
{
    return f32x4_add(f32x4_add(f32x4_mul(a.x, b.x), f32x4_mul(a.y, b.y)), f32x4_mul(a.z, b.z));
}
static inline solver__v3x4 v3x4_pick(mask32x4 m, solver__v3x4 yes, solver__v3x4 no)
{
    return (solver__v3x4){f32x4_pick(m, yes.x, no.x), f32x4_pick(m, yes.y, no.y), f32x4_pick(m, yes.z, no.z)};
}

/* The vectors of four slots (a block's rows' bodies a, or b), one per lane. */
static inline solver__v3x4 solver__gather(const physics__v3 *v, const uint32_t slot[PHYSICS_ROW_LANES])
{
    solver__v3x4 r;
    f32x4_gather3(&v[slot[0]].x, &v[slot[1]].x, &v[slot[2]].x, &v[slot[3]].x, &r.x, &r.y, &r.z);
    return r;
}

/* The lanes set in `lanes` (bit l for lane l) back to their slots. */
static inline void solver__scatter(physics__v3 *v, const uint32_t slot[PHYSICS_ROW_LANES], solver__v3x4 r,
                                   uint32_t lanes)
{
    f32x4_scatter3(&v[slot[0]].x, &v[slot[1]].x, &v[slot[2]].x, &v[slot[3]].x, r.x, r.y, r.z, lanes);
}

/* Sequential impulses (step 3) over one block of rows, on the gathered velocities. Each lane's
 * arithmetic is the one a row would see alone: friction first, within a cone (the tangent
 * impulse is at most friction times the normal impulse so far, in every direction), then the
 * non-penetrating normal impulse. A row that has pushed nothing yet has no friction to apply
 * (nor any to take back): the common case of a speculative contact or of neighbours side by
 * side, whose lanes keep their velocities (a whole block of them skips the friction). */
static void solver__velocity_block(physics__row_block *rb, physics__v3 *v, f32x4 *change, f32x4 *largest)
{
    const f32x4 zero = f32x4_splat(0.0f);
    solver__v3x4 va = solver__gather(v, rb->slot_a), vb = solver__gather(v, rb->slot_b);
    const solver__v3x4 nn = v3x4_load(rb->normal);
    const f32x4 ia = f32x4_load(rb->inv_mass_a), ib = f32x4_load(rb->inv_mass_b), mass = f32x4_load(rb->mass_n);
    const f32x4 jn = f32x4_load(rb->jn), jt1 = f32x4_load(rb->jt1), jt2 = f32x4_load(rb->jt2);
    const mask32x4 pushed = mask32x4_or(f32x4_nonzero(jn), mask32x4_or(f32x4_nonzero(jt1), f32x4_nonzero(jt2)));
    f32x4 j1 = zero, j2 = zero;
    if (mask32x4_any(pushed)) {
        const solver__v3x4 t1 = v3x4_load(rb->t1), t2 = v3x4_load(rb->t2);
        const f32x4 limit = f32x4_mul(f32x4_load(rb->friction), jn);
        const solver__v3x4 dv = v3x4_sub(vb, va);
        j1 = f32x4_sub(jt1, f32x4_mul(mass, v3x4_dot(dv, t1)));
        j2 = f32x4_sub(jt2, f32x4_mul(mass, v3x4_dot(dv, t2)));
        const f32x4 sq = f32x4_add(f32x4_mul(j1, j1), f32x4_mul(j2, j2));
        /* Mostly the tangent impulse fits in the cone (things at rest hold): the square root
         * and the division are then left out, which shortens each block's chain of latencies. */
        const mask32x4 outside = f32x4_greater(sq, f32x4_mul(limit, limit));
        if (mask32x4_any(outside)) {
            const f32x4 scale = f32x4_pick(f32x4_greater(sq, zero), f32x4_div(limit, f32x4_sqrt(sq)), zero);
            j1 = f32x4_pick(outside, f32x4_mul(j1, scale), j1);
            j2 = f32x4_pick(outside, f32x4_mul(j2, scale), j2);
        }
        j1 = f32x4_pick(pushed, j1, zero);
        j2 = f32x4_pick(pushed, j2, zero);
        const solver__v3x4 tangent = v3x4_add(v3x4_scale(t1, f32x4_sub(j1, jt1)), v3x4_scale(t2, f32x4_sub(j2, jt2)));
        va = v3x4_pick(pushed, v3x4_sub(va, v3x4_scale(tangent, ia)), va);
        vb = v3x4_pick(pushed, v3x4_add(vb, v3x4_scale(tangent, ib)), vb);
    }
    const solver__v3x4 dv = v3x4_sub(vb, va);
    const f32x4 j = f32x4_max(f32x4_add(jn, f32x4_mul(mass, f32x4_sub(f32x4_load(rb->target), v3x4_dot(dv, nn)))), zero);
    const solver__v3x4 normal = v3x4_scale(nn, f32x4_sub(j, jn));
    solver__scatter(v, rb->slot_a, v3x4_sub(va, v3x4_scale(normal, ia)), 0xfu);
    solver__scatter(v, rb->slot_b, v3x4_add(vb, v3x4_scale(normal, ib)), 0xfu);
    const f32x4 moved = f32x4_add(f32x4_add(f32x4_abs(f32x4_sub(j, jn)), f32x4_abs(f32x4_sub(j1, jt1))),
                                  f32x4_abs(f32x4_sub(j2, jt2)));
    *change = f32x4_max(*change, moved);
    *largest = f32x4_max(*largest, j);
    f32x4_store(rb->jn, j);
    f32x4_store(rb->jt1, j1);
    f32x4_store(rb->jt2, j2);
}

/* Moves overlapping bodies apart by position only (step 4), one block of rows, on the gathered
 * positions. Rows not deeper than the slop write nothing, as a row alone would not: a block that
 * reads those bodies next then need not wait for this one. */
static void solver__position_block(physics__row_block *rb, physics__v3 *p, f32x4 *deepest, f32x4 *unused)
{
    (void)unused;
    const f32x4 zero = f32x4_splat(0.0f);
    const solver__v3x4 pa = solver__gather(p, rb->slot_a), pb = solver__gather(p, rb->slot_b);
    const solver__v3x4 nn = v3x4_load(rb->normal);
    const f32x4 sep = f32x4_add(f32x4_load(rb->sep_base), v3x4_dot(nn, v3x4_sub(pb, pa)));
    const f32x4 C = f32x4_max(f32x4_mul(f32x4_splat(SOLVER_BAUMGARTE), f32x4_add(sep, f32x4_splat(SOLVER_SLOP))),
                              f32x4_splat(-SOLVER_MAX_CORRECTION));
    const mask32x4 deep = f32x4_greater(zero, C);
    const uint32_t lanes = mask32x4_bits(deep);
    if (!lanes)
        return;
    const solver__v3x4 push = v3x4_scale(nn, f32x4_mul(f32x4_negate(C), f32x4_load(rb->mass_n)));
    solver__scatter(p, rb->slot_a, v3x4_sub(pa, v3x4_scale(push, f32x4_load(rb->inv_mass_a))), lanes);
    solver__scatter(p, rb->slot_b, v3x4_add(pb, v3x4_scale(push, f32x4_load(rb->inv_mass_b))), lanes);
    *deepest = f32x4_max(*deepest, f32x4_pick(deep, f32x4_negate(C), zero));
}

/* Velocity passes stop early once a pass changed no impulse by more than this fraction of the
 * largest, position passes once none moved a body by more than SOLVER_STILL (m): a warm-started
 * resting pile or a small pyramid converges in a few passes. */
#define SOLVER_CONVERGED 1e-4f
#define SOLVER_STILL 1e-6f

/* One block's pass: the largest change, and (velocities) the largest impulse, into two lanes. */
typedef void (*solver__block_f)(physics__row_block *rb, physics__v3 *v, f32x4 *m0, f32x4 *m1);

static float solver__largest_lane(f32x4 a)
{
    float lanes[PHYSICS_ROW_LANES];
    f32x4_store(lanes, a);
    return f_max(f_max(lanes[0], lanes[1]), f_max(lanes[2], lanes[3]));
}

/* Up to `passes` passes of fn over all blocks, on this thread, on the gathered vectors v. A team
 * of two solving each colour side by side was tried: on two cores it made every scene slower
 * (pyramid_100 6.2 ms against 4.7 ms, the 10k pile's threads_x 1.39 against 1.5), the bodies'
 * cache lines moving between the cores at every colour; the step's other loops use the pool
 * instead. */
static void solver__passes(physics__scene *s, solver__block_f fn, physics__v3 *v, uint32_t passes)
{
    physics__rows *r = &s->rows;
    for (uint32_t it = 0; it < passes; it++) {
        f32x4 m0 = f32x4_splat(0.0f), m1 = f32x4_splat(0.0f);
        for (uint32_t m = 0; m < r->num_blocks; m++)
            fn(&r->block[m], v, &m0, &m1);
        const float change = solver__largest_lane(m0);
        if (fn == solver__velocity_block ? change <= SOLVER_CONVERGED * solver__largest_lane(m1)
                                         : change <= SOLVER_STILL)
            break;
    }
}

/* Whether contact k's shapes touch, and press, at the end of the step. */
static inline bool solver__touching(const physics__scene *s, uint32_t k)
{
    const physics__contacts *c = &s->contacts;
    const physics__v3 *p = s->bodies.position;
    const float sep = c->sep_base[k] + v3_dot(c->normal[k], v3_sub(p[c->b[k]], p[c->a[k]]));
    const uint32_t q = c->row[k];
    return sep <= SOLVER_TOUCH && s->rows.block[q / PHYSICS_ROW_LANES].jn[q % PHYSICS_ROW_LANES] > 0.0f;
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
        const uint32_t i = c->a[k], j = c->b[k], l = c->row[k] % PHYSICS_ROW_LANES;
        const physics__row_block *rb = &r->block[c->row[k] / PHYSICS_ROW_LANES];
        next[n++] = (physics__cached){c->key[k], rb->jn[l], rb->jt1[l], rb->jt2[l], c->approach[k], is,
                                      solver__fixed(b, i) && solver__fixed(b, j)};
        if (was && !is && solver__ended(s, c->key[k]))
            return CT_ERR_NOMEM;
        if (was || !is)
            continue;
        ct_physics_collision_event_t ev = {.a = b->entity[i].id, .b = b->entity[j].id,
                                           .impulse = rb->jn[l], .speed = c->speed[k]};
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
    physics__gathered *g = &s->gathered;
    solver__passes(s, solver__velocity_block, g->velocity, s->velocity_iterations);
    /* The velocities go back before positions move; the positions of the bodies in contact are
     * then gathered for the passes that push them apart, and go back in turn. */
    for (uint32_t k = 0; k < g->n; k++)
        b->velocity[g->body[k]] = g->velocity[k];
    for (uint32_t i = 0; i < b->n; i++)
        if (b->kind[i] != CT_BODY_STATIC && !b->asleep[i])
            b->position[i] = v3_add(b->position[i], v3_scale(b->velocity[i], dt));
    for (uint32_t k = 0; k < g->n; k++)
        g->position[k] = b->position[g->body[k]];
    g->position[g->n] = v3(0, 0, 0);
    solver__passes(s, solver__position_block, g->position, s->position_iterations);
    for (uint32_t k = 0; k < g->n; k++)
        b->position[g->body[k]] = g->position[k];
    solver__keep_inside(s);
    physics__islands_wake_listed(s);
    physics__islands_sleep(s, dt);
    return solver__remember(s) || solver__check_grid(s) ? CT_ERR_NOMEM : 0;
}
