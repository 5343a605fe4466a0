-- Prints each input event with its frame, action changes, and at shutdown a hash of everything
-- printed. `script_input` (set with -e) injects events from update: {[frame] = {{"down", "w"}, ...}},
-- applied at the start of the next frame, as a console script's Input.inject is.
local world, camera
local hash = 0
local lines = 0

local function out(s)
  print(s)
  lines = lines + 1
  for i = 1, #s do hash = (hash * 31 + s:byte(i)) % 4294967291 end  -- exact in doubles
end

function init()
  -- Bad arguments raise naming the function and the argument (modules/common/lua_checks.h).
  local ok, err = pcall(Input.inject, "dwn", "w")
  assert(not ok and err:find('Input.inject: argument 1 is "dwn", not one of down, up, motion, wheel, axis (did you mean "down"?)', 1, true), err)
  ok, err = pcall(Input.inject, "motion", 1.5, 0)
  assert(not ok and err:find("Input.inject: argument 2 is not a whole number of pixels (got 1.5)", 1, true), err)
  ok, err = pcall(Input.inject, "axis", "gamepad:left_x", 2)
  assert(not ok and err:find("Input.inject: argument 3 is not a number in [-1, 1] (got 2)", 1, true), err)
  Input.use_bindings("input/controls")
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 0, 0, 5)
end

function update(dt)
  local f = Input.frame()
  Render.render(world, camera)
  for _, e in ipairs(Input.events()) do
    if e.type == "motion" then
      out(string.format("event %d motion %d %d %d %d", f, e.x, e.y, e.dx, e.dy))
    elseif e.type == "wheel" then
      out(string.format("event %d wheel %d %d", f, e.x, e.y))
    elseif e.type == "axis" then
      out(string.format("event %d axis %s %.4f", f, e.control, e.value))
    else
      out(string.format("event %d %s %s", f, e.type, e.control))
    end
  end
  for _, a in ipairs({"jump", "fire"}) do
    local down, pressed, released = Input.action(a)
    if pressed or released then out(string.format("action %d %s %s", f, a, pressed and "pressed" or "released")) end
  end
  local x, y, dx, dy, wx, wy = Input.mouse()
  if dx ~= 0 or dy ~= 0 or wy ~= 0 then out(string.format("mouse %d %d %d %d %d %d %d", f, x, y, dx, dy, wx, wy)) end
  for _, ev in ipairs(script_input and script_input[f] or {}) do Input.inject(unpack(ev)) end
end

function shutdown()
  print(string.format("input: %d lines, hash %08x, w down %s", lines, hash, tostring(Input.down("w"))))
  World.destroy(world)
end
