/*
 * api/ct_module.h, the SDK's plugin-entry helper, driven by a fake engine (no kernel): APIs fetched
 * into their slots (required, optional, named by hash), a missing one refused by name, a
 * description whose lists disagree refused, the state block's life (zeroed with its header,
 * given back when start fails and at shutdown), a reload adopting only its own layout, and
 * get_plugin_api answered from a table list. Each of those runs twice: through the plugin API v1
 * helpers (ct_module_t, as hello_v1 uses them) and through the v2 hooks of a ct_module_v2_t
 * called as the kernel calls them, and a third time through the hooks of a ct_module_v3_t (one
 * typed list of APIs: what the six modules use; their own suites cover them in a real kernel).
 * Then what only v2 and v3 have: the version the kernel chose, the context, reload_abort, hooks
 * that find no description, and the plugin table v3 makes from its list. That a slot of the
 * wrong type does not compile is test_module_slot_types.sh's.
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
static bool have_fake = true, have_memory = true, offer_fake_v3;

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
static const int fake_api = 1, hashed_api = 2, fake_api_v3 = 3;

static void *get_engine_api(uint32_t api, uint32_t version)
{
    if (api == CT_LOG_API && version == 1)
        return (void *)&log_api;
    if (api == CT_MEMORY_API && version == 1 && have_memory)
        return (void *)&memory_api;
    if ((api == FAKE_API || api == ct_hash32("acme.fake")) && version == 2 && have_fake)
        return (void *)&fake_api;
    if (api == FAKE_API && version == 3 && offer_fake_v3)
        return (void *)&fake_api_v3;
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

/* The same plugin in plugin API v2: acme.fake as a range, of which the kernel chose one. */
static const ct_api_need_t needs[] = {
    CT_API_NEED("ct.log", 1),
    {FAKE_API, 2, 3, 0, "acme.fake"},
    {OPTIONAL_API, 1, 0, CT_API_OPTIONAL, "acme.optional"},
    CT_API_NEED("acme.hashed", 1),
    CT_API_NEED("ct.memory", 1),
};

static const ct_module_v2_t module2 = {
    .plugin = {CT_MODULE_V2_HOOKS, .name = "acme.test", .required = needs,
               .num_required = CT_ARRAY_COUNT(needs)},
    .module = {.api_slots = api_slots,
               .num_api_slots = CT_ARRAY_COUNT(api_slots),
               .self = &p_self,
               .allocator = &p_allocator,
               .state = &p_state,
               .state_size = sizeof(state_t),
               .layout_version = LAYOUT,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

/* The same plugin as a ct_module_v3_t: one list, each slot typed (the fake APIs' tables are
 * ints). */
typedef int acme_fake_api_v2;
typedef int acme_optional_api_v1;
typedef int acme_hashed_api_v1;
static const ct_module_api_t apis3[] = {
    CT_MODULE_API(log, 1, &p_log),
    CT_MODULE_API_OF(acme, fake, 2, &p_fake),
    CT_MODULE_API_OPTIONAL_OF(acme, optional, 1, &p_optional),
    CT_MODULE_API_OF(acme, hashed, 1, &p_hashed),
    CT_MODULE_API_NO_SLOT(memory, 1),
};

static const ct_module_v3_t module3 = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "acme.test"},
    .apis = apis3,
    .num_apis = CT_ARRAY_COUNT(apis3),
    .module = {.self = &p_self,
               .allocator = &p_allocator,
               .state = &p_state,
               .state_size = sizeof(state_t),
               .layout_version = LAYOUT,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

/* What the kernel would choose for needs[i]: the highest version offered, CT_API_ABSENT when none
 * is (so a missing acme.fake is asked for at its lowest version, 2). */
static uint32_t chosen_version(ct_plugin_o *plugin, uint32_t i)
{
    assert_ptr_equal(plugin, self);
    if (i == 1)
        return offer_fake_v3 ? 3 : have_fake ? 2 : CT_API_ABSENT;
    return i == 2 ? CT_API_ABSENT : 1;
}

static const ct_plugin_host_t host = {get_engine_api, self, {0, 2, 0, 0}, 0, 2, chosen_version};

/* The plugin's get_plugin_api, as each module writes it. */
static const int acme_table = 4;
static void *get_plugin_api_of(const ct_module_v2_t *m, uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{FAKE_API, 2, &acme_table}};
    return ct_module_v2_serve(m, tables, CT_ARRAY_COUNT(tables), api, version);
}

/* ---- The entry, as the kernel drives it in each plugin API version ------------------------- */

typedef struct entry_t {
    /* init; with `short_slots`, of a description with one API slot fewer than APIs */
    int (*init)(bool short_slots);
    void (*shutdown)(void);
    void *(*reload_save)(void);
    /* reload_load in the new code (whose statics the caller emptied) */
    int (*reload_load)(void *saved);
} entry_t;

static int v1_init(bool short_slots)
{
    ct_module_t m = module;
    m.num_api_slots -= short_slots;
    return ct_module_init(&m, get_engine_api, self);
}
static void v1_shutdown(void) { ct_module_shutdown(&module); }
static void *v1_reload_save(void) { return ct_module_state(&module); }
static int v1_reload_load(void *saved)
{
    return ct_module_reload(&module, get_engine_api, self, saved);
}
static const entry_t v1 = {v1_init, v1_shutdown, v1_reload_save, v1_reload_load};

/* The context the kernel keeps for the v2 plugin; the kernel asks get_plugin_api for the plugin
 * table before it calls any hook (at load, and of the new code on a reload). */
static void *ctx;
static const ct_plugin_api_v2 *v2_table(const ct_module_v2_t *m)
{
    return get_plugin_api_of(m, CT_PLUGIN_API, 2);
}

static int v2_init(bool short_slots)
{
    static ct_module_v2_t m;
    m = module2;
    m.module.num_api_slots -= short_slots;
    const ct_module_v2_t *served = short_slots ? &m : &module2;
    int err = v2_table(served)->init(&host, &ctx);
    if (err == 0)
        assert_ptr_equal(ctx, served); /* the context is the description */
    else
        assert_null(ctx);
    return err;
}
static void v2_shutdown(void) { v2_table(&module2)->shutdown(ctx); }
static void *v2_reload_save(void) { return v2_table(&module2)->reload_save(ctx); }
static int v2_reload_load(void *saved)
{
    void *new_ctx = NULL;
    int err = v2_table(&module2)->reload_load(&host, saved, &new_ctx);
    if (err == 0)
        ctx = new_ctx;
    else
        assert_null(new_ctx);
    return err;
}
static const entry_t v2 = {v2_init, v2_shutdown, v2_reload_save, v2_reload_load};

static void *get_plugin_api_of3(const ct_module_v3_t *m, uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{FAKE_API, 2, &acme_table}};
    return ct_module_v3_serve(m, tables, CT_ARRAY_COUNT(tables), api, version);
}
static const ct_plugin_api_v2 *v3_table(void)
{
    return get_plugin_api_of3(&module3, CT_PLUGIN_API, 2);
}
/* A v3 description has one list, so it cannot have fewer slots than APIs. */
static int v3_init(bool short_slots)
{
    assert_false(short_slots);
    int err = v3_table()->init(&host, &ctx);
    if (err == 0)
        assert_ptr_equal(ctx, &module3);
    else
        assert_null(ctx);
    return err;
}
static void v3_shutdown(void) { v3_table()->shutdown(ctx); }
static void *v3_reload_save(void) { return v3_table()->reload_save(ctx); }
static int v3_reload_load(void *saved)
{
    void *new_ctx = NULL;
    int err = v3_table()->reload_load(&host, saved, &new_ctx);
    if (err == 0)
        ctx = new_ctx;
    else
        assert_null(new_ctx);
    return err;
}
static const entry_t v3 = {v3_init, v3_shutdown, v3_reload_save, v3_reload_load};

static int reset(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    logged[0] = '\0';
    have_fake = have_memory = true;
    offer_fake_v3 = false;
    p_log = NULL, p_fake = p_optional = p_hashed = NULL, p_self = NULL, p_allocator = NULL;
    p_state = NULL;
    ctx = NULL;
    starts = stops = rebinds = start_result = rebind_result = 0;
    return 0;
}

/* ---- Tests of both entries ---------------------------------------------------------------- */

static void init_fetches_and_shutdown_gives_back(void **state)
{
    const entry_t *entry = *state;
    assert_int_equal(entry->init(false), 0);
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
    assert_ptr_equal(entry->reload_save(), p_state);

    entry->shutdown();
    assert_int_equal(stops, 1);
    assert_null(p_state);
    assert_int_equal(alloc.live_blocks, 0);
    assert_int_equal(alloc.live_bytes, 0);
}

static void a_missing_api_is_named(void **state)
{
    const entry_t *entry = *state;
    have_fake = false;
    assert_int_equal(entry->init(false), CT_ERR_MISSING_API);
    assert_non_null(strstr(logged, "acme.fake v2"));
    assert_int_equal(starts, 0);
    assert_int_equal(alloc.allocations, 0);

    reset(NULL);
    have_memory = false;
    assert_int_equal(entry->init(false), CT_ERR_MISSING_API);
    assert_non_null(strstr(logged, "ct.memory v1"));
    assert_int_equal(alloc.allocations, 0);
}

static void lists_of_two_lengths_are_refused(void **state)
{
    const entry_t *entry = *state;
    assert_int_equal(entry->init(true), CT_ERR_INVALID);
    assert_non_null(strstr(logged, "5 APIs but 4 slots"));
    assert_int_equal(starts, 0);
    assert_int_equal(alloc.allocations, 0);
}

static void a_failed_start_gives_the_block_back(void **state)
{
    const entry_t *entry = *state;
    start_result = CT_ERR_CONFLICT;
    assert_int_equal(entry->init(false), CT_ERR_CONFLICT);
    assert_int_equal(starts, 1);
    assert_null(p_state);
    assert_int_equal(alloc.allocations, 1);
    assert_int_equal(alloc.live_blocks, 0);
}

static void a_reload_adopts_only_its_own_layout(void **state)
{
    const entry_t *entry = *state;
    assert_int_equal(entry->init(false), 0);
    state_t *old = entry->reload_save();
    assert_non_null(old);
    old->counter = 42;

    /* The new code starts with empty statics. */
    p_state = NULL, p_log = NULL;
    state_t other = *old;
    other.header.layout_version = LAYOUT + 1;
    assert_int_equal(entry->reload_load(&other), CT_ERR_VERSION);
    assert_non_null(strstr(logged, "layout 8"));
    assert_null(p_state);
    assert_int_equal(rebinds, 0);
    assert_int_equal(entry->reload_load(NULL), CT_ERR_VERSION);

    assert_int_equal(entry->reload_load(old), 0);
    assert_ptr_equal(p_state, old);
    assert_ptr_equal(p_log, &log_api);
    assert_int_equal(p_state->counter, 42);
    assert_int_equal(rebinds, 1);

    rebind_result =
        CT_ERR_VERSION; /* refused by the plugin itself: the kernel keeps the old code */
    assert_int_equal(entry->reload_load(old), CT_ERR_VERSION);
    assert_int_equal(rebinds, 2);

    entry->shutdown();
    assert_int_equal(stops, 1);
    assert_int_equal(alloc.live_blocks, 0);
}

/* ---- What only plugin API v2 has ---------------------------------------------------------- */

static void the_version_the_kernel_chose_is_fetched(void **state)
{
    (void)state;
    offer_fake_v3 = true;
    assert_int_equal(v2_init(false), 0);
    assert_ptr_equal(p_fake, &fake_api_v3);
    assert_null(p_optional);
    v2_shutdown();
    assert_int_equal(alloc.live_blocks, 0);
}

/* When the new code refused, reload_abort gives the old code its block back. */
static void reload_abort_gives_the_block_back(void **state)
{
    (void)state;
    assert_int_equal(v2_init(false), 0);
    state_t *old = v2_reload_save();
    rebind_result = CT_ERR_VERSION;
    assert_int_equal(v2_reload_load(old), CT_ERR_VERSION);
    p_state = NULL; /* what the refused code may have left in the slot is not the old code's */
    v2_table(&module2)->reload_abort(ctx, old);
    assert_ptr_equal(p_state, old);
    assert_ptr_equal(ctx, &module2);
    v2_shutdown();
    assert_int_equal(alloc.live_blocks, 0);
}

/* A hook whose get_plugin_api served no description (it lives in another file, or was never
 * asked) refuses, saying why, and takes nothing. */
static void hooks_without_a_served_description_refuse(void **state)
{
    (void)state;
    *ct_module_v2__served() = NULL;
    assert_int_equal(module2.plugin.init(&host, &ctx), CT_ERR_INVALID);
    assert_non_null(strstr(logged, "served no description"));
    assert_null(ctx);
    logged[0] = '\0';
    assert_int_equal(module2.plugin.reload_load(&host, p_state, &ctx), CT_ERR_INVALID);
    assert_non_null(strstr(logged, "served no description"));
    assert_null(ctx);
    assert_int_equal(starts + rebinds, 0);
    assert_int_equal(alloc.allocations, 0);
}

/* ---- Serving get_plugin_api --------------------------------------------------------------- */

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

static void a_v2_module_serves_its_plugin_table(void **state)
{
    (void)state;
    const ct_plugin_api_v2 *p = get_plugin_api_of(&module2, CT_PLUGIN_API, 2);
    assert_ptr_equal(p, &module2.plugin);
    assert_ptr_equal(*ct_module_v2__served(), &module2);
    assert_int_equal(p->magic, CT_PLUGIN_MAGIC);
    assert_int_equal(p->struct_size, sizeof(ct_plugin_api_v2));
    assert_true(p->init == ct_module_v2_init && p->shutdown == ct_module_v2_shutdown);
    assert_true(p->reload_save == ct_module_v2_reload_save);
    assert_true(p->reload_load == ct_module_v2_reload_load);
    assert_true(p->reload_abort == ct_module_v2_reload_abort);
    assert_null(p->frame_begin);
    assert_ptr_equal(get_plugin_api_of(&module2, FAKE_API, 2), &acme_table);
    assert_null(get_plugin_api_of(&module2, CT_PLUGIN_API, 1));
    assert_null(get_plugin_api_of(&module2, FAKE_API, 1));
}

/* What the kernel reads of a v3 module: its plugin table, with `required` made from the list. */
static void a_v3_module_serves_its_list_as_required(void **state)
{
    (void)state;
    const ct_plugin_api_v2 *p = get_plugin_api_of3(&module3, CT_PLUGIN_API, 2);
    assert_non_null(p);
    assert_ptr_not_equal(p, &module3.plugin); /* a copy: the description has no `required` */
    assert_string_equal(p->name, "acme.test");
    assert_int_equal(p->magic, CT_PLUGIN_MAGIC);
    assert_true(p->init == ct_module_v3_init && p->shutdown == ct_module_v3_shutdown);
    assert_true(p->reload_save == ct_module_v3_reload_save);
    assert_true(p->reload_load == ct_module_v3_reload_load);
    assert_true(p->reload_abort == ct_module_v3_reload_abort);
    assert_int_equal(p->num_required, 5);
    const char *names[] = {"ct.log", "acme.fake", "acme.optional", "acme.hashed", "ct.memory"};
    const uint32_t versions[] = {1, 2, 1, 1, 1};
    for (uint32_t i = 0; i < 5; i++) {
        assert_string_equal(p->required[i].name, names[i]);
        assert_int_equal(p->required[i].id, 0); /* the kernel hashes the name */
        assert_int_equal(p->required[i].min_version, versions[i]);
        assert_int_equal(p->required[i].max_version, 0);
        assert_int_equal(p->required[i].flags, i == 2 ? CT_API_OPTIONAL : 0);
    }
    assert_ptr_equal(apis3[1].slot, &p_fake);
    assert_null(apis3[4].slot);
    assert_ptr_equal(get_plugin_api_of3(&module3, FAKE_API, 2), &acme_table);
    assert_null(get_plugin_api_of3(&module3, CT_PLUGIN_API, 1));
}

/* More APIs than the copy holds: no plugin table (the kernel reports the NULL answer) rather than
 * a list cut short. */
static void a_v3_list_too_long_gets_no_plugin_table(void **state)
{
    (void)state;
    static ct_module_api_t many[CT_MODULE_MAX_APIS + 1];
    for (uint32_t i = 0; i < CT_ARRAY_COUNT(many); i++)
        many[i] = apis3[4];
    static ct_module_v3_t big;
    big = module3;
    big.apis = many;
    big.num_apis = CT_ARRAY_COUNT(many);
    assert_null(get_plugin_api_of3(&big, CT_PLUGIN_API, 2));
    big.num_apis = CT_MODULE_MAX_APIS;
    const ct_plugin_api_v2 *p = get_plugin_api_of3(&big, CT_PLUGIN_API, 2);
    assert_non_null(p);
    assert_int_equal(p->num_required, CT_MODULE_MAX_APIS);
}

static void v3_hooks_without_a_served_description_refuse(void **state)
{
    (void)state;
    ct_module_v3__served()->m = NULL;
    assert_int_equal(module3.plugin.init(&host, &ctx), CT_ERR_INVALID);
    assert_non_null(strstr(logged, "served no description"));
    assert_null(ctx);
    assert_int_equal(starts, 0);
    assert_int_equal(alloc.allocations, 0);
}

#define BOTH(f)                                                                                    \
    {#f " (v1)", f, reset, NULL, (void *)&v1}, { #f " (v2)", f, reset, NULL, (void *)&v2 }
#define ALL(f)                                                                                     \
    BOTH(f), { #f " (v3)", f, reset, NULL, (void *)&v3 }

int main(void)
{
    const struct CMUnitTest tests[] = {
        ALL(init_fetches_and_shutdown_gives_back),
        ALL(a_missing_api_is_named),
        BOTH(lists_of_two_lengths_are_refused),
        ALL(a_failed_start_gives_the_block_back),
        ALL(a_reload_adopts_only_its_own_layout),
        cmocka_unit_test_setup(the_version_the_kernel_chose_is_fetched, reset),
        cmocka_unit_test_setup(reload_abort_gives_the_block_back, reset),
        cmocka_unit_test_setup(hooks_without_a_served_description_refuse, reset),
        cmocka_unit_test_setup(tables_are_served_by_id_and_version, reset),
        cmocka_unit_test_setup(a_v2_module_serves_its_plugin_table, reset),
        cmocka_unit_test_setup(a_v3_module_serves_its_list_as_required, reset),
        cmocka_unit_test_setup(a_v3_list_too_long_gets_no_plugin_table, reset),
        cmocka_unit_test_setup(v3_hooks_without_a_served_description_refuse, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
