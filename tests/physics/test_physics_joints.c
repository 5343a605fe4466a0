/*
 * Joints (ct_physics_api_v4): fixed values a joint must give. A pendulum's period, a hinge that
 * stops at its limit, a slider driven by its motor to its limit, a spring's period, a chain of
 * ball joints with cone limits that stays joined while it falls on the floor, a joint a game breaks
 * when its reported force passes a threshold, bad descs refused naming the field, joints dropped
 * with their bodies, and the Lua bindings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "physics_module_fixture.h"

static int boot(void **state)
{
    (void)state;
    physics_boot("joints");
    return 0;
}

static const float step = 1.0f / 60.0f;

/* A world without sleep (a pendulum at the end of its swing is slow for a moment). */
static ct_world_o *new_world(const char *name)
{
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = name});
    assert_non_null(w);
    p4->set_sleeping(w, false);
    return w;
}

static ct_rigid_body_desc_t box_at(float x, float y, float z, float hx, float hy, float hz)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {hx, hy, hz},
                                  .mass = 1.0f,
                                  .friction = 0.5f,
                                  .position = {x, y, z}};
}

static const ct_entity_t world_anchor = {0};

/* A 1 m pendulum (a 0.1 m ball on a hinge to the world) let go at 0.1 rad swings with the compound
 * pendulum's period 2 pi sqrt((I + m L^2) / (m g L)) = 2.0111 s; measured between upward
 * crossings of the vertical over 3 swings, interpolated within a step. */
static void test_pendulum_period(void **state)
{
    (void)state;
    ct_world_o *w = new_world("pendulum");
    const float a = 0.1f;
    const ct_rigid_body_desc_t bob = ball_desc(sinf(a), -cosf(a), 0.0f, 0.1f);
    const ct_entity_t e = physics_body(w, &bob);
    const ct_joint_desc_t hinge = {.type = CT_JOINT_HINGE, .axis = {0, 0, 1}};
    ct_physics_joint_t j = {0};
    assert_int_equal(p4->add_joint(w, e, world_anchor, &hinge, &j), 0);
    assert_int_not_equal(j.id, 0);
    float crossings[4];
    int found = 0;
    float last = sinf(a);
    for (int k = 1; k <= 600 && found < 4; k++) {
        p4->simulate(w, step);
        float p[3];
        assert_int_equal(p4->position(w, e, p), 0);
        if (last < 0.0f && p[0] >= 0.0f)
            crossings[found++] = ((float)k - p[0] / (p[0] - last)) * step;
        last = p[0];
    }
    assert_int_equal(found, 4);
    const float period = (crossings[3] - crossings[0]) / 3.0f;
    print_message("pendulum period %.4f s (2.0111 expected)\n", (double)period);
    assert_float_equal(period, 2.0111f, 0.01f);
    /* The bob stays on its circle: the anchor holds within a millimetre. */
    float p[3];
    assert_int_equal(p4->position(w, e, p), 0);
    assert_float_equal(sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 1.0f, 1e-3f);
    assert_true(fabsf(p[2]) < 1e-4f);
    /* The joint's angle is the bob's. */
    float angle;
    assert_int_equal(p4->joint_value(w, j, &angle), 0);
    assert_float_equal(angle, atan2f(p[0], -p[1]) - a, 1e-3f);
    worlds->destroy_world(w);
    entity->destroy(e);
}

/* A 1 m plank hinged to the world at one end, held horizontal, falls until its limit stops it at
 * -0.5 rad (the hinge's angle is about +z: falling clockwise is negative) and stays there. */
static void test_hinge_limit_holds(void **state)
{
    (void)state;
    ct_world_o *w = new_world("hinge_limit");
    const ct_rigid_body_desc_t plank = box_at(0.5f, 0.0f, 0.0f, 0.5f, 0.05f, 0.1f);
    const ct_entity_t e = physics_body(w, &plank);
    const ct_joint_desc_t hinge = {.type = CT_JOINT_HINGE,
                                   .flags = CT_JOINT_LIMIT,
                                   .axis = {0, 0, 1},
                                   .lower = -0.5f,
                                   .upper = 0.25f};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e, world_anchor, &hinge, &j), 0);
    float least = 0.0f, angle = 0.0f;
    for (int k = 0; k < 180; k++) {
        p4->simulate(w, step);
        assert_int_equal(p4->joint_value(w, j, &angle), 0);
        least = fminf(least, angle);
    }
    print_message("hinge: angle %.4f rad, lowest %.4f (limit -0.5)\n", (double)angle,
                  (double)least);
    assert_float_equal(angle, -0.5f, 0.01f);
    assert_true(least > -0.55f);
    /* The torque the limit holds: the plank's weight at 0.5 m, cos(0.5) of it across. */
    float f[3], t[3];
    assert_int_equal(p4->joint_force(w, j, f, t), 0);
    print_message("hinge: force %.3f %.3f %.3f N, torque %.3f N m\n", (double)f[0], (double)f[1],
                  (double)f[2], (double)t[2]);
    assert_float_equal(fabsf(f[1]), 9.81f, 0.1f);
    assert_float_equal(fabsf(t[2]), 9.81f * 0.5f * cosf(0.5f), 0.1f);
    /* A motor lifts it back up to the upper limit. */
    assert_int_equal(p4->set_joint_motor(w, j, 1.0f, 50.0f), 0);
    for (int k = 0; k < 120; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->joint_value(w, j, &angle), 0);
    assert_float_equal(angle, 0.25f, 0.01f);
    worlds->destroy_world(w);
    entity->destroy(e);
}

/* A slider along x pushed by its motor at 1 m/s stops at its upper limit 0.5 m; it never turns and
 * never leaves its axis. */
static void test_slider_motor_and_limit(void **state)
{
    (void)state;
    ct_world_o *w = new_world("slider");
    const ct_rigid_body_desc_t d = box_at(0.0f, 1.0f, 0.0f, 0.2f, 0.2f, 0.2f);
    const ct_entity_t e = physics_body(w, &d);
    const ct_joint_desc_t slider = {.type = CT_JOINT_SLIDER,
                                    .flags = CT_JOINT_LIMIT | CT_JOINT_MOTOR,
                                    .anchor = {0, 1, 0},
                                    .axis = {1, 0, 0},
                                    .lower = 0.0f,
                                    .upper = 0.5f,
                                    .motor_speed = 1.0f,
                                    .max_motor_force = 100.0f};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e, world_anchor, &slider, &j), 0);
    float value = 0.0f, p[3], q[4];
    for (int k = 0; k < 15; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->joint_value(w, j, &value), 0);
    assert_float_equal(value, 0.25f, 0.01f); /* a quarter second at 1 m/s */
    for (int k = 0; k < 60; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->joint_value(w, j, &value), 0);
    assert_int_equal(p4->position(w, e, p), 0);
    assert_int_equal(p4->rotation(w, e, q), 0);
    print_message("slider: at %.4f m (limit 0.5), y %.5f\n", (double)value, (double)p[1]);
    assert_float_equal(value, 0.5f, 0.005f);
    assert_float_equal(p[1], 1.0f, 1e-3f);
    assert_true(fabsf(q[3]) > 0.99999f);
    worlds->destroy_world(w);
    entity->destroy(e);
}

/* Without gravity, a ball on a 1 Hz distance spring (no damping) pulled 0.2 m past its length
 * comes back through the rest length every half second; a rope (a limit, no spring) lets the
 * anchors come closer but not further. */
static void test_distance_spring_and_rope(void **state)
{
    (void)state;
    ct_world_o *w = new_world("spring");
    const float zero[3] = {0, 0, 0};
    p4->set_gravity(w, zero);
    const ct_rigid_body_desc_t d = ball_desc(1.2f, 0.0f, 0.0f, 0.1f);
    const ct_entity_t e = physics_body(w, &d);
    const ct_joint_desc_t spring = {.type = CT_JOINT_DISTANCE,
                                    .anchor = {1.2f, 0, 0},
                                    .anchor_b = {0, 0, 0},
                                    .length = 1.0f,
                                    .spring_hertz = 1.0f};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e, world_anchor, &spring, &j), 0);
    float last = 0.2f, crossings[3];
    int found = 0;
    for (int k = 1; k <= 120 && found < 3; k++) {
        p4->simulate(w, step);
        float len;
        assert_int_equal(p4->joint_value(w, j, &len), 0);
        const float x = len - 1.0f;
        if ((last < 0.0f) != (x < 0.0f))
            crossings[found++] = ((float)k - x / (x - last)) * step;
        last = x;
    }
    assert_int_equal(found, 3);
    const float period = crossings[2] - crossings[0];
    print_message("spring period %.4f s (1 expected)\n", (double)period);
    assert_float_equal(period, 1.0f, 0.02f);
    assert_float_equal(crossings[0], 0.25f, 0.01f);
    worlds->destroy_world(w);
    entity->destroy(e);

    /* The rope: 1 m at most. A ball thrown outwards stops at 1 m; thrown inwards it passes. */
    w = new_world("rope");
    p4->set_gravity(w, zero);
    const ct_rigid_body_desc_t r = ball_desc(0.5f, 0.0f, 0.0f, 0.1f);
    const ct_entity_t b = physics_body(w, &r);
    const ct_joint_desc_t rope = {.type = CT_JOINT_DISTANCE,
                                  .flags = CT_JOINT_LIMIT,
                                  .anchor = {0.5f, 0, 0},
                                  .lower = 0.0f,
                                  .upper = 1.0f};
    assert_int_equal(p4->add_joint(w, b, world_anchor, &rope, &j), 0);
    const float out[3] = {2, 0, 0}, in[3] = {-0.5f, 0, 0};
    assert_int_equal(p4->set_velocity(w, b, out), 0);
    for (int k = 0; k < 60; k++)
        p4->simulate(w, step);
    float len, p[3];
    assert_int_equal(p4->joint_value(w, j, &len), 0);
    assert_float_equal(len, 1.0f, 0.005f);
    assert_int_equal(p4->set_velocity(w, b, in), 0);
    for (int k = 0; k < 60; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->position(w, b, p), 0);
    assert_float_equal(p[0], 0.5f, 0.01f);
    worlds->destroy_world(w);
    entity->destroy(b);
}

/* A distance joint's min and max: anchors kept within [0.8, 1.2] m (a limit, no spring). Without
 * gravity a ball 1 m out thrown inwards stops at 0.8 m, thrown outwards at 1.2 m; in between it
 * moves freely (after 0.05 s at 2 m/s it is 0.9 m out). */
static void test_distance_min_and_max(void **state)
{
    (void)state;
    ct_world_o *w = new_world("min_max");
    const float zero[3] = {0, 0, 0};
    p4->set_gravity(w, zero);
    const ct_rigid_body_desc_t r = ball_desc(1.0f, 0.0f, 0.0f, 0.1f);
    const ct_entity_t b = physics_body(w, &r);
    const ct_joint_desc_t d = {.type = CT_JOINT_DISTANCE,
                               .flags = CT_JOINT_LIMIT,
                               .anchor = {1.0f, 0, 0},
                               .lower = 0.8f,
                               .upper = 1.2f};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, b, world_anchor, &d, &j), 0);
    const float in[3] = {-2, 0, 0}, out[3] = {2, 0, 0};
    assert_int_equal(p4->set_velocity(w, b, in), 0);
    float len, shortest = 1.0f, longest = 1.0f;
    for (int k = 0; k < 3; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->joint_value(w, j, &len), 0);
    assert_float_equal(len, 0.9f, 0.005f);
    for (int k = 0; k < 57; k++) {
        p4->simulate(w, step);
        assert_int_equal(p4->joint_value(w, j, &len), 0);
        shortest = fminf(shortest, len);
    }
    assert_int_equal(p4->set_velocity(w, b, out), 0);
    for (int k = 0; k < 60; k++) {
        p4->simulate(w, step);
        assert_int_equal(p4->joint_value(w, j, &len), 0);
        longest = fmaxf(longest, len);
    }
    print_message("distance within [0.8, 1.2]: shortest %.4f, longest %.4f, now %.4f\n",
                  (double)shortest, (double)longest, (double)len);
    assert_float_equal(shortest, 0.8f, 0.01f);
    assert_float_equal(longest, 1.2f, 0.01f);
    assert_float_equal(len, 1.2f, 0.005f);
    worlds->destroy_world(w);
    entity->destroy(b);
}

/* A ragdoll-like chain: 8 boxes 0.5 m long joined end to end by ball joints with 45 degree cones
 * and +-0.3 rad twists, the first hung from the world, let go horizontal above a floor. It swings
 * down and piles on the floor; every joint's anchors stay within 1 cm of each other and no link
 * bends past its cone by more than 0.05 rad. */
#define CHAIN 8
static void test_chain_stays_connected(void **state)
{
    (void)state;
    ct_world_o *w = new_world("chain");
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {20, 0.5f, 20},
                                        .friction = 0.6f,
                                        .position = {0, -3.5f, 0}};
    const ct_entity_t ground = physics_body(w, &floor);
    ct_entity_t link[CHAIN];
    ct_physics_joint_t joint[CHAIN];
    for (int k = 0; k < CHAIN; k++) {
        const ct_rigid_body_desc_t d =
            box_at(0.5f * (float)k + 0.25f, 0.0f, 0.0f, 0.25f, 0.06f, 0.06f);
        link[k] = physics_body(w, &d);
        const ct_joint_desc_t ball = {.type = CT_JOINT_BALL,
                                      .flags = CT_JOINT_LIMIT,
                                      .anchor = {0.5f * (float)k, 0, 0},
                                      .axis = {1, 0, 0},
                                      .cone_angle = 0.7853982f,
                                      .lower = -0.3f,
                                      .upper = 0.3f};
        assert_int_equal(
            p4->add_joint(w, link[k], k ? link[k - 1] : world_anchor, &ball, &joint[k]), 0);
    }
    assert_int_equal(p4->joint_count(w), CHAIN);
    float worst = 0.0f, worst_cone = 0.0f;
    for (int s = 0; s < 300; s++) {
        p4->simulate(w, step);
        for (int k = 0; k < CHAIN; k++) {
            float p[3], q[4];
            assert_int_equal(p4->position(w, link[k], p), 0);
            assert_int_equal(p4->rotation(w, link[k], q), 0);
            /* This link's near end (-0.25 along its x) against the previous one's far end. */
            const float ax = 1 - 2 * (q[1] * q[1] + q[2] * q[2]),
                        ay = 2 * (q[0] * q[1] + q[2] * q[3]), az = 2 * (q[0] * q[2] - q[1] * q[3]);
            const float near[3] = {p[0] - 0.25f * ax, p[1] - 0.25f * ay, p[2] - 0.25f * az};
            float far[3] = {0, 0, 0}, bx = 1, by = 0, bz = 0;
            if (k) {
                float pp[3], pq[4];
                assert_int_equal(p4->position(w, link[k - 1], pp), 0);
                assert_int_equal(p4->rotation(w, link[k - 1], pq), 0);
                bx = 1 - 2 * (pq[1] * pq[1] + pq[2] * pq[2]),
                by = 2 * (pq[0] * pq[1] + pq[2] * pq[3]), bz = 2 * (pq[0] * pq[2] - pq[1] * pq[3]);
                far[0] = pp[0] + 0.25f * bx, far[1] = pp[1] + 0.25f * by,
                far[2] = pp[2] + 0.25f * bz;
            }
            const float gap = sqrtf((near[0] - far[0]) * (near[0] - far[0]) +
                                    (near[1] - far[1]) * (near[1] - far[1]) +
                                    (near[2] - far[2]) * (near[2] - far[2]));
            worst = fmaxf(worst, gap);
            const float bend = acosf(fminf(ax * bx + ay * by + az * bz, 1.0f));
            worst_cone = fmaxf(worst_cone, bend - 0.7853982f);
        }
    }
    print_message("chain: largest joint gap %.5f m, largest bend past the cone %.4f rad\n",
                  (double)worst, (double)worst_cone);
    assert_true(worst < 0.01f);
    assert_true(worst_cone < 0.05f);
    /* It lies on the floor (the top of which is y = -3). */
    float p[3];
    assert_int_equal(p4->position(w, link[CHAIN - 1], p), 0);
    assert_true(p[1] < -2.0f && p[1] > -3.0f);
    worlds->destroy_world(w);
    entity->destroy_batch(link, CHAIN);
    entity->destroy(ground);
}

/* A 1 kg ball glued to the world by a fixed joint: the joint reports its weight, 9.81 N. A game
 * that breaks it past 50 N sees 109.81 N as soon as a 100 N pull starts, removes it, and the
 * ball falls. */
static void test_breaking_joint(void **state)
{
    (void)state;
    ct_world_o *w = new_world("break");
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 2.0f, 0.0f, 0.2f);
    const ct_entity_t e = physics_body(w, &d);
    const ct_joint_desc_t glue = {.type = CT_JOINT_FIXED, .anchor = {0, 2.2f, 0}};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e, world_anchor, &glue, &j), 0);
    float f[3], t[3], p[3];
    assert_int_equal(p4->joint_force(w, j, f, t), 0);
    assert_true(f[0] == 0.0f && f[1] == 0.0f && f[2] == 0.0f);
    for (int k = 0; k < 30; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->joint_force(w, j, f, t), 0);
    print_message("fixed joint: force %.4f N (9.81 expected), torque %.5f\n", (double)f[1],
                  (double)t[2]);
    /* What holds the ball (a) up: its weight, upwards. */
    assert_float_equal(f[1], 9.81f, 0.01f);
    assert_float_equal(f[0], 0.0f, 1e-3f);
    assert_true(fabsf(t[0]) + fabsf(t[1]) + fabsf(t[2]) < 1e-3f);
    assert_int_equal(p4->position(w, e, p), 0);
    assert_float_equal(p[1], 2.0f, 1e-3f);
    const float pull[3] = {0, -100, 0};
    int broke_at = -1;
    for (int k = 0; k < 10 && broke_at < 0; k++) {
        assert_int_equal(p4->add_force(w, e, pull), 0);
        p4->simulate(w, step);
        assert_int_equal(p4->joint_force(w, j, f, t), 0);
        const float size = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        if (size > 50.0f) {
            assert_float_equal(size, 109.81f, 1.0f);
            assert_int_equal(p4->remove_joint(w, j), 0);
            broke_at = k;
        }
    }
    assert_int_equal(broke_at, 0);
    assert_int_equal(p4->remove_joint(w, j), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->joint_force(w, j, f, t), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->joint_count(w), 0);
    for (int k = 0; k < 30; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->position(w, e, p), 0);
    assert_true(p[1] < 1.0f);
    worlds->destroy_world(w);
    entity->destroy(e);
}

/* What a joint reports is what a game breaks it on, torque as well as force: a 1 m plank of 1 kg
 * glued by one end to the world (a shelf) is held up by 9.81 N and kept level by m g L / 2 =
 * 4.905 N m about z; a ball joint reports no torque at all. */
static void test_joint_torque_holds_a_shelf(void **state)
{
    (void)state;
    for (int ball = 0; ball < 2; ball++) {
        ct_world_o *w = new_world("shelf");
        const ct_rigid_body_desc_t plank = box_at(0.5f, 1.0f, 0.0f, 0.5f, 0.05f, 0.1f);
        const ct_entity_t e = physics_body(w, &plank);
        const ct_joint_desc_t glue = {.type = ball ? CT_JOINT_BALL : CT_JOINT_FIXED,
                                      .anchor = {0, 1.0f, 0},
                                      .axis = {1, 0, 0}};
        ct_physics_joint_t j;
        assert_int_equal(p4->add_joint(w, e, world_anchor, &glue, &j), 0);
        float f[3], t[3];
        for (int k = 0; k < (ball ? 1 : 60); k++)
            p4->simulate(w, step);
        assert_int_equal(p4->joint_force(w, j, f, t), 0);
        print_message("%s: force (%.4f %.4f %.4f) N, torque (%.4f %.4f %.4f) N m\n",
                      ball ? "ball" : "fixed", (double)f[0], (double)f[1], (double)f[2],
                      (double)t[0], (double)t[1], (double)t[2]);
        if (!ball) {
            assert_float_equal(f[1], 9.81f, 0.01f);
            assert_float_equal(t[2], 4.905f, 0.01f);
            assert_true(fabsf(f[0]) + fabsf(f[2]) < 1e-3f && fabsf(t[0]) + fabsf(t[1]) < 1e-3f);
        } else {
            assert_true(t[0] == 0.0f && t[1] == 0.0f && t[2] == 0.0f);
        }
        worlds->destroy_world(w);
        entity->destroy(e);
    }
}

/* A ball joint's twist limit: a box hung under a ball joint (axis up, twist within +-0.3 rad, cone
 * 0.5) turned about the axis by a steady torque stops at 0.3 rad; without the limit it spins on. */
static void test_ball_twist_limit_holds(void **state)
{
    (void)state;
    for (int limited = 0; limited < 2; limited++) {
        ct_world_o *w = new_world("twist");
        const ct_rigid_body_desc_t d = box_at(0.0f, -0.5f, 0.0f, 0.2f, 0.4f, 0.2f);
        const ct_entity_t e = physics_body(w, &d);
        const ct_joint_desc_t hold = {.type = CT_JOINT_BALL,
                                      .flags = limited ? CT_JOINT_LIMIT : 0u,
                                      .anchor = {0, 0, 0},
                                      .axis = {0, 1, 0},
                                      .lower = -0.3f,
                                      .upper = 0.3f,
                                      .cone_angle = 0.5f};
        ct_physics_joint_t j;
        assert_int_equal(p4->add_joint(w, e, world_anchor, &hold, &j), 0);
        const float turn[3] = {0, 0.5f, 0};
        float most = 0.0f, twist = 0.0f;
        for (int k = 0; k < 90; k++) {
            assert_int_equal(p4->add_torque(w, e, turn), 0);
            p4->simulate(w, step);
            assert_int_equal(p4->joint_value(w, j, &twist), 0);
            most = fmaxf(most, twist);
        }
        print_message("%s: twist %.4f rad, at most %.4f\n", limited ? "limited" : "free",
                      (double)twist, (double)most);
        if (limited) {
            assert_float_equal(twist, 0.3f, 0.01f);
            assert_true(most < 0.32f);
        } else {
            assert_true(most > 1.0f);
        }
        worlds->destroy_world(w);
        entity->destroy(e);
    }
}

/* Lua breaks a joint the same way: a ball glued to the world, pulled down by 100 N, reads
 * Physics.joint_force after the step, finds 109.81 N past its 50 N threshold and removes the
 * joint; the ball then falls. */
static void test_lua_breaks_a_joint(void **state)
{
    (void)state;
    ct_world_o *w = new_world("lua_break");
    const ct_rigid_body_desc_t d = ball_desc(0.0f, 2.0f, 0.0f, 0.2f);
    const ct_entity_t e[1] = {physics_body(w, &d)};
    const char *script =
        "function break_lua(w, e)\n"
        "  local j = Physics.add_joint(w, e, 0, 'fixed', { anchor = {0, 2.2, 0} })\n"
        "  for i = 1, 30 do Physics.simulate(w, 1 / 60) end\n"
        "  local fx, fy, fz, tx, ty, tz = Physics.joint_force(w, j)\n"
        "  assert(math.abs(fy - 9.81) < 0.01 and math.abs(fx) < 1e-3, fy)\n"
        "  local broke, size\n"
        "  for i = 1, 10 do\n"
        "    Actor.add_force(w, e, 0, -100, 0)\n"
        "    Physics.simulate(w, 1 / 60)\n"
        "    fx, fy, fz = Physics.joint_force(w, j)\n"
        "    size = math.sqrt(fx * fx + fy * fy + fz * fz)\n"
        "    if size > 50 then Physics.remove_joint(w, j) broke = i break end\n"
        "  end\n"
        "  assert(broke == 1, broke)\n"
        "  assert(math.abs(size - 109.81) < 1, size)\n"
        "  assert(not pcall(Physics.joint_force, w, j))\n"
        "  for i = 1, 30 do Physics.simulate(w, 1 / 60) end\n"
        "  local x, y, z = Actor.position(w, e)\n"
        "  assert(y < 1, y)\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "break_lua"), 0);
    test_lua_call("break_lua", w, e, 1);
    assert_int_equal(p4->joint_count(w), 0);
    worlds->destroy_world(w);
    entity->destroy(e[0]);
}

/* Bad descs are refused naming the field, nothing is added; a body's removal takes its joints;
 * a body and a joint between two sleeping bodies wake together. */
static void test_bad_joints_refused(void **state)
{
    (void)state;
    ct_world_o *w = new_world("bad_joints");
    const ct_rigid_body_desc_t d = ball_desc(0, 0, 0, 0.5f);
    const ct_entity_t a = physics_body(w, &d), b = physics_body(w, &d), none = entity->create();
    const ct_rigid_body_desc_t fixed = {
        .kind = CT_BODY_STATIC, .shape = CT_BODY_SPHERE, .radius = 1};
    const ct_entity_t s1 = physics_body(w, &fixed);
    ct_physics_joint_t j = {0};
    const ct_joint_desc_t good = {.type = CT_JOINT_BALL, .axis = {0, 1, 0}};
    ct_joint_desc_t bad[] = {good, good, good, good, good, good, good, good};
    bad[0].type = 9;
    bad[1].axis[1] = 0; /* no axis */
    bad[2].anchor[0] = NAN;
    bad[3].flags = CT_JOINT_LIMIT, bad[3].lower = 1, bad[3].upper = 0;
    bad[4].flags = CT_JOINT_LIMIT, bad[4].cone_angle = 4;
    bad[5].flags = CT_JOINT_MOTOR; /* a ball has no motor */
    bad[6].flags = 1u << 9;
    bad[7].max_motor_force = -1;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_int_equal(p4->add_joint(w, a, b, &bad[k], &j), CT_ERR_INVALID);
    assert_int_equal(p4->add_joint(w, a, a, &good, &j), CT_ERR_INVALID);
    assert_int_equal(p4->add_joint(w, s1, world_anchor, &good, &j),
                     CT_ERR_INVALID); /* nothing moves */
    assert_int_equal(p4->add_joint(w, a, none, &good, &j), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->add_joint(w, none, a, &good, &j), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->add_joint(w, a, b, NULL, &j), CT_ERR_INVALID);
    assert_int_equal(p4->joint_count(w), 0);
    assert_int_equal(p4->add_joint(w, a, b, &good, &j), 0);
    assert_int_equal(p4->set_joint_motor(w, j, 1, 1), CT_ERR_INVALID); /* a ball has no motor */
    ct_physics_joint_t j2;
    assert_int_equal(p4->add_joint(w, b, s1, &good, &j2), 0);
    assert_true(j2.id > j.id);
    assert_int_equal(p4->joint_count(w), 2);
    /* Removing b's body drops both joints. */
    assert_int_equal(p4->remove_body(w, b), 0);
    assert_int_equal(p4->joint_count(w), 0);
    float v;
    assert_int_equal(p4->joint_value(w, j, &v), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->shapes(NULL, 0, NULL, 0), 0);
    worlds->destroy_world(w);
    const ct_entity_t all[] = {a, b, none, s1};
    entity->destroy_batch(all, 4);
}

/* Joined bodies sleep together and wake together: a ball hanging from another's by a ball joint,
 * the upper one on a hinge to the world; both sleep once still, and a push on the lower one
 * wakes the upper one too. */
static void test_joined_bodies_sleep_and_wake_together(void **state)
{
    (void)state;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "joined_sleep"});
    const ct_rigid_body_desc_t d1 = ball_desc(0, -1, 0, 0.1f), d2 = ball_desc(0, -2, 0, 0.1f);
    const ct_entity_t up = physics_body(w, &d1), down = physics_body(w, &d2);
    const ct_joint_desc_t hinge = {.type = CT_JOINT_HINGE, .axis = {0, 0, 1}};
    const ct_joint_desc_t ball = {.type = CT_JOINT_BALL, .anchor = {0, -1, 0}, .axis = {0, 1, 0}};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, up, world_anchor, &hinge, &j), 0);
    assert_int_equal(p4->add_joint(w, down, up, &ball, &j), 0);
    for (int k = 0; k < 120; k++)
        p4->simulate(w, step);
    assert_true(p4->sleeping(w, up) && p4->sleeping(w, down));
    const float push[3] = {1, 0, 0};
    assert_int_equal(p4->set_velocity(w, down, push), 0);
    p4->simulate(w, step);
    assert_false(p4->sleeping(w, up));
    assert_false(p4->sleeping(w, down));
    float p[3];
    assert_int_equal(p4->position(w, up, p), 0);
    assert_true(p[0] > 0.0f);
    worlds->destroy_world(w);
    const ct_entity_t all[] = {up, down};
    entity->destroy_batch(all, 2);
}

/* Lua: Physics.add_joint with a table of fields, joint_value, joint_force, set_joint_motor,
 * remove_joint; a bad field raises an error naming it. */
static void test_lua_joints(void **state)
{
    (void)state;
    ct_world_o *w = new_world("lua_joints");
    const ct_rigid_body_desc_t plank = box_at(0.5f, 0.0f, 0.0f, 0.5f, 0.05f, 0.1f);
    const ct_entity_t e[1] = {physics_body(w, &plank)};
    const char *script =
        "function joints_lua(w, e)\n"
        "  local j = Physics.add_joint(w, e, 0, 'hinge', { axis = {0, 0, 1}, lower = -0.5, upper = "
        "0.25 })\n"
        "  assert(type(j) == 'number' and j > 0)\n"
        "  for i = 1, 180 do Physics.simulate(w, 1 / 60) end\n"
        "  local a = Physics.joint_value(w, j)\n"
        "  assert(math.abs(a + 0.5) < 0.01, a)\n"
        "  local fx, fy, fz, tx, ty, tz = Physics.joint_force(w, j)\n"
        "  assert(math.abs(math.abs(fy) - 9.81) < 0.1, fy)\n"
        "  Physics.set_joint_motor(w, j, 1, 50)\n"
        "  for i = 1, 120 do Physics.simulate(w, 1 / 60) end\n"
        "  assert(math.abs(Physics.joint_value(w, j) - 0.25) < 0.01)\n"
        "  assert(not pcall(Physics.add_joint, w, e, 0, 'hinge', { axis = {0, 0, 0} }))\n"
        "  assert(not pcall(Physics.add_joint, w, e, 0, 'elastic', {}))\n"
        "  assert(not pcall(Physics.add_joint, w, e, 0, 'ball', { cone_angle = 'wide' }))\n"
        "  Physics.remove_joint(w, j)\n"
        "  assert(not pcall(Physics.joint_value, w, j))\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "joints_lua"), 0);
    test_lua_call("joints_lua", w, e, 1);
    assert_int_equal(p4->joint_count(w), 0);
    worlds->destroy_world(w);
    entity->destroy(e[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_pendulum_period),
        physics_test(test_hinge_limit_holds),
        physics_test(test_slider_motor_and_limit),
        physics_test(test_distance_spring_and_rope),
        physics_test(test_distance_min_and_max),
        physics_test(test_chain_stays_connected),
        physics_test(test_breaking_joint),
        physics_test(test_joint_torque_holds_a_shelf),
        physics_test(test_ball_twist_limit_holds),
        physics_test(test_lua_breaks_a_joint),
        physics_test(test_bad_joints_refused),
        physics_test(test_joined_bodies_sleep_and_wake_together),
        physics_test(test_lua_joints),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
