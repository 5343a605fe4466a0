/* Several manifolds per body and mesh (physics_mesh.c): a body touching triangles that face
 * different ways gets a manifold for each way (up to PHYSICS_MESH_MANIFOLDS), each with its own
 * normal and warm start, so it rests in a crease, on a ridge or on a peak; a compound's children
 * get their own (a table's legs). Bodies slide over the seam where one mesh continues another.
 * Without the kernel, serial and on two threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A mesh of nt triangles (static, friction 0.6) as body `id` at x (its frame's origin). */
static void add_mesh_at(physics__scene *s, uint32_t id, const float *v, uint32_t nv,
                        const uint32_t *ix, uint32_t nt, float x)
{
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, v, nv, ix, nt, &m, reason, sizeof reason));
    const ct_rigid_body_desc_t d = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_MESH, .friction = 0.6f, .position = {x, 0, 0}};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){id}, &d, m), 0);
}

static void add_mesh(physics__scene *s, uint32_t id, const float *v, uint32_t nv,
                     const uint32_t *ix, uint32_t nt)
{
    add_mesh_at(s, id, v, nv, ix, nt, 0.0f);
}

/* A 90-degree V: two triangles 2 m deep meeting in a crease along z at the origin, each rising
 * at 45 degrees (normals (+-1, 1, 0) / sqrt 2). */
static const float v_crease[12] = {0, 0, -2, 0, 0, 2, -2, 2, 0, 2, 2, 0};
static const uint32_t v_crease_ix[6] = {0, 2, 1, 0, 1, 3};

/* The V as entity 1 and, as entity 2, a cube of 0.2 m turned 45 degrees about z whose centre is
 * `x` off the crease and 5 cm above where it rests. */
static void cube_over_crease(physics__scene *s, float x)
{
    scene_init(s);
    add_mesh(s, 1, v_crease, 4, v_crease_ix, 2);
    const float turn = 0.5f * 0.78539816f;
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_BOX,
                                    .mass = 1,
                                    .friction = 0.6f,
                                    .half_extents = {0.1f, 0.1f, 0.1f},
                                    .rotation = {0, 0, sinf(turn), cosf(turn)},
                                    .position = {x, 0.1914f, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s->bodies, (ct_entity_t){2}, &d), 0);
}

/* A cube of 0.2 m turned 45 degrees about z dropped 5 cm into the V: it comes to rest with a face
 * on each side, its centre 0.1 * sqrt 2 = 0.1414 m over the crease, and stays (under 1 mm/s after
 * 2 s). One manifold a pair kept only the deeper side's normal: the cube was pushed off one face
 * into the other, back and forth, and never rested. */
static void test_cube_rests_in_a_crease(void **state)
{
    (void)state;
    physics__scene s;
    cube_over_crease(&s, 0);
    run(&s, 120);
    const uint32_t i = at(&s, 2);
    const physics__v3 p = s.bodies.position[i], u = s.bodies.velocity[i], w = s.bodies.angular[i];
    print_message("cube in the crease: at %.5f %.5f %.5f, v %.6f %.6f %.6f, w %.6f %.6f %.6f\n",
                  (double)p.x, (double)p.y, (double)p.z, (double)u.x, (double)u.y, (double)u.z,
                  (double)w.x, (double)w.y, (double)w.z);
    assert_true(v3_len(u) < 1e-3f);
    assert_true(v3_len(w) < 1e-2f);
    assert_true(fabsf(p.x) < 1e-3f && fabsf(p.z) < 1e-3f);
    assert_true(fabsf(p.y - 0.14142f) < 1e-3f);
    physics__scene_free(&s);
}

/* The cube of test_cube_rests_in_a_crease, as it lands: physics__mesh_manifolds gives one
 * manifold for each face of the V (normals (+-1, 1, 0) / sqrt 2, from the mesh to the cube), and
 * asked for one it gives one. */
static void test_crease_gives_two_manifolds(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    add_mesh(&s, 1, v_crease, 4, v_crease_ix, 2);
    const float turn = 0.5f * 0.78539816f;
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_BOX,
                                    .mass = 1,
                                    .half_extents = {0.1f, 0.1f, 0.1f},
                                    .rotation = {0, 0, sinf(turn), cosf(turn)},
                                    .position = {0.001f, 0.1404f, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &d), 0);
    physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
    memset(out, 0, sizeof out); /* so out[2] shows whether anything was written past the two */
    const uint32_t mesh = at(&s, 1), cube = at(&s, 2);
    assert_int_equal(physics__manifolds(&s.bodies, mesh, cube, 0.02f, false, out,
                                        PHYSICS_MESH_MANIFOLDS),
                     2);
    /* The deeper side first: the cube is 1 mm to the right, into the face rising to the right. */
    assert_true(fabsf(out[0].normal.x + 0.70710678f) < 1e-4f);
    assert_true(fabsf(out[1].normal.x - 0.70710678f) < 1e-4f);
    for (uint32_t g = 0; g < 2; g++) {
        assert_true(fabsf(out[g].normal.y - 0.70710678f) < 1e-4f);
        assert_int_equal(out[g].count, 4); /* a face of the cube on each side */
    }
    assert_int_equal(out[2].count, 0);
    assert_int_equal(physics__manifolds(&s.bodies, mesh, cube, 0.02f, false, out, 1), 1);
    assert_true(fabsf(out[0].normal.x + 0.70710678f) < 1e-4f);
    physics__scene_free(&s);
}

/* A board (1 x 0.02 x 0.3 m) lying on a floor, 1 mm into it, with five steep walls (70 degrees,
 * each of its own way) around it, each 3 mm into an edge or corner of its underside: six ways in
 * all, the floor the shallowest. Every way keeps its manifold, the floor's too. With four at most
 * the four deepest walls were kept and the floor under the board dropped: a board across a ridge
 * of the scanned bunny (test_physics_mesh_level's swept board 0) sank off the faces it rested on
 * and rocked for good. */
static void test_board_keeps_the_floor_among_many_ways(void **state)
{
    (void)state;
    enum { WALLS = 5 };
    float v[(4 + 3 * WALLS) * 3] = {-2, 0, -2, 2, 0, -2, 2, 0, 2, -2, 0, 2};
    uint32_t ix[(2 + WALLS) * 3] = {0, 2, 1, 0, 3, 2};
    static const float azimuth[WALLS] = {0.0f, 0.78539816f, 1.5707963f, 3.1415927f, 4.712389f};
    for (uint32_t k = 0; k < WALLS; k++) {
        const float c = cosf(azimuth[k]), sn = sinf(azimuth[k]);
        /* Facing the board: n = (-0.94 c, 0.34, -0.94 s); along it h, up it u. */
        const physics__v3 h = v3(-sn, 0, c), u = v3(0.34f * c, 0.94f, 0.34f * sn);
        const float reach = 0.5f * fabsf(c) + 0.15f * fabsf(sn) - 0.003f;
        const physics__v3 p0 = v3(reach * c, 0, reach * sn);
        const physics__v3 corner[3] = {v3_sub(v3_sub(p0, h), v3_scale(u, 0.1f)),
                                       v3_sub(v3_add(p0, h), v3_scale(u, 0.1f)),
                                       v3_add(p0, v3_scale(u, 0.3f))};
        for (uint32_t q = 0; q < 3; q++) {
            v[3 * (4 + 3 * k + q)] = corner[q].x;
            v[3 * (4 + 3 * k + q) + 1] = corner[q].y;
            v[3 * (4 + 3 * k + q) + 2] = corner[q].z;
        }
        /* Wound so that its normal faces the board (counter-clockwise seen from there). */
        ix[6 + 3 * k] = 4 + 3 * k;
        ix[6 + 3 * k + 1] = 4 + 3 * k + 1;
        ix[6 + 3 * k + 2] = 4 + 3 * k + 2;
    }
    physics__scene s;
    scene_init(&s);
    add_mesh(&s, 1, v, 4 + 3 * WALLS, ix, 2 + WALLS);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_BOX,
                                    .mass = 1,
                                    .half_extents = {0.5f, 0.01f, 0.15f},
                                    .rotation = {0, 0, 0, 1},
                                    .position = {0, 0.009f, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &d), 0);
    physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
    const uint32_t made = physics__manifolds(&s.bodies, at(&s, 1), at(&s, 2), 0.02f, false, out,
                                             PHYSICS_MESH_MANIFOLDS);
    uint32_t floor = made;
    for (uint32_t g = 0; g < made; g++) {
        float least = INFINITY;
        for (uint32_t q = 0; q < out[g].count; q++)
            least = fminf(least, out[g].p[q].sep);
        print_message("way %u: normal %.3f %.3f %.3f, %u points, deepest %.4f\n", g,
                      (double)out[g].normal.x, (double)out[g].normal.y, (double)out[g].normal.z,
                      out[g].count, (double)least);
        if (out[g].normal.y > 0.999f)
            floor = g;
    }
    assert_int_equal(made, 1 + WALLS);
    assert_true(floor < made);
    assert_int_equal(out[floor].count, 4); /* the board's underside */
    for (uint32_t q = 0; q < 4; q++)
        assert_true(fabsf(out[floor].p[q].sep + 0.001f) < 1e-4f);
    physics__scene_free(&s);
}

/* Rollback with several contacts a pair: the cube dropped into the crease is saved as it lands
 * (two contacts of the one pair in the cache); restored, the next 60 steps give the state hashes
 * of the 60 that followed the save. A snapshot that names a pair's manifold the shapes no longer
 * give (the V flattened since) is refused. */
static void test_crease_snapshot_restores(void **state)
{
    (void)state;
    physics__scene s;
    cube_over_crease(&s, 0.01f);
    run(&s, 12);
    assert_int_equal(s.rigid.num_cache, 2);
    assert_true(s.rigid.cache[0].key == s.rigid.cache[1].key);
    assert_int_equal(s.rigid.cache[1].sub, 1);
    uint32_t size;
    uint8_t *snap = save_snapshot(&s, &size);
    uint64_t hashes[60];
    run_recording(&s, 60, hashes);
    /* Flattened: the right face lies down, so the pair has one way only. */
    physics__mesh *m = s.bodies.mesh[at(&s, 1)];
    const physics__v3 right = m->normal[1];
    m->normal[1] = m->normal[0];
    const char *why = physics__snapshot_check(&s, NULL, snap, size);
    assert_non_null(why);
    assert_non_null(strstr(why, "shapes"));
    m->normal[1] = right;
    assert_int_equal(physics__snapshot_restore(&s, NULL, snap, size), 0);
    run_matching(&s, 60, hashes);
    free(snap);
    physics__scene_free(&s);
}

/* The early-outs before a body's tests against a triangle and another body (a shape clear of a
 * plane past the margin is skipped, PHYSICS_PLANE_SLACK): they skip only what the tests would not
 * find. Each shape, turned so that a corner, edge or side is lowest, is put with its lowest point
 * just within the margin over a lone triangle (whose open edges take the full tests), then just
 * past it: within, one manifold whose deepest point is that gap; past it, none. The same for a
 * ball and a capsule just within and past the margin of a box's and a hull's faces. */
static uint32_t boundary_body(physics__scene *s, uint32_t shape, physics__v3 where)
{
    const float turn = 0.5f * 0.5235988f; /* 30 degrees about x, then about z for the hull */
    ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                              .shape = shape,
                              .mass = 1,
                              .friction = 0.5f,
                              .half_extents = {0.5f, 0.75f, 1.0f},
                              .radius = 0.5f,
                              .half_height = 0.75f,
                              .rotation = {sinf(turn), 0, 0, cosf(turn)},
                              .position = {where.x, where.y, where.z}};
    const ct_entity_t e = {s->bodies.n + 1u};
    if (shape == CT_BODY_CAPSULE) /* lying along x */
        d.rotation[0] = 0, d.rotation[2] = 0.70710678f, d.rotation[3] = 0.70710678f;
    if (shape == CT_BODY_HULL) {
        static const float pyramid[15] = {0, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1};
        physics__hull *h = ct_alloc(&alloc.base, sizeof *h);
        char reason[160];
        assert_null(physics__hull_build(h, pyramid, 5, reason, sizeof reason));
        d.rotation[0] = 0, d.rotation[2] = sinf(turn), d.rotation[3] = cosf(turn);
        assert_int_equal(physics__bodies_add_hull(&s->bodies, e, &d, h), 0);
    } else {
        assert_int_equal(physics__bodies_add_rigid(&s->bodies, e, &d), 0);
    }
    const uint32_t i = at(s, e.id);
    physics__bodies_extent(&s->bodies, i);
    return i;
}

/* How far body i reaches below its centre along -dir (dir unit). */
static float boundary_reach(const physics__bodies *b, uint32_t i, physics__v3 dir)
{
    const physics__quat q = b->rotation[i];
    const uint8_t shape = b->shape[i];
    if (shape == CT_BODY_SPHERE)
        return b->radius[i];
    if (shape == CT_BODY_CAPSULE) {
        const physics__v3 a = quat_rotate(q, v3(0, b->half[i].y - b->radius[i], 0));
        return fabsf(v3_dot(a, dir)) + b->radius[i];
    }
    if (shape == CT_BODY_BOX)
        return b->half[i].x * fabsf(v3_dot(quat_rotate(q, v3(1, 0, 0)), dir)) +
               b->half[i].y * fabsf(v3_dot(quat_rotate(q, v3(0, 1, 0)), dir)) +
               b->half[i].z * fabsf(v3_dot(quat_rotate(q, v3(0, 0, 1)), dir));
    float most = -INFINITY;
    for (uint32_t k = 0; k < b->hull[i]->num_vertices; k++)
        most = f_max(most, -v3_dot(quat_rotate(q, b->hull[i]->vertex[k]), dir));
    return most;
}

static void test_early_outs_keep_the_margin(void **state)
{
    (void)state;
    const float margin = 0.02f;
    /* One triangle, 40 m across, in the plane y = 0 (normal +y): its edges are open. */
    static const float tri[9] = {-20, 0, -20, 0, 0, 20, 20, 0, -20};
    static const uint32_t tri_ix[3] = {0, 1, 2};
    const uint32_t shapes[4] = {CT_BODY_BOX, CT_BODY_SPHERE, CT_BODY_CAPSULE, CT_BODY_HULL};
    const float gaps[2] = {margin - 5e-4f, margin + 5e-4f};
    for (uint32_t k = 0; k < 4; k++)
        for (uint32_t g = 0; g < 2; g++) {
            physics__scene s;
            scene_init(&s);
            add_mesh(&s, 1, tri, 3, tri_ix, 1);
            const uint32_t i = boundary_body(&s, shapes[k], v3(0.3f, 0, 0.2f));
            s.bodies.position[i].y = boundary_reach(&s.bodies, i, v3(0, 1, 0)) + gaps[g];
            physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
            const uint32_t made = physics__manifolds(&s.bodies, at(&s, 1), i, margin, false, out,
                                                     PHYSICS_MESH_MANIFOLDS);
            print_message("shape %u, %.4f m over the triangle: %u manifolds\n", shapes[k],
                          (double)gaps[g], made);
            assert_int_equal(made, g == 0 ? 1u : 0u);
            if (made) {
                float least = INFINITY;
                for (uint32_t q = 0; q < out[0].count; q++)
                    least = f_min(least, out[0].p[q].sep);
                assert_true(fabsf(least - gaps[0]) < 1e-4f);
                assert_true(out[0].normal.y > 0.999f);
            }
            physics__scene_free(&s);
        }
    /* A ball and a capsule (lying along x) beside a box's and a hull's +x side. */
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t r = 1; r < 3; r++)
            for (uint32_t g = 0; g < 2; g++) {
                physics__scene s;
                scene_init(&s);
                const uint32_t solid = boundary_body(&s, shapes[k ? 3 : 0], v3(0, 0, 0));
                const uint32_t round = boundary_body(&s, shapes[r], v3(0, 0, 0));
                /* Along +x from the solid's point farthest that way (the box's +x side is a face
                 * about its centre; the hull's, a corner): nothing of the solid is nearer. */
                physics__v3 far = v3(boundary_reach(&s.bodies, solid, v3(-1, 0, 0)), 0, 0);
                if (k) {
                    const physics__hull *h = s.bodies.hull[solid];
                    for (uint32_t q = 0; q < h->num_vertices; q++) {
                        const physics__v3 v = quat_rotate(s.bodies.rotation[solid], h->vertex[q]);
                        if (v.x > far.x || q == 0)
                            far = v;
                    }
                }
                s.bodies.position[round] =
                    v3_add(far, v3(boundary_reach(&s.bodies, round, v3(1, 0, 0)) + gaps[g], 0, 0));
                physics__bodies_extent(&s.bodies, round);
                physics__manifold_out m;
                physics__manifold(&s.bodies, solid, round, margin, false, &m);
                print_message("shape %u beside shape %u, %.4f m apart: %u points\n", shapes[r],
                              shapes[k ? 3 : 0], (double)gaps[g], m.count);
                assert_true(g == 0 ? m.count > 0 : m.count == 0);
                for (uint32_t q = 0; q < m.count; q++)
                    assert_true(m.p[q].sep > gaps[0] - 1e-4f);
                physics__scene_free(&s);
            }
}

/* ---- seams between meshes ---- */

/* A flat square 4 m wide, y = 0, facing up, about its frame's origin. */
static const float square[12] = {-2, 0, -2, 2, 0, -2, 2, 0, 2, -2, 0, 2};
static const uint32_t square_ix[6] = {0, 2, 1, 0, 3, 2};

enum { SEAM_BOX, SEAM_BALL, SEAM_CAPSULE };

/* What a body sliding over the floor did: its velocity's extremes over the steps. */
typedef struct slide {
    physics__v3 lo, hi; /* of the velocity */
    physics__v3 end;
} slide;

/* A floor 8 m long in x: one mesh (entity 1, x in [-4, 4]) or two meshes meeting at x = 0
 * (entities 1 and 3, each 4 m square), or a mesh and a flat height field (entity 3, 2 x 1 cells
 * of 2 m, its samples x in [0, 4], z in [-2, 0]... [0, 2] after moving it). On it, resting, a
 * frictionless box (0.2 m), ball (r 0.1) or capsule (r 0.1, lying along x, 0.6 m long) starting
 * at `from`, sliding at `v` for 40 steps. */
static slide slide_over(int floor, int shape, physics__v3 from, physics__v3 v)
{
    physics__scene s;
    scene_init(&s);
    if (floor == 0) {
        const float wide[12] = {-4, 0, -2, 4, 0, -2, 4, 0, 2, -4, 0, 2};
        add_mesh(&s, 1, wide, 4, square_ix, 2);
    } else {
        add_mesh_at(&s, 1, square, 4, square_ix, 2, -2.0f);
        if (floor == 1) {
            add_mesh_at(&s, 3, square, 4, square_ix, 2, 2.0f);
        } else {
            const float heights[6] = {0, 0, 0, 0, 0, 0};
            physics__mesh *m = height_field(heights, 3, 2, 2.0f, 4.0f);
            const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                            .shape = CT_BODY_MESH,
                                            .friction = 0.6f,
                                            .position = {0, 0, -2}};
            assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){3}, &d, m), 0);
        }
    }
    ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                              .mass = 1,
                              .rotation = {0, 0, 0, 1},
                              .position = {from.x, 0.1f, from.z},
                              .velocity = {v.x, v.y, v.z}};
    if (shape == SEAM_BOX) {
        d.shape = CT_BODY_BOX;
        d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.1f;
    } else if (shape == SEAM_BALL) {
        d.shape = CT_BODY_SPHERE;
        d.radius = 0.1f;
    } else {
        d.shape = CT_BODY_CAPSULE;
        d.radius = 0.1f;
        d.half_height = 0.2f;
        d.rotation[2] = d.rotation[3] = 0.70710678f; /* its axis along x */
    }
    assert_int_equal(physics__bodies_add_rigid(&s.bodies, (ct_entity_t){2}, &d), 0);
    slide r = {.lo = v3(INFINITY, INFINITY, INFINITY), .hi = v3(-INFINITY, -INFINITY, -INFINITY)};
    for (int k = 0; k < 40; k++) {
        run(&s, 1);
        const physics__v3 u = s.bodies.velocity[at(&s, 2)];
        r.lo = v3_min(r.lo, u);
        r.hi = v3_max(r.hi, u);
    }
    r.end = s.bodies.position[at(&s, 2)];
    physics__scene_free(&s);
    return r;
}

/* A frictionless box, ball or capsule sliding at 3 and 5 m/s over the seam where one mesh (or a
 * height field) continues another in the same plane, across it (from x = -1 along +x) and along
 * it (straddling it, along +z): its velocity stays what it was, within 1 cm/s each way, as on one
 * mesh, and it ends where the speed takes it. The seam's border edges were real edges: a box met
 * the second mesh's edge with its own front face's normal, stopped at the seam and was thrown
 * back at 0.7 m/s from 3 m/s. */
static void test_no_bump_at_a_seam_between_meshes(void **state)
{
    (void)state;
    static const char *floors[3] = {"one mesh", "two meshes", "a mesh and a height field"};
    static const char *shapes[3] = {"box", "ball", "capsule"};
    const float speeds[2] = {3.0f, 5.0f};
    for (int floor = 0; floor < 3; floor++)
        for (int shape = 0; shape < 3; shape++)
            for (int k = 0; k < 2; k++)
                for (int along = 0; along <= 1; along++) {
                    const float u = speeds[k];
                    const physics__v3 from = along ? v3(0.0f, 0, -1.5f) : v3(-1.0f, 0, 0.3f);
                    const physics__v3 v = along ? v3(0, 0, u) : v3(u, 0, 0);
                    const slide r = slide_over(floor, shape, from, v);
                    print_message("%s on %s at %g m/s %s the seam: v x [%.4f, %.4f] y [%.4f, "
                                  "%.4f] z [%.4f, %.4f], ends at %.4f %.4f %.4f\n",
                                  shapes[shape], floors[floor], (double)u,
                                  along ? "along" : "across", (double)r.lo.x, (double)r.hi.x,
                                  (double)r.lo.y, (double)r.hi.y, (double)r.lo.z,
                                  (double)r.hi.z, (double)r.end.x, (double)r.end.y,
                                  (double)r.end.z);
                    const physics__v3 want = v3_add(from, v3_scale(v, 40.0f / 60.0f));
                    assert_true(r.lo.x > v.x - 0.01f && r.hi.x < v.x + 0.01f);
                    assert_true(r.lo.z > v.z - 0.01f && r.hi.z < v.z + 0.01f);
                    assert_true(r.lo.y > -0.01f && r.hi.y < 0.01f);
                    assert_true(fabsf(r.end.x - want.x) < 0.01f);
                    assert_true(fabsf(r.end.z - want.z) < 0.01f);
                    assert_true(fabsf(r.end.y - 0.1f) < 0.002f);
                }
}

/* ---- compounds on a mesh ---- */

/* A table (a top 2 x 0.1 x 1.2 m and four legs 0.1 x 0.7 x 0.1 m) dropped 5 cm onto a flat mesh:
 * each leg gets its own contact with the mesh (four contacts in the pair, one for each leg, four
 * points each), and the table stands level: its top's corners within 0.1 mm of one height, still.
 * One manifold for the pair merged the sixteen corners of the legs into four points. */
static const ct_compound_child_t table[5] = {
    {.shape = CT_BODY_BOX, .half_extents = {1, 0.05f, 0.6f}, .position = {0, 0.75f, 0}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {0.9f, 0.35f, 0.5f}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {-0.9f, 0.35f, 0.5f}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {0.9f, 0.35f, -0.5f}},
    {.shape = CT_BODY_BOX, .half_extents = {0.05f, 0.35f, 0.05f}, .position = {-0.9f, 0.35f, -0.5f}},
};
/* Its centre of mass over the floor: (0.24 * 0.75 + 0.028 * 0.35) / 0.268. */
#define TABLE_CENTRE_Y 0.70820896f

static void test_table_legs_each_get_a_contact_on_a_mesh(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    s.sleeping = false; /* (its contacts are this step's) */
    add_mesh(&s, 1, square, 4, square_ix, 2);
    physics__compound *c;
    char reason[160];
    assert_null(physics__compound_build(&alloc.base, table, 5, &c, reason, sizeof reason));
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_COMPOUND,
                                    .mass = 10,
                                    .friction = 0.6f,
                                    .rotation = {0, 0, 0, 1},
                                    .position = {0.1f, TABLE_CENTRE_Y + 0.05f, -0.2f}};
    assert_int_equal(physics__bodies_add_compound(&s.bodies, (ct_entity_t){2}, &d, c), 0);
    run(&s, 90);
    const uint32_t i = at(&s, 2);
    uint32_t contacts = 0, points = 0;
    for (uint32_t k = 0; k < s.rigid.num_contacts; k++) {
        contacts++;
        points += s.rigid.contact[k].count;
        assert_true(s.rigid.contact[k].normal.y > 0.9999f);
    }
    const physics__v3 p = s.bodies.position[i], u = s.bodies.velocity[i];
    float lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 4; k++) {
        const physics__v3 corner = v3(k & 1 ? 1.0f : -1.0f, 0.8f, k & 2 ? 0.6f : -0.6f);
        const physics__v3 w =
            v3_add(p, quat_rotate(s.bodies.rotation[i], v3_sub(corner, v3(0, TABLE_CENTRE_Y, 0))));
        lo = f_min(lo, w.y);
        hi = f_max(hi, w.y);
    }
    print_message("table on a mesh: %u contacts, %u points, centre %.5f %.5f %.5f, top's corners "
                  "%.5f to %.5f, speed %.6f\n",
                  contacts, points, (double)p.x, (double)p.y, (double)p.z, (double)lo, (double)hi,
                  (double)v3_len(u));
    assert_int_equal(contacts, 4);
    assert_int_equal(points, 16);
    assert_true(hi - lo < 1e-4f);
    assert_true(fabsf(p.y - TABLE_CENTRE_Y) < 2e-3f);
    assert_true(v3_len(u) < 1e-3f);
    /* Asked for fewer, the deepest are kept and the others' points join them. */
    physics__manifold_out out[PHYSICS_MESH_MANIFOLDS];
    assert_int_equal(physics__manifolds(&s.bodies, at(&s, 1), i, 0.02f, false, out, 2), 2);
    assert_int_equal(physics__manifolds(&s.bodies, at(&s, 1), i, 0.02f, false, out, 1), 1);
    assert_int_equal(out[0].count, 4);
    physics__scene_free(&s);
}

/* What a sweep measures against a mesh (physics__manifold_separation: the deepest triangle only,
 * nearest plane first, physics__mesh_least) is what the manifold's least point and normal were,
 * bit for bit: a box, ball, capsule and hull each at 150 poses (a fixed pseudo-random sequence:
 * over, on and into a wavy mesh, turned any way, with margins from 5 mm to 0.6 m), the mesh as
 * either body, through the bodies' lists of near triangles and without them. */
static float next_unit(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)(*seed >> 8 & 0xffffu) * (1.0f / 65536.0f);
}

static void test_sweep_separation_is_the_manifolds(void **state)
{
    (void)state;
    const uint32_t shapes[4] = {CT_BODY_BOX, CT_BODY_SPHERE, CT_BODY_CAPSULE, CT_BODY_HULL};
    uint32_t seed = 12345u, touching = 0, poses = 0;
    for (uint32_t lists = 0; lists < 2; lists++)
        for (uint32_t k = 0; k < 4; k++) {
            physics__scene s;
            scene_init(&s);
            add_wavy_mesh(&s, 1, 12, 1.0f, 0.6f, 0.0f, -6.0f, -6.0f);
            const uint32_t i = boundary_body(&s, shapes[k], v3(0, 0, 0)), mesh = at(&s, 1);
            if (lists)
                physics__mesh_near_reserve(&s.bodies);
            for (uint32_t pose = 0; pose < 150; pose++, poses++) {
                float r[8];
                for (uint32_t k2 = 0; k2 < 8; k2++)
                    r[k2] = next_unit(&seed);
                physics__quat q = {r[0] - 0.5f, r[1] - 0.5f, r[2] - 0.5f, r[3] - 0.5f};
                const float len = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
                q = (physics__quat){q.x / len, q.y / len, q.z / len, q.w / len};
                s.bodies.rotation[i] = q;
                s.bodies.position[i] =
                    v3(8.0f * r[4] - 4.0f, 2.6f * r[5] - 0.8f, 8.0f * r[6] - 4.0f);
                physics__bodies_extent(&s.bodies, i);
                const float margin = 0.005f + 0.6f * r[7];
                for (uint32_t flip = 0; flip < 2; flip++) {
                    const uint32_t a = flip ? i : mesh, b = flip ? mesh : i;
                    physics__manifold_out m;
                    physics__manifold(&s.bodies, a, b, margin, false, &m);
                    physics__v3 n;
                    const float least = physics__manifold_separation(&s.bodies, a, b, margin, &n);
                    const float want = physics__manifold_least(&m);
                    assert_memory_equal(&least, &want, sizeof least);
                    assert_memory_equal(&n, &m.normal, sizeof n);
                    touching += flip == 0 && m.count > 0;
                }
            }
            physics__scene_free(&s);
        }
    print_message("%u of %u poses within the margin\n", touching, poses);
    assert_true(touching > poses / 4u && touching < poses);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_crease_gives_two_manifolds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cube_rests_in_a_crease, setup, teardown),
        cmocka_unit_test_setup_teardown(test_board_keeps_the_floor_among_many_ways, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_crease_snapshot_restores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_early_outs_keep_the_margin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_separation_is_the_manifolds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_bump_at_a_seam_between_meshes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_legs_each_get_a_contact_on_a_mesh, setup,
                                        teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
