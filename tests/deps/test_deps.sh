#!/bin/sh
# cuttle-deps end to end: a project compiled by cuttle-compile with a plugin whose types
# reference each other (refs_plugin.c), then every verb, renames (one resource with its file,
# a folder), renames refused with nothing changed, a rename killed at every step and then
# rolled back or resumed, and a branch merged after a rename (real git) fixed with `fix`.
#   test_deps.sh CUTTLE_COMPILE CUTTLE_DEPS REFS_PLUGIN
set -u
COMPILE=$1
DEPS=$2
PLUGIN=$3
WORK=$(mktemp -d /tmp/cuttle_deps_test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/check.sh"

compile() {
    "$COMPILE" --project "$1" --plugin "$PLUGIN" >"$WORK/compile.out" 2>"$WORK/compile.err"
}

deps() {
    dir=$1
    shift
    "$DEPS" --project "$dir" "$@" 2>"$WORK/deps.err"
}

# The fixture project, compiled.
make_project() {
    p=$1
    mkdir -p "$p/things" "$p/sub"
    printf 'boot_script = "boot.lua"\nroots = ["h.holder"]\nmodules = []\n' >"$p/project.sjson"
    cat >"$p/boot.lua" <<'EOF'
-- "things/plum" in a comment names nothing
local pear = "things/pear"
print([[things/apple]], 'not/a/resource')
EOF
    printf 'file = "things/apple.txt"\n' >"$p/things/apple.thing"
    printf 'apple\n' >"$p/things/apple.txt"
    printf 'x = 1\n' >"$p/things/pear.thing"
    printf 'x = 2\n' >"$p/things/plum.thing"
    cat >"$p/h.holder" <<'EOF'
// names things
uses = ["things/apple"
        "things/pear" "things/apple"]  // apple twice
holders = ["sub/h2"]
EOF
    printf 'uses = ["things/pear"]\n' >"$p/sub/h2.holder"
    compile "$p" || fail "the fixture compiles: $(cat "$WORK/compile.err")"
}

# The project's files without compiled/ and .git, with their contents, for comparisons.
snapshot() {
    (cd "$1" && find . -path ./compiled -prune -o -path ./.git -prune -o -type f -print |
        LC_ALL=C sort | while read -r f; do echo "== $f"; cat "$f"; done)
}

# ---- the verbs -------------------------------------------------------------------------------
P=$WORK/verbs
make_project "$P"
expect "uses h.holder" 'h.holder:2:10: uses -> thing things/apple
h.holder:3:10: uses -> thing things/pear
h.holder:3:24: uses -> thing things/apple
h.holder:4:13: holders -> holder sub/h2' "$(deps "$P" uses h.holder)"
expect "uses a bare name" "$(deps "$P" uses h.holder)" "$(deps "$P" uses h)"
expect "used-by things/apple" 'h.holder:2:10: uses -> thing things/apple
h.holder:3:24: uses -> thing things/apple
boot.lua:3:9: lua -> thing things/apple (soft)' "$(deps "$P" used-by things/apple.thing)"
expect "uses of a thing names its file" 'things/apple.thing:1:9: file -> file things/apple.txt' \
    "$(deps "$P" uses things/apple)"
expect "used-by a file" 'things/apple.thing:1:9: file -> file things/apple.txt' \
    "$(deps "$P" used-by things/apple.txt)"
deps "$P" used-by things/nothing >/dev/null
expect "used-by an unknown name exits 1" 1 $?
expect "missing: none" '' "$(deps "$P" missing)"
deps "$P" missing >/dev/null
expect "missing: exit 0" 0 $?
expect "unused: plum only" 'things/plum.thing' "$(deps "$P" unused)"
deps "$P" unused >/dev/null
expect "unused: exit 1" 1 $?
deps "$P" collisions >/dev/null
expect "collisions: exit 0" 0 $?
deps "$P" graph | grep -qF '"h.holder" -> "things/apple.thing" [label="uses"];' ||
    fail "graph: DOT edge"
deps "$P" graph --json | python3 -c '
import json, sys
g = json.load(sys.stdin)
refs = g["references"]
assert len(refs) == 10, len(refs)
assert {"from": "boot.lua", "type": "thing", "name": "things/pear", "to": "things/pear.thing",
        "field": "lua", "line": 2, "column": 15, "soft": True} in refs
' || fail "graph --json"
deps "$P" frobnicate >/dev/null 2>&1
expect "a bad verb exits 2" 2 $?
"$DEPS" --project "$WORK/nowhere" missing >/dev/null 2>&1
expect "no project exits 3" 3 $?

# A source deleted without recompiling: its references are missing, in order, soft ones not.
rm "$P/things/pear.thing"
expect "missing after a delete" 'h.holder:3:10: uses: no thing named "things/pear"
sub/h2.holder:1:10: uses: no thing named "things/pear"' "$(deps "$P" missing)"
deps "$P" check >/dev/null
expect "check: exit 1" 1 $?
# The compiler says the same, naming the nearest name.
compile "$P"
expect "compile fails on the missing thing" 1 $?
grep -qF 'uses: no thing named "things/pear" (nearest: "things/plum")' "$WORK/compile.err" ||
    fail "compile names the nearest thing: $(cat "$WORK/compile.err")"

# ---- a source moved without the tool (a plain mv) is offered as a rename ----------------------
P=$WORK/plain
make_project "$P"
mkdir -p "$P/fruit"
mv "$P/things/pear.thing" "$P/fruit/pear.thing"
expect "missing offers the move" 'h.holder:3:10: uses: no thing named "things/pear"; things/pear.thing moved to fruit/pear.thing (the same content): run `cuttle-deps mv thing things/pear fruit/pear`
sub/h2.holder:1:10: uses: no thing named "things/pear"; things/pear.thing moved to fruit/pear.thing (the same content): run `cuttle-deps mv thing things/pear fruit/pear`' \
    "$(deps "$P" missing)"
deps "$P" mv thing things/pear fruit/pear >/dev/null
expect "mv after the move exits 0" 0 $?
expect "mv after the move: the references" 'uses = ["fruit/pear"]' "$(cat "$P/sub/h2.holder")"
expect "mv after the move: the Lua literal too" 'local pear = "fruit/pear"' \
    "$(sed -n 2p "$P/boot.lua")"
compile "$P" || fail "compiles after adopting the move: $(cat "$WORK/compile.err")"
expect "after adopting the move" 'things/plum.thing' "$(deps "$P" check)"

# ---- mv of one resource with the file beside it ----------------------------------------------
P=$WORK/mv
make_project "$P"
deps "$P" mv thing things/apple fruit/green --with-files >/dev/null
expect "mv exits 0" 0 $?
expect "h.holder: one change per reference, comments kept" '// names things
uses = ["fruit/green"
        "things/pear" "fruit/green"]  // apple twice
holders = ["sub/h2"]' "$(cat "$P/h.holder")"
expect "the moved thing names its moved file" 'file = "fruit/green.txt"' \
    "$(cat "$P/fruit/green.thing")"
expect "the Lua literal follows" 'print([[fruit/green]], '"'"'not/a/resource'"'"')' \
    "$(sed -n 3p "$P/boot.lua")"
[ -f "$P/fruit/green.txt" ] && [ ! -e "$P/things/apple.thing" ] && [ ! -e "$P/things/apple.txt" ] ||
    fail "mv moved the source and its file"
expect "renames.log" "$(date -u +%F) thing things/apple fruit/green
$(date -u +%F) @file things/apple.txt fruit/green.txt" "$(grep -v '^#' "$P/renames.log")"
# The index follows at once (before any compile): spans shifted on the line.
expect "used-by after mv" 'h.holder:2:10: uses -> thing fruit/green
h.holder:3:24: uses -> thing fruit/green
boot.lua:3:9: lua -> thing fruit/green (soft)' "$(deps "$P" used-by fruit/green.thing)"
expect "uses after mv" 'h.holder:2:10: uses -> thing fruit/green
h.holder:3:10: uses -> thing things/pear
h.holder:3:24: uses -> thing fruit/green
h.holder:4:13: holders -> holder sub/h2' "$(deps "$P" uses h.holder)"
compile "$P" || fail "compiles after mv: $(cat "$WORK/compile.err")"
expect "after mv only plum is unused" 'things/plum.thing' "$(deps "$P" check)"

# Refused, with nothing changed: a target that exists, an unknown resource, a stale index.
before=$(snapshot "$P")
deps "$P" mv thing fruit/green things/pear >/dev/null
expect "mv onto an existing file exits 1" 1 $?
deps "$P" mv thing fruit/nothing things/x >/dev/null
expect "mv of nothing exits 1" 1 $?
deps "$P" mv thing fruit/green Bad/Name >/dev/null
expect "mv to a non-canonical name exits 1" 1 $?
printf '\n' >>"$P/h.holder"
touch -d '+2 seconds' "$P/h.holder"
before=$(snapshot "$P")
deps "$P" mv thing fruit/green fruit/red >/dev/null
expect "mv with a stale index exits 1" 1 $?
grep -q 'run cuttle-compile first' "$WORK/deps.err" || fail "stale: says to compile"
expect "refused mvs change nothing" "$before" "$(snapshot "$P")"

# ---- mv of a folder --------------------------------------------------------------------------
P=$WORK/folder
make_project "$P"
deps "$P" mv things/ stuff/ >/dev/null
expect "mv folder exits 0" 0 $?
[ ! -e "$P/things" ] || fail "the old folder is gone"
expect "folder: h.holder" '// names things
uses = ["stuff/apple"
        "stuff/pear" "stuff/apple"]  // apple twice
holders = ["sub/h2"]' "$(cat "$P/h.holder")"
expect "folder: the file reference" 'file = "stuff/apple.txt"' "$(cat "$P/stuff/apple.thing")"
compile "$P" || fail "compiles after the folder mv: $(cat "$WORK/compile.err")"
expect "folder: check" 'stuff/plum.thing' "$(deps "$P" check)"

# ---- killed at every step: rollback restores, resume finishes ---------------------------------
ORIGINAL=$WORK/original
make_project "$ORIGINAL"
EXPECTED=$WORK/expected
cp -a "$ORIGINAL" "$EXPECTED"
deps "$EXPECTED" mv things/ stuff/ >/dev/null || fail "the uninterrupted mv"
kills=0
n=1
while [ $n -lt 100 ]; do
    for ending in rollback resume; do
        K=$WORK/kill_${n}_$ending
        rm -rf "$K"
        cp -a "$ORIGINAL" "$K"
        CUTTLE_DEPS_KILL_AFTER=$n "$DEPS" --project "$K" mv things/ stuff/ >/dev/null 2>&1
        status=$?
        if [ $status -eq 0 ]; then
            break 2
        fi
        [ $status -eq 137 ] || fail "step $n: killed (status $status)"
        [ $ending = rollback ] && kills=$((kills + 1))
        state=none
        if [ -e "$K/.cuttle-deps-journal" ]; then
            state=$(sed -n 's/^state //p' "$K/.cuttle-deps-journal")
            deps "$K" missing >/dev/null
            expect "step $n: other verbs wait for resume or rollback" 4 $?
            deps "$K" $ending >/dev/null
            expect "step $n: $ending exits 0" 0 $?
        fi
        # Before the commit nothing had changed; after it rollback undoes and resume
        # finishes; once done (or the journal gone) the mv stands.
        want=$EXPECTED
        if [ $state = prepared ] || { [ $state = committed ] && [ $ending = rollback ]; }; then
            want=$ORIGINAL
        fi
        expect "step $n ($state), $ending: the project is whole" "$(snapshot "$want")" \
            "$(snapshot "$K")"
        [ ! -e "$K/.cuttle-deps-journal" ] || fail "step $n $ending: the journal is gone"
        leftovers=$(find "$K" -name '*.cuttle-deps-*' | wc -l)
        expect "step $n $ending: no leftovers" 0 "$leftovers"
        rm -rf "$K"
    done
    n=$((n + 1))
done
[ $kills -ge 10 ] || fail "the mv was killed at only $kills steps"
echo "killed at $kills steps"

# ---- a branch merged after a rename ----------------------------------------------------------
P=$WORK/git
make_project "$P"
(
    cd "$P" || exit 1
    git init -q . && git config user.email t@example.com && git config user.name t &&
        printf 'compiled/\n' >.gitignore && git add -A && git commit -qm base &&
        git checkout -qb feature &&
        printf 'uses = ["things/apple"]  // added on the branch\n' >sub/h3.holder &&
        git add -A && git commit -qm feature && git checkout -q -
) >/dev/null 2>&1 || fail "git setup"
compile "$P"
deps "$P" mv thing things/apple things/green >/dev/null || fail "mv on main"
(cd "$P" && git add -A && git commit -qm rename && git merge -q --no-edit feature) \
    >/dev/null 2>&1 || fail "the merge is clean"
compile "$P"
expect "compile fails after the merge" 1 $?
grep -qF "\`things/apple\` was renamed to \`things/green\` on $(date -u +%F); run \`cuttle-deps fix\`" \
    "$WORK/compile.err" || fail "compile names the rename: $(cat "$WORK/compile.err")"
expect "fix rewrites the branch's reference" 'sub/h3.holder:1:10: "things/apple" -> "things/green"' \
    "$(deps "$P" fix)"
expect "fix: the file" 'uses = ["things/green"]  // added on the branch' "$(cat "$P/sub/h3.holder")"
compile "$P" || fail "compiles after fix: $(cat "$WORK/compile.err")"
expect "fix again: nothing" '' "$(deps "$P" fix)"
# The log never reserves a name: a new things/apple is a thing like any other.
printf 'x = 3\n' >"$P/things/apple.thing"
printf 'uses = ["things/apple"]\n' >"$P/sub/h4.holder"
compile "$P" || fail "a new resource may take a renamed name: $(cat "$WORK/compile.err")"

if [ $FAILS -ne 0 ]; then
    echo "$FAILS failures"
    exit 1
fi
echo "all passed"
