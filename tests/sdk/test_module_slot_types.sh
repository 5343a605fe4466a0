#!/usr/bin/env bash
# A ct_module_api_t entry takes a slot only of its API's table type: the right one compiles, a
# slot of another API or of another version of the same API does not, in C and in C++.
# usage: test_module_slot_types.sh API_DIR CC [CXX]
set -euo pipefail
api=$1 cc=$2 cxx=${3:-}
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$api")
plugin() { # $1: the entry under test
    printf '%s\n' '#include "ct_module.h"' '#include "ct_transform.h"' \
        'static const ct_log_api_v1 *log_api;' 'static const ct_transform_api_v2 *transform;' \
        "static const ct_module_api_t apis[] = {$1};" \
        'const ct_module_api_t *entries(void);' 'const ct_module_api_t *entries(void) { return apis; }'
}
compiles() { # $1: compiler, $2: language, $3: entry
    plugin "$3" | "$1" "${flags[@]}" -x "$2" - 2>/dev/null
}
checked=0
for pair in "$cc c" ${cxx:+"$cxx c++"}; do
    set -- $pair
    compiles "$1" "$2" 'CT_MODULE_API(log, 1, &log_api), CT_MODULE_API(transform, 2, &transform)' ||
        { echo "$2: right slots do not compile" >&2; exit 1; }
    for wrong in 'CT_MODULE_API(lua, 1, &log_api)' 'CT_MODULE_API(transform, 3, &transform)' \
        'CT_MODULE_API_OPTIONAL(log, 1, &transform)'; do
        if compiles "$1" "$2" "$wrong"; then
            echo "$2: '$wrong' compiled: a slot of the wrong type was taken" >&2
            exit 1
        fi
    done
    checked=$((checked + 4))
done
echo "$checked entries checked"
