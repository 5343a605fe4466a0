/* Shared between the files of kernel/lua only. */
#ifndef CT_KERNEL_LUA_INTERNAL_H
#define CT_KERNEL_LUA_INTERNAL_H

#include "ct_types.h"

/* The "lua" child allocator the state and the slot table live in (NULL when not initialised). */
ct_allocator_t *lua_env__allocator(void);
/* Frees the slot table and its names; called by lua_env__shutdown before the allocator goes. */
void lua_env__slots_shutdown(void);

#endif
