/* The kernel's Lua environment (LuaJIT): one state on the main thread; behind ct_lua_api_v0/v1.
 *
 * Everything here runs on the main thread only. The state's memory comes from a child allocator
 * "lua" of the root (memory__init must have run), so leaks and usage show up per owner. */
#ifndef CT_KERNEL_LUA_ENV_H
#define CT_KERNEL_LUA_ENV_H

#include "ct_lua.h"

/* Opens the state with the standard libraries. Returns 0 or CT_ERR_NOMEM. Calling it again after
 * lua_env__shutdown starts afresh. */
int lua_env__init(void);
/* Closes the state and forgets every registered function. Safe to call when not initialised. */
void lua_env__shutdown(void);
lua_State *lua_env__state(void);
/* Bytes the Lua state holds (0 when LuaJIT had to use its own allocator). */
size_t lua_env__memory_used(void);
/* While set (non-zero), an allocation that would take the state past `bytes` fails, and Lua
 * raises "not enough memory": the console bounds what a remote client's script may take. */
void lua_env__set_memory_limit(size_t bytes);

/* The one protected call: calls the function below `nargs` arguments with a traceback handler.
 * On error logs "file:line: message" plus the traceback, leaves the stack as before the function
 * was pushed, and returns CT_ERR_LUA. */
int lua_env__pcall(int nargs, int nresults);
/* The same on state `L` (a coroutine of the main state, say). */
int lua_env__pcall_on(lua_State *L, int nargs, int nresults);
/* Runs fn(arg) inside a protected call, so a Lua error that the plugin code behind it raises
 * (through a ct_lua_api function) is caught: logs it as "<what> of plugin <name>: ..." and
 * returns CT_ERR_LUA; otherwise returns what fn returned. Without a Lua state calls fn directly. */
int lua_env__protect(int (*fn)(void *arg), void *arg, const char *what, const char *plugin);
/* The same call for callers that report the error themselves (the console replies with it): on
 * error the message with its traceback is left on the stack in place of the function, nothing is
 * logged, and CT_ERR_LUA is returned. `limit`: the call's own budget in seconds of wall time
 * (stopped with "ran over its limit of N s"), or negative for the script timeout's. */
int lua_env__pcall_keep_error(int nargs, int nresults, double limit);

/* The watchdog (lua_watchdog.c). Each call from the engine into Lua (the calls above, nested
 * ones counting as part of the outermost) may use this many seconds of CPU time on the Lua
 * thread; past it the script is stopped by a Lua error "script stopped: <call> ran over ..."
 * raised where it runs, also in JIT-compiled loops (and again at once if the script catches it).
 * 0 switches it off. CUTTLE_NO_TIMEOUTS=1 at lua_env__init switches the watchdog off entirely
 * (then lua_env__script_timeout says 0). Code running in C cannot be stopped; that is reported. */
#define LUA_SCRIPT_TIMEOUT_DEFAULT 10.0
void lua_env__set_script_timeout(double seconds);
double lua_env__script_timeout(void);
/* Keeps the watchdog running for calls with their own limit (the console's) while the script
 * timeout is 0, which otherwise stops it (and its checks in compiled code). One release per hold;
 * call between calls into Lua. */
void lua_env__hold_watchdog(bool hold);
/* Loads and runs a Lua file (chunk name "@path", so errors read "path:line: ..."). Returns 0,
 * CT_ERR_IO when the file cannot be read, or CT_ERR_LUA on a syntax or runtime error (logged). */
int lua_env__run_file(const char *path);
/* Runs source text; errors read "chunk_name:line: ..." (a name starting with '=' or '@' is taken
 * as a Lua chunk name, as lua_load would). Returns 0 or CT_ERR_LUA (logged). */
int lua_env__run_string(const char *code, const char *chunk_name);
/* Calls global `name` with `nargs` values already pushed (popped either way). CT_ERR_NOT_FOUND
 * when there is no such function, CT_ERR_LUA on error. */
int lua_env__call_global(const char *name, int nargs);

/* Makes `f` callable as module.name through a kernel-owned slot owned by the current owner (see
 * lua_env__set_owner). Registering an existing module.name again replaces the slot's function in
 * place. `module` becomes a global table if missing; the strings are copied. Errors (the global
 * is not a table, out of memory) are logged. */
void lua_env__add_function(const char *module, const char *name, lua_CFunction f);
/* The same for a closure with its context (ct_lua_api_v2.register_closures). */
void lua_env__add_closure(const char *module, const char *name, ct_lua_closure_f f, void *ctx);
/* The same for entry `name` of userdata type `type` (ct_lua_api_v2.register_type): a metamethod
 * when it starts with "__", a method (found through __index) otherwise. */
void lua_env__add_method(const char *type, const char *name, ct_lua_closure_f f, void *ctx);
/* Makes `f` callable as module.name directly, without a slot: no owner, no disabling, no reload.
 * For the kernel's own bindings and for benchmarking the slot's cost. Returns 0, CT_ERR_INVALID
 * when there is no state, or CT_ERR_CONFLICT when global `module` exists and is not a table. */
int lua_env__add_raw_function(const char *module, const char *name, lua_CFunction f);

/* Plugin ownership of registered functions. The loader sets the owner around a plugin's init or
 * reload; every function registered meanwhile belongs to it (NULL: kernel). */
void lua_env__set_owner(ct_plugin_o *owner);
/* Whether `owner` tried to register a name that another running plugin (or the kernel) owns;
 * such a registration is refused and logged, and this hands the first one's message (naming
 * both) to the loader once, which then refuses the plugin. */
bool lua_env__take_clash(ct_plugin_o *owner, char *why, size_t size);
/* The owner's functions now raise "plugin <name> is not loaded" when called. Registering one of
 * them again (the plugin is loaded again) enables it. */
void lua_env__disable_owner(ct_plugin_o *owner);
/* Hot reload: begin remembers the owner's current functions; new registrations replace them in
 * place; commit forgets the old ones, rollback puts them back. One reload at a time.
 * After commit, the owner's functions that the new code did not register again are disabled (they
 * point into the unloaded library); after rollback, functions that only the new code registered
 * are disabled. */
void lua_env__reload_begin(ct_plugin_o *owner);
void lua_env__reload_commit(ct_plugin_o *owner);
void lua_env__reload_rollback(ct_plugin_o *owner);

/* Argument idx as a C string: raises (naming the argument) unless it is a string or number
 * without NUL bytes, which C would silently cut short. */
const char *lua_env__check_c_string(lua_State *L, int idx);

/* What the kernel is calling while no Lua runs ("plugin init", "a frame hook", ...): named when a
 * plugin raises a Lua error outside a protected call and the process must end. NULL: nothing. */
void lua_env__set_phase(const char *phase);
/* The same for a call into `plugin`'s code that the registry does not track (a resource type's
 * compiler). The phase text must stay valid until cleared. */
void lua_env__set_plugin_phase(const char *phase, ct_plugin_o *plugin);

/* The project's `sandbox = true`: removes ffi, debug, io, os (but its clocks), package's native
 * and file loaders, dofile, loadfile and string.dump, and makes every load text-only (no
 * bytecode). Returns 0 or CT_ERR_LUA. Applies until lua_env__shutdown. */
int lua_env__sandbox(void);

const ct_lua_api_v0 *lua_env__api_v0(void);
const ct_lua_api_v1 *lua_env__api_v1(void);
const ct_lua_api_v2 *lua_env__api_v2(void);

#endif
