---@meta
-- The scene graph (api/ct_transform.h; the ct.transforms module). An entity without a transform
-- in that world raises an error naming it.

---@class TransformModule
Transform = {}

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z
function Transform.local_position(world, e) end

---Sets the local position (world transforms below it follow at once).
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Transform.set_local_position(world, e, x, y, z) end

---The local rotation as a quaternion.
---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z, number w
function Transform.local_rotation(world, e) end

---Sets the local rotation (normalised; raises for a zero or non-finite quaternion).
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
---@param w number
function Transform.set_local_rotation(world, e, x, y, z, w) end

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z
function Transform.local_scale(world, e) end

---Sets the local scale.
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Transform.set_local_scale(world, e, x, y, z) end

---The world position (kept up to date immediately).
---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z
function Transform.world_position(world, e) end

---@param world ct.World
---@param e ct.Entity
---@return number x, number y, number z, number w
function Transform.world_rotation(world, e) end

---Makes child a child of parent (its local pose is kept; raises for a cycle).
---@param world ct.World
---@param child ct.Entity
---@param parent ct.Entity
function Transform.link(world, child, parent) end

---Makes child a root.
---@param world ct.World
---@param child ct.Entity
function Transform.unlink(world, child) end

---Destroys e and every entity below it.
---@param world ct.World
---@param e ct.Entity
---@return integer destroyed
function Transform.destroy_tree(world, e) end
