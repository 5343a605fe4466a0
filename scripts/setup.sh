#!/usr/bin/env bash
# Installs what the build needs on Debian 12 (only what is missing), then configures the build
# folders. Sourced by demo.sh, test.sh and bench.sh; fast when everything is already there.
set -euo pipefail

CUTTLE_PACKAGES=(gcc g++ python3 meson ninja-build pkg-config libluajit-5.1-dev libcjson-dev libuv1-dev
                 libcmocka-dev
                 # rendering: EGL + OpenGL (headless on Mesa's llvmpipe), X11 for --window, PNG writing
                 libegl-dev libgles-dev libopengl-dev libgl1-mesa-dri libx11-dev libstb-dev)
# Data only the tests and benchmarks read; scripts/test.sh and bench.sh add these to the list above.
CUTTLE_TEST_PACKAGES=(assimp-testmodels
                      # rendering tests: a virtual display for --window, the Stanford bunny
                      xvfb xauth glmark2-data)
CUTTLE_PACKAGES+=(libsodium-dev libenet-dev) # networking: AEAD for pre-shared keys; ENet for its benchmark
CUTTLE_PACKAGES+=(libgit2-dev)  # cuttle-censor reads and writes git histories
CUTTLE_TEST_PACKAGES+=(git)  # cuttle-censor and cuttle-merge tests use real git
CUTTLE_TEST_PACKAGES+=(git-filter-repo)  # the peer in bench/censor
# The profiler viewer's test renders in headless Chromium.
CUTTLE_TEST_PACKAGES+=(chromium)
CUTTLE_TEST_PACKAGES+=(xdotool)  # input tests: real X events sent to --window under Xvfb
CUTTLE_TEST_PACKAGES+=(libmuparser-dev)  # bench/expr: muparser, a peer of the expression language
CUTTLE_PACKAGES+=(fonts-dejavu-core) # rendering: the TrueType font debug text is baked from
CUTTLE_TEST_PACKAGES+=(clang)  # libFuzzer builds of the fuzz targets (tests/libfuzzer); physics' pinned hashes under clang (tests/physics)
CUTTLE_TEST_PACKAGES+=(libclang-rt-14-dev)  # libFuzzer and the sanitizers runtime for clang

cuttle_install_missing() {
    local missing=()
    for p in "${CUTTLE_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# cuttle_configure DIR [meson options...]: configures DIR once; later calls leave it as it is
# (ninja re-runs meson itself when a meson.build changes).
cuttle_configure() {
    local dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >/dev/null
    fi
}
