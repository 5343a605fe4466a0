/*
 * ct_transform.h: the transform component, the scene graph of a world. API "ct.transform",
 * served by modules/transforms (ct_transforms.so).
 *
 * What it is. Every world (ct_world.h) has one transform manager. An entity placed in a world has
 * at most one transform instance there; the same entity may have transforms in several worlds
 * (an axe in the game world and in the inventory world) and they are independent. Entities that
 * have no position (a game rule, a sound bank) simply have no transform.
 *
 * What an instance holds.
 *   - the local pose: position, rotation (unit quaternion x y z w) and scale, relative to the
 *     parent (or to the world for a root). Stored as given, so reading it back is exact;
 *   - the local matrix made from that pose and the world matrix (parent's world * local);
 *   - links: parent, first child, next and previous sibling.
 *
 * Matrices are compact affine 3x4 (ct_transform_matrix_t): three rows of (x axis, y axis, z axis,
 * translation) components, 12 floats, 48 bytes. The fourth row of a 4x4 is always (0 0 0 1), so it is not
 * stored: propagation moves 25% less memory and does 36 multiplies per node instead of 64.
 *
 * Immediate updates. set_local recomputes the world matrices of the instance and of its whole
 * subtree before it returns, so a world position read afterwards is never a frame old. Moving
 * every node of a chain one by one thus costs O(n^2); set_local_batch (v2) writes all the poses
 * first and then updates each affected subtree once, parents before children: O(n).
 *
 * Links.
 *   link(child, parent)  keeps the child's LOCAL pose: the child is placed relative to its new
 *                        parent (as spawning does). Linking under one's own descendant is refused.
 *   unlink(child)        keeps the child's WORLD pose: a detached node stays where it was, its
 *                        local pose becomes its old world pose.
 *   destroying a parent  (destroy(), or its entity dying) unlinks its children the same way:
 *                        each keeps its world pose and becomes a root; grandchildren stay linked
 *                        to their parents. Nothing but the destroyed instance goes away.
 *   destroy_tree (v3)    destroys the entity and every entity below it: how a unit goes.
 * A world pose read back as position/rotation/scale is exact for translation; rotation and scale
 * are recovered from the matrix (a non-uniformly scaled parent with a rotated child makes shear,
 * which a pose cannot hold: the nearest rotation and the column lengths are used).
 *
 * Valid poses. One rule holds at every entry point (create, set_local, set_local_batch,
 * set_world_position, set_world_rotation, compiled data, spawning a unit at a pose, Lua):
 *   position   each component finite and within +-CT_TRANSFORM_MAX_POSITION (1e9);
 *   rotation   each component finite and not all zero; a quaternion that is not of unit length
 *              is normalised (the matrix formulas assume one), a unit one is kept as given;
 *   scale      each component finite with a magnitude in [CT_TRANSFORM_MIN_SCALE,
 *              CT_TRANSFORM_MAX_SCALE] (1e-6 .. 1e6; negative mirrors). Zero flattens a node for
 *              good: nothing below it could be placed in world space again.
 * Anything else is refused with a message naming the entity and the field: C calls log it and
 * change nothing (set_local_batch skips that entry), Lua raises an error, a compile fails and a
 * blob holding such a pose is refused when it is loaded.
 *
 * Instance handles. ct_transform_t names a slot of the manager's arrays and the slot's
 * generation; 0 means "none". Creating never disturbs existing handles. Destroying an instance
 * moves the last instance into the hole (as in any packed array): the destroyed instance's handle
 * and the moved instance's old handle become stale. Every call checks its handle: an invalid or
 * stale one is reported in the log and ignored (getters return the identity / {0}). The
 * generation has 10 bits, so a stale handle could pass again only after its slot changed 1023
 * times. Keep entities, look instances up when needed (lookup reads the paged entity index,
 * ct_entity_pages_t: two array reads, no hashing).
 *
 * Entity death. The module registers the component type "transform" (ct_entity.h): instances are
 * removed in the entity destroy callback, so a dead entity's transform is gone at once.
 *
 * Resources. The component's source in an entity resource is
 *     transform = { position = [x y z] rotation = [x y z w] scale = [x y z] }
 * every field optional (defaults 0 0 0, 0 0 0 1, 1 1 1). Non-numbers, wrong arity and values
 * outside "Valid poses" are refused naming the field; a rotation is normalised. Spawning links each entity to its resource parent
 * (ct_spawn_context_t.parent_index) and places the resource's roots at the context's pose.
 *
 * Lua (module "Transform"; worlds are light userdata, entities their id as a number):
 *   Transform.local_position(world, e) -> x, y, z    Transform.set_local_position(world, e, x, y, z)
 *   Transform.local_rotation(world, e) -> x, y, z, w Transform.set_local_rotation(world, e, x, y, z, w)
 *   Transform.local_scale(world, e) -> x, y, z       Transform.set_local_scale(world, e, x, y, z)
 *   Transform.world_position(world, e) -> x, y, z    Transform.world_rotation(world, e) -> x, y, z, w
 *   Transform.link(world, child, parent)             Transform.unlink(world, child)
 *   Transform.destroy_tree(world, e) -> number of entities destroyed (see destroy_tree in v3;
 *   Entity.destroy(e) is the one-entity call)
 * An entity without a transform in that world raises a Lua error naming it; an id that is not a
 * whole number (1.5) is refused the same way World and Entity refuse it.
 *
 * Threads: main thread only (like spawning and entity destruction that call into it).
 *
 * Hot reload. ct_transforms.so can be rebuilt while the game runs (see ct_plugin.h): every world's
 * transforms carry over untouched (the managers belong to the worlds), the "transform" component
 * type and the Transform.* Lua functions switch to the new code, and the tables keep their
 * addresses. A build whose internal state or manager layout differs (the module's
 * TRANSFORMS_LAYOUT_VERSION) is refused, with the reason logged, and the old code keeps running:
 * restart to use it.
 */
#ifndef CT_TRANSFORM_H
#define CT_TRANSFORM_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_TRANSFORM_API 0xf4c3733eu /* "ct.transform" */

/* The component type name registered with ct_component_api_v1. */
#define CT_TRANSFORM_COMPONENT_NAME "transform"

/* Declared in ct_entity.h; repeated here (identical typedefs are allowed in C11) so this header
 * stands alone. */
typedef struct ct_entity_t ct_entity_t;
typedef struct ct_world_o ct_world_o;

/* A transform instance in one world's manager. 0 is "none". See "Instance handles" above. */
typedef struct ct_transform_t {
    uint32_t i;
} ct_transform_t;

/* The limits of "Valid poses" above. */
#define CT_TRANSFORM_MAX_POSITION 1e9f
#define CT_TRANSFORM_MIN_SCALE 1e-6f
#define CT_TRANSFORM_MAX_SCALE 1e6f

/* A local pose. rotation is a unit quaternion (x y z w). The identity is
 * { {0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1} }. */
typedef struct ct_transform_pose_t {
    float position[3]; /* relative to the parent */
    float rotation[4]; /* x y z w */
    float scale[3];    /* per axis, within CT_TRANSFORM_MIN_SCALE .. MAX_SCALE */
} ct_transform_pose_t;

/* Affine 3x4, row-major: the top three rows of a 4x4 whose last row is (0 0 0 1). Element (row r,
 * column c) is m[4 * r + c]; columns 0..2 are the x, y and z axes (scaled), column 3 the
 * translation (m[3], m[7], m[11]). A point p maps to row_r . (p.x, p.y, p.z, 1). Rows of four
 * floats let the multiply use 4-wide vector arithmetic. */
typedef struct ct_transform_matrix_t {
    float m[12];
} ct_transform_matrix_t;

/* Version 1: part 3's single-instance API. Frozen. */
typedef struct ct_transform_api_v1 {
    /* Gives entity e a transform in `world` with the local pose `local` (NULL: identity), as a
     * root. Returns {0} (logged) if e is dead, already has one there, or memory ran out. */
    ct_transform_t (*create)(ct_world_o *world, ct_entity_t e, const ct_transform_pose_t *local);
    /* Removes an instance; its children become roots keeping their world pose. Invalidates
     * instance handles of that world (see above). */
    void (*destroy)(ct_world_o *world, ct_transform_t i);
    /* The instance of entity e in `world`, or {0}. */
    ct_transform_t (*lookup)(ct_world_o *world, ct_entity_t e);
    /* The entity owning an instance ({0} for an invalid handle). */
    ct_entity_t (*entity)(ct_world_o *world, ct_transform_t i);
    /* Number of instances in the world's manager. */
    uint32_t (*count)(ct_world_o *world);

    /* The local pose exactly as last set; its matrix; the world matrix. */
    ct_transform_pose_t (*local)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*local_matrix)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*world_matrix)(ct_world_o *world, ct_transform_t i);
    /* Sets the local pose and updates the world matrices of i and its subtree at once. */
    void (*set_local)(ct_world_o *world, ct_transform_t i, const ct_transform_pose_t *local);

    /* Links child under parent (keeping the child's local pose; a child already linked elsewhere
     * is moved). Refused (logged) when parent is child or one of its descendants. */
    void (*link)(ct_world_o *world, ct_transform_t child, ct_transform_t parent);
    /* Makes child a root keeping its world pose. A root is left alone. */
    void (*unlink)(ct_world_o *world, ct_transform_t child);

    /* Walking the graph: children of p are first_child(p), then next_sibling(...) until {0}. */
    ct_transform_t (*parent)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*first_child)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*next_sibling)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*prev_sibling)(ct_world_o *world, ct_transform_t i);
} ct_transform_api_v1;

/* Version 2: everything of v1 (same order, same meaning), the batched setter and per-entity world
 * pose access for systems that own world positions (physics). */
typedef struct ct_transform_api_v2 {
    ct_transform_t (*create)(ct_world_o *world, ct_entity_t e, const ct_transform_pose_t *local);
    void (*destroy)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*lookup)(ct_world_o *world, ct_entity_t e);
    ct_entity_t (*entity)(ct_world_o *world, ct_transform_t i);
    uint32_t (*count)(ct_world_o *world);
    ct_transform_pose_t (*local)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*local_matrix)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*world_matrix)(ct_world_o *world, ct_transform_t i);
    void (*set_local)(ct_world_o *world, ct_transform_t i, const ct_transform_pose_t *local);
    void (*link)(ct_world_o *world, ct_transform_t child, ct_transform_t parent);
    void (*unlink)(ct_world_o *world, ct_transform_t child);
    ct_transform_t (*parent)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*first_child)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*next_sibling)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*prev_sibling)(ct_world_o *world, ct_transform_t i);

    /* Sets locals[k] on instances[k] for k < n, then updates world matrices in one pass: each
     * changed subtree once, parents before children. The result equals calling set_local n times
     * in order (a repeated instance takes its last pose) at O(n + nodes below) cost. Invalid
     * handles are skipped (logged). */
    void (*set_local_batch)(ct_world_o *world, const ct_transform_t *instances,
                            const ct_transform_pose_t *locals, uint32_t n);

    /* World position / rotation of entity e's transform in `world`. Return false (out untouched)
     * when e has none there. */
    bool (*world_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    bool (*world_rotation)(ct_world_o *world, ct_entity_t e, float out[4]);
    /* Moves / turns e so that its world position / rotation becomes the given one (its local
     * pose is solved through the parent's world matrix; the subtree follows at once). Return
     * false when e has no transform there or the value is refused ("Valid poses"; a rotation
     * that is not of unit length is normalised). */
    bool (*set_world_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    bool (*set_world_rotation)(ct_world_o *world, ct_entity_t e, const float rotation[4]);
} ct_transform_api_v2;

/* Version 3: everything of v2 (same order, same meaning) and destroying a whole hierarchy. */
typedef struct ct_transform_api_v3 {
    ct_transform_t (*create)(ct_world_o *world, ct_entity_t e, const ct_transform_pose_t *local);
    void (*destroy)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*lookup)(ct_world_o *world, ct_entity_t e);
    ct_entity_t (*entity)(ct_world_o *world, ct_transform_t i);
    uint32_t (*count)(ct_world_o *world);
    ct_transform_pose_t (*local)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*local_matrix)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*world_matrix)(ct_world_o *world, ct_transform_t i);
    void (*set_local)(ct_world_o *world, ct_transform_t i, const ct_transform_pose_t *local);
    void (*link)(ct_world_o *world, ct_transform_t child, ct_transform_t parent);
    void (*unlink)(ct_world_o *world, ct_transform_t child);
    ct_transform_t (*parent)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*first_child)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*next_sibling)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*prev_sibling)(ct_world_o *world, ct_transform_t i);
    void (*set_local_batch)(ct_world_o *world, const ct_transform_t *instances,
                            const ct_transform_pose_t *locals, uint32_t n);
    bool (*world_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    bool (*world_rotation)(ct_world_o *world, ct_entity_t e, float out[4]);
    bool (*set_world_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    bool (*set_world_rotation)(ct_world_o *world, ct_entity_t e, const float rotation[4]);

    /* Destroys entity e and every entity linked below it in `world`'s graph, in one
     * ct_entity_api_v2.destroy_batch (so every component of every world hears of them at once).
     * Returns how many entities were destroyed (0 for a dead e, logged). Which to use:
     *   ct_entity_api.destroy(e)   one entity; its children here become roots keeping their
     *                              world pose (a rider thrown off a horse, a dropped item);
     *   destroy_tree(world, e)     a unit or anything spawned with children (a vehicle with its
     *                              wheels, a character with attachments): nothing is left behind.
     * The hierarchy is this world's: links in other worlds are not followed. */
    uint32_t (*destroy_tree)(ct_world_o *world, ct_entity_t e);
} ct_transform_api_v3;

/* Version 4: everything of v3 (same order, same meaning) and a change counter. This is the
 * manual of the whole table: every member is documented here. */
typedef struct ct_transform_api_v4 {
    /* Gives entity e a transform in `world` with the local pose `local` (NULL: identity), as a
     * root. Returns {0} (logged) if e is dead, already has one there, or memory ran out. */
    ct_transform_t (*create)(ct_world_o *world, ct_entity_t e, const ct_transform_pose_t *local);
    /* Removes an instance; its children become roots keeping their world pose. Invalidates
     * instance handles of that world (see above). */
    void (*destroy)(ct_world_o *world, ct_transform_t i);
    /* The instance of entity e in `world`, or {0}. */
    ct_transform_t (*lookup)(ct_world_o *world, ct_entity_t e);
    /* The entity owning an instance ({0} for an invalid handle). */
    ct_entity_t (*entity)(ct_world_o *world, ct_transform_t i);
    /* Number of instances in the world's manager. */
    uint32_t (*count)(ct_world_o *world);
    /* The local pose exactly as last set; its matrix; the world matrix. */
    ct_transform_pose_t (*local)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*local_matrix)(ct_world_o *world, ct_transform_t i);
    ct_transform_matrix_t (*world_matrix)(ct_world_o *world, ct_transform_t i);
    /* Sets the local pose and updates the world matrices of i and its subtree at once. */
    void (*set_local)(ct_world_o *world, ct_transform_t i, const ct_transform_pose_t *local);
    /* Links child under parent (keeping the child's local pose; a child already linked elsewhere
     * is moved). Refused (logged) when parent is child or one of its descendants. */
    void (*link)(ct_world_o *world, ct_transform_t child, ct_transform_t parent);
    /* Makes child a root keeping its world pose. A root is left alone. */
    void (*unlink)(ct_world_o *world, ct_transform_t child);
    /* Walking the graph: children of p are first_child(p), then next_sibling(...) until {0}. */
    ct_transform_t (*parent)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*first_child)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*next_sibling)(ct_world_o *world, ct_transform_t i);
    ct_transform_t (*prev_sibling)(ct_world_o *world, ct_transform_t i);
    /* Sets locals[k] on instances[k] for k < n, then updates world matrices in one pass: each
     * changed subtree once, parents before children. The result equals calling set_local n times
     * in order (a repeated instance takes its last pose) at O(n + nodes below) cost. Invalid
     * handles are skipped (logged). */
    void (*set_local_batch)(ct_world_o *world, const ct_transform_t *instances,
                            const ct_transform_pose_t *locals, uint32_t n);
    /* World position / rotation of entity e's transform in `world`. Return false (out untouched)
     * when e has none there. */
    bool (*world_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    bool (*world_rotation)(ct_world_o *world, ct_entity_t e, float out[4]);
    /* Moves / turns e so that its world position / rotation becomes the given one (its local
     * pose is solved through the parent's world matrix; the subtree follows at once). Return
     * false when e has no transform there or the value is refused ("Valid poses"; a rotation
     * that is not of unit length is normalised). */
    bool (*set_world_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    bool (*set_world_rotation)(ct_world_o *world, ct_entity_t e, const float rotation[4]);
    /* Destroys entity e and every entity linked below it in `world`'s graph, in one
     * ct_entity_api_v2.destroy_batch; returns how many were destroyed (0 for a dead e, logged).
     * See Version 3 for when to use it rather than ct_entity_api.destroy. */
    uint32_t (*destroy_tree)(ct_world_o *world, ct_entity_t e);

    /* A number that goes up whenever any world matrix of `world` may have changed or an instance
     * was created, destroyed, linked or unlinked there (0 for a world without transforms). A
     * system that mirrors world poses (physics) reads it after writing its own and skips reading
     * them all back when it has not moved since: a world at rest then costs it nothing. */
    uint64_t (*changes)(ct_world_o *world);
} ct_transform_api_v4;

#ifdef __cplusplus
}
#endif
#endif
