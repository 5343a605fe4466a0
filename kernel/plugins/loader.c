/* The loader's main line: discover, read metadata, apply the project's choices, resolve,
 * initialise in order; frame hooks; shutdown in reverse order. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/memory.h"
#include "lua/lua_env.h"
#include "plugins/plugins_internal.h"

static struct {
    ct_plugin_o **order; /* initialised plugins, in load order */
    uint32_t num_order;
} L;

void loader__fail(ct_plugin_o *p, ct_plugin_state state, int code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, args);
    va_end(args);
    p->state = state;
    p->error_code = code;
    log__write(NULL, state == CT_PLUGIN_SKIPPED ? CT_LOG_WARNING : CT_LOG_ERROR,
               "plugin '%s' (%s) %s%s", p->name, p->path, state == CT_PLUGIN_SKIPPED ? "skipped: " : "",
               p->error);
}

void loader__skip(ct_plugin_o *p, const ct_api_ref_t *ref, const ct_plugin_o *provider)
{
    loader__fail(p, CT_PLUGIN_SKIPPED, CT_ERR_MISSING_API, "requires %s v%u from '%s', which %s",
                 registry__api_label(ref->id, ref), ref->version, provider->name,
                 provider->state == CT_PLUGIN_SKIPPED ? "was skipped itself" : "failed");
}

uint32_t loader__load_order(ct_plugin_o ***out)
{
    *out = L.order;
    return L.num_order;
}

static bool listed(const char *name, const char *const *names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* The same file reached twice (a --plugin path that is also under a module folder) is one
 * plugin, not a conflict. */
static bool already_registered(const char *path)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(path, a))
        return false;
    for (uint32_t i = 0; i < registry__num_plugins(); i++)
        if (realpath(registry__plugin(i)->path, b) && strcmp(a, b) == 0)
            return true;
    return false;
}

/* A v0 plugin has no name of its own: it is known by its file name without folder and ".so". */
static void file_stem(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 3 && strcmp(base + len - 3, ".so") == 0)
        len -= 3;
    if (len >= size)
        len = size - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

static void close_and_free(ct_plugin_o *p)
{
    if (p->lib_open)
        uv_dlclose(&p->lib);
    registry__plugin_free(p);
}

static void apply_pin(const loader_desc_t *desc, ct_plugin_o *p)
{
    for (uint32_t i = 0; i < desc->num_pins; i++) {
        const loader_pin_t *pin = &desc->pins[i];
        if (strcmp(pin->name, p->name) == 0 && pin->major != p->version.major)
            loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_VERSION,
                         "is version %u.%u.%u, but the project pins major version %u",
                         p->version.major, p->version.minor, p->version.patch, pin->major);
    }
}

/* Opens one discovered file and registers it (failed or not), unless the project does not want
 * it. Returns a negative ct_error only when out of memory. */
static int add_file(const loader_desc_t *desc, const char *given, bool from_dir, bool fallback)
{
    if (already_registered(given))
        return 0;
    /* dlopen searches the library path for a name without '/', so open the absolute path (the
     * watcher also needs the real folder). A path that does not resolve fails in dlopen. */
    char absolute[PATH_MAX], stem[256], err[PLUGIN_ERROR_SIZE];
    const char *path = realpath(given, absolute) ? absolute : given;
    file_stem(path, stem, sizeof stem);
    ct_plugin_o *p = registry__plugin_new(stem, path);
    if (!p)
        return CT_ERR_NOMEM;
    int code = loader__open(p, path, err, sizeof err);
    if (from_dir && desc->num_wanted > 0 && !listed(p->name, desc->wanted, desc->num_wanted)) {
        log__write(NULL, CT_LOG_DEBUG, "plugin '%s' (%s) is not in the project's module list",
                   p->name, path);
        loader__note_unlisted(path, p);
        close_and_free(p);
        return 0;
    }
    const ct_plugin_o *twin = registry__find(p->name);
    if (twin && fallback) {
        log__write(NULL, CT_LOG_DEBUG, "plugin '%s' (%s) is overridden by %s", p->name, path,
                   twin->path);
        close_and_free(p);
        return 0;
    }
    if (!registry__plugin_register(p)) {
        close_and_free(p);
        return CT_ERR_NOMEM;
    }
    if (code < 0)
        loader__fail(p, CT_PLUGIN_FAILED, code, "%s", err);
    else if (twin)
        loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_CONFLICT, "has the same name as the plugin at %s",
                     twin->path);
    else
        apply_pin(desc, p);
    return 0;
}

/* Runs init with the plugin recorded as the caller of get_engine_api and as the owner of the Lua
 * functions it registers. */
static int call_init(ct_plugin_o *p)
{
    registry__set_current_plugin(p);
    lua_env__set_owner(p);
    int err = 0;
    if (p->v1 && p->v1->init)
        err = p->v1->init(registry__get_engine_api, p);
    else if (p->v0)
        p->v0->init(registry__get_engine_api);
    lua_env__set_owner(NULL);
    registry__set_current_plugin(NULL);
    return err;
}

static void init_plugin(ct_plugin_o *p)
{
    /* A dependency may have failed its own init earlier in this pass. */
    for (uint32_t i = 0; i < p->num_requires; i++) {
        const ct_plugin_o *q = p->deps ? p->deps[i] : NULL;
        if (q && q->state != CT_PLUGIN_LOADED) {
            loader__skip(p, &p->requires[i], q);
            return;
        }
    }
    p->allocator = memory__create(memory__root(), p->name);
    if (!p->allocator) {
        loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_NOMEM, "could not get an allocator");
        return;
    }
    int err = call_init(p);
    if (err < 0) {
        loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_INIT_FAILED, "init returned %s (%s)",
                     log__error_name(err), log__error_message(err));
        lua_env__disable_owner(p);
        memory__destroy(p->allocator);
        p->allocator = NULL;
        return;
    }
    p->state = CT_PLUGIN_LOADED;
    p->load_index = L.num_order;
    L.order[L.num_order++] = p;
}

/* The first error among the plugins registered from index `first` on (strict mode's answer). */
static int first_error(uint32_t first)
{
    for (uint32_t i = first; i < registry__num_plugins(); i++)
        if (registry__plugin(i)->error_code < 0)
            return registry__plugin(i)->error_code;
    return 0;
}

int loader__load(const loader_desc_t *desc)
{
    uint32_t first = registry__num_plugins();
    loader_paths_t files;
    int err = loader__discover(desc, &files);
    for (uint32_t i = 0; i < files.count && err == 0; i++)
        err = add_file(desc, files.paths[i], files.from_dir[i], i >= files.first_fallback);
    loader__free_paths(&files);
    if (err < 0) {
        log__error("plugin discovery failed: %s", log__error_message(err));
        return err;
    }
    for (uint32_t i = 0; i < desc->num_wanted; i++) {
        if (!registry__find(desc->wanted[i])) {
            log__error("the project wants plugin '%s', but no module folder has it",
                       desc->wanted[i]);
            err = CT_ERR_NOT_FOUND;
        }
    }

    uint32_t n = registry__num_plugins();
    ct_plugin_o **order = realloc(L.order, (n ? n : 1) * sizeof *order);
    ct_plugin_o **resolved = calloc(n ? n : 1, sizeof *resolved);
    if (!order || !resolved) {
        free(resolved);
        if (order)
            L.order = order;
        return CT_ERR_NOMEM;
    }
    L.order = order;
    uint32_t count = loader__resolve(desc, resolved);
    for (uint32_t i = 0; i < count; i++)
        init_plugin(resolved[i]);
    free(resolved);

    if (desc->watch && desc->loop)
        for (uint32_t i = 0; i < L.num_order; i++)
            if (L.order[i]->discovery_index >= first)
                loader__watch(L.order[i], desc->loop);
    if (!desc->strict)
        return 0;
    return err < 0 ? err : first_error(first);
}

void loader__frame_begin(double dt)
{
    for (uint32_t i = 0; i < L.num_order; i++) {
        ct_plugin_o *p = L.order[i];
        if (p->state != CT_PLUGIN_LOADED || !p->v1 || !p->v1->frame_begin)
            continue;
        registry__set_current_plugin(p);
        p->v1->frame_begin(dt);
        registry__set_current_plugin(NULL);
    }
}

void loader__frame_end(double dt)
{
    for (uint32_t i = L.num_order; i-- > 0;) {
        ct_plugin_o *p = L.order[i];
        if (p->state != CT_PLUGIN_LOADED || !p->v1 || !p->v1->frame_end)
            continue;
        registry__set_current_plugin(p);
        p->v1->frame_end(dt);
        registry__set_current_plugin(NULL);
    }
}

void loader__shutdown(void)
{
    loader__unwatch_all();
    for (uint32_t i = L.num_order; i-- > 0;) {
        ct_plugin_o *p = L.order[i];
        if (p->state != CT_PLUGIN_LOADED)
            continue;
        if (p->v1 && p->v1->shutdown) {
            registry__set_current_plugin(p);
            p->v1->shutdown();
            registry__set_current_plugin(NULL);
        }
        lua_env__disable_owner(p);
        p->state = CT_PLUGIN_SHUT_DOWN;
    }
    /* Allocators go only after every plugin shut down: a plugin may free blocks that a
     * dependency handed it. Destroying reports what leaked. */
    for (uint32_t i = 0; i < registry__num_plugins(); i++) {
        ct_plugin_o *p = registry__plugin(i);
        if (p->allocator)
            memory__destroy(p->allocator);
        p->allocator = NULL;
    }
    /* Code goes last, since leak reports and late callbacks may still point into it. Only the
     * current library of each plugin is closed: the libraries a hot reload replaced
     * (p->retired) stay mapped for the life of the process, because other code may still hold
     * function pointers or strings from them. */
    for (uint32_t i = 0; i < registry__num_plugins(); i++) {
        ct_plugin_o *p = registry__plugin(i);
        if (p->lib_open)
            uv_dlclose(&p->lib);
        p->lib_open = false;
    }
    free(L.order);
    memset(&L, 0, sizeof L);
    loader__forget_unlisted();
}
