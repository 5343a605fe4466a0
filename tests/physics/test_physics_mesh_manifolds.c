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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_crease_gives_two_manifolds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cube_rests_in_a_crease, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crease_snapshot_restores, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
