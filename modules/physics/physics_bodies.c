/* physics_bodies.c: the body component's instances, structure of arrays. */
#include "physics_internal.h"

#include <stddef.h>

#define BODY_FIELD(name) {offsetof(physics__bodies, name), sizeof(*((physics__bodies *)0)->name)}
static const physics__soa_field bodies__fields[] = {
    BODY_FIELD(entity),   BODY_FIELD(kind),     BODY_FIELD(shape),       BODY_FIELD(position),
    BODY_FIELD(velocity), BODY_FIELD(force),    BODY_FIELD(half),        BODY_FIELD(synced),
    BODY_FIELD(inv_mass), BODY_FIELD(restitution), BODY_FIELD(friction), BODY_FIELD(layer),
    BODY_FIELD(mask),     BODY_FIELD(user_data), BODY_FIELD(asleep),     BODY_FIELD(rest),
    BODY_FIELD(island),
};
#define BODY_NUM_FIELDS ((uint32_t)(sizeof bodies__fields / sizeof bodies__fields[0]))

const char *physics__body_desc_error(const ct_body_desc_t *d)
{
    if (d->kind != CT_BODY_DYNAMIC && d->kind != CT_BODY_STATIC && d->kind != CT_BODY_KINEMATIC)
        return "kind (dynamic, static or kinematic)";
    if (d->shape == CT_BODY_BOX) {
        for (int k = 0; k < 3; k++)
            if (!f_within(d->half_extents[k], CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
                return "half_extents (each must be within [1e-3, 1e4] m)";
    } else if (d->shape == CT_BODY_SPHERE) {
        if (!f_within(d->radius, CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE))
            return "radius (must be within [1e-3, 1e4] m)";
    } else {
        return "shape (box or sphere)";
    }
    if (d->kind == CT_BODY_DYNAMIC && !f_within(d->mass, CT_PHYSICS_MIN_MASS, CT_PHYSICS_MAX_MASS))
        return "mass (a dynamic body needs a mass within [1e-6, 1e9] kg)";
    if (!f_within(d->restitution, 0.0f, 1.0f))
        return "restitution (must be within [0, 1])";
    if (!f_within(d->friction, 0.0f, CT_PHYSICS_MAX_FRICTION))
        return "friction (must be within [0, 100])";
    if (!v3_within(v3_load(d->position), CT_PHYSICS_MAX_POSITION))
        return "position (each coordinate must be within +-1e5 m)";
    if (!v3_speed_ok(v3_load(d->velocity)))
        return "velocity (must be finite, at most 1e4 m/s)";
    return NULL;
}

/* Room for n instances in all: the arrays double until they fit, so a spawn of many grows once. */
int physics__bodies_reserve(physics__bodies *b, uint32_t n)
{
    if (n > b->cap) {
        uint32_t cap = b->cap ? b->cap : 64;
        while (cap < n)
            cap *= 2;
        if (physics__soa_grow(b->a, b, &b->buffer, bodies__fields, BODY_NUM_FIELDS, b->n, b->cap,
                              cap))
            return CT_ERR_NOMEM;
        b->cap = cap;
    }
    return physics__map_reserve(&b->map, n);
}

int physics__bodies_add(physics__bodies *b, ct_entity_t e, const ct_body_desc_t *d)
{
    if (physics__map_get(&b->map, e.id) != UINT32_MAX)
        return CT_ERR_CONFLICT;
    if (physics__bodies_reserve(b, b->n + 1))
        return CT_ERR_NOMEM;
    const uint32_t i = b->n++;
    b->entity[i] = e;
    b->kind[i] = (uint8_t)d->kind;
    b->shape[i] = (uint8_t)d->shape;
    b->position[i] = b->synced[i] = v3_load(d->position);
    b->velocity[i] = d->kind == CT_BODY_STATIC ? v3(0, 0, 0) : v3_load(d->velocity);
    b->force[i] = v3(0, 0, 0);
    b->half[i] = d->shape == CT_BODY_SPHERE ? v3(d->radius, d->radius, d->radius)
                                            : v3_load(d->half_extents);
    b->inv_mass[i] = d->kind == CT_BODY_DYNAMIC ? 1.0f / d->mass : 0.0f;
    b->restitution[i] = d->restitution;
    b->friction[i] = d->friction;
    b->layer[i] = 1u;
    b->mask[i] = UINT32_MAX;
    b->user_data[i] = 0;
    b->asleep[i] = 0;
    b->rest[i] = 0.0f;
    b->island[i] = 0;
    *physics__map_upsert(&b->map, e.id, i) = i;
    return 0;
}

uint32_t physics__bodies_find(const physics__bodies *b, ct_entity_t e)
{
    return physics__map_get(&b->map, e.id);
}

bool physics__bodies_remove(physics__bodies *b, ct_entity_t e)
{
    const uint32_t i = physics__map_get(&b->map, e.id);
    if (i == UINT32_MAX)
        return false;
    const uint32_t last = --b->n;
    if (i != last) {
        b->entity[i] = b->entity[last];
        b->kind[i] = b->kind[last];
        b->shape[i] = b->shape[last];
        b->position[i] = b->position[last];
        b->velocity[i] = b->velocity[last];
        b->force[i] = b->force[last];
        b->half[i] = b->half[last];
        b->synced[i] = b->synced[last];
        b->inv_mass[i] = b->inv_mass[last];
        b->restitution[i] = b->restitution[last];
        b->friction[i] = b->friction[last];
        b->layer[i] = b->layer[last];
        b->mask[i] = b->mask[last];
        b->user_data[i] = b->user_data[last];
        b->asleep[i] = b->asleep[last];
        b->rest[i] = b->rest[last];
        b->island[i] = b->island[last];
        *physics__map_upsert(&b->map, b->entity[i].id, i) = i;
    }
    physics__map_remove(&b->map, e.id);
    return true;
}

void physics__bodies_free(physics__bodies *b)
{
    physics__soa_free(b->a, &b->buffer, bodies__fields, BODY_NUM_FIELDS, b->cap);
    physics__map_free(&b->map);
    b->n = b->cap = 0;
}
