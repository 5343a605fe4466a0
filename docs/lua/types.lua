---@meta
-- Cuttle's Lua API for lua-language-server (LuaLS): add this folder (installed as
-- share/cuttle/lua) to `workspace.library` in .luarc.json and editors complete and check the
-- engine's functions. tests/sdk/test_lua_reference.sh keeps it equal to what the engine registers.
--
-- Conventions of every module: worlds are light userdata (World.create), entities their id as a
-- whole number in 1 .. 2^32 - 1. A function given something else raises
-- "<Module.function>: argument N is not a world" / "... is not an entity id (got 1.5)"; bad numbers
-- (NaN, infinities, out of range) raise an error naming the argument. Functions marked "raises"
-- raise a Lua error for the cases they name; the others return nil for "not there".

---A world: a set of component managers (World.create); light userdata.
---@alias ct.World lightuserdata

---An entity: its id, a whole number in 1 .. 2^32 - 1.
---@alias ct.Entity integer
