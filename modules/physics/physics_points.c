/* physics_points.c: the point-mass component of the seed's part 2, structure of arrays. */
#include "physics_internal.h"

#include "ct_array.h"

#include <stddef.h>

#define POINT_FIELD(name)                                                                          \
    {                                                                                              \
        offsetof(physics__points, name), sizeof(*((physics__points *)0)->name)                     \
    }
static const physics__soa_field points__fields[] = {
    POINT_FIELD(entity),   POINT_FIELD(mass),         POINT_FIELD(position),
    POINT_FIELD(velocity), POINT_FIELD(acceleration),
};
#define POINT_NUM_FIELDS ((uint32_t)(sizeof points__fields / sizeof points__fields[0]))

const char *physics__point_desc_error(const ct_point_mass_desc_t *d)
{
    if (!f_within(d->mass, CT_PHYSICS_MIN_MASS, CT_PHYSICS_MAX_MASS))
        return "mass (must be within [1e-6, 1e9] kg)";
    if (!v3_within(v3_load(d->position), CT_PHYSICS_MAX_POSITION))
        return "position (each coordinate must be within +-1e5 m)";
    if (!v3_speed_ok(v3_load(d->velocity)))
        return "velocity (must be finite, at most 1e4 m/s)";
    return NULL;
}

const char *physics__point_given(const ct_point_mass_desc_t *d, const char *bad, char *out,
                                 size_t size)
{
    const float *p = d->position, *v = d->velocity;
    const physics__given_field fields[] = {{"mass", 1, 'g', {d->mass}},
                                           {"position", 3, 'g', {p[0], p[1], p[2]}},
                                           {"velocity", 3, 'g', {v[0], v[1], v[2]}}};
    return physics__given(bad, fields, sizeof fields / sizeof fields[0], out, size);
}

/* Room for n instances in all: the arrays double until they fit, so a spawn of many grows once. */
int physics__points_reserve(physics__points *p, uint32_t n)
{
    if (n > p->cap) {
        const uint32_t cap = ct_array_capacity(p->cap, n, 64);
        if (!cap || physics__soa_grow(p->a, p, &p->buffer, points__fields, POINT_NUM_FIELDS, p->n,
                                      p->cap, cap))
            return CT_ERR_NOMEM;
        p->cap = cap;
    }
    return physics__map_reserve(&p->map, n);
}

int physics__points_add(physics__points *p, ct_entity_t e, const ct_point_mass_desc_t *d)
{
    if (physics__map_get(&p->map, e.id) != UINT32_MAX)
        return CT_ERR_CONFLICT;
    if (physics__points_reserve(p, p->n + 1))
        return CT_ERR_NOMEM;
    const uint32_t i = p->n++;
    p->entity[i] = e;
    p->mass[i] = d->mass;
    p->position[i] = v3_load(d->position);
    p->velocity[i] = v3_load(d->velocity);
    p->acceleration[i] = v3(0, 0, 0);
    *physics__map_upsert(&p->map, e.id, i) = i;
    return 0;
}

uint32_t physics__points_find(const physics__points *p, ct_entity_t e)
{
    return physics__map_get(&p->map, e.id);
}

bool physics__points_remove(physics__points *p, ct_entity_t e)
{
    const uint32_t i = physics__map_get(&p->map, e.id);
    if (i == UINT32_MAX)
        return false;
    const uint32_t last = --p->n;
    if (i != last) {
        p->entity[i] = p->entity[last];
        p->mass[i] = p->mass[last];
        p->position[i] = p->position[last];
        p->velocity[i] = p->velocity[last];
        p->acceleration[i] = p->acceleration[last];
        *physics__map_upsert(&p->map, p->entity[i].id, i) = i;
    }
    physics__map_remove(&p->map, e.id);
    return true;
}

/* Semi-implicit Euler, as in the seed: the new velocity moves the position. Written on floats
 * rather than physics__v3 so the compiler sees three independent streams and vectorises. */
void physics__points_simulate(physics__points *p, uint32_t begin, uint32_t end, float dt)
{
    if (begin >= end)
        return; /* the arrays may not exist yet */
    float *restrict x = &p->position[0].x;
    float *restrict v = &p->velocity[0].x;
    float *restrict a = &p->acceleration[0].x;
    for (uint32_t k = begin * 3; k < end * 3; k++) {
        v[k] += a[k] * dt;
        x[k] += v[k] * dt;
        a[k] = 0.0f;
    }
}

void physics__points_free(physics__points *p)
{
    physics__soa_free(p->a, &p->buffer, points__fields, POINT_NUM_FIELDS, p->cap);
    physics__map_free(&p->map);
    p->n = p->cap = 0;
}
