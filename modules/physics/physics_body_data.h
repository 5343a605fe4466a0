/*
 * physics_body_data.h: a compiled "body" component (format 5), shared by the component's glue
 * (physics_component.c) and the shapes of body sources (physics_body_shapes.c).
 *
 * An instance is of variable size (CT_COMPONENT_VARIABLE_SIZE, ct_entity.h): a fixed head, then
 * what its shape needs and no more:
 *
 *   physics__body_head                     size (of the whole instance), the desc, the filter,
 *                                          flags, count and points (see below), damping
 *   box, sphere, capsule: nothing          count 0, points 0
 *   mesh:     char name[count]             the collision_mesh's name with its NUL, count 2 to 64
 *   hull:     float xyz[3 * count]         its points, count 4 to 64 (the body's frame)
 *   compound: physics__body_child[count]   count 1 to PHYSICS_BODY_MAX_CHILDREN
 *             float xyz[3 * points]        the hull children's points, child after child
 *
 * Formats 3 (the head's desc, a 64-byte mesh name, the filter and the flags, fixed at 184 bytes)
 * and 4 (this layout without the damping) are not read: levels and units compiled with them are
 * refused with "recompile" and cuttle-compile compiles them again
 * (ct_resource_api_v6.declare_format).
 */
#ifndef PHYSICS_BODY_DATA_H
#define PHYSICS_BODY_DATA_H

#include "physics_internal.h"

#define PHYSICS_BODY_SENSOR 1u /* physics__body_head.flags: a sensor (v5 set_sensor) */

/* A compound in a source has at most this many children (C and Lua take 64): a table, a chair or
 * a cart needs a handful, and it bounds what one body costs to check at load (its hulls are
 * built) and to collide (every pair of children). */
#define PHYSICS_BODY_MAX_CHILDREN 16u

typedef struct physics__body_head {
    uint32_t size; /* bytes of the instance, this head included */
    ct_rigid_body_desc_t desc;
    uint32_t layer, mask; /* the collision filter; default 1 and all bits */
    uint32_t flags;       /* PHYSICS_BODY_SENSOR, or 0 */
    uint32_t count;       /* mesh: name bytes; hull: points; compound: children; else 0 */
    uint32_t points;      /* compound: its hull children's points in all; else 0 */
    float linear_damping, angular_damping; /* 1/s (v5 set_damping); default 0 */
} physics__body_head;

/* One child of a compound, in the body's frame (ct_compound_child_t without the pointer). */
typedef struct physics__body_child {
    uint32_t shape; /* CT_BODY_BOX, CT_BODY_SPHERE, CT_BODY_CAPSULE or CT_BODY_HULL */
    float half_extents[3];
    float radius;
    float half_height;
    float position[3];
    float rotation[4];
    uint32_t point_count; /* hull: how many of the compound's points are its own; else 0 */
} physics__body_child;

/* The largest instance: a compound of PHYSICS_BODY_MAX_CHILDREN hulls of 64 points. */
#define PHYSICS_BODY_MAX_BYTES                                                                     \
    ((uint32_t)(sizeof(physics__body_head) +                                                       \
                PHYSICS_BODY_MAX_CHILDREN * sizeof(physics__body_child) +                          \
                PHYSICS_BODY_MAX_CHILDREN * CT_PHYSICS_MAX_HULL_POINTS * 12u))

/* Compiles `shape = { type = "mesh" | "hull" | "compound" ... }` into the head's desc.shape,
 * count and points and the tail after the head (room for PHYSICS_BODY_MAX_BYTES in all), and
 * sets head->size. False when the source is refused (reported, naming body.shape...). */
bool physics__body_shape_compile(const ct_data_o *shape, physics__body_head *head, uint8_t *tail,
                                 ct_compile_ctx_o *ctx);

/* What is wrong with a compiled instance's shape (its head's size, count and points against its
 * desc.shape, and everything in the tail), or NULL; why gets "shape.children[1].points (...)"
 * when a message needs building. The desc's other fields are checked by the caller. */
const char *physics__body_shape_error(const physics__body_head *head, const uint8_t *tail,
                                      char *why, size_t why_size);

/* Adds a mesh, hull or compound body (a checked instance) to e, desc placed where it spawns.
 * Logs what it refuses naming the world, the entity and the field; 0 or a negative ct_error. */
int physics__body_shape_spawn(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc,
                              const physics__body_head *head, const uint8_t *tail);

#endif
