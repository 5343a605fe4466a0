#!/bin/sh
# The demo project has no missing and no unused references and no hash collisions: compiled into
# a scratch copy, `cuttle-deps check` finds nothing.
#   test_deps_demo.sh CUTTLE_COMPILE CUTTLE_DEPS MODULES_DIR DEMO_DIR
set -eu
WORK=$(mktemp -d /tmp/cuttle_deps_demo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp -r "$4" "$WORK/demo"
rm -rf "$WORK/demo/compiled"
"$1" --project "$WORK/demo" --modules "$3" >/dev/null
out=$("$2" --project "$WORK/demo" check 2>"$WORK/err")
summary=$(cat "$WORK/err")
if [ -n "$out" ] || [ "$summary" != "cuttle-deps: 0 missing, 0 unused, 0 hash collisions" ]; then
    printf 'the demo has findings:\n%s\n%s\n' "$out" "$summary"
    exit 1
fi
# The boot script's literals are soft references: the units it spawns are used through it.
"$2" --project "$WORK/demo" used-by units/crate.unit | grep -qF 'boot.lua:' || {
    echo "boot.lua's soft reference to units/crate is missing"
    exit 1
}
echo "$summary"
