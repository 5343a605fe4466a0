/*
 * ct_gameplay.so: the plugin entry, the game clock (the ct.clock v1 table) and the frame: at
 * frame_begin the clock advances, then the timers that fell due run (api/ct_gameplay.h).
 */
#include "gameplay_internal.h"

#include "ct_module.h"
#include "ct_entity.h"
#include "ct_plugin.h"

#include <math.h>

gameplay__module gameplay__m;

static double c_dt(void) { return gameplay__m.state->clock.dt; }
static double c_time(void) { return gameplay__m.state->clock.time; }
static double c_real_dt(void) { return gameplay__m.state->clock.real_dt; }
static uint64_t c_frame(void) { return gameplay__m.state->clock.frame; }
static void c_set_paused(uint32_t paused) { gameplay__m.state->clock.paused = paused != 0; }
static uint32_t c_paused(void) { return gameplay__m.state->clock.paused; }
static double c_scale(void) { return gameplay__m.state->clock.scale; }

static void c_set_scale(double scale)
{
    if (!(scale >= 0.0 && scale <= 100.0)) {
        GAMEPLAY_LOG(CT_LOG_WARNING, "clock: a scale is 0..100, not %g; kept %g", scale, gameplay__m.state->clock.scale);
        return;
    }
    gameplay__m.state->clock.scale = scale;
}

const ct_clock_api_v1 gameplay__clock_api_v1 = {
    c_dt, c_time, c_real_dt, c_frame, c_set_paused, c_paused, c_set_scale, c_scale,
};

/* ---- ct.islands: the core with the checks and logging of an API ------------------------------ */

#define ISL (&gameplay__m.state->islands)

static uint32_t i_handler(const char *name, ct_island_handler_f fn, void *user_data)
{
    const uint32_t id = islands__handler_id(ISL, name, fn, user_data);
    if (!id)
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: handler '%s' refused (a name is 1..31 of a-z 0-9 _, at most %u)",
                     name ? name : "(null)", ISLANDS_MAX_NAMES);
    else
        gameplay__m.state->lua_handler[id - 1] = 0;
    return id;
}

static uint32_t i_effect(const char *name, ct_island_effect_f fn, void *user_data)
{
    const uint32_t id = islands__effect_id(ISL, name, fn, user_data);
    if (!id)
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: effect '%s' refused (a name is 1..31 of a-z 0-9 _, at most %u)",
                     name ? name : "(null)", ISLANDS_MAX_NAMES);
    else
        gameplay__m.state->lua_effect[id - 1] = 0;
    return id;
}

static uint32_t i_field(const char *name) { return islands__field_id(ISL, name); }

static void i_set_shared(ct_entity_t e, uint32_t shared)
{
    if (islands__set_shared(ISL, e, shared != 0))
        GAMEPLAY_LOG(CT_LOG_ERROR, "islands: set_shared(%u): out of memory", e.id);
}

static int i_post(const ct_island_event_t *event)
{
    char err[160];
    for (uint32_t i = 0; event && gameplay__m.entity && i < event->num_entities && i < CT_ISLAND_MAX_ENTITIES; i++)
        if (!gameplay__m.entity->alive(event->entities[i])) {
            GAMEPLAY_LOG(CT_LOG_WARNING, "islands: post: entity %u is not alive; event refused", event->entities[i].id);
            return CT_ERR_INVALID;
        }
    const int r = islands__post(ISL, event, err, sizeof err);
    if (r == CT_ERR_INVALID)
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: post: %s; event refused", err);
    return r;
}

static void parallel(void *jobs, uint32_t count, ct_range_f fn, void *user_data)
{
    ((const ct_jobs_api_v1 *)jobs)->parallel_for(count, 1, fn, user_data);
}

static int i_run(uint32_t mode, ct_island_stats_t *stats)
{
    ct_island_stats_t st;
    const ct_jobs_api_v1 *jobs = gameplay__m.jobs;
    ISL->profiler = gameplay__m.profiler;
    const int r = islands__run(ISL, mode, jobs ? parallel : NULL, (void *)jobs, jobs ? jobs->thread_count() : 1, &st);
    if (!r && (st.refused || st.errors))
        GAMEPLAY_LOG(CT_LOG_ERROR, "islands: %u refused, %u failed; the first: %s", st.refused, st.errors, ISL->note);
    if (stats)
        *stats = st;
    return r;
}

static double i_value(ct_entity_t e, uint32_t field) { return islands__value(ISL, e, field); }

static void i_set_value(ct_entity_t e, uint32_t field, double value)
{
    if (islands__set_value(ISL, e, field, value))
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: set_value(%u, %u): a bad field or out of memory", e.id, field);
}

const ct_islands_api_v1 gameplay__islands_api_v1 = {
    i_handler, i_effect, i_field, i_set_shared, i_post, i_run,
    islands__get, islands__set, islands__emit, i_value, i_set_value,
};

static void frame_begin(void *ctx, double dt)
{
    (void)ctx;
    gameplay__clock *c = &gameplay__m.state->clock;
    c->real_dt = dt;
    c->dt = c->paused ? 0.0 : dt * c->scale;
    c->time += c->dt;
    c->frame++;
    ct_profile_scope_t scope = ct_profile_scope_begin(gameplay__m.profiler, "gameplay.timers");
    gameplay__run_timers();
    ct_profile_scope_end(&scope);
}

static int start(void)
{
    gameplay__state *s = gameplay__m.state;
    s->clock.scale = 1.0;
    islands__init(&s->islands, gameplay__m.allocator);
    for (uint32_t i = 0; i < ISLANDS_MAX_NAMES; i++)
        s->effect_ref[i] = CT_LUA_NOREF;
    gameplay__register_lua();
    gameplay__register_islands_lua();
    return gameplay__lua_init();
}

static void stop(void) { gameplay__stop_islands(); }

static int rebind(void)
{
    gameplay__register_lua();
    gameplay__register_islands_lua();
    gameplay__rebind_islands();
    return 0;
}

static const ct_api_ref_t provides[] = {
    {CT_CLOCK_API, 1, sizeof(ct_clock_api_v1), 0, "ct.clock"},
    {CT_ISLANDS_API, 1, sizeof(ct_islands_api_v1), 0, "ct.islands"},
};

static const ct_api_need_t requires[] = {
    {CT_LOG_API, 1, 0, 0, "ct.log"},
    {CT_MEMORY_API, 1, 0, 0, "ct.memory"},
    {CT_LUA_API, 2, 0, 0, "ct.lua"},
    {CT_JOBS_API, 1, 0, CT_API_OPTIONAL, "ct.jobs"},
    {CT_HOST_API, 1, 0, CT_API_OPTIONAL, "ct.host"},
    {CT_ENTITY_API, 1, 0, CT_API_OPTIONAL, "ct.entity"},
    {CT_PROFILER_API, 1, 0, CT_API_OPTIONAL, "ct.profiler"},
};

static void *const api_slots[] = {&gameplay__m.log,  NULL,           &gameplay__m.lua,    &gameplay__m.jobs,
                                  &gameplay__m.host, &gameplay__m.entity, &gameplay__m.profiler};

static const ct_module_v2_t module = {
    .plugin = {CT_MODULE_V2_HOOKS, .name = "ct.gameplay", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
               .required = requires, .num_required = CT_ARRAY_COUNT(requires),
               .frame_begin = frame_begin},
    .module = {.api_slots = api_slots, .num_api_slots = CT_ARRAY_COUNT(api_slots),
               .self = &gameplay__m.self, .allocator = &gameplay__m.allocator,
               .state = &gameplay__m.state, .state_size = sizeof(gameplay__state),
               .layout_version = GAMEPLAY_LAYOUT_VERSION, .start = start, .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_CLOCK_API, 1, &gameplay__clock_api_v1},
                                            {CT_ISLANDS_API, 1, &gameplay__islands_api_v1}};
    return ct_module_v2_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
