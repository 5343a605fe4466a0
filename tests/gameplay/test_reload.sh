#!/usr/bin/env bash
# Scripts under --watch:
#   - the shipped demo's boot script is edited while it runs: the kernel reloads it, its reload()
#     carries the world over, the edited function runs, and no error is logged;
#   - an update() that fails the same way every frame is logged once, then counted ("repeated
#     N more times"), not once per frame.
# usage: test_reload.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$scratch"' EXIT
cp -r "$source/projects/demo" "$scratch/demo"
rm -rf "$scratch/demo/compiled"
"$build/tools/cuttle-compile/cuttle-compile" --project "$scratch/demo" --modules "$build/modules" >/dev/null 2>&1
cd "$scratch"
"$build/kernel/cuttle" --project demo --modules "$build/modules" --render-backend null --watch --fps 240 \
    --frames 100000 >"$scratch/out" 2>"$scratch/log" &
pid=$!
wait_for() { # FILE PATTERN: up to 60 s
    for _ in $(seq 1200); do grep -q "$2" "$1" && return 0; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
    echo "reload: never saw '$2' in $1"; cat "$scratch/log"; tail -5 "$scratch/out"; exit 1
}
wait_for "$scratch/out" "demo: frame 60,"
sed -i 's/lowest crate at y/lowest crate (edited) at y/' "$scratch/demo/boot.lua"
wait_for "$scratch/out" "demo: reloaded at frame [0-9]*, 12 crates carried over"
wait_for "$scratch/out" "lowest crate (edited) at y"
kill $pid
wait $pid || true
pid=
if grep -q '\[error\]' "$scratch/log"; then cat "$scratch/log"; echo "reload: errors after the demo's reload"; exit 1; fi
echo "reload: the demo's script reloads under --watch and carries on"

mkdir -p "$scratch/fails"
printf 'boot_script = "boot.lua"\nframes = 250\n' > "$scratch/fails/project.sjson"
printf 'function update(dt)\n  local x = nil\n  return x.y\nend\n' > "$scratch/fails/boot.lua"
"$build/kernel/cuttle" --project "$scratch/fails" >/dev/null 2>"$scratch/log"
[ "$(grep -c "attempt to index local 'x'" "$scratch/log")" -eq 3 ]
[ "$(grep -c "stack traceback" "$scratch/log")" -eq 1 ]
grep -q "the error \".*boot.lua:3: attempt to index local 'x' (a nil value)\" repeated 100 times so far" "$scratch/log"
grep -q "the error \".*boot.lua:3: attempt to index local 'x' (a nil value)\" repeated 249 more times" "$scratch/log"
grep -q "ran 250 of 250 frames (250 with script errors)" "$scratch/log"
echo "reload: an error repeated every frame is logged once, with its count"
