/*
 * ct_registry.h: introspection of the loaded plugins. Kernel API "ct.registry".
 *
 * What `cuttle --list` prints, as data: every plugin the kernel tried to load, its version and
 * state, the APIs it provides and requires, the load order, why anything did not load, and the
 * dependencies discovered at run time (every get_engine_api call is recorded with who asked).
 * All strings and arrays are owned by the kernel and valid until the next load, unload or reload.
 * Threads: main thread only.
 */
#ifndef CT_REGISTRY_H
#define CT_REGISTRY_H

#include "ct_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_REGISTRY_API 0x69d00938u /* "ct.registry" */

/* Where a plugin is in its life (ct_plugin_info_t.state). */
typedef enum ct_plugin_state {
    CT_PLUGIN_DISCOVERED = 0, /* found, metadata read, not initialised yet */
    CT_PLUGIN_LOADED = 1,     /* initialised and running */
    CT_PLUGIN_FAILED = 2,     /* did not load: see `error` */
    CT_PLUGIN_SKIPPED = 3,    /* not loaded because a plugin it requires failed: see `error` */
    CT_PLUGIN_SHUT_DOWN = 4,
} ct_plugin_state;

/* What the registry knows of one plugin (or the kernel), for introspection and `cuttle --list`. */
typedef struct ct_plugin_info_t {
    const char *name;    /* the plugin's name ("ct.physics") */
    const char *path;    /* the shared library, or "" for the kernel itself */
    uint32_t plugin_api; /* the CT_PLUGIN_API version it answered (0, 1 or 2) */
    ct_semver_t version;
    uint32_t state;        /* a ct_plugin_state (fixed-width, as in every frozen struct) */
    uint32_t load_index;   /* position in the load order (UINT32_MAX if not loaded) */
    uint32_t reload_count; /* successful hot reloads */
    const ct_api_ref_t *provides;
    uint32_t num_provides;
    /* Named `requires` until SDK 0.1 (a C++20 keyword now); C sources may keep that name. For a
     * v2 plugin, `version` is the lowest accepted; the plugin itself learns the version it got
     * from ct_plugin_host_t.chosen_version (api/ct_plugin.h), and `cuttle --list` prints it. */
#ifdef __cplusplus
    const ct_api_ref_t *required;
#else
    union {
        const ct_api_ref_t *required;
        const ct_api_ref_t *requires;
    };
#endif
    uint32_t num_requires;
    const char *error; /* why it failed or was skipped; "" otherwise */
} ct_plugin_info_t;

/* One recorded get_engine_api call: `who` asked for (api, version) and got a table or NULL. */
typedef struct ct_api_use_t {
    const char *who; /* plugin name, or "kernel" */
    uint32_t api;
    uint32_t version;
    uint8_t answered; /* 1 if a table came back, 0 for NULL */
} ct_api_use_t;

typedef struct ct_registry_api_v1 {
    /* Plugins the kernel knows, whatever their state. */
    uint32_t (*plugin_count)(void);
    /* Fills `out` for plugin i (0 <= i < plugin_count, in discovery order); false if out of range. */
    bool (*plugin_info)(uint32_t i, ct_plugin_info_t *out);
    /* The plugin with that name, or UINT32_MAX. */
    uint32_t (*find_plugin)(const char *name);
    /* Recorded API uses, in first-use order (repeats are recorded once). */
    uint32_t (*api_use_count)(void);
    /* Fills `out` for use i (0 <= i < api_use_count); false if out of range. */
    bool (*api_use)(uint32_t i, ct_api_use_t *out);
    /* The name of a known API id ("ct.lua"), or NULL. */
    const char *(*api_name)(uint32_t api);
} ct_registry_api_v1;

/* Version 2: version 1 (same order) plus what a module needs to own callbacks on behalf of other
 * plugins: who is calling, and whether that plugin is still there. */
typedef struct ct_registry_api_v2 {
    uint32_t (*plugin_count)(void);
    bool (*plugin_info)(uint32_t i, ct_plugin_info_t *out);
    uint32_t (*find_plugin)(const char *name);
    uint32_t (*api_use_count)(void);
    bool (*api_use)(uint32_t i, ct_api_use_t *out);
    const char *(*api_name)(uint32_t api);
    /* The plugin whose init, reload or frame hook is running on the main thread (NULL: the
     * kernel, or another thread). Record it with a callback a plugin hands you. */
    ct_plugin_o *(*current_plugin)(void);
    /* 1 while `plugin` is loaded (NULL, the kernel, always is), 0 once it failed, was skipped or
     * shut down: then its code may be gone, so drop its callbacks instead of calling them. */
    uint32_t (*plugin_loaded)(const ct_plugin_o *plugin);
} ct_registry_api_v2;

/* Version 3: version 2 (same order) plus a plugin's name, so a module that keeps what a plugin
 * registered can say whose it is ("component type 'health' is already registered by plugin
 * 'acme.health'"). Every member:
 *   plugin_count    plugins the kernel knows, whatever their state;
 *   plugin_info     fills `out` for plugin i (0 <= i < plugin_count, discovery order); false if
 *                   out of range;
 *   find_plugin     the plugin with that name, or UINT32_MAX;
 *   api_use_count   recorded API uses, in first-use order (repeats recorded once);
 *   api_use         fills `out` for use i (0 <= i < api_use_count); false if out of range;
 *   api_name        the name of a known API id ("ct.lua"), or NULL;
 *   current_plugin  the plugin whose init, reload or frame hook runs on the main thread (NULL:
 *                   the kernel, or another thread);
 *   plugin_loaded   1 while `plugin` is loaded (NULL, the kernel, always is), 0 once it failed,
 *                   was skipped or shut down;
 *   plugin_name     the name `plugin` declared ("the kernel" for NULL); owned by the kernel and
 *                   valid until it shuts down, whatever the plugin's state. Main thread. */
typedef struct ct_registry_api_v3 {
    uint32_t (*plugin_count)(void);
    bool (*plugin_info)(uint32_t i, ct_plugin_info_t *out);
    uint32_t (*find_plugin)(const char *name);
    uint32_t (*api_use_count)(void);
    bool (*api_use)(uint32_t i, ct_api_use_t *out);
    const char *(*api_name)(uint32_t api);
    ct_plugin_o *(*current_plugin)(void);
    uint32_t (*plugin_loaded)(const ct_plugin_o *plugin);
    const char *(*plugin_name)(const ct_plugin_o *plugin);
} ct_registry_api_v3;

#ifdef __cplusplus
}
#endif
#endif
