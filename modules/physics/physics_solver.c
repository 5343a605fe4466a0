/* physics_solver.c: the solver's passes over the row blocks the constraint graph made
 * (physics_graph.c): sequential impulses on the gathered velocities (step 3 of physics_step.c)
 * and the position passes that push overlapping bodies apart (step 4), four rows of different
 * bodies side by side (physics_lanes.h). */
#include "physics_internal.h"
#include "physics_lanes.h"

const char physics__solver_lanes[] = PHYSICS_LANES;

/* Penetration left alone (m): correcting to exactly zero would make resting contacts flicker. */
#define SOLVER_SLOP 0.0002f
/* Fraction of the remaining penetration removed per position pass, and the most per pass (m). */
#define SOLVER_BAUMGARTE 0.2f
#define SOLVER_MAX_CORRECTION 0.2f

/* A row block's 3-vector column (float[3][4]) into lanes. */
static inline v3x4 solver__load(const float p[3][PHYSICS_ROW_LANES])
{
    return v3x4_load(p[0], p[1], p[2]);
}

/* The vectors of four slots (a block's rows' bodies a, or b), one per lane. */
static inline v3x4 solver__gather(const physics__v3 *v, const uint32_t slot[PHYSICS_ROW_LANES])
{
    return v3x4_gather(&v[slot[0]].x, &v[slot[1]].x, &v[slot[2]].x, &v[slot[3]].x);
}

/* The lanes set in `lanes` (bit l for lane l) back to their slots. */
static inline void solver__scatter(physics__v3 *v, const uint32_t slot[PHYSICS_ROW_LANES], v3x4 r,
                                   uint32_t lanes)
{
    v3x4_scatter(&v[slot[0]].x, &v[slot[1]].x, &v[slot[2]].x, &v[slot[3]].x, r, lanes);
}

/* Sequential impulses (step 3) over one block of rows, on the gathered velocities. Each lane's
 * arithmetic is the one a row would see alone: friction first, within a cone (the tangent
 * impulse is at most friction times the normal impulse so far, in every direction), then the
 * non-penetrating normal impulse. A row that has pushed nothing yet has no friction to apply
 * (nor any to take back): the common case of a speculative contact or of neighbours side by
 * side, whose lanes keep their velocities (a whole block of them skips the friction). */
static void solver__velocity_block(physics__row_block *rb, physics__v3 *v, f32x4 *change,
                                   f32x4 *largest)
{
    const f32x4 zero = f32x4_splat(0.0f);
    v3x4 va = solver__gather(v, rb->slot_a), vb = solver__gather(v, rb->slot_b);
    const v3x4 nn = solver__load(rb->normal);
    const f32x4 ia = f32x4_load(rb->inv_mass_a), ib = f32x4_load(rb->inv_mass_b);
    const f32x4 mass = f32x4_load(rb->mass_n);
    const f32x4 jn = f32x4_load(rb->jn), jt1 = f32x4_load(rb->jt1), jt2 = f32x4_load(rb->jt2);
    const mask32x4 pushed =
        mask32x4_or(f32x4_nonzero(jn), mask32x4_or(f32x4_nonzero(jt1), f32x4_nonzero(jt2)));
    f32x4 j1 = zero, j2 = zero;
    if (mask32x4_any(pushed)) {
        const v3x4 t1 = solver__load(rb->t1), t2 = solver__load(rb->t2);
        const f32x4 limit = f32x4_mul(f32x4_load(rb->friction), jn);
        const v3x4 dv = v3x4_sub(vb, va);
        j1 = f32x4_sub(jt1, f32x4_mul(mass, v3x4_dot(dv, t1)));
        j2 = f32x4_sub(jt2, f32x4_mul(mass, v3x4_dot(dv, t2)));
        physics__friction_cone(&j1, &j2, limit);
        j1 = f32x4_pick(pushed, j1, zero);
        j2 = f32x4_pick(pushed, j2, zero);
        const v3x4 tangent =
            v3x4_add(v3x4_scale(t1, f32x4_sub(j1, jt1)), v3x4_scale(t2, f32x4_sub(j2, jt2)));
        va = v3x4_pick(pushed, v3x4_sub(va, v3x4_scale(tangent, ia)), va);
        vb = v3x4_pick(pushed, v3x4_add(vb, v3x4_scale(tangent, ib)), vb);
    }
    const v3x4 dv = v3x4_sub(vb, va);
    const f32x4 push = f32x4_mul(mass, f32x4_sub(f32x4_load(rb->target), v3x4_dot(dv, nn)));
    const f32x4 j = f32x4_max(f32x4_add(jn, push), zero);
    const v3x4 normal = v3x4_scale(nn, f32x4_sub(j, jn));
    solver__scatter(v, rb->slot_a, v3x4_sub(va, v3x4_scale(normal, ia)), 0xfu);
    solver__scatter(v, rb->slot_b, v3x4_add(vb, v3x4_scale(normal, ib)), 0xfu);
    const f32x4 moved =
        f32x4_add(f32x4_add(f32x4_abs(f32x4_sub(j, jn)), f32x4_abs(f32x4_sub(j1, jt1))),
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
static void solver__position_block(physics__row_block *rb, physics__v3 *p, f32x4 *deepest,
                                   f32x4 *unused)
{
    (void)unused;
    const f32x4 zero = f32x4_splat(0.0f);
    const v3x4 pa = solver__gather(p, rb->slot_a), pb = solver__gather(p, rb->slot_b);
    const v3x4 nn = solver__load(rb->normal);
    const f32x4 sep = f32x4_add(f32x4_load(rb->sep_base), v3x4_dot(nn, v3x4_sub(pb, pa)));
    const f32x4 C = f32x4_max(
        f32x4_mul(f32x4_splat(SOLVER_BAUMGARTE), f32x4_add(sep, f32x4_splat(SOLVER_SLOP))),
        f32x4_splat(-SOLVER_MAX_CORRECTION));
    const mask32x4 deep = f32x4_greater(zero, C);
    const uint32_t lanes = mask32x4_bits(deep);
    if (!lanes)
        return;
    const v3x4 push = v3x4_scale(nn, f32x4_mul(f32x4_negate(C), f32x4_load(rb->mass_n)));
    solver__scatter(p, rb->slot_a, v3x4_sub(pa, v3x4_scale(push, f32x4_load(rb->inv_mass_a))),
                    lanes);
    solver__scatter(p, rb->slot_b, v3x4_add(pb, v3x4_scale(push, f32x4_load(rb->inv_mass_b))),
                    lanes);
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

void physics__solve_velocities(physics__scene *s, physics__v3 *v)
{
    solver__passes(s, solver__velocity_block, v, s->velocity_iterations);
}

void physics__solve_positions(physics__scene *s, physics__v3 *p)
{
    solver__passes(s, solver__position_block, p, s->position_iterations);
}
