/*
 * The hot-reload test plugin, built three times from this file:
 *   RELOAD_VERSION=1   Counter.step() adds 1
 *   RELOAD_VERSION=2   Counter.step() adds 10
 *   RELOAD_FAIL        registers Counter.step() adding 1000 and a resource type "counter_bad",
 *                      then refuses the reload, so the kernel must roll both back and keep the
 *                      old code.
 *   REQUIRE_LATER      also requires test.x v1, which a plugin loaded after it provides: the
 *                      kernel must refuse that reload, since it would change the load order.
 * The running total lives in state from the plugin allocator and must survive each swap.
 */
#include "../test_plugins.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_resource.h"

#if defined(RELOAD_FAIL)
#define STEP 1000
#define RELOAD_VERSION 3
#elif RELOAD_VERSION == 1
#define STEP 1
#else
#define STEP 10
#endif

typedef struct counter_state_t {
    double value;
} counter_state_t;

static const ct_lua_api_v1 *lua;
static const ct_memory_api_v1 *memory;
static ct_plugin_o *plugin;
static counter_state_t *state;

static int code_version(void) { return RELOAD_VERSION; }
static double value(void) { return state->value; }

static int l_counter_step(lua_State *L)
{
    state->value += STEP;
    lua->push_number(L, state->value);
    return 1;
}

static int connect(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    plugin = self;
    lua = get_engine_api(CT_LUA_API, 1);
    memory = get_engine_api(CT_MEMORY_API, 1);
    if (!lua || !memory)
        return CT_ERR_MISSING_API;
    lua->add_module_function("Counter", "step", l_counter_step);
    return 0;
}

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    int err = connect(get_engine_api, self);
    if (err < 0)
        return err;
    state = ct_alloc(memory->plugin_allocator(self), sizeof *state);
    if (!state)
        return CT_ERR_NOMEM;
    state->value = 0;
    return 0;
}

static void shutdown(void) { ct_free(memory->plugin_allocator(plugin), state, sizeof *state); }

static void *reload_save(void) { return state; }

static int reload_load(ct_get_api_f get_engine_api, ct_plugin_o *self, void *saved)
{
    int err = connect(get_engine_api, self);
#ifdef RELOAD_FAIL
    (void)saved;
    const ct_resource_api_v1 *resource = get_engine_api(CT_RESOURCE_API, 1);
    ct_resource_type_t type = {
        .type = "counter_bad", .compile = test_compile_nothing, .load = test_load_nothing};
    if (resource)
        resource->register_type(&type);
    return err < 0 ? err : CT_ERR_INIT_FAILED;
#else
    state = saved;
    return err;
#endif
}

static const ct_api_ref_t provides[] = {
    {TEST_COUNTER_API, 1, sizeof(test_counter_api_v1), 0, "test.counter"},
};
static const ct_api_ref_t requires[] = {
    {CT_LUA_API, 1, 0, 0, "ct.lua"},
    {CT_MEMORY_API, 1, 0, 0, "ct.memory"},
#ifdef REQUIRE_LATER
    CT_API_REQUIRE("test.x", 1),
#endif
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_plugin_api_v1 plugin_api = {
        .name = "counter",
        .version = {RELOAD_VERSION, 0, 0, 0},
        .provides = provides,
        .num_provides = 1,
        .requires = requires,
        .num_requires = CT_ARRAY_COUNT(requires),
        .init = init,
        .shutdown = shutdown,
        .reload_save = reload_save,
        .reload_load = reload_load,
    };
    static const test_counter_api_v1 counter = {code_version, value};
    if (api == CT_PLUGIN_API && version == 1)
        return (void *)&plugin_api;
    if (api == TEST_COUNTER_API && version == 1)
        return (void *)&counter;
    return NULL;
}
