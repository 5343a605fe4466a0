/* The particles module's private contract: effects as loaded, emitters and their pools, the
 * per-world manager, and the module's state. */
#ifndef PARTICLES_INTERNAL_H
#define PARTICLES_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_expr.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_particles.h"
#include "ct_reload.h"
#include "ct_resource.h"
#include "ct_transform.h"

/* PARTICLES_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of particles_state_t, particles_world_t (each world's manager) and every struct they
 * reach (particles_layout.h, by tools/abi/layout_id.py): no number to bump. */

#define PARTICLES_EFFECT_FORMAT 1u
#define PARTICLES_MAX_POOL (1u << 20)
#define PARTICLES_NAME_BYTES 96u

enum { PARTICLES_SHAPE_POINT, PARTICLES_SHAPE_SPHERE, PARTICLES_SHAPE_BOX };

/* The four programs of an effect. */
enum { PROGRAM_SPAWN, PROGRAM_VELOCITY, PROGRAM_SIZE, PROGRAM_ALPHA, NUM_PROGRAMS };

/* The inputs of velocity, size and alpha, in this order (the pool's arrays follow it). */
enum { IN_PX, IN_PY, IN_PZ, IN_VX, IN_VY, IN_VZ, IN_AGE, IN_LIFE, IN_N, IN_T, IN_DT, NUM_INPUTS };
/* The pool's arrays: the inputs, then the outputs size and alpha. */
enum { ARR_SIZE = NUM_INPUTS, ARR_ALPHA, NUM_ARRAYS };

/* An effect as loaded: the compiled numbers and the programs (NULL where the effect has none). */
typedef struct particles_effect_t {
    uint32_t max_particles, burst, shape, seed;
    float rate, lifetime, duration, radius;
    float extent[3], color[4];
    ct_expr_program_o *program[NUM_PROGRAMS];
} particles_effect_t;

/* One emitter: its effect by name (looked up each step, so a reloaded effect takes over), where
 * it is, and its pool: NUM_ARRAYS arrays of `capacity` floats in one block. */
typedef struct particles_emitter_t {
    uint32_t id; /* index + 1 | generation << 20; 0 when the slot is free */
    char effect[PARTICLES_NAME_BYTES];
    ct_entity_t entity; /* followed when it has a transform; {0} for script emitters */
    float pos[3];
    float age, carry; /* carry: the fraction of a particle `rate` owes */
    bool emitting, started;
    uint32_t serial, count, capacity;
    float *arrays; /* NUM_ARRAYS * capacity */
} particles_emitter_t;

/* The manager of one world (the component type's manager). */
typedef struct particles_world_t {
    ct_world_o *world;
    ct_allocator_t *a;
    particles_emitter_t *emitters;
    uint32_t num_emitters, cap_emitters;
    uint32_t generation;
} particles_world_t;

typedef struct particles_state_t {
    ct_reload_header_t header;
    uint64_t type_id; /* the component type */
} particles_state_t;

typedef struct particles_module_t {
    const ct_log_api_v1 *log;
    const ct_lua_api_v1 *lua; /* what the bindings and lua_checks.h use */
    const ct_jobs_api_v1 *jobs;
    const ct_resource_api_v6 *resource; /* v6: reference */
    const ct_data_api_v1 *data;
    const ct_component_api_v2 *component;
    const ct_expr_api_v1 *expr;
    const ct_transform_api_v2 *transform;      /* optional */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_plugin_o *self;
    ct_allocator_t *allocator;
    particles_state_t *state;
} particles_module_t;

extern particles_module_t particles__m;

/* particles_effect.c */
int particles__register_effects(void);
void particles__unregister_effects(void);
const particles_effect_t *particles__effect(const char *name);

/* particles_sim.c */
particles_world_t *particles__world(ct_world_o *world);
ct_particle_emitter_t particles__spawn(particles_world_t *w, const char *effect, const float pos[3],
                                       ct_entity_t entity);
particles_emitter_t *particles__find(particles_world_t *w, ct_particle_emitter_t e);
void particles__destroy(particles_world_t *w, particles_emitter_t *em);
void particles__simulate(particles_world_t *w, float dt);
void particles__free_world(particles_world_t *w);

/* particles_component.c */
int particles__register_component(void);
void particles__unregister_component(void);
bool particles__rebind_component(void);

/* particles_lua.c */
void particles__register_lua(void);

#endif
