---@meta
-- Skeletal animation (api/ct_animation.h; the ct.animation module). Bad arguments (NaN or
-- infinite times and speeds, unknown clips, entities without an animation) raise errors naming
-- the entity and the argument.

---@class AnimationModule
Animation = {}

---Plays a clip resource on e's animation.
---@param world ct.World
---@param e ct.Entity
---@param clip string clip resource name
---@param options? {loop?: boolean, speed?: number}
function Animation.play(world, e, clip, options) end

---Blends from the playing clip to `clip` over `seconds`.
---@param world ct.World
---@param e ct.Entity
---@param clip string
---@param seconds number
---@param options? {loop?: boolean, speed?: number}
function Animation.crossfade(world, e, clip, seconds, options) end

---@param world ct.World
---@param e ct.Entity
---@return number seconds the playing clip's time
function Animation.time(world, e) end

---Moves the playing clip to a time.
---@param world ct.World
---@param e ct.Entity
---@param seconds number
function Animation.set_time(world, e, seconds) end

---Advances every animation of the world by dt and writes the bone transforms.
---@param world ct.World
---@param dt number
function Animation.evaluate(world, dt) end

---The events the last evaluate passed.
---@param world ct.World
---@return {entity: ct.Entity, name: string, time: number}[]
function Animation.events(world) end

---A bone's entity by name or index (from 1).
---@param world ct.World
---@param e ct.Entity
---@param bone string|integer
---@return ct.Entity|nil
function Animation.bone(world, e, bone) end

---@param world ct.World
---@param e ct.Entity
---@return integer bones 0 without an animation
function Animation.bone_count(world, e) end

---Sets (nil: removes) the controller: speed and crossfade weight as expressions of variables.
---It lives with the world and is kept, variables and all, across a hot reload of the module.
---@param world ct.World
---@param e ct.Entity
---@param controller {variables: string[], speed?: string, weight?: string}|nil
function Animation.set_controller(world, e, controller) end

---Sets a controller variable.
---@param world ct.World
---@param e ct.Entity
---@param name string a variable the controller declared
---@param value number
function Animation.set_variable(world, e, name, value) end

---@param world ct.World
---@param e ct.Entity
---@param name string
---@return number value
function Animation.variable(world, e, name) end

---The clips of clip resources (a glTF file's animation names and durations).
---@param ... string clip resource names
---@return {name: string, duration: number, bones: integer}[]
function Animation.clips(...) end
