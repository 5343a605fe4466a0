#!/usr/bin/env bash
# The SDK as a studio gets it: `meson install` into a scratch root, then, with nothing but the
# installed tree, build the example plugins (v1 and v2) and a plugin of our own out of tree (only
# `pkg-config --cflags cuttle-plugin`, linked with -z defs), and run a project that lists them in
# its plugin_folders with the installed cuttle: no --modules, so the engine's modules must come
# from the installed modules folder. cuttle-compile must find the same plugins, and a project that
# leaves a needed provider out of its module list must be told where that provider is.
# usage: test_sdk_install.sh BUILD_DIR PREFIX FORECAST.C NUM_MODULES README
set -euo pipefail
build=$1 prefix=$2 forecast=$3 num_modules=$4 readme=$5
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$scratch/root" > "$scratch/install.log" 2>&1 ||
    { tail -n 20 "$scratch/install.log"; fail "meson install failed (is everything it installs built?)"; }
root=$scratch/root
bin=$root$prefix/bin
for program in cuttle cuttle-compile cuttle-hash; do
    [ -x "$bin/$program" ] || fail "$program is not installed in $bin"
done
pc=$(find "$root" -name cuttle-plugin.pc | head -n 1)
[ -n "$pc" ] || fail "cuttle-plugin.pc is not installed"
# The .pc file is relocatable: PKG_CONFIG_PATH alone finds the headers and modules of an SDK
# installed with --destdir (before: its hard-coded prefix needed PKG_CONFIG_SYSROOT_DIR).
export PKG_CONFIG_PATH=$(dirname "$pc")
unset PKG_CONFIG_SYSROOT_DIR
# As an author's shell: the installed harness library, not the build tree's that meson test
# puts on the library path (it would look for the modules beside itself there).
unset LD_LIBRARY_PATH
# An SDK built with the sanitizers has them in its harness library: a program linking it is built
# with them too (the runtime must come first); plugins are not (they take it from the process).
harness_lib=$(find "$root" -name 'libcuttle_test_kernel.so' | head -n 1)
export TEST_CFLAGS=
# (ldd's output goes to a file first: with pipefail, `ldd | grep -q` fails at random when grep
# stops at its match and ldd dies writing the rest.)
ldd "$harness_lib" > "$scratch/harness.ldd"
if grep -q libasan "$scratch/harness.ldd"; then
    TEST_CFLAGS="-fsanitize=address,undefined"
fi
[ -z "$(pkg-config --libs cuttle-plugin)" ] || fail "cuttle-plugin.pc asks to link something"
incdir=$(pkg-config --cflags-only-I cuttle-plugin | sed 's/^ *-I//; s/ *$//')
[ -f "$incdir/ct_plugin.h" ] || fail "pkg-config --cflags points at '$incdir', not the installed headers"
modulesdir=$(cd "$(pkg-config --variable=modulesdir cuttle-plugin)" 2>/dev/null && pwd -P) ||
    fail "modulesdir '$(pkg-config --variable=modulesdir cuttle-plugin)' is not a folder"
modulesdir=${modulesdir#"$(cd "$root" && pwd -P)"}
case "$modulesdir" in "$prefix"/*/cuttle/modules) ;; *) fail "modulesdir is '$modulesdir'" ;; esac
installed=$(find "$root$modulesdir" -name '*.so' | wc -l)
[ "$installed" -eq "$num_modules" ] || fail "$installed modules in $root$modulesdir, not $num_modules"
[ -f "$root$prefix/include/cuttle/ct_version.h" ] || fail "api/ct_version.h is not installed"
# Each file is installed once (before: ct_transform.h and ct_animation.h twice, by api/ and by
# their module; api/meson.build installs every header).
dups=$(grep '^Installing ' "$scratch/install.log" | awk '{d = $4; sub(/\/$/, "", d); print $2 " -> " d}' | sort | uniq -d)
[ -z "$dups" ] || fail "installed more than once: $dups"
# Every installed program is named in the README's "Installing the SDK".
for program in "$bin"/*; do
    grep -q "\`$(basename "$program")\`" "$readme" || fail "README does not name the installed $(basename "$program")"
done
# The references: the HTML API reference (a page per header) and the LuaLS annotation files.
for f in doc/cuttle/api/index.html doc/cuttle/api/ct_entity.html doc/cuttle/api/ct_test_kernel.html \
         cuttle/lua/types.lua cuttle/lua/world.lua; do
    [ -f "$root$prefix/share/$f" ] || fail "share/$f is not installed"
done
grep -q 'id="ct_component_api_v2"' "$root$prefix/share/doc/cuttle/api/ct_entity.html" ||
    fail "the installed API reference has no ct_component_api_v2"
example=$root$prefix/share/cuttle/examples/hello_v1
[ -f "$example/hello_v1.c" ] || fail "the example plugin's source is not installed"
weather=$root$prefix/share/cuttle/examples/weather
for f in weather.c acme_weather.h; do
    [ -f "$weather/$f" ] || fail "the v2 example plugin's $f is not installed in $weather"
done

# A project with its own plugin folder, built from the installed SDK alone.
project=$scratch/weather
mkdir -p "$project/plugins"
cflags="-std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -Wl,-z,defs"
cc $cflags $(pkg-config --cflags cuttle-plugin) "$example/hello_v1.c" -o "$project/plugins/acme_hello.so"
cc $cflags $(pkg-config --cflags cuttle-plugin) -I"$example" "$forecast" \
    -o "$project/plugins/acme_forecast.so"
# The v2 example, as README's "Write your first plugin" builds it, from the installed copy.
cc $cflags $(pkg-config --cflags cuttle-plugin) "$weather/weather.c" -o "$scratch/acme_weather.so"
out=$("$bin/cuttle" --strict --plugin "$scratch/acme_weather.so" -e 'print(Weather.forecast("Oslo"))' 2>&1) ||
    { echo "$out"; fail "the installed weather example did not run"; }
grep -qx "sun" <<< "$out" || { echo "$out"; fail "the weather example did not print 'sun'"; }
cat > "$project/project.sjson" <<'SJSON'
boot_script = "boot.lua"
frames = 3
modules = ["ct.entities" "ct.transforms" "acme.hello" "acme.forecast"]
plugin_folders = ["plugins"]
SJSON
cat > "$project/boot.lua" <<'LUA'
function init()
    local greeting, has_transform = Forecast.check()
    assert(greeting == "Hello, forecast!", greeting)
    assert(has_transform == true)
    print("forecast: " .. greeting)
end
LUA
mkdir -p "$project/levels"
echo 'entities = [ { components = { transform = { position = [1 2 3] } } } ]' > "$project/levels/one.level"

# Run from elsewhere, so nothing is found relative to the current folder.
cd "$scratch"
out=$("$bin/cuttle" --strict --project "$project" 2>&1) || { echo "$out"; fail "the installed cuttle did not run the project"; }
grep -q "forecast: Hello, forecast!" <<< "$out" || { echo "$out"; fail "the project's plugins did not run"; }
list=$("$bin/cuttle" --list 2>&1)
for m in ct.entities ct.transforms ct.physics; do
    grep -q "$m" <<< "$list" || { echo "$list"; fail "cuttle --list without --modules misses $m"; }
done
# --modules adds a folder searched first: its modules override the installed ones, no conflict.
list=$("$bin/cuttle" --strict --list --modules "$build/modules" 2>&1) ||
    { echo "$list"; fail "--modules next to the installed modules made a conflict"; }
grep -Eq "ct.entities .* $build/modules/" <<< "$list" ||
    { echo "$list"; fail "--modules did not override the installed ct.entities"; }
out=$("$bin/cuttle-compile" --strict --project "$project" 2>&1) || { echo "$out"; fail "cuttle-compile failed"; }
grep -q "compiled 1, up to date 0, failed 0" <<< "$out" || { echo "$out"; fail "cuttle-compile did not compile the level"; }

# The provider is in a plugin folder, but the module list leaves it out: say so.
sed -i 's/ "acme.hello"//' "$project/project.sjson"
if out=$("$bin/cuttle" --strict --project "$project" 2>&1); then
    fail "a project missing a required provider ran under --strict"
fi
grep -q "requires acme.greeter v1, which no plugin the project lists offers; .*plugins/acme_hello.so.*, which the project's module list leaves out" <<< "$out" ||
    { echo "$out"; fail "the message does not point at the unlisted provider"; }
# Plugin folders stay inside the project.
sed -i 's|"plugins"|"../elsewhere"|' "$project/project.sjson"
if out=$("$bin/cuttle" --project "$project" 2>&1); then fail "a plugin folder outside the project was accepted"; fi
grep -q "field 'plugin_folders': '../elsewhere'" <<< "$out" || { echo "$out"; fail "the refusal does not name the field"; }

# The generator, as an author runs it: a plugin folder built with its own Makefile against the
# installed SDK (pkg-config only), compiled and run by the installed programs.
cd "$scratch"
"$bin/cuttle-new-plugin" acme.foo --dir "$scratch/foo" > /dev/null || fail "cuttle-new-plugin failed"
grep -q "#define ACME_FOO_API $("$bin/cuttle-hash" acme.foo | awk '/_API /{print $3}')" "$scratch/foo/acme_foo.h" ||
    fail "the generated header's id is not cuttle-hash's"
if "$bin/cuttle-new-plugin" ct.foo --dir "$scratch/ct" 2> /dev/null; then fail "a ct. name was accepted"; fi
out=$(make -C "$scratch/foo" 2>&1) || { echo "$out"; fail "the generated Makefile did not build"; }
[ -f "$scratch/foo/plugins/acme_foo.so" ] && [ ! -e "$scratch/foo/plugins/.acme_foo.so.part" ] ||
    fail "the Makefile did not rename its output into plugins/acme_foo.so"
out=$("$bin/cuttle-compile" --strict --project "$scratch/foo" 2>&1) || { echo "$out"; fail "the generated level did not compile"; }
out=$("$bin/cuttle" --strict --project "$scratch/foo" 2>&1) || { echo "$out"; fail "the generated project did not run"; }
grep -qx "Hello, 2 entities!" <<< "$out" || { echo "$out"; fail "the generated plugin did not greet the level"; }
grep -qx "acme.foo greeted 1 time(s)" <<< "$out" || { echo "$out"; fail "the generated plugin's state was lost"; }
# --provides: the plugin provides another API name (its header and id follow that name).
"$bin/cuttle-new-plugin" acme.bar --provides acme.counter --dir "$scratch/bar" > /dev/null ||
    fail "cuttle-new-plugin --provides failed"
out=$(make -C "$scratch/bar" 2>&1) || { echo "$out"; fail "the --provides plugin did not build"; }
out=$("$bin/cuttle" --strict --list --plugin "$scratch/bar/plugins/acme_bar.so" 2>&1) || { echo "$out"; fail "the --provides plugin did not load"; }
grep -q "provides: acme.counter v1" <<< "$out" || { echo "$out"; fail "the --provides plugin does not provide acme.counter v1"; }
# `make test`: the generated plugin's own cmocka test, on a kernel booted by the installed test
# harness (ct_test_kernel.h, pkg-config cuttle-test) with the installed modules.
out=$(make -C "$scratch/foo" test 2>&1) || { echo "$out"; fail "the generated plugin's test did not pass"; }
grep -q "PASSED.*1 test" <<< "$out" || { echo "$out"; fail "the generated plugin's test did not run its case"; }

# The example component plugin (ct_component_store.h), built from the installed copy and run
# with its own project.
health=$root$prefix/share/cuttle/examples/health
for f in health.c acme_health.h test_health.c project.sjson boot.lua units/hero.unit; do
    [ -f "$health/$f" ] || fail "the component example's $f is not installed in $health"
done
cp -r "$health" "$scratch/health"
mkdir -p "$scratch/health/plugins"
cc $cflags $(pkg-config --cflags cuttle-plugin) "$scratch/health/health.c" -o "$scratch/health/plugins/acme_health.so"
out=$("$bin/cuttle-compile" --strict --project "$scratch/health" 2>&1) || { echo "$out"; fail "the component example's unit did not compile"; }
out=$("$bin/cuttle" --strict --project "$scratch/health" 2>&1) || { echo "$out"; fail "the component example did not run"; }
for line in "health: 80 of 1 instance(s): 1" "after 30 damage: 50" "after 3 frames of regen: 65" \
            "instances after the hero died: 0"; do
    grep -qxF "$line" <<< "$out" || { echo "$out"; fail "the component example did not print '$line'"; }
done
# Its own tests, through the installed harness.
cc -std=c11 -Wall -Wextra -Werror $TEST_CFLAGS $(pkg-config --cflags cuttle-test) "$scratch/health/test_health.c" \
    -o "$scratch/health/test_health" $(pkg-config --libs cuttle-test)
out=$("$scratch/health/test_health" "$scratch/health/plugins/acme_health.so" 2>&1) ||
    { echo "$out"; fail "the component example's tests did not pass"; }
grep -q "PASSED.*4 test" <<< "$out" || { echo "$out"; fail "the component example's tests did not all run"; }
grep -q "units/misspelt.unit: entity '(unnamed)': health.valeu: unknown field (did you mean 'value'?)" <<< "$out" ||
    { echo "$out"; fail "the component's compiler did not name the misspelt field"; }

# The harness refuses what it cannot do: a second boot, a missing modules folder.
cat > "$scratch/harness_misuse.c" <<'C'
#include <stdio.h>
#include "ct_lua.h"
#include "ct_test_kernel.h"
int main(void)
{
    const ct_test_kernel_desc_t nowhere = {.modules_dir = "/nonexistent/modules", .strict = true};
    if (ct_test_kernel_api(CT_LUA_API, 1) || ct_test_kernel_lua("x = 1") != CT_ERR_INVALID ||
        ct_test_kernel_reload("ct.entities") != CT_ERR_INVALID || ct_test_kernel_shutdown() != 0)
        return 1; /* nothing booted: nothing served */
    if (ct_test_kernel_boot(&nowhere) == 0)
        return 2;
    if (ct_test_kernel_boot(&(ct_test_kernel_desc_t){0}) != 0)
        return 3;
    if (ct_test_kernel_boot(&(ct_test_kernel_desc_t){0}) != CT_ERR_INVALID)
        return 4; /* one kernel at a time */
    if (ct_test_kernel_lua("assert(World ~= nil)") != 0 || ct_test_kernel_lua("error('x')") != CT_ERR_LUA)
        return 5;
    if (ct_test_kernel_shutdown() != 0)
        return 6;
    puts("harness refusals: ok");
    return 0;
}
C
cc -std=c11 -Wall -Wextra -Werror $TEST_CFLAGS $(pkg-config --cflags cuttle-test) "$scratch/harness_misuse.c" \
    -o "$scratch/harness_misuse" $(pkg-config --libs cuttle-test)
status=0
out=$("$scratch/harness_misuse" 2>&1) || status=$?
[ "$status" -eq 0 ] || { echo "$out"; fail "the harness misuse check failed at step $status"; }
grep -q "modules_dir '/nonexistent/modules' is not a folder" <<< "$out" || { echo "$out"; fail "the harness did not name the missing modules folder"; }

# --component: a component plugin under the author's names (component, Lua module, API),
# built with its Makefile, its test run through the harness, its project compiled and run.
"$bin/cuttle-new-plugin" acme.vitals --component stamina --dir "$scratch/vitals" > /dev/null ||
    fail "cuttle-new-plugin --component failed"
if "$bin/cuttle-new-plugin" acme.v2 --component Bad --dir "$scratch/v2" 2> /dev/null; then
    fail "a component name with capitals was accepted"
fi
grep -q '"stamina"' "$scratch/vitals/vitals.c" && ! grep -qi "health" "$scratch/vitals/vitals.c" ||
    fail "the generated component plugin still names the example's component"
out=$(make -C "$scratch/vitals" test 2>&1) || { echo "$out"; fail "the generated component plugin's test did not pass"; }
grep -q "PASSED.*4 test" <<< "$out" || { echo "$out"; fail "the generated component plugin's tests did not all run"; }
grep -q "stamina.valeu: unknown field" <<< "$out" || { echo "$out"; fail "the generated compiler does not name its component"; }
out=$("$bin/cuttle-compile" --strict --project "$scratch/vitals" 2>&1) || { echo "$out"; fail "the generated component's unit did not compile"; }
out=$("$bin/cuttle" --strict --project "$scratch/vitals" 2>&1) || { echo "$out"; fail "the generated component project did not run"; }
grep -qxF "stamina: 80 of 1 instance(s): 1" <<< "$out" && grep -qxF "instances after the hero died: 0" <<< "$out" ||
    { echo "$out"; fail "the generated component project did not run its component"; }
echo "sdk: installed cuttle ran a project's out-of-tree plugins with $installed installed modules, a generated plugin and component plugin with their tests, and the component example"
