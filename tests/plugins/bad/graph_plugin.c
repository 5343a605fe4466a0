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
 *   RAISE_IN_INIT                 init raises a Lua error through ct.lua's error()
 *   RAISE_IN_FRAME                frame_begin raises one through check_number on an empty stack
 *   RESOURCE_TYPE                 init registers a resource type of that name (and leaves it)
 *   CRASH_IN_INIT                 init writes through a NULL pointer (SIGSEGV in its own code)
 *   COMPONENT_TYPE                init registers a component type of that name (and leaves it);
 *                                 its create_manager sets $CT_TEST_COMPONENT_MANAGER_MADE
 * API ids are hashed at run time from the names, so the build only passes names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../test_plugins.h"
#include "ct_hash.h"
#include "ct_lua.h"
#include "ct_entity.h"
#include "ct_plugin.h"
#include "ct_resource.h"

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

#ifdef COMPONENT_TYPE
static void *make_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)world;
    (void)a;
    setenv("CT_TEST_COMPONENT_MANAGER_MADE", PLUGIN_NAME, 1);
    return user_data;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    (void)manager;
}

static void gc_nothing(void *manager) { (void)manager; }

static void spawn_nothing(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                          const uint32_t *entity_index, const void *data)
{
    (void)manager;
    (void)ctx;
    (void)n;
    (void)entity_index;
    (void)data;
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
#ifdef RESOURCE_TYPE
    const ct_resource_api_v1 *resource = get_engine_api(CT_RESOURCE_API, 1);
    ct_resource_type_t type = {
        .type = RESOURCE_TYPE, .compile = test_compile_nothing, .load = test_load_nothing};
    if (!resource || resource->register_type(&type) != 0)
        return CT_ERR_INVALID;
#endif
#ifdef COMPONENT_TYPE
    static int manager;
    const ct_component_api_v1 *component = get_engine_api(CT_COMPONENT_API, 1);
    ct_component_type_t type = {.name = COMPONENT_TYPE,
                                .user_data = &manager,
                                .create_manager = make_manager,
                                .destroy_manager = destroy_manager,
                                .spawn = spawn_nothing,
                                .gc = gc_nothing};
    if (!component || component->register_type(&type) == 0)
        return CT_ERR_INVALID;
#endif
#ifdef CRASH_IN_INIT
    *(volatile int *)(uintptr_t)INIT_RESULT = 1; /* INIT_RESULT is 0: a write to address 0 */
#endif
#ifdef RAISE_IN_INIT
    const ct_lua_api_v1 *raiser = get_engine_api(CT_LUA_API, 1);
    raiser->error(raiser->main_state(), "init of %s raises", PLUGIN_NAME);
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
#elif defined(RAISE_IN_FRAME)
static void raise_in_frame(double dt)
{
    (void)dt;
    const ct_lua_api_v1 *lua = engine(CT_LUA_API, 1);
    lua_State *L = lua->main_state();
    int top = lua->get_top(L);
    lua->set_top(L, 0);
    lua->check_number(L, 1);
    lua->set_top(L, top);
}
#define FRAME_BEGIN raise_in_frame
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
    static ct_plugin_api_v1 plugin = {.name = PLUGIN_NAME,
                                      .version = {1, 0, 0, 0},
                                      .init = init,
                                      .shutdown = SHUTDOWN,
                                      .frame_begin = FRAME_BEGIN};
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
