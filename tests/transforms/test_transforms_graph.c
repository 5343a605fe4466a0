/*
 * The scene graph data structure and its math, driven directly (modules/transforms' internal
 * files are compiled into this test): links, immediate propagation, destroy semantics and a
 * randomized comparison against a plain reference model.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../support/test_alloc.h"
#include "transforms_internal.h"

/* A counting allocator (test_alloc.h): every test ends with no live block. */
static test_alloc_t counted = {{NULL, test_alloc__realloc}, 0, 0, 0};

static int setup(void **state)
{
    transforms__manager_t *m = malloc(sizeof *m);
    transforms__manager_init(m, &counted.base, NULL);
    *state = m;
    return 0;
}

static int teardown(void **state)
{
    transforms__manager_free(*state);
    free(*state);
    assert_int_equal(counted.live_blocks, 0);
    return 0;
}

static ct_transform_pose_t pose_at(float x, float y, float z)
{
    ct_transform_pose_t p = transforms__identity_pose;
    p.position[0] = x, p.position[1] = y, p.position[2] = z;
    return p;
}

static uint32_t make(transforms__manager_t *m, uint32_t entity, ct_transform_pose_t pose)
{
    ct_transform_t out;
    assert_int_equal(transforms__create(m, &(ct_entity_t){entity}, NULL, &pose, 1, &out, NULL), 0);
    const uint32_t i = transforms__index(m, out);
    assert_true(i != 0);
    return i;
}

static void assert_near(float a, float b)
{
    if (!(fabsf(a - b) <= 1e-4f * (1 + fabsf(b))))
        fail_msg("%.7g differs from %.7g", (double)a, (double)b);
}

static void assert_translation(const transforms__manager_t *m, uint32_t i, float x, float y,
                               float z)
{
    assert_near(m->world_m[i].m[3], x);
    assert_near(m->world_m[i].m[7], y);
    assert_near(m->world_m[i].m[11], z);
}

/* A quarter turn about z: x -> y. */
static const float quarter_z[4] = {0, 0, 0.70710678f, 0.70710678f};

static void test_math_round_trip(void **state)
{
    (void)state;
    ct_transform_pose_t p = {{1, 2, 3}, {0.1f, 0.7f, -0.2f, 0.5f}, {2, 0.5f, 3}};
    assert_true(transforms__quat_normalize(p.rotation));
    ct_transform_matrix_t mat, inv, both;
    transforms__matrix_from_pose(&p, &mat);
    ct_transform_pose_t back;
    transforms__pose_from_matrix(&mat, &back);
    for (int k = 0; k < 3; k++) {
        assert_near(back.position[k], p.position[k]);
        assert_near(back.scale[k], p.scale[k]);
    }
    const float sign = back.rotation[3] * p.rotation[3] < 0 ? -1.0f : 1.0f;
    for (int k = 0; k < 4; k++)
        assert_near(sign * back.rotation[k], p.rotation[k]);

    assert_true(transforms__matrix_invert(&mat, &inv));
    transforms__matrix_mul(&mat, &inv, &both);
    for (int k = 0; k < 12; k++)
        assert_true(fabsf(both.m[k] - transforms__identity_matrix.m[k]) < 1e-5f);

    const float v[3] = {1, 0, 0};
    float r[3];
    transforms__quat_rotate(quarter_z, v, r);
    assert_near(r[0], 0), assert_near(r[1], 1), assert_near(r[2], 0);

    ct_transform_matrix_t singular = transforms__identity_matrix;
    singular.m[5] = 0;
    assert_false(transforms__matrix_invert(&singular, &inv));
    float zero[4] = {0, 0, 0, 0};
    assert_false(transforms__quat_normalize(zero));
}

static void test_link_unlink(void **state)
{
    transforms__manager_t *m = *state;
    const uint32_t a = make(m, 10, pose_at(1, 0, 0));
    const uint32_t b = make(m, 11, pose_at(0, 2, 0));
    const uint32_t c = make(m, 12, pose_at(0, 0, 3));
    assert_int_equal(transforms__find(m, 11), b);
    assert_int_equal(transforms__find(m, 99), 0);

    assert_int_equal(transforms__link(m, b, a), 0);
    assert_int_equal(transforms__link(m, c, a), 0);
    transforms__propagate(m, a);
    assert_int_equal(m->parent[b], a);
    assert_int_equal(m->parent[c], a);
    /* Children are pushed at the front of the list. */
    assert_int_equal(m->first_child[a], c);
    assert_int_equal(m->next_sibling[c], b);
    assert_int_equal(m->prev_sibling[b], c);
    assert_int_equal(m->next_sibling[b], 0);
    assert_translation(m, b, 1, 2, 0);
    assert_translation(m, c, 1, 0, 3);

    /* Cycles are refused and change nothing. */
    assert_int_equal(transforms__link(m, a, b), CT_ERR_INVALID);
    assert_int_equal(transforms__link(m, a, a), CT_ERR_INVALID);
    assert_int_equal(m->parent[a], 0);

    /* Unlink keeps the world pose. */
    transforms__unlink(m, c);
    assert_int_equal(m->parent[c], 0);
    assert_int_equal(m->first_child[a], b);
    assert_int_equal(m->prev_sibling[b], 0);
    assert_translation(m, c, 1, 0, 3);
    assert_near(m->pose[c].position[0], 1);
    assert_near(m->pose[c].position[2], 3);

    /* Moving to another parent keeps the local pose. */
    assert_int_equal(transforms__link(m, b, c), 0);
    transforms__propagate(m, b);
    assert_int_equal(m->first_child[a], 0);
    assert_translation(m, b, 1, 2, 3);

    /* A second transform for one entity in one manager is refused. */
    ct_transform_t dup;
    assert_int_equal(transforms__create(m, &(ct_entity_t){10}, NULL, NULL, 1, &dup, NULL), 0);
    assert_int_equal(dup.i, 0);
}

/* A batch whose entity reuses the index of an entity that still has an instance here (its death
 * went unseen) replaces that instance first, which moves the last one: the batch then starts at
 * the slot `first` gives, not at the old count (a spawn that assumed the old count linked and
 * placed the wrong instances). */
static void test_batch_after_a_stale_instance_starts_where_first_says(void **state)
{
    transforms__manager_t *m = *state;
    const uint32_t gen = 1u << CT_ENTITY_INDEX_BITS;
    make(m, 1, pose_at(1, 0, 0));
    make(m, 2, pose_at(2, 0, 0));
    make(m, 3, pose_at(3, 0, 0));
    assert_int_equal(m->n, 4);
    const ct_entity_t batch[] = {{gen | 2u}, {4}};
    const ct_transform_pose_t poses[] = {pose_at(20, 0, 0), pose_at(4, 0, 0)};
    uint32_t first = 0;
    assert_int_equal(transforms__create(m, batch, NULL, poses, 2, NULL, &first), 0);
    assert_int_equal(first, 3);
    assert_int_equal(m->n, 5);
    assert_int_equal(m->entity[first].id, gen | 2u);
    assert_int_equal(m->entity[first + 1].id, 4);
    assert_int_equal(transforms__find(m, 2), 0);
    assert_int_equal(transforms__find(m, gen | 2u), first);
    assert_translation(m, first, 20, 0, 0);
    assert_translation(m, transforms__find(m, 3), 3, 0, 0);
}

static void test_five_deep_chain_updates_at_once(void **state)
{
    transforms__manager_t *m = *state;
    uint32_t chain[5];
    ct_transform_pose_t step = pose_at(1, 0, 0);
    memcpy(step.rotation, quarter_z, sizeof quarter_z);
    for (uint32_t k = 0; k < 5; k++) {
        chain[k] = make(m, 100 + k, step);
        if (k)
            assert_int_equal(transforms__link(m, chain[k], chain[k - 1]), 0);
    }
    transforms__propagate(m, chain[0]);
    /* Each level steps 1 along its parent's x axis, which turns a quarter each level: (1,0,0),
     * (1,1,0), (0,1,0), (0,0,0) and, four quarters later, (1,0,0) again. */
    assert_translation(m, chain[2], 0, 1, 0);
    assert_translation(m, chain[4], 1, 0, 0);

    ct_transform_pose_t moved = step;
    moved.position[2] = 5;
    transforms__write_local(m, chain[0], &moved);
    transforms__propagate(m, chain[0]);
    assert_translation(m, chain[4], 1, 0, 5);
    assert_translation(m, chain[2], 0, 1, 5);

    /* A middle node: only its subtree changes. */
    ct_transform_pose_t mid = step;
    mid.position[0] = 3;
    transforms__write_local(m, chain[2], &mid);
    transforms__propagate(m, chain[2]);
    assert_translation(m, chain[1], 1, 1, 5);
    assert_translation(m, chain[2], -2, 1, 5);
    assert_translation(m, chain[4], -1, 0, 5);
}

static void test_destroy_parent_keeps_children_world_pose(void **state)
{
    transforms__manager_t *m = *state;
    const uint32_t root = make(m, 1, pose_at(5, 0, 0));
    const uint32_t p = make(m, 2, pose_at(0, 1, 0));
    const uint32_t c1 = make(m, 3, pose_at(0, 0, 1));
    const uint32_t c2 = make(m, 4, pose_at(0, 0, 2));
    const uint32_t g = make(m, 5, pose_at(1, 1, 1));
    assert_int_equal(transforms__link(m, p, root), 0);
    assert_int_equal(transforms__link(m, c1, p), 0);
    assert_int_equal(transforms__link(m, c2, p), 0);
    assert_int_equal(transforms__link(m, g, c2), 0);
    transforms__propagate(m, root);
    const ct_transform_matrix_t g_world = m->world_m[g];

    transforms__destroy(m, p);
    assert_int_equal(m->n, 5);
    assert_int_equal(transforms__find(m, 2), 0);
    const uint32_t i1 = transforms__find(m, 3), i2 = transforms__find(m, 4),
                   ig = transforms__find(m, 5);
    assert_int_equal(m->parent[i1], 0);
    assert_int_equal(m->parent[i2], 0);
    assert_int_equal(m->first_child[root], 0);
    assert_translation(m, i1, 5, 1, 1);
    assert_translation(m, i2, 5, 1, 2);
    assert_near(m->pose[i2].position[0], 5);
    /* The grandchild stays linked and did not move. */
    assert_int_equal(m->parent[ig], i2);
    assert_memory_equal(&m->world_m[ig], &g_world, sizeof g_world);
    /* And follows its parent from now on. */
    transforms__write_local(m, i2, &transforms__identity_pose);
    transforms__propagate(m, i2);
    assert_translation(m, ig, 1, 1, 1);
}

static void test_batch_equals_single(void **state)
{
    transforms__manager_t *m = *state;
    transforms__manager_t single;
    transforms__manager_init(&single, &counted.base, NULL);
    enum { CHAINS = 7, DEPTH = 5, N = CHAINS * DEPTH };
    ct_transform_t inst[N];
    ct_transform_pose_t poses[N];
    for (uint32_t k = 0; k < N; k++) {
        for (transforms__manager_t *t = m; t; t = t == m ? &single : NULL) {
            const uint32_t i = make(t, 1000 + k, pose_at((float)k, 0, 0));
            if (k % DEPTH)
                assert_int_equal(transforms__link(t, i, i - 1), 0);
            inst[k] = transforms__handle(t, i);
        }
        poses[k] = pose_at(0.5f, (float)k, 1);
        memcpy(poses[k].rotation, quarter_z, sizeof quarter_z);
        poses[k].scale[1] = 2;
    }
    /* Children listed before parents, one instance twice (the last pose wins) and two invalid
     * handles (skipped). */
    ct_transform_t order[N + 3];
    ct_transform_pose_t order_poses[N + 3];
    for (uint32_t k = 0; k < N; k++) {
        order[k] = inst[N - 1 - k];
        order_poses[k] = poses[N - 1 - k];
    }
    order[N] = inst[3];
    order_poses[N] = pose_at(9, 9, 9);
    order[N + 1] = (ct_transform_t){0};
    order[N + 2] = (ct_transform_t){m->n};
    order_poses[N + 1] = order_poses[N + 2] = pose_at(7, 7, 7);
    assert_int_equal(transforms__set_local_batch(m, order, order_poses, N + 3), 2);
    for (uint32_t k = 0; k <= N; k++) {
        const uint32_t i = order[k].i & TRANSFORMS_INDEX_MASK;
        transforms__write_local(&single, i, &order_poses[k]);
        transforms__propagate(&single, i);
    }
    assert_memory_equal(m->pose, single.pose, m->n * sizeof *m->pose);
    assert_memory_equal(m->local_m, single.local_m, m->n * sizeof *m->local_m);
    assert_memory_equal(m->world_m, single.world_m, m->n * sizeof *m->world_m);
    for (uint32_t i = 1; i < m->n; i++)
        assert_int_equal(m->mark[i], 0);
    transforms__manager_free(&single);
}

/* ---- randomized comparison with a reference model ------------------------------------------ */

enum { MAX_E = 300 };
typedef struct reference_t {
    bool live[MAX_E];
    uint32_t parent[MAX_E]; /* entity id, 0 for roots */
    ct_transform_matrix_t local[MAX_E];
} reference_t;

static uint32_t rng_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) % n;
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)rnd(10000) / 10000.0f; }

static ct_transform_pose_t random_pose(void)
{
    ct_transform_pose_t p = {{rndf(-5, 5), rndf(-5, 5), rndf(-5, 5)},
                             {rndf(-1, 1), rndf(-1, 1), rndf(-1, 1), rndf(0.2f, 1)},
                             {rndf(0.8f, 1.2f), rndf(0.8f, 1.2f), rndf(0.8f, 1.2f)}};
    transforms__quat_normalize(p.rotation);
    return p;
}

static void reference_world(const reference_t *r, uint32_t e, ct_transform_matrix_t *out)
{
    if (!r->parent[e]) {
        *out = r->local[e];
        return;
    }
    ct_transform_matrix_t pw;
    reference_world(r, r->parent[e], &pw);
    transforms__matrix_mul(&pw, &r->local[e], out);
}

/* A root keeps its world matrix as its local one (computed aside: the product must not alias). */
static void make_reference_root(reference_t *r, uint32_t e)
{
    ct_transform_matrix_t w;
    reference_world(r, e, &w);
    r->local[e] = w;
    r->parent[e] = 0;
}

static bool reference_is_ancestor(const reference_t *r, uint32_t a, uint32_t e)
{
    for (; e; e = r->parent[e])
        if (e == a)
            return true;
    return false;
}

static uint32_t reference_depth(const reference_t *r, uint32_t e)
{
    uint32_t d = 0;
    for (; r->parent[e]; e = r->parent[e])
        d++;
    return d;
}

/* Levels below e (0 for a leaf). Quadratic, but the model is small. */
static uint32_t reference_height(const reference_t *r, uint32_t e)
{
    uint32_t h = 0;
    for (uint32_t c = 1; c < MAX_E; c++) {
        if (r->live[c] && r->parent[c] == e) {
            const uint32_t hc = 1 + reference_height(r, c);
            h = hc > h ? hc : h;
        }
    }
    return h;
}

static void check_against_reference(const transforms__manager_t *m, const reference_t *r)
{
    uint32_t live = 0;
    for (uint32_t e = 1; e < MAX_E; e++) {
        const uint32_t i = transforms__find(m, e);
        if (!r->live[e]) {
            assert_int_equal(i, 0);
            continue;
        }
        live++;
        assert_true(transforms__valid(m, i));
        assert_int_equal(m->entity[i].id, e);
        assert_int_equal(m->entity[m->parent[i]].id, r->parent[e]);
        /* Every child points back, and the sibling list is doubly linked. */
        uint32_t prev = 0;
        for (uint32_t c = m->first_child[i]; c; c = m->next_sibling[c]) {
            assert_int_equal(m->parent[c], i);
            assert_int_equal(m->prev_sibling[c], prev);
            prev = c;
        }
        ct_transform_matrix_t w;
        reference_world(r, e, &w);
        for (int k = 0; k < 12; k++) {
            if (!(fabsf(m->world_m[i].m[k] - w.m[k]) <= 2e-3f * (1 + fabsf(w.m[k]))))
                fail_msg("entity %u element %d: %g vs %g", e, k, (double)m->world_m[i].m[k],
                         (double)w.m[k]);
        }
    }
    assert_int_equal(m->n - 1, live);
}

static void test_random_against_reference(void **state)
{
    transforms__manager_t *m = *state;
    reference_t *r = calloc(1, sizeof *r);
    for (uint32_t step = 0; step < 6000; step++) {
        const uint32_t e = 1 + rnd(MAX_E - 1);
        const uint32_t i = transforms__find(m, e);
        const uint32_t op = rnd(10);
        if (!r->live[e]) {
            ct_transform_pose_t p = random_pose();
            make(m, e, p);
            r->live[e] = true;
            r->parent[e] = 0;
            transforms__matrix_from_pose(&p, &r->local[e]);
        } else if (op < 2) {
            /* Children of the dying node become roots holding their world pose. */
            for (uint32_t c = 1; c < MAX_E; c++) {
                if (r->live[c] && r->parent[c] == e) {
                    make_reference_root(r, c);
                }
            }
            transforms__destroy(m, i);
            r->live[e] = false;
        } else if (op < 6) {
            const uint32_t p = 1 + rnd(MAX_E - 1);
            if (!r->live[p] || reference_is_ancestor(r, e, p)) {
                if (r->live[p])
                    assert_int_equal(transforms__link(m, i, transforms__find(m, p)),
                                     CT_ERR_INVALID);
                continue;
            }
            /* Deep random chains of random scales only measure float error; stay shallow. */
            if (reference_depth(r, p) + 1 + reference_height(r, e) > 8)
                continue;
            assert_int_equal(transforms__link(m, i, transforms__find(m, p)), 0);
            transforms__propagate(m, i);
            r->parent[e] = p;
        } else if (op < 7) {
            transforms__unlink(m, i);
            if (r->parent[e])
                make_reference_root(r, e);
        } else {
            ct_transform_pose_t p = random_pose();
            transforms__write_local(m, i, &p);
            transforms__propagate(m, i);
            transforms__matrix_from_pose(&p, &r->local[e]);
        }
        if (step % 50 == 0)
            check_against_reference(m, r);
    }
    check_against_reference(m, r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_math_round_trip),
        cmocka_unit_test_setup_teardown(test_link_unlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_five_deep_chain_updates_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_after_a_stale_instance_starts_where_first_says,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_parent_keeps_children_world_pose, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_batch_equals_single, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_against_reference, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
