/*
 * ct_gameplay.so: the plugin entry, the game clock (the ct.clock v1 table) and the frame: at
 * frame_begin the clock advances, then the timers that fell due run (api/ct_gameplay.h).
 */
#include "gameplay_internal.h"

#include "ct_module.h"
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

static void frame_begin(void *ctx, double dt)
{
    (void)ctx;
    gameplay__clock *c = &gameplay__m.state->clock;
    c->real_dt = dt;
    c->dt = c->paused ? 0.0 : dt * c->scale;
    c->time += c->dt;
    c->frame++;
    gameplay__run_timers();
}

static int start(void)
{
    gameplay__m.state->clock.scale = 1.0;
    gameplay__register_lua();
    return gameplay__lua_init();
}

static int rebind(void)
{
    gameplay__register_lua();
    return 0;
}

static const ct_api_ref_t provides[] = {
    {CT_CLOCK_API, 1, sizeof(ct_clock_api_v1), 0, "ct.clock"},
};

static const ct_api_need_t requires[] = {
    {CT_LOG_API, 1, 0, 0, "ct.log"},
    {CT_MEMORY_API, 1, 0, 0, "ct.memory"},
    {CT_LUA_API, 2, 0, 0, "ct.lua"},
    {CT_JOBS_API, 1, 0, CT_API_OPTIONAL, "ct.jobs"},
};

static void *const api_slots[] = {&gameplay__m.log, NULL, &gameplay__m.lua, &gameplay__m.jobs};

static const ct_module_v2_t module = {
    .plugin = {CT_MODULE_V2_HOOKS, .name = "ct.gameplay", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
               .required = requires, .num_required = CT_ARRAY_COUNT(requires),
               .frame_begin = frame_begin},
    .module = {.api_slots = api_slots, .num_api_slots = CT_ARRAY_COUNT(api_slots),
               .self = &gameplay__m.self, .allocator = &gameplay__m.allocator,
               .state = &gameplay__m.state, .state_size = sizeof(gameplay__state),
               .layout_version = GAMEPLAY_LAYOUT_VERSION, .start = start, .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_CLOCK_API, 1, &gameplay__clock_api_v1}};
    return ct_module_v2_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
