/* physics_rigid_wide.c: the rigid contacts (physics_rigid.c) solved four at a time, as Box3D's
 * wide contact solver does.
 *
 * The contacts are coloured in entity-pair order: each takes the first of WIDE_COLOURS colours in
 * which neither of its moving bodies is used yet (bodies that do not move, static, kinematic or
 * asleep, are read by any number of contacts and never written). A colour's contacts are cut into
 * blocks of four, one contact a lane (physics_lanes.h), so a block's lanes never share a moving
 * body: the four chains of impulses run side by side instead of one after the other, and the blocks
 * of one colour may run on any threads (physics__pool) with the same bits. Contacts that found no
 * colour (a body in more than WIDE_COLOURS contacts) are solved one by one before the colours, as
 * Box3D solves its overflow. Each lane computes what physics_rigid.c's scalar pass computes for one
 * contact, in the same order. */
#include "physics_internal.h"
#include "physics_lanes.h"

#include <string.h>

#define WIDE_COLOURS PHYSICS_RIGID_COLOURS
/* A colour of fewer blocks is one job (with the small ones after it); a larger one is cut by
 * slices of contacts (wide__cut), as many a job as make WIDE_SLICE blocks on average: eight keep
 * two threads busy to the end of a colour, and a small colour's jobs are not mostly empty. */
#define WIDE_POOLED 16u
#define WIDE_SLICE 8u
#define WIDE_PUSH_SPEED 3.0f /* RIGID_PUSH_SPEED */

typedef float wide__lanes[4];
typedef struct wide__v3 {
    wide__lanes x, y, z;
} wide__v3;
/* A row's columns but its spin on a, ia (physics__rigid_row), which the block keeps apart. */
typedef struct wide__row {
    wide__v3 ca, cb, ib;
} wide__row;
typedef struct wide__point {
    wide__row n;
    wide__lanes mass, sep, lever;
} wide__point;

/* A block of four contacts, a lane each. Its contacts are r->lanes[4 k + lane] (padding lanes:
 * UINT32_MAX), not kept here: the block is written a lane at a time as its contacts are made, and
 * each line of it a lane touches is a line to fetch before it is written, so it holds only what
 * the passes read. */
typedef struct physics__rigid_block {
    uint32_t a[4], b[4]; /* padding lanes: body 0 */
    uint32_t count, write_a, write_b;
    uint32_t passes; /* the most passes over its lanes' normal rows (physics__rigid_contact) */
    /* Each lane's count and passes (1 or RIGID_IMPACT_PASSES), which count and passes are the most
     * of, and whether its body a is still (wide__still). */
    uint8_t lane_count[4], lane_passes[4], lane_still[4], lane_rest[4];
    uint32_t still_a; /* 1: every lane's body a is still */
    uint32_t rest_a;  /* 1: every lane's body a is at rest (wide__still) */
    wide__lanes inv_mb;
    wide__v3 normal, t1, t2;
    wide__point p[PHYSICS_MANIFOLD_POINTS];
    wide__row f1, f2;
    wide__lanes k11, k12, k22;
    wide__v3 twist_b;
    wide__lanes twist_mass, friction, bias_rate, mass_scale, impulse_scale;
    wide__lanes anchor1, anchor2;
    wide__lanes impact; /* 1 in the lanes of contacts that take more than one pass */
    /* What only the pushes on body a read (its mass; the spin on it of the points' rows, the
     * friction's and the twist's), together: a block that is still_a never reads these lines. */
    wide__lanes inv_ma;
    wide__v3 ia[PHYSICS_MANIFOLD_POINTS], f1_ia, f2_ia, twist_a;
    /* The impulses (the points', their largest, the friction's and the twist's), the only members
     * the passes write, together: the blocks are far more than the cache holds, and every line a
     * pass writes is a line written back when it leaves (3 lines a block, 11 when each row kept
     * its own). */
    wide__lanes jn[PHYSICS_MANIFOLD_POINTS], max_jn[PHYSICS_MANIFOLD_POINTS];
    wide__lanes f1j, f2j, twist_j;
} physics__rigid_block;

static inline v3x4 w3_load(const wide__v3 *p) { return v3x4_load(p->x, p->y, p->z); }

/* The solver state of a block's bodies a and b. */
typedef struct wide__bodies {
    v3x4 va, wa, vb, wb;
} wide__bodies;

static inline v3x4 wide__gather(const physics__rigid_body *body, const uint32_t i[4], size_t offset)
{
    const char *base = (const char *)body + offset;
    return v3x4_gather(
        (const float *)(base + i[0] * sizeof *body), (const float *)(base + i[1] * sizeof *body),
        (const float *)(base + i[2] * sizeof *body), (const float *)(base + i[3] * sizeof *body));
}

static inline void wide__scatter(physics__rigid_body *body, const uint32_t i[4], size_t offset,
                                 v3x4 r, uint32_t lanes)
{
    char *base = (char *)body + offset;
    v3x4_scatter((float *)(base + i[0] * sizeof *body), (float *)(base + i[1] * sizeof *body),
                 (float *)(base + i[2] * sizeof *body), (float *)(base + i[3] * sizeof *body), r,
                 lanes);
}

/* An impulse j along direction d through row (as rigid__push). With still_a (the block's), a's
 * velocities are left as they are: what the push takes from them is zero (no mass, no inverse
 * inertia), and x - 0 and x - -0 are x for every x but -0, which wide__still rules out. */
static inline void wide__push(wide__bodies *x, const physics__rigid_block *k, const wide__row *row,
                              const wide__v3 *ia, v3x4 d, f32x4 j, bool still_a)
{
    if (!still_a) {
        x->va = v3x4_sub(x->va, v3x4_scale(d, f32x4_mul(j, f32x4_load(k->inv_ma))));
        x->wa = v3x4_sub(x->wa, v3x4_scale(w3_load(ia), j));
    }
    x->vb = v3x4_add(x->vb, v3x4_scale(d, f32x4_mul(j, f32x4_load(k->inv_mb))));
    x->wb = v3x4_add(x->wb, v3x4_scale(w3_load(&row->ib), j));
}

/* The relative velocity along row's direction d (as rigid__speed). */
static inline f32x4 wide__speed(const wide__bodies *x, const wide__row *row, v3x4 d)
{
    return f32x4_sub(
        f32x4_add(v3x4_dot(v3x4_sub(x->vb, x->va), d), v3x4_dot(x->wb, w3_load(&row->cb))),
        v3x4_dot(x->wa, w3_load(&row->ca)));
}

/* Bodies a's velocities, or with rest_a their bits, +0 (wide__still), without the loads.
 * Inlined, as wide__store: called, each block's twelve vectors went through memory both ways
 * (convex_vs_mesh, 150 steps: 2,386 M instructions, 2,371 M inlined). */
static inline __attribute__((always_inline)) void
wide__load(wide__bodies *x, const physics__rigid_body *body, const physics__rigid_block *k)
{
    if (k->rest_a) {
        x->va = x->wa = (v3x4){f32x4_splat(0.0f), f32x4_splat(0.0f), f32x4_splat(0.0f)};
    } else {
        x->va = wide__gather(body, k->a, offsetof(physics__rigid_body, v));
        x->wa = wide__gather(body, k->a, offsetof(physics__rigid_body, w));
    }
    x->vb = wide__gather(body, k->b, offsetof(physics__rigid_body, v));
    x->wb = wide__gather(body, k->b, offsetof(physics__rigid_body, w));
}

static inline __attribute__((always_inline)) void
wide__store(const wide__bodies *x, physics__rigid_body *body, const physics__rigid_block *k)
{
    if (k->write_a) { /* (none against the ground) */
        wide__scatter(body, k->a, offsetof(physics__rigid_body, v), x->va, k->write_a);
        wide__scatter(body, k->a, offsetof(physics__rigid_body, w), x->wa, k->write_a);
    }
    if (k->write_b) {
        wide__scatter(body, k->b, offsetof(physics__rigid_body, v), x->vb, k->write_b);
        wide__scatter(body, k->b, offsetof(physics__rigid_body, w), x->wb, k->write_b);
    }
}

/* The warm start of one block (as rigid__warm_contact; still_a: wide__push). */
static inline __attribute__((always_inline)) void
wide__warm_block(physics__rigid_block *k, physics__rigid_body *body, bool still_a)
{
    wide__bodies x;
    wide__load(&x, body, k);
    const v3x4 n = w3_load(&k->normal);
    for (uint32_t q = 0; q < k->count; q++)
        wide__push(&x, k, &k->p[q].n, &k->ia[q], n, f32x4_load(k->jn[q]), still_a);
    wide__push(&x, k, &k->f1, &k->f1_ia, w3_load(&k->t1), f32x4_load(k->f1j), still_a);
    wide__push(&x, k, &k->f2, &k->f2_ia, w3_load(&k->t2), f32x4_load(k->f2j), still_a);
    const f32x4 tj = f32x4_load(k->twist_j);
    if (!still_a)
        x.wa = v3x4_sub(x.wa, v3x4_scale(w3_load(&k->twist_a), tj));
    x.wb = v3x4_add(x.wb, v3x4_scale(w3_load(&k->twist_b), tj));
    wide__store(&x, body, k);
}

/* One pass of one block (as physics__rigid_solve_contact): mode PHYSICS_WIDE_PUSH, _RELAX or
 * _SETTLE (the normals alone). Inlined into wide__range once per mode and still_a (wide__push),
 * so that each pass keeps only its own arithmetic (a relaxing pass has no soft terms and no
 * anchor; a block against the ground no pushes on the ground). */
static inline __attribute__((always_inline)) void wide__solve_block(physics__rigid_block *k,
                                                                    physics__rigid_body *body,
                                                                    float inv_h, int mode,
                                                                    uint32_t order, bool still_a)
{
    const bool use_bias = mode == PHYSICS_WIDE_PUSH;
    const f32x4 zero = f32x4_splat(0.0f), one = f32x4_splat(1.0f);
    wide__bodies x;
    wide__load(&x, body, k);
    const v3x4 dpa = k->rest_a ? x.va : wide__gather(body, k->a, offsetof(physics__rigid_body, dp)),
               dqa = k->rest_a ? x.va : wide__gather(body, k->a, offsetof(physics__rigid_body, dq)),
               dpb = wide__gather(body, k->b, offsetof(physics__rigid_body, dp)),
               dqb = wide__gather(body, k->b, offsetof(physics__rigid_body, dq));
    const v3x4 n = w3_load(&k->normal);
    const f32x4 moved = v3x4_dot(v3x4_sub(dpb, dpa), n);
    /* The soft contact's terms (when pushing). */
    const f32x4 rate =
        use_bias ? f32x4_mul(f32x4_load(k->mass_scale), f32x4_load(k->bias_rate)) : zero;
    const f32x4 soft_mass = use_bias ? f32x4_load(k->mass_scale) : one;
    const f32x4 soft_impulse = use_bias ? f32x4_load(k->impulse_scale) : zero;
    const f32x4 most_push = f32x4_splat(-WIDE_PUSH_SPEED), vinv_h = f32x4_splat(inv_h);
    f32x4 total = zero, twist_limit = zero;
    /* An impact's lanes take more passes over their normal rows (physics_rigid.c); the other
     * lanes' rows then keep their impulses, as their contacts alone would. */
    const mask32x4 impact = f32x4_greater(f32x4_load(k->impact), zero);
    for (uint32_t pass = 0; pass < k->passes; pass++) {
        for (uint32_t at = 0; at < k->count; at++) {
            /* (a lane of fewer points has rows that push nothing past its last) */
            const uint32_t q = k->passes == 1u ? physics__rigid_point_at(order, k->count, at) : at;
            const wide__point *p = &k->p[q];
            const v3x4 ca = w3_load(&p->n.ca), cb = w3_load(&p->n.cb);
            const f32x4 sep =
                f32x4_sub(f32x4_add(f32x4_add(f32x4_load(p->sep), moved), v3x4_dot(dqb, cb)),
                          v3x4_dot(dqa, ca));
            const mask32x4 apart = f32x4_greater(sep, zero);
            const f32x4 vn =
                f32x4_sub(f32x4_add(v3x4_dot(v3x4_sub(x.vb, x.va), n), v3x4_dot(x.wb, cb)),
                          v3x4_dot(x.wa, ca));
            const f32x4 old = f32x4_load(k->jn[q]);
            f32x4 j;
            if (use_bias) {
                const f32x4 soft_bias = f32x4_max(f32x4_mul(rate, sep), most_push);
                const f32x4 bias = f32x4_pick(apart, f32x4_mul(sep, vinv_h), soft_bias);
                const f32x4 ms = f32x4_pick(apart, one, soft_mass);
                const f32x4 is = f32x4_pick(apart, zero, soft_impulse);
                j = f32x4_max(
                    f32x4_sub(f32x4_sub(old, f32x4_mul(f32x4_load(p->mass),
                                                       f32x4_add(f32x4_mul(ms, vn), bias))),
                              f32x4_mul(is, old)),
                    zero);
            } else {
                /* (the same with mass scale 1 and impulse scale 0: rigid, no push) */
                const f32x4 bias = f32x4_pick(apart, f32x4_mul(sep, vinv_h), zero);
                j = f32x4_max(f32x4_sub(old, f32x4_mul(f32x4_load(p->mass), f32x4_add(vn, bias))),
                              zero);
            }
            if (pass > 0)
                j = f32x4_pick(impact, j, old);
            if (mode == PHYSICS_WIDE_SETTLE) /* (resting points only) */
                j = f32x4_pick(mask32x4_or(apart, impact), old, j);
            const f32x4 applied = f32x4_sub(j, old);
            f32x4_store(k->jn[q], j);
            f32x4_store(k->max_jn[q], f32x4_max(f32x4_load(k->max_jn[q]), applied));
            wide__push(&x, k, &p->n, &k->ia[q], n, applied, still_a);
        }
    }
    if (mode == PHYSICS_WIDE_SETTLE) {
        wide__store(&x, body, k);
        return;
    }
    for (uint32_t q = 0; q < k->count; q++) {
        const f32x4 j = f32x4_load(k->jn[q]);
        total = f32x4_add(total, j);
        twist_limit = f32x4_add(twist_limit, f32x4_mul(f32x4_load(k->p[q].lever), j));
    }
    const f32x4 friction = f32x4_load(k->friction);
    {
        const f32x4 spin = v3x4_dot(n, v3x4_sub(x.wb, x.wa));
        const f32x4 most = f32x4_mul(friction, twist_limit);
        const f32x4 old = f32x4_load(k->twist_j);
        f32x4 j = f32x4_sub(old, f32x4_mul(f32x4_load(k->twist_mass), spin));
        j = f32x4_max(j, f32x4_negate(most));
        j = f32x4_pick(f32x4_greater(j, most), most, j);
        const f32x4 applied = f32x4_sub(j, old);
        f32x4_store(k->twist_j, j);
        if (!still_a)
            x.wa = v3x4_sub(x.wa, v3x4_scale(w3_load(&k->twist_a), applied));
        x.wb = v3x4_add(x.wb, v3x4_scale(w3_load(&k->twist_b), applied));
    }
    const v3x4 t1 = w3_load(&k->t1), t2 = w3_load(&k->t2);
    const f32x4 k11 = f32x4_load(k->k11), k12 = f32x4_load(k->k12), k22 = f32x4_load(k->k22);
    const f32x4 o1 = f32x4_load(k->f1j), o2 = f32x4_load(k->f2j);
    /* The lanes of two moving bodies on more than one point (their second row has a mass), not
     * an impact, whose pushing pass takes the anchor alone, softly (physics__rigid_solve_contact);
     * when all four do, the others' speeds are not needed. */
    mask32x4 soft = f32x4_greater(zero, zero);
    uint32_t soft_lanes = 0;
    if (use_bias && !still_a && k->count > 1u) {
        const f32x4 moves_a = f32x4_pick(f32x4_greater(f32x4_load(k->inv_ma), zero), one, zero),
                    moves_b = f32x4_pick(f32x4_greater(f32x4_load(k->inv_mb), zero), one, zero);
        const mask32x4 points = f32x4_greater(f32x4_load(k->p[1].mass), zero);
        soft = f32x4_greater(
            f32x4_pick(impact, zero, f32x4_pick(points, f32x4_mul(moves_a, moves_b), zero)), zero);
        soft_lanes = mask32x4_bits(soft);
    }
    f32x4 j1 = zero, j2 = zero;
    if (soft_lanes != 0xfu) {
        f32x4 v1 = wide__speed(&x, &k->f1, t1), v2 = wide__speed(&x, &k->f2, t2);
        if (use_bias) { /* the anchor (physics__rigid_solve_contact) */
            v1 = f32x4_add(v1, f32x4_load(k->anchor1));
            v2 = f32x4_add(v2, f32x4_load(k->anchor2));
        }
        j1 = f32x4_sub(o1, f32x4_add(f32x4_mul(k11, v1), f32x4_mul(k12, v2)));
        j2 = f32x4_sub(o2, f32x4_add(f32x4_mul(k12, v1), f32x4_mul(k22, v2)));
    }
    if (soft_lanes) {
        const f32x4 u1 = f32x4_mul(soft_mass, f32x4_load(k->anchor1)),
                    u2 = f32x4_mul(soft_mass, f32x4_load(k->anchor2));
        const f32x4 s1 = f32x4_sub(f32x4_sub(o1, f32x4_add(f32x4_mul(k11, u1), f32x4_mul(k12, u2))),
                                   f32x4_mul(soft_impulse, o1));
        const f32x4 s2 = f32x4_sub(f32x4_sub(o2, f32x4_add(f32x4_mul(k12, u1), f32x4_mul(k22, u2))),
                                   f32x4_mul(soft_impulse, o2));
        j1 = f32x4_pick(soft, s1, j1);
        j2 = f32x4_pick(soft, s2, j2);
    }
    const f32x4 limit = f32x4_mul(friction, total);
    physics__friction_cone(&j1, &j2, limit);
    wide__push(&x, k, &k->f1, &k->f1_ia, t1, f32x4_sub(j1, o1), still_a);
    wide__push(&x, k, &k->f2, &k->f2_ia, t2, f32x4_sub(j2, o2), still_a);
    f32x4_store(k->f1j, j1);
    f32x4_store(k->f2j, j2);
    wide__store(&x, body, k);
}

void physics__rigid_wide_free(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    if (r->block)
        ct_free(s->a, r->block, (size_t)r->cap_blocks * sizeof *r->block);
    if (r->colour_of)
        ct_free(s->a, r->colour_of, (size_t)r->cap_colour_of * sizeof *r->colour_of);
    if (r->used)
        ct_free(s->a, r->used, (size_t)r->cap_used * sizeof *r->used);
    if (r->lanes)
        ct_free(s->a, r->lanes, (size_t)r->cap_lanes * sizeof *r->lanes);
    if (r->slice_lanes)
        ct_free(s->a, r->slice_lanes, (size_t)r->cap_slice_lanes * sizeof *r->slice_lanes);
    if (r->lane_of)
        ct_free(s->a, r->lane_of, (size_t)r->cap_lane_of * sizeof *r->lane_of);
    if (r->overflow_contact)
        ct_free(s->a, r->overflow_contact,
                (size_t)r->cap_overflow_contact * sizeof *r->overflow_contact);
    r->overflow_contact = NULL;
    r->cap_overflow_contact = 0;
    r->lane_of = NULL;
    r->cap_lane_of = 0;
    r->slice_lanes = NULL;
    r->cap_slice_lanes = 0;
    physics__stages_free(&r->stages, s->a);
    r->lanes = NULL;
    r->cap_lanes = 0;
    r->block = NULL;
    r->colour_of = NULL;
    r->used = NULL;
    r->cap_blocks = r->cap_colour_of = r->cap_used = 0;
    r->num_blocks = r->num_overflow = r->num_colours = 0;
}

static inline void wide__v3_set(wide__v3 *w, uint32_t l, physics__v3 v)
{
    w->x[l] = v.x;
    w->y[l] = v.y;
    w->z[l] = v.z;
}

static void wide__row_set(wide__row *w, uint32_t l, const physics__rigid_row *row)
{
    wide__v3_set(&w->ca, l, row->ca);
    wide__v3_set(&w->cb, l, row->cb);
    wide__v3_set(&w->ib, l, row->ib);
}

static void wide__row_zero(wide__row *w, uint32_t l)
{
    wide__v3_set(&w->ca, l, v3(0, 0, 0));
    wide__v3_set(&w->cb, l, v3(0, 0, 0));
    wide__v3_set(&w->ib, l, v3(0, 0, 0));
}

/* Lane l of point q of block k: no row, no impulse. */
static void wide__point_zero(physics__rigid_block *k, uint32_t q, uint32_t l)
{
    wide__point *p = &k->p[q];
    wide__row_zero(&p->n, l);
    wide__v3_set(&k->ia[q], l, v3(0, 0, 0));
    p->mass[l] = p->sep[l] = p->lever[l] = 0.0f;
    k->jn[q][l] = k->max_jn[q][l] = 0.0f;
}

/* Whether body x does not move and its velocities are free of -0 (*still: then pushes of zero
 * leave them as they are, wide__push), and whether they are moreover every bit +0 (*rest: then the
 * passes take +0 for them without loading them, wide__load; the ground under the bodies of
 * convex_vs_mesh). A body that does not move is changed by nothing but pushes of zero (contacts',
 * joints'), which never make a -0 and leave +0 as it is, and its move and turn in a substep, v h
 * and w h, are +0 when v and w are (its move and turn so far are +0 when the contacts are made:
 * rigid__gather_range), so what holds when the contacts are made holds through the step. Read as
 * bits: one pass, no compare of floats. */
static void wide__still(const physics__rigid_body *x, uint8_t *still, uint8_t *rest)
{
    uint32_t bits[6];
    memcpy(bits, &x->v, sizeof x->v);
    memcpy(bits + 3, &x->w, sizeof x->w);
    uint32_t negative_zero = 0, any = 0;
    for (uint32_t i = 0; i < 6; i++) {
        negative_zero |= bits[i] == 0x80000000u;
        any |= bits[i];
    }
    const bool fixed = x->inv_mass == 0.0f;
    *still = fixed && !negative_zero;
    *rest = fixed && any == 0u;
}

/* Contact c's rows into lane l of block k: its points' normal rows, masses, separations and
 * levers, and the friction's rows and mass (what physics__rigid_wide_rows writes again when the
 * anchors turn). */
static void wide__lane_rows(physics__rigid_block *k, uint32_t l, const physics__rigid_contact *c)
{
    for (uint32_t q = 0; q < c->count; q++) {
        wide__row_set(&k->p[q].n, l, &c->p[q].n);
        wide__v3_set(&k->ia[q], l, c->p[q].n.ia);
        k->p[q].mass[l] = c->p[q].n.mass;
        k->p[q].sep[l] = c->p[q].sep;
        k->p[q].lever[l] = c->p[q].lever;
    }
    wide__row_set(&k->f1, l, &c->f1);
    wide__row_set(&k->f2, l, &c->f2);
    wide__v3_set(&k->f1_ia, l, c->f1.ia);
    wide__v3_set(&k->f2_ia, l, c->f2.ia);
    k->k11[l] = c->k11;
    k->k12[l] = c->k12;
    k->k22[l] = c->k22;
}

/* Contact c into lane l of block k: every member of the lane, rows past its points zero (the
 * block's own members, which its lanes share, are set once they are all written: wide__seal). */
static void wide__lane(physics__rigid_block *k, uint32_t l, const physics__rigid *r,
                       const physics__rigid_contact *c)
{
    const physics__rigid_body *A = &r->body[c->a], *B = &r->body[c->b];
    k->a[l] = c->a;
    k->b[l] = c->b;
    k->lane_count[l] = (uint8_t)c->count;
    k->lane_passes[l] = (uint8_t)c->passes;
    wide__still(A, &k->lane_still[l], &k->lane_rest[l]);
    k->impact[l] = c->passes > 1u ? 1.0f : 0.0f;
    k->inv_ma[l] = A->inv_mass;
    k->inv_mb[l] = B->inv_mass;
    wide__v3_set(&k->normal, l, c->normal);
    wide__v3_set(&k->t1, l, c->t1);
    wide__v3_set(&k->t2, l, c->t2);
    wide__lane_rows(k, l, c);
    for (uint32_t q = 0; q < c->count; q++) {
        k->jn[q][l] = c->p[q].n.j;
        k->max_jn[q][l] = c->p[q].max_jn;
    }
    for (uint32_t q = c->count; q < PHYSICS_MANIFOLD_POINTS; q++)
        wide__point_zero(k, q, l);
    k->f1j[l] = c->f1.j;
    k->f2j[l] = c->f2.j;
    wide__v3_set(&k->twist_a, l, c->twist_a);
    wide__v3_set(&k->twist_b, l, c->twist_b);
    k->twist_mass[l] = c->twist_mass;
    k->twist_j[l] = c->twist_j;
    k->friction[l] = c->friction;
    k->bias_rate[l] = c->bias_rate;
    k->mass_scale[l] = c->mass_scale;
    k->impulse_scale[l] = c->impulse_scale;
    k->anchor1[l] = c->anchor1;
    k->anchor2[l] = c->anchor2;
}

void physics__rigid_wide_lane(physics__rigid *r, uint32_t ci, const physics__rigid_contact *c)
{
    const uint32_t at = r->lane_of[ci];
    if (at & PHYSICS_WIDE_OVERFLOW)
        r->overflow_contact[at & ~PHYSICS_WIDE_OVERFLOW] = *c;
    else
        wide__lane(&r->block[at / 4u], at % 4u, r, c);
}

void physics__rigid_wide_rows(physics__rigid *r, uint32_t ci, const physics__rigid_contact *c)
{
    const uint32_t at = r->lane_of[ci];
    if (at & PHYSICS_WIDE_OVERFLOW) {
        physics__rigid_contact *o = &r->overflow_contact[at & ~PHYSICS_WIDE_OVERFLOW];
        for (uint32_t q = 0; q < c->count; q++) {
            const float j = o->p[q].n.j;
            o->p[q].n = c->p[q].n;
            o->p[q].n.j = j;
            o->p[q].sep = c->p[q].sep;
            o->p[q].lever = c->p[q].lever;
        }
        const float j1 = o->f1.j, j2 = o->f2.j;
        o->f1 = c->f1;
        o->f2 = c->f2;
        o->f1.j = j1;
        o->f2.j = j2;
        o->k11 = c->k11;
        o->k12 = c->k12;
        o->k22 = c->k22;
    } else {
        wide__lane_rows(&r->block[at / 4u], at % 4u, c);
    }
}

/* A padding lane: no mass, no impulse; it reads body 0 and writes nothing. Its points are zero
 * as far as the block's lanes have any (the passes read no further). */
static void wide__pad(physics__rigid_block *k, uint32_t l)
{
    k->a[l] = k->b[l] = 0;
    k->lane_count[l] = k->lane_passes[l] = 0;
    for (uint32_t q = 0; q < k->count; q++)
        wide__point_zero(k, q, l);
    k->impact[l] = k->inv_ma[l] = k->inv_mb[l] = 0.0f;
    wide__v3_set(&k->normal, l, v3(0, 0, 0));
    wide__v3_set(&k->t1, l, v3(0, 0, 0));
    wide__v3_set(&k->t2, l, v3(0, 0, 0));
    wide__row_zero(&k->f1, l);
    wide__row_zero(&k->f2, l);
    wide__v3_set(&k->f1_ia, l, v3(0, 0, 0));
    wide__v3_set(&k->f2_ia, l, v3(0, 0, 0));
    k->f1j[l] = k->f2j[l] = 0.0f;
    k->k11[l] = k->k12[l] = k->k22[l] = 0.0f;
    wide__v3_set(&k->twist_a, l, v3(0, 0, 0));
    wide__v3_set(&k->twist_b, l, v3(0, 0, 0));
    k->twist_mass[l] = k->twist_j[l] = k->friction[l] = 0.0f;
    k->bias_rate[l] = k->mass_scale[l] = k->impulse_scale[l] = 0.0f;
    k->anchor1[l] = k->anchor2[l] = 0.0f;
}

/* The first block of colour c whose first lane is a contact of slice t of SOLVER_SLICE_PAIRS or
 * a later one (the colour's end past the last slice): the colours' jobs go by slice of contacts,
 * not by count of blocks. The threads take each stage's jobs from its two ends
 * (physics_stages.c), so a thread's part of every stage is then about the same slices: the
 * contacts it made (rigid__contact_range) and wrote the lanes of, and in every colour and pass
 * the blocks of those contacts, whose bodies are about those of its slices. Cut by count of
 * blocks, the threads met at the middle of each colour's blocks, which is not the middle of the
 * contacts when a colour's contacts are spread unevenly over the slices, nor that of the other
 * colours; and the sealing, cut over the whole block array, gave the first colours to one thread
 * and the last to the other: block lines and body velocities written by one core were read by
 * the other at the next stage. */
static inline uint32_t wide__cut(const physics__rigid *r, uint32_t c, uint32_t t)
{
    const uint32_t slices = physics__pair_slices(r->num_contacts);
    return t < slices ? (r->slice_lanes[(size_t)t * WIDE_COLOURS + c] + 3u) / 4u
                      : r->colour_start[c + 1];
}

/* Blocks [first, last) once their contacts' lanes are written: what the block's lanes share (the
 * most points and passes; which lanes' bodies move: bodies that do not move, static, kinematic,
 * asleep, are read, never written, so any number of lanes and threads may read them; whether all
 * bodies a are still), then padding lanes. A padding lane's arithmetic is its
 * own and never written: its body a does not count. */
static void wide__seal_blocks(physics__rigid *r, uint32_t first, uint32_t last)
{
    for (uint32_t k = first; k < last; k++) {
        physics__rigid_block *blk = &r->block[k];
        blk->count = blk->write_a = blk->write_b = 0;
        blk->passes = 0;
        blk->still_a = blk->rest_a = 1;
        for (uint32_t l = 0; l < 4; l++) {
            if (r->lanes[4 * k + l] == UINT32_MAX)
                continue;
            blk->write_a |= blk->inv_ma[l] > 0.0f ? 1u << l : 0u;
            blk->write_b |= blk->inv_mb[l] > 0.0f ? 1u << l : 0u;
            blk->still_a &= blk->lane_still[l];
            blk->rest_a &= blk->lane_rest[l];
            if (blk->lane_count[l] > blk->count)
                blk->count = blk->lane_count[l];
            if (blk->lane_passes[l] > blk->passes)
                blk->passes = blk->lane_passes[l];
        }
        for (uint32_t l = 0; l < 4; l++)
            if (r->lanes[4 * k + l] == UINT32_MAX)
                wide__pad(blk, l);
    }
}

/* The blocks of slices [begin, end) of contacts (wide__cut), in every colour. */
static void wide__seal_range(void *user, uint32_t begin, uint32_t end)
{
    physics__rigid *r = user;
    for (uint32_t c = 0; c < r->num_colours; c++)
        wide__seal_blocks(r, wide__cut(r, c, begin), wide__cut(r, c, end));
}

/* The solver's impulses back into the contacts of slices [begin, end) of SOLVER_SLICE_PAIRS
 * (each from its lane, or the overflow's contact). By contact, not by block: a block's lanes are
 * contacts from all over the step, so finishing the blocks on two threads wrote each core's
 * impulses into the lines of contacts the other core had made, merges (physics_rigid.c) and makes
 * again next step; by slices of contacts each core writes about the ones it made, from the blocks
 * it solved (each colour's lanes go by slice too: r->slice_lanes). */
static void wide__finish_range(void *user, uint32_t begin, uint32_t end)
{
    physics__rigid *r = user;
    const uint32_t last =
        end * SOLVER_SLICE_PAIRS < r->num_contacts ? end * SOLVER_SLICE_PAIRS : r->num_contacts;
    for (uint32_t k = begin * SOLVER_SLICE_PAIRS; k < last; k++) {
        physics__rigid_kept *c = &r->contact[k];
        const uint32_t at = r->lane_of[k];
        if (at & PHYSICS_WIDE_OVERFLOW) {
            const physics__rigid_contact *o = &r->overflow_contact[at & ~PHYSICS_WIDE_OVERFLOW];
            for (uint32_t q = 0; q < c->count; q++) {
                c->p[q].jn = o->p[q].n.j;
                c->p[q].max_jn = o->p[q].max_jn;
            }
            c->f1 = o->f1.j;
            c->f2 = o->f2.j;
            c->twist = o->twist_j;
            continue;
        }
        const physics__rigid_block *blk = &r->block[at / 4u];
        const uint32_t l = at % 4u;
        for (uint32_t q = 0; q < c->count; q++) {
            c->p[q].jn = blk->jn[q][l];
            c->p[q].max_jn = blk->max_jn[q][l];
        }
        c->f1 = blk->f1j[l];
        c->f2 = blk->f2j[l];
        c->twist = blk->twist_j[l];
    }
}

/* The lanes of the contacts of slices [begin, end) of SOLVER_SLICE_PAIRS, each from where its
 * colours' lanes begin (r->slice_lanes). */
static void wide__lanes_range(void *user, uint32_t begin, uint32_t end)
{
    physics__rigid *r = user;
    for (uint32_t t = begin; t < end; t++) {
        uint32_t fill[WIDE_COLOURS];
        memcpy(fill, r->slice_lanes + (size_t)t * WIDE_COLOURS, sizeof fill);
        const uint32_t last = (t + 1) * SOLVER_SLICE_PAIRS < r->num_contacts
                                  ? (t + 1) * SOLVER_SLICE_PAIRS
                                  : r->num_contacts;
        for (uint32_t k = t * SOLVER_SLICE_PAIRS; k < last; k++) {
            const uint32_t colour = r->colour_of[k];
            if (colour < WIDE_COLOURS) {
                r->lane_of[k] = fill[colour];
                r->lanes[fill[colour]++] = k;
            }
        }
    }
}

/* Room for the colouring of n contacts (before physics__rigid_wide_colour). */
int physics__rigid_wide_reserve(physics__scene *s, uint32_t n)
{
    physics__rigid *r = &s->rigid;
    const uint32_t bodies = s->bodies.n;
    const uint32_t slices = physics__pair_slices(n);
    if (physics__reserve(s->a, (void **)&r->colour_of, &r->cap_colour_of, n + 1,
                         sizeof *r->colour_of) ||
        physics__reserve(s->a, (void **)&r->lane_of, &r->cap_lane_of, n + 1, sizeof *r->lane_of) ||
        physics__reserve(s->a, (void **)&r->used, &r->cap_used, bodies + 1, sizeof *r->used) ||
        physics__reserve(s->a, (void **)&r->slice_lanes, &r->cap_slice_lanes,
                         slices * WIDE_COLOURS + 1, sizeof *r->slice_lanes))
        return CT_ERR_NOMEM;
    return 0;
}

/* Colours the n contacts of the m sorted pairs (each pair's kept manifolds, r->made, in order):
 * each depends on those before it, so one thread does it all, beside the jobs that gather the
 * bodies' solver state (physics_rigid.c): it reads only the pairs and the bodies' own arrays
 * (whether each moves: physics__inv_mass, as the gathering's), never the solver state. */
void physics__rigid_wide_colour(physics__scene *s, const physics__keyed_pair *order, uint32_t m,
                                uint32_t n)
{
    physics__rigid *r = &s->rigid;
    const uint32_t bodies = s->bodies.n;
    const uint32_t slices = physics__pair_slices(n);
    uint64_t *used = r->used;
    memset(used, 0, (size_t)(bodies + 1) * sizeof *used);
    if (slices)
        memset(r->slice_lanes, 0, (size_t)slices * WIDE_COLOURS * sizeof *r->slice_lanes);
    r->num_overflow = 0;
    /* The colours a body is used in are the bits of its word: the first colour free in both
     * moving bodies is the lowest bit clear in their union (WIDE_COLOURS when all are taken,
     * since no higher bit is ever set), found in one step instead of a test per colour. A body
     * that does not move (static, kinematic, asleep) is the spare body past the last, whose word
     * is cleared again after each use. Each slice's contacts are counted per colour on the way. */
    _Static_assert(WIDE_COLOURS < 64, "a body's colours are bits of a uint64_t");
    uint32_t k = 0;
    for (uint32_t pk = 0; pk < m; pk++) {
        const uint32_t made = r->made[pk] & 15u;
        if (!made)
            continue;
        const uint32_t a = physics__inv_mass(&s->bodies, order[pk].a) > 0.0f ? order[pk].a : bodies;
        const uint32_t b = physics__inv_mass(&s->bodies, order[pk].b) > 0.0f ? order[pk].b : bodies;
        for (uint32_t sub = 0; sub < made; sub++, k++) {
            const uint32_t colour = (uint32_t)__builtin_ctzll(~(used[a] | used[b]));
            r->colour_of[k] = colour;
            if (colour < WIDE_COLOURS) {
                used[a] |= 1ull << colour;
                used[b] |= 1ull << colour;
                used[bodies] = 0;
                r->slice_lanes[(size_t)(k / SOLVER_SLICE_PAIRS) * WIDE_COLOURS + colour]++;
            } else {
                r->lane_of[k] = PHYSICS_WIDE_OVERFLOW | r->num_overflow++;
            }
        }
    }
}

/* After the colouring: the colours' blocks, and the stages that fill them added to r->stages
 * (the lanes a slice of contacts a job, then the blocks). */
int physics__rigid_wide_prepare(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    const uint32_t n = r->num_contacts;
    const uint32_t slices = physics__pair_slices(n);
    uint32_t blocks = 0, colours = 0, total_of[WIDE_COLOURS];
    for (uint32_t c = 0; c < WIDE_COLOURS; c++) {
        r->colour_start[c] = blocks;
        /* Each slice's count of the colour becomes where its lanes begin. */
        uint32_t total = 0;
        for (uint32_t t = 0; t < slices; t++) {
            uint32_t *at = &r->slice_lanes[(size_t)t * WIDE_COLOURS + c];
            const uint32_t count = *at;
            *at = 4 * blocks + total;
            total += count;
        }
        total_of[c] = total;
        blocks += (total + 3u) / 4u;
        if (total)
            colours = c + 1;
    }
    r->colour_start[WIDE_COLOURS] = blocks;
    r->num_colours = colours;
    r->num_blocks = blocks;
    if (physics__reserve(s->a, (void **)&r->block, &r->cap_blocks, blocks + 1, sizeof *r->block) ||
        physics__reserve(s->a, (void **)&r->overflow_contact, &r->cap_overflow_contact,
                         r->num_overflow + 1, sizeof *r->overflow_contact) ||
        physics__reserve(s->a, (void **)&r->lanes, &r->cap_lanes, 4 * blocks + 1, sizeof *r->lanes))
        return CT_ERR_NOMEM;
    /* A colour's padding lanes (past its contacts, to its last block's end): none. */
    for (uint32_t c = 0; c < WIDE_COLOURS; c++)
        for (uint32_t at = 4 * r->colour_start[c] + total_of[c]; at % 4u; at++)
            r->lanes[at] = UINT32_MAX;
    physics__stages_add(&r->stages, s->a, wide__lanes_range, r, 0, slices, 1);
    return 0;
}

void physics__rigid_wide_seal(physics__scene *s)
{
    physics__rigid *r = &s->rigid;
    physics__stages_add(&r->stages, s->a, wide__seal_range, r, 0,
                        physics__pair_slices(r->num_contacts), 1);
}

typedef struct wide__job {
    physics__rigid *r;
    uint32_t colour;
    float inv_h;
    int mode;       /* PHYSICS_WIDE_WARM, _PUSH, _RELAX or _SETTLE */
    uint32_t order; /* the order of a resting manifold's points (physics__rigid_point_at) */
} wide__job;

static void wide__range(void *user, uint32_t begin, uint32_t end)
{
    const wide__job *job = user;
    const uint32_t from = wide__cut(job->r, job->colour, begin),
                   to = wide__cut(job->r, job->colour, end);
    physics__rigid_block *block = job->r->block;
    physics__rigid_body *body = job->r->body;
    switch (job->mode) {
    case PHYSICS_WIDE_WARM:
        for (uint32_t k = from; k < to; k++)
            if (block[k].still_a)
                wide__warm_block(&block[k], body, true);
            else
                wide__warm_block(&block[k], body, false);
        break;
    case PHYSICS_WIDE_PUSH:
        for (uint32_t k = from; k < to; k++)
            if (block[k].still_a)
                wide__solve_block(&block[k], body, job->inv_h, PHYSICS_WIDE_PUSH, job->order, true);
            else
                wide__solve_block(&block[k], body, job->inv_h, PHYSICS_WIDE_PUSH, job->order,
                                  false);
        break;
    case PHYSICS_WIDE_RELAX:
        for (uint32_t k = from; k < to; k++)
            if (block[k].still_a)
                wide__solve_block(&block[k], body, job->inv_h, PHYSICS_WIDE_RELAX, job->order,
                                  true);
            else
                wide__solve_block(&block[k], body, job->inv_h, PHYSICS_WIDE_RELAX, job->order,
                                  false);
        break;
    default:
        for (uint32_t k = from; k < to; k++)
            if (block[k].still_a)
                wide__solve_block(&block[k], body, job->inv_h, PHYSICS_WIDE_SETTLE, job->order,
                                  true);
            else
                wide__solve_block(&block[k], body, job->inv_h, PHYSICS_WIDE_SETTLE, job->order,
                                  false);
        break;
    }
}

/* The contacts that found no colour, one by one (one thread). */
static void wide__overflow_range(void *user, uint32_t begin, uint32_t end)
{
    (void)begin;
    (void)end;
    const wide__job *job = user;
    physics__rigid *r = job->r;
    for (uint32_t k = 0; k < r->num_overflow; k++) {
        physics__rigid_contact *c = &r->overflow_contact[k];
        if (job->mode == PHYSICS_WIDE_WARM)
            physics__rigid_warm_contact(c, &r->body[c->a], &r->body[c->b]);
        else
            physics__rigid_solve_contact(c, &r->body[c->a], &r->body[c->b], job->inv_h, job->mode,
                                         job->order);
    }
}

/* The overflow first, then the colours in order, a stage each of jobs of slices of contacts
 * (wide__cut); a colour of fewer than WIDE_POOLED blocks is one item (one thread).
 * PHYSICS_WIDE_SETTLE goes the other way: the colours last to first, then the overflow. */
void physics__rigid_wide_pass(physics__scene *s, int mode, float inv_h, uint32_t order)
{
    physics__rigid *r = &s->rigid;
    const wide__job overflow = {r, 0, inv_h, mode, order};
    const uint32_t slices = physics__pair_slices(r->num_contacts);
    const bool back = mode == PHYSICS_WIDE_SETTLE;
    if (r->num_overflow && !back)
        physics__stages_add(&r->stages, s->a, wide__overflow_range, (void *)&overflow,
                            sizeof overflow, 1, 0);
    for (uint32_t at = 0; at < r->num_colours; at++) {
        const uint32_t c = back ? r->num_colours - 1u - at : at;
        const wide__job job = {r, c, inv_h, mode, order};
        const uint32_t blocks = r->colour_start[c + 1] - r->colour_start[c];
        physics__stages_add(&r->stages, s->a, wide__range, (void *)&job, sizeof job, slices,
                            blocks >= WIDE_POOLED ? (slices * WIDE_SLICE + blocks - 1) / blocks
                                                  : 0u);
    }
    if (r->num_overflow && back)
        physics__stages_add(&r->stages, s->a, wide__overflow_range, (void *)&overflow,
                            sizeof overflow, 1, 0);
}

void physics__rigid_wide_finish(physics__scene *s)
{
    const physics__rigid *r = &s->rigid;
    physics__stages_add(&s->rigid.stages, s->a, wide__finish_range, &s->rigid, 0,
                        physics__pair_slices(r->num_contacts), 1);
}
