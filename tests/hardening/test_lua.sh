#!/usr/bin/env bash
# Scripts and plugins against the Lua boundary (issue 7): runaway recursion through C, the
# trampoline's slot, ffi and the sandbox, panics in plugins, errors whose __tostring fails.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"

expect 0 "recursion: all paths stopped" -e "dofile('$HARDENING_DIR/lua/recursion.lua')"
# Lua -> kernel slot -> plugin -> ct_lua_api call_global -> Lua ... without end.
expect 0 "stack overflow" --plugin "$HOSTILE_PLUGIN" \
    -e 'function again() Hostile.call_global("again") end again()'
# A slot's function has nothing a script can change (the first 512 slots each have a trampoline
# of their own that knows its index)...
expect 0 "" --plugin "$HOSTILE_PLUGIN" \
    -e 'assert(debug.setupvalue(Hostile.echo, 1, 1000000) == nil) assert(Hostile.echo(7) == 7)'
# ...past them the trampoline's upvalue holds the slot, and it is reachable from scripts: checked.
HOSTILE=many_slots expect 0 "" --plugin "$HOSTILE_PLUGIN" \
    -e 'assert(Hostile.echo1099(5) == 5 and Hostile.echo0(6) == 6)'
HOSTILE=many_slots expect 1 "slot 1000000 does not exist" --plugin "$HOSTILE_PLUGIN" \
    -e 'debug.setupvalue(Hostile.echo1099, 1, 1000000) Hostile.echo1099(1)'
HOSTILE=many_slots expect 1 "slot -1 does not exist" --plugin "$HOSTILE_PLUGIN" \
    -e 'debug.setupvalue(Hostile.echo1099, 1, -1) Hostile.echo1099(1)'
# A plugin raising a Lua error from its init (the loader protects the call): named, the plugin
# fails, the engine goes on (not under --strict).
HOSTILE=error_in_init expect 0 "a Lua error in init of plugin 'hostile': raised by init on purpose" \
    --plugin "$HOSTILE_PLUGIN"
HOSTILE=error_in_init expect 1 "a Lua error in init of plugin 'hostile'" --plugin "$HOSTILE_PLUGIN" --strict
# Where no protected call is left to catch it (a resource compiler run by cuttle-compile), the panic
# handler names the plugin and the call instead of a silent exit 1.
mkdir -p "$scratch/compiles"
printf 'modules = ["hostile"]\n' >"$scratch/compiles/project.sjson"
printf 'x = 1\n' >"$scratch/compiles/thing.hostile"
HOSTILE=error_in_compile CUTTLE=$CUTTLE_COMPILE expect 1 \
    "plugin 'hostile' raised a Lua error outside a protected call \(during compiling thing.hostile\): .*raised by compile on purpose" \
    --project "$scratch/compiles" --modules "$(dirname "$HOSTILE_PLUGIN")"
# An error object whose __tostring itself fails.
expect 1 "error object is a table value whose __tostring failed: .*inner" \
    -e 'error(setmetatable({}, {__tostring = function() error("inner") end}))'
expect 1 "error object is a table value whose __tostring returned no string" \
    -e 'error(setmetatable({}, {__tostring = function() return {} end}))'

# The sandbox: a project setting; the full LuaJIT stays the default.
mkdir -p "$scratch/sandboxed" "$scratch/full"
printf 'sandbox = true\n' >"$scratch/sandboxed/project.sjson"
printf 'frames = 0\n' >"$scratch/full/project.sjson"
expect 0 "" --project "$scratch/full" -e 'assert(require("ffi") and io and os.execute and debug and string.dump)'
for code in 'require("ffi").cast("int*", 16)[0] = 1' 'io.open("/etc/passwd")' 'os.execute("true")' \
            'debug.getregistry()' 'dofile("/etc/passwd")' 'package.loadlib("libc.so.6", "abort")' \
            'require("os").execute("true")' 'require("io")' 'require("debug")' 'require("jit.util")' \
            'assert(load(string.dump(function() end)))' \
            'assert(load("\27LJ\2\0", "bytes"))' 'assert(loadstring("\27LJ\2\0"))'; do
    expect 1 "" --project "$scratch/sandboxed" -e "$code"
done
expect 0 "" --project "$scratch/sandboxed" \
    -e 'assert(load("return 1")() == 1 and loadstring("return 2")() == 2 and os.clock() >= 0 and not ffi and not io)'
printf 'print("boot ran")\n' >"$scratch/sandboxed/boot.lua"
printf 'sandbox = true\nboot_script = "boot.lua"\n' >"$scratch/sandboxed/project.sjson"
expect 0 "boot ran" --project "$scratch/sandboxed"
printf '\33LJ\2\0garbage' >"$scratch/sandboxed/boot.lua"
expect 1 "boot.lua: attempt to load chunk with wrong mode" --project "$scratch/sandboxed"
expect 1 "" --project "$scratch/sandboxed" -e 'x = 1' # the boot script failed: no frames
printf 'sandbox = "yes"\n' >"$scratch/sandboxed/project.sjson"
expect 1 "sandbox" --project "$scratch/sandboxed"
finish
