/*
 * The Editor module for scripts (and console clients checking what the editor did):
 *   Editor.world() -> the editor's world (light userdata, as World.create gives), nil without one
 *   Editor.entity(guid_hex) -> the entity id of the object's first copy in that world, or nil
 *   Editor.entity_count() -> the entities spawned from the level
 *   Editor.frames() -> frames published to pages so far
 */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "editor/editor_internal.h"
#include "lua/lua_env.h"

static int l_editor_world(lua_State *L)
{
    struct ct_world_o *w = editor__listening() ? editor_world__world() : NULL;
    if (w)
        lua_pushlightuserdata(L, w);
    else
        lua_pushnil(L);
    return 1;
}

static int l_editor_entity(lua_State *L)
{
    size_t len;
    const char *hex = luaL_checklstring(L, 1, &len);
    ct_guid_t g;
    if (!ct_guid_parse(hex, len, &g))
        return luaL_argerror(L, 1, "not a GUID (32 hex digits)");
    uint32_t id = editor__listening() ? editor_world__entity(g) : 0;
    if (id)
        lua_pushnumber(L, id);
    else
        lua_pushnil(L);
    return 1;
}

static int l_editor_entity_count(lua_State *L)
{
    lua_pushnumber(L, editor__listening() ? editor_world__entity_count() : 0);
    return 1;
}

static int l_editor_frames(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)(editor__listening() ? editor_world__frames() : 0));
    return 1;
}

int editor__bind_lua(void)
{
    int r = lua_env__add_raw_function("Editor", "world", l_editor_world);
    if (!r)
        r = lua_env__add_raw_function("Editor", "entity", l_editor_entity);
    if (!r)
        r = lua_env__add_raw_function("Editor", "entity_count", l_editor_entity_count);
    if (!r)
        r = lua_env__add_raw_function("Editor", "frames", l_editor_frames);
    return r;
}
