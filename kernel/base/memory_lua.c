/* The Memory module for scripts: verification of every live block on demand. */
#include <lua.h>

#include "base/memory.h"
#include "lua/lua_env.h"

/* Memory.verify() -> the number of damaged blocks found in every allocator (0: all intact); each
 * is logged. Guards are checked in blocks made with --memory-debug canary, headers in all. */
static int l_memory_verify(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)memory__verify(NULL));
    return 1;
}

int memory__bind_lua(void)
{
    return lua_env__add_raw_function("Memory", "verify", l_memory_verify);
}
