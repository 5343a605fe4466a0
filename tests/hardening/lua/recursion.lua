-- Every way LuaJIT 2.1 re-enters Lua from its own C functions, recursing without end: each must
-- end in a catchable error, never a crash (LuaJIT bounds only its Lua stack, see
-- kernel/lua/lua_stack.c). Prints one line per path; asserts the error and that it recursed.
local n = 0
local function expect_error(name, f, pattern)
    n = 0
    local ok, err = pcall(f)
    assert(not ok, name .. " did not fail")
    assert(tostring(err):find(pattern), name .. ": unexpected error " .. tostring(err))
    assert(n > 100, name .. " recursed only " .. n .. " times")
    print(name, n, err)
end

local function gsub() n = n + 1; return (string.gsub("a", "a", gsub)) end
expect_error("gsub", gsub, "stack overflow")

local function sort() n = n + 1; table.sort({2, 1}, function(a, b) sort() return a < b end) end
expect_error("sort", sort, "stack overflow")

local function format() n = n + 1; return string.format("%s", setmetatable({}, {__tostring = format})) end
expect_error("format", format, "stack overflow")

local function printing() n = n + 1; print(setmetatable({}, {__tostring = printing})) end
local real_print = print
print = function(...) return real_print(...) end
expect_error("print", function() local p = _G.print; _G.print = real_print; printing() end, "stack overflow")
print = real_print

-- load() turns a reader's error into a result, so this one ends without an error.
local function loading() n = n + 1; return load(function() loading() end) end
n = 0
loading()
assert(n > 100, "load recursed only " .. n .. " times")

local function requiring() n = n + 1; package.preload["m" .. n] = requiring; return require("m" .. n) end
expect_error("require", requiring, "stack overflow")

local function concat() n = n + 1; return setmetatable({}, {__concat = function() return "a" .. concat() end}) .. "b" end
expect_error("concat", concat, "stack overflow")

local buffer = require("string.buffer")
local function put() n = n + 1; return buffer.new():put(setmetatable({}, {__tostring = put})):tostring() end
expect_error("buffer", put, "stack overflow")

local function nest() n = n + 1; return coroutine.wrap(nest)() end
expect_error("coroutine.wrap", nest, "nested more than 200")
local function resume() n = n + 1; local ok, e = coroutine.resume(coroutine.create(resume)); error(e, 0) end
expect_error("coroutine.resume", resume, "nested more than 200")

-- Coroutines that do not nest are unaffected.
local gen = coroutine.wrap(function() for i = 1, 1000 do coroutine.yield(i) end end)
local sum = 0
for _ = 1, 1000 do sum = sum + gen() end
assert(sum == 500500)
print("recursion: all paths stopped")
