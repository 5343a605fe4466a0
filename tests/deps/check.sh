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

# refs_project DIR: a small project of refs_plugin.c's types: things apple and pear (built from
# pear.txt), holders a (uses apple) and b (uses pear).
refs_project() {
    mkdir -p "$1/things" "$1/h"
    printf 'modules = []\n' >"$1/project.sjson"
    printf 'x = 1\n' >"$1/things/apple.thing"
    printf 'file = "things/pear.txt"\n' >"$1/things/pear.thing"
    printf 'pear\n' >"$1/things/pear.txt"
    printf 'uses = ["things/apple"]\n' >"$1/h/a.holder"
    printf 'uses = ["things/pear"]\n' >"$1/h/b.holder"
}
