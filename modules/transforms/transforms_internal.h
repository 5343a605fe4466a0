/*
 * transforms_internal.h: the scene graph of one world, shared by the files of modules/transforms.
 *
 * transforms_math.c   poses, quaternions and affine 3x4 matrices
 * transforms_graph.c  the per-world manager: SoA storage, entity index, links, propagation
 * transforms_component.c  the "transform" component type: compile, spawn, destroyed
 * transforms_lua.c    the Lua bindings
 * transforms.c        get_plugin_api, init/shutdown, the ct.transform v1/v2 tables
 *
 * The graph layer knows nothing of the kernel: it takes an allocator and returns error codes, so
 * tests can drive it directly. Logging of misuse happens one layer up, in transforms.c.
 */
#ifndef CT_TRANSFORMS_INTERNAL_H
#define CT_TRANSFORMS_INTERNAL_H

#include "ct_entity.h"
#include "ct_reload.h"
#include "ct_transform.h"

/* ---- math (transforms_math.c) ---------------------------------------------------------------- */

extern const ct_transform_pose_t transforms__identity_pose;
extern const ct_transform_matrix_t transforms__identity_matrix;

/* The local matrix of a pose (rotation, then scale along the rotated axes, then translation).
 * Inline: spawning a level makes one per instance. */
static inline void transforms__matrix_from_pose(const ct_transform_pose_t *pose,
                                                ct_transform_matrix_t *out)
{
    const float x = pose->rotation[0], y = pose->rotation[1], z = pose->rotation[2],
                w = pose->rotation[3];
    const float sx = pose->scale[0], sy = pose->scale[1], sz = pose->scale[2];
    *out = (ct_transform_matrix_t){{
        (1 - 2 * (y * y + z * z)) * sx,
        2 * (x * y - w * z) * sy,
        2 * (x * z + w * y) * sz,
        pose->position[0],
        2 * (x * y + w * z) * sx,
        (1 - 2 * (x * x + z * z)) * sy,
        2 * (y * z - w * x) * sz,
        pose->position[1],
        2 * (x * z - w * y) * sx,
        2 * (y * z + w * x) * sy,
        (1 - 2 * (x * x + y * y)) * sz,
        pose->position[2],
    }};
}
/* The nearest pose: translation exact, scale the basis column lengths (x negated when the basis
 * is mirrored), rotation from the normalised basis. */
void transforms__pose_from_matrix(const ct_transform_matrix_t *m, ct_transform_pose_t *out);
/* false (out untouched) when m is singular. */
bool transforms__matrix_invert(const ct_transform_matrix_t *m, ct_transform_matrix_t *out);
void transforms__matrix_transform_point(const ct_transform_matrix_t *m, const float p[3],
                                        float out[3]);
/* Hamilton product a * b (apply b, then a). out may alias a or b. */
void transforms__quat_mul(const float a[4], const float b[4], float out[4]);
void transforms__quat_rotate(const float q[4], const float v[3], float out[3]);
/* Scales q to unit length; false (q untouched) when it is (nearly) zero or not finite. */
bool transforms__quat_normalize(float q[4]);

/* The one rule for a pose that comes from outside (the C API, Lua, compiled data; see
 * "Valid poses" in api/ct_transform.h): false with the field at fault named in `why` when a value
 * is refused; a finite rotation that is not of unit length is normalised in place. */
bool transforms__check_pose(ct_transform_pose_t *pose, char *why, size_t why_size);
bool transforms__check_position(const float p[3], char *why, size_t why_size);
bool transforms__check_rotation(float q[4], char *why, size_t why_size);

/* out = a * b: the hot step of propagation, inline so the walk compiles to straight-line code.
 * With rows of four, each output row is a0 * (row 0 of b) + a1 * (row 1) + a2 * (row 2) + (0 0 0
 * a3). Written as four identical expressions (the `+ 0.0f` makes the fourth one's shape the same
 * as the others'), the compiler turns each row into 4-wide vector multiplies and adds: about 3x
 * faster than scalar code on column-major matrices. out must not alias a or b. */
static inline void transforms__matrix_mul(const ct_transform_matrix_t *restrict a,
                                          const ct_transform_matrix_t *restrict b,
                                          ct_transform_matrix_t *restrict out)
{
    const float *y = b->m;
    for (int r = 0; r < 3; r++) {
        const float *x = a->m + 4 * r;
        float *o = out->m + 4 * r;
        const float a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
        o[0] = (a0 * y[0] + a1 * y[4]) + (a2 * y[8] + 0.0f);
        o[1] = (a0 * y[1] + a1 * y[5]) + (a2 * y[9] + 0.0f);
        o[2] = (a0 * y[2] + a1 * y[6]) + (a2 * y[10] + 0.0f);
        o[3] = (a0 * y[3] + a1 * y[7]) + (a2 * y[11] + a3);
    }
}

/* ---- the manager of one world (transforms_graph.c) ------------------------------------------ */

/*
 * Every per-instance array lives in one allocation (`buffer`). Slot 0 is the nil instance: its
 * links are 0 and its world matrix is the identity, so a root's parent world is world[0] and
 * propagation needs no branch for roots. Live instances are 1 .. n-1.
 */
typedef struct transforms__manager_t {
    ct_allocator_t *a;
    ct_world_o *world;
    uint32_t n;        /* slots in use, the nil slot included */
    uint32_t capacity; /* slots allocated */
    size_t bytes;
    void *buffer;

    ct_transform_matrix_t *world_m;
    ct_transform_matrix_t *local_m;
    ct_transform_pose_t *pose;
    ct_entity_t *entity;
    uint32_t *parent;
    uint32_t *first_child;
    uint32_t *next_sibling;
    uint32_t *prev_sibling;
    uint16_t *generation;    /* per slot, 1..1023: goes up when the slot's instance changes */
    uint8_t *mark;           /* scratch of the batched update; all 0 between calls */
    ct_entity_pages_t index; /* entity -> instance (0: none), apart from the block */
    uint64_t changes;        /* ct_transform_api_v4.changes: bumped by every change */
} transforms__manager_t;

void transforms__manager_init(transforms__manager_t *m, ct_allocator_t *a, ct_world_o *world);
void transforms__manager_free(transforms__manager_t *m);

static inline bool transforms__valid(const transforms__manager_t *m, uint32_t i)
{
    return i > 0 && i < m->n;
}

/* A ct_transform_t is (slot generation << 22) | slot index. The generation of a slot goes up
 * whenever the instance in it is destroyed or moved, so a stale handle is told apart from a live
 * one (until the 10-bit generation comes round, after 1023 such changes of its slot). Instances
 * are at most the live entities, so 22 index bits hold every slot. */
#define TRANSFORMS_INDEX_BITS 22u
#define TRANSFORMS_INDEX_MASK ((1u << TRANSFORMS_INDEX_BITS) - 1u)
#define TRANSFORMS_GENERATION_MASK 0x3ffu

static inline ct_transform_t transforms__handle(const transforms__manager_t *m, uint32_t i)
{
    return (ct_transform_t){i ? ((uint32_t)m->generation[i] << TRANSFORMS_INDEX_BITS) | i : 0u};
}

/* The slot a handle names, or 0 when it is invalid or stale. */
static inline uint32_t transforms__index(const transforms__manager_t *m, ct_transform_t h)
{
    const uint32_t i = h.i & TRANSFORMS_INDEX_MASK;
    return transforms__valid(m, i) && m->generation[i] == h.i >> TRANSFORMS_INDEX_BITS ? i : 0u;
}

/* The instance of entity id `e`, or 0. */
uint32_t transforms__find(const transforms__manager_t *m, uint32_t e);
/* Appends n roots, one for each entity entities[entity_index[k]] (entity_index NULL:
 * entities[k]) with poses[k] (poses NULL: identity), in slots *first, *first + 1, ... in the order
 * of k, and writes their handles to out[k] (out and first may be NULL); an entity that already
 * has one (or id 0) gets out[k] = 0 and no slot. *first is not always the old m->n: an instance
 * left by an older entity of a batch entity's index is destroyed first. Grows storage once.
 * Returns 0 or CT_ERR_NOMEM (then nothing was created). */
int transforms__create(transforms__manager_t *m, const ct_entity_t *entities,
                       const uint32_t *entity_index, const ct_transform_pose_t *poses, uint32_t n,
                       ct_transform_t *out, uint32_t *first);
/* Removes instance i: its children become roots keeping their world pose; the last instance
 * moves into slot i with every link to it retargeted. */
void transforms__destroy(transforms__manager_t *m, uint32_t i);

/* Sets the pose and local matrix of i without touching world matrices. */
void transforms__write_local(transforms__manager_t *m, uint32_t i, const ct_transform_pose_t *p);
/* Recomputes the world matrices of i and its whole subtree (iterative walk, no stack). */
void transforms__propagate(transforms__manager_t *m, uint32_t i);
/* Recomputes the world matrices below every instance of the list once, parents first: each
 * instance with no listed ancestor propagates its subtree. Invalid entries are skipped. */
void transforms__propagate_batch(transforms__manager_t *m, const ct_transform_t *instances,
                                 uint32_t n);
/* Sets locals[k] on instances[k] (a repeated instance takes its last pose), then updates the
 * world matrices as transforms__propagate_batch does. Entries with an invalid instance or a pose
 * transforms__check_pose refuses are skipped; returns how many. */
uint32_t transforms__set_local_batch(transforms__manager_t *m, const ct_transform_t *instances,
                                     const ct_transform_pose_t *locals, uint32_t n);

/* Links child under parent without updating world matrices. CT_ERR_INVALID when parent is child
 * or one of its descendants (nothing changes). */
int transforms__link(transforms__manager_t *m, uint32_t child, uint32_t parent);
/* Makes child a root whose local pose is its former world pose (world matrices unchanged). */
void transforms__unlink(transforms__manager_t *m, uint32_t child);

/* World-space access through the parent's world matrix (the subtree follows at once). The
 * position setter returns false (nothing changes) when the parent's matrix is singular. */
void transforms__world_rotation(const transforms__manager_t *m, uint32_t i, float out[4]);
bool transforms__set_world_position(transforms__manager_t *m, uint32_t i, const float position[3]);
void transforms__set_world_rotation(transforms__manager_t *m, uint32_t i, const float rotation[4]);

/* The entities of i and of its whole subtree, i's first (depth first, parents before children),
 * into an array from m->a of *n entries (free with *n * sizeof(ct_entity_t)); NULL when out of
 * memory. */
ct_entity_t *transforms__subtree_entities(transforms__manager_t *m, uint32_t i, uint32_t *n);

/* ---- module state shared between files (transforms.c) ---------------------------------------- */

struct ct_log_api_v1;
struct ct_lua_api_v1;
struct ct_data_api_v1;
struct ct_resource_api_v1;
struct ct_memory_api_v1;

/* TRANSFORMS_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of transforms__state_t, transforms__manager_t and every struct they reach
 * (transforms_layout.h, by tools/abi/layout_id.py): a change there changes it, so there is no
 * number to bump. The module's entry file includes transforms_layout.h. */

/* Everything the module changes while it runs (the managers belong to the worlds), in one block
 * from the plugin allocator that a hot reload hands to the new code. */
typedef struct transforms__state_t {
    /* First in every layout, so any code can tell whether it may read the rest (ct_reload.h). */
    ct_reload_header_t header; /* sizeof(transforms__state_t), TRANSFORMS_LAYOUT_VERSION */
    uint64_t type_id;          /* of the registered "transform" component type */
} transforms__state_t;

/* The services this copy of the code fetched (at init or reload), and the state. */
typedef struct transforms__module_t {
    ct_plugin_o *self;
    const struct ct_log_api_v1 *log;
    const ct_entity_api_v2 *entity;
    const ct_component_api_v2 *component;
    const struct ct_lua_api_v1 *lua;
    const struct ct_data_api_v1 *data;
    const struct ct_resource_api_v6 *resource; /* v6: declare_format */
    ct_allocator_t *allocator;                 /* the plugin's own: the state block */
    transforms__state_t *state;
} transforms__module_t;

extern transforms__module_t transforms__m;

/* The manager of `world`, or NULL (logged, naming `what`). */
transforms__manager_t *transforms__manager_of(ct_world_o *world, const char *what);

/* transforms.c: ct_transform_api_v3.destroy_tree (the Lua binding uses it too). */
uint32_t transforms__destroy_tree(ct_world_o *world, ct_entity_t e);

/* transforms_component.c */
int transforms__register_component(void);
/* For a reload: points the registered type at this code's callbacks; false when refused. */
bool transforms__rebind_component(void);
void transforms__unregister_component(void);
/* transforms_lua.c */
void transforms__register_lua(void);

#endif
