/*
 * api/ct_module.h, the SDK's plugin-entry helper, driven by a fake engine (no kernel): APIs fetched
 * into their slots (required, optional, named by hash), a missing one refused by name, a
 * description whose lists disagree refused, the state block's life (zeroed with its header,
 * given back when start fails and at shutdown), a reload adopting only its own layout, and
 * get_plugin_api answered from a table list. The six modules use it; their own suites cover it
 * in a real kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../support/test_alloc.h"
#include "ct_module.h"

/* ---- A fake engine ------------------------------------------------------------------------ */

#define FAKE_API 0x12345678u
#define OPTIONAL_API 0x0badf00du

static test_alloc_t alloc;
static char logged[512];
static bool have_fake = true, have_memory = true;

static void log_write(ct_plugin_o *self, ct_log_level level, const char *fmt, ...)
{
    (void)self, (void)level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(logged, sizeof logged, fmt, ap);
    va_end(ap);
}

static ct_allocator_t *plugin_allocator(ct_plugin_o *self)
{
    (void)self;
    return &alloc.base;
}

static const ct_log_api_v1 log_api = {.write = log_write};
static const ct_memory_api_v1 memory_api = {.plugin_allocator = plugin_allocator};
static const int fake_api = 1, hashed_api = 2;

static void *get_engine_api(uint32_t api, uint32_t version)
{
    if (api == CT_LOG_API && version == 1)
        return (void *)&log_api;
    if (api == CT_MEMORY_API && version == 1 && have_memory)
        return (void *)&memory_api;
    if (api == FAKE_API && version == 2 && have_fake)
        return (void *)&fake_api;
    if (api == ct_hash32("acme.hashed") && version == 1)
        return (void *)&hashed_api;
    return NULL;
}

/* ---- The plugin under test ---------------------------------------------------------------- */

#define LAYOUT 7u
typedef struct state_t {
    ct_reload_header_t header;
    uint64_t counter;
} state_t;

static const ct_log_api_v1 *p_log;
static const int *p_fake, *p_optional, *p_hashed;
static ct_plugin_o *p_self;
static ct_allocator_t *p_allocator;
static state_t *p_state;
static int starts, stops, rebinds, start_result, rebind_result;

static int start(void)
{
    starts++;
    assert_non_null(p_state); /* in place before start runs */
    return start_result;
}
static void stop(void) { stops++; }
static int rebind(void)
{
    rebinds++;
    return rebind_result;
}

static const ct_api_ref_t required[] = {
    CT_API_REQUIRE("ct.log", 1),
    {FAKE_API, 2, 0, 0, "acme.fake"},
    {OPTIONAL_API, 1, 0, CT_API_OPTIONAL, "acme.optional"},
    CT_API_REQUIRE("acme.hashed", 1),
    CT_API_REQUIRE("ct.memory", 1),
};
static void *const api_slots[] = {&p_log, &p_fake, &p_optional, &p_hashed, NULL};

static const ct_module_t module = {
    .apis = required,
    .num_apis = CT_ARRAY_COUNT(required),
    .api_slots = api_slots,
    .num_api_slots = CT_ARRAY_COUNT(api_slots),
    .self = &p_self,
    .allocator = &p_allocator,
    .state = &p_state,
    .state_size = sizeof(state_t),
    .layout_version = LAYOUT,
    .start = start,
    .stop = stop,
    .rebind = rebind,
};

static ct_plugin_o *const self = (ct_plugin_o *)&module; /* any non-NULL handle */

static int reset(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    logged[0] = '\0';
    have_fake = have_memory = true;
    p_log = NULL, p_fake = p_optional = p_hashed = NULL, p_self = NULL, p_allocator = NULL;
    p_state = NULL;
    starts = stops = rebinds = start_result = rebind_result = 0;
    return 0;
}

/* ---- Tests -------------------------------------------------------------------------------- */

static void init_fetches_and_shutdown_gives_back(void **state)
{
    (void)state;
    assert_int_equal(ct_module_init(&module, get_engine_api, self), 0);
    assert_ptr_equal(p_log, &log_api);
    assert_ptr_equal(p_fake, &fake_api);
    assert_null(p_optional);
    assert_ptr_equal(p_hashed, &hashed_api); /* id 0: the kernel's rule, the hash of the name */
    assert_ptr_equal(p_self, self);
    assert_ptr_equal(p_allocator, &alloc.base);
    assert_int_equal(starts, 1);
    assert_non_null(p_state);
    assert_int_equal(p_state->header.size, sizeof(state_t));
    assert_int_equal(p_state->header.layout_version, LAYOUT);
    assert_int_equal(p_state->counter, 0);
    assert_int_equal(alloc.live_blocks, 1);
    assert_ptr_equal(ct_module_state(&module), p_state);

    ct_module_shutdown(&module);
    assert_int_equal(stops, 1);
    assert_null(p_state);
    assert_int_equal(alloc.live_blocks, 0);
    assert_int_equal(alloc.live_bytes, 0);
}

static void a_missing_api_is_named(void **state)
{
    (void)state;
    have_fake = false;
    assert_int_equal(ct_module_init(&module, get_engine_api, self), CT_ERR_MISSING_API);
    assert_non_null(strstr(logged, "acme.fake v2"));
    assert_int_equal(starts, 0);
    assert_int_equal(alloc.allocations, 0);

    reset(NULL);
    have_memory = false;
    assert_int_equal(ct_module_init(&module, get_engine_api, self), CT_ERR_MISSING_API);
    assert_non_null(strstr(logged, "ct.memory v1"));
    assert_int_equal(alloc.allocations, 0);
}

static void lists_of_two_lengths_are_refused(void **state)
{
    (void)state;
    ct_module_t bad = module;
    bad.num_api_slots = bad.num_apis - 1;
    assert_int_equal(ct_module_init(&bad, get_engine_api, self), CT_ERR_INVALID);
    assert_non_null(strstr(logged, "5 APIs but 4 slots"));
    assert_int_equal(starts, 0);
    assert_int_equal(alloc.allocations, 0);
}

static void a_failed_start_gives_the_block_back(void **state)
{
    (void)state;
    start_result = CT_ERR_CONFLICT;
    assert_int_equal(ct_module_init(&module, get_engine_api, self), CT_ERR_CONFLICT);
    assert_int_equal(starts, 1);
    assert_null(p_state);
    assert_int_equal(alloc.allocations, 1);
    assert_int_equal(alloc.live_blocks, 0);
}

static void a_reload_adopts_only_its_own_layout(void **state)
{
    (void)state;
    assert_int_equal(ct_module_init(&module, get_engine_api, self), 0);
    state_t *old = ct_module_state(&module);
    old->counter = 42;

    /* The new code starts with empty statics. */
    p_state = NULL, p_log = NULL;
    state_t other = *old;
    other.header.layout_version = LAYOUT + 1;
    assert_int_equal(ct_module_reload(&module, get_engine_api, self, &other), CT_ERR_VERSION);
    assert_non_null(strstr(logged, "layout 8"));
    assert_null(p_state);
    assert_int_equal(rebinds, 0);
    assert_int_equal(ct_module_reload(&module, get_engine_api, self, NULL), CT_ERR_VERSION);

    assert_int_equal(ct_module_reload(&module, get_engine_api, self, old), 0);
    assert_ptr_equal(p_state, old);
    assert_ptr_equal(p_log, &log_api);
    assert_int_equal(p_state->counter, 42);
    assert_int_equal(rebinds, 1);

    rebind_result = CT_ERR_VERSION; /* refused by the plugin itself: the kernel keeps the old code */
    assert_int_equal(ct_module_reload(&module, get_engine_api, self, old), CT_ERR_VERSION);
    assert_int_equal(rebinds, 2);

    ct_module_shutdown(&module);
    assert_int_equal(alloc.live_blocks, 0);
}

static void tables_are_served_by_id_and_version(void **state)
{
    (void)state;
    static const int a = 1, b = 2;
    static const ct_api_table_t tables[] = {{CT_PLUGIN_API, 1, &a}, {FAKE_API, 2, &b}};
    assert_ptr_equal(ct_module_serve(tables, 2, CT_PLUGIN_API, 1), &a);
    assert_ptr_equal(ct_module_serve(tables, 2, FAKE_API, 2), &b);
    assert_null(ct_module_serve(tables, 2, FAKE_API, 1));
    assert_null(ct_module_serve(tables, 2, CT_PLUGIN_API, 2));
    assert_null(ct_module_serve(tables, 0, CT_PLUGIN_API, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(init_fetches_and_shutdown_gives_back, reset),
        cmocka_unit_test_setup(a_missing_api_is_named, reset),
        cmocka_unit_test_setup(lists_of_two_lengths_are_refused, reset),
        cmocka_unit_test_setup(a_failed_start_gives_the_block_back, reset),
        cmocka_unit_test_setup(a_reload_adopts_only_its_own_layout, reset),
        cmocka_unit_test_setup(tables_are_served_by_id_and_version, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
