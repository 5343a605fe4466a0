/* Features that come within reach of a pair of convex shapes (boxes, hulls, capsules) while the
 * manifold found at an earlier pose is used again (physics_rigid.c, rigid__recyclable): a body
 * dropped nearly level onto a static box, or tipping over a hull's ridge, has a manifold of its
 * lowest corners alone, the others just past the margin; used again while it comes down and turns
 * onto them, it must not let them 5 mm into what is under them (found anew every step, none of
 * these goes 2 mm in), and the body must come to rest. And a capsule's manifold against a box
 * (manifold__capsule_box): over a ledge's edge, lying on a face, through a thin wall. Without the
 * kernel, serial and on two threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

enum { FLOOR = 1, BODY = 2 };
enum shape { BOARD, CUBE, CAPSULE, SLAB };

#define DEG (3.14159265f / 180.0f)

static physics__quat turned(physics__v3 axis, float angle)
{
    const float s = sinf(0.5f * angle);
    return (physics__quat){axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)};
}

/* Entity BODY (4 kg, friction 0.6) at the origin turned by q: a board 2 x 0.1 x 0.4 m, a cube of
 * 1 m, a capsule 2.2 m long of radius 0.1 lying along x, or a hull: a hexagonal slab 2 x 1 m
 * across, 0.1 m thick. */
static void add_body(physics__scene *s, enum shape shape, physics__quat q)
{
    ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC, .mass = 4.0f, .friction = 0.6f};
    if (shape == CAPSULE)
        q = quat_mul(q, turned(v3(0, 0, 1), 90.0f * DEG));
    d.rotation[0] = q.x, d.rotation[1] = q.y, d.rotation[2] = q.z, d.rotation[3] = q.w;
    if (shape == SLAB) {
        float p[36];
        for (int k = 0; k < 6; k++) {
            const float a = (float)k * 60.0f * DEG;
            for (int side = 0; side < 2; side++) {
                p[6 * k + 3 * side + 0] = cosf(a);
                p[6 * k + 3 * side + 1] = side ? 0.05f : -0.05f;
                p[6 * k + 3 * side + 2] = 0.5f * sinf(a);
            }
        }
        physics__hull built;
        char reason[128];
        assert_null(physics__hull_build(&built, p, 12, reason, sizeof reason));
        d.shape = CT_BODY_HULL;
        assert_int_equal(physics__bodies_add_hull(&s->bodies, (ct_entity_t){BODY}, &d,
                                                  physics__bodies_hull(&s->bodies, &built)),
                         0);
        return;
    }
    const float half[3][3] = {{1.0f, 0.05f, 0.2f}, {0.5f, 0.5f, 0.5f}, {0.1f, 1.1f, 0.1f}};
    d.shape = shape == CAPSULE ? CT_BODY_CAPSULE : CT_BODY_BOX;
    d.half_extents[0] = half[shape][0], d.half_extents[1] = half[shape][1];
    d.half_extents[2] = half[shape][2];
    d.radius = 0.1f, d.half_height = 1.0f;
    add(s, BODY, d);
}

/* The corners of body i (a capsule's: its segment's ends and 15 points between, as balls) and
 * how deep the deepest lies in body j (a box or hull; negative: how far the nearest is). */
static float depth_in(const physics__scene *s, uint32_t i, uint32_t j)
{
    const physics__bodies *b = &s->bodies;
    physics__poly under;
    physics__poly_of(b, j, &under);
    physics__v3 point[PHYSICS_HULL_MAX_VERTICES];
    uint32_t n = 0;
    float r = 0.0f;
    if (b->shape[i] == CT_BODY_CAPSULE) {
        physics__v3 p0, p1;
        physics__round_segment(b, i, &p0, &p1);
        for (; n <= 16; n++)
            point[n] = v3_add(p0, v3_scale(v3_sub(p1, p0), (float)n / 16.0f));
        r = b->radius[i];
    } else {
        physics__poly body;
        physics__poly_of(b, i, &body);
        for (; n < body.nv; n++)
            point[n] = body.v[n];
    }
    float deepest = -INFINITY;
    for (uint32_t k = 0; k < n; k++) {
        float sep;
        physics__v3 normal;
        physics__poly_closest(&under, point[k], &sep, &normal);
        deepest = f_max(deepest, r - sep);
    }
    return deepest;
}

/* Moves body i up or down so that its lowest point is h over the plane y = 0. */
static void lowest_at(physics__scene *s, uint32_t i, float h)
{
    const physics__bodies *b = &s->bodies;
    float low = INFINITY;
    if (b->shape[i] == CT_BODY_CAPSULE) {
        physics__v3 p0, p1;
        physics__round_segment(b, i, &p0, &p1);
        low = f_min(p0.y, p1.y) - b->radius[i];
    } else {
        physics__poly body;
        physics__poly_of(b, i, &body);
        for (uint32_t k = 0; k < body.nv; k++)
            low = f_min(low, body.v[k].y);
    }
    s->bodies.position[i].y += h - low;
}

/* `steps` steps of s: the deepest BODY went into FLOOR in any step; then whether it came to rest
 * (slower than 1 cm/s and 0.02 rad/s). s is freed. */
static float deepest_in_run(physics__scene *s, int steps, bool *rests)
{
    const uint32_t i = at(s, BODY), j = at(s, FLOOR);
    float deepest = -INFINITY;
    for (int k = 0; k < steps; k++) {
        assert_int_equal(physics__scene_step(s, 1.0f / 60.0f), 0);
        deepest = f_max(deepest, depth_in(s, i, j));
    }
    *rests = v3_len(s->bodies.velocity[i]) < 0.01f && v3_len(s->bodies.angular[i]) < 0.02f;
    physics__scene_free(s);
    return deepest;
}

/* `shape` turned by `tilt` about `axis`, its lowest point h over the ground (fixture's static
 * box, friction 0.6), let go; 2.5 s. */
static void drop(enum shape shape, physics__v3 axis, float tilt, float h, const char *what)
{
    physics__scene s;
    on_ground(&s, 10.0f, true);
    add_body(&s, shape, turned(axis, tilt));
    lowest_at(&s, at(&s, BODY), h);
    bool rests;
    const float deepest = deepest_in_run(&s, 150, &rests);
    print_message("%s: %.4f m deep at most, %s\n", what, (double)deepest,
                  rests ? "rests" : "still moving");
    assert_true(deepest < 0.005f);
    assert_true(rests);
}

/* A cube of 1 m dropped 4.1 cm with a quarter of a degree's tilt: its manifold, found as it
 * fell with its lowest corner alone within the margin (2.8 cm), was used again while the cube
 * came down on that corner and turned its others 2.9 cm into the floor. */
static void test_cube_dropped_nearly_level(void **state)
{
    (void)state;
    drop(CUBE, v3(0.6f, 0, 0.8f), 0.25f * DEG, 0.041f, "cube");
}

/* A board dropped 1 cm with half a degree's tilt comes down on one corner and turns onto its
 * face (4.6 cm into the floor). */
static void test_board_dropped_on_a_corner(void **state)
{
    (void)state;
    drop(BOARD, v3(0.6f, 0, 0.8f), 0.5f * DEG, 0.01f, "board on a corner");
}

/* A board dropped 9 cm tilted 2.75 degrees about its length lands on one long edge and turns
 * down at 3.8 rad/s onto the other, 4 cm over the floor when its manifold was found (1.3 cm in;
 * as much when the pair counted only what it closes at its centres' speed, as a pair with a mesh
 * does: the turn brings the other edge down faster than the centre). */
static void test_board_dropped_on_an_edge(void **state)
{
    (void)state;
    drop(BOARD, v3(1, 0, 0), 2.75f * DEG, 0.09f, "board on an edge");
}

/* A capsule dropped 1 cm with a 0.75 degree tilt comes down on one end (2.2 cm in). */
static void test_capsule_dropped_on_an_end(void **state)
{
    (void)state;
    drop(CAPSULE, v3(0.6f, 0, 0.8f), 0.75f * DEG, 0.01f, "capsule");
}

/* A hull slab dropped 2.1 cm tilted half a degree onto one edge (2.9 cm in). */
static void test_hull_dropped_on_an_edge(void **state)
{
    (void)state;
    drop(SLAB, v3(1, 0, 0), 0.5f * DEG, 0.021f, "hull slab");
}

/* A static hull roof, 6 m wide along x and 2 m deep, its sides sloping 4 degrees, and the board
 * laid level across its ridge, its centre 11 cm past it: it tips over the ridge onto the slope,
 * 8 cm under its end when its manifold was found (3.2 cm into the roof). 3 s. */
static void test_board_tips_over_a_hull_ridge(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    const float w = 3.0f, h = w * tanf(4.0f * DEG);
    const float roof[18] = {-w, 0, -1, w, 0, -1, 0, h, -1, -w, 0, 1, w, 0, 1, 0, h, 1};
    physics__hull built;
    char reason[128];
    assert_null(physics__hull_build(&built, roof, 6, reason, sizeof reason));
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_HULL,
                                    .friction = 0.6f,
                                    .position = {0, built.centroid.y, 0}};
    assert_int_equal(physics__bodies_add_hull(&s.bodies, (ct_entity_t){FLOOR}, &d,
                                              physics__bodies_hull(&s.bodies, &built)),
                     0);
    add_body(&s, BOARD, quat_identity());
    const uint32_t i = at(&s, BODY);
    s.bodies.position[i].x = 0.11f;
    lowest_at(&s, i, h + 0.001f);
    bool rests;
    const float deepest = deepest_in_run(&s, 180, &rests);
    print_message("board over the ridge: %.4f m deep at most, %s\n", (double)deepest,
                  rests ? "rests" : "still moving");
    assert_true(deepest < 0.005f);
    assert_true(rests);
}

/* What a capsule meets in the tests below: a static box, the same box as a hull, or a
 * 12-sided prism hull (rounder: its faces meet at 30 degrees). */
enum under { UNDER_BOX, UNDER_BOX_HULL, UNDER_PRISM };

/* The static hull of the n points p (about their centroid) as entity FLOOR, at `at`. */
static void add_static_hull(physics__scene *s, const float *p, uint32_t n, physics__v3 at)
{
    physics__hull built;
    char reason[128];
    assert_null(physics__hull_build(&built, p, n, reason, sizeof reason));
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_HULL,
                                    .friction = 0.6f,
                                    .position = {at.x + built.centroid.x, at.y + built.centroid.y,
                                                 at.z + built.centroid.z}};
    assert_int_equal(physics__bodies_add_hull(&s->bodies, (ct_entity_t){FLOOR}, &d,
                                              physics__bodies_hull(&s->bodies, &built)),
                     0);
}

/* A static box of half extents h at `at` as entity FLOOR: a box, or a hull of its 8 corners. */
static void add_static_box(physics__scene *s, bool hull, physics__v3 h, physics__v3 at)
{
    if (!hull) {
        const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {h.x, h.y, h.z},
                                        .friction = 0.6f,
                                        .position = {at.x, at.y, at.z}};
        assert_int_equal(physics__bodies_add_rigid(&s->bodies, (ct_entity_t){FLOOR}, &d), 0);
        return;
    }
    float p[24];
    for (int k = 0; k < 8; k++) {
        p[3 * k + 0] = k & 1 ? h.x : -h.x;
        p[3 * k + 1] = k & 2 ? h.y : -h.y;
        p[3 * k + 2] = k & 4 ? h.z : -h.z;
    }
    add_static_hull(s, p, 8, at);
}

/* A static 12-sided prism as entity FLOOR at `at`: corners at radius r and angles 15 + 30 k
 * degrees in the (x, y) plane (so its top face is level), `half` long along z; `across`: the
 * polygon in the (y, z) plane instead, `half` thick along x. */
static void add_static_prism(physics__scene *s, float r, float half, bool across, physics__v3 at)
{
    float p[72];
    for (int k = 0; k < 12; k++) {
        const float a = (15.0f + 30.0f * (float)k) * DEG;
        for (int side = 0; side < 2; side++) {
            float *q = p + 6 * k + 3 * side;
            const float u = r * cosf(a), v = r * sinf(a), w = side ? half : -half;
            q[0] = across ? w : u, q[1] = across ? u : v, q[2] = across ? v : w;
        }
    }
    add_static_hull(s, p, 24, at);
}

/* A static box ledge, its top at y = 0 and its edge along z at x = 0, and the capsule lying on it
 * turned 60 degrees about y, its centre 30 cm short of the edge, pushed at 1.5 m/s: it slides
 * over the edge and tips down past it. Its manifold's third ball, the segment's point nearest the
 * box, was found by projecting back and forth between segment and box, which crawls where the
 * segment lies nearly along the top: it stayed near the middle while the segment went 7.6 cm
 * into the edge. 0.75 s, until the capsule has tipped 20 cm under the top. */
static void capsule_over_a_ledge(enum under under, const char *what)
{
    physics__scene s;
    scene_init(&s);
    if (under == UNDER_PRISM)
        add_static_prism(&s, 4.0f, 2.0f, false,
                         v3(-4.0f * cosf(75.0f * DEG), -4.0f * sinf(75.0f * DEG), 0));
    else
        add_static_box(&s, under == UNDER_BOX_HULL, v3(2, 1, 2), v3(-2, -1, 0));
    add_body(&s, CAPSULE, turned(v3(0, 1, 0), 60.0f * DEG));
    const uint32_t i = at(&s, BODY), j = at(&s, FLOOR);
    s.bodies.position[i].x = -0.3f;
    lowest_at(&s, i, 0.0f);
    s.bodies.velocity[i] = v3(1.5f, 0, 0);
    float deepest = -INFINITY;
    for (int k = 0; k < 45; k++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        deepest = f_max(deepest, depth_in(&s, i, j));
    }
    physics__v3 p0, p1;
    physics__round_segment(&s.bodies, i, &p0, &p1);
    physics__scene_free(&s);
    print_message("capsule over a %s ledge: %.4f m deep at most, its lower end at %.3f m\n", what,
                  (double)deepest, (double)f_min(p0.y, p1.y));
    assert_true(f_min(p0.y, p1.y) < -0.2f);
    assert_true(deepest < 0.005f);
}

static void test_capsule_tips_over_a_box_ledge(void **state)
{
    (void)state;
    capsule_over_a_ledge(UNDER_BOX, "box");
}

static void test_capsule_tips_over_a_hull_ledge(void **state)
{
    (void)state;
    capsule_over_a_ledge(UNDER_BOX_HULL, "box hull");
    capsule_over_a_ledge(UNDER_PRISM, "prism");
}

/* A capsule dropped level 1 cm onto the ground rests on two points, its segment's ends (the face's
 * clip of it), at the ground's face: with the ends and the segment's point nearest the box as
 * three balls it rested on three in a line. 2.5 s. */
static void capsule_on_a_face(enum under under, const char *what)
{
    physics__scene s;
    scene_init(&s);
    s.sleeping = true;
    if (under == UNDER_PRISM)
        add_static_prism(&s, 6.0f, 2.0f, false, v3(0, -6.0f * sinf(75.0f * DEG), 0));
    else
        add_static_box(&s, under == UNDER_BOX_HULL, v3(10, 1, 10), v3(0, -1, 0));
    add_body(&s, CAPSULE, quat_identity());
    const uint32_t i = at(&s, BODY), j = at(&s, FLOOR);
    lowest_at(&s, i, 0.01f);
    float deepest = -INFINITY;
    for (int k = 0; k < 150; k++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        deepest = f_max(deepest, depth_in(&s, i, j));
    }
    const bool rests = v3_len(s.bodies.velocity[i]) < 0.01f && v3_len(s.bodies.angular[i]) < 0.02f;
    physics__manifold_out m;
    physics__manifold(&s.bodies, i, j, 0.02f, false, &m);
    physics__v3 p0, p1;
    physics__round_segment(&s.bodies, i, &p0, &p1);
    physics__scene_free(&s);
    print_message("capsule lying on a %s: %.4f m deep at most, %s, %u points", what,
                  (double)deepest, rests ? "rests" : "still moving", m.count);
    for (uint32_t q = 0; q < m.count; q++)
        print_message(" (%.3f %.4f %.3f sep %.5f)", (double)m.p[q].point.x, (double)m.p[q].point.y,
                      (double)m.p[q].point.z, (double)m.p[q].sep);
    print_message("\n");
    assert_true(rests);
    assert_true(deepest < 0.001f);
    assert_int_equal(m.count, 2);
    /* from the capsule down into the ground */
    assert_float_equal(m.normal.y, -1.0f, 1e-5f);
    for (uint32_t q = 0; q < 2; q++) {
        assert_true(fabsf(m.p[q].sep) < 0.001f);
        assert_true(fabsf(m.p[q].point.y) < 0.001f);
    }
    /* one at each end of the segment */
    assert_true(fabsf(fabsf(m.p[0].point.x - m.p[1].point.x) - fabsf(p1.x - p0.x)) < 0.001f);
}

static void test_capsule_lies_on_a_face_on_two_points(void **state)
{
    (void)state;
    capsule_on_a_face(UNDER_BOX, "box");
}

static void test_capsule_lies_on_a_hull_face_on_two_points(void **state)
{
    (void)state;
    capsule_on_a_face(UNDER_BOX_HULL, "box hull");
    capsule_on_a_face(UNDER_PRISM, "prism");
}

/* A capsule 2.2 m long poking through a wall 2 cm thick, its centre 0.2 to 1 m before the wall
 * and its segment's far end past it, at 1,914 poses: its manifold pushes it back out of the side
 * its centre is on. Its segment's point nearest the box lies somewhere inside the wall; pushed out
 * of the wall's face nearest that point, as the manifold did, 178 of them (1,042 when that point
 * was found by halving) went on through the wall, which let a spinning compound's capsule through
 * the wall in test_physics_ccd. */
static void capsule_through_a_wall(enum under under, const char *what)
{
    physics__scene s;
    scene_init(&s);
    if (under == UNDER_PRISM)
        add_static_prism(&s, 2.0f, 0.01f, true, v3(0, 0, 0));
    else
        add_static_box(&s, under == UNDER_BOX_HULL, v3(0.01f, 2, 2), v3(0, 0, 0));
    add_body(&s, CAPSULE, quat_identity());
    const uint32_t i = at(&s, BODY), j = at(&s, FLOOR);
    uint32_t seed = 99u, through = 0, poses = 0;
    for (int k = 0; k < 2000; k++) {
        float r[4];
        for (int q = 0; q < 4; q++) {
            seed = seed * 1664525u + 1013904223u;
            r[q] = (float)(seed >> 8) / 16777216.0f;
        }
        s.bodies.position[i] = v3(-0.2f - 0.8f * r[0], 0.3f * r[1], 0);
        s.bodies.rotation[i] = quat_normalize(
            (physics__quat){0.3f * (r[2] - 0.5f), 0.3f * (r[3] - 0.5f), 0.7071f, 0.7071f});
        physics__bodies_extent(&s.bodies, i);
        physics__v3 p0, p1;
        physics__round_segment(&s.bodies, i, &p0, &p1);
        if (f_max(p0.x, p1.x) < 0.02f)
            continue;
        physics__manifold_out m;
        physics__manifold(&s.bodies, i, j, 0.1f, false, &m);
        assert_true(m.count > 0);
        poses++;
        /* (the normal from the capsule to the wall: along +x pushes the capsule back) */
        through += !(m.normal.x > 0.0f);
    }
    physics__scene_free(&s);
    print_message("capsule through a thin %s wall: %u of %u manifolds push it on through\n", what,
                  through, poses);
    assert_int_equal(poses, 1914);
    assert_int_equal(through, 0);
}

static void test_capsule_through_a_thin_wall_goes_back(void **state)
{
    (void)state;
    capsule_through_a_wall(UNDER_BOX, "box");
}

static void test_capsule_through_a_thin_hull_wall_goes_back(void **state)
{
    (void)state;
    capsule_through_a_wall(UNDER_BOX_HULL, "box hull");
    capsule_through_a_wall(UNDER_PRISM, "prism");
}

/* A capsule lying level across a static cube's upright edge (the edge along z at x = 0.5,
 * y = -0.5; the capsule 45 degrees round, its segment 1 cm into the cube at the edge): one point,
 * on the edge, pushing it straight off the edge (along the edge's diagonal), 1.41 cm plus the
 * radius deep. Pushed out of the face nearest its segment's point nearest the box (inside it),
 * it went out of one face, only 1 cm deep. */
static void capsule_across_an_edge(enum under under, const char *what)
{
    physics__scene s;
    scene_init(&s);
    /* (the prism's corner at -45 degrees is the cube's, at x = 0.5, y = -0.5) */
    if (under == UNDER_PRISM)
        add_static_prism(&s, 0.70710678f, 0.5f, false, v3(0, 0, 0));
    else
        add_static_box(&s, under == UNDER_BOX_HULL, v3(0.5f, 0.5f, 0.5f), v3(0, 0, 0));
    /* (lying along x, then turned 45 degrees about z: along (1, 1, 0)) */
    add_body(&s, CAPSULE, turned(v3(0, 0, 1), 45.0f * DEG));
    const uint32_t i = at(&s, BODY), j = at(&s, FLOOR);
    s.bodies.position[i] = v3(0.49f, -0.49f, 0.0f);
    physics__bodies_extent(&s.bodies, i);
    physics__manifold_out m;
    physics__manifold(&s.bodies, i, j, 0.02f, false, &m);
    physics__scene_free(&s);
    print_message("capsule across a %s edge: %u points, normal %.4f %.4f %.4f, sep %.4f at %.4f "
                  "%.4f %.4f\n",
                  what, m.count, (double)m.normal.x, (double)m.normal.y, (double)m.normal.z,
                  (double)m.p[0].sep, (double)m.p[0].point.x, (double)m.p[0].point.y,
                  (double)m.p[0].point.z);
    assert_int_equal(m.count, 1);
    /* from the capsule into the cube */
    assert_float_equal(m.normal.x, -0.70710678f, 1e-4f);
    assert_float_equal(m.normal.y, 0.70710678f, 1e-4f);
    assert_float_equal(m.normal.z, 0.0f, 1e-4f);
    assert_float_equal(m.p[0].sep, -0.01f * 1.41421356f - 0.1f, 1e-4f);
    assert_float_equal(m.p[0].point.z, 0.0f, 1e-4f);
}

static void test_capsule_across_a_box_edge(void **state)
{
    (void)state;
    capsule_across_an_edge(UNDER_BOX, "box");
}

static void test_capsule_across_a_hull_edge(void **state)
{
    (void)state;
    capsule_across_an_edge(UNDER_BOX_HULL, "box hull");
    capsule_across_an_edge(UNDER_PRISM, "prism");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cube_dropped_nearly_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_board_dropped_on_a_corner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_board_dropped_on_an_edge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_dropped_on_an_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hull_dropped_on_an_edge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_board_tips_over_a_hull_ridge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_tips_over_a_box_ledge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_lies_on_a_face_on_two_points, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_through_a_thin_wall_goes_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capsule_across_a_box_edge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_tips_over_a_hull_ledge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_lies_on_a_hull_face_on_two_points, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capsule_through_a_thin_hull_wall_goes_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capsule_across_a_hull_edge, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = physics_fixture_run_groups(tests, sizeof tests / sizeof tests[0], NULL);
    physics_fixture_stop();
    return failed;
}
