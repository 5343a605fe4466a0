#!/usr/bin/env bash
# cuttle-console as a person uses it: one-shot -e (results printed, a failing script exits 1), and
# the prompt fed on stdin (an expression's value, a statement, a command, an error, log lines).
# usage: test_cuttle_console.sh BUILD_DIR TESTS_DIR
set -euo pipefail
build=$1 dir=$2
out=$(mktemp -d)
: >"$out/engine.log" # the engine's redirection happens in the child: sed must not run first
"$build/kernel/cuttle" --project "$dir/project" --modules "$build/modules" --console 0 >"$out/engine.log" 2>&1 &
engine=$!
trap 'kill $engine 2>/dev/null; wait $engine 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 100); do
    port=$(sed -n 's/^console: listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$out/engine.log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$out/engine.log"; exit 1; }
console="$build/tools/cuttle-console/cuttle-console"

[ "$("$console" "$port" -e 'return 6 * 7, "x"')" = "$(printf '42\nx')" ]
status=0
"$console" "$port" -e 'error("on purpose")' 2>"$out/err" || status=$?
[ "$status" -eq 1 ] && grep -q "on purpose" "$out/err"
status=0
"$console" 1 -e 'return 1' 2>"$out/err" || status=$?
[ "$status" -eq 1 ] && grep -q "cannot connect to 127.0.0.1:1" "$out/err"

# The log line of the failed load arrives after its reply: the :status after it waits for it.
printf 'x = 20\nx + 22\nResource.load("level", "levels/nowhere")\n:status\n:exit\n' |
    "$console" "$port" >"$out/prompt" 2>&1
grep -qx "42" "$out/prompt"
grep -q '"command":"status","frame":[0-9]*,"paused":false' "$out/prompt"
grep -q 'Resource.load("level", "levels/nowhere"): ' "$out/prompt"
grep -q '^\[error\] kernel: .*levels/nowhere' "$out/prompt"
"$console" "$port" -e 'return frames > 0' | grep -qx true
echo "cuttle-console: one-shot, errors and the prompt (with log lines) work"
