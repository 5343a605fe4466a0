-- A node of the console scenarios: counts its frames, so a scenario can see the world move.
frames = 0
function update(dt)
  frames = frames + 1
end
