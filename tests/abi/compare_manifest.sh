#!/usr/bin/env bash
# Compares the layout of every api/ struct (printed by abi_dump) with the checked-in manifest.
# A difference means a published struct changed: make a new _v<N+1> struct instead (README,
# "Publishing a new API version"). Adding a struct: regenerate the manifest with
#   ninja -C build abi-manifest
set -euo pipefail
dump=$1 manifest=$2
if ! diff -u "$manifest" <("$dump"); then
    echo "ABI manifest mismatch: a struct in api/ changed layout (lines with - are the published ones)." >&2
    exit 1
fi
echo "abi: $(grep -c ' size ' "$manifest") structs match the manifest"
