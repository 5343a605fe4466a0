-- The networking module's scenario: a host and three peers join one session and agree on who is
-- in it. Skipped, saying so, until a ct.network module is there to load.
local project = arg[1]

Run.step("look for ct.network")
local _, list = Run.capture("--list", "--modules", Run.modules)
if not list:find("ct.network", 1, true) then
  Run.skip("no ct.network module in " .. Run.modules .. " (the networking module has not landed)")
end

Run.step("start a host and three peers")
local host = Run.start{name = "host", project = project}
local port = host:script("Network.start{port = 0, host = true, world = world}; return Network.port()")
local peers = {}
for i = 1, 3 do
  peers[i] = Run.start{name = "peer" .. i, project = project}
  peers[i]:script(string.format("Network.start{port = 0, join = '127.0.0.1:%d', world = world}", port))
end

Run.step("every node sees the session")
Run.wait(30, function() return #host:script("return Network.peers()") >= 3 end, "the host to see 3 peers")
for _, p in ipairs(peers) do
  Run.wait(30, function() return #p:script("return Network.peers()") >= 1 end, p.name .. " to see the host")
end
