/* The thread profiler: nothing is recorded without a listener; scopes from the main thread and
 * job threads reach a sink with their thread, core and depth; too deep scopes and full rings are
 * handled; the --profile writer makes Trace Event JSON that parses, with thread names.
 *
 * `test_profiler --write-sample FILE` writes the trace the viewer test draws
 * (tests/console/data/sample_trace.json). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "base/jobs.h"
#include "base/memory.h"
#include "profiler/profiler.h"
#include "profiler/profiler_trace.h"

static const ct_profiler_api_v1 *ct_profiler;

typedef struct seen_t {
    uint32_t scopes, job_scopes, threads_with_jobs, max_depth;
    uint64_t dropped;
    bool main_named;
    bool ordered; /* every scope ends after it starts */
} seen_t;

static void sink(void *ctx, const profiler_thread_info_t *thread, const profiler_scope_t *scopes,
                 uint32_t n)
{
    seen_t *s = ctx;
    bool jobs = false;
    s->dropped += thread->dropped;
    if (!strcmp(thread->name, "main"))
        s->main_named = true;
    for (uint32_t i = 0; i < n; i++) {
        s->scopes++;
        if (!strcmp(scopes[i].name, "job")) {
            s->job_scopes++;
            jobs = true;
        }
        if (scopes[i].depth > s->max_depth)
            s->max_depth = scopes[i].depth;
        if (scopes[i].end_ns < scopes[i].start_ns)
            s->ordered = false;
    }
    s->threads_with_jobs += jobs;
}

static void busy(void *user_data, uint32_t begin, uint32_t end)
{
    (void)user_data;
    CT_PROFILE_SCOPE("busy");
    volatile double x = 0;
    for (uint32_t i = begin; i < end; i++)
        for (int k = 0; k < 200000; k++)
            x += k * 0.5;
}

/* A frame like the kernel's: a frame scope, an update scope, jobs across the workers. */
static void frame(void)
{
    CT_PROFILE_SCOPE("frame");
    {
        CT_PROFILE_SCOPE("update");
        jobs__api_v1()->parallel_for(64, 4, busy, NULL);
    }
    CT_PROFILE_SCOPE("render");
}

static int setup(void **state)
{
    (void)state;
    ct_profiler = profiler__api_v1();
    memory__init(0);
    ct_profiler->set_thread_name("main");
    return jobs__init(3);
}

static int teardown(void **state)
{
    (void)state;
    jobs__shutdown();
    profiler__shutdown();
    memory__shutdown();
    return 0;
}

static void nothing_is_recorded_without_a_listener(void **state)
{
    (void)state;
    assert_false(ct_profiler->enabled());
    assert_int_equal(ct_profiler->begin("idle"), 0);
    ct_profiler->end(0);
    seen_t seen = {.ordered = true};
    assert_int_equal(profiler__add_sink(sink, &seen), 0);
    profiler__gather();
    assert_int_equal(seen.scopes, 0);
    profiler__remove_sink(sink, &seen);
}

static void frames_and_jobs_reach_the_sink(void **state)
{
    (void)state;
    seen_t seen = {.ordered = true};
    assert_int_equal(profiler__add_sink(sink, &seen), 0);
    assert_true(ct_profiler->enabled());
    for (int i = 0; i < 3; i++) {
        frame();
        profiler__gather();
    }
    profiler__remove_sink(sink, &seen);
    assert_false(ct_profiler->enabled());
    assert_true(seen.main_named);
    assert_true(seen.ordered);
    /* Per frame: frame, update, render, and 16 job ranges each with a job and a busy scope. */
    assert_int_equal(seen.job_scopes, 3 * 16);
    assert_int_equal(seen.scopes, 3 * (3 + 16 * 2));
    assert_true(seen.max_depth >= 1);
    assert_int_equal(seen.dropped, 0);
}

static void deep_nesting_and_full_rings(void **state)
{
    (void)state;
    seen_t seen = {.ordered = true};
    profiler__add_sink(sink, &seen);
    uint32_t tokens[40];
    for (int i = 0; i < 40; i++)
        tokens[i] = ct_profiler->begin("deep");
    assert_int_not_equal(tokens[CT_PROFILER_MAX_DEPTH - 1], 0);
    assert_int_equal(tokens[CT_PROFILER_MAX_DEPTH], 0); /* too deep: not recorded */
    for (int i = 39; i >= 0; i--)
        ct_profiler->end(tokens[i]);
    profiler__gather();
    assert_int_equal(seen.scopes, CT_PROFILER_MAX_DEPTH);
    assert_int_equal(seen.max_depth, CT_PROFILER_MAX_DEPTH - 1);
    /* An outer end closes inner scopes whose end never came. */
    uint32_t outer = ct_profiler->begin("outer");
    ct_profiler->begin("never ended");
    ct_profiler->end(outer);
    assert_int_equal(ct_profiler->begin("after"), 1);
    ct_profiler->end(1);
    profiler__gather();
    /* More scopes than a ring holds between two gathers: the rest are counted as dropped. */
    seen = (seen_t){.ordered = true};
    for (uint32_t i = 0; i < PROFILER_RING + 100; i++) {
        uint32_t t = ct_profiler->begin("flood");
        ct_profiler->end(t);
    }
    profiler__gather();
    assert_int_equal(seen.scopes, PROFILER_RING);
    assert_int_equal(seen.dropped, 100);
    profiler__remove_sink(sink, &seen);
}

/* Writes three frames to `path` with the --profile writer. */
static int write_trace(const char *path)
{
    int r = profiler__trace_open(path);
    if (r)
        return r;
    for (int i = 0; i < 3; i++) {
        frame();
        profiler__gather();
    }
    return profiler__trace_close();
}

static void the_trace_file_is_trace_event_json(void **state)
{
    (void)state;
    char path[] = "/tmp/cuttle-profile-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write_trace(path), 0);
    FILE *f = fdopen(fd, "r");
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    remove(path);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *events = cJSON_GetObjectItem(root, "traceEvents"), *e;
    uint32_t complete = 0, names = 0, jobs = 0;
    cJSON_ArrayForEach(e, events)
    {
        const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
        if (!strcmp(ph, "M"))
            names++;
        if (!strcmp(ph, "X")) {
            complete++;
            assert_true(cJSON_GetObjectItem(e, "dur")->valuedouble >= 0);
            assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "core"));
            jobs += !strcmp(cJSON_GetObjectItem(e, "name")->valuestring, "job");
        }
    }
    assert_int_equal(complete, 3 * (3 + 16 * 2));
    assert_int_equal(jobs, 3 * 16);
    assert_true(names >= 1);
    cJSON_Delete(root);
    /* A path that cannot be written is an error, not a crash. */
    assert_int_equal(profiler__trace_open("/nonexistent-dir/x.json"), CT_ERR_IO);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-sample")) {
        setup(NULL);
        int r = write_trace(argv[2]);
        teardown(NULL);
        return r ? 1 : 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_is_recorded_without_a_listener),
        cmocka_unit_test(frames_and_jobs_reach_the_sink),
        cmocka_unit_test(deep_nesting_and_full_rings),
        cmocka_unit_test(the_trace_file_is_trace_event_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
