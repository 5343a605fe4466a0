/*
 * A plugin whose get_plugin_api hands the kernel garbage, built once per kind (meson.build):
 *   GARBAGE_POINTER     answers plugin API v1 with a wild pointer
 *   GARBAGE_NAME        a v1 table whose name points nowhere
 *   GARBAGE_REFS        a v1 table declaring 5 provided APIs at a wild address
 *   GARBAGE_INIT        a v1 table whose init points at data, not code
 *   GARBAGE_PROVIDED    declares test.g and answers a wild pointer for it
 *   GARBAGE_V2          a v2 table with the right magic and the wrong size
 * None of it may crash the loader (the wild pointers are unmapped addresses: reading them would).
 */
#include <stdint.h>
#include <string.h>

#include "ct_plugin.h"

#define WILD(address) ((void *)(uintptr_t)(address))

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)get_engine_api;
    (void)self;
    return 0;
}

static const char not_code[64] = "data, not code";

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static ct_plugin_api_v1 plugin = {.name = "garbage", .version = {1, 0, 0, 0}, .init = init};
    static const ct_api_ref_t provides[] = {CT_API_PROVIDE("test.g", 1, ct_plugin_api_v0)};
#if defined(GARBAGE_POINTER)
    if (api == CT_PLUGIN_API && version == 1)
        return WILD(0x10);
#elif defined(GARBAGE_NAME)
    plugin.name = WILD(0x1000);
#elif defined(GARBAGE_REFS)
    plugin.provides = WILD(0x30);
    plugin.num_provides = 5;
#elif defined(GARBAGE_INIT)
    /* The kernel must not call it: a data address dressed as a function. */
    void *data = (void *)not_code;
    memcpy(&plugin.init, &data, sizeof data);
#elif defined(GARBAGE_PROVIDED)
    plugin.provides = provides;
    plugin.num_provides = 1;
#elif defined(GARBAGE_V2)
    static const ct_plugin_api_v2 v2 = {
        .magic = CT_PLUGIN_MAGIC, .struct_size = 12, .name = "garbage"};
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&v2;
#endif
    (void)not_code;
    (void)provides;
    if (api == CT_PLUGIN_API && version == 1)
        return &plugin;
    return api == CT_PLUGIN_API ? NULL : WILD(0x20);
}
