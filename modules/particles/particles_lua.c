/* The Lua module "Particles" (see ct_particles.h). Worlds are light userdata, emitters numbers;
 * bad arguments raise through modules/common/lua_checks.h, naming the function and the argument. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "particles_internal.h"

#include "../common/lua_checks.h"

#define L_API (particles__m.lua)

/* The world at argument 1, which must hold the particles component's manager. */
static particles_world_t *arg_world(lua_State *L, const char *fn)
{
    particles_world_t *w = particles__world(check__world(L_API, L, 1, fn, NULL));
    if (!w)
        L_API->error(L, "%s: argument 1 is not a world with particles (destroyed already?)", fn);
    return w;
}

/* The emitter at argument 2: a whole number naming a live emitter of w. */
static particles_emitter_t *arg_emitter(lua_State *L, particles_world_t *w, const char *fn)
{
    const double id = check__number(L_API, L, 2, fn);
    particles_emitter_t *em = NULL;
    if (id >= 1 && id <= UINT32_MAX && id == floor(id))
        em = particles__find(w, (ct_particle_emitter_t){(uint32_t)id});
    if (!em)
        check__fail(L_API, L, 2, fn, "is not an emitter of this world");
    return em;
}

/* Three numbers from idx: a position within 1e9 of the origin. */
static void arg_pos(lua_State *L, int idx, float pos[3], const char *fn)
{
    for (int k = 0; k < 3; k++)
        pos[k] = (float)check__range(L_API, L, idx + k, fn, -1e9, 1e9);
}

/* Particles.spawn(world, effect, x, y, z) -> id */
static int l_particles_spawn(lua_State *L)
{
    static const char fn[] = "Particles.spawn";
    const ct_lua_api_v1 *lua = L_API;
    particles_world_t *w = arg_world(L, fn);
    if (lua->type(L, 2) != CT_LUA_STRING)
        check__fail(lua, L, 2, fn, "is not an effect name");
    const char *effect = lua->to_string(L, 2, NULL);
    float pos[3];
    arg_pos(L, 3, pos, fn);
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
    particles_world_t *w = arg_world(L, "Particles.stop");
    arg_emitter(L, w, "Particles.stop")->emitting = false;
    return 0;
}

static int l_particles_destroy(lua_State *L)
{
    particles_world_t *w = arg_world(L, "Particles.destroy");
    particles_emitter_t *em = arg_emitter(L, w, "Particles.destroy");
    if (em->entity.id)
        particles__m.resource->unload("particles", em->effect);
    particles__destroy(w, em);
    return 0;
}

static int l_particles_move(lua_State *L)
{
    particles_world_t *w = arg_world(L, "Particles.move");
    particles_emitter_t *em = arg_emitter(L, w, "Particles.move");
    float pos[3];
    arg_pos(L, 3, pos, "Particles.move"); /* all three checked before any is stored */
    memcpy(em->pos, pos, sizeof pos);
    return 0;
}

static int l_particles_simulate(lua_State *L)
{
    static const char fn[] = "Particles.simulate";
    particles_world_t *w = arg_world(L, fn);
    const double dt = check__number(L_API, L, 2, fn);
    if (!(dt > 0 && dt <= 1))
        return check__fail(L_API, L, 2, fn, "is not a time step in (0, 1]");
    particles__simulate(w, (float)dt);
    return 0;
}

static int l_particles_count(lua_State *L)
{
    particles_world_t *w = arg_world(L, "Particles.count");
    uint32_t n = 0;
    if (L_API->get_top(L) >= 2) {
        n = arg_emitter(L, w, "Particles.count")->count;
    } else {
        for (uint32_t i = 0; i < w->num_emitters; i++)
            n += w->emitters[i].count;
    }
    L_API->push_number(L, n);
    return 1;
}

/* Particles.particle(world, id, i) -> px, py, pz, vx, vy, vz, size, alpha */
static int l_particles_particle(lua_State *L)
{
    static const char fn[] = "Particles.particle";
    particles_world_t *w = arg_world(L, fn);
    particles_emitter_t *em = arg_emitter(L, w, fn);
    const double i = check__number(L_API, L, 3, fn);
    if (!(i >= 1 && i <= em->count && i == floor(i))) {
        char wanted[64];
        snprintf(wanted, sizeof wanted, "is not a particle index in 1..%u", em->count);
        return check__fail(L_API, L, 3, fn, wanted);
    }
    static const int arrays[] = {IN_PX, IN_PY, IN_PZ, IN_VX, IN_VY, IN_VZ, ARR_SIZE, ARR_ALPHA};
    for (int k = 0; k < 8; k++)
        L_API->push_number(L, em->arrays[(size_t)arrays[k] * em->capacity + (uint32_t)i - 1]);
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
    L_API->register_module("Particles", fns, CT_ARRAY_COUNT(fns));
}
