-- Three nodes; one is killed mid-run. The runner and the scenario see it at once, the others
-- carry on, and talking to the dead node fails with an error that names it.
local project = arg[1]

Run.step("start three nodes")
local nodes = {
  Run.start{name = "n1", project = project},
  Run.start{name = "n2", project = project},
  Run.start{name = "n3", project = project},
}

Run.step("all run")
for _, n in ipairs(nodes) do
  Run.wait(10, function() return n:script("return frames") > 2 end, n.name .. " to run frames")
end

Run.step("kill n2 mid-run")
nodes[2]:kill(9)
local _, signal = nodes[2]:wait_exit(10)
assert(signal == 9, "n2 died of signal " .. signal)

Run.step("the others report it")
local ok, err = pcall(nodes[2].script, nodes[2], "return 1", 5)
assert(not ok and err:find("node 'n2'", 1, true) and err:find("signal 9", 1, true), err)
for _, i in ipairs{1, 3} do
  local n = nodes[i]
  local before = n:script("return frames")
  Run.wait(10, function() return n:script("return frames") > before end, n.name .. " to go on")
end
