/*
 * ct_heap.h: the C heap (malloc, realloc, free) as a ct_allocator_t (an SDK helper, no API id:
 * inline functions only), for code that runs without the kernel: command-line tools, benchmarks,
 * fuzz targets and unit tests of a module's kernel-free core. A plugin allocates from the
 * allocator the kernel gives it (ct_memory.h), never from this one: the heap tracks nothing, so
 * a leak here goes unreported.
 *
 *     ct_allocator_t *a = ct_heap_allocator();
 *     float *v = ct_alloc(a, 16 * sizeof *v);
 *     ct_free(a, v, 16 * sizeof *v);
 *
 * Threads: as malloc, any thread. The allocator is one static object per program (per copy of
 * this header's function: each shared object that uses it has its own); it holds no state.
 */
#ifndef CT_HEAP_H
#define CT_HEAP_H

#include <stdlib.h>

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ct_allocator_t.realloc over the C heap: size 0 frees, otherwise realloc (NULL when out of
 * memory, the block untouched). The sizes and the call site are not needed. */
static inline void *ct_heap__realloc(ct_allocator_t *a, void *ptr, size_t old_size, size_t new_size,
                                     const char *file, uint32_t line)
{
    (void)a, (void)old_size, (void)file, (void)line;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, new_size);
}

/* The C heap as an allocator. */
static inline ct_allocator_t *ct_heap_allocator(void)
{
    static ct_allocator_t heap = {NULL, ct_heap__realloc};
    return &heap;
}

#ifdef __cplusplus
}
#endif
#endif
