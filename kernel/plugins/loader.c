/* The loader's main line: discover, read metadata, apply the project's choices, resolve,
 * initialise in order; frame hooks; shutdown in reverse order. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/memory.h"
#include "lua/lua_env.h"
#include "plugins/plugins_internal.h"
#include "resources/resources.h"

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
               "plugin '%s' (%s) %s%s", p->name, p->path,
               state == CT_PLUGIN_SKIPPED ? "skipped: " : "", p->error);
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
    loader__close(p);
    registry__plugin_free(p);
}

/* A file in a module folder is opened only when the project lists the plugin that file name
 * belongs to (see ct_plugin.h, "Files"); without a list every file is. Sets `*wanted` to that
 * name. */
static bool file_is_listed(const loader_desc_t *desc, const char *path, const char **wanted)
{
    *wanted = NULL;
    if (desc->num_wanted == 0)
        return true;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char file[256];
    for (uint32_t i = 0; i < desc->num_wanted; i++) {
        if (loader__file_name(desc->wanted[i], file, sizeof file) && strcmp(file, base) == 0) {
            *wanted = desc->wanted[i];
            return true;
        }
    }
    return false;
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
static int add_file(const loader_desc_t *desc, const char *given, bool from_dir)
{
    const char *wanted = NULL;
    if (from_dir && !file_is_listed(desc, given, &wanted)) {
        log__write(NULL, CT_LOG_DEBUG,
                   "%s: no plugin in the project's module list has that file "
                   "name; not opened",
                   given);
        return 0;
    }
    if (already_registered(given))
        return 0;
    /* A plugin is named by its path and never searched for: the file must exist as given (the
     * watcher also needs its real folder), or the plugin fails without anything being opened. */
    char absolute[PATH_MAX], stem[256], err[PLUGIN_ERROR_SIZE];
    const char *path = realpath(given, absolute) ? absolute : given;
    file_stem(path, stem, sizeof stem);
    ct_plugin_o *p = registry__plugin_new(stem[0] ? stem : "(empty path)", path);
    if (!p)
        return CT_ERR_NOMEM;
    int code = loader__open(p, path, err, sizeof err);
    /* A v0 plugin has no name of its own: in a listed folder it is the plugin its file is for. */
    if (code == 0 && wanted && p->plugin_api == 0 && !registry__plugin_rename(p, wanted))
        code = CT_ERR_NOMEM;
    if (code == 0 && wanted && strcmp(wanted, p->name) != 0) {
        snprintf(err, sizeof err,
                 "is named '%s', but its file name belongs to '%s', which the "
                 "project lists",
                 p->name, wanted);
        code = CT_ERR_CONFLICT;
    }
    const ct_plugin_o *twin = registry__find(p->name);
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

/* Plugin hooks run inside a protected call (lua_env__protect), so a Lua error raised by the
 * ct_lua_api functions they call ends the hook, not the process. */
static int run_init(void *arg)
{
    ct_plugin_o *p = arg;
    if (p->v2) {
        registry__fill_host(p);
        return p->v2->init(&p->host, &p->ctx);
    }
    if (p->v1 && p->v1->init)
        return p->v1->init(registry__get_engine_api, p);
    if (p->v0)
        p->v0->init(registry__get_engine_api);
    return 0;
}

static int run_shutdown(void *arg)
{
    ct_plugin_o *p = arg;
    if (p->v2 && p->v2->shutdown)
        p->v2->shutdown(p->ctx);
    else if (p->v1 && p->v1->shutdown)
        p->v1->shutdown();
    return 0;
}

typedef struct frame_call_t {
    ct_plugin_o *plugin;
    double dt;
    bool begin;
} frame_call_t;

static int run_frame_hook(void *arg)
{
    const frame_call_t *c = arg;
    const ct_plugin_o *p = c->plugin;
    if (p->v2 && c->begin && p->v2->frame_begin)
        p->v2->frame_begin(p->ctx, c->dt);
    else if (p->v2 && !c->begin && p->v2->frame_end)
        p->v2->frame_end(p->ctx, c->dt);
    else if (p->v1 && c->begin && p->v1->frame_begin)
        p->v1->frame_begin(c->dt);
    else if (p->v1 && !c->begin && p->v1->frame_end)
        p->v1->frame_end(c->dt);
    return 0;
}

/* Runs init with the plugin recorded as the caller of get_engine_api and as the owner of the Lua
 * functions it registers. */
static int call_init(ct_plugin_o *p)
{
    registry__set_current_plugin(p);
    lua_env__set_owner(p);
    int err = lua_env__protect(run_init, p, "init", p->name);
    lua_env__set_owner(NULL);
    registry__set_current_plugin(NULL);
    return err;
}

static void call_shutdown(ct_plugin_o *p)
{
    registry__set_current_plugin(p);
    lua_env__protect(run_shutdown, p, "shutdown", p->name);
    registry__set_current_plugin(NULL);
}

static void init_plugin(ct_plugin_o *p)
{
    /* A dependency may have failed its own init earlier in this pass; an optional one is then
     * simply not there. */
    for (uint32_t i = 0; i < p->num_requires; i++) {
        const ct_plugin_o *q = p->deps ? p->deps[i] : NULL;
        if (!q || q->state == CT_PLUGIN_LOADED)
            continue;
        if (p->requires[i].flags & CT_API_OPTIONAL) {
            p->deps[i] = NULL;
            p->chosen[i] = CT_API_ABSENT;
            continue;
        }
        loader__skip(p, &p->requires[i], q);
        return;
    }
    p->allocator = memory__create(memory__root(), p->name);
    if (!p->allocator) {
        loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_NOMEM, "could not get an allocator");
        return;
    }
    int err = call_init(p);
    char clash[PLUGIN_ERROR_SIZE];
    if (err == 0 && lua_env__take_clash(p, clash, sizeof clash)) {
        /* It did init: undo that before it goes. */
        call_shutdown(p);
        loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_CONFLICT, "%s", clash);
        err = CT_ERR_CONFLICT;
    } else if (err < 0) {
        loader__fail(p, CT_PLUGIN_FAILED, CT_ERR_INIT_FAILED, "init returned %s (%s)",
                     log__error_name(err), log__error_message(err));
    }
    if (err < 0) {
        lua_env__disable_owner(p);
        resources__drop_types_of(p);
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
        err = add_file(desc, files.paths[i], files.from_dir[i]);
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

static void frame_hook(ct_plugin_o *p, double dt, bool begin)
{
    bool has_hook = begin ? (p->v2 && p->v2->frame_begin) || (p->v1 && p->v1->frame_begin)
                          : (p->v2 && p->v2->frame_end) || (p->v1 && p->v1->frame_end);
    if (p->state != CT_PLUGIN_LOADED || !has_hook)
        return;
    registry__set_current_plugin(p);
    frame_call_t call = {p, dt, begin};
    lua_env__protect(run_frame_hook, &call, begin ? "frame_begin" : "frame_end", p->name);
    registry__set_current_plugin(NULL);
}

void loader__frame_begin(double dt)
{
    for (uint32_t i = 0; i < L.num_order; i++)
        frame_hook(L.order[i], dt, true);
}

void loader__frame_end(double dt)
{
    for (uint32_t i = L.num_order; i-- > 0;)
        frame_hook(L.order[i], dt, false);
}

/* The running plugin to shut down next: the latest-loaded one that no other running plugin uses
 * (declared, or found using it through get_engine_api). On a cycle of such uses, the
 * latest-loaded running one. */
static ct_plugin_o *next_to_shut_down(void)
{
    ct_plugin_o *fallback = NULL;
    for (uint32_t i = L.num_order; i-- > 0;) {
        ct_plugin_o *p = L.order[i];
        if (p->state != CT_PLUGIN_LOADED)
            continue;
        if (!fallback)
            fallback = p;
        bool used = false;
        for (uint32_t k = 0; k < L.num_order && !used; k++)
            used = L.order[k] != p && L.order[k]->state == CT_PLUGIN_LOADED &&
                   loader__uses(L.order[k], p);
        if (!used)
            return p;
    }
    return fallback;
}

void loader__shutdown(void)
{
    loader__unwatch_all();
    for (ct_plugin_o *p; (p = next_to_shut_down()) != NULL;) {
        call_shutdown(p);
        lua_env__disable_owner(p);
        resources__drop_types_of(p);
        p->state = CT_PLUGIN_SHUT_DOWN;
    }
}

void loader__unmap(void)
{
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
        loader__close(p);
    }
    free(L.order);
    memset(&L, 0, sizeof L);
}
