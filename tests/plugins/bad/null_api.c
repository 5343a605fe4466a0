/* A plugin that answers NULL for every plugin API version: written for a plugin API the kernel
 * does not know (say v7). */
#include "ct_plugin.h"

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const int future_api = 7;
    return api == CT_PLUGIN_API && version == 7 ? (void *)&future_api : NULL;
}
