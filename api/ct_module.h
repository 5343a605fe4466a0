/*
 * ct_module.h: the entry of a plugin that keeps its state in one block, written once (an SDK
 * helper, no API id: inline functions only). The engine's own modules use it; so can you.
 *
 * What every such plugin does at its entry, the helpers below do from one description:
 *   connect   fetch each API of the plugin's required list into the plugin's own pointer
 *             (the same list the kernel checks, so the two cannot disagree), and its allocator;
 *   init      connect, take a zeroed state block with its ct_reload_header_t (ct_reload.h), then
 *             call the plugin's `start`; a failure gives the block back;
 *   shutdown  call the plugin's `stop`, then give the block back;
 *   reload    in the new code: connect, adopt the old code's block when its layout is this
 *             code's (ct_reload_adopt), then call the plugin's `rebind`;
 *   serve     answer get_plugin_api from a list of (id, version, table).
 *
 * The description to write today is a ct_module_v3_t (plugin API v2; what the engine's modules
 * use): one list of the APIs the plugin needs, each entry pairing the API's name, its version and
 * the plugin's pointer that receives its table, and the compiler checks that the pointer has the
 * table's type. The plugin writes no hook of its own: the context pointer the kernel hands every
 * hook is the description.
 *
 *     #define MY_LAYOUT 1u  // bump whenever my_state_t changes
 *     typedef struct my_state_t { ct_reload_header_t header; uint64_t greetings; } my_state_t;
 *     static const ct_log_api_v1 *log_api;
 *     static const ct_lua_api_v1 *lua_api;
 *     static ct_plugin_o *self_;
 *     static ct_allocator_t *allocator;
 *     static my_state_t *state;
 *
 *     static const ct_module_api_t apis[] = {
 *         CT_MODULE_API(log, 1, &log_api),   // "ct.log" v1 into a const ct_log_api_v1 *
 *         CT_MODULE_API(lua, 1, &lua_api),
 *         CT_MODULE_API_NO_SLOT(memory, 1),  // only has to be there (the allocator comes from it)
 *     };
 *
 *     static int start(void) { register_lua(); return 0; }
 *
 *     static const ct_module_v3_t module = {
 *         .plugin = {CT_MODULE_V3_HOOKS, .name = "acme.hello", .version = {1, 0, 0, 0}},
 *         .apis = apis, .num_apis = CT_ARRAY_COUNT(apis),
 *         .module = {.self = &self_, .allocator = &allocator, .state = &state,
 *                    .state_size = sizeof(my_state_t), .layout_version = MY_LAYOUT,
 *                    .start = start, .rebind = start},
 *     };
 *
 *     CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
 *     {
 *         static const ct_api_table_t tables[] = {{ACME_HELLO_API, 1, &hello}};
 *         return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
 *     }
 *
 * `CT_MODULE_API(lua, 1, &lua_api)` names the API "ct.lua" at version 1 and takes `&lua_api` only
 * when it is a `const ct_lua_api_v1 **`: a slot of another API, or of another version of this
 * one, does not compile. An API outside "ct." is named by its prefix:
 * `CT_MODULE_API_OF(acme, weather, 1, &weather)` is "acme.weather" v1 into a
 * `const acme_weather_api_v1 *`. An entry needs one version (a range would leave the slot's type
 * to the kernel's choice). `.plugin` is the plugin's ct_plugin_api_v2 without `required`: what
 * the kernel reads as `required` is made from `apis` by ct_module_v3_serve (see there).
 *
 * The older descriptions stay served for plugins written against them: ct_module_v2_t (plugin API
 * v2, with `required` and a parallel list of untyped slots) and ct_module_t alone (plugin API v1).
 * Their slots are checked by nothing but the count; new code should not use them.
 *
 * Plugin API v2 through a ct_module_v2_t (the same plugin as above, the old way):
 *
 *     static const ct_api_need_t required[] = {
 *         CT_API_NEED("ct.log", 1), CT_API_NEED("ct.lua", 1), CT_API_NEED("ct.memory", 1),
 *     };
 *     // Where each API of `required` goes, in the same order (NULL: it only has to be there).
 *     static void *const api_slots[] = {&log_api, &lua_api, NULL};
 *
 *     static const ct_module_v2_t module = {
 *         .plugin = {CT_MODULE_V2_HOOKS, .name = "acme.hello", .version = {1, 0, 0, 0},
 *                    .required = required, .num_required = CT_ARRAY_COUNT(required)},
 *         .module = {.api_slots = api_slots, .num_api_slots = CT_ARRAY_COUNT(api_slots),
 *                    .self = &self_, .allocator = &allocator, .state = &state,
 *                    .state_size = sizeof(my_state_t), .layout_version = MY_LAYOUT,
 *                    .start = start, .rebind = start},
 *     };
 *     // get_plugin_api as above, through ct_module_v2_serve.
 *
 * `.plugin` is the plugin's ct_plugin_api_v2 as the kernel reads it: name, version, `provides`,
 * `required` (what connect fetches, at the version the kernel chose), and frame hooks if any
 * (they get the description as their context). CT_MODULE_V2_HOOKS fills its magic, its size and
 * its init, shutdown and reload hooks with the helpers; `.module.apis` stays NULL. A v2 or v3
 * hook's context is a `const ct_module_v2_t *` (`const ct_module_v3_t *`) handed over as
 * `void *`: nothing writes through it.
 *
 * Why get_plugin_api goes through ct_module_v2_serve (ct_module_v3_serve): v2's init and
 * reload_load are the hooks that make the context, so nothing hands them one. Each plugin that
 * includes this header has its own copy of the helpers, and a host can only reach their
 * addresses by asking get_plugin_api for the plugin table first; so the serve helper remembers
 * `m` (the same pointer every call) and the helpers' init and reload_load find it there. The
 * description and get_plugin_api therefore live in one source file; a hook that finds no
 * description fails with CT_ERR_INVALID, saying so.
 * Plugin API v1 hands its callbacks no context, so each one names a ct_module_t:
 *
 *     static const ct_api_ref_t required[] = {
 *         CT_API_REQUIRE("ct.log", 1), CT_API_REQUIRE("ct.lua", 1), CT_API_REQUIRE("ct.memory", 1),
 *     };
 *     static const ct_module_t module = {
 *         .apis = required, .num_apis = CT_ARRAY_COUNT(required),
 *         .api_slots = api_slots, .num_api_slots = CT_ARRAY_COUNT(api_slots),
 *         .self = &self_, .allocator = &allocator,
 *         .state = &state, .state_size = sizeof(my_state_t), .layout_version = MY_LAYOUT,
 *         .start = start, .rebind = start,
 *     };
 *
 *     static int init(ct_get_api_f get, ct_plugin_o *self) { return ct_module_init(&module, get, self); }
 *     static void shutdown(void) { ct_module_shutdown(&module); }
 *     static void *reload_save(void) { return ct_module_state(&module); }
 *     static int reload_load(ct_get_api_f get, ct_plugin_o *self, void *saved)
 *     {
 *         return ct_module_reload(&module, get, self, saved);
 *     }
 *
 *     CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
 *     {
 *         static const ct_plugin_api_v1 plugin = { .name = "acme.hello", ..., .required = required,
 *             .num_requires = CT_ARRAY_COUNT(required), .init = init, .shutdown = shutdown,
 *             .reload_save = reload_save, .reload_load = reload_load };
 *         static const ct_api_table_t tables[] = {{CT_PLUGIN_API, 1, &plugin}, {ACME_HELLO_API, 1, &hello}};
 *         return ct_module_serve(tables, CT_ARRAY_COUNT(tables), api, version);
 *     }
 *
 * Slots: a ct_module_api_t's `slot`, `api_slots[i]` and `state` are the addresses of the
 * plugin's own pointers (a `const ct_xxx_api_vN *`, a `my_state_t *`); the helpers store into
 * them with memcpy, as every object pointer has one representation on the platforms Cuttle builds
 * for. Only ct_module_api_t's macros check a slot's type; in the older descriptions keep the two
 * lists side by side, in one order. A v2 requirement given as a range fills its slot with the
 * table of the version the kernel chose, and these helpers do not say which: give a slot one
 * version.
 *
 * Errors: a required API that is not there fails connect with CT_ERR_MISSING_API, logged with its
 * name and version (through ct.log v1 when that is there); a v1/v2 description whose two lists
 * differ in length fails with CT_ERR_INVALID; a ct_module_v3_t with more than CT_MODULE_MAX_APIS
 * APIs gets no plugin table from ct_module_v3_serve (the kernel reports the NULL answer).
 * Threads: the kernel calls the plugin's entry hooks on the main thread, one at a time
 * (ct_plugin.h); so do these helpers.
 */
#ifndef CT_MODULE_H
#define CT_MODULE_H

#include <string.h>

#include "ct_hash.h"
#include "ct_log.h"
#include "ct_memory.h"
#include "ct_plugin.h"
#include "ct_reload.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the helpers need to know of a plugin: static data owned by the plugin. Every pointer field
 * but `apis`/`api_slots` (when there are APIs), `allocator` and `state` may be NULL.
 */
typedef struct ct_module_t {
    /* The plugin's `required` list (ct_plugin_api_v1.required), and where each one's table goes:
     * api_slots[i] is the address of the pointer for apis[i], or NULL for an API the plugin only
     * needs to be there. An optional API that is not there leaves its pointer NULL. */
    const ct_api_ref_t *apis;
    uint32_t num_apis;
    void *const *api_slots;
    uint32_t num_api_slots; /* must equal num_apis */

    /* Where connect stores the plugin's handle (`self` of init) and its plugin allocator
     * (ct.memory v1, which `apis` must list). `allocator` is required: the state block is its. */
    ct_plugin_o **self;
    ct_allocator_t **allocator;

    /* The state block that survives reloads: `state` is the address of the plugin's pointer to
     * it; it is `state_size` bytes, starts with a ct_reload_header_t and has layout
     * `layout_version` (bump it whenever the block, or what it points to, changes). */
    void *state;
    size_t state_size;
    uint32_t layout_version;

    /* At init, once the APIs are fetched and the zeroed block (with its header) is in place:
     * register what the plugin offers (types, resources, Lua functions). Return 0, or a negative
     * ct_error after undoing its own steps; the helper then gives the block back. */
    int (*start)(void);
    /* At shutdown, before the helper gives the block back: remove what start registered and free
     * what the block points to. */
    void (*stop)(void);
    /* In the new code on a reload, once it adopted the block: point what others call back into
     * (Lua functions, component and resource types, callbacks) at this code. Return 0, or a
     * negative ct_error: the kernel then keeps the old code running, with the block. */
    int (*rebind)(void);
} ct_module_t;

/* One table a plugin answers for in get_plugin_api. */
typedef struct ct_api_table_t {
    uint32_t id;       /* CT_PLUGIN_API, or the id of an API the plugin provides */
    uint32_t version;  /* its major version */
    const void *table; /* static data of the plugin */
} ct_api_table_t;

/* The table for (api, version) from `tables`, or NULL when the plugin does not serve it. Tables
 * are handed out as `void *` (get_plugin_api's type); nobody writes through them. */
static inline void *ct_module_serve(const ct_api_table_t *tables, uint32_t count, uint32_t api,
                                    uint32_t version)
{
    for (uint32_t i = 0; i < count; i++)
        if (tables[i].id == api && tables[i].version == version)
            return (void *)tables[i].table;
    return NULL;
}

/* Stores `value` in the plugin's pointer at `slot` (see "Slots" above). */
static inline void ct_module__store(void *slot, const void *value)
{
    memcpy(slot, &value, sizeof value);
}

/* The plugin's state block (what reload_save hands over: the old code keeps it valid should the
 * new code refuse it). */
static inline void *ct_module_state(const ct_module_t *m)
{
    void *state;
    memcpy(&state, m->state, sizeof state);
    return state;
}

/* Whether m->api_slots has one slot for each of the `num_apis` APIs of the plugin's list; logs
 * the difference when not. */
static inline bool ct_module__slots_fit(const ct_module_t *m, uint32_t num_apis,
                                        const ct_log_api_v1 *log, ct_plugin_o *self)
{
    if (m->num_api_slots == num_apis)
        return true;
    if (log)
        log->write(self, CT_LOG_ERROR, "ct_module_t lists %u APIs but %u slots for them",
                   (unsigned)num_apis, (unsigned)m->num_api_slots);
    return false;
}

/* Fetches API `id` (0: the hash of `name`) at `version` into `slot` (NULL: none). 0, or
 * CT_ERR_MISSING_API (logged) when it is not there and `flags` does not say CT_API_OPTIONAL. */
static inline int ct_module__fetch(ct_get_api_f get_engine_api, const ct_log_api_v1 *log,
                                   ct_plugin_o *self, void *slot, uint32_t id, uint32_t version,
                                   uint32_t flags, const char *name)
{
    const void *table = get_engine_api(id ? id : ct_hash32(name), version);
    if (slot)
        ct_module__store(slot, table);
    if (table || (flags & CT_API_OPTIONAL))
        return 0;
    if (log)
        log->write(self, CT_LOG_ERROR, "%s v%u is not there", name, (unsigned)version);
    return CT_ERR_MISSING_API;
}

/* The end of connect, once the APIs are fetched (`err`: whether one was missing): stores the
 * plugin allocator and `self`. */
static inline int ct_module__finish_connect(const ct_module_t *m, ct_get_api_f get_engine_api,
                                            const ct_log_api_v1 *log, ct_plugin_o *self, int err)
{
    const ct_memory_api_v1 *memory = (const ct_memory_api_v1 *)get_engine_api(CT_MEMORY_API, 1);
    *m->allocator = memory ? memory->plugin_allocator(self) : NULL;
    if (m->self)
        *m->self = self;
    if (!*m->allocator && !err) {
        if (log)
            log->write(self, CT_LOG_ERROR, "ct.memory v1 gives no plugin allocator");
        err = CT_ERR_MISSING_API;
    }
    return err;
}

/*
 * Fetches every API of m->apis into its slot, and stores `self` and the plugin allocator: what
 * init and reload do first (the new code of a reload starts with empty statics). 0, or
 * CT_ERR_MISSING_API (logged) when a required API is not there.
 */
static inline int ct_module_connect(const ct_module_t *m, ct_get_api_f get_engine_api,
                                    ct_plugin_o *self)
{
    const ct_log_api_v1 *log = (const ct_log_api_v1 *)get_engine_api(CT_LOG_API, 1);
    if (!ct_module__slots_fit(m, m->num_apis, log, self))
        return CT_ERR_INVALID;
    int err = 0;
    for (uint32_t i = 0; i < m->num_apis; i++) {
        const ct_api_ref_t *ref = &m->apis[i];
        if (ct_module__fetch(get_engine_api, log, self, m->api_slots[i], ref->id, ref->version,
                             ref->flags, ref->name) < 0)
            err = CT_ERR_MISSING_API;
    }
    return ct_module__finish_connect(m, get_engine_api, log, self, err);
}

/* What init does once connected: a zeroed state block with its header, then m->start. 0, or the
 * negative ct_error of the step that failed (the block is given back). */
static inline int ct_module__start(const ct_module_t *m)
{
    void *state = ct_alloc(*m->allocator, m->state_size);
    if (!state)
        return CT_ERR_NOMEM;
    memset(state, 0, m->state_size);
    const ct_reload_header_t header = ct_reload_header(m->state_size, m->layout_version);
    memcpy(state, &header, sizeof header);
    ct_module__store(m->state, state);
    int err = m->start ? m->start() : 0;
    if (err != 0) {
        ct_module__store(m->state, NULL);
        ct_free(*m->allocator, state, m->state_size);
    }
    return err;
}

/* The plugin's init: connect, a zeroed state block with its header, then m->start. 0, or the
 * negative ct_error of the step that failed (the block is given back). */
static inline int ct_module_init(const ct_module_t *m, ct_get_api_f get_engine_api,
                                 ct_plugin_o *self)
{
    int err = ct_module_connect(m, get_engine_api, self);
    return err < 0 ? err : ct_module__start(m);
}

/* The plugin's shutdown: m->stop, then the block is given back. */
static inline void ct_module_shutdown(const ct_module_t *m)
{
    if (m->stop)
        m->stop();
    ct_free(*m->allocator, ct_module_state(m), m->state_size);
    ct_module__store(m->state, NULL);
}

/* What reload does once connected: adopt `saved` when its layout is this code's (else
 * CT_ERR_VERSION, logged through `log`), then m->rebind. */
static inline int ct_module__adopt(const ct_module_t *m, const ct_log_api_v1 *log,
                                   ct_plugin_o *self, void *saved)
{
    int err = ct_reload_adopt(log, self, saved, m->state_size, m->layout_version);
    if (err < 0)
        return err;
    ct_module__store(m->state, saved);
    return m->rebind ? m->rebind() : 0;
}

/* The new code's reload_load: connect, adopt `saved` when its layout is this code's (else
 * CT_ERR_VERSION, logged), then m->rebind. 0, or the negative ct_error of the step that failed. */
static inline int ct_module_reload(const ct_module_t *m, ct_get_api_f get_engine_api,
                                   ct_plugin_o *self, void *saved)
{
    int err = ct_module_connect(m, get_engine_api, self);
    if (err < 0)
        return err;
    return ct_module__adopt(m, (const ct_log_api_v1 *)get_engine_api(CT_LOG_API, 1), self, saved);
}

/* ---- Plugin API v2 ------------------------------------------------------------------------ */

/*
 * A plugin-API-v2 plugin's description: its plugin table and what the helpers need to know of it.
 * Static data owned by the plugin, in the file that defines get_plugin_api (see the top).
 */
typedef struct ct_module_v2_t {
    /* The table the kernel reads (ct_module_v2_serve answers CT_PLUGIN_API v2 with it). Start its
     * initializer with CT_MODULE_V2_HOOKS; `required` is the list connect fetches. */
    ct_plugin_api_v2 plugin;
    /* Slots, state block and the plugin's start/stop/rebind, as in v1; `apis` stays NULL and
     * `num_api_slots` must equal plugin.num_required. */
    ct_module_t module;
} ct_module_v2_t;

/* The fields of a ct_module_v2_t's plugin table that the helpers fill: its magic, its size and
 * its init, shutdown and reload hooks. (C takes designators in any order; C++20 wants them in
 * the struct's order, so a C++ plugin writes these fields out where they belong.) */
#define CT_MODULE_V2_HOOKS                                                                         \
    .magic = CT_PLUGIN_MAGIC, .struct_size = (uint32_t)sizeof(ct_plugin_api_v2),                   \
    .init = ct_module_v2_init, .shutdown = ct_module_v2_shutdown,                                  \
    .reload_save = ct_module_v2_reload_save, .reload_load = ct_module_v2_reload_load,              \
    .reload_abort = ct_module_v2_reload_abort

/* Where this plugin's copy of the helpers keeps the description its get_plugin_api serves (a
 * static inline function has one copy, with its own static, in each file that uses it). */
static inline const ct_module_v2_t **ct_module_v2__served(void)
{
    static const ct_module_v2_t *served;
    return &served;
}

/* The plugin's get_plugin_api: m's plugin table for CT_PLUGIN_API v2, else the table for (api,
 * version) from `tables` (as ct_module_serve), or NULL. Remembers `m` for init and reload_load. */
static inline void *ct_module_v2_serve(const ct_module_v2_t *m, const ct_api_table_t *tables,
                                       uint32_t count, uint32_t api, uint32_t version)
{
    const ct_module_v2_t **served = ct_module_v2__served();
    if (*served != m)
        *served = m;
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&m->plugin;
    return ct_module_serve(tables, count, api, version);
}

/* The description a hook's context points at. */
static inline const ct_module_v2_t *ct_module_v2__of(void *ctx)
{
    return (const ct_module_v2_t *)ctx;
}

/* The description init and reload_load work for (NULL, logged, when get_plugin_api did not
 * serve one through this copy of the helpers). */
static inline const ct_module_v2_t *ct_module_v2__find(const ct_plugin_host_t *host,
                                                       const ct_log_api_v1 *log)
{
    const ct_module_v2_t *m = *ct_module_v2__served();
    if (!m && log)
        log->write(host->self, CT_LOG_ERROR,
                   "ct_module_v2_t: get_plugin_api served no "
                   "description through ct_module_v2_serve in the file of its hooks");
    return m;
}

/* Connect for v2: every API of m->plugin.required, at the version the kernel chose, into its
 * slot; then the plugin allocator and `self`, from the host. */
static inline int ct_module_v2_connect(const ct_module_v2_t *m, const ct_plugin_host_t *host)
{
    const ct_plugin_api_v2 *p = &m->plugin;
    const ct_log_api_v1 *log = (const ct_log_api_v1 *)host->get_engine_api(CT_LOG_API, 1);
    if (!ct_module__slots_fit(&m->module, p->num_required, log, host->self))
        return CT_ERR_INVALID;
    int err = 0;
    for (uint32_t i = 0; i < p->num_required; i++) {
        const ct_api_need_t *need = &p->required[i];
        uint32_t version =
            host->chosen_version ? host->chosen_version(host->self, i) : CT_API_ABSENT;
        if (version == CT_API_ABSENT)
            version = need->min_version;
        if (ct_module__fetch(host->get_engine_api, log, host->self, m->module.api_slots[i],
                             need->id, version, need->flags, need->name) < 0)
            err = CT_ERR_MISSING_API;
    }
    return ct_module__finish_connect(&m->module, host->get_engine_api, log, host->self, err);
}

/* init of a ct_module_v2_t (CT_MODULE_V2_HOOKS): as ct_module_init; the context is the
 * description. */
static inline int ct_module_v2_init(const ct_plugin_host_t *host, void **ctx)
{
    const ct_module_v2_t *m =
        ct_module_v2__find(host, (const ct_log_api_v1 *)host->get_engine_api(CT_LOG_API, 1));
    if (!m)
        return CT_ERR_INVALID;
    int err = ct_module_v2_connect(m, host);
    if (err == 0)
        err = ct_module__start(&m->module);
    if (err == 0)
        ct_module__store(ctx, m);
    return err;
}

/* shutdown of a ct_module_v2_t: as ct_module_shutdown. */
static inline void ct_module_v2_shutdown(void *ctx)
{
    ct_module_shutdown(&ct_module_v2__of(ctx)->module);
}

/* reload_save of a ct_module_v2_t: the state block as is (the old code keeps it valid should
 * the new code refuse it). */
static inline void *ct_module_v2_reload_save(void *ctx)
{
    return ct_module_state(&ct_module_v2__of(ctx)->module);
}

/* reload_load of a ct_module_v2_t (in the new code): as ct_module_reload; on success the context
 * is the new code's description. */
static inline int ct_module_v2_reload_load(const ct_plugin_host_t *host, void *saved, void **ctx)
{
    const ct_log_api_v1 *log = (const ct_log_api_v1 *)host->get_engine_api(CT_LOG_API, 1);
    const ct_module_v2_t *m = ct_module_v2__find(host, log);
    if (!m)
        return CT_ERR_INVALID;
    int err = ct_module_v2_connect(m, host);
    if (err == 0)
        err = ct_module__adopt(&m->module, log, host->self, saved);
    if (err == 0)
        ct_module__store(ctx, m);
    return err;
}

/* reload_abort of a ct_module_v2_t (in the old code, when the new code refused): the block is
 * the old code's again. */
static inline void ct_module_v2_reload_abort(void *ctx, void *state)
{
    ct_module__store(ct_module_v2__of(ctx)->module.state, state);
}

/* ---- Plugin API v2, one typed list of APIs ------------------------------------------------- */

/* One API a ct_module_v3_t needs and where its table goes. Write it with the macros below. */
typedef struct ct_module_api_t {
    /* What the kernel reads in ct_plugin_api_v2.required: the name ("ct.log"; `id` 0, so the
     * kernel takes its hash), one version (`max_version` 0), and CT_API_OPTIONAL or 0. */
    ct_api_need_t need;
    /* The address of the plugin's `const <prefix>_<part>_api_v<version> *`, or NULL for an API
     * that only has to be there. Connect stores the table there (NULL for an optional API that
     * is not there). */
    void *slot;
} ct_module_api_t;

/* `slot` as a void *, when it is the address of a `const type *`; anything else does not compile
 * (C: no _Generic association matches; C++: the unevaluated assignment does not convert). */
#ifdef __cplusplus
#define CT_MODULE__SLOT(type, slot)                                                                \
    ((void *)((char *)(slot) + 0 * sizeof(*(slot) = (const type *)0)))
#else
#define CT_MODULE__SLOT(type, slot) _Generic((slot), const type ** : (void *)(slot))
#endif

/* API `<prefix>.<part>` at `version` (a literal number) into `slot`, a
 * `const <prefix>_<part>_api_v<version> **`: CT_MODULE_API_OF(acme, weather, 1, &weather). */
#define CT_MODULE_API_OF(prefix, part, version, slot)                                              \
    {                                                                                              \
        CT_API_NEED(#prefix "." #part, version),                                                   \
            CT_MODULE__SLOT(prefix##_##part##_api_v##version, slot)                                \
    }
/* An engine API: CT_MODULE_API(transform, 2, &transform) is "ct.transform" v2 into a
 * `const ct_transform_api_v2 *`. */
#define CT_MODULE_API(part, version, slot) CT_MODULE_API_OF(ct, part, version, slot)
/* As CT_MODULE_API_OF and CT_MODULE_API, but the plugin loads without it; its slot is then
 * NULL. */
#define CT_MODULE_API_OPTIONAL_OF(prefix, part, version, slot)                                     \
    {                                                                                              \
        CT_API_NEED_OPTIONAL(#prefix "." #part, version, 0u),                                      \
            CT_MODULE__SLOT(prefix##_##part##_api_v##version, slot)                                \
    }
#define CT_MODULE_API_OPTIONAL(part, version, slot)                                                \
    CT_MODULE_API_OPTIONAL_OF(ct, part, version, slot)
/* An engine API that only has to be there (ct.memory, whose plugin allocator connect fetches
 * itself). */
#define CT_MODULE_API_NO_SLOT(part, version)                                                       \
    {                                                                                              \
        CT_API_NEED("ct." #part, version), NULL                                                    \
    }

/* The most APIs one ct_module_v3_t may list (ct_module_v3_serve copies the list into a buffer of
 * this many). */
#define CT_MODULE_MAX_APIS 32u

/*
 * A plugin-API-v2 plugin's description with one list of APIs. Static data owned by the plugin, in
 * the file that defines get_plugin_api (see the top).
 */
typedef struct ct_module_v3_t {
    /* The plugin table, without `required`/`num_required` (leave them 0): ct_module_v3_serve
     * answers CT_PLUGIN_API v2 with a copy of it whose `required` is made from `apis`. Start its
     * initializer with CT_MODULE_V3_HOOKS. */
    ct_plugin_api_v2 plugin;
    /* The APIs the plugin needs, in the order the kernel should report them; at most
     * CT_MODULE_MAX_APIS. */
    const ct_module_api_t *apis;
    uint32_t num_apis;
    /* The state block, `self`, the allocator and start/stop/rebind, as in ct_module_t; its
     * `apis` and `api_slots` stay NULL. */
    ct_module_t module;
} ct_module_v3_t;

/* What ct_module_v3_serve hands the kernel: the plugin table with `required` made from `apis`. */
typedef struct ct_module_v3__served_t {
    const ct_module_v3_t *m;
    ct_plugin_api_v2 plugin;
    ct_api_need_t required[CT_MODULE_MAX_APIS];
} ct_module_v3__served_t;

/* Where this plugin's copy of the helpers keeps it (one per file that uses the helpers). */
static inline ct_module_v3__served_t *ct_module_v3__served(void)
{
    static ct_module_v3__served_t served;
    return &served;
}

/* Fills `s` from `m`; false when `m` lists more than CT_MODULE_MAX_APIS APIs. */
static inline bool ct_module_v3__describe(ct_module_v3__served_t *s, const ct_module_v3_t *m)
{
    if (m->num_apis > CT_MODULE_MAX_APIS)
        return false;
    for (uint32_t i = 0; i < m->num_apis; i++)
        s->required[i] = m->apis[i].need;
    s->plugin = m->plugin;
    s->plugin.required = s->required;
    s->plugin.num_required = m->num_apis;
    s->m = m;
    return true;
}

/* The plugin's get_plugin_api: for CT_PLUGIN_API v2, m's plugin table with `required` made from
 * m->apis (NULL when there are more than CT_MODULE_MAX_APIS), else the table for (api, version)
 * from `tables` (as ct_module_serve), or NULL. Remembers `m` for init and reload_load. */
static inline void *ct_module_v3_serve(const ct_module_v3_t *m, const ct_api_table_t *tables,
                                       uint32_t count, uint32_t api, uint32_t version)
{
    ct_module_v3__served_t *s = ct_module_v3__served();
    if (s->m != m && !ct_module_v3__describe(s, m))
        return NULL;
    if (api == CT_PLUGIN_API && version == 2)
        return (void *)&s->plugin;
    return ct_module_serve(tables, count, api, version);
}

/* The description a v3 hook's context points at. */
static inline const ct_module_v3_t *ct_module_v3__of(void *ctx)
{
    return (const ct_module_v3_t *)ctx;
}

/* The description init and reload_load work for (NULL, logged, when get_plugin_api served none
 * through this copy of the helpers). */
static inline const ct_module_v3_t *ct_module_v3__find(const ct_plugin_host_t *host,
                                                       const ct_log_api_v1 *log)
{
    const ct_module_v3_t *m = ct_module_v3__served()->m;
    if (!m && log)
        log->write(host->self, CT_LOG_ERROR,
                   "ct_module_v3_t: get_plugin_api served no "
                   "description through ct_module_v3_serve in the file of its hooks");
    return m;
}

/* Connect for v3: every API of m->apis, at its one version, into its slot; then the plugin
 * allocator and `self`, from the host. */
static inline int ct_module_v3_connect(const ct_module_v3_t *m, const ct_plugin_host_t *host)
{
    const ct_log_api_v1 *log = (const ct_log_api_v1 *)host->get_engine_api(CT_LOG_API, 1);
    int err = 0;
    for (uint32_t i = 0; i < m->num_apis; i++) {
        const ct_api_need_t *need = &m->apis[i].need;
        if (ct_module__fetch(host->get_engine_api, log, host->self, m->apis[i].slot, need->id,
                             need->min_version, need->flags, need->name) < 0)
            err = CT_ERR_MISSING_API;
    }
    return ct_module__finish_connect(&m->module, host->get_engine_api, log, host->self, err);
}

/* init of a ct_module_v3_t (CT_MODULE_V3_HOOKS): as ct_module_init; the context is the
 * description. */
static inline int ct_module_v3_init(const ct_plugin_host_t *host, void **ctx)
{
    const ct_module_v3_t *m =
        ct_module_v3__find(host, (const ct_log_api_v1 *)host->get_engine_api(CT_LOG_API, 1));
    if (!m)
        return CT_ERR_INVALID;
    int err = ct_module_v3_connect(m, host);
    if (err == 0)
        err = ct_module__start(&m->module);
    if (err == 0)
        ct_module__store(ctx, m);
    return err;
}

/* shutdown of a ct_module_v3_t: as ct_module_shutdown. */
static inline void ct_module_v3_shutdown(void *ctx)
{
    ct_module_shutdown(&ct_module_v3__of(ctx)->module);
}

/* reload_save of a ct_module_v3_t: the state block as is. */
static inline void *ct_module_v3_reload_save(void *ctx)
{
    return ct_module_state(&ct_module_v3__of(ctx)->module);
}

/* reload_load of a ct_module_v3_t (in the new code): as ct_module_reload; on success the context
 * is the new code's description. */
static inline int ct_module_v3_reload_load(const ct_plugin_host_t *host, void *saved, void **ctx)
{
    const ct_log_api_v1 *log = (const ct_log_api_v1 *)host->get_engine_api(CT_LOG_API, 1);
    const ct_module_v3_t *m = ct_module_v3__find(host, log);
    if (!m)
        return CT_ERR_INVALID;
    int err = ct_module_v3_connect(m, host);
    if (err == 0)
        err = ct_module__adopt(&m->module, log, host->self, saved);
    if (err == 0)
        ct_module__store(ctx, m);
    return err;
}

/* reload_abort of a ct_module_v3_t (in the old code, when the new code refused). */
static inline void ct_module_v3_reload_abort(void *ctx, void *state)
{
    ct_module__store(ct_module_v3__of(ctx)->module.state, state);
}

/* The fields of a ct_module_v3_t's plugin table that the helpers fill (as CT_MODULE_V2_HOOKS). */
#define CT_MODULE_V3_HOOKS                                                                         \
    .magic = CT_PLUGIN_MAGIC, .struct_size = (uint32_t)sizeof(ct_plugin_api_v2),                   \
    .init = ct_module_v3_init, .shutdown = ct_module_v3_shutdown,                                  \
    .reload_save = ct_module_v3_reload_save, .reload_load = ct_module_v3_reload_load,              \
    .reload_abort = ct_module_v3_reload_abort

#ifdef __cplusplus
}
#endif
#endif
