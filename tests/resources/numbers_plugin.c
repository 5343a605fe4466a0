/* A plugin that registers the "numbers" test type, so cuttle-compile can be tested end to end
 * the way a module would drive it. Built against api/ only. */
#include "ct_plugin.h"
#include "test_type.h"

static const ct_resource_api_v1 *resource_api;

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)self;
    const ct_data_api_v1 *data_api = get_engine_api(CT_DATA_API, 1);
    resource_api = get_engine_api(CT_RESOURCE_API, 1);
    if (!data_api || !resource_api)
        return CT_ERR_MISSING_API;
    test_type_use(data_api, resource_api);
    ct_resource_type_t t = test_type(1, NULL);
    return resource_api->register_type(&t);
}

static void shutdown(void) { resource_api->unregister_type(TEST_TYPE); }

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_ref_t requires[] = {
        {.id = CT_DATA_API, .version = 1, .name = "ct.data"},
        {.id = CT_RESOURCE_API, .version = 1, .name = "ct.resource"},
    };
    static const ct_plugin_api_v1 plugin = {
        .name = "test.numbers",
        .version = {1, 0, 0, 0},
        .requires = requires,
        .num_requires = 2,
        .init = init,
        .shutdown = shutdown,
    };
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
