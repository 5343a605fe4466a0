-- Spawns a unit with a health component, hurts it, lets it regenerate, then destroys it and
-- collects its instance.
local world, hero

function init()
    world = World.create()
    hero = assert(World.spawn_unit(world, "units/hero"))
    print("health: " .. Health.value(world, hero) .. " of 1 instance(s): " .. Health.count(world))
    print("after 30 damage: " .. Health.damage(world, hero, 30))
end

function update(dt)
    Health.regenerate(world, 0.5)
end

function shutdown()
    print("after 3 frames of regen: " .. Health.value(world, hero))
    Entity.destroy(hero)
    World.collect_garbage(world)
    print("instances after the hero died: " .. Health.count(world))
    World.destroy(world)
end
