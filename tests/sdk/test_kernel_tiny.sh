#!/usr/bin/env bash
# The kernel stays tiny: what kernel/ builds is what the running engine uses. Every object of the
# kernel library must be linked into `cuttle` (a static link takes only the objects the program
# reaches, so an object left out is code the engine does not run), and the project compile
# pipeline (compile, the manifest, writing blobs) lives in cuttle-compile, not in the kernel.
# usage: test_kernel_tiny.sh LIBCUTTLE_KERNEL.a CUTTLE CUTTLE_COMPILER.a
set -euo pipefail
kernel_lib=$1 cuttle=$2 compiler_lib=$3
defined() { nm --defined-only "$1" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u; }

[ "$(defined "$kernel_lib" | wc -l)" -gt 50 ] || { echo "kernel: $kernel_lib defines almost nothing"; exit 1; }
unused=$(comm -23 <(defined "$kernel_lib") <(nm --defined-only "$cuttle" | awk '{print $3}' | sort -u))
if [ -n "$unused" ]; then
    echo "kernel: the running engine (cuttle) does not use these; move their files to the tool that does:"
    echo "$unused"
    exit 1
fi
pipeline='^compiler__(compile_project|manifest_[a-z]+|write_file)$'
if defined "$kernel_lib" | grep -E "$pipeline"; then
    echo "kernel: the compile pipeline above belongs in tools/cuttle-compile"
    exit 1
fi
# And it did not vanish: the tool's library has it.
[ "$(defined "$compiler_lib" | grep -cE "$pipeline")" -ge 8 ] || {
    echo "cuttle-compile: the compile pipeline is missing from $compiler_lib"; exit 1; }
echo "kernel: all $(defined "$kernel_lib" | wc -l) symbols are used by cuttle; the compile pipeline is in cuttle-compile"
