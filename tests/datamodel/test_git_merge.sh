#!/usr/bin/env bash
# cuttle-merge with real git: a scratch repository holding the demo, the driver installed with
# the README's .gitattributes and `git config` lines, and two branches editing the arena level in
# the five ways the issue lists. Clean merges must compile and spawn with both sides' changes; a
# conflict must be reported, leave ours's value plus a record the compiler refuses, and exit 1.
# usage: test_git_merge.sh CUTTLE_MERGE CUTTLE_COMPILE CUTTLE MODULES_DIR SOURCE_ROOT
set -euo pipefail
merge=$(realpath "$1") compile=$(realpath "$2") cuttle=$(realpath "$3") modules=$(realpath "$4") source=$(realpath "$5")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

repo=$scratch/repo
mkdir -p "$repo"
cp -r "$source/projects/demo" "$repo/demo"
rm -rf "$repo/demo/compiled"
cd "$repo"
git init -q
git config user.name "Test"
git config user.email "test@example.com"
git config commit.gpgsign false
# The README's lines, word for word (the driver's path spelled out).
cat > .gitattributes <<'EOF'
*.level merge=cuttle
*.unit merge=cuttle
*.changes merge=cuttle
EOF
git config merge.cuttle.name "Cuttle levels, units and change sets"
git config merge.cuttle.driver "$merge %O %A %B %P"
echo compiled/ > demo/.gitignore
git add -A
git commit -qm base
git branch -M base
level=demo/levels/arena.level

# branch NAME SED-SCRIPT: a branch off base with the level edited.
branch() {
    git checkout -q -b "$1" base
    sed -i "$2" "$level"
    git commit -qam "$1"
}
# try_merge OURS THEIRS: merges THEIRS into OURS; prints git's exit status.
try_merge() {
    git checkout -q "$1"
    set +e
    git merge -q --no-edit "$2" > "$scratch/merge.out" 2>&1
    local rc=$?
    set -e
    echo $rc
}
# spawns N: the merged project compiles strictly and the demo spawns N arena entities.
spawns() {
    "$compile" --strict --project "$repo/demo" --modules "$modules" > "$scratch/compile.out" 2>&1 ||
        { cat "$scratch/compile.out"; fail "the merged project does not compile"; }
    "$cuttle" --strict --project "$repo/demo" --modules "$modules" --frames 1 > "$scratch/run.out" 2>&1 ||
        { cat "$scratch/run.out"; fail "the merged project does not run"; }
    grep -q "spawned its $1 entities" "$scratch/run.out" ||
        { grep spawned "$scratch/run.out"; fail "expected $1 spawned entities"; }
}
has() { grep -qF -- "$1" "$level" || { cat "$level"; fail "the merged level lacks: $1"; }; }

# 1. Different entities: the floor's friction and the markers' mass.
branch ours1 's/friction = 0.6/friction = 0.7/'
branch theirs1 's/mass = 1 velocity/mass = 2 velocity/'
[ "$(try_merge ours1 theirs1)" = 0 ] || { cat "$scratch/merge.out"; fail "1: different entities must merge"; }
has "[50 0.5 50] friction = 0.7"
has "mass = 2 velocity"
spawns 10014
echo "ok: different entities merge"

# 2. Different fields of one entity, on adjacent lines (git's line merge would conflict).
branch ours2 's/transform = { position = \[0 -0.5 0\] }/transform = { position = [0 -1 0] }/'
branch theirs2 's/debug_name = { name = "floor" }/debug_name = { name = "ground" }/'
[ "$(try_merge ours2 theirs2)" = 0 ] || { cat "$scratch/merge.out"; fail "2: different fields must merge"; }
has "position = [0 -1 0]"
has 'debug_name = { name = "ground" }'
[ "$(git diff base -- "$level" | grep -c '^[-+] ')" = 4 ] || { git diff base; fail "2: only the two edited lines may change"; }
spawns 10014
echo "ok: different fields of one entity merge, adjacent lines and all"

# 3. The same field: a conflict with both values named, ours kept, a record the compiler refuses.
branch ours3 's/friction = 0.6/friction = 0.7/'
branch theirs3 's/friction = 0.6/friction = 0.8/'
[ "$(try_merge ours3 theirs3)" = 1 ] || { cat "$scratch/merge.out"; fail "3: the same field must conflict"; }
grep -q "conflict entity 'floor' (id [0-9a-f]\{32\}) property 'components.body.friction': ours 0.7, theirs 0.8; kept ours" \
    "$scratch/merge.out" || { cat "$scratch/merge.out"; fail "3: the conflict is not reported as specified"; }
has "[50 0.5 50] friction = 0.7"
has 'property = "components.body.friction" ours = 0.7 theirs = 0.8 kept = "ours"'
set +e
"$compile" --project "$repo/demo" --modules "$modules" > "$scratch/compile.out" 2>&1
rc=$?
set -e
[ $rc = 1 ] && grep -q "unresolved merge conflicts (1)" "$scratch/compile.out" ||
    { cat "$scratch/compile.out"; fail "3: the compiler must refuse the conflict record"; }
git merge --abort
# CI asks before merging; --policy resolves and says what it chose.
"$merge" --check <(git show base:"$level") <(git show ours3:"$level") <(git show theirs3:"$level") "$level" \
    > "$scratch/check.out" && fail "3: --check must exit 1 on a conflict"
grep -q "conflicts (0 changes from theirs, 1 conflict)" "$scratch/check.out" || { cat "$scratch/check.out"; fail "3: --check output"; }
git config merge.cuttle.driver "$merge --policy theirs %O %A %B %P"
[ "$(try_merge ours3 theirs3)" = 0 ] || { cat "$scratch/merge.out"; fail "3: --policy theirs must resolve"; }
has "[50 0.5 50] friction = 0.8"
grep -q "resolved entity 'floor'.*chose theirs" "$scratch/merge.out" || { cat "$scratch/merge.out"; fail "3: the choice is not listed"; }
# newest: the side committed later wins (ours here, then theirs).
git reset -q --hard HEAD^1
GIT_COMMITTER_DATE="2030-01-01T00:00:00" git commit -q --allow-empty -m "ours is newer"
git config merge.cuttle.driver "$merge --policy newest %O %A %B %P"
[ "$(try_merge ours3 theirs3)" = 0 ] || { cat "$scratch/merge.out"; fail "3: --policy newest must resolve"; }
has "[50 0.5 50] friction = 0.7"
git checkout -q theirs3
GIT_COMMITTER_DATE="2031-01-01T00:00:00" git commit -q --allow-empty -m "theirs is newer still"
git checkout -q -b ours3b "ours3^"
[ "$(try_merge ours3b theirs3)" = 0 ] || { cat "$scratch/merge.out"; fail "3: --policy newest must resolve"; }
has "[50 0.5 50] friction = 0.8"
git config merge.cuttle.driver "$merge %O %A %B %P"
spawns 10014
echo "ok: the same field conflicts (ours kept, recorded, compiler refuses); --check; --policy theirs and newest resolve"

# 4. Deleted on one side, edited on the other.
branch ours4 '/^  {$/{N;/name = "marker"/{:a;N;/\n  }$/!ba;d}}'
branch theirs4 's/mass = 1 velocity/mass = 3 velocity/'
git show ours4:"$level" | grep -q 'name = "marker"' && fail "4: the sed did not delete the marker"
[ "$(try_merge ours4 theirs4)" = 1 ] || { cat "$scratch/merge.out"; fail "4: delete vs edit must conflict"; }
grep -q "conflict entity 'marker' (id [0-9a-f]\{32\}): deleted by ours, edited by theirs; kept ours" "$scratch/merge.out" ||
    { cat "$scratch/merge.out"; fail "4: the conflict is not reported as specified"; }
has 'entity = "marker"'
git merge --abort
git checkout -q theirs4
set +e
git merge -q --no-edit ours4 > "$scratch/merge.out" 2>&1
rc=$?
set -e
[ $rc = 1 ] && grep -q "edited by ours, deleted by theirs" "$scratch/merge.out" ||
    { cat "$scratch/merge.out"; fail "4: edit vs delete must conflict the other way round too"; }
git merge --abort
echo "ok: deleted on one side and edited on the other conflicts, both ways"

# 5. Both sides add an entity: both stay, each written once.
add() { printf '/^]$/i\\\n  {\\n    name = "%s"\\n    components = { transform = { position = [%s 0 0] } }\\n  }\n' "$1" "$2"; }
branch ours5 "$(add lamp 1)"
branch theirs5 "$(add barrel 2)"
[ "$(try_merge ours5 theirs5)" = 0 ] || { cat "$scratch/merge.out"; fail "5: both adding must merge"; }
has 'name = "lamp"'
has 'name = "barrel"'
[ "$(grep -c 'name = "lamp"' "$level")" = 1 ] || fail "5: lamp written twice"
spawns 10016
echo "ok: entities added on both sides both stay"

# 6. Theirs moves an entity (the marker before the floor and the stairs), ours edits a field: theirs's order and
#    ours's edit, the moved entity's text whole.
branch ours6 's/friction = 0.6/friction = 0.7/'
# The entities before the marker (the floor and the stairs) go after it; entity blocks are
# "  {" .. "  }", the marker's ten lines long. Line numbers come from base, so the level may grow.
first=$(( $(git show base:"$level" | grep -n '^    name = ' | head -1 | cut -d: -f1) - 1 ))
marker=$(git show base:"$level" | grep -n '^    name = "marker"' | cut -d: -f1)
branch theirs6 "${first},$((marker - 2)){H;d};$((marker + 8)){G;s/\n\n/\n/}"
git show theirs6:"$level" | grep -n 'name = "marker"' | grep -q "^$((first + 1)):" || fail "6: the sed did not move the marker"
[ "$(try_merge ours6 theirs6)" = 0 ] || { cat "$scratch/merge.out"; fail "6: a move and an edit must merge"; }
has "[50 0.5 50] friction = 0.7"
[ "$(grep -n '^    name = ' "$level" | head -1)" = "$((first + 1)):    name = \"marker\"" ] || { cat "$level"; fail "6: theirs's order is lost"; }
[ "$(git diff theirs6 -- "$level" | grep -c '^[-+] ')" = 2 ] || { git diff theirs6; fail "6: only the edited line may differ from theirs"; }
spawns 10014
echo "ok: theirs's move and ours's edit merge, in theirs's order"

# 7. Both add entities without ids under one name: different ones both stay (theirs's gets an id),
#    the same one made on both sides stays once.
git checkout -q -b ours7 base
sed -i "$(add crate 1)" "$level"
sed -i "$(add lamp 5)" "$level"
git commit -qam ours7
git checkout -q -b theirs7 base
sed -i "$(add crate 2)" "$level"
sed -i "$(add lamp 5)" "$level"
git commit -qam theirs7
[ "$(try_merge ours7 theirs7)" = 0 ] || { cat "$scratch/merge.out"; fail "7: same-name additions must merge"; }
[ "$(grep -c 'name = "crate"' "$level")" = 2 ] || { cat "$level"; fail "7: both crates must stay"; }
has "position = [1 0 0]"
has "position = [2 0 0]"
[ "$(grep -c 'name = "lamp"' "$level")" = 1 ] || { cat "$level"; fail "7: the same lamp added twice stays once"; }
[ "$(grep -c 'id = "' "$level")" = 1 ] || { cat "$level"; fail "7: theirs's crate (only) gets an id"; }
spawns 10017
echo "ok: same-name additions: different ones both stay, the same one once"
