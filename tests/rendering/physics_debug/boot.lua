-- The physics debug scene: the bodies stay where they were placed (no step).
local world, camera

function init()
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 0, 3, 7)
  Render.look_at(world, camera, 0, 0.5, 0)
  World.spawn_unit(world, "units/bodies", 0, 0, 0)
end

function update(dt)
  local drawn = Render.debug_physics(world)
  Render.render(world, camera)
  local s = Render.stats()
  print(string.format("physics_debug: frame %d bodies drawn %d packets %d invalid %d",
                      s.frame, drawn, s.packets, s.invalid))
end

function shutdown()
  World.destroy(world)
end
