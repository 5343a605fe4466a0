/*
 * ct_particles.h: particle effects. Module "ct.particles" (ct_particles.so), API "ct.particles".
 * The first user of the expression language (ct_expr.h): a particle's motion, size and fading
 * are expressions an artist writes into the effect, evaluated for all of an emitter's particles
 * at once in lanes, split over ct.jobs.
 *
 * EFFECTS (resource type "particles", source *.particles, SJSON; compiled by cuttle-compile)
 *     max_particles = 4096        per emitter, 1..1048576 (the pool; spawning stops when full)
 *     rate = 200                  particles per second while emitting (0: bursts only)
 *     burst = 30                  particles at once when the emitter starts
 *     lifetime = 1.2              seconds a particle lives, > 0
 *     duration = 0                seconds the emitter emits at `rate` (0: until stopped)
 *     shape = "sphere"            where particles start around the emitter:
 *     radius = 0.2                  "point"; "sphere" (inside `radius`); "box" (inside
 *     extent = [0.5 0.1 0.5]        +-`extent`)
 *     color = [1 0.7 0.3 1]       linear RGBA, constant over a particle's life
 *     spawn = "vx = 2 * (rand(n) - 0.5); vy = 4; vz = 0"
 *         the starting velocity: outputs vx vy vz; inputs n (the particle's serial number in its
 *         emitter, 0, 1, 2, ...), t (the emitter's age) and x y z (where it starts)
 *     velocity = "vx = vx; vy = vy - 9.81 * dt; vz = vz * (1 - dt)"
 *         the velocity after a step: outputs vx vy vz
 *     size = "0.1 * (1 - life)"    output: the size (metres, the quad's side)
 *     alpha = "1 - life"           output: the opacity
 *   velocity, size and alpha read the particle: px py pz vx vy vz, age (seconds), life
 *   (age / lifetime, 0..1), n, and t (the emitter's age) and dt (the step). All four expressions
 *   are optional (default: spawn at rest, velocity unchanged, size 0.1, alpha 1) and compiled
 *   with the effect: a mistake fails the compile naming the file, the field and the place in
 *   the expression, with the expression and a caret:
 *       effects/sparks.particles: velocity: 1:9: unknown name 'vyy' (did you mean 'vy'?)
 *         vy = vyy - 9.81 * dt
 *              ^
 *   Unknown fields and wrong types fail too (with the nearest known field). The compiled blob
 *   holds the programs' bytecode (ct_expr_api_v1.save), verified again when it loads.
 *
 * HOT RELOAD: an effect in use follows its source (ct_resource_api_v5.watch_source): edit the
 *   .particles file while the engine runs and the next frames use the new expressions and
 *   numbers (a bigger or smaller max_particles resizes the pools, keeping what fits); a broken
 *   edit is reported and the old effect stays. The module itself reloads with --watch like the
 *   others (emitters and their particles are kept).
 *
 * A STEP (simulate), per emitter: ages advance and the dead are removed (swap with the last),
 *   new particles are emitted (the burst on the first step, then rate * dt, carried over),
 *   placed by the shape and given `spawn`'s velocity; then `velocity` runs over all particles,
 *   positions move by velocity * dt, and `size` and `alpha` run. Every evaluation is a batch
 *   (ct_expr_api_v1.eval_jobs), so a step gives the same bits on any number of threads, and the
 *   same seed (the effect's name) gives the same particles every run.
 *
 * COMPONENT "particle_emitter" (under `components` of an entity in a level or unit):
 *     particle_emitter = { effect = "effects/smoke" }
 *   starts an emitter at the entity's world position (it follows the entity's transform when
 *   there is one) and destroys it with the entity. The effect resource loads with the level.
 *
 * LUA (module Particles; worlds are light userdata):
 *   Particles.spawn(world, effect, x, y, z) -> emitter id (loads the effect if needed)
 *   Particles.stop(world, id)       stops emitting; the particles live out their lives
 *   Particles.destroy(world, id)
 *   Particles.move(world, id, x, y, z)
 *   Particles.simulate(world, dt)
 *   Particles.count(world [, id])   live particles of one emitter, or of the world
 *   Particles.particle(world, id, i) -> px, py, pz, vx, vy, vz, size, alpha (i from 1)
 *   Bad arguments raise an error naming them.
 *
 * Threads: main thread, except what simulate hands to ct.jobs itself.
 */
#ifndef CT_PARTICLES_H
#define CT_PARTICLES_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_PARTICLES_API 0x18f2f3e2u /* "ct.particles" */
#define CT_PARTICLES_COMPONENT_NAME "particle_emitter"

typedef struct ct_world_o ct_world_o;

/* An emitter handle: 0 is none. Stale handles are refused (generation in the upper bits). */
typedef struct ct_particle_emitter_t {
    uint32_t id;
} ct_particle_emitter_t;

/* An emitter's live particles, structure of arrays (valid until the next simulate, spawn or
 * destroy in that world). */
typedef struct ct_particles_view_t {
    uint32_t count;            /* live particles: each array below is this long */
    const float *px, *py, *pz; /* positions */
    const float *vx, *vy, *vz; /* velocities */
    const float *size, *alpha;
    float color[4]; /* the effect's colour */
} ct_particles_view_t;

typedef struct ct_particles_api_v1 {
    /* Starts an emitter of the loaded "particles" resource `effect` at pos. {0} when the effect
     * is not loaded (logged) or memory runs out. */
    ct_particle_emitter_t (*spawn)(ct_world_o *world, const char *effect, const float pos[3]);
    /* Stops emitting; the emitter goes away by itself when its last particle dies. */
    void (*stop)(ct_world_o *world, ct_particle_emitter_t e);
    void (*destroy)(ct_world_o *world, ct_particle_emitter_t e);
    void (*move)(ct_world_o *world, ct_particle_emitter_t e, const float pos[3]);
    /* One step of every emitter of the world. dt in (0, 1]; others are refused (logged). */
    void (*simulate)(ct_world_o *world, float dt);
    /* Live particles of an emitter ({0}: of every emitter in the world). */
    uint32_t (*count)(ct_world_o *world, ct_particle_emitter_t e);
    /* The particles of an emitter; false for a stale handle. */
    bool (*view)(ct_world_o *world, ct_particle_emitter_t e, ct_particles_view_t *out);
    /* The emitters of a world, in order: writes up to max handles, returns how many there are. */
    uint32_t (*emitters)(ct_world_o *world, ct_particle_emitter_t *out, uint32_t max);
} ct_particles_api_v1;

#ifdef __cplusplus
}
#endif
#endif
