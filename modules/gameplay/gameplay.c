/*
 * ct_gameplay.so: the plugin entry, the game clock (the ct.clock v1 table) and the frame: at
 * frame_begin the clock advances, then the timers that fell due run (api/ct_gameplay.h).
 */
#include "gameplay_internal.h"
#include "gameplay_layout.h"

#include "ct_module.h"
#include "ct_entity.h"
#include "ct_physics.h"
#include "ct_plugin.h"
#include "ct_world.h"

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
        GAMEPLAY_LOG(CT_LOG_WARNING, "clock: a scale is 0..100, not %g; kept %g", scale,
                     gameplay__m.state->clock.scale);
        return;
    }
    gameplay__m.state->clock.scale = scale;
}

const ct_clock_api_v1 gameplay__clock_api_v1 = {
    .dt = c_dt,
    .time = c_time,
    .real_dt = c_real_dt,
    .frame = c_frame,
    .set_paused = c_set_paused,
    .paused = c_paused,
    .set_scale = c_set_scale,
    .scale = c_scale,
};

/* ---- ct.islands: the core with the checks and logging of an API ------------------------------ */

#define ISL (&gameplay__m.state->islands)

static uint32_t i_handler(const char *name, ct_island_handler_f fn, void *user_data)
{
    const uint32_t id = islands__handler_id(ISL, name, fn, user_data);
    if (!id)
        GAMEPLAY_LOG(CT_LOG_WARNING,
                     "islands: handler '%s' refused (a name is 1..31 of a-z 0-9 _, at most %u)",
                     name ? name : "(null)", ISLANDS_MAX_NAMES);
    else
        gameplay__m.state->lua_handler[id - 1] = 0;
    return id;
}

static uint32_t i_effect(const char *name, ct_island_effect_f fn, void *user_data)
{
    const uint32_t id = islands__effect_id(ISL, name, fn, user_data);
    if (!id)
        GAMEPLAY_LOG(CT_LOG_WARNING,
                     "islands: effect '%s' refused (a name is 1..31 of a-z 0-9 _, at most %u)",
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
    for (uint32_t i = 0;
         event && gameplay__m.entity && i < event->num_entities && i < CT_ISLAND_MAX_ENTITIES; i++)
        if (!gameplay__m.entity->alive(event->entities[i])) {
            GAMEPLAY_LOG(CT_LOG_WARNING, "islands: post: entity %u is not alive; event refused",
                         event->entities[i].id);
            return CT_ERR_INVALID;
        }
    const int r = islands__post(ISL, event, err, sizeof err);
    if (r == CT_ERR_INVALID)
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: post: %s; event refused", err);
    return r;
}

/* Whether `world` is one of the live worlds (a pointer from a script may be anything). */
static bool world_alive(const ct_world_o *world)
{
    for (uint32_t i = 0; i < gameplay__m.world->world_count(); i++)
        if (gameplay__m.world->world_at(i) == world)
            return true;
    return false;
}

static int i_join_contacts(ct_world_o *world, uint32_t collision, uint32_t ended)
{
    if (!gameplay__m.physics || !gameplay__m.world) {
        GAMEPLAY_LOG(
            CT_LOG_ERROR,
            "islands: join_contacts needs ct.physics v2 and ct.world v2 (load ct.physics)");
        return CT_ERR_MISSING_API;
    }
    if (!world_alive(world)) {
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: join_contacts: %p is not a live world",
                     (void *)world);
        return CT_ERR_INVALID;
    }
    const int r = islands__join_contacts(ISL, world, collision, ended);
    if (r == CT_ERR_INVALID)
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: join_contacts: no handler has id %u",
                     collision > ended ? collision : ended);
    else if (r == CT_ERR_FULL)
        GAMEPLAY_LOG(CT_LOG_WARNING,
                     "islands: join_contacts: the contacts of %u worlds are joined already",
                     ISLANDS_MAX_CONTACT_WORLDS);
    return r;
}

static bool entity_alive(ct_entity_t e) { return gameplay__m.entity->alive(e); }

/* Posts the contacts of every joined world's last step (join_contacts). */
static void post_contacts(void)
{
    for (uint32_t i = 0; i < ISL->num_contacts; i++) {
        islands__contacts *c = &ISL->contacts[i];
        uint32_t size = 0;
        const void *stream = gameplay__m.physics->events(c->world, &size);
        if (islands__post_contacts(ISL, c, stream, size, gameplay__m.entity ? entity_alive : NULL) <
            0)
            GAMEPLAY_LOG(
                CT_LOG_ERROR,
                "islands: out of memory posting the contacts of world %p; the next run tries again",
                (void *)c->world);
    }
}

/* A destroyed world's contacts are no longer joined (its stream goes with it). */
static void world_event(void *ctx, ct_world_o *world, uint32_t event)
{
    (void)ctx;
    if (event == CT_WORLD_DESTROYED)
        islands__join_contacts(ISL, world, 0, 0);
}

static void listen_to_worlds(void)
{
    if (gameplay__m.world && gameplay__m.world->add_world_listener(world_event, NULL))
        GAMEPLAY_LOG(CT_LOG_ERROR,
                     "islands: out of memory listening to worlds; destroy no joined world");
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
    if (ISL->num_contacts && !ISL->running)
        post_contacts();
    const int r = islands__run(ISL, mode, jobs ? parallel : NULL, (void *)jobs,
                               jobs ? jobs->thread_count() : 1, &st);
    if (!r && (st.refused || st.errors))
        GAMEPLAY_LOG(CT_LOG_ERROR, "islands: %u refused, %u failed; the first: %s", st.refused,
                     st.errors, ISL->note);
    if (stats)
        *stats = st;
    return r;
}

static double i_value(ct_entity_t e, uint32_t field) { return islands__value(ISL, e, field); }

static void i_set_value(ct_entity_t e, uint32_t field, double value)
{
    if (islands__set_value(ISL, e, field, value))
        GAMEPLAY_LOG(CT_LOG_WARNING, "islands: set_value(%u, %u): a bad field or out of memory",
                     e.id, field);
}

const ct_islands_api_v1 gameplay__islands_api_v1 = {
    .handler = i_handler,
    .effect = i_effect,
    .field = i_field,
    .set_shared = i_set_shared,
    .post = i_post,
    .run = i_run,
    .get = islands__get,
    .set = islands__set,
    .emit = islands__emit,
    .value = i_value,
    .set_value = i_set_value,
    .join_contacts = i_join_contacts,
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
    listen_to_worlds();
    return gameplay__lua_init();
}

static void stop(void)
{
    /* The state block goes at shutdown, while worlds may still be destroyed after. */
    if (gameplay__m.world)
        gameplay__m.world->remove_world_listener(world_event, NULL);
    gameplay__stop_islands();
}

static int rebind(void)
{
    gameplay__register_lua();
    gameplay__register_islands_lua();
    gameplay__rebind_islands();
    listen_to_worlds(); /* the old code's listener went with it */
    return 0;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.clock", 1, ct_clock_api_v1),
    CT_API_PROVIDE("ct.islands", 1, ct_islands_api_v1),
};

/* Each API with the slot it fills, whose type the compiler checks. */
static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &gameplay__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 2, &gameplay__m.lua),
    CT_MODULE_API_OPTIONAL(jobs, 1, &gameplay__m.jobs),
    CT_MODULE_API_OPTIONAL(host, 1, &gameplay__m.host),
    CT_MODULE_API_OPTIONAL(entity, 1, &gameplay__m.entity),
    CT_MODULE_API_OPTIONAL(profiler, 1, &gameplay__m.profiler),
    CT_MODULE_API_OPTIONAL(physics, 2, &gameplay__m.physics),
    CT_MODULE_API_OPTIONAL(world, 2, &gameplay__m.world),
};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.gameplay", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
               .frame_begin = frame_begin},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &gameplay__m.self,
               .allocator = &gameplay__m.allocator,
               .state = &gameplay__m.state,
               .state_size = sizeof(gameplay__state),
               .layout_version = GAMEPLAY_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_CLOCK_API, 1, &gameplay__clock_api_v1},
                                            {CT_ISLANDS_API, 1, &gameplay__islands_api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
