#!/bin/sh
# cuttle-new-plugin: writes a working plugin folder for a plugin named NAME (e.g. acme.foo):
#   <stem>.c            the plugin, a ct_module_v3_t (ct_module.h): state kept across hot
#                       reloads, a Lua module, the API it provides
#   <api>.h             the API it provides (NAME v1, or --provides API v1), its id from
#                       cuttle-hash
#   Makefile            builds plugins/<prefix>_<stem>.so (the file name the kernel looks
#                       for: the plugin name with '.' as '_') with `pkg-config --cflags cuttle-plugin`, to a
#                       temporary name renamed into place (a running `cuttle --watch` never
#                       sees a half-written file)
#   meson.build         the same plugin for meson (dependency('cuttle-plugin'))
#   project.sjson, boot.lua, levels/start.level
#                       a tiny project that loads the plugin from plugins/ and runs it
# With --component COMP the plugin is instead a component plugin: a copy of the SDK's example
# (share/cuttle/examples/health: a component on ct_component_store.h with check_fields, load-time
# validation, batched spawn, lazy collection and reload) with "health" renamed COMP, its API and
# Lua module (Comp) following, and a project spawning units/hero.unit with the component.
# usage: cuttle-new-plugin NAME [--provides API] [--component COMP] [--dir DIR]
#        (DIR defaults to ./<stem>)
set -eu
usage="usage: cuttle-new-plugin NAME [--provides API] [--component COMP] [--dir DIR]
writes a plugin folder for NAME (lower case, with a prefix: acme.foo) and a project that runs it;
then: cd DIR && make && cuttle-compile --project . && cuttle --project ."
name= dir= api= comp=
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) echo "$usage"; exit 0 ;;
        --dir) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; dir=$2; shift ;;
        --provides) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; api=$2; shift ;;
        --component) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; comp=$2; shift ;;
        -*) echo "cuttle-new-plugin: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
        *) [ -z "$name" ] || { echo "$usage" >&2; exit 2; }; name=$1 ;;
    esac
    shift
done
[ -n "$name" ] || { echo "$usage" >&2; exit 2; }
api=${api:-$name}
for n in "$name" "$api"; do
    case $n in
        ct.*) echo "cuttle-new-plugin: names under 'ct.' are the engine's; pick your own prefix (acme.foo)" >&2; exit 2 ;;
        [a-z]*.[a-z]*) ;;
        *) echo "cuttle-new-plugin: '$n' is not prefix.name in lower case (acme.foo)" >&2; exit 2 ;;
    esac
    case $n in *[!a-z0-9_.]*|*..*|*.) echo "cuttle-new-plugin: '$n' may hold only a-z, 0-9, '_' and '.'" >&2; exit 2 ;; esac
done
if [ -n "$comp" ]; then
    case $comp in
        [a-z]*) ;;
        *) echo "cuttle-new-plugin: component '$comp' must start with a-z" >&2; exit 2 ;;
    esac
    case $comp in *[!a-z0-9_]*) echo "cuttle-new-plugin: component '$comp' may hold only a-z, 0-9 and '_'" >&2; exit 2 ;; esac
fi
stem=${name##*.}
prefix=$(echo "${name%.*}" | tr . _)
ident=${prefix}_${stem}                       # acme_foo
IDENT=$(echo "$ident" | tr a-z A-Z)           # ACME_FOO
api_ident=$(echo "$api" | tr . _)             # the provided API's C names
API_IDENT=$(echo "$api_ident" | tr a-z A-Z)
Module=$(echo "$stem" | cut -c1 | tr a-z A-Z)$(echo "$stem" | cut -c2-)   # Foo
dir=${dir:-$stem}
[ ! -e "$dir" ] || { echo "cuttle-new-plugin: $dir exists; give another --dir" >&2; exit 1; }

# The id, computed by the engine's own hash: cuttle-hash next to this script, else on PATH.
here=$(dirname "$0")
hash=$here/cuttle-hash
[ -x "$hash" ] || hash=$(command -v cuttle-hash) || { echo "cuttle-new-plugin: cuttle-hash not found" >&2; exit 1; }
id_line=$("$hash" "$api" | grep "_API ")

if [ -n "$comp" ]; then
# A component plugin: the installed example under the author's names. The example's names are
# distinct on purpose: "acme.health" (the plugin as .name, in the project's module list and in the
# test's reload; the API everywhere else), acme_health / ACME_HEALTH (the API's C names),
# Health / health / HEALTH (the component, its Lua module and its C names).
examples=${CUTTLE_EXAMPLES:-@EXAMPLES_FROM_BINDIR@}
case $examples in /*) ;; *) examples=$here/$examples ;; esac
[ -f "$examples/health/health.c" ] || { echo "cuttle-new-plugin: the SDK's examples are not in $examples (set CUTTLE_EXAMPLES to the installed share/cuttle/examples)" >&2; exit 1; }
COMP=$(echo "$comp" | tr a-z A-Z)
Comp=$(echo "$comp" | cut -c1 | tr a-z A-Z)$(echo "$comp" | cut -c2-)
id_sed=$(printf '%s' "$id_line" | sed 's/[\\&|]/\\&/g')
rename() {
    sed -e "s|^#define ACME_HEALTH_API .*|$id_sed|" \
        -e "s|\.name = \"acme\.health\"|.name = \"$name\"|; s|plugin \"acme\.health\"|plugin \"$name\"|g" \
        -e "s|reload(\"acme\.health\")|reload(\"$name\")|" \
        -e "s|\"acme\.health\"\]|\"$name\"]|; s|acme\.health|$api|g" \
        -e "s|ACME_HEALTH|$API_IDENT|g; s|acme_health|$api_ident|g" \
        -e "s|the example component plugin|the component plugin (from the SDK's example)|" \
        -e "s|HEALTH|$COMP|g; s|Health|$Comp|g; s|health|$comp|g" "$1"
}
mkdir -p "$dir/plugins" "$dir/units"
rename "$examples/health/acme_health.h" > "$dir/$api_ident.h"
rename "$examples/health/health.c" > "$dir/$stem.c"
rename "$examples/health/project.sjson" > "$dir/project.sjson"
rename "$examples/health/boot.lua" > "$dir/boot.lua"
rename "$examples/health/units/hero.unit" > "$dir/units/hero.unit"
rename "$examples/health/test_health.c" > "$dir/test_$stem.c"
else
mkdir -p "$dir/plugins" "$dir/levels"
cat > "$dir/$api_ident.h" <<EOF
/*
 * $api_ident.h: the API "$api", version 1, provided by the plugin "$name". Written by cuttle-new-plugin.
 * Id: cuttle-hash $api. Once published it is frozen: a change is ${api_ident}_api_v2.
 */
#ifndef ${API_IDENT}_H
#define ${API_IDENT}_H

#include "ct_types.h"

$id_line

typedef struct ${api_ident}_api_v1 {
    /* How many greetings the plugin has made; the count survives hot reloads. */
    uint64_t (*greetings)(void);
} ${api_ident}_api_v1;

#endif
EOF

cat > "$dir/$stem.c" <<EOF
/*
 * $stem: the plugin "$name", written by cuttle-new-plugin. It provides $api_ident.h, adds the Lua
 * module $Module ($Module.greet(who) -> "Hello, who!", $Module.greetings()) and keeps its state
 * in one block that ct_module.h hands across hot reloads (bump ${IDENT}_LAYOUT when the block's
 * layout changes).
 */
#include <stdio.h>

#include "ct_lua.h"
#include "ct_module.h"
#include "$api_ident.h"

#define ${IDENT}_LAYOUT 1u

typedef struct ${ident}_state_t {
    ct_reload_header_t header;
    uint64_t greetings;
} ${ident}_state_t;

static const ct_log_api_v1 *log_api;
static const ct_lua_api_v1 *lua_api;
static ct_plugin_o *self_;
static ct_allocator_t *allocator;
static ${ident}_state_t *state;

#define CT_LOG_TABLE log_api
#define CT_LOG_SELF self_

static uint64_t greetings(void) { return state->greetings; }

static int l_greet(lua_State *L)
{
    const char *who = lua_api->check_string(L, 1, NULL);
    char line[256];
    int n = snprintf(line, sizeof line, "Hello, %s!", who);
    state->greetings++;
    lua_api->push_string(L, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    return 1;
}

static int l_greetings(lua_State *L)
{
    lua_api->push_number(L, (double)state->greetings);
    return 1;
}

/* Runs at init and, in the new code, after a hot reload. */
static int start(void)
{
    static const ct_lua_reg_t fns[] = {{"greet", l_greet}, {"greetings", l_greetings}};
    lua_api->register_module("$Module", fns, CT_ARRAY_COUNT(fns));
    ct_log_info("ready, %llu greetings so far", (unsigned long long)state->greetings);
    return 0;
}

static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &log_api),
    CT_MODULE_API(lua, 1, &lua_api),
    CT_MODULE_API_NO_SLOT(memory, 1),
};
static const ct_api_ref_t provides[] = {CT_API_PROVIDE("$api", 1, ${api_ident}_api_v1)};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "$name", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &self_, .allocator = &allocator, .state = &state,
               .state_size = sizeof(${ident}_state_t), .layout_version = ${IDENT}_LAYOUT,
               .start = start, .rebind = start},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ${api_ident}_api_v1 table = {.greetings = greetings};
    static const ct_api_table_t tables[] = {{${API_IDENT}_API, 1, &table}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
EOF

cat > "$dir/project.sjson" <<EOF
// A tiny project that runs the plugin: cuttle-compile --project . && cuttle --project .
boot_script = "boot.lua"
frames = 3
modules = ["ct.entities" "ct.transforms" "$name"]
plugin_folders = ["plugins"]
EOF

cat > "$dir/boot.lua" <<EOF
-- Spawns the level and greets it through the plugin's Lua module.
local world

function init()
    world = World.create()
    local n = assert(World.spawn_level(world, "levels/start"))
    print($Module.greet(n .. " entities"))
end

function update(dt)
end

function shutdown()
    print("$name greeted " .. $Module.greetings() .. " time(s)")
    World.destroy(world)
end
EOF

cat > "$dir/test_$stem.c" <<EOF
/*
 * The plugin's own cmocka tests on a real kernel with the SDK's modules (ct_test_kernel.h):
 * \`make test\`. The plugin under test is argv[1] (the Makefile passes plugins/$ident.so).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "$api_ident.h"
#include "ct_test_kernel.h"

static const char *plugin = "plugins/$ident.so";

static int boot(void **state)
{
    (void)state;
    return ct_test_kernel_boot(&(ct_test_kernel_desc_t){
        .plugins = &plugin, .num_plugins = 1, .strict = true});
}

/* Fails the group when the plugin leaked. */
static int shut(void **state)
{
    (void)state;
    return ct_test_kernel_shutdown() == 0 ? 0 : -1;
}

static void greets_and_counts(void **state)
{
    (void)state;
    const ${api_ident}_api_v1 *api = ct_test_kernel_api(${API_IDENT}_API, 1);
    assert_non_null(api);
    assert_int_equal(api->greetings(), 0);
    assert_int_equal(ct_test_kernel_lua("assert($Module.greet('test') == 'Hello, test!')"), 0);
    assert_int_equal(api->greetings(), 1);
    /* A greeting needs a name: the Lua error is the caller's. */
    assert_int_equal(ct_test_kernel_lua("$Module.greet()"), CT_ERR_LUA);
    assert_int_equal(api->greetings(), 1);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        plugin = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(greets_and_counts)};
    return cmocka_run_group_tests(tests, boot, shut);
}
EOF

cat > "$dir/levels/start.level" <<EOF
entities = [
    { name = "origin" components = { transform = { position = [0 0 0] } } }
    { name = "above" components = { transform = { position = [0 1 0] } } }
]
EOF

fi

cat > "$dir/Makefile" <<EOF
# Builds plugins/$ident.so against the installed Cuttle SDK (PKG_CONFIG_PATH may point at it).
# The library is linked under a temporary name and renamed, so \`cuttle --watch\` reloads a
# whole file.
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
SDK_CFLAGS := \$(shell \$(PKG_CONFIG) --cflags cuttle-plugin)
ifeq (\$(SDK_CFLAGS),)
\$(error pkg-config does not find cuttle-plugin: set PKG_CONFIG_PATH to the SDK's lib/.../pkgconfig)
endif

plugins/$ident.so: $stem.c $api_ident.h
	mkdir -p plugins
	\$(CC) -std=c11 -Wall -Wextra -fPIC -fvisibility=hidden \$(CFLAGS) \$(SDK_CFLAGS) $stem.c \\
	    -shared -Wl,-z,defs -o plugins/.$ident.so.part
	mv -f plugins/.$ident.so.part plugins/$ident.so

# \`make test\`: the plugin's own cmocka tests, on a real kernel with the SDK's modules
# (ct_test_kernel.h, pkg-config cuttle-test). TEST_CFLAGS adds flags for the test program alone
# (-fsanitize=address,undefined when the SDK was built with the sanitizers).
TEST_CFLAGS ?=
test_$stem: test_$stem.c $api_ident.h
	\$(CC) -std=c11 -Wall -Wextra \$(CFLAGS) \$(TEST_CFLAGS) \$(shell \$(PKG_CONFIG) --cflags cuttle-test) \\
	    test_$stem.c -o test_$stem \$(shell \$(PKG_CONFIG) --libs cuttle-test)

test: plugins/$ident.so test_$stem
	./test_$stem plugins/$ident.so

clean:
	rm -f plugins/$ident.so plugins/.$ident.so.part test_$stem

.PHONY: clean test
EOF

cat > "$dir/meson.build" <<EOF
# The same plugin with meson: meson setup build && ninja -C build, then copy build/$ident.so into
# plugins/ (or list build/ in project.sjson's plugin_folders).
project('$ident', 'c', default_options : ['c_std=c11', 'warning_level=2'])
shared_module('$ident', '$stem.c', name_prefix : '',
  dependencies : dependency('cuttle-plugin'),
  gnu_symbol_visibility : 'hidden',
  link_args : ['-Wl,-z,defs'])
EOF

echo "wrote $dir: $stem.c $api_ident.h Makefile meson.build project.sjson boot.lua $([ -n "$comp" ] && echo units/hero.unit || echo levels/start.level)"
echo "next: cd $dir && make && cuttle-compile --project . && cuttle --project ."
