/*
 * acme_health.h: the API "acme.health", version 1, of the example component plugin "acme.health"
 * (health.c). Id: cuttle-hash acme.health. Once published it is frozen: a change is
 * acme_health_api_v2. Main thread only, like the component's manager.
 */
#ifndef ACME_HEALTH_H
#define ACME_HEALTH_H

#include "ct_entity.h"

#define ACME_HEALTH_API 0xd34d6bedu /* "acme.health" */

typedef struct acme_health_api_v1 {
    /* The health of entity e in world; false when it has no "health" component there. */
    bool (*value)(ct_world_o *world, ct_entity_t e, float *out);
    /* Takes `amount` off e's health (a negative amount heals), kept within [0, max]. Returns the
     * health left, or -1 when e has no "health" component in world. */
    float (*damage)(ct_world_o *world, ct_entity_t e, float amount);
    /* Every instance of world regains regen * dt, up to its max. */
    void (*regenerate)(ct_world_o *world, float dt);
    /* How many instances world holds (entities destroyed but not yet collected included). */
    uint32_t (*count)(ct_world_o *world);
} acme_health_api_v1;

#endif
