/*
 * acme.forecast: a plugin a studio writes against the installed SDK alone. It requires the
 * example plugin's API (acme.greeter, from share/cuttle/examples/hello_v1) and an engine
 * module's (ct.transform, from the installed modules), and tells Lua what it got:
 * Forecast.check() returns the greeting and whether ct.transform v1 arrived.
 */
#include "acme_greeter.h"
#include "ct_lua.h"
#include "ct_plugin.h"
#include "ct_transform.h"

static const acme_greeter_api_v1 *greeter;
static const ct_transform_api_v1 *transform;
static const ct_lua_api_v1 *lua;

static int l_forecast_check(lua_State *L)
{
    char buf[64];
    uint32_t n = greeter->greet("forecast", buf, sizeof buf);
    lua->push_string(L, buf, n < sizeof buf ? n : sizeof buf - 1);
    lua->push_boolean(L, transform != NULL && transform->create != NULL);
    return 2;
}

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    greeter = get_engine_api(ACME_GREETER_API, 1);
    transform = get_engine_api(CT_TRANSFORM_API, 1);
    lua = get_engine_api(CT_LUA_API, 1);
    if (!greeter || !transform || !lua)
        return CT_ERR_MISSING_API;
    static const ct_lua_reg_t fns[] = {{"check", l_forecast_check}};
    lua->register_module("Forecast", fns, 1);
    return 0;
}

static const ct_api_ref_t requires[] = {
    {ACME_GREETER_API, 1, 0, 0, "acme.greeter"},
    {CT_TRANSFORM_API, 1, 0, 0, "ct.transform"},
    {CT_LUA_API, 1, 0, 0, "ct.lua"},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version);
CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_plugin_api_v1 plugin = {
        .name = "acme.forecast",
        .version = {1, 0, 0, 0},
        .requires = requires,
        .num_requires = 3,
        .init = init,
    };
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
