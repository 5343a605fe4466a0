#!/usr/bin/env bash
# cuttle-compile on skeletons and clips (issue 9): a resource is compiled again when only the file
# it names changes (the BVH, the .gltf or a .bin beside it), a deleted file fails it with a
# message naming the resource and the file, --strict compiles again what last compiled with
# warnings, and misspelt fields name the file, the field and the nearest known name; glTF clips
# chosen by name, precision misses explained, and cuttle-anim-report's help, listing and exit codes.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"
CUTTLE=$CUTTLE_COMPILE
p=$scratch/project
mkdir -p "$p/mocap" "$p/anims"
printf 'modules = ["ct.entities" "ct.transforms" "ct.animation"]\n' >"$p/project.sjson"
run() { expect "$@" --project "$p" --modules "$CUTTLE_MODULES"; }

# CMU 01_01 cut to 120 frames (quick under the sanitizers), with FRAMES in its Frames: line.
cut_bvh() {
    awk -v frames="$1" 'BEGIN { after = -1 }
        /^Frames:/ { print "Frames: " frames; next }
        after >= 120 { exit }
        { print } after >= 0 { after++ } /^Frame Time:/ { after = 0 }' \
        "$ASSIMP_MODELS/BVH/01_01.bvh" >"$p/mocap/01_01.bvh"
}
cut_bvh 120
printf 'source = "mocap/01_01.bvh" units = 0.056444\n' >"$p/anims/walk.clip"

run 0 "compiled 1, up to date 0, failed 0"
run 0 "compiled 0, up to date 1, failed 0"
# Only the BVH changes: the clip is compiled again (it stayed "up to date" before).
touch -d '+1 minute' "$p/mocap/01_01.bvh"
run 0 "compiled 1, up to date 0, failed 0"
run 0 "compiled 0, up to date 1, failed 0"
grep -q '"path":.*"mocap/01_01.bvh"' "$p/compiled/manifest.json" ||
    { echo "FAIL: the manifest does not note mocap/01_01.bvh"; failures=$((failures + 1)); }
# The BVH is gone: the clip fails, named with the file, and loses its blob.
rm "$p/mocap/01_01.bvh"
run 1 "anims/walk.clip: source: .*mocap/01_01.bvh: cannot open;;compiled 0, up to date 0, failed 1"
[ ! -e "$p/compiled/clip/anims/walk.bin" ] ||
    { echo "FAIL: the clip kept a blob built from a file that is gone"; failures=$((failures + 1)); }
cut_bvh 120
run 0 "compiled 1, up to date 0, failed 0"

# Frames: disagrees with the frame lines: a warning, up to date without --strict; --strict
# compiles it again and fails on the warning instead of calling it up to date.
cut_bvh 130
run 0 "anims/walk.clip: source: mocap/01_01.bvh: Frames: says 130, but 120;;compiled 1"
run 0 "compiled 0, up to date 1, failed 0"
run 1 "\[error\].*anims/walk.clip: source: mocap/01_01.bvh: Frames: says 130;;compiled 0, up to date 0, failed 1" --strict
cut_bvh 120
run 0 "compiled 1, up to date 0, failed 0" --strict
run 0 "compiled 0, up to date 1, failed 0" --strict

# A .gltf with its buffers in .bin files beside it (simple_skin's data URIs written out): a
# change to one .bin recompiles the skeleton and the clip built from the document.
cp "$ASSIMP_MODELS/glTF2/simple_skin/simple_skin.gltf" "$p/mocap/skin.gltf"
i=0
for uri in $(grep -o 'data:application/gltf-buffer;base64,[A-Za-z0-9+/=]*' "$p/mocap/skin.gltf"); do
    printf '%s' "${uri#*,}" | base64 -d >"$p/mocap/Skin_$i.bin"
    sed -i "s|$uri|./Skin_$i.bin|" "$p/mocap/skin.gltf"
    i=$((i + 1))
done
[ "$i" = 4 ] || { echo "FAIL: simple_skin.gltf has $i buffers, not 4"; failures=$((failures + 1)); }
printf 'source = "mocap/skin.gltf"\n' >"$p/anims/skin.skeleton"
printf 'source = "mocap/skin.gltf" rate = 30\n' >"$p/anims/wave.clip"
run 0 "compiled 2, up to date 1, failed 0"
touch -d '+1 minute' "$p/mocap/Skin_3.bin"
run 0 "compiled 2, up to date 1, failed 0"
run 0 "compiled 0, up to date 3, failed 0"
rm "$p/mocap/Skin_1.bin"
run 1 "anims/skin.skeleton: source: .*buffers\[1\].uri: cannot open \"Skin_1.bin\";;anims/wave.clip: source: .*Skin_1.bin;;failed 2"
rm "$p/anims/skin.skeleton" "$p/anims/wave.clip"

# Misspelt and mistyped fields: file, field and the nearest known name, with or without --strict.
fields() {
    printf '%s\n' "$2" >"$p/anims/typo.$1"
    for strict in "" --strict; do
        run 1 "anims/typo.$1: $3" $strict
    done
    rm "$p/anims/typo.$1"
}
fields clip 'sorce = "mocap/01_01.bvh"' "sorce: unknown field \(did you mean 'source'\?\)"
fields clip 'source = "mocap/01_01.bvh" eror_mm = 1' "eror_mm: unknown field \(did you mean 'error_mm'\?\)"
fields clip 'source = "mocap/01_01.bvh" mode = 1' "mode: expected a string, not a number"
fields clip 'source = "mocap/01_01.bvh" rate = "fast"' "rate: expected a number, not a string"
fields clip 'source = "mocap/01_01.bvh" events = [ { tme = 0.1 name = "x" } ]' \
    "events\[0\].tme: unknown field \(did you mean 'time'\?\)"
fields clip 'source = "mocap/01_01.bvh" mode = "precison"' \
    "mode: \"precison\" is not one of \"spec\", \"precision\" \(did you mean 'precision'\?\)"
fields clip 'source = "mocap/01_01.bvh" error_mm = 0' "error_mm: must be in 0.001..1000, not 0"
fields skeleton 'source = "mocap/01_01.bvh" units = "furlong"' "units: \"furlong\" is not one of \"m\", \"cm\", \"mm\", \"inch\""
fields skeleton 'source = "mocap/01_01.bvh" unts = "cm"' "unts: unknown field \(did you mean 'units'\?\)"
fields skeleton 'source = "mocap/01_01.bvh" skin = [1 2]' "skin: expected a number, not an array"
unit() { printf 'entities = [ { name = "dude" components = { transform = {} animation = { %s } } } ]\n' "$1"; }
fields unit "$(unit 'skeleton = "anims/skel" looop = true')" \
    "entity 'dude': animation.looop: unknown field \(did you mean 'loop'\?\)"
fields unit "$(unit 'skeleton = "anims/skel" speed = "fast"')" \
    "entity 'dude': animation.speed: expected a number, not a string"
fields unit "$(unit 'skeleton = "anims/skel" speed = 2000')" \
    "entity 'dude': animation.speed: must be in -1000..1000, not 2000"
run 0 "compiled 0, up to date 1, failed 0"

# Clips by name (issue 22): the Blender-style walker's "Walk"; a misspelt name gets the nearest
# one and the list; a clip over its target says why (bone, chain, units) and what to try.
cp "$GLTF_TEST_DIR/walker.gltf" "$GLTF_TEST_DIR/checker.png" "$p/mocap/"
printf 'source = "mocap/walker.gltf" animation = "Walk" mode = "precision"\n' >"$p/anims/walker.clip"
run 0 "compiled 1, up to date 1, failed 0"
printf 'source = "mocap/walker.gltf" animation = "Wlak"\n' >"$p/anims/walker.clip"
run 1 "anims/walker.clip: animation: no animation 'Wlak' \(did you mean 'Walk'\?\); the file has Walk \(1.00 s\), Idle \(2.00 s\)"
printf 'source = "mocap/walker.gltf" animation = "Idle" units = 100 mode = "precision"\n' >"$p/anims/walker.clip"
run 0 "anims/walker.clip: error_mm: precision mode misses its 0.5 mm target: .* at bone '.*' .*centimetres read as metres.*Try: error_mm ="
printf 'source = "mocap/walker.gltf" animation = "Walk"\n' >"$p/anims/walker.clip"
printf 'source = "mocap/01_01.bvh" animation = "Walk"\n' >"$p/anims/bvh_named.clip"
run 1 "anims/bvh_named.clip: animation: 'Walk' names a glTF animation, but a BVH file holds one motion"
rm "$p/anims/bvh_named.clip" "$p/anims/walker.clip"

# cuttle-anim-report: help, listing, names, exit 3 over target with the reason.
CUTTLE=$ANIM_REPORT
expect 0 "^usage: cuttle-anim-report;;--list;;Exit status" --help
expect 2 "^usage: cuttle-anim-report" --frobnicate
expect 0 '"animation":0,"name":"Walk","duration_s":1.0000;;"animation":1,"name":"Idle","duration_s":2.0000' --list "$p/mocap/walker.gltf"
expect 1 "no animation 'Wlak' \(did you mean 'Walk'\?\)" --animation Wlak "$p/mocap/walker.gltf"
expect 0 '"mode":"precision".*"target_mm":0.5' --animation Walk "$p/mocap/walker.gltf"
expect 3 "precision mode misses its 0.5 mm target.*centimetres read as metres" --animation Walk --units 100 "$p/mocap/walker.gltf"
CUTTLE=$CUTTLE_COMPILE

# The mechanism is the resource system's: rendering's meshes, which name their OBJ or glTF through
# source_file, are compiled again when only that file (or a .bin of the glTF) changes, and fail
# naming it when it is gone.
p=$scratch/meshes
mkdir -p "$p/meshes"
printf 'modules = ["ct.entities" "ct.transforms" "ct.rendering"]\n' >"$p/project.sjson"
cp "$PROJECTS_DIR/demo/meshes/crate.obj" "$PROJECTS_DIR/demo/meshes/crate.mesh" "$p/meshes/"
run 0 "compiled 1, up to date 0, failed 0"
touch -d '+1 minute' "$p/meshes/crate.obj"
run 0 "compiled 1, up to date 0, failed 0"
run 0 "compiled 0, up to date 1, failed 0"
rm "$p/meshes/crate.obj"
run 1 "meshes/crate.mesh: mesh.source: 'meshes/crate.obj': No such file;;failed 1"
rm "$p/meshes/crate.mesh"
# A glTF mesh notes the .bin it reads (ct_resource_api_v4.depends_on).
cp "$ASSIMP_MODELS/glTF2/BoxTextured-glTF/BoxTextured.gltf" "$p/meshes/box.gltf"
cp "$ASSIMP_MODELS/glTF2/BoxTextured-glTF/BoxTextured0.bin" "$p/meshes/"
printf 'source = "meshes/box.gltf"\n' >"$p/meshes/box.mesh"
run 0 "compiled 1, up to date 0, failed 0"
touch -d '+1 minute' "$p/meshes/BoxTextured0.bin"
run 0 "compiled 1, up to date 0, failed 0"
run 0 "compiled 0, up to date 1, failed 0"
rm "$p/meshes/BoxTextured0.bin"
run 1 "meshes/box.mesh: mesh.source: .*buffers\[0\].uri: cannot open \"BoxTextured0.bin\";;failed 1"
finish
