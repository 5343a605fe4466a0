/* The job pool. A parallel_for lives on its caller's stack as a batch: a range, a grain and an
 * atomic cursor. Threads take grains off the cursor until it runs past the end, so splitting work
 * costs one atomic add per grain and no allocation. To get other threads to join in, the caller
 * puts "tickets" (pointers to its batch) in a fixed ring; a thread that pops a ticket works on
 * that batch until nothing is left. The caller always works on its own batch too, so a full ring,
 * a one-thread pool or an uninitialised pool all simply run the work inline.
 *
 * While a caller waits for the tickets it handed out, it runs whatever tickets are in the ring,
 * its own or anyone's. That is what makes nesting safe: a job that waits on an inner
 * parallel_for keeps the pool busy instead of holding a thread hostage.
 *
 * Waking a sleeping thread costs a system call on one side and tens of microseconds on the other,
 * and a physics step makes dozens of small parallel_for calls with short serial stretches between
 * them. So an idle worker, and a caller waiting for its tickets, first spin for a short while
 * (JOBS_SPIN_NS) watching the ring and the batch, and only then sleep; a wake-up is sent only when
 * somebody sleeps. A busy frame thus never touches the kernel's scheduler, and an idle pool still
 * sleeps. The spin's first stretch (JOBS_EAGER_NS) does not even yield: a yield is a system call
 * too (3 microseconds on a paravirtual machine, as long as the wait for a ticket's last range). */
#include "base/jobs.h"

#include <stdatomic.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>
#include <uv.h>

#include "base/log.h"
#include "profiler/profiler.h"

#define JOBS_MAX_THREADS 64
#define JOBS_RING_SIZE 256 /* tickets; a power of two */
/* With no grain given, each thread gets about this many ranges, so uneven ranges even out. */
#define JOBS_RANGES_PER_THREAD 4
/* How long an idle thread watches for work before it sleeps: longer than the serial stretches
 * between a physics step's parallel sections, short enough that an idle pool soon sleeps. */
#define JOBS_SPIN_NS 500000u
/* How long of that it spins without yielding: the serial stretches of a step and the wait for
 * the last range of a section are shorter. Past it the thread yields now and then, so that on a
 * busy machine (or with more threads than cores) it steps aside for the thread it waits for. */
#define JOBS_EAGER_NS 50000u

typedef struct batch_t {
    ct_range_f fn;
    void *user_data;
    uint32_t count, grain;
    atomic_uint_fast64_t next; /* first item nobody has taken yet */
    /* Handed out and not yet finished: changed under g_jobs.lock, read by the spinning caller. */
    atomic_uint tickets;
} batch_t;

static struct {
    uv_mutex_t lock;
    /* Broadcast when tickets are pushed and when a batch's last ticket finishes, if anyone
     * sleeps: both idle workers and waiting callers sleep here, and a waiting caller needs to
     * hear either. */
    uv_cond_t wake;
    uint32_t sleepers; /* threads in uv_cond_wait; guarded by lock */
    batch_t *ring[JOBS_RING_SIZE];
    /* tail - head tickets are queued. Changed under the lock; spinning threads peek without it. */
    atomic_uint head, tail;
    atomic_bool stopping;
    bool ready;
    uint32_t num_workers;
    uv_thread_t workers[JOBS_MAX_THREADS];
} g_jobs;

static inline bool ring_empty(void)
{
    return atomic_load_explicit(&g_jobs.head, memory_order_relaxed) ==
           atomic_load_explicit(&g_jobs.tail, memory_order_relaxed);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins up to JOBS_SPIN_NS until done(arg) holds or the ring holds a ticket; returns whether
 * either happened. Every few dozen turns it reads the clock, and past JOBS_EAGER_NS it yields
 * then: on a core that other threads want (a busy machine, or this process's own threads
 * outnumbering the cores) the spinning thread steps aside instead of holding the core for the
 * whole spin. */
static bool spin_until(bool (*done)(void *), void *arg)
{
    uint64_t start = 0;
    for (uint32_t turn = 0;; turn++) {
        if (done(arg) || !ring_empty())
            return true;
        if (turn % 64 == 0) {
            const uint64_t t = now_ns();
            if (!start)
                start = t;
            else if (t - start >= JOBS_SPIN_NS)
                return false;
            else if (t - start >= JOBS_EAGER_NS)
                thrd_yield();
        }
        cpu_relax();
    }
}

/* Sleeps until woken; called and returns with the lock held. */
static void sleep_locked(void)
{
    g_jobs.sleepers++;
    uv_cond_wait(&g_jobs.wake, &g_jobs.lock);
    g_jobs.sleepers--;
}

static void wake_sleepers_locked(void)
{
    if (g_jobs.sleepers)
        uv_cond_broadcast(&g_jobs.wake);
}

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
    const uint32_t head = atomic_load_explicit(&g_jobs.head, memory_order_relaxed);
    batch_t *b = g_jobs.ring[head % JOBS_RING_SIZE];
    atomic_store_explicit(&g_jobs.head, head + 1, memory_order_relaxed);
    uv_mutex_unlock(&g_jobs.lock);
    drain(b);
    uv_mutex_lock(&g_jobs.lock);
    if (atomic_fetch_sub_explicit(&b->tickets, 1, memory_order_release) == 1)
        wake_sleepers_locked();
}

static bool stopping(void *arg)
{
    (void)arg;
    return atomic_load_explicit(&g_jobs.stopping, memory_order_relaxed);
}

static void worker_main(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "jobs %u", (unsigned)(uintptr_t)arg);
    profiler__kernel_api->set_thread_name(name);
    uv_mutex_lock(&g_jobs.lock);
    for (;;) {
        if (!ring_empty()) {
            run_ticket();
            continue;
        }
        if (atomic_load_explicit(&g_jobs.stopping, memory_order_relaxed))
            break;
        uv_mutex_unlock(&g_jobs.lock);
        const bool busy = spin_until(stopping, NULL);
        uv_mutex_lock(&g_jobs.lock);
        if (!busy && ring_empty() && !atomic_load_explicit(&g_jobs.stopping, memory_order_relaxed))
            sleep_locked();
    }
    uv_mutex_unlock(&g_jobs.lock);
}

static bool batch_done(void *arg)
{
    return atomic_load_explicit(&((batch_t *)arg)->tickets, memory_order_acquire) == 0;
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
    atomic_init(&b.tickets, 0);

    /* The caller takes one share itself, so at most ranges - 1 helpers are useful. */
    uint64_t ranges = ((uint64_t)count + grain - 1) / grain;
    uint64_t wanted = ranges - 1 < g_jobs.num_workers ? ranges - 1 : g_jobs.num_workers;
    if (wanted) {
        uv_mutex_lock(&g_jobs.lock);
        uint32_t tail = atomic_load_explicit(&g_jobs.tail, memory_order_relaxed), handed = 0;
        while (handed < wanted &&
               tail - atomic_load_explicit(&g_jobs.head, memory_order_relaxed) < JOBS_RING_SIZE) {
            g_jobs.ring[tail++ % JOBS_RING_SIZE] = &b;
            handed++;
        }
        atomic_store_explicit(&b.tickets, handed, memory_order_relaxed);
        atomic_store_explicit(&g_jobs.tail, tail, memory_order_relaxed);
        if (handed)
            wake_sleepers_locked();
        uv_mutex_unlock(&g_jobs.lock);
    }

    drain(&b);

    /* Wait for the tickets handed out: run queued ones meanwhile, spin a little, then sleep. */
    while (!batch_done(&b)) {
        if (!ring_empty() || !spin_until(batch_done, &b)) {
            uv_mutex_lock(&g_jobs.lock);
            if (!ring_empty())
                run_ticket();
            else if (!batch_done(&b))
                sleep_locked();
            uv_mutex_unlock(&g_jobs.lock);
        }
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
    atomic_store(&g_jobs.stopping, true);
    uv_cond_broadcast(&g_jobs.wake);
    uv_mutex_unlock(&g_jobs.lock);
    for (uint32_t i = 0; i < g_jobs.num_workers; i++)
        uv_thread_join(&g_jobs.workers[i]);
    g_jobs.num_workers = 0;
    atomic_store(&g_jobs.stopping, false);
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
