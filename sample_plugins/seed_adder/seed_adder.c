/*
 * The complete example plugin of the seed post "Building an Engine Plugin System", kept in the
 * post's own shape and names (plugin_api.h aliases them) to prove that plugin API v0 still works.
 * The only change: __declspec(dllexport) became CT_EXPORT. From Lua, Plugin.test(2, 3) == 5.
 */
#include "plugin_api.h"

LuaApi_v0 *_lua;

static int test(lua_State *L)
{
    double a = _lua->to_number(L, 1);
    double b = _lua->to_number(L, 2);
    _lua->push_number(L, a + b);
    return 1;
}

static void init(GetApiFunction get_engine_api)
{
    _lua = get_engine_api(LUA_API_ID, 0);

    if (_lua)
        _lua->add_module_function("Plugin", "test", test);
}

CT_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    if (api == PLUGIN_API_ID && version == 0) {
        static PluginApi_v0 api;
        api.init = init;
        return &api;
    }
    return 0;
}
