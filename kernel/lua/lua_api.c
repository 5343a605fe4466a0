/* ct_lua_api_v0 and ct_lua_api_v1: the tables plugins bind Lua with. Where a Lua C API function
 * already has the exact signature it goes into the table as is (as in the seed); the rest are thin
 * adapters for our types (bool, ct_lua_type) and for the few places our contract differs. */
#include <stdarg.h>
#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua/lua_env.h"

_Static_assert(CT_LUA_NONE == LUA_TNONE && CT_LUA_NIL == LUA_TNIL &&
                   CT_LUA_BOOLEAN == LUA_TBOOLEAN && CT_LUA_LIGHTUSERDATA == LUA_TLIGHTUSERDATA &&
                   CT_LUA_NUMBER == LUA_TNUMBER && CT_LUA_STRING == LUA_TSTRING &&
                   CT_LUA_TABLE == LUA_TTABLE && CT_LUA_FUNCTION == LUA_TFUNCTION &&
                   CT_LUA_USERDATA == LUA_TUSERDATA,
               "ct_lua_type mirrors lua_type()");

static void lua_api_register_module(const char *module, const ct_lua_reg_t *fns, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        lua_env__add_function(module, fns[i].name, fns[i].fn);
}

static ct_lua_type lua_api_type(lua_State *L, int idx) { return (ct_lua_type)lua_type(L, idx); }

static bool lua_api_to_boolean(lua_State *L, int idx) { return lua_toboolean(L, idx) != 0; }

/* lua_touserdata would also answer for full userdata, whose memory Lua may move or collect. */
static void *lua_api_to_light_userdata(lua_State *L, int idx)
{
    return lua_islightuserdata(L, idx) ? lua_touserdata(L, idx) : NULL;
}

/* A caller that does not ask for the length cannot see a NUL inside the string, which would cut
 * it short without a word ("levels/arena\0x" would name "levels/arena"): refuse it instead. */
static const char *lua_api_check_string(lua_State *L, int idx, size_t *len)
{
    return len ? luaL_checklstring(L, idx, len) : lua_env__check_c_string(L, idx);
}

static void lua_api_push_boolean(lua_State *L, bool b) { lua_pushboolean(L, b); }

static ct_lua_type lua_api_get_field(lua_State *L, int idx, const char *key)
{
    lua_getfield(L, idx, key);
    return (ct_lua_type)lua_type(L, -1);
}

static ct_lua_type lua_api_get_index(lua_State *L, int idx, int n)
{
    lua_rawgeti(L, idx, n);
    return (ct_lua_type)lua_type(L, -1);
}

/* Formats with the C library rather than lua_pushfstring, which knows only a few conversions,
 * while the header promises printf. A message too long for the stack buffer is formatted again
 * into a userdata, which the unwinding frees. nonnull also keeps gcc's -fsanitize=undefined
 * builds from warning that fmt might be NULL. */
__attribute__((format(printf, 2, 3), nonnull(2))) static int lua_api_error(lua_State *L,
                                                                           const char *fmt, ...)
{
    char small[256];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    size_t len = n > 0 ? (size_t)n : 0;
    const char *text = small;
    if (len >= sizeof small) {
        char *big = lua_newuserdata(L, len + 1);
        va_start(args, fmt);
        vsnprintf(big, len + 1, fmt, args);
        va_end(args);
        text = big;
    }
    luaL_where(L, 1);
    lua_pushlstring(L, text, len);
    lua_concat(L, 2);
    return lua_error(L);
}

static const ct_lua_api_v0 lua_api_v0 = {
    .add_module_function = lua_env__add_function,
    .to_number = lua_tonumber,
    .push_number = lua_pushnumber,
};

static const ct_lua_api_v1 lua_api_v1 = {
    .register_module = lua_api_register_module,
    .add_module_function = lua_env__add_function,
    .get_top = lua_gettop,
    .set_top = lua_settop,
    .type = lua_api_type,
    .to_number = lua_tonumber,
    .to_boolean = lua_api_to_boolean,
    .to_string = lua_tolstring,
    .to_light_userdata = lua_api_to_light_userdata,
    .check_number = luaL_checknumber,
    .check_string = lua_api_check_string,
    .opt_number = luaL_optnumber,
    .push_nil = lua_pushnil,
    .push_number = lua_pushnumber,
    .push_boolean = lua_api_push_boolean,
    .push_string = lua_pushlstring,
    .push_light_userdata = lua_pushlightuserdata,
    .new_table = lua_createtable,
    .get_field = lua_api_get_field,
    .set_field = lua_setfield,
    .get_index = lua_api_get_index,
    .set_index = lua_rawseti,
    .length = lua_objlen,
    .error = lua_api_error,
    .run_string = lua_env__run_string,
    .call_global = lua_env__call_global,
    .main_state = lua_env__state,
};

const ct_lua_api_v0 *lua_env__api_v0(void) { return &lua_api_v0; }

const ct_lua_api_v1 *lua_env__api_v1(void) { return &lua_api_v1; }
