#!/usr/bin/env bash
# project.sjson and the command line as a careless or hostile user writes them (issue 7): paths
# that leave the project, unknown keys, wrong shapes, duplicates, numbers out of range.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"
p=$scratch/project
mkdir -p "$p/scripts"
printf 'print("outside ran")\n' >"$scratch/outside.lua"
printf 'print("inside ran")\n' >"$p/scripts/boot.lua"
project() { printf '%s\n' "$@" >"$p/project.sjson"; }

# Paths follow the resource rules and stay inside the project.
project 'boot_script = "scripts/boot.lua"'
expect 0 "inside ran" --project "$p"
for bad in '../outside.lua' "$scratch/outside.lua" './scripts/boot.lua' 'scripts//boot.lua' \
           'Scripts/boot.lua' 'scripts\\boot.lua' ''; do
    project "boot_script = \"$bad\""
    expect 1 "project.sjson: field 'boot_script': .*not a canonical project path" --project "$p"
done
ln -s "$scratch/outside.lua" "$p/scripts/link.lua"
project 'boot_script = "scripts/link.lua"'
expect 1 "field 'boot_script': 'scripts/link.lua' leads outside the project" --project "$p"
expect 1 "project folder is an empty name" --project ''

# Unknown keys: a warning naming the nearest known key; an error under --strict.
project 'boot_scirpt = "scripts/boot.lua"' 'frame = 3' 'module = ["ct.entities"]'
expect 0 "unknown key 'boot_scirpt' \(did you mean 'boot_script'\?\)" --project "$p"
expect 0 "unknown key 'frame' \(did you mean 'frames'\?\)" --project "$p"
expect 0 "unknown key 'module' \(did you mean 'modules'\?\)" --project "$p"
expect 1 "unknown key 'boot_scirpt'" --strict --project "$p"
project 'zzzzzzzz = 1'
expect 0 "unknown key 'zzzzzzzz' \(known: boot_script" --project "$p"
project 'frames = 1' 'frames = 2'
expect 1 "project.sjson:2:1: duplicate key \"frames\"" --project "$p"
# Shapes that carry no settings at all.
project '["ct.entities"]'
expect 1 "must hold settings \(key = value\), not an array" --project "$p"
project '42'
expect 1 "project.sjson:1:1: expected a key" --project "$p"
# Duplicates, and pins or providers for plugins the project does not list.
project 'modules = ["ct.entities" "ct.entities"]'
expect 0 "'ct.entities' is listed twice" --project "$p" --modules "$CUTTLE_MODULES"
expect 1 "'ct.entities' is listed twice" --strict --project "$p" --modules "$CUTTLE_MODULES"
project 'modules = ["ct.entities"]' 'versions = { "ct.entitis" = 1 }'
expect 0 "field 'versions': 'ct.entitis' names plugin 'ct.entitis', which 'modules' does not list \(did you mean 'ct.entities'\?\)" \
    --project "$p" --modules "$CUTTLE_MODULES"
expect 1 "which 'modules' does not list" --strict --project "$p" --modules "$CUTTLE_MODULES"
project 'modules = ["ct.entities"]' 'providers = { "ct.world" = "ct.physics" }'
expect 0 "field 'providers': 'ct.world' names plugin 'ct.physics', which 'modules' does not list" \
    --project "$p" --modules "$CUTTLE_MODULES"
expect 1 "which 'modules' does not list" --strict --project "$p" --modules "$CUTTLE_MODULES"
project 'modules = ["ct.entities" 3]'
expect 1 "field 'modules': every entry must be a plugin name" --project "$p"

# Numbers on the command line: refused, never wrapped or clamped.
expect 2 "--frames wants a whole number" --frames 99999999999999999999
expect 2 "--frames wants a whole number" --frames -1
expect 2 "--frames wants a whole number" --frames ' 5'
expect 2 "--frames wants a whole number" --frames 0x10
expect 2 "--jobs wants a thread count" --jobs 18446744073709551617
expect 2 "--jobs wants a thread count" --jobs -1
expect 2 "--dt wants seconds" --dt nan
expect 2 "--dt wants seconds" --dt inf
expect 2 "--dt wants seconds" --dt 1e-300
expect 2 "--dt wants seconds" --dt ''
expect 0 "" --frames 3 --dt 0.5 --jobs 2 -e 'x = 1'
finish
