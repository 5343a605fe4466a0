#!/usr/bin/env bash
# The kernel stays tiny: its library holds what the running engine uses and nothing else.
# Every symbol it defines belongs to one of the parts the README names (loader, registry, Lua,
# memory, log, jobs, data, resource loading), and the project compile pipeline (compile, the
# manifest, writing blobs) lives in cuttle-compile, not here.
# usage: test_kernel_tiny.sh LIBCUTTLE_KERNEL.a CUTTLE_COMPILER.a
set -euo pipefail
kernel_lib=$1 compiler_lib=$2
defined() { nm --defined-only "$1" | awk '$2 ~ /^[TDBR]$/ {print $3}'; }

parts='^(kernel|project|boot_script|loader|registry|lua_env|memory|log|jobs|data|sjson|perfect_hash|resources)__'
strangers=$(defined "$kernel_lib" | grep -Ev "$parts" || true)
if [ -n "$strangers" ]; then
    echo "kernel: symbols of no kernel part (say in the README what they are, or move them out):"
    echo "$strangers"
    exit 1
fi
pipeline='^resources__(compile_project|manifest_[a-z]+|write_file)$'
if defined "$kernel_lib" | grep -E "$pipeline"; then
    echo "kernel: the compile pipeline above belongs in tools/cuttle-compile"
    exit 1
fi
# And it did not vanish: the tool's library has it.
[ "$(defined "$compiler_lib" | grep -cE "$pipeline")" -ge 8 ] || {
    echo "cuttle-compile: the compile pipeline is missing from $compiler_lib"; exit 1; }
echo "kernel: $(defined "$kernel_lib" | wc -l) symbols, all of its parts; the compile pipeline is in cuttle-compile"
