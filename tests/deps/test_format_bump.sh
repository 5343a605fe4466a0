#!/bin/sh
# The engine's modules declare their component formats: a copy of the demo compiled, then one
# format at a time bumped (bump_plugin.c declares it one higher, as a module whose layout changed
# would) compiles exactly the levels and units that hold that component again, each named with
# its reason, and nothing else; without the bump they compile back.
#   test_format_bump.sh CUTTLE_COMPILE MODULES DEMO BUMP_PLUGIN
set -u
COMPILE=$1
MODULES=$2
DEMO=$3
BUMP=$4
WORK=$(mktemp -d /tmp/cuttle_format_bump.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/check.sh"
P=$WORK/demo
mkdir -p "$P"
(cd "$DEMO" && tar cf - --exclude=./compiled .) | (cd "$P" && tar xf -)

# compile [FORMAT]: the count line; the log in $WORK/log
compile() {
    CUTTLE_TEST_BUMP_FORMAT=${1:-} "$COMPILE" --project "$P" --modules "$MODULES" \
        --plugin "$BUMP" 2>"$WORK/log" | tail -1
}

r=$(compile)
case "$r" in "compiled "*", up to date 0, failed 0") ;; *) fail "the demo compiles: $r" ;; esac
total=${r#compiled }
total=${total%%,*}
r=$(compile)
[ "$r" = "compiled 0, up to date $total, failed 0" ] || fail "then it is up to date: $r"

# bump FORMAT USERS...: those sources, and only they, compile again, then compile back.
bump() {
    what=$1
    shift
    n=$#
    r=$(compile "$what")
    [ "$r" = "compiled $n, up to date $((total - n)), failed 0" ] || fail "$what bumped: $r"
    got=$(sed -n "s/.*kernel: \([^ ]*\): $what format changed ([0-9]* -> [0-9]*); compiling it again/\1/p" \
        "$WORK/log" | sort | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "$what: recompiled [$got], expected [$want]"
    r=$(compile)
    [ "$r" = "compiled $n, up to date $((total - n)), failed 0" ] || fail "$what back: $r"
}

ALL_UNITS="units/camera.unit units/crate.unit units/dancer.unit units/joint.unit units/ragdoll.unit
    units/smoke.unit units/sun.unit units/trigger.unit units/walker.unit units/whirlwind.unit
    levels/arena.level"
# shellcheck disable=SC2086
bump component.transform $ALL_UNITS
bump component.body units/crate.unit units/ragdoll.unit units/trigger.unit units/whirlwind.unit \
    levels/arena.level
bump component.point_mass levels/arena.level
bump component.force_field units/whirlwind.unit
bump component.animation units/dancer.unit units/walker.unit
bump component.particle_emitter units/smoke.unit
bump component.mesh units/crate.unit units/joint.unit units/ragdoll.unit units/walker.unit units/whirlwind.unit \
    levels/arena.level
bump component.camera units/camera.unit

if [ $FAILS -ne 0 ]; then
    echo "$FAILS failures"
    exit 1
fi
echo "all passed"
