-- Arena: move the player with the keys (w a s d, the arrows, or a gamepad's left stick), turn it
-- with the mouse, dash with space or the left button, pause with p. Collect the gold gems; each
-- one adds a point to the score on screen and a new gem appears a moment later somewhere else.
--
-- Everything the game keeps lives in the global `game` (made by init()), so a --watch reload of
-- this file keeps playing with the same world.

local SPEED, DASH_SPEED, TURN = 6, 14, 0.006 -- metres per second; radians per mouse pixel
local GEMS, RESPAWN, REACH, EDGE = 5, 1.5, 1.0, 9.3
local DIGITS = { [0] = "abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg" }

-- A small deterministic random generator (the same gems on every run and in every replay).
local function next_random()
  game.seed = (game.seed * 1103515245 + 12345) % 2147483648
  return game.seed / 2147483648
end

local function spawn_gem()
  local x, z = (next_random() * 2 - 1) * (EDGE - 1), (next_random() * 2 - 1) * (EDGE - 1)
  local gem = World.spawn(game.world, "unit", "units/gem", x, 0.5, z).root
  game.gems[#game.gems + 1] = gem
end

-- Lights the segments of both digits for the score (Render.set_material on the named boxes).
local function show_score()
  local digits = { tens = math.floor(game.score / 10) % 10, ones = game.score % 10 }
  for digit, value in pairs(digits) do
    for segment in ("abcdefg"):gmatch(".") do
      local on = DIGITS[value]:find(segment, 1, true) and not (digit == "tens" and game.score < 10)
      Render.set_material(game.world, game.board:find(digit .. "/" .. segment),
                          on and "materials/segment_on" or "materials/segment_off")
    end
  end
end

function init()
  game = { seed = 20261128, score = 0, yaw = 0, zoom = 11, dash_until = -1, gems = {}, frames = 0 }
  Input.use_bindings("input/controls")
  game.world = World.create()
  game.level = World.spawn(game.world, "level", "levels/arena")
  game.player = game.level:find("player")
  game.camera = World.find(game.world, "camera")
  Render.look_at(game.world, game.level:find("sun"), 0, 0, 0)
  -- The score display hangs in front of the camera, top left, so it is drawn on screen.
  game.board = World.spawn(game.world, "unit", "units/scoreboard")
  Transform.link(game.world, game.board.root, game.camera)
  Transform.set_local_position(game.world, game.board.root, -2.2, 1.0, -4)
  Transform.set_local_scale(game.world, game.board.root, 0.45, 0.45, 0.45)
  for _ = 1, GEMS do spawn_gem() end
  show_score()
  print(string.format("arena: %d entities in the level, %d gems, the player is entity %d",
                      game.level:count(), #game.gems, game.player))
end

local function axis(positive, negative)
  return (Input.action(positive) and 1 or 0) - (Input.action(negative) and 1 or 0)
end

local function move_player(dt)
  local _, _, dx, _, _, wheel = Input.mouse()
  game.yaw = game.yaw - dx * TURN
  game.zoom = math.max(6, math.min(20, game.zoom - wheel))
  local _, dash = Input.action("dash")
  if dash then game.dash_until = Clock.time() + 0.3 end
  -- Forward is the player's -z; the stick adds to the keys.
  local fwd = axis("forward", "back") - Input.axis("gamepad:left_y")
  local side = axis("right", "left") + Input.axis("gamepad:left_x")
  local len = math.sqrt(fwd * fwd + side * side)
  if len > 1 then fwd, side = fwd / len, side / len end
  local speed = Clock.time() < game.dash_until and DASH_SPEED or SPEED
  local s, c = math.sin(game.yaw), math.cos(game.yaw)
  local x, y, z = Transform.local_position(game.world, game.player)
  x = x + (side * c - fwd * s) * speed * dt
  z = z + (-side * s - fwd * c) * speed * dt
  x, z = math.max(-EDGE, math.min(EDGE, x)), math.max(-EDGE, math.min(EDGE, z))
  Transform.set_local_position(game.world, game.player, x, y, z)
  Transform.set_local_rotation(game.world, game.player, 0, math.sin(game.yaw / 2), 0, math.cos(game.yaw / 2))
  return x, z
end

local function collect(px, pz)
  for i = #game.gems, 1, -1 do
    local gem = game.gems[i]
    local gx, _, gz = Transform.world_position(game.world, gem)
    if (gx - px) ^ 2 + (gz - pz) ^ 2 < REACH * REACH then
      Entity.destroy(gem)
      table.remove(game.gems, i)
      game.score = game.score + 1
      show_score()
      print(string.format("arena: frame %d, a gem at (%.2f, %.2f): score %d", game.frames, gx, gz, game.score))
      Timer.after(RESPAWN, spawn_gem)
    end
  end
end

-- Test and demo only: with `-e 'autopilot = true'` the script plays itself by injecting input
-- events (as a console client or a player would send them), walking to the nearest gem; run with
-- --record-input to make a recording.
local held = {}
local function press(control, down)
  if (held[control] or false) ~= down then
    Input.inject(down and "down" or "up", control)
    held[control] = down
  end
end

local function drive(px, pz)
  local best, bx, bz = math.huge, px, pz
  for _, gem in ipairs(game.gems) do
    local gx, _, gz = Transform.world_position(game.world, gem)
    local d = (gx - px) ^ 2 + (gz - pz) ^ 2
    if d < best then best, bx, bz = d, gx, gz end
  end
  -- The gem in the player's frame: forward is -z turned by yaw.
  local s, c = math.sin(game.yaw), math.cos(game.yaw)
  local wx, wz = bx - px, bz - pz
  local side, fwd = wx * c - wz * s, -(wx * s + wz * c)
  press("w", fwd > 0.3) press("s", fwd < -0.3) press("d", side > 0.3) press("a", side < -0.3)
  press("space", game.frames % 180 == 90)
  -- A slow look around with the mouse now and then.
  if game.frames % 240 < 30 then Input.inject("motion", 320, 180, game.frames % 480 < 240 and 4 or -4, 0) end
end

function update(dt)
  game.frames = game.frames + 1
  local _, pause = Input.action("pause")
  if pause then if Clock.paused() then Clock.resume() else Clock.pause() end end
  local px, pz = move_player(Clock.dt())
  collect(px, pz)
  for i, gem in ipairs(game.gems) do -- the gems spin with game time
    local a = Clock.time() * 2 + i
    Transform.set_local_rotation(game.world, gem, 0, math.sin(a / 2), 0, math.cos(a / 2))
  end
  local s, c = math.sin(game.yaw), math.cos(game.yaw)
  Transform.set_local_position(game.world, game.camera, px + s * game.zoom * 0.7, game.zoom * 0.8, pz + c * game.zoom * 0.7)
  Render.look_at(game.world, game.camera, px, 0, pz)
  Render.render(game.world, game.camera)
  if autopilot then drive(px, pz) end
end

-- The state a replay must reproduce exactly, as one number.
local function state_hash()
  local px, _, pz = Transform.world_position(game.world, game.player)
  local parts = { string.format("%d %.6f %.6f %.6f", game.score, px, pz, game.yaw) }
  for _, gem in ipairs(game.gems) do
    local gx, _, gz = Transform.world_position(game.world, gem)
    parts[#parts + 1] = string.format("%.6f %.6f", gx, gz)
  end
  local h = 0
  for ch in table.concat(parts, "|"):gmatch(".") do h = (h * 31 + ch:byte()) % 4294967291 end
  return h, px, pz
end

function reload()
  print(string.format("arena: reloaded at frame %d with score %d", game.frames, game.score))
end

function shutdown()
  local h, px, pz = state_hash()
  print(string.format("arena: %d frames, score %d, player at (%.2f, %.2f), state %08x", game.frames, game.score, px, pz, h))
  World.destroy(game.world)
end
