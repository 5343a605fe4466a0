#!/usr/bin/env bash
# Golden images of the fixed scene (tests/rendering/scene) through the gl backend on llvmpipe.
#   - frame 3 against golden/scene_frame3.png: a channel may differ by 2 (llvmpipe on another CPU
#     may round differently), and at most 0.5% of the pixels (384 of 76,800) by more;
#   - 1 and 2 render threads (--jobs) give the same pixels exactly, and the same command hashes;
#   - the frame captured with --capture replays (cuttle-render-replay) to exactly the same pixels;
#   - --window on a virtual X display (xvfb-run) shows and screenshots the same frame;
#   - the null backend's command hash is the same across runs and thread counts, and equals the
#     checked-in golden/scene_null_hashes.txt;
#   - the textured scene (tests/rendering/textured) against golden/textured_frame2.png, 1 and 2
#     threads alike;
#   - the skinned walker (tests/rendering/skinned) at three clip times against
#     golden/skinned_frame{1,2,3}.png, 1 and 2 threads alike;
#   - the normal-map scene (tests/rendering/normalmap) and the point and spot shadow scene
#     (tests/rendering/local_shadows) at fixed pixel values; physics shapes' wireframes
#     (tests/rendering/physics_debug) counted by colour where each body is.
# usage: test_golden.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$source/tests/rendering/scene" "$scratch/scene"
golden="$source/tests/rendering/golden"
compare() { "$build/tests/rendering/png_probe" --compare "$@"; }
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/scene" --modules "$build/modules" >/dev/null

run() { "$build/kernel/cuttle" --strict --project "$scratch/scene" --modules "$build/modules" "$@" 2>"$scratch/log" \
        | grep '^scene:' || { cat "$scratch/log"; exit 1; }; }

run --jobs 1 --screenshot "$scratch/one" --capture "$scratch/one.capture" > "$scratch/one.txt"
run --jobs 2 --screenshot "$scratch/two" > "$scratch/two.txt"
grep -q "objects 2509 visible 2387 packets 2391 draws 2387 .* invalid 0" "$scratch/one.txt"
[ "$(wc -l < "$scratch/one.txt")" -eq 3 ] || { echo "expected 3 rendered frames"; exit 1; }
diff "$scratch/one.txt" "$scratch/two.txt"
for f in 1 2 3; do compare "$scratch/one/frame_00000$f.png" "$scratch/two/frame_00000$f.png" >/dev/null; done
echo "golden: 1 and 2 render threads give the same pixels and hashes"

compare "$golden/scene_frame3.png" "$scratch/one/frame_000003.png" 2 384
# Frames 1 and 3 differ (a cube turns): the comparison can fail.
! compare "$scratch/one/frame_000001.png" "$scratch/one/frame_000003.png" >/dev/null

"$build/tools/cuttle-render-replay/cuttle-render-replay" "$scratch/one.capture" --png "$scratch/replay.png" \
    | grep -q "draws 2387 fullscreen 1 layers 3 .* invalid 0 hash $(awk 'END {print $NF}' "$scratch/one.txt")"
compare "$scratch/one/frame_000003.png" "$scratch/replay.png"
echo "golden: the captured frame replays to the same pixels and hash"

if command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 640x480x24" "$build/kernel/cuttle" --strict --project "$scratch/scene" \
        --modules "$build/modules" --window --screenshot "$scratch/window" >/dev/null 2>"$scratch/log" \
        || { cat "$scratch/log"; exit 1; }
    grep -q "in a window" "$scratch/log"
    compare "$scratch/one/frame_000003.png" "$scratch/window/frame_000003.png"
    echo "golden: --window under Xvfb draws the same frame"
else
    echo "golden: xvfb-run is missing (scripts/setup.sh installs xvfb)"; exit 1
fi

# Options a module reads: a missing value or an unknown backend stops the run naming the option;
# --window without a display says so and the frames go on through the null backend.
! "$build/kernel/cuttle" --strict --project "$scratch/scene" --modules "$build/modules" --screenshot --frames 1 \
    >/dev/null 2>"$scratch/log"
grep -q -- "--screenshot wants a path" "$scratch/log"
! "$build/kernel/cuttle" --strict --project "$scratch/scene" --modules "$build/modules" --render-backend vulkan \
    --frames 1 >/dev/null 2>"$scratch/log"
grep -q -- "--render-backend 'vulkan': known backends are gl and null" "$scratch/log"
env -u DISPLAY "$build/kernel/cuttle" --project "$scratch/scene" --modules "$build/modules" --window --frames 1 \
    2>"$scratch/log" | grep -q "^scene: frame 1 .* invalid 0"
grep -q "DISPLAY is not set.*continues on the null backend" "$scratch/log"
echo "golden: bad renderer options are refused naming them; --window without a display falls back to null"

# The textured scene (tests/rendering/textured): PNG and JPEG textures and a glTF material with
# the PNG inside its .glb, mipmapped and sRGB; 1 and 2 threads give the same pixels, and frame 2
# matches golden/textured_frame2.png at the same tolerance.
cp -r "$source/tests/rendering/textured" "$scratch/textured"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/textured" --modules "$build/modules" >/dev/null
for jobs in 1 2; do
    "$build/kernel/cuttle" --strict --project "$scratch/textured" --modules "$build/modules" --jobs $jobs \
        --screenshot "$scratch/textured_$jobs" 2>"$scratch/log" | grep '^textured:' > "$scratch/textured_$jobs.txt" \
        || { cat "$scratch/log"; exit 1; }
done
grep -q "objects 3 visible 3 draws 6 invalid 0" "$scratch/textured_1.txt"
diff "$scratch/textured_1.txt" "$scratch/textured_2.txt"
compare "$scratch/textured_1/frame_000002.png" "$scratch/textured_2/frame_000002.png" >/dev/null
compare "$golden/textured_frame2.png" "$scratch/textured_1/frame_000002.png" 2 384
echo "golden: the textured scene matches golden/, the same with 1 and 2 threads"

# The skinned scene (tests/rendering/skinned): the Blender-style walker skinned on the GPU at
# three times of its walk; each frame against golden/skinned_frame{1,2,3}.png, 1 and 2 threads
# alike, and the three poses differ.
cp -rL "$source/tests/rendering/skinned" "$scratch/skinned"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/skinned" --modules "$build/modules" >/dev/null
for jobs in 1 2; do
    "$build/kernel/cuttle" --strict --project "$scratch/skinned" --modules "$build/modules" --jobs $jobs \
        --screenshot "$scratch/skinned_$jobs" 2>"$scratch/log" | grep '^skinned:' > "$scratch/skinned_$jobs.txt" \
        || { cat "$scratch/log"; exit 1; }
done
[ "$(grep -c "objects 2 visible 2 draws 4 invalid 0" "$scratch/skinned_1.txt")" = 3 ]
diff "$scratch/skinned_1.txt" "$scratch/skinned_2.txt"
for f in 1 2 3; do
    compare "$scratch/skinned_1/frame_00000$f.png" "$scratch/skinned_2/frame_00000$f.png" >/dev/null
    compare "$golden/skinned_frame$f.png" "$scratch/skinned_1/frame_00000$f.png" 2 384
done
! compare "$scratch/skinned_1/frame_000001.png" "$scratch/skinned_1/frame_000003.png" >/dev/null
echo "golden: the skinned walker matches golden/ at three clip times, the same with 1 and 2 threads"

# The normal-map scene (tests/rendering/normalmap): tangents derived from texture coordinates
# (OBJ panels, a glTF mesh without TANGENT), normal maps from PNG. Each top panel is flat-shaded
# by one normal, so its pixel is what Lambert gives: 255 * 0.8 * (0.08 + max(0, n . l)) with l
# towards the sun (-4, 4, 6): the plain panel 165 (n = +z), the one tilted towards +u (+x) 52,
# the one tilted towards the image's up (+y) 191 (a wrong bitangent side would give 51). The
# ribbed panel (RibsNormal.png) varies along a row by over 100; the plain one by at most 2.
cp -rL "$source/tests/rendering/normalmap" "$scratch/normalmap"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/normalmap" --modules "$build/modules" >/dev/null
"$build/kernel/cuttle" --strict --project "$scratch/normalmap" --modules "$build/modules" \
    --screenshot "$scratch/normalmap_shot" 2>"$scratch/log" | grep -q "normalmap: frame 2 objects 5 visible 5 draws 5 invalid 0" \
    || { cat "$scratch/log"; exit 1; }
probe() { "$build/tests/rendering/png_probe" "$scratch/normalmap_shot/frame_000002.png" "$@"; }
near() { awk -v want="$2" -v got="$1" 'BEGIN { d = got - want; exit !(d <= 2 && d >= -2) }' || { echo "pixel $1, expected $2 (+-2)"; exit 1; }; }
near "$(probe 79 79 | awk '{print $1}')" 165
near "$(probe 160 79 | awk '{print $1}')" 52
near "$(probe 241 79 | awk '{print $1}')" 191
span() { for x in $(seq "$1" 2 "$2"); do probe "$x" "$3"; done | awk 'NR == 1 {lo = hi = $2} {lo = $2 < lo ? $2 : lo; hi = $2 > hi ? $2 : hi} END {print hi - lo}'; }
[ "$(span 60 98 79)" -le 2 ] || { echo "the plain panel is not flat"; exit 1; }
[ "$(span 82 146 165)" -gt 100 ] || { echo "the ribbed panel shows no ribs"; exit 1; }
echo "golden: normal maps shade by their tangent frames (fixed pixels: 165, 52, 191; ribs vary)"

# The point and spot shadow scene (tests/rendering/local_shadows), no sun: matte grey (0.8) with
# ambient 0.05, so a shadowed ground pixel is 10; lit ones are 255 * 0.8 * (0.05 + fall * n.l *
# colour * 3) with fall = (1 - distance / range)^2 and the spot's cone: beside the point light's
# cube (-3, 0, 1.5) 133 121 108, inside the spot's cone (3, 0, 0.9) 117 131 144. Under each cube
# (its shadow; 231 and 133 unshadowed) and outside the cone: 10.
cp -rL "$source/tests/rendering/local_shadows" "$scratch/local_shadows"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/local_shadows" --modules "$build/modules" >/dev/null
"$build/kernel/cuttle" --strict --project "$scratch/local_shadows" --modules "$build/modules" \
    --screenshot "$scratch/local_shot" 2>"$scratch/log" | grep -q "local_shadows: frame 2 objects 3 visible 3 draws 6 invalid 0" \
    || { cat "$scratch/log"; exit 1; }
rgb() { "$build/tests/rendering/png_probe" "$scratch/local_shot/frame_000002.png" "$1" "$2"; }
near3() {
    local got; got=$(rgb "$1" "$2")
    awk -v got="$got" -v want="$3 $4 $5" 'BEGIN { split(got, g); split(want, w)
        for (k = 1; k <= 3; k++) { d = g[k] - w[k]; if (d > 2 || d < -2) exit 1 } }' \
        || { echo "pixel ($1, $2) is $got, expected $3 $4 $5 (+-2)"; exit 1; }
}
near3 76 120 10 10 10     # under the point light's cube
near3 66 155 133 121 108  # beside it, lit
near3 243 120 10 10 10    # under the spot's cube
near3 249 140 117 131 144 # in the spot's cone, lit
near3 257 169 10 10 10    # outside the cone
echo "golden: point and spot lights cast shadows (fixed pixels in and out of them)"

# Physics shapes as wireframes (tests/rendering/physics_debug, Render.debug_physics): pixels of
# each state's colour counted where each body is (dynamic green 51 255 77, kinematic blue 77 153
# 255, static grey 153): the turned box, sphere and capsule green and not blue, the kinematic box
# blue and not green, nothing above them; the capsule leans left (turned 45 degrees about z), so
# its upper left and lower right quarters hold its lines, the other two few.
cp -rL "$source/tests/rendering/physics_debug" "$scratch/physics_debug"
"$build/tools/cuttle-compile/cuttle-compile" --strict --project "$scratch/physics_debug" --modules "$build/modules" >/dev/null
"$build/kernel/cuttle" --strict --project "$scratch/physics_debug" --modules "$build/modules" \
    --screenshot "$scratch/physics_shot" 2>"$scratch/log" | grep -q "physics_debug: frame 2 bodies drawn 5 packets 2 invalid 0" \
    || { cat "$scratch/log"; exit 1; }
count() { "$build/tests/rendering/png_probe" "$scratch/physics_shot/frame_000002.png" --count "$@"; }
green="51 255 77 10" blue="77 153 255 10" grey="153 153 153 10"
for region in "50 85 112 148" "113 90 165 140" "166 78 222 132"; do   # box, sphere, capsule
    [ "$(count $green $region)" -gt 150 ] && [ "$(count $blue $region)" -eq 0 ] || { echo "no green shape at $region"; exit 1; }
done
[ "$(count $blue 228 95 280 142)" -gt 150 ] && [ "$(count $green 228 95 280 142)" -eq 0 ] || { echo "no blue kinematic box"; exit 1; }
[ "$(count $grey 0 150 319 239)" -gt 300 ] || { echo "no grey floor"; exit 1; }
[ "$(count $green 0 0 319 60)" -eq 0 ] && [ "$(count $grey 0 0 319 60)" -eq 0 ] || { echo "lines where no body is"; exit 1; }
[ "$(count $green 166 78 194 104)" -gt 60 ] && [ "$(count $green 196 106 222 132)" -gt 60 ] \
    && [ "$(count $green 196 78 222 104)" -lt 30 ] && [ "$(count $green 166 106 194 132)" -lt 30 ] \
    || { echo "the capsule is not turned"; exit 1; }
echo "golden: physics shapes draw as wireframes where the bodies are, coloured by kind"

for jobs in 1 2 1; do
    run --render-backend null --jobs $jobs | awk '{print $NF}' > "$scratch/null_$jobs.txt"
done
diff "$scratch/null_1.txt" "$scratch/null_2.txt"
diff "$golden/scene_null_hashes.txt" "$scratch/null_1.txt"
echo "golden: the null backend's command hashes match across runs, thread counts and golden/"
