/* A counting allocator for tests that compile the physics core directly (no kernel). */
#ifndef PHYSICS_TEST_ALLOC_H
#define PHYSICS_TEST_ALLOC_H

#include "ct_types.h"

#include <stdlib.h>

typedef struct test_alloc_t {
    ct_allocator_t base; /* first, so a ct_allocator_t * is a test_alloc_t * */
    int64_t live_bytes;
    int64_t live_blocks;
} test_alloc_t;

static void *test_alloc__realloc(ct_allocator_t *a, void *p, size_t old_size, size_t new_size,
                                 const char *file, uint32_t line)
{
    (void)file;
    (void)line;
    test_alloc_t *t = (test_alloc_t *)a;
    if (new_size == 0) {
        if (p) {
            t->live_bytes -= (int64_t)old_size;
            t->live_blocks--;
        }
        free(p);
        return NULL;
    }
    void *q = realloc(p, new_size);
    if (!q)
        return NULL;
    if (!p)
        t->live_blocks++;
    t->live_bytes += (int64_t)new_size - (int64_t)old_size;
    return q;
}

static inline void test_alloc_init(test_alloc_t *t)
{
    t->base.inst = NULL;
    t->base.realloc = test_alloc__realloc;
    t->live_bytes = t->live_blocks = 0;
}

#endif
