/*
 * Emitters and the step. A world's emitters are one packed array (few per world: a linear find
 * by id is cheaper than a map); each emitter's particles are NUM_ARRAYS float arrays of its
 * pool's size in one block, every per-particle expression a batch over them.
 */
#include <math.h>
#include <string.h>

#include "particles_internal.h"

particles_world_t *particles__world(ct_world_o *world)
{
    if (!world || !particles__m.state)
        return NULL;
    return particles__m.component->manager(world, particles__m.state->type_id);
}

particles_emitter_t *particles__find(particles_world_t *w, ct_particle_emitter_t e)
{
    if (!w || !e.id)
        return NULL;
    for (uint32_t i = 0; i < w->num_emitters; i++)
        if (w->emitters[i].id == e.id)
            return &w->emitters[i];
    return NULL;
}

static bool reserve_pool(particles_world_t *w, particles_emitter_t *em, uint32_t capacity)
{
    if (em->capacity == capacity)
        return true;
    const size_t bytes = (size_t)NUM_ARRAYS * capacity * sizeof(float);
    float *arrays = ct_alloc(w->a, bytes);
    if (!arrays)
        return false;
    const uint32_t keep = em->count < capacity ? em->count : capacity;
    for (uint32_t k = 0; k < NUM_ARRAYS && em->arrays; k++)
        memcpy(arrays + (size_t)k * capacity, em->arrays + (size_t)k * em->capacity,
               keep * sizeof(float));
    if (em->arrays)
        ct_free(w->a, em->arrays, (size_t)NUM_ARRAYS * em->capacity * sizeof(float));
    em->arrays = arrays;
    em->capacity = capacity;
    em->count = keep;
    return true;
}

ct_particle_emitter_t particles__spawn(particles_world_t *w, const char *effect, const float pos[3],
                                       ct_entity_t entity)
{
    const particles_effect_t *fx = particles__effect(effect);
    if (!w || !fx || strlen(effect) >= PARTICLES_NAME_BYTES) {
        particles__m.log->write(particles__m.self, CT_LOG_ERROR,
                                "particles: spawn: effect '%s' is not loaded", effect);
        return (ct_particle_emitter_t){0};
    }
    if (w->num_emitters == w->cap_emitters) {
        const uint32_t cap = w->cap_emitters ? 2 * w->cap_emitters : 16;
        particles_emitter_t *grown =
            w->a->realloc(w->a, w->emitters, w->cap_emitters * sizeof *grown, cap * sizeof *grown,
                          __FILE__, __LINE__);
        if (!grown)
            return (ct_particle_emitter_t){0};
        w->emitters = grown;
        w->cap_emitters = cap;
    }
    particles_emitter_t *em = &w->emitters[w->num_emitters];
    memset(em, 0, sizeof *em);
    if (!reserve_pool(w, em, fx->max_particles))
        return (ct_particle_emitter_t){0};
    w->num_emitters++;
    em->id = ++w->generation ? w->generation : ++w->generation;
    snprintf(em->effect, sizeof em->effect, "%s", effect);
    em->entity = entity;
    memcpy(em->pos, pos, sizeof em->pos);
    em->emitting = true;
    /* Effects follow their sources: an edited effect is compiled again at the frame's safe point
     * and its emitters, which look it up by name every step, run the new one (a resource made by
     * load_source has no file to follow; that answer is ignored). */
    particles__m.resource->watch_source("particles", effect);
    return (ct_particle_emitter_t){em->id};
}

void particles__destroy(particles_world_t *w, particles_emitter_t *em)
{
    if (em->arrays)
        ct_free(w->a, em->arrays, (size_t)NUM_ARRAYS * em->capacity * sizeof(float));
    *em = w->emitters[--w->num_emitters];
}

void particles__free_world(particles_world_t *w)
{
    while (w->num_emitters)
        particles__destroy(w, &w->emitters[w->num_emitters - 1]);
    if (w->emitters)
        ct_free(w->a, w->emitters, w->cap_emitters * sizeof *w->emitters);
    w->emitters = NULL;
    w->cap_emitters = 0;
}

/* A hash of a particle's serial number: the same particles every run. */
static uint32_t hash(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    return h ^ (h >> 16);
}

static float unit(uint32_t h) { return (float)(h >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f; }

/* Where particle `n` starts, relative to the emitter. */
static void shape_point(const particles_effect_t *fx, uint32_t n, float out[3])
{
    uint32_t h = hash(n * 3u + fx->seed);
    float p[3] = {0, 0, 0};
    if (fx->shape == PARTICLES_SHAPE_SPHERE) {
        /* Rejection in the cube, bounded: the eighth try keeps what it has, scaled inside. */
        for (int tries = 0; tries < 8; tries++) {
            for (int k = 0; k < 3; k++)
                p[k] = unit(h = hash(h + (uint32_t)k + 1u));
            const float d = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
            if (d <= 1.0f)
                break;
            if (tries == 7)
                for (int k = 0; k < 3; k++)
                    p[k] /= sqrtf(d);
        }
        for (int k = 0; k < 3; k++)
            p[k] *= fx->radius;
    } else if (fx->shape == PARTICLES_SHAPE_BOX) {
        for (int k = 0; k < 3; k++)
            p[k] = unit(h = hash(h + (uint32_t)k + 1u)) * fx->extent[k];
    }
    memcpy(out, p, sizeof p);
}

static void fill(float *a, uint32_t n, float v)
{
    for (uint32_t i = 0; i < n; i++)
        a[i] = v;
}

static void step_emitter(particles_world_t *w, particles_emitter_t *em, float dt)
{
    const particles_effect_t *fx = particles__effect(em->effect);
    if (!fx || !reserve_pool(w, em, fx->max_particles))
        return; /* unloaded effect or no memory: the emitter waits */
    if (em->entity.id && particles__m.transform)
        particles__m.transform->world_position(w->world, em->entity, em->pos);
    const uint32_t cap = em->capacity;
    float *a[NUM_ARRAYS];
    for (uint32_t k = 0; k < NUM_ARRAYS; k++)
        a[k] = em->arrays + (size_t)k * cap;
    const ct_expr_api_v1 *expr = particles__m.expr;

    /* Age, and swap the dead out. */
    uint32_t count = em->count;
    for (uint32_t i = 0; i < count;) {
        a[IN_AGE][i] += dt;
        if (a[IN_AGE][i] < fx->lifetime) {
            i++;
            continue;
        }
        count--;
        for (uint32_t k = 0; k < NUM_ARRAYS; k++)
            a[k][i] = a[k][count];
    }

    /* Emit: the burst once, then the rate while the emitter emits. */
    uint32_t fresh = 0;
    if (!em->started) {
        fresh += fx->burst;
        em->started = true;
    }
    if (em->emitting && (fx->duration == 0.0f || em->age < fx->duration)) {
        em->carry += fx->rate * dt;
        const float whole = floorf(em->carry);
        em->carry -= whole;
        fresh += (uint32_t)whole;
    }
    if (fresh > cap - count)
        fresh = cap - count;
    for (uint32_t j = 0; j < fresh; j++) {
        const uint32_t i = count + j;
        float off[3];
        shape_point(fx, em->serial, off);
        a[IN_PX][i] = em->pos[0] + off[0];
        a[IN_PY][i] = em->pos[1] + off[1];
        a[IN_PZ][i] = em->pos[2] + off[2];
        a[IN_VX][i] = a[IN_VY][i] = a[IN_VZ][i] = 0.0f;
        a[IN_AGE][i] = 0.0f;
        a[IN_N][i] = (float)em->serial++;
        a[IN_T][i] = em->age;
    }
    if (fresh && fx->program[PROGRAM_SPAWN]) {
        const float *in[] = {a[IN_N] + count, a[IN_T] + count, a[IN_PX] + count, a[IN_PY] + count,
                             a[IN_PZ] + count};
        float *out[] = {a[IN_VX] + count, a[IN_VY] + count, a[IN_VZ] + count};
        expr->eval_jobs(fx->program[PROGRAM_SPAWN], in, out, fresh);
    }
    count += fresh;
    em->count = count;

    /* The particles' own inputs for this step. */
    const float inv_life = 1.0f / fx->lifetime;
    for (uint32_t i = 0; i < count; i++)
        a[IN_LIFE][i] = a[IN_AGE][i] * inv_life;
    fill(a[IN_T], count, em->age);
    fill(a[IN_DT], count, dt);
    const float *const *in = (const float *const *)a;
    if (fx->program[PROGRAM_VELOCITY])
        expr->eval_jobs(fx->program[PROGRAM_VELOCITY], in,
                        (float *const[]){a[IN_VX], a[IN_VY], a[IN_VZ]}, count);
    for (uint32_t i = 0; i < count; i++) {
        a[IN_PX][i] += a[IN_VX][i] * dt;
        a[IN_PY][i] += a[IN_VY][i] * dt;
        a[IN_PZ][i] += a[IN_VZ][i] * dt;
    }
    if (fx->program[PROGRAM_SIZE])
        expr->eval_jobs(fx->program[PROGRAM_SIZE], in, (float *const[]){a[ARR_SIZE]}, count);
    else
        fill(a[ARR_SIZE], count, 0.1f);
    if (fx->program[PROGRAM_ALPHA])
        expr->eval_jobs(fx->program[PROGRAM_ALPHA], in, (float *const[]){a[ARR_ALPHA]}, count);
    else
        fill(a[ARR_ALPHA], count, 1.0f);
    em->age += dt;
}

void particles__simulate(particles_world_t *w, float dt)
{
    for (uint32_t i = 0; i < w->num_emitters;) {
        particles_emitter_t *em = &w->emitters[i];
        step_emitter(w, em, dt);
        /* A stopped emitter goes when its last particle has. */
        if (!em->emitting && em->started && em->count == 0)
            particles__destroy(w, em);
        else
            i++;
    }
}
