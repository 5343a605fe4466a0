#!/usr/bin/env bash
# The file server scenario on a compiled scratch copy of projects/demo.
# usage: test_fileserver.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$src/projects/demo" "$scratch/demo"
rm -rf "$scratch/demo/compiled"
"$build/tools/cuttle-compile/cuttle-compile" --project "$scratch/demo" --modules "$build/modules" >/dev/null
"$build/tools/cuttle-run/cuttle-run" --engine "$build/kernel/cuttle" --modules "$build/modules" \
    "$src/tests/console/scenarios/fileserver.lua" "$scratch/demo"
