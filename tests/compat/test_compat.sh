#!/usr/bin/env bash
# Old binaries keep working. For each earlier release (tests/abi/releases/<version>.txt older than
# api/ct_version.h; its commit is the one that added that file), builds the engine modules and the
# sample plugins from git history, then with today's kernel:
#   - boots every mix of today's and that release's entities, transforms and physics (2^3) with
#     each version-matrix probe and compares the scenario's world state with today's modules';
#   - runs that release's sample plugins.
# If the release's own modules give today's results, every mix must too; if they do not (the
# behaviour changed on purpose since), the differences are listed and every mix must still boot,
# run and shut down clean. Release builds are kept in BUILD_DIR/compat/, so only a new release
# costs build time. CUTTLE_COMPAT_COMMITS="sha ..." tries other commits (to check this test).
# usage: test_compat.sh SOURCE_DIR BUILD_DIR COMPAT_RUN CUTTLE ENTITIES TRANSFORMS PHYSICS
#                       ANIMATION RENDERING NETWORKING PROBE...
set -euo pipefail
source=$1 build=$2 compat_run=$3 cuttle=$4
current=("$5" "$6" "$7")
# Today's animation, rendering and networking, in every mix (the probes require them).
others=("$8" "$9" "${10}")
shift 10
probes=("$@")
skip() { echo "compat: skipped: $*"; exit 77; }
# To stderr, so a failure inside $(...) is still seen.
fail() { echo "FAILED: $*" >&2; exit 1; }

version=$(sed -n 's/^#define CT_SDK_VERSION_STRING "\(.*\)"$/\1/p' "$source/api/ct_version.h")
git -C "$source" rev-parse --git-dir >/dev/null 2>&1 || skip "the source is not a git clone, so there is no release history"
commits=()
if [ -n "${CUTTLE_COMPAT_COMMITS:-}" ]; then
    read -r -a commits <<< "$CUTTLE_COMPAT_COMMITS"
else
    for release in "$source"/tests/abi/releases/*.txt; do
        [ -e "$release" ] || continue
        v=$(basename "$release" .txt)
        [ "$v" != "$version" ] || continue
        c=$(git -C "$source" log --diff-filter=A --format=%H -1 -- "tests/abi/releases/$v.txt")
        [ -n "$c" ] || skip "release $v has no commit in this clone's history (a shallow clone?)"
        commits+=("$c")
    done
fi
[ ${#commits[@]} -gt 0 ] || skip "no release earlier than $version is published (tests/abi/releases/)"

# build_release COMMIT: builds its modules and sample plugins into $build/compat/COMMIT.
build_release() {
    local commit=$1 dir=$build/compat/$1
    git -C "$source" cat-file -e "$commit^{commit}" 2>/dev/null ||
        skip "commit $commit is not in this clone (a shallow clone?)"
    if [ ! -f "$dir/done" ]; then
        rm -rf "$dir"
        mkdir -p "$dir/src"
        git -C "$source" archive "$commit" | tar -x -C "$dir/src"
        meson setup "$dir/build" "$dir/src" -Dtests=false >/dev/null
        local targets
        targets=$(meson introspect "$dir/build" --targets | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["type"] == "shared module" and ("/modules/" in t["defined_in"] or "/sample_plugins/" in t["defined_in"]):
        for f in t["filename"]:
            print(os.path.relpath(f, sys.argv[1]))' "$dir/build")
        ninja -C "$dir/build" $targets >/dev/null
        touch "$dir/done"
    fi
}

# run_mix ENTITIES TRANSFORMS PHYSICS: prints "probe hash" lines ("probe n/a" when not served).
run_mix() {
    "$compat_run" "$@" "${others[@]}" "${probes[@]}" > "$build/compat/out.txt" 2>&1 ||
        { cat "$build/compat/out.txt" >&2; fail "modules $* did not run the scenario"; }
    sed -n 's/^compat: \([^ ]*\) state \(.*\)$/\1 \2/p; s/^compat: \([^ ]*\) n\/a .*$/\1 n\/a/p' \
        "$build/compat/out.txt"
}

mkdir -p "$build/compat"
today=$(run_mix "${current[@]}")
[ "$(grep -cv ' n/a$' <<< "$today")" -ge 1 ] || fail "no probe ran with today's modules"
for commit in "${commits[@]}"; do
    build_release "$commit"
    old_dir=$build/compat/$commit/build
    old=()
    for name in ct_entities ct_transforms ct_physics; do
        f=$(find "$old_dir/modules" -name "$name.so" | head -n 1)
        [ -n "$f" ] || fail "release $commit built no $name.so"
        old+=("$f")
    done
    release_own=$(run_mix "${old[@]}")
    strict=1
    [ "$release_own" = "$today" ] || strict=0
    mixes=0 same=0
    for e in 0 1; do for t in 0 1; do for p in 0 1; do
        pick=("${current[0]}" "${current[1]}" "${current[2]}")
        [ $e = 0 ] || pick[0]=${old[0]}
        [ $t = 0 ] || pick[1]=${old[1]}
        [ $p = 0 ] || pick[2]=${old[2]}
        result=$(run_mix "${pick[@]}")
        mixes=$((mixes + 1))
        if [ "$result" = "$today" ]; then
            same=$((same + 1))
        elif [ $strict = 1 ]; then
            diff <(echo "$today") <(echo "$result") || true
            fail "release ${commit:0:12}: entities/transforms/physics from release=$e$t$p differ from today's"
        fi
    done; done; done
    for plugin in seed_adder hello_v1; do
        f=$(find "$old_dir/sample_plugins" -name "$plugin.so" | head -n 1)
        [ -n "$f" ] || fail "release $commit built no sample plugin $plugin.so"
        case $plugin in
        seed_adder) check='assert(Plugin.test(2, 3) == 5)' ;;
        hello_v1) check='assert(Hello.greet("old") == "Hello, old!")' ;;
        esac
        "$cuttle" --strict --plugin "$f" -e "$check" >/dev/null 2>&1 ||
            fail "release ${commit:0:12}: its sample plugin $plugin does not run with today's kernel"
    done
    echo "compat: release ${commit:0:12}: $mixes module mixes ran, $same with today's results" \
         "($([ $strict = 1 ] && echo "required: the release gives today's results" || echo "behaviour changed since the release, so not required")); sample plugins run"
done
