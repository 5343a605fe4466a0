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
"$build/kernel/cuttle" --strict --memory-debug fill,canary --project "$scratch/demo" \
    --modules "$build/modules" --frames 90 >/dev/null
echo "demo: compiled, ran 90 frames strict with fill+canary, no leaks"
