#!/usr/bin/env bash
# Resource loading against what a hostile disk or script offers (issue 7): a blob that is a FIFO
# (must not block) or a directory, and names with a NUL byte inside.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"
p=$scratch/project
mkdir -p "$p/compiled/level/levels"
printf 'modules = ["ct.entities" "ct.transforms"]\n' >"$p/project.sjson"
run() { expect "$@" --project "$p" --modules "$CUTTLE_MODULES"; }

mkfifo "$p/compiled/level/levels/fifo.bin"
CUTTLE_TIMEOUT=20 run 1 "levels/fifo.bin: cannot read: it is not a regular file \(a FIFO, socket or device\)" \
    -e 'Resource.load("level", "levels/fifo")'
mkdir "$p/compiled/level/levels/dir.bin"
run 1 "levels/dir.bin: cannot read: it is a directory, not a file" -e 'Resource.load("level", "levels/dir")'
run 1 "bad argument #2 to 'load' \(string holds a NUL byte at position 13\)" \
    -e 'Resource.load("level", "levels/arena\0x")'
run 1 "bad argument #1 to 'unload' \(string holds a NUL byte at position 6\)" \
    -e 'Resource.unload("level\0", "levels/arena")'
# A plugin's check_string without a length refuses NUL too (World.spawn_level reads its name so).
run 1 "string holds a NUL byte" -e 'World.spawn_level(World.create(), "levels/arena\0x")'
finish
