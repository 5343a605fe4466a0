/* physics_events.c: writing a step's event stream (the seed's "Events": a blob of
 * [header][event] records that a consumer walks, skipping what it does not know). */
#include "physics_internal.h"

#include "ct_array.h"

#include <string.h>

int physics__events_write(physics__events *s, uint32_t type, const void *event, uint32_t size)
{
    const uint32_t padded = (size + 3u) & ~3u;
    const uint64_t need = (uint64_t)s->size + sizeof(ct_physics_event_header_t) + padded;
    if (need > UINT32_MAX)
        return CT_ERR_FULL;
    if (need > s->cap) {
        const uint32_t cap = ct_array_capacity(s->cap, (uint32_t)need, 1024);
        uint8_t *bytes = ct_realloc(s->a, s->bytes, s->cap, cap);
        if (!bytes)
            return CT_ERR_NOMEM;
        s->bytes = bytes;
        s->cap = cap;
    }
    const ct_physics_event_header_t h = {type, size};
    memcpy(s->bytes + s->size, &h, sizeof h);
    memcpy(s->bytes + s->size + sizeof h, event, size);
    memset(s->bytes + s->size + sizeof h + size, 0, padded - size);
    s->size = (uint32_t)need;
    return 0;
}

bool physics__events_drop(physics__events *s, uint32_t type, uint32_t a, uint32_t b)
{
    uint32_t at = 0;
    for (uint32_t start = 0;; start = at) {
        const ct_physics_event_header_t *h = ct_physics_event_next(s->bytes, s->size, &at);
        if (!h)
            return false;
        uint32_t ids[2];
        if (h->type != type || h->size < sizeof ids)
            continue;
        memcpy(ids, h + 1, sizeof ids);
        if (ids[0] != a || ids[1] != b)
            continue;
        memmove(s->bytes + start, s->bytes + at, s->size - at);
        s->size -= at - start;
        return true;
    }
}

void physics__events_free(physics__events *s)
{
    if (s->bytes)
        ct_free(s->a, s->bytes, s->cap);
    s->bytes = NULL;
    s->size = s->cap = 0;
}
