/*
 * ct_physics.h: point masses and colliding bodies. API "ct.physics", served by modules/physics
 * (ct_physics.so).
 *
 * Two component types, registered with ct_component_api_v1 in every world:
 *
 *   "point_mass"  the seed's part 2 component: mass, position, velocity and an acceleration that
 *                 works as a force accumulator. simulate() makes one linear pass over them:
 *                 v += a * dt; x += v * dt; a = 0. No gravity, no collisions, no transforms:
 *                 a point mass owns its position outright (spawning takes the entity's world
 *                 position once).
 *   "body"        a sphere or an axis-aligned box that collides (v2) and translates only, which
 *                 is what lets stacks rest cheaply and exactly; from v4 a body may also rotate
 *                 (oriented boxes, spheres and capsules with orientation, spin and inertia: see
 *                 Version 4), and a world with any rotating body is solved by the rigid solver.
 *
 * Who owns a body's position, and when it is synced with the entity's transform (ct_transform.h):
 *   - Between steps the TRANSFORM is the truth. simulate() starts by reading the world position
 *     of every body's entity: static and kinematic bodies take it as they are; a dynamic body
 *     takes it only if it differs from what physics wrote last (the game teleported it).
 *   - During simulate() PHYSICS owns positions. The step ends by writing every dynamic and
 *     kinematic body's position into its entity's transform (set_world_position).
 *   - An entity without a transform is simulated all the same; its position is then read and set
 *     only through this API (position / teleport).
 *
 * Kinds: static bodies never move; kinematic bodies move by the velocity you give them and push
 * dynamic ones without being pushed back; dynamic bodies have mass, feel gravity (default
 * 0, -9.81, 0), forces, contacts, restitution and friction.
 *
 * Contacts are solved with sequential impulses (warm started from the previous step) and a
 * position pass that removes penetration without adding velocity. Fast bodies do not tunnel:
 * a pair whose motion in this step brings it together gets a speculative contact that stops it
 * at the surface (two boxes push along the axis that closes); bodies that only pass near each
 * other are untouched. Behind them, continuous collision: after each step, a dynamic body whose
 * velocities carried it more than half of its thinnest half size is swept from where it started
 * to where it ended (moving and turning) against the static and sleeping bodies on its way, and
 * put back where it first came within 5 mm of one, keeping its velocities (the next step's
 * contact stops or bounces it there). A body that ends the step touching what it met, or that
 * started touching it and went no deeper than a quarter of its thinnest half size, is left where
 * the solver put it. So a 250 m/s bullet, spinning or not, does not pass a 2 cm wall; fast bodies
 * are not swept against other awake dynamic bodies. Restitution uses the larger of the two
 * bodies' values and acts only where the shapes touch (a body stopped at the surface bounces in
 * the next step with the speed it came in with); friction uses the geometric mean and is a cone
 * (the same limit in every direction).
 *
 * Events. Each world's step writes one event stream (ct_physics_api_v2.events): a blob of
 * [ct_physics_event_header_t][event bytes]... valid until the next simulate() of that world.
 * A consumer walks it with ct_physics_event_next() and skips types it does not know by their
 * size; new event types may appear in later versions. Nothing is dispatched globally.
 * Script callbacks: for entities that asked (World.set_callback(world, e, "on_collision", fn),
 * see ct_world.h) the step also queues fn(e, other, x, y, z, nx, ny, nz, impulse) for both bodies
 * of every new collision on the world's callback queue (the normal points from the other body
 * towards e: the way e is pushed), and fn(e, other) for "on_contact_ended"; scripts run them with
 * World.run_callbacks(world), never from inside the solver.
 *
 * Determinism: the same bodies (same entity ids, same values) give bit-identical results on the
 * same build, whatever order they were added in: contacts are solved in entity-pair order.
 * state_hash() digests positions and velocities of bodies and point masses sorted by entity,
 * of live entities only: a dead entity's point mass waiting for collection does not count.
 *
 * Bad data is refused: every number must lie in its range (see Ranges below). Compiling names the
 * field (compile_error); spawning a level or unit checks every instance again (a blob can be
 * edited after it was compiled) and skips a bad one naming the entity and field; setters log the
 * world, entity and field and return CT_ERR_INVALID. Calls naming an entity without that
 * component (or a dead one) return CT_ERR_NOT_FOUND and change nothing.
 *
 * Resources (under `components` of an entity):
 *   point_mass = { mass = 2 velocity = [0 0 0] }
 *   body = { shape = "box" half_extents = [0.5 0.5 0.5] mass = 1 restitution = 0.2 friction = 0.5
 *            kind = "dynamic" velocity = [0 0 0] }          (shape = "sphere" takes radius = r)
 *   v4: rotates = true (the body turns: a rigid body, see Version 4; without it a body translates
 *       only, as every body did before v4, so older levels behave as they did),
 *       shape = "capsule" with radius and half_height (the segment along local y),
 *       angular_velocity = [x y z] (rad/s), inertia = [ix iy iz] (principal moments; default from
 *       shape and mass), lock = ["x" "y" "z" "rotate_x" "rotate_y" "rotate_z"] (any of them).
 *       The rotation is the entity's transform's.
 *   v5: sensor = true makes a static or kinematic body a sensor (see set_sensor; a dynamic one is
 *       refused); layer = 2 mask = 5 set its collision filter (see Collision filters: whole
 *       numbers from 0 to 4294967295; default layer 1, mask 4294967295), a sensor's being the one
 *       it sees with: a level's trigger volume is
 *       body = { kind = "static" shape = "box" half_extents = [1 0.5 1] sensor = true mask = 1 }
 *       and reports CT_PHYSICS_EVENT_SENSOR_ENTER / _LEAVE and on_sensor_enter / on_sensor_leave.
 *   v5: shape = { type = "mesh" mesh = "meshes/terrain" } (kind = "static" only): the triangles
 *       of the collision_mesh resource of that name, placed by the entity's transform (as
 *       add_mesh_body). Its source, meshes/terrain.collision_mesh, names one of the project's
 *       mesh resources (mesh = "meshes/terrain"); compiling it reads that mesh's source
 *       (meshes/terrain.mesh: its OBJ or glTF file, and gltf_mesh) through formats/, so the body
 *       collides with what is drawn. A glTF file's default scene is baked with its nodes'
 *       transforms; line and point primitives and triangles of no area are left out; a mesh
 *       with no triangle left, a skinned mesh, or a name with no resource fails the compile
 *       naming the field. Renaming the mesh (cuttle-deps mv) is followed, and a changed .mesh,
 *       OBJ, glTF or .bin compiles the collision mesh again. A body whose collision mesh does
 *       not load is skipped at spawn, naming the world, the entity and body.shape.mesh.
 *   v5: shape = { type = "hull" points = [ [x y z] [x y z] ... ] }: the convex hull of 4 to 64
 *       points in the entity's frame (as add_hull_body, see Hulls);
 *       shape = { type = "compound" children = [ { shape = { type = "box" half_extents = [x y z] }
 *       position = [x y z] rotation = [x y z w] } ... ] }: 1 to 16 children (C and Lua take 64),
 *       each a box (half_extents), sphere (radius), capsule (radius, half_height; sizes 0.5 when
 *       left out) or hull (points), placed by position (default 0) and rotation (unit, default
 *       none) in the body's frame (as add_compound_body, see Compounds). A compound in a
 *       compound is refused (list its children in the outer one). As in C, the body's position
 *       is its centre of mass: the entity's transform is where the shape's volume balances (a
 *       frustum given with its base at y = 0 sits on the ground when its entity is placed at its
 *       centroid's height). Sizes on the body itself (half_extents, radius, half_height) are
 *       refused for mesh, hull and compound bodies. The compiler runs every check of
 *       add_hull_body and add_compound_body (degenerate, coplanar, duplicate-only and
 *       non-finite points, sizes, rotations) naming the source's field
 *       ("body.shape.children[2].shape.points (coplanar: ...)"), and loading runs them again on
 *       the compiled bytes, so an edited blob is refused naming the field. Compiled bodies are of
 *       variable size (component format 5, ct_entity.h's CT_COMPONENT_VARIABLE_SIZE): a box
 *       takes 144 bytes in a level (184 in format 3), a 64-point hull 912; levels compiled with
 *       format 3 or 4 are refused with "recompile" (cuttle-compile compiles them again).
 *       Actor.shape reads the kind back.
 *   v5: linear_damping = 0.5 angular_damping = 0.05 (1/s, each within [0, 1e3], default 0): the
 *       body's damping (see set_damping: a crate in water, a wheel that settles).
 * Defaults: mass 1, restitution 0, friction 0.5, kind "dynamic", velocity 0, half_height 0.5.
 *   force_field = { radius = 6 force = "r = sqrt(x*x + z*z) + 0.5; fx = -z / r * 40; fy = 60; fz = x / r * 40" }
 *       (with ct.expr loaded) a force on every dynamic or kinematic body inside the sphere around
 *       the entity, an expression (ct_expr.h) setting fx fy fz from x y z (the body relative to
 *       the field), vx vy vz, d (distance), t (the field's age) and dt; evaluated for all of a
 *       field's bodies in one batch and added before each step (at most 4096 bodies a field).
 *       A bad expression fails the compile with the entity, the field and line:column.
 *   joint = { type = "hinge" to = "frame" anchor = [-0.5 0 0] axis = [0 1 0] lower = -1.2 upper = 0 }
 *       (v4) a joint (see Joints) holding the entity's body to the body of the entity of the same
 *       spawn (level or unit copy) whose debug name is `to`, or to the world without `to`; one
 *       joint per entity (each part of a ragdoll, a chain or a door names what it hangs from).
 *       type is fixed, hinge, ball, slider or distance; anchor (default [0 0 0]) and axis
 *       (default [0 1 0]) are in the entity's own frame, anchor_b (distance) in `to`'s, or in the
 *       spawn's root frame for the world. Writing lower/upper (both, except for a ball) or
 *       cone_angle turns the limit on (a ball's missing bounds are free); motor_speed or
 *       max_motor_force the motor; also length, spring_hertz, spring_damping, collide = true.
 *       Spawned after the debug names; a `to` naming no entity of the spawn, or an entity without
 *       a body, skips the joint with a message naming the world, the entity and the field.
 *       Removing the component removes the joint; joint_of (v5) and Physics.joint_of(world, e)
 *       find it.
 *
 * Lua (worlds are light userdata, entities their id as a number):
 *   Physics.simulate(world, dt)
 *   Physics.overlap_sphere(world, x, y, z, r) -> { e1, e2, ... } sorted by entity id
 *   Physics.raycast(world, x, y, z, dx, dy, dz, max_distance) -> e, distance, hx, hy, hz | nil
 *   Physics.state_hash(world) -> hexadecimal string   Physics.set_gravity(world, x, y, z)
 *   Actor.set_velocity(world, e, x, y, z)   Actor.velocity(world, e) -> x, y, z
 *   Actor.add_force(world, e, x, y, z)      Actor.teleport(world, e, x, y, z)
 *   Actor.position(world, e) -> x, y, z
 *   Physics.overlap_sphere and Physics.raycast take an optional mask as their last argument (v3);
 *   Actor.set_collision_filter(world, e, layer, mask)  Actor.sleeping(world, e) -> boolean
 *   Actor.wake(world, e)
 *   v4: Actor.rotation(world, e) -> x, y, z, w          Actor.set_rotation(world, e, x, y, z, w)
 *   Actor.angular_velocity(world, e) -> x, y, z         Actor.set_angular_velocity(world, e, x, y, z)
 *   Actor.add_torque(world, e, x, y, z)
 *   Actor.add_impulse_at(world, e, jx, jy, jz, px, py, pz)  (N s at a world point)
 *   Actor.add_force_at(world, e, fx, fy, fz, px, py, pz)
 *   Physics.add_joint(world, a, b, type, { anchor = {x, y, z}, anchor_b, axis, lower, upper,
 *       cone_angle, motor_speed, max_motor_force, length, spring_hertz, spring_damping, limit,
 *       motor, collide }) -> joint id      (b 0: the world; type "fixed", "hinge", "ball",
 *       "slider" or "distance"; lower, upper or cone_angle turn the limit on, motor_speed or
 *       max_motor_force the motor; see Joints)
 *   Physics.remove_joint(world, j)   Physics.joint_value(world, j) -> value
 *   Physics.joint_force(world, j) -> fx, fy, fz, tx, ty, tz
 *   Physics.set_joint_motor(world, j, speed, max_force)
 *   Physics.joint_of(world, e) -> the joint its "joint" component made, or nil
 *   v5: Physics.add_hull(world, e, {x1, y1, z1, ...}, desc)
 *   Physics.add_compound(world, e, { {shape = "box" | "sphere" | "capsule" | "hull", half_extents,
 *       radius, half_height, points, position, rotation}, ... }, desc)
 *   Physics.add_mesh(world, e, vertices, indices (1-based), desc)
 *   Physics.add_height_field(world, e, heights, columns, rows, cell_x, cell_z, desc)
 *       (desc = {kind, mass, friction, restitution, position, rotation}, optional; meshes and
 *       height fields are static; see Hulls, Compounds, Meshes)
 *   Actor.shape(world, e) -> "box" | "sphere" | "capsule" | "hull" | "compound" | "mesh"
 *       (the kind of e's body however it was made; an entity without a body raises)
 *   Physics.shape_cast(world, {shape = "box" | "sphere" | "capsule", half_extents, radius,
 *       half_height, rotation}, x, y, z, dx, dy, dz, mask) -> e, distance, px, py, pz, nx, ny, nz
 *       | nil (optional mask; the first body the shape meets swept by (dx, dy, dz); Lua only for
 *       now, a C member is to come)
 *   Physics.add_character(world, e, { radius, half_height, max_step, max_slope, position = {x, y, z} })
 *   Physics.move_character(world, e, vx, vy, vz, dt) -> grounded, ground, x, y, z, vx, vy, vz
 *       (see Characters)
 *   Physics.set_character_settings(world, e, { max_step, max_slope, step_down, mass,
 *       max_strength })   (fields left out keep their values; add_character's table takes them
 *       too)   Physics.character_settings(world, e) -> that table (see Character settings)
 *   Actor.set_damping(world, e, linear, angular)   Actor.damping(world, e) -> linear, angular
 *       (1/s; see set_damping)
 * Unknown entities raise a Lua error naming them; refused values raise one naming the field.
 *
 * Hot reload. ct_physics.so can be rebuilt while the game runs (see ct_plugin.h): every world's
 * bodies, point masses, contacts (with their warm-start impulses), pending forces, gravity and
 * last event stream carry over, so a step after the reload continues bit-identically; scripts'
 * on_collision callbacks and references to Physics.* and Actor.* keep working, and the tables
 * above keep their addresses. The new code takes over the "point_mass" and "body" component types.
 * A build whose internal state layout differs (the module's PHYSICS_LAYOUT_VERSION) is refused,
 * with the reason logged, and the old code keeps running: restart to use it.
 *
 * Threads: main thread only. simulate() may spread its larger loops (the grid, the contact
 * passes of steps with 2,048 contacts or more) over the ct.jobs pool when the kernel has one;
 * results are bit-identical with or without it.
 */
#ifndef CT_PHYSICS_H
#define CT_PHYSICS_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_PHYSICS_API 0x5e5b7b4cu /* "ct.physics" */

#define CT_PHYSICS_POINT_MASS_COMPONENT_NAME "point_mass"
#define CT_PHYSICS_BODY_COMPONENT_NAME "body"
#define CT_PHYSICS_JOINT_COMPONENT_NAME "joint" /* joints as data (see Resources) */

/* Declared in ct_entity.h; repeated so this header stands alone. */
typedef struct ct_entity_t ct_entity_t;
typedef struct ct_world_o ct_world_o;

/* ---- Ranges -------------------------------------------------------------------------------
 * Every number that enters physics (descs, setters, compiled and loaded data, Lua, and the
 * transforms it reads at the start of a step) is checked against these; what is outside is
 * refused with a message naming the world, the entity and the field, and nothing changes. NaN
 * and infinities are outside every range. Inside them the arithmetic of a step cannot overflow
 * (an inverse mass, -separation / dt, a cell count). During a step speeds are clamped to
 * CT_PHYSICS_MAX_SPEED, and a body pushed past CT_PHYSICS_MAX_POSITION stops at the border (its
 * velocity along that axis dropped) with a warning naming the world and the entity. */
#define CT_PHYSICS_MAX_POSITION 1.0e5f /* m, each coordinate of a body or point mass */
#define CT_PHYSICS_MAX_SPEED 1.0e4f    /* m/s, the length of a velocity */
#define CT_PHYSICS_MIN_SIZE 1.0e-3f    /* m, a half extent or radius */
#define CT_PHYSICS_MAX_SIZE 1.0e4f
#define CT_PHYSICS_MIN_MASS 1.0e-6f /* kg, a dynamic body or point mass */
#define CT_PHYSICS_MAX_MASS 1.0e9f
#define CT_PHYSICS_MIN_DT 1.0e-5f /* s, simulate()'s step */
#define CT_PHYSICS_MAX_DT 1.0f
#define CT_PHYSICS_MAX_FORCE 1.0e12f        /* N, each component of a force */
#define CT_PHYSICS_MAX_GRAVITY 1.0e4f       /* m/s^2, each component */
#define CT_PHYSICS_MAX_FRICTION 100.0f      /* friction coefficient; restitution is in [0, 1] */
#define CT_PHYSICS_MAX_ANGULAR_SPEED 1.0e3f /* rad/s, the length of an angular velocity (v4) */
#define CT_PHYSICS_MAX_TORQUE 1.0e12f       /* N m, each component of a torque (v4) */
#define CT_PHYSICS_MIN_INERTIA 1.0e-9f      /* kg m^2, a principal moment given in a desc (v4) */
#define CT_PHYSICS_MAX_INERTIA 1.0e15f
#define CT_PHYSICS_MAX_DAMPING 1.0e3f /* 1/s, a linear or angular damping (v5 set_damping) */

/* ---- Event streams ---------------------------------------------------------------------- */

/* Every event is preceded by this header. `size` is the byte size of the event that follows
 * (not counting the header); events start 4-byte aligned. */
typedef struct ct_physics_event_header_t {
    uint32_t type; /* CT_PHYSICS_EVENT_* */
    uint32_t size;
} ct_physics_event_header_t;

/* The event types of a physics event stream (ct_physics_event_header_t.type). */
enum {
    /* Two bodies started touching this step (ct_physics_collision_event_t). */
    CT_PHYSICS_EVENT_COLLISION = 1,
    /* Two bodies that touched at the end of the previous step no longer do, or one of them is
     * gone (ct_physics_contact_ended_event_t). */
    CT_PHYSICS_EVENT_CONTACT_ENDED = 2,
    /* A body came into a sensor this step (ct_physics_sensor_event_t; v5 set_sensor). */
    CT_PHYSICS_EVENT_SENSOR_ENTER = 3,
    /* A body that was in a sensor at the end of the previous step no longer is, or is gone
     * (ct_physics_sensor_event_t). */
    CT_PHYSICS_EVENT_SENSOR_LEAVE = 4,
};

/* Bodies a and b (a's id < b's id) started touching: their shapes are within 2 mm of each other
 * at the end of this step and press on each other (bodies that only came near, or passed by, make
 * no event), or the continuous collision stopped a fast body at the other (a "sweep
 * hit", reported once, after the contacts' events; it counts as touching until a contact takes
 * the pair over or they part, which a CT_PHYSICS_EVENT_CONTACT_ENDED reports). `normal` points
 * from a to b, `point` is on the contact surface, `impulse` the normal impulse (N s) of this step
 * (a sweep hit's: of the hit), `speed` the closing speed (m/s) they came in with. */
typedef struct ct_physics_collision_event_t {
    uint32_t a, b; /* entity ids */
    float point[3];
    float normal[3];
    float impulse;
    float speed;
} ct_physics_collision_event_t;

/* Bodies `a` and `b` (entity ids, a < b) stopped touching. */
typedef struct ct_physics_contact_ended_event_t {
    uint32_t a, b;
} ct_physics_contact_ended_event_t;

/* Body `other` entered or left sensor `sensor` (entity ids). */
typedef struct ct_physics_sensor_event_t {
    uint32_t sensor, other;
} ct_physics_sensor_event_t;

/* Walks a stream: returns the header at *offset and advances *offset past its event, or NULL at
 * the end (or if the rest is truncated). The event bytes follow the header. Example:
 *     uint32_t size, at = 0;
 *     const uint8_t *s = physics->events(world, &size);
 *     for (const ct_physics_event_header_t *h; (h = ct_physics_event_next(s, size, &at));)
 *         if (h->type == CT_PHYSICS_EVENT_COLLISION) use((const void *)(h + 1));   */
static inline const ct_physics_event_header_t *
ct_physics_event_next(const void *stream, uint32_t size, uint32_t *offset)
{
    const uint32_t at = *offset;
    if (at > size || size - at < sizeof(ct_physics_event_header_t))
        return NULL;
    const ct_physics_event_header_t *h =
        (const ct_physics_event_header_t *)((const char *)stream + at);
    const uint32_t left = size - at - (uint32_t)sizeof *h;
    if (h->size > left)
        return NULL;
    *offset = at + (uint32_t)sizeof *h + ((h->size + 3u) & ~3u);
    return h;
}

/* ---- Descriptions ----------------------------------------------------------------------- */

typedef struct ct_point_mass_desc_t {
    float mass; /* finite and > 0 */
    float position[3];
    float velocity[3];
} ct_point_mass_desc_t;

/* How a body moves: by the solver (dynamic), never (static), or as the game sets it (kinematic:
 * velocities and teleports, unmoved by contacts). */
typedef enum ct_body_kind {
    CT_BODY_DYNAMIC = 0,
    CT_BODY_STATIC = 1,
    CT_BODY_KINEMATIC = 2,
} ct_body_kind;

/* A body's collision shape; each uses the desc's fields named beside it. */
typedef enum ct_body_shape {
    CT_BODY_BOX = 0,     /* half_extents; axis-aligned in v1-v3, oriented by the rotation in v4 */
    CT_BODY_SPHERE = 1,  /* radius */
    CT_BODY_CAPSULE = 2, /* v4 only: radius, half_height of the segment along the local y axis */
    CT_BODY_HULL = 3,    /* v5 only: a convex hull of points (add_hull_body; see Hulls) */
    CT_BODY_COMPOUND = 4, /* v5 only: several shapes in one body (add_compound_body; see Compounds) */
    CT_BODY_MESH = 5,     /* v5 only: static triangles (add_mesh_body, add_height_field_body; see
                           * Meshes) */
} ct_body_shape;

/* Motion locks of a v4 body (ct_rigid_body_desc_t.locks), along and about the WORLD axes: a locked
 * axis keeps its velocity component at zero whatever pushes it. v1-v3 bodies are bodies with
 * CT_BODY_LOCK_ROTATION and no rotation: they translate only, exactly as before v4. */
enum {
    CT_BODY_LOCK_LINEAR_X = 1u << 0,
    CT_BODY_LOCK_LINEAR_Y = 1u << 1,
    CT_BODY_LOCK_LINEAR_Z = 1u << 2,
    CT_BODY_LOCK_ANGULAR_X = 1u << 3,
    CT_BODY_LOCK_ANGULAR_Y = 1u << 4,
    CT_BODY_LOCK_ANGULAR_Z = 1u << 5,
    CT_BODY_LOCK_ROTATION = 7u << 3, /* all three angular locks */
    CT_BODY_LOCK_ALL = 63u,
};

/* A body. Every field is taken as written (no zero-means-default here: a zero mass is refused,
 * a zero friction is frictionless); resources get their defaults from the compiler. */
typedef struct ct_body_desc_t {
    uint32_t kind;  /* a ct_body_kind (fixed-width: an enum's size is the compiler's choice) */
    uint32_t shape; /* a ct_body_shape */
    float half_extents[3]; /* box: each finite and > 0 */
    float radius;          /* sphere: finite and > 0 */
    float mass;            /* dynamic: finite and > 0; ignored for static and kinematic */
    float restitution;     /* [0, 1] */
    float friction;        /* >= 0 */
    float position[3];     /* used when the entity has no transform */
    float velocity[3];     /* ignored for static bodies */
} ct_body_desc_t;

/* A v4 body: everything of ct_body_desc_t, plus orientation, spin, capsules, inertia and locks.
 * Zero means default only where said; every other field is taken as written. */
typedef struct ct_rigid_body_desc_t {
    uint32_t kind;         /* a ct_body_kind */
    uint32_t shape;        /* a ct_body_shape: box, sphere or capsule */
    float half_extents[3]; /* box: each within [CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE] m */
    float radius;          /* sphere and capsule: within the same range */
    float half_height;     /* capsule: half the length of its segment, within [0, MAX_SIZE] m */
    float mass;            /* dynamic: within [CT_PHYSICS_MIN_MASS, CT_PHYSICS_MAX_MASS] kg */
    float restitution;     /* [0, 1] */
    float friction;        /* [0, CT_PHYSICS_MAX_FRICTION] */
    float position[3];     /* used when the entity has no transform */
    float rotation[4];     /* x, y, z, w; all zero: identity. Else of length 1 within 1e-3 (it is
                            * normalised). Used when the entity has no transform */
    float velocity[3];     /* m/s; ignored for static bodies */
    float angular_velocity[3]; /* rad/s about the world axes, length at most
                                * CT_PHYSICS_MAX_ANGULAR_SPEED; ignored for static bodies */
    uint32_t locks;            /* CT_BODY_LOCK_* bits; 0: free in all six degrees */
    float inertia[3];          /* principal moments (kg m^2) about the body's own axes, each within
                            * [CT_PHYSICS_MIN_INERTIA, CT_PHYSICS_MAX_INERTIA]; all zero: from the
                            * shape and mass (a solid box, sphere or capsule of even density) */
} ct_rigid_body_desc_t;

/* One body's shape as a debug drawer needs it (ct_physics_api_v4.shapes). Every field is written. */
typedef struct ct_physics_shape_t {
    uint32_t entity;       /* entity id of the body */
    uint32_t shape;        /* a ct_body_shape: which of the sizes below apply */
    uint32_t kind;         /* a ct_body_kind */
    uint32_t sleeping;     /* 1 if the body sleeps (see Version 3), else 0; static bodies: 0 */
    float half_extents[3]; /* box: half extents along its own axes (m); hull and compound (v5):
                            * the largest distance of its corners (a compound's children's boxes)
                            * from its centre along each of its own axes; others: 0 */
    float radius;          /* sphere and capsule (m); box: 0 */
    float half_height;     /* capsule: half its segment, along its own y axis (m); others: 0 */
    float position[3];     /* world position of the centre (m), as physics last saw it */
    float rotation[4];     /* x, y, z, w, unit length: turns the shape's own axes into the world's
                            * (identity for bodies that translate only) */
} ct_physics_shape_t;

/* ---- Joints (v4) ---------------------------------------------------------------------------
 * A joint holds body a to body b, or to the world. It is made from the bodies' poses when it is
 * added: `anchor` and `axis` are given in world space and fixed in each body from then on, and
 * the bodies' relative rotation at that moment is the joint's rest rotation. What the joint
 * measures (joint_value) is a's motion against b, and what it reports (joint_force) is what it
 * puts on a: for a body hung from the world, its angle and what holds it up.
 *
 *   fixed     the anchors meet and the relative rotation stays the rest rotation (glue);
 *   hinge     the anchors meet; a turns about the axis only. Optional angle limit [lower, upper]
 *             (rad, from the rest rotation, right-handed about the axis, within [-pi, pi]) and
 *             motor (motor_speed rad/s, at most max_motor_force N m);
 *   ball      the anchors meet; a turns freely, or with CT_JOINT_LIMIT within a cone (a's axis
 *             tilts at most cone_angle from b's, rad, in [0, pi]) and a twist about the axis
 *             within [lower, upper] (rad, within [-pi, pi]): enough for a ragdoll's shoulders and
 *             hips;
 *   slider    the relative rotation stays the rest rotation and a's anchor moves only along the
 *             axis. Optional limit [lower, upper] (m, of a's anchor along the axis from b's)
 *             and motor (motor_speed m/s, at most max_motor_force N);
 *   distance  anchor on A and anchor_b on B stay `length` apart (0: their distance when added);
 *             with CT_JOINT_LIMIT only within [lower, upper] (m, a rope is lower 0); with
 *             spring_hertz > 0 a spring (spring_damping its damping ratio) pulls towards `length`
 *             instead of holding it, within the limit if one is set.
 *
 * Joints are solved with the contacts in the rigid solver's substeps (a world with a joint uses
 * the rigid solver), soft as Box2D v3's (60 Hz, damping ratio 2), after the contacts, in the
 * order they were added. What a joint pulls with is reported (joint_force), so a game can break
 * it: read the force after simulate() and remove the joint past a threshold.
 * Removing a body removes its joints. Joined bodies sleep and wake together, and do not collide
 * with each other unless the joint says CT_JOINT_COLLIDE. */
typedef enum ct_joint_type {
    CT_JOINT_FIXED = 0,
    CT_JOINT_HINGE = 1,
    CT_JOINT_BALL = 2,
    CT_JOINT_SLIDER = 3,
    CT_JOINT_DISTANCE = 4,
} ct_joint_type;

/* ct_joint_desc_t.flags */
enum {
    CT_JOINT_LIMIT = 1u << 0,   /* hinge, slider, distance: [lower, upper]; ball: cone and twist */
    CT_JOINT_MOTOR = 1u << 1,   /* hinge and slider */
    CT_JOINT_COLLIDE = 1u << 2, /* the joined bodies still collide (by default they do not) */
};

/* A joint, made by add_joint. Every field is taken as written (zero means default only where
 * said); what a type does not use is ignored. */
typedef struct ct_joint_desc_t {
    uint32_t type;         /* a ct_joint_type */
    uint32_t flags;        /* CT_JOINT_* bits */
    float anchor[3];       /* world point where the bodies are held (distance: on a), within the
                        * position range */
    float anchor_b[3];     /* distance: the world point on b (or in the world) */
    float axis[3];         /* hinge, ball, slider: world direction, length at least 1e-3 (it is
                        * normalised) */
    float lower, upper;    /* the limit (see the types); lower <= upper */
    float cone_angle;      /* ball: [0, pi] */
    float motor_speed;     /* rad/s or m/s, within +-1e4 */
    float max_motor_force; /* N m or N, within [0, 1e12] */
    float length;          /* distance: rest length (m), within [0, 1e4]; 0: as added */
    float spring_hertz;    /* distance: [0, 1e3]; 0: no spring, the length is held */
    float spring_damping;  /* distance: damping ratio, [0, 1e3] */
} ct_joint_desc_t;

/* A joint's handle: unique in its world, never reused; 0 is no joint. */
typedef struct ct_physics_joint_t {
    uint32_t id;
} ct_physics_joint_t;

/* ---- Characters (v4) -------------------------------------------------------------------------
 * A character mover: an upright capsule the game walks (add_character, move_character) rather
 * than a body that forces push. Before each simulate() the game asks it to move with a velocity;
 * the mover collides and slides against static and kinematic bodies, steps up stairs up to
 * max_step, walks slopes up to max_slope (steeper ones are walls it slides along and down),
 * keeps its feet walking down stairs and slopes, and rides the body it stands on (a moving or
 * turning platform carries it). The game owns gravity and jumping: it adds them to the velocity it
 * asks for (e.g. vy -= 9.81 dt while not grounded; vy = 0 on the ground). The character is a
 * kinematic capsule body (remove_body removes it; queries and contacts see it): the next simulate()
 * takes it where move_character said. Dynamic bodies in its way stop it and are pushed aside
 * with a bounded force, not climbed (see Character settings, v5). Up is +y. */
typedef struct ct_character_desc_t {
    float radius;      /* the capsule's, within [CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE] m */
    float half_height; /* half its upright segment, within [0, CT_PHYSICS_MAX_SIZE] m (the feet are
                        * half_height + radius under the centre) */
    float max_step;    /* the highest step it walks up, within [0, CT_PHYSICS_MAX_SIZE] m (and
                        * how far down it keeps its feet, until set_character_settings) */
    float max_slope;   /* the steepest walkable ground, rad, within [0, 1.5] */
    float position[3]; /* of the centre, used when the entity has no transform */
} ct_character_desc_t;

/* What a move found (move_character). */
typedef struct ct_character_state_t {
    uint32_t grounded;      /* 1: it stands on walkable ground */
    uint32_t ground;        /* that ground's entity id, or 0 */
    float ground_normal[3]; /* the ground's normal (0, 1, 0 when not grounded) */
    float position[3];      /* where the next simulate() puts its centre */
    float velocity[3]; /* the velocity it moves with there (after sliding, with what carries it) */
} ct_character_state_t;

/* ---- Character settings (v5) ------------------------------------------------------------------
 * What a character does beyond its desc, read and changed at any time between steps
 * (character_settings, set_character_settings; Physics.character_settings and
 * Physics.set_character_settings in Lua). add_character starts it with its desc's max_step and
 * max_slope, step_down = max_step, mass 0 and max_strength CT_PHYSICS_MAX_FORCE: what v4 did. Jolt's
 * CharacterVirtual (its scene in bench_physics) walks with max_step 0.4, step_down 0.5, mass 70,
 * max_strength 100.
 *
 * Dynamic bodies are in the mover's way like any other: it stops at them and slides along them
 * (it does not walk up them as stairs; it stands on one it is on). Each dynamic body it walks into
 * in a move gets an impulse at the point they touch, away from the character (never downwards):
 * 0.9 of what would bring the body's speed there, along the contact's normal, to the
 * character's, but at most max_strength dt. So a light crate is pushed along at about the
 * character's speed, and a crate heavier than max_strength can push against its friction stays
 * where it is, the character stopped at its side. Standing on a dynamic body, it presses on it
 * with its weight (mass times gravity along the ground's normal, as an impulse of that times dt at
 * the point it stands on).
 *
 * Characters collide with each other (v5): each move sees the other characters where they will be
 * after the step: a character moved already this step where its move takes it, one not moved yet
 * where it stands. So the game's order of move_character calls decides who gives way (as Jolt's
 * CharacterVsCharacterCollision, where characters are updated one after another), the result is
 * the same every run for the same order, and two characters never overlap. A character is walked
 * around, never climbed as a stair nor pushed; one can stand on another's head. A move collides
 * with at most 16 other characters (those first by entity id among the ones within its reach).
 *
 * Padding (v5): the mover keeps the capsule 2 cm from walls, ceilings and other characters (as
 * Jolt's mCharacterPadding), so a character walked into a wall rests 2 cm short of it and each
 * move starts clear of it. Ground and stair edges are not padded: the feet stand on them. */
typedef struct ct_character_settings_t {
    float max_step;  /* the highest step it walks up, within [0, CT_PHYSICS_MAX_SIZE] m */
    float max_slope; /* the steepest walkable ground, rad, within [0, 1.5] */
    float step_down; /* how far down it keeps its feet on the ground (down stairs and slopes) when
                      * it stood on something and is not going up, within [0, CT_PHYSICS_MAX_SIZE]
                      * m; 0: it falls off any edge */
    float mass;      /* kg, within [0, CT_PHYSICS_MAX_MASS]: the weight it presses on a dynamic
                      * body it stands on; 0: none */
    float max_strength; /* N, within [0, CT_PHYSICS_MAX_FORCE]: the most force it pushes a dynamic
                         * body with; 0: it pushes nothing (it is stopped by every dynamic body) */
} ct_character_settings_t;

/* ---- Character contacts (v5) -------------------------------------------------------------------
 * What a move met, and a game's say over it (as Jolt's CharacterContactListener OnContactValidate
 * and OnContactAdded). A character's move meets a body when the capsule touches it (within the
 * 2 cm padding for walls, touching for ground) in any of the move's tests, a stair's trial walk
 * included; each body once a move, the first time, with the point and normal of then. With a
 * callback set (set_character_contact_callback), the callback is asked then, before the mover
 * collides with it: true accepts it (the mover stops at it, slides along it, stands on it, pushes
 * it), false vetoes it for the rest of that move (the mover passes through it, neither pushing nor
 * standing on it; the next move asks again). Either way the contact is listed for
 * character_contacts (Physics.character_contacts in Lua) until the character's next move: at most
 * CT_CHARACTER_MAX_CONTACTS a move, in the order met; past that further bodies are accepted
 * without a call and not listed. The order of the calls is the order the move meets the bodies,
 * the same every run. */
#define CT_CHARACTER_MAX_CONTACTS 32u

/* One body a character's move met (see Character contacts above). */
typedef struct ct_character_contact_t {
    uint32_t character;    /* the character that moved: its entity's id */
    uint32_t body;         /* what it met: a body's entity id (another character's too) */
    float point[3];        /* a point where they touch (m, world) */
    float normal[3];       /* unit, out of the body towards the character (Jolt's contact normal) */
    uint32_t body_kind;    /* that body's ct_body_kind */
    uint32_t is_character; /* 1: the body is another character's */
    uint32_t accepted;     /* 1: the mover collided with it; 0: the callback vetoed it. The
                            * callback is given 1 */
} ct_character_contact_t;

/* A character's contact callback (set_character_contact_callback): called from move_character on
 * the thread that called it, once for each body the move meets (see Character contacts), with
 * the user_data it was set with. Returns true to accept the contact, false to veto it. It may read
 * the world (queries, positions, snapshots) but not change it: while it runs, every call that
 * would (adding, removing, moving, pushing or waking a body; joints; settings, filters, sensors;
 * move_character, simulate, restore_snapshot; spawning bodies) is refused with CT_ERR_INVALID (or
 * nothing done, for calls without a result), logged naming the call, the world, the entity and
 * the character moving. Entities it destroys keep their bodies until the move ends, then lose
 * them; destroying the world ends the move there (move_character returns CT_ERR_STALE). */
typedef bool (*ct_character_contact_f)(void *user_data, ct_world_o *world,
                                       const ct_character_contact_t *contact);

/* ---- Hulls (v5) ----------------------------------------------------------------------------
 * A convex hull is the smallest convex shape holding the points it is given (add_hull_body):
 * points inside it are dropped, and what is left are its corners (at most
 * CT_PHYSICS_MAX_HULL_POINTS), with its faces (coplanar triangles merged into one polygon).
 * The hull is solid and of even density: its mass is desc->mass, its centre of mass is its
 * volume's centroid, and its inertia comes from its volume (desc->inertia, when not all zero,
 * replaces it). The body's position is its centre of mass: the points are moved by minus the
 * centroid when the hull is made (a cube given with corners 0..1 becomes the cube -0.5..0.5
 * about the body's position). The products of inertia are dropped (the principal moments are
 * taken along the body's own axes): exact for hulls symmetric about those axes (boxes, prisms,
 * regular polyhedra), an approximation otherwise; give desc->inertia to override.
 * Refused, naming the world, the entity and the field "points" with the reason:
 *   - NULL points, or fewer than 4 or more than CT_PHYSICS_MAX_HULL_POINTS of them;
 *   - a coordinate that is NaN, infinite or outside +-CT_PHYSICS_MAX_SIZE m;
 *   - two points closer than CT_PHYSICS_MIN_SIZE (duplicates; the reason names both indices);
 *   - points that span no volume: all on one line or one plane (coplanar), or a hull thinner than
 *     CT_PHYSICS_MIN_SIZE in some direction. */
#define CT_PHYSICS_MAX_HULL_POINTS 64u

/* ---- Compounds (v5) -------------------------------------------------------------------------
 * A compound body (add_compound_body) is several shapes (its children: boxes, spheres, capsules
 * and hulls, at most CT_PHYSICS_MAX_COMPOUND_CHILDREN) fixed in one rigid body: a table of a top
 * and four legs, a hammer, a chair. Its mass (desc->mass) is shared among the children by volume
 * (one density), its centre of mass is theirs, and its inertia sums each child's about that centre
 * (parallel axes). As for hulls the body's position is its centre of mass: the children's
 * positions, given in the body's frame, are moved by minus it, and the products of inertia are
 * dropped (give desc->inertia to override). Children of one body do not collide with each other.
 * Against another body every pair of children is tested; the contact keeps the deepest pair's
 * normal and the points of the pairs that push the same way (within about 25 degrees), reduced to
 * four. Refused naming the world, the entity and the field ("children[2].radius", "children"
 * for a NULL list, none, or too many; a child hull's points as for add_hull_body, "children[1]
 * .points (...)"). */
#define CT_PHYSICS_MAX_COMPOUND_CHILDREN 64u

/* One shape of a compound body, placed in the body's frame. Every field is taken as written
 * (zero means default only where said); what the shape does not use is ignored. */
typedef struct ct_compound_child_t {
    uint32_t shape;        /* CT_BODY_BOX, CT_BODY_SPHERE, CT_BODY_CAPSULE or CT_BODY_HULL */
    float half_extents[3]; /* box: each within [CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE] m */
    float radius;          /* sphere and capsule: within the same range */
    float half_height;     /* capsule: half its segment along the child's y, [0, MAX_SIZE] m */
    const float *points;   /* hull: point_count x y z triples in the child's frame */
    uint32_t point_count;
    float position[3];     /* the child's centre in the body's frame, within +-CT_PHYSICS_MAX_SIZE */
    float rotation[4];     /* x y z w of the child in the body's frame; all zero: identity, else of
                            * length 1 within 1e-3 */
} ct_compound_child_t;

/* ---- Meshes and height fields (v5) -----------------------------------------------------------
 * A static body of triangles (add_mesh_body) or of a grid of heights (add_height_field_body, two
 * triangles a cell): level geometry, terrain. Its triangles are kept in a bounding-volume tree
 * (median splits, at most 4 a leaf), so a body finds the few under it. A triangle is one-sided:
 * it pushes bodies out along its front (the side its corners turn counter-clockwise around, the
 * right-hand rule), and a body whose centre is behind it passes. Internal edges: where two
 * triangles meet flat, or bending up (a valley), the seam is no edge a body can catch on. A
 * triangle whose three edges are all such collides along its face normal only, so a box sliding
 * over a floor of many tiles keeps its vertical velocity at zero across the seams; open edges
 * and ridges collide as edges, except that a body whose lowest point lies within 5 mm of a
 * triangle's plane meets a triangle with an open edge along its face only: the seam where one
 * mesh (or height field) continues another in the same plane is crossed as an internal edge,
 * and a body landing on a mesh's outer rim is caught by the edge 5 mm lower. A compound on a
 * mesh gets a contact for each child that touches it (up to four for the pair, each child's own
 * points). Meshes are static only, collide with every other shape, and are
 * seen by rays and overlaps. Refused, naming the world, the entity and the field: a kind other
 * than static; NULL arrays; no triangle, or more than CT_PHYSICS_MAX_MESH_TRIANGLES; a vertex or
 * height that is NaN, infinite or outside +-CT_PHYSICS_MAX_POSITION; an index past the vertices;
 * a triangle with no area (under 5e-7 m^2: "indices (triangle 7 has no area ...)"); a height
 * field under 2 x 2 samples or with a cell size outside [CT_PHYSICS_MIN_SIZE, MAX_SIZE]. */
#define CT_PHYSICS_MAX_MESH_TRIANGLES (1u << 22)

/* A ray cast hit. */
typedef struct ct_physics_hit_t {
    uint32_t entity; /* entity id */
    float distance;
    float point[3];
    float normal[3];
} ct_physics_hit_t;

/* ---- Version 1: point masses (part 2). Frozen. ------------------------------------------ */

typedef struct ct_physics_api_v1 {
    /* Gives e a point mass in `world`. CT_ERR_INVALID (logged) for a bad desc or dead e,
     * CT_ERR_CONFLICT if it has one, CT_ERR_NOMEM. */
    int (*add_point_mass)(ct_world_o *world, ct_entity_t e, const ct_point_mass_desc_t *desc);
    /* Removes it (swap-erase). CT_ERR_NOT_FOUND if there is none. */
    int (*remove_point_mass)(ct_world_o *world, ct_entity_t e);
    /* Reads / writes one field; out is left untouched on error. */
    int (*point_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    int (*point_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    /* Adds force / mass to the acceleration accumulator, cleared by the next simulate(). */
    int (*add_point_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    /* Advances the world by dt seconds (in [CT_PHYSICS_MIN_DT, CT_PHYSICS_MAX_DT]; other values are
     * refused, logged, and nothing moves): point masses, and in v2 bodies too. */
    void (*simulate)(ct_world_o *world, float dt);
} ct_physics_api_v1;

/* ---- Version 2: everything of v1 (same order and meaning) plus bodies. ------------------- */

typedef struct ct_physics_api_v2 {
    int (*add_point_mass)(ct_world_o *world, ct_entity_t e, const ct_point_mass_desc_t *desc);
    int (*remove_point_mass)(ct_world_o *world, ct_entity_t e);
    int (*point_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    int (*point_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*add_point_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    /* One step: point masses, then bodies (forces and gravity, contacts, positions, transforms,
     * events, callbacks). */
    void (*simulate)(ct_world_o *world, float dt);

    /* Gives e a body. The start position is e's transform's world position if it has one, else
     * desc->position. Errors as add_point_mass. */
    int (*add_body)(ct_world_o *world, ct_entity_t e, const ct_body_desc_t *desc);
    int (*remove_body)(ct_world_o *world, ct_entity_t e);
    /* Velocity and forces (dynamic and kinematic; a static body refuses with CT_ERR_INVALID).
     * add_force accumulates until the next simulate(). Non-finite values: CT_ERR_INVALID. */
    int (*set_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*add_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    /* Position as physics last saw it; teleport moves the body (and its transform) at once. */
    int (*position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*teleport)(ct_world_o *world, ct_entity_t e, const float position[3]);

    void (*set_gravity)(ct_world_o *world, const float gravity[3]);
    void (*gravity)(ct_world_o *world, float out[3]);

    /* Entities of the bodies whose shape overlaps the sphere, sorted by entity id. Writes at
     * most max ids to out and returns the total count (call again with room for more). */
    uint32_t (*overlap_sphere)(ct_world_o *world, const float center[3], float radius,
                               ct_entity_t *out, uint32_t max);
    /* The nearest body hit by origin + t * direction for 0 <= t <= max_distance (direction need
     * not be normalised; distance is along the normalised direction). False if nothing. */
    bool (*raycast)(ct_world_o *world, const float origin[3], const float direction[3],
                    float max_distance, ct_physics_hit_t *out);

    /* The event stream of the world's last step (see above); *size gets its byte size. */
    const void *(*events)(ct_world_o *world, uint32_t *size);
    /* MurmurHash64A over (entity, position, velocity) of bodies then point masses, each sorted
     * by entity id. */
    uint64_t (*state_hash)(ct_world_o *world);
    /* Number of body and point-mass instances in the world. */
    uint32_t (*body_count)(ct_world_o *world);
    uint32_t (*point_mass_count)(ct_world_o *world);
} ct_physics_api_v2;

/* ---- Version 3: everything of v2 (same order and meaning) plus filters, user data and sleep.
 *
 * Collision filters: every body has a layer and a mask (32 bits each; by default layer 1 and every
 * bit of mask). Two bodies collide when each one's layer shares a bit with the other's mask;
 * queries given a mask see only bodies whose layer shares a bit with it.
 * Sleeping: dynamic bodies linked by contacts form islands; an island whose bodies have all been
 * slower than 0.05 m/s for half a second sleeps: it is neither moved nor collided until something
 * runs into it, the game moves, pushes or removes one of its bodies (set_velocity, add_force,
 * teleport, its transform, remove_body or destroying what it rests on) or the gravity changes.
 * Falling asleep and waking make no events. Per step, at most 64 candidate pairs per body (at
 * least 65,536, and never more than 1,048,576 in a world, which bounds a step's time and memory
 * whatever is piled up: a million bodies in one spot step in seconds, not never) are collided;
 * past that (bodies piled into one spot) the rest are dropped for the step and a warning names
 * the world and the two entities of the pair where the cut fell, with a position in the pile.
 * A pair with a compound (v5) tests each pair of children (up to 64 x 64): past 4,194,304 such
 * tests in a step the rest of the pairs, in entity-pair order, are dropped likewise and a warning
 * names the world and the pair where it cut. */
typedef struct ct_physics_api_v3 {
    int (*add_point_mass)(ct_world_o *world, ct_entity_t e, const ct_point_mass_desc_t *desc);
    int (*remove_point_mass)(ct_world_o *world, ct_entity_t e);
    int (*point_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    int (*point_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*add_point_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    void (*simulate)(ct_world_o *world, float dt);
    int (*add_body)(ct_world_o *world, ct_entity_t e, const ct_body_desc_t *desc);
    int (*remove_body)(ct_world_o *world, ct_entity_t e);
    int (*set_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*add_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    int (*position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*teleport)(ct_world_o *world, ct_entity_t e, const float position[3]);
    void (*set_gravity)(ct_world_o *world, const float gravity[3]);
    void (*gravity)(ct_world_o *world, float out[3]);
    uint32_t (*overlap_sphere)(ct_world_o *world, const float center[3], float radius,
                               ct_entity_t *out, uint32_t max);
    bool (*raycast)(ct_world_o *world, const float origin[3], const float direction[3],
                    float max_distance, ct_physics_hit_t *out);
    const void *(*events)(ct_world_o *world, uint32_t *size);
    uint64_t (*state_hash)(ct_world_o *world);
    uint32_t (*body_count)(ct_world_o *world);
    uint32_t (*point_mass_count)(ct_world_o *world);

    /* e's collision filter (see above). Changing it wakes e. CT_ERR_NOT_FOUND without a body. */
    int (*set_collision_filter)(ct_world_o *world, ct_entity_t e, uint32_t layer, uint32_t mask);
    int (*collision_filter)(ct_world_o *world, ct_entity_t e, uint32_t *layer, uint32_t *mask);
    /* A number the game keeps with the body (an index, a handle; 0 by default), untouched by
     * physics. CT_ERR_NOT_FOUND without a body; *out is left untouched then. */
    int (*set_user_data)(ct_world_o *world, ct_entity_t e, uint64_t data);
    int (*user_data)(ct_world_o *world, ct_entity_t e, uint64_t *out);
    /* As overlap_sphere and raycast, seeing only bodies whose layer shares a bit with mask. */
    uint32_t (*overlap_sphere_masked)(ct_world_o *world, const float center[3], float radius,
                                      uint32_t mask, ct_entity_t *out, uint32_t max);
    bool (*raycast_masked)(ct_world_o *world, const float origin[3], const float direction[3],
                           float max_distance, uint32_t mask, ct_physics_hit_t *out);
    /* Whether e's body sleeps (false without one); wake wakes its island (CT_ERR_NOT_FOUND
     * without a body). */
    bool (*sleeping)(ct_world_o *world, ct_entity_t e);
    int (*wake)(ct_world_o *world, ct_entity_t e);
    /* Turns sleeping on (the default) or off for the world; off wakes every body. */
    void (*set_sleeping)(ct_world_o *world, bool enabled);
    /* Dynamic bodies the last step simulated (the others slept). */
    uint32_t (*awake_count)(ct_world_o *world);
} ct_physics_api_v3;

/* ---- Version 4: everything of v3 (same order and meaning) plus rigid bodies, joints, characters,
 * debug shapes and snapshots. A prefix of ct_physics_api_v5, where every member is documented. */
typedef struct ct_physics_api_v4 {
    int (*add_point_mass)(ct_world_o *world, ct_entity_t e, const ct_point_mass_desc_t *desc);
    int (*remove_point_mass)(ct_world_o *world, ct_entity_t e);
    int (*point_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    int (*point_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*add_point_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    void (*simulate)(ct_world_o *world, float dt);

    int (*add_body)(ct_world_o *world, ct_entity_t e, const ct_body_desc_t *desc);
    int (*remove_body)(ct_world_o *world, ct_entity_t e);
    int (*set_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*add_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    int (*position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*teleport)(ct_world_o *world, ct_entity_t e, const float position[3]);
    void (*set_gravity)(ct_world_o *world, const float gravity[3]);
    void (*gravity)(ct_world_o *world, float out[3]);
    uint32_t (*overlap_sphere)(ct_world_o *world, const float center[3], float radius,
                               ct_entity_t *out, uint32_t max);
    bool (*raycast)(ct_world_o *world, const float origin[3], const float direction[3],
                    float max_distance, ct_physics_hit_t *out);
    const void *(*events)(ct_world_o *world, uint32_t *size);
    uint64_t (*state_hash)(ct_world_o *world);
    uint32_t (*body_count)(ct_world_o *world);
    uint32_t (*point_mass_count)(ct_world_o *world);

    int (*set_collision_filter)(ct_world_o *world, ct_entity_t e, uint32_t layer, uint32_t mask);
    int (*collision_filter)(ct_world_o *world, ct_entity_t e, uint32_t *layer, uint32_t *mask);
    int (*set_user_data)(ct_world_o *world, ct_entity_t e, uint64_t data);
    int (*user_data)(ct_world_o *world, ct_entity_t e, uint64_t *out);
    uint32_t (*overlap_sphere_masked)(ct_world_o *world, const float center[3], float radius,
                                      uint32_t mask, ct_entity_t *out, uint32_t max);
    bool (*raycast_masked)(ct_world_o *world, const float origin[3], const float direction[3],
                           float max_distance, uint32_t mask, ct_physics_hit_t *out);
    bool (*sleeping)(ct_world_o *world, ct_entity_t e);
    int (*wake)(ct_world_o *world, ct_entity_t e);
    void (*set_sleeping)(ct_world_o *world, bool enabled);
    uint32_t (*awake_count)(ct_world_o *world);

    int (*add_rigid_body)(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc);
    int (*rotation)(ct_world_o *world, ct_entity_t e, float out[4]);
    int (*set_rotation)(ct_world_o *world, ct_entity_t e, const float rotation[4]);
    int (*angular_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_angular_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*add_torque)(ct_world_o *world, ct_entity_t e, const float torque[3]);
    int (*add_force_at)(ct_world_o *world, ct_entity_t e, const float force[3],
                        const float point[3]);
    int (*add_impulse_at)(ct_world_o *world, ct_entity_t e, const float impulse[3],
                          const float point[3]);
    int (*set_locks)(ct_world_o *world, ct_entity_t e, uint32_t locks);
    int (*locks)(ct_world_o *world, ct_entity_t e, uint32_t *out);

    uint32_t (*shapes)(ct_world_o *world, uint32_t first, ct_physics_shape_t *out, uint32_t max);

    int (*add_joint)(ct_world_o *world, ct_entity_t a, ct_entity_t b, const ct_joint_desc_t *desc,
                     ct_physics_joint_t *out);
    int (*remove_joint)(ct_world_o *world, ct_physics_joint_t joint);
    int (*joint_force)(ct_world_o *world, ct_physics_joint_t joint, float force[3],
                       float torque[3]);
    int (*joint_value)(ct_world_o *world, ct_physics_joint_t joint, float *out);
    int (*set_joint_motor)(ct_world_o *world, ct_physics_joint_t joint, float speed,
                           float max_force);
    uint32_t (*joint_count)(ct_world_o *world);

    int (*add_character)(ct_world_o *world, ct_entity_t e, const ct_character_desc_t *desc);
    int (*move_character)(ct_world_o *world, ct_entity_t e, const float velocity[3], float dt,
                          ct_character_state_t *out);

    uint32_t (*snapshot_size)(ct_world_o *world);
    uint32_t (*save_snapshot)(ct_world_o *world, void *buffer, uint32_t size);
    int (*restore_snapshot)(ct_world_o *world, const void *buffer, uint32_t size);
} ct_physics_api_v4;

/* ---- Version 5: everything of v4 (same order and meaning) plus more shapes: convex hulls,
 * compounds, static meshes and height fields.
 *
 * This is the manual of the whole table: every member is documented here (the older versions are
 * prefixes of it, same order, same meaning). New members are only ever appended.
 *
 * Version 4's rigid bodies (add_rigid_body) have six degrees of freedom: an orientation and an angular
 * velocity beside the position and velocity, an inertia tensor from their shape and mass (or
 * given), and motion locks. Boxes are oriented boxes; capsules join spheres and boxes. Contacts
 * between them are manifolds of up to four points (the clipped faces of two boxes, reduced to the
 * four that hold the most area), kept from step to step by feature so their impulses warm start
 * the next step, and found a speculative margin (2 cm plus the step's motion) before touching.
 * A world whose bodies all translate only (v1-v3 bodies, or v4 bodies with CT_BODY_LOCK_ROTATION,
 * no rotation and a box or sphere) is stepped exactly as in v3, bit for bit; one rotating body
 * switches the world to the rigid solver: soft contacts solved in four substeps of dt with
 * relaxation (Box2D v3's "soft step"), an implicit gyroscopic term, restitution after the solve.
 * Rigid bodies write their rotation to their entity's transform as well as their position, and
 * take both from it when the game moved it (teleport rules as above).
 * Sleeping counts angular speed too (an island sleeps when every body is under 0.05 m/s and
 * 0.05 rad/s for half a second). state_hash() digests rotation and angular velocity too for bodies
 * that rotate (so v1-v3 worlds keep their hashes).
 *
 * Version 5's shapes. A convex hull (add_hull_body) is the convex shell of up to
 * CT_PHYSICS_MAX_HULL_POINTS points; it collides with boxes, spheres, capsules and other hulls
 * (manifolds of up to four points, as boxes), and queries (rays, overlaps) see it. See Hulls.
 * A compound (add_compound_body) is several of these shapes in one body. See Compounds.
 * Static meshes and height fields (add_mesh_body, add_height_field_body) are level geometry and
 * terrain, with internal edges that bodies slide over without a bump. See Meshes. */
typedef struct ct_physics_api_v5 {
    /* ---- point masses (v1) ---- */
    /* Gives e a point mass in `world`. CT_ERR_INVALID (logged) for a bad desc or dead e,
     * CT_ERR_CONFLICT if it has one, CT_ERR_NOMEM. */
    int (*add_point_mass)(ct_world_o *world, ct_entity_t e, const ct_point_mass_desc_t *desc);
    /* Removes it (swap-erase). CT_ERR_NOT_FOUND if there is none. */
    int (*remove_point_mass)(ct_world_o *world, ct_entity_t e);
    /* Read / write one vector of e's point mass; out is left untouched on error (CT_ERR_NOT_FOUND
     * without one; CT_ERR_INVALID, logged, for a value outside the Ranges). */
    int (*point_position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_position)(ct_world_o *world, ct_entity_t e, const float position[3]);
    int (*point_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_point_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    /* Adds force / mass to the acceleration accumulator, cleared by the next simulate(). */
    int (*add_point_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    /* Advances the world by dt seconds (in [CT_PHYSICS_MIN_DT, CT_PHYSICS_MAX_DT]; other values
     * are refused, logged, and nothing moves): point masses, then bodies (forces and gravity,
     * contacts, positions and rotations, transforms, events, callbacks). */
    void (*simulate)(ct_world_o *world, float dt);

    /* ---- bodies (v2) ---- */
    /* Gives e a translation-only body (a v1-v3 body: CT_BODY_LOCK_ROTATION, no rotation). The
     * start position is e's transform's world position if it has one, else desc->position.
     * CT_ERR_INVALID (logged naming world, entity and field), CT_ERR_CONFLICT, CT_ERR_NOMEM. */
    int (*add_body)(ct_world_o *world, ct_entity_t e, const ct_body_desc_t *desc);
    /* Removes e's body (and wakes what it touched). CT_ERR_NOT_FOUND without one. */
    int (*remove_body)(ct_world_o *world, ct_entity_t e);
    /* Linear velocity (m/s) of a dynamic or kinematic body (a static body refuses with
     * CT_ERR_INVALID); setting wakes its island. */
    int (*set_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    int (*velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    /* Adds a force (N) at the centre of mass until the next simulate(); wakes the island. */
    int (*add_force)(ct_world_o *world, ct_entity_t e, const float force[3]);
    /* Position as physics last saw it; teleport moves the body (and its transform) at once. */
    int (*position)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*teleport)(ct_world_o *world, ct_entity_t e, const float position[3]);
    /* The world's gravity (m/s^2, default 0, -9.81, 0); setting it wakes every body. */
    void (*set_gravity)(ct_world_o *world, const float gravity[3]);
    void (*gravity)(ct_world_o *world, float out[3]);
    /* Entities of the bodies whose shape overlaps (or touches) the sphere, sorted by entity id.
     * Writes at most max ids to out (NULL only with max 0, to count) and returns the total count
     * (call again with room for more). A NULL, NaN or infinite center, or a NaN, infinite or
     * negative radius, finds nothing (0) and is logged naming the world and the field ("center",
     * "radius"); so is a world without physics. */
    uint32_t (*overlap_sphere)(ct_world_o *world, const float center[3], float radius,
                               ct_entity_t *out, uint32_t max);
    /* The nearest body hit by origin + t * direction for 0 <= t <= max_distance: true with out
     * set to its entity, the distance t along the normalised direction (m; direction need not be
     * normalised; 0 when origin lies inside the body's shape), the point origin + t * unit
     * direction, and the unit normal of the body's surface there, facing back along the ray (out
     * of the body; a ray starting inside faces back too). False if nothing is hit. A NULL, NaN or
     * infinite origin, a NULL, NaN, infinite or zero direction, a NaN or negative max_distance, or
     * a NULL out finds nothing (false, out untouched) and is logged naming the world and the field
     * ("origin", "direction", "max_distance", "out"); so is a world without physics. An infinite
     * max_distance, or an origin far outside the world (+-4 CT_PHYSICS_MAX_POSITION), is a
     * question, not an error: the first body on the ray, or false, without a word. */
    bool (*raycast)(ct_world_o *world, const float origin[3], const float direction[3],
                    float max_distance, ct_physics_hit_t *out);
    /* The event stream of the world's last step (see Events); *size gets its byte size. */
    const void *(*events)(ct_world_o *world, uint32_t *size);
    /* MurmurHash64A over (entity, position, velocity[, rotation, angular velocity]) of bodies,
     * then point masses, each sorted by entity id, live entities only. */
    uint64_t (*state_hash)(ct_world_o *world);
    /* Number of body and point-mass instances in the world. */
    uint32_t (*body_count)(ct_world_o *world);
    uint32_t (*point_mass_count)(ct_world_o *world);

    /* ---- filters, user data, sleep (v3) ---- */
    /* e's collision filter (see Version 3). Changing it wakes e. CT_ERR_NOT_FOUND without a body. */
    int (*set_collision_filter)(ct_world_o *world, ct_entity_t e, uint32_t layer, uint32_t mask);
    int (*collision_filter)(ct_world_o *world, ct_entity_t e, uint32_t *layer, uint32_t *mask);
    /* A number the game keeps with the body (0 by default), untouched by physics. */
    int (*set_user_data)(ct_world_o *world, ct_entity_t e, uint64_t data);
    int (*user_data)(ct_world_o *world, ct_entity_t e, uint64_t *out);
    /* As overlap_sphere and raycast, seeing only bodies whose layer shares a bit with mask. */
    uint32_t (*overlap_sphere_masked)(ct_world_o *world, const float center[3], float radius,
                                      uint32_t mask, ct_entity_t *out, uint32_t max);
    bool (*raycast_masked)(ct_world_o *world, const float origin[3], const float direction[3],
                           float max_distance, uint32_t mask, ct_physics_hit_t *out);
    /* Whether e's body sleeps (false without one); wake wakes its island. */
    bool (*sleeping)(ct_world_o *world, ct_entity_t e);
    int (*wake)(ct_world_o *world, ct_entity_t e);
    /* Turns sleeping on (the default) or off for the world; off wakes every body. */
    void (*set_sleeping)(ct_world_o *world, bool enabled);
    /* Dynamic bodies the last step simulated (the others slept). */
    uint32_t (*awake_count)(ct_world_o *world);

    /* ---- rigid bodies (v4) ---- */
    /* Gives e a rigid body. The start pose is e's transform's world position and rotation if it
     * has a transform, else desc->position and desc->rotation. Errors as add_body; a bad field
     * is named (e.g. "rotation (x y z w of length 1, or all zero)"). */
    int (*add_rigid_body)(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc);
    /* e's orientation (x, y, z, w); set_rotation turns the body (and its transform) at once and
     * wakes it. A rotation must have length 1 within 1e-3 (it is normalised); CT_ERR_INVALID
     * otherwise. A body with CT_BODY_LOCK_ROTATION keeps the rotation it is given. */
    int (*rotation)(ct_world_o *world, ct_entity_t e, float out[4]);
    int (*set_rotation)(ct_world_o *world, ct_entity_t e, const float rotation[4]);
    /* Angular velocity (rad/s about the world axes; at most CT_PHYSICS_MAX_ANGULAR_SPEED).
     * Dynamic and kinematic bodies; locked axes read and stay zero. Setting wakes the island. */
    int (*angular_velocity)(ct_world_o *world, ct_entity_t e, float out[3]);
    int (*set_angular_velocity)(ct_world_o *world, ct_entity_t e, const float velocity[3]);
    /* Adds a torque (N m, world axes) until the next simulate(); wakes the island. */
    int (*add_torque)(ct_world_o *world, ct_entity_t e, const float torque[3]);
    /* Adds a force (N) applied at a world point until the next simulate(): the force plus the
     * torque (point - centre) x force. */
    int (*add_force_at)(ct_world_o *world, ct_entity_t e, const float force[3],
                        const float point[3]);
    /* Changes the velocities at once by an impulse (N s) at a world point: v += J / m,
     * w += I^-1 ((point - centre) x J). Dynamic bodies only (CT_ERR_INVALID otherwise); each
     * component within +-CT_PHYSICS_MAX_FORCE. */
    int (*add_impulse_at)(ct_world_o *world, ct_entity_t e, const float impulse[3],
                          const float point[3]);
    /* e's motion locks (CT_BODY_LOCK_* bits); setting zeroes the locked velocity components and
     * wakes the island. */
    int (*set_locks)(ct_world_o *world, ct_entity_t e, uint32_t locks);
    int (*locks)(ct_world_o *world, ct_entity_t e, uint32_t *out);

    /* ---- debug drawing (v4) ---- */
    /* Lists the bodies' shapes for drawing: writes the shapes of bodies first .. first + max - 1
     * (in the world's instance order, which stays the same until a body is added or removed) to
     * out[0 .. max - 1] and returns the world's total body count, whatever max is. So a caller
     * with a fixed array pages through with first = 0, max, 2 max, ... while first < the total;
     * or calls once with max = 0 (out may then be NULL) to learn the count, then again with room
     * for all. Writes min(max, total - first) entries (none when first >= total). Cheap: one
     * linear pass over the bodies asked for, no allocation, nothing changed (sleeping bodies
     * stay asleep). Returns 0 for a world without physics (logged). Main thread, between steps. */
    uint32_t (*shapes)(ct_world_o *world, uint32_t first, ct_physics_shape_t *out, uint32_t max);

    /* ---- joints (v4, see Joints) ---- */
    /* Joins a's body to b's (b's id 0: to the world) as desc says; *out gets the handle. a must
     * have a body, b one or be 0, a != b, and one of them must be dynamic. CT_ERR_NOT_FOUND
     * without a body (logged naming world, entities and the field, a or b, without one);
     * CT_ERR_INVALID (logged naming world, entities and field) for a bad desc;
     * CT_ERR_NOMEM. Wakes both. */
    int (*add_joint)(ct_world_o *world, ct_entity_t a, ct_entity_t b, const ct_joint_desc_t *desc,
                     ct_physics_joint_t *out);
    /* Removes the joint (and wakes its bodies). CT_ERR_NOT_FOUND if it is gone. */
    int (*remove_joint)(ct_world_o *world, ct_physics_joint_t joint);
    /* What the joint did in the last step: the force (N) and torque (N m) it put on a's body,
     * world axes (b got the opposite). Zero before the first step. CT_ERR_NOT_FOUND if gone.
     * force or torque may be NULL. */
    int (*joint_force)(ct_world_o *world, ct_physics_joint_t joint, float force[3],
                       float torque[3]);
    /* The joint's present coordinate, a's against b's: hinge, its angle (rad, in (-pi, pi]);
     * slider, a's anchor along the axis from b's (m); distance, the anchors' distance (m); ball,
     * the twist (rad); fixed, 0. CT_ERR_NOT_FOUND if gone. */
    int (*joint_value)(ct_world_o *world, ct_physics_joint_t joint, float *out);
    /* Sets the motor (and turns it on): speed (rad/s or m/s) and the most it may apply (N m or N).
     * Hinge and slider only (CT_ERR_INVALID otherwise, or for values out of range). Wakes it. */
    int (*set_joint_motor)(ct_world_o *world, ct_physics_joint_t joint, float speed,
                           float max_force);
    /* Joints in the world. */
    uint32_t (*joint_count)(ct_world_o *world);

    /* ---- characters (v4, see Characters) ---- */
    /* Gives e a character: a kinematic capsule body at e's transform's position (else
     * desc->position) and the mover's settings. CT_ERR_INVALID (logged naming the field),
     * CT_ERR_CONFLICT if e has a body, CT_ERR_NOMEM. */
    int (*add_character)(ct_world_o *world, ct_entity_t e, const ct_character_desc_t *desc);
    /* Plans e's motion for the next simulate(world, dt): it wants to move with velocity (m/s,
     * gravity included by the game) for dt (in [CT_PHYSICS_MIN_DT, CT_PHYSICS_MAX_DT]); out (may be
     * NULL) gets what it found. Call once before each simulate() with that step's dt; a character
     * not moved stays where it is. CT_ERR_NOT_FOUND if e is no character; CT_ERR_INVALID (logged)
     * for a velocity or dt out of range, or when called from a contact callback; CT_ERR_STALE when
     * the character's contact callback destroyed the world (see ct_character_contact_f). */
    int (*move_character)(ct_world_o *world, ct_entity_t e, const float velocity[3], float dt,
                          ct_character_state_t *out);

    /* ---- snapshots (v4): rollback ----
     * A snapshot is the world's dynamic state in one flat buffer the caller owns: every body's
     * position, rotation, velocities, pending forces and sleep, the contact caches that warm start
     * the next step, the joints whole (settings and impulses: a joint made since the save is gone
     * after the restore, one destroyed since comes back), the character movers, the point masses,
     * the bodies each sensor holds and the pairs a continuous sweep reported touching (so the
     * events after a restore are those of never having left). Shapes, materials, filters and
     * static bodies are the world's and stay out (by
     * reference): a snapshot restores only into the world it came from, with the same bodies and
     * point masses (none added or removed since, no body's kind or shape changed; checked by a
     * digest of the bodies' entities and kinds, and by finding each contact again). About 125
     * bytes an awake body in a resting pile (bench_physics' physics.snapshot_bytes_per_body).
     * Restoring then simulating gives bit for bit the states (and state_hash) of never having
     * left, which is what rollback networking needs: save every step, and on a late input
     * restore the step it belongs to and simulate forward again. The layout is this build's (no
     * format to keep between builds). Main thread, between steps. */
    /* Bytes a snapshot of the world takes now (0 for a world without physics). */
    uint32_t (*snapshot_size)(ct_world_o *world);
    /* Writes the snapshot into buffer (size bytes); returns the bytes written, or 0 when size is
     * less than snapshot_size() (nothing written). */
    uint32_t (*save_snapshot)(ct_world_o *world, void *buffer, uint32_t size);
    /* Puts the world back as the snapshot says, transforms included. CT_ERR_INVALID (logged with
     * the reason: not a snapshot, another format version, cut short, other bodies, characters or
     * shapes, a value out of range) changes nothing; CT_ERR_NOMEM. */
    int (*restore_snapshot)(ct_world_o *world, const void *buffer, uint32_t size);

    /* ---- shapes (v5) ---- */
    /* Gives e a rigid body whose shape is the convex hull of points[0 .. count - 1] (x y z triples
     * in the body's own frame). desc is read as for add_rigid_body, except that its shape must be
     * CT_BODY_HULL and its sizes (half_extents, radius, half_height) are ignored. See Hulls for
     * what is refused (CT_ERR_INVALID, logged naming the world, the entity and the field
     * "points" with the reason); CT_ERR_CONFLICT, CT_ERR_NOMEM. */
    int (*add_hull_body)(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc,
                         const float *points, uint32_t count);
    /* Gives e a rigid body made of children[0 .. count - 1] (see Compounds). desc is read as for
     * add_rigid_body, except that its shape must be CT_BODY_COMPOUND and its sizes are ignored.
     * CT_ERR_INVALID (logged naming the world, the entity and the field), CT_ERR_CONFLICT,
     * CT_ERR_NOMEM. */
    int (*add_compound_body)(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc,
                             const ct_compound_child_t *children, uint32_t count);
    /* Gives e a static body of triangles (see Meshes): triangle t joins vertices indices[3 t],
     * [3 t + 1] and [3 t + 2] of vertices (x y z triples in the body's frame, which is e's
     * transform's, else desc->position and rotation). desc's kind must be CT_BODY_STATIC and its
     * shape CT_BODY_MESH; its sizes and mass are ignored. The arrays are copied. CT_ERR_INVALID
     * (logged naming the world, the entity and the field), CT_ERR_CONFLICT, CT_ERR_NOMEM. */
    int (*add_mesh_body)(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc,
                         const float *vertices, uint32_t vertex_count, const uint32_t *indices,
                         uint32_t triangle_count);
    /* Gives e a static height field: sample (c, r), c < columns, r < rows, is the point
     * (c * cell_x, heights[r * columns + c], r * cell_z) of the body's frame, and each cell is two
     * triangles facing up (+y). As add_mesh_body otherwise (a mesh of those triangles). */
    int (*add_height_field_body)(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc,
                                 const float *heights, uint32_t columns, uint32_t rows,
                                 float cell_x, float cell_z);

    /* ---- joints written as data (v5) ---- */
    /* The joint that e's "joint" component (written in a level or unit, see Resources) made in
     * world, for joint_force, joint_value, set_joint_motor or remove_joint; {0} when e has none
     * (or never got one: its spawn was refused), or when a body it joined is gone and took the
     * joint with it. Main thread. */
    ct_physics_joint_t (*joint_of)(ct_world_o *world, ct_entity_t e);

    /* ---- sensors (v5) ----
     * A sensor (trigger volume) is a static or kinematic body of any shape that collides with
     * nothing and reports what enters and leaves it. At the end of each simulate() that steps,
     * every sensor finds the dynamic and kinematic bodies whose shapes touch or cross its own and
     * whose collision filters meet the sensor's (the sensor's mask holds the body's layer and the
     * body's mask the sensor's layer; static bodies and other sensors are never seen), and writes
     * one CT_PHYSICS_EVENT_SENSOR_ENTER for each body that was not in it at the last step and one
     * CT_PHYSICS_EVENT_SENSOR_LEAVE for each that was and is not now, or whose body was removed
     * (ct_physics_sensor_event_t), in order of sensor then body entity id. simulate() also queues
     * the world callbacks on_sensor_enter(other) and on_sensor_leave(other) on the sensor's
     * entity. A sensor is not hit by rays, overlaps or the continuous sweeps; set_collision_filter
     * and collision_filter on it set and read the filter it sees with. Removing its body ends the
     * sensor without events. Main thread, between steps. */
    /* Makes the body of e a sensor (on) or an ordinary body again (off; it collides from the
     * next step). CT_ERR_NOT_FOUND without a body; CT_ERR_INVALID for a dynamic body (logged,
     * nothing changed); CT_ERR_NOMEM. Setting what already is changes nothing. */
    int (*set_sensor)(ct_world_o *world, ct_entity_t e, bool sensor);
    /* Whether the body of e is a sensor (false without a body). */
    bool (*is_sensor)(ct_world_o *world, ct_entity_t e);
    /* The bodies in sensor e at the end of the last step, sorted by entity id, into out (at most
     * max); returns how many there are (0 when e is not a sensor). */
    uint32_t (*sensor_contents)(ct_world_o *world, ct_entity_t e, ct_entity_t *out, uint32_t max);

    /* ---- shape casts (v5) ---- */
    /* Sweeps a box, sphere or capsule (shape's shape, half_extents, radius, half_height and
     * rotation are read as a body desc's; its other fields ignored; rotation all zero means
     * none) from `from` by `motion` without turning it, and finds the first body on its way whose
     * layer shares a bit with mask (sensors never). True with out set: the entity, the distance
     * the shape went along motion (m; 0 when it starts touching), a point where they touch and
     * the hit body's normal there (pointing out of it, towards the shape); equal distances go to
     * the lower entity id. False when it meets nothing; false and logged (naming the world and
     * the field) for a NULL argument, another shape, a size outside the desc's ranges, or from /
     * motion outside +-CT_PHYSICS_MAX_POSITION / twice that. Main thread, between steps. */
    bool (*shape_cast)(ct_world_o *world, const ct_rigid_body_desc_t *shape, const float from[3],
                       const float motion[3], uint32_t mask, ct_physics_hit_t *out);

    /* ---- character settings (v5, see Character settings) ---- */
    /* Sets what character e walks with from its next move_character. CT_ERR_NOT_FOUND if e is no
     * character; CT_ERR_INVALID (logged naming the world, the entity and the field; nothing
     * changed) for NULL or a value out of its range. */
    int (*set_character_settings)(ct_world_o *world, ct_entity_t e,
                                  const ct_character_settings_t *settings);
    /* What character e walks with, into *out. CT_ERR_NOT_FOUND if e is no character (out left
     * alone); CT_ERR_INVALID for a NULL out. */
    int (*character_settings)(ct_world_o *world, ct_entity_t e, ct_character_settings_t *out);

    /* ---- character contacts (v5, see Character contacts) ---- */
    /* Sets the callback character e's moves ask about each body they meet, with user_data passed
     * back to it; fn NULL: none (every contact accepted, as before). It stays until set again or
     * the character is removed. CT_ERR_NOT_FOUND if e is no character. Main thread. */
    int (*set_character_contact_callback)(ct_world_o *world, ct_entity_t e,
                                          ct_character_contact_f fn, void *user_data);
    /* The contacts of character e's last move (see Character contacts), in the order met, into
     * out (at most max; out may be NULL when max is 0); returns how many there are (0 when e is
     * no character or has not moved). A snapshot does not hold them: after restore_snapshot they
     * are still those of the last move made. Main thread. */
    uint32_t (*character_contacts)(ct_world_o *world, ct_entity_t e, ct_character_contact_t *out,
                                   uint32_t max);

    /* ---- damping (v5) ----
     * A body's damping slows it as water or air would: dv/dt = -linear v and dw/dt = -angular w
     * (1/s), on top of gravity, forces and contacts. A crate in water, a wheel that settles, a
     * pile that comes to rest sooner. Every body starts at 0 (no damping: its motion is exactly
     * what it was before damping existed). Jolt's bodies default to 0.05 and 0.05; Box3D's to 0.
     *
     * Each solver step of h seconds (the rigid solver's substeps, dt / 4; the whole dt in a world
     * whose bodies all translate only) adds that step's gravity and forces to the velocity and
     * then divides it by 1 + h c: v' = (v + h a) / (1 + h c), the implicit Euler step of
     * dv/dt = a - c v, as Box3D (and Box2D v3) damp. Chosen over Jolt's v (1 - h c) clamped at 0
     * because it is stable and smooth for every c and h (it never stops a body dead in one step
     * nor turns it back) and because it keeps the exact terminal speed: a body falling with
     * damping c settles at g / c (a crate with linear damping 2 sinks at 4.905 m/s). Over a
     * second it slows a free body a little less than exp(-c): at c = 1 and 60 Hz, to 0.3686 of
     * its speed where exp(-1) is 0.3679. Only dynamic bodies are slowed (static and kinematic
     * bodies keep the values for when they are read back). Damping is a setting, like friction:
     * snapshots do not hold it, and a body's damping survives restore_snapshot as it is. */
    /* Sets e's damping: linear (1/s, slows its velocity) and angular (1/s, slows its angular
     * velocity), each within [0, CT_PHYSICS_MAX_DAMPING]. Takes effect from the next simulate();
     * it neither wakes a sleeping body nor changes its velocities now. CT_ERR_NOT_FOUND without a
     * body; CT_ERR_INVALID (logged naming the world, the entity and the field, linear_damping or
     * angular_damping; nothing changed) for a value outside the range or NaN. */
    int (*set_damping)(ct_world_o *world, ct_entity_t e, float linear, float angular);
    /* e's damping into *linear and *angular (either may be NULL). CT_ERR_NOT_FOUND without a body
     * (nothing written). */
    int (*damping)(ct_world_o *world, ct_entity_t e, float *linear, float *angular);
} ct_physics_api_v5;

#ifdef __cplusplus
}
#endif
#endif
