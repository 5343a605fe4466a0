/*
 * animation_lookup.c: a manager's map from entity to instance, on the SDK's paged entity index
 * (ct_entity_pages_t, api/ct_entity.h). An entry holds the instance + 1; the instance's own
 * entity is compared with the one asked about, so a stale handle whose index was reused finds
 * nothing.
 */
#include "animation_internal.h"

anim__instance *anim__find(anim__manager *m, ct_entity_t e)
{
    const uint32_t *at = m && e.id ? ct_entity_pages_entry(&m->index, e) : NULL;
    anim__instance *inst = at && *at && *at <= m->num_instances ? &m->instances[*at - 1] : NULL;
    return inst && inst->entity.id == e.id ? inst : NULL;
}

bool anim__map_reserve(anim__manager *m, ct_entity_t e)
{
    return ct_entity_pages_reserve(&m->index, m->a, e);
}

void anim__map_set(anim__manager *m, ct_entity_t e, uint32_t instance)
{
    *ct_entity_pages_entry(&m->index, e) = instance + 1u;
}

void anim__map_erase(anim__manager *m, ct_entity_t e)
{
    if (anim__find(m, e))
        *ct_entity_pages_entry(&m->index, e) = 0;
}

void anim__map_free(anim__manager *m) { ct_entity_pages_free(&m->index, m->a); }
