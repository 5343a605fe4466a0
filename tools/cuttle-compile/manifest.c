/*
 * compiled/manifest.json: per source, what its blob was compiled from.
 *
 *     { "manifest_version": 1, "sources": [
 *         { "path": "levels/arena.level", "mtime_sec": 1700000000, "mtime_nsec": 12,
 *           "size": 120, "hash": "89ab...", "format": 3 } ] }
 *
 * JSON rather than binary because it is read once per compile and people do open it when
 * wondering why something was (not) rebuilt. The hash is a hex string because a 64-bit value
 * does not survive a double. Since the file only ever saves work, a damaged one is reported and
 * ignored: everything is then recompiled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/log.h"
#include "compiler.h"

#define MANIFEST_VERSION 1
/* Integers stored as JSON numbers stay below 2^53, where doubles are exact. */
#define MAX_EXACT 9007199254740992.0

static bool get_integer(const cJSON *obj, const char *key, double min, double max, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < min || v->valuedouble > max ||
        floor(v->valuedouble) != v->valuedouble)
        return false;
    *out = v->valuedouble;
    return true;
}

static bool parse_entry(const cJSON *obj, resources_manifest_entry_t *e)
{
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(obj, "path");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(obj, "hash");
    double sec, nsec, size, format;
    if (!cJSON_IsString(path) || !path->valuestring[0] ||
        strlen(path->valuestring) > RESOURCES_MAX_NAME + RESOURCES_MAX_TYPE + 1 ||
        !cJSON_IsString(hash) || strlen(hash->valuestring) != 16 ||
        strspn(hash->valuestring, "0123456789abcdef") != 16 ||
        !get_integer(obj, "mtime_sec", -MAX_EXACT, MAX_EXACT, &sec) ||
        !get_integer(obj, "mtime_nsec", 0, 999999999, &nsec) ||
        !get_integer(obj, "size", 0, MAX_EXACT, &size) ||
        !get_integer(obj, "format", 0, UINT32_MAX, &format))
        return false;
    *e = (resources_manifest_entry_t){
        .path = path->valuestring,
        .mtime_sec = (int64_t)sec,
        .mtime_nsec = (int64_t)nsec,
        .size = (uint64_t)size,
        .hash = strtoull(hash->valuestring, NULL, 16),
        .format_version = (uint32_t)format,
    };
    return true;
}

void resources__manifest_read(resources_manifest_t *m, const char *path)
{
    *m = (resources_manifest_t){0};
    uint64_t size;
    uint8_t *text = resources__read_file(path, &size);
    if (!text)
        return;
    cJSON *root = cJSON_ParseWithLength((const char *)text, (size_t)size);
    ct_free(resources__allocator(), text, (size_t)size + 1);
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "manifest_version");
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    const char *problem = NULL;
    if (!root)
        problem = "not valid JSON";
    else if (!cJSON_IsNumber(version) || version->valuedouble != MANIFEST_VERSION)
        problem = "unknown manifest_version";
    else if (!cJSON_IsArray(sources))
        problem = "'sources' is not an array";
    int index = 0;
    const cJSON *list = problem ? NULL : sources;
    const cJSON *item;
    cJSON_ArrayForEach(item, list) {
        resources_manifest_entry_t e;
        if (!parse_entry(item, &e)) {
            problem = "a source entry is malformed";
            break;
        }
        if (resources__manifest_put(m, &e)) {
            problem = "out of memory";
            break;
        }
        index++;
    }
    if (problem) {
        log__warning("%s: %s (entry %d); recompiling everything", path, problem, index);
        resources__manifest_free(m);
    }
    cJSON_Delete(root);
}

static cJSON *entry_json(const resources_manifest_entry_t *e)
{
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)e->hash);
    cJSON *obj = cJSON_CreateObject();
    if (!cJSON_AddStringToObject(obj, "path", e->path) ||
        !cJSON_AddNumberToObject(obj, "mtime_sec", (double)e->mtime_sec) ||
        !cJSON_AddNumberToObject(obj, "mtime_nsec", (double)e->mtime_nsec) ||
        !cJSON_AddNumberToObject(obj, "size", (double)e->size) ||
        !cJSON_AddStringToObject(obj, "hash", hash) ||
        !cJSON_AddNumberToObject(obj, "format", (double)e->format_version)) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

int resources__manifest_write(const resources_manifest_t *m, const char *path)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *sources = cJSON_AddArrayToObject(root, "sources");
    bool ok = sources && cJSON_AddNumberToObject(root, "manifest_version", MANIFEST_VERSION);
    for (uint32_t i = 0; ok && i < m->count; i++) {
        cJSON *e = entry_json(&m->entries[i]);
        ok = e && cJSON_AddItemToArray(sources, e);
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return CT_ERR_NOMEM;
    int rc = resources__write_file(path, text, strlen(text));
    cJSON_free(text);
    return rc;
}

resources_manifest_entry_t *resources__manifest_find(resources_manifest_t *m, const char *path)
{
    for (uint32_t i = 0; i < m->count; i++) {
        if (strcmp(m->entries[i].path, path) == 0)
            return &m->entries[i];
    }
    return NULL;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = ct_alloc(resources__allocator(), n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static void free_string(char *s)
{
    ct_free(resources__allocator(), s, strlen(s) + 1);
}

int resources__manifest_put(resources_manifest_t *m, const resources_manifest_entry_t *e)
{
    resources_manifest_entry_t *slot = resources__manifest_find(m, e->path);
    if (slot) {
        char *path = slot->path;
        *slot = *e;
        slot->path = path;
        return 0;
    }
    if (m->count == m->capacity) {
        uint32_t capacity = m->capacity ? m->capacity * 2 : 64;
        resources_manifest_entry_t *grown =
            ct_realloc(resources__allocator(), m->entries, m->capacity * sizeof *grown,
                       capacity * sizeof *grown);
        if (!grown)
            return CT_ERR_NOMEM;
        m->entries = grown;
        m->capacity = capacity;
    }
    char *path = copy_string(e->path);
    if (!path)
        return CT_ERR_NOMEM;
    m->entries[m->count] = *e;
    m->entries[m->count].path = path;
    m->count++;
    return 0;
}

void resources__manifest_remove(resources_manifest_t *m, resources_manifest_entry_t *e)
{
    free_string(e->path);
    *e = m->entries[--m->count];
}

void resources__manifest_free(resources_manifest_t *m)
{
    for (uint32_t i = 0; i < m->count; i++)
        free_string(m->entries[i].path);
    if (m->entries)
        ct_free(resources__allocator(), m->entries, m->capacity * sizeof *m->entries);
    *m = (resources_manifest_t){0};
}
