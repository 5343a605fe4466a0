/*
 * ct_jobs.h: a worker pool for data-parallel work. Kernel API "ct.jobs".
 *
 * The kernel starts one worker per core minus one (at least one; `--jobs N` overrides) on libuv
 * threads. The calling thread works too while it waits, so a parallel_for on a one-core machine
 * simply runs inline. Calls may nest (a job may run another parallel_for). Job functions must not
 * call Lua: the Lua state belongs to the main thread.
 *
 * Threads: any thread may call these, a job included.
 */
#ifndef CT_JOBS_H
#define CT_JOBS_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_JOBS_API 0x5ff122dbu /* "ct.jobs" */

/* Processes the items [begin, end) of a parallel_for. */
typedef void (*ct_range_f)(void *user_data, uint32_t begin, uint32_t end);

/* One job of run_and_wait. */
typedef struct ct_job_t {
    void (*fn)(void *user_data); /* runs on some worker (or the caller) */
    void *user_data;             /* handed to fn */
} ct_job_t;

typedef struct ct_jobs_api_v1 {
    /* Splits [0, count) into ranges of at most `grain` items (0: chosen for you) and runs `fn`
     * on them across the workers; returns when every range is done. */
    void (*parallel_for)(uint32_t count, uint32_t grain, ct_range_f fn, void *user_data);
    /* Runs `n` independent jobs and returns when all are done. */
    void (*run_and_wait)(const ct_job_t *jobs, uint32_t n);
    /* Number of threads that execute jobs, including the caller. */
    uint32_t (*thread_count)(void);
} ct_jobs_api_v1;

#ifdef __cplusplus
}
#endif
#endif
