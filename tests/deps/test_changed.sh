#!/bin/sh
# cuttle-compile --changed FILE...: told what changed, a run looks at those files and the sources
# that read them, without a walk, and appends to the manifest's journal. Fixed counts for: an
# edited source; a changed file a source reads; a named file that did not change (a stale hint:
# checked, not compiled); a change that is not named (left alone, and found by the next plain
# run); a path given under the project folder; and the cases only a walk can answer (a source
# that went, a new one, a folder, a path outside the project), which fall back to the walk.
#   test_changed.sh CUTTLE_COMPILE REFS_PLUGIN
set -u
COMPILE=$1
PLUGIN=$2
WORK=$(mktemp -d /tmp/cuttle_changed_test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}
expect() {
    [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}
P=$WORK/p
LOG=$WORK/log
run() {
    "$COMPILE" --project "$P" --plugin "$PLUGIN" "$@" 2>>"$LOG" | tail -1
}

mkdir -p "$P/things" "$P/h"
printf 'modules = []\n' >"$P/project.sjson"
printf 'x = 1\n' >"$P/things/apple.thing"
printf 'file = "things/pear.txt"\n' >"$P/things/pear.thing"
printf 'pear\n' >"$P/things/pear.txt"
printf 'uses = ["things/apple"]\n' >"$P/h/a.holder"
printf 'uses = ["things/pear"]\n' >"$P/h/b.holder"
expect "the first run" "compiled 4, up to date 0, failed 0" "$(run)"

printf 'uses = ["things/apple" "things/pear"]\n' >"$P/h/a.holder"
expect "an edited source" "compiled 1, up to date 0, failed 0" "$(run --changed h/a.holder)"
[ -f "$P/compiled/manifest.json.journal" ] || fail "the run appended to the journal"
expect "then a plain run" "compiled 0, up to date 4, failed 0" "$(run)"

printf 'pear 2\n' >"$P/things/pear.txt"
expect "a file a source reads" "compiled 1, up to date 0, failed 0" \
    "$(run --changed things/pear.txt)"
expect "a stale hint" "compiled 0, up to date 1, failed 0" "$(run --changed things/apple.thing)"

printf 'uses = ["things/pear" "things/apple"]\n' >"$P/h/b.holder"
expect "a change not named" "compiled 0, up to date 1, failed 0" "$(run --changed h/a.holder)"
expect "is found by a plain run" "compiled 1, up to date 3, failed 0" "$(run)"

printf 'x = 2\n' >"$P/things/apple.thing"
expect "a path under the project folder" "compiled 1, up to date 0, failed 0" \
    "$(run --changed "$P/things/apple.thing")"

# What only a walk knows: who names a resource that went or came.
rm "$P/things/apple.thing"
expect "a source that went" "compiled 0, up to date 1, failed 2" \
    "$(run --changed things/apple.thing)"
grep -q 'things/apple.thing: it is not there (only a walk knows who named it); walking the project' \
    "$LOG" || fail "the walk says why"
printf 'x = 3\n' >"$P/things/apple.thing"
expect "a new source" "compiled 3, up to date 1, failed 0" "$(run --changed things/apple.thing)"
expect "a folder" "compiled 0, up to date 4, failed 0" "$(run --changed h)"
expect "a path outside" "compiled 0, up to date 4, failed 0" "$(run --changed ../elsewhere)"
"$COMPILE" --project "$P" --plugin "$PLUGIN" --changed 2>/dev/null
[ $? = 2 ] || fail "--changed without a file is a usage error"
"$COMPILE" --project "$P" --plugin "$PLUGIN" --watch --changed h/a.holder 2>/dev/null
[ $? = 2 ] || fail "--watch with --changed is a usage error"

if [ $FAILS -ne 0 ]; then
    echo "$FAILS failures"
    cat "$LOG"
    exit 1
fi
echo "all passed"
