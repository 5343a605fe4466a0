/* World.spawn handles, World.find and components added to and removed from live entities
 * (modules/entities/entities_handles.c), driven from Lua. */
#include <string.h>

#include "fixture.h"

static void run(const char *code) { assert_int_equal(fx.lua->run_string(code, "=test"), 0); }

static const char robot[] =
    "entities = [\n"
    "  { components = { debug_name = { name = \"robot\" } }\n"
    "    children = [\n"
    "      { components = { debug_name = { name = \"arm\" } }\n"
    "        children = [ { components = { debug_name = { name = \"hand\" } } } ] }\n"
    "      { components = { debug_name = { name = \"leg\" } }\n"
    "        children = [ { components = { debug_name = { name = \"hand\" } } } ] }\n"
    "    ] }\n"
    "]";

static void spawn_handles_list_and_find(void **state)
{
    (void)state;
    assert_int_equal(fx.resource->load_source("unit", "robot", robot, sizeof robot - 1), 0);
    run("local w = World.create()\n"
        "local h = World.spawn(w, 'unit', 'robot', 1, 2, 3)\n"
        "assert(h:count() == 5, h:count())\n"
        "local list = h:entities()\n"
        "assert(list[1] == h.root and World.debug_name(w, h.root) == 'robot')\n"
        "assert(World.debug_name(w, h:find('arm')) == 'arm')\n"
        /* 'hand' alone is the first in resource order (the arm's); a path tells them apart. */
        "local arm_hand, leg_hand = h:find('arm/hand'), h:find('robot/leg/hand')\n"
        "assert(arm_hand and leg_hand and arm_hand ~= leg_hand)\n"
        "assert(h:find('hand') == arm_hand)\n"
        "assert(h:parent(leg_hand) == h:find('leg') and h:parent(h.root) == nil)\n"
        "assert(h:find('leg/arm') == nil and h:find('nobody') == nil)\n"
        "assert(#h:children(h.root) == 2 and h:child(h.root, 'leg') == h:find('leg'))\n"
        "assert(#h:children() == 1 and h:children()[1] == h.root)\n"
        "assert(not pcall(h.find, h, ''))\n"
        "assert(not pcall(h.children, h, 123456))\n"
        /* World.find walks the world's names: two robots, four hands. */
        "local h2 = World.spawn(w, 'unit', 'robot')\n"
        "assert(World.find(w, 'robot') == h.root)\n"
        "assert(#World.find_all(w, 'hand') == 4 and World.find(w, 'nose') == nil)\n"
        "Entity.destroy(h.root)\n"
        "assert(World.find(w, 'robot') == h2.root)\n"
        "local ok, err = pcall(World.spawn, w, 'thing', 'robot')\n"
        "assert(not ok and err:find(\"'unit' or 'level'\"), err)\n"
        "ok, err = pcall(World.spawn, w, 'unit', 'nowhere')\n"
        "assert(not ok and err:find(\"unit 'nowhere' did not load\"), err)\n"
        "for _, e in ipairs(h:entities()) do if Entity.alive(e) then Entity.destroy(e) end end\n"
        "for _, e in ipairs(h2:entities()) do Entity.destroy(e) end\n"
        "World.destroy(w)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

static void components_at_run_time(void **state)
{
    (void)state;
    run("local w = World.create()\n"
        "local e = Entity.create()\n"
        "assert(World.debug_name(w, e) == nil)\n"
        "assert(World.add_component(w, e, 'debug_name', { name = 'late' }))\n"
        "assert(World.debug_name(w, e) == 'late' and World.find(w, 'late') == e)\n"
        "assert(World.add_component(w, e, 'debug_name', '{ name = \"later\" }'))\n"
        "assert(World.debug_name(w, e) == 'later')\n"
        "assert(World.remove_component(w, e, 'debug_name'))\n"
        "assert(World.debug_name(w, e) == nil)\n"
        /* Bad uses raise errors naming what is wrong. */
        "local ok, err = pcall(World.add_component, w, e, 'debug_name', { nmae = 'x' })\n"
        "assert(not ok and err:find(\"'debug_name' did not compile\"), err)\n"
        "ok, err = pcall(World.add_component, w, e, 'wings', {})\n"
        "assert(not ok and err:find(\"'wings' is not a registered component type\"), err)\n"
        "ok, err = pcall(World.add_component, w, e, 'debug_name', { name = 0/0 })\n"
        "assert(not ok and err:find('not finite'), err)\n"
        "local dead = Entity.create(); Entity.destroy(dead)\n"
        "ok, err = pcall(World.add_component, w, dead, 'debug_name', { name = 'x' })\n"
        "assert(not ok and err:find('not a live entity'), err)\n"
        "Entity.destroy(e)\n"
        "World.destroy(w)\n");
    assert_int_equal(fx.entity->live_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(spawn_handles_list_and_find, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(components_at_run_time, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
