/* The Resource module for scripts: preloading (e.g. behind a loading screen) and releasing. */
#include <lauxlib.h>
#include <lua.h>

#include "base/log.h"
#include "lua/lua_env.h"
#include "resources/resources.h"
#include "resources/resources_internal.h"

/* Resource.load(type, name): loads the compiled resource (counted); raises on failure, with the
 * reason (already logged in full) in the message. */
static int l_resource_load(lua_State *L)
{
    const char *type = lua_env__check_c_string(L, 1), *name = lua_env__check_c_string(L, 2);
    int r = resources__load(type, name);
    if (r)
        return luaL_error(L, "Resource.load(\"%s\", \"%s\"): %s", type, name,
                          log__error_message(r));
    return 0;
}

/* Resource.unload(type, name): drops one load. */
static int l_resource_unload(lua_State *L)
{
    resources__unload(lua_env__check_c_string(L, 1), lua_env__check_c_string(L, 2));
    return 0;
}

int resources__bind_lua(void)
{
    int r = lua_env__add_raw_function("Resource", "load", l_resource_load);
    return r ? r : lua_env__add_raw_function("Resource", "unload", l_resource_unload);
}
