#!/usr/bin/env bash
# Runs a libFuzzer build of a fuzz target (tests/fuzz/meson.build) for a bounded time on a copy
# of its seeds, so the corpus it grows never lands in the source tree. Fails on any finding
# (a crash, a sanitizer report, a leak, a timeout of one input).
# usage: run_libfuzzer.sh TARGET SECONDS [SEED FILE OR FOLDER...]
set -euo pipefail
target=$1 seconds=$2
shift 2
corpus=$(mktemp -d)
artifacts=$(mktemp -d)
trap 'rm -rf "$corpus" "$artifacts"' EXIT
for seed in "$@"; do
    if [ -d "$seed" ]; then
        find "$seed" -maxdepth 1 -type f -exec cp {} "$corpus"/ \;
    elif [ -f "$seed" ]; then
        cp "$seed" "$corpus"/
    fi
done
# One worker, bounded in time and memory; an input taking over 10 s is a hang.
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" 2>&1 | tail -n 12
