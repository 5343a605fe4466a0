#!/usr/bin/env bash
# The contracts the README states (issue 7): errors in the boot script's init(), update() and
# shutdown() follow one rule with and without --strict; canary mode checks every live block at
# shutdown and on demand, and damage or leaks fail the run.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"
p=$scratch/project
mkdir -p "$p"
printf 'boot_script = "boot.lua"\nframes = 3\n' >"$p/project.sjson"
# boot BROKEN: a boot script counting frames whose function BROKEN raises.
boot() {
    cat >"$p/boot.lua" <<LUA
n = 0
function init() if "$1" == "init" then error("init broke") end end
function update() n = n + 1 if "$1" == "update" then error("update broke") end end
function shutdown() print("frames run: " .. n) if "$1" == "shutdown" then error("shutdown broke") end end
LUA
}
boot init
expect 0 "init broke;;frames run: 3" --project "$p"
expect 1 "init\(\) failed and --strict is on;;frames run: 0" --project "$p" --strict
boot update
expect 0 "frames run: 3" --project "$p"
expect 1 "update\(\) failed and --strict is on;;frames run: 1" --project "$p" --strict
boot shutdown
expect 0 "shutdown broke" --project "$p"
expect 1 "shutdown\(\) failed and --strict is on" --project "$p" --strict
boot none
expect 0 "frames run: 3" --project "$p" --strict
# Loading the script is part of the boot, with or without --strict.
printf 'function init( end\n' >"$p/boot.lua"
expect 1 "boot.lua:1:" --project "$p"
expect 1 "boot.lua:1:" --project "$p" --strict

# Canary verification: a plugin writes past a block it never frees.
HOSTILE=overflow expect 1 "hostile: verify found 1" --memory-debug canary --plugin "$HOSTILE_PLUGIN"
HOSTILE=overflow expect 1 "the live 16-byte block allocated at .*: the guard after it was overwritten \(buffer overflow\) \(found by verification\)" \
    --memory-debug canary --plugin "$HOSTILE_PLUGIN" --strict
HOSTILE=overflow expect 1 "lua verify 1" --memory-debug canary --plugin "$HOSTILE_PLUGIN" \
    -e 'print("lua verify " .. Memory.verify())'
# A leak fails the run too.
HOSTILE=leak expect 1 "hostile: verify found 0;;allocator 'hostile' leaked 1 blocks" --plugin "$HOSTILE_PLUGIN"
expect 0 "lua verify 0" --memory-debug canary -e 'print("lua verify " .. Memory.verify())'
finish
