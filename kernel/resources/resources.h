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

/* ---- What the kernel's other parts use (host, project, console); everything else of the
 * service is resources_internal.h's, for kernel/resources/ and cuttle-compile alone. ---- */

/*
 * The compiled folder mirrors the source tree, grouped by type first:
 *     <project>/<name>.<type>                  the source ("levels/arena.level")
 *     <project>/compiled/<type>/<name>.bin     its blob ("compiled/level/levels/arena.bin")
 *     <project>/compiled/manifest.json         what was compiled from what (cuttle-compile)
 * Mirroring names keeps the folder readable and lets a type's blobs be found (or wiped) by
 * directory; the 64-bit ids are only for lookups at runtime.
 */
#define RESOURCES_COMPILED_DIR "compiled"

/* The service's allocator: blobs and whole-file reads. NULL when the service is not running. */
ct_allocator_t *resources__allocator(void);

/* Canonical names (names.c): 0, or CT_ERR_INVALID with why in err. */
int resources__check_name(const char *name, char *err, size_t err_size);
/* Types double as file extensions: lower-case letters, digits and '_' only. */
int resources__check_type_name(const char *type, char *err, size_t err_size);
/* "<project>/compiled/<type>/<name>.bin"; false if it does not fit. */
bool resources__blob_path(const char *project_dir, const char *type, const char *name, char *out,
                          size_t out_size);

/* Where blobs come from instead of <project>/compiled (the file client, --host): fills *blob
 * (from resources__allocator(), size + 1 bytes) and *size, and names the blob in `path` for
 * messages; returns 0 or a negative ct_error, having logged why. NULL: the disk again. */
typedef int (*resources_blob_source_f)(void *ctx, const char *type, const char *name, char *path,
                                       size_t path_size, uint8_t **blob, uint64_t *size);
void resources__set_blob_source(resources_blob_source_f fn, void *ctx);
/* Reads and validates the blob again and swaps the runtime object (the type's unload releases the
 * old one; get() returns the new one). On any error the loaded version stays. */
int resources__reload(const char *type, const char *name);

#endif
