#include "fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "base/log.h"
#include "base/memory.h"
#include "lua/lua_env.h"
#include "data/sjson.h"
#include "resources/resources.h"

int fixture_boot(const loader_desc_t *desc)
{
    assert_int_equal(memory__init(0), 0);
    registry__init();
    assert_int_equal(lua_env__init(), 0);
    assert_int_equal(resources__init(NULL, false), 0);
    registry__add_kernel_api(CT_LOG_API, 1, log__api_v1(), "ct.log");
    registry__add_kernel_api(CT_MEMORY_API, 1, memory__api_v1(), "ct.memory");
    registry__add_kernel_api(CT_LUA_API, 0, lua_env__api_v0(), "ct.lua");
    registry__add_kernel_api(CT_LUA_API, 1, lua_env__api_v1(), "ct.lua");
    registry__add_kernel_api(CT_LUA_API, 2, lua_env__api_v2(), "ct.lua");
    registry__add_kernel_api(CT_REGISTRY_API, 1, registry__api_v1(), "ct.registry");
    registry__add_kernel_api(CT_REGISTRY_API, 2, registry__api_v2(), "ct.registry");
    registry__add_kernel_api(CT_RESOURCE_API, 1, resources__api_v1(), "ct.resource");
    registry__add_kernel_api(CT_DATA_API, 1, data__api_v1(), "ct.data");
    return loader__load(desc);
}

int fixture_boot_paths(const char *const *paths, uint32_t n)
{
    return fixture_boot(&(loader_desc_t){.plugin_paths = paths, .num_plugin_paths = n});
}

uint64_t fixture_shutdown(void)
{
    /* As the kernel does: resources first, their callbacks live in plugin code. */
    resources__shutdown();
    loader__shutdown();
    lua_env__shutdown();
    loader__unmap();
    registry__shutdown();
    return memory__shutdown();
}

ct_plugin_info_t fixture_info(const char *name)
{
    const ct_registry_api_v1 *r = registry__api_v1();
    ct_plugin_info_t info;
    uint32_t i = r->find_plugin(name);
    if (i == UINT32_MAX)
        fail_msg("no plugin named '%s' was registered", name);
    assert_true(r->plugin_info(i, &info));
    return info;
}

ct_plugin_state fixture_state(const char *name) { return fixture_info(name).state; }
