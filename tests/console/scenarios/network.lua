-- The networking module's scenario: a host and three peers join one session on loopback, each
-- creates objects, the host migrates some to other peers, the new owners change them, owners
-- destroy some, and after each step every node must show every live object with its owner's
-- state (a script field, the position and the owner) and no others. Skipped, saying so, until a
-- ct.network module is there to load.
--
-- The project is compiled into a scratch copy first (units/replica.unit: a transform and the
-- network component), with cuttle-compile from CUTTLE_COMPILE; a failed run leaves that copy.
local source_project = arg[1]
local WAIT = 5 -- seconds for any one node to agree; a healthy run takes well under one

Run.step("look for ct.network")
local _, list = Run.capture("--list", "--modules", Run.modules)
if not list:find("ct.network", 1, true) then
  Run.skip("no ct.network module in " .. Run.modules .. " (the networking module has not landed)")
end

Run.step("compile a scratch copy of the project")
local compiler = assert(os.getenv("CUTTLE_COMPILE"), "CUTTLE_COMPILE names cuttle-compile")
local scratch = os.tmpname()
os.remove(scratch)
local function sh(cmd)
  local ok = os.execute(cmd)
  assert(ok == 0 or ok == true, "failed: " .. cmd)
end
sh(string.format("mkdir -p '%s' && cp -r '%s' '%s/project'", scratch, source_project, scratch))
local project = scratch .. "/project"
sh(string.format("rm -rf '%s/compiled' && '%s' --project '%s' --modules '%s' >/dev/null",
                 project, compiler, project, Run.modules))

-- Sent to every node before Network.start: the declared fields and the helpers the steps use.
-- An object's state is its "tag" (names it on every node), its "value" and its x position.
local node_lib = [[
Network.declare_fields{ "tag", "value" }
mine = {}
-- Every live entity of the world that is a replicated object (ids: 22 index bits, then the
-- generation; this world's ids stay small).
function net_entities()
  local out = {}
  for gen = 0, 3 do
    for index = 1, 1024 do
      local e = index + gen * 4194304
      if Entity.alive(e) and Network.owner(world, e) > 0 then out[#out + 1] = e end
    end
  end
  return out
end
function net_find(tag)
  for _, e in ipairs(net_entities()) do
    if Network.field(world, e, "tag") == tag then return e end
  end
end
-- "tag:owner:value:x ..." sorted by tag: what this node sees.
function net_view()
  local rows = {}
  for _, e in ipairs(net_entities()) do
    local x = Transform.local_position(world, e)
    rows[#rows + 1] = { Network.field(world, e, "tag"),
      string.format("%d:%d:%g:%g", Network.field(world, e, "tag"), Network.owner(world, e),
                    Network.field(world, e, "value"), x) }
  end
  table.sort(rows, function(a, b) return a[1] < b[1] end)
  local s = {}
  for i, r in ipairs(rows) do s[i] = r[2] end
  return table.concat(s, " ")
end
function net_create(tag, value)
  local e = assert(World.spawn_unit(world, "units/replica", tag, 0, 0), "spawn units/replica")
  Network.replicate(world, e)
  Network.set_field(world, e, "tag", tag)
  Network.set_field(world, e, "value", value)
  mine[tag] = e
  return Network.owner(world, e)
end
function net_update(tag, value, x)
  local e = assert(net_find(tag), "no object tagged " .. tag)
  Network.set_field(world, e, "value", value)
  Transform.set_local_position(world, e, x, 0, 0)
end
function net_destroy(tag)
  Entity.destroy(assert(net_find(tag), "no object tagged " .. tag))
end
]]

Run.step("start a host and three peers")
local host = Run.start{name = "host", project = project}
host:script(node_lib)
local port = host:script("Network.start{port = 0, host = true, world = world}; return Network.port()")
local peers = {}
for i = 1, 3 do
  peers[i] = Run.start{name = "peer" .. i, project = project}
  peers[i]:script(node_lib)
  peers[i]:script(string.format("Network.start{port = 0, join = '127.0.0.1:%d', world = world}", port))
end
local nodes = {host, peers[1], peers[2], peers[3]}

Run.step("every node sees the session")
Run.wait(WAIT, function() return #host:script("return Network.peers()") >= 3 end, "the host to see 3 peers")
local id = {}
for _, n in ipairs(nodes) do
  Run.wait(WAIT, function() return n:script("return Network.peer_id()") ~= 0 end, n.name .. " to get a peer id")
  id[n] = n:script("return Network.peer_id()")
end
for _, p in ipairs(peers) do
  Run.wait(WAIT, function() return #p:script("return Network.peers()") >= 1 end, p.name .. " to see the host")
end

-- What every node must see: tag -> { owner, value, x }.
local expected = {}
local function expected_view()
  local tags = {}
  for tag in pairs(expected) do tags[#tags + 1] = tag end
  table.sort(tags)
  local s = {}
  for i, tag in ipairs(tags) do
    local o = expected[tag]
    s[i] = string.format("%d:%d:%g:%g", tag, o.owner, o.value, o.x)
  end
  return table.concat(s, " ")
end

-- Waits until every node's view is the expected one; fails naming the node and both views.
local function all_agree(what)
  local want = expected_view()
  for _, n in ipairs(nodes) do
    local last
    local ok, err = pcall(Run.wait, WAIT, function()
      last = n:script("return net_view()")
      return last == want
    end, n.name .. " to agree on " .. what)
    if not ok then
      error(string.format("node '%s': %s\n  expected: %s\n  saw:      %s", n.name, tostring(err),
                          want, tostring(last)), 0)
    end
  end
  print(string.format("cuttle-run: all %d nodes agree on %s: %s", #nodes, what, want))
end

Run.step("each node creates two objects")
for _, n in ipairs(nodes) do
  for k = 1, 2 do
    local tag = id[n] * 10 + k
    local owner = n:script(string.format("return net_create(%d, %d)", tag, tag * 2))
    assert(owner == id[n], string.format("node '%s': object %d is owned by %s, not by itself",
                                         n.name, tag, tostring(owner)))
    expected[tag] = {owner = id[n], value = tag * 2, x = tag}
  end
end

Run.step("every node sees every object with its owner's state")
all_agree("the created objects")

Run.step("the host migrates objects to other peers")
-- The host's first object to peer1, peer1's to peer2 and peer3's to the host.
local moves = {
  {tag = id[host] * 10 + 1, from = host, to = peers[1]},
  {tag = id[peers[1]] * 10 + 1, from = peers[1], to = peers[2]},
  {tag = id[peers[3]] * 10 + 1, from = peers[3], to = host},
}
for _, m in ipairs(moves) do
  host:script(string.format("Network.migrate(world, assert(net_find(%d)), %d)", m.tag, id[m.to]))
  expected[m.tag].owner = id[m.to]
end
all_agree("the new owners")

Run.step("the new owners update the migrated objects")
for _, m in ipairs(moves) do
  local ok, err = m.from:try_script(string.format("net_update(%d, 1, 1)", m.tag))
  assert(not ok and err:find("only its owner", 1, true),
         string.format("node '%s': the old owner changed object %d after it moved: %s", m.from.name,
                       m.tag, tostring(err)))
  m.to:script(string.format("net_update(%d, %d, %g)", m.tag, m.tag * 100, m.tag + 0.5))
  expected[m.tag].value, expected[m.tag].x = m.tag * 100, m.tag + 0.5
end
all_agree("the updated state")

Run.step("owners destroy objects")
-- Each node's second object, and one migrated object destroyed by its new owner (peer2).
for _, n in ipairs(nodes) do
  local tag = id[n] * 10 + 2
  n:script(string.format("net_destroy(%d)", tag))
  expected[tag] = nil
end
peers[2]:script(string.format("net_destroy(%d)", moves[2].tag))
expected[moves[2].tag] = nil
all_agree("the objects left")

Run.step("stats")
for _, n in ipairs(nodes) do
  local s = n:script("return Network.stats()")
  assert(s.breaches == 0, string.format("node '%s': %d breaches", n.name, s.breaches))
end
sh(string.format("rm -rf '%s'", scratch))
