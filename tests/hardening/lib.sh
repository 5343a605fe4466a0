# Shared by the hardening tests: run the engine, check its exit code and what it said.
# Every run has a time limit, so a hang fails the test instead of stalling it.
CUTTLE_TIMEOUT=${CUTTLE_TIMEOUT:-60}
failures=0 cases=0
scratch=$(mktemp -d) # for the test's projects; removed on exit
trap 'rm -rf "$scratch"' EXIT

# matches OUTPUT PATTERNS: every ';;'-separated extended regular expression of PATTERNS matches
# some line of OUTPUT.
matches() {
    local out=$1 rest=$2 one
    while [ -n "$rest" ]; do
        one=${rest%%;;*}
        [ "$one" = "$rest" ] && rest="" || rest=${rest#*;;}
        grep -Eq -- "$one" <<<"$out" || return 1
    done
}

# expect CODE PATTERNS ARGS...: runs `cuttle ARGS`, wants exit code CODE and output matching
# PATTERNS (see matches; empty matches anything).
expect() {
    local want=$1 pattern=$2 out rc
    shift 2
    cases=$((cases + 1))
    out=$(timeout "$CUTTLE_TIMEOUT" "$CUTTLE" "$@" 2>&1) && rc=0 || rc=$?
    if [ "$rc" != "$want" ] || ! matches "$out" "$pattern"; then
        failures=$((failures + 1))
        echo "FAIL: cuttle $* -> exit $rc (wanted $want${pattern:+, output matching /$pattern/})"
        sed 's/^/    | /' <<<"$out" | head -20
    fi
}

# finish: prints the count and exits non-zero if a case failed or none ran.
finish() {
    echo "$cases cases, $failures failed"
    [ "$cases" -gt 0 ] && [ "$failures" -eq 0 ]
}
