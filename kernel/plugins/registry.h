/* The API registry: get_engine_api, kernel APIs, plugin handles, recorded API uses. */
#ifndef CT_KERNEL_REGISTRY_H
#define CT_KERNEL_REGISTRY_H

#include "ct_registry.h"

void registry__init(void);
void registry__shutdown(void);
/* Makes a kernel service table answerable through get_engine_api. `name` e.g. "ct.lua". */
void registry__add_kernel_api(uint32_t id, uint32_t version, const void *table, const char *name);
/* The ct_get_api_f handed to every plugin. */
void *registry__get_engine_api(uint32_t api, uint32_t version);
/* The plugin whose init/reload/frame hook is running on the main thread (NULL: kernel). */
ct_plugin_o *registry__current_plugin(void);
const char *registry__plugin_name(const ct_plugin_o *plugin); /* "kernel" for NULL */
/* The plugin's version ({0} for NULL, the kernel). */
ct_semver_t registry__plugin_version(const ct_plugin_o *plugin);
ct_allocator_t *registry__plugin_allocator(ct_plugin_o *plugin); /* root for NULL */
const ct_registry_api_v1 *registry__api_v1(void);
const ct_registry_api_v2 *registry__api_v2(void);
const ct_registry_api_v3 *registry__api_v3(void);

#endif
