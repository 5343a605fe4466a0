---@meta
-- Rigid bodies (api/ct_physics.h; the ct.physics module). Unknown entities raise an error naming
-- them; refused values raise one naming the field; a destroyed world (or one without physics)
-- raises one naming the function and the argument, in every function here.

---@class PhysicsModule
Physics = {}

---Steps the world's bodies by dt seconds; collision callbacks are queued on the world.
---@param world ct.World
---@param dt number
function Physics.simulate(world, dt) end

---The bodies overlapping a sphere, sorted by entity id.
---@param world ct.World
---@param x number
---@param y number
---@param z number
---@param r number radius
---@param mask? integer collision layers to include (default all)
---@return ct.Entity[]
function Physics.overlap_sphere(world, x, y, z, r, mask) end

---The first body along a ray.
---@param world ct.World
---@param x number
---@param y number
---@param z number
---@param dx number
---@param dy number
---@param dz number
---@param max_distance number
---@param mask? integer collision layers to include (default all)
---@return ct.Entity|nil e
---@return number? distance
---@return number? hx
---@return number? hy
---@return number? hz
function Physics.raycast(world, x, y, z, dx, dy, dz, max_distance, mask) end

---The first body a shape meets when swept from (x, y, z) by (dx, dy, dz) without turning, and
---where: a box, sphere or capsule ({shape = "box", half_extents = {x, y, z}}, {shape = "sphere",
---radius = r}, {shape = "capsule", radius = r, half_height = h}; rotation = {x, y, z, w} turns it).
---The distance is how far it went along the motion (0 when it starts touching); the normal points
---out of the body hit. Sensors are never hit. Bad shapes raise an error naming the field.
---@param world ct.World
---@param shape table {shape = "box"|"sphere"|"capsule", half_extents?, radius?, half_height?, ...}
---@param x number
---@param y number
---@param z number
---@param dx number
---@param dy number
---@param dz number
---@param mask? integer collision layers to include (default all)
---@return ct.Entity|nil e
---@return number? distance
---@return number? px
---@return number? py
---@return number? pz
---@return number? nx
---@return number? ny
---@return number? nz
function Physics.shape_cast(world, shape, x, y, z, dx, dy, dz, mask) end

---A hash of every body's state, as hexadecimal text (for determinism checks).
---@param world ct.World
---@return string
function Physics.state_hash(world) end

---Sets the world's gravity (m/s^2).
---@param world ct.World
---@param x number
---@param y number
---@param z number
function Physics.set_gravity(world, x, y, z) end

---@class ActorModule
Actor = {}

---Sets the linear velocity (m/s) and wakes the body.
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Actor.set_velocity(world, e, x, y, z) end

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z
function Actor.velocity(world, e) end

---Adds a force (newtons) for the next step.
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Actor.add_force(world, e, x, y, z) end

---Moves the body to a position (no velocity change).
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Actor.teleport(world, e, x, y, z) end

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z
function Actor.position(world, e) end

---Sets the body's collision layer (one bit) and the layers it collides with.
---@param world ct.World
---@param e ct.Entity
---@param layer integer
---@param mask integer
function Actor.set_collision_filter(world, e, layer, mask) end

---@param world ct.World
---@param e ct.Entity
---@return boolean
function Actor.sleeping(world, e) end

---Wakes a sleeping body.
---@param world ct.World
---@param e ct.Entity
function Actor.wake(world, e) end

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z, number w
function Actor.rotation(world, e) end

---Sets the rotation (a quaternion, normalised).
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
---@param w number
function Actor.set_rotation(world, e, x, y, z, w) end

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z
function Actor.angular_velocity(world, e) end

---Sets the angular velocity (radians per second about each axis).
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Actor.set_angular_velocity(world, e, x, y, z) end

---Adds a torque (N m) for the next step.
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Actor.add_torque(world, e, x, y, z) end

---An impulse (N s) at a world point.
---@param world ct.World
---@param e ct.Entity
---@param jx number
---@param jy number
---@param jz number
---@param px number
---@param py number
---@param pz number
function Actor.add_impulse_at(world, e, jx, jy, jz, px, py, pz) end

---A force (N) at a world point, for the next step.
---@param world ct.World
---@param e ct.Entity
---@param fx number
---@param fy number
---@param fz number
---@param px number
---@param py number
---@param pz number
function Actor.add_force_at(world, e, fx, fy, fz, px, py, pz) end

---Makes e's static or kinematic body a sensor (trigger volume) or an ordinary body again. A sensor
---collides with nothing; after each step it calls on_sensor_enter(other) and
---on_sensor_leave(other) on e's script for the dynamic and kinematic bodies that came in or went
---out, honouring both collision filters (api/ct_physics.h, sensors). A dynamic body is refused.
---@param world ct.World
---@param e ct.Entity
---@param on boolean
function Actor.set_sensor(world, e, on) end

---@param world ct.World
---@param e ct.Entity
---@return boolean
function Actor.is_sensor(world, e) end

---The bodies inside sensor e at the end of the last step, by entity id (empty when e is no sensor).
---@param world ct.World
---@param e ct.Entity
---@return ct.Entity[]
function Actor.sensor_contents(world, e) end

---The kind of e's body, however it was made (C, Lua, a level or a unit: body = { shape = {
---type = "hull" ... } } reads back "hull"). Raises for an entity without a body.
---@param world ct.World
---@param e ct.Entity
---@return "box"|"sphere"|"capsule"|"hull"|"compound"|"mesh"
function Actor.shape(world, e) end

---Sets e's damping (1/s, each within [0, 1000]): linear slows its velocity, angular its spin, as
---water or air would (dv/dt = -linear v). 0 is none, every body's default (Jolt's bodies have
---0.05). Each solver step of h seconds divides the velocity by 1 + h c after gravity and forces,
---so a falling body settles at g / c (api/ct_physics.h, set_damping). Only dynamic bodies are
---slowed. Raises naming the entity and the field (linear_damping or angular_damping) for a value
---out of range, or for an entity without a body.
---@param world ct.World
---@param e ct.Entity
---@param linear number
---@param angular number
function Actor.set_damping(world, e, linear, angular) end

---e's damping (1/s), as set by Actor.set_damping or the body's linear_damping and angular_damping.
---@param world ct.World
---@param e ct.Entity
---@return number linear
---@return number angular
function Actor.damping(world, e) end

---Joins two bodies (b 0: the world) with a joint; lower, upper or cone_angle turn its limit on,
---motor_speed or max_motor_force its motor (api/ct_physics.h, Joints).
---@param world ct.World
---@param a ct.Entity
---@param b ct.Entity|0
---@param type "fixed"|"hinge"|"ball"|"slider"|"distance"
---@param desc? {anchor?: number[], anchor_b?: number[], axis?: number[], lower?: number, upper?: number, cone_angle?: number, motor_speed?: number, max_motor_force?: number, length?: number, spring_hertz?: number, spring_damping?: number, limit?: boolean, motor?: boolean, collide?: boolean}
---@return integer joint the joint's id
function Physics.add_joint(world, a, b, type, desc) end

---Removes a joint.
---@param world ct.World
---@param j integer
function Physics.remove_joint(world, j) end

---What a joint measures: a's motion against b (an angle in radians, or a distance in m).
---@param world ct.World
---@param j integer
---@return number value
function Physics.joint_value(world, j) end

---What a joint pulled with in the last step (N and N m), so a game can break it.
---@param world ct.World
---@param j integer
---@return number fx
---@return number fy
---@return number fz
---@return number tx
---@return number ty
---@return number tz
function Physics.joint_force(world, j) end

---Turns a joint's motor on with a target speed (rad/s or m/s) and the most it may pull with.
---@param world ct.World
---@param j integer
---@param speed number
---@param max_force number
function Physics.set_joint_motor(world, j, speed, max_force) end

---The joint that e's `joint` component (written in a level or unit) made, or nil when e has none
---or its body (and with it the joint) is gone.
---@param world ct.World
---@param e ct.Entity
---@return integer|nil j
function Physics.joint_of(world, e) end

---Gives e a character mover: an upright capsule the game walks (api/ct_physics.h, Characters).
---@param world ct.World
---@param e ct.Entity
---@param desc {radius: number, half_height: number, max_step?: number, max_slope?: number, step_down?: number, mass?: number, max_strength?: number, position?: number[]}
function Physics.add_character(world, e, desc) end

---Moves a character by a velocity for dt seconds: cast, collide and slide, step up, ride.
---@param world ct.World
---@param e ct.Entity
---@param vx number
---@param vy number
---@param vz number
---@param dt number
---@return boolean grounded
---@return ct.Entity|0 ground the body it stands on
---@return number x
---@return number y
---@return number z
---@return number vx
---@return number vy
---@return number vz
function Physics.move_character(world, e, vx, vy, vz, dt) end

---A character's settings (ct_character_settings_t in api/ct_physics.h): the highest step it climbs,
---the steepest slope it walks (radians), how far down it keeps its feet on the ground, its mass
---(kg, pressing on dynamic ground) and the largest force (N) it pushes dynamic bodies with.
---@class ct.CharacterSettings
---@field max_step number
---@field max_slope number
---@field step_down number
---@field mass number
---@field max_strength number

---Changes a character's settings; the fields left out keep their values. Refused (a Lua error
---naming the function, entity and field) for a field out of range or an entity that is no
---character of the world.
---@param world ct.World
---@param e ct.Entity
---@param settings ct.CharacterSettings
function Physics.set_character_settings(world, e, settings) end

---A character's settings.
---@param world ct.World
---@param e ct.Entity
---@return ct.CharacterSettings
function Physics.character_settings(world, e) end

---A contact a character's move made (ct_character_contact_t in api/ct_physics.h, Character
---contacts): the body it met (another character's too), a point where they touch, the body's
---normal there (unit, towards the character), the body's kind, whether the body is a character's,
---and whether the mover collided with it (false when a C contact callback vetoed it).
---@class ct.CharacterContact
---@field body integer the body's entity id
---@field point number[] {x, y, z}
---@field normal number[] {x, y, z}
---@field kind "static"|"kinematic"|"dynamic"
---@field character boolean
---@field accepted boolean

---The contacts of a character's last move_character, in the order it met them (each body once,
---at most 32): what a game would see per contact, as one list (a Lua call per contact would cost
---more than the move). Empty before its first move. Refused (a Lua error) for an entity that is
---no character of the world.
---@param world ct.World
---@param e ct.Entity
---@return ct.CharacterContact[]
function Physics.character_contacts(world, e) end

---Gives e a rigid body shaped as the convex hull of points (api/ct_physics.h, Hulls): at most 64
---points, refused when they are coplanar, duplicated, too few, NaN or huge. The body's position is
---the hull's centre of mass.
---@param world ct.World
---@param e ct.Entity
---@param points number[] x1, y1, z1, x2, ... in the body's frame
---@param desc? {kind?: "dynamic"|"static"|"kinematic", mass?: number, friction?: number, restitution?: number, position?: number[], rotation?: number[]}
function Physics.add_hull(world, e, points, desc) end

---Gives e a rigid body of several shapes (api/ct_physics.h, Compounds): each child a box
---(half_extents), sphere (radius), capsule (radius, half_height) or hull (points), placed by its
---position and rotation in the body's frame. Mass is shared by volume.
---@param world ct.World
---@param e ct.Entity
---@param children {shape: "box"|"sphere"|"capsule"|"hull", half_extents?: number[], radius?: number, half_height?: number, points?: number[], position?: number[], rotation?: number[]}[]
---@param desc? {kind?: "dynamic"|"static"|"kinematic", mass?: number, friction?: number, restitution?: number, position?: number[], rotation?: number[]}
function Physics.add_compound(world, e, children, desc) end

---Gives e a static body of triangles (api/ct_physics.h, Meshes): vertices x y z triples, indices
---three 1-based vertex numbers a triangle, counter-clockwise seen from the side it pushes out.
---@param world ct.World
---@param e ct.Entity
---@param vertices number[]
---@param indices integer[]
---@param desc? {friction?: number, restitution?: number, position?: number[], rotation?: number[]}
function Physics.add_mesh(world, e, vertices, indices, desc) end

---Gives e a static height field: heights[r * columns + c + 1] is the height at (c * cell_x,
---r * cell_z) of the body's frame, two triangles a cell, facing up.
---@param world ct.World
---@param e ct.Entity
---@param heights number[] columns x rows of them
---@param columns integer at least 2
---@param rows integer at least 2
---@param cell_x number
---@param cell_z number
---@param desc? {friction?: number, restitution?: number, position?: number[], rotation?: number[]}
function Physics.add_height_field(world, e, heights, columns, rows, cell_x, cell_z, desc) end
