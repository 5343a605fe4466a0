-- A remote console client (its peer is not loopback) runs scripts in a sandbox: text only, no
-- ffi, io, os.execute, debug, string.dump, getfenv/setfenv or package loaders, while the engine's
-- modules still work; a loopback client keeps the full LuaJIT. The node runs with
-- CUTTLE_TEST_CONSOLE_REMOTE=1 (set by meson), the test-only switch that marks every client of a
-- server with a token remote, since a test machine may have no address but loopback.
local project = arg[1]

Run.step("a loopback client keeps the full LuaJIT")
local a = Run.start{name = "a", project = project}
assert(a:script("return io ~= nil and type(io.open) == 'function'") == true, "a loopback client has io")
assert(a:script("return require('ffi') ~= nil and string.dump ~= nil") == true)

Run.step("a remote client (token server) connects")
local t = Run.start{name = "t", project = project, console = false,
                    args = {"--console", "0", "--console-token", "s3cret"}}
local port
Run.wait(15, function()
  local f = io.open(t.log_path)
  local text = f and f:read("*a") or ""
  if f then f:close() end
  port = tonumber(text:match("console: listening on [%d.]+:(%d+)"))
  return port
end, "t's console")
local k = assert(Run.connect(port))
assert(k:recv(10).auth == true)
k:send{type = "auth", token = "s3cret"}
assert(k:recv(10).ok)

local next_id = 0
local function run(code)
  next_id = next_id + 1
  assert(k:send{type = "script", script = code, id = next_id})
  local r = assert(k:recv(15))
  assert(r.type == "script" and r.id == next_id, "no script reply for " .. code)
  return r
end
local function value(code)
  local r = run(code)
  assert(r.ok, code .. " failed: " .. tostring(r.error))
  return r.results[1]
end
local function fails(code, pattern)
  local r = run(code)
  assert(not r.ok, code .. " should fail")
  assert(r.error:find(pattern), "'" .. r.error .. "' does not match '" .. pattern .. "'")
end

Run.step("no ffi, io, os.execute, debug, string.dump, getfenv/setfenv, loaders")
for _, name in ipairs{"ffi", "io", "debug", "jit", "dofile", "loadfile", "getfenv", "setfenv",
                      "module"} do
  assert(value("return " .. name) == nil, name .. " is reachable")
  assert(value("return rawget(_G, '" .. name .. "')") == nil, name .. " is reachable by rawget")
end
assert(value("return os.execute") == nil and value("return os.getenv") == nil)
assert(value("return type(os.clock()) == 'number' and type(os.time()) == 'number'") == true)
assert(value("return string.dump") == nil, "string.dump")
assert(value("return ('').dump") == nil, "('').dump")
assert(value("return package.loaded.ffi") == nil, "package.loaded.ffi")
assert(value("return rawget(package.loaded, 'ffi')") == nil)
assert(value("return package.loaded.debug or package.loaded.io or package.loaded.os.execute") == nil)
assert(value("return package.loadlib or package.loaders or package.searchers or package.preload") == nil)
fails("return require('ffi')", "module 'ffi' is not available to a remote console client")
fails("return require('jit.util')", "not available")
fails("return collectgarbage('stop')", "only 'count'")
assert(value("return getmetatable(_G) == false") == true, "the environment's metatable is hidden")
assert(value("return _G == _G._G and _G.World == World") == true)

Run.step("bytecode: neither as the script nor through load")
fails("\27LJ\2\0", "bytecode is refused from a remote console client")
local r = run("return load(string.char(27) .. 'LJ\\2\\0')")
assert(r.ok and r.results[1] == nil and tostring(r.results[2]):find("wrong mode"),
       "load of bytecode: " .. tostring(r.results[2]))
r = run("return loadstring(string.char(27) .. 'LJ\\2\\0')")
assert(r.ok and r.results[1] == nil and tostring(r.results[2]):find("wrong mode"))
assert(value("return load('return io')()") == nil, "load gives the sandbox, not the real globals")
assert(value("return load('return 6 * 7')()") == 42)

Run.step("the engine's modules work; globals stay the client's")
assert(value("return type(World) == 'table' and type(Entity) == 'table' and type(Transform) == 'table'"))
assert(value("local e = Entity.create(); local alive = Entity.alive(e); Entity.destroy(e); return alive") == true)
assert(value("return type(World.create())") == "userdata")
assert(value("return frames") > 0, "the engine's globals are readable")
value("mine = 7")
assert(value("return mine") == 7)
fails("while true do end", "script stopped")

Run.step("a remote client's globals do not reach the engine; the engine is intact")
local l = assert(Run.connect(port))
l:recv(10)
l:send{type = "auth", token = "s3cret"}
l:recv(10)
l:send{type = "script", script = "return mine, ('x').dump", id = 1}
local other = assert(l:recv(10))
assert(other.ok and other.results[1] == nil and other.results[2] == nil, "a fresh client starts clean")
l:close()
k:close()
-- After the remote scripts, the node's own Lua still has string.dump through strings.
assert(a:script("return ('').dump ~= nil") == true)
t:kill(15)
t:wait_exit(20)

Run.step("a remote client of a project with `sandbox = true`")
local s = Run.start{name = "s", project = project .. "_sandboxed", console = false,
                    args = {"--console", "0", "--console-token", "s3cret"}}
local sport
Run.wait(15, function()
  local f = io.open(s.log_path)
  local text = f and f:read("*a") or ""
  if f then f:close() end
  sport = tonumber(text:match("console: listening on [%d.]+:(%d+)"))
  return sport
end, "s's console")
k = assert(Run.connect(sport))
k:recv(10)
k:send{type = "auth", token = "s3cret"}
assert(k:recv(10).ok)
assert(value("return ffi, io, os.execute, string.dump, ('').dump") == nil)
assert(value("return type(os.clock()) == 'number' and type(Entity.create()) ~= 'nil'") == true)
fails("\27LJ\2\0", "bytecode is refused")
k:close()
s:kill(15)
s:wait_exit(20)
