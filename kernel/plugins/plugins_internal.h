/* The plugin record shared by the registry and the loader's files (kernel/plugins only).
 *
 * All of kernel/plugins allocates with malloc, not the kernel's tracked allocators: records,
 * paths and watchers outlive the per-plugin allocators (records are freed by registry__shutdown),
 * and the loader's bookkeeping must not show up as any plugin's, or the kernel's, leak. */
#ifndef CT_KERNEL_PLUGINS_INTERNAL_H
#define CT_KERNEL_PLUGINS_INTERNAL_H

#include <stdarg.h>
#include <uv.h>

#include "plugins/loader.h"
#include "plugins/registry.h"

#define PLUGIN_ERROR_SIZE 512

typedef struct loader_watch_t loader_watch_t;

/*
 * Everything the kernel knows about one plugin. Records are created at discovery, live until
 * registry__shutdown (so names and errors stay readable after a plugin failed or shut down) and
 * are handed to the plugin as its ct_plugin_o *self.
 */
struct ct_plugin_o {
    char *name;
    char *path;
    uint32_t discovery_index;
    uint32_t plugin_api; /* 0, 1 or 2 */
    ct_semver_t version;
    ct_plugin_state state;
    int error_code; /* the ct_error behind FAILED/SKIPPED, 0 otherwise */
    char error[PLUGIN_ERROR_SIZE];
    uint32_t load_index;
    uint32_t reload_count;

    /* Kernel-owned copies of the plugin's metadata: one block holding the array and the names. */
    ct_api_ref_t *provides;
    uint32_t num_provides;
    ct_api_ref_t *requires; /* for v2: version = the lowest accepted */
    uint32_t num_requires;
    /* For each requires[i]: the highest accepted version (v0/v1: the one version) and, once
     * resolved, the one chosen (0: an optional API nobody offers). One block with the refs. */
    uint32_t *max_version;
    uint32_t *chosen;
    /* For each requires[i]: the plugin chosen to provide it (NULL: the kernel, or an optional API
     * nobody offers). Filled by loader__resolve. */
    ct_plugin_o **deps;
    /* For each provides[i]: the stable copy of the table handed out by get_engine_api, made on
     * first request and overwritten in place by a hot reload. */
    void **tables;

    /* The dlopen handle of the plugin's private copy (see loader__open). */
    void *lib;
    /* With --debug (CUTTLE_DEBUG=1) the copy stays linked while loaded, so a debugger can read
     * its symbols: its path, removed by loader__close or when a reload replaces the code. */
    char *copy_path;
    ct_get_api_f get_plugin_api;
    const ct_plugin_api_v0 *v0;
    const ct_plugin_api_v1 *v1;
    const ct_plugin_api_v2 *v2;
    /* What the provided APIs' own tables are, read once at open (provides[i] -> own_tables[i]),
     * so get_engine_api never runs plugin code under the registry lock. */
    const void **own_tables;
    /* v2: the context init or reload_load set, and what the plugin is told about the kernel. */
    void *ctx;
    ct_plugin_host_t host;
    ct_allocator_t *allocator;

    /* Libraries replaced by hot reloads; never closed (old code may still be referenced). */
    void **retired;
    uint32_t num_retired;
    loader_watch_t *watch;
};

/* Records, in discovery order. `registry__plugin_new` makes an unregistered record (name and path
 * copied); `registry__plugin_register` appends it (the registry then owns it; false when out
 * of memory, and the caller still owns it); `registry__plugin_free` frees an unregistered one. */
ct_plugin_o *registry__plugin_new(const char *name, const char *path);
bool registry__plugin_register(ct_plugin_o *p);
void registry__plugin_free(ct_plugin_o *p);
/* Renames an unregistered record; false when out of memory (the old name stays). */
bool registry__plugin_rename(ct_plugin_o *p, const char *name);
uint32_t registry__num_plugins(void);
ct_plugin_o *registry__plugin(uint32_t i);
ct_plugin_o *registry__find(const char *name);
void registry__set_current_plugin(ct_plugin_o *p);
/* Whether the kernel itself serves (id, version). */
bool registry__kernel_has(uint32_t id, uint32_t version);
/* Appends to `buf` the versions of `id` the kernel serves, as " v1 v2 (by kernel)"; returns
 * whether there were any. */
bool registry__kernel_versions(uint32_t id, char *buf, size_t size);
/* A printable name for an API id: a known name or "api 0x1234abcd" (in a static buffer). */
const char *registry__api_label(uint32_t id, const ct_api_ref_t *ref);

/* Fills p->host, what a v2 plugin is told in init and reload_load. */
void registry__fill_host(ct_plugin_o *p);

/* Sets the plugin's state and error and logs one line naming it. */
void loader__fail(ct_plugin_o *p, ct_plugin_state state, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Skips `p` because `provider`, which it needs for `ref`, did not load. */
void loader__skip(ct_plugin_o *p, const ct_api_ref_t *ref, const ct_plugin_o *provider);
/* Opens a private copy of the file `path` into p->lib (so the file may change under the running
 * engine), with every symbol bound now, finds get_plugin_api and reads and checks the plugin's
 * metadata into `p`: every pointer it hands the kernel must lie inside the plugin's own mapped
 * file, so a garbage table is refused instead of read. On failure returns a negative ct_error
 * with the reason (without the plugin's name) in `err`; the library stays open when it was
 * opened (p->lib) so its record can be freed uniformly with loader__close. */
int loader__open(ct_plugin_o *p, const char *path, char *err, size_t err_size);
/* Whether the file at `path` is an ELF file holding every byte its program headers map (a file
 * a linker is still writing is not); false fills `err` with why. */
/* Removes a --debug copy's file (the code stays mapped); nothing without --debug. */
void loader__drop_copy(ct_plugin_o *p);
bool loader__elf_whole(const char *path, char *err, size_t err_size);
/* Closes p->lib if open. */
void loader__close(ct_plugin_o *p);
/* The file name (without folder) the plugin `name` must have in a module folder:
 * "ct.physics" -> "ct_physics.so". False when it does not fit in `size`. */
bool loader__file_name(const char *name, char *out, size_t size);
/* Whether `p` requires (declared, or asked get_engine_api for and got an answer from) an API
 * that `q` provides. */
bool loader__uses(const ct_plugin_o *p, const ct_plugin_o *q);

/* Collects candidate paths: explicit paths first, then each module folder's *.so files
 * (recursively, sorted). `from_dir[i]` tells which came from a folder. Free with
 * loader__free_paths. */
typedef struct loader_paths_t {
    char **paths;
    bool *from_dir;
    uint32_t count;
} loader_paths_t;
int loader__discover(const loader_desc_t *desc, loader_paths_t *out);
void loader__free_paths(loader_paths_t *paths);

/* Resolves the registered DISCOVERED plugins: providers, requirements, cycles. Fails or skips
 * the ones that cannot load and writes the rest, dependencies first, into `order` (room for
 * registry__num_plugins()). Returns how many. */
uint32_t loader__resolve(const loader_desc_t *desc, ct_plugin_o **order);

/* unlisted.c: when a project lists its modules, writes into `out` the plugin files its module
 * folders hold that no registered plugin came from (the project leaves them out, so they were
 * not loaded); false when there are none. For the message about a required API nobody offers. */
bool loader__unlisted_files(const loader_desc_t *desc, char *out, size_t size);

/* The plugins that were initialised, in load order. */
uint32_t loader__load_order(ct_plugin_o ***out);
/* Hot reload: starts watching a loaded plugin's file; stops and frees every watcher. */
void loader__watch(ct_plugin_o *p, uv_loop_t *loop);
void loader__unwatch_all(void);

#endif
