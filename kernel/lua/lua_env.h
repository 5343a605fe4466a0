/* The kernel's Lua environment (LuaJIT): one state on the main thread; behind ct_lua_api_v0/v1. */
#ifndef CT_KERNEL_LUA_ENV_H
#define CT_KERNEL_LUA_ENV_H

#include "ct_lua.h"

int lua_env__init(void);
void lua_env__shutdown(void);
lua_State *lua_env__state(void);

/* The one protected call: calls the function below `nargs` arguments with a traceback handler.
 * On error logs "file:line: message" plus the traceback, leaves the stack as before the function
 * was pushed, and returns CT_ERR_LUA. */
int lua_env__pcall(int nargs, int nresults);
int lua_env__run_file(const char *path);
int lua_env__run_string(const char *code, const char *chunk_name);
/* Calls global `name` with `nargs` values already pushed (popped either way). CT_ERR_NOT_FOUND
 * when there is no such function, CT_ERR_LUA on error. */
int lua_env__call_global(const char *name, int nargs);

/* Plugin ownership of registered functions. The loader sets the owner around a plugin's init or
 * reload; every function registered meanwhile belongs to it (NULL: kernel). */
void lua_env__set_owner(ct_plugin_o *owner);
/* The owner's functions now raise "plugin <name> is not loaded" when called. */
void lua_env__disable_owner(ct_plugin_o *owner);
/* Hot reload: begin remembers the owner's current functions; new registrations replace them in
 * place; commit forgets the old ones, rollback puts them back. */
void lua_env__reload_begin(ct_plugin_o *owner);
void lua_env__reload_commit(ct_plugin_o *owner);
void lua_env__reload_rollback(ct_plugin_o *owner);

const ct_lua_api_v0 *lua_env__api_v0(void);
const ct_lua_api_v1 *lua_env__api_v1(void);

#endif
