/* `script` messages: runs the Lua source between frames and turns its results into JSON.
 * A script may not hang the engine: the Lua watchdog stops it after CONSOLE_SCRIPT_SECONDS
 * (kernel/lua/lua_watchdog.c; also in JIT-compiled loops).
 *
 * A loopback client gets the full LuaJIT (the same global environment as the game's scripts).
 * A remote client (console_client_t.remote: its peer is not loopback) gets a sandbox: its source
 * is loaded as text only (never bytecode), and runs in an environment of its own whose reads
 * fall through to the real globals except for what reaches memory, files, processes or native
 * code: no ffi, debug, io, jit, os (but os.clock/time/difftime), no package loaders, require only
 * of modules already loaded and not one of those, no dofile/loadfile, getfenv/setfenv,
 * string.dump (also not through ("").dump while it runs), and load/loadstring take text only
 * and give the client's environment. Its globals stay in its environment (dropped when it
 * disconnects); the engine's modules (World, Entity, Transform, Physics, ...) stay reachable. */
#include "console/console_internal.h"

#include <cJSON.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua/lua_env.h"

#define CONSOLE_SCRIPT_SECONDS 5
#define JSON_MAX_DEPTH 4
#define JSON_MAX_ITEMS 256

/* Run once (in the full environment) to build the sandbox; returns a function making a fresh
 * client environment, and the string library without dump. */
static const char sandbox_builder[] =
    "local G, rawget, pairs, type, tostring, error, setmetatable, load, collectgarbage ="
    "  _G, rawget, pairs, type, tostring, error, setmetatable, load, collectgarbage\n"
    "local loaded = package.loaded\n"
    "local function copy(t, drop)\n"
    "  local o = {}\n"
    "  for k, v in pairs(t) do if not (drop and drop[k]) then o[k] = v end end\n"
    "  return o\n"
    "end\n"
    "local danger = {[G] = true, [package] = true, [loaded] = true}\n"
    "if package.preload then danger[package.preload] = true end\n"
    "local function forbid(v)\n"
    "  if v == nil then return end\n"
    "  danger[v] = true\n"
    "  if type(v) == 'table' then for _, f in pairs(v) do\n"
    "    if type(f) == 'function' or type(f) == 'table' then danger[f] = true end\n"
    "  end end\n"
    "end\n"
    "local modules = {'ffi', 'debug', 'io', 'os', 'jit', 'jit.util', 'jit.profile', 'jit.opt',\n"
    "                 'jit.vmdef', 'jit.bcsave', 'package'}\n"
    "local blocked_module = {}\n"
    "for _, n in ipairs(modules) do blocked_module[n] = true; forbid(rawget(loaded, n)) end\n"
    "for _, n in ipairs{'ffi', 'debug', 'io', 'os', 'jit'} do forbid(rawget(G, n)) end\n"
    "for _, n in ipairs{'getfenv', 'setfenv', 'load', 'loadstring', 'loadfile', 'dofile',\n"
    "                   'require', 'module', 'collectgarbage'} do forbid(rawget(G, n)) end\n"
    "forbid(string.dump)\n"
    "local clock, time, difftime = os and os.clock, os and os.time, os and os.difftime\n"
    "for _, f in ipairs{clock or 0, time or 0, difftime or 0} do danger[f] = nil end\n"
    "local safe_string = copy(string, {dump = true})\n"
    "local shared = {string = safe_string, table = copy(table), math = copy(math),\n"
    "                coroutine = copy(coroutine), bit = bit and copy(bit),\n"
    "                os = {clock = clock, time = time, difftime = difftime}}\n"
    "local hidden = {ffi = true, debug = true, io = true, jit = true, package = true,\n"
    "                require = true, module = true, dofile = true, loadfile = true,\n"
    "                getfenv = true, setfenv = true, load = true, loadstring = true,\n"
    "                collectgarbage = true, _G = true}\n"
    "local function module_of(n)\n"
    "  n = tostring(n)\n"
    "  if shared[n] ~= nil then return shared[n] end\n"
    "  if blocked_module[n] or n:find('^jit%.') then return nil end\n"
    "  local v = rawget(loaded, n)\n"
    "  if v == nil or danger[v] then return nil end\n"
    "  return v\n"
    "end\n"
    "local function new_env()\n"
    "  local env = {}\n"
    "  env._G = env\n"
    "  env.load = function(chunk, name, mode, e) return load(chunk, name, 't', e or env) end\n"
    "  env.loadstring = function(s, name) return load(s, name, 't', env) end\n"
    "  env.require = function(n)\n"
    "    local v = module_of(n)\n"
    "    if v == nil then error(\"module '\" .. tostring(n) .. \"' is not available to a \" ..\n"
    "                           'remote console client', 2) end\n"
    "    return v\n"
    "  end\n"
    "  env.package = {loaded = setmetatable({}, {__index = function(_, n) return module_of(n) end,\n"
    "                                            __metatable = false})}\n"
    "  env.collectgarbage = function(opt)\n"
    "    if opt == 'count' then return collectgarbage('count') end\n"
    "    error(\"collectgarbage: only 'count' for a remote console client\", 2)\n"
    "  end\n"
    "  return setmetatable(env, {__metatable = false, __index = function(_, k)\n"
    "    local v = shared[k]\n"
    "    if v ~= nil then return v end\n"
    "    if hidden[k] then return nil end\n"
    "    v = rawget(G, k)\n"
    "    if v == nil or danger[v] then return nil end\n"
    "    return v\n"
    "  end})\n"
    "end\n"
    "return new_env, safe_string\n";

#define SANDBOX_KEY "cuttle.console.sandbox"         /* the new_env function */
#define SAFE_STRING_KEY "cuttle.console.safe_string" /* string without dump */
#define ENVS_KEY "cuttle.console.envs"               /* client id -> its environment */

/* Pushes client c's sandbox environment (made on first use). Returns 0, or 1 with an error
 * message pushed. */
static int push_client_env(lua_State *L, const console_client_t *c)
{
    lua_getfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        if (luaL_loadbufferx(L, sandbox_builder, sizeof sandbox_builder - 1, "=(console sandbox)",
                             "t") ||
            lua_pcall(L, 0, 2, 0))
            return 1;
        lua_setfield(L, LUA_REGISTRYINDEX, SAFE_STRING_KEY);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY);
        lua_newtable(L);
        lua_setfield(L, LUA_REGISTRYINDEX, ENVS_KEY);
    }
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, ENVS_KEY);
    lua_rawgeti(L, -1, (int)c->id);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_getfield(L, LUA_REGISTRYINDEX, SANDBOX_KEY);
        if (lua_pcall(L, 0, 1, 0)) {
            lua_remove(L, -2);
            return 1;
        }
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, (int)c->id);
    }
    lua_remove(L, -2);
    return 0;
}

void console__script_client_closed(const console_client_t *c)
{
    lua_State *L = lua_env__state();
    if (!L)
        return;
    lua_getfield(L, LUA_REGISTRYINDEX, ENVS_KEY);
    if (lua_istable(L, -1)) {
        lua_pushnil(L);
        lua_rawseti(L, -2, (int)c->id);
    }
    lua_pop(L, 1);
}

/* While a remote script runs, ("").dump must not reach the real string.dump: the strings'
 * metatable reads the sandbox's string table instead. Pushes the previous __index (restore
 * with restore_string_index). */
static void swap_string_index(lua_State *L)
{
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1)) {
        lua_pop(L, 1);
        lua_pushnil(L);
        return;
    }
    lua_remove(L, -2);                       /* mt */
    lua_getfield(L, -1, "__index");          /* mt old */
    lua_getfield(L, LUA_REGISTRYINDEX, SAFE_STRING_KEY);
    lua_setfield(L, -3, "__index");          /* mt old */
    lua_remove(L, -2);                       /* old */
}

static void restore_string_index(lua_State *L, int old)
{
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushvalue(L, old);
        lua_setfield(L, -2, "__index");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
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
    int old_index = 0; /* remote: where the strings' real __index waits */
    if (c->remote) {
        if (push_client_env(L, c)) { /* env, or the error */
            const char *msg = lua_tostring(L, -1);
            cJSON_AddBoolToObject(reply, "ok", false);
            cJSON_AddStringToObject(reply, "phase", "compile");
            cJSON_AddStringToObject(reply, "error", msg ? msg : "cannot build the sandbox");
            lua_pop(L, 1);
            return reply;
        }
        swap_string_index(L);
        old_index = lua_gettop(L);
    }
    int top = lua_gettop(L);
    char chunk[48];
    snprintf(chunk, sizeof chunk, "=console client %u", (unsigned)c->id);
    /* A remote client's source is text only: LuaJIT does not verify bytecode. */
    int rc = luaL_loadbufferx(L, code, len, chunk, c->remote ? "t" : NULL);
    bool loaded = rc == 0;
    if (loaded && c->remote) {
        lua_pushvalue(L, old_index - 1);
        lua_setfenv(L, -2);
    }
    if (loaded)
        rc = lua_env__pcall_keep_error(0, LUA_MULTRET, CONSOLE_SCRIPT_SECONDS);
    if (c->remote)
        restore_string_index(L, old_index);
    if (rc && !loaded && c->remote && len && code[0] == '\033') {
        lua_pop(L, 1);
        lua_pushliteral(L, "bytecode is refused from a remote console client (send Lua source)");
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
    lua_settop(L, c->remote ? old_index - 2 : top);
    return reply;
}
