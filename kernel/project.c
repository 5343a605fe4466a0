#include "project.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "data/nearest.h"
#include "data/sjson.h"
#include "resources/resources.h"

/* The keys project.sjson knows; anything else is named, with the nearest of these. */
static const char *const known_keys[] = {
    "boot_script", "frames",         "modules",        "versions", "providers",
    "sandbox",     "plugin_folders", "script_timeout", "roots",
};

/* What a reader needs to report: the file, and whether mistakes are fatal (--strict). */
typedef struct reader_t {
    const char *path;
    bool strict;
} reader_t;

static int field_error(const reader_t *r, const char *field, const char *what)
{
    log__error("%s: field '%s': %s", r->path, field, what);
    return CT_ERR_BAD_DATA;
}

/* A mistake that loses nothing the engine needs: a warning, or under --strict an error that
 * fails the load. */
__attribute__((format(printf, 2, 3))) static int mistake(const reader_t *r, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    log__write(NULL, r->strict ? CT_LOG_ERROR : CT_LOG_WARNING, "%s: %s", r->path, message);
    return r->strict ? CT_ERR_BAD_DATA : 0;
}

static bool listed(const project_t *p, const char *name)
{
    for (uint32_t i = 0; i < p->num_modules; i++)
        if (strcmp(p->modules[i], name) == 0)
            return true;
    return false;
}

static int read_modules(const reader_t *r, const cJSON *array, project_t *p)
{
    if (!array)
        return 0;
    if (!cJSON_IsArray(array))
        return field_error(r, "modules", "expected an array of plugin names");
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (!cJSON_IsString(item) || !item->valuestring[0])
            return field_error(r, "modules", "every entry must be a plugin name");
        if (listed(p, item->valuestring)) {
            int err = mistake(r, "field 'modules': '%s' is listed twice", item->valuestring);
            if (err)
                return err;
            continue;
        }
        if (p->num_modules == PROJECT_MAX_ENTRIES)
            return field_error(r, "modules", "too many entries");
        p->modules[p->num_modules++] = item->valuestring;
    }
    return 0;
}

/* A pin or provider naming a plugin the project does not load says nothing: name it. */
static int check_listed(const reader_t *r, const project_t *p, const char *field, const char *key,
                        const char *plugin)
{
    if (listed(p, plugin))
        return 0;
    const char *near = data__nearest_name(plugin, p->modules, p->num_modules);
    return mistake(r, "field '%s': '%s' names plugin '%s', which 'modules' does not list%s%s%s",
                   field, key, plugin, near ? " (did you mean '" : "", near ? near : "",
                   near ? "'?)" : "");
}

static int read_pins(const reader_t *r, const cJSON *obj, project_t *p)
{
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return field_error(r, "versions", "expected { \"plugin.name\" = major_version }");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (!cJSON_IsNumber(item) || item->valuedouble < 0 || item->valuedouble > 65535 ||
            item->valuedouble != (double)(uint32_t)item->valuedouble)
            return field_error(r, "versions", "a version must be a whole number 0..65535");
        if (p->num_pins == PROJECT_MAX_ENTRIES)
            return field_error(r, "versions", "too many entries");
        int err = check_listed(r, p, "versions", item->string, item->string);
        if (err)
            return err;
        p->pins[p->num_pins++] = (loader_pin_t){item->string, (uint32_t)item->valuedouble};
    }
    return 0;
}

static int read_providers(const reader_t *r, const cJSON *obj, project_t *p)
{
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return field_error(r, "providers", "expected { \"api.name\" = \"plugin.name\" }");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (!cJSON_IsString(item))
            return field_error(r, "providers", "a provider must be a plugin name");
        if (p->num_providers == PROJECT_MAX_ENTRIES)
            return field_error(r, "providers", "too many entries");
        int err = check_listed(r, p, "providers", item->string, item->valuestring);
        if (err)
            return err;
        p->providers[p->num_providers++] = (loader_provider_t){item->string, item->valuestring};
    }
    return 0;
}

/* A path the project names is a resource-style name: canonical, relative, lower case, no '.' or
 * '..' segments; and once symbolic links are resolved it must still lie inside the project.
 * Writes DIR/name into out. */
static int read_project_path(const reader_t *r, const char *dir, const cJSON *node,
                             const char *field, char *out, size_t out_size)
{
    char why[256];
    if (!cJSON_IsString(node))
        return field_error(r, field, "expected a path relative to the project folder");
    if (resources__check_name(node->valuestring, why, sizeof why)) {
        log__error("%s: field '%s': '%s' is not a canonical project path: %s (paths stay inside "
                   "the project)",
                   r->path, field, node->valuestring, why);
        return CT_ERR_BAD_DATA;
    }
    int n = snprintf(out, out_size, "%s/%s", dir, node->valuestring);
    if (n < 0 || (size_t)n >= out_size)
        return field_error(r, field, "the path is too long");
    char real_dir[PATH_MAX], real_file[PATH_MAX];
    if (realpath(dir, real_dir) && realpath(out, real_file)) {
        size_t len = strlen(real_dir);
        if (strncmp(real_file, real_dir, len) != 0 || real_file[len] != '/') {
            char message[PATH_MAX + 100];
            snprintf(message, sizeof message, "'%s' leads outside the project (to %s)",
                     node->valuestring, real_file);
            return field_error(r, field, message);
        }
    }
    return 0;
}

static int read_plugin_folders(const reader_t *r, const char *dir, const cJSON *array, project_t *p)
{
    if (!array)
        return 0;
    if (!cJSON_IsArray(array))
        return field_error(r, "plugin_folders", "expected an array of folder names");
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (p->num_plugin_dirs == PROJECT_MAX_ENTRIES)
            return field_error(r, "plugin_folders", "too many entries");
        char joined[PATH_MAX];
        int err = read_project_path(r, dir, item, "plugin_folders", joined, sizeof joined);
        if (err)
            return err;
        char *copy = strdup(joined);
        if (!copy)
            return CT_ERR_NOMEM;
        p->plugin_dirs[p->num_plugin_dirs++] = copy;
    }
    return 0;
}

static int read_settings(const reader_t *r, const char *dir, const cJSON *root, project_t *p)
{
    const cJSON *boot = cJSON_GetObjectItemCaseSensitive(root, "boot_script");
    if (boot) {
        int err =
            read_project_path(r, dir, boot, "boot_script", p->boot_script, sizeof p->boot_script);
        if (err)
            return err;
    }
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    if (frames) {
        if (!cJSON_IsNumber(frames) || frames->valuedouble < 0 || frames->valuedouble > 1e9 ||
            frames->valuedouble != (double)(uint32_t)frames->valuedouble)
            return field_error(r, "frames", "expected a whole frame count");
        p->frames = (uint32_t)frames->valuedouble;
    }
    const cJSON *sandbox = cJSON_GetObjectItemCaseSensitive(root, "sandbox");
    if (sandbox) {
        if (!cJSON_IsBool(sandbox))
            return field_error(r, "sandbox", "expected true or false");
        p->sandbox = cJSON_IsTrue(sandbox);
    }
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(root, "script_timeout");
    if (timeout) {
        if (!cJSON_IsNumber(timeout) || !(timeout->valuedouble >= 0) ||
            timeout->valuedouble > PROJECT_MAX_SCRIPT_TIMEOUT)
            return field_error(r, "script_timeout",
                               "expected seconds 0..3600 (0: the watchdog "
                               "is off)");
        p->has_script_timeout = true;
        p->script_timeout = timeout->valuedouble;
    }
    /* What the engine reaches without a reference (a render_config chosen by name, a level the
     * boot script builds a name for), for cuttle-deps's `unused`; the engine itself reads no
     * further than checking the form. */
    const cJSON *roots = cJSON_GetObjectItemCaseSensitive(root, "roots");
    const cJSON *item;
    if (roots && !cJSON_IsArray(roots))
        return field_error(r, "roots",
                           "expected an array of project files "
                           "([\"default.render_config\"])");
    cJSON_ArrayForEach(item, roots) if (!cJSON_IsString(item)) return field_error(
        r, "roots",
        "expected an array of project files "
        "([\"default.render_config\"])");
    return 0;
}

static int check_keys(const reader_t *r, const cJSON *root)
{
    const uint32_t n = sizeof known_keys / sizeof known_keys[0];
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        bool known = false;
        for (uint32_t i = 0; i < n && !known; i++)
            known = strcmp(item->string, known_keys[i]) == 0;
        if (known)
            continue;
        const char *near = data__nearest_name(item->string, known_keys, n);
        int err = mistake(r,
                          "unknown key '%s'%s%s%s (known: boot_script, frames, modules, "
                          "versions, providers, sandbox, plugin_folders, script_timeout, roots)",
                          item->string, near ? " (did you mean '" : "", near ? near : "",
                          near ? "'?)" : "");
        if (err)
            return err;
    }
    return 0;
}

int project__load(const char *dir, bool strict, project_t *out)
{
    memset(out, 0, sizeof *out);
    char path[1024], err[512];
    if (!dir || !dir[0]) {
        log__error("project: the project folder is an empty name (give --project a folder)");
        return CT_ERR_INVALID;
    }
    int n = snprintf(path, sizeof path, "%s/project.sjson", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        log__error("project: the folder's path is too long: %s", dir);
        return CT_ERR_INVALID;
    }
    size_t len;
    char *text = sjson__read_file(path, &len, err, sizeof err);
    if (!text) {
        log__error("project: %s", err);
        return CT_ERR_NOT_FOUND;
    }
    int r = project__parse(dir, path, text, len, strict, out);
    free(text);
    return r;
}

int project__parse(const char *dir, const char *path, const char *text, size_t len, bool strict,
                   project_t *out)
{
    memset(out, 0, sizeof *out);
    char err[512];
    cJSON *root = sjson__parse(text, len, path, err, sizeof err);
    if (!root) {
        log__error("%s", err);
        return CT_ERR_BAD_DATA;
    }
    out->tree = root;
    const reader_t r = {path, strict};
    int err_code = 0;
    if (!cJSON_IsObject(root)) {
        log__error("%s: the file must hold settings (key = value), not an array", path);
        err_code = CT_ERR_BAD_DATA;
    }
    if (!err_code)
        err_code = check_keys(&r, root);
    if (!err_code)
        err_code = read_settings(&r, dir, root, out);
    if (!err_code)
        err_code = read_modules(&r, cJSON_GetObjectItemCaseSensitive(root, "modules"), out);
    if (!err_code)
        err_code = read_pins(&r, cJSON_GetObjectItemCaseSensitive(root, "versions"), out);
    if (!err_code)
        err_code = read_providers(&r, cJSON_GetObjectItemCaseSensitive(root, "providers"), out);
    if (!err_code)
        err_code = read_plugin_folders(
            &r, dir, cJSON_GetObjectItemCaseSensitive(root, "plugin_folders"), out);
    if (err_code)
        project__free(out);
    return err_code;
}

void project__free(project_t *p)
{
    for (uint32_t i = 0; i < p->num_plugin_dirs; i++)
        free(p->plugin_dirs[i]);
    cJSON_Delete(p->tree);
    memset(p, 0, sizeof *p);
}
