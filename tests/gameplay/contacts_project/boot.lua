-- Physics contacts joined to islands: four stacks of three crates resting on a floor. Set with
-- -e: `mode` (0 parallel, 1 one thread, 2 serial) and `joined_floor` (the floor not shared).
local STACKS, HEIGHT = 4, 3

local function body(e, x, y, fields)
  World.add_component(w, e, "transform", string.format("{ position = [%g %g 0] }", x, y))
  World.add_component(w, e, "body", fields)
end

function init()
  Islands.load_script("handlers.lua")
  w = World.create()
  floor = Entity.create()
  body(floor, 0, -0.5, '{ kind = "static" shape = "box" half_extents = [50 0.5 50] }')
  crates = {}
  for s = 1, STACKS do
    for k = 1, HEIGHT do
      local e = Entity.create()
      body(e, (s - 1) * 4, k - 0.5, '{ shape = "box" half_extents = [0.5 0.5 0.5] }')
      crates[#crates + 1] = e
    end
  end
  landed = 0
  Islands.on_effect("landed", function(e, impulse) landed = landed + 1 end)
  local ok, err = pcall(Islands.contacts, w, "no_such_handler")
  assert(not ok and err:find("no handler for 'no_such_handler'"), err)
  Islands.contacts(w, "touch", "apart")
  frame = 0
end

function update(dt)
  frame = frame + 1
  Islands.shared(floor, not joined_floor) -- here: -e runs after init
  Physics.simulate(w, 1 / 60)
  local s = Islands.run(mode or 0)
  local again = Islands.run(mode or 0) -- no step since: nothing is posted twice
  print(string.format("contacts: frame %d: %d events, %d islands, largest %d, then %d events",
                      frame, s.events, s.islands, s.largest, again.events))
  if frame == 1 then Actor.teleport(w, crates[HEIGHT], 0, 20, 0) end -- stack 1 loses its top
end

function shutdown()
  local t, p = {}, {}
  for i, e in ipairs(crates) do
    t[i], p[i] = Islands.get(e, "touches"), Islands.get(e, "parted")
  end
  print("contacts: touches " .. table.concat(t, " ") .. "; parted " .. table.concat(p, " ") .. "; landed " .. landed)
  World.destroy(w) -- a destroyed world is forgotten: the run below must not read it
  print(string.format("contacts: after the world: %d events", Islands.run(mode or 0).events))
end
