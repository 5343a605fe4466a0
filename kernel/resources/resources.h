/* Resources: canonical names, blob validation, type registry, loading (and compiling one source
 * for load_source); behind ct_resource_api_v1. Whole projects are compiled by cuttle-compile. */
#ifndef CT_KERNEL_RESOURCES_H
#define CT_KERNEL_RESOURCES_H

#include "ct_resource.h"

/* `project_dir` may be NULL (no project: only load_source works). */
int resources__init(const char *project_dir, bool strict);
void resources__shutdown(void);
/* Validates a whole blob (header + payload) of `size` bytes against `type_name` and
 * `format_version`; on success points *payload at the payload. Never reads out of bounds. */
int resources__validate_blob(const void *blob, uint64_t size, const char *type_name,
                             uint32_t format_version, const void **payload, uint64_t *payload_size,
                             char *err, size_t err_size);

/* A resource type belongs to the plugin that registered it (the current plugin, see
 * registry__current_plugin). drop removes the plugin's types that are left (init failed, or it
 * shut down without unregistering them), unloading their resources first. A hot reload keeps the
 * plugin's types reversible: begin remembers them; end with keep_new false puts the old
 * callbacks back and removes types only the refused code registered. */
void resources__drop_types_of(ct_plugin_o *plugin);
void resources__reload_begin(ct_plugin_o *plugin);
void resources__reload_end(ct_plugin_o *plugin, bool keep_new);

/* Registers the Lua module Resource (load, unload); needs the Lua environment. */
int resources__bind_lua(void);
const ct_resource_api_v1 *resources__api_v1(void);
const ct_resource_api_v2 *resources__api_v2(void);
const ct_resource_api_v3 *resources__api_v3(void);
const ct_resource_api_v4 *resources__api_v4(void);
const ct_resource_api_v5 *resources__api_v5(void);
const ct_resource_api_v6 *resources__api_v6(void);

/* Reloads the resources whose followed sources changed (ct_resource_api_v5.watch_source); the
 * kernel calls it at each frame's safe point, after plugin reloads. */
void resources__poll_watched(void);

#endif
