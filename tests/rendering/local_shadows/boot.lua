-- The point and spot shadow scene: nothing moves.
local world, camera

function init()
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 0, 7, 6)
  Render.look_at(world, camera, 0, 0, 0)
  World.spawn_unit(world, "units/point", -3, 2, 0)
  local spot = World.spawn_unit(world, "units/spot", 3, 3, 0)
  Render.look_at(world, spot, 3, 0, 0)
  World.spawn_unit(world, "units/ground", 0, 0, 0)
  World.spawn_unit(world, "units/box", -3, 0.8, 0)
  World.spawn_unit(world, "units/small_box", 3, 1.2, 0)
end

function update(dt)
  Render.render(world, camera)
  local s = Render.stats()
  print(string.format("local_shadows: frame %d objects %d visible %d draws %d invalid %d hash %s",
                      s.frame, s.objects, s.visible, s.draws, s.invalid, s.hash))
end

function shutdown()
  World.destroy(world)
end
