/* Kernel memory service: tracked allocators with debug modes; behind ct_memory_api_v1. */
#ifndef CT_KERNEL_MEMORY_H
#define CT_KERNEL_MEMORY_H

#include "ct_memory.h"

/* Debug modes, combinable. */
enum {
    MEMORY_DEBUG_FILL = 1u << 0,
    MEMORY_DEBUG_CANARY = 1u << 1,
};

/* Parses "fill,canary" (also "all", "none"); returns the mode bits, or -1 with a message in err. */
int memory__parse_debug_modes(const char *text, char *err, size_t err_size);
/* Sets up the root allocator. `modes` from memory__parse_debug_modes; CUTTLE_MEMORY_DEBUG in the
 * environment is read by the caller (kernel.c), not here. Calling it again after shutdown is fine. */
int memory__init(uint32_t modes);
/* Reports what the root still holds and tears down. Returns the number of leaked blocks. */
uint64_t memory__shutdown(void);
/* The kernel's allocator, named "kernel"; NULL before memory__init and after memory__shutdown. */
ct_allocator_t *memory__root(void);
/* `parent` NULL means the root. A parent not made here (any other ct_allocator_t) becomes the
 * new allocator's source of raw memory: that is how a test puts a tracked allocator over one that
 * fails on purpose. Destroying an allocator also destroys, and reports, children left under it. */
ct_allocator_t *memory__create(ct_allocator_t *parent, const char *name);
uint64_t memory__destroy(ct_allocator_t *a);
ct_allocator_stats_t memory__stats(const ct_allocator_t *a);
/* Leaked blocks reported by every allocator destroyed since init, the root included; still valid
 * after memory__shutdown. */
uint64_t memory__leaks_reported(void);
/* Number of canary or size mismatches detected since init (tests assert on it). */
uint64_t memory__corruption_count(void);
/* Checks every live block of `a` and its children (NULL: all allocators): headers and, for blocks
 * made in canary mode, both guards. Each damaged block is logged and counted in
 * memory__corruption_count. Returns the number found. memory__shutdown runs it over everything. */
uint64_t memory__verify(const ct_allocator_t *a);
/* For tests of out-of-memory paths: the n-th allocation from now (1: the next) by any tracked
 * allocator fails as running out of memory would (NULL; a block that was to grow stays as it
 * was), once; 0 disarms. Allocations (new blocks and growths) are counted while armed. Returns
 * how many were counted since the previous call: n when the n-th was refused, fewer when the
 * work ended before reaching it. Any thread, but the count is shared, so a test using it keeps
 * its allocations on one thread. */
uint64_t memory__fail_nth(uint64_t n);
/* Registers Memory.verify() in Lua (memory_lua.c). Returns 0 or a negative ct_error. */
int memory__bind_lua(void);
const ct_memory_api_v1 *memory__api_v1(void);
const ct_memory_api_v2 *memory__api_v2(void);

#endif
