/* physics_trace.c: a timeline of the threads' work in a step (physics_internal.h,
 * PHYSICS_TRACE_TIMELINE): every thread appends timed events (a step's start and end, a parallel
 * section's, a range's or a stage item's, a thread's arrival at a stage, the end of its claims,
 * the end of its wait) to a buffer of its own, and the buffers go to the file
 * $PHYSICS_TRACE_FILE at exit (bench/physics/physics_timeline.py reads it). A build for
 * measuring only: the release build has none of it. */
#include "physics_internal.h"

#ifdef PHYSICS_TRACE_TIMELINE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRACE_THREADS 8u
#define TRACE_EVENTS (8u << 20) /* per thread: far more than 200 steps of a benchmark scene */

typedef struct trace__event {
    uint64_t t;  /* ns, CLOCK_MONOTONIC */
    uint64_t fn; /* the function run, or 0; the header's is physics__trace's */
    uint32_t kind, a, b, thread;
} trace__event;

static trace__event *trace__buf[TRACE_THREADS];
static uint32_t trace__n[TRACE_THREADS];
static atomic_uint trace__threads;
static _Thread_local int trace__me = -1;

static void trace__dump(void)
{
    const char *path = getenv("PHYSICS_TRACE_FILE");
    FILE *f = path && *path ? fopen(path, "wb") : NULL;
    if (!f)
        return;
    /* The first event says where physics__trace is: the reader finds the functions from it. */
    const trace__event where = {.fn = (uint64_t)(uintptr_t)physics__trace, .kind = UINT32_MAX};
    fwrite(&where, sizeof where, 1, f);
    for (uint32_t t = 0; t < TRACE_THREADS; t++)
        if (trace__buf[t])
            fwrite(trace__buf[t], sizeof *trace__buf[t], trace__n[t], f);
    fclose(f);
}

void physics__trace(uint32_t kind, uint32_t a, uint32_t b, uint64_t fn)
{
    if (trace__me < 0) {
        const unsigned me = atomic_fetch_add(&trace__threads, 1u);
        if (me >= TRACE_THREADS)
            return;
        trace__buf[me] = malloc((size_t)TRACE_EVENTS * sizeof *trace__buf[me]);
        if (!trace__buf[me])
            return;
        if (me == 0)
            atexit(trace__dump);
        trace__me = (int)me;
    }
    if (trace__n[trace__me] >= TRACE_EVENTS)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    trace__buf[trace__me][trace__n[trace__me]++] =
        (trace__event){(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, fn, kind, a, b,
                       (uint32_t)trace__me};
}

typedef struct trace__job {
    ct_range_f fn;
    void *user;
} trace__job;

static void trace__range(void *user, uint32_t begin, uint32_t end)
{
    const trace__job *job = user;
    physics__trace(PHYSICS_TRACE_RANGE, begin, end, 0);
    job->fn(job->user, begin, end);
    physics__trace(PHYSICS_TRACE_RANGE_END, begin, end, 0);
}

void physics__trace_pool_run(physics__pool pool, uint32_t count, ct_range_f fn, void *user_data)
{
    trace__job job = {fn, user_data};
    physics__trace(PHYSICS_TRACE_SECTION, 0, count, (uint64_t)(uintptr_t)fn);
    if (pool.parallel_for && count > 1)
        pool.parallel_for(pool.ctx, count, 1, trace__range, &job);
    else
        trace__range(&job, 0, count);
    physics__trace(PHYSICS_TRACE_SECTION_END, 0, count, 0);
}
#endif
