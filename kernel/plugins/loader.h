/* The plugin loader: discovery, dependency resolution, init/shutdown order, hot reload. */
#ifndef CT_KERNEL_LOADER_H
#define CT_KERNEL_LOADER_H

#include <stdio.h>
#include <uv.h>

#include "ct_plugin.h"

/* A project's pin: plugin `name` must have major version `major`. */
typedef struct loader_pin_t {
    const char *name;
    uint32_t major;
} loader_pin_t;

/* A project's choice between two providers of one API: `api_name` comes from `plugin`. */
typedef struct loader_provider_t {
    const char *api_name;
    const char *plugin;
} loader_provider_t;

typedef struct loader_desc_t {
    /* Shared libraries named one by one (--plugin). */
    const char *const *plugin_paths;
    uint32_t num_plugin_paths;
    /* Folders searched (with their subfolders) for *.so (--modules). */
    const char *const *module_dirs;
    uint32_t num_module_dirs;
    /* The installed engine's modules folder, searched last (NULL: none). A plugin there whose
     * name an earlier folder or path already has is left out, not a conflict, so --modules and a
     * project's plugin folders can override an installed module. */
    const char *fallback_module_dir;
    /* When non-zero, only plugins with these names are loaded from module_dirs (project.sjson's
     * module list); plugin_paths are always loaded. */
    const char *const *wanted;
    uint32_t num_wanted;
    const loader_pin_t *pins;
    uint32_t num_pins;
    const loader_provider_t *providers;
    uint32_t num_providers;
    /* Any load problem makes loader__load fail (the kernel then exits non-zero). */
    bool strict;
    /* Watch the loaded files and hot-reload them; needs `loop`. */
    bool watch;
    uv_loop_t *loop;
} loader_desc_t;

/* Discovers, resolves and initialises. Returns 0, or with strict a negative ct_error when any
 * plugin failed. Without strict, failures are logged and the rest loads. */
int loader__load(const loader_desc_t *desc);
/* The name of the plugin whose library holds `address` (and in *file the path it was loaded
 * from), or NULL: the crash handler's namer (base/crash.h). */
const char *loader__name_address(const void *address, const char **file);
void loader__frame_begin(double dt);
void loader__frame_end(double dt);
/* The safe point between frames: applies reloads whose files changed. Returns how many. */
uint32_t loader__apply_reloads(void);
/* Reloads plugin `name` from its file now (tests use it instead of waiting for fs events). */
int loader__reload(const char *name);
/* Shuts the plugins down: each after every plugin that uses it, declared or discovered. */
void loader__shutdown(void);
/* Destroys the plugin allocators (reporting leaks) and unmaps the plugins' code. Call after
 * loader__shutdown and after the Lua state is closed, since Lua may still hold pointers into
 * plugin code and data until then. */
void loader__unmap(void);
/* What --list prints. */
void loader__print_list(FILE *out);
/* The plugins that loaded, with versions and files, in load order (what `cuttle` prints first). */
void loader__print_load_order(FILE *out);

#endif
