/*
 * Bad input (issue 20), as a game reaches the module: through the C API, Lua, and level and unit
 * sources. Degenerate hulls (one point, duplicates, coplanar, on a line), zero-area triangles,
 * NaN or huge values in shapes, heights, inertia and joint anchors are refused with a message
 * naming the world (the file, for sources), the entity and the field; extreme values inside the
 * ranges simulate and stay in them; a joint to a destroyed body goes with it (nothing dangles: its
 * handle answers CT_ERR_NOT_FOUND, a new joint to the dead entity is refused naming it); a chain
 * of 10,000 ball joints steps and stays joined, and goes in one destroy; bodies piled into one
 * spot are cut at the step's pair limit with a message naming the world and where it cut (a
 * million of them is in test_physics_core: it needs the step's insides).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/memory.h"
#include "physics_module_fixture.h"

static const test_world_t *t;

static int boot(void **state)
{
    (void)state;
    t = physics_boot("bad_input");
    return 0;
}

static const float step = 1.0f / 60.0f;

/* A world named `name` and n entities, balls on the first two: what a joint or a refusal test
 * needs around it. */
static ct_world_o *world_of_two_balls(const char *name, ct_entity_t *e, uint32_t n)
{
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = name});
    t->entity->create_batch(e, n);
    const ct_rigid_body_desc_t a = ball_desc(0, 1, 0, 0.5f), b = ball_desc(2, 1, 0, 0.5f);
    assert_int_equal(p4->add_rigid_body(w, e[0], &a), 0);
    assert_int_equal(p4->add_rigid_body(w, e[1], &b), 0);
    return w;
}

/* The call is refused and the log names the world, the entity and `field`. */
static void expect_refused(int err, ct_world_o *w, ct_entity_t e, const char *field)
{
    assert_int_equal(err, CT_ERR_INVALID);
    char world[64], entity[64];
    snprintf(world, sizeof world, "world %p", (void *)w);
    snprintf(entity, sizeof entity, "entit%s %u", strstr(captured, "entities") ? "ies" : "y", e.id);
    if (!strstr(captured, world) || !strstr(captured, entity) || !strstr(captured, field))
        fail_msg("'%s' does not name %s, %s and %s", captured, world, entity, field);
    captured[0] = '\0';
}

/* The call is refused and the log holds "<what>: world <w>, entity <e>: <reason...>". */
static void expect_refused_by(int err, ct_world_o *w, ct_entity_t e, const char *what,
                              const char *reason)
{
    assert_int_equal(err, CT_ERR_INVALID);
    char want[512];
    snprintf(want, sizeof want, "%s: world %p, entity %u: %s", what, (void *)w, e.id, reason);
    if (!strstr(captured, want))
        fail_msg("'%s' does not hold '%s'", captured, want);
    captured[0] = '\0';
}

static void test_nan_and_huge_shapes_and_inertia(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "bad_shapes"});
    const ct_entity_t e = t->entity->create();
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    ct_rigid_body_desc_t d[12];
    for (int k = 0; k < 12; k++)
        d[k] = ball_desc(0, 1, 0, 0.5f);
    d[0].radius = NAN;
    d[1].radius = INFINITY;
    d[2].radius = 2e4f; /* past CT_PHYSICS_MAX_SIZE */
    d[3].shape = CT_BODY_BOX, d[3].half_extents[1] = NAN;
    d[4].shape = CT_BODY_BOX, d[4].half_extents[0] = 3e38f;
    d[5].shape = CT_BODY_CAPSULE, d[5].half_height = NAN;
    d[6].shape = CT_BODY_CAPSULE, d[6].half_height = 1e30f;
    d[7].inertia[0] = NAN, d[7].inertia[1] = 1, d[7].inertia[2] = 1;
    d[8].inertia[0] = 1e30f, d[8].inertia[1] = 1, d[8].inertia[2] = 1;
    d[9].inertia[0] = 1, d[9].inertia[1] = 0, d[9].inertia[2] = 1; /* one axis without */
    d[10].position[1] = NAN;
    d[11].mass = 1e30f;
    static const char *const fields[12] = {
        "radius",      "radius",  "radius",  "half_extents", "half_extents", "half_height",
        "half_height", "inertia", "inertia", "inertia",      "position",     "mass"};
    for (int k = 0; k < 12; k++) {
        expect_refused(p4->add_rigid_body(w, e, &d[k]), w, e, fields[k]);
        assert_int_equal(p4->body_count(w), 0);
    }
    log__set_sink(NULL, NULL);
    t->worlds->destroy_world(w);
    t->entity->destroy(e);
}

/* The extremes the ranges allow, together: a 1e4 m box under a 1 mm sphere of 1e-3 kg, a 1e9 kg
 * box falling on it, a body of inertia [1e-9 1e15 1e-9] spun as fast as allowed. Two seconds of
 * steps keep every body finite and in range, every rotation a rotation. */
static void test_extremes_in_range_stay_in_range(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "extremes"});
    ct_entity_t e[4];
    t->entity->create_batch(e, 4);
    const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC,
                                         .shape = CT_BODY_BOX,
                                         .half_extents = {1e4f, 1e4f, 1e4f},
                                         .position = {0, -1e4f, 0}};
    ct_rigid_body_desc_t grain = ball_desc(0, 0.001f, 0, 0.001f);
    grain.mass = CT_PHYSICS_MIN_MASS;
    ct_rigid_body_desc_t heavy = {.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {1, 1, 1},
                                  .mass = CT_PHYSICS_MAX_MASS,
                                  .friction = 0.5f,
                                  .position = {0, 3, 0},
                                  .velocity = {0, -CT_PHYSICS_MAX_SPEED * 0.5f, 0}};
    ct_rigid_body_desc_t spinner = ball_desc(10, 1, 0, 0.5f);
    spinner.inertia[0] = CT_PHYSICS_MIN_INERTIA, spinner.inertia[1] = CT_PHYSICS_MAX_INERTIA,
    spinner.inertia[2] = CT_PHYSICS_MIN_INERTIA;
    spinner.angular_velocity[0] = CT_PHYSICS_MAX_ANGULAR_SPEED * 0.7f;
    spinner.angular_velocity[2] = CT_PHYSICS_MAX_ANGULAR_SPEED * 0.7f;
    const ct_rigid_body_desc_t *descs[4] = {&ground, &grain, &heavy, &spinner};
    for (int k = 0; k < 4; k++)
        assert_int_equal(p4->add_rigid_body(w, e[k], descs[k]), 0);
    for (int s = 0; s < 120; s++) {
        p4->simulate(w, step);
        for (int k = 1; k < 4; k++) {
            float p[3], v[3], q[4], av[3];
            assert_int_equal(p4->position(w, e[k], p), 0);
            assert_int_equal(p4->velocity(w, e[k], v), 0);
            assert_int_equal(p4->rotation(w, e[k], q), 0);
            assert_int_equal(p4->angular_velocity(w, e[k], av), 0);
            for (int c = 0; c < 3; c++) {
                assert_true(fabsf(p[c]) <= CT_PHYSICS_MAX_POSITION);
                assert_true(fabsf(v[c]) <= CT_PHYSICS_MAX_SPEED);
                assert_true(fabsf(av[c]) <= CT_PHYSICS_MAX_ANGULAR_SPEED);
            }
            assert_float_equal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-3f);
        }
    }
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 4);
}

static void test_nan_and_huge_joint_anchors(void **state)
{
    (void)state;
    ct_entity_t e[2];
    ct_world_o *w = world_of_two_balls("bad_anchors", e, 2);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    ct_joint_desc_t d[6];
    for (int k = 0; k < 6; k++)
        d[k] = (ct_joint_desc_t){.type = CT_JOINT_BALL, .anchor = {1, 1, 0}, .axis = {0, 1, 0}};
    d[0].anchor[0] = NAN;
    d[1].anchor[1] = INFINITY;
    d[2].anchor[2] = -2e5f;
    d[3].type = CT_JOINT_DISTANCE, d[3].anchor_b[0] = NAN;
    d[4].type = CT_JOINT_DISTANCE, d[4].anchor_b[1] = 3e38f;
    d[5].axis[0] = NAN;
    static const char *const fields[6] = {"anchor",   "anchor",   "anchor",
                                          "anchor_b", "anchor_b", "axis"};
    ct_physics_joint_t j;
    for (int k = 0; k < 6; k++)
        expect_refused(p4->add_joint(w, e[0], e[1], &d[k], &j), w, e[0], fields[k]);
    log__set_sink(NULL, NULL);
    assert_int_equal(p4->joint_count(w), 0);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 2);
}

/* A joint to a body that is destroyed goes with it: the handle answers CT_ERR_NOT_FOUND to every
 * call, the surviving body falls freely, and a new joint naming the dead entity is refused naming
 * the world, the entities and the field (a or b) that names it. */
static void test_joint_to_destroyed_body(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "dead_joint"});
    p4->set_sleeping(w, false);
    ct_entity_t e[3];
    t->entity->create_batch(e, 3);
    const ct_rigid_body_desc_t a = ball_desc(0, 1, 0, 0.2f), b = ball_desc(0, 0, 0, 0.2f),
                               c = ball_desc(3, 0, 0, 0.2f);
    assert_int_equal(p4->add_rigid_body(w, e[0], &a), 0);
    assert_int_equal(p4->add_rigid_body(w, e[1], &b), 0);
    assert_int_equal(p4->add_rigid_body(w, e[2], &c), 0);
    const ct_joint_desc_t hold = {.type = CT_JOINT_BALL, .anchor = {0, 1, 0}, .axis = {0, 1, 0}};
    const ct_joint_desc_t link = {.type = CT_JOINT_BALL, .anchor = {0, 0.5f, 0}, .axis = {0, 1, 0}};
    ct_physics_joint_t j_top, j_link;
    assert_int_equal(p4->add_joint(w, e[0], (ct_entity_t){0}, &hold, &j_top), 0);
    assert_int_equal(p4->add_joint(w, e[1], e[0], &link, &j_link), 0);
    for (int s = 0; s < 10; s++)
        p4->simulate(w, step);
    t->entity->destroy(e[0]); /* the body in the middle: both joints go */
    assert_int_equal(p4->joint_count(w), 0);
    float f[3], tq[3], v;
    assert_int_equal(p4->joint_force(w, j_link, f, tq), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->joint_value(w, j_top, &v), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->set_joint_motor(w, j_link, 1, 1), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->remove_joint(w, j_link), CT_ERR_NOT_FOUND);
    ct_physics_joint_t j;
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    assert_int_equal(p4->add_joint(w, e[2], e[0], &link, &j), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->add_joint(w, e[0], e[2], &link, &j), CT_ERR_NOT_FOUND);
    log__set_sink(NULL, NULL);
    char want[2][256];
    snprintf(want[0], sizeof want[0],
             "add_joint: world %p, entities %u and %u: b (entity %u has no body in this world",
             (void *)w, e[2].id, e[0].id, e[0].id);
    snprintf(want[1], sizeof want[1],
             "add_joint: world %p, entities %u and %u: a (entity %u has no body in this world",
             (void *)w, e[0].id, e[2].id, e[0].id);
    if (!strstr(captured, want[0]) || !strstr(captured, want[1]))
        fail_msg("'%s' does not name the world, the entities and the field", captured);
    for (int s = 0; s < 30; s++)
        p4->simulate(w, step);
    float p[3];
    assert_int_equal(p4->position(w, e[1], p), 0);
    /* Half a second of free fall from where it hung: 1.226 m (and a little swing speed). */
    assert_true(p[1] < -1.0f);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* A chain of 10,000 balls (0.1 m, 1 kg, 0.25 m apart) held to the world at one end, dropped
 * from the horizontal: it steps (one step's work is linear in its links), stays joined and
 * finite, and one destroy of all its bodies takes every joint with it. */
static void test_chain_of_10000(void **state)
{
    (void)state;
    enum { N = 10000 };
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "chain"});
    p4->set_sleeping(w, false);
    ct_entity_t *e = malloc(N * sizeof *e);
    assert_non_null(e);
    t->entity->create_batch(e, N);
    for (int k = 0; k < N; k++) {
        const ct_rigid_body_desc_t d = ball_desc(0.25f * (float)k, 0, 0, 0.1f);
        assert_int_equal(p4->add_rigid_body(w, e[k], &d), 0);
        const ct_joint_desc_t link = {
            .type = CT_JOINT_BALL, .anchor = {0.25f * (float)k - 0.125f, 0, 0}, .axis = {1, 0, 0}};
        ct_physics_joint_t j;
        assert_int_equal(p4->add_joint(w, e[k], k ? e[k - 1] : (ct_entity_t){0}, &link, &j), 0);
    }
    assert_int_equal(p4->joint_count(w), N);
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    for (int s = 0; s < 30; s++)
        p4->simulate(w, step);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    print_message(
        "10,000 links: %.2f ms of CPU a step (this thread)\n",
        ((double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6) / 30.0);
    float worst = 0.0f, prev[3] = {-0.125f, 0, 0};
    for (int k = 0; k < N; k++) {
        float p[3];
        assert_int_equal(p4->position(w, e[k], p), 0);
        assert_true(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]));
        const float d =
            sqrtf((p[0] - prev[0]) * (p[0] - prev[0]) + (p[1] - prev[1]) * (p[1] - prev[1]) +
                  (p[2] - prev[2]) * (p[2] - prev[2]));
        const float gap = fabsf(d - (k ? 0.25f : 0.125f));
        worst = gap > worst ? gap : worst;
        memcpy(prev, p, sizeof p);
    }
    print_message("10,000 links after 30 steps: the largest change of a link's length %.4f m\n",
                  (double)worst);
    assert_true(worst < 0.05f);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    t->entity->destroy_batch(e, N);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    print_message("destroying the chain: %.3f ms of CPU\n",
                  (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6);
    assert_int_equal(p4->joint_count(w), 0);
    assert_int_equal(p4->body_count(w), 0);
    p4->simulate(w, step);
    t->worlds->destroy_world(w);
    free(e);
}

/* Degenerate hulls (one point, duplicates, coplanar, on a line, NaN or huge points), the same as
 * a compound's child, zero-area and NaN or huge triangles, NaN or huge heights: each add is
 * refused naming the world, the entity and the field with its reason, and adds nothing. */
static void test_degenerate_shapes_name_world_entity_field(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "bad_shapes_v5"});
    const ct_entity_t e = t->entity->create();
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    const ct_rigid_body_desc_t hull = {.kind = CT_BODY_DYNAMIC,
                                       .shape = CT_BODY_HULL,
                                       .mass = 1.0f,
                                       .friction = 0.5f,
                                       .position = {0, 1, 0}};
    float cube[24], q[24];
    unit_cube_points(cube);
    expect_refused_by(p5->add_hull_body(w, e, &hull, cube, 1), w, e, "add_hull_body",
                      "points (one point: a hull needs at least 4");
    memcpy(q, cube, sizeof q);
    q[15] = q[3], q[16] = q[4], q[17] = q[5] + 1e-4f; /* point 5 on point 1 */
    expect_refused_by(p5->add_hull_body(w, e, &hull, q, 8), w, e, "add_hull_body",
                      "points (points 1 and 5 are duplicates: closer than 1e-3 m)");
    const float flat[15] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1, 0.2f, 0, 0.3f};
    expect_refused_by(p5->add_hull_body(w, e, &hull, flat, 5), w, e, "add_hull_body",
                      "points (coplanar: all on one plane, they span no volume)");
    const float line[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    expect_refused_by(p5->add_hull_body(w, e, &hull, line, 4), w, e, "add_hull_body",
                      "points (all on one line: they span no volume)");
    const float bad_values[3] = {NAN, INFINITY, 3e38f};
    for (int k = 0; k < 3; k++) {
        memcpy(q, cube, sizeof q);
        q[7] = bad_values[k];
        expect_refused_by(p5->add_hull_body(w, e, &hull, q, 8), w, e, "add_hull_body",
                          "points (point 2 is NaN, infinite or outside +-1e4 m)");
    }
    /* A good hull with a NaN or huge inertia given for it, or a NaN mass. */
    ct_rigid_body_desc_t bad_body = hull;
    for (int k = 0; k < 3; k++) {
        bad_body.inertia[0] = bad_values[k], bad_body.inertia[1] = bad_body.inertia[2] = 1.0f;
        expect_refused_by(p5->add_hull_body(w, e, &bad_body, cube, 8), w, e, "add_hull_body",
                          "inertia (each within [1e-9, 1e15] kg m^2, or all zero)");
    }
    bad_body = hull;
    bad_body.mass = NAN;
    expect_refused_by(p5->add_hull_body(w, e, &bad_body, cube, 8), w, e, "add_hull_body",
                      "mass (a dynamic body needs a mass within [1e-6, 1e9] kg)");
    ct_rigid_body_desc_t compound = hull;
    compound.shape = CT_BODY_COMPOUND;
    bad_body = compound;
    bad_body.inertia[1] = NAN, bad_body.inertia[0] = bad_body.inertia[2] = 1.0f;
    const ct_compound_child_t ball = {.shape = CT_BODY_SPHERE, .radius = 0.5f};
    expect_refused_by(p5->add_compound_body(w, e, &bad_body, &ball, 1), w, e, "add_compound_body",
                      "inertia (each within [1e-9, 1e15] kg m^2, or all zero)");
    ct_compound_child_t children[2] = {
        {.shape = CT_BODY_SPHERE, .radius = 0.5f},
        {.shape = CT_BODY_HULL, .points = flat, .point_count = 5, .position = {0, 1, 0}},
    };
    expect_refused_by(p5->add_compound_body(w, e, &compound, children, 2), w, e,
                      "add_compound_body", "children[1].points (coplanar");
    children[1] = (ct_compound_child_t){.shape = CT_BODY_HULL, .points = cube, .point_count = 1};
    expect_refused_by(p5->add_compound_body(w, e, &compound, children, 2), w, e,
                      "add_compound_body", "children[1].points (one point");
    children[1] = (ct_compound_child_t){.shape = CT_BODY_SPHERE, .radius = NAN};
    expect_refused_by(p5->add_compound_body(w, e, &compound, children, 2), w, e,
                      "add_compound_body", "children[1].radius (must be within [1e-3, 1e4] m)");
    children[1] = (ct_compound_child_t){.shape = CT_BODY_BOX, .half_extents = {1, 3e38f, 1}};
    expect_refused_by(p5->add_compound_body(w, e, &compound, children, 2), w, e,
                      "add_compound_body", "children[1].half_extents");
    const ct_rigid_body_desc_t mesh = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
    float v[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0, 0};
    const uint32_t flat_tri[6] = {0, 2, 1, 0, 1, 3}, one[3] = {0, 2, 1};
    expect_refused_by(p5->add_mesh_body(w, e, &mesh, v, 4, flat_tri, 2), w, e, "add_mesh_body",
                      "indices (triangle 1 has no area");
    for (int k = 0; k < 3; k++) {
        v[4] = bad_values[k];
        expect_refused_by(p5->add_mesh_body(w, e, &mesh, v, 4, one, 1), w, e, "add_mesh_body",
                          "vertices (vertex 1 is NaN, infinite or outside +-1e5 m)");
    }
    float heights[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        heights[4] = bad_values[k];
        expect_refused_by(p5->add_height_field_body(w, e, &mesh, heights, 3, 3, 1, 1), w, e,
                          "add_height_field_body",
                          "heights (a sample is NaN, infinite or outside +-1e5 m)");
    }
    log__set_sink(NULL, NULL);
    assert_int_equal(p5->body_count(w), 0);
    t->worlds->destroy_world(w);
    t->entity->destroy(e);
}

/* The log holds `want` and "cut at entities A and B" naming two of the n bodies e, and every one
 * of them is still finite after the cut step. */
static void expect_cut(const char *want, ct_world_o *w, const ct_entity_t *e, int n)
{
    const char *cut = strstr(captured, "cut at entities ");
    unsigned a = 0, b = 0;
    if (!strstr(captured, want) || !cut || sscanf(cut, "cut at entities %u and %u", &a, &b) != 2)
        fail_msg("'%s' does not hold '%s' and the pair where it cut", captured, want);
    bool named_a = false, named_b = false;
    for (int k = 0; k < n; k++) {
        named_a |= e[k].id == a, named_b |= e[k].id == b;
        float p[3];
        assert_int_equal(p4->position(w, e[k], p), 0);
        assert_true(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]));
    }
    assert_true(named_a && named_b && a != b);
}

/* Four hundred balls dropped into one spot make 79,800 candidate pairs, past the step's limit
 * (65,536, or 64 a body when more; test_physics_core drops a million): the step cuts them there, ends, and says so naming the world, the two entities of the
 * pair where it cut and the position; every ball stays finite. */
static void test_pile_in_one_spot_names_world_entity(void **state)
{
    (void)state;
    enum { N = 400 };
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "one_spot"});
    ct_entity_t e[N];
    t->entity->create_batch(e, N);
    for (int k = 0; k < N; k++) {
        const ct_rigid_body_desc_t d = ball_desc(0, 1, 0, 0.5f);
        assert_int_equal(p4->add_rigid_body(w, e[k], &d), 0);
    }
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    p4->simulate(w, step);
    log__set_sink(NULL, NULL);
    char want[160];
    snprintf(want, sizeof want, "simulate: world %p: %u bodies make more than %u candidate pairs",
             (void *)w, N, 65536u);
    if (!strstr(captured, ", position ("))
        fail_msg("'%s' does not name the position", captured);
    expect_cut(want, w, e, N);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, N);
}

/* What the Lua refusal scripts share: bad_world, the world `w` as messages name it,
 * refused(words, f, ...), which asserts that f(...) raises an error naming every one of words,
 * and unit_cube() (physics_lua_unit_cube); then `script` (chunk `chunk`). */
static void load_refusals(ct_world_o *w, const char *script, const char *chunk)
{
    static const char refused[] =
        "function refused(words, f, ...)\n"
        "  local ok, err = pcall(f, ...)\n"
        "  assert(not ok, 'accepted: ' .. words[#words])\n"
        "  for _, word in ipairs(words) do\n"
        "    assert(err:find(word, 1, true), err .. ' does not name ' .. word)\n"
        "  end\n"
        "end\n";
    char name[64];
    snprintf(name, sizeof name, "bad_world = 'world %p'\n", (void *)w);
    assert_int_equal(t->lua->run_string(name, "bad_world"), 0);
    assert_int_equal(t->lua->run_string(refused, "refused"), 0);
    physics_lua_unit_cube();
    assert_int_equal(t->lua->run_string(script, chunk), 0);
}

/* The same refusals from Lua: each call raises an error naming the world, the entity (or the
 * joint's two) and the field with its reason, and adds nothing; a joint to an entity destroyed a
 * moment ago is refused naming the field that names it. */
static const char lua_refusals[] =
    "function bad_lua(w, a, b, x)\n"
    "  local W, X = bad_world, 'entity ' .. x\n"
    "  local cube = unit_cube()\n"
    "  local function with(t, k, v) local c = {unpack(t)}; c[k] = v; return c end\n"
    "  refused({W, X, 'points (one point'}, Physics.add_hull, w, x, {0, 0, 0})\n"
    "  local dup = with(with(with(cube, 16, cube[4]), 17, cube[5]), 18, cube[6])\n"
    "  refused({W, X, 'points (points 1 and 5 are duplicates'}, Physics.add_hull, w, x, dup)\n"
    "  local flat = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1, 0.2, 0, 0.3}\n"
    "  refused({W, X, 'points (coplanar'}, Physics.add_hull, w, x, flat)\n"
    "  refused({W, X, 'points (point 2 is NaN, infinite or outside'}, Physics.add_hull, w, x,\n"
    "          with(cube, 8, 1e30))\n"
    "  refused({'argument 3 holds something that is not a finite number'}, Physics.add_hull,\n"
    "          w, x, with(cube, 8, 0 / 0))\n"
    "  refused({W, X, 'children[1].points (coplanar'}, Physics.add_compound, w, x,\n"
    "          { { shape = 'sphere', radius = 0.5 }, { shape = 'hull', points = flat } })\n"
    "  refused({W, X, 'children[0].radius'}, Physics.add_compound, w, x,\n"
    "          { { shape = 'sphere', radius = 1e30 } })\n"
    "  local v = {0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0, 0}\n"
    "  refused({W, X, 'indices (triangle 1 has no area'}, Physics.add_mesh, w, x, v,\n"
    "          {1, 3, 2, 1, 2, 4})\n"
    "  refused({W, X, 'vertices (vertex 1 is NaN, infinite or outside'}, Physics.add_mesh, w,\n"
    "          x, with(v, 5, 1e30), {1, 3, 2})\n"
    "  refused({W, X, 'heights (a sample is NaN, infinite or outside'},\n"
    "          Physics.add_height_field, w, x, {0, 0, 0, 1e30}, 2, 2, 1, 1)\n"
    "  local AB = 'entities ' .. a .. ' and ' .. b\n"
    "  refused({W, AB, 'anchor (each coordinate within'}, Physics.add_joint, w, a, b, 'ball',\n"
    "          { anchor = {1e30, 0, 0}, axis = {0, 1, 0} })\n"
    "  refused({W, AB, 'axis'}, Physics.add_joint, w, a, b, 'hinge', { axis = {0, 0, 0} })\n"
    "  refused({W, 'entities ' .. a .. ' and ' .. x, 'b (entity ' .. x .. ' has no body'},\n"
    "          Physics.add_joint, w, a, x, 'ball', { axis = {0, 1, 0} })\n"
    "end\n"
    "function bad_lua_dead(w, a, dead)\n"
    "  local ok, err = pcall(Physics.add_joint, w, a, dead, 'ball', { axis = {0, 1, 0} })\n"
    "  assert(not ok and err:find(bad_world, 1, true) and\n"
    "         err:find('b (entity ' .. dead .. ' has no body', 1, true), err)\n"
    "end\n";

static void test_lua_refusals_name_world_entity_field(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_of_two_balls("bad_lua", e, 3);
    load_refusals(w, lua_refusals, "bad_lua");
    log__set_sink(capture, NULL); /* the C side logs each refusal too */
    test_lua_call("bad_lua", w, e, 3);
    assert_int_equal(p4->body_count(w), 2);
    assert_int_equal(p4->joint_count(w), 0);
    t->entity->destroy(e[1]);
    const ct_entity_t dead[2] = {e[0], e[1]};
    test_lua_call("bad_lua_dead", w, dead, 2);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    t->worlds->destroy_world(w);
    t->entity->destroy(e[0]);
    t->entity->destroy(e[2]);
}

/* A world named `name` with a floor (e[0]) and a character standing on it (e[1]); e[2] is
 * created with no body, for the tests' own use. */
static ct_world_o *world_with_character(const char *name, ct_entity_t e[3])
{
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = name});
    t->entity->create_batch(e, 3);
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {10, 0.5f, 10},
                                        .position = {0, -0.5f, 0}};
    assert_int_equal(p4->add_rigid_body(w, e[0], &floor), 0);
    const ct_character_desc_t cd = {.radius = 0.3f,
                                    .half_height = 0.5f,
                                    .max_step = 0.3f,
                                    .max_slope = 0.7f,
                                    .position = {0, 0.8f, 0}};
    assert_int_equal(p4->add_character(w, e[1], &cd), 0);
    return w;
}

/* The members v5 gained last (shape_cast, the character settings and contacts) with bad input,
 * from C: NULL arguments, NaN, infinite and huge values, a destroyed character, a list too short,
 * a world that is none. Each is refused (false, CT_ERR_INVALID or CT_ERR_NOT_FOUND as documented)
 * with the log naming the world, the entity when there is one, and the field; nothing changes.
 * Before, shape_cast with a NULL out returned false without a word. */
static void test_v5_members_refuse_bad_input(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_with_character("bad_v5", e);
    captured[0] = '\0';
    log__set_sink(capture, NULL);

    /* shape_cast: every argument NULL in turn, then values out of range. */
    const ct_rigid_body_desc_t ball = {.shape = CT_BODY_SPHERE, .radius = 0.25f};
    const float from[3] = {3, 5, 0}, down[3] = {0, -10, 0};
    ct_physics_hit_t hit;
    char world[64];
    snprintf(world, sizeof world, "shape_cast: world %p: ", (void *)w);
    static const char *const null_fields[4] = {"shape", "from", "motion", "out"};
    for (int k = 0; k < 4; k++) {
        assert_false(p5->shape_cast(w, k == 0 ? NULL : &ball, k == 1 ? NULL : from,
                                    k == 2 ? NULL : down, UINT32_MAX, k == 3 ? NULL : &hit));
        if (!strstr(captured, world) || !strstr(captured, null_fields[k]) ||
            !strstr(captured, "NULL"))
            fail_msg("shape_cast with %s NULL: '%s'", null_fields[k], captured);
        captured[0] = '\0';
    }
    ct_rigid_body_desc_t bad[7] = {ball, ball, ball, ball, ball, ball, ball};
    bad[0].radius = NAN;
    bad[1].radius = INFINITY;
    bad[2].radius = 2e4f;
    bad[3].shape = CT_BODY_BOX, bad[3].half_extents[0] = NAN;
    bad[4].shape = CT_BODY_CAPSULE, bad[4].half_height = 1e30f;
    bad[5].shape = CT_BODY_HULL;
    bad[6].rotation[0] = NAN, bad[6].rotation[3] = 1.0f;
    static const char *const bad_fields[7] = {"radius",      "radius", "radius",  "half_extents",
                                              "half_height", "shape",  "rotation"};
    for (int k = 0; k < 7; k++) {
        assert_false(p5->shape_cast(w, &bad[k], from, down, UINT32_MAX, &hit));
        if (!strstr(captured, world) || !strstr(captured, bad_fields[k]))
            fail_msg("shape_cast %d: '%s' does not name %s", k, captured, bad_fields[k]);
        captured[0] = '\0';
    }
    const float nan3[3] = {NAN, 0, 0}, huge3[3] = {0, 3e5f, 0}, inf3[3] = {0, 0, INFINITY};
    assert_false(p5->shape_cast(w, &ball, nan3, down, UINT32_MAX, &hit));
    assert_non_null(strstr(captured, "from ("));
    assert_false(p5->shape_cast(w, &ball, from, huge3, UINT32_MAX, &hit));
    assert_false(p5->shape_cast(w, &ball, from, inf3, UINT32_MAX, &hit));
    assert_non_null(strstr(captured, "motion ("));
    captured[0] = '\0';
    assert_false(p5->shape_cast(NULL, &ball, from, down, UINT32_MAX, &hit));
    assert_non_null(strstr(captured, "shape_cast: (nil) is not a world with physics"));
    captured[0] = '\0';
    /* The good cast still works: the floor, 4.75 m down. */
    assert_true(p5->shape_cast(w, &ball, from, down, UINT32_MAX, &hit));
    assert_int_equal(hit.entity, e[0].id);
    assert_float_equal(hit.distance, 4.75f, 2e-3f);

    /* Character settings: NaN, infinite and huge in each field, NULL; nothing changed. */
    ct_character_settings_t was, now;
    assert_int_equal(p5->character_settings(w, e[1], &was), 0);
    static const char *const setting[5] = {"max_step", "max_slope", "step_down", "mass",
                                           "max_strength"};
    const float values[3] = {NAN, INFINITY, 3e38f};
    for (int f = 0; f < 5; f++)
        for (int v = 0; v < 3; v++) {
            ct_character_settings_t set = was;
            ((float *)&set)[f] = values[v];
            expect_refused(p5->set_character_settings(w, e[1], &set), w, e[1], setting[f]);
        }
    expect_refused(p5->set_character_settings(w, e[1], NULL), w, e[1], "settings (NULL)");
    expect_refused(p5->character_settings(w, e[1], NULL), w, e[1], "out (NULL)");
    assert_int_equal(p5->character_settings(w, e[1], &now), 0);
    assert_memory_equal(&now, &was, sizeof now);
    /* What is no character: a body, an entity without one, a world without physics. */
    assert_int_equal(p5->set_character_settings(w, e[0], &was), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->character_settings(w, e[2], &now), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->character_settings(NULL, e[1], &now), CT_ERR_NOT_FOUND);

    /* Contacts: a list too short takes what fits and says how many there were; NULL with room
     * for none; NULL with room claimed writes nothing (and does not crash). */
    const float walk[3] = {1, -1, 0};
    ct_character_state_t st;
    assert_int_equal(p4->move_character(w, e[1], walk, step, &st), 0);
    ct_character_contact_t list[2] = {{0}, {0}};
    const uint32_t n = p5->character_contacts(w, e[1], list, 0);
    assert_true(n >= 1);
    assert_int_equal(p5->character_contacts(w, e[1], NULL, 5), n);
    assert_int_equal(p5->character_contacts(w, e[1], list, 1), n);
    assert_int_equal(list[0].body, e[0].id);
    assert_int_equal(list[1].body, 0);
    /* A move refuses NaN, infinite and too fast velocities and dt, naming the field. */
    const float vnan[3] = {NAN, 0, 0}, vfast[3] = {2e4f, 0, 0};
    expect_refused(p4->move_character(w, e[1], vnan, step, &st), w, e[1], "velocity");
    expect_refused(p4->move_character(w, e[1], vfast, step, &st), w, e[1], "velocity");
    expect_refused(p4->move_character(w, e[1], NULL, step, &st), w, e[1], "velocity missing");
    expect_refused(p4->move_character(w, e[1], walk, NAN, &st), w, e[1], "dt");
    expect_refused(p4->move_character(w, e[1], walk, INFINITY, &st), w, e[1], "dt");

    /* Destroyed: every call says so, nothing crashes. */
    t->entity->destroy(e[1]);
    assert_int_equal(p5->set_character_settings(w, e[1], &was), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->character_settings(w, e[1], &now), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->set_character_contact_callback(w, e[1], NULL, NULL), CT_ERR_NOT_FOUND);
    assert_int_equal(p5->character_contacts(w, e[1], list, 2), 0);
    assert_int_equal(p4->move_character(w, e[1], walk, step, &st), CT_ERR_NOT_FOUND);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    p4->simulate(w, step);
    t->worlds->destroy_world(w);
    t->entity->destroy(e[0]);
    t->entity->destroy(e[2]);
}

/* The same from Lua, with wrong types too: each raises an error naming the function and what was
 * wrong (the world, the entity and the field where the C side names them). */
static const char lua_v5_refusals[] =
    "function bad_lua_v5(w, floor, c, x)\n"
    "  local C = 'entity ' .. c\n"
    "  local ball = { shape = 'sphere', radius = 0.25 }\n"
    "  refused({'Physics.shape_cast', 'argument 1'}, Physics.shape_cast, nil, ball, 0, 5, 0, 0, "
    "-1, 0)\n"
    "  refused({'Physics.shape_cast', 'argument 2'}, Physics.shape_cast, w, 'ball', 0, 5, 0, 0, "
    "-1, 0)\n"
    "  refused({'Physics.shape_cast', 'shape'}, Physics.shape_cast, w, { shape = 7 }, 0, 5, 0, 0, "
    "-1, 0)\n"
    "  refused({'Physics.shape_cast', 'radius'}, Physics.shape_cast, w, { shape = 'sphere', radius "
    "= 'big' }, 0, 5, 0, 0, -1, 0)\n"
    "  refused({'Physics.shape_cast', 'radius'}, Physics.shape_cast, w, { shape = 'sphere', radius "
    "= 0 / 0 }, 0, 5, 0, 0, -1, 0)\n"
    "  refused({'Physics.shape_cast', 'half_extents'}, Physics.shape_cast, w, { shape = 'box', "
    "half_extents = 3 }, 0, 5, 0, 0, -1, 0)\n"
    "  refused({'Physics.shape_cast', 'rotation'}, Physics.shape_cast, w, { shape = 'box', "
    "half_extents = {1, 1, 1}, rotation = {0, 0, 'a', 1} }, 0, 5, 0, 0, -1, 0)\n"
    "  refused({'Physics.shape_cast', 'argument 3'}, Physics.shape_cast, w, ball, 'x', 5, 0, 0, "
    "-1, 0)\n"
    "  refused({'Physics.shape_cast', 'motion'}, Physics.shape_cast, w, ball, 0, 5, 0, 0, -1e30, "
    "0)\n"
    "  refused({'Physics.shape_cast', 'argument 9'}, Physics.shape_cast, w, ball, 0, 5, 0, 0, -1, "
    "0, -1)\n"
    "  refused({'Physics.set_character_settings', 'argument 3'}, Physics.set_character_settings, "
    "w, c, 5)\n"
    "  refused({'Physics.set_character_settings', 'mass'}, Physics.set_character_settings, w, c, { "
    "mass = 'heavy' })\n"
    "  refused({'Physics.set_character_settings', 'mass', 'finite'}, "
    "Physics.set_character_settings, w, c, { mass = 0 / 0 })\n"
    "  refused({'Physics.set_character_settings', bad_world, C, 'step_down'}, "
    "Physics.set_character_settings, w, c, { step_down = 1e30 })\n"
    "  refused({'Physics.set_character_settings', bad_world, C, 'max_slope'}, "
    "Physics.set_character_settings, w, c, { max_slope = -1 })\n"
    "  refused({'Physics.set_character_settings', 'entity ' .. floor, 'not a character'}, "
    "Physics.set_character_settings, w, floor, { mass = 1 })\n"
    "  refused({'Physics.character_settings', 'argument 2'}, Physics.character_settings, w, 1.5)\n"
    "  refused({'Physics.character_settings', 'entity ' .. x, 'not a character'}, "
    "Physics.character_settings, w, x)\n"
    "  refused({'Physics.character_contacts', 'argument 1'}, Physics.character_contacts, 'w', c)\n"
    "  refused({'Physics.character_contacts', 'entity ' .. floor, 'not a character'}, "
    "Physics.character_contacts, w, floor)\n"
    "  refused({'Physics.move_character', C, 'dt'}, Physics.move_character, w, c, 1, 0, 0, 0 / 0)\n"
    "  refused({'Physics.move_character', 'argument 3'}, Physics.move_character, w, c, 'fast', 0, "
    "0, 1 / 60)\n"
    "  assert(Physics.character_settings(w, c).mass == 0)\n"
    "  assert(#Physics.character_contacts(w, c) == 0)\n"
    "end\n";

static void test_lua_v5_members_refuse_bad_input(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_with_character("bad_lua_v5", e);
    load_refusals(w, lua_v5_refusals, "bad_lua_v5");
    log__set_sink(capture, NULL);
    test_lua_call("bad_lua_v5", w, e, 3);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* ---- destroying bodies from event handlers ---- */

/* Two 1 kg boxes (half size 0.4) on a floor 1.2 m apart, joined by a ball joint between them,
 * asleep after two seconds; a ball (0.2 m) above the first, a static sensor around the second.
 * e: floor, box a, box b, ball, sensor. */
static ct_physics_joint_t joined_pair(ct_world_o *w, const ct_entity_t e[5])
{
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {10, 0.5f, 10},
                                        .friction = 0.6f,
                                        .position = {0, -0.5f, 0}};
    ct_rigid_body_desc_t box = {.kind = CT_BODY_DYNAMIC,
                                .shape = CT_BODY_BOX,
                                .half_extents = {0.4f, 0.4f, 0.4f},
                                .mass = 1,
                                .friction = 0.6f,
                                .position = {0, 0.4f, 0}};
    assert_int_equal(p4->add_rigid_body(w, e[0], &floor), 0);
    assert_int_equal(p4->add_rigid_body(w, e[1], &box), 0);
    box.position[0] = 1.2f;
    assert_int_equal(p4->add_rigid_body(w, e[2], &box), 0);
    const ct_joint_desc_t link = {
        .type = CT_JOINT_BALL, .anchor = {0.6f, 0.4f, 0}, .axis = {1, 0, 0}};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e[1], e[2], &link, &j), 0);
    for (int k = 0; k < 120; k++)
        p4->simulate(w, step);
    assert_true(p4->sleeping(w, e[1]) && p4->sleeping(w, e[2]));
    const ct_rigid_body_desc_t ball = ball_desc(0, 2.0f, 0, 0.2f);
    assert_int_equal(p4->add_rigid_body(w, e[3], &ball), 0);
    const ct_rigid_body_desc_t zone = {.kind = CT_BODY_STATIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {0.6f, 0.6f, 0.6f},
                                       .position = {1.2f, 0.4f, 0}};
    assert_int_equal(p4->add_rigid_body(w, e[4], &zone), 0);
    assert_int_equal(p5->set_sensor(w, e[4], true), 0);
    return j;
}

/* What is left after the ball hit box a and both were destroyed: the joint went with a, b woke
 * (what it was joined to went) and steps on by itself; the floor and the sensor stay. */
static void after_the_hit(ct_world_o *w, const ct_entity_t e[5], ct_physics_joint_t j)
{
    float p[3], f[3], tq[3];
    assert_int_equal(p4->joint_count(w), 0);
    assert_int_equal(p4->joint_force(w, j, f, tq), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->position(w, e[1], p), CT_ERR_NOT_FOUND);
    assert_int_equal(p4->position(w, e[3], p), CT_ERR_NOT_FOUND);
    for (int k = 0; k < 60; k++)
        p4->simulate(w, step);
    assert_int_equal(p4->position(w, e[2], p), 0);
    assert_float_equal(p[0], 1.2f, 0.01f);
    assert_float_equal(p[1], 0.4f, 0.01f);
    print_message("after the hit: %u bodies, b at (%.4f %.4f %.4f), b asleep %d\n",
                  p4->body_count(w), (double)p[0], (double)p[1], (double)p[2],
                  p4->sleeping(w, e[2]));
}

/* A game's handler of the step's events destroys what it reads about: from C, walking the event
 * stream of the step the ball hit the sleeping, jointed box a, it destroys a and the ball at the
 * collision event and walks on (the stream stays as the step wrote it); from Lua, an on_collision
 * callback destroys both, and an on_sensor_enter callback the sensor itself. Nothing dangles
 * (ASan), the joint goes with a, b wakes and steps on alone. (This held before: the handlers run
 * between steps, and removing a body drops its joints and wakes what it touched.) */
static void test_destroy_in_event_handlers(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "destroy_c"});
    ct_entity_t e[5];
    t->entity->create_batch(e, 5);
    const ct_physics_joint_t j = joined_pair(w, e);
    bool hit = false;
    for (int k = 0; k < 60 && !hit; k++) {
        p4->simulate(w, step);
        uint32_t size, at = 0, after = 0;
        const void *stream = p4->events(w, &size);
        for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(stream, size, &at));) {
            after += hit;
            if (h->type != CT_PHYSICS_EVENT_COLLISION || hit)
                continue;
            ct_physics_collision_event_t c;
            memcpy(&c, h + 1, sizeof c);
            if ((c.a == e[1].id && c.b == e[3].id) || (c.a == e[3].id && c.b == e[1].id)) {
                hit = true;
                t->entity->destroy(e[1]);
                t->entity->destroy(e[3]);
            }
        }
        if (hit)
            print_message("C handler: the hit in step %d, %u events read after it\n", k, after);
    }
    assert_true(hit);
    after_the_hit(w, e, j);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 5);

    w = t->worlds->create_world(&(ct_world_desc_t){.name = "destroy_lua"});
    t->entity->create_batch(e, 5);
    const ct_physics_joint_t j2 = joined_pair(w, e);
    const char *script =
        "function destroy_watch(w, floor, a, b, ball, zone)\n"
        "  destroyed, left = 0, 0\n"
        "  World.set_callback(w, a, 'on_collision', function(self, other)\n"
        "    if other == ball then Entity.destroy(self); Entity.destroy(other); destroyed = 2 end\n"
        "  end)\n"
        "  World.set_callback(w, zone, 'on_sensor_enter', function(self, other)\n"
        "    Entity.destroy(self); left = left + 1\n"
        "  end)\n"
        "end\n"
        "function destroy_run(w)\n"
        "  for k = 1, 60 do\n"
        "    Physics.simulate(w, 1 / 60)\n"
        "    World.run_callbacks(w)\n"
        "    if destroyed == 2 then return k end\n"
        "  end\n"
        "  error('the ball never hit box a')\n"
        "end\n";
    assert_int_equal(t->lua->run_string(script, "destroy_watch"), 0);
    test_lua_call("destroy_watch", w, e, 5);
    /* The sensor sees b (dynamic) enter once it wakes: a waking body is seen again. Destroying
     * the sensor from its own callback goes as any destroy. */
    test_lua_call("destroy_run", w, NULL, 0);
    after_the_hit(w, e, j2);
    assert_int_equal(
        t->lua->run_string("function destroy_after(w) World.run_callbacks(w) end", "destroy_after"),
        0);
    test_lua_call("destroy_after", w, NULL, 0);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 5);
}

/* Level and unit sources (SJSON has no NaN; 1e39 becomes infinite as a float): huge, zero and
 * infinite sizes, inertia, mass and speeds in a body are refused when the source compiles,
 * naming the file, the entity and the field. */
static void test_sources_name_file_entity_field(void **state)
{
    (void)state;
    static const struct {
        const char *body, *words;
    } bad[] = {
        {"shape = \"sphere\" radius = 1e30",
         "body.radius (must be within [1e-3, 1e4] m), given 1e+30"},
        {"shape = \"sphere\" radius = 1e39", "body.radius"},
        {"half_extents = [1 2e4 1]",
         "body.half_extents (each must be within [1e-3, 1e4] m), given [1 20000 1]"},
        {"half_extents = [1 0 1]", "body.half_extents (each must be within [1e-3, 1e4] m)"},
        {"shape = \"capsule\" half_height = 1e30", "body.half_height (must be within [0, 1e4] m)"},
        {"inertia = [1e30 1 1]", "body.inertia (each within [1e-9, 1e15] kg m^2, or all zero)"},
        {"inertia = [1 0 1]",
         "body.inertia (each within [1e-9, 1e15] kg m^2, or all zero), given [1 0 1]"},
        {"inertia = [1 1 1e39]", "body.inertia"},
        {"mass = 1e30",
         "body.mass (a dynamic body needs a mass within [1e-6, 1e9] kg), given 1e+30"},
        {"velocity = [0 1e39 0]", "body.velocity"},
        {"rotates = true angular_velocity = [0 1e5 0]", "body.angular_velocity"},
        {"kind = \"dinamic\"", "body.kind: \"dinamic\" is not one of \"dynamic\", \"static\", "
                               "\"kinematic\"; did you mean \"dynamic\"?"},
        {"shape = \"cube\"", "body.shape: \"cube\" is not one of \"box\", \"sphere\", \"capsule\""},
    };
    static const char *const types[2][2] = {{"level", "levels/bad_body"},
                                            {"unit", "units/bad_body"}};
    log__set_sink(capture, NULL);
    for (int k = 0; k < 2; k++)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            char text[512], file[64];
            snprintf(text, sizeof text,
                     "entities = [ { name = \"crate\" components = {\n"
                     "  transform = {} body = { %s } } } ]\n",
                     bad[b].body);
            captured[0] = '\0';
            assert_true(t->resource->load_source(types[k][0], types[k][1], text, strlen(text)) < 0);
            snprintf(file, sizeof file, "bad_body.%s", types[k][0]);
            if (!strstr(captured, file) || !strstr(captured, "entity 'crate'") ||
                !strstr(captured, bad[b].words))
                fail_msg("body = { %s }: '%s' does not name %s, the entity and '%s'", bad[b].body,
                         captured, file, bad[b].words);
            assert_null(t->resource->get(types[k][0], types[k][1]));
        }
    /* A point mass's refusal says what came too. */
    physics_level_refused("point_mass.mass (must be within [1e-6, 1e9] kg), given -2",
                          "levels/bad_point", "dot", "point_mass = { mass = -2 }");
    log__set_sink(NULL, NULL);
}

/* A transform's rotation that does not normalise is refused naming the file, the entity, the
 * field and why: [1e30 0 0 1], each component finite, squares past a float's range (it was
 * refused as "a zero-length quaternion"); [1e-30 0 0 0] is as good as zero. */
static void test_rotations_that_do_not_normalise_say_why(void **state)
{
    (void)state;
    static const struct {
        const char *rotation, *words;
    } bad[] = {
        {"[1e30 0 0 1]", "transform.rotation = [1e+30 0 0 1] does not normalise: its length "
                         "overflows a float"},
        {"[0 -3e20 0 0]", "transform.rotation = [0 -3e+20 0 0] does not normalise: its length "
                          "overflows a float"},
        {"[1e-30 0 0 0]", "transform.rotation = [1e-30 0 0 0] does not normalise: its length "
                          "is zero or nearly"},
    };
    log__set_sink(capture, NULL);
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        char text[256];
        snprintf(text, sizeof text,
                 "entities = [ { name = \"crate\" components = {\n"
                 "  transform = { rotation = %s } body = { half_extents = [1 1 1] } } } ]\n",
                 bad[b].rotation);
        captured[0] = '\0';
        assert_true(t->resource->load_source("level", "levels/bad_turn", text, strlen(text)) < 0);
        if (!strstr(captured, "bad_turn.level") || !strstr(captured, "entity 'crate'") ||
            !strstr(captured, bad[b].words))
            fail_msg("rotation = %s: '%s' does not name the file, the entity and '%s'",
                     bad[b].rotation, captured, bad[b].words);
        assert_null(t->resource->get("level", "levels/bad_turn"));
    }
    log__set_sink(NULL, NULL);
}

/* A compiled body edited behind the compiler's back (a NaN or huge inertia, radius or half
 * height; NaN cannot be written in a source) is refused when the level loads, naming the entity,
 * the type and the field. */
static void test_edited_body_blob_refused(void **state)
{
    (void)state;
    test_blob_t b = test_blob_compile(
        "level", "entities = [ { components = { body = { rotates = true shape = \"capsule\"\n"
                 "  radius = 0.375 half_height = 0.625 inertia = [0.125 0.25 0.75] } } } ]");
    const float inertia[3] = {0.125f, 0.25f, 0.75f}, radius = 0.375f, half_height = 0.625f;
    const size_t at_inertia = test_blob_find(&b, inertia, sizeof inertia);
    const char *const inertia_words[] = {"entity 0", "body", "inertia", NULL};
    test_blob_refused(&b, at_inertia, NAN, inertia_words);
    test_blob_refused(&b, at_inertia + 4, 1e30f, inertia_words);
    test_blob_refused(&b, at_inertia + 8, 0.0f, inertia_words);
    const char *const radius_words[] = {"entity 0", "body", "radius", NULL};
    test_blob_refused(&b, test_blob_find(&b, &radius, sizeof radius), NAN, radius_words);
    const char *const height_words[] = {"entity 0", "body", "half_height", NULL};
    test_blob_refused(&b, test_blob_find(&b, &half_height, sizeof half_height), INFINITY,
                      height_words);
    test_blob_free(&b);
}

/* A hundred compounds of 64 balls each dropped into one spot: 4,950 pairs, each asking for
 * 4,096 child tests (20 million; 400 of them took 37 s for one step before the ceiling). The step
 * stops at 4,194,304 child tests, ends, and says so naming the world and the pair where it cut. */
static void test_compound_pile_is_bounded(void **state)
{
    (void)state;
    enum { N = 100, KIDS = 64 };
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "compound_pile"});
    ct_entity_t e[N];
    t->entity->create_batch(e, N);
    ct_compound_child_t balls[KIDS];
    for (int k = 0; k < KIDS; k++)
        balls[k] = (ct_compound_child_t){
            .shape = CT_BODY_SPHERE, .radius = 0.1f, .position = {0.01f * (float)k, 0, 0}};
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                    .shape = CT_BODY_COMPOUND,
                                    .mass = 1.0f,
                                    .friction = 0.5f,
                                    .position = {0, 1, 0}};
    for (int k = 0; k < N; k++)
        assert_int_equal(p5->add_compound_body(w, e[k], &d, balls, KIDS), 0);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    p4->simulate(w, step);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    log__set_sink(NULL, NULL);
    print_message("%d compounds of %d balls in one spot: %.0f ms of CPU for the step (this "
                  "thread)\n",
                  N, KIDS,
                  (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6);
    char want[192];
    snprintf(want, sizeof want,
             "simulate: world %p: the pairs of compound bodies ask for more than 4194304 shape "
             "tests of their children",
             (void *)w);
    expect_cut(want, w, e, N);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, N);
}

/* Two huge boxes (12 x 1 x 20 m) side by side, sliding on a height field of 10 cm cells (256 x
 * 256) with +-1 mm of noise, each over some 48,000 of its triangles: their searches are cut at
 * PHYSICS_MESH_BUDGET (test_physics_mesh_rest counts them), and the log says so once for each box,
 * naming the world, the box, its shape's size and the field's entity; never again in the steps
 * after. */
static void test_huge_bodies_on_a_field_logged_once(void **state)
{
    (void)state;
    enum { SIDE = 257 };
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "huge_on_field"});
    ct_entity_t e[3];
    t->entity->create_batch(e, 3);
    float *heights = malloc(SIDE * SIDE * sizeof *heights);
    assert_non_null(heights);
    srand(7);
    for (uint32_t k = 0; k < SIDE * SIDE; k++)
        heights[k] = 2e-3f * ((float)rand() / (float)RAND_MAX - 0.5f);
    const ct_rigid_body_desc_t field = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_MESH,
                                        .friction = 0.5f,
                                        .position = {-12.8f, 0.0f, -12.8f}};
    assert_int_equal(
        p5->add_height_field_body(w, e[0], &field, heights, SIDE, SIDE, 0.1f, 0.1f), 0);
    free(heights);
    for (int k = 1; k < 3; k++) {
        const ct_rigid_body_desc_t huge = {.kind = CT_BODY_DYNAMIC,
                                           .shape = CT_BODY_BOX,
                                           .half_extents = {6.0f, 0.5f, 10.0f},
                                           .mass = 8000.0f,
                                           .friction = 0.5f,
                                           .position = {k == 1 ? -6.2f : 6.2f, 0.6f, 0.0f},
                                           .velocity = {1.0f, 0.0f, 0.0f}};
        assert_int_equal(p4->add_rigid_body(w, e[k], &huge), 0);
    }
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    for (int k = 0; k < 30; k++)
        p4->simulate(w, step);
    char logged[sizeof captured];
    snprintf(logged, sizeof logged, "%s", captured);
    captured[0] = '\0';
    for (int k = 0; k < 30; k++)
        p4->simulate(w, step);
    log__set_sink(NULL, NULL);
    if (captured[0])
        fail_msg("logged again: '%s'", captured);
    for (int k = 1; k < 3; k++) {
        char want[192];
        snprintf(want, sizeof want,
                 "simulate: world %p: entity %u: its shape (12 x 1 x 20 m) lies over more than "
                 "32768 triangles of the mesh of entity %u",
                 (void *)w, e[k].id, e[0].id);
        const char *at = strstr(logged, want);
        if (!at || strstr(at + 1, want))
            fail_msg("'%s' does not hold '%s' once", logged, want);
    }
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* ---- refusals that named the wrong call or field, or none ------------------------------------ */

/* The log holds "<what>: world <w>" and each of words ('|' between them); else the test fails. */
static void expect_logged(const char *what, ct_world_o *w, const char *words)
{
    char head[128];
    snprintf(head, sizeof head, "%s: world %p", what, (void *)w);
    if (!strstr(captured, head))
        fail_msg("'%s' does not hold '%s'", captured, head);
    char copy[256];
    snprintf(copy, sizeof copy, "%s", words);
    for (char *word = strtok(copy, "|"); word; word = strtok(NULL, "|"))
        if (!strstr(captured, word))
            fail_msg("'%s' does not name '%s'", captured, word);
    captured[0] = '\0';
}

/* Rays and sphere queries with a NULL, NaN or infinite origin or centre, a NaN, infinite or zero
 * direction, a NaN or negative length, a NaN, infinite or negative radius: nothing is found and
 * the log names the world and the field (before, they found nothing without a word, as if the
 * world were empty there); Lua raises naming the same. A ray from far outside the world, or of
 * infinite length, is still a question: the ball under it, or nothing, without a word. */
static const char lua_bad_queries[] =
    "function bad_queries(w)\n"
    "  refused({bad_world, 'origin'}, Physics.raycast, w, 0 / 0, 5, 0, 0, -1, 0, 10)\n"
    "  refused({bad_world, 'direction'}, Physics.raycast, w, 0, 5, 0, 0, 0, 0, 10)\n"
    "  refused({bad_world, 'max_distance'}, Physics.raycast, w, 0, 5, 0, 0, -1, 0, 0 / 0)\n"
    "  refused({bad_world, 'center'}, Physics.overlap_sphere, w, 0, 1 / 0, 0, 1)\n"
    "  refused({bad_world, 'radius'}, Physics.overlap_sphere, w, 0, 0, 0, -1)\n"
    "  assert(Physics.raycast(w, 0, 5, 0, 0, -1, 0, math.huge) ~= nil)\n"
    "  assert(#Physics.overlap_sphere(w, 0, 0, 0, 1) == 1)\n"
    "end\n";

static void test_queries_refuse_nan_naming_world_field(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "bad_queries"});
    const ct_rigid_body_desc_t ball = ball_desc(0, 0, 0, 0.5f);
    const ct_entity_t e = physics_body(w, &ball);
    const float nan3[3] = {NAN, 0, 0}, inf3[3] = {0, INFINITY, 0}, zero3[3] = {0, 0, 0};
    const float above[3] = {0, 5, 0}, down[3] = {0, -1, 0}, far[3] = {0, 1e30f, 0};
    static const struct {
        int o, d; /* 0 NULL, 1 NaN, 2 infinite, 3 zero, 4 good */
        float max;
        const char *field;
    } rays[] = {{0, 4, 10, "origin"},    {1, 4, 10, "origin"},        {2, 4, 10, "origin"},
                {4, 0, 10, "direction"}, {4, 1, 10, "direction"},     {4, 2, 10, "direction"},
                {4, 3, 10, "direction"}, {4, 4, NAN, "max_distance"}, {4, 4, -1, "max_distance"}};
    const float *pick_o[5] = {NULL, nan3, inf3, zero3, above},
                *pick_d[5] = {NULL, nan3, inf3, zero3, down};
    ct_physics_hit_t hit;
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    for (size_t k = 0; k < sizeof rays / sizeof rays[0]; k++) {
        assert_false(p4->raycast(w, pick_o[rays[k].o], pick_d[rays[k].d], rays[k].max, &hit));
        expect_logged("raycast", w, rays[k].field);
    }
    static const struct {
        int c;
        float r;
        const char *field;
    } spheres[] = {{0, 1, "center"},   {1, 1, "center"},        {2, 1, "center"},
                   {4, NAN, "radius"}, {4, INFINITY, "radius"}, {4, -1, "radius"}};
    ct_entity_t found[2];
    for (size_t k = 0; k < sizeof spheres / sizeof spheres[0]; k++) {
        assert_int_equal(p4->overlap_sphere(w, pick_o[spheres[k].c], spheres[k].r, found, 2), 0);
        expect_logged("overlap_sphere", w, spheres[k].field);
    }
    /* Good questions: answered, nothing logged. */
    assert_true(p4->raycast(w, above, down, INFINITY, &hit));
    assert_int_equal(hit.entity, e.id);
    assert_false(p4->raycast(w, far, down, 10, &hit));
    assert_int_equal(p4->overlap_sphere(w, zero3, 1, found, 2), 1);
    assert_string_equal(captured, "");
    load_refusals(w, lua_bad_queries, "bad_queries");
    test_lua_call("bad_queries", w, NULL, 0);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    t->worlds->destroy_world(w);
    t->entity->destroy(e);
}

/* A hinge's motor set to a NaN, infinite or too large speed or force is refused, naming the world,
 * the joint, its two entities and the field, from C and from Lua (before, the log named no
 * entity and Lua's error not even the world). */
static const char lua_bad_motor[] =
    "function bad_motor(w, a, b, j)\n"
    "  local AB = 'entities ' .. a .. ' and ' .. b\n"
    "  refused({bad_world, 'joint ' .. j, AB, 'motor_speed'}, Physics.set_joint_motor, w, j, 1e5, "
    "1)\n"
    "  refused({bad_world, 'joint ' .. j, AB, 'max_motor_force'}, Physics.set_joint_motor, w, j, 1,"
    " -1)\n"
    "end\n";

static void test_joint_motor_refusals_name_entities(void **state)
{
    (void)state;
    ct_entity_t e[2];
    ct_world_o *w = world_of_two_balls("bad_motor", e, 2);
    const ct_joint_desc_t hinge = {.type = CT_JOINT_HINGE, .anchor = {1, 1, 0}, .axis = {0, 0, 1}};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e[0], e[1], &hinge, &j), 0);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    static const struct {
        float speed, force;
        const char *field;
    } bad[] = {{NAN, 1, "motor_speed"},          {INFINITY, 1, "motor_speed"},
               {-2e4f, 1, "motor_speed"},        {1, NAN, "max_motor_force"},
               {1, INFINITY, "max_motor_force"}, {1, -1, "max_motor_force"}};
    char words[128];
    snprintf(words, sizeof words, "joint %u|entities %u and %u|", j.id, e[0].id, e[1].id);
    const size_t head = strlen(words);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(p4->set_joint_motor(w, j, bad[k].speed, bad[k].force), CT_ERR_INVALID);
        snprintf(words + head, sizeof words - head, "%s", bad[k].field);
        expect_logged("set_joint_motor", w, words);
    }
    load_refusals(w, lua_bad_motor, "bad_motor");
    lua_State *L = t->lua->main_state();
    t->lua->push_light_userdata(L, w);
    t->lua->push_number(L, e[0].id);
    t->lua->push_number(L, e[1].id);
    t->lua->push_number(L, j.id);
    assert_int_equal(t->lua->call_global("bad_motor", 4), 0);
    /* Nothing was set: the joint turns freely. */
    float f[3], tq[3];
    p4->simulate(w, step);
    assert_int_equal(p4->joint_force(w, j, f, tq), 0);
    assert_float_equal(tq[2], 0.0f, 1e-6f);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 2);
}

/* A character refused for its capsule (NaN radius, half height too large, a NaN position) is
 * logged as add_character's refusal, and an impulse or a force at a point by the names the API
 * gives them (impulse, point): before, the log said add_rigid_body, force and position, calls
 * and fields the game never wrote. */
static void test_refusals_name_the_call_and_field_given(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "bad_names"});
    ct_entity_t e[2];
    t->entity->create_batch(e, 2);
    const ct_rigid_body_desc_t ball = ball_desc(0, 1, 0, 0.5f);
    assert_int_equal(p4->add_rigid_body(w, e[0], &ball), 0);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    ct_character_desc_t cd[3];
    for (int k = 0; k < 3; k++)
        cd[k] = (ct_character_desc_t){
            .radius = 0.3f, .half_height = 0.5f, .max_step = 0.3f, .max_slope = 0.7f};
    cd[0].radius = NAN;
    cd[1].half_height = 2e4f;
    cd[2].position[1] = NAN;
    static const char *const fields[3] = {"radius", "half_height", "position"};
    for (int k = 0; k < 3; k++)
        expect_refused_by(p4->add_character(w, e[1], &cd[k]), w, e[1], "add_character", fields[k]);
    assert_int_equal(p4->body_count(w), 1);
    const float nan3[3] = {NAN, 0, 0}, up[3] = {0, 1, 0}, at[3] = {0.5f, 1, 0};
    expect_refused_by(p4->add_impulse_at(w, e[0], nan3, at), w, e[0], "add_impulse_at",
                      "impulse (nan, 0, 0) refused");
    expect_refused_by(p4->add_impulse_at(w, e[0], up, nan3), w, e[0], "add_impulse_at",
                      "point (nan, 0, 0) refused");
    expect_refused_by(p4->add_force_at(w, e[0], up, nan3), w, e[0], "add_force_at",
                      "point (nan, 0, 0) refused");
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 2);
}

/* The C API's adders, each refusal saying what was wrong and what came ("radius (must be within
 * [1e-3, 1e4] m), given 1e+30"), naming the call, the world and the entity. Before, they gave
 * the range only, where the Lua calls and sources gave the value too. */
enum adder {
    ADD_RIGID,
    ADD_BODY,
    ADD_POINT,
    ADD_HULL,
    ADD_CHILD,
    ADD_MESH,
    ADD_CHARACTER,
    ADD_JOINT
};

static const char *const adder_calls[] = {
    [ADD_RIGID] = "add_rigid_body",    [ADD_BODY] = "add_body",
    [ADD_POINT] = "add_point_mass",    [ADD_HULL] = "add_hull_body",
    [ADD_CHILD] = "add_compound_body", [ADD_MESH] = "add_mesh_body",
    [ADD_CHARACTER] = "add_character", [ADD_JOINT] = "add_joint"};

/* A good desc of the adder's with one field spoilt: n floats v at byte offset `at`, or (n 0)
 * the 32-bit whole number `whole` there. */
typedef struct spoilt_field {
    enum adder adder;
    size_t at;
    uint32_t n;
    float v[4];
    uint32_t whole;
    const char *words;
} spoilt_field;

static const spoilt_field spoilt_fields[] = {
    {ADD_RIGID,
     offsetof(ct_rigid_body_desc_t, radius),
     1,
     {1e30f},
     0,
     "radius (must be within [1e-3, 1e4] m), given 1e+30"},
    {ADD_RIGID,
     offsetof(ct_rigid_body_desc_t, mass),
     1,
     {-2},
     0,
     "mass (a dynamic body needs a mass within [1e-6, 1e9] kg), given -2"},
    {ADD_RIGID,
     offsetof(ct_rigid_body_desc_t, velocity),
     3,
     {0, 2e4f, 0},
     0,
     "velocity (must be finite, at most 1e4 m/s), given [0 20000 0]"},
    {ADD_RIGID,
     offsetof(ct_rigid_body_desc_t, rotation),
     4,
     {0, 0, 0, 2},
     0,
     "rotation (x y z w of length 1 within 1e-3, or all zero), given [0 0 0 2]"},
    {ADD_RIGID,
     offsetof(ct_rigid_body_desc_t, kind),
     0,
     {0},
     7,
     "kind (dynamic, static or kinematic), given 7"},
    {ADD_RIGID,
     offsetof(ct_rigid_body_desc_t, locks),
     0,
     {0},
     0x100,
     "locks (CT_BODY_LOCK_* bits only), given 0x100"},
    {ADD_BODY,
     offsetof(ct_body_desc_t, friction),
     1,
     {200},
     0,
     "friction (must be within [0, 100]), given 200"},
    {ADD_BODY,
     offsetof(ct_body_desc_t, shape),
     0,
     {0},
     CT_BODY_CAPSULE,
     "shape (box or sphere), given 2"},
    {ADD_POINT,
     offsetof(ct_point_mass_desc_t, mass),
     1,
     {0},
     0,
     "mass (must be within [1e-6, 1e9] kg), given 0"},
    {ADD_POINT,
     offsetof(ct_point_mass_desc_t, position),
     3,
     {1, 2, 3e5f},
     0,
     "position (each coordinate must be within +-1e5 m), given [1 2 300000]"},
    {ADD_HULL,
     offsetof(ct_rigid_body_desc_t, restitution),
     1,
     {1.5f},
     0,
     "restitution (must be within [0, 1]), given 1.5"},
    {ADD_CHILD,
     offsetof(ct_compound_child_t, half_extents),
     3,
     {1, 2e4f, 1},
     0,
     "children[0].half_extents (each must be within [1e-3, 1e4] m), given [1 20000 1]"},
    {ADD_CHILD,
     offsetof(ct_compound_child_t, position),
     3,
     {0, -3e4f, 0},
     0,
     "children[0].position (each coordinate within +-1e4 m), given [0 -30000 0]"},
    {ADD_MESH,
     offsetof(ct_rigid_body_desc_t, kind),
     0,
     {0},
     CT_BODY_DYNAMIC,
     "kind (a mesh body is static), given 0"},
    {ADD_CHARACTER,
     offsetof(ct_character_desc_t, radius),
     1,
     {1e5f},
     0,
     "radius (must be within [1e-3, 1e4] m), given 100000"},
    {ADD_CHARACTER,
     offsetof(ct_character_desc_t, max_slope),
     1,
     {3},
     0,
     "max_slope (within [0, 1.5] rad), given 3"},
    {ADD_JOINT,
     offsetof(ct_joint_desc_t, lower),
     2,
     {1, 0},
     0,
     "lower, upper (within [-pi, pi] rad, lower <= upper), given [1 0] refused"},
    {ADD_JOINT,
     offsetof(ct_joint_desc_t, axis),
     3,
     {0, 1e-4f, 0},
     0,
     "axis (a direction of length at least 1e-3, each component within +-1e3), given [0 0.0001 "
     "0] refused"},
    {ADD_JOINT,
     offsetof(ct_joint_desc_t, spring_damping),
     1,
     {-1},
     0,
     "spring_damping (within [0, 1e3]), given -1 refused"},
};

static void spoil(void *desc, const spoilt_field *f)
{
    if (f->n)
        memcpy((char *)desc + f->at, f->v, f->n * sizeof(float));
    else
        memcpy((char *)desc + f->at, &f->whole, sizeof f->whole);
}

static void test_c_refusals_say_what_came(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_of_two_balls("c_what_came", e, 3);
    float cube[24];
    unit_cube_points(cube);
    static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    static const uint32_t tri_indices[3] = {0, 1, 2};
    log__set_sink(capture, NULL);
    for (size_t k = 0; k < sizeof spoilt_fields / sizeof spoilt_fields[0]; k++) {
        const spoilt_field *f = &spoilt_fields[k];
        ct_rigid_body_desc_t rigid = ball_desc(0, 4, 0, 0.5f);
        ct_body_desc_t body = {
            .kind = CT_BODY_DYNAMIC, .shape = CT_BODY_SPHERE, .radius = 0.5f, .mass = 1};
        ct_point_mass_desc_t point = {.mass = 1};
        ct_compound_child_t child = {.shape = CT_BODY_BOX, .half_extents = {1, 1, 1}};
        ct_character_desc_t character = {
            .radius = 0.3f, .half_height = 0.5f, .max_step = 0.3f, .max_slope = 0.7f};
        ct_joint_desc_t joint = {.type = CT_JOINT_HINGE,
                                 .flags = CT_JOINT_LIMIT,
                                 .anchor = {1, 1, 0},
                                 .axis = {0, 0, 1},
                                 .lower = -1,
                                 .upper = 1};
        ct_physics_joint_t j = {0};
        int err = 0;
        captured[0] = '\0';
        switch (f->adder) {
        case ADD_RIGID:
            spoil(&rigid, f);
            err = p4->add_rigid_body(w, e[2], &rigid);
            break;
        case ADD_BODY:
            spoil(&body, f);
            err = p4->add_body(w, e[2], &body);
            break;
        case ADD_POINT:
            spoil(&point, f);
            err = p4->add_point_mass(w, e[2], &point);
            break;
        case ADD_HULL:
            rigid.shape = CT_BODY_HULL;
            spoil(&rigid, f);
            err = p5->add_hull_body(w, e[2], &rigid, cube, 8);
            break;
        case ADD_CHILD:
            rigid.shape = CT_BODY_COMPOUND;
            spoil(&child, f);
            err = p5->add_compound_body(w, e[2], &rigid, &child, 1);
            break;
        case ADD_MESH:
            rigid.kind = CT_BODY_STATIC, rigid.shape = CT_BODY_MESH;
            spoil(&rigid, f);
            err = p5->add_mesh_body(w, e[2], &rigid, tri, 3, tri_indices, 1);
            break;
        case ADD_CHARACTER:
            spoil(&character, f);
            err = p4->add_character(w, e[2], &character);
            break;
        case ADD_JOINT:
            spoil(&joint, f);
            err = p4->add_joint(w, e[0], e[1], &joint, &j);
            break;
        }
        char want[512];
        if (f->adder == ADD_JOINT)
            snprintf(want, sizeof want, "add_joint: world %p, entities %u and %u: %s", (void *)w,
                     e[0].id, e[1].id, f->words);
        else
            snprintf(want, sizeof want, "%s: world %p, entity %u: %s", adder_calls[f->adder],
                     (void *)w, e[2].id, f->words);
        if (err != CT_ERR_INVALID || !strstr(captured, want))
            fail_msg("row %zu: %d, '%s' does not hold '%s'", k, err, captured, want);
    }
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    assert_int_equal(p4->body_count(w), 2);
    assert_int_equal(p4->joint_count(w), 0);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* ---- tables whose fields raise ------------------------------------------------------------- */

/* A compound's children given as strict tables (a metatable whose __index raises on a field the
 * table lacks, as strict-mode or class tables do): reading the optional fields of the third child
 * raises after the two hull children before it had their points read into scratch. The error
 * reaches the script and nothing is left allocated (the teardown's leak check: before, each call
 * leaked the two children's points, 96 bytes each); a plain table then gives the body. */
static const char lua_strict_children[] =
    "function strict_children(w, x)\n"
    "  local strict = { __index = function(_, key) error('strict: no field ' .. key, 2) end }\n"
    "  local cube = unit_cube()\n"
    "  local hull = { shape = 'hull', points = cube }\n"
    "  for k = 1, 16 do\n"
    "    local leg = setmetatable({ shape = 'box', half_extents = {0.1, 0.5, 0.1} }, strict)\n"
    "    local ok, err = pcall(Physics.add_compound, w, x, { hull, hull, leg })\n"
    "    assert(not ok and err:find('strict: no field', 1, true), err)\n"
    "  end\n"
    "  assert(not pcall(Actor.shape, w, x))\n"
    "  local ball = { shape = 'sphere', radius = 0.5, position = {0, 1, 0} }\n"
    "  Physics.add_compound(w, x, { hull, ball })\n"
    "  assert(Actor.shape(w, x) == 'compound')\n"
    "end\n";

static void test_lua_strict_children_leave_nothing(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "strict_children"});
    const ct_entity_t x = t->entity->create();
    physics_lua_unit_cube();
    assert_int_equal(t->lua->run_string(lua_strict_children, "strict_children"), 0);
    test_lua_call("strict_children", w, &x, 1);
    assert_int_equal(p4->body_count(w), 1);
    t->worlds->destroy_world(w);
    t->entity->destroy(x);
}

/* A script whose desc table destroys the world when the binding reads it (its __index runs after
 * the world was checked): the call raises naming the world gone. Before, the error gave the
 * reason of the call refused before it (here "points (coplanar ...)"), a field this call had
 * right. */
static const char lua_world_gone[] =
    "function world_gone(w, x)\n"
    "  local flat = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1}\n"
    "  refused({bad_world, 'entity ' .. x, 'points (coplanar'}, Physics.add_hull, w, x, flat)\n"
    "  local desc = setmetatable({}, { __index = function(_, key)\n"
    "    if key == 'kind' then World.destroy(w) end\n"
    "  end })\n"
    "  local ok, err = pcall(Physics.add_hull, w, x, unit_cube(), desc)\n"
    "  assert(not ok and err:find(bad_world, 1, true) and\n"
    "         err:find('is not a world with physics', 1, true) and not err:find('coplanar'), err)\n"
    "end\n";

static void test_lua_world_destroyed_while_reading_args(void **state)
{
    (void)state;
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "world_gone"});
    const ct_entity_t x = t->entity->create();
    load_refusals(w, lua_world_gone, "world_gone");
    log__set_sink(capture, NULL);
    test_lua_call("world_gone", w, &x, 1);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    t->entity->destroy(x);
}

/* The log holds `want` (printf-style, naming the world first) (and is emptied). */
static void expect_logged_world(ct_world_o *w, const char *want_fmt)
{
    char want[160];
    snprintf(want, sizeof want, want_fmt, (void *)w);
    if (!strstr(captured, want))
        fail_msg("'%s' does not hold '%s'", captured, want);
    captured[0] = '\0';
}

/* The log holds "<what>: world <w>: out (NULL with max 4" (and is emptied). */
static void expect_null_out(const char *what, ct_world_o *w)
{
    char want_fmt[96];
    snprintf(want_fmt, sizeof want_fmt, "%s: world %%p: out (NULL with max 4", what);
    expect_logged_world(w, want_fmt);
}

/* The calls that list into out (overlap_sphere, shapes, sensor_contents) given NULL with room
 * asked for (max 4): each counts as with max 0, writes nothing, and the log names the call, the
 * world and out. Before, each wrote through NULL (SIGSEGV). */
static void test_null_lists_only_count(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_with_character("null_lists", e);
    const ct_rigid_body_desc_t zone = {.kind = CT_BODY_STATIC,
                                       .shape = CT_BODY_BOX,
                                       .half_extents = {1, 1, 1},
                                       .position = {0, 1, 0}};
    assert_int_equal(p4->add_rigid_body(w, e[2], &zone), 0);
    assert_int_equal(p5->set_sensor(w, e[2], true), 0);
    for (int k = 0; k < 2; k++)
        p4->simulate(w, step);
    const float at[3] = {0, 1, 0};
    const uint32_t near = p4->overlap_sphere(w, at, 2.0f, NULL, 0);
    const uint32_t inside = p5->sensor_contents(w, e[2], NULL, 0);
    assert_int_equal(p4->shapes(w, 0, NULL, 0), 3);
    assert_true(near >= 2 && inside == 1);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    assert_int_equal(p4->overlap_sphere(w, at, 2.0f, NULL, 4), near);
    expect_null_out("overlap_sphere", w);
    assert_int_equal(p4->shapes(w, 0, NULL, 4), 3);
    expect_null_out("shapes", w);
    assert_int_equal(p5->sensor_contents(w, e[2], NULL, 4), inside);
    expect_null_out("sensor_contents", w);
    log__set_sink(NULL, NULL);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* The calls that read a body, a point mass, a joint or the world into an out given NULL: each is
 * refused (CT_ERR_INVALID; gravity and events, which answer nothing, do nothing), logged naming
 * the call, the world, the entity (or the joint) and the field. Before, each wrote through NULL
 * (SIGSEGV). */
static void test_null_outs_refused(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_with_character("null_outs", e);
    const ct_rigid_body_desc_t ball = ball_desc(2, 3, 0, 0.25f);
    assert_int_equal(p4->add_rigid_body(w, e[2], &ball), 0);
    const ct_joint_desc_t hang = {.type = CT_JOINT_BALL, .anchor = {2, 4, 0}, .axis = {1, 0, 0}};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e[2], (ct_entity_t){0}, &hang, &j), 0);
    const ct_entity_t point = t->entity->create();
    const ct_point_mass_desc_t pm = {.mass = 2, .position = {0, 10, 0}};
    assert_int_equal(p4->add_point_mass(w, point, &pm), 0);
    p4->simulate(w, step);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    expect_refused_by(p4->velocity(w, e[2], NULL), w, e[2], "velocity", "out (NULL)");
    expect_refused_by(p4->position(w, e[2], NULL), w, e[2], "position", "out (NULL)");
    expect_refused_by(p4->rotation(w, e[2], NULL), w, e[2], "rotation", "out (NULL)");
    expect_refused_by(p4->angular_velocity(w, e[2], NULL), w, e[2], "angular_velocity",
                      "out (NULL)");
    expect_refused_by(p4->locks(w, e[2], NULL), w, e[2], "locks", "out (NULL)");
    expect_refused_by(p4->user_data(w, e[2], NULL), w, e[2], "user_data", "out (NULL)");
    uint32_t mask;
    expect_refused_by(p4->collision_filter(w, e[2], NULL, &mask), w, e[2], "collision_filter",
                      "layer, mask (NULL)");
    expect_refused_by(p4->point_position(w, point, NULL), w, point, "point_position",
                      "out (NULL)");
    expect_refused_by(p4->point_velocity(w, point, NULL), w, point, "point_velocity",
                      "out (NULL)");
    assert_int_equal(p4->joint_value(w, j, NULL), CT_ERR_INVALID);
    char joint[96];
    snprintf(joint, sizeof joint, "joint_value: world %%p, joint %u: out (NULL) refused", j.id);
    expect_logged_world(w, joint);
    p4->gravity(w, NULL);
    expect_logged_world(w, "gravity: world %p: out (NULL) refused");
    assert_null(p4->events(w, NULL));
    expect_logged_world(w, "events: world %p: size (NULL) refused");
    log__set_sink(NULL, NULL);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
    t->entity->destroy(point);
}

/* ---- damaged snapshots ---------------------------------------------------------------------- */

/* The offset of the last copy of the 4 bytes at `bytes` in buf (joints, characters and point
 * masses are the snapshot's last parts), failing the test if there is none. */
static size_t last_copy(const uint8_t *buf, size_t size, const void *bytes)
{
    size_t at = SIZE_MAX;
    for (size_t k = 0; k + 4 <= size; k++)
        if (!memcmp(buf + k, bytes, 4))
            at = k;
    assert_true(at != SIZE_MAX);
    return at;
}

/* A snapshot with the 4 bytes of `was` (its last copy) replaced by `now` is refused, changing
 * nothing, and the log names the world and each of words ('|' between them). */
static void damaged_refused(ct_world_o *w, const uint8_t *snap, uint32_t size, const void *was,
                            const void *now, const char *words)
{
    uint8_t *bad = malloc(size);
    assert_non_null(bad);
    memcpy(bad, snap, size);
    memcpy(bad + last_copy(bad, size, was), now, 4);
    const uint64_t before = p4->state_hash(w);
    captured[0] = '\0';
    log__set_sink(capture, NULL);
    assert_int_equal(p4->restore_snapshot(w, bad, size), CT_ERR_INVALID);
    log__set_sink(NULL, NULL);
    assert_int_equal(p4->state_hash(w), before);
    char world[64], list[256];
    snprintf(world, sizeof world, "restore_snapshot: world %p: refused", (void *)w);
    snprintf(list, sizeof list, "%s", words);
    if (!strstr(captured, world))
        fail_msg("'%s' does not name %s", captured, world);
    for (char *word = strtok(list, "|"); word; word = strtok(NULL, "|"))
        if (!strstr(captured, word))
            fail_msg("'%s' does not name '%s'", captured, word);
    free(bad);
}

/* A snapshot's joints, characters and point masses damaged where the world reads them: a NaN
 * anchor of a ball's joint, a joint to an entity without a body, a NaN step_down of a character,
 * a NaN position of a point mass. Each is refused naming the part, its entity and the field, and
 * the world is as it was; the snapshot undamaged restores. Before, all four were taken: the ball
 * flew to the world's border (-1e5, -1e5, -1e5) in five steps, the point mass stayed NaN. */
static void test_damaged_snapshot_parts_refused(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_with_character("damaged_snapshot", e);
    const ct_rigid_body_desc_t ball = ball_desc(3.8125f, 3.0f, 0, 0.25f);
    assert_int_equal(p4->add_rigid_body(w, e[2], &ball), 0);
    const float anchor = 3.1875f, step_down = 0.296875f, mass_x = 0.4375f, nan = NAN;
    const ct_joint_desc_t hang = {
        .type = CT_JOINT_BALL, .anchor = {anchor, 3.0f, 0}, .axis = {1, 0, 0}};
    ct_physics_joint_t j;
    assert_int_equal(p4->add_joint(w, e[2], (ct_entity_t){0}, &hang, &j), 0);
    ct_character_settings_t set;
    assert_int_equal(p5->character_settings(w, e[1], &set), 0);
    set.step_down = step_down;
    assert_int_equal(p5->set_character_settings(w, e[1], &set), 0);
    const ct_entity_t point = t->entity->create();
    const ct_point_mass_desc_t pm = {.mass = 2, .position = {mass_x, 10, 0}};
    assert_int_equal(p4->add_point_mass(w, point, &pm), 0);
    for (int k = 0; k < 5; k++)
        p4->simulate(w, step);
    const uint32_t size = p4->snapshot_size(w);
    uint8_t *snap = malloc(size);
    assert_non_null(snap);
    assert_int_equal(p4->save_snapshot(w, snap, size), size);
    char words[160];
    snprintf(words, sizeof words, "joint %u (entities %u and 0)|anchors", j.id, e[2].id);
    damaged_refused(w, snap, size, &anchor, &nan, words);
    snprintf(words, sizeof words, "joint %u|bodies", j.id);
    damaged_refused(w, snap, size, &e[2].id, &point.id, words);
    snprintf(words, sizeof words, "character %u|step_down", e[1].id);
    damaged_refused(w, snap, size, &step_down, &nan, words);
    snprintf(words, sizeof words, "point mass %u|position", point.id);
    damaged_refused(w, snap, size, &mass_x, &nan, words);
    assert_int_equal(p4->restore_snapshot(w, snap, size), 0);
    free(snap);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
    t->entity->destroy(point);
}

/* ---- every Lua function, every argument wrong ------------------------------------------------ */

/* Every function of the Physics and Actor tables, called with valid arguments except one, which
 * is in turn each of: nothing, a boolean, a string, empty and short tables, NaN, infinities,
 * 1e300, -1, 0, 2^53, a fraction, a function, a destroyed entity, the floor, the character and a
 * destroyed world. Each call returns or raises a Lua error that is a string naming the function;
 * none crashes or corrupts the world (run under ASan too), and the world still steps after. A
 * destroyed world as the world argument always raises, naming the function and the argument:
 * answering false, nil or 0 (Actor.sleeping, Physics.raycast, Physics.state_hash, ...) would
 * read as a real answer about a world the script lost. */
static const char lua_sweep[] =
    "function sweep(w, floor, c, x, gone, dead_world)\n"
    "  local bad = { nil, true, 'x', {}, {1, 2}, 0 / 0, 1 / 0, -1 / 0, 1e300, -1, 0, 2 ^ 53, 1.5,\n"
    "                print, gone, floor, c, dead_world }\n"
    "  local num_bad = 18\n"
    "  local names = {}\n"
    "  for _, lib in ipairs({ 'Physics', 'Actor' }) do\n"
    "    for name, f in pairs(_G[lib]) do\n"
    "      if type(f) == 'function' then names[#names + 1] = lib .. '.' .. name end\n"
    "    end\n"
    "  end\n"
    "  table.sort(names)\n"
    "  local calls, raised = 0, 0\n"
    "  for _, name in ipairs(names) do\n"
    "    local lib, fn = name:match('^(%a+)%.(.+)$')\n"
    "    local f = _G[lib][fn]\n"
    "    for k = 1, 10 do\n"
    "      for i = 1, num_bad do\n"
    "        local args = { w, x, 0.5, 1, 0.5, 0, -1, 0, 1, 1 }\n"
    "        args[k] = bad[i]\n"
    "        local ok, err = pcall(f, unpack(args, 1, 10))\n"
    "        calls = calls + 1\n"
    "        if k == 1 and bad[i] == dead_world then\n"
    "          assert(not ok, name .. ' accepted a destroyed world')\n"
    "          assert(err:find(name .. ': argument 1 is not a live world', 1, true), err)\n"
    "        end\n"
    "        if not ok then\n"
    "          raised = raised + 1\n"
    "          assert(type(err) == 'string', name .. ' raised a ' .. type(err))\n"
    "          assert(err:find(name, 1, true), name .. ' (argument ' .. k .. ' = '\n"
    "                 .. tostring(bad[i]) .. ') raised an error that does not name it: ' .. err)\n"
    "        end\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "  assert(#names >= 42, 'swept only ' .. #names .. ' functions')\n"
    "  assert(calls == #names * 10 * num_bad)\n"
    "  print(string.format('swept %d functions: %d calls, %d raised', #names, calls, raised))\n"
    "  Physics.simulate(w, 1 / 60)\n"
    "  Physics.simulate(w, 1 / 60)\n"
    "end\n";

static void test_lua_every_function_every_argument_wrong(void **state)
{
    (void)state;
    ct_entity_t e[3], more[2];
    ct_world_o *w = world_with_character("lua_sweep", e);
    t->entity->create_batch(more, 2);
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {0.25f, 0.25f, 0.25f},
                                      .mass = 1.0f,
                                      .position = {2, 1, 0}};
    assert_int_equal(p4->add_rigid_body(w, more[0], &box), 0);
    t->entity->destroy(more[1]);
    ct_world_o *dead = t->worlds->create_world(&(ct_world_desc_t){.name = "lua_sweep_dead"});
    t->worlds->destroy_world(dead);
    assert_int_equal(t->lua->run_string(lua_sweep, "lua_sweep"), 0);
    lua_State *L = t->lua->main_state();
    t->lua->push_light_userdata(L, w);
    t->lua->push_number(L, e[0].id);
    t->lua->push_number(L, e[1].id);
    t->lua->push_number(L, more[0].id);
    t->lua->push_number(L, more[1].id);
    t->lua->push_light_userdata(L, dead);
    log__set_sink(capture, NULL); /* the refusals' log lines, not checked here */
    const int err = t->lua->call_global("sweep", 6);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    assert_int_equal(err, 0);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
    t->entity->destroy(more[0]);
}

/* The Lua refusals say what came, not only what was wanted: a field's value, a name that is no
 * shape or kind, how many numbers a table held and which entry is wrong; the character calls name
 * the world as the others do. Before, each said only what was wanted ("field lower is not a
 * finite number", "has too many numbers", "kind (\"dynamic\", ...)") or named no world. */
static const char lua_what_came[] =
    "function what_came(w, a, b, x)\n"
    "  local W = bad_world\n"
    "  refused({'field lower is not a finite number (got ', 'nan)'}, Physics.add_joint, w, a,\n"
    "          b, 'hinge', { lower = 0 / 0 })\n"
    "  refused({'field anchor is not a table of three numbers {x, y, z} (got 5)'},\n"
    "          Physics.add_joint, w, a, b, 'ball', { anchor = 5 })\n"
    "  refused({\"field axis is not a table of three numbers {x, y, z} (its [2] is a string)\"},\n"
    "          Physics.add_joint, w, a, b, 'hinge', { axis = {0, 'y', 0} })\n"
    "  refused({'argument 2\\'s shape is \"cube\", not \"box\"'}, Physics.shape_cast, w,\n"
    "          { shape = 'cube' }, 0, 0, 0, 1, 0, 0)\n"
    "  refused({'argument 2 is not a shape table {shape = ..., ...} (got 5)'},\n"
    "          Physics.shape_cast, w, 5, 0, 0, 0, 1, 0, 0)\n"
    "  refused({'argument 2\\'s shape is a table, not'}, Physics.shape_cast, w, { shape = {} },\n"
    "          0, 0, 0, 1, 0, 0)\n"
    "  local many = {} for i = 1, 300 do many[i] = 0 end\n"
    "  refused({'argument 3 has 300 numbers (at most 192)'}, Physics.add_hull, w, x, many)\n"
    "  refused({'argument 3 holds something that is not a finite number: [5] is a boolean'},\n"
    "          Physics.add_hull, w, x, {0, 0, 0, 1, true, 0, 0, 0, 1, 1, 1, 1})\n"
    "  refused({'argument 4 holds something that is not a vertex number (1, 2, ...): [2] is 0'},\n"
    "          Physics.add_mesh, w, x, {0, 0, 0, 1, 0, 0, 0, 0, 1}, {1, 0, 2})\n"
    "  refused({'argument 4: kind is \"dinamic\", not \"dynamic\"'}, Physics.add_hull, w, x,\n"
    "          unit_cube(), { kind = 'dinamic' })\n"
    "  refused({'argument 4: mass is -inf, not a finite number'}, Physics.add_hull, w, x,\n"
    "          unit_cube(), { mass = -1 / 0 })\n"
    "  refused({'argument 3 child 1: radius is not a finite number (got a string)'},\n"
    "          Physics.add_compound, w, x, { { shape = 'sphere', radius = 'big' } })\n"
    "  for _, f in ipairs({Physics.character_settings, Physics.character_contacts}) do\n"
    "    refused({W .. ': entity ' .. x .. ' is not a character in this world'}, f, w, x)\n"
    "  end\n"
    "  refused({W .. ', entity ' .. a .. ' has a body already'}, Physics.add_character, w, a,\n"
    "          { radius = 0.3, half_height = 0.5 })\n"
    "end\n";

static void test_lua_refusals_say_what_came(void **state)
{
    (void)state;
    ct_entity_t e[3];
    ct_world_o *w = world_of_two_balls("what_came", e, 3);
    load_refusals(w, lua_what_came, "what_came");
    log__set_sink(capture, NULL);
    test_lua_call("what_came", w, e, 3);
    log__set_sink(NULL, NULL);
    captured[0] = '\0';
    assert_int_equal(p4->body_count(w), 2);
    assert_int_equal(p4->joint_count(w), 0);
    t->worlds->destroy_world(w);
    t->entity->destroy_batch(e, 3);
}

/* A height field given to a destroyed entity is refused naming the call, world and entity, and
 * leaves nothing allocated. Before, that refusal came after the heights had become vertices and
 * triangles, which leaked (72 bytes for 2 x 2 samples, 12 MB for 512 x 512: a script calling it
 * in a loop grew without bound); fuzz_lua_physics found it. */
static void test_height_field_on_dead_entity_leaks_nothing(void **state)
{
    (void)state;
    const uint64_t leaks = memory__leaks_reported();
    ct_world_o *w = t->worlds->create_world(&(ct_world_desc_t){.name = "dead_field"});
    const ct_entity_t e = t->entity->create();
    t->entity->destroy(e);
    const float heights[4] = {0, 0.1f, 0.2f, 0};
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC, .shape = CT_BODY_MESH};
    log__set_sink(capture, NULL);
    expect_refused_by(p5->add_height_field_body(w, e, &d, heights, 2, 2, 1, 1), w, e,
                      "add_height_field_body", "not alive");
    log__set_sink(NULL, NULL);
    assert_int_equal(p4->body_count(w), 0);
    t->worlds->destroy_world(w);
    assert_int_equal(memory__leaks_reported(), leaks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        physics_test(test_nan_and_huge_shapes_and_inertia),
        physics_test(test_extremes_in_range_stay_in_range),
        physics_test(test_nan_and_huge_joint_anchors),
        physics_test(test_joint_to_destroyed_body),
        physics_test(test_chain_of_10000),
        physics_test(test_degenerate_shapes_name_world_entity_field),
        physics_test(test_pile_in_one_spot_names_world_entity),
        physics_test(test_compound_pile_is_bounded),
        physics_test(test_lua_refusals_name_world_entity_field),
        physics_test(test_v5_members_refuse_bad_input),
        physics_test(test_destroy_in_event_handlers),
        physics_test(test_lua_v5_members_refuse_bad_input),
        physics_test(test_sources_name_file_entity_field),
        physics_test(test_rotations_that_do_not_normalise_say_why),
        physics_test(test_edited_body_blob_refused),
        physics_test(test_lua_every_function_every_argument_wrong),
        physics_test(test_huge_bodies_on_a_field_logged_once),
        physics_test(test_queries_refuse_nan_naming_world_field),
        physics_test(test_joint_motor_refusals_name_entities),
        physics_test(test_refusals_name_the_call_and_field_given),
        physics_test(test_c_refusals_say_what_came),
        physics_test(test_lua_strict_children_leave_nothing),
        physics_test(test_damaged_snapshot_parts_refused),
        physics_test(test_lua_world_destroyed_while_reading_args),
        physics_test(test_null_lists_only_count),
        physics_test(test_null_outs_refused),
        physics_test(test_lua_refusals_say_what_came),
        physics_test(test_height_field_on_dead_entity_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, boot, test_world_shutdown);
}
