/* Recording and gathering. Each thread owns a ring of finished scopes: the thread alone writes
 * `write`, the main thread alone writes `read`, so one release store and one acquire load are the
 * only synchronisation. Open scopes live on a small per-thread stack until they end.
 *
 * Time stamps: on x86-64 the time-stamp counter (RDTSC, invariant on every CPU we run on), turned
 * into nanoseconds when gathered; elsewhere CLOCK_MONOTONIC. The core comes from sched_getcpu. */

#include "profiler/profiler.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef struct ring_event_t {
    const char *name;
    uint64_t start;
    uint64_t end;
    uint16_t core;
    uint16_t depth;
} ring_event_t;

typedef struct open_scope_t {
    const char *name;
    uint64_t start;
    uint16_t core;
} open_scope_t;

typedef struct thread_ring_t {
    _Atomic uint64_t write;
    _Atomic uint64_t read;
    _Atomic uint64_t dropped;
    uint32_t id;
    uint32_t depth; /* open scopes */
    char name[32];
    open_scope_t open[CT_PROFILER_MAX_DEPTH];
    ring_event_t events[PROFILER_RING];
} thread_ring_t;

static struct {
    _Atomic int listeners;
    uv_once_t once;
    uv_mutex_t lock; /* thread registration and names only: never taken while recording */
    thread_ring_t *_Atomic threads[PROFILER_MAX_THREADS];
    _Atomic uint32_t num_threads;
    uint64_t anchor_ticks, anchor_ns;
    double ns_per_tick;
    struct {
        profiler_sink_f fn;
        void *ctx;
    } sinks[PROFILER_MAX_SINKS];
    uint32_t num_sinks;
    char *names[PROFILER_MAX_NAMES];
    uint32_t num_names;
    profiler_scope_t scratch[PROFILER_RING];
} g_prof = {.once = UV_ONCE_INIT};

static _Thread_local thread_ring_t *tls_ring;
static _Thread_local bool tls_unregistered; /* the thread table was full: record nothing */

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ticks(uint16_t *core)
{
#if defined(__x86_64__)
    /* RDTSC plus glibc's sched_getcpu (a read of the rseq area on Linux) beat RDTSCP, which
     * waits for earlier instructions to finish. */
    int cpu = sched_getcpu();
    *core = (uint16_t)(cpu < 0 ? 0 : cpu);
    return __rdtsc();
#else
    int cpu = sched_getcpu();
    *core = (uint16_t)(cpu < 0 ? 0 : cpu);
    return monotonic_ns();
#endif
}

static inline uint64_t ticks_end(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return monotonic_ns();
#endif
}

static void init_once(void)
{
    if (uv_mutex_init(&g_prof.lock) != 0)
        abort();
    uint16_t core;
    g_prof.anchor_ticks = ticks(&core);
    g_prof.anchor_ns = monotonic_ns();
    g_prof.ns_per_tick = 1.0;
}

static thread_ring_t *register_thread(void)
{
    uv_once(&g_prof.once, init_once);
    thread_ring_t *r = NULL;
    uv_mutex_lock(&g_prof.lock);
    uint32_t n = atomic_load(&g_prof.num_threads);
    if (n < PROFILER_MAX_THREADS) {
        /* Raw calloc: a thread may first record before the memory service starts or after it
         * stops, and its ring lives until profiler__shutdown. */
        r = calloc(1, sizeof *r);
        if (r) {
            r->id = n + 1;
            snprintf(r->name, sizeof r->name, n == 0 ? "main" : "thread %u", (unsigned)(n + 1));
            atomic_store(&g_prof.threads[n], r);
            atomic_store(&g_prof.num_threads, n + 1);
        }
    }
    uv_mutex_unlock(&g_prof.lock);
    if (!r)
        tls_unregistered = true;
    tls_ring = r;
    return r;
}

static uint32_t scope_begin(const char *name)
{
    if (!atomic_load_explicit(&g_prof.listeners, memory_order_relaxed))
        return 0;
    thread_ring_t *r = tls_ring;
    if (!r && (tls_unregistered || !(r = register_thread())))
        return 0;
    uint32_t d = r->depth;
    if (d >= CT_PROFILER_MAX_DEPTH)
        return 0;
    r->depth = d + 1;
    open_scope_t *o = &r->open[d];
    o->name = name ? name : "(null)";
    o->start = ticks(&o->core);
    return d + 1;
}

static void scope_end(uint32_t token)
{
    thread_ring_t *r = tls_ring;
    if (!token || !r || token > r->depth)
        return;
    /* Closing an outer scope also closes inner ones whose end never came (a Lua error). */
    uint32_t d = token - 1;
    r->depth = d;
    uint64_t end = ticks_end();
    uint64_t w = atomic_load_explicit(&r->write, memory_order_relaxed);
    if (w - atomic_load_explicit(&r->read, memory_order_acquire) >= PROFILER_RING) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return;
    }
    const open_scope_t *o = &r->open[d];
    r->events[w % PROFILER_RING] = (ring_event_t){o->name, o->start, end, o->core, (uint16_t)d};
    atomic_store_explicit(&r->write, w + 1, memory_order_release);
}

static void set_thread_name(const char *name)
{
    thread_ring_t *r = tls_ring;
    if (!r && (tls_unregistered || !(r = register_thread())))
        return;
    uv_mutex_lock(&g_prof.lock);
    snprintf(r->name, sizeof r->name, "%s", name ? name : "?");
    uv_mutex_unlock(&g_prof.lock);
}

static bool enabled(void) { return atomic_load_explicit(&g_prof.listeners, memory_order_relaxed); }

static const ct_profiler_api_v1 api_v1 = {
    .begin = scope_begin,
    .end = scope_end,
    .set_thread_name = set_thread_name,
    .enabled = enabled,
};
const ct_profiler_api_v1 *const profiler__kernel_api = &api_v1;

const ct_profiler_api_v1 *profiler__api_v1(void) { return &api_v1; }

int profiler__add_sink(profiler_sink_f fn, void *ctx)
{
    uv_once(&g_prof.once, init_once);
    if (g_prof.num_sinks == PROFILER_MAX_SINKS)
        return CT_ERR_FULL;
    g_prof.sinks[g_prof.num_sinks].fn = fn;
    g_prof.sinks[g_prof.num_sinks].ctx = ctx;
    g_prof.num_sinks++;
    atomic_store(&g_prof.listeners, (int)g_prof.num_sinks);
    return 0;
}

void profiler__remove_sink(profiler_sink_f fn, void *ctx)
{
    for (uint32_t i = 0; i < g_prof.num_sinks; i++) {
        if (g_prof.sinks[i].fn == fn && g_prof.sinks[i].ctx == ctx) {
            g_prof.sinks[i] = g_prof.sinks[--g_prof.num_sinks];
            break;
        }
    }
    atomic_store(&g_prof.listeners, (int)g_prof.num_sinks);
}

/* Ticks to nanoseconds since the anchor; the rate is measured over the whole run so far, which
 * gets more exact the longer the engine runs. */
static void calibrate(void)
{
#if defined(__x86_64__)
    uint64_t ns = monotonic_ns(), t = __rdtsc();
    if (ns - g_prof.anchor_ns > 1000000u && t > g_prof.anchor_ticks)
        g_prof.ns_per_tick = (double)(ns - g_prof.anchor_ns) / (double)(t - g_prof.anchor_ticks);
#endif
}

static uint64_t to_ns(uint64_t t)
{
#if defined(__x86_64__)
    return t > g_prof.anchor_ticks
               ? (uint64_t)((double)(t - g_prof.anchor_ticks) * g_prof.ns_per_tick)
               : 0;
#else
    return t > g_prof.anchor_ns ? t - g_prof.anchor_ns : 0;
#endif
}

void profiler__gather(void)
{
    uv_once(&g_prof.once, init_once);
    calibrate();
    uint32_t n = atomic_load(&g_prof.num_threads);
    for (uint32_t i = 0; i < n; i++) {
        thread_ring_t *r = atomic_load(&g_prof.threads[i]);
        uint64_t rd = atomic_load_explicit(&r->read, memory_order_relaxed);
        uint64_t w = atomic_load_explicit(&r->write, memory_order_acquire);
        uint64_t dropped = atomic_exchange(&r->dropped, 0);
        uint32_t count = 0;
        for (uint64_t k = rd; k != w; k++) {
            const ring_event_t *e = &r->events[k % PROFILER_RING];
            g_prof.scratch[count++] =
                (profiler_scope_t){e->name, to_ns(e->start), to_ns(e->end), e->core, e->depth};
        }
        if (count || dropped) {
            char name[32];
            uv_mutex_lock(&g_prof.lock);
            memcpy(name, r->name, sizeof name);
            uv_mutex_unlock(&g_prof.lock);
            profiler_thread_info_t info = {r->id, name, dropped};
            for (uint32_t s = 0; s < g_prof.num_sinks; s++)
                g_prof.sinks[s].fn(g_prof.sinks[s].ctx, &info, g_prof.scratch, count);
        }
        atomic_store_explicit(&r->read, w, memory_order_release);
    }
}

const char *profiler__intern(const char *name, size_t len)
{
    for (uint32_t i = 0; i < g_prof.num_names; i++)
        if (strlen(g_prof.names[i]) == len && memcmp(g_prof.names[i], name, len) == 0)
            return g_prof.names[i];
    if (g_prof.num_names == PROFILER_MAX_NAMES)
        return "(too many names)";
    char *copy = malloc(len + 1);
    if (!copy)
        return "(out of memory)";
    memcpy(copy, name, len);
    copy[len] = '\0';
    g_prof.names[g_prof.num_names++] = copy;
    return copy;
}

void profiler__shutdown(void)
{
    g_prof.num_sinks = 0;
    atomic_store(&g_prof.listeners, 0);
    /* Scopes not gathered may name interned strings freed below: forget them. */
    uint32_t n = atomic_load(&g_prof.num_threads);
    for (uint32_t i = 0; i < n; i++) {
        thread_ring_t *r = atomic_load(&g_prof.threads[i]);
        atomic_store(&r->read, atomic_load(&r->write));
    }
    for (uint32_t i = 0; i < g_prof.num_names; i++)
        free(g_prof.names[i]);
    g_prof.num_names = 0;
    /* Rings stay: threads keep their pointer for the life of the process, and a later boot (tests
     * boot many kernels in one process) reuses them. They are freed by the process's exit. */
}
