/* Tracked allocators: counting, leak reports, realloc, the debug modes and out-of-memory paths.
 *
 * Tests that need to see the raw side put their allocator over `backing_t`, a small allocator
 * that remembers every raw block it handed out. It can refuse requests on purpose (the
 * out-of-memory paths), it records what a freed block looked like (the 0xDD fill), and it frees
 * whatever a leak left behind so the process still ends clean. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/memory.h"

#define BACKING_MAX 64

typedef struct backing_t {
    ct_allocator_t iface;
    bool fail;
    uint32_t live;
    void *blocks[BACKING_MAX];
    size_t freed_dd_bytes; /* 0xDD bytes in the last raw block freed */
} backing_t;

static uint32_t backing_find(backing_t *b, const void *raw)
{
    for (uint32_t i = 0; i < b->live; i++)
        if (b->blocks[i] == raw)
            return i;
    fail_msg("raw block %p was not allocated by the test backing", raw);
    return 0;
}

static void *backing_realloc(ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                             const char *file, uint32_t line)
{
    (void)file, (void)line;
    backing_t *b = (backing_t *)a;
    if (new_size == 0) {
        uint32_t i = backing_find(b, ptr);
        b->freed_dd_bytes = 0;
        for (size_t k = 0; k < old_size; k++)
            b->freed_dd_bytes += ((const uint8_t *)ptr)[k] == 0xDD;
        free(ptr);
        b->blocks[i] = b->blocks[--b->live];
        return NULL;
    }
    if (b->fail || (!ptr && b->live == BACKING_MAX))
        return NULL;
    uint32_t i = ptr ? backing_find(b, ptr) : b->live++;
    void *raw = realloc(ptr, new_size);
    if (!raw) {
        if (!ptr)
            b->live--;
        return NULL;
    }
    b->blocks[i] = raw;
    return raw;
}

static void backing_init(backing_t *b)
{
    memset(b, 0, sizeof *b);
    b->iface.realloc = backing_realloc;
}

/* Frees what leaked through the backing, after the test has looked at it. */
static void backing_release_all(backing_t *b)
{
    while (b->live)
        free(b->blocks[--b->live]);
}

static int setup_plain(void **state)
{
    (void)state;
    return memory__init(0);
}

static int setup_debug(void **state)
{
    (void)state;
    return memory__init(MEMORY_DEBUG_FILL | MEMORY_DEBUG_CANARY);
}

static int teardown(void **state)
{
    (void)state;
    return memory__shutdown() == 0 ? 0 : -1;
}

static void parses_debug_modes(void **state)
{
    (void)state;
    char err[128] = "";
    assert_int_equal(memory__parse_debug_modes("fill,canary", err, sizeof err),
                     MEMORY_DEBUG_FILL | MEMORY_DEBUG_CANARY);
    assert_int_equal(memory__parse_debug_modes("canary", err, sizeof err), MEMORY_DEBUG_CANARY);
    assert_int_equal(memory__parse_debug_modes("all", err, sizeof err),
                     MEMORY_DEBUG_FILL | MEMORY_DEBUG_CANARY);
    assert_int_equal(memory__parse_debug_modes("none", err, sizeof err), 0);
    assert_int_equal(memory__parse_debug_modes("", err, sizeof err), 0);
    assert_int_equal(memory__parse_debug_modes(NULL, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(memory__parse_debug_modes("fill,bogus", err, sizeof err), -1);
    assert_non_null(strstr(err, "bogus"));
}

static void counts_blocks_bytes_and_peak(void **state)
{
    (void)state;
    ct_allocator_t *a = memory__create(NULL, "test.count");
    assert_non_null(a);
    void *p10 = ct_alloc(a, 10), *p20 = ct_alloc(a, 20), *p30 = ct_alloc(a, 30);
    assert_true(p10 && p20 && p30);
    ct_allocator_stats_t s = memory__stats(a);
    assert_int_equal(s.live_bytes, 60);
    assert_int_equal(s.live_blocks, 3);
    assert_int_equal(s.total_allocations, 3);
    assert_int_equal(s.peak_bytes, 60);

    ct_free(a, p20, 20);
    s = memory__stats(a);
    assert_int_equal(s.live_bytes, 40);
    assert_int_equal(s.live_blocks, 2);
    assert_int_equal(s.peak_bytes, 60);

    /* Children count only their own blocks; the root sees none of them. */
    assert_int_equal(memory__stats(memory__root()).live_blocks, 0);
    assert_null(ct_alloc(a, 0));
    ct_free(a, p10, 10);
    ct_free(a, p30, 30);
    assert_int_equal(memory__destroy(a), 0);
    assert_int_equal(memory__corruption_count(), 0);
}

static void destroy_reports_leaks_and_keeps_blocks(void **state)
{
    (void)state;
    backing_t backing;
    backing_init(&backing);
    ct_allocator_t *a = memory__create(&backing.iface, "test.leaky");
    assert_non_null(a);
    char *blocks[3];
    for (int i = 0; i < 3; i++) {
        blocks[i] = ct_alloc(a, 100);
        assert_non_null(blocks[i]);
    }
    assert_int_equal(memory__destroy(a), 3);
    /* Leaked blocks stay valid; only the allocator itself went back to the backing. */
    assert_int_equal(backing.live, 3);
    memset(blocks[2], 7, 100);
    backing_release_all(&backing);
}

static void destroying_a_parent_takes_forgotten_children(void **state)
{
    (void)state;
    backing_t backing;
    backing_init(&backing);
    ct_allocator_t *parent = memory__create(&backing.iface, "test.parent");
    ct_allocator_t *child = memory__create(parent, "test.parent.child");
    ct_allocator_t *grandchild = memory__create(child, "test.parent.child.grandchild");
    assert_true(parent && child && grandchild);
    assert_non_null(ct_alloc(parent, 8));
    assert_non_null(ct_alloc(grandchild, 8));
    assert_non_null(ct_alloc(grandchild, 8));
    assert_int_equal(memory__destroy(parent), 3);
    assert_int_equal(backing.live, 3);
    backing_release_all(&backing);
}

static void refuses_misuse(void **state)
{
    (void)state;
    backing_t backing;
    backing_init(&backing);
    assert_int_equal(memory__destroy(NULL), 0);
    assert_int_equal(memory__destroy(memory__root()), 0);
    assert_int_equal(memory__destroy(&backing.iface), 0);
    assert_non_null(memory__root());
    assert_int_equal(memory__init(0), CT_ERR_INVALID);
}

static void nothing_before_init(void **state)
{
    (void)state;
    assert_null(memory__root());
    assert_null(memory__create(NULL, "test.early"));
    assert_int_equal(memory__shutdown(), 0);
}

static void realloc_keeps_contents(void **state)
{
    (void)state;
    ct_allocator_t *a = memory__create(NULL, "test.realloc");
    uint8_t *p = ct_alloc(a, 100);
    assert_non_null(p);
    for (int i = 0; i < 100; i++)
        p[i] = (uint8_t)i;
    p = ct_realloc(a, p, 100, 100000);
    assert_non_null(p);
    for (int i = 0; i < 100; i++)
        assert_int_equal(p[i], i);
    memset(p + 100, 1, 100000 - 100);
    assert_int_equal(memory__stats(a).live_bytes, 100000);
    p = ct_realloc(a, p, 100000, 10);
    assert_non_null(p);
    for (int i = 0; i < 10; i++)
        assert_int_equal(p[i], i);
    ct_allocator_stats_t s = memory__stats(a);
    assert_int_equal(s.live_bytes, 10);
    assert_int_equal(s.live_blocks, 1);
    /* Fill mode moves the block, so both copies were live for a moment. */
    assert_true(s.peak_bytes >= 100000);
    assert_null(ct_realloc(a, p, 10, 0));
    assert_int_equal(memory__stats(a).live_blocks, 0);
    assert_int_equal(memory__destroy(a), 0);
    assert_int_equal(memory__corruption_count(), 0);
}

static void fills_new_and_freed_blocks(void **state)
{
    (void)state;
    backing_t backing;
    backing_init(&backing);
    ct_allocator_t *a = memory__create(&backing.iface, "test.fill");
    uint8_t *p = ct_alloc(a, 64);
    assert_non_null(p);
    for (int i = 0; i < 64; i++)
        assert_int_equal(p[i], 0xCD);
    /* Growing fills the new part too (the old part is the caller's). */
    memset(p, 1, 64);
    p = ct_realloc(a, p, 64, 128);
    assert_non_null(p);
    assert_int_equal(p[63], 1);
    assert_int_equal(p[64], 0xCD);
    assert_int_equal(p[127], 0xCD);
    ct_free(a, p, 128);
    assert_true(backing.freed_dd_bytes >= 128);
    assert_int_equal(memory__destroy(a), 0);
    assert_int_equal(backing.live, 0);
}

/* Breaks the byte at `offset` from the block, frees it, and checks the free was refused and
 * counted; then mends the byte and frees it for real. The write stays inside the raw block the
 * allocator made (that is what the guard bytes are), so ASan has nothing to say about it. */
static void expect_broken_guard(ptrdiff_t offset)
{
    ct_allocator_t *a = memory__create(NULL, "test.canary");
    uint8_t *p = ct_alloc(a, 16);
    assert_non_null(p);
    uint64_t before = memory__corruption_count();
    uint8_t saved = p[offset];
    p[offset] = 0;
    ct_free(a, p, 16);
    assert_int_equal(memory__corruption_count(), before + 1);
    assert_int_equal(memory__stats(a).live_blocks, 1);
    /* realloc checks the guards too, and leaves the block alone. */
    assert_null(ct_realloc(a, p, 16, 32));
    assert_int_equal(memory__corruption_count(), before + 2);
    p[offset] = saved;
    ct_free(a, p, 16);
    assert_int_equal(memory__corruption_count(), before + 2);
    assert_int_equal(memory__destroy(a), 0);
}

static void canary_catches_overflow(void **state)
{
    (void)state;
    expect_broken_guard(16);
}

static void canary_catches_underflow(void **state)
{
    (void)state;
    expect_broken_guard(-1);
}

static void canary_catches_size_mismatch(void **state)
{
    (void)state;
    ct_allocator_t *a = memory__create(NULL, "test.size");
    void *p = ct_alloc(a, 16);
    uint64_t before = memory__corruption_count();
    ct_free(a, p, 15);
    assert_int_equal(memory__corruption_count(), before + 1);
    assert_int_equal(memory__stats(a).live_blocks, 1);
    ct_free(a, p, 16);
    assert_int_equal(memory__stats(a).live_blocks, 0);
    assert_int_equal(memory__corruption_count(), before + 1);
    assert_int_equal(memory__destroy(a), 0);
}

static void rejects_a_block_of_another_allocator(void **state)
{
    (void)state;
    ct_allocator_t *a = memory__create(NULL, "test.owner.a");
    ct_allocator_t *b = memory__create(NULL, "test.owner.b");
    void *p = ct_alloc(a, 24);
    uint64_t before = memory__corruption_count();
    ct_free(b, p, 24);
    assert_int_equal(memory__corruption_count(), before + 1);
    assert_int_equal(memory__stats(a).live_blocks, 1);
    ct_free(a, p, 24);
    assert_int_equal(memory__destroy(a), 0);
    assert_int_equal(memory__destroy(b), 0);
}

static void survives_out_of_memory(void **state)
{
    (void)state;
    backing_t backing;
    backing_init(&backing);
    ct_allocator_t *a = memory__create(&backing.iface, "test.oom");
    assert_non_null(a);

    backing.fail = true;
    assert_null(ct_alloc(a, 32));
    assert_null(memory__create(a, "test.oom.child"));
    ct_allocator_stats_t s = memory__stats(a);
    assert_int_equal(s.live_blocks, 0);
    assert_int_equal(s.total_allocations, 0);

    backing.fail = false;
    uint8_t *p = ct_alloc(a, 32);
    assert_non_null(p);
    memset(p, 5, 32);
    backing.fail = true;
    assert_null(ct_realloc(a, p, 32, 4096));
    /* A failed realloc leaves the old block as it was, still counted and still the caller's. */
    for (int i = 0; i < 32; i++)
        assert_int_equal(p[i], 5);
    s = memory__stats(a);
    assert_int_equal(s.live_blocks, 1);
    assert_int_equal(s.live_bytes, 32);
    assert_null(ct_alloc(a, SIZE_MAX - 8));

    backing.fail = false;
    ct_free(a, p, 32);
    assert_int_equal(memory__destroy(a), 0);
    assert_int_equal(backing.live, 0);
    assert_int_equal(memory__corruption_count(), 0);
}

static void api_table_matches_the_service(void **state)
{
    (void)state;
    const ct_memory_api_v1 *api = memory__api_v1();
    assert_ptr_equal(api->plugin_allocator(NULL), memory__root());
    ct_allocator_t *a = api->create_child(NULL, "test.api");
    void *p = ct_alloc(a, 12);
    assert_non_null(p);
    assert_int_equal(api->stats(a).live_bytes, 12);
    ct_free(a, p, 12);
    assert_int_equal(api->destroy_child(a), 0);
}

int main(void)
{
#define PLAIN(t) cmocka_unit_test_setup_teardown(t, setup_plain, teardown)
#define DEBUG(t) cmocka_unit_test_setup_teardown(t, setup_debug, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_debug_modes),
        cmocka_unit_test(nothing_before_init),
        PLAIN(counts_blocks_bytes_and_peak),
        DEBUG(counts_blocks_bytes_and_peak),
        PLAIN(destroy_reports_leaks_and_keeps_blocks),
        DEBUG(destroy_reports_leaks_and_keeps_blocks),
        PLAIN(destroying_a_parent_takes_forgotten_children),
        PLAIN(refuses_misuse),
        PLAIN(realloc_keeps_contents),
        DEBUG(realloc_keeps_contents),
        DEBUG(fills_new_and_freed_blocks),
        DEBUG(canary_catches_overflow),
        DEBUG(canary_catches_underflow),
        DEBUG(canary_catches_size_mismatch),
        PLAIN(rejects_a_block_of_another_allocator),
        PLAIN(survives_out_of_memory),
        DEBUG(survives_out_of_memory),
        PLAIN(api_table_matches_the_service),
    };
#undef PLAIN
#undef DEBUG
    return cmocka_run_group_tests(tests, NULL, NULL);
}
