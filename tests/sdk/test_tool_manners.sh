#!/usr/bin/env bash
# The engine and its tools as people run them all day: help and exit codes, --fps pacing,
# --watch reloading the boot script, Ctrl-C/SIGTERM shutting down in order (and a second signal
# ending it at once), and the list of loaded modules a run starts with.
# usage: test_tool_manners.sh CUTTLE CUTTLE_COMPILE CUTTLE_HASH MODULES_DIR DEMO_DIR LEAKY.so HELLO.so
set -euo pipefail
cuttle=$1 compile=$2 hash=$3 modules=$4 demo=$5 leaky=$6 hello=$7
scratch=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$scratch"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
# status CMD...: prints the exit status of CMD, its output kept in $scratch/out.
status() { set +e; "$@" > "$scratch/out" 2>&1; echo $?; set -e; }
# wait_for FILE TEXT: waits (at most a minute) until FILE contains TEXT.
wait_for() {
    for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    cat "$1"; fail "never saw '$2'"
}

# Help and usage errors.
[ "$(status "$cuttle")" = 2 ] || fail "cuttle with no arguments must exit 2"
grep -q "^usage: cuttle" "$scratch/out" || fail "cuttle with no arguments must print the help"
[ "$(status "$hash" --help)" = 0 ] && grep -q "^usage: cuttle-hash" "$scratch/out" ||
    fail "cuttle-hash --help must print its help and exit 0"
[ "$(status "$hash")" = 2 ] || fail "cuttle-hash with no name must exit 2"
[ "$(status "$cuttle" --fps -1)" = 2 ] || fail "--fps -1 must be a usage error"
[ "$(status "$cuttle" --fps fast)" = 2 ] || fail "--fps fast must be a usage error"
echo "ok: help and usage errors"

# cuttle-compile exits non-zero when anything failed.
project=$scratch/data
mkdir -p "$project/levels"
printf 'modules = ["ct.entities" "ct.transforms"]\n' > "$project/project.sjson"
echo 'entities = [ { components = { transform = { position = [1 2 3] } } } ]' > "$project/levels/good.level"
[ "$(status "$compile" --project "$project" --modules "$modules")" = 0 ] ||
    { cat "$scratch/out"; fail "cuttle-compile of a good project must exit 0"; }
echo 'entities = [ { transform = { position = [1 2' > "$project/levels/bad.level"
[ "$(status "$compile" --project "$project" --modules "$modules")" = 1 ] ||
    { cat "$scratch/out"; fail "cuttle-compile with a failed source must exit 1"; }
grep -q "failed 1" "$scratch/out" || fail "cuttle-compile must count the failure"
[ "$(status "$compile" --no-such-option)" = 2 ] || fail "cuttle-compile usage error must exit 2"
rm "$project/levels/bad.level"
printf 'modules = ["ct.entities" "ct.transforms" "ct.nowhere"]\n' > "$project/project.sjson"
[ "$(status "$compile" --project "$project" --modules "$modules")" = 1 ] ||
    { cat "$scratch/out"; fail "cuttle-compile must exit 1 when a module the project needs is missing"; }
echo "ok: cuttle-compile exit codes"

# A missing project module and a leak fail under --strict.
printf 'modules = ["ct.entities" "ct.nowhere"]\n' > "$project/project.sjson"
[ "$(status "$cuttle" --project "$project" --modules "$modules")" = 0 ] ||
    fail "without --strict a missing project module is reported, not fatal"
grep -q "ct.nowhere" "$scratch/out" || fail "the missing module is not named"
[ "$(status "$cuttle" --strict --project "$project" --modules "$modules")" = 1 ] ||
    fail "under --strict a missing project module must exit 1"
[ "$(status "$cuttle" --strict --plugin "$leaky" -e 'x = 1')" = 1 ] ||
    { cat "$scratch/out"; fail "under --strict a leak must exit 1"; }
grep -qi "leak" "$scratch/out" || fail "the leak is not reported"
echo "ok: a missing module and a leak fail under --strict"

# --fps paces in real time (only a lower bound: sleeping can be late, never early).
elapsed_ms() { local t0=$(date +%s%N); "$@" >/dev/null 2>&1; echo $(( ($(date +%s%N) - t0) / 1000000 )); }
ms=$(elapsed_ms "$cuttle" --frames 10 --fps 20 -e 'x = 1')
[ "$ms" -ge 450 ] || fail "--fps 20 ran 10 frames in $ms ms (paced, it takes at least 450)"
ms=$(elapsed_ms "$cuttle" --frames 13 --watch -e 'x = 1')
[ "$ms" -ge 190 ] || fail "--watch ran 13 frames in $ms ms (60 fps by default: at least 190)"
echo "ok: --fps paces frames; --watch defaults to 60 fps"

# A run starts by listing the loaded modules with versions, in load order.
cp -r "$demo" "$scratch/demo"
rm -rf "$scratch/demo/compiled"
"$compile" --project "$scratch/demo" --modules "$modules" >/dev/null
"$cuttle" --project "$scratch/demo" --modules "$modules" --frames 1 > "$scratch/out" 2>/dev/null
head -n 1 "$scratch/out" | grep -Eq "^[0-9]+ plugins loaded, in load order:$" ||
    { cat "$scratch/out"; fail "the demo does not start with the loaded modules"; }
sed -n 2p "$scratch/out" | grep -Eq "^  1\. ct\.entities +[0-9]+\.[0-9]+\.[0-9]+  /" ||
    { cat "$scratch/out"; fail "the first module line lacks its name, version or file"; }
echo "ok: a run starts with the loaded modules, versions and load order"

# --watch reloads the boot script; SIGTERM shuts down in order.
game=$scratch/game
mkdir -p "$game"
printf 'boot_script = "boot.lua"\n' > "$game/project.sjson"
cat > "$game/boot.lua" <<'LUA'
function init() count = 0 print("v1 init") end
function update(dt) count = count + 1 if count == 5 then print("v1 running") end end
function shutdown() print("v1 shutdown") end
LUA
CUTTLE_LOG=info "$cuttle" --watch --project "$game" --plugin "$hello" --plugin "$leaky" --frames 1000000 \
    > "$scratch/run" 2>&1 &
pids+=($!)
wait_for "$scratch/run" "v1 running"
cat > "$game/boot.lua.new" <<'LUA'
function update(dt)
    count = count + 1
    if not told then told = true print("v2 update") end
end
function reload() print("reload() kept count " .. count) end
function shutdown() print("v2 shutdown after " .. count .. " frames") end
LUA
mv "$game/boot.lua.new" "$game/boot.lua"   # as editors save: a new file renamed over the old
wait_for "$scratch/run" "v2 update"
grep -Eq "reload\(\) kept count ([5-9]|[1-9][0-9]+)$" "$scratch/run" ||
    { cat "$scratch/run"; fail "reload() did not run with the state carried over"; }
echo 'function update( broken' > "$game/boot.lua"
wait_for "$scratch/run" "reload failed"
printf 'function update(dt) count = count + 1 end\nfunction shutdown() print("v3 shutdown after " .. count .. " frames") end\n' \
    > "$game/boot.lua"
wait_for "$scratch/run" "init() does not run again"
kill -TERM "${pids[-1]}"
set +e; wait "${pids[-1]}"; rc=$?; set -e
[ "$rc" = 143 ] || { cat "$scratch/run"; fail "SIGTERM: exit status $rc, not 143"; }
grep -q "v3 shutdown after" "$scratch/run" || { cat "$scratch/run"; fail "the script's shutdown() did not run"; }
script_line=$(grep -n "v3 shutdown after" "$scratch/run" | cut -d: -f1)
hook_line=$(grep -n "greetings over" "$scratch/run" | cut -d: -f1)
leak_line=$(grep -n "leaked 1 blocks" "$scratch/run" | cut -d: -f1)
[ -n "$hook_line" ] && [ -n "$leak_line" ] && [ "$script_line" -lt "$hook_line" ] &&
    [ "$hook_line" -lt "$leak_line" ] ||
    { cat "$scratch/run"; fail "shutdown order: the script's shutdown(), the plugins' hooks, the leak report"; }
echo "ok: --watch reloads the boot script (reload(), syntax error kept old, no reload() said); SIGTERM shuts down in order"

# A second signal ends a stuck shutdown at once.
cat > "$game/boot.lua" <<'LUA'
function shutdown() print("stuck in shutdown") while true do end end
LUA
"$cuttle" --project "$game" --frames 1000000 --fps 100 > "$scratch/stuck" 2>&1 &
pids+=($!)
sleep 0.5
kill -INT "${pids[-1]}"
wait_for "$scratch/stuck" "stuck in shutdown"
kill -INT "${pids[-1]}"
set +e; wait "${pids[-1]}"; rc=$?; set -e
[ "$rc" = 130 ] || { cat "$scratch/stuck"; fail "second SIGINT: exit status $rc, not 130"; }
echo "ok: a second signal exits at once"
