#include "fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "base/jobs.h"
#include "base/memory.h"
#include "kernel.h"
#include "lua/lua_env.h"
#include "resources/resources.h"

int fixture_boot(const loader_desc_t *desc)
{
    assert_int_equal(memory__init(0), 0);
    assert_int_equal(jobs__init(2), 0);
    registry__init();
    assert_int_equal(lua_env__init(), 0);
    assert_int_equal(resources__init(NULL, false), 0);
    kernel__register_apis();
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
    jobs__shutdown();
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
