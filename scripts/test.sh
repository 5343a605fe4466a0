#!/usr/bin/env bash
# Builds and runs every test suite twice: a normal build (warnings are errors) and an
# AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
CUTTLE_PACKAGES+=("${CUTTLE_TEST_PACKAGES[@]}")
cuttle_install_missing

cuttle_configure build-test -Dwerror=true
cuttle_configure build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# LuaJIT's JIT and dlclose'd modules confuse LeakSanitizer's view; leaks are checked by our own
# per-allocator reports instead.
export ASAN_OPTIONS=detect_leaks=0

status=0 passed=0 failed=0
for dir in build-test build-asan; do
    echo "== $dir"
    ninja -C "$dir" >/dev/null || { ninja -C "$dir"; exit 1; }
    meson test -C "$dir" --print-errorlogs --num-processes 2 | tee "$dir/test-summary.txt" || status=1
    # Sum meson's closing counts into one plain line for both builds.
    ok=$(awk '/^Ok:/ {print $2}' "$dir/test-summary.txt")
    bad=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {n += $NF} END {print n + 0}' "$dir/test-summary.txt")
    passed=$((passed + ${ok:-0})) failed=$((failed + bad))
done
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
