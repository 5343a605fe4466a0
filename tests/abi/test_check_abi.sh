#!/usr/bin/env bash
# The ABI check cannot be talked round: fed releases doctored the ways a change would slip in,
# check_abi.py must refuse each one, whatever the current manifest says; and it must accept what
# is no ABI change (a renamed field, a new struct).
# usage: test_check_abi.sh ABI_DUMP CHECK_ABI.PY MESON_VERSION
set -euo pipefail
dump=$1 check=$2 version=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$dump" > "$scratch/current.txt"
mkdir "$scratch/releases"

# expect PASS|FAIL WHAT: runs the check with the current manifest (so only releases can fail it).
expect() {
    local want=$1 what=$2 got=PASS
    python3 "$check" "$dump" "$scratch/current.txt" "$scratch/releases" "$version" \
        > "$scratch/out.txt" || got=FAIL
    if [ "$got" != "$want" ]; then
        echo "FAILED: $what: expected $want, got $got"; cat "$scratch/out.txt"; exit 1
    fi
    echo "ok: $what ($got)"
    rm -f "$scratch/releases/"*.txt
}
# release FILTER: writes a release that is the current headers passed through sed FILTER.
release() { sed -E "$1" "$scratch/current.txt" > "$scratch/releases/9.9.9.txt"; }

# Facts the doctored releases rely on, so the test cannot pass vacuously.
grep -q '^ct_types.h ct_allocator_t.realloc offset 8 size 8 type void\* (\*)(ct_allocator_t\*, void\*, unsigned long, unsigned long, char const\*, unsigned int)$' \
    "$scratch/current.txt" || { echo "FAILED: the dump lacks realloc's full signature"; exit 1; }
grep -q '^ct_types.h enum ct_error size 4$' "$scratch/current.txt" ||
    { echo "FAILED: the dump lacks the size of enum ct_error"; exit 1; }
grep -q '^ct_plugin.h enum (anonymous).CT_API_OPTIONAL = 1$' "$scratch/current.txt" ||
    { echo "FAILED: the dump lacks enumerator values"; exit 1; }
grep -q '^ct_types.h enum ct_error.CT_ERR_NOMEM = -1$' "$scratch/current.txt" ||
    { echo "FAILED: the dump lacks the values of an X-macro enum (ct_error)"; exit 1; }

release 's/x/x/'
expect PASS "a release identical to the headers"
release 's/(ct_allocator_t.realloc offset 8 size 8 type void\* \(\*\)\(ct_allocator_t\*, void\*, unsigned long, )unsigned long/\1unsigned int/'
expect FAIL "a parameter's type changed in a function pointer"
release 's/^(ct_types.h ct_allocator_t) size [0-9]+/\1 size 24/'
expect FAIL "a struct's size changed"
release 's/^(ct_types.h ct_allocator_t.inst offset 0 size 8 type )ct_allocator_o\*/\1void*/'
expect FAIL "a field's type changed (same size)"
release '$a ct_gone.h ct_gone_api_v1 size 8 align 8\nct_gone.h ct_gone_api_v1.f offset 0 size 8 type void (*)()'
expect FAIL "a published struct removed"
release 's/^(ct_types.h enum ct_error) size 4/\1 size 1/'
expect FAIL "an enum's size changed"
release 's/^(ct_plugin.h enum \(anonymous\).CT_API_OPTIONAL) = 1/\1 = 2/'
expect FAIL "an enumerator's value changed"
release '/^ct_types.h ct_allocator_t.realloc /d'
expect FAIL "a field added to a published struct"
release 's/^(ct_types.h ct_allocator_t\.)inst /\1instance /'
expect PASS "a field renamed (no ABI change)"
release '/^ct_types.h ct_allocator_t/d'
expect PASS "a struct that is new since the release"

if python3 "$check" "$dump" "$scratch/current.txt" "$scratch/releases" 9.9.9 > "$scratch/out.txt"; then
    echo "FAILED: api/ct_version.h and a different meson version passed"; exit 1
fi
echo "ok: api/ct_version.h must agree with meson.build's version"

# A struct with a bool field is refused even when the manifest and every release agree.
cat > "$scratch/fake_dump.sh" <<FAKE
#!/bin/sh
cat "$scratch/current.txt"
echo "ct_x.h ct_x_t size 1 align 1"
echo "ct_x.h ct_x_t.on offset 0 size 1 type bool FORBIDDEN(enum or bool)"
FAKE
chmod +x "$scratch/fake_dump.sh"
"$scratch/fake_dump.sh" > "$scratch/fake_manifest.txt"
if python3 "$check" "$scratch/fake_dump.sh" "$scratch/fake_manifest.txt" "$scratch/releases" \
        "$version" > "$scratch/out.txt"; then
    echo "FAILED: a bool field passed"; exit 1
fi
grep -q "ct_x_t.on" "$scratch/out.txt" || { echo "FAILED: the message does not name the field"; exit 1; }
echo "ok: a bool field in a struct is refused, naming it"
