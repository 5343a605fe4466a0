/*
 * ct_memory.h: allocators with owners. Kernel API "ct.memory".
 *
 * Every plugin gets its own tracked allocator (a child of the kernel's root). Each allocator
 * counts live bytes and blocks; destroying an allocator (or unloading a plugin) with blocks still
 * live logs a leak report naming the allocator, the count, the bytes and the call sites.
 *
 * Debug modes (after the seed post "Extreme Bug Hunting"), for the whole process, chosen with
 * `--memory-debug fill,canary` on the command line or CUTTLE_MEMORY_DEBUG=fill,canary:
 *   fill:   new blocks are filled with 0xCD, freed blocks with 0xDD, so reads of uninitialised
 *           or freed memory show up as recognisable garbage;
 *   canary: guard bytes before and after each block are checked on free (and on realloc), on
 *           demand (ct_memory_api_v2.verify, Memory.verify() in Lua) and for every block still
 *           live at shutdown; a broken guard, or a size that does not match the allocation, is
 *           reported with the allocator's name, the size and the call site. Under --strict a
 *           damaged block fails the run (exit code 1), as a leak always does.
 *
 * Threads: every function here and every allocator may be used from any thread (each allocator
 * has its own lock).
 */
#ifndef CT_MEMORY_H
#define CT_MEMORY_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_MEMORY_API 0x1a5bd4cau /* "ct.memory" */

/* Live totals of one allocator (children not included). */
typedef struct ct_allocator_stats_t {
    uint64_t live_bytes;        /* bytes allocated and not freed */
    uint64_t live_blocks;       /* blocks allocated and not freed */
    uint64_t total_allocations; /* since creation */
    uint64_t peak_bytes;
} ct_allocator_stats_t;

typedef struct ct_memory_api_v1 {
    /* The tracked allocator of the plugin `self` (NULL: the kernel's root). Valid until that
     * plugin is unloaded (it survives hot reloads). */
    ct_allocator_t *(*plugin_allocator)(ct_plugin_o *self);
    /* A new tracked allocator under `parent` (NULL: root); `name` is copied and names it in
     * reports ("physics.broadphase"). Returns NULL on failure. */
    ct_allocator_t *(*create_child)(ct_allocator_t *parent, const char *name);
    /* Destroys an allocator made by create_child; reports leaks (and frees nothing it does not
     * own: leaked blocks stay valid). Accepts NULL. Returns the number of leaked blocks. */
    uint64_t (*destroy_child)(ct_allocator_t *a);
    /* Current counters of an allocator. */
    ct_allocator_stats_t (*stats)(const ct_allocator_t *a);
} ct_memory_api_v1;

/* Version 2: version 1 (same members, same order) plus verification on demand. */
typedef struct ct_memory_api_v2 {
    ct_allocator_t *(*plugin_allocator)(ct_plugin_o *self);
    ct_allocator_t *(*create_child)(ct_allocator_t *parent, const char *name);
    uint64_t (*destroy_child)(ct_allocator_t *a);
    ct_allocator_stats_t (*stats)(const ct_allocator_t *a);
    /* Checks every live block of `a` and of the allocators under it (NULL: every allocator):
     * each block's header and, for blocks made in canary mode, the guards on both sides. Logs
     * each damaged block (allocator, size, call site) and returns how many there are (0: all
     * intact). Leaves the blocks as they are. Any thread. */
    uint64_t (*verify)(const ct_allocator_t *a);
} ct_memory_api_v2;

#ifdef __cplusplus
}
#endif
#endif
