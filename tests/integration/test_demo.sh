#!/usr/bin/env bash
# The demo project end to end, the strict way: compile its data into a scratch copy, run it with
# every memory debug mode on and --strict (a data warning, a script error, a leak or a corrupted
# block fails the run), then check a second compile has nothing to do.
# usage: test_demo.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$source/projects/demo" "$scratch/demo"
rm -rf "$scratch/demo/compiled"

compile() { "$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/demo" --modules "$build/modules"; }
compile >/dev/null
compile | grep -q "^compiled 0, "
out=$("$build/kernel/cuttle" --strict --memory-debug fill,canary --project "$scratch/demo" \
    --modules "$build/modules" --frames 90)
# The ragdoll is data (units/ragdoll.unit): all its joints spawn, and it falls from the landing
# (its pelvis starts at y 2.82) down the stairs.
grep -q "^demo: a ragdoll of 11 parts and 10 joints on the stairs$" <<<"$out" ||
    { echo "demo: the ragdoll's joints did not all spawn"; grep ragdoll <<<"$out"; exit 1; }
awk '/^demo: the ragdoll.s pelvis at/ { gsub(/[(),]/, ""); if ($7 + 0 < 1.5) ok = 1 }
     END { exit !ok }' <<<"$out" ||
    { echo "demo: the ragdoll did not fall down the stairs"; grep ragdoll <<<"$out"; exit 1; }
echo "demo: compiled, ran 90 frames strict with fill+canary, no leaks; the ragdoll fell"
