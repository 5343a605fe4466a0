/* api/ct_component_store.h: instances added zeroed and found again, swap-erase keeps the index
 * right and calls the destroy callback first, an older entity of the same index finds nothing,
 * GC removes exactly the dead, a failed growth leaves the store as it was, and free gives every
 * byte back. The allocator counts bytes and can be told to fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ct_component_store.h"

static size_t live_bytes;
static int fail_after = -1; /* allocations left before one fails; -1: never */

static void *counting_realloc(ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                              const char *file, uint32_t line)
{
    (void)a, (void)file, (void)line;
    if (new_size == 0) {
        free(ptr);
        live_bytes -= old_size;
        return NULL;
    }
    if (fail_after == 0)
        return NULL;
    if (fail_after > 0)
        fail_after--;
    void *p = realloc(ptr, new_size);
    if (p)
        live_bytes += new_size - old_size;
    return p;
}

static ct_allocator_t counting = {NULL, counting_realloc};

enum { HP, REGEN, COLUMNS };
static const uint32_t sizes[COLUMNS] = {sizeof(float), sizeof(double)};

static ct_entity_t entity(uint32_t index, uint32_t generation)
{
    return (ct_entity_t){index | (generation << CT_ENTITY_INDEX_BITS)};
}

static uint32_t destroyed_calls;
static float destroyed_hp;
static void on_destroyed(void *user_data, ct_component_store_t *s, uint32_t i)
{
    (void)user_data;
    destroyed_calls++;
    destroyed_hp = CT_STORE_COLUMN(s, HP, float)[i];
}

static void add_lookup_remove_and_free(void **state)
{
    (void)state;
    ct_component_store_t s;
    assert_true(ct_component_store_init(&s, &counting, sizes, COLUMNS));
    s.destroyed = on_destroyed;
    for (uint32_t k = 0; k < 100; k++) {
        uint32_t i = ct_component_store_add(&s, entity(k * 37 + 1, 1));
        assert_int_equal(i, k);
        assert_true(CT_STORE_COLUMN(&s, HP, float)[i] == 0.0f);
        CT_STORE_COLUMN(&s, HP, float)[i] = (float)k;
        CT_STORE_COLUMN(&s, REGEN, double)[i] = k * 0.5;
    }
    assert_int_equal(s.n, 100);
    assert_int_equal(ct_component_store_add(&s, entity(1, 1)), 0); /* already there */
    assert_int_equal(ct_component_store_lookup(&s, entity(1, 2)), CT_STORE_NONE); /* older/newer */
    assert_int_equal(ct_component_store_lookup(&s, entity(2, 1)), CT_STORE_NONE);
    /* Swap-erase: instance 10 goes, the last (99) takes its place and is still found. */
    assert_true(ct_component_store_remove(&s, entity(10 * 37 + 1, 1)));
    assert_int_equal(destroyed_calls, 1);
    assert_true(destroyed_hp == 10.0f);
    assert_int_equal(s.n, 99);
    uint32_t moved = ct_component_store_lookup(&s, entity(99 * 37 + 1, 1));
    assert_int_equal(moved, 10);
    assert_true(CT_STORE_COLUMN(&s, HP, float)[moved] == 99.0f);
    assert_true(CT_STORE_COLUMN(&s, REGEN, double)[moved] == 49.5);
    assert_false(ct_component_store_remove(&s, entity(10 * 37 + 1, 1)));
    assert_int_equal(destroyed_calls, 1);
    /* Every remaining instance is found at the place its entity says. */
    for (uint32_t k = 0; k < 100; k++) {
        uint32_t i = ct_component_store_lookup(&s, entity(k * 37 + 1, 1));
        if (k == 10) {
            assert_int_equal(i, CT_STORE_NONE);
            continue;
        }
        assert_true(i < s.n);
        assert_true(CT_STORE_COLUMN(&s, HP, float)[i] == (float)k);
    }
    ct_component_store_free(&s);
    assert_int_equal(live_bytes, 0);
}

/* Entities with an even index are dead. */
static bool odd_alive(void *user_data, ct_entity_t e)
{
    (void)user_data;
    return ct_entity_index(e) % 2 == 1;
}

static void gc_removes_exactly_the_dead(void **state)
{
    (void)state;
    ct_component_store_t s;
    assert_true(ct_component_store_init(&s, &counting, sizes, COLUMNS));
    destroyed_calls = 0;
    s.destroyed = on_destroyed;
    for (uint32_t k = 1; k <= 64; k++)
        assert_int_not_equal(ct_component_store_add(&s, entity(k, 0)), CT_STORE_NONE);
    uint32_t rng = 12345, removed = 0;
    for (int frame = 0; frame < 1000 && s.n > 32; frame++)
        removed += ct_component_store_gc(&s, odd_alive, NULL, &rng, 4);
    assert_int_equal(removed, 32);
    assert_int_equal(destroyed_calls, 32);
    assert_int_equal(s.n, 32);
    for (uint32_t i = 0; i < s.n; i++)
        assert_int_equal(ct_entity_index(s.entity[i]) % 2, 1);
    /* All alive: nothing more goes. */
    assert_int_equal(ct_component_store_gc(&s, odd_alive, NULL, &rng, 8), 0);
    ct_component_store_free(&s);
    assert_int_equal(live_bytes, 0);
}

static void a_failed_growth_leaves_the_store_as_it_was(void **state)
{
    (void)state;
    ct_component_store_t s;
    assert_true(ct_component_store_init(&s, &counting, sizes, COLUMNS));
    for (uint32_t k = 0; k < 16; k++)
        assert_int_equal(ct_component_store_add(&s, entity(k, 0)), k);
    /* The 17th needs all three arrays grown: let the first succeed and the second fail. */
    fail_after = 1;
    assert_int_equal(ct_component_store_add(&s, entity(16, 0)), CT_STORE_NONE);
    fail_after = -1;
    assert_int_equal(s.n, 16);
    assert_int_equal(s.capacity, 16);
    assert_int_equal(ct_component_store_lookup(&s, entity(16, 0)), CT_STORE_NONE);
    assert_int_equal(ct_component_store_add(&s, entity(16, 0)), 16);
    ct_component_store_free(&s);
    assert_int_equal(live_bytes, 0);
}

static void bad_descriptions_are_refused(void **state)
{
    (void)state;
    ct_component_store_t s;
    const uint32_t zero[2] = {4, 0};
    assert_false(ct_component_store_init(&s, &counting, zero, 2));
    assert_false(ct_component_store_init(&s, &counting, sizes, 0));
    assert_false(ct_component_store_init(&s, &counting, sizes, CT_STORE_MAX_COLUMNS + 1));
    assert_false(ct_component_store_init(&s, NULL, sizes, COLUMNS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_lookup_remove_and_free),
        cmocka_unit_test(gc_removes_exactly_the_dead),
        cmocka_unit_test(a_failed_growth_leaves_the_store_as_it_was),
        cmocka_unit_test(bad_descriptions_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
