/* Hot reload of ct.animation in a booted kernel (copies of the modules in a temporary folder, as
 * a build would replace them): playing instances, their clocks and bones, loaded clips and the
 * event stream carry over; so do controllers (their expressions and variables, which used to be
 * lost: a script's set_variable raised "no controller" after a reload); the API table keeps its
 * address; Lua's Animation functions switch to the new code; a build with another state layout
 * is refused and the old code keeps running. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ct_animation.h"
#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_registry.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "plugins/loader.h"
#include "test_kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64] = "/tmp/ct_animation_reload_XXXXXX";
static char paths[3][128];

/* An arm turned from 0 to 90 degrees about z over one second, with an event at 0.5 s. */
#define ARM_BVH                                                                                    \
    "bvh = \"HIERARCHY\\nROOT shoulder\\n{\\nOFFSET 0 0 0\\nCHANNELS 1 Zrotation\\nJOINT hand\\n"  \
    "{\\nOFFSET 0 1 0\\n}\\n}\\nMOTION\\nFrames: 2\\nFrame Time: 1\\n0\\n90\\n\""

static void install(const char *built, const char *path)
{
    char part[160], cmd[1024];
    assert_true(snprintf(part, sizeof part, "%s.part", path) < (int)sizeof part);
    assert_true(snprintf(cmd, sizeof cmd, "cp '%s' '%s' && mv '%s' '%s'", built, part, part, path) <
                (int)sizeof cmd);
    assert_int_equal(system(cmd), 0);
}

/* The angle the arm has turned by. Between two keys the curve blends quaternion components and
 * normalises, not a slerp: within 0.02 rad of the even turn. */
static float hand_z_angle(const ct_transform_api_v2 *tf, ct_world_o *w, ct_entity_t hand)
{
    const ct_transform_matrix_t m = tf->world_matrix(w, tf->lookup(w, hand));
    return atan2f(-(m.m[3] - 10.0f), m.m[7]); /* the arm hangs from (10 0 0), 1 long */
}

static void reload_keeps_playing(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    const char *built[3] = {CT_TEST_MODULE("entities", "ct_entities"),
                            CT_TEST_MODULE("transforms", "ct_transforms"),
                            CT_TEST_MODULE("animation", "ct_animation")};
    const char *names[3] = {"ct_entities.so", "ct_transforms.so", "ct_animation.so"};
    const char *boot[4];
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, names[i]);
        install(built[i], paths[i]);
        boot[i] = paths[i];
    }
    boot[3] = CT_TEST_MODULE("expr", "ct_expr"); /* controllers' expressions; not reloaded */
    assert_int_equal(test_kernel_boot(boot, 4), 0);
    const ct_animation_api_v1 *anim = test_kernel_api(CT_ANIMATION_API, 1);
    const ct_world_api_v1 *worlds = test_kernel_api(CT_WORLD_API, 1);
    const ct_transform_api_v2 *tf = test_kernel_api(CT_TRANSFORM_API, 2);
    const ct_resource_api_v1 *resource = test_kernel_api(CT_RESOURCE_API, 1);
    const ct_lua_api_v1 *lua = test_kernel_api(CT_LUA_API, 1);
    const ct_registry_api_v1 *registry = test_kernel_api(CT_REGISTRY_API, 1);
    static const char skeleton[] = ARM_BVH;
    static const char clip[] =
        "mode = \"precision\" events = [ { time = 0.5 name = \"half\" } ] " ARM_BVH;
    static const char unit[] = "entities = [ { components = { transform = {} animation = { "
                               "skeleton = \"arm\" clip = \"arm\" loop = true } } } ]";
    assert_int_equal(resource->load_source("skeleton", "arm", skeleton, sizeof skeleton - 1), 0);
    assert_int_equal(resource->load_source("clip", "arm", clip, sizeof clip - 1), 0);
    assert_int_equal(resource->load_source("unit", "arm", unit, sizeof unit - 1), 0);
    ct_world_o *w = worlds->create_world(NULL);
    const ct_entity_t e = worlds->spawn_unit(w, "arm", (const float[3]){10, 0, 0}, NULL);
    const ct_entity_t hand = anim->bone(w, e, 1);
    assert_int_equal(lua->run_string("local time = Animation.time\n"
                                     "function arm_time(w, e) return time(w, e) end\n"
                                     "function arm_events(w) return #Animation.events(w) end\n"
                                     "function arm_control(w, e)\n"
                                     "  Animation.set_controller(w, e, {variables = {'gait'},\n"
                                     "                                  speed = 'gait * 2'})\n"
                                     "  Animation.set_variable(w, e, 'gait', 0.5)\n"
                                     "end\n"
                                     "function arm_gait(w, e, gait)\n"
                                     "  assert(Animation.variable(w, e, 'gait') == 0.5)\n"
                                     "  Animation.set_variable(w, e, 'gait', gait)\n"
                                     "end\n",
                                     "arm"),
                     0);
    /* A controller at speed gait * 2 = 1, so the clock runs as it would without one. */
    lua_State *L = lua->main_state();
    lua->push_light_userdata(L, w);
    lua->push_number(L, e.id);
    assert_int_equal(lua->call_global("arm_control", 2), 0);

    anim->evaluate(w, 0.4f);
    assert_float_equal(hand_z_angle(tf, w, hand), 0.4f * (float)M_PI / 2, 0.02);

    /* The same build again, twice: everything carries over, the table stays where it was. */
    for (uint32_t round = 1; round <= 2; round++) {
        install(built[2], paths[2]);
        assert_int_equal(loader__reload("ct.animation"), 0);
        ct_plugin_info_t info;
        assert_true(registry->plugin_info(registry->find_plugin("ct.animation"), &info));
        assert_int_equal(info.reload_count, round);
        assert_ptr_equal(test_kernel_api(CT_ANIMATION_API, 1), anim);
    }
    assert_float_equal(anim->time(w, e), 0.4f, 1e-6);
    anim->evaluate(w, 0.2f); /* passes the event at 0.5 s, in the new code */
    assert_float_equal(hand_z_angle(tf, w, hand), 0.6f * (float)M_PI / 2, 0.02);
    uint32_t size;
    assert_non_null(anim->events(w, &size));
    assert_int_equal(size, sizeof(ct_animation_event_header_t) + sizeof(ct_animation_event_t));
    lua->push_light_userdata(L, w);
    lua->push_number(L, e.id);
    assert_int_equal(lua->call_global("arm_time", 2), 0);
    lua->push_light_userdata(L, w);
    assert_int_equal(lua->call_global("arm_events", 1), 0);

    /* Another state layout: refused, the running code stays and keeps playing. */
    install(ANIMATION_LAYOUT2, paths[2]);
    assert_int_equal(loader__reload("ct.animation"), CT_ERR_VERSION);
    anim->evaluate(w, 0.2f);
    assert_float_equal(anim->time(w, e), 0.8f, 1e-5);
    assert_float_equal(hand_z_angle(tf, w, hand), 0.8f * (float)M_PI / 2, 0.02);

    /* The controller came through the reloads with its variable, and still sets the speed: gait
     * 0.05 plays at 0.1, so 0.5 s more is 0.05 s of the clip. */
    lua->push_light_userdata(L, w);
    lua->push_number(L, e.id);
    lua->push_number(L, 0.05);
    assert_int_equal(lua->call_global("arm_gait", 3), 0);
    anim->evaluate(w, 0.5f);
    assert_float_equal(anim->time(w, e), 0.85f, 1e-5);

    worlds->destroy_world(w); /* takes its controllers, and their programs, with it */
    assert_int_equal(test_kernel_shutdown(), 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(reload_keeps_playing)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
