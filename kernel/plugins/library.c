/* Opening a plugin's shared library and reading what it says about itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_hash.h"
#include "plugins/plugins_internal.h"

/* More declared APIs than this is garbage metadata, not a real plugin. */
#define MAX_REFS 1024u

static ct_api_ref_t *copy_refs(const ct_api_ref_t *refs, uint32_t n)
{
    if (n == 0)
        return NULL;
    size_t bytes = n * sizeof *refs;
    for (uint32_t i = 0; i < n; i++)
        bytes += refs[i].name ? strlen(refs[i].name) + 1 : 0;
    ct_api_ref_t *copy = malloc(bytes);
    if (!copy)
        return NULL;
    char *names = (char *)(copy + n);
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = refs[i];
        if (refs[i].name) {
            size_t len = strlen(refs[i].name) + 1;
            memcpy(names, refs[i].name, len);
            copy[i].name = names;
            names += len;
        }
    }
    return copy;
}

/* Checks one declared list; a wrong name hash would make messages lie about which API is meant. */
static bool check_refs(const ct_api_ref_t *refs, uint32_t n, bool provides, const char *what,
                       char *err, size_t err_size)
{
    if (n > MAX_REFS || (n > 0 && !refs)) {
        snprintf(err, err_size, "declares %u %s APIs but no valid array", n, what);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const ct_api_ref_t *r = &refs[i];
        if (r->name && ct_hash32(r->name) != r->id) {
            snprintf(err, err_size, "declares %s API '%s' with id 0x%08x, but that name hashes to 0x%08x",
                     what, r->name, r->id, ct_hash32(r->name));
            return false;
        }
        if (provides && r->size == 0) {
            snprintf(err, err_size, "provides API '%s' v%u with size 0 (set it to sizeof the table)",
                     r->name ? r->name : "?", r->version);
            return false;
        }
    }
    return true;
}

static int read_v1(ct_plugin_o *p, const ct_plugin_api_v1 *v1, char *err, size_t err_size)
{
    if (!v1->name || !v1->name[0]) {
        snprintf(err, err_size, "has no name in its plugin API v1");
        return CT_ERR_BAD_DATA;
    }
    if (!check_refs(v1->provides, v1->num_provides, true, "provided", err, err_size) ||
        !check_refs(v1->requires, v1->num_requires, false, "required", err, err_size))
        return CT_ERR_BAD_DATA;
    char *name = malloc(strlen(v1->name) + 1);
    ct_api_ref_t *provides = copy_refs(v1->provides, v1->num_provides);
    ct_api_ref_t *requires = copy_refs(v1->requires, v1->num_requires);
    if (!name || (v1->num_provides && !provides) || (v1->num_requires && !requires)) {
        free(name);
        free(provides);
        free(requires);
        snprintf(err, err_size, "out of memory reading its metadata");
        return CT_ERR_NOMEM;
    }
    strcpy(name, v1->name);
    free(p->name);
    p->name = name;
    p->plugin_api = 1;
    p->v1 = v1;
    p->version = v1->version;
    p->provides = provides;
    p->num_provides = v1->num_provides;
    p->requires = requires;
    p->num_requires = v1->num_requires;
    return 0;
}

int loader__open(ct_plugin_o *p, const char *path, char *err, size_t err_size)
{
    if (uv_dlopen(path, &p->lib) != 0) {
        snprintf(err, err_size, "is not a loadable shared library: %s", uv_dlerror(&p->lib));
        uv_dlclose(&p->lib); /* frees the error message */
        return CT_ERR_IO;
    }
    p->lib_open = true;
    void *sym = NULL;
    if (uv_dlsym(&p->lib, CT_PLUGIN_ENTRY_SYMBOL, &sym) != 0 || !sym) {
        snprintf(err, err_size, "does not export %s (mark it CT_EXPORT)", CT_PLUGIN_ENTRY_SYMBOL);
        return CT_ERR_NOT_FOUND;
    }
    /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
    ct_get_api_f get_plugin_api;
    memcpy(&get_plugin_api, &sym, sizeof get_plugin_api);
    p->get_plugin_api = get_plugin_api;

    /* Newest plugin API first: a plugin may answer several and we want the richest. */
    const ct_plugin_api_v1 *v1 = get_plugin_api(CT_PLUGIN_API, 1);
    if (v1)
        return read_v1(p, v1, err, err_size);
    const ct_plugin_api_v0 *v0 = get_plugin_api(CT_PLUGIN_API, 0);
    if (v0 && v0->init) {
        p->plugin_api = 0;
        p->v0 = v0;
        return 0;
    }
    snprintf(err, err_size, "answers no plugin API version the kernel knows from get_plugin_api (asked v1, v0)%s",
             v0 ? "; v0 has no init" : "");
    return CT_ERR_VERSION;
}
