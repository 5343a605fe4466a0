#include "test_kernel.h"

#include <string.h>

#include "plugins/registry.h"

int test_kernel_boot(const char *const *paths, uint32_t num_paths)
{
    kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.strict = true;
    desc.jobs = 2;
    for (uint32_t i = 0; i < num_paths && i < KERNEL_MAX_PATHS; i++)
        desc.plugin_paths[desc.num_plugin_paths++] = paths[i];
    return kernel__boot(&desc);
}

void *test_kernel_api(uint32_t api, uint32_t version)
{
    return registry__get_engine_api(api, version);
}

uint64_t test_kernel_shutdown(void) { return kernel__shutdown(); }
