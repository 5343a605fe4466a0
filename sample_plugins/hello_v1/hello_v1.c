/*
 * hello_v1: a plugin-API-v1 plugin showing what a third-party plugin uses:
 *   - a name and a version;
 *   - an API of its own ("acme.greeter" v1, see acme_greeter.h) that other plugins can require;
 *   - required kernel APIs (ct.log, ct.lua, ct.memory), so the kernel orders and checks them;
 *   - init that can fail, and shutdown;
 *   - per-frame hooks;
 *   - hot-reload hooks that hand the plugin's state to the new code;
 *   - the SDK's ct_module.h, which writes that entry (fetching the APIs, the state block's life,
 *     the reload handover) from one description.
 * From Lua: Hello.greet("you") == "Hello, you!", Hello.greetings(), Hello.frames().
 * It includes only api/ headers and links nothing of the engine.
 */
#include <stdio.h>

#include "acme_greeter.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_module.h"
#include "ct_plugin.h"

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

/* What the plugin fetched (ct_module_connect fills them at init and again in new code after a
 * reload, since the new code starts with empty statics). */
static const ct_log_api_v1 *log_api;
static const ct_lua_api_v1 *lua_api;
static ct_plugin_o *plugin;
static ct_allocator_t *allocator;
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

/* Registers the Lua functions: at init, and again in the new code after a reload (the kernel
 * points the old ones at the new code, or back should the reload fail). */
static int register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"greet", l_hello_greet},
        {"greetings", l_hello_greetings},
        {"frames", l_hello_frames},
    };
    lua_api->register_module("Hello", fns, CT_ARRAY_COUNT(fns));
    return 0;
}

static int start(void)
{
    register_lua();
    ct_log_info("ready to greet");
    return 0;
}

static void stop(void)
{
    ct_log_info("%llu greetings over %llu frames", (unsigned long long)state->greetings,
                (unsigned long long)state->frames);
}

static void frame_begin(double dt) { state->seconds += dt; }
static void frame_end(double dt)
{
    (void)dt;
    state->frames++;
}

static const ct_api_ref_t provides[] = {CT_API_PROVIDE("acme.greeter", 1, acme_greeter_api_v1)};
static const ct_api_ref_t required[] = {
    CT_API_REQUIRE("ct.log", 1),
    CT_API_REQUIRE("ct.lua", 1),
    CT_API_REQUIRE("ct.memory", 1),
};
/* Where each API of `required` goes, in its order (ct.memory only gives the allocator). */
static void *const api_slots[] = {&log_api, &lua_api, NULL};

static const ct_module_t module = {
    .apis = required,
    .num_apis = CT_ARRAY_COUNT(required),
    .api_slots = api_slots,
    .num_api_slots = CT_ARRAY_COUNT(api_slots),
    .self = &plugin,
    .allocator = &allocator,
    .state = &state,
    .state_size = sizeof(hello_state_t),
    .layout_version = HELLO_LAYOUT_VERSION,
    .start = start,
    .stop = stop,
    .rebind = register_lua,
};

/* Plugin API v1 hands its hooks no context, so each names the description. */
static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    return ct_module_init(&module, get_engine_api, self);
}

static void shutdown(void) { ct_module_shutdown(&module); }

/* The old code hands over its state as is: it stays valid should the new code refuse it. */
static void *reload_save(void) { return ct_module_state(&module); }

static int reload_load(ct_get_api_f get_engine_api, ct_plugin_o *self, void *saved)
{
    return ct_module_reload(&module, get_engine_api, self, saved);
}

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
    static const acme_greeter_api_v1 greeter = {.greet = greet, .greetings = greetings};
    static const ct_api_table_t tables[] = {
        {CT_PLUGIN_API, 1, &plugin_api},
        {ACME_GREETER_API, 1, &greeter},
    };
    return ct_module_serve(tables, CT_ARRAY_COUNT(tables), api, version);
}
