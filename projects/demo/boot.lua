-- The demo's game loop. The kernel calls init(), then update(dt) every frame, then shutdown();
-- the script calls each module explicitly, so the frame's order is written here.

-- Everything the demo keeps lives in the global `demo`, made by init(): a --watch reload of this
-- file runs it again in the same Lua state, where locals start empty but `demo` stays, and
-- reload() below says what it carries over. (A console client reads it too: demo.world, demo.crates.)

-- A hard enough hit throws sparks: an emitter of the effect's burst alone, stopped at once so it
-- goes away when its last spark has (a few per frame at most).
local function on_collision(entity, other, px, py, pz, nx, ny, nz, impulse)
  demo.collisions = demo.collisions + 1
  if impulse > 8 and demo.sparks_this_frame < 3 then
    Particles.stop(demo.world, Particles.spawn(demo.world, "effects/sparks", px, py, pz))
    demo.sparks = demo.sparks + 1
    demo.sparks_this_frame = demo.sparks_this_frame + 1
  end
end

function init()
  demo = {crates = {}, marks = 0, collisions = 0, frames = 0, sparks = 0, sparks_this_frame = 0}
  demo.world = World.create()

  -- Loading (reading and validating the compiled level) and spawning are timed apart: a game
  -- loads behind a loading screen, and spawning is what happens while it plays.
  local t0 = os.clock()
  Resource.load("level", "levels/arena")
  local t1 = os.clock()
  local n = assert(World.spawn_level(demo.world, "levels/arena"))
  local t2 = os.clock()
  print(string.format("demo: loaded levels/arena in %.2f ms, spawned its %d entities in %.2f ms",
                      (t1 - t0) * 1000, n, (t2 - t1) * 1000))

  -- Three small stacks of crates, dropped from a little above the floor, each crate turned and
  -- set off its column a little more than the one below: they land on edges, tip over and tumble.
  for stack = 0, 2 do
    for level = 0, 3 do
      local e = World.spawn_unit(demo.world, "units/crate", stack * 3 - 3 + level * 0.3, 1 + level * 1.5, 0)
      local a = 0.35 + 0.2 * level + 0.15 * stack -- radians about a tilted axis
      local ax, ay, az = 0.6, 0.3, 0.74
      local s = math.sin(a / 2) / math.sqrt(ax * ax + ay * ay + az * az)
      Actor.set_rotation(demo.world, e, ax * s, ay * s, az * s, math.cos(a / 2))
      World.set_callback(demo.world, e, "on_collision", on_collision)
      demo.crates[#demo.crates + 1] = e
    end
  end
  print(string.format("demo: dropped %d crates", #demo.crates))

  -- A ragdoll (units/ragdoll: capsules joined by ball joints and hinges, all written as data) on
  -- the landing at the top of the level's stairs, facing down them: its push sends it down.
  demo.ragdoll = World.spawn(demo.world, "unit", "units/ragdoll", -4, 1.82, -5.1)
  demo.pelvis = demo.ragdoll:find("pelvis")
  local joints = 0
  for _, e in ipairs(demo.ragdoll:entities()) do
    if Physics.joint_of(demo.world, e) then joints = joints + 1 end
  end
  print(string.format("demo: a ragdoll of %d parts and %d joints on the stairs", demo.ragdoll:count(), joints))
  -- A trigger at the foot of the stairs (units/trigger: a sensor written as data): its
  -- on_sensor_enter says when the first part of the ragdoll arrives.
  demo.trigger = World.spawn_unit(demo.world, "units/trigger", -4, 0.5, -1.25)
  demo.ragdoll_parts, demo.arrivals = {}, 0
  for _, e in ipairs(demo.ragdoll:entities()) do demo.ragdoll_parts[e] = true end
  World.set_callback(demo.world, demo.trigger, "on_sensor_enter", function(_, other)
    if not demo.ragdoll_parts[other] then return end
    demo.arrivals = demo.arrivals + 1
    if demo.arrivals == 1 then
      print(string.format("demo: frame %d, the ragdoll reached the foot of the stairs", demo.frames))
    end
  end)
  -- A second camera beside the stairs, for a few close-ups of the fall.
  demo.stairs_camera = World.spawn_unit(demo.world, "units/camera", -7.2, 2.4, -0.6)
  Render.look_at(demo.world, demo.stairs_camera, -4, 0.9, -4)

  -- A dancer playing CMU motion capture: its bones are transforms under it; a joint marker is
  -- linked under each so the renderer draws the skeleton.
  demo.dancer = World.spawn_unit(demo.world, "units/dancer", 2.5, 0, 4)
  for i = 1, Animation.bone_count(demo.world, demo.dancer) do
    local joint = World.spawn_unit(demo.world, "units/joint", 0, 0, 0)
    Transform.link(demo.world, joint, Animation.bone(demo.world, demo.dancer, i))
  end
  print(string.format("demo: a dancer with %d bones", Animation.bone_count(demo.world, demo.dancer)))
  -- Its play speed is an expression of a controller variable the loop below sets.
  Animation.set_controller(demo.world, demo.dancer, {variables = {"tempo"}, speed = "0.8 + 0.4 * tempo"})

  -- A skinned, textured character walking (a glTF laid out like a Blender export): its mesh
  -- follows its bones on the GPU.
  demo.walker = World.spawn_unit(demo.world, "units/walker", -0.5, 0, 5.5)
  print(string.format("demo: a walker with %d bones, skinned", Animation.bone_count(demo.world, demo.walker)))

  -- A smoke column left of the stacks: a unit whose particle_emitter component starts it.
  World.spawn_unit(demo.world, "units/smoke", -5, 0, 2)
  -- A whirlwind to the right, carrying ten small boxes (a force field's expression).
  World.spawn_unit(demo.world, "units/whirlwind", 5.5, 0, 2.5)

  -- A camera and a sun, aimed at the stacks.
  demo.camera = World.spawn_unit(demo.world, "units/camera", 4, 3.5, 8.5)
  Render.look_at(demo.world, demo.camera, 0, 1.8, 0)
  local sun = World.spawn_unit(demo.world, "units/sun", 4, 10, 6)
  Render.look_at(demo.world, sun, 0, 0, 0)
end

-- Networking, optional: the same demo as host and as client on two ports of this machine,
--   cuttle --project projects/demo --modules build/modules --fps 60 --frames 360 -e 'net_host(40001)' &
--   cuttle --project projects/demo --modules build/modules --fps 60 --frames 240 -e 'net_join(40002, "127.0.0.1:40001")'
-- The host replicates its crates; the client sees them as entities and reports what arrived.
function net_host(port)
  Network.start{ port = port, host = true, world = demo.world }
  for _, e in ipairs(demo.crates) do Network.replicate(demo.world, e) end
  print(string.format("demo: hosting on port %d, %d crates replicated", Network.port(), #demo.crates))
end

function net_join(port, host)
  Network.start{ port = port, join = host, world = demo.world }
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
  demo.frames = demo.frames + 1
  Physics.simulate(demo.world, dt)
  World.run_callbacks(demo.world)
  Animation.set_variable(demo.world, demo.dancer, "tempo", math.sin(demo.frames / 30))
  Animation.evaluate(demo.world, dt)
  Particles.simulate(demo.world, dt)
  demo.sparks_this_frame = 0
  for _, event in ipairs(Animation.events(demo.world)) do
    demo.marks = demo.marks + 1
    print(string.format("demo: frame %d, the dancer passed \"%s\" (%.2f s into the clip)",
                        demo.frames, event.name, event.time))
  end
  -- Debug drawing: the walker's skeleton and a frame counter, on screen for this frame.
  Render.debug_skeleton(demo.world, demo.walker, 1, 0.9, 0.2)
  Render.debug_text(10, 8, string.format("frame %d", demo.frames), 1, 1, 1, 0.9)
  Render.render(demo.world, demo.camera)
  -- A handful of frames of the falling crates, as PNGs (with the gl backend).
  local f = demo.frames
  if Render.backend() == "gl" and (f == 1 or f == 20 or f == 40 or f == 90 or f == 180) then
    print("demo: wrote " .. Render.screenshot(string.format("out/demo/frame_%03d.png", f)))
  end
  -- The ragdoll's fall, seen from beside the stairs (one more render on those frames).
  if Render.backend() == "gl" and (f == 15 or f == 30 or f == 45 or f == 90) then
    Render.render(demo.world, demo.stairs_camera)
    print("demo: wrote " .. Render.screenshot(string.format("out/demo/ragdoll_%03d.png", f)))
  end
  if demo.frames % 120 == 0 then report_network() end
  if demo.frames % 60 == 0 then
    local x, y, z = Transform.world_position(demo.world, demo.crates[1])
    print(string.format("demo: frame %d, %d collisions reported to Lua, lowest crate at y = %.3f", demo.frames, demo.collisions, y))
    print(string.format("demo: %d particles live, %d spark bursts so far", Particles.count(demo.world), demo.sparks))
    local s = Render.stats()
    print(string.format("demo: rendered %d of %d meshes (%d packets, %d state changes, hash %s)",
                        s.visible, s.objects, s.packets, s.state_changes, s.hash))
  end
end

-- With --watch the kernel runs this file again when it changes (init() does not run again), then
-- calls reload(): the world, the crates and the counters carry over in `demo`, and the crates'
-- collision callback becomes this file's on_collision.
function reload()
  for _, e in ipairs(demo.crates) do World.set_callback(demo.world, e, "on_collision", on_collision) end
  print(string.format("demo: reloaded at frame %d, %d crates carried over", demo.frames, #demo.crates))
end

function shutdown()
  local resting = 0
  for _, e in ipairs(demo.crates) do
    local vx, vy, vz = Actor.velocity(demo.world, e)
    if math.abs(vy) < 0.05 then resting = resting + 1 end
  end
  print(string.format("demo: %d frames, %d collisions reported to Lua, %d of %d crates at rest",
                      demo.frames, demo.collisions, resting, #demo.crates))
  -- They were dropped turned: those that tipped over now lie on a face (one axis points up).
  local flat = 0
  for _, e in ipairs(demo.crates) do
    local x, y, z, w = Actor.rotation(demo.world, e)
    local ux, uy, uz = 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) -- local y
    local rx, ry, rz = 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) -- local x
    local fx, fy, fz = 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) -- local z
    if math.max(math.abs(uy), math.abs(ry), math.abs(fy)) > 0.99 then flat = flat + 1 end
  end
  print(string.format("demo: %d of %d crates tipped over and lie on a face", flat, #demo.crates))
  local hx, hy, hz = Transform.world_position(demo.world, Animation.bone(demo.world, demo.dancer, "Head"))
  print(string.format("demo: the dancer's clip at %.2f s, %d events, head at (%.2f, %.2f, %.2f)",
                      Animation.time(demo.world, demo.dancer), demo.marks, hx, hy, hz))
  print(string.format("demo: ragdoll parts came into the trigger %d times, %d bodies in it now", demo.arrivals,
                      #Actor.sensor_contents(demo.world, demo.trigger)))
  local px, py, pz = Actor.position(demo.world, demo.pelvis)
  print(string.format("demo: the ragdoll's pelvis at (%.2f, %.2f, %.2f), from (-4.00, 2.82, -5.10) on the landing",
                      px, py, pz))
  report_network()
  Network.stop()
  World.destroy(demo.world)
  Resource.unload("level", "levels/arena")
end
