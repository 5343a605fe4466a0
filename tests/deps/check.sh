# Sourced by the deps suite's scripts: the count of failed checks and the two ways to fail one.
# A script ends by exiting 1 when FAILS is not 0.
FAILS=0

fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}

# expect WHAT EXPECTED ACTUAL (values of one line or many)
expect() {
    if [ "$2" != "$3" ]; then
        fail "$1"
        printf '  expected:\n%s\n  got:\n%s\n' "$2" "$3"
    fi
}
