/*
 * ct_lua.h: the Lua environment (LuaJIT) that drives the frame. Kernel API "ct.lua".
 *
 * Version 0 is the seed's three functions. Version 1 is what a module needs to bind a real API:
 * whole modules of functions, tables, strings, booleans, light userdata and errors. Version 2 is
 * version 1 plus what modules used to work around: C functions with a context pointer (no globals
 * needed), userdata types with methods, metamethods and __gc, references to Lua values, protected
 * calls and table iteration. All three are served at once.
 *
 * Functions you register are called through a kernel-owned slot: if your plugin is unloaded the
 * Lua function raises "plugin X is not loaded" instead of jumping into freed code, and on a hot
 * reload your new code's registrations replace the old ones in place.
 *
 * Threads: main thread only. Errors: ct_lua_api_v1.error raises a Lua error (it does not return);
 * never raise one while you hold resources that only your C frame would release. In v2 each
 * function says whether it can raise ("Raises") or not. Functions that raise are safe to call from
 * a plugin's init, reload and frame hooks: the kernel runs those hooks inside a protected call,
 * so a Lua error there is caught and logged naming the plugin (a failing init fails the plugin)
 * instead of ending the process.
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
    const char *name; /* the function's name in the module ("forecast") */
    lua_CFunction fn; /* the C function behind it */
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

/* A C function called from Lua with the context pointer it was registered with. */
typedef int (*ct_lua_closure_f)(lua_State *L, void *ctx);

/* One entry of register_closures / register_type; the array ends at the count. */
typedef struct ct_lua_closure_reg_t {
    const char *name;    /* the function's (or method's) name */
    ct_lua_closure_f fn; /* called with the registration's context */
} ct_lua_closure_reg_t;

/* The pseudo-index of the global table, for get_field/set_field (v2 and the v1 functions). */
#define CT_LUA_GLOBALS (-10002)

/* What ref() answers for nil (push_ref pushes nil for it), and "no reference". */
#define CT_LUA_REFNIL (-1)
#define CT_LUA_NOREF (-2)

typedef struct ct_lua_api_v2 {
    /* ---- Everything of ct_lua_api_v1, in the same order and with the same meaning. Raise: the
     * check_* functions, error, and get_field/set_field (through metamethods); the others never
     * do, except on out of memory. ---- */
    void (*register_module)(const char *module, const ct_lua_reg_t *fns, uint32_t n);
    void (*add_module_function)(const char *module, const char *name, lua_CFunction f);
    int (*get_top)(lua_State *L);
    void (*set_top)(lua_State *L, int idx);
    ct_lua_type (*type)(lua_State *L, int idx);
    double (*to_number)(lua_State *L, int idx);
    bool (*to_boolean)(lua_State *L, int idx);
    const char *(*to_string)(lua_State *L, int idx, size_t *len);
    void *(*to_light_userdata)(lua_State *L, int idx);
    double (*check_number)(lua_State *L, int idx);
    const char *(*check_string)(lua_State *L, int idx, size_t *len);
    double (*opt_number)(lua_State *L, int idx, double fallback);
    void (*push_nil)(lua_State *L);
    void (*push_number)(lua_State *L, double number);
    void (*push_boolean)(lua_State *L, bool b);
    void (*push_string)(lua_State *L, const char *s, size_t len);
    void (*push_light_userdata)(lua_State *L, void *p);
    void (*new_table)(lua_State *L, int narr, int nrec);
    ct_lua_type (*get_field)(lua_State *L, int idx, const char *key);
    void (*set_field)(lua_State *L, int idx, const char *key);
    ct_lua_type (*get_index)(lua_State *L, int idx, int n);
    void (*set_index)(lua_State *L, int idx, int n);
    size_t (*length)(lua_State *L, int idx);
    int (*error)(lua_State *L, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    int (*run_string)(const char *code, const char *chunk_name);
    int (*call_global)(const char *name, int nargs);
    lua_State *(*main_state)(void);

    /* ---- New in version 2 ---- */

    /* Makes each fns[i].fn callable as module.name; Lua calls it with `ctx`. Same slots, owner
     * and reload rules as add_module_function. Never raises (problems are logged). */
    void (*register_closures)(const char *module, const ct_lua_closure_reg_t *fns, uint32_t n,
                              void *ctx);

    /*
     * Userdata types. register_type makes the metatable named `type_name` (or updates it: on a
     * hot reload the new code registers again). Entries whose name starts with "__" are
     * metamethods ("__gc", "__tostring", "__eq", "__len", "__call", ...); the others are methods,
     * found through __index (obj:method()). All get `ctx`. Owned by the registering plugin: once
     * it is unloaded, methods raise "plugin X is not loaded" and __gc does nothing. Never raises.
     */
    void (*register_type)(const char *type_name, const ct_lua_closure_reg_t *methods, uint32_t n,
                          void *ctx);
    /* Pushes a new userdata of `size` bytes (zeroed) with the metatable of `type_name` and returns
     * its memory, owned by Lua (it moves never; __gc runs before it is freed). Raises when the
     * type is not registered or memory runs out. */
    void *(*new_userdata)(lua_State *L, size_t size, const char *type_name);
    /* The memory of the userdata at idx if it has type `type_name`; otherwise raises, naming the
     * argument and the type expected (check) or returns NULL (to). */
    void *(*check_userdata)(lua_State *L, int idx, const char *type_name);
    void *(*to_userdata)(lua_State *L, int idx, const char *type_name);

    /* References keep a Lua value alive from C until unref: ref(L, idx) returns a reference to
     * the value at idx (CT_LUA_REFNIL for nil), push_ref pushes the value again, unref releases it.
     * Main state only. Never raise, except ref on out of memory. */
    int32_t (*ref)(lua_State *L, int idx);
    void (*push_ref)(lua_State *L, int32_t ref);
    void (*unref)(lua_State *L, int32_t ref);

    /* Calls the function below the `nargs` values on top of the stack with the kernel's protected
     * call: returns 0 with `nresults` results pushed (LUA_MULTRET: -1 for all), or CT_ERR_LUA after
     * logging the error with its traceback, with the function and arguments popped. Never raises. */
    int (*pcall)(lua_State *L, int nargs, int nresults);

    /* Table iteration, as lua_next: pops a key (push nil to start) and pushes the next key and
     * its value, returning 1, or returns 0 (pushing nothing) at the end. Raises when the key is not
     * in the table (the table was changed during the walk):
     *     lua->push_nil(L);
     *     while (lua->next(L, t)) { ...key at -2, value at -1...; lua->set_top(L, -2); } */
    int (*next)(lua_State *L, int idx);
    /* Pushes a copy of the value at idx. Never raises. */
    void (*push_value)(lua_State *L, int idx);
} ct_lua_api_v2;

#ifdef __cplusplus
}
#endif
#endif
