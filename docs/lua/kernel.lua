---@meta
-- What the kernel itself registers: resources, memory checks, profiler scopes.

---@class ResourceModule
Resource = {}

---Loads a compiled resource ahead of use (loads are counted). Raises, naming it, on failure.
---@param type string resource type ("unit", "level", "particles", ...)
---@param name string
function Resource.load(type, name) end

---Drops one load of the resource.
---@param type string
---@param name string
function Resource.unload(type, name) end

---@class MemoryModule
Memory = {}

---Checks every live block's guards now (with `--memory-debug canary`); damage is logged.
---@return integer damaged blocks found
function Memory.verify() end

---@class ProfilerModule
Profiler = {}

---Runs fn(...) inside a scope named `name` and returns fn's results; an error in fn closes the
---scope and is raised again.
---@param name string
---@param fn function
---@param ... any
---@return any ...
function Profiler.scope(name, fn, ...) end

---Opens a scope by hand.
---@param name string
---@return integer token for end_scope (0 when nobody listens)
function Profiler.begin_scope(name) end

---Closes the scope begin_scope opened.
---@param token integer
function Profiler.end_scope(token) end

---Whether anyone listens (a profiler client or a trace).
---@return boolean
function Profiler.enabled() end
