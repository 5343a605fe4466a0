/* Several manifolds per body and mesh (physics_mesh.c): a body touching triangles that face
 * different ways gets a manifold for each way (up to PHYSICS_MESH_MANIFOLDS), each with its own
 * normal and warm start, so it rests in a crease, on a ridge or on a peak. Without the kernel,
 * serial and on two threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A mesh of nt triangles (static, friction 0.6) as body `id` at the origin. */
static void add_mesh(physics__scene *s, uint32_t id, const float *v, uint32_t nv,
                     const uint32_t *ix, uint32_t nt)
{
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, v, nv, ix, nt, &m, reason, sizeof reason));
    const ct_rigid_body_desc_t d = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_MESH, .friction = 0.6f};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){id}, &d, m), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_crease_gives_two_manifolds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cube_rests_in_a_crease, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crease_snapshot_restores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_early_outs_keep_the_margin, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
