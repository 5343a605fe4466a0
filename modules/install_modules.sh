#!/bin/sh
# meson install hook: copies the engine's modules into the modules folder under the (dest)prefix.
# usage: install_modules.sh MODULES_DIR MODULE.so...   (MODULES_DIR relative to the prefix)
set -eu
dir=$1
shift
case "$dir" in
/*) target="${DESTDIR:-}$dir" ;;
*) target="$MESON_INSTALL_DESTDIR_PREFIX/$dir" ;;
esac
mkdir -p "$target"
for module in "$@"; do
    install -m 755 "$module" "$target/"
done
[ -n "${MESON_INSTALL_QUIET:-}" ] || echo "Installing $# modules to $target"
