/* physics_step.c: one step of the bodies, from forces to the grid the queries reuse.
 *
 * Bodies carry linear motion only (spheres and axis-aligned boxes never rotate), so a contact is
 * one point with one normal and the impulse maths has no inertia tensors. The step, and the file
 * that does each part (the way Box2D cuts its solver):
 *   1. forces and gravity into velocities (here);
 *   2. the spatial hash over boxes swept by this step's motion (here, and the candidate pairs in
 *      physics_contacts.c), then exact shape tests (physics_narrowphase.c): contacts are kept a
 *      little before touching ("speculative"), so fast bodies do not tunnel and resting ones keep
 *      their contact;
 *   3. the contacts sorted into colours and row blocks, warm started with the impulses a contact
 *      had in the previous step (physics_graph.c, the constraint graph), then sequential impulses
 *      over the rows, four rows of different bodies at once (physics_solver.c, physics_lanes.h),
 *      on velocities gathered into a compact array;
 *   4. positions from velocities (here), then a few passes that push overlapping bodies apart by
 *      moving positions only (physics_solver.c: no velocity, so correcting penetration never
 *      adds energy);
 *   5. remember impulses per pair; write a collision event for pairs that just started pressing
 *      (physics_contacts.c); islands at rest go to sleep (physics_islands.c).
 * Contacts are sorted by their entity pair first: the result then depends on what the bodies are,
 * not on where they sit in the arrays or on the hash map's history. */
#include "physics_internal.h"

#include <stddef.h>
#include <string.h>

void physics__scene_init(physics__scene *s, ct_allocator_t *a)
{
    memset(s, 0, sizeof *s);
    s->a = s->bodies.a = s->bodies.map.a = s->bodies.hull_map.a = s->bp.a = s->fixed.a =
        s->events.a = a;
    s->gravity = v3(0.0f, -9.81f, 0.0f);
    /* Twenty sweeps let a ten-box stack settle within a few millimetres from a cold start;
     * after that warm starting does most of the work. */
    s->velocity_iterations = 20;
    s->position_iterations = 4;
    s->bp_stale = s->fixed_stale = true;
    s->sleeping = true;
    s->max_pairs = SOLVER_MIN_PAIR_LIMIT;
    s->pair_ceiling = SOLVER_MAX_PAIR_LIMIT;
}

void physics__scene_free(physics__scene *s)
{
    physics__bodies_free(&s->bodies);
    physics__joints_free(s);
    physics__characters_free(s);
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
    physics__contacts_free(s);
    physics__graph_free(s);
    physics__rigid_free(s);
    physics__ccd_free(s);
    physics__sensors_free(s);
    if (s->cache)
        ct_free(s->a, s->cache, (size_t)s->cap_cache * sizeof *s->cache);
    if (s->order)
        ct_free(s->a, s->order, (size_t)s->cap_order * sizeof *s->order);
    s->cache = NULL;
    s->order = NULL;
    s->cap_cache = s->cap_order = s->num_cache = 0;
}

typedef struct step__fill_job {
    physics__scene *s;
    physics__broadphase *bp;
    uint32_t *body;
    bool fixed;
    bool share; /* s->ccd.share: the boxes widened by the sweeps' paths (physics_ccd.c) */
    float dt;
} step__fill_job;

/* A job of step__fill: the boxes of slices [begin, end) of SOLVER_SLICE_BOXES bodies, each
 * slice from its first box (s->fill_first) on. */
static void step__fill_range(void *user, uint32_t begin, uint32_t end)
{
    const step__fill_job *job = user;
    const physics__bodies *b = &job->s->bodies;
    physics__broadphase *bp = job->bp;
    const float dt = job->dt;
    const uint32_t last = end * SOLVER_SLICE_BOXES < b->n ? end * SOLVER_SLICE_BOXES : b->n;
    uint32_t n = job->s->fill_first[begin];
    for (uint32_t i = begin * SOLVER_SLICE_BOXES; i < last; i++) {
        if (physics__fixed(b, i) != job->fixed)
            continue;
        const physics__v3 p = b->position[i], h = b->extent[i];
        physics__v3 lo = v3_sub(p, h), hi = v3_add(p, h);
        if (dt > 0.0f) {
            const physics__v3 m = v3(SOLVER_MARGIN, SOLVER_MARGIN, SOLVER_MARGIN);
            const physics__v3 move = v3_scale(b->velocity[i], dt);
            lo = v3_sub(v3_min(lo, v3_add(lo, move)), m);
            hi = v3_add(v3_max(hi, v3_add(hi, move)), m);
            if (job->share) {
                /* The contacts' box kept; the grid's holds the path a sweep will see too. */
                physics__ccd *c = &job->s->ccd;
                c->share_lo[n] = lo;
                c->share_hi[n] = hi;
                const float r = physics__ccd_reach(b, i) + CCD_SHARE_SLACK;
                const physics__v3 reach = v3(r, r, r), end = v3_add(p, move);
                lo = v3_min(lo, v3_sub(v3_min(p, end), reach));
                hi = v3_max(hi, v3_add(v3_max(p, end), reach));
            }
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
int physics__scene_fill(physics__scene *s, physics__broadphase *bp, uint32_t **body, uint32_t *cap,
                        bool fixed, float dt)
{
    const physics__bodies *b = &s->bodies;
    const uint32_t slices = (b->n + SOLVER_SLICE_BOXES - 1) / SOLVER_SLICE_BOXES;
    if (physics__broadphase_resize(bp, b->n) ||
        physics__reserve(s->a, (void **)body, cap, b->n, sizeof **body) ||
        physics__reserve(s->a, (void **)&s->fill_first, &s->cap_fill_first, slices + 1,
                         sizeof *s->fill_first))
        return CT_ERR_NOMEM;
    bp->pool = s->pool;
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (i % SOLVER_SLICE_BOXES == 0)
            s->fill_first[i / SOLVER_SLICE_BOXES] = n;
        n += physics__fixed(b, i) == fixed;
    }
    s->fill_first[slices] = n;
    const bool share = bp == &s->bp && s->ccd.share && dt > 0.0f && !fixed;
    if (share && (physics__reserve(s->a, (void **)&s->ccd.share_lo, &s->ccd.cap_share_lo, n,
                                   sizeof *s->ccd.share_lo) ||
                  physics__reserve(s->a, (void **)&s->ccd.share_hi, &s->ccd.cap_share_hi, n,
                                   sizeof *s->ccd.share_hi)))
        return CT_ERR_NOMEM;
    if (bp == &s->bp)
        s->ccd.shared = share;
    step__fill_job job = {s, bp, *body, fixed, share, dt};
    physics__pool_run(s->pool, slices, step__fill_range, &job);
    bp->n = n;
    return physics__broadphase_build(bp, 0.0f);
}

int physics__scene_fill_fixed(physics__scene *s)
{
    if (!s->fixed_stale)
        return 0;
    const int err =
        physics__scene_fill(s, &s->fixed, &s->fixed_body, &s->cap_fixed_body, true, 0.0f);
    s->fixed_stale = err != 0;
    return err;
}

int physics__scene_refresh_grid(physics__scene *s)
{
    if (physics__scene_fill_fixed(s))
        return CT_ERR_NOMEM;
    if (!s->bp_stale)
        return 0;
    const int err = physics__scene_fill(s, &s->bp, &s->grid_body, &s->cap_grid_body, false, 0.0f);
    s->bp_stale = err != 0;
    s->num_escaped = 0;
    return err;
}

/* After a step the grid of moving bodies still serves queries: a query finds candidates by the
 * boxes of the bodies' paths and tests the shapes where they are now. The few bodies that ended
 * outside their box (a collision turned them) are listed and tested one by one; when they are
 * many, or bodies fell asleep, the grid is rebuilt at the next query instead. */
static int step__check_grid(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    const physics__broadphase *bp = &s->bp;
    s->num_escaped = 0;
    if (s->bp_stale)
        return 0;
    if (physics__reserve(s->a, (void **)&s->escaped, &s->cap_escaped, bp->n / 8 + 1,
                         sizeof *s->escaped))
        return CT_ERR_NOMEM;
    for (uint32_t k = 0; k < bp->n; k++) {
        const uint32_t i = s->grid_body[k];
        const physics__v3 lo = v3_sub(b->position[i], b->extent[i]),
                          hi = v3_add(b->position[i], b->extent[i]);
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
    s->quiet = false;
    if (i < s->bodies.n && physics__fixed(&s->bodies, i))
        s->fixed_stale = true;
}

/* Speeds stay within CT_PHYSICS_MAX_SPEED whatever the forces (the direction is kept). */
static inline physics__v3 step__clamp_speed(physics__v3 v)
{
    const float max = CT_PHYSICS_MAX_SPEED, sq = v3_dot(v, v);
    return sq <= max * max ? v : v3_scale(v, max / sqrtf(sq));
}

/* A body that left the world's bounds stops at the border, losing its velocity along that axis;
 * the report names the first. */
static void step__stop_at_border(physics__scene *s, uint32_t i)
{
    physics__bodies *b = &s->bodies;
    const float max = CT_PHYSICS_MAX_POSITION;
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

void physics__scene_keep_body_inside(physics__scene *s, uint32_t i)
{
    if (!v3_within(s->bodies.position[i], CT_PHYSICS_MAX_POSITION))
        step__stop_at_border(s, i);
}

void physics__scene_keep_inside(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    for (uint32_t i = 0; i < b->n; i++)
        if (!v3_within(b->position[i], CT_PHYSICS_MAX_POSITION))
            step__stop_at_border(s, i);
}

void physics__scene_settle(physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    bool quiet = s->sleeping && s->num_wake == 0;
    for (uint32_t i = 0; quiet && i < b->n; i++)
        quiet = b->kind[i] == CT_BODY_STATIC || (b->kind[i] == CT_BODY_DYNAMIC && b->asleep[i]);
    s->quiet = quiet;
    s->quiet_bodies = b->n;
}

/* The translation-only step (v1-v3 bodies only). */
static int step__translate(physics__scene *s, float dt)
{
    physics__bodies *b = &s->bodies;
    s->events.size = 0;
    s->report = (physics__step_report){0};
    s->num_wake = 0;
    if (physics__reserve(s->a, (void **)&s->island_rest, &s->cap_island_rest, b->n,
                         sizeof *s->island_rest) ||
        physics__reserve(s->a, (void **)&s->islands, &s->cap_islands, b->n, sizeof *s->islands))
        return CT_ERR_NOMEM;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->kind[i] == CT_BODY_DYNAMIC && !b->asleep[i]) {
            physics__v3 v =
                v3_add(b->velocity[i],
                       v3_scale(v3_add(s->gravity, v3_scale(b->force[i], b->inv_mass[i])), dt));
            /* Damping (v5) as the rigid solver's substeps apply it, in one step of dt here. */
            if (b->damping[i].linear != 0.0f)
                v = physics__damped(v, b->damping[i].linear, dt);
            b->velocity[i] = step__clamp_speed(v);
            s->report.awake++;
        }
        b->force[i] = v3(0, 0, 0);
    }
    bool hit;
    if (physics__contacts_collide(s, dt, &hit))
        return CT_ERR_NOMEM;
    if (hit) {
        /* A body hits a sleeping island (a bullet into a sleeping crate): the island wakes now,
         * takes this step's gravity as the awake bodies did, and the pairs are found again with
         * it awake. Taken for fixed in this step, it stopped the body dead and woke at the next
         * step with nothing of the hit. (island_rest marks the sleepers, until the sleep test.) */
        for (uint32_t i = 0; i < b->n; i++)
            s->island_rest[i] = b->asleep[i] ? 1.0f : 0.0f;
        physics__islands_wake_listed(s);
        for (uint32_t i = 0; i < b->n; i++)
            if (s->island_rest[i] != 0.0f && !b->asleep[i]) {
                b->velocity[i] =
                    step__clamp_speed(v3_add(b->velocity[i], v3_scale(s->gravity, dt)));
                s->report.awake++;
            }
        if (physics__contacts_collide(s, dt, NULL))
            return CT_ERR_NOMEM;
    }
    if (physics__graph_prepare(s))
        return CT_ERR_NOMEM;
    physics__gathered *g = &s->gathered;
    physics__solve_velocities(s, g->velocity);
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
    physics__solve_positions(s, g->position);
    for (uint32_t k = 0; k < g->n; k++)
        b->position[g->body[k]] = g->position[k];
    physics__scene_keep_inside(s);
    physics__islands_wake_listed(s);
    physics__islands_sleep(s, dt, NULL);
    if (physics__contacts_remember(s) || step__check_grid(s))
        return CT_ERR_NOMEM;
    physics__scene_settle(s);
    return 0;
}

int physics__scene_step(physics__scene *s, float dt)
{
    physics__bodies *b = &s->bodies;
    /* (The count catches bodies added by a caller that did not say so through
     * physics__scene_touched.) */
    if (s->quiet && s->quiet_bodies == b->n) {
        s->events.size = 0;
        s->report = (physics__step_report){0};
        s->num_pairs = s->contacts.n = s->rigid.num_contacts = 0;
        s->ccd.hits = 0;
        return 0;
    }
    PHYSICS_TRACE(PHYSICS_TRACE_STEP, s->pool.parallel_for != NULL, b->n);
    physics__characters_place(s, dt);
    if (physics__ccd_begin(s))
        return CT_ERR_NOMEM;
    int err = b->num_rotating || s->joints.n ? physics__rigid_step(s, dt)
                                                   : step__translate(s, dt);
    if (err || (err = physics__ccd_end(s, dt)))
        return err;
    err = physics__sensors_detect(s);
    PHYSICS_TRACE(PHYSICS_TRACE_STEP_END, s->pool.parallel_for != NULL, b->n);
    return err;
}
