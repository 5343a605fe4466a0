/* The lists of triangles near each body (physics_mesh.c, physics__mesh_near) without a kernel.
 * A list only saves walking a mesh's tree: every scene here is run twice, once as the step runs it
 * and once with every list wiped after each step (so every manifold walks the tree), and the two
 * must end in the same state, bit for bit. The scenes: a pile of every shape on a wavy height
 * field (with bodies removed on the way, so slots change hands), a small ball and a long plank on
 * a fine mesh (lists that would overflow, and shrink or give up), and a box sliding across the
 * seam of two meshes (one slot, two meshes in turn). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <stdio.h>
#include <string.h>

typedef enum near_mode { LISTS, WALK } near_mode;

/* Steps s; in WALK mode every list is wiped after each step. */
static void run_lists(physics__scene *s, near_mode mode, int steps)
{
    for (int k = 0; k < steps; k++) {
        assert_int_equal(physics__scene_step(s, 1.0f / 60.0f), 0);
        if (mode == WALK)
            for (uint32_t i = 0; i < s->bodies.num_near; i++)
                s->bodies.near[i].serial = 0;
    }
}

/* Slots whose list is of a mesh and whose box holds the body's box as it is now. */
static uint32_t lists_in_use(const physics__scene *s)
{
    const physics__bodies *b = &s->bodies;
    uint32_t used = 0;
    for (uint32_t i = 0; i < b->n && i < b->num_near; i++) {
        const physics__mesh_near *x = &b->near[i];
        if (!x->serial || b->kind[i] != CT_BODY_DYNAMIC)
            continue;
        const physics__v3 lo = v3_sub(b->position[i], b->extent[i]),
                          hi = v3_add(b->position[i], b->extent[i]);
        assert_true(x->count <= PHYSICS_MESH_NEAR_MAX);
        /* Every mesh here sits at y = 0 and is not turned: its frame is the world's, moved. */
        used += lo.y >= x->lo.y && hi.y <= x->hi.y;
    }
    return used;
}

/* Boxes, balls, capsules and hull pyramids dropped on a wavy height field of 16 x 16 cells of
 * 2 m; after 100 steps two bodies are removed (the last ones move into their slots). The state
 * hash after 200 steps; *used: lists_in_use at the end. */
static uint64_t pile(near_mode mode, physics__pool with, uint32_t *used)
{
    physics__scene s;
    scene_init(&s);
    s.pool = with;
    add_wavy_mesh(&s, 1, 16, 2.0f, 1.5f, 0.2f, -16.0f, -16.0f);
    add_shape_pile(&s, 2);
    run_lists(&s, mode, 100);
    assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){10}));
    assert_true(physics__bodies_remove(&s.bodies, (ct_entity_t){40}));
    run_lists(&s, mode, 100);
    *used = lists_in_use(&s);
    const uint64_t h = physics__state_hash(&s, NULL, NULL);
    physics__scene_free(&s);
    return h;
}

/* The pile ends the same with lists and without (serial, and on two threads with lists), and at
 * the end most of its 194 bodies are inside their lists' boxes. */
static void test_lists_give_the_walks_contacts(void **state)
{
    (void)state;
    uint32_t used, walked, threaded_used;
    const uint64_t lists = pile(LISTS, (physics__pool){0}, &used);
    const uint64_t walk = pile(WALK, (physics__pool){0}, &walked);
    const uint64_t threaded = pile(LISTS, two_threads, &threaded_used);
    print_message("pile: %016llx, %u of 194 bodies inside their lists' boxes\n",
                  (unsigned long long)lists, used);
    assert_true(lists == walk);
    assert_true(lists == threaded);
    assert_int_equal(walked, 0);
    assert_int_equal(used, threaded_used);
    assert_true(used > 97);
}

/* A ball of radius 0.1 m and a plank of 3 x 0.1 x 0.4 m sliding at 2 m/s (no friction) over a
 * flat mesh of 0.25 m cells, 2 m in 60 steps. The ball's list at 0.5 m of growth would hold some
 * 60 triangles: the growth halves until the list fits (16 at most). The plank meets more than 16
 * triangles with no growth at all: its slot keeps no list and it walks the tree every step. *ball
 * and *plank: their slots at the end. */
static void fine_mesh(near_mode mode, physics__v3 *ball_at, physics__v3 *plank_at,
                      physics__mesh_near *ball, physics__mesh_near *plank)
{
    physics__scene s;
    scene_init(&s);
    add_wavy_mesh(&s, 1, 40, 0.25f, 0.0f, 0.2f, -5.0f, -5.0f);
    add(&s, 2,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_SPHERE,
                               .mass = 1,
                               .radius = 0.1f,
                               .friction = 0.0f,
                               .position = {0.3f, 0.1f, -3.0f},
                               .velocity = {0.0f, 0.0f, 2.0f}});
    add(&s, 3,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_BOX,
                               .mass = 5,
                               .half_extents = {1.5f, 0.05f, 0.2f},
                               .friction = 0.0f,
                               .position = {-3.0f, 0.05f, 2.0f},
                               .velocity = {2.0f, 0.0f, 0.0f}});
    run_lists(&s, mode, 60);
    *ball_at = s.bodies.position[at(&s, 2)];
    *plank_at = s.bodies.position[at(&s, 3)];
    *ball = s.bodies.near[at(&s, 2)];
    *plank = s.bodies.near[at(&s, 3)];
    physics__scene_free(&s);
}

static void test_lists_shrink_or_give_up_on_a_fine_mesh(void **state)
{
    (void)state;
    physics__v3 ball_at, plank_at, ball_walk, plank_walk;
    physics__mesh_near ball, plank, ignored;
    fine_mesh(LISTS, &ball_at, &plank_at, &ball, &plank);
    fine_mesh(WALK, &ball_walk, &plank_walk, &ignored, &ignored);
    print_message("ball at %.4f (list of %u, growth %g), plank at %.4f (growth %g)\n",
                  (double)ball_at.y, ball.count, (double)ball.grow, (double)plank_at.y,
                  (double)plank.grow);
    assert_memory_equal(&ball_at, &ball_walk, sizeof ball_at);
    assert_memory_equal(&plank_at, &plank_walk, sizeof plank_at);
    /* Both rest on the floor at y = 0. */
    assert_float_equal(ball_at.y, 0.1f, 2e-3f);
    assert_float_equal(plank_at.y, 0.05f, 2e-3f);
    /* The ball's list: of the mesh, at a growth halved four times from 0.5 m, 8 triangles where
     * it ends (12 before the rigid solver's friction anchors and alternating point order moved
     * where it stops by a little). */
    assert_int_not_equal(ball.serial, 0);
    assert_true(ball.grow == 0.03125f);
    assert_int_equal(ball.count, 8);
    /* The plank's: none, and no growth left. */
    assert_int_equal(plank.serial, 0);
    assert_true(plank.grow == 0.0f);
}

/* A box of 1 x 0.2 x 0.5 m sliding at 3 m/s in z along the seam of two flat meshes (4 x 4 cells
 * of 1 m each, one at x < 0 and one at x > 0), lying across it: its one slot serves the two meshes
 * in turn every step. The same path with and without lists, and the box stays on the floor.
 * (Not across the seam: a box sliding over from one mesh onto the other stops against the
 * second's border edge, lists or not.) */
static void seam(near_mode mode, physics__v3 *p, physics__v3 *v)
{
    physics__scene s;
    scene_init(&s);
    add_wavy_mesh(&s, 1, 4, 1.0f, 0.0f, 0.2f, -4.0f, -2.0f);
    add_wavy_mesh(&s, 2, 4, 1.0f, 0.0f, 0.2f, 0.0f, -2.0f);
    add(&s, 3,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_BOX,
                               .mass = 2,
                               .half_extents = {0.5f, 0.1f, 0.25f},
                               .friction = 0.0f,
                               .position = {-0.1f, 0.1f, -1.5f},
                               .velocity = {0.0f, 0.0f, 3.0f}});
    float lowest = INFINITY, highest = -INFINITY;
    for (int k = 0; k < 60; k++) {
        run_lists(&s, mode, 1);
        const float y = s.bodies.position[at(&s, 3)].y;
        lowest = f_min(lowest, y), highest = f_max(highest, y);
    }
    assert_float_equal(lowest, 0.1f, 2e-3f);
    assert_float_equal(highest, 0.1f, 2e-3f);
    *p = s.bodies.position[at(&s, 3)];
    *v = s.bodies.velocity[at(&s, 3)];
    physics__scene_free(&s);
}

static void test_one_slot_two_meshes(void **state)
{
    (void)state;
    physics__v3 p, v, pw, vw;
    seam(LISTS, &p, &v);
    seam(WALK, &pw, &vw);
    print_message("box at z %.4f, vz %.4f\n", (double)p.z, (double)v.z);
    assert_memory_equal(&p, &pw, sizeof p);
    assert_memory_equal(&v, &vw, sizeof v);
    assert_float_equal(p.z, 1.5f, 0.02f); /* it slid all the way */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lists_give_the_walks_contacts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lists_shrink_or_give_up_on_a_fine_mesh, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_one_slot_two_meshes, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
