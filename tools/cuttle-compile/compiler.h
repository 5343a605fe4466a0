/* The incremental project compiler behind cuttle-compile: walks a project's sources, compiles
 * what changed through the resource types the loaded modules registered, and keeps
 * compiled/manifest.json. The running engine never needs it, so it lives here, not in kernel/. */
#ifndef CT_TOOLS_COMPILER_H
#define CT_TOOLS_COMPILER_H

#include <stdio.h>

#include "resources/resources_internal.h"

/* Compiles every source file under project_dir whose extension is a registered type into
 * project_dir/compiled, skipping those up to date. Counts go to the out parameters (may be NULL).
 * Returns 0, or a negative ct_error if any file failed (the others are still compiled). */
int compiler__compile_project(const char *project_dir, uint32_t *compiled, uint32_t *up_to_date,
                              uint32_t *failed);
/* The same, compiling every source whatever the manifest says when `force` (--force). */
int compiler__compile_project_ex(const char *project_dir, bool force, uint32_t *compiled,
                                 uint32_t *up_to_date, uint32_t *failed);

/* A compile session (compile.c): the manifest in memory across runs, for --watch. A run of the
 * whole project walks it; a run of changed paths looks only at them, at the sources whose
 * references name them (kept in memory from the first run) and at the sources that failed,
 * and appends what changed to the manifest's journal instead of writing it whole. */
typedef struct compile_run_t compiler_session_t;
typedef struct compiler_counts_t {
    uint32_t compiled, up_to_date, failed;
} compiler_counts_t;
/* Reads the manifest (and its journal). NULL, having logged why, for a missing project folder.
 * `watching`: keep what each source references, the folders and the failed sources. */
compiler_session_t *compiler__session_open(const char *project_dir, bool force, bool watching);
/* Walks and compiles the whole project as compiler__compile_project does; writes the manifest
 * whole (folding its journal in). 0, or a negative ct_error when anything failed. */
int compiler__session_compile_all(compiler_session_t *s, compiler_counts_t *counts);
/* Compiles after a change of the project-relative `paths` (files or folders that changed,
 * appeared or went): those that are sources, the sources that read a changed file, those that
 * reference a source that appeared or went, and the sources that failed before. The manifest's
 * journal gets one append. Needs a session opened with `watching` and its compile_all first. */
int compiler__session_compile_changed(compiler_session_t *s, const char *const *paths, uint32_t n,
                                      compiler_counts_t *counts);
/* Compiles the sources among the project-relative `paths` and the sources that read any of them
 * (their manifest entries' files), without a walk, for `cuttle-compile --changed`: told what
 * changed, it looks at nothing else. A path that is no longer there, a source the manifest does
 * not know (new), a folder or a bad path would need what only a walk knows (who names it): the
 * run walks the project then, as compile_all. Appends to the journal like compile_changed. */
int compiler__session_compile_named(compiler_session_t *s, const char *const *paths, uint32_t n,
                                    compiler_counts_t *counts);
/* The folders the session follows; `generation` changes whenever the list does. Valid until
 * the next compile. */
const char *const *compiler__session_folders(const compiler_session_t *s, uint32_t *count,
                                             uint32_t *generation);
/* Writes the manifest whole if the journal holds anything, and frees. NULL is fine. */
int compiler__session_close(compiler_session_t *s);

/* watch.c: `cuttle-compile --watch`: compiles the whole project, then each change as the file
 * system reports it (libuv's fs events), printing "compiled N, up to date M, failed K" to `out`
 * after every run, until SIGINT or SIGTERM; then writes the manifest whole. Returns 0, or 1 when
 * the session could not start or its manifest could not be written. */
int compiler__watch(const char *project_dir, bool force, FILE *out);

/* write_file.c: writes through a temporary file and a rename, creating parent folders. */
int compiler__write_file(const char *path, const void *data, size_t size);

/* manifest.c: the record of what was compiled, by project-relative source path. */
/* What a file looked like: a file is unchanged while all of it stays the same. A noted file may
 * be absent (a compiler may look for a file that is not there): it changes when it appears. */
typedef struct compiler_stamp_t {
    int64_t mtime_sec;
    int64_t mtime_nsec;
    uint64_t size;
    uint64_t hash; /* MurmurHash64A of the content */
    bool absent;   /* then the other fields are 0 */
} compiler_stamp_t;

/* A file a resource was built from besides its source (ct_resource_api_v4.depends_on). */
typedef struct compiler_manifest_file_t {
    char *path; /* project-relative */
    compiler_stamp_t stamp;
} compiler_manifest_file_t;

typedef struct compiler_manifest_entry_t {
    char *path;
    compiler_stamp_t stamp;
    uint32_t format_version;
    uint32_t warnings; /* compile_warning calls of the compile that made the blob */
    compiler_manifest_file_t *files;
    uint32_t num_files; /* at most RESOURCES_MAX_FILES */
    /* The plugin that provided the type ("ct.entities 1.0.0"; "kernel" for the kernel's own)
     * and the formats the compile used ("component.mesh=3 component.transform=1"): when either
     * differs now, the source is compiled again. */
    char *provider;
    char *formats;
    /* In memory only, kept by --watch: what the source's references name, each the 64-bit hash
     * of a project-relative path ("units/crate.unit" for a unit, the path for a file), with the
     * low bit set for a file the compile read (whose content, not only existence, matters). */
    uint64_t *uses;
    uint32_t num_uses;
    bool seen; /* set by compile.c while walking */
} compiler_manifest_entry_t;

typedef struct compiler_manifest_t {
    compiler_manifest_entry_t *entries;
    uint32_t count;
    uint32_t capacity;
    /* The index by path: open addressing with linear probing, each slot an entry's index + 1
     * (0: empty), num_slots a power of two at least twice count. A run looks every source up,
     * so a linear search made a compile of N sources cost N^2 / 2 string compares. */
    uint32_t *slots;
    uint32_t num_slots;
} compiler_manifest_t;

/* A missing manifest reads as empty; a corrupt one is reported and reads as empty (so
 * everything is recompiled). Its journal (path + ".journal") is applied after it; returns how
 * many of the journal's records were. */
uint32_t compiler__manifest_read(compiler_manifest_t *m, const char *path);
/* The same from text in memory; `path` names it in messages. */
void compiler__manifest_parse(compiler_manifest_t *m, const char *text, size_t size,
                              const char *path);
/* Writes the whole manifest (through a temporary file) and then removes its journal. */
int compiler__manifest_write(const compiler_manifest_t *m, const char *path);
/* Applies journal records (see manifest.c) in order, up to the first that is cut short or
 * damaged; `path` names the journal in messages. Returns how many were applied. */
uint32_t compiler__manifest_replay(compiler_manifest_t *m, const char *text, size_t size,
                                   const char *path);
/* One journal record without its newline: the entry `e`, or when e is NULL the removal of the
 * source `removed`. Free with cJSON_free; NULL when out of memory. */
char *compiler__manifest_record(const compiler_manifest_entry_t *e, const char *removed);
/* Appends records (whole lines) to the journal of the manifest at `path` in one write. */
int compiler__manifest_append(const char *path, const char *records, size_t size);
/* The entry of `path`, or NULL; in constant time. Valid until the next put or remove. */
compiler_manifest_entry_t *compiler__manifest_find(compiler_manifest_t *m, const char *path);
/* Adds or replaces the entry for e->path (the path and the files are copied). */
int compiler__manifest_put(compiler_manifest_t *m, const compiler_manifest_entry_t *e);
/* Removes e; the last entry moves into its place (loops over entries stay at the same index). */
void compiler__manifest_remove(compiler_manifest_t *m, compiler_manifest_entry_t *e);
void compiler__manifest_free(compiler_manifest_t *m);

#endif
