-- The demo's game loop. The kernel calls init(), then update(dt) every frame, then shutdown();
-- the script calls each module explicitly, so the frame's order is written here.

local world
local camera
local crates = {}
local dancer
local walker
local marks = 0
local collisions = 0
local frames = 0

local sparks = 0
local sparks_this_frame = 0

-- A hard enough hit throws sparks: an emitter of the effect's burst alone, stopped at once so it
-- goes away when its last spark has (a few per frame at most).
local function on_collision(entity, other, px, py, pz, nx, ny, nz, impulse)
  collisions = collisions + 1
  if impulse > 8 and sparks_this_frame < 3 then
    Particles.stop(world, Particles.spawn(world, "effects/sparks", px, py, pz))
    sparks = sparks + 1
    sparks_this_frame = sparks_this_frame + 1
  end
end

function init()
  world = World.create()

  -- Loading (reading and validating the compiled level) and spawning are timed apart: a game
  -- loads behind a loading screen, and spawning is what happens while it plays.
  local t0 = os.clock()
  Resource.load("level", "levels/arena")
  local t1 = os.clock()
  local n = assert(World.spawn_level(world, "levels/arena"))
  local t2 = os.clock()
  print(string.format("demo: loaded levels/arena in %.2f ms, spawned its %d entities in %.2f ms",
                      (t1 - t0) * 1000, n, (t2 - t1) * 1000))

  -- Three small stacks of crates, dropped from a little above the floor, each crate turned and
  -- set off its column a little more than the one below: they land on edges, tip over and tumble.
  for stack = 0, 2 do
    for level = 0, 3 do
      local e = World.spawn_unit(world, "units/crate", stack * 3 - 3 + level * 0.3, 1 + level * 1.5, 0)
      local a = 0.35 + 0.2 * level + 0.15 * stack -- radians about a tilted axis
      local ax, ay, az = 0.6, 0.3, 0.74
      local s = math.sin(a / 2) / math.sqrt(ax * ax + ay * ay + az * az)
      Actor.set_rotation(world, e, ax * s, ay * s, az * s, math.cos(a / 2))
      World.set_callback(world, e, "on_collision", on_collision)
      crates[#crates + 1] = e
    end
  end
  print(string.format("demo: dropped %d crates", #crates))
  -- For a console client (`cuttle --console 0`): the world and its crates by name.
  demo = {world = world, crates = crates}

  -- A dancer playing CMU motion capture: its bones are transforms under it; a joint marker is
  -- linked under each so the renderer draws the skeleton.
  dancer = World.spawn_unit(world, "units/dancer", 2.5, 0, 4)
  for i = 1, Animation.bone_count(world, dancer) do
    local joint = World.spawn_unit(world, "units/joint", 0, 0, 0)
    Transform.link(world, joint, Animation.bone(world, dancer, i))
  end
  print(string.format("demo: a dancer with %d bones", Animation.bone_count(world, dancer)))
  -- Its play speed is an expression of a controller variable the loop below sets.
  Animation.set_controller(world, dancer, {variables = {"tempo"}, speed = "0.8 + 0.4 * tempo"})

  -- A skinned, textured character walking (a glTF laid out like a Blender export): its mesh
  -- follows its bones on the GPU.
  walker = World.spawn_unit(world, "units/walker", -0.5, 0, 5.5)
  print(string.format("demo: a walker with %d bones, skinned", Animation.bone_count(world, walker)))

  -- A smoke column left of the stacks: a unit whose particle_emitter component starts it.
  World.spawn_unit(world, "units/smoke", -5, 0, 2)
  -- A whirlwind to the right, carrying ten small boxes (a force field's expression).
  World.spawn_unit(world, "units/whirlwind", 5.5, 0, 2.5)

  -- A camera and a sun, aimed at the stacks.
  camera = World.spawn_unit(world, "units/camera", 4, 3.5, 8.5)
  Render.look_at(world, camera, 0, 1.8, 0)
  local sun = World.spawn_unit(world, "units/sun", 4, 10, 6)
  Render.look_at(world, sun, 0, 0, 0)
end

-- Networking, optional: the same demo as host and as client on two ports of this machine,
--   cuttle --project projects/demo --modules build/modules --fps 60 --frames 360 -e 'net_host(40001)' &
--   cuttle --project projects/demo --modules build/modules --fps 60 --frames 240 -e 'net_join(40002, "127.0.0.1:40001")'
-- The host replicates its crates; the client sees them as entities and reports what arrived.
function net_host(port)
  Network.start{ port = port, host = true, world = world }
  for _, e in ipairs(crates) do Network.replicate(world, e) end
  print(string.format("demo: hosting on port %d, %d crates replicated", Network.port(), #crates))
end

function net_join(port, host)
  Network.start{ port = port, join = host, world = world }
  print(string.format("demo: joining %s from port %d", host, Network.port()))
end

local function report_network()
  local s = Network.stats()
  if not s.datagrams_in then return end
  print(string.format("demo: network peer %d, %d peers, %d objects, %d datagrams in, %d out, %d updates applied",
                      Network.peer_id(), #Network.peers(), s.objects, s.datagrams_in, s.datagrams_out,
                      s.updates_applied))
end

function update(dt)
  frames = frames + 1
  Physics.simulate(world, dt)
  World.run_callbacks(world)
  Animation.set_variable(world, dancer, "tempo", math.sin(frames / 30))
  Animation.evaluate(world, dt)
  Particles.simulate(world, dt)
  sparks_this_frame = 0
  for _, event in ipairs(Animation.events(world)) do
    marks = marks + 1
    print(string.format("demo: frame %d, the dancer passed \"%s\" (%.2f s into the clip)",
                        frames, event.name, event.time))
  end
  -- Debug drawing: the walker's skeleton and a frame counter, on screen for this frame.
  Render.debug_skeleton(world, walker, 1, 0.9, 0.2)
  Render.debug_text(10, 8, string.format("frame %d", frames), 1, 1, 1, 0.9)
  Render.render(world, camera)
  -- A handful of frames of the falling crates, as PNGs (with the gl backend).
  if Render.backend() == "gl" and (frames == 1 or frames == 20 or frames == 40 or frames == 90 or frames == 180) then
    print("demo: wrote " .. Render.screenshot(string.format("out/demo/frame_%03d.png", frames)))
  end
  if frames % 120 == 0 then report_network() end
  if frames % 60 == 0 then
    local x, y, z = Transform.world_position(world, crates[1])
    print(string.format("demo: frame %d, %d collisions reported to Lua, lowest crate at y = %.3f", frames, collisions, y))
    print(string.format("demo: %d particles live, %d spark bursts so far", Particles.count(world), sparks))
    local s = Render.stats()
    print(string.format("demo: rendered %d of %d meshes (%d packets, %d state changes, hash %s)",
                        s.visible, s.objects, s.packets, s.state_changes, s.hash))
  end
end

function shutdown()
  local resting = 0
  for _, e in ipairs(crates) do
    local vx, vy, vz = Actor.velocity(world, e)
    if math.abs(vy) < 0.05 then resting = resting + 1 end
  end
  print(string.format("demo: %d frames, %d collisions reported to Lua, %d of %d crates at rest",
                      frames, collisions, resting, #crates))
  -- They were dropped turned: those that tipped over now lie on a face (one axis points up).
  local flat = 0
  for _, e in ipairs(crates) do
    local x, y, z, w = Actor.rotation(world, e)
    local ux, uy, uz = 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) -- local y
    local rx, ry, rz = 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) -- local x
    local fx, fy, fz = 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) -- local z
    if math.max(math.abs(uy), math.abs(ry), math.abs(fy)) > 0.99 then flat = flat + 1 end
  end
  print(string.format("demo: %d of %d crates tipped over and lie on a face", flat, #crates))
  local hx, hy, hz = Transform.world_position(world, Animation.bone(world, dancer, "Head"))
  print(string.format("demo: the dancer's clip at %.2f s, %d events, head at (%.2f, %.2f, %.2f)",
                      Animation.time(world, dancer), marks, hx, hy, hz))
  report_network()
  Network.stop()
  World.destroy(world)
  Resource.unload("level", "levels/arena")
end
