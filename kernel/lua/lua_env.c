/* The Lua state, its allocator and the one protected-call path every entry into Lua takes. */
#include "lua/lua_env.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "base/crash.h"
#include "base/log.h"
#include "base/memory.h"
#include "lua/lua_internal.h"
#include "plugins/registry.h"

static struct {
    lua_State *L;
    ct_allocator_t *allocator;
    const char *phase;         /* what the kernel is calling, for the panic message */
    ct_plugin_o *phase_plugin; /* whose code that is, when the registry does not know */
    bool sandboxed;
    size_t live;  /* bytes Lua holds through lua_env_alloc */
    size_t limit; /* growth past it is refused (0: none); see lua_env__set_memory_limit */
} env;

/* Lua's allocator signature over ours. Lua 5.1 leaves `osize` unspecified for a NULL block, while
 * our allocators check old sizes, so it is forced to 0 there. Growth is refused when the C stack
 * is nearly used up (see lua_stack.c): LuaJIT then raises "not enough memory", which unwinds. */
static void *lua_env_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    ct_allocator_t *a = ud;
    if (!ptr && !nsize)
        return NULL;
    if (nsize > osize && lua_env__stack_left() < LUA_STACK_RESERVE / 2) {
        log__write(NULL, CT_LOG_ERROR,
                   "lua: C stack nearly exhausted (Lua nested through C too "
                   "deeply, e.g. coroutines resuming coroutines): allocation "
                   "refused");
        return NULL;
    }
    if (env.limit && nsize > osize && env.live + (nsize - (ptr ? osize : 0)) > env.limit)
        return NULL; /* LuaJIT raises "not enough memory", which unwinds the script */
    void *p = a->realloc(a, ptr, ptr ? osize : 0, nsize, __FILE__, __LINE__);
    if (p || !nsize)
        env.live = env.live - (ptr ? osize : 0) + nsize;
    return p;
}

size_t lua_env__memory_used(void) { return env.live; }

void lua_env__set_memory_limit(size_t bytes) { env.limit = bytes; }

/* LuaJIT calls this for an error raised outside any protected call, then exits: that happens only
 * when C code (a plugin's init, hook or callback) raises through the Lua API while Lua did not
 * call it. Name who did it, since the process is about to end. */
static int lua_env_panic(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    ct_plugin_o *p = env.phase_plugin ? env.phase_plugin : registry__current_plugin();
    log__write(NULL, CT_LOG_ERROR,
               "lua: %s%s%s raised a Lua error outside a protected call (during %s): %s; only C "
               "functions that Lua calls may raise (ct_lua_api error, check_*), so the engine "
               "stops",
               p ? "plugin '" : "the kernel", p ? registry__plugin_name(p) : "", p ? "'" : "",
               env.phase ? env.phase : "a call from C",
               msg ? msg : "(error object is not a string)");
    return 0;
}

int lua_env__init(void)
{
    if (env.L)
        return 0;
    env.allocator = memory__create(memory__root(), "lua");
    if (!env.allocator)
        return CT_ERR_NOMEM;
    env.L = lua_newstate(lua_env_alloc, env.allocator);
    /* LuaJIT without GC64 on x86-64 refuses custom allocators (it needs memory in the low 2 GB);
     * its own allocator is the only option there, untracked but correct. */
    if (!env.L)
        env.L = luaL_newstate();
    if (!env.L) {
        memory__destroy(env.allocator);
        env.allocator = NULL;
        return CT_ERR_NOMEM;
    }
    lua_env__stack_init();
    lua_atpanic(env.L, lua_env_panic);
    luaL_openlibs(env.L);
    lua_env__count_coroutines(env.L);
    lua_watchdog__start(env.L);
    return 0;
}

/* An error that repeats word for word (update() failing the same way every frame) is logged
 * once; its repeats are counted and reported with their number when another error comes, at
 * 100, 1000, 10000... repeats, and at shutdown, instead of one log entry per frame. */
static struct {
    uint64_t hash, repeats;
    char first_line[160];
} repeated;

static void report_repeats(void)
{
    if (repeated.repeats)
        log__write(NULL, CT_LOG_ERROR, "lua: the error \"%s\" repeated %llu more times",
                   repeated.first_line, (unsigned long long)repeated.repeats);
    repeated.repeats = 0;
}

void lua_env__shutdown(void)
{
    if (!env.L)
        return;
    lua_watchdog__stop();
    report_repeats();
    repeated.hash = 0, repeated.first_line[0] = '\0';
    lua_close(env.L);
    env.L = NULL;
    env.sandboxed = false;
    lua_env__slots_shutdown();
    memory__destroy(env.allocator);
    env.allocator = NULL;
}

lua_State *lua_env__state(void) { return env.L; }

ct_allocator_t *lua_env__allocator(void) { return env.allocator; }

/* The message handler: turns any error value into text and appends the stack it was raised in,
 * while that stack still exists. */
static int l_lua_traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg && luaL_getmetafield(L, 1, "__tostring")) {
        /* Protected: an error in __tostring would otherwise become "error in error handling"
         * and lose both messages. */
        lua_pushvalue(L, 1);
        if (lua_pcall(L, 1, 1, 0) == 0 && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else if (lua_type(L, -1) == LUA_TSTRING)
            msg = lua_pushfstring(L, "(error object is a %s value whose __tostring failed: %s)",
                                  luaL_typename(L, 1), lua_tostring(L, -1));
        else
            msg = lua_pushfstring(L,
                                  "(error object is a %s value whose __tostring returned "
                                  "no string)",
                                  luaL_typename(L, 1));
    }
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Logs the error on top of the stack (from a failed load or call) and pops it. */
static void lua_env_log_error(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    if (!msg)
        msg = "(error object is not a string)";
    uint64_t h = 14695981039346656037ull;
    for (const char *c = msg; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    if (h == repeated.hash && repeated.first_line[0]) {
        const uint64_t n = ++repeated.repeats;
        uint64_t power = 100;
        while (power < n && power <= UINT64_MAX / 10)
            power *= 10;
        if (n == power)
            log__write(NULL, CT_LOG_ERROR, "lua: the error \"%s\" repeated %llu times so far",
                       repeated.first_line, (unsigned long long)n);
        lua_pop(L, 1);
        return;
    }
    report_repeats();
    log__write(NULL, CT_LOG_ERROR, "lua: %s", msg);
    repeated.hash = h;
    snprintf(repeated.first_line, sizeof repeated.first_line, "%.*s", (int)strcspn(msg, "\n"), msg);
    lua_pop(L, 1);
}

/* The protected call itself: on error the message (with its traceback) replaces the function
 * on the stack. `call` names it for the watchdog ("update": NULL finds the function itself);
 * `limit` is its own budget in seconds, or negative for script_timeout's. */
static int pcall_keep(lua_State *L, int nargs, int nresults, const char *call, double limit)
{
    if (lua_env__stack_left() < LUA_STACK_RESERVE) {
        lua_pop(L, nargs + 1);
        lua_pushstring(L, "C stack overflow: Lua and C called each other too deeply; the call is "
                          "refused");
        return CT_ERR_LUA;
    }
    int handler = lua_gettop(L) - nargs;
    lua_pushcfunction(L, l_lua_traceback);
    lua_insert(L, handler);
    lua_watchdog__enter(call, NULL, limit);
    const crash_call_t outer = crash__enter(call ? call : "a Lua call", NULL);
    int rc = lua_pcall(L, nargs, nresults, handler);
    crash__leave(outer);
    lua_watchdog__leave();
    lua_remove(L, handler);
    return rc != 0 ? CT_ERR_LUA : 0;
}

int lua_env__pcall_keep_error(int nargs, int nresults, double limit)
{
    return pcall_keep(env.L, nargs, nresults, NULL, limit);
}

/* pcall_keep, with the error logged and the stack as before the function was pushed. */
static int pcall_logged(lua_State *L, int nargs, int nresults, const char *call)
{
    int base = lua_gettop(L) - nargs - 1;
    if (pcall_keep(L, nargs, nresults, call, -1)) {
        lua_env_log_error(L);
        lua_settop(L, base);
        return CT_ERR_LUA;
    }
    return 0;
}

int lua_env__pcall(int nargs, int nresults) { return pcall_logged(env.L, nargs, nresults, NULL); }

int lua_env__pcall_on(lua_State *L, int nargs, int nresults)
{
    return pcall_logged(L, nargs, nresults, NULL);
}

int lua_env__run_file(const char *path)
{
    int rc = luaL_loadfilex(env.L, path, env.sandboxed ? "t" : NULL);
    if (rc != 0) {
        /* Lua's message names the path ("cannot open x.lua", "x.lua:3: ..."), except for a
         * binary chunk refused in the sandbox. */
        const char *msg = lua_tostring(env.L, -1);
        if (msg && !strstr(msg, path)) {
            lua_pushfstring(env.L, "%s: %s", path, msg);
            lua_remove(env.L, -2);
        }
        lua_env_log_error(env.L);
        return rc == LUA_ERRFILE ? CT_ERR_IO : CT_ERR_LUA;
    }
    return lua_env__pcall(0, 0);
}

int lua_env__run_string(const char *code, const char *chunk_name)
{
    lua_State *L = env.L;
    /* "=" makes Lua print the name as given ("boot:3:") rather than as [string "..."]; a name
     * already in Lua's form ("=name", "@path") is kept. */
    if (!chunk_name)
        chunk_name = "?";
    bool lua_form = chunk_name[0] == '=' || chunk_name[0] == '@';
    const char *name = lua_pushfstring(L, "%s%s", lua_form ? "" : "=", chunk_name);
    int rc = luaL_loadbufferx(L, code, strlen(code), name, env.sandboxed ? "t" : NULL);
    lua_remove(L, -2); /* the name, below the chunk or the error */
    if (rc != 0) {
        lua_env_log_error(L);
        return CT_ERR_LUA;
    }
    return lua_env__pcall(0, 0);
}

int lua_env__call_global(const char *name, int nargs)
{
    lua_State *L = env.L;
    /* Raw, because this runs outside any protected call: a strict-globals __index that raises
     * on unknown names would otherwise abort the process. */
    lua_pushstring(L, name);
    lua_rawget(L, LUA_GLOBALSINDEX);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, nargs + 1);
        return CT_ERR_NOT_FOUND;
    }
    lua_insert(L, -(nargs + 1));
    return pcall_logged(L, nargs, 0, name);
}

void lua_env__set_phase(const char *phase) { lua_env__set_plugin_phase(phase, NULL); }

void lua_env__set_plugin_phase(const char *phase, ct_plugin_o *plugin)
{
    env.phase = phase;
    env.phase_plugin = plugin;
}

/* Run once over the standard libraries: what a sandboxed script keeps. Anything that reaches
 * memory, files, processes or native code goes (ffi, debug, io, os, package's C and file
 * searchers, loadlib, dofile, loadfile), and load/loadstring accept text only, never bytecode
 * (LuaJIT does not verify bytecode, so loading it is as unsafe as ffi). os keeps its clocks. */
static const char sandbox_code[] =
    "local load, clock, time, difftime = load, os.clock, os.time, os.difftime\n"
    "for _, name in ipairs{'ffi', 'debug', 'io', 'os', 'jit.util', 'jit.profile'} do\n"
    "  package.loaded[name] = nil\n"
    "  package.preload[name] = nil\n"
    "end\n"
    "ffi, debug, io, dofile, loadfile = nil\n"
    "os = {clock = clock, time = time, difftime = difftime}\n"
    "package.loaded.os = os\n"
    "string.dump = nil\n"
    "package.loadlib, package.path, package.cpath = nil\n"
    "package.loaders = {package.loaders[1]}\n"
    "_G.load = function(chunk, name, mode, env) return load(chunk, name, 't', env) end\n"
    "_G.loadstring = function(s, name) return load(s, name, 't') end\n";

int lua_env__sandbox(void)
{
    if (env.sandboxed)
        return 0;
    int r = lua_env__run_string(sandbox_code, "=(sandbox)");
    if (!r)
        env.sandboxed = true;
    return r;
}

const char *lua_env__check_c_string(lua_State *L, int idx)
{
    size_t len;
    const char *s = luaL_checklstring(L, idx, &len);
    size_t nul = strlen(s);
    if (nul != len)
        luaL_argerror(L, idx,
                      lua_pushfstring(L, "string holds a NUL byte at position %d", (int)nul + 1));
    return s;
}

typedef struct lua_env_protected_t {
    int (*fn)(void *arg);
    void *arg;
    int result;
} lua_env_protected_t;

static int l_lua_env_protected(lua_State *L)
{
    lua_env_protected_t *p = lua_touserdata(L, 1);
    p->result = p->fn(p->arg);
    return 0;
}

int lua_env__protect(int (*fn)(void *arg), void *arg, const char *what, const char *plugin)
{
    if (!env.L) {
        const crash_call_t outer = crash__enter(what, plugin);
        int result = fn(arg);
        crash__leave(outer);
        return result;
    }
    lua_env_protected_t p = {fn, arg, 0};
    lua_watchdog__enter(what, plugin, -1);
    const crash_call_t outer = crash__enter(what, plugin);
    int rc = lua_cpcall(env.L, l_lua_env_protected, &p);
    crash__leave(outer);
    lua_watchdog__leave();
    if (rc == 0)
        return p.result;
    const char *msg = lua_tostring(env.L, -1);
    log__write(NULL, CT_LOG_ERROR, "lua: a Lua error in %s of plugin '%s': %s", what, plugin,
               msg ? msg : "(error object is not a string)");
    lua_pop(env.L, 1);
    return CT_ERR_LUA;
}
