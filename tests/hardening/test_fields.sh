#!/usr/bin/env bash
# Misspelt and mistyped fields in source data (issue 7): every compiler checks the fields it reads
# through ct_resource_api_v2.check_fields, and the message names the file, the entity, the field
# and the nearest known name, with or without --strict.
set -uo pipefail
source "$HARDENING_DIR/lib.sh"
p=$scratch/project
mkdir -p "$p/levels"
printf 'modules = ["ct.entities" "ct.transforms" "ct.physics"]\n' >"$p/project.sjson"
CUTTLE=$CUTTLE_COMPILE

# level ENTITY_SJSON: writes levels/typo.level with one entity named "crate".
level() { printf 'entities = [ { name = "crate" %s } ]\n' "$1" >"$p/levels/typo.level"; }
compile_fails() {
    for strict in "" --strict; do
        expect 1 "levels/typo.level: entity 'crate': $1" --project "$p" --modules "$CUTTLE_MODULES" $strict
    done
}

level 'componets = { transform = {} }'
compile_fails "componets: unknown field \(did you mean 'components'\?\)"
level 'transform = { position = [1 2 3] }'
compile_fails "transform: a component belongs inside components = \{ ... \}"
level 'components = { body = { masss = 10 } }'
compile_fails "body.masss: unknown field \(did you mean 'mass'\?\)"
level 'components = { body = { frction = 0.5 } }'
compile_fails "body.frction: unknown field \(did you mean 'friction'\?\)"
level 'components = { body = { mass = "heavy" } }'
compile_fails "body.mass: expected a number, not a string"
level 'components = { body = { velocity = [1 2] } }'
compile_fails "body.velocity: expected an array of 3 numbers, not 2 values"
level 'components = { point_mass = { mas = 1 } }'
compile_fails "point_mass.mas: unknown field \(did you mean 'mass'\?\)"
level 'components = { transform = { positon = [0 0 0] } }'
compile_fails "transform.positon: unknown field \(did you mean 'position'\?\)"
level 'components = { transform = { scale = [1 "2" 1] } }'
compile_fails "transform.scale\[1\]: expected a finite number, not a string"
level 'components = { transform = {} } repeat = { count = 3 spcing = [1 0 0] }'
compile_fails "repeat.spcing: unknown field \(did you mean 'spacing'\?\)"
level 'components = { transform = {} } repeat = { count = 3 spacing = ["a" "b" "c"] }'
compile_fails "repeat.spacing\[0\]: expected a finite number, not a string"
level 'components = { debug_name = { nmae = "x" } }'
compile_fails "debug_name.nmae: unknown field \(did you mean 'name'\?\)"
level 'components = { transform = {} } zzzzzz = 1'
compile_fails "zzzzzz: unknown field \(known: id, name, components, children, repeat\)"
# An unknown component type is skipped with a warning (an error under --strict), with the nearest.
level 'components = { trasform = {} }'
expect 1 "unknown component type 'trasform'" --project "$p" --modules "$CUTTLE_MODULES" --strict
expect 0 "entity 'crate': unknown component type 'trasform' \(skipped\); did you mean 'transform'\?" \
    --project "$p" --modules "$CUTTLE_MODULES"
# A child entity is named too.
printf 'entities = [ { name = "parent" children = [ { name = "kid" components = { body = { kindd = "static" } } } ] } ]\n' \
    >"$p/levels/typo.level"
expect 1 "levels/typo.level: entity 'kid': body.kindd: unknown field \(did you mean 'kind'\?\)" \
    --project "$p" --modules "$CUTTLE_MODULES"
# And the right spelling compiles.
level 'components = { transform = { position = [0 1 0] } body = { mass = 2 friction = 0.5 } } repeat = { count = 3 spacing = [1 0 0] }'
expect 0 "" --project "$p" --modules "$CUTTLE_MODULES" --strict
finish
