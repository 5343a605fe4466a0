/* Hot reload: watching plugin files, and swapping a plugin's code between two frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "lua/lua_env.h"
#include "plugins/plugins_internal.h"
#include "resources/resources.h"

typedef struct file_stamp_t {
    int64_t mtime_ns;
    int64_t size;
} file_stamp_t;

struct loader_watch_t {
    uv_fs_event_t handle;
    ct_plugin_o *plugin;
    const char *file; /* the plugin's file name inside the watched folder */
    bool pending;
    bool waiting;      /* the changed file is not a whole library yet (said once, at debug level) */
    file_stamp_t seen; /* at the last safe point since the change event */
    uint64_t seen_at;  /* uv_hrtime() when `seen` was taken */
    file_stamp_t loaded; /* of the code running now */
    loader_watch_t *next;
};

/* How long a changed file must stay the same before it is loaded. A linker writes the file in
 * steps, and a headless kernel runs thousands of frames a second, so "unchanged for two frames"
 * is not enough: the quiet period is in wall-clock time. */
#define RELOAD_QUIET_NS (250ull * 1000 * 1000)

static loader_watch_t *watches;

static file_stamp_t stamp(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return (file_stamp_t){-1, -1};
    return (file_stamp_t){(int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                          (int64_t)st.st_size};
}

static bool same_stamp(file_stamp_t a, file_stamp_t b)
{
    return a.mtime_ns == b.mtime_ns && a.size == b.size;
}

/* ---- swapping code ---- */

/* Keeps a library mapped for the rest of the process (see loader__unmap). */
static void retire(ct_plugin_o *p, void *lib)
{
    void **grown = realloc(p->retired, (p->num_retired + 1) * sizeof *grown);
    if (!grown)
        return; /* the library then simply stays open without being listed: still never closed */
    p->retired = grown;
    p->retired[p->num_retired++] = lib;
}

/* Loads the plugin's file again (loader__open maps a private copy, under a fresh name). */
static int open_new_code(ct_plugin_o *p, ct_plugin_o **out, char *err, size_t err_size)
{
    ct_plugin_o *n = registry__plugin_new(p->name, p->path);
    int code = n ? loader__open(n, p->path, err, err_size) : CT_ERR_NOMEM;
    if (code < 0 && n) {
        loader__close(n);
        registry__plugin_free(n);
    }
    *out = code < 0 ? NULL : n;
    return code;
}

/* Whether requirement i of the new code `n` of `p` is met without changing the load order: by
 * the kernel, by the plugin itself, or by a plugin loaded before `p`. Sets n->chosen[i]. When a
 * plugin loaded after `p` (or one that is not running) would have to provide it, names it in
 * `err`. */
static bool requirement_met(const ct_plugin_o *p, ct_plugin_o *n, uint32_t i, char *err,
                            size_t err_size)
{
    const ct_api_ref_t *ref = &n->requires[i];
    const ct_plugin_o *later = NULL;
    n->chosen[i] = CT_API_ABSENT;
    for (uint32_t v = n->max_version[i] + 1; v-- > ref->version;) {
        bool own = false;
        for (uint32_t k = 0; k < n->num_provides && !own; k++)
            own = n->provides[k].id == ref->id && n->provides[k].version == v;
        if (own || registry__kernel_has(ref->id, v)) {
            n->chosen[i] = v;
            return true;
        }
        for (uint32_t k = 0; k < registry__num_plugins(); k++) {
            const ct_plugin_o *q = registry__plugin(k);
            bool offers = false;
            for (uint32_t j = 0; j < q->num_provides && !offers; j++)
                offers = q->provides[j].id == ref->id && q->provides[j].version == v;
            if (!offers || q == p)
                continue;
            if (q->state == CT_PLUGIN_LOADED && q->load_index < p->load_index) {
                n->chosen[i] = v;
                return true;
            }
            later = q;
        }
    }
    if (ref->flags & CT_API_OPTIONAL)
        return true;
    const char *api = registry__api_label(ref->id, ref);
    if (later && later->state == CT_PLUGIN_LOADED)
        snprintf(err, err_size,
                 "the new code requires %s v%u from '%s', which loads after it: "
                 "that would change the load order (or make a cycle); restart to use it",
                 api, ref->version, later->name);
    else
        snprintf(err, err_size, "the new code requires %s v%u, which is not loaded", api,
                 ref->version);
    return false;
}

static bool has_reload_load(const ct_plugin_o *n)
{
    return n->v2 ? n->v2->reload_load != NULL : n->v1 && n->v1->reload_load;
}

/* The new code must be a drop-in: same name, same provided tables, requirements still met
 * without changing the load order, and (checked at open) an answer for each provided table. */
static bool compatible(const ct_plugin_o *old, ct_plugin_o *n, char *err, size_t err_size)
{
    if (!has_reload_load(n)) {
        snprintf(err, err_size, "the new code has no reload_load");
        return false;
    }
    if (strcmp(n->name, old->name) != 0) {
        snprintf(err, err_size, "the new code is named '%s'", n->name);
        return false;
    }
    bool same = n->num_provides == old->num_provides;
    for (uint32_t i = 0; same && i < n->num_provides; i++)
        same = n->provides[i].id == old->provides[i].id &&
               n->provides[i].version == old->provides[i].version &&
               n->provides[i].size == old->provides[i].size;
    if (!same) {
        snprintf(err, err_size, "the new code provides other APIs (or other sizes) than the old");
        return false;
    }
    for (uint32_t i = 0; i < n->num_requires; i++)
        if (!requirement_met(old, n, i, err, err_size))
            return false;
    return true;
}

#define SWAP(type, a, b)                                                                           \
    do {                                                                                           \
        type swap_tmp = (a);                                                                       \
        (a) = (b);                                                                                 \
        (b) = swap_tmp;                                                                            \
    } while (0)

/* The reload hooks, run inside protected calls like every plugin hook (see loader.c). */
typedef struct reload_call_t {
    ct_plugin_o *p, *n;
    void *state;
} reload_call_t;

static int run_reload_save(void *arg)
{
    reload_call_t *c = arg;
    c->state = c->p->v2 ? c->p->v2->reload_save(c->p->ctx) : c->p->v1->reload_save();
    return 0;
}

static int run_reload_load(void *arg)
{
    reload_call_t *c = arg;
    ct_plugin_o *p = c->p, *n = c->n;
    if (!n->v2)
        return n->v1->reload_load(registry__get_engine_api, p, c->state);
    /* The new code is told about itself as `p` (the record the kernel keeps), with its own
     * requirement list while it runs. The host's contents are the same for old and new. */
    SWAP(uint32_t *, p->chosen, n->chosen);
    SWAP(uint32_t, p->num_requires, n->num_requires);
    registry__fill_host(p);
    int err = n->v2->reload_load(&p->host, c->state, &n->ctx);
    SWAP(uint32_t *, p->chosen, n->chosen);
    SWAP(uint32_t, p->num_requires, n->num_requires);
    return err;
}

static int run_reload_abort(void *arg)
{
    reload_call_t *c = arg;
    if (c->p->v2 && c->p->v2->reload_abort)
        c->p->v2->reload_abort(c->p->ctx, c->state);
    return 0;
}

/* Hands the plugin's state from the old code to the new, with Lua registrations kept
 * reversible until the new code said yes. A v2 plugin's old code gets its block back through
 * reload_abort when the new code refuses. */
static int hand_over(ct_plugin_o *p, ct_plugin_o *n)
{
    reload_call_t call = {p, n, NULL};
    registry__set_current_plugin(p);
    int err = lua_env__protect(run_reload_save, &call, "reload_save", p->name);
    if (err < 0) {
        registry__set_current_plugin(NULL);
        return err;
    }
    lua_env__reload_begin(p);
    resources__reload_begin(p);
    lua_env__set_owner(p);
    err = lua_env__protect(run_reload_load, &call, "reload_load", p->name);
    lua_env__set_owner(NULL);
    char clash[PLUGIN_ERROR_SIZE];
    if (err == 0 && lua_env__take_clash(p, clash, sizeof clash)) {
        log__error("plugin '%s': %s", p->name, clash);
        err = CT_ERR_CONFLICT;
    }
    resources__reload_end(p, err == 0);
    if (err < 0) {
        lua_env__reload_rollback(p);
        lua_env__protect(run_reload_abort, &call, "reload_abort", p->name);
    } else {
        lua_env__reload_commit(p);
    }
    registry__set_current_plugin(NULL);
    return err;
}

/* From here on the new code is the plugin: tables, hooks, metadata. */
static void adopt(ct_plugin_o *p, ct_plugin_o *n)
{
    for (uint32_t i = 0; i < p->num_provides; i++)
        if (p->tables && p->tables[i])
            memcpy(p->tables[i], n->own_tables[i], p->provides[i].size);
    retire(p, p->lib);
    p->lib = n->lib;
    n->lib = NULL;
    /* The retired code is no longer the plugin's: its --debug copy goes, the new one stays. */
    loader__drop_copy(p);
    p->copy_path = n->copy_path;
    n->copy_path = NULL;
    p->get_plugin_api = n->get_plugin_api;
    p->v1 = n->v1;
    p->v2 = n->v2;
    p->plugin_api = n->plugin_api;
    p->ctx = n->ctx;
    p->version = n->version;
    if (n->v2)
        registry__fill_host(p);
    /* The old lists go with `n`, which is freed. */
    SWAP(const void **, p->own_tables, n->own_tables);
    SWAP(ct_api_ref_t *, p->requires, n->requires);
    SWAP(uint32_t, p->num_requires, n->num_requires);
    SWAP(uint32_t *, p->max_version, n->max_version);
    SWAP(uint32_t *, p->chosen, n->chosen);
    /* Links to providers were made for the old requirement list; nothing needs them once a
     * plugin is loaded (shutdown order reads the chosen versions). */
    free(p->deps);
    p->deps = NULL;
    p->reload_count++;
    registry__plugin_free(n);
}

static bool has_reload_hooks(const ct_plugin_o *p)
{
    if (p->v2)
        return p->v2->reload_save && p->v2->reload_load;
    return p->v1 && p->v1->reload_save && p->v1->reload_load;
}

static int reload_plugin(ct_plugin_o *p)
{
    if (!has_reload_hooks(p)) {
        log__info("plugin '%s' changed on disk; it has no reload hooks, restart to use the new "
                  "code",
                  p->name);
        return CT_ERR_INVALID;
    }
    char err[PLUGIN_ERROR_SIZE];
    ct_plugin_o *n = NULL;
    int code = open_new_code(p, &n, err, sizeof err);
    if (code == 0 && !compatible(p, n, err, sizeof err)) {
        code = CT_ERR_VERSION;
        loader__close(n); /* none of its code but get_plugin_api ran */
        registry__plugin_free(n);
    }
    if (code == 0) {
        code = hand_over(p, n);
        if (code < 0) {
            snprintf(err, sizeof err, "reload_load returned %s (%s)", log__error_name(code),
                     log__error_message(code));
            retire(p, n->lib); /* its code ran and may have left pointers behind */
            n->lib = NULL;
            registry__plugin_free(n);
        } else {
            adopt(p, n);
        }
    }
    if (code < 0) {
        log__error("plugin '%s' (%s) was not reloaded, the old code keeps running: %s", p->name,
                   p->path, err);
        return code;
    }
    if (p->watch)
        p->watch->loaded = stamp(p->path);
    log__info("plugin '%s' reloaded (%u so far)", p->name, p->reload_count);
    return 0;
}

int loader__reload(const char *name)
{
    ct_plugin_o *p = name ? registry__find(name) : NULL;
    if (!p || p->state != CT_PLUGIN_LOADED) {
        log__error("cannot reload '%s': no such plugin is loaded", name ? name : "(null)");
        return CT_ERR_NOT_FOUND;
    }
    return reload_plugin(p);
}

/* ---- watching ---- */

static void on_change(uv_fs_event_t *handle, const char *filename, int events, int status)
{
    (void)events;
    loader_watch_t *w = handle->data;
    if (status == 0 && filename && strcmp(filename, w->file) == 0) {
        w->pending = true;
        w->seen = (file_stamp_t){-1, -1};
    }
}

static void free_watch(uv_handle_t *handle) { free(handle->data); }

void loader__watch(ct_plugin_o *p, uv_loop_t *loop)
{
    /* The folder is watched, not the file: builds replace the file (a new inode), and a watch on
     * the old inode would go quiet after the first rebuild. */
    char dir[1024] = ".";
    const char *slash = strrchr(p->path, '/');
    if (slash) {
        size_t len = slash == p->path ? 1 : (size_t)(slash - p->path);
        if (len >= sizeof dir)
            return;
        memcpy(dir, p->path, len);
        dir[len] = '\0';
    }
    loader_watch_t *w = calloc(1, sizeof *w);
    if (!w)
        return;
    w->plugin = p;
    w->file = slash ? slash + 1 : p->path;
    w->loaded = stamp(p->path);
    int rc = uv_fs_event_init(loop, &w->handle);
    if (rc != 0) {
        free(w);
    } else {
        w->handle.data = w;
        rc = uv_fs_event_start(&w->handle, on_change, dir, 0);
        if (rc != 0)
            uv_close((uv_handle_t *)&w->handle, free_watch);
    }
    if (rc != 0) {
        log__warning("plugin '%s': cannot watch %s for changes (%s); hot reload is off for it",
                     p->name, dir, uv_strerror(rc));
        return;
    }
    w->next = watches;
    watches = w;
    p->watch = w;
}

void loader__unwatch_all(void)
{
    uv_loop_t *loop = watches ? watches->handle.loop : NULL;
    while (watches) {
        loader_watch_t *w = watches;
        watches = w->next;
        w->plugin->watch = NULL;
        uv_close((uv_handle_t *)&w->handle, free_watch);
    }
    /* Close callbacks run on the loop's next turn; take it now so the watchers are freed before
     * the plugin records they point to. */
    if (loop)
        uv_run(loop, UV_RUN_NOWAIT);
}

uint32_t loader__apply_reloads(void)
{
    uint32_t reloaded = 0;
    for (loader_watch_t *w = watches; w; w = w->next) {
        if (!w->pending || w->plugin->state != CT_PLUGIN_LOADED)
            continue;
        /* Act only once the file exists and has looked the same for RELOAD_QUIET_NS. */
        const file_stamp_t now = stamp(w->plugin->path);
        const uint64_t t = uv_hrtime();
        if (now.size < 0 || !same_stamp(now, w->seen)) {
            w->seen = now;
            w->seen_at = t;
            continue;
        }
        if (t - w->seen_at < RELOAD_QUIET_NS)
            continue;
        /* A linker may create the file empty (or write it in pieces) and pause longer than the
         * quiet period: a file that is not yet a whole library is waited for, quietly, until the
         * next change makes it one (before: "file too short" and a failed reload). */
        char why[256];
        if (!loader__elf_whole(w->plugin->path, why, sizeof why)) {
            w->seen = (file_stamp_t){-1, -1};
            if (!w->waiting)
                log__write(NULL, CT_LOG_DEBUG,
                           "plugin '%s': %s %s; waiting for the build to finish", w->plugin->name,
                           w->plugin->path, why);
            w->waiting = true;
            continue;
        }
        w->waiting = false;
        w->pending = false;
        if (same_stamp(now, w->loaded))
            continue;
        w->loaded = now;
        if (reload_plugin(w->plugin) == 0)
            reloaded++;
    }
    return reloaded;
}
