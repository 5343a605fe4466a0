/* The rigid solver (v4) without a kernel: boxes that tip over, balls that roll off corners,
 * stacks and pyramids of rotating boxes that stand, capsules, locks, the gyroscopic term,
 * manifolds, heavy boxes resting on light ones, the desc checks, and a pinned state hash that the
 * serial run and a two-thread pool must both give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A static box at (x, y, z) of half extents (hx, hy, hz). */
static ct_rigid_body_desc_t block(float x, float y, float z, float hx, float hy, float hz,
                                  float friction)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_STATIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {hx, hy, hz},
                                  .friction = friction,
                                  .position = {x, y, z}};
}

/* A quaternion about z by angle a. */
static void about_z(float a, float q[4])
{
    q[0] = q[1] = 0.0f;
    q[2] = sinf(0.5f * a);
    q[3] = cosf(0.5f * a);
}

/* A cube stood on one edge, leaning 30 degrees, falls flat: its rotation ends a quarter turn from
 * where it would stand, and it rests at its half height. A v1-v3 cube (rotation locked) placed
 * the same way never turns. */
static void test_box_on_edge_tips_over(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    ct_rigid_body_desc_t d = cube(0, 0.0f, 0, 0.5f);
    about_z(0.5235988f, d.rotation);
    /* The lowest corner of the turned cube just above the ground. */
    d.position[1] = 0.5f * (cosf(0.5235988f) + sinf(0.5235988f)) + 0.001f;
    add(&s, 2, d);
    assert_int_equal(s.bodies.num_rotating, 1);
    run(&s, 240);
    const uint32_t i = at(&s, 2);
    const physics__quat q = s.bodies.rotation[i];
    const physics__v3 up = quat_rotate(q, v3(0, 1, 0)), side = quat_rotate(q, v3(1, 0, 0));
    /* Flat: one of its axes points up. */
    const float flat = f_max(fabsf(up.y), fabsf(side.y));
    print_message("tipped: up.y %.4f side.y %.4f height %.4f\n", (double)up.y, (double)side.y,
                  (double)s.bodies.position[i].y);
    assert_true(flat > 0.999f);
    assert_true(fabsf(s.bodies.position[i].y - 0.5f) < 0.01f);
    /* It fell towards the side it leant to (+x was raised: a positive turn about z lifts the
     * +x side, so it rolls back down onto its -z... either way it moved off its edge). */
    assert_true(fabsf(up.y) < 0.01f || fabsf(side.y) < 0.01f);
    physics__scene_free(&s);
}

/* A ball dropped just beside the top corner of a static box rolls off it and spins. */
static void test_ball_rolls_off_a_corner(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    add(&s, 2, block(0, 0.5f, 0, 0.5f, 0.5f, 0.5f, 0));
    add(&s, 3,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_SPHERE,
                               .radius = 0.25f,
                               .mass = 1.0f,
                               .friction = 0.6f,
                               .position = {0.52f, 1.3f, 0}});
    run(&s, 180);
    const uint32_t i = at(&s, 3);
    print_message("ball: x %.3f y %.3f spin %.3f\n", (double)s.bodies.position[i].x,
                  (double)s.bodies.position[i].y, (double)v3_len(s.bodies.angular[i]));
    /* Off the box, on the ground. */
    assert_true(s.bodies.position[i].x > 0.75f);
    assert_true(fabsf(s.bodies.position[i].y - 0.25f) < 0.01f);
    physics__scene_free(&s);
}

/* Ten rotating cubes stacked stand: after five seconds the top one has not left its column. */
static void test_rotating_stack_stands(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, false);
    for (uint32_t k = 0; k < 10; k++)
        add(&s, 2 + k, cube(0, 0.5f + (float)k, 0, 0.5f));
    /* Free rotation makes the world rigid even though nothing is turned yet. */
    assert_int_equal(s.bodies.num_rotating, 10); /* the ground does not count: static, unturned */
    run(&s, 300);
    const uint32_t top = at(&s, 11);
    const physics__v3 p = s.bodies.position[top];
    print_message("stack top: %.4f %.4f %.4f\n", (double)p.x, (double)p.y, (double)p.z);
    /* Soft contacts hold each box a fraction of a millimetre into the one below, more under more
     * load (as Box2D's do): the top sinks about 2.5 cm in all, and stays straight. */
    assert_true(fabsf(p.x) < 0.01f && fabsf(p.z) < 0.01f && fabsf(p.y - 9.5f) < 0.03f);
    physics__scene_free(&s);
}

/* A cube resting flat on the ground has a manifold of four points, at its corners. */
static void test_resting_box_has_four_points(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, false);
    add(&s, 2, cube(0, 0.5f, 0, 0.5f));
    physics__manifold_out m;
    physics__manifold(&s.bodies, 0, 1, 0.02f, false, &m);
    assert_int_equal(m.count, 4);
    assert_true(fabsf(m.normal.y - 1.0f) < 1e-6f);
    for (uint32_t k = 0; k < m.count; k++) {
        assert_true(fabsf(fabsf(m.p[k].point.x) - 0.5f) < 1e-5f);
        assert_true(fabsf(m.p[k].sep) < 1e-5f);
    }
    run(&s, 60);
    assert_int_equal(s.rigid.num_contacts, 1);
    assert_int_equal(s.rigid.contact[0].count, 4);
    /* Four points carry the weight between them (m g dt per step). */
    float total = 0.0f;
    for (uint32_t k = 0; k < 4; k++)
        total += s.rigid.contact[0].p[k].jn;
    print_message("resting impulse %.5f (m g dt/4 = %.5f)\n", (double)total, 9.81 / 60.0 / 4.0);
    physics__scene_free(&s);
}

/* A capsule lying on the ground rests on two points and stays level; one standing on its end
 * stays up. */
static void test_capsules_rest(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    ct_rigid_body_desc_t lying = {.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_CAPSULE,
                                  .radius = 0.25f,
                                  .half_height = 0.5f,
                                  .mass = 1.0f,
                                  .friction = 0.6f,
                                  .position = {0, 0.26f, 0}};
    about_z(1.5707964f, lying.rotation);
    add(&s, 2, lying);
    add(&s, 3,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_CAPSULE,
                               .radius = 0.25f,
                               .half_height = 0.5f,
                               .mass = 1.0f,
                               .friction = 0.6f,
                               .position = {3, 0.76f, 0}});
    run(&s, 120);
    const uint32_t i = at(&s, 2), j = at(&s, 3);
    const physics__v3 axis = quat_rotate(s.bodies.rotation[i], v3(0, 1, 0));
    print_message("lying capsule y %.4f axis.y %.5f; standing y %.4f\n",
                  (double)s.bodies.position[i].y, (double)axis.y, (double)s.bodies.position[j].y);
    assert_true(fabsf(s.bodies.position[i].y - 0.25f) < 0.01f);
    assert_true(fabsf(axis.y) < 0.01f);
    assert_true(fabsf(s.bodies.position[j].y - 0.75f) < 0.01f);
    physics__scene_free(&s);
}

/* A body spinning freely about a principal axis keeps spinning (no gravity, no contacts), and one
 * tumbling keeps its angular momentum, length and direction, within a percent or two over two
 * seconds (the implicit gyroscopic term loses a little energy, never gains). */
static void test_free_spin_keeps_momentum(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.gravity = v3(0, 0, 0);
    ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                              .shape = CT_BODY_BOX,
                              .half_extents = {0.2f, 0.5f, 1.0f},
                              .mass = 2.0f,
                              .angular_velocity = {0.3f, 0.2f, 4.0f}};
    add(&s, 1, d);
    const uint32_t i = at(&s, 1);
    float I[9];
    physics__world_inv_inertia(&s.bodies, i, I);
    const physics__v3 inv = s.bodies.inv_inertia[i];
    const physics__v3 L0 = v3(d.angular_velocity[0] / inv.x, d.angular_velocity[1] / inv.y,
                              d.angular_velocity[2] / inv.z);
    run(&s, 120);
    const physics__quat q = s.bodies.rotation[i];
    const physics__v3 wb = quat_unrotate(q, s.bodies.angular[i]);
    const physics__v3 L = quat_rotate(q, v3(wb.x / inv.x, wb.y / inv.y, wb.z / inv.z));
    print_message("|L| %.5f -> %.5f, L moved by %.5f\n", (double)v3_len(L0), (double)v3_len(L),
                  (double)v3_len(v3_sub(L, L0)));
    assert_true(fabsf(v3_len(L) - v3_len(L0)) < 0.01f * v3_len(L0));
    assert_true(v3_len(L) <= v3_len(L0) * 1.0001f);
    /* The vector too, not only its length: without the gyroscopic term the body would keep
     * turning about its first spin axis, and L would go round it (0.33 away after two seconds;
     * 0.012 with the term). */
    assert_true(v3_len(v3_sub(L, L0)) < 0.02f * v3_len(L0));
    physics__scene_free(&s);
}

/* A body of huge moments (each given within the [1e-9, 1e15] the desc allows) tumbles as one of
 * the same proportions: the term's equation is the same scaled. Its Newton step's determinant,
 * of the order of the moments' product, overflowed a float (a 1 km asteroid of 1e9 kg has such
 * moments), to infinity or NaN: the term was left out, and the body spun on about its unstable
 * middle axis. */
static void test_huge_moments_tumble_as_small_ones(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.gravity = v3(0, 0, 0);
    /* Moments 1 2 4, then 1e13 times those (the determinant infinite, the answer 0) and 2.5e14
     * times (the determinant NaN). */
    const float scale[3] = {1.0f, 1e13f, 2.5e14f};
    for (uint32_t b = 0; b < 3; b++) {
        ct_rigid_body_desc_t d = cube(10.0f * (float)b, 0, 0, 0.5f);
        for (int k = 0; k < 3; k++)
            d.inertia[k] = scale[b] * (float)(1 << k);
        d.angular_velocity[0] = 0.3f, d.angular_velocity[1] = 4.0f, d.angular_velocity[2] = 0.2f;
        add(&s, b + 1, d);
    }
    run(&s, 120);
    const physics__v3 ws = s.bodies.angular[at(&s, 1)];
    /* (It tumbled: the middle axis is unstable, w is no longer along y.) */
    assert_true(v3_len(v3_sub(ws, v3(0.3f, 4.0f, 0.2f))) > 0.1f);
    for (uint32_t b = 2; b <= 3; b++) {
        const physics__v3 wh = s.bodies.angular[at(&s, b)];
        print_message("w: moments 1 2 4: %.5f %.5f %.5f; %g times: %.5f %.5f %.5f\n",
                      (double)ws.x, (double)ws.y, (double)ws.z, (double)scale[b - 1],
                      (double)wh.x, (double)wh.y, (double)wh.z);
        assert_true(v3_within(wh, CT_PHYSICS_MAX_ANGULAR_SPEED));
        assert_true(v3_len(v3_sub(wh, ws)) < 1e-3f * v3_len(ws));
    }
    physics__scene_free(&s);
}

/* Locks: a v4 cube with every rotation lock and no rotation is a v1-v3 body (the translation-only
 * step, bit for bit); a linear lock keeps a body on its plane while it slides down a slope. */
static void test_locks(void **state)
{
    (void)state;
    physics__scene a, b;
    scene_init(&a);
    scene_init(&b);
    const ct_body_desc_t old = {.kind = CT_BODY_DYNAMIC,
                                .shape = CT_BODY_BOX,
                                .half_extents = {0.5f, 0.5f, 0.5f},
                                .mass = 1.0f,
                                .friction = 0.5f,
                                .position = {0, 3, 0},
                                .velocity = {1, 0, 0}};
    const ct_body_desc_t floor_old = {.kind = CT_BODY_STATIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {20, 1, 20},
                                      .position = {0, -1, 0}};
    assert_int_equal(physics__bodies_add(&a.bodies, (ct_entity_t){1}, &floor_old), 0);
    assert_int_equal(physics__bodies_add(&a.bodies, (ct_entity_t){2}, &old), 0);
    ct_rigid_body_desc_t floor_new = physics__rigid_of(&floor_old),
                         box_new = physics__rigid_of(&old);
    assert_int_equal(box_new.locks, CT_BODY_LOCK_ROTATION);
    add(&b, 1, floor_new);
    add(&b, 2, box_new);
    assert_int_equal(b.bodies.num_rotating, 0);
    run(&a, 90);
    run(&b, 90);
    assert_true(physics__state_hash(&a, NULL, NULL) == physics__state_hash(&b, NULL, NULL));
    physics__scene_free(&a);
    physics__scene_free(&b);

    /* A cube on a slope of 30 degrees about x, locked in x: it slides down along z only. */
    physics__scene s;
    scene_init(&s);
    ct_rigid_body_desc_t slope = {.kind = CT_BODY_STATIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {5, 0.5f, 5},
                                  .friction = 0.1f};
    const float a30 = 0.5235988f;
    slope.rotation[0] = sinf(0.5f * a30);
    slope.rotation[3] = cosf(0.5f * a30);
    add(&s, 1, slope);
    ct_rigid_body_desc_t c = cube(0.3f, 1.2f, 0, 0.25f);
    c.friction = 0.1f;
    c.rotation[0] = slope.rotation[0];
    c.rotation[3] = slope.rotation[3];
    c.locks = CT_BODY_LOCK_LINEAR_X;
    add(&s, 2, c);
    run(&s, 60);
    const uint32_t i = at(&s, 2);
    print_message("locked x %.6f, z %.3f\n", (double)s.bodies.position[i].x,
                  (double)s.bodies.position[i].z);
    assert_true(s.bodies.position[i].x == 0.3f);
    assert_true(fabsf(s.bodies.position[i].z) > 0.3f); /* it slid down the slope */
    physics__scene_free(&s);
}

/* v1-v3 bodies keep their behaviour in a world the rigid solver steps (one rotating body in it):
 * a translation-only cube (physics__bodies_add, what add_body of v2-v3 makes) set two thirds over
 * a ledge's edge neither turns nor tips, and rests on the ledge, while a v4 cube set the same way
 * beside it tips off. Per-axis angular locks: a v4 cube free to turn about z only tips about z and
 * its x and y spin stay exactly zero. */
static void test_old_bodies_keep_still_in_a_rigid_world(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    /* A ledge 1 m high along z, its edge at x = 0. */
    add(&s, 2, block(-2, 0.5f, 0, 2, 0.5f, 6, 0.6f));
    const ct_body_desc_t old = {.kind = CT_BODY_DYNAMIC,
                                .shape = CT_BODY_BOX,
                                .half_extents = {0.5f, 0.5f, 0.5f},
                                .mass = 1.0f,
                                .friction = 0.6f,
                                .position = {0.17f, 1.501f, -3}};
    assert_int_equal(physics__bodies_add(&s.bodies, (ct_entity_t){3}, &old), 0);
    add(&s, 4, cube(0.17f, 1.501f, 0, 0.5f));
    ct_rigid_body_desc_t z_only = cube(0.17f, 1.501f, 3, 0.5f);
    z_only.locks = CT_BODY_LOCK_ANGULAR_X | CT_BODY_LOCK_ANGULAR_Y;
    add(&s, 5, z_only);
    assert_true(s.bodies.num_rotating >= 1);
    float most_xy = 0.0f;
    for (int k = 0; k < 180; k++) {
        run(&s, 1);
        const physics__v3 w = s.bodies.angular[at(&s, 5)];
        most_xy = f_max(most_xy, f_max(fabsf(w.x), fabsf(w.y)));
    }
    const uint32_t o = at(&s, 3), n = at(&s, 4), z = at(&s, 5);
    const physics__quat qo = s.bodies.rotation[o], qz = s.bodies.rotation[z];
    print_message("old cube at (%.4f, %.4f), rotation (%g %g %g %g); v4 cube at y %.3f; z-only "
                  "cube at y %.3f, rotation (%.4f %.4f %.4f %.4f), x/y spin at most %g\n",
                  (double)s.bodies.position[o].x, (double)s.bodies.position[o].y, (double)qo.x,
                  (double)qo.y, (double)qo.z, (double)qo.w, (double)s.bodies.position[n].y,
                  (double)s.bodies.position[z].y, (double)qz.x, (double)qz.y, (double)qz.z,
                  (double)qz.w, (double)most_xy);
    /* The old cube: no turn at all, still on the ledge. */
    assert_true(quat_is_identity(qo));
    assert_true(v3_len(s.bodies.angular[o]) == 0.0f);
    assert_float_equal(s.bodies.position[o].y, 1.5f, 0.01f);
    assert_float_equal(s.bodies.position[o].x, 0.17f, 0.01f);
    /* The free v4 cube and the z-only one fell off the ledge onto the ground. */
    assert_true(s.bodies.position[n].y < 0.6f);
    assert_true(s.bodies.position[z].y < 0.6f);
    assert_true(qz.x == 0.0f && qz.y == 0.0f && fabsf(qz.z) > 0.3f);
    assert_true(most_xy == 0.0f);
    physics__scene_free(&s);
}

/* Inertia from shape and mass, the principal moments of solid shapes of even density: a box
 * m (y^2 + z^2) / 3 of its halves, a sphere 2/5 m r^2, a capsule its cylinder's and its two
 * half-balls' (parallel axes); a desc's inertia replaces it. */
static void test_inertia_from_shape_and_mass(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ct_rigid_body_desc_t box = cube(0, 0, 0, 0.5f);
    box.half_extents[0] = 1.0f, box.half_extents[2] = 0.25f, box.mass = 3.0f;
    add(&s, 1, box);
    add(&s, 2,
        (ct_rigid_body_desc_t){
            .kind = CT_BODY_DYNAMIC, .shape = CT_BODY_SPHERE, .radius = 0.5f, .mass = 2.0f});
    /* A capsule r 0.5, half height 0.5, 1 kg: the cylinder holds 1 / (1 + 2/3) of the volume,
     * 0.6 kg; about its axis 0.6 r^2 / 2 + 0.4 (2/5) r^2 = 0.115; across
     * 0.6 (3 r^2 + 4 hh^2) / 12 + 0.4 (2/5 r^2 + hh^2 + 3/4 hh r) = 0.0875 + 0.215 = 0.3025. */
    add(&s, 3,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_CAPSULE,
                               .radius = 0.5f,
                               .half_height = 0.5f,
                               .mass = 1.0f});
    ct_rigid_body_desc_t given = cube(3, 0, 0, 0.5f);
    given.inertia[0] = 1, given.inertia[1] = 2, given.inertia[2] = 4;
    add(&s, 4, given);
    const struct {
        uint32_t id;
        float x, y, z;
    } expect[] = {{1, 3.0f / 3.0f * (0.25f + 0.0625f), 3.0f / 3.0f * (1.0f + 0.0625f),
                   3.0f / 3.0f * (1.0f + 0.25f)},
                  {2, 0.2f, 0.2f, 0.2f},
                  {3, 0.3025f, 0.115f, 0.3025f},
                  {4, 1, 2, 4}};
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
        const physics__v3 inv = s.bodies.inv_inertia[at(&s, expect[k].id)];
        print_message("body %u: inertia %.6f %.6f %.6f\n", expect[k].id, 1.0 / (double)inv.x,
                      1.0 / (double)inv.y, 1.0 / (double)inv.z);
        assert_float_equal(1.0f / inv.x, expect[k].x, 1e-5f);
        assert_float_equal(1.0f / inv.y, expect[k].y, 1e-5f);
        assert_float_equal(1.0f / inv.z, expect[k].z, 1e-5f);
    }
    physics__scene_free(&s);
}

/* Manifold reduction: a cube turned 45 degrees about y on a cube of its size touches it on an
 * octagon (8 clipped points); the manifold keeps the 4 that hold the most area (every other
 * corner: 2 R^2 = 0.5858 m^2 of the octagon's 0.8284), and the cube rests on them. */
static void test_manifold_reduces_to_four(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.sleeping = false;
    add(&s, 1, block(0, 0.5f, 0, 0.5f, 0.5f, 0.5f, 0.6f));
    ct_rigid_body_desc_t top = cube(0, 1.5f, 0, 0.5f);
    top.rotation[1] = sinf(0.3926991f), top.rotation[3] = cosf(0.3926991f);
    add(&s, 2, top);
    physics__manifold_out m;
    physics__manifold(&s.bodies, at(&s, 1), at(&s, 2), 0.02f, false, &m);
    assert_int_equal(m.count, 4);
    /* The quadrilateral's area (the points taken in order round their centre). */
    physics__v3 c = v3(0, 0, 0);
    for (uint32_t k = 0; k < 4; k++)
        c = v3_add(c, v3_scale(m.p[k].point, 0.25f));
    float ang[4];
    uint32_t ord[4] = {0, 1, 2, 3};
    for (uint32_t k = 0; k < 4; k++)
        ang[k] = atan2f(m.p[k].point.z - c.z, m.p[k].point.x - c.x);
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t b = a + 1; b < 4; b++)
            if (ang[ord[b]] < ang[ord[a]]) {
                const uint32_t t = ord[a];
                ord[a] = ord[b], ord[b] = t;
            }
    float area = 0.0f;
    for (uint32_t k = 0; k < 4; k++) {
        const physics__v3 p = m.p[ord[k]].point, q = m.p[ord[(k + 1) % 4]].point;
        area += 0.5f * (p.x * q.z - q.x * p.z);
    }
    print_message("4 of the octagon's points kept, holding %.4f m^2 (0.5858 at most)\n",
                  (double)fabsf(area));
    assert_float_equal(fabsf(area), 0.5858f, 2e-3f);
    run(&s, 120);
    const uint32_t i = at(&s, 2);
    assert_float_equal(s.bodies.position[i].y, 1.5f, 2e-3f);
    assert_true(fabsf(s.bodies.rotation[i].x) < 1e-3f && fabsf(s.bodies.rotation[i].z) < 1e-3f);
    physics__scene_free(&s);
}

/* Speculative margins: a manifold finds the points within its margin before touching (a cube
 * 1.5 cm over the ground with the 2 cm margin: four points 1.5 cm apart; 3 cm over it: none), and
 * the step's margin grows with what the pair can close, so a cube falling at 12 m/s from 15 cm
 * over the ground (20 cm a step, too little for the continuous sweep) is stopped at the surface in
 * that step, neither sunk into it nor bounced. */
static void test_speculative_margin_stops_at_the_surface(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, false);
    add(&s, 2, cube(0, 0.515f, 0, 0.5f));
    add(&s, 3, cube(3, 0.53f, 0, 0.5f));
    physics__manifold_out m;
    physics__manifold(&s.bodies, at(&s, 1), at(&s, 2), 0.02f, false, &m);
    assert_int_equal(m.count, 4);
    for (uint32_t k = 0; k < 4; k++)
        assert_float_equal(m.p[k].sep, 0.015f, 1e-5f);
    physics__manifold(&s.bodies, at(&s, 1), at(&s, 3), 0.02f, false, &m);
    assert_int_equal(m.count, 0);
    physics__scene_free(&s);

    on_ground(&s, 20.0f, false);
    ct_rigid_body_desc_t d = cube(0, 0.65f, 0, 0.5f);
    d.velocity[1] = -12.0f;
    add(&s, 2, d);
    run(&s, 1);
    const uint32_t i = at(&s, 2);
    print_message("after one step: bottom at %.5f m, vy %.5f m/s\n",
                  (double)(s.bodies.position[i].y - 0.5f), (double)s.bodies.velocity[i].y);
    assert_float_equal(s.bodies.position[i].y, 0.5f, 2e-3f);
    assert_true(fabsf(s.bodies.velocity[i].y) < 0.2f);
    run(&s, 30);
    assert_float_equal(s.bodies.position[i].y, 0.5f, 2e-3f);
    physics__scene_free(&s);
}

/* A pyramid of rotating 1 m cubes `base` wide at the bottom, in rows in the x-y plane on the
 * ground, entities 2 on: the top cube's entity. */
static uint32_t pyramid(physics__scene *s, int base)
{
    uint32_t id = 2;
    for (int i = 0; i < base; i++)
        for (int j = i; j < base; j++)
            add(s, id++,
                cube((float)(i + 1) * 0.5f + (float)(j - i) - 0.5f * (float)base,
                     (2.0f * (float)i + 1.0f) * 0.5f, 0, 0.5f));
    return id - 1;
}

/* A 10-level pyramid of rotating cubes (55 cubes, Box3D's small pyramid) stands for 5 s, and the
 * run gives the same bits serially and on two threads: one pinned hash. */
static void test_pyramid_pinned_hash(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, false);
    const uint32_t top_id = pyramid(&s, 10);
    const physics__v3 top0 = s.bodies.position[at(&s, top_id)];
    run(&s, 300);
    const physics__v3 top = s.bodies.position[at(&s, top_id)];
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    print_message("pyramid top moved %.5f m, hash 0x%016llx\n", (double)v3_len(v3_sub(top, top0)),
                  (unsigned long long)h);
    assert_true(v3_len(v3_sub(top, top0)) < 0.01f);
    assert_true(h == 0xf7db44f1ee2bd481ull);
    physics__scene_free(&s);
}

/* The cube of s furthest off the plane z = 0 (m). */
static float furthest_off_plane(const physics__scene *s)
{
    float most = 0.0f;
    for (uint32_t i = 0; i < s->bodies.n; i++)
        most = f_max(most, fabsf(s->bodies.position[i].z));
    return most;
}

/* A 30-row pyramid of cubes (465) keeps still once settled: its top cube moves less than 0.3 mm
 * from step 200 to step 600. Friction that works on velocities alone let every contact slip a
 * little each step, the slips of the rows added up and the top crept sideways (0.86 mm here, 5 cm
 * on large_pyramid's rows): the friction's anchors (physics_rigid.c) pull the slips back. The
 * pyramid is one cube deep and nothing pushes it off its plane: no cube may leave it by 1.5 mm
 * in 600 steps. When each face's points were solved first to last and last to first in turn,
 * one edge of every face was met first in every substep and the pile leaned off its plane and
 * back; now each point comes first once a step (physics__rigid_point_at). The most is the top
 * cube's while the pile settles (at step 43, 1.01 mm; 0.54 mm when the pushing pass solved the
 * friction between cubes on their velocities, physics__rigid_solve_contact; Box3D's pyramid of
 * the same cubes leaves its plane by 2.9 mm). */
static void test_settled_pyramid_keeps_still(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 40.0f, false);
    uint32_t id = 2;
    const int base = 30;
    for (int i = 0; i < base; i++)
        for (int j = i; j < base; j++)
            add(&s, id++,
                cube((float)(i + 1) * 0.5f + (float)(j - i) - 0.5f * (float)base,
                     (2.0f * (float)i + 1.0f) * 0.5f, 0, 0.5f));
    const uint32_t top = at(&s, id - 1);
    float off_plane = 0.0f;
    physics__v3 settled = v3(0, 0, 0);
    for (int k = 0; k < 600; k++) {
        run(&s, 1);
        off_plane = f_max(off_plane, furthest_off_plane(&s));
        if (k == 199)
            settled = s.bodies.position[top];
    }
    const float moved = v3_len(v3_sub(s.bodies.position[top], settled));
    print_message("30-row pyramid: the top moved %.6f m from step 200 to 600 (at y %.4f), cubes "
                  "at most %.6f m off their plane\n",
                  (double)moved, (double)s.bodies.position[top].y, (double)off_plane);
    assert_true(s.bodies.position[top].y > 29.0f);
    assert_true(moved < 3e-4f);
    assert_true(off_plane < 1.5e-3f);
    physics__scene_free(&s);
}

/* A 40-wide pyramid (820 cubes, about 75 blocks of four contacts in its largest colours, so the
 * pool solves the blocks of a colour on both threads): the serial run and the two-thread one end
 * with the same pinned hash after 30 steps. */
static void test_wide_blocks_same_bits_on_threads(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 40.0f, false);
    pyramid(&s, 40);
    run(&s, 30);
    uint32_t largest = 0;
    for (uint32_t c = 0; c < s.rigid.num_colours; c++)
        if (s.rigid.colour_start[c + 1] - s.rigid.colour_start[c] > largest)
            largest = s.rigid.colour_start[c + 1] - s.rigid.colour_start[c];
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    print_message("40-wide pyramid: %u contacts, %u colours, %u blocks (largest colour %u), "
                  "%u overflow, hash 0x%016llx\n",
                  s.rigid.num_contacts, s.rigid.num_colours, s.rigid.num_blocks, largest,
                  s.rigid.num_overflow, (unsigned long long)h);
    assert_true(largest >= 64);
    assert_true(h == 0x7a6aaa9c906302a4ull);
    physics__scene_free(&s);
}

/* A 10 x 10 m plate on 49 cubes (the plate is in more contacts than the solver has colours: some
 * are solved one by one, whole) with 30 bouncing boxes (restitution 0.7) dropped on it: 300 steps
 * give a pinned hash. It pins the contacts that found no colour and the restitution pass, which
 * make their rows again from the step's kept contacts (physics_rigid.c): the same bits as when
 * every contact kept its rows. */
static void test_overflow_and_bounces_pinned_hash(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 50.0f, false);
    uint32_t id = 2;
    for (int x = 0; x < 7; x++)
        for (int z = 0; z < 7; z++)
            add(&s, id++, cube((float)x * 1.2f - 3.6f, 0.5f, (float)z * 1.2f - 3.6f, 0.5f));
    ct_rigid_body_desc_t plate = cube(0.1f, 1.3f, 0.05f, 0.5f);
    plate.half_extents[0] = plate.half_extents[2] = 5.0f;
    plate.half_extents[1] = 0.25f;
    plate.mass = 500.0f;
    add(&s, id++, plate);
    for (int k = 0; k < 30; k++) {
        ct_rigid_body_desc_t box =
            cube((float)(k % 6) - 2.5f, 3.0f + 0.5f * (float)k, (float)(k / 6) - 2.0f, 0.2f);
        box.mass = 1.0f;
        box.restitution = 0.7f;
        add(&s, id++, box);
    }
    uint32_t most_overflow = 0;
    bool bouncy = false;
    for (int k = 0; k < 300; k++) {
        run(&s, 1);
        if (s.rigid.num_overflow > most_overflow)
            most_overflow = s.rigid.num_overflow;
        bouncy |= s.rigid.bouncy;
    }
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    print_message("plate on 49 cubes: at most %u contacts solved one by one, hash 0x%016llx\n",
                  most_overflow, (unsigned long long)h);
    assert_true(most_overflow > 0);
    assert_true(bouncy);
    assert_true(h == 0x4fd4395012b0bc9bull);
    physics__scene_free(&s);
}

/* A tower of `n` rotating 100 kg cubes on the ground, each `lean` m further along z than the one
 * below; a force of `push` N along z on the top cube at every step. Returns the top's index. */
static uint32_t tower(physics__scene *s, int n, float lean, float push, int steps)
{
    on_ground(s, 20.0f, false);
    for (int i = 0; i < n; i++) {
        ct_rigid_body_desc_t d = cube(0, (float)i + 0.5f, lean * (float)i, 0.5f);
        d.mass = 100.0f;
        add(s, 2 + (uint32_t)i, d);
    }
    const uint32_t top = at(s, 1 + (uint32_t)n);
    for (int k = 0; k < steps; k++) {
        s->bodies.force[top] = v3(0, 0, push);
        assert_int_equal(physics__scene_step(s, 1.0f / 60.0f), 0);
    }
    return top;
}

/* A 20-cube tower leaning 2 mm a cube stands for 10 s, as Box3D's does (its top ends at z 0.0629
 * there). Before contacts were recycled it fell: the points and normals, found anew every step,
 * wandered with the rounding and the lean grew until the tower toppled (top at y 0.88 after
 * 600 steps). */
static void test_leaning_tower_stands(void **state)
{
    (void)state;
    physics__scene s;
    const uint32_t top = tower(&s, 20, 0.002f, 0.0f, 600);
    const physics__v3 p = s.bodies.position[top];
    print_message("leaning tower: top at y %.5f z %.5f, %u of %u manifolds recycled\n",
                  (double)p.y, (double)p.z, s.rigid.recycled, s.rigid.num_contacts);
    assert_true(p.y > 19.35f);
    assert_true(p.z > 0.03f && p.z < 0.08f); /* 19 x 2 mm = 0.038 to start with */
    assert_true(s.rigid.recycled == 20 && s.rigid.num_contacts == 20);
    physics__scene_free(&s);
}

/* A 10-cube tower pushed sideways at the top by 200 N tilts its top cube as much as Box3D's
 * (qx 0.009363 after 600 steps there); it was 40 % softer (0.0129) before recycling. */
static void test_pushed_tower_as_stiff_as_box3d(void **state)
{
    (void)state;
    physics__scene s;
    const uint32_t top = tower(&s, 10, 0.0f, 200.0f, 600);
    const physics__quat q = s.bodies.rotation[top];
    print_message("pushed tower: top qx %.6f z %.5f\n", (double)q.x,
                  (double)s.bodies.position[top].z);
    assert_float_equal(q.x, 0.00937f, 0.0003f);
    physics__scene_free(&s);
}

/* A stack of `n` boxes 1 m wide (x), 1.5 m high and 2 m deep, each `ratio` times heavier than
 * the one below (the bottom 1 kg), on a static box or a flat mesh; the top one dropped from 5 cm,
 * tilted 0.05 rad about x. Within 10 s every box sleeps, and the stack stands: each box level, on
 * the one below (soft contacts hold each a few millimetres into the one under it, more under more
 * load: the top of 1, 5 and 25 kg sinks 13 mm), not slid off it. */
static void heavy_on_light_rests(float ratio, int n, bool mesh_floor)
{
    physics__scene s;
    scene_init(&s);
    if (mesh_floor)
        add_wavy_mesh(&s, 1, 20, 1.0f, 0.0f, 0.0f, -10.0f, -10.0f);
    else
        add_ground(&s, 20.0f);
    float mass = 1.0f;
    for (int k = 0; k < n; k++) {
        ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {0.5f, 0.75f, 1.0f},
                                  .mass = mass,
                                  .friction = 0.6f,
                                  .position = {0, 0.75f + 1.5f * (float)k, 0}};
        if (k == n - 1) {
            d.position[1] += 0.05f;
            d.rotation[0] = sinf(0.025f);
            d.rotation[3] = cosf(0.025f);
        }
        add(&s, 2 + (uint32_t)k, d);
        mass *= ratio;
    }
    int slept = -1;
    for (int step = 0; step < 600 && slept < 0; step++) {
        run(&s, 1);
        bool all = true;
        for (int k = 0; k < n; k++)
            all &= s.bodies.asleep[at(&s, 2 + (uint32_t)k)] != 0;
        if (all)
            slept = step + 1;
    }
    const uint32_t top = at(&s, 1 + (uint32_t)n);
    print_message("%d boxes, each %gx the one below, on a %s: asleep at step %d, top spinning at "
                  "%.4f rad/s, at (%.4f, %.4f, %.4f)\n",
                  n, (double)ratio, mesh_floor ? "mesh" : "box", slept,
                  (double)v3_len(s.bodies.angular[top]), (double)s.bodies.position[top].x,
                  (double)s.bodies.position[top].y, (double)s.bodies.position[top].z);
    assert_true(slept > 0);
    for (int k = 0; k < n; k++) {
        const uint32_t i = at(&s, 2 + (uint32_t)k);
        const physics__v3 p = s.bodies.position[i];
        const physics__v3 up = quat_rotate(s.bodies.rotation[i], v3(0, 1, 0));
        assert_true(up.y > 0.9999f); /* level: less than 0.8 degrees off */
        assert_true(fabsf(p.x) < 0.1f && fabsf(p.z) < 0.1f);
        assert_true(fabsf(p.y - (0.75f + 1.5f * (float)k)) < 0.02f);
    }
    physics__scene_free(&s);
}

/* Heavy boxes on light ones (heavy_on_light_rests): 2:1, 5:1 and 10:1 two high, 1, 2 and 4 kg and
 * 1, 5 and 25 kg three high, each on a box and on a mesh. Friction solved rigidly in the soft
 * pass between two moving boxes kept all but 2:1 rocking at 0.02 to 0.06 rad/s for ever, never
 * asleep (physics__rigid_solve_contact). */
static void test_heavy_box_on_light_box_rests(void **state)
{
    (void)state;
    static const struct {
        float ratio;
        int n;
    } stacks[] = {{2.0f, 2}, {5.0f, 2}, {10.0f, 2}, {2.0f, 3}, {5.0f, 3}};
    for (size_t k = 0; k < sizeof stacks / sizeof stacks[0]; k++) {
        heavy_on_light_rests(stacks[k].ratio, stacks[k].n, false);
        heavy_on_light_rests(stacks[k].ratio, stacks[k].n, true);
    }
}

/* A crate (1 m, 10 kg, friction 0.6, restitution 0.1: the demo's) leaning on another: tilted
 * `lean` from upright towards it about z, then yawed about y, placed with its lowest corner 1 mm
 * above the floor and its corner nearest the other 1 mm from its side. Returns the step both
 * sleep at (-1: not within 600); *y is where the leaning crate's centre ends. */
static int leaning_crate_sleeps(float lean, float yaw, float *y)
{
    physics__scene s;
    on_ground(&s, 20.0f, true);
    ct_rigid_body_desc_t a = cube(0, 0.5f, 0, 0.5f);
    a.mass = 10.0f;
    a.restitution = 0.1f;
    add(&s, 2, a);
    ct_rigid_body_desc_t b = a;
    const physics__quat q = quat_mul((physics__quat){0, sinf(0.5f * yaw), 0, cosf(0.5f * yaw)},
                                     (physics__quat){0, 0, sinf(0.5f * lean), cosf(0.5f * lean)});
    b.rotation[0] = q.x, b.rotation[1] = q.y, b.rotation[2] = q.z, b.rotation[3] = q.w;
    float lo_y = INFINITY, lo_x = INFINITY;
    for (int k = 0; k < 8; k++) {
        const physics__v3 c = quat_rotate(q, v3(k & 1 ? 0.5f : -0.5f, k & 2 ? 0.5f : -0.5f,
                                                k & 4 ? 0.5f : -0.5f));
        lo_y = f_min(lo_y, c.y), lo_x = f_min(lo_x, c.x);
    }
    b.position[0] = 0.501f - lo_x;
    b.position[1] = 0.001f - lo_y;
    add(&s, 3, b);
    int slept = -1;
    for (int step = 0; step < 600 && slept < 0; step++) {
        run(&s, 1);
        if (s.bodies.asleep[at(&s, 2)] && s.bodies.asleep[at(&s, 3)])
            slept = step + 1;
    }
    *y = s.bodies.position[at(&s, 3)].y;
    print_message("leaning %.0f degrees, yawed %.0f: both asleep at step %d, its centre at y %.3f\n",
                  (double)(lean * 57.29578f), (double)(yaw * 57.29578f), slept, (double)*y);
    physics__scene_free(&s);
    return slept;
}

/* A crate leaning on another, its bottom edge on the floor and an upper edge or corner against the
 * other's side (straight on, and yawed so that one corner touches), rests where it leans and the
 * two sleep within a second (the demo's crates are these). */
static void test_leaning_crate_sleeps(void **state)
{
    (void)state;
    static const float leans[][2] = {{50, 0}, {60, 0}, {60, 30}, {70, 45}};
    for (size_t k = 0; k < sizeof leans / sizeof leans[0]; k++) {
        float y;
        const int slept = leaning_crate_sleeps(leans[k][0] * 0.01745329f, leans[k][1] * 0.01745329f, &y);
        assert_true(slept > 0 && slept <= 60);
        assert_true(y > 0.6f); /* still leaning: flat it would be at 0.5 */
    }
}

/* A crate (1 m, 10 kg, friction 0.6) standing on an edge along z, turned `off` rad past the
 * edge's balance (towards -x), turning at `spin` rad/s about the edge (positive: towards -x); a
 * box, or a compound whose one child is that box (`compound`). Returns the step its centre comes
 * down past y = 0.6 (-1: not in 300 steps) and *side, the side of the edge it came down on (-1:
 * -x). */
static int crate_off_its_edge(float off, float spin, bool compound, int *side)
{
    physics__scene s;
    on_ground(&s, 20.0f, false);
    const float d = 0.70710678f; /* the centre from the edge */
    ct_rigid_body_desc_t b = cube(-d * sinf(off), d * cosf(off), 0, 0.5f);
    b.mass = 10.0f;
    about_z(0.78539816f + off, b.rotation);
    b.angular_velocity[2] = spin;
    b.velocity[0] = -spin * d * cosf(off);
    b.velocity[1] = -spin * d * sinf(off);
    if (compound) {
        const ct_compound_child_t crate = {.shape = CT_BODY_BOX, .half_extents = {0.5f, 0.5f, 0.5f}};
        physics__compound *c;
        char reason[160];
        assert_null(physics__compound_build(&alloc.base, &crate, 1, &c, reason, sizeof reason));
        b.shape = CT_BODY_COMPOUND;
        assert_int_equal(physics__bodies_add_compound(&s.bodies, (ct_entity_t){2}, &b, c), 0);
    } else {
        add(&s, 2, b);
    }
    int fell = -1;
    for (int step = 0; step < 300 && fell < 0; step++) {
        run(&s, 1);
        if (s.bodies.position[at(&s, 2)].y < 0.6f)
            fell = step + 1;
    }
    *side = s.bodies.position[at(&s, 2)].x < 0.0f ? -1 : 1;
    physics__scene_free(&s);
    return fell;
}

/* The step at which a cube on its edge, as crate_off_its_edge starts it, comes down past y = 0.6
 * by its equation of motion (the pivot held: theta'' = (m g d / I) sin theta, d the centre from
 * the edge, I the inertia about it), in steps of 1/6000 s. */
static int edge_equation(double th, double w)
{
    const double rate = 9.81 * 0.70710678 / (2.0 / 3.0);
    int step = 0;
    while (0.70710678 * cos(th) >= 0.6 && step < 300) {
        step++;
        for (int k = 0; k < 100; k++) {
            w += rate * sin(th) / 6000.0;
            th += w / 6000.0;
        }
    }
    return step;
}

/* A crate on its edge falls off it as a rigid body on that edge does: let go 0.01 rad past the
 * balance, its centre comes down past y = 0.6 at step 88 of the equation of motion; rocked up
 * from 0.05 rad on the other side at 0.169 rad/s (over the top at 0.05 rad/s), it goes over and
 * falls that way (step 115 of the equation). With the anchors of its edge's recycled manifold kept
 * where they were found, the first fell at step 96, and the second, pushed back by the floor as if
 * still short of the top, fell back down the side it came from (at step 111): as the demo's crate
 * stood on its edge for 100 frames. */
static void test_crate_falls_off_its_edge(void **state)
{
    (void)state;
    const int fell_eq = edge_equation(0.01, 0.0), rocked_eq = edge_equation(-0.05, 0.169);
    assert_int_equal(fell_eq, 88);
    assert_int_equal(rocked_eq, 115);
    for (int compound = 0; compound < 2; compound++) {
        int side, over;
        const int fell = crate_off_its_edge(0.01f, 0.0f, compound, &side);
        const int rocked = crate_off_its_edge(-0.05f, 0.169f, compound, &over);
        print_message("%slet go 0.01 rad off: fell at step %d (the equation: %d) on side %d; rocked "
                      "over the top: fell at step %d (%d) on side %d\n",
                      compound ? "compound: " : "", fell, fell_eq, side, rocked, rocked_eq, over);
        assert_true(side == -1 && fell >= fell_eq && fell <= fell_eq + 3);
        assert_true(over == -1 && rocked >= rocked_eq && rocked <= rocked_eq + 12);
    }
}

/* Every field of a v4 desc is checked, naming the field: NaN, out of range, a rotation that is
 * not one, a capsule without a radius, inertia of the wrong sign. */
static void test_bad_rigid_descs_refused(void **state)
{
    (void)state;
    const ct_rigid_body_desc_t good = cube(0, 1, 0, 0.5f);
    assert_null(physics__rigid_desc_error(&good));
    ct_rigid_body_desc_t d[12];
    const char *field[12];
    int n = 0;
    d[n] = good, d[n].rotation[0] = NAN, field[n++] = "rotation";
    d[n] = good, d[n].rotation[3] = 0.9f, field[n++] = "rotation";
    d[n] = good, d[n].angular_velocity[1] = NAN, field[n++] = "angular_velocity";
    d[n] = good, d[n].angular_velocity[1] = 2e3f, field[n++] = "angular_velocity";
    d[n] = good, d[n].inertia[0] = -1.0f, field[n++] = "inertia";
    d[n] = good, d[n].inertia[2] = INFINITY, field[n++] = "inertia";
    d[n] = good, d[n].locks = 64u, field[n++] = "locks";
    d[n] = good, d[n].shape = CT_BODY_CAPSULE, d[n].radius = 0.0f, field[n++] = "radius";
    d[n] = good, d[n].shape = CT_BODY_CAPSULE, d[n].radius = 0.2f, d[n].half_height = NAN,
    field[n++] = "half_height";
    d[n] = good, d[n].shape = 7u, field[n++] = "shape (box, sphere or capsule)";
    d[n] = good, d[n].half_extents[1] = NAN, field[n++] = "half_extents";
    d[n] = good, d[n].mass = 0.0f, field[n++] = "mass";
    for (int k = 0; k < n; k++) {
        const char *bad = physics__rigid_desc_error(&d[k]);
        assert_non_null(bad);
        assert_non_null(strstr(bad, field[k]));
    }
    /* A rotation of all zeros is the identity; one a little off length 1 is normalised. */
    ct_rigid_body_desc_t ok = good;
    ok.rotation[3] = 1.0005f;
    assert_null(physics__rigid_desc_error(&ok));
    /* v1-v3 descs refuse the capsule (they have no half height). */
    const ct_body_desc_t old = {
        .kind = CT_BODY_DYNAMIC, .shape = CT_BODY_CAPSULE, .radius = 0.5f, .mass = 1.0f};
    assert_non_null(strstr(physics__body_desc_error(&old), "shape"));
}

/* Queries see turned boxes and capsules as they are: a point in a turned box's bounding box but
 * outside the box is not in it, and rays stop at the turned faces and the capsule's side. */
static void test_queries_see_turned_shapes(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ct_rigid_body_desc_t box = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_BOX, .half_extents = {1, 1, 1}};
    about_z(0.7853982f, box.rotation); /* 45 degrees: a diamond in x-y, corners at +-1.414 */
    add(&s, 1, box);
    add(&s, 2,
        (ct_rigid_body_desc_t){.kind = CT_BODY_STATIC,
                               .shape = CT_BODY_CAPSULE,
                               .radius = 0.5f,
                               .half_height = 1.0f,
                               .position = {10, 0, 0}});
    ct_entity_t out[4];
    /* (1.2, 1.2) lies inside the turned box's bounds but outside the box. */
    assert_int_equal(
        physics__scene_overlap_sphere(&s, v3(1.2f, 1.2f, 0), 0.05f, UINT32_MAX, out, 4), 0);
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(1.3f, 0, 0), 0.05f, UINT32_MAX, out, 4),
                     1);
    /* The capsule reaches y = 1.5 on its axis, and 0.5 off it. */
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(10, 1.45f, 0), 0.01f, UINT32_MAX, out, 4),
                     1);
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(10.6f, 0, 0), 0.05f, UINT32_MAX, out, 4),
                     0);
    ct_physics_hit_t hit;
    /* Along x from -5: the diamond's corner at x = -1.414. */
    assert_true(physics__scene_raycast(&s, v3(-5, 0, 0), v3(1, 0, 0), 20.0f, UINT32_MAX, &hit));
    assert_int_equal(hit.entity, 1);
    assert_float_equal(hit.distance, 5.0f - 1.4142136f, 1e-4f);
    /* Down onto the diamond at x = 0.5: its face y = 1.414 - 0.5, the normal (0.707, 0.707). */
    assert_true(physics__scene_raycast(&s, v3(0.5f, 5, 0), v3(0, -1, 0), 20.0f, UINT32_MAX, &hit));
    assert_float_equal(hit.distance, 5.0f - (1.4142136f - 0.5f), 1e-4f);
    assert_float_equal(hit.normal[0], 0.7071068f, 1e-4f);
    assert_float_equal(hit.normal[1], 0.7071068f, 1e-4f);
    /* At the capsule's side and its top. */
    assert_true(physics__scene_raycast(&s, v3(5, 0.3f, 0), v3(1, 0, 0), 20.0f, UINT32_MAX, &hit));
    assert_int_equal(hit.entity, 2);
    assert_float_equal(hit.distance, 4.5f, 1e-4f);
    assert_true(physics__scene_raycast(&s, v3(10, 5, 0), v3(0, -1, 0), 20.0f, UINT32_MAX, &hit));
    assert_float_equal(hit.distance, 3.5f, 1e-4f);
    assert_float_equal(hit.normal[1], 1.0f, 1e-5f);
    physics__scene_free(&s);
}

/* Snapshots of a world of rotating bodies (physics_snapshot.c): a tower of three cubes
 * that has come to rest (its manifolds recycled) is saved; restored, the next 50 steps give the
 * hashes of the 50 that followed the save. A snapshot of format 3 is refused naming its version
 * field, and one whose contacts the world's shapes no longer give (a cube shrank since) is
 * refused too. */
static void test_snapshot_restores_recycled_manifolds(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 5.0f, false);
    for (uint32_t k = 0; k < 3; k++)
        add(&s, 2 + k, cube(0.05f * (float)k, 0.5f + (float)k, 0, 0.5f));
    run(&s, 120);
    assert_true(s.rigid.recycled > 0);
    uint32_t size;
    uint8_t *snap = save_snapshot(&s, &size);
    print_message("tower snapshot: %u bytes for %u bodies\n", size, s.bodies.n);
    assert_true(size <= 128u * s.bodies.n);
    uint64_t hashes[50];
    run_recording(&s, 50, hashes);
    uint32_t version, old = 3;
    memcpy(&version, snap + 4, sizeof version);
    memcpy(snap + 4, &old, sizeof old);
    const char *why = physics__snapshot_check(&s, NULL, snap, size);
    assert_non_null(why);
    assert_non_null(strstr(why, "version field"));
    memcpy(snap + 4, &version, sizeof version);
    const uint32_t top = at(&s, 4);
    const physics__v3 half = s.bodies.half[top];
    s.bodies.half[top] = v3(0.2f, 0.2f, 0.2f);
    why = physics__snapshot_check(&s, NULL, snap, size);
    assert_non_null(why);
    assert_non_null(strstr(why, "shapes"));
    assert_int_equal(physics__snapshot_restore(&s, NULL, snap, size), CT_ERR_INVALID);
    s.bodies.half[top] = half;
    assert_int_equal(physics__snapshot_restore(&s, NULL, snap, size), 0);
    run_matching(&s, 50, hashes);
    free(snap);
    physics__scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_box_on_edge_tips_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ball_rolls_off_a_corner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rotating_stack_stands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resting_box_has_four_points, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsules_rest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_spin_keeps_momentum, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_moments_tumble_as_small_ones, setup, teardown),
        cmocka_unit_test_setup_teardown(test_locks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_old_bodies_keep_still_in_a_rigid_world, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_inertia_from_shape_and_mass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifold_reduces_to_four, setup, teardown),
        cmocka_unit_test_setup_teardown(test_speculative_margin_stops_at_the_surface, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pyramid_pinned_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wide_blocks_same_bits_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overflow_and_bounces_pinned_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settled_pyramid_keeps_still, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaning_tower_stands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pushed_tower_as_stiff_as_box3d, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heavy_box_on_light_box_rests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaning_crate_sleeps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crate_falls_off_its_edge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_rigid_descs_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queries_see_turned_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_restores_recycled_manifolds, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
#ifdef RIGID_HASH_ONLY
    /* The -O0 build checks only that it reaches the pinned hashes (the rest is slow there), and
     * serially: the build at -O2 checks that two threads reach them too (as _clang leaves threads
     * to gcc). Both groups were half of this build's time each, 8 s under ASan. */
    cmocka_set_test_filter("test_*_pinned_hash");
    const int failed = cmocka_run_group_tests_name("serial", tests, NULL, NULL);
#else
    /* test_bad_rigid_descs_refused builds no scene. The settled pyramid (600 steps of 465
     * cubes, four fifths of this test's time) ends on two threads on the bits it ends on serially
     * (the same state hash, 0xf725e296fd050b08, when this was decided): the threads' group would
     * only print its numbers again. That two threads give a rigid step's bits is
     * test_wide_blocks_same_bits_on_threads' and physics_threads' to check. */
    static const char *const serial_only[] = {"test_bad_rigid_descs_refused",
                                              "test_settled_pyramid_keeps_still", NULL};
    const int failed =
        physics_fixture_run_groups(tests, sizeof tests / sizeof tests[0], serial_only);
#endif
    physics_fixture_stop();
    return failed;
}
