/* physics_stages.c: a chain of parallel sections run as one (see physics__stages).
 *
 * A substep of the rigid solver is a dozen short sections, one per colour, each a few dozen
 * microseconds: handed to the pool one by one, every section paid a ticket, a wake-up or a spin on
 * the worker's side and a join on the caller's, and the two threads met at each end. Here the whole
 * chain is one section. Every thread that joins walks the stages in order: it claims items of the
 * current stage and runs them until none is left, counts them finished, and waits
 * (spinning) until the stage's last item is finished before it starts the next. Each claim is
 * the item's own (8 bytes, so that only the claims near where the two threads meet share a cache
 * line: a byte each put a whole colour's claims on one line, which moved between the cores at
 * every item), and the calling thread counts its items apart from the others, on cache lines of
 * their own: a shared cursor and count bumped at every item moved their cache line between the
 * cores at every item (thousands of items a step, a microsecond or a few each). A claim names its
 * run, so a new run finds the last one's claims free without clearing them. Items of one stage
 * never share what they write (the colours, the slices of bodies), so who runs which item
 * changes nothing: the bits are those of running the stages one after the other on one thread,
 * which is exactly what a serial pool does.
 *
 * A thread that joins late starts at the stage under way (`at`), skipping the finished ones. A
 * stage of one item (a joint pass, a small colour) is run by whoever claims it, together with the
 * single-item stages right after it: the others wait at the end of that run once, not at every
 * one of its stages. The caller can run every stage alone, so a pool whose workers never come (a
 * busy machine, a full ring) still finishes.
 *
 * A wait that lasts (STAGES_NAP_NS, longer for long items) means the thread holding the stage's
 * last items lost its core to another program: a busy machine. Spinning on then keeps this core
 * busy, so the scheduler never sees it idle and the held-up thread waits on its own core for the
 * other program's time slice (milliseconds, against stages of tens of microseconds). The waiting
 * thread sleeps instead: its core goes idle, the scheduler moves the held-up thread there, and
 * the thread that finishes the stage wakes the sleepers. */
#include "physics_internal.h"

#include <stdatomic.h>
#include <string.h>
#include <threads.h>
#include <time.h>

/* Turns of a waiting thread between two looks at the clock (a few microseconds). */
#define STAGES_SPINS 64u
/* How long a thread waits at a stage's end, spinning, before it sleeps: longer than a stage's
 * items take when both threads have a core (a few microseconds each), much shorter than the time
 * slice another program takes a core for. A stage of longer items (the contacts' slices, a few
 * hundred microseconds each) waits twice as long as the waiting thread's own took: the other is
 * most likely still in its last one. It spins without yielding: a yield is a system call (3
 * microseconds on a paravirtual machine, as long as many a stage's wait), and on a busy machine
 * the nap gives the core away. */
#define STAGES_NAP_NS 50000u
/* A stage's items are cut from its ranges (of `grain`, see physics__stages_add): each end of it
 * in items of up to STAGES_CUT_MAX ranges, a STAGES_CUT_SHARE-th of what is left to its middle,
 * down to single ranges there (stages__cut). */
#define STAGES_CUT_SHARE 4u
#define STAGES_CUT_MAX 4u
/* Ranges handed to a pool of an unknown number of threads: more than it has, so every thread can
 * join. A pool that says how many it has gets one range each: a range past that is a call of
 * stages__take_part (and a claim on the pool's shared cursor) that finds the run over, 14 of the
 * 16 on two threads, at each of a step's dozen runs. */
#define STAGES_PARTICIPANTS 16u

/* Who claimed an item of a run: the calling thread (which takes a stage's items from the front)
 * or another (from the back); in a claim, with 4 times the run's number (physics__stages.runs),
 * so a claim of an earlier run is free. */
enum { STAGES_BY_FRONT = 1, STAGES_BY_BACK = 2 };
typedef struct physics__stage_claim {
    _Atomic uint64_t by;
} physics__stage_claim;

/* One stage's items finished by the calling thread ([STAGES_BY_FRONT - 1]) and by the others, each
 * count on a cache line of its own: a thread adds its items once it has no more to claim (see
 * stages__count), and reads the other's only then. And the stage's items: how many, and where
 * their claims and their first ranges (physics__stages.cut) begin. */
typedef struct physics__stage_counter {
    struct {
        atomic_uint finished;
        char pad[64 - sizeof(atomic_uint)];
    } by[2];
    uint32_t first_claim, items;
} physics__stage_counter;

/* Whether the counter's stage of `items` has finished. */
static inline bool stages__finished(physics__stage_counter *counter, uint32_t items,
                                    memory_order order)
{
    return atomic_load_explicit(&counter->by[0].finished, order) +
               atomic_load_explicit(&counter->by[1].finished, order) ==
           items;
}

void physics__stages_free(physics__stages *st, ct_allocator_t *a)
{
    if (st->stage)
        ct_free(a, st->stage, (size_t)st->cap * sizeof *st->stage);
    if (st->counter)
        ct_free(a, st->counter, (size_t)st->cap_counter * sizeof *st->counter);
    if (st->claim)
        ct_free(a, st->claim, (size_t)st->cap_claim * sizeof *st->claim);
    if (st->cut)
        ct_free(a, st->cut, (size_t)st->cap_cut * sizeof *st->cut);
    memset(st, 0, sizeof *st);
}

void physics__stages_add(physics__stages *st, ct_allocator_t *a, ct_range_f fn, void *user,
                         size_t job_size, uint32_t count, uint32_t grain)
{
    if (st->failed || count == 0)
        return;
    if (job_size > sizeof st->stage->data ||
        physics__reserve_keep(a, (void **)&st->stage, &st->cap, st->n + 1, sizeof *st->stage)) {
        st->failed = true;
        return;
    }
    physics__stage *stage = &st->stage[st->n++];
    stage->fn = fn;
    stage->user = job_size ? NULL : user;
    stage->count = count;
    stage->grain = grain && grain < count ? grain : count;
    if (job_size)
        memcpy(stage->data, user, job_size);
}

static inline void *stages__user(physics__stage *stage)
{
    return stage->user ? stage->user : (void *)stage->data;
}

static inline uint32_t stages__items(const physics__stage *stage)
{
    return (stage->count + stage->grain - 1) / stage->grain;
}

/* How many ranges an item takes with `left` ranges between it and the stage's middle. */
static inline uint32_t stages__chunk(uint32_t left)
{
    const uint32_t share = left / STAGES_CUT_SHARE;
    return share < 1u ? 1u : share > STAGES_CUT_MAX ? STAGES_CUT_MAX : share;
}

/* Cuts a stage of `ranges` into items and puts the first range of each in first[]; returns how
 * many. The threads meet near the middle (the front takes items from the first, the others
 * from the last), where an item is one range, so that they finish within about one range of each
 * other; towards the ends, where the other thread hardly ever comes, an item takes several: each
 * item costs a claim (a locked instruction, which waits for the stores of the item before it) and
 * the solver colours' ranges take a microsecond. Items of a stage may be run on any thread in any
 * order, and a stage's function gives the same over a range as over its parts (the serial loop
 * runs it over the whole): the bits do not depend on the cut. */
static uint32_t stages__cut(uint32_t ranges, uint32_t *first)
{
    const uint32_t middle = ranges / 2u;
    uint32_t n = 0;
    for (uint32_t at = 0; at < middle; at += stages__chunk(middle - at))
        first[n++] = at;
    uint32_t back = 0;
    for (uint32_t top = ranges; top > middle; top -= stages__chunk(top - middle))
        back++;
    n += back;
    uint32_t at = n;
    for (uint32_t top = ranges; top > middle;) {
        top -= stages__chunk(top - middle);
        first[--at] = top;
    }
    return n;
}

static inline void stages__relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

typedef struct stages__run {
    physics__stages *st;
    uint64_t claimed;     /* a claim of this run: 4 times its number, plus who */
    atomic_uint at;       /* the first stage not known to be finished */
    atomic_uint sleepers; /* threads asleep in stages__nap (or about to be) */
    thrd_t caller;        /* the thread of physics__stages_run */
    mtx_t lock;           /* held to go to sleep and to wake the sleepers */
    cnd_t wake;           /* broadcast when a stage finishes while someone sleeps */
} stages__run;

static uint64_t stages__now_ns(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Sleeps until the counter's stage has finished. The sleeper counts itself before it looks at
 * the stage, and the finisher counts the stage before it looks for sleepers (both sequentially
 * consistent): either the sleeper sees the stage finished, or the finisher sees the sleeper and
 * wakes it under the lock, which the sleeper holds from its look until it waits. */
static void stages__nap(stages__run *run, physics__stage_counter *counter, uint32_t items)
{
    mtx_lock(&run->lock);
    atomic_fetch_add(&run->sleepers, 1u);
    if (!stages__finished(counter, items, memory_order_seq_cst)) {
        run->st->naps++;
        PHYSICS_TRACE(PHYSICS_TRACE_NAP, 0, 0);
        do
            cnd_wait(&run->wake, &run->lock);
        while (!stages__finished(counter, items, memory_order_seq_cst));
        PHYSICS_TRACE(PHYSICS_TRACE_NAP_END, 0, 0);
    }
    atomic_fetch_sub(&run->sleepers, 1u);
    mtx_unlock(&run->lock);
}

/* When the counter's stage (the last of stages k..last) has finished: `at` moved past it, and the
 * sleepers woken. Every thread looks when it has no more items to claim, after it counted its own:
 * the one whose count completes the stage always sees it (its count and the look, the other's count
 * and its look, are sequentially consistent), and a sleeper always hears (see
 * stages__nap). Two may both see it: `at` only moves forward. */
static void stages__finish(stages__run *run, physics__stage_counter *counter, uint32_t items,
                           uint32_t last)
{
    if (!stages__finished(counter, items, memory_order_seq_cst))
        return;
    uint32_t at = atomic_load_explicit(&run->at, memory_order_relaxed);
    while (at < last + 1 && !atomic_compare_exchange_weak_explicit(&run->at, &at, last + 1,
                                                                   memory_order_release,
                                                                   memory_order_relaxed))
        ;
    if (atomic_load(&run->sleepers)) {
        mtx_lock(&run->lock);
        cnd_broadcast(&run->wake);
        mtx_unlock(&run->lock);
    }
}

/* Counts the `taken` items the thread ran of the counter's stage, once it has no more to claim,
 * then looks whether the stage has finished (stages__finish). One count a stage, not one an item:
 * a locked add after each item (thousands a step) waited every time for the item's stores to
 * leave the core (an x86 locked instruction drains the store buffer), most of them to cache lines
 * the other core had read, and the add is what orders the count before the look for sleepers. A
 * thread the machine stops between two items now holds the others up until it runs again, as one
 * stopped inside an item always did. */
static void stages__count(stages__run *run, physics__stage_counter *counter, bool front,
                          uint32_t taken, uint32_t items, uint32_t last)
{
    if (taken)
        atomic_fetch_add(&counter->by[front ? 0 : 1].finished, taken);
    stages__finish(run, counter, items, last);
}

/* Waits until the counter's stage has finished: spinning for `patience` ns, then asleep. */
static void stages__wait(stages__run *run, physics__stage_counter *counter, uint32_t items,
                         uint64_t patience)
{
    uint64_t deadline = 0;
    for (uint32_t spin = 1; !stages__finished(counter, items, memory_order_acquire); spin++) {
        stages__relax();
        if (spin % STAGES_SPINS)
            continue;
        const uint64_t now = stages__now_ns();
        if (!deadline) {
            deadline = now + patience;
        } else if (now >= deadline) {
            stages__nap(run, counter, items);
            return;
        }
    }
}

/* One thread's part: every stage from the one under way, in order. */
static void stages__take_part(void *user, uint32_t begin, uint32_t end)
{
    (void)begin;
    (void)end;
    stages__run *run = user;
    physics__stages *st = run->st;
    /* The caller walks each stage from its first item, the others from its last: each thread
     * keeps to about the same part of every stage (the same slices of bodies, the same blocks of
     * each colour, whose contacts are those of the same bodies), so what it writes stays in its
     * own core's cache for its next stage instead of moving between the cores. */
    const bool front = thrd_equal(thrd_current(), run->caller) != 0;
    /* Read once: `at`, on the same cache line, is written at stage ends by the other thread. */
    const uint64_t claimed = run->claimed;
    const uint64_t mine = claimed | (front ? STAGES_BY_FRONT : STAGES_BY_BACK);
    PHYSICS_TRACE(PHYSICS_TRACE_JOIN, front ? 0u : 1u, 0);
    for (uint32_t k = atomic_load_explicit(&run->at, memory_order_acquire); k < st->n;) {
        physics__stage *stage = &st->stage[k];
        physics__stage_counter *counter = &st->counter[k];
        const uint32_t items = counter->items;
        /* A run of single-item stages goes to one thread; the others wait at its last. */
        uint32_t last = k;
        if (items == 1)
            while (last + 1 < st->n && stages__items(&st->stage[last + 1]) == 1)
                last++;
        physics__stage_claim *claim = &st->claim[counter->first_claim];
        const uint32_t *cut = &st->cut[counter->first_claim];
        /* The front claims the items in order from the first, the others from the last down, each
         * on the item's own claim: the front's and the back's are at the two ends of the stage
         * until they meet, so claiming costs no cache line the other thread is writing but where
         * they meet. The front takes a prefix and the back a suffix: meeting an item the other
         * end claimed, a thread has no more to take. (A back thread that meets a back thread's
         * claim goes on down.) */
        const uint64_t arrived = stages__now_ns();
        uint32_t taken = 0;
        PHYSICS_TRACE_FN(PHYSICS_TRACE_ARRIVE, k, items, front ? stage->fn : NULL);
        for (uint32_t at = 0; at < items; at++) {
            const uint32_t i = front ? at : items - 1u - at;
            uint64_t by = atomic_load_explicit(&claim[i].by, memory_order_relaxed);
            if (by >= claimed || !atomic_compare_exchange_strong_explicit(&claim[i].by, &by, mine,
                                                                          memory_order_relaxed,
                                                                          memory_order_relaxed)) {
                if (by != mine)
                    break;
                continue;
            }
            taken++;
            PHYSICS_TRACE(PHYSICS_TRACE_ITEM, k, i);
            if (items == 1) {
                for (uint32_t q = k; q <= last; q++)
                    st->stage[q].fn(stages__user(&st->stage[q]), 0, st->stage[q].count);
            } else {
                const uint32_t to = i + 1u < items ? cut[i + 1u] * stage->grain : stage->count;
                stage->fn(stages__user(stage), cut[i] * stage->grain, to);
            }
            PHYSICS_TRACE(PHYSICS_TRACE_ITEM_END, k, i);
        }
        PHYSICS_TRACE(PHYSICS_TRACE_DRAINED, k, items);
        stages__count(run, counter, front, taken, items, last);
        const uint64_t took = taken ? 2u * (stages__now_ns() - arrived) / taken : 0;
        stages__wait(run, counter, items, took > STAGES_NAP_NS ? took : STAGES_NAP_NS);
        PHYSICS_TRACE(PHYSICS_TRACE_WAITED, k, items);
        k = last + 1;
    }
    PHYSICS_TRACE(PHYSICS_TRACE_PART_END, front ? 0u : 1u, 0);
}

int physics__stages_run(physics__stages *st, ct_allocator_t *a, physics__pool pool,
                        bool by_section)
{
    const uint32_t n = st->n;
    st->n = 0;
    if (st->failed) {
        st->failed = false;
        return CT_ERR_NOMEM;
    }
    if (n == 0)
        return 0;
    /* Stages of one item each have nothing to share: no thread is woken for them. */
    bool shared = false;
    for (uint32_t k = 0; k < n && !shared; k++)
        shared = stages__items(&st->stage[k]) > 1;
    if (!pool.parallel_for || by_section || !shared) {
        /* One thread: the plain loop. A pool that times its jobs (the benchmark's) gets one
         * section per stage, and the single-item stages run here, as they would on one thread. */
        for (uint32_t k = 0; k < n; k++) {
            physics__stage *stage = &st->stage[k];
            if (pool.parallel_for && stages__items(stage) > 1)
                pool.parallel_for(pool.ctx, stage->count, stage->grain, stage->fn,
                                  stages__user(stage));
            else {
                PHYSICS_TRACE_FN(PHYSICS_TRACE_ARRIVE, k, 1, stage->fn);
                PHYSICS_TRACE(PHYSICS_TRACE_ITEM, k, 0);
                stage->fn(stages__user(stage), 0, stage->count);
                PHYSICS_TRACE(PHYSICS_TRACE_ITEM_END, k, 0);
            }
        }
        return 0;
    }
    uint32_t claims = 0;
    for (uint32_t k = 0; k < n; k++)
        claims += stages__items(&st->stage[k]);
    const uint32_t had_claims = st->cap_claim;
    if (physics__reserve(a, (void **)&st->counter, &st->cap_counter, n, sizeof *st->counter) ||
        physics__reserve(a, (void **)&st->claim, &st->cap_claim, claims, sizeof *st->claim) ||
        physics__reserve(a, (void **)&st->cut, &st->cap_cut, claims, sizeof *st->cut))
        return CT_ERR_NOMEM;
    if (st->cap_claim != had_claims)
        for (uint32_t i = 0; i < st->cap_claim; i++)
            atomic_init(&st->claim[i].by, 0u);
    claims = 0;
    for (uint32_t k = 0; k < n; k++) {
        atomic_init(&st->counter[k].by[0].finished, 0u);
        atomic_init(&st->counter[k].by[1].finished, 0u);
        st->counter[k].first_claim = claims;
        st->counter[k].items = stages__cut(stages__items(&st->stage[k]), &st->cut[claims]);
        claims += st->counter[k].items;
    }
    stages__run run = {.st = st, .claimed = 4u * ++st->runs, .caller = thrd_current()};
    atomic_init(&run.at, 0u);
    atomic_init(&run.sleepers, 0u);
    if (mtx_init(&run.lock, mtx_plain) != thrd_success)
        return CT_ERR_NOMEM;
    if (cnd_init(&run.wake) != thrd_success) {
        mtx_destroy(&run.lock);
        return CT_ERR_NOMEM;
    }
    st->n = n;
    PHYSICS_TRACE(PHYSICS_TRACE_SECTION, 1, n);
    pool.parallel_for(pool.ctx, pool.threads ? pool.threads : STAGES_PARTICIPANTS, 1,
                      stages__take_part, &run);
    PHYSICS_TRACE(PHYSICS_TRACE_SECTION_END, 1, n);
    cnd_destroy(&run.wake);
    mtx_destroy(&run.lock);
    st->n = 0;
    return 0;
}
