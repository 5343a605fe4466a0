/* ct_lua_api_v2: version 1's table (shared, not copied: v2 starts with v1's exact layout) plus
 * closures with a context, userdata types, references, protected calls and iteration. */
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua/lua_env.h"

_Static_assert(offsetof(ct_lua_api_v2, register_closures) == sizeof(ct_lua_api_v1),
               "ct_lua_api_v2 starts with ct_lua_api_v1");
_Static_assert(CT_LUA_REFNIL == LUA_REFNIL && CT_LUA_NOREF == LUA_NOREF,
               "references mirror luaL_ref");
_Static_assert(CT_LUA_GLOBALS == LUA_GLOBALSINDEX, "the globals pseudo-index");

static void lua_api_register_closures(const char *module, const ct_lua_closure_reg_t *fns,
                                      uint32_t n, void *ctx)
{
    for (uint32_t i = 0; fns && i < n; i++)
        lua_env__add_closure(module, fns[i].name, fns[i].fn, ctx);
}

static void lua_api_register_type(const char *type, const ct_lua_closure_reg_t *methods, uint32_t n,
                                  void *ctx)
{
    for (uint32_t i = 0; methods && i < n; i++)
        lua_env__add_method(type, methods[i].name, methods[i].fn, ctx);
}

static void *lua_api_new_userdata(lua_State *L, size_t size, const char *type)
{
    luaL_getmetatable(L, type);
    if (!lua_istable(L, -1))
        luaL_error(L, "no Lua userdata type named '%s' is registered", type);
    void *memory = lua_newuserdata(L, size);
    memset(memory, 0, size);
    lua_insert(L, -2);
    lua_setmetatable(L, -2);
    return memory;
}

static void *lua_api_to_userdata(lua_State *L, int idx, const char *type)
{
    void *memory = lua_touserdata(L, idx);
    if (!memory || lua_islightuserdata(L, idx) || !lua_getmetatable(L, idx))
        return NULL;
    luaL_getmetatable(L, type);
    bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? memory : NULL;
}

static void *lua_api_check_userdata(lua_State *L, int idx, const char *type)
{
    void *memory = lua_api_to_userdata(L, idx, type);
    if (!memory)
        luaL_typerror(L, idx, type);
    return memory;
}

static int32_t lua_api_ref(lua_State *L, int idx)
{
    lua_pushvalue(L, idx);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

static void lua_api_push_ref(lua_State *L, int32_t ref) { lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }
static void lua_api_unref(lua_State *L, int32_t ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }

const ct_lua_api_v2 *lua_env__api_v2(void)
{
    static ct_lua_api_v2 api;
    if (!api.register_closures) {
        memcpy(&api, lua_env__api_v1(), sizeof(ct_lua_api_v1));
        api.register_closures = lua_api_register_closures;
        api.register_type = lua_api_register_type;
        api.new_userdata = lua_api_new_userdata;
        api.check_userdata = lua_api_check_userdata;
        api.to_userdata = lua_api_to_userdata;
        api.ref = lua_api_ref;
        api.push_ref = lua_api_push_ref;
        api.unref = lua_api_unref;
        api.pcall = lua_env__pcall_on;
        api.next = lua_next;
        api.push_value = lua_pushvalue;
    }
    return &api;
}
