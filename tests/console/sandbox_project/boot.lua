-- A node of the sandbox scenario: counts its frames.
frames = 0
function update(dt)
  frames = frames + 1
end
