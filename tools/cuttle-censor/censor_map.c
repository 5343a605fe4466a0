/*
 * Object maps and the map file kept in DEST's git folder (cuttle-censor/map), which lets a re-run
 * start where the last one ended without reading DEST's history or filtering anything again:
 *
 *   cuttle-censor map 1
 *   filter <hex>          the filter identity it was made with
 *   cutoff <hex>|-
 *   commit <source> <dest>
 *   blob <key> <dest>
 *   tree <key> <dest>
 */
#include "censor_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t slot_of(const git_oid *key, size_t capacity)
{
    uint64_t h;
    memcpy(&h, key->id, sizeof h); /* object ids are already uniformly spread */
    return (size_t)h & (capacity - 1);
}

const git_oid *censor_map_get(const censor_oid_map_t *m, const git_oid *key)
{
    if (m->capacity == 0)
        return NULL;
    for (size_t i = slot_of(key, m->capacity), n = 0; n < m->capacity;
         i = (i + 1) & (m->capacity - 1), n++) {
        if (!m->entries[i].used)
            return NULL;
        if (git_oid_equal(&m->entries[i].key, key))
            return &m->entries[i].value;
    }
    return NULL;
}

static bool grow(censor_oid_map_t *m)
{
    size_t capacity = m->capacity ? m->capacity * 2 : 1024;
    censor_oid_entry_t *entries = calloc(capacity, sizeof *entries);
    if (!entries)
        return false;
    for (size_t i = 0; i < m->capacity; i++) {
        if (!m->entries[i].used)
            continue;
        size_t j = slot_of(&m->entries[i].key, capacity);
        while (entries[j].used)
            j = (j + 1) & (capacity - 1);
        entries[j] = m->entries[i];
    }
    free(m->entries);
    m->entries = entries, m->capacity = capacity;
    return true;
}

bool censor_map_put(censor_oid_map_t *m, const git_oid *key, const git_oid *value)
{
    if ((m->count + 1) * 2 > m->capacity && !grow(m))
        return false;
    size_t i = slot_of(key, m->capacity);
    while (m->entries[i].used && !git_oid_equal(&m->entries[i].key, key))
        i = (i + 1) & (m->capacity - 1);
    if (!m->entries[i].used)
        m->count++;
    m->entries[i] = (censor_oid_entry_t){.key = *key, .value = *value, .used = 1};
    return true;
}

void censor_map_free(censor_oid_map_t *m)
{
    free(m->entries);
    *m = (censor_oid_map_t){0};
}

void censor_maps_free(censor_maps_t *maps)
{
    censor_map_free(&maps->commits);
    censor_map_free(&maps->blobs);
    censor_map_free(&maps->trees);
}

/* Reads one "<kind> <hex> <hex>" line into the right map. */
static bool read_pair(censor_maps_t *maps, const char *line)
{
    char kind[8], a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
    git_oid ka, kb;
    if (sscanf(line, "%7s %40s %40s", kind, a, b) != 3 || git_oid_fromstr(&ka, a) ||
        git_oid_fromstr(&kb, b))
        return false;
    censor_oid_map_t *m = !strcmp(kind, "commit") ? &maps->commits
                          : !strcmp(kind, "blob") ? &maps->blobs
                          : !strcmp(kind, "tree") ? &maps->trees
                                                  : NULL;
    return m && censor_map_put(m, &ka, &kb);
}

bool censor_maps_load(censor_maps_t *maps, const char *path, const censor_options_t *o, char *err,
                      size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return true;
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return false;
    }
    char line[256], filter[GIT_OID_HEXSZ + 1] = "", cutoff[GIT_OID_HEXSZ + 1] = "";
    bool ok = fgets(line, sizeof line, f) && !strcmp(line, "cuttle-censor map 1\n") &&
              fgets(line, sizeof line, f) && sscanf(line, "filter %40s", filter) == 1 &&
              fgets(line, sizeof line, f) && sscanf(line, "cutoff %40s", cutoff) == 1;
    int number = 3;
    while (ok && fgets(line, sizeof line, f)) {
        number++;
        ok = read_pair(maps, line);
    }
    fclose(f);
    if (!ok) {
        snprintf(err, err_size,
                 "%s: line %d is not a map line (the file is damaged: remove it and "
                 "DEST's history is copied again)",
                 path, number);
        return false;
    }
    if (strcmp(filter, o->filter_id) != 0) {
        snprintf(err, err_size,
                 "%s: DEST was censored with other filters or excludes; "
                 "censor into a new DEST (mixing two filters would publish a history that never "
                 "existed)",
                 path);
        return false;
    }
    maps->has_cutoff = strcmp(cutoff, "-") != 0;
    if (maps->has_cutoff && git_oid_fromstr(&maps->cutoff, cutoff)) {
        snprintf(err, err_size, "%s: line 3: '%s' is not an object id", path, cutoff);
        return false;
    }
    return true;
}

static void write_map(FILE *f, const char *kind, const censor_oid_map_t *m)
{
    char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
    for (size_t i = 0; i < m->capacity; i++) {
        if (m->entries[i].used)
            fprintf(f, "%s %s %s\n", kind, git_oid_tostr(a, sizeof a, &m->entries[i].key),
                    git_oid_tostr(b, sizeof b, &m->entries[i].value));
    }
}

bool censor_maps_save(const censor_maps_t *maps, const char *path, const censor_options_t *o,
                      char *err, size_t err_size)
{
    char tmp[4096], cutoff[GIT_OID_HEXSZ + 1] = "-";
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (maps->has_cutoff)
        git_oid_tostr(cutoff, sizeof cutoff, &maps->cutoff);
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "cuttle-censor map 1\nfilter %s\ncutoff %s\n", o->filter_id, cutoff);
        write_map(f, "commit", &maps->commits);
        write_map(f, "blob", &maps->blobs);
        write_map(f, "tree", &maps->trees);
    }
    bool ok = f && !ferror(f) && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return false;
    }
    return true;
}
