/* The thread profiler behind ct_profiler_api_v1 (api/ct_profiler.h): per-thread rings written
 * without locks, gathered on the main thread once a frame and handed to the sinks that listen
 * (console clients, the --profile trace writer). */
#ifndef CT_KERNEL_PROFILER_H
#define CT_KERNEL_PROFILER_H

/* CT_PROFILE_SCOPE inside the kernel uses the kernel's own table. */
#define CT_PROFILER profiler__kernel_api
#include "ct_profiler.h"

/* The kernel's own table, for CT_PROFILE_SCOPE inside the kernel. */
extern const ct_profiler_api_v1 *const profiler__kernel_api;

/* One gathered scope; times are nanoseconds since the profiler started. */
typedef struct profiler_scope_t {
    const char *name; /* valid only during the sink call */
    uint64_t start_ns;
    uint64_t end_ns;
    uint16_t core;
    uint16_t depth;
} profiler_scope_t;

typedef struct profiler_thread_info_t {
    uint32_t id; /* 1 for the first thread that recorded (usually main), then 2, 3, ... */
    const char *name;
    uint64_t dropped; /* scopes lost to a full ring since the last gather */
} profiler_thread_info_t;

/* Receives one thread's scopes of one gather, in the order they ended. */
typedef void (*profiler_sink_f)(void *ctx, const profiler_thread_info_t *thread,
                                const profiler_scope_t *scopes, uint32_t n);

#define PROFILER_MAX_SINKS 8
#define PROFILER_MAX_THREADS 64
/* Scopes per thread between two gathers; a frame with more loses the rest (counted). */
#define PROFILER_RING 16384u

/* Adds or removes a listener; recording is on while there is at least one. Main thread only.
 * Returns 0, or CT_ERR_FULL when PROFILER_MAX_SINKS listen already. */
int profiler__add_sink(profiler_sink_f fn, void *ctx);
void profiler__remove_sink(profiler_sink_f fn, void *ctx);
/* Drains every thread's ring into the sinks (main thread, at the frame's safe point). */
void profiler__gather(void);
/* Frees every thread's ring and the interned names (after the last thread stopped recording). */
void profiler__shutdown(void);
/* A copy of `name` owned by the profiler, for names that do not live long (Lua strings): at most
 * PROFILER_MAX_NAMES distinct names, after that "(too many names)". */
const char *profiler__intern(const char *name, size_t len);
#define PROFILER_MAX_NAMES 1024

const ct_profiler_api_v1 *profiler__api_v1(void);
/* Registers the Lua module Profiler (scope, begin_scope, end_scope, enabled). */
int profiler__bind_lua(void);

#endif
