/*
 * The data model for scripts and tools: the `DataModel` module (compiled into the kernel, which
 * owns the Lua state; the model itself is the cuttle_datamodel library).
 *
 *   local doc = DataModel.new("alice")          -- a document (collected with its userdata)
 *   local e = doc:create()                      -- a new object; its GUID as 32 hex digits
 *   doc:set(e, "name", "crate")                 -- nil, boolean, number, string,
 *   doc:set(e, "position", {1, 2, 3})           -- {x y z} vector3, {x y z w} quaternion,
 *   doc:set(e, "target", {guid = other})        -- a GUID, {set = {...}} a set, {blob = "..."}
 *   doc:add(DataModel.ROOT, "entities", e)      -- add_to_set / remove
 *   local v, type = doc:get(e, "position")      -- {1, 2, 3}, "vector3" (nil when missing)
 *   doc:restore_point(); doc:undo(); doc:redo() -- undo returns applied, {skipped...}
 *   doc:check()                                 -- { {kind=, object=, key=, target=} ... }
 *   doc:replace(a, b)   doc:copy({e}) -> text   doc:paste(text) -> {new roots}
 *   doc:record(true)    doc:take_changes() -> change-set text   doc:apply(text) -> applied, conflicts
 *   DataModel.read_level(text, name) -> doc     doc:write_level(assign_ids) -> text
 *
 * Misuse (a bad GUID, a missing object, a set op on a non-set, malformed text) raises with the
 * model's message; nothing is applied.
 */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "datamodel.h"
#include "lua/lua_env.h"

#define DOC_TYPE "ct.datamodel.doc"

static const ct_datamodel_api_v1 *dm;

typedef struct lua_doc_t {
    ct_dm_doc_o *doc;
} lua_doc_t;

static ct_dm_doc_o *check_doc(lua_State *L)
{
    lua_doc_t *d = luaL_checkudata(L, 1, DOC_TYPE);
    if (!d->doc)
        luaL_error(L, "DataModel: the document is gone");
    return d->doc;
}

static void push_doc(lua_State *L, ct_dm_doc_o *doc)
{
    lua_doc_t *d = lua_newuserdata(L, sizeof *d);
    d->doc = doc;
    luaL_getmetatable(L, DOC_TYPE);
    lua_setmetatable(L, -2);
}

static ct_guid_t check_guid(lua_State *L, int idx)
{
    size_t len;
    const char *s = luaL_checklstring(L, idx, &len);
    ct_guid_t g;
    if (!ct_guid_parse(s, len, &g))
        luaL_error(L, "DataModel: argument %d: '%s' is not a GUID of 32 hex digits", idx, s);
    return g;
}

static void push_guid(lua_State *L, ct_guid_t g)
{
    char s[33];
    ct_guid_format(g, s);
    lua_pushlstring(L, s, 32);
}

static int fail(lua_State *L, ct_dm_doc_o *doc, const char *what)
{
    return luaL_error(L, "DataModel: %s: %s", what, dm->last_error(doc));
}

/* A Lua value as a model value; guids and strings point into Lua strings on the stack. */
static ct_dm_value_t to_value(lua_State *L, int idx, ct_guid_t *scratch, uint32_t max)
{
    ct_dm_value_t v = {0};
    switch (lua_type(L, idx)) {
    case LUA_TNIL: break;
    case LUA_TBOOLEAN:
        v.type = CT_DM_BOOL;
        v.as.b = lua_toboolean(L, idx);
        break;
    case LUA_TNUMBER:
        v.type = CT_DM_DOUBLE;
        v.as.d = lua_tonumber(L, idx);
        break;
    case LUA_TSTRING: {
        size_t len;
        v.as.s = lua_tolstring(L, idx, &len);
        v.type = CT_DM_STRING;
        v.size = (uint32_t)len;
        break;
    }
    case LUA_TTABLE: {
        lua_getfield(L, idx, "guid");
        if (!lua_isnil(L, -1)) {
            v.type = CT_DM_GUID;
            v.as.guid = check_guid(L, lua_gettop(L));
            lua_pop(L, 1);
            break;
        }
        lua_pop(L, 1);
        lua_getfield(L, idx, "blob");
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            v.as.blob = lua_tolstring(L, -1, &len);
            v.type = CT_DM_BLOB;
            v.size = (uint32_t)len;
            lua_pop(L, 1); /* the table keeps the string alive */
            break;
        }
        lua_pop(L, 1);
        lua_getfield(L, idx, "set");
        if (lua_istable(L, -1)) {
            uint32_t n = (uint32_t)lua_objlen(L, -1);
            if (n > max)
                luaL_error(L, "DataModel: a set of more than %u members", max);
            for (uint32_t i = 0; i < n; i++) {
                lua_rawgeti(L, -1, (int)i + 1);
                scratch[i] = check_guid(L, lua_gettop(L));
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
            v.type = CT_DM_SET;
            v.size = n;
            v.as.set = scratch;
            break;
        }
        lua_pop(L, 1);
        size_t n = lua_objlen(L, idx);
        if (n != 3 && n != 4)
            luaL_error(
                L, "DataModel: a table value is {x y z}, {x y z w}, {guid=}, {set=} or {blob=}");
        v.type = n == 3 ? CT_DM_VEC3 : CT_DM_QUAT;
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, idx, (int)i + 1);
            v.as.v[i] = luaL_checknumber(L, lua_gettop(L));
            lua_pop(L, 1);
        }
        break;
    }
    default: luaL_error(L, "DataModel: a %s is not a value of the model", luaL_typename(L, idx));
    }
    return v;
}

static void push_value(lua_State *L, const ct_dm_value_t *v)
{
    switch (v->type) {
    case CT_DM_BOOL: lua_pushboolean(L, v->as.b); break;
    case CT_DM_DOUBLE: lua_pushnumber(L, v->as.d); break;
    case CT_DM_STRING: lua_pushlstring(L, v->as.s, v->size); break;
    case CT_DM_BLOB: lua_pushlstring(L, v->as.blob, v->size); break;
    case CT_DM_GUID: push_guid(L, v->as.guid); break;
    case CT_DM_VEC3:
    case CT_DM_QUAT: {
        int n = v->type == CT_DM_VEC3 ? 3 : 4;
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            lua_pushnumber(L, v->as.v[i]);
            lua_rawseti(L, -2, i + 1);
        }
        break;
    }
    case CT_DM_SET:
        lua_createtable(L, (int)v->size, 0);
        for (uint32_t i = 0; i < v->size; i++) {
            push_guid(L, v->as.set[i]);
            lua_rawseti(L, -2, (int)i + 1);
        }
        break;
    default: lua_pushnil(L); break;
    }
}

static int l_new(lua_State *L)
{
    const char *author = luaL_optstring(L, 1, NULL);
    ct_dm_doc_o *doc = dm->create_doc(&(ct_dm_doc_desc_t){.author = author});
    if (!doc)
        return luaL_error(L, "DataModel.new: out of memory");
    push_doc(L, doc);
    return 1;
}

static int l_gc(lua_State *L)
{
    lua_doc_t *d = luaL_checkudata(L, 1, DOC_TYPE);
    dm->destroy_doc(d->doc);
    d->doc = NULL;
    return 0;
}

static int l_create(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    ct_guid_t g = lua_isnoneornil(L, 2) ? dm->new_guid(doc) : check_guid(L, 2);
    if (dm->create(doc, g))
        return fail(L, doc, "create");
    push_guid(L, g);
    return 1;
}

static int l_destroy(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    if (dm->destroy(doc, check_guid(L, 2)))
        return fail(L, doc, "destroy");
    return 0;
}

static int l_set(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    ct_guid_t g = check_guid(L, 2);
    const char *key = luaL_checkstring(L, 3);
    ct_guid_t scratch[256];
    ct_dm_value_t v = to_value(L, 4, scratch, 256);
    if (dm->set_property(doc, g, key, &v))
        return fail(L, doc, "set");
    return 0;
}

static int l_get(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    ct_dm_value_t v;
    if (dm->get(doc, check_guid(L, 2), luaL_checkstring(L, 3), &v)) {
        lua_pushnil(L);
        return 1;
    }
    push_value(L, &v);
    lua_pushstring(L, dm->type_name(v.type));
    return 2;
}

static int l_set_op(lua_State *L, bool add)
{
    ct_dm_doc_o *doc = check_doc(L);
    ct_guid_t g = check_guid(L, 2), item = check_guid(L, 4);
    const char *key = luaL_checkstring(L, 3);
    if ((add ? dm->add_to_set : dm->remove_from_set)(doc, g, key, item))
        return fail(L, doc, add ? "add" : "remove");
    return 0;
}

static int l_add(lua_State *L) { return l_set_op(L, true); }
static int l_remove(lua_State *L) { return l_set_op(L, false); }

static int l_exists(lua_State *L)
{
    lua_pushboolean(L, dm->exists(check_doc(L), check_guid(L, 2)));
    return 1;
}

static int l_keys(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    ct_guid_t g = check_guid(L, 2);
    uint32_t n = dm->keys(doc, g, NULL, 0);
    const char **keys = lua_newuserdata(L, (n ? n : 1) * sizeof *keys);
    dm->keys(doc, g, keys, n);
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        lua_pushstring(L, keys[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int l_restore_point(lua_State *L)
{
    dm->restore_point(check_doc(L));
    return 0;
}

static int push_undo(lua_State *L, int r, const ct_dm_undo_report_t *rep)
{
    if (r) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, rep->applied);
    lua_createtable(L, (int)rep->num_skipped, 0);
    for (uint32_t i = 0; i < rep->num_skipped; i++) {
        const ct_dm_skip_t *s = &rep->skipped[i];
        lua_createtable(L, 0, 4);
        push_guid(L, s->object);
        lua_setfield(L, -2, "object");
        if (s->key) {
            lua_pushstring(L, s->key);
            lua_setfield(L, -2, "key");
        }
        lua_pushstring(L, s->why);
        lua_setfield(L, -2, "why");
        if (s->current_stamp.author) {
            lua_pushstring(L, s->current_stamp.author);
            lua_setfield(L, -2, "author");
        }
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 2;
}

static int l_undo(lua_State *L)
{
    ct_dm_undo_report_t rep;
    int r = dm->undo(check_doc(L), &rep);
    return push_undo(L, r, &rep);
}

static int l_redo(lua_State *L)
{
    ct_dm_undo_report_t rep;
    int r = dm->redo(check_doc(L), &rep);
    return push_undo(L, r, &rep);
}

static int l_check(lua_State *L)
{
    const ct_dm_issue_t *issues;
    uint32_t n = dm->check(check_doc(L), &issues);
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        lua_pushstring(L, issues[i].kind == CT_DM_ISSUE_DANGLING ? "dangling" : "orphan");
        lua_setfield(L, -2, "kind");
        push_guid(L, issues[i].object);
        lua_setfield(L, -2, "object");
        if (issues[i].kind == CT_DM_ISSUE_DANGLING) {
            lua_pushstring(L, issues[i].key);
            lua_setfield(L, -2, "key");
            push_guid(L, issues[i].target);
            lua_setfield(L, -2, "target");
        }
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int l_replace(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    ct_guid_t from = check_guid(L, 2), to = check_guid(L, 3);
    if (dm->replace(doc, &from, &to, 1))
        return fail(L, doc, "replace");
    return 0;
}

static int l_copy(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    uint32_t n = (uint32_t)lua_objlen(L, 2);
    if (n > 4096)
        return luaL_error(L, "DataModel: copy of more than 4096 roots");
    ct_guid_t *roots = lua_newuserdata(L, (n ? n : 1) * sizeof *roots);
    for (uint32_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        roots[i] = check_guid(L, lua_gettop(L));
        lua_pop(L, 1);
    }
    size_t len;
    char *text = dm->copy(doc, roots, n, &len);
    if (!text)
        return fail(L, doc, "copy");
    lua_pushlstring(L, text, len);
    dm->free_text(text);
    return 1;
}

static int l_paste(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    ct_guid_t roots[256];
    uint32_t n = 0;
    if (dm->paste(doc, text, len, roots, 256, &n))
        return fail(L, doc, "paste");
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n && i < 256; i++) {
        push_guid(L, roots[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int l_record(lua_State *L)
{
    dm->record(check_doc(L), lua_toboolean(L, 2));
    return 0;
}

static int l_take_changes(lua_State *L)
{
    ct_dm_changeset_o *cs = dm->take_changes(check_doc(L));
    size_t len;
    char *text = cs ? dm->changeset_to_text(cs, &len) : NULL;
    dm->destroy_changeset(cs);
    if (!text)
        return luaL_error(L, "DataModel: take_changes: out of memory");
    lua_pushlstring(L, text, len);
    dm->free_text(text);
    return 1;
}

static int l_apply(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    char err[512];
    ct_dm_changeset_o *cs =
        dm->changeset_from_text(text, len, luaL_optstring(L, 3, "changes"), err, sizeof err);
    if (!cs)
        return luaL_error(L, "DataModel: apply: %s", err);
    ct_dm_merge_report_t rep;
    int r = dm->apply(doc, cs, &rep);
    dm->destroy_changeset(cs);
    if (r)
        return fail(L, doc, "apply");
    lua_pushinteger(L, rep.applied);
    lua_createtable(L, (int)rep.num_conflicts, 0);
    for (uint32_t i = 0; i < rep.num_conflicts; i++) {
        const ct_dm_conflict_t *c = &rep.conflicts[i];
        lua_createtable(L, 0, 6);
        push_guid(L, c->object);
        lua_setfield(L, -2, "object");
        lua_pushstring(L, c->key ? c->key : "");
        lua_setfield(L, -2, "key");
        push_value(L, &c->winner);
        lua_setfield(L, -2, "winner");
        push_value(L, &c->loser);
        lua_setfield(L, -2, "loser");
        lua_pushstring(L, c->winner_stamp.author);
        lua_setfield(L, -2, "winner_author");
        lua_pushstring(L, c->loser_stamp.author);
        lua_setfield(L, -2, "loser_author");
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 2;
}

static int l_read_level(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    char err[512];
    ct_dm_doc_o *doc =
        dm->read_level(text, len, luaL_optstring(L, 2, "level"), NULL, err, sizeof err);
    if (!doc)
        return luaL_error(L, "DataModel.read_level: %s", err);
    push_doc(L, doc);
    return 1;
}

static int l_write_level(lua_State *L)
{
    ct_dm_doc_o *doc = check_doc(L);
    size_t len;
    char *text =
        dm->write_level(doc, &(ct_dm_write_desc_t){.assign_ids = lua_toboolean(L, 2)}, &len);
    if (!text)
        return fail(L, doc, "write_level");
    lua_pushlstring(L, text, len);
    dm->free_text(text);
    return 1;
}

int datamodel__bind_lua(void)
{
    dm = datamodel__api_v1();
    lua_State *L = lua_env__state();
    static const luaL_Reg methods[] = {
        {"create", l_create},
        {"destroy", l_destroy},
        {"set", l_set},
        {"get", l_get},
        {"add", l_add},
        {"remove", l_remove},
        {"exists", l_exists},
        {"keys", l_keys},
        {"restore_point", l_restore_point},
        {"undo", l_undo},
        {"redo", l_redo},
        {"check", l_check},
        {"replace", l_replace},
        {"copy", l_copy},
        {"paste", l_paste},
        {"record", l_record},
        {"take_changes", l_take_changes},
        {"apply", l_apply},
        {"write_level", l_write_level},
        {NULL, NULL},
    };
    luaL_newmetatable(L, DOC_TYPE);
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    lua_newtable(L);
    luaL_register(L, NULL, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    int r = lua_env__add_raw_function("DataModel", "new", l_new);
    r = r ? r : lua_env__add_raw_function("DataModel", "read_level", l_read_level);
    if (r)
        return r;
    /* DataModel.ROOT: the root object's GUID. */
    lua_getglobal(L, "DataModel");
    if (lua_istable(L, -1)) {
        lua_pushstring(L, "00000000000000000000000000000000");
        lua_setfield(L, -2, "ROOT");
    }
    lua_pop(L, 1);
    return 0;
}
