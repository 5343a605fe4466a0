#!/usr/bin/env bash
# cuttle-run on a scenario that fails on purpose: exit 1, the step and node named, logs kept.
# usage: test_failure.sh CUTTLE_RUN TESTS_DIR
set -euo pipefail
run=$1 dir=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$run" "$dir/scenarios/fails_on_purpose.lua" "$dir/project" >"$out" 2>&1 || status=$?
cat "$out"
[ "$status" -eq 1 ] || { echo "expected exit 1, got $status"; exit 1; }
grep -q "FAILED in step 'a script that fails': .*node 'lonely': script failed: .*on purpose" "$out"
logs=$(sed -n "s/^cuttle-run: every node's log is kept in //p" "$out")
[ -s "$logs/lonely.log" ] || { echo "the node's log was not kept"; exit 1; }
grep -q "console: listening on" "$logs/lonely.log"
rm -rf "$logs"
echo "failure reported with step and node, log kept"
