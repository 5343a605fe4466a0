#!/usr/bin/env bash
# Every api/ header compiles cleanly on its own as C11, C17, C++11 and C++20 with
# -Wall -Wextra -Wpedantic (warnings are errors), and a plugin defining get_plugin_api is quiet
# under -Wmissing-prototypes because ct_plugin.h declares it.
# usage: headers_compile.sh API_DIR CC [CXX]
set -euo pipefail
api=$1 cc=$2 cxx=${3:-}
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$api")
# A header of macros alone (ct_version.h) leaves an empty translation unit, which pedantic C
# refuses: one declaration after the include keeps the check on the header itself.
tail_decl='typedef int ct_header_check_t;'
checked=0
for header in "$api"/*.h; do
    name=$(basename "$header")
    for std in c11 c17; do
        printf '#include "%s"\n%s\n' "$name" "$tail_decl" | "$cc" -std=$std "${flags[@]}" -x c - ||
            { echo "$name does not compile as $std" >&2; exit 1; }
        checked=$((checked + 1))
    done
    if [ -n "$cxx" ]; then
        for std in c++11 c++20; do
            printf '#include "%s"\n%s\n' "$name" "$tail_decl" | "$cxx" -std=$std "${flags[@]}" -x c++ - ||
                { echo "$name does not compile as $std" >&2; exit 1; }
            checked=$((checked + 1))
        done
    fi
done
plugin='#include "ct_plugin.h"
CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version) { (void)api; (void)version; return 0; }'
printf '%s\n' "$plugin" | "$cc" -std=c11 "${flags[@]}" -Wmissing-prototypes -x c - ||
    { echo "get_plugin_api is not declared by ct_plugin.h (-Wmissing-prototypes)" >&2; exit 1; }
# Both names of the renamed field compile in C; C++ has the new one.
v1='#include "ct_plugin.h"
static const ct_api_ref_t refs[] = {CT_API_REQUIRE("ct.log", 1)};
const ct_plugin_api_v1 a = {.name = "a", .required = refs, .num_requires = CT_ARRAY_COUNT(refs)};
const ct_plugin_api_v1 b = {.name = "b", .requires = refs, .num_requires = CT_ARRAY_COUNT(refs)};'
printf '%s\n' "$v1" | "$cc" -std=c11 "${flags[@]}" -x c - ||
    { echo "a C plugin naming .requires or .required does not compile" >&2; exit 1; }
if [ -n "$cxx" ]; then
    cpp='#include "ct_plugin.h"
static const ct_api_ref_t refs[] = {CT_API_REQUIRE("ct.log", 1)};
extern const ct_plugin_api_v1 a;
const ct_plugin_api_v1 a = {"a", {1, 0, 0, 0}, nullptr, 0, refs, CT_ARRAY_COUNT(refs), nullptr,
                            nullptr, nullptr, nullptr, nullptr, nullptr};
static_assert(sizeof a.required == sizeof(void *), "required is a pointer");'
    printf '%s\n' "$cpp" | "$cxx" -std=c++20 "${flags[@]}" -x c++ - ||
        { echo "a C++20 plugin naming .required does not compile" >&2; exit 1; }
fi
echo "api headers: $checked compilations clean (C11, C17${cxx:+, C++11, C++20})"
