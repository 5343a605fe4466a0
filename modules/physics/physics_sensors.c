/* physics_sensors.c: sensors (trigger volumes), bodies that report what enters and leaves them.
 *
 * A sensor is an ordinary static or kinematic body of any shape, so it moves with its transform
 * and is found by the grids like the others. What makes it a sensor: its own collision filter is
 * kept here and the body's is set to nothing (layer 0, mask 0), so no pair with it ever collides
 * (physics__contacts_order leaves out pairs whose filters do not meet), no query and no sweep sees
 * it, and no solver code needs to know about sensors. At the end of each step that ran, each
 * sensor finds the dynamic and kinematic bodies that overlap its shape (their boxes through the
 * grids, then the manifold's separation at or below zero) and whose filters meet its kept one; the
 * sorted list is compared with the last step's, and each body that came in or went out makes one
 * CT_PHYSICS_EVENT_SENSOR_ENTER or _LEAVE. A body that is removed is missing from the next list,
 * so it makes a leave. A sensor goes with its body, without events (physics__scene_remove): a body
 * given to the entity afterwards, even before the next step, is an ordinary one.
 *
 * The records are sorted by the sensor's entity id, and each list by entity id: the events come in
 * that order, whatever the bodies' places in the arrays. */
#include "physics_internal.h"

#include <stdlib.h>
#include <string.h>

void physics__sensors_free(physics__scene *s)
{
    physics__sensors *x = &s->sensors;
    if (x->s)
        ct_free(s->a, x->s, (size_t)x->cap * sizeof *x->s);
    if (x->inside)
        ct_free(s->a, x->inside, (size_t)x->cap_inside * sizeof *x->inside);
    if (x->next)
        ct_free(s->a, x->next, (size_t)x->cap_next * sizeof *x->next);
    memset(x, 0, sizeof *x);
}

/* The record of entity e, or where it would go (*found false). */
static uint32_t sensors__at(const physics__sensors *x, uint32_t e, bool *found)
{
    uint32_t lo = 0, hi = x->n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (x->s[mid].entity < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < x->n && x->s[lo].entity == e;
    return lo;
}

physics__sensor *physics__sensors_find(physics__scene *s, uint32_t entity)
{
    bool found;
    const uint32_t k = sensors__at(&s->sensors, entity, &found);
    return found ? &s->sensors.s[k] : NULL;
}

int physics__sensors_set(physics__scene *s, uint32_t i, bool on)
{
    physics__sensors *x = &s->sensors;
    physics__bodies *b = &s->bodies;
    bool found;
    const uint32_t k = sensors__at(x, b->entity[i].id, &found);
    if (on == found)
        return 0;
    if (on) {
        if (b->kind[i] == CT_BODY_DYNAMIC)
            return CT_ERR_INVALID;
        if (physics__reserve_keep(s->a, (void **)&x->s, &x->cap, x->n + 1, sizeof *x->s))
            return CT_ERR_NOMEM;
        memmove(&x->s[k + 1], &x->s[k], (size_t)(x->n - k) * sizeof *x->s);
        x->s[k] = (physics__sensor){.entity = b->entity[i].id,
                                    .layer = b->layer[i],
                                    .mask = b->mask[i]};
        x->n++;
        b->layer[i] = b->mask[i] = 0;
    } else {
        b->layer[i] = x->s[k].layer;
        b->mask[i] = x->s[k].mask;
        memmove(&x->s[k], &x->s[k + 1], (size_t)(x->n - k - 1) * sizeof *x->s);
        x->n--;
    }
    /* The contacts it had (or will have) change: what touched it wakes. */
    physics__scene_wake(s, i);
    physics__scene_touched(s, i);
    s->woke = true;
    return 0;
}

void physics__sensors_drop(physics__scene *s, uint32_t entity)
{
    physics__sensors *x = &s->sensors;
    bool found;
    const uint32_t k = sensors__at(x, entity, &found);
    if (!found)
        return;
    memmove(&x->s[k], &x->s[k + 1], (size_t)(x->n - k - 1) * sizeof *x->s);
    x->n--;
}

uint32_t physics__sensors_inside(physics__scene *s, uint32_t entity, ct_entity_t *out,
                                 uint32_t max)
{
    const physics__sensor *r = physics__sensors_find(s, entity);
    if (!r)
        return 0;
    for (uint32_t k = 0; k < r->count && k < max; k++)
        out[k] = (ct_entity_t){s->sensors.inside[r->first + k]};
    return r->count;
}

/* Whether body j overlaps sensor body i (their shapes touch or cross). */
static bool sensors__overlap(const physics__bodies *b, uint32_t i, uint32_t j)
{
    physics__manifold_out m;
    physics__manifold(b, i, j, 0.0f, false, &m);
    for (uint32_t q = 0; q < m.count; q++)
        if (m.p[q].sep <= 0.0f)
            return true;
    return false;
}

static int sensors__event(physics__scene *s, uint32_t type, uint32_t sensor, uint32_t other)
{
    const ct_physics_sensor_event_t ev = {sensor, other};
    return physics__events_write(&s->events, type, &ev, sizeof ev);
}

int physics__sensors_detect(physics__scene *s)
{
    physics__sensors *x = &s->sensors;
    physics__bodies *b = &s->bodies;
    if (!x->n)
        return 0;
    uint32_t used = 0, kept = 0;
    for (uint32_t k = 0; k < x->n; k++) {
        physics__sensor r = x->s[k];
        const uint32_t i = physics__bodies_find(b, (ct_entity_t){r.entity});
        if (i == UINT32_MAX)
            continue; /* its body is gone: so is the sensor */
        const physics__v3 lo = v3_sub(b->position[i], b->extent[i]),
                          hi = v3_add(b->position[i], b->extent[i]);
        uint32_t n = 0;
        const uint32_t *found = physics__scene_overlap_box(s, lo, hi, r.mask, &n);
        if (n && !found)
            return CT_ERR_NOMEM;
        if (physics__reserve_keep(s->a, (void **)&x->next, &x->cap_next, used + n,
                                  sizeof *x->next))
            return CT_ERR_NOMEM;
        const uint32_t first = used;
        for (uint32_t q = 0; q < n; q++) {
            const uint32_t j = physics__bodies_find(b, (ct_entity_t){found[q]});
            if (j == UINT32_MAX || j == i || b->kind[j] == CT_BODY_STATIC ||
                !(b->mask[j] & r.layer) || !sensors__overlap(b, i, j))
                continue;
            x->next[used++] = found[q];
        }
        /* Both lists are sorted: one merge walk gives the events. */
        const uint32_t *old = x->inside ? &x->inside[r.first] : NULL;
        uint32_t a = 0, c = first;
        while (a < r.count || c < used) {
            if (c == used || (a < r.count && old[a] < x->next[c])) {
                if (sensors__event(s, CT_PHYSICS_EVENT_SENSOR_LEAVE, r.entity, old[a++]))
                    return CT_ERR_NOMEM;
            } else if (a == r.count || x->next[c] < old[a]) {
                if (sensors__event(s, CT_PHYSICS_EVENT_SENSOR_ENTER, r.entity, x->next[c++]))
                    return CT_ERR_NOMEM;
            } else {
                a++;
                c++;
            }
        }
        r.first = first;
        r.count = used - first;
        x->s[kept++] = r;
    }
    x->n = kept;
    uint32_t *t = x->inside;
    const uint32_t cap = x->cap_inside;
    x->inside = x->next;
    x->cap_inside = x->cap_next;
    x->next = t;
    x->cap_next = cap;
    return 0;
}
