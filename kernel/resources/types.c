/* The resource type registry. Types are few and looked up by name (they are file extensions),
 * so a small fixed table walked linearly is all it needs. Slots never move (an unregistered
 * type leaves a hole that the next registration fills) because loaded resources point at their
 * type's slot. */
#include <string.h>

#include "base/log.h"
#include "plugins/registry.h"
#include "resources_internal.h"

#define MAX_TYPES 64

static ct_resource_type_t types[MAX_TYPES];
/* Who registered each slot's type (NULL: the kernel, or a test): a type goes with its plugin. */
static ct_plugin_o *owners[MAX_TYPES];
/* A hot reload in progress: the reloading plugin's slots as they were, to put back if refused. */
static struct {
    ct_plugin_o *plugin;
    bool owned[MAX_TYPES];
    ct_resource_type_t saved[MAX_TYPES];
} reload;
static uint32_t used_slots; /* slots [0, used_slots) may hold types; holes have type == NULL */

ct_plugin_o *resources__type_owner(const ct_resource_type_t *type)
{
    bool ours = type >= types && type < types + MAX_TYPES;
    return ours ? owners[type - types] : NULL;
}

const ct_resource_type_t *resources__find_type(const char *type)
{
    if (!type)
        return NULL;
    for (uint32_t i = 0; i < used_slots; i++) {
        if (types[i].type && strcmp(types[i].type, type) == 0)
            return &types[i];
    }
    return NULL;
}

int resources__register_type(const ct_resource_type_t *type)
{
    char err[160];
    if (!type || !type->compile || !type->load) {
        log__error("resources: register_type needs a type with compile and load callbacks");
        return CT_ERR_INVALID;
    }
    if (resources__check_type_name(type->type, err, sizeof err)) {
        log__error("resources: cannot register type: %s", err);
        return CT_ERR_INVALID;
    }
    if (resources__find_type(type->type)) {
        log__error("resources: type '%s' is already registered", type->type);
        return CT_ERR_CONFLICT;
    }
    uint32_t slot = 0;
    while (slot < used_slots && types[slot].type)
        slot++;
    if (slot == MAX_TYPES) {
        log__error("resources: cannot register type '%s': all %d slots are taken", type->type,
                   MAX_TYPES);
        return CT_ERR_FULL;
    }
    types[slot] = *type;
    owners[slot] = registry__current_plugin();
    if (slot == used_slots)
        used_slots++;
    return 0;
}

/* Hot reload swaps a type's code in its slot, so the resources loaded by the old code keep
 * pointing at it and are released by the new unload. The format is what makes their runtime
 * objects compatible, hence the version check. */
int resources__replace_type(const ct_resource_type_t *type)
{
    if (!type || !type->compile || !type->load) {
        log__error("resources: replace_type needs a type with compile and load callbacks");
        return CT_ERR_INVALID;
    }
    const ct_resource_type_t *t = resources__find_type(type->type);
    if (!t) {
        log__error("resources: replace_type: no type '%s'", type->type ? type->type : "(null)");
        return CT_ERR_NOT_FOUND;
    }
    if (t->format_version != type->format_version) {
        log__error("resources: replace_type: type '%s' has format version %u, the replacement %u "
                   "(its loaded resources would not match)",
                   type->type, t->format_version, type->format_version);
        return CT_ERR_VERSION;
    }
    types[t - types] = *type;
    return 0;
}

void resources__unregister_type(const char *type)
{
    const ct_resource_type_t *t = resources__find_type(type);
    if (!t) {
        /* After shutdown the types are already forgotten: a plugin tidying up is no mistake. */
        if (resources__allocator())
            log__warning("resources: unregister_type: no type '%s'", type ? type : "(null)");
        return;
    }
    resources__unload_type(t);
    types[t - types] = (ct_resource_type_t){0};
    owners[t - types] = NULL;
}

void resources__forget_types(void)
{
    memset(types, 0, sizeof types);
    memset(owners, 0, sizeof owners);
    used_slots = 0;
}

void resources__drop_types_of(ct_plugin_o *plugin)
{
    for (uint32_t i = 0; plugin && i < used_slots; i++) {
        if (owners[i] != plugin || !types[i].type)
            continue;
        log__warning("resources: type '%s' goes with plugin '%s', which registered it",
                     types[i].type, registry__plugin_name(plugin));
        resources__unregister_type(types[i].type);
    }
}

void resources__reload_begin(ct_plugin_o *plugin)
{
    reload.plugin = plugin;
    for (uint32_t i = 0; i < MAX_TYPES; i++) {
        reload.owned[i] = i < used_slots && types[i].type && owners[i] == plugin;
        reload.saved[i] = types[i];
    }
}

void resources__reload_end(ct_plugin_o *plugin, bool keep_new)
{
    if (reload.plugin != plugin)
        return;
    for (uint32_t i = 0; !keep_new && i < used_slots; i++) {
        if (reload.owned[i]) {
            types[i] = reload.saved[i]; /* the old code's callbacks, replaced or not */
            owners[i] = plugin;
        } else if (owners[i] == plugin && types[i].type) {
            /* Only the refused code registered it: its callbacks are about to be unreachable. */
            resources__unregister_type(types[i].type);
        }
    }
    reload.plugin = NULL;
}
