#!/usr/bin/env bash
# Physics contacts joined to gameplay islands (tests/gameplay/contacts_project, Islands.contacts):
# four stacks of three crates resting on a floor make 12 collisions in the first step, which are
# 4 islands of 3 with the floor shared and 1 island of 12 without; a second run in the same frame
# posts nothing; a crate teleported off its stack ends one contact; a destroyed world is
# forgotten; the profile names the largest island's job; and the handlers' results are the same
# on 2 threads, on one thread and serially.
# usage: test_islands_contacts.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run() { "$build/kernel/cuttle" --strict --project "$source/tests/gameplay/contacts_project" --modules "$build/modules" \
        "$@" 2>"$scratch/log" | grep '^contacts:' || { cat "$scratch/log"; exit 1; }; }
run --jobs 2 -e 'mode = 0' > "$scratch/parallel"
run --jobs 2 -e 'mode = 1' > "$scratch/one_thread"
run --jobs 2 -e 'mode = 2' > "$scratch/serial"
run --jobs 2 -e 'mode = 0; joined_floor = true' > "$scratch/joined"
cat "$scratch/parallel"
diff "$scratch/parallel" "$scratch/one_thread"
grep -q "^contacts: frame 1: 12 events, 4 islands, largest 3, then 0 events$" "$scratch/parallel"
grep -q "^contacts: frame 2: 1 events, 1 islands, largest 1, then 0 events$" "$scratch/parallel"
grep -q "^contacts: frame 3: 0 events" "$scratch/parallel"
grep -q "^contacts: touches 1 1 1 1 1 1 1 1 1 1 1 1; parted 0 0 1 0 0 0 0 0 0 0 0 0; landed 12$" "$scratch/parallel"
grep -q "^contacts: after the world: 0 events$" "$scratch/parallel"
grep -q "^contacts: frame 1: 12 events, 1 islands, largest 12, then 0 events$" "$scratch/joined"
# The largest island's job has a profiler scope of its own.
run --jobs 2 -e 'mode = 0' --profile "$scratch/profile.json" > /dev/null
grep -q '"islands.largest"' "$scratch/profile.json"
grep -q '"island"' "$scratch/profile.json"
# Serially there are no islands to count; what the handlers did is the same.
diff <(grep -v "frame" "$scratch/parallel") <(grep -v "frame" "$scratch/serial")
echo "contacts: collisions join the crates they touch into islands; the floor, shared, joins nothing"
