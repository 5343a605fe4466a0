-- The gameplay script every worker state holds. Handlers touch the entities of their event and
-- send the rest to the main state as effects.
fields = {"health", "gold", "hits"}

local GOLD_PER_GEM = 3 -- a constant is fine: it is never assigned after loading

function on_pickup(player, gem)
  local gold = Islands.get(gem, "gold")
  Islands.set(gem, "gold", 0)
  Islands.emit("score", player, gold + GOLD_PER_GEM * 0, Islands.get(player, "health"))
end

function on_hit(bullet, target, damage)
  local hits = Islands.get(bullet, "hits") + 1
  Islands.set(bullet, "hits", hits)
  local health = Islands.get(target, "health") - damage * hits
  Islands.set(target, "health", health)
  if health <= 0 then Islands.emit("died", target) end
end

function on_cheat(e)
  counter = 1 -- a global: refused, islands share nothing
end

function on_reach(e, other)
  Islands.set(other + 1, "health", 0) -- not this event's entity: refused
end
