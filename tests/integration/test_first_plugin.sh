#!/usr/bin/env bash
# README.md's "Write your first plugin" works as written: its lines (between the first-plugin
# markers) run from the source folder with a scratch $HOME, and the plugin prints its forecast.
# usage: test_first_plugin.sh SOURCE_DIR
set -euo pipefail
source=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
sed -n '/<!-- first-plugin:.*runs/,/<!-- first-plugin: end/p' "$source/README.md" |
    grep '^    ' | sed 's/^    //' > "$scratch/steps.sh"
[ "$(wc -l < "$scratch/steps.sh")" -ge 5 ] || { echo "README has no first-plugin steps"; exit 1; }
out=$(cd "$source" && HOME=$scratch bash -euo pipefail "$scratch/steps.sh" 2>"$scratch/err") ||
    { cat "$scratch/err"; echo "the README's steps failed"; exit 1; }
[ "$(printf '%s\n' "$out" | tail -n 1)" = sun ] ||
    { printf '%s\n' "$out" | tail -n 5; cat "$scratch/err"; echo "expected the last line 'sun'"; exit 1; }
echo "first plugin: the README's steps install the SDK, build acme_weather.so and run it"
