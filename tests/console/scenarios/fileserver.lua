-- One file server, nodes that read the project from it: the scripts at start, every compiled
-- blob through the resource system (validated there). Paths outside the project are refused,
-- and a corrupt blob on the server is refused by the node that loads it.
local dir = arg[1]                        -- a compiled copy of projects/demo
local name = dir:match("([^/]+)/*$")

local function port_in_log(node, pattern)
  local port
  Run.wait(20, function()
    local f = io.open(node.log_path)
    local text = f and f:read("*a") or ""
    if f then f:close() end
    port = tonumber(text:match(pattern))
    return port
  end, node.name .. "'s port in its log")
  return port
end

local function log_of(node)
  local f = assert(io.open(node.log_path))
  local text = f:read("*a")
  f:close()
  return text
end

Run.step("start the file server")
local server = Run.start{name = "server", console = false, args = {"--serve-project", dir, "--port", "0"}}
local port = port_in_log(server, "file server: serving project '[^']+' %(%d+ scripts%) from .- on [%d.]+:(%d+)")
local address = "127.0.0.1:" .. port

Run.step("two nodes read the project from it")
local nodes = {}
for i = 1, 2 do
  nodes[i] = Run.start{name = "node" .. i, project = name, args = {"--host", address}}
end
for _, n in ipairs(nodes) do
  Run.wait(20, function() return log_of(n):find("demo: frame 60,", 1, true) end, n.name .. " to run 60 frames")
  assert(log_of(n):find("demo: loaded levels/arena", 1, true), n.name .. " did not load the level")
  assert(log_of(n):find("compiled data from the server", 1, true))
  assert(n:script("return Resource ~= nil"))
end

Run.step("a node killed outright leaves its private folder behind; the next node removes it")
local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end
local killed = Run.start{name = "killed", project = name, args = {"--host", address}}
local folder = log_of(killed):match("%(scripts in (.-), compiled data from the server%)")
assert(folder and exists(folder .. "/project.sjson"), "the node's folder: " .. tostring(folder))
killed:kill(9)
killed:wait_exit(20)
assert(exists(folder .. "/project.sjson"), "SIGKILL leaves " .. folder)
local next_node = Run.start{name = "next", project = name, args = {"--host", address}}
assert(not exists(folder .. "/project.sjson"), folder .. " is still there")
assert(log_of(next_node):find("removed " .. folder, 1, true), "the removal is not logged")
assert(exists(log_of(next_node):match("%(scripts in (.-), compiled data") .. "/project.sjson"))

Run.step("the server refuses what is not the project's")
local c = assert(Run.connect(port))
local hello = c:recv(10)
assert(hello.service == "file server" and hello.project == name, "hello: " .. tostring(hello.project))
local function refused(msg, pattern)
  c:send(msg)
  local r = assert(c:recv(10))
  assert(r.type == "error" and r.error:find(pattern), "expected '" .. pattern .. "', got " .. tostring(r.error))
end
refused({type = "file", path = "../project.sjson"}, "not a project script")
refused({type = "file", path = "/etc/passwd"}, "not a project script")
refused({type = "file", path = "compiled/level/levels/arena.bin"}, "not a project script")
refused({type = "file", resource = "level", name = "../../etc/passwd"}, "level '../../etc/passwd'")
refused({type = "file", resource = "level", name = "levels/missing"}, "cannot serve 'level/levels/missing.bin'")
refused({type = "script", script = "return 1"}, "answers 'file' messages only")
c:close()

Run.step("a node asking for another project is told which one is served")
local status, out = Run.capture("--host", address, "--project", "elsewhere", "--frames", "1")
assert(status == 1 and out:find("serves project '" .. name .. "', not 'elsewhere'", 1, true), out)

Run.step("a node reloads a resource from the server")
local r = nodes[1]:request{type = "command", command = "reload", resource = "level", name = "levels/arena"}
assert(r.ok and r.command == "reload", "reload failed")

Run.step("a corrupt blob on the server is refused by the node")
local blob = dir .. "/compiled/level/levels/arena.bin"
local f = assert(io.open(blob, "rb"))
local bytes = f:read("*a")
f:close()
f = assert(io.open(blob, "wb"))
f:write(bytes:sub(1, 30))
f:close()
-- Whether the boot script's failed init ends the node is the kernel's rule; the refusal naming
-- the server's blob is what matters here.
local ok, err = pcall(Run.start, {name = "node3", project = name, args = {"--host", address}})
assert(ok or err:find("before its console listened"), tostring(err))
local text = log_of({log_path = Run.log_dir .. "/node3.log"})
assert(text:find(address .. "/compiled/level/levels/arena.bin: refused: truncated", 1, true), text)
r = nodes[1]:request{type = "command", command = "reload", resource = "level", name = "levels/arena"}
assert(r.type == "error" and r.error:find("reload of level 'levels/arena' failed", 1, true), r.error)
assert(nodes[1]:script("return 1") == 1, "node1 goes on with the loaded version")
