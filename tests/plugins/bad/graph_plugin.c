/*
 * A configurable plugin-API-v1 plugin for dependency-graph tests, built once per node by
 * meson.build with:
 *   PLUGIN_NAME                   its name (required)
 *   PROVIDE, PROVIDE_VERSION      an API it provides (a test_graph_api_v1), optional
 *   REQUIRE, REQUIRE_VERSION      an API it requires, optional
 *   INIT_RESULT                   what init returns (default 0)
 *   BROKEN_ID                     declares the provided API with an id its name does not hash to
 * API ids are hashed at run time from the names, so the build only passes names.
 */
#include "../test_plugins.h"
#include "ct_hash.h"
#include "ct_plugin.h"

#ifndef INIT_RESULT
#define INIT_RESULT 0
#endif

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)get_engine_api;
    (void)self;
    return INIT_RESULT;
}

#ifdef PROVIDE
static const char *who(void) { return PLUGIN_NAME; }
#endif

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static ct_plugin_api_v1 plugin = {.name = PLUGIN_NAME, .version = {1, 0, 0, 0}, .init = init};
#ifdef PROVIDE
    static const test_graph_api_v1 graph = {who};
    static ct_api_ref_t provides[1];
    provides[0] = (ct_api_ref_t){ct_hash32(PROVIDE), PROVIDE_VERSION, sizeof graph, 0, PROVIDE};
#ifdef BROKEN_ID
    provides[0].id++;
#endif
    plugin.provides = provides;
    plugin.num_provides = 1;
    if (api == provides[0].id && version == PROVIDE_VERSION)
        return (void *)&graph;
#endif
#ifdef REQUIRE
    static ct_api_ref_t requires[1];
    requires[0] = (ct_api_ref_t){ct_hash32(REQUIRE), REQUIRE_VERSION, 0, 0, REQUIRE};
    plugin.requires = requires;
    plugin.num_requires = 1;
#endif
    if (api == CT_PLUGIN_API && version == 1)
        return &plugin;
    return NULL;
}
