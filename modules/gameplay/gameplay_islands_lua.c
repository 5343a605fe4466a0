/*
 * gameplay_islands_lua.c: gameplay islands for scripts (api/ct_gameplay.h, "Gameplay islands").
 *
 * The main state gets the Islands module through ct.lua (post, shared, run, on_effect, get, set,
 * load_script). Lua handlers run on worker threads, so they cannot use the main state: each
 * worker has a LuaJIT state of its own, made here, holding the same gameplay script, with its
 * own small Islands module (get, set, emit) acting for the event its thread is handling. A
 * handler takes a free worker state for one event (a flag per state; there are as many states as
 * threads that run islands, so one is always free).
 */
#include "gameplay_internal.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#define L_API (gameplay__m.lua)

/* The event the calling worker thread is handling. */
static _Thread_local ct_island_ctx_o *current;

/* ---- worker states ------------------------------------------------------------------------- */

static ct_island_ctx_o *check_current(lua_State *L)
{
    if (!current)
        luaL_error(L, "Islands: called outside a handler");
    return current;
}

static ct_entity_t check_entity(lua_State *L, int idx)
{
    const lua_Number v = luaL_checknumber(L, idx);
    if (!(v >= 1 && v <= (lua_Number)UINT32_MAX && v == (lua_Number)(uint32_t)v))
        luaL_error(L, "argument %d is not an entity", idx);
    return (ct_entity_t){(uint32_t)v};
}

static uint32_t check_field(lua_State *L, int idx)
{
    const char *name = luaL_checkstring(L, idx);
    const uint32_t f = islands__find_field(&gameplay__m.state->islands, name);
    if (!f)
        luaL_error(
            L,
            "field '%s' is not declared (list it in the script's `fields`, or Islands.set it in "
            "the main state first)",
            name);
    return f;
}

static int w_get(lua_State *L)
{
    ct_island_ctx_o *ctx = check_current(L);
    lua_pushnumber(L, islands__get(ctx, check_entity(L, 1), check_field(L, 2)));
    return 1;
}

static int w_set(lua_State *L)
{
    ct_island_ctx_o *ctx = check_current(L);
    lua_pushboolean(
        L, islands__set(ctx, check_entity(L, 1), check_field(L, 2), luaL_checknumber(L, 3)));
    return 1;
}

static int w_emit(lua_State *L)
{
    ct_island_ctx_o *ctx = check_current(L);
    const char *name = luaL_checkstring(L, 1);
    const uint32_t effect = islands__find_effect(&gameplay__m.state->islands, name);
    if (!effect)
        return luaL_error(L, "Islands.emit: no effect '%s' (Islands.on_effect in the main state)",
                          name);
    const ct_entity_t target = lua_isnoneornil(L, 2) ? (ct_entity_t){0} : check_entity(L, 2);
    double args[CT_ISLAND_MAX_ARGS];
    const int n =
        lua_gettop(L) - 2 > (int)CT_ISLAND_MAX_ARGS ? (int)CT_ISLAND_MAX_ARGS : lua_gettop(L) - 2;
    for (int i = 0; i < n; i++)
        args[i] = luaL_checknumber(L, 3 + i);
    lua_pushboolean(L, islands__emit(ctx, effect, target, args, n > 0 ? (uint32_t)n : 0));
    return 1;
}

/* Puts this code's functions into a worker state's Islands table (at load, and after a reload
 * of the module, whose old code they pointed at). */
static void register_worker_functions(lua_State *L)
{
    static const luaL_Reg fns[] = {{"get", w_get}, {"set", w_set}, {"emit", w_emit}, {NULL, NULL}};
    lua_getglobal(L, "Islands");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setglobal(L, "Islands");
    }
    luaL_register(L, NULL, fns);
    lua_pop(L, 1);
}

/* After the script's top level: every global moves behind a read-only proxy, so a handler that
 * assigns a global (state shared between islands) raises instead of racing. */
static const char freeze_globals[] =
    "local G, pairs, setmetatable, real = _G, pairs, setmetatable, {}\n"
    "for k, v in pairs(G) do real[k] = v end\n"
    "for k in pairs(real) do G[k] = nil end\n"
    "setmetatable(G, {__index = real, __newindex = function(_, k)\n"
    "  error(\"island handlers share no globals: '\" .. tostring(k) .. \"' cannot be assigned "
    "(keep state in \"\n"
    "        .. 'the event\\'s entities with Islands.set, or send it to the main state with "
    "Islands.emit)', 2)\n"
    "end})\n";

static void close_workers(gameplay__state *s)
{
    for (uint32_t i = 0; i < s->num_workers; i++)
        if (s->workers[i])
            lua_close(s->workers[i]);
    s->num_workers = 0;
}

static int traceback(lua_State *L)
{
    luaL_traceback(L, L, lua_tostring(L, 1), 1);
    return 1;
}

/* Handles one event with the script's on_<event> in a free worker state. */
static void lua_handler(void *user_data, const ct_island_event_t *event, ct_island_ctx_o *ctx)
{
    gameplay__state *s = gameplay__m.state;
    const uint32_t type = (uint32_t)(uintptr_t)user_data;
    uint32_t w = 0;
    while (atomic_flag_test_and_set(&s->worker_busy[w]))
        w = (w + 1) % s->num_workers; /* as many states as threads: this ends at once */
    lua_State *L = s->workers[w];
    current = ctx;
    const int handler = lua_gettop(L) + 1;
    lua_pushcfunction(L, traceback);
    char name[ISLANDS_NAME_SIZE + 3];
    snprintf(name, sizeof name, "on_%s", s->islands.handlers[type].name);
    lua_getglobal(L, name);
    for (uint32_t i = 0; i < event->num_entities; i++)
        lua_pushnumber(L, event->entities[i].id);
    for (uint32_t i = 0; i < CT_ISLAND_MAX_ARGS; i++)
        lua_pushnumber(L, event->args[i]);
    if (lua_pcall(L, (int)(event->num_entities + CT_ISLAND_MAX_ARGS), 0, handler))
        islands__error(ctx, lua_tostring(L, -1) ? lua_tostring(L, -1)
                                                : "(an error that is not a string)");
    lua_settop(L, handler - 1);
    current = NULL;
    atomic_flag_clear(&s->worker_busy[w]);
}

/* Reads the script and makes one state per thread; on any failure nothing changes. */
static int load_script(lua_State *ML, const char *name)
{
    gameplay__state *s = gameplay__m.state;
    const char *dir =
        gameplay__m.host && gameplay__m.host->project_dir() ? gameplay__m.host->project_dir() : ".";
    if (!name[0] || name[0] == '/' || strstr(name, "..") || strchr(name, '\\'))
        return L_API->error(ML, "Islands.load_script: '%s' is not a path inside the project", name);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const uint32_t threads = gameplay__m.jobs ? gameplay__m.jobs->thread_count() : 1;
    const uint32_t n = threads < GAMEPLAY_MAX_WORKERS ? threads : GAMEPLAY_MAX_WORKERS;
    lua_State *made[GAMEPLAY_MAX_WORKERS] = {0};
    for (uint32_t i = 0; i < n; i++) {
        lua_State *L = made[i] = luaL_newstate();
        if (!L)
            break;
        luaL_openlibs(L);
        register_worker_functions(L);
        if (luaL_loadfile(L, path) || lua_pcall(L, 0, 0, 0) || luaL_loadstring(L, freeze_globals) ||
            lua_pcall(L, 0, 0, 0)) {
            char err[512];
            snprintf(err, sizeof err, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
            for (uint32_t k = 0; k <= i; k++)
                lua_close(made[k]);
            return L_API->error(ML, "Islands.load_script: %s", err);
        }
    }
    if (!made[n - 1]) {
        for (uint32_t k = 0; k < n; k++)
            if (made[k])
                lua_close(made[k]);
        return L_API->error(ML, "Islands.load_script: out of memory");
    }
    /* Declared fields, then a handler for every global on_<event>. */
    lua_State *L = made[0];
    lua_getglobal(L, "fields");
    for (int i = 1; lua_istable(L, -1); i++) {
        lua_rawgeti(L, -1, i);
        const char *f = lua_tostring(L, -1);
        lua_pop(L, 1);
        if (!f)
            break;
        if (!islands__field_id(&s->islands, f))
            GAMEPLAY_LOG(CT_LOG_WARNING,
                         "Islands.load_script: field '%s' is not a name or the table is full", f);
    }
    lua_pop(L, 1);
    close_workers(s);
    memcpy(s->workers, made, sizeof made);
    s->num_workers = n;
    for (uint32_t i = 0; i < n; i++)
        atomic_flag_clear(&s->worker_busy[i]);
    snprintf(s->script, sizeof s->script, "%s", name);
    uint32_t handlers = 0;
    lua_getglobal(L, "_G");
    lua_getmetatable(L, -1);
    lua_getfield(L, -1, "__index"); /* the frozen globals */
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (key && !strncmp(key, "on_", 3) && lua_isfunction(L, -1)) {
            const uint32_t id = islands__handler_id(&s->islands, key + 3, lua_handler, NULL);
            if (id) {
                s->islands.handlers[id - 1].user_data = (void *)(uintptr_t)(id - 1);
                s->lua_handler[id - 1] = 1;
                handlers++;
            } else {
                GAMEPLAY_LOG(CT_LOG_WARNING,
                             "Islands.load_script: handler '%s' is not a name (1..31 of a-z 0-9 _)",
                             key);
            }
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 3);
    GAMEPLAY_LOG(CT_LOG_INFO, "islands: %s loaded into %u worker states, %u handlers", name, n,
                 handlers);
    return 0;
}

/* ---- the main state ------------------------------------------------------------------------ */

static ct_entity_t main_entity(lua_State *L, int idx)
{
    const double v = L_API->check_number(L, idx);
    if (!(v >= 1 && v <= (double)UINT32_MAX && v == (double)(uint32_t)v))
        L_API->error(L, "argument %d is not an entity", idx);
    return (ct_entity_t){(uint32_t)v};
}

static void lua_effect(void *user_data, ct_entity_t target, const double *args, uint32_t n)
{
    gameplay__state *s = gameplay__m.state;
    lua_State *L = L_API->main_state();
    L_API->push_ref(L, s->effect_ref[(uint32_t)(uintptr_t)user_data]);
    if (target.id)
        L_API->push_number(L, target.id);
    else
        L_API->push_nil(L);
    for (uint32_t i = 0; i < n; i++)
        L_API->push_number(L, args[i]);
    L_API->pcall(L, (int)n + 1, 0);
}

static int l_on_effect(lua_State *L)
{
    gameplay__state *s = gameplay__m.state;
    const char *name = L_API->check_string(L, 1, NULL);
    if (L_API->type(L, 2) != CT_LUA_FUNCTION)
        return L_API->error(L, "Islands.on_effect: argument 2 is a function");
    const uint32_t had = islands__find_effect(&s->islands, name);
    const uint32_t id = islands__effect_id(&s->islands, name, lua_effect, NULL);
    if (!id)
        return L_API->error(
            L, "Islands.on_effect: '%s' is not a name (1..31 of a-z 0-9 _) or there are 256", name);
    if (had && s->effect_ref[id - 1] != CT_LUA_NOREF)
        L_API->unref(L, s->effect_ref[id - 1]);
    s->effect_ref[id - 1] = L_API->ref(L, 2);
    s->islands.effects[id - 1].user_data = (void *)(uintptr_t)(id - 1);
    s->lua_effect[id - 1] = 1;
    return 0;
}

static int l_post(lua_State *L)
{
    gameplay__state *s = gameplay__m.state;
    const char *name = L_API->check_string(L, 1, NULL);
    ct_island_event_t e = {0};
    for (uint32_t i = 0; i < s->islands.num_handlers && !e.type; i++)
        if (!strcmp(s->islands.handlers[i].name, name))
            e.type = i + 1;
    if (!e.type)
        return L_API->error(
            L, "Islands.post: no handler for '%s' (on_%s in the script of Islands.load_script)",
            name, name);
    if (L_API->type(L, 2) != CT_LUA_TABLE)
        return L_API->error(L, "Islands.post: argument 2 is a list of 1..%u entities",
                            CT_ISLAND_MAX_ENTITIES);
    const size_t n = L_API->length(L, 2);
    if (n == 0 || n > CT_ISLAND_MAX_ENTITIES)
        return L_API->error(L, "Islands.post: %zu entities (1..%u)", n, CT_ISLAND_MAX_ENTITIES);
    e.num_entities = (uint32_t)n;
    for (uint32_t i = 0; i < n; i++) {
        L_API->get_index(L, 2, (int)i + 1);
        e.entities[i] = main_entity(L, -1);
        L_API->set_top(L, -2);
    }
    for (uint32_t i = 0; i < CT_ISLAND_MAX_ARGS; i++)
        e.args[i] = L_API->opt_number(L, 3 + (int)i, 0.0);
    if (gameplay__islands_api_v1.post(&e))
        return L_API->error(L, "Islands.post('%s'): refused (the log says why)", name);
    return 0;
}

/* The id of handler `name` at idx, or 0 for nil; raises for an unknown name. */
static uint32_t opt_handler(lua_State *L, int idx)
{
    if (L_API->type(L, idx) == CT_LUA_NONE || L_API->type(L, idx) == CT_LUA_NIL)
        return 0;
    const char *name = L_API->check_string(L, idx, NULL);
    const islands__t *sys = &gameplay__m.state->islands;
    for (uint32_t i = 0; i < sys->num_handlers; i++)
        if (!strcmp(sys->handlers[i].name, name))
            return i + 1;
    return (uint32_t)L_API->error(L,
                                  "Islands.contacts: no handler for '%s' (on_%s in the script of "
                                  "Islands.load_script)",
                                  name, name);
}

static int l_contacts(lua_State *L)
{
    ct_world_o *world =
        L_API->type(L, 1) == CT_LUA_LIGHTUSERDATA ? L_API->to_light_userdata(L, 1) : NULL;
    if (!world)
        return L_API->error(L, "Islands.contacts: argument 1 is not a world");
    const uint32_t collision = opt_handler(L, 2), ended = opt_handler(L, 3);
    const int r = gameplay__islands_api_v1.join_contacts(world, collision, ended);
    if (r)
        return L_API->error(L, "Islands.contacts: refused: %s (the log says why)",
                            gameplay__m.log->error_message(r));
    return 0;
}

static int l_shared(lua_State *L)
{
    gameplay__islands_api_v1.set_shared(main_entity(L, 1), L_API->type(L, 2) == CT_LUA_NONE ||
                                                               L_API->to_boolean(L, 2));
    return 0;
}

static void set_stat(lua_State *L, const char *key, double v)
{
    L_API->push_number(L, v);
    L_API->set_field(L, -2, key);
}

static int l_run(lua_State *L)
{
    const double mode = L_API->opt_number(L, 1, CT_ISLANDS_PARALLEL);
    if (!(mode == CT_ISLANDS_PARALLEL || mode == CT_ISLANDS_ONE_THREAD ||
          mode == CT_ISLANDS_SERIAL))
        return L_API->error(
            L, "Islands.run: mode %g is not 0 (parallel), 1 (one thread) or 2 (serial)", mode);
    ct_island_stats_t st;
    if (gameplay__islands_api_v1.run((uint32_t)mode, &st))
        return L_API->error(L, "Islands.run: out of memory");
    L_API->new_table(L, 0, 11);
    set_stat(L, "events", st.events), set_stat(L, "islands", st.islands),
        set_stat(L, "largest", st.largest);
    set_stat(L, "shared_only", st.shared_only), set_stat(L, "effects", st.effects);
    set_stat(L, "refused", st.refused), set_stat(L, "errors", st.errors),
        set_stat(L, "threads", st.threads);
    set_stat(L, "build_ms", st.build_ms), set_stat(L, "run_ms", st.run_ms),
        set_stat(L, "apply_ms", st.apply_ms);
    return 1;
}

static uint32_t main_field(lua_State *L, int idx, bool make)
{
    const char *name = L_API->check_string(L, idx, NULL);
    islands__t *sys = &gameplay__m.state->islands;
    const uint32_t f = make ? islands__field_id(sys, name) : islands__find_field(sys, name);
    if (!f && make)
        L_API->error(L, "Islands: field '%s' is not a name (1..31 of a-z 0-9 _) or there are %u",
                     name, CT_ISLAND_MAX_FIELDS);
    return f;
}

static int l_get(lua_State *L)
{
    const ct_entity_t e = main_entity(L, 1);
    const uint32_t f = main_field(L, 2, false);
    L_API->push_number(L, f ? gameplay__islands_api_v1.value(e, f) : 0.0);
    return 1;
}

static int l_set(lua_State *L)
{
    const ct_entity_t e = main_entity(L, 1);
    const uint32_t f = main_field(L, 2, true);
    gameplay__islands_api_v1.set_value(e, f, L_API->check_number(L, 3));
    return 0;
}

static int l_load_script(lua_State *L) { return load_script(L, L_API->check_string(L, 1, NULL)); }

void gameplay__register_islands_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"post", l_post},
        {"shared", l_shared},
        {"run", l_run},
        {"on_effect", l_on_effect},
        {"get", l_get},
        {"set", l_set},
        {"load_script", l_load_script},
        {"contacts", l_contacts},
    };
    L_API->register_module("Islands", fns, sizeof fns / sizeof fns[0]);
}

void gameplay__rebind_islands(void)
{
    gameplay__state *s = gameplay__m.state;
    for (uint32_t i = 0; i < s->islands.num_handlers; i++)
        if (s->lua_handler[i])
            s->islands.handlers[i].fn = lua_handler;
    for (uint32_t i = 0; i < s->islands.num_effects; i++)
        if (s->lua_effect[i])
            s->islands.effects[i].fn = lua_effect;
    for (uint32_t i = 0; i < s->num_workers; i++)
        register_worker_functions(s->workers[i]);
}

void gameplay__stop_islands(void)
{
    gameplay__state *s = gameplay__m.state;
    lua_State *L = L_API->main_state();
    for (uint32_t i = 0; i < s->islands.num_effects; i++)
        if (s->lua_effect[i] && s->effect_ref[i] != CT_LUA_NOREF && L)
            L_API->unref(L, s->effect_ref[i]);
    close_workers(s);
    islands__free(&s->islands);
}
