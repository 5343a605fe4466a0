/* The v5 shapes without a kernel. Convex hulls: what a hull is built of, what is refused, its
 * mass, its rest on the ground and on other shapes, tipping, rays and overlaps. Compounds: their
 * mass, a table and a dumbbell at rest, refusals, rays. And a pinned state hash of a pile of all
 * of them that the serial run and a two-thread pool must both give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <string.h>

/* The state hash of the pile of hulls, boxes, balls and tables after 200 steps
 * (test_hull_pile_hash_is_pinned). */
#define HULL_PILE_HASH 0x5b90bdb75bb3be18ull
/* The same for the mixed shapes dropped on a wavy height field (test_mesh_pile_hash_is_pinned). */
#define MESH_PILE_HASH 0xdd2cfe95fb0e3d7dull

/* The corners of a box of half extents h about c (k = x | y << 1 | z << 2, bit set: + side). */
static void box_points(float c[3], float hx, float hy, float hz, float out[24])
{
    for (int k = 0; k < 8; k++) {
        out[3 * k] = c[0] + ((k & 1) ? hx : -hx);
        out[3 * k + 1] = c[1] + ((k & 2) ? hy : -hy);
        out[3 * k + 2] = c[2] + ((k & 4) ? hz : -hz);
    }
}

static physics__hull *build(const float *points, uint32_t count)
{
    physics__hull *h = ct_alloc(&alloc.base, sizeof *h);
    char reason[128];
    const char *bad = physics__hull_build(h, points, count, reason, sizeof reason);
    if (bad)
        print_message("refused: %s\n", bad);
    assert_null(bad);
    return h;
}

static const char *refusal(const float *points, uint32_t count)
{
    static char reason[128];
    physics__hull h;
    return physics__hull_build(&h, points, count, reason, sizeof reason);
}

static ct_rigid_body_desc_t hull_desc(float x, float y, float z)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_HULL,
                                  .mass = 1.0f,
                                  .friction = 0.6f,
                                  .position = {x, y, z}};
}

static void add_hull(physics__scene *s, uint32_t id, ct_rigid_body_desc_t d, const float *points,
                     uint32_t count)
{
    assert_int_equal(
        physics__bodies_add_hull(&s->bodies, (ct_entity_t){id}, &d, build(points, count)), 0);
}

/* A cube's 8 corners make 8 vertices, 6 faces of 4 and 12 edges; its volume is 1 and its inertia
 * per unit mass is a box's (m (y^2 + z^2) / 3 with half sides 0.5: 1/6). Given off-centre (corners
 * 0..1), it is moved by its centroid. A point inside is dropped; a point on a face's middle
 * is not a corner. */
static void test_cube_hull_is_a_box(void **state)
{
    (void)state;
    float p[27 * 3];
    box_points((float[3]){0.5f, 0.5f, 0.5f}, 0.5f, 0.5f, 0.5f, p);
    p[24] = 0.5f, p[25] = 0.5f, p[26] = 0.5f;  /* the centre */
    p[27] = 0.5f, p[28] = 1.0f, p[29] = 0.5f;  /* the top face's middle */
    p[30] = 0.25f, p[31] = 0.0f, p[32] = 0.0f; /* on an edge */
    physics__hull *h = build(p, 11);
    assert_int_equal(h->num_vertices, 8);
    assert_int_equal(h->num_faces, 6);
    assert_int_equal(h->num_edges, 12);
    for (uint32_t f = 0; f < 6; f++) {
        assert_int_equal(h->face_count[f], 4);
        assert_true(fabsf(h->offset[f] - 0.5f) < 1e-6f);
    }
    assert_true(fabsf(h->volume - 1.0f) < 1e-6f);
    assert_true(fabsf(h->centroid.x - 0.5f) < 1e-6f && fabsf(h->centroid.y - 0.5f) < 1e-6f);
    assert_true(fabsf(h->inertia.x - 1.0f / 6.0f) < 1e-6f);
    assert_true(fabsf(h->inertia.y - 1.0f / 6.0f) < 1e-6f);
    assert_true(fabsf(h->inertia.z - 1.0f / 6.0f) < 1e-6f);
    assert_true(fabsf(h->half.x - 0.5f) < 1e-6f && fabsf(h->half.z - 0.5f) < 1e-6f);
    ct_free(&alloc.base, h, sizeof *h);

    /* A box 2 x 1 x 0.5 (half 1, 0.5, 0.25): inertia per unit mass (b^2 + c^2) / 3 of the halves. */
    box_points((float[3]){0, 0, 0}, 1.0f, 0.5f, 0.25f, p);
    h = build(p, 8);
    assert_true(fabsf(h->volume - 1.0f) < 1e-6f);
    assert_true(fabsf(h->inertia.x - (0.25f + 0.0625f) / 3.0f) < 1e-6f);
    assert_true(fabsf(h->inertia.y - (1.0f + 0.0625f) / 3.0f) < 1e-6f);
    assert_true(fabsf(h->inertia.z - (1.0f + 0.25f) / 3.0f) < 1e-6f);
    ct_free(&alloc.base, h, sizeof *h);

    /* A regular tetrahedron of edge 2 sqrt 2 (alternate corners of a cube of side 2): volume 8/3,
     * centroid at the origin, 4 triangles, 6 edges. */
    const float tetra[12] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1};
    h = build(tetra, 4);
    assert_int_equal(h->num_vertices, 4);
    assert_int_equal(h->num_faces, 4);
    assert_int_equal(h->num_edges, 6);
    assert_true(fabsf(h->volume - 8.0f / 3.0f) < 1e-5f);
    /* A regular tetrahedron's moment per unit mass is a^2 / 20 for edge a: 8 / 20. */
    assert_true(fabsf(h->inertia.x - 0.4f) < 1e-5f && fabsf(h->inertia.y - 0.4f) < 1e-5f);
    ct_free(&alloc.base, h, sizeof *h);
}

/* 64 points on a sphere make a hull of 64 corners whose volume approaches the ball's from below. */
static void test_sixty_four_points(void **state)
{
    (void)state;
    float p[65 * 3];
    for (int k = 0; k < 64; k++) {
        /* A Fibonacci sphere of radius 1. */
        const float y = 1.0f - (2.0f * (float)k + 1.0f) / 64.0f, r = sqrtf(1.0f - y * y);
        const float a = 2.39996323f * (float)k;
        p[3 * k] = r * cosf(a), p[3 * k + 1] = y, p[3 * k + 2] = r * sinf(a);
    }
    physics__hull *h = build(p, 64);
    print_message("64 points: %u corners, %u faces, %u edges, volume %.4f\n", h->num_vertices,
                  h->num_faces, h->num_edges, (double)h->volume);
    assert_int_equal(h->num_vertices, 64);
    assert_int_equal(h->num_faces, 124);
    assert_int_equal(h->num_edges, 186);
    assert_true(h->volume > 3.6f && h->volume < 4.18879f);
    ct_free(&alloc.base, h, sizeof *h);
    p[192] = 0, p[193] = 0, p[194] = 0;
    assert_string_equal(refusal(p, 65), "points (more than 64)");
}

/* What is refused, each with its reason. */
static void test_degenerate_hulls_are_refused(void **state)
{
    (void)state;
    float p[8 * 3];
    box_points((float[3]){0, 0, 0}, 0.5f, 0.5f, 0.5f, p);
    assert_string_equal(refusal(NULL, 8), "points (NULL)");
    assert_string_equal(refusal(p, 1),
                        "points (one point: a hull needs at least 4 that span a volume)");
    assert_string_equal(refusal(p, 3),
                        "points (fewer than 4: a hull needs at least 4 that span a volume)");
    float q[8 * 3];
    memcpy(q, p, sizeof q);
    q[15] = q[3], q[16] = q[4], q[17] = q[5] + 1e-4f; /* point 5 on point 1 */
    assert_string_equal(refusal(q, 8),
                        "points (points 1 and 5 are duplicates: closer than 1e-3 m)");
    memcpy(q, p, sizeof q);
    q[7] = NAN;
    assert_string_equal(refusal(q, 8), "points (point 2 is NaN, infinite or outside +-1e4 m)");
    q[7] = 2e4f;
    assert_string_equal(refusal(q, 8), "points (point 2 is NaN, infinite or outside +-1e4 m)");
    q[7] = INFINITY;
    assert_string_equal(refusal(q, 8), "points (point 2 is NaN, infinite or outside +-1e4 m)");
    /* The bottom four corners and a fifth in their plane: coplanar. */
    const float flat[15] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1, 0.2f, 0, 0.3f};
    assert_string_equal(refusal(flat, 5),
                        "points (coplanar: all on one plane, they span no volume)");
    const float line[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    assert_string_equal(refusal(line, 4), "points (all on one line: they span no volume)");
    /* A square with a point 0.5 mm over its middle. */
    const float low[15] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1, 0, 0.0005f, 0};
    assert_string_equal(refusal(low, 5),
                        "points (coplanar: all on one plane, they span no volume)");
}

static void cube_points(float out[24], float half)
{
    box_points((float[3]){0, 0, 0}, half, half, half, out);
}

/* A hull cube dropped on the ground rests at its half height, as a box cube beside it does, on a
 * manifold of four points at its corners. */
static void test_hull_cube_rests_like_a_box(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    float p[24];
    cube_points(p, 0.5f);
    add_hull(&s, 2, hull_desc(0, 1.0f, 0), p, 8);
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {0.5f, 0.5f, 0.5f},
                                      .mass = 1.0f,
                                      .friction = 0.6f,
                                      .position = {3, 1.0f, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){3}, &box), 0);
    /* Same inertia as the box. */
    const uint32_t hi = at(&s, 2), bi = at(&s, 3);
    assert_true(fabsf(s.bodies.inv_inertia[hi].x - s.bodies.inv_inertia[bi].x) < 1e-5f);
    assert_true(fabsf(s.bodies.inv_inertia[hi].y - s.bodies.inv_inertia[bi].y) < 1e-5f);
    run(&s, 120);
    const physics__v3 ph = s.bodies.position[at(&s, 2)], pb = s.bodies.position[at(&s, 3)];
    print_message("hull cube %.6f %.6f %.6f, box cube %.6f %.6f %.6f\n", (double)ph.x, (double)ph.y,
                  (double)ph.z, (double)pb.x, (double)pb.y, (double)pb.z);
    assert_true(fabsf(ph.y - 0.5f) < 0.002f);
    assert_true(fabsf(ph.y - pb.y) < 1e-4f);
    assert_true(fabsf(ph.x) < 1e-3f && fabsf(ph.z) < 1e-3f);
    physics__manifold_out m;
    physics__manifold(&s.bodies, at(&s, 1), at(&s, 2), 0.02f, false, &m);
    assert_int_equal(m.count, 4);
    assert_true(fabsf(m.normal.y - 1.0f) < 1e-4f);
    for (uint32_t k = 0; k < 4; k++)
        assert_true(fabsf(fabsf(m.p[k].point.x) - 0.5f) < 1e-3f);
    physics__scene_free(&s);
}

/* A hull cube stood on an edge, leaning 30 degrees, falls flat (as the box test in
 * test_physics_rigid.c): one of its axes ends up straight up, at its half height. */
static void test_hull_cube_tips_over(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    float p[24];
    cube_points(p, 0.5f);
    ct_rigid_body_desc_t d = hull_desc(0, 0.5f * (cosf(0.5235988f) + sinf(0.5235988f)) + 0.001f, 0);
    d.rotation[2] = sinf(0.5f * 0.5235988f);
    d.rotation[3] = cosf(0.5f * 0.5235988f);
    add_hull(&s, 2, d, p, 8);
    run(&s, 240);
    const uint32_t i = at(&s, 2);
    const physics__quat q = s.bodies.rotation[i];
    const physics__v3 up = quat_rotate(q, v3(0, 1, 0)), side = quat_rotate(q, v3(1, 0, 0));
    print_message("tipped hull: up.y %.5f side.y %.5f height %.5f\n", (double)up.y, (double)side.y,
                  (double)s.bodies.position[i].y);
    assert_true(f_max(fabsf(up.y), fabsf(side.y)) > 0.999f);
    assert_true(fabsf(s.bodies.position[i].y - 0.5f) < 0.002f);
    physics__scene_free(&s);
}

/* A square pyramid (base 1 x 1, apex 1 up) set on its base stays, its centre of mass a quarter of
 * its height up (0.25 m); set on its apex it falls over onto a side face (within 10 s: balanced on
 * its apex it leaves slowly, the apex's contact being recycled, as Box3D's is, for the first few
 * degrees of each turn; it was still on its apex after 5 s then). */
static void test_pyramid_rests_on_its_base(void **state)
{
    (void)state;
    const float pyramid[15] = {-0.5f, 0,     -0.5f, 0.5f, 0, -0.5f, 0.5f, 0,
                               0.5f,  -0.5f, 0,     0.5f, 0, 1,     0};
    physics__hull *h = build(pyramid, 5);
    assert_int_equal(h->num_faces, 5);
    assert_true(fabsf(h->volume - 1.0f / 3.0f) < 1e-6f);
    assert_true(fabsf(h->centroid.y - 0.25f) < 1e-6f);
    ct_free(&alloc.base, h, sizeof *h);
    physics__scene s;
    /* Sleep off: a pyramid on its apex is still for a moment before it falls. */
    on_ground(&s, 20.0f, false);
    add_hull(&s, 2, hull_desc(0, 0.26f, 0), pyramid, 5);
    ct_rigid_body_desc_t upside = hull_desc(3, 0.76f, 0);
    upside.rotation[0] = 1.0f;          /* half a turn about x: apex down */
    upside.angular_velocity[2] = 0.05f; /* a nudge: an apex balanced exactly would stay */
    add_hull(&s, 3, upside, pyramid, 5);
    run(&s, 600);
    const uint32_t a = at(&s, 2), b = at(&s, 3);
    print_message("pyramid on base y %.5f; on apex, now y %.5f, up.y %.4f\n",
                  (double)s.bodies.position[a].y, (double)s.bodies.position[b].y,
                  (double)quat_rotate(s.bodies.rotation[b], v3(0, 1, 0)).y);
    assert_true(fabsf(s.bodies.position[a].y - 0.25f) < 0.002f);
    assert_true(quat_rotate(s.bodies.rotation[a], v3(0, 1, 0)).y > 0.9999f);
    /* Fallen onto a side face, whose normal is (0, 1, 2) / sqrt 5 in its frame: that points down
     * now, and its centroid is 0.75 / sqrt 5 over the ground. */
    assert_true(fabsf(quat_rotate(s.bodies.rotation[b], v3(0, 1, 0)).y + 0.4472136f) < 1e-3f);
    assert_true(fabsf(s.bodies.position[b].y - 0.3354102f) < 0.002f);
    physics__scene_free(&s);
}

/* Round shapes and hulls: a ball dropped on a static hull cube rests on its top face, a capsule
 * lying across it rests on it at its radius, and a hull dropped on a static ball rolls off. */
static void test_round_shapes_on_a_hull(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    float p[24];
    cube_points(p, 0.5f);
    ct_rigid_body_desc_t fixed = hull_desc(0, 0.5f, 0);
    fixed.kind = CT_BODY_STATIC;
    add_hull(&s, 2, fixed, p, 8);
    fixed.position[0] = 4.0f;
    add_hull(&s, 3, fixed, p, 8);
    const ct_rigid_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                       .shape = CT_BODY_SPHERE,
                                       .radius = 0.25f,
                                       .mass = 1,
                                       .friction = 0.6f,
                                       .position = {0, 1.5f, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){4}, &ball), 0);
    ct_rigid_body_desc_t cap = {.kind = CT_BODY_DYNAMIC,
                                .shape = CT_BODY_CAPSULE,
                                .radius = 0.2f,
                                .half_height = 0.3f,
                                .mass = 1,
                                .friction = 0.6f,
                                .position = {4, 1.5f, 0}};
    /* Lying along x: a quarter turn about z. */
    cap.rotation[2] = sinf(0.25f * 3.14159265f), cap.rotation[3] = cosf(0.25f * 3.14159265f);
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){5}, &cap), 0);
    run(&s, 180);
    const physics__v3 pb = s.bodies.position[at(&s, 4)], pc = s.bodies.position[at(&s, 5)];
    print_message("ball on hull y %.5f, capsule on hull y %.5f\n", (double)pb.y, (double)pc.y);
    assert_true(fabsf(pb.y - 1.25f) < 0.002f && fabsf(pb.x) < 1e-4f);
    assert_true(fabsf(pc.y - 1.2f) < 0.002f && fabsf(pc.x - 4.0f) < 1e-3f);
    physics__scene_free(&s);
}

/* Hulls on hulls: three cubes of different hulls (a cube, a cube with its edges' midpoints, an
 * octagonal prism) stacked stand, each on the one below. */
static void test_hull_stack_stands(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, false);
    float cube[24], prism[16 * 3];
    cube_points(cube, 0.5f);
    for (int k = 0; k < 8; k++) {
        const float a = 0.39269908f + 0.78539816f * (float)k;
        for (int side = 0; side < 2; side++) {
            float *q = &prism[3 * (2 * k + side)];
            q[0] = 0.5f * cosf(a), q[1] = side ? 0.5f : -0.5f, q[2] = 0.5f * sinf(a);
        }
    }
    add_hull(&s, 2, hull_desc(0, 0.5f, 0), cube, 8);
    add_hull(&s, 3, hull_desc(0, 1.5f, 0), prism, 16);
    add_hull(&s, 4, hull_desc(0, 2.5f, 0), cube, 8);
    run(&s, 300);
    const physics__v3 top = s.bodies.position[at(&s, 4)];
    print_message("hull stack top %.5f %.5f %.5f\n", (double)top.x, (double)top.y, (double)top.z);
    assert_true(fabsf(top.x) < 0.005f && fabsf(top.z) < 0.005f && fabsf(top.y - 2.5f) < 0.01f);
    physics__scene_free(&s);
}

/* Rays and spheres against a turned hull cube: a ray down hits its top face, one along x its
 * vertical edge; a sphere overlaps it only within its radius of the surface. */
static void test_hull_queries(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    float p[24];
    cube_points(p, 0.5f);
    ct_rigid_body_desc_t d = hull_desc(0, 0, 0);
    d.kind = CT_BODY_STATIC;
    /* 45 degrees about y: the cube's corners point along x and z. */
    d.rotation[1] = sinf(0.39269908f), d.rotation[3] = cosf(0.39269908f);
    add_hull(&s, 2, d, p, 8);
    ct_physics_hit_t hit;
    assert_true(physics__scene_raycast(&s, v3(0, 5, 0), v3(0, -1, 0), 10, UINT32_MAX, &hit));
    assert_int_equal(hit.entity, 2);
    assert_true(fabsf(hit.distance - 4.5f) < 1e-5f && fabsf(hit.normal[1] - 1.0f) < 1e-5f);
    /* Along x towards a vertical edge of the turned cube, sqrt(2)/2 out. */
    assert_true(physics__scene_raycast(&s, v3(5, 0.1f, 0), v3(-1, 0, 0), 10, UINT32_MAX, &hit));
    assert_true(fabsf(hit.distance - (5.0f - 0.70710678f)) < 1e-5f);
    /* Past it, and too short. */
    assert_false(physics__scene_raycast(&s, v3(5, 0.6f, 0), v3(-1, 0, 0), 10, UINT32_MAX, &hit));
    assert_false(physics__scene_raycast(&s, v3(5, 0.1f, 0), v3(-1, 0, 0), 4, UINT32_MAX, &hit));
    ct_entity_t out[4];
    /* Off the edge by 0.1 along x: a sphere of 0.11 reaches it, 0.09 does not. */
    assert_int_equal(
        physics__scene_overlap_sphere(&s, v3(0.80710678f, 0, 0), 0.11f, UINT32_MAX, out, 4), 1);
    assert_int_equal(
        physics__scene_overlap_sphere(&s, v3(0.80710678f, 0, 0), 0.09f, UINT32_MAX, out, 4), 0);
    /* Off the top face's corner diagonally: distance sqrt(0.1^2 + 0.1^2). */
    assert_int_equal(
        physics__scene_overlap_sphere(&s, v3(0.80710678f, 0.6f, 0), 0.15f, UINT32_MAX, out, 4), 1);
    assert_int_equal(
        physics__scene_overlap_sphere(&s, v3(0.80710678f, 0.6f, 0), 0.13f, UINT32_MAX, out, 4), 0);
    /* Inside. */
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(0, 0, 0), 0.01f, UINT32_MAX, out, 4), 1);
    physics__scene_free(&s);
}

/* ---- compounds ---- */

static physics__compound *compound(const ct_compound_child_t *children, uint32_t count)
{
    physics__compound *c;
    char reason[160];
    const char *bad =
        physics__compound_build(&alloc.base, children, count, &c, reason, sizeof reason);
    if (bad)
        print_message("refused: %s\n", bad);
    assert_null(bad);
    return c;
}

static const char *compound_refusal(const ct_compound_child_t *children, uint32_t count)
{
    static char reason[160];
    physics__compound *c;
    const char *bad =
        physics__compound_build(&alloc.base, children, count, &c, reason, sizeof reason);
    assert_null(c);
    return bad;
}

/* A table: a top 2 x 0.1 x 1.2 at y 0.75 and four legs 0.1 x 0.7 x 0.1 under its corners, in a
 * frame whose y 0 is the floor under its legs. */
static const ct_compound_child_t table[5] = {
    {.shape = CT_BODY_BOX, .half_extents = {1, 0.05f, 0.6f}, .position = {0, 0.75f, 0}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {0.9f, 0.35f, 0.5f}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {-0.9f, 0.35f, 0.5f}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {0.9f, 0.35f, -0.5f}},
    {.shape = CT_BODY_BOX,
     .half_extents = {0.05f, 0.35f, 0.05f},
     .position = {-0.9f, 0.35f, -0.5f}},
};
/* Its centre of mass over the floor: (0.24 * 0.75 + 0.028 * 0.35) / 0.268. */
#define TABLE_CENTRE_Y 0.70820896f

static ct_rigid_body_desc_t compound_desc(float x, float y, float z)
{
    ct_rigid_body_desc_t d = hull_desc(x, y, z);
    d.shape = CT_BODY_COMPOUND;
    return d;
}

/* Two unit cubes side by side have the mass, centre and inertia of the 2 x 1 x 1 box they make;
 * a hull child counts by its volume and centroid. */
static void test_compound_mass(void **state)
{
    (void)state;
    const ct_compound_child_t two[2] = {
        {.shape = CT_BODY_BOX, .half_extents = {0.5f, 0.5f, 0.5f}, .position = {0, 0, 0}},
        {.shape = CT_BODY_BOX, .half_extents = {0.5f, 0.5f, 0.5f}, .position = {1, 0, 0}},
    };
    physics__compound *c = compound(two, 2);
    assert_true(fabsf(c->centroid.x - 0.5f) < 1e-6f);
    assert_true(fabsf(c->child[0].position.x + 0.5f) < 1e-6f);
    assert_true(fabsf(c->inertia.x - 1.0f / 6.0f) < 1e-6f);
    assert_true(fabsf(c->inertia.y - 1.25f / 3.0f) < 1e-6f);
    assert_true(fabsf(c->inertia.z - 1.25f / 3.0f) < 1e-6f);
    physics__compound_free(&alloc.base, c);
    /* The same with the second cube a hull given with corners 0.5..1.5 about the origin. */
    float p[24];
    box_points((float[3]){1, 0, 0}, 0.5f, 0.5f, 0.5f, p);
    const ct_compound_child_t mixed[2] = {
        {.shape = CT_BODY_BOX, .half_extents = {0.5f, 0.5f, 0.5f}},
        {.shape = CT_BODY_HULL, .points = p, .point_count = 8},
    };
    c = compound(mixed, 2);
    assert_true(fabsf(c->centroid.x - 0.5f) < 1e-6f);
    assert_true(fabsf(c->child[1].position.x - 0.5f) < 1e-6f);
    assert_true(fabsf(c->inertia.y - 1.25f / 3.0f) < 1e-6f);
    physics__compound_free(&alloc.base, c);
    /* A cube turned 45 degrees about y keeps its moments (a cube's are the same every way). */
    const ct_compound_child_t turned[1] = {
        {.shape = CT_BODY_BOX,
         .half_extents = {0.5f, 0.5f, 0.5f},
         .rotation = {0, 0.38268343f, 0, 0.92387953f}},
    };
    c = compound(turned, 1);
    assert_true(fabsf(c->inertia.x - 1.0f / 6.0f) < 1e-6f);
    physics__compound_free(&alloc.base, c);
}

static void test_compound_refusals(void **state)
{
    (void)state;
    assert_string_equal(compound_refusal(NULL, 2), "children (NULL)");
    assert_string_equal(compound_refusal(table, 0), "children (a compound has 1 to 64)");
    ct_compound_child_t many[65];
    for (int k = 0; k < 65; k++)
        many[k] = table[0];
    assert_string_equal(compound_refusal(many, 65), "children (a compound has 1 to 64)");
    ct_compound_child_t bad[3] = {table[0], table[1], {.shape = CT_BODY_SPHERE, .radius = 0}};
    assert_string_equal(compound_refusal(bad, 3),
                        "children[2].radius (must be within [1e-3, 1e4] m), given 0");
    bad[2].radius = NAN;
    assert_string_equal(compound_refusal(bad, 3),
                        "children[2].radius (must be within [1e-3, 1e4] m), given nan");
    bad[2] = (ct_compound_child_t){.shape = 9};
    assert_string_equal(compound_refusal(bad, 3),
                        "children[2].shape (box, sphere, capsule or hull), given 9");
    bad[2] = table[1];
    bad[2].position[1] = 2e4f;
    assert_string_equal(
        compound_refusal(bad, 3),
        "children[2].position (each coordinate within +-1e4 m), given [0.9 20000 0.5]");
    bad[2] = table[1];
    bad[2].rotation[3] = 0.5f;
    assert_string_equal(
        compound_refusal(bad, 3),
        "children[2].rotation (x y z w of length 1 within 1e-3, or all zero), given "
        "[0 0 0 0.5]");
    const float flat[15] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1, 0.2f, 0, 0.3f};
    bad[2] = (ct_compound_child_t){.shape = CT_BODY_HULL, .points = flat, .point_count = 5};
    assert_string_equal(compound_refusal(bad, 3),
                        "children[2].points (coplanar: all on one plane, they span no volume)");
}

/* A table dropped on the ground stands on its four legs, its centre of mass at its height over
 * the floor, upright; a ray down hits its top (0.8 m) and a sphere under it misses it. A dumbbell
 * (two balls on a capsule bar) rests on its balls. */
static void test_compounds_rest(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 20.0f, true);
    assert_int_equal(physics__bodies_add_compound(
                         &s.bodies, (ct_entity_t){2},
                         &(ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                                 .shape = CT_BODY_COMPOUND,
                                                 .mass = 10,
                                                 .friction = 0.6f,
                                                 .position = {0, TABLE_CENTRE_Y + 0.05f, 0}},
                         compound(table, 5)),
                     0);
    const ct_compound_child_t dumbbell[3] = {
        {.shape = CT_BODY_SPHERE, .radius = 0.3f, .position = {-0.7f, 0, 0}},
        {.shape = CT_BODY_SPHERE, .radius = 0.3f, .position = {0.7f, 0, 0}},
        {.shape = CT_BODY_CAPSULE,
         .radius = 0.1f,
         .half_height = 0.7f,
         .rotation = {0, 0, 0.70710678f, 0.70710678f}},
    };
    const ct_rigid_body_desc_t bar = compound_desc(5, 1.0f, 0);
    assert_int_equal(
        physics__bodies_add_compound(&s.bodies, (ct_entity_t){3}, &bar, compound(dumbbell, 3)), 0);
    run(&s, 180);
    const uint32_t t = at(&s, 2), d = at(&s, 3);
    const physics__v3 up = quat_rotate(s.bodies.rotation[t], v3(0, 1, 0));
    print_message("table y %.5f (up.y %.6f), dumbbell y %.5f\n", (double)s.bodies.position[t].y,
                  (double)up.y, (double)s.bodies.position[d].y);
    assert_true(fabsf(s.bodies.position[t].y - TABLE_CENTRE_Y) < 0.002f);
    assert_true(up.y > 0.99999f);
    assert_true(fabsf(s.bodies.position[d].y - 0.3f) < 0.002f);
    /* Four legs: the ground's contact with the table has four points. */
    physics__manifold_out m;
    physics__manifold(&s.bodies, at(&s, 1), t, 0.02f, false, &m);
    assert_int_equal(m.count, 4);
    ct_physics_hit_t hit;
    assert_true(physics__scene_raycast(&s, v3(0.3f, 5, 0.2f), v3(0, -1, 0), 10, UINT32_MAX, &hit));
    assert_int_equal(hit.entity, 2);
    assert_true(fabsf(hit.distance - (5.0f - 0.8f - (s.bodies.position[t].y - TABLE_CENTRE_Y))) <
                1e-4f);
    ct_entity_t out[4];
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(0, 0.35f, 0), 0.2f, UINT32_MAX, out, 4),
                     0);
    assert_int_equal(
        physics__scene_overlap_sphere(&s, v3(0.9f, 0.35f, 0.5f), 0.01f, UINT32_MAX, out, 4), 1);
    physics__scene_free(&s);
}

/* What a sweep measures of a compound (physics__compound_separation, which measures only the child
 * pairs that can be deepest) is what the whole manifold gives it: the least separation of its
 * points and its normal, for Jolt's high-speed compound (a capsule and a bar) turned every way
 * beside a wall, within the sweep's margin of it and beyond. */
static void test_compound_separation_is_the_manifolds(void **state)
{
    (void)state;
    physics__scene s;
    physics__scene_init(&s, &alloc.base);
    const ct_compound_child_t parts[2] = {
        {.shape = CT_BODY_CAPSULE, .radius = 0.125f, .half_height = 0.5f, .position = {0, 0.5f, 0}},
        {.shape = CT_BODY_BOX, .half_extents = {0.5f, 0.125f, 0.125f}, .position = {0.5f, 0, 0}}};
    const ct_rigid_body_desc_t wall = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_BOX, .half_extents = {50, 0.2f, 50}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){1}, &wall), 0);
    const ct_rigid_body_desc_t body = compound_desc(0, 2, 0);
    assert_int_equal(
        physics__bodies_add_compound(&s.bodies, (ct_entity_t){2}, &body, compound(parts, 2)), 0);
    physics__bodies *b = &s.bodies;
    const uint32_t w = at(&s, 1), c = at(&s, 2);
    uint32_t seed = 12345u, measured = 0;
    for (int k = 0; k < 400; k++) {
        float r[5];
        for (int q = 0; q < 5; q++) {
            seed = seed * 1664525u + 1013904223u;
            r[q] = (float)(seed >> 8) / 16777216.0f;
        }
        b->position[c] = v3(r[0] * 4.0f - 2.0f, 0.2f + r[1] * 3.0f, 0.0f);
        b->rotation[c] = quat_normalize((physics__quat){r[2] - 0.5f, r[3] - 0.5f, r[4] - 0.5f, 0.3f});
        physics__bodies_extent(b, c);
        for (int side = 0; side < 2; side++) {
            const uint32_t i = side ? c : w, j = side ? w : c;
            physics__manifold_out m;
            physics__manifold(b, i, j, 1.5f, false, &m);
            float least = INFINITY;
            for (uint32_t q = 0; q < m.count; q++)
                least = fminf(least, m.p[q].sep);
            physics__v3 n;
            const float sep = physics__compound_separation(b, i, j, 1.5f, &n);
            assert_true(sep == least);
            if (m.count) {
                measured++;
                assert_true(n.x == m.normal.x && n.y == m.normal.y && n.z == m.normal.z);
            }
        }
    }
    print_message("%u of 800 poses within the margin\n", measured);
    assert_true(measured > 200 && measured < 800);
    physics__scene_free(&s);
}

/* physics__manifold first asks whether two shapes lie apart by more than the margin on an axis
 * its test would find them apart on too, and then finds nothing without testing them; with a
 * hull, physics__hull_manifold is that test itself. At random poses from overlapping to well
 * apart, and margins up to 10 cm (most within 2 mm of what the nearest point's separation is),
 * the two must give the same manifold, bit for bit: the pyramid
 * of bench convex_vs_mesh and a sliver of a hull (faces of sharp corners, where a face's clip
 * reaches past its sides) against themselves, each other, a box, a ball and a capsule, both ways
 * round. */
static void test_manifold_skips_only_what_the_test_finds_apart(void **state)
{
    (void)state;
    physics__scene s;
    physics__scene_init(&s, &alloc.base);
    const float pyramid[15] = {0, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1};
    const float sliver[18] = {0, 0,     0,    2,    0.1f, 0,    0.1f, 0.3f, 0.05f,
                              1, 0.05f, 0.4f, 1.5f, 0.2f, 0.1f, 0.5f, 0.1f, -0.1f};
    add_hull(&s, 1, hull_desc(0, 0, 0), pyramid, 5);
    add_hull(&s, 2, hull_desc(0, 0, 0), sliver, 6);
    add_hull(&s, 3, hull_desc(0, 0, 0), pyramid, 5);
    add_hull(&s, 4, hull_desc(0, 0, 0), sliver, 6);
    const ct_rigid_body_desc_t others[3] = {
        {.kind = CT_BODY_DYNAMIC,
         .shape = CT_BODY_BOX,
         .mass = 1,
         .half_extents = {0.5f, 0.75f, 1}},
        {.kind = CT_BODY_DYNAMIC, .shape = CT_BODY_SPHERE, .mass = 1, .radius = 0.5f},
        {.kind = CT_BODY_DYNAMIC,
         .shape = CT_BODY_CAPSULE,
         .mass = 1,
         .radius = 0.5f,
         .half_height = 0.75f}};
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){5 + k}, &others[k]), 0);
    physics__bodies *b = &s.bodies;
    uint32_t seed = 2024u, touching = 0, poses = 0;
    for (uint32_t h = 1; h <= 2; h++)
        for (uint32_t o = 3; o <= 7; o++)
            for (int k = 0; k < 3000; k++) {
                float r[13];
                for (int q = 0; q < 13; q++) {
                    seed = seed * 1664525u + 1013904223u;
                    r[q] = (float)(seed >> 8) / 16777216.0f;
                }
                const uint32_t i = at(&s, h), j = at(&s, o);
                b->position[i] = v3(10.0f, 20.0f, -30.0f);
                b->rotation[i] = quat_normalize(
                    (physics__quat){r[0] - 0.5f, r[1] - 0.5f, r[2] - 0.5f, r[3] - 0.5f});
                /* Up to 3.5 m apart, each way: the pyramid reaches 1 m, the box 1.35. */
                const physics__v3 dir = v3(r[4] - 0.5f, r[5] - 0.5f, r[6] - 0.5f);
                const float dist = 3.5f * r[7];
                b->position[j] =
                    v3_add(b->position[i], v3_scale(dir, dist / (v3_len(dir) + 1e-6f)));
                b->rotation[j] = quat_normalize(
                    (physics__quat){r[8] - 0.5f, r[9] - 0.5f, r[10] - 0.5f, r[11] - 0.5f});
                physics__bodies_extent(b, i);
                physics__bodies_extent(b, j);
                for (int side = 0; side < 2; side++) {
                    const uint32_t x = side ? j : i, y = side ? i : j;
                    physics__manifold_out m, full;
                    memset(&m, 0, sizeof m);
                    memset(&full, 0, sizeof full);
                    /* Most margins within 2 mm of the nearest point's separation (found with a
                     * margin of 1 m), where a hasty skip would drop it; the others up to 10 cm. */
                    physics__hull_manifold(b, x, y, 1.0f, false, &full);
                    const float least = physics__manifold_least(&full);
                    const float margin = least < 0.09f && k % 4
                                             ? f_max(least + 0.004f * (r[12] - 0.5f), 0.0f)
                                             : 0.1f * r[12];
                    memset(&full, 0, sizeof full);
                    physics__manifold(b, x, y, margin, k & 1, &m);
                    physics__hull_manifold(b, x, y, margin, k & 1, &full);
                    assert_int_equal(m.count, full.count);
                    for (uint32_t q = 0; q < m.count; q++)
                        assert_memory_equal(&m.p[q], &full.p[q], sizeof m.p[q]);
                    if (m.count)
                        assert_memory_equal(&m.normal, &full.normal, sizeof m.normal);
                    touching += m.count > 0;
                    poses++;
                }
            }
    print_message("%u of %u poses within the margin\n", touching, poses);
    assert_true(touching > poses / 10 && touching < poses / 2);
    physics__scene_free(&s);
}

/* ---- meshes and height fields ---- */

/* A flat floor of n x n cells of 1 m at height y, centred on the origin, as a height field. */
/* A flat floor of n x n tiles of 1 m (two triangles each) whose top is at y, centred on the
 * origin. split: every triangle has its own three vertices (as a mesh exported with a seam of
 * normals or texture coordinates at every tile), so no two triangles share a vertex index. */
static void floor_mesh(physics__scene *s, uint32_t id, uint32_t n, float y, bool split)
{
    float heights[41 * 41];
    assert_true(n <= 40);
    for (uint32_t k = 0; k < (n + 1) * (n + 1); k++)
        heights[k] = y;
    float *v;
    uint32_t *ix;
    assert_null(
        physics__height_field_mesh(&alloc.base, heights, n + 1, n + 1, 1.0f, 1.0f, &v, &ix));
    const uint32_t nv = (n + 1) * (n + 1), nt = 2 * n * n;
    float *sv = v;
    uint32_t *six = ix, used = nv;
    if (split) {
        sv = ct_alloc(&alloc.base, (size_t)nt * 9 * sizeof *sv);
        six = ct_alloc(&alloc.base, (size_t)nt * 3 * sizeof *six);
        assert_true(sv && six);
        for (uint32_t k = 0; k < 3 * nt; k++) {
            memcpy(&sv[3 * k], &v[3 * ix[k]], 3 * sizeof *sv);
            six[k] = k;
        }
        used = 3 * nt;
    }
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, sv, used, six, nt, &m, reason, sizeof reason));
    if (split) {
        ct_free(&alloc.base, sv, (size_t)nt * 9 * sizeof *sv);
        ct_free(&alloc.base, six, (size_t)nt * 3 * sizeof *six);
    }
    ct_free(&alloc.base, v, (size_t)nv * 3 * sizeof *v);
    ct_free(&alloc.base, ix, (size_t)nt * 3 * sizeof *ix);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_MESH,
                                    .friction = 0.6f,
                                    .position = {-0.5f * (float)n, 0, -0.5f * (float)n}};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){id}, &d, m), 0);
}

static void floor_field(physics__scene *s, uint32_t id, uint32_t n, float y)
{
    floor_mesh(s, id, n, y, false);
}

static const char *mesh_refusal(const float *v, uint32_t nv, const uint32_t *ix, uint32_t nt)
{
    static char reason[160];
    physics__mesh *m;
    const char *bad = physics__mesh_build(&alloc.base, v, nv, ix, nt, &m, reason, sizeof reason);
    assert_null(m);
    return bad;
}

/* The tree and the internal edges of a flat 10 x 10 floor: 200 triangles; those inside have three
 * internal edges, a corner cell's outer triangle two open ones. What is refused. */
static void test_mesh_build(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    floor_field(&s, 1, 10, 0.0f);
    const physics__mesh *m = s.bodies.mesh[0];
    assert_int_equal(m->num_triangles, 200);
    uint32_t inner = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        inner += m->internal[t] == 7u;
        assert_true(fabsf(m->normal[t].y - 1.0f) < 1e-6f);
    }
    /* All but the 38 with an edge on the border (10 a side, the two corner triangles that have
     * two border edges counted once). */
    assert_int_equal(inner, 162);
    /* Every leaf holds at most 4 and the root holds all. */
    assert_true(m->node[0].lo.x == 0.0f && m->node[0].hi.x == 10.0f);
    physics__scene_free(&s);

    const float v[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0, 0};
    const uint32_t ok[3] = {0, 2, 1}, past[3] = {0, 2, 4}, flat[6] = {0, 2, 1, 0, 1, 3};
    assert_string_equal(mesh_refusal(NULL, 4, ok, 1), "vertices (NULL)");
    assert_string_equal(mesh_refusal(v, 4, ok, 0), "triangles (a mesh needs at least one)");
    assert_string_equal(mesh_refusal(v, 4, past, 1),
                        "indices (triangle 0 names a vertex past the 4 given)");
    assert_string_equal(mesh_refusal(v, 4, flat, 2),
                        "indices (triangle 1 has no area: zero or under 5e-7 m^2)");
    float bad[12];
    memcpy(bad, v, sizeof bad);
    bad[4] = NAN;
    assert_string_equal(mesh_refusal(bad, 4, ok, 1),
                        "vertices (vertex 1 is NaN, infinite or outside +-1e5 m)");
    float *hv;
    uint32_t *hi;
    const float heights[4] = {0, 0, 0, 0};
    assert_string_equal(physics__height_field_mesh(&alloc.base, heights, 1, 4, 1, 1, &hv, &hi),
                        "heights (a height field has at least 2 x 2 samples)");
    assert_string_equal(physics__height_field_mesh(&alloc.base, heights, 2, 2, 0, 1, &hv, &hi),
                        "cell_x, cell_z (each within [1e-3, 1e4] m)");
    assert_string_equal(physics__height_field_mesh(&alloc.base, NULL, 2, 2, 1, 1, &hv, &hi),
                        "heights (NULL)");
}

/* A ball and a capsule resting on a flat triangle of a mesh whose one tree leaf also holds a far
 * triangle, tilted so that the round bodies lie 5 cm behind its plane, ten metres from it. The far
 * triangle is no contact: the manifold is the floor's (normal up, 5 cm deep). Before, every
 * triangle of a leaf the body's box met was tested, and a round body behind a far triangle's plane
 * got that triangle's normal and a depth of some ten metres (balls on the wavy floor of the
 * convex_vs_mesh bench were pushed metres sideways). */
static void test_far_triangle_of_a_leaf_is_no_contact(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    const float v[18] = {-1, 0, -1, -1, 0, 2, 2, 0, -1, /* the floor, facing up */
                         10, 1.48f, 0, 10, 1.48f, 1, 11, 1.58f, 0};
    const uint32_t ix[6] = {0, 1, 2, 3, 4, 5};
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, v, 6, ix, 2, &m, reason, sizeof reason));
    assert_int_equal(m->num_nodes, 1); /* one leaf holds both */
    const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
    assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){1}, &ground, m), 0);
    ct_rigid_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                 .shape = CT_BODY_SPHERE,
                                 .mass = 1,
                                 .radius = 0.5f,
                                 .position = {0.2f, 0.45f, 0.2f}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &ball), 0);
    ball.shape = CT_BODY_CAPSULE, ball.half_height = 0.75f, ball.position[1] = 1.2f;
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){3}, &ball), 0);
    for (uint32_t id = 2; id <= 3; id++) {
        physics__manifold_out out;
        physics__manifold(&s.bodies, at(&s, 1), at(&s, id), 0.02f, false, &out);
        assert_true(out.count >= 1);
        assert_true(out.normal.y > 0.999f);
        for (uint32_t k = 0; k < out.count; k++)
            assert_true(fabsf(out.p[k].sep + 0.05f) < 0.01f);
    }
    physics__scene_free(&s);
}

/* A 1 m square of two triangles (its outer edges open, its diagonal internal: a glTF box's face,
 * whose corners no other face shares) and a ball of radius 0.2, then a box of 0.2 m, dropped on
 * it 14 cm from the diagonal: each lands and stays where it fell, neither kicked sideways by the
 * diagonal nor let off the face by its open edges. */
static void test_landing_on_a_seam_stays_put(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    const float v[12] = {-0.5f, 0, -0.5f, -0.5f, 0, 0.5f, 0.5f, 0, 0.5f, 0.5f, 0, -0.5f};
    const uint32_t ix[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 2; k++) {
        physics__mesh *m;
        char reason[160];
        assert_null(physics__mesh_build(&alloc.base, v, 4, ix, 2, &m, reason, sizeof reason));
        const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
        assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){1}, &ground, m), 0);
        const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                        .shape = k == 0 ? CT_BODY_SPHERE : CT_BODY_BOX,
                                        .mass = 1,
                                        .friction = 0.5f,
                                        .radius = 0.2f,
                                        .half_extents = {0.1f, 0.1f, 0.1f},
                                        .position = {0.1f, 0.6f, -0.1f}};
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &d), 0);
        run(&s, 90);
        const uint32_t i = at(&s, 2);
        const physics__v3 p = s.bodies.position[i], u = s.bodies.velocity[i];
        print_message("%s: at %.4f %.4f %.4f, v %.4f %.4f %.4f\n", k ? "box" : "ball",
                      (double)p.x, (double)p.y, (double)p.z, (double)u.x, (double)u.y,
                      (double)u.z);
        assert_true(fabsf(p.x - 0.1f) < 1e-3f && fabsf(p.z + 0.1f) < 1e-3f);
        assert_true(fabsf(p.y - (k == 0 ? 0.2f : 0.1f)) < 0.01f);
        assert_true(fabsf(u.x) < 1e-3f && fabsf(u.z) < 1e-3f);
        assert_true(physics__scene_remove(&s, (ct_entity_t){1}));
        assert_true(physics__scene_remove(&s, (ct_entity_t){2}));
    }
    physics__scene_free(&s);
}

/* The greatest |vertical velocity| of body `id` over `steps` steps. */
static uint32_t count_internal(const physics__mesh *m)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++)
        n += m->internal[t] == 7u;
    return n;
}

static float slide(physics__scene *s, uint32_t id, int steps)
{
    float most = 0.0f;
    for (int k = 0; k < steps; k++) {
        assert_int_equal(physics__scene_step(s, 1.0f / 60.0f), 0);
        most = f_max(most, fabsf(s->bodies.velocity[at(s, id)].y));
    }
    return most;
}

/* A frictionless box, hull and ball sliding at 5 m/s over a floor of 1 m tiles (two triangles
 * each) cross about 12 seams a second, along x and across the triangles' diagonals, and never
 * bump: the box's vertical speed stays under 0.5 mm/s (0.13 measured), it does not turn, and all
 * three keep their rest heights. The same with every edge marked open (the full one-sided
 * separating-axis test on each triangle) holds too (0.08 mm/s): before that test kept bodies to
 * the triangles' fronts, an edge axis pointing down sank the box through this floor. And on the
 * same floor with its vertices split at every tile (see the rolling test below). */
static void test_sliding_over_tiles_never_bumps(void **state)
{
    (void)state;
    for (int open = 0; open < 3; open++) {
        physics__scene s;
        scene_init(&s);
        s.sleeping = false;
        floor_mesh(&s, 1, 40, 0.0f, open == 2);
        if (open == 1)
            memset(s.bodies.mesh[0]->internal, 0, s.bodies.mesh[0]->num_triangles);
        const ct_rigid_body_desc_t box = {.kind = CT_BODY_DYNAMIC,
                                          .shape = CT_BODY_BOX,
                                          .half_extents = {0.5f, 0.5f, 0.5f},
                                          .mass = 1,
                                          .position = {-15, 0.5f, -5},
                                          .velocity = {5, 0, 0}};
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &box), 0);
        float p[24];
        cube_points(p, 0.4f);
        ct_rigid_body_desc_t h = hull_desc(-15, 0.4f, 5);
        h.friction = 0;
        h.velocity[0] = 3.5355339f, h.velocity[2] = -3.5355339f; /* diagonally */
        add_hull(&s, 3, h, p, 8);
        const ct_rigid_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                           .shape = CT_BODY_SPHERE,
                                           .radius = 0.3f,
                                           .mass = 1,
                                           .position = {-15, 0.3f, 10},
                                           .velocity = {5, 0, 0}};
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){4}, &ball), 0);
        /* Settle the soft contacts first (a few steps), then measure over two seconds. */
        slide(&s, 2, 10);
        const float vb = slide(&s, 2, 120);
        const physics__v3 pb = s.bodies.position[at(&s, 2)], ph = s.bodies.position[at(&s, 3)],
                          pl = s.bodies.position[at(&s, 4)];
        const physics__v3 wb = s.bodies.angular[at(&s, 2)];
        print_message("%s edges: box |vy| max %.6f, at x %.3f y %.5f spin %.5f; hull y %.5f; ball "
                      "y %.5f\n",
                      open == 2 ? "split" : open ? "open" : "internal", (double)vb, (double)pb.x,
                      (double)pb.y, (double)v3_len(wb), (double)ph.y, (double)pl.y);
        assert_true(vb < 5e-4f);
        assert_true(fabsf(pb.y - 0.5f) < 1e-3f && fabsf(pb.x + 4.1667f) < 1e-3f);
        assert_true(v3_len(wb) < 1e-3f);
        assert_true(fabsf(ph.y - 0.4f) < 1e-3f);
        assert_true(fabsf(pl.y - 0.3f) < 1e-3f);
        physics__scene_free(&s);
    }
}

/* Rolling over the seams: a ball (friction 0.5) and a lying capsule rolling at 5 m/s over the floor
 * of 1 m tiles, the floor built both ways: its vertices shared between tiles, and split (every
 * triangle its own three corners, as an OBJ or glTF export with a seam of texture coordinates at
 * every tile gives it). Either way the seams are internal edges, so both roll on without a bump:
 * under 1 mm/s up or down (0.03 measured) and 5 m/s kept. Before internal edges were found by
 * where their ends lie, the split floor kicked the ball up at 1.6 m/s and slowed it by 2.3 m in two
 * seconds. */
static void test_rolling_over_split_tiles_never_bumps(void **state)
{
    (void)state;
    for (int split = 0; split < 2; split++) {
        physics__scene s;
        scene_init(&s);
        s.sleeping = false;
        floor_mesh(&s, 1, 40, 0.0f, split);
        assert_int_equal(count_internal(s.bodies.mesh[0]), 3042); /* all but the border's */
        const ct_rigid_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                           .shape = CT_BODY_SPHERE,
                                           .radius = 0.3f,
                                           .mass = 1,
                                           .friction = 0.5f,
                                           .position = {-15, 0.3f, -10},
                                           .velocity = {5, 0, 0},
                                           .angular_velocity = {0, 0, -5.0f / 0.3f}};
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &ball), 0);
        ct_rigid_body_desc_t capsule = ball;
        capsule.shape = CT_BODY_CAPSULE;
        capsule.half_height = 0.4f;
        capsule.rotation[0] = 0.7071068f, capsule.rotation[3] = 0.7071068f; /* lying along z */
        capsule.position[2] = 0;
        assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){3}, &capsule), 0);
        float most[2] = {0};
        for (int k = 0; k < 130; k++) {
            assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
            for (uint32_t b = 0; k >= 10 && b < 2; b++)
                most[b] = f_max(most[b], fabsf(s.bodies.velocity[at(&s, 2 + b)].y));
        }
        const physics__v3 pb = s.bodies.position[at(&s, 2)], pc = s.bodies.position[at(&s, 3)];
        print_message("%s floor: ball |vy| max %.6f, at x %.4f y %.5f; capsule |vy| max %.6f, at x "
                      "%.4f y %.5f\n",
                      split ? "split" : "shared", (double)most[0], (double)pb.x, (double)pb.y,
                      (double)most[1], (double)pc.x, (double)pc.y);
        for (uint32_t b = 0; b < 2; b++)
            assert_true(most[b] < 1e-3f);
        assert_float_equal(pb.x, -4.1667f, 0.01f);
        assert_float_equal(pc.x, -4.1667f, 0.01f);
        assert_float_equal(pb.y, 0.3f, 1e-3f);
        assert_float_equal(pc.y, 0.3f, 1e-3f);
        physics__scene_free(&s);
    }
}

/* How far the lowest point of capsule i (radius r, half a metre from its centre to each end's
 * centre along its y, or a compound of that one child) is under the floor at y = 0 (negative: over
 * it). */
static float capsule_depth(const physics__scene *s, uint32_t i, float r)
{
    const physics__v3 axis = quat_rotate(s->bodies.rotation[i], v3(0, 1, 0));
    return r + 0.5f * fabsf(axis.y) - s->bodies.position[i].y;
}

/* A capsule (radius 25 cm, 1 m between its ends' centres, 1 kg, friction 0.6) lying along x and
 * rolling along z while it yaws, on a static box and on a flat mesh floor: at 2 m/s yawing at 5
 * rad/s and at 3 m/s yawing at 10. Its yaw carries its axis's ends across its roll, which tilts
 * them into the floor, and the contacts' anchors, fixed where they were found, saw none of it:
 * it sank 5.3 and 12.8 mm into the box, 5.2 and 13.3 into the mesh (with the anchors turned:
 * 0.7, 0.9, 1.4 and 2.8 mm). Under 4 mm each; lying flat at rest on the floor in the end, the
 * slower one still rolling (not sliding) at more than 1.5 m/s. The same for a compound whose one
 * child is that capsule (its twin: the same mass, inertia and surface), whose contacts' anchors
 * stayed where they were found: it sank 5.2 and 13.3 mm into the box, 5.2 and 12.3 into the mesh,
 * where the lone capsule sank 1.4, 2.9, 1.4 and 2.8 in the same build. And for a dumbbell: a
 * compound of two balls where the capsule's ends are (the same floor contacts; its own inertia),
 * whose contacts kept their anchors within a step as a lone ball's (a ball's contact point is the
 * same from its centre however it turns, but a ball child's centre is off its body's and moves as
 * the body turns): it sank 5.4 and 13.7 mm into the box, 5.9 and 14.7 into the mesh (turned: 1.1,
 * 1.0, 1.0 and 0.5). Its mass at its ends, its yaw lasts longer and scrubs more of its speed off
 * (1.3 to 1.8 m/s left of 2), so its speed is not held to the capsule's. */
static void test_capsule_rolling_and_yawing_stays_on_the_floor(void **state)
{
    (void)state;
    const float runs[2][2] = {{2.0f, 5.0f}, {3.0f, 10.0f}}; /* speed m/s, yaw rad/s */
    for (int child = 0; child < 3; child++)
        for (int mesh = 0; mesh < 2; mesh++)
            for (int k = 0; k < 2; k++) {
                physics__scene s;
                scene_init(&s);
                s.sleeping = false;
                if (mesh)
                    floor_field(&s, 1, 40, 0.0f);
                else
                    add_ground(&s, 40);
                const float r = 0.25f, v = runs[k][0];
                ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                          .shape = CT_BODY_CAPSULE,
                                          .radius = r,
                                          .half_height = 0.5f,
                                          .mass = 1,
                                          .friction = 0.6f,
                                          .position = {0, r, 0},
                                          .rotation = {0, 0, 0.7071068f, 0.7071068f},
                                          .velocity = {0, 0, v},
                                          .angular_velocity = {v / r, runs[k][1], 0}};
                if (child) {
                    const ct_compound_child_t rod[1] = {
                        {.shape = CT_BODY_CAPSULE, .radius = r, .half_height = 0.5f}};
                    const ct_compound_child_t dumbbell[2] = {
                        {.shape = CT_BODY_SPHERE, .radius = r, .position = {0, 0.5f, 0}},
                        {.shape = CT_BODY_SPHERE, .radius = r, .position = {0, -0.5f, 0}}};
                    d.shape = CT_BODY_COMPOUND;
                    assert_int_equal(physics__bodies_add_compound(
                                         &s.bodies, (ct_entity_t){2}, &d,
                                         child == 1 ? compound(rod, 1) : compound(dumbbell, 2)),
                                     0);
                } else {
                    add(&s, 2, d);
                }
                const uint32_t i = at(&s, 2);
                float deepest = 0.0f;
                for (int step = 0; step < 240; step++) {
                    assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
                    deepest = f_max(deepest, capsule_depth(&s, i, r));
                }
                const physics__v3 vel = s.bodies.velocity[i], w = s.bodies.angular[i];
                /* The velocity of its lowest point: rolling, next to none. */
                const physics__v3 slip = v3_add(vel, v3_cross(w, v3(0, -r, 0)));
                const float lean = quat_rotate(s.bodies.rotation[i], v3(0, 1, 0)).y;
                print_message(
                    "%s%s floor, %.0f m/s yawing at %.0f rad/s: deepest %.2f mm, at the end %.2f "
                    "mm, speed %.3f m/s, slip %.4f m/s, lean %.5f\n",
                    child == 2 ? "dumbbell, "
                    : child    ? "compound, "
                               : "",
                    mesh ? "mesh" : "box", (double)v, (double)runs[k][1],
                    (double)(deepest * 1000.0f), (double)(capsule_depth(&s, i, r) * 1000.0f),
                    (double)v3_len(vel), (double)v3_len(slip), (double)lean);
                assert_true(deepest < 0.004f);
                assert_true(fabsf(capsule_depth(&s, i, r)) < 5e-4f);
                assert_true(fabsf(lean) < 1e-3f);
                assert_true(v3_len(slip) < 0.01f);
                if (k == 0 && child < 2)
                    assert_true(v3_len(vel) > 1.5f);
                physics__scene_free(&s);
            }
}

/* A ball (radius 20 cm, 1 kg, friction 0.6) on the floor rolling at 0.5 m/s along a static capsule
 * lying beside it along x (radius 20 cm, 6 m between its ends' centres), pressed against it by
 * gravity leaning 3 m/s^2 towards it: rolling on both (spinning about y as fast as about z), it
 * slips on neither, and nothing does work on it (gravity is across its way). For 4 s it keeps its
 * speed (within 1%), goes 2 m and stays beside the capsule (within 1 mm). Its contact point with
 * the capsule turned with it, the capsule's push spun it: it slowed to 0.487 m/s and fell 2.8 cm
 * behind (from a spin of 5 rad/s about y, it sped up from 0.191 to 0.210 m/s in 3 s). */
static void test_ball_rolling_along_a_capsule_keeps_its_speed(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.sleeping = false;
    s.gravity = v3(0, -9.81f, -3.0f);
    add_ground(&s, 40);
    add(&s, 2,
        (ct_rigid_body_desc_t){.kind = CT_BODY_STATIC,
                               .shape = CT_BODY_CAPSULE,
                               .radius = 0.2f,
                               .half_height = 3.0f, /* x from -3 to 3 */
                               .friction = 0.6f,
                               .position = {0, 0.2f, 0},
                               .rotation = {0, 0, 0.7071068f, 0.7071068f}});
    const float r = 0.2f, v = 0.5f;
    add(&s, 3,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_SPHERE,
                               .radius = r,
                               .mass = 1,
                               .friction = 0.6f,
                               .position = {-2.0f, r, 2.0f * r},
                               .velocity = {v, 0, 0},
                               .angular_velocity = {0, v / r, -v / r}});
    const uint32_t i = at(&s, 3);
    float slowest = v, fastest = v, off = 0.0f;
    for (int step = 0; step < 240; step++) {
        assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
        const float speed = v3_len(s.bodies.velocity[i]);
        slowest = f_min(slowest, speed);
        fastest = f_max(fastest, speed);
        off = f_max(off, v3_len(v3_sub(v3(0, r, 2.0f * r),
                                       v3(0, s.bodies.position[i].y, s.bodies.position[i].z))));
    }
    print_message("speed %.4f .. %.4f m/s, at most %.3f mm off its line, at x %.4f\n",
                  (double)slowest, (double)fastest, (double)(off * 1000.0f),
                  (double)s.bodies.position[i].x);
    assert_true(fabsf(s.bodies.position[i].x) < 0.005f);
    assert_true(slowest > 0.99f * v && fastest < 1.01f * v);
    assert_true(off < 1e-3f);
    physics__scene_free(&s);
}

/* Rays and spheres against a height field: a ray down anywhere hits the plane through its three
 * samples; a sphere just over it does not touch it. */
static void test_height_field_queries(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    /* 3 x 3 samples, cells 2 m: a ridge along z at x 2 (height 1), 0 at both sides. */
    const float heights[9] = {0, 1, 0, 0, 1, 0, 0, 1, 0};
    physics__mesh *m = height_field(heights, 3, 3, 2.0f, 2.0f);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
    assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){1}, &d, m), 0);
    /* The ridge is convex: its edges are not internal. */
    ct_physics_hit_t hit;
    assert_true(physics__scene_raycast(&s, v3(1, 5, 1.3f), v3(0, -1, 0), 10, UINT32_MAX, &hit));
    assert_true(fabsf(hit.distance - 4.5f) < 1e-5f);
    assert_true(fabsf(hit.normal[0] + 0.4472136f) < 1e-5f &&
                fabsf(hit.normal[1] - 0.8944272f) < 1e-5f);
    assert_true(physics__scene_raycast(&s, v3(3.5f, 5, 0.2f), v3(0, -1, 0), 10, UINT32_MAX, &hit));
    assert_true(fabsf(hit.distance - 4.75f) < 1e-5f);
    assert_false(physics__scene_raycast(&s, v3(5, 5, 1), v3(0, -1, 0), 10, UINT32_MAX, &hit));
    ct_entity_t out[2];
    /* Over the ridge's top at (2, 1, 2): a sphere of 0.1 at y 1.11 misses, at 1.09 touches. */
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(2, 1.11f, 2), 0.1f, UINT32_MAX, out, 2),
                     0);
    assert_int_equal(physics__scene_overlap_sphere(&s, v3(2, 1.09f, 2), 0.1f, UINT32_MAX, out, 2),
                     1);
    physics__scene_free(&s);
}

/* Layers and masks on every query of every shape: a mesh floor (layer 2) with a hull (layer 4) and
 * a turned box (layer 8) standing on it. A ray down through the hull or the box hits it with a mask
 * holding its layer, passes it to the floor with one holding only the floor's, and hits nothing
 * with neither; a sphere touching both the hull and the floor sees what the mask holds. Asked
 * before any step and again after some (when the queries use the step's grids). */
static void test_queries_filter_every_shape(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.sleeping = false;
    floor_field(&s, 1, 10, 0.0f);
    float p[24];
    cube_points(p, 0.4f);
    add_hull(&s, 2, hull_desc(0, 0.4f, 0), p, 8);
    const float a = 0.6f;
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {0.5f, 0.5f, 0.5f},
                                      .mass = 1,
                                      .position = {3, 0.5f, 0},
                                      .rotation = {0, sinf(0.5f * a), 0, cosf(0.5f * a)}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){3}, &box), 0);
    s.bodies.layer[at(&s, 1)] = 2u;
    s.bodies.layer[at(&s, 2)] = 4u;
    s.bodies.layer[at(&s, 3)] = 8u;
    for (int round = 0; round < 2; round++) {
        ct_physics_hit_t hit;
        const physics__v3 down = v3(0, -1, 0);
        for (int k = 0; k < 2; k++) {
            const physics__v3 from = v3(k ? 3.0f : 0.0f, 5, 0.1f);
            const uint32_t layer = k ? 8u : 4u, id = k ? 3u : 2u;
            const float top = k ? 1.0f : 0.8f;
            assert_true(physics__scene_raycast(&s, from, down, 10, UINT32_MAX, &hit));
            assert_int_equal(hit.entity, id);
            assert_float_equal(hit.distance, 5.0f - top, 2e-3f);
            assert_true(physics__scene_raycast(&s, from, down, 10, layer | 1u, &hit));
            assert_int_equal(hit.entity, id);
            assert_true(physics__scene_raycast(&s, from, down, 10, 2u | 1u, &hit));
            assert_int_equal(hit.entity, 1);
            assert_float_equal(hit.distance, 5.0f, 2e-3f);
            assert_false(physics__scene_raycast(&s, from, down, 10, ~(layer | 2u), &hit));
        }
        /* A ball of 0.3 at the hull's foot, beside it and in the floor. */
        ct_entity_t out[4];
        const physics__v3 c = v3(0.55f, 0.1f, 0);
        assert_int_equal(physics__scene_overlap_sphere(&s, c, 0.3f, UINT32_MAX, out, 4), 2);
        assert_true(out[0].id == 1 && out[1].id == 2);
        assert_int_equal(physics__scene_overlap_sphere(&s, c, 0.3f, 4u, out, 4), 1);
        assert_int_equal(out[0].id, 2);
        assert_int_equal(physics__scene_overlap_sphere(&s, c, 0.3f, 2u, out, 4), 1);
        assert_int_equal(out[0].id, 1);
        assert_int_equal(physics__scene_overlap_sphere(&s, c, 0.3f, 8u | 1u, out, 4), 0);
        for (int k = 0; k < 30; k++)
            assert_int_equal(physics__scene_step(&s, 1.0f / 60.0f), 0);
    }
    physics__scene_free(&s);
}

/* Shape casts: a sphere, a box and a capsule swept through a mesh floor (layer 2) with a hull
 * (layer 4) and a turned box (layer 8) on it, and a 2 cm wall (layer 16). Each stops where it first
 * touches (distances worked out by hand), sees only what the mask holds (the floor under the hull
 * with the hull masked out), reports 0 when it starts touching, and misses what it passes beside;
 * a long fast sweep does not pass the thin wall. */
static void test_shape_casts(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    floor_field(&s, 1, 10, 0.0f);
    float p[24];
    cube_points(p, 0.4f);
    ct_rigid_body_desc_t hd = hull_desc(0, 0.4f, 0);
    hd.kind = CT_BODY_STATIC;
    add_hull(&s, 2, hd, p, 8);
    const float a = 0.7853982f; /* 45 degrees about y: its corners at x 3 +- 0.7071 */
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_STATIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {0.5f, 0.5f, 0.5f},
                                      .position = {3, 0.5f, 0},
                                      .rotation = {0, sinf(0.5f * a), 0, cosf(0.5f * a)}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){3}, &box), 0);
    const ct_rigid_body_desc_t wall = {.kind = CT_BODY_STATIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {0.01f, 1, 1},
                                       .position = {-3, 1, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){4}, &wall), 0);
    s.bodies.layer[at(&s, 1)] = 2u;
    s.bodies.layer[at(&s, 2)] = 4u;
    s.bodies.layer[at(&s, 3)] = 8u;
    s.bodies.layer[at(&s, 4)] = 16u;
    const physics__cast ball = {.shape = CT_BODY_SPHERE,
                                .radius = 0.25f,
                                .rotation = quat_identity()},
                        cube = {.shape = CT_BODY_BOX,
                                .half = v3(0.2f, 0.2f, 0.2f),
                                .rotation = quat_identity()},
                        capsule = {.shape = CT_BODY_CAPSULE,
                                   .radius = 0.1f,
                                   .half_height = 0.3f,
                                   .rotation = quat_identity()};
    ct_physics_hit_t hit;
    /* Down onto the hull's top (0.8): the ball from 5 stops with its centre at 1.05. */
    assert_true(
        physics__scene_shape_cast(&s, &ball, v3(0, 5, 0.1f), v3(0, -10, 0), UINT32_MAX, &hit));
    assert_int_equal(hit.entity, 2);
    assert_float_equal(hit.distance, 3.95f, 2e-3f);
    assert_float_equal(hit.normal[1], 1.0f, 1e-3f);
    assert_float_equal(hit.point[1], 0.8f, 2e-3f);
    /* Masked: the hull left out, it goes on to the floor (centre at 0.25). */
    assert_true(physics__scene_shape_cast(&s, &ball, v3(0, 5, 0.1f), v3(0, -10, 0), 2u, &hit));
    assert_int_equal(hit.entity, 1);
    assert_float_equal(hit.distance, 4.75f, 2e-3f);
    assert_false(physics__scene_shape_cast(&s, &ball, v3(0, 5, 0.1f), v3(0, -10, 0), 8u, &hit));
    /* Too short to reach anything. */
    assert_false(
        physics__scene_shape_cast(&s, &ball, v3(0, 5, 0.1f), v3(0, -3, 0), UINT32_MAX, &hit));
    /* A cube sideways at the turned box: its corner at x 3 - 0.7071 meets the cube's face. */
    assert_true(
        physics__scene_shape_cast(&s, &cube, v3(0.5f, 0.5f, 0), v3(4, 0, 0), ~2u & ~4u, &hit));
    assert_int_equal(hit.entity, 3);
    assert_float_equal(hit.distance, 3.0f - 0.7071068f - 0.2f - 0.5f, 2e-3f);
    assert_float_equal(hit.normal[0], -1.0f, 1e-3f);
    /* The same cube cast beside it (z 1.5) meets nothing. */
    assert_false(
        physics__scene_shape_cast(&s, &cube, v3(0.5f, 0.5f, 1.5f), v3(4, 0, 0), ~2u & ~4u, &hit));
    /* A capsule starting inside the hull: distance 0. */
    assert_true(physics__scene_shape_cast(&s, &capsule, v3(0, 0.5f, 0), v3(1, 0, 0), 4u, &hit));
    assert_int_equal(hit.entity, 2);
    assert_true(hit.distance == 0.0f);
    /* A long sweep at the 2 cm wall (100 m of motion) stops at it: x -3 + 0.01 + 0.1. */
    assert_true(physics__scene_shape_cast(&s, &capsule, v3(50, 1, 0), v3(-100, 0, 0), 16u, &hit));
    assert_int_equal(hit.entity, 4);
    assert_float_equal(hit.distance, 50.0f - (-3.0f + 0.01f + 0.1f), 2e-3f);
    /* Nothing was added: the scratch slot is past the bodies. */
    assert_int_equal(s.bodies.n, 4);
    physics__scene_free(&s);
}

/* A capsule standing on a roof's slope just past its ridge: a height field of 3 x 2 samples and
 * cells of 1 m with a ridge along z at x 1 (height 2, slopes of 2 in 1), four triangles in one
 * leaf of the tree, and the capsule's lower end 0.4 m past the ridge, sunk 1 cm into the slope. The
 * other slope's plane, extended past the ridge, passes 0.4 m above that end; past a ridge that
 * plane is no surface, so the only contact is the slope it stands on, 1 cm deep. (It was 0.73 m
 * deep along the far slope's normal: character movers on Jolt's hills were thrown 1.4 m up.) */
static void test_capsule_past_a_ridge(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    const float heights[6] = {0, 2, 0, 0, 2, 0};
    physics__mesh *m = height_field(heights, 3, 2, 1.0f, 1.0f);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
    assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){1}, &d, m), 0);
    /* The slope y = 4 - 2 x, normal (2, 1, 0) / sqrt 5: the lower end 0.29 m from it at x 1.4. */
    const float lower = 4.0f - 2.0f * 1.4f + 0.29f * sqrtf(5.0f);
    const ct_rigid_body_desc_t cap = {.kind = CT_BODY_KINEMATIC,
                                      .shape = CT_BODY_CAPSULE,
                                      .radius = 0.3f,
                                      .half_height = 0.675f,
                                      .position = {1.4f, lower + 0.675f, 0.5f},
                                      .locks = CT_BODY_LOCK_ROTATION};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &cap), 0);
    physics__manifold_out mo;
    physics__manifold(&s.bodies, at(&s, 2), at(&s, 1), 0.0f, false, &mo);
    float least = INFINITY;
    for (uint32_t k = 0; k < mo.count; k++)
        least = fminf(least, mo.p[k].sep);
    print_message("capsule past a ridge: %u points, deepest %.4f, normal %.3f %.3f %.3f\n",
                  mo.count, (double)least, (double)mo.normal.x, (double)mo.normal.y,
                  (double)mo.normal.z);
    assert_true(mo.count > 0);
    assert_true(least > -0.0105f && least < -0.0095f);
    /* From the capsule into the slope it stands on. */
    assert_true(fabsf(mo.normal.x + 0.8944272f) < 1e-3f && fabsf(mo.normal.y + 0.4472136f) < 1e-3f);
    physics__scene_free(&s);
}

/* A pile of hulls of several kinds (cubes, tetrahedra, prisms) dropped on the ground, with boxes
 * and balls among them: the state hash after 200 steps is pinned, and a two-thread pool gives
 * the same. */
static uint64_t hull_pile_hash(physics__pool with)
{
    physics__scene s;
    physics__scene_init(&s, &alloc.base);
    s.pool = with;
    add_ground(&s, 20.0f);
    float cube[24];
    cube_points(cube, 0.3f);
    const float tetra[12] = {0.4f,  0.4f, 0.4f,  0.4f,  -0.4f, -0.4f,
                             -0.4f, 0.4f, -0.4f, -0.4f, -0.4f, 0.4f};
    float prism[12 * 3];
    for (int k = 0; k < 6; k++)
        for (int side = 0; side < 2; side++) {
            float *q = &prism[3 * (2 * k + side)];
            q[0] = 0.3f * cosf(1.0471976f * (float)k), q[1] = side ? 0.25f : -0.25f;
            q[2] = 0.3f * sinf(1.0471976f * (float)k);
        }
    uint32_t id = 2;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 4; x++)
            for (int z = 0; z < 4; z++) {
                ct_rigid_body_desc_t d = hull_desc(-1.2f + 0.8f * (float)x + 0.05f * (float)y,
                                                   0.6f + 0.9f * (float)y, -1.2f + 0.8f * (float)z);
                d.angular_velocity[0] = 0.3f * (float)((x + z + y) % 3);
                const int kind = (x + 2 * z + y) % 5;
                if (kind == 0)
                    add_hull(&s, id, d, cube, 8);
                else if (kind == 1)
                    add_hull(&s, id, d, tetra, 4);
                else if (kind == 2)
                    add_hull(&s, id, d, prism, 12);
                else {
                    d.shape = kind == 3 ? CT_BODY_BOX : CT_BODY_SPHERE;
                    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.3f;
                    d.radius = 0.3f;
                    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){id}, &d),
                                     0);
                }
                id++;
            }
    /* And tables on top. */
    for (int k = 0; k < 3; k++) {
        const ct_rigid_body_desc_t d =
            compound_desc(-1.0f + (float)k, 6.0f + 1.2f * (float)k, 0.1f * (float)k);
        assert_int_equal(
            physics__bodies_add_compound(&s.bodies, (ct_entity_t){id++}, &d, compound(table, 5)),
            0);
    }
    run(&s, 200);
    /* Nothing fell through the ground: every centre is over it by at least the lowest any of
     * these bodies rests at, a table lying on its top (0.8 - TABLE_CENTRE_Y = 0.092 m; one ends
     * so, thrown off the pile). */
    for (uint32_t i = 0; i < s.bodies.n; i++)
        if (s.bodies.kind[i] == CT_BODY_DYNAMIC)
            assert_true(s.bodies.position[i].y > 0.8f - TABLE_CENTRE_Y - 0.01f);
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    physics__scene_free(&s);
    return h;
}

/* Boxes, balls, capsules and hull pyramids (the shapes of Jolt's ConvexVsMesh, smaller) dropped
 * on a wavy height field of 16 x 16 cells of 2 m: after 240 steps none is under the surface
 * below it, and the state hash is pinned (serial and two threads). */
static uint64_t mesh_pile_hash(physics__pool with, void (*pile)(physics__scene *, uint32_t))
{
    physics__scene s;
    physics__scene_init(&s, &alloc.base);
    s.pool = with;
    add_wavy_mesh(&s, 1, 16, 2.0f, 1.5f, 0.3f, -16.0f, -16.0f);
    pile(&s, 2);
    run(&s, 240);
    uint32_t below = 0;
    for (uint32_t i = 1; i < s.bodies.n; i++) {
        const physics__v3 p = s.bodies.position[i];
        physics__v3 n;
        const float t = physics__ray_body(&s.bodies, 0, v3(p.x, 50, p.z), v3(0, -1, 0), &n);
        below += t < INFINITY && p.y < 50.0f - t;
    }
    assert_int_equal(below, 0);
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    physics__scene_free(&s);
    return h;
}

/* Dynamic bodies awake in s. */
static uint32_t awake_bodies(const physics__scene *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->bodies.n; i++)
        n += s->bodies.kind[i] == CT_BODY_DYNAMIC && !s->bodies.asleep[i];
    return n;
}

/* 5 x 5 columns 4 m apart, each of two boxes (half extents 0.5, 0.75, 1) and a hull pyramid on
 * top, dropped from 2, 4 and 6 m: 75 bodies from first_id on. */
static void add_box_columns(physics__scene *s, uint32_t first_id)
{
    const float pyramid[15] = {0, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1};
    uint32_t id = first_id;
    for (int x = -2; x <= 2; x++)
        for (int z = -2; z <= 2; z++) {
            const float px = 4.0f * (float)x + 0.3f, pz = 4.0f * (float)z + 0.2f;
            ct_rigid_body_desc_t d = cube(px, 2.0f, pz, 0.5f);
            d.half_extents[1] = 0.75f, d.half_extents[2] = 1.0f;
            add(s, id++, d);
            d.position[1] = 4.0f;
            add(s, id++, d);
            d.shape = CT_BODY_HULL;
            d.position[1] = 6.0f;
            physics__hull *h = ct_alloc(&alloc.base, sizeof *h);
            assert_non_null(h);
            char reason[128];
            assert_null(physics__hull_build(h, pyramid, 5, reason, sizeof reason));
            assert_int_equal(physics__bodies_add_hull(&s->bodies, (ct_entity_t){id++}, &d, h), 0);
        }
}

/* Resting bodies fall asleep, with Jolt's damping (0.05) as bench_convex_mesh.c runs: the shapes
 * of ConvexVsMesh (196) on a box floor, and columns of boxes and pyramids (75) on a flat
 * triangle mesh of 2 m cells (bodies across its seams, held by several manifolds each); none is
 * below the surface. Soft contacts hold a body under others 1 to 2 mm deep, still: when a
 * contact deeper than 1 mm counted as pushing (physics_islands.c), 196 of the first were still
 * awake after 240 steps and 123 after 1,200. */
static void test_resting_piles_fall_asleep(void **state)
{
    (void)state;
    for (int on_mesh = 0; on_mesh < 2; on_mesh++) {
        physics__scene s;
        physics__scene_init(&s, &alloc.base);
        if (on_mesh) {
            add_wavy_mesh(&s, 1, 12, 2.0f, 0.0f, 0.3f, -12.0f, -12.0f);
            add_box_columns(&s, 2);
        } else {
            add_ground(&s, 40.0f);
            add_shape_pile(&s, 2);
        }
        for (uint32_t i = 0; i < s.bodies.n; i++)
            if (s.bodies.kind[i] == CT_BODY_DYNAMIC)
                s.bodies.damping[i] = (physics__damping){0.05f, 0.05f};
        run(&s, 240);
        print_message("%s: %u awake\n", on_mesh ? "mesh" : "floor", awake_bodies(&s));
        assert_int_equal(awake_bodies(&s), 0);
        assert_int_equal(s.bodies.n, on_mesh ? 76 : 197);
        for (uint32_t i = 0; i < s.bodies.n; i++)
            if (s.bodies.kind[i] == CT_BODY_DYNAMIC)
                assert_true(s.bodies.position[i].y - s.bodies.extent[i].y > -0.01f);
        physics__scene_free(&s);
    }
}

static void test_mesh_pile_hash_is_pinned(void **state)
{
    (void)state;
    const uint64_t serial = mesh_pile_hash((physics__pool){0}, add_shape_pile);
    print_message("mesh pile hash %016llx\n", (unsigned long long)serial);
#ifndef SHAPES_HASH_ONLY
    assert_true(mesh_pile_hash(two_threads, add_shape_pile) == serial);
#endif
    assert_true(serial == MESH_PILE_HASH);
}

/* The mesh pile's 49 pyramids sharing one hull step as they do with a copy each, bit for bit:
 * the pinned hash either way. */
static void test_bodies_sharing_a_hull_match_copies(void **state)
{
    (void)state;
    physics__scene s;
    physics__scene_init(&s, &alloc.base);
    add_shape_pile(&s, 2);
    const physics__hull *one = NULL;
    uint32_t pyramids = 0;
    for (uint32_t i = 0; i < s.bodies.n; i++)
        if (s.bodies.shape[i] == CT_BODY_HULL) {
            one = one ? one : s.bodies.hull[i];
            assert_ptr_equal(s.bodies.hull[i], one);
            pyramids++;
        }
    assert_int_equal(pyramids, 49);
    assert_int_equal(one->users, 49);
    assert_int_equal(s.bodies.num_hulls, 1);
    physics__scene_free(&s);
    const uint64_t shared = mesh_pile_hash((physics__pool){0}, add_shape_pile);
    const uint64_t copies = mesh_pile_hash((physics__pool){0}, add_shape_pile_copies);
    print_message("mesh pile hash %016llx shared, %016llx with copies\n",
                  (unsigned long long)shared, (unsigned long long)copies);
    assert_true(shared == copies);
    assert_true(shared == MESH_PILE_HASH);
}

/* Two pyramids on the ground share one hull: the first removed, the other keeps it whole and
 * still comes to rest on its base (its centre of mass 0.25 m up); the last removed frees it. A
 * pyramid of other points gets a hull of its own; one of the same points, built again, the
 * shared one. */
static void test_removing_one_of_two_sharers_keeps_the_hull(void **state)
{
    (void)state;
    const float pyramid[15] = {-0.5f, 0,     -0.5f, 0.5f, 0, -0.5f, 0.5f, 0,
                               0.5f,  -0.5f, 0,     0.5f, 0, 1,     0};
    physics__hull built;
    char reason[128];
    assert_null(physics__hull_build(&built, pyramid, 5, reason, sizeof reason));
    physics__scene s;
    on_ground(&s, 20.0f, true);
    const ct_rigid_body_desc_t d[3] = {hull_desc(0, 2, 0), hull_desc(3, 2, 0), hull_desc(-3, 2, 0)};
    physics__hull *h = physics__bodies_hull(&s.bodies, &built);
    assert_non_null(h);
    assert_int_equal(physics__bodies_add_hull(&s.bodies, (ct_entity_t){2}, &d[0], h), 0);
    physics__hull again;
    assert_null(physics__hull_build(&again, pyramid, 5, reason, sizeof reason));
    assert_ptr_equal(physics__bodies_hull(&s.bodies, &again), h);
    assert_int_equal(physics__bodies_add_hull(&s.bodies, (ct_entity_t){3}, &d[1], h), 0);
    float taller[15];
    memcpy(taller, pyramid, sizeof taller);
    taller[13] = 2.0f;
    assert_null(physics__hull_build(&again, taller, 5, reason, sizeof reason));
    physics__hull *other = physics__bodies_hull(&s.bodies, &again);
    assert_true(other != h);
    assert_int_equal(physics__bodies_add_hull(&s.bodies, (ct_entity_t){4}, &d[2], other), 0);
    assert_int_equal(s.bodies.num_hulls, 2);
    assert_int_equal(h->users, 2);
    assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){2}));
    assert_int_equal(h->users, 1);
    assert_true(memcmp(h, &built, PHYSICS_HULL_SHAPE_BYTES) == 0);
    run(&s, 240);
    const uint32_t k = at(&s, 3);
    assert_ptr_equal(s.bodies.hull[k], h);
    print_message("the sharer left rests at y %.5f\n", (double)s.bodies.position[k].y);
    assert_true(fabsf(s.bodies.position[k].y - 0.25f) < 0.002f);
    assert_true(quat_rotate(s.bodies.rotation[k], v3(0, 1, 0)).y > 0.9999f);
    for (uint32_t id = 3, left = 1; id <= 4; id++, left--) {
        const int64_t bytes = alloc.live_bytes;
        assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){id}));
        assert_int_equal(bytes - alloc.live_bytes, (int64_t)sizeof(physics__hull));
        assert_int_equal(s.bodies.num_hulls, left);
    }
    physics__scene_free(&s);
}

/* Compounds' hull children share too: two compounds of two hull cubes each (side by side) and a
 * hull body of the same cube use one hull. One compound removed, the other keeps it and rests on
 * the ground at the cubes' half height; the last user removed frees it. */
static void test_compounds_share_their_hulls(void **state)
{
    (void)state;
    float cube[24];
    cube_points(cube, 0.5f);
    const ct_compound_child_t pair[2] = {
        {.shape = CT_BODY_HULL, .points = cube, .point_count = 8, .position = {-0.6f, 0, 0}},
        {.shape = CT_BODY_HULL, .points = cube, .point_count = 8, .position = {0.6f, 0, 0}},
    };
    physics__scene s;
    on_ground(&s, 20.0f, true);
    const ct_rigid_body_desc_t d[2] = {compound_desc(0, 2, 0), compound_desc(4, 2, 0)};
    for (uint32_t k = 0; k < 2; k++)
        assert_int_equal(physics__bodies_add_compound(&s.bodies, (ct_entity_t){2 + k}, &d[k],
                                                      compound(pair, 2)),
                         0);
    physics__hull built;
    char reason[128];
    assert_null(physics__hull_build(&built, cube, 8, reason, sizeof reason));
    physics__hull *h = physics__bodies_hull(&s.bodies, &built);
    const ct_rigid_body_desc_t one = hull_desc(-4, 2, 0);
    assert_int_equal(physics__bodies_add_hull(&s.bodies, (ct_entity_t){4}, &one, h), 0);
    for (uint32_t id = 2; id <= 3; id++)
        for (uint32_t k = 0; k < 2; k++)
            assert_ptr_equal(s.bodies.compound[at(&s, id)]->child[k].hull, h);
    assert_int_equal(h->users, 5);
    assert_int_equal(s.bodies.num_hulls, 1);
    assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){2}));
    assert_int_equal(h->users, 3);
    assert_true(memcmp(h, &built, PHYSICS_HULL_SHAPE_BYTES) == 0);
    run(&s, 180);
    const uint32_t c = at(&s, 3);
    print_message("the compound left rests at y %.5f\n", (double)s.bodies.position[c].y);
    assert_true(fabsf(s.bodies.position[c].y - 0.5f) < 0.002f);
    assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){4}));
    const int64_t bytes = alloc.live_bytes;
    assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){3}));
    /* The compound's block and the hull. */
    assert_int_equal(bytes - alloc.live_bytes, (int64_t)(sizeof(physics__compound) +
                                                         2 * sizeof(physics__child) +
                                                         sizeof(physics__hull)));
    assert_int_equal(s.bodies.num_hulls, 0);
    physics__scene_free(&s);
}

static void test_hull_pile_hash_is_pinned(void **state)
{
    (void)state;
    const uint64_t serial = hull_pile_hash((physics__pool){0});
    print_message("hull pile hash %016llx\n", (unsigned long long)serial);
#ifndef SHAPES_HASH_ONLY
    assert_true(hull_pile_hash(two_threads) == serial);
#endif
    assert_true(serial == HULL_PILE_HASH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cube_hull_is_a_box, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sixty_four_points, setup, teardown),
        cmocka_unit_test_setup_teardown(test_degenerate_hulls_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hull_cube_rests_like_a_box, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hull_cube_tips_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pyramid_rests_on_its_base, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_shapes_on_a_hull, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hull_stack_stands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hull_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compound_mass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compound_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compounds_rest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compound_separation_is_the_manifolds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifold_skips_only_what_the_test_finds_apart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mesh_build, setup, teardown),
        cmocka_unit_test_setup_teardown(test_far_triangle_of_a_leaf_is_no_contact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_landing_on_a_seam_stays_put, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sliding_over_tiles_never_bumps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_height_field_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_past_a_ridge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rolling_over_split_tiles_never_bumps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capsule_rolling_and_yawing_stays_on_the_floor, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ball_rolling_along_a_capsule_keeps_its_speed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_queries_filter_every_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape_casts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hull_pile_hash_is_pinned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mesh_pile_hash_is_pinned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bodies_sharing_a_hull_match_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_removing_one_of_two_sharers_keeps_the_hull, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_compounds_share_their_hulls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resting_piles_fall_asleep, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
#ifdef SHAPES_HASH_ONLY
    /* The -O0 build on the plain C lanes checks only that it reaches the pinned hashes, and
     * serially (the pile tests leave their second run, on two threads, to the -O2 build: it was
     * half of this build's time, 8 s under ASan). */
    cmocka_set_test_filter("*_pile_hash_is_pinned");
#endif
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
