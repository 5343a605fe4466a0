/* The Lua state, its allocator and the one protected-call path every entry into Lua takes. */
#include "lua/lua_env.h"

#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "base/log.h"
#include "base/memory.h"
#include "lua/lua_internal.h"

static struct {
    lua_State *L;
    ct_allocator_t *allocator;
} env;

/* Lua's allocator signature over ours. Lua 5.1 leaves `osize` unspecified for a NULL block, while
 * our allocators check old sizes, so it is forced to 0 there. */
static void *lua_env_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    ct_allocator_t *a = ud;
    if (!ptr && !nsize)
        return NULL;
    return a->realloc(a, ptr, ptr ? osize : 0, nsize, __FILE__, __LINE__);
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
    luaL_openlibs(env.L);
    return 0;
}

void lua_env__shutdown(void)
{
    if (!env.L)
        return;
    lua_close(env.L);
    env.L = NULL;
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
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Logs the error on top of the stack (from a failed load or call) and pops it. */
static void lua_env_log_error(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    log__write(NULL, CT_LOG_ERROR, "lua: %s", msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
}

int lua_env__pcall_keep_error(int nargs, int nresults)
{
    lua_State *L = env.L;
    int handler = lua_gettop(L) - nargs;
    lua_pushcfunction(L, l_lua_traceback);
    lua_insert(L, handler);
    int rc = lua_pcall(L, nargs, nresults, handler);
    lua_remove(L, handler);
    return rc != 0 ? CT_ERR_LUA : 0;
}

int lua_env__pcall(int nargs, int nresults)
{
    lua_State *L = env.L;
    int base = lua_gettop(L) - nargs - 1;
    if (lua_env__pcall_keep_error(nargs, nresults)) {
        lua_env_log_error(L);
        lua_settop(L, base);
        return CT_ERR_LUA;
    }
    return 0;
}

int lua_env__run_file(const char *path)
{
    int rc = luaL_loadfile(env.L, path);
    if (rc != 0) {
        /* Lua's message already names the path: "cannot open x.lua" or "x.lua:3: ...". */
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
    int rc = luaL_loadbuffer(L, code, strlen(code), name);
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
    return lua_env__pcall(nargs, 0);
}
