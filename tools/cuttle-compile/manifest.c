/*
 * compiled/manifest.json: per source, what its blob was compiled from.
 *
 *     { "manifest_version": 2, "sources": [
 *         { "path": "anims/walk.clip", "mtime_sec": 1700000000, "mtime_nsec": 12,
 *           "size": 120, "hash": "89ab...", "format": 3, "warnings": 0,
 *           "files": [ { "path": "mocap/walk.bvh", "mtime_sec": 1690000000, "mtime_nsec": 0,
 *                        "size": 301220, "hash": "0123..." },
 *                      { "path": "mocap/walk.events", "absent": true } ] } ] }
 *
 * `provider` is the plugin that registered the type and its version, `formats` the versions of
 * what the compile used besides its type (ct_resource_api_v6.uses_format): when either differs
 * at a later run, the source is compiled again (version 2 had neither: read as empty).
 * `files` are the other files the compile read (ct_resource_api_v4.depends_on); `warnings` how
 * many warnings it gave, so that --strict can compile it again (and fail) rather than call it up
 * to date. Version 1 had neither: such a manifest is read as empty, everything is compiled once.
 *
 * compiled/manifest.json.journal holds what changed since manifest.json was written, one record
 * a line, appended by `cuttle-compile --watch` so that one edit costs one small append rather
 * than rewriting an entry per source: a line is an entry as above (it replaces the source's
 * entry) or {"remove": PATH}. A reader applies the lines in order over manifest.json and stops at
 * the first line that is not a whole record (an append cut short by a crash or a full disk):
 * what it would have said is then simply not known, and a source whose entry is older than its
 * file compiles again, so a cut journal never makes anything look up to date that is not.
 * Writing manifest.json whole folds the journal in and removes it; a crash between the two
 * replays records the new file already holds, which changes nothing.
 *
 * JSON rather than binary because it is read once per compile and people do open it when
 * wondering why something was (not) rebuilt. The hash is a hex string because a 64-bit value
 * does not survive a double. Since the file only ever saves work, a damaged one is reported and
 * ignored: everything is then recompiled.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/log.h"
#include "compiler.h"
#include "ct_array.h"
#include "ct_hash.h"

#define MANIFEST_VERSION 3
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

static bool hex_hash(const cJSON *obj, uint64_t *out)
{
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(obj, "hash");
    if (!cJSON_IsString(hash) || strlen(hash->valuestring) != 16 ||
        strspn(hash->valuestring, "0123456789abcdef") != 16)
        return false;
    *out = strtoull(hash->valuestring, NULL, 16);
    return true;
}

static bool parse_stamp(const cJSON *obj, compiler_stamp_t *stamp)
{
    double sec, nsec, size;
    *stamp = (compiler_stamp_t){0};
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "absent"))) {
        stamp->absent = true;
        return true;
    }
    if (!hex_hash(obj, &stamp->hash) ||
        !get_integer(obj, "mtime_sec", -MAX_EXACT, MAX_EXACT, &sec) ||
        !get_integer(obj, "mtime_nsec", 0, 999999999, &nsec) ||
        !get_integer(obj, "size", 0, MAX_EXACT, &size))
        return false;
    stamp->mtime_sec = (int64_t)sec;
    stamp->mtime_nsec = (int64_t)nsec;
    stamp->size = (uint64_t)size;
    return true;
}

/* The entry's paths point into the JSON, its files into `files` (RESOURCES_MAX_FILES). */
static bool parse_entry(const cJSON *obj, compiler_manifest_entry_t *e,
                        compiler_manifest_file_t *files)
{
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(obj, "path");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, "files");
    double format, warnings;
    *e = (compiler_manifest_entry_t){.files = files};
    if (!cJSON_IsString(path) || !path->valuestring[0] ||
        strlen(path->valuestring) > RESOURCES_MAX_NAME + RESOURCES_MAX_TYPE + 1 ||
        !parse_stamp(obj, &e->stamp) || !get_integer(obj, "format", 0, UINT32_MAX, &format) ||
        !get_integer(obj, "warnings", 0, UINT32_MAX, &warnings) || !cJSON_IsArray(list) ||
        cJSON_GetArraySize(list) > RESOURCES_MAX_FILES)
        return false;
    const cJSON *provider = cJSON_GetObjectItemCaseSensitive(obj, "provider");
    const cJSON *formats = cJSON_GetObjectItemCaseSensitive(obj, "formats");
    if (!cJSON_IsString(provider) || !cJSON_IsString(formats) ||
        strlen(provider->valuestring) > 255 || strlen(formats->valuestring) > 8192)
        return false;
    e->provider = provider->valuestring;
    e->formats = formats->valuestring;
    e->path = path->valuestring;
    e->format_version = (uint32_t)format;
    e->warnings = (uint32_t)warnings;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        const cJSON *file = cJSON_GetObjectItemCaseSensitive(item, "path");
        compiler_manifest_file_t *f = &files[e->num_files++];
        /* The paths are stat'ed and read: a hand-edited one must not lead out of the project. */
        if (!cJSON_IsString(file) || resources__check_file_path(file->valuestring, NULL, 0) ||
            !parse_stamp(item, &f->stamp))
            return false;
        f->path = file->valuestring;
    }
    return true;
}

static bool journal_path(const char *path, char *out, size_t out_size)
{
    const int n = snprintf(out, out_size, "%s.journal", path);
    return n > 0 && (size_t)n < out_size;
}

uint32_t compiler__manifest_read(compiler_manifest_t *m, const char *path)
{
    *m = (compiler_manifest_t){0};
    uint32_t records = 0;
    uint64_t size;
    uint8_t *text = resources__read_file(path, &size);
    if (text) {
        compiler__manifest_parse(m, (const char *)text, (size_t)size, path);
        ct_free(resources__allocator(), text, (size_t)size + 1);
    }
    char journal[RESOURCES_PATH_SIZE];
    if (journal_path(path, journal, sizeof journal) &&
        (text = resources__read_file(journal, &size))) {
        records = compiler__manifest_replay(m, (const char *)text, (size_t)size, journal);
        ct_free(resources__allocator(), text, (size_t)size + 1);
    }
    return records;
}

uint32_t compiler__manifest_replay(compiler_manifest_t *m, const char *text, size_t size,
                                   const char *path)
{
    compiler_manifest_file_t *files =
        ct_alloc(resources__allocator(), RESOURCES_MAX_FILES * sizeof *files);
    if (!files) {
        log__warning("%s: out of memory reading it; recompiling everything", path);
        compiler__manifest_free(m);
        return 0;
    }
    uint32_t applied = 0;
    for (size_t at = 0; at < size;) {
        const char *line = text + at;
        const char *end = memchr(line, '\n', size - at);
        if (!end) {
            log__info("%s: its last record was cut short (record %u); the sources it named "
                      "compile again",
                      path, applied + 1);
            break;
        }
        cJSON *record = cJSON_ParseWithLength(line, (size_t)(end - line));
        const cJSON *gone = cJSON_GetObjectItemCaseSensitive(record, "remove");
        compiler_manifest_entry_t e;
        bool ok;
        if (cJSON_IsString(gone)) {
            compiler_manifest_entry_t *was = compiler__manifest_find(m, gone->valuestring);
            if (was)
                compiler__manifest_remove(m, was);
            ok = true;
        } else if ((ok = record && parse_entry(record, &e, files))) {
            ok = compiler__manifest_put(m, &e) == 0;
        }
        cJSON_Delete(record);
        if (!ok) {
            log__warning("%s: record %u is damaged; it and the records after it are ignored "
                         "(their sources compile again)",
                         path, applied + 1);
            break;
        }
        applied++;
        at = (size_t)(end - text) + 1;
    }
    ct_free(resources__allocator(), files, RESOURCES_MAX_FILES * sizeof *files);
    return applied;
}

void compiler__manifest_parse(compiler_manifest_t *m, const char *text, size_t size,
                              const char *path)
{
    *m = (compiler_manifest_t){0};
    cJSON *root = cJSON_ParseWithLength(text, size);
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "manifest_version");
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    if (cJSON_IsNumber(version) && (version->valuedouble == 1 || version->valuedouble == 2)) {
        log__info("%s: from an older cuttle-compile that did not note the %s; compiling "
                  "everything once",
                  path, version->valuedouble == 1 ? "files sources name" : "formats sources use");
        cJSON_Delete(root);
        return;
    }
    const char *problem = NULL;
    if (!root)
        problem = "not valid JSON";
    else if (!cJSON_IsNumber(version) || version->valuedouble != MANIFEST_VERSION)
        problem = "unknown manifest_version";
    else if (!cJSON_IsArray(sources))
        problem = "'sources' is not an array";
    int index = 0;
    compiler_manifest_file_t *files =
        ct_alloc(resources__allocator(), RESOURCES_MAX_FILES * sizeof *files);
    if (!files && !problem)
        problem = "out of memory";
    const cJSON *list = problem ? NULL : sources;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        compiler_manifest_entry_t e;
        if (!parse_entry(item, &e, files)) {
            problem = "a source entry is malformed";
            break;
        }
        if (compiler__manifest_put(m, &e)) {
            problem = "out of memory";
            break;
        }
        index++;
    }
    if (files)
        ct_free(resources__allocator(), files, RESOURCES_MAX_FILES * sizeof *files);
    if (problem) {
        log__warning("%s: %s (entry %d); recompiling everything", path, problem, index);
        compiler__manifest_free(m);
    }
    cJSON_Delete(root);
}

static bool add_stamp(cJSON *obj, const char *path, const compiler_stamp_t *stamp)
{
    if (stamp->absent)
        return cJSON_AddStringToObject(obj, "path", path) && cJSON_AddTrueToObject(obj, "absent");
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)stamp->hash);
    return cJSON_AddStringToObject(obj, "path", path) &&
           cJSON_AddNumberToObject(obj, "mtime_sec", (double)stamp->mtime_sec) &&
           cJSON_AddNumberToObject(obj, "mtime_nsec", (double)stamp->mtime_nsec) &&
           cJSON_AddNumberToObject(obj, "size", (double)stamp->size) &&
           cJSON_AddStringToObject(obj, "hash", hash);
}

static cJSON *entry_json(const compiler_manifest_entry_t *e)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON *files = NULL;
    bool ok = obj && add_stamp(obj, e->path, &e->stamp) &&
              cJSON_AddNumberToObject(obj, "format", (double)e->format_version) &&
              cJSON_AddNumberToObject(obj, "warnings", (double)e->warnings) &&
              cJSON_AddStringToObject(obj, "provider", e->provider ? e->provider : "") &&
              cJSON_AddStringToObject(obj, "formats", e->formats ? e->formats : "") &&
              (files = cJSON_AddArrayToObject(obj, "files"));
    for (uint32_t i = 0; ok && i < e->num_files; i++) {
        cJSON *f = cJSON_CreateObject();
        ok = f && cJSON_AddItemToArray(files, f) &&
             add_stamp(f, e->files[i].path, &e->files[i].stamp);
    }
    if (!ok) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

int compiler__manifest_write(const compiler_manifest_t *m, const char *path)
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
    int rc = compiler__write_file(path, text, strlen(text));
    cJSON_free(text);
    /* The new file holds what the journal said: only now may the journal go. */
    char journal[RESOURCES_PATH_SIZE];
    if (!rc && journal_path(path, journal, sizeof journal) && remove(journal) != 0 &&
        errno != ENOENT)
        rc = CT_ERR_IO;
    return rc;
}

char *compiler__manifest_record(const compiler_manifest_entry_t *e, const char *removed)
{
    cJSON *obj = e ? entry_json(e) : cJSON_CreateObject();
    if (obj && !e && !cJSON_AddStringToObject(obj, "remove", removed)) {
        cJSON_Delete(obj);
        obj = NULL;
    }
    char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    return text;
}

int compiler__manifest_append(const char *path, const char *records, size_t size)
{
    char journal[RESOURCES_PATH_SIZE];
    if (!journal_path(path, journal, sizeof journal))
        return CT_ERR_INVALID;
    const int fd = open(journal, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return CT_ERR_IO;
    /* One write for the whole batch: a crash cuts at most its tail, which the reader drops. */
    size_t done = 0;
    while (done < size) {
        const ssize_t n = write(fd, records + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    const bool closed = close(fd) == 0;
    return done == size && closed ? 0 : CT_ERR_IO;
}

static uint32_t home_slot(const compiler_manifest_t *m, const char *path)
{
    return (uint32_t)ct_murmur64a(path, strlen(path), 0) & (m->num_slots - 1);
}

/* The slot holding `path`, or the empty slot where it would go. num_slots must be nonzero. */
static uint32_t *slot_of(const compiler_manifest_t *m, const char *path)
{
    const uint32_t mask = m->num_slots - 1;
    for (uint32_t s = home_slot(m, path);; s = (s + 1) & mask)
        if (!m->slots[s] || strcmp(m->entries[m->slots[s] - 1].path, path) == 0)
            return &m->slots[s];
}

/* Makes room in the index for one more entry (at most half full). */
static bool reserve_slots(compiler_manifest_t *m)
{
    if ((uint64_t)(m->count + 1) * 2 <= m->num_slots)
        return true;
    const uint32_t num = m->num_slots ? m->num_slots * 2 : 128;
    uint32_t *slots = ct_alloc(resources__allocator(), (size_t)num * sizeof *slots);
    if (!slots)
        return false;
    memset(slots, 0, (size_t)num * sizeof *slots);
    if (m->slots)
        ct_free(resources__allocator(), m->slots, (size_t)m->num_slots * sizeof *m->slots);
    m->slots = slots;
    m->num_slots = num;
    for (uint32_t i = 0; i < m->count; i++)
        *slot_of(m, m->entries[i].path) = i + 1;
    return true;
}

compiler_manifest_entry_t *compiler__manifest_find(compiler_manifest_t *m, const char *path)
{
    if (!m->num_slots)
        return NULL;
    const uint32_t slot = *slot_of(m, path);
    return slot ? &m->entries[slot - 1] : NULL;
}

/* Empties slot `hole` and shifts back the entries after it that probed past it, so every
 * remaining entry stays reachable from its home slot without tombstones. */
static void clear_slot(compiler_manifest_t *m, uint32_t hole)
{
    const uint32_t mask = m->num_slots - 1;
    for (uint32_t s = (hole + 1) & mask; m->slots[s]; s = (s + 1) & mask) {
        const uint32_t home = home_slot(m, m->entries[m->slots[s] - 1].path);
        const bool stays = hole <= s ? hole < home && home <= s : hole < home || home <= s;
        if (!stays) {
            m->slots[hole] = m->slots[s];
            hole = s;
        }
    }
    m->slots[hole] = 0;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = ct_alloc(resources__allocator(), n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static void free_string(char *s) { ct_free(resources__allocator(), s, strlen(s) + 1); }

static void free_files(compiler_manifest_file_t *files, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free_string(files[i].path);
    if (files)
        ct_free(resources__allocator(), files, n * sizeof *files);
}

/* A copy of n files (NULL for none), or false when out of memory. */
static bool copy_files(const compiler_manifest_file_t *from, uint32_t n,
                       compiler_manifest_file_t **out)
{
    *out = NULL;
    if (!n)
        return true;
    compiler_manifest_file_t *files = ct_alloc(resources__allocator(), n * sizeof *files);
    if (!files)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        files[i] = from[i];
        if (!(files[i].path = copy_string(from[i].path))) {
            free_files(files, i);
            return false;
        }
    }
    *out = files;
    return true;
}

static void free_strings(compiler_manifest_entry_t *e)
{
    if (e->provider)
        free_string(e->provider);
    if (e->formats)
        free_string(e->formats);
    if (e->uses)
        ct_free(resources__allocator(), e->uses, e->num_uses * sizeof *e->uses);
    e->uses = NULL;
    e->num_uses = 0;
}

/* A copy of the entry's uses (NULL for none); false when out of memory. */
static bool copy_uses(const compiler_manifest_entry_t *e, uint64_t **out)
{
    *out = NULL;
    if (!e->num_uses)
        return true;
    *out = ct_alloc(resources__allocator(), e->num_uses * sizeof **out);
    if (*out)
        memcpy(*out, e->uses, e->num_uses * sizeof **out);
    return *out != NULL;
}

int compiler__manifest_put(compiler_manifest_t *m, const compiler_manifest_entry_t *e)
{
    compiler_manifest_file_t *files;
    if (!copy_files(e->files, e->num_files, &files))
        return CT_ERR_NOMEM;
    char *provider = copy_string(e->provider ? e->provider : "");
    char *formats = copy_string(e->formats ? e->formats : "");
    uint64_t *uses = NULL;
    if (!provider || !formats || !copy_uses(e, &uses)) {
        if (provider)
            free_string(provider);
        if (formats)
            free_string(formats);
        free_files(files, e->num_files);
        return CT_ERR_NOMEM;
    }
    compiler_manifest_entry_t *slot = compiler__manifest_find(m, e->path);
    if (slot) {
        char *path = slot->path;
        free_files(slot->files, slot->num_files);
        free_strings(slot);
        *slot = *e;
        slot->path = path;
        slot->files = files;
        slot->provider = provider;
        slot->formats = formats;
        slot->uses = uses;
        return 0;
    }
    if (!reserve_slots(m)) {
        free_files(files, e->num_files);
        free_string(provider);
        free_string(formats);
        if (uses)
            ct_free(resources__allocator(), uses, e->num_uses * sizeof *uses);
        return CT_ERR_NOMEM;
    }
    if (!ct_array_reserve_of(resources__allocator(), &m->entries, &m->capacity, m->count + 1, 64)) {
        free_files(files, e->num_files);
        free_string(provider);
        free_string(formats);
        if (uses)
            ct_free(resources__allocator(), uses, e->num_uses * sizeof *uses);
        return CT_ERR_NOMEM;
    }
    char *path = copy_string(e->path);
    if (!path) {
        free_files(files, e->num_files);
        free_string(provider);
        free_string(formats);
        if (uses)
            ct_free(resources__allocator(), uses, e->num_uses * sizeof *uses);
        return CT_ERR_NOMEM;
    }
    m->entries[m->count] = *e;
    m->entries[m->count].path = path;
    m->entries[m->count].files = files;
    m->entries[m->count].provider = provider;
    m->entries[m->count].formats = formats;
    m->entries[m->count].uses = uses;
    *slot_of(m, path) = ++m->count;
    return 0;
}

void compiler__manifest_remove(compiler_manifest_t *m, compiler_manifest_entry_t *e)
{
    const uint32_t index = (uint32_t)(e - m->entries), last = m->count - 1;
    clear_slot(m, (uint32_t)(slot_of(m, e->path) - m->slots));
    if (index != last)
        *slot_of(m, m->entries[last].path) = index + 1;
    free_string(e->path);
    free_files(e->files, e->num_files);
    free_strings(e);
    *e = m->entries[--m->count];
}

void compiler__manifest_free(compiler_manifest_t *m)
{
    for (uint32_t i = 0; i < m->count; i++) {
        free_string(m->entries[i].path);
        free_files(m->entries[i].files, m->entries[i].num_files);
        free_strings(&m->entries[i]);
    }
    if (m->entries)
        ct_free(resources__allocator(), m->entries, m->capacity * sizeof *m->entries);
    if (m->slots)
        ct_free(resources__allocator(), m->slots, (size_t)m->num_slots * sizeof *m->slots);
    *m = (compiler_manifest_t){0};
}
