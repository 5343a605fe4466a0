/* What the version-matrix probe (probe.c, one build per combination) and its test share. */
#ifndef CT_MATRIX_PROBE_H
#define CT_MATRIX_PROBE_H

#include <stdbool.h>
#include <stdint.h>

/* What a version adds to the scenario; a probe sets the bit when it ran and gave the expected
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
};

/* Which API version (as the probe's file name spells it: "entity2") brings which feature. */
static const struct {
    const char *api;
    uint32_t since;
    uint32_t feature;
} matrix_features[] = {
    {"entity", 2, MATRIX_ENTITY_BATCHES},
    {"world", 1, MATRIX_WORLD_ROTATIONS},
    {"transform", 2, MATRIX_TRANSFORM_WORLD_SETTERS},
    {"transform", 3, MATRIX_TRANSFORM_DESTROY_TREE},
    {"physics", 2, MATRIX_PHYSICS_BODIES},
    {"physics", 3, MATRIX_PHYSICS_FILTERS},
    {"component", 2, MATRIX_COMPONENT_ORDER},
    {"render", 1, MATRIX_RENDER_NULL_FRAME},
    {"animation", 1, MATRIX_ANIMATION_PLAYBACK},
    {"network", 1, MATRIX_NETWORK_REPLICATION},
    {"world", 2, MATRIX_WORLD_LISTENERS},
    {"lua", 2, MATRIX_LUA_CLOSURES},
    {"expr", 1, MATRIX_EXPR_EVAL},
    {"particles", 1, MATRIX_PARTICLES_STEP},
};

typedef struct matrix_result_t {
    uint64_t common_hash; /* the common scenario's end state: the same in every combination */
    uint32_t features;    /* MATRIX_* bits of the features that ran and checked out */
    bool changed;         /* the scenario changed the world (its hash moved) */
} matrix_result_t;

typedef struct matrix_probe_api_v1 {
    /* Runs the scenario once: 0, or a negative ct_error when a result was not the expected one. */
    int (*run)(matrix_result_t *out);
} matrix_probe_api_v1;

#endif
