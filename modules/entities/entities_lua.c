/*
 * Lua bindings: modules World and Entity (documented in api/ct_world.h). Worlds are light
 * userdata checked against the list of live worlds, so a stale one raises an error instead of
 * being dereferenced; entities are numbers holding the 32-bit id.
 *
 * Script callbacks are stored on the Lua side (a table world -> entity -> name -> function), since
 * Lua functions cannot be held from C through the Lua API we get. The C side owns the queue; the
 * Lua side of World.run_callbacks reads it record by record and calls each function through
 * xpcall, so one failing callback is reported and the others still run.
 */
#include <string.h>

#include "entities_internal.h"

#include "../common/lua_checks.h"

#define L_API (entities__services.lua)

/* Argument 1 of `fn` as a live world (the error's place is the script line that called it; the
 * Lua half checks before calling in, so its lines never show). */
static ct_world_o *live_world(lua_State *L, const char *fn)
{
    return check__world(L_API, L, 1, fn, entities__world_valid);
}

static int push_entity_or_nil(lua_State *L, ct_entity_t e)
{
    if (e.id)
        L_API->push_number(L, e.id);
    else
        L_API->push_nil(L);
    return 1;
}

static int l_world_create(lua_State *L)
{
    ct_world_o *w = entities__create_world(NULL);
    if (!w)
        return L_API->error(L, "could not create a world");
    L_API->push_light_userdata(L, w);
    return 1;
}

static int l_world_destroy(lua_State *L)
{
    entities__destroy_world(live_world(L, "World.destroy"));
    return 0;
}

static int l_world_spawn_unit(lua_State *L)
{
    ct_world_o *w = live_world(L, "World.spawn_unit");
    const char *name = L_API->check_string(L, 2, NULL);
    float pos[3], rot[4];
    for (int i = 0; i < 3; i++)
        pos[i] = (float)check__opt_number(L_API, L, 3 + i, "World.spawn_unit", 0.0);
    for (int i = 0; i < 4; i++)
        rot[i] = (float)check__opt_number(L_API, L, 6 + i, "World.spawn_unit", i == 3 ? 1.0 : 0.0);
    char why[160];
    if (!entities__check_spawn_pose(pos, rot, rot, why, sizeof why))
        return L_API->error(L, "World.spawn_unit('%s'): %s", name, why);
    ct_entity_t root = {0};
    entities__spawn_named(w, "unit", name, pos, rot, &root);
    return push_entity_or_nil(L, root);
}

static int l_world_spawn_level(lua_State *L)
{
    ct_world_o *w = live_world(L, "World.spawn_level");
    int n = entities__spawn_named(w, "level", L_API->check_string(L, 2, NULL), NULL, NULL, NULL);
    if (n < 0) {
        const char *why = entities__services.log->error_message(n);
        L_API->push_nil(L);
        L_API->push_string(L, why, strlen(why));
        return 2;
    }
    L_API->push_number(L, n);
    return 1;
}

static int l_world_debug_name(lua_State *L)
{
    ct_world_o *w = live_world(L, "World.debug_name");
    const ct_debug_name_api_v1 *api = &entities__debug_name_api;
    const char *name = api->name(w, api->lookup(w, check__entity(L_API, L, 2, "World.debug_name")));
    if (name)
        L_API->push_string(L, name, strlen(name));
    else
        L_API->push_nil(L);
    return 1;
}

static int l_world_set_debug_name(lua_State *L)
{
    ct_world_o *w = live_world(L, "World.set_debug_name");
    ct_entity_t e = check__entity(L_API, L, 2, "World.set_debug_name");
    int err = entities__debug_name_api.set(w, e, L_API->check_string(L, 3, NULL));
    L_API->push_boolean(L, err == 0);
    return 1;
}

static int l_world_queue_callback(lua_State *L)
{
    ct_world_o *w = live_world(L, "World.queue_callback");
    ct_entity_t e = check__entity(L_API, L, 2, "World.queue_callback");
    const char *name = L_API->check_string(L, 3, NULL);
    double args[16];
    int n = L_API->get_top(L) - 3;
    if (n > 16)
        return L_API->error(L, "queue_callback: at most 16 numbers");
    for (int i = 0; i < n; i++)
        args[i] = check__number(L_API, L, 4 + i, "World.queue_callback");
    if (entities__queue_callback(w, e, name, args, (uint32_t)n) < 0)
        return L_API->error(L, "queue_callback: could not queue '%s'", name);
    return 0;
}

static int l_world_collect_garbage(lua_State *L)
{
    entities__collect_garbage(live_world(L, "World.collect_garbage"));
    return 0;
}

static int l_world_take_callbacks(lua_State *L)
{
    L_API->push_number(L, entities__take_callbacks(live_world(L, "World.run_callbacks")));
    return 1;
}

/* Returns entity, name, args... of the next queued callback whose entity is alive; nothing at
 * the end. */
static int l_world_next_callback(lua_State *L)
{
    ct_world_o *w = live_world(L, "World.run_callbacks");
    /* A run number is what _take_callbacks gave: a whole number that fits 32 bits. Any other
     * number converted to uint32_t is undefined behaviour (the fuzzer's -122). */
    const double run = check__range(L_API, L, 2, "World.run_callbacks", 0.0, (double)UINT32_MAX);
    ct_entity_t e;
    const char *name;
    const double *args;
    uint32_t n;
    while (entities__next_callback(w, (uint32_t)run, &e, &name, &args, &n)) {
        if (!entities__alive(e))
            continue;
        L_API->push_number(L, e.id);
        L_API->push_string(L, name, strlen(name));
        for (uint32_t i = 0; i < n; i++)
            L_API->push_number(L, args[i]);
        return 2 + (int)n;
    }
    return 0;
}

static int l_world_live(lua_State *L)
{
    L_API->push_boolean(L, entities__world_valid(L_API->to_light_userdata(L, 1)));
    return 1;
}

static int l_world_report(lua_State *L)
{
    const char *message = L_API->to_string(L, 1, NULL);
    entities__log(CT_LOG_ERROR, "script callback failed: %s", message ? message : "(no message)");
    return 0;
}

static int l_entity_create(lua_State *L) { return push_entity_or_nil(L, entities__create()); }

static int l_entity_alive(lua_State *L)
{
    L_API->push_boolean(L, entities__alive(check__entity(L_API, L, 1, "Entity.alive")));
    return 1;
}

static int l_entity_destroy(lua_State *L)
{
    entities__destroy(check__entity(L_API, L, 1, "Entity.destroy"));
    return 0;
}

static int l_entity_count(lua_State *L)
{
    L_API->push_number(L, entities__live_count());
    return 1;
}

static const ct_lua_reg_t world_fns[] = {
    {"create", l_world_create},
    {"_destroy", l_world_destroy},
    {"spawn_unit", l_world_spawn_unit},
    {"spawn_level", l_world_spawn_level},
    {"debug_name", l_world_debug_name},
    {"set_debug_name", l_world_set_debug_name},
    {"queue_callback", l_world_queue_callback},
    {"collect_garbage", l_world_collect_garbage},
    {"_take_callbacks", l_world_take_callbacks},
    {"_next_callback", l_world_next_callback},
    {"_report", l_world_report},
    {"_live", l_world_live},
};

static const ct_lua_reg_t entity_fns[] = {
    {"create", l_entity_create},
    {"alive", l_entity_alive},
    {"destroy", l_entity_destroy},
    {"count", l_entity_count},
};

/* The Lua half: callback storage, dispatch, and World.destroy forgetting a world's callbacks.
 *
 * Dead entities' tables are dropped in a sweep whenever the number of entities with callbacks in
 * a world doubles since the last sweep, so the tables stay within twice the live ones (plus a
 * floor) at O(1) amortised cost per set_callback.
 *
 * A run belongs to the coroutine that started it: a callback calling run_callbacks on its own
 * world is refused, while a run that ended by an error or by a yield that was never resumed is
 * simply superseded by the next one (the C side drops its rest and says so). */
static const char prelude[] =
    "local World, Entity = World, Entity\n"
    "local callbacks, counts, limits, running = {}, {}, {}, {}\n"
    "local destroy, take, next_callback, report = World._destroy, World._take_callbacks,\n"
    "    World._next_callback, World._report\n"
    "local alive, live = Entity.alive, World._live\n"
    "local traceback = debug and debug.traceback or tostring\n"
    "local MIN_SWEEP = 64\n"
    "local function check_world(w, fn)\n"
    "  if type(w) ~= 'userdata' then\n"
    "    error(fn .. ': argument 1 is not a world (got ' .. (w == nil and 'nil' or 'a ' .. "
    "type(w)) .. ')', 3)\n"
    "  end\n"
    "  if not live(w) then error(fn .. ': argument 1 is not a live world (destroyed already?)', 3) "
    "end\n"
    "end\n"
    "function World.destroy(w)\n"
    "  check_world(w, 'World.destroy')\n"
    "  destroy(w)\n"
    "  callbacks[w], counts[w], limits[w], running[w] = nil, nil, nil, nil\n"
    "end\n"
    "local function sweep(w, per_world)\n"
    "  local n = 0\n"
    "  for e in pairs(per_world) do\n"
    "    if alive(e) then n = n + 1 else per_world[e] = nil end\n"
    "  end\n"
    "  counts[w], limits[w] = n, math.max(MIN_SWEEP, 2 * n)\n"
    "end\n"
    "function World.set_callback(w, e, name, fn)\n"
    "  if type(e) ~= 'number' or type(name) ~= 'string' or (fn ~= nil and type(fn) ~= 'function') "
    "then\n"
    "    error('usage: World.set_callback(world, entity, name, function or nil)', 2)\n"
    "  end\n"
    "  check_world(w, 'World.set_callback')\n"
    "  local per_world = callbacks[w]\n"
    "  if not per_world then\n"
    "    per_world = {}\n"
    "    callbacks[w], counts[w], limits[w] = per_world, 0, MIN_SWEEP\n"
    "  end\n"
    "  local per_entity = per_world[e]\n"
    "  if not per_entity then\n"
    "    if fn == nil then return end\n"
    "    per_entity = {}\n"
    "    per_world[e] = per_entity\n"
    "    counts[w] = counts[w] + 1\n"
    "    if counts[w] > limits[w] then sweep(w, per_world) end\n"
    "  end\n"
    "  per_entity[name] = fn\n"
    "  if fn == nil and next(per_entity) == nil then\n"
    "    per_world[e], counts[w] = nil, counts[w] - 1\n"
    "  end\n"
    "end\n"
    "function World.run_callbacks(w)\n"
    "  check_world(w, 'World.run_callbacks')\n"
    "  local me = coroutine.running() or true\n"
    "  if running[w] == me then\n"
    "    error('World.run_callbacks: already running for this world (called from one of its "
    "callbacks)', 2)\n"
    "  end\n"
    "  local run = take(w)\n"
    "  running[w] = me\n"
    "  local per_world, ran = callbacks[w], 0\n"
    "  local function step(e, name, ...)\n"
    "    if e == nil then return false end\n"
    "    local fn = per_world and per_world[e] and per_world[e][name]\n"
    "    if fn then\n"
    "      ran = ran + 1\n"
    "      local ok, err = xpcall(fn, traceback, e, ...)\n"
    "      if not ok then report(err) end\n"
    "    end\n"
    "    return true\n"
    "  end\n"
    "  local ok, err = pcall(function() while step(next_callback(w, run)) do end end)\n"
    "  if running[w] == me then running[w] = nil end\n"
    "  if not ok then error(err, 0) end\n"
    "  return ran\n"
    "end\n";

void entities__lua_register(void)
{
    L_API->register_module("World", world_fns, sizeof world_fns / sizeof world_fns[0]);
    L_API->register_module("Entity", entity_fns, sizeof entity_fns / sizeof entity_fns[0]);
    entities__handles_lua_register();
}

int entities__lua_init(void)
{
    entities__lua_register();
    const int err = L_API->run_string(prelude, "=entities_lua");
    return err ? err : entities__handles_lua_init();
}
