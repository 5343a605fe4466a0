#!/usr/bin/env bash
# tools/profiler-viewer/index.html in headless Chromium: the checked-in trace loads (the status
# line counts its threads and scopes), the per-scope table lists every name with its count,
# sorted by total time, and a screenshot of the lanes is taken.
# usage: test_viewer.sh SOURCE_DIR OUT_DIR     (the screenshot: OUT_DIR/profiler-viewer.png)
set -euo pipefail
src=$1 out=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP: no chromium (scripts/test.sh installs it: CUTTLE_TEST_PACKAGES)"
    exit 77
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
url="file://$src/tools/profiler-viewer/index.html?trace=file://$src/tests/console/data/sample_trace.json"
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
       --disable-sync --no-first-run --user-data-dir="$profile" --allow-file-access-from-files
       --virtual-time-budget=5000 --window-size=1200,500)
timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" 2>/dev/null >"$profile/dom.html"
# 3 threads (main, jobs 1, jobs 2) and 105 scopes: the numbers of the checked-in trace.
grep -q '<span id="status">3 threads, 105 scopes' "$profile/dom.html" || {
    echo "the viewer did not load the trace:"; grep -o '<span id="status">[^<]*' "$profile/dom.html"; exit 1; }
grep -q 'core [0-9]' "$profile/dom.html"
# The per-scope table: one row per name, sorted by total time ("job" first, 48 of them), and the
# colour choice (by name unless asked for cores).
grep -o '<tr class="stat" data-name="[^"]*"><td>[^/]*</span>[^<]*</td><td>[0-9]*' "$profile/dom.html" \
    | sed 's/.*data-name="\([^"]*\)".*<td>\([0-9]*\)$/\1 \2/' > "$profile/stats.txt"
printf 'job 48\nbusy 48\nframe 3\nupdate 3\nrender 3\n' | diff - "$profile/stats.txt"
grep -q '<option value="name">name</option>' "$profile/dom.html"
mkdir -p "$out"
rm -f "$out/profiler-viewer.png"
timeout 120 "$browser" "${flags[@]}" --screenshot="$out/profiler-viewer.png" "$url" 2>/dev/null >/dev/null
[ -s "$out/profiler-viewer.png" ] || { echo "no screenshot"; exit 1; }
echo "viewer: trace loaded (3 threads, 105 scopes), screenshot $out/profiler-viewer.png"
