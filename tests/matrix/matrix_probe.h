/* What the version-matrix probe (probe.c, built once) and its drivers (test_matrix.c and
 * tests/compat/compat_run.c) share. */
#ifndef CT_MATRIX_PROBE_H
#define CT_MATRIX_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The APIs the matrix combines, in the order of matrix_versions_t.of. */
enum {
    MATRIX_API_ENTITY,
    MATRIX_API_WORLD,
    MATRIX_API_TRANSFORM,
    MATRIX_API_PHYSICS,
    MATRIX_API_COMPONENT,
    MATRIX_API_RENDER,
    MATRIX_API_ANIMATION,
    MATRIX_API_NETWORK,
    MATRIX_API_LUA,
    MATRIX_API_EXPR,
    MATRIX_API_PARTICLES,
    MATRIX_API_INPUT,
    MATRIX_API_CLOCK,
    MATRIX_API_ISLANDS,
    MATRIX_NUM_APIS
};

/* As tests/matrix/meson.build's dict and the combinations' names spell them ("physics4"). */
static const char *const matrix_api_names[MATRIX_NUM_APIS] = {
    "entity",  "world", "transform", "physics",   "component", "render", "animation",
    "network", "lua",   "expr",      "particles", "input",     "clock",  "islands",
};

/* One combination: the major version of each API the probe asks the kernel for. */
typedef struct matrix_versions_t {
    uint32_t of[MATRIX_NUM_APIS];
} matrix_versions_t;

/* What a version adds to the scenario; the probe sets the bit when it ran and gave the expected
 * result. */
enum {
    MATRIX_ENTITY_BATCHES = 1u << 0,
    MATRIX_WORLD_ROTATIONS = 1u << 1,
    MATRIX_TRANSFORM_WORLD_SETTERS = 1u << 2,
    MATRIX_TRANSFORM_DESTROY_TREE = 1u << 3,
    MATRIX_PHYSICS_BODIES = 1u << 4,
    MATRIX_PHYSICS_FILTERS = 1u << 5,
    MATRIX_COMPONENT_ORDER = 1u << 6,
    MATRIX_RENDER_NULL_FRAME = 1u << 7,
    MATRIX_ANIMATION_PLAYBACK = 1u << 8,
    MATRIX_NETWORK_REPLICATION = 1u << 9,
    MATRIX_WORLD_LISTENERS = 1u << 10,
    MATRIX_LUA_CLOSURES = 1u << 11,
    MATRIX_EXPR_EVAL = 1u << 12,
    MATRIX_PARTICLES_STEP = 1u << 13,
    MATRIX_TRANSFORM_CHANGES = 1u << 14,
    MATRIX_PHYSICS_ROTATION = 1u << 15,
    MATRIX_RENDER_DEBUG_DRAW = 1u << 16,
    MATRIX_INPUT_CONTROLS = 1u << 17,
    MATRIX_CLOCK_SCALE = 1u << 18,
    MATRIX_ISLANDS_RUN = 1u << 19,
    MATRIX_PHYSICS_HULLS = 1u << 20,
    MATRIX_RENDER_SPLIT_FRAME = 1u << 21,
};

/* Which API version brings which feature. */
static const struct {
    uint32_t api;
    uint32_t since;
    uint32_t feature;
} matrix_features[] = {
    {MATRIX_API_ENTITY, 2, MATRIX_ENTITY_BATCHES},
    {MATRIX_API_WORLD, 1, MATRIX_WORLD_ROTATIONS},
    {MATRIX_API_TRANSFORM, 2, MATRIX_TRANSFORM_WORLD_SETTERS},
    {MATRIX_API_TRANSFORM, 3, MATRIX_TRANSFORM_DESTROY_TREE},
    {MATRIX_API_PHYSICS, 2, MATRIX_PHYSICS_BODIES},
    {MATRIX_API_PHYSICS, 3, MATRIX_PHYSICS_FILTERS},
    {MATRIX_API_COMPONENT, 2, MATRIX_COMPONENT_ORDER},
    {MATRIX_API_RENDER, 1, MATRIX_RENDER_NULL_FRAME},
    {MATRIX_API_ANIMATION, 1, MATRIX_ANIMATION_PLAYBACK},
    {MATRIX_API_NETWORK, 1, MATRIX_NETWORK_REPLICATION},
    {MATRIX_API_WORLD, 2, MATRIX_WORLD_LISTENERS},
    {MATRIX_API_LUA, 2, MATRIX_LUA_CLOSURES},
    {MATRIX_API_EXPR, 1, MATRIX_EXPR_EVAL},
    {MATRIX_API_PARTICLES, 1, MATRIX_PARTICLES_STEP},
    {MATRIX_API_TRANSFORM, 4, MATRIX_TRANSFORM_CHANGES},
    {MATRIX_API_PHYSICS, 4, MATRIX_PHYSICS_ROTATION},
    {MATRIX_API_RENDER, 2, MATRIX_RENDER_DEBUG_DRAW},
    {MATRIX_API_INPUT, 1, MATRIX_INPUT_CONTROLS},
    {MATRIX_API_CLOCK, 1, MATRIX_CLOCK_SCALE},
    {MATRIX_API_ISLANDS, 1, MATRIX_ISLANDS_RUN},
    {MATRIX_API_PHYSICS, 5, MATRIX_PHYSICS_HULLS},
    {MATRIX_API_RENDER, 3, MATRIX_RENDER_SPLIT_FRAME},
};

/* The features a combination's versions add. */
static inline uint32_t matrix_features_of(const matrix_versions_t *v)
{
    uint32_t features = 0;
    for (size_t k = 0; k < sizeof matrix_features / sizeof matrix_features[0]; k++)
        if (v->of[matrix_features[k].api] >= matrix_features[k].since)
            features |= matrix_features[k].feature;
    return features;
}

/* A combination's name, e.g. "entity2_world1_transform3_..."; `size` of 256 always suffices. */
static inline void matrix_name(const matrix_versions_t *v, char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (int a = 0; a < MATRIX_NUM_APIS && at < size; a++) {
        const int n =
            snprintf(out + at, size - at, "%s%s%u", a ? "_" : "", matrix_api_names[a], v->of[a]);
        at += n > 0 ? (size_t)n : 0;
    }
}

/* The versions of each API to combine, as the drivers read them from "api=1,2" arguments. */
#define MATRIX_MAX_VERSIONS 16
typedef struct matrix_lists_t {
    uint32_t versions[MATRIX_NUM_APIS][MATRIX_MAX_VERSIONS];
    uint32_t count[MATRIX_NUM_APIS];
} matrix_lists_t;

/* Reads "physics=1,2,3" into lists: false when the API is unknown or given twice, or the list is
 * not numbers joined by ','. */
static inline bool matrix_parse_versions(matrix_lists_t *lists, const char *arg)
{
    const char *eq = strchr(arg, '=');
    int api = -1;
    for (int a = 0; eq && a < MATRIX_NUM_APIS; a++)
        if (strlen(matrix_api_names[a]) == (size_t)(eq - arg) &&
            strncmp(arg, matrix_api_names[a], (size_t)(eq - arg)) == 0)
            api = a;
    if (api < 0 || lists->count[api] != 0)
        return false;
    for (const char *p = eq + 1; *p;) {
        char *end;
        const unsigned long version = strtoul(p, &end, 10);
        if (end == p || (*end && *end != ',') || lists->count[api] == MATRIX_MAX_VERSIONS)
            return false;
        lists->versions[api][lists->count[api]++] = (uint32_t)version;
        p = *end ? end + 1 : end;
    }
    return lists->count[api] > 0;
}

/* The combination `at` (an index into each API's list) stands for. */
static inline matrix_versions_t matrix_combination(const matrix_lists_t *lists,
                                                   const uint32_t at[MATRIX_NUM_APIS])
{
    matrix_versions_t v;
    for (int a = 0; a < MATRIX_NUM_APIS; a++)
        v.of[a] = lists->versions[a][at[a]];
    return v;
}

/* Moves `at` to the next combination (an odometer over the lists); false after the last. */
static inline bool matrix_next_combination(const matrix_lists_t *lists,
                                           uint32_t at[MATRIX_NUM_APIS])
{
    for (int a = MATRIX_NUM_APIS - 1; a >= 0; a--) {
        if (++at[a] < lists->count[a])
            return true;
        at[a] = 0;
    }
    return false;
}

typedef struct matrix_result_t {
    uint64_t common_hash; /* the common scenario's end state: the same in every combination */
    uint32_t features;    /* MATRIX_* bits of the features that ran and checked out */
    bool changed;         /* the scenario changed the world (its hash moved) */
} matrix_result_t;

/* Served by the probe as "matrix.probe" v2 (v1 was one probe build per combination). */
typedef struct matrix_probe_api_v2 {
    /* Runs the scenario once with the tables of `versions`: 0; CT_ERR_MISSING_API when a module
     * does not serve one of them (or the probe has no binding for it: `missing` then names it,
     * e.g. "physics v5"); another negative ct_error when a result was not the expected one. */
    int (*run)(const matrix_versions_t *versions, matrix_result_t *out, char missing[64]);
} matrix_probe_api_v2;

#endif
