/*
 * bench_gameplay: gameplay islands (api/ct_gameplay.h).
 *
 *   gameplay.islands_10k_events_ms    10,000 events (a shared player picking up 2,500 gems, 7,500
 *                                     projectile hits among 20,000 entities) turned into islands:
 *                                     union-find, grouping, largest-first order (the core, median)
 *   gameplay.islands_10k_run_cpu_ms   that run's thread CPU time (build, 10,000 handlers that do
 *                                     nothing, apply), less disturbed by other load on the machine
 *   gameplay.islands_threads_x        a frame of 2,000 pickups and 2,000 projectile hits whose C
 *                                     handlers each do ~2 us of work: run as islands on one thread
 *                                     divided by run as islands on ct.jobs (the kernel booted with
 *                                     --jobs 2, so 2 threads), build and apply included; wall clock
 *   gameplay.islands_threads_x_cpu    the same frames in CPU time: the one-thread run's CPU time
 *                                     divided by the busiest thread's CPU time in the 2-thread run
 *                                     (the calling thread's build, share of islands and apply, or a
 *                                     worker's share). A thread's CPU clock stops while another
 *                                     process holds its core, so this is the speedup the schedule
 *                                     gives when each thread has a core, which load from other
 *                                     processes barely lowers; threads_x is what the wall clock saw
 *                                     and needs a quiet machine. Both are printed with the load.
 *   gameplay.islands_lua_threads_x    the same frame with the handlers written in Lua, in the
 *   (and _cpu)                        worker Lua states
 *   gameplay.islands_frame_ms         that parallel C frame's time, for scale
 *
 * Timings are medians; the machine may be shared: the figures say what was measured, not what
 * passes.
 */
#include "ct_heap.h"
#include "../common/bench.h"
#include "../common/bench_kernel.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ct_gameplay.h"
#include "gameplay_islands.h"
#include "lua/lua_env.h"
#include "plugins/registry.h"

static void nothing(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    (void)ud, (void)e, (void)ctx;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint32_t next_random(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void islands_10k(void)
{
    islands__t sys;
    islands__init(&sys, ct_heap_allocator());
    const uint32_t handler = islands__handler_id(&sys, "touch", nothing, NULL);
    islands__set_shared(&sys, (ct_entity_t){1}, true);
    double samples[50], cpu[50];
    for (int s = 0; s < 50; s++) {
        for (uint32_t k = 0; k < 10000; k++) {
            ct_island_event_t e = {.type = handler, .num_entities = 2};
            if (k % 4 == 0)
                e.entities[0].id = 1, e.entities[1].id = 2 + next_random(20000);
            else
                e.entities[0].id = 2 + next_random(20000),
                e.entities[1].id = 2 + next_random(20000);
            char err[64];
            islands__post(&sys, &e, err, sizeof err);
        }
        ct_island_stats_t st;
        struct timespec c0, c1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        islands__run(&sys, CT_ISLANDS_ONE_THREAD, NULL, NULL, 1, &st);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        samples[s] = st.build_ms;
        /* The run's CPU time (build, and handlers that do nothing): what the build costs when
         * the machine's other load preempts the wall clock's measurement. */
        cpu[s] = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6;
    }
    bench_report("gameplay.islands_10k_events_ms", bench_median(samples, 50), "ms",
                 "10k events (2.5k pickups by a shared player, 7.5k hits) to islands");
    bench_report("gameplay.islands_10k_run_cpu_ms", bench_median(cpu, 50), "ms",
                 "the same run's thread CPU time (build + 10k empty handlers + apply)");
    islands__free(&sys);
}

static const ct_islands_api_v1 *islands;

/* ---- CPU time per thread ---------------------------------------------------------------------
 * Reading a thread's CPU clock is a system call (microseconds here), too dear per handler. So
 * each thread that runs a handler (and the main thread) notes itself once, and the main thread
 * reads every noted thread's clock before and after a run. */

#define MAX_THREADS 64
static pthread_t noted_threads[MAX_THREADS];
static atomic_uint num_noted;
static _Thread_local bool noted;
static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_thread(void)
{
    if (noted)
        return;
    noted = true;
    pthread_mutex_lock(&note_lock);
    const uint32_t n = atomic_load(&num_noted);
    if (n < MAX_THREADS) {
        noted_threads[n] = pthread_self();
        atomic_store(&num_noted, n + 1);
    }
    pthread_mutex_unlock(&note_lock);
}

/* Every noted thread's CPU milliseconds so far (the main thread's first). */
static void thread_cpu_ms(double *out, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        clockid_t id;
        struct timespec ts = {0};
        if (pthread_getcpuclockid(noted_threads[i], &id) == 0)
            clock_gettime(id, &ts);
        out[i] = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    }
}

/* One run timed: wall milliseconds, and CPU milliseconds of the main thread (one thread) or of
 * the busiest noted thread (parallel). */
typedef struct timing_t {
    double wall, cpu;
} timing_t;

static timing_t timed_run(uint32_t mode)
{
    double before[MAX_THREADS], after[MAX_THREADS];
    const uint32_t n = atomic_load(&num_noted);
    thread_cpu_ms(before, n);
    const double t0 = bench_now_ns();
    islands->run(mode, NULL);
    timing_t t = {(bench_now_ns() - t0) * 1e-6, 0};
    thread_cpu_ms(after, n);
    for (uint32_t i = 0; i < (mode == CT_ISLANDS_ONE_THREAD ? 1 : n); i++)
        t.cpu = after[i] - before[i] > t.cpu ? after[i] - before[i] : t.cpu;
    return t;
}

/* threads_x and threads_x_cpu from 15 one-thread and 15 parallel runs (interleaved, so load that
 * comes and goes hits both alike). */
static void report_speedup(const char *name, const char *cpu_name, const char *what,
                           const timing_t *one, const timing_t *two, int n)
{
    double a[32], b[32], c[32], d[32];
    for (int i = 0; i < n; i++)
        a[i] = one[i].wall, b[i] = two[i].wall, c[i] = one[i].cpu, d[i] = two[i].cpu;
    bench_report(name, bench_median(a, n) / bench_median(b, n), "x", what);
    bench_report(cpu_name, bench_median(c, n) / bench_median(d, n), "x",
                 "the same in CPU time: 1-thread CPU / the busiest thread's CPU on 2 threads");
}

/* ~2 us of gameplay work on the event's own entities. */
static uint32_t health, score;
static void work(void *ud, const ct_island_event_t *e, ct_island_ctx_o *ctx)
{
    (void)ud;
    note_thread();
    double h = islands->get(ctx, e->entities[1], health);
    for (int i = 0; i < 200; i++)
        h = h * 0.999 + sin(h + i) * 0.01;
    islands->set(ctx, e->entities[1], health, h);
    if (h < 0) {
        const double one = 1;
        islands->emit(ctx, score, e->entities[0], &one, 1);
    }
}

static void count(void *ud, ct_entity_t target, const double *args, uint32_t n)
{
    (void)ud, (void)target, (void)args, (void)n;
}

/* One frame: 2,000 pickups by the shared player (entity ids[0]) and 2,000 hits between
 * projectiles and targets; returns the run's times. */
static timing_t frame(const ct_entity_t *ids, uint32_t n, uint32_t pickup, uint32_t hit,
                      uint32_t mode)
{
    for (uint32_t k = 0; k < 4000; k++) {
        ct_island_event_t e = {
            .type = k % 2 ? hit : pickup, .num_entities = 2, .args = {1, 0, 0, 0}};
        if (k % 2)
            e.entities[0] = ids[1 + next_random(n - 1)],
            e.entities[1] = ids[1 + next_random(n - 1)];
        else
            e.entities[0] = ids[0], e.entities[1] = ids[1 + next_random(n - 1)];
        islands->post(&e);
    }
    return timed_run(mode);
}

static const char lua_handlers[] = "fields = {'health'}\n"
                                   "local sin = math.sin\n"
                                   "local function work(e)\n"
                                   "  local h = Islands.get(e, 'health')\n"
                                   "  for i = 0, 199 do h = h * 0.999 + sin(h + i) * 0.01 end\n"
                                   "  Islands.set(e, 'health', h)\n"
                                   "end\n"
                                   "function on_lpickup(player, gem) work(gem) end\n"
                                   "function on_lhit(bullet, target) work(target) end\n";

static const char lua_setup[] = "Islands.load_script('handlers.lua')\n"
                                "E = {}\n"
                                "for i = 1, 20000 do E[i] = Entity.create() end\n"
                                "Islands.shared(E[1])\n"
                                "local seed = 5\n"
                                "local function random(n) seed = (seed * 1103515245 + 12345) % "
                                "2147483648 return 2 + seed % (n - 1) end\n"
                                "function post_frame()\n"
                                "  for k = 1, 2000 do\n"
                                "    Islands.post('lpickup', {E[1], E[random(20000)]})\n"
                                "    Islands.post('lhit', {E[random(20000)], E[random(20000)]})\n"
                                "  end\n"
                                "end\n";

int main(int argc, char **argv)
{
    islands_10k();

    static const char *const modules[] = {"entities/ct_entities.so", "gameplay/ct_gameplay.so"};
    bench_boot_modules(argc, argv, "bench_gameplay", modules, 2);
    const ct_entity_api_v1 *entity = registry__get_engine_api(CT_ENTITY_API, 1);
    islands = registry__get_engine_api(CT_ISLANDS_API, 1);
    if (!entity || !islands) {
        fprintf(stderr, "bench_gameplay: ct.entity or ct.islands is missing\n");
        return 1;
    }
    enum { N = 20000 };
    static ct_entity_t ids[N];
    for (uint32_t i = 0; i < N; i++)
        ids[i] = entity->create();
    health = islands->field("health");
    score = islands->effect("score", count, NULL);
    islands->set_shared(ids[0], 1);
    const uint32_t pickup = islands->handler("pickup", work, NULL),
                   hit = islands->handler("hit", work, NULL);
    note_thread(); /* the main thread first */
    double load[1] = {0};
    const bool have_load = getloadavg(load, 1) == 1;
    timing_t one[15], two[15];
    double ms[15];
    for (int s = 0; s < 15; s++) {
        one[s] = frame(ids, N, pickup, hit, CT_ISLANDS_ONE_THREAD);
        two[s] = frame(ids, N, pickup, hit, CT_ISLANDS_PARALLEL);
        ms[s] = two[s].wall;
    }
    report_speedup("gameplay.islands_threads_x", "gameplay.islands_threads_x_cpu",
                   "2k pickups + 2k hits, C handlers ~2 us: 1 thread / ct.jobs (2 threads)", one,
                   two, 15);
    bench_report("gameplay.islands_frame_ms", bench_median(ms, 15), "ms",
                 "that frame on 2 threads");

    /* The same with Lua handlers in the worker states. The script goes into a scratch folder
     * (the working folder stands for the project); the events are posted from Lua (not timed). */
    char dir[] = "/tmp/bench_gameplay_XXXXXX";
    FILE *f = mkdtemp(dir) && chdir(dir) == 0 ? fopen("handlers.lua", "w") : NULL;
    if (f) {
        fputs(lua_handlers, f);
        fclose(f);
    }
    if (f && lua_env__run_string(lua_setup, "=bench") == 0) {
        for (int s = 0; s < 15; s++) {
            for (int m = 0; m < 2; m++) {
                lua_env__run_string("post_frame()", "=bench");
                (m ? two : one)[s] = timed_run(m ? CT_ISLANDS_PARALLEL : CT_ISLANDS_ONE_THREAD);
            }
        }
        report_speedup(
            "gameplay.islands_lua_threads_x", "gameplay.islands_lua_threads_x_cpu",
            "the same frame with Lua handlers in worker Lua states: 1 thread / 2 threads", one, two,
            15);
    } else {
        fprintf(stderr,
                "bench_gameplay: the Lua handlers did not load; no islands_lua_threads_x\n");
    }
    remove("handlers.lua");
    if (chdir("/") == 0)
        rmdir(dir);
    /* Which of the two speedups to believe depends on the load while they were measured. */
    if (have_load)
        printf("bench_gameplay: load average %.1f on %ld cores when the threads_x runs began: %s\n",
               load[0], sysconf(_SC_NPROCESSORS_ONLN),
               load[0] < 0.5 * (double)sysconf(_SC_NPROCESSORS_ONLN)
                   ? "quiet enough for the wall-clock threads_x"
                   : "busy: the wall-clock threads_x measures the machine, threads_x_cpu the code");
    bench_print_table();
    kernel__shutdown();
    return 0;
}
