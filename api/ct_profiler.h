/*
 * ct_profiler.h: the thread profiler. Kernel API "ct.profiler".
 *
 * A scope is a named stretch of time on one thread. Scopes nest; the profiler records, for each
 * one, its name, its thread, its start and end time, its depth and the core it started on (a
 * thread moved to another core mid-scope is not noticed). Each thread writes into its own ring
 * buffer without locks; the kernel gathers the rings once per frame, at the safe point, and hands
 * the scopes to whoever listens: console clients that subscribed (`profiler` messages) and the
 * `--profile FILE` writer (Trace Event JSON, for Perfetto, chrome://tracing and
 * tools/profiler-viewer/index.html).
 *
 * Nobody listening costs one load and a branch per scope. Recording costs two time-stamp reads
 * and one 32-byte store (bench: profiler.scope_ns). A full ring drops new scopes (counted, and
 * reported as "dropped" to listeners) rather than block.
 *
 * In C, the easiest form is the macro, which ends the scope when the enclosing block ends:
 *
 *     const ct_profiler_api_v1 *ct_profiler;   // set once: get_engine_api(CT_PROFILER_API, 1)
 *     void my_update(void) {
 *         CT_PROFILE_SCOPE("my_plugin.update");
 *         ...
 *     }
 *
 * CT_PROFILE_SCOPE finds the API table through the name `ct_profiler` (define CT_PROFILER to use
 * another expression); a NULL table records nothing. It needs GCC or Clang (cleanup attribute);
 * elsewhere use begin/end by hand. In Lua: `Profiler.scope("name", fn, ...)` runs fn(...) inside
 * a scope and returns its results; `Profiler.begin_scope(name)` / `Profiler.end_scope()` pair by
 * hand; `Profiler.enabled()` says whether anyone listens.
 *
 * Names: `name` must stay valid until the end of the frame it was recorded in (a string literal
 * is best; the kernel copies names when it gathers, before any plugin is unloaded). At most
 * CT_PROFILER_MAX_DEPTH scopes nest per thread; deeper ones are not recorded (their ends are
 * still matched).
 *
 * Threads: every function may be called from any thread.
 */
#ifndef CT_PROFILER_H
#define CT_PROFILER_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_PROFILER_API 0xb45b01d5u /* "ct.profiler" */

#define CT_PROFILER_MAX_DEPTH 32

typedef struct ct_profiler_api_v1 {
    /* Opens a scope on the calling thread. Returns a token for end(): 0 when nothing was
     * recorded (nobody listens, or too deep), and end(0) does nothing. */
    uint32_t (*begin)(const char *name);
    /* Closes the innermost scope opened by begin() on this thread with that token. */
    void (*end)(uint32_t token);
    /* Names the calling thread in traces ("jobs 1", "audio"); copied, at most 31 bytes. */
    void (*set_thread_name)(const char *name);
    /* Whether anyone listens (a client or --profile). */
    bool (*enabled)(void);
} ct_profiler_api_v1;

/* What CT_PROFILE_SCOPE keeps on the stack. */
typedef struct ct_profile_scope_t {
    const ct_profiler_api_v1 *api; /* NULL: no profiler, the scope does nothing */
    uint32_t token;                /* what begin returned, for end */
} ct_profile_scope_t;

/* Opens a scope named `name` (api may be NULL); CT_PROFILE_SCOPE calls it and, at the end of the
 * block, ct_profile_scope_end, which closes it. */
static inline ct_profile_scope_t ct_profile_scope_begin(const ct_profiler_api_v1 *api,
                                                        const char *name)
{
    ct_profile_scope_t s = {api, api ? api->begin(name) : 0u};
    return s;
}

/* Closes the scope ct_profile_scope_begin opened. */
static inline void ct_profile_scope_end(ct_profile_scope_t *s)
{
    if (s->token)
        s->api->end(s->token);
}

#ifndef CT_PROFILER
#define CT_PROFILER ct_profiler
#endif
#define CT_PROFILE_CAT2_(a, b) a##b
#define CT_PROFILE_CAT_(a, b) CT_PROFILE_CAT2_(a, b)
/* Declares a scope variable that ends the scope when the block ends. This is the one macro here
 * that declares a variable: a scope that cannot be forgotten is worth it. */
#if defined(__GNUC__) || defined(__clang__)
#define CT_PROFILE_SCOPE(name)                                                                     \
    ct_profile_scope_t CT_PROFILE_CAT_(ct_profile_scope_, __LINE__)                                \
        __attribute__((cleanup(ct_profile_scope_end), unused)) =                                   \
            ct_profile_scope_begin(CT_PROFILER, name)
#else
#define CT_PROFILE_SCOPE(name) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
