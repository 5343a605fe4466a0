/* The Lua module Profiler: scopes from scripts. Lua strings do not outlive the frame reliably,
 * so names are interned (profiler__intern) before they reach a ring. */
#include <lauxlib.h>
#include <lua.h>

#include "lua/lua_env.h"
#include "profiler/profiler.h"

static const char *scope_name(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    return profiler__intern(name, len);
}

/* Profiler.scope(name, fn, ...): runs fn(...) inside a scope named `name`; returns fn's results.
 * An error in fn closes the scope and is raised again as it was. */
static int l_profiler_scope(lua_State *L)
{
    luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    uint32_t token = 0;
    if (profiler__kernel_api->enabled())
        token = profiler__kernel_api->begin(scope_name(L));
    int base = 1; /* everything above the name is fn and its arguments */
    int rc = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
    profiler__kernel_api->end(token);
    if (rc != 0)
        return lua_error(L);
    return lua_gettop(L) - base;
}

static int l_profiler_begin_scope(lua_State *L)
{
    uint32_t token = 0;
    if (profiler__kernel_api->enabled())
        token = profiler__kernel_api->begin(scope_name(L));
    else
        luaL_checkstring(L, 1);
    lua_pushinteger(L, (lua_Integer)token);
    return 1;
}

/* Profiler.end_scope(token): closes the scope begin_scope opened (the token it returned). */
static int l_profiler_end_scope(lua_State *L)
{
    lua_Integer token = luaL_checkinteger(L, 1);
    if (token > 0 && token <= CT_PROFILER_MAX_DEPTH)
        profiler__kernel_api->end((uint32_t)token);
    return 0;
}

static int l_profiler_enabled(lua_State *L)
{
    lua_pushboolean(L, profiler__kernel_api->enabled());
    return 1;
}

int profiler__bind_lua(void)
{
    int r = lua_env__add_raw_function("Profiler", "scope", l_profiler_scope);
    if (!r)
        r = lua_env__add_raw_function("Profiler", "begin_scope", l_profiler_begin_scope);
    if (!r)
        r = lua_env__add_raw_function("Profiler", "end_scope", l_profiler_end_scope);
    if (!r)
        r = lua_env__add_raw_function("Profiler", "enabled", l_profiler_enabled);
    return r;
}
