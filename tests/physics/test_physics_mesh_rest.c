/* Bodies coming to rest on meshes and height fields (physics_mesh.c): thin boards dropped at
 * seeded random spots and turns onto a height field of 0.1 mm noise and onto a smooth 5 cm swell
 * come to rest on it, not in it. Without the kernel, serial and on two threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FLOOR = 101, FIELD = 102, BOARD = 2 };

/* A height field (FIELD) of 40 x 40 cells of 5 cm, 2 m square about the origin, friction 0.5:
 * a swell of `swell` m, swell sin(0.15 x) cos(0.1 z) at sample (x, z) (slopes up to 8.5 degrees
 * at 5 cm; test_physics_ccd's rough mesh), with noise of up to +-`noise` m on each sample (the
 * generator started at `seed`), under which a static floor box (FLOOR) at y = -0.5 catches what
 * falls through. */
static void field_scene(physics__scene *s, float swell, float noise, uint32_t seed)
{
    enum { SIDE = 41 };
    scene_init(s);
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {5.0f, 0.5f, 5.0f},
                                        .friction = 0.5f,
                                        .position = {0.0f, -1.0f, 0.0f}};
    add(s, FLOOR, floor);
    float heights[SIDE * SIDE];
    rng_state = seed;
    for (uint32_t z = 0; z < SIDE; z++)
        for (uint32_t x = 0; x < SIDE; x++)
            heights[z * SIDE + x] = swell * sinf(0.15f * (float)x) * cosf(0.1f * (float)z) +
                                    frand(-noise, noise);
    physics__mesh *m = height_field(heights, SIDE, SIDE, 0.05f, 0.05f);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_MESH,
                                    .friction = 0.5f,
                                    .position = {-1.0f, 0.0f, -1.0f}};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){FIELD}, &d, m), 0);
}

/* How the board ended after 6 s. */
typedef struct board_end {
    float spin, speed;
    float lowest; /* its centre's lowest height over the field's surface under it, last 5 s */
    bool asleep;
} board_end;

/* The height of the field's surface under (x, z): a ray down from 1 m. */
static float surface_under(const physics__scene *s, float x, float z)
{
    physics__v3 n;
    return 1.0f - physics__ray_mesh(&s->bodies, at(s, FIELD), v3(x, 1.0f, z), v3(0, -1, 0), &n);
}

static board_end settle_board(physics__scene *s)
{
    board_end r = {.lowest = INFINITY};
    for (int step = 0; step < 360; step++) {
        assert_int_equal(physics__scene_step(s, 1.0f / 60.0f), 0);
        const physics__v3 p = s->bodies.position[at(s, BOARD)];
        if (step >= 60)
            r.lowest = f_min(r.lowest, p.y - surface_under(s, p.x, p.z));
    }
    const uint32_t i = at(s, BOARD);
    r.spin = v3_len(s->bodies.angular[i]);
    r.speed = v3_len(s->bodies.velocity[i]);
    r.asleep = s->bodies.asleep[i] != 0;
    return r;
}

/* Drop k of the boards' tests: from 0.3 m, at a seeded random spot within 0.3 m of the middle,
 * turn and tilt (up to 0.3 rad), onto the field of `swell` and `noise` (its own seed). */
static board_end drop_board(uint32_t k, float swell, float noise)
{
    rng_state = 777u + 31u * k;
    const float x = frand(-0.3f, 0.3f), z = frand(-0.3f, 0.3f), yaw = frand(0.0f, 3.14f),
                tilt = frand(-0.3f, 0.3f);
    physics__scene s;
    field_scene(&s, swell, noise, 99u + k);
    add_board(&s, BOARD, x, 0.3f, z, yaw, tilt);
    const board_end r = settle_board(&s);
    physics__scene_free(&s);
    print_message("board %u: lowest %.4f m over the surface, at the end %.4f rad/s, %.4f m/s, %s\n",
                  k, (double)r.lowest, (double)r.spin, (double)r.speed,
                  r.asleep ? "asleep" : "awake");
    return r;
}

/* Boards dropped onto the height field with +-0.1 mm of noise: each rests on it (its centre 1 cm,
 * half its thickness, over the surface from the second second on; asleep at the end). A body over
 * more triangles than a pair keeps (MESH_MAX_FOUND) kept only the deepest: under a board all
 * those of its lower end, so its other end sank, was the lower one at the next find, and the
 * board rocked end to end every step and sank till its centre was under the surface (at -0.5 to
 * -1.2 cm, every drop of 40 tried). */
static void test_boards_rest_on_a_noisy_height_field(void **state)
{
    (void)state;
    for (uint32_t k = 0; k < 4; k++) {
        const board_end r = drop_board(k, 0.0f, 1e-4f);
        assert_true(r.lowest > 0.009f && r.lowest < 0.011f);
        assert_true(r.asleep);
        assert_true(r.spin < 0.01f && r.speed < 0.01f);
    }
}

/* Boards dropped onto the smooth 5 cm swell: each comes to rest (asleep, under 0.05 rad/s and
 * 1 cm/s after 6 s), its centre never under the surface. A board over the swell touches triangles
 * leaning up to some 8 degrees apart, and their manifolds, gathered in one way within 15 degrees
 * and reduced to four points along the mean normal, kept the far corners held by nothing, a
 * centimetre over the surface, for the spread instead of the points it rested on: it rocked on
 * two points, some 1 cm in (17 of 40 drops did not rest; drops 0 and 1 here). */
static void test_boards_rest_on_a_swell(void **state)
{
    (void)state;
    for (uint32_t k = 0; k < 6; k++) {
        const board_end r = drop_board(k, 0.05f, 0.0f);
        assert_true(r.lowest > 0.0f);
        assert_true(r.asleep);
        assert_true(r.spin < 0.05f && r.speed < 0.01f);
    }
}

/* A huge box (20 x 1 x 20 m, 8 t) dropped flat from 0.2 m onto a height field of 10 cm cells
 * (256 x 256, 131,072 triangles) with +-1 mm of noise, sliding at 1 m/s and turning at 0.3 rad/s
 * (so its contacts are searched again every step): its box takes in some 80,000 triangles, and
 * before PHYSICS_MESH_BUDGET every search tested them all (one tested 91,592). Now no search
 * tests more than PHYSICS_MESH_BUDGET, and the box still comes to rest on the field: after 3 s
 * its bottom lies within 2 mm of the highest sample under it, and it has stopped. */
static void test_huge_box_on_a_fine_field_is_bounded(void **state)
{
    (void)state;
    enum { SIDE = 257 };
    physics__scene s;
    scene_init(&s);
    float *heights = malloc(SIDE * SIDE * sizeof *heights);
    assert_non_null(heights);
    rng_state = 4242u;
    for (uint32_t k = 0; k < SIDE * SIDE; k++)
        heights[k] = frand(-1e-3f, 1e-3f);
    float highest = -INFINITY; /* under the box: samples 28 to 228 each way */
    for (uint32_t z = 28; z <= 228; z++)
        for (uint32_t x = 28; x <= 228; x++)
            highest = f_max(highest, heights[z * SIDE + x]);
    physics__mesh *m = height_field(heights, SIDE, SIDE, 0.1f, 0.1f);
    free(heights);
    const ct_rigid_body_desc_t field = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_MESH,
                                        .friction = 0.5f,
                                        .position = {-12.8f, 0.0f, -12.8f}};
    assert_int_equal(physics__bodies_add_mesh(&s.bodies, (ct_entity_t){FIELD}, &field, m), 0);
    const ct_rigid_body_desc_t huge = {.kind = CT_BODY_DYNAMIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {10.0f, 0.5f, 10.0f},
                                       .mass = 8000.0f,
                                       .friction = 0.5f,
                                       .position = {0.0f, 0.7f, 0.0f},
                                       .velocity = {1.0f, 0.0f, 0.0f},
                                       .angular_velocity = {0.0f, 0.3f, 0.0f},
                                       .rotation = {0, 0, 0, 1}};
    add(&s, BOARD, huge);
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    run(&s, 180);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    const uint32_t i = at(&s, BOARD);
    const float gap = s.bodies.position[i].y - 0.5f - highest;
    const float speed = v3_len(s.bodies.velocity[i]), spin = v3_len(s.bodies.angular[i]);
    const uint32_t most = atomic_load(&s.bodies.mesh_tally->most);
    const double ms =
        (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6;
    print_message("huge box: its bottom %.4f m over the highest sample under it, %.4f m/s, %.4f "
                  "rad/s; at most %u triangles tested by one search; %.2f ms of CPU a step\n",
                  (double)gap, (double)speed, (double)spin, most, ms / 180.0);
    assert_true(most > 1000u && most <= PHYSICS_MESH_BUDGET);
    assert_true(gap > -0.002f && gap < 0.002f);
    assert_true(speed < 0.01f && spin < 0.01f);
    physics__scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_boards_rest_on_a_noisy_height_field, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_boards_rest_on_a_swell, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_box_on_a_fine_field_is_bounded, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = physics_fixture_run_groups(tests, sizeof tests / sizeof tests[0], NULL);
    physics_fixture_stop();
    return failed;
}
