#!/usr/bin/env bash
# A third party's view: install the engine into a scratch folder, build a plugin outside the tree
# with nothing but `pkg-config --cflags cuttle-plugin` (no link flags), and load it.
# usage: test_install.sh BUILD_DIR SOURCE_DIR CUTTLE_EXE
set -euo pipefail
build=$1 source=$2 cuttle=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$scratch/root" >/dev/null
pc_dir=$(dirname "$(find "$scratch/root" -name cuttle-plugin.pc | head -n 1)")
export PKG_CONFIG_PATH=$pc_dir PKG_CONFIG_SYSROOT_DIR=$scratch/root
[ -z "$(pkg-config --libs cuttle-plugin)" ] || { echo "cuttle-plugin.pc asks to link something"; exit 1; }

cp "$source/sample_plugins/seed_adder/seed_adder.c" "$scratch/"
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
   $(pkg-config --cflags cuttle-plugin) "$scratch/seed_adder.c" -o "$scratch/outside.so"
"$cuttle" --strict --plugin "$scratch/outside.so" -e 'assert(Plugin.test(2, 3) == 5)'
echo "install: headers and cuttle-plugin.pc build a plugin outside the tree"
