/*
 * ct_world_api_v2's listeners (the walk over live worlds is in entities_world.c): C plugins hear
 * of each world created and destroyed without Lua handing them pointers. A listener belongs to the
 * plugin that added it (ct.registry v2 names it) and is dropped, never called, once that plugin
 * is unloaded. The list lives in entities__state, so it outlives a hot reload of this module.
 */
#include "ct_array.h"
#include "entities_internal.h"

static uint32_t find(ct_world_listener_f fn, void *ctx)
{
    const entities_world_listeners_t *ls = &entities__state->world_listeners;
    for (uint32_t i = 0; i < ls->count; i++)
        if (ls->items[i].fn == fn && ls->items[i].ctx == ctx)
            return i;
    return ls->count;
}

int entities__add_world_listener(ct_world_listener_f fn, void *ctx)
{
    entities_world_listeners_t *ls = &entities__state->world_listeners;
    if (!fn)
        return CT_ERR_INVALID;
    if (find(fn, ctx) < ls->count)
        return 0;
    if (!ct_array_reserve_of(entities__services.a, &ls->items, &ls->capacity, ls->count + 1, 8))
        return CT_ERR_NOMEM;
    const ct_registry_api_v3 *r = entities__services.registry;
    ls->items[ls->count++] = (entities_world_listener_t){fn, ctx, r ? r->current_plugin() : NULL};
    return 0;
}

void entities__remove_world_listener(ct_world_listener_f fn, void *ctx)
{
    entities_world_listeners_t *ls = &entities__state->world_listeners;
    uint32_t i = find(fn, ctx);
    if (i < ls->count)
        ls->items[i] = ls->items[--ls->count];
}

void entities__notify_world(ct_world_o *world, uint32_t event)
{
    entities_world_listeners_t *ls = &entities__state->world_listeners;
    const ct_registry_api_v3 *r = entities__services.registry;
    for (uint32_t i = 0; i < ls->count;) {
        const entities_world_listener_t l = ls->items[i];
        if (r && !r->plugin_loaded(l.owner)) {
            ls->items[i] = ls->items[--ls->count];
            continue;
        }
        l.fn(l.ctx, world, event);
        /* The listener may have removed itself (or others): look at slot i again only if it
         * still holds the listener just called. */
        if (i < ls->count && ls->items[i].fn == l.fn && ls->items[i].ctx == l.ctx)
            i++;
    }
}

void entities__world_listeners_shutdown(void)
{
    entities_world_listeners_t *ls = &entities__state->world_listeners;
    if (ls->items)
        ct_free(entities__services.a, ls->items, ls->capacity * sizeof *ls->items);
    *ls = (entities_world_listeners_t){0};
}
