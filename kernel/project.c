#include "project.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "data/sjson.h"

static int field_error(const char *path, const char *field, const char *what)
{
    log__error("%s: field '%s': %s", path, field, what);
    return CT_ERR_BAD_DATA;
}

/* Fills names[] from an array of strings. */
static int read_names(const char *path, const cJSON *array, const char *field, const char **names,
                      uint32_t *count)
{
    if (!array)
        return 0;
    if (!cJSON_IsArray(array))
        return field_error(path, field, "expected an array of plugin names");
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (!cJSON_IsString(item))
            return field_error(path, field, "every entry must be a string");
        if (*count == PROJECT_MAX_ENTRIES)
            return field_error(path, field, "too many entries");
        names[(*count)++] = item->valuestring;
    }
    return 0;
}

static int read_pins(const char *path, const cJSON *obj, project_t *p)
{
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return field_error(path, "versions", "expected { \"plugin.name\" = major_version }");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (!cJSON_IsNumber(item) || item->valuedouble < 0 || item->valuedouble > 65535 ||
            item->valuedouble != (double)(uint32_t)item->valuedouble)
            return field_error(path, "versions", "a version must be a whole number 0..65535");
        if (p->num_pins == PROJECT_MAX_ENTRIES)
            return field_error(path, "versions", "too many entries");
        p->pins[p->num_pins++] = (loader_pin_t){item->string, (uint32_t)item->valuedouble};
    }
    return 0;
}

static int read_providers(const char *path, const cJSON *obj, project_t *p)
{
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return field_error(path, "providers", "expected { \"api.name\" = \"plugin.name\" }");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj)
    {
        if (!cJSON_IsString(item))
            return field_error(path, "providers", "a provider must be a plugin name");
        if (p->num_providers == PROJECT_MAX_ENTRIES)
            return field_error(path, "providers", "too many entries");
        p->providers[p->num_providers++] = (loader_provider_t){item->string, item->valuestring};
    }
    return 0;
}

/* A plugin folder is a relative path inside the project: no '..', '.', empty parts or leading '/'. */
static const char *folder_problem(const char *folder)
{
    if (!folder[0])
        return "a folder must not be empty";
    if (folder[0] == '/')
        return "a folder is relative to the project, not absolute";
    for (const char *part = folder; part;) {
        const char *slash = strchr(part, '/');
        size_t len = slash ? (size_t)(slash - part) : strlen(part);
        if (len == 0 || (len == 1 && part[0] == '.') || (len == 2 && !strncmp(part, "..", 2)))
            return "a folder must stay inside the project (no '..', '.' or empty parts)";
        part = slash ? slash + 1 : NULL;
    }
    return NULL;
}

static int read_plugin_folders(const char *path, const char *dir, const cJSON *array, project_t *p)
{
    if (!array)
        return 0;
    if (!cJSON_IsArray(array))
        return field_error(path, "plugin_folders", "expected an array of folder names");
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (!cJSON_IsString(item))
            return field_error(path, "plugin_folders", "every entry must be a string");
        const char *problem = folder_problem(item->valuestring);
        if (problem) {
            log__error("%s: field 'plugin_folders': '%s': %s", path, item->valuestring, problem);
            return CT_ERR_BAD_DATA;
        }
        if (p->num_plugin_dirs == PROJECT_MAX_ENTRIES)
            return field_error(path, "plugin_folders", "too many entries");
        size_t len = strlen(dir) + strlen(item->valuestring) + 2;
        char *joined = malloc(len);
        if (!joined)
            return CT_ERR_NOMEM;
        snprintf(joined, len, "%s/%s", dir, item->valuestring);
        p->plugin_dirs[p->num_plugin_dirs++] = joined;
    }
    return 0;
}

static int read_boot_and_frames(const char *path, const char *dir, const cJSON *root, project_t *p)
{
    const cJSON *boot = cJSON_GetObjectItemCaseSensitive(root, "boot_script");
    if (boot) {
        if (!cJSON_IsString(boot) || !boot->valuestring[0])
            return field_error(path, "boot_script", "expected a file name");
        int n = snprintf(p->boot_script, sizeof p->boot_script, "%s/%s", dir, boot->valuestring);
        if (n < 0 || (size_t)n >= sizeof p->boot_script)
            return field_error(path, "boot_script", "the script's path is too long");
    }
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    if (frames) {
        if (!cJSON_IsNumber(frames) || frames->valuedouble < 0 || frames->valuedouble > 1e9 ||
            frames->valuedouble != (double)(uint32_t)frames->valuedouble)
            return field_error(path, "frames", "expected a whole frame count");
        p->frames = (uint32_t)frames->valuedouble;
    }
    return 0;
}

int project__load(const char *dir, project_t *out)
{
    memset(out, 0, sizeof *out);
    char path[1024], err[512];
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
    cJSON *root = sjson__parse(text, len, path, err, sizeof err);
    free(text);
    if (!root) {
        log__error("%s", err);
        return CT_ERR_BAD_DATA;
    }
    out->tree = root;

    int err_code = read_boot_and_frames(path, dir, root, out);
    if (!err_code)
        err_code = read_names(path, cJSON_GetObjectItemCaseSensitive(root, "modules"), "modules",
                              out->modules, &out->num_modules);
    if (!err_code)
        err_code = read_pins(path, cJSON_GetObjectItemCaseSensitive(root, "versions"), out);
    if (!err_code)
        err_code = read_providers(path, cJSON_GetObjectItemCaseSensitive(root, "providers"), out);
    if (!err_code)
        err_code = read_plugin_folders(
            path, dir, cJSON_GetObjectItemCaseSensitive(root, "plugin_folders"), out);
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
