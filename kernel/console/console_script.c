/* `script` messages: runs the Lua source between frames and turns its results into JSON.
 * A script may not hang the engine: a count hook stops it after CONSOLE_SCRIPT_SECONDS (the JIT
 * is off while it runs, so the hook sees every loop). */
#include "console/console_internal.h"

#include <cJSON.h>
#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua/lua_env.h"

#define CONSOLE_SCRIPT_SECONDS 5
#define JSON_MAX_DEPTH 4
#define JSON_MAX_ITEMS 256

static uint64_t script_deadline;

static void on_count(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    if (uv_hrtime() > script_deadline)
        luaL_error(L, "script stopped: it ran over %d s", CONSOLE_SCRIPT_SECONDS);
}

static cJSON *to_json(lua_State *L, int index, int depth);

static cJSON *table_to_json(lua_State *L, int index, int depth)
{
    /* A table with keys 1..n and nothing else is an array; anything else an object. */
    size_t n = lua_objlen(L, index);
    bool array = true;
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, index)) {
        count++;
        lua_pop(L, 1);
        if (count > n)
            array = false;
    }
    array = array && count == n;
    cJSON *out = array ? cJSON_CreateArray() : cJSON_CreateObject();
    size_t added = 0;
    lua_pushnil(L);
    while (lua_next(L, index)) {
        if (++added > JSON_MAX_ITEMS) {
            lua_pop(L, 2);
            cJSON_AddItemToObject(out, "...", cJSON_CreateString("(more items)"));
            break;
        }
        cJSON *value = to_json(L, lua_gettop(L), depth + 1);
        if (array) {
            cJSON_AddItemToArray(out, value);
        } else {
            char key[64];
            if (lua_type(L, -2) == LUA_TSTRING)
                snprintf(key, sizeof key, "%s", lua_tostring(L, -2));
            else if (lua_type(L, -2) == LUA_TNUMBER)
                snprintf(key, sizeof key, "%.17g", lua_tonumber(L, -2));
            else
                snprintf(key, sizeof key, "(%s)", luaL_typename(L, -2));
            cJSON_AddItemToObject(out, key, value);
        }
        lua_pop(L, 1);
    }
    return out;
}

/* Lua value -> JSON: numbers, strings, booleans and nil as themselves (NaN and infinities as
 * strings), tables to JSON_MAX_DEPTH levels, anything else as its tostring text. */
static cJSON *to_json(lua_State *L, int index, int depth)
{
    switch (lua_type(L, index)) {
    case LUA_TNIL:
        return cJSON_CreateNull();
    case LUA_TBOOLEAN:
        return cJSON_CreateBool(lua_toboolean(L, index));
    case LUA_TNUMBER: {
        double v = lua_tonumber(L, index);
        if (isfinite(v))
            return cJSON_CreateNumber(v);
        return cJSON_CreateString(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    }
    case LUA_TSTRING:
        return cJSON_CreateString(lua_tostring(L, index));
    case LUA_TTABLE:
        if (depth < JSON_MAX_DEPTH)
            return table_to_json(L, index, depth);
        break; /* too deep: described in words below */
    default:
        break;
    }
    {
        char text[64];
        snprintf(text, sizeof text, "%s: %p", luaL_typename(L, index), lua_topointer(L, index));
        return cJSON_CreateString(text);
    }
}

cJSON *console__run_script(const console_client_t *c, const char *code, size_t len)
{
    lua_State *L = lua_env__state();
    cJSON *reply = cJSON_CreateObject();
    cJSON_AddStringToObject(reply, "type", "script");
    int top = lua_gettop(L);
    char chunk[48];
    snprintf(chunk, sizeof chunk, "=console client %u", (unsigned)c->id);
    int rc = luaL_loadbuffer(L, code, len, chunk);
    bool loaded = rc == 0;
    if (loaded) {
        script_deadline = uv_hrtime() + (uint64_t)CONSOLE_SCRIPT_SECONDS * 1000000000u;
        luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
        lua_sethook(L, on_count, LUA_MASKCOUNT, 10000);
        rc = lua_env__pcall_keep_error(0, LUA_MULTRET);
        lua_sethook(L, NULL, 0, 0);
        luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
    }
    if (rc) {
        const char *msg = lua_tostring(L, -1);
        cJSON_AddBoolToObject(reply, "ok", false);
        /* A client may try a line as an expression first and then as a statement. */
        cJSON_AddStringToObject(reply, "phase", loaded ? "run" : "compile");
        cJSON_AddStringToObject(reply, "error", msg ? msg : "(error object is not a string)");
    } else {
        cJSON_AddBoolToObject(reply, "ok", true);
        cJSON *results = cJSON_AddArrayToObject(reply, "results");
        for (int i = top + 1; i <= lua_gettop(L); i++)
            cJSON_AddItemToArray(results, to_json(L, i, 0));
    }
    lua_settop(L, top);
    return reply;
}
