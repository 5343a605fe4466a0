/*
 * ct_module.h: the entry of a plugin-API-v1 plugin that keeps its state in one block, written once
 * (an SDK helper, no API id: inline functions only). The engine's own modules use it; so can you.
 *
 * What every such plugin does at its entry, the helpers below do from one description:
 *   connect   fetch each API of the plugin's `required` list into the plugin's own pointer
 *             (the same list the kernel checks, so the two cannot disagree), and its allocator;
 *   init      connect, take a zeroed state block with its ct_reload_header_t (ct_reload.h), then
 *             call the plugin's `start`; a failure gives the block back;
 *   shutdown  call the plugin's `stop`, then give the block back;
 *   reload    in the new code: connect, adopt the old code's block when its layout is this
 *             code's (ct_reload_adopt), then call the plugin's `rebind`;
 *   serve     answer get_plugin_api from a list of (id, version, table).
 *
 *     #define MY_LAYOUT 1u  // bump whenever my_state_t changes
 *     typedef struct my_state_t { ct_reload_header_t header; uint64_t greetings; } my_state_t;
 *     static const ct_log_api_v1 *log_api;
 *     static const ct_lua_api_v1 *lua_api;
 *     static ct_plugin_o *self_;
 *     static ct_allocator_t *allocator;
 *     static my_state_t *state;
 *
 *     static const ct_api_ref_t required[] = {
 *         CT_API_REQUIRE("ct.log", 1), CT_API_REQUIRE("ct.lua", 1), CT_API_REQUIRE("ct.memory", 1),
 *     };
 *     // Where each API of `required` goes, in the same order (NULL: it only has to be there).
 *     static void *const api_slots[] = {&log_api, &lua_api, NULL};
 *
 *     static int start(void) { register_lua(); return 0; }
 *
 *     static const ct_module_t module = {
 *         .apis = required, .num_apis = CT_ARRAY_COUNT(required),
 *         .api_slots = api_slots, .num_api_slots = CT_ARRAY_COUNT(api_slots),
 *         .self = &self_, .allocator = &allocator,
 *         .state = &state, .state_size = sizeof(my_state_t), .layout_version = MY_LAYOUT,
 *         .start = start, .rebind = start,
 *     };
 *
 *     // plugin API v1 hands its callbacks no context, so each one names the description:
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
 * Slots: `api_slots[i]`, `state` are the addresses of the plugin's own pointers (a
 * `const ct_xxx_api_vN *`, a `my_state_t *`); the helpers store into them with memcpy, as every
 * object pointer has one representation on the platforms Cuttle builds for. Nothing checks that a
 * slot's type matches its API: keep the two lists side by side, in one order.
 *
 * Errors: a required API that is not there fails connect with CT_ERR_MISSING_API, logged with its
 * name and version (through ct.log v1 when that is there); a description whose two lists differ in
 * length fails with CT_ERR_INVALID. Threads: the kernel calls the plugin's entry hooks on the main
 * thread, one at a time (ct_plugin.h); so do these helpers.
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

/*
 * Fetches every API of m->apis into its slot, and stores `self` and the plugin allocator: what
 * init and reload do first (the new code of a reload starts with empty statics). 0, or
 * CT_ERR_MISSING_API (logged) when a required API is not there.
 */
static inline int ct_module_connect(const ct_module_t *m, ct_get_api_f get_engine_api,
                                    ct_plugin_o *self)
{
    const ct_log_api_v1 *log = (const ct_log_api_v1 *)get_engine_api(CT_LOG_API, 1);
    if (m->num_api_slots != m->num_apis) {
        if (log)
            log->write(self, CT_LOG_ERROR, "ct_module_t lists %u APIs but %u slots for them",
                       (unsigned)m->num_apis, (unsigned)m->num_api_slots);
        return CT_ERR_INVALID;
    }
    int err = 0;
    for (uint32_t i = 0; i < m->num_apis; i++) {
        const ct_api_ref_t *ref = &m->apis[i];
        const void *table = get_engine_api(ref->id ? ref->id : ct_hash32(ref->name), ref->version);
        if (m->api_slots[i])
            ct_module__store(m->api_slots[i], table);
        if (!table && !(ref->flags & CT_API_OPTIONAL)) {
            if (log)
                log->write(self, CT_LOG_ERROR, "%s v%u is not there", ref->name,
                           (unsigned)ref->version);
            err = CT_ERR_MISSING_API;
        }
    }
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

/* The plugin's init: connect, a zeroed state block with its header, then m->start. 0, or the
 * negative ct_error of the step that failed (the block is given back). */
static inline int ct_module_init(const ct_module_t *m, ct_get_api_f get_engine_api,
                                 ct_plugin_o *self)
{
    int err = ct_module_connect(m, get_engine_api, self);
    if (err < 0)
        return err;
    void *state = ct_alloc(*m->allocator, m->state_size);
    if (!state)
        return CT_ERR_NOMEM;
    memset(state, 0, m->state_size);
    const ct_reload_header_t header = ct_reload_header(m->state_size, m->layout_version);
    memcpy(state, &header, sizeof header);
    ct_module__store(m->state, state);
    err = m->start ? m->start() : 0;
    if (err != 0) {
        ct_module__store(m->state, NULL);
        ct_free(*m->allocator, state, m->state_size);
    }
    return err;
}

/* The plugin's shutdown: m->stop, then the block is given back. */
static inline void ct_module_shutdown(const ct_module_t *m)
{
    if (m->stop)
        m->stop();
    ct_free(*m->allocator, ct_module_state(m), m->state_size);
    ct_module__store(m->state, NULL);
}

/* The new code's reload_load: connect, adopt `saved` when its layout is this code's (else
 * CT_ERR_VERSION, logged), then m->rebind. 0, or the negative ct_error of the step that failed. */
static inline int ct_module_reload(const ct_module_t *m, ct_get_api_f get_engine_api,
                                   ct_plugin_o *self, void *saved)
{
    int err = ct_module_connect(m, get_engine_api, self);
    if (err < 0)
        return err;
    err = ct_reload_adopt((const ct_log_api_v1 *)get_engine_api(CT_LOG_API, 1), self, saved,
                          m->state_size, m->layout_version);
    if (err < 0)
        return err;
    ct_module__store(m->state, saved);
    return m->rebind ? m->rebind() : 0;
}

#ifdef __cplusplus
}
#endif
#endif
