/* Finding plugin files: explicit paths, then every *.so under the module folders. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "plugins/plugins_internal.h"

/* Folders nested deeper than this are a symlink loop, not a module layout. */
#define MAX_DEPTH 16

static int add_path(loader_paths_t *out, const char *path, bool from_dir)
{
    char **paths = realloc(out->paths, (out->count + 1) * sizeof *paths);
    if (!paths)
        return CT_ERR_NOMEM;
    out->paths = paths;
    bool *flags = realloc(out->from_dir, (out->count + 1) * sizeof *flags);
    if (!flags)
        return CT_ERR_NOMEM;
    out->from_dir = flags;
    size_t len = strlen(path) + 1;
    out->paths[out->count] = malloc(len);
    if (!out->paths[out->count])
        return CT_ERR_NOMEM;
    memcpy(out->paths[out->count], path, len);
    out->from_dir[out->count++] = from_dir;
    return 0;
}

static bool ends_with_so(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scans one folder. Entries are sorted so the discovery order (and with it the load order among
 * independent plugins) is the same on every machine. */
static int scan(loader_paths_t *out, const char *dir, int depth)
{
    if (depth > MAX_DEPTH)
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        log__warning("module folder '%s' cannot be read", dir);
        return 0;
    }
    char **names = NULL;
    uint32_t n = 0;
    int err = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown) {
            err = CT_ERR_NOMEM;
            break;
        }
        names = grown;
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n]) {
            err = CT_ERR_NOMEM;
            break;
        }
        strcpy(names[n], dir);
        strcat(names[n], "/");
        strcat(names[n++], e->d_name);
    }
    closedir(d);
    if (n > 1) /* qsort wants a real array even for none */
        qsort(names, n, sizeof *names, compare_names);
    for (uint32_t i = 0; i < n; i++) {
        struct stat st;
        if (err == 0 && stat(names[i], &st) == 0) {
            if (S_ISDIR(st.st_mode))
                err = scan(out, names[i], depth + 1);
            else if (S_ISREG(st.st_mode) && ends_with_so(names[i]))
                err = add_path(out, names[i], true);
        }
        free(names[i]);
    }
    free(names);
    return err;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The installed modules, minus files whose name an earlier path or folder already has: that one
 * overrides the installed module (module files are named after their plugins). */
static int add_fallback(loader_paths_t *out, const char *dir)
{
    loader_paths_t installed;
    memset(&installed, 0, sizeof installed);
    int err = scan(&installed, dir, 0);
    for (uint32_t i = 0; i < installed.count && err == 0; i++) {
        bool overridden = false;
        for (uint32_t k = 0; k < out->count && !overridden; k++)
            overridden = strcmp(base_name(out->paths[k]), base_name(installed.paths[i])) == 0;
        if (!overridden)
            err = add_path(out, installed.paths[i], true);
    }
    loader__free_paths(&installed);
    return err;
}

int loader__discover(const loader_desc_t *desc, loader_paths_t *out)
{
    memset(out, 0, sizeof *out);
    int err = 0;
    for (uint32_t i = 0; i < desc->num_plugin_paths && err == 0; i++)
        err = add_path(out, desc->plugin_paths[i], false);
    for (uint32_t i = 0; i < desc->num_module_dirs && err == 0; i++)
        err = scan(out, desc->module_dirs[i], 0);
    if (desc->fallback_module_dir && err == 0)
        err = add_fallback(out, desc->fallback_module_dir);
    return err;
}

void loader__free_paths(loader_paths_t *paths)
{
    for (uint32_t i = 0; i < paths->count; i++)
        free(paths->paths[i]);
    free(paths->paths);
    free(paths->from_dir);
    memset(paths, 0, sizeof *paths);
}
