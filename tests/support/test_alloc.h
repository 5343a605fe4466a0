/* A counting allocator for tests that compile a module's kernel-free core directly: live bytes,
 * live blocks and every allocation ever made (so a test can assert "no allocation"). Header
 * only, since those tests link no kernel. Like the kernel's allocators (ct_memory.h), it may be
 * called from any thread: a module's jobs on a pool allocate at once, so the counts are changed
 * atomically (plain adds lost counts and left a two-thread test at -1 live blocks). */
#ifndef CT_TEST_ALLOC_H
#define CT_TEST_ALLOC_H

#include "ct_types.h"

#include <stdlib.h>

typedef struct test_alloc_t {
    ct_allocator_t base; /* first, so a ct_allocator_t * is a test_alloc_t * */
    int64_t live_bytes, live_blocks, allocations;
} test_alloc_t;

static inline void *test_alloc__realloc(ct_allocator_t *a, void *p, size_t old_size,
                                        size_t new_size, const char *file, uint32_t line)
{
    (void)file;
    (void)line;
    test_alloc_t *t = (test_alloc_t *)a;
    if (new_size == 0) {
        if (p) {
            __atomic_fetch_sub(&t->live_bytes, (int64_t)old_size, __ATOMIC_RELAXED);
            __atomic_fetch_sub(&t->live_blocks, 1, __ATOMIC_RELAXED);
        }
        free(p);
        return NULL;
    }
    void *q = realloc(p, new_size);
    if (!q)
        return NULL;
    __atomic_fetch_add(&t->allocations, 1, __ATOMIC_RELAXED);
    if (!p)
        __atomic_fetch_add(&t->live_blocks, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->live_bytes, (int64_t)new_size - (int64_t)old_size, __ATOMIC_RELAXED);
    return q;
}

static inline void test_alloc_init(test_alloc_t *t)
{
    *t = (test_alloc_t){{NULL, test_alloc__realloc}, 0, 0, 0};
}

#endif
