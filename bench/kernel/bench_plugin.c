/*
 * A plugin for the kernel benchmark, built several times with different BENCH_INDEX values: plugin
 * N provides the API "bench.pN" and requires "bench.p(N-1)", so booting them resolves a chain.
 * Plugin 0 also registers Bench.add(a, b) through the Lua API (the kernel's slot trampoline).
 */
#include "ct_hash.h"
#include "ct_lua.h"
#include "ct_plugin.h"

#include <stdio.h>

typedef struct bench_api_v1 {
    int (*value)(void);
} bench_api_v1;

static const ct_lua_api_v1 *lua;

static int value(void) { return BENCH_INDEX; }

static int l_bench_add(lua_State *L)
{
    lua->push_number(L, lua->to_number(L, 1) + lua->to_number(L, 2));
    return 1;
}

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    lua = get_engine_api(CT_LUA_API, 1);
    if (!lua)
        return CT_ERR_MISSING_API;
    if (BENCH_INDEX == 0)
        lua->add_module_function("Bench", "add", l_bench_add);
    return 0;
}

static char own_name[16], required_name[16];
static ct_api_ref_t provides[1], requires[1];
static bench_api_v1 api = {value};
static ct_plugin_api_v1 plugin;

CT_EXPORT void *get_plugin_api(uint32_t id, uint32_t version)
{
    if (!plugin.name) {
        snprintf(own_name, sizeof own_name, "bench.p%d", BENCH_INDEX);
        snprintf(required_name, sizeof required_name, "bench.p%d", BENCH_INDEX - 1);
        provides[0] = (ct_api_ref_t){ct_hash32(own_name), 1, sizeof(bench_api_v1), 0, own_name};
        requires[0] = (ct_api_ref_t){ct_hash32(required_name), 1, 0, 0, required_name};
        plugin = (ct_plugin_api_v1){
            .name = own_name,
            .version = {1, 0, 0, 0},
            .provides = provides,
            .num_provides = 1,
            .requires = requires,
            .num_requires = BENCH_INDEX > 0,
            .init = init,
        };
    }
    if (id == CT_PLUGIN_API && version == 1)
        return &plugin;
    if (id == provides[0].id && version == 1)
        return &api;
    return NULL;
}
