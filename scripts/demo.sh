#!/usr/bin/env bash
# Builds the engine and runs the demo project headless for a fixed number of frames.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cuttle_install_missing
cuttle_configure build
ninja -C build engine >/dev/null || { ninja -C build engine; exit 1; }
build/tools/cuttle-compile/cuttle-compile --project projects/demo --modules build/modules
# The project says how many frames to run; extra arguments (e.g. --frames 600) override it.
exec build/kernel/cuttle --project projects/demo --modules build/modules "$@"
