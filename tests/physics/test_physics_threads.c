/* The parts of a step that the job pool splits where the serial walk had one order: the cache
 * merges (physics_contacts.c, physics_rigid.c), the rigid colouring and lanes
 * (physics_rigid_wide.c), the pair sort (physics_contacts.c) and the joints' batches
 * (physics_joints.c). Two copies of one scene step side by side, one serial and one on two
 * threads, and after every step their contacts, colours, cache and events must be the same bits,
 * the contacts and events in key order and the cache holding every contact; fixed counts say the
 * scenes really had several slices of contacts, sleeping islands whose old contacts the merge
 * carries between awake ones, and events of both kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <time.h>

/* A 28 x 28 field of two-box stacks on a ground (id 1), each dropped from its own height so the
 * stacks land, settle and fall asleep at different steps (a stack's ids are consecutive, so
 * sleeping stacks' contacts sit between awake ones in key order); a row of bouncing balls that
 * land on stacks later and wake them; a 30-wide pyramid (many colours); a slab carrying 36 boxes
 * (more contacts on one body than there are colours: the overflow). */
enum { FIELD = 28, BALLS = 12, PYRAMID = 30, SLAB = 6 };
enum { FIRST_CONTACTS = 1516, FIRST_COLOURS = 24, FIRST_BLOCKS = 392, FIRST_OVERFLOW = 13 };
static void field(physics__scene *s)
{
    const ct_rigid_body_desc_t ground = {.kind = CT_BODY_STATIC,
                                         .shape = CT_BODY_BOX,
                                         .half_extents = {80.0f, 1.0f, 80.0f},
                                         .friction = 0.6f,
                                         .position = {0, -1, 0}};
    add(s, 1, ground);
    uint32_t id = 2;
    for (int x = 0; x < FIELD; x++)
        for (int z = 0; z < FIELD; z++) {
            const float lift = 0.05f * (float)((x * 7 + z * 3) % 11);
            const float px = 1.5f * (float)(x - FIELD / 2), pz = 1.5f * (float)(z - FIELD / 2);
            add(s, id++, cube(px, 0.5f + lift, pz, 0.5f));
            add(s, id++, cube(px, 1.5f + 2.0f * lift, pz, 0.5f));
        }
    for (int k = 0; k < BALLS; k++) {
        ct_rigid_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                     .shape = CT_BODY_SPHERE,
                                     .radius = 0.3f,
                                     .mass = 0.5f,
                                     .friction = 0.6f,
                                     .restitution = 0.8f,
                                     .position = {1.5f * (float)(2 * k - FIELD / 2), 4.0f + (float)k,
                                                  1.5f * (float)(k % 5)}};
        add(s, id++, ball);
    }
    for (int i = 0; i < PYRAMID; i++)
        for (int j = i; j < PYRAMID; j++)
            add(s, id++,
                cube((float)(i + 1) * 0.5f + (float)(j - i) - 0.5f * (float)PYRAMID,
                     (2.0f * (float)i + 1.0f) * 0.5f, 60.0f, 0.5f));
    ct_rigid_body_desc_t slab = cube(0, 0.25f, -60.0f, 0.25f);
    slab.half_extents[0] = slab.half_extents[2] = 6.0f;
    slab.mass = 50.0f;
    add(s, id++, slab);
    for (int x = 0; x < SLAB; x++)
        for (int z = 0; z < SLAB; z++)
            add(s, id++, cube(2.0f * (float)x - 5.0f, 0.9f, 2.0f * (float)z - 65.0f, 0.4f));
}

typedef struct tally {
    uint32_t max_contacts, max_colours, max_overflow, carried, collisions, ended;
    uint32_t uncounted; /* two-thread merges of several slices with nothing asleep before */
} tally;

/* The events of one step: how many of each kind. Both kinds come from the one walk over the keys,
 * so their pairs ascend (whatever slices the merge was cut into). */
static void count_events(const physics__events *e, tally *t)
{
    uint32_t at = 0;
    uint64_t last = 0;
    while (at < e->size) {
        uint32_t header[4];
        memcpy(header, e->bytes + at, sizeof header);
        assert_true(header[0] == CT_PHYSICS_EVENT_COLLISION ||
                    header[0] == CT_PHYSICS_EVENT_CONTACT_ENDED);
        t->collisions += header[0] == CT_PHYSICS_EVENT_COLLISION;
        t->ended += header[0] == CT_PHYSICS_EVENT_CONTACT_ENDED;
        const uint64_t key = (uint64_t)header[2] << 32 | header[3];
        assert_true(key > last);
        last = key;
        at += 2u * (uint32_t)sizeof(uint32_t) + ((header[1] + 3u) & ~3u);
    }
}

/* The cache holds every contact of the step, and besides them only old contacts of sleeping
 * islands; it says it may hold some asleep whenever it does (the next merge counts then). */
static void cache_holds_contacts(const physics__rigid *r)
{
    uint32_t at = 0;
    bool asleep = false;
    for (uint32_t k = 0; k < r->num_contacts; k++) {
        for (; at < r->num_cache && r->cache[at].key < r->contact[k].key; at++)
            assert_true(r->cache[at].asleep);
        assert_true(at < r->num_cache && r->cache[at].key == r->contact[k].key);
        asleep |= r->cache[at].asleep != 0;
        at++;
    }
    for (; at < r->num_cache; at++)
        assert_true(r->cache[at].asleep);
    assert_true(r->cache_asleep || (!asleep && at == r->num_contacts));
}

static void same_step(const physics__scene *a, const physics__scene *b, tally *t)
{
    const physics__rigid *ra = &a->rigid, *rb = &b->rigid;
    /* The contacts in entity-pair order (the pair sort), each with its colour. */
    assert_int_equal(ra->num_contacts, rb->num_contacts);
    for (uint32_t k = 0; k < ra->num_contacts; k++) {
        assert_true(ra->contact[k].key == rb->contact[k].key);
        assert_true(k == 0 || ra->contact[k - 1].key < ra->contact[k].key);
        assert_int_equal(ra->colour_of[k], rb->colour_of[k]);
    }
    assert_int_equal(ra->num_colours, rb->num_colours);
    assert_int_equal(ra->num_blocks, rb->num_blocks);
    assert_int_equal(ra->num_overflow, rb->num_overflow);
    assert_memory_equal(ra->colour_start, rb->colour_start, sizeof ra->colour_start);
    /* The cache: sorted, and every entry the same. */
    assert_int_equal(ra->num_cache, rb->num_cache);
    for (uint32_t k = 0; k < ra->num_cache; k++) {
        const physics__rigid_cached *x = &ra->cache[k], *y = &rb->cache[k];
        assert_true(k == 0 || ra->cache[k - 1].key < x->key);
        assert_true(x->key == y->key);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->touching, y->touching);
        assert_int_equal(x->asleep, y->asleep);
        assert_memory_equal(x->jn, y->jn, sizeof x->jn);
        assert_memory_equal(x->id, y->id, sizeof x->id);
        assert_memory_equal(&x->f1, &y->f1, sizeof x->f1);
        assert_memory_equal(&x->twist, &y->twist, sizeof x->twist);
        t->carried += x->asleep;
    }
    /* The events, byte for byte. */
    assert_int_equal(a->events.size, b->events.size);
    if (a->events.size)
        assert_memory_equal(a->events.bytes, b->events.bytes, a->events.size);
    count_events(&a->events, t);
    cache_holds_contacts(ra);
    t->max_contacts = ra->num_contacts > t->max_contacts ? ra->num_contacts : t->max_contacts;
    t->max_colours = ra->num_colours > t->max_colours ? ra->num_colours : t->max_colours;
    t->max_overflow = ra->num_overflow > t->max_overflow ? ra->num_overflow : t->max_overflow;
}

/* The same for the translation-only step (v1-v3 bodies): a 40 x 40 field of two-box stacks
 * dropped from their own heights, and bouncing balls. */
enum { FLAT_FIELD = 40, FLAT_BALLS = 20 };
static void flat_field(physics__scene *s)
{
    const ct_body_desc_t ground = {.kind = CT_BODY_STATIC,
                                   .shape = CT_BODY_BOX,
                                   .half_extents = {80.0f, 1.0f, 80.0f},
                                   .friction = 0.5f,
                                   .position = {0, -1, 0}};
    assert_int_equal(physics__bodies_add(&s->bodies, (ct_entity_t){1}, &ground), 0);
    uint32_t id = 2;
    for (int x = 0; x < FLAT_FIELD; x++)
        for (int z = 0; z < FLAT_FIELD; z++)
            for (int k = 0; k < 2; k++) {
                const float lift = 0.05f * (float)((x * 7 + z * 3) % 11);
                const ct_body_desc_t d = {.kind = CT_BODY_DYNAMIC,
                                          .shape = CT_BODY_BOX,
                                          .half_extents = {0.5f, 0.5f, 0.5f},
                                          .mass = 1.0f,
                                          .friction = 0.5f,
                                          .position = {1.5f * (float)(x - FLAT_FIELD / 2),
                                                       0.5f + (float)k + (float)(k + 1) * lift,
                                                       1.5f * (float)(z - FLAT_FIELD / 2)}};
                assert_int_equal(physics__bodies_add(&s->bodies, (ct_entity_t){id++}, &d), 0);
            }
    for (int k = 0; k < FLAT_BALLS; k++) {
        const ct_body_desc_t ball = {.kind = CT_BODY_DYNAMIC,
                                     .shape = CT_BODY_SPHERE,
                                     .radius = 0.3f,
                                     .mass = 0.5f,
                                     .friction = 0.5f,
                                     .restitution = 0.8f,
                                     .position = {1.5f * (float)(2 * k - FLAT_FIELD / 2),
                                                  4.0f + (float)k, 1.5f * (float)(k % 7)}};
        assert_int_equal(physics__bodies_add(&s->bodies, (ct_entity_t){id++}, &ball), 0);
    }
}

static void same_flat_step(const physics__scene *a, const physics__scene *b, tally *t)
{
    const physics__contacts *ca = &a->contacts, *cb = &b->contacts;
    assert_int_equal(ca->n, cb->n);
    for (uint32_t k = 0; k < ca->n; k++) {
        assert_true(ca->key[k] == cb->key[k]);
        assert_true(k == 0 || ca->key[k - 1] < ca->key[k]);
    }
    assert_int_equal(a->num_cache, b->num_cache);
    uint32_t at = 0;
    for (uint32_t k = 0; k < a->num_cache; k++) {
        const physics__cached *x = &a->cache[k], *y = &b->cache[k];
        assert_true(k == 0 || a->cache[k - 1].key < x->key);
        assert_true(x->key == y->key);
        assert_memory_equal(&x->jn, &y->jn, 4 * sizeof x->jn);
        assert_int_equal(x->touching, y->touching);
        assert_int_equal(x->asleep, y->asleep);
        t->carried += x->asleep;
        /* Every contact is there; the rest are sleeping ones. */
        if (at < ca->n && x->key == ca->key[at])
            at++;
        else
            assert_true(x->asleep);
    }
    assert_int_equal(at, ca->n);
    assert_int_equal(a->events.size, b->events.size);
    if (a->events.size)
        assert_memory_equal(a->events.bytes, b->events.bytes, a->events.size);
    count_events(&a->events, t);
    t->max_contacts = ca->n > t->max_contacts ? ca->n : t->max_contacts;
}

/* Two copies of the scene `build` makes: *a serial, *b on two threads. */
static void twins(physics__scene *a, physics__scene *b, void (*build)(physics__scene *s))
{
    scene_init(a);
    scene_init(b);
    a->pool = (physics__pool){0};
    b->pool = two_threads;
    build(a);
    build(b);
}

/* A step of each. */
static void step_twins(physics__scene *a, physics__scene *b)
{
    assert_int_equal(physics__scene_step(a, 1.0f / 60.0f), 0);
    assert_int_equal(physics__scene_step(b, 1.0f / 60.0f), 0);
}

static void test_flat_field_same_on_threads(void **state)
{
    (void)state;
    physics__scene a, b;
    twins(&a, &b, flat_field);
    tally t = {0};
    for (int step = 0; step < 150; step++) {
        step_twins(&a, &b);
        same_flat_step(&a, &b, &t);
    }
    const uint64_t h = physics__state_hash(&a, NULL, NULL);
    assert_true(h == physics__state_hash(&b, NULL, NULL));
    print_message("flat field: %u contacts at most, %u carried asleep, %u collisions, %u ended\n",
                  t.max_contacts, t.carried, t.collisions, t.ended);
    assert_true(t.max_contacts > 2 * SOLVER_SLICE_PAIRS);
    assert_true(t.carried > 0);
    assert_true(t.collisions > 0 && t.ended > 0);
    physics__scene_free(&a);
    physics__scene_free(&b);
}

static void test_field_same_on_threads(void **state)
{
    (void)state;
    physics__scene a, b;
    twins(&a, &b, field);
    tally t = {0};
    for (int step = 0; step < 150; step++) {
        const bool none_asleep = !b.rigid.cache_asleep;
        step_twins(&a, &b);
        t.uncounted += none_asleep && b.rigid.num_contacts > SOLVER_SLICE_PAIRS;
        same_step(&a, &b, &t);
        if (step > 0)
            continue;
        /* The first step's contacts follow from the shapes alone: 28 x 28 stacks and the slab's
         * boxes on the ground, the pyramid's, the slab's 36; colours up to the last one and the
         * slab's boxes past it. */
        print_message("first step: %u contacts, %u colours, %u blocks, %u overflow\n",
                      a.rigid.num_contacts, a.rigid.num_colours, a.rigid.num_blocks,
                      a.rigid.num_overflow);
        assert_int_equal(a.rigid.num_contacts, FIRST_CONTACTS);
        assert_int_equal(a.rigid.num_colours, FIRST_COLOURS);
        assert_int_equal(a.rigid.num_blocks, FIRST_BLOCKS);
        assert_int_equal(a.rigid.num_overflow, FIRST_OVERFLOW);
    }
    const uint64_t h = physics__state_hash(&a, NULL, NULL);
    assert_true(h == physics__state_hash(&b, NULL, NULL));
    print_message("field: %u contacts at most, %u colours, %u overflow, %u carried asleep, "
                  "%u collisions, %u ended, %u merges uncounted, hash 0x%016llx\n",
                  t.max_contacts, t.max_colours, t.max_overflow, t.carried, t.collisions, t.ended,
                  t.uncounted, (unsigned long long)h);
    /* Several slices of contacts (SOLVER_SLICE_PAIRS each), old contacts carried, both events;
     * merges of several slices both without a count (nothing asleep yet) and with one. */
    assert_true(t.max_contacts > 2 * SOLVER_SLICE_PAIRS);
    assert_true(t.carried > 0);
    assert_true(t.uncounted > 0 && t.uncounted < 150);
    assert_true(t.collisions > 0 && t.ended > 0);
    physics__scene_free(&a);
    physics__scene_free(&b);
}

/* physics_joints.c's batches: joints of one batch share no moving body and are solved on any
 * threads. A grid of balls joined to their neighbours (as Box3D's joint_grid; top row static),
 * swinging from a push, with more joints than JOINT_COLOUR_MIN, so they go in colours; beside it
 * a kinematic bar turning among hinged bodies (one body that does not move shared by joints of
 * every batch), a row of pendulums hinged to the world and a hub of more spokes than there are
 * colours (the overflow); then 30 chains of 12 links hanging from the world, fewer joints than
 * JOINT_COLOUR_MIN: in waves, one per link. On two threads every step must give the serial bits,
 * bodies and joints, and every joint must hold. */
enum { GRID_COLUMNS = 45, GRID_ROWS = 30, HUB_SPOKES = 70, CHAINS = 30, LINKS = 12 };
static void joint_grid(physics__scene *s)
{
    s->sleeping = false;
    physics__bodies *b = &s->bodies;
    uint32_t id;
    for (int k = 0; k < GRID_COLUMNS; k++)
        for (int i = 0; i < GRID_ROWS; i++) {
            ct_rigid_body_desc_t d = {.kind = i == 0 ? CT_BODY_STATIC : CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_SPHERE,
                                      .radius = 0.4f,
                                      .mass = 1.0f,
                                      .friction = 0.6f,
                                      .position = {(float)k, -(float)i, 0.0f},
                                      .velocity = {0.0f, 0.0f, i == GRID_ROWS - 1 ? 3.0f : 0.0f}};
            const uint32_t e = 10u + (uint32_t)(k * GRID_ROWS + i);
            add(s, e, d);
            b->layer[at(s, e)] = 2u, b->mask[at(s, e)] = ~2u; /* the balls never meet */
        }
    for (int k = 0; k < GRID_COLUMNS; k++)
        for (int i = 1; i < GRID_ROWS; i++) {
            const uint32_t me = at(s, 10u + (uint32_t)(k * GRID_ROWS + i));
            const ct_joint_desc_t up = {.type = CT_JOINT_BALL,
                                        .anchor = {(float)k, 0.5f - (float)i, 0.0f},
                                        .axis = {0, 1, 0}};
            assert_int_equal(physics__joints_add(s, at(s, 10u + (uint32_t)(k * GRID_ROWS + i - 1)),
                                                 me, &up, &id),
                             0);
            if (k == 0)
                continue;
            const ct_joint_desc_t left = {.type = CT_JOINT_BALL,
                                          .anchor = {(float)k - 0.5f, -(float)i, 0.0f},
                                          .axis = {0, 1, 0}};
            assert_int_equal(physics__joints_add(s,
                                                 at(s, 10u + (uint32_t)((k - 1) * GRID_ROWS + i)),
                                                 me, &left, &id),
                             0);
        }
    /* The bar (entity 2) and eight boxes hinged to it, limited; eight pendulums on the world. */
    ct_rigid_body_desc_t bar = cube(0.0f, 5.0f, 10.0f, 0.25f);
    bar.kind = CT_BODY_KINEMATIC;
    bar.half_extents[0] = 4.0f;
    bar.angular_velocity[1] = 1.0f;
    add(s, 2, bar);
    for (int q = 0; q < 8; q++) {
        const float x = (float)q - 3.5f;
        add(s, 1000000u + (uint32_t)q, cube(x, 4.0f, 10.0f, 0.2f));
        const ct_joint_desc_t hinge = {.type = CT_JOINT_HINGE,
                                       .flags = CT_JOINT_LIMIT,
                                       .anchor = {x, 4.6f, 10.0f},
                                       .axis = {1, 0, 0},
                                       .lower = -0.5f,
                                       .upper = 0.5f};
        assert_int_equal(
            physics__joints_add(s, at(s, 2), at(s, 1000000u + (uint32_t)q), &hinge, &id), 0);
        ct_rigid_body_desc_t bob = cube(x, 4.0f, 20.0f, 0.2f);
        bob.velocity[2] = (float)q;
        add(s, 1000100u + (uint32_t)q, bob);
        const ct_joint_desc_t pivot = {
            .type = CT_JOINT_HINGE, .anchor = {x, 5.0f, 20.0f}, .axis = {1, 0, 0}};
        assert_int_equal(
            physics__joints_add(s, UINT32_MAX, at(s, 1000100u + (uint32_t)q), &pivot, &id), 0);
    }
    /* A hub of HUB_SPOKES balls, each joined to it: more joints on one body than there are
     * colours, the last ones the overflow. */
    add(s, 3, cube(0.0f, 5.0f, -10.0f, 0.5f));
    for (int q = 0; q < HUB_SPOKES; q++) {
        const float turn = 6.2831853f * (float)q / (float)HUB_SPOKES;
        const float x = 4.0f * cosf(turn), z = -10.0f + 4.0f * sinf(turn);
        add(s, 1000200u + (uint32_t)q, cube(x, 5.0f, z, 0.1f));
        const ct_joint_desc_t spoke = {.type = CT_JOINT_BALL,
                                       .anchor = {0.5f * x, 5.0f, -10.0f + 0.5f * (z + 10.0f)},
                                       .axis = {0, 1, 0}};
        assert_int_equal(
            physics__joints_add(s, at(s, 3), at(s, 1000200u + (uint32_t)q), &spoke, &id), 0);
    }
}

static void joint_chains(physics__scene *s)
{
    s->sleeping = false;
    uint32_t id;
    for (int c = 0; c < CHAINS; c++)
        for (int l = 0; l < LINKS; l++) {
            const uint32_t e = 10u + (uint32_t)(c * LINKS + l);
            ct_rigid_body_desc_t link = cube(2.0f * (float)c, -(float)l, 0.0f, 0.3f);
            link.velocity[0] = l == LINKS - 1 ? 0.2f * (float)c : 0.0f;
            add(s, e, link);
            const ct_joint_desc_t d = {.type = CT_JOINT_BALL,
                                       .anchor = {2.0f * (float)c, 0.5f - (float)l, 0.0f},
                                       .axis = {0, 1, 0}};
            assert_int_equal(
                physics__joints_add(s, l == 0 ? UINT32_MAX : at(s, e - 1u), at(s, e), &d, &id), 0);
        }
}

static void joints_same_on_threads(void (*build)(physics__scene *), uint32_t batches, bool overflow)
{
    physics__scene a, b;
    twins(&a, &b, build);
    const physics__v3 from = a.bodies.position[a.bodies.n - 1];
    for (int step = 0; step < 60; step++) {
        step_twins(&a, &b);
        assert_true(physics__state_hash(&a, NULL, NULL) == physics__state_hash(&b, NULL, NULL));
        assert_int_equal(a.joints.n, b.joints.n);
        assert_memory_equal(a.joints.j, b.joints.j, (size_t)a.joints.n * sizeof *a.joints.j);
        assert_int_equal(a.joints.num_batches, batches);
        assert_int_equal(a.joints.overflow, overflow);
    }
    /* The scene moved (the last body swung off) and every joint held: its anchors (each ball's
     * and hinge's meet) within 1 cm, which a joint left out of its batch would not be. */
    const physics__v3 moved = v3_sub(a.bodies.position[a.bodies.n - 1], from);
    float gap = 0.0f;
    for (uint32_t k = 0; k < a.joints.n; k++) {
        const physics__joint *j = &a.joints.j[k];
        const physics__v3 pa =
            j->a == UINT32_MAX
                ? j->la
                : v3_add(a.bodies.position[j->a], quat_rotate(a.bodies.rotation[j->a], j->la));
        const physics__v3 pb =
            v3_add(a.bodies.position[j->b], quat_rotate(a.bodies.rotation[j->b], j->lb));
        gap = f_max(gap, v3_len(v3_sub(pb, pa)));
    }
    print_message("%u joints in %u batches; the last body moved %.3f m, largest gap %.2f mm\n",
                  a.joints.n, a.joints.num_batches, (double)v3_len(moved), 1e3 * (double)gap);
    assert_true(v3_len(moved) > 0.1f);
    assert_true(gap < 0.01f);
    physics__scene_free(&a);
    physics__scene_free(&b);
}

static void test_joint_grid_same_on_threads(void **state)
{
    (void)state;
    /* The 63 colours and the overflow. */
    joints_same_on_threads(joint_grid, 64, true);
}

static void test_joint_chains_same_on_threads(void **state)
{
    (void)state;
    joints_same_on_threads(joint_chains, LINKS, false);
}

/* physics__joints_begin finds the joints' bodies on any threads, and wakes one after the other
 * from the first joint whose bodies are to wake (a sleeping body joined to one that moves): the
 * chains above with sleep on, the middle one hung from a kinematic body instead of the world (a
 * body that never sleeps). Once still, the chains fall asleep; the middle chain, asleep, is woken
 * by its joint to the kinematic body at the next step (its joints are in the middle slice of
 * joints, after a slice with none to wake), and sleeps again after a while. On two threads every
 * step must give the serial bits. */
static void hung_chains(physics__scene *s)
{
    uint32_t id;
    ct_rigid_body_desc_t hook = cube(2.0f * (float)(CHAINS / 2), 1.0f, 0.0f, 0.2f);
    hook.kind = CT_BODY_KINEMATIC;
    add(s, 5, hook);
    for (int c = 0; c < CHAINS; c++)
        for (int l = 0; l < LINKS; l++) {
            const uint32_t e = 10u + (uint32_t)(c * LINKS + l);
            add(s, e, cube(2.0f * (float)c, -(float)l, 0.0f, 0.3f));
            const ct_joint_desc_t d = {.type = CT_JOINT_BALL,
                                       .anchor = {2.0f * (float)c, 0.5f - (float)l, 0.0f},
                                       .axis = {0, 1, 0}};
            const uint32_t above = l > 0 ? at(s, e - 1u) : c == CHAINS / 2 ? at(s, 5) : UINT32_MAX;
            assert_int_equal(physics__joints_add(s, above, at(s, e), &d, &id), 0);
        }
}

static void test_joined_sleepers_wake_the_same_on_threads(void **state)
{
    (void)state;
    physics__scene a, b;
    twins(&a, &b, hung_chains);
    const uint32_t top = at(&a, 10u + (CHAINS / 2) * LINKS), other = at(&a, 10u);
    uint32_t woken = 0, slept = 0;
    for (int step = 0; step < 400; step++) {
        const bool was = a.bodies.asleep[top];
        step_twins(&a, &b);
        assert_true(physics__state_hash(&a, NULL, NULL) == physics__state_hash(&b, NULL, NULL));
        assert_memory_equal(a.bodies.asleep, b.bodies.asleep, a.bodies.n);
        woken += was && !a.bodies.asleep[top];
        slept += !was && a.bodies.asleep[top];
    }
    print_message("the hung chain slept %u times and was woken %u times\n", slept, woken);
    /* (12 and 12: the middle chain sleeps for a step, a dozen times in the 400.) */
    assert_true(woken > 5);
    assert_int_equal(woken, slept);
    assert_true(a.bodies.asleep[other]);
    physics__scene_free(&a);
    physics__scene_free(&b);
}

/* physics_stages.c: a chain of stages where each reads what the whole stage before wrote (value i
 * of stage k is the sum of values i and i + 1 of stage k - 1, around a ring of CHAIN), some of
 * many items, some of one item (run back to back by one thread). The totals double at every
 * stage, so the last stage's total is fixed; on two threads every value matches the serial run,
 * which only holds when no stage starts before the one before has finished. */
enum { CHAIN = 96, CHAIN_STAGES = 40 };
typedef struct chain_job {
    uint64_t *v;
    uint32_t k;
} chain_job;

/* (Work enough that both threads are inside a stage at once: an item of a few microseconds.) */
static volatile uint32_t chain_sink;

static void chain_range(void *user, uint32_t begin, uint32_t end)
{
    const chain_job *job = user;
    const uint64_t *from = job->v + (size_t)(job->k - 1) * CHAIN;
    uint64_t *to = job->v + (size_t)job->k * CHAIN;
    for (uint32_t i = begin; i < end; i++) {
        uint32_t x = i + job->k;
        for (int turn = 0; turn < 2000; turn++)
            x = x * 1664525u + 1013904223u;
        chain_sink = x;
        to[i] = from[i] + from[(i + 1) % CHAIN];
    }
}

static void chain_run(physics__pool with, uint64_t *v)
{
    physics__stages st = {0};
    for (uint32_t i = 0; i < CHAIN; i++)
        v[i] = i * i + 1;
    /* Twice, so the second run reuses what the first grew. */
    for (int round = 0; round < 2; round++) {
        for (uint32_t k = 1; k < CHAIN_STAGES; k++) {
            const chain_job job = {v, k};
            /* Stages 5-9 and 20-22 are one item each; the others one or three values an item. */
            const bool single = (k >= 5 && k < 10) || (k >= 20 && k < 23);
            physics__stages_add(&st, &alloc.base, chain_range, (void *)&job, sizeof job, CHAIN,
                                single ? 0u : (k % 2 ? 1u : 3u));
        }
        /* A stage of no items adds nothing. */
        physics__stages_add(&st, &alloc.base, chain_range, NULL, 0, 0, 1);
        assert_int_equal(st.n, CHAIN_STAGES - 1);
        assert_int_equal(physics__stages_run(&st, &alloc.base, with, false), 0);
        assert_int_equal(st.n, 0);
    }
    /* A job larger than a stage keeps is refused: the run fails and runs nothing. */
    uint64_t big[8] = {0};
    physics__stages_add(&st, &alloc.base, chain_range, big, sizeof big, CHAIN, 1);
    assert_int_equal(physics__stages_run(&st, &alloc.base, with, false), CT_ERR_NOMEM);
    assert_int_equal(st.n, 0);
    physics__stages_free(&st, &alloc.base);
}

static void test_stages_keep_order_on_threads(void **state)
{
    (void)state;
    static uint64_t serial[CHAIN_STAGES * CHAIN], threaded[CHAIN_STAGES * CHAIN];
    chain_run((physics__pool){0}, serial);
    uint64_t first = 0, last = 0;
    for (uint32_t i = 0; i < CHAIN; i++) {
        first += serial[i];
        last += serial[(CHAIN_STAGES - 1) * CHAIN + i];
    }
    /* The sum of i * i + 1 for i < 96 is 290,416; 39 doublings. */
    assert_int_equal(first, 290416u);
    assert_true(last == 290416ull << (CHAIN_STAGES - 1));
    for (int round = 0; round < 10; round++) {
        memset(threaded, 0, sizeof threaded);
        chain_run(two_threads, threaded);
        assert_memory_equal(serial, threaded, sizeof serial);
    }
}

/* physics_stages.c on a busy machine: one thread keeps the last item of a stage (as when another
 * program takes its core), so the other, done with its own item, waits far longer than it spins and
 * goes to sleep; the one that finishes the stage must wake it, and the next stage must still read
 * all that the held one wrote. The two items first wait (at most a second) until both have started,
 * which shows they run on two threads; when the pool's worker never came (a machine too busy),
 * nobody waited and nothing slept. A waiting thread spins for twice as long as its own items took
 * (here: since the run began) before it sleeps, so the hold is twice the time from the run's start
 * to both items under way, and 20 ms more: on a loaded machine the start alone can take
 * milliseconds, and a fixed hold was then shorter than the spin (the test failed under load 13). */
enum { HELD_RUNS = 4 };
typedef struct held_job {
    atomic_uint started;
    uint32_t wrote[2], read[2];
    bool both;         /* both items were under way at once */
    uint64_t begun_ns; /* when the run began */
} held_job;

static uint64_t held_now_ns(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void held_range(void *user, uint32_t begin, uint32_t end)
{
    held_job *job = user;
    for (uint32_t i = begin; i < end; i++) {
        atomic_fetch_add(&job->started, 1u);
        for (int wait = 0; wait < 1000 && atomic_load(&job->started) < 2u; wait++)
            thrd_sleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        if (atomic_load(&job->started) == 2u && i == 0) {
            job->both = true;
            const uint64_t hold = 2u * (held_now_ns() - job->begun_ns) + 20000000u;
            thrd_sleep(&(struct timespec){.tv_sec = (time_t)(hold / 1000000000u),
                                          .tv_nsec = (long)(hold % 1000000000u)},
                       NULL);
        }
        job->wrote[i] = i + 1;
    }
}

static void held_sum_range(void *user, uint32_t begin, uint32_t end)
{
    held_job *job = user;
    for (uint32_t i = begin; i < end; i++)
        job->read[i] = job->wrote[0] + job->wrote[1];
}

static void test_stages_sleep_through_a_held_stage(void **state)
{
    (void)state;
    physics__stages st = {0};
    uint32_t overlapped = 0;
    for (int run = 0; run < HELD_RUNS; run++) {
        held_job job = {0};
        atomic_init(&job.started, 0u);
        physics__stages_add(&st, &alloc.base, held_range, &job, 0, 2, 1);
        physics__stages_add(&st, &alloc.base, held_sum_range, &job, 0, 2, 1);
        const uint32_t naps = st.naps;
        job.begun_ns = held_now_ns();
        assert_int_equal(physics__stages_run(&st, &alloc.base, two_threads, false), 0);
        assert_int_equal(job.read[0], 3);
        assert_int_equal(job.read[1], 3);
        /* The waiting thread slept through the held item, and was woken (it may sleep again in
         * the second stage when the machine is busy). */
        if (job.both) {
            overlapped++;
            assert_true(st.naps >= naps + 1);
        }
    }
    print_message("held stage: both items at once in %u of %d runs, %u naps\n", overlapped,
                  HELD_RUNS, st.naps);
    physics__stages_free(&st, &alloc.base);
}

/* physics_stages.c: a stage's items are cut from its ranges, several ranges an item at its ends
 * and one in its middle; every element of every stage runs exactly once, whatever its count and
 * grain, on two threads (each stage counts into an array of its own). */
enum { ONCE_MAX = 130 };
static atomic_uint once_hits[ONCE_MAX * 3][ONCE_MAX];

static void once_range(void *user, uint32_t begin, uint32_t end)
{
    atomic_uint *hits = user;
    for (uint32_t i = begin; i < end; i++) {
        uint32_t x = i;
        for (int turn = 0; turn < 200; turn++)
            x = x * 1664525u + 1013904223u;
        chain_sink = x;
        atomic_fetch_add_explicit(&hits[i], 1u, memory_order_relaxed);
    }
}

static void test_stages_run_each_element_once(void **state)
{
    (void)state;
    static const uint32_t grains[3] = {1, 3, 7};
    memset(once_hits, 0, sizeof once_hits);
    physics__stages st = {0};
    for (uint32_t count = 1; count <= ONCE_MAX; count++)
        for (uint32_t g = 0; g < 3; g++)
            physics__stages_add(&st, &alloc.base, once_range, once_hits[(count - 1) * 3 + g], 0,
                                count, grains[g]);
    assert_int_equal(physics__stages_run(&st, &alloc.base, two_threads, false), 0);
    for (uint32_t count = 1; count <= ONCE_MAX; count++)
        for (uint32_t g = 0; g < 3; g++)
            for (uint32_t i = 0; i < ONCE_MAX; i++)
                assert_int_equal(atomic_load(&once_hits[(count - 1) * 3 + g][i]), i < count);
    physics__stages_free(&st, &alloc.base);
}

/* physics_stages.c: a run whose stages are all of one item has nothing to share, so it never
 * hands the pool a section (one woke a worker for nothing before: the pair sort of a few hundred
 * pairs is such a run); a run with a stage of two items does, once. */
static uint32_t counted_sections, counted_ranges;

static void counting_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn,
                                  void *user)
{
    counted_sections++;
    counted_ranges = count;
    two_threads.parallel_for(ctx, count, grain, fn, user);
}

static void test_stages_of_one_item_stay_on_the_caller(void **state)
{
    (void)state;
    if (!two_threads.parallel_for)
        skip(); /* (no job service on this machine) */
    const physics__pool counting = {counting_parallel_for, two_threads.ctx, two_threads.threads};
    physics__stages st = {0};
    static uint64_t v[CHAIN_STAGES * CHAIN];
    for (uint32_t i = 0; i < CHAIN; i++)
        v[i] = 1;
    for (uint32_t k = 1; k < 4; k++) {
        const chain_job job = {v, k};
        physics__stages_add(&st, &alloc.base, chain_range, (void *)&job, sizeof job, CHAIN, 0);
    }
    counted_sections = 0;
    assert_int_equal(physics__stages_run(&st, &alloc.base, counting, false), 0);
    assert_int_equal(counted_sections, 0);
    /* Three doublings of 96 ones. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < CHAIN; i++)
        total += v[3 * CHAIN + i];
    assert_int_equal(total, 96u * 8u);
    const chain_job job = {v, 4};
    physics__stages_add(&st, &alloc.base, chain_range, (void *)&job, sizeof job, CHAIN, 48);
    assert_int_equal(physics__stages_run(&st, &alloc.base, counting, false), 0);
    assert_int_equal(counted_sections, 1);
    total = 0;
    for (uint32_t i = 0; i < CHAIN; i++)
        total += v[4 * CHAIN + i];
    assert_int_equal(total, 96u * 16u);
    physics__stages_free(&st, &alloc.base);
}

/* physics_stages.c: a section of stages hands a pool that says how many threads it has one part
 * each (a part past that found the run over: 14 wasted calls of 16 at each run on two threads),
 * and one of an unknown number of threads enough parts for any; the stages run the same. */
static void test_stages_hand_each_thread_one_part(void **state)
{
    (void)state;
    if (!two_threads.parallel_for)
        skip(); /* (no job service on this machine) */
    static uint64_t v[CHAIN_STAGES * CHAIN];
    for (uint32_t threads = 0; threads <= 2; threads += 2) {
        const physics__pool counting = {counting_parallel_for, two_threads.ctx, threads};
        physics__stages st = {0};
        for (uint32_t i = 0; i < CHAIN; i++)
            v[i] = 1;
        for (uint32_t k = 1; k < 4; k++) {
            const chain_job job = {v, k};
            physics__stages_add(&st, &alloc.base, chain_range, (void *)&job, sizeof job, CHAIN, 4);
        }
        counted_sections = counted_ranges = 0;
        assert_int_equal(physics__stages_run(&st, &alloc.base, counting, false), 0);
        assert_int_equal(counted_sections, 1);
        assert_int_equal(counted_ranges, threads ? threads : 16u);
        uint64_t total = 0;
        for (uint32_t i = 0; i < CHAIN; i++)
            total += v[3 * CHAIN + i];
        assert_int_equal(total, 96u * 8u);
        physics__stages_free(&st, &alloc.base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_field_same_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flat_field_same_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_joint_grid_same_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_joint_chains_same_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_joined_sleepers_wake_the_same_on_threads, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stages_keep_order_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stages_sleep_through_a_held_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stages_run_each_element_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stages_of_one_item_stay_on_the_caller, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stages_hand_each_thread_one_part, setup, teardown),
    };
    if (physics_fixture_start())
        return 1;
    const int failed = cmocka_run_group_tests_name("threads", tests, NULL, NULL);
    physics_fixture_stop();
    return failed;
}
