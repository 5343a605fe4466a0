#!/usr/bin/env bash
# Old binaries keep working. For each earlier release (tests/abi/releases/<version>.txt older than
# api/ct_version.h; its commit is the one that added that file), builds that release's engine
# modules, sample plugins and kernel from git history, then:
#   - 0.1.0 modules on today's kernel: boots today's kernel with each of the release's modules in
#     turn among today's others, and with all of them at once, and runs the version-matrix probe
#     in every combination of the versions the modules serve (the kernel's own APIs at their
#     newest: the version matrix covers those). A version the release's header defines must still
#     be served by its module and give today's world state; one it does not define must be n/a;
#   - the release's sample plugins run on today's kernel;
#   - today's modules on the release's kernel: each either loads, or is refused with a message
#     naming the API it needs; none may crash or hang.
# Every combination that runs must end in today's world state: the served old versions behave as
# they did. Release builds are kept in BUILD_DIR/compat/, so only a new release
# costs build time. CUTTLE_COMPAT_COMMITS="sha ..." tries other commits (to check this test).
# usage: test_compat.sh SOURCE_DIR BUILD_DIR COMPAT_RUN CUTTLE PROBE MODULE.so... -- API=V,V...
set -euo pipefail
source=$1 build=$2 compat_run=$3 cuttle=$4 probe=$5
shift 5
today_modules=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do today_modules+=("$1"); shift; done
shift
matrix=("$@")
skip() { echo "compat: skipped: $*"; exit 77; }
# To stderr, so a failure inside $(...) is still seen.
fail() { echo "FAILED: $*" >&2; exit 1; }

# The modules a release may replace. The kernel's APIs (entity, world, component, lua) stay at
# their newest here (the version matrix covers them); expr and particles are newer than 0.1.0.
mixed=(entities transforms physics rendering animation networking)
kernel_apis=(entity world component lua)

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
    if (t["type"] == "shared module" and ("/modules/" in t["defined_in"] or "/sample_plugins/" in t["defined_in"])) or (t["type"] == "executable" and t["name"] == "cuttle"):
        for f in t["filename"]:
            print(os.path.relpath(f, sys.argv[1]))' "$dir/build")
        ninja -C "$dir/build" $targets >/dev/null
        touch "$dir/done"
    fi
}

# today_module NAME: the path of today's module NAME (ct_NAME.so).
today_module() {
    local m
    for m in "${today_modules[@]}"; do
        [ "$(basename "$m")" != "ct_$1.so" ] || { echo "$m"; return; }
    done
    fail "today's build has no ct_$1.so"
}

# The matrix's version lists with the kernel's APIs cut to their newest version.
versions=()
for arg in "${matrix[@]}"; do
    api=${arg%%=*}
    if [[ " ${kernel_apis[*]} " == *" $api "* ]]; then arg="$api=${arg##*,}"; fi
    versions+=("$arg")
done

# run_mix MODULE.so...: prints "combination state-or-n/a" lines.
run_mix() {
    "$compat_run" "$probe" "$@" -- "${versions[@]}" > "$build/compat/out.txt" 2>&1 ||
        { cat "$build/compat/out.txt" >&2; fail "modules $* did not run the scenario"; }
    sed -n 's/^compat: \([^ ]*\) state \(.*\)$/\1 \2/p; s/^compat: \([^ ]*\) n\/a (\(.*\) is not served)$/\1 n\/a \2/p' \
        "$build/compat/out.txt"
}

mkdir -p "$build/compat"
today=$(run_mix "${today_modules[@]}")
! grep -q ' n/a ' <<< "$today" || fail "today's modules do not serve every version: $(grep ' n/a ' <<< "$today" | head -n 1)"
[ -n "$today" ] || fail "no combination ran with today's modules"
for commit in "${commits[@]}"; do
    build_release "$commit"
    old_dir=$build/compat/$commit/build
    declare -A old=()
    for module in "${mixed[@]}"; do
        f=$(find "$old_dir/modules" -name "ct_$module.so" | head -n 1)
        [ -n "$f" ] || fail "release $commit built no ct_$module.so"
        old[$module]=$f
    done
    # mix MODULE...: today's modules with the release's MODULEs in their place.
    mix() {
        local picked=() m name
        for m in "${today_modules[@]}"; do
            name=$(basename "$m" .so)
            name=${name#ct_}
            if [[ " $* " == *" $name "* ]]; then picked+=("${old[$name]}"); else picked+=("$m"); fi
        done
        run_mix "${picked[@]}"
    }
    release_own=$(mix "${mixed[@]}")
    # Each n/a must be a version the release never had.
    while read -r combination na api_version; do
        api=${api_version% v*} n=${api_version##* v}
        ! grep -rqw "ct_${api}_api_v$n" "$build/compat/$commit/src/api" ||
            fail "release ${commit:0:12}: its module no longer serves $api v$n, which its headers define ($combination)"
    done < <(grep ' n/a ' <<< "$release_own")
    served=$(grep -v ' n/a ' <<< "$release_own" || true)
    [ -n "$served" ] || fail "release ${commit:0:12}: no combination ran with its modules"
    mixes=0 runs=0 same=0
    for module in "${mixed[@]}" ALL; do
        if [ "$module" = ALL ]; then result=$release_own; else result=$(mix "$module"); fi
        mixes=$((mixes + 1))
        while read -r combination state _; do
            [ "$state" != "n/a" ] || continue
            runs=$((runs + 1))
            if grep -qx "$combination $state" <<< "$today"; then
                same=$((same + 1))
            else
                fail "release ${commit:0:12}: with its ${module/ALL/modules all} in place, $combination ends in state $state, not today's"
            fi
        done <<< "$result"
        echo "compat: release ${commit:0:12}: its ${module/ALL/modules all} with today's kernel: $(grep -vc ' n/a ' <<< "$result") combinations ran, $(grep -c ' n/a ' <<< "$result" || true) n/a (versions newer than the release)"
    done
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
    # Today's modules on the release's kernel, all at once: each loads, or is refused with a line
    # naming it and the API it needs; the kernel then runs a script with the ones that loaded.
    old_cuttle=$(find "$old_dir/kernel" -name cuttle -type f | head -n 1)
    [ -n "$old_cuttle" ] || fail "release $commit built no cuttle"
    plugin_args=()
    for m in "${today_modules[@]}"; do plugin_args+=(--plugin "$m"); done
    # Today's modules built with sanitizers need their runtimes loaded first into the release's
    # plain kernel (ASan refuses to start otherwise).
    preload=$(ldd "${today_modules[0]}" | awk '/lib(asan|ubsan)\.so/ {print $3}' | paste -sd: -)
    set +e
    out=$(LD_PRELOAD="$preload" timeout 120 "$old_cuttle" "${plugin_args[@]}" -e 'print("compat-ok")' 2>&1)
    code=$?
    set -e
    [ $code = 0 ] && grep -q compat-ok <<< "$out" ||
        { echo "$out" | tail -n 5 >&2; fail "release ${commit:0:12} kernel with today's modules: exit $code, no script ran"; }
    loaded=0 refused=0
    for m in "${today_modules[@]}"; do
        why=$(grep -F "($(realpath "$m"))" <<< "$out" | head -n 1 || true)
        [ -n "$why" ] || why=$(grep -F "($m)" <<< "$out" | head -n 1 || true)
        if [ -z "$why" ]; then
            loaded=$((loaded + 1))
        elif grep -Eq "requires ct\.[a-z_]+ v[0-9]+" <<< "$why"; then
            refused=$((refused + 1))
            echo "compat: release ${commit:0:12} kernel refuses today's $(basename "$m"): $(grep -Eo "requires ct\.[a-z_]+ v[0-9]+.*" <<< "$why")"
        else
            fail "release ${commit:0:12} kernel: today's $(basename "$m") failed without naming an API: $why"
        fi
    done
    echo "compat: release ${commit:0:12}: $mixes module mixes, $runs combinations, $same with today's state;" \
         "sample plugins run; on its kernel, $loaded of today's modules load and $refused are refused with a reason"
done
