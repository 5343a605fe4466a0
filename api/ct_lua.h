/*
 * ct_lua.h: the Lua environment (LuaJIT) that drives the frame. Kernel API "ct.lua".
 *
 * Version 0 is the seed's three functions. Version 1 is what a module needs to bind a real API:
 * whole modules of functions, tables, strings, booleans, light userdata and errors. Both are
 * served at once.
 *
 * Functions you register are called through a kernel-owned slot: if your plugin is unloaded the
 * Lua function raises "plugin X is not loaded" instead of jumping into freed code, and on a hot
 * reload your new code's registrations replace the old ones in place.
 *
 * Threads: main thread only. Errors: ct_lua_api_v1.error raises a Lua error (it does not return);
 * never raise one while you hold resources that only your C frame would release.
 */
#ifndef CT_LUA_H
#define CT_LUA_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_LUA_API 0x2c36d80eu /* "ct.lua" */

typedef struct ct_lua_api_v0 {
    /* Makes `f` callable from Lua as module.name(...). `module` is created as a global table if
     * needed. The strings are copied. */
    void (*add_module_function)(const char *module, const char *name, lua_CFunction f);
    /* Argument `idx` as a number (0 if it is not a number). */
    double (*to_number)(lua_State *L, int idx);
    /* Pushes a number. */
    void (*push_number)(lua_State *L, double number);
} ct_lua_api_v0;

/* One entry of a module registration; the array ends at the count, not at a NULL entry. */
typedef struct ct_lua_reg_t {
    const char *name;
    lua_CFunction fn;
} ct_lua_reg_t;

/* Lua value types, as lua_type() reports them. */
typedef enum ct_lua_type {
    CT_LUA_NONE = -1,
    CT_LUA_NIL = 0,
    CT_LUA_BOOLEAN = 1,
    CT_LUA_LIGHTUSERDATA = 2,
    CT_LUA_NUMBER = 3,
    CT_LUA_STRING = 4,
    CT_LUA_TABLE = 5,
    CT_LUA_FUNCTION = 6,
    CT_LUA_USERDATA = 7,
} ct_lua_type;

typedef struct ct_lua_api_v1 {
    /* Registers n functions as module.name; same rules as add_module_function. */
    void (*register_module)(const char *module, const ct_lua_reg_t *fns, uint32_t n);
    void (*add_module_function)(const char *module, const char *name, lua_CFunction f);

    /* Stack. Indices as in Lua: 1 is the first argument, -1 the top. */
    int (*get_top)(lua_State *L);
    void (*set_top)(lua_State *L, int idx);
    ct_lua_type (*type)(lua_State *L, int idx);

    /* Reading arguments. to_* return a default (0, NULL, false) when the value has another type;
     * check_* raise a Lua error naming the argument instead. Returned strings are owned by Lua and
     * valid while the value stays on the stack; `len` may be NULL, and then check_string also
     * refuses a string holding a NUL byte (C would see it cut short). */
    double (*to_number)(lua_State *L, int idx);
    bool (*to_boolean)(lua_State *L, int idx);
    const char *(*to_string)(lua_State *L, int idx, size_t *len);
    void *(*to_light_userdata)(lua_State *L, int idx);
    double (*check_number)(lua_State *L, int idx);
    const char *(*check_string)(lua_State *L, int idx, size_t *len);
    double (*opt_number)(lua_State *L, int idx, double fallback);

    /* Pushing results. */
    void (*push_nil)(lua_State *L);
    void (*push_number)(lua_State *L, double number);
    void (*push_boolean)(lua_State *L, bool b);
    void (*push_string)(lua_State *L, const char *s, size_t len);
    void (*push_light_userdata)(lua_State *L, void *p);

    /* Tables. new_table pushes a table with room for narr array and nrec hash entries.
     * get_field pushes t[key] for the table at idx and returns its type; set_field pops a value
     * and stores it in t[key]. get_index/set_index are the same for integer keys (raw access). */
    void (*new_table)(lua_State *L, int narr, int nrec);
    ct_lua_type (*get_field)(lua_State *L, int idx, const char *key);
    void (*set_field)(lua_State *L, int idx, const char *key);
    ct_lua_type (*get_index)(lua_State *L, int idx, int n);
    void (*set_index)(lua_State *L, int idx, int n);
    /* Length of the table or string at idx. */
    size_t (*length)(lua_State *L, int idx);

    /* Raises a Lua error with a formatted message (prefixed with the calling Lua file and line).
     * Does not return; write `return lua->error(L, ...)`. */
    int (*error)(lua_State *L, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

    /* Runs a chunk of Lua source in the global environment through the kernel's protected call.
     * `chunk_name` names it in error messages. Returns 0 or CT_ERR_LUA (the error, with a
     * traceback, is logged). */
    int (*run_string)(const char *code, const char *chunk_name);
    /* Calls the global function `name` (e.g. "on_collision") with `nargs` values the caller pushed
     * onto the main state, through the protected call; pops them. Returns 0, CT_ERR_NOT_FOUND if
     * there is no such function, or CT_ERR_LUA (logged). */
    int (*call_global)(const char *name, int nargs);
    /* The main Lua state (to push arguments for call_global). */
    lua_State *(*main_state)(void);
} ct_lua_api_v1;

#ifdef __cplusplus
}
#endif
#endif
