-- The textured scene: nothing moves.
local world, camera

function init()
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 0, 1.4, 3.2)
  Render.look_at(world, camera, 0, 0.4, 0)
  local sun = World.spawn_unit(world, "units/sun", 3, 6, 4)
  Render.look_at(world, sun, 0, 0, 0)
  World.spawn_unit(world, "units/ground", 0, 0, 0)
  World.spawn_unit(world, "units/crate", -0.7, 0.4, 0)
  World.spawn_unit(world, "units/box", 0.7, 0.4, 0.2)
end

function update(dt)
  Render.render(world, camera)
  local s = Render.stats()
  print(string.format("textured: frame %d objects %d visible %d draws %d invalid %d hash %s",
                      s.frame, s.objects, s.visible, s.draws, s.invalid, s.hash))
end

function shutdown()
  World.destroy(world)
end
