/* Damping (v5 set_damping, physics__damped): each solver step of h seconds divides a dynamic
 * body's velocity by 1 + h c after adding the step's gravity and forces. The expected values are
 * that formula in float, step by step (the rigid solver's four substeps of 1/240 s a step, the
 * translation-only step's one of 1/60 s): a free body slows exactly so, a falling one keeps g / c,
 * a crate on ice slows as in the air, and damping 0 changes no bit. Without the kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"

#include <stdlib.h>

/* A ball of radius 0.5 and mass 1 at (x, y, z); `rotates` frees its rotation (a v4 body: the
 * rigid solver's substeps), else it translates only. */
static ct_rigid_body_desc_t ball(float x, float y, float z, bool rotates)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_SPHERE,
                                  .radius = 0.5f,
                                  .mass = 1.0f,
                                  .friction = 0.5f,
                                  .position = {x, y, z},
                                  .locks = rotates ? 0u : CT_BODY_LOCK_ROTATION};
}

/* A ball (as above) at the origin flying at 10 m/s along x and spinning at `spin` rad/s about y. */
static ct_rigid_body_desc_t fast_ball(bool rotates, float spin)
{
    ct_rigid_body_desc_t d = ball(0, 0, 0, rotates);
    d.velocity[0] = 10.0f;
    d.angular_velocity[1] = spin;
    return d;
}

/* A scene (scene_init) without gravity. */
static void weightless(physics__scene *s)
{
    scene_init(s);
    s->gravity = v3(0, 0, 0);
}

/* Entity id's damping, as set_damping sets it (asserted in range). */
static void set_damping(physics__scene *s, uint32_t id, float linear, float angular)
{
    assert_null(physics__bodies_set_damping(&s->bodies, at(s, id), linear, angular));
}

static physics__v3 velocity(const physics__scene *s, uint32_t id)
{
    return s->bodies.velocity[at(s, id)];
}

static physics__v3 spin(const physics__scene *s, uint32_t id)
{
    return s->bodies.angular[at(s, id)];
}

/* In the rigid solver a free ball of 10 m/s with linear damping 1 slows to 10 (1 / (1 + 1/240))
 * ^ 240 = 3.686392 m/s in a second (exp(-1) would be 3.678794), one spinning at 5 rad/s with
 * angular damping 2 to 5 (1 / (1 + 2/240)) ^ 240 = 0.6823044 rad/s; each damping leaves the
 * other velocity alone, and an undamped ball keeps every bit of its speed. */
static void test_free_bodies_slow_by_the_formula(void **state)
{
    (void)state;
    physics__scene s;
    weightless(&s);
    ct_rigid_body_desc_t d = fast_ball(true, 5.0f);
    add(&s, 1, d); /* linear damping only */
    d.position[2] = 5.0f;
    add(&s, 2, d); /* angular damping only */
    d.position[2] = 10.0f;
    add(&s, 3, d); /* none */
    set_damping(&s, 1, 1.0f, 0.0f);
    set_damping(&s, 2, 0.0f, 2.0f);
    run(&s, 60);
    assert_float_equal(velocity(&s, 1).x, 3.686392f, 1e-6f);
    assert_true(spin(&s, 1).y == 5.0f);
    assert_true(velocity(&s, 2).x == 10.0f);
    assert_float_equal(spin(&s, 2).y, 0.6823044f, 1e-6f);
    assert_true(velocity(&s, 3).x == 10.0f && spin(&s, 3).y == 5.0f);
    assert_true(velocity(&s, 1).y == 0.0f && velocity(&s, 1).z == 0.0f);
    assert_false(s.bodies.asleep[at(&s, 1)]);
    physics__scene_free(&s);
}

/* In a world whose bodies all translate only, the step is one of 1/60 s: 10 (1 / (1 + 1/60)) ^ 60
 * = 3.709243 m/s after a second. */
static void test_translation_only_step_damps_once_a_step(void **state)
{
    (void)state;
    physics__scene s;
    weightless(&s);
    add(&s, 1, fast_ball(false, 0.0f));
    set_damping(&s, 1, 1.0f, 3.0f);
    assert_int_equal(s.bodies.num_rotating, 0);
    run(&s, 60);
    assert_float_equal(velocity(&s, 1).x, 3.709243f, 1e-6f);
    physics__scene_free(&s);
}

/* A ball falling with linear damping 2 settles at g / c = 4.905 m/s in both solvers (10 s:
 * 4.904955 in the rigid one, 4.904993 in the translation-only one, on their way there). */
static void test_falling_body_keeps_g_over_c(void **state)
{
    (void)state;
    for (int rotates = 0; rotates < 2; rotates++) {
        physics__scene s;
        scene_init(&s);
        add(&s, 1, ball(0, 0, 0, rotates));
        set_damping(&s, 1, 2.0f, 0.0f);
        run(&s, 600);
        assert_float_equal(velocity(&s, 1).y, rotates ? -4.904955f : -4.904993f, 1e-5f);
        physics__scene_free(&s);
    }
}

/* A crate sliding on ice (no friction) slows as it would in the air: the ground holds it up and
 * does nothing along it. */
static void test_crate_on_ice_slows_by_the_formula(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 50.0f, true);
    ct_rigid_body_desc_t d = cube(0, 0.5f, 0, 0.5f);
    d.friction = 0.0f;
    d.velocity[0] = 10.0f;
    add(&s, 2, d);
    set_damping(&s, 2, 1.0f, 1.0f);
    run(&s, 60);
    assert_float_equal(velocity(&s, 2).x, 3.686392f, 1e-4f);
    assert_float_equal(s.bodies.position[at(&s, 2)].y, 0.5f, 5e-3f);
    physics__scene_free(&s);
}

/* Kinematic bodies move as the game says: damping is kept for them but slows nothing. */
static void test_kinematic_body_is_not_slowed(void **state)
{
    (void)state;
    physics__scene s;
    scene_init(&s);
    ct_rigid_body_desc_t d = fast_ball(true, 5.0f);
    d.kind = CT_BODY_KINEMATIC;
    add(&s, 1, d);
    set_damping(&s, 1, 5.0f, 5.0f);
    run(&s, 30);
    assert_true(velocity(&s, 1).x == 10.0f && spin(&s, 1).y == 5.0f);
    physics__scene_free(&s);
}

/* Damping 0, set or not, leaves a pile of every shape bit for bit as it was: the same hash after
 * 120 steps as a pile whose damping was set to 3 and back to 0. */
static void test_zero_damping_changes_no_bit(void **state)
{
    (void)state;
    uint64_t hash[2];
    for (int k = 0; k < 2; k++) {
        physics__scene s;
        on_ground(&s, 40.0f, true);
        add_shape_pile(&s, 10);
        if (k)
            for (uint32_t id = 10; id < 10 + 196; id++) {
                set_damping(&s, id, 3.0f, 3.0f);
                set_damping(&s, id, 0.0f, 0.0f);
            }
        run(&s, 120);
        hash[k] = physics__state_hash(&s, NULL, NULL);
        physics__scene_free(&s);
    }
    assert_true(hash[0] == hash[1]);
}

/* A damped pile restored from a snapshot steps on as if it had never left (damping is the
 * world's, like friction, and stays as it was). */
static void test_damped_pile_rolls_back(void **state)
{
    (void)state;
    physics__scene s;
    on_ground(&s, 40.0f, true);
    add_shape_pile(&s, 10);
    for (uint32_t id = 10; id < 10 + 196; id++)
        set_damping(&s, id, 0.05f, 0.05f);
    run(&s, 40);
    uint32_t size;
    uint8_t *snap = save_snapshot(&s, &size);
    uint64_t hashes[30];
    run_rolled_back(&s, snap, size, 30, hashes);
    free(snap);
    physics__scene_free(&s);
}

/* The range: [0, CT_PHYSICS_MAX_DAMPING] for each, NaN and infinity outside; the message names
 * the field. */
static void test_damping_range(void **state)
{
    (void)state;
    assert_null(physics__damping_error(0.0f, 0.0f));
    assert_null(physics__damping_error(CT_PHYSICS_MAX_DAMPING, CT_PHYSICS_MAX_DAMPING));
    assert_string_equal(physics__damping_error(-0.1f, 0.0f),
                        "linear_damping (must be within [0, 1e3] 1/s)");
    assert_string_equal(physics__damping_error(0.0f, NAN),
                        "angular_damping (must be within [0, 1e3] 1/s)");
    assert_non_null(physics__damping_error(INFINITY, 0.0f));
    assert_non_null(physics__damping_error(0.0f, 1001.0f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_free_bodies_slow_by_the_formula, setup, teardown),
        cmocka_unit_test_setup_teardown(test_translation_only_step_damps_once_a_step, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_falling_body_keeps_g_over_c, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crate_on_ice_slows_by_the_formula, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kinematic_body_is_not_slowed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zero_damping_changes_no_bit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damped_pile_rolls_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damping_range, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
