/*
 * Fuzz target: Lua-facing argument checking. The kernel boots with every engine module; each
 * input is read as a list of calls, each a registered Lua function (any C function in a global
 * module table: World, Entity, Transform, Physics, Actor, Resource, Memory, ...) and up to six
 * arguments of any type: nil, booleans, numbers (raw bytes as a double, NaN, infinities, huge,
 * tiny, negative zero), strings (raw bytes with NULs, plausible names), tables, functions, and
 * values earlier calls returned (worlds, entities, including destroyed ones). A call may raise a
 * Lua error; it must never crash, hang or corrupt memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "base/memory.h"
#include "fuzz_stream.h"
#include "lua/lua_env.h"
#include "test_kernel.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#define MAX_FUNCTIONS 256
#define MAX_CALLS 24 /* per input */
#define POOL_SIZE 8  /* values returned by earlier calls, reused as arguments */

static lua_State *L;
static int functions_ref; /* registry: array of the functions, in a fixed order */
static int num_functions;
static int pool_ref;             /* registry: array of returned values */
static uint64_t calls, returned; /* over the whole run, checked at exit: the fuzz must run */

static const double special_numbers[] = {
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    3.0,
    1e308,
    -1e308,
    1e-310,
    4294967295.0,
    4294967296.0,
    2147483648.0,
    9007199254740993.0,
    -2147483649.0,
    1e9,
    65536.0,
};
static const char *const names[] = {
    "",     "levels/arena",  "units/crate", "transform", "on_collision", "level",      "unit",
    "body", "../etc/passwd", "/abs",        "a//b",      "x\xff\xfe",    "ct.physics", "World",
};

static void shutdown_kernel(void)
{
    printf("fuzz_lua_args: %d functions, %llu calls, %llu returned without error\n", num_functions,
           (unsigned long long)calls, (unsigned long long)returned);
    if (calls < 1000 || returned < 100 || test_kernel_shutdown() != 0 ||
        memory__corruption_count() != 0)
        _exit(1);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Collects module.name for every C function in a global table that is not a standard library
 * (those are LuaJIT's own), sorted so that an input means the same calls on every run. */
static void collect_functions(void)
{
    static char *found[MAX_FUNCTIONS];
    static const char *const skip[] = {"_G",        "string", "table",   "math", "io",  "os",
                                       "coroutine", "debug",  "package", "jit",  "bit", "ffi"};
    lua_pushnil(L);
    while (lua_next(L, LUA_GLOBALSINDEX)) {
        bool skipped = lua_type(L, -2) != LUA_TSTRING || !lua_istable(L, -1);
        for (size_t i = 0; !skipped && i < sizeof skip / sizeof skip[0]; i++)
            skipped = strcmp(lua_tostring(L, -2), skip[i]) == 0;
        if (!skipped) {
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                if (lua_iscfunction(L, -1) && lua_type(L, -2) == LUA_TSTRING &&
                    num_functions < MAX_FUNCTIONS) {
                    char *n = malloc(strlen(lua_tostring(L, -4)) + strlen(lua_tostring(L, -2)) + 2);
                    sprintf(n, "%s.%s", lua_tostring(L, -4), lua_tostring(L, -2));
                    found[num_functions++] = n;
                }
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    qsort(found, (size_t)num_functions, sizeof found[0], compare_names);
    lua_createtable(L, num_functions, 0);
    for (int i = 0; i < num_functions; i++) {
        char module[128];
        const char *dot = strchr(found[i], '.');
        snprintf(module, sizeof module, "%.*s", (int)(dot - found[i]), found[i]);
        lua_getglobal(L, module);
        lua_getfield(L, -1, dot + 1);
        lua_rawseti(L, -3, i + 1);
        lua_pop(L, 1);
        free(found[i]);
    }
    functions_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (num_functions < 10) {
        fprintf(stderr, "fuzz_lua_args: only %d functions registered\n", num_functions);
        abort();
    }
}

static void boot(void)
{
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("physics", "ct_physics")};
    if (test_kernel_boot(paths, 3) != 0)
        abort();
    L = lua_env__state();
    collect_functions();
    /* The pool starts with a live world and a destroyed one. */
    if (luaL_dostring(L, "local live, dead = World.create(), World.create() World.destroy(dead) "
                         "return {live, dead, 1, live}"))
        abort();
    pool_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    atexit(shutdown_kernel);
}

static void push_argument(fuzz_stream *r)
{
    uint8_t kind = fuzz_stream_next(r) % 14;
    switch (kind) {
    case 0: lua_pushnil(L); break;
    case 1: lua_pushboolean(L, fuzz_stream_next(r) & 1); break;
    case 2: lua_pushnumber(L, (int8_t)fuzz_stream_next(r)); break;
    case 3: {
        double d = 0;
        uint8_t bytes[sizeof d];
        for (size_t i = 0; i < sizeof d; i++)
            bytes[i] = fuzz_stream_next(r);
        memcpy(&d, bytes, sizeof d);
        lua_pushnumber(L, d);
        break;
    }
    case 4:
        lua_pushnumber(L,
                       special_numbers[fuzz_stream_next(r) % (sizeof special_numbers / sizeof(double))]);
        break;
    case 5: {
        uint8_t len = fuzz_stream_next(r) % 48;
        char s[48];
        for (uint8_t i = 0; i < len; i++)
            s[i] = (char)fuzz_stream_next(r);
        lua_pushlstring(L, s, len);
        break;
    }
    case 6: lua_pushstring(L, names[fuzz_stream_next(r) % (sizeof names / sizeof names[0])]); break;
    case 7: lua_newtable(L); break;
    case 8:
        if (luaL_dostring(L, "return {1, 2, 3, x = {}, [0] = 'a', n = 0/0}"))
            lua_pushnil(L);
        break;
    case 9:
        if (luaL_dostring(L, "return function(...) return ... end"))
            lua_pushnil(L);
        break;
    case 10:
        if (luaL_dostring(L, "return function() error('from a callback') end"))
            lua_pushnil(L);
        break;
    case 11: lua_pushnumber(L, 0.0 / 0.0); break;
    default:
        lua_rawgeti(L, LUA_REGISTRYINDEX, pool_ref);
        lua_rawgeti(L, -1, 1 + fuzz_stream_next(r) % POOL_SIZE);
        lua_remove(L, -2);
        break;
    }
}

/* Keeps the first result of a call in the pool, for later calls to use as an argument. */
static void keep_result(int results, uint8_t slot)
{
    if (results < 1)
        return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, pool_ref);
    lua_pushvalue(L, -1 - results);
    lua_rawseti(L, -2, 1 + slot % POOL_SIZE);
    lua_pop(L, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!L)
        boot();
    fuzz_stream r = fuzz_stream_of(data, size);
    for (int call = 0; call < MAX_CALLS; call++) {
        int top = lua_gettop(L);
        lua_rawgeti(L, LUA_REGISTRYINDEX, functions_ref);
        lua_rawgeti(L, -1, 1 + fuzz_stream_next(&r) % num_functions);
        lua_remove(L, -2);
        int argc = fuzz_stream_next(&r) % 7;
        for (int i = 0; i < argc; i++)
            push_argument(&r);
        calls++;
        if (lua_pcall(L, argc, LUA_MULTRET, 0) == 0) {
            returned++;
            keep_result(lua_gettop(L) - top, fuzz_stream_next(&r));
        }
        lua_settop(L, top);
    }
    return 0;
}
