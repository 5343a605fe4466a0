/*
 * The character mover (ct_physics_api_v4.add_character / move_character, v5's character
 * settings): it walks up stairs of 0.3 m with a 0.35 m step, walks up a 30 degree ramp but not a
 * 60 degree one (max slope 45), stops at a wall and slides along it, keeps its feet walking down
 * stairs, rides a moving platform, pushes a crate aside, keeps its feet 0.45 m down with Jolt's
 * step down of 0.5 (not with its step up of 0.4), pushes with at most its max strength, presses
 * on what it stands on with its mass, and refuses bad settings; Lua does the same walk.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "physics_module_fixture.h"

static int boot(void **state)
{
    (void)state;
    physics_boot("character");
    return 0;
}

static const float step = 1.0f / 60.0f;

/* The test's scene: a floor whose top is y = 0 and what else a test adds; entities to destroy. */
typedef struct scene {
    ct_world_o *w;
    ct_entity_t e[64];
    uint32_t n;
} scene;

static ct_entity_t add(scene *s, const ct_rigid_body_desc_t *d)
{
    const ct_entity_t e = entity->create();
    assert_int_equal(p4->add_rigid_body(s->w, e, d), 0);
    s->e[s->n++] = e;
    return e;
}

static ct_entity_t add_box(scene *s, uint32_t kind, float x, float y, float z, float hx, float hy,
                           float hz, float turn_z)
{
    const ct_rigid_body_desc_t d = {.kind = kind,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {hx, hy, hz},
                                    .mass = 1,
                                    .friction = 0.5f,
                                    .position = {x, y, z},
                                    .rotation = {0, 0, sinf(0.5f * turn_z), cosf(0.5f * turn_z)}};
    return add(s, &d);
}

static scene new_scene(const char *name)
{
    scene s = {.w = worlds->create_world(&(ct_world_desc_t){.name = name})};
    assert_non_null(s.w);
    add_box(&s, CT_BODY_STATIC, 0, -0.5f, 0, 50, 0.5f, 50, 0);
    return s;
}

static void end_scene(scene *s)
{
    worlds->destroy_world(s->w);
    entity->destroy_batch(s->e, s->n);
}

/* A character 1.6 m tall (radius 0.3, half height 0.5) standing at x, z with its feet at y. */
static ct_entity_t add_character(scene *s, float x, float y, float z)
{
    const ct_entity_t e = entity->create();
    const ct_character_desc_t d = {.radius = 0.3f,
                                   .half_height = 0.5f,
                                   .max_step = 0.35f,
                                   .max_slope = 0.7853982f,
                                   .position = {x, y + 0.8f, z}};
    assert_int_equal(p4->add_character(s->w, e, &d), 0);
    s->e[s->n++] = e;
    return e;
}

/* A kinematic platform 0.5 m thick, `half` m across each way from its centre (0, 1, 0) (its top at
 * y = 1.25), friction 0.5, moving at vx along x and turning at wy about y. */
static ct_entity_t add_platform(scene *s, float half, float vx, float wy)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_KINEMATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {half, 0.25f, half},
                                    .friction = 0.5f,
                                    .position = {0, 1.0f, 0},
                                    .velocity = {vx, 0, 0},
                                    .angular_velocity = {0, wy, 0}};
    return add(s, &d);
}

/* Walks e with (vx, vz) for n steps, the game's gravity on it while it is in the air; returns the
 * last state. */
static ct_character_state_t walk(scene *s, ct_entity_t e, float vx, float vz, int n)
{
    ct_character_state_t st = {0};
    float vy = 0.0f;
    for (int k = 0; k < n; k++) {
        vy = st.grounded ? 0.0f : vy - 9.81f * step;
        const float v[3] = {vx, vy, vz};
        assert_int_equal(p4->move_character(s->w, e, v, step, &st), 0);
        p4->simulate(s->w, step);
        float p[3];
        assert_int_equal(p4->position(s->w, e, p), 0);
        /* The step took it where the mover said. */
        for (int c = 0; c < 3; c++)
            assert_float_equal(p[c], st.position[c], 1e-4f);
    }
    return st;
}

/* Five 0.3 m stairs 0.5 m deep from x = 2: walking at 2 m/s it climbs all of them (feet at 1.5 m on
 * the landing), then walks down the far side keeping its feet on every stair. */
static void test_stairs_up_and_down(void **state)
{
    (void)state;
    scene s = new_scene("stairs");
    for (int k = 0; k < 5; k++) {
        const float top = 0.3f * (float)(k + 1);
        /* Up from x = 2, a landing 2 m long, and down again to x = 11. */
        add_box(&s, CT_BODY_STATIC, 2.25f + 0.5f * (float)k, 0.5f * top, 0, 0.25f, 0.5f * top, 2,
                0);
        add_box(&s, CT_BODY_STATIC, 10.75f - 0.5f * (float)k, 0.5f * top, 0, 0.25f, 0.5f * top, 2,
                0);
    }
    add_box(&s, CT_BODY_STATIC, 6.5f, 0.75f, 0, 2.0f, 0.75f, 2, 0);
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    ct_character_state_t st = walk(&s, c, 2.0f, 0.0f, 10);
    assert_true(st.grounded);
    assert_float_equal(st.position[1], 0.8f, 0.02f);
    st = walk(&s, c, 2.0f, 0.0f, 150); /* 2.5 s: 5 m, slowed at each stair */
    print_message("stairs: x %.3f, feet at %.4f m (1.5 expected), grounded %u\n",
                  (double)st.position[0], (double)(st.position[1] - 0.8f), st.grounded);
    assert_true(st.position[0] > 4.6f && st.position[0] < 8.0f); /* on the landing */
    assert_float_equal(st.position[1] - 0.8f, 1.5f, 0.02f);
    assert_true(st.grounded);
    /* Down the far side: its feet never sink into a stair nor hang more than a step above the one
     * under its centre. */
    float highest_gap = 0.0f, deepest = 0.0f;
    for (int k = 0; k < 240; k++) {
        st = walk(&s, c, 2.0f, 0.0f, 1);
        const float x = st.position[0], feet = st.position[1] - 0.8f;
        if (x > 8.5f && x < 11.0f) {
            const float top = 0.3f * (float)(5 - (int)((x - 8.5f) / 0.5f));
            highest_gap = fmaxf(highest_gap, feet - top);
            deepest = fminf(deepest, feet - top);
        }
    }
    print_message(
        "stairs down: x %.3f, feet %.4f, over the stair under it by at most %.3f m, into it %.4f\n",
        (double)st.position[0], (double)(st.position[1] - 0.8f), (double)highest_gap,
        (double)deepest);
    assert_true(highest_gap < 0.31f);
    assert_true(deepest > -0.01f);
    assert_true(st.position[0] > 11.5f);
    assert_float_equal(st.position[1] - 0.8f, 0.0f, 0.02f);
    assert_true(st.grounded);
    end_scene(&s);
}

/* A 30 degree ramp is walked up (max slope 45); a 60 degree one is a wall: the character slides
 * back to its foot. */
static void test_slopes(void **state)
{
    (void)state;
    for (int steep = 0; steep < 2; steep++) {
        scene s = new_scene(steep ? "steep" : "ramp");
        const float a = steep ? 1.0471976f : 0.5235988f;
        /* A 6 m plank turned by a about z, its low end at x = 2 on the floor. */
        add_box(&s, CT_BODY_STATIC, 2.0f + 3.0f * cosf(a), 3.0f * sinf(a) - 0.05f, 0, 3.0f, 0.05f,
                2, a);
        const ct_entity_t c = add_character(&s, 0, 0, 0);
        const ct_character_state_t st = walk(&s, c, 2.0f, 0.0f, 120);
        const float feet = st.position[1] - 0.8f;
        print_message("%s: x %.3f, feet %.3f, grounded %u, normal y %.3f\n",
                      steep ? "60 degrees" : "30 degrees", (double)st.position[0], (double)feet,
                      st.grounded, (double)st.ground_normal[1]);
        if (!steep) {
            /* 4 m walked, 1.8 m of it along the ramp: up by about 0.9 m. */
            assert_true(st.grounded);
            assert_true(feet > 0.7f);
            assert_float_equal(st.ground_normal[1], cosf(a), 0.01f);
        } else {
            assert_true(feet < 0.35f);
            assert_true(st.position[0] < 2.5f);
        }
        end_scene(&s);
    }
}

/* A wall across the way stops it; walking diagonally into it slides along it. */
static void test_wall_slide(void **state)
{
    (void)state;
    scene s = new_scene("wall");
    add_box(&s, CT_BODY_STATIC, 2.0f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    const ct_character_state_t st = walk(&s, c, 2.0f, 1.0f, 90);
    print_message("wall: x %.4f (1.43: 2 cm short of the wall), z %.3f\n", (double)st.position[0],
                  (double)st.position[2]);
    assert_float_equal(st.position[0], 1.43f, 0.01f); /* 2 cm of padding from it */
    assert_float_equal(st.position[2], 1.5f, 0.05f);  /* 1 m/s along it for 1.5 s */
    assert_true(st.grounded);
    end_scene(&s);
}

/* It keeps Jolt's padding of 2 cm from walls: walked into a wall at 3 m/s for 100 steps it stops
 * 2 cm short of it (x 1.43: the wall's face at 1.75, radius 0.3) and never comes closer; its feet
 * stay on the floor (ground is not padded). (Before: it rested touching the wall, x 1.45.) */
static void test_wall_padding(void **state)
{
    (void)state;
    scene s = new_scene("padding");
    add_box(&s, CT_BODY_STATIC, 2.0f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    ct_character_state_t st = {0};
    float nearest = INFINITY;
    for (int k = 0; k < 100; k++) {
        st = walk(&s, c, 3.0f, 0.0f, 1);
        nearest = fminf(nearest, 1.75f - (st.position[0] + 0.3f));
    }
    print_message("padding: x %.5f, nearest %.5f m from the wall, feet %.5f\n",
                  (double)st.position[0], (double)nearest, (double)(st.position[1] - 0.8f));
    assert_float_equal(st.position[0], 1.43f, 1e-4f);
    assert_true(nearest >= 0.02f - 1e-4f);
    assert_float_equal(st.position[1] - 0.8f, 0.0f, 1e-4f);
    assert_true(st.grounded);
    end_scene(&s);
}

/* Standing on a kinematic platform moving at 1 m/s along x, it goes with it: after one second it
 * is 1 m further, still on it. */
static void test_rides_platform(void **state)
{
    (void)state;
    scene s = new_scene("platform");
    const ct_entity_t platform = add_platform(&s, 2.0f, 1.0f, 0.0f);
    const ct_entity_t c = add_character(&s, 0, 1.25f, 0);
    ct_character_state_t st = walk(&s, c, 0, 0, 1);
    assert_true(st.grounded);
    assert_int_equal(st.ground, platform.id);
    float p0[3];
    assert_int_equal(p4->position(s.w, c, p0), 0);
    st = walk(&s, c, 0, 0, 60);
    float p[3];
    assert_int_equal(p4->position(s.w, c, p), 0);
    print_message("platform: moved %.4f m (1 expected), feet %.4f\n", (double)(p[0] - p0[0]),
                  (double)(p[1] - 0.8f));
    assert_float_equal(p[0] - p0[0], 1.0f, 0.02f);
    assert_float_equal(p[1] - 0.8f, 1.25f, 0.02f);
    assert_true(st.grounded);
    assert_int_equal(st.ground, platform.id);
    end_scene(&s);
}

/* A kinematic disc of 3 m turning at 1 rad/s about y carries a character standing 1.5 m from its
 * axis round with it: after 3 s (3 rad) it is where the turn put that spot, still 1.5 m from the
 * axis (a carry along the tangent would drift it outwards by about 4 cm) and grounded on it. */
static void test_rides_turning_platform(void **state)
{
    (void)state;
    scene s = new_scene("turning_platform");
    const ct_entity_t platform = add_platform(&s, 3.0f, 0.0f, 1.0f);
    const ct_entity_t c = add_character(&s, 1.5f, 1.25f, 0);
    ct_character_state_t st = walk(&s, c, 0, 0, 1);
    assert_true(st.grounded);
    float p0[3], q[4];
    assert_int_equal(p4->position(s.w, c, p0), 0);
    assert_int_equal(p4->rotation(s.w, platform, q), 0);
    st = walk(&s, c, 0, 0, 180);
    float p[3], q1[4];
    assert_int_equal(p4->position(s.w, c, p), 0);
    assert_int_equal(p4->rotation(s.w, platform, q1), 0);
    /* How far the platform turned in those steps, from its own rotation (about +y). */
    const float turned = 2.0f * atan2f(q1[1], q1[3]) - 2.0f * atan2f(q[1], q[3]);
    const float ex = p0[0] * cosf(turned) + p0[2] * sinf(turned),
                ez = -p0[0] * sinf(turned) + p0[2] * cosf(turned);
    const float radius = sqrtf(p[0] * p[0] + p[2] * p[2]);
    print_message("turning platform: turned %.4f rad, at (%.4f, %.4f) for (%.4f, %.4f), %.4f m "
                  "from the axis (1.5), feet %.4f\n",
                  (double)turned, (double)p[0], (double)p[2], (double)ex, (double)ez,
                  (double)radius, (double)(p[1] - 0.8f));
    assert_float_equal(turned, 3.0f, 0.01f);
    assert_float_equal(radius, 1.5f, 0.005f);
    assert_float_equal(p[0], ex, 0.01f);
    assert_float_equal(p[2], ez, 0.01f);
    assert_float_equal(p[1] - 0.8f, 1.25f, 0.02f);
    assert_true(st.grounded);
    assert_int_equal(st.ground, platform.id);
    end_scene(&s);
}

/* A lift: a kinematic platform going up at 1 m/s for 1 s, then down at 1.5 m/s for 1 s. The
 * character on it stays on it all the way, grounded on it at every step (so the game never adds
 * gravity to a character standing on a lift), its feet on the platform's top. */
static void test_rides_lift_up_and_down(void **state)
{
    (void)state;
    scene s = new_scene("lift");
    const ct_entity_t lift = add_platform(&s, 2.0f, 0.0f, 0.0f);
    const ct_entity_t c = add_character(&s, 0, 1.25f, 0);
    ct_character_state_t st = walk(&s, c, 0, 0, 1);
    assert_true(st.grounded);
    float worst = 0.0f;
    uint32_t airborne = 0;
    for (int k = 0; k < 120; k++) {
        if (k == 0 || k == 60) {
            const float v[3] = {0, k ? -1.5f : 1.0f, 0};
            assert_int_equal(p4->set_velocity(s.w, lift, v), 0);
        }
        st = walk(&s, c, 0, 0, 1);
        float lp[3], cp[3];
        assert_int_equal(p4->position(s.w, lift, lp), 0);
        assert_int_equal(p4->position(s.w, c, cp), 0);
        worst = fmaxf(worst, fabsf((cp[1] - 0.8f) - (lp[1] + 0.25f)));
        airborne += !st.grounded || st.ground != lift.id;
    }
    float lp[3];
    assert_int_equal(p4->position(s.w, lift, lp), 0);
    print_message(
        "lift: ends at %.4f (%.4f expected), feet off its top by at most %.4f m, %u steps "
        "not grounded on it\n",
        (double)lp[1], 0.5, (double)worst, airborne);
    assert_float_equal(lp[1], 0.5f, 1e-3f);
    assert_int_equal(airborne, 0);
    assert_true(worst < 0.02f);
    end_scene(&s);
}

/* The mover sees only what its layer and mask meet: a wall on a layer the character's mask leaves
 * out is walked through, the same wall on a layer it holds stops it. */
static void test_mover_layers_and_masks(void **state)
{
    (void)state;
    for (int seen = 0; seen < 2; seen++) {
        scene s = new_scene("mover_masks");
        const ct_entity_t wall = add_box(&s, CT_BODY_STATIC, 2.0f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
        assert_int_equal(p4->set_collision_filter(s.w, wall, seen ? 1u : 2u, UINT32_MAX), 0);
        const ct_entity_t c = add_character(&s, 0, 0, 0);
        assert_int_equal(p4->set_collision_filter(s.w, c, 1u, ~2u), 0);
        const ct_character_state_t st = walk(&s, c, 2.0f, 0.0f, 90);
        print_message("wall on layer %u: character at x %.4f\n", seen ? 1u : 2u,
                      (double)st.position[0]);
        if (seen)
            assert_float_equal(st.position[0], 1.43f, 0.01f); /* 2 cm of padding */
        else
            assert_float_equal(st.position[0], 3.0f, 0.01f);
        assert_true(st.grounded); /* the floor, layer 1, holds it either way */
        end_scene(&s);
    }
}

/* A crate in its way is pushed, not climbed; bad settings and calls are refused. */
static void test_pushes_crate_and_refusals(void **state)
{
    (void)state;
    scene s = new_scene("crate");
    const ct_entity_t crate = add_box(&s, CT_BODY_DYNAMIC, 1.0f, 0.25f, 0, 0.25f, 0.25f, 0.25f, 0);
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    const ct_character_state_t st = walk(&s, c, 1.0f, 0.0f, 60);
    float p[3];
    assert_int_equal(p4->position(s.w, crate, p), 0);
    print_message("crate pushed to x %.3f; character x %.3f, feet %.3f\n", (double)p[0],
                  (double)st.position[0], (double)(st.position[1] - 0.8f));
    assert_true(p[0] > 1.2f);
    assert_float_equal(st.position[1] - 0.8f, 0.0f, 0.02f);

    const ct_entity_t e = entity->create();
    s.e[s.n++] = e;
    const ct_character_desc_t good = {
        .radius = 0.3f, .half_height = 0.5f, .max_step = 0.3f, .max_slope = 0.7f};
    ct_character_desc_t bad[4] = {good, good, good, good};
    bad[0].radius = 0;
    bad[1].max_step = -1;
    bad[2].max_slope = 2;
    bad[3].half_height = NAN;
    for (int k = 0; k < 4; k++)
        assert_int_equal(p4->add_character(s.w, e, &bad[k]), CT_ERR_INVALID);
    assert_int_equal(p4->add_character(s.w, c, &good), CT_ERR_CONFLICT);
    const float v[3] = {1, 0, 0}, fast[3] = {2e4f, 0, 0};
    ct_character_state_t out;
    assert_int_equal(p4->move_character(s.w, e, v, step, &out), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->move_character(s.w, crate, v, step, &out), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->move_character(s.w, c, fast, step, &out), CT_ERR_INVALID);
    assert_int_equal(p4->move_character(s.w, c, v, 0.0f, &out), CT_ERR_INVALID);
    /* Its body goes with remove_body, and the mover with it. */
    assert_int_equal(p4->remove_body(s.w, c), 0);
    assert_int_equal(p4->move_character(s.w, c, v, step, &out), CT_ERR_NOT_FOUND);
    end_scene(&s);
}

/* Jolt's CharacterVirtual: steps up 0.4 m, keeps its feet 0.5 m down, 70 kg, pushes with 100 N. */
static void jolt_settings(scene *s, ct_entity_t c)
{
    ct_character_settings_t set;
    assert_int_equal(p5->character_settings(s->w, c, &set), 0);
    set.max_step = 0.4f, set.step_down = 0.5f, set.mass = 70.0f, set.max_strength = 100.0f;
    assert_int_equal(p5->set_character_settings(s->w, c, &set), 0);
}

/* A dynamic box of half size h and mass on the floor at x, with friction f. */
static ct_entity_t add_crate(scene *s, float x, float h, float mass, float friction)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {h, h, h},
                                    .mass = mass,
                                    .friction = friction,
                                    .position = {x, h, 0},
                                    .rotation = {0, 0, 0, 1}};
    return add(s, &d);
}

/* Pushing is bounded by max_strength (100 N, Jolt's): walking at 2 m/s for 2 s into a 1,000 kg
 * crate on frictionless ice moves it no more than 100 N would, 0.5 (100 / 1000) 2^2 = 0.2 m, and
 * the character is stopped at its side (v4's kinematic push took it along at 2 m/s, about 3 m);
 * a 10 kg crate with friction is still pushed along (over a metre); with max_strength 0 a 1 kg
 * crate is not moved at all. */
static void test_push_is_bounded(void **state)
{
    (void)state;
    scene s = new_scene("bounded_push");
    const ct_entity_t heavy = add_crate(&s, 1.5f, 0.5f, 1000.0f, 0.0f);
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    jolt_settings(&s, c);
    ct_character_state_t st = walk(&s, c, 2.0f, 0.0f, 120);
    float p[3];
    assert_int_equal(p4->position(s.w, heavy, p), 0);
    print_message("1,000 kg crate: moved %.4f m (at most 0.2), character x %.4f, crate side %.4f\n",
                  (double)(p[0] - 1.5f), (double)st.position[0], (double)(p[0] - 0.5f));
    assert_true(p[0] - 1.5f <= 0.2f);
    assert_true(p[0] - 1.5f > 0.05f); /* it did push, as hard as it could */
    assert_true(st.position[0] + 0.3f <= p[0] - 0.5f + 0.01f);
    assert_true(st.grounded);
    end_scene(&s);

    s = new_scene("light_push");
    const ct_entity_t light = add_crate(&s, 1.0f, 0.25f, 10.0f, 0.5f);
    const ct_entity_t c2 = add_character(&s, 0, 0, 0);
    jolt_settings(&s, c2);
    st = walk(&s, c2, 2.0f, 0.0f, 120);
    assert_int_equal(p4->position(s.w, light, p), 0);
    print_message("10 kg crate: moved %.4f m, character x %.4f\n", (double)(p[0] - 1.0f),
                  (double)st.position[0]);
    assert_true(p[0] - 1.0f > 1.0f);
    assert_true(st.position[0] > 1.5f);
    end_scene(&s);

    s = new_scene("no_push");
    const ct_entity_t box = add_crate(&s, 1.0f, 0.25f, 1.0f, 0.5f);
    const ct_entity_t c3 = add_character(&s, 0, 0, 0);
    ct_character_settings_t set;
    assert_int_equal(p5->character_settings(s.w, c3, &set), 0);
    set.max_strength = 0.0f;
    assert_int_equal(p5->set_character_settings(s.w, c3, &set), 0);
    st = walk(&s, c3, 2.0f, 0.0f, 60);
    assert_int_equal(p4->position(s.w, box, p), 0);
    print_message("strength 0: box moved %.6f m, character x %.4f\n", (double)(p[0] - 1.0f),
                  (double)st.position[0]);
    assert_float_equal(p[0], 1.0f, 1e-4f);
    assert_float_equal(st.position[0], 0.43f, 0.01f); /* 2 cm short of it */
    end_scene(&s);
}

/* Its mass presses on what it stands on: a 10 kg plank 4 m long on a hinge at its middle, 1 m up,
 * with a character standing still 1.5 m from the hinge, tips under Jolt's 70 kg (its end going
 * down to the floor) and stays level under a character of mass 0 (v4's). */
static void test_weight_on_dynamic_ground(void **state)
{
    (void)state;
    for (int heavy = 0; heavy < 2; heavy++) {
        scene s = new_scene("seesaw");
        const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {2.0f, 0.05f, 0.5f},
                                        .mass = 10.0f,
                                        .friction = 0.5f,
                                        .position = {0, 1.0f, 0},
                                        .rotation = {0, 0, 0, 1}};
        const ct_entity_t plank = add(&s, &d);
        const ct_joint_desc_t hinge = {
            .type = CT_JOINT_HINGE, .anchor = {0, 1.0f, 0}, .axis = {0, 0, 1}};
        ct_physics_joint_t j;
        assert_int_equal(p4->add_joint(s.w, plank, (ct_entity_t){0}, &hinge, &j), 0);
        const ct_entity_t c = add_character(&s, 1.5f, 1.05f, 0);
        if (heavy)
            jolt_settings(&s, c);
        ct_character_state_t st = walk(&s, c, 0, 0, 2);
        assert_true(st.grounded);
        assert_int_equal(st.ground, plank.id);
        walk(&s, c, 0, 0, 60);
        float q[4];
        assert_int_equal(p4->rotation(s.w, plank, q), 0);
        const float angle = 2.0f * atan2f(q[2], q[3]);
        print_message("seesaw under %s: turned %.4f rad\n", heavy ? "70 kg" : "mass 0",
                      (double)angle);
        if (heavy)
            assert_true(angle < -0.25f); /* its +x end went down by more than half a metre */
        else
            assert_float_equal(angle, 0.0f, 0.01f);
        end_scene(&s);
    }
}

/* Small dynamic bodies are ground like any other (Jolt's settings: a step of 0.4 m, 70 kg, 100 N):
 * a 50 kg crate 0.3 m high that 100 N cannot slide is a stair it walks up, and then stands on
 * (grounded on it, feet 0.3 m up) while pressing it onto the floor; a loose plank sliding on ice
 * carries the character standing on it along with it. (Before: a dynamic body was never a stair,
 * so it stood pushing at the crate's side, x 0.88.) */
static void test_small_dynamic_bodies(void **state)
{
    (void)state;
    scene s = new_scene("crate_step");
    const ct_rigid_body_desc_t crate_desc = {.kind = CT_BODY_DYNAMIC,
                                             .shape = CT_BODY_BOX,
                                             .half_extents = {0.3f, 0.15f, 0.5f},
                                             .mass = 50.0f,
                                             .friction = 0.5f,
                                             .position = {1.5f, 0.15f, 0},
                                             .rotation = {0, 0, 0, 1}};
    const ct_entity_t crate = add(&s, &crate_desc);
    ct_entity_t c = add_character(&s, 0, 0, 0);
    jolt_settings(&s, c);
    ct_character_state_t st = walk(&s, c, 1.0f, 0.0f, 90);
    float p[3];
    assert_int_equal(p4->position(s.w, crate, p), 0);
    print_message("crate: character x %.4f, feet %.4f, on %u (crate %u); crate at (%.4f %.4f)\n",
                  (double)st.position[0], (double)(st.position[1] - 0.8f), st.ground, crate.id,
                  (double)p[0], (double)p[1]);
    assert_true(st.grounded);
    assert_int_equal(st.ground, crate.id);
    assert_float_equal(st.position[1] - 0.8f, 0.3f, 0.01f);
    assert_float_equal(p[1], 0.15f, 0.01f); /* pressed on the floor, not tipped or thrown */
    end_scene(&s);

    /* No higher than its step: a block 0.5 m high stops a character stepping 0.35 m, static or a
     * 1 kg crate it does not push (max_strength 0). (Before, the static one was climbed, feet
     * at 0.5 m: the stair's trial walk, pushed up the slant of the block's edge, held the
     * capsule's round side a little way up and took that as a stair, a few centimetres a move.) */
    for (int kind = 0; kind < 2; kind++) {
        s = new_scene("too_high");
        add_box(&s, kind ? CT_BODY_DYNAMIC : CT_BODY_STATIC, 1.0f, 0.25f, 0, 0.25f, 0.25f, 0.25f,
                0);
        c = add_character(&s, 0, 0, 0);
        ct_character_settings_t set;
        assert_int_equal(p5->character_settings(s.w, c, &set), 0);
        set.max_strength = 0.0f;
        assert_int_equal(p5->set_character_settings(s.w, c, &set), 0);
        float highest = 0.0f;
        for (int k = 0; k < 60; k++) {
            st = walk(&s, c, 2.0f, 0.0f, 1);
            highest = fmaxf(highest, st.position[1] - 0.8f);
        }
        print_message("0.5 m %s block: x %.4f, highest feet %.4f\n", kind ? "dynamic" : "static",
                      (double)st.position[0], (double)highest);
        assert_float_equal(highest, 0.0f, 1e-3f);
        assert_float_equal(st.position[0], 0.43f, 1e-3f);
        end_scene(&s);
    }

    s = new_scene("plank");
    const ct_rigid_body_desc_t plank_desc = {.kind = CT_BODY_DYNAMIC,
                                             .shape = CT_BODY_BOX,
                                             .half_extents = {1.5f, 0.05f, 0.5f},
                                             .mass = 10.0f,
                                             .friction = 0.0f, /* ice under it */
                                             .position = {0, 0.05f, 0},
                                             .rotation = {0, 0, 0, 1}};
    const ct_entity_t plank = add(&s, &plank_desc);
    c = add_character(&s, -0.5f, 0.1f, 0);
    jolt_settings(&s, c);
    st = walk(&s, c, 0, 0, 10);
    assert_true(st.grounded);
    assert_int_equal(st.ground, plank.id);
    assert_int_equal(p4->set_velocity(s.w, plank, (const float[3]){1.0f, 0, 0}), 0);
    float p0[3], q0[3];
    assert_int_equal(p4->position(s.w, plank, q0), 0);
    memcpy(p0, st.position, sizeof p0);
    st = walk(&s, c, 0, 0, 60);
    assert_int_equal(p4->position(s.w, plank, p), 0);
    print_message("plank: moved %.4f m, the character %.4f m, feet %.4f, on %u (plank %u)\n",
                  (double)(p[0] - q0[0]), (double)(st.position[0] - p0[0]),
                  (double)(st.position[1] - 0.8f), st.ground, plank.id);
    assert_true(p[0] - q0[0] > 0.9f);
    assert_float_equal(st.position[0] - p0[0], p[0] - q0[0], 0.02f);
    assert_float_equal(st.position[1] - 0.8f, 0.1f, 0.01f);
    assert_true(st.grounded);
    assert_int_equal(st.ground, plank.id);
    end_scene(&s);
}

/* Stairs walked at a slant, Jolt's rule: at 3 m/s, 74.5 degrees off the way up the flight (each
 * step takes it 1.3 cm towards the stairs) it still climbs to the landing, 80 degrees off it walks
 * along the first riser (Jolt's mWalkStairsCosAngleForwardContact, 75 degrees). (Before: the
 * drop after the lifted walk went a quarter radius at a time past the height where it met the
 * stair's edge, and met it a step deeper, too steeply to hold it: at 74.5 degrees it never
 * climbed.) */
static void test_stairs_at_a_slant(void **state)
{
    (void)state;
    const float angles[2] = {1.3f, 1.4f};
    for (int a = 0; a < 2; a++) {
        scene s = new_scene("slant");
        for (int k = 0; k < 5; k++) {
            const float top = 0.3f * (float)(k + 1);
            add_box(&s, CT_BODY_STATIC, 2.25f + 0.5f * (float)k, 0.5f * top, 0, 0.25f, 0.5f * top,
                    20, 0);
        }
        add_box(&s, CT_BODY_STATIC, 6.5f, 0.75f, 0, 2.0f, 0.75f, 20, 0);
        const ct_entity_t c = add_character(&s, 0, 0, 0);
        jolt_settings(&s, c);
        ct_character_state_t st = {0};
        float highest = 0.0f;
        for (int k = 0; k < 400 && st.position[2] < 19.0f; k++) {
            st = walk(&s, c, 3.0f * cosf(angles[a]), 3.0f * sinf(angles[a]), 1);
            highest = fmaxf(highest, st.position[1] - 0.8f);
        }
        print_message("%.1f rad off: x %.3f, z %.3f, feet %.4f, highest %.4f\n", (double)angles[a],
                      (double)st.position[0], (double)st.position[2],
                      (double)(st.position[1] - 0.8f), (double)highest);
        if (a == 0) {
            assert_float_equal(st.position[1] - 0.8f, 1.5f, 0.01f);
            assert_true(st.grounded);
        } else {
            assert_float_equal(highest, 0.0f, 0.01f);
            assert_float_equal(st.position[0], 1.68f, 0.01f); /* padded 2 cm */
        }
        end_scene(&s);
    }
}

/* The ground drops away by 0.45 m under a character (the shelf it stands on is taken away, the
 * floor 0.45 m below): with Jolt's step down of 0.5 m it keeps its feet, grounded on the floor at
 * the next move; with v4's step down (its max step, 0.4 m here as Jolt's step up) it is in the
 * air. */
static void test_step_down(void **state)
{
    (void)state;
    for (int jolt = 0; jolt < 2; jolt++) {
        scene s = new_scene("step_down");
        const ct_entity_t shelf = add_box(&s, CT_BODY_STATIC, 0, 0.4f, 0, 1.0f, 0.05f, 1.0f, 0);
        const ct_entity_t c = add_character(&s, 0, 0.45f, 0);
        ct_character_settings_t set;
        assert_int_equal(p5->character_settings(s.w, c, &set), 0);
        assert_float_equal(set.step_down, 0.35f, 0.0f); /* add_character's: its max_step */
        set.max_step = 0.4f;
        set.step_down = jolt ? 0.5f : 0.4f;
        assert_int_equal(p5->set_character_settings(s.w, c, &set), 0);
        ct_character_state_t st = walk(&s, c, 0, 0, 2);
        assert_true(st.grounded);
        assert_int_equal(st.ground, shelf.id);
        assert_int_equal(p4->remove_body(s.w, shelf), 0);
        st = walk(&s, c, 0, 0, 1);
        print_message("step down %.1f: grounded %u, feet %.4f\n", (double)set.step_down,
                      st.grounded, (double)(st.position[1] - 0.8f));
        if (jolt) {
            assert_true(st.grounded);
            assert_float_equal(st.position[1] - 0.8f, 0.0f, 1e-3f);
        } else {
            assert_false(st.grounded);
            assert_true(st.position[1] - 0.8f > 0.4f);
        }
        end_scene(&s);
    }
}

/* Walks characters c[0 .. n) together for `steps` steps, each with its (vx, vz) of v, moved in the
 * order given (the game's gravity on each while it is in the air), then the world steps. Returns
 * the closest two of them came, centre to centre on the ground (they all stand on the floor). */
static float walk_together(scene *s, const ct_entity_t *c, const float (*v)[2], uint32_t n,
                           int steps, ct_character_state_t *st)
{
    float vy[8] = {0}, closest = INFINITY;
    for (int k = 0; k < steps; k++) {
        for (uint32_t i = 0; i < n; i++) {
            vy[i] = k > 0 && st[i].grounded ? 0.0f : vy[i] - 9.81f * step;
            const float want[3] = {v[i][0], vy[i], v[i][1]};
            assert_int_equal(p4->move_character(s->w, c[i], want, step, &st[i]), 0);
        }
        p4->simulate(s->w, step);
        float p[8][3];
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(p4->position(s->w, c[i], p[i]), 0);
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                closest = fminf(closest, hypotf(p[i][0] - p[j][0], p[i][2] - p[j][2]));
    }
    return closest;
}

/* Characters collide with each other, each move seeing where the others' moves of the step took
 * them (Jolt's CharacterVsCharacterCollision): two walking head-on at 2 m/s stop where their
 * capsules touch and never overlap (before: each saw where the other stood before the step, so
 * both walked into the last gap, and came 1 cm into each other here); two
 * meeting 0.3 m off centre slide round each other and walk on; three abreast into a wall stop
 * there side by side. */
static void test_characters_collide(void **state)
{
    (void)state;
    scene s = new_scene("head_on");
    ct_entity_t c[3] = {add_character(&s, -1.01f, 0, 0), add_character(&s, 1.0f, 0, 0)};
    ct_character_state_t st[3] = {0};
    float closest = walk_together(&s, c, (const float[][2]){{2, 0}, {-2, 0}}, 2, 60, st);
    print_message("head on: closest %.4f m apart (0.6 touching), stopped at x %.4f and %.4f\n",
                  (double)closest, (double)st[0].position[0], (double)st[1].position[0]);
    assert_true(closest >= 0.6f - 1e-4f);
    assert_true(st[1].position[0] - st[0].position[0] < 0.6f + 0.03f);
    assert_float_equal(st[0].velocity[0], 0.0f, 1e-3f);
    assert_float_equal(st[1].velocity[0], 0.0f, 1e-3f);
    assert_true(st[0].grounded && st[1].grounded);
    end_scene(&s);

    s = new_scene("glancing");
    c[0] = add_character(&s, -2.0f, 0, -0.15f), c[1] = add_character(&s, 2.0f, 0, 0.15f);
    closest = walk_together(&s, c, (const float[][2]){{2, 0}, {-2, 0}}, 2, 120, st);
    print_message("glancing: closest %.4f m apart, ended at x %.4f and %.4f\n", (double)closest,
                  (double)st[0].position[0], (double)st[1].position[0]);
    assert_true(closest >= 0.6f - 1e-4f);
    assert_true(st[0].position[0] > 1.0f && st[1].position[0] < -1.0f); /* walked past */
    end_scene(&s);

    s = new_scene("abreast");
    add_box(&s, CT_BODY_STATIC, 2.0f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
    c[0] = add_character(&s, 0, 0, -0.5f), c[1] = add_character(&s, 0, 0, 0.0f);
    c[2] = add_character(&s, 0, 0, 0.5f);
    closest = walk_together(&s, c, (const float[][2]){{2, 0.5f}, {2, 0}, {2, -0.5f}}, 3, 90, st);
    print_message("abreast: closest %.4f m apart, x %.4f %.4f %.4f\n", (double)closest,
                  (double)st[0].position[0], (double)st[1].position[0], (double)st[2].position[0]);
    assert_true(closest >= 0.6f - 1e-4f);
    for (int k = 0; k < 3; k++)
        assert_true(st[k].position[0] > 1.3f && st[k].position[0] <= 1.45f + 1e-4f);
    end_scene(&s);
}

/* What a contact callback is given: the calls, the last contact, and the body it vetoes. */
typedef struct contact_log {
    ct_world_o *w;
    uint32_t calls;
    ct_entity_t veto;
    ct_character_contact_t seen[8];
} contact_log;

static bool log_contact(void *user_data, ct_world_o *w, const ct_character_contact_t *contact)
{
    contact_log *log = user_data;
    assert_ptr_equal(w, log->w);
    assert_int_equal(contact->accepted, 1);
    if (log->calls < 8)
        log->seen[log->calls] = *contact;
    log->calls++;
    return contact->body != log->veto.id;
}

/* A callback that vetoes every contact (counting them). */
static bool veto_all(void *user_data, ct_world_o *w, const ct_character_contact_t *contact)
{
    (void)w, (void)contact;
    ((contact_log *)user_data)->calls++;
    return false;
}

/* The contact of `body` among the n of list, or NULL. */
static const ct_character_contact_t *contact_with(const ct_character_contact_t *list, uint32_t n,
                                                  ct_entity_t body)
{
    for (uint32_t k = 0; k < n; k++)
        if (list[k].body == body.id)
            return &list[k];
    return NULL;
}

/* The contact callback and the contacts of the last move (Jolt's CharacterContactListener
 * OnContactValidate / OnContactAdded): walking into a wall, a move lists the floor under it
 * (normal up, point at y 0) and the wall (normal -x, point on its face at x 1.75), each once, both
 * accepted, the callback asked once for each with the world and user_data it was set with; a
 * callback vetoing the wall lets it walk through the wall; set to NULL, the wall stops it again;
 * another character is listed as one, and vetoed it is walked through; past 32 bodies in one move
 * the rest are accepted unasked; a non-character is refused. */
static void test_contact_callback(void **state)
{
    (void)state;
    scene s = new_scene("contacts");
    const ct_entity_t floor = s.e[0];
    const ct_entity_t wall = add_box(&s, CT_BODY_STATIC, 2.0f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    contact_log log = {.w = s.w};
    assert_int_equal(p5->set_character_contact_callback(s.w, c, log_contact, &log), 0);
    assert_int_equal(p5->character_contacts(s.w, c, NULL, 0), 0); /* no move yet */
    ct_character_state_t st = walk(&s, c, 2.0f, 0.0f, 60);        /* at the wall */
    assert_float_equal(st.position[0], 1.43f, 1e-3f);
    log.calls = 0;
    walk(&s, c, 2.0f, 0.0f, 1);
    ct_character_contact_t list[CT_CHARACTER_MAX_CONTACTS];
    const uint32_t n = p5->character_contacts(s.w, c, list, CT_CHARACTER_MAX_CONTACTS);
    print_message("contacts: %u listed, %u calls\n", n, log.calls);
    assert_int_equal(n, 2);
    assert_int_equal(log.calls, 2);
    assert_int_equal(p5->character_contacts(s.w, c, NULL, 0), 2);
    assert_int_equal(p5->character_contacts(s.w, c, list, 1), 2); /* one written */
    assert_int_equal(p5->character_contacts(s.w, c, list, CT_CHARACTER_MAX_CONTACTS), 2);
    const ct_character_contact_t *f = contact_with(list, n, floor),
                                 *wc = contact_with(list, n, wall);
    assert_non_null(f);
    assert_non_null(wc);
    assert_int_equal(f->character, c.id);
    assert_int_equal(f->body_kind, CT_BODY_STATIC);
    assert_int_equal(f->is_character, 0);
    assert_int_equal(f->accepted, 1);
    assert_float_equal(f->normal[1], 1.0f, 1e-4f);
    assert_float_equal(f->point[1], 0.0f, 0.011f);
    assert_float_equal(wc->normal[0], -1.0f, 1e-4f);
    assert_float_equal(wc->point[0], 1.75f, 0.02f); /* where the move first went into it */
    assert_int_equal(wc->accepted, 1);
    assert_memory_equal(contact_with(log.seen, 2, wall), wc, sizeof *wc);

    /* Vetoed, the wall is walked through (and listed as vetoed). */
    log.veto = wall;
    st = walk(&s, c, 2.0f, 0.0f, 60);
    print_message("wall vetoed: x %.4f\n", (double)st.position[0]);
    assert_true(st.position[0] > 3.0f);
    assert_true(st.grounded);
    /* Back in front of it, with no callback it stops there again. */
    assert_int_equal(p5->set_character_contact_callback(s.w, c, NULL, NULL), 0);
    const float back[3] = {0, 0.8f, 0};
    assert_int_equal(p4->teleport(s.w, c, back), 0);
    st = walk(&s, c, 2.0f, 0.0f, 60);
    assert_float_equal(st.position[0], 1.43f, 1e-3f);

    /* Another character is listed as one; its verdict vetoed, they overlap. */
    const ct_entity_t other = add_character(&s, 0.9f, 0, 3.0f);
    const float there[3] = {0, 0.8f, 3.0f};
    assert_int_equal(p4->teleport(s.w, c, there), 0);
    log = (contact_log){.w = s.w};
    assert_int_equal(p5->set_character_contact_callback(s.w, c, log_contact, &log), 0);
    st = walk(&s, c, 2.0f, 0.0f, 30);
    const uint32_t m = p5->character_contacts(s.w, c, list, CT_CHARACTER_MAX_CONTACTS);
    const ct_character_contact_t *oc = contact_with(list, m, other);
    assert_non_null(oc);
    assert_int_equal(oc->is_character, 1);
    assert_int_equal(oc->body_kind, CT_BODY_KINEMATIC);
    assert_float_equal(oc->normal[0], -1.0f, 1e-3f);
    assert_float_equal(st.position[0], 0.9f - 0.62f, 1e-3f);
    log.veto = other;
    walk(&s, c, 2.0f, 0.0f, 2);
    const uint32_t v = p5->character_contacts(s.w, c, list, CT_CHARACTER_MAX_CONTACTS);
    assert_non_null(contact_with(list, v, other));
    assert_int_equal(contact_with(list, v, other)->accepted, 0);
    st = walk(&s, c, 2.0f, 0.0f, 28);
    print_message("character vetoed: x %.4f (it stands at 0.9)\n", (double)st.position[0]);
    assert_true(st.position[0] > 1.0f);

    /* At most CT_CHARACTER_MAX_CONTACTS a move: falling 1.5 m in one move through 40 slabs 2 cm
     * apart, each vetoed, it is asked about the first 32 and passes them; the 33rd is accepted
     * unasked and holds it (feet at its top, 0.36 m). */
    for (int k = 0; k < 40; k++)
        add_box(&s, CT_BODY_STATIC, 10.0f, 0.995f - 0.02f * (float)k, 0, 1, 0.005f, 1, 0);
    const float above[3] = {10.0f, 1.5f + 0.8f, 0};
    assert_int_equal(p4->teleport(s.w, c, above), 0);
    log = (contact_log){.w = s.w};
    assert_int_equal(p5->set_character_contact_callback(s.w, c, veto_all, &log), 0);
    const float fall[3] = {0, -90.0f, 0};
    assert_int_equal(p4->move_character(s.w, c, fall, step, &st), 0);
    const uint32_t slabs = p5->character_contacts(s.w, c, list, CT_CHARACTER_MAX_CONTACTS);
    print_message("fell through %u slabs (%u calls), feet %.4f\n", slabs, log.calls,
                  (double)(st.position[1] - 0.8f));
    assert_int_equal(slabs, CT_CHARACTER_MAX_CONTACTS);
    assert_int_equal(log.calls, CT_CHARACTER_MAX_CONTACTS);
    for (uint32_t k = 0; k < slabs; k++)
        assert_int_equal(list[k].accepted, 0);
    assert_float_equal(st.position[1] - 0.8f, 0.36f, 1e-3f);

    /* What is no character. */
    assert_int_equal(p5->set_character_contact_callback(s.w, wall, log_contact, &log),
                     CT_ERR_NOT_FOUND);
    assert_int_equal(p5->character_contacts(s.w, wall, list, CT_CHARACTER_MAX_CONTACTS), 0);
    assert_int_equal(p5->character_contacts(s.w, (ct_entity_t){0}, list, 4), 0);
    end_scene(&s);
}

/* ---- a contact callback that does what it must not ---- */

/* What a misbehaving callback does, once, at the first contact of a move it is asked about. */
typedef enum misdeed {
    REMOVE_BODY,   /* p4->remove_body of the body met */
    MOVE_AGAIN,    /* move_character of the same character */
    TELEPORT,      /* teleport the character */
    ADD_BODY,      /* add a body */
    STEP,          /* simulate the world */
    SET_SETTINGS,  /* set_character_settings */
    SET_DAMPING,   /* set_damping of the body met */
    DESTROY_BODY,  /* destroy the entity of the body met */
    DESTROY_SELF,  /* destroy the character's entity */
    DESTROY_WORLD, /* destroy the world */
} misdeed;

typedef struct misbehaving {
    scene *s;
    ct_entity_t character, met, spare;
    misdeed what;
    uint32_t calls;
    int answer; /* what the refused call returned */
} misbehaving;

static bool misbehave(void *user_data, ct_world_o *w, const ct_character_contact_t *contact)
{
    misbehaving *m = user_data;
    if (m->calls++)
        return true;
    m->met = (ct_entity_t){contact->body};
    const float v[3] = {1, 0, 0}, p[3] = {0, 5, 0};
    const ct_rigid_body_desc_t ball = ball_desc(5, 5, 5, 0.5f);
    const ct_character_settings_t set = {0.3f, 0.5f, 0.3f, 70.0f, 100.0f};
    switch (m->what) {
    case REMOVE_BODY: m->answer = p4->remove_body(w, m->met); break;
    case MOVE_AGAIN: m->answer = p4->move_character(w, m->character, v, step, NULL); break;
    case TELEPORT: m->answer = p4->teleport(w, m->character, p); break;
    case ADD_BODY: m->answer = p4->add_rigid_body(w, m->spare, &ball); break;
    case STEP: p4->simulate(w, step); break;
    case SET_SETTINGS: m->answer = p5->set_character_settings(w, m->character, &set); break;
    case SET_DAMPING: m->answer = p5->set_damping(w, m->met, 1.0f, 1.0f); break;
    case DESTROY_BODY: entity->destroy(m->met); break;
    case DESTROY_SELF: entity->destroy(m->character); break;
    case DESTROY_WORLD: worlds->destroy_world(w); break;
    }
    return true;
}

/* A character's contact callback may read the world but must not change it
 * (ct_character_contact_f). One that does is refused, each call logged naming the call, the world,
 * the entity and the character whose callback it was, and the move goes on as if it had not
 * asked: removing the body met, moving or teleporting the character, adding a body, stepping the
 * world, changing the settings or a body's damping. Destroying entities cannot be refused: their
 * bodies go when the move ends (the body met, the character itself); destroying the world ends
 * the move there (CT_ERR_STALE). Before, each of these was done in the middle of the move:
 * removing or destroying the body met swapped another body into its index and the move went on
 * with it; destroying the world freed the arrays the move was walking (ASan:
 * heap-use-after-free). */
static void test_contact_callback_misbehaves(void **state)
{
    (void)state;
    static const char *const calls[] = {
        "remove_body", "move_character",         "teleport",   "add_rigid_body",
        "simulate",    "set_character_settings", "set_damping"};
    /* What the move does with a callback that only accepts: the misbehaving ones' moves must
     * end the same. */
    ct_character_state_t good;
    {
        scene s = new_scene("behaving");
        add_box(&s, CT_BODY_STATIC, 0.6f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
        add_box(&s, CT_BODY_DYNAMIC, -0.9f, 0.5f, 0, 0.3f, 0.5f, 0.3f, 0);
        const ct_entity_t c = add_character(&s, 0, 0, 0);
        contact_log log = {.w = s.w};
        assert_int_equal(p5->set_character_contact_callback(s.w, c, log_contact, &log), 0);
        const float v[3] = {2.0f, 0, 0};
        assert_int_equal(p4->move_character(s.w, c, v, step, &good), 0);
        end_scene(&s);
    }
    for (int what = REMOVE_BODY; what <= DESTROY_WORLD; what++) {
        scene s = new_scene("misbehaving");
        const ct_entity_t wall = add_box(&s, CT_BODY_STATIC, 0.6f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
        const ct_entity_t crate = add_box(&s, CT_BODY_DYNAMIC, -0.9f, 0.5f, 0, 0.3f, 0.5f, 0.3f, 0);
        const ct_entity_t c = add_character(&s, 0, 0, 0);
        const ct_entity_t spare = entity->create();
        s.e[s.n++] = spare;
        misbehaving m = {&s, c, {0}, spare, (misdeed)what, 0, 0};
        assert_int_equal(p5->set_character_contact_callback(s.w, c, misbehave, &m), 0);
        const uint32_t bodies = p4->body_count(s.w);
        captured[0] = '\0';
        log__set_sink(capture, NULL);
        ct_character_state_t st;
        const float v[3] = {2.0f, 0, 0};
        const int err = p4->move_character(s.w, c, v, step, &st);
        log__set_sink(NULL, NULL);
        print_message("misdeed %d: move %d, callback asked %u times (first about entity %u), the "
                      "misdeed's call gave %d; log: %s",
                      what, err, m.calls, m.met.id, m.answer, captured);
        assert_true(m.calls >= 1);
        if (what == DESTROY_WORLD) {
            assert_int_equal(err, CT_ERR_STALE);
            assert_non_null(strstr(captured, "destroyed by the character's contact callback"));
            entity->destroy_batch(s.e, s.n);
            continue;
        }
        assert_int_equal(err, 0);
        if (what <= SET_DAMPING) {
            if (what != STEP)
                assert_int_equal(m.answer, CT_ERR_INVALID);
            char want[256];
            snprintf(want, sizeof want,
                     "%s: world %p, entity %u: refused inside character %u's contact callback",
                     calls[what], (void *)s.w,
                     what == REMOVE_BODY || what == SET_DAMPING ? m.met.id
                     : what == ADD_BODY                         ? spare.id
                     : what == STEP                             ? 0u
                                                                : c.id,
                     c.id);
            if (!strstr(captured, want))
                fail_msg("'%s' does not hold '%s'", captured, want);
            /* Nothing changed: the same bodies, the step not taken, the move as a good
             * callback's. */
            assert_int_equal(p4->body_count(s.w), bodies);
            assert_int_equal(st.grounded, good.grounded);
            assert_memory_equal(st.position, good.position, sizeof st.position);
            assert_memory_equal(st.velocity, good.velocity, sizeof st.velocity);
            float at[3];
            assert_int_equal(p4->position(s.w, c, at), 0);
            assert_true(at[0] == 0.0f && at[1] == 0.8f && at[2] == 0.0f);
            ct_character_settings_t now;
            assert_int_equal(p5->character_settings(s.w, c, &now), 0);
            assert_float_equal(now.max_step, 0.35f, 0.0f);
        } else {
            /* The destroyed entity's body went when the move ended; the rest are there. */
            const ct_entity_t gone = what == DESTROY_BODY ? m.met : c;
            assert_int_equal(p4->body_count(s.w), bodies - 1);
            float p[3];
            assert_int_equal(p4->position(s.w, gone, p), CT_ERR_NOT_FOUND);
            for (uint32_t k = 0; k < s.n; k++)
                if (s.e[k].id != gone.id && s.e[k].id != spare.id)
                    assert_int_equal(p4->position(s.w, s.e[k], p), 0);
            /* The world steps on, and a move of what is left is asked about again. */
            p4->simulate(s.w, step);
            if (what == DESTROY_BODY)
                assert_int_equal(p4->move_character(s.w, c, v, step, &st), 0);
            else
                assert_int_equal(p4->move_character(s.w, c, v, step, &st), CT_ERR_NOT_FOUND);
            for (uint32_t k = 0; k < s.n; k++)
                if (s.e[k].id == gone.id)
                    s.e[k--] = s.e[--s.n];
        }
        (void)wall, (void)crate;
        end_scene(&s);
    }
}

/* The settings: add_character's are v4's; set_character_settings refuses NULL and each field out
 * of range (nothing changed), and both calls refuse what is no character. */
static void test_settings_refusals(void **state)
{
    (void)state;
    scene s = new_scene("settings");
    const ct_entity_t c = add_character(&s, 0, 0, 0);
    ct_character_settings_t set;
    assert_int_equal(p5->character_settings(s.w, c, &set), 0);
    assert_float_equal(set.max_step, 0.35f, 0.0f);
    assert_float_equal(set.max_slope, 0.7853982f, 0.0f);
    assert_float_equal(set.step_down, 0.35f, 0.0f);
    assert_float_equal(set.mass, 0.0f, 0.0f);
    assert_float_equal(set.max_strength, CT_PHYSICS_MAX_FORCE, 0.0f);
    const ct_character_settings_t good = {0.4f, 0.8f, 0.5f, 70.0f, 100.0f};
    ct_character_settings_t bad[6] = {good, good, good, good, good, good};
    bad[0].max_step = -0.1f;
    bad[1].max_slope = 1.6f;
    bad[2].step_down = NAN;
    bad[3].mass = -1.0f;
    bad[4].max_strength = 2e12f;
    bad[5].step_down = 2e4f;
    for (int k = 0; k < 6; k++)
        assert_int_equal(p5->set_character_settings(s.w, c, &bad[k]), CT_ERR_INVALID);
    assert_int_equal(p5->set_character_settings(s.w, c, NULL), CT_ERR_INVALID);
    assert_int_equal(p5->character_settings(s.w, c, &set), 0);
    assert_float_equal(set.step_down, 0.35f, 0.0f); /* unchanged */
    assert_int_equal(p5->set_character_settings(s.w, c, &good), 0);
    assert_int_equal(p5->character_settings(s.w, c, &set), 0);
    assert_memory_equal(&set, &good, sizeof set);
    assert_int_equal(p5->character_settings(s.w, c, NULL), CT_ERR_INVALID);
    const ct_entity_t box = add_box(&s, CT_BODY_STATIC, 5, 1, 0, 1, 1, 1, 0);
    assert_int_equal(p5->character_settings(s.w, box, &set), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->set_character_settings(s.w, box, &good), CT_ERR_NOT_FOUND);
    end_scene(&s);
}

/* Lua: Physics.character_contacts lists the last move's contacts: walking into a wall, the floor
 * (normal up) and the wall (normal -x, static, accepted); a body is no character's, refused. */
static void test_lua_character_contacts(void **state)
{
    (void)state;
    scene s = new_scene("lua_contacts");
    const ct_entity_t wall = add_box(&s, CT_BODY_STATIC, 2.0f, 1.5f, 0, 0.25f, 1.5f, 10, 0);
    const ct_entity_t e[3] = {entity->create(), wall, s.e[0]};
    s.e[s.n++] = e[0];
    const char *script =
        "function character_contacts_lua(w, e, wall, floor)\n"
        "  Physics.add_character(w, e, { radius = 0.3, half_height = 0.5, max_step = 0.35,\n"
        "                                max_slope = 0.78, position = {0, 0.8, 0} })\n"
        "  assert(#Physics.character_contacts(w, e) == 0)\n"
        "  for i = 1, 60 do\n"
        "    Physics.move_character(w, e, 2, 0, 0, 1 / 60)\n"
        "    Physics.simulate(w, 1 / 60)\n"
        "  end\n"
        "  local seen = {}\n"
        "  for _, c in ipairs(Physics.character_contacts(w, e)) do seen[c.body] = c end\n"
        "  local f, wc = seen[floor], seen[wall]\n"
        "  assert(f and wc, 'floor and wall listed')\n"
        "  assert(math.abs(f.normal[2] - 1) < 1e-4 and f.kind == 'static' and f.accepted)\n"
        "  assert(math.abs(wc.normal[1] + 1) < 1e-4 and not wc.character, wc.normal[1])\n"
        "  assert(math.abs(wc.point[1] - 1.75) < 0.02, wc.point[1])\n"
        "  assert(not pcall(Physics.character_contacts, w, wall))\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "character_contacts_lua"), 0);
    test_lua_call("character_contacts_lua", s.w, e, 3);
    end_scene(&s);
}

/* Lua: Physics.add_character and Physics.move_character up the same stairs. */
static void test_lua_character(void **state)
{
    (void)state;
    scene s = new_scene("lua_character");
    for (int k = 0; k < 3; k++) {
        const float top = 0.3f * (float)(k + 1);
        add_box(&s, CT_BODY_STATIC, 2.25f + 0.5f * (float)k, 0.5f * top, 0, 0.25f, 0.5f * top, 2,
                0);
    }
    add_box(&s, CT_BODY_STATIC, 5.5f, 0.45f, 0, 1.5f, 0.45f, 2, 0);
    const ct_entity_t e[1] = {entity->create()};
    s.e[s.n++] = e[0];
    const char *script =
        "function character_lua(w, e)\n"
        "  Physics.add_character(w, e, { radius = 0.3, half_height = 0.5, max_step = 0.35,\n"
        "                                max_slope = 0.78, position = {0, 0.8, 0} })\n"
        "  local vy, grounded, ground, x, y, z = 0, false\n"
        "  for i = 1, 150 do\n"
        "    if grounded then vy = 0 else vy = vy - 9.81 / 60 end\n"
        "    grounded, ground, x, y, z = Physics.move_character(w, e, 2, vy, 0, 1 / 60)\n"
        "    Physics.simulate(w, 1 / 60)\n"
        "  end\n"
        "  assert(grounded and x > 4.5, x)\n"
        "  assert(math.abs(y - 0.8 - 0.9) < 0.02, y)\n"
        "  assert(not pcall(Physics.move_character, w, e, 0/0, 0, 0, 1 / 60))\n"
        "  assert(not pcall(Physics.add_character, w, e, { radius = -1 }))\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "character_lua"), 0);
    test_lua_call("character_lua", s.w, e, 1);
    end_scene(&s);
}

/* Lua: add_character takes the settings' fields, character_settings gives them back,
 * set_character_settings changes the ones it names; a refused value raises naming the field, and
 * add_character's leaves no character behind. */
static void test_lua_settings(void **state)
{
    (void)state;
    scene s = new_scene("lua_settings");
    const ct_entity_t e[2] = {entity->create(), entity->create()};
    s.e[s.n++] = e[0];
    s.e[s.n++] = e[1];
    const char *script =
        "function character_settings_lua(w, e, f)\n"
        "  Physics.add_character(w, e, { radius = 0.3, half_height = 0.5, max_step = 0.4,\n"
        "                                max_slope = 0.8, step_down = 0.5, mass = 70,\n"
        "                                max_strength = 100, position = {0, 0.8, 0} })\n"
        "  local t = Physics.character_settings(w, e)\n"
        "  assert(math.abs(t.max_step - 0.4) < 1e-6 and math.abs(t.step_down - 0.5) < 1e-6, "
        "t.step_down)\n"
        "  assert(t.mass == 70 and t.max_strength == 100 and math.abs(t.max_slope - 0.8) < 1e-6)\n"
        "  Physics.set_character_settings(w, e, { mass = 80 })\n"
        "  t = Physics.character_settings(w, e)\n"
        "  assert(t.mass == 80 and t.max_strength == 100, t.mass)\n"
        "  local ok, err = pcall(Physics.set_character_settings, w, e, { step_down = -1 })\n"
        "  assert(not ok and err:find('step_down'), err)\n"
        "  assert(Physics.character_settings(w, e).step_down > 0.49)\n"
        "  ok, err = pcall(Physics.add_character, w, f, { radius = 0.3, half_height = 0.5,\n"
        "                  max_step = 0.4, max_slope = 0.8, max_strength = -5 })\n"
        "  assert(not ok and err:find('max_strength'), err)\n"
        "  assert(not pcall(Physics.character_settings, w, f))\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "character_settings_lua"), 0);
    test_lua_call("character_settings_lua", s.w, e, 2);
    float p[3];
    assert_int_equal(p4->position(s.w, e[1], p), CT_ERR_NOT_FOUND);
    end_scene(&s);
}

/* Lua rides too: a character made and moved from Lua on a kinematic platform going at 1 m/s along
 * x and turning at 0.5 rad/s: after a second of riding it is where its spot of the platform went,
 * grounded on the platform. */
static void test_lua_rides_platform(void **state)
{
    (void)state;
    scene s = new_scene("lua_platform");
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_KINEMATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {3, 0.25f, 3},
                                    .friction = 0.5f,
                                    .position = {0, 1.0f, 0},
                                    .velocity = {1, 0, 0},
                                    .angular_velocity = {0, 0.5f, 0}};
    const ct_entity_t platform = add(&s, &d);
    const ct_entity_t e[2] = {entity->create(), platform};
    s.e[s.n++] = e[0];
    const char *script =
        "function character_rides_lua(w, e, platform)\n"
        "  Physics.add_character(w, e, { radius = 0.3, half_height = 0.5, max_step = 0.35,\n"
        "                                max_slope = 0.78, position = {1, 2.05, 0} })\n"
        "  local grounded, ground, x, y, z\n"
        "  for i = 1, 61 do\n"
        "    grounded, ground, x, y, z = Physics.move_character(w, e, 0, 0, 0, 1 / 60)\n"
        "    Physics.simulate(w, 1 / 60)\n"
        "  end\n"
        "  assert(grounded and ground == platform, ground)\n"
        "  local px = Actor.position(w, platform)\n"
        "  -- It rode from the second step: the platform had gone 1/60 m from under its start,\n"
        "  -- and it turned the rest, 60 steps of 0.5 / 60 rad, about its centre.\n"
        "  local r = 1 - 1 / 60\n"
        "  local ex, ez = r * math.cos(0.5), -r * math.sin(0.5)\n"
        "  assert(math.abs(x - (px + ex)) < 5e-4, x - px - ex)\n"
        "  assert(math.abs(z - ez) < 5e-4, z - ez)\n"
        "  assert(math.abs(y - 2.05) < 0.02, y)\n"
        "end\n";
    assert_int_equal(lua->run_string(script, "character_rides_lua"), 0);
    test_lua_call("character_rides_lua", s.w, e, 2);
    end_scene(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_stairs_up_and_down),
        physics_test(test_slopes),
        physics_test(test_wall_slide),
        physics_test(test_wall_padding),
        physics_test(test_rides_platform),
        physics_test(test_rides_turning_platform),
        physics_test(test_rides_lift_up_and_down),
        physics_test(test_mover_layers_and_masks),
        physics_test(test_pushes_crate_and_refusals),
        physics_test(test_push_is_bounded),
        physics_test(test_step_down),
        physics_test(test_stairs_at_a_slant),
        physics_test(test_weight_on_dynamic_ground),
        physics_test(test_small_dynamic_bodies),
        physics_test(test_characters_collide),
        physics_test(test_contact_callback),
        physics_test(test_contact_callback_misbehaves),
        physics_test(test_settings_refusals),
        physics_test(test_lua_character),
        physics_test(test_lua_rides_platform),
        physics_test(test_lua_settings),
        physics_test(test_lua_character_contacts),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
