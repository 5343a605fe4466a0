-- Prints what the clock and the timers did, frame by frame; test_clock.sh compares it.
local log = {}
local function say(s) print(s) end

function init()
  Timer.after(0.5, function(a, b) say(string.format("after 0.5 at %.2f with %s %s", Clock.time(), a, b)) end, "x", nil)
  every = Timer.every(1, function() say(string.format("every 1 at %.2f", Clock.time())) end)
  Timer.after(0.75, function() error("a timer that fails") end)
  local cancelled = Timer.after(0.25, function() say("never") end)
  assert(Timer.cancel(cancelled) and not Timer.cancel(cancelled))
  assert(not pcall(Timer.after, -1, print) and not pcall(Timer.every, 0, print) and not pcall(Timer.after, 1, 2))
  assert(not pcall(Clock.set_scale, -1))
end

function update(dt)
  local f = Clock.frame()
  if f == 6 then Clock.pause() end
  if f == 10 then Clock.resume() end
  if f == 12 then Clock.set_scale(4) end
  if f == 14 then Timer.cancel(every) Clock.set_scale(1) end
  say(string.format("frame %d dt %.2f time %.2f paused %s scale %g pending %d", f, Clock.dt(), Clock.time(),
                    tostring(Clock.paused()), Clock.scale(), Timer.pending()))
end
