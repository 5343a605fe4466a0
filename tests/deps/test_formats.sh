#!/bin/sh
# Compiled data knows its format: a component type whose layout changed but kept its size
# (layout plugin, format 1 -> 2) makes cuttle-compile compile the unit again, naming why, and a
# blob of the old format that reaches the engine anyway is refused with "recompile", never read;
# a type that another plugin provides now is compiled again too; --force compiles everything.
#   test_formats.sh CUTTLE_COMPILE CUTTLE MODULES LAYOUT_V1 LAYOUT_V2 REFS_A REFS_B
set -u
COMPILE=$1
CUTTLE=$2
MODULES=$3
V1=$4
V2=$5
REFS_A=$6
REFS_B=$7
WORK=$(mktemp -d /tmp/cuttle_formats_test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/check.sh"

# compile PROJECT PLUGIN [--force]: "compiled N, up to date M, failed K", the log in $WORK/log
compile() {
    "$COMPILE" --project "$1" --modules "$MODULES" --plugin "$2" ${3:-} 2>"$WORK/log" | tail -1
}

P=$WORK/layout
mkdir -p "$P/units"
printf 'modules = ["ct.entities"]\n' >"$P/project.sjson"
printf 'entities = [ { components = { layout = { a = 1 b = 2 } } } ]\n' >"$P/units/u.unit"
printf 'entities = [ { components = { } } ]\n' >"$P/units/plain.unit"

r=$(compile "$P" "$V1")
[ "$r" = "compiled 2, up to date 0, failed 0" ] || fail "first compile: $r"
r=$(compile "$P" "$V1")
[ "$r" = "compiled 0, up to date 2, failed 0" ] || fail "up to date with the same format: $r"
cp "$P/compiled/unit/units/u.bin" "$WORK/u_format1.bin"

# The engine with format 2 refuses the format-1 blob, naming the component and "recompile".
out=$("$CUTTLE" --project "$P" --modules "$MODULES" --plugin "$V2" --frames 1 \
    -e 'print("load:", pcall(Resource.load, "unit", "units/u"))' 2>&1)
echo "$out" | grep -q "load:	false" || fail "format 2 loaded format-1 data: $out"
echo "$out" | grep -q "component 'layout' was compiled with format 1, the loaded type reads format 2: recompile" ||
    fail "the refusal names the component and says recompile: $out"
# ...and format 1 loads it.
out=$("$CUTTLE" --project "$P" --modules "$MODULES" --plugin "$V1" --frames 1 \
    -e 'print("load:", pcall(Resource.load, "unit", "units/u"))' 2>&1)
echo "$out" | grep -q "load:	true" || fail "format 1 loads its own data: $out"

# cuttle-compile with format 2: the unit that uses the component is compiled again, the other
# unit is up to date, and the log says why.
r=$(compile "$P" "$V2")
[ "$r" = "compiled 1, up to date 1, failed 0" ] || fail "a changed component format recompiles: $r"
grep -q "units/u.unit: component.layout format changed (1 -> 2); compiling it again" "$WORK/log" ||
    fail "the log names the changed format: $(cat "$WORK/log")"
cmp -s "$WORK/u_format1.bin" "$P/compiled/unit/units/u.bin" && fail "the blob was rewritten"
r=$(compile "$P" "$V2")
[ "$r" = "compiled 0, up to date 2, failed 0" ] || fail "then up to date: $r"
r=$(compile "$P" "$V2" --force)
[ "$r" = "compiled 2, up to date 0, failed 0" ] || fail "--force compiles everything: $r"

# A type provided by another plugin now.
Q=$WORK/provider
mkdir -p "$Q"
printf 'modules = []\n' >"$Q/project.sjson"
printf 'x = 1\n' >"$Q/a.thing"
r=$("$COMPILE" --project "$Q" --plugin "$REFS_A" 2>/dev/null | tail -1)
[ "$r" = "compiled 1, up to date 0, failed 0" ] || fail "provider A compiles: $r"
r=$("$COMPILE" --project "$Q" --plugin "$REFS_B" 2>"$WORK/log" | tail -1)
[ "$r" = "compiled 1, up to date 0, failed 0" ] || fail "a swapped provider recompiles: $r"
grep -q "a.thing: the thing type now comes from test.refs_b 1.0.0 (compiled with test.refs 1.0.0)" \
    "$WORK/log" || fail "the log names the providers: $(cat "$WORK/log")"

if [ $FAILS -ne 0 ]; then
    echo "$FAILS failures"
    exit 1
fi
echo "all passed"
