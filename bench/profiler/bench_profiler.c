/*
 * The thread profiler's cost per scope, through the API table a plugin gets
 * (get_engine_api(CT_PROFILER_API, 1)) and CT_PROFILE_SCOPE:
 *   profiler.scope_ns            one scope (begin + end) with no client attached (nobody listens)
 *   profiler.scope_ns_recording  one scope while a listener records (as with a console client or
 *                                --profile), rings gathered between batches like a frame would
 *   profiler.gather_ns_per_scope what the frame's gather then pays per recorded scope
 */
#include "../common/bench.h"
#include "profiler/profiler.h"

#define BATCH 8192
#define RUNS 41

static const ct_profiler_api_v1 *ct_profiler;
static uint64_t sunk;

static void count_sink(void *ctx, const profiler_thread_info_t *thread,
                       const profiler_scope_t *scopes, uint32_t n)
{
    (void)ctx, (void)thread, (void)scopes;
    sunk += n;
}

/* The work inside the scope is empty so that only the scope is timed; the volatile store keeps
 * the loop from being optimised away. */
static volatile uint32_t work;

static double time_scopes_ns(bool gather_between, double *gather_ns)
{
    double samples[RUNS], gathers[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_now_ns();
        for (uint32_t i = 0; i < BATCH; i++) {
            CT_PROFILE_SCOPE("bench.scope");
            work = i;
        }
        samples[r] = (bench_now_ns() - t0) / BATCH;
        double g0 = bench_now_ns();
        if (gather_between)
            profiler__gather();
        gathers[r] = (bench_now_ns() - g0) / BATCH;
    }
    if (gather_ns)
        *gather_ns = bench_median(gathers, RUNS);
    return bench_median(samples, RUNS);
}

int main(void)
{
    ct_profiler = profiler__api_v1();
    ct_profiler->set_thread_name("main");
    time_scopes_ns(false, NULL); /* warm up */
    bench_report("profiler.scope_ns", time_scopes_ns(false, NULL), "ns",
                 "CT_PROFILE_SCOPE begin+end, no client attached");
    profiler__add_sink(count_sink, NULL);
    double gather_ns;
    time_scopes_ns(true, &gather_ns); /* warm up: the ring is touched once */
    bench_report("profiler.scope_ns_recording", time_scopes_ns(true, &gather_ns), "ns",
                 "CT_PROFILE_SCOPE begin+end while recording (RDTSCP + ring store)");
    bench_report("profiler.gather_ns_per_scope", gather_ns, "ns",
                 "the frame's gather, per recorded scope (to a counting sink)");
    profiler__remove_sink(count_sink, NULL);
    if (sunk < (uint64_t)BATCH * RUNS) {
        fprintf(stderr, "bench_profiler: only %llu scopes reached the sink\n",
                (unsigned long long)sunk);
        return 1;
    }
    profiler__shutdown();
    bench_print_table();
    return 0;
}
