/* The World and Entity Lua bindings, driven from Lua source run through ct_lua_api_v1. */
#include <string.h>

#include "fixture.h"

static void run(const char *code) { assert_int_equal(fx.lua->run_string(code, "=test"), 0); }

static void worlds_entities_and_names(void **state)
{
    (void)state;
    const char unit[] = "entities = [ { components = { debug_name = { name = \"crate\" } } } ]";
    assert_int_equal(fx.resource->load_source("unit", "crate", unit, sizeof unit - 1), 0);
    run("local w = World.create()\n"
        "local e = World.spawn_unit(w, 'crate', 1, 2, 3)\n"
        "assert(type(e) == 'number' and Entity.alive(e))\n"
        "assert(World.debug_name(w, e) == 'crate')\n"
        "assert(World.set_debug_name(w, e, 'box'))\n"
        "assert(World.debug_name(w, e) == 'box')\n"
        "local r = World.spawn_unit(w, 'crate', 0, 0, 0, 0, 0, 0, 1)\n"
        "assert(Entity.count() == 2)\n"
        "Entity.destroy(e)\n"
        "assert(not Entity.alive(e) and World.debug_name(w, e) == nil)\n"
        "assert(not World.set_debug_name(w, e, 'dead'))\n"
        "local n, why = World.spawn_level(w, 'nowhere')\n"
        "assert(n == nil and type(why) == 'string')\n"
        "assert(World.spawn_unit(w, 'nowhere', 0, 0, 0) == nil)\n"
        "local f = Entity.create(); assert(Entity.alive(f)); Entity.destroy(f)\n"
        /* The spawn pose follows the transform rule: refused naming the unit and the field. */
        "local live = Entity.count()\n"
        "local ok, err = pcall(World.spawn_unit, w, 'crate', 0/0, 0, 0)\n"
        "assert(not ok and err:find(\"'crate'\") and err:find('position%[0%]'), err)\n"
        "ok, err = pcall(World.spawn_unit, w, 'crate', 0, 0, 1e300)\n"
        "assert(not ok and err:find('position%[2%]'), err)\n"
        "ok, err = pcall(World.spawn_unit, w, 'crate', 0, 0, 0, 0, 0, 0, 0)\n"
        "assert(not ok and err:find('does not normalise: its length is zero or nearly'), err)\n"
        "ok, err = pcall(World.spawn_unit, w, 'crate', 0, 0, 0, 1e30, 0, 0, 1)\n"
        "assert(not ok and err:find('rotation = %[1e%+30 0 0 1%] does not normalise: its length "
        "overflows a float'), err)\n"
        "ok, err = pcall(World.spawn_unit, w, 'crate', 0, 0, 0, 0, math.huge, 0, 1)\n"
        "assert(not ok and err:find('rotation%[1%]'), err)\n"
        "assert(Entity.count() == live)\n"
        "local turned = World.spawn_unit(w, 'crate', 0, 0, 0, 0, 0, 3, 4)\n"
        "assert(turned and Entity.alive(turned))\n"
        "Entity.destroy(turned)\n"
        "Entity.destroy(r)\n"
        "World.collect_garbage(w)\n"
        "World.destroy(w)\n"
        "assert(not pcall(World.debug_name, w, e))\n"
        "local ok, err = pcall(World.destroy, nil)\n"
        "assert(not ok and err:find('World.destroy: argument 1 is not a world %(got nil%)'), err)\n"
        "ok, err = pcall(World.destroy, w)\n"
        "assert(not ok and err:find('not a live world'), err)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

static void script_callbacks(void **state)
{
    (void)state;
    run("W = World.create()\n"
        "A, B, C = Entity.create(), Entity.create(), Entity.create()\n"
        "hits = {}\n"
        "World.set_callback(W, A, 'on_collision', function(e, x, y) hits[#hits + 1] = e + x + y "
        "end)\n"
        "World.set_callback(W, B, 'on_collision', function(e) error('boom') end)\n"
        "World.set_callback(W, C, 'on_collision', function(e, x) hits[#hits + 1] = -x end)\n");
    /* Events for a dead entity or a callback nobody set are dropped; a failing callback is
     * reported and the rest still run. */
    run("World.queue_callback(W, A, 'on_collision', 1, 2)\n"
        "World.queue_callback(W, B, 'on_collision')\n"
        "World.queue_callback(W, C, 'on_collision', 5)\n"
        "World.queue_callback(W, C, 'on_other', 5)\n"
        "Entity.destroy(C)\n"
        "World.queue_callback(W, A, 'on_collision', 10, 20)\n"
        "local ran = World.run_callbacks(W)\n"
        "assert(ran == 3, 'ran ' .. ran)\n" /* A twice, B (which fails); C died, on_other unset */
        "assert(#hits == 2 and hits[1] == A + 3 and hits[2] == A + 30)\n"
        "assert(World.run_callbacks(W) == 0)\n"
        "World.destroy(W)\n"
        "Entity.destroy(A); Entity.destroy(B)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

static void queue_callback_from_c(void **state)
{
    (void)state;
    ct_world_o *w = fx.world->create_world(NULL);
    ct_entity_t e = fx.entity->create();
    const double args[2] = {4, 5};
    assert_int_equal(fx.world->queue_callback(w, e, "on_hit", args, 2), 0);
    assert_int_equal(fx.world->queue_callback(w, e, "", args, 0), CT_ERR_INVALID);
    assert_int_equal(fx.world->queue_callback(w, e, "on_hit", args, 17), CT_ERR_INVALID);
    assert_int_equal(fx.world->queue_callback(NULL, e, "on_hit", args, 1), CT_ERR_INVALID);
    /* Hand the world and entity to Lua as the bindings would. */
    lua_State *L = fx.lua->main_state();
    fx.lua->push_light_userdata(L, w);
    fx.lua->push_number(L, e.id);
    run("function take_world(w, e) CW, CE = w, e end");
    assert_int_equal(fx.lua->call_global("take_world", 2), 0);
    run("local got\n"
        "World.set_callback(CW, CE, 'on_hit', function(e, a, b) got = a * b end)\n"
        "assert(World.run_callbacks(CW) == 1 and got == 20)\n");
    fx.entity->destroy(e);
    fx.world->destroy_world(w);
}

/* Dead entities' callback tables are dropped: the Lua heap stays flat over many cycles. */
static void callbacks_of_dead_entities_are_dropped(void **state)
{
    (void)state;
    run("local w = World.create()\n"
        "local keep = Entity.create()\n"
        "World.set_callback(w, keep, 'on_hit', function() end)\n"
        "collectgarbage('collect')\n"
        "local before = collectgarbage('count')\n"
        "for i = 1, 100000 do\n"
        "  local e = Entity.create()\n"
        "  World.set_callback(w, e, 'on_hit', function() end)\n"
        "  Entity.destroy(e)\n"
        "end\n"
        "collectgarbage('collect')\n"
        "local grown = collectgarbage('count') - before\n"
        "assert(grown < 256, 'the Lua heap grew by ' .. grown .. ' KB')\n"
        "World.queue_callback(w, keep, 'on_hit')\n"
        "assert(World.run_callbacks(w) == 1)\n"
        "World.set_callback(w, keep, 'on_hit', nil)\n"
        "World.queue_callback(w, keep, 'on_hit')\n"
        "assert(World.run_callbacks(w) == 0)\n"
        "assert(not pcall(World.set_callback, {}, keep, 'on_hit', print))\n"
        "Entity.destroy(keep)\n"
        "World.destroy(w)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

/* A run that a callback leaves by yielding (never resumed) or by an error out of the run does not
 * block the next; a callback running its own world's callbacks is refused. */
static void an_abandoned_run_does_not_block_the_next(void **state)
{
    (void)state;
    run("W = World.create()\n"
        "A = Entity.create()\n"
        "seen = {}\n"
        "World.set_callback(W, A, 'on_yield', function(e) coroutine.yield() end)\n"
        "World.set_callback(W, A, 'on_count', function(e, x) seen[#seen + 1] = x end)\n"
        "World.set_callback(W, A, 'on_nest', function(e)\n"
        "  local ok, err = pcall(World.run_callbacks, W)\n"
        "  seen[#seen + 1] = (not ok and err:find('already running')) and 'refused' or 'ran'\n"
        "end)\n"
        "World.queue_callback(W, A, 'on_yield')\n"
        "World.queue_callback(W, A, 'on_count', 1)\n"
        "local co = coroutine.create(World.run_callbacks)\n"
        "assert(coroutine.resume(co, W))\n"
        "assert(coroutine.status(co) == 'suspended')\n"
        "World.queue_callback(W, A, 'on_count', 2)\n"
        "World.queue_callback(W, A, 'on_nest')\n"
        "assert(World.run_callbacks(W) == 2)\n"
        "assert(#seen == 2 and seen[1] == 2 and seen[2] == 'refused', tostring(seen[1]))\n"
        /* The superseded run, resumed, reads nothing more. */
        "assert(coroutine.resume(co))\n"
        "assert(coroutine.status(co) == 'dead' and #seen == 2)\n"
        /* An error out of the run (a callback destroying the world the run reads). */
        "World.set_callback(W, A, 'on_end', function(e) World.destroy(W) end)\n"
        "World.queue_callback(W, A, 'on_end')\n"
        "World.queue_callback(W, A, 'on_count', 3)\n"
        "assert(not pcall(World.run_callbacks, W))\n"
        "W = World.create()\n"
        "World.set_callback(W, A, 'on_count', function(e, x) seen[#seen + 1] = x end)\n"
        "World.queue_callback(W, A, 'on_count', 4)\n"
        "assert(World.run_callbacks(W) == 1 and seen[3] == 4)\n"
        "World.destroy(W)\n"
        "Entity.destroy(A)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

/* A world handle kept past World.destroy never names a world created later (the old code handed
 * out addresses, and the next world usually got the same one). */
/* An id that is no entity id raises, naming the function and the argument; before, 1.5 and -1
 * became entity 0 and Entity.destroy(1.5) did nothing. */
static void bad_entity_ids_raise(void **state)
{
    (void)state;
    run("local e = Entity.create()\n"
        "local ok, err = pcall(Entity.destroy, 1.5)\n"
        "assert(not ok and err:find('Entity.destroy: argument 1 is not an entity id %(got 1.5%)'), "
        "err)\n"
        "ok, err = pcall(Entity.alive, -1)\n"
        "assert(not ok and err:find('Entity.alive: argument 1 is not an entity id %(got %-1%)'), "
        "err)\n"
        "ok, err = pcall(Entity.destroy, 0)\n"
        "assert(not ok and err:find('argument 1 is not an entity id'), err)\n"
        "ok, err = pcall(Entity.destroy, 'x')\n"
        "assert(not ok and err:find('Entity.destroy: argument 1 is not an entity id %(got a "
        "string%)'), err)\n"
        "ok, err = pcall(Entity.destroy, 2^32)\n"
        "assert(not ok, 'an id of 33 bits')\n"
        "assert(Entity.alive(e))\n"
        "Entity.destroy(e)\n"
        "assert(not Entity.alive(e))\n"
        /* The run number run_callbacks passes on: -122 converted to uint32_t was undefined
         * behaviour (hardening_fuzz_lua_args under float-cast-overflow). */
        "local w = World.create()\n"
        "for _, run in ipairs({-122, 2^40, 0/0}) do\n"
        "  ok, err = pcall(World._next_callback, w, run)\n"
        "  assert(not ok and err:find('World.run_callbacks: argument 2 is not a number in %[0, "
        "4.29497e%+09%]'), err)\n"
        "end\n"
        "assert(World._next_callback(w, 7) == nil)\n"
        "World.destroy(w)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

static void stale_world_handles_are_refused(void **state)
{
    (void)state;
    run("for i = 1, 50 do\n"
        "  local old = World.create()\n"
        "  World.destroy(old)\n"
        "  local new = World.create()\n"
        "  assert(old ~= new)\n"
        "  local ok, err = pcall(World.destroy, old)\n"
        "  assert(not ok and err:find('not a live world'), err)\n"
        "  assert(not pcall(World.collect_garbage, old))\n"
        "  assert(World.collect_garbage(new) == nil)\n"
        "  local e = Entity.create()\n"
        "  assert(World.set_debug_name(new, e, 'kept'))\n"
        "  assert(World.debug_name(new, e) == 'kept')\n"
        "  Entity.destroy(e)\n"
        "  World.destroy(new)\n"
        "end\n");
    /* The error names the function and the script line that called it, also for the functions
     * written in Lua (it used to say "entities_lua:9: argument 1 is not a live world"). */
    run("local w = World.create()\n"
        "World.destroy(w)\n"
        "for _, fn in ipairs({'destroy', 'run_callbacks', 'set_callback', 'spawn_level',\n"
        "                     'collect_garbage', 'debug_name', 'queue_callback'}) do\n"
        "  local ok, err = pcall(function() World[fn](w, 1, 'x', nil) end)\n"
        "  local want = '^test:5: World%.' .. fn .. ': argument 1 is not a live world'\n"
        "  assert(not ok and err:find(want), err)\n"
        "end\n");
    ct_world_o *old = fx.world->create_world(NULL);
    fx.world->destroy_world(old);
    ct_world_o *fresh = fx.world->create_world(NULL);
    assert_ptr_not_equal(old, fresh);
    fx.world->destroy_world(old); /* logged, and the fresh world is untouched */
    assert_null(fx.component->manager(old, fx.component->type_id("debug_name")));
    assert_non_null(fx.component->manager(fresh, fx.component->type_id("debug_name")));
    ct_entity_t e = fx.entity->create();
    assert_int_equal(fx.debug_name->set(old, e, "x"), CT_ERR_INVALID);
    assert_int_equal(fx.debug_name->set(fresh, e, "x"), 0);
    assert_true(fx.world->queue_callback(old, e, "on_x", NULL, 0) < 0);
    fx.entity->destroy(e);
    fx.world->destroy_world(fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(worlds_entities_and_names, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(script_callbacks, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(queue_callback_from_c, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(callbacks_of_dead_entities_are_dropped, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(an_abandoned_run_does_not_block_the_next, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(stale_world_handles_are_refused, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(bad_entity_ids_raise, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
