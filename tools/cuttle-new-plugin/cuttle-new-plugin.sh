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
# usage: cuttle-new-plugin NAME [--provides API] [--dir DIR]     (DIR defaults to ./<stem>)
set -eu
usage="usage: cuttle-new-plugin NAME [--provides API] [--dir DIR]
writes a plugin folder for NAME (lower case, with a prefix: acme.foo) and a project that runs it;
then: cd DIR && make && cuttle-compile --project . && cuttle --project ."
name= dir= api=
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) echo "$usage"; exit 0 ;;
        --dir) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; dir=$2; shift ;;
        --provides) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; api=$2; shift ;;
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

clean:
	rm -f plugins/$ident.so plugins/.$ident.so.part

.PHONY: clean
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

cat > "$dir/levels/start.level" <<EOF
entities = [
    { name = "origin" components = { transform = { position = [0 0 0] } } }
    { name = "above" components = { transform = { position = [0 1 0] } } }
]
EOF

echo "wrote $dir: $stem.c $api_ident.h Makefile meson.build project.sjson boot.lua levels/start.level"
echo "next: cd $dir && make && cuttle-compile --project . && cuttle --project ."
