/* physics_fixture.c: the kernel-free physics tests' shared fixture (physics_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "physics_fixture.h"

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

/* Built with PHYSICS_FIXTURE_NO_JOBS (the clang builds of the hash tests, which link no kernel)
 * two_threads stays zero: the "two threads" pass runs serially again. */
int physics_fixture_start(void)
{
#ifndef PHYSICS_FIXTURE_NO_JOBS
    if (jobs__init(2))
        return 1;
    two_threads = (physics__pool){fixture_parallel_for, (void *)jobs__api_v1()};
#endif
    return 0;
}

void physics_fixture_stop(void)
{
#ifndef PHYSICS_FIXTURE_NO_JOBS
    jobs__shutdown();
#endif
}

float frand(float lo, float hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) / (float)(1u << 24);
}
