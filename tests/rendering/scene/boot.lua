-- The fixed scene: nothing moves but a cube that turns a little each frame, so frames differ.
local world, camera, spinner
local frame = 0

function init()
  world = World.create()
  camera = World.spawn_unit(world, "units/camera", 0, 1.6, 4.2)
  Render.look_at(world, camera, 0, 0.6, 0)
  local sun = World.spawn_unit(world, "units/sun", 3, 6, 4)
  Render.look_at(world, sun, 0, 0, 0)
  World.spawn_unit(world, "units/lamp", -1.2, 1.2, 1.0)
  World.spawn_unit(world, "units/bunny", 0, 0, 0)
  World.spawn_unit(world, "units/floor", 0, -0.05, 0)
  World.spawn_unit(world, "units/red_cube", -1.6, 0.3, -0.5)
  spinner = World.spawn_unit(world, "units/blue_cube", 1.6, 0.4, -0.3)
  World.spawn_unit(world, "units/pane", 0.7, 0.5, 1.2)
  World.spawn_unit(world, "units/fence", 0, 0.25, 0)
  World.spawn_unit(world, "units/engine", 1.7, 1.3, -1.2)
  World.spawn_unit(world, "units/boxes", -1.3, 1.3, -0.8)
  -- Far behind the camera: culled, never drawn.
  World.spawn_unit(world, "units/red_cube", 0, 0, 40)
end

function update(dt)
  frame = frame + 1
  local a = frame * 0.3
  Transform.set_local_rotation(world, spinner, 0, math.sin(a / 2), 0, math.cos(a / 2))
  Render.render(world, camera)
  local s = Render.stats()
  print(string.format("scene: frame %d objects %d visible %d packets %d draws %d state_changes %d invalid %d hash %s",
                      s.frame, s.objects, s.visible, s.packets, s.draws, s.state_changes, s.invalid, s.hash))
end

function shutdown()
  World.destroy(world)
end
