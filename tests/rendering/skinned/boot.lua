-- The walker at three fixed times of its clip (0.2, 0.5 and 0.73 s), one per frame, with debug
-- drawing over it.
local world, camera, walker
local times = {0.2, 0.5, 0.73}
local frame = 0

function init()
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 1.3, 1.2, 1.4)
  Render.look_at(world, camera, 0.5, 0.8, -0.6)
  local sun = World.spawn_unit(world, "units/sun", 3, 6, 4)
  Render.look_at(world, sun, 0, 0, 0)
  World.spawn_unit(world, "units/ground", 0, 0, 0)
  walker = World.spawn_unit(world, "units/walker", 0, 0, 0)
end

function update(dt)
  frame = frame + 1
  Animation.set_time(world, walker, times[frame] or 0)
  Animation.evaluate(world, 0)
  -- Debug drawing: the skeleton over the body, an arrow along the walk, a box around the start,
  -- a sphere at the origin, and a label.
  Render.debug_skeleton(world, walker, 1, 1, 0)
  Render.debug_arrow(0.5, 0.02, -1.0, 0.5, 0.02, -0.2, 0.2, 0.6, 1)
  Render.debug_box(0.5, 0.5, -1.0, 0.25, 0.5, 0.15, 0.3, 1, 0.3)
  Render.debug_sphere(0, 0, 0, 0.2, 1, 0.3, 0.3)
  Render.debug_text(12, 10, string.format("walk t = %.2f s  frame %d", times[frame] or 0, frame), 1, 1, 1, 1)
  Render.render(world, camera)
  local s = Render.stats()
  print(string.format("skinned: frame %d t %.2f objects %d visible %d draws %d invalid %d hash %s",
                      s.frame, times[frame] or 0, s.objects, s.visible, s.draws, s.invalid, s.hash))
end

function shutdown()
  World.destroy(world)
end
