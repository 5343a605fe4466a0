#!/usr/bin/env bash
# Misspelt and mistyped fields in the rendering and networking sources: their compilers check
# fields through ct_resource_api_v3.check_fields, as entities, transforms and physics do
# (test_fields.sh), so the message names the file, the entity or resource, the field and the
# nearest known name, with or without --strict.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"
p=$scratch/project
mkdir -p "$p/levels" "$p/materials" "$p/meshes"
printf 'modules = ["ct.entities" "ct.transforms" "ct.rendering" "ct.networking"]\n' >"$p/project.sjson"
CUTTLE=$CUTTLE_COMPILE

# source FILE TEXT: the project's only source file (the others are removed).
source_file() {
    rm -f "$p"/levels/* "$p"/materials/* "$p"/meshes/* "$p"/*.render_config
    printf '%s\n' "$2" >"$p/$1"
}
compile_fails() {
    for strict in "" --strict; do
        expect 1 "$1" --project "$p" --modules "$CUTTLE_MODULES" $strict
    done
}
level() { source_file levels/typo.level "entities = [ { name = \"crate\" components = { $1 } } ]"; }

# Components of an entity: the file, the entity, the field and the nearest name.
level 'camera = { fvo = 60 }'
compile_fails "levels/typo.level: entity 'crate': camera.fvo: unknown field \(did you mean 'fov'\?\)"
level 'light = { intensty = 2 }'
compile_fails "levels/typo.level: entity 'crate': light.intensty: unknown field \(did you mean 'intensity'\?\)"
level 'light = { type = 1 }'
compile_fails "levels/typo.level: entity 'crate': light.type: expected a string, not a number"
level 'mesh = { mesh = "meshes/cube" materal = "materials/red" }'
compile_fails "levels/typo.level: entity 'crate': mesh.materal: unknown field \(did you mean 'material'\?\)"
level 'network = { replicat = true }'
compile_fails "levels/typo.level: entity 'crate': network.replicat: unknown field \(known: none\)"
compile_fails "levels/typo.level: entity 'crate': network: the component takes no fields"
# Rendering's own resources: the file and the field.
source_file materials/red.material 'program = "unlit" colr = [1 0 0]'
compile_fails "materials/red.material: material.colr: unknown field \(did you mean 'color'\?\)"
source_file materials/red.material 'program = 3'
compile_fails "materials/red.material: material.program: expected a string, not a number"
source_file meshes/cube.mesh 'sorce = "cube.obj"'
compile_fails "meshes/cube.mesh: mesh.sorce: unknown field \(did you mean 'source'\?\)"
source_file default.render_config 'layers = [ { name = "a" srot = "back_to_front" } ]'
compile_fails "default.render_config: layers\[\].srot: unknown field \(did you mean 'sort'\?\)"
source_file default.render_config 'resolutoin = [640 360] layers = [ { name = "a" } ]'
compile_fails "default.render_config: render_config.resolutoin: unknown field \(did you mean 'resolution'\?\)"
source_file default.render_config 'layers = [ { name = "a" fullscreen = 1 } ]'
compile_fails "default.render_config: layers\[\].fullscreen: expected an object, not a number"
# And the right spelling compiles.
source_file levels/typo.level 'entities = [ { name = "crate" components = { camera = { fov = 60 } light = { intensity = 2 } network = {} } } ]'
expect 0 "" --project "$p" --modules "$CUTTLE_MODULES" --strict
source_file materials/red.material 'program = "unlit" color = [1 0 0]'
expect 0 "" --project "$p" --modules "$CUTTLE_MODULES" --strict
finish
