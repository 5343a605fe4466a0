/*
 * hello_v1: a plugin-API-v1 plugin showing what a third-party plugin uses:
 *   - a name and a version;
 *   - an API of its own ("acme.greeter" v1, see acme_greeter.h) that other plugins can require;
 *   - required kernel APIs (ct.log, ct.lua, ct.memory), so the kernel orders and checks them;
 *   - init that can fail, and shutdown;
 *   - per-frame hooks;
 *   - hot-reload hooks that hand the plugin's state to the new code.
 * From Lua: Hello.greet("you") == "Hello, you!", Hello.greetings(), Hello.frames().
 * It includes only api/ headers and links nothing of the engine.
 */
#include <stdio.h>

#include "acme_greeter.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_reload.h"

/* Everything that must survive a hot reload lives here, in memory from the plugin allocator
 * (which survives reloads); the code's own statics are fresh after each reload. The header lets
 * new code refuse a state whose layout it does not know: bump HELLO_LAYOUT_VERSION whenever a
 * field changes. */
#define HELLO_LAYOUT_VERSION 1u
typedef struct hello_state_t {
    ct_reload_header_t header;
    uint64_t greetings;
    uint64_t frames;
    double seconds;
} hello_state_t;

static const ct_log_api_v1 *log_api;
static const ct_lua_api_v1 *lua_api;
static const ct_memory_api_v1 *memory_api;
static ct_plugin_o *plugin;
static hello_state_t *state;

#define CT_LOG_TABLE log_api
#define CT_LOG_SELF plugin

static uint32_t greet(const char *who, char *buf, uint32_t size)
{
    state->greetings++;
    int n = snprintf(buf, size, "Hello, %s!", who ? who : "stranger");
    return n < 0 ? 0 : (uint32_t)n;
}

static uint64_t greetings(void) { return state->greetings; }

static int l_hello_greet(lua_State *L)
{
    char buf[128];
    const char *who = lua_api->check_string(L, 1, NULL);
    uint32_t n = greet(who, buf, sizeof buf);
    lua_api->push_string(L, buf, n < sizeof buf ? n : sizeof buf - 1);
    return 1;
}

static int l_hello_greetings(lua_State *L)
{
    lua_api->push_number(L, (double)state->greetings);
    return 1;
}

static int l_hello_frames(lua_State *L)
{
    lua_api->push_number(L, (double)state->frames);
    return 1;
}

/* Fetches the APIs and registers the Lua functions: the same at first load and after a reload,
 * since the new code starts with empty statics. */
static int connect(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    plugin = self;
    log_api = get_engine_api(CT_LOG_API, 1);
    lua_api = get_engine_api(CT_LUA_API, 1);
    memory_api = get_engine_api(CT_MEMORY_API, 1);
    if (!log_api || !lua_api || !memory_api)
        return CT_ERR_MISSING_API;
    static const ct_lua_reg_t fns[] = {
        {"greet", l_hello_greet},
        {"greetings", l_hello_greetings},
        {"frames", l_hello_frames},
    };
    lua_api->register_module("Hello", fns, CT_ARRAY_COUNT(fns));
    return 0;
}

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    int err = connect(get_engine_api, self);
    if (err < 0)
        return err;
    ct_allocator_t *a = memory_api->plugin_allocator(self);
    state = ct_alloc(a, sizeof *state);
    if (!state)
        return CT_ERR_NOMEM;
    *state = (hello_state_t){.header = ct_reload_header(sizeof *state, HELLO_LAYOUT_VERSION)};
    ct_log_info("ready to greet");
    return 0;
}

static void shutdown(void)
{
    ct_log_info("%llu greetings over %llu frames", (unsigned long long)state->greetings,
                (unsigned long long)state->frames);
    ct_free(memory_api->plugin_allocator(plugin), state, sizeof *state);
    state = NULL;
}

static void frame_begin(double dt) { state->seconds += dt; }
static void frame_end(double dt)
{
    (void)dt;
    state->frames++;
}

/* The old code hands over its state as is: it stays valid should the new code refuse it. */
static void *reload_save(void) { return state; }

static int reload_load(ct_get_api_f get_engine_api, ct_plugin_o *self, void *saved)
{
    int err = connect(get_engine_api, self);
    if (err < 0)
        return err;
    err = ct_reload_adopt(log_api, self, saved, sizeof *state, HELLO_LAYOUT_VERSION);
    if (err == 0)
        state = saved;
    return err;
}

static const ct_api_ref_t provides[] = {CT_API_PROVIDE("acme.greeter", 1, acme_greeter_api_v1)};
static const ct_api_ref_t required[] = {
    CT_API_REQUIRE("ct.log", 1),
    CT_API_REQUIRE("ct.lua", 1),
    CT_API_REQUIRE("ct.memory", 1),
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_plugin_api_v1 plugin_api = {
        .name = "acme.hello",
        .version = {1, 0, 0, 0},
        .provides = provides,
        .num_provides = CT_ARRAY_COUNT(provides),
        .required = required,
        .num_requires = CT_ARRAY_COUNT(required),
        .init = init,
        .shutdown = shutdown,
        .frame_begin = frame_begin,
        .frame_end = frame_end,
        .reload_save = reload_save,
        .reload_load = reload_load,
    };
    static const acme_greeter_api_v1 greeter = {greet, greetings};
    if (api == CT_PLUGIN_API && version == 1)
        return (void *)&plugin_api;
    if (api == ACME_GREETER_API && version == 1)
        return (void *)&greeter;
    return NULL;
}
