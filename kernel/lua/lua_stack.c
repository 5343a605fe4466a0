/* The C stack Lua runs on, and how much of it is left.
 *
 * LuaJIT's only guard against runaway recursion is the size of the Lua stack (LUAI_MAXSTACK,
 * 65500 slots). It has no count of C calls (PUC Lua's nCcalls and its "C stack overflow" error
 * were dropped), so a path that re-enters Lua from C while using few Lua slots per level overflows
 * the C stack long before the Lua stack is full: `string.gsub` with a function replacement holds
 * an 8 KB luaL_Buffer per level and uses about ten slots, so the slot limit allows some 6500
 * levels, about 60 MB of C stack, on a default 8 MB stack. Coroutines resuming coroutines each get
 * a fresh Lua stack and are never stopped by the slot limit at all.
 *
 * The kernel therefore (1) knows the bounds of the stack it runs Lua on (the stack of the thread
 * that called lua_env__init), (2) refuses to re-enter Lua, and to call a registered C function,
 * when less than LUA_STACK_RESERVE bytes are left, (3) refuses Lua's allocations when less than
 * half of that is left, (4) bounds the nesting of coroutines (each nested resume costs about
 * 80 bytes of C stack but a whole Lua state, so a stack-based bound would let them eat gigabytes
 * first), and (5) `cuttle` runs on a thread with a stack of LUA_STACK_KNOWN_SIZE bytes, big enough that
 * LuaJIT's own slot limit stops every library path of LuaJIT 2.1 (gsub, sort, format, print,
 * load, require, string.buffer, metamethods) first: the deepest, gsub, needs about 60 MB. */
/* pthread_getattr_np needs _GNU_SOURCE, which the build defines. */
#include <pthread.h>
#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua/lua_internal.h"

/* Coroutines resumed inside resumed coroutines, at most (PUC Lua bounds all C calls by 200). */
#define LUA_MAX_COROUTINE_NESTING 200

uintptr_t lua_env__stack_low;
static int coroutine_nesting; /* lowest usable address of the Lua thread's stack; 0: unknown */

void lua_env__stack_init(void)
{
    lua_env__stack_low = 0;
    coroutine_nesting = 0;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    void *addr;
    size_t size;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0)
        lua_env__stack_low = (uintptr_t)addr;
    pthread_attr_destroy(&attr);
}

/* coroutine.resume, and every function coroutine.wrap makes: upvalue 1 is LuaJIT's own, called
 * protected so the count is restored whatever happens, with its error passed on unchanged. */
static int l_lua_nested_resume(lua_State *L)
{
    if (coroutine_nesting >= LUA_MAX_COROUTINE_NESTING)
        return luaL_error(L,
                          "coroutines nested more than %d deep (a coroutine resumed inside a "
                          "resumed coroutine, and so on)",
                          LUA_MAX_COROUTINE_NESTING);
    int nargs = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    coroutine_nesting++;
    int rc = lua_pcall(L, nargs, LUA_MULTRET, 0);
    coroutine_nesting--;
    return rc ? lua_error(L) : lua_gettop(L);
}

/* coroutine.wrap(f): LuaJIT's wrapper, behind the nesting count. Upvalue 1: LuaJIT's wrap. */
static int l_lua_counted_wrap(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    lua_pushcclosure(L, l_lua_nested_resume, 1);
    return 1;
}

void lua_env__count_coroutines(lua_State *L)
{
    lua_getglobal(L, "coroutine");
    lua_getfield(L, -1, "resume");
    lua_pushcclosure(L, l_lua_nested_resume, 1);
    lua_setfield(L, -2, "resume");
    lua_getfield(L, -1, "wrap");
    lua_pushcclosure(L, l_lua_counted_wrap, 1);
    lua_setfield(L, -2, "wrap");
    lua_pop(L, 1);
}
