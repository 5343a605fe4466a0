/* The physics core without a kernel: broadphase against brute force, motion against closed
 * forms, conservation in collisions, a resting stack, event streams, determinism, bad data.
 * Every test that steps a scene runs twice, serially and on a two-thread pool (the kernel's job
 * service, the one piece of the kernel linked in), and one test checks that both give the same
 * bits; the build on the plain C lanes (test_physics_core_portable) runs them serially. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"

#include <stdlib.h>
#include <string.h>

static ct_body_desc_t box_desc(float x, float y, float z, float h, ct_body_kind kind)
{
    return (ct_body_desc_t){.kind = kind,
                            .shape = CT_BODY_BOX,
                            .half_extents = {h, h, h},
                            .mass = 1.0f,
                            .friction = 0.5f,
                            .position = {x, y, z}};
}

static ct_body_desc_t sphere_desc(float x, float y, float z, float r, float mass, float e)
{
    return (ct_body_desc_t){.kind = CT_BODY_DYNAMIC,
                            .shape = CT_BODY_SPHERE,
                            .radius = r,
                            .mass = mass,
                            .restitution = e,
                            .position = {x, y, z}};
}

/* Entity id added to s as the body d (the v1-v3 desc: the fixture's add takes a rigid one). */
static void put(physics__scene *s, uint32_t id, ct_body_desc_t d)
{
    assert_int_equal(physics__bodies_add(&s->bodies, (ct_entity_t){id}, &d), 0);
}

static physics__v3 pos(const physics__scene *s, uint32_t id)
{
    const uint32_t i = physics__bodies_find(&s->bodies, (ct_entity_t){id});
    assert_int_not_equal(i, UINT32_MAX);
    return s->bodies.position[i];
}

static physics__v3 vel(const physics__scene *s, uint32_t id)
{
    return s->bodies.velocity[physics__bodies_find(&s->bodies, (ct_entity_t){id})];
}

/* ---- map ---------------------------------------------------------------------------------- */

static void test_map_matches_array(void **state)
{
    (void)state;
    physics__map m = {.a = &alloc.base};
    enum { N = 4096 };
    static uint32_t ref[N];
    for (uint32_t i = 0; i < N; i++)
        ref[i] = UINT32_MAX;
    for (uint32_t round = 0; round < 20000; round++) {
        const uint32_t k = (uint32_t)frand(0, N) % N;
        if (frand(0, 1) < 0.6f) {
            assert_int_equal(physics__map_reserve(&m, m.count + 1), 0);
            *physics__map_upsert(&m, k, 0) = round;
            ref[k] = round;
        } else {
            physics__map_remove(&m, k);
            ref[k] = UINT32_MAX;
        }
    }
    for (uint32_t k = 0; k < N; k++)
        assert_int_equal(physics__map_get(&m, k), ref[k]);
    physics__map_free(&m);
}

/* ---- broadphase vs brute force ------------------------------------------------------------ */

static int cmp_pair(const void *x, const void *y)
{
    const physics__pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static bool aabb_overlap(physics__v3 alo, physics__v3 ahi, physics__v3 blo, physics__v3 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z &&
           blo.z <= ahi.z;
}

/* Builds the grid over bp's boxes and compares its pairs and box queries with brute force. */
static void check_broadphase(physics__broadphase *bp, float cell, float world)
{
    const uint32_t n = bp->n;
    assert_int_equal(physics__broadphase_build(bp, cell), 0);
    assert_int_equal(physics__broadphase_pairs(bp), 0);

    physics__pair *brute = malloc(sizeof *brute * n * n / 2 + sizeof *brute);
    uint32_t nb = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if ((bp->moving[i] || bp->moving[j]) &&
                aabb_overlap(bp->lo[i], bp->hi[i], bp->lo[j], bp->hi[j]))
                brute[nb++] = (physics__pair){i, j};
    if (bp->num_pairs > 1)
        qsort(bp->pairs, bp->num_pairs, sizeof *bp->pairs, cmp_pair);
    assert_int_equal(bp->num_pairs, nb);
    if (nb)
        assert_memory_equal(bp->pairs, brute, nb * sizeof *brute);
    free(brute);

    for (int q = 0; q < 40; q++) {
        const physics__v3 c = v3(frand(-world, world), frand(-world, world), frand(-world, world));
        const float r = q == 39 ? 4.0f * world : frand(0.1f, 4.0f);
        const physics__v3 lo = v3_sub(c, v3(r, r, r)), hi = v3_add(c, v3(r, r, r));
        assert_int_equal(physics__broadphase_overlap(bp, lo, hi), 0);
        if (bp->num_found > 1)
            qsort(bp->found, bp->num_found, sizeof *bp->found, physics__cmp_u32);
        uint32_t expect = 0;
        for (uint32_t i = 0; i < n; i++)
            if (aabb_overlap(lo, hi, bp->lo[i], bp->hi[i])) {
                assert_true(expect < bp->num_found);
                assert_int_equal(bp->found[expect], i);
                expect++;
            }
        assert_int_equal(bp->num_found, expect);
    }
}

static void test_broadphase_matches_brute_force(void **state)
{
    (void)state;
    for (int scene = 0; scene < 6; scene++) {
        physics__broadphase bp = {.a = &alloc.base, .pool = pool};
        const uint32_t n = 300 + 150 * (uint32_t)scene;
        const float world = 10.0f + 5.0f * (float)scene;
        assert_int_equal(physics__broadphase_resize(&bp, n), 0);
        for (uint32_t i = 0; i < n; i++) {
            const physics__v3 c =
                v3(frand(-world, world), frand(-world, world), frand(-world, world));
            /* Mostly small boxes, a few huge ones (they take the "large" path), some flat. */
            const float big = (i % 97 == 0) ? 20.0f : 1.0f;
            const physics__v3 h =
                v3(frand(0.05f, 1.0f) * big, frand(0.05f, 1.0f), frand(0.05f, 1.0f) * big);
            bp.lo[i] = v3_sub(c, h);
            bp.hi[i] = v3_add(c, h);
            bp.moving[i] = (i % 5) != 0;
        }
        check_broadphase(&bp, scene % 2 ? 0.0f : 1.5f, world);
        assert_true(bp.num_large > 0);
        physics__broadphase_free(&bp);
    }
}

/* Many large boxes (walls and slabs among small debris): they go into a coarse grid of their
 * own, and pairs, box queries and rays still match brute force. */
static void test_broadphase_many_large_boxes(void **state)
{
    (void)state;
    physics__broadphase bp = {.a = &alloc.base, .pool = pool};
    const uint32_t n = 3000;
    const float world = 40.0f;
    assert_int_equal(physics__broadphase_resize(&bp, n), 0);
    for (uint32_t i = 0; i < n; i++) {
        const physics__v3 c = v3(frand(-world, world), frand(-world, world), frand(-world, world));
        const bool large = i % 20 == 0;
        const physics__v3 h = large ? v3(frand(5, 15), frand(0.2f, 2), frand(5, 15))
                                    : v3(frand(0.1f, 0.5f), frand(0.1f, 0.5f), frand(0.1f, 0.5f));
        bp.lo[i] = v3_sub(c, h);
        bp.hi[i] = v3_add(c, h);
        bp.moving[i] = (i % 3) != 0;
    }
    check_broadphase(&bp, 0.0f, world);
    assert_true(bp.num_large > 64);
    assert_true(bp.coarse_used);
    physics__broadphase_free(&bp);

    /* The same through a scene, where they are statics in the fixed grid: rays and spheres. */
    physics__scene s;
    scene_init(&s);
    for (uint32_t id = 1; id <= 1500; id++) {
        const float x = frand(-world, world), y = frand(-world, world), z = frand(-world, world);
        if (id % 20 == 0)
            put(&s, id,
                (ct_body_desc_t){.kind = CT_BODY_STATIC,
                                 .shape = CT_BODY_BOX,
                                 .half_extents = {frand(25, 35), 0.3f, frand(25, 35)},
                                 .position = {x, y, z}});
        else
            put(&s, id, box_desc(x, y, z, frand(0.1f, 0.5f), CT_BODY_STATIC));
    }
    ct_entity_t out[2048];
    for (int q = 0; q < 100; q++) {
        const physics__v3 o = v3(frand(-world, world), frand(-world, world), frand(-world, world));
        const physics__v3 d = v3(frand(-1, 1), frand(-1, 1), frand(-1, 1)),
                          dn = v3_scale(d, 1.0f / v3_len(d));
        ct_physics_hit_t hit;
        const bool got = physics__scene_raycast(&s, o, d, 50.0f, UINT32_MAX, &hit);
        float best = INFINITY;
        for (uint32_t i = 0; i < s.bodies.n; i++) {
            physics__v3 nn;
            best = fminf(best, physics__ray_body(&s.bodies, i, o, dn, &nn));
        }
        assert_int_equal(got, best <= 50.0f);
        if (got)
            assert_float_equal(hit.distance, best, 1e-4f);
        const float r = frand(0.5f, 6.0f);
        uint32_t expect = 0;
        for (uint32_t i = 0; i < s.bodies.n; i++)
            expect += physics__sphere_overlaps_body(&s.bodies, i, o, r);
        assert_int_equal(physics__scene_overlap_sphere(&s, o, r, UINT32_MAX, out, 2048), expect);
    }
    assert_true(s.fixed.coarse_used);
    physics__scene_free(&s);
}

/* Few boxes spanning many cells each: the grid has a couple of buckets per box, so distinct cells
 * share buckets and one box sits in a bucket several times. Each pair still comes out once. */
static void test_broadphase_crowded_buckets(void **state)
{
    (void)state;
    physics__broadphase bp = {.a = &alloc.base, .pool = pool};
    const uint32_t n = 40;
    const float world = 3.0f;
    assert_int_equal(physics__broadphase_resize(&bp, n), 0);
    for (uint32_t i = 0; i < n; i++) {
        const physics__v3 c = v3(frand(-world, world), frand(-world, world), frand(-world, world));
        const physics__v3 h = v3(frand(0.2f, 0.7f), frand(0.2f, 0.7f), frand(0.2f, 0.7f));
        bp.lo[i] = v3_sub(c, h);
        bp.hi[i] = v3_add(c, h);
        bp.moving[i] = 1;
    }
    check_broadphase(&bp, 0.5f, world);
    assert_int_equal(bp.num_large, 0);
    assert_false(bp.dense);
    assert_true(bp.num_items > 4 * bp.num_buckets);
    physics__broadphase_free(&bp);
}

/* A packed block: its bounds hold fewer cells than two per box, so every cell gets a bucket of
 * its own. Queries also start far outside the block, where the grid has no cells at all. */
static void test_broadphase_dense_grid(void **state)
{
    (void)state;
    physics__broadphase bp = {.a = &alloc.base, .pool = pool};
    const uint32_t n = 600;
    const float block = 4.0f;
    assert_int_equal(physics__broadphase_resize(&bp, n), 0);
    for (uint32_t i = 0; i < n; i++) {
        const physics__v3 c = v3(frand(-block, block), frand(-block, block), frand(-block, block));
        const physics__v3 h = v3(frand(0.2f, 0.6f), frand(0.2f, 0.6f), frand(0.2f, 0.6f));
        bp.lo[i] = v3_sub(c, h);
        bp.hi[i] = v3_add(c, h);
        bp.moving[i] = (i % 7) != 0;
    }
    check_broadphase(&bp, 0.0f, 3.0f * block);
    assert_true(bp.dense);
    assert_int_equal(bp.num_buckets,
                     (uint32_t)(bp.cells_hi.x - bp.cells_lo.x + 1) * bp.dim_y * bp.dim_z);
    physics__broadphase_free(&bp);
}

static void test_scene_queries_match_brute_force(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    for (uint32_t id = 1; id <= 800; id++) {
        const float x = frand(-20, 20), y = frand(-20, 20), z = frand(-20, 20);
        put(&s, id,
            id % 3 ? box_desc(x, y, z, frand(0.1f, 1.0f), CT_BODY_STATIC)
                   : sphere_desc(x, y, z, frand(0.1f, 1.0f), 1.0f, 0.0f));
    }
    put(&s, 9999,
        (ct_body_desc_t){.kind = CT_BODY_STATIC,
                         .shape = CT_BODY_BOX,
                         .half_extents = {30, 0.5f, 30},
                         .position = {0, -21, 0}});
    ct_entity_t out[1024];
    for (int q = 0; q < 100; q++) {
        const physics__v3 c = v3(frand(-22, 22), frand(-22, 22), frand(-22, 22));
        const float r = frand(0.1f, 5.0f);
        const uint32_t n = physics__scene_overlap_sphere(&s, c, r, UINT32_MAX, out, 1024);
        uint32_t expect = 0;
        for (uint32_t i = 0; i < s.bodies.n; i++)
            expect += physics__sphere_overlaps_body(&s.bodies, i, c, r);
        assert_int_equal(n, expect);
        for (uint32_t k = 0; k < n; k++) {
            assert_true(physics__sphere_overlaps_body(
                &s.bodies, physics__bodies_find(&s.bodies, out[k]), c, r));
            if (k)
                assert_true(out[k - 1].id < out[k].id);
        }
    }
    for (int q = 0; q < 200; q++) {
        const physics__v3 o = v3(frand(-25, 25), frand(-25, 25), frand(-25, 25));
        physics__v3 d = v3(frand(-1, 1), frand(-1, 1), frand(-1, 1));
        if (q % 10 == 0)
            d = v3(0, -1, 0); /* axis-aligned rays take the zero-component paths */
        const float max_t = frand(1, 60);
        ct_physics_hit_t hit;
        const bool got = physics__scene_raycast(&s, o, d, max_t, UINT32_MAX, &hit);
        const physics__v3 dn = v3_scale(d, 1.0f / v3_len(d));
        float best = INFINITY;
        uint32_t best_id = 0;
        for (uint32_t i = 0; i < s.bodies.n; i++) {
            physics__v3 n;
            const float t = physics__ray_body(&s.bodies, i, o, dn, &n);
            if (t <= max_t && t < best)
                best = t, best_id = s.bodies.entity[i].id;
        }
        assert_int_equal(got, best_id != 0);
        if (got) {
            assert_float_equal(hit.distance, best, 1e-5f);
            assert_int_equal(hit.entity, best_id);
        }
    }
    physics__scene_free(&s);
}

/* ---- motion and collisions ---------------------------------------------------------------- */

static void test_projectile_follows_closed_form(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ct_body_desc_t d = sphere_desc(0, 10, 0, 0.1f, 2.0f, 0.0f);
    d.velocity[0] = 3.0f;
    d.velocity[1] = 5.0f;
    put(&s, 1, d);
    const float dt = 1.0f / 120.0f, g = 9.81f;
    const int steps = 120;
    for (int k = 0; k < steps; k++)
        assert_int_equal(physics__scene_step(&s, dt), 0);
    const float t = dt * steps;
    const physics__v3 p = pos(&s, 1);
    /* Semi-implicit Euler lands exactly on the sum x0 + v0 t - g dt^2 n(n+1)/2 ... */
    assert_float_equal(p.x, 3.0f * t, 1e-4f);
    assert_float_equal(p.y, 10.0f + 5.0f * t - g * dt * dt * steps * (steps + 1) / 2.0f, 1e-3f);
    /* ... which is the parabola to within g dt t / 2. */
    assert_float_equal(p.y, 10.0f + 5.0f * t - 0.5f * g * t * t, 0.5f * g * dt * t + 1e-3f);
    assert_float_equal(vel(&s, 1).y, 5.0f - g * t, 1e-4f);
    assert_int_equal(s.events.size, 0);
    physics__scene_free(&s);
}

/* Two spheres meet head on without gravity; returns the velocities afterwards. */
static void collide_spheres(float m1, float m2, float e, float v1, float v2, float *out1,
                            float *out2)
{
    physics__scene s;
    scene_init(&s);
    s.gravity = v3(0, 0, 0);
    ct_body_desc_t a = sphere_desc(-2, 0, 0, 0.5f, m1, e), b = sphere_desc(2, 0, 0, 0.5f, m2, e);
    a.velocity[0] = v1;
    b.velocity[0] = v2;
    put(&s, 1, a);
    put(&s, 2, b);
    uint32_t collisions = 0;
    for (int k = 0; k < 120; k++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        uint32_t at = 0;
        for (const ct_physics_event_header_t *h;
             (h = ct_physics_event_next(s.events.bytes, s.events.size, &at));)
            collisions += h->type == CT_PHYSICS_EVENT_COLLISION;
    }
    assert_int_equal(collisions, 1);
    *out1 = vel(&s, 1).x;
    *out2 = vel(&s, 2).x;
    assert_float_equal(vel(&s, 1).y, 0.0f, 1e-6f);
    physics__scene_free(&s);
}

static void test_elastic_collision_conserves_momentum_and_energy(void **state)
{
    (void)state;
    const float m[][2] = {{1, 1}, {1, 3}, {5, 2}};
    for (int k = 0; k < 3; k++) {
        const float m1 = m[k][0], m2 = m[k][1], v1 = 4.0f, v2 = -3.0f;
        float u1, u2;
        collide_spheres(m1, m2, 1.0f, v1, v2, &u1, &u2);
        assert_float_equal(m1 * u1 + m2 * u2, m1 * v1 + m2 * v2, 1e-4f);
        assert_float_equal(m1 * u1 * u1 + m2 * u2 * u2, m1 * v1 * v1 + m2 * v2 * v2, 1e-3f);
        /* The closed form of a 1D elastic collision. */
        assert_float_equal(u1, ((m1 - m2) * v1 + 2 * m2 * v2) / (m1 + m2), 1e-4f);
    }
}

static void test_inelastic_collision_conserves_momentum(void **state)
{
    (void)state;
    const float m1 = 2.0f, m2 = 1.0f, v1 = 3.0f, v2 = -3.0f;
    float u1, u2;
    collide_spheres(m1, m2, 0.0f, v1, v2, &u1, &u2);
    assert_float_equal(m1 * u1 + m2 * u2, m1 * v1 + m2 * v2, 1e-4f);
    assert_float_equal(u1, u2, 1e-4f); /* they move on together */
    assert_true(m1 * u1 * u1 + m2 * u2 * u2 < m1 * v1 * v1 + m2 * v2 * v2);
}

static void ground(physics__scene *s, uint32_t id)
{
    put(s, id,
        (ct_body_desc_t){.kind = CT_BODY_STATIC,
                         .shape = CT_BODY_BOX,
                         .half_extents = {50, 0.5f, 50},
                         .friction = 0.5f,
                         .position = {0, -0.5f, 0}});
}

static void test_box_stack_rests(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 100);
    enum { LEVELS = 10 };
    for (uint32_t k = 0; k < LEVELS; k++)
        put(&s, k + 1, box_desc(0, 0.5f + (float)k, 0, 0.5f, CT_BODY_DYNAMIC));
    float worst = 0.0f;
    for (int step = 0; step < 500; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        for (uint32_t k = 0; k < LEVELS; k++)
            worst = fmaxf(worst, v3_len(v3_sub(pos(&s, k + 1), v3(0, 0.5f + (float)k, 0))));
    }
    print_message("stack of %d: worst drift %.5f m\n", LEVELS, (double)worst);
    assert_true(worst < 0.01f);
    for (uint32_t k = 0; k < LEVELS; k++)
        assert_true(v3_len(vel(&s, k + 1)) < 1e-3f);
    physics__scene_free(&s);
}

static void test_pyramid_rests(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 10000);
    uint32_t id = 1;
    enum { LEVELS = 12 };
    for (int row = 0; row < LEVELS; row++)
        for (int k = 0; k < LEVELS - row; k++)
            put(&s, id++,
                box_desc((float)k - 0.5f * (float)(LEVELS - row - 1), 0.5f + (float)row, 0, 0.5f,
                         CT_BODY_DYNAMIC));
    physics__scene start;
    physics__v3 *p0 = malloc(sizeof *p0 * id);
    for (uint32_t e = 1; e < id; e++)
        p0[e] = pos(&s, e);
    (void)start;
    float worst = 0.0f;
    for (int step = 0; step < 300; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        for (uint32_t e = 1; e < id; e++)
            worst = fmaxf(worst, v3_len(v3_sub(pos(&s, e), p0[e])));
    }
    print_message("pyramid of %d: worst drift %.5f m\n", LEVELS, (double)worst);
    assert_true(worst < 0.02f);
    free(p0);
    physics__scene_free(&s);
}

static void test_sphere_bounces_on_ground(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 2);
    put(&s, 1, sphere_desc(0, 3, 0, 0.5f, 1.0f, 0.5f));
    float top_after_bounce = 0.0f;
    bool bounced = false;
    for (int step = 0; step < 240; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        if (vel(&s, 1).y > 0.0f)
            bounced = true;
        if (bounced)
            top_after_bounce = fmaxf(top_after_bounce, pos(&s, 1).y);
        assert_true(pos(&s, 1).y > 0.45f); /* never sinks through */
    }
    assert_true(bounced);
    /* Restitution 0.5 returns a quarter of the drop height (2.5 m above rest), give or take. */
    assert_true(top_after_bounce > 0.5f + 0.5f && top_after_bounce < 0.5f + 1.0f);
    assert_float_equal(pos(&s, 1).y, 0.5f, 0.01f);
    physics__scene_free(&s);
}

/* ---- contacts are real (issue 8) ---------------------------------------------------------- */

/* Counts the step's events of one type. */
static uint32_t count_events(const physics__scene *s, uint32_t type)
{
    uint32_t n = 0, at = 0;
    for (const ct_physics_event_header_t *h;
         (h = ct_physics_event_next(s->events.bytes, s->events.size, &at));)
        n += h->type == type;
    return n;
}

/* A body falling past another's corner, 1 cm apart, moves exactly like one falling alone: no
 * touch, no slowing, no event. Boxes past a box, a sphere past a box, a sphere past a sphere,
 * with and without gravity. */
static void test_near_misses_do_not_touch(void **state)
{
    (void)state;
    for (int kind = 0; kind < 3; kind++)
        for (int gravity = 0; gravity < 2; gravity++) {
            physics__scene s, alone;
            scene_init(&s);
            scene_init(&alone);
            if (!gravity)
                s.gravity = alone.gravity = v3(0, 0, 0);
            const ct_body_desc_t still = kind == 2 ? sphere_desc(0, 0, 0, 0.5f, 1, 0)
                                                   : box_desc(0, 0, 0, 0.5f, CT_BODY_STATIC);
            ct_body_desc_t d = kind == 0 ? box_desc(1.01f, 3, 0.3f, 0.5f, CT_BODY_DYNAMIC)
                                         : sphere_desc(1.01f, 3, 0, 0.5f, 1, 0.5f);
            d.velocity[1] = -10.0f;
            put(&s, 1, still);
            if (kind == 2) /* a second dynamic sphere, held in place without gravity */
                s.bodies.inv_mass[0] = 0.0f;
            put(&s, 2, d);
            put(&alone, 2, d);
            for (int step = 0; step < 40; step++) {
                assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
                assert_int_equal(physics__scene_step(&alone, 1.0f / 60.0f), 0);
                assert_int_equal(count_events(&s, CT_PHYSICS_EVENT_COLLISION), 0);
                const physics__v3 v = vel(&s, 2), va = vel(&alone, 2), p = pos(&s, 2),
                                  pa = pos(&alone, 2);
                assert_memory_equal(&v, &va, sizeof v);
                assert_memory_equal(&p, &pa, sizeof p);
            }
            assert_true(pos(&s, 2).y < -3.0f); /* it went past */
            physics__scene_free(&s);
            physics__scene_free(&alone);
        }
}

/* A 300 m/s sphere and a 200 m/s box (5 m and 3.3 m a step) against a 2 cm wall stop at it. */
static void test_fast_bodies_do_not_tunnel(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        physics__scene s;
        scene_init(&s);
        s.gravity = v3(0, 0, 0);
        put(&s, 1,
            (ct_body_desc_t){.kind = CT_BODY_STATIC,
                             .shape = CT_BODY_BOX,
                             .half_extents = {0.01f, 2, 2},
                             .position = {20, 0, 0}});
        ct_body_desc_t d = kind ? box_desc(0, 0.3f, 0, 0.05f, CT_BODY_DYNAMIC)
                                : sphere_desc(0, 0.3f, 0, 0.1f, 1, 0);
        d.velocity[0] = kind ? 200.0f : 300.0f;
        put(&s, 2, d);
        uint32_t began = 0;
        for (int step = 0; step < 60; step++) {
            assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
            began += count_events(&s, CT_PHYSICS_EVENT_COLLISION);
            assert_true(pos(&s, 2).x <= 20.0f - 0.01f - (kind ? 0.05f : 0.1f) + 1e-3f);
        }
        assert_true(pos(&s, 2).x > 19.8f); /* it got there */
        assert_int_equal(began, 1);
        physics__scene_free(&s);
    }
}

/* A sphere dropped at 10 m/s on the ground turns at the ground (not up to 17 cm above it, the
 * distance of one step), leaves at e times the speed it hit with, and makes one collision and one
 * contact-ended event per bounce. */
static void test_bounce_turns_at_the_ground(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 1);
    ct_body_desc_t d = sphere_desc(0, 3, 0, 0.5f, 1, 0.8f);
    d.velocity[1] = -10.0f;
    put(&s, 2, d);
    float lowest = INFINITY, before = 0.0f, after = 0.0f;
    uint32_t began = 0, ended = 0;
    for (int step = 0; step < 40 && after <= 0.0f; step++) {
        before = vel(&s, 2).y;
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        after = vel(&s, 2).y;
        lowest = fminf(lowest, pos(&s, 2).y);
        began += count_events(&s, CT_PHYSICS_EVENT_COLLISION);
        ended += count_events(&s, CT_PHYSICS_EVENT_CONTACT_ENDED);
    }
    print_message("bounce: lowest %.4f m, came in at %.3f, left at %.3f m/s\n", (double)lowest,
                  (double)before, (double)after);
    assert_true(lowest >= 0.5f - 0.001f && lowest <= 0.5f + 0.003f);
    /* It stopped at the surface one step and left the next: the speed it came in with is the one
     * before the stop (v^2 = 10^2 + 2 g 2.5 at the ground). */
    const float impact = sqrtf(100.0f + 2.0f * 9.81f * 2.5f);
    assert_float_equal(after, 0.8f * impact, 0.03f * impact);
    assert_int_equal(began, 1);
    assert_int_equal(ended, 1); /* in the step that bounced it off */
    physics__scene_free(&s);
}

/* A box slid at 5 m/s stops after v^2 / (2 mu g), the same along an axis as along a diagonal
 * (a box-shaped friction limit would give sqrt(2) mu along the diagonal). */
static float slide(float vx, float vz)
{
    physics__scene s;
    scene_init(&s);
    ground(&s, 1);
    ct_body_desc_t d = box_desc(0, 0.5f, 0, 0.5f, CT_BODY_DYNAMIC);
    d.velocity[0] = vx;
    d.velocity[2] = vz;
    put(&s, 2, d);
    for (int step = 0; step < 200; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_true(v3_len(vel(&s, 2)) < 1e-4f);
    assert_float_equal(pos(&s, 2).y, 0.5f, 0.002f);
    const physics__v3 p = pos(&s, 2);
    physics__scene_free(&s);
    return sqrtf(p.x * p.x + p.z * p.z);
}

static void test_friction_slide_stops_in_closed_form(void **state)
{
    (void)state;
    const float v0 = 5.0f, mu = 0.5f, g = 9.81f, expect = v0 * v0 / (2.0f * mu * g);
    const float straight = slide(v0, 0.0f), diagonal = slide(v0 / sqrtf(2.0f), v0 / sqrtf(2.0f));
    print_message("slide: %.4f m straight, %.4f m diagonal, closed form %.4f m\n", (double)straight,
                  (double)diagonal, (double)expect);
    /* Semi-implicit Euler stops about v0 dt / 2 short of the continuous distance. */
    assert_float_equal(straight, expect, 0.03f * expect);
    assert_float_equal(diagonal, straight, 0.005f * straight);
}

/* A kinematic box at 2 m/s pushes a dynamic one along the ground without slowing or sinking
 * into it. */
static void test_kinematic_pushes_dynamic(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 1);
    ct_body_desc_t k = box_desc(0, 0.5f, 0, 0.5f, CT_BODY_KINEMATIC);
    k.velocity[0] = 2.0f;
    put(&s, 2, k);
    put(&s, 3, box_desc(1.5f, 0.5f, 0, 0.5f, CT_BODY_DYNAMIC));
    for (int step = 0; step < 120; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_true(vel(&s, 2).x == 2.0f);
    assert_float_equal(pos(&s, 2).x, 4.0f, 1e-3f);
    assert_float_equal(pos(&s, 2).y, 0.5f, 0.0f);
    assert_true(pos(&s, 3).x >= pos(&s, 2).x + 1.0f - 0.005f);
    assert_true(pos(&s, 3).x <= pos(&s, 2).x + 1.0f + 0.05f);
    assert_float_equal(vel(&s, 3).x, 2.0f, 0.05f);
    assert_float_equal(pos(&s, 3).y, 0.5f, 0.005f);
    physics__scene_free(&s);
}

/* Five boxes dropped from up to 9 m, apart, land on each other and settle into a stack. */
static void test_dropped_stack_settles(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 100);
    enum { LEVELS = 5 };
    for (uint32_t k = 0; k < LEVELS; k++)
        put(&s, k + 1,
            box_desc(0.01f * (float)k, 3.0f + 1.5f * (float)k, 0, 0.5f, CT_BODY_DYNAMIC));
    for (int step = 0; step < 300; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    for (uint32_t k = 0; k < LEVELS; k++) {
        assert_float_equal(pos(&s, k + 1).y, 0.5f + (float)k, 0.01f);
        assert_float_equal(pos(&s, k + 1).x, 0.01f * (float)k, 0.01f);
        assert_true(v3_len(vel(&s, k + 1)) < 1e-3f);
    }
    physics__scene_free(&s);
}

/* 1:100 mass ratios: a heavy box on a light one and the other way round rest; spheres of 1 and
 * 100 kg collide elastically as the closed form says. */
static void test_mass_ratio_100(void **state)
{
    (void)state;
    for (int heavy_on_top = 0; heavy_on_top < 2; heavy_on_top++) {
        physics__scene s;
        scene_init(&s);
        ground(&s, 100);
        ct_body_desc_t low = box_desc(0, 0.5f, 0, 0.5f, CT_BODY_DYNAMIC),
                       top = box_desc(0, 1.5f, 0, 0.5f, CT_BODY_DYNAMIC);
        (heavy_on_top ? &top : &low)->mass = 100.0f;
        put(&s, 1, low);
        put(&s, 2, top);
        float worst = 0.0f;
        for (int step = 0; step < 300; step++) {
            assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
            worst = fmaxf(worst, fabsf(pos(&s, 2).y - 1.5f));
        }
        print_message("1:100 (heavy on top %d): worst drift %.5f m, at the end %.5f m\n",
                      heavy_on_top, (double)worst, (double)(pos(&s, 2).y - 1.5f));
        /* Cold, the heavy box sinks up to 2 cm into the light one before warm starting holds it. */
        assert_true(worst < 0.025f);
        assert_float_equal(pos(&s, 2).y, 1.5f, 0.005f);
        assert_float_equal(pos(&s, 1).y, 0.5f, 0.005f);
        assert_true(v3_len(vel(&s, 2)) < 1e-3f);
        physics__scene_free(&s);
    }
    float u1, u2;
    collide_spheres(1.0f, 100.0f, 1.0f, 4.0f, -1.0f, &u1, &u2);
    assert_float_equal(u1, (-99.0f * 4.0f + 200.0f * -1.0f) / 101.0f, 1e-3f);
    assert_float_equal(u2, (2.0f * 4.0f + 99.0f * -1.0f) / 101.0f, 1e-3f);
}

/* ---- scaling: sleeping, grids, limits, filters (issue 8) ---------------------------------- */

/* A pile of boxes on a ground, dropped loosely. */
static void drop_pile(physics__scene *s, uint32_t n)
{
    ground(s, 100000);
    for (uint32_t id = 1; id <= n; id++)
        put(s, id,
            box_desc((float)(id % 5) * 1.05f, 0.5f + 1.1f * (float)(id / 5),
                     (float)(id % 3) * 0.02f, 0.5f, CT_BODY_DYNAMIC));
}

/* A settled pile sleeps: no body is integrated, no pair or contact is made, the fixed grid is not
 * rebuilt and nothing moves, and falling asleep ends no contact. A box dropped on it wakes the
 * island, which settles and sleeps again. */
static void test_settled_pile_sleeps_and_wakes(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    drop_pile(&s, 40);
    uint32_t ended_while_resting = 0;
    for (int step = 0; step < 600 && s.report.awake + (step < 10); step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        if (step > 200)
            ended_while_resting += count_events(&s, CT_PHYSICS_EVENT_CONTACT_ENDED);
    }
    assert_int_equal(s.report.awake, 0);
    assert_int_equal(ended_while_resting, 0);
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    const uint32_t fixed_builds = s.fixed.builds, cached = s.num_cache;
    assert_true(cached >= 40);
    for (int step = 0; step < 30; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        assert_int_equal(s.report.awake, 0);
        assert_int_equal(s.num_pairs, 0);
        assert_int_equal(s.contacts.n, 0);
        assert_int_equal(s.events.size, 0);
    }
    assert_int_equal(s.fixed.builds, fixed_builds);
    assert_int_equal(s.num_cache, cached);
    assert_true(physics__state_hash(&s, NULL, NULL) == h);

    /* Something falls on it: the island wakes, takes the blow, and sleeps again. */
    ct_body_desc_t rock = sphere_desc(2.0f, 30.0f, 0, 0.5f, 5.0f, 0.0f);
    rock.velocity[1] = -10.0f;
    put(&s, 999, rock);
    uint32_t most_awake = 0, step = 0;
    for (; step < 900 && (step < 10 || s.report.awake); step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        most_awake = s.report.awake > most_awake ? s.report.awake : most_awake;
    }
    assert_true(most_awake > 10);
    assert_int_equal(s.report.awake, 0);
    assert_true(physics__state_hash(&s, NULL, NULL) != h);
    physics__scene_free(&s);
}

/* Taking the bottom box from under a sleeping stack wakes the stack, which falls. */
static void test_removing_support_wakes(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 100);
    for (uint32_t k = 0; k < 4; k++)
        put(&s, k + 1, box_desc(0, 0.5f + (float)k, 0, 0.5f, CT_BODY_DYNAMIC));
    for (int step = 0; step < 300; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_int_equal(s.report.awake, 0);
    assert_true(physics__scene_remove(&s, (ct_entity_t){1}));
    uint32_t ended = 0;
    for (int step = 0; step < 120; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        ended += count_events(&s, CT_PHYSICS_EVENT_CONTACT_ENDED);
    }
    assert_float_equal(pos(&s, 2).y, 0.5f, 0.01f);
    assert_float_equal(pos(&s, 4).y, 2.5f, 0.01f);
    assert_true(ended >= 2); /* the ground and box 2 lost box 1 */
    physics__scene_free(&s);
}

/* Queries after a step reuse its grid (no second build per frame) and still agree with brute
 * force; statics sit in their own grid, built once. */
static void test_queries_reuse_the_step_grid(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.sleeping = false;
    rng_state = 31u;
    ground(&s, 5000);
    for (uint32_t id = 1; id <= 300; id++) {
        ct_body_desc_t d = id % 2 ? sphere_desc(frand(-8, 8), frand(1, 8), frand(-8, 8),
                                                frand(0.2f, 0.5f), 1, 0.3f)
                                  : box_desc(frand(-8, 8), frand(1, 8), frand(-8, 8),
                                             frand(0.2f, 0.5f), CT_BODY_DYNAMIC);
        d.velocity[0] = frand(-3, 3);
        put(&s, id, d);
    }
    for (uint32_t id = 2000; id < 2040; id++) /* walls */
        put(&s, id,
            (ct_body_desc_t){.kind = CT_BODY_STATIC,
                             .shape = CT_BODY_BOX,
                             .half_extents = {frand(0.1f, 3), 2, frand(0.1f, 3)},
                             .position = {frand(-9, 9), 2, frand(-9, 9)}});
    ct_entity_t out[512];
    uint32_t fixed_builds = 0;
    for (int step = 0; step < 60; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        if (step == 1)
            fixed_builds = s.fixed.builds;
        const uint32_t builds = s.bp.builds;
        const physics__v3 c = v3(frand(-8, 8), frand(0, 4), frand(-8, 8));
        const float r = frand(0.5f, 3.0f);
        const uint32_t n = physics__scene_overlap_sphere(&s, c, r, UINT32_MAX, out, 512);
        uint32_t expect = 0;
        for (uint32_t i = 0; i < s.bodies.n; i++)
            expect += physics__sphere_overlaps_body(&s.bodies, i, c, r);
        assert_int_equal(n, expect);
        ct_physics_hit_t hit;
        const physics__v3 d = v3(frand(-1, 1), -0.3f, frand(-1, 1)),
                          dn = v3_scale(d, 1.0f / v3_len(d));
        const bool got = physics__scene_raycast(&s, c, d, 30.0f, UINT32_MAX, &hit);
        float best = INFINITY;
        for (uint32_t i = 0; i < s.bodies.n; i++) {
            physics__v3 nn;
            best = fminf(best, physics__ray_body(&s.bodies, i, c, dn, &nn));
        }
        assert_int_equal(got, best <= 30.0f);
        if (got)
            assert_float_equal(hit.distance, best, 1e-4f);
        assert_true(s.bp.builds - builds <= (s.bp_stale ? 1u : 0u) + 1u);
        if (step > 5)
            assert_int_equal(s.bp.builds, builds); /* nothing bounced out of its box */
    }
    assert_int_equal(s.fixed.builds, fixed_builds);
    physics__scene_free(&s);
}

/* 3,000 bodies in one spot (a `repeat` without spacing): the step is bounded in pairs and memory
 * and says so. */
static void test_pile_in_one_spot_is_bounded(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    for (uint32_t id = 1; id <= 3000; id++)
        put(&s, id, box_desc(0, 0, 0, 0.5f, CT_BODY_DYNAMIC));
    assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_int_equal(s.report.pair_limit, 64u * 3000u);
    assert_true(s.num_pairs <= 64u * 3000u);
    print_message("3,000 bodies in one spot: %u pairs, %.1f MB live\n", s.num_pairs,
                  (double)alloc.live_bytes / 1e6);
    assert_true(alloc.live_bytes < 100u * 1000u * 1000u);
    for (uint32_t id = 1; id <= 3000; id++)
        assert_true(v3_finite(pos(&s, id)));
    physics__scene_free(&s);
}

/* A million rotating bodies dropped into one spot: the step's pairs stop at the world's ceiling
 * (SOLVER_MAX_PAIR_LIMIT, here lowered to 65,536 so the test stays quick: the per-body rule alone
 * would have allowed 64 million, some 64 GB of contacts), the step ends, reports the cut, and
 * its memory stays linear in the bodies. */
static void test_million_in_one_spot_is_bounded(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    assert_int_equal(s.pair_ceiling, SOLVER_MAX_PAIR_LIMIT);
    s.pair_ceiling = 65536u;
    const uint32_t n = 1000000u;
    assert_int_equal(physics__bodies_reserve(&s.bodies, n), 0);
    for (uint32_t id = 1; id <= n; id++) {
        const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                        .shape = CT_BODY_SPHERE,
                                        .radius = 0.5f,
                                        .mass = 1.0f,
                                        .friction = 0.5f,
                                        .position = {0.0f, 1.0f, 0.0f}};
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){id}, &d), 0);
    }
    assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_int_equal(s.report.pair_limit, 65536u);
    assert_true(s.rigid.num_contacts <= 65536u);
    print_message("1,000,000 bodies in one spot: %u pairs, %u contacts, %.1f MB live\n",
                  s.num_pairs, s.rigid.num_contacts, (double)alloc.live_bytes / 1e6);
    assert_true(alloc.live_bytes < 1000u * 1000u * 1000u);
    for (uint32_t id = 1; id <= n; id += 997)
        assert_true(v3_finite(pos(&s, id)));
    physics__scene_free(&s);
}

/* A box across n x n static tiles has a pair with every one: more than the room a slice of
 * moving boxes gets for its fixed pairs (4 a box), so the slice asks again one box at a time;
 * and past the step's pair limit the pairs are cut there and reported. */
static void tiles_under_box(physics__scene *s, int n)
{
    scene_init(s);
    uint32_t id = 1;
    for (int x = 0; x < n; x++)
        for (int z = 0; z < n; z++)
            put(s, id++,
                box_desc((float)x - 0.5f * (float)(n - 1), -0.5f, (float)z - 0.5f * (float)(n - 1),
                         0.5f, CT_BODY_STATIC));
    put(s, 1000, box_desc(0, 0.5f * (float)n, 0, 0.5f * (float)n, CT_BODY_DYNAMIC));
    s->sleeping = false; /* the box stays awake, its contacts in the step */
}

static void test_box_on_many_tiles(void **state)
{
    (void)state;
    physics__scene s;
    tiles_under_box(&s, 4);
    assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_int_equal(s.num_pairs, 16);
    assert_int_equal(s.report.pair_limit, 0);
    for (int step = 0; step < 60; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_int_equal(s.contacts.n, 16);
    assert_float_equal(pos(&s, 1000).y, 2.0f, 0.01f);
    physics__scene_free(&s);

    /* 100 boxes in one spot on 100 tiles: 4,950 pairs among them and 10,000 with the tiles,
     * past the limit of 64 a body (12,800). */
    tiles_under_box(&s, 10);
    for (uint32_t id = 1001; id < 1100; id++)
        put(&s, id, box_desc(0, 5.0f, 0, 5.0f, CT_BODY_DYNAMIC));
    s.max_pairs = 0;
    assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_int_equal(s.report.pair_limit, 64 * 200);
    assert_int_equal(s.num_pairs, 64 * 200);
    physics__scene_free(&s);
}

/* Layers and masks: a body whose layer is not in the other's mask passes through it, and
 * queries can filter by mask. */
static void test_layers_and_masks(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ground(&s, 1);
    put(&s, 2, box_desc(0, 3, 0, 0.5f, CT_BODY_DYNAMIC));
    put(&s, 3, box_desc(3, 3, 0, 0.5f, CT_BODY_DYNAMIC));
    const uint32_t ghost = physics__bodies_find(&s.bodies, (ct_entity_t){3});
    s.bodies.layer[ghost] = 2u;
    s.bodies.mask[ghost] = ~1u; /* not the ground's layer */
    for (int step = 0; step < 90; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_float_equal(pos(&s, 2).y, 0.5f, 0.01f);
    assert_true(pos(&s, 3).y < -2.0f);
    physics__scene_free(&s);
}

/* ---- events ------------------------------------------------------------------------------- */

static void test_event_stream_skips_unknown_types(void **state)
{
    (void)state;
    physics__events ev = {.a = &alloc.base};
    ct_physics_collision_event_t c = {.a = 1, .b = 2, .impulse = 3.0f};
    const char odd[7] = "future";
    assert_int_equal(physics__events_write(&ev, CT_PHYSICS_EVENT_COLLISION, &c, sizeof c), 0);
    assert_int_equal(physics__events_write(&ev, 0x7777u, odd, sizeof odd), 0);
    assert_int_equal(physics__events_write(&ev, 0x8888u, odd, 0), 0);
    c.a = 5;
    assert_int_equal(physics__events_write(&ev, CT_PHYSICS_EVENT_COLLISION, &c, sizeof c), 0);
    assert_int_equal(ev.size % 4, 0);

    uint32_t at = 0, known = 0, unknown = 0, sum = 0;
    for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(ev.bytes, ev.size, &at));) {
        if (h->type == CT_PHYSICS_EVENT_COLLISION) {
            ct_physics_collision_event_t got;
            assert_int_equal(h->size, sizeof got);
            memcpy(&got, h + 1, sizeof got);
            sum += got.a;
            known++;
        } else {
            unknown++;
        }
    }
    assert_int_equal(known, 2);
    assert_int_equal(unknown, 2);
    assert_int_equal(sum, 6);
    assert_int_equal(at, ev.size);

    /* A truncated stream ends the walk at the last whole record, never reads past the end. */
    at = 0;
    uint32_t whole = 0;
    while (ct_physics_event_next(ev.bytes, ev.size - 3, &at))
        whole++;
    assert_int_equal(whole, 3);
    physics__events_free(&ev);
}

/* ---- determinism -------------------------------------------------------------------------- */

static uint64_t run_pile(bool reversed)
{
    physics__scene s;
    scene_init(&s);
    rng_state = 777u;
    ct_body_desc_t d[300];
    for (int k = 0; k < 300; k++)
        d[k] = k % 2 ? box_desc(frand(-3, 3), frand(1, 15), frand(-3, 3), frand(0.2f, 0.5f),
                                CT_BODY_DYNAMIC)
                     : sphere_desc(frand(-3, 3), frand(1, 15), frand(-3, 3), frand(0.2f, 0.5f),
                                   1.0f, 0.3f);
    ground(&s, 1000);
    for (int k = 0; k < 300; k++) {
        const int j = reversed ? 299 - k : k;
        put(&s, (uint32_t)j + 1, d[j]);
    }
    for (int step = 0; step < 200; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    physics__scene_free(&s);
    return h;
}

static void test_same_inputs_same_hash(void **state)
{
    (void)state;
    const uint64_t a = run_pile(false), b = run_pile(false), c = run_pile(true);
    assert_true(a != 0);
    assert_true(a == b);
    assert_true(a == c); /* the order bodies were added in does not matter */
}

/* A grid over n random boxes built with the pool given: compact (a dense grid) or in two
 * clusters far apart (hashed). Enough boxes for several slices of buckets. */
static void random_grid(physics__broadphase *bp, physics__pool with, uint32_t n, bool clusters)
{
    *bp = (physics__broadphase){.a = &alloc.base, .pool = with};
    assert_int_equal(physics__broadphase_resize(bp, n), 0);
    rng_state = 4242u;
    const float side = 2.0f * cbrtf((float)n);
    for (uint32_t i = 0; i < n; i++) {
        const float shift = clusters && i % 2 ? 1000.0f : 0.0f;
        const physics__v3 c = v3(frand(0, side) + shift, frand(0, side), frand(0, side));
        const float h = frand(0.1f, 0.5f);
        bp->lo[i] = v3_sub(c, v3(h, h, h));
        bp->hi[i] = v3_add(c, v3(h, h, h));
        bp->moving[i] = i % 9 != 0;
    }
    assert_int_equal(physics__broadphase_build(bp, 0.0f), 0);
    assert_int_equal(physics__broadphase_pairs(bp), 0);
    assert_int_equal(bp->dense, !clusters);
    assert_true(bp->num_slices > 2);
}

/* A falling pile of n bodies on a ground, stepped with the pool given; returns the state hash
 * and leaves the last step's pairs in *pairs (the caller frees it). */
static uint64_t pile_with(physics__pool with, uint32_t n, physics__pair **pairs,
                          uint32_t *num_pairs)
{
    physics__scene s;
    physics__scene_init(&s, &alloc.base);
    s.pool = with;
    rng_state = 99u;
    ground(&s, n + 1);
    for (uint32_t id = 1; id <= n; id++) {
        const float x = frand(-40, 40), y = frand(0.5f, 8), z = frand(-40, 40);
        put(&s, id,
            id % 2 ? box_desc(x, y, z, frand(0.2f, 0.5f), CT_BODY_DYNAMIC)
                   : sphere_desc(x, y, z, frand(0.2f, 0.5f), 1.0f, 0.3f));
    }
    for (int step = 0; step < 40; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    assert_true(s.bp.num_slices > 1);
    assert_true(s.contacts.n >= 2048); /* enough for the rows to be solved in colours */
    *num_pairs = s.bp.num_pairs;
    *pairs = malloc(sizeof **pairs * (s.bp.num_pairs + 1));
    memcpy(*pairs, s.bp.pairs, sizeof **pairs * s.bp.num_pairs);
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    physics__scene_free(&s);
    return h;
}

static int cmp_key(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* The step's pairs come out in key order whatever bits the entity ids differ in: ids spread over
 * 27 bits, in runs with bits all equal between them, make the radix sort take digits of several
 * widths (physics_contacts.c) and skip the bits between. Against qsort of the same keys. */
static void test_pairs_sorted_whatever_the_ids(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    rng_state = 5u;
    ground(&s, 1);
    for (uint32_t k = 0; k < 600; k++)
        put(&s, 2u + k * 1733u + (k % 5u) * 0x01000000u,
            box_desc(frand(-5, 5), frand(0.3f, 4), frand(-5, 5), 0.3f, CT_BODY_DYNAMIC));
    for (int step = 0; step < 30; step++)
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    const physics__keyed_pair *order;
    uint32_t m;
    assert_int_equal(physics__contacts_order(&s, &order, &m), 0);
    assert_true(m > 1000);
    assert_int_equal(m, s.num_pairs); /* all dynamic, one layer, no joints: every pair kept */
    uint64_t *keys = malloc(sizeof *keys * m);
    for (uint32_t k = 0; k < m; k++) {
        const uint32_t x = s.bodies.entity[s.pairs[k].a].id, y = s.bodies.entity[s.pairs[k].b].id;
        keys[k] = x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
    }
    qsort(keys, m, sizeof *keys, cmp_key);
    for (uint32_t k = 0; k < m; k++) {
        assert_true(order[k].key == keys[k]);
        assert_true(order[k].key ==
                    ((uint64_t)s.bodies.entity[order[k].a].id << 32 | s.bodies.entity[order[k].b].id));
    }
    free(keys);
    physics__scene_free(&s);
}

static void test_pool_gives_the_same_bits(void **state)
{
    (void)state;
    for (int clusters = 0; clusters < 2; clusters++) {
        physics__broadphase serial, threaded;
        random_grid(&serial, (physics__pool){0}, 20000, clusters);
        random_grid(&threaded, two_threads, 20000, clusters);
        assert_true(serial.num_pairs > 1000);
        assert_int_equal(serial.num_pairs, threaded.num_pairs);
        assert_memory_equal(serial.pairs, threaded.pairs, serial.num_pairs * sizeof *serial.pairs);
        assert_int_equal(serial.num_items, threaded.num_items);
        assert_memory_equal(serial.item, threaded.item, serial.num_items * sizeof *serial.item);
        physics__broadphase_free(&serial);
        physics__broadphase_free(&threaded);
    }
    physics__pair *a, *b;
    uint32_t na, nb;
    const uint64_t ha = pile_with((physics__pool){0}, 6000, &a, &na);
    const uint64_t hb = pile_with(two_threads, 6000, &b, &nb);
    assert_true(ha == hb);
    assert_true(na > 1000);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof *a);
    free(a);
    free(b);
}

/* ---- the solver's row blocks --------------------------------------------------------------- */

/* The lanes this executable's solver was built with: meson builds the core tests twice, on SSE2
 * where the target has it and on the plain C lanes ARM uses. */
#if !defined(PHYSICS_LANES_EXPECTED) && defined(__SSE2__)
#define PHYSICS_LANES_EXPECTED "sse2"
#elif !defined(PHYSICS_LANES_EXPECTED)
#define PHYSICS_LANES_EXPECTED "portable"
#endif

static void test_solver_lanes_are_the_ones_asked_for(void **state)
{
    (void)state;
    print_message("solver lanes: %s\n", physics__solver_lanes);
    assert_string_equal(physics__solver_lanes, PHYSICS_LANES_EXPECTED);
}

/* A 20-row pyramid (590 contacts: waves, in entity-pair order), or a dynamic plate under four
 * layers of 15 x 15 boxes (9,021 contacts: colours, and the plate's 225 overflow them). */
static void block_scene(physics__scene *s, bool plate)
{
    ground(s, 10000);
    uint32_t id = 1;
    if (!plate) {
        for (int row = 0; row < 20; row++)
            for (int k = 0; k < 20 - row; k++)
                put(s, id++,
                    box_desc((float)k - 0.5f * (float)(20 - row - 1), 0.5f + (float)row, 0, 0.5f,
                             CT_BODY_DYNAMIC));
        return;
    }
    put(s, id++,
        (ct_body_desc_t){.kind = CT_BODY_DYNAMIC,
                         .shape = CT_BODY_BOX,
                         .half_extents = {8, 0.25f, 8},
                         .mass = 10.0f,
                         .friction = 0.5f,
                         .position = {0, 0.25f, 0}});
    for (int layer = 0; layer < 4; layer++)
        for (int x = 0; x < 15; x++)
            for (int z = 0; z < 15; z++)
                put(s, id++,
                    box_desc((float)x - 7.0f, 1.0f + (float)layer, (float)z - 7.0f, 0.5f,
                             CT_BODY_DYNAMIC));
}

/* Rows solved four at a time give the bits that rows solved one after the other gave: the hashes
 * below are what the solver of one row at a time (before the blocks) made of these scenes, and
 * the lanes, SSE2 or plain C, must make them again. The blocks hold every contact once, no two
 * rows of a block share a slot, and empty lanes change nothing. */
static void test_row_blocks_give_the_bits_of_rows_in_turn(void **state)
{
    (void)state;
    const struct {
        uint64_t start, after;
        uint32_t contacts, colors;
    } expect[2] = {{0x72948b1e0bb8edd4ull, 0x9ef36efb3adaf5b4ull, 590, 110},
                   {0x2b93868f3f4b00b3ull, 0x34316dd3b3bc48e5ull, 9021, 64}};
    for (int plate = 0; plate < 2; plate++) {
        physics__scene s;
        scene_init(&s);
        s.sleeping = false;
        block_scene(&s, plate);
        assert_true(physics__state_hash(&s, NULL, NULL) == expect[plate].start);
        for (int step = 0; step < 60; step++)
            assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        print_message("%s: %u contacts in %u colours, %u blocks\n", plate ? "plate" : "pyramid",
                      s.contacts.n, s.rows.num_colors, s.rows.num_blocks);
        assert_int_equal(s.contacts.n, expect[plate].contacts);
        assert_int_equal(s.rows.num_colors, expect[plate].colors);
        assert_true(physics__state_hash(&s, NULL, NULL) == expect[plate].after);

        const physics__rows *r = &s.rows;
        const uint32_t spare = s.gathered.n, lanes = PHYSICS_ROW_LANES;
        for (uint32_t k = 0; k < s.contacts.n; k++)
            assert_int_equal(r->contact[s.contacts.row[k]], k);
        uint32_t full = 0;
        for (uint32_t m = 0; m < r->num_blocks; m++) {
            const physics__row_block *rb = &r->block[m];
            for (uint32_t l = 0; l < lanes; l++) {
                const bool empty = r->contact[m * lanes + l] == UINT32_MAX;
                full += !empty;
                assert_int_equal(empty, rb->slot_a[l] == spare);
                assert_int_equal(empty, rb->slot_b[l] == spare);
                if (empty) {
                    assert_true(rb->mass_n[l] == 0.0f && rb->inv_mass_a[l] == 0.0f &&
                                rb->inv_mass_b[l] == 0.0f);
                    continue;
                }
                for (uint32_t o = 0; o < l; o++) {
                    assert_int_not_equal(rb->slot_a[l], rb->slot_a[o]);
                    assert_int_not_equal(rb->slot_a[l], rb->slot_b[o]);
                    assert_int_not_equal(rb->slot_b[l], rb->slot_a[o]);
                    assert_int_not_equal(rb->slot_b[l], rb->slot_b[o]);
                }
            }
        }
        assert_int_equal(full, s.contacts.n);
        /* The spare slot is still still. */
        assert_true(v3_dot(s.gathered.velocity[spare], s.gathered.velocity[spare]) == 0.0f);
        assert_true(v3_dot(s.gathered.position[spare], s.gathered.position[spare]) == 0.0f);
        physics__scene_free(&s);
    }
}

/* ---- point masses and bad data ------------------------------------------------------------ */

static void test_point_masses(void **state)
{
    (void)state;
    physics__points p = {.a = &alloc.base, .map.a = &alloc.base};
    for (uint32_t id = 1; id <= 1000; id++) {
        const ct_point_mass_desc_t d = {
            .mass = 2.0f, .position = {(float)id, 0, 0}, .velocity = {0, 1, 0}};
        assert_int_equal(physics__points_add(&p, (ct_entity_t){id}, &d), 0);
    }
    const ct_point_mass_desc_t d = {.mass = 1.0f};
    assert_int_equal(physics__points_add(&p, (ct_entity_t){5}, &d), CT_ERR_CONFLICT);
    assert_true(physics__points_remove(&p, (ct_entity_t){1}));
    assert_false(physics__points_remove(&p, (ct_entity_t){1}));
    assert_int_equal(p.n, 999);
    const uint32_t i = physics__points_find(&p, (ct_entity_t){1000});
    p.acceleration[i] = v3(0, 0, 4.0f); /* a force of 8 N on 2 kg, for one step */
    physics__points_simulate(&p, 0, p.n, 0.5f);
    physics__points_simulate(&p, 0, p.n, 0.5f);
    assert_float_equal(p.position[i].x, 1000.0f, 0);
    assert_float_equal(p.position[i].y, 1.0f, 1e-6f);
    assert_float_equal(p.velocity[i].z, 2.0f, 1e-6f);
    assert_float_equal(p.position[i].z, 2.0f, 1e-6f); /* 1 m in each half second at 2 m/s */
    for (uint32_t id = 2; id <= 1000; id++)
        assert_int_equal(p.entity[physics__points_find(&p, (ct_entity_t){id})].id, id);
    physics__points_free(&p);
}

static void test_bad_data_refused(void **state)
{
    (void)state;
    ct_body_desc_t d = box_desc(0, 0, 0, 0.5f, CT_BODY_DYNAMIC);
    assert_null(physics__body_desc_error(&d));
    d.mass = 0.0f;
    assert_non_null(strstr(physics__body_desc_error(&d), "mass"));
    d.mass = -1.0f;
    assert_non_null(strstr(physics__body_desc_error(&d), "mass"));
    d.kind = CT_BODY_STATIC; /* a static body has no mass to check */
    assert_null(physics__body_desc_error(&d));
    d = box_desc(0, 0, 0, 0.5f, CT_BODY_DYNAMIC);
    d.half_extents[1] = 0.0f;
    assert_non_null(strstr(physics__body_desc_error(&d), "half_extents"));
    d = sphere_desc(0, 0, 0, 0.0f, 1, 0);
    assert_non_null(strstr(physics__body_desc_error(&d), "radius"));
    d = sphere_desc(0, NAN, 0, 1.0f, 1, 0);
    assert_non_null(strstr(physics__body_desc_error(&d), "position"));
    d = sphere_desc(0, 0, 0, 1.0f, 1, 1.5f);
    assert_non_null(strstr(physics__body_desc_error(&d), "restitution"));
    d = sphere_desc(0, 0, 0, 1.0f, INFINITY, 0);
    assert_non_null(strstr(physics__body_desc_error(&d), "mass"));
    const ct_point_mass_desc_t p = {.mass = 0.0f};
    assert_non_null(strstr(physics__point_desc_error(&p), "mass"));
    const ct_point_mass_desc_t q = {.mass = 1.0f, .velocity = {NAN, 0, 0}};
    assert_non_null(strstr(physics__point_desc_error(&q), "velocity"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_map_matches_array, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadphase_matches_brute_force, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadphase_crowded_buckets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadphase_many_large_boxes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadphase_dense_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_queries_match_brute_force, setup, teardown),
        cmocka_unit_test_setup_teardown(test_projectile_follows_closed_form, setup, teardown),
        cmocka_unit_test_setup_teardown(test_elastic_collision_conserves_momentum_and_energy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inelastic_collision_conserves_momentum, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_box_stack_rests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pyramid_rests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sphere_bounces_on_ground, setup, teardown),
        cmocka_unit_test_setup_teardown(test_near_misses_do_not_touch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fast_bodies_do_not_tunnel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounce_turns_at_the_ground, setup, teardown),
        cmocka_unit_test_setup_teardown(test_friction_slide_stops_in_closed_form, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kinematic_pushes_dynamic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dropped_stack_settles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mass_ratio_100, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settled_pile_sleeps_and_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_removing_support_wakes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queries_reuse_the_step_grid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pile_in_one_spot_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_million_in_one_spot_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_box_on_many_tiles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layers_and_masks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_stream_skips_unknown_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_inputs_same_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pairs_sorted_whatever_the_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pool_gives_the_same_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_solver_lanes_are_the_ones_asked_for, setup, teardown),
        cmocka_unit_test_setup_teardown(test_row_blocks_give_the_bits_of_rows_in_turn, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_point_masses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_data_refused, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
#ifdef PHYSICS_LANES_PORTABLE
    /* The plain C lanes' build checks what the lanes compute, serially: its
     * test_pool_gives_the_same_bits compares two threads with one bit for bit on these lanes too,
     * and the SSE2 build runs every test on two threads as well. The million bodies' bounds (pairs
     * cut at the ceiling, memory linear in the bodies) are the same on any lanes: the SSE2
     * build's run checks them. (Each was a fifth of this build's time under ASan.) */
    cmocka_set_skip_filter("test_million_in_one_spot_is_bounded");
    const int failed = cmocka_run_group_tests_name("serial", tests, NULL, NULL);
#else
    /* What never hands the fixture's pool to a scene: on two threads it would only repeat itself
     * (test_pool_gives_the_same_bits picks its pools itself, serial and two threads). */
    static const char *const serial_only[] = {
        "test_map_matches_array", "test_event_stream_skips_unknown_types",
        "test_pool_gives_the_same_bits", "test_solver_lanes_are_the_ones_asked_for",
        "test_point_masses", "test_bad_data_refused", NULL};
    const int failed =
        physics_fixture_run_groups(tests, sizeof tests / sizeof tests[0], serial_only);
#endif
    physics_fixture_stop();
    return failed;
}
