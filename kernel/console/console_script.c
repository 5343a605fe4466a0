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
 * disconnects); the engine's modules (World, Entity, Transform, Physics, ...) stay reachable,
 * but read-only: every table reached from the real globals or loaded modules is a proxy that
 * refuses assignment, so a client cannot replace World.create or Network.__handlers for the
 * game and the other clients (and nothing it does outlives its connection). getmetatable sees
 * only the client's own tables, and the standard tables it gets are its own copies.
 * A remote script is also bounded where the watchdog cannot reach: a Lua pattern whose worst case
 * (repetitions against the subject's length) passes about 10^10 steps is refused before it runs
 * in C, and the Lua heap may grow by CONSOLE_REMOTE_MEMORY during a run and keep at most
 * CONSOLE_REMOTE_KEEP in the client's globals across runs (past it they are dropped). Replies of
 * any client hold at most JSON_MAX_NODES values and JSON_MAX_BYTES of text in all (a table that
 * holds itself made millions), and every string goes out whole (NUL bytes included) as valid
 * UTF-8 JSON: bytes that are not UTF-8 become U+FFFD. */
#include "console/console_internal.h"

#include <cJSON.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/lua_env.h"

#define CONSOLE_SCRIPT_SECONDS 5
#define JSON_MAX_DEPTH 4
#define JSON_MAX_ITEMS 256
#define JSON_MAX_NODES 20000
#define JSON_MAX_BYTES (1u << 20)
#define CONSOLE_REMOTE_MEMORY ((size_t)64 << 20)
#define CONSOLE_REMOTE_KEEP ((size_t)64 << 20)

/* Run once (in the full environment) to build the sandbox; returns a function making a fresh
 * client environment, and the string library without dump. */
static const char sandbox_builder[] =
    "local G, rawget, pairs, type, tostring, error, setmetatable, load, collectgarbage ="
    "  _G, rawget, pairs, type, tostring, error, setmetatable, load, collectgarbage\n"
    "local getmetatable, select, log10, max = getmetatable, select, math.log10, math.max\n"
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
    /* Patterns run in C, out of the watchdog's reach: refuse the ones whose backtracking could
     * run for good (each repetition can multiply the work by the subject's length). */
    "local function costly(s, p)\n"
    "  if type(s) ~= 'string' or type(p) ~= 'string' then return false end\n"
    "  local reps, i, n = 0, 1, #p\n"
    "  while i <= n do\n"
    "    local c = p:sub(i, i)\n"
    "    if c == '%' then i = i + 1\n"
    "    elseif c == '[' then\n"
    "      i = i + 1; if p:sub(i, i) == '^' then i = i + 1 end\n"
    "      if p:sub(i, i) == ']' then i = i + 1 end\n"
    "      while i <= n and p:sub(i, i) ~= ']' do if p:sub(i, i) == '%' then i = i + 1 end; i = i "
    "+ 1 end\n"
    "    elseif c == '*' or c == '+' or c == '-' then reps = reps + 1 end\n"
    "    i = i + 1\n"
    "  end\n"
    "  return reps > 1 and reps * log10(max(#s, 2)) > 10\n"
    "end\n"
    "local function guard(name, f)\n"
    "  return function(s, p, ...)\n"
    "    if name == 'find' and select(2, ...) then return f(s, p, ...) end\n"
    "    if costly(s, p) then\n"
    "      error('string.' .. name .. ': the pattern is too costly for a remote console client '\n"
    "            .. '(its repetitions against a subject this long could run for good)', 2)\n"
    "    end\n"
    "    return f(s, p, ...)\n"
    "  end\n"
    "end\n"
    "local function safe_string_table()\n"
    "  local t = copy(string, {dump = true})\n"
    "  for _, name in ipairs{'find', 'match', 'gmatch', 'gsub'} do t[name] = guard(name, t[name]) "
    "end\n"
    "  return t\n"
    "end\n"
    "local safe_string = safe_string_table()\n"
    "local hidden = {ffi = true, debug = true, io = true, jit = true, package = true,\n"
    "                require = true, module = true, dofile = true, loadfile = true,\n"
    "                getfenv = true, setfenv = true, load = true, loadstring = true,\n"
    "                collectgarbage = true, _G = true}\n"
    "local function new_env()\n"
    "  local env = {}\n"
    "  env._G = env\n"
    /* The client's own copies of the standard tables: what it changes there stays its own. */
    "  local shared = {string = safe_string_table(), table = copy(table), math = copy(math),\n"
    "                  coroutine = copy(coroutine), bit = bit and copy(bit),\n"
    "                  os = {clock = clock, time = time, difftime = difftime}}\n"
    /* Read-only views of the engine's tables, one per table and client. */
    "  local views = setmetatable({}, {__mode = 'k'})\n"
    "  local view\n"
    "  local function wrap(v) if type(v) == 'table' then return view(v) end return v end\n"
    "  view = function(t)\n"
    "    local v = views[t]\n"
    "    if v then return v end\n"
    "    v = setmetatable({}, {__metatable = false,\n"
    "      __index = function(_, k) local x = t[k]; if danger[x] then return nil end; return "
    "wrap(x) end,\n"
    "      __newindex = function(_, k) error(\"the engine's tables are read-only for a remote \" "
    "..\n"
    "                                        \"console client (setting '\" .. tostring(k) .. "
    "\"')\", 2) end})\n"
    "    views[t] = v\n"
    "    return v\n"
    "  end\n"
    "  local function module_of(n)\n"
    "    n = tostring(n)\n"
    "    if shared[n] ~= nil then return shared[n] end\n"
    "    if blocked_module[n] or n:find('^jit%.') then return nil end\n"
    "    local v = rawget(loaded, n)\n"
    "    if v == nil or danger[v] then return nil end\n"
    "    return wrap(v)\n"
    "  end\n"
    "  env.getmetatable = function(v)\n"
    "    if type(v) == 'table' then return getmetatable(v) end\n"
    "    return nil\n"
    "  end\n"
    "  env.load = function(chunk, name, mode, e) return load(chunk, name, 't', e or env) end\n"
    "  env.loadstring = function(s, name) return load(s, name, 't', env) end\n"
    "  env.require = function(n)\n"
    "    local v = module_of(n)\n"
    "    if v == nil then error(\"module '\" .. tostring(n) .. \"' is not available to a \" ..\n"
    "                           'remote console client', 2) end\n"
    "    return v\n"
    "  end\n"
    "  env.package = {loaded = setmetatable({}, {__index = function(_, n) return module_of(n) "
    "end,\n"
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
    "    return wrap(v)\n"
    "  end})\n"
    "end\n"
    "return new_env, safe_string\n";

/* What each remote client keeps in its globals, by id (its environment goes past
 * CONSOLE_REMOTE_KEEP). */
static struct {
    uint32_t id;
    size_t kept;
} g_kept[CONSOLE_MAX_CLIENTS];

static size_t *kept_of(uint32_t id)
{
    for (uint32_t i = 0; i < CONSOLE_MAX_CLIENTS; i++)
        if (g_kept[i].id == id)
            return &g_kept[i].kept;
    for (uint32_t i = 0; i < CONSOLE_MAX_CLIENTS; i++)
        if (!g_kept[i].id) {
            g_kept[i].id = id;
            g_kept[i].kept = 0;
            return &g_kept[i].kept;
        }
    return NULL;
}

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
    for (uint32_t i = 0; i < CONSOLE_MAX_CLIENTS; i++)
        if (g_kept[i].id == c->id)
            g_kept[i].id = 0;
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
    lua_remove(L, -2);              /* mt */
    lua_getfield(L, -1, "__index"); /* mt old */
    lua_getfield(L, LUA_REGISTRYINDEX, SAFE_STRING_KEY);
    lua_setfield(L, -3, "__index"); /* mt old */
    lua_remove(L, -2);              /* old */
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

/* What a reply may still hold: a table that holds itself (or any big one) must not build
 * millions of JSON values before anything is sent. */
typedef struct json_budget_t {
    uint32_t nodes;
    size_t bytes;
} json_budget_t;

/* The length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), or 0: overlong forms,
 * surrogates, code points past U+10FFFF and sequences cut short are not. */
static size_t utf8_at(const uint8_t *s, size_t i, size_t len)
{
    const uint8_t c = s[i];
    if (c < 0x80)
        return 1;
    const size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
    if (!n || i + n > len)
        return 0;
    for (size_t k = 1; k < n; k++)
        if ((s[i + k] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] >= 0xa0) ||
        (c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] >= 0x90))
        return 0;
    return n;
}

/* A JSON string of len bytes exactly (NUL bytes as \u0000), as valid UTF-8: every byte that does
 * not start a well-formed sequence becomes U+FFFD. Built raw, since cJSON's strings end at the
 * first NUL. */
cJSON *console__json_text(const char *text, size_t len)
{
    const uint8_t *s = (const uint8_t *)text;
    char *out = malloc(len * 6 + 3);
    if (!out)
        return cJSON_CreateNull();
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len;) {
        const size_t n = utf8_at(s, i, len);
        if (n == 1 && (s[i] == '"' || s[i] == '\\')) {
            out[o++] = '\\';
            out[o++] = (char)s[i];
        } else if (n == 1 && s[i] < 0x20) {
            o += (size_t)sprintf(out + o, "\\u%04x", s[i]);
        } else if (n) {
            memcpy(out + o, s + i, n);
            o += n;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3); /* U+FFFD */
            o += 3;
        }
        i += n ? n : 1;
    }
    out[o++] = '"';
    out[o] = '\0';
    cJSON *item = cJSON_CreateRaw(out);
    free(out);
    return item;
}

/* An object key as valid UTF-8 in size bytes (cJSON escapes what needs it): bad bytes and NUL
 * become U+FFFD; a character that does not fit is left out whole. */
static void utf8_key(const char *text, size_t len, char *out, size_t size)
{
    const uint8_t *s = (const uint8_t *)text;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        const size_t n = utf8_at(s, i, len);
        const bool bad = !n || !s[i];
        if (o + (bad ? 3 : n) + 1 > size)
            break;
        memcpy(out + o, bad ? "\xef\xbf\xbd" : text + i, bad ? 3 : n);
        o += bad ? 3 : n;
        i += n ? n : 1;
    }
    out[o] = '\0';
}

static cJSON *to_json(lua_State *L, int index, int depth, json_budget_t *b);

static cJSON *table_to_json(lua_State *L, int index, int depth, json_budget_t *b)
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
        if (++added > JSON_MAX_ITEMS || !b->nodes) {
            lua_pop(L, 2);
            cJSON_AddItemToObject(out, "...", cJSON_CreateString("(more items)"));
            break;
        }
        cJSON *value = to_json(L, lua_gettop(L), depth + 1, b);
        if (array) {
            cJSON_AddItemToArray(out, value);
        } else {
            char key[64];
            if (lua_type(L, -2) == LUA_TSTRING) {
                size_t len;
                const char *k = lua_tolstring(L, -2, &len);
                utf8_key(k, len, key, sizeof key);
            } else if (lua_type(L, -2) == LUA_TNUMBER) {
                snprintf(key, sizeof key, "%.17g", lua_tonumber(L, -2));
            } else {
                snprintf(key, sizeof key, "(%s)", luaL_typename(L, -2));
            }
            cJSON_AddItemToObject(out, key, value);
        }
        lua_pop(L, 1);
    }
    return out;
}

/* Lua value -> JSON: numbers, strings, booleans and nil as themselves (NaN and infinities as
 * strings), tables to JSON_MAX_DEPTH levels, anything else as its tostring text; within the
 * reply's budget (past it, "(reply budget spent)"). */
static cJSON *to_json(lua_State *L, int index, int depth, json_budget_t *b)
{
    if (!b->nodes)
        return cJSON_CreateString("(reply budget spent)");
    b->nodes--;
    switch (lua_type(L, index)) {
    case LUA_TNIL: return cJSON_CreateNull();
    case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(L, index));
    case LUA_TNUMBER: {
        double v = lua_tonumber(L, index);
        if (isfinite(v))
            return cJSON_CreateNumber(v);
        return cJSON_CreateString(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    }
    case LUA_TSTRING: {
        size_t len;
        const char *text = lua_tolstring(L, index, &len);
        if (len > b->bytes) {
            b->nodes = 0; /* the text budget is spent: nothing more goes in */
            return cJSON_CreateString("(reply budget spent: a string too long)");
        }
        b->bytes -= len;
        return console__json_text(text, len);
    }
    case LUA_TTABLE:
        if (depth < JSON_MAX_DEPTH)
            return table_to_json(L, index, depth, b);
        break; /* too deep: described in words below */
    default: break;
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
    /* A remote run may grow the Lua heap by CONSOLE_REMOTE_MEMORY at most. */
    const size_t before = lua_env__memory_used();
    if (loaded && c->remote && before)
        lua_env__set_memory_limit(before + CONSOLE_REMOTE_MEMORY);
    if (loaded)
        rc = lua_env__pcall_keep_error(0, LUA_MULTRET, CONSOLE_SCRIPT_SECONDS);
    lua_env__set_memory_limit(0);
    if (c->remote)
        restore_string_index(L, old_index);
    if (rc && !loaded && c->remote && len && code[0] == '\033') {
        lua_pop(L, 1);
        lua_pushliteral(L, "bytecode is refused from a remote console client (send Lua source)");
    }
    json_budget_t budget = {JSON_MAX_NODES, JSON_MAX_BYTES};
    if (rc) {
        size_t len = 0;
        const char *msg = lua_tolstring(L, -1, &len);
        cJSON_AddBoolToObject(reply, "ok", false);
        /* A client may try a line as an expression first and then as a statement. */
        cJSON_AddStringToObject(reply, "phase", loaded ? "run" : "compile");
        cJSON_AddItemToObject(
            reply, "error",
            msg ? console__json_text(msg, len < JSON_MAX_BYTES ? len : JSON_MAX_BYTES)
                : cJSON_CreateString("(error object is not a string)"));
    } else {
        cJSON_AddBoolToObject(reply, "ok", true);
        cJSON *results = cJSON_AddArrayToObject(reply, "results");
        for (int i = top + 1; i <= lua_gettop(L); i++)
            cJSON_AddItemToArray(results, to_json(L, i, 0, &budget));
    }
    lua_settop(L, c->remote ? old_index - 2 : top);
    /* What the client keeps in its globals is counted across its runs; past the bound its
     * environment is dropped (as when it disconnects). */
    size_t *kept = c->remote && before ? kept_of(c->id) : NULL;
    if (kept) {
        lua_gc(L, LUA_GCCOLLECT, 0);
        const size_t after = lua_env__memory_used();
        *kept = after > before           ? *kept + (after - before)
                : *kept > before - after ? *kept - (before - after)
                                         : 0;
        if (*kept > CONSOLE_REMOTE_KEEP) {
            console__script_client_closed(c);
            lua_gc(L, LUA_GCCOLLECT, 0);
            cJSON_AddStringToObject(reply, "note",
                                    "this client's globals were dropped: they held "
                                    "more memory than a remote client may keep");
        }
    }
    return reply;
}
