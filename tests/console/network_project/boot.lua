-- A node of the network scenario: one world the session replicates into.
frames = 0
function init()
  world = World.create()
end
function update(dt)
  frames = frames + 1
end
