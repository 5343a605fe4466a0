-- Two engines: a script round trip on each, state that changes with frames, log streaming.
local project = arg[1]

Run.step("start two nodes")
local a = Run.start{name = "a", project = project}
local b = Run.start{name = "b", project = project}
assert(a.port ~= b.port, "each node has its own console port")

Run.step("script round trip")
local answer, text = a:script("return 6 * 7, 'forty-two'")
assert(answer == 42 and text == "forty-two", "a returned " .. tostring(answer))
a:script("marker = 'only on a'")
assert(a:script("return marker") == "only on a")
assert(b:script("return marker") == nil, "b must not see a's globals")

Run.step("frames advance")
local before = a:script("return frames")
Run.wait(10, function() return a:script("return frames") > before + 5 end, "a's frames to advance")

Run.step("pause and step")
a:request{type = "command", command = "pause"}
local paused_at = a:script("return frames")
Run.sleep(0.2)
assert(a:script("return frames") == paused_at, "a paused engine runs no frames")
local reply = a:request{type = "command", command = "step", frames = 3}
assert(reply.ok and reply.command == "step")
assert(a:script("return frames") == paused_at + 3, "step 3 ran " .. (a:script("return frames") - paused_at))
a:request{type = "command", command = "resume"}

Run.step("script errors come back with a traceback")
local ok, err = a:try_script("local t = nil; return t.x")
assert(not ok and err:find("attempt to index") and err:find("stack traceback"), err)

Run.step("log streaming")
a:script("pcall(Resource.load, 'level', 'levels/nowhere')")
Run.wait(10, function()
  for _, line in ipairs(a:logs()) do
    if line:find("levels/nowhere", 1, true) then return true end
  end
end, "a's log line about levels/nowhere")
for _, line in ipairs(b:logs()) do
  assert(not line:find("levels/nowhere", 1, true), "b streamed a's log line")
end

Run.step("profiler scopes stream to a subscriber (frame, and Lua's Profiler.scope)")
local p = assert(Run.connect(a.port))
p:recv(10)
assert(a:script("return Profiler.enabled()") == false, "nobody listens yet")
p:send{type = "profiler", subscribe = true, id = 1}
local sub = p:recv(10)
assert(sub.type == "profiler" and sub.ok and sub.subscribed)
assert(a:script("return Profiler.enabled()") == true)
assert(a:script("return Profiler.scope('lua.work', function(x) return x * 2 end, 21)") == 42)
local seen = {}
Run.wait(10, function()
  local m = p:recv(1)
  if m and m.type == "profiler" and m.scopes then
    assert(m.thread_name, "scopes name their thread")
    for _, s in ipairs(m.scopes) do
      assert(s[3] >= 0 and s[4] >= 0, "duration and core")
      seen[s[1]] = true
    end
  end
  return seen["frame"] and seen["lua.work"]
end, "frame and lua.work scopes")
p:close()
Run.wait(10, function() return a:script("return Profiler.enabled()") == false end,
         "recording to stop when the subscriber leaves")

Run.step("quit")
a:request{type = "command", command = "quit"}
local status = a:wait_exit(20)
assert(status == 0, "a exited with " .. status)
assert(b:alive(), "b still runs")
