---@meta
-- Worlds and entities (api/ct_world.h, api/ct_entity.h; the ct.entities module).

---@class WorldModule
World = {}

---A new world with a manager of every registered component type.
---@return ct.World w
function World.create() end

---Destroys the world, its entities' components and its queued callbacks.
---@param w ct.World
function World.destroy(w) end

---Spawns the unit resource `name` with its roots at (x, y, z), rotated by (qx, qy, qz, qw).
---Raises for a pose that is not finite or a rotation that is not a unit quaternion.
---@param w ct.World
---@param name string unit resource name ("units/crate")
---@param x? number
---@param y? number
---@param z? number
---@param qx? number
---@param qy? number
---@param qz? number
---@param qw? number
---@return ct.Entity|nil root the first root entity, nil on failure (logged)
function World.spawn_unit(w, name, x, y, z, qx, qy, qz, qw) end

---Spawns the level resource `name` at the origin.
---@param w ct.World
---@param name string level resource name ("levels/arena")
---@return integer|nil count entities made
---@return string? message why it failed
function World.spawn_level(w, name) end

---Spawns a unit or level and returns a handle of everything it made: h.root, h:entities(),
---h:count(), h:parent(e), h:children([e]), h:child(e, name), h:find("a/b"). Raises when the
---resource does not load.
---@param w ct.World
---@param kind "unit"|"level"
---@param name string
---@param x? number
---@param y? number
---@param z? number
---@param qx? number
---@param qy? number
---@param qz? number
---@param qw? number
---@return table h the spawn handle
function World.spawn(w, kind, name, x, y, z, qx, qy, qz, qw) end

---The entity's debug name in w.
---@param w ct.World
---@param e ct.Entity
---@return string|nil name
function World.debug_name(w, e) end

---Sets (or replaces) the entity's debug name in w.
---@param w ct.World
---@param e ct.Entity
---@param name string
function World.set_debug_name(w, e, name) end

---The first live entity of w with that debug name.
---@param w ct.World
---@param name string
---@return ct.Entity|nil e
function World.find(w, name) end

---Every live entity of w with that debug name (a linear walk).
---@param w ct.World
---@param name string
---@return ct.Entity[] entities
function World.find_all(w, name) end

---Gives a live entity a component: `fields` is a table or SJSON text, checked by the type's
---compiler and validation. Raises for an unknown type, field or value.
---@param w ct.World
---@param e ct.Entity
---@param kind string component type ("body", "mesh", ...)
---@param fields table|string
function World.add_component(w, e, kind, fields) end

---Removes the entity's component of that type. Raises for a type that collects lazily.
---@param w ct.World
---@param e ct.Entity
---@param kind string
function World.remove_component(w, e, kind) end

---Registers fn as the entity's script callback `name` (nil removes it); modules queue calls to it.
---@param w ct.World
---@param e ct.Entity
---@param name string e.g. "on_collision"
---@param fn fun(e: ct.Entity, ...: number)|nil
function World.set_callback(w, e, name, fn) end

---Queues the callback `name` for e with up to 16 numbers.
---@param w ct.World
---@param e ct.Entity
---@param name string
---@param ... number
function World.queue_callback(w, e, name, ...) end

---Runs the queued callbacks of w, in queue order.
---@param w ct.World
---@return integer run how many ran
function World.run_callbacks(w) end

---Runs the lazy garbage collection of every manager of w.
---@param w ct.World
function World.collect_garbage(w) end

---@class EntityModule
Entity = {}

---A new entity.
---@return ct.Entity e
function Entity.create() end

---Whether e is alive.
---@param e ct.Entity
---@return boolean
function Entity.alive(e) end

---Destroys e (every world's components hear of it); a dead e is ignored.
---@param e ct.Entity
function Entity.destroy(e) end

---How many entities are alive.
---@return integer
function Entity.count() end
