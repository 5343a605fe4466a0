/*
 * What game scripts reach for once something is spawned (documented in api/ct_world.h, "Spawn
 * handles, finding, components at run time"):
 *   World.spawn(w, "unit"|"level", name, ...) returns a handle that lists the entities it made
 *     (in resource order, with their parents) and finds one by debug name or by a path of names;
 *   World.find / World.find_all walk a world's debug names;
 *   World.add_component / World.remove_component change a live entity's components.
 * The handle is a Lua table (its methods are Lua, below); C gives it the entities and their
 * parents from the resource. Components are added by compiling a one-entity unit in memory
 * (ct_resource_api.load_source, so the type's own compiler checks the fields and its validation
 * runs) and handing its instance to the type's spawner for the live entity.
 */
#include <stdio.h>
#include <string.h>

#include "entities_internal.h"

#define L_API (entities__services.lua)

static ct_world_o *check_world(lua_State *L, const char *fn)
{
    ct_world_o *w = L_API->to_light_userdata(L, 1);
    if (!entities__world_valid(w))
        L_API->error(L, "%s: argument 1 is not a live world (destroyed already?)", fn);
    return w;
}

static ct_entity_t check_entity(lua_State *L, int idx, const char *fn)
{
    const double v = L_API->check_number(L, idx);
    const ct_entity_t e = {
        v >= 1.0 && v <= (double)UINT32_MAX && v == (double)(uint32_t)v ? (uint32_t)v : 0u};
    if (!entities__alive(e))
        L_API->error(L, "%s: argument %d is not a live entity", fn, idx);
    return e;
}

/* World._spawn_list(w, kind, name, x, y, z, qx, qy, qz, qw) -> entities, parents (1-based
 * indices into entities, 0 for a root). */
static int l_spawn_list(lua_State *L)
{
    ct_world_o *w = check_world(L, "World.spawn");
    const char *kind = L_API->check_string(L, 2, NULL);
    const char *name = L_API->check_string(L, 3, NULL);
    float pos[3], rot[4];
    for (int i = 0; i < 3; i++)
        pos[i] = (float)L_API->check_number(L, 4 + i);
    for (int i = 0; i < 4; i++)
        rot[i] = (float)L_API->check_number(L, 7 + i);
    char why[160];
    if (!entities__check_spawn_pose(pos, rot, rot, why, sizeof why))
        return L_API->error(L, "World.spawn('%s'): %s", name, why);
    const ct_resource_api_v6 *res = entities__services.resource;
    void *resource = res->get(kind, name);
    if (!resource) {
        const int err = res->load(kind, name);
        if (err < 0)
            return L_API->error(L, "World.spawn: %s '%s' did not load (%s; the log says why)", kind,
                                name, entities__services.log->error_message(err));
        resource = res->get(kind, name);
    }
    const uint32_t *parents;
    const uint32_t n = entities__resource_entities(resource, &parents);
    ct_entity_t *made = n ? ct_alloc(entities__services.a, (size_t)n * sizeof *made) : NULL;
    if (n && !made)
        return L_API->error(L, "World.spawn('%s'): out of memory", name);
    const int r = entities__spawn_resource(w, resource, pos, rot, made, n);
    if (r < 0) {
        ct_free(entities__services.a, made, (size_t)n * sizeof *made);
        return L_API->error(L, "World.spawn('%s'): %s (the log says why)", name,
                            entities__services.log->error_message(r));
    }
    L_API->new_table(L, (int)n, 0);
    L_API->new_table(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        L_API->push_number(L, made[i].id);
        L_API->set_index(L, -3, (int)i + 1);
        L_API->push_number(L, parents[i] == UINT32_MAX ? 0 : parents[i] + 1);
        L_API->set_index(L, -2, (int)i + 1);
    }
    ct_free(entities__services.a, made, (size_t)n * sizeof *made);
    return 2;
}

/* Walks the world's debug names; calls back with each entity named `name` until it says stop. */
static uint32_t each_named(ct_world_o *w, const char *name, lua_State *L, bool all)
{
    const ct_debug_name_api_v1 *dn = &entities__debug_name_api;
    const uint32_t count = dn->count(w);
    uint32_t found = 0;
    for (uint32_t k = 1; k <= count; k++) {
        const char *s = dn->name(w, (ct_debug_name_instance_t){k});
        const ct_entity_t e = dn->entity(w, (ct_debug_name_instance_t){k});
        if (!s || strcmp(s, name) || !entities__alive(e))
            continue;
        L_API->push_number(L, e.id);
        if (!all)
            return 1;
        L_API->set_index(L, -2, (int)++found);
    }
    return found;
}

static int l_find(lua_State *L)
{
    ct_world_o *w = check_world(L, "World.find");
    if (!each_named(w, L_API->check_string(L, 2, NULL), L, false))
        L_API->push_nil(L);
    return 1;
}

static int l_find_all(lua_State *L)
{
    ct_world_o *w = check_world(L, "World.find_all");
    const char *name = L_API->check_string(L, 2, NULL);
    L_API->new_table(L, 4, 0);
    each_named(w, name, L, true);
    return 1;
}

/* The registered type named by argument idx, and its slot. */
static const ct_component_type_t *check_type(lua_State *L, int idx, const char *fn, int *slot)
{
    const char *name = L_API->check_string(L, idx, NULL);
    const uint64_t id = entities__type_id(name);
    *slot = entities__type_slot(id);
    const ct_component_type_t *type = *slot >= 0 ? entities__type_at((uint32_t)*slot) : NULL;
    if (!type)
        L_API->error(L, "%s: '%s' is not a registered component type", fn, name);
    return type;
}

/* World._add_component(w, e, type, sjson_value_text) -> true */
static int l_add_component(lua_State *L)
{
    static uint32_t serial; /* a fresh resource name per call: load_source counts loads by name */
    ct_world_o *w = check_world(L, "World.add_component");
    const ct_entity_t e = check_entity(L, 2, "World.add_component");
    int slot;
    const ct_component_type_t *type = check_type(L, 3, "World.add_component", &slot);
    size_t len;
    const char *value = L_API->check_string(L, 4, &len);
    void *manager = entities__world_manager_at(w, (uint32_t)slot);
    if (!manager || !type->spawn)
        return L_API->error(L, "World.add_component: this world has no '%s' manager", type->name);
    /* A one-entity unit holding only this component, compiled by the type's own compiler. */
    const size_t text_size = len + strlen(type->name) + 64;
    char *text = ct_alloc(entities__services.a, text_size);
    if (!text)
        return L_API->error(L, "World.add_component: out of memory");
    const int text_len = snprintf(text, text_size, "entities = [ { components = { %s = %.*s } } ]",
                                  type->name, (int)len, value);
    char name[48];
    snprintf(name, sizeof name, "runtime/add_component_%u", ++serial);
    const ct_resource_api_v6 *res = entities__services.resource;
    int err = res->load_source("unit", name, text, (size_t)text_len);
    ct_free(entities__services.a, text, text_size);
    if (err < 0)
        return L_API->error(L, "World.add_component: '%s' did not compile (the log says why)",
                            type->name);
    uint32_t n = 0;
    const uint32_t *index;
    const void *data = entities__resource_section(res->get("unit", name),
                                                  entities__type_id_at((uint32_t)slot), &n, &index);
    if (data && n == 1) {
        static const uint32_t root = UINT32_MAX;
        const ct_spawn_context_t ctx = {.world = w,
                                        .entity_lookup = &e,
                                        .parent_index = &root,
                                        .num_entities = 1,
                                        .rotation = {0, 0, 0, 1}};
        type->spawn(manager, &ctx, 1, index, data);
    }
    res->unload("unit", name);
    if (!data || n != 1)
        return L_API->error(L, "World.add_component: '%s' compiled to no instance", type->name);
    L_API->push_boolean(L, true);
    return 1;
}

/* World.remove_component(w, e, type) -> true; types collected lazily cannot remove one entity. */
static int l_remove_component(lua_State *L)
{
    ct_world_o *w = check_world(L, "World.remove_component");
    const ct_entity_t e = check_entity(L, 2, "World.remove_component");
    int slot;
    const ct_component_type_t *type = check_type(L, 3, "World.remove_component", &slot);
    void *manager = entities__world_manager_at(w, (uint32_t)slot);
    if (!type->destroyed)
        return L_API->error(
            L,
            "World.remove_component: '%s' removes instances only when their entity dies "
            "(its type collects lazily)",
            type->name);
    if (manager)
        type->destroyed(manager, &e, 1);
    L_API->push_boolean(L, manager != NULL);
    return 1;
}

static const ct_lua_reg_t handle_fns[] = {
    {"_spawn_list", l_spawn_list},
    {"find", l_find},
    {"find_all", l_find_all},
    {"_add_component", l_add_component},
    {"remove_component", l_remove_component},
};

void entities__handles_lua_register(void)
{
    L_API->register_module("World", handle_fns, sizeof handle_fns / sizeof handle_fns[0]);
}

/* The Lua half: the handle's methods and the table-to-SJSON writer for add_component. */
static const char prelude[] =
    "local World = World\n"
    "local spawn_list, debug_name, add = World._spawn_list, World.debug_name, "
    "World._add_component\n"
    "local Spawned = {}\n"
    "Spawned.__index = Spawned\n"
    "function World.spawn(w, kind, name, x, y, z, qx, qy, qz, qw)\n"
    "  if kind ~= 'unit' and kind ~= 'level' then\n"
    "    error(\"World.spawn: argument 2 is 'unit' or 'level', not \" .. tostring(kind), 2)\n"
    "  end\n"
    "  local list, parents = spawn_list(w, kind, name, x or 0, y or 0, z or 0, qx or 0, qy or 0, "
    "qz or 0, qw or 1)\n"
    "  return setmetatable({world = w, kind = kind, name = name, root = list[1], list = list, "
    "parents = parents},\n"
    "                      Spawned)\n"
    "end\n"
    "function Spawned:entities() local t = {} for i, e in ipairs(self.list) do t[i] = e end return "
    "t end\n"
    "function Spawned:count() return #self.list end\n"
    "local function index_of(self, e)\n"
    "  local at = self.at\n"
    "  if not at then at = {} for i, x in ipairs(self.list) do at[x] = i end self.at = at end\n"
    "  return at[e]\n"
    "end\n"
    "function Spawned:parent(e)\n"
    "  local i = index_of(self, e)\n"
    "  local p = i and self.parents[i] or 0\n"
    "  return p > 0 and self.list[p] or nil\n"
    "end\n"
    "function Spawned:children(e)\n"
    "  local i, out = 0, {}\n"
    "  if e ~= nil then\n"
    "    i = index_of(self, e)\n"
    "    if not i then error('Spawned:children: entity ' .. tostring(e) .. ' is not of this "
    "spawn', 2) end\n"
    "  end\n"
    "  for k, p in ipairs(self.parents) do if p == i then out[#out + 1] = self.list[k] end end\n"
    "  return out\n"
    "end\n"
    "function Spawned:child(e, name)\n"
    "  for _, c in ipairs(self:children(e)) do if debug_name(self.world, c) == name then return c "
    "end end\n"
    "  return nil\n"
    "end\n"
    "function Spawned:find(path)\n"
    "  if type(path) ~= 'string' then error('Spawned:find: a name or a path (\"a/b\") of debug "
    "names', 2) end\n"
    "  local segs = {}\n"
    "  for s in path:gmatch('[^/]+') do segs[#segs + 1] = s end\n"
    "  if #segs == 0 then error('Spawned:find: an empty path', 2) end\n"
    "  local w, list, parents = self.world, self.list, self.parents\n"
    "  for i = 1, #list do\n"
    "    if debug_name(w, list[i]) == segs[#segs] then\n"
    "      local j, ok = i, true\n"
    "      for k = #segs - 1, 1, -1 do\n"
    "        j = parents[j]\n"
    "        if j == 0 or debug_name(w, list[j]) ~= segs[k] then ok = false break end\n"
    "      end\n"
    "      if ok then return list[i] end\n"
    "    end\n"
    "  end\n"
    "  return nil\n"
    "end\n"
    "local function sjson(v, depth)\n"
    "  if depth > 16 then error('World.add_component: fields nest deeper than 16', 4) end\n"
    "  local t = type(v)\n"
    "  if t == 'number' then\n"
    "    if v ~= v or v == math.huge or v == -math.huge then error('World.add_component: a number "
    "is not finite', 4) end\n"
    "    return string.format('%.17g', v)\n"
    "  elseif t == 'string' then return string.format('%q', v)\n"
    "  elseif t == 'boolean' then return tostring(v)\n"
    "  elseif t == 'table' then\n"
    "    local out = {}\n"
    "    if #v > 0 or next(v) == nil then\n"
    "      for i = 1, #v do out[i] = sjson(v[i], depth + 1) end\n"
    "      if next(v) == nil then return '{}' end\n"
    "      return '[' .. table.concat(out, ' ') .. ']'\n"
    "    end\n"
    "    local keys = {}\n"
    "    for k in pairs(v) do\n"
    "      if type(k) ~= 'string' or not k:match('^[%a_][%w_]*$') then\n"
    "        error('World.add_component: field ' .. tostring(k) .. ' is not a name', 4)\n"
    "      end\n"
    "      keys[#keys + 1] = k\n"
    "    end\n"
    "    table.sort(keys)\n"
    "    for _, k in ipairs(keys) do out[#out + 1] = k .. ' = ' .. sjson(v[k], depth + 1) end\n"
    "    return '{ ' .. table.concat(out, ' ') .. ' }'\n"
    "  end\n"
    "  error('World.add_component: a ' .. t .. ' cannot be a field', 4)\n"
    "end\n"
    "function World.add_component(w, e, kind, fields)\n"
    "  if type(kind) ~= 'string' then error('World.add_component: argument 3 is a component type "
    "name', 2) end\n"
    "  return add(w, e, kind, type(fields) == 'string' and fields or sjson(fields or {}, 0))\n"
    "end\n";

int entities__handles_lua_init(void) { return L_API->run_string(prelude, "=entities_handles"); }
