/* The API registry: kernel service tables, plugin records, get_engine_api and the record of who
 * asked for what. Bookkeeping uses malloc: the registry outlives the memory service's per-plugin
 * allocators and must not count as anybody's leak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_array.h"
#include "ct_heap.h"
#include "base/memory.h"
#include "plugins/kernel_version.h"
#include "plugins/plugins_internal.h"

typedef struct kernel_api_t {
    uint32_t id;
    uint32_t version;
    const void *table;
    char *name;
} kernel_api_t;

static struct {
    kernel_api_t *apis;
    uint32_t num_apis, cap_apis;
    ct_plugin_o **plugins;
    uint32_t num_plugins, cap_plugins;
    ct_api_use_t *uses;
    uint32_t num_uses, cap_uses;
    ct_plugin_o *current;
    /* get_engine_api may be called from job threads; it records uses and makes table copies. */
    uv_mutex_t lock;
} R;

/* Grows `*items` (of `item_size`, on the C heap) so that one more fits; false when out of
 * memory. */
static bool grow(void **items, uint32_t *cap, uint32_t count, size_t item_size)
{
    return ct_array_reserve(ct_heap_allocator(), items, cap, count + 1, item_size, 16);
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void registry__init(void)
{
    memset(&R, 0, sizeof R);
    uv_mutex_init(&R.lock);
}

void registry__shutdown(void)
{
    for (uint32_t i = 0; i < R.num_apis; i++)
        free(R.apis[i].name);
    for (uint32_t i = 0; i < R.num_plugins; i++)
        registry__plugin_free(R.plugins[i]);
    free(R.apis);
    free(R.plugins);
    free(R.uses);
    uv_mutex_destroy(&R.lock);
    memset(&R, 0, sizeof R);
}

void registry__add_kernel_api(uint32_t id, uint32_t version, const void *table, const char *name)
{
    char *copy = dup_string(name ? name : "");
    if (!copy || !grow((void **)&R.apis, &R.cap_apis, R.num_apis, sizeof *R.apis)) {
        free(copy);
        return;
    }
    R.apis[R.num_apis++] = (kernel_api_t){id, version, table, copy};
}

bool registry__kernel_has(uint32_t id, uint32_t version)
{
    for (uint32_t i = 0; i < R.num_apis; i++)
        if (R.apis[i].id == id && R.apis[i].version == version)
            return true;
    return false;
}

bool registry__kernel_versions(uint32_t id, char *buf, size_t size)
{
    bool any = false;
    for (uint32_t i = 0; i < R.num_apis; i++) {
        if (R.apis[i].id != id)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, " v%u", R.apis[i].version);
        any = true;
    }
    if (any) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, " (by kernel)");
    }
    return any;
}

/* ---- plugin records ---- */

ct_plugin_o *registry__plugin_new(const char *name, const char *path)
{
    ct_plugin_o *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->name = dup_string(name);
    p->path = dup_string(path);
    if (!p->name || !p->path) {
        registry__plugin_free(p);
        return NULL;
    }
    p->load_index = UINT32_MAX;
    return p;
}

bool registry__plugin_rename(ct_plugin_o *p, const char *name)
{
    char *copy = dup_string(name);
    if (!copy)
        return false;
    free(p->name);
    p->name = copy;
    return true;
}

void registry__plugin_free(ct_plugin_o *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->num_provides && p->tables; i++)
        free(p->tables[i]);
    free(p->tables);
    free(p->own_tables);
    free(p->deps);
    free(p->provides);
    free(p->requires);
    free(p->retired);
    loader__drop_copy(p);
    free(p->name);
    free(p->path);
    free(p);
}

bool registry__plugin_register(ct_plugin_o *p)
{
    if (!grow((void **)&R.plugins, &R.cap_plugins, R.num_plugins, sizeof *R.plugins))
        return false;
    p->discovery_index = R.num_plugins;
    R.plugins[R.num_plugins++] = p;
    return true;
}

uint32_t registry__num_plugins(void) { return R.num_plugins; }
ct_plugin_o *registry__plugin(uint32_t i) { return i < R.num_plugins ? R.plugins[i] : NULL; }

ct_plugin_o *registry__find(const char *name)
{
    for (uint32_t i = 0; i < R.num_plugins; i++)
        if (strcmp(R.plugins[i]->name, name) == 0)
            return R.plugins[i];
    return NULL;
}

ct_plugin_o *registry__current_plugin(void) { return R.current; }
void registry__set_current_plugin(ct_plugin_o *p) { R.current = p; }
const char *registry__plugin_name(const ct_plugin_o *p) { return p ? p->name : "kernel"; }

ct_semver_t registry__plugin_version(const ct_plugin_o *p)
{
    return p ? p->version : (ct_semver_t){0};
}

ct_allocator_t *registry__plugin_allocator(ct_plugin_o *p)
{
    return p && p->allocator ? p->allocator : memory__root();
}

/* ---- get_engine_api ---- */

static void record_use(uint32_t api, uint32_t version, bool answered)
{
    const char *who = registry__plugin_name(R.current);
    for (uint32_t i = 0; i < R.num_uses; i++) {
        const ct_api_use_t *u = &R.uses[i];
        if (u->api == api && u->version == version && u->answered == answered && u->who == who)
            return;
    }
    if (grow((void **)&R.uses, &R.cap_uses, R.num_uses, sizeof *R.uses))
        R.uses[R.num_uses++] = (ct_api_use_t){who, api, version, answered};
}

/* The kernel-owned copy of provides[i], made once from the plugin's own table (read and checked
 * when the plugin was opened: no plugin code runs here, under the lock). The copy is what lets a
 * hot reload swap the code under every caller's pointer. */
static void *provided_table(ct_plugin_o *p, uint32_t i)
{
    if (!p->own_tables || !p->own_tables[i])
        return NULL;
    if (!p->tables) {
        p->tables = calloc(p->num_provides, sizeof *p->tables);
        if (!p->tables)
            return NULL;
    }
    if (!p->tables[i]) {
        p->tables[i] = malloc(p->provides[i].size);
        if (!p->tables[i])
            return NULL;
        memcpy(p->tables[i], p->own_tables[i], p->provides[i].size);
    }
    return p->tables[i];
}

static void *find_api(uint32_t api, uint32_t version)
{
    for (uint32_t i = 0; i < R.num_apis; i++)
        if (R.apis[i].id == api && R.apis[i].version == version)
            return (void *)R.apis[i].table;
    for (uint32_t k = 0; k < R.num_plugins; k++) {
        ct_plugin_o *p = R.plugins[k];
        /* A plugin being initialised may already hand out what it provides (to itself, or to
         * callbacks it triggers), so it counts as loaded here. */
        if (p->state != CT_PLUGIN_LOADED && p != R.current)
            continue;
        for (uint32_t i = 0; i < p->num_provides; i++)
            if (p->provides[i].id == api && p->provides[i].version == version)
                return provided_table(p, i);
    }
    return NULL;
}

void *registry__get_engine_api(uint32_t api, uint32_t version)
{
    uv_mutex_lock(&R.lock);
    void *table = find_api(api, version);
    record_use(api, version, table != NULL);
    uv_mutex_unlock(&R.lock);
    return table;
}

/* ---- what plugins are told, and who uses whom ---- */

static uint32_t chosen_version(ct_plugin_o *self, uint32_t index)
{
    return self && self->chosen && index < self->num_requires ? self->chosen[index] : CT_API_ABSENT;
}

void registry__fill_host(ct_plugin_o *p)
{
    p->host = (ct_plugin_host_t){
        .get_engine_api = registry__get_engine_api,
        .self = p,
        .kernel_version = {CT_KERNEL_VERSION_MAJOR, CT_KERNEL_VERSION_MINOR,
                           CT_KERNEL_VERSION_PATCH, 0},
        .plugin_api_min = 0,
        .plugin_api_max = 2,
        .chosen_version = chosen_version,
    };
}

static bool offers(const ct_plugin_o *q, uint32_t api, uint32_t version)
{
    for (uint32_t i = 0; i < q->num_provides; i++)
        if (q->provides[i].id == api && q->provides[i].version == version)
            return true;
    return false;
}

bool loader__uses(const ct_plugin_o *p, const ct_plugin_o *q)
{
    for (uint32_t i = 0; i < p->num_requires; i++)
        if (p->chosen && offers(q, p->requires[i].id, p->chosen[i]))
            return true;
    bool used = false;
    uv_mutex_lock(&R.lock);
    for (uint32_t i = 0; i < R.num_uses && !used; i++) {
        const ct_api_use_t *u = &R.uses[i];
        used = u->answered && strcmp(u->who, p->name) == 0 && offers(q, u->api, u->version);
    }
    uv_mutex_unlock(&R.lock);
    return used;
}

/* ---- names ---- */

static const char *api_name(uint32_t api)
{
    for (uint32_t i = 0; i < R.num_apis; i++)
        if (R.apis[i].id == api && R.apis[i].name[0])
            return R.apis[i].name;
    for (uint32_t k = 0; k < R.num_plugins; k++) {
        const ct_plugin_o *p = R.plugins[k];
        for (uint32_t i = 0; i < p->num_provides; i++)
            if (p->provides[i].id == api && p->provides[i].name)
                return p->provides[i].name;
        for (uint32_t i = 0; i < p->num_requires; i++)
            if (p->requires[i].id == api && p->requires[i].name)
        return p->requires[i].name;
    }
    return NULL;
}

const char *registry__api_label(uint32_t id, const ct_api_ref_t *ref)
{
    static char buf[32];
    if (ref && ref->name)
        return ref->name;
    const char *name = api_name(id);
    if (name)
        return name;
    snprintf(buf, sizeof buf, "api 0x%08x", id);
    return buf;
}

/* ---- ct_registry_api_v1 ---- */

static uint32_t plugin_count(void) { return R.num_plugins; }

static bool plugin_info(uint32_t i, ct_plugin_info_t *out)
{
    if (i >= R.num_plugins || !out)
        return false;
    const ct_plugin_o *p = R.plugins[i];
    *out = (ct_plugin_info_t){
        .name = p->name,
        .path = p->path,
        .plugin_api = p->plugin_api,
        .version = p->version,
        .state = p->state,
        .load_index = p->load_index,
        .reload_count = p->reload_count,
        .provides = p->provides,
        .num_provides = p->num_provides,
        .requires = p->requires,
        .num_requires = p->num_requires,
        .error = p->error,
    };
    return true;
}

static uint32_t find_plugin(const char *name)
{
    const ct_plugin_o *p = name ? registry__find(name) : NULL;
    return p ? p->discovery_index : UINT32_MAX;
}

static uint32_t api_use_count(void) { return R.num_uses; }

static bool api_use(uint32_t i, ct_api_use_t *out)
{
    if (i >= R.num_uses || !out)
        return false;
    *out = R.uses[i];
    return true;
}

static uint32_t plugin_loaded(const ct_plugin_o *p) { return !p || p->state == CT_PLUGIN_LOADED; }

static const char *plugin_name(const ct_plugin_o *p) { return p ? p->name : "the kernel"; }

const ct_registry_api_v3 *registry__api_v3(void)
{
    static const ct_registry_api_v3 api = {
        .plugin_count = plugin_count,
        .plugin_info = plugin_info,
        .find_plugin = find_plugin,
        .api_use_count = api_use_count,
        .api_use = api_use,
        .api_name = api_name,
        .current_plugin = registry__current_plugin,
        .plugin_loaded = plugin_loaded,
        .plugin_name = plugin_name,
    };
    return &api;
}

const ct_registry_api_v2 *registry__api_v2(void)
{
    static const ct_registry_api_v2 api = {
        .plugin_count = plugin_count,
        .plugin_info = plugin_info,
        .find_plugin = find_plugin,
        .api_use_count = api_use_count,
        .api_use = api_use,
        .api_name = api_name,
        .current_plugin = registry__current_plugin,
        .plugin_loaded = plugin_loaded,
    };
    return &api;
}

const ct_registry_api_v1 *registry__api_v1(void)
{
    static const ct_registry_api_v1 api = {
        .plugin_count = plugin_count,
        .plugin_info = plugin_info,
        .find_plugin = find_plugin,
        .api_use_count = api_use_count,
        .api_use = api_use,
        .api_name = api_name,
    };
    return &api;
}
