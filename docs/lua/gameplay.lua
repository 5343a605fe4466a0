---@meta
-- The game clock, timers and gameplay islands (api/ct_gameplay.h; the ct.gameplay module).

---@class ClockModule
Clock = {}

---The frame's game time step (0 while paused, scaled by the time scale).
---@return number
function Clock.dt() end

---@return number seconds game time since start
function Clock.time() end

---@return integer frames the clock advanced
function Clock.frame() end

---Pauses the game clock (dt becomes 0; timers wait).
function Clock.pause() end

---Resumes the game clock.
function Clock.resume() end

---Whether the game clock is paused.
---@return boolean
function Clock.paused() end

---Sets the time scale (finite, >= 0; raises otherwise).
---@param s number
function Clock.set_scale(s) end

---The time scale.
---@return number
function Clock.scale() end

---The frame's dt before pause and scale.
---@return number
function Clock.real_dt() end

---@class TimerModule
Timer = {}

---Runs fn(...) once when the game time advanced by `seconds` (finite, >= 0; raises otherwise).
---@param seconds number
---@param fn function
---@param ... any
---@return integer id
function Timer.after(seconds, fn, ...) end

---Runs fn(...) every `seconds` of game time (> 0).
---@param seconds number
---@param fn function
---@param ... any
---@return integer id
function Timer.every(seconds, fn, ...) end

---@param id integer
---@return boolean pending whether it was pending
function Timer.cancel(id) end

---@return integer waiting how many timers wait
function Timer.pending() end

---@class IslandsModule
Islands = {}

---Loads the gameplay script into every worker's Lua state (its on_<event> functions handle events).
---@param path string
function Islands.load_script(path) end

---Posts an event naming its entities, with up to four numbers.
---@param event string
---@param entities ct.Entity[]
---@param a1? number
---@param a2? number
---@param a3? number
---@param a4? number
function Islands.post(event, entities, a1, a2, a3, a4) end

---Joins the world's physics contacts to the islands: touching bodies share one (shared ones join
---nothing). Handlers are names of the gameplay script's functions; both nil stop it.
---@param world ct.World
---@param collision? string the handler of a collision event (raises for an unknown name)
---@param ended? string the handler of a contact that ended
function Islands.contacts(world, collision, ended) end

---Handles the posted events as islands on every core, then applies their effects.
---@param mode? 0|1|2 0 parallel (default), 1 one thread, 2 serial (raises for another)
---@return {events: integer, islands: integer, largest: integer, shared_only: integer, effects: integer, refused: integer, errors: integer, threads: integer, build_ms: number, run_ms: number, apply_ms: number}
function Islands.run(mode) end

---Handles the effect `name` on the main thread: fn(target, a1, a2, a3, a4).
---@param name string
---@param fn fun(target: ct.Entity, a1: number, a2: number, a3: number, a4: number)
function Islands.on_effect(name, fn) end

---A field of an entity the event names (0 until set).
---@param e ct.Entity
---@param field string
---@return number
function Islands.get(e, field) end

---Sets a field of an entity the event names (a refused write, to an entity the event does not
---name or a shared one, is counted in the run's `refused`).
---@param e ct.Entity
---@param field string
---@param v number
function Islands.set(e, field, v) end

---Marks e shared (kept out of the islands' union) or not.
---@param e ct.Entity
---@param on boolean
function Islands.shared(e, on) end
