/*
 * A plugin-API-v2 plugin that watches worlds through ct.world v2, built twice:
 *   (default)       counts the worlds created and destroyed, and checks the enumeration
 *   WATCHER_FAILS   adds a listener and then fails its init: the listener must never be called
 *                   (it sets $CT_TEST_FAILED_WATCHER_CALLED if it is)
 */
#include <stdlib.h>

#include "../test_plugins.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_world.h"

typedef struct watcher_t {
    const ct_plugin_host_t *host;
    const ct_memory_api_v1 *memory;
    const ct_world_api_v2 *worlds;
    uint32_t created, destroyed, listed_right;
} watcher_t;

static watcher_t *the_watcher; /* for the provided API's functions only */

static uint32_t created(void) { return the_watcher->created; }
static uint32_t destroyed(void) { return the_watcher->destroyed; }
static uint32_t listed_right(void) { return the_watcher->listed_right; }

/* Counts the event and checks what world_at says at that moment: a new world is listed, one
 * about to go still is. */
static void on_world(void *ctx, ct_world_o *world, uint32_t event)
{
#ifdef WATCHER_FAILS
    (void)ctx;
    (void)world;
    (void)event;
    setenv("CT_TEST_FAILED_WATCHER_CALLED", "yes", 1);
#else
    watcher_t *w = ctx;
    bool listed = false;
    for (uint32_t i = 0; i < w->worlds->world_count(); i++)
        listed |= w->worlds->world_at(i) == world;
    w->listed_right += listed;
    if (event == CT_WORLD_CREATED)
        w->created++;
    else if (event == CT_WORLD_DESTROYED)
        w->destroyed++;
#endif
}

static int init(const ct_plugin_host_t *host, void **ctx)
{
    const ct_memory_api_v1 *memory = host->get_engine_api(CT_MEMORY_API, 1);
    const ct_world_api_v2 *worlds = host->get_engine_api(CT_WORLD_API, 2);
    if (!memory || !worlds)
        return CT_ERR_MISSING_API;
    watcher_t *w = ct_alloc(memory->plugin_allocator(host->self), sizeof *w);
    if (!w)
        return CT_ERR_NOMEM;
    *w = (watcher_t){.host = host, .memory = memory, .worlds = worlds};
    worlds->add_world_listener(on_world, w);
    the_watcher = w;
    *ctx = w;
#ifdef WATCHER_FAILS
    /* Leaves the listener behind on purpose: the kernel must make sure it is never called. */
    ct_free(memory->plugin_allocator(host->self), w, sizeof *w);
    return CT_ERR_INIT_FAILED;
#else
    return 0;
#endif
}

static void shutdown(void *ctx)
{
    watcher_t *w = ctx;
    w->worlds->remove_world_listener(on_world, w);
    ct_free(w->memory->plugin_allocator(w->host->self), w, sizeof *w);
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
#ifndef WATCHER_FAILS
    static const ct_api_ref_t provides[] = {CT_API_PROVIDE("test.worlds", 1, test_worlds_api_v1)};
#endif
    static const ct_api_need_t required[] = {CT_API_NEED("ct.world", 2),
                                             CT_API_NEED("ct.memory", 1)};
    static const ct_plugin_api_v2 plugin = {
        .magic = CT_PLUGIN_MAGIC,
        .struct_size = sizeof plugin,
#ifdef WATCHER_FAILS
        .name = "test.failed_watcher",
#else
        .name = "test.watcher",
        .provides = provides,
        .num_provides = CT_ARRAY_COUNT(provides),
#endif
        .version = {1, 0, 0, 0},
        .required = required,
        .num_required = CT_ARRAY_COUNT(required),
        .init = init,
        .shutdown = shutdown,
    };
    static const test_worlds_api_v1 api_v1 = {created, destroyed, listed_right};
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&plugin;
    if (api == TEST_WORLDS_API && version == 1)
        return (void *)&api_v1;
    return NULL;
}
