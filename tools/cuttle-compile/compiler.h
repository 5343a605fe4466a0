/* The incremental project compiler behind cuttle-compile: walks a project's sources, compiles
 * what changed through the resource types the loaded modules registered, and keeps
 * compiled/manifest.json. The running engine never needs it, so it lives here, not in kernel/. */
#ifndef CT_TOOLS_COMPILER_H
#define CT_TOOLS_COMPILER_H

#include "resources/resources_internal.h"

/* Compiles every source file under project_dir whose extension is a registered type into
 * project_dir/compiled, skipping those up to date. Counts go to the out parameters (may be NULL).
 * Returns 0, or a negative ct_error if any file failed (the others are still compiled). */
int resources__compile_project(const char *project_dir, uint32_t *compiled, uint32_t *up_to_date,
                               uint32_t *failed);

/* write_file.c: writes through a temporary file and a rename, creating parent folders. */
int resources__write_file(const char *path, const void *data, size_t size);

/* manifest.c: the record of what was compiled, by project-relative source path. */
/* What a file looked like: a file is unchanged while all of it stays the same. A noted file may
 * be absent (a compiler may look for a file that is not there): it changes when it appears. */
typedef struct resources_stamp_t {
    int64_t mtime_sec;
    int64_t mtime_nsec;
    uint64_t size;
    uint64_t hash; /* MurmurHash64A of the content */
    bool absent;   /* then the other fields are 0 */
} resources_stamp_t;

/* A file a resource was built from besides its source (ct_resource_api_v4.depends_on). */
typedef struct resources_manifest_file_t {
    char *path; /* project-relative */
    resources_stamp_t stamp;
} resources_manifest_file_t;

typedef struct resources_manifest_entry_t {
    char *path;
    resources_stamp_t stamp;
    uint32_t format_version;
    uint32_t warnings; /* compile_warning calls of the compile that made the blob */
    resources_manifest_file_t *files;
    uint32_t num_files; /* at most RESOURCES_MAX_FILES */
    bool seen; /* set by compile.c while walking */
} resources_manifest_entry_t;

typedef struct resources_manifest_t {
    resources_manifest_entry_t *entries;
    uint32_t count;
    uint32_t capacity;
} resources_manifest_t;

/* A missing manifest reads as empty; a corrupt one is reported and reads as empty (so
 * everything is recompiled). */
void resources__manifest_read(resources_manifest_t *m, const char *path);
/* The same from text in memory; `path` names it in messages. */
void resources__manifest_parse(resources_manifest_t *m, const char *text, size_t size,
                               const char *path);
int resources__manifest_write(const resources_manifest_t *m, const char *path);
resources_manifest_entry_t *resources__manifest_find(resources_manifest_t *m, const char *path);
/* Adds or replaces the entry for e->path (the path and the files are copied). */
int resources__manifest_put(resources_manifest_t *m, const resources_manifest_entry_t *e);
void resources__manifest_remove(resources_manifest_t *m, resources_manifest_entry_t *e);
void resources__manifest_free(resources_manifest_t *m);

#endif
