-- The normal-map scene: nothing moves. Top row: plain, tilted towards +u, tilted towards the
-- image's up; bottom row: ribbed panel and the ribbed glTF sample. The sun is up, left and in
-- front, so the +u tilt (right) darkens and the up tilt brightens.
local world, camera

function init()
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 0, 0, 5)
  Render.look_at(world, camera, 0, 0, 0)
  local sun = World.spawn_unit(world, "units/sun", -4, 4, 6)
  Render.look_at(world, sun, 0, 0, 0)
  World.spawn_unit(world, "units/plain", -1.4, 0.7, 0)
  World.spawn_unit(world, "units/tilt_u", 0, 0.7, 0)
  World.spawn_unit(world, "units/tilt_up", 1.4, 0.7, 0)
  World.spawn_unit(world, "units/ribbed", -0.8, -0.8, 0)
  World.spawn_unit(world, "units/sample", 1.0, -0.8, 0)
end

function update(dt)
  Render.render(world, camera)
  local s = Render.stats()
  print(string.format("normalmap: frame %d objects %d visible %d draws %d invalid %d hash %s",
                      s.frame, s.objects, s.visible, s.draws, s.invalid, s.hash))
end

function shutdown()
  World.destroy(world)
end
