/* Shared between the files of kernel/lua only. */
#ifndef CT_KERNEL_LUA_INTERNAL_H
#define CT_KERNEL_LUA_INTERNAL_H

#include "ct_types.h"

/* The "lua" child allocator the state and the slot table live in (NULL when not initialised). */
ct_allocator_t *lua_env__allocator(void);
/* Frees the slot table and its names; called by lua_env__shutdown before the allocator goes. */
void lua_env__slots_shutdown(void);

/* Bytes of C stack that must be left to call into Lua or into a registered function; Lua's
 * allocations are refused below half of it, so an error raised at the limit still has room for
 * its message and traceback (ASan builds have bigger frames, hence the generous size). */
#define LUA_STACK_RESERVE (1024 * 1024)
/* Records the bounds of the calling thread's stack: the thread Lua runs on. */
void lua_env__stack_init(void);
/* Bytes left below the caller's frame on that stack (SIZE_MAX when the bounds are unknown). */
size_t lua_env__stack_left(void);
/* Puts coroutine.resume and coroutine.wrap behind a bound on how deep coroutines nest. */
void lua_env__count_coroutines(lua_State *L);

#endif
