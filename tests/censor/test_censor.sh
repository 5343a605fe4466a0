#!/usr/bin/env bash
# cuttle-censor on real git repositories, as a studio would run it for a licensee: a scratch
# repository with NDA blocks, a merge, tags and a cutoff; a re-run after new commits; a filter
# that fails midway and a planted secret (DEST must stay as it was); two runs giving identical
# commits; this project's own history.
# usage: test_censor.sh CUTTLE_CENSOR SOURCE_ROOT
set -euo pipefail
censor=$1 source_root=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
# Tags and merges take the committer from here; commit() sets its own.
export GIT_COMMITTER_NAME=ana GIT_COMMITTER_EMAIL=ana@studio.example GIT_COMMITTER_DATE="2020-01-02T12:00:00+0100"
src=$scratch/src
git init -q -b main "$src"
# commit AUTHOR DATE MESSAGE: commits everything with a fixed author and date.
commit() {
    git -C "$src" add -A
    GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$1@studio.example" GIT_AUTHOR_DATE="$2" \
    GIT_COMMITTER_NAME="Build Bot" GIT_COMMITTER_EMAIL="bot@studio.example" GIT_COMMITTER_DATE="$2" \
        git -C "$src" commit -q -m "$3"
}
# has PATTERN: grep that reads all its input (grep -q closing a pipe early fails it under pipefail).
has() { grep "$@" > /dev/null; }
status() { set +e; "$@" > "$scratch/out" 2>&1; echo $?; set -e; }

# --- History: an old secret past the cutoff, NDA blocks, a branch merged back, tags.
echo "old secret: PROJECT_ROSEBUD" > "$src/notes.txt"
commit ana "2020-01-01T10:00:00+0100" "start"
echo "public notes" > "$src/notes.txt"
cat > "$src/render.c" <<'EOF'
int draw(void)
{
#ifdef NDA_CONSOLE
    return console_gpu_submit();
#else
    return gl_submit();
#endif
}
EOF
commit ana "2020-01-02T10:00:00+0100" "render: a draw call"
git -C "$src" tag -a v1 -m "first release"
cutoff=$(git -C "$src" rev-parse HEAD)
git -C "$src" checkout -q -b feature
printf 'void audio(void) {}\n' > "$src/audio.c"
commit bo "2020-01-03T11:00:00-0500" "audio: a stub"
git -C "$src" checkout -q main
printf 'int main(void) { return draw(); }\n' > "$src/main.c"
commit ana "2020-01-04T09:00:00+0100" "main"
GIT_AUTHOR_NAME=ana GIT_AUTHOR_EMAIL=ana@studio.example GIT_AUTHOR_DATE="2020-01-05T09:00:00+0100" \
GIT_COMMITTER_NAME=ana GIT_COMMITTER_EMAIL=ana@studio.example GIT_COMMITTER_DATE="2020-01-05T09:00:00+0100" \
    git -C "$src" merge -q --no-ff feature -m "merge audio"
git -C "$src" tag v2
git -C "$src" checkout -q -b secret-work
echo "unreleased" > "$src/wip.c"
commit ana "2020-01-06T09:00:00+0100" "work not merged"
git -C "$src" checkout -q main

# Every run uses the same filters (DEST remembers them): the preprocessor filter, then a program
# that fails on any content holding BREAK.
cat > "$scratch/guard.sh" <<'EOF'
tmp=$(mktemp)
cat > "$tmp"
if grep -q BREAK "$tmp"; then rm -f "$tmp"; exit 3; fi
cat "$tmp"
rm -f "$tmp"
EOF
filters=(--filter 'ifdef -UNDA_CONSOLE' --filter "sh $scratch/guard.sh")

# --- The copy: NDA code gone with line numbers kept, history and metadata preserved.
dst=$scratch/dst
[ "$(status "$censor" "$src" "$dst" "${filters[@]}" --cutoff "$cutoff" --forbid console_gpu)" = 0 ] ||
    { cat "$scratch/out"; fail "the first copy failed"; }
grep -q "copied 4 commits and 2 tags" "$scratch/out" || { cat "$scratch/out"; fail "expected 4 commits and 2 tags"; }
[ "$(git -C "$dst" rev-list --count main)" = 4 ] || fail "DEST main must hold the 4 commits from the cutoff on"
[ "$(git -C "$dst" rev-list --max-parents=0 main | wc -l)" = 1 ] || fail "one root"
root=$(git -C "$dst" rev-list --max-parents=0 main)
git -C "$dst" log -1 --format=%B "$root" | has "\[clonedfrom:$cutoff\]" || fail "the root must be the cutoff's copy"
git -C "$dst" show main:render.c > "$scratch/render.c"
[ "$(wc -l < "$scratch/render.c")" = 8 ] || fail "line count changed"
[ "$(sed -n 6p "$scratch/render.c")" = "    return gl_submit();" ] || fail "line 6 must stay line 6"
! grep -q console_gpu "$scratch/render.c" || fail "NDA code published"
git -C "$dst" show main:notes.txt | has "public notes" || fail "notes.txt"
merge=$(git -C "$dst" rev-list --merges main)
[ "$(git -C "$dst" rev-list --parents -1 "$merge" | wc -w)" = 3 ] || fail "the merge must keep both parents"
git -C "$dst" log --format='%an %ae %ad %cn' --date=iso-strict main | has \
    "bo bo@studio.example 2020-01-03T11:00:00-05:00 Build Bot" || fail "author, date or committer lost"
git -C "$dst" log --format=%B main | has "^audio: a stub$" || fail "message lost"
[ "$(git -C "$dst" log --format=%B main | grep -c '^\[clonedfrom:[0-9a-f]\{40\}\]$')" = 4 ] || fail "markers"
! git -C "$dst" rev-parse -q --verify secret-work >/dev/null || fail "an unmerged branch was published"
! git -C "$dst" log --all --format=%B | has "work not merged" || fail "an unmerged commit was published"
[ "$(git -C "$dst" cat-file -t v1)" = tag ] || fail "v1 must stay an annotated tag"
git -C "$dst" cat-file tag v1 | has "first release" || fail "v1's message"
[ "$(git -C "$dst" rev-parse v2)" = "$(git -C "$dst" rev-parse main)" ] || fail "v2 must point at the merge"
git -C "$dst" fsck --strict --no-progress || fail "DEST fails git fsck"
echo "ok: NDA blocks, merges, tags and the cutoff"

# --- Deterministic: another DEST from the same source and filter has the same commits.
[ "$(status "$censor" "$src" "$scratch/dst2" "${filters[@]}" --cutoff "$cutoff" --quiet)" = 0 ] ||
    { cat "$scratch/out"; fail "the second copy failed"; }
[ "$(git -C "$dst" rev-parse main v1 v2)" = "$(git -C "$scratch/dst2" rev-parse main v1 v2)" ] ||
    fail "two runs gave different commits"
[ ! -s "$scratch/out" ] || fail "--quiet printed something"
echo "ok: deterministic"

# --- A re-run copies only what is new, from the map kept in DEST.
printf 'int volume = 11;\n' > "$src/audio.c"
commit bo "2020-01-07T09:00:00+0100" "audio: louder"
[ "$(status "$censor" "$src" "$dst" "${filters[@]}" --cutoff "$cutoff")" = 0 ] || fail "re-run"
grep -q "copied 1 commits" "$scratch/out" || { cat "$scratch/out"; fail "a re-run must copy only the new commit"; }
grep -q "1 contents filtered" "$scratch/out" || { cat "$scratch/out"; fail "a re-run must filter only new contents"; }
[ "$(git -C "$dst" rev-list --count main)" = 5 ] || fail "the new commit is missing"
[ "$(status "$censor" "$src" "$dst" --filter 'ifdef -DNDA_CONSOLE' --cutoff "$cutoff")" = 1 ] ||
    fail "a re-run with another filter must be refused"
grep -q "censored with other filters" "$scratch/out" || { cat "$scratch/out"; fail "say why"; }
[ "$(status "$censor" "$src" "$dst" "${filters[@]}")" = 1 ] || fail "a dropped cutoff must be refused"
echo "ok: re-runs"

# snapshot DIR: every ref and object of a repository, to prove a failed run changed nothing.
snapshot() { (git -C "$1" for-each-ref; find "$1" -type f | sort | xargs md5sum) 2>/dev/null; }

# --- A filter that fails midway leaves DEST untouched, naming the file and commit.
before=$(snapshot "$dst")
printf 'int fx(void) { return 1; }\n' > "$src/fx.c"
commit ana "2020-01-08T09:00:00+0100" "fx"
printf 'BREAK\n' > "$src/broken.txt"
commit ana "2020-01-09T09:00:00+0100" "broken"
[ "$(status "$censor" "$src" "$dst" "${filters[@]}" --cutoff "$cutoff")" = 1 ] || fail "a failing filter must fail the run"
grep -q "broken.txt (commit $(git -C "$src" rev-parse HEAD)).*exit status 3" "$scratch/out" ||
    { cat "$scratch/out"; fail "the error must name the file, the commit and the status"; }
[ "$before" = "$(snapshot "$dst")" ] || fail "a failed run changed DEST"
echo "ok: a failing filter changes nothing"

# --- The leak check: a secret the filter missed is never published.
git -C "$src" reset -q --hard HEAD~1 # the broken commit never happened
printf '// TODO remove console_gpu_submit reference\n' > "$src/leak.c"
commit ana "2020-01-10T09:00:00+0100" "a comment that leaks"
[ "$(status "$censor" "$src" "$dst" "${filters[@]}" --cutoff "$cutoff" --forbid console_gpu)" = 1 ] ||
    fail "the leak check must refuse"
grep -q "leak check: file leak.c of commit .* still contains 'console_gpu'; nothing was published" "$scratch/out" ||
    { cat "$scratch/out"; fail "the leak must be named"; }
[ "$before" = "$(snapshot "$dst")" ] || fail "a refused run changed DEST"
printf 'PROJECT_ROSEBUD\n' > "$scratch/words"
git -C "$src" rm -q leak.c
commit ana "2020-01-11T09:00:00+0100" "clean PROJECT_ROSEBUD"
[ "$(status "$censor" "$src" "$dst" "${filters[@]}" --cutoff "$cutoff" --forbid-file "$scratch/words")" = 1 ] ||
    fail "a forbidden word in a message must be refused"
grep -q "the message of commit" "$scratch/out" || { cat "$scratch/out"; fail "the message leak must be named"; }
git -C "$src" commit -q --amend -m "clean up"
[ "$(status "$censor" "$src" "$dst" "${filters[@]}" --cutoff "$cutoff" --forbid-file "$scratch/words")" = 0 ] ||
    { cat "$scratch/out"; fail "the old secret before the cutoff must not count"; }
echo "ok: the leak check"

# --- Usage.
[ "$(status "$censor" --help)" = 0 ] && grep -q "^usage: cuttle-censor" "$scratch/out" || fail "--help"
[ "$(status "$censor" "$src")" = 2 ] || fail "missing DEST must be a usage error"
[ "$(status "$censor" "$src" "$scratch/x")" = 2 ] || fail "missing --filter must be a usage error"
[ "$(status "$censor" "$src" "$scratch/x" --filter 'ifdef NDA')" = 2 ] || fail "a bad symbol must be a usage error"
[ "$(status "$censor" "$scratch/nowhere" "$scratch/x" --filter 'ifdef -UX')" = 1 ] || fail "a missing source"
grep -q "nowhere: not a git repository" "$scratch/out" || fail "name the source"
mkdir "$scratch/full" && touch "$scratch/full/keep"
[ "$(status "$censor" "$src" "$scratch/full" --filter 'ifdef -UX')" = 1 ] || fail "a non-empty non-repository DEST"
echo "ok: usage"

# --- This project's own history, when the tests run from a git checkout.
if git -C "$source_root" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
   [ "$(git -C "$source_root" rev-parse --is-shallow-repository)" = false ]; then
    own=$scratch/own
    [ "$(status "$censor" "$source_root" "$own" --target HEAD --branch main \
          --filter 'ifdef -DPHYSICS_LANES_PORTABLE -ULANES_PORTABLE')" = 0 ] || { cat "$scratch/out"; fail "own history"; }
    [ "$(git -C "$own" rev-list --count main)" = "$(git -C "$source_root" rev-list --count HEAD)" ] ||
        fail "own history: commit count differs"
    # Every file keeps its line count, and at least one file really changed.
    mkdir "$scratch/a" "$scratch/b"
    git -C "$own" archive main | tar -x -C "$scratch/a"
    git -C "$source_root" archive HEAD | tar -x -C "$scratch/b"
    (cd "$scratch/a" && find . -type f | sort | xargs wc -l) > "$scratch/a.lines"
    (cd "$scratch/b" && find . -type f | sort | xargs wc -l) > "$scratch/b.lines"
    cmp -s "$scratch/a.lines" "$scratch/b.lines" || fail "own history: a file's line count changed"
    ! diff -rq "$scratch/a" "$scratch/b" >/dev/null || fail "own history: the filter changed nothing"
    git -C "$own" fsck --no-progress || fail "own history fails git fsck"
    echo "ok: this project's own history ($(git -C "$own" rev-list --count main) commits)"
else
    echo "note: not a full git checkout; the own-history case did not run"
fi
