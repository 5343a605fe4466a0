#!/usr/bin/env bash
# Every module and sample plugin exports exactly one symbol: get_plugin_api.
# usage: test_exports.sh LIBRARY...
set -euo pipefail
bad=0
for lib in "$@"; do
    exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort | tr '\n' ' ')
    if [ "$exports" != "get_plugin_api " ]; then
        echo "$lib exports: $exports(only get_plugin_api is allowed)"
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "exports: $# libraries export only get_plugin_api"
exit $bad
