-- Every bad input the console can meet, each against a live engine: the client gets a clear
-- error, the engine logs a line naming the client, and it goes on serving everyone else.
local project = arg[1]

local function u32(n)
  return string.char(math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256,
                     math.floor(n / 256) % 256, n % 256)
end
local function frame(payload, frame_type) return u32(frame_type or 0) .. u32(#payload) .. payload end

local a = Run.start{name = "a", project = project}

local function connect()
  local c = assert(Run.connect(a.port))
  local hello = assert(c:recv(10))
  assert(hello.type == "hello" and hello.service == "console", "no hello")
  return c, hello.client
end

local function expect_error(c, pattern, fatal)
  local m, why = c:recv(15)
  assert(m, "no error reply: " .. tostring(why))
  assert(m.type == "error", "expected an error, got " .. tostring(m.type))
  assert(m.error:find(pattern), "error '" .. m.error .. "' does not match '" .. pattern .. "'")
  assert(m.fatal == fatal, "fatal should be " .. tostring(fatal))
  if fatal then
    local _, closed = c:recv(10)
    assert(closed and closed:find("^closed"), "the connection should close, got " .. tostring(closed))
  end
  return m
end

local function expect_log(pattern)
  Run.wait(15, function()
    for _, line in ipairs(a:logs()) do
      if line:find(pattern) then return true end
    end
  end, "a log line matching '" .. pattern .. "'")
end

local function still_serves()
  assert(a:script("return 1 + 1") == 2, "the engine stopped answering")
end

Run.step("bad JSON: an error, the connection stays")
local c, id = connect()
c:send_raw(frame("{\"type\": \"script\", "))
expect_error(c, "^bad JSON near byte %d+", false)
expect_log("client " .. id .. " %(127%.0%.0%.1:%d+%): bad JSON")
c:send{type = "script", script = "return 'still here'", id = 1}
local r = assert(c:recv(10))
assert(r.ok and r.results[1] == "still here" and r.id == 1)

Run.step("not an object, no type, unknown type, unknown field, wrong field types")
c:send_raw(frame("[1, 2]"))
expect_error(c, "must be a JSON object", false)
c:send_raw(frame("{\"script\": \"return 1\"}"))
expect_error(c, "needs a string field 'type'", false)
c:send{type = "scirpt", script = "return 1"}
expect_error(c, "message type 'scirpt' is unknown %(did you mean 'script'%?%)", false)
c:send{type = "script", scirpt = "return 1"}
expect_error(c, "field of a 'script' message 'scirpt' is unknown %(did you mean 'script'%?%)", false)
c:send{type = "command", command = "step", frames = -3}
expect_error(c, "'frames' must be a whole number", false)
c:send{type = "command", command = "jump"}
expect_error(c, "command 'jump' is unknown", false)
c:send{type = "command", command = "reload", resource = "level", name = "levels/nowhere"}
expect_error(c, "reload of level 'levels/nowhere' failed", false)
c:send_raw(frame("{\"type\": \"log\"} trailing"))
expect_error(c, "text after the object", false)
c:send_raw(frame("{\"type\": \"file\", \"path\": \"x\"}"))
expect_error(c, "go to a file server", false)

Run.step("a binary frame from a client: refused, the connection stays")
c:send_raw(frame(u32(2) .. "{}xyz", 1))
expect_error(c, "frame type 1 is not accepted", false)
still_serves()

Run.step("an unknown frame type closes the connection")
c:send_raw(frame("{}", 7))
expect_error(c, "frame type 7 is unknown", true)
expect_log("client " .. id .. " .*frame type 7 is unknown.*disconnected")

Run.step("an oversized frame closes the connection")
c = connect()
c:send_raw(u32(0) .. u32(2 * 1024 * 1024))
expect_error(c, "frame of 2097152 bytes is over the 1048576%-byte limit", true)
still_serves()

Run.step("a truncated frame (the client vanishes mid-frame)")
c, id = connect()
c:send_raw(u32(0) .. u32(100) .. "{\"type\":")
Run.sleep(0.2)
c:close()
expect_log("client " .. id .. " .*closed mid%-frame %(got 16 of 108 bytes%)")
still_serves()

Run.step("a vanishing client (closes before its reply)")
c, id = connect()
c:send{type = "script", script = "return string.rep('x', 100000)"}
c:close()
expect_log("client " .. id .. " .*disconnected")
still_serves()

Run.step("a script that never ends is stopped (the JIT compiles the loop at once)")
local ok, err = a:try_script("while true do end", 30)
assert(not ok and err:find("script stopped: the chunk console client %d+ ran over its limit of 5 s"),
       err)
still_serves()

Run.step("a slow writer (a frame that never completes)")
c, id = connect()
c:send_raw(u32(0) .. u32(50) .. "{")
expect_error(c, "a frame begun 10000 ms ago is still incomplete %(got 9 of 58 bytes%)", true)
still_serves()

Run.step("a client that does not read is dropped")
c, id = connect()
for i = 1, 40 do
  if not c:send{type = "script", script = "return string.rep('y', 900000)", id = i} then break end
end
expect_log("client " .. id .. " .*not reading: %d+ bytes queued %(limit 4194304%); disconnected")
c:close()
still_serves()

Run.step("too many clients")
local conns = {}
for i = 1, 31 do conns[i] = connect() end -- with the scenario's own connection: 32
local extra = assert(Run.connect(a.port))
expect_error(extra, "too many clients %(at most 32%)", true)
for _, k in ipairs(conns) do k:close() end
Run.wait(10, function() return a:request{type = "command", command = "status"}.clients == 1 end,
         "the closed clients to be gone")
local after = connect()
after:close()
still_serves()

Run.step("a token: nothing before auth, a wrong token closes, the right one works")
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
local hello = k:recv(10)
assert(hello.auth == true, "the hello says a token is wanted")
k:send{type = "script", script = "return 1"}
expect_error(k, "wants a token", true)
k = assert(Run.connect(port)); k:recv(10)
k:send{type = "auth", token = "wrong"}
expect_error(k, "wrong token", true)
k = assert(Run.connect(port)); k:recv(10)
k:send{type = "auth", token = "s3cret", id = 5}
local ok_reply = k:recv(10)
assert(ok_reply.type == "auth" and ok_reply.ok and ok_reply.id == 5)
k:send{type = "script", script = "return 40 + 2", id = 6}
assert(k:recv(10).results[1] == 42)
k:close()
t:kill(15)
t:wait_exit(20)

Run.step("command-line checks: not loopback without a token, bad ports")
local status, out = Run.capture("--console", "0", "--console-bind", "0.0.0.0", "--frames", "1")
assert(status == 1 and out:find("not loopback%) needs a token"), out)
status, out = Run.capture("--console", "70000")
assert(status == 2 and out:find("wants a port 0..65535"), out)
status, out = Run.capture("--console-token", "x", "--frames", "1")
assert(status == 2 and out:find("go with %-%-console"), out)
still_serves()
