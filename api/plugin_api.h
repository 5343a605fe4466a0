/*
 * plugin_api.h: the seed post's own names, so the plugin from "Building an Engine Plugin System"
 * compiles as written (only `__declspec(dllexport)` becomes CT_EXPORT). New code should include
 * ct_plugin.h and ct_lua.h and use the ct_ names; these are aliases of exactly those types and ids.
 * (This header includes two Cuttle headers besides ct_types.h: it exists only to alias them.)
 */
#ifndef CT_SEED_PLUGIN_API_H
#define CT_SEED_PLUGIN_API_H

#include "ct_lua.h"
#include "ct_plugin.h"

#define PLUGIN_API_ID CT_PLUGIN_API
#define LUA_API_ID CT_LUA_API

/* The seed's names for ct_get_api_f, ct_plugin_api_v0 and ct_lua_api_v0. */
typedef ct_get_api_f GetApiFunction;
typedef ct_plugin_api_v0 PluginApi_v0;
typedef ct_lua_api_v0 LuaApi_v0;

#endif
