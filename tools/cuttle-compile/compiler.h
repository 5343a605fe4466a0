/* The incremental project compiler behind cuttle-compile: walks a project's sources, compiles
 * what changed through the resource types the loaded modules registered, and keeps
 * compiled/manifest.json. The running engine never needs it, so it lives here, not in kernel/. */
#ifndef CT_TOOLS_COMPILER_H
#define CT_TOOLS_COMPILER_H

#include "resources/resources_internal.h"

/* Compiles every source file under project_dir whose extension is a registered type into
 * project_dir/compiled, skipping those up to date. Counts go to the out parameters (may be NULL).
 * Returns 0, or a negative ct_error if any file failed (the others are still compiled). */
int compiler__compile_project(const char *project_dir, uint32_t *compiled, uint32_t *up_to_date,
                              uint32_t *failed);
/* The same, compiling every source whatever the manifest says when `force` (--force). */
int compiler__compile_project_ex(const char *project_dir, bool force, uint32_t *compiled,
                                 uint32_t *up_to_date, uint32_t *failed);

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
 * everything is recompiled). */
void compiler__manifest_read(compiler_manifest_t *m, const char *path);
/* The same from text in memory; `path` names it in messages. */
void compiler__manifest_parse(compiler_manifest_t *m, const char *text, size_t size,
                              const char *path);
int compiler__manifest_write(const compiler_manifest_t *m, const char *path);
/* The entry of `path`, or NULL; in constant time. Valid until the next put or remove. */
compiler_manifest_entry_t *compiler__manifest_find(compiler_manifest_t *m, const char *path);
/* Adds or replaces the entry for e->path (the path and the files are copied). */
int compiler__manifest_put(compiler_manifest_t *m, const compiler_manifest_entry_t *e);
/* Removes e; the last entry moves into its place (loops over entries stay at the same index). */
void compiler__manifest_remove(compiler_manifest_t *m, compiler_manifest_entry_t *e);
void compiler__manifest_free(compiler_manifest_t *m);

#endif
