/* A plugin that forgets to free: its allocation shows up in the leak report at shutdown. */
#include "ct_memory.h"
#include "ct_plugin.h"

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    const ct_memory_api_v1 *memory = get_engine_api(CT_MEMORY_API, 1);
    if (!memory)
        return CT_ERR_MISSING_API;
    return ct_alloc(memory->plugin_allocator(self), 48) ? 0 : CT_ERR_NOMEM;
}

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version);
CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_plugin_api_v1 plugin = {
        .name = "test.leaky", .version = {1, 0, 0, 0}, .init = init};
    return api == CT_PLUGIN_API && version == 1 ? (void *)&plugin : NULL;
}
