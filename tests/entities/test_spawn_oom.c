/*
 * A spawn that runs out of memory fails as a whole and leaves the world as it was, at every
 * allocation a spawn makes: the entity lookup, the entity array growing, the transform and
 * debug-name managers growing, their index pages and page tables, the transform spawner's scratch.
 * The kernel's memory__fail_nth refuses the n-th allocation of an attempt, for n = 1, 2, ... until
 * an attempt runs through without reaching n (which must then succeed); each attempt gets a fresh
 * world that already holds a small unit, whose state is checked after the failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "base/memory.h"
#include "ct_entity.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "test_kernel.h"

/* 2100 crates with a lid each: 4200 entities, more than the entity array's first 4096, so the
 * first spawn grows it; the lids are linked under their crates (the spawner's link path). */
#define CRATES 2100
static const char level[] = "entities = [ { components = { transform = { position = [0 0 0] } "
                            "debug_name = { name = \"crate\" } }\n"
                            "  children = [ { components = { transform = { position = [0 1 0] } "
                            "debug_name = { name = \"lid\" } } } ]\n"
                            "  repeat = { count = 2100 spacing = [1 0 0] } } ]\n";
static const char unit[] =
    "entities = [ { components = { transform = { position = [5 6 7] } debug_name = { name = "
    "\"before\" } }\n"
    "  children = [ { components = { transform = { position = [0 0 1] } } } ] } ]\n";

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_transform_api_v3 *transform;
static const ct_debug_name_api_v1 *names;
static const ct_resource_api_v1 *resource;

/* What a world holds: counts, and the pose and name of the unit spawned before the attempt. */
typedef struct snapshot_t {
    uint32_t live, transforms, names;
    ct_transform_matrix_t root, child;
    char name[CT_DEBUG_NAME_MAX];
} snapshot_t;

static snapshot_t snapshot(ct_world_o *w, ct_entity_t root)
{
    snapshot_t s;
    memset(&s, 0, sizeof s);
    s.live = entity->live_count();
    s.transforms = transform->count(w);
    s.names = names->count(w);
    const ct_transform_t t = transform->lookup(w, root);
    s.root = transform->world_matrix(w, t);
    s.child = transform->world_matrix(w, transform->first_child(w, t));
    const char *name = names->name(w, names->lookup(w, root));
    strncpy(s.name, name ? name : "(none)", sizeof s.name - 1);
    return s;
}

/* Refuses allocation 1, 2, ... of the spawn in turn; returns how many allocations failed it
 * (the last attempt, which reached none, succeeded). `first_error` receives attempt 1's. */
static uint32_t fail_each_allocation(const void *res, int *first_error)
{
    for (uint32_t n = 1;; n++) {
        ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "oom"});
        assert_non_null(w);
        const ct_entity_t before = worlds->spawn_unit(w, "oom/unit", NULL, NULL);
        assert_true(entity->alive(before));
        const snapshot_t was = snapshot(w, before);
        assert_int_equal(was.transforms, 2);
        assert_int_equal(was.names, 1);
        assert_float_equal(was.root.m[7], 6.0f, 0.0f);
        assert_float_equal(was.child.m[11], 8.0f, 0.0f);

        memory__fail_nth(n);
        const int r = worlds->spawn_resource(w, res, NULL, NULL, NULL, 0);
        const uint64_t counted = memory__fail_nth(0);
        if (counted < n) {
            /* No allocation was refused: the spawn ran whole. */
            assert_int_equal(r, 2 * CRATES);
            assert_int_equal(transform->count(w), 2 + 2 * CRATES);
            assert_int_equal(names->count(w), 1 + 2 * CRATES);
            assert_int_equal(entity->live_count(), was.live + 2 * CRATES);
            worlds->destroy_world(w);
            return n - 1;
        }
        if (n == 1)
            *first_error = r;
        if (r != CT_ERR_NOMEM)
            fail_msg("allocation %u refused: spawn returned %d, not CT_ERR_NOMEM", n, r);
        const snapshot_t now = snapshot(w, before);
        if (memcmp(&now, &was, sizeof now) != 0)
            fail_msg("allocation %u refused: the world changed (live %u -> %u, transforms %u -> "
                     "%u, names %u -> %u)",
                     n, was.live, now.live, was.transforms, now.transforms, was.names, now.names);
        worlds->destroy_world(w);
    }
}

static void a_spawn_out_of_memory_leaves_the_world_unchanged(void **state)
{
    (void)state;
    assert_int_equal(resource->load_source("level", "oom/level", level, sizeof level - 1), 0);
    assert_int_equal(resource->load_source("unit", "oom/unit", unit, sizeof unit - 1), 0);
    const void *res = resource->get("level", "oom/level");
    assert_non_null(res);
    int first = 0;
    /* The first run also meets the entity array growing (once: after it grew it stays grown, so
     * this run may step over the allocation right after that one). */
    const uint32_t growing = fail_each_allocation(res, &first);
    assert_int_equal(first, CT_ERR_NOMEM);
    /* Now nothing global grows: every allocation of the spawn is refused once, in a fresh world:
     * the entity lookup, the transform scratch, the transform arrays, their page table and a page
     * per 1024 entity indices (5), the debug-name arrays, page table and pages (5). */
    const uint32_t points = fail_each_allocation(res, &first);
    assert_int_equal(points, 1 + 1 + 1 + 1 + 5 + 1 + 1 + 5);
    /* The first run: the lookup, then the entity array, then the others but one. */
    assert_true(growing >= 2);
    /* Unarmed, nothing is refused or counted. */
    assert_int_equal(memory__fail_nth(0), 0);
}

static int setup(void **state)
{
    (void)state;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms")};
    /* One job thread: memory__fail_nth counts the allocations of every thread. */
    kernel_desc_t desc = test_kernel_desc(paths, 2);
    desc.jobs = 1;
    assert_int_equal(kernel__boot(&desc), 0);
    entity = test_kernel_api(CT_ENTITY_API, 2);
    worlds = test_kernel_api(CT_WORLD_API, 1);
    transform = test_kernel_api(CT_TRANSFORM_API, 3);
    names = test_kernel_api(CT_DEBUG_NAME_API, 1);
    resource = test_kernel_api(CT_RESOURCE_API, 1);
    assert_true(entity && worlds && transform && names && resource);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_int_equal(test_kernel_shutdown(), 0);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_spawn_out_of_memory_leaves_the_world_unchanged, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
