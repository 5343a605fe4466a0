-- The worker states' script. A collision names two bodies, the lower id first: the floor (made
-- first, shared: read only) or the lower crate, then the crate above it.
fields = {"touches", "parted"}

function on_touch(a, b, speed, impulse)
  Islands.set(b, "touches", Islands.get(b, "touches") + 1)
  Islands.emit("landed", b, impulse)
end

function on_apart(a, b)
  Islands.set(b, "parted", Islands.get(b, "parted") + 1)
end
