#!/bin/sh
# cuttle-compile --watch: after its first run (a walk of the project) each change the file system
# reports is compiled without a walk, with the sources it concerns: an edited source alone, the
# users of a file a compile read, the users of a resource that appeared (they had failed) or went
# (they fail now), a folder moved in or removed. Each run prints one line; fixed counts are
# expected. Then the bad paths: an event for a file that did not change (a stale hint) compiles
# nothing; a change made while no watcher ran is found by the next start's walk; a watcher killed
# (-9) leaves a manifest journal the next run reads, so nothing compiles again; a journal whose
# last record was cut short, or damaged in the middle, makes the sources of the lost records
# compile again, never look up to date; a plain run beside a watcher waits its turn, and the
# watcher then walks the project once.
#   test_watch.sh CUTTLE_COMPILE REFS_PLUGIN
set -u
COMPILE=$1
PLUGIN=$2
WORK=$(mktemp -d /tmp/cuttle_watch_test.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill -9 $PID 2>/dev/null; rm -rf "$WORK"' EXIT
FAILS=0
fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}
# expect WHAT EXPECTED ACTUAL
expect() {
    [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

P=$WORK/p
OUT=$WORK/watch.out
LOG=$WORK/watch.log

start() {
    : >"$OUT"
    "$COMPILE" --project "$P" --plugin "$PLUGIN" --watch >"$OUT" 2>>"$LOG" &
    PID=$!
}

# next N: waits (10 s at most) until the watcher has printed N lines, then prints line N.
next() {
    i=0
    while [ "$(wc -l <"$OUT")" -lt "$1" ] && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    sed -n "${1}p" "$OUT"
}

# save FILE TEXT: as an editor saves (a new file renamed over the old one: one event).
save() {
    printf '%s\n' "$2" >"$WORK/save.tmp"
    mv "$WORK/save.tmp" "$P/$1"
}

once() {
    "$COMPILE" --project "$P" --plugin "$PLUGIN" 2>>"$LOG" | tail -1
}

mkdir -p "$P/things" "$P/h"
printf 'modules = []\n' >"$P/project.sjson"
printf 'x = 1\n' >"$P/things/apple.thing"
printf 'file = "things/pear.txt"\n' >"$P/things/pear.thing"
printf 'pear\n' >"$P/things/pear.txt"
printf 'uses = ["things/apple"]\n' >"$P/h/a.holder"
printf 'uses = ["things/pear"]\n' >"$P/h/b.holder"
printf 'uses = ["things/plum"]\n' >"$P/h/c.holder"

start
expect "the first run walks the project" "compiled 4, up to date 0, failed 1" "$(next 1)"

# An edited source compiles alone; the source that failed (c: no plum) is tried again.
save h/a.holder 'uses = ["things/apple" "things/pear"]'
expect "an edit" "compiled 1, up to date 0, failed 1" "$(next 2)"
grep -q 'things/pear' "$P/compiled/references/h/a.holder.refs" || fail "a's references follow"

# A file a compile read (pear.thing's source_file) changed: pear compiles again.
save things/pear.txt 'pear 2'
expect "a file a source reads" "compiled 1, up to date 0, failed 1" "$(next 3)"

# plum appears: it compiles, and c, which named it, now compiles too.
save things/plum.thing 'x = 3'
expect "a resource that appears" "compiled 2, up to date 0, failed 0" "$(next 4)"
[ -f "$P/compiled/holder/h/c.bin" ] || fail "c's blob is there"

# apple goes: its blob goes, and a, which names it, fails and loses its blob.
rm "$P/things/apple.thing"
expect "a resource that goes" "compiled 0, up to date 0, failed 1" "$(next 5)"
[ -f "$P/compiled/thing/things/apple.bin" ] && fail "apple's blob stays"
[ -f "$P/compiled/holder/h/a.bin" ] && fail "a's blob stays after apple went"
grep -q 'h/a.holder: uses: no thing named "things/apple"' "$LOG" || fail "a's failure names apple"

# A folder moved in: its sources compile (a is tried again and still fails).
mkdir -p "$WORK/more/deep"
printf 'x = 4\n' >"$WORK/more/deep/q.thing"
mv "$WORK/more" "$P/more"
expect "a folder moved in" "compiled 1, up to date 0, failed 1" "$(next 6)"
[ -f "$P/compiled/thing/more/deep/q.bin" ] || fail "q compiled"
# ...and its subfolder is followed from then on.
save more/deep/r.thing 'x = 5'
expect "a file in the new folder" "compiled 1, up to date 0, failed 1" "$(next 7)"
# A stale hint: an event for a source whose content and time did not change (its own time set
# again) costs a check, not a compile.
touch -r "$P/things/pear.thing" "$P/things/pear.thing"
expect "an event without a change" "compiled 0, up to date 1, failed 1" "$(next 8)"
# A folder moved out: what was under it goes.
mv "$P/more" "$WORK/gone"
next 9 >/dev/null
sleep 0.3
[ -f "$P/compiled/thing/more/deep/q.bin" ] && fail "q's blob stays after its folder went"
[ -f "$P/compiled/references/more/deep/q.thing.refs" ] && fail "q's references stay"

# A clean stop writes the manifest whole: the journal is folded in and a plain run agrees.
kill $PID
wait $PID
PID=
[ -f "$P/compiled/manifest.json.journal" ] && fail "the journal stays after a clean stop"
expect "a plain run after the watcher" "compiled 0, up to date 4, failed 1" "$(once)"

# A change made while nothing watched: the next start's walk finds it.
save h/b.holder 'uses = ["things/pear" "things/plum"]'
start
expect "a change made while not watching" "compiled 1, up to date 3, failed 1" "$(next 1)"

# A plain run beside the watcher (the editor starts one after a save): the two take turns (a
# lock), and the watcher's next run, finding a manifest it did not write, walks the project.
expect "a plain run beside the watcher" "compiled 0, up to date 4, failed 1" "$(once)"
save things/plum.thing 'x = 6'
expect "the watcher after a plain run" "compiled 1, up to date 3, failed 1" "$(next 2)"
grep -q 'written by another cuttle-compile run, or gone; walking the project' "$LOG" ||
    fail "the walk says why"

# Killed after two edits: the journal holds them, and a plain run compiles nothing.
save h/c.holder 'uses = ["things/plum" "things/pear"]'
expect "an edit after the walk" "compiled 1, up to date 0, failed 1" "$(next 3)"
save things/plum.thing 'x = 6.5'
next 4 >/dev/null
kill -9 $PID
wait $PID 2>/dev/null
PID=
expect "the journal after a kill" 2 "$(wc -l <"$P/compiled/manifest.json.journal")"
expect "a plain run reads the journal" "compiled 0, up to date 4, failed 1" "$(once)"

# The last record cut short (a crash mid-append): c compiles again, nothing else does.
start
next 1 >/dev/null
save things/plum.thing 'x = 7'
next 2 >/dev/null
save h/c.holder 'uses = ["things/plum"]'
next 3 >/dev/null
kill -9 $PID
wait $PID 2>/dev/null
PID=
J=$P/compiled/manifest.json.journal
size=$(wc -c <"$J")
head -c $((size - 20)) "$J" >"$WORK/cut" && cp "$WORK/cut" "$J"
expect "a cut record" "compiled 1, up to date 3, failed 1" "$(once)"
grep -q 'manifest.json.journal: its last record was cut short' "$LOG" || fail "the cut is named"

# A damaged record in the middle: it and the ones after it are ignored.
start
next 1 >/dev/null
save things/plum.thing 'x = 8'
next 2 >/dev/null
save h/c.holder 'uses = ["things/plum" "things/pear"]'
next 3 >/dev/null
kill -9 $PID
wait $PID 2>/dev/null
PID=
sed -i '1s/"path"/"pa#th"/' "$J"
expect "a damaged record" "compiled 2, up to date 2, failed 1" "$(once)"
grep -q 'manifest.json.journal: record 1 is damaged' "$LOG" || fail "the damage is named"

if [ $FAILS -ne 0 ]; then
    echo "$FAILS failures"
    cat "$LOG"
    exit 1
fi
echo "all passed"
