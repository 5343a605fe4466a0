/*
 * The particles module: the API table, the module's hooks and the effect and component types it
 * registers (see api/ct_particles.h). It requires ct.expr, which runs every per-particle
 * expression.
 */
#include "ct_data.h"
#include "ct_module.h"
#include "ct_profiler.h"
#include "particles_internal.h"
#include "particles_layout.h"

particles_module_t particles__m;

static ct_particle_emitter_t api_spawn(ct_world_o *world, const char *effect, const float pos[3])
{
    particles_world_t *w = particles__world(world);
    if (!w || !effect || !pos)
        return (ct_particle_emitter_t){0};
    return particles__spawn(w, effect, pos, (ct_entity_t){0});
}

static void api_stop(ct_world_o *world, ct_particle_emitter_t e)
{
    particles_emitter_t *em = particles__find(particles__world(world), e);
    if (em)
        em->emitting = false;
}

static void api_destroy(ct_world_o *world, ct_particle_emitter_t e)
{
    particles_world_t *w = particles__world(world);
    particles_emitter_t *em = particles__find(w, e);
    if (!em)
        return;
    if (em->entity.id)
        particles__m.resource->unload("particles", em->effect);
    particles__destroy(w, em);
}

static void api_move(ct_world_o *world, ct_particle_emitter_t e, const float pos[3])
{
    particles_emitter_t *em = particles__find(particles__world(world), e);
    if (em && pos)
        memcpy(em->pos, pos, sizeof em->pos);
}

static void api_simulate(ct_world_o *world, float dt)
{
    particles_world_t *w = particles__world(world);
    if (!w || !(dt > 0.0f && dt <= 1.0f)) {
        particles__m.log->write(particles__m.self, CT_LOG_ERROR, "particles: simulate: %s",
                                w ? "dt must be in (0, 1]" : "no world");
        return;
    }
    ct_profile_scope_t scope = ct_profile_scope_begin(particles__m.profiler, "particles.simulate");
    particles__simulate(w, dt);
    ct_profile_scope_end(&scope);
}

static uint32_t api_count(ct_world_o *world, ct_particle_emitter_t e)
{
    particles_world_t *w = particles__world(world);
    if (!w)
        return 0;
    if (e.id) {
        const particles_emitter_t *em = particles__find(w, e);
        return em ? em->count : 0;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->num_emitters; i++)
        n += w->emitters[i].count;
    return n;
}

static bool api_view(ct_world_o *world, ct_particle_emitter_t e, ct_particles_view_t *out)
{
    const particles_emitter_t *em = particles__find(particles__world(world), e);
    if (!em || !out)
        return false;
    const float *a = em->arrays;
    const size_t c = em->capacity;
    *out = (ct_particles_view_t){em->count,         a + IN_PX * c, a + IN_PY * c, a + IN_PZ * c,
                                 a + IN_VX * c,     a + IN_VY * c, a + IN_VZ * c, a + ARR_SIZE * c,
                                 a + ARR_ALPHA * c, {1, 1, 1, 1}};
    const particles_effect_t *fx = particles__effect(em->effect);
    if (fx)
        memcpy(out->color, fx->color, sizeof out->color);
    return true;
}

static uint32_t api_emitters(ct_world_o *world, ct_particle_emitter_t *out, uint32_t max)
{
    particles_world_t *w = particles__world(world);
    if (!w)
        return 0;
    for (uint32_t i = 0; i < w->num_emitters && i < max && out; i++)
        out[i] = (ct_particle_emitter_t){w->emitters[i].id};
    return w->num_emitters;
}

static const ct_particles_api_v1 api_v1 = {
    api_spawn, api_stop, api_destroy, api_move, api_simulate, api_count, api_view, api_emitters,
};

/* ---- plugin ------------------------------------------------------------------------------- */

static int start(void)
{
    int r = particles__register_effects();
    if (r < 0)
        return r;
    if ((r = particles__register_component()) < 0) {
        particles__unregister_effects();
        return r;
    }
    particles__register_lua();
    return 0;
}

static void stop(void)
{
    particles__unregister_component();
    particles__unregister_effects();
}

/* A reload points the Lua functions, the component type and the effect type at the new code;
 * worlds' emitters stay where they are (the state layout is checked by the helpers). */
static int rebind(void)
{
    particles__register_lua();
    if (particles__register_effects() < 0)
        return CT_ERR_VERSION;
    return particles__rebind_component() ? 0 : CT_ERR_VERSION;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.particles", 1, ct_particles_api_v1),
};

static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &particles__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 1, &particles__m.lua),
    CT_MODULE_API(jobs, 1, &particles__m.jobs),
    CT_MODULE_API(resource, 6, &particles__m.resource),
    CT_MODULE_API(data, 1, &particles__m.data),
    CT_MODULE_API(component, 2, &particles__m.component),
    CT_MODULE_API(expr, 1, &particles__m.expr),
    CT_MODULE_API_OPTIONAL(transform, 2, &particles__m.transform),
    CT_MODULE_API_OPTIONAL(profiler, 1, &particles__m.profiler),
};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.particles", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &particles__m.self,
               .allocator = &particles__m.allocator,
               .state = &particles__m.state,
               .state_size = sizeof(particles_state_t),
               .layout_version = PARTICLES_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_PARTICLES_API, 1, &api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
