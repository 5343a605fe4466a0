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
typedef struct resources_manifest_entry_t {
    char *path;
    int64_t mtime_sec;
    int64_t mtime_nsec;
    uint64_t size;
    uint64_t hash;
    uint32_t format_version;
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
int resources__manifest_write(const resources_manifest_t *m, const char *path);
resources_manifest_entry_t *resources__manifest_find(resources_manifest_t *m, const char *path);
/* Adds or replaces the entry for e->path (the path is copied). */
int resources__manifest_put(resources_manifest_t *m, const resources_manifest_entry_t *e);
void resources__manifest_remove(resources_manifest_t *m, resources_manifest_entry_t *e);
void resources__manifest_free(resources_manifest_t *m);

#endif
