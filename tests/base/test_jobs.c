/* The job pool: every item exactly once for any grain, nesting, run_and_wait, a tracked
 * allocator hammered from every thread, and an idle pool that sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <dirent.h>
#include <unistd.h>
#endif

#include <cmocka.h>

#include "base/jobs.h"
#include "base/memory.h"

#define THREADS 4

static int setup(void **state)
{
    (void)state;
    if (memory__init(MEMORY_DEBUG_CANARY) != 0)
        return -1;
    return jobs__init(THREADS);
}

static int teardown(void **state)
{
    (void)state;
    jobs__shutdown();
    return memory__shutdown() == 0 ? 0 : -1;
}

typedef struct sum_t {
    atomic_uint_fast64_t sum;
    atomic_uint_fast32_t calls;
    uint32_t grain;
    atomic_uchar *seen; /* per item, to prove each is visited exactly once */
} sum_t;

static void add_range(void *user_data, uint32_t begin, uint32_t end)
{
    sum_t *s = user_data;
    assert_true(begin < end);
    if (s->grain)
        assert_true(end - begin <= s->grain);
    uint64_t local = 0;
    for (uint32_t i = begin; i < end; i++) {
        local += i + 1;
        if (s->seen)
            atomic_fetch_add(&s->seen[i], 1);
    }
    atomic_fetch_add(&s->sum, local);
    atomic_fetch_add(&s->calls, 1);
}

static void parallel_for_sums_for_every_grain(void **state)
{
    (void)state;
    const ct_jobs_api_v1 *jobs = jobs__api_v1();
    assert_int_equal(jobs->thread_count(), THREADS);
    const uint32_t n = 100000;
    atomic_uchar *seen = calloc(n, sizeof *seen);
    assert_non_null(seen);
    const uint32_t grains[] = {0, 1, 7, 1000, n - 1, n, n + 5};
    for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
        memset(seen, 0, n * sizeof *seen);
        sum_t s = {.grain = grains[g], .seen = seen};
        jobs->parallel_for(n, grains[g], add_range, &s);
        assert_int_equal(atomic_load(&s.sum), (uint64_t)n * (n + 1) / 2);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(seen[i], 1);
        if (grains[g])
            assert_int_equal(atomic_load(&s.calls), (n + grains[g] - 1) / grains[g]);
    }
    free(seen);

    sum_t none = {0};
    jobs->parallel_for(0, 1, add_range, &none);
    assert_int_equal(atomic_load(&none.calls), 0);
}

typedef struct nested_t {
    atomic_uint_fast64_t sum;
    uint32_t inner;
} nested_t;

static void inner_range(void *user_data, uint32_t begin, uint32_t end)
{
    nested_t *n = user_data;
    for (uint32_t i = begin; i < end; i++)
        atomic_fetch_add(&n->sum, i + 1);
}

static void outer_range(void *user_data, uint32_t begin, uint32_t end)
{
    nested_t *n = user_data;
    for (uint32_t i = begin; i < end; i++)
        jobs__api_v1()->parallel_for(n->inner, 3, inner_range, n);
}

static void nested_parallel_for_completes(void **state)
{
    (void)state;
    nested_t n = {.inner = 1000};
    const uint32_t outer = 64;
    jobs__api_v1()->parallel_for(outer, 1, outer_range, &n);
    assert_int_equal(atomic_load(&n.sum), (uint64_t)outer * n.inner * (n.inner + 1) / 2);
}

static void bump(void *user_data) { atomic_fetch_add((atomic_uint *)user_data, 1); }

static void run_and_wait_runs_each_job_once(void **state)
{
    (void)state;
    enum { N = 300 };
    static atomic_uint counters[N];
    static ct_job_t list[N];
    for (int i = 0; i < N; i++) {
        atomic_init(&counters[i], 0);
        list[i] = (ct_job_t){bump, &counters[i]};
    }
    jobs__api_v1()->run_and_wait(list, N);
    for (int i = 0; i < N; i++)
        assert_int_equal(atomic_load(&counters[i]), 1);
    jobs__api_v1()->run_and_wait(list, 0);
}

typedef struct hammer_t {
    ct_allocator_t *a;
    void **blocks;
} hammer_t;

static void allocate_range(void *user_data, uint32_t begin, uint32_t end)
{
    hammer_t *h = user_data;
    for (uint32_t i = begin; i < end; i++) {
        /* A short-lived block too, so frees race with allocations. */
        void *scratch = ct_alloc(h->a, 1 + i % 50);
        h->blocks[i] = ct_alloc(h->a, 1 + i % 100);
        ct_free(h->a, scratch, 1 + i % 50);
    }
}

static void free_range(void *user_data, uint32_t begin, uint32_t end)
{
    hammer_t *h = user_data;
    for (uint32_t i = begin; i < end; i++) {
        h->blocks[i] = ct_realloc(h->a, h->blocks[i], 1 + i % 100, 200);
        ct_free(h->a, h->blocks[i], 200);
    }
}

static void allocator_counts_stay_exact_under_threads(void **state)
{
    (void)state;
    const uint32_t n = 20000;
    hammer_t h = {.a = memory__create(NULL, "test.hammer"), .blocks = calloc(n, sizeof(void *))};
    assert_true(h.a && h.blocks);
    jobs__api_v1()->parallel_for(n, 1, allocate_range, &h);
    ct_allocator_stats_t s = memory__stats(h.a);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        assert_non_null(h.blocks[i]);
        bytes += 1 + i % 100;
    }
    assert_int_equal(s.live_blocks, n);
    assert_int_equal(s.live_bytes, bytes);
    assert_int_equal(s.total_allocations, 2 * (uint64_t)n);

    jobs__api_v1()->parallel_for(n, 16, free_range, &h);
    s = memory__stats(h.a);
    assert_int_equal(s.live_blocks, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(memory__destroy(h.a), 0);
    assert_int_equal(memory__corruption_count(), 0);
    free(h.blocks);
}

static void runs_inline_without_a_pool(void **state)
{
    (void)state;
    jobs__shutdown();
    assert_int_equal(jobs__api_v1()->thread_count(), 1);
    sum_t s = {.grain = 10};
    jobs__api_v1()->parallel_for(1000, 10, add_range, &s);
    assert_int_equal(atomic_load(&s.sum), 1000 * 1001 / 2);
    assert_int_equal(jobs__init(1), 0);
    assert_int_equal(jobs__api_v1()->thread_count(), 1);
    assert_int_equal(jobs__init(2), CT_ERR_INVALID);
}

#ifdef __linux__
/* The CPU time (clock ticks) of every thread of this process but the main one, and whether each
 * is asleep ('S'): from /proc/self/task/<tid>/stat. Returns how many it found. */
static int worker_states(unsigned long long *ticks, bool *asleep, int cap)
{
    DIR *dir = opendir("/proc/self/task");
    assert_non_null(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == getpid())
            continue;
        char path[300], line[512];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* (a thread that just ended) */
        const bool got = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        const char *at = got ? strrchr(line, ')') : NULL; /* past the name, which may hold spaces */
        char state = 0;
        unsigned long long user = 0, sys = 0;
        if (!at || sscanf(at + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state,
                          &user, &sys) != 3 || n == cap)
            continue;
        ticks[n] = user + sys;
        asleep[n++] = state == 'S';
    }
    closedir(dir);
    return n;
}

static void nap_ms(long ms)
{
    const struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Workers spin a little after their work (the next parallel_for is most likely near), but an idle
 * pool must sleep: asleep, its threads use no CPU time at all. */
static void idle_workers_sleep(void **state)
{
    (void)state;
    sum_t s = {.grain = 1};
    jobs__api_v1()->parallel_for(1000, 1, add_range, &s);
    assert_int_equal(atomic_load(&s.sum), 1000 * 1001 / 2);
    unsigned long long before[THREADS], after[THREADS];
    bool asleep[THREADS];
    int n = 0, sleeping = 0;
    /* Far longer than the spin: a worker still running after this spins forever. */
    for (int tries = 0; tries < 500 && (n != THREADS - 1 || sleeping != n); tries++) {
        nap_ms(10);
        n = worker_states(before, asleep, THREADS);
        sleeping = 0;
        for (int i = 0; i < n; i++)
            sleeping += asleep[i];
    }
    assert_int_equal(n, THREADS - 1);
    assert_int_equal(sleeping, n);
    nap_ms(200);
    assert_int_equal(worker_states(after, asleep, THREADS), n);
    for (int i = 0; i < n; i++) {
        assert_true(asleep[i]);
        assert_int_equal(after[i], before[i]);
    }
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(parallel_for_sums_for_every_grain, setup, teardown),
        cmocka_unit_test_setup_teardown(nested_parallel_for_completes, setup, teardown),
        cmocka_unit_test_setup_teardown(run_and_wait_runs_each_job_once, setup, teardown),
        cmocka_unit_test_setup_teardown(allocator_counts_stay_exact_under_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_inline_without_a_pool, setup, teardown),
#ifdef __linux__
        cmocka_unit_test_setup_teardown(idle_workers_sleep, setup, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
