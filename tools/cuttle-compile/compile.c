/*
 * Compiling a project: walk the source tree, compile each file whose extension is a registered
 * type, and keep compiled/ in step with the sources.
 *
 * A source is up to date when the manifest holds its mtime, size, content hash and the type's
 * format_version, all unchanged, its blob exists, and every other file its compile read (the BVH
 * a clip names, the .bin beside a .gltf: ct_resource_api_v4.depends_on) is unchanged in the same
 * way. A touched file is recompiled even if its bytes are the same: that is what people who
 * touch a file want. The hash catches the opposite case, an edit that keeps mtime and size (a
 * coarse clock, a restored checkout), at the price of reading every source and file once per
 * run, which is cheap next to compiling. A file that is gone makes its resource compile again,
 * and that compile says what is missing. Under --strict a source whose last compile gave warnings
 * is compiled again too (and fails): strict must not wave through what it would refuse. A source
 * that fails loses its blob and manifest entry, so the runtime never loads data older than its
 * source and the next run tries again. A deleted source loses its blob.
 *
 * A session (cuttle-compile --watch, watch.c) keeps the manifest after its first run and is then
 * told which paths changed. It looks at those alone, with what the manifest in memory says about
 * the rest: each entry keeps the keys of what its references name ("uses", from its reference
 * file or its compile), so a source that appeared or went finds the sources that name it, and a
 * changed file the sources that read it, without a walk. It also tries again the sources that
 * failed, since nothing records what they lacked. Each such run appends its manifest changes to
 * the manifest's journal (manifest.c) instead of writing 100,000 entries for one edit.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/log.h"
#include "ct_array.h"
#include "ct_hash.h"
#include "compiler.h"
#include "plugins/registry.h"

/* Deeper than any real project; stops a symlink loop. */
#define MAX_DEPTH 64

/* The resources found to exist during a run, by the 64-bit hash of "name.type" (as the engine
 * names resources by such a hash; 0 marks an empty slot). Every source names about ten others
 * and each is named by about ten: checking each name once per run rather than once per
 * reference saves nine in ten of the stat calls of an up-to-date walk. Only "exists" is kept: a
 * run deletes no source, and a missing name makes its source compile again anyway. */
typedef struct existing_t {
    uint64_t *keys;
    uint32_t count;
    uint32_t num_slots; /* a power of two, at least twice count */
} existing_t;

typedef struct compile_run_t compile_run_t;
struct compile_run_t {
    const char *project_dir;
    char manifest_path[RESOURCES_PATH_SIZE];
    int lock_fd; /* compiled/.lock, held during each run; -1 without one */
    /* manifest.json as this session last wrote it: another run that rewrote it since is seen. */
    dev_t manifest_dev;
    ino_t manifest_ino;
    bool force;      /* --force: everything is compiled */
    bool watching;   /* a session that goes on after its first run (--watch) */
    bool journaling; /* changes to the manifest are appended to its journal as they happen */
    existing_t existing;
    /* Every file key (use_key with bit 0) some entry's uses hold or held: a changed file that no
     * compile read is then known without looking at every entry. Never shrinks (a key of a file
     * no longer read only costs a look). */
    existing_t file_uses;
    /* The sources the walk found, in its order, compiled after the sweep of deleted ones. */
    struct listed_source {
        char *rel;
        const ct_resource_type_t *type;
    } * sources;
    uint32_t num_sources, cap_sources;
    compiler_manifest_t manifest;
    uint32_t compiled;
    uint32_t up_to_date;
    uint32_t failed;
    /* Records of this batch for the journal, written in one append at its end. */
    char *journal;
    size_t journal_len, journal_cap;
    uint32_t journal_records; /* records in the journal file since manifest.json was written */
    /* Sources whose last compile failed: a watching session tries them again after every
     * change, since what they lacked (a resource, a file) is not recorded and may have come. */
    char **failed_list;
    uint32_t num_failed, cap_failed;
    /* The folders the session knows (project-relative, "" for the root), for the watcher. */
    char **folders;
    uint32_t num_folders, cap_folders, folders_generation;
};

static char *copy_text(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *copy = ct_alloc(resources__allocator(), n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static void free_text(char *s) { ct_free(resources__allocator(), s, strlen(s) + 1); }

/* A list of strings: adds a copy of s (out of memory: not added, false). */
static bool list_add(char ***list, uint32_t *count, uint32_t *cap, const char *s)
{
    if (!ct_array_reserve_of(resources__allocator(), list, cap, *count + 1, 16))
        return false;
    char *copy = copy_text(s);
    if (copy)
        (*list)[(*count)++] = copy;
    return copy != NULL;
}

static int list_find(char *const *list, uint32_t count, const char *s)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(list[i], s) == 0)
            return (int)i;
    return -1;
}

/* Whether `path` is `folder` or lies under it. */
static bool under(const char *path, const char *folder)
{
    const size_t n = strlen(folder);
    return !n || (strncmp(path, folder, n) == 0 && (path[n] == '\0' || path[n] == '/'));
}

/* Drops the strings that are `folder` or lie under it. */
static void list_drop_under(char **list, uint32_t *count, const char *folder)
{
    for (uint32_t i = 0; i < *count;) {
        if (under(list[i], folder)) {
            free_text(list[i]);
            list[i] = list[--*count];
        } else {
            i++;
        }
    }
}

static void list_free(char **list, uint32_t count, uint32_t cap)
{
    for (uint32_t i = 0; i < count; i++)
        free_text(list[i]);
    if (list)
        ct_free(resources__allocator(), list, cap * sizeof *list);
}

/* Adds a record for the journal (the entry of `rel` as it is now, or its removal). */
static void journal_note(compile_run_t *run, const char *rel)
{
    if (!run->journaling)
        return;
    const compiler_manifest_entry_t *e = compiler__manifest_find(&run->manifest, rel);
    char *record = compiler__manifest_record(e, rel);
    const size_t n = record ? strlen(record) : 0;
    char *grown = NULL;
    if (record && run->journal_len + n + 1 > run->journal_cap) {
        const size_t cap = (run->journal_len + n + 1) * 2;
        grown = ct_realloc(resources__allocator(), run->journal, run->journal_cap, cap);
        if (grown) {
            run->journal = grown;
            run->journal_cap = cap;
        }
    }
    if (!record || run->journal_len + n + 1 > run->journal_cap) {
        /* The journal cannot say it: the whole manifest is written at the batch's end. */
        log__warning("%s: out of memory noting it in the manifest's journal", rel);
        run->journal_records = UINT32_MAX;
    } else {
        memcpy(run->journal + run->journal_len, record, n);
        run->journal[run->journal_len + n] = '\n';
        run->journal_len += n + 1;
    }
    if (record)
        cJSON_free(record);
}

/* The 64-bit key of a project-relative path in an entry's `uses`: bit 0 set for a file the
 * compile read, clear for a resource it names. */
static uint64_t use_key(const char *path, size_t len, bool file)
{
    return (ct_murmur64a(path, len, 0) & ~(uint64_t)1) | (file ? 1 : 0);
}

/* The uses of a reference file's text ("type\tname\t..." lines): an array the caller frees
 * (count * 8 bytes), NULL for none or out of memory. */
static uint64_t *uses_of_refs(const char *text, size_t len, uint32_t *count)
{
    *count = 0;
    uint32_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    uint64_t *uses = lines ? ct_alloc(resources__allocator(), lines * sizeof *uses) : NULL;
    if (!uses)
        return NULL;
    for (const char *line = text, *stop = text + len; line < stop && *count < lines;) {
        const char *end = memchr(line, '\n', (size_t)(stop - line));
        if (!end)
            break;
        const char *tab = memchr(line, '\t', (size_t)(end - line));
        const char *name_end = tab ? memchr(tab + 1, '\t', (size_t)(end - tab - 1)) : NULL;
        if (name_end) {
            const size_t type_len = (size_t)(tab - line), name_len = (size_t)(name_end - tab - 1);
            const bool file = type_len == strlen(RESOURCES_FILE_REF) &&
                              memcmp(line, RESOURCES_FILE_REF, type_len) == 0;
            char path[RESOURCES_PATH_SIZE];
            const int n = file ? snprintf(path, sizeof path, "%.*s", (int)name_len, tab + 1)
                               : snprintf(path, sizeof path, "%.*s.%.*s", (int)name_len, tab + 1,
                                          (int)type_len, line);
            if (n > 0 && (size_t)n < sizeof path)
                uses[(*count)++] = use_key(path, (size_t)n, file);
        }
        line = end + 1;
    }
    return uses;
}

static void free_uses(uint64_t *uses, uint32_t count)
{
    if (uses)
        ct_free(resources__allocator(), uses, count * sizeof *uses);
}

/* Removes a blob and then its folders up to compiled/<type>, as far as they became empty. */
static void remove_blob(const char *project_dir, const char *type, const char *name)
{
    char path[RESOURCES_PATH_SIZE];
    if (!resources__blob_path(project_dir, type, name, path, sizeof path))
        return;
    if (remove(path) != 0)
        return;
    size_t stop = strlen(project_dir) + strlen("/" RESOURCES_COMPILED_DIR "/") + strlen(type);
    char *slash;
    while ((slash = strrchr(path, '/')) && (size_t)(slash - path) > stop) {
        *slash = '\0';
        if (rmdir(path) != 0)
            break;
    }
}

/* "<project>/compiled/references/<rel>.refs": the references the source's last compile reported
 * (ct_resource_api_v6.reference), one per line, for cuttle-deps. One file per source keeps the
 * index incremental: a compile rewrites only its own. */
static bool refs_path(const char *project_dir, const char *rel, char *out, size_t out_size)
{
    const int n = snprintf(out, out_size, "%s/%s/references/%s.refs", project_dir,
                           RESOURCES_COMPILED_DIR, rel);
    return n > 0 && (size_t)n < out_size;
}

static void remove_refs(const char *project_dir, const char *rel)
{
    char path[RESOURCES_PATH_SIZE];
    if (refs_path(project_dir, rel, path, sizeof path))
        remove(path);
}

/* Writes the source's references, or removes its file when it has none. False: not written. */
static bool write_refs(const char *project_dir, const char *rel,
                       const resources_compile_record_t *record)
{
    char path[RESOURCES_PATH_SIZE];
    if (!refs_path(project_dir, rel, path, sizeof path))
        return false;
    if (!record->num_refs) {
        remove(path);
        return true;
    }
    return compiler__write_file(path, record->refs, record->refs_len) == 0;
}

/* The blob goes first: killed before its reference file goes, the entry on disk still finds no
 * blob and compiles the source again (the other way round, a source whose references were just
 * found gone kept its blob, had no reference file left to check and looked up to date). */
static void forget_source(compile_run_t *run, const char *rel, const char *type, const char *name)
{
    remove_blob(run->project_dir, type, name);
    remove_refs(run->project_dir, rel);
    compiler_manifest_entry_t *e = compiler__manifest_find(&run->manifest, rel);
    if (e) {
        compiler__manifest_remove(&run->manifest, e);
        journal_note(run, rel);
    }
}

static bool blob_exists(const char *project_dir, const char *type, const char *name)
{
    char path[RESOURCES_PATH_SIZE];
    struct stat st;
    return resources__blob_path(project_dir, type, name, path, sizeof path) &&
           stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads the project file `rel` and its stamp. Returns the bytes (free with size *len + 1), or
 * NULL with errno set. */
static uint8_t *read_stamped(const char *project_dir, const char *rel, compiler_stamp_t *stamp,
                             uint64_t *len)
{
    char full[RESOURCES_PATH_SIZE];
    struct stat st;
    const int n = snprintf(full, sizeof full, "%s/%s", project_dir, rel);
    if (n < 0 || (size_t)n >= sizeof full) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    uint8_t *bytes = stat(full, &st) == 0 ? resources__read_file(full, len) : NULL;
    if (bytes)
        *stamp = (compiler_stamp_t){
            .mtime_sec = (int64_t)st.st_mtim.tv_sec,
            .mtime_nsec = (int64_t)st.st_mtim.tv_nsec,
            .size = *len,
            .hash = ct_murmur64a(bytes, (size_t)*len, 0),
        };
    return bytes;
}

static bool same_stamp(const compiler_stamp_t *a, const compiler_stamp_t *b)
{
    return a->absent == b->absent && a->mtime_sec == b->mtime_sec &&
           a->mtime_nsec == b->mtime_nsec && a->size == b->size && a->hash == b->hash;
}

/* The stamp of a file a compile noted: absent when there is no such file. False (errno set) when
 * it is there but cannot be read. */
static bool stamp_file(const char *project_dir, const char *rel, compiler_stamp_t *stamp)
{
    uint64_t len;
    uint8_t *bytes = read_stamped(project_dir, rel, stamp, &len);
    if (bytes) {
        ct_free(resources__allocator(), bytes, (size_t)len + 1);
        return true;
    }
    *stamp = (compiler_stamp_t){.absent = errno == ENOENT || errno == ENOTDIR};
    return stamp->absent;
}

/* Whether every file the entry's compile read besides its source is as it was then. */
static bool files_unchanged(const compile_run_t *run, const compiler_manifest_entry_t *e)
{
    for (uint32_t i = 0; i < e->num_files; i++) {
        const compiler_manifest_file_t *f = &e->files[i];
        compiler_stamp_t now;
        if (!stamp_file(run->project_dir, f->path, &now)) {
            log__info("%s: %s, a file it was built from, cannot be read (%s); compiling it again",
                      e->path, f->path, resources__read_error(errno));
            return false;
        }
        if (!same_stamp(&now, &f->stamp)) {
            if (now.absent)
                log__info("%s: %s, a file it was built from, is gone; compiling it again", e->path,
                          f->path);
            return false;
        }
    }
    return true;
}

static uint64_t *existing_slot(const existing_t *set, uint64_t key)
{
    const uint32_t mask = set->num_slots - 1;
    for (uint32_t i = (uint32_t)key & mask;; i = (i + 1) & mask)
        if (set->keys[i] == key || !set->keys[i])
            return &set->keys[i];
}

static uint64_t existing_key(const char *name_dot_type)
{
    const uint64_t key = ct_murmur64a(name_dot_type, strlen(name_dot_type), 0);
    return key ? key : 1;
}

static bool existing_has(const existing_t *set, uint64_t key)
{
    return set->num_slots && *existing_slot(set, key) == key;
}

/* Notes a resource that exists; out of memory it is only not remembered. */
static void existing_add(existing_t *set, uint64_t key)
{
    if ((uint64_t)(set->count + 1) * 2 > set->num_slots) {
        const uint32_t num = set->num_slots ? set->num_slots * 2 : 1024;
        uint64_t *keys = ct_alloc(resources__allocator(), (size_t)num * sizeof *keys);
        if (!keys)
            return;
        memset(keys, 0, (size_t)num * sizeof *keys);
        existing_t grown = {keys, set->count, num};
        for (uint32_t i = 0; i < set->num_slots; i++)
            if (set->keys[i])
                *existing_slot(&grown, set->keys[i]) = set->keys[i];
        if (set->keys)
            ct_free(resources__allocator(), set->keys, (size_t)set->num_slots * sizeof *keys);
        *set = grown;
    }
    uint64_t *slot = existing_slot(set, key);
    if (!*slot) {
        *slot = key;
        set->count++;
    }
}

/* Sets the entry's uses (taking the array) and notes its file keys. */
static void set_uses(compile_run_t *run, compiler_manifest_entry_t *e, uint64_t *uses,
                     uint32_t count)
{
    free_uses(e->uses, e->num_uses);
    e->uses = uses;
    e->num_uses = uses ? count : 0;
    for (uint32_t i = 0; i < e->num_uses; i++)
        if (uses[i] & 1)
            existing_add(&run->file_uses, uses[i]);
}

/* Whether every resource the source's last compile referenced still exists (its source or its
 * blob): a unit whose mesh was deleted or renamed must compile again and fail, not stay "up to
 * date" and fail at spawn. Read from its reference file; files it names are checked by
 * files_unchanged. */
static bool references_exist(compile_run_t *run, compiler_manifest_entry_t *e)
{
    const char *rel = e->path;
    char path[RESOURCES_PATH_SIZE];
    uint64_t len = 0;
    char *text = refs_path(run->project_dir, rel, path, sizeof path)
                     ? (char *)resources__read_file(path, &len)
                     : NULL;
    if (!text)
        return true; /* no references (or none recorded): nothing to check */
    if (run->watching) {
        /* Kept for the watcher: whom a change of existence or content concerns. */
        uint32_t count;
        uint64_t *uses = uses_of_refs(text, (size_t)len, &count);
        set_uses(run, e, uses, count);
    }
    text[len] = '\0'; /* the reader's spare byte: the lines below are read as strings */
    bool all = true;
    for (char *line = text, *end; all && line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *tab = strchr(line, '\t');
        char *name_end = tab ? strchr(tab + 1, '\t') : NULL;
        if (!tab || !name_end || strncmp(line, RESOURCES_FILE_REF "\t", 6) == 0)
            continue;
        *tab = *name_end = '\0';
        char source[RESOURCES_PATH_SIZE];
        struct stat st;
        const int n = snprintf(source, sizeof source, "%s/%s.%s", run->project_dir, tab + 1, line);
        if (n <= 0 || (size_t)n >= sizeof source) {
            all = false;
        } else {
            const uint64_t key = existing_key(source + strlen(run->project_dir) + 1);
            all = existing_has(&run->existing, key) || stat(source, &st) == 0 ||
                  blob_exists(run->project_dir, line, tab + 1);
            if (all)
                existing_add(&run->existing, key);
        }
        if (!all)
            log__info("%s: %s \"%s\", which it references, is gone; compiling it again", rel, line,
                      tab + 1);
    }
    ct_free(resources__allocator(), text, (size_t)len + 1);
    return all;
}

/* "ct.entities 1.0.0": the plugin that registered the type now ("kernel" for its own). */
static void provider_of(const ct_resource_type_t *type, char *out, size_t size)
{
    const ct_plugin_o *owner = resources__type_owner(type);
    const ct_semver_t v = registry__plugin_version(owner);
    snprintf(out, size, "%s %u.%u.%u", registry__plugin_name(owner), v.major, v.minor, v.patch);
}

/* Whether the type's provider and every format the last compile used are as they were then;
 * when not, says why (the log shows it beside "compiling it again"). */
static bool formats_unchanged(const compiler_manifest_entry_t *e, const ct_resource_type_t *type)
{
    if (e->format_version != type->format_version) {
        log__info("%s: the %s format changed (%u -> %u); compiling it again", e->path, type->type,
                  e->format_version, type->format_version);
        return false;
    }
    char provider[300];
    provider_of(type, provider, sizeof provider);
    if (strcmp(provider, e->provider ? e->provider : "") != 0) {
        log__info("%s: the %s type now comes from %s (compiled with %s); compiling it again",
                  e->path, type->type, provider, e->provider ? e->provider : "(unknown)");
        return false;
    }
    for (const char *p = e->formats ? e->formats : ""; *p;) {
        const char *end = strchr(p, ' ');
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        char word[RESOURCES_MAX_FORMAT_NAME + 16];
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        char *eq = strrchr(word, '=');
        if (eq) {
            *eq = '\0';
            const unsigned long was = strtoul(eq + 1, NULL, 10);
            const uint32_t now = resources__format(word);
            if (was != now) {
                log__info("%s: %s format changed (%lu -> %u); compiling it again", e->path, word,
                          was, now);
                return false;
            }
        }
        p += n;
        while (*p == ' ')
            p++;
    }
    return true;
}

static bool up_to_date(compile_run_t *run, compiler_manifest_entry_t *e,
                       const compiler_stamp_t *stamp, const ct_resource_type_t *type,
                       const char *name)
{
    return !run->force && e && same_stamp(&e->stamp, stamp) && formats_unchanged(e, type) &&
           !(e->warnings && resources__is_strict()) &&
           blob_exists(run->project_dir, type->type, name) && files_unchanged(run, e) &&
           references_exist(run, e);
}

/* Compiles `text` and writes its blob; returns 0 or a ct_error, having logged why. */
static int compile_to_file(compile_run_t *run, const ct_resource_type_t *type, const char *rel,
                           const char *name, const uint8_t *text, uint64_t len,
                           resources_compile_record_t *record)
{
    uint8_t *blob;
    uint64_t blob_size;
    int rc = resources__compile_text_recorded(type, rel, (const char *)text, (size_t)len, &blob,
                                              &blob_size, record);
    if (rc)
        return rc;
    char path[RESOURCES_PATH_SIZE];
    if (!resources__blob_path(run->project_dir, type->type, name, path, sizeof path)) {
        log__error("%s: the path of its blob is too long", rel);
        rc = CT_ERR_INVALID;
    } else if ((rc = compiler__write_file(path, blob, (size_t)blob_size))) {
        log__error("%s: cannot write its blob %s: %s", rel, path, strerror(errno));
    }
    ct_free(resources__allocator(), blob, (size_t)blob_size);
    return rc;
}

/* The stamps of the files a compile noted, taken as each is noted (before a compiler reads what
 * source_file handed it), with whether each could be read then. The tool is one thread. */
static struct {
    const compile_run_t *run;
    compiler_stamp_t stamps[RESOURCES_MAX_FILES];
    bool readable[RESOURCES_MAX_FILES];
    int error[RESOURCES_MAX_FILES];
} g_noted;

static void stamp_noted(void *user, uint32_t index, const char *file)
{
    (void)user;
    g_noted.readable[index] = stamp_file(g_noted.run->project_dir, file, &g_noted.stamps[index]);
    g_noted.error[index] = errno;
}

/* Notes a compiled source in the manifest with the files its compile read, stamped as they were
 * when noted: a file that changes or goes away while the source compiles then differs from its
 * stamp at the next run, which compiles the source again (stamped afterwards, such a change left
 * a stale blob marked up to date for good, and a deletion was noted as "absent" and never
 * failed). A file that could not be stamped leaves the source out, so the next run compiles it
 * again. */
static void note_compiled(compile_run_t *run, const char *rel, const compiler_stamp_t *stamp,
                          const ct_resource_type_t *type, const resources_compile_record_t *record)
{
    static compiler_manifest_file_t files[RESOURCES_MAX_FILES]; /* the tool is one thread */
    char provider[300];
    provider_of(type, provider, sizeof provider);
    static char formats[RESOURCES_MAX_FORMATS_USED * (RESOURCES_MAX_FORMAT_NAME + 12)];
    size_t at = 0;
    formats[0] = '\0';
    for (uint32_t i = 0; i < record->num_formats; i++)
        at += (size_t)snprintf(formats + at, sizeof formats - at, "%s%s=%u", i ? " " : "",
                               record->formats[i].what, record->formats[i].version);
    uint32_t num_uses = 0;
    uint64_t *uses = run->watching ? uses_of_refs(record->refs, record->refs_len, &num_uses) : NULL;
    compiler_manifest_entry_t fresh = {
        .uses = uses,
        .num_uses = num_uses,
        .provider = provider,
        .formats = formats,
        .path = (char *)rel,
        .stamp = *stamp,
        .format_version = type->format_version,
        .warnings = record->warnings,
        .files = files,
        .num_files = record->num_files,
        .seen = true,
    };
    for (uint32_t i = 0; i < record->num_files; i++) {
        if (!g_noted.readable[i]) {
            log__warning("%s: %s, a file it was built from, cannot be read (%s); it will be "
                         "compiled again",
                         rel, record->files[i], resources__read_error(g_noted.error[i]));
            compiler_manifest_entry_t *stale = compiler__manifest_find(&run->manifest, rel);
            if (stale) {
                compiler__manifest_remove(&run->manifest, stale);
                journal_note(run, rel);
            }
            free_uses(fresh.uses, fresh.num_uses);
            return;
        }
        files[i].stamp = g_noted.stamps[i];
        files[i].path = record->files[i];
    }
    if (compiler__manifest_put(&run->manifest, &fresh))
        log__warning("%s: out of memory noting it in the manifest; it will be recompiled", rel);
    else
        journal_note(run, rel);
    for (uint32_t i = 0; i < fresh.num_uses; i++)
        if (fresh.uses[i] & 1)
            existing_add(&run->file_uses, fresh.uses[i]);
    free_uses(fresh.uses, fresh.num_uses);
}

/* Returns false when the source failed. */
static bool compile_source(compile_run_t *run, const char *rel, const ct_resource_type_t *type)
{
    const uint32_t failed_before = run->failed;
    char name[RESOURCES_PATH_SIZE];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(rel) - strlen(type->type) - 1), rel);
    char err[256];
    if (resources__check_name(name, err, sizeof err)) {
        log__error("%s: the file name is not a canonical resource name: %s", rel, err);
        run->failed++;
        return false;
    }
    compiler_stamp_t stamp;
    uint64_t len = 0;
    uint8_t *text = read_stamped(run->project_dir, rel, &stamp, &len);
    if (!text) {
        log__error("%s: cannot read: %s", rel, resources__read_error(errno));
        forget_source(run, rel, type->type, name);
        run->failed++;
        return false;
    }
    compiler_manifest_entry_t *e = compiler__manifest_find(&run->manifest, rel);
    resources_compile_record_t record = {.noted = stamp_noted};
    g_noted.run = run;
    if (up_to_date(run, e, &stamp, type, name)) {
        e->seen = true;
        run->up_to_date++;
    } else if (compile_to_file(run, type, rel, name, text, len, &record)) {
        forget_source(run, rel, type->type, name);
        run->failed++;
    } else if (!write_refs(run->project_dir, rel, &record)) {
        log__error("%s: cannot write its references under %s/references: %s", rel,
                   RESOURCES_COMPILED_DIR, strerror(errno));
        forget_source(run, rel, type->type, name);
        run->failed++;
    } else {
        note_compiled(run, rel, &stamp, type, &record);
        run->compiled++;
    }
    resources__record_free(&record);
    ct_free(resources__allocator(), text, (size_t)len + 1);
    return run->failed == failed_before;
}

static const ct_resource_type_t *type_of_file(const char *file_name)
{
    const char *dot = strrchr(file_name, '.');
    return dot && dot != file_name ? resources__find_type(dot + 1) : NULL;
}

/* Notes a source the walk found and marks its manifest entry seen, so that the sweep of deleted
 * sources need not stat it. */
static void list_source(compile_run_t *run, const char *rel, const ct_resource_type_t *type)
{
    if (run->num_sources == run->cap_sources) {
        const uint32_t cap = run->cap_sources ? run->cap_sources * 2 : 256;
        void *grown =
            ct_realloc(resources__allocator(), run->sources,
                       run->cap_sources * sizeof *run->sources, cap * sizeof *run->sources);
        if (!grown) {
            log__error("%s: out of memory listing it; not compiled", rel);
            run->failed++;
            return;
        }
        run->sources = grown;
        run->cap_sources = cap;
    }
    const size_t n = strlen(rel) + 1;
    char *copy = ct_alloc(resources__allocator(), n);
    if (!copy) {
        log__error("%s: out of memory listing it; not compiled", rel);
        run->failed++;
        return;
    }
    memcpy(copy, rel, n);
    run->sources[run->num_sources++] = (struct listed_source){copy, type};
    compiler_manifest_entry_t *e = compiler__manifest_find(&run->manifest, rel);
    if (e)
        e->seen = true;
}

static void free_sources(compile_run_t *run)
{
    for (uint32_t i = 0; i < run->num_sources; i++)
        ct_free(resources__allocator(), run->sources[i].rel, strlen(run->sources[i].rel) + 1);
    if (run->sources)
        ct_free(resources__allocator(), run->sources, run->cap_sources * sizeof *run->sources);
    run->sources = NULL;
    run->num_sources = run->cap_sources = 0;
}

/* Walks the folder `rel` (relative to the project, "" for its root) in sorted order, so the
 * messages of a run come out in the same order every time, listing the sources. A regular file
 * or folder the listing already names as such is not stat'ed (a symbolic link still is). */
static void walk(compile_run_t *run, const char *rel, int depth)
{
    char dir[RESOURCES_PATH_SIZE];
    snprintf(dir, sizeof dir, "%s%s%s", run->project_dir, rel[0] ? "/" : "", rel);
    if (depth > MAX_DEPTH) {
        log__warning("%s: nested deeper than %d folders; not compiled", dir, MAX_DEPTH);
        return;
    }
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    if (n < 0) {
        log__error("%s: cannot list the folder: %s", dir, strerror(errno));
        run->failed++;
        return;
    }
    if (run->watching && list_find(run->folders, run->num_folders, rel) < 0) {
        if (list_add(&run->folders, &run->num_folders, &run->cap_folders, rel))
            run->folders_generation++;
        else
            log__warning("%s: out of memory noting the folder; changes in it are not followed",
                         dir);
    }
    for (int i = 0; i < n; i++) {
        const char *entry = list[i]->d_name;
        char child[RESOURCES_PATH_SIZE];
        char full[RESOURCES_PATH_SIZE];
        struct stat st;
        int len = snprintf(child, sizeof child, "%s%s%s", rel, rel[0] ? "/" : "", entry);
        int full_len = snprintf(full, sizeof full, "%s/%s", dir, entry);
        bool skip = entry[0] == '.' || (!rel[0] && strcmp(entry, RESOURCES_COMPILED_DIR) == 0);
        if (!skip && (len < 0 || full_len < 0 || (size_t)full_len >= sizeof full ||
                      (size_t)len > RESOURCES_MAX_NAME + RESOURCES_MAX_TYPE + 1)) {
            log__error("%s/%s: path too long; not compiled", dir, entry);
            run->failed++;
            skip = true;
        }
        const unsigned char kind = list[i]->d_type;
        if (!skip && (kind == DT_DIR || kind == DT_REG)) {
            st.st_mode = kind == DT_DIR ? S_IFDIR : S_IFREG;
        } else if (!skip && stat(full, &st) != 0) {
            skip = true;
        }
        if (!skip) {
            if (S_ISDIR(st.st_mode)) {
                walk(run, child, depth + 1);
            } else if (S_ISREG(st.st_mode)) {
                const ct_resource_type_t *type = type_of_file(entry);
                if (type)
                    list_source(run, child, type);
            }
        }
        free(list[i]);
    }
    free(list);
}

/* Drops the entries of sources that are gone, with their blobs. Entries of sources that still
 * exist but whose type is not registered in this run stay: a run without some module must not
 * throw away that module's work. */
static void sweep_deleted(compile_run_t *run)
{
    for (uint32_t i = 0; i < run->manifest.count;) {
        compiler_manifest_entry_t *e = &run->manifest.entries[i];
        char full[RESOURCES_PATH_SIZE];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", run->project_dir, e->path);
        if (e->seen || stat(full, &st) == 0) {
            i++;
            continue;
        }
        remove_refs(run->project_dir, e->path);
        char name[RESOURCES_PATH_SIZE];
        snprintf(name, sizeof name, "%s", e->path);
        char *dot = strrchr(name, '.');
        if (dot) {
            *dot = '\0';
            if (!resources__check_name(name, NULL, 0) &&
                !resources__check_type_name(dot + 1, NULL, 0))
                remove_blob(run->project_dir, dot + 1, name);
        }
        compiler__manifest_remove(&run->manifest, e); /* the last entry moves into slot i */
    }
}

/* Why a session cannot compile project_dir (logged), or 0. */
static int project_error(const char *project_dir)
{
    struct stat st;
    const int n =
        project_dir ? snprintf(NULL, 0, "%s/%s/manifest.json", project_dir, RESOURCES_COMPILED_DIR)
                    : -1;
    if (n < 0 || (size_t)n >= RESOURCES_PATH_SIZE - RESOURCES_MAX_NAME - RESOURCES_MAX_TYPE) {
        log__error("resources: compile_project needs a project folder with a short path");
        return CT_ERR_INVALID;
    }
    if (stat(project_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        log__error("resources: %s: no such project folder", project_dir);
        return CT_ERR_NOT_FOUND;
    }
    return 0;
}

int compiler__compile_project(const char *project_dir, uint32_t *compiled, uint32_t *up_to_date,
                              uint32_t *failed)
{
    return compiler__compile_project_ex(project_dir, false, compiled, up_to_date, failed);
}

int compiler__compile_project_ex(const char *project_dir, bool force, uint32_t *compiled,
                                 uint32_t *up_to_date, uint32_t *failed)
{
    compiler_counts_t counts = {0};
    int rc = project_error(project_dir);
    compile_run_t *run = rc ? NULL : compiler__session_open(project_dir, force, false);
    if (run)
        rc = compiler__session_compile_all(run, &counts);
    else if (!rc)
        rc = CT_ERR_NOMEM;
    if (run && project_dir)
        log__info("resources: %s: compiled %u, up to date %u, failed %u", project_dir,
                  counts.compiled, counts.up_to_date, counts.failed);
    compiler__session_close(run);
    if (compiled)
        *compiled = counts.compiled;
    if (up_to_date)
        *up_to_date = counts.up_to_date;
    if (failed)
        *failed = counts.failed;
    return rc;
}

/* Writes the manifest whole and notes which file that made. */
static int write_manifest(compile_run_t *run)
{
    const int rc = compiler__manifest_write(&run->manifest, run->manifest_path);
    struct stat st;
    if (!rc && stat(run->manifest_path, &st) == 0) {
        run->manifest_dev = st.st_dev;
        run->manifest_ino = st.st_ino;
        run->journal_records = 0;
    }
    return rc;
}

static void lock_run(compile_run_t *run, bool on)
{
    if (run->lock_fd >= 0)
        while (flock(run->lock_fd, on ? LOCK_EX : LOCK_UN) != 0 && errno == EINTR)
            ;
}

compile_run_t *compiler__session_open(const char *project_dir, bool force, bool watching)
{
    if (project_error(project_dir))
        return NULL;
    compile_run_t *run = ct_alloc(resources__allocator(), sizeof *run);
    if (!run) {
        log__error("resources: %s: out of memory", project_dir);
        return NULL;
    }
    *run = (compile_run_t){
        .project_dir = project_dir, .force = force, .watching = watching, .lock_fd = -1};
    snprintf(run->manifest_path, sizeof run->manifest_path, "%s/%s/manifest.json", project_dir,
             RESOURCES_COMPILED_DIR);
    /* One run at a time per project: a plain run (the editor starts one after a save) beside a
     * watcher waits for the watcher's current run, and the watcher's next run for it, so the
     * two never write one blob or the manifest at once. Without a lock file (a read-only
     * project) runs go unguarded. */
    char lock[RESOURCES_PATH_SIZE];
    snprintf(lock, sizeof lock, "%s/%s", project_dir, RESOURCES_COMPILED_DIR);
    mkdir(lock, 0777);
    snprintf(lock, sizeof lock, "%s/%s/.lock", project_dir, RESOURCES_COMPILED_DIR);
    run->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    lock_run(run, true);
    run->journal_records = compiler__manifest_read(&run->manifest, run->manifest_path);
    return run;
}

static void forget_existing(compile_run_t *run)
{
    if (run->existing.keys)
        ct_free(resources__allocator(), run->existing.keys,
                (size_t)run->existing.num_slots * sizeof *run->existing.keys);
    run->existing = (existing_t){0};
}

/* Notes the source's outcome in the list of failed sources. */
static void note_outcome(compile_run_t *run, const char *rel, bool ok)
{
    const int at = run->watching ? list_find(run->failed_list, run->num_failed, rel) : 0;
    if (ok && at >= 0 && run->watching) {
        free_text(run->failed_list[at]);
        run->failed_list[at] = run->failed_list[--run->num_failed];
    } else if (!ok && at < 0) {
        list_add(&run->failed_list, &run->num_failed, &run->cap_failed, rel);
    }
}

int compiler__session_compile_all(compile_run_t *run, compiler_counts_t *counts)
{
    int rc = 0;
    run->compiled = run->up_to_date = run->failed = 0;
    run->journaling = false; /* the whole manifest is written at the end */
    forget_existing(run);
    for (uint32_t i = 0; i < run->manifest.count; i++)
        run->manifest.entries[i].seen = false;
    /* The walk lists the sources, then the blobs of deleted sources go, before anything is
     * compiled: no reference compiled in this run is satisfied by the stale blob of a
     * resource that was deleted or renamed. */
    walk(run, "", 0);
    sweep_deleted(run);
    for (uint32_t i = 0; i < run->num_sources; i++)
        note_outcome(run, run->sources[i].rel,
                     compile_source(run, run->sources[i].rel, run->sources[i].type));
    free_sources(run);
    sweep_deleted(run);
    if (write_manifest(run)) {
        log__error("%s: cannot write the manifest: %s", run->manifest_path, strerror(errno));
        rc = CT_ERR_IO;
    }
    if (run->watching)
        lock_run(run, false); /* until the next change */
    *counts = (compiler_counts_t){run->compiled, run->up_to_date, run->failed};
    return run->failed ? CT_ERR_BAD_DATA : rc;
}

/* Lists for checking the sources whose references name `rel`: all of them when `any` (the
 * resource came or went), else those that read it as a file (its content changed). */
static void list_users(compile_run_t *run, const char *rel, bool any)
{
    const uint64_t key = use_key(rel, strlen(rel), true);
    if (!any && !existing_has(&run->file_uses, key))
        return; /* no compile read it */
    for (uint32_t i = 0; i < run->manifest.count; i++) {
        const compiler_manifest_entry_t *e = &run->manifest.entries[i];
        for (uint32_t u = 0; u < e->num_uses; u++) {
            if (e->uses[u] == key || (any && (e->uses[u] | 1) == key)) {
                const ct_resource_type_t *type = type_of_file(e->path);
                if (type)
                    list_source(run, e->path, type);
                break;
            }
        }
    }
}

/* The source `rel` is gone: its blob, references and entry go, and its users are checked. */
static void source_gone(compile_run_t *run, const char *rel)
{
    char name[RESOURCES_PATH_SIZE];
    snprintf(name, sizeof name, "%s", rel);
    char *dot = strrchr(name, '.');
    if (dot) {
        *dot = '\0';
        forget_source(run, rel, dot + 1, name);
    }
    list_users(run, rel, true);
}

/* What a change of the project path `rel` asks for. */
static void changed(compile_run_t *run, const char *rel)
{
    /* Hidden files, compiled/ and anything too long are never sources (as in the walk). */
    if (!rel[0] || strcmp(rel, RESOURCES_COMPILED_DIR) == 0 || under(rel, RESOURCES_COMPILED_DIR) ||
        rel[0] == '.' || strstr(rel, "/.") ||
        strlen(rel) > RESOURCES_MAX_NAME + RESOURCES_MAX_TYPE + 1)
        return;
    char full[RESOURCES_PATH_SIZE];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", run->project_dir, rel);
    const int found = stat(full, &st);
    if (found == 0 && S_ISDIR(st.st_mode)) {
        if (list_find(run->folders, run->num_folders, rel) >= 0)
            return; /* its own changes come from its own watch */
        /* A folder made or moved in: what is under it is new. */
        const uint32_t first = run->num_sources;
        int depth = 1;
        for (const char *p = rel; *p; p++)
            depth += *p == '/';
        walk(run, rel, depth);
        for (uint32_t i = first; i < run->num_sources; i++)
            if (!compiler__manifest_find(&run->manifest, run->sources[i].rel))
                list_users(run, run->sources[i].rel, true);
    } else if (found == 0 && S_ISREG(st.st_mode)) {
        const ct_resource_type_t *type = type_of_file(rel);
        const bool known = compiler__manifest_find(&run->manifest, rel) ||
                           list_find(run->failed_list, run->num_failed, rel) >= 0;
        if (type)
            list_source(run, rel, type);
        list_users(run, rel, type && !known);
    } else if (compiler__manifest_find(&run->manifest, rel)) {
        source_gone(run, rel);
    } else if (list_find(run->folders, run->num_folders, rel) >= 0) {
        /* A folder removed or moved out: everything under it is gone. */
        for (uint32_t i = 0; i < run->manifest.count;) {
            if (under(run->manifest.entries[i].path, rel)) {
                char path[RESOURCES_PATH_SIZE];
                snprintf(path, sizeof path, "%s", run->manifest.entries[i].path);
                source_gone(run, path); /* the last entry moves into slot i */
            } else {
                i++;
            }
        }
        list_drop_under(run->folders, &run->num_folders, rel);
        list_drop_under(run->failed_list, &run->num_failed, rel);
        run->folders_generation++;
    } else {
        list_users(run, rel, false); /* a file some compile read, now gone */
    }
    if (found != 0) {
        const int at = list_find(run->failed_list, run->num_failed, rel);
        if (at >= 0) {
            free_text(run->failed_list[at]);
            run->failed_list[at] = run->failed_list[--run->num_failed];
        }
    }
}

static int compare_sources(const void *a, const void *b)
{
    return strcmp(((const struct listed_source *)a)->rel, ((const struct listed_source *)b)->rel);
}

/* Writes the batch's journal records; the whole manifest instead when the journal is long
 * enough that reading it would cost more than writing the manifest once, or could not say
 * everything. */
static int flush_journal(compile_run_t *run)
{
    int rc = 0;
    uint32_t records = 0;
    for (size_t i = 0; i < run->journal_len; i++)
        records += run->journal[i] == '\n';
    const bool whole = run->journal_records == UINT32_MAX ||
                       run->journal_records + records > 4096 + run->manifest.count / 8;
    if (!whole && run->journal_len) {
        rc = compiler__manifest_append(run->manifest_path, run->journal, run->journal_len);
        if (rc)
            log__warning("%s: cannot append to its journal (%s); writing it whole",
                         run->manifest_path, strerror(errno));
        else
            run->journal_records += records;
    }
    if (whole || rc) {
        rc = write_manifest(run);
        if (rc)
            log__error("%s: cannot write the manifest: %s", run->manifest_path, strerror(errno));
    }
    run->journal_len = 0;
    return rc;
}

/* Lists for checking the sources whose last compile read the file `rel` (manifest files). */
static void list_readers(compile_run_t *run, const char *rel)
{
    for (uint32_t i = 0; i < run->manifest.count; i++) {
        const compiler_manifest_entry_t *e = &run->manifest.entries[i];
        for (uint32_t f = 0; f < e->num_files; f++) {
            if (strcmp(e->files[f].path, rel) == 0) {
                const ct_resource_type_t *type = type_of_file(e->path);
                if (type)
                    list_source(run, e->path, type);
                break;
            }
        }
    }
}

/* Compiles the listed sources once each, in path order; returns the journal's flush. */
static int compile_listed(compile_run_t *run)
{
    if (run->num_sources > 1)
        qsort(run->sources, run->num_sources, sizeof *run->sources, compare_sources);
    for (uint32_t i = 0; i < run->num_sources; i++) {
        const char *rel = run->sources[i].rel;
        if (i && strcmp(rel, run->sources[i - 1].rel) == 0)
            continue;
        char full[RESOURCES_PATH_SIZE];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", run->project_dir, rel);
        if (stat(full, &st) != 0) { /* gone since it was listed */
            if (compiler__manifest_find(&run->manifest, rel))
                source_gone(run, rel);
            continue;
        }
        note_outcome(run, rel, compile_source(run, rel, run->sources[i].type));
    }
    free_sources(run);
    return flush_journal(run);
}

int compiler__session_compile_changed(compile_run_t *run, const char *const *paths, uint32_t n,
                                      compiler_counts_t *counts)
{
    run->compiled = run->up_to_date = run->failed = 0;
    run->journaling = true;
    lock_run(run, true);
    struct stat st;
    if (stat(run->manifest_path, &st) != 0 || st.st_dev != run->manifest_dev ||
        st.st_ino != run->manifest_ino) {
        /* Another run (a plain cuttle-compile beside this one) rewrote the manifest, or someone
         * removed compiled/: what this session holds may be older than what is on disk, so this
         * run walks the project, as a start does. */
        log__info("%s: written by another cuttle-compile run, or gone; walking the project",
                  run->manifest_path);
        compiler__manifest_free(&run->manifest);
        compiler__manifest_read(&run->manifest, run->manifest_path);
        return compiler__session_compile_all(run, counts);
    }
    forget_existing(run); /* a change may have removed what was seen to exist */
    for (uint32_t i = 0; i < n; i++)
        changed(run, paths[i]);
    for (uint32_t i = 0; i < run->num_failed; i++) {
        const ct_resource_type_t *type = type_of_file(run->failed_list[i]);
        if (type)
            list_source(run, run->failed_list[i], type);
    }
    /* Once each, in path order (a source may be named by several changes). */
    const int rc = compile_listed(run);
    run->journaling = false;
    lock_run(run, false);
    *counts = (compiler_counts_t){run->compiled, run->up_to_date, run->failed};
    return run->failed ? CT_ERR_BAD_DATA : rc;
}

int compiler__session_compile_named(compile_run_t *run, const char *const *paths, uint32_t n,
                                    compiler_counts_t *counts)
{
    run->compiled = run->up_to_date = run->failed = 0;
    forget_existing(run);
    const size_t dir_len = strlen(run->project_dir);
    for (uint32_t i = 0; i < n; i++) {
        const char *rel = paths[i];
        /* A path under the project folder as given is made project-relative. */
        if (strncmp(rel, run->project_dir, dir_len) == 0 && rel[dir_len] == '/')
            rel += dir_len + 1;
        char why[256] = "";
        char full[RESOURCES_PATH_SIZE];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", run->project_dir, rel);
        const ct_resource_type_t *type = type_of_file(rel);
        if (resources__check_file_path(rel, why, sizeof why))
            ; /* why says it */
        else if (stat(full, &st) != 0)
            snprintf(why, sizeof why, "it is not there (only a walk knows who named it)");
        else if (!S_ISREG(st.st_mode))
            snprintf(why, sizeof why, "not a file");
        else if (type && !compiler__manifest_find(&run->manifest, rel) &&
                 list_find(run->failed_list, run->num_failed, rel) < 0)
            snprintf(why, sizeof why, "a source the manifest does not know (new, or it failed)");
        if (why[0]) {
            log__info("%s: %s; walking the project", paths[i], why);
            free_sources(run);
            return compiler__session_compile_all(run, counts);
        }
        if (type)
            list_source(run, rel, type);
        list_readers(run, rel);
    }
    run->journaling = true;
    const int rc = compile_listed(run);
    run->journaling = false;
    *counts = (compiler_counts_t){run->compiled, run->up_to_date, run->failed};
    return run->failed ? CT_ERR_BAD_DATA : rc;
}

const char *const *compiler__session_folders(const compile_run_t *run, uint32_t *count,
                                             uint32_t *generation)
{
    *count = run->num_folders;
    if (generation)
        *generation = run->folders_generation;
    return (const char *const *)run->folders;
}

int compiler__session_close(compile_run_t *run)
{
    if (!run)
        return 0;
    int rc = 0;
    /* A watcher folds its journal into manifest.json as it ends (a --changed run leaves it: its
     * point is not to write every entry for one change). */
    if (run->watching && run->journal_records) {
        lock_run(run, true);
        if ((rc = write_manifest(run)))
            log__error("%s: cannot write the manifest: %s", run->manifest_path, strerror(errno));
    }
    if (run->lock_fd >= 0)
        close(run->lock_fd); /* and with it the lock */
    free_sources(run);
    compiler__manifest_free(&run->manifest);
    forget_existing(run);
    if (run->file_uses.keys)
        ct_free(resources__allocator(), run->file_uses.keys,
                (size_t)run->file_uses.num_slots * sizeof *run->file_uses.keys);
    if (run->journal)
        ct_free(resources__allocator(), run->journal, run->journal_cap);
    list_free(run->failed_list, run->num_failed, run->cap_failed);
    list_free(run->folders, run->num_folders, run->cap_folders);
    ct_free(resources__allocator(), run, sizeof *run);
    return rc;
}
