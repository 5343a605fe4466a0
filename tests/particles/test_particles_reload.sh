#!/usr/bin/env bash
# An effect in use follows its source: a project's script edits effects/f.particles while it runs,
# and the emitter's particle moves by the new velocity expression from the next frames on.
# usage: test_particles_reload.sh CUTTLE CUTTLE_COMPILE MODULES_DIR
set -euo pipefail
cuttle=$(realpath "$1") compile=$(realpath "$2") modules=$(realpath "$3")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/effects"
cat > "$dir/project.sjson" <<'SJSON'
boot_script = "boot.lua"
frames = 20
modules = ["ct.entities" "ct.transforms" "ct.expr" "ct.particles"]
SJSON
echo 'burst = 1 lifetime = 100 velocity = "vx = 1; vy = 0; vz = 0"' > "$dir/effects/f.particles"
cat > "$dir/boot.lua" <<'LUA'
local w, e, frame = nil, nil, 0
function init() w = World.create(); e = Particles.spawn(w, "effects/f", 0, 0, 0) end
function update(dt)
  frame = frame + 1
  Particles.simulate(w, 0.1)
  local _, _, _, vx = Particles.particle(w, e, 1)
  if frame == 3 then
    assert(vx == 1, vx)
    local f = assert(io.open("effects/f.particles", "w"))
    f:write('burst = 1 lifetime = 100 velocity = "vx = 7; vy = 0; vz = 0"\n')
    f:close()
  end
  if frame == 20 then print("reloaded vx " .. vx) end
end
LUA
"$compile" --project "$dir" --modules "$modules" > /dev/null
out=$(cd "$dir" && "$cuttle" --project . --modules "$modules" --strict --frames 20 2>&1)
echo "$out" | grep -q "reloaded vx 7" || { echo "$out"; echo "the effect's new source was not used"; exit 1; }
echo "particles: an edited effect took over its running emitter"
