/*
 * cuttle-censor's parts: the options (censor.c), the filter chain and leak check
 * (censor_filter.c), the object maps and the map file kept in DEST (censor_map.c), and the copy
 * of history (censor_copy.c). See censor.c for what the tool does.
 */
#ifndef CUTTLE_CENSOR_INTERNAL_H
#define CUTTLE_CENSOR_INTERNAL_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "censor_ifdef.h"

enum { CENSOR_MAX_FILTERS = 16, CENSOR_MAX_WORDS = 256, CENSOR_MAX_EXCLUDES = 256 };

typedef struct censor_filter_t {
    bool builtin; /* the preprocessor filter (C-like files only), else a shell command */
    censor_ifdef_t ifdef;
    const char *command; /* run as `sh -c COMMAND`: the content on stdin, the result on stdout */
} censor_filter_t;

typedef struct censor_options_t {
    const char *source, *dest, *target, *cutoff, *branch;
    censor_filter_t filters[CENSOR_MAX_FILTERS];
    int num_filters;
    const char *forbidden[CENSOR_MAX_WORDS]; /* the leak check's words */
    int num_forbidden;
    const char *excludes[CENSOR_MAX_EXCLUDES]; /* fnmatch patterns of paths left out entirely */
    int num_excludes;
    char filter_id[GIT_OID_HEXSZ + 1]; /* a hash of everything above that shapes the output */
    bool quiet;
    bool
        lenient; /* the preprocessor filter warns about unbalanced conditionals instead of failing */
} censor_options_t;

/* ---- An open-addressing map from a source object id to what it became (censor_map.c). -------- */

typedef struct censor_oid_entry_t {
    git_oid key;
    git_oid value;
    uint8_t used;
} censor_oid_entry_t;

typedef struct censor_oid_map_t {
    censor_oid_entry_t *entries;
    size_t capacity, count; /* capacity is a power of two, kept at most half full */
} censor_oid_map_t;

const git_oid *censor_map_get(const censor_oid_map_t *m, const git_oid *key);
bool censor_map_put(censor_oid_map_t *m, const git_oid *key, const git_oid *value);
void censor_map_free(censor_oid_map_t *m);

/* Everything a run knows: the maps it starts from (loaded from DEST) and grows. */
typedef struct censor_maps_t {
    censor_oid_map_t commits; /* source commit -> DEST commit */
    censor_oid_map_t blobs;   /* filter key (censor_blob_key) -> DEST blob */
    censor_oid_map_t trees; /* source tree (keyed with its path when excludes apply) -> DEST tree */
    git_oid cutoff;
    bool has_cutoff;
} censor_maps_t;

/* Loads DEST's map file into maps (an absent file is an empty map), its cutoff included. A file
 * made with another filter is an error: its commits would mix two censorings. */
bool censor_maps_load(censor_maps_t *maps, const char *path, const censor_options_t *o, char *err,
                      size_t err_size);
/* Writes the map file whole (a temporary file renamed over it). */
bool censor_maps_save(const censor_maps_t *maps, const char *path, const censor_options_t *o,
                      char *err, size_t err_size);
void censor_maps_free(censor_maps_t *maps);

/* ---- Filters and the leak check (censor_filter.c). ------------------------------------------ */

/* Whether the built-in filter reads this file (C, C++, Objective-C and shader sources). */
bool censor_is_c_like(const char *name);
/* The key a blob's filtered result is cached under: its id, changed when the file is C-like
 * (the built-in filter reads those and passes the rest through). */
void censor_blob_key(git_oid *key, const git_oid *blob, bool c_like);
/* Runs every filter on in[0..size) in order; *out is malloc'd. On failure err says which
 * filter and why (the caller adds the path and commit); on success err is empty or a warning. */
bool censor_filter_run(const censor_options_t *o, bool c_like, const char *in, size_t size,
                       char **out, size_t *out_size, char *err, size_t err_size);
/* Returns the first forbidden word found in data, or NULL. */
const char *censor_leak(const censor_options_t *o, const void *data, size_t size);

/* ---- The copy (censor_copy.c). -------------------------------------------------------------- */

typedef struct censor_stats_t {
    size_t commits, tags, blobs_filtered, blobs_cached, trees;
} censor_stats_t;

/* Copies every ancestor of the target into DEST through the filters. All or nothing: on failure
 * DEST's refs, objects and map are as they were. */
bool censor_copy(const censor_options_t *o, censor_stats_t *stats, char *err, size_t err_size);

#endif
