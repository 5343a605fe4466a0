/*
 * animation_lookup.c: a manager's map from entity to instance. Open addressing over (entity id,
 * instance index) pairs in one array: linear probing from a Fibonacci hash of the id, never more
 * than half full, deletion by shifting the following run back (no tombstones, so lookups stay
 * short however many entities come and go). The full id is the key, generation included: a stale
 * handle whose index was reused finds nothing.
 */
#include "animation_internal.h"

#include <string.h>

#define MIN_SLOT_BITS 4u

static uint32_t home(uint32_t id, uint32_t bits)
{
    return (uint32_t)(id * 0x9e3779b1u) >> (32u - bits);
}

static void put(anim__slot *slots, uint32_t bits, uint32_t id, uint32_t instance)
{
    const uint32_t mask = (1u << bits) - 1u;
    uint32_t s = home(id, bits);
    while (slots[s].entity)
        s = (s + 1u) & mask;
    slots[s] = (anim__slot){id, instance};
}

/* The slot holding id, or UINT32_MAX. A free slot always exists, so the walk ends. */
static uint32_t slot_of(const anim__manager *m, uint32_t id)
{
    if (!m || !m->slots || !id)
        return UINT32_MAX;
    const uint32_t mask = (1u << m->slot_bits) - 1u;
    for (uint32_t s = home(id, m->slot_bits);; s = (s + 1u) & mask) {
        if (m->slots[s].entity == id)
            return s;
        if (!m->slots[s].entity)
            return UINT32_MAX;
    }
}

anim__instance *anim__find(anim__manager *m, ct_entity_t e)
{
    const uint32_t s = slot_of(m, e.id);
    return s == UINT32_MAX ? NULL : &m->instances[m->slots[s].instance];
}

bool anim__map_reserve(anim__manager *m, uint32_t count)
{
    uint32_t bits = m->slot_bits ? m->slot_bits : MIN_SLOT_BITS;
    while ((uint64_t)count * 2u > (1ull << bits))
        bits++;
    if (m->slots && bits == m->slot_bits)
        return true;
    if (bits > 31)
        return false;
    anim__slot *slots = ct_alloc(m->a, ((size_t)1 << bits) * sizeof *slots);
    if (!slots)
        return false;
    memset(slots, 0, ((size_t)1 << bits) * sizeof *slots);
    if (m->slots) {
        for (uint32_t s = 0; s < (1u << m->slot_bits); s++)
            if (m->slots[s].entity)
                put(slots, bits, m->slots[s].entity, m->slots[s].instance);
        anim__map_free(m);
    }
    m->slots = slots;
    m->slot_bits = bits;
    return true;
}

void anim__map_insert(anim__manager *m, ct_entity_t e, uint32_t instance)
{
    put(m->slots, m->slot_bits, e.id, instance);
}

void anim__map_move(anim__manager *m, ct_entity_t e, uint32_t instance)
{
    const uint32_t s = slot_of(m, e.id);
    if (s != UINT32_MAX)
        m->slots[s].instance = instance;
}

void anim__map_erase(anim__manager *m, ct_entity_t e)
{
    uint32_t hole = slot_of(m, e.id);
    if (hole == UINT32_MAX)
        return;
    const uint32_t mask = (1u << m->slot_bits) - 1u;
    /* Pull back every later entry of the run that may sit in the hole: one whose home is not
     * cyclically inside (hole, s]. */
    for (uint32_t s = (hole + 1u) & mask; m->slots[s].entity; s = (s + 1u) & mask) {
        const uint32_t h = home(m->slots[s].entity, m->slot_bits);
        const bool stays = hole <= s ? (h > hole && h <= s) : (h > hole || h <= s);
        if (!stays) {
            m->slots[hole] = m->slots[s];
            hole = s;
        }
    }
    m->slots[hole] = (anim__slot){0, 0};
}

void anim__map_free(anim__manager *m)
{
    if (m->slots)
        ct_free(m->a, m->slots, ((size_t)1 << m->slot_bits) * sizeof *m->slots);
    m->slots = NULL;
}
