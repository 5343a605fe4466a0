/* The job pool. A parallel_for lives on its caller's stack as a batch: a range, a grain and an
 * atomic cursor. Threads take grains off the cursor until it runs past the end, so splitting work
 * costs one atomic add per grain and no allocation. To get other threads to join in, the caller
 * puts "tickets" (pointers to its batch) in a fixed ring; a thread that pops a ticket works on
 * that batch until nothing is left. The caller always works on its own batch too, so a full ring,
 * a one-thread pool or an uninitialised pool all simply run the work inline.
 *
 * While a caller waits for the tickets it handed out, it runs whatever tickets are in the ring,
 * its own or anyone's. That is what makes nesting safe: a job that waits on an inner
 * parallel_for keeps the pool busy instead of holding a thread hostage. */
#include "base/jobs.h"

#include <stdatomic.h>
#include <stdio.h>
#include <uv.h>

#include "base/log.h"
#include "profiler/profiler.h"

#define JOBS_MAX_THREADS 64
#define JOBS_RING_SIZE 256 /* tickets; a power of two */
/* With no grain given, each thread gets about this many ranges, so uneven ranges even out. */
#define JOBS_RANGES_PER_THREAD 4

typedef struct batch_t {
    ct_range_f fn;
    void *user_data;
    uint32_t count, grain;
    atomic_uint_fast64_t next; /* first item nobody has taken yet */
    uint32_t tickets;          /* handed out and not yet finished; guarded by g_jobs.lock */
} batch_t;

static struct {
    uv_mutex_t lock;
    /* Broadcast when tickets are pushed and when a batch's last ticket finishes: both idle
     * workers and waiting callers sleep here, and a waiting caller needs to hear either. */
    uv_cond_t wake;
    batch_t *ring[JOBS_RING_SIZE];
    uint32_t head, tail; /* tail - head tickets are queued */
    bool stopping;
    bool ready;
    uint32_t num_workers;
    uv_thread_t workers[JOBS_MAX_THREADS];
} g_jobs;

static void drain(batch_t *b)
{
    for (;;) {
        uint64_t begin = atomic_fetch_add_explicit(&b->next, b->grain, memory_order_relaxed);
        if (begin >= b->count)
            return;
        uint64_t end = begin + b->grain < b->count ? begin + b->grain : b->count;
        CT_PROFILE_SCOPE("job");
        b->fn(b->user_data, (uint32_t)begin, (uint32_t)end);
    }
}

/* Called and returns with the lock held. After the last ticket of a batch is counted the batch
 * may vanish with its caller's stack frame, so it is not touched again. */
static void run_ticket(void)
{
    batch_t *b = g_jobs.ring[g_jobs.head++ % JOBS_RING_SIZE];
    uv_mutex_unlock(&g_jobs.lock);
    drain(b);
    uv_mutex_lock(&g_jobs.lock);
    if (--b->tickets == 0)
        uv_cond_broadcast(&g_jobs.wake);
}

static void worker_main(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "jobs %u", (unsigned)(uintptr_t)arg);
    profiler__kernel_api->set_thread_name(name);
    uv_mutex_lock(&g_jobs.lock);
    for (;;) {
        while (!g_jobs.stopping && g_jobs.head == g_jobs.tail)
            uv_cond_wait(&g_jobs.wake, &g_jobs.lock);
        if (g_jobs.head == g_jobs.tail)
            break;
        run_ticket();
    }
    uv_mutex_unlock(&g_jobs.lock);
}

static void parallel_for(uint32_t count, uint32_t grain, ct_range_f fn, void *user_data)
{
    if (count == 0)
        return;
    if (grain == 0) {
        grain = count / ((g_jobs.num_workers + 1) * JOBS_RANGES_PER_THREAD);
        if (grain == 0)
            grain = 1;
    }
    batch_t b = {.fn = fn, .user_data = user_data, .count = count, .grain = grain};
    atomic_init(&b.next, 0);

    /* The caller takes one share itself, so at most ranges - 1 helpers are useful. */
    uint64_t ranges = ((uint64_t)count + grain - 1) / grain;
    uint64_t wanted = ranges - 1 < g_jobs.num_workers ? ranges - 1 : g_jobs.num_workers;
    if (wanted) {
        uv_mutex_lock(&g_jobs.lock);
        while (b.tickets < wanted && g_jobs.tail - g_jobs.head < JOBS_RING_SIZE) {
            g_jobs.ring[g_jobs.tail++ % JOBS_RING_SIZE] = &b;
            b.tickets++;
        }
        if (b.tickets)
            uv_cond_broadcast(&g_jobs.wake);
        uv_mutex_unlock(&g_jobs.lock);
    }

    drain(&b);

    if (wanted) {
        uv_mutex_lock(&g_jobs.lock);
        while (b.tickets) {
            if (g_jobs.head != g_jobs.tail)
                run_ticket();
            else
                uv_cond_wait(&g_jobs.wake, &g_jobs.lock);
        }
        uv_mutex_unlock(&g_jobs.lock);
    }
}

static void run_jobs(void *user_data, uint32_t begin, uint32_t end)
{
    const ct_job_t *jobs = user_data;
    for (uint32_t i = begin; i < end; i++)
        jobs[i].fn(jobs[i].user_data);
}

/* A list of jobs is a parallel_for over the list, one job per range. */
static void run_and_wait(const ct_job_t *jobs, uint32_t n)
{
    parallel_for(n, 1, run_jobs, (void *)jobs);
}

static uint32_t thread_count(void) { return g_jobs.num_workers + 1; }

int jobs__init(uint32_t threads)
{
    if (g_jobs.ready) {
        log__error("jobs: jobs__init called twice without jobs__shutdown");
        return CT_ERR_INVALID;
    }
    if (threads == 0)
        threads = uv_available_parallelism();
    if (threads == 0)
        threads = 1;
    if (threads > JOBS_MAX_THREADS)
        threads = JOBS_MAX_THREADS;
    if (uv_mutex_init(&g_jobs.lock) != 0)
        return CT_ERR_INIT_FAILED;
    if (uv_cond_init(&g_jobs.wake) != 0) {
        uv_mutex_destroy(&g_jobs.lock);
        return CT_ERR_INIT_FAILED;
    }
    g_jobs.ready = true;
    for (uint32_t i = 0; i + 1 < threads; i++) {
        int err = uv_thread_create(&g_jobs.workers[i], worker_main, (void *)(uintptr_t)(i + 1));
        if (err) {
            log__error("jobs: starting worker thread %u of %u failed: %s", i + 1, threads - 1,
                       uv_strerror(err));
            jobs__shutdown();
            return CT_ERR_INIT_FAILED;
        }
        g_jobs.num_workers++;
    }
    return CT_ERR_OK;
}

void jobs__shutdown(void)
{
    if (!g_jobs.ready)
        return;
    uv_mutex_lock(&g_jobs.lock);
    g_jobs.stopping = true;
    uv_cond_broadcast(&g_jobs.wake);
    uv_mutex_unlock(&g_jobs.lock);
    for (uint32_t i = 0; i < g_jobs.num_workers; i++)
        uv_thread_join(&g_jobs.workers[i]);
    g_jobs.num_workers = 0;
    g_jobs.stopping = false;
    uv_cond_destroy(&g_jobs.wake);
    uv_mutex_destroy(&g_jobs.lock);
    g_jobs.ready = false;
}

static const ct_jobs_api_v1 jobs_api_v1 = {
    .parallel_for = parallel_for,
    .run_and_wait = run_and_wait,
    .thread_count = thread_count,
};

const ct_jobs_api_v1 *jobs__api_v1(void) { return &jobs_api_v1; }
