#!/usr/bin/env bash
# Builds an optimised build and runs every benchmark in bench/. Each prints one JSON object per
# figure on its own line ({"name": ..., "value": ..., "unit": ...}) and a table for people.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
CUTTLE_PACKAGES+=("${CUTTLE_TEST_PACKAGES[@]}") # bench_animation reads the mocap clips
cuttle_install_missing
cuttle_configure build-release --buildtype=release -Db_ndebug=true -Dtests=false
ninja -C build-release >/dev/null || { ninja -C build-release; exit 1; }
for b in build-release/bench/*/bench_*; do
    case "$b" in *.so | *.p) continue ;; esac
    [ -x "$b" ] && [ -f "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" --modules build-release/modules
done
