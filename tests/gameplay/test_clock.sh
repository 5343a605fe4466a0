#!/usr/bin/env bash
# The game clock and its timers (api/ct_gameplay.h): pause, scale, timers in game time in due
# order, a failing timer logged while the rest run, cancel; the printed lines are fixed.
# usage: test_clock.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$build/kernel/cuttle" --project "$source/tests/gameplay/clock_project" --modules "$build/modules" --dt 0.25 \
    >"$scratch/out" 2>"$scratch/log" || { cat "$scratch/log"; exit 1; }
grep -v '^ \|plugin loaded' "$scratch/out" > "$scratch/lines"
diff "$source/tests/gameplay/clock_expected.txt" "$scratch/lines"
grep -q "timer 3: .*a timer that fails" "$scratch/log"
echo "clock: pause, scale and timers give the expected lines"
