/*
 * A configurable plugin-API-v1 plugin for dependency-graph and loader tests, built once per node
 * by meson.build with:
 *   PLUGIN_NAME                   its name (required)
 *   PROVIDE, PROVIDE_VERSION      an API it provides (a test_graph_api_v1), optional
 *   REQUIRE, REQUIRE_VERSION      an API it requires, optional
 *   REQUIRE_OPTIONAL              ... marked CT_API_OPTIONAL
 *   INIT_RESULT                   what init returns (default 0)
 *   BROKEN_ID                     declares the provided API with an id its name does not hash to
 *   ANSWER_NULL                   declares PROVIDE but answers NULL when asked for it
 *   FETCH_IN_INIT                 init fails unless get_engine_api answers for REQUIRE
 *   REENTRANT                     get_plugin_api calls get_engine_api once init has run
 *   USE_IN_FRAME                  an API its frame_begin asks for without declaring it
 *   RECORD_SHUTDOWN               shutdown appends its name to $CT_TEST_SHUTDOWN_ORDER
 *   LUA_FUNCTION                  init registers Clash.fn in Lua
 *   UNDEFINED_SYMBOL              init calls a function nobody defines
 *   LUA_AT_UNMAP                  when unmapped, sets $CT_TEST_LUA_AT_UNMAP to "open" or "closed"
 * API ids are hashed at run time from the names, so the build only passes names.
 */
#include <stdlib.h>
#include <string.h>

#include "../test_plugins.h"
#include "ct_hash.h"
#include "ct_lua.h"
#include "ct_plugin.h"

#ifndef INIT_RESULT
#define INIT_RESULT 0
#endif

static ct_get_api_f engine;

#ifdef UNDEFINED_SYMBOL
int ct_test_symbol_nobody_defines(void);
#endif

#ifdef LUA_FUNCTION
static int l_clash_fn(lua_State *L)
{
    (void)L;
    return 0;
}
#endif

#ifdef LUA_AT_UNMAP
static const ct_lua_api_v1 *lua_at_unmap;
__attribute__((destructor)) static void unmapped(void)
{
    if (lua_at_unmap)
        setenv("CT_TEST_LUA_AT_UNMAP", lua_at_unmap->main_state() ? "open" : "closed", 1);
}
#endif

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    engine = get_engine_api;
#ifdef FETCH_IN_INIT
    if (!get_engine_api(ct_hash32(REQUIRE), REQUIRE_VERSION))
        return CT_ERR_MISSING_API;
#endif
#ifdef LUA_FUNCTION
    const ct_lua_api_v1 *lua = get_engine_api(CT_LUA_API, 1);
    lua->add_module_function("Clash", "fn", l_clash_fn);
#endif
#ifdef UNDEFINED_SYMBOL
    return ct_test_symbol_nobody_defines();
#endif
#ifdef LUA_AT_UNMAP
    lua_at_unmap = get_engine_api(CT_LUA_API, 1);
#endif
    return INIT_RESULT;
}

#ifdef USE_IN_FRAME
static void use_in_frame(double dt)
{
    (void)dt;
    engine(ct_hash32(USE_IN_FRAME), 1);
}
#define FRAME_BEGIN use_in_frame
#else
#define FRAME_BEGIN NULL
#endif

#ifdef RECORD_SHUTDOWN
static void record_shutdown(void)
{
    static char order[256];
    const char *before = getenv("CT_TEST_SHUTDOWN_ORDER");
    strcpy(order, before ? before : "");
    strcat(order, " " PLUGIN_NAME);
    setenv("CT_TEST_SHUTDOWN_ORDER", order, 1);
}
#define SHUTDOWN record_shutdown
#else
#define SHUTDOWN NULL
#endif

#ifdef PROVIDE
static const char *who(void) { return PLUGIN_NAME; }
#endif

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static ct_plugin_api_v1 plugin = {.name = PLUGIN_NAME, .version = {1, 0, 0, 0}, .init = init,
                                      .shutdown = SHUTDOWN, .frame_begin = FRAME_BEGIN};
#ifdef PROVIDE
    static const test_graph_api_v1 graph = {who};
    static ct_api_ref_t provides[1];
    provides[0] = (ct_api_ref_t){ct_hash32(PROVIDE), PROVIDE_VERSION, sizeof graph, 0, PROVIDE};
#ifdef BROKEN_ID
    provides[0].id++;
#endif
    plugin.provides = provides;
    plugin.num_provides = 1;
    if (api == provides[0].id && version == PROVIDE_VERSION) {
#ifdef REENTRANT
        if (engine)
            engine(CT_LUA_API, 1);
#endif
#ifdef ANSWER_NULL
        return NULL;
#endif
        return (void *)&graph;
    }
#endif
#ifdef REQUIRE
    static ct_api_ref_t requires[1];
#ifdef REQUIRE_OPTIONAL
    requires[0] = (ct_api_ref_t){ct_hash32(REQUIRE), REQUIRE_VERSION, 0, CT_API_OPTIONAL, REQUIRE};
#else
    requires[0] = (ct_api_ref_t){ct_hash32(REQUIRE), REQUIRE_VERSION, 0, 0, REQUIRE};
#endif
    plugin.requires = requires;
    plugin.num_requires = 1;
#endif
    if (api == CT_PLUGIN_API && version == 1)
        return &plugin;
    return NULL;
}
