---@meta
-- Particle emitters (api/ct_particles.h; the ct.particles module). Bad arguments raise an error
-- naming them.

---@class ParticlesModule
Particles = {}

---Starts an emitter of a particles effect (loaded if needed) at a point.
---@param world ct.World
---@param effect string particles resource name
---@param x number
---@param y number
---@param z number
---@return integer id the emitter
function Particles.spawn(world, effect, x, y, z) end

---Stops emitting; the particles live out their lives.
---@param world ct.World
---@param id integer
function Particles.stop(world, id) end

---Removes the emitter and its particles.
---@param world ct.World
---@param id integer
function Particles.destroy(world, id) end

---Moves an emitter.
---@param world ct.World
---@param id integer
---@param x number
---@param y number
---@param z number
function Particles.move(world, id, x, y, z) end

---Steps every emitter of the world by dt.
---@param world ct.World
---@param dt number
function Particles.simulate(world, dt) end

---Live particles of one emitter, or of the world.
---@param world ct.World
---@param id? integer
---@return integer
function Particles.count(world, id) end

---One live particle of an emitter (i from 1).
---@param world ct.World
---@param id integer
---@param i integer
---@return number px, number py, number pz, number vx, number vy, number vz, number size, number alpha
function Particles.particle(world, id, i) end
