/*
 * ct_plugin.h: the plugin ABI. Read this first if you write a plugin or a module.
 *
 * A plugin is a shared library that exports exactly one symbol (declared below, so a wrong
 * signature fails to compile and -Wmissing-prototypes stays quiet):
 *
 *     CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version);
 *
 * The kernel calls it with CT_PLUGIN_API at the newest version it knows (2), then older ones (1,
 * 0), and uses the first non-NULL answer. It also calls it with the ids of the APIs a plugin says
 * it provides, to hand those tables to other plugins. In return the plugin gets `get_engine_api`
 * (a ct_get_api_f) from which it asks for everything it needs: kernel services (log, memory, jobs,
 * Lua, data, resources, registry) and APIs other modules provide. The plugin links nothing of the
 * engine. `get_plugin_api` must have no side effects: the kernel may call it before init, any
 * number of times, and never calls it while it holds a lock (remembering the same constant on
 * every call, as ct_module.h's ct_module_v2_serve does, is harmless).
 *
 * API ids are the 32-bit MurmurHash2 (seed 0) of the API's name, e.g. "ct.lua", so anyone can mint
 * an id for "acme.weather" without a central table (tools/cuttle-hash prints the constant). A test
 * checks every id defined in api/ against its name. In a plugin's declared lists, write references
 * with CT_API_REQUIRE/CT_API_PROVIDE (below): they leave the id 0 and the kernel hashes the name,
 * so the id and the name can never disagree.
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
 * Files: a plugin's file is named after the plugin, with every character other than a letter,
 * digit, '-' or '_' turned into '_', plus ".so": "ct.physics" is ct_physics.so, "acme.weather"
 * acme_weather.so. When a project lists its modules, the kernel opens only the files in its module
 * folders whose names are those of the listed plugins (a --plugin path is always opened).
 * A --plugin argument is a file path, never a library search: "libm.so.6" means ./libm.so.6.
 * The kernel loads a private copy of every plugin file, so the file can be rebuilt, copied over or
 * truncated while the engine runs.
 *
 * Threads. Every callback of the plugin interface (init, shutdown, frame hooks, reload hooks) runs
 * on the main thread, one at a time. get_engine_api may be called from any thread. A hot reload
 * swaps code between two frames on the main thread: your own threads (and jobs you started) must
 * be stopped or parked by reload_save, since the kernel does not know them; tables you got from
 * get_engine_api stay valid across reloads of their providers, the function pointers in them
 * change only between frames.
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
 * the load order from them), init that can fail, shutdown, per-frame hooks and hot-reload hooks:
 *
 *     static const ct_api_ref_t provides[] = { CT_API_PROVIDE("acme.weather", 1, acme_weather_api_v1) };
 *     static const ct_api_ref_t needs[] = { CT_API_REQUIRE("ct.log", 1), CT_API_REQUIRE("ct.lua", 1) };
 *     static int init(ct_get_api_f get_engine_api, ct_plugin_o *self) { ...; return 0; }
 *
 *     CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version) {
 *         static const ct_plugin_api_v1 plugin = {
 *             .name = "acme.weather", .version = {1, 0, 0, 0},
 *             .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
 *             .required = needs, .num_requires = CT_ARRAY_COUNT(needs),
 *             .init = init,
 *         };
 *         static const acme_weather_api_v1 weather = { ... };
 *         if (api == CT_PLUGIN_API && version == 1) return (void *)&plugin;
 *         if (api == ACME_WEATHER_API && version == 1) return (void *)&weather;
 *         return NULL;
 *     }
 *
 * Version 2 (ct_plugin_api_v2 below) hands every callback the plugin's own context pointer (no
 * global state needed), accepts a range of major versions per requirement, tells the plugin the
 * kernel's version, gives the old code an abort hook when a reload fails after it saved, and
 * starts with a magic and its size so the kernel can check the table before it trusts it.
 * sample_plugins/hello_v1 is a complete v1 plugin; sample_plugins/weather one in v2 (and
 * api/ct_module.h writes the entry of a v2 plugin that keeps its state in one block).
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

/* The number of elements of an array (an array, not a pointer), as a uint32_t. */
#define CT_ARRAY_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))

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
 *             stable address and swaps it on reload. Ignored in `requires`. A provided "ct.*"
 *             table (a studio's replacement of an engine module) is checked at load against
 *             this SDK's header for that version: a size other than sizeof ct_xxx_api_v<version>,
 *             or a function slot left NULL, refuses the plugin naming the API and the slot,
 *             unless the header's comment on the slot says "optional slot".
 *   flags:    CT_API_OPTIONAL in `requires`.
 *   name:     the API's name ("ct.transform"), used in messages. Must hash to `id`; with `id` 0
 *             the kernel takes the hash of `name` (what the CT_API_ macros below write).
 */
typedef struct ct_api_ref_t {
    uint32_t id;
    uint32_t version;
    uint32_t size;
    uint32_t flags;
    const char *name;
} ct_api_ref_t;

/* References built from the API's name and major version: `id` 0 makes the kernel use the hash
 * of `name`, so the two cannot disagree. PROVIDE also takes the table's type for its size. */
#define CT_API_REQUIRE(name, version)                                                              \
    {                                                                                              \
        0u, (version), 0u, 0u, (name)                                                              \
    }
#define CT_API_REQUIRE_OPTIONAL(name, version)                                                     \
    {                                                                                              \
        0u, (version), 0u, CT_API_OPTIONAL, (name)                                                 \
    }
#define CT_API_PROVIDE(name, version, type)                                                        \
    {                                                                                              \
        0u, (version), (uint32_t)sizeof(type), 0u, (name)                                          \
    }

/* A semantic version: `major` changes break, `minor` adds, `patch` fixes. */
typedef struct ct_semver_t {
    uint16_t major, minor, patch;
    uint16_t reserved; /* 0 */
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
     * version stops this plugin from loading, with a message naming both sides.
     * The field was named `requires` until SDK 0.1; C++20 made that word a keyword, so it is
     * `required` now (same place, same type: compiled plugins are unaffected). C sources may keep
     * writing `.requires`: in C both names are members of one anonymous union. */
#ifdef __cplusplus
    const ct_api_ref_t *required;
#else
    union {
        const ct_api_ref_t *required;
        const ct_api_ref_t *requires;
    };
#endif
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

/* ---- Plugin API version 2 ---------------------------------------------------------------- */

/* First field of a ct_plugin_api_v2: "CTP2". */
#define CT_PLUGIN_MAGIC 0x32505443u

/*
 * One API a v2 plugin needs: any major version from `min_version` to `max_version` (0: just
 * min_version). The kernel picks the highest one offered and tells the plugin which
 * (ct_plugin_host_t.chosen_version). `id` 0 means the hash of `name`, as in ct_api_ref_t.
 */
typedef struct ct_api_need_t {
    uint32_t id;
    uint32_t min_version;
    uint32_t max_version;
    uint32_t flags; /* CT_API_OPTIONAL */
    const char *name;
} ct_api_need_t;

/* What ct_plugin_host_t.chosen_version says of an optional API that is not there. */
#define CT_API_ABSENT 0xffffffffu

#define CT_API_NEED(name, version)                                                                 \
    {                                                                                              \
        0u, (version), 0u, 0u, (name)                                                              \
    }
#define CT_API_NEED_RANGE(name, min_version, max_version)                                          \
    {                                                                                              \
        0u, (min_version), (max_version), 0u, (name)                                               \
    }
#define CT_API_NEED_OPTIONAL(name, min_version, max_version)                                       \
    {                                                                                              \
        0u, (min_version), (max_version), CT_API_OPTIONAL, (name)                                  \
    }

/*
 * What the kernel tells a v2 plugin, in init and reload_load. Owned by the kernel and valid until
 * the plugin is shut down (keep the pointer in your context).
 */
typedef struct ct_plugin_host_t {
    /* The kernel's get_engine_api: asks for any API by id and version (NULL: not there). */
    ct_get_api_f get_engine_api;
    /* This plugin, to pass to the log and memory APIs. */
    ct_plugin_o *self;
    /* The engine's version, and the plugin API versions it serves (0 to 2 today). */
    ct_semver_t kernel_version;
    uint32_t plugin_api_min;
    uint32_t plugin_api_max;
    /* The major version the kernel chose for `required[index]` of this plugin's table;
     * CT_API_ABSENT when an optional API is not there (or the index is out of range). */
    uint32_t (*chosen_version)(ct_plugin_o *self, uint32_t index);
} ct_plugin_host_t;

/*
 * Version 2 of the plugin interface. Like v1, static data owned by the plugin, read at load and
 * again from the new code on a reload. Every callback gets the context pointer that init (or
 * reload_load) set, so the plugin needs no globals. Optional callbacks may be NULL.
 */
typedef struct ct_plugin_api_v2 {
    uint32_t magic;       /* CT_PLUGIN_MAGIC */
    uint32_t struct_size; /* sizeof(ct_plugin_api_v2) */
    const char *name;
    ct_semver_t version;
    const ct_api_ref_t *provides;
    uint32_t num_provides;
    uint32_t num_required;
    const ct_api_need_t *required;

    /* Called once, in dependency order. Set *ctx to your context (usually your state block from
     * the plugin allocator). Return 0 or a negative ct_error; on failure release what you took:
     * the kernel removes what you registered and unloads you. */
    int (*init)(const ct_plugin_host_t *host, void **ctx);
    /* Called once at shutdown, after every plugin that uses you shut down. */
    void (*shutdown)(void *ctx);
    /* Per-frame hooks, as in v1. */
    void (*frame_begin)(void *ctx, double dt);
    void (*frame_end)(void *ctx, double dt);

    /*
     * Hot reload, as in v1, with the context:
     *   state = old->reload_save(ctx)            the old code hands over its state block; it still
     *                                            owns it and must keep it valid
     *   err = new->reload_load(host, state, &ctx)
     *                                            0: the new code owns the block (and ctx) now
     *   old->reload_abort(ctx, state)            only when the new code refused (or failed): the
     *                                            old code owns the block again and keeps running
     * The kernel never frees the block.
     */
    void *(*reload_save)(void *ctx);
    int (*reload_load)(const ct_plugin_host_t *host, void *state, void **ctx);
    void (*reload_abort)(void *ctx, void *state);
} ct_plugin_api_v2;

/* The entry point every plugin defines (see the top of this file). */
CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version);

#ifdef __cplusplus
}
#endif
#endif
