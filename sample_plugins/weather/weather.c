/*
 * weather: a complete plugin-API-v2 plugin, the one README.md's "Write your first plugin" builds.
 * It provides an API of its own ("acme.weather" v1, acme_weather.h), registers Lua functions
 * (Weather.forecast("Oslo"), Weather.forecasts()) and hands its state over on a hot reload.
 * Only api/ headers; it links nothing of the engine.
 */
#include <string.h>

#include "acme_weather.h"
#include "ct_hash.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_reload.h"

#define WEATHER_LAYOUT 1u /* bump when weather_t changes */

/* Everything the plugin keeps, in one block that survives hot reloads. */
typedef struct weather_t {
    ct_reload_header_t header;
    const ct_plugin_host_t *host;
    const ct_log_api_v1 *log;
    const ct_lua_api_v2 *lua;
    const ct_memory_api_v1 *memory;
    uint64_t forecasts;
} weather_t;

/* The API table's functions take no context (a table is shared by every caller), so they find
 * the plugin here; everything else gets its context handed in. */
static weather_t *weather;

#define CT_LOG_TABLE weather->log
#define CT_LOG_SELF weather->host->self

static const char *forecast_for(weather_t *w, const char *city)
{
    w->forecasts++;
    return city && ct_hash32(city) % 2 ? "rain" : "sun";
}

static const char *forecast(const char *city) { return forecast_for(weather, city); }
static uint64_t forecasts(void) { return weather->forecasts; }

/* Lua functions are closures: Lua hands them the context they were registered with. */
static int l_weather_forecast(lua_State *L, void *ctx)
{
    weather_t *w = ctx;
    const char *answer = forecast_for(w, w->lua->check_string(L, 1, NULL));
    w->lua->push_string(L, answer, strlen(answer));
    return 1;
}

static int l_weather_forecasts(lua_State *L, void *ctx)
{
    weather_t *w = ctx;
    w->lua->push_number(L, (double)w->forecasts);
    return 1;
}

/* Fetches the APIs and registers the Lua functions: at init and again in new code on reload. */
static int connect(weather_t *w, const ct_plugin_host_t *host)
{
    w->host = host;
    w->log = host->get_engine_api(CT_LOG_API, 1);
    w->lua = host->get_engine_api(CT_LUA_API, 2);
    w->memory = host->get_engine_api(CT_MEMORY_API, 1);
    if (!w->log || !w->lua || !w->memory)
        return CT_ERR_MISSING_API;
    static const ct_lua_closure_reg_t fns[] = {
        {"forecast", l_weather_forecast},
        {"forecasts", l_weather_forecasts},
    };
    w->lua->register_closures("Weather", fns, CT_ARRAY_COUNT(fns), w);
    weather = w;
    return 0;
}

static int init(const ct_plugin_host_t *host, void **ctx)
{
    const ct_memory_api_v1 *memory = host->get_engine_api(CT_MEMORY_API, 1);
    weather_t *w = memory ? ct_alloc(memory->plugin_allocator(host->self), sizeof *w) : NULL;
    if (!w)
        return CT_ERR_NOMEM;
    *w = (weather_t){.header = ct_reload_header(sizeof *w, WEATHER_LAYOUT)};
    int err = connect(w, host);
    if (err < 0) {
        ct_free(memory->plugin_allocator(host->self), w, sizeof *w);
        return err;
    }
    *ctx = w;
    ct_log_info("ready (kernel %u.%u)", host->kernel_version.major, host->kernel_version.minor);
    return 0;
}

static void shutdown(void *ctx)
{
    weather_t *w = ctx;
    ct_log_info("%llu forecasts", (unsigned long long)w->forecasts);
    ct_free(w->memory->plugin_allocator(w->host->self), w, sizeof *w);
}

/* Hot reload: the old code hands its block over as is (it stays valid if the new code refuses). */
static void *reload_save(void *ctx) { return ctx; }

static int reload_load(const ct_plugin_host_t *host, void *state, void **ctx)
{
    const ct_log_api_v1 *log = host->get_engine_api(CT_LOG_API, 1);
    int err = ct_reload_adopt(log, host->self, state, sizeof(weather_t), WEATHER_LAYOUT);
    if (err == 0)
        err = connect(state, host);
    if (err == 0)
        *ctx = state;
    return err;
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t provides[] = {CT_API_PROVIDE("acme.weather", 1, acme_weather_api_v1)};
    static const ct_api_need_t required[] = {
        CT_API_NEED("ct.log", 1),
        CT_API_NEED("ct.lua", 2),
        CT_API_NEED("ct.memory", 1),
    };
    static const ct_plugin_api_v2 plugin = {
        .magic = CT_PLUGIN_MAGIC,
        .struct_size = sizeof plugin,
        .name = "acme.weather",
        .version = {1, 0, 0, 0},
        .provides = provides,
        .num_provides = CT_ARRAY_COUNT(provides),
        .required = required,
        .num_required = CT_ARRAY_COUNT(required),
        .init = init,
        .shutdown = shutdown,
        .reload_save = reload_save,
        .reload_load = reload_load,
    };
    static const acme_weather_api_v1 weather_api = {.forecast = forecast, .forecasts = forecasts};
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&plugin;
    if (api == ACME_WEATHER_API && version == 1)
        return (void *)&weather_api;
    return NULL;
}
