/*
 * ct_plugin.h: the plugin ABI. Read this first if you write a plugin or a module.
 *
 * A plugin is a shared library that exports exactly one symbol:
 *
 *     CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version);
 *
 * The kernel calls it with CT_PLUGIN_API at the newest version it knows (1), then older ones (0),
 * and uses the first non-NULL answer. It also calls it with the ids of the APIs a plugin says it
 * provides, to hand those tables to other plugins. In return the plugin gets `get_engine_api`
 * (a ct_get_api_f) from which it asks for everything it needs: kernel services (log, memory, jobs,
 * Lua, data, resources, registry) and APIs other modules provide. The plugin links nothing of the
 * engine.
 *
 * API ids are the 32-bit MurmurHash2 (seed 0) of the API's name, e.g. "ct.lua", so anyone can mint
 * an id for "acme.weather" without a central table (tools/cuttle-hash prints the constant). A test
 * checks every id defined in api/ against its name.
 *
 * Versions: `version` is the major version of a frozen struct. A struct `ct_x_api_vN` once
 * published never changes size, order or meaning; a change is a new struct `ct_x_api_vN+1`, and
 * the provider keeps answering for N (usually as a thin adapter). tests/abi checks the layout of
 * every frozen struct against a checked-in manifest.
 *
 * Lifetime of tables: `get_engine_api` returns tables owned by the kernel at stable addresses.
 * Keep the table pointer (not single function pointers copied out of it): on a hot reload the
 * kernel swaps the functions underneath and your pointer stays valid.
 *
 * Version 0 is the seed's original plugin interface, kept working forever:
 *
 *     static void init(ct_get_api_f get_engine_api) { ... }
 *     CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version) {
 *         if (api == CT_PLUGIN_API && version == 0) {
 *             static ct_plugin_api_v0 p = { init };
 *             return &p;
 *         }
 *         return NULL;
 *     }
 *
 * Version 1 adds a name, a semantic version, declared provided/required APIs (the kernel computes
 * the load order from them), init that can fail, shutdown, per-frame hooks and hot-reload hooks.
 */
#ifndef CT_PLUGIN_H
#define CT_PLUGIN_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_PLUGIN_API 0xa98c5f54u /* "ct.plugin" */

/* The name of the exported entry point, for loaders and tools. */
#define CT_PLUGIN_ENTRY_SYMBOL "get_plugin_api"

/* Signature of `get_plugin_api` (same shape as get_engine_api). */
typedef ct_get_api_f ct_get_plugin_api_f;

/* The seed's plugin interface: one init function, no way to fail, no metadata. */
typedef struct ct_plugin_api_v0 {
    void (*init)(ct_get_api_f get_engine_api);
} ct_plugin_api_v0;

/* Flags of a ct_api_ref_t. */
enum {
    /* In `requires`: the plugin loads without it (and must handle get_engine_api returning NULL). */
    CT_API_OPTIONAL = 1u << 0,
};

/*
 * One API a plugin provides or requires.
 *   id:       CT_XXX_API.
 *   version:  the major version (struct ct_xxx_api_v<version>).
 *   size:     in `provides`, sizeof the struct; the kernel keeps a copy of that many bytes at a
 *             stable address and swaps it on reload. Ignored in `requires`.
 *   flags:    CT_API_OPTIONAL in `requires`.
 *   name:     the API's name ("ct.transform"), used in messages. Must hash to `id`.
 */
typedef struct ct_api_ref_t {
    uint32_t id;
    uint32_t version;
    uint32_t size;
    uint32_t flags;
    const char *name;
} ct_api_ref_t;

/* A semantic version: major changes break, minor adds, patch fixes. */
typedef struct ct_semver_t {
    uint16_t major, minor, patch, reserved;
} ct_semver_t;

/*
 * Version 1 of the plugin interface. Static data owned by the plugin; every field is read once
 * at load (and again from the new code on a reload). Optional callbacks may be NULL.
 */
typedef struct ct_plugin_api_v1 {
    /* Unique plugin name, e.g. "ct.physics" or "acme.weather". Required. */
    const char *name;
    /* The plugin's own version; a project can pin a major version (see project.sjson). */
    ct_semver_t version;

    /* APIs this plugin answers for in its get_plugin_api. */
    const ct_api_ref_t *provides;
    uint32_t num_provides;
    /* APIs this plugin needs. A required one that no loaded plugin (or the kernel) offers at that
     * version stops this plugin from loading, with a message naming both sides. */
    const ct_api_ref_t *requires;
    uint32_t num_requires;

    /*
     * Called once, in dependency order (every required API is there already). `self` names this
     * plugin to the kernel: pass it to the log and memory APIs. Return 0 or a negative ct_error;
     * on failure the plugin must have released what it took, and the kernel unloads it and the
     * plugins that require it.
     */
    int (*init)(ct_get_api_f get_engine_api, ct_plugin_o *self);
    /* Called once at shutdown, in reverse dependency order. Optional. */
    void (*shutdown)(void);

    /* Per-frame hooks, optional. Called on the main thread around the boot script's update(dt),
     * in load order (begin) and reverse load order (end). */
    void (*frame_begin)(double dt);
    void (*frame_end)(double dt);

    /*
     * Hot reload, optional (without them the plugin is not reloaded, only reported as changed).
     * When the plugin's file changes, the kernel loads the new code and, between two frames:
     *   state = old->reload_save();           old code packs its state (allocated from its
     *                                         plugin allocator, which survives the reload)
     *   err = new->reload_load(get_engine_api, self, state);
     *                                         new code adopts the state, fetches its APIs again and
     *                                         re-registers its Lua functions; 0 or negative error
     * On success the kernel swaps the provided API tables to the new code. On failure the old code
     * keeps running (its state must still be valid: reload_save must not destroy it) and the
     * reason is logged. The old library stays mapped until shutdown, so stale pointers into it
     * (callbacks kept by others) never jump into unmapped memory.
     */
    void *(*reload_save)(void);
    int (*reload_load)(ct_get_api_f get_engine_api, ct_plugin_o *self, void *state);
} ct_plugin_api_v1;

#ifdef __cplusplus
}
#endif
#endif
