-- `mode` (set with -e: 0 parallel, 1 one thread, 2 serial) picks how Islands.run handles events;
-- the printed lines must not depend on it.
local N = 2000
function init()
  Islands.load_script("handlers.lua")
  state = {entities = {}, score = 0, log = 0, died = 0, seed = 7, islands = 0, largest = 0}
  for i = 1, N do state.entities[i] = Entity.create() end
  state.player = state.entities[1]
  Islands.shared(state.player)
  Islands.set(state.player, "health", 100)
  for i = 2, N do
    Islands.set(state.entities[i], "health", 5 + i % 7)
    Islands.set(state.entities[i], "gold", i % 4)
  end
  Islands.on_effect("score", function(player, gold, health)
    state.score = state.score + gold
    state.log = (state.log * 31 + gold * 7 + player) % 4294967291
  end)
  Islands.on_effect("died", function(e)
    state.died = state.died + 1
    state.log = (state.log * 31 + e) % 4294967291
  end)
end

local function random(n)
  state.seed = (state.seed * 1103515245 + 12345) % 2147483648
  return 2 + state.seed % (n - 1)
end

function update(dt)
  local e = state.entities
  for k = 1, 1500 do
    if k % 3 == 0 then
      Islands.post("pickup", {state.player, e[random(N)]})
    else
      local a, b = random(N), random(N)
      Islands.post("hit", {e[a], e[b]}, 1 + k % 2)
    end
  end
  local s = Islands.run(mode or 0)
  assert(s.refused == 0 and s.errors == 0, "refused " .. s.refused .. ", errors " .. s.errors)
  state.islands, state.largest, state.threads = s.islands, math.max(state.largest, s.largest), s.threads
end

function shutdown()
  local h = 0
  for i = 1, N do
    h = (h * 31 + Islands.get(state.entities[i], "health") * 13 + Islands.get(state.entities[i], "hits")) % 4294967291
  end
  print(string.format("islands: score %d, %d died, effects %08x, fields %08x", state.score, state.died, state.log, h))
  io.stderr:write(string.format("islands: last frame %d islands, largest %d, on %d threads\n",
                                state.islands, state.largest, state.threads))
  -- The rules: a handler that assigns a global, or writes an entity its event does not name.
  Islands.post("cheat", {state.entities[5]})
  Islands.post("reach", {state.entities[6], state.entities[7]})
  local s = Islands.run(mode or 0)
  print(string.format("islands: rules: %d failed, %d refused", s.errors, s.refused))
end
