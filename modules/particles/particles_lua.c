/* The Lua module "Particles" (see ct_particles.h). Worlds are light userdata, emitters numbers. */
#include <math.h>

#include "particles_internal.h"

static particles_world_t *arg_world(lua_State *L, int idx)
{
    particles_world_t *w = particles__world(particles__m.lua->to_light_userdata(L, idx));
    if (!w)
        particles__m.lua->error(L, "Particles: argument %d is not a world", idx);
    return w;
}

static particles_emitter_t *arg_emitter(lua_State *L, particles_world_t *w, int idx)
{
    const double id = particles__m.lua->check_number(L, idx);
    particles_emitter_t *em = NULL;
    if (id >= 1 && id <= UINT32_MAX && id == floor(id))
        em = particles__find(w, (ct_particle_emitter_t){(uint32_t)id});
    if (!em)
        particles__m.lua->error(L, "Particles: argument %d (%g) is not an emitter of this world",
                                idx, id);
    return em;
}

static void arg_pos(lua_State *L, int idx, float pos[3])
{
    for (int k = 0; k < 3; k++) {
        const double v = particles__m.lua->check_number(L, idx + k);
        if (!(fabs(v) <= 1e9))
            particles__m.lua->error(L, "Particles: argument %d (%g) is not a position", idx + k, v);
        pos[k] = (float)v;
    }
}

/* Particles.spawn(world, effect, x, y, z) -> id */
static int l_particles_spawn(lua_State *L)
{
    const ct_lua_api_v2 *lua = particles__m.lua;
    particles_world_t *w = arg_world(L, 1);
    const char *effect = lua->check_string(L, 2, NULL);
    float pos[3];
    arg_pos(L, 3, pos);
    if (!particles__effect(effect) && particles__m.resource->load("particles", effect))
        return lua->error(L, "Particles.spawn: effect '%s' cannot be loaded", effect);
    const ct_particle_emitter_t e = particles__spawn(w, effect, pos, (ct_entity_t){0});
    if (!e.id)
        return lua->error(L, "Particles.spawn: no emitter for '%s' (out of memory)", effect);
    lua->push_number(L, e.id);
    return 1;
}

static int l_particles_stop(lua_State *L)
{
    particles_world_t *w = arg_world(L, 1);
    arg_emitter(L, w, 2)->emitting = false;
    return 0;
}

static int l_particles_destroy(lua_State *L)
{
    particles_world_t *w = arg_world(L, 1);
    particles_emitter_t *em = arg_emitter(L, w, 2);
    if (em->entity.id)
        particles__m.resource->unload("particles", em->effect);
    particles__destroy(w, em);
    return 0;
}

static int l_particles_move(lua_State *L)
{
    particles_world_t *w = arg_world(L, 1);
    particles_emitter_t *em = arg_emitter(L, w, 2);
    arg_pos(L, 3, em->pos);
    return 0;
}

static int l_particles_simulate(lua_State *L)
{
    particles_world_t *w = arg_world(L, 1);
    const double dt = particles__m.lua->check_number(L, 2);
    if (!(dt > 0 && dt <= 1))
        return particles__m.lua->error(L, "Particles.simulate: dt (%g) must be in (0, 1]", dt);
    particles__simulate(w, (float)dt);
    return 0;
}

static int l_particles_count(lua_State *L)
{
    particles_world_t *w = arg_world(L, 1);
    uint32_t n = 0;
    if (particles__m.lua->get_top(L) >= 2) {
        n = arg_emitter(L, w, 2)->count;
    } else {
        for (uint32_t i = 0; i < w->num_emitters; i++)
            n += w->emitters[i].count;
    }
    particles__m.lua->push_number(L, n);
    return 1;
}

/* Particles.particle(world, id, i) -> px, py, pz, vx, vy, vz, size, alpha */
static int l_particles_particle(lua_State *L)
{
    particles_world_t *w = arg_world(L, 1);
    particles_emitter_t *em = arg_emitter(L, w, 2);
    const double i = particles__m.lua->check_number(L, 3);
    if (!(i >= 1 && i <= em->count && i == floor(i)))
        return particles__m.lua->error(L, "Particles.particle: %g is not in 1..%u", i, em->count);
    static const int arrays[] = {IN_PX, IN_PY, IN_PZ, IN_VX, IN_VY, IN_VZ, ARR_SIZE, ARR_ALPHA};
    for (int k = 0; k < 8; k++)
        particles__m.lua->push_number(
            L, em->arrays[(size_t)arrays[k] * em->capacity + (uint32_t)i - 1]);
    return 8;
}

void particles__register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"spawn", l_particles_spawn},       {"stop", l_particles_stop},
        {"destroy", l_particles_destroy},   {"move", l_particles_move},
        {"simulate", l_particles_simulate}, {"count", l_particles_count},
        {"particle", l_particles_particle},
    };
    particles__m.lua->register_module("Particles", fns, CT_ARRAY_COUNT(fns));
}
