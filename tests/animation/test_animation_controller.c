/*
 * Animation controllers (modules/animation/animation_controller.c): a two-bone arm whose clip
 * turns it 90 degrees in one second plays at the speed its `speed` expression gives from the
 * variables a script sets, and a crossfade blends by its `weight` expression instead of the fade
 * clock; bad expressions and unknown variables raise errors naming them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_kernel.h"

static void run(const test_world_t *t, const char *code)
{
    if (t->lua->run_string(code, "=test"))
        fail_msg("Lua failed:\n%s", code);
}

static void controllers_drive_speed_and_weight(void **state)
{
    (void)state;
    const char *paths[] = {
        CT_TEST_MODULE("entities", "ct_entities"), CT_TEST_MODULE("transforms", "ct_transforms"),
        CT_TEST_MODULE("expr", "ct_expr"), CT_TEST_MODULE("animation", "ct_animation")};
    const kernel_desc_t desc = test_kernel_desc(paths, 4);
    const test_world_t *t = test_world_boot(&desc, "controlled");
    static const char turn[] = "bvh = \"HIERARCHY\\nROOT shoulder\\n{\\nOFFSET 0 0 0\\nCHANNELS 1 "
                               "Zrotation\\nJOINT hand\\n{\\nOFFSET 0 1 0\\n}\\n}\\nMOTION\\n"
                               "Frames: 2\\nFrame Time: 1\\n0\\n90\\n\"";
    static const char hold[] = "bvh = \"HIERARCHY\\nROOT shoulder\\n{\\nOFFSET 0 0 0\\nCHANNELS 1 "
                               "Zrotation\\nJOINT hand\\n{\\nOFFSET 0 1 0\\n}\\n}\\nMOTION\\n"
                               "Frames: 2\\nFrame Time: 1\\n0\\n0\\n\"";
    static const char unit[] = "entities = [ { components = { transform = {} animation = { "
                               "skeleton = \"arm\" clip = \"turn\" } } } ]";
    char clip[sizeof turn + 32];
    assert_int_equal(t->resource->load_source("skeleton", "arm", turn, sizeof turn - 1), 0);
    snprintf(clip, sizeof clip, "mode = \"precision\" %s", turn);
    assert_int_equal(t->resource->load_source("clip", "turn", clip, strlen(clip)), 0);
    snprintf(clip, sizeof clip, "mode = \"precision\" %s", hold);
    assert_int_equal(t->resource->load_source("clip", "hold", clip, strlen(clip)), 0);
    assert_int_equal(t->resource->load_source("unit", "arm", unit, sizeof unit - 1), 0);
    const ct_entity_t e = t->worlds->spawn_unit(t->world, "arm", NULL, NULL);
    assert_true(e.id != 0);
    char code[4096];
    snprintf(
        code, sizeof code,
        "local e = %u\n"
        "function controlled(w)\n"
        "  Animation.set_controller(w, e, {variables = {'gait', 'lean'}, speed = 'gait * 0.5'})\n"
        "  assert(Animation.variable(w, e, 'gait') == 0)\n"
        "  Animation.evaluate(w, 0.5)\n"
        "  assert(Animation.time(w, e) == 0, Animation.time(w, e))\n"
        "  Animation.set_variable(w, e, 'gait', 1)\n"
        "  Animation.evaluate(w, 0.5)\n"
        "  assert(Animation.time(w, e) == 0.25, Animation.time(w, e))\n"
        "  Animation.set_variable(w, e, 'gait', 2.5)\n"
        "  Animation.evaluate(w, 0.2)\n"
        "  assert(math.abs(Animation.time(w, e) - 0.5) < 1e-6, Animation.time(w, e))\n"
        "  local ok, why = pcall(Animation.set_variable, w, e, 'giat', 1)\n"
        "  assert(not ok and why:find(\"no variable 'giat' (did you mean 'gait'?)\", 1, true), "
        "why)\n"
        "  ok, why = pcall(Animation.set_controller, w, e, {variables = {'gait'}, speed = 'gait * "
        "(2 + '})\n"
        "  assert(not ok and why:find('speed: 1:12: expected an operand', 1, true), why)\n"
        "  ok, why = pcall(Animation.set_controller, w, e, {speed = 'gaitt'})\n"
        "  assert(not ok and why:find(\"unknown name 'gaitt'\", 1, true), why)\n"
        "  assert(not pcall(Animation.set_variable, w, e, 'gait', 0/0))\n"
        "  -- The crossfade's weight: 0 keeps the old clip (the arm at 90 degrees), 1 the new.\n"
        "  Animation.set_controller(w, e, {variables = {'blend'}, weight = 'blend'})\n"
        "  Animation.play(w, e, 'turn')\n"
        "  Animation.evaluate(w, 1)\n"
        "  Animation.crossfade(w, e, 'hold', 10)\n"
        "  Animation.evaluate(w, 1)\n"
        "  local hand = Animation.bone(w, e, 'hand')\n"
        "  local x, y = Transform.world_position(w, hand)\n"
        "  assert(math.abs(x + 1) < 1e-3 and math.abs(y) < 1e-3, x .. ' ' .. y)\n"
        "  Animation.set_variable(w, e, 'blend', 1)\n"
        "  Animation.evaluate(w, 1)\n"
        "  x, y = Transform.world_position(w, hand)\n"
        "  assert(math.abs(x) < 1e-3 and math.abs(y - 1) < 1e-3, x .. ' ' .. y)\n"
        "  Animation.set_controller(w, e, nil)\n"
        "  assert(not pcall(Animation.variable, w, e, 'blend'))\n"
        "end\n",
        e.id);
    run(t, code);
    test_lua_call("controlled", t->world, NULL, 0);
    t->entity->destroy(e);
    t->resource->unload("unit", "arm");
    test_world_shutdown(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(controllers_drive_speed_and_weight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
