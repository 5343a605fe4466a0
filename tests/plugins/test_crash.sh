#!/usr/bin/env bash
# A plugin that crashes in init: the engine still ends with the signal (or, under
# AddressSanitizer, with its report), but first prints whose code faulted and what was running
# (before: signal 11 and no line at all, even at debug log level).
# usage: test_crash.sh CUTTLE CRASH_IN_INIT.so
set -uo pipefail
cuttle=$1 plugin=$2
out=$("$cuttle" --plugin "$plugin" -e 'x = 1' 2>&1)
status=$?
fail() { echo "FAILED: $*"; echo "$out"; exit 1; }
if grep -q "AddressSanitizer\|runtime error:" <<< "$out"; then
    # A sanitizer build reports the fault itself (UBSan even before the signal): its report stands.
    [ "$status" -ne 0 ] || fail "the crash must not exit 0"
    echo "ok: a sanitizer reported the crash"
    exit 0
else
    [ "$status" -eq 139 ] || fail "expected exit status 139 (SIGSEGV), got $status"
fi
grep -q "^cuttle: fatal signal 11 (SIGSEGV at (nil)) in plugin 'crash_in_init' ($plugin+0x[0-9a-f]*.*), while running init of plugin 'crash_in_init'$" <<< "$out" ||
    fail "the fatal signal line must name the plugin, its file and the hook"
line=$(grep -o "addr2line -f -e $plugin 0x[0-9a-f]*" <<< "$out") || fail "no addr2line hint"
if command -v addr2line > /dev/null; then
    $line | grep -q "^init$" || fail "addr2line at the given offset must name init ($($line))"
fi
grep -q "^cuttle: backtrace:" <<< "$out" || fail "no backtrace"
echo "ok: a crash in init names its plugin and hook"
