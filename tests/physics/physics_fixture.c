/* physics_fixture.c: the kernel-free physics tests' shared fixture (physics_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"
#include "physics_hull.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef PHYSICS_FIXTURE_NO_JOBS
#include "base/jobs.h"
#endif

test_alloc_t alloc;
physics__pool pool, two_threads;
uint32_t rng_state = 12345u;

#ifndef PHYSICS_FIXTURE_NO_JOBS
static void fixture_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn,
                                 void *user)
{
    const ct_jobs_api_v1 *jobs = ctx;
    jobs->parallel_for(count, grain, fn, user);
}
#endif

int setup(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    return 0;
}

int teardown(void **state)
{
    (void)state;
    assert_int_equal(alloc.live_blocks, 0);
    assert_int_equal(alloc.live_bytes, 0);
    return 0;
}

void scene_init(physics__scene *s)
{
    physics__scene_init(s, &alloc.base);
    s->pool = pool;
}

void add_ground(physics__scene *s, float half)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {half, 1.0f, half},
                                    .friction = 0.6f,
                                    .position = {0, -1, 0}};
    assert_int_equal(physics__bodies_add_rigid(&s->bodies, (ct_entity_t){1}, &d), 0);
}

void on_ground(physics__scene *s, float half, bool sleeping)
{
    scene_init(s);
    s->sleeping = sleeping;
    add_ground(s, half);
}

uint32_t at(const physics__scene *s, uint32_t id)
{
    const uint32_t i = physics__bodies_find(&s->bodies, (ct_entity_t){id});
    assert_int_not_equal(i, UINT32_MAX);
    return i;
}

void run(physics__scene *s, int steps)
{
    for (int k = 0; k < steps; k++)
        assert_int_equal(physics__scene_step(s, 1.0f / 60.0f), 0);
}

ct_rigid_body_desc_t cube(float x, float y, float z, float h)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {h, h, h},
                                  .mass = 1.0f,
                                  .friction = 0.6f,
                                  .position = {x, y, z}};
}

void add(physics__scene *s, uint32_t id, ct_rigid_body_desc_t d)
{
    assert_int_equal(physics__bodies_add_rigid(&s->bodies, (ct_entity_t){id}, &d), 0);
}

physics__mesh *height_field(const float *heights, uint32_t cols, uint32_t rows, float sx, float sz)
{
    float *v;
    uint32_t *ix;
    assert_null(physics__height_field_mesh(&alloc.base, heights, cols, rows, sx, sz, &v, &ix));
    const uint32_t nv = cols * rows, nt = (cols - 1) * (rows - 1) * 2;
    physics__mesh *m;
    char reason[160];
    assert_null(physics__mesh_build(&alloc.base, v, nv, ix, nt, &m, reason, sizeof reason));
    ct_free(&alloc.base, v, (size_t)nv * 3 * sizeof *v);
    ct_free(&alloc.base, ix, (size_t)nt * 3 * sizeof *ix);
    return m;
}

void add_wavy_mesh(physics__scene *s, uint32_t id, uint32_t n, float cell, float amp,
                   float restitution, float x0, float z0)
{
    const uint32_t side = n + 1;
    float *heights = ct_alloc(&alloc.base, (size_t)side * side * sizeof *heights);
    assert_non_null(heights);
    for (uint32_t z = 0; z < side; z++)
        for (uint32_t x = 0; x < side; x++)
            heights[z * side + x] = amp * sinf(0.6f * (float)x) * cosf(0.5f * (float)z);
    physics__mesh *m = height_field(heights, side, side, cell, cell);
    ct_free(&alloc.base, heights, (size_t)side * side * sizeof *heights);
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_MESH,
                                    .friction = 0.5f,
                                    .restitution = restitution,
                                    .position = {x0, 0, z0}};
    assert_int_equal(physics__bodies_add_mesh(&s->bodies, (ct_entity_t){id}, &d, m), 0);
}

static void shape_pile(physics__scene *s, uint32_t first_id, bool copies)
{
    const float pyramid[15] = {0, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, -1};
    physics__hull built;
    char reason[128];
    assert_null(physics__hull_build(&built, pyramid, 5, reason, sizeof reason));
    uint32_t id = first_id;
    for (int x = -3; x <= 3; x++)
        for (int y = 0; y < 4; y++)
            for (int z = -3; z <= 3; z++) {
                ct_rigid_body_desc_t d = {
                    .kind = CT_BODY_DYNAMIC,
                    .mass = 1,
                    .friction = 0.5f,
                    .restitution = 0.3f,
                    .position = {3.5f * (float)x, 4.0f + 2.0f * (float)y, 3.5f * (float)z}};
                if (y == 3) {
                    d.shape = CT_BODY_HULL;
                    physics__hull *h = copies ? ct_alloc(&alloc.base, sizeof *h)
                                              : physics__bodies_hull(&s->bodies, &built);
                    assert_non_null(h);
                    if (copies)
                        *h = built;
                    assert_int_equal(
                        physics__bodies_add_hull(&s->bodies, (ct_entity_t){id++}, &d, h), 0);
                    continue;
                }
                d.shape = y == 0 ? CT_BODY_BOX : y == 1 ? CT_BODY_SPHERE : CT_BODY_CAPSULE;
                d.half_extents[0] = 0.5f, d.half_extents[1] = 0.75f, d.half_extents[2] = 1.0f;
                d.radius = 0.5f, d.half_height = 0.75f;
                add(s, id++, d);
            }
}

void add_shape_pile(physics__scene *s, uint32_t first_id) { shape_pile(s, first_id, false); }

void add_shape_pile_copies(physics__scene *s, uint32_t first_id) { shape_pile(s, first_id, true); }

void swept_step(physics__scene *s, uint32_t id)
{
    const float dt = 1.0f / 60.0f;
    s->events.size = 0;
    assert_int_equal(physics__ccd_begin(s), 0);
    const uint32_t i = at(s, id);
    s->bodies.position[i] = v3_add(s->bodies.position[i], v3_scale(s->bodies.velocity[i], dt));
    physics__bodies_extent(&s->bodies, i);
    assert_int_equal(physics__ccd_end(s, dt), 0);
}

void add_room(physics__scene *s, uint32_t first_id, float half)
{
    static const int axis_of[6] = {1, 1, 2, 2, 0, 0};
    for (uint32_t k = 0; k < 6; k++) {
        const int axis = axis_of[k];
        ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {half, half, half},
                                  .restitution = 1.0f,
                                  .friction = 0.5f};
        d.half_extents[axis] = 0.01f;
        d.position[axis] = k % 2 ? half : -half;
        add(s, first_id + k, d);
    }
}

ct_rigid_body_desc_t thin_plank(void)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = CT_BODY_BOX,
                                  .half_extents = {0.01f, 1.0f, 1.0f},
                                  .mass = 20.0f,
                                  .friction = 0.5f,
                                  .rotation = {0, 0, 0, 1}};
}

void add_board(physics__scene *s, uint32_t id, float x, float y, float z, float yaw, float tilt)
{
    const physics__quat q =
        quat_mul((physics__quat){0.0f, sinf(0.5f * yaw), 0.0f, cosf(0.5f * yaw)},
                 (physics__quat){sinf(0.5f * tilt), 0.0f, 0.0f, cosf(0.5f * tilt)});
    add(s, id,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_BOX,
                               .half_extents = {0.5f, 0.01f, 0.15f},
                               .mass = 2.0f,
                               .friction = 0.5f,
                               .position = {x, y, z},
                               .rotation = {q.x, q.y, q.z, q.w}});
}

void plank_shot(physics__scene *s, uint32_t bullet, uint32_t plank, bool asleep, physics__pool with)
{
    physics__scene_init(s, &alloc.base);
    s->pool = with;
    s->gravity = v3(0, 0, 0);
    add(s, plank, thin_plank());
    run(s, 40);
    assert_int_equal(s->bodies.asleep[at(s, plank)], 1);
    if (!asleep)
        physics__scene_wake(s, at(s, plank));
    add(s, bullet,
        (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                               .shape = CT_BODY_SPHERE,
                               .radius = 0.05f,
                               .mass = 0.1f,
                               .friction = 0.5f,
                               .position = {-0.3f, 0.3f, 0.2f},
                               .velocity = {250.0f, 0, 0}});
    physics__scene_touched(s, at(s, bullet));
    swept_step(s, bullet);
}

uint8_t *save_snapshot(physics__scene *s, uint32_t *size)
{
    *size = physics__snapshot_size(s, NULL);
    uint8_t *snap = malloc(*size);
    assert_non_null(snap);
    assert_int_equal(physics__snapshot_save(s, NULL, snap, *size), *size);
    return snap;
}

void run_recording(physics__scene *s, int steps, uint64_t *hashes)
{
    for (int k = 0; k < steps; k++) {
        run(s, 1);
        hashes[k] = physics__state_hash(s, NULL, NULL);
    }
}

void run_matching(physics__scene *s, int steps, const uint64_t *hashes)
{
    for (int k = 0; k < steps; k++) {
        run(s, 1);
        assert_true(physics__state_hash(s, NULL, NULL) == hashes[k]);
    }
}

void run_rolled_back(physics__scene *s, const uint8_t *snap, uint32_t size, int steps,
                     uint64_t *hashes)
{
    run_recording(s, steps, hashes);
    assert_int_equal(physics__snapshot_restore(s, NULL, snap, size), 0);
    run_matching(s, steps, hashes);
}

/* Built with PHYSICS_FIXTURE_NO_JOBS (the clang builds of the hash tests, which link no kernel)
 * two_threads stays zero: a test's own "two threads" pass runs serially again, and
 * physics_fixture_run_groups runs no second group. */
int physics_fixture_start(void)
{
#ifndef PHYSICS_FIXTURE_NO_JOBS
    if (jobs__init(2))
        return 1;
    two_threads = (physics__pool){fixture_parallel_for, (void *)jobs__api_v1(),
                                  jobs__api_v1()->thread_count()};
#endif
    return 0;
}

void physics_fixture_stop(void)
{
#ifndef PHYSICS_FIXTURE_NO_JOBS
    jobs__shutdown();
#endif
}

int physics_fixture_run_groups(const struct CMUnitTest *tests, size_t n,
                               const char *const *serial_only)
{
    pool = (physics__pool){0};
    int failed = _cmocka_run_group_tests("serial", tests, n, NULL, NULL);
    if (!two_threads.parallel_for)
        return failed;
    struct CMUnitTest *threaded = malloc(n * sizeof *threaded);
    assert_non_null(threaded);
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        bool skip = false;
        for (const char *const *name = serial_only; name && *name && !skip; name++)
            skip = strcmp(tests[k].name, *name) == 0;
        if (!skip)
            threaded[kept++] = tests[k];
    }
    pool = two_threads;
    failed += _cmocka_run_group_tests("two threads", threaded, kept, NULL, NULL);
    pool = (physics__pool){0};
    free(threaded);
    return failed;
}

float frand(float lo, float hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) / (float)(1u << 24);
}
