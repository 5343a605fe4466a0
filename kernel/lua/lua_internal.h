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
/* The lowest address of that stack (0: unknown); lua_stack.c's. */
extern uintptr_t lua_env__stack_low;
/* Bytes left below the caller's frame on that stack (SIZE_MAX when the bounds are unknown).
 * Inline: every call from Lua into a slotted function asks (bench/kernel measured the call). */
static inline size_t lua_env__stack_left(void)
{
    const uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (!lua_env__stack_low)
        return SIZE_MAX;
    return here > lua_env__stack_low ? here - lua_env__stack_low : 0;
}
/* Puts coroutine.resume and coroutine.wrap behind a bound on how deep coroutines nest. */
void lua_env__count_coroutines(lua_State *L);

/* The watchdog (lua_watchdog.c). start: on the thread Lua runs on, once the state is open
 * (nothing starts under CUTTLE_NO_TIMEOUTS); stop: before the state closes. */
void lua_watchdog__start(lua_State *L);
void lua_watchdog__stop(void);
/* Around every entry into Lua; only the outermost pair of a nest counts. `call` names what the
 * engine calls ("update", "init"; NULL: the function found at the bottom of the stack), `plugin`
 * whose hook it is (or NULL); `limit` is the call's own budget in seconds of wall time (the
 * console's), or negative for script_timeout's (CPU time). The strings must live until the matching leave. */
void lua_watchdog__enter(const char *call, const char *plugin, double limit);
void lua_watchdog__leave(void);

#endif
