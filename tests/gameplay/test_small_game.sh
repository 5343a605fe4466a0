#!/usr/bin/env bash
# projects/arena_game, the small game:
#   - its checked-in recorded round (replays/autopilot.txt) replays headless to the pinned score
#     and state, twice the same;
#   - README.md's "Make a small game" steps (between the small-game markers) run as written from
#     the source folder with a scratch $HOME, the play step in a window under Xvfb, and the replay
#     of the round just played gives the same final line.
# usage: test_small_game.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$source/projects/arena_game" "$scratch/game"
rm -rf "$scratch/game/compiled"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/game" --modules "$build/modules" >/dev/null 2>&1
replay() { "$build/kernel/cuttle" --strict --project "$scratch/game" --modules "$build/modules" --render-backend null \
           --replay-input "$scratch/game/replays/autopilot.txt" 2>"$scratch/log" | grep '^arena: 1200 frames' ||
           { cat "$scratch/log"; exit 1; }; }
pinned="arena: 1200 frames, score 29, player at (-3.37, 6.79), state a40678b4"
[ "$(replay)" = "$pinned" ] || { replay; echo "small game: the replay does not end in '$pinned'"; exit 1; }
[ "$(replay)" = "$pinned" ]
echo "small game: the recorded round replays headless to score 29, state a40678b4"

# The README's commands name build/: they run when that is the build under test.
if [ ! -d "$source/build" ] || [ "$(cd "$source/build" && pwd -P)" != "$(cd "$build" && pwd -P)" ]; then
    echo "small game: the README's steps use build/; this build is elsewhere, so they are skipped"
    exit 0
fi
command -v xvfb-run >/dev/null || { echo "small game: xvfb-run is missing (scripts/setup.sh installs xvfb)"; exit 1; }
sed -n '/<!-- small-game:.*runs/,/<!-- small-game: end/p' "$source/README.md" | grep '^    ' | sed 's/^    //' \
    > "$scratch/steps.sh"
[ "$(wc -l < "$scratch/steps.sh")" -eq 6 ] || { echo "README has no small-game steps"; exit 1; }
# A display number of our own (other suites start Xvfb at the same time; -a alone races them for
# :99), and a second try when the window could not open.
for attempt in 1 2; do
    rm -rf "$scratch/home"
    (cd "$source" && HOME=$scratch/home && mkdir -p "$HOME" && export HOME &&
     xvfb-run -a -n $((200 + RANDOM % 700)) -s "-screen 0 640x480x24" bash -euo pipefail "$scratch/steps.sh") \
        >"$scratch/out" 2>"$scratch/err" ||
        { cat "$scratch/err"; echo "small game: the README's steps failed"; exit 1; }
    grep -q "in a window" "$scratch/err" && break
    [ $attempt = 2 ] && { cat "$scratch/err"; echo "small game: no window opened"; exit 1; }
done
grep '^arena: 600 frames' "$scratch/out" > "$scratch/rounds"
[ "$(wc -l < "$scratch/rounds")" -eq 2 ] || { cat "$scratch/out"; exit 1; }
[ "$(sed -n 1p "$scratch/rounds")" = "$(sed -n 2p "$scratch/rounds")" ] ||
    { cat "$scratch/rounds"; echo "small game: the replayed round differs from the one played"; exit 1; }
grep -q "in a window" "$scratch/err"
grep -q "arena: .* 12 gems" "$scratch/out"
grep -q "^arena: 1200 frames, score" "$scratch/out"
echo "small game: the README's steps play a round in a window, replay it to the same state, change and replay the game"
